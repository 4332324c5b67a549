/* device: fused products (sts_op_matmul_tanh, sts_op_matmul_energy). On a CPU device a
 * kernel launch costs tens of microseconds of queueing and thread wake-ups, more than
 * lesson 1's whole product, so small shapes run as one launch of a fused kernel
 * (kernels/fused.cl) in few work-groups. Larger shapes keep the tuned matmul and run
 * the maps after it. */
#include <math.h>
#include <stdio.h>

#include "device/device_impl.h"

/* Multiply-adds per work-group in a small launch. PoCL's pthread device runs each
 * group on one worker thread, and waking a second thread costs about as much as
 * lesson 1's whole product (measured: one group and two give the same device time at
 * 64 and 96 rows), so a second group starts only past this much work. */
#define GROUP_WORK 65536.0

static size_t small_groups(const sts_device *dev, const sts_array *a, const sts_array *b)
{
    double work = (double)a->shape[0] * (double)a->shape[1] * (double)b->shape[1];
    size_t groups = (size_t)ceil(work / GROUP_WORK);
    size_t most = dev->info.compute_units ? dev->info.compute_units : 1;
    if (groups > most) groups = most;
    return groups ? groups : 1;
}

static int use_fused(const sts_device *dev, const sts_array *a, const sts_array *b)
{
    double work = (double)a->shape[0] * (double)a->shape[1] * (double)b->shape[1];
    return dev->matmul == STS_MATMUL_AUTO && work <= (double)STS_FUSED_MAX_WORK;
}

static sts_status set_args(sts_kernel *k, const sts_array *a, const sts_array *b, sts_array *out, sts_error *err)
{
    sts_status st = sts_kernel_set_array(k, 0, a, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 1, b, err);
    if (st == STS_OK) st = sts_kernel_set_array(k, 2, out, err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 3, (int32_t)a->shape[0], err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 4, (int32_t)b->shape[1], err);
    if (st == STS_OK) st = sts_kernel_set_i32(k, 5, (int32_t)a->shape[1], err);
    return st;
}

/* Rows (work-items) per work-group: the rows split over `groups` groups, each within
 * the kernel's work-group limit. */
static size_t rows_per_group(const sts_kernel *k, size_t rows, size_t groups)
{
    size_t r = (rows + groups - 1) / groups;
    size_t limit = sts_kernel_max_work_group(k);
    if (limit < 1) limit = 1;
    return r < limit ? r : limit;
}

/* Joins the separate operations' events into one for the caller. */
static sts_status hand_back(const char *name, sts_event **parts, size_t n, sts_event **ev, sts_error *err)
{
    sts_status st = STS_OK;
    if (ev) {
        *ev = sts_event_join(name, parts, n);
        if (!*ev) st = sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for an event");
    }
    for (size_t i = 0; i < n; i++)
        sts_event_release(parts[i]);
    return st;
}

static sts_status tanh_small(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *y, sts_event **ev,
                             sts_error *err)
{
    sts_kernel *k;
    sts_status st = sts_device_builtin(dev, STS_BI_MM_TANH_SMALL, &k, err);
    if (st == STS_OK) st = set_args(k, a, b, y, err);
    if (st != STS_OK) return st;
    size_t M = (size_t)a->shape[0];
    size_t r = rows_per_group(k, M, small_groups(dev, a, b)), global = (M + r - 1) / r * r;
    cl_event cl;
    st = sts_ops_launch(dev, k, 1, &global, &r, &cl, err);
    return st == STS_OK ? sts_ops_finish(dev, "matmul_tanh", &cl, 1, y, ev, err) : st;
}

sts_status sts_op_matmul_tanh(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *y, sts_event **ev,
                              sts_error *err)
{
    if (ev) *ev = NULL;
    sts_status st = sts_ops_matmul_shapes(dev, a, b, y, err);
    if (st != STS_OK) return st;
    if (use_fused(dev, a, b)) return tanh_small(dev, a, b, y, ev, err);
    sts_event *parts[2] = { NULL, NULL };
    st = sts_op_matmul(dev, a, b, y, &parts[0], err);
    if (st == STS_OK) st = sts_op_tanh(dev, y, y, &parts[1], err);
    if (st != STS_OK) {
        sts_event_release(parts[0]);
        return st;
    }
    return hand_back("matmul_tanh", parts, 2, ev, err);
}

static sts_status energy_shapes(const sts_device *dev, const sts_array *a, const sts_array *b, const sts_array *scratch,
                                const sts_array *e, sts_error *err)
{
    sts_status st = sts_ops_matmul_shapes(dev, a, b, scratch, err);
    if (st == STS_OK) st = sts_ops_need_f32(dev, "matmul_energy", "output", e, err);
    if (st != STS_OK || (size_t)a->shape[0] == e->count) return st;
    char as[80], es[80];
    sts_ops_shape_text(a, as, sizeof as);
    sts_ops_shape_text(e, es, sizeof es);
    return sts_error_set(err, STS_ERR_SHAPE, -1,
                         "matmul_energy: a %s has %lld rows, but the output %s holds %zu values", as,
                         (long long)a->shape[0], es, e->count);
}

static sts_status energy_small(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *e, sts_event **ev,
                               sts_error *err)
{
    sts_kernel *k;
    sts_status st = sts_device_builtin(dev, STS_BI_MM_SQSUM_SMALL, &k, err);
    if (st == STS_OK) st = set_args(k, a, b, e, err);
    if (st != STS_OK) return st;
    size_t M = (size_t)a->shape[0];
    size_t r = rows_per_group(k, M, small_groups(dev, a, b)), global = (M + r - 1) / r * r;
    cl_event cl;
    st = sts_ops_launch(dev, k, 1, &global, &r, &cl, err);
    return st == STS_OK ? sts_ops_finish(dev, "matmul_energy", &cl, 1, e, ev, err) : st;
}

sts_status sts_op_matmul_energy(sts_device *dev, const sts_array *a, const sts_array *b, sts_array *scratch,
                                sts_array *e, sts_event **ev, sts_error *err)
{
    if (ev) *ev = NULL;
    sts_status st = energy_shapes(dev, a, b, scratch, e, err);
    if (st != STS_OK) return st;
    if (use_fused(dev, a, b)) return energy_small(dev, a, b, e, ev, err);
    sts_event *parts[3] = { NULL, NULL, NULL };
    st = sts_op_matmul(dev, a, b, scratch, &parts[0], err);
    if (st == STS_OK) st = sts_op_square(dev, scratch, scratch, &parts[1], err);
    if (st == STS_OK) st = sts_op_row_sum(dev, scratch, e, &parts[2], err);
    if (st != STS_OK) {
        for (int i = 0; i < 3; i++)
            sts_event_release(parts[i]);
        return st;
    }
    return hand_back("matmul_energy", parts, 3, ev, err);
}
