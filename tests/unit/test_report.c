/* report: axes and units, escaping, each figure's marks, and whole
 * reports from bench, ledger and trace inputs. */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "model/finalize.h"
#include "model/timeline_builder.h"
#include "report/figures.h"
#include "report/measure.h"
#include "report/place.h"
#include "report/report_impl.h"
#include "base/sbuf.h"
#include "report/scale.h"
#include "report/svg.h"
#include "stepscope/report.h"
#include "ref_duration.h"
#include "svg_layout.h"
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

/* A copy of the <svg id="ID" ...>...</svg> in html (free it); NULL when absent. */
static char *fig_of(const char *html, const char *id)
{
    char open[96];
    snprintf(open, sizeof open, "<svg id=\"%s\" ", id);
    const char *a = strstr(html, open), *e = a ? strstr(a, "</svg>") : NULL;
    if (!e) return NULL;
    size_t n = (size_t)(e + 6 - a);
    char *c = malloc(n + 1);
    if (c) {
        memcpy(c, a, n);
        c[n] = 0;
    }
    return c;
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
    sts_rpt_steps s = {
        "learner_step", 4, 4, d->labels, d->total, 2, d->series, d->child, d->count, d->rem, NULL, NULL
    };
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

    sts_rpt_steps empty = { "step", 0, 0, NULL, NULL, 0, NULL, NULL, NULL, NULL, NULL, NULL };
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
    sts_rpt_lane lanes[1] = { { "pid <1> \xc0", 2, NULL, 0, NULL } };
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

/* Not inlined: at -O3 gcc 12 then takes pointers into the page for pointers to this
 * function's local (-Wdangling-pointer, a false alarm). */
__attribute__((noinline)) static char *render(const sts_report *r)
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
    T_EQ_U64(sts_report_figure_count(r), 5);
    T_EQ_STR(sts_report_figure_id(r, 0), "fig-steps");
    T_EQ_STR(sts_report_figure_id(r, 1), "fig-windows");
    T_EQ_STR(sts_report_figure_id(r, 2), "fig-critpath");
    T_EQ_STR(sts_report_figure_id(r, 3), "fig-critpath-top");
    T_EQ_STR(sts_report_figure_id(r, 4), "fig-lanes");
    char *html = render(r);
    T_TRUE(html != NULL);
    if (!html) return;
    T_CONTAINS(html, "<title>lesson &lt;3&gt;</title>");
    T_CONTAINS(html, "data-steps=\"4\"");
    char *fs = fig_of(html, "fig-steps");
    T_TRUE(fs != NULL);
    T_EQ_U64(count_of(fs ? fs : "", "<rect class=\"bar\""), 8);
    T_EQ_U64(count_of(fs ? fs : "", "<rect class=\"bar rem\""), 4);
    T_EQ_U64(count_of(fs ? fs : "", "<rect class=\"bar\" x="), 8);
    free(fs);
    /* One thread, every instant inside a slice (the step, its children): each step's
     * critical path is host compute the whole step long, 1500000 + i*1000 ns, and
     * nothing is unknown. */
    char *cp = fig_of(html, "fig-critpath");
    T_TRUE(cp != NULL);
    for (int i = 0; cp && i < 4; i++) {
        char want[128];
        snprintf(want, sizeof want, "data-step=\"%d\" data-name=\"host\" data-ns=\"%d\"", i, 1500000 + i * 1000);
        T_CONTAINS(cp, want);
        snprintf(want, sizeof want, "data-step=\"%d\" data-name=\"unknown (no path found)\" data-ns=\"0\"", i);
        T_CONTAINS(cp, want);
    }
    free(cp);
    /* On the paths: the two children and the step's own time around them. */
    char *top = fig_of(html, "fig-critpath-top");
    T_TRUE(top && strstr(top, "data-name=\"input_wait (host)\" data-ns=\"4240000\" data-intervals=\"4\""));
    T_TRUE(top && strstr(top, "data-name=\"model_and_wait (host)\" data-ns=\"1600000\" data-intervals=\"4\""));
    free(top);
    /* Remainders: step minus children, i.e. 1500000 + i*1000 - 1460000. */
    T_CONTAINS(html, "data-step=\"0\" data-name=\"(unattributed)\" data-ns=\"40000\"");
    T_CONTAINS(html, "data-step=\"3\" data-name=\"(unattributed)\" data-ns=\"43000\"");
    /* The busiest window is one step (the last one on ties? no: the first). */
    T_CONTAINS(html, "data-lanes=\"2\" data-slices=\"4\"");
    T_CONTAINS(html, "data-t0-ns=\"1000000\"");
    T_CONTAINS(html, "<table id=\"tbl-names\" data-rows=\"4\"");
    /* The other lane (tid 2) is busy 0.3 ms inside each step, from 1.1 to 1.4 ms in:
     * one bar per step, beside the step's outline, never stacked on it. */
    T_CONTAINS(html, "<svg id=\"fig-windows\" class=\"fig\"");
    T_CONTAINS(html, "data-steps=\"4\" data-lanes=\"1\"");
    T_EQ_U64(count_of(html, "<rect class=\"busy\""), 4);
    T_EQ_U64(count_of(html, "data-lane=\"0\" data-ns=\"300000\""), 4);
    T_EQ_U64(count_of(html, "<rect class=\"win\""), 4);
    T_CONTAINS(html, "busy 300 \xc2\xb5s of 1.50 ms (20%)");
    T_CONTAINS(html, "evil &lt;b&gt;&amp;&quot;&#39;\xef\xbf\xbd");
    T_TRUE(!strstr(html, "<b>&"));
    T_TRUE(no_bad_numbers(html));
    free(html);

    char dir[] = "/tmp/sts_report_svgXXXXXX";
    T_TRUE(mkdtemp(dir) != NULL);
    size_t written = 0;
    T_EQ_I64(sts_report_write_svgs(r, dir, &written, &err), STS_OK);
    T_EQ_U64(written, 5);
    char path[128];
    size_t n;
    snprintf(path, sizeof path, "%s/fig-steps.svg", dir);
    char *svg = slurp(path, &n);
    T_TRUE(svg && strncmp(svg, "<?xml", 5) == 0 && strstr(svg, "xmlns=\"http://www.w3.org/2000/svg\""));
    free(svg);
    unlink(path);
    snprintf(path, sizeof path, "%s/fig-lanes.svg", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/fig-windows.svg", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/fig-critpath.svg", dir);
    unlink(path);
    snprintf(path, sizeof path, "%s/fig-critpath-top.svg", dir);
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
        "\"why\":\"model_and_wait went: inconclusive\"},{\"expect\":\"step:shrink>=17%\",\"key\":\"step\","
        "\"result\":\"held\",\"why\":\"step shrank\"}],"
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
        /* The what-if's prediction beside the outcome: a mark at -17% on the step's row
         * (its interval, -80% to -60%, lies past it: held); none on the "same" row. */
        const char *pred = strstr(html, "<line class=\"ref pred\"");
        T_TRUE(pred && st && pred > st && strstr(pred, "data-predicted-pct=\"-17\"") == strstr(pred, "data-predicted"));
        T_EQ_U64(count_of(html, "class=\"ref pred\""), 1);
        T_CONTAINS(html, "predicted: a shrink of 17% or more");
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

/* ---- measuring and cutting names ------------------------------------------------ */

TEST(text_widths_follow_the_glyphs)
{
    sts_font f = sts_font_of(NULL), bold = sts_font_of("ttl");
    T_NEAR(f.px, 12, 0, 0);
    T_NEAR(bold.px, 14, 0, 0);
    T_TRUE(bold.bold && !f.bold);
    T_NEAR(sts_font_of("lbl sub").px, 11, 0, 0);
    /* A wide letter is wider than a narrow one, a digit is what tabular digits are. */
    T_TRUE(sts_text_width("WWWW", f) > 2 * sts_text_width("iiii", f));
    T_NEAR(sts_text_width("0123456789", f), 10 * sts_text_width("8", f), 1e-9, 0);
    T_TRUE(sts_text_width("abc", bold) > sts_text_width("abc", sts_font_of("x")));
    /* Characters, not bytes: "µs" is two characters. */
    T_TRUE(sts_text_width("\xc2\xb5s", f) < sts_text_width("abc", f));
    T_NEAR(sts_text_width("", f), 0, 0, 0);
    /* The box: anchored as SVG anchors, ascent above the baseline, descent below. */
    sts_box b = sts_text_box(100, 50, "end", f, "abc");
    T_NEAR(b.x1, 100, 1e-9, 0);
    T_NEAR(b.x1 - b.x0, sts_text_width("abc", f), 1e-9, 0);
    T_TRUE(b.y0 < 50 && b.y1 > 50 && b.y1 - b.y0 < 1.3 * 12);
    sts_box m = sts_text_box(100, 50, "middle", f, "abc");
    T_NEAR((m.x0 + m.x1) / 2, 100, 1e-9, 0);
}

TEST(middle_cut_keeps_both_ends)
{
    sts_font f = sts_font_of(NULL);
    char buf[200];
    const char *name = "tf_pjrt_thread_pool/-2878980157596907007";
    T_TRUE(sts_fit_middle(name, 150, f, buf, sizeof buf));
    T_TRUE(sts_text_width(buf, f) <= 150);
    T_TRUE(strncmp(buf, "tf_", 3) == 0);                                     /* the start */
    T_TRUE(strlen(buf) > 6 && strcmp(buf + strlen(buf) - 6, "907007") == 0); /* the end */
    T_TRUE(strstr(buf, "\xe2\x80\xa6") != NULL);
    T_TRUE(sts_fit_middle("short", 150, f, buf, sizeof buf));
    T_EQ_STR(buf, "short");
    /* Never a broken character, whatever the room. */
    for (double px = 10; px < 120; px += 3) {
        if (!sts_fit_middle("\xc2\xb5\xe8\xae\xad\xc2\xb5\xe8\xae\xad\xc2\xb5\xe8\xae\xad\xc2\xb5", px, f, buf,
                            sizeof buf))
            continue;
        for (const unsigned char *p = (const unsigned char *)buf; *p;) {
            size_t len = *p < 0x80 ? 1 : (*p & 0xe0) == 0xc0 ? 2 : (*p & 0xf0) == 0xe0 ? 3 : 0;
            T_TRUE(len > 0);
            if (!len) break;
            for (size_t k = 1; k < len; k++)
                T_TRUE((p[k] & 0xc0) == 0x80);
            p += len;
        }
    }
    T_TRUE(!sts_fit_middle("anything", 5, f, buf, sizeof buf));
}

TEST(cut_names_never_read_the_same)
{
    sts_font f = sts_font_of(NULL);
    enum { N = 8, S = 96 };
    /* Five pool threads that differ only at the end, two that differ only in the middle,
     * and a repeated name (which stays the same). */
    const char *names[N] = { "tf_pjrt_thread_pool/-2878980157596907007",
                             "tf_pjrt_thread_pool/-4628977207257137608",
                             "tf_pjrt_thread_pool/-7968712372242859810",
                             "tf_pjrt_thread_pool/2418215489961931999",
                             "queue 0 (pthread-skylake-avx512-AMD EPYC) on node a",
                             "queue 0 (pthread-haswell-avx2-AMD EPYC) on node a",
                             "tf_pjrt_thread_pool/7125790917438677240",
                             "tf_pjrt_thread_pool/7125790917438677240" };
    char out[N * S];
    for (double px = 60; px <= 240; px += 20) {
        T_TRUE(sts_fit_unique(names, N, px, f, out, S));
        for (size_t i = 0; i < N; i++) {
            T_TRUE(sts_text_width(out + i * S, f) <= px + 1e-9);
            for (size_t j = i + 1; j < N; j++) {
                int same_name = strcmp(names[i], names[j]) == 0, same_cut = strcmp(out + i * S, out + j * S) == 0;
                if (same_name != same_cut)
                    T_FAIL_AT("at %g px: \"%s\" -> \"%s\", \"%s\" -> \"%s\"", px, names[i], out + i * S, names[j],
                              out + j * S);
            }
        }
    }
}

TEST(spread_keeps_labels_apart_in_order)
{
    double y[4] = { 100, 101, 99.5, 300 };
    sts_spread(y, 4, 14, 0, 200);
    /* Order kept (99.5 < 100 < 101), each pair at least 14 apart, all within [0, 200]. */
    T_TRUE(y[2] < y[0] && y[0] < y[1]);
    T_TRUE(y[0] - y[2] >= 14 - 1e-9 && y[1] - y[0] >= 14 - 1e-9);
    T_NEAR(y[3], 200, 1e-9, 0);
    double z[3] = { 5, 5, 5 };
    sts_spread(z, 3, 14, 0, 200);
    T_TRUE(z[0] >= 0 && z[1] - z[0] >= 14 - 1e-9 && z[2] - z[1] >= 14 - 1e-9);
}

/* The user's case: the dispatch-only median 0.4 µs under the synchronized median. Both
 * are labelled, neither over a sample or the other. */
TEST(bench_close_medians_both_labelled_apart)
{
    double warm[7] = { 52600, 41700, 37000, 39200, 36800, 36700, 37000 };
    sts_rpt_bench bn = { "predict", 130e6, warm, 7, 37000, 36600, NULL, 0 };
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_bench(&b, "fig-bench", 0, &bn);
    char out[16][512];
    size_t n = svg_texts(b.p, "lbl", out, 16);
    int med = 0, disp = 0;
    char d[48], want_med[64], want_disp[64];
    snprintf(want_med, sizeof want_med, "median %s", ref_duration(37000, d));
    snprintf(want_disp, sizeof want_disp, "dispatch only %s", ref_duration(36600, d));
    for (size_t i = 0; i < n; i++) {
        med += strcmp(out[i], want_med) == 0;
        disp += strcmp(out[i], want_disp) == 0;
    }
    T_EQ_I64(med, 1);
    T_EQ_I64(disp, 1);
    T_EQ_U64(svg_layout_problems(b.p, "close medians"), 0);
    sts_sbuf_release(&b);
}

static sts_timeline *json_timeline(const char *json)
{
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open_mem(json, strlen(json), "t.json", &o, &tl, &err) != STS_OK) {
        fprintf(stderr, "  %s\n", err.message);
        return NULL;
    }
    return tl;
}

