#include "trace/tclock.h"

#if STS_HAVE_TSC
#include <cpuid.h>
#endif

__attribute__((noinline)) uint64_t sts_ticks_monotonic(void)
{
    return (uint64_t)sts_clock_ns();
}

int sts_tsc_invariant(void)
{
#if STS_HAVE_TSC
    unsigned a, b, c, d;
    if (!__get_cpuid(0x80000000u, &a, &b, &c, &d) || a < 0x80000007u) return 0;
    if (!__get_cpuid(0x80000007u, &a, &b, &c, &d)) return 0;
    return (d >> 8) & 1u;
#else
    return 0;
#endif
}

sts_tpoint sts_tclock_point(int tsc)
{
    sts_tpoint best = { 0, 0, INT64_MAX };
    if (!tsc) {
        int64_t t = sts_clock_ns();
        sts_tpoint p = { (uint64_t)t, t, 0 };
        return p;
    }
    /* A preemption or an interrupt widens one bracket; the narrowest of several is
     * the one that says most precisely when clock_gettime read the clock. */
    uint64_t best_width = UINT64_MAX;
    for (int i = 0; i < 16; i++) {
        uint64_t t0 = sts_ticks(1);
        int64_t ns = sts_clock_ns();
        uint64_t t1 = sts_ticks(1);
        if (t1 - t0 < best_width) {
            best_width = t1 - t0;
            best.tick = t0 + (t1 - t0) / 2;
            best.ns = ns;
            best.err_ns = (int64_t)(t1 - t0); /* ticks for now; scaled below */
        }
    }
    return best;
}

/* Ticks of a point's bracket to ns, once the rate is known. */
static void scale_err(sts_tpoint *p, double ns_per_tick)
{
    p->err_ns = (int64_t)((double)p->err_ns * ns_per_tick / 2.0) + 1;
}

void sts_tclock_begin(sts_tclock *c, int tsc, int64_t spin_ns)
{
    c->tsc = tsc;
    c->a = sts_tclock_point(tsc);
    c->b = c->a;
    c->mult32 = (uint64_t)1 << 32;
    if (!tsc) return;
    while (sts_clock_ns() - c->a.ns < spin_ns) {
    }
    sts_tpoint p = sts_tclock_point(1);
    double ns_per_tick = (double)(p.ns - c->a.ns) / (double)(p.tick - c->a.tick);
    c->mult32 = (uint64_t)(ns_per_tick * 4294967296.0);
    scale_err(&c->a, ns_per_tick);
    scale_err(&p, ns_per_tick);
    c->b = p;
}

void sts_tclock_end(sts_tclock *c)
{
    if (!c->tsc) return;
    sts_tpoint p = sts_tclock_point(1);
    if (p.tick <= c->a.tick || p.ns <= c->a.ns) return; /* keep the provisional line */
    scale_err(&p, (double)c->mult32 / 4294967296.0);
    c->b = p;
}

int64_t sts_tclock_ns(const sts_tclock *c, uint64_t tick)
{
    if (!c->tsc) return (int64_t)tick;
    int64_t dt = (int64_t)(tick - c->a.tick);
    __int128 num = (__int128)dt * (c->b.ns - c->a.ns);
    int64_t den = (int64_t)(c->b.tick - c->a.tick);
    if (den <= 0) return sts_tclock_ns_fast(c, tick);
    /* Round to nearest, symmetrically, so conversion stays monotonic. */
    __int128 q = num >= 0 ? (num + den / 2) / den : -((-num + den / 2) / den);
    return c->a.ns + (int64_t)q;
}

int64_t sts_tclock_ns_fast(const sts_tclock *c, uint64_t tick)
{
    if (!c->tsc) return (int64_t)tick;
    if (tick >= c->a.tick) {
        unsigned __int128 p = (unsigned __int128)(tick - c->a.tick) * c->mult32;
        return c->a.ns + (int64_t)(p >> 32);
    }
    unsigned __int128 p = (unsigned __int128)(c->a.tick - tick) * c->mult32;
    return c->a.ns - (int64_t)(p >> 32);
}

double sts_tclock_ghz(const sts_tclock *c)
{
    if (!c->tsc || c->b.ns <= c->a.ns) return 0.0;
    return (double)(c->b.tick - c->a.tick) / (double)(c->b.ns - c->a.ns);
}

int64_t sts_tclock_error_ns(const sts_tclock *c)
{
    if (!c->tsc) return 0;
    int64_t e = c->a.err_ns > c->b.err_ns ? c->a.err_ns : c->b.err_ns;
    return e + 1;
}
