/* logparse: the log reader. Streams a log line by line with a maximum line length,
 * strips prefixes, groups multi-line records per stream (so interleaved ranks and
 * threads stay apart) and dispatches records to the JAX and torch handlers.
 *
 * Memory is bounded by what the log holds, never by its size: one line of at most
 * STS_LEDGER_MAX_LINE bytes, records of bounded length in a bounded number of
 * streams, and the rows and functions the records describe. */
#include "logparse/logparse.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <sys/stat.h>

#include "base/instream.h"
#include "base/mem.h"

/* A record longer than this keeps its first lines only (a runaway log cannot exhaust
 * memory); the rest are consumed. */
#define LP_MAX_RECORD_LINES 4096
#define LP_MAX_RECORD_BYTES (4u << 20)
/* Streams with a record open at once; beyond it the oldest record is handled early. */
#define LP_MAX_OPEN_RECORDS 64
#define LP_CHUNK            (64 * 1024)

/* The line being assembled across chunks. */
typedef struct lp_reader {
    lp_ctx *x;
    char *buf; /* grows with the longest line, up to STS_LEDGER_MAX_LINE + 1 bytes */
    size_t len, cap;
    int overlong;      /* the line passed the maximum: its bytes are dropped */
    uint64_t long_len; /* its length so far */
    uint64_t off;      /* input bytes consumed */
} lp_reader;

/* ---- records ------------------------------------------------------------------------ */

static lp_rec *find_open(lp_ctx *x, const char *stream)
{
    for (size_t i = 0; i < x->recs.n; i++)
        if (strcmp(x->recs.v[i].stream, stream) == 0) return &x->recs.v[i];
    return NULL;
}

static void rec_free(lp_rec *r)
{
    for (size_t i = 0; i < r->lines.n; i++)
        free(r->lines.v[i]);
    STS_VEC_RELEASE(r->lines);
}

static void close_rec(lp_ctx *x, lp_rec *r)
{
    lp_rec done = *r;
    /* Remove before handling (handlers never see it twice), keeping the open order. */
    size_t i = (size_t)(r - x->recs.v);
    memmove(r, r + 1, (x->recs.n - i - 1) * sizeof *r);
    x->recs.n--;
    if (done.kind == LP_JAX_MISS)
        sts_lp_jax_miss(x, &done);
    else
        sts_lp_torch_record(x, &done);
    rec_free(&done);
}

static int rec_append(lp_rec *r, const char *msg)
{
    size_t len = strlen(msg);
    if (r->lines.n >= LP_MAX_RECORD_LINES || r->bytes + len > LP_MAX_RECORD_BYTES) return 0;
    char *copy = malloc(len + 1);
    char **slot = copy ? STS_VEC_PUSH(r->lines) : NULL;
    if (!slot) {
        free(copy);
        return -1;
    }
    memcpy(copy, msg, len + 1);
    *slot = copy;
    r->bytes += len;
    return 0;
}

static void open_rec(lp_ctx *x, lp_kind kind, const lp_prefix *pf, const char *msg)
{
    if (x->recs.n >= LP_MAX_OPEN_RECORDS) close_rec(x, &x->recs.v[0]);
    lp_rec *r = STS_VEC_PUSH(x->recs);
    if (!r) {
        x->oom = 1;
        return;
    }
    r->kind = kind;
    r->line = x->lineno;
    r->per_line = pf->per_line;
    snprintf(r->stream, sizeof r->stream, "%s", pf->stream);
    snprintf(r->traceid, sizeof r->traceid, "%s", pf->traceid);
    if (rec_append(r, msg) != 0 || r->lines.n == 0) {
        rec_free(r);
        x->recs.n--;
        x->oom = 1;
    }
}

static int starts(const char *s, const char *lit)
{
    return strncmp(s, lit, strlen(lit)) == 0;
}

int sts_lp_is_continuation(const lp_rec *r, const char *msg)
{
    if (msg[0] == ' ' || msg[0] == '\t') return 1;
    static const char *const jax[] = { "where weak_type=",        "weak_type=False",  "See https://", "https://",
                                       "explanation unavailable", "compare to tuple", " != before" };
    static const char *const torch[] = { "- ", "To log all recompilation", "To diagnose recompilation",
                                         "to diagnose recompilation", "guard " };
    if (r->kind == LP_JAX_MISS) {
        for (size_t i = 0; i < sizeof jax / sizeof jax[0]; i++)
            if (starts(msg, jax[i])) return 1;
        return 0;
    }
    for (size_t i = 0; i < sizeof torch / sizeof torch[0]; i++)
        if (starts(msg, torch[i])) return 1;
    return 0;
}

static int is_blank(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r')
        s++;
    return *s == 0;
}

/* The rank part of a stream key ("rank0" or ""). */
static size_t rank_len(const char *stream)
{
    return strcspn(stream, "|");
}

