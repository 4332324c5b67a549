/* Steps across hosts: aligned by step number; per step the spread, the slowest host and
 * what it spent longer on than the median host; per host how often it was the slowest. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hosts/hosts_impl.h"

struct sts_alignment {
    STS_VEC(sts_aligned_step) steps;
    STS_VEC(sts_host_step_stats) hosts;
    sts_step_rule rule;
    size_t mismatches;
    double ratio;
};

void sts_alignment_free(sts_alignment *a)
{
    if (!a) return;
    STS_VEC_RELEASE(a->steps);
    STS_VEC_RELEASE(a->hosts);
    free(a);
}

const sts_aligned_step *sts_alignment_steps(const sts_alignment *a, size_t *n)
{
    if (n) *n = a->steps.n;
    return a->steps.v;
}

const sts_host_step_stats *sts_alignment_hosts(const sts_alignment *a, size_t *n)
{
    if (n) *n = a->hosts.n;
    return a->hosts.v;
}

size_t sts_alignment_rule_mismatches(const sts_alignment *a)
{
    return a->mismatches;
}

sts_step_rule sts_alignment_rule(const sts_alignment *a)
{
    return a->rule;
}

double sts_alignment_ratio(const sts_alignment *a)
{
    return a->ratio;
}

const char *sts_cause_kind_name(sts_cause_kind k)
{
    switch (k) {
    case STS_CAUSE_COLLECTIVE:
        return "collective";
    case STS_CAUSE_DEVICE:
        return "device";
    case STS_CAUSE_CHILD:
        return "child";
    case STS_CAUSE_UNATTRIBUTED:
        return "unattributed";
    case STS_CAUSE_NONE:
        break;
    }
    return "none";
}

/* One host's step, for sorting by step number. */
typedef struct entry {
    int64_t step;
    uint32_t host; /* index into the records */
    uint32_t k;    /* index into the host's steps */
    int64_t dur;
} entry;

static int cmp_entry(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->step != y->step) return x->step < y->step ? -1 : 1;
    return (x->host > y->host) - (x->host < y->host);
}

static int cmp_dur_host(const void *a, const void *b)
{
    const entry *x = a, *y = b;
    if (x->dur != y->dur) return x->dur < y->dur ? -1 : 1;
    return (x->host > y->host) - (x->host < y->host);
}

/* ---- the cause: slowest host against the median host ------------------------------------ */

typedef struct side {
    const sts_host_rec *r;
    const sts_host_step *st;
} side;

static int64_t child_ns(const side *s, const char *name)
{
    for (uint32_t c = s->st->first_child; c < s->st->first_child + s->st->child_count; c++)
        if (strcmp(s->r->children.v[c].name, name) == 0) return s->r->children.v[c].total_ns;
    return 0;
}

static int64_t coll_ns(const side *s, const char *kind)
{
    if (s->st->collective_ns < 0) return 0;
    for (uint32_t c = s->st->first_collective; c < s->st->first_collective + s->st->collective_count; c++)
        if (strcmp(s->r->colls.v[c].kind, kind) == 0) return s->r->colls.v[c].ns;
    return 0;
}

static int64_t device_other_ns(const side *s)
{
    return s->st->device_busy_ns < 0 ? 0 : s->st->device_busy_ns - s->st->collective_ns;
}

/* Keeps the candidate when its excess beats the best so far (kinds are offered in
 * tie order, names within a kind compared bytewise). */
static void offer(sts_step_cause *best, int64_t *best_excess, sts_cause_kind kind, const char *name, int64_t slow,
                  int64_t med)
{
    int64_t excess = slow - med;
    if (excess <= 0) return;
    int better = best->kind == STS_CAUSE_NONE || excess > *best_excess ||
                 (excess == *best_excess && kind == best->kind && name && best->name && strcmp(name, best->name) < 0);
    if (!better) return;
    best->kind = kind;
    best->name = name;
    best->slow_ns = slow;
    best->median_ns = med;
    *best_excess = excess;
}

static sts_step_cause find_cause(const side *slow, const side *med)
{
    sts_step_cause best = { STS_CAUSE_NONE, NULL, 0, 0 };
    int64_t excess = 0;
    const side *both[2] = { slow, med };
    for (int w = 0; w < 2; w++) { /* kinds on either side: one may lack what the other has */
        const side *s = both[w];
        if (s->st->collective_ns < 0) continue;
        for (uint32_t c = s->st->first_collective; c < s->st->first_collective + s->st->collective_count; c++) {
            const char *k = s->r->colls.v[c].kind;
            offer(&best, &excess, STS_CAUSE_COLLECTIVE, k, coll_ns(slow, k), coll_ns(med, k));
        }
    }
    offer(&best, &excess, STS_CAUSE_DEVICE, NULL, device_other_ns(slow), device_other_ns(med));
    for (int w = 0; w < 2; w++) {
        const side *s = both[w];
        for (uint32_t c = s->st->first_child; c < s->st->first_child + s->st->child_count; c++) {
            const char *nm = s->r->children.v[c].name;
            offer(&best, &excess, STS_CAUSE_CHILD, nm, child_ns(slow, nm), child_ns(med, nm));
        }
    }
    offer(&best, &excess, STS_CAUSE_UNATTRIBUTED, NULL, slow->st->unattributed_ns, med->st->unattributed_ns);
    return best;
}

/* ---- alignment ---------------------------------------------------------------------------- */

