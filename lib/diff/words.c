/* Numbers and sentences for people: durations in one unit per pair, signed percents,
 * and the one sentence that describes a row's change. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/diff_impl.h"

#define MINUS "\xe2\x88\x92" /* U+2212, as typeset: "−80%" */
#define ARROW "\xe2\x86\x92" /* U+2192 */

static void unit_of(double mag, double *scale, const char **unit)
{
    if (mag < 1e3) {
        *scale = 1;
        *unit = "ns";
    } else if (mag < 1e6) {
        *scale = 1e3;
        *unit = "\xc2\xb5s"; /* µs, as stepscope/format.h writes it */
    } else if (mag < 1e9) {
        *scale = 1e6;
        *unit = "ms";
    } else {
        *scale = 1e9;
        *unit = "s";
    }
}

/* Both values of a pair in one unit, so they compare at a glance ("1.07 ms → 0.21 ms"
 * rather than sts_fmt_duration()'s "1.07 ms → 210 µs"): three significant digits for
 * the larger, the same decimals for the other. */
void sts_dd_fmt_pair(int64_t a, int64_t b, char *abuf, char *bbuf, size_t cap)
{
    double big = fmax(fabs((double)a), fabs((double)b)), scale;
    const char *unit;
    unit_of(big, &scale, &unit);
    double v = big / scale;
    int dec = scale == 1 ? 0 : v >= 100 ? 0 : v >= 10 ? 1 : 2;
    snprintf(abuf, cap, "%.*f %s", dec, (double)a / scale, unit);
    snprintf(bbuf, cap, "%.*f %s", dec, (double)b / scale, unit);
}

static void fmt_signed(double x, int dec, const char *suffix, char *buf, size_t cap)
{
    if (x == 0) dec = 0;
    snprintf(buf, cap, "%s%.*f%s", x < 0 ? MINUS : x > 0 ? "+" : "", dec, fabs(x), suffix);
}

void sts_dd_fmt_pct(double pct, char *buf, size_t cap)
{
    if (!isfinite(pct)) {
        snprintf(buf, cap, "%s", isnan(pct) ? "unknown" : pct < 0 ? MINUS "inf%" : "+inf%");
        return;
    }
    double a = fabs(pct);
    fmt_signed(pct, a >= 10 ? 0 : a >= 1 ? 1 : 2, "%", buf, cap);
}

/* A signed duration for interval ends when no percent exists. */
static void fmt_signed_dur(double ns, char *buf, size_t cap)
{
    double scale;
    const char *unit;
    unit_of(fabs(ns), &scale, &unit);
    char sfx[8];
    snprintf(sfx, sizeof sfx, " %s", unit);
    double v = fabs(ns) / scale;
    fmt_signed(ns / scale, scale == 1 ? 0 : v >= 100 ? 0 : v >= 10 ? 1 : 2, sfx, buf, cap);
}

/* "input_wait", or "predict first call" for a row that is not its name's main one. */
static void label_of(const sts_diff_interval *r, char *buf, size_t cap)
{
    static const struct {
        const char *group, *words;
    } extra[] = { { "first_call", "first call" },
                  { "device", "device time" },
                  { "dispatch", "dispatch-only" },
                  { "specializations", "specializations" },
                  { "traces", "traces" },
                  { "compile_time", "compile time" },
                  { "syncs", "syncs" },
                  { "compiles", "compiles" } };
    for (size_t i = 0; i < sizeof extra / sizeof extra[0]; i++) {
        if (strcmp(r->group, extra[i].group) == 0) {
            snprintf(buf, cap, "%s %s", r->name, extra[i].words);
            return;
        }
    }
    snprintf(buf, cap, "%s", r->name);
}

#define PLURAL(n) ((n) == 1 ? "" : "s")

static void values_pair(const sts_diff_interval *r, char *a, char *b, size_t cap)
{
    if (strcmp(r->unit, "count") == 0 || strcmp(r->unit, "bytes") == 0) {
        const char *u = r->unit[0] == 'b' ? " B" : "";
        snprintf(a, cap, "%" PRId64 "%s", r->stats.median_base, u);
        snprintf(b, cap, "%" PRId64 "%s", r->stats.median_new, u);
    } else {
        sts_dd_fmt_pair(r->stats.median_base, r->stats.median_new, a, b, cap);
    }
}

