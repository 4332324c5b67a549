/* The recorder's concurrency checks (trace_threads.h) as a program of their own, linked
 * by `make check-tsan` against the library built with -fsanitize=thread and run by
 * tests/cli/test_trace.sh. */
#include "trace_threads.h"

int main(void)
{
    int bad = 0;
    const char *fail = tt_concurrent();
    printf("%s tsan: threads lose nothing%s%s\n", fail ? "FAIL" : "ok  ", fail ? ": " : "", fail ? fail : "");
    bad |= fail != NULL;
    fail = tt_stop_while_recording();
    printf("%s tsan: stop while threads record%s%s\n", fail ? "FAIL" : "ok  ", fail ? ": " : "", fail ? fail : "");
    bad |= fail != NULL;
    fail = tt_fair_shares(1, 0);
    printf("%s tsan: fair shares of a small pool%s%s\n", fail ? "FAIL" : "ok  ", fail ? ": " : "", fail ? fail : "");
    bad |= fail != NULL;
    fail = tt_churn();
    printf("%s tsan: threads come and go%s%s\n", fail ? "FAIL" : "ok  ", fail ? ": " : "", fail ? fail : "");
    bad |= fail != NULL;
    return bad;
}
