/* bench: seeded standard normal inputs (xoshiro256** and the Box-Muller transform). */
#include <math.h>

#include "stepscope/bench.h"

typedef struct rng {
    uint64_t s[4];
} rng;

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t rotl(uint64_t x, int k)
{
    return (x << k) | (x >> (64 - k));
}

static uint64_t next_u64(rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0];
    s[3] ^= s[1];
    s[1] ^= s[2];
    s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

/* Uniform in [0, 1) with 53 random bits. */
static double next_unit(rng *r)
{
    return (double)(next_u64(r) >> 11) * 0x1.0p-53;
}

void sts_normal_f32(uint64_t seed, float *out, size_t n)
{
    rng r;
    uint64_t x = seed;
    for (int i = 0; i < 4; i++)
        r.s[i] = splitmix64(&x);
    const double two_pi = 6.283185307179586476925286766559;
    for (size_t i = 0; i < n; i += 2) {
        /* 1 - u lies in (0, 1], so the logarithm is finite. */
        double radius = sqrt(-2.0 * log(1.0 - next_unit(&r)));
        double angle = two_pi * next_unit(&r);
        out[i] = (float)(radius * cos(angle));
        if (i + 1 < n) out[i + 1] = (float)(radius * sin(angle));
    }
}
