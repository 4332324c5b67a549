/* logparse: TORCH_TRACE structured logs (torch/_logging/_internal.py trace_structured,
 * the files tlparse reads: TORCH_TRACE=DIR writes DIR/dedicated_log_torch_trace_*.log,
 * one per process). Each record is one line, a glog prefix and a JSON object
 *
 *   V1204 02:34:10.737000 4423 torch/_dynamo/convert_frame.py:309] {"dynamo_start":
 *       {"stack": [{"line": 3, "name": "f", "filename": 1}]}, "frame_id": 0,
 *       "frame_compile_id": 0, "attempt": 0}
 *
 * whose one top-level key besides the compile id (frame_id, frame_compile_id, attempt,
 * rank, has_payload) names the record, followed, when it has a payload, by the payload's
 * lines, each after a tab. Read here:
 *   str                   ["FILE", N]: file names the stacks refer to by number
 *   dynamo_start          the frame a compile starts on (its stack's last entry)
 *   compilation_metrics   one compile attempt: compile_id, co_name / co_filename /
 *                         co_firstlineno, entire_frame_compile_time_s,
 *                         backend_compile_time_s, recompile_reason, restart_reasons,
 *                         fail_type / fail_reason (the recompile limit among them)
 *   artifact              recompile_reasons (payload: the guard failures) and
 *                         dynamo_graph_break_reason (payload: "Graph break in user code
 *                         at FILE:LINE", "Graph Break Reason: ..." or "Reason: ...")
 * Every other record (chromium_event, dynamo_guards, graphs, describe_*) is skipped. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/json_dom.h"
#include "base/sbuf.h"
#include "logparse/logparse.h"

/* Payload kept per record: enough for a graph-break reason's first lines. */
#define TT_MAX_PAYLOAD (64 * 1024)
/* str ids beyond this are no file table torch wrote. */
#define TT_MAX_STR 1000000

typedef enum tt_kind { TT_SKIP = 0, TT_STR, TT_START, TT_METRICS, TT_ART_RECOMPILE, TT_ART_BREAK } tt_kind;

/* A graph break met before anything named its frame (no dynamo_start before it). */
typedef struct tt_break {
    long frame, fcid;
    uint32_t where, reason; /* parse strings */
    int64_t line;
} tt_break;

typedef struct lp_trace {
    int open;
    tt_kind kind;
    int64_t line;
    char *head; /* the JSON text of the open record; owned */
    sts_sbuf payload;
    STS_VEC(uint32_t) files;   /* str id -> string id + 1 (0 = not given) */
    sts_u64map frames;         /* frame_id + 1 -> ident */
    sts_u64map broke;          /* compile key -> 1: a graph-break artifact was counted for it */
    sts_u64map reasons;        /* compile key -> string id of its recompile_reasons payload */
    sts_u64map first;          /* frame_id + 1 -> the row of its compile 0, whose input a recompile names */
    STS_VEC(tt_break) waiting; /* graph breaks of frames not named yet */
} lp_trace;

static uint64_t compile_key(long frame, long fcid)
{
    return ((uint64_t)(uint32_t)frame << 32 | (uint32_t)fcid) + 1;
}

static int starts(const char *s, const char *lit)
{
    return strncmp(s, lit, strlen(lit)) == 0;
}

static tt_kind head_kind(const char *msg)
{
    if (starts(msg, "{\"compilation_metrics\"")) return TT_METRICS;
    if (starts(msg, "{\"dynamo_start\"")) return TT_START;
    if (starts(msg, "{\"str\"")) return TT_STR;
    if (starts(msg, "{\"artifact\"")) {
        /* Only two artifacts matter; the others (bytecode, graphs) are large. */
        if (strstr(msg, "\"name\": \"recompile_reasons\"") || strstr(msg, "\"name\":\"recompile_reasons\""))
            return TT_ART_RECOMPILE;
        if (strstr(msg, "\"dynamo_graph_break_reason\"")) return TT_ART_BREAK;
    }
    return TT_SKIP;
}

