/* trace: mapping a device's clock onto the trace's host clock from causal bounds.
 *
 * The map is a line: host = device + off(device), with off linear in device time,
 * off = (1 - w) u + w v, w = (device - d0) / (d1 - d0). Each bound
 * "lo <= host - device <= hi at device time t" keeps the (u, v) between two lines; all
 * bounds together leave a convex polygon that holds the true line whenever the bounds
 * are true and the two clocks' rates do not change during the session. The map takes
 * its middle; its error over [d0, d1] is the farthest any line of the polygon strays
 * from it there: the true width of what the bounds leave open. */
#ifndef STS_TRACE_DEVCLOCK_H
#define STS_TRACE_DEVCLOCK_H

#include <stddef.h>
#include <stdint.h>

typedef struct sts_devclock {
    int64_t d0, d1;  /* d1 > d0 */
    int64_t ref;     /* u and v are kept relative to this offset, in double */
    double *pu, *pv; /* the polygon's vertices, in order */
    double *tu, *tv; /* scratch for clipping */
    size_t n, cap;
    int nomem;
} sts_devclock;

/* The fitted line. */
typedef struct sts_devmap {
    int ok; /* 0: the bounds contradict each other (or memory ran out) */
    int64_t d0, d1, ref;
    double u, v;      /* off(d0) - ref, off(d1) - ref */
    int64_t error_ns; /* bound on |mapped - true| over [d0, d1], rounding included; -1:
                         unknown (sts_devclock_map) */
} sts_devmap;

/* Starts with every line whose offset stays within ref +- span at d0 and d1. Returns 0,
 * or -1 out of memory. d1 <= d0 is treated as d0 + 1. */
int sts_devclock_init(sts_devclock *c, int64_t d0, int64_t d1, int64_t ref, int64_t span);

void sts_devclock_release(sts_devclock *c);

/* Keeps the lines with lo <= host - device <= hi at device time t. INT64_MIN (lo) or
 * INT64_MAX (hi) leave that side open. */
void sts_devclock_bound(sts_devclock *c, int64_t t, int64_t lo, int64_t hi);

/* The map: the middle of the polygon, with its error over [d0, d1]. */
sts_devmap sts_devclock_fit(const sts_devclock *c);

/* One bound: lo <= host - device <= hi at device time t (INT64_MIN / INT64_MAX: open). */
typedef struct sts_devbound {
    int64_t t, lo, hi;
} sts_devbound;

/* The map over [d0, d1] (offsets kept relative to `ref`, lines within 1000 s of it)
 * from the calibrations' bounds and the commands' own. When they contradict each other
 * some bound was false: the map then comes from the calibrations alone and its
 * error_ns is -1 (unknown). ok is 0 only when memory runs out. */
sts_devmap sts_devclock_map(int64_t d0, int64_t d1, int64_t ref, const sts_devbound *cal, size_t ncal,
                            const sts_devbound *ops, size_t nops);

/* Device ns to host ns on the map's line, rounded to the nearest ns. */
int64_t sts_devmap_host(const sts_devmap *m, int64_t device_ns);

#endif
