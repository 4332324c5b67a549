/* device: the built-in operations (matmul, elementwise maps, reductions). Each checks
 * shapes, enqueues one or more kernel launches, and hands back one event. */
#include <limits.h>
#include <stdio.h>

#include "device/device_impl.h"

/* Rows and columns of C held by one matmul_block work-item. The rows reach the kernel
 * as -DBLOCK_ROWS (lib/device/builtin.c); the 16 columns are its two float8 vectors. */
#define BLOCK_ROWS STS_MATMUL_BLOCK_ROWS
#define BLOCK_COLS 16
#define TILE       16

void sts_ops_shape_text(const sts_array *a, char *buf, size_t cap)
{
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (int i = 0; i < a->ndim && used < cap; i++)
        used += (size_t)snprintf(buf + used, cap - used, "%s%lld", i ? "," : "", (long long)a->shape[i]);
    if (used < cap) snprintf(buf + used, cap - used, "]");
}

sts_status sts_ops_need_f32(const sts_device *dev, const char *op, const char *which, const sts_array *a,
                            sts_error *err)
{
    if (a->dev != dev)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: %s belongs to another device", op, which);
    if (a->dtype == STS_DTYPE_F32 && a->count <= INT_MAX) return STS_OK;
    if (a->dtype != STS_DTYPE_F32)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: %s is %s (expected float32)", op, which,
                             sts_dtype_name(a->dtype));
    return sts_error_set(err, STS_ERR_LIMIT, -1, "%s: %s has %zu elements (at most %d)", op, which, a->count, INT_MAX);
}

static sts_status same_count(const sts_device *dev, const char *op, const sts_array *x, const sts_array *y,
                             sts_error *err)
{
    sts_status st = sts_ops_need_f32(dev, op, "input", x, err);
    if (st == STS_OK) st = sts_ops_need_f32(dev, op, "output", y, err);
    if (st != STS_OK || x->count == y->count) return st;
    char xs[80], ys[80];
    sts_ops_shape_text(x, xs, sizeof xs);
    sts_ops_shape_text(y, ys, sizeof ys);
    return sts_error_set(err, STS_ERR_SHAPE, -1, "%s: input shape %s and output shape %s hold different counts", op, xs,
                         ys);
}

sts_status sts_ops_launch(sts_device *dev, sts_kernel *k, int dims, const size_t *global, const size_t *local,
                          cl_event *out, sts_error *err)
{
    cl_int rc = clEnqueueNDRangeKernel(dev->q, k->k, (cl_uint)dims, NULL, global, local, 0, NULL, out);
    if (rc == CL_SUCCESS) return STS_OK;
    return sts_error_set(err, STS_ERR_DEVICE, -1, "launching kernel '%s' failed: %s (%d)", k->name,
                         sts_cl_error_name(rc), (int)rc);
}

sts_status sts_ops_finish(sts_device *dev, const char *name, const cl_event *cl, unsigned n, sts_array *out,
                          sts_event **ev, sts_error *err)
{
    sts_event *w = sts_event_wrap(name, cl, n);
    if (!w) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for an event");
    sts_array_set_event(out, w);
    return sts_device_publish(dev, w, ev, err);
}

static void release_all(cl_event *cl, unsigned n)
{
    for (unsigned i = 0; i < n; i++)
        clReleaseEvent(cl[i]);
}

static size_t round_up(size_t v, size_t m)
{
    return (v + m - 1) / m * m;
}

/* Sets A, B, C, M, N, K: the leading arguments of every matmul kernel. */
static sts_status matmul_args(sts_kernel *k, const sts_array *a, const sts_array *b, sts_array *c, sts_error *err)
{
    sts_status st = sts_kernel_set_array(k, 0, a, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 1, b, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 2, c, err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 3, (int32_t)a->shape[0], err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 4, (int32_t)b->shape[1], err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 5, (int32_t)a->shape[1], err);
    return st;
}

