/* One Chrome trace event, second half: a parsed event (json_event.c) is checked and
 * stored in the raw timeline, or counted as skipped or rejected with a warning. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "read/json_chrome.h"

#define BIT(f) (1u << (f))

/* The text of a span, unescaped into r->tmp when needed (valid until the next call). */
static const char *span_text(jr *r, const jspan *s, size_t *n)
{
    if (!s->esc) {
        *n = s->n;
        return s->p;
    }
    if (sts_grow((void **)&r->tmp, &r->tmp_cap, (size_t)s->n + 1, 1) != 0) return NULL;
    *n = sts_jr_unescape(s->p, s->n, r->tmp);
    return r->tmp;
}

/* Decimal digits of v. */
static inline uint32_t digits(uint64_t v)
{
    uint32_t d = 1;
    while (v >= 10)
        v /= 10, d++;
    return d;
}

static uint32_t span_id(jr *r, const jspan *s)
{
    /* An integer id written canonically (its text is its value's digits) is looked up
     * by value; any other spelling goes by its bytes, as every string does. */
    if (s->kind == JK_NUMBER && s->is_int && s->fast && !s->neg && s->n == digits(s->ip))
        return sts_jr_intern_uint(&r->strs, r->tl, s->ip, s->p, s->n);
    size_t n;
    const char *t = span_text(r, s, &n);
    return t ? sts_jr_intern_get(&r->strs, r->tl, t, n) : STS_NONE;
}

