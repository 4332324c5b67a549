/* What the device view warns about: a category no op matched while op names look like
 * it (a renamed NCCL kernel silently making communication zero), and launches the trace
 * cannot link. */
#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/devview_impl.h"

static const char *const comm_words[] = { "nccl",          "rccl",           "allreduce",      "all_reduce",
                                          "all-reduce",    "allgather",      "all_gather",     "all-gather",
                                          "reducescatter", "reduce_scatter", "reduce-scatter", "alltoall",
                                          "all_to_all",    "all-to-all",     "sendrecv",       "collective" };
static const char *const memcpy_words[] = { "memcpy" };
static const char *const memset_words[] = { "memset" };

static const struct {
    sts_devview_category cat;
    const char *const *words;
    size_t n;
} lookalikes[] = {
    { STS_DV_COMMUNICATION, comm_words, sizeof comm_words / sizeof comm_words[0] },
    { STS_DV_MEMCPY, memcpy_words, 1 },
    { STS_DV_MEMSET, memset_words, 1 },
};

static int contains_nocase(const char *s, const char *w)
{
    size_t n = strlen(w);
    for (; *s; s++)
        if (strncasecmp(s, w, n) == 0) return 1;
    return 0;
}

/* "1,024" */
static void thousands(uint64_t x, char *buf, size_t n)
{
    char raw[32];
    snprintf(raw, sizeof raw, "%" PRIu64, x);
    size_t len = strlen(raw), j = 0;
    for (size_t i = 0; i < len && j + 2 < n; i++) {
        if (i && (len - i) % 3 == 0) buf[j++] = ',';
        buf[j++] = raw[i];
    }
    buf[j] = 0;
}

/* Ops whose names hold each word, counted once per distinct name then weighted. */
static int lookalike(const sts_timeline *tl, sts_devview *v, const dv_ops *ops, size_t li)
{
    size_t nw = lookalikes[li].n;
    uint64_t *count = calloc(nw, sizeof *count);
    uint32_t bound = v->name_bound;
    signed char *memo = malloc((size_t)(bound ? bound : 1) * nw);
    if (!count || !memo) {
        free(count);
        free(memo);
        return -1;
    }
    memset(memo, -1, (size_t)bound * nw);
    for (size_t i = 0; i < ops->v.n; i++) {
        uint32_t nm = ops->v.v[i].name;
        for (size_t w = 0; w < nw; w++) {
            signed char *m = &memo[(size_t)nm * nw + w];
            if (*m < 0) *m = (signed char)contains_nocase(sts_timeline_string(tl, nm), lookalikes[li].words[w]);
            count[w] += (uint64_t)*m;
        }
    }
    size_t best = 0;
    for (size_t w = 1; w < nw; w++)
        if (count[w] > count[best]) best = w;
    int rc = 0;
    if (count[best]) {
        char a[32];
        thousands(count[best], a, sizeof a);
        rc = sts_dv_note(v,
                         "0 device ops matched %s; %s name%s contain%s %s (the rules decide the categories: --explain "
                         "lists them with their hits, --categories FILE replaces them)",
                         sts_devview_category_name(lookalikes[li].cat), a, count[best] == 1 ? "" : "s",
                         count[best] == 1 ? "s" : "", lookalikes[li].words[best]);
    }
    free(count);
    free(memo);
    return rc;
}

static int link_notes(const sts_timeline *tl, sts_devview *v)
{
    const sts_devview_links *k = &v->links;
    char a[32], b[32];
    if (k->no_correlation) {
        thousands(k->no_correlation, a, sizeof a);
        thousands(k->ops, b, sizeof b);
        const sts_timeline_info *in = sts_timeline_get_info(tl);
        size_t kept;
        sts_timeline_flows(tl, &kept);
        char flows[160] = "";
        if (in->flows && !kept)
            snprintf(flows, sizeof flows,
                     "; the trace's %" PRIu64 " flow events were counted, not kept, so none linked them", in->flows);
        if (sts_dv_note(v,
                        "%s of %s device ops carry no correlation id%s: their launches, launch delays and the cause of "
                        "the idle time before them are unknown",
                        a, b, flows) != 0)
            return -1;
    }
    if (k->dangling) {
        thousands(k->dangling, a, sizeof a);
        if (sts_dv_note(v,
                        "%s device op%s name%s a correlation id that no host slice holds (e.g. %" PRId64
                        "): the launch%s not in the trace",
                        a, k->dangling == 1 ? "" : "s", k->dangling == 1 ? "s" : "", k->first_dangling_id,
                        k->dangling == 1 ? " is" : "es are") != 0)
            return -1;
    }
    if (k->orphan_calls) {
        thousands(k->orphan_calls, a, sizeof a);
        const sts_slice *s = sts_timeline_slices(tl, NULL);
        if (sts_dv_note(v, "%s host launch call%s (e.g. %s) launched no device op of the trace", a,
                        k->orphan_calls == 1 ? "" : "s", sts_timeline_string(tl, s[v->orphans.v[0]].name)) != 0)
            return -1;
    }
    if (k->duplicate_ids) {
        thousands(k->duplicate_ids, a, sizeof a);
        if (sts_dv_note(
                v, "%s host slice%s share a correlation id with an earlier one; the earlier is taken as the launch", a,
                k->duplicate_ids == 1 ? "" : "s") != 0)
            return -1;
    }
    return 0;
}

int sts_dv_warn(const sts_timeline *tl, sts_devview *v, const dv_ops *ops)
{
    if (!ops->v.n) return 0;
    for (size_t i = 0; i < sizeof lookalikes / sizeof lookalikes[0]; i++)
        if (!v->ops_by_cat[lookalikes[i].cat] && lookalike(tl, v, ops, i) != 0) return -1;
    return link_notes(tl, v);
}
