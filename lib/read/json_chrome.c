/* Chrome trace-event JSON reader: the buffer and the file's top-level structure.
 *
 * The input is read in CHUNK-sized pieces into one buffer. Events are parsed in place
 * (json_event.c); when one runs past the end of the buffer, the bytes from its start
 * are moved to the front, the buffer is refilled (doubled first if the event fills
 * more than half of it), and the event is parsed again. Other top-level values (say a
 * 100 MB "stackFrames" object) go through the resumable skipper, chunk by chunk.
 *
 * Nesting has no depth limit: values are skipped and validated with a loop and a bit
 * stack, never by recursion, and an arg nested 10,000 deep is kept (STS_ARGS_ALL) as
 * its raw JSON text. Only a single event larger than MAX_EVENT is refused. */
#include <stdio.h>
#include <stdlib.h>

#include "base/threads.h"
#include "read/json_chrome.h"

#define CHUNK         ((size_t)128 << 10) /* stays in L2: reads then cost no DRAM write-back */
#define MAX_EVENT     ((size_t)1 << 30)
#define PROGRESS_STEP ((uint64_t)4 << 20)
#define FEED_WINDOW   ((uint64_t)8 << 20) /* inflated bytes kept ahead of the reader */
#define PROBE         ((uint64_t)2 << 20) /* read by one thread before chunks may take over */

static void describe(const jr *r, const char *at, char *buf, size_t n)
{
    if (at >= r->buf + r->len)
        snprintf(buf, n, "the end of the file");
    else if (*at == 0)
        snprintf(buf, n, "a NUL byte");
    else if ((unsigned char)*at >= 0x20 && (unsigned char)*at < 0x7f)
        snprintf(buf, n, "'%c'", *at);
    else
        snprintf(buf, n, "byte 0x%02x", (unsigned char)*at);
}

static sts_status syntax_error(jr *r, const top *t, const char *at, const char *expected)
{
    char found[32];
    describe(r, at, found, sizeof found);
    int in_events = t->st >= ST_ARR_FIRST && t->st <= ST_ARR_AFTER;
    if (in_events) {
        sts_error_set(r->err, STS_ERR_PARSE, (int64_t)jr_offset(r, at),
                      "%s: byte %llu (event %llu): expected %s, found %s", r->path,
                      (unsigned long long)jr_offset(r, at), (unsigned long long)r->index, expected, found);
        if (r->err) r->err->event_index = (int64_t)r->index;
    } else {
        sts_error_set(r->err, STS_ERR_PARSE, (int64_t)jr_offset(r, at), "%s: byte %llu: expected %s, found %s", r->path,
                      (unsigned long long)jr_offset(r, at), expected, found);
    }
    return STS_ERR_PARSE;
}

static sts_status nomem(jr *r)
{
    return sts_error_set(r->err, STS_ERR_NOMEM, (int64_t)r->base, "%s: out of memory after %llu events", r->path,
                         (unsigned long long)r->tl->info.events);
}

void sts_jr_chain_init(jchain *c)
{
    memset(c, 0, sizeof *c);
    c->alloc = 2;
    for (int i = 0; i < JR_POOL; i++) {
        c->pool[i].next[0] = c->pool[i].next[1] = JR_NO_PRED;
        c->pool[i].key = STS_NONE;
    }
}

/* Lets the inflating thread drop what neither this reader nor a chunk worker needs. */
static void release(jr *r)
{
    uint64_t low = sts_jr_par_low(r);
    sts_jr_feed_release(r->feed, r->base < low ? r->base : low);
}

