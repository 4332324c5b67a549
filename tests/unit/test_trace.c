/* The recorder: nesting, steps and args, threads, the full-pool policy, threads that
 * exit early, open scopes at stop, the clock mapping, crash and exit flushes, and the
 * round trip through both file formats. */
#include "test.h"

#include <dirent.h>
#include <errno.h>
#include <malloc.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "stepscope/trace.h"
#include "trace/devclock.h"
#include "trace_threads.h"

#ifndef TRACE_CORE_ONLY
#include "stepscope/analyze.h"
#include "stepscope/device.h"
#include "stepscope/write.h"
#else
/* Built without the writers: nothing here writes files. */
sts_status sts_trace_stop(sts_trace_stats *stats, sts_error *err)
{
    return sts_trace_stop_timeline(NULL, stats, err);
}
#endif

/* Slices of `lane` named `name`, in time order, into out (at most cap). */
static size_t named(const sts_timeline *tl, uint32_t lane, const char *name, const sts_slice **out, size_t cap)
{
    size_t n, k = 0;
    const sts_slice *sl = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (sl[i].lane == lane && strcmp(sts_timeline_string(tl, sl[i].name), name) == 0 && k < cap) out[k++] = &sl[i];
    return k;
}

/* Slices other than the recorder's own "stepscope.*" markers (the XPlane writer turns
 * instants into zero-length events). */
static size_t user_slices(const sts_timeline *tl, const sts_slice **out, size_t cap)
{
    size_t n, k = 0;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (strncmp(sts_timeline_string(tl, s[i].name), "stepscope.", 10) != 0 && k < cap) out[k++] = &s[i];
    return k;
}

static int64_t arg_i(const sts_timeline *tl, const sts_slice *s, const char *key)
{
    const sts_arg *a = sts_timeline_find_arg(tl, s->args, key);
    return a && a->type == STS_ARG_INT ? a->v.i : -999;
}

static void sleep_ns(long ns)
{
    struct timespec t = { ns / 1000000000L, ns % 1000000000L };
    while (nanosleep(&t, &t) != 0 && errno == EINTR) {
    }
}

/* The lesson's shape: steps holding two children, with step args. */
static void record_steps(int n)
{
    for (int i = 0; i < n; i++) {
        STS_STEP("learner_step", i);
        {
            STS_SCOPE("input_wait");
            sleep_ns(200000);
        }
        {
            STS_SCOPE("model_and_wait");
            sts_scope_arg_str("shape", "48x32");
            sts_scope_arg_double("scale", 0.5);
        }
    }
}

/* Checks the steps recorded by record_steps() on lane `lane`. */
static void check_steps(const sts_timeline *tl, uint32_t lane, int n)
{
    const sts_slice *st[8], *in[8], *mo[8];
    T_EQ_U64(named(tl, lane, "learner_step", st, 8), n);
    T_EQ_U64(named(tl, lane, "input_wait", in, 8), n);
    T_EQ_U64(named(tl, lane, "model_and_wait", mo, 8), n);
    const sts_slice *base = sts_timeline_slices(tl, NULL);
    for (int i = 0; i < n && !t_current_failed; i++) {
        T_EQ_I64(arg_i(tl, st[i], "step_num"), i);
        T_EQ_I64(arg_i(tl, st[i], "_r"), 1);
        T_EQ_I64(st[i]->depth, 0);
        T_EQ_I64(in[i]->depth, 1);
        T_EQ_I64(mo[i]->depth, 1);
        T_TRUE(in[i]->parent == (uint32_t)(st[i] - base));
        T_TRUE(mo[i]->parent == (uint32_t)(st[i] - base));
        T_TRUE(st[i]->ts <= in[i]->ts && in[i]->ts + in[i]->dur <= mo[i]->ts);
        T_TRUE(mo[i]->ts + mo[i]->dur <= st[i]->ts + st[i]->dur);
        T_GE_I64(in[i]->dur, 200000); /* nanosleep sleeps at least as long as asked */
        const sts_arg *shape = sts_timeline_find_arg(tl, mo[i]->args, "shape");
        T_TRUE(shape && shape->type == STS_ARG_STRING);
        if (shape) T_EQ_STR(sts_timeline_string(tl, shape->v.str), "48x32");
        const sts_arg *scale = sts_timeline_find_arg(tl, mo[i]->args, "scale");
        T_TRUE(scale && scale->type == STS_ARG_DOUBLE && scale->v.d == 0.5);
        T_TRUE(sts_timeline_find_arg(tl, in[i]->args, "step_num") == NULL);
    }
}

static uint32_t first_thread_lane(const sts_timeline *tl)
{
    size_t n;
    const sts_lane *l = sts_timeline_lanes(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (l[i].kind == STS_LANE_THREAD && l[i].slice_count) return (uint32_t)i;
    return STS_NONE;
}

TEST(steps_nest_with_args)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    T_EQ_I64(sts_trace_active(), 1);
    record_steps(4);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_I64(sts_trace_active(), 0);
    T_EQ_U64(st.recorded, 12);
    T_EQ_U64(st.dropped, 0);
    T_EQ_U64(st.threads, 1);
    size_t np;
    const sts_process *p = sts_timeline_processes(tl, &np);
    T_EQ_U64(np, 1);
    T_EQ_STR(sts_timeline_string(tl, p[0].name), "/host:CPU");
    T_EQ_I64(p[0].pid, getpid());
    uint32_t lane = first_thread_lane(tl);
    T_TRUE(lane != STS_NONE);
    T_EQ_I64(sts_timeline_lanes(tl, NULL)[lane].tid, gettid());
    check_steps(tl, lane, 4);
    /* The session facts travel in the trace. */
    size_t ni;
    const sts_instant *in = sts_timeline_instants(tl, &ni);
    T_EQ_U64(ni, 1);
    T_EQ_STR(sts_timeline_string(tl, in[0].name), "stepscope.trace");
    const sts_arg *rec = sts_timeline_find_arg(tl, in[0].args, "recorded");
    T_TRUE(rec && rec->v.i == 12);
    T_EQ_I64(sts_timeline_get_info(tl)->resolution_ns, 1);
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

TEST(explicit_begin_end)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    sts_scope_begin("a");
    sts_scope_arg_int("n", -7);
    sts_scope_begin("b");
    sts_scope_end();
    sts_scope_begin("c");
    sts_scope_arg_int("n", 3);
    sts_scope_end();
    sts_scope_end();
    sts_scope_end();                /* one too many: counted, harmless */
    sts_scope_arg_int("orphan", 1); /* no open scope: ignored */
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded, 3);
    T_EQ_U64(st.unmatched_end, 1);
    const sts_slice *base = sts_timeline_slices(tl, NULL), *u[8];
    size_t n = user_slices(tl, u, 8);
    T_EQ_U64(n, 3);
    if (n == 3) {
        T_EQ_STR(sts_timeline_string(tl, u[0]->name), "a");
        T_EQ_STR(sts_timeline_string(tl, u[1]->name), "b");
        T_EQ_STR(sts_timeline_string(tl, u[2]->name), "c");
        T_TRUE(u[1]->parent != STS_NONE && &base[u[1]->parent] == u[0]);
        T_TRUE(u[2]->parent != STS_NONE && &base[u[2]->parent] == u[0]);
        T_EQ_I64(arg_i(tl, u[0], "n"), -7);
        T_EQ_I64(arg_i(tl, u[2], "n"), 3);
        T_TRUE(u[1]->args == STS_NONE);
        T_TRUE(u[1]->ts + u[1]->dur <= u[2]->ts);
    }
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

TEST(threads_lose_nothing)
{
    const char *fail = tt_concurrent();
    if (fail) T_FAIL_AT("%s", fail);
}

TEST(stop_while_threads_record)
{
    const char *fail = tt_stop_while_recording();
    if (fail) T_FAIL_AT("%s", fail);
}

