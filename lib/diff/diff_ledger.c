/* Two ledgers compared: per function its compiles, specializations and traces (exact
 * counts: what changed is a fact, not an estimate) and the time of each compile
 * (samples); per host-sync scope the wait of each sync (samples) and their count. A
 * count the ledger gives as null is unknown and is not compared; host syncs a ledger
 * could not see (null) leave the scopes out, with a note. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "diff/diff_impl.h"
#include "stepscope/ledger.h"

typedef struct ledger {
    const char *file;
    sts_ledger_doc *doc;
} ledger;

typedef STS_VEC(int64_t) i64_vec;

/* A function's identity: its name, with its definition site when the ledger gives one
 * (two functions named <lambda> are different functions). */
static void identity(const char *name, const char *site, char *buf, size_t cap)
{
    name = name ? name : "";
    if (site && *site && !strstr(name, site))
        snprintf(buf, cap, "%s (%s)", name, site);
    else
        snprintf(buf, cap, "%s", name);
}

static void fn_identity(const sts_ledger_doc_fn *f, char *buf, size_t cap)
{
    identity(f->name, f->site, buf, cap);
}

static sts_status load(ledger *l, const char *text, size_t len, const char *file, sts_error *err)
{
    l->file = file;
    sts_status st = sts_ledger_read_json(text, len, file, &l->doc, err);
    if (st != STS_OK) return st;
    if (!l->doc->has_functions)
        return sts_error_set(
            err, STS_ERR_FORMAT, 0,
            "%s: not a ledger: expected an object with a \"functions\" array (stepscope ledger --json)", file);
    for (size_t i = 0; i < l->doc->nfunctions; i++) {
        const sts_ledger_doc_fn *f = &l->doc->functions[i];
        if (!f->name)
            return sts_error_set(err, STS_ERR_FORMAT, (int64_t)f->offset,
                                 "%s: byte %zu: functions[%zu] must be an object with a \"name\"", file, f->offset, i);
    }
    return STS_OK;
}

/* A function's name without its site, and the site's file and line: "score
 * (train.py:12)" is "score", "train.py", 12; a name without a site is all stem. */
typedef struct fn_key {
    char id[512];   /* the identity (name and site) */
    char stem[512]; /* the name alone */
    char file[256]; /* "" when no site */
    long line;      /* -1 when no site */
} fn_key;

static void key_of(const sts_ledger_doc_fn *f, fn_key *k)
{
    fn_identity(f, k->id, sizeof k->id);
    snprintf(k->stem, sizeof k->stem, "%s", k->id);
    k->file[0] = 0;
    k->line = -1;
    char *open = strstr(k->stem, " (");
    if (!open) return;
    const char *site = open + 2;
    size_t n = strcspn(site, ",)");
    const char *colon = NULL;
    for (size_t i = 0; i < n; i++)
        if (site[i] == ':') colon = site + i;
    if (!colon || colon == site) return;
    char *end;
    long line = strtol(colon + 1, &end, 10);
    if (end == colon + 1 || end != site + n) return;
    snprintf(k->file, sizeof k->file, "%.*s", (int)(colon - site), site);
    k->line = line;
    *open = 0;
    /* The frame torch resumes after a graph break is named by the break's line
     * (torch_dynamo_resume_in_f_at_5): the line is a site, not part of the name. */
    static const char resume[] = "torch_dynamo_resume_in_";
    char *at = strncmp(k->stem, resume, sizeof resume - 1) == 0 ? strrchr(k->stem, '_') : NULL;
    if (at && at - k->stem > 3 && strncmp(at - 3, "_at_", 4) == 0 && at[1] &&
        strspn(at + 1, "0123456789") == strlen(at + 1))
        at[-3] = 0;
}

/* Which BASE function each NEW function is, by identity first; then, for the rest, by
 * name: a name one function has on each side is that function wherever its line
 * went, and several of one name in one file pair in line order (code moved as a
 * block) or else by the nearest line. pair[j] is a BASE index or -1. */
typedef struct pairing {
    fn_key *kb, *kn;
    long *pair; /* per NEW function */
    char *used; /* per BASE function */
    char *dup;  /* per NEW function: an identity listed before on that side */
    size_t nb, nn;
} pairing;

