/* Two ledgers compared: per function its compiles, specializations and traces (exact
 * counts: what changed is a fact, not an estimate) and the time of each compile
 * (samples); per host-sync scope the wait of each sync (samples) and their count. A
 * count the ledger gives as null is unknown and is not compared; host syncs a ledger
 * could not see (null) leave the scopes out, with a note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_impl.h"
#include "diff/jin.h"

typedef struct ledger {
    const char *file;
    sts_jdoc dom;
    const sts_jval *functions, *rows, *syncs;
} ledger;

/* A function's identity: its name, with its definition site when the ledger gives one
 * (two functions named <lambda> are different functions). */
static void identity(const sts_jval *o, const char *name_key, char *buf, size_t cap)
{
    const char *name = sts_json_str(sts_json_get(o, name_key), "");
    const char *site = sts_json_str(sts_json_get(o, "site"), NULL);
    if (site && *site && !strstr(name, site))
        snprintf(buf, cap, "%s (%s)", name, site);
    else
        snprintf(buf, cap, "%s", name);
}

static sts_status load(ledger *l, const char *text, size_t len, const char *file, sts_error *err)
{
    l->file = file;
    sts_status st = sts_json_parse(&l->dom, text, len, file, err);
    if (st != STS_OK) return st;
    const sts_jval *root = l->dom.root;
    l->functions = sts_json_get(root, "functions");
    l->rows = sts_json_get(root, "rows");
    l->syncs = sts_json_get(root, "host_syncs");
    if (root->type != STS_J_OBJ || !l->functions || l->functions->type != STS_J_ARR)
        return sts_error_set(
            err, STS_ERR_FORMAT, (int64_t)root->offset,
            "%s: not a ledger: expected an object with a \"functions\" array (stepscope ledger --json)", file);
    for (size_t i = 0; i < l->functions->u.arr.n; i++) {
        const sts_jval *f = l->functions->u.arr.items[i];
        if (f->type != STS_J_OBJ || !sts_json_str(sts_json_get(f, "name"), NULL))
            return sts_error_set(err, STS_ERR_FORMAT, (int64_t)f->offset,
                                 "%s: byte %zu: functions[%zu] must be an object with a \"name\"", file, f->offset, i);
    }
    return STS_OK;
}

static const sts_jval *find_function(const ledger *l, const char *id)
{
    for (size_t i = 0; i < l->functions->u.arr.n; i++) {
        char buf[512];
        identity(l->functions->u.arr.items[i], "name", buf, sizeof buf);
        if (strcmp(buf, id) == 0) return l->functions->u.arr.items[i];
    }
    return NULL;
}

/* A count of one side: 1 known, 0 null (unknown), -1 the function is absent. */
static int count_of(const ledger *l, const sts_jval *f, const char *key, int64_t *v, sts_error *err)
{
    if (!f) return -1;
    int got = sts_dj_int(sts_json_get(f, key), 1, l->file, key, v, err);
    return got < 0 ? -2 : got;
}

/* Every compile's time for function `id`: rows with compiles >= 1 and a known time. */
static sts_status compile_times(const ledger *l, const char *id, sts_dj_vec *out, sts_error *err)
{
    for (size_t i = 0; l->rows && i < sts_json_len(l->rows); i++) {
        const sts_jval *r = sts_json_at(l->rows, i);
        char buf[512];
        identity(r, "function", buf, sizeof buf);
        if (strcmp(buf, id) != 0) continue;
        int64_t compiles, ns;
        int kc = sts_dj_int(sts_json_get(r, "compiles"), 1, l->file, "compiles", &compiles, err);
        int kt = sts_dj_int(sts_json_get(r, "compile_ns"), 1, l->file, "compile_ns", &ns, err);
        if (kc < 0 || kt < 0) return STS_ERR_FORMAT;
        if (kc == 0 || compiles < 1 || kt == 0) continue;
        int64_t *slot = STS_VEC_PUSH(*out);
        if (!slot) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
        *slot = ns;
    }
    return STS_OK;
}

static sts_status function_rows(sts_diff *d, const char *id, const ledger *lb, const ledger *ln, sts_error *err)
{
    static const char *counts[] = { "compiles", "specializations", "traces" };
    const sts_jval *fb = find_function(lb, id), *fn = find_function(ln, id);
    sts_status st = STS_OK;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0] && st == STS_OK; k++) {
        int64_t x = 0, y = 0;
        int kb = count_of(lb, fb, counts[k], &x, err), kn = count_of(ln, fn, counts[k], &y, err);
        if (kb == -2 || kn == -2) return STS_ERR_FORMAT;
        const char *note = kb == 0 || kn == 0 ? "null in the ledger: the input cannot tell" : NULL;
        st = sts_dd_add_counts(d, id, counts[k], kb, x, kn, y, note, err);
    }
    sts_dj_vec t[2] = { { 0 }, { 0 } };
    if (st == STS_OK && fb) st = compile_times(lb, id, &t[0], err);
    if (st == STS_OK && fn) st = compile_times(ln, id, &t[1], err);
    if (st == STS_OK && (t[0].n || t[1].n)) {
        sts_dd_series sb = { t[0].v, NULL, t[0].n }, sn = { t[1].v, NULL, t[1].n };
        st = sts_dd_add_samples(d, id, "compile_time", "ns", "compile", sb, sn, NULL, err);
    }
    STS_VEC_RELEASE(t[0]);
    STS_VEC_RELEASE(t[1]);
    return st;
}

/* ---- host syncs ------------------------------------------------------------------- */

static int syncs_known(const ledger *l)
{
    return l->syncs && l->syncs->type == STS_J_OBJ;
}

