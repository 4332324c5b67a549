#include "read/json_scan.h"

#include <locale.h>
#include <math.h>
#include <stdlib.h>

const unsigned char sts_jr_ws_table[256] = { [' '] = 1, ['\n'] = 1, ['\r'] = 1, ['\t'] = 1 };

static size_t put_utf8(char *out, uint32_t cp)
{
    if (cp < 0x80) {
        out[0] = (char)cp;
        return 1;
    }
    if (cp < 0x800) {
        out[0] = (char)(0xc0 | cp >> 6);
        out[1] = (char)(0x80 | (cp & 0x3f));
        return 2;
    }
    if (cp < 0x10000) {
        out[0] = (char)(0xe0 | cp >> 12);
        out[1] = (char)(0x80 | (cp >> 6 & 0x3f));
        out[2] = (char)(0x80 | (cp & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | cp >> 18);
    out[1] = (char)(0x80 | (cp >> 12 & 0x3f));
    out[2] = (char)(0x80 | (cp >> 6 & 0x3f));
    out[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

static uint32_t hex4(const char *s)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v = v << 4 | (uint32_t)json_hex(s[i]);
    return v;
}

size_t sts_jr_unescape(const char *s, size_t n, char *out)
{
    size_t o = 0;
    const char *e = s + n;
    while (s < e) {
        if (*s != '\\') {
            out[o++] = *s++;
            continue;
        }
        char c = s[1];
        if (c != 'u') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *k = memchr(from, c, sizeof from - 1);
            out[o++] = k ? to[k - from] : c;
            s += 2;
            continue;
        }
        uint32_t cp = hex4(s + 2);
        s += 6;
        if (cp >= 0xd800 && cp < 0xdc00 && e - s >= 6 && s[0] == '\\' && s[1] == 'u') {
            uint32_t lo = hex4(s + 2);
            if (lo >= 0xdc00 && lo < 0xe000) {
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                s += 6;
            }
        }
        if (cp >= 0xd800 && cp < 0xe000) cp = 0xfffd; /* a lone surrogate has no UTF-8 form */
        /* U+0000 as U+2400 (SYMBOL FOR NULL, 3 bytes of the 6 read): every name is a C
         * string downstream, so "k\u0000a" and "k\u0000b" were two rows both shown
         * as "k" and CSV cut the name. */
        if (cp == 0) cp = 0x2400;
        o += put_utf8(out + o, cp);
    }
    return o;
}

/* strtod on a copy: the text is not NUL-terminated, and a locale whose decimal point
 * is not '.' must not change how a JSON number reads. */
static int to_double(const char *s, size_t n, double *out)
{
    char buf[128];
    if (n == 0 || n >= sizeof buf) return -1;
    const char *dp = localeconv()->decimal_point;
    char point = dp && dp[0] && !dp[1] ? dp[0] : '.';
    for (size_t i = 0; i < n; i++)
        buf[i] = s[i] == '.' ? point : s[i];
    buf[n] = 0;
    char *end;
    double d = strtod(buf, &end);
    if (end != buf + n) return -1;
    *out = d;
    return 0;
}

static int is_number_text(const char *s, size_t n)
{
    /* json_scan_number needs a terminator it will not take for a digit, and reads up
     * to 7 bytes past the number. */
    char buf[128 + 8];
    if (n == 0 || n >= 128) return 0;
    memcpy(buf, s, n);
    memset(buf + n, 0, 8);
    json_fail f;
    int is_int;
    const char *end = json_scan_number(buf, &is_int, &f);
    return end == buf + n;
}

json_num_rc sts_jr_us_to_ns(const char *s, size_t n, int64_t *ns, int *whole_us)
{
    const char *p = s, *e = s + n;
    int neg = 0;
    if (p < e && *p == '-') {
        neg = 1;
        p++;
    }
    if (p >= e || !json_is_digit(*p)) return JSON_NUM_SYNTAX;
    if (*p == '0' && p + 1 < e && json_is_digit(p[1])) return JSON_NUM_SYNTAX; /* no leading zeros */
    /* Beyond this many microseconds the value cannot fit in int64 nanoseconds. */
    const uint64_t max_us = (uint64_t)INT64_MAX / 1000 + 1;
    uint64_t ip = 0;
    int big = 0;
    while (p < e && json_is_digit(*p)) {
        if (ip > max_us)
            big = 1;
        else
            ip = ip * 10 + (uint64_t)(*p - '0');
        p++;
    }
    uint64_t frac = 0;
    int round_up = 0;
    if (p < e && *p == '.') {
        p++;
        if (p >= e || !json_is_digit(*p)) return JSON_NUM_SYNTAX;
        int nd = 0;
        while (p < e && json_is_digit(*p)) {
            if (nd < 3)
                frac = frac * 10 + (uint64_t)(*p - '0');
            else if (nd == 3)
                round_up = *p >= '5';
            nd++;
            p++;
        }
        for (; nd < 3; nd++)
            frac *= 10;
    }
    if (p < e && (*p == 'e' || *p == 'E')) {
        if (!is_number_text(s, n)) return JSON_NUM_SYNTAX;
        double d;
        if (to_double(s, n, &d) != 0) return JSON_NUM_RANGE;
        double x = d * 1000.0;
        /* 9.2e18 is below INT64_MAX with room for llround's rounding. */
        if (!(fabs(x) < 9.2e18)) return JSON_NUM_RANGE;
        *ns = (int64_t)llround(x);
        *whole_us = *ns % 1000 == 0;
        return JSON_NUM_OK;
    }
    if (p != e) return JSON_NUM_SYNTAX;
    if (big || ip > max_us) return JSON_NUM_RANGE;
    uint64_t v = ip * 1000 + frac + (uint64_t)round_up;
    if (v > (uint64_t)INT64_MAX) return JSON_NUM_RANGE;
    *ns = neg ? -(int64_t)v : (int64_t)v;
    *whole_us = v % 1000 == 0;
    return JSON_NUM_OK;
}

int sts_jr_parse_int64(const char *s, size_t n, int64_t *out)
{
    const char *p = s, *e = s + n;
    int neg = p < e && *p == '-';
    if (neg) p++;
    if (p >= e) return -1;
    uint64_t v = 0;
    const uint64_t lim = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
    for (; p < e; p++) {
        if (!json_is_digit(*p)) return -1;
        uint64_t d = (uint64_t)(*p - '0');
        if (v > (lim - d) / 10) return -1;
        v = v * 10 + d;
    }
    /* Negating through uint64 keeps INT64_MIN defined. */
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return 0;
}

int sts_jr_parse_double(const char *s, size_t n, double *out)
{
    if (!is_number_text(s, n)) return -1;
    double d;
    if (to_double(s, n, &d) != 0 || !isfinite(d)) return -1;
    *out = d;
    return 0;
}
