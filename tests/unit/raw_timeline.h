/* Building raw timelines by hand (as a reader leaves them, before finalize), for the
 * unit tests of the model and the analysis. */
#ifndef STS_TESTS_RAW_TIMELINE_H
#define STS_TESTS_RAW_TIMELINE_H

#include <stdio.h>
#include <string.h>

#include "model/timeline_builder.h"

/* whole_us 0: the trace had a ts or dur finer than a microsecond (resolution 1 ns). */
static inline sts_timeline *mk(int whole_us)
{
    sts_timeline *tl = sts_tl_new("test.json", "chrome-json", STS_ARGS_KNOWN);
    if (!whole_us) sts_tl_note_resolution(tl, 0);
    return tl;
}

static inline uint32_t str(sts_timeline *tl, const char *s)
{
    return sts_tl_intern(tl, s, strlen(s));
}

/* The lane of thread tid in process pid, both labelled by their numbers. */
static inline uint32_t lane(sts_timeline *tl, int pid, int tid)
{
    char p[32], t[32];
    snprintf(p, sizeof p, "%d", pid);
    snprintf(t, sizeof t, "%d", tid);
    uint32_t proc = sts_tl_process(tl, str(tl, p), pid);
    return sts_tl_lane(tl, proc, str(tl, t), tid);
}

static inline sts_slice *add_slice(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts, int64_t dur)
{
    sts_slice *s = STS_VEC_PUSH(tl->slices);
    s->ts = ts;
    s->dur = dur;
    s->name = str(tl, name);
    s->lane = ln;
    s->args = STS_NONE;
    s->parent = (uint32_t)tl->info.events++; /* raw convention: the event's sequence number */
    return s;
}

/* A complete (X) slice. */
static inline void X(sts_timeline *tl, uint32_t ln, const char *name, int64_t ts, int64_t dur)
{
    add_slice(tl, ln, name, ts, dur);
}

#endif
