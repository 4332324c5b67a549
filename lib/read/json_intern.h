/* read: a fast front for the timeline's string table.
 *
 * The strtab hashes byte by byte, which would cost more than the rest of parsing a
 * Chrome event together. Readers see the same few thousand names, categories and keys
 * millions of times, so this index maps bytes to string ids in two levels:
 *   - a direct-mapped cache keyed by (length, first 8 bytes, last 8 bytes), which
 *     identifies a string of up to 16 bytes outright and needs one compare against the
 *     stored copy for a longer one;
 *   - behind it, an open-addressing table with a word-at-a-time hash of every byte;
 * and calls sts_tl_intern() only for strings it has not seen. Memory grows with the
 * number of distinct strings, like the strtab's own.
 *
 * Integer ids (flow and async "id": 52) get an array of their own, indexed by value.
 * A trace holds one of them per flow, each seen twice, and they run in sequence
 * (Kineto's correlation ids), so neighbouring values share cache lines, where a hash
 * table takes a cache miss for each. The array covers a window of values from the
 * first one seen and grows only while it stays dense; a value outside it goes by its
 * text, as any string does, and when those outnumber the window's own the window
 * starts again from one of them. */
#ifndef STS_READ_JSON_INTERN_H
#define STS_READ_JSON_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "model/timeline_builder.h"

#define JSON_INTERN_FRONT 1024

typedef struct json_intern_front {
    uint64_t w0, w1;
    uint32_t n, id; /* id + 1; 0 = empty */
} json_intern_front;

typedef struct json_intern {
    json_intern_front *front; /* JSON_INTERN_FRONT entries */
    uint64_t *slots;          /* hash << 32 | (id + 1); 0 = empty */
    uint32_t mask, count;
    uint32_t *nums;     /* integer ids: nums[value - nums_base] = id + 1; 0 = none */
    uint64_t nums_base; /* the window's first value */
    uint32_t nums_len, nums_count;
    uint32_t nums_hits, nums_misses; /* lookups in and outside the window since it began */
} json_intern;

/* The string id for the bytes (interned in tl on first sight), or STS_NONE when memory
 * is exhausted. Reads only s[0, n). */
uint32_t sts_jr_intern_get(json_intern *c, sts_timeline *tl, const char *s, size_t n);

/* The string id for an integer written as its canonical decimal text s[0, n) (no
 * sign, no leading zero): the same id sts_jr_intern_get() gives those bytes. */
uint32_t sts_jr_intern_uint(json_intern *c, sts_timeline *tl, uint64_t value, const char *s, size_t n);

void sts_jr_intern_release(json_intern *c);

#endif
