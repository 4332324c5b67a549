/* stepscope steps on several hosts: each host's steps aligned by step number, the
 * spread per step, the slowest host and what it spent longer on than the median host,
 * and the stragglers. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "hosts_cli.h"
#include "trace_cli.h"

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static const char *host_name(const sts_hosts *h, uint32_t i)
{
    return sts_hosts_info(h, i)->name;
}

/* The median of a host's per-step collective time; -1 without device lanes. */
static int64_t median_collective(const sts_hosts *h, size_t i)
{
    size_t n;
    const sts_host_step *st = sts_hosts_steps(h, i, &n);
    if (!n || st[0].collective_ns < 0) return -1;
    int64_t *v = malloc(n * sizeof *v);
    if (!v) return -1;
    for (size_t k = 0; k < n; k++)
        v[k] = st[k].collective_ns;
    int64_t m = sts_median_i64(v, n);
    free(v);
    return m;
}

/* "all-reduce (collective on the device lanes)", "'input' (a child of the step)", ... */
static void cause_text(const sts_step_cause *c, char *out, size_t cap)
{
    switch (c->kind) {
    case STS_CAUSE_COLLECTIVE:
        snprintf(out, cap, "%s (collective, device lanes)", c->name);
        break;
    case STS_CAUSE_DEVICE:
        snprintf(out, cap, "device busy outside collectives");
        break;
    case STS_CAUSE_CHILD:
        snprintf(out, cap, "'%s' (child of the step)", c->name);
        break;
    case STS_CAUSE_UNATTRIBUTED:
        snprintf(out, cap, "unattributed (step time no child covers)");
        break;
    case STS_CAUSE_NONE:
        snprintf(out, cap, "-");
        break;
    }
}

/* ---- text ----------------------------------------------------------------------------- */

static void print_rules(const sts_hosts *h, const sts_alignment *a)
{
    size_t n = sts_hosts_count(h), with = 0;
    for (size_t i = 0; i < n; i++) {
        size_t k;
        sts_hosts_steps(h, i, &k);
        with += k > 0;
    }
    sts_step_rule rule = sts_alignment_rule(a);
    size_t same = with - sts_alignment_rule_mismatches(a);
    if (same == n)
        printf("%zu hosts; steps found by %s on all of them\n", n, sts_step_rule_name(rule));
    else
        printf("%zu hosts; steps found by %s on %zu of them\n", n, sts_step_rule_name(rule), same);
    for (size_t i = 0; i < n; i++) {
        const sts_host_steps_info *si = sts_hosts_steps_info(h, i);
        size_t k;
        sts_hosts_steps(h, i, &k);
        if (!k)
            printf("note: %s has no steps (%s)\n", host_name(h, (uint32_t)i),
                   si->ntried ? si->tried[si->ntried - 1] : "nothing matched");
        else if (si->rule != rule)
            printf("note: %s's steps were found by %s: numbers may not match the other hosts'\n",
                   host_name(h, (uint32_t)i), sts_step_rule_name(si->rule));
        if (si->duplicates)
            printf("note: %s repeats step numbers: %zu later step%s with a number already seen left out\n",
                   host_name(h, (uint32_t)i), si->duplicates, si->duplicates == 1 ? "" : "s");
    }
}

static void print_aligned(const sts_hosts *h, const sts_aligned_step *s, size_t n)
{
    size_t all = 0;
    for (size_t k = 0; k < n; k++)
        all += s[k].hosts == sts_hosts_count(h);
    printf("%zu step numbers (%" PRId64 " to %" PRId64 "), %zu of them on every host\n", n, s[0].step, s[n - 1].step,
           all);
    printf("\nsteps across hosts (ms; slowest = the host with the longest step; by = what the slowest host spent "
           "longest on beyond the median host)\n");
    int hw = 7;
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        int w = tc_width(host_name(h, (uint32_t)i), 24);
        if (w > hw) hw = w;
    }
    printf("  %8s %5s %10s %10s %10s %9s %7s  ", "step", "hosts", "min", "median", "max", "max-min", "max/med");
    tc_cell(stdout, "slowest", hw, 1);
    printf("  by\n");
    for (size_t k = 0; k < n; k++) {
        char ratio[16] = "-", by[256];
        if (s[k].median_ns > 0) snprintf(ratio, sizeof ratio, "%.3f", (double)s[k].max_ns / (double)s[k].median_ns);
        cause_text(&s[k].by, by, sizeof by);
        printf("  %8" PRId64 " %5u %10.3f %10.3f %10.3f %9.3f %7s  ", s[k].step, s[k].hosts, ms(s[k].min_ns),
               ms(s[k].median_ns), ms(s[k].max_ns), ms(s[k].max_ns - s[k].min_ns), ratio);
        tc_cell(stdout, s[k].hosts >= 2 ? host_name(h, s[k].slowest) : "-", hw, 1);
        if (s[k].by.kind != STS_CAUSE_NONE)
            printf("  %s +%.3f\n", by, ms(s[k].by.slow_ns - s[k].by.median_ns));
        else
            printf("  -\n");
    }
}

