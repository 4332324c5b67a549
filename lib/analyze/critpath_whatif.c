/* The critical path's replay (observed, or with durations scaled), the walk back along
 * the binding edges, and what-if predictions. */
#include <math.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "analyze/critpath_impl.h"

static int64_t scaled(int64_t v, double f)
{
    return f == 1.0 ? v : (int64_t)llround((double)v * f);
}

int64_t sts_cp_replay(const sts_critpath *cp, const sts_cp_graph *g, const double *factor, int64_t *start, int64_t *end,
                      uint32_t *bind, uint32_t *endby)
{
    const uint32_t *order = cp->order + g->first_order;
    uint32_t f = g->first_node;
    for (uint32_t k = 0; k < g->nnodes; k++) {
        uint32_t v = order[k], i = v - f;
        const sts_cp_node *x = &cp->nodes[v];
        int64_t s = INT64_MIN;
        uint32_t best = STS_NONE;
        for (uint32_t e = x->first_in; e < x->first_in + x->nin; e++) {
            const sts_cp_edge *ed = &cp->edges[e];
            if (ed->type == 255 || ed->type == CP_E_SYNC) continue;
            int64_t a = (ed->at_start ? start[ed->from - f] : end[ed->from - f]) + ed->gap;
            if (a > s) s = a, best = e;
        }
        if (best == STS_NONE) s = x->ts; /* no edge: it starts where it did */
        double fx = factor ? factor[i] : 1.0;
        start[i] = s;
        bind[i] = best;
        end[i] = s + scaled(x->dur, fx);
        endby[i] = STS_NONE;
        if (x->wait != STS_NONE) {
            int64_t e = s;
            for (uint32_t k2 = x->first_in; k2 < x->first_in + x->nin; k2++) {
                const sts_cp_edge *ed = &cp->edges[k2];
                if (ed->type != CP_E_SYNC) continue;
                int64_t we = end[ed->from - f] + (ed->from == x->wait ? scaled(x->tail, fx) : 0);
                if (we > e || (we == e && endby[i] == STS_NONE)) e = we, endby[i] = ed->from;
            }
            end[i] = e;
        }
    }
    return g->last == STS_NONE ? 0 : end[g->last - f] - g->ts;
}

static int push(sts_critpath *cp, uint32_t slice, uint32_t lane, uint32_t kind, int64_t from, int64_t to)
{
    if (to <= from) return 0;
    if (cp->niv + 1 > cp->capiv) {
        size_t c = cp->capiv ? cp->capiv * 2 : 256;
        sts_cp_interval *q = realloc(cp->iv, c * sizeof *q);
        if (!q) return -1;
        cp->iv = q, cp->capiv = c;
    }
    sts_cp_interval *p = &cp->iv[cp->niv - (cp->niv ? 1 : 0)];
    if (cp->niv && p->slice == slice && p->lane == lane && p->kind == kind && p->ts_ns == to) {
        p->dur_ns += p->ts_ns - from; /* walking back: the earlier part of the same slice */
        p->ts_ns = from;
        return 0;
    }
    sts_cp_interval *n = &cp->iv[cp->niv++];
    n->slice = slice, n->lane = lane, n->kind = kind, n->unused = 0, n->ts_ns = from, n->dur_ns = to - from;
    return 0;
}

int sts_cp_walk(sts_critpath *cp, const sts_cp_graph *g, const int64_t *start, const int64_t *end, const uint32_t *bind,
                const uint32_t *endby)
{
    size_t first = cp->niv;
    uint32_t f = g->first_node, v = g->last;
    int at_end = 1;
    for (size_t guard = 0; guard <= 2 * (size_t)g->nnodes + 2; guard++) {
        uint32_t i = v - f;
        const sts_cp_node *x = &cp->nodes[v];
        if (at_end) {
            if (endby[i] != STS_NONE) {
                if (push(cp, x->slice, x->lane, STS_CP_SYNC, end[endby[i] - f], end[i])) return -1;
                v = endby[i];
                continue;
            }
            if (push(cp, x->slice, x->lane, x->kind, start[i], end[i])) return -1;
            at_end = 0;
            continue;
        }
        if (bind[i] == STS_NONE) {
            if (push(cp, STS_NONE, STS_NONE, STS_CP_IDLE, g->ts, start[i])) return -1;
            break;
        }
        const sts_cp_edge *e = &cp->edges[bind[i]];
        int64_t a = e->at_start ? start[e->from - f] : end[e->from - f];
        if (push(cp, STS_NONE, x->lane, e->type == CP_E_LAUNCH ? STS_CP_LAUNCH : STS_CP_IDLE, a, start[i])) return -1;
        v = e->from;
        at_end = !e->at_start;
    }
    for (size_t a = first, b = cp->niv; b > a + 1; a++, b--) { /* into time order */
        sts_cp_interval t = cp->iv[a];
        cp->iv[a] = cp->iv[b - 1];
        cp->iv[b - 1] = t;
    }
    return 0;
}

