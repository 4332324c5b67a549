/* The critical path and what-if on generated Kineto-shaped traces whose paths are known
 * by construction (worked out beside each test), a property test over random traces, and
 * the real fixtures when present. Times in the traces are microseconds; answers in ns. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepscope.h"
#include "json_gen.h"
#include "test.h"

#define US 1000

/* A host slice on thread `tid` of pid 100 (corr 0: none). */
static void host(tbuf *b, int tid, double ts, double dur, const char *name, long corr)
{
    kt_host(b, "cpu_op", tid, ts, dur, name, corr);
}

static void dev(tbuf *b, int s, double ts, double dur, const char *name, long corr)
{
    kt_dev(b, "kernel", s, ts, dur, name, corr);
}

static void step(tbuf *b, int n, double ts, double dur)
{
    kt_step(b, "cpu_op", n, ts, dur);
}

static void flow(tbuf *b, char ph, int id, int tid, double ts)
{
    kt_comma(b);
    putf(b, "{\"ph\":\"%c\",\"id\":%d,\"pid\":100,\"tid\":%d,\"ts\":%g,\"cat\":\"fwdbwd\",\"name\":\"fwdbwd\"%s}", ph,
         id, tid, ts, ph == 'f' ? ",\"bp\":\"e\"" : "");
}

typedef struct run {
    sts_timeline *tl;
    sts_steps *s;
    sts_devview *dv;
    sts_critpath *cp;
} run;

static int open_run(tbuf *b, run *r)
{
    memset(r, 0, sizeof *r);
    sts_error err = STS_ERROR_INIT;
    int ok = kt_open(b, "critpath-test", (sts_args_mode)(STS_ARGS_ANALYSIS | STS_ARGS_WITH_STREAMS), STS_FLOWS_KEEP,
                     &r->tl, &err) == STS_OK;
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    ok = ok && sts_steps_find(r->tl, &so, &r->s, &err) == STS_OK;
    sts_devview_options vo = STS_DEVVIEW_OPTIONS_INIT;
    vo.steps = r->s;
    ok = ok && sts_devview_compute(r->tl, &vo, &r->dv, &err) == STS_OK;
    ok = ok && sts_critpath_compute(r->tl, r->s, r->dv, &r->cp, &err) == STS_OK;
    if (!ok) fprintf(stderr, "open: %s\n", err.message);
    return ok;
}

static void close_run(run *r)
{
    sts_critpath_free(r->cp);
    sts_devview_free(r->dv);
    sts_steps_free(r->s);
    sts_timeline_free(r->tl);
}

/* The invariants every path keeps: it tiles the step, the kinds add up. */
static void check_path(const run *r)
{
    size_t n, ns;
    const sts_cp_step *ps = sts_critpath_steps(r->cp, &n);
    const sts_step *st = sts_steps_list(r->s, &ns);
    const sts_cp_interval *iv = sts_critpath_intervals(r->cp, NULL);
    T_EQ_I64((int64_t)n, (int64_t)ns);
    for (size_t k = 0; k < n && k < ns; k++) {
        if (!ps[k].known) continue;
        T_EQ_I64(ps[k].length_ns, st[k].dur);
        int64_t sum = 0, at = st[k].ts;
        for (int c = 0; c < STS_CP_KINDS; c++) {
            T_TRUE(ps[k].by_kind_ns[c] >= 0);
            sum += ps[k].by_kind_ns[c];
        }
        T_EQ_I64(sum, ps[k].length_ns);
        for (uint32_t i = ps[k].first_interval; i < ps[k].first_interval + ps[k].interval_count; i++) {
            T_EQ_I64(iv[i].ts_ns, at); /* disjoint, in order, no hole */
            T_TRUE(iv[i].dur_ns > 0);
            at = iv[i].ts_ns + iv[i].dur_ns;
        }
        T_EQ_I64(at, st[k].ts + st[k].dur);
    }
}

static int64_t kind_ns(const run *r, size_t k, sts_cp_kind kind)
{
    return sts_critpath_steps(r->cp, NULL)[k].by_kind_ns[kind];
}

static sts_cp_prediction what_if(run *r, const char *change, sts_status *st)
{
    sts_cp_prediction p;
    memset(&p, 0, sizeof p);
    sts_error err = STS_ERROR_INIT;
    *st = sts_critpath_what_if(r->cp, &change, 1, &p, &err);
    if (*st != STS_OK) {
        memcpy(p.change, err.message, sizeof p.change - 1);
        p.change[sizeof p.change - 1] = 0;
    }
    return p;
}

