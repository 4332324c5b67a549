/* read: byte-level JSON scanning for the streaming readers.
 *
 * Every function here works on a buffer whose data [buf, e) is followed by at least
 * JSON_PAD zero bytes. The padding lets the hot loops run without bounds checks: a
 * zero byte never matches what they look for, so they stop at `e` by themselves, and
 * 16-byte vector loads that start before `e` never leave the allocation.
 *
 * Failures report the first byte that cannot continue valid JSON (json_fail). A
 * failure at or after `e` therefore means "the data so far is a valid prefix; read
 * more", and one before `e` is a real syntax error. */
#ifndef STS_READ_JSON_SCAN_H
#define STS_READ_JSON_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#define JSON_PAD 64

/* Where and why a scan stopped. */
typedef struct json_fail {
    const char *at;       /* first byte that cannot continue valid JSON */
    const char *expected; /* "a string key", "',' or '}' after a value", ... */
} json_fail;

/* What follows a number's leading 0: RFC 8259 (6) allows no leading zeros, "05". */
#define LEADING_ZERO "'.', an exponent or the number's end after a leading 0 (JSON numbers have no leading zeros)"

static inline const char *json_failed(json_fail *f, const char *at, const char *expected)
{
    f->at = at;
    f->expected = expected;
    return NULL;
}

static inline int json_is_digit(char c)
{
    return (unsigned char)(c - '0') < 10;
}

/* 1 for the four JSON whitespace bytes. */
extern const unsigned char sts_jr_ws_table[256];

static inline const char *json_ws(const char *p)
{
    /* Most calls find a token at once, or after the one space of ", " and ": ". */
    if ((unsigned char)*p > ' ') return p;
    if (*p == ' ' && (unsigned char)p[1] > ' ') return p + 1;
#if defined(__SSE2__)
    /* A newline and indentation: 16 bytes at a time. The zero padding is not
     * whitespace, so the run ends by e and the loads stay inside the padding. */
    for (;;) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        __m128i ws =
            _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8(' ')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\n'))),
                         _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\r')), _mm_cmpeq_epi8(v, _mm_set1_epi8('\t'))));
        unsigned m = ~(unsigned)_mm_movemask_epi8(ws) & 0xffffu;
        if (m) return p + __builtin_ctz(m);
        p += 16;
    }
#else
    while (sts_jr_ws_table[(unsigned char)*p])
        p++;
    return p;
#endif
}

static inline uint64_t json_load64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Zero in each byte of v (little-endian) that is an ASCII digit, non-zero elsewhere.
 * A carry out of a byte >= 0xfa can only disturb the bytes after it, never the first
 * non-digit, which is all callers look for. */
static inline uint64_t json_nondigits(uint64_t v)
{
    return ((v & 0xf0f0f0f0f0f0f0f0ull) | (((v + 0x0606060606060606ull) & 0xf0f0f0f0f0f0f0f0ull) >> 4)) ^
           0x3333333333333333ull;
}

/* 1 when all 8 bytes of v are ASCII digits. */
static inline int json_8_digits(uint64_t v)
{
    return json_nondigits(v) == 0;
}

/* The value of 8 ASCII digits (the first byte is the most significant digit):
 * pairs, then quads, then the whole, each step one multiply. */
static inline uint32_t json_8_digits_value(uint64_t v)
{
    v -= 0x3030303030303030ull;
    v = (v * 10 + (v >> 8)) & 0x00ff00ff00ff00ffull;
    v = (v * 100 + (v >> 16)) & 0x0000ffff0000ffffull;
    v = (v * 10000 + (v >> 32)) & 0xffffffffull;
    return (uint32_t)v;
}

/* Reads the run of digits at *pp into *value (times 10 per digit; wraps past 19
 * digits), advancing *pp past it. Returns the number of digits. Loads 8 bytes at a
 * time, so up to 7 bytes after the digits must be readable. */
static inline size_t json_digits(const char **pp, uint64_t *value)
{
    static const uint64_t pow10[8] = { 1, 10, 100, 1000, 10000, 100000, 1000000, 10000000 };
    const char *p = *pp;
    uint64_t v = *value;
    for (;;) {
        uint64_t w = json_load64(p);
        uint64_t nd = json_nondigits(w);
        if (!nd) {
            v = v * 100000000u + json_8_digits_value(w);
            p += 8;
            continue;
        }
        unsigned k = (unsigned)__builtin_ctzll(nd) >> 3;
        if (k) {
            /* Right-align the k digits behind '0' bytes and convert all 8. */
            uint64_t aligned = w << (64 - 8 * k) | 0x3030303030303030ull >> (8 * k);
            v = v * pow10[k] + json_8_digits_value(aligned);
            p += k;
        }
        break;
    }
    size_t n = (size_t)(p - *pp);
    *pp = p;
    *value = v;
    return n;
}

/* The first '"' or '\\' at or after p, or e when none comes before e. */
static inline const char *json_find_quote(const char *p, const char *e)
{
#if defined(__SSE2__)
    const __m128i q = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\');
    for (;;) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)p);
        unsigned m = (unsigned)_mm_movemask_epi8(_mm_or_si128(_mm_cmpeq_epi8(v, q), _mm_cmpeq_epi8(v, bs)));
        if (m) {
            const char *r = p + __builtin_ctz(m);
            return r < e ? r : e;
        }
        p += 16;
        if (p >= e) return e;
    }
