#include "base/json_dom.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "base/utf8.h"
#include "base/vec.h"

typedef struct parser {
    const char *s;
    size_t n, i;
    int depth;
    const char *name;
    sts_arena *arena;
    sts_error *err;
    sts_status st;
} parser;

static int fail(parser *p, size_t at, const char *what)
{
    if (p->st == STS_OK) {
        p->st = sts_error_set(p->err, STS_ERR_PARSE, (int64_t)at, "%s: byte %zu: %s", p->name, at, what);
    }
    return -1;
}

static int nomem(parser *p)
{
    if (p->st == STS_OK) p->st = sts_error_set(p->err, STS_ERR_NOMEM, (int64_t)p->i, "%s: out of memory", p->name);
    return -1;
}

static void skip_ws(parser *p)
{
    while (p->i < p->n) {
        char c = p->s[p->i];
        if (c != ' ' && c != '\t' && c != '\n' && c != '\r') break;
        p->i++;
    }
}

static sts_jval *new_val(parser *p, sts_jtype t, size_t at)
{
    sts_jval *v = sts_arena_alloc(p->arena, sizeof *v);
    if (!v) {
        nomem(p);
        return NULL;
    }
    memset(v, 0, sizeof *v);
    v->type = t;
    v->offset = at;
    return v;
}

