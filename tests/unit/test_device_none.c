/* The device layer of either build, through the public API: the library built with
 * OpenCL, and the one built without it (make OPENCL=0, lib/device/device_none.c), where
 * every entry to a device fails saying what it needs and what to install. The same
 * object is linked against both (build/noocl, `make check-noocl`); STEPSCOPE_OPENCL=0,
 * which that run sets, says which one this is. */
#include <unistd.h>

#include "test.h"

#include "stepscope.h"

static int built_without(void)
{
    const char *v = getenv("STEPSCOPE_OPENCL");
    return v && strcmp(v, "0") == 0;
}

/* What every refusal of the build without OpenCL says. */
#define T_SAYS_INSTALL(err, what)                                                       \
    do {                                                                                \
        T_EQ_I64((err).code, STS_ERR_NO_DEVICE);                                        \
        T_CONTAINS((err).message, what " needs OpenCL: this build of stepscope was");   \
        T_CONTAINS((err).message, "ocl-icd-opencl-dev opencl-headers pocl-opencl-icd"); \
        T_CONTAINS((err).message, "scripts/deps.sh");                                   \
    } while (0)

TEST(require_says_which_build)
{
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_device_require_opencl("stepscope bench", &err);
    if (!built_without()) {
        T_EQ_I64(st, STS_OK);
        T_EQ_I64(err.code, STS_OK); /* untouched */
        return;
    }
    T_EQ_I64(st, STS_ERR_NO_DEVICE);
    T_SAYS_INSTALL(err, "stepscope bench");
    T_EQ_I64(sts_device_require_opencl(NULL, NULL), STS_ERR_NO_DEVICE);
}

TEST(opening_a_device)
{
    sts_error err = STS_ERROR_INIT;
    size_t n = 99;
    sts_status st = sts_device_list(NULL, 0, &n, &err);
    if (!built_without()) {
        /* A machine without a driver says so at run time, not as a build without OpenCL. */
        if (st != STS_OK) T_TRUE(strstr(err.message, "made without OpenCL") == NULL);
        return;
    }
    T_EQ_I64(st, STS_ERR_NO_DEVICE);
    T_EQ_I64(n, 0);
    T_SAYS_INSTALL(err, "sts_device_list");
    sts_device *dev = (sts_device *)&n;
    err = (sts_error)STS_ERROR_INIT;
    T_EQ_I64(sts_device_open("0", &dev, &err), STS_ERR_NO_DEVICE);
    T_TRUE(dev == NULL);
    T_SAYS_INSTALL(err, "sts_device_open");
    sts_device_free(NULL);
}

/* What needs no device answers alike in both builds; without OpenCL a handle this
 * build cannot have made is refused without being read. */
TEST(waiting_on_events)
{
    sts_error err = STS_ERROR_INIT;
    sts_event *none[2] = { NULL, NULL };
    T_EQ_I64(sts_ready(none, 2, &err), STS_OK);
    T_EQ_STR(sts_dtype_name(STS_DTYPE_I32), "int32");
    T_EQ_I64(sts_dtype_size(STS_DTYPE_F32), 4);
    if (!built_without()) return;
    int junk = 0;
    sts_event *some[2] = { NULL, (sts_event *)&junk };
    T_EQ_I64(sts_ready(some, 2, &err), STS_ERR_NO_DEVICE);
    T_SAYS_INSTALL(err, "sts_ready");
}

TEST(recorder_device_lanes)
{
    char dir[] = "/tmp/sts_device_none_XXXXXX";
    T_TRUE(mkdtemp(dir) != NULL);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_trace_start(dir, NULL, &err), STS_OK);
    if (built_without()) {
        int junk = 0;
        T_EQ_I64(sts_trace_device((sts_device *)&junk, &err), STS_ERR_NO_DEVICE);
        T_SAYS_INSTALL(err, "sts_trace_device (the recorder's device lanes)");
    } else {
        /* Past the check of the build: the OpenCL build's own refusal of no device. */
        T_EQ_I64(sts_trace_device(NULL, &err), STS_ERR_INVALID_ARG);
        T_CONTAINS(err.message, "no device given");
    }
    sts_timeline *tl = NULL;
    T_EQ_I64(sts_trace_stop_timeline(&tl, NULL, &err), STS_OK);
    sts_timeline_free(tl);
    rmdir(dir);
}

int main(void)
{
    RUN(require_says_which_build);
    RUN(opening_a_device);
    RUN(waiting_on_events);
    RUN(recorder_device_lanes);
    return t_done();
}