static sts_status edge_launch(sts_device *dev, sts_kernel *k, size_t row0, size_t col0, size_t rows, size_t cols,
                              cl_event *out, sts_error *err)
{
    sts_status st = sts_kernel_set_i32(k, 6, (int32_t)row0, err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 7, (int32_t)col0, err);
    size_t global[2] = { cols, rows };
    return st == STS_OK ? sts_ops_launch(dev, k, 2, global, NULL, out, err) : st;
}

/* Whole RM x 16 blocks with matmul_block, then the right and bottom strips with
 * matmul_edge; the launches share one event. */
static sts_status matmul_blocked(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *c, cl_event *cl,
                                 unsigned *n, sts_error *err)
{
    size_t M = (size_t)a->shape[0], N = (size_t)b->shape[1];
    size_t Mf = M - M % BLOCK_ROWS, Nf = N - N % BLOCK_COLS;
    int blocks = Mf && Nf;
    sts_kernel *blk, *edge;
    sts_status st = sts_device_builtin(dev, STS_BI_MATMUL_BLOCK, &blk, err);
    if (st == STS_OK) st = sts_device_builtin(dev, STS_BI_MATMUL_EDGE, &edge, err);
    if (st == STS_OK && blocks) {
        size_t global[2] = { Nf / BLOCK_COLS, Mf / BLOCK_ROWS };
        /* A column of up to 64 work-items shares one panel of B (see matmul.cl). */
        size_t local[2] = { 1, 64 };
        while (global[1] % local[1])
            local[1] /= 2;
        st = matmul_args(blk, a, b, c, err);
        if (st == STS_OK) st = sts_ops_launch(dev, blk, 2, global, local, &cl[*n], err);
        if (st == STS_OK) (*n)++;
    }
    if (st != STS_OK || (blocks && Mf == M && Nf == N)) return st;
    st = matmul_args(edge, a, b, c, err);
    if (st == STS_OK && !blocks) {
        st = edge_launch(dev, edge, 0, 0, M, N, &cl[*n], err);
        if (st == STS_OK) (*n)++;
        return st;
    }
    if (st == STS_OK && Nf < N) {
        st = edge_launch(dev, edge, 0, Nf, M, N - Nf, &cl[*n], err);
        if (st == STS_OK) (*n)++;
    }
    if (st == STS_OK && Mf < M) {
        st = edge_launch(dev, edge, Mf, 0, M - Mf, Nf, &cl[*n], err);
        if (st == STS_OK) (*n)++;
    }
    return st;
}

static sts_status matmul_tiled(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *c, cl_event *cl,
                               unsigned *n, sts_error *err)
{
    sts_kernel *k;
    sts_status st = sts_device_builtin(dev, STS_BI_MATMUL_TILED, &k, err);
    if (st == STS_OK) st = matmul_args(k, a, b, c, err);
    size_t global[2] = { round_up((size_t)b->shape[1], TILE), round_up((size_t)a->shape[0], TILE) };
    size_t local[2] = { TILE, TILE };
    if (st == STS_OK) st = sts_ops_launch(dev, k, 2, global, local, &cl[*n], err);
    if (st == STS_OK) (*n)++;
    return st;
}

static sts_status matmul_naive(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *c, cl_event *cl,
                               unsigned *n, sts_error *err)
{
    sts_kernel *k;
    sts_status st = sts_device_builtin(dev, STS_BI_MATMUL_EDGE, &k, err);
    if (st == STS_OK) st = matmul_args(k, a, b, c, err);
    if (st == STS_OK) st = edge_launch(dev, k, 0, 0, (size_t)a->shape[0], (size_t)b->shape[1], &cl[*n], err);
    if (st == STS_OK) (*n)++;
    return st;
}