/* Keeps buf[keep, len), reads more after it. */
static sts_status refill(jr *r, top *t, size_t keep)
{
    size_t rem = r->len - keep;
    if (keep) memmove(r->buf, r->buf + keep, rem);
    r->base += keep;
    r->len = rem;
    size_t data_cap = r->cap - JSON_PAD;
    if (rem > data_cap / 2) {
        /* One event (or key) fills half the buffer: double it so the event fits. */
        if (data_cap >= MAX_EVENT)
            return sts_error_set(
                r->err, STS_ERR_LIMIT, (int64_t)r->base,
                "%s: byte %llu (event %llu): an event larger than %zu MiB; not a trace this reader takes", r->path,
                (unsigned long long)r->base, (unsigned long long)r->index, MAX_EVENT >> 20);
        size_t cap = data_cap * 2 + JSON_PAD;
        char *buf = realloc(r->buf, cap);
        if (!buf) return nomem(r);
        r->buf = buf;
        r->cap = cap;
    }
    size_t room = r->cap - JSON_PAD - r->len;
    long got = r->range ? sts_jr_range_read(r->range, r->buf + r->len, room, r->path, r->err)
                        : sts_instream_read(r->in, r->buf + r->len, room, r->err);
    if (got < 0) {
        r->input_failed = 1;
        return r->err ? r->err->code : STS_ERR_IO;
    }
    if (got == 0) r->eof = 1;
    r->len += (size_t)got;
    memset(r->buf + r->len, 0, JSON_PAD);
    if (r->range && !r->feed) return STS_OK; /* a chunk worker: the coordinator reports progress */
    if (r->feed) release(r);
    uint64_t raw = r->feed ? sts_jr_feed_raw(r->feed) : sts_instream_raw_offset(r->in);
    if (raw >= t->next_progress) {
        t->next_progress = raw + PROGRESS_STEP;
        if (r->progress) r->progress(raw, sts_instream_raw_size(r->in), r->progress_user);
    }
    return STS_OK;
}

static int is_key(const char *k, size_t n, int esc, const char *want)
{
    size_t wn = strlen(want);
    if (!esc) return n == wn && memcmp(k, want, n) == 0;
    char buf[32];
    if (n > sizeof buf) return 0;
    size_t m = sts_jr_unescape(k, n, buf);
    return m == wn && memcmp(buf, want, m) == 0;
}

static sts_status store_time_unit(jr *r, const char *s, size_t n, int esc)
{
    char buf[64];
    if (esc) {
        if (n > sizeof buf) return STS_OK; /* no unit is that long */
        n = sts_jr_unescape(s, n, buf);
        s = buf;
    }
    uint32_t id = sts_jr_intern_get(&r->strs, r->tl, s, n);
    if (id == STS_NONE) return nomem(r);
    r->tl->info.display_time_unit = sts_strtab_get(&r->tl->strings, id);
    return STS_OK;
}

/* At the end of the input: done, empty, or truncated (a warning, not an error). */
static sts_status at_eof(jr *r, const top *t, const char *keep)
{
    if (t->st == ST_END) return STS_OK;
    if (t->st == ST_START)
        return sts_error_set(r->err, STS_ERR_PARSE, (int64_t)r->base + (int64_t)r->len,
                             "%s: empty file, expected a JSON array or object", r->path);
    sts_timeline *tl = r->tl;
    tl->info.truncated = 1;
    uint64_t end = r->base + r->len;
    int in_events = t->st >= ST_ARR_FIRST && t->st <= ST_ARR_AFTER;
    if (in_events && keep < r->buf + r->len)
        sts_tl_warn(tl,
                    "%s: truncated: the file ends at byte %llu inside event %llu (which starts at byte %llu); "
                    "the %llu complete events before it were imported",
                    r->path, (unsigned long long)end, (unsigned long long)r->index,
                    (unsigned long long)jr_offset(r, keep), (unsigned long long)tl->info.events);
    else if (in_events)
        sts_tl_warn(tl,
                    "%s: truncated: the file ends at byte %llu before the closing ']' of the events; all %llu "
                    "complete events were imported",
                    r->path, (unsigned long long)end, (unsigned long long)tl->info.events);
    else
        sts_tl_warn(tl,
                    "%s: truncated: the file ends at byte %llu inside the top-level object%s; %llu events were "
                    "imported",
                    r->path, (unsigned long long)end, t->saw_events ? "" : ", before any \"traceEvents\"",
                    (unsigned long long)tl->info.events);
    return STS_OK;
}

/* Reads the top-level object's next key and the start of its value. Returns the new
 * position, or NULL with *keep set (need more) or *rc set (error). */
