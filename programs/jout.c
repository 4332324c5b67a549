#include "jout.h"

#include <inttypes.h>
#include <math.h>
#include <string.h>

void jo_init(jout *j, FILE *f)
{
    memset(j, 0, sizeof *j);
    j->f = f;
}

/* Separator and line break before a value or key in the current container. */
static void before(jout *j)
{
    if (j->after_key) {
        j->after_key = 0;
        return;
    }
    if (j->depth == 0) return;
    int d = j->depth < JO_MAX_DEPTH ? j->depth : JO_MAX_DEPTH - 1;
    if (j->count[d]) fputc(',', j->f);
    j->count[d] = 1;
    if (j->depth <= 2) fprintf(j->f, "\n%*s", 2 * j->depth, "");
}

static void open_c(jout *j, char c)
{
    before(j);
    fputc(c, j->f);
    j->depth++;
    if (j->depth < JO_MAX_DEPTH) j->count[j->depth] = 0;
}

static void close_c(jout *j, char c)
{
    int had = j->depth < JO_MAX_DEPTH && j->count[j->depth];
    j->depth--;
    if (had && j->depth < 2) fprintf(j->f, "\n%*s", 2 * j->depth, "");
    fputc(c, j->f);
}

void jo_obj(jout *j)
{
    open_c(j, '{');
}
void jo_obj_end(jout *j)
{
    close_c(j, '}');
}
void jo_arr(jout *j)
{
    open_c(j, '[');
}
void jo_arr_end(jout *j)
{
    close_c(j, ']');
}

void jo_key(jout *j, const char *key)
{
    before(j);
    jo_write_string(j->f, key, strlen(key));
    fputs(j->depth <= 2 ? ": " : ":", j->f);
    j->after_key = 1;
}

/* Length of the valid UTF-8 sequence at s (at most n bytes), or 0 when invalid. */
static size_t utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0];
    size_t len;
    uint32_t cp;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, cp = c & 0x1f;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, cp = c & 0x0f;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, cp = c & 0x07;
    else
        return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        cp = cp << 6 | (s[i] & 0x3f);
    }
    if ((len == 3 && (cp < 0x800 || (cp >= 0xd800 && cp <= 0xdfff))) || (len == 4 && (cp < 0x10000 || cp > 0x10ffff)))
        return 0;
    return len;
}

void jo_write_string(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    fputc('"', f);
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c == '"' || c == '\\') {
            fputc('\\', f);
            fputc((int)c, f);
            i++;
        } else if (c < 0x20) {
            switch (c) {
            case '\n':
                fputs("\\n", f);
                break;
            case '\t':
                fputs("\\t", f);
                break;
            case '\r':
                fputs("\\r", f);
                break;
            default:
                fprintf(f, "\\u%04x", c);
                break;
            }
            i++;
        } else {
            size_t len = utf8_len(p + i, n - i);
            if (len == 0) {
                fputs("\xef\xbf\xbd", f);
                i++;
            } else {
                fwrite(p + i, 1, len, f);
                i += len;
            }
        }
    }
    fputc('"', f);
}

void jo_str(jout *j, const char *s)
{
    if (!s) {
        jo_null(j);
        return;
    }
    jo_strn(j, s, strlen(s));
}

void jo_strn(jout *j, const char *s, size_t n)
{
    before(j);
    jo_write_string(j->f, s, n);
}

void jo_i64(jout *j, int64_t v)
{
    before(j);
    fprintf(j->f, "%" PRId64, v);
}

void jo_u64(jout *j, uint64_t v)
{
    before(j);
    fprintf(j->f, "%" PRIu64, v);
}

void jo_f64(jout *j, double v)
{
    before(j);
    if (isfinite(v))
        fprintf(j->f, "%.17g", v);
    else
        fputs("null", j->f);
}

void jo_bool(jout *j, int v)
{
    before(j);
    fputs(v ? "true" : "false", j->f);
}

void jo_null(jout *j)
{
    before(j);
    fputs("null", j->f);
}

void jo_end(jout *j)
{
    fputc('\n', j->f);
    fflush(j->f);
}
