/* report: axes and units, escaping, each figure's marks, and whole
 * reports from bench, ledger and trace inputs. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/finalize.h"
#include "model/timeline_impl.h"
#include "report/figures.h"
#include "base/sbuf.h"
#include "report/scale.h"
#include "report/svg.h"
#include "stepscope/report.h"
#include "ref_duration.h"
#include "test.h"

#define MICRO "\xc2\xb5"
#define MINUS "\xe2\x88\x92"

static size_t count_of(const char *hay, const char *needle)
{
    size_t n = 0, k = strlen(needle);
    for (const char *p = hay; (p = strstr(p, needle)); p += k)
        n++;
    return n;
}

/* Every tick label parses back to its tick value in the axis unit: no exponent, no
 * hidden multiplier. */
static int labels_are_plain(const sts_axis *a)
{
    char lab[64];
    for (int i = 0; i < a->nticks; i++) {
        sts_axis_tick_label(a, i, lab, sizeof lab);
        if (strpbrk(lab, "eE")) return 0;
        const char *num = lab;
        double sign = 1;
        if (strncmp(lab, MINUS, 3) == 0) num = lab + 3, sign = -1;
        double v = sign * strtod(num, NULL), want = sts_axis_tick(a, i) / a->unit;
        if (fabs(v - want) > 1e-6 * fmax(1, fabs(want))) return 0;
    }
    return 1;
}

static int step_is_125(double step)
{
    double m = step / pow(10, floor(log10(step) + 1e-9));
    return fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6;
}

