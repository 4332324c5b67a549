/* stepscope/hosts.h: many hosts of one run, read at once: per-host facts, names over
 * all hosts, per-host steps aligned by step number, and the stragglers among them.
 *
 * A pod's JAX profile holds one .xplane.pb per host in each run directory; a PyTorch
 * job writes one trace per rank. Each host is read into its own timeline (its pids are
 * its own: two hosts' processes never merge), reduced to a compact record, and the
 * timeline is freed. The records of a set of hosts (sts_hosts) merge exactly, and they
 * serialize, so the hosts can be read by several processes (the CLI's --mpi) and the
 * results brought together into the same numbers one process computes: counts, sums,
 * unions, minima and maxima merge as they are; medians of values spread over
 * processes are found exactly by sts_xmedian (counting rounds, no sampling).
 *
 * Everything here reads timelines through stepscope/timeline.h and stepscope/analyze.h;
 * durations are int64_t nanoseconds on each host's own clock. */
#ifndef STEPSCOPE_HOSTS_H
#define STEPSCOPE_HOSTS_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/analyze.h"
#include "stepscope/devview.h"
#include "stepscope/memory.h"
#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- the inputs: which files are which hosts ----------------------------------- */

typedef struct sts_host_file {
    const char *path; /* the trace file */
    const char *name; /* the host's name (see sts_hostset_expand()) */
    uint64_t size;    /* bytes on disk; 0 when unknown (a pipe) */
} sts_host_file;

typedef struct sts_hostset sts_hostset;

/* Expands what a user named into hosts. A profile directory (at any level, as
 * sts_timeline_open() takes it; `run` picks the run, NULL = the latest) gives every host
 * of its run: its .xplane.pb files, else its *.trace.json.gz files, else its
 * perfetto_trace.json.gz; any other path is one host. A host's name is its file name
 * less the trace suffix (.xplane.pb, .pt.trace.json, .trace.json, .json, each possibly
 * .gz); when two files give one name, each of them is named by its path instead. Hosts
 * are ordered by name, digit runs compared as numbers (host2 before host10), then by
 * path. A file named twice is an error, as is "-" among several inputs (standard input
 * can be read once). On success *out is a new set (free with sts_hostset_free()). */
sts_status sts_hostset_expand(const char *const *inputs, size_t n, const char *run, sts_hostset **out, sts_error *err);

/* A set of the given files, names and sizes as they are, in this order (how a set made
 * by sts_hostset_expand() in one process is rebuilt in another). Copies everything. */
sts_status sts_hostset_from(const sts_host_file *files, size_t n, sts_hostset **out, sts_error *err);

/* Frees the set; NULL is a no-op. */
void sts_hostset_free(sts_hostset *set);

/* The hosts, in order; owned by the set. */
const sts_host_file *sts_hostset_files(const sts_hostset *set, size_t *n);

/* What the expansion chose, one line per profile directory ("DIR: run R (the latest of
 * 3 runs), 16 hosts (*.xplane.pb)"), for telling the user; owned by the set. */
const char *const *sts_hostset_notes(const sts_hostset *set, size_t *n);

/* The run of the profile directories read: their common run name, NULL when no input
 * was a profile directory or they read differently named runs. */
const char *sts_hostset_run(const sts_hostset *set);

/* Assigns hosts to `parts` parts so the largest part (in bytes) is small: largest host
 * first, each to the part with the fewest bytes so far (ties: the lower part). Fills
 * part_of[0..n) for the set's n hosts. The same set gives the same assignment in every
 * process. */
void sts_hostset_assign(const sts_hostset *set, size_t parts, uint32_t *part_of);

/* ---- what is kept of each host --------------------------------------------------- */

/* What to compute while reading. */
#define STS_HOSTS_FACTS 0x1u /* busy times, lanes, processes, overlaps of each host (info and warnings: always) */
#define STS_HOSTS_NAMES 0x2u /* per slice name over all hosts (needs the durations) */
#define STS_HOSTS_STEPS 0x4u /* each host's steps, children and device collectives */
/* With STS_HOSTS_STEPS: each host's device view per step and device (sts_hosts_device_steps()). */
#define STS_HOSTS_DEVICE 0x8u
/* With STS_HOSTS_STEPS: each host's device memory per kept step and device
 * (sts_hosts_memory_steps()); the files are read with STS_ARGS_WITH_MEMORY OR'd into
 * open.args so the memory events' keys are kept. */
