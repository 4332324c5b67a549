/* read: the structural index built with AVX2 and carry-less multiply, for CPUs that
 * have them (checked at run time; this file is compiled for them with a target
 * attribute, not for the whole build). Two nibble lookups classify 32 bytes at once,
 * and one carry-less multiply by all ones is the prefix XOR. */
#include "read/json_index_impl.h"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define AVX2 __attribute__((target("avx2,pclmul")))

int sts_jr_index_have_avx2(void)
{
    return 1;
}

AVX2 static inline uint64_t prefix_xor(uint64_t x)
{
    __m128i r = _mm_clmulepi64_si128(_mm_set_epi64x(0, (long long)x), _mm_set1_epi8((char)0xff), 0);
    return (uint64_t)_mm_cvtsi128_si64(r);
}

/* Nibble tables: a byte's class is lo[low nibble] & hi[high nibble]. Each bit stands
 * for one rectangle of (high, low) pairs that holds only the bytes it means:
 *   1: 0x20 space   2: 0x09 0x0a 0x0d   4: 0x2c ','   8: 0x3a ':'   16: 0x5b 0x5d 0x7b 0x7d
 * so bits 1|2 are whitespace and 4|8|16 the structural characters. Bytes from 0x80 have
 * high nibbles whose entry is 0. */
AVX2 static inline void classify(const char *p, ix_masks *m)
{
    const __m256i lo_tab = _mm256_setr_epi8(1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2 | 8, 16, 4, 2 | 16, 0, 0, /* */
                                            1, 0, 0, 0, 0, 0, 0, 0, 0, 2, 2 | 8, 16, 4, 2 | 16, 0, 0);
    const __m256i hi_tab = _mm256_setr_epi8(2, 0, 1 | 4, 8, 0, 16, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0, /* */
                                            2, 0, 1 | 4, 8, 0, 16, 0, 16, 0, 0, 0, 0, 0, 0, 0, 0);
    const __m256i nib = _mm256_set1_epi8(0x0f), quote = _mm256_set1_epi8('"'), bs = _mm256_set1_epi8('\\'),
                  wsbits = _mm256_set1_epi8(1 | 2), opbits = _mm256_set1_epi8(4 | 8 | 16),
                  zero = _mm256_setzero_si256();
    __m256i v0 = _mm256_loadu_si256((const __m256i *)(const void *)p);
    __m256i v1 = _mm256_loadu_si256((const __m256i *)(const void *)(p + 32));
    __m256i c0 = _mm256_and_si256(_mm256_shuffle_epi8(lo_tab, _mm256_and_si256(v0, nib)),
                                  _mm256_shuffle_epi8(hi_tab, _mm256_and_si256(_mm256_srli_epi16(v0, 4), nib)));
    __m256i c1 = _mm256_and_si256(_mm256_shuffle_epi8(lo_tab, _mm256_and_si256(v1, nib)),
                                  _mm256_shuffle_epi8(hi_tab, _mm256_and_si256(_mm256_srli_epi16(v1, 4), nib)));
#define BITS(x0, x1) ((uint64_t)(uint32_t)_mm256_movemask_epi8(x0) | (uint64_t)(uint32_t)_mm256_movemask_epi8(x1) << 32)
    m->quote = BITS(_mm256_cmpeq_epi8(v0, quote), _mm256_cmpeq_epi8(v1, quote));
    m->bs = BITS(_mm256_cmpeq_epi8(v0, bs), _mm256_cmpeq_epi8(v1, bs));
    m->ws = ~BITS(_mm256_cmpeq_epi8(_mm256_and_si256(c0, wsbits), zero),
                  _mm256_cmpeq_epi8(_mm256_and_si256(c1, wsbits), zero));
    m->op = ~BITS(_mm256_cmpeq_epi8(_mm256_and_si256(c0, opbits), zero),
                  _mm256_cmpeq_epi8(_mm256_and_si256(c1, opbits), zero));
#undef BITS
}

AVX2 int sts_jr_index_build_avx2(json_index *ix, const char *buf, size_t from, size_t len)
{
    if (sts_jr_index_reserve(ix, len - from) != 0) return -1;
    ix_carry c = { 0, 0, 0, 0 };
    uint32_t *out = ix->pos;
    size_t at = from;
    for (; at + 64 <= len; at += 64) {
        ix_masks m;
        classify(buf + at, &m);
        out = ix_flatten(out, (uint32_t)at, ix_structural(&m, &c, ~(uint64_t)0, prefix_xor));
    }
    if (at < len) { /* the last block runs into the zero padding */
        ix_masks m;
        classify(buf + at, &m);
        out = ix_flatten(out, (uint32_t)at, ix_structural(&m, &c, ((uint64_t)1 << (len - at)) - 1, prefix_xor));
    }
    sts_jr_index_finish(ix, out, (uint32_t)len, &c);
    return 0;
}

#else

int sts_jr_index_have_avx2(void)
{
    return 0;
}

int sts_jr_index_build_avx2(json_index *ix, const char *buf, size_t from, size_t len)
{
    (void)ix, (void)buf, (void)from, (void)len;
    return -1;
}

#endif
