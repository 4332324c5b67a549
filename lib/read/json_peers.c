/* read: chunks of a large JSON trace read by other processes (sts_chunk_peers).
 *
 * The reading process plans the chunks as it does for its threads (json_par.c) and
 * sends the plan; each peer reads its chunks (i % parts == its part) from its own copy
 * of the path and sends each one's raw timeline back. The reading process merges a
 * peer's chunk exactly as a worker thread's: only when it starts where the reading has
 * got to, else it reads that stretch itself. So a peer can only make the reading
 * faster, never different.
 *
 * The bytes are the timeline's own structs, copied: peers run the same build on the
 * same kind of machine (an mpirun job). A fingerprint of the layout, the byte order and
 * this format's version opens every message, and a CRC-32 of the rest closes it; a
 * message whose fingerprint or CRC differs is not used (the chunk is read here). */
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "read/json_chrome.h"
#include "stepscope/version.h"

#define PLAN_MAGIC  "STSPLAN1"
#define CHUNK_MAGIC "STSCHNK1"

/* ---- a growing buffer and a cursor -------------------------------------------------- */

typedef struct wbuf {
    unsigned char *p;
    size_t n, cap;
    int bad;
} wbuf;

static void put(wbuf *b, const void *data, size_t len)
{
    if (b->bad || len == 0) return;
    if (len > SIZE_MAX - b->n || sts_grow((void **)&b->p, &b->cap, b->n + len, 1) != 0) {
        b->bad = 1;
        return;
    }
    memcpy(b->p + b->n, data, len);
    b->n += len;
}

static void put_u64(wbuf *b, uint64_t v)
{
    put(b, &v, sizeof v);
}

static void put_str(wbuf *b, const char *s, size_t len)
{
    put_u64(b, len);
    put(b, s, len);
}

static uint64_t crc_of(const unsigned char *p, size_t n)
{
    uLong c = crc32(0L, Z_NULL, 0);
    while (n > 0) {
        uInt k = n > (1u << 30) ? 1u << 30 : (uInt)n;
        c = crc32(c, p, k);
        p += k, n -= k;
    }
    return (uint64_t)c;
}

/* Closes a message with the CRC of what it holds. */
static void seal(wbuf *b)
{
    if (!b->bad) put_u64(b, crc_of(b->p, b->n));
}

/* A message's length without its CRC, or 0 when the CRC does not match. */
static size_t unseal(const void *data, size_t len)
{
    uint64_t want;
    if (len < sizeof want) return 0;
    memcpy(&want, (const unsigned char *)data + len - sizeof want, sizeof want);
    return crc_of(data, len - sizeof want) == want ? len - sizeof want : 0;
}

typedef struct rbuf {
    const unsigned char *p;
    size_t n, at;
    int bad;
} rbuf;

static const void *take(rbuf *b, size_t len)
{
    if (b->bad || len > b->n - b->at) {
        b->bad = 1;
        return NULL;
    }
    const void *r = b->p + b->at;
    b->at += len;
    return r;
}

static uint64_t take_u64(rbuf *b)
{
    uint64_t v = 0;
    const void *q = take(b, sizeof v);
    if (q) memcpy(&v, q, sizeof v);
    return v;
}

/* A string's bytes in the message (not NUL-terminated), or NULL. */
static const char *take_str(rbuf *b, size_t *len)
{
    uint64_t n = take_u64(b);
    *len = (size_t)n;
    return n > b->n ? (b->bad = 1, NULL) : take(b, (size_t)n);
}

/* The version and the layout of a message's structs in this build, and the byte
 * order. */
static uint64_t fingerprint(void)
{
    const uint64_t sizes[] = { 0x0102030405060708u,       STS_VERSION_NUMBER,   sizeof(sts_process),
                               sizeof(sts_lane),          sizeof(sts_arg),      sizeof(sts_slice),
                               sizeof(sts_end_event),     sizeof(sts_instant),  sizeof(sts_counter),
                               sizeof(sts_async),         sizeof(sts_flow),     sizeof(sts_tl_push),
                               sizeof(sts_timeline_info), sizeof(sts_args_mode) };
    return sts_hash_bytes(sizes, sizeof sizes);
}

/* ---- the plan ------------------------------------------------------------------------ */

