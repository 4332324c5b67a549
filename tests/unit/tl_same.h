/* Whether two raw timelines (as readers leave them, before finalize) are the same,
 * field by field: every string id, process, lane, event, arg, warning and count. Used
 * to check that the fast event parser and the chunked reader give exactly what the
 * reference parser reading in one pass gives. Keep it complete: a model field it does
 * not compare is a field those paths could lose unnoticed. */
#ifndef STS_TESTS_TL_SAME_H
#define STS_TESTS_TL_SAME_H

#include <stdio.h>
#include <string.h>

#include "model/timeline_builder.h"

#define TLS_DIFF(...) return (snprintf(why, sizeof why, __VA_ARGS__), why)
#define TLS_LEN(what, x) \
    if (a->x.n != b->x.n) TLS_DIFF("%s: %zu != %zu", what, a->x.n, b->x.n)
#define TLS_FIELD(what, i, f) \
    if (A.f != B.f) TLS_DIFF("%s[%zu].%s: %lld != %lld", what, (size_t)(i), #f, (long long)A.f, (long long)B.f)

static inline int tls_arg_same(const sts_arg *x, const sts_arg *y)
{
    if (x->key != y->key || x->type != y->type || x->last != y->last) return 0;
    switch (x->type) {
    case STS_ARG_INT:
    case STS_ARG_BOOL:
        return x->v.i == y->v.i;
    case STS_ARG_DOUBLE:
        return memcmp(&x->v.d, &y->v.d, sizeof x->v.d) == 0;
    case STS_ARG_STRING:
    case STS_ARG_JSON:
        return x->v.str == y->v.str;
    default:
        return 1;
    }
}

/* NULL when a and b hold the same, else a description of the first difference. */
static inline const char *tl_same(const sts_timeline *a, const sts_timeline *b)
{
    static char why[512];
    if (a->strings.count != b->strings.count) TLS_DIFF("string count: %u != %u", a->strings.count, b->strings.count);
    for (uint32_t i = 0; i < a->strings.count; i++)
        if (a->strings.lens[i] != b->strings.lens[i] ||
            memcmp(a->strings.strs[i], b->strings.strs[i], a->strings.lens[i]) != 0)
            TLS_DIFF("string %u: \"%.60s\" != \"%.60s\"", i, a->strings.strs[i], b->strings.strs[i]);
    const sts_timeline_info *x = &a->info, *y = &b->info;
    if (x->flows != y->flows)
        TLS_DIFF("flows counted: %llu != %llu", (unsigned long long)x->flows, (unsigned long long)y->flows);
    if (x->events != y->events || x->skipped != y->skipped || x->rejected != y->rejected ||
        x->truncated != y->truncated || x->bytes != y->bytes || x->compressed != y->compressed ||
        x->resolution_ns != y->resolution_ns || a->all_whole_us != b->all_whole_us)
        TLS_DIFF("counts: events %llu/%llu skipped %llu/%llu rejected %llu/%llu truncated %d/%d bytes %llu/%llu",
                 (unsigned long long)x->events, (unsigned long long)y->events, (unsigned long long)x->skipped,
                 (unsigned long long)y->skipped, (unsigned long long)x->rejected, (unsigned long long)y->rejected,
                 x->truncated, y->truncated, (unsigned long long)x->bytes, (unsigned long long)y->bytes);
    if (memcmp(x->by_phase, y->by_phase, sizeof x->by_phase) != 0) TLS_DIFF("by_phase differs");
    if (!x->display_time_unit != !y->display_time_unit ||
        (x->display_time_unit && strcmp(x->display_time_unit, y->display_time_unit) != 0))
        TLS_DIFF("display_time_unit differs");
    if (a->warnings_total != b->warnings_total || a->warnings.n != b->warnings.n)
        TLS_DIFF("warnings: %llu != %llu", (unsigned long long)a->warnings_total,
                 (unsigned long long)b->warnings_total);
    for (size_t i = 0; i < a->warnings.n; i++)
        if (strcmp(a->warnings.v[i], b->warnings.v[i]) != 0)
            TLS_DIFF("warning %zu: \"%s\" != \"%s\"", i, a->warnings.v[i], b->warnings.v[i]);
    TLS_LEN("procs", procs);
    for (size_t i = 0; i < a->procs.n; i++) {
        sts_process A = a->procs.v[i], B = b->procs.v[i];
        TLS_FIELD("procs", i, label);
        TLS_FIELD("procs", i, pid);
        TLS_FIELD("procs", i, name);
        TLS_FIELD("procs", i, sort_index);
    }
    TLS_LEN("lanes", lanes);
    for (size_t i = 0; i < a->lanes.n; i++) {
        sts_lane A = a->lanes.v[i], B = b->lanes.v[i];
        TLS_FIELD("lanes", i, process);
        TLS_FIELD("lanes", i, label);
        TLS_FIELD("lanes", i, tid);
        TLS_FIELD("lanes", i, name);
        TLS_FIELD("lanes", i, sort_index);
        TLS_FIELD("lanes", i, kind);
        TLS_FIELD("lanes", i, first_slice);
        TLS_FIELD("lanes", i, slice_count);
    }
    TLS_LEN("slices", slices);
    for (size_t i = 0; i < a->slices.n; i++) {
        sts_slice A = a->slices.v[i], B = b->slices.v[i];
        TLS_FIELD("slices", i, ts);
        TLS_FIELD("slices", i, dur);
        TLS_FIELD("slices", i, name);
        TLS_FIELD("slices", i, lane);
        TLS_FIELD("slices", i, parent);
        TLS_FIELD("slices", i, args);
        TLS_FIELD("slices", i, cat);
        TLS_FIELD("slices", i, depth);
        TLS_FIELD("slices", i, flags);
    }
    TLS_LEN("args", args);
    for (size_t i = 0; i < a->args.n; i++)
        if (!tls_arg_same(&a->args.v[i], &b->args.v[i])) TLS_DIFF("args[%zu] differ", i);
    TLS_LEN("ends", ends);
    for (size_t i = 0; i < a->ends.n; i++) {
        sts_end_event A = a->ends.v[i], B = b->ends.v[i];
        TLS_FIELD("ends", i, ts);
        TLS_FIELD("ends", i, lane);
        TLS_FIELD("ends", i, seq);
        TLS_FIELD("ends", i, name);
        TLS_FIELD("ends", i, cat);
    }
    TLS_LEN("instants", instants);
    for (size_t i = 0; i < a->instants.n; i++) {
        sts_instant A = a->instants.v[i], B = b->instants.v[i];
        TLS_FIELD("instants", i, ts);
        TLS_FIELD("instants", i, name);
        TLS_FIELD("instants", i, cat);
        TLS_FIELD("instants", i, lane);
        TLS_FIELD("instants", i, args);
        TLS_FIELD("instants", i, scope);
        TLS_FIELD("instants", i, seq);
    }
    TLS_LEN("counters", counters);
    for (size_t i = 0; i < a->counters.n; i++) {
        sts_counter A = a->counters.v[i], B = b->counters.v[i];
        TLS_FIELD("counters", i, ts);
        TLS_FIELD("counters", i, name);
        TLS_FIELD("counters", i, series);
        TLS_FIELD("counters", i, lane);
        TLS_FIELD("counters", i, id);
        if (memcmp(&A.value, &B.value, sizeof A.value) != 0) TLS_DIFF("counters[%zu].value differs", i);
    }
    TLS_LEN("asyncs", asyncs);
    for (size_t i = 0; i < a->asyncs.n; i++) {
        sts_async A = a->asyncs.v[i], B = b->asyncs.v[i];
        TLS_FIELD("asyncs", i, ts);
        TLS_FIELD("asyncs", i, name);
        TLS_FIELD("asyncs", i, cat);
        TLS_FIELD("asyncs", i, id);
        TLS_FIELD("asyncs", i, lane);
        TLS_FIELD("asyncs", i, args);
        TLS_FIELD("asyncs", i, phase);
        TLS_FIELD("asyncs", i, seq);
    }
    TLS_LEN("flows", flows);
    for (size_t i = 0; i < a->flows.n; i++) {
        sts_flow A = a->flows.v[i], B = b->flows.v[i];
        TLS_FIELD("flows", i, ts);
        TLS_FIELD("flows", i, name);
        TLS_FIELD("flows", i, cat);
        TLS_FIELD("flows", i, id);
        TLS_FIELD("flows", i, lane);
        TLS_FIELD("flows", i, phase);
        TLS_FIELD("flows", i, bind_enclosing);
    }
    TLS_LEN("overlaps", overlaps);
    /* What decides the importer's order, and the span admitted so far. */
    const sts_tl_sorter *p = &a->sorter, *q = &b->sorter;
    if (p->max_ts != q->max_ts || p->min_ooo_ts != q->min_ooo_ts || p->pushed != q->pushed ||
        p->first_ooo != q->first_ooo || p->has_ooo != q->has_ooo || p->slow != q->slow || p->simulate != q->simulate)
        TLS_DIFF("sorter: max_ts %lld/%lld min_ooo_ts %lld/%lld pushed %llu/%llu first_ooo %u/%u has_ooo %d/%d slow "
                 "%d/%d",
                 (long long)p->max_ts, (long long)q->max_ts, (long long)p->min_ooo_ts, (long long)q->min_ooo_ts,
                 (unsigned long long)p->pushed, (unsigned long long)q->pushed, p->first_ooo, q->first_ooo, p->has_ooo,
                 q->has_ooo, p->slow, q->slow);
    if (a->pushes.n || b->pushes.n) TLS_DIFF("deferred sorter pushes left: %zu, %zu", a->pushes.n, b->pushes.n);
    if (a->raw_lo != b->raw_lo || a->raw_hi != b->raw_hi)
        TLS_DIFF("admitted span: [%lld, %lld] != [%lld, %lld]", (long long)a->raw_lo, (long long)a->raw_hi,
                 (long long)b->raw_lo, (long long)b->raw_hi);
    return NULL;
}

#undef TLS_DIFF
#undef TLS_LEN
#undef TLS_FIELD

#endif
