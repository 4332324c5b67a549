/* The trace section's critical-path figures (docs/critical-path.md): per step, a bar of
 * its critical path split by kind, whose segments tile the step exactly; the intervals
 * that spent the most time on the paths over all steps; and what halving the top ones
 * would predict, as `diff --expect` lines to check once the change is made. A step whose
 * path is unknown (its lane held no segment) is drawn as one hatched "unknown" segment,
 * never as a zero. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_impl.h"
#include "stepscope/critpath.h"

#define MAX_STEPS_DRAWN 60
#define MAX_TOP         12
#define WHAT_IF_TOP     5
#define MAX_WARNINGS    5

static const char HOW_CRITPATH[] =
    "One bar per step, as tall as the step: the chain of work that decided when the step ended (its critical path), "
    "split by kind. The path's intervals tile the step, so the segments add up to it exactly: host compute, launch "
    "calls and launch delays, synchronization waits past the work they waited for, device work by category, and "
    "idle time no traced slice explains. A hatched bar is a step whose path is unknown (its thread held no "
    "segment), not a zero. Definitions in docs/critical-path.md; `stepscope steps --critical-path` lists the "
    "intervals.";

static const char HOW_TOP[] =
    "Each bar is the time one name spent on the critical paths, summed over every step, longest first, with how "
    "many path intervals it made. Time off the path does not count: shortening a name that is not here cannot "
    "shorten a step until the path moves. Idle gaps are named by their kind.";

/* Stacking order: the kinds, memset and other device work drawn as one series so the
 * eight fills stay distinct. The remainder is what is not known. */
static const char *const SERIES[] = { "host",    "launch",        "sync_wait", "idle",
                                      "compute", "communication", "memcpy",    "memset, other device" };
#define NSERIES (sizeof SERIES / sizeof SERIES[0])

static size_t series_of(int kind)
{
    switch (kind) {
    case STS_CP_HOST:
        return 0;
    case STS_CP_LAUNCH:
        return 1;
    case STS_CP_SYNC:
        return 2;
    case STS_CP_IDLE:
        return 3;
    case STS_CP_COMPUTE:
        return 4;
    case STS_CP_COMMUNICATION:
        return 5;
    case STS_CP_MEMCPY:
        return 6;
    default:
        return 7;
    }
}

static sts_status bars(sts_report *r, sts_rpt_section *sec, const sts_steps *st, const sts_critpath *cp,
                       const char *step_name)
{
    size_t n, ncp;
    const sts_step *steps = sts_steps_list(st, &n);
    const sts_cp_step *ps = sts_critpath_steps(cp, &ncp);
    if (ncp < n) n = ncp;
    sts_rpt_steps *s = sts_rpt_steps_new(r, steps, n, MAX_STEPS_DRAWN, SERIES, NSERIES);
    if (!s) return STS_ERR_NOMEM;
    s->title = "The critical path of each step, by kind";
    s->rem_label = "unknown (no path found)";
    s->step_name = step_name;
    for (size_t k = 0; k < s->nsteps; k++) {
        if (!ps[k].known) { /* the whole step unknown: hatched, never zeros */
            s->total_ns[k] = (double)steps[k].dur;
            s->rem_ns[k] = (double)steps[k].dur;
            continue;
        }
        double sum = 0;
        for (int c = 0; c < STS_CP_KINDS; c++) {
            size_t j = series_of(c);
            s->child_ns[k * NSERIES + j] += (double)ps[k].by_kind_ns[c];
            s->child_count[k * NSERIES + j] += ps[k].by_kind_ns[c] > 0;
            sum += (double)ps[k].by_kind_ns[c];
        }
        s->total_ns[k] = (double)ps[k].length_ns;
        s->rem_ns[k] = (double)ps[k].length_ns - sum; /* 0: the kinds add up to the path */
    }
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_STEPS, "fig-critpath", s, HOW_CRITPATH)) return STS_ERR_NOMEM;
    return STS_OK;
}

typedef struct top_item {
    const char *name; /* slice name, or NULL for a gap */
    uint32_t kind;
    double ns;
    uint32_t count;
} top_item;

static int cmp_key(const void *a, const void *b)
{
    const top_item *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name ? x->name : "", y->name ? y->name : "");
}

static int cmp_time(const void *a, const void *b)
{
    const top_item *x = a, *y = b;
    if (x->ns != y->ns) return x->ns < y->ns ? 1 : -1;
    return cmp_key(a, b);
}

static const char *top_label(sts_report *r, const top_item *t)
{
    char buf[400];
    if (t->name)
        snprintf(buf, sizeof buf, "%s (%s)", t->name, sts_cp_kind_name((sts_cp_kind)t->kind));
    else
        snprintf(buf, sizeof buf, "%s gap (no slice)", sts_cp_kind_name((sts_cp_kind)t->kind));
    return sts_rpt_strdup(r, buf);
}

