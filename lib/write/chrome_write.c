/* Chrome trace-event JSON writer: the layout of JAX's perfetto_trace.json.gz (see
 * stepscope/write.h). One event per line, so a diff of two traces reads well. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/completion.h"
#include "base/jsontext.h"
#include "base/mem.h"
#include "stepscope/write.h"
#include "write/chrome_json.h"
#include "write/wfile.h"

#define BIG_TID       (INT64_C(1) << 40)
#define JSON_SAFE_INT (INT64_C(1) << 53)

static void put_wfile(void *f, const char *p, size_t n)
{
    sts_wfile_write(f, p, n);
}

void sts_cjw_lit(sts_cjw *w, const char *s)
{
    sts_wfile_puts(w->f, s);
}

void sts_cjw_i64(sts_cjw *w, int64_t v)
{
    char b[STS_JSON_NUM_MAX];
    sts_wfile_write(w->f, b, sts_json_fmt_i64(b, v));
}

void sts_cjw_f64(sts_cjw *w, double v)
{
    char b[STS_JSON_NUM_MAX];
    sts_wfile_write(w->f, b, sts_json_fmt_f64(b, v));
}

void sts_cjw_us(sts_cjw *w, int64_t ns)
{
    char b[STS_JSON_NUM_MAX];
    sts_wfile_write(w->f, b, sts_json_fmt_us(b, ns));
}

/* The separator goes before each event, not after, so the array needs no terminating
 * empty object: DevTools' trace engine throws on one. */
void sts_cjw_event(sts_cjw *w, const char *head)
{
    if (w->events++) sts_cjw_lit(w, ",\n");
    sts_cjw_lit(w, head);
}

void sts_cjw_phase(sts_cjw *w, char phase)
{
    char head[] = "{\"ph\":\"?\",";
    head[7] = phase;
    sts_cjw_event(w, head);
}

void sts_cjw_str(sts_cjw *w, uint32_t id)
{
    sts_cjw_text(w, sts_timeline_string(w->tl, id));
}

void sts_cjw_text(sts_cjw *w, const char *s)
{
    sts_json_escape(s, strlen(s), put_wfile, w->f);
}

static uint64_t tid_key(uint32_t process, int64_t tid)
{
    return ((uint64_t)process * 0x9e3779b97f4a7c15ull ^ (uint64_t)tid) | 1; /* non-zero */
}

/* Chooses each lane's JSON tid. A tid beyond +-2^53 becomes its low 31 bits, as JAX's
 * own converter writes it (so our JSON of a JAX profile names threads as JAX's does),
 * unless another lane of the process already has that tid: then 2^40 + lane index.
 * A key collision in the map only costs the fallback, never a merge. */
static int choose_tids(sts_cjw *w)
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

int64_t sts_cjw_pid(const sts_cjw *w, uint32_t proc)
{
    int64_t pid = w->procs[proc].pid;
    return pid > -JSON_SAFE_INT && pid < JSON_SAFE_INT ? pid : BIG_TID + (int64_t)proc;
}

/* Whether `label` is the decimal text of v, as a JSON number would be read. */
static int label_is(const char *label, int64_t v)
{
    char b[STS_JSON_NUM_MAX];
    sts_json_fmt_i64(b, v);
    return strcmp(label, b) == 0;
}

/* With labels, which pids and tids were written in the trace as text ("CPU functions")
 * rather than as numbers: those are written as the text again. */
static int choose_labels(sts_cjw *w)
{
    w->proc_text = calloc(w->nprocs + 1, 1);
    w->lane_text = calloc(w->nlanes + 1, 1);
    if (!w->proc_text || !w->lane_text) return -1;
    for (size_t p = 0; p < w->nprocs; p++) {
        const char *t = sts_timeline_string(w->tl, w->procs[p].label);
        w->proc_text[p] = *t && !label_is(t, w->procs[p].pid);
    }
    for (size_t l = 0; l < w->nlanes; l++) {
        const char *t = sts_timeline_string(w->tl, w->lanes[l].label);
        w->lane_text[l] = *t && !label_is(t, w->lanes[l].tid);
    }
    return 0;
}

void sts_cjw_put_pid(sts_cjw *w, uint32_t proc)
{
    if (proc >= w->nprocs)
        sts_cjw_lit(w, "0");
    else if (w->proc_text && w->proc_text[proc])
        sts_cjw_str(w, w->procs[proc].label);
    else
        sts_cjw_i64(w, sts_cjw_pid(w, proc));
}