#define STS_HOSTS_MEMORY 0x10u
/* Each host's device memory over the whole trace, as `analyze --memory` finds it
 * (sts_hosts_memory_devices()); read with STS_ARGS_WITH_MEMORY as above. */
#define STS_HOSTS_MEMORY_DEVICES 0x20u
/* With STS_HOSTS_STEPS: each host's collective ops on its device lanes, with the args that
 * match them across hosts, for sts_collectives_match() (docs/collectives.md). Their args
 * must be kept: sts_hosts_read() opens with STS_ARGS_WITH_COLLECTIVES added. */
#define STS_HOSTS_COLLECTIVES 0x40u

typedef struct sts_hosts_options {
    sts_open_options open;  /* how each file is opened (args kept; open.run is ignored) */
    unsigned what;          /* STS_HOSTS_* */
    sts_step_options steps; /* how each host's steps are found */
    unsigned jobs;          /* files read at once, on threads; 0 = one per online CPU */
    size_t keep_overlaps;   /* overlaps listed per host (the first ones; all are counted) */
    size_t keep_warnings;   /* warnings kept per host (the first ones; all are counted) */
    /* With STS_HOSTS_DEVICE: the rule table deciding each host's device ops' categories
     * (sts_devview_options.rules), the same for every host; NULL: the built-in one. The
     * caller's, alive until sts_hosts_read() returns; `open.args` must keep the arg keys
     * it reads (sts_devview_rules_arg_keys()). */
    const sts_devview_rules *device_rules;
} sts_hosts_options;
/* clang-format off */
#define STS_HOSTS_OPTIONS_INIT { STS_OPEN_OPTIONS_INIT, STS_HOSTS_FACTS | STS_HOSTS_NAMES, STS_STEP_OPTIONS_INIT, 0, 100, 10, NULL }
/* clang-format on */

/* A host's facts: what sts_timeline_get_info() says, plus what the CLI's analyze
 * computes of the whole host. */
typedef struct sts_host_info {
    size_t index;     /* the host's place in its sts_hostset */
    const char *name; /* the host's name */
    const char *path; /* the file read */
    const char *format;
    const char *meta_host; /* the host name the trace itself holds (XSpace hostnames), NULL */
    uint64_t bytes;
    int compressed, truncated;
    uint64_t events, by_phase[128], skipped, rejected, clamped, overlaps, unmatched_end, unclosed_begin;
    int64_t resolution_ns, ts_min, ts_max;
    uint64_t processes, lanes, slices, instants, counters, asyncs, flows, args;
    sts_busy busy;           /* over every lane of the host (STS_HOSTS_FACTS; else zeros) */
    uint64_t warnings_total; /* all warnings; the first keep_warnings are kept */
} sts_host_info;

/* A lane of a host, with its busy time. */
typedef struct sts_host_lane {
    const char *pid, *tid;        /* as written in the trace */
    const char *process, *thread; /* names, "" when absent */
    int device;                   /* 1: a device lane (see sts_lane_is_device()) */
    sts_busy busy;
} sts_host_lane;

typedef struct sts_host_process {
    const char *pid, *name;
    sts_busy busy; /* over all its lanes */
} sts_host_process;

typedef struct sts_host_overlap {
    const char *name, *parent, *pid, *tid;
    int64_t ts_ns, dur_ns, parent_ts_ns, parent_dur_ns, overrun_ns;
} sts_host_overlap;

/* Slices of one name over every host. */
typedef struct sts_host_name {
    const char *name;
    uint64_t count;
    int64_t total_ns, self_ns, min_ns, median_ns, max_ns; /* as sts_name_summary */
} sts_host_name;

/* A collective's time in one step of one host (see sts_collective_kind()). */
typedef struct sts_host_collective {
    const char *kind; /* "all-reduce", "all-gather", ... */
    int64_t ns;       /* union over the host's device lanes of this kind's slices in the step */
} sts_host_collective;

typedef struct sts_host_child {
    const char *name;
    uint32_t count;
    int64_t total_ns;
} sts_host_child;