static char *trace_page(const char *json)
{
    sts_timeline *tl = json_timeline(json);
    if (!tl) return NULL;
    sts_report *r;
    char *html = NULL;
    if (sts_report_create(NULL, &r) == STS_OK) {
        sts_error err = STS_ERROR_INIT;
        if (sts_report_add_timeline(r, tl, NULL, &err) == STS_OK) html = render(r);
        sts_report_free(r);
    }
    sts_timeline_free(tl);
    return html;
}

/* Lanes are named thread under process; the tid or pid is added only where names
 * would otherwise read the same. */
TEST(lane_names_tell_lanes_apart)
{
    static const char json[] =
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"python3\"}},"
        "{\"ph\":\"M\",\"pid\":2,\"name\":\"process_name\",\"args\":{\"name\":\"python3\"}},"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":10,\"name\":\"thread_name\",\"args\":{\"name\":\"worker \"}},"
        "{\"ph\":\"M\",\"pid\":1,\"tid\":11,\"name\":\"thread_name\",\"args\":{\"name\":\"worker\"}},"
        "{\"ph\":\"M\",\"pid\":2,\"tid\":20,\"name\":\"thread_name\",\"args\":{\"name\":\"main\"}},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":10,\"ts\":0,\"dur\":10,\"name\":\"a\"},"
        "{\"ph\":\"X\",\"pid\":1,\"tid\":11,\"ts\":0,\"dur\":10,\"name\":\"b\"},"
        "{\"ph\":\"X\",\"pid\":2,\"tid\":20,\"ts\":0,\"dur\":10,\"name\":\"c\"},"
        "{\"ph\":\"X\",\"pid\":3,\"tid\":30,\"ts\":0,\"dur\":10,\"name\":\"d\"}]}";
    char *html = trace_page(json);
    T_TRUE(html != NULL);
    if (!html) return;
    T_CONTAINS(html, "<title>python3 (pid 1)</title>");
    T_CONTAINS(html, "<title>python3 (pid 2)</title>");
    T_CONTAINS(html, "<title>pid 3</title>");                                    /* no name: the pid, said to be one */
    T_CONTAINS(html, "<title>worker (tid 10) \xc2\xb7 python3 (pid 1)</title>"); /* blanks trimmed */
    T_CONTAINS(html, "<title>worker (tid 11) \xc2\xb7 python3 (pid 1)</title>");
    T_CONTAINS(html, "<title>main \xc2\xb7 python3 (pid 2)</title>");
    T_CONTAINS(html, "<title>tid 30 \xc2\xb7 pid 3</title>");
    free(html);
}