static const char *object_key(jr *r, top *t, const char *p, const char *e, const char **keep, sts_status *rc)
{
    const char *start = p;
    if (*p != '"') {
        if (p >= e) return *keep = start, NULL;
        *rc = syntax_error(r, t, p, t->st == ST_OBJ_FIRST ? "a string key or '}'" : "a string key");
        return NULL;
    }
    const char *k = p + 1;
    int esc = 0;
    const char *q = json_scan_string(k, e, &esc, &r->fail);
    if (!q) {
        if (r->fail.at >= e) return *keep = start, NULL;
        *rc = syntax_error(r, t, r->fail.at, r->fail.expected);
        return NULL;
    }
    size_t kn = (size_t)(q - k);
    p = json_ws(q + 1);
    if (*p != ':') {
        if (p >= e) return *keep = start, NULL;
        *rc = syntax_error(r, t, p, "':' after an object key");
        return NULL;
    }
    p = json_ws(p + 1);
    if (p >= e) return *keep = start, NULL;
    if (is_key(k, kn, esc, "traceEvents")) {
        if (*p != '[') {
            char found[32];
            describe(r, p, found, sizeof found);
            *rc = sts_error_set(r->err, STS_ERR_FORMAT, (int64_t)jr_offset(r, p),
                                "%s: byte %llu: expected '[' to start the \"traceEvents\" array, found %s", r->path,
                                (unsigned long long)jr_offset(r, p), found);
            return NULL;
        }
        t->saw_events = 1;
        t->in_object = 1;
        t->st = ST_ARR_FIRST;
        return p + 1;
    }
    if (is_key(k, kn, esc, "displayTimeUnit") && *p == '"') {
        int vesc = 0;
        const char *v = p + 1;
        const char *vq = json_scan_string(v, e, &vesc, &r->fail);
        if (!vq) {
            if (r->fail.at >= e) return *keep = start, NULL;
            *rc = syntax_error(r, t, r->fail.at, r->fail.expected);
            return NULL;
        }
        *rc = store_time_unit(r, v, (size_t)(vq - v), vesc);
        if (*rc != STS_OK) return NULL;
        t->st = ST_OBJ_AFTER;
        return vq + 1;
    }
    /* A trace whose producer wrote exact times and already applied the rounding
     * tolerance (stepscope's cut) says so; its value is skipped as any other. */
    if (is_key(k, kn, esc, "stepscope_exact_times") && *p == 't') r->tl->exact_times = 1;
    sts_jr_skip_start(&r->skip);
    t->st = ST_OBJ_SKIP;
    return p;
}

/* Where the events array ends: after the top-level object's value, or the end. */
static void events_closed(top *t)
{
    t->st = t->in_object ? ST_OBJ_AFTER : ST_END;
}

/* The events array: the hot loop. */
static const char *events(jr *r, top *t, const char *p, const char *e, const char **keep, sts_status *rc)
{
    jevent ev;
    for (;;) {
        p = json_ws(p);
        if (jr_offset(r, p) >= r->stop_at && p < e) { /* a chunk boundary (json_par.c) */
            r->stopped = 1;
            return *keep = p, NULL;
        }
        if (*p == '{') {
            const char *q = r->reference ? sts_jr_parse_event(r, p, e, &ev) : sts_jr_shape_event(r, p, e, &ev);
            /* Where the fast parser stops short of the data's end, the reference parser
             * takes over: it words the error (they fail at the same byte), and it is
             * the one trusted should they ever disagree. */
            if (!q && !r->nomem && r->fail.at < e && !r->reference) {
                r->fid1[F_NAME] = r->fid1[F_CAT] = 0; /* the fast parser's, for an event now parsed again */
                q = sts_jr_parse_event(r, p, e, &ev);
            }
            if (!q) {
                if (r->nomem) return *rc = nomem(r), NULL;
                if (r->fail.at >= e) return *keep = p, NULL;
                *rc = syntax_error(r, t, r->fail.at, r->fail.expected);
                return NULL;
            }
            /* An empty object ends JAX's event arrays: not an event. */
            if ((ev.have || ev.nargs || q - p > 2) && sts_jr_commit_event(r, &ev) != 0) return *rc = nomem(r), NULL;
            r->index++;
            if (r->worker && (r->tl->warnings_total || r->tl->info.by_phase['M'])) {
                /* A chunk with a warning or metadata goes to the serial reader: stop now. */
                r->spoiled = r->stopped = 1;
                return *keep = q, NULL;
            }
            p = json_ws(q);
            if (*p == ',') {
                p++;
                continue;
            }
            if (*p == ']') {
                events_closed(t);
                return p + 1;
            }
            t->st = ST_ARR_AFTER;
            if (p >= e) return *keep = p, NULL;
            *rc = syntax_error(r, t, p, "',' or ']' after an event");
            return NULL;
        }
        if (*p == ']') { /* after a trailing comma, which Chrome's own writer leaves */
            events_closed(t);
            return p + 1;
        }
        if (p >= e) return *keep = p, NULL;
        static const char kinds[] = "\"-0123456789tfn[";
        const char *k = memchr(kinds, *p, sizeof kinds - 1);
        int kind = !k                       ? JK_NONE
                   : *k == '"'              ? JK_STRING
                   : *k == '['              ? JK_ARRAY
                   : *k == 't' || *k == 'f' ? JK_TRUE
                   : *k == 'n'              ? JK_NULL
                                            : JK_NUMBER;
        if (kind != JK_NONE)
            sts_tl_warn(r->tl, "%s: event %llu (byte %llu): %s in the events array, expected an object; skipped",
                        r->path, (unsigned long long)r->index, (unsigned long long)jr_offset(r, p),
                        sts_jr_kind_name(kind));
        sts_jr_skip_start(&r->skip);
        t->st = ST_ARR_SKIP;
        return p;
    }
}

