/* Whole events by shape.
 *
 * A profiler writes each kind of event with the same code, so consecutive events of a
 * kind are the same bytes except for a few values: a CPU op of PyTorch's compact
 * trace is
 *
 *     {"ph":"X","cat":"cpu_op","name":"aten::mm","pid":4242,"tid":4301,"ts":#,
 *      "dur":#,"args":{"External id":#,"Record function id":0,"Ev Idx":#}}
 *
 * with the holes # changing from one event to the next. The walk (json_walk.c) still
 * costs a prediction per key and a remembered-value lookup per value; a shape takes
 * the whole event as a few runs of fixed bytes, each checked with 16-byte compares,
 * with a value parsed at each hole. What the event's fields become is recorded once,
 * from the walk that built the shape, and copied.
 *
 * Why a match gives what the walk would give: the walk's result (the jevent) depends
 * only on the event's bytes, except for which args it drops (by "ph", known from the
 * bytes before them, and by the args mode) and the caches it keeps (a layout slot's
 * generation, a string's id), which commit checks before use. A shape's fixed bytes
 * hold every key, every separator and "ph" itself; a hole holds one whole value,
 * parsed as the walk parses it. Bytes that match the fixed runs and values that parse
 * at the holes are therefore an event the walk reads into the same fields, with the
 * holes' values in place of the recorded ones.
 *
 * Which shape: first the one that followed the previous event's shape the last few
 * times (kinds of event come in the same order again and again: an op, its launch, the
 * launch's flow), then the ones for the event's prefix: a hash of its first 48 bytes,
 * cut at the first ASCII digit, since ids and timestamps are digits and the keys and
 * constant values before them name the kind. A prefix is given a shape the second
 * time it is met, once its repeated values have been remembered: a value that
 * repeated then is fixed in the shape, one that did not (a timestamp, an id) is a
 * hole. A prefix has WAYS shapes. A fixed value that later differs gets a way of its
 * own while one is free (an op on two threads), then becomes a hole; an event whose
 * keys differ gets a way too. A slot whose events keep needing new shapes goes cold,
 * so that an input without repeated shapes costs little more than the walk.
 *
 * Besides the fields, a shape hands commit what it found for the first event: the
 * name's and category's string ids, and the lane when "pid" and "tid" are fixed. */
#include "base/invariant.h"
#include "read/json_values.h"

#define SLOT_BITS 10
#define PREFIX    48   /* bytes hashed to find a shape (inside the buffer's zero padding) */
#define MAX_TEXT  2048 /* an event longer than this gets no shape */
#define MAX_SHAPE 512  /* shapes per reader */
#define TEXT_PAD  16   /* readable bytes after a shape's text, for the 16-byte compares */

typedef struct sstep {
    uint16_t vs, ve; /* as jrec_step, offsets in the text */
    int8_t field;
    int8_t arg;
    uint8_t pred;
    uint8_t hole; /* the value changes: parsed at each event */
    uint8_t kind; /* JK_x of the value when recorded */
    uint16_t vofs, kofs;
    jspan val; /* a fixed value as parsed (p unused: vofs) */
    jspan key; /* a kept arg's key (p unused: kofs) */
} sstep;

typedef struct sseg {
    uint16_t start, len; /* fixed bytes of the text */
    int16_t hole;        /* the step whose value follows them, or -1 at the end */
    int8_t field, arg;   /* that step's, copied so that matching reads no step */
    uint8_t pred;
    uint8_t memo; /* look its value up among the remembered ones (not a number) */
} sseg;

typedef struct sfix {
    jspan val; /* copied to the event, with p = the segment's bytes + off */
    uint16_t seg, off;
    uint16_t target; /* < F_COUNT: ev->f[target]; else argv[(target - TGT_ARG) / 2], key when even */
} sfix;

#define TGT_ARG 16

typedef struct sargp {
    int pred;
    uint32_t gen;
} sargp;

