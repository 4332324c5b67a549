/* One Chrome trace event taken from the structural index (stage 2).
 *
 * The index (json_index.h) lists every token's first byte, so the walk steps from
 * entry to entry and never scans: whitespace is never looked at, a string's closing
 * quote is the next entry, a number ends where the next token or whitespace begins,
 * and a nested value is skipped by following brackets through the entries while
 * checking the grammar. Each key is still matched against the learned layouts
 * (json_tokens.h) first, exactly as the byte parser does, so a key that repeats costs
 * a 32-byte compare and three entries.
 *
 * Every check the byte parser makes is made here too: the grammar at every entry, the
 * text of every number and literal, escapes in strings (looked for only when the
 * buffer holds a backslash at all). When anything does not fit, including the end of
 * the data, the walk returns NULL and the caller parses the event byte by byte, so
 * errors are reported by one parser, with one wording. */
#include <string.h>

#include "read/json_tokens.h"

#define BIT(f) (1u << (f))

/* The byte an entry points at. */
#define AT(x) (b + *(x))

static inline int is_ws(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

/* A scalar that ended at q is whole when the next token or whitespace follows it. */
static inline int scalar_ends(const char *b, const uint32_t *next, const char *q)
{
    return q == AT(next) || is_ws(*q);
}

/* String contents [s, q), q being the closing quote's entry: whether it holds escapes,
 * checked the byte parser's way. Returns -1 when an escape is bad. */
HOT int string_escapes(const jr *r, const char *s, const char *q)
{
    if (!r->ix.any_backslash || !memchr(s, '\\', (size_t)(q - s))) return 0;
    int esc = 0;
    json_fail f;
    return json_scan_string(s, q + 1, &esc, &f) == q ? 1 : -1;
}

/* The number or literal at p (entry x): its end, or NULL. */
HOT const char *scalar(jr *r, const char *p, jspan *v)
{
    char c = *p;
    if (c == '-' || json_is_digit(c)) return parse_number(r, p, v);
    const char *q;
    if (c == 't') {
        q = json_scan_literal(p, "true", &r->fail);
        v->kind = JK_TRUE;
    } else if (c == 'f') {
        q = json_scan_literal(p, "false", &r->fail);
        v->kind = JK_FALSE;
    } else if (c == 'n') {
        q = json_scan_literal(p, "null", &r->fail);
        v->kind = JK_NULL;
    } else {
        return NULL;
    }
    if (q) v->n = (uint32_t)(q - p);
    return q;
}

/* Nesting the walk tracks; deeper values go to the byte parser's unbounded skipper. */
#define WALK_DEPTH 64

/* Skips the array or object at entry x, checking it; returns the entry after it. */
static const uint32_t *skip_nested(jr *r, const char *b, const uint32_t *x)
{
    uint64_t objs = 0; /* bit 0: the innermost open value is an object */
    unsigned depth = 0;
    jspan tmp;
    for (;;) {
        /* *x opens an array or object. */
        if (depth == WALK_DEPTH) return NULL;
        int obj = *AT(x) == '{';
        objs = objs << 1 | (uint64_t)obj;
        depth++;
        x++;
        if (*AT(x) == (obj ? '}' : ']')) {
            x++;
            goto closed;
        }
        for (;;) {
            if (objs & 1) { /* a key */
                const char *k = AT(x), *kq = AT(x + 1);
                if (*k != '"' || *kq != '"' || *AT(x + 2) != ':' || string_escapes(r, k + 1, kq) < 0) return NULL;
                x += 3;
            }
            const char *p = AT(x);
            if (*p == '[' || *p == '{') break; /* descend */
            if (*p == '"') {
                const char *q = AT(x + 1);
                if (*q != '"' || string_escapes(r, p + 1, q) < 0) return NULL;
                x += 2;
            } else {
                const char *q = scalar(r, p, &tmp);
                if (!q || !scalar_ends(b, x + 1, q)) return NULL;
                x++;
            }
            for (;;) { /* after a value */
                char c = *AT(x);
                if (c == ',') {
                    x++;
                    break;
                }
                if (c != ((objs & 1) ? '}' : ']')) return NULL;
                x++;
            closed:
                objs >>= 1;
                if (--depth == 0) return x;
            }
        }
    }
}

/* The value at entry x into v (as parse_value fills it); the entry after it or NULL. */
HOT const uint32_t *walk_value(jr *r, const char *b, const uint32_t *x, jspan *v)
{
    const char *p = AT(x);
    v->p = p;
    v->esc = 0;
    v->is_int = 0;
    v->fast = 0;
    if (*p == '"') {
        const char *q = AT(x + 1);
        if (*q != '"') return NULL;
        int esc = string_escapes(r, p + 1, q);
        if (esc < 0) return NULL;
        v->p = p + 1;
        v->n = (uint32_t)(q - p - 1);
        v->kind = JK_STRING;
        v->esc = (uint8_t)esc;
        return x + 2;
    }
    if (*p == '[' || *p == '{') {
        const uint32_t *nx = skip_nested(r, b, x);
        if (!nx) return NULL;
        v->kind = *p == '[' ? JK_ARRAY : JK_OBJECT;
        /* The raw text runs to the closing bracket, the entry before the next one. */
        v->n = (uint32_t)(AT(nx - 1) + 1 - p);
        return nx;
    }
    const char *q = scalar(r, p, v);
    if (!q || !scalar_ends(b, x + 1, q)) return NULL;
    return x + 1;
}

/* A key (not a learned layout) at entry x: its span, the value's entry, or NULL. On
 * the first key, "{}" sets *close. */
HOT const uint32_t *walk_key(jr *r, const char *b, const uint32_t *x, int first, jspan *key, int *close)
{
    const char *k = AT(x);
    if (*k != '"') {
        if (first && *k == '}') {
            *close = 1;
            return x + 1;
        }
        return NULL;
    }
    const char *kq = AT(x + 1);
    if (*kq != '"' || *AT(x + 2) != ':') return NULL;
    int esc = string_escapes(r, k + 1, kq);
    if (esc < 0) return NULL;
    key->p = k + 1;
    key->n = (uint32_t)(kq - k - 1);
    key->esc = (uint8_t)esc;
    return x + 3;
}

static const uint32_t *walk_args(jr *r, const char *b, const uint32_t *x, jevent *ev)
{
    jspan ignored;
    ev->nargs = 0; /* a repeated "args" key: the last one counts */
    if (*AT(x) != '{') return walk_value(r, b, x, &ignored);
    x++;
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
            return NULL;
        }
        jarg *a = &r->argv[ev->nargs];
        const char *from = AT(x - 1) + 1;
        uint8_t k = pred_next(c, j, from);
        int drop = keep_none;
        if (k != JR_NO_PRED) {
            const jpred *pr = &c->pool[k];
            drop |= droppable & (pr->key != STS_NONE) & !pr->keep;
            if (!drop) {
                a->key.p = from + pr->kofs;
                a->key.n = pr->kn;
                a->key.esc = 0;
            }
            x += 3;
        } else {
            int close = 0;
            x = walk_key(r, b, x, first, &a->key, &close);
            if (!x || close) return x;
            k = a->key.esc ? JR_LOOSE : pred_learn(c, j, from, AT(x), a->key.p, a->key.n, -1);
        }
        j = k;
        if (drop) {
            x = walk_value(r, b, x, &ignored);
        } else {
            a->key.kind = JK_STRING;
            a->pred = k == JR_LOOSE ? -1 : k;
            a->gen = c->pool[k].gen;
            x = walk_value(r, b, x, &a->val);
            ev->nargs++;
        }
        if (!x) return NULL;
        if (*AT(x) == ',') {
            x++;
            continue;
        }
        return *AT(x) == '}' ? x + 1 : NULL;
    }
}

