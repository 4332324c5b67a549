/* base: the one growable array. STS_VEC(T) is an anonymous struct { T *v; size_t n, cap; }
 * that starts zeroed; STS_VEC_PUSH appends a zeroed element, STS_VEC_RESERVE makes room,
 * STS_VEC_RELEASE frees the storage. Growth is geometric (sts_grow), so n pushes cost
 * O(n) amortized. */
#ifndef STS_BASE_VEC_H
#define STS_BASE_VEC_H

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"

#define STS_VEC(T)     \
    struct {           \
        T *v;          \
        size_t n, cap; \
    }

/* Pushes one zeroed element; returns its pointer, or NULL when memory is exhausted (the
 * vector is unchanged). */
#define STS_VEC_PUSH(vec)                                                       \
    (sts_grow((void **)&(vec).v, &(vec).cap, (vec).n + 1, sizeof *(vec).v) == 0 \
         ? (memset(&(vec).v[(vec).n], 0, sizeof *(vec).v), &(vec).v[(vec).n++]) \
         : NULL)

/* Makes room for `need` elements in all; 0 on success, -1 when memory is exhausted. */
#define STS_VEC_RESERVE(vec, need) sts_grow((void **)&(vec).v, &(vec).cap, (need), sizeof *(vec).v)

/* Frees the storage and zeroes the vector; elements are not freed. */
#define STS_VEC_RELEASE(vec) (free((vec).v), (vec).v = NULL, (vec).n = 0, (vec).cap = 0)

/* Defines the public accessor `const T *fn(const Owner *o, size_t *n)`: the vector
 * `field` of *o, its length in *n when n is not NULL. The memory stays *o's. */
#define STS_VEC_ACCESSOR(fn, Owner, T, field) \
    const T *fn(const Owner *o, size_t *n)    \
    {                                         \
        if (n) *n = o->field.n;               \
        return o->field.v;                    \
    }

#endif
