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

#ifdef __cplusplus
}
#endif
#endif
