/* device: the program cache, kernels, arguments and launches. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "base/mem.h"
#include "device/device_impl.h"

static uint64_t cache_key(const sts_device *dev, const char *src, size_t len, const char *opts)
{
    /* The device's identity is part of the key so that a cache shared by several
     * devices could never hand one device another's binary. */
    uint64_t h = sts_hash_bytes(src, len);
    h = h * 0x100000001b3ull ^ sts_hash_bytes(opts, strlen(opts));
    h = h * 0x100000001b3ull ^ sts_hash_bytes(&dev->id, sizeof dev->id);
    return h ? h : 1;
}

static sts_program *cache_find(const sts_device *dev, uint64_t key, const char *src, size_t len, const char *opts)
{
    for (size_t i = 0; i < dev->progs.n; i++) {
        sts_program *p = dev->progs.v[i];
        if (p->key == key && p->len == len && memcmp(p->source, src, len) == 0 && strcmp(p->options, opts) == 0)
            return p;
    }
    return NULL;
}

static char *dup_bytes(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (!d) return NULL;
    memcpy(d, s, n);
    d[n] = 0;
    return d;
}

/* The program's build log for this device, NUL-terminated; "" when unavailable. */
static char *fetch_log(cl_program prog, cl_device_id dev)
{
    size_t n = 0;
    if (clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, 0, NULL, &n) != CL_SUCCESS) n = 0;
    char *log = malloc(n + 1);
    if (!log) return NULL;
    if (n && clGetProgramBuildInfo(prog, dev, CL_PROGRAM_BUILD_LOG, n, log, NULL) != CL_SUCCESS) n = 0;
    log[n] = 0;
    return log;
}

static sts_status build_failed(sts_device *dev, cl_program prog, cl_int rc, sts_error *err)
{
    char *log = fetch_log(prog, dev->id);
    free(dev->last_build_log);
    dev->last_build_log = log;
    const char *text = log ? log : "";
    size_t len = strlen(text);
    while (len && (text[len - 1] == '\n' || text[len - 1] == ' '))
        len--;
    return sts_error_set(err, STS_ERR_BUILD, -1, "OpenCL program build failed (%s) on %s; compiler log:\n%.*s",
                         sts_cl_error_name(rc), dev->info.name, (int)len, text);
}

static sts_status remember(sts_device *dev, sts_program *p, sts_error *err)
{
    sts_program **slot = STS_VEC_PUSH(dev->progs);
    if (!slot) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for the program cache");
    *slot = p;
    return STS_OK;
}

static sts_status compile(sts_device *dev, const char *src, size_t len, const char *opts, uint64_t key,
                          sts_program **out, sts_error *err)
{
    cl_int rc;
    cl_program prog = clCreateProgramWithSource(dev->ctx, 1, &src, &len, &rc);
    if (!prog) return sts_cl_fail(err, "clCreateProgramWithSource", rc);
    rc = clBuildProgram(prog, 1, &dev->id, opts, NULL, NULL);
    if (rc != CL_SUCCESS) {
        sts_status st = rc == CL_BUILD_PROGRAM_FAILURE || rc == CL_INVALID_BUILD_OPTIONS
                            ? build_failed(dev, prog, rc, err)
                            : sts_cl_fail(err, "clBuildProgram", rc);
        clReleaseProgram(prog);
        return st;
    }
    sts_program *p = calloc(1, sizeof *p);
    if (p) {
        p->source = dup_bytes(src, len);
        p->options = dup_bytes(opts, strlen(opts));
        p->log = fetch_log(prog, dev->id);
    }
    if (!p || !p->source || !p->options || !p->log) {
        if (p) free(p->source), free(p->options), free(p->log);
        free(p);
        clReleaseProgram(prog);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory caching a program");
    }
    p->key = key;
    p->len = len;
    p->prog = prog;
    p->dev = dev;
    *out = p;
    return STS_OK;
}

sts_status sts_program_build(sts_device *dev, const char *source, size_t len, const char *options, sts_program **out,
                             sts_build_info *info, sts_error *err)
{
    int64_t t0 = sts_clock_ns();
    *out = NULL;
    if (info) *info = (sts_build_info){ 0, 0, 0 };
    if (!source) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "program source is NULL");
    if (!len) len = strlen(source);
    if (!options) options = "";
    uint64_t key = cache_key(dev, source, len, options);
    sts_program *p = cache_find(dev, key, source, len, options);
    int hit = p != NULL;
    if (!p) {
        sts_status st = compile(dev, source, len, options, key, &p, err);
        if (st == STS_OK && (st = remember(dev, p, err)) != STS_OK) {
            clReleaseProgram(p->prog);
            free(p->source), free(p->options), free(p->log), free(p);
        }
        if (st != STS_OK) return st;
        p->build_ns = sts_clock_ns() - t0;
    }
    if (info) {
        info->cache_hit = hit;
        info->build_ns = sts_clock_ns() - t0;
        info->key = key;
    }
    *out = p;
    return STS_OK;
}

