/* stepscope/trace.h: the recorder. Named, nested host scopes and step markers on
 * per-thread buffers, written at stop as a JAX-style profile directory that XProf and
 * Perfetto open (and that sts_timeline_open() reads back).
 *
 *   sts_trace_start("logs", NULL, NULL);
 *   for (int i = 0; i < 4; i++) {
 *       STS_STEP("learner_step", i);
 *       { STS_SCOPE("input_wait"); fetch(); }
 *       { STS_SCOPE("model_and_wait"); run(); }
 *   }
 *   sts_trace_stats st;
 *   sts_trace_stop(&st, NULL);   // st.run_path: logs/plugins/profile/<date>/
 *
 * Cost and memory. Each thread records into its own buffer: no lock and no allocation
 * on the hot path. A thread registers once (the only time it takes a lock) and takes
 * fixed-size chunks from a pool preallocated (and by default pre-faulted) at start. A scope costs two timestamp
 * reads plus one 32-byte record (see docs/trace.md for measured figures).
 *
 * Sharing the pool. A thread's first chunk is granted while any chunk is free; its
 * later chunks only within its share, (pool - kept back) / threads that have
 * joined, and only while they leave free the chunks kept back (an eighth of the pool,
 * at most 32) for the first chunks of threads yet to come. So every thread records
 * something, threads recording together divide the pool evenly, and one thread alone
 * still gets seven eighths of it. thread_bytes caps every thread instead.
 *
 * When a thread may take no more: its new scopes are dropped and counted per thread,
 * never lost silently. The counts are returned by stop (sts_trace_stats), printed with `verbose`,
 * and recorded in the trace itself: an instant "stepscope.dropped" on each thread lane
 * that lost events (arg `dropped`) and the totals on the "stepscope.trace" instant.
 * A scope is recorded whole or not at all (one record written at its end), so a drop
 * never leaves half a scope.
 *
 * Names and argument keys are stored as pointers: pass string literals or strings that
 * live until sts_trace_stop() returns. String argument values are copied.
 *
 * Threads that exit before stop keep their events. Stop does not wait for threads that
 * are in the middle of recording one event: such an event may or may not be included.
 * Scopes still open at stop end at the stop time and carry STS_SLICE_UNCLOSED.
 *
 * Compiled out: with STS_TRACE_DISABLED defined before this header, every call below
 * (recording, start, stop, devices) is a macro that does nothing and references no
 * recorder symbol; arguments are not evaluated (except sts_trace_stop_timeline's
 * `out`, set to NULL). Status-returning calls give STS_OK (stop_timeline:
 * STS_ERR_STATE). */
#ifndef STEPSCOPE_TRACE_H
#define STEPSCOPE_TRACE_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where timestamps come from. AUTO: the TSC when the CPU says it is invariant (cpuid
 * 0x80000007 EDX bit 8), calibrated against CLOCK_MONOTONIC at start and stop; else
 * CLOCK_MONOTONIC itself. Either way the trace's clock is CLOCK_MONOTONIC in ns. */
typedef enum sts_trace_clock {
    STS_TRACE_CLOCK_AUTO = 0,
    STS_TRACE_CLOCK_TSC, /* refused (STS_ERR_INVALID_ARG) where not invariant */
    STS_TRACE_CLOCK_MONOTONIC
} sts_trace_clock;

typedef struct sts_trace_options {
    size_t pool_bytes;  /* event memory for all threads together; 0 = 16 MiB (about
                           half a million scopes) */
    size_t chunk_bytes; /* what a thread takes from the pool at a time; 0 = 64 KiB;
                           at least 256, at most pool_bytes */
    sts_trace_clock clock;
    int flush_at_exit;   /* at exit(), stop and write the trace if still running */
    int flush_on_signal; /* on SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, and on SIGTERM
                            and SIGINT where they would end the process: write
                            DIR/stepscope-crash-<pid>.trace.json whole (async-signal-
                            safe, with drop counts; see docs/trace.md), then let the
                            signal proceed; one arriving during stop waits for it */
    const char *host;    /* file stem of the profile files; NULL = the host name */
    int verbose;         /* stop prints the run path to stderr (drops are always printed) */
    int lazy_pages;      /* 0: touch the whole pool at start, so recording never takes a
                            page fault (start costs about 1 ms per 4 MiB); 1: let pages
                            fault in on first use (cheaper start, slower first scopes) */
    size_t thread_bytes; /* the most of the pool one thread may take (whole chunks, at
                            least one); 0 = automatic shares, see "Sharing the pool" */
} sts_trace_options;
/* clang-format off */
#define STS_TRACE_OPTIONS_INIT { 0, 0, STS_TRACE_CLOCK_AUTO, 0, 0, NULL, 0, 0, 0 }
/* clang-format on */

