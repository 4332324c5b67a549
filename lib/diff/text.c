/* The diff for people: a header naming both runs, one table row per interval (all the
 * step rows, the first `top` interval names), notes, then each prediction with its
 * sentence. Columns use ASCII so they line up in any terminal. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "diff/diff_impl.h"
#include "stepscope/format.h"

#define NAME_W 30

/* Byte offset of the character at column `col` of s (UTF-8). */
static size_t col_offset(const char *s, int col)
{
    size_t i = 0;
    for (int c = 0; s[i] && c < col; c++) {
        i++;
        while (((unsigned char)s[i] & 0xc0) == 0x80)
            i++;
    }
    return i;
}

static void put_printable(FILE *f, const char *s, size_t n)
{
    for (size_t k = 0; k < n; k++)
        fputc((unsigned char)s[k] < 0x20 ? '?' : s[k], f);
}

/* Prints s in exactly `width` columns (UTF-8 aware), padded, or cut in the middle with
 * "..." so both the start and the end (a key's ".specializations") stay readable;
 * control characters become '?'. */
static void cell(FILE *f, const char *s, int width)
{
    int cols = 0;
    for (size_t k = 0; s[k]; k++)
        if (((unsigned char)s[k] & 0xc0) != 0x80) cols++;
    if (cols <= width) {
        put_printable(f, s, strlen(s));
        for (int c = cols; c < width; c++)
            fputc(' ', f);
        return;
    }
    int tail = width / 3, head = width - 3 - tail;
    put_printable(f, s, col_offset(s, head));
    fputs("...", f);
    const char *t = s + col_offset(s, cols - tail);
    put_printable(f, t, strlen(t));
}

static void ascii_pct(double p, char *buf, size_t cap)
{
    if (isnan(p)) {
        snprintf(buf, cap, "-");
    } else if (isinf(p)) {
        snprintf(buf, cap, "%s", p < 0 ? "-inf" : "+inf");
    } else if (p == 0) {
        snprintf(buf, cap, "0%%");
    } else {
        double a = fabs(p);
        snprintf(buf, cap, "%+.*f%%", a >= 10 ? 0 : a >= 1 ? 1 : 2, p);
    }
}

static void value_cell(const sts_diff_interval *r, int side, char *buf, size_t cap)
{
    const sts_diff_stats *s = &r->stats;
    size_t n = side ? s->n_new : s->n_base;
    if (n == 0) {
        int absent = side ? s->verdict == STS_DIFF_DISAPPEARED : s->verdict == STS_DIFF_APPEARED;
        snprintf(buf, cap, "%s", absent ? "-" : "unknown");
        return;
    }
    if (strcmp(r->unit, "count") == 0 || strcmp(r->unit, "bytes") == 0) {
        snprintf(buf, cap, "%" PRId64 "%s", side ? s->median_new : s->median_base, r->unit[0] == 'b' ? " B" : "");
        return;
    }
    char a[48], b[48];
    sts_dd_fmt_pair(s->median_base, s->median_new, a, b, sizeof a);
    snprintf(buf, cap, "%s", side ? b : a);
}

static void verdict_cell(const sts_diff_interval *r, char *buf, size_t cap)
{
    const sts_diff_stats *s = &r->stats;
    if (s->verdict == STS_DIFF_INCONCLUSIVE && s->samples_needed)
        snprintf(buf, cap, "inconclusive (~%llu %ss)", (unsigned long long)s->samples_needed, r->sample);
    else if (s->method == STS_DIFF_METHOD_NONE && s->verdict == STS_DIFF_INCONCLUSIVE)
        snprintf(buf, cap, "unknown");
    else
        snprintf(buf, cap, "%s", sts_diff_verdict_name(s->verdict));
}

static void print_row(FILE *f, const sts_diff_interval *r, int indent)
{
    const sts_diff_stats *s = &r->stats;
    char name[300], b[48], n[48], ch[24], lo[24], hi[24], ci[56], p[24], v[64];
    snprintf(name, sizeof name, "%s%s", indent ? "  " : "", r->key);
    value_cell(r, 0, b, sizeof b);
    value_cell(r, 1, n, sizeof n);
    ascii_pct(s->change_pct, ch, sizeof ch);
    if (isnan(s->ci_low_pct)) {
        snprintf(ci, sizeof ci, "-");
    } else {
        ascii_pct(s->ci_low_pct, lo, sizeof lo);
        ascii_pct(s->ci_high_pct, hi, sizeof hi);
        snprintf(ci, sizeof ci, "%s .. %s", lo, hi);
    }
    if (isnan(s->p_value))
        snprintf(p, sizeof p, "-");
    else
        snprintf(p, sizeof p, "%.2g", s->p_value);
    verdict_cell(r, v, sizeof v);
    fputs("  ", f);
    cell(f, name, NAME_W);
    /* sts_fmt_field: "µs" is two bytes for one column. */
    fprintf(f, " %*s %*s %8s %19s %8s %-11s %s\n", sts_fmt_field(b, 11), b, sts_fmt_field(n, 11), n, ch, ci, p,
            sts_diff_method_name(s->method), v);
}