/* ---- what-if ------------------------------------------------------------------------------ */

enum { M_EXACT, M_KIND, M_REGEX };

typedef struct matcher {
    int how;
    const char *name;
    uint32_t id; /* M_EXACT: the name's string id once found; STS_NONE before */
    uint32_t kind;
    regex_t re;
    double factor;
} matcher;

/* cp->names and cp->checked, once; -1 when memory is exhausted. */
static int names_made(sts_critpath *cp)
{
    if (cp->names) return 0;
    const sts_slice *sl = sts_timeline_slices(cp->tl, NULL);
    cp->name_bound = sts_an_name_bound(cp->tl);
    cp->names = malloc((cp->nnodes ? cp->nnodes : 1) * sizeof *cp->names);
    cp->checked = calloc(cp->name_bound ? cp->name_bound : 1, 1);
    cp->iv_names = malloc((cp->niv ? cp->niv : 1) * sizeof *cp->iv_names);
    if (!cp->names || !cp->checked || !cp->iv_names) {
        free(cp->names), free(cp->checked), free(cp->iv_names);
        cp->names = NULL, cp->checked = NULL, cp->iv_names = NULL;
        return -1;
    }
    for (size_t i = 0; i < cp->nnodes; i++)
        cp->names[i] = cp->nodes[i].slice == STS_NONE ? STS_NONE : sl[cp->nodes[i].slice].name;
    cp->niv_names = cp->niv;
    for (size_t i = 0; i < cp->niv; i++)
        cp->iv_names[i] = cp->iv[i].slice == STS_NONE ? STS_NONE : sl[cp->iv[i].slice].name;
    return 0;
}

static const char *node_name(const sts_critpath *cp, size_t v)
{
    return cp->names[v] == STS_NONE ? NULL : sts_timeline_string(cp->tl, cp->names[v]);
}

static int matches(const sts_critpath *cp, const matcher *m, size_t v)
{
    if (m->how == M_KIND) return cp->nodes[v].kind == m->kind;
    if (m->how == M_EXACT && m->id != STS_NONE) return cp->names[v] == m->id;
    const char *nm = node_name(cp, v);
    if (!nm) return 0;
    return m->how == M_EXACT ? !strcmp(nm, m->name) : !regexec(&m->re, nm, 0, NULL, 0);
}

static uint64_t count_matches(const sts_critpath *cp, const matcher *m)
{
    uint64_t c = 0;
    if (m->how == M_EXACT && m->id != STS_NONE) {
        for (size_t i = 0; i < cp->nnodes; i++)
            c += cp->names[i] == m->id;
        return c;
    }
    for (size_t i = 0; i < cp->nnodes; i++)
        c += (uint64_t)matches(cp, m, i);
    return c;
}

/* The name id of the first node whose name reads as `name`, or STS_NONE. Each distinct
 * name id is compared once (cp->checked marks them, and is cleared again). */
static uint32_t first_named(sts_critpath *cp, const char *name)
{
    uint32_t id = STS_NONE;
    size_t i = 0;
    for (; i < cp->nnodes && id == STS_NONE; i++) {
        uint32_t nm = cp->names[i];
        if (nm == STS_NONE || cp->checked[nm]) continue;
        cp->checked[nm] = 1;
        if (!strcmp(sts_timeline_string(cp->tl, nm), name)) id = nm;
    }
    while (i-- > 0)
        if (cp->names[i] != STS_NONE) cp->checked[cp->names[i]] = 0;
    return id;
}

static const char *const CATS[] = { "compute", "communication", "memcpy", "memset", "other" };