/* Per-thread counts, reported by stop. */
typedef struct sts_trace_thread_stats {
    int64_t tid;
    char name[64];
    uint64_t recorded;     /* scopes written */
    uint64_t dropped;      /* scopes lost because the pool was full */
    uint64_t too_deep;     /* scopes nested deeper than STS_TRACE_MAX_DEPTH, not recorded */
    uint64_t open_at_stop; /* scopes still open at stop (recorded, ending at stop) */
    int exited;            /* the thread had exited before stop */
} sts_trace_thread_stats;

/* A device from stepscope/device.h (the recorder only stores the pointer). */
typedef struct sts_device sts_device;

#define STS_TRACE_MAX_DEPTH        256
#define STS_TRACE_MAX_DEVICES      8
#define STS_TRACE_MAX_THREAD_STATS 64

typedef struct sts_trace_stats {
    uint64_t recorded, dropped, too_deep, open_at_stop;        /* all threads */
    uint64_t unmatched_end;                                    /* sts_scope_end() with no open scope */
    uint32_t threads;                                          /* threads that recorded during the session */
    sts_trace_thread_stats thread[STS_TRACE_MAX_THREAD_STATS]; /* the first ones */
    const char *clock;                                         /* "tsc" or "monotonic" (static string) */
    double tsc_ghz;                                            /* measured TSC rate; 0 for "monotonic" */
    int64_t clock_error_ns;         /* bound on a host timestamp's error vs CLOCK_MONOTONIC */
    uint64_t device_ops;            /* device commands recorded (see sts_trace_device_*) */
    int64_t device_offset_ns;       /* device clock minus host clock, at attach (first device) */
    int64_t device_offset_error_ns; /* bound on a device slice's error on the trace's clock; -1:
                                       unknown (docs/trace.md, "Device lanes") */
    size_t pool_bytes, pool_used_bytes;
    int64_t start_ns, stop_ns; /* session bounds, CLOCK_MONOTONIC */
    char run_path[4096];       /* the run directory written by sts_trace_stop() */
} sts_trace_stats;

#ifndef STS_TRACE_DISABLED

/* Starts a session that will be written under `dir` (created when missing) at stop.
 * `opt` may be NULL (defaults). Fails with STS_ERR_STATE when a session is running,
 * STS_ERR_NOMEM when the pool cannot be mapped, STS_ERR_INVALID_ARG for bad options. */
sts_status sts_trace_start(const char *dir, const sts_trace_options *opt, sts_error *err);

/* Ends the session and writes DIR/plugins/profile/<YYYY_MM_DD_HH_MM_SS>/ with
 * <host>.xplane.pb, <host>.trace.json.gz and perfetto_trace.json.gz, each whole or
 * not at all and ending with a completion record. `stats` (may be NULL) receives the
 * counts and the run directory. Drops, if any, are printed to stderr (with `verbose`,
 * the run path too). STS_ERR_STATE without a session. When writing fails the session
 * has still ended (its events are lost), no run directory is left, and err names the
 * file and the system error. */
sts_status sts_trace_stop(sts_trace_stats *stats, sts_error *err);

/* Ends the session without writing files: *out receives the timeline (free with
 * sts_timeline_free()), already nested and ordered like one sts_timeline_open()
 * returns. Host threads are lanes of process "/host:CPU"; device commands are on
 * device lanes. */
sts_status sts_trace_stop_timeline(sts_timeline **out, sts_trace_stats *stats, sts_error *err);

/* Records the device's kernels and copies until stop (or sts_trace_device_detach):
 * each command becomes a slice on a device lane ("/device:CPU:0" or "/device:GPU:N",
 * lane kind STS_LANE_DEVICE) at its OpenCL profiling start..end mapped onto the host
 * clock, with args correlation_id, queued_ns and submit_ns (host clock); and the
 * enqueue becomes a slice "enqueue NAME" on the calling thread's lane, from the
 * command's queued time (mapped) to the enqueue's return, with the same
 * correlation_id, plus a flow pair from it to the device slice. The device clock is
 * mapped onto the host clock by a line that meets causal bounds: a clock pair now and
 * at stop (sts_device_clock_pair), and each command's own (queued inside its enqueue
 * call, ended before the host saw it complete); docs/trace.md states the accuracy.
 * Needs a running session (STS_ERR_STATE otherwise). At stop the recorder waits for
 * the recorded commands and reads their timestamps, so stop must not run while
 * another thread uses the device, and the device must outlive the session (or be
 * detached first). Attaching the same device twice is a no-op. A library built without
 * OpenCL fails here with STS_ERR_NO_DEVICE saying so (sts_device_require_opencl). */
sts_status sts_trace_device(sts_device *dev, sts_error *err);

/* Stops recording `dev` (its commands so far are kept for stop): waits for them,
 * reads their timestamps and releases their events, so the device can then be freed.
 * STS_ERR_NOT_FOUND when the device is not being recorded. */
sts_status sts_trace_device_detach(sts_device *dev, sts_error *err);

/* 1 while a session is running. */
int sts_trace_active(void);

/* Names the calling thread's lane (copied, at most 63 bytes); kept across sessions.
 * The default is the thread's name as the kernel knows it (pthread_getname_np). */
void sts_trace_thread_name(const char *name);

