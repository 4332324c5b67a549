/* trace: the recorder's internal state, shared by the hot path (recorder.c), the
 * timeline builder (build.c), the crash dump (crash.c) and device lanes (device.c).
 *
 * Memory ordering. Each thread state is written only by its own thread; stop, the
 * crash dump and nothing else read it from another thread. A thread publishes a record
 * by a release store of its chunk's `used` after writing it; readers load `used` with
 * acquire and read only below it. Ending a scope lowers `depth` before publishing the
 * record, and readers load the chunks before `depth`, so a scope is seen either as a
 * record or as an open frame, never both. */
#ifndef STS_TRACE_RECORDER_IMPL_H
#define STS_TRACE_RECORDER_IMPL_H

#include <pthread.h>
#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

#include "stepscope/trace.h"
#include "trace/tclock.h"

/* Record kinds; a record's first word is kind | depth << 8. */
enum {
    STS_REC_SCOPE = 1, /* sts_rec_scope */
    STS_REC_ARG_INT,   /* sts_rec_arg */
    STS_REC_ARG_DOUBLE,
    STS_REC_ARG_STR /* sts_rec_arg header, then len + 1 bytes, padded to 8 */
};

typedef struct sts_rec_scope {
    uint32_t kd;
    uint32_t reserved;
    const char *name;
    uint64_t t0, t1; /* ticks */
} sts_rec_scope;

typedef struct sts_rec_arg {
    uint32_t kd;  /* depth: the frame the arg belongs to */
    uint32_t len; /* string bytes, without the NUL */
    const char *key;
    union {
        int64_t i;
        double d;
    } v; /* for strings, the bytes start here */
} sts_rec_arg;

#define STS_REC_ARG_HEADER offsetof(sts_rec_arg, v)
#define STS_REC_STR_MAX    255

typedef struct sts_chunk {
    struct sts_chunk *_Atomic next;
    _Atomic size_t used; /* bytes of data[] holding complete records */
    char data[];
} sts_chunk;

typedef struct sts_frame {
    _Atomic(const char *) name;
    _Atomic uint64_t t0;
} sts_frame;

typedef struct sts_tstate {
    /* hot: touched by every event */
    uint32_t session; /* the session this state records for; STS_NO_SESSION before */
    int tsc;
    _Atomic uint32_t depth; /* open scopes, including too-deep ones */
    char *wp, *wend;        /* write position and end in cur */
    sts_chunk *cur;
    _Atomic uint64_t dropped, too_deep, unmatched; /* written by the owner only */
    int full;                                      /* the pool ran out for this thread: drop until stop */
    uint32_t held;                                 /* chunks taken in this session */
    uint64_t last_t1;                              /* end tick of the last scope closed (device dispatch slices
                                                      start no earlier) */
    sts_frame stack[STS_TRACE_MAX_DEPTH];
    /* cold */
    sts_chunk *_Atomic first;
    int64_t tid;
    uint32_t order;                  /* registration order: the lane's sort index */
    _Atomic int exited;              /* its thread has ended (set by a TLS destructor) */
    char name[64];                   /* guarded by the registry lock */
    struct sts_tstate *_Atomic next; /* registry list */
    struct sts_tstate *free_next;    /* reusable states (guarded by the lock) */
    int on_free;                     /* it is on that list */
} sts_tstate;

#define STS_NO_SESSION UINT32_MAX

/* The process-wide recorder. */
typedef struct sts_recorder {
    _Atomic uint32_t session; /* running session id, 0 when none */
    pthread_mutex_t lock;     /* start, stop, thread registration, names */
    uint32_t last_session;
    sts_tclock clock;
    sts_trace_options opt;
    char dir[4096];
    int64_t start_ns;
    /* the pool: a mapping of nchunks chunks of chunk_bytes */
    char *pool;
    size_t pool_bytes, chunk_bytes, nchunks;
    _Atomic size_t next_chunk;
    /* Fair shares (see sts_rec_reserve_slow): chunks kept back so that this many
     * threads get a first chunk however early the first threads fill their share,
     * and the threads that have joined the session. */
    size_t first_reserve;
    size_t thread_cap; /* chunks one thread may hold; 0: the automatic share */
    _Atomic uint32_t joined;
    /* Remnants: the unused ends of the chunks of threads that exited during the
     * session, for later threads. A lock-free stack of chunks pushed at thread exit
     * (under the lock) and popped by sts_rec_reserve_slow (without it); the head packs
     * the chunk's offset in the pool / 8 + 1 (0: empty) with a tag that every change
     * bumps, so a pop that read a stale head fails its compare-exchange. While on the
     * stack a chunk's `used` holds its size in bytes and `next` the chunk below. */
    _Atomic uint64_t remnants;
    /* every thread state ever registered; those free for reuse (exited, and not of
     * the running session) also on a list, so registering never scans the others */
    sts_tstate *_Atomic threads;
    sts_tstate *free_states;
    uint32_t nthreads;
} sts_recorder;

/* With the lock held: puts the exited states not of the running session on the list
 * of reusable ones (after stop, and in a forked child). */
void sts_rec_collect_free(void);

extern sts_recorder sts_rec;

/* Bytes a record occupies in a chunk. */
static inline size_t sts_rec_size(const void *rec)
{
    uint32_t kd = *(const uint32_t *)rec;
    switch (kd & 0xffu) {
    case STS_REC_SCOPE:
        return sizeof(sts_rec_scope);
    case STS_REC_ARG_INT:
    case STS_REC_ARG_DOUBLE:
        return sizeof(sts_rec_arg);
    case STS_REC_ARG_STR:
        return (STS_REC_ARG_HEADER + ((const sts_rec_arg *)rec)->len + 1 + 7) & ~(size_t)7;
    default:
        return 0;
    }
}

/* The calling thread's state for the running session, joining it when needed; NULL
 * when no session runs (or memory for a new thread's state is exhausted). */
sts_tstate *sts_rec_current(void);

/* Room for `need` bytes in the thread's buffer: a pointer to write at, or NULL when
 * the thread may take no more of the pool (then the caller drops and counts).
 * Publish with sts_rec_commit(). */
static inline char *sts_rec_reserve(sts_tstate *s, size_t need);
char *sts_rec_reserve_slow(sts_tstate *s, size_t need);

static inline char *sts_rec_reserve(sts_tstate *s, size_t need)
{
    if (__builtin_expect((size_t)(s->wend - s->wp) >= need, 1)) return s->wp;
    return sts_rec_reserve_slow(s, need);
}

static inline void sts_rec_commit(sts_tstate *s, size_t size)
{
    s->wp += size;
    atomic_store_explicit(&s->cur->used, (size_t)(s->wp - s->cur->data), memory_order_release);
}

/* Owner-only counter increment: a plain load and store, visible to readers. */
static inline void sts_rec_count(_Atomic uint64_t *c)
{
    atomic_store_explicit(c, atomic_load_explicit(c, memory_order_relaxed) + 1, memory_order_relaxed);
}

/* Host process label and lane naming shared by the builder and the crash dump. */
#define STS_HOST_PROCESS_NAME "/host:CPU"

/* The signal dump (crash.c): install the handlers at start; hold SIGTERM and SIGINT
 * while stop writes; finish removes the handlers and raises a held signal. */
void sts_crash_install(void);
void sts_crash_hold(void);
void sts_crash_finish(void);
/* In a child made by fork(): removes the handlers (the session and its dump are the
 * parent's) without raising what the parent held. Async-signal-safe. */
void sts_crash_forget(void);

#endif
