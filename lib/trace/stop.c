/* trace: stop and write the session as a JAX-style profile directory. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "stepscope/write.h"
#include "trace/build.h"

static void print_summary(const sts_trace_stats *st)
{
    fprintf(stderr, "stepscope: trace written to %s (%" PRIu64 " scopes, %u threads)\n", st->run_path, st->recorded,
            st->threads);
    if (st->dropped || st->too_deep)
        fprintf(stderr, "stepscope: %" PRIu64 " scopes dropped (event pool full), %" PRIu64 " nested too deep\n",
                st->dropped, st->too_deep);
    for (uint32_t i = 0; i < st->threads && i < STS_TRACE_MAX_THREAD_STATS; i++) {
        const sts_trace_thread_stats *t = &st->thread[i];
        if (t->dropped || t->too_deep)
            fprintf(stderr, "stepscope:   thread %s (tid %" PRId64 "): %" PRIu64 " dropped, %" PRIu64 " too deep\n",
                    t->name, t->tid, t->dropped, t->too_deep);
    }
}

/* Writes the session's profile directory. A SIGTERM or SIGINT that arrives meanwhile
 * is held until the files are in place, then raised (sts_crash_finish). */
static sts_status stop_and_write(sts_trace_stats *stats, sts_error *err)
{
    sts_timeline *tl = NULL;
    sts_status st = sts_rec_stop(&tl, stats, err);
    if (st != STS_OK) return st;
    sts_write_options wo = STS_WRITE_OPTIONS_INIT;
    wo.host = sts_rec.opt.host;
    char *run = NULL;
    st = sts_write_profile_dir(tl, sts_rec.dir, &wo, &run, err);
    sts_timeline_free(tl);
    if (st != STS_OK) return st;
    snprintf(stats->run_path, sizeof stats->run_path, "%s", run);
    free(run);
    if (sts_rec.opt.verbose || stats->dropped) print_summary(stats);
    return STS_OK;
}

sts_status sts_trace_stop(sts_trace_stats *stats, sts_error *err)
{
    sts_trace_stats local;
    sts_status st = stop_and_write(stats ? stats : &local, err);
    sts_crash_finish();
    return st;
}
