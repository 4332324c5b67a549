/* model: pieces of finalize shared between its files. */
#ifndef STS_MODEL_FINALIZE_IMPL_H
#define STS_MODEL_FINALIZE_IMPL_H

#include "model/finalize.h"

typedef STS_VEC(uint32_t) fin_u32vec;

/* ts + dur, saturating: a hostile file must not overflow the arithmetic. */
static inline int64_t fin_end(int64_t ts, int64_t dur)
{
    int64_t e;
    return __builtin_add_overflow(ts, dur, &e) ? INT64_MAX : e;
}

/* A raw B slice: dur is -1 until its E is found. */
static inline int fin_is_open_begin(const sts_slice *s)
{
    return (s->flags & STS_SLICE_FROM_BE) && s->dur < 0;
}

sts_status sts_fin_nomem(const sts_timeline *tl, sts_error *err);

/* Matches B/E pairs per lane (see sts_tl_finalize()); begins[l] counts lane l's open
 * B slices and nbegins their sum. Sets unmatched_end/unclosed_begin and warns. */
sts_status sts_fin_match_begin_end(sts_timeline *tl, const size_t *begins, size_t nbegins, sts_error *err);

#endif
