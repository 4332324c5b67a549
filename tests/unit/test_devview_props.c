/* Property tests of the device view over thousands of random Kineto-shaped traces: up
 * to two GPUs with up to three streams each, ops of every category (and annotations the
 * rules ignore) that overlap across streams, launches early, late and after their op
 * starts, ops with no correlation id and ids that point nowhere, and steps or none.
 * Every number of every window is checked against a brute force computed here from the
 * definitions in stepscope/devview.h, instant by instant (every time in the traces is a
 * whole microsecond, so each microsecond is one instant), and every invariant:
 *   the exclusive times add up to busy; busy plus idle is the window; every union is at
 *   most busy; overlap plus exposed is the communication; the idle causes add up to idle;
 *   what the trace cannot tell is flagged unknown; each union at least its exclusive
 *   time, the overlap inside both unions, the memcpy directions inside memcpy's union,
 *   the delays ordered (not >= 0: clocks may disagree), the queue's mean inside [0, max];
 *   disjoint steps never holding more busy time or op starts than the device's span. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope.h"
#include "stepscope/devview.h"
#include "json_gen.h"
#include "test.h"

/* What each op name is, as the built-in rules decide it: the brute force's own table. */
static const struct {
    const char *name, *cat;
    int category, dir; /* dir for memcpy; category -1: ignored */
} KINDS[] = {
    { "gemm", "kernel", STS_DV_COMPUTE, 0 },
    { "elementwise", "kernel", STS_DV_COMPUTE, 0 },
    { "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", STS_DV_COMMUNICATION, 0 },
    { "ncclKernel_Generic", "kernel", STS_DV_COMMUNICATION, 0 },
    { "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", STS_DV_MEMCPY, STS_DV_HTOD },
    { "Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", STS_DV_MEMCPY, STS_DV_DTOH },
    { "Memcpy DtoD (Device -> Device)", "gpu_memcpy", STS_DV_MEMCPY, STS_DV_DTOD },
    { "Memset (Device)", "gpu_memset", STS_DV_MEMSET, 0 },
    { "ProfilerStep#9", "gpu_user_annotation", -1, 0 },
    { "misc", "kernel", STS_DV_OTHER, 0 }, /* by the rule put before the built-in table */
};
#define NKINDS (sizeof KINDS / sizeof KINDS[0])

/* One random trace: ops on GPUs 0 and 1, their launches on two host threads, and
 * maybe steps on a third. Returns the number of steps. */
static int random_trace(rng *r, tbuf *b)
{
    int ndev = 1 + (int)below(r, 2), nops = 1 + (int)below(r, 30), nsteps = (int)below(r, 4);
    /* Now and then more ops than the view sorts by insertion (32 delays in a window). */
    if (below(r, 8) == 0) nops = 33 + (int)below(r, 90);
    putf(b, "{\"traceEvents\":[\n");
    /* One fractional timestamp makes the resolution 1 ns, so no op is clamped. */
    putf(b, "{\"ph\":\"X\",\"name\":\"frac\",\"pid\":100,\"tid\":300,\"ts\":0.5,\"dur\":1}");
    for (int d = 0; d < ndev; d++)
        for (int s = 0; s < 3; s++)
            putf(b,
                 ",\n{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"stream %d \"}}",
                 d, 7 + s, 7 + s);
    for (int i = 0; i < nops; i++) {
        int d = (int)below(r, ndev), s = 7 + (int)below(r, 3);
        size_t k = (size_t)below(r, NKINDS);
        int64_t ts = below(r, 60), dur = below(r, 5) == 0 ? 0 : 1 + below(r, 15);
        int link = (int)below(r, 10); /* 0: no id, 1: id pointing nowhere, else a launch */
        long corr = 1000 + i;
        putf(b, ",\n{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%lld,\"dur\":%lld",
             KINDS[k].cat, KINDS[k].name, d, s, (long long)ts, (long long)dur);
        if (link) putf(b, ",\"args\":{\"correlation\":%ld}", link == 1 ? corr + 100000 : corr);
        putf(b, "}");
        if (link >= 2) {
            /* Mostly before the op, sometimes after it started (a skewed clock). */
            int64_t at = ts - below(r, 20) + (below(r, 8) == 0 ? 3 : 0);
            putf(
                b,
                ",\n{\"ph\":\"X\",\"cat\":\"cuda_runtime\",\"name\":\"cudaLaunchKernel\",\"pid\":100,\"tid\":%d,\"ts\":"
                "%lld,"
                "\"dur\":1,\"args\":{\"correlation\":%ld}}",
                100 + (int)below(r, 2), (long long)at, corr);
        }
    }
    int64_t t = below(r, 10);
    for (int k = 0; k < nsteps; k++) {
        int64_t dur = 1 + below(r, 30);
        putf(b, ",\n{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"pid\":100,\"tid\":200,\"ts\":%lld,\"dur\":%lld}",
             k + 1, (long long)t, (long long)dur);
        t += dur + below(r, 5);
    }
    putf(b, "]}");
    return nsteps;
}

