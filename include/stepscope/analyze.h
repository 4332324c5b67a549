/* stepscope/analyze.h: what a loaded timeline says, computed without double counting.
 *
 * Everything here reads a timeline that sts_timeline_open() returned (slices nested,
 * clamped and ordered by lane, ts, depth; see stepscope/timeline.h). Durations are
 * int64_t nanoseconds.
 *
 * Definitions used throughout:
 *   self time   a slice's duration minus the union of the other slices of its lane
 *               that lie inside it (see sts_self_times()): duration minus direct
 *               children where slices nest properly, never negative where they overlap.
 *   union       the length of the union of half-open intervals [ts, ts + dur): time
 *               covered by at least one of them, counted once.
 *   span        from the earliest start to the latest end of the same intervals.
 *   median      of n sorted values v[0..n): v[n/2] for odd n; for even n the mean of the
 *               two middle values, v[n/2-1] and v[n/2], rounded down to a whole
 *               nanosecond (floor((a + b) / 2)). Exact: no sampling, no binning. */
#ifndef STEPSCOPE_ANALYZE_H
#define STEPSCOPE_ANALYZE_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/json.h"
#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- small exact helpers ---------------------------------------------------- */

/* The median of values[0..n) as defined above; 0 for n == 0. Reorders `values`
 * (a selection, O(n) on average). */
int64_t sts_median_i64(int64_t *values, size_t n);

/* The union length of n intervals iv[i] = {start, end} (half-open; an interval with
 * end <= start covers nothing), in any order. union({0,10},{2,7},{8,12}) = 12 where
 * the plain sum of lengths is 19. Returns -1 only when memory for sorting a copy of
 * more than 64 intervals cannot be allocated. */
int64_t sts_union_ns(const int64_t (*iv)[2], size_t n);

/* ---- did you mean ----------------------------------------------------------------- */

/* The candidates that look like a typo of `word`: edit distance (insertions,
 * deletions, substitutions and swaps of neighbours; letters compared without case) at
 * most max(1, strlen(word) / 3), nearest first, ties in candidate order. Fills
 * out[0..return value) with indices into cands, at most `max` of them. Candidates
 * longer than 256 bytes are never suggested. No allocation. */
size_t sts_suggest(const char *word, const char *const *cands, size_t ncands, size_t *out, size_t max);

/* ---- self time and per-name summaries ---------------------------------------- */

/* Fills self[i] with slice i's self time, for every slice (`self` holds
 * sts_timeline_slices() count entries): its duration minus the union of the other
 * slices of its lane (any track) that lie inside it. "Inside" is containment, not the
 * parent links: o lies inside s when s.ts <= o.ts < s.ts + s.dur and o ends by s's
 * end (of two identical intervals the first in nesting order holds the second). On a
 * properly nested lane this is the duration minus the direct children's durations;
 * where slices overlap it stays >= 0. Linear on properly nested lanes, O(m log m) over
 * the m slices of each stretch where slices cross. */
sts_status sts_self_times(const sts_timeline *tl, int64_t *self, sts_error *err);

/* How the rows of a names table are keyed. */
typedef enum sts_group {
    STS_GROUP_NAME = 0,   /* by slice name */
    STS_GROUP_HLO_OP,     /* slices carrying an hlo_op arg (XLA ops) by (hlo_module, hlo_op); others by name */
    STS_GROUP_HLO_MODULE, /* slices carrying an hlo_module arg by hlo_module; others by name */
    STS_GROUP_NUMBERED,   /* by slice name, numbered names (PREFIX#DIGITS: ProfilerStep#3) under PREFIX#N
                           * when two or more share PREFIX; what analyze ranks by default */
    STS_GROUP_SCOPE       /* XLA ops whose (hlo_module, hlo_op) has a named scope (sts_timeline_hlo_scope():
                           * jax.named_scope, the HLO op_name's path) by that scope; others by name */
} sts_group;