/* One step of one host: its breakdown (see sts_step) and its device lanes' time inside
 * the step's window [ts, ts + dur). */
typedef struct sts_host_step {
    int64_t step; /* the step number (sts_step.index) */
    int64_t ts_ns, dur_ns, children_ns, unattributed_ns;
    uint32_t first_child, child_count; /* in sts_hosts_step_children() */
    int64_t device_busy_ns;            /* union of the device lanes' slices in the window; -1: no device lanes */
    int64_t collective_ns;             /* union of their collective slices in the window; -1: no device lanes */
    uint32_t first_collective, collective_count; /* in sts_hosts_step_collectives(), by kind */
} sts_host_step;

/* One device of one host in one step: the device view's window (stepscope/devview.h,
 * docs/device.md) as sts_devview_compute() gave it, with its device's names, so that a
 * host's steps write the same "devices" as `steps --device --json` of that host alone. */
typedef struct sts_host_device_step {
    uint32_t step;        /* index into sts_hosts_steps() of the host */
    const char *device;   /* sts_devview_device_label() */
    const char *pid;      /* the device process's label */
    const char *process;  /* the device process's name */
    sts_devview_window w; /* w.step is the trace's step index, w.device the view's device index */
} sts_host_device_step;

/* One device of one host in one step: its memory entry (stepscope/memory.h,
 * docs/memory.md) as sts_memory_find() gave it over the host's own steps, so that a
 * host's steps write the same "memory" as `steps --memory --json` of that host alone. */
typedef struct sts_host_memory_step {
    uint32_t step;      /* index into sts_hosts_steps() of the host */
    const char *device; /* sts_memory_device.name */
    int has_events;     /* the device has allocation events (else counts are unknown) */
    int has_addrs;      /* its events name addresses (else live allocations are unknown) */
    sts_memory_step e;  /* e.step the trace's step index, e.device the device's index; e.first_live and
                         * e.live_count index sts_hosts_memory_lives() of the host */
} sts_host_memory_step;

/* How a host's steps were found. */
typedef struct sts_host_steps_info {
    sts_step_rule rule;    /* STS_STEP_RULE_NONE: the host has no steps */
    const char *pid, *tid; /* the steps' lane */
    const char *process, *thread;
    size_t other_lanes;       /* sts_steps_other_lanes() */
    size_t device_lanes;      /* the host's device lanes */
    size_t duplicates;        /* steps left out for repeating a step number */
    const char *const *tried; /* when no steps: what was looked for */
    size_t ntried;
} sts_host_steps_info;

/* The records of a set of hosts. */
typedef struct sts_hosts sts_hosts;

/* An empty set of records. NULL when memory runs out. */
sts_hosts *sts_hosts_create(void);

/* Frees the records; NULL is a no-op. */
void sts_hosts_free(sts_hosts *h);

/* Adds host `index` (its place in its sts_hostset), named `name`, from a loaded
 * timeline: what opt->what asks. The timeline is only read during the call. Adding a
 * host index already present is STS_ERR_INVALID_ARG. */
sts_status sts_hosts_add(sts_hosts *h, size_t index, const char *name, const sts_timeline *tl,
                         const sts_hosts_options *opt, sts_error *err);

/* Reads the hosts which[0..n) of `set` (which == NULL: all of them), opt->jobs files at
 * once, each opened, reduced with sts_hosts_add() and freed, so memory holds at most
 * jobs timelines. When a file fails, no more are started and err holds the failure of
 * the first host (in set order) that failed: its message names the file. On success
 * *out holds new records (free with sts_hosts_free()). */
sts_status sts_hosts_read(const sts_hostset *set, const size_t *which, size_t n, const sts_hosts_options *opt,
                          sts_hosts **out, sts_error *err);

/* Called by sts_hostset_each() for host i in set order, on the calling thread; the
 * timeline is freed when it returns. A non-OK return stops the walk. */
typedef sts_status (*sts_hostset_fn)(size_t i, const sts_host_file *f, const sts_timeline *tl, void *user,
                                     sts_error *err);

/* Reads every host of `set`, `jobs` files at once (0: one per online CPU) on worker
 * threads, ahead of `fn` by at most `jobs` hosts, and hands each timeline to fn in set
 * order. Stops at the first failure (a file that does not read, or fn's status). */
