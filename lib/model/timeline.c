#include "model/timeline_builder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The timeline's arrays, each named once: sts_tl_free() frees them, sts_tl_clear()
 * empties them and keeps their memory. */
#define TL_ARRAYS(X) \
    X(procs)         \
    X(lanes)         \
    X(tracks)        \
    X(slices)        \
    X(args)          \
    X(instants)      \
    X(counters)      \
    X(asyncs)        \
    X(flows)         \
    X(overlaps)      \
    X(ends)          \
    X(pushes)

/* *tl as a new timeline (its arrays empty and unallocated): 0, or -1 when memory ran
 * out (nothing then to release). */
static int tl_init(sts_timeline *tl, const char *path, const char *format, sts_args_mode args)
{
    memset(tl, 0, sizeof *tl);
    if (sts_strtab_init(&tl->strings) != 0) return -1;
    tl->args_mode = args;
    tl->all_whole_us = 1;
    tl->no_name = STS_NONE;
    tl->raw_lo = INT64_MAX;
    tl->raw_hi = INT64_MIN;
    tl->info.resolution_ns = 1000;
    tl->fin_min_parallel = (size_t)1 << 16; /* a few hundred microseconds of replay: threads pay off */
    uint32_t p = sts_tl_intern(tl, path ? path : "", path ? strlen(path) : 0);
    uint32_t f = sts_tl_intern(tl, format ? format : "", format ? strlen(format) : 0);
    if (p == STS_NONE || f == STS_NONE) {
        sts_strtab_release(&tl->strings);
        return -1;
    }
    tl->info.path = sts_strtab_get(&tl->strings, p);
    tl->info.format = sts_strtab_get(&tl->strings, f);
    return 0;
}

/* Everything but the arrays. */
static void tl_release_rest(sts_timeline *tl)
{
    for (size_t i = 0; i < tl->warnings.n; i++)
        free(tl->warnings.v[i]);
    free(tl->warnings.v);
    sts_u64map_release(&tl->proc_map);
    sts_u64map_release(&tl->lane_map);
    sts_strtab_release(&tl->strings);
}

sts_timeline *sts_tl_new(const char *path, const char *format, sts_args_mode args)
{
    sts_timeline *tl = malloc(sizeof *tl);
    if (tl && tl_init(tl, path, format, args) != 0) {
        free(tl);
        return NULL;
    }
    return tl;
}

int sts_tl_clear(sts_timeline *tl, const char *path, const char *format, sts_args_mode args)
{
#define TL_KEEP(f)         \
    void *f##_v = tl->f.v; \
    size_t f##_cap = tl->f.cap;
#define TL_RESTORE(f) \
    tl->f.v = f##_v;  \
    tl->f.cap = f##_cap;
    TL_ARRAYS(TL_KEEP)
    tl_release_rest(tl);
    int rc = tl_init(tl, path, format, args);
    TL_ARRAYS(TL_RESTORE) /* with n = 0; and for sts_tl_free() when init failed */
#undef TL_KEEP
#undef TL_RESTORE
    return rc;
}

/* s with each NUL byte as U+2400 (SYMBOL FOR NULL), the form the JSON reader gives
 * "\u0000": names are C strings downstream, and a NUL cut them (two names shown alike,
 * CSV cells cut). */
static uint32_t intern_visible_nul(sts_timeline *tl, const char *s, size_t n)
{
    size_t nul = 0;
    for (size_t i = 0; i < n; i++)
        nul += s[i] == 0;
    if (n > (SIZE_MAX - 1) / 3) return STS_NONE;
    char *buf = malloc(n + 2 * nul + 1);
    if (!buf) return STS_NONE;
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i]) {
            buf[o++] = s[i];
            continue;
        }
        buf[o++] = (char)0xe2, buf[o++] = (char)0x90, buf[o++] = (char)0x80;
    }
    uint32_t id = sts_strtab_intern(&tl->strings, buf, o);
    free(buf);
    return id == UINT32_MAX ? STS_NONE : id;
}

