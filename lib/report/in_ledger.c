/* A ledger section (`stepscope ledger --json`, schema "stepscope.ledger/1"): new traces
 * and compiles per call, compile time per function, host-sync waits per scope and the
 * churn diagnoses. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/report_impl.h"
#include "stepscope/ledger.h"

#define MAX_CALLS 40
#define MAX_BARS  30

static const char HOW_CALLS[] =
    "One group of bars per call, in the order the calls were made: how many new traces (the function's source "
    "was staged again) and new compiles (a program was built) that call caused. The vertical axis counts events, "
    "not time. A zero, marked by a short line on the baseline and a written 0, is an observation: the call reused "
    "a specialization it already had. A new value of an array or a dynamic scalar should give 0; a new shape, "
    "dtype or static choice gives 1.";

static const char HOW_LOG_ROWS[] =
    "One group of bars per record of a compile log, in log order: the new traces and compiles it shows. A compile "
    "log records only misses, never a call that reused a specialization, so the number of calls and of cache hits "
    "is unknown here and no bar stands for a reuse. A 0 on a row is a trace without a compile of its own (a helper "
    "traced inside another function) or a recompile the limit refused.";

static const char HOW_FNS[] =
    "Time spent compiling each function, summed over all its compiles (the count is written after the time), "
    "longest first. Compiling is paid again for every new specialization, so a function with many compiles and "
    "a large total is churning: see the diagnosis below the figure. \"No time recorded\" means the log gave the "
    "compiles but not their duration.";

static const char HOW_SYNCS[] =
    "Total time the host waited on device work in each scope of host synchronizations (blocking reads, waits, "
    "scalar conversions), with how many there were. A read in every step makes the host wait once per step; one "
    "final wait lets the queued work run back to back.";

/* A count or time of the document as the figures hold it: NAN when not recorded. */
static double value(int64_t v)
{
    return v < 0 ? NAN : (double)v;
}

/* Why a function's calls and hits are unknown (rows from a compile log), or NULL. */
static const char *unknown_hits(const sts_ledger_doc *doc)
{
    for (size_t i = 0; i < doc->nfunctions; i++)
        if (doc->functions[i].hits_unknown)
            return doc->functions[i].unknown ? doc->functions[i].unknown : "not in the input";
    return NULL;
}

static sts_status calls_fig(sts_report *r, sts_rpt_section *sec, const sts_ledger_doc *doc, int from_log,
                            const char *name, sts_error *err)
{
    size_t n = doc->nrows, shown = n < MAX_CALLS ? n : MAX_CALLS;
    sts_rpt_ledger_calls *c = sts_rpt_alloc(r, sizeof *c);
    if (!c) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    c->labels = sts_rpt_alloc(r, (shown + 1) * sizeof *c->labels);
    c->traces = sts_rpt_alloc(r, (shown + 1) * sizeof *c->traces);
    c->compiles = sts_rpt_alloc(r, (shown + 1) * sizeof *c->compiles);
    if (!c->labels || !c->traces || !c->compiles)
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    for (size_t i = 0; i < shown; i++) {
        const sts_ledger_doc_row *row = &doc->rows[i];
        char buf[512];
        if (row->label && *row->label)
            snprintf(buf, sizeof buf, "%s", row->label);
        else
            snprintf(buf, sizeof buf, "%s #%zu", row->function ? row->function : "?", i + 1);
        c->labels[i] = sts_rpt_strdup(r, buf);
        c->traces[i] = value(row->traces);
        c->compiles[i] = value(row->compiles);
    }
    c->n = shown;
    c->from_log = from_log;
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_LEDGER_CALLS, "fig-ledger-calls", c, from_log ? HOW_LOG_ROWS : HOW_CALLS))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    if (n > shown) {
        char note[160];
        snprintf(note, sizeof note, "The figure shows the first %zu of %zu calls.", shown, n);
        sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note);
    }
    return STS_OK;
}

static sts_rpt_hbars *hbars_new(sts_report *r, size_t n)
{
    sts_rpt_hbars *h = sts_rpt_alloc(r, sizeof *h);
    if (!h) return NULL;
    h->names = sts_rpt_alloc(r, (n + 1) * sizeof *h->names);
    h->ns = sts_rpt_alloc(r, (n + 1) * sizeof *h->ns);
    h->counts = sts_rpt_alloc(r, (n + 1) * sizeof *h->counts);
    return h->names && h->ns && h->counts ? h : NULL;
}

/* Longest compile time first; a stable insertion sort keeps the ledger's order on ties
 * and puts functions without a recorded time last. */
static void sort_by_time(sts_rpt_hbars *h)
{
    for (size_t i = 1; i < h->n; i++) {
        const char *name = h->names[i];
        double ns = h->ns[i];
        uint32_t c = h->counts[i];
        double key = isfinite(ns) ? ns : -1;
        size_t j = i;
        while (j > 0 && (isfinite(h->ns[j - 1]) ? h->ns[j - 1] : -1) < key) {
            h->names[j] = h->names[j - 1];
            h->ns[j] = h->ns[j - 1];
            h->counts[j] = h->counts[j - 1];
            j--;
        }
        h->names[j] = name;
        h->ns[j] = ns;
        h->counts[j] = c;
    }
}

