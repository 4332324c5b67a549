/* Unit tests of lib/hosts: host sets, per-host records, their exact merge and
 * serialization, steps aligned across hosts with their stragglers, device lanes and
 * collectives, and exact medians over values spread across participants. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stepscope.h"
#include "stepscope/hosts.h"
#include "test.h"

/* ---- helpers ---------------------------------------------------------------------- */

static uint64_t rng_state = 88172645463325252u;

static uint64_t rnd(void)
{
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}

typedef struct text {
    char *p;
    size_t n, cap;
} text;

static void add(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void add(text *t, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char buf[512];
    int n = vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (t->n + (size_t)n + 1 > t->cap) {
        t->cap = (t->n + (size_t)n + 1) * 2;
        t->p = realloc(t->p, t->cap);
    }
    memcpy(t->p + t->n, buf, (size_t)n + 1);
    t->n += (size_t)n;
}

/* A host's trace: steps (step_num args) on pid 1 tid 1, each with children `input`
 * and `work` of the given durations (us), and a device lane (pid 2 "/device:GPU:0")
 * running an all-reduce of coll[s] us at the start of work. */
static sts_timeline *host_trace(int steps, const int *input, const int *work, const int *coll)
{
    text t = { NULL, 0, 0 };
    add(&t,
        "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":2,\"args\":{\"name\":\"/device:GPU:0\"}}");
    long at = 1000;
    for (int s = 0; s < steps; s++) {
        long dur = 10 + input[s] + work[s];
        add(&t,
            ",{\"ph\":\"X\",\"name\":\"step\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%ld,\"args\":{\"step_num\":%d}}",
            at, dur, s);
        add(&t, ",{\"ph\":\"X\",\"name\":\"input\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%d}", at + 5, input[s]);
        add(&t, ",{\"ph\":\"X\",\"name\":\"work\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%d}", at + 5 + input[s],
            work[s]);
        if (coll && coll[s])
            add(&t, ",{\"ph\":\"X\",\"name\":\"all-reduce.7\",\"pid\":2,\"tid\":3,\"ts\":%ld,\"dur\":%d}",
                at + 5 + input[s], coll[s]);
        at += dur + 100;
    }
    add(&t, "]}");
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open_mem(t.p, t.n, "mem.json", NULL, &tl, &err) != STS_OK)
        fprintf(stderr, "host_trace: %s\n", err.message);
    free(t.p);
    return tl;
}

/* A Kineto-shaped trace with memory: `steps` ProfilerStep#k on pid 1 tid 1, each with an
 * aten::empty that allocates 1000 * (k + 1) bytes twice and frees the first, on cuda:0,
 * from 500 bytes in use before the capture. Read with the memory keys kept. */
static sts_timeline *mem_trace(int steps)
{
    text t = { NULL, 0, 0 };
    add(&t, "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":"
            "{\"name\":\"main\"}}");
    long total = 500, addr = 4096;
    for (int k = 0; k < steps; k++) {
        long at = 1000L * (k + 1);
        add(&t, ",{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":900}", k, at);
        add(&t, ",{\"ph\":\"X\",\"name\":\"aten::empty\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":100}", at + 10);
        const long ev[3][3] = { { 20, addr, 1000L * (k + 1) },
                                { 30, addr + 8, 1000L * (k + 1) },
                                { 40, addr, -1000L * (k + 1) } };
        for (int e = 0; e < 3; e++) {
            total += ev[e][2];
            add(&t,
                ",{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"args\":"
                "{\"Device Type\":1,\"Device Id\":0,\"Addr\":%ld,\"Bytes\":%ld,\"Total Allocated\":%ld}}",
                at + ev[e][0], ev[e][1], ev[e][2], total);
        }
        addr += 16;
    }
    add(&t, "]}");
    sts_open_options oo = STS_OPEN_OPTIONS_INIT;
    oo.args = (sts_args_mode)((unsigned)STS_ARGS_KNOWN | STS_ARGS_WITH_MEMORY);
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open_mem(t.p, t.n, "mem.json", &oo, &tl, &err) != STS_OK)
        fprintf(stderr, "mem_trace: %s\n", err.message);
    free(t.p);
    return tl;
}

/* A random trace: a few lanes of nested X slices named from a small pool. */
static sts_timeline *random_trace(int events)
{
    static const char *const names[] = { "a", "b", "c", "d", "e" };
    text t = { NULL, 0, 0 };
    add(&t, "[");
    for (int i = 0; i < events; i++) {
        long ts = (long)(rnd() % 5000), dur = (long)(rnd() % 300);
        add(&t, "%s{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":%ld,\"dur\":%ld}", i ? "," : "",
            names[rnd() % 5], (int)(rnd() % 2) + 1, (int)(rnd() % 3) + 1, ts, dur);
    }
    add(&t, "]");
    sts_timeline *tl = NULL;
    sts_timeline_open_mem(t.p, t.n, "rand.json", NULL, &tl, NULL);
    free(t.p);
    return tl;
}

static sts_hosts_options opts(unsigned what)
{
    sts_hosts_options o = STS_HOSTS_OPTIONS_INIT;
    o.what = what;
    return o;
}

/* The serialized bytes of h (values kept), for comparing record sets whole. */
static char *bytes_of(const sts_hosts *h, size_t *len)
{
    void *buf = NULL;
    if (sts_hosts_serialize(h, 1, &buf, len, NULL) != STS_OK) return NULL;
    return buf;
}

static int same_records(const sts_hosts *a, const sts_hosts *b)
{
    size_t na, nb;
    char *x = bytes_of(a, &na), *y = bytes_of(b, &nb);
    int same = x && y && na == nb && memcmp(x, y, na) == 0;
    free(x);
    free(y);
    return same;
}

/* ---- collectives and device lanes ---------------------------------------------------- */

TEST(collective_kinds)
{
    static const struct {
        const char *name, *kind;
    } cases[] = {
        { "all-reduce.3", "all-reduce" },
        { "all-reduce", "all-reduce" },
        { "%all-gather-start.1", "all-gather" },
        { "reduce-scatter-done", "reduce-scatter" },
        { "all-to-all.2", "all-to-all" },
        { "ragged-all-to-all", "all-to-all" },
        { "collective-permute-start", "collective-permute" },
        { "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)", "all-reduce" },
        { "ncclKernel_SendRecv_RING_SIMPLE_Sum_int8_t(ncclDevComm*, unsigned long, ncclWork*)", "send-recv" },
        { "ncclKernel_ReduceScatter_RING_LL_Sum_half", "reduce-scatter" },
        { "ncclDevKernel_Broadcast_RING_LL", "broadcast" },
        { "ncclDevKernel_Reduce_RING_LL_Sum_f32", "reduce" },
        { "fusion.12", NULL },
        { "all-reducer", NULL },
        { "my_all-reduce", NULL },
        { "ncclGetUniqueId", NULL },
        { "", NULL },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *k = sts_collective_kind(cases[i].name);
        if (cases[i].kind)
            T_EQ_STR(k, cases[i].kind);
        else if (k)
            T_FAIL_AT("%s: expected no collective, got %s", cases[i].name, k);
    }
    T_TRUE(sts_collective_kind(NULL) == NULL);
}

TEST(device_lanes)
{
    static const char json[] =
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":1,\"args\":{\"name\":\"/device:GPU:0\"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7 \"}},"
        "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":8,\"args\":{\"name\":\"stream 8x\"}},"
        "{\"ph\":\"X\",\"name\":\"k\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":7,\"ts\":0,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"k\",\"pid\":0,\"tid\":8,\"ts\":0,\"dur\":1},"
        "{\"ph\":\"X\",\"name\":\"k\",\"pid\":5,\"tid\":5,\"ts\":0,\"dur\":1}]}";
    sts_timeline *tl = NULL;
    T_TRUE(sts_timeline_open_mem(json, sizeof json - 1, "d.json", NULL, &tl, NULL) == STS_OK);
    if (!tl) return;
    size_t n;
    const sts_lane *l = sts_timeline_lanes(tl, &n);
    const sts_process *p = sts_timeline_processes(tl, NULL);
    int devices = 0;
    for (uint32_t i = 0; i < n; i++) {
        int want = (p[l[i].process].pid == 1) || (p[l[i].process].pid == 0 && l[i].tid == 7);
        T_EQ_I64(sts_lane_is_device(tl, i), want);
        devices += want;
    }
    T_EQ_I64(devices, 2);
    T_EQ_I64(sts_lane_is_device(tl, (uint32_t)n), 0);
    sts_timeline_free(tl);
}

/* ---- exact medians over participants ---------------------------------------------------- */

static int64_t draw(int kind)
{
    switch (kind) {
    case 0:
        return (int64_t)(rnd() % 10); /* many ties */
    case 1:
        return (int64_t)(rnd() % 1000000000);
    case 2:
        return (int64_t)rnd(); /* the whole int64 range, negatives too */
    default:
        return rnd() % 2 ? INT64_MAX - (int64_t)(rnd() % 3) : INT64_MIN + (int64_t)(rnd() % 3);
    }
}