uint32_t sts_tl_intern(sts_timeline *tl, const char *s, size_t n)
{
    if (n && memchr(s, 0, n)) return intern_visible_nul(tl, s, n);
    uint32_t id = sts_strtab_intern(&tl->strings, s, n);
    return id == UINT32_MAX ? STS_NONE : id;
}

uint32_t sts_tl_no_name(sts_timeline *tl)
{
    if (tl->no_name == STS_NONE) tl->no_name = sts_tl_intern(tl, "[No name]", 9);
    return tl->no_name;
}

uint32_t sts_tl_process(sts_timeline *tl, uint32_t label, int64_t pid)
{
    uint32_t idx = sts_u64map_get(&tl->proc_map, (uint64_t)label + 1);
    if (idx != UINT32_MAX) return idx;
    if (pid == INT64_MIN) {
        /* A non-numeric pid ("CPU functions") still needs a stable number. */
        const char *s = sts_strtab_get(&tl->strings, label);
        pid = (int64_t)(sts_hash_bytes(s, sts_strtab_len(&tl->strings, label)) & 0x7fffffff);
    }
    sts_process *p = STS_VEC_PUSH(tl->procs);
    if (!p) return STS_NONE;
    p->label = label;
    p->pid = pid;
    idx = (uint32_t)(tl->procs.n - 1);
    if (sts_u64map_put(&tl->proc_map, (uint64_t)label + 1, idx) != 0) return STS_NONE;
    return idx;
}

uint32_t sts_tl_lane(sts_timeline *tl, uint32_t process, uint32_t label, int64_t tid)
{
    uint64_t key = ((uint64_t)process + 1) << 32 | label;
    uint32_t idx = sts_u64map_get(&tl->lane_map, key);
    if (idx != UINT32_MAX) return idx;
    sts_lane *l = STS_VEC_PUSH(tl->lanes);
    if (!l) return STS_NONE;
    l->process = process;
    l->label = label;
    l->tid = tid;
    idx = (uint32_t)(tl->lanes.n - 1);
    if (sts_u64map_put(&tl->lane_map, key, idx) != 0) return STS_NONE;
    return idx;
}

uint32_t sts_tl_add_args(sts_timeline *tl, const sts_arg *args, size_t n)
{
    if (n == 0) return STS_NONE;
    if (sts_grow((void **)&tl->args.v, &tl->args.cap, tl->args.n + n, sizeof *tl->args.v) != 0) return STS_NONE;
    uint32_t first = (uint32_t)tl->args.n;
    memcpy(tl->args.v + tl->args.n, args, n * sizeof *args);
    for (size_t i = 0; i < n; i++)
        tl->args.v[tl->args.n + i].last = (uint8_t)(i + 1 == n);
    tl->args.n += n;
    return first;
}

void sts_tl_warn(sts_timeline *tl, const char *fmt, ...)
{
    tl->warnings_total++;
    if (tl->warnings.n >= STS_TL_MAX_WARNINGS) return;
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *copy = strdup(buf);
    if (!copy) return;
    char **slot = STS_VEC_PUSH(tl->warnings);
    if (!slot) {
        free(copy);
        return;
    }
    *slot = copy;
}

void sts_tl_free(sts_timeline *tl)
{
    if (!tl) return;
    tl_release_rest(tl);
#define TL_FREE(f) free(tl->f.v);
    TL_ARRAYS(TL_FREE)
#undef TL_FREE
    free(tl);
}

/* Public accessors. */

void sts_timeline_free(sts_timeline *tl)
{
    sts_tl_free(tl);
}

const sts_timeline_info *sts_timeline_get_info(const sts_timeline *tl)
{
    return &tl->info;
}

const char *sts_timeline_string(const sts_timeline *tl, uint32_t id)
{
    if (id >= tl->strings.count) return "";
    return sts_strtab_get(&tl->strings, id);
}