/* One block: this header, then what matching reads (segs, fix, argp, text), then the
 * steps, which only building and a value turned into a hole read. */
typedef struct shape {
    uint32_t len, have, nargs;
    int nsteps, nseg, nfix;
    int name_fixed, cat_fixed; /* fixed steps' indexes, or -1 */
    uint32_t id1[2];           /* their string ids + 1, once found (0: not yet) */
    int lane_fixed;            /* "pid" and "tid" are fixed (or absent): the lane is too */
    uint32_t lane1;            /* that lane + 1, once commit found it (0: not yet) */
    int next;                  /* the shape that came after this one last time: slot * WAYS + way, or -1 */
    uint8_t sure;              /* how many times in a row (up to 3) `next` came next */
    size_t size;               /* the block's bytes */
    sseg *segs;
    sfix *fix;
    sargp *argp;
    char *text;
    sstep *steps;
} shape;

/* Shapes per prefix: the same op with and without an optional arg, on two threads. */
#define WAYS 4

typedef struct sslot {
    uint64_t tag; /* the prefix hash this slot's shapes are for */
    shape *way[WAYS];
    uint32_t used[WAYS]; /* when each way last matched or was built (jshapes.clock) */
    uint8_t mru;
    uint8_t builds; /* shapes built for this prefix (saturates) */
    uint8_t tries;  /* events met while the slot is cold (below) */
    uint32_t hits;
} sslot;

#define SEEN_BITS 12

struct jshapes {
    sslot slots[1u << SLOT_BITS];
    uint64_t seen[1u << SEEN_BITS]; /* prefixes met once, waiting for a second time */
    int count;
    int last; /* the shape of the previous event, slot * WAYS + way; -1 after a walked one */
    uint32_t clock;
    jrec rec;
};

/* A hash of the event's first PREFIX bytes up to its first ASCII digit: ids and
 * timestamps are digits, and an event whose prefix held one would never repeat it. */
static inline uint64_t prefix_hash(const char *p)
{
    static const uint64_t k[7] = { 0x9e3779b97f4a7c15ull, 0xc2b2ae3d27d4eb4full, 0x165667b19e3779f9ull,
                                   0x85ebca77c2b2ae63ull, 0x27d4eb2f165667c5ull, 0xff51afd7ed558ccdull,
                                   0xc4ceb9fe1a85ec53ull };
    uint64_t w[6];
    unsigned n; /* bytes before the first digit, at most PREFIX */
#if defined(__SSE2__)
    __m128i v[3];
    uint64_t digits = (uint64_t)1 << PREFIX;
    for (int i = 0; i < 3; i++) {
        v[i] = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        __m128i d = _mm_sub_epi8(v[i], _mm_set1_epi8('0'));
        digits |= (uint64_t)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_min_epu8(d, _mm_set1_epi8(9)), d)) << (16 * i);
    }
    n = (unsigned)__builtin_ctzll(digits);
    memcpy(w, v, sizeof w);
#else
    memcpy(w, p, sizeof w);
    for (n = 0; n < PREFIX && !json_is_digit(p[n]); n++)
        ;
#endif
    uint64_t h = n * k[6];
    for (unsigned i = 0; i < 6; i++) {
        unsigned b = n > 8 * i ? n - 8 * i : 0; /* bytes of word i that count */
        uint64_t keep = b >= 8 ? ~(uint64_t)0 : ((uint64_t)1 << (8 * b)) - 1;
        h ^= (w[i] & keep) * k[i];
    }
    return h ^ h >> 29;
}

/* -1 when the len bytes at q are pat's, else the offset of the first that differs.
 * Reads up to 15 bytes past both: pat has TEXT_PAD, and q stops inside the event or
 * the buffer's padding (pat holds no zero byte, so a match never runs past the data). */