void sts_cjw_put_tid(sts_cjw *w, uint32_t lane)
{
    if (lane >= w->nlanes)
        sts_cjw_lit(w, "0");
    else if (w->lane_text && w->lane_text[lane])
        sts_cjw_str(w, w->lanes[lane].label);
    else
        sts_cjw_i64(w, w->tid[lane]);
}

void sts_cjw_pid_tid(sts_cjw *w, uint32_t lane)
{
    sts_cjw_lit(w, "\"pid\":");
    if (lane >= w->nlanes) {
        sts_cjw_lit(w, "0,\"tid\":0");
        return;
    }
    sts_cjw_put_pid(w, w->lanes[lane].process);
    sts_cjw_lit(w, ",\"tid\":");
    sts_cjw_put_tid(w, lane);
}

static void arg_value(sts_cjw *w, const sts_arg *a)
{
    switch (a->type) {
    case STS_ARG_INT:
        sts_cjw_i64(w, a->v.i);
        break;
    case STS_ARG_DOUBLE:
        sts_cjw_f64(w, a->v.d);
        break;
    case STS_ARG_STRING:
        sts_cjw_str(w, a->v.str);
        break;
    case STS_ARG_JSON: {
        const char *raw = sts_timeline_string(w->tl, a->v.str);
        sts_cjw_lit(w, *raw ? raw : "null");
        break;
    }
    case STS_ARG_BOOL:
        sts_cjw_lit(w, a->v.i ? "true" : "false");
        break;
    default:
        sts_cjw_lit(w, "null");
        break;
    }
}

size_t sts_cjw_arg_members(sts_cjw *w, uint32_t first, uint32_t skip)
{
    size_t k = 0;
    if (first == STS_NONE || first >= w->nargs) return 0;
    for (size_t i = first; i < w->nargs; i++) {
        if (skip == STS_NONE || w->args[i].key != skip) {
            if (k++) sts_cjw_lit(w, ",");
            sts_cjw_str(w, w->args[i].key);
            sts_cjw_lit(w, ":");
            arg_value(w, &w->args[i]);
        }
        if (w->args[i].last) break;
    }
    return k;
}

void sts_cjw_args(sts_cjw *w, uint32_t first)
{
    if (first == STS_NONE || first >= w->nargs) return;
    sts_cjw_lit(w, ",\"args\":{");
    sts_cjw_arg_members(w, first, STS_NONE);
    sts_cjw_lit(w, "}");
}

void sts_cjw_name_cat(sts_cjw *w, uint32_t name, uint32_t cat)
{
    sts_cjw_lit(w, ",\"name\":");
    sts_cjw_str(w, name);
    if (cat) {
        sts_cjw_lit(w, ",\"cat\":");
        sts_cjw_str(w, cat);
    }
}

/* A metadata event of process `proc`, or of lane `lane` when it is not STS_NONE. */
static void meta_event(sts_cjw *w, uint32_t proc, uint32_t lane, const char *what, const char *key, uint32_t str,
                       int64_t num)
{
    sts_cjw_event(w, "{\"ph\":\"M\",\"pid\":");
    sts_cjw_put_pid(w, proc);
    if (lane != STS_NONE) {
        sts_cjw_lit(w, ",\"tid\":");
        sts_cjw_put_tid(w, lane);
    }
    sts_cjw_lit(w, ",\"name\":\"");
    sts_cjw_lit(w, what);
    sts_cjw_lit(w, "\",\"args\":{\"");
    sts_cjw_lit(w, key);
    sts_cjw_lit(w, "\":");
    if (str != STS_NONE)
        sts_cjw_str(w, str);
    else
        sts_cjw_i64(w, num);
    sts_cjw_lit(w, "}}");
}

static int writes_meta(const sts_lane *ln, size_t nprocs)
{
    return ln->process < nprocs && ln->kind != STS_LANE_ASYNC && ln->kind != STS_LANE_INSTANTS;
}

