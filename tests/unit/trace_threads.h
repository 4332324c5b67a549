/* Recorder concurrency checks, shared by test_trace.c and the ThreadSanitizer build
 * that tests/cli/test_trace.sh compiles (tests/unit/trace_tsan.c). Uses only the
 * public API. Each check returns NULL on success, else a message. */
#ifndef STS_TEST_TRACE_THREADS_H
#define STS_TEST_TRACE_THREADS_H

#include <ftw.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "stepscope/trace.h"

#define TT_THREADS 4
#define TT_SCOPES  3000

static int tt_rm_one(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb;
    (void)flag;
    (void)ftw;
    return remove(path);
}

/* Removes a directory tree (test scratch space). */
static void tt_rmtree(const char *dir)
{
    nftw(dir, tt_rm_one, 16, FTW_DEPTH | FTW_PHYS);
}

/* A fresh scratch directory name in buf. */
static const char *tt_tmpdir(char *buf, size_t cap)
{
    snprintf(buf, cap, "/tmp/sts-trace-XXXXXX");
    return mkdtemp(buf);
}

static void *tt_worker(void *arg)
{
    int id = (int)(intptr_t)arg;
    char name[32];
    snprintf(name, sizeof name, "worker %d", id);
    sts_trace_thread_name(name);
    for (int i = 0; i < TT_SCOPES; i++) {
        STS_SCOPE("outer");
        sts_scope_arg_int("i", i);
        {
            STS_SCOPE("inner");
        }
    }
    return NULL;
}

static char tt_msg[256];

/* The lane named `name`, or STS_NONE. */
static uint32_t tt_lane(const sts_timeline *tl, const char *name)
{
    size_t n;
    const sts_lane *lanes = sts_timeline_lanes(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(sts_timeline_string(tl, lanes[i].name), name) == 0) return (uint32_t)i;
    return STS_NONE;
}

/* TT_THREADS threads record TT_SCOPES outer scopes (each with an arg and one inner
 * scope) while the main thread records too: nothing is lost, every inner scope nests
 * in an outer one of its own thread, and the args arrive in order. */
static const char *tt_concurrent(void)
{
    char dir[64];
    if (!tt_tmpdir(dir, sizeof dir)) return "mkdtemp failed";
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.pool_bytes = 8u << 20;
    o.chunk_bytes = 4096; /* small chunks: many chunk changes while racing */
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_start(dir, &o, &err) != STS_OK) return "start failed";
    pthread_t th[TT_THREADS];
    for (int i = 0; i < TT_THREADS; i++)
        pthread_create(&th[i], NULL, tt_worker, (void *)(intptr_t)i);
    for (int i = 0; i < TT_SCOPES; i++) {
        STS_SCOPE("main_loop");
    }
    for (int i = 0; i < TT_THREADS; i++)
        pthread_join(th[i], NULL);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    if (sts_trace_stop_timeline(&tl, &st, &err) != STS_OK) return "stop failed";
    const char *fail = NULL;
    if (st.recorded != (uint64_t)TT_THREADS * TT_SCOPES * 2 + TT_SCOPES || st.dropped != 0) {
        snprintf(tt_msg, sizeof tt_msg, "recorded %llu dropped %llu, expected %d and 0",
                 (unsigned long long)st.recorded, (unsigned long long)st.dropped,
                 TT_THREADS * TT_SCOPES * 2 + TT_SCOPES);
        fail = tt_msg;
    }
    size_t ns;
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    for (int w = 0; w < TT_THREADS && !fail; w++) {
        char name[32];
        snprintf(name, sizeof name, "worker %d", w);
        uint32_t lane = tt_lane(tl, name);
        if (lane == STS_NONE) {
            snprintf(tt_msg, sizeof tt_msg, "no lane named %s", name);
            fail = tt_msg;
            break;
        }
        const sts_lane *l = &lanes[lane];
        int64_t outer = 0, inner = 0;
        for (uint32_t k = l->first_slice; k < l->first_slice + l->slice_count; k++) {
            const char *nm = sts_timeline_string(tl, sl[k].name);
            if (strcmp(nm, "outer") == 0) {
                const sts_arg *a = sts_timeline_find_arg(tl, sl[k].args, "i");
                if (!a || a->v.i != outer || sl[k].depth != 0) {
                    snprintf(tt_msg, sizeof tt_msg, "%s: outer #%lld has arg i=%lld depth %d", name, (long long)outer,
                             a ? (long long)a->v.i : -1LL, sl[k].depth);
                    fail = tt_msg;
                    break;
                }
                outer++;
            } else if (strcmp(nm, "inner") == 0) {
                if (sl[k].parent == STS_NONE || strcmp(sts_timeline_string(tl, sl[sl[k].parent].name), "outer") != 0) {
                    snprintf(tt_msg, sizeof tt_msg, "%s: inner #%lld is not inside an outer", name, (long long)inner);
                    fail = tt_msg;
                    break;
                }
                inner++;
            }
        }
        if (!fail && (outer != TT_SCOPES || inner != TT_SCOPES)) {
            snprintf(tt_msg, sizeof tt_msg, "%s: %lld outer, %lld inner, expected %d each", name, (long long)outer,
                     (long long)inner, TT_SCOPES);
            fail = tt_msg;
        }
    }
    sts_timeline_free(tl);
    tt_rmtree(dir);
    return fail;
}