/* A Python tracer's frames around the whole window are one row; the slices inside
 * move up under it, keeping their real depth in data-depth. */
TEST(enclosing_frames_fold_into_one_row)
{
    static const char json[] = "{\"traceEvents\":["
                               "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000,\"name\":\"<module>\"},"
                               "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1000,\"name\":\"main\"},"
                               "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":998,\"name\":\"run\"},"
                               "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":100,\"name\":\"step_a\"},"
                               "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":200,\"dur\":100,\"name\":\"step_b\"}]}";
    char *html = trace_page(json);
    T_TRUE(html != NULL);
    if (!html) return;
    /* The window is the whole trace [0, 1000]: <module> and main cover it, run does not. */
    T_CONTAINS(html, "<rect class=\"encl\" data-depths=\"2\"");
    T_CONTAINS(
        html, "2 enclosing slices, each spanning the whole window (outermost first): &lt;module&gt; \xe2\x80\xba main");
    T_CONTAINS(html, "data-name=\"run\"");
    T_CONTAINS(html, "data-depth=\"3\" data-name=\"step_a\"");
    T_CONTAINS(html, "data-rows=\"3\""); /* the folded row, run, the steps */
    T_TRUE(!strstr(html, "data-name=\"&lt;module&gt;\""));
    free(html);
}

