/* Two traces' device memory compared per step: the row memory.peak holds, per step, the
 * most bytes in use on any device during it (stepscope/memory.h), so `--expect
 * memory.peak:shrink` or `same<=2%` gates a change that was meant to save memory. A
 * step whose peak some device cannot tell is no sample (unknown, never 0). */
#include <stdlib.h>

#include "diff/diff_impl.h"
#include "stepscope/memory.h"

/* The per-step peaks of one run into v/ix (n of them); 0, or -1 out of memory. */
static int peaks(const sts_timeline *tl, const sts_steps *s, int64_t **v, int64_t **ix, size_t *n, size_t *devices)
{
    *v = *ix = NULL;
    *n = *devices = 0;
    if (!s) return 0;
    sts_memory_options mo = STS_MEMORY_OPTIONS_INIT;
    mo.steps = s;
    mo.top = 1;
    sts_memory *m = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_memory_find(tl, &mo, &m, &err);
    if (st != STS_OK) return st == STS_ERR_NOMEM ? -1 : 0;
    size_t nst;
    const sts_step *list = sts_steps_list(s, &nst);
    sts_memory_devices(m, devices);
    *v = malloc((nst ? nst : 1) * sizeof **v);
    *ix = malloc((nst ? nst : 1) * sizeof **ix);
    if (!*v || !*ix) {
        sts_memory_free(m);
        return -1;
    }
    for (size_t k = 0; *devices && k < nst; k++) {
        size_t ne;
        const sts_memory_step *e = sts_memory_step_entries(m, k, &ne);
        int64_t most = -1;
        int known = ne > 0;
        for (size_t i = 0; i < ne; i++) {
            if (e[i].peak_bytes < 0) known = 0;
            if (e[i].peak_bytes > most) most = e[i].peak_bytes;
        }
        if (!known) continue;
        (*v)[*n] = most;
        (*ix)[*n] = list[k].index;
        (*n)++;
    }
    sts_memory_free(m);
    return 0;
}

sts_status sts_dd_memory_rows(sts_diff *d, const sts_timeline *const tl[2], const sts_steps *const steps[2],
                              sts_error *err)
{
    int64_t *v[2], *ix[2];
    size_t n[2], dev[2];
    int bad = 0;
    for (int side = 0; side < 2; side++)
        bad |= peaks(tl[side], steps[side], &v[side], &ix[side], &n[side], &dev[side]) != 0;
    sts_status st = STS_OK;
    if (bad) {
        st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    } else if (dev[0] || dev[1]) {
        sts_dd_series b = { v[0], ix[0], n[0] }, nw = { v[1], ix[1], n[1] };
        st = sts_dd_add_samples(d, "memory.peak", "memory", "bytes", "step", b, nw,
                                "the most bytes in use on any device during the step (docs/memory.md)", err);
    }
    for (int side = 0; side < 2; side++) {
        free(v[side]);
        free(ix[side]);
    }
    return st;
}
