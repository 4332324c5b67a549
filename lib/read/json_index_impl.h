/* read: what the structural index implementations share (json_index*.c only).
 *
 * An implementation classifies a 64-byte block into four masks (bit i for byte i);
 * everything after that is the same integer arithmetic for all of them, so their
 * entries are identical by construction. The one other difference, the prefix XOR,
 * is passed in as a function and is exact either way. */
#ifndef STS_READ_JSON_INDEX_IMPL_H
#define STS_READ_JSON_INDEX_IMPL_H

#include <stdint.h>

#include "read/json_index.h"

#define IX_INLINE static inline __attribute__((always_inline))

typedef struct ix_masks {
    uint64_t quote; /* '"' */
    uint64_t bs;    /* '\\' */
    uint64_t ws;    /* space, tab, newline, carriage return */
    uint64_t op;    /* { } [ ] : , */
} ix_masks;

/* What one block hands to the next. */
typedef struct ix_carry {
    uint64_t in_str;  /* all ones when the block starts inside a string */
    uint64_t escaped; /* 1 when its first byte is escaped by a backslash run before it */
    uint64_t scalar;  /* 1 when the byte before it is part of a run outside strings */
    uint64_t any_bs;  /* some block had a backslash */
} ix_carry;

/* Bytes escaped by a backslash: the one after each odd-length run. Traces rarely hold
 * backslashes, so the loop over runs costs nothing in the common case. */
IX_INLINE uint64_t ix_escaped(uint64_t bs, uint64_t *carry)
{
    uint64_t esc = 0;
    if (*carry) {
        esc = 1;
        bs &= ~(uint64_t)1; /* an escaped backslash starts no run */
    }
    *carry = 0;
    while (bs) {
        unsigned i = (unsigned)__builtin_ctzll(bs);
        uint64_t run = ~(bs >> i); /* zeros shifted in from the top end the run */
        unsigned len = run ? (unsigned)__builtin_ctzll(run) : 64 - i;
        unsigned end = i + len;
        if (len & 1) {
            if (end < 64)
                esc |= (uint64_t)1 << end;
            else
                *carry = 1;
        }
        bs = end < 64 ? bs & ~(((uint64_t)1 << end) - 1) : 0;
    }
    return esc;
}

/* The portable prefix XOR: bit i becomes the XOR of bits 0..i. */
IX_INLINE uint64_t ix_prefix_xor_shifts(uint64_t x)
{
    x ^= x << 1;
    x ^= x << 2;
    x ^= x << 4;
    x ^= x << 8;
    x ^= x << 16;
    x ^= x << 32;
    return x;
}

/* The structural bits of a block (see json_index.h for what they are). `valid` masks
 * off the bytes past the end of the data. */
IX_INLINE uint64_t ix_structural(const ix_masks *m, ix_carry *c, uint64_t valid, uint64_t (*prefix_xor)(uint64_t))
{
    uint64_t bs = m->bs & valid;
    uint64_t escaped = 0;
    if (bs | c->escaped) {
        c->any_bs |= bs;
        escaped = ix_escaped(bs, &c->escaped);
    }
    uint64_t quotes = m->quote & ~escaped & valid;
    uint64_t in_str = prefix_xor(quotes) ^ c->in_str;
    c->in_str = (uint64_t)((int64_t)in_str >> 63);
    uint64_t scalar = ~(m->ws | m->op | quotes);
    uint64_t follows = scalar << 1 | c->scalar;
    c->scalar = scalar >> 63;
    uint64_t starts = scalar & ~follows;
    return (((m->op | starts) & ~in_str) | quotes) & valid;
}

/* Appends base + the position of each set bit of s. Writes in groups of 8, so up to 7
 * entries past the returned end are scribbled on (the caller keeps room). */
IX_INLINE uint32_t *ix_flatten(uint32_t *out, uint32_t base, uint64_t s)
{
    const uint64_t top = (uint64_t)1 << 63; /* keeps ctz defined once s runs out */
    uint32_t *end = out + __builtin_popcountll(s);
#define IX_PUT(i)                                           \
    do {                                                    \
        out[i] = base + (uint32_t)__builtin_ctzll(s | top); \
        s &= s - 1;                                         \
    } while (0)
    while (out < end) {
        IX_PUT(0);
        IX_PUT(1);
        IX_PUT(2);
        IX_PUT(3);
        IX_PUT(4);
        IX_PUT(5);
        IX_PUT(6);
        IX_PUT(7);
        out += 8;
    }
#undef IX_PUT
    return end;
}

/* Room the builders need: every byte could be an entry, plus the 7 of a flatten
 * group, the sentinels and a block of slack. Returns -1 on no memory. */
int sts_jr_index_reserve(json_index *ix, size_t bytes);

/* Ends the entries at `end` and writes the sentinels. */
void sts_jr_index_finish(json_index *ix, uint32_t *end, uint32_t len, const ix_carry *c);

/* The SIMD builders (json_index_sse2.c, json_index_avx2.c), same contract as
 * sts_jr_index_build; the AVX2 one only runs where the CPU has AVX2 and PCLMUL. */
int sts_jr_index_build_sse2(json_index *ix, const char *buf, size_t from, size_t len);
int sts_jr_index_build_avx2(json_index *ix, const char *buf, size_t from, size_t len);
/* 1 when compiled in (x86-64 with a compiler that can target it). */
int sts_jr_index_have_sse2(void);
int sts_jr_index_have_avx2(void);

#endif