/* A step named "ProfilerStep#6" is called ProfilerStep in titles, and the window's
 * subtitle names it once. */
TEST(one_numbered_step_is_named_once)
{
    static const char json[] = "{\"traceEvents\":["
                               "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100,\"name\":\"ProfilerStep#6\"},"
                               "{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":10,\"dur\":50,\"name\":\"forward\"}]}";
    char *html = trace_page(json);
    T_TRUE(html != NULL);
    if (!html) return;
    T_CONTAINS(html, "Time inside each ProfilerStep: children");
    T_CONTAINS(html, "busiest step: ProfilerStep#6 (");
    T_TRUE(!strstr(html, "ProfilerStep#6 6"));
    free(html);
}

/* ---- layout: what a reader sees ------------------------------------------------ */

typedef struct lay_walk {
    const char *what;
    size_t figs, bad;
} lay_walk;

static void lay_check_fig(const sts_rpt_fig *f, void *user)
{
    lay_walk *w = user;
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw(&b, f, 1);
    char what[512];
    snprintf(what, sizeof what, "%s: %s", w->what, f->id);
    if (b.p) w->bad += svg_layout_problems(b.p, what);
    w->figs++;
    sts_sbuf_release(&b);
}

/* Every figure the report draws from real traces and results: no label leaves its
 * figure, covers another label, a point or a line, or straddles a bar's edge. */
TEST(layout_of_every_figure_from_real_inputs)
{
    static const char *const local[] = { "tests/data/report/bench.json", "tests/data/report/bench_runs.json",
                                         "tests/data/report/bench_minimal.json", "tests/data/report/ledger.json" };
    static const char *const traces[] = { "kineto/h100_bert_small.json.gz",
                                          "kineto/profiler_steps_rank0.json.gz",
                                          "kineto/torch_compile_triton.json.gz",
                                          "kineto/cpu_only.json.gz",
                                          "kineto/simple_add_flows.json.gz",
                                          "kineto/ns_resolution_rank0.json.gz",
                                          "jax/conv_mi300_8gpu.xplane.pb",
                                          "jax/te_fused_attn.xplane.pb",
                                          "torch-legacy/torch_lesson.json",
                                          "torch-legacy/torch_train_small.json",
                                          "chrome/tall_trace.json",
                                          "chrome/x_event_trace.json",
                                          "chrome/main_thread_has_unclosed_slices.json" };
    size_t figs = 0, inputs = 0;
    for (size_t i = 0; i < sizeof local / sizeof local[0] + sizeof traces / sizeof traces[0]; i++) {
        char path[8192];
        const char *fx = t_fixtures();
        if (i < sizeof local / sizeof local[0])
            snprintf(path, sizeof path, "%s", local[i]);
        else if (fx)
            snprintf(path, sizeof path, "%.4000s/traces/%s", fx, traces[i - sizeof local / sizeof local[0]]);
        else
            continue;
        if (access(path, R_OK) != 0) continue;
        sts_report *r;
        T_EQ_I64(sts_report_create(NULL, &r), STS_OK);
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_report_add_path(r, path, NULL, &err);
        if (st != STS_OK) T_FAIL_AT("%s: %s", path, err.message);
        lay_walk w = { path, 0, 0 };
        sts_rpt_each_fig(r, lay_check_fig, &w);
        if (w.bad) T_FAIL_AT("%s: %zu layout problems (listed above)", path, w.bad);
        figs += w.figs;
        inputs++;
        sts_report_free(r);
    }
    if (inputs == 0) T_SKIP("no inputs found (run from the repository root)");
    T_TRUE(figs >= inputs);
}

/* ---- layout over random inputs ------------------------------------------------- */

static uint64_t rnd_state = 0x5eed5eedULL;
static uint64_t rnd(void)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}
static double rnd_unit(void)
{
    return (double)(rnd() >> 11) / 9007199254740992.0;
}
/* A duration from 1 ns to 100 s, log-uniform. */
static double rnd_ns(void)
{
    return pow(10, rnd_unit() * 11);
}

