#include "base/threads.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <unistd.h>

#define MAX_THREADS 256

int sts_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n < 1 ? 1 : n > MAX_THREADS ? MAX_THREADS : (int)n;
}

typedef struct queue {
    void (*fn)(void *, size_t);
    char *blocks;
    size_t size, n;
    const size_t *order; /* the k-th block taken is blocks[order[k]]; NULL: blocks[k] */
    atomic_size_t next;
} queue;

typedef struct taker {
    queue *q;
    size_t thread;
} taker;

static void *take(void *arg)
{
    const taker *t = arg;
    queue *q = t->q;
    size_t k;
    while ((k = atomic_fetch_add_explicit(&q->next, 1, memory_order_relaxed)) < q->n)
        q->fn(q->blocks + (q->order ? q->order[k] : k) * q->size, t->thread);
    return NULL;
}

static void run_queue(queue *q, size_t threads)
{
    if (threads > q->n) threads = q->n;
    if (threads > MAX_THREADS) threads = MAX_THREADS;
    pthread_t th[MAX_THREADS];
    taker tk[MAX_THREADS];
    size_t started = 0;
    for (; started + 1 < threads; started++) {
        tk[started + 1] = (taker){ q, started + 1 };
        if (pthread_create(&th[started], NULL, take, &tk[started + 1]) != 0) break;
    }
    tk[0] = (taker){ q, 0 };
    take(&tk[0]);
    for (size_t k = 0; k < started; k++)
        pthread_join(th[k], NULL);
}

void sts_run_parts(void (*fn)(void *block, size_t thread), void *blocks, size_t size, size_t n, size_t threads)
{
    queue q = { fn, blocks, size, n, NULL, 0 };
    run_queue(&q, threads);
}

void sts_run_parts_heaviest_first(void (*fn)(void *block, size_t thread), void *blocks, size_t size, size_t n,
                                  size_t threads, const uint64_t *weight)
{
    /* Without memory for the order, array order: the same results, only later. */
    size_t *order = malloc((n ? n : 1) * sizeof *order);
    for (size_t i = 0; order && i < n; i++) { /* insertion: a few hundred parts at most */
        size_t j = i;
        for (; j > 0 && weight[order[j - 1]] < weight[i]; j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    queue q = { fn, blocks, size, n, order, 0 };
    run_queue(&q, threads);
    free(order);
}

size_t sts_cut_even(size_t n, uint64_t (*weight)(const void *ctx, size_t i), const void *ctx, size_t parts, size_t *cut)
{
    uint64_t total = 0, before = 0; /* the weight of all items; of items [0, i) */
    for (size_t i = 0; i < n; i++)
        total += weight(ctx, i);
    if (total == 0) parts = 1;
    size_t made = 0, i = 0;
    cut[0] = 0;
    for (size_t k = 1; k < parts; k++) {
        uint64_t want = total / parts * k + total % parts * k / parts;
        while (i < n && before + weight(ctx, i) <= want)
            before += weight(ctx, i++);
        /* before <= want < before + item i's: the nearer boundary */
        size_t at = i < n && before + weight(ctx, i) - want < want - before ? i + 1 : i;
        if (at > cut[made] && at < n) cut[++made] = at;
    }
    cut[++made] = n;
    return made;
}