void sts_cjw_metadata(sts_cjw *w, const unsigned char *lane_on)
{
    unsigned char *proc_on = NULL;
    if (lane_on && (proc_on = calloc(w->nprocs + 1, 1)) != NULL)
        for (size_t l = 0; l < w->nlanes; l++)
            if (lane_on[l] && w->lanes[l].process < w->nprocs) proc_on[w->lanes[l].process] = 1;
    for (size_t p = 0; p < w->nprocs; p++) {
        const sts_process *pr = &w->procs[p];
        if (pr->global) continue; /* finalize's holder of global tracks: no process of the trace */
        if (lane_on && proc_on && !proc_on[p]) continue; /* out of memory: every process, which is harmless */
        int64_t pid = sts_cjw_pid(w, (uint32_t)p);
        /* The writer names an unnamed process after its pid; with labels (the cut) it
         * stays as the trace had it. */
        uint32_t name = pr->name ? pr->name : w->labels ? 0 : pr->label;
        if (name) meta_event(w, (uint32_t)p, STS_NONE, "process_name", "name", name, 0);
        /* JAX sorts processes by pid (701 for the host). */
        int64_t sort = pr->sort_index ? pr->sort_index : pid >= INT32_MIN && pid <= INT32_MAX ? pid : (int64_t)p;
        meta_event(w, (uint32_t)p, STS_NONE, "process_sort_index", "sort_index", STS_NONE, sort);
    }
    free(proc_on);
    for (size_t l = 0; l < w->nlanes; l++) {
        const sts_lane *ln = &w->lanes[l];
        if (!writes_meta(ln, w->nprocs) || (lane_on && !lane_on[l])) continue;
        if (ln->name) meta_event(w, ln->process, (uint32_t)l, "thread_name", "name", ln->name, 0);
        meta_event(w, ln->process, (uint32_t)l, "thread_sort_index", "sort_index", STS_NONE,
                   ln->sort_index ? ln->sort_index : w->tid_order[l]);
    }
}

static void slices(sts_cjw *w)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        /* Instants and async events are written from their own lists. */
        if (s[i].dur < 0 || (s[i].flags & (STS_SLICE_INSTANT | STS_SLICE_ASYNC))) continue;
        sts_cjw_event(w, "{\"ph\":\"X\",");
        sts_cjw_pid_tid(w, s[i].lane);
        sts_cjw_lit(w, ",\"ts\":");
        sts_cjw_us(w, s[i].ts);
        sts_cjw_lit(w, ",\"dur\":");
        sts_cjw_us(w, s[i].dur);
        sts_cjw_name_cat(w, s[i].name, s[i].cat);
        sts_cjw_args(w, s[i].args);
        sts_cjw_lit(w, "}");
    }
}

static void instants(sts_cjw *w)
{
    size_t n;
    const sts_instant *e = sts_timeline_instants(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        char scope[] = "{\"ph\":\"i\",\"s\":\"t\",";
        if (e[i].scope == 'p' || e[i].scope == 'g') scope[15] = e[i].scope;
        sts_cjw_event(w, scope);
        sts_cjw_pid_tid(w, e[i].lane);
        sts_cjw_lit(w, ",\"ts\":");
        sts_cjw_us(w, e[i].ts);
        sts_cjw_name_cat(w, e[i].name, e[i].cat);
        sts_cjw_args(w, e[i].args);
        sts_cjw_lit(w, "}");
    }
}

static void counters(sts_cjw *w)
{
    size_t n;
    const sts_counter *c = sts_timeline_counters(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        sts_cjw_event(w, "{\"ph\":\"C\",");
        sts_cjw_pid_tid(w, c[i].lane);
        sts_cjw_lit(w, ",\"ts\":");
        sts_cjw_us(w, c[i].ts);
        sts_cjw_name_cat(w, c[i].name, 0);
        sts_cjw_lit(w, ",\"args\":{");
        sts_cjw_str(w, c[i].series);
        sts_cjw_lit(w, ":");
        sts_cjw_f64(w, c[i].value);
        sts_cjw_lit(w, "}}");
    }
}

/* The id as it was read: "id" (a string or a number) or id2's "local" or "global". */
static void async_id(sts_cjw *w, const sts_async *a)
{
    uint8_t k = a->id_kind;
    int number = k == STS_ASYNC_ID_NUMBER || k == STS_ASYNC_ID_LOCAL_NUMBER || k == STS_ASYNC_ID_GLOBAL_NUMBER;
    if (k == STS_ASYNC_ID_LOCAL_STRING || k == STS_ASYNC_ID_LOCAL_NUMBER)
        sts_cjw_lit(w, ",\"id2\":{\"local\":");
    else if (k == STS_ASYNC_ID_GLOBAL_STRING || k == STS_ASYNC_ID_GLOBAL_NUMBER)
        sts_cjw_lit(w, ",\"id2\":{\"global\":");
    else
        sts_cjw_lit(w, ",\"id\":");
    if (number)
        sts_cjw_lit(w, sts_timeline_string(w->tl, a->id));
    else
        sts_cjw_str(w, a->id);
    if (k >= STS_ASYNC_ID_LOCAL_STRING) sts_cjw_lit(w, "}");
}