static void header(const sts_diff *d, FILE *f)
{
    fprintf(f, "stepscope diff: %s, one sample per %s\n", sts_diff_kind_name(d->kind), d->samples_word);
    for (int i = 0; i < 2; i++) {
        const sts_dd_side *s = &d->side[i];
        fprintf(f, "  %-4s %s", i ? "NEW" : "BASE", s->name);
        if (d->kind == STS_DIFF_KIND_TRACE && s->steps)
            fprintf(f, "  (%zu %s steps, rule %s)", s->steps, s->step_name, s->rule);
        fputc('\n', f);
    }
    for (size_t i = 0; i < d->notes.n; i++)
        fprintf(f, "  note: %s\n", d->notes.v[i]);
    fprintf(f, "\n  ");
    cell(f, "interval", NAME_W);
    char ci[32];
    snprintf(ci, sizeof ci, "%g%% interval", d->opt.confidence * 100);
    fprintf(f, " %11s %11s %8s %19s %8s %-11s %s\n", "base", "new", "change", ci, "p", "test", "verdict");
    fprintf(f, "  %*s %11s %11s %8s %19s\n", NAME_W, "", "median", "median", "", "");
}

static int is_name_row(const sts_diff_interval *r)
{
    return strcmp(r->group, "name") == 0;
}

void sts_diff_print(const sts_diff *d, FILE *f, size_t top)
{
    header(d, f);
    size_t names = 0, shown = 0;
    for (size_t i = 0; i < d->rows.n; i++)
        names += is_name_row(&d->rows.v[i]);
    int said = 0, said_lanes = 0;
    for (size_t i = 0; i < d->rows.n; i++) {
        const sts_diff_interval *r = &d->rows.v[i];
        if (!said_lanes && strcmp(r->group, "lane") == 0) {
            fprintf(f, "  other lanes, busy time inside each step (process / thread):\n");
            said_lanes = 1;
        }
        if (is_name_row(r)) {
            if (top && shown >= top) continue;
            if (!said && d->samples_word && strcmp(d->samples_word, "step") == 0) {
                fprintf(f, "  other intervals, time inside each step on any lane (%s%zu by time):\n",
                        top && names > top ? "top " : "", top && names > top ? top : names);
                said = 1;
            }
            shown++;
        }
        print_row(f, r, strcmp(r->group, "child") == 0 || strcmp(r->group, "unattributed") == 0);
    }
    if (names > shown)
        fprintf(f, "  ... %zu more interval name%s (--top N, or --json for all)\n", names - shown,
                names - shown == 1 ? "" : "s");
    int conf = (int)lround(d->opt.confidence * 100);
    fprintf(f,
            "\n  change: Hodges-Lehmann shift in %% of the base median, with its %d%% interval; p: two-sided "
            "Mann-Whitney U;\n  test: exact, or normal (tie-corrected) approximation; same: within +-%g%%.\n"
            "  The verdicts compare these two runs, and whatever else differed between them (load, clocks):\n"
            "  repeat both runs to tell the change from run-to-run drift.\n",
            conf, d->opt.margin_pct);
    size_t tested = 0;
    for (size_t i = 0; i < d->rows.n; i++)
        tested += d->rows.v[i].stats.verdict == STS_DIFF_GREW || d->rows.v[i].stats.verdict == STS_DIFF_SHRANK ||
                  d->rows.v[i].stats.verdict == STS_DIFF_SAME || d->rows.v[i].stats.verdict == STS_DIFF_INCONCLUSIVE;
    if (tested > 20)
        fprintf(f,
                "  %zu intervals compared: with nothing changed, about %.0f would still read grew or shrank by "
                "chance.\n  State the interval you expect to move with --expect NAME:shrink.\n",
                tested, (double)tested * (1.0 - d->opt.confidence));
    if (!d->preds.n) return;
    fprintf(f, "\npredictions:\n");
    for (size_t i = 0; i < d->preds.n; i++) {
        const sts_diff_prediction *p = &d->preds.v[i];
        fprintf(f, "  %-12s %s\n  %12s %s\n", sts_diff_result_name(p->result), p->expect, "", p->why);
    }
}