TEST(host_bound_step)
{
    /* Step [0,100): work [0,90) host, a launch [90,92) of k [93,96). The step's own
     * time [92,100) is host; the kernel hangs off the path: host 98, launch 2. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    step(&b, 1, 0, 100);
    host(&b, 100, 0, 90, "work", 0);
    host(&b, 100, 90, 2, "cudaLaunchKernel", 1);
    dev(&b, 7, 93, 3, "k", 1);
    run r;
    T_TRUE(open_run(&b, &r));
    if (!r.cp) return close_run(&r);
    check_path(&r);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_HOST), 98 * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_LAUNCH), 2 * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_COMPUTE), 0);
    sts_status st;
    sts_cp_prediction p = what_if(&r, "k=0.5", &st); /* off the path: no change */
    T_EQ_I64(st, STS_OK);
    T_EQ_I64(p.predicted_ns, 100 * US);
    p = what_if(&r, "work=0.5", &st); /* on it: 45 us saved */
    T_EQ_I64(p.predicted_ns, 55 * US);
    T_EQ_STR(p.expect, "step:shrink>=45%");
    close_run(&r);
}

TEST(device_bound_step_and_sync_wait)
{
    /* Launch [0,5) of kernel [10,90); cudaDeviceSynchronize [5,95); step self [95,100).
     * Path: launch delay [0,10) launch, kernel [10,90) compute 80, the sync past the
     * kernel's end [90,95) sync_wait 5, step self 5 host. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    step(&b, 1, 0, 100);
    host(&b, 100, 0, 5, "cudaLaunchKernel", 1);
    host(&b, 100, 5, 90, "cudaDeviceSynchronize", 0);
    dev(&b, 7, 10, 80, "gemm", 1);
    run r;
    T_TRUE(open_run(&b, &r));
    if (!r.cp) return close_run(&r);
    check_path(&r);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_LAUNCH), 10 * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_COMPUTE), 80 * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_SYNC), 5 * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_HOST), 5 * US);
    /* Halving the kernel: it ends at 10 + 40; the sync 5 later; the step 5 after. */
    sts_status st;
    sts_cp_prediction p = what_if(&r, "gemm=0.5", &st);
    T_EQ_I64(p.predicted_ns, (10 + 40 + 5 + 5) * US);
    p = what_if(&r, "compute=0", &st); /* a category */
    T_EQ_I64(p.predicted_ns, (10 + 5 + 5) * US);
    p = what_if(&r, "gemm=1", &st);
    T_EQ_I64(p.predicted_ns, 100 * US);
    T_EQ_STR(p.expect, "step:same");
    close_run(&r);
}

TEST(two_streams_the_later_binds)
{
    /* Launch A [0,2) -> kA on stream 7 [5,50); launch B [2,4) -> kB on stream 8 [6,80);
     * sync [4,85); self [85,100). The sync waits for both; kB ends last and binds. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    kt_stream(&b, 8);
    step(&b, 1, 0, 100);
    host(&b, 100, 0, 2, "cudaLaunchKernel", 1);
    host(&b, 100, 2, 2, "cudaLaunchKernel", 2);
    host(&b, 100, 4, 81, "cudaDeviceSynchronize", 0);
    dev(&b, 7, 5, 45, "kA", 1);
    dev(&b, 8, 6, 74, "kB", 2);
    run r;
    T_TRUE(open_run(&b, &r));
    if (!r.cp) return close_run(&r);
    check_path(&r);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_COMPUTE), 74 * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_LAUNCH), (2 + 4) * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_SYNC), 5 * US);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_HOST), 15 * US);
    /* kB halved ends at 43, +5 = 48, but kA still ends at 50: the path moves to stream 7
     * and the step is 50 + 15 (the other ops wait for nothing extra). */
    sts_status st;
    sts_cp_prediction p = what_if(&r, "kB=0.5", &st);
    T_EQ_I64(p.predicted_ns, (50 + 15) * US);
    close_run(&r);
}

