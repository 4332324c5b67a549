#include "base/jsonw.h"
#include "base/utf8.h"

#include <math.h>
#include <string.h>

void sts_jsonw_init(sts_jsonw *w, FILE *f, int pretty)
{
    memset(w, 0, sizeof *w);
    w->f = f;
    w->pretty = pretty;
}

static void indent(sts_jsonw *w)
{
    if (!w->pretty) return;
    fputc('\n', w->f);
    for (int i = 0; i < w->depth; i++)
        fputs("  ", w->f);
}

static void before_value(sts_jsonw *w)
{
    if (w->after_key) {
        w->after_key = 0;
        return;
    }
    int d = w->depth < 64 ? w->depth : 63;
    if (w->need_comma[d]) fputc(',', w->f);
    w->need_comma[d] = 1;
    if (w->depth > 0) indent(w);
}

static void nest_open(sts_jsonw *w, char c)
{
    before_value(w);
    fputc(c, w->f);
    w->depth++;
    if (w->depth < 64) w->need_comma[w->depth] = 0;
}

static void nest_close(sts_jsonw *w, char c)
{
    int had = w->depth < 64 ? w->need_comma[w->depth] : 1;
    w->depth--;
    if (had) indent(w);
    fputc(c, w->f);
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
    sts_json_write_string(w->f, key, strlen(key));
    fputs(w->pretty ? ": " : ":", w->f);
    w->after_key = 1;
}

void sts_json_write_string(FILE *f, const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    fputc('"', f);
    size_t i = 0;
    while (i < n) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            size_t j = i;
            while (j < n && s[j] >= 0x20 && s[j] < 0x80 && s[j] != '"' && s[j] != '\\')
                j++;
            fwrite(s + i, 1, j - i, f);
            i = j;
            continue;
        }
        switch (c) {
        case '"':
            fputs("\\\"", f);
            break;
        case '\\':
            fputs("\\\\", f);
            break;
        case '\n':
            fputs("\\n", f);
            break;
        case '\r':
            fputs("\\r", f);
            break;
        case '\t':
            fputs("\\t", f);
            break;
        case '\b':
            fputs("\\b", f);
            break;
        case '\f':
            fputs("\\f", f);
            break;
        default:
            if (c < 0x20) {
                fprintf(f, "\\u%04x", c);
            } else {
                size_t len = sts_utf8_len(s + i, n - i);
                if (len == 0) {
                    fputs("\\ufffd", f);
                    i++;
                    continue;
                }
                fwrite(s + i, 1, len, f);
                i += len;
                continue;
            }
        }
        i++;
    }
    fputc('"', f);
}

void sts_jsonw_str(sts_jsonw *w, const char *s)
{
    before_value(w);
    if (!s) {
        fputs("null", w->f);
        return;
    }
    sts_json_write_string(w->f, s, strlen(s));
}

void sts_jsonw_strn(sts_jsonw *w, const char *s, size_t n)
{
    before_value(w);
    sts_json_write_string(w->f, s, n);
}

void sts_jsonw_i64(sts_jsonw *w, int64_t v)
{
    before_value(w);
    fprintf(w->f, "%lld", (long long)v);
}

void sts_jsonw_u64(sts_jsonw *w, uint64_t v)
{
    before_value(w);
    fprintf(w->f, "%llu", (unsigned long long)v);
}

void sts_jsonw_f64(sts_jsonw *w, double v)
{
    before_value(w);
    if (!isfinite(v)) {
        fputs("null", w->f);
        return;
    }
    /* %.17g round-trips a double; try shorter first for readable output. */
    char buf[40];
    for (int prec = 6; prec <= 17; prec++) {
        snprintf(buf, sizeof buf, "%.*g", prec, v);
        double back;
        if (sscanf(buf, "%lf", &back) == 1 && back == v) break;
    }
    fputs(buf, w->f);
}

void sts_jsonw_bool(sts_jsonw *w, int v)
{
    before_value(w);
    fputs(v ? "true" : "false", w->f);
}

void sts_jsonw_null(sts_jsonw *w)
{
    before_value(w);
    fputs("null", w->f);
}

void sts_jsonw_raw(sts_jsonw *w, const char *json)
{
    before_value(w);
    fputs(json, w->f);
}

void sts_jsonw_finish(sts_jsonw *w)
{
    fputc('\n', w->f);
}
