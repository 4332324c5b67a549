/* model: the timeline's storage and the builder API that readers and the recorder
 * use to fill it. Finalize (lib/model/finalize.c) turns the raw contents into the
 * nested, ordered form that include/stepscope/timeline.h promises.
 *
 * Before finalize:
 *   - slices are in file order; B events are slices with dur = -1 and FROM_BE set;
 *   - slice.parent holds the event's sequence number (its index among all events
 *     read), so B/E pairs can be matched in file order;
 *   - E events are in `ends`. */
#ifndef STS_MODEL_TIMELINE_IMPL_H
#define STS_MODEL_TIMELINE_IMPL_H

#include <stdarg.h>

#include "base/mem.h"
#include "base/vec.h"
#include "stepscope/timeline.h"

typedef struct sts_end_event {
    int64_t ts;
    uint32_t lane;
    uint32_t seq; /* event sequence number */
} sts_end_event;

#define STS_TL_MAX_WARNINGS 100

struct sts_timeline {
    sts_strtab strings;
    sts_timeline_info info;
    sts_args_mode args_mode;
    int finalized;
    int all_whole_us; /* every ts/dur seen was a whole microsecond */
    STS_VEC(sts_process) procs;
    STS_VEC(sts_lane) lanes;
    STS_VEC(sts_slice) slices;
    STS_VEC(sts_arg) args;
    STS_VEC(sts_instant) instants;
    STS_VEC(sts_counter) counters;
    STS_VEC(sts_async) asyncs;
    STS_VEC(sts_flow) flows;
    STS_VEC(sts_overlap) overlaps;
    STS_VEC(sts_end_event) ends;
    STS_VEC(char *) warnings;
    uint64_t warnings_total;
    sts_u64map proc_map; /* label id + 1 -> process index */
    sts_u64map lane_map; /* (process + 1) << 32 | label -> lane index */
};

/* A new, empty timeline; NULL when memory is exhausted. `path` and `format` are
 * copied into info. */
sts_timeline *sts_tl_new(const char *path, const char *format, sts_args_mode args);

/* String id for the bytes, or STS_NONE when memory is exhausted. */
uint32_t sts_tl_intern(sts_timeline *tl, const char *s, size_t n);

/* The process for a pid label (string id); created on first use. `pid` is its
 * numeric value (pass INT64_MIN to derive one from a non-numeric label). */
uint32_t sts_tl_process(sts_timeline *tl, uint32_t label, int64_t pid);

/* The lane for (process, tid label); created on first use. STS_NONE on no memory. */
uint32_t sts_tl_lane(sts_timeline *tl, uint32_t process, uint32_t label, int64_t tid);

/* Appends args (copied; `last` is set on the final one). Returns the first index, or
 * STS_NONE for n == 0 or no memory. */
uint32_t sts_tl_add_args(sts_timeline *tl, const sts_arg *args, size_t n);

/* Records that a ts or dur value was (or was not) a whole microsecond. */
static inline void sts_tl_note_resolution(sts_timeline *tl, int whole_us)
{
    if (!whole_us) tl->all_whole_us = 0;
}

/* Appends a warning (formatted), keeping the first STS_TL_MAX_WARNINGS. */
void sts_tl_warn(sts_timeline *tl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void sts_tl_free(sts_timeline *tl);

#endif