static void asyncs_and_flows(sts_cjw *w)
{
    size_t n;
    const sts_async *a = sts_timeline_asyncs(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        sts_cjw_phase(w, a[i].phase ? a[i].phase : 'n');
        sts_cjw_pid_tid(w, a[i].lane);
        sts_cjw_lit(w, ",\"ts\":");
        sts_cjw_us(w, a[i].ts);
        sts_cjw_name_cat(w, a[i].name, a[i].cat);
        async_id(w, &a[i]);
        sts_cjw_args(w, a[i].args);
        sts_cjw_lit(w, "}");
    }
    const sts_flow *fl = sts_timeline_flows(w->tl, &n);
    for (size_t i = 0; i < n; i++) {
        sts_cjw_phase(w, fl[i].phase ? fl[i].phase : 's');
        sts_cjw_pid_tid(w, fl[i].lane);
        sts_cjw_lit(w, ",\"ts\":");
        sts_cjw_us(w, fl[i].ts);
        sts_cjw_name_cat(w, fl[i].name, fl[i].cat);
        sts_cjw_lit(w, ",\"id\":");
        sts_cjw_str(w, fl[i].id);
        if (fl[i].bind_enclosing) sts_cjw_lit(w, ",\"bp\":\"e\"");
        sts_cjw_lit(w, "}");
    }
}

static void cjw_free(sts_cjw *w)
{
    free(w->tid);
    free(w->tid_order);
    free(w->proc_text);
    free(w->lane_text);
    w->tid = NULL;
    w->tid_order = NULL;
    w->proc_text = w->lane_text = NULL;
}

sts_status sts_cjw_open(sts_cjw *w, const sts_timeline *tl, const char *path, const sts_write_options *opts,
                        const char *time_unit, uint32_t first_proc, int labels, sts_error *err)
{
    memset(w, 0, sizeof *w);
    w->tl = tl;
    w->procs = sts_timeline_processes(tl, &w->nprocs);
    w->lanes = sts_timeline_lanes(tl, &w->nlanes);
    w->args = sts_timeline_args(tl, &w->nargs);
    w->labels = labels;
    if (choose_tids(w) != 0 || (labels && choose_labels(w) != 0)) {
        cjw_free(w);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    }
    w->f = sts_wfile_open(path, sts_path_is_gz(path), opts ? opts->gzip_level : 0, err);
    if (!w->f) {
        cjw_free(w);
        return err ? err->code : STS_ERR_IO;
    }
    w->first_proc = first_proc;
    sts_cjw_lit(w, "{\"displayTimeUnit\":");
    sts_json_escape(time_unit, strlen(time_unit), put_wfile, w->f);
    if (labels) sts_cjw_lit(w, ",\"stepscope_exact_times\":true");
    sts_cjw_lit(w, ",\"traceEvents\":[\n");
    sts_cjw_event(w, STS_COMPLETION_JSON_OPEN); /* the file announces its completion record... */
    sts_cjw_put_pid(w, first_proc);
    sts_cjw_lit(w, STS_COMPLETION_JSON_HEAD_REST);
    return STS_OK;
}

sts_status sts_cjw_commit(sts_cjw *w, sts_error *err)
{
    char tail[32];
    snprintf(tail, sizeof tail, "%" PRIu64 "}}", w->events - 1);
    sts_cjw_event(w, STS_COMPLETION_JSON_OPEN); /* ...and ends with it */
    sts_cjw_put_pid(w, w->first_proc);
    sts_cjw_lit(w, STS_COMPLETION_JSON_TAIL_REST);
    sts_cjw_lit(w, tail);
    sts_cjw_lit(w, "\n]}\n");
    cjw_free(w);
    sts_wfile *f = w->f;
    w->f = NULL;
    return sts_wfile_commit(f, err);
}

void sts_cjw_abort(sts_cjw *w)
{
    sts_wfile_abort(w->f);
    w->f = NULL;
    cjw_free(w);
}

sts_status sts_write_chrome_json(const sts_timeline *tl, const char *path, const sts_write_options *opts,
                                 sts_error *err)
{
    if (!tl || !path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "chrome json writer: no timeline or path");
    size_t nprocs;
    sts_timeline_processes(tl, &nprocs);
    sts_cjw w;
    sts_status st = sts_cjw_open(&w, tl, path, opts, "ns", nprocs ? 0 : STS_NONE, 0, err);
    if (st != STS_OK) return st;
    sts_cjw_metadata(&w, NULL);
    slices(&w);
    instants(&w);
    counters(&w);
    asyncs_and_flows(&w);
    return sts_cjw_commit(&w, err);
}
