/* Lesson 3's workload (see lesson3_model.h). */
#include "lesson3_model.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <time.h>

#include "stepscope/device.h"
#include "stepscope/trace.h"

/* ---- the workload ------------------------------------------------------------- */

/* Standard normal samples from a fixed seed (xorshift64* and Box-Muller): the values
 * only need to be reproducible, not NumPy's. */
static void fill_normal(float *v, size_t n, uint64_t *state)
{
    for (size_t i = 0; i < n; i += 2) {
        double u[2];
        for (int k = 0; k < 2; k++) {
            *state ^= *state >> 12;
            *state ^= *state << 25;
            *state ^= *state >> 27;
            u[k] = ((double)((*state * 2685821657736338717ULL) >> 11) + 0.5) / 9007199254740992.0;
        }
        double r = sqrt(-2.0 * log(u[0])), a = 6.283185307179586 * u[1];
        v[i] = (float)(r * cos(a));
        if (i + 1 < n) v[i + 1] = (float)(r * sin(a));
    }
}

static void host_reference(l3_model *m)
{
    for (int r = 0; r < L3_ROWS; r++)
        for (int c = 0; c < L3_COLS; c++) {
            double acc = 0;
            for (int k = 0; k < L3_INNER; k++)
                acc += (double)m->host_x[r * L3_INNER + k] * m->host_w[k * L3_COLS + c];
            m->ref[r * L3_COLS + c] = (float)tanh(acc);
        }
}

sts_status l3_model_open(l3_model *m, sts_error *err)
{
    uint64_t seed = 31;
    fill_normal(m->host_x, L3_ROWS * L3_INNER, &seed);
    fill_normal(m->host_w, L3_INNER * L3_COLS, &seed);
    host_reference(m);
    const int64_t xs[2] = { L3_ROWS, L3_INNER }, ws[2] = { L3_INNER, L3_COLS }, ys[2] = { L3_ROWS, L3_COLS };
    sts_status st = sts_device_open(NULL, &m->dev, err);
    if (st == STS_OK) st = sts_array_create(m->dev, STS_DTYPE_F32, 2, xs, &m->x, err);
    if (st == STS_OK) st = sts_array_create(m->dev, STS_DTYPE_F32, 2, ws, &m->w, err);
    if (st == STS_OK) st = sts_array_create(m->dev, STS_DTYPE_F32, 2, ys, &m->xw, err);
    if (st == STS_OK) st = sts_array_create(m->dev, STS_DTYPE_F32, 2, ys, &m->y, err);
    if (st == STS_OK) st = sts_array_write(m->x, m->host_x, sizeof m->host_x, NULL, err);
    if (st == STS_OK) st = sts_array_write(m->w, m->host_w, sizeof m->host_w, NULL, err);
    sts_array *inputs[2] = { m->x, m->w };
    if (st == STS_OK) st = sts_arrays_ready(inputs, 2, err);
    return st;
}

void l3_model_close(l3_model *m)
{
    sts_array_free(m->x);
    sts_array_free(m->w);
    sts_array_free(m->xw);
    sts_array_free(m->y);
    sts_device_free(m->dev);
}

/* The compiled call: enqueues and returns at once, like a jitted function. */
sts_status l3_model_call(l3_model *m, sts_error *err)
{
    sts_status st = sts_op_matmul(m->dev, m->x, m->w, m->xw, NULL, err);
    return st == STS_OK ? sts_op_tanh(m->dev, m->xw, m->y, NULL, err) : st;
}

/* block_until_ready(): the result is complete only after this. */
sts_status l3_model_wait(l3_model *m, sts_error *err)
{
    return sts_arrays_ready(&m->y, 1, err);
}

/* Largest |out - ref|, and whether every element is within atol + rtol * |ref|. */
int l3_model_check(const l3_model *m, double *max_err)
{
    int ok = 1;
    *max_err = 0;
    for (int i = 0; i < L3_ROWS * L3_COLS; i++) {
        double d = fabs((double)m->out[i] - m->ref[i]);
        if (d > *max_err) *max_err = d;
        if (!(d <= 2e-5 + 2e-5 * fabs((double)m->ref[i]))) ok = 0;
    }
    return ok;
}

static void sleep_us(long us)
{
    struct timespec t = { us / 1000000, (us % 1000000) * 1000L };
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

sts_status l3_record_steps(l3_model *m, int steps, long wait_us, sts_error *err)
{
    sts_status st = STS_OK;
    for (int i = 0; i < steps && st == STS_OK; i++) {
        STS_STEP("learner_step", i);
        {
            STS_SCOPE("input_wait");
            sleep_us(wait_us); /* injected host delay; not a measured input pipeline */
        }
        {
            STS_SCOPE("model_and_wait");
            st = l3_model_call(m, err);
            if (st == STS_OK) st = l3_model_wait(m, err);
        }
    }
    return st;
}