TEST(xmedian_matches_the_median_of_all_values)
{
    for (int trial = 0; trial < 300; trial++) {
        size_t nsets = 1 + rnd() % 6, parts = 1 + rnd() % 5;
        int64_t **vals = calloc(nsets * parts, sizeof *vals);
        size_t *nv = calloc(nsets * parts, sizeof *nv);
        uint64_t *count = calloc(nsets, sizeof *count);
        int64_t *min = malloc(nsets * sizeof *min), *max = malloc(nsets * sizeof *max), *want = malloc(nsets * 8);
        for (size_t s = 0; s < nsets; s++) {
            int kind = (int)(rnd() % 4);
            size_t total = rnd() % 4 == 0 ? 0 : 1 + rnd() % 60;
            int64_t *all = malloc((total + 1) * sizeof *all);
            for (size_t i = 0; i < total; i++)
                all[i] = draw(kind);
            count[s] = total;
            want[s] = sts_median_i64(all, total); /* reorders: done before splitting */
            min[s] = INT64_MAX, max[s] = INT64_MIN;
            for (size_t i = 0; i < total; i++) {
                size_t p = rnd() % parts;
                int64_t **v = &vals[p * nsets + s];
                *v = realloc(*v, (nv[p * nsets + s] + 1) * sizeof **v);
                (*v)[nv[p * nsets + s]++] = all[i];
                if (all[i] < min[s]) min[s] = all[i];
                if (all[i] > max[s]) max[s] = all[i];
            }
            free(all);
        }
        /* One sts_xmedian per participant, as each MPI rank keeps its own. */
        sts_xmedian *x[8] = { NULL };
        for (size_t p = 0; p < parts; p++)
            T_TRUE(sts_xmedian_create(nsets, count, min, max, &x[p], NULL) == STS_OK);
        int rounds = 0;
        for (size_t k; x[0] && (k = sts_xmedian_round(x[0])) > 0 && rounds < 40; rounds++) {
            uint64_t *sum = calloc(k, 8), *c = malloc(k * 8);
            for (size_t p = 0; p < parts; p++) {
                T_EQ_U64(sts_xmedian_round(x[p]), k);
                sts_xmedian_count(x[p], (const int64_t *const *)&vals[p * nsets], &nv[p * nsets], c);
                for (size_t i = 0; i < k; i++)
                    sum[i] += c[i];
            }
            for (size_t p = 0; p < parts; p++)
                T_TRUE(sts_xmedian_advance(x[p], sum, NULL) == STS_OK);
            free(sum);
            free(c);
        }
        T_TRUE(rounds <= 16); /* 16 buckets a round close a 64-bit range in 16 */
        for (size_t s = 0; x[0] && s < nsets; s++)
            for (size_t p = 0; p < parts; p++)
                T_EQ_I64(sts_xmedian_result(x[p], s), want[s]);
        for (size_t p = 0; p < parts; p++)
            sts_xmedian_free(x[p]);
        for (size_t i = 0; i < nsets * parts; i++)
            free(vals[i]);
        free(vals);
        free(nv);
        free(count);
        free(min);
        free(max);
        free(want);
    }
}

TEST(xmedian_refuses_sums_that_cannot_be)
{
    uint64_t count[1] = { 5 };
    int64_t min[1] = { 0 }, max[1] = { 1000 };
    sts_xmedian *x = NULL;
    T_TRUE(sts_xmedian_create(1, count, min, max, &x, NULL) == STS_OK);
    size_t k = sts_xmedian_round(x);
    T_EQ_U64(k, 16); /* one target: 5 values have one middle value */
    uint64_t *zero = calloc(k, 8);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_xmedian_advance(x, zero, &err), STS_ERR_STATE);
    T_CONTAINS(err.message, "disagree");
    free(zero);
    sts_xmedian_free(x);
    int64_t bad_min[1] = { 9 }, bad_max[1] = { 1 };
    T_EQ_I64(sts_xmedian_create(1, count, bad_min, bad_max, &x, NULL), STS_ERR_INVALID_ARG);
}

/* ---- records: merge and serialization are exact ------------------------------------------ */

/* Per name over several timelines, computed from their slices directly. */
static void reference(sts_timeline **tls, size_t n, const char *name, uint64_t *count, int64_t *total, int64_t *min,
                      int64_t *median, int64_t *max, int64_t *self)
{
    int64_t *v = NULL;
    size_t k = 0;
    *self = 0;
    for (size_t i = 0; i < n; i++) {
        size_t ns;
        const sts_slice *s = sts_timeline_slices(tls[i], &ns);
        for (size_t j = 0; j < ns; j++) {
            if (strcmp(sts_timeline_string(tls[i], s[j].name), name) != 0) continue;
            v = realloc(v, (k + 1) * sizeof *v);
            v[k++] = s[j].dur;
        }
        sts_name_summary *sum = NULL;
        size_t nsum = 0;
        sts_name_summaries(tls[i], &sum, &nsum, NULL);
        for (size_t j = 0; j < nsum; j++)
            if (strcmp(sts_timeline_string(tls[i], sum[j].name), name) == 0) *self += sum[j].self_ns;
        free(sum);
    }
    *count = k;
    *total = 0;
    *min = k ? INT64_MAX : 0;
    *max = k ? INT64_MIN : 0;
    for (size_t j = 0; j < k; j++) {
        *total += v[j];
        if (v[j] < *min) *min = v[j];
        if (v[j] > *max) *max = v[j];
    }
    *median = sts_median_i64(v, k);
    free(v);
}

TEST(names_merge_exactly_in_any_grouping)
{
    for (int trial = 0; trial < 30; trial++) {
        size_t n = 2 + rnd() % 5;
        sts_timeline *tls[8];
        for (size_t i = 0; i < n; i++)
            tls[i] = random_trace(20 + (int)(rnd() % 200));
        sts_hosts_options o = opts(STS_HOSTS_FACTS | STS_HOSTS_NAMES);
        /* One set holding every host, and the same hosts in two sets merged, one of
         * them passed through bytes. */
        sts_hosts *all = sts_hosts_create(), *a = sts_hosts_create(), *b = sts_hosts_create();
        size_t cut = 1 + rnd() % (n - 1);
        for (size_t i = 0; i < n; i++) {
            char name[16];
            snprintf(name, sizeof name, "h%zu", i);
            T_TRUE(sts_hosts_add(all, i, name, tls[i], &o, NULL) == STS_OK);
            T_TRUE(sts_hosts_add(i < cut ? b : a, i, name, tls[i], &o, NULL) == STS_OK);
        }
        void *buf = NULL;
        size_t len = 0;
        sts_hosts *back = NULL;
        T_TRUE(sts_hosts_serialize(b, 1, &buf, &len, NULL) == STS_OK);
        T_TRUE(sts_hosts_deserialize(buf, len, &back, NULL) == STS_OK);
        free(buf);
        T_TRUE(back && sts_hosts_merge(a, back, NULL) == STS_OK);
        T_EQ_U64(sts_hosts_count(back), 0);
        T_TRUE(sts_hosts_finish(all, NULL) == STS_OK && sts_hosts_finish(a, NULL) == STS_OK);
        T_TRUE(same_records(all, a));
        size_t nn;
        const sts_host_name *nm = sts_hosts_names(all, &nn);
        for (size_t i = 0; i < nn; i++) {
            uint64_t count;
            int64_t total, min, median, max, self;
            reference(tls, n, nm[i].name, &count, &total, &min, &median, &max, &self);
            T_EQ_U64(nm[i].count, count);
            T_EQ_I64(nm[i].total_ns, total);
            T_EQ_I64(nm[i].self_ns, self);
            T_EQ_I64(nm[i].min_ns, min);
            T_EQ_I64(nm[i].median_ns, median);
            T_EQ_I64(nm[i].max_ns, max);
            /* Ranked: self descending, total descending, name ascending. */
            if (i > 0) {
                const sts_host_name *p = &nm[i - 1];
                T_TRUE(p->self_ns > nm[i].self_ns ||
                       (p->self_ns == nm[i].self_ns &&
                        (p->total_ns > nm[i].total_ns ||
                         (p->total_ns == nm[i].total_ns && strcmp(p->name, nm[i].name) < 0))));
            }
        }
        sts_hosts_free(all);
        sts_hosts_free(a);
        sts_hosts_free(b);
        sts_hosts_free(back);
        for (size_t i = 0; i < n; i++)
            sts_timeline_free(tls[i]);
    }
}