const char *sts_program_log(const sts_program *p)
{
    return p->log;
}

sts_status sts_kernel_create(sts_program *p, const char *name, sts_kernel **out, sts_error *err)
{
    *out = NULL;
    cl_int rc;
    cl_kernel k = clCreateKernel(p->prog, name, &rc);
    if (!k) {
        if (rc == CL_INVALID_KERNEL_NAME)
            return sts_error_set(err, STS_ERR_NOT_FOUND, -1, "the program has no kernel named '%s'", name);
        return sts_cl_fail(err, "clCreateKernel", rc);
    }
    sts_kernel *sk = calloc(1, sizeof *sk);
    if (!sk) {
        clReleaseKernel(k);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for a kernel");
    }
    sk->prog = p;
    sk->k = k;
    snprintf(sk->name, sizeof sk->name, "%s", name);
    *out = sk;
    return STS_OK;
}

void sts_kernel_free(sts_kernel *k)
{
    if (!k) return;
    clReleaseKernel(k->k);
    free(k);
}

const char *sts_kernel_name(const sts_kernel *k)
{
    return k->name;
}

static sts_status arg_result(const sts_kernel *k, unsigned index, cl_int rc, sts_error *err)
{
    if (rc == CL_SUCCESS) return STS_OK;
    return sts_error_set(err, rc == CL_INVALID_ARG_INDEX ? STS_ERR_RANGE : STS_ERR_INVALID_ARG, -1,
                         "kernel '%s' argument %u: %s (%d)", k->name, index, sts_cl_error_name(rc), (int)rc);
}

sts_status sts_kernel_set_array(sts_kernel *k, unsigned index, const sts_array *a, sts_error *err)
{
    return arg_result(k, index, clSetKernelArg(k->k, index, sizeof a->mem, &a->mem), err);
}

sts_status sts_kernel_set_scalar(sts_kernel *k, unsigned index, const void *value, size_t size, sts_error *err)
{
    return arg_result(k, index, clSetKernelArg(k->k, index, size, value), err);
}

sts_status sts_kernel_set_i32(sts_kernel *k, unsigned index, int32_t v, sts_error *err)
{
    cl_int x = v;
    return sts_kernel_set_scalar(k, index, &x, sizeof x, err);
}

sts_status sts_kernel_set_f32(sts_kernel *k, unsigned index, float v, sts_error *err)
{
    cl_float x = v;
    return sts_kernel_set_scalar(k, index, &x, sizeof x, err);
}

sts_status sts_kernel_set_local(sts_kernel *k, unsigned index, size_t bytes, sts_error *err)
{
    return arg_result(k, index, clSetKernelArg(k->k, index, bytes, NULL), err);
}

size_t sts_kernel_max_work_group(const sts_kernel *k)
{
    if (k->max_group) return k->max_group;
    size_t n = 0;
    if (clGetKernelWorkGroupInfo(k->k, k->prog->dev->id, CL_KERNEL_WORK_GROUP_SIZE, sizeof n, &n, NULL) != CL_SUCCESS ||
        n == 0)
        n = 1;
    /* The cache lives in the kernel object; asking the driver each launch costs time. */
    ((sts_kernel *)k)->max_group = n;
    return n;
}

static sts_status check_sizes(const sts_kernel *k, int dims, const size_t *global, const size_t *local, sts_error *err)
{
    if (dims < 1 || dims > 3)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "kernel '%s': %d dimensions (expected 1..3)", k->name, dims);
    for (int i = 0; i < dims; i++) {
        if (global[i] == 0)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "kernel '%s': global size %d is 0", k->name, i);
        if (local && (local[i] == 0 || global[i] % local[i] != 0))
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                                 "kernel '%s': global size %zu in dimension %d is not a multiple of the local size "
                                 "%zu",
                                 k->name, global[i], i, local[i]);
    }
    return STS_OK;
}

sts_status sts_kernel_enqueue(sts_kernel *k, int dims, const size_t *global, const size_t *local, sts_event **ev,
                              sts_error *err)
{
    if (ev) *ev = NULL;
    sts_status st = check_sizes(k, dims, global, local, err);
    if (st != STS_OK) return st;
    sts_device *dev = k->prog->dev;
    cl_event e;
    cl_int rc = clEnqueueNDRangeKernel(dev->q, k->k, (cl_uint)dims, NULL, global, local, 0, NULL, &e);
    if (rc != CL_SUCCESS)
        return sts_error_set(err, STS_ERR_DEVICE, -1, "launching kernel '%s' failed: %s (%d)", k->name,
                             sts_cl_error_name(rc), (int)rc);
    sts_event *w = sts_event_wrap(k->name, &e, 1);
    if (!w) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for an event");
    return sts_device_publish(dev, w, ev, err);
}
