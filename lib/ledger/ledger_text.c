/* ledger: the human-readable summary. */
#include "ledger/ledger_impl.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "stepscope/format.h"
#include "stepscope/outfile.h"

/* Names, signatures and messages come from the log: their controls (ESC, BEL) must
 * not reach the terminal (sts_fmt_put_text). */
static void put_line(FILE *f, const char *s)
{
    sts_fmt_put_text(f, s, strlen(s));
    fputc('\n', f);
}

/* "  " and the name, padded to w bytes as "%-*s" would. */
static void put_name(FILE *f, const char *s, int w)
{
    size_t n = strlen(s);
    fputs("  ", f);
    sts_fmt_put_text(f, s, n);
    for (size_t k = n; k < (size_t)w; k++)
        fputc(' ', f);
}

static void print_functions(const sts_ledger *l, FILE *f)
{
    char tr[32], co[32], mx[32], hits[32];
    const char *unknown = NULL;
    /* The name column fits the longest name (within reason), so the columns line up. */
    int w = 28;
    for (size_t i = 0; i < l->fns.n; i++) {
        size_t n = strlen(lg_str(l, l->fns.v[i].name));
        if ((int)n > w) w = n > 72 ? 72 : (int)n;
    }
    fprintf(f, "functions (%zu)\n", l->fns.n);
    fprintf(f, "  %-*s %6s %6s %8s %7s %11s %11s %11s %5s\n", w, "function", "rows", "traces", "compiles", "hits",
            "trace", "compile", "max compile", "sigs");
    for (size_t i = 0; i < l->fns.n; i++) {
        sts_ledger_fn_info in;
        sts_ledger_function(l, i, &in);
        sts_lg_fmt_ns(in.trace_ns, tr, sizeof tr);
        sts_lg_fmt_ns(in.compile_ns, co, sizeof co);
        sts_lg_fmt_ns(in.max_compile_ns, mx, sizeof mx);
        if (in.hits < 0)
            snprintf(hits, sizeof hits, "unknown");
        else
            snprintf(hits, sizeof hits, "%" PRId64, in.hits);
        if (in.unknown && !unknown) unknown = in.unknown;
        put_name(f, in.name, w);
        fprintf(f, " %6" PRId64 " %6" PRId64 " %8" PRId64 " %7s %*s %*s %*s %5" PRId64 "\n", in.rows, in.traces,
                in.compiles, hits, sts_fmt_field(tr, 11), tr, sts_fmt_field(co, 11), co, sts_fmt_field(mx, 11), mx,
                in.signatures);
        if (in.persistent_hits || in.persistent_misses || in.persistent_writes)
            fprintf(f, "      persistent cache: %" PRId64 " hits, %" PRId64 " misses, %" PRId64 " writes\n",
                    in.persistent_hits, in.persistent_misses, in.persistent_writes);
        if (in.limit_hits)
            fprintf(f, "      hit the recompile limit %" PRId64 " time(s): later calls ran uncompiled%s\n",
                    in.limit_hits,
                    in.source == STS_LEDGER_SRC_TORCH_LOG || in.source == STS_LEDGER_SRC_TORCH_TRACE
                        ? "; fix what recompiles (churn below) before raising torch._dynamo.config.recompile_limit "
                          "(cache_size_limit before 2.6)"
                        : "");
        if (in.graph_breaks > 0)
            fprintf(f, "      %" PRId64 " graph break(s) (listed below): each splits the frame in two graphs\n",
                    in.graph_breaks);
        for (int64_t j = 0; j < in.signatures && j < 12; j++) {
            fprintf(f, "      sig %" PRId64 ": ", j + 1);
            put_line(f, sts_ledger_function_signature(l, i, (size_t)j));
        }
        if (in.signatures > 12) fprintf(f, "      ... %" PRId64 " more signatures\n", in.signatures - 12);
    }
    if (unknown)
        fprintf(f,
                "  hits: unknown (%s): a compile log records traces and compiles, never a call that reused "
                "a specialization; rows are the specializations it logged\n",
                unknown);
}

/* Reason details listed per function in the text summary. */
#define MAX_DETAILS 8

