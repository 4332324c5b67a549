/* Input text made harmless where it lands: a terminal obeys control characters, a
 * spreadsheet evaluates a cell that looks like a formula. */
#include "stepscope/format.h"

#include <string.h>

/* Bytes that start a control: C0, DEL, and a lone C1 byte (8-bit terminals read 0x9B
 * as CSI). A C1 control in UTF-8 is 0xC2 followed by 0x80..0x9F. */
static size_t control_len(const unsigned char *p, size_t left)
{
    if (*p < 0x20 || *p == 0x7f) return 1;
    if (*p >= 0x80 && *p <= 0x9f) return 1;
    if (*p == 0xc2 && left > 1 && p[1] >= 0x80 && p[1] <= 0x9f) return 2;
    return 0;
}

int sts_fmt_put_text(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;
    while (i < n) {
        size_t c = control_len(p + i, n - i);
        if (!c) {
            i++;
            continue;
        }
        if (i > run && fwrite(p + run, 1, i - run, f) != i - run) return EOF;
        if (fputc('?', f) == EOF) return EOF;
        i += c;
        run = i;
    }
    if (i > run && fwrite(p + run, 1, i - run, f) != i - run) return EOF;
    return 0;
}

/* A decimal number as a spreadsheet reads one: [+-]digits[.digits][e[+-]digits]. */
static int plain_number(const char *s, size_t n)
{
    size_t i = 0, digits = 0;
    if (i < n && (s[i] == '-' || s[i] == '+')) i++;
    for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
        digits++;
    if (i < n && s[i] == '.')
        for (i++; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            digits++;
    if (!digits) return 0;
    if (i < n && (s[i] == 'e' || s[i] == 'E')) {
        size_t e = 0;
        if (++i < n && (s[i] == '-' || s[i] == '+')) i++;
        for (; i < n && s[i] >= '0' && s[i] <= '9'; i++)
            e++;
        if (!e) return 0;
    }
    return i == n;
}

int sts_csv_formula(const char *s, size_t n)
{
    if (!n || !s[0] || !strchr("=+-@\t\r", s[0])) return 0;
    return !plain_number(s, n);
}