static lp_trace *state(lp_ctx *x)
{
    if (!x->tt && !(x->tt = calloc(1, sizeof *x->tt))) x->oom = 1;
    return x->tt;
}

/* The compile id of a record: frame_id / frame_compile_id / attempt beside its key, or
 * the "F/C" of compilation_metrics.compile_id. */
static int record_id(const sts_jval *root, const sts_jval *body, long *frame, long *fcid)
{
    const sts_jval *f = sts_json_get(root, "frame_id"), *c = sts_json_get(root, "frame_compile_id");
    if (f && c && f->type == STS_J_NUM && c->type == STS_J_NUM && f->u.num >= 0 && c->u.num >= 0 && f->u.num < 1e9 &&
        c->u.num < 1e9) {
        *frame = (long)f->u.num;
        *fcid = (long)c->u.num;
        return 0;
    }
    const char *id = sts_json_str(sts_json_get(body, "compile_id"), NULL);
    char *end;
    if (!id || !isdigit((unsigned char)id[0])) return -1;
    *frame = strtol(id, &end, 10);
    if (*end != '/' || !isdigit((unsigned char)end[1])) return -1;
    *fcid = strtol(end + 1, &end, 10);
    return *frame >= 0 && *fcid >= 0 && *frame < 1000000000L && *fcid < 1000000000L ? 0 : -1;
}

static const char *file_name(lp_ctx *x, const sts_jval *v)
{
    if (v && v->type == STS_J_STR) return v->u.str.s;
    if (!v || v->type != STS_J_NUM || v->u.num < 0 || v->u.num >= (double)x->tt->files.n) return NULL;
    uint32_t s = x->tt->files.v[(size_t)v->u.num];
    return s ? lp_str(x, s - 1) : NULL;
}

static long bind_frame(lp_ctx *x, long frame, const char *name, const char *file, long line)
{
    char loc[600];
    snprintf(loc, sizeof loc, "%s:%ld", file, line);
    long ident = sts_lp_torch_function(x, name, strlen(name), loc, strlen(loc));
    if (ident >= 0 && sts_u64map_put(&x->tt->frames, (uint64_t)frame + 1, (uint32_t)ident) != 0) x->oom = 1;
    return ident;
}

static void on_str(lp_ctx *x, const sts_jval *body)
{
    const char *s = sts_json_str(sts_json_at(body, 0), NULL);
    double id = sts_json_num(sts_json_at(body, 1), -1);
    if (!s || id < 0 || id >= TT_MAX_STR || id != (double)(long)id) {
        sts_lp_warn(x, x->tt->line,
                    "a TORCH_TRACE \"str\" record that is not [\"FILE\", N] (N a whole number below %d)", TT_MAX_STR);
        return;
    }
    lp_trace *t = x->tt;
    size_t i = (size_t)id;
    while (t->files.n <= i) {
        uint32_t *slot = STS_VEC_PUSH(t->files);
        if (!slot) {
            x->oom = 1;
            return;
        }
        *slot = 0;
    }
    t->files.v[i] = sts_lp_str(x, s, strlen(s)) + 1;
}

static void on_start(lp_ctx *x, const sts_jval *root, const sts_jval *body)
{
    long frame, fcid;
    const sts_jval *stack = sts_json_get(body, "stack");
    size_t n = sts_json_len(stack);
    const sts_jval *top = n ? sts_json_at(stack, n - 1) : NULL;
    const char *name = sts_json_str(sts_json_get(top, "name"), NULL);
    const char *file = file_name(x, sts_json_get(top, "filename"));
    double line = sts_json_num(sts_json_get(top, "line"), -1);
    if (record_id(root, body, &frame, &fcid) != 0 || !name || line < 0) {
        sts_lp_warn(x, x->tt->line,
                    "a TORCH_TRACE dynamo_start record without its frame: expected \"frame_id\", "
                    "\"frame_compile_id\" and a \"stack\" whose last entry has \"name\" and \"line\"");
        return;
    }
    /* A file number no "str" record gave: the frame waits for its compilation_metrics,
     * which names the file itself, rather than becoming a function of an unknown file. */
    if (file) bind_frame(x, frame, name, file, (long)line);
}