static atomic_int tt_go;
static atomic_int tt_spinning; /* spinners that have recorded at least one scope */

static void *tt_spinner(void *arg)
{
    (void)arg;
    int counted = 0;
    while (atomic_load(&tt_go)) {
        {
            STS_SCOPE("spin");
            sts_scope_arg_str("what", "racing stop");
        }
        if (!counted) {
            counted = 1;
            atomic_fetch_add(&tt_spinning, 1);
        }
    }
    return NULL;
}

/* Stop while other threads keep recording: stop completes, what it kept is well
 * formed, and the threads' later events are ignored without harm. */
static const char *tt_stop_while_recording(void)
{
    char dir[64];
    if (!tt_tmpdir(dir, sizeof dir)) return "mkdtemp failed";
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.pool_bytes = 1u << 20;
    o.chunk_bytes = 1024;
    if (sts_trace_start(dir, &o, NULL) != STS_OK) return "start failed";
    atomic_store(&tt_go, 1);
    atomic_store(&tt_spinning, 0);
    pthread_t th[2];
    for (int i = 0; i < 2; i++)
        pthread_create(&th[i], NULL, tt_spinner, NULL);
    /* Stop only once both threads are recording: on a loaded machine a thread may not
     * run for milliseconds after it is created. Bounded, so a broken recorder fails
     * below instead of hanging here. */
    struct timespec ms = { 0, 2000000 };
    for (int waited = 0; atomic_load(&tt_spinning) < 2 && waited < 5000; waited++)
        nanosleep(&ms, NULL);
    nanosleep(&ms, NULL);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    sts_status s = sts_trace_stop_timeline(&tl, &st, NULL);
    nanosleep(&ms, NULL);
    atomic_store(&tt_go, 0);
    for (int i = 0; i < 2; i++)
        pthread_join(th[i], NULL);
    const char *fail = NULL;
    if (s != STS_OK) fail = "stop failed";
    size_t ns = 0;
    const sts_slice *sl = tl ? sts_timeline_slices(tl, &ns) : NULL;
    for (size_t i = 0; i < ns && !fail; i++) {
        if (sl[i].dur < 0 || (sl[i].parent != STS_NONE && sl[i].parent >= i)) fail = "malformed slice";
        if (sl[i].flags & STS_SLICE_INSTANT) continue; /* the recorder's own markers */
        const sts_arg *a = sts_timeline_find_arg(tl, sl[i].args, "what");
        if (!fail && !(sl[i].flags & STS_SLICE_UNCLOSED) &&
            (!a || strcmp(sts_timeline_string(tl, a->v.str), "racing stop") != 0))
            fail = "a spin scope lost its arg";
    }
    if (!fail && st.recorded + st.open_at_stop + st.dropped == 0) fail = "nothing recorded";
    sts_timeline_free(tl);
    tt_rmtree(dir);
    return fail;
}

/* ---- fair shares of a small pool ------------------------------------------------ */

#define TT_FAIR_THREADS 8
#define TT_FAIR_SCOPES  2000 /* far more than the pool holds */
#define TT_FAIR_POOL    (64u << 10)

/* The policy (sts_trace_options, docs/trace.md): a 64 KiB pool splits into 512-byte
 * chunks (a 256th of the pool, at least 512), each holding (512 - 16) / 32 = 15
 * scopes; an eighth of the chunks (16) is kept back for the first chunks of threads
 * still to come; a thread's later chunks are capped at (chunks - kept back) / threads
 * joined. */
#define TT_PER_CHUNK ((512 - 16) / 32)
#define TT_CHUNKS    (TT_FAIR_POOL / 512)
#define TT_KEPT      (TT_CHUNKS / 8)

static pthread_barrier_t tt_barrier;
static int tt_use_barrier;

static void *tt_fair_worker(void *arg)
{
    char name[32];
    snprintf(name, sizeof name, "fair %d", (int)(intptr_t)arg);
    sts_trace_thread_name(name);
    {
        STS_SCOPE("joined"); /* the thread's first chunk */
    }
    if (tt_use_barrier) pthread_barrier_wait(&tt_barrier);
    for (int i = 1; i < TT_FAIR_SCOPES; i++) {
        STS_SCOPE("work");
    }
    return NULL;
}

/* 8 threads on a pool far too small for them. Together (all joined before they fill
 * it): each records exactly its share. One after another (the first fills what it
 * may before the next starts): the first gets the pool less what is kept back, and
 * every later thread still records its first chunk. With thread_bytes, each records
 * exactly its cap, in either order. Drops are counted exactly. */
