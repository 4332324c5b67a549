/* device: the library built without OpenCL (make OPENCL=0, the default where CL/cl.h
 * is missing) has this file in place of the rest of lib/device. Every public function
 * of stepscope/device.h is here, so whatever links the OpenCL build links this one:
 * no device can be opened, so no array, event, program or kernel can exist, and each
 * function that needs one fails saying what to install (sts_device_require_opencl). */
#include <stddef.h>

#include "stepscope/device.h"

static const char install_hint[] =
    "this build of stepscope was made without OpenCL (make OPENCL=0, or the OpenCL headers "
    "CL/cl.h were missing): install ocl-icd-opencl-dev opencl-headers pocl-opencl-icd "
    "(scripts/deps.sh as root, else it prints the apt-get command) and rebuild with make";

sts_status sts_device_require_opencl(const char *what, sts_error *err)
{
    return sts_error_set(err, STS_ERR_NO_DEVICE, -1, "%s needs OpenCL: %s", what ? what : "this", install_hint);
}

/* The functions below that take a handle can only have been given one that no call
 * of this build made; they fail (or answer "nothing") without touching it. */
static sts_status none(const char *fn, sts_error *err)
{
    return sts_device_require_opencl(fn, err);
}

sts_status sts_device_list(sts_device_info *infos, size_t cap, size_t *count, sts_error *err)
{
    *count = 0;
    return none("sts_device_list", err);
}

sts_status sts_device_open(const char *spec, sts_device **out, sts_error *err)
{
    *out = NULL;
    return none("sts_device_open", err);
}

void sts_device_free(sts_device *dev) {}

const sts_device_info *sts_device_get_info(const sts_device *dev)
{
    return NULL;
}

sts_status sts_device_flush(sts_device *dev, sts_error *err)
{
    return none("sts_device_flush", err);
}

sts_status sts_device_finish(sts_device *dev, sts_error *err)
{
    return none("sts_device_finish", err);
}

void sts_device_set_enqueue_hook(sts_device *dev, sts_enqueue_hook hook, void *user) {}

sts_status sts_device_clock_pair(sts_device *dev, int64_t *host_ns, int64_t *device_ns, int64_t *uncertainty_ns,
                                 sts_error *err)
{
    return none("sts_device_clock_pair", err);
}

const char *sts_device_last_build_log(const sts_device *dev)
{
    return "";
}

void sts_device_set_matmul(sts_device *dev, sts_matmul_kind kind) {}

/* ---------------------------------------------------------------- events */

/* As the OpenCL build: NULL entries are skipped, so a list of none is ready. */
sts_status sts_ready(sts_event *const *events, size_t n, sts_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (events[i]) return none("sts_ready", err);
    return STS_OK;
}

sts_status sts_event_wait(sts_event *ev, sts_error *err)
{
    return sts_ready(&ev, 1, err);
}

int sts_event_done(const sts_event *ev)
{
    return -1;
}

sts_status sts_event_get_times(const sts_event *ev, sts_event_times *out, sts_error *err)
{
    return none("sts_event_get_times", err);
}

int64_t sts_event_device_ns(const sts_event *ev)
{
    return -1;
}

int64_t sts_events_span_ns(sts_event *const *events, size_t n)
{
    return -1;
}

int64_t sts_event_host_ns(const sts_event *ev)
{
    return -1;
}

int64_t sts_event_done_ns(const sts_event *ev)
{
    return -1;
}

const char *sts_event_name(const sts_event *ev)
{
    return "";
}

sts_event *sts_event_retain(sts_event *ev)
{
    return ev;
}

void sts_event_release(sts_event *ev) {}

/* ---------------------------------------------------------------- arrays */

sts_status sts_array_create(sts_device *dev, sts_dtype dtype, int ndim, const int64_t *shape, sts_array **out,
                            sts_error *err)
{
    *out = NULL;
    return none("sts_array_create", err);
}

void sts_array_free(sts_array *a) {}

int sts_array_ndim(const sts_array *a)
{
    return 0;
}

const int64_t *sts_array_shape(const sts_array *a)
{
    return NULL;
}

sts_dtype sts_array_dtype(const sts_array *a)
{
    return STS_DTYPE_F32;
}

size_t sts_array_count(const sts_array *a)
{
    return 0;
}

size_t sts_array_bytes(const sts_array *a)
{
    return 0;
}