/* The lines of a recompile reason that name a cache entry ("0/1: ..."), up to its
 * "User stack trace:". Returns how many; the text is cut in place. */
static size_t reason_entries(char *text, const char **out, size_t cap)
{
    size_t n = 0;
    for (char *p = text, *next; p && *p && n < cap; p = next) {
        next = strchr(p, '\n');
        if (next) *next++ = 0;
        while (*p == ' ' || *p == '\t' || *p == '-')
            p++;
        if (starts(p, "User stack trace")) break;
        if (isdigit((unsigned char)*p) || *p == '!') out[n++] = p;
    }
    return n;
}

/* The first line of a torch message, without its explanation lines. */
static void first_line(const char *s, char *out, size_t cap)
{
    size_t n = strcspn(s, "\n");
    snprintf(out, cap, "%.*s", (int)n, s);
}

static int is_limit(const char *type, const char *reason)
{
    static const char *const words[] = { "recompile limit", "recompile_limit", "cache_size_limit", "cache size limit",
                                         "LimitExceeded" };
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if ((type && strstr(type, words[i])) || (reason && strstr(reason, words[i]))) return 1;
    return 0;
}

static int64_t secs_ns(const sts_jval *v)
{
    if (!v || v->type != STS_J_NUM || !(v->u.num >= 0) || v->u.num > 1e7) return -1;
    return (int64_t)(v->u.num * 1e9 + 0.5);
}

static void graph_break(lp_ctx *x, long ident, const char *where, const char *reason)
{
    long fn = sts_lp_fn(x, ident, STS_LEDGER_SRC_TORCH_TRACE);
    if (fn >= 0 && sts_lg_graph_break(x->l, (size_t)fn, where, reason) != 0) x->oom = 1;
}

/* "train.py:5" from "/path/to/train.py:5". */
static void short_site(const char *s, size_t n, char *out, size_t cap)
{
    const char *base = s;
    for (size_t i = 0; i < n; i++)
        if (s[i] == '/' || s[i] == '\\') base = s + i + 1;
    snprintf(out, cap, "%.*s", (int)(n - (size_t)(base - s)), base);
}

static long frame_ident(lp_ctx *x, long frame)
{
    uint32_t i = sts_u64map_get(&x->tt->frames, (uint64_t)frame + 1);
    return i == UINT32_MAX ? -1 : (long)i;
}

/* The graph breaks of `frame` that waited for its name. */
static void breaks_named(lp_ctx *x, long frame, long ident)
{
    lp_trace *t = x->tt;
    size_t k = 0;
    for (size_t i = 0; i < t->waiting.n; i++) {
        tt_break *b = &t->waiting.v[i];
        if (b->frame == frame)
            graph_break(x, ident, lp_str(x, b->where), lp_str(x, b->reason));
        else
            t->waiting.v[k++] = *b;
    }
    t->waiting.n = k;
}

