/* stepscope critical path and what-if: per step, a dependency graph over host segments
 * and device ops, the longest chain ending at the step's end, and replays of the graph
 * with some durations scaled (docs/critical-path.md).
 *
 * The graph's nodes: each host thread's time in the step cut into segments, each
 * belonging to the innermost slice running then (time no slice covers is a gap
 * segment), and each device op (sts_devview_launches()) starting in the step. Edges:
 *   program  segment i -> segment i + 1 of a thread (the first from the step's start);
 *   launch   a launch's segment (its start) -> the device op it launched;
 *   stream   the previous op of a device lane (its end) -> the next op;
 *   sync     the device op a synchronization waited for (its end) -> the sync's end:
 *            the latest-ending op launched before the sync that ended inside it
 *            (sts_critpath_sync_rule() names the calls);
 *   flow     a trace flow between host threads (not the launch flows): the segment
 *            holding its start -> the segment holding its end;
 *   stream_wait  a device-side wait between streams (cudaStreamWaitEvent): the last op
 *            launched on the recorded stream before the event was recorded (its end) ->
 *            the first op launched on the waiting stream after the wait.
 * A sync whose stream the trace names (a `stream` arg, or Kineto's cuda_sync record of
 * its correlation) waits only for that stream's ops.
 * Each node starts when the latest of its edges lets it, plus the gap observed on that
 * edge; the others wait for nothing extra. Replaying the graph with the observed
 * durations gives back every observed time. An edge pointing back in time is dropped;
 * a cycle is broken at the node of the cycle that starts first; both are counted and
 * warned about with the events named.
 * The critical path is the chain of binding edges walked back from the end of the step
 * lane's last segment to the step's start: intervals that tile [ts, ts + dur) exactly,
 * each of one kind; the kinds' times add up to the step. */
#ifndef STEPSCOPE_CRITPATH_H
#define STEPSCOPE_CRITPATH_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/analyze.h"
#include "stepscope/devview.h"
#include "stepscope/json.h"
#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef enum sts_cp_kind {
    STS_CP_HOST = 0, /* host compute: a host slice that is no launch and no sync */
    STS_CP_LAUNCH,   /* a launch call, and the delay from a launch's start to its op's start */
    STS_CP_SYNC,     /* a synchronization, past the end of the work it waited for */
    STS_CP_IDLE,     /* time no traced slice explains: host gaps, stream gaps, the wait for the first event */
    STS_CP_COMPUTE,  /* device ops, by their device-view category */
    STS_CP_COMMUNICATION,
    STS_CP_MEMCPY,
    STS_CP_MEMSET,
    STS_CP_DEVICE_OTHER,
    STS_CP_KINDS
} sts_cp_kind;

/* "host", "launch", "sync_wait", "idle", "compute", "communication", "memcpy", "memset",
 * "device_other". Static strings; NULL out of range. */
const char *sts_cp_kind_name(sts_cp_kind k);

/* 1 when a host slice name is a synchronization that makes the host wait for device
 * work: cudaDeviceSynchronize, cudaStreamSynchronize, cudaEventSynchronize, cudaMemcpy
 * (the blocking one), their cu* and hip* twins, clFinish, clWaitForEvents, and XLA's
 * and PJRT's waits (names holding BlockHostUntilReady, WaitForCompletion,
 * block_until_ready). */
int sts_critpath_sync_rule(const char *name);

/* One interval of a path: a slice's part (slice set) or a gap (slice STS_NONE). */
typedef struct sts_cp_interval {
    uint32_t slice; /* index into sts_timeline_slices(); STS_NONE for a gap */
    uint32_t lane;  /* the lane it ran on; STS_NONE for the wait from the step's start */
    uint32_t kind;  /* sts_cp_kind */
    uint32_t unused;
    int64_t ts_ns, dur_ns;
} sts_cp_interval;

typedef struct sts_cp_step {
    uint32_t step;  /* index into sts_steps_list() */
    uint32_t known; /* 0 when the step's lane held no segment: nothing is known (JSON null) */
    int64_t length_ns;
    int64_t by_kind_ns[STS_CP_KINDS];
    uint32_t first_interval, interval_count; /* into sts_critpath_intervals(), in time order */
    uint32_t nodes, edges;
} sts_cp_step;

typedef struct sts_critpath_counts {
    uint64_t nodes, edges;
    uint64_t by_type[6]; /* edges: program, launch, stream, sync, flow, stream_wait */
    uint64_t backward;   /* edges dropped: they pointed back in time */
    uint64_t cycles;     /* edges dropped to break cycles */
} sts_critpath_counts;

