/* model: the builder header, the timeline's storage and the API that readers and
 * the recorder use to fill it (the one header of model's insides that other modules
 * include; `*_impl.h` headers stay in their module). Finalize (lib/model/finalize.c) turns the raw contents into the
 * nested, ordered form that include/stepscope/timeline.h promises.
 *
 * Before finalize:
 *   - slices are X and B events in file order; a B is a slice with dur = -1 and
 *     FROM_BE set; a B, X or b without a name is named "[No name]" (Perfetto's name);
 *   - slice.parent holds the event's sequence number (its index among all events
 *     read), which breaks ties of the importer's sort the way file order does;
 *   - E events are in `ends`, with the name and category they carry (0 when absent);
 *   - instants and async events are only in `instants` and `asyncs` (with seq): finalize
 *     makes their slices;
 *   - `sorter` has seen every event Perfetto's trace sorter would have (Chrome JSON),
 *     or is left as it is (full sort: other readers, the recorder);
 *   - tracks are empty; finalize fills them. */
#ifndef STS_MODEL_TIMELINE_BUILDER_H
#define STS_MODEL_TIMELINE_BUILDER_H

#include <stdarg.h>

#include "base/mem.h"
#include "base/vec.h"
#include "stepscope/timeline.h"

typedef struct sts_end_event {
    int64_t ts;
    uint32_t lane;
    uint32_t seq;  /* event sequence number */
    uint32_t name; /* string id, 0 when absent: an E closes the innermost open B of its name */
    uint32_t cat;  /* string id, 0 when absent: ... and category */
} sts_end_event;

/* What decides the order in which Perfetto's importer sees a Chrome JSON trace's
 * events (its TraceSorter): events pushed in non-decreasing ts are kept in file order;
 * from the first one that breaks the order, everything at or after the smallest ts
 * that broke it is sorted by (ts, phase class, file order), where the phase class,
 * once any X was pushed, puts E first, then X longest first, then the rest. */
typedef struct sts_tl_sorter {
    int64_t max_ts;     /* the latest in-order ts (Perfetto starts at 0) */
    int64_t min_ooo_ts; /* the smallest ts pushed out of order */
    uint64_t pushed;    /* events pushed */
    uint32_t first_ooo; /* seq of the first event pushed out of order */
    uint8_t has_ooo;    /* an event (not the first) was pushed out of order */
    uint8_t slow;       /* an X was pushed: ties sort by phase class */
    uint8_t simulate;   /* the reader pushed its events; 0: every event is in the sorted part */
} sts_tl_sorter;

/* A push the sorter simulation has yet to see (sts_tl_sorter_push on a timeline that
 * defers them): a chunk read on a worker thread cannot simulate the sorter, whose state
 * depends on every event before the chunk, so it keeps its pushes for the merge to
 * replay in file order. */
typedef struct sts_tl_push {
    int64_t ts;
    uint32_t seq;
    uint32_t is_x;
} sts_tl_push;

#define STS_TL_MAX_WARNINGS 100

struct sts_timeline {
    sts_strtab strings;
    sts_timeline_info info;
    /* Of info.unmatched_end and info.unclosed_begin, those on async tracks (e and b):
     * the warnings name the events as the trace wrote them. */
    uint64_t unmatched_async_end, unclosed_async_begin;
    sts_args_mode args_mode;
    int count_flows; /* STS_FLOWS_COUNT: flow events are counted in info.flows, not kept */
    int finalized;
    int all_whole_us; /* every ts/dur seen was a whole microsecond */
    int exact_times;  /* the file says its times are exact (a stepscope cut): no rounding tolerance */
    STS_VEC(sts_process) procs;
    STS_VEC(sts_lane) lanes;
    STS_VEC(sts_track) tracks;
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
    sts_tl_sorter sorter;
    int defer_pushes;            /* 1: pushes go to `pushes`, not the simulation */
    int pushes_lost;             /* a deferred push found no memory */
    STS_VEC(sts_tl_push) pushes; /* deferred pushes, in file order */
    int64_t raw_lo, raw_hi;      /* earliest start and latest end admitted so far (raw_lo > raw_hi: none) */
    uint32_t no_name;            /* string id of "[No name]", STS_NONE until interned */
    sts_u64map proc_map;         /* label id + 1 -> process index */
    sts_u64map lane_map;         /* (process + 1) << 32 | label -> lane index */
    sts_u64map hlo_scope;        /* (module + 1) << 32 | op -> the op's scope (ids; XSpace HLO metadata) */
    /* Threads finalize may use (0 or 1: the calling thread only; the result is the same
     * for every value), from fin_min_parallel slices and E events on (a default set by
     * sts_tl_new; tests lower it). */
    int jobs;
    size_t fin_min_parallel;
};

