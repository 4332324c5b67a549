/* device: choosing an OpenCL device, its context and its in-order profiling queue. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "device/device_impl.h"

#define MAX_PLATFORMS 16
#define MAX_DEVICES   64

static const char install_hint[] =
    "install an OpenCL driver: on Debian, apt-get install pocl-opencl-icd ocl-icd-opencl-dev opencl-headers "
    "(or run scripts/deps.sh)";

/* This is the build with OpenCL; device_none.c is the one without. */
sts_status sts_device_require_opencl(const char *what, sts_error *err)
{
    return STS_OK;
}

typedef struct found_device {
    cl_platform_id platform;
    cl_device_id id;
} found_device;

/* Every device of every platform in a fixed order. Devices of a platform that fails to
 * enumerate are skipped rather than hiding the others. */
static sts_status enumerate(found_device *out, size_t cap, size_t *n, sts_error *err)
{
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint np = 0;
    cl_int rc = clGetPlatformIDs(MAX_PLATFORMS, plats, &np);
    *n = 0;
    if (rc == -1001 || (rc == CL_SUCCESS && np == 0))
        return sts_error_set(err, STS_ERR_NO_DEVICE, -1,
                             "no OpenCL platform found (clGetPlatformIDs returned %d with %u platforms); %s", (int)rc,
                             (unsigned)np, install_hint);
    if (rc != CL_SUCCESS) return sts_cl_fail(err, "clGetPlatformIDs", rc);
    for (cl_uint p = 0; p < np && p < MAX_PLATFORMS; p++) {
        cl_device_id ids[MAX_DEVICES];
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES, ids, &nd) != CL_SUCCESS) continue;
        for (cl_uint d = 0; d < nd && d < MAX_DEVICES && *n < cap; d++) {
            out[*n].platform = plats[p];
            out[*n].id = ids[d];
            (*n)++;
        }
    }
    if (*n == 0)
        return sts_error_set(err, STS_ERR_NO_DEVICE, -1, "%u OpenCL platform(s) found but no device; %s", (unsigned)np,
                             install_hint);
    return STS_OK;
}