#if defined(__SSE2__)
/* Bit i set where a[i] == b[i], for the 16 bytes at each. */
static inline unsigned equal16(const char *a, const char *b)
{
    return (unsigned)_mm_movemask_epi8(_mm_cmpeq_epi8(_mm_loadu_si128((const __m128i *)(const void *)a),
                                                      _mm_loadu_si128((const __m128i *)(const void *)b)));
}
#endif

static inline int differs(const char *q, const char *pat, uint32_t len)
{
#if defined(__SSE2__)
    uint32_t i = 0;
    for (; i + 16 <= len; i += 16) {
        unsigned m = equal16(q + i, pat + i);
        if (m != 0xffffu) return (int)(i + (uint32_t)__builtin_ctz(~m));
    }
    if (i < len) {
        unsigned m = ~equal16(q + i, pat + i) & ((1u << (len - i)) - 1);
        if (m) return (int)(i + (uint32_t)__builtin_ctz(m));
    }
    return -1;
#else
    for (uint32_t i = 0; i < len; i++)
        if (q[i] != pat[i]) return (int)i;
    return -1;
#endif
}

/* The segment whose fixed bytes hold text offset off. */
static int seg_of(const shape *s, uint32_t off)
{
    for (int k = 0; k < s->nseg; k++)
        if (off >= s->segs[k].start && off < (uint32_t)s->segs[k].start + s->segs[k].len) return k;
    return -1;
}

static int add_fix(shape *s, const jspan *val, uint32_t off, uint16_t target)
{
    int k = seg_of(s, off);
    if (k < 0) return -1;
    STS_ASSERT(s->nfix < 2 * s->nsteps); /* a key and a value per step: the room shape_block made */
    sfix *f = &s->fix[s->nfix++];
    f->val = *val;
    f->val.p = NULL;
    f->seg = (uint16_t)k;
    f->off = (uint16_t)(off - s->segs[k].start);
    f->target = target;
    return 0;
}

/* Segments and copies from the steps (after a build, or a value turned into a hole).
 * Returns -1 when the shape cannot be used. */
static int derive(shape *s)
{
    uint32_t start = 0;
    s->nseg = s->nfix = 0;
    s->name_fixed = s->cat_fixed = -1;
    s->lane_fixed = 1;
    s->lane1 = 0;
    for (int i = 0; i < s->nsteps; i++) {
        const sstep *st = &s->steps[i];
        if (!st->hole) continue;
        /* The holes come in text order, each after the fixed bytes before it: else a
         * segment's length wraps and matching compares bytes past the event. */
        STS_ASSERT(st->vs >= start && st->vs <= st->ve && st->ve <= s->len);
        if (st->field == F_PID || st->field == F_TID) s->lane_fixed = 0;
        /* Remembered values only for the kinds that repeat: a number that changes (a
         * timestamp, an id) is parsed faster than looked up. */
        s->segs[s->nseg++] = (sseg){ (uint16_t)start, (uint16_t)(st->vs - start), (int16_t)i, st->field, st->arg,
                                     st->pred,        st->kind != JK_NUMBER };
        start = st->ve;
    }
    s->segs[s->nseg++] = (sseg){ (uint16_t)start, (uint16_t)(s->len - start), -1, -1, -1, JR_NO_PRED, 0 };
    STS_ASSERT(s->nseg <= s->nsteps + 1); /* the room shape_block made */
    for (int i = 0; i < s->nsteps; i++) {
        const sstep *st = &s->steps[i];
        if (st->field == JS_ARG && st->arg >= 0) {
            uint16_t t = (uint16_t)(TGT_ARG + 2 * st->arg);
            if (add_fix(s, &st->key, st->kofs, t) != 0) return -1;
            if (!st->hole && add_fix(s, &st->val, st->vofs, (uint16_t)(t + 1)) != 0) return -1;
        } else if (st->field >= 0 && st->field < F_COUNT && !st->hole) {
            if (add_fix(s, &st->val, st->vofs, (uint16_t)st->field) != 0) return -1;
            if (st->field == F_NAME) s->name_fixed = i;
            if (st->field == F_CAT) s->cat_fixed = i;
        }
    }
    return 0;
}

