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
    va_list ap;
    va_start(ap, fmt);
    int k = vsnprintf(NULL, 0, fmt, ap);
    va_end(ap);
    if (k < 0) abort();
    char *tmp = malloc((size_t)k + 1);
    if (!tmp) abort();
    va_start(ap, fmt);
    vsnprintf(tmp, (size_t)k + 1, fmt, ap);
    va_end(ap);
    put(b, tmp, (size_t)k);
    free(tmp);
}

#endif