TEST(cycle_from_bad_flows_is_broken_and_warned)
{
    /* Two threads, flows both ways between slices starting at 0: a cycle. */
    tbuf b = { 0 };
    step(&b, 1, 0, 100);
    host(&b, 100, 0, 50, "a", 0);
    host(&b, 200, 0, 50, "c", 0);
    flow(&b, 's', 1, 100, 0);
    flow(&b, 'f', 1, 200, 0);
    flow(&b, 's', 2, 200, 0);
    flow(&b, 'f', 2, 100, 0);
    run r;
    T_TRUE(open_run(&b, &r));
    if (!r.cp) return close_run(&r);
    check_path(&r);
    T_TRUE(sts_critpath_get_counts(r.cp)->cycles >= 1);
    size_t nw;
    const char *const *w = sts_critpath_warnings(r.cp, &nw);
    int named = 0;
    for (size_t i = 0; i < nw; i++)
        named |= strstr(w[i], "cycle") && strstr(w[i], "'a'") && strstr(w[i], "'c'");
    T_TRUE(named);
    close_run(&r);
}

TEST(what_if_naming_nothing_suggests)
{
    tbuf b = { 0 };
    step(&b, 1, 0, 100);
    host(&b, 100, 0, 50, "input_wait", 0);
    run r;
    T_TRUE(open_run(&b, &r));
    if (!r.cp) return close_run(&r);
    sts_status st;
    sts_cp_prediction p = what_if(&r, "input_wiat=0.5", &st);
    T_EQ_I64(st, STS_ERR_INVALID_ARG);
    T_TRUE(strstr(p.change, "did you mean 'input_wait'") != NULL);
    what_if(&r, "input_wait=-1", &st);
    T_EQ_I64(st, STS_ERR_INVALID_ARG);
    what_if(&r, "input_wait", &st);
    T_EQ_I64(st, STS_ERR_INVALID_ARG);
    sts_cp_prediction q = what_if(&r, "input_wait=0x", &st);
    T_EQ_I64(st, STS_OK);
    T_EQ_I64(q.predicted_ns, 50 * US);
    close_run(&r);
}

/* ---- streams: device-side waits and syncs narrowed to their stream ----------------- */

/* Kineto's cuda_sync record on stream `s`'s lane, with its runtime call's correlation. */
static void sync_rec(tbuf *b, int s, double ts, double dur, const char *name, long corr, const char *more)
{
    kt_comma(b);
    putf(b,
         "{\"ph\":\"X\",\"cat\":\"cuda_sync\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%g,\"dur\":%g,\"args\":{"
         "\"stream\":%d,\"correlation\":%ld%s}}",
         name, s, ts, dur, s, corr, more);
}

/* Step [0,100) on one thread: launch [0,2) of kA on stream 7 [5,60); cudaEventRecord
 * [2,2.5) (corr 2); launch [2.5,3) of kA2 on stream 7 [60,70); cudaStreamWaitEvent [3,4)
 * (corr 3) with its record on stream 8 naming stream 7 (and, when `by_record`, the
 * event record's corr 2); launch [4,6) of kB on stream 8 [60,80); cudaDeviceSynchronize
 * [6,85); the step's own time [85,100). by_record 2: no record, the wait is a
 * hipStreamWaitEvent whose own args name both streams and the event record. */
static void wait_trace(tbuf *b, int by_record)
{
    kt_stream(b, 7);
    kt_stream(b, 8);
    step(b, 1, 0, 100);
    host(b, 100, 0, 2, "cudaLaunchKernel", 1);
    host(b, 100, 2, 0.5, "cudaEventRecord", 2);
    host(b, 100, 2.5, 0.5, "cudaLaunchKernel", 5);
    if (by_record == 2) {
        kt_comma(b);
        putf(b, "{\"ph\":\"X\",\"cat\":\"hip_runtime\",\"name\":\"hipStreamWaitEvent\",\"pid\":100,\"tid\":100,"
                "\"ts\":3,\"dur\":1,\"args\":{\"correlation\":3,\"stream\":8,\"wait_on_stream\":7,"
                "\"wait_on_cuda_event_record_corr_id\":2}}");
    } else
        host(b, 100, 3, 1, "cudaStreamWaitEvent", 3);
    host(b, 100, 4, 2, "cudaLaunchKernel", 4);
    host(b, 100, 6, 79, "cudaDeviceSynchronize", 0);
    dev(b, 7, 5, 55, "kA", 1);
    dev(b, 7, 60, 10, "kA2", 5);
    dev(b, 8, 60, 20, "kB", 4);
    if (by_record < 2)
        sync_rec(b, 8, 3.5, 0, "Stream Wait Event", 3,
                 by_record ? ",\"wait_on_stream\":7,\"wait_on_cuda_event_record_corr_id\":2" : ",\"wait_on_stream\":7");
}

