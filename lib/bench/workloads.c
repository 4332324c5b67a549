/* bench: lesson 1's workloads on the OpenCL device, as bench specs.
 *   predict     y = tanh(x @ w)
 *   energy      e = sum((x @ w)^2, axis=1)
 *   structured  {prediction: tanh(x @ w), mean: mean(prediction)}, waited as one
 * Inputs are seeded normal float32 values; the reference is computed on the host with
 * double accumulation from the same float32 inputs. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope/bench.h"

#define MAX_EVENTS 3

struct sts_workload {
    sts_device *dev;
    sts_workload_params p;
    float *x, *w;    /* host inputs, placed by setup */
    double *ref;     /* prediction (predict, structured) or energy (energy) */
    double ref_mean; /* structured */
    float *got;      /* host copy of the result, for the check */
    float got_mean;
    sts_array *X, *W, *Y; /* inputs, and scratch for the energy's large-shape path */
    sts_array *T;         /* tanh(x @ w); not for energy */
    sts_array *E;         /* energy per row */
    sts_array *M;         /* mean */
};

/* What a call returns: the events of the launches it made. */
typedef struct handle {
    size_t n;
    sts_event *ev[MAX_EVENTS];
} handle;

static const char *const names[] = { "predict", "energy", "structured" };

const char *sts_workload_name(sts_workload_kind kind)
{
    return (unsigned)kind < sizeof names / sizeof names[0] ? names[kind] : "unknown";
}

sts_status sts_workload_parse(const char *name, sts_workload_kind *out, sts_error *err)
{
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(name, names[i]) == 0) return *out = (sts_workload_kind)i, STS_OK;
    return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "unknown workload '%s' (expected predict, energy or structured)",
                         name);
}

static void reference(sts_workload *wl)
{
    const sts_workload_params *p = &wl->p;
    double total = 0;
    for (int64_t i = 0; i < p->rows; i++) {
        double energy = 0;
        for (int64_t j = 0; j < p->outputs; j++) {
            double s = 0;
            for (int64_t k = 0; k < p->features; k++)
                s += (double)wl->x[i * p->features + k] * (double)wl->w[k * p->outputs + j];
            if (p->kind == STS_WORKLOAD_ENERGY)
                energy += s * s;
            else
                total += wl->ref[i * p->outputs + j] = tanh(s);
        }
        if (p->kind == STS_WORKLOAD_ENERGY) wl->ref[i] = energy;
    }
    wl->ref_mean = total / (double)(p->rows * p->outputs);
}

static sts_status make_arrays(sts_workload *wl, sts_error *err)
{
    const sts_workload_params *p = &wl->p;
    int64_t xs[2] = { p->rows, p->features }, ws[2] = { p->features, p->outputs }, ys[2] = { p->rows, p->outputs };
    sts_status st = sts_array_create(wl->dev, STS_DTYPE_F32, 2, xs, &wl->X, err);
    if (st == STS_OK) st = sts_array_create(wl->dev, STS_DTYPE_F32, 2, ws, &wl->W, err);
    if (st == STS_OK) st = sts_array_create(wl->dev, STS_DTYPE_F32, 2, ys, &wl->Y, err);
    if (st == STS_OK && p->kind != STS_WORKLOAD_ENERGY)
        st = sts_array_create(wl->dev, STS_DTYPE_F32, 2, ys, &wl->T, err);
    if (st == STS_OK && p->kind == STS_WORKLOAD_ENERGY)
        st = sts_array_create(wl->dev, STS_DTYPE_F32, 1, xs, &wl->E, err);
    if (st == STS_OK && p->kind == STS_WORKLOAD_STRUCTURED)
        st = sts_array_create(wl->dev, STS_DTYPE_F32, 0, NULL, &wl->M, err);
    return st;
}

