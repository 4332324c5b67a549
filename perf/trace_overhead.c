/* Recorder cost per scope (begin + end), one thread and two, against an equivalent
 * pair of LTTng-UST tracepoints, measured side by side in one process; and the heap
 * allocations made per event once warm (malloc is interposed below: must be zero).
 *
 *   trace_overhead [--runs N] [--scopes N] [--only recorder|lttng] [--label TEXT]
 *                  [--json PATH]
 *
 * Each configuration runs N times (default 21); each run has every thread record
 * `scopes` scopes in a tight loop and time itself with its own CPU clock
 * (CLOCK_THREAD_CPUTIME_ID: time other processes take on a shared core is not counted;
 * page faults are). A run's figure is the mean ns per scope over its threads; the
 * report gives the median of the runs (and min, max). The recorder gets a fresh session per run, so its figure includes
 * taking chunks from the pool and first-touch page faults on it. */
#if __has_include(<lttng/tracepoint.h>)
#define HAVE_LTTNG 1
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wmissing-prototypes"
#pragma GCC diagnostic ignored "-Wundef"
#pragma GCC diagnostic ignored "-Wstrict-prototypes"
#pragma GCC diagnostic ignored "-Wshadow"
#pragma GCC diagnostic ignored "-Wpointer-arith"
#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#include "trace_lttng_tp.h"
#pragma GCC diagnostic pop
#else
/* No liblttng-ust-dev: the LTTng half is reported as unavailable. */
#define HAVE_LTTNG                        0
#define lttng_ust_tracepoint(...)         ((void)0)
#define lttng_ust_tracepoint_enabled(...) 0
#endif

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "stepscope/trace.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define HAVE_RDTSC 1
#else
#define HAVE_RDTSC 0
#endif

/* ---- allocation counting: every heap entry point of this process ----------------- */

extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void *__libc_memalign(size_t align, size_t n);
extern void __libc_free(void *p);

static atomic_int counting;
static atomic_ullong allocations;

static void count_one(void)
{
    if (atomic_load_explicit(&counting, memory_order_relaxed))
        atomic_fetch_add_explicit(&allocations, 1, memory_order_relaxed);
}

void *malloc(size_t n)
{
    count_one();
    return __libc_malloc(n);
}

void *calloc(size_t n, size_t size)
{
    count_one();
    return __libc_calloc(n, size);
}

void *realloc(void *p, size_t n)
{
    count_one();
    return __libc_realloc(p, n);
}

void free(void *p)
{
    __libc_free(p);
}

int posix_memalign(void **out, size_t align, size_t n)
{
    count_one();
    void *p = __libc_memalign(align, n);
    if (!p) return 12; /* ENOMEM */
    *out = p;
    return 0;
}

void *aligned_alloc(size_t align, size_t n)
{
    count_one();
    return __libc_memalign(align, n);
}

/* ---- the workloads ------------------------------------------------------------- */

static int64_t now_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

/* The calling thread's CPU time: what a loop costs the thread itself, unaffected by
 * other processes taking the core (this 2-core machine is shared). */
static int64_t cpu_ns(void)
{
    struct timespec t;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t);
    return (int64_t)t.tv_sec * 1000000000 + t.tv_nsec;
}

typedef enum { W_RECORDER_SCOPE, W_RECORDER_PAIR, W_RECORDER_LAZY, W_RECORDER_IDLE, W_LTTNG, W_RDTSC_PAIR } workload;

static const char scope_name[] = "bench_scope";
static volatile uint64_t sink;

static void run_workload(workload w, uint64_t n)
{
    switch (w) {
    case W_RECORDER_SCOPE:
    case W_RECORDER_LAZY:
    case W_RECORDER_IDLE:
        for (uint64_t i = 0; i < n; i++) {
            STS_SCOPE(scope_name);
        }
        break;
    case W_RECORDER_PAIR:
        for (uint64_t i = 0; i < n; i++) {
            sts_scope_begin(scope_name);
            sts_scope_end();
        }
        break;
    case W_LTTNG:
        for (uint64_t i = 0; i < n; i++) {
            lttng_ust_tracepoint(sts_bench, scope_begin, scope_name);
            lttng_ust_tracepoint(sts_bench, scope_end, scope_name);
        }
        break;
    case W_RDTSC_PAIR: {
        uint64_t acc = 0;
#if HAVE_RDTSC
        for (uint64_t i = 0; i < n; i++) {
            uint64_t a = __rdtsc();
            __asm__ volatile("" ::: "memory");
            acc += __rdtsc() - a;
        }
#endif
        sink = acc;
        break;
    }
    }
}