/* Which slices an analysis looks at. The window cuts every slice to [start_ns, end_ns)
 * first (a slice outside it is left out; self times are then those of the cut
 * slices). `name` then keeps only the slices with that name, or (when no slice has
 * exactly that name) whose name matches it as a POSIX extended regex: the kept slices'
 * self times still subtract everything inside them, and busy times are the unions of
 * the kept slices only. `jobs` is how many threads sts_name_summaries_in() may use
 * (0 or 1: only the calling thread; at most 64); the result is the same for every
 * value. */
typedef struct sts_scope {
    const uint32_t *lanes; /* lane indices; NULL: every lane */
    size_t nlanes;
    const char *name; /* NULL: every name */
    int windowed;     /* non-zero: cut to [start_ns, end_ns) */
    int64_t start_ns, end_ns;
    sts_group group;
    unsigned jobs;
} sts_scope;
/* clang-format off */
#define STS_SCOPE_INIT { NULL, 0, NULL, 0, 0, 0, STS_GROUP_NAME, 0 }
/* clang-format on */

typedef struct sts_name_summary {
    uint32_t name;                     /* string id: the slice name, the grouping arg's value, or the scope */
    uint32_t module;                   /* STS_GROUP_HLO_OP rows: the hlo_module string id; else STS_NONE */
    uint32_t grouped;                  /* STS_NAME_GROUPED_*: 0 for a slice name */
    uint64_t count;                    /* slices with this key */
    int64_t total_ns;                  /* sum of their durations (nested instances each count) */
    int64_t self_ns;                   /* sum of their self times */
    int64_t min_ns, median_ns, max_ns; /* over their durations */
} sts_name_summary;

#define STS_NAME_GROUPED_ARG      1 /* the row groups slices by an hlo arg's value (`name`) */
#define STS_NAME_GROUPED_NUMBERED 2 /* numbered names; `name` is the smallest string id among them */

/* A row's name as shown: the slice name or the hlo arg's value; for numbered names
 * their prefix and "#N" ("ProfilerStep#N"), written into buf[0..cap). Returns buf or a
 * string of the timeline's. */
const char *sts_name_summary_label(const sts_timeline *tl, const sts_name_summary *s, char *buf, size_t cap);

/* One summary per distinct slice name, ranked by self time (descending), then total
 * time (descending), then name (bytewise ascending). On success *out is a new array
 * of *n entries the caller frees with free() (NULL when there are no slices). Uses
 * about 24 bytes of temporary memory per slice of the largest lane (of the largest
 * each thread meets, with scope->jobs > 1) plus 8 per slice. */
sts_status sts_name_summaries(const sts_timeline *tl, sts_name_summary **out, size_t *n, sts_error *err);

/* The same over the slices `scope` keeps (NULL: all), keyed as scope->group says.
 * A scope naming a lane out of range, or a name pattern that is not a valid regex,
 * is STS_ERR_INVALID_ARG. */
sts_status sts_name_summaries_in(const sts_timeline *tl, const sts_scope *scope, sts_name_summary **out, size_t *n,
                                 sts_error *err);

/* ---- busy time: unions over lanes, processes, the whole trace ----------------- */

typedef struct sts_busy {
    uint64_t slices;  /* slices on the lanes considered */
    int64_t union_ns; /* time covered by at least one of those slices */
    int64_t start_ns; /* earliest slice start; 0 when there are no slices */
    int64_t end_ns;   /* latest slice end */
    int64_t span_ns;  /* end_ns - start_ns */
} sts_busy;

/* Busy time of the slices on the given lanes (lanes == NULL: every lane), merged
 * across lanes: two lanes busy at the same moment count it once. Lane indices out of
 * range are an STS_ERR_INVALID_ARG. O(slices log lanes). */
sts_status sts_busy_lanes(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, sts_busy *out, sts_error *err);

/* Busy time of one lane (lane must be in range). */
sts_status sts_busy_lane(const sts_timeline *tl, uint32_t lane, sts_busy *out, sts_error *err);

