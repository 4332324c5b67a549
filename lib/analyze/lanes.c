/* Lane display order: the order trace viewers show lanes in. */
#include <stdlib.h>

#include "model/timeline_impl.h"
#include "stepscope/analyze.h"

static int cmp_i64(int64_t a, int64_t b)
{
    return (a > b) - (a < b);
}

static int lane_cmp(const void *a, const void *b, void *ctx)
{
    const sts_timeline *tl = ctx;
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    const sts_lane *lx = &tl->lanes.v[x], *ly = &tl->lanes.v[y];
    const sts_process *px = &tl->procs.v[lx->process], *py = &tl->procs.v[ly->process];
    int c = cmp_i64(px->sort_index, py->sort_index);
    if (!c) c = cmp_i64(px->pid, py->pid);
    if (!c) c = cmp_i64(lx->process, ly->process);
    if (!c) c = cmp_i64(lx->sort_index, ly->sort_index);
    if (!c) c = cmp_i64(lx->tid, ly->tid);
    if (!c) c = cmp_i64(x, y);
    return c;
}

void sts_lane_display_order(const sts_timeline *tl, uint32_t *order)
{
    for (size_t l = 0; l < tl->lanes.n; l++)
        order[l] = (uint32_t)l;
    if (tl->lanes.n > 1) qsort_r(order, tl->lanes.n, sizeof *order, lane_cmp, (void *)tl);
}