/* Refuses the event with a warning naming the file, event index and byte. */
static int reject(jr *r, const jevent *ev, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static int reject(jr *r, const jevent *ev, const char *fmt, ...)
{
    char msg[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    r->tl->info.rejected++;
    sts_tl_warn(r->tl, "%s: event %llu (byte %llu): %s; event not imported", r->path, (unsigned long long)r->index,
                (unsigned long long)jr_offset(r, ev->start), msg);
    return 1;
}

/* Value text for messages, cut short. */
static int shown(const jspan *s)
{
    return s->n > 40 ? 40 : (int)s->n;
}

enum { T_OK = 0, T_ABSENT = 1, T_REJECTED = 2, T_NOMEM = -1 };

/* A ts or dur read without a word: OK, ABSENT, NOMEM, or BAD (*why says how). */
enum { TM_BAD = 3 };
typedef enum time_why { WHY_TYPE, WHY_SYNTAX, WHY_RANGE } time_why;

static int quiet_time(jr *r, const jevent *ev, int field, int64_t *ns, int *whole, time_why *why)
{
    if (!(ev->have & BIT(field))) return T_ABSENT;
    const jspan *s = &ev->f[field];
    json_num_rc rc;
    if (s->kind == JK_NUMBER && s->fast && s->ip < (uint64_t)INT64_MAX / 1000) {
        int64_t v = (int64_t)s->ip * 1000 + s->frac;
        *ns = s->neg ? -v : v;
        *whole = s->frac == 0 || s->frac == 1000;
        return T_OK;
    } else if (s->kind == JK_NUMBER) {
        rc = sts_jr_us_to_ns(s->p, s->n, ns, whole);
    } else if (s->kind == JK_STRING) {
        size_t n;
        const char *t = span_text(r, s, &n);
        if (!t) return T_NOMEM;
        rc = sts_jr_us_to_ns(t, n, ns, whole);
    } else {
        *why = WHY_TYPE;
        return TM_BAD;
    }
    if (rc == JSON_NUM_OK) return T_OK;
    *why = rc == JSON_NUM_SYNTAX ? WHY_SYNTAX : WHY_RANGE;
    return TM_BAD;
}

/* The warning for a ts or dur that quiet_time() found BAD; returns T_REJECTED. */
static int bad_time(jr *r, const jevent *ev, int field, time_why why)
{
    const char *key = field == F_TS ? "ts" : "dur";
    const jspan *s = &ev->f[field];
    if (why == WHY_TYPE)
        reject(r, ev, "\"%s\" is %s, expected a number of microseconds", key, sts_jr_kind_name(s->kind));
    else if (why == WHY_SYNTAX)
        reject(r, ev, "\"%s\" is the string \"%.*s\", expected a number of microseconds", key, shown(s), s->p);
    else
        reject(r, ev, "\"%s\" %.*s%s is out of range (int64 nanoseconds hold up to 9223372036854775 us)", key, shown(s),
               s->p, s->n > 40 ? "..." : "");
    return T_REJECTED;
}

static int64_t numeric_id(const char *t, size_t n)
{
    int64_t v;
    if (sts_jr_parse_int64(t, n, &v) == 0) return v;
    double d;
    if (sts_jr_parse_double(t, n, &d) == 0 && d == floor(d) && fabs(d) < 9e18) return (int64_t)d;
    return INT64_MIN;
}

/* Whether a pid or tid is there: a number or a string (Perfetto's pid_exists). */
static int has_id(const jevent *ev, int field)
{
    return (ev->have & BIT(field)) && (ev->f[field].kind == JK_NUMBER || ev->f[field].kind == JK_STRING);
}

/* A pid or tid that is present and a number or a string; any other value counts as
 * absent, as in Perfetto, with a warning. */
static int valid_id(jr *r, const jevent *ev, int field)
{
    if (!(ev->have & BIT(field))) return 0;
    const jspan *s = &ev->f[field];
    if (s->kind == JK_NUMBER || s->kind == JK_STRING) return 1;
    sts_tl_warn(r->tl, "%s: event %llu (byte %llu): \"%s\" is %s, expected a number or a string; taken as absent",
                r->path, (unsigned long long)r->index, (unsigned long long)jr_offset(r, ev->start),
                field == F_PID ? "pid" : "tid", sts_jr_kind_name(s->kind));
    return 0;
}

/* pid or tid: its label and numeric value (INT64_MIN when the label is not a number). */
static int id_value(jr *r, const jevent *ev, int field, uint32_t *label, int64_t *value)
{
    const jspan *s = &ev->f[field];
    size_t n;
    const char *t = span_text(r, s, &n);
    if (!t) return T_NOMEM;
    if (s->kind == JK_NUMBER && s->is_int && s->fast)
        *value = s->neg ? -(int64_t)s->ip : (int64_t)s->ip;
    else
        *value = numeric_id(t, n);
    *label = sts_jr_intern_get(&r->strs, r->tl, t, n);
    return *label == STS_NONE ? T_NOMEM : T_OK;
}

static int event_process(jr *r, const jevent *ev, uint32_t *proc)
{
    uint32_t label;
    int64_t pid = 0;
    int named = 0;
    if (valid_id(r, ev, F_PID)) {
        int rc = id_value(r, ev, F_PID, &label, &pid);
        if (rc != T_OK) return rc;
        named = ev->f[F_PID].kind == JK_STRING;
    } else {
        label = sts_jr_intern_get(&r->strs, r->tl, "0", 1);
        if (label == STS_NONE) return T_NOMEM;
    }
    size_t before = r->tl->procs.n;
    *proc = sts_tl_process(r->tl, label, pid);
    if (*proc == STS_NONE) return T_NOMEM;
    /* Perfetto names a process after a pid written as a string. */
    if (named && r->tl->procs.n > before) r->tl->procs.v[*proc].name = label;
    return T_OK;
}

static int lane_key_eq(const jlane_key *k, const jevent *ev, int field)
{
    if (!(ev->have & BIT(field))) return k->kind == JK_NONE;
    const jspan *s = &ev->f[field];
    return k->kind == s->kind && k->esc == s->esc && k->n == s->n && json_eq(k->bytes, s->p, s->n);
}

static int lane_key_set(jlane_key *k, const jevent *ev, int field)
{
    if (!(ev->have & BIT(field))) {
        k->kind = JK_NONE;
        k->n = 0;
        return 1;
    }
    const jspan *s = &ev->f[field];
    if (s->n > JR_LANE_KEY) return 0;
    k->kind = s->kind;
    k->esc = s->esc;
    k->n = s->n;
    memcpy(k->bytes, s->p, s->n);
    return 1;
}

/* The first bytes of a pid or tid as written (spans lie in the padded buffer, so the
 * 8-byte load is safe), with its length and kind. */
static uint64_t lane_word(const jevent *ev, int field)
{
    if (!(ev->have & BIT(field))) return 0;
    const jspan *s = &ev->f[field];
    uint64_t w = json_load64(s->p);
    if (s->n < 8) w &= ((uint64_t)1 << (8 * s->n)) - 1;
    return w ^ ((uint64_t)s->n << 56) ^ ((uint64_t)s->kind << 48);
}

/* The lane map's key of an event whose pid and tid are both written as plain integers
 * (digits only, no leading zero) below 2^31; 0 for any other. Such a pair makes the same
 * lane every time (the labels are its digits, and nothing else decides), so the lane it
 * made once can be looked up by value. */
static uint64_t int_lane_key(const jevent *ev)
{
    if ((ev->have & (BIT(F_PID) | BIT(F_TID))) != (BIT(F_PID) | BIT(F_TID))) return 0;
    const jspan *p = &ev->f[F_PID], *t = &ev->f[F_TID];
    if (p->kind != JK_NUMBER || !p->is_int || !p->fast || p->neg || p->ip >= 0x80000000u || p->n != digits(p->ip))
        return 0;
    if (t->kind != JK_NUMBER || !t->is_int || !t->fast || t->neg || t->ip >= 0x80000000u || t->n != digits(t->ip))
        return 0;
    return (p->ip << 32 | t->ip) + 1;
}

/* Remembers the lane in the cache slot, for the events of the lane that come next. */
static void lane_cached(jlane_slot *slot, const jevent *ev, uint32_t lane)
{
    slot->lane = STS_NONE;
    if (lane_key_set(&slot->pid, ev, F_PID) && lane_key_set(&slot->tid, ev, F_TID)) slot->lane = lane;
}

static int event_lane(jr *r, const jevent *ev, uint32_t *lane)
{
    if (!r->lanes) {
        if (!(r->lanes = malloc(JR_LANES * sizeof *r->lanes))) return T_NOMEM;
        for (size_t i = 0; i < JR_LANES; i++)
            r->lanes[i].lane = STS_NONE;
    }
    if (r->lane_hint && *r->lane_hint) {
        *lane = *r->lane_hint - 1;
        return T_OK;
    }
    uint64_t h = lane_word(ev, F_PID) * 0x9e3779b97f4a7c15ull ^ lane_word(ev, F_TID) * 0xc2b2ae3d27d4eb4full;
    jlane_slot *slot = &r->lanes[(h ^ (h >> 29)) % JR_LANES];
    if (slot->lane != STS_NONE && lane_key_eq(&slot->pid, ev, F_PID) && lane_key_eq(&slot->tid, ev, F_TID)) {
        *lane = slot->lane;
        if (r->lane_hint) *r->lane_hint = *lane + 1;
        return T_OK;
    }
    uint64_t key = int_lane_key(ev);
    if (key && (*lane = sts_u64map_get(&r->lane_map, key)) != UINT32_MAX) {
        lane_cached(slot, ev, *lane);
        if (r->lane_hint) *r->lane_hint = *lane + 1;
        return T_OK;
    }
    uint32_t proc;
    int rc = event_process(r, ev, &proc);
    if (rc != T_OK) return rc;
    uint32_t label = 0;
    int64_t tid = 0;
    int have_tid = valid_id(r, ev, F_TID);
    if (have_tid) {
        rc = id_value(r, ev, F_TID, &label, &tid);
        if (rc != T_OK) return rc;
    }
    const sts_process *p = &r->tl->procs.v[proc];
    if ((!have_tid || tid == 0) && p->pid != 0) {
        label = p->label;
        tid = p->pid;
    } else if (!have_tid) {
        label = sts_jr_intern_get(&r->strs, r->tl, "0", 1);
        if (label == STS_NONE) return T_NOMEM;
    } else if (tid == INT64_MIN) {
        const sts_strtab *t = &r->tl->strings;
        tid = (int64_t)(sts_hash_bytes(sts_strtab_get(t, label), sts_strtab_len(t, label)) & 0x7fffffff);
    }
    size_t before = r->tl->lanes.n;
    *lane = sts_tl_lane(r->tl, proc, label, tid);
    if (*lane == STS_NONE) return T_NOMEM;
    /* Perfetto names a thread after a tid written as a string. */
    if (have_tid && ev->f[F_TID].kind == JK_STRING && r->tl->lanes.n > before) r->tl->lanes.v[*lane].name = label;
    lane_cached(slot, ev, *lane);
    if (key && sts_u64map_put(&r->lane_map, key, *lane) != 0) return T_NOMEM;
    if (r->lane_hint) *r->lane_hint = *lane + 1;
    return T_OK;
}

/* An optional string field as a string id (0 when absent). Any other value counts as
 * absent, as in Perfetto, with a warning. */
static int string_field(jr *r, const jevent *ev, int field, uint32_t *id)
{
    static const char *const names[F_COUNT] = {
        "ph", "name", "cat", "pid", "tid", "ts", "dur", "id", "id2", "s", "bp"
    };
    *id = 0;
    if (!(ev->have & BIT(field))) return T_OK;
    const jspan *s = &ev->f[field];
    if (s->kind != JK_STRING) {
        sts_tl_warn(r->tl, "%s: event %llu (byte %llu): \"%s\" is %s, expected a string; taken as absent", r->path,
                    (unsigned long long)r->index, (unsigned long long)jr_offset(r, ev->start), names[field],
                    sts_jr_kind_name(s->kind));
        return T_OK;
    }
    *id = r->fid1[field] ? r->fid1[field] - 1 : span_id(r, s); /* known when the parser took a learned value */
    return *id == STS_NONE ? T_NOMEM : T_OK;
}

/* What every stored event has; ts and its status come from sts_jr_commit_event(). */
typedef struct jhead {
    int64_t ts, dur;
    int whole, dwhole;
    int ts_rc, dur_rc; /* quiet_time() of "ts" and "dur", read once */
    time_why why, dur_why;
    uint32_t seq, lane, name, cat;
} jhead;

/* The lane, name and category of an event with a usable ts; T_REJECTED (with a
 * warning) when the ts is missing or unreadable. */
static int event_head(jr *r, const jevent *ev, char ph, jhead *h)
{
    if (h->ts_rc == T_ABSENT) {
        reject(r, ev, "'%c' event has no \"ts\"", ph);
        return T_REJECTED;
    }
    if (h->ts_rc == TM_BAD) return bad_time(r, ev, F_TS, h->why);
    if (h->ts_rc != T_OK) return h->ts_rc;
    int rc = event_lane(r, ev, &h->lane);
    if (rc == T_OK) rc = string_field(r, ev, F_NAME, &h->name);
    if (rc == T_OK) rc = string_field(r, ev, F_CAT, &h->cat);
    return rc;
}

/* The last check before an event is stored: its span [ts, end] must keep the trace's
 * span within int64 nanoseconds (two events at -9e15 and +9e15 us cannot both be). */
static int admit(jr *r, const jevent *ev, const jhead *h, int64_t end)
{
    if (sts_tl_admit_span(r->tl, h->ts, end) == 0) return T_OK;
    reject(r, ev,
           "ts %lld ns%s lies more than 2^63 - 1 ns from the other events (%lld to %lld ns); out of range for int64 "
           "nanoseconds",
           (long long)h->ts, end != h->ts ? " (or its end)" : "", (long long)r->tl->raw_lo, (long long)r->tl->raw_hi);
    return T_REJECTED;
}

/* The arg key's string id and whether the mode keeps it (1 or 0), or -1 when memory is
 * exhausted. A direct-mapped cache of recent keys answers without hashing. */
static int arg_key(jr *r, const jspan *k, uint32_t *id)
{
    jkey *slot = NULL;
    if (!k->esc && k->n && k->n <= JR_KEY_MAX) {
        const unsigned char *b = (const unsigned char *)k->p;
        unsigned h = (k->n * 67u + b[0] * 31u + b[k->n - 1] * 7u + b[k->n / 2]) & (JR_KEYS - 1);
        slot = &r->keys[h];
        if (slot->n == k->n && json_eq(slot->bytes, k->p, k->n)) {
            *id = slot->id;
            return slot->keep;
        }
    }
    size_t n;
    const char *t = span_text(r, k, &n);
    if (!t) return -1;
    *id = sts_jr_intern_get(&r->strs, r->tl, t, n);
    if (*id == STS_NONE) return -1;
    int keep = sts_args_mode_keeps(r->mode, t, n);
    if (slot) {
        slot->id = *id;
        slot->n = (uint8_t)k->n;
        slot->keep = (uint8_t)keep;
        memcpy(slot->bytes, k->p, k->n);
    }
    return keep;
}

static int arg_value(jr *r, const jspan *v, sts_arg *o)
{
    switch (v->kind) {
    case JK_STRING:
        o->type = STS_ARG_STRING;
        o->v.str = span_id(r, v);
        return o->v.str == STS_NONE ? -1 : 0;
    case JK_NUMBER:
        if (v->is_int && v->fast) {
            o->type = STS_ARG_INT;
            o->v.i = v->neg ? -(int64_t)v->ip : (int64_t)v->ip;
            return 0;
        }
        if (v->is_int && sts_jr_parse_int64(v->p, v->n, &o->v.i) == 0) {
            o->type = STS_ARG_INT;
            return 0;
        }
        if (sts_jr_parse_double(v->p, v->n, &o->v.d) == 0) {
            o->type = STS_ARG_DOUBLE;
            return 0;
        }
        break; /* beyond a double (1e400): kept as its JSON text */
    case JK_TRUE:
    case JK_FALSE:
        o->type = STS_ARG_BOOL;
        o->v.i = v->kind == JK_TRUE;
        return 0;
    case JK_NULL:
        o->type = STS_ARG_NULL;
        return 0;
    default:
        break;
    }
    o->type = STS_ARG_JSON;
    o->v.str = span_id(r, v);
    return o->v.str == STS_NONE ? -1 : 0;
}

/* Stores the args that the mode keeps; *first is STS_NONE when none. */
static int event_args(jr *r, const jevent *ev, uint32_t *first)
{
    *first = STS_NONE;
    if (r->mode == STS_ARGS_NONE || ev->nargs == 0) return T_OK;
    if (!r->keys && !(r->keys = calloc(JR_KEYS, sizeof *r->keys))) return T_NOMEM;
    if (sts_grow((void **)&r->out, &r->out_cap, ev->nargs, sizeof *r->out) != 0) return T_NOMEM;
    size_t k = 0;
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const jarg *a = &r->argv[i];
        uint32_t key;
        int keep;
        jpred *pr = a->pred >= 0 && r->args_chain.pool[a->pred].gen == a->gen ? &r->args_chain.pool[a->pred] : NULL;
        if (pr && pr->key != STS_NONE) {
            key = pr->key;
            keep = pr->keep;
        } else {
            keep = arg_key(r, &a->key, &key);
            if (keep < 0) return T_NOMEM;
            if (pr) {
                pr->key = key;
                pr->keep = (uint8_t)keep;
            }
        }
        if (!keep) continue;
        sts_arg *o = &r->out[k];
        memset(o, 0, sizeof *o);
        o->key = key;
        if (arg_value(r, &a->val, o) != 0) return T_NOMEM;
        k++;
    }
    if (k == 0) return T_OK;
    *first = sts_tl_add_args(r->tl, r->out, k);
    return *first == STS_NONE ? T_NOMEM : T_OK;
}

/* The arg named `key` (plain ASCII), or NULL. */
static const jarg *find_arg(jr *r, const jevent *ev, const char *key)
{
    size_t kn = strlen(key);
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const jarg *a = &r->argv[i];
        size_t n;
        const char *t = span_text(r, &a->key, &n);
        if (t && n == kn && memcmp(t, key, n) == 0) return a;
    }
    return NULL;
}