static void on_metrics(lp_ctx *x, const sts_jval *root, const sts_jval *m)
{
    lp_trace *t = x->tt;
    long frame, fcid;
    if (record_id(root, m, &frame, &fcid) != 0) {
        sts_lp_warn(x, t->line,
                    "a TORCH_TRACE compilation_metrics record without a compile id: expected \"frame_id\" and "
                    "\"frame_compile_id\", or \"compile_id\": \"F/C\"");
        return;
    }
    const char *name = sts_json_str(sts_json_get(m, "co_name"), NULL);
    const char *file = sts_json_str(sts_json_get(m, "co_filename"), NULL);
    double line = sts_json_num(sts_json_get(m, "co_firstlineno"), -1);
    long ident = name && file && line >= 0 ? bind_frame(x, frame, name, file, (long)line) : frame_ident(x, frame);
    if (ident < 0) {
        if (!x->oom)
            sts_lp_warn(x, t->line,
                        "compile %ld/%ld names no function: expected \"co_name\", \"co_filename\" and "
                        "\"co_firstlineno\", or a dynamo_start record of frame %ld before it",
                        frame, fcid, frame);
        return;
    }
    long fn = sts_lp_fn(x, ident, STS_LEDGER_SRC_TORCH_TRACE);
    if (fn < 0) return;
    sts_lg_fn_graph_breaks_known(x->l, (size_t)fn);
    breaks_named(x, frame, ident);

    /* The guard failures that made this compile: in the record, or in the artifact. */
    const char *rr = sts_json_str(sts_json_get(m, "recompile_reason"), NULL);
    uint32_t art = sts_u64map_get(&t->reasons, compile_key(frame, fcid));
    if (!rr && art != UINT32_MAX) rr = lp_str(x, art);
    char *text = rr ? strdup(rr) : NULL;
    const char *entries[64];
    size_t n = text ? reason_entries(text, entries, 64) : 0;
    lp_guards gd;
    long max_id = fcid;
    if (sts_lp_torch_guards(x, ident, entries, n, &max_id, &gd) != 0) {
        free(text);
        return;
    }
    free(text);
    /* Compile 0's input is named only by the guards that later failed against it. */
    uint32_t r0 = sts_u64map_get(&t->first, (uint64_t)frame + 1);
    if (gd.oldest_id == 0 && gd.old_sig[0] && r0 != UINT32_MAX && r0 < x->rows.n && !x->rows.v[r0].sig_text)
        x->rows.v[r0].sig_text = sts_lp_str(x, gd.old_sig, strlen(gd.old_sig));
    lp_row *row = sts_lp_row_new(x, ident, STS_LEDGER_SRC_TORCH_TRACE, t->line);
    if (!row) return;
    if (fcid == 0 && sts_u64map_put(&t->first, (uint64_t)frame + 1, (uint32_t)(x->rows.n - 1)) != 0) x->oom = 1;
    row->sig_text = gd.sig[0] ? sts_lp_str(x, gd.sig, strlen(gd.sig)) : 0;
    if (gd.reason[0])
        row->reason = sts_lp_str(x, gd.reason, strlen(gd.reason));
    else if (fcid == 0) {
        static const char first[] = "first: first compile of this frame";
        row->reason = sts_lp_str(x, first, strlen(first));
        sts_lg_add_reason(x->l, lp_str(x, x->idents.v[ident].display), STS_MISS_FIRST, "first compile", 1, NULL);
    }
    const char *ftype = sts_json_str(sts_json_get(m, "fail_type"), NULL);
    const char *freason = sts_json_str(sts_json_get(m, "fail_reason"), NULL);
    lp_ident *id = &x->idents.v[ident];
    if (ftype || freason) {
        char why[600], fl[300];
        first_line(freason ? freason : "", fl, sizeof fl);
        if (is_limit(ftype, freason)) {
            snprintf(why, sizeof why,
                     "recompile limit reached: dynamo runs this call uncompiled (%s; "
                     "torch._dynamo.config.recompile_limit, cache_size_limit before 2.6)",
                     fl[0] ? fl : ftype);
            sts_lg_fn_count(x->l, (size_t)fn, STS_LG_LIMIT_HIT, 1);
            max_id = fcid - 1; /* the refused attempt is no specialization */
        } else
            snprintf(why, sizeof why, "failed: %s%s%s", ftype ? ftype : "compile failed", fl[0] ? ": " : "", fl);
        row->reason = sts_lp_str(x, why, strlen(why));
    } else {
        row->traces = row->compiles = 1;
        int64_t all = secs_ns(sts_json_get(m, "entire_frame_compile_time_s"));
        int64_t backend = secs_ns(sts_json_get(m, "backend_compile_time_s"));
        /* Dynamo's own time (tracing bytecode, guards) is the frame's time less the
         * backend's; without the backend's time the split is unknown. */
        if (all >= 0 && backend >= 0 && backend <= all) {
            row->trace_ns = all - backend;
            row->compile_ns = backend;
        }
    }
    if (max_id > id->max_compile_id) id->max_compile_id = max_id;
    /* Graph breaks the attempt restarted for, when no artifact said it. */
    if (sts_u64map_get(&t->broke, compile_key(frame, fcid)) == UINT32_MAX) {
        const sts_jval *rs = sts_json_get(m, "restart_reasons");
        for (size_t i = 0; i < sts_json_len(rs); i++) {
            const char *r = sts_json_str(sts_json_at(rs, i), NULL);
            char fl[300];
            if (!r) continue;
            first_line(r, fl, sizeof fl);
            graph_break(x, ident, "", fl);
        }
    }
}

