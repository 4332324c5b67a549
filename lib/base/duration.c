/* base: the one duration formatter (rule in stepscope/format.h). */
#include "stepscope/format.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

static const struct {
    uint64_t size; /* ns per unit */
    const char *name;
} units[] = { { 1, "ns" }, { 1000, "\xc2\xb5s" }, { 1000000, "ms" }, { 1000000000, "s" } };

#define NUNITS (sizeof units / sizeof units[0])
#define TWO_63 9223372036854775808.0

static const uint64_t pow10_[] = { 1, 10, 100, 1000 };

/* The largest unit not larger than m. */
static size_t unit_for(double m)
{
    size_t u = 0;
    while (u + 1 < NUNITS && m >= (double)units[u + 1].size)
        u++;
    return u;
}

static int digits(uint64_t q)
{
    int d = 1;
    while (q >= 10)
        q /= 10, d++;
    return d;
}

/* m whole nanoseconds, in exact integer arithmetic: r is m / unit, rounded half away
 * from zero to `dec` decimals, times 10^dec. */
static void whole_ns(uint64_t m, const char *sign, char *buf, size_t n)
{
    size_t u = unit_for((double)m);
    uint64_t size = units[u].size, r = m / size;
    int dec = 0;
    if (m % size) { /* not whole: three significant digits; here size >= 1000, r >= 1 */
        dec = 3 - digits(r);
        if (dec < 0) dec = 0;
        uint64_t div = size / pow10_[dec];
        r = m / div + (m % div >= div / 2);
        if (dec > 0 && r == 1000) r /= 10, dec--; /* 99.96 -> 100, not 100.0 */
        if (dec == 0 && r == 1000 && u + 1 < NUNITS) {
            u++; /* 999.7 us -> 1.00 ms */
            r = 100;
            dec = 2;
        }
    }
    char num[STS_FMT_DURATION_MAX];
    uint64_t p = pow10_[dec], frac = r % p;
    int k = snprintf(num, sizeof num, "%llu", (unsigned long long)(r / p));
    if (dec) {
        num[k] = '.';
        for (int i = dec; i > 0; i--, frac /= 10)
            num[k + i] = (char)('0' + frac % 10);
        num[k + dec + 1] = 0;
    }
    snprintf(buf, n, "%s%s %s", sign, num, units[u].name);
}

/* A fraction of a nanosecond somewhere (a mean): three significant digits of the double,
 * at most three decimals. */
static void fractional_ns(double m, const char *sign, char *buf, size_t n)
{
    size_t u = unit_for(m);
    double v = m / (double)units[u].size;
    int dec = 2 - (int)floor(log10(v));
    dec = dec < 0 ? 0 : dec > 3 ? 3 : dec;
    char num[STS_FMT_DURATION_MAX];
    snprintf(num, sizeof num, "%.*f", dec, v);
    double shown = atof(num);
    if (dec > 0 && shown >= pow(10, 3 - dec)) snprintf(num, sizeof num, "%.*f", --dec, v), shown = atof(num);
    if (shown >= 1000 && u + 1 < NUNITS) snprintf(num, sizeof num, "%.2f", m / (double)units[++u].size);
    snprintf(buf, n, "%s%s %s", shown == 0 ? "" : sign, num, units[u].name);
}

void sts_fmt_duration(double ns, char *buf, size_t n)
{
    if (isnan(ns) || isinf(ns)) {
        snprintf(buf, n, "unknown");
        return;
    }
    const char *sign = ns < 0 ? "-" : "";
    double m = fabs(ns);
    if (m >= TWO_63)
        snprintf(buf, n, "%s%.3g s", sign, m / 1e9);
    else if (m == floor(m))
        whole_ns((uint64_t)m, sign, buf, n);
    else
        fractional_ns(m, sign, buf, n);
}

int sts_fmt_field(const char *s, int width)
{
    int extra = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p; p++)
        extra += (*p & 0xc0) == 0x80; /* a continuation byte adds no column */
    return width + extra;
}
