/* device: relating the device's profiling clock to the host's CLOCK_MONOTONIC.
 *
 * Every bound here is causal, so it holds however the threads involved are scheduled:
 * a command's QUEUED stamp is taken inside the enqueue call (after the host clock read
 * before the call, before the one after it), and its END stamp before the host can
 * see the command complete. The rule this replaces (END falls between the last poll
 * that saw the marker pending and the first that saw it complete) failed whenever the
 * marker had completed before the first poll, which PoCL's markers nearly always have
 * on a loaded machine: END was then about 2 us before the "bracket" it was said to be
 * in. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "base/clock.h"
#include "device/device_impl.h"

#define MARKERS   8  /* markers per pairing; the narrowest bracket is kept */
#define RAW_TRIES 16 /* CLOCK_MONOTONIC / CLOCK_MONOTONIC_RAW / CLOCK_MONOTONIC brackets */
#define SPIN_NS   1000000

static int64_t raw_ns(void)
{
#ifdef CLOCK_MONOTONIC_RAW
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC_RAW, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
#else
    return 0;
#endif
}

/* Spins until the marker completes (the host's view of its END is then tight), and
 * sleeps in clWaitForEvents if it takes long. */
static cl_int await(cl_event ev, cl_int *state)
{
    int64_t until = sts_clock_ns() + SPIN_NS;
    cl_int rc = CL_SUCCESS;
    *state = CL_QUEUED;
    while (rc == CL_SUCCESS && *state > CL_COMPLETE) {
        if (sts_clock_ns() > until) {
            rc = clWaitForEvents(1, &ev);
            if (rc == CL_SUCCESS)
                rc = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *state, state, NULL);
            break;
        }
        rc = clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof *state, state, NULL);
    }
    return rc;
}

/* One marker: bounds on host - device at its QUEUED stamp, and whether its stamps also
 * fall where CLOCK_MONOTONIC_RAW says they must. */
static sts_status one_marker(sts_device *dev, sts_clock_bracket *b, int *stamps_raw, sts_error *err)
{
    int64_t m0 = sts_clock_ns(), r0 = raw_ns();
    cl_event ev;
    cl_int rc = clEnqueueMarkerWithWaitList(dev->q, 0, NULL, &ev);
    int64_t r1 = raw_ns(), m1 = sts_clock_ns();
    if (rc != CL_SUCCESS) return sts_cl_fail(err, "clEnqueueMarkerWithWaitList", rc);
    rc = clFlush(dev->q);
    cl_int state = CL_QUEUED;
    if (rc == CL_SUCCESS) rc = await(ev, &state);
    int64_t r2 = raw_ns(), m2 = sts_clock_ns();
    cl_ulong q = 0, e = 0;
    if (rc == CL_SUCCESS && state == CL_COMPLETE)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_QUEUED, sizeof q, &q, NULL);
    if (rc == CL_SUCCESS && state == CL_COMPLETE)
        rc = clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
    clReleaseEvent(ev);
    if (rc != CL_SUCCESS || state != CL_COMPLETE)
        return sts_cl_fail(err, "clock pairing marker", rc != CL_SUCCESS ? rc : state);
    int64_t qi = (int64_t)q, ei = (int64_t)e;
    b->device_ns = qi;
    b->lo = m0 - qi;
    b->hi = m1 - qi < m2 - ei ? m1 - qi : m2 - ei;
    *stamps_raw = r0 <= qi && qi <= r1 && qi <= ei && ei <= r2;
    if (b->lo > b->hi)
        return sts_error_set(err, STS_ERR_DEVICE, -1,
                             "the device's profiling stamps contradict the host clock: a marker queued at device "
                             "%" PRId64 " ns ended at %" PRId64 " ns, %" PRId64
                             " ns later than the host allows (expected END no later than the host saw it complete)",
                             qi, ei, b->lo - b->hi);
    return STS_OK;
}

sts_status sts_device_marker_bracket(sts_device *dev, sts_clock_bracket *out, int *stamps_raw, sts_error *err)
{
    sts_status st = sts_device_finish(dev, err);
    *stamps_raw = 1;
    for (int i = 0; i < MARKERS && st == STS_OK; i++) {
        sts_clock_bracket b;
        int raw = 0;
        st = one_marker(dev, &b, &raw, err);
        if (st != STS_OK) break;
        *stamps_raw &= raw;
        if (i == 0 || b.hi - b.lo < out->hi - out->lo) *out = b;
    }
    return st;
}

/* PoCL's CPU drivers take every profiling stamp with clock_gettime(CLOCK_MONOTONIC_RAW)
 * on Linux (pocl_gettimemono_ns in lib/CL/pocl_timing.c, PoCL 1.x to 7.x). */
static int stamps_with_raw_clock(const sts_device *dev)
{
#ifdef CLOCK_MONOTONIC_RAW
    return dev->info.is_cpu && strstr(dev->info.platform, "Portable Computing Language") != NULL;
#else
    (void)dev;
    return 0;
#endif
}

/* Bounds on CLOCK_MONOTONIC - CLOCK_MONOTONIC_RAW at one raw reading: the tightest of
 * RAW_TRIES brackets. */
static sts_clock_bracket raw_bracket(void)
{
    sts_clock_bracket best = { 0, 0, INT64_MAX };
    for (int i = 0; i < RAW_TRIES; i++) {
        int64_t m0 = sts_clock_ns(), r = raw_ns(), m1 = sts_clock_ns();
        if (i == 0 || m1 - m0 < best.hi - best.lo) best = (sts_clock_bracket){ r, m0 - r, m1 - r };
    }
    return best;
}

sts_status sts_device_clock_pair(sts_device *dev, int64_t *host_ns, int64_t *device_ns, int64_t *uncertainty_ns,
                                 sts_error *err)
{
    sts_clock_bracket b;
    int stamps_raw = 0;
    sts_status st = sts_device_marker_bracket(dev, &b, &stamps_raw, err);
    if (st != STS_OK) return st;
    /* Where the device stamps with the host's raw clock (and every marker agreed), the
     * pairing is the two host clocks', some 40x tighter than any marker's. */
    const char *only = getenv(STS_DEVICE_CLOCK_ENV);
    int markers_only = only && strcmp(only, "markers") == 0;
    if (stamps_raw && !markers_only && stamps_with_raw_clock(dev)) {
        sts_clock_bracket r = raw_bracket();
        if (r.hi >= b.lo && r.lo <= b.hi) b = r;
    }
    *device_ns = b.device_ns;
    *host_ns = b.device_ns + b.lo + (b.hi - b.lo) / 2;
    if (uncertainty_ns) *uncertainty_ns = b.hi - b.lo - (b.hi - b.lo) / 2;
    return STS_OK;
}
