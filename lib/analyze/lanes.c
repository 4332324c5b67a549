/* Lanes: the order trace viewers show them in, and choosing them by name. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/vec.h"

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

typedef struct order_ctx {
    const sts_lane *lanes;
    const sts_process *procs;
} order_ctx;

static int lane_cmp(const void *a, const void *b, void *ctx)
{
    const order_ctx *c = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const sts_lane *lx = &c->lanes[x], *ly = &c->lanes[y];
    const sts_process *px = &c->procs[lx->process], *py = &c->procs[ly->process];
    int r = cmp_i64(px->sort_index, py->sort_index);
    if (!r) r = cmp_i64(px->pid, py->pid);
    if (!r) r = cmp_i64(lx->process, ly->process);
    if (!r) r = cmp_i64(lx->sort_index, ly->sort_index);
    if (!r) r = cmp_i64(lx->tid, ly->tid);
    if (!r) r = cmp_i64(x, y);
    return r;
}

void sts_lane_display_order(const sts_timeline *tl, uint32_t *order)
{
    size_t nl;
    order_ctx c = { sts_timeline_lanes(tl, &nl), sts_timeline_processes(tl, NULL) };
    for (size_t l = 0; l < nl; l++)
        order[l] = (uint32_t)l;
    if (nl > 1) qsort_r(order, nl, sizeof *order, lane_cmp, &c);
}

sts_status sts_process_display_order(const sts_timeline *tl, const uint32_t *lane_order, uint32_t *porder,
                                     sts_error *err)
{
    size_t nl, np;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    sts_timeline_processes(tl, &np);
    unsigned char *seen = calloc(np ? np : 1, 1);
    if (!seen) return sts_error_set(err, STS_ERR_NOMEM, -1, "process display order: out of memory (%zu processes)", np);
    size_t k = 0;
    for (size_t i = 0; i < nl; i++) {
        uint32_t p = lanes[lane_order[i]].process;
        if (!seen[p]) seen[p] = 1, porder[k++] = p;
    }
    for (size_t p = 0; p < np; p++)
        if (!seen[p]) porder[k++] = (uint32_t)p;
    free(seen);
    return STS_OK;
}

/* ---- choosing lanes --------------------------------------------------------------- */

static int names_lane(const sts_timeline *tl, const sts_lane *ln, const char *pattern)
{
    const sts_process *p = sts_timeline_processes(tl, NULL) + ln->process;
    const char *pid = sts_timeline_string(tl, p->label), *tid = sts_timeline_string(tl, ln->label);
    if (!strcmp(pattern, sts_timeline_string(tl, ln->name)) || !strcmp(pattern, sts_timeline_string(tl, p->name)) ||
        !strcmp(pattern, pid) || !strcmp(pattern, tid))
        return 1;
    size_t np = strlen(pid);
    return !strncmp(pattern, pid, np) && pattern[np] == ':' && !strcmp(pattern + np + 1, tid);
}

static int matches_lane(const sts_timeline *tl, const sts_lane *ln, const sts_an_matcher *m)
{
    const sts_process *p = sts_timeline_processes(tl, NULL) + ln->process;
    return (ln->name && sts_an_matcher_match(m, sts_timeline_string(tl, ln->name))) ||
           (p->name && sts_an_matcher_match(m, sts_timeline_string(tl, p->name)));
}

sts_status sts_lanes_matching(const sts_timeline *tl, const char *pattern, uint32_t **out, size_t *n, sts_error *err)
{
    *out = NULL;
    *n = 0;
    size_t nl;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    STS_VEC(uint32_t) found = { 0 };
    for (size_t l = 0; l < nl; l++) {
        if (!names_lane(tl, &ln[l], pattern)) continue;
        uint32_t *p = STS_VEC_PUSH(found);
        if (!p) goto nomem;
        *p = (uint32_t)l;
    }
    if (found.n == 0) {
        sts_an_matcher m;
        sts_status st = sts_an_matcher_init(&m, pattern, 0, "lane pattern", err);
        if (st != STS_OK) return st;
        for (size_t l = 0; l < nl; l++) {
            if (!matches_lane(tl, &ln[l], &m)) continue;
            uint32_t *p = STS_VEC_PUSH(found);
            if (!p) {
                sts_an_matcher_release(&m);
                goto nomem;
            }
            *p = (uint32_t)l;
        }
        sts_an_matcher_release(&m);
    }
    *out = found.v;
    *n = found.n;
    return STS_OK;
nomem:
    STS_VEC_RELEASE(found);
    return sts_an_nomem(err, "choosing lanes");
}