static void pairing_release(pairing *p)
{
    free(p->kb);
    free(p->kn);
    free(p->pair);
    free(p->used);
    free(p->dup);
}

static size_t count_free(const pairing *p, int side, const char *stem, const char *file, long *only)
{
    size_t c = 0, n = side ? p->nn : p->nb;
    const fn_key *k = side ? p->kn : p->kb;
    for (size_t i = 0; i < n; i++) {
        int taken = side ? (p->pair[i] >= 0 || p->dup[i]) : p->used[i];
        if (taken || strcmp(k[i].stem, stem) != 0 || (file && strcmp(k[i].file, file) != 0)) continue;
        c++;
        *only = (long)i;
    }
    return c;
}

/* The r-th (0-based) free function of `stem` in `file` by line on one side. */
static long nth_by_line(const pairing *p, int side, const char *stem, const char *file, long line)
{
    size_t n = side ? p->nn : p->nb;
    const fn_key *k = side ? p->kn : p->kb;
    long rank = 0;
    for (size_t i = 0; i < n; i++) {
        int taken = side ? (p->pair[i] >= 0 || p->dup[i]) : p->used[i];
        if (!taken && strcmp(k[i].stem, stem) == 0 && strcmp(k[i].file, file) == 0 && k[i].line < line) rank++;
    }
    return rank;
}

static long by_rank(const pairing *p, int side, const char *stem, const char *file, long rank)
{
    size_t n = side ? p->nn : p->nb;
    const fn_key *k = side ? p->kn : p->kb;
    for (size_t i = 0; i < n; i++) {
        int taken = side ? (p->pair[i] >= 0 || p->dup[i]) : p->used[i];
        if (!taken && strcmp(k[i].stem, stem) == 0 && strcmp(k[i].file, file) == 0 &&
            nth_by_line(p, side, stem, file, k[i].line) == rank)
            return (long)i;
    }
    return -1;
}

static void pair_by_name(pairing *p)
{
    for (size_t j = 0; j < p->nn; j++) {
        if (p->pair[j] >= 0 || p->dup[j]) continue;
        long ob = -1, on = -1;
        if (count_free(p, 0, p->kn[j].stem, NULL, &ob) == 1 && count_free(p, 1, p->kn[j].stem, NULL, &on) == 1) {
            p->pair[j] = ob;
            p->used[ob] = 1;
        }
    }
    for (size_t j = 0; j < p->nn; j++) {
        const fn_key *k = &p->kn[j];
        if (p->pair[j] >= 0 || p->dup[j] || k->line < 0) continue;
        long ob = -1, on = -1;
        size_t cb = count_free(p, 0, k->stem, k->file, &ob), cn = count_free(p, 1, k->stem, k->file, &on);
        if (!cb) continue;
        long best = -1;
        if (cb == cn)
            best = by_rank(p, 0, k->stem, k->file, nth_by_line(p, 1, k->stem, k->file, k->line));
        else
            for (size_t i = 0; i < p->nb; i++) {
                const fn_key *b = &p->kb[i];
                if (p->used[i] || strcmp(b->stem, k->stem) != 0 || strcmp(b->file, k->file) != 0) continue;
                if (best < 0 || labs(b->line - k->line) < labs(p->kb[best].line - k->line)) best = (long)i;
            }
        if (best >= 0) {
            p->pair[j] = best;
            p->used[best] = 1;
        }
    }
}