/* "Graph break in user code at FILE:LINE" / "Graph Break Reason: ..." (2.5 on) or
 * "Reason: ..." (earlier); a reason that only says a graph break was met and ends with
 * ':' is followed by torch's name for it ("Call to `torch._dynamo.graph_break()`"). */
static void on_break(lp_ctx *x, const sts_jval *root)
{
    lp_trace *t = x->tt;
    long frame, fcid;
    const char *p = t->payload.p ? t->payload.p : "";
    if (record_id(root, NULL, &frame, &fcid) != 0 || !starts(p, "Graph break")) {
        sts_lp_warn(x, t->line,
                    "a dynamo_graph_break_reason artifact without its compile id or payload: expected "
                    "\"frame_id\", \"frame_compile_id\" and tab-indented lines from \"Graph break in user code at "
                    "FILE:LINE\"");
        return;
    }
    long ident = frame_ident(x, frame);
    char where[300] = "", reason[300] = "";
    const char *at = strstr(p, " at ");
    size_t n = at ? strcspn(at + 4, "\n") : 0;
    if (at && at < p + strcspn(p, "\n")) short_site(at + 4, n, where, sizeof where);
    const char *r = strstr(p, "\nGraph Break Reason: ");
    size_t skip = 21;
    if (!r) r = strstr(p, "\nReason: "), skip = 9;
    if (r) {
        r += skip;
        size_t len = strcspn(r, "\n");
        if (len && r[len - 1] == ':' && r[len] == '\n') {
            const char *q = r + len;
            while (*q == '\n' || *q == ' ')
                q++;
            if (*q) r = q, len = strcspn(q, "\n");
        }
        snprintf(reason, sizeof reason, "%.*s", (int)len, r);
    }
    const char *why = reason[0] ? reason : "unknown (the artifact names none)";
    if (ident >= 0)
        graph_break(x, ident, where, why);
    else { /* its compilation_metrics will name the frame */
        tt_break *b = STS_VEC_PUSH(t->waiting);
        if (!b) {
            x->oom = 1;
            return;
        }
        *b = (tt_break){ frame, fcid, sts_lp_str(x, where, strlen(where)), sts_lp_str(x, why, strlen(why)), t->line };
    }
    if (sts_u64map_put(&t->broke, compile_key(frame, fcid), 1) != 0) x->oom = 1;
}

static void on_recompile_reasons(lp_ctx *x, const sts_jval *root)
{
    lp_trace *t = x->tt;
    long frame, fcid;
    if (record_id(root, NULL, &frame, &fcid) != 0) return;
    /* JSON encoding: a list of strings, or (2.15) the reasons as text. */
    sts_sbuf text = STS_SBUF_INIT;
    const char *p = t->payload.p ? t->payload.p : "";
    sts_jdoc doc = STS_JDOC_INIT;
    if (p[0] == '[' && sts_json_parse(&doc, p, t->payload.n, x->name, NULL) == STS_OK)
        for (size_t i = 0; i < sts_json_len(doc.root); i++) {
            const char *s = sts_json_str(sts_json_at(doc.root, i), NULL);
            if (s) sts_sbuf_printf(&text, "%s%s", text.n ? "\n" : "", s);
        }
    else
        sts_sbuf_puts(&text, p);
    sts_jdoc_release(&doc);
    uint32_t id = text.oom ? UINT32_MAX : sts_lp_str(x, text.p ? text.p : "", text.n);
    sts_sbuf_release(&text);
    if (id == UINT32_MAX || sts_u64map_put(&t->reasons, compile_key(frame, fcid), id) != 0) x->oom = 1;
}