static sts_status fns_fig(sts_report *r, sts_rpt_section *sec, const sts_ledger_doc *doc, const char *name,
                          sts_error *err)
{
    size_t n = doc->nfunctions, shown = n < MAX_BARS ? n : MAX_BARS;
    sts_rpt_hbars *h = hbars_new(r, shown);
    if (!h) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    h->title = "Compile time per function";
    h->axis_title = "compile time, summed over its compiles";
    h->count_word = "compile";
    h->data_name = "compiles";
    int any_time = 0;
    for (size_t i = 0; i < shown; i++) {
        const sts_ledger_doc_fn *f = &doc->functions[i];
        h->names[i] = sts_rpt_strdup(r, f->name ? f->name : "?");
        h->ns[i] = value(f->compile_ns);
        h->counts[i] = f->compiles >= 0 ? (uint32_t)fmin((double)f->compiles, 4e9) : 0;
        if (f->compile_ns > 0) any_time = 1;
    }
    h->n = shown;
    sort_by_time(h);
    if (!any_time) {
        sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE,
                         "No compile times were recorded, so there is no compile-time figure.");
        return STS_OK;
    }
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_HBARS, "fig-ledger-compile", h, HOW_FNS))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    return STS_OK;
}

static sts_status syncs_fig(sts_report *r, sts_rpt_section *sec, const sts_ledger_doc *doc, const char *name,
                            sts_error *err)
{
    size_t n = doc->nscopes, shown = n < MAX_BARS ? n : MAX_BARS;
    if (n == 0) return STS_OK;
    sts_rpt_hbars *h = hbars_new(r, shown);
    if (!h) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    h->title = "Host waits per synchronization scope";
    h->axis_title = "time the host waited, summed";
    h->count_word = "sync";
    h->data_name = "syncs";
    for (size_t i = 0; i < shown; i++) {
        const sts_ledger_doc_scope *s = &doc->scopes[i];
        h->names[i] = sts_rpt_strdup(r, s->scope ? s->scope : "?");
        h->ns[i] = value(s->total_ns);
        h->counts[i] = s->count >= 0 ? (uint32_t)fmin((double)s->count, 4e9) : 0;
    }
    h->n = shown;
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_HBARS, "fig-ledger-syncs", h, HOW_SYNCS))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    return STS_OK;
}

static void ledger_facts(sts_report *r, sts_rpt_section *sec, const sts_ledger_doc *doc)
{
    double traces = 0, compiles = 0;
    for (size_t i = 0; i < doc->nrows; i++) {
        traces += doc->rows[i].traces > 0 ? (double)doc->rows[i].traces : 0;
        compiles += doc->rows[i].compiles > 0 ? (double)doc->rows[i].compiles : 0;
    }
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    if (doc->schema) sts_rpt_fact(r, f, "schema", "%s", doc->schema);
    sts_rpt_fact(r, f, "functions", "%zu", doc->nfunctions);
    sts_rpt_fact(r, f, "calls / records", "%zu", doc->nrows);
    sts_rpt_fact(r, f, "new traces / compiles", "%.0f / %.0f", traces, compiles);
    const char *unknown = unknown_hits(doc);
    if (unknown) sts_rpt_fact(r, f, "calls / cache hits", "unknown (%s)", unknown);
    if (doc->syncs == STS_LEDGER_DOC_SYNCS_UNKNOWN)
        sts_rpt_fact(r, f, "host syncs", "unknown (%s)", doc->syncs_unknown ? doc->syncs_unknown : "not in the input");
    if (doc->nwarnings)
        sts_rpt_fact(r, f, "warnings", "%zu log records did not parse (see the ledger's warnings)", doc->nwarnings);
}

sts_status sts_report_add_ledger_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err)
{
    if (!r || !text) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no text given");
    name = name ? name : "(ledger json)";
    sts_ledger_doc *doc = NULL;
    sts_status st = sts_ledger_read_json(text, len, name, &doc, err);
    if (st != STS_OK) return st;
    sts_rpt_section *sec = sts_rpt_section_new(r, "ledger", "Ledger: specializations, compiles and host waits", name);
    if (!sec) st = sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    if (st == STS_OK) {
        ledger_facts(r, sec, doc);
        st = calls_fig(r, sec, doc, unknown_hits(doc) != NULL, name, err);
    }
    if (st == STS_OK) st = fns_fig(r, sec, doc, name, err);
    if (st == STS_OK && doc->nchurn) sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Churn: what keeps re-specializing");
    for (size_t i = 0; st == STS_OK && i < doc->nchurn && i < 20; i++)
        if (doc->churn[i] && *doc->churn[i]) sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, doc->churn[i]);
    if (st == STS_OK) st = syncs_fig(r, sec, doc, name, err);
    sts_ledger_doc_free(doc);
    if (st == STS_OK) sts_rpt_section_commit(r, sec);
    return st;
}
