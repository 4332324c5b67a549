/* read: the events array in chunks, read by worker threads and merged in file order.
 *
 * When the events of an uncompressed file (or memory source) are large, the serial
 * reader stops at the first event and hands the rest of the array to this
 * coordinator. It cuts the bytes into chunks at nominal offsets S_0 < S_1 < ...; the
 * worker for chunk i starts at the first '{' at or after S_i that looks like the start
 * of an event ('}', ',' and '{' with only whitespace between), reads events into a
 * timeline of its own, and stops at the first element that starts at or after S_i+1
 * (B_i), or where the array ends.
 *
 * A guess can be wrong (that '{' may sit inside a string), so nothing is trusted until
 * the chunk before has been read from a known position: chunk i is merged only when
 * the position reached so far, B_i-1 or one the serial reader found, is exactly where
 * its worker started. Otherwise, and for any chunk whose reading was not plain (a
 * warning, whose message needs the global event index; metadata events, whose last
 * write wins; an error; the end of the data), the serial reader reads that stretch
 * itself and stops again at the next boundary. Merging adds strings, processes and
 * lanes in the order the chunk met them, and offsets event sequence numbers, so the
 * timeline is the one a single pass makes: same ids, same order, same bytes out.
 *
 * Memory: workers run at most `window` chunks ahead of the merge, so what is held
 * beyond the timeline is a few chunks' worth of events. */
#include <errno.h>
#include <time.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/threads.h"
#include "read/json_chrome.h"

#define MIN_CHUNK    ((uint64_t)2 << 20)
#define MAX_CHUNK    ((uint64_t)16 << 20)
#define MIN_PARALLEL ((uint64_t)16 << 20)
#define FIND_WINDOW  ((size_t)256 << 10) /* how far a worker looks for its first event */
#define FEED_CHUNK   ((uint64_t)4 << 20) /* a gzip input's size is not known: chunks of this */
#define MAX_SPARE    16

enum { C_TODO, C_BUSY, C_DONE };

/* Chunk i starts at from(i): first + i * size, or the i-th explicit split. Only the
 * `window` chunks from `merged` on are live, in a ring of window + 1 slots, so an input
 * whose size is not known yet (a gzip feed) has as many chunks as it turns out to. */
struct jr_par {
    pthread_mutex_t mu;
    pthread_cond_t cv; /* a chunk is done, or the window moved, or cancel */
    pthread_t *threads;
    int started;
    jr_chunk *ring;
    size_t nring;
    jr_plan how;
    size_t next;   /* the next chunk a worker takes */
    size_t merged; /* chunks before this one are merged or dropped */
    size_t window; /* how far ahead of `merged` workers may run */
    int cancel;
    const sts_chunk_peers *peers; /* other processes read chunks too (json_peers.c), or NULL */
    unsigned parts;               /* chunk i is read by part i % parts: 0 here, the rest by peers */
    /* Merged chunks' timelines, emptied and read into again: a chunk's arrays are a few
     * MB, and fresh ones for every chunk cost their page faults again (a third of the
     * system time of a two-thread read). At most one per thread that reads chunks. */
    sts_timeline *spare[MAX_SPARE];
    int nspare, max_spare;
};

long sts_jr_range_read(jr_range *g, char *buf, size_t cap, const char *path, sts_error *err)
{
    if (g->pos >= g->end) return 0;
    uint64_t left = g->end - g->pos;
    size_t n = cap < left ? cap : (size_t)left;
    if (n > ((size_t)1 << 30)) n = (size_t)1 << 30;
    if (g->feed) {
        long got = sts_jr_feed_read(g->feed, g->pos, buf, n, err);
        if (got > 0) g->pos += (uint64_t)got;
        return got;
    }
    if (g->mem) {
        memcpy(buf, g->mem + g->pos, n);
        g->pos += n;
        return (long)n;
    }
    ssize_t got;
    do
        got = pread(g->fd, buf, n, (off_t)g->pos);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        sts_error_set(err, STS_ERR_IO, (int64_t)g->pos, "%s: read error at byte %llu: %s", path,
                      (unsigned long long)g->pos, strerror(errno));
        return -1;
    }
    g->pos += (uint64_t)got;
    return (long)got;
}

