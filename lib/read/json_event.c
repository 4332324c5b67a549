/* One Chrome trace event, first half: parsed into spans in a single pass, with no side
 * effects on the timeline (json_commit.c stores it). */
#include <stdlib.h>
#include <string.h>

#include "read/json_tokens.h"

#define BIT(f) (1u << (f))

const char *sts_jr_kind_name(int kind)
{
    switch (kind) {
    case JK_STRING:
        return "a string";
    case JK_NUMBER:
        return "a number";
    case JK_TRUE:
    case JK_FALSE:
        return "a boolean";
    case JK_NULL:
        return "null";
    case JK_OBJECT:
        return "an object";
    case JK_ARRAY:
        return "an array";
    default:
        return "missing";
    }
}

/* Keys are dispatched by length, then first byte: one compare for most keys. */
HOT int key_field(const char *k, size_t n)
{
    switch (n) {
    case 1:
        return k[0] == 's' ? F_S : -1;
    case 2:
        if (k[0] == 'p') return k[1] == 'h' ? F_PH : -1;
        if (k[0] == 't') return k[1] == 's' ? F_TS : -1;
        if (k[0] == 'i') return k[1] == 'd' ? F_ID : -1;
        if (k[0] == 'b') return k[1] == 'p' ? F_BP : -1;
        return -1;
    case 3:
        switch (k[0]) {
        case 'c':
            return memcmp(k, "cat", 3) == 0 ? F_CAT : -1;
        case 'p':
            return memcmp(k, "pid", 3) == 0 ? F_PID : -1;
        case 't':
            return memcmp(k, "tid", 3) == 0 ? F_TID : -1;
        case 'd':
            return memcmp(k, "dur", 3) == 0 ? F_DUR : -1;
        case 'i':
            return memcmp(k, "id2", 3) == 0 ? F_ID2 : -1;
        default:
            return -1;
        }
    case 4:
        if (memcmp(k, "name", 4) == 0) return F_NAME;
        if (memcmp(k, "args", 4) == 0) return F_ARGS;
        return -1;
    default:
        return -1;
    }
}

static int escaped_key_field(const char *k, size_t n)
{
    char buf[16];
    if (n > sizeof buf) return -1; /* decodes to more than 4 bytes: no key of ours */
    return key_field(buf, sts_jr_unescape(k, n, buf));
}

int sts_jr_key_field(const char *k, size_t n, int esc)
{
    return esc ? escaped_key_field(k, n) : key_field(k, n);
}

const char *sts_jr_skip_value(jr *r, const char *p, const char *e)
{
    sts_jr_skip_start(&r->skip);
    const char *stop;
    switch (sts_jr_skip_feed(&r->skip, p, e, &stop, &r->fail)) {
    case JSON_SKIP_DONE:
        return stop;
    case JSON_SKIP_MORE:
        return json_failed(&r->fail, e, "the rest of the value");
    case JSON_SKIP_ERROR:
        return NULL;
    default:
        r->nomem = 1;
        return json_failed(&r->fail, p, "memory for the nesting stack");
    }
}

/* Whether this event's args are worth collecting. Before "ph" is seen they always are:
 * keys come in any order. */
int sts_jr_args_wanted(const jr *r, const jevent *ev)
{
    if (!(ev->have & BIT(F_PH))) return 1;
    const jspan *ph = &ev->f[F_PH];
    if (ph->kind != JK_STRING || ph->n != 1 || ph->esc) return 1;
    switch (ph->p[0]) {
    case 'C':
    case 'M':
        return 1; /* counters and metadata read their args whatever the mode */
    case 'X':
    case 'B':
    case 'i':
    case 'I':
    case 'R':
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'T':
    case 'F':
    case 'p':
        return r->mode != STS_ARGS_NONE;
    default:
        return 0;
    }
}

static const char *parse_args(jr *r, const char *p, const char *e, jevent *ev)
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
        uint8_t k = pred_next(c, j, p);
        int drop = keep_none;
        if (k != JR_NO_PRED) {
            const jpred *pr = &c->pool[k];
            drop |= droppable & (pr->key != STS_NONE) & !pr->keep; /* no branches: keys alternate */
            if (!drop) {
                a->key.p = p + pr->kofs;
                a->key.n = pr->kn;
                a->key.esc = 0;
            }
            p = json_ws(p + pr->len);
        } else {
            int close = 0;
            const char *from = p;
            p = parse_key(r, p, e, first, &a->key, &close);
            if (!p || close) return p;
            k = a->key.esc ? JR_LOOSE : pred_learn(c, j, from, p, a->key.p, a->key.n, -1);
        }
        j = k;
        if (drop) {
            p = parse_value(r, p, e, &ignored);
        } else {
            a->key.kind = JK_STRING;
            a->pred = k == JR_LOOSE ? -1 : k;
            a->gen = c->pool[k].gen;
            p = parse_value(r, p, e, &a->val);
            ev->nargs++;
        }
        if (!p) return NULL;
        p = json_ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '}') return p + 1;
        return json_failed(&r->fail, p, "',' or '}' after a value");
    }
}

const char *sts_jr_parse_event(jr *r, const char *p, const char *e, jevent *ev)
{
    jspan ignored;
    jchain *c = &r->event_chain;
    uint8_t j = JR_START;
    ev->start = p;
    ev->have = 0;
    ev->nargs = 0;
    p++;
    for (int first = 1;; first = 0) {
        int field;
        uint8_t k = pred_next(c, j, p);
        if (k != JR_NO_PRED) {
            field = c->pool[k].field;
            p = json_ws(p + c->pool[k].len);
        } else {
            jspan key;
            int close = 0;
            const char *from = p;
            p = parse_key(r, p, e, first, &key, &close);
            if (!p || close) return p;
            field = key.esc ? escaped_key_field(key.p, key.n) : key_field(key.p, key.n);
            k = key.esc ? JR_LOOSE : pred_learn(c, j, from, p, key.p, key.n, field);
        }
        j = k;
        if (field == F_ARGS) {
            p = parse_args(r, p, e, ev);
        } else if (field >= 0) {
            p = parse_value(r, p, e, &ev->f[field]);
            ev->have |= BIT(field);
        } else {
            p = parse_value(r, p, e, &ignored);
        }
        if (!p) return NULL;
        p = json_ws(p);
        if (*p == ',') {
            p++;
            continue;
        }
        if (*p == '}') return p + 1;
        return json_failed(&r->fail, p, "',' or '}' after a value");
    }
}
