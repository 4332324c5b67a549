/* device: the structures behind the opaque handles of stepscope/device.h. Internal to
 * lib/device (and unit tests of it). */
#ifndef STS_DEVICE_IMPL_H
#define STS_DEVICE_IMPL_H

#include <CL/cl.h>

#include "stepscope/device.h"

/* Rows of C per matmul_block work-item, passed to kernels/matmul.cl as -DBLOCK_ROWS. */
#define STS_MATMUL_BLOCK_ROWS 8

/* The most OpenCL commands one sts_event stands for (a matmul's tile pass and edges). */
#define STS_EVENT_MAX_CL 4

struct sts_event {
    int refs;
    unsigned n;
    cl_event cl[STS_EVENT_MAX_CL];
    int64_t host_ns;
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
    STS_BI_COUNT
} sts_builtin;

struct sts_device {
    cl_platform_id platform;
    cl_device_id id;
    cl_context ctx;
    cl_command_queue q;
    sts_device_info info;
    sts_program **progs;
    size_t nprogs, cap_progs;
    sts_kernel *builtin[STS_BI_COUNT];
    sts_enqueue_hook hook;
    void *hook_user;
    char *last_build_log;
    sts_matmul_kind matmul;
};

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

/* The built-in kernel `which`, built on first use. Borrowed from the device. */
sts_status sts_device_builtin(sts_device *dev, sts_builtin which, sts_kernel **out, sts_error *err);

#endif
