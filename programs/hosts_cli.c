#include "hosts_cli.h"

#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "trace_cli.h"

static void print_notes(const char *cmd, const sts_hostset *set)
{
    size_t n;
    const char *const *notes = sts_hostset_notes(set, &n);
    for (size_t i = 0; i < n; i++)
        cli_say(stderr, "stepscope %s: %s\n", cmd, notes[i]);
}

/* The hosts' warnings: the first 10 of all, host by host, then a count of the rest. */
static void print_warnings(const char *cmd, const sts_hosts *h)
{
    uint64_t shown = 0, total = 0, hosts = 0;
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const sts_host_info *in = sts_hosts_info(h, i);
        size_t n;
        const char *const *w = sts_hosts_warnings(h, i, &n);
        total += in->warnings_total;
        hosts += in->warnings_total > 0;
        for (size_t k = 0; k < n && shown < 10; k++, shown++) {
            cli_say(stderr, "stepscope %s: warning: ", cmd);
            cli_put_text(stderr, in->name);
            fputs(": ", stderr);
            cli_put_text(stderr, w[k]);
            fputc('\n', stderr);
        }
    }
    if (total > shown)
        cli_say(stderr, "stepscope %s: warning: ... and %" PRIu64 " more warning%s (%" PRIu64 " host%s warned)\n", cmd,
                total - shown, total - shown == 1 ? "" : "s", hosts, hosts == 1 ? "" : "s");
}

/* Rank 0 (or the only process) expands; under MPI the others receive its result. */
static int expand(const hc_opts *o, sts_hostset **set)
{
    sts_error err = STS_ERROR_INIT;
    int rc = CLI_OK;
    if (!o->mpi || hm_rank() == 0) {
        if (sts_hostset_expand(o->inputs, o->ninputs, o->run, set, &err) != STS_OK) {
            rc = CLI_BAD_INPUT; /* as a trace that does not open */
            if (!o->mpi) cli_report(o->cmd, &err);
        }
    }
    if (!o->mpi) return rc;
    char msg[640];
    snprintf(msg, sizeof msg, "stepscope %s: error: %s", o->cmd, err.message);
    return hm_share_set(o->cmd, set, rc, rc == CLI_OK ? NULL : msg);
}

int hc_collect(const hc_opts *o, unsigned what, const sts_step_options *steps, sts_hostset **set, sts_hosts **out)
{
    *set = NULL;
    *out = NULL;
    if (o->jobs != INT_MIN && o->jobs < 1) {
        cli_say(stderr, "stepscope %s: --jobs expects a number of threads (0: one per core), got %d\n", o->cmd,
                o->jobs);
        return CLI_USAGE;
    }
    int rc;
    if (o->mpi && (rc = hm_init(o->cmd)) != CLI_OK) return rc;
    if ((rc = expand(o, set)) != CLI_OK) return rc;
    size_t n;
    sts_hostset_files(*set, &n);
    if (n == 1 && !o->hosts_always) {
        /* One host reads as it always has; under MPI rank 0 reads it, the others read
         * chunks of it for rank 0 when it is a large plain JSON file. */
        if (o->mpi && hm_rank() != 0) return hm_chunks_serve(o->cmd, 0, (unsigned)hm_rank());
        if (o->mpi && hm_size() > 1) {
            int *helpers = malloc((size_t)hm_size() * sizeof *helpers);
            for (int r = 1; helpers && r < hm_size(); r++)
                helpers[r - 1] = r;
            if (helpers)
                hm_chunks_arm(helpers, hm_size() - 1);
            else
                hm_chunks_arm(NULL, 0); /* no memory: every helper is sent an empty plan */
            free(helpers);
        }
        return HC_SINGLE;
    }
    if (o->one_host) {
        if (!o->mpi || hm_rank() == 0)
            cli_say(stderr, "stepscope %s: %s applies to one trace; with %zu hosts it is not supported (yet)\n", o->cmd,
                    o->one_host, n);
        return CLI_USAGE;
    }
    if (!o->mpi || hm_rank() == 0) print_notes(o->cmd, *set);
    sts_hosts_options ho = STS_HOSTS_OPTIONS_INIT;
    if ((rc = tc_keep_options(o->cmd, o->args, &ho.open)) != CLI_OK) return rc;
    ho.what = what;
    /* The memory events' keys are kept only when asked, as for one trace. */
    if ((what & (STS_HOSTS_MEMORY | STS_HOSTS_MEMORY_DEVICES)) && ho.open.args != STS_ARGS_ALL)
        ho.open.args = (sts_args_mode)((unsigned)ho.open.args | STS_ARGS_WITH_MEMORY);
    if (steps) ho.steps = *steps;
    ho.device_rules = o->rules;
    ho.jobs = o->jobs != INT_MIN ? (unsigned)o->jobs : o->mpi ? hm_default_jobs() : 0;
    if (o->mpi) {
        rc = hm_collect(o->cmd, *set, &ho, out);
    } else {
        sts_error err = STS_ERROR_INIT;
        if (sts_hosts_read(*set, NULL, 0, &ho, out, &err) != STS_OK || sts_hosts_finish(*out, &err) != STS_OK)
            rc = cli_report(o->cmd, &err);
    }
    if (rc == CLI_OK && *out) print_warnings(o->cmd, *out);
    return rc;
}