TEST(medians_set_from_outside_after_dropping_the_values)
{
    sts_timeline *t1 = random_trace(100), *t2 = random_trace(100);
    sts_hosts_options o = opts(STS_HOSTS_NAMES);
    sts_hosts *ref = sts_hosts_create(), *p1 = sts_hosts_create(), *p2 = sts_hosts_create();
    sts_hosts_add(ref, 0, "a", t1, &o, NULL);
    sts_hosts_add(ref, 1, "b", t2, &o, NULL);
    sts_hosts_add(p1, 0, "a", t1, &o, NULL);
    sts_hosts_add(p2, 1, "b", t2, &o, NULL);
    T_TRUE(sts_hosts_finish(ref, NULL) == STS_OK);
    /* Records without durations travel; their medians cannot be finished... */
    void *buf = NULL;
    size_t len = 0;
    sts_hosts *q1 = NULL, *q2 = NULL;
    sts_hosts_serialize(p1, 0, &buf, &len, NULL);
    sts_hosts_deserialize(buf, len, &q1, NULL);
    free(buf);
    sts_hosts_serialize(p2, 0, &buf, &len, NULL);
    sts_hosts_deserialize(buf, len, &q2, NULL);
    free(buf);
    T_TRUE(q1 && q2 && sts_hosts_merge(q1, q2, NULL) == STS_OK);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_hosts_finish(q1, &err), STS_ERR_STATE);
    T_CONTAINS(err.message, "median");
    /* ...until they are set. */
    size_t n;
    const sts_host_name *nm = sts_hosts_names(ref, &n);
    for (size_t i = 0; i < n; i++)
        T_TRUE(sts_hosts_set_median(q1, nm[i].name, nm[i].median_ns, NULL) == STS_OK);
    T_EQ_I64(sts_hosts_set_median(q1, "no such name", 1, NULL), STS_ERR_NOT_FOUND);
    T_TRUE(sts_hosts_finish(q1, NULL) == STS_OK);
    size_t m;
    const sts_host_name *got = sts_hosts_names(q1, &m);
    T_EQ_U64(m, n);
    for (size_t i = 0; i < n && i < m; i++) {
        T_EQ_STR(got[i].name, nm[i].name);
        T_EQ_I64(got[i].median_ns, nm[i].median_ns);
        T_EQ_U64(got[i].count, nm[i].count);
        T_EQ_I64(got[i].self_ns, nm[i].self_ns);
    }
    sts_hosts_free(ref);
    sts_hosts_free(p1);
    sts_hosts_free(p2);
    sts_hosts_free(q1);
    sts_hosts_free(q2);
    sts_timeline_free(t1);
    sts_timeline_free(t2);
}

TEST(serialize_round_trip_and_refuse_damage)
{
    int in[3] = { 10, 20, 30 }, wk[3] = { 100, 100, 100 }, co[3] = { 5, 50, 5 };
    sts_timeline *tl = host_trace(3, in, wk, co), *r = random_trace(50), *mt = mem_trace(2);
    sts_hosts_options o = opts(STS_HOSTS_FACTS | STS_HOSTS_NAMES | STS_HOSTS_STEPS | STS_HOSTS_DEVICE |
                               STS_HOSTS_MEMORY | STS_HOSTS_MEMORY_DEVICES | STS_HOSTS_COLLECTIVES);
    sts_hosts *h = sts_hosts_create();
    T_TRUE(sts_hosts_add(h, 3, "h3", tl, &o, NULL) == STS_OK);
    T_TRUE(sts_hosts_add(h, 1, "h1", r, &o, NULL) == STS_OK);
    T_TRUE(sts_hosts_add(h, 5, "h5", mt, &o, NULL) == STS_OK);
    T_EQ_I64(sts_hosts_add(h, 1, "again", r, &o, NULL), STS_ERR_INVALID_ARG);
    T_EQ_U64(sts_hosts_info(h, 0)->index, 1); /* ordered by index */
    void *buf = NULL, *buf2 = NULL;
    size_t len = 0, len2 = 0;
    sts_hosts *back = NULL;
    T_TRUE(sts_hosts_serialize(h, 1, &buf, &len, NULL) == STS_OK);
    T_TRUE(sts_hosts_deserialize(buf, len, &back, NULL) == STS_OK);
    T_TRUE(back && sts_hosts_serialize(back, 1, &buf2, &len2, NULL) == STS_OK);
    T_TRUE(len == len2 && buf2 && memcmp(buf, buf2, len) == 0);
    /* Every cut of the bytes, and flipped bytes, are refused or read: never trusted past their end. */
    unsigned char *copy = malloc(len);
    for (size_t cut = 0; cut < len; cut++) {
        sts_hosts *x = NULL;
        sts_error err = STS_ERROR_INIT;
        T_EQ_I64(sts_hosts_deserialize(buf, cut, &x, &err), STS_ERR_FORMAT);
        T_TRUE(x == NULL);
    }
    for (int trial = 0; trial < 500; trial++) {
        memcpy(copy, buf, len);
        copy[rnd() % len] ^= (unsigned char)(1u << (rnd() % 8));
        sts_hosts *x = NULL;
        sts_status st = sts_hosts_deserialize(copy, len, &x, NULL);
        T_TRUE(st == STS_OK || st == STS_ERR_FORMAT);
        if (x) { /* whatever was read is whole enough to align and write again */
            sts_alignment *a = NULL;
            sts_hosts_align(x, 1.1, &a, NULL);
            sts_alignment_free(a);
        }
        sts_hosts_free(x);
    }
    sts_error err = STS_ERROR_INIT;
    sts_hosts_free(back);
    T_EQ_I64(sts_hosts_deserialize("STSHOSTS\x06", 9, &back, &err), STS_ERR_FORMAT);
    T_CONTAINS(err.message, "version 6, expected 5");
    free(copy);
    free(buf);
    free(buf2);
    sts_hosts_free(h);
    sts_hosts_free(back);
    sts_timeline_free(tl);
    sts_timeline_free(r);
    sts_timeline_free(mt);
}

/* Each host's device view per step (STS_HOSTS_DEVICE): host_trace()'s all-reduce is the
 * only op of its step, so the step's window is the step, its busy time and its
 * communication the all-reduce, its idle time the rest; the record survives bytes. */
TEST(device_view_per_host_step)
{
    int in[3] = { 10, 20, 30 }, wk[3] = { 100, 100, 100 }, co[3] = { 5, 50, 0 };
    sts_timeline *tl = host_trace(3, in, wk, co);
    sts_hosts_options o = opts(STS_HOSTS_STEPS | STS_HOSTS_DEVICE);
    sts_hosts *h = sts_hosts_create();
    T_TRUE(sts_hosts_add(h, 0, "h0", tl, &o, NULL) == STS_OK);
    size_t ns, nd;
    const sts_host_step *st = sts_hosts_steps(h, 0, &ns);
    const sts_host_device_step *dv = sts_hosts_device_steps(h, 0, &nd);
    T_EQ_U64(ns, 3);
    T_EQ_U64(nd, 3); /* one device */
    for (size_t k = 0; k < nd && k < ns; k++) {
        const sts_devview_window *w = &dv[k].w;
        int64_t dur = (10 + in[k] + wk[k]) * 1000, c = co[k] * 1000;
        T_EQ_U64(dv[k].step, k);
        T_EQ_STR(dv[k].device, "/device:GPU:0");
        T_EQ_I64(w->window_ns, st[k].dur_ns);
        T_EQ_I64(w->window_ns, dur);
        T_EQ_I64(w->busy_ns, c);
        T_EQ_I64(w->union_ns[STS_DV_COMMUNICATION], c);
        T_EQ_I64(w->exposed_ns, c);
        T_EQ_I64(w->idle_ns, dur - c);
    }
    sts_hosts *back = NULL;
    void *buf = NULL;
    size_t len = 0;
    T_TRUE(sts_hosts_serialize(h, 1, &buf, &len, NULL) == STS_OK);
    T_TRUE(sts_hosts_deserialize(buf, len, &back, NULL) == STS_OK);
    T_TRUE(back && same_records(h, back));
    size_t nb;
    const sts_host_device_step *db = back ? sts_hosts_device_steps(back, 0, &nb) : NULL;
    T_TRUE(db && nb == nd && memcmp(&db[1].w, &dv[1].w, sizeof dv[1].w) == 0 &&
           strcmp(db[1].device, dv[1].device) == 0);
    /* Without the flag, no device view. */
    sts_hosts *plain = sts_hosts_create();
    o = opts(STS_HOSTS_STEPS);
    T_TRUE(sts_hosts_add(plain, 0, "h0", tl, &o, NULL) == STS_OK);
    T_TRUE(sts_hosts_device_steps(plain, 0, &nb) == NULL && nb == 0);
    free(buf);
    sts_hosts_free(plain);
    sts_hosts_free(back);
    sts_hosts_free(h);
    sts_timeline_free(tl);
}

/* Each host's memory per step (STS_HOSTS_MEMORY), against the numbers mem_trace() was
 * made with: step k allocates a = 1000 (k + 1) twice and frees one, so it starts at
 * 500 + sum_{j<k} a_j, peaks 2a above that and ends a above it; live at the peak the
 * two allocations of aten::empty, and the bytes from before the capture untracked. The
 * record survives bytes, and damaged memory numbers are refused. */
