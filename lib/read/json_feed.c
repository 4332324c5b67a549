/* read: a gzip input inflated on a thread of its own, into a window of blocks that the
 * reader and the chunk workers read from (json_par.c).
 *
 * Inflating and parsing then overlap: the reader never waits for inflate while there
 * are bytes ahead, and on a machine with more cores the inflated stream is parsed in
 * chunks like a plain file. The producer stays at most `limit` bytes ahead of the
 * lowest position still needed (set by the reader as it moves on), so memory is a
 * bounded window, not the file; a reader waiting past the window lets the producer go
 * on regardless (a single event larger than the window), so nothing can deadlock.
 *
 * An inflate error (a corrupt or truncated stream) is kept with the offset where it
 * happened: bytes before it read as usual, and the read that reaches it fails with
 * the message instream gave, as in a single-threaded read. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "read/json_chrome.h"

#define BLOCK ((size_t)1 << 20)

struct jr_feed {
    pthread_mutex_t mu;
    pthread_cond_t more; /* data, the end or an error arrived; or cancel */
    pthread_cond_t room; /* the window moved, or a reader waits; or cancel */
    pthread_t thread;
    int started;
    sts_instream *in;
    char **blocks; /* block b holds bytes [b * BLOCK, (b + 1) * BLOCK) */
    size_t nblocks;
    char *spare[8]; /* blocks let go, kept for reuse: the window never needs new memory */
    int nspare;
    uint64_t front;    /* bytes inflated */
    uint64_t low;      /* bytes before this are needed no more */
    uint64_t freed;    /* blocks before this one are freed */
    uint64_t limit;    /* how far the producer may run ahead of `low` */
    uint64_t raw;      /* compressed bytes consumed */
    int waiting;       /* readers blocked at the front */
    int draining;      /* inflate to the end, keeping nothing (sts_jr_feed_drain) */
    int done, cancel;  /* the input ended (or failed); stop */
    sts_status status; /* the error that ended it, or STS_OK */
    sts_error err;
};

/* Blocks are mapped, not malloc'd: a megabyte freed inside malloc's heap stays in the
 * process, and the window would cost what the whole stream inflates to. */