TEST(time_axis_units_from_ns_to_s)
{
    static const struct {
        double hi;
        const char *unit;
    } cases[] = {
        { 7, "ns" },      { 640, "ns" },    { 2500, MICRO "s" }, { 812e3, MICRO "s" }, { 999e3, MICRO "s" },
        { 1.05e6, "ms" }, { 21.3e6, "ms" }, { 640e6, "ms" },     { 2.2e9, "s" },       { 3600e9, "s" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_axis a;
        sts_axis_time(&a, 0, cases[i].hi, 5);
        T_EQ_STR(a.unit_name, cases[i].unit);
        T_TRUE(a.lo <= 0 && a.hi >= cases[i].hi);
        T_TRUE(labels_are_plain(&a));
        /* The data reads as at least 1 in its unit (the unit is not too big) and the
         * ticks stay at most 1000 (not too small), short of seconds. */
        T_TRUE(cases[i].hi / a.unit >= 1 || strcmp(a.unit_name, "ns") == 0);
        T_TRUE(a.hi / a.unit <= 1000 || strcmp(a.unit_name, "s") == 0);
    }
    sts_axis a;
    sts_axis_time(&a, 0, 800e3, 4);
    char lab[64];
    sts_axis_tick_label(&a, a.nticks - 1, lab, sizeof lab);
    T_EQ_STR(lab, "800");
    T_EQ_STR(a.unit_name, MICRO "s");
}

TEST(ticks_are_125_and_cover_the_data)
{
    /* A deterministic spread of ranges over 12 decades, some crossing zero. */
    uint64_t x = 88172645463325252ull;
    for (int i = 0; i < 2000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        double hi = pow(10, (double)(x % 12000) / 1000.0) * (1 + (double)(x >> 40 & 0xff) / 256);
        double lo = (x >> 20 & 3) == 0 ? -hi * (double)(x >> 24 & 0xff) / 1024 : 0;
        sts_axis a;
        sts_axis_time(&a, lo, hi, 5);
        if (!(a.lo <= lo && a.hi >= hi) || !step_is_125(a.step) || a.nticks < 2 || a.nticks > STS_AXIS_MAX_TICKS ||
            !labels_are_plain(&a)) {
            T_FAIL_AT("range [%g, %g]: lo %g hi %g step %g ticks %d", lo, hi, a.lo, a.hi, a.step, a.nticks);
            return;
        }
        /* Ticks are evenly spaced by step and the domain starts and ends on one. */
        T_NEAR(sts_axis_tick(&a, 0), a.lo, 1e-9 * a.step, 0);
        T_NEAR(sts_axis_tick(&a, a.nticks - 1), a.hi, 1e-9 * fabs(a.hi), 1e-9);
    }
}

TEST(axis_handles_empty_single_and_bad_ranges)
{
    sts_axis a;
    sts_axis_time(&a, 0, 0, 5); /* no data */
    T_TRUE(a.lo == 0 && a.hi > 0 && a.nticks >= 2);
    sts_axis_time(&a, 41200, 41200, 5); /* a single sample */
    T_TRUE(a.lo <= 0 && a.hi >= 41200);
    sts_axis_time(&a, NAN, INFINITY, 5);
    T_TRUE(isfinite(a.lo) && isfinite(a.hi) && a.hi > a.lo);
    sts_axis_time(&a, 5000, 0, 5); /* reversed */
    T_TRUE(a.lo <= 0 && a.hi >= 5000);
    /* A small negative remainder keeps zero as a tick and gets a signed label. */
    sts_axis_time(&a, -2000, 1.3e6, 5);
    T_TRUE(a.lo <= -2000);
    int zero = -1;
    for (int i = 0; i < a.nticks; i++)
        if (sts_axis_tick(&a, i) == 0) zero = i;
    T_TRUE(zero > 0);
    char lab[64];
    sts_axis_tick_label(&a, 0, lab, sizeof lab);
    T_TRUE(strncmp(lab, MINUS, 3) == 0);
    sts_axis_tick_label(&a, zero, lab, sizeof lab);
    T_TRUE(strcmp(lab, "0") == 0 || strcmp(lab, "0.0") == 0);
    /* Mapping is linear and lands on the ends. */
    T_NEAR(sts_axis_map(&a, a.lo, 300, 100), 300, 1e-9, 0);
    T_NEAR(sts_axis_map(&a, a.hi, 300, 100), 100, 1e-9, 0);
}

TEST(count_axis_uses_whole_numbers)
{
    sts_axis a;
    sts_axis_count(&a, 0, 1, 4);
    T_EQ_I64(a.nticks, 2);
    T_EQ_I64((long long)a.step, 1);
    T_EQ_STR(a.unit_name, "");
    sts_axis_count(&a, 0, 0, 4);
    T_TRUE(a.hi >= 1);
    sts_axis_count(&a, 0, 37, 4);
    T_TRUE(a.hi >= 37 && step_is_125(a.step) && a.step >= 1 && a.decimals == 0);
}

TEST(numbers_format_without_trailing_zeros)
{
    char buf[64];
    sts_fmt_number(1, buf, sizeof buf);
    T_EQ_STR(buf, "1");
    sts_fmt_number(2.5, buf, sizeof buf);
    T_EQ_STR(buf, "2.5");
    sts_fmt_number(0, buf, sizeof buf);
    T_EQ_STR(buf, "0");
}

static const char *escaped(sts_sbuf *b, const char *s, size_t n)
{
    b->n = 0;
    if (b->p) b->p[0] = 0;
    sts_sbuf_esc(b, s, n);
    return b->p ? b->p : "";
}

TEST(escaping_of_names)
{
    sts_sbuf b = STS_SBUF_INIT;
    T_EQ_STR(escaped(&b, "<a&b>\"'", 7), "&lt;a&amp;b&gt;&quot;&#39;");
    T_EQ_STR(escaped(&b, "step\xc2\xb5", 6), "step\xc2\xb5"); /* valid UTF-8 kept */
    T_EQ_STR(escaped(&b,
                     "a\xff"
                     "b",
                     3),
             "a\xef\xbf\xbd"
             "b");
    T_EQ_STR(escaped(&b, "\xc0\xaf", 2), "\xef\xbf\xbd\xef\xbf\xbd");                 /* overlong */
    T_EQ_STR(escaped(&b, "\xed\xa0\x80", 3), "\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd"); /* surrogate */
    T_EQ_STR(escaped(&b, "x\xe2\x82", 3), "x\xef\xbf\xbd\xef\xbf\xbd");               /* cut short */
    T_EQ_STR(escaped(&b,
                     "a\x01"
                     "b\x7f",
                     4),
             "a\xef\xbf\xbd"
             "b\xef\xbf\xbd"); /* XML-forbidden controls */
    T_EQ_STR(escaped(&b, "a\0b", 3), "a\xef\xbf\xbd"
                                     "b");
    T_EQ_STR(escaped(&b, "tab\there", 8), "tab\there");
    sts_sbuf_release(&b);
}

TEST(fitting_text_never_splits_a_character)
{
    char buf[64];
    T_TRUE(sts_svg_fit_text("short", 200, 12, buf, sizeof buf));
    T_EQ_STR(buf, "short");
    T_TRUE(
        sts_svg_fit_text("\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5\xc2\xb5", 30, 12, buf, sizeof buf));
    size_t n = strlen(buf);
    T_TRUE(n >= 3 && strcmp(buf + n - 3, "\xe2\x80\xa6") == 0);
    T_EQ_I64((n - 3) % 2, 0); /* whole two-byte characters before the ellipsis */
    T_TRUE(!sts_svg_fit_text("anything", 5, 12, buf, sizeof buf));
    T_EQ_STR(buf, "");
}

/* ---- figures ------------------------------------------------------------------- */

typedef struct steps_data {
    const char *labels[4];
    double total[4], child[8], rem[4];
    uint32_t count[8];
    const char *series[2];
    sts_rpt_steps s;
} steps_data;

static void lesson3_steps(steps_data *d)
{
    memset(d, 0, sizeof *d);
    static const char *const labels[] = { "0", "1", "2", "3" };
    for (int i = 0; i < 4; i++) {
        d->labels[i] = labels[i];
        d->child[2 * i] = 1.06e6 + i * 1000;
        d->child[2 * i + 1] = 0.31e6;
        d->count[2 * i] = d->count[2 * i + 1] = 1;
        d->total[i] = d->child[2 * i] + d->child[2 * i + 1] + 12000;
        d->rem[i] = 12000;
    }
    d->series[0] = "input_wait";
    d->series[1] = "model_and_wait";
    sts_rpt_steps s = { "learner_step", 4, 4, d->labels, d->total, 2, d->series, d->child, d->count, d->rem };
    d->s = s;
}

static int no_bad_numbers(const char *svg)
{
    return !strstr(svg, "nan") && !strstr(svg, "inf") && !strstr(svg, "NaN");
}

TEST(steps_figure_marks)
{
    steps_data d;
    lesson3_steps(&d);
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_steps(&b, "fig-steps", 0, &d.s);
    T_TRUE(b.p && !b.oom);
    T_CONTAINS(b.p, "<svg id=\"fig-steps\"");
    T_CONTAINS(b.p, "data-steps=\"4\"");
    T_EQ_U64(count_of(b.p, "<rect class=\"bar\""), 8);
    T_EQ_U64(count_of(b.p, "<rect class=\"bar rem\""), 4);
    T_EQ_U64(count_of(b.p, "data-name=\"input_wait\""), 4);
    T_EQ_U64(count_of(b.p, "<line class=\"tot\""), 4);
    T_CONTAINS(b.p, "time per step (ms)");
    T_CONTAINS(b.p, "<text");      /* labels are text, not paths */
    T_TRUE(!strstr(b.p, "xmlns")); /* inline: the page supplies namespace and style */
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);
    /* Standalone: namespace and stylesheet embedded. */
    sts_rpt_draw_steps(&b, "fig-steps", 1, &d.s);
    T_CONTAINS(b.p, "xmlns=\"http://www.w3.org/2000/svg\"");
    T_CONTAINS(b.p, "prefers-color-scheme:dark");
    sts_sbuf_release(&b);
}

