/* Profiler bookkeeping: lanes that hold only the profiler's own spans, such as Kineto's
 * "PyTorch Profiler (0)" slice covering the whole capture on the "Spans" process. They
 * say when the profiler ran, not what the program did, so they are left out of the
 * lanes reported beside the steps (and counted). */
#include <string.h>

#include "analyze/an_impl.h"

static int bookkeeping_name(const char *s)
{
    static const char prefix[] = "PyTorch Profiler (";
    size_t n = strlen(s);
    return strncmp(s, prefix, sizeof prefix - 1) == 0 && n > sizeof prefix - 1 && s[n - 1] == ')';
}

int sts_an_lane_is_bookkeeping(const sts_timeline *tl, uint32_t lane)
{
    size_t nl;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    if (lane >= nl || !ln[lane].slice_count) return 0;
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    for (uint32_t i = ln[lane].first_slice; i < ln[lane].first_slice + ln[lane].slice_count; i++)
        if (!bookkeeping_name(sts_timeline_string(tl, s[i].name))) return 0;
    return 1;
}
