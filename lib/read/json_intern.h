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
 * number of distinct strings, like the strtab's own. */
#ifndef STS_READ_JSON_INTERN_H
#define STS_READ_JSON_INTERN_H

#include <stddef.h>
#include <stdint.h>

#include "model/timeline_impl.h"

#define JSON_INTERN_FRONT 1024

typedef struct json_intern_front {
    uint64_t w0, w1;
    uint32_t n, id; /* id + 1; 0 = empty */
} json_intern_front;

typedef struct json_intern {
    json_intern_front *front; /* JSON_INTERN_FRONT entries */
    uint64_t *slots;          /* hash << 32 | (id + 1); 0 = empty */
    uint32_t mask, count;
} json_intern;

/* The string id for the bytes (interned in tl on first sight), or STS_NONE when memory
 * is exhausted. Reads only s[0, n). */
uint32_t sts_jr_intern_get(json_intern *c, sts_timeline *tl, const char *s, size_t n);

void sts_jr_intern_release(json_intern *c);

#endif