static void handle_start(lp_ctx *x, lp_kind kind, const lp_prefix *pf, const char *msg)
{
    lp_rec *r = find_open(x, pf->stream);
    if (r) close_rec(x, r);
    /* Torch logs the recompile-limit warning on another logger after the recompile
     * record of the same compile id: that record is complete now. */
    if (kind == LP_TORCH_LIMIT)
        for (size_t i = 0; i < x->recs.n;) {
            lp_rec *o = &x->recs.v[i];
            size_t rl = rank_len(o->stream);
            int same_id = !o->traceid[0] || !pf->traceid[0] || strcmp(o->traceid, pf->traceid) == 0;
            if (o->kind == LP_TORCH_RECOMPILE && same_id && rl == rank_len(pf->stream) &&
                strncmp(o->stream, pf->stream, rl) == 0)
                close_rec(x, o);
            else
                i++;
        }
    x->st.records++;
    if (kind == LP_JAX_MISS || kind == LP_TORCH_RECOMPILE || kind == LP_TORCH_LIMIT)
        open_rec(x, kind, pf, msg);
    else
        sts_lp_jax_line(x, kind, msg, x->lineno);
}

static void handle_line(lp_ctx *x, const char *raw)
{
    if (raw[0] == '#') {
        x->st.comments++;
        return;
    }
    lp_prefix pf;
    const char *msg = sts_lp_strip_prefix(raw, &pf);
    if (sts_lp_trace_line(x, raw, &pf, msg)) return;
    lp_rec *r = find_open(x, pf.stream);
    if (is_blank(msg)) return; /* blank lines separate verbose guard groups; they end nothing */
    lp_kind kind = sts_lp_jax_start(msg);
    if (kind == LP_NONE) kind = sts_lp_torch_start(msg);
    if (kind != LP_NONE) {
        handle_start(x, kind, &pf, msg);
        return;
    }
    /* Python logging prefixes only a record's first line: a prefixed line is never a
     * continuation there. Torch prefixes every line, with the same stream key. */
    int cont = r && (pf.per_line ? r->per_line : !pf.prefixed) && sts_lp_is_continuation(r, msg);
    if (cont) {
        if (rec_append(r, msg) != 0) x->oom = 1;
        return;
    }
    if (r) close_rec(x, r);
    x->st.skipped++;
}

/* ---- lines ---------------------------------------------------------------------------- */

static void end_line(lp_reader *rd)
{
    lp_ctx *x = rd->x;
    x->lineno++;
    x->st.lines++;
    if (rd->overlong) {
        x->st.long_lines++;
        sts_lp_warn(x, x->lineno, "a line of %" PRIu64 " bytes, longer than the %d bytes a log line may have: skipped",
                    rd->long_len, STS_LEDGER_MAX_LINE);
        rd->overlong = 0;
        rd->len = 0;
        return;
    }
    size_t n = rd->len;
    if (!rd->buf && sts_grow((void **)&rd->buf, &rd->cap, 1, 1) != 0) {
        x->oom = 1;
        return;
    }
    /* NUL bytes inside a line would cut it short; show them as '?'. */
    for (size_t i = 0; i < n; i++)
        if (!rd->buf[i]) rd->buf[i] = '?';
    while (n && rd->buf[n - 1] == '\r')
        n--;
    rd->buf[n] = 0;
    rd->len = 0;
    handle_line(x, rd->buf);
}

static sts_status binary(lp_reader *rd, uint64_t at, sts_error *err)
{
    return sts_error_set(err, STS_ERR_FORMAT, (int64_t)at,
                         "%s: byte %" PRIu64 ": NUL bytes in a line longer than %d bytes: this is binary data, not a "
                         "JAX or PyTorch compile log (a text file)",
                         rd->x->name, at, STS_LEDGER_MAX_LINE);
}

/* Part of a line (no newline in it). */
static sts_status take(lp_reader *rd, const char *p, size_t n, sts_error *err)
{
    if (!rd->overlong && rd->len + n <= STS_LEDGER_MAX_LINE) {
        if (sts_grow((void **)&rd->buf, &rd->cap, rd->len + n + 1, 1) != 0)
            return sts_error_set(err, STS_ERR_NOMEM, (int64_t)rd->off, "%s: out of memory", rd->x->name);
        memcpy(rd->buf + rd->len, p, n);
        rd->len += n;
        return STS_OK;
    }
    if (!rd->overlong) {
        const char *z = rd->len ? memchr(rd->buf, 0, rd->len) : NULL;
        if (z) return binary(rd, rd->off - rd->len + (uint64_t)(z - rd->buf), err);
        rd->overlong = 1;
        rd->long_len = rd->len;
        rd->len = 0;
    }
    const char *z = memchr(p, 0, n);
    if (z) return binary(rd, rd->off + (uint64_t)(z - p), err);
    rd->long_len += n;
    return STS_OK;
}

static sts_status feed(lp_reader *rd, const char *p, size_t n, sts_error *err)
{
    while (n) {
        const char *nl = memchr(p, '\n', n);
        size_t part = nl ? (size_t)(nl - p) : n;
        sts_status st = take(rd, p, part, err);
        if (st != STS_OK) return st;
        rd->off += part;
        p += part;
        n -= part;
        if (nl) {
            end_line(rd);
            rd->off++;
            p++;
            n--;
        }
        if (rd->x->oom) return sts_error_set(err, STS_ERR_NOMEM, (int64_t)rd->off, "%s: out of memory", rd->x->name);
    }
    return STS_OK;
}

