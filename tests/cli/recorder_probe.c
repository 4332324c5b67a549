/* A program that records, for the reliability tier's recorder probes (built by
 * tests/cli/test_reliability.sh against the library under test):
 *   recorder_probe DIR fair   8 threads on a 64 KiB pool, each trying 2000 scopes;
 *                             prints "thread NAME recorded R dropped D" per thread
 *   recorder_probe DIR wait   records two steps with flush_on_signal, prints "ready",
 *                             then waits inside a scope for a signal
 *   recorder_probe DIR full   overfills a 4 KiB pool (200 scopes), then aborts
 *   recorder_probe DIR stop   records two steps with flush_on_signal and stops,
 *                             writing the profile directory
 * Exit 0 when it ends by itself, 1 when the recorder reports an error (printed). */
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "stepscope.h"

static int fail(const char *what, const sts_error *err)
{
    fprintf(stderr, "recorder_probe: %s: %s\n", what, err->message);
    return 1;
}

static void steps(void)
{
    for (int i = 0; i < 2; i++) {
        STS_STEP("learner_step", i);
        {
            STS_SCOPE("input_wait");
            struct timespec t = { 0, 100000 };
            nanosleep(&t, NULL);
        }
        {
            STS_SCOPE("model_and_wait");
        }
    }
}

static void *worker(void *arg)
{
    char name[16];
    snprintf(name, sizeof name, "worker %d", (int)(long)arg);
    sts_trace_thread_name(name);
    for (int i = 0; i < 2000; i++) {
        STS_SCOPE("work");
    }
    return NULL;
}

static int fair(const char *dir)
{
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.pool_bytes = 64 << 10;
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_start(dir, &o, &err) != STS_OK) return fail("start", &err);
    pthread_t th[8];
    for (long i = 0; i < 8; i++)
        pthread_create(&th[i], NULL, worker, (void *)i);
    for (int i = 0; i < 8; i++)
        pthread_join(th[i], NULL);
    sts_trace_stats st;
    if (sts_trace_stop(&st, &err) != STS_OK) return fail("stop", &err);
    for (uint32_t i = 0; i < st.threads && i < STS_TRACE_MAX_THREAD_STATS; i++)
        printf("thread %s recorded %llu dropped %llu\n", st.thread[i].name, (unsigned long long)st.thread[i].recorded,
               (unsigned long long)st.thread[i].dropped);
    printf("run %s\n", st.run_path);
    return 0;
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: recorder_probe DIR fair|wait|full|stop\n");
        return 2;
    }
    const char *dir = argv[1], *mode = argv[2];
    if (strcmp(mode, "fair") == 0) return fair(dir);
    /* A shell starts a background job with SIGINT ignored; at a terminal a program has
     * it at its default, which is the case this probe stands for. */
    if (strcmp(mode, "wait") == 0) signal(SIGINT, SIG_DFL);
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.flush_on_signal = 1;
    if (strcmp(mode, "full") == 0) {
        o.pool_bytes = 4096;
        o.chunk_bytes = 1024;
        struct rlimit none = { 0, 0 };
        setrlimit(RLIMIT_CORE, &none);
    }
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_start(dir, &o, &err) != STS_OK) return fail("start", &err);
    if (strcmp(mode, "full") == 0) {
        for (int i = 0; i < 200; i++) {
            STS_SCOPE("s");
        }
        abort();
    }
    steps();
    if (strcmp(mode, "wait") == 0) {
        STS_SCOPE("waiting for the signal");
        printf("ready\n");
        fflush(stdout);
        for (;;)
            pause();
    }
    sts_trace_stats st;
    if (sts_trace_stop(&st, &err) != STS_OK) return fail("stop", &err);
    printf("run %s\n", st.run_path);
    return 0;
}
