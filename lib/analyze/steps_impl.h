/* analyze: the steps handle and the pieces of step finding shared between files. */
#ifndef STS_ANALYZE_STEPS_IMPL_H
#define STS_ANALYZE_STEPS_IMPL_H

#include <stdarg.h>

#include "model/timeline_impl.h"
#include "stepscope/analyze.h"

typedef STS_VEC(uint32_t) steps_u32vec;

struct sts_steps {
    sts_step_rule rule;
    STS_VEC(sts_step) steps;
    STS_VEC(sts_step_child) children;
    STS_VEC(sts_step_child_stats) stats;
    sts_steps_summary summary;
    size_t other_lanes;
    STS_VEC(char *) tried;
};

static inline int steps_push(steps_u32vec *v, uint32_t x)
{
    uint32_t *p = STS_VEC_PUSH(*v);
    if (!p) return -1;
    *p = x;
    return 0;
}

static inline sts_status steps_nomem(sts_error *err)
{
    return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory finding steps");
}

/* Records one line of what was tried (printf-style); -1 when out of memory. */
int sts_steps_note_tried(sts_steps *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rule 3 (see sts_steps_find()): appends the chosen (lane, name)'s depth-0 slices to
 * found, in slice order, and notes the candidates in s->tried. */
sts_status sts_steps_detect_repeated(const sts_timeline *tl, sts_steps *s, steps_u32vec *found, sts_error *err);

/* Fills steps, children, per-child statistics and the summary from the chosen step
 * slices (one lane, time order). */
sts_status sts_steps_breakdown_fill(const sts_timeline *tl, sts_steps *s, const uint32_t *slices, size_t n,
                                    sts_error *err);

#endif
