/* bench: the harness. It draws the boundaries: setup outside the clock, the first call
 * apart, synchronized samples, dispatch-only intervals labelled apart. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"
#include "stepscope/bench.h"

static sts_status validate(const sts_bench_spec *s, sts_error *err)
{
    if (!s->call || !s->wait)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "bench spec '%s' needs both a call and a wait function",
                             s->name ? s->name : "");
    if (s->repeats < 1)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "repeats must be at least 1 (got %d)", s->repeats);
    if (s->warmup < 0)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "warmup must be 0 or more (got %d)", s->warmup);
    /* A negative or NaN tolerance failed every value and an infinite one passed every
     * value, silently. */
    if (!(s->atol >= 0 && s->atol < INFINITY))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "atol must be a finite number >= 0 (got %g)", s->atol);
    if (!(s->rtol >= 0 && s->rtol < INFINITY))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "rtol must be a finite number >= 0 (got %g)", s->rtol);
    if (s->nshapes > STS_BENCH_MAX_SHAPES)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "at most %d shapes (got %zu)", STS_BENCH_MAX_SHAPES,
                             s->nshapes);
    return STS_OK;
}

static void drop(const sts_bench_spec *s, void *h)
{
    if (s->release) s->release(s->user, h);
}

static int64_t device_time(const sts_bench_spec *s, void *h)
{
    return s->device_ns ? s->device_ns(s->user, h) : -1;
}

/* The measured loop: start, call, wait, stop, for n samples. `dev` may be NULL. The
 * last handle is kept in *last (or released when last is NULL). Nothing but the call
 * and its wait lies between the two clock reads. */
static sts_status sample_loop(const sts_bench_spec *s, size_t n, int64_t *host, int64_t *dev, void **last,
                              sts_error *err)
{
    for (size_t i = 0; i < n; i++) {
        void *h = NULL;
        int64_t t0 = sts_clock_ns();
        sts_status st = s->call(s->user, &h, err);
        if (st == STS_OK) st = s->wait(s->user, h, err);
        int64_t t1 = sts_clock_ns();
        if (st != STS_OK) {
            drop(s, h);
            return st;
        }
        host[i] = t1 - t0;
        if (dev) dev[i] = device_time(s, h);
        if (last && i + 1 == n)
            *last = h;
        else
            drop(s, h);
    }
    return STS_OK;
}

/* Dispatch-only: the clock stops when the call returns its handle; the wait follows,
 * outside the interval, so the next sample starts from an idle device. */
static sts_status dispatch_loop(const sts_bench_spec *s, size_t n, int64_t *host, sts_error *err)
{
    for (size_t i = 0; i < n; i++) {
        void *h = NULL;
        int64_t t0 = sts_clock_ns();
        sts_status st = s->call(s->user, &h, err);
        int64_t t1 = sts_clock_ns();
        if (st == STS_OK) st = s->wait(s->user, h, err);
        drop(s, h);
        if (st != STS_OK) return st;
        host[i] = t1 - t0;
    }
    return STS_OK;
}

static sts_status empty_call(void *user, void **handle, sts_error *err)
{
    (void)user, (void)err;
    *handle = NULL;
    return STS_OK;
}

static sts_status empty_wait(void *user, void *handle, sts_error *err)
{
    (void)user, (void)handle, (void)err;
    return STS_OK;
}

int64_t sts_bench_harness_overhead_ns(int rounds, int iterations)
{
    if (rounds < 1) rounds = 1;
    if (iterations < 1) iterations = 1;
    sts_bench_spec empty;
    memset(&empty, 0, sizeof empty);
    empty.call = empty_call;
    empty.wait = empty_wait;
    int64_t *host = malloc((size_t)iterations * sizeof *host);
    int64_t *dev = malloc((size_t)iterations * sizeof *dev);
    double per[64];
    if (rounds > 64) rounds = 64;
    int done = 0;
    for (int r = 0; r < rounds && host && dev; r++) {
        int64_t t0 = sts_clock_ns();
        sample_loop(&empty, (size_t)iterations, host, dev, NULL, NULL);
        per[done++] = (double)(sts_clock_ns() - t0) / iterations;
    }
    free(host);
    free(dev);
    return done ? (int64_t)(sts_median(per, (size_t)done) + 0.5) : -1;
}