/* Opens a scope named `name` on the calling thread. Returns a token for
 * sts_scope_end_token(): non-zero when the scope is being recorded. */
uint32_t sts_scope_begin(const char *name);

/* Closes the calling thread's innermost open scope. */
void sts_scope_end(void);

/* Closes the innermost scope if `token` (from sts_scope_begin) belongs to the running
 * session; a scope opened before start, or in an earlier session, is ignored. */
void sts_scope_end_token(uint32_t token);

/* Opens a step: a scope with args step_num = `step_num` and `_r` = 1 (the root flag of
 * JAX's StepTraceAnnotation, which makes XProf treat it as a step marker). */
uint32_t sts_step_begin(const char *name, int64_t step_num);

/* Closes the innermost scope (the step). */
void sts_step_end(void);

/* Attach a key/value arg to the calling thread's innermost open scope (ignored when
 * none is open). The string value is copied (at most 255 bytes kept). */
void sts_scope_arg_int(const char *key, int64_t value);
void sts_scope_arg_double(const char *key, double value);
void sts_scope_arg_str(const char *key, const char *value);

/* The current time on the trace's clock (CLOCK_MONOTONIC ns). */
int64_t sts_trace_now_ns(void);

/* Not for direct use: non-zero while a session runs. Read inline by STS_SCOPE and
 * STS_STEP so that annotated code costs a load and a branch when nothing records. */
extern uint32_t sts__trace_on;

static inline uint32_t sts__scope_enter(const char *name)
{
    return __atomic_load_n(&sts__trace_on, __ATOMIC_RELAXED) ? sts_scope_begin(name) : 0u;
}

static inline uint32_t sts__step_enter(const char *name, int64_t step_num)
{
    return __atomic_load_n(&sts__trace_on, __ATOMIC_RELAXED) ? sts_step_begin(name, step_num) : 0u;
}

static inline void sts__scope_cleanup(uint32_t *token)
{
    if (*token) sts_scope_end_token(*token);
}

#define STS__CAT2(a, b) a##b
#define STS__CAT(a, b)  STS__CAT2(a, b)

/* A scope that ends when the enclosing block exits (any exit: return, break, goto). */
#define STS_SCOPE(name)                                                                             \
    uint32_t STS__CAT(sts__scope_, __LINE__) __attribute__((cleanup(sts__scope_cleanup), unused)) = \
        sts__scope_enter(name)

/* A step that ends when the enclosing block exits. */
#define STS_STEP(name, step_num)                                                                   \
    uint32_t STS__CAT(sts__step_, __LINE__) __attribute__((cleanup(sts__scope_cleanup), unused)) = \
        sts__step_enter(name, step_num)

#else /* STS_TRACE_DISABLED: everything compiles to nothing. */

/* Values for the calls used as expressions; inline, so no symbol remains. */
static inline sts_status sts__trace_ok(void)
{
    return STS_OK;
}
static inline sts_status sts__trace_no_session(void)
{
    return STS_ERR_STATE;
}
static inline uint32_t sts__trace_no_token(void)
{
    return 0;
}

#define STS__UNUSED(x)                 ((void)sizeof(x))
#define sts_trace_start(dir, opt, err) (STS__UNUSED(dir), STS__UNUSED(opt), STS__UNUSED(err), sts__trace_ok())
#define sts_trace_stop(stats, err)     (STS__UNUSED(stats), STS__UNUSED(err), sts__trace_ok())
/* The only argument evaluated anywhere: *out is set to NULL. */
#define sts_trace_stop_timeline(out, stats, err) \
    (*(out) = NULL, STS__UNUSED(stats), STS__UNUSED(err), sts__trace_no_session())
#define sts_trace_active()                0
#define sts_trace_device(dev, err)        (STS__UNUSED(dev), STS__UNUSED(err), sts__trace_ok())
#define sts_trace_device_detach(dev, err) (STS__UNUSED(dev), STS__UNUSED(err), sts__trace_ok())
#define sts_trace_thread_name(name)       STS__UNUSED(name)
#define sts_scope_begin(name)             (STS__UNUSED(name), sts__trace_no_token())
#define sts_scope_end()                   ((void)0)
#define sts_scope_end_token(token)        STS__UNUSED(token)
#define sts_step_begin(name, step_num)    (STS__UNUSED(name), STS__UNUSED(step_num), sts__trace_no_token())
#define sts_step_end()                    ((void)0)
#define sts_scope_arg_int(key, value)     (STS__UNUSED(key), STS__UNUSED(value))
#define sts_scope_arg_double(key, value)  (STS__UNUSED(key), STS__UNUSED(value))
#define sts_scope_arg_str(key, value)     (STS__UNUSED(key), STS__UNUSED(value))
#define sts_trace_now_ns()                ((int64_t)0)
#define STS_SCOPE(name)                   STS__UNUSED(name)
#define STS_STEP(name, step_num)          (STS__UNUSED(name), STS__UNUSED(step_num))

#endif /* STS_TRACE_DISABLED */

#ifdef __cplusplus
}
#endif
#endif
