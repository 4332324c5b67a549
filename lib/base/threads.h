/* base: work shared among threads. */
#ifndef STS_BASE_THREADS_H
#define STS_BASE_THREADS_H

#include <stddef.h>
#include <stdint.h>

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

/* sts_run_parts, the blocks taken heaviest first (by weight[i], ties in array order),
 * where the array's own order could leave a large block to run alone at the end while
 * the other threads wait. The blocks stay where they are. */
void sts_run_parts_heaviest_first(void (*fn)(void *block, size_t thread), void *blocks, size_t size, size_t n,
                                  size_t threads, const uint64_t *weight);

/* Cuts items 0..n-1 (lanes, say) into at most `parts` runs of about equal weight: run
 * k is items [cut[k], cut[k + 1]), each cut at the item boundary nearest its share of
 * the total. cut needs parts + 1 entries. Returns the runs made: fewer where an item
 * outweighs a share; one when parts is 0 or 1 or nothing weighs. */
size_t sts_cut_even(size_t n, uint64_t (*weight)(const void *ctx, size_t i), const void *ctx, size_t parts,
                    size_t *cut);

#endif