#else
    while (p < e && *p != '"' && *p != '\\')
        p++;
    return p;
#endif
}

static inline int json_hex(char c)
{
    if (json_is_digit(c)) return c - '0';
    c = (char)(c | 0x20);
    return c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

/* A string's contents; p is just after the opening quote. Returns the closing quote
 * and sets *esc when the contents hold an escape (each one is checked here, so
 * sts_jr_unescape cannot fail later). */
static inline const char *json_scan_string(const char *p, const char *e, int *esc, json_fail *f)
{
    for (;;) {
        p = json_find_quote(p, e);
        if (p >= e) return json_failed(f, e, "'\"' to close the string");
        if (*p == '"') return p;
        *esc = 1;
        char c = p[1];
        if (c == 'u') {
            for (int i = 2; i < 6; i++)
                if (json_hex(p[i]) < 0) return json_failed(f, p + i, "4 hex digits after '\\u'");
            p += 6;
        } else if (c == '"' || c == '\\' || c == '/' || c == 'b' || c == 'f' || c == 'n' || c == 'r' || c == 't') {
            p += 2;
        } else {
            return json_failed(f, p + 1,
                               "an escape ('\\\"', '\\\\', '\\/', '\\b', '\\f', '\\n', '\\r', '\\t' or '\\u')");
        }
    }
}

/* The end of the run of digits at p, 8 bytes at a time (ids and timestamps are 10 to
 * 20 digits). Up to 7 bytes after the run must be readable. */
static inline const char *json_skip_digits(const char *p)
{
    for (;;) {
        uint64_t nd = json_nondigits(json_load64(p));
        if (nd) return p + (__builtin_ctzll(nd) >> 3);
        p += 8;
    }
}

/* A JSON number starting at p. Returns its end; *is_int is 1 when it has neither
 * fraction nor exponent. Up to 7 bytes after the number must be readable (the
 * reader's buffers keep JSON_PAD zero bytes after their data). */
static inline const char *json_scan_number(const char *p, int *is_int, json_fail *f)
{
    int integral = 1;
    if (*p == '-') p++;
    if (!json_is_digit(*p)) return json_failed(f, p, "a digit");
    /* JSON has no leading zeros (RFC 8259 6): "05" is not a number. */
    if (*p == '0' && json_is_digit(p[1])) return json_failed(f, p + 1, LEADING_ZERO);
    p = json_skip_digits(p + 1);
    if (*p == '.') {
        p++;
        if (!json_is_digit(*p)) return json_failed(f, p, "a digit after '.'");
        p = json_skip_digits(p + 1);
        integral = 0;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!json_is_digit(*p)) return json_failed(f, p, "a digit in the exponent");
        while (json_is_digit(*p))
            p++;
        integral = 0;
    }
    *is_int = integral;
    return p;
}

/* Checks that `lit` ("true", "false" or "null") is at p; returns its end. */
static inline const char *json_scan_literal(const char *p, const char *lit, json_fail *f)
{
    for (size_t i = 0; lit[i]; i++)
        if (p[i] != lit[i])
            return json_failed(f, p + i, "a value (true, false, null, a number, a string, an object or an array)");
    return p + strlen(lit);
}

/* a[0, n) == b[0, n), reading only inside both ranges: word compares with an
 * overlapping last word, cheaper than a call to memcmp for the short strings that
 * names and keys are. */
static inline int json_eq(const char *a, const char *b, size_t n)
{
    uint64_t x, y;
    if (n >= 8) {
        size_t i = 0;
        for (; i + 8 <= n; i += 8) {
            memcpy(&x, a + i, 8);
            memcpy(&y, b + i, 8);
            if (x != y) return 0;
        }
        if (i == n) return 1;
        memcpy(&x, a + n - 8, 8);
        memcpy(&y, b + n - 8, 8);
        return x == y;
    }
    if (n >= 4) {
        uint32_t u, v, u2, v2;
        memcpy(&u, a, 4);
        memcpy(&v, b, 4);
        memcpy(&u2, a + n - 4, 4);
        memcpy(&v2, b + n - 4, 4);
        return u == v && u2 == v2;
    }
    for (size_t i = 0; i < n; i++)
        if (a[i] != b[i]) return 0;
    return 1;
}

/* Decodes string contents (escapes already checked) into out, which holds at least
 * n bytes (decoding never grows the text). Lone surrogates become U+FFFD. Returns the
 * decoded length. */
size_t sts_jr_unescape(const char *s, size_t n, char *out);

typedef enum json_num_rc { JSON_NUM_OK = 0, JSON_NUM_RANGE, JSON_NUM_SYNTAX } json_num_rc;

/* Converts decimal text in microseconds to integer nanoseconds, exactly: the integer
 * part times 1000 plus the first three fraction digits, rounded half away from zero on
 * the rest. Forms with an exponent go through strtod and llround. *whole_us is 1 when
 * the result is a whole microsecond. RANGE: beyond int64 nanoseconds (or too long to
 * convert); SYNTAX: not a JSON number. */
json_num_rc sts_jr_us_to_ns(const char *s, size_t n, int64_t *ns, int *whole_us);

/* Parses a JSON integer (no fraction or exponent) that fits in int64. */
int sts_jr_parse_int64(const char *s, size_t n, int64_t *out);

/* Parses a JSON number as a double; 0 when the text is a number and the result is
 * finite. */
int sts_jr_parse_double(const char *s, size_t n, double *out);

#endif
