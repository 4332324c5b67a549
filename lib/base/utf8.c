#include "base/utf8.h"

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
