/* A ledger section (`stepscope ledger --json`, schema "stepscope.ledger/1"): new traces
 * and compiles per call, compile time per function, host-sync waits per scope and the
 * churn diagnoses. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "report/in_json.h"

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

static sts_status bad(sts_error *err, const char *name, const sts_jval *v, const char *what)
{
    return sts_error_set(err, STS_ERR_FORMAT, v ? (int64_t)v->offset : 0, "%s: byte %zu: %s", name, v ? v->offset : 0,
                         what);
}

/* A count member: a whole number >= 0, or absent / null (NAN). */
static sts_status count(const sts_jval *o, const char *key, const char *name, double *out, sts_error *err)
{
    const sts_jval *v = sts_json_get(o, key);
    *out = NAN;
    if (!v || v->type == STS_J_NULL) return STS_OK;
    if (v->type != STS_J_NUM || !(v->u.num >= 0) || v->u.num != floor(v->u.num) || v->u.num > 1e15) {
        char what[128];
        snprintf(what, sizeof what, "\"%s\" must be a whole number >= 0", key);
        return bad(err, name, v, what);
    }
    *out = v->u.num;
    return STS_OK;
}

/* A duration member in ns: a number >= 0, or absent / null (NAN). */
static sts_status nanos(const sts_jval *o, const char *key, const char *name, double *out, sts_error *err)
{
    return sts_rpt_json_number(sts_json_get(o, key), 1, name, key, out, err);
}

/* Whether any function's calls and hits are unknown (rows from a compile log), and
 * why ("not in JAX logs"), or NULL. */
static const char *unknown_hits(const sts_jval *fns)
{
    for (size_t i = 0; i < sts_json_len(fns); i++) {
        const sts_jval *f = sts_json_at(fns, i), *h = sts_json_get(f, "hits");
        if (h && h->type == STS_J_NULL) return sts_json_str(sts_json_get(f, "unknown"), "not in the input");
    }
    return NULL;
}