TEST(fair_pool_threads_together)
{
    const char *fail = tt_fair_shares(1, 0);
    if (fail) T_FAIL_AT("%s", fail);
}

TEST(fair_pool_threads_one_after_another)
{
    const char *fail = tt_fair_shares(0, 0);
    if (fail) T_FAIL_AT("%s", fail);
}

TEST(threads_come_and_go_concurrently)
{
    const char *fail = tt_churn();
    if (fail) T_FAIL_AT("%s", fail);
}

/* A cap of an eighth of the pool: 16 chunks each, whoever comes first. */
TEST(fair_pool_thread_cap)
{
    const char *fail = tt_fair_shares(0, TT_FAIR_POOL / TT_FAIR_THREADS);
    if (fail) T_FAIL_AT("%s", fail);
    fail = tt_fair_shares(1, TT_FAIR_POOL / TT_FAIR_THREADS);
    if (fail) T_FAIL_AT("%s", fail);
}

/* A full pool drops new scopes, counts them exactly, and says so in the trace. */
TEST(full_pool_drops_and_counts)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.chunk_bytes = 1024;
    o.pool_bytes = 4 * 1024;
    T_EQ_I64(sts_trace_start(dir, &o, NULL), STS_OK);
    /* A chunk is a 16-byte header and whole 32-byte records. */
    const int per_chunk = (1024 - 16) / 32, capacity = 4 * per_chunk, total = 200;
    for (int i = 0; i < total; i++) {
        STS_SCOPE("s");
    }
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded, capacity);
    T_EQ_U64(st.dropped, total - capacity);
    T_EQ_U64(st.thread[0].dropped, total - capacity);
    const sts_slice *u[256];
    T_EQ_U64(user_slices(tl, u, 256), capacity);
    size_t ni;
    const sts_instant *in = sts_timeline_instants(tl, &ni);
    int found = 0;
    for (size_t i = 0; i < ni; i++) {
        if (strcmp(sts_timeline_string(tl, in[i].name), "stepscope.dropped") != 0) continue;
        const sts_arg *a = sts_timeline_find_arg(tl, in[i].args, "dropped");
        T_TRUE(a && a->v.i == total - capacity);
        found = 1;
    }
    T_TRUE(found);
    size_t nw;
    uint64_t total_w;
    const char *const *w = sts_timeline_warnings(tl, &nw, &total_w);
    T_EQ_U64(nw, 1);
    if (nw) T_CONTAINS(w[0], "76 scopes dropped");
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

/* Args of a scope that is then dropped never attach to another scope. */
TEST(full_pool_keeps_args_with_their_scope)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.chunk_bytes = 1024;
    o.pool_bytes = 1024;
    T_EQ_I64(sts_trace_start(dir, &o, NULL), STS_OK);
    int total = 0;
    for (int i = 0; i < 100; i++, total++) {
        STS_SCOPE("outer");
        sts_scope_arg_int("i", i);
        STS_SCOPE("inner");
    }
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded + st.dropped, 2 * total);
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    int64_t expect = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(sts_timeline_string(tl, s[i].name), "outer") != 0) continue;
        T_EQ_I64(arg_i(tl, &s[i], "i"), expect);
        expect++;
    }
    T_TRUE(expect > 0 && expect < total);
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

static void *short_lived(void *arg)
{
    (void)arg;
    sts_trace_thread_name("short-lived");
    for (int i = 0; i < 10; i++) {
        STS_SCOPE("work");
    }
    return NULL;
}

TEST(exited_threads_keep_events)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    pthread_t th;
    pthread_create(&th, NULL, short_lived, NULL);
    pthread_join(th, NULL);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded, 10);
    T_EQ_U64(st.threads, 1);
    T_EQ_I64(st.thread[0].exited, 1);
    T_EQ_STR(st.thread[0].name, "short-lived");
    uint32_t lane = tt_lane(tl, "short-lived");
    T_TRUE(lane != STS_NONE);
    const sts_slice *scopes[16];
    if (lane != STS_NONE) T_EQ_U64(named(tl, lane, "work", scopes, 16), 10);
    sts_timeline_free(tl);
    /* The exited thread's state is reused by the next thread, not leaked. */
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    pthread_create(&th, NULL, short_lived, NULL);
    pthread_join(th, NULL);
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded, 10);
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

#define CHURN_THREADS 2000
#define CHURN_SCOPES  3

typedef struct churn_arg {
    int n, scopes;
} churn_arg;

static void *churn_thread(void *p)
{
    const churn_arg *a = p;
    char name[32];
    snprintf(name, sizeof name, "churn %d", a->n);
    sts_trace_thread_name(name);
    for (int i = 0; i < a->scopes; i++) {
        STS_SCOPE("work");
        sts_scope_arg_int("n", a->n);
        sts_scope_arg_int("tid", (int64_t)gettid());
    }
    return NULL;
}

/* Runs `threads` threads one after another, each recording `scopes` scopes. */
static void churn(int threads, int scopes)
{
    for (int n = 0; n < threads; n++) {
        churn_arg a = { n, scopes };
        pthread_t th;
        if (pthread_create(&th, NULL, churn_thread, &a) != 0) abort();
        pthread_join(th, NULL);
    }
}

/* Thread churn on a pool of 16 chunks, twice what the threads record in all: exited
 * threads' unused chunk ends serve the later threads, so nothing is dropped (before,
 * every thread after the 16th dropped all), and every scope stays on its own thread's
 * lane (its tid and name), though another thread wrote after it in the same chunk. */
TEST(churning_threads_share_the_pool)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.chunk_bytes = 64 * 1024;
    o.pool_bytes = 16 * 64 * 1024;
    T_EQ_I64(sts_trace_start(dir, &o, NULL), STS_OK);
    churn(CHURN_THREADS, CHURN_SCOPES);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.dropped, 0);
    T_EQ_U64(st.recorded, CHURN_THREADS * CHURN_SCOPES);
    T_EQ_U64(st.threads, CHURN_THREADS);
    size_t n, nl;
    const sts_slice *sl = sts_timeline_slices(tl, &n);
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    static int seen[CHURN_THREADS];
    memset(seen, 0, sizeof seen);
    int bad = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(sts_timeline_string(tl, sl[i].name), "work") != 0) continue;
        int64_t k = arg_i(tl, &sl[i], "n");
        char want[32];
        snprintf(want, sizeof want, "churn %lld", (long long)k);
        if (k < 0 || k >= CHURN_THREADS || lanes[sl[i].lane].tid != arg_i(tl, &sl[i], "tid") ||
            strcmp(sts_timeline_string(tl, lanes[sl[i].lane].name), want) != 0) {
            bad++;
            continue;
        }
        seen[k]++;
    }
    T_EQ_I64(bad, 0);
    int complete = 0;
    for (int k = 0; k < CHURN_THREADS; k++)
        complete += seen[k] == CHURN_SCOPES;
    T_EQ_I64(complete, CHURN_THREADS);
    sts_timeline_free(tl);

    /* The states of that session's threads serve the next one's (none is leaked or
     * scanned past), and a pool that really is full still drops and counts. */
    o.chunk_bytes = 1024;
    o.pool_bytes = 4 * 1024;
    T_EQ_I64(sts_trace_start(dir, &o, NULL), STS_OK);
    churn(50, 40); /* 40 scopes with two args each: about 3 KB a thread */
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded + st.dropped, 50 * 40);
    T_TRUE(st.dropped > 0);
    T_TRUE(st.recorded * 80 <= 4 * 1024); /* a scope and its two args take 80 bytes */
    T_EQ_U64(st.threads, 50);
    const sts_slice *u[64];
    T_EQ_U64(user_slices(tl, u, 64), st.recorded);
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