int sts_jr_peers_start(const sts_chunk_peers *peers, const jr_plan *h)
{
    if (!peers || !peers->start || !peers->fetch || peers->count == 0 || h->size == 0 || h->src.fd < 0) return -1;
    wbuf b = { 0 };
    put(&b, PLAN_MAGIC, 8);
    put_u64(&b, fingerprint());
    put_u64(&b, h->first);
    put_u64(&b, h->size);
    put_u64(&b, h->src.end);
    put_u64(&b, (uint64_t)peers->count + 1);
    put_u64(&b, (uint64_t)h->mode);
    put_u64(&b, (uint64_t)h->in_object);
    put_u64(&b, (uint64_t)h->reference);
    put_u64(&b, (uint64_t)h->count_flows);
    put_str(&b, h->path, strlen(h->path));
    put_str(&b, h->tl_path ? h->tl_path : "", h->tl_path ? strlen(h->tl_path) : 0);
    put_str(&b, h->tl_format ? h->tl_format : "", h->tl_format ? strlen(h->tl_format) : 0);
    seal(&b);
    int rc = b.bad ? -1 : peers->start(peers->user, b.p, b.n);
    free(b.p);
    return rc;
}

/* What a peer takes from the plan; the strings are copies (NUL-terminated). */
typedef struct plan_in {
    jr_plan how;
    uint64_t parts;
    char *path, *tl_path, *tl_format;
} plan_in;

static char *dup_bytes(const char *s, size_t n)
{
    char *d = s ? malloc(n + 1) : NULL;
    if (d) {
        memcpy(d, s, n);
        d[n] = '\0';
    }
    return d;
}

static sts_status read_plan(const void *data, size_t len, plan_in *pi, sts_error *err)
{
    memset(pi, 0, sizeof *pi);
    len = unseal(data, len);
    rbuf b = { data, len, 0, 0 };
    const void *magic = take(&b, 8);
    if (!magic || memcmp(magic, PLAN_MAGIC, 8) != 0 || take_u64(&b) != fingerprint())
        return sts_error_set(
            err, STS_ERR_FORMAT, 0,
            "chunk plan: damaged, or made by another build of stepscope (a different version or machine)");
    jr_plan *h = &pi->how;
    h->first = take_u64(&b);
    h->size = take_u64(&b);
    h->src = (jr_range){ -1, NULL, NULL, 0, take_u64(&b) };
    pi->parts = take_u64(&b);
    uint64_t mode = take_u64(&b), in_object = take_u64(&b), reference = take_u64(&b), count_flows = take_u64(&b);
    size_t n1, n2, n3;
    const char *s1 = take_str(&b, &n1), *s2 = take_str(&b, &n2), *s3 = take_str(&b, &n3);
    if (b.bad || b.at != len || h->size == 0 || pi->parts < 2 || (mode & STS_ARGS_BASE_MASK) > STS_ARGS_ANALYSIS ||
        (mode & ~(uint64_t)(STS_ARGS_BASE_MASK | STS_ARGS_FLAG_MASK)) || in_object > 1 || reference > 1 ||
        count_flows > 1 || h->first > h->src.end || memchr(s1, '\0', n1))
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)b.at, "chunk plan: damaged at byte %zu", b.at);
    h->mode = (sts_args_mode)mode;
    h->in_object = (int)in_object;
    h->reference = (int)reference;
    h->count_flows = (int)count_flows;
    pi->path = dup_bytes(s1, n1);
    pi->tl_path = dup_bytes(s2, n2);
    pi->tl_format = dup_bytes(s3, n3);
    if (!pi->path || !pi->tl_path || !pi->tl_format) return sts_error_set(err, STS_ERR_NOMEM, 0, "out of memory");
    h->path = pi->path;
    h->tl_path = pi->tl_path;
    h->tl_format = pi->tl_format;
    return STS_OK;
}

/* ---- a chunk ------------------------------------------------------------------------- */

#define PUT_VEC(b, vec) (put_u64((b), (vec).n), put((b), (vec).v, (vec).n * sizeof *(vec).v))

/* The message for chunk c (index i): its placement and, when clean, its timeline. */
static void write_chunk_body(wbuf *b, size_t i, const jr_chunk *c)
{
    put(b, CHUNK_MAGIC, 8);
    put_u64(b, fingerprint());
    put_u64(b, i);
    put_u64(b, c->clean && c->tl);
    if (!c->clean || !c->tl) return;
    put_u64(b, (uint64_t)c->ended);
    put_u64(b, c->start);
    put_u64(b, c->stop);
    put_u64(b, c->elements);
    const sts_timeline *tl = c->tl;
    put_u64(b, (uint64_t)tl->all_whole_us);
    put_u64(b, (uint64_t)tl->pushes_lost);
    put(b, &tl->raw_lo, sizeof tl->raw_lo);
    put(b, &tl->raw_hi, sizeof tl->raw_hi);
    put(b, &tl->info, sizeof tl->info); /* the counts; its pointers are not used */
    put_u64(b, tl->strings.count);
    for (uint32_t k = 0; k < tl->strings.count; k++)
        put_str(b, tl->strings.strs[k], tl->strings.lens[k]);
    PUT_VEC(b, tl->procs);
    PUT_VEC(b, tl->lanes);
    PUT_VEC(b, tl->args);
    PUT_VEC(b, tl->slices);
    PUT_VEC(b, tl->ends);
    PUT_VEC(b, tl->instants);
    PUT_VEC(b, tl->counters);
    PUT_VEC(b, tl->asyncs);
    PUT_VEC(b, tl->flows);
    PUT_VEC(b, tl->pushes);
}