/* Busy time of every lane of process `process` (an index into
 * sts_timeline_processes()), merged. Looks at every lane to find the process's:
 * for all processes use sts_busy_each(). */
sts_status sts_busy_process(const sts_timeline *tl, uint32_t process, sts_busy *out, sts_error *err);

/* Busy time of everything `scope` keeps (NULL: every slice), in one pass:
 * per_lane[l] for every lane (lanes the scope leaves out get zeros), per_process[p]
 * for every process (its kept lanes merged), and *all over every kept lane. Any of the
 * three may be NULL. O(slices log slices) at worst, linear in lanes and processes. */
sts_status sts_busy_each(const sts_timeline *tl, const sts_scope *scope, sts_busy *per_lane, sts_busy *per_process,
                         sts_busy *all, sts_error *err);

/* Idle gaps: the stretches between busy intervals of the given lanes (NULL: all),
 * inside their span, at least min_gap_ns long, in time order. On success *out is a
 * new array of *n {start, end} pairs the caller frees with free() (NULL when none). */
sts_status sts_gaps(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, int64_t min_gap_ns,
                    int64_t (**out)[2], size_t *n, sts_error *err);

/* ---- lanes -------------------------------------------------------------------- */

/* Fills order[0..nlanes) with lane indices in display order: process sort index,
 * numeric pid, thread sort index, numeric tid, then lane index. `order` holds
 * sts_timeline_lanes() count entries. Lane indices themselves never change. */
void sts_lane_display_order(const sts_timeline *tl, uint32_t *order);

/* Fills porder[0..nprocesses) with process indices in display order: in the order
 * their first lane appears in `lane_order` (sts_lane_display_order()'s), then the
 * processes without lanes, by index. `porder` holds sts_timeline_processes() count
 * entries. Allocates a byte per process: returns STS_ERR_NOMEM (porder untouched)
 * when that fails. */
sts_status sts_process_display_order(const sts_timeline *tl, const uint32_t *lane_order, uint32_t *porder,
                                     sts_error *err);

/* The lanes `pattern` names: those whose thread name, process name, pid, tid or
 * "PID:TID" equals it; when none does, those whose thread or process name matches it
 * as a POSIX extended regex (an invalid one is STS_ERR_INVALID_ARG). In lane order.
 * On success *out is a new array of *n lanes the caller frees with free() (NULL and 0
 * when none match: not an error). */
sts_status sts_lanes_matching(const sts_timeline *tl, const char *pattern, uint32_t **out, size_t *n, sts_error *err);

/* ---- steps ------------------------------------------------------------------ */

/* How the steps were found. */
typedef enum sts_step_rule {
    STS_STEP_RULE_NONE = 0,      /* no steps found */
    STS_STEP_RULE_GIVEN_NAME,    /* options.step equals a slice name */
    STS_STEP_RULE_GIVEN_REGEX,   /* options.step as a POSIX extended regex over names */
    STS_STEP_RULE_PROFILER_STEP, /* names "ProfilerStep#N" (PyTorch profiler) */
    STS_STEP_RULE_STEP_NUM,      /* slices carrying a step_num arg (XProf step markers) */
    STS_STEP_RULE_REPEATED       /* the root name repeated on one lane, with children */
} sts_step_rule;

/* "given-name", "given-regex", "profiler-step", "step-num", "repeated-name" or "none".
 * Static string. */
const char *sts_step_rule_name(sts_step_rule rule);

