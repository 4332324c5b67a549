/* `demo diff`'s prediction: the what-if on BASE's critical paths, then beside the diff. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lesson3_predict.h"

/* BASE's input_wait durations: their median, and their least in *least; 0 when there
 * are none. */
static int64_t median_wait(const sts_timeline *tl, int64_t *least)
{
    size_t n, k = 0;
    const sts_slice *sl = sts_timeline_slices(tl, &n);
    uint32_t id = sts_timeline_find_string(tl, "input_wait");
    int64_t *v = malloc((n ? n : 1) * sizeof *v);
    if (!v || id == STS_NONE) {
        free(v);
        return 0;
    }
    *least = 0;
    for (size_t i = 0; i < n; i++)
        if (sl[i].name == id) {
            if (!k || sl[i].dur < *least) *least = sl[i].dur;
            v[k++] = sl[i].dur;
        }
    int64_t m = sts_median_i64(v, k);
    free(v);
    return m;
}

static sts_status what_if(sts_critpath *cp, const char *change, sts_cp_prediction *out, sts_error *err)
{
    return sts_critpath_what_if(cp, &change, 1, out, err);
}

sts_status l3_predict(const sts_timeline *base, long base_wait_us, long new_wait_us, l3_prediction *out, sts_error *err)
{
    memset(out, 0, sizeof *out);
    out->observed_ns = median_wait(base, &out->least_ns);
    if (out->observed_ns <= 0)
        return sts_error_set(err, STS_ERR_FORMAT, -1, "demo diff: BASE holds no input_wait to predict from");
    /* The least overshoot is the wake-up's; more was the machine's load at the time. */
    double over = (double)out->least_ns - (double)base_wait_us * 1000.0;
    if (over < 0) over = 0;
    double f = ((double)new_wait_us * 1000.0 + over) / (double)out->observed_ns;
    snprintf(out->change, sizeof out->change, "input_wait=%.4f", f);
    char naive[64];
    snprintf(naive, sizeof naive, "input_wait=%.4f", (double)new_wait_us / (double)base_wait_us);
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = "learner_step";
    sts_steps *s = NULL;
    sts_devview *dv = NULL;
    sts_critpath *cp = NULL;
    sts_status st = sts_steps_find(base, &so, &s, err);
    sts_devview_options vo = STS_DEVVIEW_OPTIONS_INIT;
    vo.steps = s;
    if (st == STS_OK) st = sts_devview_compute(base, &vo, &dv, err);
    if (st == STS_OK) st = sts_critpath_compute(base, s, dv, &cp, err);
    if (st == STS_OK) st = what_if(cp, out->change, &out->cut, err);
    if (st == STS_OK) st = what_if(cp, naive, &out->naive, err);
    sts_critpath_free(cp);
    sts_devview_free(dv);
    sts_steps_free(s);
    return st;
}

void l3_print_prediction(const l3_prediction *p)
{
    char obs[32], least[32];
    sts_fmt_duration((double)p->observed_ns, obs, sizeof obs);
    sts_fmt_duration((double)p->least_ns, least, sizeof least);
    printf("\nprediction, from BASE alone (its critical paths replayed with the change; docs/critical-path.md):\n"
           "  BASE's input_wait takes %s (median; least %s): the asked-for wait plus the sleep's overshoot,\n"
           "  whose least part (the wake-up) a shorter sleep keeps. Scaling input_wait to what the cut leaves:\n"
           "    stepscope steps BASE --step learner_step --what-if %s\n"
           "  predicts the step %+.1f%% (steps %+.1f%% to %+.1f%%), median step %.3f ms: --expect '%s'\n"
           "  (scaling the whole wait by the asked-for ratio, overshoot and all, would predict %+.1f%%).\n",
           obs, least, p->change, p->cut.change_pct, p->cut.min_pct, p->cut.max_pct,
           (double)p->cut.predicted_step_ns / 1e6, p->cut.expect, p->naive.change_pct);
}

void l3_print_outcome(const l3_prediction *p, const sts_diff *d)
{
    size_t n;
    const sts_diff_interval *rows = sts_diff_intervals(d, &n);
    const sts_diff_stats *st = NULL;
    for (size_t i = 0; i < n && !st; i++)
        if (!strcmp(rows[i].key, "step")) st = &rows[i].stats;
    if (!st || isnan(st->change_pct) || isnan(p->cut.change_pct)) {
        printf("prediction beside outcome: the step's change is unknown\n");
        return;
    }
    int inside = p->cut.change_pct >= st->ci_low_pct && p->cut.change_pct <= st->ci_high_pct;
    printf("prediction beside outcome (the step, over %zu vs %zu steps):\n"
           "  predicted %+.1f%% (what-if on BASE)   measured %+.1f%% (95%% CI %+.1f%% to %+.1f%%, diff)\n"
           "  the prediction lies %s the measured interval%s\n",
           st->n_base, st->n_new, p->cut.change_pct, st->change_pct, st->ci_low_pct, st->ci_high_pct,
           inside ? "inside" : "outside",
           inside ? "." : ": the replay holds what it does not model fixed (docs/critical-path.md, Limits).");
}