/* Names as traces have them: shared prefixes that differ at the end, sites, device
 * paths, long frames, non-ASCII. */
static void rnd_name(char *buf, size_t n)
{
    static const char *const heads[] = { "tf_pjrt_thread_pool/",
                                         "Stream #",
                                         "<lambda> (train.py:",
                                         "python3",
                                         "/device:GPU:",
                                         "queue 0 (pthread-skylake-avx512-AMD EPYC) ",
                                         "moca/library/model_hub/huggingface/model/adapters/text_base_model.py(",
                                         "\xe8\xae\xad\xe7\xbb\x83\xe6\xad\xa5",
                                         "x",
                                         "ProfilerStep#",
                                         "void cutlass::Kernel<cutlass_80_tensorop_s1688gemm_128x128_32x3_nn_align4>",
                                         "\xc2\xb5op" };
    size_t h = rnd() % (sizeof heads / sizeof heads[0]);
    snprintf(buf, n, "%s%llu%s", heads[h], (unsigned long long)(rnd() % 100000000000ULL), h == 2 ? ")" : "");
}

static size_t check_svg(sts_sbuf *b, const char *what, unsigned iter)
{
    char w[96];
    snprintf(w, sizeof w, "%s #%u", what, iter);
    return b->p ? svg_layout_problems(b->p, w) : 1;
}

TEST(layout_of_random_bench_figures)
{
    size_t bad = 0;
    for (unsigned it = 0; it < 400; it++) {
        double warm[64], dev[64];
        size_t nw = rnd() % 41, nd = rnd() % 3 ? 0 : nw;
        double base = rnd_ns();
        for (size_t i = 0; i < nw; i++) {
            warm[i] = rnd() % 8 ? base * (0.9 + 0.3 * rnd_unit()) : (rnd() % 2 ? NAN : base * 10 * rnd_unit());
            dev[i] = base * rnd_unit();
        }
        double med = sts_rpt_median(warm, nw);
        /* Dispatch-only next to the median is the case the user met; also far from it. */
        double disp = rnd() % 3 == 0 ? NAN : rnd() % 2 ? med * (0.97 + 0.06 * rnd_unit()) : base * rnd_unit();
        char label[160];
        rnd_name(label, sizeof label);
        sts_rpt_bench bn = {
            label, rnd() % 5 ? base * pow(10, rnd_unit() * 4) : NAN, warm, nw, rnd() % 2 ? NAN : med, disp, dev, nd
        };
        sts_sbuf b = STS_SBUF_INIT;
        sts_rpt_draw_bench(&b, "fig-bench", 1, &bn);
        bad += check_svg(&b, "bench", it);
        sts_sbuf_release(&b);
    }
    T_EQ_U64(bad, 0);
}

TEST(layout_of_random_steps_figures)
{
    size_t bad = 0;
    static char names[8][160];
    for (unsigned it = 0; it < 300; it++) {
        size_t n = rnd() % 61, ns = rnd() % 8;
        const char *labels[60], *series[8];
        char lab[60][24];
        double total[60], child[60 * 8], rem[60];
        uint32_t count[60 * 8];
        for (size_t j = 0; j < ns; j++) {
            rnd_name(names[j], sizeof names[j]);
            series[j] = names[j];
        }
        double scale = rnd_ns();
        int64_t first = (int64_t)(rnd() % 3 ? rnd() % 10 : rnd() % 1000000);
        for (size_t i = 0; i < n; i++) {
            snprintf(lab[i], sizeof lab[i], "%lld", (long long)(first + (int64_t)i));
            labels[i] = lab[i];
            double sum = 0;
            for (size_t j = 0; j < ns; j++) {
                count[i * ns + j] = (uint32_t)(rnd() % 3);
                child[i * ns + j] = count[i * ns + j] ? scale * rnd_unit() : 0;
                sum += child[i * ns + j];
            }
            rem[i] = rnd() % 10 ? scale * rnd_unit() * (rnd() % 2) : -scale * 1e-3 * rnd_unit();
            total[i] = sum + rem[i];
        }
        char step[160];
        rnd_name(step, sizeof step);
        sts_rpt_steps st = { step, n, n + (rnd() % 2) * 7, labels, total, ns, series, child, count, rem, NULL, NULL };
        sts_sbuf b = STS_SBUF_INIT;
        sts_rpt_draw_steps(&b, "fig-steps", 1, &st);
        bad += check_svg(&b, "steps", it);
        sts_sbuf_release(&b);
    }
    T_EQ_U64(bad, 0);
}