static sts_bench_result *alloc_result(const sts_bench_spec *s)
{
    sts_bench_result *r = calloc(1, sizeof *r);
    if (!r) return NULL;
    size_t n = (size_t)s->repeats;
    size_t nd = s->dispatch_repeats < 0 ? 0 : s->dispatch_repeats == 0 ? n : (size_t)s->dispatch_repeats;
    r->samples_ns = calloc(n, sizeof *r->samples_ns);
    r->device_ns = calloc(n, sizeof *r->device_ns);
    r->outlier = calloc(n, 1);
    r->dispatch_ns = calloc(nd ? nd : 1, sizeof *r->dispatch_ns);
    if (!r->samples_ns || !r->device_ns || !r->outlier || !r->dispatch_ns) {
        sts_bench_result_free(r);
        return NULL;
    }
    r->nsamples = n;
    r->ndispatch = nd;
    snprintf(r->name, sizeof r->name, "%s", s->name ? s->name : "bench");
    snprintf(r->boundary, sizeof r->boundary, "%s", s->boundary ? s->boundary : "");
    snprintf(r->dtype, sizeof r->dtype, "%s", s->dtype ? s->dtype : "");
    r->nshapes = s->nshapes;
    memcpy(r->shapes, s->shapes, s->nshapes * sizeof s->shapes[0]);
    r->warmup = s->warmup;
    r->check.atol = s->atol;
    r->check.rtol = s->rtol;
    r->check.equal_nan = s->equal_nan != 0;
    if (s->reference) snprintf(r->check.reference, sizeof r->check.reference, "%s", s->reference);
    return r;
}

sts_status sts_bench_result_note(sts_bench_result *r, const char *text)
{
    if (r->nnotes >= STS_BENCH_MAX_NOTES) return STS_ERR_LIMIT;
    snprintf(r->notes[r->nnotes++], sizeof r->notes[0], "%s", text ? text : "");
    return STS_OK;
}

void sts_bench_result_set_boundary(sts_bench_result *r, const char *text)
{
    snprintf(r->boundary, sizeof r->boundary, "%s", text ? text : "");
}

void sts_bench_result_free(sts_bench_result *r)
{
    if (!r) return;
    free(r->samples_ns);
    free(r->device_ns);
    free(r->outlier);
    free(r->dispatch_ns);
    free(r);
}

static void to_double(const int64_t *v, size_t n, double *out, size_t *nout)
{
    *nout = 0;
    for (size_t i = 0; i < n; i++)
        if (v[i] >= 0) out[(*nout)++] = (double)v[i];
}

/* Statistics, device-time and overhead summaries, and the stability verdict. */
static sts_status summarize(sts_bench_result *r)
{
    size_t n = r->nsamples, m;
    double *buf = malloc((n > r->ndispatch ? n : r->ndispatch + 1) * sizeof *buf);
    if (!buf) return STS_ERR_NOMEM;
    to_double(r->samples_ns, n, buf, &m);
    sts_stats_compute(buf, m, &r->stats, r->outlier);
    to_double(r->device_ns, n, buf, &m);
    sts_stats_compute(buf, m, &r->device_stats, NULL);
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (r->device_ns[i] >= 0) buf[k++] = (double)(r->samples_ns[i] - r->device_ns[i]);
    sts_stats_compute(buf, k, &r->overhead_stats, NULL);
    to_double(r->dispatch_ns, r->ndispatch, buf, &m);
    sts_stats_compute(buf, m, &r->dispatch_stats, NULL);
    free(buf);
    int high_cv = r->stats.cv > STS_UNSTABLE_CV;
    r->unstable = high_cv || r->stats.outliers > 0;
    if (r->unstable)
        snprintf(r->warning, sizeof r->warning, "unstable: %s%s%s; rerun on a quieter machine or take more repeats",
                 high_cv ? "coefficient of variation above 10%" : "", high_cv && r->stats.outliers ? " and " : "",
                 r->stats.outliers ? "outliers by modified z-score" : "");
    return STS_OK;
}

static sts_status measure(const sts_bench_spec *s, sts_bench_result *r, sts_error *err)
{
    sts_status st = s->setup ? s->setup(s->user, err) : STS_OK;
    void *h = NULL;
    if (st == STS_OK) st = sample_loop(s, 1, &r->first_call_ns, &r->first_device_ns, NULL, err);
    for (int i = 0; i < s->warmup && st == STS_OK; i++) {
        int64_t ignored;
        st = sample_loop(s, 1, &ignored, NULL, NULL, err);
    }
    if (st == STS_OK) st = sample_loop(s, r->nsamples, r->samples_ns, r->device_ns, &h, err);
    if (st != STS_OK) return st;
    if (s->check) st = s->check(s->user, h, &r->check, err);
    drop(s, h);
    if (st == STS_OK) st = dispatch_loop(s, r->ndispatch, r->dispatch_ns, err);
    return st;
}

sts_status sts_bench_run(const sts_bench_spec *spec, sts_bench_result **out, sts_error *err)
{
    *out = NULL;
    sts_status st = validate(spec, err);
    if (st != STS_OK) return st;
    sts_bench_result *r = alloc_result(spec);
    if (!r) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for %d samples", spec->repeats);
    st = measure(spec, r, err);
    if (st == STS_OK && summarize(r) != STS_OK) st = sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory");
    if (st == STS_OK) r->harness_overhead_ns = sts_bench_harness_overhead_ns(5, 2000);
    if (st != STS_OK) {
        sts_bench_result_free(r);
        return st;
    }
    *out = r;
    return STS_OK;
}

double sts_bench_first_to_warm_ratio(const sts_bench_result *r)
{
    return r->stats.median > 0 ? (double)r->first_call_ns / r->stats.median : 0;
}
