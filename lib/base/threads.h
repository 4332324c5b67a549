/* base: work shared among threads. */
#ifndef STS_BASE_THREADS_H
#define STS_BASE_THREADS_H

#include <stddef.h>

/* The cores online, from 1 to 256 (a machine that reports none counts as one; beyond
 * 256, threads cost more than they bring to any stage here). What "one thread per
 * core" means for -j 0. */
int sts_cores(void);

/* Runs fn on each of n argument blocks, `size` bytes apart from `blocks`, on up to
 * `threads` threads, this one among them: each thread takes the next block no thread
 * has taken, so a block as large as the rest together runs beside all the others. A
 * thread that cannot be started leaves its share to those that could; every block is
 * run exactly once either way, and fn's results must not depend on which thread ran a
 * block. fn also gets the running thread's number, from 0 to threads - 1 (this thread
 * is 0), for scratch kept per thread from block to block. Returns when every block is
 * done. */
void sts_run_parts(void (*fn)(void *block, size_t thread), void *blocks, size_t size, size_t n, size_t threads);

#endif