TEST(steps_figure_zero_width_negative_and_empty)
{
    steps_data d;
    lesson3_steps(&d);
    d.child[0] = 0;   /* a child of zero duration: a mark of zero height, still there */
    d.rem[1] = -1500; /* children overran the step by rounding */
    d.total[1] = d.child[2] + d.child[3] - 1500;
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_steps(&b, "fig-steps", 0, &d.s);
    T_EQ_U64(count_of(b.p, "<rect class=\"bar\""), 8);
    T_CONTAINS(b.p, "data-ns=\"0\"");
    T_CONTAINS(b.p, "data-ns=\"-1500\"");
    char want[48];
    T_CONTAINS(b.p, ref_duration(-1500, want));
    T_TRUE(no_bad_numbers(b.p));
    T_TRUE(!strstr(b.p, "height=\"-")); /* no negative heights */
    sts_sbuf_release(&b);

    sts_rpt_steps empty = { "step", 0, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL };
    sts_rpt_draw_steps(&b, "fig-steps", 0, &empty);
    T_CONTAINS(b.p, "no steps found");
    T_EQ_U64(count_of(b.p, "class=\"bar"), 0);
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);
}

TEST(figures_escape_hostile_names)
{
    steps_data d;
    lesson3_steps(&d);
    d.series[0] = "<script>alert(1)</script>&\"'\xff";
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_steps(&b, "fig-steps", 1, &d.s);
    T_TRUE(!strstr(b.p, "<script"));
    T_TRUE(!strstr(b.p, "\xff"));
    T_CONTAINS(b.p, "&lt;script&gt;alert(1)&lt;/script&gt;&amp;&quot;&#39;\xef\xbf\xbd");
    sts_sbuf_release(&b);

    sts_rpt_lslice sl[2] = { { 0, 1000, 0, 0, 0, "outer \"<x>\"" }, { 100, 500, 0, 1, 1, "in&ner" } };
    sts_rpt_lane lanes[1] = { { "pid <1> \xc0", 2 } };
    sts_rpt_lanes L = { 0, 1000, "whole trace", 1, 1, lanes, 2, sl, 0 };
    sts_rpt_draw_lanes(&b, "fig-lanes", 0, &L);
    T_EQ_U64(count_of(b.p, "<rect class=\"slice\""), 2);
    T_CONTAINS(b.p, "data-name=\"outer &quot;&lt;x&gt;&quot;\"");
    T_CONTAINS(b.p, "data-name=\"in&amp;ner\"");
    T_CONTAINS(b.p, "pid &lt;1&gt; \xef\xbf\xbd");
    T_CONTAINS(b.p, "data-depth=\"1\"");
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);
}

TEST(lanes_figure_empty)
{
    sts_rpt_lanes L = { 0, 0, NULL, 0, 0, NULL, 0, NULL, 0 };
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_lanes(&b, "fig-lanes", 0, &L);
    T_CONTAINS(b.p, "no slices in this trace");
    T_CONTAINS(b.p, "data-slices=\"0\"");
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);
}