static sts_status pair_functions(const ledger *lb, const ledger *ln, pairing *p, sts_error *err)
{
    memset(p, 0, sizeof *p);
    p->nb = lb->doc->nfunctions;
    p->nn = ln->doc->nfunctions;
    p->kb = calloc(p->nb + 1, sizeof *p->kb);
    p->kn = calloc(p->nn + 1, sizeof *p->kn);
    p->pair = calloc(p->nn + 1, sizeof *p->pair);
    p->used = calloc(p->nb + 1, 1);
    p->dup = calloc(p->nn + 1, 1);
    if (!p->kb || !p->kn || !p->pair || !p->used || !p->dup) {
        pairing_release(p);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    }
    for (size_t i = 0; i < p->nb; i++)
        key_of(&lb->doc->functions[i], &p->kb[i]);
    for (size_t j = 0; j < p->nn; j++) {
        key_of(&ln->doc->functions[j], &p->kn[j]);
        p->pair[j] = -1;
        for (size_t k = 0; k < j && !p->dup[j]; k++)
            p->dup[j] = strcmp(p->kn[k].id, p->kn[j].id) == 0;
    }
    /* A function listed twice on the BASE side is compared once: its later copies are
     * taken already. */
    for (size_t i = 0; i < p->nb; i++)
        for (size_t k = 0; k < i && !p->used[i]; k++)
            p->used[i] = strcmp(p->kb[k].id, p->kb[i].id) == 0;
    for (size_t j = 0; j < p->nn; j++)
        for (size_t i = 0; i < p->nb && !p->dup[j]; i++)
            if (!p->used[i] && strcmp(p->kb[i].id, p->kn[j].id) == 0) {
                p->pair[j] = (long)i;
                p->used[i] = 1;
                break;
            }
    pair_by_name(p);
    return STS_OK;
}

/* A count of one side: 1 known, 0 null (unknown), -1 the function is absent. */
static int count_of(int64_t v, int present, int64_t *out)
{
    *out = v > 0 ? v : 0;
    return !present ? -1 : v >= 0;
}

static sts_status push(i64_vec *v, int64_t x, sts_error *err)
{
    int64_t *slot = STS_VEC_PUSH(*v);
    if (!slot) return sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    *slot = x;
    return STS_OK;
}

/* Every compile's time for function `id`: rows with compiles >= 1 and a known time. */
static sts_status compile_times(const ledger *l, const char *id, i64_vec *out, sts_error *err)
{
    sts_status st = STS_OK;
    for (size_t i = 0; i < l->doc->nrows && st == STS_OK; i++) {
        const sts_ledger_doc_row *r = &l->doc->rows[i];
        char buf[512];
        identity(r->function, r->site, buf, sizeof buf);
        if (strcmp(buf, id) != 0 || r->compiles < 1 || r->compile_ns < 0) continue;
        st = push(out, r->compile_ns, err);
    }
    return st;
}

/* One function's rows: `id` is the row key (NEW's identity when both have it); each
 * side's rows are found under its own identity. */
static sts_status function_rows(sts_diff *d, const char *id, const sts_ledger_doc_fn *fb, const char *idb,
                                const sts_ledger_doc_fn *fn, const char *idn, const ledger *lb, const ledger *ln,
                                sts_error *err)
{
    const struct {
        const char *key;
        int64_t base, new_;
    } counts[] = { { "compiles", fb ? fb->compiles : -1, fn ? fn->compiles : -1 },
                   { "specializations", fb ? fb->specializations : -1, fn ? fn->specializations : -1 },
                   { "traces", fb ? fb->traces : -1, fn ? fn->traces : -1 } };
    sts_status st = STS_OK;
    for (size_t k = 0; k < sizeof counts / sizeof counts[0] && st == STS_OK; k++) {
        int64_t x, y;
        int kb = count_of(counts[k].base, fb != NULL, &x), kn = count_of(counts[k].new_, fn != NULL, &y);
        const char *note = kb == 0 || kn == 0 ? "null in the ledger: the input cannot tell" : NULL;
        st = sts_dd_add_counts(d, id, counts[k].key, kb, x, kn, y, note, err);
    }
    i64_vec t[2] = { { 0 }, { 0 } };
    if (st == STS_OK && fb) st = compile_times(lb, idb, &t[0], err);
    if (st == STS_OK && fn) st = compile_times(ln, idn, &t[1], err);
    if (st == STS_OK && (t[0].n || t[1].n)) {
        sts_dd_series sb = { t[0].v, NULL, t[0].n }, sn = { t[1].v, NULL, t[1].n };
        st = sts_dd_add_samples(d, id, "compile_time", "ns", "compile", sb, sn, NULL, err);
    }
    STS_VEC_RELEASE(t[0]);
    STS_VEC_RELEASE(t[1]);
    return st;
}