static int is_space(char c)
{
    return c == ' ' || c == '\n' || c == '\r' || c == '\t';
}

uint64_t sts_jr_chunk_from(const jr_plan *h, size_t i)
{
    if (h->size) {
        uint64_t f = h->first + h->size * (uint64_t)i;
        return f < h->first ? UINT64_MAX : f; /* wrapped */
    }
    return i == 0 ? h->first : i <= h->nsplits ? h->splits[i - 1] : UINT64_MAX;
}

static uint64_t from(const jr_par *P, size_t i)
{
    return sts_jr_chunk_from(&P->how, i);
}

/* The end of the input when known: the size of a file or memory, or of a feed that has
 * ended; else UINT64_MAX. */
static uint64_t known_end(const jr_par *P)
{
    return P->how.src.feed ? sts_jr_feed_end(P->how.src.feed) : P->how.src.end;
}

static jr_chunk *slot(jr_par *P, size_t i)
{
    return &P->ring[i % P->nring];
}

/* The first '{' at or after `from` that follows "}" "," with only whitespace between,
 * or UINT64_MAX when none comes within FIND_WINDOW bytes. */
static uint64_t find_start(const jr_plan *P, uint64_t at)
{
    uint64_t lo = at - P->first > 64 ? at - 64 : P->first;
    char *buf = malloc(FIND_WINDOW + 64);
    if (!buf) return UINT64_MAX;
    jr_range g = P->src;
    g.pos = lo;
    sts_error err = STS_ERROR_INIT;
    size_t len = 0;
    long got;
    while (len < FIND_WINDOW + 64 &&
           (got = sts_jr_range_read(&g, buf + len, FIND_WINDOW + 64 - len, P->path, &err)) > 0)
        len += (size_t)got;
    uint64_t found = UINT64_MAX;
    for (size_t i = (size_t)(at - lo); i < len && found == UINT64_MAX; i++) {
        if (buf[i] != '{') continue;
        size_t k = i;
        while (k > 0 && is_space(buf[k - 1]))
            k--;
        if (k == 0 || buf[k - 1] != ',') continue;
        k--;
        while (k > 0 && is_space(buf[k - 1]))
            k--;
        if (k > 0 && buf[k - 1] == '}') found = lo + i;
    }
    free(buf);
    return found;
}

void sts_jr_read_chunk(const jr_plan *P, size_t i, jr_chunk *c)
{
    uint64_t stop_at = sts_jr_chunk_from(P, i + 1);
    uint64_t start = i == 0 ? P->first : find_start(P, sts_jr_chunk_from(P, i));
    if (start == UINT64_MAX) return;
    c->start = start;
    sts_timeline *tl = c->tl;
    c->tl = NULL;
    if (tl && sts_tl_clear(tl, P->tl_path, P->tl_format, P->mode) != 0) {
        sts_tl_free(tl);
        tl = NULL;
    }
    if (!tl && !(tl = sts_tl_new(P->tl_path, P->tl_format, P->mode))) return;
    tl->count_flows = P->count_flows;
    tl->defer_pushes = 1; /* the sorter's state depends on the events before this chunk */
    sts_error err = STS_ERROR_INIT;
    jr w;
    jr_range g = P->src;
    g.pos = start;
    if (sts_jr_init(&w, NULL, P->path, tl, P->mode, &err) == 0) {
        w.range = &g;
        w.base = start;
        w.worker = 1;
        w.stop_at = stop_at;
        w.reference = P->reference;
        top t = { ST_ARR_ELEM, P->in_object, 1, UINT64_MAX };
        size_t pos = 0;
        sts_status rc = sts_jr_drive(&w, &t, &pos);
        const sts_timeline_info *in = &tl->info;
        if (rc == STS_OK && w.stopped && !w.spoiled && tl->warnings_total == 0 && in->by_phase['M'] == 0 &&
            !in->truncated) {
            c->clean = 1;
            c->ended = t.st < ST_ARR_FIRST || t.st > ST_ARR_AFTER;
            c->stop = w.base + pos;
            c->elements = w.index;
        }
    }
    sts_jr_fini(&w);
    c->tl = tl;
}