/* Runs the top-level state machine over the buffer. Returns NULL with *keep set when
 * it needs more input, or with *rc set when done or failed. */
static void run(jr *r, top *t, const char *p, const char **keep, sts_status *rc)
{
    const char *e = r->buf + r->len;
    *keep = NULL;
    for (;;) {
        const char *stop;
        if (r->worker && (t->st < ST_ARR_FIRST || t->st > ST_ARR_AFTER)) { /* a chunk's array ended */
            r->stopped = 1;
            return (void)(*keep = p);
        }
        switch (t->st) {
        case ST_START:
            if (r->base == 0 && p == r->buf && (unsigned char)p[0] == 0xef) {
                if (e - p < 3 && !r->eof) return (void)(*keep = p);
                if ((unsigned char)p[1] == 0xbb && (unsigned char)p[2] == 0xbf) p += 3; /* UTF-8 byte order mark */
            }
            p = json_ws(p);
            if (p >= e) return (void)(*keep = p);
            if (*p == '[')
                t->st = ST_ARR_FIRST;
            else if (*p == '{')
                t->st = ST_OBJ_FIRST;
            else
                return (void)(*rc = syntax_error(r, t, p, "a JSON array or object"));
            p++;
            break;
        case ST_OBJ_FIRST:
            p = json_ws(p);
            if (*p == '}') {
                p++;
                t->st = ST_END;
                return (void)(*rc = sts_error_set(r->err, STS_ERR_FORMAT, (int64_t)jr_offset(r, p),
                                                  "%s: the top-level object has no \"traceEvents\"; not a Chrome trace",
                                                  r->path));
            }
            p = object_key(r, t, p, e, keep, rc);
            if (!p) return;
            break;
        case ST_OBJ_KEY:
            p = object_key(r, t, json_ws(p), e, keep, rc);
            if (!p) return;
            break;
        case ST_OBJ_SKIP:
        case ST_ARR_SKIP:
            switch (sts_jr_skip_feed(&r->skip, p, e, &stop, &r->fail)) {
            case JSON_SKIP_DONE:
                p = stop;
                if (t->st == ST_ARR_SKIP) r->index++;
                t->st = t->st == ST_OBJ_SKIP ? ST_OBJ_AFTER : ST_ARR_AFTER;
                break;
            case JSON_SKIP_MORE:
                return (void)(*keep = e);
            case JSON_SKIP_ERROR:
                return (void)(*rc = syntax_error(r, t, stop, r->fail.expected));
            default:
                return (void)(*rc = nomem(r));
            }
            break;
        case ST_OBJ_AFTER:
            p = json_ws(p);
            if (*p == ',') {
                t->st = ST_OBJ_KEY;
            } else if (*p == '}') {
                t->st = ST_END;
                if (!t->saw_events)
                    return (void)(*rc = sts_error_set(r->err, STS_ERR_FORMAT, (int64_t)jr_offset(r, p),
                                                      "%s: the top-level object has no \"traceEvents\"; not a "
                                                      "Chrome trace",
                                                      r->path));
            } else if (p >= e) {
                return (void)(*keep = p);
            } else {
                return (void)(*rc = syntax_error(r, t, p, "',' or '}' after a value in the top-level object"));
            }
            p++;
            break;
        case ST_ARR_FIRST:
            p = json_ws(p);
            if (*p == ']') {
                t->st = t->in_object ? ST_OBJ_AFTER : ST_END;
                p++;
            } else if (p >= e) {
                return (void)(*keep = p);
            } else {
                t->st = ST_ARR_ELEM;
            }
            break;
        case ST_ARR_ELEM:
            p = events(r, t, p, e, keep, rc);
            if (!p) return;
            break;
        case ST_ARR_AFTER:
            p = json_ws(p);
            if (*p == ',') {
                t->st = ST_ARR_ELEM;
            } else if (*p == ']') {
                t->st = t->in_object ? ST_OBJ_AFTER : ST_END;
            } else if (p >= e) {
                return (void)(*keep = p);
            } else {
                return (void)(*rc = syntax_error(r, t, p, "',' or ']' after an event"));
            }
            p++;
            break;
        default: /* ST_END */
            p = json_ws(p);
            if (p >= e) return (void)(*keep = p);
            return (void)(*rc = syntax_error(r, t, p, "the end of the file after the top-level value"));
        }
    }
}