static char *block_new(jr_feed *f)
{
    if (f->nspare) return f->spare[--f->nspare];
    void *p = mmap(NULL, BLOCK, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    return p == MAP_FAILED ? NULL : p;
}

static void block_free(jr_feed *f, char *b)
{
    if (!b) return;
    if (f->nspare < (int)(sizeof f->spare / sizeof f->spare[0]))
        f->spare[f->nspare++] = b;
    else
        munmap(b, BLOCK);
}

/* Makes sure block b exists; called by the producer only, with the lock held. */
static char *block_for(jr_feed *f, size_t b)
{
    if (b >= f->nblocks) {
        size_t n = f->nblocks ? f->nblocks : 64;
        while (n <= b)
            n *= 2;
        char **nb = realloc(f->blocks, n * sizeof *nb);
        if (!nb) return NULL;
        memset(nb + f->nblocks, 0, (n - f->nblocks) * sizeof *nb);
        f->blocks = nb;
        f->nblocks = n;
    }
    if (!f->blocks[b]) f->blocks[b] = block_new(f);
    return f->blocks[b];
}

static void *produce(void *arg)
{
    jr_feed *f = arg;
    pthread_mutex_lock(&f->mu);
    while (!f->cancel && !f->done) {
        while (!f->cancel && f->front - f->low >= f->limit && !f->waiting && !f->draining)
            pthread_cond_wait(&f->room, &f->mu);
        if (f->cancel) break;
        size_t b = (size_t)(f->front / BLOCK), at = (size_t)(f->front % BLOCK);
        while (f->draining && f->freed < b && f->freed < f->nblocks) { /* nobody reads these any more */
            block_free(f, f->blocks[f->freed]);
            f->blocks[f->freed++] = NULL;
        }
        char *blk = block_for(f, b);
        if (!blk) {
            f->status = sts_error_set(&f->err, STS_ERR_NOMEM, (int64_t)f->front, "%s: out of memory inflating",
                                      sts_instream_name(f->in));
            f->done = 1;
            break;
        }
        pthread_mutex_unlock(&f->mu);
        /* Only this thread touches the stream and writes past `front`. */
        sts_error e = STS_ERROR_INIT;
        long got = sts_instream_read(f->in, blk + at, BLOCK - at, &e);
        uint64_t raw = sts_instream_raw_offset(f->in);
        pthread_mutex_lock(&f->mu);
        f->raw = raw;
        if (got > 0) {
            f->front += (uint64_t)got;
        } else {
            f->done = 1;
            if (got < 0) {
                f->status = e.code ? e.code : STS_ERR_IO;
                f->err = e;
            }
        }
        pthread_cond_broadcast(&f->more);
    }
    f->done = 1;
    pthread_cond_broadcast(&f->more);
    pthread_mutex_unlock(&f->mu);
    return NULL;
}

jr_feed *sts_jr_feed_start(sts_instream *in, uint64_t limit)
{
    jr_feed *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->in = in;
    f->limit = limit;
    pthread_mutex_init(&f->mu, NULL);
    pthread_cond_init(&f->more, NULL);
    pthread_cond_init(&f->room, NULL);
    if (pthread_create(&f->thread, NULL, produce, f) != 0) {
        sts_jr_feed_stop(f);
        return NULL;
    }
    f->started = 1;
    return f;
}

void sts_jr_feed_stop(jr_feed *f)
{
    if (!f) return;
    pthread_mutex_lock(&f->mu);
    f->cancel = 1;
    pthread_cond_broadcast(&f->room);
    pthread_cond_broadcast(&f->more);
    pthread_mutex_unlock(&f->mu);
    if (f->started) pthread_join(f->thread, NULL);
    for (size_t b = 0; b < f->nblocks; b++)
        if (f->blocks[b]) munmap(f->blocks[b], BLOCK);
    for (int i = 0; i < f->nspare; i++)
        munmap(f->spare[i], BLOCK);
    free(f->blocks);
    pthread_mutex_destroy(&f->mu);
    pthread_cond_destroy(&f->more);
    pthread_cond_destroy(&f->room);
    free(f);
}

long sts_jr_feed_read(jr_feed *f, uint64_t pos, char *buf, size_t cap, sts_error *err)
{
    pthread_mutex_lock(&f->mu);
    if (pos >= f->front && !f->done) {
        f->waiting++;
        pthread_cond_broadcast(&f->room);
        while (pos >= f->front && !f->done && !f->cancel)
            pthread_cond_wait(&f->more, &f->mu);
        f->waiting--;
    }
    if (pos < f->freed * BLOCK) { /* a reader went back past what was let go: a bug */
        pthread_mutex_unlock(&f->mu);
        sts_error_set(err, STS_ERR_INTERNAL, (int64_t)pos, "%s: byte %llu of the inflated stream is gone",
                      sts_instream_name(f->in), (unsigned long long)pos);
        return -1;
    }
    if (pos >= f->front) {
        long rc = 0;
        if (f->status != STS_OK) {
            if (err) *err = f->err;
            rc = -1;
        } else if (f->cancel) {
            rc = -1;
        }
        pthread_mutex_unlock(&f->mu);
        return rc;
    }
    uint64_t n = f->front - pos;
    size_t in_block = BLOCK - (size_t)(pos % BLOCK);
    if (n > in_block) n = in_block;
    if (n > cap) n = cap;
    const char *src = f->blocks[pos / BLOCK] + pos % BLOCK;
    pthread_mutex_unlock(&f->mu);
    /* The block stays: it is freed only below `low`, which this reader holds up. */
    memcpy(buf, src, (size_t)n);
    return (long)n;
}

void sts_jr_feed_release(jr_feed *f, uint64_t low)
{
    pthread_mutex_lock(&f->mu);
    if (low > f->low) {
        f->low = low;
        while ((f->freed + 1) * BLOCK <= low && f->freed < f->nblocks) {
            block_free(f, f->blocks[f->freed]);
            f->blocks[f->freed] = NULL;
            f->freed++;
        }
        pthread_cond_broadcast(&f->room);
    }
    pthread_mutex_unlock(&f->mu);
}

sts_status sts_jr_feed_drain(jr_feed *f, sts_error *err)
{
    pthread_mutex_lock(&f->mu);
    f->draining = 1;
    pthread_cond_broadcast(&f->room);
    while (!f->done)
        pthread_cond_wait(&f->more, &f->mu);
    sts_status st = f->status;
    if (st != STS_OK && err) *err = f->err;
    pthread_mutex_unlock(&f->mu);
    return st;
}

uint64_t sts_jr_feed_end(jr_feed *f)
{
    pthread_mutex_lock(&f->mu);
    uint64_t end = f->done && f->status == STS_OK ? f->front : UINT64_MAX;
    pthread_mutex_unlock(&f->mu);
    return end;
}

uint64_t sts_jr_feed_raw(jr_feed *f)
{
    pthread_mutex_lock(&f->mu);
    uint64_t raw = f->raw;
    pthread_mutex_unlock(&f->mu);
    return raw;
}
