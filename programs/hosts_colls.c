/* steps --collectives as text: the instances that cost most waiting, each step's worst
 * ones with the last rank and what made it late, what was left out, and the hosts'
 * clock offsets (docs/collectives.md). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "hosts_cli.h"
#include "trace_cli.h"

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static const char *rank_label(const sts_collectives *c, uint32_t r)
{
    return sts_collectives_ranks(c, NULL)[r].label;
}

static void print_left_out(const sts_coll_counts *k)
{
    const struct {
        uint64_t n;
        const char *what;
    } parts[] = {
        { k->one_rank, "seen on one rank only" },
        { k->repeated, "with a sequence number a rank repeats" },
        { k->partial, "seen on fewer ranks than their group size" },
        { k->conflicts, "whose ranks disagree on the kind" },
        { k->uneven, "group(s) matched by order whose ranks hold different counts (all their ops)" },
    };
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        if (parts[i].n) cli_say(stdout, "note: left out: %" PRIu64 " instance(s) %s\n", parts[i].n, parts[i].what);
    if (k->unpaired)
        cli_say(stdout,
                "note: left out: %" PRIu64 " collective call(s) on host threads that do not pair one to one with "
                "their gloo work (their ends unknown)\n",
                k->unpaired);
    if (k->size_conflicts)
        cli_say(stdout, "note: %" PRIu64 " instance(s) whose ranks disagree on the message size: bandwidth unknown\n",
                k->size_conflicts);
}

static void print_offsets(const sts_hosts *h, const sts_collectives *c)
{
    printf("\nclock offsets (ms, each host's clock minus the reference host's, from the collectives' ends; the\n"
           "collectives' numbers are on the aligned clocks, the other outputs with --align)\n");
    for (size_t i = 0; i < sts_hosts_count(h); i++) {
        int known;
        int64_t off = sts_collectives_offset(c, i, &known);
        printf("  ");
        tc_cell(stdout, sts_hosts_info(h, i)->name, 24, 1);
        if (known)
            printf("  %+.6f\n", ms(off));
        else
            printf("  unknown (no collective shared with the reference host)\n");
    }
    int64_t med, max;
    if (sts_collectives_residual(c, &med, &max))
        printf("  residual: the ranks' ends of an instance lie %.6f ms apart (median), %.6f ms at most\n", ms(med),
               ms(max));
}

static void print_steps(const sts_collectives *c)
{
    size_t ns;
    const sts_coll_step *st = sts_collectives_steps(c, &ns);
    const uint32_t *si = sts_collectives_step_instances(c, NULL);
    const sts_coll_instance *in = sts_collectives_instances(c, NULL);
    if (!ns) return;
    printf("\nper step, the collectives that cost most waiting (wait = the ranks' waits summed; late = after the "
           "median rank)\n");
    for (size_t s = 0; s < ns; s++) {
        printf("  step %" PRId64 ": %.3f ms of waiting in all\n", st[s].step, ms(st[s].wait_ns));
        for (uint32_t k = st[s].first; k < st[s].first + st[s].count; k++) {
            const sts_coll_instance *x = &in[si[k]];
            printf("    %s #%" PRId64 ": waits %.3f ms; ", x->name, x->seq, ms(x->wait_ns));
            cli_put_text(stdout, rank_label(c, x->last_rank));
            printf(" arrived %.3f ms late", ms(x->late_ns));
            if (x->cause)
                printf(": its '%s' took %.3f ms longer before it (%.3f ms against %.3f ms on %s)\n", x->cause,
                       ms(x->cause_ns - x->cause_median_ns), ms(x->cause_ns), ms(x->cause_median_ns),
                       rank_label(c, x->median_rank));
            else
                printf(" (no step child took longer before it than on %s)\n", rank_label(c, x->median_rank));
        }
    }
}

static int by_wait(const void *a, const void *b)
{
    const sts_coll_instance *const *x = a, *const *y = b;
    if ((*x)->wait_ns != (*y)->wait_ns) return (*x)->wait_ns > (*y)->wait_ns ? -1 : 1;
    return (*x < *y) ? -1 : (*x > *y);
}

static void print_instances(const sts_collectives *c)
{
    size_t n;
    const sts_coll_instance *in = sts_collectives_instances(c, &n);
    const sts_coll_instance **order = malloc((n ? n : 1) * sizeof *order);
    if (!order) return;
    for (size_t i = 0; i < n; i++)
        order[i] = &in[i];
    qsort(order, n, sizeof *order, by_wait);
    size_t shown = n < 20 ? n : 20;
    printf("\ncollectives by waiting (the %zu longest of %zu; ms; bandwidth GB/s, NCCL's bus factors)\n", shown, n);
    printf("  %-20s %-12s %6s %5s %10s %10s %10s  %-16s %12s %9s\n", "name", "group", "seq", "ranks", "skew", "wait",
           "transfer", "last", "bytes", "bus bw");
    for (size_t i = 0; i < shown; i++) {
        const sts_coll_instance *x = order[i];
        char bytes[32] = "unknown", bw[32] = "unknown";
        if (x->bytes >= 0) snprintf(bytes, sizeof bytes, "%" PRId64, x->bytes);
        if (x->bus_bw_gbps >= 0) snprintf(bw, sizeof bw, "%.3f", x->bus_bw_gbps);
        printf("  ");
        tc_cell(stdout, x->name, 20, 1);
        printf(" ");
        tc_cell(stdout, x->group ? x->group : "unknown", 12, 1);
        printf(" %6" PRId64 " %5u %10.3f %10.3f %10.3f  ", x->seq, x->count, ms(x->skew_ns), ms(x->wait_ns),
               ms(x->transfer_ns));
        tc_cell(stdout, rank_label(c, x->last_rank), 16, 1);
        printf(" %12s %9s\n", bytes, bw);
    }
    free(order);
}

void hc_print_collectives(const sts_hosts *h, const sts_collectives *c)
{
    size_t n, nr;
    sts_collectives_instances(c, &n);
    sts_collectives_ranks(c, &nr);
    const sts_coll_counts *k = sts_collectives_counts(c);
    printf("\ncollectives: %zu instance%s matched across %zu rank%s, from %" PRIu64 " ops (%" PRIu64
           " inside another op of their device left out)\n",
           n, n == 1 ? "" : "s", nr, nr == 1 ? "" : "s", k->ops, k->nested);
    print_left_out(k);
    if (!n) return;
    print_instances(c);
    print_steps(c);
    print_offsets(h, c);
}