sts_status sts_hostset_each(const sts_hostset *set, const sts_open_options *opt, unsigned jobs, sts_hostset_fn fn,
                            void *user, sts_error *err);

/* Moves every host of `from` into `into` (hosts stay ordered by index) and merges the
 * names: counts, sums, minima and maxima add up exactly; durations are kept when both
 * sides hold them, else dropped (medians then come from sts_hosts_set_median()).
 * `from` is left empty. A host index in both is STS_ERR_INVALID_ARG. */
sts_status sts_hosts_merge(sts_hosts *into, sts_hosts *from, sts_error *err);

/* Finishes the names: medians from the durations held (names whose median was set are
 * kept as set), then ranks them by self time (descending), total (descending), name
 * (bytewise). STS_ERR_STATE when a name has neither its durations nor a median set. */
sts_status sts_hosts_finish(sts_hosts *h, sts_error *err);

/* ---- reading the records ----------------------------------------------------------- */

size_t sts_hosts_count(const sts_hosts *h);
/* Host i (0 <= i < count, in index order). */
const sts_host_info *sts_hosts_info(const sts_hosts *h, size_t i);
/* Host i's lanes and processes in display order, and its first overlaps. */
const sts_host_lane *sts_hosts_lanes(const sts_hosts *h, size_t i, size_t *n);
const sts_host_process *sts_hosts_processes(const sts_hosts *h, size_t i, size_t *n);
const sts_host_overlap *sts_hosts_overlaps(const sts_hosts *h, size_t i, size_t *n);
const char *const *sts_hosts_warnings(const sts_hosts *h, size_t i, size_t *n);

/* The names: ranked after sts_hosts_finish(), else in order of first appearance. */
const sts_host_name *sts_hosts_names(const sts_hosts *h, size_t *n);
/* The durations held for name i (of sts_hosts_names()), in no particular order; *n = 0
 * and NULL when they are not held. */
const int64_t *sts_hosts_name_values(sts_hosts *h, size_t i, size_t *n);
/* Sets the median of the name `name` (found elsewhere, e.g. by sts_xmedian).
 * STS_ERR_NOT_FOUND when no host has that name. */
sts_status sts_hosts_set_median(sts_hosts *h, const char *name, int64_t median_ns, sts_error *err);

/* Host i's steps (in time order) and how they were found; NULL when steps were not
 * asked for. */
const sts_host_steps_info *sts_hosts_steps_info(const sts_hosts *h, size_t i);
const sts_host_step *sts_hosts_steps(const sts_hosts *h, size_t i, size_t *n);
const sts_host_child *sts_hosts_step_children(const sts_hosts *h, size_t i, size_t *n);
const sts_host_collective *sts_hosts_step_collectives(const sts_hosts *h, size_t i, size_t *n);
/* Host i's device view (STS_HOSTS_DEVICE): per kept step, one entry per device, step
 * by step; NULL and *n = 0 when not asked for or the host has no device ops. */
const sts_host_device_step *sts_hosts_device_steps(const sts_hosts *h, size_t i, size_t *n);

/* Host i's device memory (STS_HOSTS_MEMORY): per kept step, one entry per device, step
 * by step; NULL and *n = 0 when not asked for or the host has no memory events. The
 * live allocations the entries index are sts_hosts_memory_lives(). */
const sts_host_memory_step *sts_hosts_memory_steps(const sts_hosts *h, size_t i, size_t *n);
const sts_memory_live *sts_hosts_memory_lives(const sts_hosts *h, size_t i, size_t *n);
/* 1 when host i was read with STS_HOSTS_MEMORY (and has steps), whether or not it held
 * memory events. */
int sts_hosts_memory_asked(const sts_hosts *h, size_t i);

/* Host i's memory devices over its whole trace (STS_HOSTS_MEMORY_DEVICES), ordered by
 * name as sts_memory_devices() gives them: their first_point and point_count index
 * sts_hosts_memory_points(), their first_live and first_kept sts_hosts_memory_lives();
 * and the memory warnings of that host, all of them. NULL and *n = 0 when not asked for
 * or the host has no memory events. */
