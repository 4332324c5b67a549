/* device: shaped buffers and the copies between host and device. */
#include <stdlib.h>

#include "device/device_impl.h"

/* Element count, or 0 when a dimension is not positive or the product overflows. */
static size_t element_count(int ndim, const int64_t *shape)
{
    size_t count = 1;
    for (int i = 0; i < ndim; i++) {
        if (shape[i] < 1 || (uint64_t)shape[i] > (SIZE_MAX / 4) / count) return 0;
        count *= (size_t)shape[i];
    }
    return count;
}

sts_status sts_array_create(sts_device *dev, sts_dtype dtype, int ndim, const int64_t *shape, sts_array **out,
                            sts_error *err)
{
    *out = NULL;
    if (ndim < 0 || ndim > STS_MAX_DIMS)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "array rank %d is outside 0..%d", ndim, STS_MAX_DIMS);
    if (dtype != STS_DTYPE_F32 && dtype != STS_DTYPE_I32)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "unknown dtype %d (expected float32 or int32)", (int)dtype);
    size_t count = element_count(ndim, shape);
    if (count == 0)
        return sts_error_set(err, STS_ERR_SHAPE, -1, "array dimensions must each be at least 1 (and fit in memory)");
    sts_array *a = calloc(1, sizeof *a);
    if (!a) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for an array handle");
    cl_int rc;
    a->mem = clCreateBuffer(dev->ctx, CL_MEM_READ_WRITE, count * sts_dtype_size(dtype), NULL, &rc);
    if (!a->mem) {
        free(a);
        return sts_cl_fail(err, "clCreateBuffer", rc);
    }
    a->dev = dev;
    a->dtype = dtype;
    a->ndim = ndim;
    for (int i = 0; i < ndim; i++)
        a->shape[i] = shape[i];
    a->count = count;
    *out = a;
    return STS_OK;
}

void sts_array_free(sts_array *a)
{
    if (!a) return;
    sts_event_release(a->last);
    clReleaseMemObject(a->mem);
    free(a);
}

int sts_array_ndim(const sts_array *a)
{
    return a->ndim;
}
const int64_t *sts_array_shape(const sts_array *a)
{
    return a->shape;
}
sts_dtype sts_array_dtype(const sts_array *a)
{
    return a->dtype;
}
size_t sts_array_count(const sts_array *a)
{
    return a->count;
}
size_t sts_array_bytes(const sts_array *a)
{
    return a->count * sts_dtype_size(a->dtype);
}
sts_device *sts_array_device(const sts_array *a)
{
    return a->dev;
}
sts_event *sts_array_event(const sts_array *a)
{
    return a->last;
}

void sts_array_set_event(sts_array *a, sts_event *ev)
{
    sts_event_retain(ev);
    sts_event_release(a->last);
    a->last = ev;
}

static sts_status check_bytes(const sts_array *a, size_t bytes, const char *what, sts_error *err)
{
    if (bytes == sts_array_bytes(a)) return STS_OK;
    return sts_error_set(err, STS_ERR_SHAPE, -1, "%s of %zu bytes into an array of %zu bytes (%zu %s values)", what,
                         bytes, sts_array_bytes(a), a->count, sts_dtype_name(a->dtype));
}

sts_status sts_array_write(sts_array *a, const void *host, size_t bytes, sts_event **ev, sts_error *err)
{
    sts_status st = check_bytes(a, bytes, "write", err);
    if (st != STS_OK) return st;
    cl_event e;
    cl_int rc = clEnqueueWriteBuffer(a->dev->q, a->mem, CL_FALSE, 0, bytes, host, 0, NULL, &e);
    if (rc != CL_SUCCESS) return sts_cl_fail(err, "clEnqueueWriteBuffer", rc);
    sts_event *w = sts_event_wrap("write", &e, 1);
    if (!w) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for an event");
    sts_array_set_event(a, w);
    return sts_device_publish(a->dev, w, ev, err);
}

sts_status sts_array_read_async(const sts_array *a, void *host, size_t bytes, sts_event **ev, sts_error *err)
{
    sts_status st = check_bytes(a, bytes, "read", err);
    if (st != STS_OK) return st;
    cl_event e;
    cl_int rc = clEnqueueReadBuffer(a->dev->q, a->mem, CL_FALSE, 0, bytes, host, 0, NULL, &e);
    if (rc != CL_SUCCESS) return sts_cl_fail(err, "clEnqueueReadBuffer", rc);
    sts_event *r = sts_event_wrap("read", &e, 1);
    if (!r) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for an event");
    return sts_device_publish(a->dev, r, ev, err);
}

sts_status sts_array_read(const sts_array *a, void *host, size_t bytes, sts_error *err)
{
    sts_event *ev = NULL;
    sts_status st = sts_array_read_async(a, host, bytes, &ev, err);
    if (st != STS_OK) return st;
    st = sts_event_wait(ev, err);
    sts_event_release(ev);
    return st;
}

sts_status sts_arrays_ready(sts_array *const *arrays, size_t n, sts_error *err)
{
    for (size_t i = 0; i < n; i++) {
        if (!arrays[i] || !arrays[i]->last) continue;
        sts_status st = sts_event_wait(arrays[i]->last, err);
        if (st != STS_OK) return st;
    }
    return STS_OK;
}
