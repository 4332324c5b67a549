/* stepscope/device.h: an asynchronous compute device over OpenCL 1.2.
 *
 * The model mirrors what JAX does on XLA:CPU or a GPU: work is enqueued on an in-order
 * queue and the call returns at once with an event-backed handle (sts_event); the
 * result is complete only after sts_ready() (or a blocking read) says so. On a
 * machine without a GPU, PoCL is a real OpenCL device on the CPU: it JIT-compiles
 * kernels with LLVM, runs them on worker threads and timestamps them.
 *
 * Threading: a device and everything made from it (arrays, programs, kernels, events)
 * are used from one thread at a time.
 *
 * Time: host times are CLOCK_MONOTONIC nanoseconds (the clock of sts_clock_ns in
 * lib/base); device times are the OpenCL profiling clock in nanoseconds, whose
 * origin is the driver's. sts_device_clock_pair() relates the two. */
#ifndef STEPSCOPE_DEVICE_H
#define STEPSCOPE_DEVICE_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/status.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sts_device sts_device;
typedef struct sts_array sts_array;
typedef struct sts_program sts_program;
typedef struct sts_kernel sts_kernel;
typedef struct sts_event sts_event;

/* ---------------------------------------------------------------- devices */

/* The environment variable read by sts_device_open() when `spec` is NULL or empty. */
#define STS_DEVICE_ENV "STEPSCOPE_DEVICE"
/* When set to "markers", sts_device_clock_pair() relates the clocks by markers alone,
 * as on a device that does not stamp with the host's clock (for checking that path;
 * its uncertainty is then microseconds). */
#define STS_DEVICE_CLOCK_ENV "STEPSCOPE_DEVICE_CLOCK"
/* When set to a directory, built-in kernels are read from DIR/<file>.cl instead of the
 * copies embedded at build time (for kernel development). */
#define STS_KERNELS_ENV "STEPSCOPE_KERNELS"

typedef struct sts_device_info {
    unsigned index; /* position in sts_device_list() order */
    int is_gpu;
    int is_cpu;
    char platform[128];         /* CL_PLATFORM_NAME */
    char platform_version[128]; /* CL_PLATFORM_VERSION */
    char name[128];             /* CL_DEVICE_NAME */
    char vendor[128];           /* CL_DEVICE_VENDOR */
    char driver_version[64];    /* CL_DRIVER_VERSION */
    char device_version[128];   /* CL_DEVICE_VERSION */
    char opencl_c_version[64];  /* CL_DEVICE_OPENCL_C_VERSION */
    unsigned compute_units;
    size_t max_work_group_size;
    uint64_t local_mem_bytes;
    int local_mem_is_global; /* 1 when "local" memory is ordinary memory (CPU devices) */
    uint64_t global_mem_bytes;
    uint64_t timer_resolution_ns;
} sts_device_info;

/* STS_OK when this library was built with OpenCL. A library built without it (make
 * OPENCL=0, the default where the OpenCL headers are missing) keeps this whole API,
 * and every function of it that needs a device fails as this one does there:
 * STS_ERR_NO_DEVICE, with a message saying that `what` (the caller's feature, e.g.
 * "stepscope bench"; NULL: "this") needs OpenCL, which packages to install and to
 * rebuild. */
sts_status sts_device_require_opencl(const char *what, sts_error *err);

/* Every OpenCL device of every platform, in enumeration order (the order that a
 * numeric --device index counts). Fills up to `cap` entries of `infos` (may be NULL
 * when cap is 0) and sets *count to the total. With no OpenCL platform installed
 * returns STS_ERR_NO_DEVICE and says which packages to install. */
sts_status sts_device_list(sts_device_info *infos, size_t cap, size_t *count, sts_error *err);

/* Opens a device: a context and one in-order queue with profiling enabled.
 * `spec` chooses it: a decimal index into sts_device_list(), or a case-insensitive
 * substring of the device name (then of the platform name). NULL or "" reads
 * $STEPSCOPE_DEVICE; unset means the first GPU, else the first CPU device.
 * Errors: STS_ERR_NO_DEVICE (no platform/device: the message names the packages),
 * STS_ERR_NOT_FOUND (spec matches nothing: the message lists the devices),
 * STS_ERR_DEVICE (the driver failed). On success the caller owns *out
 * (sts_device_free). */
sts_status sts_device_open(const char *spec, sts_device **out, sts_error *err);

