/* device: the structures behind the opaque handles of stepscope/device.h. Internal to
 * lib/device (and unit tests of it). */
#ifndef STS_DEVICE_IMPL_H
#define STS_DEVICE_IMPL_H

#include <CL/cl.h>

#include "base/vec.h"
#include "stepscope/device.h"

/* Rows of C per matmul_block work-item, passed to kernels/matmul.cl as -DBLOCK_ROWS. */
#define STS_MATMUL_BLOCK_ROWS 8

/* The most OpenCL commands one sts_event stands for: a matmul's tile pass and edges,
 * and in a fused operation's large-shape path the maps after it. */
#define STS_EVENT_MAX_CL 6

struct sts_event {
    int refs;
    unsigned n;
    cl_event cl[STS_EVENT_MAX_CL];
    int64_t host_ns;
    int64_t done_ns; /* sts_event_done_ns() */
    char name[48];
};

struct sts_array {
    sts_device *dev;
    cl_mem mem;
    sts_dtype dtype;
    int ndim;
    int64_t shape[STS_MAX_DIMS];
    size_t count;
    sts_event *last; /* latest writer, retained */
};

struct sts_program {
    uint64_t key;
    char *source;
    size_t len;
    char *options;
    cl_program prog;
    char *log;
    int64_t build_ns;
    sts_device *dev;
};

struct sts_kernel {
    sts_program *prog;
    cl_kernel k;
    size_t max_group; /* CL_KERNEL_WORK_GROUP_SIZE, asked once; 0 until then */
    char name[64];
};

/* The built-in operations, each a kernel built lazily from an embedded program. */
typedef enum sts_builtin {
    STS_BI_MATMUL_TILED,
    STS_BI_MATMUL_BLOCK,
    STS_BI_MATMUL_EDGE,
    STS_BI_TANH,
    STS_BI_SQUARE,
    STS_BI_SCALE,
    STS_BI_ROW_SUM,
    STS_BI_SUM,
    STS_BI_MM_TANH_SMALL,
    STS_BI_MM_SQSUM_SMALL,
    STS_BI_COUNT
} sts_builtin;

struct sts_device {
    cl_platform_id platform;
    cl_device_id id;
    cl_context ctx;
    cl_command_queue q;
    sts_device_info info;
    STS_VEC(sts_program *) progs; /* the program cache */
    sts_kernel *builtin[STS_BI_COUNT];
    sts_enqueue_hook hook;
    void *hook_user;
    char *last_build_log;
    sts_matmul_kind matmul;
};

/* lo <= host - device <= hi at device time device_ns (host: CLOCK_MONOTONIC). */
typedef struct sts_clock_bracket {
    int64_t device_ns, lo, hi;
} sts_clock_bracket;

/* Finishes the queue, then the narrowest causal bracket of several markers (each
 * QUEUED inside its enqueue call, END before the host saw it complete; clock_pair.c).
 * *stamps_raw: 1 when every marker's stamps also fit CLOCK_MONOTONIC_RAW's readings
 * taken around the same calls. sts_device_clock_pair() is built on it. */
sts_status sts_device_marker_bracket(sts_device *dev, sts_clock_bracket *out, int *stamps_raw, sts_error *err);

/* "CL_OUT_OF_RESOURCES" for -5; a static string. */
const char *sts_cl_error_name(cl_int code);

/* Records an OpenCL failure in `err` as STS_ERR_DEVICE: "what: CL_NAME (code)". */
sts_status sts_cl_fail(sts_error *err, const char *what, cl_int code);

/* A new event (one reference) standing for `n` commands; takes over their cl_events.
 * NULL when memory is exhausted (the cl_events are then released). */
sts_event *sts_event_wrap(const char *name, const cl_event *cl, unsigned n);

/* Hands a freshly enqueued event to the hook, flushes the queue, and gives the caller
 * its reference (or drops it when `out` is NULL). */
sts_status sts_device_publish(sts_device *dev, sts_event *ev, sts_event **out, sts_error *err);

/* One event standing for the commands of all `n` events (each retained again), under
 * `name`; NULL when memory is exhausted or they hold more than STS_EVENT_MAX_CL. The
 * caller owns it (sts_event_release). */
sts_event *sts_event_join(const char *name, sts_event *const *evs, size_t n);

/* Shared by the operations in ops.c and fused.c. */
/* "[2,3]" into buf[cap]. */
void sts_ops_shape_text(const sts_array *a, char *buf, size_t cap);
/* STS_OK when `a` is a float32 array of `dev` small enough for an int index. */
sts_status sts_ops_need_f32(const sts_device *dev, const char *op, const char *which, const sts_array *a,
                            sts_error *err);
/* STS_OK when a [M,K] @ b [K,N] fits c [M,N], all float32 arrays of `dev`. */
sts_status sts_ops_matmul_shapes(const sts_device *dev, const sts_array *a, const sts_array *b, const sts_array *c,
                                 sts_error *err);
/* One clEnqueueNDRangeKernel of `k`; `local` may be NULL. */
sts_status sts_ops_launch(sts_device *dev, sts_kernel *k, int dims, const size_t *global, const size_t *local,
                          cl_event *out, sts_error *err);
/* Wraps the launches of one operation into an event, makes it the output's latest
 * writer, and publishes it; takes over the cl_events. */
sts_status sts_ops_finish(sts_device *dev, const char *name, const cl_event *cl, unsigned n, sts_array *out,
                          sts_event **ev, sts_error *err);

/* The built-in kernel `which`, built on first use. Borrowed from the device. */
sts_status sts_device_builtin(sts_device *dev, sts_builtin which, sts_kernel **out, sts_error *err);

#endif