static int64_t median_of(entry *e, size_t n, int64_t *scratch)
{
    for (size_t i = 0; i < n; i++)
        scratch[i] = e[i].dur;
    return sts_median_i64(scratch, n);
}

static int align_group(sts_alignment *a, const sts_hosts *h, entry *g, size_t n, double ratio, int64_t *scratch)
{
    sts_aligned_step *s = STS_VEC_PUSH(a->steps);
    if (!s) return -1;
    s->step = g[0].step;
    s->hosts = (uint32_t)n;
    s->median_ns = median_of(g, n, scratch);
    qsort(g, n, sizeof *g, cmp_dur_host);
    s->min_ns = g[0].dur;
    s->max_ns = g[n - 1].dur;
    size_t slow = n - 1;
    while (slow > 0 && g[slow - 1].dur == g[n - 1].dur) /* ties: the first host */
        slow--;
    s->slowest = g[slow].host;
    s->median_host = g[(n - 1) / 2].host;
    s->straggler = n >= 2 && (double)s->max_ns >= ratio * (double)s->median_ns;
    if (n >= 2) {
        side sl = { h->hosts.v[s->slowest], &h->hosts.v[s->slowest]->steps.v[g[slow].k] };
        side md = { h->hosts.v[s->median_host], &h->hosts.v[s->median_host]->steps.v[g[(n - 1) / 2].k] };
        s->by = find_cause(&sl, &md);
    }
    if (n >= 2) {
        a->hosts.v[s->slowest].slowest++;
        if (s->straggler) a->hosts.v[s->slowest].stragglers++;
    }
    return 0;
}

static int host_stats(sts_alignment *a, const sts_hosts *h, int64_t *scratch)
{
    for (size_t i = 0; i < h->hosts.n; i++) {
        const sts_host_rec *r = h->hosts.v[i];
        sts_host_step_stats *hs = &a->hosts.v[i];
        hs->steps = (uint32_t)r->steps.n;
        for (size_t k = 0; k < r->steps.n; k++) {
            int64_t d = r->steps.v[k].dur_ns;
            scratch[k] = d;
            hs->total_ns += d;
            if (k == 0 || d < hs->min_ns) hs->min_ns = d;
            if (k == 0 || d > hs->max_ns) hs->max_ns = d;
        }
        hs->median_ns = sts_median_i64(scratch, r->steps.n);
    }
    return 0;
}

/* The rule most hosts' steps were found by (ties: the lower rule), and how many differ. */
static void common_rule(sts_alignment *a, const sts_hosts *h)
{
    size_t count[8] = { 0 };
    for (size_t i = 0; i < h->hosts.n; i++) {
        const sts_host_rec *r = h->hosts.v[i];
        if (r->has_steps && r->steps.n && (unsigned)r->steps_info.rule < 8) count[r->steps_info.rule]++;
    }
    size_t best = 0, total = 0;
    for (size_t k = 1; k < 8; k++) {
        total += count[k];
        if (count[k] > count[best]) best = k;
    }
    a->rule = count[best] ? (sts_step_rule)best : STS_STEP_RULE_NONE;
    a->mismatches = total - count[best];
}

sts_status sts_hosts_align(const sts_hosts *h, double ratio, sts_alignment **out, sts_error *err)
{
    *out = NULL;
    if (!(ratio >= 1.0) || isinf(ratio))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "straggler ratio %g: expected a number >= 1", ratio);
    sts_alignment *a = calloc(1, sizeof *a);
    if (!a) return sts_hosts_nomem(err);
    a->ratio = ratio;
    size_t total = 0, most = 0;
    for (size_t i = 0; i < h->hosts.n; i++) {
        if (!h->hosts.v[i]->has_steps) {
            sts_alignment_free(a);
            return sts_error_set(err, STS_ERR_STATE, -1, "hosts: host %s was read without its steps",
                                 h->hosts.v[i]->info.name);
        }
        total += h->hosts.v[i]->steps.n;
        if (h->hosts.v[i]->steps.n > most) most = h->hosts.v[i]->steps.n;
    }
    entry *e = malloc((total ? total : 1) * sizeof *e);
    int64_t *scratch = malloc(((total > most ? total : most) + 1) * sizeof *scratch);
    int bad = !e || !scratch || STS_VEC_RESERVE(a->hosts, h->hosts.n) != 0;
    if (!bad) {
        if (h->hosts.n) memset(a->hosts.v, 0, h->hosts.n * sizeof *a->hosts.v);
        a->hosts.n = h->hosts.n;
        size_t k = 0;
        for (size_t i = 0; i < h->hosts.n; i++)
            for (size_t j = 0; j < h->hosts.v[i]->steps.n; j++)
                e[k++] = (entry){ h->hosts.v[i]->steps.v[j].step, (uint32_t)i, (uint32_t)j,
                                  h->hosts.v[i]->steps.v[j].dur_ns };
        if (total > 1) qsort(e, total, sizeof *e, cmp_entry);
        for (size_t lo = 0; lo < total && !bad;) {
            size_t hi = lo;
            while (hi < total && e[hi].step == e[lo].step)
                hi++;
            bad = align_group(a, h, e + lo, hi - lo, ratio, scratch) != 0;
            lo = hi;
        }
    }
    if (!bad) bad = host_stats(a, h, scratch) != 0;
    common_rule(a, h);
    free(e);
    free(scratch);
    if (bad) {
        sts_alignment_free(a);
        return sts_hosts_nomem(err);
    }
    *out = a;
    return STS_OK;
}
