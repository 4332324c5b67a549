/* read: the structural index of a JSON buffer, stage 1 of the Chrome reader.
 *
 * One pass over the bytes, 64 at a time, classifies each byte (quote, backslash,
 * whitespace, one of {}[]:,) into bit masks, works out which quotes are escaped
 * (those after an odd run of backslashes) and which bytes lie inside strings (a
 * prefix XOR of the real quotes), and writes the offsets of:
 *   - every real quote, opening and closing (so a string's length is a subtraction);
 *   - every {}[]:, outside strings;
 *   - the first byte of every other run outside strings (a number, a literal, or
 *     garbage), where the byte before it is whitespace, a quote or one of {}[]:,.
 * Whitespace between tokens is never visited again: stage 2 (json_walk.c) steps from
 * entry to entry. For valid JSON the index is exact; for anything else it is still a
 * deterministic function of the bytes, and stage 2 rejects the text.
 *
 * Three implementations give identical entries: portable C (one byte at a time), SSE2
 * (x86-64's baseline) and AVX2 with carry-less multiply, chosen at run time from the
 * CPU. They differ only in how a 64-byte block is classified and how the prefix XOR
 * is computed; the rest is shared (json_index_impl.h). */
#ifndef STS_READ_JSON_INDEX_H
#define STS_READ_JSON_INDEX_H

#include <stddef.h>
#include <stdint.h>

/* Entries equal to the indexed length written after the real ones, so stage 2 can
 * read a few entries ahead without a bounds check: the byte there is padding (0),
 * which matches nothing it looks for. */
#define JSON_IX_SENTINELS 8

typedef enum json_index_impl {
    JSON_IX_AUTO = 0, /* the best this CPU runs */
    JSON_IX_SCALAR,
    JSON_IX_SSE2,
    JSON_IX_AVX2
} json_index_impl;

typedef struct json_index {
    uint32_t *pos;     /* offsets from the buffer's start, ascending, then the sentinels */
    size_t n;          /* real entries */
    size_t cap;        /* room for entries (not bytes) */
    int any_backslash; /* the indexed bytes hold a '\\' somewhere */
} json_index;

/* Indexes buf[from, len). `from` must lie outside any string (the start of a value or
 * whitespace between tokens), and buf must be followed by at least 64 zero bytes
 * (JSON_PAD). Offsets are from buf. Returns 0, or -1 when memory is exhausted. */
int sts_jr_index_build(json_index *ix, const char *buf, size_t from, size_t len);

/* The same with a chosen implementation; one the CPU lacks falls back to the best it
 * has (see sts_jr_index_resolve). For tests and benchmarks. */
int sts_jr_index_build_with(json_index *ix, const char *buf, size_t from, size_t len, json_index_impl impl);

/* The implementation a request runs: AUTO becomes the best available (or what
 * STEPSCOPE_JSON_SIMD names: scalar, sse2, avx2), and one the CPU lacks steps down. */
json_index_impl sts_jr_index_resolve(json_index_impl want);

/* "scalar", "sse2", "avx2". */
const char *sts_jr_index_impl_name(json_index_impl impl);

/* The first entry at or after offset `off` (binary search), as an index into pos. */
size_t sts_jr_index_lower_bound(const json_index *ix, uint32_t off);

void sts_jr_index_release(json_index *ix);

#endif
