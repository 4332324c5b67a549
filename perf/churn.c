/* perf/churn: the recorder under thread churn (issue 34 item 14), for perf/run_corners.sh.
 *
 *   churn N
 *
 * Starts a session with the default pool, runs N short-lived threads one after another,
 * each naming itself and recording 3 scopes with two args (as tests/unit/test_trace.c's
 * churning_threads_share_the_pool does), stops into a timeline, and prints
 * "N CPU_SECONDS RECORDED DROPPED": the process CPU time (user + system, the exited
 * threads' included) of the churn and the stop, not of the start, whose cost is the
 * pool's and not N's. Registration once scanned every state ever registered, so N
 * threads cost N^2; now time at 4N is about 4 times N's. Exit 1 when a scope was
 * dropped or a session call failed. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

#include "stepscope/timeline.h"
#include "stepscope/trace.h"

#define SCOPES 3

static double cpu_now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *one_thread(void *p)
{
    int n = *(const int *)p;
    char name[32];
    snprintf(name, sizeof name, "churn %d", n);
    sts_trace_thread_name(name);
    for (int i = 0; i < SCOPES; i++) {
        STS_SCOPE("work");
        sts_scope_arg_int("n", n);
        sts_scope_arg_int("tid", (int64_t)gettid());
    }
    return NULL;
}

int main(int argc, char **argv)
{
    long n = argc == 2 ? strtol(argv[1], NULL, 10) : 0;
    if (n < 1 || n > 10000000) {
        fprintf(stderr, "usage: churn N (threads, 1 to 10^7)\n");
        return 2;
    }
    char dir[] = "/tmp/stepscope-churn-XXXXXX";
    if (!mkdtemp(dir)) {
        perror("churn: mkdtemp");
        return 1;
    }
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_start(dir, NULL, &err) != STS_OK) {
        fprintf(stderr, "churn: start: %s\n", err.message);
        return 1;
    }
    double t0 = cpu_now();
    for (int i = 0; i < (int)n; i++) {
        pthread_t th;
        int k = i;
        if (pthread_create(&th, NULL, one_thread, &k) != 0) {
            fprintf(stderr, "churn: pthread_create failed at thread %d\n", i);
            return 1;
        }
        pthread_join(th, NULL);
    }
    sts_timeline *tl = NULL;
    sts_trace_stats st;
    if (sts_trace_stop_timeline(&tl, &st, &err) != STS_OK) {
        fprintf(stderr, "churn: stop: %s\n", err.message);
        return 1;
    }
    double t = cpu_now() - t0;
    sts_timeline_free(tl);
    rmdir(dir);
    printf("%ld %.3f %llu %llu\n", n, t, (unsigned long long)st.recorded, (unsigned long long)st.dropped);
    return st.dropped == 0 && st.recorded == (uint64_t)n * SCOPES ? 0 : 1;
}