TEST(stream_wait_event_joins_two_streams)
{
    /* The event was recorded after kA's launch and before kA2's: kB waits for kA. kB is
     * reached at its start through the wait (anchor 60 beats its launch's 4), so the
     * path runs launch delay [0,5), kA [5,60), kB [60,80), the sync's tail [80,85), the
     * step [85,100): launch 5, compute 75, sync 5, host 15. Without the edge kB would
     * hang on a 56 us launch delay. kA halved ends at 32.5; kB follows at once (the
     * launch edge waits for nothing extra: its anchor is 4), ends 52.5, the sync 5 later,
     * the step 15 after: 72.5. kA2 ends at 70, inside the sync but before kB. The same
     * from a hipStreamWaitEvent whose own args say it all (how 2). */
    for (int how = 1; how <= 2; how++) {
        tbuf b = { 0 };
        wait_trace(&b, how);
        run r;
        T_TRUE(open_run(&b, &r));
        if (!r.cp) {
            close_run(&r);
            continue;
        }
        check_path(&r);
        T_EQ_I64((int64_t)sts_critpath_get_counts(r.cp)->by_type[5], 1);
        T_EQ_I64((int64_t)sts_critpath_get_counts(r.cp)->backward, 0);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_LAUNCH), 5 * US);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_COMPUTE), 75 * US);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_SYNC), 5 * US);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_HOST), 15 * US);
        sts_status st;
        sts_cp_prediction p = what_if(&r, "kA=0.5", &st);
        T_EQ_I64(st, STS_OK);
        T_EQ_I64(p.predicted_ns, 72500);
        close_run(&r);
    }
}

TEST(stream_wait_without_its_event_record_takes_the_last_launch)
{
    /* No record correlation: the event is taken as recorded at the wait, so the source
     * is the last op launched on stream 7 by then: kA2, which ends at 70, after kB
     * started at 60. The trace contradicts that edge: dropped, counted, warned with both
     * ops named; the path is the one without it. */
    tbuf b = { 0 };
    wait_trace(&b, 0);
    run r;
    T_TRUE(open_run(&b, &r));
    if (!r.cp) return close_run(&r);
    check_path(&r);
    T_EQ_I64((int64_t)sts_critpath_get_counts(r.cp)->by_type[5], 0);
    T_EQ_I64((int64_t)sts_critpath_get_counts(r.cp)->backward, 1);
    size_t nw;
    const char *const *w = sts_critpath_warnings(r.cp, &nw);
    int named = 0;
    for (size_t i = 0; i < nw; i++)
        named |= strstr(w[i], "stream_wait") && strstr(w[i], "'kA2'") && strstr(w[i], "'kB'");
    T_TRUE(named);
    /* The walk reaches kB's start through its launch edge (anchor 4): the launch delay
     * [4,60), then the host before it: launch [0,2) and [2.5,3), the event record
     * [2,2.5) and the wait call [3,4) host. Launch 2 + 0.5 + 56 = 58.5, host
     * 0.5 + 1 + 15 = 16.5, compute 20 (kB), sync 5. */
    T_EQ_I64(kind_ns(&r, 0, STS_CP_LAUNCH), 58500);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_HOST), 16500);
    T_EQ_I64(kind_ns(&r, 0, STS_CP_COMPUTE), 20 * US);
    close_run(&r);
}

/* Step [0,100): launch [0,2) of kA on stream 7 [5,45); launch [2,4) of kB on stream 8
 * [6,40); cudaStreamSynchronize [4,50) (corr 9); the step's own time [50,100). how: 0
 * the sync's stream unknown, 1 Kineto's Stream Sync record names stream 8, 2 the call's
 * own stream arg does. */