static sts_status check_params(const sts_workload_params *p, sts_error *err)
{
    if (p->kind != STS_WORKLOAD_PREDICT && p->kind != STS_WORKLOAD_ENERGY && p->kind != STS_WORKLOAD_STRUCTURED)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "unknown workload kind %d", (int)p->kind);
    if (p->rows < 1 || p->features < 1 || p->outputs < 1)
        return sts_error_set(err, STS_ERR_SHAPE, -1,
                             "workload dimensions must be at least 1: rows %lld, features %lld, outputs %lld",
                             (long long)p->rows, (long long)p->features, (long long)p->outputs);
    const int64_t limit = 1 << 14;
    if (p->rows > limit || p->features > limit || p->outputs > limit)
        return sts_error_set(err, STS_ERR_LIMIT, -1, "workload dimensions are limited to %lld each", (long long)limit);
    return STS_OK;
}

sts_status sts_workload_create(sts_device *dev, const sts_workload_params *p, sts_workload **out, sts_error *err)
{
    *out = NULL;
    sts_status st = check_params(p, err);
    if (st != STS_OK) return st;
    sts_workload *wl = calloc(1, sizeof *wl);
    if (!wl) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for a workload");
    wl->dev = dev;
    wl->p = *p;
    size_t nx = (size_t)(p->rows * p->features), nw = (size_t)(p->features * p->outputs);
    size_t ny = (size_t)(p->rows * p->outputs);
    wl->x = malloc(nx * sizeof *wl->x);
    wl->w = malloc(nw * sizeof *wl->w);
    wl->ref = malloc(ny * sizeof *wl->ref);
    wl->got = malloc(ny * sizeof *wl->got);
    if (!wl->x || !wl->w || !wl->ref || !wl->got) {
        sts_workload_free(wl);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for the workload's inputs");
    }
    /* x and w come from one stream, x first, like two draws from one generator. */
    float *both = malloc((nx + nw) * sizeof *both);
    if (!both) {
        sts_workload_free(wl);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for the workload's inputs");
    }
    sts_normal_f32(p->seed, both, nx + nw);
    memcpy(wl->x, both, nx * sizeof *both);
    memcpy(wl->w, both + nx, nw * sizeof *both);
    free(both);
    reference(wl);
    st = make_arrays(wl, err);
    if (st != STS_OK) {
        sts_workload_free(wl);
        return st;
    }
    *out = wl;
    return STS_OK;
}

void sts_workload_free(sts_workload *wl)
{
    if (!wl) return;
    sts_array_free(wl->X), sts_array_free(wl->W), sts_array_free(wl->Y);
    sts_array_free(wl->T), sts_array_free(wl->E), sts_array_free(wl->M);
    free(wl->x), free(wl->w), free(wl->ref), free(wl->got);
    free(wl);
}

/* Places the inputs and waits for them: outside every clock. */
static sts_status wl_setup(void *user, sts_error *err)
{
    sts_workload *wl = user;
    sts_status st = sts_array_write(wl->X, wl->x, sts_array_bytes(wl->X), NULL, err);
    if (st == STS_OK) st = sts_array_write(wl->W, wl->w, sts_array_bytes(wl->W), NULL, err);
    sts_array *placed[2] = { wl->X, wl->W };
    if (st == STS_OK) st = sts_arrays_ready(placed, 2, err);
    return st;
}

static void release_handle(void *user, void *hp)
{
    (void)user;
    handle *h = hp;
    if (!h) return;
    for (size_t i = 0; i < h->n; i++)
        sts_event_release(h->ev[i]);
    free(h);
}

static sts_status wl_call(void *user, void **out, sts_error *err)
{
    sts_workload *wl = user;
    handle *h = calloc(1, sizeof *h);
    *out = NULL;
    if (!h) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for a call handle");
    /* Fused operations: one launch each at the lesson's sizes (lib/device/fused.c). */
    sts_status st;
    if (wl->p.kind == STS_WORKLOAD_ENERGY) {
        st = sts_op_matmul_energy(wl->dev, wl->X, wl->W, wl->Y, wl->E, &h->ev[h->n++], err);
    } else {
        st = sts_op_matmul_tanh(wl->dev, wl->X, wl->W, wl->T, &h->ev[h->n++], err);
        if (st == STS_OK && wl->p.kind == STS_WORKLOAD_STRUCTURED)
            st = sts_op_mean(wl->dev, wl->T, wl->M, &h->ev[h->n++], err);
    }
    if (st != STS_OK) {
        release_handle(wl, h);
        return st;
    }
    *out = h;
    return STS_OK;
}