/* Waits for queued work, then releases the queue, context, cached programs and
 * kernels. Arrays, kernels and events made from the device must be freed first.
 * NULL is a no-op. */
void sts_device_free(sts_device *dev);

/* The device's description; owned by the device. */
const sts_device_info *sts_device_get_info(const sts_device *dev);

/* Submits queued commands to the device without waiting (clFlush). Every enqueue
 * below already flushes; this is for callers that enqueue through raw OpenCL. */
sts_status sts_device_flush(sts_device *dev, sts_error *err);

/* Waits until every command queued so far has completed (clFinish). */
sts_status sts_device_finish(sts_device *dev, sts_error *err);

/* Called right after each kernel launch or copy is enqueued, with the operation's
 * name ("matmul", "write", "read", or a kernel's name) and its event. The event is
 * borrowed for the call; sts_event_retain() keeps it. This is how a trace recorder
 * attaches without the device layer depending on it. NULL removes the hook. */
typedef void (*sts_enqueue_hook)(void *user, const char *name, sts_event *ev);
void sts_device_set_enqueue_hook(sts_device *dev, sts_enqueue_hook hook, void *user);

/* Relates the device's profiling clock to the host's CLOCK_MONOTONIC: device time t
 * corresponds to host time t - *device_ns + *host_ns, to within *uncertainty_ns (may be
 * NULL) at t = *device_ns (farther away, plus any difference in the clocks' rates).
 * The bound is causal, true however threads are scheduled: it finishes the queue,
 * enqueues a few markers and keeps the narrowest bracket, each marker's QUEUED stamp
 * lying between host clock reads taken around its enqueue call and its END stamp
 * before the host saw it complete (a few microseconds wide on PoCL here). On PoCL's
 * CPU devices, whose profiling clock is the host's CLOCK_MONOTONIC_RAW, the pair comes
 * from CLOCK_MONOTONIC / CLOCK_MONOTONIC_RAW readings instead (tens of ns) when every
 * marker's stamps agree with that clock (unless STS_DEVICE_CLOCK_ENV says "markers").
 * docs/trace.md ("Device lanes") has details. */
sts_status sts_device_clock_pair(sts_device *dev, int64_t *host_ns, int64_t *device_ns, int64_t *uncertainty_ns,
                                 sts_error *err);

/* The complete build log of the most recent failed build on this device ("" if
 * none). sts_error.message holds only its start. Owned by the device; valid until the
 * next build or sts_device_free. */
const char *sts_device_last_build_log(const sts_device *dev);

/* ---------------------------------------------------------------- events */

/* Profiling timestamps of a completed command, device clock, nanoseconds. For an
 * event that stands for several commands (a matmul split into tiles and edges),
 * queued/submit are the first command's, start the earliest and end the latest. */
typedef struct sts_event_times {
    int64_t queued;
    int64_t submit;
    int64_t start;
    int64_t end;
} sts_event_times;

/* Waits until every event in `events[0..n)` has completed: one handle, or a whole
 * structured result (several outputs) waited on as a unit. NULL entries are
 * skipped. Returns STS_ERR_DEVICE if a command failed. */
sts_status sts_ready(sts_event *const *events, size_t n, sts_error *err);

/* sts_ready() for one event. */
sts_status sts_event_wait(sts_event *ev, sts_error *err);

/* 1 when complete, 0 while queued or running, -1 when the command failed. Never
 * blocks. */
int sts_event_done(const sts_event *ev);

/* The profiling timestamps of a completed event. STS_ERR_STATE while it is still
 * pending. */
sts_status sts_event_get_times(const sts_event *ev, sts_event_times *out, sts_error *err);

/* end - start of a completed event in ns, or -1 when not available. */
int64_t sts_event_device_ns(const sts_event *ev);

/* The span first start .. last end over several completed events, in ns, or -1. */
int64_t sts_events_span_ns(sts_event *const *events, size_t n);

/* Host CLOCK_MONOTONIC ns at which the enqueue call returned. */
int64_t sts_event_host_ns(const sts_event *ev);

/* Host CLOCK_MONOTONIC ns read right after sts_ready() (or sts_event_wait(), which
 * uses it) first found the event complete, so after its commands' END stamps; -1
 * until then. The trace recorder bounds device times with it. */
int64_t sts_event_done_ns(const sts_event *ev);

/* The operation's name ("matmul", "write", ...); owned by the event. */
const char *sts_event_name(const sts_event *ev);