int hc_analyze(const hc_opts *o, int json, size_t top, int memory)
{
    sts_hostset *set = NULL;
    sts_hosts *h = NULL;
    int rc = hc_collect(o, memory ? STS_HOSTS_MEMORY_DEVICES : STS_HOSTS_FACTS | STS_HOSTS_NAMES, NULL, &set, &h);
    if (rc == CLI_OK && h) rc = memory ? hc_print_memory(h, set, json) : hc_print_analyze(h, set, json, top);
    sts_hosts_free(h);
    sts_hostset_free(set);
    return rc;
}

int hc_steps(const hc_opts *o, const char *step, int xprof, int json, double ratio, unsigned extra)
{
    return hc_steps_colls(o, step, xprof, json, ratio, extra, 0);
}

/* Matches the collectives, and with HC_ALIGN moves the records onto aligned clocks; says
 * so when none was matched (exit 1 after the output, as for steps found nowhere). */
static int match_colls(const char *cmd, sts_hosts *h, int colls, sts_collectives **c)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_collectives_match(h, c, &err) != STS_OK) return cli_report(cmd, &err);
    size_t n;
    sts_collectives_instances(*c, &n);
    if (sts_collectives_counts(*c)->unpaired)
        cli_say(stderr,
                "stepscope %s: warning: collectives left out: %" PRIu64
                " collective call(s) on host threads that do not pair one to one with their gloo work (their ends "
                "unknown)\n",
                cmd, sts_collectives_counts(*c)->unpaired);
    if (!n) {
        cli_say(stderr,
                "stepscope %s: no collective was matched across ranks (%" PRIu64
                " collective ops on the hosts' device lanes): no waits, and the clocks are not aligned\n",
                cmd, sts_collectives_counts(*c)->ops);
        return CLI_BAD_INPUT;
    }
    const sts_coll_counts *k = sts_collectives_counts(*c);
    if (k->one_rank || k->repeated || k->partial || k->conflicts || k->uneven)
        cli_say(stderr,
                "stepscope %s: warning: collectives left out: %" PRIu64 " seen on one rank only, %" PRIu64
                " with a sequence number a rank repeats, %" PRIu64
                " seen on fewer ranks than their group size, %" PRIu64 " whose ranks disagree on the kind, %" PRIu64
                " group(s) matched by order with uneven counts\n",
                cmd, k->one_rank, k->repeated, k->partial, k->conflicts, k->uneven);
    if (colls & HC_ALIGN) sts_hosts_apply_offsets(h, *c);
    return CLI_OK;
}

int hc_steps_colls(const hc_opts *o, const char *step, int xprof, int json, double ratio, unsigned extra, int colls)
{
    if (!(ratio >= 1.0) || ratio > 1e9) {
        cli_say(stderr, "stepscope %s: --straggler-ratio expects a number >= 1, got %g\n", o->cmd, ratio);
        return CLI_USAGE;
    }
    /* Each host's steps as for one trace; its windows on other lanes are not kept. */
    static const uint32_t no_lanes[1] = { 0 };
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = step;
    so.xprof_view = xprof;
    so.window_lanes = no_lanes;
    so.nwindow_lanes = 0;
    sts_hostset *set = NULL;
    sts_hosts *h = NULL;
    unsigned what =
        STS_HOSTS_STEPS | (extra & (STS_HOSTS_DEVICE | STS_HOSTS_MEMORY)) | (colls ? STS_HOSTS_COLLECTIVES : 0u);
    int rc = hc_collect(o, what, &so, &set, &h);
    sts_collectives *c = NULL;
    int crc = CLI_OK;
    if (rc == CLI_OK && h && colls) crc = match_colls(o->cmd, h, colls, &c);
    if (rc == CLI_OK && h && (c || !colls)) rc = hc_print_steps(h, set, json, ratio, c);
    if (rc == CLI_OK) rc = crc;
    sts_collectives_free(c);
    sts_hosts_free(h);
    sts_hostset_free(set);
    return rc;
}