static sts_status suggest(const sts_critpath *cp, const char *change, const char *name, sts_error *err)
{
    size_t n = 0;
    const char **c = malloc((cp->nnodes + 5) * sizeof *c);
    if (!c) return sts_error_set(err, STS_ERR_NOMEM, -1, "what-if: out of memory");
    for (size_t i = 0; i < cp->nnodes; i++) {
        const char *nm = node_name(cp, i);
        if (!nm) continue;
        int seen = 0;
        for (size_t j = n; j > 0 && j + 64 > n && !seen; j--)
            seen = c[j - 1] == nm;
        if (!seen) c[n++] = nm;
    }
    for (size_t i = 0; i < 5; i++)
        c[n++] = CATS[i];
    size_t out[3], k = sts_suggest(name, c, n, out, 3);
    char hint[400] = "";
    if (k) {
        size_t at = (size_t)snprintf(hint, sizeof hint, "; did you mean");
        for (size_t i = 0; i < k && at < sizeof hint; i++)
            at += (size_t)snprintf(hint + at, sizeof hint - at, "%s '%s'", i ? "," : "", c[out[i]]);
        if (at < sizeof hint) snprintf(hint + at, sizeof hint - at, "?");
    }
    free(c);
    return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                         "what-if '%s': '%s' matches no slice name, category or regex over the steps' events%s", change,
                         name, hint);
}

/* Parses NAME=FACTOR into m (m->name points into buf); *matched is non-zero when some
 * node matches (not always their count). */
static sts_status parse(sts_critpath *cp, const char *change, char *buf, size_t nbuf, matcher *m, uint64_t *matched,
                        sts_error *err)
{
    memset(m, 0, sizeof *m);
    const char *eq = strrchr(change, '=');
    if (!eq || eq == change || strlen(change) >= nbuf)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "what-if '%s': expected NAME=FACTOR (e.g. input_wait=0.5)",
                             change);
    char *endp;
    double f = strtod(eq + 1, &endp);
    if (endp == eq + 1 || (*endp && strcmp(endp, "x")) || !isfinite(f) || f < 0)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "what-if '%s': the factor '%s' is not a number >= 0 (0, 0.5, 0.5x, 2x)", change, eq + 1);
    memcpy(buf, change, (size_t)(eq - change));
    buf[eq - change] = 0;
    m->name = buf;
    m->factor = f;
    m->how = M_EXACT;
    m->id = STS_NONE;
    m->id = first_named(cp, buf);
    /* An id found names at least one node: whether any matched is all parse needs (the
     * prediction counts them), so its count is left out. */
    if (m->id != STS_NONE) return *matched = 1, STS_OK;
    if ((*matched = count_matches(cp, m))) return STS_OK;
    for (uint32_t c = 0; c < 5; c++)
        if (!strcmp(buf, CATS[c])) {
            m->how = M_KIND, m->kind = STS_CP_COMPUTE + c;
            *matched = count_matches(cp, m);
            if (*matched) return STS_OK;
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "what-if '%s': no device op of category %s in the steps",
                                 change, buf);
        }
    if (!regcomp(&m->re, buf, REG_EXTENDED | REG_NOSUB)) {
        m->how = M_REGEX;
        if ((*matched = count_matches(cp, m))) return STS_OK;
        regfree(&m->re);
    }
    m->how = M_EXACT;
    return suggest(cp, change, buf, err);
}

/* The lane holding most of a path (`acc` holds a zeroed entry per lane; left zeroed). */
static uint32_t main_lane(const sts_cp_interval *iv, size_t n, int64_t *acc)
{
    uint32_t best = STS_NONE;
    for (size_t i = 0; i < n; i++)
        if (iv[i].lane != STS_NONE) acc[iv[i].lane] += iv[i].dur_ns;
    for (size_t i = 0; i < n; i++) {
        uint32_t l = iv[i].lane;
        if (l == STS_NONE) continue;
        if (best == STS_NONE || acc[l] > acc[best] || (acc[l] == acc[best] && l < best)) best = l;
    }
    for (size_t i = 0; i < n; i++)
        if (iv[i].lane != STS_NONE) acc[iv[i].lane] = 0;
    return best;
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return x < y ? -1 : x > y;
}

/* Whether shrinking the step's nodes named ms[0] (the only change) provably leaves the
 * replay as observed: the factor is <= 1, no scaled node has a negative duration or
 * tail, and none lies on the observed path with a positive interval. Then no time grows
 * (the replay's max and + are monotone, and llround(v * f) <= v for v >= 0, f <= 1), and
 * the step's saving is at most the scaled nodes' time on its path (see the bound above
 * sts_critpath_what_if_top), 0: every node on the path keeps its start and end. Each
 * binding edge keeps its value while the others' can only fall, so the first in-edge with
 * the greatest value, which the replay binds, is the same, and so is the node that ends
 * each sync: the walk pushes the same intervals. */
