/* stepscope/analyze.h: what a loaded timeline says, computed without double counting.
 *
 * Everything here reads a timeline that sts_timeline_open() returned (slices nested,
 * clamped and ordered by lane, ts, depth; see stepscope/timeline.h). Durations are
 * int64_t nanoseconds.
 *
 * Definitions used throughout:
 *   self time   a slice's duration minus the durations of its direct children. Children
 *               always lie inside their parent (an overrun within the resolution is
 *               clamped, a bigger one is an overlap and not a child), so self >= 0.
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

/* ---- self time and per-name summaries ---------------------------------------- */

/* Fills self[i] with slice i's self time, for every slice (`self` holds
 * sts_timeline_slices() count entries). */
void sts_self_times(const sts_timeline *tl, int64_t *self);

typedef struct sts_name_summary {
    uint32_t name;                     /* string id */
    uint64_t count;                    /* slices with this name */
    int64_t total_ns;                  /* sum of their durations (nested instances each count) */
    int64_t self_ns;                   /* sum of their self times */
    int64_t min_ns, median_ns, max_ns; /* over their durations */
} sts_name_summary;

/* One summary per distinct slice name, ranked by self time (descending), then total
 * time (descending), then name (bytewise ascending). On success *out is a new array
 * of *n entries the caller frees with free() (NULL when there are no slices). Uses
 * 8 bytes of temporary memory per slice. */
sts_status sts_name_summaries(const sts_timeline *tl, sts_name_summary **out, size_t *n, sts_error *err);

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
 * range are an STS_ERR_INVALID_ARG. Needs O(nlanes) memory. */
sts_status sts_busy_lanes(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, sts_busy *out, sts_error *err);

/* Busy time of one lane (no allocation; lane must be in range). */
sts_busy sts_busy_lane(const sts_timeline *tl, uint32_t lane);

/* Busy time of every lane of process `process` (an index into
 * sts_timeline_processes()), merged. */
sts_status sts_busy_process(const sts_timeline *tl, uint32_t process, sts_busy *out, sts_error *err);

/* Idle gaps: the stretches between busy intervals of the given lanes (NULL: all),
 * inside their span, at least min_gap_ns long, in time order. On success *out is a
 * new array of *n {start, end} pairs the caller frees with free() (NULL when none). */
sts_status sts_gaps(const sts_timeline *tl, const uint32_t *lanes, size_t nlanes, int64_t min_gap_ns,
                    int64_t (**out)[2], size_t *n, sts_error *err);

/* ---- lane display order -------------------------------------------------------- */

/* Fills order[0..nlanes) with lane indices in display order: process sort index,
 * numeric pid, thread sort index, numeric tid, then lane index. `order` holds
 * sts_timeline_lanes() count entries. Lane indices themselves never change. */
void sts_lane_display_order(const sts_timeline *tl, uint32_t *order);

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
} sts_step_options;
/* clang-format off */
#define STS_STEP_OPTIONS_INIT { NULL }
/* clang-format on */

/* One child name inside one step: the direct children of the step slice with this
 * name, summed. */
typedef struct sts_step_child {
    uint32_t name;    /* string id */
    uint32_t count;   /* direct children with this name in this step */
    int64_t total_ns; /* their summed durations */
    int64_t first_ts; /* start of the first of them */
} sts_step_child;

typedef struct sts_step {
    uint32_t slice; /* the step's slice index */
    uint32_t name;  /* string id */
    uint32_t lane;
    int64_t index; /* step_num arg, else N of a "NAME#N" name, else ordinal (0-based) */
    int64_t ts, dur;
    uint32_t first_child;    /* this step's entries in sts_steps_children(), in order of */
    uint32_t child_count;    /* first appearance within the step */
    int64_t children_ns;     /* sum of the direct children's durations */
    int64_t unattributed_ns; /* dur - children_ns: step time no direct child covers */
    int64_t naive_ns;        /* dur + children_ns: what summing step and children gives */
} sts_step;

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
    int64_t children_ns;               /* sum of direct children over all steps */
    int64_t unattributed_ns;           /* total_ns - children_ns */
    int64_t unattributed_min_ns, unattributed_median_ns, unattributed_max_ns;
    int64_t naive_ns; /* total_ns + children_ns: the double-counted sum */
} sts_steps_summary;

typedef struct sts_steps sts_steps;

/* Finds the steps of a timeline and breaks each into its direct children.
 *
 * With options->step: slices with exactly that name, or else whose name matches it as
 * a POSIX extended regex (an invalid regex is STS_ERR_INVALID_ARG). Without, the first
 * rule that finds anything wins:
 *   1. names "ProfilerStep#N";
 *   2. slices carrying a step_num arg (outermost ones: a step_num slice inside another
 *      is not a separate step);
 *   3. among names that occur at depth 0 at least twice on one lane, never nest inside
 *      themselves on that lane and have children: the (lane, name) with the most total
 *      time; its depth-0 instances are the steps.
 * When matches fall on several lanes, the lane with the most matches is used (ties:
 * the lane whose first match starts earliest), since one profile can mark the same
 * step on a host thread and a device lane; sts_steps_other_lanes() counts the rest.
 * Steps are in time order. Finding no steps is not an error: the result has rule
 * STS_STEP_RULE_NONE and sts_steps_tried() says what was looked for.
 * On success *out is a new handle; free it with sts_steps_free(). */
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
const sts_steps_summary *sts_steps_get_summary(const sts_steps *s);
/* Lanes holding matches that were set aside (see sts_steps_find()). */
size_t sts_steps_other_lanes(const sts_steps *s);
/* One line per rule or candidate tried, for explaining an empty result; owned by the
 * handle. */
const char *const *sts_steps_tried(const sts_steps *s, size_t *n);

#ifdef __cplusplus
}
#endif
#endif
