/* Input text made harmless where it lands: a terminal obeys control characters, a
 * spreadsheet evaluates a cell that looks like a formula. */
#include "stepscope/format.h"

#include <string.h>

/* The length of the UTF-8 sequence at p when it is well formed, else 0. */
static size_t utf8_len(const unsigned char *p, size_t left)
{
    size_t n = *p >= 0xc2 && *p <= 0xdf ? 2 : *p >= 0xe0 && *p <= 0xef ? 3 : *p >= 0xf0 && *p <= 0xf4 ? 4 : 0;
    if (!n || n > left) return 0;
    for (size_t k = 1; k < n; k++)
        if ((p[k] & 0xc0) != 0x80) return 0;
    return n;
}

/* Bytes that start a control: C0, DEL, a C1 control in UTF-8 (0xC2 followed by
 * 0x80..0x9F), and a lone C1 byte (8-bit terminals read 0x9B as CSI); 0x80..0x9F inside
 * a well-formed sequence (the 0x90 0x80 of U+2400) is no control. *skip is how far a
 * byte that is none goes: a whole sequence at a time, so its tail is not read alone. */
static size_t control_len(const unsigned char *p, size_t left, size_t *skip)
{
    *skip = 1;
    if (*p < 0x20 || *p == 0x7f) return 1;
    if (*p < 0x80) return 0;
    size_t u = utf8_len(p, left);
    if (u == 2 && p[0] == 0xc2 && p[1] <= 0x9f) return 2;
    if (u) {
        *skip = u;
        return 0;
    }
    return *p <= 0x9f ? 1 : 0;
}

int sts_fmt_put_text(FILE *f, const char *s, size_t n)
{
    const unsigned char *p = (const unsigned char *)s;
    size_t i = 0, run = 0;
    while (i < n) {
        size_t skip, c = control_len(p + i, n - i, &skip);
        if (!c) {
            i += skip;
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