/* A new, empty timeline; NULL when memory is exhausted. `path` and `format` are
 * copied into info. */
sts_timeline *sts_tl_new(const char *path, const char *format, sts_args_mode args);

/* Empties tl into what sts_tl_new(path, format, args) makes, keeping the memory of its
 * arrays for what comes next (a chunk reader's timeline, used again for the next chunk,
 * faults no fresh pages in). 0, or -1 when memory ran out: tl can then only be freed. */
int sts_tl_clear(sts_timeline *tl, const char *path, const char *format, sts_args_mode args);

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

/* Tells the sorter simulation (see sts_tl_sorter) about an event Perfetto's tokenizer
 * would push: any phase but P, with a ts (or an M), ts >= 0. `is_x`: the phase is X. */
static inline void sts_tl_sorter_push(sts_timeline *tl, int64_t ts, uint32_t seq, int is_x)
{
    if (tl->defer_pushes) {
        sts_tl_push *p = STS_VEC_PUSH(tl->pushes);
        if (p)
            p->ts = ts, p->seq = seq, p->is_x = (uint32_t)is_x;
        else
            tl->pushes_lost = 1;
        return;
    }
    sts_tl_sorter *s = &tl->sorter;
    s->simulate = 1;
    if (is_x) s->slow = 1;
    if (ts > s->max_ts || (!s->slow && ts == s->max_ts)) {
        s->max_ts = ts;
    } else if (s->pushed > 0) { /* Perfetto cannot mark its first event out of order */
        if (!s->has_ooo || ts < s->min_ooo_ts) s->min_ooo_ts = ts;
        if (!s->has_ooo) s->first_ooo = seq;
        s->has_ooo = 1;
    }
    s->pushed++;
}

/* Admits an event covering [lo, hi] when the trace's span, from the earliest start to
 * the latest end, still fits in int64 nanoseconds; returns 0, or -1 (nothing changed)
 * when it would not: the reader then refuses the event as out of range. */
static inline int sts_tl_admit_span(sts_timeline *tl, int64_t lo, int64_t hi)
{
    int64_t nlo = lo < tl->raw_lo ? lo : tl->raw_lo, nhi = hi > tl->raw_hi ? hi : tl->raw_hi, span;
    if (tl->raw_lo > tl->raw_hi) nlo = lo, nhi = hi;
    if (__builtin_sub_overflow(nhi, nlo, &span)) return -1;
    tl->raw_lo = nlo;
    tl->raw_hi = nhi;
    return 0;
}

/* The "[No name]" string id, or STS_NONE when memory is exhausted. */
uint32_t sts_tl_no_name(sts_timeline *tl);

/* Records that a ts or dur value was (or was not) a whole microsecond. */
static inline void sts_tl_note_resolution(sts_timeline *tl, int whole_us)
{
    if (!whole_us) tl->all_whole_us = 0;
}

/* Appends a warning (formatted), keeping the first STS_TL_MAX_WARNINGS. */
void sts_tl_warn(sts_timeline *tl, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void sts_tl_free(sts_timeline *tl);

#endif
