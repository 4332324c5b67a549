#include "stepscope/json.h"
#include "base/jsontext.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>

/* The document is gathered in the writer's own buffer and handed to the stream in
 * pieces of this size: a stdio call per token (each one taking the stream's lock) cost
 * more than the formatting once documents run to hundreds of MB (a lane per line for a
 * million lanes). */
#define JSONW_BUF ((size_t)64 << 10)

struct sts_jsonw {
    FILE *f;
    char *buf;
    size_t len;
    int lines_to; /* containers at depth <= lines_to put each value on its own line */
    int depth;
    int after_key;
    int unbalanced, too_deep;
    unsigned char has_value[STS_JSONW_MAX_DEPTH]; /* per open container */
};

sts_jsonw *sts_jsonw_create(FILE *f, sts_json_layout layout)
{
    sts_jsonw *w = calloc(1, sizeof *w);
    if (!w || !(w->buf = malloc(JSONW_BUF))) {
        free(w);
        return NULL;
    }
    w->f = f;
    w->lines_to = layout == STS_JSON_INDENTED ? INT_MAX : layout == STS_JSON_TWO_LEVELS ? 2 : 0;
    return w;
}

static void flush_buf(sts_jsonw *w)
{
    if (w->len) fwrite(w->buf, 1, w->len, w->f); /* a failure shows in ferror() at the finish */
    w->len = 0;
}

void sts_jsonw_free(sts_jsonw *w)
{
    if (!w) return;
    flush_buf(w); /* what was written so far reaches the stream, finished or not */
    free(w->buf);
    free(w);
}

static void out(sts_jsonw *w, const char *p, size_t n)
{
    if (n > JSONW_BUF - w->len) {
        flush_buf(w);
        if (n >= JSONW_BUF) {
            fwrite(p, 1, n, w->f);
            return;
        }
    }
    memcpy(w->buf + w->len, p, n);
    w->len += n;
}

static inline void out_c(sts_jsonw *w, char c)
{
    if (w->len == JSONW_BUF) flush_buf(w);
    w->buf[w->len++] = c;
}

static void out_s(sts_jsonw *w, const char *s)
{
    out(w, s, strlen(s));
}

static void put_escaped(void *ctx, const char *p, size_t n)
{
    out(ctx, p, n);
}

static void new_line(sts_jsonw *w, int depth)
{
    out_c(w, '\n');
    for (int i = 0; i < depth; i++)
        out(w, "  ", 2);
}

static void before_value(sts_jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    int d = w->depth < STS_JSONW_MAX_DEPTH ? w->depth : STS_JSONW_MAX_DEPTH - 1;
    if (w->has_value[d]) out_c(w, ',');
    w->has_value[d] = 1;
    if (w->depth > 0 && w->depth <= w->lines_to) new_line(w, w->depth);
}

static void nest_open(sts_jsonw *w, char c)
{
    before_value(w);
    out_c(w, c);
    w->depth++;
    if (w->depth < STS_JSONW_MAX_DEPTH)
        w->has_value[w->depth] = 0;
    else
        w->too_deep = 1;
}

static void nest_close(sts_jsonw *w, char c)
{
    if (w->depth == 0) {
        w->unbalanced = 1;
        return;
    }
    int had = w->depth < STS_JSONW_MAX_DEPTH ? w->has_value[w->depth] : 1;
    if (had && w->depth <= w->lines_to) new_line(w, w->depth - 1);
    w->depth--;
    out_c(w, c);
}

void sts_jsonw_obj_begin(sts_jsonw *w)
{
    nest_open(w, '{');
}

void sts_jsonw_obj_end(sts_jsonw *w)
{
    nest_close(w, '}');
}

void sts_jsonw_arr_begin(sts_jsonw *w)
{
    nest_open(w, '[');
}

void sts_jsonw_arr_end(sts_jsonw *w)
{
    nest_close(w, ']');
}

void sts_jsonw_key(sts_jsonw *w, const char *key)
{
    before_value(w);
    sts_json_escape(key, strlen(key), put_escaped, w);
    out_s(w, w->depth <= w->lines_to ? ": " : ":");
    w->after_key = 1;
}

void sts_jsonw_str(sts_jsonw *w, const char *s)
{
    if (!s)
        sts_jsonw_null(w);
    else
        sts_jsonw_strn(w, s, strlen(s));
}

void sts_jsonw_strn(sts_jsonw *w, const char *s, size_t n)
{
    before_value(w);
    sts_json_escape(s, n, put_escaped, w);
}

void sts_jsonw_i64(sts_jsonw *w, int64_t v)
{
    char buf[STS_JSON_NUM_MAX];
    before_value(w);
    out(w, buf, sts_json_fmt_i64(buf, v));
}

void sts_jsonw_u64(sts_jsonw *w, uint64_t v)
{
    char buf[STS_JSON_NUM_MAX];
    before_value(w);
    out(w, buf, sts_json_fmt_u64(buf, v));
}

void sts_jsonw_f64(sts_jsonw *w, double v)
{
    char buf[STS_JSON_NUM_MAX];
    before_value(w);
    out(w, buf, sts_json_fmt_f64(buf, v));
}

void sts_jsonw_bool(sts_jsonw *w, int v)
{
    sts_jsonw_raw(w, v ? "true" : "false");
}

void sts_jsonw_null(sts_jsonw *w)
{
    sts_jsonw_raw(w, "null");
}

void sts_jsonw_kv_str(sts_jsonw *w, const char *key, const char *s)
{
    sts_jsonw_key(w, key);
    sts_jsonw_str(w, s);
}

void sts_jsonw_kv_i64(sts_jsonw *w, const char *key, int64_t v)
{
    sts_jsonw_key(w, key);
    sts_jsonw_i64(w, v);
}

void sts_jsonw_kv_u64(sts_jsonw *w, const char *key, uint64_t v)
{
    sts_jsonw_key(w, key);
    sts_jsonw_u64(w, v);
}

void sts_jsonw_kv_f64(sts_jsonw *w, const char *key, double v)
{
    sts_jsonw_key(w, key);
    sts_jsonw_f64(w, v);
}

void sts_jsonw_kv_bool(sts_jsonw *w, const char *key, int v)
{
    sts_jsonw_key(w, key);
    sts_jsonw_bool(w, v);
}

void sts_jsonw_kv_null(sts_jsonw *w, const char *key)
{
    sts_jsonw_key(w, key);
    sts_jsonw_null(w);
}

void sts_jsonw_raw(sts_jsonw *w, const char *json)
{
    before_value(w);
    out_s(w, json);
}

sts_status sts_jsonw_finish(sts_jsonw *w)
{
    out_c(w, '\n');
    flush_buf(w);
    fflush(w->f);
    if (w->unbalanced || w->depth != 0 || w->after_key) return STS_ERR_STATE;
    if (w->too_deep) return STS_ERR_LIMIT;
    return ferror(w->f) ? STS_ERR_IO : STS_OK;
}
