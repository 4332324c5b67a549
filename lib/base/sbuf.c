#include "base/sbuf.h"
#include "base/utf8.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

static int reserve(sts_sbuf *b, size_t extra)
{
    if (b->oom) return -1;
    if (extra > (size_t)-1 - b->n - 1 || sts_grow((void **)&b->p, &b->cap, b->n + extra + 1, 1) != 0) {
        b->oom = 1;
        return -1;
    }
    return 0;
}

void sts_sbuf_put(sts_sbuf *b, const char *s, size_t n)
{
    if (reserve(b, n) != 0) return;
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

void sts_sbuf_puts(sts_sbuf *b, const char *s)
{
    sts_sbuf_put(b, s, strlen(s));
}

void sts_sbuf_printf(sts_sbuf *b, const char *fmt, ...)
{
    char small[256];
    va_list ap;
    va_start(ap, fmt);
    int len = vsnprintf(small, sizeof small, fmt, ap);
    va_end(ap);
    if (len < 0) return;
    if ((size_t)len < sizeof small) {
        sts_sbuf_put(b, small, (size_t)len);
        return;
    }
    if (reserve(b, (size_t)len) != 0) return;
    va_start(ap, fmt);
    vsnprintf(b->p + b->n, (size_t)len + 1, fmt, ap);
    va_end(ap);
    b->n += (size_t)len;
}

/* Length of the well-formed UTF-8 sequence at s that is also an XML character, or 0. */
static size_t xml_char_len(const unsigned char *s, size_t n)
{
    size_t len = sts_utf8_len(s, n);
    /* U+FFFE and U+FFFF are well formed but not XML characters. */
    if (len == 3) {
        unsigned cp = sts_utf8_decode(s, len);
        if (cp == 0xfffe || cp == 0xffff) return 0;
    }
    return len;
}

void sts_sbuf_esc(sts_sbuf *b, const char *s, size_t n)
{
    static const char repl[] = "\xef\xbf\xbd";
    const unsigned char *u = (const unsigned char *)s;
    size_t i = 0, run = 0; /* run: start of bytes copied verbatim */
    while (i < n) {
        unsigned char c = u[i];
        const char *ent = NULL;
        size_t len = 1;
        switch (c) {
        case '&':
            ent = "&amp;";
            break;
        case '<':
            ent = "&lt;";
            break;
        case '>':
            ent = "&gt;";
            break;
        case '"':
            ent = "&quot;";
            break;
        case '\'':
            ent = "&#39;";
            break;
        default:
            if (c < 0x20 && c != '\t' && c != '\n' && c != '\r')
                ent = repl;
            else if (c == 0x7f)
                ent = repl;
            else if (c >= 0x80 && (len = xml_char_len(u + i, n - i)) == 0) {
                ent = repl; /* one per byte that is not UTF-8, one per noncharacter */
                len = sts_utf8_len(u + i, n - i);
                if (!len) len = 1;
            }
        }
        if (ent) {
            sts_sbuf_put(b, s + run, i - run);
            sts_sbuf_puts(b, ent);
            i += len;
            run = i;
        } else {
            i += len;
        }
    }
    sts_sbuf_put(b, s + run, n - run);
}

void sts_sbuf_escs(sts_sbuf *b, const char *s)
{
    sts_sbuf_esc(b, s, strlen(s));
}

void sts_sbuf_release(sts_sbuf *b)
{
    free(b->p);
    b->p = NULL;
    b->n = b->cap = 0;
    b->oom = 0;
}