static const sts_process *lane_process(const sts_timeline *tl, uint32_t lane)
{
    return &tl->procs.v[tl->lanes.v[lane].process];
}

const char *sts_lane_pid(const sts_timeline *tl, uint32_t lane)
{
    return sts_timeline_string(tl, lane_process(tl, lane)->label);
}

const char *sts_lane_tid(const sts_timeline *tl, uint32_t lane)
{
    return sts_timeline_string(tl, tl->lanes.v[lane].label);
}

const char *sts_lane_process_name(const sts_timeline *tl, uint32_t lane)
{
    return sts_timeline_string(tl, lane_process(tl, lane)->name);
}

const char *sts_lane_thread_name(const sts_timeline *tl, uint32_t lane)
{
    return sts_timeline_string(tl, tl->lanes.v[lane].name);
}

uint32_t sts_timeline_find_string(const sts_timeline *tl, const char *s)
{
    uint32_t id = sts_strtab_find(&tl->strings, s, strlen(s));
    return id == UINT32_MAX ? STS_NONE : id;
}

STS_VEC_ACCESSOR(sts_timeline_processes, sts_timeline, sts_process, procs)
STS_VEC_ACCESSOR(sts_timeline_lanes, sts_timeline, sts_lane, lanes)
STS_VEC_ACCESSOR(sts_timeline_tracks, sts_timeline, sts_track, tracks)
STS_VEC_ACCESSOR(sts_timeline_slices, sts_timeline, sts_slice, slices)
STS_VEC_ACCESSOR(sts_timeline_args, sts_timeline, sts_arg, args)
STS_VEC_ACCESSOR(sts_timeline_instants, sts_timeline, sts_instant, instants)
STS_VEC_ACCESSOR(sts_timeline_counters, sts_timeline, sts_counter, counters)
STS_VEC_ACCESSOR(sts_timeline_asyncs, sts_timeline, sts_async, asyncs)
STS_VEC_ACCESSOR(sts_timeline_flows, sts_timeline, sts_flow, flows)
STS_VEC_ACCESSOR(sts_timeline_overlaps, sts_timeline, sts_overlap, overlaps)

const char *const *sts_timeline_warnings(const sts_timeline *tl, size_t *n, uint64_t *total)
{
    if (n) *n = tl->warnings.n;
    if (total) *total = tl->warnings_total;
    return (const char *const *)tl->warnings.v;
}

const char *sts_track_label(const sts_timeline *tl, const sts_track *t, char *buf, size_t n)
{
    if (!n) return buf;
    switch (t->kind) {
    case STS_TRACK_OVERFLOW:
        snprintf(buf, n, "overflow %u", t->index);
        break;
    case STS_TRACK_ASYNC_PROCESS:
    case STS_TRACK_ASYNC_GLOBAL:
        /* The set's name, which Perfetto's trace_processor keys the track by
         * (tests/perfetto/compare.py), not the name of the event that made it. */
        snprintf(buf, n, "%sasync %u %s", t->kind == STS_TRACK_ASYNC_GLOBAL ? "global " : "", t->index,
                 sts_timeline_string(tl, sts_timeline_lanes(tl, NULL)[t->lane].name));
        break;
    case STS_TRACK_PROCESS_INSTANTS:
        snprintf(buf, n, "instants");
        break;
    case STS_TRACK_GLOBAL_INSTANTS:
        snprintf(buf, n, "global instants");
        break;
    default:
        snprintf(buf, n, "thread");
        break;
    }
    return buf;
}

const sts_arg *sts_timeline_find_arg(const sts_timeline *tl, uint32_t args, const char *key)
{
    if (args == STS_NONE || args >= tl->args.n) return NULL;
    uint32_t k = sts_strtab_find(&tl->strings, key, strlen(key));
    if (k == UINT32_MAX) return NULL;
    for (size_t i = args; i < tl->args.n; i++) {
        if (tl->args.v[i].key == k) return &tl->args.v[i];
        if (tl->args.v[i].last) break;
    }
    return NULL;
}