void sts_lp_trace_end(lp_ctx *x)
{
    sts_lp_trace_flush(x);
    lp_trace *t = x->tt;
    for (size_t i = 0; t && i < t->waiting.n; i++)
        sts_lp_warn(x, t->waiting.v[i].line,
                    "graph break in compile %ld/%ld of a frame no record named: expected a dynamo_start or "
                    "compilation_metrics record of frame %ld",
                    t->waiting.v[i].frame, t->waiting.v[i].fcid, t->waiting.v[i].frame);
    if (t) t->waiting.n = 0;
}

void sts_lp_trace_flush(lp_ctx *x)
{
    lp_trace *t = x->tt;
    if (!t || !t->open) return;
    t->open = 0;
    if (t->kind == TT_SKIP) return;
    sts_jdoc doc = STS_JDOC_INIT;
    sts_error err = STS_ERROR_INIT;
    char name[600];
    snprintf(name, sizeof name, "%s:%lld", x->name, (long long)t->line);
    if (sts_json_parse(&doc, t->head, strlen(t->head), name, &err) != STS_OK || doc.root->type != STS_J_OBJ) {
        x->st.records--;
        x->st.skipped++;
        sts_lp_warn(x, t->line, "a TORCH_TRACE record that is not one JSON object: %s",
                    err.message[0] ? err.message : "expected {\"KEY\": ...}");
    } else {
        const sts_jval *root = doc.root, *body = root->u.obj.n ? root->u.obj.members[0].val : NULL;
        switch (t->kind) {
        case TT_STR:
            on_str(x, body);
            break;
        case TT_START:
            on_start(x, root, body);
            break;
        case TT_METRICS:
            if (body && body->type == STS_J_OBJ)
                on_metrics(x, root, body);
            else
                sts_lp_warn(x, t->line, "compilation_metrics is not a JSON object");
            break;
        case TT_ART_RECOMPILE:
            on_recompile_reasons(x, root);
            break;
        case TT_ART_BREAK:
            on_break(x, root);
            break;
        case TT_SKIP:
            break;
        }
    }
    sts_jdoc_release(&doc);
    free(t->head);
    t->head = NULL;
    sts_sbuf_release(&t->payload);
}

int sts_lp_trace_line(lp_ctx *x, const char *raw, const lp_prefix *pf, const char *msg)
{
    lp_trace *t = x->tt;
    if (t && t->open) {
        if (raw[0] == '\t') {
            if (t->kind >= TT_ART_RECOMPILE && t->payload.n < TT_MAX_PAYLOAD)
                sts_sbuf_printf(&t->payload, "%s%s", t->payload.n ? "\n" : "", raw + 1);
            return 1;
        }
        sts_lp_trace_flush(x);
    }
    if (!pf->prefixed || msg[0] != '{' || msg[1] != '"') return 0;
    if (!(t = state(x))) return 1;
    t->kind = head_kind(msg);
    t->line = x->lineno;
    t->open = 1; /* its payload lines follow */
    if (t->kind == TT_SKIP) {
        x->st.skipped++;
        return 1;
    }
    if (!(t->head = strdup(msg))) {
        t->open = 0;
        x->oom = 1;
        return 1;
    }
    x->st.records++;
    return 1;
}

void sts_lp_trace_release(lp_ctx *x)
{
    lp_trace *t = x->tt;
    if (!t) return;
    free(t->head);
    sts_sbuf_release(&t->payload);
    STS_VEC_RELEASE(t->files);
    sts_u64map_release(&t->frames);
    sts_u64map_release(&t->broke);
    sts_u64map_release(&t->reasons);
    sts_u64map_release(&t->first);
    STS_VEC_RELEASE(t->waiting);
    free(t);
    x->tt = NULL;
}