static int off_path(const sts_critpath *cp, const matcher *ms, size_t nm, const sts_cp_graph *g, const sts_cp_step *ps)
{
    if (nm != 1 || ms[0].how != M_EXACT || ms[0].id == STS_NONE || !(ms[0].factor <= 1.0)) return 0;
    if ((size_t)ps->first_interval + ps->interval_count > cp->niv_names) return 0;
    for (uint32_t i = ps->first_interval; i < ps->first_interval + ps->interval_count; i++)
        if (cp->iv_names[i] == ms[0].id && cp->iv[i].dur_ns > 0) return 0;
    const uint32_t *names = cp->names + g->first_node;
    for (uint32_t i = 0; i < g->nnodes; i++) {
        const sts_cp_node *x = &cp->nodes[g->first_node + i];
        if (names[i] == ms[0].id && (x->dur < 0 || (x->wait != STS_NONE && x->tail < 0))) return 0;
    }
    return 1;
}

/* Each of the step's nodes' factor into fac, matcher by matcher in the changes' order; a
 * name found by its id is compared without a call per node. Counts the matches into
 * *matched; returns whether any factor differs from 1. */
static int scale_all(const sts_critpath *cp, const matcher *ms, size_t nm, const sts_cp_graph *g, double *fac,
                     uint64_t *matched)
{
    for (uint32_t i = 0; i < g->nnodes; i++)
        fac[i] = 1.0;
    for (size_t j = 0; j < nm; j++) {
        const uint32_t *names = cp->names + g->first_node;
        if (ms[j].how == M_EXACT && ms[j].id != STS_NONE) {
            for (uint32_t i = 0; i < g->nnodes; i++)
                if (names[i] == ms[j].id) fac[i] *= ms[j].factor, (*matched)++;
        } else {
            for (uint32_t i = 0; i < g->nnodes; i++)
                if (matches(cp, &ms[j], g->first_node + i)) fac[i] *= ms[j].factor, (*matched)++;
        }
    }
    int any = 0;
    for (uint32_t i = 0; i < g->nnodes; i++)
        any |= fac[i] != 1.0;
    return any;
}

