/* read: the structural index built with SSE2 (every x86-64 CPU has it): 16 bytes per
 * compare, four compares per 64-byte block and class. */
#include "read/json_index_impl.h"

#if defined(__SSE2__)
#include <emmintrin.h>

int sts_jr_index_have_sse2(void)
{
    return 1;
}

static uint64_t prefix_xor(uint64_t x)
{
    return ix_prefix_xor_shifts(x);
}

/* Bit i set where byte i of v is one of the bytes the mask function picks. */
static inline uint64_t bits16(__m128i m)
{
    return (uint64_t)(unsigned)_mm_movemask_epi8(m);
}

static inline void classify(const char *p, ix_masks *m)
{
    const __m128i quote = _mm_set1_epi8('"'), bs = _mm_set1_epi8('\\'), space = _mm_set1_epi8(' '),
                  tab = _mm_set1_epi8('\t'), nl = _mm_set1_epi8('\n'), cr = _mm_set1_epi8('\r'),
                  lower = _mm_set1_epi8(0x20), open = _mm_set1_epi8('{'), close = _mm_set1_epi8('}'),
                  colon = _mm_set1_epi8(':'), comma = _mm_set1_epi8(',');
    m->quote = m->bs = m->ws = m->op = 0;
    for (int i = 0; i < 4; i++) {
        __m128i v = _mm_loadu_si128((const __m128i *)(const void *)(p + 16 * i));
        /* '[' and ']' are '{' and '}' with bit 5 clear, and no other byte is. */
        __m128i folded = _mm_or_si128(v, lower);
        __m128i ws = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(v, space), _mm_cmpeq_epi8(v, tab)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, nl), _mm_cmpeq_epi8(v, cr)));
        __m128i op = _mm_or_si128(_mm_or_si128(_mm_cmpeq_epi8(folded, open), _mm_cmpeq_epi8(folded, close)),
                                  _mm_or_si128(_mm_cmpeq_epi8(v, colon), _mm_cmpeq_epi8(v, comma)));
        unsigned s = 16 * (unsigned)i;
        m->quote |= bits16(_mm_cmpeq_epi8(v, quote)) << s;
        m->bs |= bits16(_mm_cmpeq_epi8(v, bs)) << s;
        m->ws |= bits16(ws) << s;
        m->op |= bits16(op) << s;
    }
}

int sts_jr_index_build_sse2(json_index *ix, const char *buf, size_t from, size_t len)
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

int sts_jr_index_have_sse2(void)
{
    return 0;
}

int sts_jr_index_build_sse2(json_index *ix, const char *buf, size_t from, size_t len)
{
    (void)ix, (void)buf, (void)from, (void)len;
    return -1;
}

#endif