static const char *tt_fair_shares(int together, size_t thread_bytes)
{
    char dir[64];
    if (!tt_tmpdir(dir, sizeof dir)) return "mkdtemp failed";
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.pool_bytes = TT_FAIR_POOL;
    o.thread_bytes = thread_bytes;
    if (sts_trace_start(dir, &o, NULL) != STS_OK) return "start failed";
    pthread_t th[TT_FAIR_THREADS];
    tt_use_barrier = together;
    if (together) pthread_barrier_init(&tt_barrier, NULL, TT_FAIR_THREADS);
    for (int i = 0; i < TT_FAIR_THREADS; i++) {
        pthread_create(&th[i], NULL, tt_fair_worker, (void *)(intptr_t)i);
        if (!together) pthread_join(th[i], NULL);
    }
    for (int i = 0; together && i < TT_FAIR_THREADS; i++)
        pthread_join(th[i], NULL);
    if (together) pthread_barrier_destroy(&tt_barrier);
    sts_trace_stats st;
    if (sts_trace_stop_timeline(NULL, &st, NULL) != STS_OK) return "stop failed";
    tt_rmtree(dir);
    if (st.threads != TT_FAIR_THREADS) return "not every thread joined";
    for (uint32_t i = 0; i < st.threads; i++) {
        const sts_trace_thread_stats *t = &st.thread[i];
        int first = strcmp(t->name, "fair 0") == 0;
        uint64_t want = thread_bytes ? (uint64_t)(thread_bytes / 512) * TT_PER_CHUNK
                        : together   ? (uint64_t)(1 + (TT_CHUNKS - TT_KEPT) / TT_FAIR_THREADS) * TT_PER_CHUNK
                        : first      ? (uint64_t)(1 + TT_CHUNKS - TT_KEPT) * TT_PER_CHUNK
                                     : (uint64_t)TT_PER_CHUNK;
        if (t->recorded != want || t->recorded + t->dropped != TT_FAIR_SCOPES) {
            snprintf(tt_msg, sizeof tt_msg, "%s: recorded %llu (expected %llu), dropped %llu, of %d", t->name,
                     (unsigned long long)t->recorded, (unsigned long long)want, (unsigned long long)t->dropped,
                     TT_FAIR_SCOPES);
            return tt_msg;
        }
    }
    return NULL;
}

/* Threads that come and go while others do: TT_CHURN_CHAINS threads each start
 * TT_CHURN_LENGTH short-lived threads one after another, on a pool of 16 chunks. The
 * ends of exited threads' chunks pass between them (pushed and popped concurrently),
 * so nothing is dropped, where before every thread after the 16th dropped all. */
#define TT_CHURN_CHAINS 4
#define TT_CHURN_LENGTH 100

static void *tt_churn_leaf(void *arg)
{
    (void)arg;
    for (int i = 0; i < 3; i++) {
        STS_SCOPE("leaf");
    }
    return NULL;
}

static void *tt_churn_chain(void *arg)
{
    (void)arg;
    for (int i = 0; i < TT_CHURN_LENGTH; i++) {
        pthread_t th;
        if (pthread_create(&th, NULL, tt_churn_leaf, NULL) != 0) return (void *)1;
        pthread_join(th, NULL);
    }
    return NULL;
}

static const char *tt_churn(void)
{
    char dir[64];
    if (!tt_tmpdir(dir, sizeof dir)) return "mkdtemp failed";
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.chunk_bytes = 64 * 1024;
    o.pool_bytes = 16 * 64 * 1024;
    if (sts_trace_start(dir, &o, NULL) != STS_OK) return "start failed";
    pthread_t th[TT_CHURN_CHAINS];
    int failed = 0;
    for (int i = 0; i < TT_CHURN_CHAINS; i++)
        pthread_create(&th[i], NULL, tt_churn_chain, NULL);
    for (int i = 0; i < TT_CHURN_CHAINS; i++) {
        void *r = NULL;
        pthread_join(th[i], &r);
        failed |= r != NULL;
    }
    sts_trace_stats st;
    if (sts_trace_stop_timeline(NULL, &st, NULL) != STS_OK) return "stop failed";
    tt_rmtree(dir);
    if (failed) return "pthread_create failed";
    uint64_t want = (uint64_t)TT_CHURN_CHAINS * TT_CHURN_LENGTH * 3;
    if (st.recorded != want || st.dropped != 0 || st.threads != TT_CHURN_CHAINS * TT_CHURN_LENGTH) {
        snprintf(tt_msg, sizeof tt_msg, "recorded %llu of %llu, dropped %llu, threads %u",
                 (unsigned long long)st.recorded, (unsigned long long)want, (unsigned long long)st.dropped, st.threads);
        return tt_msg;
    }
    return NULL;
}

#endif