const sts_memory_device *sts_hosts_memory_devices(const sts_hosts *h, size_t i, size_t *n);
const sts_memory_point *sts_hosts_memory_points(const sts_hosts *h, size_t i, size_t *n);
const char *const *sts_hosts_memory_warnings(const sts_hosts *h, size_t i, size_t *n);

/* Writes entries[0..n) of one step of host i as `steps --memory --json`'s "memory" array
 * of that step: sts_memory_write_step_json()'s bytes for the same trace. */
void sts_host_memory_steps_write_json(sts_jsonw *w, const sts_hosts *h, size_t i, const sts_host_memory_step *entries,
                                      size_t n);

/* Writes entries[0..n) of one host step as `steps --device --json`'s "devices" array:
 * sts_devview_write_windows_json()'s bytes for the same trace. */
void sts_host_device_steps_write_json(sts_jsonw *w, const sts_host_device_step *entries, size_t n);

/* ---- serializing ------------------------------------------------------------------- */

/* Writes the records as bytes another process reads back with
 * sts_hosts_deserialize(); with `values` 0 the names' durations are left out (their
 * medians must then be set on the receiving side). On success *buf is malloc'd (the
 * caller frees it) and holds *len bytes. */
sts_status sts_hosts_serialize(const sts_hosts *h, int values, void **buf, size_t *len, sts_error *err);

/* Reads records written by sts_hosts_serialize() (by the same version of stepscope).
 * Malformed bytes are STS_ERR_FORMAT naming the byte offset. */
sts_status sts_hosts_deserialize(const void *buf, size_t len, sts_hosts **out, sts_error *err);

/* ---- steps across hosts: alignment and stragglers ------------------------------------ */

/* What explains why a step's slowest host took longer than its median host: the
 * component whose time on the slowest host exceeds its time on the median host the
 * most. Components: each collective kind on the device lanes, the device lanes' other
 * busy time, each direct child name of the step, and the unattributed remainder
 * (ties go in that order, then by name). */
typedef enum sts_cause_kind {
    STS_CAUSE_NONE = 0,    /* nothing took longer on the slowest host (or one host only) */
    STS_CAUSE_COLLECTIVE,  /* a collective kind on the device lanes */
    STS_CAUSE_DEVICE,      /* device busy time outside collectives */
    STS_CAUSE_CHILD,       /* a direct child of the step, by name */
    STS_CAUSE_UNATTRIBUTED /* step time no child covers */
} sts_cause_kind;

/* "collective", "device", "child", "unattributed" or "none". Static string. */
const char *sts_cause_kind_name(sts_cause_kind k);

typedef struct sts_step_cause {
    sts_cause_kind kind;
    const char *name;  /* the collective kind or child name; NULL for DEVICE, UNATTRIBUTED, NONE */
    int64_t slow_ns;   /* its time on the slowest host */
    int64_t median_ns; /* its time on the median host */
} sts_step_cause;

/* One step number across the hosts that have it. */
typedef struct sts_aligned_step {
    int64_t step;
    uint32_t hosts;                    /* hosts with this step */
    int64_t min_ns, median_ns, max_ns; /* of their durations (median as in analyze.h) */
    uint32_t slowest;                  /* host (index into the records) with the longest: ties, the first */
    uint32_t median_host;              /* the host at place (hosts - 1) / 2 of the durations sorted (ties by host) */
    int straggler;                     /* hosts >= 2 and max_ns >= ratio * median_ns */
    sts_step_cause by;                 /* slowest against median host */
} sts_aligned_step;

/* One host over the aligned steps. */
typedef struct sts_host_step_stats {
    uint32_t steps;                    /* steps it has */
    int64_t min_ns, median_ns, max_ns; /* of its step durations */
    int64_t total_ns;
    uint32_t slowest;    /* steps (held by at least 2 hosts) where it was the slowest */
    uint32_t stragglers; /* of those, steps that were stragglers */
} sts_host_step_stats;

typedef struct sts_alignment sts_alignment;

/* Aligns the hosts' steps by step number and finds the stragglers: a step is one when
 * at least 2 hosts have it and its slowest host took at least `ratio` times the
 * step's median (ratio >= 1). Needs records read with STS_HOSTS_STEPS. On success
 * *out is a new handle (free with sts_alignment_free()). */
sts_status sts_hosts_align(const sts_hosts *h, double ratio, sts_alignment **out, sts_error *err);

