#include "report/scale.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

static const struct {
    double size;
    const char *name;
} time_units[] = { { 1e9, "s" }, { 1e6, "ms" }, { 1e3, "\xc2\xb5s" }, { 1, "ns" } };

/* The smallest of 1, 2, 5 or 10 times 10^e that is >= raw. */
static double nice_step(double raw, double min_step)
{
    if (!(raw > 0) || !isfinite(raw)) raw = min_step > 0 ? min_step : 1;
    double e = floor(log10(raw));
    double mag = pow(10, e);
    double f = raw / mag, m;
    if (f <= 1 + 1e-9)
        m = 1;
    else if (f <= 2 + 1e-9)
        m = 2;
    else if (f <= 5 + 1e-9)
        m = 5;
    else
        m = 10;
    double step = m * mag;
    return step < min_step ? min_step : step;
}

static void sanitize(double *lo, double *hi, double pad_if_zero)
{
    if (!isfinite(*lo)) *lo = isfinite(*hi) ? *hi : 0;
    if (!isfinite(*hi)) *hi = *lo;
    if (*lo > *hi) {
        double t = *lo;
        *lo = *hi;
        *hi = t;
    }
    if (*hi == *lo) {
        /* Nothing to span: show a small range that still contains the value. */
        if (*lo == 0)
            *hi = pad_if_zero;
        else if (*lo > 0)
            *lo = 0;
        else
            *hi = 0;
    }
}

static void layout(sts_axis *a, double lo, double hi, int target, double min_step)
{
    if (target < 1) target = 1;
    double step = nice_step((hi - lo) / target, min_step);
    /* Keep the tick count bounded whatever the caller's target. */
    while ((hi - lo) / step > STS_AXIS_MAX_TICKS - 2)
        step = nice_step(step * 1.5, min_step);
    double k0 = floor(lo / step + 1e-9), k1 = ceil(hi / step - 1e-9);
    if (k1 <= k0) k1 = k0 + 1;
    a->step = step;
    a->k0 = (long)k0;
    a->nticks = (int)(k1 - k0) + 1;
    a->lo = k0 * step;
    a->hi = k1 * step;
}

void sts_axis_time(sts_axis *a, double lo_ns, double hi_ns, int target)
{
    memset(a, 0, sizeof *a);
    sanitize(&lo_ns, &hi_ns, 1000);
    layout(a, lo_ns, hi_ns, target, 0);
    /* The unit follows the data's size, so 812 µs reads "800" on a µs axis rather
     * than "0.8" on a ms one. */
    double m = fmax(fabs(lo_ns), fabs(hi_ns));
    size_t u = 0;
    while (u + 1 < sizeof time_units / sizeof time_units[0] && m < time_units[u].size)
        u++;
    a->unit = time_units[u].size;
    a->unit_name = time_units[u].name;
    double s = a->step / a->unit;
    int d = (int)-floor(log10(s) + 1e-9);
    a->decimals = d > 0 ? d : 0;
}

void sts_axis_time_exact(sts_axis *a, double lo_ns, double hi_ns, int target)
{
    sts_axis_time(a, lo_ns, hi_ns, target);
    sanitize(&lo_ns, &hi_ns, 1000);
    double k0 = ceil(lo_ns / a->step - 1e-9), k1 = floor(hi_ns / a->step + 1e-9);
    a->k0 = (long)k0;
    a->nticks = k1 >= k0 ? (int)(k1 - k0) + 1 : 0;
    a->lo = lo_ns;
    a->hi = hi_ns;
}

void sts_axis_count(sts_axis *a, double lo, double hi, int target)
{
    memset(a, 0, sizeof *a);
    sanitize(&lo, &hi, 1);
    layout(a, lo, hi, target, 1);
    a->unit = 1;
    a->unit_name = "";
    a->decimals = 0;
}

void sts_axis_bytes(sts_axis *a, double lo, double hi, int target)
{
    static const struct {
        double size;
        const char *name;
    } units[] = { { 1073741824.0, "GiB" }, { 1048576.0, "MiB" }, { 1024.0, "KiB" }, { 1, "B" } };
    memset(a, 0, sizeof *a);
    sanitize(&lo, &hi, 1024);
    /* The unit that leaves at least ten of it at the top, so ticks need few decimals;
     * the ticks are laid out in that unit, so they read 20, 40 MiB, never 19.07. */
    double m = fmax(fabs(lo), fabs(hi));
    size_t u = 0;
    while (u + 1 < sizeof units / sizeof units[0] && m < 10 * units[u].size)
        u++;
    layout(a, lo / units[u].size, hi / units[u].size, target, u + 1 == sizeof units / sizeof units[0] ? 1 : 0);
    a->unit = units[u].size;
    a->unit_name = units[u].name;
    a->lo *= a->unit;
    a->hi *= a->unit;
    a->step *= a->unit;
    double st = a->step / a->unit;
    int d = (int)-floor(log10(st) + 1e-9);
    a->decimals = d > 0 ? d : 0;
}

double sts_axis_tick(const sts_axis *a, int i)
{
    return (double)(a->k0 + i) * a->step;
}

double sts_axis_map(const sts_axis *a, double v, double px0, double px1)
{
    if (!(a->hi > a->lo)) return px0;
    return px0 + (v - a->lo) / (a->hi - a->lo) * (px1 - px0);
}

/* Writes |v| with `dec` decimals, prefixed by U+2212 when negative (and not -0). */
static void fmt_signed(double v, int dec, char *buf, size_t n)
{
    char num[64];
    snprintf(num, sizeof num, "%.*f", dec, fabs(v));
    int zero = 1;
    for (const char *p = num; *p; p++)
        if (*p >= '1' && *p <= '9') zero = 0;
    /* A label longer than the caller's buffer is cut there, as it asked. */
    if (snprintf(buf, n, "%s%s", v < 0 && !zero ? "\xe2\x88\x92" : "", num) < 0 && n) buf[0] = 0;
}

void sts_axis_tick_label(const sts_axis *a, int i, char *buf, size_t n)
{
    fmt_signed(sts_axis_tick(a, i) / a->unit, a->decimals, buf, n);
}

void sts_fmt_number(double v, char *buf, size_t n)
{
    char num[64];
    fmt_signed(v, 3, num, sizeof num);
    char *dot = strchr(num, '.');
    if (dot) {
        char *end = num + strlen(num) - 1;
        while (end > dot && *end == '0')
            *end-- = 0;
        if (end == dot) *end = 0;
    }
    snprintf(buf, n, "%s", num);
}