static void write_chunk(wbuf *b, size_t i, const jr_chunk *c)
{
    write_chunk_body(b, i, c);
    seal(b);
}

/* Every id a chunk's timeline holds points inside it, so that merging it reads nothing
 * out of bounds, even from a peer whose build differs in a way the fingerprint misses. */
static int ids_in_range(const sts_timeline *tl)
{
    const uint64_t ns = tl->strings.count, np = tl->procs.n, nl = tl->lanes.n, na = tl->args.n;
#define STR(x)  ((uint64_t)(x) < ns)
#define LANE(x) ((uint64_t)(x) < nl)
#define ARGS(x) ((x) == STS_NONE || (uint64_t)(x) < na)
    for (size_t i = 0; i < np; i++)
        if (!STR(tl->procs.v[i].label) || !STR(tl->procs.v[i].name)) return 0;
    for (size_t i = 0; i < nl; i++) {
        const sts_lane *x = &tl->lanes.v[i];
        if ((uint64_t)x->process >= np || !STR(x->label) || !STR(x->name)) return 0;
    }
    for (size_t i = 0; i < na; i++) {
        const sts_arg *x = &tl->args.v[i];
        if (!STR(x->key) || ((x->type == STS_ARG_STRING || x->type == STS_ARG_JSON) && !STR(x->v.str))) return 0;
    }
    for (size_t i = 0; i < tl->slices.n; i++) {
        const sts_slice *x = &tl->slices.v[i];
        if (!STR(x->name) || !STR(x->cat) || !LANE(x->lane) || !ARGS(x->args)) return 0;
    }
    for (size_t i = 0; i < tl->ends.n; i++) {
        const sts_end_event *x = &tl->ends.v[i];
        if (!STR(x->name) || !STR(x->cat) || !LANE(x->lane)) return 0;
    }
    for (size_t i = 0; i < tl->instants.n; i++) {
        const sts_instant *x = &tl->instants.v[i];
        if (!STR(x->name) || !STR(x->cat) || !LANE(x->lane) || !ARGS(x->args)) return 0;
    }
    for (size_t i = 0; i < tl->counters.n; i++) {
        const sts_counter *x = &tl->counters.v[i];
        if (!STR(x->name) || !STR(x->series) || !STR(x->id) || !LANE(x->lane)) return 0;
    }
    for (size_t i = 0; i < tl->asyncs.n; i++) {
        const sts_async *x = &tl->asyncs.v[i];
        if (!STR(x->name) || !STR(x->cat) || !STR(x->id) || !LANE(x->lane) || !ARGS(x->args)) return 0;
    }
    for (size_t i = 0; i < tl->flows.n; i++) {
        const sts_flow *x = &tl->flows.v[i];
        if (!STR(x->name) || !STR(x->cat) || !STR(x->id) || !LANE(x->lane)) return 0;
    }
#undef STR
#undef LANE
#undef ARGS
    return 1;
}

/* Fills vec with the n elements that follow; -1 when the message ends first. */
#define TAKE_VEC(b, vec)                                                                                    \
    do {                                                                                                    \
        uint64_t n_ = take_u64(b);                                                                          \
        const void *src_ = n_ <= (b)->n / sizeof *(vec).v ? take((b), (size_t)n_ * sizeof *(vec).v) : NULL; \
        if (!src_ || STS_VEC_RESERVE(vec, (size_t)n_) != 0) goto bad;                                       \
        if (n_) memcpy((vec).v, src_, (size_t)n_ * sizeof *(vec).v);                                        \
        (vec).n = (size_t)n_;                                                                               \
    } while (0)

/* A message back into c; c stays unclean when it is not chunk i of this plan, or holds
 * an id that points outside it. The values are trusted as a worker thread's are: the
 * CRC says they arrived as sent, the fingerprint that this version wrote them, and the
 * reading process merges only a chunk that starts where it got to. */