typedef struct sts_step_options {
    /* A slice name, or (when no slice has exactly this name) a POSIX extended regular
     * expression matched against names. NULL: detect (see sts_steps_find()). */
    const char *step;
    /* The lanes whose window is reported for each step (see sts_step_window); NULL:
     * every lane. The steps' own lane is never among them (its breakdown is the
     * children). */
    const uint32_t *window_lanes;
    size_t nwindow_lanes;
    /* Names kept per window, the longest first; 0: all. */
    size_t window_names;
    /* XProf's overview page view: with more than 5 steps, leave out the first and
     * the last (they may be partial); see sts_steps_dropped(). */
    int xprof_view;
    /* Only the steps numbered first_index..last_index (sts_step.index, both included) are
     * kept, after xprof_view; the summaries are over those. INT64_MIN / INT64_MAX: no bound.
     * The steps left out are counted by sts_steps_out_of_range(). */
    int64_t first_index, last_index;
} sts_step_options;
/* clang-format off */
#define STS_STEP_OPTIONS_INIT { NULL, NULL, 0, 5, 0, INT64_MIN, INT64_MAX }
/* clang-format on */

/* One child name inside one step: the step's children (see sts_step) with this name,
 * summed. */
typedef struct sts_step_child {
    uint32_t name;    /* string id */
    uint32_t count;   /* children with this name in this step */
    int64_t total_ns; /* their summed durations */
    int64_t first_ts; /* start of the first of them */
} sts_step_child;

/* Step flags: why a step may not be whole. */
#define STS_STEP_UNCLOSED       0x01u /* a B never closed: its end is where its lane's data ends */
#define STS_STEP_AT_TRACE_START 0x02u /* starts at the trace's first timestamp: may have begun before capture */
#define STS_STEP_AT_TRACE_END   0x04u /* ends at the trace's last timestamp: may have gone on after capture */
#define STS_STEP_PARTIAL        (STS_STEP_UNCLOSED | STS_STEP_AT_TRACE_START | STS_STEP_AT_TRACE_END)

/* A step. Its children are the outermost slices of its lane (any track) that lie
 * inside it: inside it and inside no other slice that lies inside it. */
typedef struct sts_step {
    uint32_t slice; /* the step's slice index */
    uint32_t name;  /* string id */
    uint32_t lane;
    uint32_t flags; /* STS_STEP_* */
    int64_t index;  /* the step number: step_num arg, else N of a "NAME#N" name, else ordinal (0-based) */
    int64_t ts, dur;
    uint32_t first_child;    /* this step's entries in sts_steps_children(), in order of */
    uint32_t child_count;    /* first appearance within the step */
    int64_t children_ns;     /* time the children cover (their union: the sum of their durations
                              * unless children overlap each other) */
    int64_t unattributed_ns; /* dur - children_ns: step time no child covers (>= 0) */
    int64_t naive_ns;        /* dur + the children's summed durations: what adding them gives */
    uint32_t first_window;   /* this step's entries in sts_steps_windows() */
    uint32_t window_count;
} sts_step;

/* A step's window on another lane: what that lane did during [ts, ts + dur) of the
 * step. Only lanes busy inside the window are listed. */
typedef struct sts_step_window {
    uint32_t lane;
    int64_t busy_ns;     /* the union of the lane's slices inside the window (<= the step's dur) */
    uint32_t first_name; /* entries in sts_steps_window_names(), the longest first */
    uint32_t name_count;
} sts_step_window;

/* Time inside a window by slice name: each instant the lane was busy goes to the slice
 * that covers it and started last (the innermost one where slices nest), so a window's
 * names add up to its busy_ns (when all are kept). */
typedef struct sts_window_name {
    uint32_t name; /* string id */
    int64_t ns;
} sts_window_name;

/* Per lane across the steps: its busy time per step window, statistics over every
 * step (a step whose window the lane is idle in counts 0). */
typedef struct sts_window_lane_stats {
    uint32_t lane;
    uint32_t steps;   /* steps in whose window the lane is busy */
    int64_t total_ns; /* busy time summed over the windows */
    int64_t min_ns, median_ns, max_ns;
} sts_window_lane_stats;

/* Per child name across steps: statistics of its per-step totals, over the steps
 * where it appears. */
typedef struct sts_step_child_stats {
    uint32_t name;
    uint32_t steps; /* steps where it appears */
    uint64_t count; /* slices, all steps together */
    int64_t total_ns, min_ns, median_ns, max_ns;
} sts_step_child_stats;