TEST(open_scopes_end_at_stop)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    sts_trace_stats st;
    sts_timeline *tl = NULL;
    {
        STS_STEP("open_step", 9);
        {
            STS_SCOPE("done");
        }
        STS_SCOPE("open_child");
        T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    } /* the cleanups run after stop: ignored */
    T_EQ_U64(st.recorded, 1);
    T_EQ_U64(st.open_at_stop, 2);
    const sts_slice *base = sts_timeline_slices(tl, NULL), *u[8];
    size_t n = user_slices(tl, u, 8);
    T_EQ_U64(n, 3);
    if (n == 3) {
        T_EQ_STR(sts_timeline_string(tl, u[0]->name), "open_step");
        T_TRUE(u[0]->flags & STS_SLICE_UNCLOSED);
        T_EQ_I64(arg_i(tl, u[0], "step_num"), 9);
        T_EQ_I64(u[0]->ts + u[0]->dur, st.stop_ns);
        T_EQ_STR(sts_timeline_string(tl, u[2]->name), "open_child");
        T_TRUE(u[2]->parent != STS_NONE && &base[u[2]->parent] == u[0]);
        T_TRUE(!(u[1]->flags & STS_SLICE_UNCLOSED));
    }
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

TEST(scope_begun_before_start_is_ignored)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    {
        STS_SCOPE("before");
        T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
        {
            STS_SCOPE("during");
        }
    } /* "before" ends here: not part of the session, must not pop anything */
    {
        STS_SCOPE("after");
    }
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded, 2);
    T_EQ_U64(st.unmatched_end, 0);
    const sts_slice *u[8];
    size_t n = user_slices(tl, u, 8);
    T_EQ_U64(n, 2);
    for (size_t i = 0; i < n; i++)
        T_EQ_I64(u[i]->depth, 0);
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

static void nest_deep(int left)
{
    if (left == 0) return;
    STS_SCOPE("deep");
    nest_deep(left - 1);
}

TEST(too_deep_is_counted)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    nest_deep(STS_TRACE_MAX_DEPTH + 44);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    T_EQ_U64(st.recorded, STS_TRACE_MAX_DEPTH);
    T_EQ_U64(st.too_deep, 44);
    const sts_slice *u[STS_TRACE_MAX_DEPTH + 8];
    size_t n = user_slices(tl, u, STS_TRACE_MAX_DEPTH + 8);
    T_EQ_U64(n, STS_TRACE_MAX_DEPTH);
    if (n) T_EQ_I64(u[n - 1]->depth, STS_TRACE_MAX_DEPTH - 1);
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

/* Recorded timestamps land on CLOCK_MONOTONIC within the stated error, for either
 * clock source. */
static void check_clock(sts_trace_clock which)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.clock = which;
    T_EQ_I64(sts_trace_start(dir, &o, NULL), STS_OK);
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    {
        STS_SCOPE("sleep");
        sleep_ns(3000000);
    }
    clock_gettime(CLOCK_MONOTONIC, &b);
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, NULL), STS_OK);
    int64_t before = a.tv_sec * 1000000000LL + a.tv_nsec, after = b.tv_sec * 1000000000LL + b.tv_nsec;
    const sts_slice *u[8];
    size_t n = user_slices(tl, u, 8);
    T_EQ_U64(n, 1);
    if (n == 1) {
        T_GE_I64(u[0]->ts + st.clock_error_ns, before);
        T_GE_I64(after + st.clock_error_ns, u[0]->ts + u[0]->dur);
        T_GE_I64(u[0]->dur + 2 * st.clock_error_ns, 3000000);
    }
    T_EQ_STR(st.clock, which == STS_TRACE_CLOCK_MONOTONIC ? "monotonic" : "tsc");
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

TEST(clock_maps_onto_monotonic)
{
    check_clock(STS_TRACE_CLOCK_MONOTONIC);
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.clock = STS_TRACE_CLOCK_TSC;
    sts_error err = STS_ERROR_INIT;
    sts_status s = sts_trace_start(dir, &o, &err);
    tt_rmtree(dir);
    if (s == STS_ERR_INVALID_ARG) {
        T_CONTAINS(err.message, "not invariant");
        T_SKIP("TSC not invariant here: the monotonic clock is used");
    }
    T_EQ_I64(s, STS_OK);
    sts_trace_stop_timeline(NULL, NULL, NULL);
    check_clock(STS_TRACE_CLOCK_TSC);
}

static uint64_t prng(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* A uniform integer in [lo, hi]. */
static int64_t prng_in(uint64_t *s, int64_t lo, int64_t hi)
{
    return lo + (int64_t)(prng(s) % (uint64_t)(hi - lo + 1));
}

/* The device-clock fit over random true lines (offsets up to 1 ms, rates up to
 * 1000 ppm, spans from 1 us to 10 s) and random true bounds around them: the fit
 * exists, the true line lies within the reported error of it everywhere in [d0, d1],
 * and the fitted line meets every bound (to the rounding of a mapped value). */
TEST(devclock_error_bounds_the_truth)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    int misses = 0, outside = 0;
    for (int round = 0; round < 3000; round++) {
        int64_t d0 = prng_in(&seed, 1000000000000LL, 2000000000000LL);
        int64_t span = (int64_t)pow(10, (double)prng_in(&seed, 3, 10));
        double off0 = (double)prng_in(&seed, -1000000, 1000000) + (double)prng_in(&seed, 0, 999) / 1000.0;
        double rate = (double)prng_in(&seed, -1000, 1000) * 1e-6;
        int64_t width = prng_in(&seed, 0, 5000); /* how loose the bounds are */
        sts_devclock c;
        T_EQ_I64(sts_devclock_init(&c, d0, d0 + span, (int64_t)off0 + prng_in(&seed, -20000, 20000), 1000000000LL), 0);
        int nb = (int)prng_in(&seed, 2, 40);
        int64_t bt[40], blo[40], bhi[40];
        for (int i = 0; i < nb; i++) {
            /* The first two bound both ends, as the calibrations do; the rest fall
             * anywhere in and a little around the span, some open on one side. */
            int64_t t = i == 0 ? d0 : i == 1 ? d0 + span : prng_in(&seed, d0 - span / 4, d0 + span + span / 4);
            double truth = off0 + rate * (double)(t - d0);
            int64_t lo = (int64_t)floor(truth) - prng_in(&seed, 0, width);
            int64_t hi = (int64_t)ceil(truth) + prng_in(&seed, 0, width);
            if (i >= 2 && prng(&seed) % 4 == 0) lo = INT64_MIN;
            if (i >= 2 && prng(&seed) % 4 == 1) hi = INT64_MAX;
            bt[i] = t, blo[i] = lo, bhi[i] = hi;
            sts_devclock_bound(&c, t, lo, hi);
        }
        sts_devmap m = sts_devclock_fit(&c);
        sts_devclock_release(&c);
        T_EQ_I64(m.ok, 1);
        if (!m.ok) continue;
        for (int k = 0; k <= 20; k++) {
            int64_t t = d0 + span / 20 * k;
            double truth = (double)t + off0 + rate * (double)(t - d0);
            double miss = fabs((double)sts_devmap_host(&m, t) - truth);
            if (miss > (double)m.error_ns && misses++ < 3) T_GE_I64(m.error_ns, (int64_t)ceil(miss));
        }
        for (int i = 0; i < nb; i++) {
            int64_t off = sts_devmap_host(&m, bt[i]) - bt[i];
            if ((blo[i] != INT64_MIN && off < blo[i] - 1) || (bhi[i] != INT64_MAX && off > bhi[i] + 1)) {
                if (outside++ < 3)
                    T_FAIL_AT("offset %" PRId64 " outside [%" PRId64 ", %" PRId64 "]", off, blo[i], bhi[i]);
            }
        }
    }
    T_EQ_I64(misses, 0);
    T_EQ_I64(outside, 0);
}

/* With the same bounds [L, H] at both ends the lines left are the constant offsets in
 * [L, H]: the fit is their midpoint, its error half the width (plus rounding). And
 * bounds no line meets leave no fit. */