sts_status sts_ops_matmul_shapes(const sts_device *dev, const sts_array *a, const sts_array *b, const sts_array *c,
                                 sts_error *err)
{
    sts_status st = sts_ops_need_f32(dev, "matmul", "a", a, err);
    if (st == STS_OK) st = sts_ops_need_f32(dev, "matmul", "b", b, err);
    if (st == STS_OK) st = sts_ops_need_f32(dev, "matmul", "c", c, err);
    if (st != STS_OK) return st;
    char as[80], bs[80], cs[80];
    sts_ops_shape_text(a, as, sizeof as);
    sts_ops_shape_text(b, bs, sizeof bs);
    sts_ops_shape_text(c, cs, sizeof cs);
    if (a->ndim != 2 || b->ndim != 2 || c->ndim != 2)
        return sts_error_set(err, STS_ERR_SHAPE, -1, "matmul: a %s, b %s and c %s must all be 2-D", as, bs, cs);
    if (a->shape[1] != b->shape[0])
        return sts_error_set(err, STS_ERR_SHAPE, -1,
                             "matmul: a %s @ b %s: a's columns (%lld) must equal b's rows (%lld)", as, bs,
                             (long long)a->shape[1], (long long)b->shape[0]);
    if (c->shape[0] != a->shape[0] || c->shape[1] != b->shape[1])
        return sts_error_set(err, STS_ERR_SHAPE, -1, "matmul: a %s @ b %s gives [%lld,%lld], but c is %s", as, bs,
                             (long long)a->shape[0], (long long)b->shape[1], cs);
    return STS_OK;
}

static sts_matmul_kind matmul_choice(const sts_device *dev)
{
    if (dev->matmul != STS_MATMUL_AUTO) return dev->matmul;
    if (dev->info.local_mem_is_global || dev->info.max_work_group_size < TILE * TILE) return STS_MATMUL_BLOCKED;
    return STS_MATMUL_TILED;
}

sts_status sts_op_matmul(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *c, sts_event **ev,
                         sts_error *err)
{
    if (ev) *ev = NULL;
    sts_status st = sts_ops_matmul_shapes(dev, a, b, c, err);
    if (st != STS_OK) return st;
    cl_event cl[STS_EVENT_MAX_CL];
    unsigned n = 0;
    switch (matmul_choice(dev)) {
    case STS_MATMUL_TILED:
        st = matmul_tiled(dev, a, b, c, cl, &n, err);
        break;
    case STS_MATMUL_NAIVE:
        st = matmul_naive(dev, a, b, c, cl, &n, err);
        break;
    case STS_MATMUL_AUTO:
    case STS_MATMUL_BLOCKED:
        st = matmul_blocked(dev, a, b, c, cl, &n, err);
        break;
    }
    if (st != STS_OK) {
        release_all(cl, n);
        return st;
    }
    return sts_ops_finish(dev, "matmul", cl, n, c, ev, err);
}

/* A 1-D launch for `count` elements: work-groups of up to 256, and no more of them than
 * four per compute unit (the kernels stride over the rest). */
static sts_status map_launch(sts_device *dev, sts_kernel *k, size_t count, const char *name, sts_array *y,
                             sts_event **ev, sts_error *err)
{
    size_t group = sts_kernel_max_work_group(k);
    if (group > 256) group = 256;
    size_t most = group * 4 * (dev->info.compute_units ? dev->info.compute_units : 1);
    size_t global = round_up(count, group);
    if (global > most) global = most;
    cl_event cl;
    sts_status st = sts_ops_launch(dev, k, 1, &global, &group, &cl, err);
    if (st != STS_OK) return st;
    return sts_ops_finish(dev, name, &cl, 1, y, ev, err);
}