static void print_reasons(const sts_ledger *l, FILE *f)
{
    if (!l->reasons.n) return;
    fprintf(f, "\ncache-miss reasons\n");
    for (size_t i = 0; i < l->fns.n; i++) {
        const lg_fn *fn = &l->fns.v[i];
        int any = 0;
        for (int k = 0; k < STS_MISS_COUNT; k++)
            any |= fn->reasons[k] > 0;
        if (!any) continue;
        fputs("  ", f);
        sts_fmt_put_text(f, lg_str(l, fn->name), strlen(lg_str(l, fn->name)));
        fputc(':', f);
        for (int k = 0; k < STS_MISS_COUNT; k++)
            if (fn->reasons[k])
                fprintf(f, " %s %" PRId64, sts_miss_category_name((sts_miss_category)k), fn->reasons[k]);
        fputc('\n', f);
        size_t shown = 0, more = 0;
        for (uint32_t id = fn->first_reason; id; id = l->reasons.v[id - 1].next) {
            size_t r = id - 1;
            if (shown++ >= MAX_DETAILS) {
                more++;
                continue;
            }
            const char *d = lg_str(l, l->reasons.v[r].detail);
            fprintf(f, "      [%s] ", sts_miss_category_name((sts_miss_category)l->reasons.v[r].cat));
            sts_fmt_put_text(f, d, strlen(d));
            fprintf(f, " (x%" PRId64 ")\n", l->reasons.v[r].count);
        }
        if (more) fprintf(f, "      ... %zu more (all of them are in --json)\n", more);
    }
}

static void print_graph_breaks(const sts_ledger *l, FILE *f)
{
    size_t n = sts_ledger_graph_break_count(l);
    if (!n) return;
    fprintf(f, "\ngraph breaks (%zu)\n", n);
    for (size_t i = 0; i < n; i++) {
        sts_ledger_graph_break g;
        sts_ledger_graph_break_get(l, i, &g);
        fputs("  ", f);
        sts_fmt_put_text(f, g.function, strlen(g.function));
        if (g.where[0]) {
            fputs(" at ", f);
            sts_fmt_put_text(f, g.where, strlen(g.where));
        }
        fprintf(f, " (x%" PRId64 "): ", g.count);
        put_line(f, g.reason);
    }
}

static void print_syncs(const sts_ledger *l, FILE *f)
{
    const char *unknown = sts_ledger_syncs_unknown(l);
    if (unknown) {
        fprintf(f,
                "\nhost syncs: unknown (%s): a compile log does not record when the host waited for the device; "
                "record syncs with sts_ledger_read/wait/scalar (stepscope/spec.h) or read a profile's trace\n",
                unknown);
        return;
    }
    size_t n = sts_ledger_sync_scope_count(l);
    if (!n) return;
    char tot[32], mx[32];
    fprintf(f, "\nhost syncs (%zu)\n", l->syncs.n);
    for (size_t i = 0; i < n; i++) {
        sts_ledger_sync_scope s;
        sts_ledger_sync_scope_get(l, i, &s);
        sts_lg_fmt_ns(s.total_ns, tot, sizeof tot);
        sts_lg_fmt_ns(s.max_ns, mx, sizeof mx);
        fprintf(f,
                "  %-28s %4" PRId64 " syncs (%" PRId64 " reads, %" PRId64 " waits, %" PRId64
                " scalar conversions), waited %s in all, longest %s\n",
                s.scope, s.count, s.reads, s.waits, s.scalars, tot, mx);
    }
}

sts_status sts_ledger_write_text(sts_ledger *l, FILE *f, sts_error *err)
{
    sts_status st = sts_ledger_finalize(l, err);
    if (st != STS_OK) return st;
    print_functions(l, f);
    print_reasons(l, f);
    if (l->churn.n) {
        fprintf(f, "\nchurn\n");
        for (size_t i = 0; i < l->churn.n; i++) {
            fputs("  ", f);
            put_line(f, lg_str(l, l->churn.v[i].message));
        }
    }
    print_graph_breaks(l, f);
    print_syncs(l, f);
    if (l->log.files)
        fprintf(f,
                "\nlogs: %" PRId64 " file(s), %" PRId64 " lines, %" PRId64 " records, %" PRId64
                " unknown lines skipped, %" PRId64 " warnings\n",
                l->log.files, l->log.lines, l->log.records, l->log.skipped, l->log.warnings);
    for (size_t i = 0; i < l->warnings.n; i++) {
        fputs("  warning: ", f);
        put_line(f, lg_str(l, l->warnings.v[i]));
    }
    if (l->log.warnings > (int64_t)l->warnings.n)
        fprintf(f, "  ... %" PRId64 " more warnings\n", l->log.warnings - (int64_t)l->warnings.n);
    int e = sts_stream_failure(f);
    if (e) return sts_error_set(err, STS_ERR_IO, -1, "ledger: cannot write to %s: %s", sts_stream_name(f), strerror(e));
    return STS_OK;
}
