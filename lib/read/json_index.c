/* read: the structural index, the portable builder and the choice between builders. */
#include <stdlib.h>
#include <string.h>

#include "read/json_index_impl.h"

int sts_jr_index_reserve(json_index *ix, size_t bytes)
{
    size_t need = bytes + 64 + 8 + JSON_IX_SENTINELS;
    if (need <= ix->cap) return 0;
    size_t cap = ix->cap ? ix->cap : 4096;
    while (cap < need)
        cap *= 2;
    /* The old entries are never kept across builds: no copy needed. */
    uint32_t *pos = malloc(cap * sizeof *pos);
    if (!pos) return -1;
    free(ix->pos);
    ix->pos = pos;
    ix->cap = cap;
    return 0;
}

void sts_jr_index_finish(json_index *ix, uint32_t *end, uint32_t len, const ix_carry *c)
{
    ix->n = (size_t)(end - ix->pos);
    for (int i = 0; i < JSON_IX_SENTINELS; i++)
        end[i] = len;
    ix->any_backslash = c->any_bs != 0;
}

/* 1 quote, 2 backslash, 4 whitespace, 8 one of {}[]:, */
static const uint8_t byte_class[256] = {
    ['"'] = 1, ['\\'] = 2, [' '] = 4, ['\t'] = 4, ['\n'] = 4, ['\r'] = 4,
    ['{'] = 8, ['}'] = 8,  ['['] = 8, [']'] = 8,  [':'] = 8,  [','] = 8,
};

static uint64_t prefix_xor(uint64_t x)
{
    return ix_prefix_xor_shifts(x);
}

static int build_scalar(json_index *ix, const char *buf, size_t from, size_t len)
{
    if (sts_jr_index_reserve(ix, len - from) != 0) return -1;
    ix_carry c = { 0, 0, 0, 0 };
    uint32_t *out = ix->pos;
    for (size_t at = from; at < len; at += 64) {
        ix_masks m = { 0, 0, 0, 0 };
        const unsigned char *p = (const unsigned char *)buf + at;
        for (unsigned i = 0; i < 64; i++) {
            uint64_t bit = (uint64_t)1 << i;
            unsigned k = byte_class[p[i]];
            if (k & 1) m.quote |= bit;
            if (k & 2) m.bs |= bit;
            if (k & 4) m.ws |= bit;
            if (k & 8) m.op |= bit;
        }
        size_t left = len - at;
        uint64_t valid = left >= 64 ? ~(uint64_t)0 : ((uint64_t)1 << left) - 1;
        out = ix_flatten(out, (uint32_t)at, ix_structural(&m, &c, valid, prefix_xor));
    }
    sts_jr_index_finish(ix, out, (uint32_t)len, &c);
    return 0;
}

static int avx2_usable(void)
{
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
    return sts_jr_index_have_avx2() && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("pclmul");
#else
    return 0;
#endif
}

static json_index_impl from_env(void)
{
    const char *v = getenv("STEPSCOPE_JSON_SIMD");
    if (!v || !*v) return JSON_IX_AUTO;
    if (strcmp(v, "scalar") == 0) return JSON_IX_SCALAR;
    if (strcmp(v, "sse2") == 0) return JSON_IX_SSE2;
    if (strcmp(v, "avx2") == 0) return JSON_IX_AVX2;
    return JSON_IX_AUTO;
}

json_index_impl sts_jr_index_resolve(json_index_impl want)
{
    if (want == JSON_IX_AUTO) want = from_env();
    if (want == JSON_IX_AUTO) want = JSON_IX_AVX2;
    if (want == JSON_IX_AVX2 && !avx2_usable()) want = JSON_IX_SSE2;
    if (want == JSON_IX_SSE2 && !sts_jr_index_have_sse2()) want = JSON_IX_SCALAR;
    return want;
}

const char *sts_jr_index_impl_name(json_index_impl impl)
{
    switch (impl) {
    case JSON_IX_SCALAR:
        return "scalar";
    case JSON_IX_SSE2:
        return "sse2";
    case JSON_IX_AVX2:
        return "avx2";
    default:
        return "auto";
    }
}

int sts_jr_index_build_with(json_index *ix, const char *buf, size_t from, size_t len, json_index_impl impl)
{
    if (len > UINT32_MAX - 64) return -1; /* offsets are 32-bit; the reader's buffer never gets near */
    switch (sts_jr_index_resolve(impl)) {
    case JSON_IX_AVX2:
        return sts_jr_index_build_avx2(ix, buf, from, len);
    case JSON_IX_SSE2:
        return sts_jr_index_build_sse2(ix, buf, from, len);
    default:
        return build_scalar(ix, buf, from, len);
    }
}

int sts_jr_index_build(json_index *ix, const char *buf, size_t from, size_t len)
{
    static json_index_impl best; /* resolved once; racing threads compute the same value */
    json_index_impl impl = __atomic_load_n(&best, __ATOMIC_RELAXED);
    if (impl == JSON_IX_AUTO) {
        impl = sts_jr_index_resolve(JSON_IX_AUTO);
        __atomic_store_n(&best, impl, __ATOMIC_RELAXED);
    }
    return sts_jr_index_build_with(ix, buf, from, len, impl);
}

size_t sts_jr_index_lower_bound(const json_index *ix, uint32_t off)
{
    size_t lo = 0, hi = ix->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (ix->pos[mid] < off)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

void sts_jr_index_release(json_index *ix)
{
    free(ix->pos);
    memset(ix, 0, sizeof *ix);
}
