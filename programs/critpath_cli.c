/* `steps --critical-path` and `--what-if`: options and text. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "critpath_cli.h"

#define TOP_INTERVALS 3

int cp_wanted(const cp_opts *o)
{
    return o->critical_path || o->what_if.n > 0;
}

static int top_of(const char *v, size_t *n)
{
    if (strncmp(v, "top=", 4)) return 0;
    char *end;
    long k = strtol(v + 4, &end, 10);
    if (end == v + 4 || *end || k < 1 || k > 64) return -1;
    *n = (size_t)k;
    return 1;
}

int cp_compute(const char *cmd, const cp_opts *o, const sts_timeline *tl, const sts_steps *s, const sts_devview *dv,
               sts_critpath **out)
{
    *out = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_devview *own = NULL;
    if (!dv) {
        sts_devview_options vo = STS_DEVVIEW_OPTIONS_INIT;
        vo.steps = s;
        if (sts_devview_compute(tl, &vo, &own, &err) != STS_OK) {
            cli_say(stderr, "stepscope %s: error: %s\n", cmd, err.message);
            return CLI_BAD_INPUT;
        }
        dv = own;
    }
    sts_critpath *cp = NULL;
    sts_status st = sts_critpath_compute(tl, s, dv, &cp, &err);
    sts_devview_free(own);
    if (st != STS_OK) {
        cli_say(stderr, "stepscope %s: error: %s\n", cmd, err.message);
        return CLI_BAD_INPUT;
    }
    size_t nw;
    const char *const *w = sts_critpath_warnings(cp, &nw);
    for (size_t i = 0; i < nw; i++)
        cli_say(stderr, "stepscope %s: warning: %s\n", cmd, w[i]);
    for (int i = 0; i < o->what_if.n; i++) {
        size_t top = 0;
        int t = top_of(o->what_if.v[i], &top);
        if (t < 0) {
            cli_say(stderr, "stepscope %s: error: --what-if '%s': top=N expects N from 1 to 64\n", cmd,
                    o->what_if.v[i]);
            sts_critpath_free(cp);
            return CLI_USAGE;
        }
        if (t) {
            sts_critpath_what_if_top(cp, top);
            continue;
        }
        if (sts_critpath_what_if(cp, &o->what_if.v[i], 1, NULL, &err) != STS_OK) {
            cli_say(stderr, "stepscope %s: error: %s\n", cmd, err.message);
            sts_critpath_free(cp);
            return err.code == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
        }
    }
    *out = cp;
    return CLI_OK;
}

static void lane_text(const sts_timeline *tl, uint32_t lane, char *buf, size_t n)
{
    if (lane == STS_NONE) {
        snprintf(buf, n, "-");
        return;
    }
    const char *t = sts_lane_thread_name(tl, lane);
    if (*t)
        snprintf(buf, n, "%s (pid %s)", t, sts_lane_pid(tl, lane));
    else
        snprintf(buf, n, "pid %s tid %s", sts_lane_pid(tl, lane), sts_lane_tid(tl, lane));
}

void cp_print_step(const sts_timeline *tl, const sts_critpath *cp, size_t k)
{
    size_t n;
    const sts_cp_step *ps = sts_critpath_steps(cp, &n);
    if (k >= n) return;
    ps += k;
    if (!ps->known) {
        printf("%9scritical path: unknown (the step's lane holds nothing to follow)\n", "");
        return;
    }
    char d[32];
    sts_fmt_duration((double)ps->length_ns, d, sizeof d);
    printf("%9scritical path %s:", "", d);
    for (int c = 0; c < STS_CP_KINDS; c++)
        if (ps->by_kind_ns[c])
            printf(" %s %.1f%%", sts_cp_kind_name((sts_cp_kind)c),
                   ps->length_ns ? 100.0 * (double)ps->by_kind_ns[c] / (double)ps->length_ns : 0.0);
    printf("\n");
    const sts_cp_interval *iv = sts_critpath_intervals(cp, NULL) + ps->first_interval;
    const sts_slice *sl = sts_timeline_slices(tl, NULL);
    uint32_t pick[TOP_INTERVALS];
    size_t np = 0;
    for (uint32_t i = 0; i < ps->interval_count; i++) {
        size_t at = np < TOP_INTERVALS ? np++ : TOP_INTERVALS;
        while (at > 0 && iv[pick[at - 1]].dur_ns < iv[i].dur_ns) {
            if (at < TOP_INTERVALS) pick[at] = pick[at - 1];
            at--;
        }
        if (at < TOP_INTERVALS) pick[at] = i;
    }
    for (size_t i = 0; i < np; i++) {
        const sts_cp_interval *x = &iv[pick[i]];
        char lane[200];
        lane_text(tl, x->lane, lane, sizeof lane);
        sts_fmt_duration((double)x->dur_ns, d, sizeof d);
        printf("%11s%s %s on %s: %s\n", "", x->slice == STS_NONE ? "(gap)" : sts_timeline_string(tl, sl[x->slice].name),
               sts_cp_kind_name((sts_cp_kind)x->kind), lane, d);
    }
}

void cp_print_summary(const sts_critpath *cp)
{
    size_t n;
    const sts_cp_step *ps = sts_critpath_steps(cp, &n);
    int64_t by[STS_CP_KINDS] = { 0 }, total = 0;
    size_t known = 0;
    for (size_t k = 0; k < n; k++) {
        if (!ps[k].known) continue;
        known++;
        total += ps[k].length_ns;
        for (int c = 0; c < STS_CP_KINDS; c++)
            by[c] += ps[k].by_kind_ns[c];
    }
    const sts_critpath_counts *cn = sts_critpath_get_counts(cp);
    printf("\ncritical path: %zu of %zu steps known; %.3f ms in all:", known, n, (double)total / 1e6);
    for (int c = 0; c < STS_CP_KINDS; c++)
        if (by[c])
            printf(" %s %.1f%%", sts_cp_kind_name((sts_cp_kind)c), total ? 100.0 * (double)by[c] / (double)total : 0.0);
    printf("\n  graph: %" PRIu64 " nodes, %" PRIu64 " edges (program %" PRIu64 ", launch %" PRIu64 ", stream %" PRIu64
           ", sync %" PRIu64 ", flow %" PRIu64 ", stream_wait %" PRIu64 "); dropped: %" PRIu64
           " pointing back in time, %" PRIu64 " breaking cycles\n",
           cn->nodes, cn->edges, cn->by_type[0], cn->by_type[1], cn->by_type[2], cn->by_type[3], cn->by_type[4],
           cn->by_type[5], cn->backward, cn->cycles);
    size_t np;
    const sts_cp_prediction *p = sts_critpath_predictions(cp, &np);
    if (!np) return;
    printf("\nwhat-if (each step's graph replayed with the change; predictions, not measurements)\n");
    for (size_t i = 0; i < np; i++) {
        printf("  %s: predicted step %.3f ms (median), ", p[i].change, (double)p[i].predicted_step_ns / 1e6);
        if (isnan(p[i].change_pct))
            printf("change unknown");
        else
            printf("%+.1f%% in all (steps %+.1f%% to %+.1f%%)", p[i].change_pct, p[i].min_pct, p[i].max_pct);
        printf("%s; %" PRIu64 " events scaled\n", p[i].path_moved ? "; the path moved to another lane" : "",
               p[i].matched);
        printf("    --expect '%s'\n", p[i].expect);
    }
}