/* Frees the handle; NULL is a no-op. */
void sts_alignment_free(sts_alignment *a);

/* The step numbers in ascending order; owned by the handle. */
const sts_aligned_step *sts_alignment_steps(const sts_alignment *a, size_t *n);
/* Per host (in record order). */
const sts_host_step_stats *sts_alignment_hosts(const sts_alignment *a, size_t *n);
/* Hosts whose steps were found by another rule than the most common one. */
size_t sts_alignment_rule_mismatches(const sts_alignment *a);
/* The most common rule among hosts with steps. */
sts_step_rule sts_alignment_rule(const sts_alignment *a);
/* The straggler ratio the steps were aligned with. */
double sts_alignment_ratio(const sts_alignment *a);

/* ---- collectives matched across hosts, and the hosts' clocks ------------------------- */

/* Each collective instance of a run matched across its ranks, with who arrived last, what
 * the others waited, the transfer after the last arrival and its bandwidth; and per-host
 * clock offsets estimated from the collectives' ends (ranks leave a collective together).
 * A rank is one device of one host that ran collectives. docs/collectives.md has the
 * matching rules, the formulas and the limits. */
typedef struct sts_collectives sts_collectives;

typedef struct sts_coll_rank {
    uint32_t host;      /* record index in the sts_hosts */
    const char *device; /* the device's process name on its host ("/device:GPU:0", "GPU 0") */
    const char *label;  /* the host's name when it has one such device, else "HOST DEVICE" */
} sts_coll_rank;

/* One rank's part in one instance, on the aligned clock (its host's offset subtracted). */
typedef struct sts_coll_arrival {
    uint32_t rank;
    int64_t ts_ns, end_ns;
    int64_t wait_ns; /* the instance's last arrival minus ts_ns (>= 0) */
} sts_coll_arrival;

typedef enum sts_coll_match { STS_COLL_BY_SEQ = 0, STS_COLL_BY_ORDER } sts_coll_match;

typedef struct sts_coll_instance {
    const char *name;  /* "allreduce" (the Collective name arg), the XLA op ("all-reduce.3"), else the kind */
    const char *kind;  /* sts_collective_kind() of the ops' slice name */
    const char *group; /* the process group (or XLA module); NULL: unknown */
    int64_t seq;       /* the trace's sequence number (STS_COLL_BY_SEQ), else the place in the group from 0 */
    sts_coll_match by;
    uint32_t first, count;             /* its arrivals in sts_collectives_arrivals(), by rank */
    uint32_t last_rank;                /* the rank that arrived last (ties: the lowest rank) */
    uint32_t median_rank;              /* the rank at place (count - 1) / 2 of the arrivals sorted */
    int64_t last_ns;                   /* the last arrival */
    int64_t skew_ns;                   /* last arrival - first arrival */
    int64_t wait_ns;                   /* the ranks' waits summed */
    int64_t late_ns;                   /* last arrival - the median rank's arrival */
    int64_t transfer_ns;               /* the last rank's op: its end - its arrival */
    int64_t bytes;                     /* max(In, Out msg nelems) x dtype size; -1: unknown */
    double alg_bw_gbps;                /* bytes / transfer_ns; < 0: unknown */
    double bus_bw_gbps;                /* alg_bw x NCCL's factor for the kind and rank count; < 0: unknown */
    int in_step;                       /* 1: the last rank's arrival lies in a step of its host */
    int64_t step;                      /* that step's number */
    const char *cause;                 /* the last rank's step child whose time before its arrival exceeds the
                                        * median rank's the most; NULL: none did */
    int64_t cause_ns, cause_median_ns; /* that child's time before the arrival, on the last and the median rank */
} sts_coll_instance;

/* What was read and what could not be matched: counted, never guessed. */
typedef struct sts_coll_counts {
    uint64_t ops;            /* collective ops read on every host's device lanes */
    uint64_t nested;         /* inside another collective op of their device: left out */
    uint64_t one_rank;       /* instances seen on one rank only */
    uint64_t repeated;       /* ops repeating a (group, seq) their rank already had: left out */
    uint64_t partial;        /* instances seen on fewer ranks than their Group size: left out */
    uint64_t conflicts;      /* instances whose ranks disagree on the kind, or whose aligned times
                              * do not fit int64: left out */
    uint64_t size_conflicts; /* instances whose ranks disagree on the size (bytes unknown) */
    uint64_t uneven;         /* groups matched by order whose ranks hold different counts of ops */
    uint64_t unpaired;       /* host-thread collective calls (c10d) of hosts whose calls and gloo works
                              * do not pair one to one: left out (their ends are unknown) */
} sts_coll_counts;