static int done(int rc)
{
    return rc == T_NOMEM ? -1 : 0;
}

/* A name for a slice Perfetto names "[No name]" when it has none (B, X, b). */
static int slice_name(jr *r, jhead *h)
{
    if (h->name == 0 && (h->name = sts_tl_no_name(r->tl)) == STS_NONE) return T_NOMEM;
    return T_OK;
}

static int commit_slice(jr *r, const jevent *ev, char ph, jhead *h)
{
    int rc = event_head(r, ev, ph, h);
    if (rc != T_OK) return done(rc);
    int64_t dur = -1, end = h->ts;
    int dwhole = 1;
    if (ph == 'X') {
        rc = h->dur_rc == TM_BAD ? bad_time(r, ev, F_DUR, h->dur_why) : h->dur_rc;
        if (rc == T_ABSENT) return reject(r, ev, "'X' event has no \"dur\""), 0;
        if (rc != T_OK) return done(rc);
        dur = h->dur;
        dwhole = h->dwhole;
        if (dur < 0)
            return reject(r, ev, "'X' event has a negative \"dur\" (%.*s us)", shown(&ev->f[F_DUR]), ev->f[F_DUR].p), 0;
        if (__builtin_add_overflow(h->ts, dur, &end))
            return reject(r, ev, "ts %lld ns + dur %lld ns does not fit in int64 nanoseconds; out of range",
                          (long long)h->ts, (long long)dur),
                   0;
    }
    if ((rc = admit(r, ev, h, end)) != T_OK || (rc = slice_name(r, h)) != T_OK) return done(rc);
    uint32_t args;
    if (event_args(r, ev, &args) != T_OK) return -1;
    sts_slice *s = STS_VEC_PUSH(r->tl->slices);
    if (!s) return -1;
    s->ts = h->ts;
    s->dur = dur;
    s->name = h->name;
    s->lane = h->lane;
    s->parent = h->seq;
    s->args = args;
    s->cat = h->cat;
    s->flags = ph == 'B' ? STS_SLICE_FROM_BE : 0;
    sts_tl_note_resolution(r->tl, h->whole && dwhole);
    return 0;
}