static void print_stragglers(const sts_hosts *h, const sts_aligned_step *s, size_t n, double ratio)
{
    size_t count = 0;
    for (size_t k = 0; k < n; k++)
        count += s[k].straggler != 0;
    if (!count) {
        printf("\nstragglers: none (no step's slowest host took %g x the step's median; --straggler-ratio)\n", ratio);
        return;
    }
    printf("\nstragglers: %zu step%s whose slowest host took at least %g x the step's median (--straggler-ratio)\n",
           count, count == 1 ? "" : "s", ratio);
    for (size_t k = 0; k < n; k++) {
        if (!s[k].straggler) continue;
        char by[256];
        cause_text(&s[k].by, by, sizeof by);
        const sts_host_step *st = NULL;
        size_t ns;
        const sts_host_step *hs = sts_hosts_steps(h, s[k].slowest, &ns);
        for (size_t i = 0; i < ns && !st; i++)
            if (hs[i].step == s[k].step) st = &hs[i];
        printf("  step %" PRId64 ": %s took %.3f ms, the median %.3f ms", s[k].step, host_name(h, s[k].slowest),
               ms(st ? st->dur_ns : s[k].max_ns), ms(s[k].median_ns));
        if (s[k].by.kind == STS_CAUSE_NONE)
            printf("; nothing took longer than on the median host %s\n", host_name(h, s[k].median_host));
        else
            printf("; by %s: %.3f ms against %.3f ms on %s (the median host)\n", by, ms(s[k].by.slow_ns),
                   ms(s[k].by.median_ns), host_name(h, s[k].median_host));
    }
}

static void print_hosts(const sts_hosts *h, const sts_alignment *a)
{
    size_t n;
    const sts_host_step_stats *hs = sts_alignment_hosts(a, &n);
    int hw = 4;
    for (size_t i = 0; i < n; i++) {
        int w = tc_width(host_name(h, (uint32_t)i), 24);
        if (w > hw) hw = w;
    }
    printf("\nhosts (ms, over each host's steps; slowest = steps where it was the slowest host; collectives = "
           "median per step of its device lanes' time in collectives)\n  ");
    tc_cell(stdout, "host", hw, 1);
    printf("  %5s %10s %10s %10s %7s %10s %11s\n", "steps", "min", "median", "max", "slowest", "stragglers",
           "collectives");
    for (size_t i = 0; i < n; i++) {
        printf("  ");
        tc_cell(stdout, host_name(h, (uint32_t)i), hw, 1);
        int64_t c = median_collective(h, i);
        char coll[32] = "-";
        if (c >= 0) snprintf(coll, sizeof coll, "%.3f", ms(c));
        printf("  %5u %10.3f %10.3f %10.3f %7u %10u %11s\n", hs[i].steps, ms(hs[i].min_ns), ms(hs[i].median_ns),
               ms(hs[i].max_ns), hs[i].slowest, hs[i].stragglers, coll);
    }
}

/* ---- JSON -------------------------------------------------------------------------------- */

static void json_by(sts_jsonw *j, const sts_hosts *h, const sts_aligned_step *s)
{
    sts_jsonw_key(j, "by");
    if (s->by.kind == STS_CAUSE_NONE) {
        sts_jsonw_null(j);
        return;
    }
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "kind"), sts_jsonw_str(j, sts_cause_kind_name(s->by.kind));
    sts_jsonw_key(j, "name"), sts_jsonw_str(j, s->by.name);
    sts_jsonw_key(j, "ns"), sts_jsonw_i64(j, s->by.slow_ns);
    sts_jsonw_key(j, "median_host"), sts_jsonw_str(j, host_name(h, s->median_host));
    sts_jsonw_key(j, "median_host_ns"), sts_jsonw_i64(j, s->by.median_ns);
    sts_jsonw_key(j, "excess_ns"), sts_jsonw_i64(j, s->by.slow_ns - s->by.median_ns);
    sts_jsonw_obj_end(j);
}