/* Replays every step with the matchers' factors into *p. */
static int predict(sts_critpath *cp, const matcher *ms, size_t nm, sts_cp_prediction *p)
{
    size_t cap = 1;
    for (size_t k = 0; k < cp->nsteps; k++)
        if (cp->graphs[k].nnodes > cap) cap = cp->graphs[k].nnodes;
    double *fac = malloc(cap * sizeof *fac);
    int64_t *start = malloc(cap * sizeof *start), *end = malloc(cap * sizeof *end);
    int64_t *per = malloc((cp->nsteps ? cp->nsteps : 1) * sizeof *per);
    uint32_t *bind = malloc(cap * sizeof *bind);
    uint32_t *wb = malloc(cap * sizeof *wb);
    size_t nlanes;
    sts_timeline_lanes(cp->tl, &nlanes);
    int64_t *acc = calloc(nlanes ? nlanes : 1, sizeof *acc);
    int rc = -1;
    if (!fac || !start || !end || !per || !bind || !wb || !acc) goto out;
    if (!cp->main_of) {
        if (!(cp->main_of = malloc((cp->nsteps ? cp->nsteps : 1) * sizeof *cp->main_of))) goto out;
        for (size_t k = 0; k < cp->nsteps; k++)
            cp->main_of[k] = main_lane(cp->iv + cp->steps[k].first_interval, cp->steps[k].interval_count, acc);
    }
    p->min_pct = INFINITY, p->max_pct = -INFINITY;
    size_t nper = 0;
    for (size_t k = 0; k < cp->nsteps; k++) {
        const sts_cp_graph *g = &cp->graphs[k];
        const sts_cp_step *ps = &cp->steps[k];
        if (!ps->known) continue;
        int scaled_any = 0;
        if (nm == 1 && ms[0].how == M_EXACT && ms[0].id != STS_NONE) {
            /* One name: counted in one pass, its factors filled only where a replay
             * follows. */
            const uint32_t *names = cp->names + g->first_node;
            uint64_t c = 0;
            for (uint32_t i = 0; i < g->nnodes; i++)
                c += names[i] == ms[0].id;
            p->matched += c;
            scaled_any = c && ms[0].factor != 1.0 && !off_path(cp, ms, nm, g, ps);
            if (scaled_any)
                for (uint32_t i = 0; i < g->nnodes; i++)
                    fac[i] = names[i] == ms[0].id ? 1.0 * ms[0].factor : 1.0;
        } else {
            scaled_any = scale_all(cp, ms, nm, g, fac, &p->matched);
            if (scaled_any && off_path(cp, ms, nm, g, ps)) scaled_any = 0;
        }
        /* A step none of whose durations change, or whose path holds none of the changed
         * ones (off_path), replays as observed: its length, and its path on the same
         * lanes. */
        int64_t len = ps->length_ns;
        if (scaled_any) {
            len = sts_cp_replay(cp, g, fac, start, end, bind, wb);
            size_t mark = cp->niv;
            if (sts_cp_walk(cp, g, start, end, bind, wb)) goto out;
            uint32_t now = main_lane(cp->iv + mark, cp->niv - mark, acc);
            cp->niv = mark;
            if (now != cp->main_of[k]) p->path_moved = 1;
        }
        p->original_ns += ps->length_ns;
        p->predicted_ns += len;
        per[nper++] = len;
        double pct = ps->length_ns ? 100.0 * (double)(len - ps->length_ns) / (double)ps->length_ns : 0.0;
        if (pct < p->min_pct) p->min_pct = pct;
        if (pct > p->max_pct) p->max_pct = pct;
    }
    if (nper) {
        qsort(per, nper, sizeof *per, cmp_i64);
        p->predicted_step_ns = nper % 2 ? per[nper / 2] : per[nper / 2 - 1] + (per[nper / 2] - per[nper / 2 - 1]) / 2;
    } else
        p->min_pct = p->max_pct = NAN;
    p->change_pct = p->original_ns ? 100.0 * (double)(p->predicted_ns - p->original_ns) / (double)p->original_ns : NAN;
    double c = p->change_pct;
    if (isnan(c) || fabs(c) < 1.0)
        snprintf(p->expect, sizeof p->expect, "step:same");
    else
        snprintf(p->expect, sizeof p->expect, "step:%s>=%d%%", c < 0 ? "shrink" : "grow", (int)floor(fabs(c)));
    rc = 0;
out:
    free(fac), free(start), free(end), free(per), free(bind), free(wb), free(acc);
    return rc;
}

static int keep(sts_critpath *cp, const sts_cp_prediction *p)
{
    sts_cp_prediction *q = realloc(cp->pred, (cp->npred + 1) * sizeof *q);
    if (!q) return -1;
    cp->pred = q;
    cp->pred[cp->npred++] = *p;
    return 0;
}

sts_status sts_critpath_what_if(sts_critpath *cp, const char *const *changes, size_t n, sts_cp_prediction *out,
                                sts_error *err)
{
    matcher *ms = calloc(n ? n : 1, sizeof *ms);
    char(*bufs)[256] = calloc(n ? n : 1, sizeof *bufs);
    sts_status st = STS_OK;
    size_t made = 0;
    sts_cp_prediction p;
    memset(&p, 0, sizeof p);
    if (!ms || !bufs || names_made(cp) != 0) st = sts_error_set(err, STS_ERR_NOMEM, -1, "what-if: out of memory");
    for (size_t i = 0; st == STS_OK && i < n; i++) {
        uint64_t matched;
        if ((st = parse(cp, changes[i], bufs[i], sizeof bufs[i], &ms[i], &matched, err)) == STS_OK) made++;
        size_t at = strlen(p.change);
        snprintf(p.change + at, sizeof p.change - at, "%s%s", i ? " " : "", changes[i]);
    }
    if (st == STS_OK && (predict(cp, ms, n, &p) || keep(cp, &p)))
        st = sts_error_set(err, STS_ERR_NOMEM, -1, "what-if: out of memory");
    for (size_t i = 0; i < made; i++)
        if (ms[i].how == M_REGEX) regfree(&ms[i].re);
    free(ms), free(bufs);
    if (st == STS_OK && out) *out = p;
    return st;
}

typedef struct cand {
    uint32_t name;
    int64_t ns;
} cand;

static int cmp_cand(const void *a, const void *b)
{
    const cand *x = a, *y = b;
    if (x->ns != y->ns) return x->ns > y->ns ? -1 : 1;
    return x->name < y->name ? -1 : x->name > y->name;
}

static int cmp_pred(const void *a, const void *b)
{
    const sts_cp_prediction *x = a, *y = b;
    if (x->predicted_ns != y->predicted_ns) return x->predicted_ns < y->predicted_ns ? -1 : 1;
    return strcmp(x->change, y->change);
}