static int commit_end(jr *r, const jevent *ev, jhead *h)
{
    int rc = event_head(r, ev, 'E', h);
    if (rc == T_OK) rc = admit(r, ev, h, h->ts);
    if (rc != T_OK) return done(rc);
    sts_end_event *x = STS_VEC_PUSH(r->tl->ends);
    if (!x) return -1;
    x->ts = h->ts;
    x->lane = h->lane;
    x->seq = h->seq;
    x->name = h->name;
    x->cat = h->cat;
    sts_tl_note_resolution(r->tl, h->whole);
    return 0;
}

/* "s": "g" or "p"; anything else (or nothing) is a thread instant, as in Perfetto. */
static char instant_scope(const jevent *ev)
{
    const jspan *s = &ev->f[F_S];
    if ((ev->have & BIT(F_S)) && s->kind == JK_STRING && s->n == 1 && (s->p[0] == 'g' || s->p[0] == 'p'))
        return s->p[0];
    return 't';
}

static int commit_instant(jr *r, const jevent *ev, char ph, jhead *h)
{
    int rc = event_head(r, ev, ph, h);
    if (rc != T_OK) return done(rc);
    char scope = instant_scope(ev);
    /* Perfetto refuses a thread instant without a tid and a process one without a pid
     * (json_parser_failure): there is no track to put it on. */
    if (scope == 't' && !has_id(ev, F_TID)) return reject(r, ev, "thread-scoped '%c' event has no \"tid\"", ph), 0;
    if (scope == 'p' && !has_id(ev, F_PID)) return reject(r, ev, "process-scoped '%c' event has no \"pid\"", ph), 0;
    if ((rc = admit(r, ev, h, h->ts)) != T_OK) return done(rc);
    uint32_t args;
    if (event_args(r, ev, &args) != T_OK) return -1;
    sts_instant *x = STS_VEC_PUSH(r->tl->instants);
    if (!x) return -1;
    x->ts = h->ts;
    x->name = h->name;
    x->cat = h->cat;
    x->lane = h->lane;
    x->args = args;
    x->seq = h->seq;
    x->scope = scope;
    sts_tl_note_resolution(r->tl, h->whole);
    return 0;
}