static size_t round16(size_t n)
{
    return (n + 15) & ~(size_t)15;
}

/* *sp (reused, grown or new) with room for n steps and len bytes of text, its arrays
 * placed; -1 when memory ran out (*sp is then unchanged). */
static int shape_block(shape **sp, size_t n, size_t len)
{
    size_t at_segs = round16(sizeof(shape));
    size_t at_fix = at_segs + round16((n + 1) * sizeof(sseg));
    size_t at_argp = at_fix + round16(2 * n * sizeof(sfix));
    size_t at_text = at_argp + round16(n * sizeof(sargp));
    size_t at_steps = at_text + round16(len + TEXT_PAD);
    size_t size = at_steps + n * sizeof(sstep);
    shape *s = *sp;
    if (!s || s->size < size) {
        s = realloc(s, size);
        if (!s) return -1;
        s->size = size;
        *sp = s;
    }
    char *b = (char *)s;
    s->segs = (sseg *)(void *)(b + at_segs);
    s->fix = (sfix *)(void *)(b + at_fix);
    s->argp = (sargp *)(void *)(b + at_argp);
    s->text = b + at_text;
    s->steps = (sstep *)(void *)(b + at_steps);
    return 0;
}

/* Whether a recorded value is a hole. One that repeated is fixed, one that did not is
 * a hole. One not looked up (its layout's values kept changing: kernel names too long
 * to remember, after a run of them) is fixed too, unless it is a number other than pid
 * and tid: a name that differs later becomes a hole then, ts and ids are holes now. */
static int is_hole(const jrec_step *rs)
{
    if (rs->hit != VHIT_UNASKED) return !rs->hit;
    return rs->kind == JK_NUMBER && rs->field != F_PID && rs->field != F_TID;
}

/* Makes s the shape of the event [p, q) that the walk recorded into rec. Returns -1
 * (s left empty) when the event has no usable shape or memory ran out. */
static int build(jr *r, shape **sp, const jrec *rec, const char *p, const char *q, const jevent *ev)
{
    size_t len = (size_t)(q - p);
    if (*sp) (*sp)->nsteps = 0;
    if (rec->bad || rec->n == 0 || len > MAX_TEXT || memchr(p, 0, len)) return -1;
    uint32_t fields = 0;
    for (int i = 0; i < rec->n; i++) {
        const jrec_step *rs = &rec->s[i];
        if (rs->field < 0 || rs->field == JS_ARG) continue;
        /* A key twice: the walk keeps the last; one copy each is simpler. "ph" must be
         * fixed: the args kept depend on it. */
        if (fields & (1u << rs->field) || (rs->field == F_PH && is_hole(rs))) return -1;
        fields |= 1u << rs->field;
    }
    if (shape_block(sp, (size_t)rec->n, len) != 0) return -1;
    shape *s = *sp;
    memcpy(s->text, p, len);
    memset(s->text + len, 0, TEXT_PAD);
    s->len = (uint32_t)len;
    for (int i = 0; i < rec->n; i++) {
        const jrec_step *rs = &rec->s[i];
        sstep *st = &s->steps[i];
        /* What the walk recorded lies in the event (len <= MAX_TEXT: offsets fit 16 bits). */
        STS_ASSERT(rs->vs >= p && rs->vs <= rs->ve && rs->ve <= q);
        memset(st, 0, sizeof *st);
        st->vs = (uint16_t)(rs->vs - p);
        st->ve = (uint16_t)(rs->ve - p);
        st->field = rs->field;
        st->arg = rs->arg;
        st->pred = rs->pred;
        st->hole = (uint8_t)is_hole(rs);
        st->kind = rs->kind;
        if (rs->field == JS_ARG && rs->arg >= 0) {
            const jarg *a = &r->argv[rs->arg];
            st->key = a->key;
            st->kofs = (uint16_t)(a->key.p - p);
            st->val = a->val;
            st->vofs = (uint16_t)(a->val.p - p);
            s->argp[rs->arg] = (sargp){ a->pred, a->gen };
        } else if (rs->field >= 0 && rs->field < F_COUNT) {
            st->val = ev->f[rs->field];
            st->vofs = (uint16_t)(st->val.p - p);
        }
    }
    s->nsteps = rec->n;
    s->next = -1;
    s->sure = 0;
    s->have = ev->have;
    s->nargs = ev->nargs;
    s->id1[0] = r->fid1[F_NAME];
    s->id1[1] = r->fid1[F_CAT];
    if (derive(s) != 0) {
        s->nsteps = 0;
        return -1;
    }
    return 0;
}