TEST(memory_per_host_step)
{
    sts_timeline *tl = mem_trace(3);
    T_TRUE(tl != NULL);
    if (!tl) return;
    sts_hosts_options o = opts(STS_HOSTS_STEPS | STS_HOSTS_MEMORY);
    sts_hosts *h = sts_hosts_create();
    T_TRUE(sts_hosts_add(h, 0, "h0", tl, &o, NULL) == STS_OK);
    size_t nm, nl;
    const sts_host_memory_step *m = sts_hosts_memory_steps(h, 0, &nm);
    const sts_memory_live *l = sts_hosts_memory_lives(h, 0, &nl);
    T_EQ_U64(nm, 3); /* one device, three steps */
    T_TRUE(sts_hosts_memory_asked(h, 0));
    int64_t before = 500;
    for (size_t k = 0; k < nm && k < 3; k++) {
        int64_t a = 1000 * (int64_t)(k + 1);
        const sts_memory_step *e = &m[k].e;
        T_EQ_U64(m[k].step, k);
        T_EQ_STR(m[k].device, "cuda:0");
        T_EQ_I64(e->start_bytes, before);
        T_EQ_I64(e->peak_bytes, before + 2 * a);
        T_EQ_I64(e->end_bytes, before + a);
        T_EQ_U64(e->allocations, 2);
        T_EQ_U64(e->frees, 1);
        int64_t live = 0;
        for (uint32_t i = e->first_live; i < e->first_live + e->live_count && i < nl; i++) {
            live += l[i].bytes;
            T_EQ_STR(l[i].name, "aten::empty");
        }
        T_EQ_I64(live + e->untracked_bytes, e->peak_bytes);
        /* Live: the kept half of every earlier step, and both of this one's. */
        T_EQ_I64(live, before - 500 + 2 * a);
        T_EQ_I64(e->untracked_bytes, 500);
        before += a;
    }
    void *buf = NULL;
    size_t len = 0;
    sts_hosts *back = NULL;
    T_TRUE(sts_hosts_serialize(h, 1, &buf, &len, NULL) == STS_OK);
    T_TRUE(sts_hosts_deserialize(buf, len, &back, NULL) == STS_OK);
    T_TRUE(back && same_records(h, back));
    /* A live allocation's bytes changed: live + untracked no longer the peak, refused. */
    unsigned char *copy = malloc(len);
    int refused = 0, tried = 0;
    for (size_t at = 0; copy && at + 1 < len; at++) {
        memcpy(copy, buf, len);
        copy[at] ^= 0x02;
        sts_hosts *x = NULL;
        sts_error err = STS_ERROR_INIT;
        if (sts_hosts_deserialize(copy, len, &x, &err) != STS_OK && strstr(err.message, "a memory step")) refused++;
        tried++;
        sts_hosts_free(x);
    }
    T_TRUE(tried > 0 && refused > 0);
    free(copy);
    /* The whole trace's devices (STS_HOSTS_MEMORY_DEVICES): the peak is the last step's,
     * its points every event's total, the same through bytes. */
    sts_hosts *whole = sts_hosts_create();
    o = opts(STS_HOSTS_MEMORY_DEVICES);
    T_TRUE(sts_hosts_add(whole, 0, "h0", tl, &o, NULL) == STS_OK);
    size_t nd, np;
    const sts_memory_device *d = sts_hosts_memory_devices(whole, 0, &nd);
    sts_hosts_memory_points(whole, 0, &np);
    T_EQ_U64(nd, 1);
    T_EQ_U64(np, 9);
    T_TRUE(d && d->peak_bytes == 500 + 1000 + 2000 + 2 * 3000 && d->point_count == 9 && d->allocations == 6);
    void *wb = NULL;
    size_t wl = 0;
    sts_hosts *wback = NULL;
    T_TRUE(sts_hosts_serialize(whole, 1, &wb, &wl, NULL) == STS_OK);
    T_TRUE(sts_hosts_deserialize(wb, wl, &wback, NULL) == STS_OK && wback && same_records(whole, wback));
    free(wb);
    sts_hosts_free(wback);
    sts_hosts_free(whole);
    /* Without the flag, no memory. */
    sts_hosts *plain = sts_hosts_create();
    o = opts(STS_HOSTS_STEPS);
    T_TRUE(sts_hosts_add(plain, 0, "h0", tl, &o, NULL) == STS_OK);
    T_TRUE(sts_hosts_memory_steps(plain, 0, &nm) == NULL && nm == 0 && !sts_hosts_memory_asked(plain, 0));
    free(buf);
    sts_hosts_free(plain);
    sts_hosts_free(back);
    sts_hosts_free(h);
    sts_timeline_free(tl);
}

/* ---- collectives across hosts -------------------------------------------------------------- */

/* A host of a generated run: 2 GPUs (processes "/device:GPU:d"), each running the run's
 * collectives as XLA ops "all-reduce.K" of module "jit_train" on line 1, with an NCCL
 * kernel inside each on line 2 (the same op: left out as nested); steps on pid 1. The
 * host's clock is off[h] ahead; op k of (host, device) arrives at base[k] + arr[..] and
 * every rank leaves at end[k] (true times, ns). */
#define CH 3
#define CD 2
#define CK 12
static sts_timeline *coll_host(int h, const int64_t *off, const int64_t *base, int64_t arr[CK][CH][CD],
                               const int64_t *end)
{
    text t = { NULL, 0, 0 };
    add(&t, "{\"traceEvents\":[");
    for (int d = 0; d < CD; d++)
        add(&t, "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":%d,\"args\":{\"name\":\"/device:GPU:%d\"}},", 10 + d,
            d);
    for (int s = 0; s < 3; s++)
        add(&t,
            "{\"ph\":\"X\",\"name\":\"train\",\"pid\":1,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,\"args\":{\"step_num\":%d}}"
            ",",
            (double)(s * 4000000 + off[h]) / 1000.0, 3900000 / 1000.0, s);
    for (int k = 0; k < CK; k++)
        for (int d = 0; d < CD; d++) {
            int64_t a = base[k] + arr[k][h][d] + off[h], e = end[k] + off[h];
            add(&t,
                "{\"ph\":\"X\",\"name\":\"all-reduce.%d\",\"pid\":%d,\"tid\":1,\"ts\":%.3f,\"dur\":%.3f,"
                "\"args\":{\"hlo_module\":\"jit_train\"}},",
                k % 4, 10 + d, (double)a / 1000.0, (double)(e - a) / 1000.0);
            add(&t,
                "{\"ph\":\"X\",\"name\":\"ncclDevKernel_AllReduce_Sum_f32_RING_LL\",\"pid\":%d,\"tid\":2,"
                "\"ts\":%.3f,\"dur\":%.3f},",
                10 + d, (double)(a + 1000) / 1000.0, (double)(e - a - 2000) / 1000.0);
        }
    add(&t, "{\"ph\":\"X\",\"name\":\"end\",\"pid\":1,\"tid\":9,\"ts\":0,\"dur\":1}]}");
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open_mem(t.p, t.n, "coll.json", NULL, &tl, &err) != STS_OK)
        fprintf(stderr, "coll_host: %s\n", err.message);
    free(t.p);
    return tl;
}

static char *colls_json(const sts_hosts *h)
{
    sts_collectives *c = NULL;
    if (sts_collectives_match(h, &c, NULL) != STS_OK) return NULL;
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sts_jsonw *w = sts_jsonw_create(f, STS_JSON_COMPACT);
    sts_jsonw_obj_begin(w);
    sts_collectives_write_json(w, h, c);
    sts_jsonw_obj_end(w);
    sts_jsonw_finish(w);
    sts_jsonw_free(w);
    fclose(f);
    sts_collectives_free(c);
    return buf;
}

/* Every number against the generator's: offsets exact (ranks leave together), the
 * residual 0, each instance's skew, waits and last rank from the true arrivals; ops
 * nested in another of their device left out; and the same numbers from records that
 * crossed bytes and merged in any grouping. Over random arrivals, the invariants: waits
 * >= 0, the last rank's wait 0, the skew the largest wait. */
