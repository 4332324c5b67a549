/* stepscope/write.h: write a timeline as files that XProf, Perfetto and
 * chrome://tracing open: Chrome trace JSON, an XSpace .xplane.pb, or a JAX-style
 * profile directory holding both.
 *
 * The writers read a timeline only through the accessors in stepscope/timeline.h, so
 * any timeline works: one opened from a file, or one the recorder built. Slices are
 * written with their start and duration; nesting is implied by time, as in the
 * formats themselves. A slice with a negative duration (a raw timeline's B event that
 * was never matched) is left out: finalize a raw timeline built from B/E events first.
 *
 * Every file is written atomically: to a temporary file in the same directory, which
 * is flushed, fsynced and renamed into place. On failure the destination is left as it
 * was and err names the path and the system error. */
#ifndef STEPSCOPE_WRITE_H
#define STEPSCOPE_WRITE_H

#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sts_write_options {
    int gzip_level;       /* 1..9 for gzip outputs; 0 = zlib's default (6) */
    const char *host;     /* XSpace hostname and profile file stem; NULL = gethostname() */
    const char *run_name; /* profile directory run; NULL = local time as YYYY_MM_DD_HH_MM_SS */
} sts_write_options;
/* clang-format off */
#define STS_WRITE_OPTIONS_INIT { 0, NULL, NULL }
/* clang-format on */

/* Chrome trace-event JSON in the shape of JAX's perfetto_trace.json.gz:
 *   {"displayTimeUnit":"ns","traceEvents":[ metadata events, events..., {}]}
 * Metadata: process_name, process_sort_index, thread_name and thread_sort_index per
 * process and lane. Slices become "X" events, instants "i", counters "C", async events
 * their own phase with "id", flows "s"/"t"/"f". ts and dur are microseconds written
 * exactly from nanoseconds (ns / 1000 with three decimals). Args keep their types
 * (JSON args are inserted as stored). A tid beyond +-2^53 (where JSON readers that
 * parse numbers as doubles lose integers) is written as its low 31 bits, as JAX's own
 * converter does, or, when another lane of the process has that tid (or it is 0), as
 * 2^40 + lane index; such a pid becomes 2^40 + process index. Sort indexes, unless the
 * timeline has them: the pid for a process (JAX's 701 for the host), the 1-based
 * position within the process for a thread. Gzip-compressed when `path` ends in ".gz".
 * `opts` may be NULL. */
sts_status sts_write_chrome_json(const sts_timeline *tl, const char *path, const sts_write_options *opts,
                                 sts_error *err);

/* An XSpace protobuf (schema: proto/xplane.proto) that XProf opens:
 *   - plane "/host:CPU" with one line per host thread lane (line id = tid, name = the
 *     lane's name, prefixed with its process name when several processes have
 *     thread lanes);
 *   - one plane per process holding device lanes (lane kind STS_LANE_DEVICE, or any
 *     lane of a process named "/device:...", as JAX's Chrome JSON names its device
 *     planes, so such a JSON trace goes back to device planes). XProf's trace viewer shows only
 *     "/device:GPU:N", "/device:TPU:N" and "/device:CUSTOM:..." planes, so a process
 *     named like those keeps its name, another "/device:X" becomes
 *     "/device:CUSTOM:X" (the recorder's "/device:CPU:0" is written, and reads back,
 *     as "/device:CUSTOM:CPU:0"), and any other name N "/device:CUSTOM:N";
 *   - per plane, event metadata (one per distinct name) and stat metadata (one per
 *     distinct arg key or string value) deduplicated; string values as ref_value;
 *   - slice args as stats; a slice carrying "step_num" also gets "_r" = 1 (a root
 *     step, as JAX's StepTraceAnnotation records); instants as zero-length events;
 *   - hostnames = opts->host or gethostname().
 * Counters, async events and flows have no XSpace form and are not written. Fails
 * with STS_ERR_RANGE when a lane spans more than 2^63 ps (106 days), and
 * STS_ERR_LIMIT for a plane over protobuf's 2 GiB message limit. `opts` may be NULL. */
sts_status sts_write_xplane(const sts_timeline *tl, const char *path, const sts_write_options *opts, sts_error *err);

/* A JAX-style profile directory that XProf (and TensorBoard's profile plugin) lists:
 *   DIR/plugins/profile/RUN/HOST.xplane.pb
 *   DIR/plugins/profile/RUN/HOST.trace.json.gz
 *   DIR/plugins/profile/RUN/perfetto_trace.json.gz
 * RUN is opts->run_name, else the local time as YYYY_MM_DD_HH_MM_SS; HOST is
 * opts->host, else gethostname() ('/' becomes '_'). An existing run directory is never
 * written into: a named run that exists fails with STS_ERR_EXISTS; a timestamp run
 * that exists (two runs in one second) gets the first free suffix "_2", "_3", ...
 * On success, when out_run_path is not NULL, *out_run_path is the run directory's
 * path (malloc'd; the caller frees it). On failure nothing is left behind in RUN. */