/* Sums the path intervals of every step by (name, kind), longest first. */
static sts_status top_intervals(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_critpath *cp)
{
    size_t ni;
    const sts_cp_interval *iv = sts_critpath_intervals(cp, &ni);
    if (!ni) return STS_OK;
    const sts_slice *sl = sts_timeline_slices(tl, NULL);
    top_item *t = calloc(ni, sizeof *t);
    if (!t) return STS_ERR_NOMEM;
    for (size_t i = 0; i < ni; i++) {
        const char *name = iv[i].slice == STS_NONE ? NULL : sts_timeline_string(tl, sl[iv[i].slice].name);
        t[i] = (top_item){ name, iv[i].kind, (double)iv[i].dur_ns, 1 };
    }
    qsort(t, ni, sizeof *t, cmp_key);
    size_t nt = 0;
    for (size_t i = 0; i < ni; i++) {
        if (nt && cmp_key(&t[nt - 1], &t[i]) == 0) {
            t[nt - 1].ns += t[i].ns;
            t[nt - 1].count++;
        } else {
            t[nt++] = t[i];
        }
    }
    qsort(t, nt, sizeof *t, cmp_time);
    size_t shown = nt < MAX_TOP ? nt : MAX_TOP;
    sts_rpt_hbars *h = sts_rpt_alloc(r, sizeof *h);
    sts_status s = STS_ERR_NOMEM;
    if (h) {
        h->names = sts_rpt_alloc(r, (shown + 1) * sizeof *h->names);
        h->ns = sts_rpt_alloc(r, (shown + 1) * sizeof *h->ns);
        h->counts = sts_rpt_alloc(r, (shown + 1) * sizeof *h->counts);
        h->title = "Time on the critical paths, by name";
        h->axis_title = "time on the path, summed over the steps";
        h->count_word = "interval";
        h->data_name = "intervals";
        h->n = shown;
        s = h->names && h->ns && h->counts ? STS_OK : STS_ERR_NOMEM;
        for (size_t i = 0; i < shown && s == STS_OK; i++) {
            h->names[i] = top_label(r, &t[i]);
            h->ns[i] = t[i].ns;
            h->counts[i] = t[i].count;
            if (!h->names[i]) s = STS_ERR_NOMEM;
        }
    }
    if (s == STS_OK && !sts_rpt_add_fig(r, sec, STS_RPT_FIG_HBARS, "fig-critpath-top", h, HOW_TOP)) s = STS_ERR_NOMEM;
    if (s == STS_OK && nt > shown) {
        char note[160];
        snprintf(note, sizeof note,
                 "%zu more names on the paths not drawn (stepscope steps --critical-path --json "
                 "lists every interval).",
                 nt - shown);
        if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note)) s = STS_ERR_NOMEM;
    }
    free(t);
    return s;
}

/* What halving each of the names that would save most predicts: a prediction, made
 * before the change, that `diff --expect` checks after it. */
static sts_status what_if_facts(sts_report *r, sts_rpt_section *sec, sts_critpath *cp)
{
    size_t kept = sts_critpath_what_if_top(cp, WHAT_IF_TOP), np;
    if (!kept) return STS_OK;
    const sts_cp_prediction *p = sts_critpath_predictions(cp, &np);
    if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE,
                          "What-if, before making a change: what halving each name that would save the most "
                          "predicts for the median step (stepscope steps --what-if NAME=0.5x makes the same "
                          "prediction). Make the change, record again and let diff judge the line."))
        return STS_ERR_NOMEM;
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    if (!f) return STS_ERR_NOMEM;
    for (size_t i = 0; i < np; i++) {
        char med[48];
        sts_fmt_duration((double)p[i].predicted_step_ns, med, sizeof med);
        if (!isfinite(p[i].change_pct)) {
            sts_rpt_fact(r, f, p[i].change, "unknown (no step with a known path)");
            continue;
        }
        sts_rpt_fact(r, f, p[i].change,
                     "median step %s (%+.1f%%, per step %+.1f%% to %+.1f%%)%s; check with diff "
                     "--expect '%s'",
                     med, p[i].change_pct, p[i].min_pct, p[i].max_pct,
                     p[i].path_moved ? ", the path moves to another lane" : "", p[i].expect);
    }
    return STS_OK;
}

sts_status sts_rpt_critpath_figures(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_steps *st,
                                    const sts_devview *dv, const char *step_name)
{
    size_t n;
    sts_steps_list(st, &n);
    if (!n) return STS_OK;
    sts_critpath *cp = NULL;
    sts_status s = sts_critpath_compute(tl, st, dv, &cp, NULL);
    if (s != STS_OK) return s;
    if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "The critical path of each step")) s = STS_ERR_NOMEM;
    if (s == STS_OK) s = bars(r, sec, st, cp, step_name);
    if (s == STS_OK) s = top_intervals(r, sec, tl, cp);
    if (s == STS_OK) s = what_if_facts(r, sec, cp);
    size_t nw;
    const char *const *w = sts_critpath_warnings(cp, &nw);
    for (size_t i = 0; s == STS_OK && i < nw && i < MAX_WARNINGS; i++)
        if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, w[i])) s = STS_ERR_NOMEM;
    if (s == STS_OK && nw > MAX_WARNINGS) {
        char note[160];
        snprintf(note, sizeof note, "%zu more critical-path warnings (stepscope steps --critical-path prints them).",
                 nw - MAX_WARNINGS);
        if (!sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note)) s = STS_ERR_NOMEM;
    }
    sts_critpath_free(cp);
    return s;
}