static sts_status calls_fig(sts_report *r, sts_rpt_section *sec, const sts_jval *rows, int from_log, const char *name,
                            sts_error *err)
{
    size_t n = sts_json_len(rows), shown = n < MAX_CALLS ? n : MAX_CALLS;
    sts_rpt_ledger_calls *c = sts_rpt_alloc(r, sizeof *c);
    if (!c) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    c->labels = sts_rpt_alloc(r, (shown + 1) * sizeof *c->labels);
    c->traces = sts_rpt_alloc(r, (shown + 1) * sizeof *c->traces);
    c->compiles = sts_rpt_alloc(r, (shown + 1) * sizeof *c->compiles);
    if (!c->labels || !c->traces || !c->compiles)
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    for (size_t i = 0; i < n; i++) {
        const sts_jval *row = sts_json_at(rows, i);
        if (row->type != STS_J_OBJ) return bad(err, name, row, "each of \"rows\" must be an object");
        double t, k;
        sts_status st;
        if ((st = count(row, "traces", name, &t, err)) != STS_OK ||
            (st = count(row, "compiles", name, &k, err)) != STS_OK)
            return st;
        if (i >= shown) continue;
        const char *label = sts_json_str(sts_json_get(row, "label"), NULL);
        const char *fn = sts_json_str(sts_json_get(row, "function"), "?");
        char buf[512];
        if (label && *label)
            snprintf(buf, sizeof buf, "%s", label);
        else
            snprintf(buf, sizeof buf, "%s #%zu", fn, i + 1);
        c->labels[i] = sts_rpt_strdup(r, buf);
        c->traces[i] = t;
        c->compiles[i] = k;
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

static sts_status fns_fig(sts_report *r, sts_rpt_section *sec, const sts_jval *fns, const char *name, sts_error *err)
{
    size_t n = sts_json_len(fns), shown = n < MAX_BARS ? n : MAX_BARS;
    sts_rpt_hbars *h = hbars_new(r, shown);
    if (!h) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    h->title = "Compile time per function";
    h->axis_title = "compile time, summed over its compiles";
    h->count_word = "compile";
    h->data_name = "compiles";
    int any_time = 0;
    for (size_t i = 0; i < n; i++) {
        const sts_jval *f = sts_json_at(fns, i);
        if (f->type != STS_J_OBJ) return bad(err, name, f, "each of \"functions\" must be an object");
        double ns, k;
        sts_status st;
        if ((st = nanos(f, "compile_ns", name, &ns, err)) != STS_OK ||
            (st = count(f, "compiles", name, &k, err)) != STS_OK)
            return st;
        if (i >= shown) continue;
        h->names[i] = sts_rpt_strdup(r, sts_json_str(sts_json_get(f, "name"), "?"));
        h->ns[i] = ns;
        h->counts[i] = isfinite(k) ? (uint32_t)fmin(k, 4e9) : 0;
        if (ns > 0) any_time = 1;
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

static sts_status syncs_fig(sts_report *r, sts_rpt_section *sec, const sts_jval *scopes, const char *name,
                            sts_error *err)
{
    size_t n = sts_json_len(scopes), shown = n < MAX_BARS ? n : MAX_BARS;
    if (n == 0) return STS_OK;
    sts_rpt_hbars *h = hbars_new(r, shown);
    if (!h) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    h->title = "Host waits per synchronization scope";
    h->axis_title = "time the host waited, summed";
    h->count_word = "sync";
    h->data_name = "syncs";
    for (size_t i = 0; i < n; i++) {
        const sts_jval *s = sts_json_at(scopes, i);
        if (s->type != STS_J_OBJ) return bad(err, name, s, "each of \"host_syncs\".\"scopes\" must be an object");
        double ns, k;
        sts_status st;
        if ((st = nanos(s, "total_ns", name, &ns, err)) != STS_OK || (st = count(s, "count", name, &k, err)) != STS_OK)
            return st;
        if (i >= shown) continue;
        h->names[i] = sts_rpt_strdup(r, sts_json_str(sts_json_get(s, "scope"), "?"));
        h->ns[i] = ns;
        h->counts[i] = isfinite(k) ? (uint32_t)fmin(k, 4e9) : 0;
    }
    h->n = shown;
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_HBARS, "fig-ledger-syncs", h, HOW_SYNCS))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    return STS_OK;
}

static void ledger_facts(sts_report *r, sts_rpt_section *sec, const sts_jval *root)
{
    const sts_jval *rows = sts_json_get(root, "rows"), *fns = sts_json_get(root, "functions");
    double traces = 0, compiles = 0;
    for (size_t i = 0; i < sts_json_len(rows); i++) {
        traces += fmax(0, sts_json_num(sts_json_get(sts_json_at(rows, i), "traces"), 0));
        compiles += fmax(0, sts_json_num(sts_json_get(sts_json_at(rows, i), "compiles"), 0));
    }
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    const char *schema = sts_json_str(sts_json_get(root, "schema"), NULL);
    if (schema) sts_rpt_fact(r, f, "schema", "%s", schema);
    sts_rpt_fact(r, f, "functions", "%zu", sts_json_len(fns));
    sts_rpt_fact(r, f, "calls / records", "%zu", sts_json_len(rows));
    sts_rpt_fact(r, f, "new traces / compiles", "%.0f / %.0f", traces, compiles);
    const char *unknown = unknown_hits(fns);
    if (unknown) sts_rpt_fact(r, f, "calls / cache hits", "unknown (%s)", unknown);
    const sts_jval *syncs = sts_json_get(root, "host_syncs");
    if (syncs && syncs->type == STS_J_NULL)
        sts_rpt_fact(r, f, "host syncs", "unknown (%s)",
                     sts_json_str(sts_json_get(root, "host_syncs_unknown"), "not in the input"));
    size_t nw = sts_json_len(sts_json_get(root, "warnings"));
    if (nw) sts_rpt_fact(r, f, "warnings", "%zu log records did not parse (see the ledger's warnings)", nw);
}

sts_status sts_report_add_ledger_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err)
{
    if (!r || !text) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no text given");
    name = name ? name : "(ledger json)";
    sts_jdoc doc = STS_JDOC_INIT;
    sts_status st = sts_json_parse(&doc, text, len, name, err);
    if (st != STS_OK) {
        sts_jdoc_release(&doc);
        return st;
    }
    const sts_jval *root = doc.root;
    const sts_jval *rows = sts_json_get(root, "rows"), *fns = sts_json_get(root, "functions");
    const sts_jval *syncs = sts_json_get(root, "host_syncs");
    if (root->type != STS_J_OBJ || (!rows && !fns)) {
        sts_jdoc_release(&doc);
        return sts_error_set(
            err, STS_ERR_FORMAT, 0,
            "%s: not a ledger: expected an object with \"rows\" and \"functions\" (stepscope.ledger/1)", name);
    }
    if ((rows && rows->type != STS_J_ARR) || (fns && fns->type != STS_J_ARR)) {
        const sts_jval *v = rows && rows->type != STS_J_ARR ? rows : fns;
        st = bad(err, name, v, "\"rows\" and \"functions\" must be arrays");
        sts_jdoc_release(&doc);
        return st;
    }
    sts_rpt_section *sec = sts_rpt_section_new(r, "ledger", "Ledger: specializations, compiles and host waits", name);
    if (!sec) {
        sts_jdoc_release(&doc);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    }
    ledger_facts(r, sec, root);
    st = calls_fig(r, sec, rows, unknown_hits(fns) != NULL, name, err);
    if (st == STS_OK) st = fns_fig(r, sec, fns, name, err);
    const sts_jval *churn = sts_json_get(root, "churn");
    if (st == STS_OK && sts_json_len(churn))
        sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Churn: what keeps re-specializing");
    for (size_t i = 0; st == STS_OK && i < sts_json_len(churn) && i < 20; i++) {
        const char *msg = sts_json_str(sts_json_get(sts_json_at(churn, i), "message"), NULL);
        if (msg && *msg) sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, msg);
    }
    if (st == STS_OK && syncs) {
        const sts_jval *scopes = sts_json_get(syncs, "scopes");
        if (scopes && scopes->type != STS_J_ARR)
            st = bad(err, name, scopes, "\"host_syncs\".\"scopes\" must be an array");
        else
            st = syncs_fig(r, sec, scopes, name, err);
    }
    sts_jdoc_release(&doc);
    if (st == STS_OK) sts_rpt_section_commit(r, sec);
    return st;
}