TEST(collectives_match_and_align_known_clocks)
{
    for (int trial = 0; trial < 4; trial++) {
        int64_t off[CH] = { 0, 250000 + (int64_t)(rnd() % 1000000), -(int64_t)(rnd() % 900000) };
        int64_t base[CK], end[CK], arr[CK][CH][CD];
        for (int k = 0; k < CK; k++) {
            base[k] = (k / 4) * 4000000 + 100000 + (k % 4) * 900000;
            int64_t last = 0;
            for (int h = 0; h < CH; h++)
                for (int d = 0; d < CD; d++) {
                    arr[k][h][d] = (int64_t)(rnd() % 500) * 1000;
                    if (arr[k][h][d] > last) last = arr[k][h][d];
                }
            end[k] = base[k] + last + 20000 + (int64_t)(rnd() % 50) * 1000;
        }
        sts_timeline *tl[CH];
        sts_hosts *all = sts_hosts_create(), *parts[CH];
        sts_hosts_options o = opts(STS_HOSTS_STEPS | STS_HOSTS_COLLECTIVES);
        for (int h = 0; h < CH; h++) {
            char name[16];
            snprintf(name, sizeof name, "h%d", h);
            tl[h] = coll_host(h, off, base, arr, end);
            T_TRUE(tl[h] && sts_hosts_add(all, (size_t)h, name, tl[h], &o, NULL) == STS_OK);
            parts[h] = sts_hosts_create();
            T_TRUE(sts_hosts_add(parts[h], (size_t)h, name, tl[h], &o, NULL) == STS_OK);
        }
        sts_collectives *c = NULL;
        T_TRUE(sts_collectives_match(all, &c, NULL) == STS_OK);
        size_t nr, ni;
        const sts_coll_rank *rk = sts_collectives_ranks(c, &nr);
        const sts_coll_instance *in = sts_collectives_instances(c, &ni);
        const sts_coll_arrival *ar = sts_collectives_arrivals(c, NULL);
        T_EQ_U64(nr, CH * CD);
        T_EQ_STR(rk[3].label, "h1 /device:GPU:1");
        T_EQ_U64(ni, CK);
        T_EQ_U64(sts_collectives_counts(c)->ops, CK * CH * CD);
        T_EQ_U64(sts_collectives_counts(c)->nested, CK * CH * CD);
        for (int h = 0; h < CH; h++) {
            int known;
            T_EQ_I64(sts_collectives_offset(c, (size_t)h, &known), off[h]);
            T_TRUE(known);
        }
        int64_t med = -1, max = -1;
        T_TRUE(sts_collectives_residual(c, &med, &max) && med == 0 && max == 0);
        for (size_t i = 0; i < ni && i < CK; i++) {
            int k = (int)i; /* instances by last arrival: the generator's order */
            /* the last rank: the latest arrival, ties to the lowest rank (ranks are host, device) */
            uint32_t last = 0;
            int64_t lo = arr[k][0][0];
            for (int r = 1; r < CH * CD; r++) {
                if (arr[k][r / CD][r % CD] > arr[k][last / CD][last % CD]) last = (uint32_t)r;
                if (arr[k][r / CD][r % CD] < lo) lo = arr[k][r / CD][r % CD];
            }
            int64_t hi = arr[k][last / CD][last % CD];
            char op[16];
            snprintf(op, sizeof op, "all-reduce.%d", k % 4);
            T_EQ_STR(in[i].name, op);
            T_EQ_STR(in[i].group, "jit_train");
            T_EQ_I64(in[i].seq, k / 4);
            T_EQ_I64(in[i].by, STS_COLL_BY_ORDER);
            T_EQ_U64(in[i].count, CH * CD);
            T_EQ_I64(in[i].skew_ns, hi - lo);
            T_EQ_U64(in[i].last_rank, last);
            T_EQ_I64(in[i].transfer_ns, end[k] - base[k] - arr[k][last / CD][last % CD]);
            T_EQ_I64(in[i].bytes, -1);
            T_TRUE(in[i].bus_bw_gbps < 0);
            T_TRUE(in[i].in_step && in[i].step == k / 4);
            int64_t sum = 0;
            for (uint32_t a = in[i].first; a < in[i].first + in[i].count; a++) {
                int r = (int)ar[a].rank;
                T_EQ_I64(ar[a].ts_ns, base[k] + arr[k][r / CD][r % CD]);
                T_EQ_I64(ar[a].end_ns, end[k]);
                T_EQ_I64(ar[a].wait_ns, hi - arr[k][r / CD][r % CD]);
                sum += ar[a].wait_ns;
            }
            T_EQ_I64(in[i].wait_ns, sum);
        }
        sts_collectives_free(c);
        /* Bytes and merges: the same document. */
        char *want = colls_json(all);
        sts_hosts *m = sts_hosts_create();
        for (int h = CH - 1; h >= 0; h--) {
            void *buf = NULL;
            size_t len = 0;
            sts_hosts *back = NULL;
            T_TRUE(sts_hosts_serialize(parts[h], 0, &buf, &len, NULL) == STS_OK);
            T_TRUE(sts_hosts_deserialize(buf, len, &back, NULL) == STS_OK);
            T_TRUE(back && sts_hosts_merge(m, back, NULL) == STS_OK);
            sts_hosts_free(back);
            free(buf);
            sts_hosts_free(parts[h]);
        }
        char *got = colls_json(m);
        T_TRUE(want && got && strcmp(want, got) == 0);
        /* --align: the records' steps move onto the reference clock. */
        T_TRUE(sts_collectives_match(m, &c, NULL) == STS_OK);
        sts_hosts_apply_offsets(m, c);
        for (int h = 0; h < CH; h++) {
            size_t ns;
            const sts_host_step *st = sts_hosts_steps(m, (size_t)h, &ns);
            T_TRUE(ns == 3 && st[1].ts_ns == 4000000);
        }
        sts_collectives_free(c);
        free(want);
        free(got);
        sts_hosts_free(m);
        sts_hosts_free(all);
        for (int h = 0; h < CH; h++)
            sts_timeline_free(tl[h]);
    }
}

/* Random hosts of random collectives (seqs drawn from a small range, so some repeat and
 * some are on one rank only; some ops without a seq, matched by order): whatever is
 * matched holds the invariants, and what is not is counted. */
TEST(collectives_invariants_over_random_hosts)
{
    sts_open_options oo = STS_OPEN_OPTIONS_INIT;
    oo.args = (sts_args_mode)(STS_ARGS_KNOWN | STS_ARGS_WITH_COLLECTIVES);
    uint64_t matched = 0, repeated = 0, one_rank = 0, by_order = 0;
    for (int trial = 0; trial < 30; trial++) {
        sts_hosts *h = sts_hosts_create();
        sts_hosts_options o = opts(STS_HOSTS_STEPS | STS_HOSTS_COLLECTIVES);
        int nh = 2 + (int)(rnd() % 3);
        for (int k = 0; k < nh; k++) {
            text t = { NULL, 0, 0 };
            add(&t,
                "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":0,\"args\":{\"name\":\"GPU 0\"}},"
                "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":7,\"args\":{\"name\":\"stream 7\"}},"
                "{\"ph\":\"X\",\"name\":\"ProfilerStep#0\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":100000}");
            long at = (long)(rnd() % 100);
            for (int i = 0, n = 5 + (int)(rnd() % 10); i < n; i++) {
                long dur = 1 + (long)(rnd() % 50);
                if (rnd() % 4)
                    add(&t,
                        ",{\"ph\":\"X\",\"name\":\"ncclDevKernel_AllReduce\",\"pid\":0,\"tid\":7,\"ts\":%ld,\"dur\":%"
                        "ld,"
                        "\"args\":{\"Process Group Name\":\"%d\",\"Seq\":%d,\"In msg nelems\":%d,\"dtype\":\"Float\"}}",
                        at, dur, (int)(rnd() % 2), (int)(rnd() % 8), 1 + (int)(rnd() % 3));
                else
                    add(&t,
                        ",{\"ph\":\"X\",\"name\":\"ncclDevKernel_AllGather\",\"pid\":0,\"tid\":7,\"ts\":%ld,\"dur\":%"
                        "ld}",
                        at, dur);
                at += dur + (long)(rnd() % 30);
            }
            add(&t, "]}");
            sts_timeline *tl = NULL;
            T_TRUE(sts_timeline_open_mem(t.p, t.n, "r.json", &oo, &tl, NULL) == STS_OK);
            char name[16];
            snprintf(name, sizeof name, "r%d", k);
            T_TRUE(tl && sts_hosts_add(h, (size_t)k, name, tl, &o, NULL) == STS_OK);
            sts_timeline_free(tl);
            free(t.p);
        }
        sts_collectives *c = NULL;
        T_TRUE(sts_collectives_match(h, &c, NULL) == STS_OK);
        size_t n, na;
        const sts_coll_instance *in = sts_collectives_instances(c, &n);
        const sts_coll_arrival *ar = sts_collectives_arrivals(c, &na);
        uint64_t used = 0;
        for (size_t i = 0; i < n; i++) {
            T_TRUE(in[i].count >= 2 && in[i].first + in[i].count <= na);
            int64_t maxw = 0, sum = 0;
            for (uint32_t a = in[i].first; a < in[i].first + in[i].count; a++) {
                T_GE_I64(ar[a].wait_ns, 0);
                T_TRUE(a == in[i].first || ar[a].rank > ar[a - 1].rank); /* one op per rank */
                T_EQ_I64(ar[a].wait_ns, in[i].last_ns - ar[a].ts_ns);
                if (ar[a].rank == in[i].last_rank) T_EQ_I64(ar[a].wait_ns, 0);
                if (ar[a].wait_ns > maxw) maxw = ar[a].wait_ns;
                sum += ar[a].wait_ns;
            }
            T_EQ_I64(in[i].skew_ns, maxw);
            T_EQ_I64(in[i].wait_ns, sum);
            T_TRUE(in[i].late_ns >= 0 && in[i].late_ns <= in[i].skew_ns);
            T_GE_I64(in[i].transfer_ns, 1);
            T_TRUE(i == 0 || in[i].last_ns >= in[i - 1].last_ns);
            /* Sizes: 4 bytes an element when every rank agrees, else unknown. */
            T_TRUE(in[i].bytes == -1 || (in[i].bytes % 4 == 0 && in[i].bytes >= 4 && in[i].bytes <= 12));
            T_TRUE((in[i].bytes >= 0) == (in[i].bus_bw_gbps >= 0));
            used += in[i].count;
        }
        const sts_coll_counts *k = sts_collectives_counts(c);
        T_TRUE(used + k->nested <= k->ops);
        matched += n;
        repeated += k->repeated;
        one_rank += k->one_rank;
        for (size_t i = 0; i < n; i++)
            by_order += in[i].by == STS_COLL_BY_ORDER;
        /* Offsets from ends, on ranks whose ops overlap at random: the residual is what is left. */
        int64_t med, max;
        T_TRUE(sts_collectives_residual(c, &med, &max) == (n > 0));
        T_TRUE(med >= 0 && max >= med);
        sts_collectives_free(c);
        sts_hosts_free(h);
    }
    /* The draws reach every path: matched by seq and by order, repeats, lone ops. */
    T_TRUE(matched > 0 && repeated > 0 && one_rank > 0 && by_order > 0);
}