sts_status sts_write_profile_dir(const sts_timeline *tl, const char *dir, const sts_write_options *opts,
                                 char **out_run_path, sts_error *err);

/* ---- a cut: part of a trace, as a trace (docs/cut.md) --------------------------- */

/* What sts_write_chrome_json_cut() keeps. */
typedef struct sts_cut {
    int64_t start_ns, end_ns; /* the window [start_ns, end_ns) on the trace's clock (as sts_slice.ts); start < end */
    const uint32_t *lanes;    /* the lanes kept (indices into sts_timeline_lanes()); NULL: every lane */
    size_t nlanes;
    /* NULL: every slice. Else the slices with this name (or, when no slice has exactly
     * that name, whose name matches it as a POSIX extended regex) and every slice that
     * lies inside one of them (stepscope/analyze.h's definition, on the cut slices). */
    const char *name;
    int64_t min_dur_ns; /* leave out slices shorter than this in the whole trace (instants are kept); 0: none */
    const char *source; /* named in the cut's description event; NULL: the timeline's info.path */
} sts_cut;
/* clang-format off */
#define STS_CUT_INIT { 0, 0, NULL, 0, NULL, 0, NULL }
/* clang-format on */

/* What a cut wrote. */
typedef struct sts_cut_stats {
    uint64_t slices;         /* slices written: complete, instants and async slices */
    uint64_t cut_start;      /* of them, cut at the window's start */
    uint64_t cut_end;        /* of them, cut at the window's end (a slice cut at both counts in each) */
    uint64_t instants;       /* of them, instants (thread, process and global) */
    uint64_t async_slices;   /* of them, async slices (b/e pairs and n instants) */
    uint64_t short_left_out; /* slices in the window left out by min_dur_ns */
    uint64_t flows;          /* flows written, each with all its events */
    uint64_t flow_events;    /* their events */
    uint64_t flows_left_out; /* flows with an event in the window left out (see below) */
    uint64_t counters;       /* counter samples written, the values carried to the window's start included */
    uint64_t lanes;          /* lanes holding a written slice */
    uint64_t processes;      /* processes holding such a lane */
    uint64_t events;         /* events written, metadata and the completion record included */
} sts_cut_stats;

/* Writes the part of `tl` that `cut` names as a Chrome trace JSON file (gzip when
 * `path` ends in ".gz"), in the layout of sts_write_chrome_json(), so that
 * `stepscope analyze` of the file equals `stepscope analyze --window` of the whole on
 * the same lanes (with --name, `analyze --name` of the file equals `analyze --name
 * --window`; min_dur_ns drops slices, so it is lossy by design). It keeps:
 *   - the metadata (process and thread names and sort indexes) of the kept lanes and
 *     of the processes holding them, and the trace's displayTimeUnit;
 *   - every slice of a kept lane that overlaps the window (a zero-length one when its
 *     instant lies in [start, end)), cut to it: a slice cut at an edge, or one from a
 *     B that no E closed, carries the arg
 *       "stepscope_cut": {"at": "start"|"end"|"both"|"none", "ts_ns": T, "dur_ns": D}
 *     with T and D its start and duration in the whole trace (and "unclosed": true
 *     for the unclosed B, whose D runs to the end of its lane's data, as the model
 *     has it); a slice that already had a "stepscope_cut" arg gets the new one;
 *     complete slices and B/E pairs are written as "X" events, instants as "i"
 *     events of their scope, each lane's async slices as "b"/"e" pairs (and "n") with
 *     one id per lane ("stepscope-cut-LANE"), since slices do not keep their ids;
 *   - the flows all of whose events lie in the window, on kept lanes, bound to slices
 *     the cut keeps (s, t and an f with "bp":"e" to the innermost slice open on its
 *     thread's own track, another f to the next slice to start there);
 *   - the counter samples in the window of the processes holding a kept lane, and each
 *     series' last value before the window again at its start;
 *   - an event {"ph":"M","name":"stepscope.cut","args":{...}} naming the source, the
 *     window, the lane count, the name and min_dur_ns.
 * Events are written lane by lane, each lane's slices in containment order.
 * Memory: a bit per slice when the trace has flows, and one lane's kept slices at a
 * time; nothing else grows with the trace. `opts` (gzip_level) may be NULL; `stats`
 * may be NULL, else it is filled on success. Errors: STS_ERR_INVALID_ARG for an empty
 * window, a lane out of range, a negative min_dur_ns or a name that is neither a
 * slice's name nor a valid regex; STS_ERR_NOT_FOUND when nothing of the kept lanes
 * lies in the window (nothing is written); the writer's errors otherwise, the
 * destination left as it was. */
sts_status sts_write_chrome_json_cut(const sts_timeline *tl, const sts_cut *cut, const char *path,
                                     const sts_write_options *opts, sts_cut_stats *stats, sts_error *err);

#ifdef __cplusplus
}
#endif
#endif
