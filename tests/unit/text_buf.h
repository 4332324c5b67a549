/* A growable, NUL-terminated text buffer for the traces the reader tests generate. */
#ifndef STS_TESTS_TEXT_BUF_H
#define STS_TESTS_TEXT_BUF_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct tbuf {
    char *p;
    size_t n, cap;
} tbuf;

/* Aborts on exhausted memory: a test has nothing better to do. */
static inline void put(tbuf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        b->cap = (b->n + n + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
    b->p[b->n] = 0;
}

static inline void puts_(tbuf *b, const char *s)
{
    put(b, s, strlen(s));
}

static inline void putf(tbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static inline void putf(tbuf *b, const char *fmt, ...)
{
    /* Formats in place, growing the buffer when the text did not fit. */
    for (;;) {
        size_t room = b->cap - b->n;
        va_list ap;
        va_start(ap, fmt);
        int k = vsnprintf(room ? b->p + b->n : NULL, room, fmt, ap);
        va_end(ap);
        if (k < 0) abort();
        if ((size_t)k < room) {
            b->n += (size_t)k;
            return;
        }
        b->cap = (b->n + (size_t)k + 1) * 2;
        b->p = realloc(b->p, b->cap);
        if (!b->p) abort();
    }
}

#endif