static void narrowed_trace(tbuf *b, int how)
{
    kt_stream(b, 7);
    kt_stream(b, 8);
    step(b, 1, 0, 100);
    host(b, 100, 0, 2, "cudaLaunchKernel", 1);
    host(b, 100, 2, 2, "cudaLaunchKernel", 2);
    if (how == 2) {
        kt_comma(b);
        putf(b, "{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaStreamSynchronize\",\"pid\":100,\"tid\":100,"
                "\"ts\":4,\"dur\":46,\"args\":{\"correlation\":9,\"stream\":8}}");
    } else
        host(b, 100, 4, 46, "cudaStreamSynchronize", 9);
    dev(b, 7, 5, 40, "kA", 1);
    dev(b, 8, 6, 34, "kB", 2);
    if (how == 1) sync_rec(b, 8, 4.5, 45, "Stream Sync", 9, "");
}

TEST(stream_sync_waits_only_for_its_stream)
{
    /* Narrowed to stream 8, the sync waited for kB (end 40): sync_wait [40,50) 10, kB
     * [6,40) compute 34, its launch delay [2,6) and the first launch [0,2): launch 6,
     * host 50. Unnarrowed it waited for kA too, which ended last (45): sync_wait 5, kA
     * compute 40, launch delay [0,5) 5, host 50. Narrowed, halving kA changes nothing;
     * halving kB ends it at 23, the sync at 33, the step at 83. */
    /* the keys are kept only when asked for */
    T_TRUE(sts_args_mode_keeps((sts_args_mode)(STS_ARGS_ANALYSIS | STS_ARGS_WITH_STREAMS), "wait_on_stream", 14));
    T_TRUE(!sts_args_mode_keeps(STS_ARGS_ANALYSIS, "wait_on_stream", 14));
    T_TRUE(!sts_args_mode_keeps(STS_ARGS_ANALYSIS, "stream", 6));
    for (int how = 0; how < 3; how++) {
        tbuf b = { 0 };
        narrowed_trace(&b, how);
        run r;
        T_TRUE(open_run(&b, &r));
        if (!r.cp) {
            close_run(&r);
            continue;
        }
        check_path(&r);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_HOST), 50 * US);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_SYNC), (how ? 10 : 5) * US);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_COMPUTE), (how ? 34 : 40) * US);
        T_EQ_I64(kind_ns(&r, 0, STS_CP_LAUNCH), (how ? 6 : 5) * US);
        T_EQ_I64((int64_t)sts_critpath_get_counts(r.cp)->by_type[3], how ? 1 : 2);
        if (how) {
            sts_status st;
            T_EQ_I64(what_if(&r, "kA=0.5", &st).predicted_ns, 100 * US);
            T_EQ_I64(what_if(&r, "kB=0.5", &st).predicted_ns, 83 * US);
        }
        close_run(&r);
    }
}

/* ---- property test -------------------------------------------------------------------- */

static rng cp_rng = { 0x9e3779b97f4a7c15u };
static unsigned rnd(unsigned n)
{
    return (unsigned)below(&cp_rng, n);
}

static int by_ns_then_name(const void *a, const void *b)
{
    const int64_t *x = a, *y = b; /* {ns, name id} */
    if (x[0] != y[0]) return x[0] > y[0] ? -1 : 1;
    return x[1] < y[1] ? -1 : x[1] > y[1];
}

static int by_prediction(const void *a, const void *b)
{
    const sts_cp_prediction *x = a, *y = b;
    if (x->predicted_ns != y->predicted_ns) return x->predicted_ns < y->predicted_ns ? -1 : 1;
    return strcmp(x->change, y->change);
}

/* NAME=FACTOR through an anchored, escaped regex: the same nodes scaled, but a matcher
 * the what-if's shortcuts for one name (a step off the path kept as observed) do not
 * take, so every step with a scaled node is replayed in full. */
static sts_cp_prediction what_if_by_regex(run *r, const char *name, const char *factor, sts_status *st)
{
    char c[300] = "^";
    size_t at = 1;
    for (const char *q = name; *q && at + 8 < sizeof c; q++) {
        if (strchr(".[]()*+?{}|^$\\", *q)) c[at++] = '\\';
        c[at++] = *q;
    }
    snprintf(c + at, sizeof c - at, "$=%s", factor);
    sts_cp_prediction p = what_if(r, c, st);
    snprintf(p.change, sizeof p.change, "%s=%s", name, factor);
    return p;
}

/* top=N against its definition, every candidate replayed in full: the names on the
 * paths by their time there (most first), the first min(4N, 64) of them halved one at a
 * time (what_if_by_regex), the N least predicted totals. */