/* The 8-GPU XSpace fixture read as a set of one host: its devices would be the ranks;
 * it holds no collective, so nothing is matched and no clock is known. */
TEST(collectives_of_the_8gpu_fixture)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures");
    char path[4200];
    snprintf(path, sizeof path, "%s/traces/jax/conv_mi300_8gpu.xplane.pb", fx);
    sts_timeline *tl = NULL;
    if (sts_timeline_open(path, NULL, &tl, NULL) != STS_OK) T_SKIP("%s does not open", path);
    sts_hosts *h = sts_hosts_create();
    sts_hosts_options o = opts(STS_HOSTS_STEPS | STS_HOSTS_COLLECTIVES);
    T_TRUE(sts_hosts_add(h, 0, "conv", tl, &o, NULL) == STS_OK);
    sts_collectives *c = NULL;
    T_TRUE(sts_collectives_match(h, &c, NULL) == STS_OK);
    size_t n, nr;
    sts_collectives_instances(c, &n);
    sts_collectives_ranks(c, &nr);
    int known = 1;
    T_EQ_U64(n, 0);
    T_EQ_U64(nr, 0);
    T_EQ_U64(sts_collectives_counts(c)->ops, 0);
    sts_collectives_offset(c, 0, &known);
    T_TRUE(!known && !sts_collectives_residual(c, NULL, NULL));
    sts_collectives_free(c);
    sts_hosts_free(h);
    sts_timeline_free(tl);
}

/* ---- steps across hosts ----------------------------------------------------------------- */

TEST(steps_align_and_find_the_straggler)
{
    /* Three hosts, three steps (durations 10 + input + work us). Host 2 is slow in
     * step 1 by its input (+400 us); host 0 in step 2 by its all-reduce (+300 us,
     * inside work, which grows by as much). */
    int in0[3] = { 50, 50, 50 }, wk0[3] = { 100, 100, 400 }, co0[3] = { 10, 10, 310 };
    int in1[3] = { 51, 52, 50 }, wk1[3] = { 100, 101, 100 }, co1[3] = { 10, 10, 10 };
    int in2[3] = { 50, 450, 49 }, wk2[3] = { 102, 100, 100 }, co2[3] = { 10, 10, 10 };
    sts_timeline *t[3] = { host_trace(3, in0, wk0, co0), host_trace(3, in1, wk1, co1), host_trace(3, in2, wk2, co2) };
    sts_hosts_options o = opts(STS_HOSTS_STEPS);
    sts_hosts *h = sts_hosts_create();
    for (size_t i = 0; i < 3; i++) {
        char nm[8];
        snprintf(nm, sizeof nm, "h%zu", i);
        T_TRUE(sts_hosts_add(h, i, nm, t[i], &o, NULL) == STS_OK);
    }
    sts_alignment *a = NULL;
    T_TRUE(sts_hosts_align(h, 1.5, &a, NULL) == STS_OK);
    if (!a) return;
    size_t n;
    const sts_aligned_step *s = sts_alignment_steps(a, &n);
    T_EQ_U64(n, 3);
    T_EQ_I64(sts_alignment_rule(a), STS_STEP_RULE_STEP_NUM);
    /* step 0: 160, 161, 162 us: no straggler, h2 slowest by 'work' (102 vs 100 on h1?) */
    T_EQ_I64(s[0].min_ns, 160000);
    T_EQ_I64(s[0].median_ns, 161000);
    T_EQ_I64(s[0].max_ns, 162000);
    T_EQ_I64(s[0].slowest, 2);
    T_EQ_I64(s[0].median_host, 1);
    T_EQ_I64(s[0].straggler, 0);
    T_EQ_I64(s[0].by.kind, STS_CAUSE_CHILD);
    T_EQ_STR(s[0].by.name, "work"); /* h2 102 against h1 100; h2's input 50 < 51 */
    T_EQ_I64(s[0].by.slow_ns, 102000);
    T_EQ_I64(s[0].by.median_ns, 100000);
    /* step 1: 160, 163, 560: h2 slow by its input. */
    T_EQ_I64(s[1].slowest, 2);
    T_EQ_I64(s[1].median_ns, 163000);
    T_EQ_I64(s[1].straggler, 1);
    T_EQ_I64(s[1].by.kind, STS_CAUSE_CHILD);
    T_EQ_STR(s[1].by.name, "input");
    T_EQ_I64(s[1].by.slow_ns - s[1].by.median_ns, 450000 - 52000);
    /* step 2: 460, 160, 159: h0 slow; its all-reduce and its work both grew by 300 us:
     * the collective wins the tie. */
    T_EQ_I64(s[2].slowest, 0);
    T_EQ_I64(s[2].median_host, 1);
    T_EQ_I64(s[2].straggler, 1);
    T_EQ_I64(s[2].by.kind, STS_CAUSE_COLLECTIVE);
    T_EQ_STR(s[2].by.name, "all-reduce");
    T_EQ_I64(s[2].by.slow_ns, 310000);
    T_EQ_I64(s[2].by.median_ns, 10000);
    size_t nh;
    const sts_host_step_stats *hs = sts_alignment_hosts(a, &nh);
    T_EQ_U64(nh, 3);
    T_EQ_U64(hs[0].slowest, 1);
    T_EQ_U64(hs[0].stragglers, 1);
    T_EQ_U64(hs[2].slowest, 2);
    T_EQ_U64(hs[2].stragglers, 1);
    T_EQ_I64(hs[1].median_ns, 161000);
    /* A host's steps carry their device time: the all-reduce's union. */
    size_t ns;
    const sts_host_step *st = sts_hosts_steps(h, 0, &ns);
    T_EQ_I64(st[2].collective_ns, 310000);
    T_EQ_I64(st[2].device_busy_ns, 310000);
    T_EQ_I64(sts_alignment_rule_mismatches(a), 0);
    sts_alignment_free(a);
    T_EQ_I64(sts_hosts_align(h, 0.9, &a, NULL), STS_ERR_INVALID_ARG);
    T_TRUE(a == NULL);
    sts_hosts_free(h);
    for (int i = 0; i < 3; i++)
        sts_timeline_free(t[i]);
}

TEST(alignment_invariants_over_random_hosts)
{
    for (int trial = 0; trial < 40; trial++) {
        size_t nh = 1 + rnd() % 6;
        sts_hosts *h = sts_hosts_create();
        sts_hosts_options o = opts(STS_HOSTS_STEPS);
        for (size_t i = 0; i < nh; i++) {
            int steps = 1 + (int)(rnd() % 6), in[8], wk[8], co[8];
            for (int s = 0; s < steps; s++)
                in[s] = 1 + (int)(rnd() % 50), wk[s] = 1 + (int)(rnd() % 50), co[s] = (int)(rnd() % 3) * (wk[s] / 2);
            sts_timeline *tl = host_trace(steps, in, wk, co);
            T_TRUE(sts_hosts_add(h, i, "x", tl, &o, NULL) == STS_OK);
            sts_timeline_free(tl);
        }
        double ratio = 1.0 + (double)(rnd() % 100) / 100.0;
        sts_alignment *a = NULL;
        T_TRUE(sts_hosts_align(h, ratio, &a, NULL) == STS_OK);
        size_t n, nst;
        const sts_aligned_step *s = sts_alignment_steps(a, &n);
        uint32_t slowest_total = 0, multi = 0;
        for (size_t k = 0; k < n; k++) {
            T_TRUE(s[k].min_ns <= s[k].median_ns && s[k].median_ns <= s[k].max_ns);
            T_TRUE(k == 0 || s[k - 1].step < s[k].step);
            const sts_host_step *st = sts_hosts_steps(h, s[k].slowest, &nst);
            int64_t slow = -1;
            for (size_t j = 0; j < nst; j++)
                if (st[j].step == s[k].step) slow = st[j].dur_ns;
            T_EQ_I64(slow, s[k].max_ns);
            T_EQ_I64(s[k].straggler, s[k].hosts >= 2 && (double)s[k].max_ns >= ratio * (double)s[k].median_ns);
            if (s[k].by.kind != STS_CAUSE_NONE) T_TRUE(s[k].by.slow_ns > s[k].by.median_ns);
            multi += s[k].hosts >= 2;
        }
        const sts_host_step_stats *hs = sts_alignment_hosts(a, NULL);
        for (size_t i = 0; i < nh; i++)
            slowest_total += hs[i].slowest;
        T_EQ_U64(slowest_total, multi);
        sts_alignment_free(a);
        sts_hosts_free(h);
    }
}

