/* gen_xplane: turns a Chrome trace into an XSpace .xplane.pb with the project's own
 * writer (stepscope/write.h), for the XPlane reading benchmark (perf/run_xplane.sh).
 *
 *   gen_xplane TRACE.json OUT.xplane.pb
 *
 * Feeding it gen_trace's Kineto-like trace gives planes with what real profiles hold:
 * nested named events on several lines, stats on most of them (ids, correlations,
 * shapes as strings under --args all), steps with step_num. Prints what it wrote. */
#include <inttypes.h>
#include <stdio.h>
#include <sys/stat.h>

#include "stepscope.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: gen_xplane TRACE.json OUT.xplane.pb\n");
        return 2;
    }
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = STS_ARGS_ALL;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(argv[1], &opt, &tl, &err) != STS_OK) {
        fprintf(stderr, "gen_xplane: %s\n", err.message);
        return 1;
    }
    sts_write_options wo = STS_WRITE_OPTIONS_INIT;
    wo.host = "bench-host";
    sts_status st = sts_write_xplane(tl, argv[2], &wo, &err);
    size_t slices = 0;
    sts_timeline_slices(tl, &slices);
    sts_timeline_free(tl);
    if (st != STS_OK) {
        fprintf(stderr, "gen_xplane: %s\n", err.message);
        return 1;
    }
    struct stat sb;
    stat(argv[2], &sb);
    printf("gen_xplane: %s: %lld bytes, %zu events\n", argv[2], (long long)sb.st_size, slices);
    return 0;
}