/* Matches the collective ops of records read with STS_HOSTS_COLLECTIVES across ranks,
 * estimates the hosts' clock offsets and computes every instance on the aligned clocks.
 * On success *out is a new handle (free with sts_collectives_free()); it refers to h's
 * strings, so h outlives it. */
sts_status sts_collectives_match(const sts_hosts *h, sts_collectives **out, sts_error *err);
void sts_collectives_free(sts_collectives *c); /* NULL is a no-op */

/* The ranks (by host, then device name), the instances (by the last arrival, then group
 * and seq) and their arrivals; owned by the handle. */
const sts_coll_rank *sts_collectives_ranks(const sts_collectives *c, size_t *n);
const sts_coll_instance *sts_collectives_instances(const sts_collectives *c, size_t *n);
const sts_coll_arrival *sts_collectives_arrivals(const sts_collectives *c, size_t *n);
const sts_coll_counts *sts_collectives_counts(const sts_collectives *c);

/* Per step number (ascending), its instances that cost most waiting (wait_ns, the
 * largest first, at most 3): entries are instance indices. */
typedef struct sts_coll_step {
    int64_t step;
    uint32_t first, count; /* in sts_collectives_step_instances() */
    int64_t wait_ns;       /* every instance of the step: waits summed */
} sts_coll_step;
const sts_coll_step *sts_collectives_steps(const sts_collectives *c, size_t *n);
const uint32_t *sts_collectives_step_instances(const sts_collectives *c, size_t *n);

/* Host i's clock offset: its clock minus the reference host's (the first host with
 * matched collectives), so aligned = own - offset. 0 with *known = 0 when host i shares
 * no matched instance with the reference host, directly or through others. */
int64_t sts_collectives_offset(const sts_collectives *c, size_t host, int *known);
/* After aligning, how far apart the ranks left each instance (last end - first end):
 * the median and the largest over instances. 0 when no instance was matched. */
int sts_collectives_residual(const sts_collectives *c, int64_t *median_ns, int64_t *max_ns);

/* Subtracts each host's known offset from every time its record holds (steps, lanes,
 * facts, device view, collective ops), so every multi-host output is on aligned clocks
 * (`--align`). Hosts whose offset is unknown are left as they are. */
void sts_hosts_apply_offsets(sts_hosts *h, const sts_collectives *c);

/* Writes the keys "collectives", "collective_steps", "collective_counts",
 * "clock_offsets_ns", "clock_residual_ns" and "clock_residual_max_ns" into the object
 * being written (docs/json-schemas.md). */
void sts_collectives_write_json(sts_jsonw *w, const sts_hosts *h, const sts_collectives *c);

/* ---- what the hosts add up to, and their documents ---------------------------------- */

/* The hosts' facts together, for analyze's header: counts and bytes summed over hosts,
 * `compressed`, `truncated` and `fine` (1 ns resolution) counting hosts, `busy` and
 * `span` each host's busy union and busy span summed, `longest` the host (record
 * index) whose trace spans the longest (ts_max - ts_min; ties, the first). */
typedef struct sts_hosts_totals {
    uint64_t bytes, events, by_phase[128], skipped, rejected, clamped, overlaps, unmatched_end, unclosed_begin;
    uint64_t processes, lanes, slices, instants, counters, asyncs, flows, args, warnings;
    uint64_t compressed, truncated, fine;
    int64_t busy, span;
    size_t longest;
} sts_hosts_totals;

void sts_hosts_add_up(const sts_hosts *h, sts_hosts_totals *out);

/* The hosts' formats as text into out (cap bytes, cut to fit): "xplane" when every host
 * has one format, else each format with its host count in order of first appearance,
 * "xplane (12), chrome-json (4)". */
void sts_hosts_formats(const sts_hosts *h, char *out, size_t cap);