TEST(devclock_constant_offset_and_contradiction)
{
    uint64_t seed = 12345;
    for (int round = 0; round < 200; round++) {
        int64_t d0 = prng_in(&seed, 0, 1000000000000LL), span = prng_in(&seed, 1, 1000000000);
        int64_t lo = prng_in(&seed, -200000000, 200000000), hi = lo + prng_in(&seed, 0, 100000);
        sts_devclock c;
        T_EQ_I64(sts_devclock_init(&c, d0, d0 + span, lo + prng_in(&seed, -1000, 1000), 1000000000LL), 0);
        sts_devclock_bound(&c, d0, lo, hi);
        sts_devclock_bound(&c, d0 + span, lo, hi);
        sts_devmap m = sts_devclock_fit(&c);
        sts_devclock_release(&c);
        T_EQ_I64(m.ok, 1);
        int64_t t = d0 + prng_in(&seed, 0, span);
        int64_t mid2 = lo + hi; /* twice the midpoint */
        int64_t got2 = 2 * (sts_devmap_host(&m, t) - t);
        T_TRUE(got2 >= mid2 - 2 && got2 <= mid2 + 2);
        T_GE_I64(2 * m.error_ns, hi - lo + 1);
        T_GE_I64(hi - lo + 4, 2 * m.error_ns);
    }
    sts_devclock c;
    T_EQ_I64(sts_devclock_init(&c, 0, 1000, 0, 1000000), 0);
    sts_devclock_bound(&c, 500, 0, 10);
    sts_devclock_bound(&c, 500, 20, 30);
    T_EQ_I64(sts_devclock_fit(&c).ok, 0);
    sts_devclock_release(&c);
    /* Lines through two points cannot also pass far from both in between. */
    T_EQ_I64(sts_devclock_init(&c, 0, 1000, 0, 1000000), 0);
    sts_devclock_bound(&c, 0, 0, 10);
    sts_devclock_bound(&c, 1000, 0, 10);
    sts_devclock_bound(&c, 500, 100, INT64_MAX);
    T_EQ_I64(sts_devclock_fit(&c).ok, 0);
    sts_devclock_release(&c);
}

/* The recorder's fit: commands' bounds only narrow the calibrations'; when they
 * contradict them (a driver breaking the rules), the calibrations alone map and the
 * error is unknown (-1), never a number. */
TEST(devclock_map_falls_back_when_bounds_contradict)
{
    const int64_t d0 = 5000000, d1 = 6000000, ref = -159600000;
    sts_devbound cal[2] = { { d0 - 1000, ref - 900, ref + 900 }, { d1 + 1000, ref - 900, ref + 900 } };
    sts_devmap alone = sts_devclock_map(d0, d1, ref, cal, 2, NULL, 0);
    T_EQ_I64(alone.ok, 1);
    T_GE_I64(alone.error_ns, 900);
    sts_devbound ops[2] = { { d0 + 100, ref - 50, ref + 2000 }, { d0 + 200000, INT64_MIN, ref + 40 } };
    sts_devmap both = sts_devclock_map(d0, d1, ref, cal, 2, ops, 2);
    T_EQ_I64(both.ok, 1);
    T_GE_I64(both.error_ns, 1);
    T_GE_I64(alone.error_ns, both.error_ns);
    int64_t off = sts_devmap_host(&both, d0 + 100) - (d0 + 100);
    T_GE_I64(off, ref - 50 - 1);
    T_GE_I64(ref + 40 + 1, sts_devmap_host(&both, d0 + 200000) - (d0 + 200000));
    ops[1].hi = ref - 2000; /* below every calibrated offset */
    sts_devmap bad = sts_devclock_map(d0, d1, ref, cal, 2, ops, 2);
    T_EQ_I64(bad.ok, 1);
    T_EQ_I64(bad.error_ns, -1);
    for (int64_t t = d0; t <= d1; t += 250000)
        T_EQ_I64(sts_devmap_host(&bad, t), sts_devmap_host(&alone, t));
}

TEST(errors)
{
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_trace_stop_timeline(NULL, NULL, &err), STS_ERR_STATE);
    T_CONTAINS(err.message, "no trace session is running");
    T_EQ_I64(sts_trace_start(NULL, NULL, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "no directory");
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.chunk_bytes = 100;
    T_EQ_I64(sts_trace_start(dir, &o, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "chunk_bytes 96 must be at least 512");
    char file[128];
    snprintf(file, sizeof file, "%s/plain", dir);
    FILE *f = fopen(file, "w");
    T_TRUE(f != NULL);
    if (f) fclose(f);
    char sub[160];
    snprintf(sub, sizeof sub, "%s/plain/sub", dir);
    T_EQ_I64(sts_trace_start(sub, NULL, &err), STS_ERR_IO);
    T_CONTAINS(err.message, "cannot create directory");
    T_CONTAINS(err.message, sub);
    T_EQ_I64(sts_trace_start(dir, NULL, &err), STS_OK);
    T_EQ_I64(sts_trace_start(dir, NULL, &err), STS_ERR_STATE);
    T_CONTAINS(err.message, "already running");
    T_EQ_I64(sts_trace_stop_timeline(NULL, NULL, &err), STS_OK);
#ifndef TRACE_CORE_ONLY
    /* The profile directory cannot be written: stop still ends the session and says
     * where it failed. */
    char plugins[128];
    snprintf(plugins, sizeof plugins, "%s/plugins", dir);
    f = fopen(plugins, "w");
    if (f) fclose(f);
    T_EQ_I64(sts_trace_start(dir, NULL, &err), STS_OK);
    {
        STS_SCOPE("lost");
    }
    sts_error_clear(&err);
    T_TRUE(sts_trace_stop(NULL, &err) != STS_OK);
    T_CONTAINS(err.message, "plugins");
    T_EQ_I64(sts_trace_active(), 0);
#endif
    tt_rmtree(dir);
}

TEST(no_allocation_per_event)
{
    if (getenv("STEPSCOPE_SANITIZED")) T_SKIP("sanitizers replace malloc accounting");
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    {
        STS_SCOPE("warm");
    }
    struct mallinfo2 a = mallinfo2();
    for (int i = 0; i < 100000; i++) {
        STS_STEP("s", i);
        sts_scope_arg_str("k", "value");
        STS_SCOPE("c");
    }
    struct mallinfo2 b = mallinfo2();
    T_EQ_U64(b.uordblks, a.uordblks);
    T_EQ_U64(b.hblkhd, a.hblkhd);
    T_EQ_I64(sts_trace_stop_timeline(NULL, NULL, NULL), STS_OK);
    tt_rmtree(dir);
}

/* Runs `fn` in a child process; returns its wait status. */
static int in_child(void (*fn)(const char *), const char *dir)
{
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        fn(dir);
        _exit(0);
    }
    int status = 0;
    waitpid(pid, &status, 0);
    return status;
}

static void child_crashes(const char *dir)
{
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.flush_on_signal = 1;
    /* No core file for the deliberate abort. */
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    if (sts_trace_start(dir, &o, NULL) != STS_OK) _exit(3);
    record_steps(2);
    STS_SCOPE("crashing \"here\"");
    abort();
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    static char buf[1 << 16];
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    buf[n] = 0;
    fclose(f);
    return buf;
}

/* The dump the child wrote (its pid names it) into path; 0 when there is none, or
 * when anything else is left in dir (a temporary file). */
static int find_dump(const char *dir, char *path, size_t cap)
{
    DIR *d = opendir(dir);
    int found = 0, other = 0;
    for (struct dirent *e; d && (e = readdir(d));) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
        if (strncmp(e->d_name, "stepscope-crash-", 16) == 0 && !found) {
            snprintf(path, cap, "%s/%s", dir, e->d_name);
            found = 1;
        } else {
            T_FAIL_AT("%s: unexpected file %s beside the dump", dir, e->d_name);
            other = 1;
        }
    }
    if (d) closedir(d);
    return found && !other;
}