sts_device *sts_array_device(const sts_array *a)
{
    return NULL;
}

sts_status sts_array_write(sts_array *a, const void *host, size_t bytes, sts_event **ev, sts_error *err)
{
    if (ev) *ev = NULL;
    return none("sts_array_write", err);
}

sts_status sts_array_read_async(const sts_array *a, void *host, size_t bytes, sts_event **ev, sts_error *err)
{
    if (ev) *ev = NULL;
    return none("sts_array_read_async", err);
}

sts_status sts_array_read(const sts_array *a, void *host, size_t bytes, sts_error *err)
{
    return none("sts_array_read", err);
}

sts_event *sts_array_event(const sts_array *a)
{
    return NULL;
}

void sts_array_set_event(sts_array *a, sts_event *ev) {}

sts_status sts_arrays_ready(sts_array *const *arrays, size_t n, sts_error *err)
{
    for (size_t i = 0; i < n; i++)
        if (arrays[i]) return none("sts_arrays_ready", err);
    return STS_OK;
}

/* ---------------------------------------------------------------- programs and kernels */

sts_status sts_program_build(sts_device *dev, const char *source, size_t len, const char *options, sts_program **out,
                             sts_build_info *info, sts_error *err)
{
    *out = NULL;
    return none("sts_program_build", err);
}

const char *sts_program_log(const sts_program *p)
{
    return "";
}

sts_status sts_kernel_create(sts_program *p, const char *name, sts_kernel **out, sts_error *err)
{
    *out = NULL;
    return none("sts_kernel_create", err);
}

void sts_kernel_free(sts_kernel *k) {}

const char *sts_kernel_name(const sts_kernel *k)
{
    return "";
}

sts_status sts_kernel_set_array(sts_kernel *k, unsigned index, const sts_array *a, sts_error *err)
{
    return none("sts_kernel_set_array", err);
}

sts_status sts_kernel_set_scalar(sts_kernel *k, unsigned index, const void *value, size_t size, sts_error *err)
{
    return none("sts_kernel_set_scalar", err);
}

sts_status sts_kernel_set_i32(sts_kernel *k, unsigned index, int32_t v, sts_error *err)
{
    return sts_kernel_set_scalar(k, index, &v, sizeof v, err);
}

sts_status sts_kernel_set_f32(sts_kernel *k, unsigned index, float v, sts_error *err)
{
    return sts_kernel_set_scalar(k, index, &v, sizeof v, err);
}

sts_status sts_kernel_set_local(sts_kernel *k, unsigned index, size_t bytes, sts_error *err)
{
    return none("sts_kernel_set_local", err);
}

sts_status sts_kernel_enqueue(sts_kernel *k, int dims, const size_t *global, const size_t *local, sts_event **ev,
                              sts_error *err)
{
    if (ev) *ev = NULL;
    return none("sts_kernel_enqueue", err);
}

size_t sts_kernel_max_work_group(const sts_kernel *k)
{
    return 0;
}

/* ---------------------------------------------------------------- built-in operations */

/* Each operation's arguments are a device and arrays this build cannot have made. */
static sts_status no_op(const char *fn, sts_event **ev, sts_error *err)
{
    if (ev) *ev = NULL;
    return none(fn, err);
}

sts_status sts_op_matmul(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *c, sts_event **ev,
                         sts_error *err)
{
    return no_op("sts_op_matmul", ev, err);
}

sts_status sts_op_tanh(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return no_op("sts_op_tanh", ev, err);
}

sts_status sts_op_square(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return no_op("sts_op_square", ev, err);
}

sts_status sts_op_scale(sts_device *dev, const sts_array *x, float alpha, sts_array *y, sts_event **ev, sts_error *err)
{
    return no_op("sts_op_scale", ev, err);
}

sts_status sts_op_row_sum(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return no_op("sts_op_row_sum", ev, err);
}

sts_status sts_op_sum(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return no_op("sts_op_sum", ev, err);
}

sts_status sts_op_mean(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return no_op("sts_op_mean", ev, err);
}

sts_status sts_op_matmul_tanh(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *y, sts_event **ev,
                              sts_error *err)
{
    return no_op("sts_op_matmul_tanh", ev, err);
}

sts_status sts_op_matmul_energy(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *scratch,
                                sts_array *e, sts_event **ev, sts_error *err)
{
    return no_op("sts_op_matmul_energy", ev, err);
}