TEST(layout_of_random_lane_figures)
{
    size_t bad = 0, same = 0;
    static char names[24][160], groups[4][160];
    for (unsigned it = 0; it < 300; it++) {
        size_t nl = rnd() % 25, ng = 1 + rnd() % 4, n = 0;
        sts_rpt_lane lanes[24];
        static sts_rpt_lslice sl[400];
        for (size_t g = 0; g < ng; g++)
            rnd_name(groups[g], sizeof groups[g]);
        for (size_t i = 0; i < nl; i++) {
            rnd_name(names[i], sizeof names[i]);
            if (i && rnd() % 4 == 0) /* same name but its end: only the end tells them apart */
                snprintf(names[i], sizeof names[i], "%.*s%u", (int)strlen(names[i - 1]) - 1, names[i - 1],
                         (unsigned)(rnd() % 10));
            int enc = rnd() % 4 == 0 ? 2 + (int)(rnd() % 9) : 0;
            sts_rpt_lane l = { names[i], 1 + (int)(rnd() % 8), rnd() % 5 ? groups[i * ng / (nl ? nl : 1)] : NULL, enc,
                               enc ? "a \xe2\x80\xba b \xe2\x80\xba innermost frame" : NULL };
            lanes[i] = l;
            /* As in a trace: slices of one depth follow each other; with enclosing
             * depths folded, the rows below the folded one hold depths enc, enc+1, ... */
            if (enc && l.rows < 2) lanes[i].rows = l.rows = 2;
            for (int row = enc ? 1 : 0; row < l.rows; row++) {
                double ts = rnd_unit() * 1e5;
                for (int k = 0; k < 6 && n < 400 && ts < 1e6; k++) {
                    double dur = rnd() % 4 ? rnd_unit() * 3e5 : 0;
                    sts_rpt_lslice s = { ts,
                                         dur,
                                         (uint32_t)i,
                                         (uint16_t)(row - (enc ? 1 : 0) + enc),
                                         (uint16_t)(rnd() % 8),
                                         names[rnd() % (i + 1)] };
                    sl[n++] = s;
                    ts += dur + rnd_unit() * 1e5;
                }
            }
        }
        sts_rpt_lanes L = { 0, 1e6, "busiest step: learner_step 3", nl, nl, lanes, n, sl, 0 };
        sts_sbuf b = STS_SBUF_INIT;
        sts_rpt_draw_lanes(&b, "fig-lanes", 1, &L);
        bad += check_svg(&b, "lanes", it);
        /* Different lanes never read the same: their label texts (class-less texts
         * inside g.lane) are distinct whenever their names are. */
        const char *label[24] = { 0 }; /* each lane's label text, found once */
        for (size_t i = 0; b.p && i < nl; i++) {
            char key[64];
            snprintf(key, sizeof key, "<g class=\"lane\" data-lane=\"%zu\"", i);
            const char *g = strstr(b.p, key);
            label[i] = g ? strstr(g, "</title><text") : NULL;
        }
        for (size_t i = 0; b.p && i < nl; i++) {
            const char *ti = label[i];
            for (size_t j = i + 1; ti && j < nl; j++) {
                const char *tj = label[j];
                if (!tj || strcmp(names[i], names[j]) == 0) continue;
                const char *ei = strstr(ti, "</text>"), *ej = strstr(tj, "</text>");
                const char *ci = strchr(ti + 8, '>'), *cj = strchr(tj + 8, '>');
                if (ei - ci == ej - cj && strncmp(ci, cj, (size_t)(ei - ci)) == 0) {
                    fprintf(stderr, "  lanes #%u: \"%s\" and \"%s\" both read %.*s\n", it, names[i], names[j],
                            (int)(ei - ci - 1), ci + 1);
                    same++;
                }
            }
        }
        sts_sbuf_release(&b);
    }
    T_EQ_U64(bad, 0);
    T_EQ_U64(same, 0);
}

TEST(layout_of_random_ledger_figures)
{
    size_t bad = 0;
    static char names[30][160];
    for (unsigned it = 0; it < 300; it++) {
        size_t n = rnd() % 61;
        const char *labels[60];
        double tr[60], co[60];
        for (size_t i = 0; i < n; i++) {
            rnd_name(names[i % 30], sizeof names[0]);
            labels[i] = names[i % 30];
            tr[i] = rnd() % 9 == 0 ? NAN : (double)(rnd() % 4);
            co[i] = rnd() % 9 == 0 ? NAN : (double)(rnd() % 12);
        }
        sts_rpt_ledger_calls c = { n, labels, tr, co, (int)(rnd() % 2) };
        sts_sbuf b = STS_SBUF_INIT;
        sts_rpt_draw_ledger_calls(&b, "fig-ledger-calls", 1, &c);
        bad += check_svg(&b, "ledger-calls", it);
        sts_sbuf_release(&b);

        size_t nh = rnd() % 21;
        double ns[30];
        uint32_t counts[30];
        for (size_t i = 0; i < nh; i++) {
            rnd_name(names[i], sizeof names[0]);
            if (i && rnd() % 3 == 0) /* same function, another site */
                snprintf(names[i], sizeof names[0], "%.*s9)", (int)strlen(names[i - 1]) - 2, names[i - 1]);
            labels[i] = names[i];
            ns[i] = rnd() % 6 == 0 ? (rnd() % 2 ? 0 : NAN) : rnd_ns();
            counts[i] = (uint32_t)(rnd() % 2000);
        }
        sts_rpt_hbars h = {
            "Compile time per function", "compile time", "compile", "compiles", nh, labels, ns, counts
        };
        sts_rpt_draw_hbars(&b, "fig-ledger-compile", 1, &h);
        bad += check_svg(&b, "hbars", it);
        sts_sbuf_release(&b);
    }
    T_EQ_U64(bad, 0);
}