TEST(fatal_signal_dumps_json)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    int status = in_child(child_crashes, dir);
    T_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    char path[400];
    T_TRUE(find_dump(dir, path, sizeof path));
    const char *text = path[0] ? slurp(path) : NULL;
    T_TRUE(text != NULL);
    if (text) {
        T_CONTAINS(text, "\"name\":\"learner_step\",\"dur\":");
        T_CONTAINS(text, "\"args\":{\"step_num\":1,\"_r\":1}");
        T_CONTAINS(text, "\"args\":{\"shape\":\"48x32\",\"scale\":0.500000}");
        T_CONTAINS(text, "{\"ph\":\"B\"");
        T_CONTAINS(text, "\"name\":\"crashing \\\"here\\\"\"");
        T_CONTAINS(text, "\"name\":\"stepscope.crash\"");
        T_CONTAINS(text, "\"signal\":6");
    }
#ifndef TRACE_CORE_ONLY
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_timeline_open(path, NULL, &tl, &err), STS_OK);
    if (tl) {
        const sts_slice *st[8];
        uint32_t lane = first_thread_lane(tl);
        T_EQ_U64(named(tl, lane, "learner_step", st, 8), 2);
        T_EQ_U64(sts_timeline_get_info(tl)->unclosed_begin, 1);
    }
    sts_timeline_free(tl);
#endif
    tt_rmtree(dir);
}

static int ready_pipe[2];

/* Records, says so through the pipe, and waits for the parent's signal. SIGINT and
 * SIGTERM start at their default (a shell's background job inherits SIGINT ignored, and
 * the recorder rightly leaves an ignored signal alone), unless the test set its own. */
static void child_waits_for_signal(const char *dir)
{
    if (signal(SIGINT, SIG_DFL) == SIG_ERR) _exit(5);
    struct sigaction term;
    if (sigaction(SIGTERM, NULL, &term) != 0) _exit(5);
    if (term.sa_handler == SIG_IGN) signal(SIGTERM, SIG_DFL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.flush_on_signal = 1;
    if (sts_trace_start(dir, &o, NULL) != STS_OK) _exit(3);
    record_steps(2);
    STS_SCOPE("waiting for the signal");
    if (write(ready_pipe[1], "r", 1) != 1) _exit(4);
    for (;;)
        pause();
}

/* SIGTERM and SIGINT, whose default is to end the process, are flushed as a fatal
 * signal is: the killed process leaves a whole, readable dump with its drop counts and
 * completion record, and no temporary file; then it dies of the signal. */
TEST(sigterm_and_sigint_leave_a_readable_dump)
{
    const int sigs[2] = { SIGTERM, SIGINT };
    for (int k = 0; k < 2; k++) {
        char dir[64];
        T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
        T_EQ_I64(pipe(ready_pipe), 0);
        fflush(stdout);
        pid_t pid = fork();
        if (pid == 0) {
            close(ready_pipe[0]);
            child_waits_for_signal(dir);
        }
        close(ready_pipe[1]);
        char c = 0;
        T_EQ_I64(read(ready_pipe[0], &c, 1), 1);
        close(ready_pipe[0]);
        kill(pid, sigs[k]);
        int status = 0;
        waitpid(pid, &status, 0);
        T_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == sigs[k]);
        char path[400];
        T_TRUE(find_dump(dir, path, sizeof path));
        const char *text = slurp(path);
        T_TRUE(text != NULL);
        if (text) {
            char want[32];
            snprintf(want, sizeof want, "\"signal\":%d", sigs[k]);
            T_CONTAINS(text, want);
            T_CONTAINS(text, "\"name\":\"stepscope.trace\"");
            T_CONTAINS(text, "\"recorded\":6,\"dropped\":0,\"too_deep\":0,\"open_at_stop\":1,\"threads\":1");
            T_CONTAINS(text, "\"name\":\"stepscope.file\"");
            T_CONTAINS(text, "\"name\":\"stepscope.complete\"");
        }
#ifndef TRACE_CORE_ONLY
        sts_timeline *tl = NULL;
        sts_error err = STS_ERROR_INIT;
        sts_open_options oo = STS_OPEN_OPTIONS_INIT;
        oo.args = STS_ARGS_ALL;
        T_EQ_I64(sts_timeline_open(path, &oo, &tl, &err), STS_OK);
        if (tl) check_steps(tl, first_thread_lane(tl), 2);
        sts_timeline_free(tl);
#endif
        tt_rmtree(dir);
    }
}

static void on_term_exit(int sig)
{
    (void)sig;
    _exit(7);
}

/* A program with its own SIGTERM handler keeps it: the recorder neither dumps nor
 * takes the signal away. */
TEST(own_sigterm_handler_is_left_alone)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(pipe(ready_pipe), 0);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        close(ready_pipe[0]);
        signal(SIGTERM, on_term_exit);
        child_waits_for_signal(dir);
    }
    close(ready_pipe[1]);
    char c = 0;
    T_EQ_I64(read(ready_pipe[0], &c, 1), 1);
    close(ready_pipe[0]);
    kill(pid, SIGTERM);
    int status = 0;
    waitpid(pid, &status, 0);
    T_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 7);
    DIR *d = opendir(dir);
    int files = 0;
    for (struct dirent *e; d && (e = readdir(d));)
        files += e->d_name[0] != '.';
    if (d) closedir(d);
    T_EQ_I64(files, 0);
    tt_rmtree(dir);
}

/* A full pool: 4 chunks of 1024 bytes hold 4 * 31 scopes; the other 76 are dropped. */
static void child_overflows_then_crashes(const char *dir)
{
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.flush_on_signal = 1;
    o.pool_bytes = 4096;
    o.chunk_bytes = 1024;
    struct rlimit none = { 0, 0 };
    setrlimit(RLIMIT_CORE, &none);
    if (sts_trace_start(dir, &o, NULL) != STS_OK) _exit(3);
    for (int i = 0; i < 200; i++) {
        STS_SCOPE("s");
    }
    abort();
}

static char dump_copy[1 << 16];
static size_t dump_len;

/* The dump of a full pool says what was dropped, per thread and in total. */
TEST(crash_dump_counts_drops)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    int status = in_child(child_overflows_then_crashes, dir);
    T_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == SIGABRT);
    char path[400];
    T_TRUE(find_dump(dir, path, sizeof path));
    const char *text = slurp(path);
    T_TRUE(text != NULL);
    if (text) {
        T_CONTAINS(text, "\"name\":\"stepscope.dropped\",\"s\":\"t\",\"cat\":\"stepscope\",\"args\":{\"dropped\":76,"
                         "\"too_deep\":0}");
        T_CONTAINS(text, "\"args\":{\"recorded\":124,\"dropped\":76,\"too_deep\":0");
        dump_len = strlen(text);
        memcpy(dump_copy, text, dump_len + 1);
    }
#ifndef TRACE_CORE_ONLY
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_open_options oo = STS_OPEN_OPTIONS_INIT;
    oo.args = STS_ARGS_ALL;
    T_EQ_I64(sts_timeline_open(path, &oo, &tl, &err), STS_OK);
    if (tl) {
        size_t ni, found = 0;
        const sts_instant *in = sts_timeline_instants(tl, &ni);
        const sts_slice *u[256]; /* the recorder's markers are zero-length slices too */
        T_EQ_U64(user_slices(tl, u, 256), 124);
        for (size_t i = 0; i < ni; i++)
            if (strcmp(sts_timeline_string(tl, in[i].name), "stepscope.dropped") == 0) {
                const sts_arg *a = sts_timeline_find_arg(tl, in[i].args, "dropped");
                T_TRUE(a && a->type == STS_ARG_INT && a->v.i == 76);
                found++;
            }
        T_EQ_U64(found, 1);
    }
    sts_timeline_free(tl);