/* ---- the brute force ----------------------------------------------------------------- */

typedef struct bop {
    int64_t start, end, launch; /* us */
    int device, category, dir, linked;
} bop;

typedef struct brute {
    bop ops[128];
    int n;
    int64_t pid_of_device[2];
    int ndev;
} brute;

static const sts_arg *arg(const sts_timeline *tl, const sts_slice *s, const char *key)
{
    return sts_timeline_find_arg(tl, s->args, key);
}

/* The ops as the timeline holds them, categorized by the table above and linked by a
 * plain search of the host slices. */
static void brute_ops(const sts_timeline *tl, brute *bf)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    memset(bf, 0, sizeof *bf);
    for (size_t i = 0; i < n; i++) {
        const char *pid = sts_lane_pid(tl, s[i].lane);
        if (strcmp(pid, "0") != 0 && strcmp(pid, "1") != 0) continue;
        const char *name = sts_timeline_string(tl, s[i].name);
        size_t k = 0;
        while (k < NKINDS && strcmp(KINDS[k].name, name) != 0)
            k++;
        if (k == NKINDS || KINDS[k].category < 0) continue;
        bop *o = &bf->ops[bf->n++];
        o->start = s[i].ts / 1000;
        o->end = (s[i].ts + s[i].dur) / 1000;
        o->device = atoi(pid);
        o->category = KINDS[k].category;
        o->dir = KINDS[k].dir;
        const sts_arg *c = arg(tl, &s[i], "correlation");
        for (size_t h = 0; c && h < n; h++) {
            const char *hp = sts_lane_pid(tl, s[h].lane);
            const sts_arg *hc = strcmp(hp, "100") == 0 ? arg(tl, &s[h], "correlation") : NULL;
            if (hc && hc->v.i == c->v.i) {
                o->linked = 1;
                o->launch = s[h].ts / 1000;
                break;
            }
        }
    }
}

static int cmp_i64(const void *a, const void *b)
{
    int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;
    return (x > y) - (x < y);
}

/* The bounds every window keeps, apart from the brute force: nothing negative but a
 * delay (clocks may disagree, docs/device.md); each union at least its exclusive time
 * and the busy time between the largest union and their sum; the overlap inside both
 * unions it joins; each memcpy direction inside memcpy's union, and their sum at least
 * it; the delays ordered; the queue's mean inside [0, max]. */
static int bounds_hold(const sts_devview_window *x)
{
    int bad = x->window_ns < 0 || x->busy_ns < 0 || x->idle_ns < 0 || x->overlap_ns < 0 || x->exposed_ns < 0 ||
              x->host_wait_ns < 0 || x->kernel_wait_ns < 0 || x->other_idle_ns < 0;
    int64_t most = 0, sum = 0, dirs = 0;
    for (int c = 0; c < STS_DV_CATEGORIES; c++) {
        bad |= x->exclusive_ns[c] < 0 || x->union_ns[c] < x->exclusive_ns[c];
        most = x->union_ns[c] > most ? x->union_ns[c] : most;
        sum += x->union_ns[c];
    }
    bad |= x->busy_ns < most || x->busy_ns > sum;
    bad |= x->overlap_ns > x->union_ns[STS_DV_COMPUTE] || x->overlap_ns > x->union_ns[STS_DV_COMMUNICATION];
    for (int d = 0; d < STS_DV_DIRECTIONS; d++) {
        bad |= x->memcpy_ns[d] < 0 || x->memcpy_ns[d] > x->union_ns[STS_DV_MEMCPY];
        dirs += x->memcpy_ns[d];
    }
    bad |= dirs < x->union_ns[STS_DV_MEMCPY];
    if (x->known & STS_DEVVIEW_KNOWN_DELAY)
        bad |= x->delay_median_ns > x->delay_p90_ns || x->delay_p90_ns > x->delay_max_ns;
    if (x->known & STS_DEVVIEW_KNOWN_QUEUE)
        bad |= x->queue_max < 0 || x->queue_mean < 0 || x->queue_mean > (double)x->queue_max + 1e-9;
    if (bad) fprintf(stderr, "  a window's bounds do not hold (step %u, device %u)\n", x->step, x->device);
    return bad;
}