/* A counter value: a number, or a string strtod reads whole (Perfetto takes " 7",
 * "+1.5", "inf" and "0x10" too). */
static int counter_value(jr *r, const jspan *v, double *out)
{
    if (v->kind == JK_NUMBER) return sts_jr_parse_double(v->p, v->n, out) == 0 ? 1 : -1;
    if (v->kind != JK_STRING) return 0;
    size_t n;
    const char *t = span_text(r, v, &n);
    char buf[64];
    if (!t || n == 0 || n >= sizeof buf || memchr(t, 0, n)) return 0;
    memcpy(buf, t, n);
    buf[n] = 0;
    char *e;
    *out = strtod(buf, &e);
    return *e == 0 ? 1 : 0;
}

static int commit_counter(jr *r, const jevent *ev, jhead *h)
{
    int rc = event_head(r, ev, 'C', h);
    if (rc == T_OK) rc = admit(r, ev, h, h->ts);
    if (rc != T_OK) return done(rc);
    uint32_t id = 0;
    if ((ev->have & BIT(F_ID)) && (ev->f[F_ID].kind == JK_STRING || ev->f[F_ID].kind == JK_NUMBER) &&
        (id = span_id(r, &ev->f[F_ID])) == STS_NONE)
        return -1;
    for (uint32_t i = 0; i < ev->nargs; i++) {
        const jarg *a = &r->argv[i];
        double v;
        int ok = counter_value(r, &a->val, &v);
        if (ok == 0) continue; /* Perfetto plots numbers only (json_parser_failure) */
        if (ok < 0) {
            sts_tl_warn(r->tl, "%s: event %llu (byte %llu): counter value %.*s is out of range; series skipped",
                        r->path, (unsigned long long)r->index, (unsigned long long)jr_offset(r, ev->start),
                        shown(&a->val), a->val.p);
            continue;
        }
        uint32_t series = span_id(r, &a->key);
        if (series == STS_NONE) return -1;
        sts_counter *c = STS_VEC_PUSH(r->tl->counters);
        if (!c) return -1;
        c->ts = h->ts;
        c->value = v;
        c->name = h->name;
        c->series = series;
        c->lane = h->lane;
        c->id = id;
    }
    sts_tl_note_resolution(r->tl, h->whole);
    return 0;
}