/* ---- host sets and reading -------------------------------------------------------------- */

static char tmpdir[256];

static void touch(const char *rel, const char *content)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", tmpdir, rel);
    for (char *p = path + strlen(tmpdir) + 1; *p; p++)
        if (*p == '/') *p = 0, mkdir(path, 0755), *p = '/';
    FILE *f = fopen(path, "w");
    if (f) fputs(content, f), fclose(f);
}

TEST(hostset_names_and_order)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sts_hosts_XXXXXX");
    if (!mkdtemp(tmpdir)) T_SKIP("no temporary directory");
    const char *json = "[{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5}]";
    touch("a/host10.json", json);
    touch("a/host2.json", json);
    touch("a/rank1.pt.trace.json", json);
    touch("b/host2.json", "[]");
    char p[5][512];
    snprintf(p[0], 512, "%s/a/host10.json", tmpdir);
    snprintf(p[1], 512, "%s/a/host2.json", tmpdir);
    snprintf(p[2], 512, "%s/a/rank1.pt.trace.json", tmpdir);
    snprintf(p[3], 512, "%s/b/host2.json", tmpdir);
    const char *in[4] = { p[0], p[1], p[2], p[3] };
    sts_hostset *set = NULL;
    T_TRUE(sts_hostset_expand(in, 4, NULL, &set, NULL) == STS_OK);
    size_t n;
    const sts_host_file *f = set ? sts_hostset_files(set, &n) : NULL;
    T_EQ_U64(set ? n : 0, 4);
    if (set && n == 4) {
        /* host2 twice: both named by path; then host10 and rank1 by stem, naturally ordered. */
        T_EQ_STR(f[0].name, p[1]);
        T_EQ_STR(f[1].name, p[3]);
        T_EQ_STR(f[2].name, "host10");
        T_EQ_STR(f[3].name, "rank1");
        T_EQ_U64(f[2].size, strlen(json));
    }
    T_TRUE(set && sts_hostset_run(set) == NULL);
    sts_hostset_free(set);
    /* The same file twice, "-" among others, a run without a profile directory. */
    const char *twice[2] = { p[0], p[0] };
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_hostset_expand(twice, 2, NULL, &set, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "the same file");
    const char *dash[2] = { "-", p[0] };
    T_EQ_I64(sts_hostset_expand(dash, 2, NULL, &set, &err), STS_ERR_INVALID_ARG);
    T_EQ_I64(sts_hostset_expand(in, 1, "RUN", &set, &err), STS_ERR_INVALID_ARG);
    /* A profile run: every .xplane.pb host of the latest run. */
    touch("prof/plugins/profile/2026_01_01_00_00_00/old.xplane.pb", "x");
    touch("prof/plugins/profile/2026_01_02_00_00_00/hostB.xplane.pb", "xx");
    touch("prof/plugins/profile/2026_01_02_00_00_00/hostA.xplane.pb", "xxx");
    touch("prof/plugins/profile/2026_01_02_00_00_00/hostA.trace.json.gz", "x");
    char prof[512];
    snprintf(prof, sizeof prof, "%s/prof", tmpdir);
    const char *pin[1] = { prof };
    T_TRUE(sts_hostset_expand(pin, 1, NULL, &set, NULL) == STS_OK);
    f = set ? sts_hostset_files(set, &n) : NULL;
    T_EQ_U64(set ? n : 0, 2);
    if (set && n == 2) {
        T_EQ_STR(f[0].name, "hostA");
        T_EQ_STR(f[1].name, "hostB");
        T_EQ_STR(sts_hostset_run(set), "2026_01_02_00_00_00");
        size_t nn;
        const char *const *notes = sts_hostset_notes(set, &nn);
        T_EQ_U64(nn, 1);
        T_CONTAINS(notes[0], "run 2026_01_02_00_00_00 (the latest of 2 runs), 2 hosts (*.xplane.pb)");
    }
    sts_hostset_free(set);
    T_TRUE(sts_hostset_expand(pin, 1, "2026_01_01_00_00_00", &set, NULL) == STS_OK);
    T_EQ_STR(set ? sts_hostset_files(set, NULL)[0].name : "", "old");
    sts_hostset_free(set);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    T_EQ_I64(system(cmd), 0);
}

/* Issue 34: whether two inputs are one file was asked of every pair, with a stat each
 * (4,000 hosts: 8 million stats, 14 s). 8,000 hosts: a minute that way, a fraction of a
 * second now; the pair named is still the earliest input with a twin, and its
 * earliest twin, whether named alike or through a symbolic link. */
TEST(hostset_twins_among_8000_hosts)
{
    enum { N = 8000 };
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sts_hosts_XXXXXX");
    if (!mkdtemp(tmpdir)) T_SKIP("no temporary directory");
    static char path[N + 3][300];
    static const char *in[N + 3];
    int made = 1;
    for (int k = 0; k < N && made; k++) {
        snprintf(path[k], sizeof path[k], "%s/h%d.json", tmpdir, k);
        FILE *f = fopen(path[k], "w");
        made = f && fputs("[]", f) >= 0 && fclose(f) == 0;
        in[k] = path[k];
    }
    snprintf(path[N], sizeof path[N], "%s/link-to-h5000.json", tmpdir);
    made = made && symlink("h5000.json", path[N]) == 0;
    T_TRUE(made);
    sts_hostset *set = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_hostset_expand(in, N, NULL, &set, &err), STS_OK);
    sts_hostset_free(set);
    set = NULL;
    in[N] = path[N];     /* h5000 again, through the link */
    in[N + 1] = in[300]; /* h300 again, by its name: the earlier input with a twin */
    in[N + 2] = in[300];
    T_EQ_I64(sts_hostset_expand(in, N + 3, NULL, &set, &err), STS_ERR_INVALID_ARG);
    char want[700];
    snprintf(want, sizeof want, "%s and %s are the same file", path[300], path[300]);
    T_CONTAINS(err.message, want);
    T_EQ_I64(sts_hostset_expand(in, N + 1, NULL, &set, &err), STS_ERR_INVALID_ARG);
    snprintf(want, sizeof want, "%s and %s are the same file", path[5000], path[N]);
    T_CONTAINS(err.message, want);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    T_EQ_I64(system(cmd), 0);
}

TEST(assign_balances_by_size)
{
    sts_host_file f[6] = { { "a", "a", 100 }, { "b", "b", 10 }, { "c", "c", 60 },
                           { "d", "d", 50 },  { "e", "e", 40 }, { "f", "f", 0 } };
    sts_hostset *set = NULL;
    T_TRUE(sts_hostset_from(f, 6, &set, NULL) == STS_OK);
    uint32_t part[6];
    sts_hostset_assign(set, 2, part);
    /* Largest first to the lighter part: a->0 (100), c->1 (60), d->1 (110), e->0 (140),
     * b->1 (120), f (counted as 1 byte)->1. */
    const uint32_t want[6] = { 0, 1, 1, 1, 0, 1 };
    for (int i = 0; i < 6; i++)
        T_EQ_U64(part[i], want[i]);
    sts_hostset_assign(set, 1, part);
    for (int i = 0; i < 6; i++)
        T_EQ_U64(part[i], 0);
    sts_hostset_free(set);
}

