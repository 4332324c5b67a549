/* analyze: the steps handle and the pieces of step finding shared between files. */
#ifndef STS_ANALYZE_STEPS_IMPL_H
#define STS_ANALYZE_STEPS_IMPL_H

#include <stdarg.h>

#include "analyze/an_impl.h"
#include "base/vec.h"

typedef STS_VEC(uint32_t) steps_u32vec;

struct sts_steps {
    sts_step_rule rule;
    STS_VEC(sts_step) steps;
    STS_VEC(sts_step_child) children;
    STS_VEC(sts_step_child_stats) stats;
    STS_VEC(sts_step_window) windows;
    STS_VEC(sts_window_name) window_names;
    STS_VEC(sts_window_lane_stats) window_lanes;
    sts_steps_summary summary;
    size_t other_lanes;
    size_t dropped;
    size_t out_of_range;
    size_t bookkeeping_lanes;
    STS_VEC(char *) tried;
    STS_VEC(uint32_t) suggestions;
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
    return sts_an_nomem(err, "finding steps");
}

/* Records one line of what was tried (printf-style); -1 when out of memory. */
int sts_steps_note_tried(sts_steps *s, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Rule 3 (see sts_steps_find()): appends the chosen (lane, name)'s outermost slices to
 * found, in slice order, and notes the candidates in s->tried. */
sts_status sts_steps_detect_repeated(const sts_timeline *tl, sts_steps *s, steps_u32vec *found, sts_error *err);

/* Fills steps (with their children and flags) from the chosen step slices (one lane),
 * then per-child statistics and the summary. */
sts_status sts_steps_breakdown_fill(const sts_timeline *tl, sts_steps *s, const uint32_t *slices, size_t n,
                                    const sts_step_options *o, sts_error *err);

/* Measures every step's window on the chosen lanes (see sts_step_window). */
sts_status sts_steps_windows_fill(const sts_timeline *tl, sts_steps *s, const sts_step_options *o, sts_error *err);

/* Names close to `word` among the timeline's slice names, into s->suggestions. */
int sts_steps_suggest(const sts_timeline *tl, sts_steps *s, const char *word);

#endif