TEST(bench_figure_two_panels_and_median)
{
    double warm[7] = { 41200, 39800, 40500, 63000, 40100, 39500, 42000 };
    sts_rpt_bench bn = { "tanh(x @ w)", 21.3e6, warm, 7, NAN, 6100, NULL, 0 };
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_bench(&b, "fig-bench", 0, &bn);
    T_CONTAINS(b.p, "id=\"fig-bench-first\" data-unit=\"ms\"");
    T_CONTAINS(b.p, "id=\"fig-bench-warm\" data-unit=\"" MICRO "s\"");
    T_EQ_U64(count_of(b.p, "<circle class=\"pt sample\""), 7);
    /* The median of the seven samples, computed here since none was given. */
    T_CONTAINS(b.p, "data-median-ns=\"40500\"");
    char want[96], dur[48];
    snprintf(want, sizeof want, "median %s", ref_duration(40500, dur));
    T_CONTAINS(b.p, want);
    T_CONTAINS(b.p, "<line class=\"med\" data-ns=\"40500\"");
    T_CONTAINS(b.p, "first call (ms)");
    T_CONTAINS(b.p, "each warm call (" MICRO "s)");
    T_CONTAINS(b.p, "dispatch only");
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);

    double one = 52000;
    sts_rpt_bench single = { NULL, NAN, &one, 1, NAN, NAN, NULL, 0 };
    sts_rpt_draw_bench(&b, "fig-bench", 0, &single);
    T_EQ_U64(count_of(b.p, "<circle class=\"pt sample\""), 1);
    T_CONTAINS(b.p, "not recorded");
    snprintf(want, sizeof want, "median %s", ref_duration(52000, dur));
    T_CONTAINS(b.p, want);
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);

    sts_rpt_bench none = { NULL, NAN, NULL, 0, NAN, NAN, NULL, 0 };
    sts_rpt_draw_bench(&b, "fig-bench", 0, &none);
    T_CONTAINS(b.p, "no warm samples");
    T_CONTAINS(b.p, "data-median-ns=\"-1\"");
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);
}

TEST(ledger_figures)
{
    const char *labels[4] = { "first call", "new values", "new dynamic gain", "new shape" };
    double traces[4] = { 1, 0, 0, 1 }, compiles[4] = { 1, 0, 0, 1 };
    sts_rpt_ledger_calls c = { 4, labels, traces, compiles, 0 };
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_ledger_calls(&b, "fig-ledger-calls", 0, &c);
    T_EQ_U64(count_of(b.p, "data-series=\"traces\" data-value=\"1\""), 2);
    T_EQ_U64(count_of(b.p, "data-series=\"traces\" data-value=\"0\""), 2);
    T_EQ_U64(count_of(b.p, "data-series=\"compiles\""), 4);
    T_EQ_U64(count_of(b.p, "<line class=\"zbar\""), 4); /* zero observations are marked */
    T_CONTAINS(b.p, "count per call");
    T_TRUE(!strstr(b.p, "count per call (")); /* a count has no unit */
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);

    double only_t[1] = { 2 }, no_c[1] = { NAN };
    sts_rpt_ledger_calls c2 = { 1, labels, only_t, no_c, 0 };
    sts_rpt_draw_ledger_calls(&b, "fig-ledger-calls", 0, &c2);
    T_CONTAINS(b.p, "data-traces=\"1\" data-compiles=\"0\"");
    T_EQ_U64(count_of(b.p, "data-series=\"compiles\""), 0);
    sts_sbuf_release(&b);

    const char *names[2] = { "score", "score_static_branch" };
    double ns[2] = { 48.2e6, 51e6 };
    uint32_t counts[2] = { 2, 1 };
    sts_rpt_hbars h = { "Compile time per function", "compile time", "compile", "compiles", 2, names, ns, counts };
    sts_rpt_draw_hbars(&b, "fig-ledger-compile", 0, &h);
    T_CONTAINS(b.p, "data-bars=\"2\" data-unit=\"ms\"");
    char want[96], dur[48];
    snprintf(want, sizeof want, "%s (2 compiles)", ref_duration(48200000, dur));
    T_CONTAINS(b.p, want);
    snprintf(want, sizeof want, "%s (1 compile)", ref_duration(51000000, dur));
    T_CONTAINS(b.p, want);
    sts_sbuf_release(&b);

    /* A log without timings: a compile count but no time is not "0 ns". */
    ns[1] = 0;
    sts_rpt_draw_hbars(&b, "fig-ledger-compile", 0, &h);
    T_CONTAINS(b.p, "no time recorded (1 compile)");
    T_TRUE(!strstr(b.p, "0 ns"));
    sts_sbuf_release(&b);

    /* Forty calls: groups are numbered, not named, and each keeps its label as a tooltip. */
    const char *many_labels[40];
    double many_t[40], many_c[40];
    for (int i = 0; i < 40; i++)
        many_labels[i] = "a long call label", many_t[i] = many_c[i] = i % 2;
    sts_rpt_ledger_calls many = { 40, many_labels, many_t, many_c, 0 };
    sts_rpt_draw_ledger_calls(&b, "fig-ledger-calls", 0, &many);
    T_EQ_U64(count_of(b.p, "<title>call 40: a long call label</title>"), 1);
    T_CONTAINS(b.p, "call number, in the order made");
    T_EQ_U64(count_of(b.p, ">a long call label</text>"), 0);
    T_TRUE(no_bad_numbers(b.p));
    sts_sbuf_release(&b);

    /* Rows of a compile log are all misses: nothing on the figure says a zero is a reuse. */
    double ones[2] = { 1, 1 };
    sts_rpt_ledger_calls logged = { 2, labels, ones, ones, 1 };
    sts_rpt_draw_ledger_calls(&b, "fig-ledger-calls", 0, &logged);
    T_TRUE(!strstr(b.p, "Zero means") && !strstr(b.p, "reused an existing"));
    T_CONTAINS(b.p, "Calls that reused a specialization are not in compile logs.");
    T_CONTAINS(b.p, "log record, in log order");
    sts_sbuf_release(&b);
}