static inline jspan *target(jr *r, jevent *ev, unsigned t)
{
    if (t < F_COUNT) return &ev->f[t];
    jarg *a = &r->argv[(t - TGT_ARG) / 2];
    return t & 1 ? &a->val : &a->key;
}

/* A fixed name or cat: its id, looked up (never interned) until the string is there. */
static inline uint32_t fixed_id(jr *r, shape *s, int which, int step)
{
    if (!s->id1[which]) {
        const jspan *v = &s->steps[step].val;
        if (v->kind == JK_STRING && !v->esc) {
            uint32_t id = sts_strtab_find(&r->tl->strings, s->text + s->steps[step].vofs, v->n);
            if (id != UINT32_MAX) s->id1[which] = id + 1;
        }
    }
    return s->id1[which];
}

enum { MATCHED, MISS_VALUE, MISS_KEYS, MISS_OTHER };

/* The event at p read through shape s: MATCHED with *end after its '}', MISS_VALUE
 * when a fixed value differs and `demote` is 0 (with `demote`, that value becomes a
 * hole and the match goes on), MISS_KEYS when its keys or layout differ (a new shape
 * may fit), MISS_OTHER when the walk must
 * read it (a hole's value does not parse, the buffer ends). */
static int match(jr *r, shape *s, const char *p, const char *e, jevent *ev, const char **end, int demote)
{
    if (s->nargs > r->argv_cap && sts_grow((void **)&r->argv, &r->argv_cap, s->nargs, sizeof *r->argv) != 0)
        return MISS_OTHER;
    const char *base[JS_STEPS + 1];
    for (;;) {
        const char *q = p;
        int k = 0, at = -1;
        r->fid1[F_NAME] = r->fid1[F_CAT] = 0;
        for (; k < s->nseg; k++) {
            const sseg *g = &s->segs[k];
            at = differs(q, s->text + g->start, g->len);
            if (at >= 0) break;
            base[k] = q;
            q += g->len;
            if (g->hole < 0) continue;
            jspan ignored;
            jspan *x = g->field == JS_ARG ? (g->arg >= 0 ? &r->argv[g->arg].val : &ignored)
                       : g->field >= 0    ? &ev->f[g->field]
                                          : &ignored;
            if (!g->memo && (*q == '-' || json_is_digit(*q))) {
                /* A number (a ts, a dur, an id): parsed here, as value() would without
                 * remembered values; one nobody reads (an id in args the mode drops)
                 * is checked as parse_number checks it, not converted. */
                if (x == &ignored) {
                    int is_int;
                    q = json_scan_number(q, &is_int, &r->fail);
                } else {
                    q = parse_value(r, q, e, x);
                }
                if (!q) return MISS_OTHER;
                if (*q != ',' && *q != '}' && !(q = separator(r, q))) return MISS_OTHER;
                continue;
            }
            jchain *c = g->field == JS_ARG ? &r->args_chain : &r->event_chain;
            jpred *pr = g->memo && g->pred < JR_POOL && g->pred != JR_LOOSE ? &c->pool[g->pred] : NULL;
            uint32_t *known = g->field == F_NAME || g->field == F_CAT ? &r->fid1[g->field] : NULL;
            q = value(r, pr, q, e, x, known);
            if (!q) return MISS_OTHER;
        }
        if (k == s->nseg) {
            ev->start = p;
            ev->have = s->have;
            ev->nargs = s->nargs;
            for (int i = 0; i < s->nfix; i++) {
                const sfix *f = &s->fix[i];
                jspan *d = target(r, ev, f->target);
                *d = f->val;
                d->p = base[f->seg] + f->off;
            }
            for (uint32_t i = 0; i < s->nargs; i++) {
                r->argv[i].pred = s->argp[i].pred;
                r->argv[i].gen = s->argp[i].gen;
            }
            if (s->name_fixed >= 0) r->fid1[F_NAME] = fixed_id(r, s, 0, s->name_fixed);
            if (s->cat_fixed >= 0) r->fid1[F_CAT] = fixed_id(r, s, 1, s->cat_fixed);
            if (s->lane_fixed) r->lane_hint = &s->lane1;
            *end = q;
            return MATCHED;
        }
        if (q + at >= e) return MISS_OTHER; /* the buffer ends inside the event */
        /* A fixed value (or what follows it) differs: it becomes a hole, unless it is
         * "ph", or the difference is in a key. */
        uint32_t t = s->segs[k].start + (uint32_t)at;
        int i = 0;
        while (i < s->nsteps && !(!s->steps[i].hole && t >= s->steps[i].vs && t <= s->steps[i].ve))
            i++;
        if (i == s->nsteps || s->steps[i].field == F_PH) return MISS_KEYS;
        if (!demote) return MISS_VALUE;
        s->steps[i].hole = 1;
        if (derive(s) != 0) {
            s->nsteps = 0;
            return MISS_KEYS;
        }
    }
}