/* Waits for every output leaf of the result as one (for predict and energy that is
 * the one output; structured waits for the prediction and its mean together). */
static sts_status wl_wait(void *user, void *hp, sts_error *err)
{
    (void)user;
    handle *h = hp;
    return sts_ready(h->ev, h->n, err);
}

static int64_t wl_device_ns(void *user, void *hp)
{
    (void)user;
    handle *h = hp;
    return sts_events_span_ns(h->ev, h->n);
}

static sts_status wl_check(void *user, void *hp, sts_bench_check *out, sts_error *err)
{
    (void)hp;
    sts_workload *wl = user;
    const sts_workload_params *p = &wl->p;
    int64_t ys[2] = { p->rows, p->outputs };
    if (p->kind == STS_WORKLOAD_ENERGY) {
        sts_status st = sts_array_read(wl->E, wl->got, (size_t)p->rows * sizeof *wl->got, err);
        if (st == STS_OK) sts_check_add_f32(out, "energy", 1, ys, wl->got, wl->ref, (size_t)p->rows);
        return st;
    }
    size_t ny = (size_t)(p->rows * p->outputs);
    sts_status st = sts_array_read(wl->T, wl->got, ny * sizeof *wl->got, err);
    if (st == STS_OK) sts_check_add_f32(out, "prediction", 2, ys, wl->got, wl->ref, ny);
    if (st == STS_OK && p->kind == STS_WORKLOAD_STRUCTURED) {
        st = sts_array_read(wl->M, &wl->got_mean, sizeof wl->got_mean, err);
        if (st == STS_OK) sts_check_add_f32(out, "mean", 0, NULL, &wl->got_mean, &wl->ref_mean, 1);
    }
    return st;
}

static void set_shape(sts_bench_shape *s, const char *key, int ndim, int64_t d0, int64_t d1)
{
    snprintf(s->key, sizeof s->key, "%s", key);
    s->ndim = ndim;
    s->dims[0] = d0;
    s->dims[1] = d1;
}

void sts_workload_spec(sts_workload *wl, sts_bench_spec *spec)
{
    const sts_workload_params *p = &wl->p;
    memset(spec, 0, sizeof *spec);
    spec->name = sts_workload_name(p->kind);
    spec->boundary = p->kind == STS_WORKLOAD_STRUCTURED
                         ? "input already placed; call plus one wait on every output leaf (prediction and mean)"
                         : "input already placed; call plus output synchronization";
    spec->dtype = "float32";
    set_shape(&spec->shapes[0], "input_shape", 2, p->rows, p->features);
    set_shape(&spec->shapes[1], "weight_shape", 2, p->features, p->outputs);
    if (p->kind == STS_WORKLOAD_ENERGY)
        set_shape(&spec->shapes[2], "output_shape", 1, p->rows, 0);
    else
        set_shape(&spec->shapes[2], "output_shape", 2, p->rows, p->outputs);
    spec->nshapes = 3;
    if (p->kind == STS_WORKLOAD_STRUCTURED) {
        set_shape(&spec->shapes[3], "mean_shape", 0, 0, 0);
        spec->nshapes = 4;
    }
    spec->user = wl;
    spec->setup = wl_setup;
    spec->call = wl_call;
    spec->wait = wl_wait;
    spec->check = wl_check;
    spec->device_ns = wl_device_ns;
    spec->release = release_handle;
    spec->repeats = 7;
    /* The lesson's tolerances are for its contract (32 features). A float32 dot
     * product's rounding error grows about linearly with its length, so beyond 32
     * features atol grows in proportion. */
    double grow = p->features > 32 ? (double)p->features / 32.0 : 1.0;
    spec->atol = (p->kind == STS_WORKLOAD_ENERGY ? 2e-3 : 2e-5) * grow;
    spec->rtol = 2e-5;
}