/* ---- whole reports -------------------------------------------------------------- */

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *s = malloc((size_t)len + 1);
    if (s && fread(s, 1, (size_t)len, f) != (size_t)len) len = 0;
    if (s) s[len] = 0;
    fclose(f);
    *n = (size_t)len;
    return s;
}

static char *render(const sts_report *r)
{
    char *html = NULL;
    size_t n;
    if (sts_report_render(r, &html, &n) != STS_OK) return NULL;
    return html;
}

TEST(report_from_bench_json)
{
    size_t n;
    char *text = slurp("tests/data/report/bench.json", &n);
    if (!text) T_SKIP("tests/data/report/bench.json not found (run from the repository root)");
    sts_report *r;
    T_EQ_I64(sts_report_create(NULL, &r), STS_OK);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_report_add_bench_json(r, text, n, "bench.json", &err), STS_OK);
    /* The result and its one variant. */
    T_EQ_U64(sts_report_figure_count(r), 2);
    T_EQ_STR(sts_report_figure_id(r, 0), "fig-bench");
    T_EQ_STR(sts_report_figure_id(r, 1), "fig-bench-2");
    T_TRUE(sts_report_figure_id(r, 2) == NULL);
    char *html = render(r);
    T_TRUE(html != NULL);
    T_CONTAINS(html, "<!DOCTYPE html>");
    T_CONTAINS(html, "data-warm=\"7\" data-device=\"7\" data-first-ns=\"21300000\" data-median-ns=\"40500\"");
    /* The variant: device samples all null, so no device series; no dispatch interval. */
    T_CONTAINS(html, "data-warm=\"3\" data-device=\"0\" data-first-ns=\"19100000\" data-median-ns=\"51000\"");
    T_CONTAINS(html, "<line class=\"ref dispatch\" data-ns=\"6100\"");
    T_EQ_U64(count_of(html, "class=\"ref dispatch\""), 1);
    T_CONTAINS(html, "[64, 32]");
    T_CONTAINS(html, "passed against host, double-precision accumulation");
    T_CONTAINS(html, "fewer than 5 warm samples");
    T_CONTAINS(html, "host overhead median</dt><dd>21.7 " MICRO "s");
    T_TRUE(!strstr(html, "<script") && !strstr(html, "http://") && !strstr(html, "https://"));
    free(html);
    sts_report_free(r);
    free(text);

    /* The fields the issue names, in one flat object; and several runs in an array. */
    text = slurp("tests/data/report/bench_minimal.json", &n);
    T_TRUE(text != NULL);
    T_EQ_I64(sts_report_create(NULL, &r), STS_OK);
    T_EQ_I64(sts_report_add_bench_json(r, text, n, "bench_minimal.json", &err), STS_OK);
    T_EQ_U64(sts_report_figure_count(r), 1);
    html = render(r);
    T_CONTAINS(html, "data-warm=\"7\" data-device=\"7\" data-first-ns=\"21300000\" data-median-ns=\"40500\"");
    free(html);
    sts_report_free(r);
    free(text);
    text = slurp("tests/data/report/bench_runs.json", &n);
    T_TRUE(text != NULL);
    T_EQ_I64(sts_report_create("two runs", &r), STS_OK);
    T_EQ_I64(sts_report_add_bench_json(r, text, n, "bench_runs.json", &err), STS_OK);
    T_EQ_U64(sts_report_figure_count(r), 2);
    T_EQ_STR(sts_report_figure_id(r, 1), "fig-bench-2");
    sts_report_free(r);
    free(text);
}

TEST(report_rejects_bad_bench_json)
{
    static const struct {
        const char *text;
        sts_status st;
        const char *msg;
    } cases[] = {
        { "{\"warm_samples_seconds\": [1e-5, ", STS_ERR_PARSE, "b.json: byte 32: input ends" },
        { "{\"warm_samples_seconds\": 3}", STS_ERR_FORMAT,
          "b.json: byte 25: \"warm_samples_seconds\" must be an array" },
        { "{\"warm_samples_seconds\": [1e-5, -1]}", STS_ERR_FORMAT,
          "byte 32: \"warm_samples_seconds\"[1] must be a non-negative number of seconds or null" },
        { "{\"warm_samples_seconds\": [], \"first_call_seconds\": \"x\"}", STS_ERR_FORMAT,
          "\"first_call_seconds\" must be" },
        { "{\"samples\": [1]}", STS_ERR_FORMAT, "not a bench result" },
        { "{\"warm_samples_seconds\": [1e300]}", STS_ERR_RANGE,
          "byte 26: \"warm_samples_seconds\"[0] is out of range" },
    };
    sts_report *r;
    T_EQ_I64(sts_report_create(NULL, &r), STS_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_report_add_bench_json(r, cases[i].text, strlen(cases[i].text), "b.json", &err);
        if (st != cases[i].st || !strstr(err.message, cases[i].msg))
            T_FAIL_AT("case %zu: status %d, message \"%s\"", i, st, err.message);
    }
    /* Failed inputs leave nothing half-built behind. */
    T_EQ_U64(sts_report_figure_count(r), 0);
    char *html = render(r);
    T_CONTAINS(html, "no inputs were added");
    free(html);
    sts_report_free(r);
}

