/* Chrome trace-event JSON writer: the layout of JAX's perfetto_trace.json.gz (see
 * stepscope/write.h). One event per line, so a diff of two traces reads well. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/completion.h"
#include "base/jsontext.h"
#include "base/mem.h"
#include "stepscope/write.h"
#include "write/wfile.h"

#define BIG_TID       (INT64_C(1) << 40)
#define JSON_SAFE_INT (INT64_C(1) << 53)

typedef struct jw {
    const sts_timeline *tl;
    sts_wfile *f;
    const sts_process *procs;
    const sts_lane *lanes;
    const sts_arg *args;
    size_t nprocs, nlanes, nargs;
    int64_t *tid;       /* per lane: the tid written */
    int32_t *tid_order; /* per lane: 1-based position within its process */
    int events;         /* events written so far */
} jw;

static void lit(jw *w, const char *s)
{
    sts_wfile_puts(w->f, s);
}

static void put_wfile(void *f, const char *p, size_t n)
{
    sts_wfile_write(f, p, n);
}

static void put_i64(jw *w, int64_t v)
{
    char b[STS_JSON_NUM_MAX];
    sts_wfile_write(w->f, b, sts_json_fmt_i64(b, v));
}

static void put_f64(jw *w, double v)
{
    char b[STS_JSON_NUM_MAX];
    sts_wfile_write(w->f, b, sts_json_fmt_f64(b, v));
}

/* ts and dur: microseconds written exactly from nanoseconds. */
static void put_us(jw *w, int64_t ns)
{
    char b[STS_JSON_NUM_MAX];
    sts_wfile_write(w->f, b, sts_json_fmt_us(b, ns));
}

/* Starts an event with `head`. The separator goes before each event, not after, so the
 * array needs no terminating empty object: DevTools' trace engine throws on one. */
static void ev_begin(jw *w, const char *head)
{
    if (w->events++) lit(w, ",\n");
    lit(w, head);
}

static void str_id(jw *w, uint32_t id)
{
    const char *s = sts_timeline_string(w->tl, id);
    sts_json_escape(s, strlen(s), put_wfile, w->f);
}

static int64_t lane_tid(const jw *w, uint32_t lane)
{
    return w->tid[lane];
}

static uint64_t tid_key(uint32_t process, int64_t tid)
{
    return ((uint64_t)process * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid) | 1; /* non-zero */
}

/* Chooses each lane's JSON tid. A tid beyond +-2^53 becomes its low 31 bits, as JAX's
 * own converter writes it (so our JSON of a JAX profile names threads as JAX's does),
 * unless another lane of the process already has that tid: then 2^40 + lane index.
 * A key collision in the map only costs the fallback, never a merge. */
static int choose_tids(jw *w)
{
    w->tid = malloc((w->nlanes + 1) * sizeof *w->tid);
    w->tid_order = malloc((w->nlanes + 1) * sizeof *w->tid_order);
    int32_t *seen = calloc(w->nprocs + 1, sizeof *seen);
    sts_u64map used = STS_U64MAP_INIT;
    int rc = w->tid && w->tid_order && seen ? 0 : -1;
    for (size_t l = 0; l < w->nlanes && rc == 0; l++) {
        int64_t t = w->lanes[l].tid;
        w->tid[l] = t;
        if (t > -JSON_SAFE_INT && t < JSON_SAFE_INT) rc = sts_u64map_put(&used, tid_key(w->lanes[l].process, t), 1);
    }
    for (size_t l = 0; l < w->nlanes && rc == 0; l++) {
        uint32_t pr = w->lanes[l].process;
        if (pr < w->nprocs) w->tid_order[l] = ++seen[pr];
        int64_t t = w->lanes[l].tid;
        if (t > -JSON_SAFE_INT && t < JSON_SAFE_INT) continue;
        int64_t c = t & 0x7fffffff;
        if (c == 0 || sts_u64map_get(&used, tid_key(pr, c)) != UINT32_MAX) { /* 0 reads as "no tid" */
            c = BIG_TID + (int64_t)l;
            while (sts_u64map_get(&used, tid_key(pr, c)) != UINT32_MAX)
                c++;
        }
        w->tid[l] = c;
        rc = sts_u64map_put(&used, tid_key(pr, c), 1);
    }
    free(seen);
    sts_u64map_release(&used);
    return rc;
}

static int64_t proc_pid(const jw *w, uint32_t proc)
{
    int64_t pid = w->procs[proc].pid;
    return pid > -JSON_SAFE_INT && pid < JSON_SAFE_INT ? pid : BIG_TID + (int64_t)proc;
}

