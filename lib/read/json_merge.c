/* read: appending a chunk's timeline to the one being read (json_par.c).
 *
 * A chunk is read into a timeline of its own, with its own string ids, processes and
 * lanes, and event sequence numbers from 0. Appending it re-interns its strings in id
 * order and re-creates its processes and lanes in index order: each id is the order in
 * which the chunk first met the thing, so the dst ids come out as a single pass over
 * the file would have given them. Chunks merged here hold no metadata events (process
 * and thread names are written by the last one, which the serial reader keeps) and no
 * warnings (their text names the global event index).
 *
 * Every vector of the raw model is handled here: a field added to it needs a line. */
#include <stdlib.h>

#include "base/invariant.h"
#include "read/json_chrome.h"

typedef struct maps {
    uint32_t *str, *proc, *lane;
    uint32_t args_base;
} maps;

static uint32_t args_index(const maps *m, uint32_t a)
{
    return a == STS_NONE ? STS_NONE : m->args_base + a;
}

static int map_names(sts_timeline *dst, const sts_timeline *src, maps *m)
{
    const sts_strtab *t = &src->strings;
    if (sts_strtab_intern_many(&dst->strings, t->strs, t->lens, t->count, m->str) != 0) return -1;
    /* Id 0 is "" in both: an E, a counter or an async without a name or id stays one. */
    STS_ASSERT(t->count > 0 && m->str[0] == 0);
    /* A chunk holds no metadata, so a name it gave a process or lane is the one the
     * reader gives where it creates one (a pid or tid written as a string): it holds
     * when dst creates the process or lane now, and dst's stays otherwise. */
    for (size_t i = 0; i < src->procs.n; i++) {
        const sts_process *p = &src->procs.v[i];
        size_t before = dst->procs.n;
        if ((m->proc[i] = sts_tl_process(dst, m->str[p->label], p->pid)) == STS_NONE) return -1;
        if (dst->procs.n > before) dst->procs.v[m->proc[i]].name = m->str[p->name];
    }
    for (size_t i = 0; i < src->lanes.n; i++) {
        const sts_lane *l = &src->lanes.v[i];
        size_t before = dst->lanes.n;
        if ((m->lane[i] = sts_tl_lane(dst, m->proc[l->process], m->str[l->label], l->tid)) == STS_NONE) return -1;
        if (dst->lanes.n > before) dst->lanes.v[m->lane[i]].name = m->str[l->name];
    }
    return 0;
}

static int append_args(sts_timeline *dst, const sts_timeline *src, const maps *m)
{
    if (STS_VEC_RESERVE(dst->args, dst->args.n + src->args.n) != 0) return -1;
    for (size_t i = 0; i < src->args.n; i++) {
        sts_arg a = src->args.v[i];
        a.key = m->str[a.key];
        if (a.type == STS_ARG_STRING || a.type == STS_ARG_JSON) a.v.str = m->str[a.v.str];
        dst->args.v[dst->args.n++] = a;
    }
    return 0;
}