static void get_str(cl_device_id d, cl_device_info what, char *buf, size_t cap)
{
    buf[0] = 0;
    if (clGetDeviceInfo(d, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = 0;
    buf[cap - 1] = 0;
}

static void get_pstr(cl_platform_id p, cl_platform_info what, char *buf, size_t cap)
{
    buf[0] = 0;
    if (clGetPlatformInfo(p, what, cap, buf, NULL) != CL_SUCCESS) buf[0] = 0;
    buf[cap - 1] = 0;
}

static void describe(const found_device *f, unsigned index, sts_device_info *info)
{
    memset(info, 0, sizeof *info);
    info->index = index;
    cl_device_type type = 0;
    clGetDeviceInfo(f->id, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    info->is_gpu = (type & CL_DEVICE_TYPE_GPU) != 0;
    info->is_cpu = (type & CL_DEVICE_TYPE_CPU) != 0;
    get_pstr(f->platform, CL_PLATFORM_NAME, info->platform, sizeof info->platform);
    get_pstr(f->platform, CL_PLATFORM_VERSION, info->platform_version, sizeof info->platform_version);
    get_str(f->id, CL_DEVICE_NAME, info->name, sizeof info->name);
    get_str(f->id, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    get_str(f->id, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);
    get_str(f->id, CL_DEVICE_VERSION, info->device_version, sizeof info->device_version);
    get_str(f->id, CL_DEVICE_OPENCL_C_VERSION, info->opencl_c_version, sizeof info->opencl_c_version);
    cl_uint cu = 0;
    clGetDeviceInfo(f->id, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof cu, &cu, NULL);
    info->compute_units = cu;
    size_t wg = 0;
    clGetDeviceInfo(f->id, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    info->max_work_group_size = wg;
    cl_ulong lm = 0, gm = 0;
    clGetDeviceInfo(f->id, CL_DEVICE_LOCAL_MEM_SIZE, sizeof lm, &lm, NULL);
    clGetDeviceInfo(f->id, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof gm, &gm, NULL);
    info->local_mem_bytes = lm;
    info->global_mem_bytes = gm;
    cl_device_local_mem_type lt = CL_LOCAL;
    clGetDeviceInfo(f->id, CL_DEVICE_LOCAL_MEM_TYPE, sizeof lt, &lt, NULL);
    info->local_mem_is_global = lt == CL_GLOBAL;
    size_t res = 0;
    clGetDeviceInfo(f->id, CL_DEVICE_PROFILING_TIMER_RESOLUTION, sizeof res, &res, NULL);
    info->timer_resolution_ns = res;
}

sts_status sts_device_list(sts_device_info *infos, size_t cap, size_t *count, sts_error *err)
{
    found_device found[MAX_DEVICES];
    size_t n = 0;
    *count = 0;
    sts_status st = enumerate(found, MAX_DEVICES, &n, err);
    if (st != STS_OK) return st;
    for (size_t i = 0; i < n && i < cap; i++)
        describe(&found[i], (unsigned)i, &infos[i]);
    *count = n;
    return STS_OK;
}

static int contains_nocase(const char *hay, const char *needle)
{
    size_t nl = strlen(needle);
    for (; *hay; hay++) {
        size_t i = 0;
        while (i < nl && hay[i] && tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            i++;
        if (i == nl) return 1;
    }
    return nl == 0;
}

static int parse_index(const char *s, size_t *out)
{
    if (!*s) return 0;
    size_t v = 0;
    for (const char *p = s; *p; p++) {
        if (!isdigit((unsigned char)*p) || v > 100000) return 0;
        v = v * 10 + (size_t)(*p - '0');
    }
    *out = v;
    return 1;
}

static size_t default_choice(const sts_device_info *infos, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (infos[i].is_gpu) return i;
    for (size_t i = 0; i < n; i++)
        if (infos[i].is_cpu) return i;
    return 0;
}

/* "0: Portable Computing Language / pthread-haswell (CPU), 1: ..." for error messages. */
static void list_devices(const sts_device_info *infos, size_t n, char *buf, size_t cap)
{
    size_t used = 0;
    buf[0] = 0;
    for (size_t i = 0; i < n && used < cap; i++) {
        int w =
            snprintf(buf + used, cap - used, "%s%zu: %s / %s (%s)", i ? "; " : "", i, infos[i].platform, infos[i].name,
                     infos[i].is_gpu   ? "GPU"
                     : infos[i].is_cpu ? "CPU"
                                       : "other");
        if (w < 0) break;
        used += (size_t)w;
    }
}

static sts_status choose(const char *spec, const sts_device_info *infos, size_t n, size_t *pick, sts_error *err)
{
    if (!spec || !*spec) {
        *pick = default_choice(infos, n);
        return STS_OK;
    }
    size_t idx;
    if (parse_index(spec, &idx)) {
        if (idx < n) {
            *pick = idx;
            return STS_OK;
        }
    } else {
        for (size_t i = 0; i < n; i++)
            if (contains_nocase(infos[i].name, spec)) return *pick = i, STS_OK;
        for (size_t i = 0; i < n; i++)
            if (contains_nocase(infos[i].platform, spec)) return *pick = i, STS_OK;
    }
    char list[300];
    list_devices(infos, n, list, sizeof list);
    return sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                         "device '%s' matches no OpenCL device (expected an index below %zu or part of a device "
                         "name); devices: %s",
                         spec, n, list);
}

static sts_status make_queue(sts_device *dev, sts_error *err)
{
    cl_int rc;
    cl_context_properties props[] = { CL_CONTEXT_PLATFORM, (cl_context_properties)dev->platform, 0 };
    dev->ctx = clCreateContext(props, 1, &dev->id, NULL, NULL, &rc);
    if (!dev->ctx) return sts_cl_fail(err, "clCreateContext", rc);
#if defined(__GNUC__)
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"
#endif
    /* The 1.2 entry point: every driver has it, and 2.0's replacement is optional. */
    dev->q = clCreateCommandQueue(dev->ctx, dev->id, CL_QUEUE_PROFILING_ENABLE, &rc);
#if defined(__GNUC__)
#pragma GCC diagnostic pop
#endif
    if (!dev->q) return sts_cl_fail(err, "clCreateCommandQueue", rc);
    return STS_OK;
}

sts_status sts_device_open(const char *spec, sts_device **out, sts_error *err)
{
    *out = NULL;
    if (!spec || !*spec) spec = getenv(STS_DEVICE_ENV);
    found_device found[MAX_DEVICES];
    sts_device_info infos[MAX_DEVICES];
    size_t n = 0, pick = 0;
    sts_status st = enumerate(found, MAX_DEVICES, &n, err);
    if (st != STS_OK) return st;
    for (size_t i = 0; i < n; i++)
        describe(&found[i], (unsigned)i, &infos[i]);
    st = choose(spec, infos, n, &pick, err);
    if (st != STS_OK) return st;
    sts_device *dev = calloc(1, sizeof *dev);
    if (!dev) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory opening an OpenCL device");
    dev->platform = found[pick].platform;
    dev->id = found[pick].id;
    dev->info = infos[pick];
    st = make_queue(dev, err);
    if (st != STS_OK) {
        sts_device_free(dev);
        return st;
    }
    *out = dev;
    return STS_OK;
}

void sts_device_free(sts_device *dev)
{
    if (!dev) return;
    if (dev->q) clFinish(dev->q);
    for (int i = 0; i < STS_BI_COUNT; i++)
        sts_kernel_free(dev->builtin[i]);
    for (size_t i = 0; i < dev->progs.n; i++) {
        sts_program *p = dev->progs.v[i];
        if (p->prog) clReleaseProgram(p->prog);
        free(p->source);
        free(p->options);
        free(p->log);
        free(p);
    }
    STS_VEC_RELEASE(dev->progs);
    free(dev->last_build_log);
    if (dev->q) clReleaseCommandQueue(dev->q);
    if (dev->ctx) clReleaseContext(dev->ctx);
    free(dev);
}

const sts_device_info *sts_device_get_info(const sts_device *dev)
{
    return &dev->info;
}

sts_status sts_device_flush(sts_device *dev, sts_error *err)
{
    cl_int rc = clFlush(dev->q);
    return rc == CL_SUCCESS ? STS_OK : sts_cl_fail(err, "clFlush", rc);
}

sts_status sts_device_finish(sts_device *dev, sts_error *err)
{
    cl_int rc = clFinish(dev->q);
    return rc == CL_SUCCESS ? STS_OK : sts_cl_fail(err, "clFinish", rc);
}

void sts_device_set_enqueue_hook(sts_device *dev, sts_enqueue_hook hook, void *user)
{
    dev->hook = hook;
    dev->hook_user = user;
}

void sts_device_set_matmul(sts_device *dev, sts_matmul_kind kind)
{
    dev->matmul = kind;
}

const char *sts_device_last_build_log(const sts_device *dev)
{
    return dev->last_build_log ? dev->last_build_log : "";
}

sts_status sts_device_publish(sts_device *dev, sts_event *ev, sts_event **out, sts_error *err)
{
    if (dev->hook) dev->hook(dev->hook_user, ev->name, ev);
    sts_status st = sts_device_flush(dev, err);
    if (out && st == STS_OK)
        *out = ev;
    else
        sts_event_release(ev);
    return st;
}
