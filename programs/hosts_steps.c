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
            cli_say(stdout, "note: %s has no steps (%s)\n", host_name(h, (uint32_t)i),
                    si->ntried ? si->tried[si->ntried - 1] : "nothing matched");
        else if (si->rule != rule)
            cli_say(stdout, "note: %s's steps were found by %s: numbers may not match the other hosts'\n",
                    host_name(h, (uint32_t)i), sts_step_rule_name(si->rule));
        if (si->duplicates)
            cli_say(stdout, "note: %s repeats step numbers: %zu later step%s with a number already seen left out\n",
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

/* Per host and device, its windows summed over the host's steps (ms); nothing when no
 * host kept a device view. */
static void print_devices(const sts_hosts *h)
{
    int hw = 4, head = 0;
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        int w = tc_width(host_name(h, (uint32_t)i), 24);
        if (w > hw) hw = w;
    }
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t nd;
        const sts_host_device_step *dv = sts_hosts_device_steps(h, i, &nd);
        for (size_t a = 0; a < nd; a++) {
            if (dv[a].step != dv[0].step) break; /* each device once: the first step lists them all */
            int64_t busy = 0, idle = 0, hwait = 0, kwait = 0, exposed = 0, window = 0;
            int split = 1;
            for (size_t b = a; b < nd; b++) {
                if (strcmp(dv[b].device, dv[a].device) != 0) continue;
                window += dv[b].w.window_ns;
                busy += dv[b].w.busy_ns;
                idle += dv[b].w.idle_ns;
                hwait += dv[b].w.host_wait_ns;
                kwait += dv[b].w.kernel_wait_ns;
                exposed += dv[b].w.exposed_ns;
                split &= (dv[b].w.known & STS_DEVVIEW_KNOWN_IDLE_SPLIT) != 0;
            }
            if (!head++) {
                printf("\ndevices per host (ms, summed over the host's steps; docs/device.md)\n  ");
                tc_cell(stdout, "host", hw, 1);
                printf(" %-16s %11s %11s %11s %11s %11s %12s\n", "device", "window", "busy", "idle", "host_wait",
                       "kernel_wait", "exposed comm");
            }
            printf("  ");
            tc_cell(stdout, host_name(h, (uint32_t)i), hw, 1);
            printf(" %-16s %11.3f %11.3f %11.3f ", dv[a].device, ms(window), ms(busy), ms(idle));
            if (split)
                printf("%11.3f %11.3f", ms(hwait), ms(kwait));
            else
                printf("%11s %11s", "unknown", "unknown");
            printf(" %12.3f\n", ms(exposed));
        }
    }
}

static void put_b(int64_t b)
{
    if (b < 0)
        printf(" %14s", "unknown");
    else
        printf(" %14" PRId64, b);
}

/* Per host and device, the most bytes in use in any of its steps and in which, and the
 * bytes at its first step's start and last step's end; nothing when no host kept
 * memory. A device whose steps cannot tell their peak reads unknown, never 0. */
static void print_memory(const sts_hosts *h)
{
    int hw = 4, head = 0;
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        int w = tc_width(host_name(h, (uint32_t)i), 24);
        if (w > hw) hw = w;
    }
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        size_t nm, ns;
        const sts_host_memory_step *m = sts_hosts_memory_steps(h, i, &nm);
        const sts_host_step *st = sts_hosts_steps(h, i, &ns);
        for (size_t a = 0; a < nm; a++) {
            if (m[a].step != m[0].step) break; /* each device once: the first step lists them all */
            int64_t peak = -1, at = 0, start = m[a].e.start_bytes, end = -1;
            uint32_t steps = 0;
            for (size_t b = a; b < nm; b++) {
                if (strcmp(m[b].device, m[a].device) != 0) continue;
                steps++;
                if (m[b].e.peak_bytes > peak) peak = m[b].e.peak_bytes, at = st[m[b].step].step;
                end = m[b].e.end_bytes;
            }
            if (!head++) {
                printf("\nmemory per host (bytes in use, over the host's steps; docs/memory.md)\n  ");
                tc_cell(stdout, "host", hw, 1);
                printf(" %-16s %6s %14s %8s %14s %14s\n", "device", "steps", "peak", "in step", "first start",
                       "last end");
            }
            printf("  ");
            tc_cell(stdout, host_name(h, (uint32_t)i), hw, 1);
            printf(" %-16s %6u", m[a].device, steps);
            put_b(peak);
            if (peak >= 0)
                printf(" %8" PRId64, at);
            else
                printf(" %8s", "-");
            put_b(start);
            put_b(end);
            printf("\n");
        }
    }
}

static int print_json(const sts_hosts *h, const sts_hostset *set, const sts_alignment *a, const sts_collectives *c)
{
    sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
    if (!j) return cli_fail(CLI_BAD_INPUT, "steps: out of memory");
    sts_error err = STS_ERROR_INIT;
    if (sts_hosts_write_steps_json_with(j, h, a, sts_hostset_run(set), c, &err) != STS_OK) {
        sts_jsonw_free(j);
        return cli_report("steps", &err);
    }
    return cli_json_finish("steps", j);
}

/* No host has steps: what the first host's search tried. */
static int no_steps(const sts_hosts *h)
{
    const sts_host_steps_info *si = sts_hosts_steps_info(h, 0);
    cli_say(stderr, "stepscope steps: no steps found on any of the %zu hosts; on %s, tried:\n", sts_hosts_count(h),
            host_name(h, 0));
    for (size_t i = 0; si && i < si->ntried; i++)
        cli_say(stderr, "  - %s\n", si->tried[i]);
    cli_say(stderr, "name the step slice with --step NAME (or an extended regex)\n");
    return CLI_BAD_INPUT;
}

int hc_print_steps(const sts_hosts *h, const sts_hostset *set, int json, double ratio, const sts_collectives *c)
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
        rc = print_json(h, set, a, c);
    } else {
        print_rules(h, a);
        print_aligned(h, s, n);
        print_stragglers(h, s, n, ratio);
        print_hosts(h, a);
        print_devices(h);
        print_memory(h);
        if (c) hc_print_collectives(h, c);
        rc = cli_stdout_check("steps");
    }
    sts_alignment_free(a);
    return rc;
}