TEST(report_from_ledger_json)
{
    size_t n;
    char *text = slurp("tests/data/report/ledger.json", &n);
    if (!text) T_SKIP("tests/data/report/ledger.json not found (run from the repository root)");
    sts_report *r;
    T_EQ_I64(sts_report_create(NULL, &r), STS_OK);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_report_add_ledger_json(r, text, n, "ledger.json", &err), STS_OK);
    T_EQ_U64(sts_report_figure_count(r), 3);
    T_EQ_STR(sts_report_figure_id(r, 0), "fig-ledger-calls");
    T_EQ_STR(sts_report_figure_id(r, 1), "fig-ledger-compile");
    T_EQ_STR(sts_report_figure_id(r, 2), "fig-ledger-syncs");
    char *html = render(r);
    T_EQ_U64(count_of(html, "data-series=\"traces\" data-value=\"1\""), 2);
    T_EQ_U64(count_of(html, "data-series=\"traces\" data-value=\"0\""), 2);
    T_CONTAINS(html, "new dynamic gain");
    T_CONTAINS(html, "read each step");
    free(html);
    err = (sts_error)STS_ERROR_INIT;
    const char *badrow = "{\"schema\":\"stepscope.ledger/1\",\"rows\":[{\"traces\":1.5}],\"functions\":[]}";
    T_EQ_I64(sts_report_add_ledger_json(r, badrow, strlen(badrow), "l.json", &err), STS_ERR_FORMAT);
    T_CONTAINS(err.message, "l.json: byte 49: \"traces\" must be a whole number");
    const char *notledger = "{\"a\":1}";
    T_EQ_I64(sts_report_add_ledger_json(r, notledger, strlen(notledger), "l.json", &err), STS_ERR_FORMAT);
    T_CONTAINS(err.message, "not a ledger");
    T_EQ_U64(sts_report_figure_count(r), 3);
    sts_report_free(r);
    free(text);
}

/* Lesson 3's shape: 4 learner_step steps, each input_wait then model_and_wait, plus a
 * hostile name on a second lane. Built with the model API and finalized. */
static sts_timeline *lesson3_timeline(void)
{
    sts_timeline *tl = sts_tl_new("test.json", "chrome-json", STS_ARGS_KNOWN);
    if (!tl) return NULL;
    sts_tl_note_resolution(tl, 0);
    uint32_t pl = sts_tl_intern(tl, "701", 3), t1 = sts_tl_intern(tl, "1", 1), t2 = sts_tl_intern(tl, "2", 1);
    uint32_t p = sts_tl_process(tl, pl, 701);
    uint32_t l1 = sts_tl_lane(tl, p, t1, 1), l2 = sts_tl_lane(tl, p, t2, 2);
    uint32_t step = sts_tl_intern(tl, "learner_step", 12), wait = sts_tl_intern(tl, "input_wait", 10);
    uint32_t model = sts_tl_intern(tl, "model_and_wait", 14);
    const char evil[] = "evil <b>&\"'\xff";
    uint32_t ev = sts_tl_intern(tl, evil, sizeof evil - 1);
    uint32_t seq = 0;
    for (int i = 0; i < 4; i++) {
        int64_t t0 = 1000000 + i * 2000000LL;
        struct {
            int64_t ts, dur;
            uint32_t name, lane;
        } ev4[] = { { t0, 1500000 + i * 1000, step, l1 },
                    { t0 + 10000, 1060000, wait, l1 },
                    { t0 + 1080000, 400000, model, l1 },
                    { t0 + 1100000, 300000, ev, l2 } };
        for (size_t k = 0; k < 4; k++) {
            sts_slice *s = STS_VEC_PUSH(tl->slices);
            if (!s) return NULL;
            s->ts = ev4[k].ts;
            s->dur = ev4[k].dur;
            s->name = ev4[k].name;
            s->lane = ev4[k].lane;
            s->parent = seq++;
            s->args = STS_NONE;
        }
    }
    sts_error err = STS_ERROR_INIT;
    if (sts_tl_finalize(tl, &err) != STS_OK) {
        sts_tl_free(tl);
        return NULL;
    }
    return tl;
}