typedef struct sts_steps_summary {
    size_t steps;
    int64_t total_ns;                  /* sum of step durations */
    int64_t min_ns, median_ns, max_ns; /* of step durations */
    double mean_ns;                    /* total_ns / steps */
    double stddev_ns;                  /* sample standard deviation (n - 1, as XProf); NAN for one step */
    size_t partial;                    /* steps with an STS_STEP_PARTIAL flag */
    int64_t children_ns;               /* sum of the steps' children_ns */
    int64_t unattributed_ns;           /* total_ns - children_ns */
    int64_t unattributed_min_ns, unattributed_median_ns, unattributed_max_ns;
    int64_t naive_ns; /* sum of the steps' naive_ns: the double-counted sum */
} sts_steps_summary;

typedef struct sts_steps sts_steps;

/* Finds the steps of a timeline, breaks each into its children and measures its
 * window on the other lanes.
 *
 * With options->step: slices with exactly that name, or else whose name matches it as
 * a POSIX extended regex (an invalid regex is STS_ERR_INVALID_ARG). Without, the first
 * rule that finds anything wins:
 *   1. names "ProfilerStep#N";
 *   2. slices carrying a step_num arg (outermost ones: a step_num slice inside another
 *      is not a separate step);
 *   3. among names whose outermost instances (inside no other slice of their lane)
 *      occur at least twice on one lane, never lie inside another instance of the
 *      name there and hold slices inside them: the (lane, name) with the most total
 *      time; its outermost instances are the steps.
 * When matches fall on several lanes, the lane with the most matches is used (ties:
 * the lane whose first match starts earliest), since one profile can mark the same
 * step on a host thread and a device lane; sts_steps_other_lanes() counts the rest.
 * A match inside another match is not a separate step. Steps are in time order.
 * Finding no steps is not an error: the result has rule STS_STEP_RULE_NONE,
 * sts_steps_tried() says what was looked for and sts_steps_suggestions() offers names
 * close to a --step that matched nothing.
 * O(slices log slices) at worst. On success *out is a new handle; free it with
 * sts_steps_free(). */
sts_status sts_steps_find(const sts_timeline *tl, const sts_step_options *options, sts_steps **out, sts_error *err);

/* Frees the handle; NULL is a no-op. */
void sts_steps_free(sts_steps *s);

sts_step_rule sts_steps_rule(const sts_steps *s);
/* The steps, in time order; owned by the handle. */
const sts_step *sts_steps_list(const sts_steps *s, size_t *n);
/* All steps' child entries; a step's entries are [first_child, first_child + child_count). */
const sts_step_child *sts_steps_children(const sts_steps *s, size_t *n);
/* Per child name across steps, in order of first appearance. */
const sts_step_child_stats *sts_steps_child_stats(const sts_steps *s, size_t *n);
/* All steps' windows; a step's are [first_window, first_window + window_count), in
 * lane display order. */
const sts_step_window *sts_steps_windows(const sts_steps *s, size_t *n);
/* All windows' names; a window's are [first_name, first_name + name_count). */
const sts_window_name *sts_steps_window_names(const sts_steps *s, size_t *n);
/* Per window lane busy in at least one step's window, in lane display order. */
const sts_window_lane_stats *sts_steps_window_lanes(const sts_steps *s, size_t *n);
const sts_steps_summary *sts_steps_get_summary(const sts_steps *s);
/* Lanes holding matches that were set aside (see sts_steps_find()). */
size_t sts_steps_other_lanes(const sts_steps *s);
/* Steps left out by options->xprof_view (0 or 2); the list and summary exclude them. */
size_t sts_steps_dropped(const sts_steps *s);
/* The steps left out by first_index / last_index of sts_step_options. */
size_t sts_steps_out_of_range(const sts_steps *s);
/* Lanes left out of the windows because they hold only profiler bookkeeping (Kineto's
 * "PyTorch Profiler (N)" spans); only when window_lanes is NULL (every lane). */