static int name_is(jr *r, const jevent *ev, const char *want)
{
    if (!(ev->have & BIT(F_NAME)) || ev->f[F_NAME].kind != JK_STRING) return 0;
    size_t n;
    const char *t = span_text(r, &ev->f[F_NAME], &n);
    return t && n == strlen(want) && memcmp(t, want, n) == 0;
}

/* stepscope's completion record (base/completion.h): checked at the end of the file. */
static int note_completion(jr *r, const jevent *ev)
{
    size_t n;
    const char *t = ev->have & BIT(F_NAME) && ev->f[F_NAME].kind == JK_STRING ? span_text(r, &ev->f[F_NAME], &n) : NULL;
    if (t) sts_completion_note_name(&r->done, t, n);
    return 0;
}

static int commit_meta(jr *r, const jevent *ev)
{
    int process_level;
    const char *key;
    if (name_is(r, ev, "process_name"))
        process_level = 1, key = "name";
    else if (name_is(r, ev, "thread_name"))
        process_level = 0, key = "name";
    else if (name_is(r, ev, "process_sort_index"))
        process_level = 1, key = "sort_index";
    else if (name_is(r, ev, "thread_sort_index"))
        process_level = 0, key = "sort_index";
    else
        return note_completion(r, ev); /* other metadata is counted in by_phase only */
    const jarg *a = find_arg(r, ev, key);
    int is_name = key[0] == 'n';
    if (!a || a->val.kind != (is_name ? JK_STRING : JK_NUMBER)) return 0;
    uint32_t where;
    int rc = process_level ? event_process(r, ev, &where) : event_lane(r, ev, &where);
    if (rc != T_OK) return done(rc);
    if (is_name) {
        uint32_t id = span_id(r, &a->val);
        if (id == STS_NONE) return -1;
        if (process_level)
            r->tl->procs.v[where].name = id;
        else
            r->tl->lanes.v[where].name = id;
    } else {
        double d;
        if (sts_jr_parse_double(a->val.p, a->val.n, &d) != 0 || d < INT32_MIN || d > INT32_MAX) return 0;
        if (process_level)
            r->tl->procs.v[where].sort_index = (int32_t)d;
        else
            r->tl->lanes.v[where].sort_index = (int32_t)d;
    }
    return 0;
}