/* A timeline to read a chunk into: a merged chunk's, or NULL (a new one then). Called
 * with P->mu held. */
static sts_timeline *take_spare(jr_par *P)
{
    return P->nspare ? P->spare[--P->nspare] : NULL;
}

/* A chunk's timeline, done with: kept for the next chunk, or freed. Called with P->mu
 * held. */
static void give_spare(jr_par *P, sts_timeline *tl)
{
    if (!tl) return;
    if (P->nspare < P->max_spare)
        P->spare[P->nspare++] = tl;
    else
        sts_tl_free(tl);
}

static void give_spare_locked(jr_par *P, sts_timeline *tl)
{
    pthread_mutex_lock(&P->mu);
    give_spare(P, tl);
    pthread_mutex_unlock(&P->mu);
}

static void *worker_main(void *arg)
{
    jr_par *P = arg;
    pthread_mutex_lock(&P->mu);
    for (;;) {
        while (!P->cancel && P->next >= P->merged + P->window)
            pthread_cond_wait(&P->cv, &P->mu);
        if (P->cancel) break;
        if (P->next < P->merged) P->next = P->merged; /* the serial reader went past these */
        size_t i = P->next;
        /* Past the last chunk (known once the input's end is) there is no more work. */
        if (from(P, i) == UINT64_MAX || from(P, i) >= known_end(P)) break;
        P->next++;
        if (i % P->parts != 0) continue; /* a peer reads it */
        jr_chunk *c = slot(P, i);
        memset(c, 0, sizeof *c);
        c->index = i;
        c->state = C_BUSY;
        c->tl = take_spare(P);
        pthread_mutex_unlock(&P->mu);
        sts_jr_read_chunk(&P->how, i, c);
        pthread_mutex_lock(&P->mu);
        c->state = C_DONE;
        pthread_cond_broadcast(&P->cv);
    }
    pthread_mutex_unlock(&P->mu);
    return NULL;
}

/* The input the chunks read from, when it is one they can (src->fd, mem or feed set). */
static int chunk_source(const jr *r, jr_range *src)
{
    size_t mem_len;
    *src = (jr_range){ -1, NULL, NULL, 0, UINT64_MAX };
    if (r->feed)
        src->feed = r->feed;
    else if (!r->in)
        return 0;
    else if ((src->mem = sts_instream_plain_mem(r->in, &mem_len)) != NULL)
        src->end = mem_len;
    else if ((src->fd = sts_instream_plain_fd(r->in)) >= 0)
        src->end = sts_instream_raw_size(r->in);
    else
        return 0;
    return 1;
}

static uint64_t chunk_size(const jr_range *src, const sts_jr_tuning *tune, uint64_t at, unsigned readers)
{
    if (tune && tune->chunk) return tune->chunk;
    if (src->feed) return FEED_CHUNK;
    uint64_t size = (src->end - at) / ((uint64_t)readers * 8);
    return size < MIN_CHUNK ? MIN_CHUNK : size > MAX_CHUNK ? MAX_CHUNK : size;
}

/* Plans chunks from `at` on and starts the workers (and the peers, once per read);
 * leaves r->par NULL when one thread should read it all. Returns -1 on no memory. */