TEST(report_from_timeline)
{
    sts_timeline *tl = lesson3_timeline();
    T_TRUE(tl != NULL);
    if (!tl) return;
    sts_report *r;
    T_EQ_I64(sts_report_create("lesson <3>", &r), STS_OK);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_report_add_timeline(r, tl, NULL, &err), STS_OK);
    sts_timeline_free(tl); /* the report keeps its own copy */
    T_EQ_U64(sts_report_figure_count(r), 2);
    T_EQ_STR(sts_report_figure_id(r, 0), "fig-steps");
    T_EQ_STR(sts_report_figure_id(r, 1), "fig-lanes");
    char *html = render(r);
    T_TRUE(html != NULL);
    if (!html) return;
    T_CONTAINS(html, "<title>lesson &lt;3&gt;</title>");
    T_CONTAINS(html, "data-steps=\"4\"");
    T_EQ_U64(count_of(html, "<rect class=\"bar\""), 8);
    T_EQ_U64(count_of(html, "<rect class=\"bar rem\""), 4);
    T_EQ_U64(count_of(html, "<rect class=\"bar\" x="), 8);
    /* Remainders: step minus children, i.e. 1500000 + i*1000 - 1460000. */
    T_CONTAINS(html, "data-step=\"0\" data-name=\"(unattributed)\" data-ns=\"40000\"");
    T_CONTAINS(html, "data-step=\"3\" data-name=\"(unattributed)\" data-ns=\"43000\"");
    /* The busiest window is one step (the last one on ties? no: the first). */
    T_CONTAINS(html, "data-lanes=\"2\" data-slices=\"4\"");
    T_CONTAINS(html, "data-t0-ns=\"1000000\"");
    T_CONTAINS(html, "<table id=\"tbl-names\" data-rows=\"4\"");
    T_CONTAINS(html, "evil &lt;b&gt;&amp;&quot;&#39;\xef\xbf\xbd");
    T_TRUE(!strstr(html, "<b>&"));
    T_TRUE(no_bad_numbers(html));
    free(html);

    char dir[] = "/tmp/sts_report_svgXXXXXX";
    T_TRUE(mkdtemp(dir) != NULL);
    size_t written = 0;
    T_EQ_I64(sts_report_write_svgs(r, dir, &written, &err), STS_OK);
    T_EQ_U64(written, 2);
    char path[128];
    size_t n;
    snprintf(path, sizeof path, "%s/fig-steps.svg", dir);
    char *svg = slurp(path, &n);
    T_TRUE(svg && strncmp(svg, "<?xml", 5) == 0 && strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
    free(svg);
    unlink(path);
    snprintf(path, sizeof path, "%s/fig-lanes.svg", dir);
    unlink(path);
    rmdir(dir);
    sts_report_free(r);
}