/* A slot that has built this many shapes builds more only while its shapes are used
 * 16 times per build (else it is cold): a few kinds of event sharing a prefix settle,
 * a prefix whose events all differ stops costing builds. */
#define SETTLED_BUILDS 8

static inline shape *way_shape(const jshapes *S, int id)
{
    return S->slots[id / WAYS].way[id % WAYS];
}

static inline int live(const shape *s)
{
    return s && s->nsteps;
}

/* A match through way w of slot i: counted, and remembered as the successor of the
 * previous event's shape. */
static const char *took(jr *r, jshapes *S, size_t i, int w, const char *q)
{
    sslot *sl = &S->slots[i];
    sl->mru = (uint8_t)w;
    sl->used[w] = ++S->clock;
    sl->hits++;
    r->shape_hits++;
    int id = (int)(i * WAYS) + w;
    if (S->last >= 0) {
        shape *prev = way_shape(S, S->last);
        if (prev->next == id)
            prev->sure += prev->sure < 3;
        else
            prev->next = id, prev->sure = 0;
    }
    S->last = id;
    return q;
}

/* The walk reads the event; no shape came before the next one. */
static const char *walked(jr *r, jshapes *S, const char *p, const char *e, jevent *ev)
{
    S->last = -1;
    return sts_jr_walk_event(r, p, e, ev);
}

/* The t-th way to try: the one matched last, then the others in order. */
static inline int way_in_turn(const sslot *sl, int t)
{
    return t == 0 ? sl->mru : t <= sl->mru ? t - 1 : t;
}

/* The way a new shape goes to: an empty one, else the one matched longest ago. */
static int victim(const sslot *sl)
{
    int v = 0;
    for (int w = 0; w < WAYS; w++) {
        if (!live(sl->way[w])) return w;
        if (sl->used[w] < sl->used[v]) v = w;
    }
    return v;
}

