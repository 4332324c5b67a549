/* A program that records hostile text, for tests/cli/test_recorder_text.sh (built
 * there against the library under test):
 *   recorder_hostile DIR names   records the names below and stops, writing the
 *                                profile directory; prints "run PATH"
 *   recorder_hostile DIR crash   records the same, then aborts inside a scope named
 *                                "open \xfe scope" (the signal dump)
 * The names: a thread name of 62 ASCII bytes then "é" (the recorder keeps 63 bytes),
 * a second thread whose name the kernel cut inside "é" (it keeps 15 bytes), an arg value of 254 bytes then "€" (it
 * keeps 255), and bytes that are not UTF-8 at all in a scope name, an arg key, an arg value and a thread name. Exit 0
 * when it ends by itself, 1 when the recorder reports an error. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>

#include "stepscope.h"

static int fail(const char *what, const sts_error *err)
{
    fprintf(stderr, "recorder_hostile: %s: %s\n", what, err->message);
    return 1;
}

static void *kernel_named(void *arg)
{
    (void)arg;
    /* 14 bytes, then "é": the kernel keeps 15 bytes, the first of "é" among them. */
    prctl(PR_SET_NAME, "kernel-named-x\xc3\xa9", 0, 0, 0);
    STS_SCOPE("in the kernel-named thread");
    return NULL;
}

static void *raw_named(void *arg)
{
    (void)arg;
    sts_trace_thread_name("raw \xff\xfe thread");
    STS_SCOPE("in the raw-named thread");
    return NULL;
}

static void record(int crash)
{
    char tname[80];
    memset(tname, 'a', 62);
    strcpy(tname + 62, "\xc3\xa9 tail");
    sts_trace_thread_name(tname);
    static char value[300];
    memset(value, 'b', 254);
    strcpy(value + 254, "\xe2\x82\xac more");
    pthread_t th[2];
    pthread_create(&th[0], NULL, kernel_named, NULL);
    pthread_create(&th[1], NULL, raw_named, NULL);
    pthread_join(th[0], NULL);
    pthread_join(th[1], NULL);
    {
        STS_SCOPE("bad \xff\xfe name");
        sts_scope_arg_str("long", value);
        sts_scope_arg_str("raw", "x\xc0\xafy\xed\xa0\x80z"); /* overlong '/', a surrogate */
        sts_scope_arg_str("key \xff", "v");
    }
    if (crash) {
        struct rlimit none = { 0, 0 };
        setrlimit(RLIMIT_CORE, &none);
        STS_SCOPE("open \xfe scope"); /* the dump's "B" event */
        abort();
    }
}

int main(int argc, char **argv)
{
    if (argc != 3 || (strcmp(argv[2], "names") != 0 && strcmp(argv[2], "crash") != 0)) {
        fprintf(stderr, "usage: recorder_hostile DIR names|crash\n");
        return 2;
    }
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    o.flush_on_signal = 1;
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_start(argv[1], &o, &err) != STS_OK) return fail("start", &err);
    record(strcmp(argv[2], "crash") == 0);
    sts_trace_stats st;
    if (sts_trace_stop(&st, &err) != STS_OK) return fail("stop", &err);
    printf("run %s\n", st.run_path);
    return 0;
}