/* An id value Perfetto takes: a string, or an integer that fits in int64. */
static uint8_t id_kind_of(const jspan *v)
{
    if (v->kind == JK_STRING) return 1;
    int64_t x;
    if (v->kind == JK_NUMBER && v->is_int && (v->fast || sts_jr_parse_int64(v->p, v->n, &x) == 0)) return 2;
    return 0;
}

/* The "local" or "global" id inside an id2 object (already checked JSON): the last of
 * each wins, and "global" beats "local", as in Perfetto. */
static int id2_of(jr *r, const jspan *obj, jspan *local, jspan *global)
{
    const char *p = obj->p + 1, *e = obj->p + obj->n;
    local->kind = global->kind = JK_NONE;
    for (;;) {
        p = json_ws(p);
        if (p >= e || *p != '"') return 0;
        int esc = 0;
        const char *q = json_scan_string(p + 1, e, &esc, &r->fail);
        if (!q) return 0;
        size_t kn = (size_t)(q - p - 1);
        char kbuf[8];
        const char *k = p + 1;
        if (esc && kn <= 6 * sizeof kbuf) {
            char tmp[6 * sizeof kbuf];
            kn = sts_jr_unescape(k, kn, tmp);
            if (kn > sizeof kbuf)
                kn = sizeof kbuf + 1;
            else
                memcpy(kbuf, tmp, kn);
            k = kbuf;
        }
        jspan *slot = kn == 5 && memcmp(k, "local", 5) == 0    ? local
                      : kn == 6 && memcmp(k, "global", 6) == 0 ? global
                                                               : NULL;
        p = json_ws(json_ws(q + 1) + 1); /* past ':' */
        jspan v;
        memset(&v, 0, sizeof v);
        v.p = p;
        if (*p == '"') {
            esc = 0;
            q = json_scan_string(p + 1, e, &esc, &r->fail);
            if (!q) return 0;
            v.p = p + 1, v.n = (uint32_t)(q - p - 1), v.kind = JK_STRING, v.esc = (uint8_t)esc;
            p = q + 1;
        } else if (*p == '-' || json_is_digit(*p)) {
            int is_int;
            q = json_scan_number(p, &is_int, &r->fail);
            if (!q) return 0;
            v.n = (uint32_t)(q - p), v.kind = JK_NUMBER, v.is_int = (uint8_t)is_int;
            p = q;
        } else {
            q = sts_jr_skip_value(r, p, e);
            if (!q) return 0;
            p = q;
        }
        if (slot) *slot = v;
        p = json_ws(p);
        if (*p != ',') return 0;
        p++;
    }
}

/* The id of an async event as Perfetto's cookie reads it: "id" when it is a string or
 * an integer, else id2's "global" or "local" id. */
static int event_id(jr *r, const jevent *ev, uint32_t *id, uint8_t *kind)
{
    *id = 0;
    *kind = STS_ASYNC_ID_NONE;
    const jspan *v = NULL;
    jspan local, global;
    uint8_t k = (ev->have & BIT(F_ID)) ? id_kind_of(&ev->f[F_ID]) : 0;
    if (k) {
        v = &ev->f[F_ID];
        *kind = k == 1 ? STS_ASYNC_ID_STRING : STS_ASYNC_ID_NUMBER;
    } else if ((ev->have & BIT(F_ID2)) && ev->f[F_ID2].kind == JK_OBJECT) {
        id2_of(r, &ev->f[F_ID2], &local, &global);
        if ((k = id_kind_of(&global)) != 0) {
            v = &global;
            *kind = k == 1 ? STS_ASYNC_ID_GLOBAL_STRING : STS_ASYNC_ID_GLOBAL_NUMBER;
        } else if ((k = id_kind_of(&local)) != 0) {
            v = &local;
            *kind = k == 1 ? STS_ASYNC_ID_LOCAL_STRING : STS_ASYNC_ID_LOCAL_NUMBER;
        }
    }
    if (!v) return T_OK;
    *id = span_id(r, v);
    return *id == STS_NONE ? T_NOMEM : T_OK;
}

static int commit_async(jr *r, const jevent *ev, char ph, jhead *h)
{
    int rc = event_head(r, ev, ph, h);
    if (rc != T_OK) return done(rc);
    uint32_t id;
    uint8_t kind;
    if (event_id(r, ev, &id, &kind) != T_OK) return -1;
    /* Perfetto refuses b, e and n without a pid or an id (json_parser_failure): there is
     * no async track to put them on. Legacy S, T, F and p make no slices there. */
    if (ph == 'b' || ph == 'e' || ph == 'n') {
        if (!has_id(ev, F_PID)) return reject(r, ev, "async '%c' event has no \"pid\"", ph), 0;
        if (kind == STS_ASYNC_ID_NONE)
            return reject(r, ev, "async '%c' event has no usable \"id\" or \"id2\" (a string or an integer)", ph), 0;
    }
    if ((rc = admit(r, ev, h, h->ts)) != T_OK) return done(rc);
    uint32_t args;
    if (event_args(r, ev, &args) != T_OK) return -1;
    sts_async *x = STS_VEC_PUSH(r->tl->asyncs);
    if (!x) return -1;
    x->ts = h->ts;
    x->name = h->name;
    x->cat = h->cat;
    x->id = id;
    x->id_kind = kind;
    x->lane = h->lane;
    x->args = args;
    x->seq = h->seq;
    x->phase = ph;
    sts_tl_note_resolution(r->tl, h->whole);
    return 0;
}