const char *sts_jr_shape_event(jr *r, const char *p, const char *e, jevent *ev)
{
    jshapes *S = r->shapes;
    r->lane_hint = NULL;
    if (!S) {
        if (!(S = r->shapes = calloc(1, sizeof *S))) return sts_jr_walk_event(r, p, e, ev);
        S->last = -1;
    }
    /* Events of a kind come in the same order again and again (an op, its launch, the
     * launch's flow): the shape that followed the previous one the last two times or
     * more is tried first, before hashing. A match is exact whichever shape it is. */
    const shape *prev = S->last >= 0 ? way_shape(S, S->last) : NULL;
    if (prev && prev->sure >= 2) {
        int next = prev->next;
        shape *s = way_shape(S, next);
        const char *q;
        if (live(s) && match(r, s, p, e, ev, &q, 0) == MATCHED) return took(r, S, (size_t)next / WAYS, next % WAYS, q);
    }
    uint64_t h = prefix_hash(p);
    size_t si = h >> (64 - SLOT_BITS);
    sslot *sl = &S->slots[si];
    if (sl->tag != h) {
        /* Shapes come the second time a prefix is met; prefixes met once (a flow
         * event's id, say) leave the shapes in use alone. */
        uint64_t *seen = &S->seen[(h >> 20) & ((1u << SEEN_BITS) - 1)];
        if (*seen != h) {
            *seen = h;
            return walked(r, S, p, e, ev);
        }
        if (sl->hits >= 2) { /* a colliding prefix in use: it keeps the slot while it stays in use */
            sl->hits /= 2;
            return walked(r, S, p, e, ev);
        }
        sl->tag = h;
        sl->builds = 0;
        sl->hits = 0;
        for (int w = 0; w < WAYS; w++)
            if (sl->way[w]) sl->way[w]->nsteps = 0;
    }
    /* A slot whose events keep needing new shapes tries its shapes on one event in 16
     * only, so that such events cost little more than the walk. */
    int cold = sl->builds >= SETTLED_BUILDS && sl->hits < 16u * sl->builds;
    if (cold && (++sl->tries & 15)) return walked(r, S, p, e, ev);
    /* The ways in turn, the last one matched first. A fixed value that differs gets a
     * way of its own while one is free (a kernel on two streams, an op on two
     * threads); once all are taken, it becomes a hole in one of them. */
    int miss[WAYS], other = 0, full = 1;
    for (int t = 0; t < WAYS; t++) {
        int w = way_in_turn(sl, t);
        shape *s = sl->way[w];
        miss[w] = MISS_KEYS;
        full &= live(s);
        if (!live(s)) continue;
        const char *q;
        int m = match(r, s, p, e, ev, &q, 0);
        if (m == MATCHED) return took(r, S, si, w, q);
        miss[w] = m;
        other |= m == MISS_OTHER;
    }
    for (int t = 0; t < WAYS && full && !other; t++) {
        int w = way_in_turn(sl, t);
        const char *q;
        if (miss[w] == MISS_VALUE && match(r, sl->way[w], p, e, ev, &q, 1) == MATCHED) return took(r, S, si, w, q);
    }
    if (other || cold) return walked(r, S, p, e, ev);
    S->last = -1; /* a build may move this slot's shapes */
    const char *q = sts_jr_walk_event_rec(r, p, e, ev, &S->rec);
    if (!q) return q;
    int w = victim(sl);
    int fresh = !sl->way[w];
    if (fresh && S->count >= MAX_SHAPE) return q;
    if (build(r, &sl->way[w], &S->rec, p, q, ev) == 0) {
        sl->mru = (uint8_t)w;
        sl->used[w] = ++S->clock;
    }
    S->count += fresh && sl->way[w];
    if (sl->builds < UINT8_MAX) sl->builds++;
    return q;
}

void sts_jr_shapes_free(jshapes *S)
{
    if (!S) return;
    /* Most ways are empty; free(NULL) is not free under ASan, and a reader of a small
     * input would spend its time here. */
    for (size_t i = 0; i < sizeof S->slots / sizeof S->slots[0]; i++)
        for (int w = 0; w < WAYS; w++)
            if (S->slots[i].way[w]) free(S->slots[i].way[w]);
    free(S);
}