static sts_status all_functions(sts_diff *d, const ledger *lb, const ledger *ln, sts_error *err)
{
    pairing p;
    sts_status st = pair_functions(lb, ln, &p, err);
    if (st != STS_OK) return st;
    long *new_of = calloc(p.nb + 1, sizeof *new_of);
    if (!new_of) st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    for (size_t i = 0; new_of && i < p.nb; i++)
        new_of[i] = -1;
    for (size_t j = 0; new_of && j < p.nn; j++)
        if (p.pair[j] >= 0) new_of[p.pair[j]] = (long)j;
    /* BASE's functions in order (with their NEW partners), then NEW's unpaired ones. */
    for (size_t i = 0; i < p.nb && st == STS_OK; i++) {
        long j = new_of[i];
        if (j < 0 && p.used[i]) {
            int first = 1; /* a copy of an earlier BASE function, not itself unpaired */
            for (size_t k = 0; k < i && first; k++)
                first = strcmp(p.kb[k].id, p.kb[i].id) != 0;
            if (!first) continue;
        }
        const fn_key *kn = j >= 0 ? &p.kn[j] : NULL;
        const char *id = kn ? kn->id : p.kb[i].id;
        st = function_rows(d, id, &lb->doc->functions[i], p.kb[i].id, kn ? &ln->doc->functions[j] : NULL,
                           kn ? kn->id : NULL, lb, ln, err);
        if (st == STS_OK && kn && strcmp(kn->id, p.kb[i].id) != 0 &&
            sts_dd_note(d, "%s in BASE is %s in NEW: paired by name (its definition moved)", p.kb[i].id, kn->id) !=
                STS_OK)
            st = sts_error_set(err, STS_ERR_NOMEM, -1, "diff: out of memory");
    }
    for (size_t j = 0; j < p.nn && st == STS_OK; j++)
        if (p.pair[j] < 0 && !p.dup[j])
            st = function_rows(d, p.kn[j].id, NULL, NULL, &ln->doc->functions[j], p.kn[j].id, lb, ln, err);
    free(new_of);
    pairing_release(&p);
    return st;
}

/* ---- host syncs ------------------------------------------------------------------- */

static int syncs_known(const ledger *l)
{
    return l->doc->syncs == STS_LEDGER_DOC_SYNCS_KNOWN;
}

static const sts_ledger_doc_scope *find_scope(const ledger *l, const char *scope)
{
    for (size_t i = 0; i < l->doc->nscopes; i++)
        if (l->doc->scopes[i].scope && strcmp(l->doc->scopes[i].scope, scope) == 0) return &l->doc->scopes[i];
    return NULL;
}

static sts_status waits(const ledger *l, const char *scope, i64_vec *out, sts_error *err)
{
    sts_status st = STS_OK;
    for (size_t i = 0; i < l->doc->nsync_events && st == STS_OK; i++) {
        const sts_ledger_doc_sync *e = &l->doc->sync_events[i];
        if (!e->scope || strcmp(e->scope, scope) != 0 || e->wait_ns < 0) continue;
        st = push(out, e->wait_ns, err);
    }
    return st;
}

static sts_status scope_rows(sts_diff *d, const char *scope, const ledger *lb, const ledger *ln, sts_error *err)
{
    const sts_ledger_doc_scope *sb = find_scope(lb, scope), *sn = find_scope(ln, scope);
    i64_vec w[2] = { { 0 }, { 0 } };
    sts_status st = sb ? waits(lb, scope, &w[0], err) : STS_OK;
    if (st == STS_OK && sn) st = waits(ln, scope, &w[1], err);
    if (st == STS_OK) {
        sts_dd_series xb = { w[0].v, NULL, w[0].n }, xn = { w[1].v, NULL, w[1].n };
        st = sts_dd_add_samples(d, scope, "wait", "ns", "sync", xb, xn, NULL, err);
    }
    int64_t x, y;
    int kb = count_of(sb ? sb->count : -1, sb != NULL, &x), kn = count_of(sn ? sn->count : -1, sn != NULL, &y);
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
        for (size_t i = 0; i < both[side]->doc->nscopes && st == STS_OK; i++) {
            const char *scope = both[side]->doc->scopes[i].scope;
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
    if (st == STS_OK) st = all_functions(d, lb, ln, err);
    if (st == STS_OK) st = sync_rows(d, lb, ln, err);
    sts_ledger_doc_free(lb->doc);
    sts_ledger_doc_free(ln->doc);
    free(lb);
    if (st != STS_OK) {
        sts_diff_free(d);
        return st;
    }
    *out = d;
    return STS_OK;
}
