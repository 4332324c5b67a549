/* Two traces' device views compared per step: rows `device.busy`, `device.idle`,
 * `device.host_wait`, `device.kernel_wait`, `device.compute`, `device.communication`,
 * `communication.exposed`, `device.memcpy`, `device.memset` and `device.launch_delay`
 * (docs/diff.md), so a prediction such as `--expect device.idle:shrink` or
 * `--expect communication.exposed:shrink>=30%` is judged like any other. A step's value
 * is summed over the run's devices (the delay: the median of each device's medians is
 * not a median, so the row takes the first device's); a step whose value the trace
 * cannot tell (no op linked to its launch) is left out of that row, never counted 0. */
#include <stdlib.h>
#include <string.h>

#include "diff/diff_impl.h"
#include "stepscope/devview.h"

enum { R_BUSY, R_IDLE, R_HOST, R_KERNEL, R_COMPUTE, R_COMM, R_EXPOSED, R_MEMCPY, R_MEMSET, R_DELAY, R_COUNT };

static const struct {
    const char *name, *note;
} ROWS[R_COUNT] = {
    { "device.busy", "the devices' busy time in each step (each device the union of its streams), summed" },
    { "device.idle", "the devices' idle time in each step, summed" },
    { "device.host_wait", "idle with nothing launched: the host had not launched the next work yet" },
    { "device.kernel_wait", "idle with work launched and not started" },
    { "device.compute", "compute's union in each step, summed over the devices" },
    { "device.communication", "communication's union in each step, summed over the devices" },
    { "communication.exposed", "communication no compute ran beside, in each step" },
    { "device.memcpy", "memcpy's union in each step" },
    { "device.memset", "memset's union in each step" },
    { "device.launch_delay", "the median launch delay (launch start to device start) of the first device's ops" },
};

/* The row's value for one step of one device, and whether the trace tells it. */
static int value(const sts_devview_window *x, int row, int64_t *out)
{
    switch (row) {
    case R_BUSY:
        *out = x->busy_ns;
        return 1;
    case R_IDLE:
        *out = x->idle_ns;
        return 1;
    case R_HOST:
        *out = x->host_wait_ns;
        return (x->known & STS_DEVVIEW_KNOWN_IDLE_SPLIT) != 0;
    case R_KERNEL:
        *out = x->kernel_wait_ns;
        return (x->known & STS_DEVVIEW_KNOWN_IDLE_SPLIT) != 0;
    case R_COMPUTE:
        *out = x->union_ns[STS_DV_COMPUTE];
        return 1;
    case R_COMM:
        *out = x->union_ns[STS_DV_COMMUNICATION];
        return 1;
    case R_EXPOSED:
        *out = x->exposed_ns;
        return 1;
    case R_MEMCPY:
        *out = x->union_ns[STS_DV_MEMCPY];
        return 1;
    case R_MEMSET:
        *out = x->union_ns[STS_DV_MEMSET];
        return 1;
    case R_DELAY:
        *out = x->delay_median_ns;
        return (x->known & STS_DEVVIEW_KNOWN_DELAY) != 0;
    default:
        return 0;
    }
}

typedef struct side_rows {
    int64_t *v[R_COUNT], *idx[R_COUNT];
    size_t n[R_COUNT];
} side_rows;

static int fill(side_rows *o, const sts_devview *v, const sts_steps *s)
{
    size_t nsteps, nd;
    const sts_step *st = sts_steps_list(s, &nsteps);
    sts_devview_devices(v, &nd);
    for (int r = 0; r < R_COUNT; r++) {
        o->v[r] = malloc((nsteps ? nsteps : 1) * sizeof(int64_t));
        o->idx[r] = malloc((nsteps ? nsteps : 1) * sizeof(int64_t));
        if (!o->v[r] || !o->idx[r]) return -1;
    }
    for (size_t k = 0; k < nsteps && nd; k++) {
        const sts_devview_window *w = sts_devview_step_windows(v, k, NULL);
        for (int r = 0; r < R_COUNT; r++) {
            int64_t sum = 0, x;
            int known = 1;
            for (size_t d = 0; d < (r == R_DELAY ? 1 : nd) && known; d++) {
                known = value(&w[d], r, &x);
                sum += x;
            }
            if (!known) continue;
            o->v[r][o->n[r]] = sum;
            o->idx[r][o->n[r]++] = st[k].index;
        }
    }
    return 0;
}

sts_status sts_dd_device_rows(sts_diff *d, const sts_timeline *const *tl, sts_steps *const *steps, sts_error *err)
{
    sts_devview *v[2] = { NULL, NULL };
    side_rows rows[2];
    memset(rows, 0, sizeof rows);
    sts_status st = STS_OK;
    size_t ndev[2] = { 0, 0 };
    for (int i = 0; i < 2 && st == STS_OK; i++) {
        sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
        o.steps = steps[i];
        st = sts_devview_compute(tl[i], &o, &v[i], err);
        if (st == STS_OK) sts_devview_devices(v[i], &ndev[i]);
    }
    /* Neither run has device ops: no device rows, as a trace without lanes has no lane rows. */
    if (st == STS_OK && (ndev[0] || ndev[1])) {
        for (int i = 0; i < 2 && st == STS_OK; i++)
            if (fill(&rows[i], v[i], steps[i]) != 0) st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
        for (int r = 0; r < R_COUNT && st == STS_OK; r++) {
            if (!rows[0].n[r] && !rows[1].n[r]) continue;
            sts_dd_series b = { rows[0].v[r], rows[0].idx[r], rows[0].n[r] };
            sts_dd_series n = { rows[1].v[r], rows[1].idx[r], rows[1].n[r] };
            st = sts_dd_add_samples(d, ROWS[r].name, "device", "ns", "step", b, n, ROWS[r].note, err);
        }
    }
    for (int i = 0; i < 2; i++) {
        for (int r = 0; r < R_COUNT; r++) {
            free(rows[i].v[r]);
            free(rows[i].idx[r]);
        }
        sts_devview_free(v[i]);
    }
    return st;
}