typedef struct sts_critpath sts_critpath;

/* Builds each step's graph and finds its critical path. `dv` must have been computed with
 * options.steps = s (its launches link host and device). O(events log events). On
 * success *out is a new handle (free with sts_critpath_free()). */
sts_status sts_critpath_compute(const sts_timeline *tl, const sts_steps *s, const sts_devview *dv, sts_critpath **out,
                                sts_error *err);

/* Frees the handle; NULL is a no-op. */
void sts_critpath_free(sts_critpath *cp);

/* One entry per step, in step order; owned by the handle. */
const sts_cp_step *sts_critpath_steps(const sts_critpath *cp, size_t *n);
/* Every step's path intervals; owned by the handle. */
const sts_cp_interval *sts_critpath_intervals(const sts_critpath *cp, size_t *n);
const sts_critpath_counts *sts_critpath_get_counts(const sts_critpath *cp);
/* Warnings (dropped edges, broken cycles, each naming its events); owned by the handle. */
const char *const *sts_critpath_warnings(const sts_critpath *cp, size_t *n);

/* ---- what-if ------------------------------------------------------------------------
 * A change is `NAME=FACTOR`: NAME a slice name (exact), else a device category
 * (compute, communication, memcpy, memset, other), else an extended regex over slice
 * names; FACTOR a number >= 0, optionally followed by x (0, 0.5, 0.5x, 2x). Every node
 * of the matched slices (or category) has its duration multiplied by FACTOR and the
 * step's graph is replayed. */
typedef struct sts_cp_prediction {
    char change[256];          /* as given (for top=N: "NAME=0.5") */
    uint64_t matched;          /* nodes scaled, over every step */
    int64_t original_ns;       /* the steps' total duration */
    int64_t predicted_ns;      /* the steps' predicted total */
    int64_t predicted_step_ns; /* median predicted step */
    double change_pct;         /* (predicted - original) / original * 100 */
    double min_pct, max_pct;   /* the spread of the per-step change */
    int path_moved;            /* in some step the lane holding most of the path changed */
    char expect[300];          /* a `diff --expect` line: step:shrink>=N%, step:grow>=N% or step:same */
} sts_cp_prediction;

/* Predicts the effect of the changes `changes[0..n)` applied together; the prediction is
 * kept in the handle (sts_critpath_predictions()) and copied to *out when out is not
 * NULL. A change that does not parse, or whose NAME matches nothing, is
 * STS_ERR_INVALID_ARG, its message naming it and, where names are close, "did you mean
 * 'X'?". */
sts_status sts_critpath_what_if(sts_critpath *cp, const char *const *changes, size_t n, sts_cp_prediction *out,
                                sts_error *err);

/* Ranks the names on the steps' paths by what halving each alone would save, and keeps
 * the best `top` predictions (as sts_critpath_what_if() with "NAME=0.5"), most saved
 * first. Returns how many were kept. */
size_t sts_critpath_what_if_top(sts_critpath *cp, size_t top);

/* Every prediction made, in order; owned by the handle. */
const sts_cp_prediction *sts_critpath_predictions(const sts_critpath *cp, size_t *n);

/* ---- JSON ---------------------------------------------------------------------------- */

/* Writes step k's "critical_path" value: {"length_ns", "by_kind": {KIND: ns},
 * "intervals": [{"name", "lane", "ts_ns", "dur_ns", "kind"}]}, or null when unknown. */
void sts_critpath_write_step_json(sts_jsonw *w, const sts_timeline *tl, const sts_critpath *cp, size_t k);

/* Writes the predictions as an array: [{"change", "matched", "predicted_step_ns",
 * "predicted_change_pct", "min_change_pct", "max_change_pct", "path_moved", "expect"}]. */
void sts_critpath_write_what_if_json(sts_jsonw *w, const sts_critpath *cp);

/* `steps --json --critical-path`'s document: sts_steps_write_json_device()'s, each step
 * with its "critical_path", and a top-level "critical_path" object ({"nodes", "edges",
 * "dropped_backward", "dropped_cycles", "warnings", "what_if"}). dv may be NULL (no
 * "devices"); cp is required. */
sts_status sts_steps_write_json_critpath(sts_jsonw *w, const sts_timeline *tl, const sts_steps *s, int xprof_view,
                                         const sts_devview *dv, const sts_critpath *cp, sts_error *err);

#ifdef __cplusplus
}
#endif
#endif