typedef struct worker {
    pthread_t th;
    workload w;
    uint64_t n;
    pthread_barrier_t *bar;
    double ns_per_scope;
} worker;

static void *worker_main(void *arg)
{
    worker *k = arg;
    run_workload(k->w, 64); /* joins the session, takes its first chunk */
    pthread_barrier_wait(k->bar);
    int64_t t0 = cpu_ns();
    run_workload(k->w, k->n);
    int64_t t1 = cpu_ns();
    k->ns_per_scope = (double)(t1 - t0) / (double)k->n;
    return NULL;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

typedef struct result {
    const char *what;
    int threads;
    double median, min, max;
    uint64_t allocations, events;
    uint64_t dropped;
    double start_ms; /* median time of sts_trace_start (pool pre-faulting) */
} result;

static const char *trace_dir;

/* One configuration, `runs` times; the median of the per-run means. */
static result measure(const char *what, workload w, int threads, int runs, uint64_t n)
{
    double *v = calloc((size_t)runs, sizeof *v), *sv = calloc((size_t)runs, sizeof *sv);
    result r = { what, threads, 0, 0, 0, 0, 0, 0, 0 };
    int recorder = w == W_RECORDER_SCOPE || w == W_RECORDER_PAIR || w == W_RECORDER_LAZY;
    for (int run = 0; run < runs; run++) {
        if (recorder) {
            sts_trace_options o = STS_TRACE_OPTIONS_INIT;
            o.pool_bytes = (size_t)threads * (n + 1024) * 32 + ((size_t)threads << 20);
            o.lazy_pages = w == W_RECORDER_LAZY;
            sts_error err = STS_ERROR_INIT;
            int64_t s0 = now_ns();
            if (sts_trace_start(trace_dir, &o, &err) != STS_OK) {
                fprintf(stderr, "trace_overhead: %s\n", err.message);
                exit(1);
            }
            sv[run] = (double)(now_ns() - s0) / 1e6;
        }
        worker k[8];
        pthread_barrier_t bar;
        pthread_barrier_init(&bar, NULL, (unsigned)threads);
        atomic_store(&counting, 1);
        for (int t = 0; t < threads; t++) {
            k[t].w = w;
            k[t].n = n;
            k[t].bar = &bar;
        }
        /* Thread creation allocates; count only inside the measured loops. */
        atomic_store(&counting, 0);
        for (int t = 1; t < threads; t++)
            pthread_create(&k[t].th, NULL, worker_main, &k[t]);
        run_workload(w, 64);
        pthread_barrier_wait(&bar);
        uint64_t before = atomic_load(&allocations);
        atomic_store(&counting, 1);
        int64_t t0 = cpu_ns();
        run_workload(w, n);
        int64_t t1 = cpu_ns();
        k[0].ns_per_scope = (double)(t1 - t0) / (double)n;
        for (int t = 1; t < threads; t++)
            pthread_join(k[t].th, NULL);
        atomic_store(&counting, 0);
        /* Other threads' loops were inside the counting window too. */
        r.allocations += atomic_load(&allocations) - before;
        r.events += (uint64_t)threads * n * 2;
        pthread_barrier_destroy(&bar);
        double sum = 0;
        for (int t = 0; t < threads; t++)
            sum += k[t].ns_per_scope;
        v[run] = sum / threads;
        if (recorder) {
            sts_trace_stats st;
            sts_timeline *tl = NULL;
            if (sts_trace_stop_timeline(&tl, &st, NULL) == STS_OK) r.dropped += st.dropped;
            sts_timeline_free(tl);
        }
    }
    qsort(v, (size_t)runs, sizeof *v, cmp_double);
    r.median = runs % 2 ? v[runs / 2] : (v[runs / 2 - 1] + v[runs / 2]) / 2;
    r.min = v[0];
    r.max = v[runs - 1];
    qsort(sv, (size_t)runs, sizeof *sv, cmp_double);
    r.start_ms = sv[runs / 2];
    free(v);
    free(sv);
    return r;
}

static void print_result(const result *r, const char *label)
{
    printf("  %-28s %d thread%s  %7.2f ns/scope  (min %.2f, max %.2f)  allocations %llu in %llu events%s\n", r->what,
           r->threads, r->threads > 1 ? "s" : " ", r->median, r->min, r->max, (unsigned long long)r->allocations,
           (unsigned long long)r->events, label);
    if (r->start_ms > 0)
        printf("  %-28s (sts_trace_start took %.2f ms: 1 ms clock calibration + pool)\n", "", r->start_ms);
    if (r->dropped) printf("  (recorder dropped %llu scopes: pool too small)\n", (unsigned long long)r->dropped);
}

int main(int argc, char **argv)
{
    int runs = 21;
    uint64_t n = 200000;
    const char *only = NULL, *label = "", *json = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--runs") && i + 1 < argc)
            runs = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--scopes") && i + 1 < argc)
            n = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--only") && i + 1 < argc)
            only = argv[++i];
        else if (!strcmp(argv[i], "--label") && i + 1 < argc)
            label = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else {
            fprintf(stderr, "usage: trace_overhead [--runs N] [--scopes N] [--only recorder|lttng] [--label TEXT] "
                            "[--json PATH]\n");
            return 2;
        }
    }
    if (runs < 1 || n < 1) {
        fprintf(stderr, "trace_overhead: --runs and --scopes must be positive\n");
        return 2;
    }
    char dir[] = "/tmp/sts-bench-trace-XXXXXX";
    trace_dir = mkdtemp(dir);
    if (!trace_dir) {
        perror("mkdtemp");
        return 1;
    }
    int lttng_on = lttng_ust_tracepoint_enabled(sts_bench, scope_begin) ? 1 : 0;
    printf("trace_overhead: %d runs of %llu scopes per thread, thread CPU time; LTTng tracepoints %s%s\n", runs,
           (unsigned long long)n, lttng_on ? "enabled (a session is recording them)" : "disabled (no session)", label);
    result res[12];
    int nres = 0;
    int do_rec = !only || !strcmp(only, "recorder"), do_lt = HAVE_LTTNG && (!only || !strcmp(only, "lttng"));
    if (!HAVE_LTTNG) printf("  (built without liblttng-ust-dev: no LTTng comparison; scripts/deps.sh bench)\n");
    if (do_rec) {
        res[nres++] = measure("rdtsc pair (clock floor)", W_RDTSC_PAIR, 1, runs, n);
        res[nres++] = measure("stepscope STS_SCOPE", W_RECORDER_SCOPE, 1, runs, n);
        res[nres++] = measure("stepscope STS_SCOPE", W_RECORDER_SCOPE, 2, runs, n);
        res[nres++] = measure("stepscope begin/end", W_RECORDER_PAIR, 1, runs, n);
        res[nres++] = measure("stepscope STS_SCOPE lazy pages", W_RECORDER_LAZY, 1, runs, n);
        res[nres++] = measure("stepscope, no session", W_RECORDER_IDLE, 1, runs, n);
    }
    if (do_lt) {
        res[nres++] = measure(lttng_on ? "lttng-ust (session)" : "lttng-ust (no session)", W_LTTNG, 1, runs, n);
        res[nres++] = measure(lttng_on ? "lttng-ust (session)" : "lttng-ust (no session)", W_LTTNG, 2, runs, n);
    }
    for (int i = 0; i < nres; i++)
        print_result(&res[i], "");
    if (do_rec && do_lt) {
        printf("  ratio lttng-ust / stepscope while %s: %.2f (1 thread), %.2f (2 threads)\n",
               lttng_on ? "recording" : "idle (LTTng with no session vs stepscope with none)",
               res[6].median / (lttng_on ? res[1].median : res[5].median),
               res[7].median / (lttng_on ? res[2].median : res[5].median));
    }
    uint64_t rec_alloc = 0;
    for (int i = 0; i < nres; i++)
        if (strncmp(res[i].what, "stepscope", 9) == 0) rec_alloc += res[i].allocations;
    if (do_rec) printf("  recorder allocations per event after warm-up: %llu\n", (unsigned long long)rec_alloc);
    if (json) {
        FILE *f = fopen(json, "w");
        if (f) {
            fprintf(f, "{\"runs\":%d,\"scopes_per_thread\":%llu,\"lttng_enabled\":%d,\"results\":[", runs,
                    (unsigned long long)n, lttng_on);
            for (int i = 0; i < nres; i++)
                fprintf(f,
                        "%s{\"what\":\"%s\",\"threads\":%d,\"median_ns\":%.3f,\"min_ns\":%.3f,\"max_ns\":%.3f,"
                        "\"allocations\":%llu,\"events\":%llu}",
                        i ? "," : "", res[i].what, res[i].threads, res[i].median, res[i].min, res[i].max,
                        (unsigned long long)res[i].allocations, (unsigned long long)res[i].events);
            fprintf(f, "]}\n");
            fclose(f);
        }
    }
    rmdir(trace_dir);
    return do_rec && rec_alloc != 0 ? 1 : 0;
}