size_t sts_steps_bookkeeping_lanes(const sts_steps *s);
/* One line per rule or candidate tried, for explaining an empty result; owned by the
 * handle. */
const char *const *sts_steps_tried(const sts_steps *s, size_t *n);
/* When options->step matched nothing: slice names close to it (see sts_suggest()),
 * nearest first, as string ids; owned by the handle. */
const uint32_t *sts_steps_suggestions(const sts_steps *s, size_t *n);

/* One sentence saying what a rule looks for ("PyTorch profiler step markers named
 * ProfilerStep#N"; "no steps found" for STS_STEP_RULE_NONE). Static string. */
const char *sts_step_rule_description(sts_step_rule rule);

/* ---- what `analyze` computes, in one call ---------------------------------------
 * One scoped analysis of a timeline: the names ranked by self time, the busy time of
 * every lane and process and of everything kept, both display orders, and the
 * timeline's overlaps grouped by (name, overrun name). What `stepscope analyze` prints
 * and what the Python binding's Trace.analyze() returns, computed here once for both. */

/* The step number an analysis was not windowed to (sts_analysis_options.window_step). */
#define STS_NO_STEP INT64_MIN

typedef struct sts_analysis_options {
    /* Threads the analysis may use: 0 one per core, 1 only the calling thread (the
     * library caps it at 64). Names are ranked on parts of the lanes side by side once
     * there are enough slices to pay for the threads, and the busy times are computed
     * on a thread of their own meanwhile. The result is the same for every value. */
    unsigned jobs;
    /* What the scope's lanes were chosen by, kept for the document's "scope": the
     * pattern (as sts_lanes_matching() takes it), NULL when the lanes were not chosen;
     * and the step number whose window the scope holds, STS_NO_STEP when none. */
    const char *lane_pattern;
    int64_t window_step;
} sts_analysis_options;
/* clang-format off */
#define STS_ANALYSIS_OPTIONS_INIT { 0, NULL, STS_NO_STEP }
/* clang-format on */

/* A group of overlaps (sts_timeline_overlaps()) with one pair of names: JAX's Python
 * tracer repeats one pattern per step, which a flat list would repeat once per step. */
typedef struct sts_overlap_group {
    uint32_t name, parent;  /* string ids: the overrunning slice's name and the overrun one's */
    uint32_t lane;          /* the lane of the group's first overlap */
    uint64_t count;         /* overlaps in the group */
    int64_t min_ns, max_ns; /* of their overrun_ns */
    uint32_t first;         /* index of the group's first overlap in sts_timeline_overlaps() */
} sts_overlap_group;

typedef struct sts_analysis sts_analysis;

/* Analyzes what `scope` keeps (NULL: everything; scope->jobs is ignored, opt->jobs
 * says the threads) as sts_name_summaries_in() and sts_busy_each() define it, with the
 * display orders and overlap groups. `opt` NULL: STS_ANALYSIS_OPTIONS_INIT. Errors as
 * sts_name_summaries_in()'s (a lane out of range or an invalid name regex is
 * STS_ERR_INVALID_ARG), and STS_ERR_NOMEM. On success *out is a new handle that reads
 * `tl`, which must outlive it; free it with sts_analysis_free(). */
sts_status sts_analysis_run(const sts_timeline *tl, const sts_scope *scope, const sts_analysis_options *opt,
                            sts_analysis **out, sts_error *err);

/* Frees the handle; NULL is a no-op. */
void sts_analysis_free(sts_analysis *a);

/* The timeline analyzed, and the scope and options the handle keeps copies of
 * (scope->lanes and opt->lane_pattern are the handle's own; scope->lanes is NULL when
 * every lane was kept). */
const sts_timeline *sts_analysis_timeline(const sts_analysis *a);
const sts_scope *sts_analysis_scope(const sts_analysis *a);
const sts_analysis_options *sts_analysis_get_options(const sts_analysis *a);
/* Non-zero when the scope narrows anything: lanes, a name or a window. */
int sts_analysis_scoped(const sts_analysis *a);

