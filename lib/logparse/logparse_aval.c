/* logparse: pieces of log text shared by the JAX and torch parsers: dtype spellings,
 * JAX avals, bracketed lists, durations. */
#include "logparse/logparse.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct {
    const char *from, *to;
} dtype_names[] = {
    /* PyTorch scalar type names, as its guard failures print them. */
    { "Float", "float32" },
    { "Double", "float64" },
    { "Half", "float16" },
    { "BFloat16", "bfloat16" },
    { "Long", "int64" },
    { "Int", "int32" },
    { "Short", "int16" },
    { "Char", "int8" },
    { "Byte", "uint8" },
    { "Bool", "bool" },
    { "ComplexFloat", "complex64" },
    { "ComplexDouble", "complex128" },
    { "ComplexHalf", "complex32" },
};

void sts_lp_dtype_norm(const char *s, size_t n, char *buf, size_t cap)
{
    if (n >= 6 && memcmp(s, "torch.", 6) == 0) {
        s += 6;
        n -= 6;
    }
    for (size_t i = 0; i < sizeof dtype_names / sizeof dtype_names[0]; i++)
        if (strlen(dtype_names[i].from) == n && memcmp(dtype_names[i].from, s, n) == 0) {
            snprintf(buf, cap, "%s", dtype_names[i].to);
            return;
        }
    /* JAX's short names replace float/uint/int/complex with f/u/i/c ("bf16", "f8_e4m3fn"). */
    static const struct {
        const char *shortp, *longp;
    } pre[] = { { "bf", "bfloat" }, { "f", "float" }, { "u", "uint" }, { "i", "int" }, { "c", "complex" } };
    for (size_t i = 0; i < sizeof pre / sizeof pre[0]; i++) {
        size_t k = strlen(pre[i].shortp);
        if (n > k && memcmp(s, pre[i].shortp, k) == 0 && isdigit((unsigned char)s[k])) {
            snprintf(buf, cap, "%s%.*s", pre[i].longp, (int)(n - k), s + k);
            return;
        }
    }
    snprintf(buf, cap, "%.*s", (int)n, s);
}

static int dtype_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '<' || c == '>';
}

static int parse_dims(const char *p, const char *e, sts_argsig *a)
{
    int nd = 0;
    const char *q = p;
    while (q < e && *q == ' ')
        q++;
    if (q == e) {
        a->ndim = 0;
        return 0;
    }
    while (p < e) {
        const char *c = p;
        while (c < e && *c != ',')
            c++;
        while (p < c && *p == ' ')
            p++;
        if (nd < STS_LEDGER_MAX_DIMS) {
            char *end = (char *)p;
            errno = 0;
            long long v = isdigit((unsigned char)*p) ? strtoll(p, &end, 10) : -1;
            if (errno == ERANGE) v = -1; /* saturated to INT64_MAX: unknown, not a wrong size */
            /* "8@x" is dimension 8 sharded along mesh axis x; a name is a symbolic dimension. */
            a->shape[nd] = v >= 0 && (end == c || *end == '@' || *end == ' ') ? v : -1;
        }
        nd++;
        p = c < e ? c + 1 : c;
    }
    a->ndim = nd <= STS_LEDGER_MAX_DIMS ? nd : -1;
    return 0;
}

int sts_lp_parse_aval(const char *s, size_t n, sts_argsig *a, char *dtbuf, size_t dtcap)
{
    const char *e = s + n, *p = s;
    memset(a, 0, sizeof *a);
    a->kind = STS_PARAM_ARRAY;
    a->ndim = -1;
    while (p < e && isspace((unsigned char)*p))
        p++;
    if (p < e && *p == '~') { /* str() of a weak-typed aval in recent JAX */
        a->weak_type = 1;
        p++;
    }
    /* "ShapedArray(" and similar wrappers. */
    const char *q = p;
    while (q < e && (isalnum((unsigned char)*q) || *q == '_'))
        q++;
    if (q < e && *q == '(' && q > p) p = q + 1;
    const char *d = p;
    while (p < e && dtype_char(*p))
        p++;
    if (p == d || p >= e || *p != '[') return -1;
    sts_lp_dtype_norm(d, (size_t)(p - d), dtbuf, dtcap);
    a->dtype = dtbuf;
    const char *close = memchr(p, ']', (size_t)(e - p));
    if (!close) return -1;
    parse_dims(p + 1, close, a);
    for (const char *w = close; w + 14 <= e; w++)
        if (memcmp(w, "weak_type=True", 14) == 0) a->weak_type = 1;
    return 0;
}

int sts_lp_split_list(const char *s, const char **end, void (*fn)(const char *, size_t, void *), void *user)
{
    if (*s != '(' && *s != '[' && *s != '{') return -1;
    int depth = 0, count = 0;
    char quote = 0;
    const char *start = s + 1;
    for (const char *p = s; *p; p++) {
        char c = *p;
        if (quote) {
            if (c == quote) quote = 0;
            continue;
        }
        if (c == '\'' || c == '"')
            quote = c;
        else if (c == '(' || c == '[' || c == '{')
            depth++;
        else if (c == ')' || c == ']' || c == '}') {
            if (--depth == 0) {
                const char *b = start, *t = p;
                while (b < t && *b == ' ')
                    b++;
                if (t > b) {
                    fn(b, (size_t)(t - b), user);
                    count++;
                }
                if (end) *end = p + 1;
                return count;
            }
        } else if (c == ',' && depth == 1) {
            const char *b = start;
            while (b < p && *b == ' ')
                b++;
            if (p > b) {
                fn(b, (size_t)(p - b), user);
                count++;
            }
            start = p + 1;
        }
    }
    return -1;
}

int64_t sts_lp_seconds_ns(const char *s, const char **end)
{
    while (*s == ' ')
        s++;
    if (!(isdigit((unsigned char)*s) || (*s == '.' && isdigit((unsigned char)s[1])))) return -1;
    char *e;
    double v = strtod(s, &e);
    if (e == s || !isfinite(v) || v < 0 || v > 1e9) return -1;
    if (end) *end = e;
    return (int64_t)llround(v * 1e9);
}
