/* `demo diff`'s prediction, made on BASE before the change: what the critical path's
 * what-if says cutting input_wait does to the step (docs/critical-path.md), and, once
 * NEW is recorded, that prediction beside the diff's measurement. */
#ifndef STS_PROGRAMS_LESSON3_PREDICT_H
#define STS_PROGRAMS_LESSON3_PREDICT_H

#include "stepscope.h"

typedef struct l3_prediction {
    int64_t observed_ns;     /* BASE's median input_wait */
    int64_t least_ns;        /* and its shortest */
    char change[64];         /* the what-if, "input_wait=F" */
    sts_cp_prediction cut;   /* the wait cut, the sleep's overshoot kept */
    sts_cp_prediction naive; /* the whole observed wait scaled by NEW / BASE */
} l3_prediction;

/* Predicts on BASE (its learner_step steps) the effect of cutting the wait from
 * base_wait_us to new_wait_us. A sleep overshoots what it asked for by a roughly fixed
 * amount (the scheduler's wake-up: BASE's least overshoot), which a shorter sleep keeps;
 * more was the machine's load then: the change is input_wait scaled to (new + least
 * overshoot) / median observed, read from BASE alone. The naive
 * scaling (new / base) is predicted too, for the text. */
sts_status l3_predict(const sts_timeline *base, long base_wait_us, long new_wait_us, l3_prediction *out,
                      sts_error *err);

/* The prediction, before NEW is recorded. */
void l3_print_prediction(const l3_prediction *p);

/* Prediction beside outcome: the predicted change of the step against the diff's
 * measured change and its interval (the diff's `step` row). */
void l3_print_outcome(const l3_prediction *p, const sts_diff *d);

#endif
