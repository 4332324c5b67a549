/* Finalize, part 1: B/E matching. Per lane, B slices and E events are ordered by
 * (ts, sequence number), as Perfetto sorts events by timestamp before matching, and
 * each E closes the most recent open B. */
#include <stdlib.h>
#include <string.h>

#include "model/finalize_impl.h"
#include "model/msort.h"

#define E_TOKEN 0x80000000u /* a token is a slice index, or an E index with this bit */

typedef struct be_ctx {
    const sts_slice *s;
    const sts_end_event *e;
} be_ctx;

static inline int64_t be_ts(const be_ctx *c, uint32_t t)
{
    return (t & E_TOKEN) ? c->e[t & ~E_TOKEN].ts : c->s[t].ts;
}

static inline uint32_t be_seq(const be_ctx *c, uint32_t t)
{
    return (t & E_TOKEN) ? c->e[t & ~E_TOKEN].seq : c->s[t].parent; /* raw: parent holds seq */
}

/* Equal timestamps keep file order. */
#define BE_LESS(c, x, y)                                    \
    (be_ts(c, x) != be_ts(c, y) ? be_ts(c, x) < be_ts(c, y) \
                                : (be_seq(c, x) != be_seq(c, y) ? be_seq(c, x) < be_seq(c, y) : (x) < (y)))

STS_DEFINE_SORT(sort_be, uint32_t, be_ctx, BE_LESS)

/* Tokens bucketed by lane: off[l]..off[l+1] is lane l's segment. */
static uint32_t *bucket(const sts_timeline *tl, const size_t *begins, size_t nbegins, size_t *off)
{
    size_t nl = tl->lanes.n;
    memset(off, 0, (nl + 1) * sizeof *off);
    for (size_t l = 0; l < nl; l++)
        off[l + 1] = begins[l];
    for (size_t j = 0; j < tl->ends.n; j++)
        off[tl->ends.v[j].lane + 1]++;
    for (size_t l = 0; l < nl; l++)
        off[l + 1] += off[l];
    uint32_t *tok = malloc((off[nl] ? off[nl] : 1) * sizeof *tok);
    size_t *fill = malloc((nl ? nl : 1) * sizeof *fill);
    if (!tok || !fill) {
        free(tok);
        free(fill);
        return NULL;
    }
    memcpy(fill, off, nl * sizeof *fill);
    for (size_t i = 0; nbegins && i < tl->slices.n; i++)
        if (fin_is_open_begin(&tl->slices.v[i])) tok[fill[tl->slices.v[i].lane]++] = (uint32_t)i;
    for (size_t j = 0; j < tl->ends.n; j++)
        tok[fill[tl->ends.v[j].lane]++] = (uint32_t)j | E_TOKEN;
    free(fill);
    return tok;
}

static int push_u32(fin_u32vec *v, uint32_t x)
{
    uint32_t *p = STS_VEC_PUSH(*v);
    if (!p) return -1;
    *p = x;
    return 0;
}

/* Walks one lane's tokens in order; B's left open go to `unclosed`. */
static int match_lane(sts_timeline *tl, const uint32_t *tok, size_t n, fin_u32vec *stack, fin_u32vec *unclosed)
{
    stack->n = 0;
    for (size_t k = 0; k < n; k++) {
        uint32_t t = tok[k];
        if (!(t & E_TOKEN)) {
            if (push_u32(stack, t) != 0) return -1;
            continue;
        }
        const sts_end_event *e = &tl->ends.v[t & ~E_TOKEN];
        if (stack->n == 0) {
            tl->info.unmatched_end++;
            continue;
        }
        sts_slice *b = &tl->slices.v[stack->v[--stack->n]];
        b->dur = e->ts - b->ts;
    }
    for (size_t k = 0; k < stack->n; k++)
        if (push_u32(unclosed, stack->v[k]) != 0) return -1;
    return 0;
}

/* The last timestamp anything reaches on each lane, so an unclosed B stays visible up
 * to where its lane's data ends. */