#endif
    tt_rmtree(dir);
}

#ifndef TRACE_CORE_ONLY
/* A dump cut anywhere after its first event and before the end of its completion
 * record is an error naming the missing record, never a trace with events missing;
 * cut after the record (only the closing brackets lost) it reads whole. */
TEST(crash_dump_cut_short_is_an_error)
{
    if (!dump_len) T_SKIP("crash_dump_counts_drops left no dump");
    const char *head = strstr(dump_copy, "\"name\":\"stepscope.file\"");
    const char *tail = strstr(dump_copy, "\"name\":\"stepscope.complete\"");
    T_TRUE(head && tail);
    if (!head || !tail) return;
    size_t head_end = (size_t)(strchr(strstr(head, "}}"), '}') - dump_copy) + 2;
    size_t tail_end = (size_t)(strstr(tail, "}}") - dump_copy) + 2;
    char dir[64], path[128];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    snprintf(path, sizeof path, "%s/cut.json", dir);
    size_t bad = 0, tried = 0;
    for (size_t cut = head_end; cut < dump_len; cut += cut < head_end + 600 || cut + 600 > dump_len ? 1 : 7) {
        FILE *f = fopen(path, "wb");
        fwrite(dump_copy, 1, cut, f);
        fclose(f);
        sts_timeline *tl = NULL;
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_timeline_open(path, NULL, &tl, &err);
        int ok =
            cut < tail_end ? st == STS_ERR_TRUNCATED && strstr(err.message, "completion record") != NULL : st == STS_OK;
        if (!ok && bad++ < 3)
            T_FAIL_AT("cut at %zu of %zu: status %s: %s", cut, dump_len, sts_status_name(st), err.message);
        sts_timeline_free(tl);
        tried++;
    }
    T_TRUE(tried > 1000);
    tt_rmtree(dir);
}
#endif

#ifndef TRACE_CORE_ONLY
static void child_exits(const char *dir)
{
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.flush_at_exit = 1;
    o.host = "exit-test";
    if (sts_trace_start(dir, &o, NULL) != STS_OK) _exit(3);
    record_steps(1);
    exit(0);
}

TEST(exit_flush_writes_profile)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    int status = in_child(child_exits, dir);
    T_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_timeline_open(dir, NULL, &tl, &err), STS_OK);
    if (!tl) T_FAIL_AT("%s", err.message);
    if (tl) {
        const sts_slice *st[8];
        T_EQ_U64(named(tl, first_thread_lane(tl), "learner_step", st, 8), 1);
    }
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

/* Slices named `name` on any lane. */
static size_t count_named(const sts_timeline *tl, const char *name)
{
    size_t n, k = 0;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        k += strcmp(sts_timeline_string(tl, s[i].name), name) == 0;
    return k;
}

/* Runs under DIR/plugins/profile. */
static int runs_in(const char *dir)
{
    char path[256];
    snprintf(path, sizeof path, "%s/plugins/profile", dir);
    DIR *d = opendir(path);
    if (!d) return 0;
    int n = 0;
    for (struct dirent *e; (e = readdir(d));)
        n += e->d_name[0] != '.';
    closedir(d);
    return n;
}

/* The forked child: none of the parent's session is its own. Its exit status holds a
 * bit per failure: 1 still recording, 2 could stop the parent's session, 4 or 8 its
 * own session would not start or stop. exit(), not _exit(): the at-exit flush ran. */
static void forked_child(const char *dir)
{
    int bad = sts_trace_active() ? 1 : 0;
    {
        STS_SCOPE("in the child");
    }
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_stop(NULL, &err) != STS_ERR_STATE) bad |= 2;
    char own[128];
    snprintf(own, sizeof own, "%s/child", dir);
    if (sts_trace_start(own, NULL, NULL) != STS_OK) bad |= 4;
    {
        STS_SCOPE("the child's own");
    }
    if (sts_trace_stop(NULL, NULL) != STS_OK) bad |= 8;
    exit(bad);
}

static void child_forks(const char *dir)
{
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.flush_at_exit = 1;
    o.flush_on_signal = 1;
    o.host = "fork-test";
    if (sts_trace_start(dir, &o, NULL) != STS_OK) _exit(20);
    {
        STS_SCOPE("the parent's before the fork");
    }
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) forked_child(dir);
    int status = 0;
    waitpid(pid, &status, 0);
    {
        STS_SCOPE("the parent's after the fork");
    }
    if (sts_trace_stop(NULL, NULL) != STS_OK) _exit(21);
    _exit(WIFEXITED(status) ? WEXITSTATUS(status) : 22);
}

/* A child made by fork() inherited the session: its exit wrote a second run of the
 * parent's events (which could become the directory's latest). Now the child records
 * nothing of it, cannot stop it, and records a session of its own alone. */
TEST(fork_child_does_not_inherit_the_session)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    int status = in_child(child_forks, dir);
    T_TRUE(WIFEXITED(status));
    if (WIFEXITED(status) && WEXITSTATUS(status) != 0) T_FAIL_AT("the processes failed: code %d", WEXITSTATUS(status));
    T_EQ_I64(runs_in(dir), 1);
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_timeline_open(dir, NULL, &tl, &err), STS_OK);
    if (!tl) T_FAIL_AT("%s", err.message);
    if (tl) {
        T_EQ_U64(count_named(tl, "the parent's before the fork"), 1);
        T_EQ_U64(count_named(tl, "the parent's after the fork"), 1);
        T_EQ_U64(count_named(tl, "in the child"), 0);
        T_EQ_U64(count_named(tl, "the child's own"), 0);
    }
    sts_timeline_free(tl);
    char own[128];
    snprintf(own, sizeof own, "%s/child", dir);
    T_EQ_I64(runs_in(own), 1);
    tl = NULL;
    T_EQ_I64(sts_timeline_open(own, NULL, &tl, &err), STS_OK);
    if (tl) {
        T_EQ_U64(count_named(tl, "the child's own"), 1);
        T_EQ_U64(count_named(tl, "the parent's before the fork"), 0);
        T_EQ_U64(count_named(tl, "in the child"), 0);
    }
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

/* Compares the recorder's own timeline with one read back from a file: same slices,
 * times to the nanosecond, same depths and parents. */
static void same_slices(const sts_timeline *a, const sts_timeline *b)
{
    const sts_slice *sa[64], *sb[64];
    size_t na = user_slices(a, sa, 64), nb = user_slices(b, sb, 64);
    const sts_slice *ba = sts_timeline_slices(a, NULL), *bb = sts_timeline_slices(b, NULL);
    T_EQ_U64(nb, na);
    if (na != nb) return;
    for (size_t i = 0; i < na && !t_current_failed; i++) {
        T_EQ_STR(sts_timeline_string(b, sb[i]->name), sts_timeline_string(a, sa[i]->name));
        T_EQ_I64(sb[i]->ts, sa[i]->ts);
        T_EQ_I64(sb[i]->dur, sa[i]->dur);
        T_EQ_I64(sb[i]->depth, sa[i]->depth);
        T_EQ_I64(sb[i]->parent == STS_NONE, sa[i]->parent == STS_NONE);
        if (sa[i]->parent != STS_NONE && sb[i]->parent != STS_NONE)
            T_EQ_I64(bb[sb[i]->parent].ts, ba[sa[i]->parent].ts);
    }
}

