/* read: the token-level pieces of the Chrome reader that both event parsers use: the
 * byte-at-a-time one (json_event.c, which also gives the exact error for bad input)
 * and the one driven by the structural index (json_walk.c). Sharing them keeps the two
 * producing the same spans and learning the same key layouts. */
#ifndef STS_READ_JSON_TOKENS_H
#define STS_READ_JSON_TOKENS_H

#include "read/json_chrome.h"

#define HOT static inline __attribute__((always_inline))

static const char *const ANY_VALUE = "a value (true, false, null, a number, a string, an object or an array)";

/* A number, converted while it is scanned so that ts, dur and integer args need no
 * second pass: the integer part's magnitude and the fraction in thousandths, rounded
 * half away from zero on the fourth digit (see sts_jr_us_to_ns). */
HOT const char *parse_number(jr *r, const char *p, jspan *v)
{
    const char *s = p;
    int neg = *p == '-';
    p += neg;
    if (!json_is_digit(*p)) return json_failed(&r->fail, p, "a digit");
    if (*p == '0' && json_is_digit(p[1])) return json_failed(&r->fail, p + 1, LEADING_ZERO);
    uint64_t ip = 0;
    /* Wraps past 19 digits, but then `fast` is 0 and ip is not used. The 8-byte loads
     * stay inside the buffer's padding. */
    size_t ndig = json_digits(&p, &ip);
    unsigned frac = 0;
    int is_int = 1, exp = 0;
    if (*p == '.') {
        p++;
        /* The fraction 8 digits at a time: its first three digits, zero-filled when
         * fewer, are the thousandths; the fourth rounds. */
        uint64_t w = json_load64(p);
        uint64_t nd = json_nondigits(w);
        unsigned k = nd ? (unsigned)__builtin_ctzll(nd) >> 3 : 8;
        if (k == 0) return json_failed(&r->fail, p, "a digit after '.'");
        uint64_t keep = k == 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * k)) - 1;
        uint64_t d = (w & keep) | (0x3030303030303030ull & ~keep);
        frac = (unsigned)((d & 0xff) - '0') * 100 + (unsigned)((d >> 8 & 0xff) - '0') * 10 +
               (unsigned)((d >> 16 & 0xff) - '0') + ((d >> 24 & 0xff) >= '5');
        p += k;
        while (json_is_digit(*p))
            p++;
        is_int = 0;
    }
    if (*p == 'e' || *p == 'E') {
        p++;
        if (*p == '+' || *p == '-') p++;
        if (!json_is_digit(*p)) return json_failed(&r->fail, p, "a digit in the exponent");
        while (json_is_digit(*p))
            p++;
        is_int = 0;
        exp = 1;
    }
    v->p = s;
    v->n = (uint32_t)(p - s);
    v->kind = JK_NUMBER;
    v->is_int = (uint8_t)is_int;
    v->fast = !exp && ndig <= 18;
    v->neg = (uint8_t)neg;
    v->frac = (uint16_t)frac;
    v->ip = ip;
    return p;
}

/* Whether the bytes at p repeat the layout in slot k. A layout holds no zero byte, so
 * it never matches the zero padding after the data. */
HOT int pred_match(const jchain *c, uint8_t k, const char *p)
{
    if (k == JR_NO_PRED) return 0;
    const jpred *pr = &c->pool[k];
#if defined(__SSE2__)
    const __m128i *a = (const __m128i *)(const void *)p, *b = (const __m128i *)(const void *)pr->pat;
    /* Both halves always: a branch on the layout's length mispredicts as event kinds
     * alternate, and the second load stays inside the padding (p is at most e). */
    uint32_t m = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(a), _mm_loadu_si128(b))) |
                 (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(a + 1), _mm_loadu_si128(b + 1))) << 16;
    return (m & pr->mask) == pr->mask;
#else
    return memcmp(p, pr->pat, pr->len) == 0;
#endif
}

/* The layout after slot j that the bytes at p repeat, or JR_NO_PRED. */
HOT uint8_t pred_next(jchain *c, uint8_t j, const char *p)
{
    jpred *n = &c->pool[j];
    uint8_t w = n->way;
    if (pred_match(c, n->next[w], p)) return n->next[w];
    if (pred_match(c, n->next[!w], p)) {
        n->way = (uint8_t)!w;
        return n->next[!w];
    }
    return JR_NO_PRED;
}

/* Learns the layout [from, value) of a key (contents at `key`, n bytes, unescaped)
 * into a reused slot that follows slot j. Returns the slot, or JR_LOOSE when the
 * layout does not fit. */