int sts_jr_init(jr *r, sts_instream *in, const char *path, sts_timeline *tl, sts_args_mode mode, sts_error *err)
{
    memset(r, 0, sizeof *r);
    r->in = in;
    r->tl = tl;
    r->err = err;
    r->path = strcmp(path, "-") == 0 ? "<stdin>" : path;
    r->mode = mode;
    r->stop_at = UINT64_MAX;
    sts_jr_skip_start(&r->skip);
    sts_jr_chain_init(&r->event_chain);
    sts_jr_chain_init(&r->args_chain);
    /* A small plain input gets a buffer of its size: reading many small files (or one
     * under ASan) then makes no large allocation per file. A larger event than the
     * buffer holds grows it as anywhere (refill). */
    size_t want = CHUNK;
    uint64_t size = in && !sts_instream_is_gzip(in) ? sts_instream_raw_size(in) : 0;
    if (size && size < want) want = size < 4096 ? 4096 : (size_t)size;
    r->cap = want + JSON_PAD;
    r->buf = malloc(r->cap);
    if (!r->buf) return -1;
    memset(r->buf, 0, JSON_PAD);
    return 0;
}

void sts_jr_fini(jr *r)
{
    sts_jr_par_end(r);
    sts_jr_feed_stop(r->feed);
    r->feed = NULL;
    free(r->values);
    sts_jr_shapes_free(r->shapes);
    r->shapes = NULL;
    sts_jr_release(r);
}

sts_status sts_jr_drive(jr *r, top *t, size_t *pos)
{
    r->stopped = 0;
    for (;;) {
        const char *keep;
        sts_status run_rc = STS_OK;
        if (r->len || r->eof) {
            run(r, t, r->buf + *pos, &keep, &run_rc);
            if (!keep) return run_rc;
            *pos = (size_t)(keep - r->buf);
            if (r->stopped) return STS_OK;
            if (r->eof) return at_eof(r, t, keep);
        }
        sts_status rc = refill(r, t, *pos);
        if (rc != STS_OK) return rc;
        *pos = 0;
    }
}

sts_status sts_jr_seek(jr *r, uint64_t at)
{
    if (r->range) {
        r->range->pos = at;
        if (r->feed) {
            r->base = at;
            release(r);
        }
    } else if (sts_instream_skip_to(r->in, at, r->err) != 0) {
        return r->err ? r->err->code : STS_ERR_IO;
    }
    r->base = at;
    r->len = 0;
    r->eof = 0;
    memset(r->buf, 0, JSON_PAD);
    return STS_OK;
}

/* The parallel reader's stop points: merge what lines up, then go on where it says. */
static sts_status parallel(jr *r, top *t, const sts_jr_tuning *tune, size_t *pos)
{
    uint64_t resume;
    sts_status rc = sts_jr_par_step(r, t, tune, r->base + *pos, &resume);
    if (rc != STS_OK) return rc == STS_ERR_NOMEM ? nomem(r) : rc;
    if (resume >= r->base && resume <= r->base + r->len) {
        *pos = (size_t)(resume - r->base);
        return STS_OK;
    }
    *pos = 0;
    return sts_jr_seek(r, resume);
}

/* A gzip stream's own damage outranks what the JSON in it looks like: once the JSON has
 * failed, the rest is inflated, and an inflate error, if any, is the one reported. So
 * the answer does not depend on how far inflating had got when the JSON failed (a
 * thread of its own runs ahead; inline reads do not). */