/* Adds a reference and returns `ev`. */
sts_event *sts_event_retain(sts_event *ev);

/* Drops a reference; the last one frees the event. NULL is a no-op. */
void sts_event_release(sts_event *ev);

/* ---------------------------------------------------------------- arrays */

typedef enum sts_dtype { STS_DTYPE_F32 = 0, STS_DTYPE_I32 = 1 } sts_dtype;

#define STS_MAX_DIMS 4

/* "float32" / "int32"; a static string. */
const char *sts_dtype_name(sts_dtype dt);

/* 4 for both dtypes today. */
size_t sts_dtype_size(sts_dtype dt);

/* A device buffer with a shape of 0..4 dimensions (0 is a scalar holding one value).
 * Each dimension must be >= 1. The caller owns *out (sts_array_free). */
sts_status sts_array_create(sts_device *dev, sts_dtype dtype, int ndim, const int64_t *shape, sts_array **out,
                            sts_error *err);

/* Releases the buffer. Pending commands that use it still complete. NULL is a no-op. */
void sts_array_free(sts_array *a);

int sts_array_ndim(const sts_array *a);
/* The dimensions; owned by the array. */
const int64_t *sts_array_shape(const sts_array *a);
sts_dtype sts_array_dtype(const sts_array *a);
/* Number of elements (1 for a scalar). */
size_t sts_array_count(const sts_array *a);
size_t sts_array_bytes(const sts_array *a);
/* The device the array lives on. */
sts_device *sts_array_device(const sts_array *a);

/* Host -> device copy, asynchronous: `host` must stay valid and unchanged until the
 * copy completes. `bytes` must equal sts_array_bytes(). When `ev` is not NULL the
 * caller receives a reference to the copy's event (sts_event_release). The copy also
 * becomes the array's latest writer (sts_array_event). */
sts_status sts_array_write(sts_array *a, const void *host, size_t bytes, sts_event **ev, sts_error *err);

/* Device -> host copy, asynchronous: `host` is filled once the event completes. */
sts_status sts_array_read_async(const sts_array *a, void *host, size_t bytes, sts_event **ev, sts_error *err);

/* Device -> host copy that returns only when `host` holds the values: an explicit host
 * synchronization boundary (it waits for everything queued before it). */
sts_status sts_array_read(const sts_array *a, void *host, size_t bytes, sts_error *err);

/* The latest enqueued command that writes the array (borrowed), or NULL. */
sts_event *sts_array_event(const sts_array *a);

/* Records `ev` as the array's latest writer (the array retains it). Used by code that
 * launches its own kernels with sts_kernel_enqueue(). */
void sts_array_set_event(sts_array *a, sts_event *ev);

/* Waits for the latest writer of each array (the arrays' readiness, as JAX's
 * block_until_ready on a tree of arrays). NULL entries are skipped. */
sts_status sts_arrays_ready(sts_array *const *arrays, size_t n, sts_error *err);

/* ---------------------------------------------------------------- programs and kernels */

typedef struct sts_build_info {
    int cache_hit;    /* 1 when the program came from the device's cache */
    int64_t build_ns; /* host time spent in this call (near 0 on a hit) */
    uint64_t key;     /* cache key: hash of device, options and source */
} sts_build_info;

/* Builds an OpenCL C program from `source` (`len` bytes; 0 means NUL-terminated)
 * with compiler `options` (NULL = none), or returns the cached one built from the
 * same source and options on this device. The program is owned by the device and
 * lives until sts_device_free. `info` may be NULL. A compile error returns
 * STS_ERR_BUILD with the start of the compiler's log in err->message; the whole log
 * is sts_device_last_build_log(). Failed builds are not cached. */
sts_status sts_program_build(sts_device *dev, const char *source, size_t len, const char *options, sts_program **out,
                             sts_build_info *info, sts_error *err);

/* The compiler's log for a built program (warnings, often empty); owned by the
 * program. */
const char *sts_program_log(const sts_program *p);

/* A kernel object for the function `name` in `p`. The caller owns *out
 * (sts_kernel_free). STS_ERR_NOT_FOUND when the program has no such kernel. */
sts_status sts_kernel_create(sts_program *p, const char *name, sts_kernel **out, sts_error *err);

/* NULL is a no-op. */
void sts_kernel_free(sts_kernel *k);

/* The kernel's function name; owned by the kernel. */
const char *sts_kernel_name(const sts_kernel *k);