static int hex4(parser *p, size_t at, unsigned *out)
{
    if (p->n - at < 4) return fail(p, at, "expected 4 hex digits after \\u");
    unsigned v = 0;
    for (size_t k = 0; k < 4; k++) {
        char c = p->s[at + k];
        unsigned d;
        if (c >= '0' && c <= '9')
            d = (unsigned)(c - '0');
        else if (c >= 'a' && c <= 'f')
            d = (unsigned)(c - 'a' + 10);
        else if (c >= 'A' && c <= 'F')
            d = (unsigned)(c - 'A' + 10);
        else
            return fail(p, at + k, "expected a hex digit in \\u escape");
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

static void put_utf8(sts_sbuf *b, unsigned cp)
{
    char u[4];
    size_t n;
    if (cp < 0x80)
        u[0] = (char)cp, n = 1;
    else if (cp < 0x800)
        u[0] = (char)(0xc0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000)
        u[0] = (char)(0xe0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[2] = (char)(0x80 | (cp & 0x3f)),
        n = 3;
    else
        u[0] = (char)(0xf0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3f)),
        u[2] = (char)(0x80 | ((cp >> 6) & 0x3f)), u[3] = (char)(0x80 | (cp & 0x3f)), n = 4;
    sts_sbuf_put(b, u, n);
}

/* An escape after the backslash at p->i - 1; appends its text. */
static int escape(parser *p, sts_sbuf *b)
{
    size_t at = p->i - 1;
    if (p->i >= p->n) return fail(p, at, "string ends inside an escape");
    char c = p->s[p->i++];
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    const char *k = strchr(from, c);
    if (c && k) {
        sts_sbuf_put(b, &to[k - from], 1);
        return 0;
    }
    if (c != 'u') return fail(p, at, "expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\u");
    unsigned cp;
    if (hex4(p, p->i, &cp) != 0) return -1;
    p->i += 4;
    if (cp >= 0xd800 && cp <= 0xdbff) {
        unsigned lo;
        if (p->n - p->i < 6 || p->s[p->i] != '\\' || p->s[p->i + 1] != 'u')
            return fail(p, at, "expected a low surrogate \\uDC00-\\uDFFF after a high surrogate");
        if (hex4(p, p->i + 2, &lo) != 0) return -1;
        if (lo < 0xdc00 || lo > 0xdfff) return fail(p, p->i, "expected a low surrogate \\uDC00-\\uDFFF");
        p->i += 6;
        cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
    } else if (cp >= 0xdc00 && cp <= 0xdfff) {
        return fail(p, at, "unpaired low surrogate in \\u escape");
    }
    put_utf8(b, cp);
    return 0;
}

/* A string starting at the quote at p->i; its decoded text goes to *out (arena). */
static int string_(parser *p, const char **out, size_t *outn)
{
    size_t start = p->i++;
    sts_sbuf b = STS_SBUF_INIT;
    for (;;) {
        if (p->i >= p->n) {
            sts_sbuf_release(&b);
            return fail(p, start, "string is not closed: expected '\"'");
        }
        unsigned char c = (unsigned char)p->s[p->i];
        if (c == '"') break;
        if (c == '\\') {
            p->i++;
            if (escape(p, &b) != 0) {
                sts_sbuf_release(&b);
                return -1;
            }
            continue;
        }
        if (c < 0x20) {
            sts_sbuf_release(&b);
            return fail(p, p->i, "control character in string: expected it escaped");
        }
        size_t len = sts_utf8_len((const unsigned char *)p->s + p->i, p->n - p->i);
        if (len == 0) {
            sts_sbuf_release(&b);
            return fail(p, p->i, "invalid UTF-8 in string");
        }
        sts_sbuf_put(&b, p->s + p->i, len);
        p->i += len;
    }
    p->i++;
    size_t n = b.n;
    char *copy = sts_arena_alloc(p->arena, n + 1);
    if (!copy || b.oom) {
        sts_sbuf_release(&b);
        return nomem(p);
    }
    if (n) memcpy(copy, b.p, n);
    copy[n] = 0;
    sts_sbuf_release(&b);
    *out = copy;
    *outn = n;
    return 0;
}

static int number(parser *p, sts_jval *v)
{
    size_t start = p->i, i = p->i;
    const char *s = p->s;
    if (i < p->n && s[i] == '-') i++;
    if (i >= p->n || s[i] < '0' || s[i] > '9')
        return fail(p, start, "expected a value (number, string, object, array, true, false or null)");
    if (s[i] == '0')
        i++;
    else
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    if (i < p->n && s[i] == '.') {
        i++;
        if (i >= p->n || s[i] < '0' || s[i] > '9') return fail(p, i, "expected a digit after '.'");
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    if (i < p->n && (s[i] == 'e' || s[i] == 'E')) {
        i++;
        if (i < p->n && (s[i] == '+' || s[i] == '-')) i++;
        if (i >= p->n || s[i] < '0' || s[i] > '9') return fail(p, i, "expected a digit in the exponent");
        while (i < p->n && s[i] >= '0' && s[i] <= '9')
            i++;
    }
    char tmp[128];
    size_t len = i - start;
    if (len >= sizeof tmp) return fail(p, start, "number is too long (over 127 characters)");
    memcpy(tmp, s + start, len);
    tmp[len] = 0;
    errno = 0;
    v->u.num = strtod(tmp, NULL);
    if (errno == ERANGE && (v->u.num > 1 || v->u.num < -1)) return fail(p, start, "number out of range for a double");
    p->i = i;
    return 0;
}

static int value(parser *p, sts_jval **out);

/* Copies a malloc'd vector into the arena so the doc owns everything. */
static void *to_arena(parser *p, void *vec, size_t bytes)
{
    if (bytes == 0) {
        free(vec);
        return NULL;
    }
    void *a = sts_arena_alloc(p->arena, bytes);
    if (a) memcpy(a, vec, bytes);
    free(vec);
    if (!a) nomem(p);
    return a;
}

static int array(parser *p, sts_jval *v)
{
    p->i++;
    STS_VEC(sts_jval *) items = { NULL, 0, 0 };
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == ']') {
        p->i++;
        return 0;
    }
    for (;;) {
        sts_jval *item;
        if (value(p, &item) != 0) {
            STS_VEC_RELEASE(items);
            return -1;
        }
        sts_jval **slot = STS_VEC_PUSH(items);
        if (!slot) {
            STS_VEC_RELEASE(items);
            return nomem(p);
        }
        *slot = item;
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == ']') {
            p->i++;
            break;
        }
        STS_VEC_RELEASE(items);
        return fail(p, p->i, "expected ',' or ']' in array");
    }
    v->u.arr.items = to_arena(p, items.v, items.n * sizeof *items.v);
    v->u.arr.n = items.n;
    return v->u.arr.items ? 0 : -1;
}

static int object(parser *p, sts_jval *v)
{
    p->i++;
    STS_VEC(sts_jmember) m = { NULL, 0, 0 };
    skip_ws(p);
    if (p->i < p->n && p->s[p->i] == '}') {
        p->i++;
        return 0;
    }
    for (;;) {
        skip_ws(p);
        if (p->i >= p->n || p->s[p->i] != '"') {
            STS_VEC_RELEASE(m);
            return fail(p, p->i, "expected a '\"' starting a member name");
        }
        sts_jmember *mm = STS_VEC_PUSH(m);
        if (!mm) {
            STS_VEC_RELEASE(m);
            return nomem(p);
        }
        if (string_(p, &mm->key, &mm->key_len) != 0) {
            STS_VEC_RELEASE(m);
            return -1;
        }
        skip_ws(p);
        if (p->i >= p->n || p->s[p->i] != ':') {
            STS_VEC_RELEASE(m);
            return fail(p, p->i, "expected ':' after a member name");
        }
        p->i++;
        if (value(p, &mm->val) != 0) {
            STS_VEC_RELEASE(m);
            return -1;
        }
        skip_ws(p);
        if (p->i < p->n && p->s[p->i] == ',') {
            p->i++;
            continue;
        }
        if (p->i < p->n && p->s[p->i] == '}') {
            p->i++;
            break;
        }
        STS_VEC_RELEASE(m);
        return fail(p, p->i, "expected ',' or '}' in object");
    }
    v->u.obj.members = to_arena(p, m.v, m.n * sizeof *m.v);
    v->u.obj.n = m.n;
    return v->u.obj.members ? 0 : -1;
}

static int literal(parser *p, const char *word, sts_jval *v)
{
    size_t len = strlen(word);
    if (p->n - p->i < len || memcmp(p->s + p->i, word, len) != 0)
        return fail(p, p->i, "expected a value (number, string, object, array, true, false or null)");
    p->i += len;
    if (word[0] == 't') v->u.b = 1;
    return 0;
}

static int value(parser *p, sts_jval **out)
{
    skip_ws(p);
    if (p->i >= p->n) return fail(p, p->i, "input ends where a value was expected");
    size_t at = p->i;
    char c = p->s[at];
    sts_jtype t = c == '{'               ? STS_J_OBJ
                  : c == '['             ? STS_J_ARR
                  : c == '"'             ? STS_J_STR
                  : c == 't' || c == 'f' ? STS_J_BOOL
                  : c == 'n'             ? STS_J_NULL
                                         : STS_J_NUM;
    sts_jval *v = new_val(p, t, at);
    if (!v) return -1;
    *out = v;
    if (t == STS_J_OBJ || t == STS_J_ARR) {
        if (++p->depth > STS_JSON_MAX_DEPTH) return fail(p, at, "nesting deeper than 64 levels");
        int rc = t == STS_J_OBJ ? object(p, v) : array(p, v);
        p->depth--;
        return rc;
    }
    switch (t) {
    case STS_J_STR:
        return string_(p, &v->u.str.s, &v->u.str.n);
    case STS_J_BOOL:
        return literal(p, c == 't' ? "true" : "false", v);
    case STS_J_NULL:
        return literal(p, "null", v);
    default:
        return number(p, v);
    }
}

sts_status sts_json_parse(sts_jdoc *doc, const char *text, size_t len, const char *name, sts_error *err)
{
    doc->root = NULL;
    parser p = { text, len, 0, 0, name ? name : "(json)", &doc->arena, err, STS_OK };
    sts_jval *root;
    if (value(&p, &root) != 0) return p.st;
    skip_ws(&p);
    if (p.i < p.n) {
        fail(&p, p.i, "expected the end of input after the top-level value");
        return p.st;
    }
    doc->root = root;
    return STS_OK;
}

void sts_jdoc_release(sts_jdoc *doc)
{
    sts_arena_release(&doc->arena);
    doc->root = NULL;
}

const sts_jval *sts_json_get(const sts_jval *v, const char *key)
{
    if (!v || v->type != STS_J_OBJ) return NULL;
    size_t klen = strlen(key);
    for (size_t i = v->u.obj.n; i-- > 0;) {
        const sts_jmember *m = &v->u.obj.members[i];
        if (m->key_len == klen && memcmp(m->key, key, klen) == 0) return m->val;
    }
    return NULL;
}

size_t sts_json_len(const sts_jval *v)
{
    return v && v->type == STS_J_ARR ? v->u.arr.n : 0;
}

const sts_jval *sts_json_at(const sts_jval *v, size_t i)
{
    return v && v->type == STS_J_ARR && i < v->u.arr.n ? v->u.arr.items[i] : NULL;
}

double sts_json_num(const sts_jval *v, double dflt)
{
    return v && v->type == STS_J_NUM ? v->u.num : dflt;
}

const char *sts_json_str(const sts_jval *v, const char *dflt)
{
    return v && v->type == STS_J_STR ? v->u.str.s : dflt;
}