static sts_status gzip_verdict(jr *r, sts_instream *in, sts_status rc)
{
    if (rc == STS_OK || rc == STS_ERR_NOMEM || r->input_failed || !sts_instream_is_gzip(in)) return rc;
    sts_error e = STS_ERROR_INIT;
    sts_status st = STS_OK;
    if (r->feed) {
        sts_jr_par_end(r);
        st = sts_jr_feed_drain(r->feed, &e);
    } else {
        char buf[65536];
        long got;
        while ((got = sts_instream_read(in, buf, sizeof buf, &e)) > 0)
            ;
        if (got < 0) st = e.code ? e.code : STS_ERR_IO;
    }
    if (st == STS_OK) return rc;
    if (r->err) *r->err = e;
    return st;
}

sts_status sts_read_chrome_json_with(sts_instream *in, sts_timeline *tl, const sts_open_options *opt,
                                     const sts_jr_tuning *tune, sts_error *err)
{
    jr r;
    if (sts_jr_init(&r, in, sts_instream_path(in), tl, opt ? opt->args : tl->args_mode, err) != 0) {
        sts_jr_fini(&r);
        return nomem(&r);
    }
    tl->count_flows = opt && opt->flows == STS_FLOWS_COUNT;
    r.progress = opt ? opt->progress : NULL;
    r.progress_user = opt ? opt->progress_user : NULL;
    r.reference = tune && tune->reference;
    r.jobs = tune && tune->jobs ? tune->jobs : opt ? opt->jobs : 0;
    r.peers = opt && opt->peers && opt->peers->count ? opt->peers : NULL;
    int feed = sts_instream_is_gzip(in) && !(tune && tune->inline_inflate);
    if (feed && !(tune && tune->jobs)) {
        /* The inflater keeps a core busy: the parse gets the others. On two cores one
         * reader beside the inflater beats two chunk workers sharing a core with it. */
        int threads = r.jobs > 0 ? r.jobs : sts_cores();
        r.jobs = threads > 2 ? threads - 1 : 1;
    }
    /* Chunks may take over at the first event past the probe: the probe's events tell a
     * wide trace (one of a million lanes, interleaved) before any worker starts. Peers
     * and explicit chunk plans (tests) start at the first event. */
    int planned = tune && (tune->chunk || tune->nsplits);
    if (r.jobs != 1 || r.peers) r.stop_at = r.peers || planned ? 0 : PROBE;
    if (feed) {
        /* Inflate on a thread of its own, overlapping the parse; the window holds what
         * chunk workers may read ahead. */
        r.feed = sts_jr_feed_start(in, r.jobs == 1 ? FEED_WINDOW : FEED_WINDOW * 3);
        if (r.feed) {
            r.feed_range = (jr_range){ -1, NULL, r.feed, 0, UINT64_MAX };
            r.range = &r.feed_range;
        }
    }

    top t = { ST_START, 0, 0, PROGRESS_STEP };
    sts_status rc;
    size_t pos = 0;
    for (;;) {
        rc = sts_jr_drive(&r, &t, &pos);
        if (rc != STS_OK || !r.stopped) break;
        rc = parallel(&r, &t, tune, &pos);
        if (rc != STS_OK) break;
    }
    rc = gzip_verdict(&r, in, rc);
    sts_jr_par_end(&r);
    sts_jr_feed_stop(r.feed); /* before the stream's counts are read: its thread reads it */
    r.feed = NULL;
    r.range = NULL;
    tl->info.bytes = sts_instream_offset(in);
    tl->info.compressed = sts_instream_is_gzip(in);
    tl->info.resolution_ns = tl->all_whole_us ? 1000 : 1;
    if (rc == STS_OK)
        rc = sts_completion_check(&r.done, r.path, tl->info.bytes, "a \"" STS_COMPLETION_TAIL "\" metadata event", err);
    if (rc == STS_OK && r.progress) r.progress(sts_instream_raw_offset(in), sts_instream_raw_size(in), r.progress_user);
    if (tune && tune->shaped) *tune->shaped = r.shape_hits;
    if (tune && tune->chunks) *tune->chunks = r.chunks_merged;
    sts_jr_fini(&r);
    return rc;
}

sts_status sts_read_chrome_json(sts_instream *in, sts_timeline *tl, const sts_open_options *opt, sts_error *err)
{
    return sts_read_chrome_json_with(in, tl, opt, NULL, err);
}