/* The ranked rows (sts_name_summaries_in()'s, in its order); owned by the handle. */
const sts_name_summary *sts_analysis_names(const sts_analysis *a, size_t *n);
/* Busy time per lane and per process, by index (sts_busy_each()'s per_lane and
 * per_process: zeros for what the scope leaves out), and over everything kept. */
const sts_busy *sts_analysis_lane_busy(const sts_analysis *a, size_t *n);
const sts_busy *sts_analysis_process_busy(const sts_analysis *a, size_t *n);
const sts_busy *sts_analysis_busy(const sts_analysis *a);
/* Lane and process indices in display order (sts_lane_display_order(),
 * sts_process_display_order()). */
const uint32_t *sts_analysis_lane_order(const sts_analysis *a, size_t *n);
const uint32_t *sts_analysis_process_order(const sts_analysis *a, size_t *n);
/* The timeline's overlaps by (name, overrun name): the largest groups first, then in
 * order of their first overlap. Overlaps are the timeline's, whatever the scope. */
const sts_overlap_group *sts_analysis_overlap_groups(const sts_analysis *a, size_t *n);

/* ---- JSON documents ----------------------------------------------------------
 * What `stepscope analyze --json` and `stepscope steps --json` print (schemas in
 * docs/json-schemas.md), written through a caller's sts_jsonw so the CLI, the Python
 * binding and any other front end give the same bytes for the same layout. Lanes are
 * written as "pid", "tid", "process", "thread": the pid and tid as written in the
 * trace and the names ("" when absent). None of these finish the writer. */

/* Writes the members "slices", "union_ns", "span_ns", "start_ns", "end_ns" of `b`
 * into the object open on `w`. */
void sts_busy_write_json(sts_jsonw *w, const sts_busy *b);

/* Writes an events-by-phase object (`by_phase`: the count of each phase character
 * that occurred, in character order) as one value. */
void sts_phases_write_json(sts_jsonw *w, const uint64_t by_phase[128]);

/* Writes `analyze --json`'s "trace" object as one value (the caller writes its key,
 * if any): what sts_timeline_get_info() holds, the counts of the timeline's tables,
 * and `busy_ns`, the busy time to report (sts_busy_each()'s all.union_ns for the
 * scope analyzed; the union over every lane when nothing is scoped). */
void sts_timeline_info_write_json(sts_jsonw *w, const sts_timeline *tl, int64_t busy_ns);

/* The overlaps `analyze --json` lists in "overlap_list" unless told to list all. */
#define STS_ANALYSIS_JSON_OVERLAPS 100

/* Writes `analyze --json`'s document as one value: "trace" (with the busy time of the
 * scope), "scope", "names" (the first `top`; 0: all), "lanes" and "processes" in
 * display order, "clamped", "overlaps", "overlap_list" (the first `overlaps` of the
 * timeline's overlaps; 0: all) and "overlap_groups". Names carry the grouping arg
 * ("by", and for hlo_op rows "hlo_module", null when unknown) on grouped rows. Where
 * the scope keeps some lanes, the lanes it leaves out are not listed (kept ones are,
 * busy or not), nor the processes without a busy lane. */
sts_status sts_analysis_write_json(sts_jsonw *w, const sts_analysis *a, size_t top, size_t overlaps, sts_error *err);

/* Writes `steps --json`'s document as one value: the rule, the steps' lane, each step
 * with its children, windows and partial flags, the children and window lanes across
 * steps, and the summary. `xprof_view` is the options.xprof_view `s` was found with.
 * A result without steps (rule STS_STEP_RULE_NONE) is STS_ERR_INVALID_ARG with
 * nothing written: explain it with sts_steps_tried() instead. */
sts_status sts_steps_write_json(sts_jsonw *w, const sts_timeline *tl, const sts_steps *s, int xprof_view,
                                sts_error *err);

#ifdef __cplusplus
}
#endif
#endif