TEST(layout_of_random_diff_and_windows_figures)
{
    size_t bad = 0;
    static char keys[8][200];
    for (unsigned it = 0; it < 300; it++) {
        size_t n = rnd() % 9;
        sts_rpt_diff_row rows[8];
        static double base[8][40], nw[8][40], bi[8][40], ni[8][40];
        static const char *const verdicts[] = { "shrank", "grew", "same", "inconclusive", "appeared", "disappeared" };
        static const char *const preds[] = { "held", "failed", "inconclusive" };
        for (size_t i = 0; i < n; i++) {
            rnd_name(keys[i], 100);
            if (rnd() % 3 == 0) {
                char proc[90];
                rnd_name(proc, sizeof proc);
                size_t len = strlen(keys[i]);
                snprintf(keys[i] + len, sizeof keys[i] - len, " / %.90s", proc);
            }
            size_t nb = rnd() % 40, nn = rnd() % 40;
            double sc = rnd_ns();
            for (size_t k = 0; k < 40; k++) {
                base[i][k] = sc * rnd_unit();
                nw[i][k] = sc * rnd_unit() * 2;
                bi[i][k] = ni[i][k] = (double)k;
            }
            double ch = rnd() % 5 ? (rnd_unit() - 0.4) * 600 : NAN;
            sts_rpt_diff_row r = { keys[i],
                                   verdicts[rnd() % 6],
                                   rnd() % 2 ? preds[rnd() % 3] : NULL,
                                   "normal-ties",
                                   base[i],
                                   nw[i],
                                   bi[i],
                                   ni[i],
                                   nb,
                                   nn,
                                   nb ? sts_rpt_median(base[i], nb) : NAN,
                                   nn ? sts_rpt_median(nw[i], nn) : NAN,
                                   ch,
                                   rnd() % 4 ? ch - 20 : -INFINITY,
                                   rnd() % 4 ? ch + 30 : INFINITY,
                                   -sc * rnd_unit(),
                                   sc * rnd_unit(),
                                   rnd() % 2 ? rnd_unit() : NAN,
                                   rnd() % 3 ? NAN : (rnd_unit() - 0.5) * 80 };
            rows[i] = r;
        }
        sts_rpt_diff d = { 0.95, 5, "step", n, n + rnd() % 3, rows };
        sts_sbuf b = STS_SBUF_INIT;
        sts_rpt_draw_diff(&b, "fig-diff", 1, &d);
        bad += check_svg(&b, "diff", it);
        sts_sbuf_release(&b);

        size_t ns = 1 + rnd() % 60, nl = 1 + rnd() % 4;
        static char lab[60][24], lnames[4][160], lgroups[4][160];
        const char *labels[60], *names[4], *groups[4];
        double total[60], busy[240], lt[4] = { 0 };
        for (size_t i = 0; i < ns; i++) {
            snprintf(lab[i], sizeof lab[i], "%zu", i + (size_t)(rnd() % 1000));
            labels[i] = lab[i];
            total[i] = rnd_ns();
            for (size_t k = 0; k < nl; k++)
                busy[i * nl + k] = rnd() % 4 ? total[i] * rnd_unit() : 0;
        }
        for (size_t k = 0; k < nl; k++) {
            rnd_name(lnames[k], sizeof lnames[k]);
            rnd_name(lgroups[k], sizeof lgroups[k]);
            names[k] = lnames[k];
            groups[k] = lgroups[k];
        }
        sts_rpt_windows w = { "learner_step", ns, ns, labels, total, nl, names, groups, lt, busy };
        sts_rpt_draw_windows(&b, "fig-windows", 1, &w);
        bad += check_svg(&b, "windows", it);
        sts_sbuf_release(&b);
    }
    T_EQ_U64(bad, 0);
}

/* Device memory over time: a staircase through every point, one dashed line per step
 * start and one at the last end, the peak marked with its own numbers; a thinned line
 * (many more points than pixels) still reaches the peak and the lowest value. */
TEST(memory_figure_marks)
{
    enum { N = 5000 };
    static double ts[N], by[N];
    double peak = 0, peak_ts = 0, low = 1e18;
    for (size_t i = 0; i < N; i++) {
        ts[i] = 1e6 + (double)i * 1000;
        by[i] = (double)(64 << 20) + (double)((i * 7919) % 4096) * 1024;
        if (i == 3217) by[i] = (double)(200 << 20); /* one spike, thinner than a pixel */
        if (by[i] > peak) peak = by[i], peak_ts = ts[i];
        if (by[i] < low) low = by[i];
    }
    const char *labels[] = { "7", "8", "9" };
    double s0[] = { 1e6, 2.6e6, 4.2e6 }, s1[] = { 2.6e6, 4.2e6, 5.9e6 }, sp[] = { 90e6, -1, 200e6 };
    sts_rpt_memory m = { "cuda:0 <&>",   1e6, 6e6, N,      ts, by, peak, peak_ts, by[0], by[N - 1],
                         "ProfilerStep", 3,   3,   labels, s0, s1, sp };
    sts_sbuf b = STS_SBUF_INIT;
    sts_rpt_draw_memory(&b, "fig-memory", 1, &m);
    T_TRUE(b.p != NULL);
    if (!b.p) return;
    T_CONTAINS(b.p, "Memory in use on cuda:0 &lt;&amp;&gt; over time");
    T_CONTAINS(b.p, "data-points=\"5000\" data-steps=\"3\"");
    char want[160];
    snprintf(want, sizeof want, "<circle class=\"peak\"");
    T_EQ_U64(count_of(b.p, want), 1);
    snprintf(want, sizeof want, "data-bytes=\"%.0f\" data-ts-ns=\"%.0f\"", peak, peak_ts);
    T_CONTAINS(b.p, want);
    T_CONTAINS(b.p, "peak 200 MiB");
    T_EQ_U64(count_of(b.p, "<line class=\"ref stepb\""), 4);
    T_CONTAINS(b.p, "data-step=\"1\" data-ts-ns=\"2600000\" data-peak-bytes=\"-1\"");
    T_CONTAINS(b.p, "ProfilerStep 8 starts; its peak on this device: unknown");
    T_CONTAINS(b.p, "data-step=\"2\" data-ts-ns=\"5900000\"><title>ProfilerStep 9 ends");
    /* The line's vertices: its highest reaches the peak's pixel, its lowest the lowest
     * value's, though 5000 points share 676 columns. */
    const char *pts = strstr(b.p, "class=\"line memline\"");
    T_TRUE(pts != NULL);
    pts = pts ? strstr(pts, " points=\"") : NULL;
    double ymin = 1e9, ymax = -1e9;
    size_t nv = 0;
    for (const char *q = pts ? pts + 9 : NULL; q && *q && *q != '"';) {
        char *e;
        strtod(q, &e);
        if (*e != ',') break;
        double y = strtod(e + 1, &e);
        ymin = fmin(ymin, y), ymax = fmax(ymax, y);
        nv++;
        q = e + (*e == ' ');
    }
    T_TRUE(nv > 100 && nv <= 5 * 700 + 3);
    sts_axis ay;
    sts_axis_bytes(&ay, 0, peak, 5);
    double y_top = 86, y_bot = y_top + 220;
    T_TRUE(fabs(ymin - sts_axis_map(&ay, peak, y_bot, y_top)) < 0.01);
    T_TRUE(fabs(ymax - sts_axis_map(&ay, low, y_bot, y_top)) < 0.01);
    T_EQ_STR(ay.unit_name, "MiB");
    T_EQ_U64(svg_layout_problems(b.p, "memory"), 0);
    sts_sbuf_release(&b);

    /* No steps, one point, a peak unknown: nothing marked, nothing invented. */
    double t1[] = { 5 }, b1[] = { 3 };
    sts_rpt_memory u = { "cpu", 5, 5, 1, t1, b1, -1, 0, -1, -1, NULL, 0, 0, NULL, NULL, NULL, NULL };
    sts_rpt_draw_memory(&b, "fig-memory", 0, &u);
    T_TRUE(b.p && !strstr(b.p, "class=\"peak\"") && !strstr(b.p, "stepb"));
    T_CONTAINS(b.p ? b.p : "", "start unknown, peak unknown, end unknown");
    T_EQ_U64(svg_layout_problems(b.p ? b.p : "", "memory, unknown"), 0);
    sts_sbuf_release(&b);
}

