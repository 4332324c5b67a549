#include "base/utf8.h"

#include <string.h>

unsigned sts_utf8_decode(const unsigned char *s, size_t len)
{
    if (len == 1) return s[0];
    unsigned cp = s[0] & (0x3fu >> (len - 1));
    for (size_t i = 1; i < len; i++)
        cp = (cp << 6) | (s[i] & 0x3fu);
    return cp;
}

size_t sts_utf8_len(const unsigned char *s, size_t n)
{
    unsigned c = s[0], min;
    size_t len;
    if (c < 0x80) return 1;
    if (c >= 0xc2 && c <= 0xdf)
        len = 2, min = 0x80;
    else if (c >= 0xe0 && c <= 0xef)
        len = 3, min = 0x800;
    else if (c >= 0xf0 && c <= 0xf4)
        len = 4, min = 0x10000;
    else
        return 0;
    if (n < len) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    unsigned cp = sts_utf8_decode(s, len);
    if (cp < min || cp > 0x10ffff || (cp >= 0xd800 && cp <= 0xdfff)) return 0;
    return len;
}

/* The length a lead byte announces; 0 for a byte that leads no sequence. */
static size_t announced(unsigned c)
{
    return c >= 0xc2 && c <= 0xdf ? 2 : c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
}

size_t sts_utf8_cut(const char *str, size_t n)
{
    const unsigned char *s = (const unsigned char *)str;
    /* The last byte that is not a continuation, among the last three. */
    size_t j = n;
    while (j > 0 && n - j < 3 && (s[j - 1] & 0xc0) == 0x80)
        j--;
    if (j == 0) return n;
    size_t lead = j - 1, want = announced(s[lead]);
    return want > n - lead ? lead : n;
}

void sts_utf8_trim(char *s)
{
    size_t n = strlen(s);
    s[sts_utf8_cut(s, n)] = 0;
}