/* ---- parsing ------------------------------------------------------------------------ */

static sts_status begin(lp_ctx *x, lp_reader *rd, sts_ledger *l, const char *name, sts_error *err)
{
    memset(x, 0, sizeof *x);
    memset(rd, 0, sizeof *rd);
    x->l = l;
    x->name = name ? name : "<log>";
    rd->x = x;
    if (sts_strtab_init(&x->strs) != 0) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", x->name);
    x->st.files = 1;
    return STS_OK;
}

/* Ends the parse: the last line, open records, then everything into the ledger (also
 * after an error, so what was read is kept). */
static sts_status end(lp_ctx *x, lp_reader *rd, sts_status st)
{
    if (st == STS_OK && (rd->len || rd->overlong)) end_line(rd);
    while (x->recs.n)
        close_rec(x, &x->recs.v[0]);
    sts_lp_trace_end(x);
    sts_lp_commit(x);
    sts_lg_log_add(x->l, &x->st);
    free(rd->buf);
    sts_lp_ctx_release(x);
    return st;
}

sts_status sts_ledger_parse_text(sts_ledger *l, const char *name, const char *text, size_t len, sts_error *err)
{
    if (!l || (!text && len)) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: no ledger or text");
    lp_ctx x;
    lp_reader rd;
    sts_status st = begin(&x, &rd, l, name, err);
    if (st != STS_OK) return st;
    st = feed(&rd, text, len, err);
    return end(&x, &rd, st);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

static int trace_log_name(const char *n)
{
    static const char pre[] = "dedicated_log_torch_trace_";
    size_t len = strlen(n);
    if (strncmp(n, pre, sizeof pre - 1) != 0) return 0;
    return (len > 4 && strcmp(n + len - 4, ".log") == 0) || (len > 7 && strcmp(n + len - 7, ".log.gz") == 0);
}

/* A TORCH_TRACE directory: its dedicated_log_torch_trace_*.log files (one per process
 * or rank), in name order. */
static sts_status parse_dir(sts_ledger *l, const char *path, sts_error *err)
{
    DIR *d = opendir(path);
    if (!d) return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot read the directory: %s", path, strerror(errno));
    STS_VEC(char *) names = { 0 };
    sts_status st = STS_OK;
    for (struct dirent *e; (e = readdir(d));) {
        if (!trace_log_name(e->d_name)) continue;
        size_t n = strlen(path) + strlen(e->d_name) + 2;
        char *full = malloc(n), **slot = full ? STS_VEC_PUSH(names) : NULL;
        if (!slot) {
            free(full);
            st = sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
            break;
        }
        snprintf(full, n, "%s%s%s", path, path[strlen(path) - 1] == '/' ? "" : "/", e->d_name);
        *slot = full;
    }
    closedir(d);
    if (st == STS_OK && !names.n)
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                           "%s: a directory without TORCH_TRACE logs: expected files named "
                           "dedicated_log_torch_trace_*.log (written by TORCH_TRACE=%s python ...)",
                           path, path);
    if (names.n) qsort(names.v, names.n, sizeof *names.v, cmp_str);
    for (size_t i = 0; i < names.n && st == STS_OK; i++)
        st = sts_ledger_parse_log(l, names.v[i], err);
    for (size_t i = 0; i < names.n; i++)
        free(names.v[i]);
    STS_VEC_RELEASE(names);
    return st;
}

sts_status sts_ledger_parse_log(sts_ledger *l, const char *path, sts_error *err)
{
    sts_error local = STS_ERROR_INIT;
    if (!err) err = &local;
    if (!l || !path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "ledger: no ledger or path");
    /* One log given twice (a glob and a name, a link) counted every compile twice. */
    struct stat sb;
    if (strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) return parse_dir(l, path, err);
    const char *prev = strcmp(path, "-") != 0 && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)
                           ? sts_lg_file_seen(l, (uint64_t)sb.st_dev, (uint64_t)sb.st_ino, path)
                           : NULL;
    if (prev) {
        sts_lg_warn(l, path, 0, "the same file as %s, given twice: read once", prev);
        sts_lg_log_add(l, &(sts_log_stats){ .warnings = 1 });
        return STS_OK;
    }
    sts_instream *in = sts_instream_open(path, err);
    if (!in) return err->code;
    lp_ctx x;
    lp_reader rd;
    char *chunk = malloc(LP_CHUNK);
    sts_status st =
        chunk ? begin(&x, &rd, l, path, err) : sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    if (st != STS_OK) {
        free(chunk);
        sts_instream_free(in);
        return st;
    }
    for (;;) {
        long got = sts_instream_read(in, chunk, LP_CHUNK, err);
        if (got < 0) {
            st = err->code;
            break;
        }
        if (got == 0) break;
        if ((st = feed(&rd, chunk, (size_t)got, err)) != STS_OK) break;
    }
    free(chunk);
    sts_instream_free(in);
    return end(&x, &rd, st);
}