/* "pid":P,"tid":T for a lane; STS_NONE or an index out of range writes pid 0. */
static void pid_tid(jw *w, uint32_t lane)
{
    lit(w, "\"pid\":");
    if (lane >= w->nlanes) {
        lit(w, "0,\"tid\":0");
        return;
    }
    put_i64(w, proc_pid(w, w->lanes[lane].process));
    lit(w, ",\"tid\":");
    put_i64(w, lane_tid(w, lane));
}

static void arg_value(jw *w, const sts_arg *a)
{
    switch (a->type) {
    case STS_ARG_INT:
        put_i64(w, a->v.i);
        break;
    case STS_ARG_DOUBLE:
        put_f64(w, a->v.d);
        break;
    case STS_ARG_STRING:
        str_id(w, a->v.str);
        break;
    case STS_ARG_JSON: {
        const char *raw = sts_timeline_string(w->tl, a->v.str);
        lit(w, *raw ? raw : "null");
        break;
    }
    case STS_ARG_BOOL:
        lit(w, a->v.i ? "true" : "false");
        break;
    default:
        lit(w, "null");
        break;
    }
}

/* ,"args":{...} for the args starting at `first`; nothing for STS_NONE. */
static void args_obj(jw *w, uint32_t first)
{
    if (first == STS_NONE || first >= w->nargs) return;
    lit(w, ",\"args\":{");
    for (size_t i = first; i < w->nargs; i++) {
        if (i > first) lit(w, ",");
        str_id(w, w->args[i].key);
        lit(w, ":");
        arg_value(w, &w->args[i]);
        if (w->args[i].last) break;
    }
    lit(w, "}");
}

static void name_cat(jw *w, uint32_t name, uint32_t cat)
{
    lit(w, ",\"name\":");
    str_id(w, name);
    if (cat) {
        lit(w, ",\"cat\":");
        str_id(w, cat);
    }
}

static void meta_event(jw *w, int64_t pid, const int64_t *tid, const char *what, const char *key, uint32_t str,
                       int64_t num)
{
    ev_begin(w, "{\"ph\":\"M\",\"pid\":");
    put_i64(w, pid);
    if (tid) {
        lit(w, ",\"tid\":");
        put_i64(w, *tid);
    }
    lit(w, ",\"name\":\"");
    lit(w, what);
    lit(w, "\",\"args\":{\"");
    lit(w, key);
    lit(w, "\":");
    if (str != STS_NONE)
        str_id(w, str);
    else
        put_i64(w, num);
    lit(w, "}}");
}

static void metadata(jw *w)
{
    for (size_t p = 0; p < w->nprocs; p++) {
        const sts_process *pr = &w->procs[p];
        if (pr->global) continue; /* finalize's holder of global tracks: no process of the trace */
        int64_t pid = proc_pid(w, (uint32_t)p);
        uint32_t name = pr->name ? pr->name : pr->label;
        if (name) meta_event(w, pid, NULL, "process_name", "name", name, 0);
        /* JAX sorts processes by pid (701 for the host). */
        int64_t sort = pr->sort_index ? pr->sort_index : pid >= INT32_MIN && pid <= INT32_MAX ? pid : (int64_t)p;
        meta_event(w, pid, NULL, "process_sort_index", "sort_index", STS_NONE, sort);
    }
    for (size_t l = 0; l < w->nlanes; l++) {
        const sts_lane *ln = &w->lanes[l];
        if (ln->process >= w->nprocs || ln->kind == STS_LANE_ASYNC || ln->kind == STS_LANE_INSTANTS) continue;
        int64_t pid = proc_pid(w, ln->process), tid = lane_tid(w, (uint32_t)l);
        if (ln->name) meta_event(w, pid, &tid, "thread_name", "name", ln->name, 0);
        meta_event(w, pid, &tid, "thread_sort_index", "sort_index", STS_NONE,
                   ln->sort_index ? ln->sort_index : w->tid_order[l]);
    }
}

static void slices(jw *w)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        /* Instants and async events are written from their own lists. */
        if (s[i].dur < 0 || (s[i].flags & (STS_SLICE_INSTANT | STS_SLICE_ASYNC))) continue;
        ev_begin(w, "{\"ph\":\"X\",");
        pid_tid(w, s[i].lane);
        lit(w, ",\"ts\":");
        put_us(w, s[i].ts);
        lit(w, ",\"dur\":");
        put_us(w, s[i].dur);
        name_cat(w, s[i].name, s[i].cat);
        args_obj(w, s[i].args);
        lit(w, "}");
    }
}

static void instants(jw *w)
{
    size_t n;
    const sts_instant *e = sts_timeline_instants(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        char scope[] = "{\"ph\":\"i\",\"s\":\"t\",";
        if (e[i].scope == 'p' || e[i].scope == 'g') scope[15] = e[i].scope;
        ev_begin(w, scope);
        pid_tid(w, e[i].lane);
        lit(w, ",\"ts\":");
        put_us(w, e[i].ts);
        name_cat(w, e[i].name, e[i].cat);
        args_obj(w, e[i].args);
        lit(w, "}");
    }
}