const uint32_t *sts_jr_walk_event(jr *r, const uint32_t *x, jevent *ev)
{
    const char *b = r->buf;
    jspan ignored;
    jchain *c = &r->event_chain;
    uint8_t j = JR_START;
    ev->start = AT(x);
    ev->have = 0;
    ev->nargs = 0;
    x++;
    for (int first = 1;; first = 0) {
        const char *from = AT(x - 1) + 1; /* just after '{' or ',' */
        int field;
        uint8_t k = pred_next(c, j, from);
        if (k != JR_NO_PRED) {
            field = c->pool[k].field;
            x += 3; /* a learned layout holds the key's two quotes and its colon */
        } else {
            jspan key;
            int close = 0;
            x = walk_key(r, b, x, first, &key, &close);
            if (!x || close) return x;
            field = sts_jr_key_field(key.p, key.n, key.esc);
            k = key.esc ? JR_LOOSE : pred_learn(c, j, from, AT(x), key.p, key.n, field);
        }
        j = k;
        if (field == F_ARGS) {
            x = walk_args(r, b, x, ev);
        } else if (field >= 0) {
            x = walk_value(r, b, x, &ev->f[field]);
            ev->have |= BIT(field);
        } else {
            x = walk_value(r, b, x, &ignored);
        }
        if (!x) return NULL;
        if (*AT(x) == ',') {
            x++;
            continue;
        }
        return *AT(x) == '}' ? x + 1 : NULL;
    }
}