static void json_host_step(sts_jsonw *j, const sts_hosts *h, size_t i, const sts_host_step *s)
{
    size_t nch, nco;
    const sts_host_child *ch = sts_hosts_step_children(h, i, &nch);
    const sts_host_collective *co = sts_hosts_step_collectives(h, i, &nco);
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "step"), sts_jsonw_i64(j, s->step);
    sts_jsonw_key(j, "ts_ns"), sts_jsonw_i64(j, s->ts_ns);
    sts_jsonw_key(j, "dur_ns"), sts_jsonw_i64(j, s->dur_ns);
    sts_jsonw_key(j, "children");
    sts_jsonw_obj_begin(j);
    for (uint32_t c = s->first_child; c < s->first_child + s->child_count; c++)
        sts_jsonw_key(j, ch[c].name), sts_jsonw_i64(j, ch[c].total_ns);
    sts_jsonw_obj_end(j);
    sts_jsonw_key(j, "children_ns"), sts_jsonw_i64(j, s->children_ns);
    sts_jsonw_key(j, "unattributed_ns"), sts_jsonw_i64(j, s->unattributed_ns);
    sts_jsonw_key(j, "device");
    if (s->device_busy_ns < 0) {
        sts_jsonw_null(j);
    } else {
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "busy_ns"), sts_jsonw_i64(j, s->device_busy_ns);
        sts_jsonw_key(j, "collective_ns"), sts_jsonw_i64(j, s->collective_ns);
        sts_jsonw_key(j, "collectives");
        sts_jsonw_obj_begin(j);
        for (uint32_t c = s->first_collective; c < s->first_collective + s->collective_count; c++)
            sts_jsonw_key(j, co[c].kind), sts_jsonw_i64(j, co[c].ns);
        sts_jsonw_obj_end(j);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_obj_end(j);
}

static void json_hosts(sts_jsonw *j, const sts_hosts *h, const sts_alignment *a)
{
    const sts_host_step_stats *hs = sts_alignment_hosts(a, NULL);
    sts_jsonw_key(j, "hosts");
    sts_jsonw_arr_begin(j);
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        const sts_host_steps_info *si = sts_hosts_steps_info(h, i);
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "host"), sts_jsonw_str(j, host_name(h, (uint32_t)i));
        sts_jsonw_key(j, "path"), sts_jsonw_str(j, sts_hosts_info(h, i)->path);
        sts_jsonw_key(j, "rule"), sts_jsonw_str(j, sts_step_rule_name(si->rule));
        sts_jsonw_key(j, "lane");
        if (!si->pid) {
            sts_jsonw_null(j);
        } else {
            sts_jsonw_obj_begin(j);
            sts_jsonw_key(j, "pid"), sts_jsonw_str(j, si->pid);
            sts_jsonw_key(j, "tid"), sts_jsonw_str(j, si->tid);
            sts_jsonw_key(j, "process"), sts_jsonw_str(j, si->process);
            sts_jsonw_key(j, "thread"), sts_jsonw_str(j, si->thread);
            sts_jsonw_obj_end(j);
        }
        sts_jsonw_key(j, "device_lanes"), sts_jsonw_u64(j, si->device_lanes);
        sts_jsonw_key(j, "duplicates"), sts_jsonw_u64(j, si->duplicates);
        int any = hs[i].steps > 0;
        sts_jsonw_key(j, "min_ns"), any ? sts_jsonw_i64(j, hs[i].min_ns) : sts_jsonw_null(j);
        sts_jsonw_key(j, "median_ns"), any ? sts_jsonw_i64(j, hs[i].median_ns) : sts_jsonw_null(j);
        sts_jsonw_key(j, "max_ns"), any ? sts_jsonw_i64(j, hs[i].max_ns) : sts_jsonw_null(j);
        sts_jsonw_key(j, "total_ns"), sts_jsonw_i64(j, hs[i].total_ns);
        sts_jsonw_key(j, "slowest"), sts_jsonw_u64(j, hs[i].slowest);
        sts_jsonw_key(j, "stragglers"), sts_jsonw_u64(j, hs[i].stragglers);
        size_t n;
        const sts_host_step *st = sts_hosts_steps(h, i, &n);
        sts_jsonw_key(j, "steps");
        sts_jsonw_arr_begin(j);
        for (size_t k = 0; k < n; k++)
            json_host_step(j, h, i, &st[k]);
        sts_jsonw_arr_end(j);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static void json_steps(sts_jsonw *j, const sts_hosts *h, const sts_aligned_step *s, size_t n)
{
    sts_jsonw_key(j, "steps");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "step"), sts_jsonw_i64(j, s[k].step);
        sts_jsonw_key(j, "hosts"), sts_jsonw_u64(j, s[k].hosts);
        sts_jsonw_key(j, "min_ns"), sts_jsonw_i64(j, s[k].min_ns);
        sts_jsonw_key(j, "median_ns"), sts_jsonw_i64(j, s[k].median_ns);
        sts_jsonw_key(j, "max_ns"), sts_jsonw_i64(j, s[k].max_ns);
        sts_jsonw_key(j, "spread_ns"), sts_jsonw_i64(j, s[k].max_ns - s[k].min_ns);
        sts_jsonw_key(j, "max_over_median");
        if (s[k].median_ns > 0)
            sts_jsonw_f64(j, (double)s[k].max_ns / (double)s[k].median_ns);
        else
            sts_jsonw_null(j);
        sts_jsonw_key(j, "slowest"), sts_jsonw_str(j, host_name(h, s[k].slowest));
        sts_jsonw_key(j, "median_host"), sts_jsonw_str(j, host_name(h, s[k].median_host));
        sts_jsonw_key(j, "straggler"), sts_jsonw_bool(j, s[k].straggler);
        json_by(j, h, &s[k]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
    sts_jsonw_key(j, "stragglers");
    sts_jsonw_arr_begin(j);
    for (size_t k = 0; k < n; k++) {
        if (!s[k].straggler) continue;
        sts_jsonw_obj_begin(j);
        sts_jsonw_key(j, "step"), sts_jsonw_i64(j, s[k].step);
        sts_jsonw_key(j, "host"), sts_jsonw_str(j, host_name(h, s[k].slowest));
        sts_jsonw_key(j, "dur_ns"), sts_jsonw_i64(j, s[k].max_ns);
        sts_jsonw_key(j, "median_ns"), sts_jsonw_i64(j, s[k].median_ns);
        json_by(j, h, &s[k]);
        sts_jsonw_obj_end(j);
    }
    sts_jsonw_arr_end(j);
}

