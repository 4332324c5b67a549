/* steps --steps RANGE and --summary. */
#include "steps_range.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_cli.h"

static int number(const char *p, const char *end, int64_t *out)
{
    if (p == end) return 1; /* empty: no bound */
    char *e;
    errno = 0;
    long long v = strtoll(p, &e, 10);
    if (e != end || errno || p == e) return -1;
    *out = v;
    return 0;
}

int sr_parse(const char *text, int64_t *first, int64_t *last)
{
    if (!text || !*text) return -1;
    const char *sep = strchr(text, ':');
    size_t seplen = 1;
    if (!sep && (sep = strstr(text, "..")) != NULL) seplen = 2;
    int64_t a = INT64_MIN, b = INT64_MAX;
    if (!sep) {
        if (number(text, text + strlen(text), &a) != 0) return -1;
        b = a;
    } else {
        const char *end = text + strlen(text);
        if (sep == text && sep + seplen == end) return -1; /* ":" alone names no range */
        if (number(text, sep, &a) < 0 || number(sep + seplen, end, &b) < 0) return -1;
    }
    *first = a;
    *last = b;
    return 0;
}

static double ms(int64_t ns)
{
    return (double)ns / 1e6;
}

static uint32_t longest_child(const sts_step_child *ch, const sts_step *x)
{
    uint32_t best = STS_NONE;
    for (uint32_t c = x->first_child; c < x->first_child + x->child_count; c++)
        if (best == STS_NONE || ch[c].total_ns > ch[best].total_ns) best = c;
    return best;
}

void sr_print_summary_rows(const sts_timeline *tl, const sts_steps *s, const sts_host_syncs *h)
{
    size_t n;
    const sts_step *st = sts_steps_list(s, &n);
    const sts_step_child *ch = sts_steps_children(s, NULL);
    const sts_host_sync *hs = h ? sts_host_syncs_list(h, NULL) : NULL;
    int64_t t0 = sts_timeline_get_info(tl)->ts_min;
    printf("\n%8s %12s %11s %11s %13s %6s %11s  %s\n", "step", "start (ms)", "dur (ms)", "children", "unattributed",
           "syncs", "sync wait", "longest child");
    for (size_t k = 0; k < n; k++) {
        const sts_step *x = &st[k];
        char syncs[24] = "unknown", wait[24] = "unknown";
        if (h) {
            size_t first, m = sts_host_syncs_of_step(h, (uint32_t)k, &first);
            uint64_t c = 0;
            int64_t w = 0;
            for (size_t i = first; i < first + m; i++) {
                c += hs[i].count;
                w += hs[i].wait_ns;
            }
            snprintf(syncs, sizeof syncs, "%llu", (unsigned long long)c);
            snprintf(wait, sizeof wait, "%.3f", ms(w));
        }
        printf("%8" PRId64 " %12.3f %11.3f %11.3f %13.3f %6s %11s  ", x->index, ms(x->ts - t0), ms(x->dur),
               ms(x->children_ns), ms(x->unattributed_ns), syncs, wait);
        uint32_t c = longest_child(ch, x);
        if (c == STS_NONE)
            printf("(no children)");
        else
            tc_cell(stdout, sts_timeline_string(tl, ch[c].name), tc_width(sts_timeline_string(tl, ch[c].name), 48), 1);
        printf("%s\n", x->flags & STS_STEP_PARTIAL ? "  partial?" : "");
    }
    printf("(one line per step: --summary; start is relative to the trace's first timestamp; times in ms; "
           "syncs: host syncs, docs/host-syncs.md)\n");
}
