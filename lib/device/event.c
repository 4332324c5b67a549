/* device: event-backed handles. One sts_event may stand for several OpenCL commands
 * that together make one operation. */
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "device/device_impl.h"

sts_event *sts_event_wrap(const char *name, const cl_event *cl, unsigned n)
{
    sts_event *ev = calloc(1, sizeof *ev);
    if (!ev || n > STS_EVENT_MAX_CL) {
        for (unsigned i = 0; i < n; i++)
            clReleaseEvent(cl[i]);
        free(ev);
        return NULL;
    }
    ev->refs = 1;
    ev->n = n;
    memcpy(ev->cl, cl, n * sizeof *cl);
    ev->host_ns = sts_clock_ns();
    ev->done_ns = -1;
    size_t len = strlen(name);
    if (len >= sizeof ev->name) len = sizeof ev->name - 1;
    memcpy(ev->name, name, len);
    ev->name[len] = 0;
    return ev;
}

sts_event *sts_event_join(const char *name, sts_event *const *evs, size_t n)
{
    cl_event cl[STS_EVENT_MAX_CL] = { 0 };
    unsigned total = 0;
    for (size_t i = 0; i < n; i++) {
        if (total + evs[i]->n > STS_EVENT_MAX_CL) {
            for (unsigned j = 0; j < total; j++)
                clReleaseEvent(cl[j]);
            return NULL;
        }
        for (unsigned j = 0; j < evs[i]->n; j++) {
            clRetainEvent(evs[i]->cl[j]);
            cl[total++] = evs[i]->cl[j];
        }
    }
    sts_event *joined = sts_event_wrap(name, cl, total);
    /* The operation was issued when its first part was. */
    if (joined && n) joined->host_ns = evs[0]->host_ns;
    return joined;
}

sts_event *sts_event_retain(sts_event *ev)
{
    if (ev) ev->refs++;
    return ev;
}

void sts_event_release(sts_event *ev)
{
    if (!ev || --ev->refs > 0) return;
    for (unsigned i = 0; i < ev->n; i++)
        clReleaseEvent(ev->cl[i]);
    free(ev);
}

const char *sts_event_name(const sts_event *ev)
{
    return ev->name;
}

int64_t sts_event_host_ns(const sts_event *ev)
{
    return ev->host_ns;
}

/* How long sts_ready polls before it sleeps in clWaitForEvents. A blocking wait on
 * PoCL sleeps on a condition variable, and the wake-up adds several microseconds to
 * every short call; polling briefly catches short work as it ends. Long work still
 * sleeps, after at most this much spinning. */
#define SPIN_NS 50000

/* 1 when every command of the events has completed, 0 when one is still pending or
 * failed (the blocking wait then reports the failure). */
static int all_done(sts_event *const *events, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (!events[i]) continue;
        for (unsigned j = 0; j < events[i]->n; j++) {
            cl_int state = CL_QUEUED;
            if (clGetEventInfo(events[i]->cl[j], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL) !=
                    CL_SUCCESS ||
                state != CL_COMPLETE)
                return 0;
        }
    }
    return 1;
}

static int spin_until_done(sts_event *const *events, size_t n)
{
    int64_t until = sts_clock_ns() + SPIN_NS;
    do {
        if (all_done(events, n)) return 1;
    } while (sts_clock_ns() < until);
    return 0;
}

/* Notes when the host first knew the events complete: a clock read after the call that
 * said so, so after every END stamp of theirs (the trace recorder bounds device times
 * with it). */
static void seen_done(sts_event *const *events, size_t n)
{
    int64_t now = sts_clock_ns();
    for (size_t i = 0; i < n; i++)
        if (events[i] && events[i]->done_ns < 0) events[i]->done_ns = now;
}

