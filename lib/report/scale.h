/* report: axes. An axis covers its data with "nice" ticks (1, 2 or 5 times a power of
 * ten) and, for time, picks one unit (ns, µs, ms or s) so every tick label is a plain
 * readable number: never an exponent and never a multiplier printed beside the axis
 * (lesson 1 shows how such a multiplier hides a factor of 1000). */
#ifndef STS_REPORT_SCALE_H
#define STS_REPORT_SCALE_H

#include <stddef.h>

#include "stepscope/format.h" /* sts_fmt_duration, for labels and tooltips */

#define STS_AXIS_MAX_TICKS 24

typedef struct sts_axis {
    double lo, hi; /* domain in base units (ns for time), widened to whole ticks */
    double step;   /* distance between ticks, base units */
    long k0;       /* first tick is k0 * step */
    int nticks;
    double unit;           /* base units per displayed unit (1e6 for ms) */
    const char *unit_name; /* "ns", "µs", "ms", "s"; "" for counts */
    int decimals;          /* digits after the decimal point in every tick label */
} sts_axis;

/* A time axis over [lo_ns, hi_ns] (either order; non-finite values ignored; an empty
 * or zero-width range becomes a small range around it). `target` is the wanted
 * number of tick intervals (about 5). */
void sts_axis_time(sts_axis *a, double lo_ns, double hi_ns, int target);

/* A time axis whose domain is exactly [lo_ns, hi_ns], with nice ticks inside it: for
 * a timeline, where the window's edges are the data's and padding would only shrink
 * it. */
void sts_axis_time_exact(sts_axis *a, double lo_ns, double hi_ns, int target);

/* A count axis: ticks are whole numbers (step at least 1) and there is no unit. */
void sts_axis_count(sts_axis *a, double lo, double hi, int target);

/* A byte axis over [lo, hi] bytes: the unit (B, KiB, MiB, GiB) follows the data's size
 * and the ticks are nice numbers of that unit. */
void sts_axis_bytes(sts_axis *a, double lo, double hi, int target);
/* The value of tick i (0 <= i < nticks), in base units. */
double sts_axis_tick(const sts_axis *a, int i);

/* Maps v (base units) linearly from [lo, hi] onto [px0, px1]. */
double sts_axis_map(const sts_axis *a, double v, double px0, double px1);

/* The label of tick i, as a number in the axis unit ("0.5", "200", "−1"): the minus
 * sign is U+2212. Writes at most n bytes, NUL included. */
void sts_axis_tick_label(const sts_axis *a, int i, char *buf, size_t n);

/* A whole or fractional count with up to 3 decimals, trailing zeros dropped: "1", "2.5". */
void sts_fmt_number(double v, char *buf, size_t n);

#endif
