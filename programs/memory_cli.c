/* programs: the text and JSON of `steps --memory` and `analyze --memory`. The JSON is
 * the library's (sts_memory_write_document), so Python prints the same bytes. */
#include <inttypes.h>
#include <stdio.h>

#include "cli.h"
#include "memory_cli.h"

/* Bytes as MiB with the exact count beside them; "unknown" for -1. */
static void put_bytes(int64_t b)
{
    if (b < 0)
        printf("unknown");
    else
        printf("%.2f MiB (%" PRId64 " B)", (double)b / (1024.0 * 1024.0), b);
}

static void put_lives(const sts_memory_live *l, size_t n, uint32_t first, uint32_t count, const char *indent)
{
    for (uint32_t i = first; i < first + count && i < n; i++) {
        printf("%s", indent);
        put_bytes(l[i].bytes);
        printf(" in %" PRIu64 " allocation%s by '%s'", l[i].count, l[i].count == 1 ? "" : "s", l[i].name);
        if (l[i].within) printf(" within '%s'", l[i].within);
        printf("\n");
    }
}

void mc_print_device(const sts_memory_device *d, const sts_memory_live *l, size_t nl)
{
    printf("%s (%s, %" PRIu64 " event%s)\n", d->name, d->source, d->events, d->events == 1 ? "" : "s");
    printf("  peak      ");
    put_bytes(d->peak_bytes);
    if (d->peak_bytes >= 0) printf(" at ts %" PRId64 " ns", d->peak_ts_ns);
    printf("\n  at start  ");
    put_bytes(d->start_bytes);
    printf("\n  at end    ");
    put_bytes(d->end_bytes);
    printf("\n");
    if (d->has_events)
        printf("  allocations %" PRIu64 " (%" PRId64 " B), frees %" PRIu64 " (%" PRId64 " B)\n", d->allocations,
               d->allocated_bytes, d->frees, d->freed_bytes);
    else
        printf("  allocations unknown (a counter has no events)\n");
    if (d->has_addrs && d->peak_bytes >= 0) {
        printf("  live at the peak:\n");
        put_lives(l, nl, d->first_live, d->live_count, "    ");
        if (d->untracked_bytes > 0) {
            printf("    ");
            put_bytes(d->untracked_bytes);
            printf(" allocated before the capture began\n");
        }
    } else {
        printf("  live at the peak: unknown (%s)\n",
               d->has_events ? "events without addresses or totals" : "a counter says no allocations");
    }
    if (d->leak_suspect) {
        printf("  leak suspect: bytes in use at step ends grew by ");
        put_bytes(d->leak_growth_bytes);
        printf(" from step %" PRId64 " to step %" PRId64 " (%u of %u changes grew); a suspicion, not a proof\n",
               d->leak_first_step, d->leak_last_step, d->leak_grew, d->leak_steps ? d->leak_steps - 1 : 0);
        if (d->kept_count) {
            printf("  allocated in earlier steps, still live at the last step's end:\n");
            put_lives(l, nl, d->first_kept, d->kept_count, "    ");
        }
    }
}

static void print_steps(const sts_memory *m, const sts_steps *s)
{
    size_t nst, nd;
    const sts_step *st = sts_steps_list(s, &nst);
    const sts_memory_device *d = sts_memory_devices(m, &nd);
    printf("\nper step\n  %-11s %-16s %22s %22s %22s %8s %8s\n", "step", "device", "peak", "at start", "at end",
           "allocs", "frees");
    for (size_t k = 0; k < nst; k++) {
        size_t n;
        const sts_memory_step *e = sts_memory_step_entries(m, k, &n);
        for (size_t i = 0; i < n; i++) {
            char pk[32] = "unknown", a[32] = "unknown", b[32] = "unknown", al[24] = "unknown", fr[24] = "unknown";
            if (e[i].peak_bytes >= 0) snprintf(pk, sizeof pk, "%" PRId64, e[i].peak_bytes);
            if (e[i].start_bytes >= 0) snprintf(a, sizeof a, "%" PRId64, e[i].start_bytes);
            if (e[i].end_bytes >= 0) snprintf(b, sizeof b, "%" PRId64, e[i].end_bytes);
            if (d[e[i].device].has_events) {
                snprintf(al, sizeof al, "%" PRIu64, e[i].allocations);
                snprintf(fr, sizeof fr, "%" PRIu64, e[i].frees);
            }
            printf("  step %-6" PRId64 " %-16.16s %22s %22s %22s %8s %8s\n", st[k].index, d[e[i].device].name, pk, a, b,
                   al, fr);
        }
    }
    printf("  (bytes; --json adds the allocations live at each step's peak)\n");
}

int mc_print(const char *cmd, const sts_timeline *tl, const sts_steps *s, int json)
{
    sts_memory_options mo = STS_MEMORY_OPTIONS_INIT;
    mo.steps = s;
    sts_memory *m = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_memory_find(tl, &mo, &m, &err) != STS_OK) return cli_fail(CLI_BAD_INPUT, "%s: %s", cmd, err.message);
    size_t nw, nd;
    const char *const *w = sts_memory_warnings(m, &nw);
    for (size_t i = 0; i < nw; i++)
        cli_say(stderr, "stepscope %s: warning: %s\n", cmd, w[i]);
    const sts_memory_device *d = sts_memory_devices(m, &nd);
    int rc = CLI_OK;
    if (!nd) {
        fprintf(stderr,
                "stepscope %s: %s holds no memory events (Kineto [memory] instants, XSpace MemoryAllocation, or "
                "counters named for memory); PyTorch writes them with profile_memory=True\n",
                cmd, sts_timeline_get_info(tl)->path);
        rc = CLI_BAD_INPUT;
    } else if (json) {
        sts_jsonw *j = sts_jsonw_create(stdout, STS_JSON_TWO_LEVELS);
        if (!j) {
            sts_memory_free(m);
            return cli_fail(CLI_BAD_INPUT, "%s: out of memory", cmd);
        }
        sts_memory_write_document(j, tl, m, s);
        rc = cli_json_finish(cmd, j);
    } else {
        printf("device memory of %s\n", sts_timeline_get_info(tl)->path);
        size_t nl;
        const sts_memory_live *l = sts_memory_lives(m, &nl);
        for (size_t i = 0; i < nd; i++)
            mc_print_device(&d[i], l, nl);
        if (s) print_steps(m, s);
    }
    sts_memory_free(m);
    return rc;
}