static void top_matches_full_replays(run *r, size_t top)
{
    size_t niv, npred;
    const sts_cp_interval *iv = sts_critpath_intervals(r->cp, &niv);
    const sts_slice *sl = sts_timeline_slices(r->tl, NULL);
    int64_t(*c)[2] = calloc(niv ? niv : 1, sizeof *c);
    size_t nc = 0;
    for (size_t i = 0; i < niv; i++) {
        if (iv[i].slice == STS_NONE) continue;
        size_t j = 0;
        while (j < nc && c[j][1] != sl[iv[i].slice].name)
            j++;
        if (j == nc) c[nc][0] = 0, c[nc++][1] = sl[iv[i].slice].name;
        c[j][0] += iv[i].dur_ns;
    }
    qsort(c, nc, sizeof *c, by_ns_then_name);
    size_t n0 = 0;
    sts_critpath_predictions(r->cp, &n0);
    size_t kept = sts_critpath_what_if_top(r->cp, top);
    size_t ntry = nc < 4 * top ? nc : 4 * top;
    sts_cp_prediction *plain = calloc(ntry ? ntry : 1, sizeof *plain);
    size_t ok = 0;
    for (size_t i = 0; i < ntry; i++) {
        sts_status st;
        plain[ok] = what_if_by_regex(r, sts_timeline_string(r->tl, (uint32_t)c[i][1]), "0.5", &st);
        if (st == STS_OK) ok++;
    }
    qsort(plain, ok, sizeof *plain, by_prediction);
    const sts_cp_prediction *fast = sts_critpath_predictions(r->cp, &npred) + n0;
    T_EQ_I64((int64_t)kept, (int64_t)(ok < top ? ok : top));
    for (size_t i = 0; i < kept && i < ok; i++) {
        T_EQ_STR(fast[i].change, plain[i].change);
        T_EQ_I64(fast[i].predicted_ns, plain[i].predicted_ns);
        T_EQ_I64(fast[i].predicted_step_ns, plain[i].predicted_step_ns);
        T_EQ_I64((int64_t)fast[i].matched, (int64_t)plain[i].matched);
        T_EQ_I64(fast[i].path_moved, plain[i].path_moved);
        T_TRUE(fast[i].min_pct == plain[i].min_pct && fast[i].max_pct == plain[i].max_pct);
    }
    free(plain), free(c);
}

TEST(random_graphs_keep_the_invariants)
{
    uint64_t stream_waits = 0;
    for (int iter = 0; iter < 40; iter++) {
        tbuf b = { 0 };
        kt_stream(&b, 7);
        kt_stream(&b, 8);
        long corr = 1;
        int nsteps = 1 + (int)rnd(3);
        for (int k = 0; k < nsteps; k++) {
            double t0 = k * 1000.0, t = t0;
            step(&b, k, t0, 1000);
            int dev_t[2] = { (int)t0, (int)t0 };
            while (t < t0 + 900) {
                double d = 1 + rnd(40);
                unsigned what = rnd(4);
                const char *nm = what == 0   ? "cudaLaunchKernel"
                                 : what == 1 ? "cudaStreamSynchronize"
                                 : rnd(2)    ? "op_a"
                                             : "op_b";
                long sync_corr = what == 1 && rnd(2) ? 200000 + corr : 0;
                host(&b, 100, t, d, nm, what == 0 ? corr : sync_corr);
                if (sync_corr) /* Kineto's record: the sync narrowed to one stream */
                    sync_rec(&b, 7 + (int)rnd(2), t, d, "Stream Sync", sync_corr, "");
                if (rnd(6) == 0) { /* a device-side wait, the event taken as recorded at it */
                    int s = (int)rnd(2);
                    sync_rec(&b, 7 + s, t, 0, "Stream Wait Event", 300000 + corr,
                             s ? ",\"wait_on_stream\":7" : ",\"wait_on_stream\":8");
                }
                if (what == 0) {
                    int s = (int)rnd(2);
                    double ds = t + rnd(20) > dev_t[s] ? t + rnd(20) : dev_t[s];
                    double dd = 1 + rnd(60);
                    dev(&b, 7 + s, ds, dd, rnd(2) ? "kern_x" : "kern_y", corr++);
                    dev_t[s] = (int)(ds + dd);
                }
                if (rnd(3) == 0) host(&b, 200, t, d, "worker", 0);
                if (rnd(8) == 0) {
                    flow(&b, 's', (int)corr + 100000, 200, t);
                    flow(&b, 'f', (int)corr + 100000, 100, t + d + rnd(10));
                }
                t += d + rnd(5);
            }
        }
        run r;
        T_TRUE(open_run(&b, &r));
        if (!r.cp) {
            close_run(&r);
            continue;
        }
        check_path(&r);
        stream_waits += sts_critpath_get_counts(r.cp)->by_type[5];
        const char *names[] = { "op_a", "kern_x", "kern_y", "cudaStreamSynchronize", "worker" };
        for (size_t i = 0; i < 5; i++) {
            char c[64];
            sts_status st;
            snprintf(c, sizeof c, "%s=1", names[i]);
            sts_cp_prediction one = what_if(&r, c, &st);
            if (st != STS_OK) continue; /* the name did not occur */
            T_EQ_I64(one.predicted_ns, one.original_ns);
            snprintf(c, sizeof c, "%s=0.5", names[i]);
            sts_cp_prediction half = what_if(&r, c, &st);
            T_TRUE(half.predicted_ns <= half.original_ns); /* shrinking never lengthens */
            snprintf(c, sizeof c, "%s=0", names[i]);
            sts_cp_prediction zero = what_if(&r, c, &st);
            T_TRUE(zero.predicted_ns <= half.predicted_ns);
            const char *fs[] = { "0.5", "0", "2" };
            for (size_t f = 0; f < 3; f++) { /* one name's shortcuts against full replays */
                snprintf(c, sizeof c, "%s=%s", names[i], fs[f]);
                sts_cp_prediction a = what_if(&r, c, &st), full = what_if_by_regex(&r, names[i], fs[f], &st);
                T_EQ_I64(a.predicted_ns, full.predicted_ns);
                T_EQ_I64(a.predicted_step_ns, full.predicted_step_ns);
                T_EQ_I64((int64_t)a.matched, (int64_t)full.matched);
                T_EQ_I64(a.path_moved, full.path_moved);
            }
        }
        top_matches_full_replays(&r, 1 + rnd(3));
        close_run(&r);
    }
    T_TRUE(stream_waits > 0); /* the new edges were exercised */
}