static int print_json(const sts_hosts *h, const sts_hostset *set, const sts_alignment *a, double ratio)
{
    size_t n;
    const sts_aligned_step *s = sts_alignment_steps(a, &n);
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "steps: out of memory");
    sts_jsonw_obj_begin(j);
    sts_jsonw_key(j, "hosts_count"), sts_jsonw_u64(j, sts_hosts_count(h));
    sts_jsonw_key(j, "run"), sts_jsonw_str(j, sts_hostset_run(set));
    sts_jsonw_key(j, "rule"), sts_jsonw_str(j, sts_step_rule_name(sts_alignment_rule(a)));
    sts_jsonw_key(j, "rule_mismatches"), sts_jsonw_u64(j, sts_alignment_rule_mismatches(a));
    sts_jsonw_key(j, "straggler_ratio"), sts_jsonw_f64(j, ratio);
    json_hosts(j, h, a);
    json_steps(j, h, s, n);
    sts_jsonw_obj_end(j);
    return cli_json_finish("steps", j);
}

/* No host has steps: what the first host's search tried. */
static int no_steps(const sts_hosts *h)
{
    const sts_host_steps_info *si = sts_hosts_steps_info(h, 0);
    fprintf(stderr, "stepscope steps: no steps found on any of the %zu hosts; on %s, tried:\n", sts_hosts_count(h),
            host_name(h, 0));
    for (size_t i = 0; si && i < si->ntried; i++)
        fprintf(stderr, "  - %s\n", si->tried[i]);
    fprintf(stderr, "name the step slice with --step NAME (or an extended regex)\n");
    return CLI_BAD_INPUT;
}

int hc_print_steps(const sts_hosts *h, const sts_hostset *set, int json, double ratio)
{
    sts_alignment *a = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_hosts_align(h, ratio, &a, &err) != STS_OK) return cli_report("steps", &err);
    size_t n;
    const sts_aligned_step *s = sts_alignment_steps(a, &n);
    int rc = CLI_OK;
    if (n == 0) {
        rc = no_steps(h);
    } else if (json) {
        rc = print_json(h, set, a, ratio);
    } else {
        print_rules(h, a);
        print_aligned(h, s, n);
        print_stragglers(h, s, n, ratio);
        print_hosts(h, a);
        rc = cli_stdout_check("steps");
    }
    sts_alignment_free(a);
    return rc;
}