TEST(round_trip_both_formats)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.host = "roundtrip";
    T_EQ_I64(sts_trace_start(dir, &o, NULL), STS_OK);
    record_steps(4);
    sts_trace_stats st;
    sts_error err = STS_ERROR_INIT;
    sts_timeline *mem = NULL;
    /* Record the same session twice: once kept in memory, once written. */
    T_EQ_I64(sts_trace_stop_timeline(&mem, &st, &err), STS_OK);
    T_EQ_I64(sts_trace_start(dir, &o, NULL), STS_OK);
    record_steps(4);
    T_EQ_I64(sts_trace_stop(&st, &err), STS_OK);
    T_TRUE(st.run_path[0] != 0);
    sts_write_options wo = STS_WRITE_OPTIONS_INIT;
    wo.host = "roundtrip";
    char json[4200], pb[4200];
    snprintf(json, sizeof json, "%s/mem.trace.json.gz", dir);
    snprintf(pb, sizeof pb, "%s/mem.xplane.pb", dir);
    T_EQ_I64(sts_write_chrome_json(mem, json, &wo, &err), STS_OK);
    T_EQ_I64(sts_write_xplane(mem, pb, &wo, &err), STS_OK);
    const char *paths[2] = { json, pb };
    sts_open_options oo = STS_OPEN_OPTIONS_INIT;
    oo.args = STS_ARGS_ALL;
    for (int k = 0; k < 2; k++) {
        sts_timeline *back = NULL;
        T_EQ_I64(sts_timeline_open(paths[k], &oo, &back, &err), STS_OK);
        if (!back) {
            T_FAIL_AT("%s: %s", paths[k], err.message);
            continue;
        }
        same_slices(mem, back);
        check_steps(back, first_thread_lane(back), 4);
        sts_timeline_free(back);
    }
    /* The profile directory holds all three files and opens as a whole. */
    char f[4400];
    struct stat sb;
    snprintf(f, sizeof f, "%s/roundtrip.xplane.pb", st.run_path);
    T_EQ_I64(stat(f, &sb), 0);
    snprintf(f, sizeof f, "%s/roundtrip.trace.json.gz", st.run_path);
    T_EQ_I64(stat(f, &sb), 0);
    snprintf(f, sizeof f, "%s/perfetto_trace.json.gz", st.run_path);
    T_EQ_I64(stat(f, &sb), 0);
    sts_timeline *dirtl = NULL;
    T_EQ_I64(sts_timeline_open(dir, &oo, &dirtl, &err), STS_OK);
    if (dirtl) check_steps(dirtl, first_thread_lane(dirtl), 4);
    sts_timeline_free(dirtl);
    sts_timeline_free(mem);
    tt_rmtree(dir);
}
#endif

#ifndef TRACE_CORE_ONLY
/* Device lanes: each command on a device lane, linked to its enqueue on the host lane
 * by correlation_id and a flow pair; the files keep the links. */
static int64_t clock_of(clockid_t id)
{
    struct timespec ts;
    clock_gettime(id, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

TEST(device_lanes)
{
    sts_device *dev = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_device_open(NULL, &dev, &err) != STS_OK) T_SKIP("no OpenCL device: %s", err.message);
    const int64_t shape[1] = { 1024 };
    sts_array *a = NULL;
    static float host[1024];
    for (int i = 0; i < 1024; i++)
        host[i] = (float)i / 1024.0f;
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_F32, 1, shape, &a, &err), STS_OK);
    /* Warm: the first tanh builds its kernel. */
    T_EQ_I64(sts_op_tanh(dev, a, a, NULL, &err), STS_OK);
    T_EQ_I64(sts_arrays_ready(&a, 1, &err), STS_OK);

    T_EQ_I64(sts_trace_device(dev, &err), STS_ERR_STATE);
    T_CONTAINS(err.message, "no trace session");
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    T_EQ_I64(sts_trace_device(dev, &err), STS_OK);
    T_EQ_I64(sts_trace_device(dev, &err), STS_OK); /* twice: no-op */
    int64_t seen[3];                               /* CLOCK_MONOTONIC: each call's commands had completed */
    for (int i = 0; i < 3; i++) {
        STS_SCOPE("call");
        T_EQ_I64(sts_array_write(a, host, sizeof host, NULL, &err), STS_OK);
        T_EQ_I64(sts_op_tanh(dev, a, a, NULL, &err), STS_OK);
        T_EQ_I64(sts_arrays_ready(&a, 1, &err), STS_OK);
        seen[i] = clock_of(CLOCK_MONOTONIC);
    }
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, &err), STS_OK);
    T_EQ_U64(st.device_ops, 6);
    T_TRUE(st.device_offset_error_ns > 0);
    size_t nl, ns, nf;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    const sts_flow *fl = sts_timeline_flows(tl, &nf);
    uint32_t dev_lane = STS_NONE;
    for (size_t i = 0; i < nl; i++)
        if (lanes[i].kind == STS_LANE_DEVICE) dev_lane = (uint32_t)i;
    T_TRUE(dev_lane != STS_NONE);
    if (dev_lane == STS_NONE) goto done;
    const sts_process *proc = &sts_timeline_processes(tl, NULL)[lanes[dev_lane].process];
    T_TRUE(strncmp(sts_timeline_string(tl, proc->name), "/device:", 8) == 0);
    T_EQ_U64(lanes[dev_lane].slice_count, 6);
    T_EQ_U64(nf, 12);
    int linked = 0;
    for (uint32_t i = lanes[dev_lane].first_slice; i < lanes[dev_lane].first_slice + lanes[dev_lane].slice_count; i++) {
        int64_t corr = arg_i(tl, &sl[i], "correlation_id");
        T_TRUE(corr > 0);
        T_TRUE(sl[i].ts >= st.start_ns && sl[i].ts + sl[i].dur <= st.stop_ns);
        /* Never after the host saw it complete (allowing the host clock's own error):
         * the lane holds each call's write and kernel, in order. */
        uint32_t call = (i - lanes[dev_lane].first_slice) / 2;
        if (call < 3) T_GE_I64(seen[call] + st.clock_error_ns, sl[i].ts + sl[i].dur);
        for (size_t j = 0; j < ns; j++) {
            if (lanes[sl[j].lane].kind != STS_LANE_THREAD || arg_i(tl, &sl[j], "correlation_id") != corr) continue;
            /* Never before its enqueue began; its queued time opens the enqueue slice. */
            T_GE_I64(sl[i].ts, sl[j].ts);
            T_GE_I64(arg_i(tl, &sl[i], "queued_ns"), sl[j].ts);
            /* The enqueue lies inside the scope that made it, and names the command. */
            T_TRUE(sl[j].parent != STS_NONE);
            if (sl[j].parent != STS_NONE) T_EQ_STR(sts_timeline_string(tl, sl[sl[j].parent].name), "call");
            char want[80];
            snprintf(want, sizeof want, "enqueue %s", sts_timeline_string(tl, sl[i].name));
            T_EQ_STR(sts_timeline_string(tl, sl[j].name), want);
            linked++;
        }
    }
    T_EQ_I64(linked, 6);
    int starts = 0, finishes = 0;
    for (size_t i = 0; i < nf; i++) {
        starts += fl[i].phase == 's' && lanes[fl[i].lane].kind == STS_LANE_THREAD;
        finishes += fl[i].phase == 'f' && fl[i].lane == dev_lane && fl[i].bind_enclosing;
    }
    T_EQ_I64(starts, 6);
    T_EQ_I64(finishes, 6);
    /* Chrome JSON keeps the device lane, correlation ids and flows. */
    char json[128];
    snprintf(json, sizeof json, "%s/dev.trace.json.gz", dir);
    T_EQ_I64(sts_write_chrome_json(tl, json, NULL, &err), STS_OK);
    sts_timeline *back = NULL;
    T_EQ_I64(sts_timeline_open(json, NULL, &back, &err), STS_OK);
    if (back) {
        size_t bf;
        sts_timeline_flows(back, &bf);
        T_EQ_U64(bf, 12);
        same_slices(tl, back);
    }
    sts_timeline_free(back);