/* Window [w0, w1) us of device `dev`, as the definitions say, against x. */
static int check_against(const brute *bf, int dev, int64_t w0, int64_t w1, const sts_devview_window *x, int known_split)
{
    int64_t uni[STS_DV_CATEGORIES] = { 0 }, excl[STS_DV_CATEGORIES] = { 0 }, dirs[STS_DV_DIRECTIONS] = { 0 };
    int64_t busy = 0, idle = 0, hw = 0, kw = 0, other = 0, overlap = 0, exposed = 0, qsum = 0, qmax = 0;
    for (int64_t t = w0; t < w1; t++) {
        int run[STS_DV_CATEGORIES] = { 0 }, rdir[STS_DV_DIRECTIONS] = { 0 };
        int64_t pending = 0, next_start = INT64_MAX;
        int next_all_linked = 1;
        for (int i = 0; i < bf->n; i++) {
            const bop *o = &bf->ops[i];
            if (o->device != dev) continue;
            if (o->start <= t && t < o->end) {
                run[o->category] = 1;
                if (o->category == STS_DV_MEMCPY) rdir[o->dir] = 1;
            }
            if (o->linked && o->launch <= t && t < o->start) pending++;
            if (o->start > t) {
                if (o->start < next_start) {
                    next_start = o->start;
                    next_all_linked = o->linked;
                } else if (o->start == next_start) {
                    next_all_linked &= o->linked;
                }
            }
        }
        int any = 0;
        for (int c = 0; c < STS_DV_CATEGORIES; c++) {
            uni[c] += run[c];
            if (run[c] && !any) excl[c]++;
            any |= run[c];
        }
        for (int d = 0; d < STS_DV_DIRECTIONS; d++)
            dirs[d] += rdir[d];
        busy += any;
        overlap += run[STS_DV_COMPUTE] && run[STS_DV_COMMUNICATION];
        exposed += !run[STS_DV_COMPUTE] && run[STS_DV_COMMUNICATION];
        if (!any) {
            idle++;
            if (pending)
                kw++;
            else if (next_start != INT64_MAX && next_all_linked)
                hw++;
            else
                other++;
        }
        qsum += pending;
        if (pending > qmax) qmax = pending;
    }
    int bad = 0;
#define SAME(a, b)                                                                                                  \
    do {                                                                                                            \
        if ((int64_t)(a) != (int64_t)(b)) {                                                                         \
            fprintf(stderr, "  device %d window [%lld,%lld) us: %s = %lld, brute force %lld\n", dev, (long long)w0, \
                    (long long)w1, #a, (long long)(a), (long long)(b));                                             \
            bad = 1;                                                                                                \
        }                                                                                                           \
    } while (0)
    SAME(x->window_ns, (w1 - w0) * 1000);
    SAME(x->busy_ns, busy * 1000);
    SAME(x->idle_ns, idle * 1000);
    for (int c = 0; c < STS_DV_CATEGORIES; c++) {
        SAME(x->union_ns[c], uni[c] * 1000);
        SAME(x->exclusive_ns[c], excl[c] * 1000);
    }
    for (int d = 0; d < STS_DV_DIRECTIONS; d++)
        SAME(x->memcpy_ns[d], dirs[d] * 1000);
    SAME(x->overlap_ns, overlap * 1000);
    SAME(x->exposed_ns, exposed * 1000);
    SAME(!!(x->known & STS_DEVVIEW_KNOWN_IDLE_SPLIT), known_split);
    SAME(!!(x->known & STS_DEVVIEW_KNOWN_QUEUE), known_split);
    if (known_split) {
        SAME(x->host_wait_ns, hw * 1000);
        SAME(x->kernel_wait_ns, kw * 1000);
        SAME(x->other_idle_ns, other * 1000);
        SAME(x->queue_max, qmax);
        double mean = w1 > w0 ? (double)qsum / (double)(w1 - w0) : 0;
        if (x->queue_mean < mean - 1e-9 * (1 + mean) || x->queue_mean > mean + 1e-9 * (1 + mean)) {
            fprintf(stderr, "  queue mean %g, brute force %g\n", x->queue_mean, mean);
            bad = 1;
        }
    } else {
        SAME(x->other_idle_ns, idle * 1000);
    }
    /* Launches of the ops starting in the window. */
    int64_t delays[128];
    int nd = 0, unmatched = 0;
    for (int i = 0; i < bf->n; i++) {
        const bop *o = &bf->ops[i];
        int in = o->device == dev && w0 <= o->start && (o->start < w1 || (x->step == STS_NONE));
        if (!in) continue;
        if (o->linked)
            delays[nd++] = (o->start - o->launch) * 1000;
        else
            unmatched++;
    }
    SAME(x->matched, nd);
    SAME(x->unmatched, unmatched);
    SAME(!!(x->known & STS_DEVVIEW_KNOWN_DELAY), nd > 0);
    if (nd) {
        qsort(delays, (size_t)nd, sizeof *delays, cmp_i64);
        int64_t a = delays[(nd - 1) / 2], b2 = delays[nd / 2];
        int64_t median = a + (b2 - a) / 2;
        size_t p90 = 0;
        while ((p90 + 1) * 10 < (size_t)nd * 9) /* the smallest index with >= 90% at or below */
            p90++;
        SAME(x->delay_median_ns, median);
        SAME(x->delay_p90_ns, delays[p90]);
        SAME(x->delay_max_ns, delays[nd - 1]);
    }
    /* The invariants, whatever the brute force says. */
    int64_t sum = 0;
    for (int c = 0; c < STS_DV_CATEGORIES; c++) {
        sum += x->exclusive_ns[c];
        if (x->union_ns[c] > x->busy_ns) bad = 1;
    }
    SAME(sum, x->busy_ns);
    SAME(x->busy_ns + x->idle_ns, x->window_ns);
    SAME(x->host_wait_ns + x->kernel_wait_ns + x->other_idle_ns, x->idle_ns);
    SAME(x->overlap_ns + x->exposed_ns, x->union_ns[STS_DV_COMMUNICATION]);
    if (x->busy_ns > x->window_ns) bad = 1;
    bad |= bounds_hold(x);
#undef SAME
    return bad;
}

static int device_of(const sts_timeline *tl, const sts_devview *v, uint32_t d)
{
    const sts_process *p = &sts_timeline_processes(tl, NULL)[sts_devview_devices(v, NULL)[d].process];
    return atoi(sts_timeline_string(tl, p->label));
}

static int check_trace(const sts_timeline *tl, const sts_devview_rules *rules, int with_steps)
{
    brute bf;
    brute_ops(tl, &bf);
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    if (with_steps && sts_steps_find(tl, NULL, &s, &err) != STS_OK) return 1;
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    o.steps = s;
    o.rules = rules;
    sts_devview *v = NULL;
    if (sts_devview_compute(tl, &o, &v, &err) != STS_OK) {
        sts_steps_free(s);
        return 1;
    }
    size_t nd, nw, nst = 0;
    const sts_devview_device *dv = sts_devview_devices(v, &nd);
    const sts_devview_window *w = sts_devview_windows(v, &nw);
    const sts_step *st = s ? sts_steps_list(s, &nst) : NULL;
    int bad = 0;
    /* Which devices have ops, and which of them linked ones. */
    int has[2] = { 0 }, linked[2] = { 0 };
    for (int i = 0; i < bf.n; i++) {
        has[bf.ops[i].device] = 1;
        linked[bf.ops[i].device] |= bf.ops[i].linked;
    }
    if (nd != (size_t)(has[0] + has[1])) bad = 1;
    for (size_t d = 0; d < nd && !bad; d++) {
        int dev = device_of(tl, v, (uint32_t)d);
        if (d && device_of(tl, v, (uint32_t)(d - 1)) >= dev) bad = 1; /* display order: by pid */
        int64_t lo = INT64_MAX, hi = INT64_MIN;
        for (int i = 0; i < bf.n; i++)
            if (bf.ops[i].device == dev) {
                if (bf.ops[i].start < lo) lo = bf.ops[i].start;
                if (bf.ops[i].end > hi) hi = bf.ops[i].end;
            }
        if (dv[d].start_ns != lo * 1000 || dv[d].end_ns != hi * 1000) bad = 1;
        /* The span window, with or without steps; without, it is the window too. */
        const sts_devview_window *span = &sts_devview_span_windows(v, NULL)[d];
        bad |= check_against(&bf, dev, lo, hi, span, linked[dev]);
        if (!nst) {
            if (&w[d] != span) bad = 1;
            continue;
        }
        int disjoint = 1;
        int64_t busy = 0;
        uint64_t ops = 0;
        for (size_t k = 0; k < nst && !bad; k++) {
            bad |= check_against(&bf, dev, st[k].ts / 1000, (st[k].ts + st[k].dur) / 1000, &w[k * nd + d], linked[dev]);
            disjoint &= k == 0 || st[k].ts >= st[k - 1].ts + st[k - 1].dur;
            busy += w[k * nd + d].busy_ns;
            ops += w[k * nd + d].matched + w[k * nd + d].unmatched;
        }
        /* Disjoint steps hold each busy instant and each op start once at most: no
         * step adds its device's time twice. */
        if (disjoint && (busy > span->busy_ns || ops > span->matched + span->unmatched)) {
            fprintf(stderr, "  device %d: the disjoint steps' busy %lld exceeds the span's %lld\n", dev,
                    (long long)busy, (long long)span->busy_ns);
            bad = 1;
        }
    }
    if (nw != (nst ? nst * nd : nd)) bad = 1;
    /* Every op once in the launches, its delay start - launch. */
    size_t nl;
    const sts_devview_launch *L = sts_devview_launches(v, &nl);
    if (nl != (size_t)bf.n) bad = 1;
    const sts_slice *sl = sts_timeline_slices(tl, NULL);
    for (size_t i = 0; i < nl && !bad; i++)
        if (L[i].host_slice != STS_NONE && L[i].delay_ns != sl[L[i].device_slice].ts - sl[L[i].host_slice].ts) bad = 1;
    sts_devview_free(v);
    sts_steps_free(s);
    return bad;
}

TEST(random_traces_match_the_definitions)
{
    rng r = { 0x5eed1234abcdULL };
    /* The built-in table, and before it a rule making "misc" other. */
    tbuf text = { 0 };
    putf(&text, "other name is misc\n%s", sts_devview_rules_builtin_text());
    sts_devview_rules *rules = NULL;
    sts_error rerr = STS_ERROR_INIT;
    T_EQ_I64(sts_devview_rules_parse(text.p, text.n, "props", &rules, &rerr), STS_OK);
    free(text.p);
    int traces = 0, with_steps = 0, failures = 0;
    for (int i = 0; i < 3000 && failures < 3; i++) {
        tbuf b = { 0 };
        int nsteps = random_trace(&r, &b);
        sts_open_options o = STS_OPEN_OPTIONS_INIT;
        o.args = STS_ARGS_ANALYSIS;
        sts_timeline *tl = NULL;
        sts_error err = STS_ERROR_INIT;
        if (sts_timeline_open_mem(b.p, b.n, "random", &o, &tl, &err) != STS_OK) {
            T_FAIL_AT("trace %d does not read: %s", i, err.message);
            free(b.p);
            failures++;
            continue;
        }
        int bad = check_trace(tl, rules, 0) || (nsteps && check_trace(tl, rules, 1));
        if (bad) {
            T_FAIL_AT("trace %d disagrees with the brute force:\n%.*s", i, (int)b.n, b.p);
            failures++;
        }
        traces++;
        with_steps += nsteps > 0;
        sts_timeline_free(tl);
        free(b.p);
    }
    sts_devview_rules_free(rules);
    printf("  %d random traces, %d with steps\n", traces, with_steps);
    T_TRUE(traces >= 3000);
    T_TRUE(with_steps > 1000);
}

int main(void)
{
    RUN(random_traces_match_the_definitions);
    return t_done();
}
