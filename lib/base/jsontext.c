#include "base/jsontext.h"
#include "base/search.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The escape of byte c (an ASCII control, '"' or '\\') into esc; returns its length. */
static size_t ascii_escape(unsigned c, char *esc)
{
    static const char hex[] = "0123456789abcdef";
    static const char short_form[] = {
        ['"'] = '"', ['\\'] = '\\', ['\n'] = 'n', ['\r'] = 'r', ['\t'] = 't', ['\b'] = 'b', ['\f'] = 'f'
    };
    esc[0] = '\\';
    if (c < sizeof short_form && short_form[c]) {
        esc[1] = short_form[c];
        return 2;
    }
    memcpy(esc + 1, "u00", 3);
    esc[4] = hex[c >> 4];
    esc[5] = hex[c & 15];
    return 6;
}

void sts_json_escape(const char *str, size_t n, sts_json_sink put, void *ctx)
{
    const unsigned char *s = (const unsigned char *)str;
    put(ctx, "\"", 1);
    size_t start = 0, i = 0; /* s[start, i) is still to be copied as it is */
    while (i < n) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            i++;
            continue;
        }
        size_t len = c >= 0x80 ? sts_utf8_len(s + i, n - i) : 0;
        if (len) {
            i += len;
            continue;
        }
        if (i > start) put(ctx, (const char *)s + start, i - start);
        char esc[8];
        if (c >= 0x80)
            put(ctx, "\xef\xbf\xbd", 3); /* U+FFFD for a byte that is not UTF-8 */
        else
            put(ctx, esc, ascii_escape(c, esc));
        start = ++i;
    }
    if (n > start) put(ctx, (const char *)s + start, n - start);
    put(ctx, "\"", 1);
}

/* Writes the digits of v ending just before `end`; returns where they start. */
static char *digits_before(char *end, uint64_t v)
{
    do {
        *--end = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    return end;
}

size_t sts_json_fmt_u64(char *buf, uint64_t v)
{
    char tmp[20];
    char *p = digits_before(tmp + sizeof tmp, v);
    size_t n = (size_t)(tmp + sizeof tmp - p);
    memcpy(buf, p, n);
    buf[n] = 0;
    return n;
}

/* |v| without overflow for INT64_MIN. */
static uint64_t magnitude(int64_t v)
{
    return v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
}

size_t sts_json_fmt_i64(char *buf, int64_t v)
{
    size_t sign = v < 0;
    buf[0] = '-';
    return sign + sts_json_fmt_u64(buf + sign, magnitude(v));
}

size_t sts_json_fmt_us(char *buf, int64_t ns)
{
    uint64_t m = magnitude(ns);
    size_t sign = ns < 0;
    buf[0] = '-';
    size_t n = sign + sts_json_fmt_u64(buf + sign, m / 1000);
    unsigned r = (unsigned)(m % 1000);
    buf[n++] = '.';
    buf[n++] = (char)('0' + r / 100);
    buf[n++] = (char)('0' + r / 10 % 10);
    buf[n++] = (char)('0' + r % 10);
    buf[n] = 0;
    return n;
}

/* Formats v with `prec` significant digits; 1 when the text reads back as v. */
static int round_trips(char *buf, int prec, double v, size_t *len)
{
    *len = (size_t)snprintf(buf, STS_JSON_NUM_MAX, "%.*g", prec, v);
    return strtod(buf, NULL) == v;
}

size_t sts_json_fmt_f64(char *buf, double v)
{
    size_t len;
    if (!isfinite(v)) {
        memcpy(buf, "null", 5);
        return 4;
    }
    /* Most values need few digits; else search the precision that first round-trips
     * (more digits never stop round-tripping, and 17 always does). */
    if (round_trips(buf, 6, v, &len)) return len;
    int lo = 7, hi = 17;
    STS_BISECT(int, lo, hi, mid, !round_trips(buf, mid, v, &len));
    round_trips(buf, lo, v, &len);
    return len;
}