static int append_events(sts_timeline *dst, const sts_timeline *src, const maps *m, uint64_t base)
{
    const uint32_t *s = m->str, *l = m->lane;
    if (STS_VEC_RESERVE(dst->slices, dst->slices.n + src->slices.n) != 0 ||
        STS_VEC_RESERVE(dst->ends, dst->ends.n + src->ends.n) != 0 ||
        STS_VEC_RESERVE(dst->instants, dst->instants.n + src->instants.n) != 0 ||
        STS_VEC_RESERVE(dst->counters, dst->counters.n + src->counters.n) != 0 ||
        STS_VEC_RESERVE(dst->asyncs, dst->asyncs.n + src->asyncs.n) != 0 ||
        STS_VEC_RESERVE(dst->flows, dst->flows.n + src->flows.n) != 0)
        return -1;
    for (size_t i = 0; i < src->slices.n; i++) {
        sts_slice x = src->slices.v[i];
        /* The chunk's ids are its own tables' (the maps are that long). */
        STS_ASSERT(x.lane < src->lanes.n && x.name < src->strings.count && x.cat < src->strings.count);
        x.name = s[x.name];
        x.cat = s[x.cat];
        x.lane = l[x.lane];
        x.args = args_index(m, x.args);
        x.parent = (uint32_t)(base + x.parent); /* the raw slice's event sequence number */
        dst->slices.v[dst->slices.n++] = x;
    }
    for (size_t i = 0; i < src->ends.n; i++) {
        sts_end_event x = src->ends.v[i];
        STS_ASSERT(x.lane < src->lanes.n && x.name < src->strings.count && x.cat < src->strings.count);
        x.lane = l[x.lane];
        x.name = s[x.name]; /* string 0 maps to 0: an E without a name stays one */
        x.cat = s[x.cat];
        x.seq = (uint32_t)(base + x.seq);
        dst->ends.v[dst->ends.n++] = x;
    }
    for (size_t i = 0; i < src->instants.n; i++) {
        sts_instant x = src->instants.v[i];
        x.seq = (uint32_t)(base + x.seq);
        x.name = s[x.name];
        x.cat = s[x.cat];
        x.lane = l[x.lane];
        x.args = args_index(m, x.args);
        dst->instants.v[dst->instants.n++] = x;
    }
    for (size_t i = 0; i < src->counters.n; i++) {
        sts_counter x = src->counters.v[i];
        x.name = s[x.name];
        x.series = s[x.series];
        x.id = s[x.id]; /* string 0 maps to 0: a counter without an id stays one */
        x.lane = l[x.lane];
        dst->counters.v[dst->counters.n++] = x;
    }
    for (size_t i = 0; i < src->asyncs.n; i++) {
        sts_async x = src->asyncs.v[i];
        x.seq = (uint32_t)(base + x.seq);
        x.name = s[x.name];
        x.cat = s[x.cat];
        x.id = s[x.id];
        x.lane = l[x.lane];
        x.args = args_index(m, x.args);
        dst->asyncs.v[dst->asyncs.n++] = x;
    }
    for (size_t i = 0; i < src->flows.n; i++) {
        sts_flow x = src->flows.v[i];
        x.name = s[x.name];
        x.cat = s[x.cat];
        x.id = s[x.id];
        x.lane = l[x.lane];
        dst->flows.v[dst->flows.n++] = x;
    }
    return 0;
}

/* The chunk's sorter pushes, seen by the whole file's simulation in file order. */
static void replay_pushes(sts_timeline *dst, const sts_timeline *src, uint64_t base)
{
    for (size_t i = 0; i < src->pushes.n; i++) {
        const sts_tl_push *p = &src->pushes.v[i];
        sts_tl_sorter_push(dst, p->ts, (uint32_t)(base + p->seq), (int)p->is_x);
    }
}

int sts_jr_mergeable(const sts_timeline *dst, const sts_timeline *src)
{
    if (src->pushes_lost) return 0;
    if (src->raw_lo > src->raw_hi || dst->raw_lo > dst->raw_hi) return 1;
    int64_t lo = src->raw_lo < dst->raw_lo ? src->raw_lo : dst->raw_lo;
    int64_t hi = src->raw_hi > dst->raw_hi ? src->raw_hi : dst->raw_hi, span;
    return !__builtin_sub_overflow(hi, lo, &span);
}

int sts_jr_wide(const sts_timeline *tl)
{
    return tl->info.events > 4096 && (uint64_t)(tl->lanes.n + tl->strings.count) * 4 > tl->info.events;
}

static void add_counts(sts_timeline *dst, const sts_timeline *src)
{
    sts_timeline_info *d = &dst->info;
    const sts_timeline_info *s = &src->info;
    d->events += s->events;
    for (int i = 0; i < 128; i++)
        d->by_phase[i] += s->by_phase[i];
    d->skipped += s->skipped;
    d->rejected += s->rejected;
    d->flows += s->flows;
    if (!src->all_whole_us) dst->all_whole_us = 0;
}

int sts_jr_merge(sts_timeline *dst, const sts_timeline *src, uint64_t event_base)
{
    maps m;
    m.str = malloc(((size_t)src->strings.count + 1) * sizeof *m.str);
    m.proc = malloc((src->procs.n + 1) * sizeof *m.proc);
    m.lane = malloc((src->lanes.n + 1) * sizeof *m.lane);
    m.args_base = (uint32_t)dst->args.n;
    int rc = -1;
    if (m.str && m.proc && m.lane && map_names(dst, src, &m) == 0 && append_args(dst, src, &m) == 0 &&
        append_events(dst, src, &m, event_base) == 0) {
        replay_pushes(dst, src, event_base);
        if (src->raw_lo <= src->raw_hi) {
            int admitted = sts_tl_admit_span(dst, src->raw_lo, src->raw_hi);
            STS_ASSERT(admitted == 0); /* sts_jr_mergeable said it fits */
        }
        add_counts(dst, src);
        rc = 0;
    }
    free(m.str);
    free(m.proc);
    free(m.lane);
    return rc;
}
