#include "write/jsonout.h"
#include "base/utf8.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sts_jo_string(sts_wfile *f, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    const unsigned char *p = (const unsigned char *)s;
    sts_wfile_write(f, "\"", 1);
    size_t run = 0; /* bytes copied verbatim, pending */
    for (size_t i = 0; i < n;) {
        unsigned c = p[i];
        if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
            run++;
            i++;
            continue;
        }
        if (c >= 0x80) {
            size_t len = sts_utf8_len(p + i, n - i);
            if (len) {
                run += len;
                i += len;
                continue;
            }
        }
        sts_wfile_write(f, p + i - run, run);
        run = 0;
        char esc[8];
        size_t en = 2;
        esc[0] = '\\';
        switch (c) {
        case '"':
            esc[1] = '"';
            break;
        case '\\':
            esc[1] = '\\';
            break;
        case '\n':
            esc[1] = 'n';
            break;
        case '\r':
            esc[1] = 'r';
            break;
        case '\t':
            esc[1] = 't';
            break;
        case '\b':
            esc[1] = 'b';
            break;
        case '\f':
            esc[1] = 'f';
            break;
        default:
            if (c >= 0x80) {
                memcpy(esc, "\xef\xbf\xbd", 3); /* U+FFFD for a byte that is not UTF-8 */
                en = 3;
            } else {
                memcpy(esc, "\\u00", 4);
                esc[4] = hex[c >> 4];
                esc[5] = hex[c & 15];
                en = 6;
            }
        }
        sts_wfile_write(f, esc, en);
        i++;
    }
    sts_wfile_write(f, p + n - run, run);
    sts_wfile_write(f, "\"", 1);
}

void sts_jo_cstring(sts_wfile *f, const char *s)
{
    sts_jo_string(f, s, strlen(s));
}

/* Writes the decimal digits of v. */
static void put_u64(sts_wfile *f, uint64_t v)
{
    char buf[24];
    size_t i = sizeof buf;
    do {
        buf[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    sts_wfile_write(f, buf + i, sizeof buf - i);
}

void sts_jo_i64(sts_wfile *f, int64_t v)
{
    if (v < 0) {
        sts_wfile_write(f, "-", 1);
        put_u64(f, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(f, (uint64_t)v);
    }
}

void sts_jo_us(sts_wfile *f, int64_t ns)
{
    uint64_t m = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0) sts_wfile_write(f, "-", 1);
    put_u64(f, m / 1000);
    unsigned r = (unsigned)(m % 1000);
    char frac[4] = { '.', (char)('0' + r / 100), (char)('0' + r / 10 % 10), (char)('0' + r % 10) };
    sts_wfile_write(f, frac, 4);
}

void sts_jo_double(sts_wfile *f, double v)
{
    if (!isfinite(v)) {
        sts_wfile_write(f, "null", 4);
        return;
    }
    char buf[40];
    int n = snprintf(buf, sizeof buf, "%.15g", v);
    if (strtod(buf, NULL) != v) n = snprintf(buf, sizeof buf, "%.17g", v);
    /* "1e+20" and "3" are valid JSON numbers; nothing to add. */
    sts_wfile_write(f, buf, (size_t)n);
}