done:
    sts_timeline_free(tl);
    /* Detach: only while recorded; a device not being traced is reported. */
    T_EQ_I64(sts_trace_device_detach(dev, &err), STS_ERR_NOT_FOUND);
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    T_EQ_I64(sts_trace_device(dev, &err), STS_OK);
    T_EQ_I64(sts_op_tanh(dev, a, a, NULL, &err), STS_OK);
    T_EQ_I64(sts_trace_device_detach(dev, &err), STS_OK);
    T_EQ_I64(sts_op_tanh(dev, a, a, NULL, &err), STS_OK); /* after detach: not recorded */
    T_EQ_I64(sts_arrays_ready(&a, 1, &err), STS_OK);
    T_EQ_I64(sts_trace_stop_timeline(NULL, &st, &err), STS_OK);
    T_EQ_U64(st.device_ops, 1);
    sts_array_free(a);
    sts_device_free(dev);
    tt_rmtree(dir);
}

/* PoCL's CPU devices stamp with CLOCK_MONOTONIC_RAW (pocl_gettimemono_ns in PoCL's
 * lib/CL/pocl_timing.c): where they do, the true host time of every device stamp is
 * known, which checks the whole mapping. 1 when this device's stamps fit that clock. */
static int stamps_raw(sts_device *dev, sts_array *a)
{
    const sts_device_info *info = sts_device_get_info(dev);
    if (!info->is_cpu || !strstr(info->platform, "Portable Computing Language")) return 0;
    int ok = 1;
    for (int i = 0; i < 8 && ok; i++) {
        sts_event *ev = NULL;
        int64_t r0 = clock_of(CLOCK_MONOTONIC_RAW);
        ok = sts_op_tanh(dev, a, a, &ev, NULL) == STS_OK;
        int64_t r1 = clock_of(CLOCK_MONOTONIC_RAW);
        ok = ok && sts_event_wait(ev, NULL) == STS_OK;
        int64_t r2 = clock_of(CLOCK_MONOTONIC_RAW);
        sts_event_times t;
        ok = ok && sts_event_get_times(ev, &t, NULL) == STS_OK && r0 <= t.queued && t.queued <= r1 && t.end <= r2;
        sts_event_release(ev);
    }
    return ok;
}

/* CLOCK_MONOTONIC - CLOCK_MONOTONIC_RAW, from the tightest of 32 brackets; *half gets
 * its half-width. */
static int64_t monotonic_minus_raw(int64_t *half)
{
    int64_t best = INT64_MAX, off = 0;
    for (int i = 0; i < 32; i++) {
        int64_t m0 = clock_of(CLOCK_MONOTONIC), r = clock_of(CLOCK_MONOTONIC_RAW), m1 = clock_of(CLOCK_MONOTONIC);
        if (m1 - m0 < best) best = m1 - m0, off = m0 + (m1 - m0) / 2 - r;
    }
    *half = (best + 1) / 2;
    return off;
}

/* One traced session of writes and kernels; every device slice must lie within the
 * reported error (plus the host clock's) of where its stamps truly fall. */
static void check_device_slices_true(sts_device *dev, sts_array *a, const float *host, size_t bytes)
{
    char dir[64];
    T_TRUE(tt_tmpdir(dir, sizeof dir) != NULL);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_trace_start(dir, NULL, NULL), STS_OK);
    T_EQ_I64(sts_trace_device(dev, &err), STS_OK);
    sts_event *evs[8] = { 0 };
    for (int i = 0; i < 4; i++) {
        STS_SCOPE("call");
        T_EQ_I64(sts_array_write(a, host, bytes, &evs[2 * i], &err), STS_OK);
        T_EQ_I64(sts_op_tanh(dev, a, a, &evs[2 * i + 1], &err), STS_OK);
        T_EQ_I64(sts_arrays_ready(&a, 1, &err), STS_OK);
    }
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    T_EQ_I64(sts_trace_stop_timeline(&tl, &st, &err), STS_OK);
    int64_t half = 0, off = monotonic_minus_raw(&half);
    T_GE_I64(st.device_offset_error_ns, 1);
    int64_t allowed = st.device_offset_error_ns + st.clock_error_ns + half;
    size_t nl = 0;
    const sts_lane *lanes = tl ? sts_timeline_lanes(tl, &nl) : NULL;
    const sts_slice *sl = tl ? sts_timeline_slices(tl, NULL) : NULL;
    int checked = 0;
    for (size_t l = 0; l < nl; l++) {
        if (lanes[l].kind != STS_LANE_DEVICE) continue;
        T_EQ_U64(lanes[l].slice_count, 8);
        /* One in-order queue: the lane's slices come in enqueue order. */
        for (uint32_t i = 0; i < lanes[l].slice_count && i < 8; i++) {
            const sts_slice *s = &sl[lanes[l].first_slice + i];
            sts_event_times t;
            T_EQ_I64(sts_event_get_times(evs[i], &t, &err), STS_OK);
            T_GE_I64(allowed, llabs(s->ts - (t.start + off)));
            T_GE_I64(allowed, llabs(s->ts + s->dur - (t.end + off)));
            checked++;
        }
    }
    T_EQ_I64(checked, 8);
    for (int i = 0; i < 8; i++)
        sts_event_release(evs[i]);
    sts_timeline_free(tl);
    tt_rmtree(dir);
}

/* Against the device's true clock, both ways the pairing can go: the host's raw clock
 * (tens of ns) and markers alone (microseconds, as on other devices). */
TEST(device_slices_match_the_device_clock)
{
    sts_device *dev = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_device_open(NULL, &dev, &err) != STS_OK) T_SKIP("no OpenCL device: %s", err.message);
    const int64_t shape[1] = { 4096 };
    static float host[4096];
    sts_array *a = NULL;
    T_EQ_I64(sts_array_create(dev, STS_DTYPE_F32, 1, shape, &a, &err), STS_OK);
    if (!stamps_raw(dev, a)) {
        sts_array_free(a);
        sts_device_free(dev);
        T_SKIP("the device's clock is not CLOCK_MONOTONIC_RAW (the ground truth needs PoCL's CPU device)");
    }
    for (int i = 0; i < 5; i++)
        check_device_slices_true(dev, a, host, sizeof host);
    setenv(STS_DEVICE_CLOCK_ENV, "markers", 1);
    for (int i = 0; i < 5; i++)
        check_device_slices_true(dev, a, host, sizeof host);
    unsetenv(STS_DEVICE_CLOCK_ENV);
    sts_array_free(a);
    sts_device_free(dev);
}
#endif

int main(void)
{
    RUN(steps_nest_with_args);
    RUN(explicit_begin_end);
    RUN(threads_lose_nothing);
    RUN(stop_while_threads_record);
    RUN(fair_pool_threads_together);
    RUN(fair_pool_threads_one_after_another);
    RUN(fair_pool_thread_cap);
    RUN(full_pool_drops_and_counts);
    RUN(full_pool_keeps_args_with_their_scope);
    RUN(exited_threads_keep_events);
    RUN(churning_threads_share_the_pool);
    RUN(threads_come_and_go_concurrently);
    RUN(open_scopes_end_at_stop);
    RUN(scope_begun_before_start_is_ignored);
    RUN(too_deep_is_counted);
    RUN(clock_maps_onto_monotonic);
    RUN(devclock_error_bounds_the_truth);
    RUN(devclock_constant_offset_and_contradiction);
    RUN(devclock_map_falls_back_when_bounds_contradict);
    RUN(errors);
    RUN(no_allocation_per_event);
    RUN(fatal_signal_dumps_json);
    RUN(sigterm_and_sigint_leave_a_readable_dump);
    RUN(own_sigterm_handler_is_left_alone);
    RUN(crash_dump_counts_drops);
#ifndef TRACE_CORE_ONLY
    RUN(crash_dump_cut_short_is_an_error);
    RUN(exit_flush_writes_profile);
    RUN(fork_child_does_not_inherit_the_session);
    RUN(round_trip_both_formats);
    RUN(device_lanes);
    RUN(device_slices_match_the_device_clock);
#endif
    return t_done();
}