/* Binds argument `index` to an array's buffer. */
sts_status sts_kernel_set_array(sts_kernel *k, unsigned index, const sts_array *a, sts_error *err);

/* Binds argument `index` to a by-value scalar of `size` bytes (int, float, float4...). */
sts_status sts_kernel_set_scalar(sts_kernel *k, unsigned index, const void *value, size_t size, sts_error *err);
sts_status sts_kernel_set_i32(sts_kernel *k, unsigned index, int32_t v, sts_error *err);
sts_status sts_kernel_set_f32(sts_kernel *k, unsigned index, float v, sts_error *err);

/* Binds a __local pointer argument to `bytes` of local memory. */
sts_status sts_kernel_set_local(sts_kernel *k, unsigned index, size_t bytes, sts_error *err);

/* Launches the kernel over `dims` (1..3) dimensions. `local` may be NULL (the driver
 * chooses); otherwise each global size must be a multiple of the local size. The
 * launch is flushed to the device and the call returns without waiting. When `ev` is
 * not NULL the caller receives the launch's event (sts_event_release). The enqueue
 * hook sees it under the kernel's name. */
sts_status sts_kernel_enqueue(sts_kernel *k, int dims, const size_t *global, const size_t *local, sts_event **ev,
                              sts_error *err);

/* The largest work-group this kernel can run with on its device. */
size_t sts_kernel_max_work_group(const sts_kernel *k);

/* ---------------------------------------------------------------- built-in operations
 *
 * Each enqueues work on the device's queue, returns at once, and (when `ev` is not
 * NULL) gives the caller a reference to the operation's event. The output array
 * records it as its latest writer. Kernels come from the .cl files in lib/device/kernels, built
 * on first use through the program cache (so the first call pays the compile). Only
 * float32 arrays are accepted; wrong shapes give STS_ERR_SHAPE naming both shapes. */

/* c[M,N] = a[M,K] @ b[K,N], row-major, float32 accumulation. */
sts_status sts_op_matmul(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *c, sts_event **ev,
                         sts_error *err);
/* y = tanh(x); same element count; y may be x. */
sts_status sts_op_tanh(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err);
/* y = x * x; same element count; y may be x. */
sts_status sts_op_square(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err);
/* y = alpha * x; same element count; y may be x. */
sts_status sts_op_scale(sts_device *dev, const sts_array *x, float alpha, sts_array *y, sts_event **ev, sts_error *err);
/* y[r] = sum over c of x[r, c]; x is [R, C], y has R elements. */
sts_status sts_op_row_sum(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err);
/* y (one element) = sum of every element of x. */
sts_status sts_op_sum(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err);
/* y (one element) = mean of every element of x. */
sts_status sts_op_mean(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err);

/* Fused products. Small shapes (M*N*K up to STS_FUSED_MAX_WORK, under the AUTO matmul
 * choice) run as one kernel launch, which on a CPU device costs far less than the two
 * or three launches of the separate operations; larger shapes run those operations and
 * the event stands for all their launches (the enqueue hook then sees each one).
 *
 * y[M,N] = tanh(a[M,K] @ b[K,N]). */
sts_status sts_op_matmul_tanh(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *y, sts_event **ev,
                              sts_error *err);
/* e[M] = sum over j of (a @ b)[i, j]^2, the row energy. `scratch` is a [M,N] float32
 * array that the large-shape path uses for a @ b; its contents afterwards are
 * unspecified. */
sts_status sts_op_matmul_energy(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *scratch,
                                sts_array *e, sts_event **ev, sts_error *err);
/* The largest M*N*K the fused ops run as a single launch. */
#define STS_FUSED_MAX_WORK (1 << 18)

/* Which matmul kernel sts_op_matmul uses. AUTO picks BLOCKED on devices whose local
 * memory is ordinary memory (CPUs) and TILED elsewhere. */
typedef enum sts_matmul_kind {
    STS_MATMUL_AUTO = 0,
    STS_MATMUL_TILED,   /* 16x16 tiles staged in local memory, for GPUs */
    STS_MATMUL_BLOCKED, /* register blocking with vector loads, for CPUs */
    STS_MATMUL_NAIVE    /* one work-item per output: the reference kernel */
} sts_matmul_kind;
void sts_device_set_matmul(sts_device *dev, sts_matmul_kind kind);

#ifdef __cplusplus
}
#endif
#endif