static const sts_jval *find_scope(const ledger *l, const char *scope)
{
    const sts_jval *scopes = sts_json_get(l->syncs, "scopes");
    for (size_t i = 0; i < sts_json_len(scopes); i++)
        if (strcmp(sts_json_str(sts_json_get(sts_json_at(scopes, i), "scope"), ""), scope) == 0)
            return sts_json_at(scopes, i);
    return NULL;
}

static sts_status waits(const ledger *l, const char *scope, sts_dj_vec *out, sts_error *err)
{
    const sts_jval *ev = sts_json_get(l->syncs, "events");
    for (size_t i = 0; i < sts_json_len(ev); i++) {
        const sts_jval *e = sts_json_at(ev, i);
        if (strcmp(sts_json_str(sts_json_get(e, "scope"), ""), scope) != 0) continue;
        int64_t ns;
        int k = sts_dj_int(sts_json_get(e, "wait_ns"), 1, l->file, "wait_ns", &ns, err);
        if (k < 0) return STS_ERR_FORMAT;
        if (k == 0) continue;
        int64_t *slot = STS_VEC_PUSH(*out);
        if (!slot) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
        *slot = ns;
    }
    return STS_OK;
}

static sts_status scope_rows(sts_diff *d, const char *scope, const ledger *lb, const ledger *ln, sts_error *err)
{
    const sts_jval *sb = find_scope(lb, scope), *sn = find_scope(ln, scope);
    sts_dj_vec w[2] = { { 0 }, { 0 } };
    sts_status st = sb ? waits(lb, scope, &w[0], err) : STS_OK;
    if (st == STS_OK && sn) st = waits(ln, scope, &w[1], err);
    if (st == STS_OK) {
        sts_dd_series xb = { w[0].v, NULL, w[0].n }, xn = { w[1].v, NULL, w[1].n };
        st = sts_dd_add_samples(d, scope, "wait", "ns", "sync", xb, xn, NULL, err);
    }
    int64_t x = 0, y = 0;
    int kb = sb ? sts_dj_int(sts_json_get(sb, "count"), 1, lb->file, "count", &x, err) : -1;
    int kn = sn ? sts_dj_int(sts_json_get(sn, "count"), 1, ln->file, "count", &y, err) : -1;
    if (st == STS_OK && ((sb && kb < 0) || (sn && kn < 0))) st = STS_ERR_FORMAT;
    if (st == STS_OK) st = sts_dd_add_counts(d, scope, "syncs", kb, x, kn, y, NULL, err);
    STS_VEC_RELEASE(w[0]);
    STS_VEC_RELEASE(w[1]);
    return st;
}

static sts_status sync_rows(sts_diff *d, const ledger *lb, const ledger *ln, sts_error *err)
{
    if (!syncs_known(lb) || !syncs_known(ln)) {
        const char *which = !syncs_known(lb) && !syncs_known(ln) ? "both ledgers" : !syncs_known(lb) ? "BASE" : "NEW";
        return sts_dd_note(d, "host syncs are unknown in %s (compile logs do not record them): not compared", which) ==
                       STS_OK
                   ? STS_OK
                   : sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    }
    const ledger *both[2] = { lb, ln };
    sts_status st = STS_OK;
    for (int side = 0; side < 2 && st == STS_OK; side++) {
        const sts_jval *scopes = sts_json_get(both[side]->syncs, "scopes");
        for (size_t i = 0; i < sts_json_len(scopes) && st == STS_OK; i++) {
            const char *scope = sts_json_str(sts_json_get(sts_json_at(scopes, i), "scope"), NULL);
            if (!scope || (side == 1 && find_scope(lb, scope))) continue;
            st = scope_rows(d, scope, lb, ln, err);
        }
    }
    return st;
}

sts_status sts_diff_ledger_json(const char *base_text, size_t base_len, const char *base_name, const char *new_text,
                                size_t new_len, const char *new_name, const sts_diff_options *opt, sts_diff **out,
                                sts_error *err)
{
    *out = NULL;
    ledger *lb = calloc(2, sizeof *lb), *ln = lb ? lb + 1 : NULL;
    if (!lb) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    sts_diff_stats probe;
    sts_status st = sts_diff_samples(NULL, 0, NULL, 0, opt, &probe, err);
    if (st == STS_OK) st = load(lb, base_text, base_len, base_name ? base_name : "BASE", err);
    if (st == STS_OK) st = load(ln, new_text, new_len, new_name ? new_name : "NEW", err);
    sts_diff *d = NULL;
    if (st == STS_OK && !(d = sts_dd_new(STS_DIFF_KIND_LEDGER, opt, lb->file, ln->file)))
        st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    if (d) d->samples_word = "run";
    const ledger *both[2] = { lb, ln };
    for (int side = 0; side < 2 && st == STS_OK; side++) {
        const sts_jval *fs = both[side]->functions;
        for (size_t i = 0; i < fs->u.arr.n && st == STS_OK; i++) {
            char id[512];
            identity(fs->u.arr.items[i], "name", id, sizeof id);
            if (side == 1 && find_function(lb, id)) continue;
            if (sts_dd_find(d, id, NULL)) continue; /* a function listed twice */
            st = function_rows(d, id, lb, ln, err);
        }
    }
    if (st == STS_OK) st = sync_rows(d, lb, ln, err);
    sts_jdoc_release(&lb->dom);
    sts_jdoc_release(&ln->dom);
    free(lb);
    if (st != STS_OK) {
        sts_diff_free(d);
        return st;
    }
    *out = d;
    return STS_OK;
}