static sts_status wait_all(sts_event *const *events, size_t n, sts_error *err)
{
    cl_event batch[64];
    size_t nb = 0;
    for (size_t i = 0; i < n; i++) {
        if (!events[i]) continue;
        for (unsigned j = 0; j < events[i]->n; j++) {
            if (nb == sizeof batch / sizeof batch[0]) {
                cl_int rc = clWaitForEvents((cl_uint)nb, batch);
                if (rc != CL_SUCCESS) return sts_cl_fail(err, "waiting for device work", rc);
                nb = 0;
            }
            batch[nb++] = events[i]->cl[j];
        }
    }
    if (nb == 0) return STS_OK;
    cl_int rc = clWaitForEvents((cl_uint)nb, batch);
    if (rc != CL_SUCCESS) return sts_cl_fail(err, "waiting for device work", rc);
    return STS_OK;
}

sts_status sts_ready(sts_event *const *events, size_t n, sts_error *err)
{
    sts_status st = spin_until_done(events, n) ? STS_OK : wait_all(events, n, err);
    if (st == STS_OK) seen_done(events, n);
    return st;
}

int64_t sts_event_done_ns(const sts_event *ev)
{
    return ev->done_ns;
}

sts_status sts_event_wait(sts_event *ev, sts_error *err)
{
    return sts_ready(&ev, 1, err);
}

int sts_event_done(const sts_event *ev)
{
    int done = 1;
    for (unsigned i = 0; i < ev->n; i++) {
        cl_int state = CL_QUEUED;
        if (clGetEventInfo(ev->cl[i], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof state, &state, NULL) != CL_SUCCESS)
            return -1;
        if (state < 0) return -1;
        if (state != CL_COMPLETE) done = 0;
    }
    return done;
}

static cl_int stamp(cl_event e, cl_profiling_info what, int64_t *out)
{
    cl_ulong v = 0;
    cl_int rc = clGetEventProfilingInfo(e, what, sizeof v, &v, NULL);
    *out = (int64_t)v;
    return rc;
}

sts_status sts_event_get_times(const sts_event *ev, sts_event_times *out, sts_error *err)
{
    int done = sts_event_done(ev);
    if (done < 0) return sts_error_set(err, STS_ERR_DEVICE, -1, "event '%s' failed on the device", ev->name);
    if (!done)
        return sts_error_set(err, STS_ERR_STATE, -1,
                             "event '%s' has not completed: wait for it (sts_ready) before reading its times",
                             ev->name);
    sts_event_times t = { 0, 0, INT64_MAX, INT64_MIN };
    for (unsigned i = 0; i < ev->n; i++) {
        int64_t q, s, b, e;
        cl_int rc = stamp(ev->cl[i], CL_PROFILING_COMMAND_QUEUED, &q);
        if (rc == CL_SUCCESS) rc = stamp(ev->cl[i], CL_PROFILING_COMMAND_SUBMIT, &s);
        if (rc == CL_SUCCESS) rc = stamp(ev->cl[i], CL_PROFILING_COMMAND_START, &b);
        if (rc == CL_SUCCESS) rc = stamp(ev->cl[i], CL_PROFILING_COMMAND_END, &e);
        if (rc != CL_SUCCESS) return sts_cl_fail(err, "clGetEventProfilingInfo", rc);
        if (i == 0) {
            t.queued = q;
            t.submit = s;
        }
        if (b < t.start) t.start = b;
        if (e > t.end) t.end = e;
    }
    if (ev->n == 0) t.start = t.end = 0;
    *out = t;
    return STS_OK;
}

int64_t sts_event_device_ns(const sts_event *ev)
{
    sts_event_times t;
    if (!ev || sts_event_get_times(ev, &t, NULL) != STS_OK || ev->n == 0) return -1;
    return t.end - t.start;
}

int64_t sts_events_span_ns(sts_event *const *events, size_t n)
{
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        sts_event_times t;
        if (!events[i]) continue;
        if (events[i]->n == 0 || sts_event_get_times(events[i], &t, NULL) != STS_OK) return -1;
        if (t.start < lo) lo = t.start;
        if (t.end > hi) hi = t.end;
    }
    return hi >= lo ? hi - lo : -1;
}