static void read_chunk_msg(const void *data, size_t len, const jr_plan *h, size_t i, jr_chunk *c)
{
    len = unseal(data, len);
    rbuf b = { data, len, 0, 0 };
    const void *magic = take(&b, 8);
    if (!magic || memcmp(magic, CHUNK_MAGIC, 8) != 0 || take_u64(&b) != fingerprint() || take_u64(&b) != i ||
        take_u64(&b) != 1)
        return;
    uint64_t ended = take_u64(&b), start = take_u64(&b), stop = take_u64(&b), elements = take_u64(&b);
    sts_timeline *tl = sts_tl_new(h->tl_path, h->tl_format, h->mode);
    if (!tl) return;
    tl->count_flows = h->count_flows;
    tl->defer_pushes = 1;
    tl->all_whole_us = take_u64(&b) != 0;
    tl->pushes_lost = take_u64(&b) != 0;
    const void *lo = take(&b, sizeof tl->raw_lo), *hi = take(&b, sizeof tl->raw_hi);
    const void *info = take(&b, sizeof tl->info);
    uint64_t nstr = take_u64(&b);
    if (!lo || !hi || !info || nstr > UINT32_MAX || nstr < tl->strings.count) goto bad;
    memcpy(&tl->raw_lo, lo, sizeof tl->raw_lo);
    memcpy(&tl->raw_hi, hi, sizeof tl->raw_hi);
    sts_timeline_info in;
    memcpy(&in, info, sizeof in);
    tl->info.events = in.events;
    memcpy(tl->info.by_phase, in.by_phase, sizeof in.by_phase);
    tl->info.skipped = in.skipped;
    tl->info.rejected = in.rejected;
    tl->info.flows = in.flows;
    for (uint64_t k = 0; k < nstr; k++) {
        size_t n;
        const char *s = take_str(&b, &n);
        if (!s || n > UINT32_MAX || sts_tl_intern(tl, s, n) != k) goto bad; /* ids as the peer had them */
    }
    TAKE_VEC(&b, tl->procs);
    TAKE_VEC(&b, tl->lanes);
    TAKE_VEC(&b, tl->args);
    TAKE_VEC(&b, tl->slices);
    TAKE_VEC(&b, tl->ends);
    TAKE_VEC(&b, tl->instants);
    TAKE_VEC(&b, tl->counters);
    TAKE_VEC(&b, tl->asyncs);
    TAKE_VEC(&b, tl->flows);
    TAKE_VEC(&b, tl->pushes);
    if (b.at != len || ended > 1 || stop < start || start < h->first || !ids_in_range(tl)) goto bad;
    c->index = i;
    c->clean = 1;
    c->ended = (int)ended;
    c->start = start;
    c->stop = stop;
    c->elements = elements;
    c->tl = tl;
    return;
bad:
    sts_tl_free(tl);
}

void sts_jr_peers_fetch(const sts_chunk_peers *peers, const jr_plan *h, size_t i, jr_chunk *c)
{
    const void *data = NULL;
    size_t len = 0;
    if (peers->fetch(peers->user, i, &data, &len) == 0 && data) read_chunk_msg(data, len, h, i, c);
}

/* ---- a peer's side ----------------------------------------------------------------- */

/* The short message for a chunk this peer could not read. */
static int send_unread(size_t i, sts_chunk_send_fn send, void *user)
{
    wbuf b = { 0 };
    jr_chunk none = { 0 };
    write_chunk(&b, i, &none);
    int rc = b.bad ? -1 : send(user, i, b.p, b.n);
    free(b.p);
    return rc;
}

sts_status sts_chunk_serve(const void *plan, size_t len, unsigned part, sts_chunk_send_fn send, void *user,
                           sts_error *err)
{
    plan_in pi;
    sts_status st = read_plan(plan, len, &pi, err);
    if (st == STS_OK && (part == 0 || part >= pi.parts))
        st = sts_error_set(err, STS_ERR_INVALID_ARG, 0, "chunk plan: part %u of %llu", part,
                           (unsigned long long)pi.parts);
    if (st != STS_OK) {
        free(pi.path), free(pi.tl_path), free(pi.tl_format);
        return st;
    }
    jr_plan *h = &pi.how;
    /* The file as the reading process saw it, or no chunk is read here. */
    struct stat sb;
    int fd = open(h->path, O_RDONLY | O_CLOEXEC);
    int same = fd >= 0 && fstat(fd, &sb) == 0 && S_ISREG(sb.st_mode) && (uint64_t)sb.st_size == h->src.end;
    h->src.fd = fd;
    sts_timeline *spare = NULL; /* the last chunk's timeline, read into again */
    for (size_t i = part; st == STS_OK; i += (size_t)pi.parts) {
        uint64_t at = sts_jr_chunk_from(h, i);
        if (at == UINT64_MAX || at >= h->src.end) break;
        jr_chunk c = { 0 };
        c.tl = spare;
        if (same) sts_jr_read_chunk(h, i, &c);
        wbuf b = { 0 };
        write_chunk(&b, i, &c);
        spare = c.tl;
        int rc = b.bad ? send_unread(i, send, user) : send(user, i, b.p, b.n);
        free(b.p);
        if (rc != 0) st = sts_error_set(err, STS_ERR_IO, 0, "chunk %zu: the reading process took no more", i);
    }
    sts_tl_free(spare);
    if (fd >= 0) close(fd);
    free(pi.path), free(pi.tl_path), free(pi.tl_format);
    return st;
}