static int plan(jr *r, const top *t, const sts_jr_tuning *tune, uint64_t at)
{
    jr_range src;
    if (!chunk_source(r, &src)) return 0;
    int threads = r->jobs > 0 ? r->jobs : sts_cores();
    /* Peers read from their own copy of the path: only a plain file can be shared. */
    unsigned peers = r->peers && src.fd >= 0 && !(tune && tune->nsplits) ? r->peers->count : 0;
    uint64_t min_par = tune && tune->min_parallel ? tune->min_parallel : MIN_PARALLEL;
    if ((threads < 2 && peers == 0) || at >= src.end || (!src.feed && src.end - at < min_par)) return 0;
    /* What the serial reader has read (the probe: see json_chrome.c) already shows a
     * wide trace: workers would only read chunks that are dropped after the first. */
    if (peers == 0 && sts_jr_wide(r->tl)) return 0;

    jr_par *P = calloc(1, sizeof *P);
    if (!P) return -1;
    jr_plan *h = &P->how;
    h->src = src;
    h->path = r->path;
    h->tl_path = r->tl->info.path;
    h->tl_format = r->tl->info.format;
    h->mode = r->mode;
    h->count_flows = r->tl->count_flows;
    h->in_object = t->in_object;
    h->reference = r->reference;
    h->first = at;
    if (tune && tune->nsplits) {
        h->splits = tune->splits;
        h->nsplits = tune->nsplits;
        while (h->nsplits && h->splits[0] <= at) /* splits at or before the events: none */
            h->splits++, h->nsplits--;
    } else {
        h->size = chunk_size(&src, tune, at, (unsigned)threads + peers);
    }
    P->parts = 1;
    if (peers) {
        const sts_chunk_peers *pp = r->peers;
        r->peers = NULL; /* once per read: a second array, or a restart, is read here */
        if (sts_jr_peers_start(pp, h) == 0) P->parts = peers + 1, P->peers = pp;
    }
    if (P->parts == 1 && threads < 2) {
        free(P);
        return 0;
    }
    /* One thread asked for: it reads its own chunks between the peers' (no workers). */
    int workers = threads < 2 ? 0 : threads;
    P->window = (size_t)(threads < 2 ? 1 : threads) * 2 * P->parts;
    P->max_spare = workers < 1 ? 1 : workers < MAX_SPARE ? workers : MAX_SPARE;
    P->nring = P->window + 1;
    P->ring = calloc(P->nring, sizeof *P->ring);
    P->threads = calloc((size_t)(workers ? workers : 1), sizeof *P->threads);
    if (!P->ring || !P->threads) {
        free(P->ring);
        free(P->threads);
        free(P);
        return -1;
    }
    pthread_mutex_init(&P->mu, NULL);
    pthread_cond_init(&P->cv, NULL);
    r->par = P;
    for (int i = 0; i < workers; i++) {
        if (pthread_create(&P->threads[i], NULL, worker_main, P) != 0) break;
        P->started++;
    }
    if (P->started == 0 && P->parts == 1) sts_jr_par_end(r);
    return 0;
}

/* Drops chunk m (merged or not needed) and lets the workers move on. */
static void drop(jr_par *P, size_t m)
{
    pthread_mutex_lock(&P->mu);
    jr_chunk *c = slot(P, m);
    while (c->index == m && c->state == C_BUSY)
        pthread_cond_wait(&P->cv, &P->mu);
    if (c->index == m) {
        give_spare(P, c->tl);
        c->tl = NULL;
        c->clean = 0;
    }
    P->merged = m + 1;
    pthread_cond_broadcast(&P->cv);
    pthread_mutex_unlock(&P->mu);
}

/* Waits until chunk m is read; 0 when it never will be (past the input's end). */
static int wait_done(jr_par *P, size_t m)
{
    pthread_mutex_lock(&P->mu);
    for (;;) {
        jr_chunk *c = slot(P, m);
        if (c->index == m && c->state == C_DONE) break;
        int taken = P->next > m;
        if (!taken && (from(P, m) == UINT64_MAX || from(P, m) >= known_end(P) || P->started == 0)) {
            pthread_mutex_unlock(&P->mu);
            return 0;
        }
        /* A feed that ends wakes no one here: look again now and then. */
        struct timespec ts;
        clock_gettime(CLOCK_REALTIME, &ts);
        ts.tv_nsec += 20000000;
        if (ts.tv_nsec >= 1000000000) ts.tv_sec++, ts.tv_nsec -= 1000000000;
        pthread_cond_timedwait(&P->cv, &P->mu, &ts);
    }
    pthread_mutex_unlock(&P->mu);
    return 1;
}

