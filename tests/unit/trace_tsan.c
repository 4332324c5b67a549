/* The recorder's concurrency checks (trace_threads.h) as a program of their own, for
 * tests/cli/test_trace.sh to build with -fsanitize=thread from the recorder's core
 * sources only (no writers, no device layer). */
#include "trace_threads.h"

/* The core build has no writers; nothing here writes files. */
sts_status sts_trace_stop(sts_trace_stats *stats, sts_error *err) { return sts_trace_stop_timeline(NULL, stats, err); }

int main(void)
{
    int bad = 0;
    const char *fail = tt_concurrent();
    printf("%s tsan: threads lose nothing%s%s\n", fail ? "FAIL" : "ok  ", fail ? ": " : "", fail ? fail : "");
    bad |= fail != NULL;
    fail = tt_stop_while_recording();
    printf("%s tsan: stop while threads record%s%s\n", fail ? "FAIL" : "ok  ", fail ? ": " : "", fail ? fail : "");
    bad |= fail != NULL;
    return bad;
}