static int commit_flow(jr *r, const jevent *ev, char ph, jhead *h)
{
    int rc = event_head(r, ev, ph, h);
    if (rc == T_OK) rc = admit(r, ev, h, h->ts);
    if (rc != T_OK) return done(rc);
    r->tl->info.flows++;
    if (r->tl->count_flows) {
        sts_tl_note_resolution(r->tl, h->whole);
        return 0;
    }
    uint32_t id = 0;
    if (ev->have & BIT(F_ID))
        id = span_id(r, &ev->f[F_ID]);
    else if (ev->have & BIT(F_ID2))
        id = span_id(r, &ev->f[F_ID2]);
    if (id == STS_NONE) return -1;
    const jspan *bp = &ev->f[F_BP];
    sts_flow *x = STS_VEC_PUSH(r->tl->flows);
    if (!x) return -1;
    x->ts = h->ts;
    x->name = h->name;
    x->cat = h->cat;
    x->id = id;
    x->lane = h->lane;
    x->phase = ph;
    x->bind_enclosing = (ev->have & BIT(F_BP)) && bp->kind == JK_STRING && bp->n == 1 && bp->p[0] == 'e';
    sts_tl_note_resolution(r->tl, h->whole);
    return 0;
}

/* Tells the model's sorter simulation about the event when Perfetto's tokenizer would
 * push it to its sorter: a phase (not P), a readable ts (an M without one counts as 0),
 * a readable dur when there is one, and ts >= 0. */
static void sorter_push(jr *r, const jevent *ev, unsigned char ph, const jhead *h)
{
    if (!ph || ph == 'P') return;
    int64_t ts = h->ts;
    if (h->ts_rc != T_OK) {
        if (ph != 'M') return;
        ts = 0;
    }
    if (h->dur_rc != T_OK && h->dur_rc != T_ABSENT) return;
    if (ts >= 0) sts_tl_sorter_push(r->tl, ts, h->seq, ph == 'X');
}

int sts_jr_commit_event(jr *r, const jevent *ev)
{
    sts_timeline_info *info = &r->tl->info;
    jhead h;
    memset(&h, 0, sizeof h);
    h.seq = (uint32_t)info->events;
    info->events++;
    unsigned char ph = 0;
    if (ev->have & BIT(F_PH)) {
        const jspan *s = &ev->f[F_PH];
        if (s->kind != JK_STRING) return reject(r, ev, "\"ph\" is %s, expected a string", sts_jr_kind_name(s->kind)), 0;
        size_t n;
        const char *t = span_text(r, s, &n);
        if (!t) return -1;
        if (n >= 1) ph = (unsigned char)t[0]; /* Perfetto reads the first character: "XXX" is X */
    }
    if (ph && ph < 128) info->by_phase[ph]++;
    h.ts_rc = quiet_time(r, ev, F_TS, &h.ts, &h.whole, &h.why);
    h.dur_rc = quiet_time(r, ev, F_DUR, &h.dur, &h.dwhole, &h.dur_why);
    if (h.ts_rc == T_NOMEM || h.dur_rc == T_NOMEM) return -1;
    sorter_push(r, ev, ph, &h);
    switch (ph) {
    case 'X':
    case 'B':
        return commit_slice(r, ev, (char)ph, &h);
    case 'E':
        return commit_end(r, ev, &h);
    case 'i':
    case 'I':
    case 'R':
        return commit_instant(r, ev, (char)ph, &h);
    case 'C':
        return commit_counter(r, ev, &h);
    case 'M':
        return commit_meta(r, ev);
    case 'b':
    case 'e':
    case 'n':
    case 'S':
    case 'T':
    case 'F':
    case 'p':
        return commit_async(r, ev, (char)ph, &h);
    case 's':
    case 't':
    case 'f':
        return commit_flow(r, ev, (char)ph, &h);
    default:
        info->skipped++;
        return 0;
    }
}

void sts_jr_release(jr *r)
{
    free(r->buf);
    free(r->argv);
    free(r->out);
    free(r->tmp);
    free(r->keys);
    free(r->lanes);
    sts_u64map_release(&r->lane_map);
    sts_jr_skip_release(&r->skip);
    sts_jr_intern_release(&r->strs);
}