TEST(byte_axis_units_and_plain_ticks)
{
    static const struct {
        double hi;
        const char *unit;
    } cases[] = { { 0, "B" },      { 9, "B" },           { 900, "B" },
                  { 20e3, "KiB" }, { 101305344, "MiB" }, { 1730171904, "MiB" },
                  { 80e9, "GiB" } };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_axis a;
        sts_axis_bytes(&a, 0, cases[i].hi, 5);
        T_EQ_STR(a.unit_name, cases[i].unit);
        T_TRUE(a.hi >= cases[i].hi && a.lo <= 0 && labels_are_plain(&a));
        /* Each tick is a whole number of 1, 2 or 5 times a power of ten of its unit. */
        double st = a.step / a.unit, m = st / pow(10, floor(log10(st) + 1e-9));
        T_TRUE(fabs(m - 1) < 1e-6 || fabs(m - 2) < 1e-6 || fabs(m - 5) < 1e-6);
    }
}

TEST(layout_of_random_memory_figures)
{
    size_t bad = 0;
    static double ts[3000], by[3000], s0[60], s1[60], sp[60];
    static char lab[60][24], dev[200];
    const char *labels[60];
    for (unsigned it = 0; it < 200; it++) {
        size_t n = rnd() % 3000, ns = rnd() % 61;
        double t = rnd_ns(), span = rnd_ns(), top = pow(10, rnd_unit() * 11), peak = -1, pts = 0;
        for (size_t i = 0; i < n; i++) {
            ts[i] = t + span * (double)i / (double)(n ? n : 1);
            by[i] = floor(top * rnd_unit());
            if (by[i] > peak) peak = by[i], pts = ts[i];
        }
        for (size_t k = 0; k < ns; k++) {
            s0[k] = t + span * (double)k / (double)(ns ? ns : 1);
            s1[k] = t + span * (double)(k + 1) / (double)(ns ? ns : 1);
            sp[k] = rnd() % 5 ? top * rnd_unit() : -1;
            snprintf(lab[k], sizeof lab[k], "%zu", k + (size_t)(rnd() % 100000));
            labels[k] = lab[k];
        }
        rnd_name(dev, sizeof dev);
        sts_rpt_memory m = { dev,
                             t,
                             t + span,
                             n,
                             ts,
                             by,
                             rnd() % 6 ? peak : -1,
                             pts,
                             n ? by[0] : -1,
                             n ? by[n - 1] : -1,
                             "ProfilerStep",
                             ns,
                             ns + rnd() % 3,
                             labels,
                             s0,
                             s1,
                             sp };
        sts_sbuf b = STS_SBUF_INIT;
        sts_rpt_draw_memory(&b, "fig-memory", 1, &m);
        bad += check_svg(&b, "memory", it);
        sts_sbuf_release(&b);
    }
    T_EQ_U64(bad, 0);
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
    RUN(text_widths_follow_the_glyphs);
    RUN(middle_cut_keeps_both_ends);
    RUN(cut_names_never_read_the_same);
    RUN(spread_keeps_labels_apart_in_order);
    RUN(bench_close_medians_both_labelled_apart);
    RUN(lane_names_tell_lanes_apart);
    RUN(enclosing_frames_fold_into_one_row);
    RUN(one_numbered_step_is_named_once);
    RUN(layout_of_every_figure_from_real_inputs);
    RUN(layout_of_random_bench_figures);
    RUN(layout_of_random_steps_figures);
    RUN(layout_of_random_lane_figures);
    RUN(layout_of_random_ledger_figures);
    RUN(layout_of_random_diff_and_windows_figures);
    RUN(memory_figure_marks);
    RUN(byte_axis_units_and_plain_ticks);
    RUN(layout_of_random_memory_figures);
    return t_done();
}