static sts_status unary(sts_device *dev, sts_builtin which, const char *name, const sts_array *x, sts_array *y,
                        const float *alpha, sts_event **ev, sts_error *err)
{
    if (ev) *ev = NULL;
    sts_status st = same_count(dev, name, x, y, err);
    sts_kernel *k = NULL;
    if (st == STS_OK) st = sts_device_builtin(dev, which, &k, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 0, x, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 1, y, err);
    unsigned next = 2;
    if (st == STS_OK && alpha) st = sts_kernel_set_f32(k, next++, *alpha, err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, next, (int32_t)x->count, err);
    if (st != STS_OK) return st;
    return map_launch(dev, k, x->count, name, y, ev, err);
}

sts_status sts_op_tanh(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return unary(dev, STS_BI_TANH, "tanh", x, y, NULL, ev, err);
}

sts_status sts_op_square(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return unary(dev, STS_BI_SQUARE, "square", x, y, NULL, ev, err);
}

sts_status sts_op_scale(sts_device *dev, const sts_array *x, float alpha, sts_array *y, sts_event **ev, sts_error *err)
{
    return unary(dev, STS_BI_SCALE, "scale", x, y, &alpha, ev, err);
}

sts_status sts_op_row_sum(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    if (ev) *ev = NULL;
    sts_status st = sts_ops_need_f32(dev, "row_sum", "input", x, err);
    if (st == STS_OK) st = sts_ops_need_f32(dev, "row_sum", "output", y, err);
    if (st != STS_OK) return st;
    char xs[80], ys[80];
    sts_ops_shape_text(x, xs, sizeof xs);
    sts_ops_shape_text(y, ys, sizeof ys);
    if (x->ndim != 2 || y->count != (size_t)x->shape[0])
        return sts_error_set(err, STS_ERR_SHAPE, -1,
                             "row_sum: input %s must be 2-D [rows, cols] and output %s must hold one value per row", xs,
                             ys);
    sts_kernel *k;
    st = sts_device_builtin(dev, STS_BI_ROW_SUM, &k, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 0, x, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 1, y, err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 2, (int32_t)x->shape[0], err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 3, (int32_t)x->shape[1], err);
    if (st != STS_OK) return st;
    return map_launch(dev, k, (size_t)x->shape[0], "row_sum", y, ev, err);
}

static sts_status reduce_all(sts_device *dev, const char *name, const sts_array *x, sts_array *y, int mean,
                             sts_event **ev, sts_error *err)
{
    if (ev) *ev = NULL;
    sts_status st = sts_ops_need_f32(dev, name, "input", x, err);
    if (st == STS_OK) st = sts_ops_need_f32(dev, name, "output", y, err);
    if (st != STS_OK) return st;
    if (y->count != 1) {
        char ys[80];
        sts_ops_shape_text(y, ys, sizeof ys);
        return sts_error_set(err, STS_ERR_SHAPE, -1, "%s: output %s must hold exactly one value", name, ys);
    }
    sts_kernel *k;
    st = sts_device_builtin(dev, STS_BI_SUM, &k, err);
    if (st != STS_OK) return st;
    size_t limit = sts_kernel_max_work_group(k), group = 1;
    if (limit > 256) limit = 256;
    while (group * 2 <= limit && group < x->count)
        group *= 2;
    float scale = mean ? (float)(1.0 / (double)x->count) : 1.0f;
    st = sts_kernel_set_array(k, 0, x, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 1, y, err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 2, (int32_t)x->count, err);
    if (st == STS_OK) st = sts_kernel_set_f32(k, 3, scale, err);
    if (st == STS_OK) st = sts_kernel_set_local(k, 4, group * sizeof(float), err);
    cl_event cl;
    if (st == STS_OK) st = sts_ops_launch(dev, k, 1, &group, &group, &cl, err);
    if (st != STS_OK) return st;
    return sts_ops_finish(dev, name, &cl, 1, y, ev, err);
}

sts_status sts_op_sum(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return reduce_all(dev, "sum", x, y, 0, ev, err);
}

sts_status sts_op_mean(sts_device *dev, const sts_array *x, sts_array *y, sts_event **ev, sts_error *err)
{
    return reduce_all(dev, "mean", x, y, 1, ev, err);
}