TEST(report_api_edges)
{
    sts_report_free(NULL);
    T_EQ_U64(sts_report_figure_count(NULL), 0);
    T_TRUE(sts_report_figure_id(NULL, 0) == NULL);
    sts_report *r;
    T_EQ_I64(sts_report_create("", &r), STS_OK);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_report_add_timeline(r, NULL, NULL, &err), STS_ERR_INVALID_ARG);
    T_EQ_I64(sts_report_add_note(r, "Lesson 1", "Skipped: bench.json was not found."), STS_OK);
    char *html = render(r);
    T_CONTAINS(html, "<title>stepscope report</title>");
    T_CONTAINS(html, "Skipped: bench.json was not found.");
    free(html);
    T_EQ_I64(sts_report_write_html(r, "/nonexistent-dir/x.html", &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "/nonexistent-dir/x.html: cannot open for writing");
    sts_report_input kind;
    T_EQ_I64(sts_report_detect("/nonexistent-file.json", &kind, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "/nonexistent-file.json");
    T_EQ_I64(sts_report_detect("tests/data/report/ledger.json", &kind, &err), STS_OK);
    T_EQ_I64(kind, STS_REPORT_INPUT_LEDGER);
    T_EQ_I64(sts_report_detect("tests/data/report/bench.json", &kind, &err), STS_OK);
    T_EQ_I64(kind, STS_REPORT_INPUT_BENCH);
    T_EQ_I64(sts_report_detect("tests/data/report/bench_minimal.json", &kind, &err), STS_OK);
    T_EQ_I64(kind, STS_REPORT_INPUT_BENCH);
    T_EQ_I64(sts_report_detect("tests", &kind, &err), STS_OK);
    T_EQ_I64(kind, STS_REPORT_INPUT_TRACE);
    sts_report_free(r);
}

/* A diff result: the predictions, then one figure row per named or preferred interval,
 * each sample a mark, each step pair joined, the interval's numbers on the row. */
TEST(report_from_diff_json)
{
    static const char diff[] =
        "{\"schema\":\"stepscope.diff/1\",\"kind\":\"trace\",\"confidence\":0.95,\"margin_pct\":5,"
        "\"samples\":\"step\",\"base\":{\"name\":\"a\",\"steps\":4,\"step_name\":\"learner_step\"},"
        "\"new\":{\"name\":\"b\",\"steps\":4,\"step_name\":\"learner_step\"},\"notes\":[\"a <note>\"],"
        "\"intervals\":["
        "{\"name\":\"step\",\"key\":\"step\",\"group\":\"step\",\"unit\":\"ns\",\"method\":\"exact\","
        "\"base\":{\"n\":4,\"median_ns\":1100,\"samples_ns\":[1000,1100,1200,1100],\"index\":[0,1,2,3]},"
        "\"new\":{\"n\":4,\"median_ns\":300,\"samples_ns\":[300,310,290,300],\"index\":[0,1,2,3]},"
        "\"change_pct\":-72.7,\"ci_low_pct\":-80,\"ci_high_pct\":-60,\"ci_low_ns\":-900,\"ci_high_ns\":-690,"
        "\"ci_bounded\":true,\"p_value\":0.029,\"verdict\":\"shrank\"},"
        "{\"name\":\"model_and_wait\",\"key\":\"model_and_wait\",\"group\":\"child\",\"unit\":\"ns\","
        "\"method\":\"exact\",\"base\":{\"n\":3,\"median_ns\":100,\"samples_ns\":[90,100,110],\"index\":[0,1,3]},"
        "\"new\":{\"n\":4,\"median_ns\":105,\"samples_ns\":[95,105,115,120],\"index\":[0,1,2,3]},"
        "\"change_pct\":5,\"ci_low_pct\":null,\"ci_high_pct\":null,\"ci_low_ns\":null,\"ci_high_ns\":null,"
        "\"ci_bounded\":false,\"p_value\":0.4,\"verdict\":\"inconclusive\"},"
        "{\"name\":\"batch\",\"key\":\"batch\",\"group\":\"compiles\",\"unit\":\"count\",\"method\":\"count\","
        "\"base\":{\"n\":1,\"median\":8},\"new\":{\"n\":1,\"median\":4},\"verdict\":\"shrank\"}],"
        "\"predictions\":[{\"expect\":\"model_and_wait:same\",\"key\":\"model_and_wait\",\"result\":\"inconclusive\","
        "\"why\":\"model_and_wait went: inconclusive\"}],"
        "\"summary\":{\"intervals\":3,\"shrank\":2,\"inconclusive\":1}}";
    sts_report *r;
    T_EQ_I64(sts_report_create(NULL, &r), STS_OK);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_report_add_diff_json(r, diff, strlen(diff), "diff.json", &err), STS_OK);
    char *html = render(r);
    T_TRUE(html != NULL);
    if (html) {
        T_CONTAINS(html, "id=\"fig-diff\"");
        T_CONTAINS(html, "data-rows=\"2\" data-intervals=\"3\"");
        T_CONTAINS(html, "inconclusive: model_and_wait:same");
        T_CONTAINS(html, "a &lt;note&gt;");
        /* The predicted row comes first, then the step; the count row is not drawn. */
        const char *m = strstr(html, "data-key=\"model_and_wait\""), *st = strstr(html, "data-key=\"step\"");
        T_TRUE(m && st && m < st);
        T_TRUE(!strstr(html, "data-key=\"batch\""));
        T_CONTAINS(html, "data-key=\"model_and_wait\" data-verdict=\"inconclusive\" data-prediction=\"inconclusive\" "
                         "data-base-n=\"3\" data-new-n=\"4\"");
        T_CONTAINS(html, "data-ci-low-pct=\"-80\" data-ci-high-pct=\"-60\"");
        T_EQ_U64(count_of(html, "class=\"pt base\""), 7);
        T_EQ_U64(count_of(html, "class=\"pt2 new\""), 8);
        /* Steps 0, 1 and 3 pair in model_and_wait (BASE has no step 2); all four in step. */
        T_CONTAINS(html, "data-pairs=\"3\"");
        T_CONTAINS(html, "data-pairs=\"4\"");
        T_CONTAINS(html, "no 95% interval: too few samples");
    }
    free(html);
    static const struct {
        const char *text, *why;
        sts_status st;
    } bad[] = {
        { "{\"schema\":\"stepscope.bench/1\",\"intervals\":[]}", "not a diff result", STS_ERR_FORMAT },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":{}}", "not a diff result", STS_ERR_FORMAT },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[", "d.json: byte 42: ", STS_ERR_PARSE },
        { "{\"schema\":\"stepscope.diff/1\",\"intervals\":[{\"unit\":\"ns\",\"base\":{\"samples_ns\":[1,\"x\"]}}]}",
          "\"samples_ns\"[1] must be", STS_ERR_FORMAT }
    };
    size_t figs = sts_report_figure_count(r);
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sts_error_clear(&err);
        sts_status st = sts_report_add_diff_json(r, bad[i].text, strlen(bad[i].text), "d.json", &err);
        if (st != bad[i].st || !strstr(err.message, bad[i].why)) T_FAIL_AT("case %zu: %d \"%s\"", i, st, err.message);
    }
    T_EQ_U64(sts_report_figure_count(r), figs); /* a failed input leaves no section behind */
    sts_report_free(r);
}

int main(void)
{
    RUN(time_axis_units_from_ns_to_s);
    RUN(ticks_are_125_and_cover_the_data);
    RUN(axis_handles_empty_single_and_bad_ranges);
    RUN(count_axis_uses_whole_numbers);
    RUN(numbers_format_without_trailing_zeros);
    RUN(escaping_of_names);
    RUN(fitting_text_never_splits_a_character);
    RUN(steps_figure_marks);
    RUN(steps_figure_zero_width_negative_and_empty);
    RUN(figures_escape_hostile_names);
    RUN(lanes_figure_empty);
    RUN(bench_figure_two_panels_and_median);
    RUN(ledger_figures);
    RUN(report_from_bench_json);
    RUN(report_rejects_bad_bench_json);
    RUN(report_from_ledger_json);
    RUN(report_from_timeline);
    RUN(report_api_edges);
    RUN(report_from_diff_json);
    return t_done();
}
