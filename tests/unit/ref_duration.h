/* tests: the duration rule of stepscope/format.h computed independently, for whole
 * nanoseconds: by editing the decimal digits as text, where the library divides
 * integers. */
#ifndef STS_TEST_REF_DURATION_H
#define STS_TEST_REF_DURATION_H

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

/* Writes the expected text for `ns` into out (at least 48 bytes); returns out. */
static char *ref_duration(int64_t ns, char *out)
{
    static const char *const unit[] = { "ns", "\xc2\xb5s", "ms", "s" };
    char d[32];
    snprintf(d, sizeof d, "%" PRIu64, ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns);
    const char *sign = ns < 0 ? "-" : "";
    size_t len = strlen(d);
    int u = len >= 10 ? 3 : len >= 7 ? 2 : len >= 4 ? 1 : 0;
    size_t ip = len - 3 * (size_t)u; /* digits before the unit's decimal point */
    if (strspn(d + ip, "0") == len - ip) {
        snprintf(out, 48, "%s%.*s %s", sign, (int)ip, d, unit[u]);
        return out;
    }
    size_t keep = ip > 3 ? ip : 3; /* significant digits kept */
    char k[40] = "0";              /* k[0] takes a carry out of the first digit */
    memcpy(k + 1, d, keep);
    k[keep + 1] = 0;
    if (d[keep] >= '5') { /* half away from zero */
        size_t i = keep;
        while (k[i] == '9')
            k[i--] = '0';
        k[i]++;
    }
    char *s = k + 1;
    if (k[0] == '1') { /* 9.996 -> 10.00: one more integer digit */
        s = k;
        ip++;
        if (keep > ip - 1) k[keep] = 0; /* it had decimals: drop one to keep three digits */
    }
    if (ip == 4 && u < 3) { /* 999.7 -> 1000: the next unit, as 1.00 */
        snprintf(out, 48, "%s1.00 %s", sign, unit[u + 1]);
        return out;
    }
    snprintf(out, 48, "%s%.*s%s%s %s", sign, (int)ip, s, strlen(s) > ip ? "." : "", s + ip, unit[u]);
    return out;
}

#endif