static int key_in(const char *const *keys, size_t count, const char *key, size_t n)
{
    for (size_t i = 0; i < count; i++) {
        if (strlen(keys[i]) == n && memcmp(keys[i], key, n) == 0) return 1;
    }
    return 0;
}

int sts_arg_key_is_known(const char *key, size_t n)
{
    static const char *const known[] = {
        "step_num",  "step",   "group_id", "correlation", "correlation_id",   "External id",  "_r",
        "stream",    "device", "context",  "Python id",   "Python parent id", "run_id",       "iteration",
        "step_name", "flow",   "id",       "hlo_op",      "hlo_module",       "hlo_category",
    };
    return key_in(known, sizeof known / sizeof known[0], key, n);
}

int sts_arg_key_is_analyzed(const char *key, size_t n)
{
    /* Keep in step with the keys lib/analyze looks up (summary.c, steps.c,
     * steps_breakdown.c, devview_collect.c and the built-in device rules): a key missing
     * here makes an analysis miss what it groups by or links. */
    static const char *const analyzed[] = { "step_num",    "hlo_op",         "hlo_module",
                                            "correlation", "correlation_id", "hlo_category" };
    return key_in(analyzed, sizeof analyzed / sizeof analyzed[0], key, n);
}

int sts_arg_key_is_collective(const char *key, size_t n)
{
    /* The keys lib/hosts/hcoll.c reads to match collectives across hosts (kept on request only). */
    static const char *const coll[] = {
        "Collective name",
        "Process Group Name",
        "Process Group ID",
        "pg_id",
        "seq",
        "hlo_module",
        "Process Group Ranks",
        "Group size",
        "Seq",
        "In msg nelems",
        "Out msg nelems",
        "dtype",
        "Rank",
        "correlation",
        "External id",
    };
    return key_in(coll, sizeof coll / sizeof coll[0], key, n);
}

int sts_arg_key_is_memory(const char *key, size_t n)
{
    /* Keep in step with lib/analyze/memory.c. */
    static const char *const mem[] = {
        "Bytes",       "Addr",           "Total Allocated", "Device Id",
        "Device Type", "allocator_name", "bytes_allocated", "allocation_bytes",
        "addr",        "tf_op",          "region_type",
    };
    return key_in(mem, sizeof mem / sizeof mem[0], key, n);
}

int sts_arg_key_is_stream(const char *key, size_t n)
{
    /* Keep in step with lib/analyze/critpath_streams.c. */
    static const char *const st[] = { "stream", "wait_on_stream", "wait_on_cuda_event_record_corr_id", "correlation" };
    return key_in(st, sizeof st / sizeof st[0], key, n);
}

int sts_args_mode_keeps(sts_args_mode mode, const char *key, size_t n)
{
    unsigned m = (unsigned)mode;
    if (m & ~(STS_ARGS_BASE_MASK | STS_ARGS_FLAG_MASK)) return 0;
    if ((m & STS_ARGS_WITH_COLLECTIVES) && sts_arg_key_is_collective(key, n)) return 1;
    if ((m & STS_ARGS_WITH_MEMORY) && sts_arg_key_is_memory(key, n)) return 1;
    if ((m & STS_ARGS_WITH_STREAMS) && sts_arg_key_is_stream(key, n)) return 1;
    switch ((sts_args_mode)(m & STS_ARGS_BASE_MASK)) {
    case STS_ARGS_ALL:
        return 1;
    case STS_ARGS_KNOWN:
        return sts_arg_key_is_known(key, n);
    case STS_ARGS_ANALYSIS:
        return sts_arg_key_is_analyzed(key, n);
    case STS_ARGS_NONE:
    default:
        return 0;
    }
}
