/* Lesson 3's workload, shared by `demo trace` and `demo diff`: a warmed tanh(x @ w) on
 * 48x32 @ 32x16 float32 on the default OpenCL device, and the annotated steps, each an
 * injected host wait (input_wait) then the call and its wait (model_and_wait). */
#ifndef STS_PROGRAMS_LESSON3_MODEL_H
#define STS_PROGRAMS_LESSON3_MODEL_H

#include "stepscope.h"

enum { L3_ROWS = 48, L3_INNER = 32, L3_COLS = 16 };

typedef struct l3_model {
    sts_device *dev;
    sts_array *x, *w, *xw, *y;
    float host_x[L3_ROWS * L3_INNER], host_w[L3_INNER * L3_COLS], ref[L3_ROWS * L3_COLS], out[L3_ROWS * L3_COLS];
} l3_model;

/* Opens the device, makes the inputs from a fixed seed and places them (waited for). */
sts_status l3_model_open(l3_model *m, sts_error *err);
void l3_model_close(l3_model *m);

/* The compiled call: enqueues and returns at once, like a jitted function. */
sts_status l3_model_call(l3_model *m, sts_error *err);

/* block_until_ready(): the result is complete only after this. */
sts_status l3_model_wait(l3_model *m, sts_error *err);

/* After m->out is read back: the largest |out - ref| in *max_err, and whether every
 * element is within atol + rtol * |ref| (2e-5 each, the lesson's tolerances). */
int l3_model_check(const l3_model *m, double *max_err);

/* `steps` annotated learner_step steps with a `wait_us` input_wait each, recorded by
 * whatever trace session is running. */
sts_status l3_record_steps(l3_model *m, int steps, long wait_us, sts_error *err);

#endif
