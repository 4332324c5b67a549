/* One Chrome trace event, the fast way.
 *
 * Trace producers write the same few event layouts millions of times, and most of
 * the values in them repeat too: "ph": "X", "cat": "cpu_op", "pid": 4242, and args
 * such as "Record function id": 0 or "grid": [16, 8, 1]. The byte parser
 * (json_event.c) already learns each key's layout (json_tokens.h), so a known key
 * costs one 32-byte compare; this parser also remembers values it parsed (jvalue,
 * by their bytes through the ',' or '}' after them). A value that repeats byte for
 * byte is taken with one more compare: its span comes from the remembered one, and
 * nothing is scanned, converted or checked again (identical bytes parse identically).
 *
 * Everything else is parsed with the byte parser's own pieces, in the same order, so
 * the result is the jevent sts_jr_parse_event would fill and a failure happens where
 * it would happen; the caller asks sts_jr_parse_event for the error's wording. */
#include <stdlib.h>
#include <string.h>

#include "read/json_tokens.h"

#define BIT(f) (1u << (f))

/* Values a layout learns in a row without one repeating before it stops: a ts or an
 * id changes every time and is not worth the lookups and copies. */
#define VALUE_MISSES 8

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
static void remember(jvalue *v, const char *q, const jspan *x, const char *sep)
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
static uint32_t value_id(jr *r, jvalue *v, const jspan *x)
{
    if (!v->id1 && x->kind == JK_STRING && !x->esc) {
        uint32_t id = sts_strtab_find(&r->tl->strings, x->p, x->n);
        if (id != UINT32_MAX) v->id1 = id + 1;
    }
    return v->id1;
}

/* The value at q (just after key layout pr, NULL for one not learnable) into x, and
 * its separator: returns the ',' or '}', or NULL with r->fail set. With `known`, also
 * the value's string id + 1 when a remembered value knows it, else 0. */
HOT const char *value(jr *r, jpred *pr, const char *q, const char *e, jspan *x, uint32_t *known)
{
    jvalue *v = NULL;
    if (known) *known = 0;
    if (pr && pr->vmiss < VALUE_MISSES) {
        v = value_slot(r, q);
        if (value_repeats(v, q)) {
            pr->vmiss = 0;
            *x = v->val;
            x->p = q + v->vofs;
            if (known) *known = value_id(r, v, x);
            return q + v->len - 1;
        }
    }
    const char *p = parse_value(r, json_ws(q), e, x);
    if (!p || !(p = separator(r, p))) return NULL;
    if (v) {
        remember(v, q, x, p);
        pr->vmiss++;
    }
    return p;
}

static const char *walk_args(jr *r, const char *p, const char *e, jevent *ev)
{
    jspan ignored;
    ev->nargs = 0; /* a repeated "args" key: the last one counts */
    if (*p != '{') return parse_value(r, p, e, &ignored);
    p++;
    /* Once "ph" is known and is not C or M, an arg the mode drops need not be kept
     * for the commit: its learned layout already says so. */
    const jspan *ph = &ev->f[F_PH];
    int keep_none = !sts_jr_args_wanted(r, ev);
    int droppable =
        (ev->have & BIT(F_PH)) && ph->kind == JK_STRING && ph->n == 1 && !ph->esc && ph->p[0] != 'C' && ph->p[0] != 'M';
    jchain *c = &r->args_chain;
    uint8_t j = JR_START;
    for (int first = 1;; first = 0) {
        if (ev->nargs == r->argv_cap &&
            sts_grow((void **)&r->argv, &r->argv_cap, (size_t)ev->nargs + 1, sizeof *r->argv) != 0) {
            r->nomem = 1;
            return json_failed(&r->fail, p, "memory for args");
        }
        jarg *a = &r->argv[ev->nargs];
        const char *from = p;
        uint8_t k = pred_next(c, j, p);
        int drop = keep_none;
        jpred *pr = NULL;
        if (k != JR_NO_PRED) {
            pr = &c->pool[k];
            drop |= droppable & (pr->key != STS_NONE) & !pr->keep; /* no branches: keys alternate */
            if (!drop) {
                a->key.p = from + pr->kofs;
                a->key.n = pr->kn;
                a->key.esc = 0;
            }
            p += pr->len;
        } else {
            int close = 0;
            p = parse_key(r, p, e, first, &a->key, &close);
            if (!p || close) return p;
            k = a->key.esc ? JR_LOOSE : pred_learn(c, j, from, p, a->key.p, a->key.n, -1);
            if (k != JR_LOOSE) pr = &c->pool[k];
        }
        j = k;
        jspan *x = &ignored;
        if (!drop) {
            a->key.kind = JK_STRING;
            a->pred = k == JR_LOOSE ? -1 : k;
            a->gen = c->pool[k].gen;
            x = &a->val;
            ev->nargs++;
        }
        p = value(r, pr, p, e, x, NULL);
        if (!p) return NULL;
        if (*p++ == '}') return p;
    }
}

const char *sts_jr_walk_event(jr *r, const char *p, const char *e, jevent *ev)
{
    if (!r->values && !(r->values = calloc(JR_VALUES, sizeof *r->values))) {
        r->nomem = 1;
        return json_failed(&r->fail, p, "memory for learned values");
    }
    jspan ignored;
    jchain *c = &r->event_chain;
    uint8_t j = JR_START;
    ev->start = p;
    ev->have = 0;
    ev->nargs = 0;
    r->fid1[F_NAME] = r->fid1[F_CAT] = 0;
    p++;
    for (int first = 1;; first = 0) {
        const char *from = p;
        int field;
        jpred *pr = NULL;
        uint8_t k = pred_next(c, j, p);
        if (k != JR_NO_PRED) {
            pr = &c->pool[k];
            field = pr->field;
            p += pr->len;
        } else {
            jspan key;
            int close = 0;
            p = parse_key(r, p, e, first, &key, &close);
            if (!p || close) return p;
            field = sts_jr_key_field(key.p, key.n, key.esc);
            k = key.esc ? JR_LOOSE : pred_learn(c, j, from, p, key.p, key.n, field);
            if (k != JR_LOOSE) pr = &c->pool[k];
        }
        j = k;
        if (field == F_ARGS) {
            p = walk_args(r, json_ws(p), e, ev);
            if (!p || !(p = separator(r, p))) return NULL;
        } else {
            jspan *x = field >= 0 ? &ev->f[field] : &ignored;
            p = value(r, pr, p, e, x, field == F_NAME || field == F_CAT ? &r->fid1[field] : NULL);
            if (field >= 0) ev->have |= BIT(field);
            if (!p) return NULL;
        }
        if (*p++ == '}') return p;
    }
}