TEST(reading_on_threads_gives_the_same_records)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sts_hosts_XXXXXX");
    if (!mkdtemp(tmpdir)) T_SKIP("no temporary directory");
    sts_host_file f[7];
    char paths[7][512], names[7][16];
    for (int i = 0; i < 7; i++) {
        text t = { NULL, 0, 0 };
        add(&t, "[");
        for (int k = 0; k < 40; k++)
            add(&t, "%s{\"ph\":\"X\",\"name\":\"n%d\",\"pid\":1,\"tid\":%d,\"ts\":%d,\"dur\":%d}", k ? "," : "", k % 4,
                k % 2, k * 10, 5 + (int)(rnd() % 5));
        /* A device stream with collectives whose args sts_hosts_read() keeps. */
        add(&t, ",{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":2,\"tid\":7,\"args\":{\"name\":\"stream 7\"}}");
        for (int k = 0; k < 3; k++)
            add(&t,
                ",{\"ph\":\"X\",\"name\":\"ncclDevKernel_AllReduce\",\"pid\":2,\"tid\":7,\"ts\":%d,\"dur\":%d,"
                "\"args\":{\"Seq\":%d,\"Process Group Name\":\"0\"}}",
                k * 100 + (int)(rnd() % 20), 10 + (int)(rnd() % 9), k);
        add(&t, "]");
        snprintf(names[i], sizeof names[i], "h%d", i);
        char rel[32];
        snprintf(rel, sizeof rel, "h%d.json", i);
        touch(rel, t.p);
        free(t.p);
        snprintf(paths[i], sizeof paths[i], "%s/%s", tmpdir, rel);
        f[i] = (sts_host_file){ paths[i], names[i], 0 };
    }
    sts_hostset *set = NULL;
    T_TRUE(sts_hostset_from(f, 7, &set, NULL) == STS_OK);
    sts_hosts_options o = opts(STS_HOSTS_FACTS | STS_HOSTS_NAMES | STS_HOSTS_STEPS | STS_HOSTS_COLLECTIVES);
    sts_hosts *one = NULL, *many = NULL;
    o.jobs = 1;
    T_TRUE(sts_hosts_read(set, NULL, 0, &o, &one, NULL) == STS_OK);
    sts_collectives *c = NULL;
    size_t ninst = 0;
    T_TRUE(one && sts_collectives_match(one, &c, NULL) == STS_OK);
    if (c) sts_collectives_instances(c, &ninst);
    T_EQ_U64(ninst, 3); /* the args were kept: matched by Seq on all 7 hosts */
    T_TRUE(ninst == 0 || sts_collectives_instances(c, NULL)[0].by == STS_COLL_BY_SEQ);
    sts_collectives_free(c);
    o.jobs = 4;
    T_TRUE(sts_hosts_read(set, NULL, 0, &o, &many, NULL) == STS_OK);
    T_TRUE(one && many && sts_hosts_finish(one, NULL) == STS_OK && sts_hosts_finish(many, NULL) == STS_OK);
    T_TRUE(one && many && same_records(one, many));
    /* A subset. */
    size_t which[2] = { 5, 2 };
    sts_hosts *sub = NULL;
    T_TRUE(sts_hosts_read(set, which, 2, &o, &sub, NULL) == STS_OK);
    T_EQ_U64(sub ? sts_hosts_count(sub) : 0, 2);
    T_EQ_STR(sub ? sts_hosts_info(sub, 0)->name : "", "h2");
    /* The first failure in set order is reported, whatever the threads did first. */
    touch("h1.json", "PK\x03\x04 a zip archive");
    touch("h4.json", "garbage");
    for (unsigned jobs = 1; jobs <= 7; jobs += 3) {
        sts_hosts *bad = NULL;
        sts_error err = STS_ERROR_INIT;
        o.jobs = jobs;
        T_TRUE(sts_hosts_read(set, NULL, 0, &o, &bad, &err) != STS_OK);
        T_TRUE(bad == NULL);
        T_CONTAINS(err.message, paths[1]);
    }
    sts_hosts_free(one);
    sts_hosts_free(many);
    sts_hosts_free(sub);
    sts_hostset_free(set);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    T_EQ_I64(system(cmd), 0);
}

typedef struct each_log {
    size_t calls, order_ok;
} each_log;

static sts_status each_fn(size_t i, const sts_host_file *f, const sts_timeline *tl, void *user, sts_error *err)
{
    each_log *l = user;
    (void)f, (void)err;
    l->order_ok += i == l->calls && tl != NULL;
    l->calls++;
    return i == 4 ? STS_ERR_IO : STS_OK;
}

TEST(each_hands_timelines_over_in_order)
{
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sts_hosts_XXXXXX");
    if (!mkdtemp(tmpdir)) T_SKIP("no temporary directory");
    sts_host_file f[6];
    char paths[6][512];
    for (int i = 0; i < 6; i++) {
        char rel[32];
        snprintf(rel, sizeof rel, "e%d.json", i);
        touch(rel, "[{\"ph\":\"X\",\"name\":\"s\",\"pid\":1,\"tid\":1,\"ts\":0,\"dur\":5}]");
        snprintf(paths[i], sizeof paths[i], "%s/%s", tmpdir, rel);
        f[i] = (sts_host_file){ paths[i], "x", 0 };
    }
    sts_hostset *set = NULL;
    sts_hostset_from(f, 6, &set, NULL);
    each_log l = { 0, 0 };
    T_EQ_I64(sts_hostset_each(set, NULL, 3, each_fn, &l, NULL), STS_ERR_IO); /* stops at the callback's failure */
    T_EQ_U64(l.calls, 5);
    T_EQ_U64(l.order_ok, 5);
    sts_hostset_free(set);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    T_EQ_I64(system(cmd), 0);
}

/* Slices of the trace at `path`; -1 when it cannot be read. */
static long slices_of(const char *path)
{
    sts_timeline *tl = NULL;
    if (sts_timeline_open(path, NULL, &tl, NULL) != STS_OK) return -1;
    size_t n;
    sts_timeline_slices(tl, &n);
    sts_timeline_free(tl);
    return (long)n;
}

/* A PyTorch profiler directory (tensorboard_trace_handler: WORKER.TIME.pt.trace.json,
 * gzip or not, one file per worker and profiling cycle) is a host set of its workers,
 * each its latest trace, named by the worker, as HTA reads one trace per rank. Built
 * from the Kineto fixtures. */
TEST(torch_profiler_directory)
{
    const char *fx = t_fixtures();
    char k[3][4400];
    if (!fx) T_SKIP("no fixtures");
    snprintf(k[0], 4400, "%s/traces/kineto/cpu_only.json.gz", fx);
    snprintf(k[1], 4400, "%s/traces/kineto/simple_add_flows.json.gz", fx);
    snprintf(k[2], 4400, "%s/traces/kineto/profiler_steps_rank0.json.gz", fx);
    for (int i = 0; i < 3; i++)
        if (access(k[i], R_OK) != 0) T_SKIP("no Kineto fixtures");
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sts_ptdir_XXXXXX");
    if (!mkdtemp(tmpdir)) T_SKIP("no temporary directory");
    char cmd[20000];
    snprintf(
        cmd, sizeof cmd,
        "cp '%s' '%s/worker0.1701000000002.pt.trace.json.gz' && cp '%s' '%s/worker0.1701000000001.pt.trace.json.gz'"
        " && gzip -dc '%s' > '%s/worker1.1701000000003.pt.trace.json' && cp '%s' '%s/notes.txt'",
        k[0], tmpdir, k[1], tmpdir, k[2], tmpdir, k[0], tmpdir);
    T_EQ_I64(system(cmd), 0);
    const char *in[1] = { tmpdir };
    sts_hostset *set = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_hostset_expand(in, 1, NULL, &set, &err), STS_OK);
    size_t n = 0;
    const sts_host_file *f = set ? sts_hostset_files(set, &n) : NULL;
    T_EQ_U64(n, 2);
    if (n == 2) {
        T_EQ_STR(f[0].name, "worker0");
        T_EQ_STR(f[1].name, "worker1");
        T_CONTAINS(f[0].path, "worker0.1701000000002.pt.trace.json.gz"); /* the later cycle */
        T_CONTAINS(f[1].path, "worker1.1701000000003.pt.trace.json");
        /* each host reads as its own fixture does */
        T_EQ_I64(slices_of(f[0].path), slices_of(k[0]));
        T_EQ_I64(slices_of(f[1].path), slices_of(k[2]));
        T_TRUE(slices_of(k[0]) > 0 && slices_of(k[2]) > 0 && slices_of(k[0]) != slices_of(k[1]));
        size_t nn;
        const char *const *notes = sts_hostset_notes(set, &nn);
        T_TRUE(nn == 1 && strstr(notes[0], "2 hosts") &&
               strstr(notes[0], "1 older PyTorch profiler trace of the same workers left out"));
    }
    sts_hostset_free(set);
    /* Where one trace is read (diff, cut), the directory reads one worker and says so. */
    sts_timeline *tl = NULL;
    T_EQ_I64(sts_timeline_open(tmpdir, NULL, &tl, NULL), STS_OK);
    if (tl) {
        T_EQ_U64(sts_timeline_get_info(tl)->run_hosts, 2);
        size_t nw = 0;
        const char *const *w = sts_timeline_warnings(tl, &nw, NULL);
        int said = 0;
        for (size_t i = 0; i < nw; i++)
            said |= strstr(w[i], "the run holds 1 more trace file (other hosts); only this one was read") != NULL;
        T_TRUE(said);
    }
    sts_timeline_free(tl);
    /* One worker: the directory is read as a trace, its latest. */
    snprintf(cmd, sizeof cmd, "rm '%s/worker1.1701000000003.pt.trace.json'", tmpdir);
    T_EQ_I64(system(cmd), 0);
    T_EQ_I64(slices_of(tmpdir), slices_of(k[0]));
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    T_EQ_I64(system(cmd), 0);
}

int main(void)
{
    RUN(collective_kinds);
    RUN(device_lanes);
    RUN(xmedian_matches_the_median_of_all_values);
    RUN(xmedian_refuses_sums_that_cannot_be);
    RUN(names_merge_exactly_in_any_grouping);
    RUN(medians_set_from_outside_after_dropping_the_values);
    RUN(serialize_round_trip_and_refuse_damage);
    RUN(memory_per_host_step);
    RUN(device_view_per_host_step);
    RUN(collectives_match_and_align_known_clocks);
    RUN(collectives_of_the_8gpu_fixture);
    RUN(collectives_invariants_over_random_hosts);
    RUN(steps_align_and_find_the_straggler);
    RUN(alignment_invariants_over_random_hosts);
    RUN(hostset_names_and_order);
    RUN(torch_profiler_directory);
    RUN(hostset_twins_among_8000_hosts);
    RUN(assign_balances_by_size);
    RUN(reading_on_threads_gives_the_same_records);
    RUN(each_hands_timelines_over_in_order);
    return t_done();
}