/* The top-th least predicted_ns of tries[0 .. n) (n >= top >= 1); scratch holds n. */
static int64_t nth_least(const sts_cp_prediction *tries, size_t n, size_t top, int64_t *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = tries[i].predicted_ns;
    qsort(scratch, n, sizeof *scratch, cmp_i64);
    return scratch[top - 1];
}

/* Why top=N may stop before its last candidate. Halving a name's nodes saves a step at
 * most that name's time on the step's observed path (the intervals the walk pushed for
 * its nodes), so a candidate's predicted total is at least the observed total minus its
 * time on the paths (c[].ns). The replay is a longest path: along the observed path P,
 * each binding edge u->v still gives start'(v) >= a'(u) + gap (start' is the max over
 * v's in-edges, which are the same edges); a node with no in-edge starts at its ts in
 * both replays; a plain node's end' = start' + llround(dur/2), so it loses at most
 * dur - llround(dur/2) <= max(dur, 0) more than its start did, which is its pushed
 * interval; a sync node's end' >= end'(w) + adj' for the node w that ended it (adj the
 * scaled tail when w is the waited op, its interval [end(w), end(w) + tail], else 0,
 * lost nothing) and >= its start' when no node ended it (its interval then empty). By
 * induction from the step's start, end(last) - end'(last), the step's saving, is at
 * most the sum of the matched nodes' intervals on P. So once observed - c[i].ns exceeds
 * the top-th least predicted total so far, candidate i ranks below top others (the rank
 * is by predicted_ns first), and so does every later one (c is by ns, descending). It
 * holds only when the scaled nodes are exactly those with the candidate's name id
 * (first_named finds that id) and c[].ns counted every interval (`whole`). */
size_t sts_critpath_what_if_top(sts_critpath *cp, size_t top)
{
    if (!top) return 0;
    const sts_slice *sl = sts_timeline_slices(cp->tl, NULL);
    cand *c = malloc((cp->niv ? cp->niv : 1) * sizeof *c);
    if (!c) return 0;
    size_t nc = 0;
    int whole = 1; /* every interval counted: each c[].ns is the name's whole time on the paths */
    for (size_t i = 0; i < cp->niv; i++) {
        if (cp->iv[i].slice == STS_NONE) continue;
        uint32_t nm = sl[cp->iv[i].slice].name;
        size_t j = 0;
        while (j < nc && c[j].name != nm)
            j++;
        if (j == nc) c[nc++] = (cand){ nm, 0 };
        c[j].ns += cp->iv[i].dur_ns;
        if (nc > 4096) {
            whole = 0;
            break;
        }
    }
    qsort(c, nc, sizeof *c, cmp_cand);
    size_t ntry = nc < 4 * top ? nc : 4 * top;
    if (ntry > 64) ntry = 64;
    sts_cp_prediction *tries = calloc(ntry ? ntry : 1, sizeof *tries);
    int64_t *nth = malloc((ntry ? ntry : 1) * sizeof *nth);
    int64_t observed = 0;
    for (size_t k = 0; k < cp->nsteps; k++)
        if (cp->steps[k].known) observed += cp->steps[k].length_ns;
    size_t ok = 0;
    for (size_t i = 0; tries && nth && i < ntry; i++) {
        if (whole && ok >= top && observed - c[i].ns > nth_least(tries, ok, top, nth) &&
            first_named(cp, sts_timeline_string(cp->tl, c[i].name)) == c[i].name)
            break; /* neither this candidate nor any after it (less time on the paths) can rank */
        char change[300];
        snprintf(change, sizeof change, "%s=0.5", sts_timeline_string(cp->tl, c[i].name));
        const char *one = change;
        size_t before = cp->npred;
        sts_error err = STS_ERROR_INIT;
        if (sts_critpath_what_if(cp, &one, 1, &tries[ok], &err) == STS_OK) ok++, cp->npred = before;
    }
    qsort(tries, ok, sizeof *tries, cmp_pred);
    size_t kept = 0;
    for (size_t i = 0; i < ok && kept < top; i++)
        if (!keep(cp, &tries[i])) kept++;
    free(tries), free(nth), free(c);
    return kept;
}

const sts_cp_prediction *sts_critpath_predictions(const sts_critpath *cp, size_t *n)
{
    if (n) *n = cp->npred;
    return cp->pred;
}