/* Writes `analyze --json`'s document for several hosts as one value (keys in
 * docs/hosts.md): "trace" (the totals, `run` the hostset's run or null), "hosts" (each
 * host's facts and kept warnings), "names" over every host (the first `top`; 0: all;
 * needs sts_hosts_finish()), each host's "lanes" and "processes", "clamped",
 * "overlaps" and each host's kept overlaps in "overlap_list". Needs records read with
 * STS_HOSTS_FACTS | STS_HOSTS_NAMES. Allocates nothing; returns STS_OK. */
sts_status sts_hosts_write_analyze_json(sts_jsonw *w, const sts_hosts *h, const char *run, size_t top, sts_error *err);

/* Writes `steps --json`'s document for several hosts as one value (keys in
 * docs/hosts.md): the hosts' common rule, each host's steps with their children and
 * device time and its statistics over the aligned steps, every step number across the
 * hosts with its spread, slowest host and cause, and the stragglers; with records read
 * with STS_HOSTS_DEVICE, each host step's "devices" (sts_host_device_steps_write_json()); with
 * STS_HOSTS_MEMORY, each host step's "memory" (sts_host_memory_steps_write_json()). `a` is
 * sts_hosts_align()'s of `h`; `run` the hostset's run (NULL: null). An alignment of no
 * steps is STS_ERR_INVALID_ARG with nothing written. */
sts_status sts_hosts_write_steps_json(sts_jsonw *w, const sts_hosts *h, const sts_alignment *a, const char *run,
                                      sts_error *err);
/* The same document with sts_collectives_write_json()'s keys at its end (`c` NULL: none). */
sts_status sts_hosts_write_steps_json_with(sts_jsonw *w, const sts_hosts *h, const sts_alignment *a, const char *run,
                                           const sts_collectives *c, sts_error *err);

/* Writes `analyze --memory --json`'s document for several hosts (docs/memory.md):
 * {"hosts_count", "run", "hosts": [{"host", "trace", "devices", "warnings"}]}, each
 * host's "devices" and "warnings" the bytes `analyze --memory --json` writes for its
 * file alone ([] for a host without memory events). Needs records read with
 * STS_HOSTS_MEMORY_DEVICES. Returns STS_OK. */
sts_status sts_hosts_write_memory_json(sts_jsonw *w, const sts_hosts *h, const char *run, sts_error *err);

/* Device lanes and collective names (sts_lane_is_device(), sts_collective_kind()) are
 * declared in stepscope/devview.h, which this header includes. */

/* ---- exact medians over values spread across processes ---------------------------------- */

/* Finds the medians (as analyze.h defines them) of n sets of values, each spread over
 * several participants, exactly: in rounds, each participant counts its values in a
 * few buckets of each set's remaining range, the counts are summed over participants
 * (the caller moves them: MPI_Allreduce, or a loop), and the range narrows to the
 * bucket that holds the wanted value; at most 16 rounds for 64-bit values. */
typedef struct sts_xmedian sts_xmedian;

/* The sets' global counts, minima and maxima (over all participants). */
sts_status sts_xmedian_create(size_t n, const uint64_t *count, const int64_t *min, const int64_t *max,
                              sts_xmedian **out, sts_error *err);
void sts_xmedian_free(sts_xmedian *x);
/* The counters of the current round (every participant computes the same number); 0
 * when every median is found. */
size_t sts_xmedian_round(const sts_xmedian *x);
/* This participant's counters for the round, into counts[0..sts_xmedian_round()):
 * values[i] holds its nvalues[i] values of set i, in any order (NULL, 0: none); the
 * same values every round. Each participant keeps its own sts_xmedian: it remembers,
 * per wanted value, which of the participant's values are still in range. */
void sts_xmedian_count(sts_xmedian *x, const int64_t *const *values, const size_t *nvalues, uint64_t *counts);
/* Moves to the next round, given every participant's counters summed. STS_ERR_STATE
 * when the sums cannot come from the counts the sets were created with. */
sts_status sts_xmedian_advance(sts_xmedian *x, const uint64_t *sums, sts_error *err);
/* The median of set i once the rounds are done (0 for an empty set). */
int64_t sts_xmedian_result(const sts_xmedian *x, size_t i);

#ifdef __cplusplus
}
#endif
#endif