static void one_side(const sts_diff *d, const sts_diff_interval *r, int side, char *buf, size_t cap)
{
    size_t n = side ? r->stats.n_new : r->stats.n_base;
    int64_t med = side ? r->stats.median_new : r->stats.median_base;
    char v[48], dummy[48];
    if (strcmp(r->unit, "count") == 0 || strcmp(r->unit, "bytes") == 0)
        snprintf(v, sizeof v, "%" PRId64 "%s", med, r->unit[0] == 'b' ? " B" : "");
    else
        sts_dd_fmt_pair(med, med, v, dummy, sizeof v);
    if (strcmp(r->sample, "run") == 0)
        snprintf(buf, cap, "%s in %s", v, side ? "NEW" : "BASE");
    else
        snprintf(buf, cap, "%zu %s%s in %s, median %s", n, r->sample, PLURAL(n), side ? "NEW" : "BASE", v);
    (void)d;
}

static void interval_words(const sts_diff *d, const sts_diff_interval *r, char *buf, size_t cap)
{
    const sts_diff_stats *s = &r->stats;
    char lo[48], hi[48];
    int conf = (int)lround(d->opt.confidence * 100);
    char p[32];
    snprintf(p, sizeof p, "p = %.2g", s->p_value);
    if (!isfinite(s->ci_low_ns) || !isfinite(s->ci_high_ns)) {
        snprintf(buf, cap, "no %d%% interval from %zu vs %zu %s%s, %s", conf, s->n_base, s->n_new, r->sample,
                 PLURAL(s->n_new), p);
        return;
    }
    if (isfinite(s->ci_low_pct)) {
        sts_dd_fmt_pct(s->ci_low_pct, lo, sizeof lo);
        sts_dd_fmt_pct(s->ci_high_pct, hi, sizeof hi);
    } else {
        fmt_signed_dur(s->ci_low_ns, lo, sizeof lo);
        fmt_signed_dur(s->ci_high_ns, hi, sizeof hi);
    }
    snprintf(buf, cap, "%d%% CI %s to %s, %s over %zu vs %zu %s%s", conf, lo, hi, p, s->n_base, s->n_new, r->sample,
             PLURAL(s->n_new));
}

static const char *verb_of(const sts_diff *d, const sts_diff_interval *r, char *buf, size_t cap)
{
    switch (r->stats.verdict) {
    case STS_DIFF_SHRANK:
        return "shrank";
    case STS_DIFF_GREW:
        return "grew";
    case STS_DIFF_SAME:
        if (r->stats.method == STS_DIFF_METHOD_COUNT) return "stayed";
        snprintf(buf, cap, "stayed within \xc2\xb1%g%%,", d->opt.margin_pct);
        return buf;
    default:
        return "went";
    }
}

void sts_dd_describe(const sts_diff *d, const sts_diff_interval *r, char *buf, size_t cap)
{
    const sts_diff_stats *s = &r->stats;
    char label[256], a[48], b[48], pct[32], tail[160], vb[48];
    label_of(r, label, sizeof label);
    if (s->verdict == STS_DIFF_APPEARED || s->verdict == STS_DIFF_DISAPPEARED) {
        int appeared = s->verdict == STS_DIFF_APPEARED;
        one_side(d, r, appeared, tail, sizeof tail);
        snprintf(buf, cap, "%s %s: %s, absent from %s", label, appeared ? "appeared" : "disappeared", tail,
                 appeared ? "BASE" : "NEW");
        return;
    }
    if (s->method == STS_DIFF_METHOD_NONE) {
        int kb = s->n_base > 0, kn = s->n_new > 0;
        snprintf(buf, cap, "%s is unknown in %s", label, !kb && !kn ? "both runs" : !kb ? "BASE" : "NEW");
        return;
    }
    values_pair(r, a, b, sizeof a);
    sts_dd_fmt_pct(s->change_pct, pct, sizeof pct);
    const char *verb = verb_of(d, r, vb, sizeof vb);
    if (s->method == STS_DIFF_METHOD_COUNT) {
        snprintf(buf, cap, "%s %s %s " ARROW " %s%s%s (exact counts)", label, verb, a, b,
                 isfinite(s->change_pct) ? ", " : "", isfinite(s->change_pct) ? pct : "");
        return;
    }
    if (s->method == STS_DIFF_METHOD_SINGLE) {
        snprintf(buf, cap, "%s %s %s " ARROW " %s, %s (one observation per run, no test)", label, verb, a, b, pct);
        return;
    }
    interval_words(d, r, tail, sizeof tail);
    if (isfinite(s->change_pct))
        snprintf(buf, cap, "%s %s %s " ARROW " %s, %s (%s)", label, verb, a, b, pct, tail);
    else
        snprintf(buf, cap, "%s %s %s " ARROW " %s (%s)", label, verb, a, b, tail);
}
