/* trace: the recorder's clock. Ticks are raw TSC values where the TSC is invariant,
 * else CLOCK_MONOTONIC nanoseconds. Ticks become CLOCK_MONOTONIC nanoseconds through
 * a straight line fitted between two calibration points (session start and stop);
 * docs/trace.md states the accuracy. */
#ifndef STS_TRACE_TCLOCK_H
#define STS_TRACE_TCLOCK_H

#include <stdint.h>

#include "base/clock.h"

#if defined(__x86_64__) || defined(__i386__)
#include <x86intrin.h>
#define STS_HAVE_TSC 1
#else
#define STS_HAVE_TSC 0
#endif

/* One (tick, ns) correspondence and the half-width of its bracket, in ns. */
typedef struct sts_tpoint {
    uint64_t tick;
    int64_t ns;
    int64_t err_ns;
} sts_tpoint;

typedef struct sts_tclock {
    int tsc;         /* ticks are TSC readings */
    sts_tpoint a, b; /* the line's two points; b.tick > a.tick for tsc */
    /* a's ns per tick as 32.32 fixed point: the signal path's conversion, which must
     * not divide wide integers or touch floating point state. */
    uint64_t mult32;
} sts_tclock;

/* 1 when cpuid says the TSC is invariant (0x80000007 EDX bit 8). */
int sts_tsc_invariant(void);

/* CLOCK_MONOTONIC as ticks, out of line so the TSC path needs no call frame. */
uint64_t sts_ticks_monotonic(void);

static inline uint64_t sts_ticks(int tsc)
{
#if STS_HAVE_TSC
    if (__builtin_expect(tsc, 1)) return __rdtsc();
#endif
    return sts_ticks_monotonic();
}

/* A calibration point: the tightest of several TSC / clock_gettime / TSC brackets. */
sts_tpoint sts_tclock_point(int tsc);

/* Starts a clock: point a now and, for the TSC, a provisional rate measured over
 * `spin_ns` (so the signal path can convert before stop). */
void sts_tclock_begin(sts_tclock *c, int tsc, int64_t spin_ns);

/* Takes point b (at stop). */
void sts_tclock_end(sts_tclock *c);

/* Ticks to CLOCK_MONOTONIC ns on the line through a and b. */
int64_t sts_tclock_ns(const sts_tclock *c, uint64_t tick);

/* Ticks to ns with the provisional rate only: integer arithmetic, async-signal-safe. */
int64_t sts_tclock_ns_fast(const sts_tclock *c, uint64_t tick);

/* TSC ticks per ns (0 for the monotonic clock). */
double sts_tclock_ghz(const sts_tclock *c);

/* Bound on a converted timestamp's error against CLOCK_MONOTONIC, in ns: the two
 * brackets' half-widths plus the rounding of the conversion. */
int64_t sts_tclock_error_ns(const sts_tclock *c);

#endif