static void counters(jw *w)
{
    size_t n;
    const sts_counter *c = sts_timeline_counters(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        ev_begin(w, "{\"ph\":\"C\",");
        pid_tid(w, c[i].lane);
        lit(w, ",\"ts\":");
        put_us(w, c[i].ts);
        name_cat(w, c[i].name, 0);
        lit(w, ",\"args\":{");
        str_id(w, c[i].series);
        lit(w, ":");
        put_f64(w, c[i].value);
        lit(w, "}}");
    }
}

static void phase_head(jw *w, char phase)
{
    char head[] = "{\"ph\":\"?\",";
    head[7] = phase;
    ev_begin(w, head);
}

/* The id as it was read: "id" (a string or a number) or id2's "local" or "global". */
static void async_id(jw *w, const sts_async *a)
{
    uint8_t k = a->id_kind;
    int number = k == STS_ASYNC_ID_NUMBER || k == STS_ASYNC_ID_LOCAL_NUMBER || k == STS_ASYNC_ID_GLOBAL_NUMBER;
    if (k == STS_ASYNC_ID_LOCAL_STRING || k == STS_ASYNC_ID_LOCAL_NUMBER)
        lit(w, ",\"id2\":{\"local\":");
    else if (k == STS_ASYNC_ID_GLOBAL_STRING || k == STS_ASYNC_ID_GLOBAL_NUMBER)
        lit(w, ",\"id2\":{\"global\":");
    else
        lit(w, ",\"id\":");
    if (number)
        lit(w, sts_timeline_string(w->tl, a->id));
    else
        str_id(w, a->id);
    if (k >= STS_ASYNC_ID_LOCAL_STRING) lit(w, "}");
}

static void asyncs_and_flows(jw *w)
{
    size_t n;
    const sts_async *a = sts_timeline_asyncs(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        phase_head(w, a[i].phase ? a[i].phase : 'n');
        pid_tid(w, a[i].lane);
        lit(w, ",\"ts\":");
        put_us(w, a[i].ts);
        name_cat(w, a[i].name, a[i].cat);
        async_id(w, &a[i]);
        args_obj(w, a[i].args);
        lit(w, "}");
    }
    const sts_flow *fl = sts_timeline_flows(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        phase_head(w, fl[i].phase ? fl[i].phase : 's');
        pid_tid(w, fl[i].lane);
        lit(w, ",\"ts\":");
        put_us(w, fl[i].ts);
        name_cat(w, fl[i].name, fl[i].cat);
        lit(w, ",\"id\":");
        str_id(w, fl[i].id);
        if (fl[i].bind_enclosing) lit(w, ",\"bp\":\"e\"");
        lit(w, "}");
    }
}

sts_status sts_write_chrome_json(const sts_timeline *tl, const char *path, const sts_write_options *opts,
                                 sts_error *err)
{
    if (!tl || !path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "chrome json writer: no timeline or path");
    jw w = { tl, NULL, NULL, NULL, NULL, 0, 0, 0, NULL, NULL, 0 };
    w.procs = sts_timeline_processes(tl, &w.nprocs);
    w.lanes = sts_timeline_lanes(tl, &w.nlanes);
    w.args = sts_timeline_args(tl, &w.nargs);
    if (choose_tids(&w) != 0) {
        free(w.tid);
        free(w.tid_order);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    }
    w.f = sts_wfile_open(path, sts_path_is_gz(path), opts ? opts->gzip_level : 0, err);
    if (!w.f) {
        free(w.tid);
        free(w.tid_order);
        return err ? err->code : STS_ERR_IO;
    }
    lit(&w, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
    int64_t first_pid = w.nprocs ? proc_pid(&w, 0) : 0;
    ev_begin(&w, STS_COMPLETION_JSON_OPEN); /* the file announces its completion record... */
    put_i64(&w, first_pid);
    lit(&w, STS_COMPLETION_JSON_HEAD_REST);
    metadata(&w);
    slices(&w);
    instants(&w);
    counters(&w);
    asyncs_and_flows(&w);
    char tail[32];
    snprintf(tail, sizeof tail, "%d}}", w.events - 1);
    ev_begin(&w, STS_COMPLETION_JSON_OPEN); /* ...and ends with it */
    put_i64(&w, first_pid);
    lit(&w, STS_COMPLETION_JSON_TAIL_REST);
    lit(&w, tail);
    lit(&w, "\n]}\n");
    free(w.tid);
    free(w.tid_order);
    return sts_wfile_commit(w.f, err);
}
