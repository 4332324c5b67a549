/* read: the values a fast event parser has met, remembered by their bytes
 * (json_walk.c, json_shape.c). Producers repeat most values ("ph": "X", "cat":
 * "cpu_op", "pid": 4242, constant args): a value that repeats byte for byte, with the
 * ',' or '}' after it, is taken with one compare and needs no parsing. */
#ifndef STS_READ_JSON_VALUES_H
#define STS_READ_JSON_VALUES_H

#include <stdlib.h>
#include <string.h>

#include "read/json_tokens.h"

#define BIT(f) (1u << (f))

/* Values a layout learns in a row without one repeating before it stops: a ts or an
 * id changes every time and is not worth the lookups and copies. */
#define VALUE_MISSES 8

#define VHIT_UNASKED 2

static inline uint32_t match_bits(const char *p, const char *pat)
{
#if defined(__SSE2__)
    const __m128i *a = (const __m128i *)(const void *)p, *b = (const __m128i *)(const void *)pat;
    return (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(a), _mm_loadu_si128(b))) |
           (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128(a + 1), _mm_loadu_si128(b + 1))) << 16;
#else
    uint32_t m = 0;
    for (int i = 0; i < 32; i++)
        m |= (uint32_t)(p[i] == pat[i]) << i;
    return m;
#endif
}

/* Bit i set where p[i] is a zero byte, for the 32 bytes at p. */
static inline uint32_t zero_bits(const char *p)
{
    static const char zeros[32];
    return match_bits(p, zeros);
}

/* The remembered value the bytes at q might repeat: the table is direct-mapped by the
 * first 8 bytes (which the padding keeps readable). */
static inline jvalue *value_slot(jr *r, const char *q)
{
    uint64_t h = json_load64(q) * 0x9e3779b97f4a7c15ull;
    return &r->values[h >> (64 - 9)];
}

/* Whether the bytes at q repeat v's value and separator. A remembered pattern holds
 * no zero byte, so it never matches the padding after the data. */
static inline int value_repeats(const jvalue *v, const char *q)
{
    return v->mask && (match_bits(q, v->pat) & v->mask) == v->mask;
}

/* Remembers the value x at q, whose ',' or '}' is at sep. */
static inline void remember(jvalue *v, const char *q, const jspan *x, const char *sep)
{
    size_t len = (size_t)(sep + 1 - q);
    if (len > sizeof v->pat) return;
    uint32_t mask = len == 32 ? ~(uint32_t)0 : ((uint32_t)1 << len) - 1;
    if (zero_bits(q) & mask) return; /* a raw NUL in a string would match the padding */
    memcpy(v->pat, q, sizeof v->pat);
    v->mask = mask;
    v->len = (uint8_t)len;
    v->vofs = (uint8_t)(x->p - q);
    v->id1 = 0;
    v->val = *x;
}

/* The ',' or '}' that must follow a value ending at q, or NULL with r->fail set. */
HOT const char *separator(jr *r, const char *q)
{
    const char *s = json_ws(q);
    if (*s != ',' && *s != '}') return json_failed(&r->fail, s, "',' or '}' after a value");
    return s;
}

/* A remembered string value's id, looked up (never interned: the order in which the
 * timeline meets strings is commit's business) until the string is there. */
static inline uint32_t value_id(jr *r, jvalue *v, const jspan *x)
{
    if (!v->id1 && x->kind == JK_STRING && !x->esc) {
        uint32_t id = sts_strtab_find(&r->tl->strings, x->p, x->n);
        if (id != UINT32_MAX) v->id1 = id + 1;
    }
    return v->id1;
}

/* The value at q (just after key layout pr, NULL for one not learnable) into x, and
 * its separator: returns the ',' or '}', or NULL with r->fail set. With `known`, also
 * the value's string id + 1 when a remembered value knows it, else 0. r->vhit says
 * whether the value repeated a remembered one: 1 it did, 0 it did not, VHIT_UNASKED
 * when none was looked up (a layout whose values keep changing). */
HOT const char *value(jr *r, jpred *pr, const char *q, const char *e, jspan *x, uint32_t *known)
{
    jvalue *v = NULL;
    if (known) *known = 0;
    if (pr && pr->vmiss < VALUE_MISSES) {
        v = value_slot(r, q);
        if (value_repeats(v, q)) {
            pr->vmiss = 0;
            r->vhit = 1;
            *x = v->val;
            x->p = q + v->vofs;
            if (known) *known = value_id(r, v, x);
            return q + v->len - 1;
        }
    }
    r->vhit = v ? 0 : VHIT_UNASKED;
    const char *p = parse_value(r, json_ws(q), e, x);
    if (!p || !(p = separator(r, p))) return NULL;
    if (v) {
        remember(v, q, x, p);
        pr->vmiss++;
    }
    return p;
}

#endif
