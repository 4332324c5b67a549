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
#include "read/json_values.h"

/* Notes one key-value pair for a shape (rec is a constant NULL in the plain walk, so
 * that copy of the walk has none of this). */
HOT void note(jrec *rec, const char *vs, const char *ve, int field, int arg, uint8_t pred, int hit, uint8_t kind)
{
    if (!rec) return;
    if (rec->n == JS_STEPS) {
        rec->bad = 1;
        return;
    }
    jrec_step *s = &rec->s[rec->n++];
    s->vs = vs;
    s->ve = ve;
    s->field = (int8_t)field;
    s->arg = (int8_t)arg;
    s->pred = pred;
    s->hit = (uint8_t)hit;
    s->kind = kind;
}

HOT const char *walk_args(jr *r, const char *p, const char *e, jevent *ev, jrec *rec)
{
    jspan ignored;
    ev->nargs = 0; /* a repeated "args" key: the last one counts */
    if (*p != '{') {
        if (rec) rec->bad = 1;
        return parse_value(r, p, e, &ignored);
    }
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
        int arg = drop ? -1 : (int)ev->nargs;
        const char *vs = p;
        if (!drop) {
            a->key.kind = JK_STRING;
            a->pred = k == JR_LOOSE ? -1 : k;
            a->gen = c->pool[k].gen;
            x = &a->val;
            ev->nargs++;
        }
        p = value(r, pr, p, e, x, NULL);
        if (!p) return NULL;
        note(rec, vs, p, JS_ARG, arg, k, r->vhit, x->kind);
        if (*p++ == '}') return p;
    }
}

HOT const char *walk_event(jr *r, const char *p, const char *e, jevent *ev, jrec *rec)
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
            if (rec) rec->bad |= rec->args_seen++;
            p = walk_args(r, json_ws(p), e, ev, rec);
            if (!p || !(p = separator(r, p))) return NULL;
        } else {
            jspan *x = field >= 0 ? &ev->f[field] : &ignored;
            const char *vs = p;
            p = value(r, pr, p, e, x, field == F_NAME || field == F_CAT ? &r->fid1[field] : NULL);
            if (field >= 0) ev->have |= BIT(field);
            if (!p) return NULL;
            note(rec, vs, p, field, -1, k, r->vhit, x->kind);
        }
        if (*p++ == '}') return p;
    }
}

const char *sts_jr_walk_event(jr *r, const char *p, const char *e, jevent *ev)
{
    return walk_event(r, p, e, ev, NULL);
}

const char *sts_jr_walk_event_rec(jr *r, const char *p, const char *e, jevent *ev, jrec *rec)
{
    rec->n = rec->bad = rec->args_seen = 0;
    return walk_event(r, p, e, ev, rec);
}