static inline uint8_t pred_learn(jchain *c, uint8_t j, const char *from, const char *value, const char *key, size_t n,
                                 int field)
{
    size_t len = (size_t)(value - from);
    if (len > sizeof c->pool[0].pat || memchr(from, 0, len)) return JR_LOOSE;
    uint8_t k = c->alloc;
    c->alloc = (uint8_t)(c->alloc + 1 < JR_POOL ? c->alloc + 1 : 2);
    jpred *pr = &c->pool[k];
    memcpy(pr->pat, from, len);
    pr->len = (uint8_t)len;
    pr->mask = (uint32_t)(((uint64_t)1 << len) - 1);
    pr->field = (int8_t)field;
    pr->kofs = (uint8_t)(key - from);
    pr->kn = (uint8_t)n;
    pr->next[0] = pr->next[1] = JR_NO_PRED;
    pr->way = 0;
    pr->key = STS_NONE;
    pr->gen++;
    pr->vmiss = 0;
    /* Replace the successor of j that came less recently. */
    jpred *prev = &c->pool[j];
    prev->way = (uint8_t)!prev->way;
    prev->next[prev->way] = k;
    return k;
}

/* Arrays of numbers and strings, nested only in arrays ("grid": [1, 1, 1],
 * "Input Dims": [[1, 64, 768], [768]]), are common in args: skipped here with a depth
 * count, which is all the state arrays alone need. Anything else (objects, literals,
 * errors, the buffer's end) goes to the skipper from the start, which also gives the
 * precise error. */
static inline const char *skip_array(jr *r, const char *p, const char *e)
{
    const char *q = p;
    size_t depth = 0;
    for (;;) {
        /* A value must come. */
        if (*q == '[') {
            depth++;
            q = json_ws(q + 1);
            if (*q != ']') continue;
            q++;
            depth--;
        } else if (*q == '"') {
            int esc = 0;
            q = json_scan_string(q + 1, e, &esc, &r->fail);
            if (!q) break;
            q++;
        } else if (*q == '-' || json_is_digit(*q)) {
            int is_int;
            q = json_scan_number(q, &is_int, &r->fail);
            if (!q) break;
        } else {
            break;
        }
        /* After a value: close arrays, then a comma and the next value. */
        int comma = 0;
        for (;;) {
            if (depth == 0) return q;
            q = json_ws(q);
            if (*q != ']') break;
            q++;
            depth--;
        }
        if (*q == ',') {
            q = json_ws(q + 1);
            comma = 1;
        }
        if (!comma) break;
    }
    return sts_jr_skip_value(r, p, e);
}

HOT const char *parse_value(jr *r, const char *p, const char *e, jspan *v)
{
    char c = *p;
    const char *q;
    v->p = p;
    v->esc = 0;
    v->is_int = 0;
    v->fast = 0;
    if (c == '"') {
        int esc = 0;
        q = json_scan_string(p + 1, e, &esc, &r->fail);
        if (!q) return NULL;
        v->p = p + 1;
        v->n = (uint32_t)(q - p - 1);
        v->kind = JK_STRING;
        v->esc = (uint8_t)esc;
        return q + 1;
    }
    if (c == '-' || json_is_digit(c)) return parse_number(r, p, v);
    if (c == 't') {
        q = json_scan_literal(p, "true", &r->fail);
        v->kind = JK_TRUE;
    } else if (c == 'f') {
        q = json_scan_literal(p, "false", &r->fail);
        v->kind = JK_FALSE;
    } else if (c == 'n') {
        q = json_scan_literal(p, "null", &r->fail);
        v->kind = JK_NULL;
    } else if (c == '[') {
        q = skip_array(r, p, e);
        v->kind = JK_ARRAY;
    } else if (c == '{') {
        q = sts_jr_skip_value(r, p, e);
        v->kind = JK_OBJECT;
    } else {
        return json_failed(&r->fail, p, ANY_VALUE);
    }
    if (!q) return NULL;
    v->n = (uint32_t)(q - p);
    return q;
}

/* A key at p (just after '{' or ','), through its ':' and the whitespace after it.
 * Returns the value's first byte and fills the key's span; *close is set when the
 * object is empty ("{}"). */
HOT const char *parse_key(jr *r, const char *p, const char *e, int first, jspan *key, int *close)
{
    p = json_ws(p);
    if (*p != '"') {
        if (first && *p == '}') {
            *close = 1;
            return p + 1;
        }
        return json_failed(&r->fail, p, "a string key");
    }
    int esc = 0;
    const char *q = json_scan_string(p + 1, e, &esc, &r->fail);
    if (!q) return NULL;
    key->p = p + 1;
    key->n = (uint32_t)(q - p - 1);
    key->esc = (uint8_t)esc;
    p = json_ws(q + 1);
    if (*p != ':') return json_failed(&r->fail, p, "':' after an object key");
    return json_ws(p + 1);
}

#endif