static int64_t *lane_last_ts(const sts_timeline *tl)
{
    size_t nl = tl->lanes.n;
    int64_t *last = malloc((nl ? nl : 1) * sizeof *last);
    if (!last) return NULL;
    for (size_t l = 0; l < nl; l++)
        last[l] = INT64_MIN;
    for (size_t i = 0; i < tl->slices.n; i++) {
        const sts_slice *s = &tl->slices.v[i];
        int64_t e = s->dur >= 0 ? fin_end(s->ts, s->dur) : s->ts;
        if (e > last[s->lane]) last[s->lane] = e;
    }
    for (size_t j = 0; j < tl->ends.n; j++)
        if (tl->ends.v[j].ts > last[tl->ends.v[j].lane]) last[tl->ends.v[j].lane] = tl->ends.v[j].ts;
    for (size_t j = 0; j < tl->instants.n; j++) {
        const sts_instant *in = &tl->instants.v[j];
        if (in->lane < nl && in->ts > last[in->lane]) last[in->lane] = in->ts;
    }
    return last;
}

static void close_unclosed(sts_timeline *tl, const fin_u32vec *unclosed, const int64_t *last)
{
    for (size_t k = 0; k < unclosed->n; k++) {
        sts_slice *s = &tl->slices.v[unclosed->v[k]];
        s->dur = last[s->lane] - s->ts;
        s->flags |= STS_SLICE_UNCLOSED;
    }
    tl->info.unclosed_begin = unclosed->n;
    if (unclosed->n == 0) return;
    const sts_slice *s = &tl->slices.v[unclosed->v[0]];
    const sts_lane *ln = &tl->lanes.v[s->lane];
    sts_tl_warn(tl,
                "%s: %zu B event%s never closed by an E; shown running to the last timestamp of %s lane "
                "(first: '%s' at ts %lld ns on pid %s tid %s)",
                tl->info.path, unclosed->n, unclosed->n == 1 ? " was" : "s were", unclosed->n == 1 ? "its" : "their",
                sts_strtab_get(&tl->strings, s->name), (long long)s->ts,
                sts_strtab_get(&tl->strings, tl->procs.v[ln->process].label), sts_strtab_get(&tl->strings, ln->label));
}

static void warn_unmatched(sts_timeline *tl)
{
    uint64_t n = tl->info.unmatched_end;
    if (n)
        sts_tl_warn(tl, "%s: %llu E event%s had no open B on %s lane and %s ignored", tl->info.path,
                    (unsigned long long)n, n == 1 ? "" : "s", n == 1 ? "its" : "their", n == 1 ? "was" : "were");
}

sts_status sts_fin_match_begin_end(sts_timeline *tl, const size_t *begins, size_t nbegins, sts_error *err)
{
    if (nbegins == 0 && tl->ends.n == 0) return STS_OK;
    size_t nl = tl->lanes.n;
    size_t *off = malloc((nl + 1) * sizeof *off);
    uint32_t *tok = off ? bucket(tl, begins, nbegins, off) : NULL;
    size_t maxseg = 0;
    for (size_t l = 0; tok && l < nl; l++)
        if (off[l + 1] - off[l] > maxseg) maxseg = off[l + 1] - off[l];
    uint32_t *tmp = tok ? malloc((maxseg ? maxseg : 1) * sizeof *tmp) : NULL;
    fin_u32vec stack = { 0 }, unclosed = { 0 };
    int64_t *last = NULL;
    int bad = tmp == NULL;
    be_ctx ctx = { tl->slices.v, tl->ends.v };
    for (size_t l = 0; l < nl && !bad; l++) {
        size_t n = off[l + 1] - off[l];
        if (n == 0) continue;
        bad = sort_be(tok + off[l], n, tmp, &ctx) != 0 || match_lane(tl, tok + off[l], n, &stack, &unclosed) != 0;
    }
    if (!bad && unclosed.n) bad = (last = lane_last_ts(tl)) == NULL;
    if (!bad) {
        close_unclosed(tl, &unclosed, last);
        warn_unmatched(tl);
    }
    free(last);
    free(stack.v);
    free(unclosed.v);
    free(tmp);
    free(tok);
    free(off);
    return bad ? sts_fin_nomem(tl, err) : STS_OK;
}