/* ---- the real fixtures ----------------------------------------------------------------- */

TEST(kineto_fixtures_tile_their_steps)
{
    const char *dir = getenv("STEPSCOPE_FIXTURES");
    const char *names[] = { "simple_add_flows.json.gz", "h100_bert_small.json.gz", "profiler_steps_rank0.json.gz",
                            "ns_resolution_rank0.json.gz" };
    char path[1024];
    int any = 0;
    for (size_t i = 0; i < 4; i++) {
        snprintf(path, sizeof path, "%s/traces/kineto/%s", dir ? dir : "/work/shared/fixtures", names[i]);
        if (access(path, R_OK)) continue;
        any = 1;
        run r;
        memset(&r, 0, sizeof r);
        sts_open_options o = STS_OPEN_OPTIONS_INIT;
        o.args = STS_ARGS_ANALYSIS;
        o.flows = STS_FLOWS_KEEP;
        sts_error err = STS_ERROR_INIT;
        sts_step_options so = STS_STEP_OPTIONS_INIT;
        sts_devview_options vo = STS_DEVVIEW_OPTIONS_INIT;
        int ok = sts_timeline_open(path, &o, &r.tl, &err) == STS_OK && sts_steps_find(r.tl, &so, &r.s, &err) == STS_OK;
        vo.steps = r.s;
        ok = ok && sts_devview_compute(r.tl, &vo, &r.dv, &err) == STS_OK &&
             sts_critpath_compute(r.tl, r.s, r.dv, &r.cp, &err) == STS_OK;
        T_TRUE(ok);
        if (ok) check_path(&r);
        close_run(&r);
    }
    if (!any) T_SKIP("no Kineto fixtures");
}

int main(void)
{
    RUN(host_bound_step);
    RUN(device_bound_step_and_sync_wait);
    RUN(two_streams_the_later_binds);
    RUN(cycle_from_bad_flows_is_broken_and_warned);
    RUN(what_if_naming_nothing_suggests);
    RUN(stream_wait_event_joins_two_streams);
    RUN(stream_wait_without_its_event_record_takes_the_last_launch);
    RUN(stream_sync_waits_only_for_its_stream);
    RUN(random_graphs_keep_the_invariants);
    RUN(kineto_fixtures_tile_their_steps);
    return t_done();
}