uint64_t sts_jr_par_low(const jr *r)
{
    const jr_par *P = r->par;
    if (!P) return UINT64_MAX;
    uint64_t f = from(P, P->merged);
    return f == UINT64_MAX ? UINT64_MAX : f - P->how.first > 64 ? f - 64 : P->how.first;
}

sts_status sts_jr_par_step(jr *r, top *t, const sts_jr_tuning *tune, uint64_t at, uint64_t *resume)
{
    if (!r->par && plan(r, t, tune, at) != 0) return STS_ERR_NOMEM;
    jr_par *P = r->par;
    *resume = at;
    t->st = ST_ARR_ELEM;
    r->stop_at = UINT64_MAX;
    while (P) {
        size_t m = P->merged;
        uint64_t next = from(P, m + 1);
        if (at >= next) { /* the serial reader went past this chunk */
            drop(P, m);
            continue;
        }
        /* A peer's chunk, or one of ours with no workers, is read (or received) here. */
        jr_chunk own = { 0 }, *c = &own;
        int here = m % P->parts != 0 || P->started == 0;
        if (here && from(P, m) < known_end(P)) {
            if (m % P->parts != 0)
                sts_jr_peers_fetch(P->peers, &P->how, m, c);
            else {
                pthread_mutex_lock(&P->mu);
                own.tl = take_spare(P);
                pthread_mutex_unlock(&P->mu);
                sts_jr_read_chunk(&P->how, m, c);
            }
        } else if (!here) {
            c = wait_done(P, m) ? slot(P, m) : &own;
        }
        if (!c->clean || c->start != at || !sts_jr_mergeable(r->tl, c->tl)) {
            /* The serial reader takes this stretch and stops at the next boundary. */
            give_spare_locked(P, own.tl);
            drop(P, m);
            r->stop_at = next;
            *resume = at;
            return STS_OK;
        }
        if (sts_jr_merge(r->tl, c->tl, r->tl->info.events) != 0) {
            give_spare_locked(P, own.tl);
            return STS_ERR_NOMEM;
        }
        r->index += c->elements;
        r->chunks_merged++;
        at = c->stop;
        int ended = c->ended;
        /* A trace wide rather than long (each chunk meets most of a huge set of lanes)
         * costs as much to merge as to read: one thread does the rest better. */
        int wide = sts_jr_wide(c->tl);
        give_spare_locked(P, own.tl);
        drop(P, m);
        if (r->feed) { /* the reader goes on at `at` or later: what lies before is done with */
            uint64_t low = sts_jr_par_low(r);
            sts_jr_feed_release(r->feed, at < low ? at : low);
        }
        *resume = at;
        if (r->progress && r->in) /* a feed's position is in compressed bytes, as the total */
            r->progress(r->feed ? sts_jr_feed_raw(r->feed) : at, sts_instream_raw_size(r->in), r->progress_user);
        if (ended) {
            t->st = t->in_object ? ST_OBJ_AFTER : ST_END;
            sts_jr_par_end(r);
            return STS_OK;
        }
        if (wide) {
            sts_jr_par_end(r);
            return STS_OK;
        }
    }
    return STS_OK;
}

void sts_jr_par_end(jr *r)
{
    jr_par *P = r->par;
    if (!P) return;
    pthread_mutex_lock(&P->mu);
    P->cancel = 1;
    pthread_cond_broadcast(&P->cv);
    pthread_mutex_unlock(&P->mu);
    for (int i = 0; i < P->started; i++)
        pthread_join(P->threads[i], NULL);
    for (size_t i = 0; i < P->nring; i++)
        sts_tl_free(P->ring[i].tl);
    for (int i = 0; i < P->nspare; i++)
        sts_tl_free(P->spare[i]);
    pthread_mutex_destroy(&P->mu);
    pthread_cond_destroy(&P->cv);
    free(P->ring);
    free(P->threads);
    free(P);
    r->par = NULL;
}
