/* base: growable arrays, a bump arena and string interning. Depends on nothing. */
#ifndef STS_BASE_MEM_H
#define STS_BASE_MEM_H

#include <stddef.h>
#include <stdint.h>

/* Ensure *buf holds at least `need` elements of `elem` bytes, growing by 1.5x-2x.
 * Returns 0 on success, -1 on overflow or allocation failure (then *buf is untouched). */
int sts_grow(void **buf, size_t *cap, size_t need, size_t elem);

/* A bump allocator; memory is released all at once by sts_arena_release(). */
typedef struct sts_arena_block sts_arena_block;
typedef struct sts_arena {
    sts_arena_block *head;
    size_t used, total;
} sts_arena;
/* clang-format off */
#define STS_ARENA_INIT { NULL, 0, 0 }
/* clang-format on */

/* Returns `n` bytes aligned to 8, or NULL when memory is exhausted. */
void *sts_arena_alloc(sts_arena *a, size_t n);
/* Frees every block; the arena is then empty and reusable. */
void sts_arena_release(sts_arena *a);

/* String interning: equal byte strings get equal ids; id 0 is the empty string.
 * Strings may contain NUL bytes; each stored copy is also NUL-terminated. */
typedef struct sts_strtab {
    sts_arena arena;
    const char **strs; /* id -> string */
    uint32_t *lens;    /* id -> length */
    uint32_t count, cap;
    uint32_t *slots; /* open addressing, holds id + 1; 0 = empty */
    uint32_t nslots;
} sts_strtab;
/* clang-format off */
#define STS_STRTAB_INIT { STS_ARENA_INIT, NULL, NULL, 0, 0, NULL, 0 }
/* clang-format on */

int sts_strtab_init(sts_strtab *t);
/* Returns the id, or UINT32_MAX when memory is exhausted. */
uint32_t sts_strtab_intern(sts_strtab *t, const char *s, size_t n);
/* Interns strs[k] (lens[k] bytes) into ids[k] for each k < count, in order: the ids
 * are those one sts_strtab_intern() per string would give, found faster for many
 * strings at once. Returns 0, or -1 when memory is exhausted (ids[] filled in part). */
int sts_strtab_intern_many(sts_strtab *t, const char *const *strs, const uint32_t *lens, uint32_t count, uint32_t *ids);
/* Returns the id of an already interned string, or UINT32_MAX. */
uint32_t sts_strtab_find(const sts_strtab *t, const char *s, size_t n);
static inline const char *sts_strtab_get(const sts_strtab *t, uint32_t id)
{
    return t->strs[id];
}
static inline uint32_t sts_strtab_len(const sts_strtab *t, uint32_t id)
{
    return t->lens[id];
}
void sts_strtab_release(sts_strtab *t);

/* FNV-1a, 64-bit. */
uint64_t sts_hash_bytes(const void *p, size_t n);

/* A map from non-zero uint64 keys to uint32 values (open addressing). */
typedef struct sts_u64map {
    uint64_t *keys; /* 0 = empty */
    uint32_t *vals;
    size_t count, nslots;
} sts_u64map;
/* clang-format off */
#define STS_U64MAP_INIT { NULL, NULL, 0, 0 }
/* clang-format on */

/* Returns the value for `key` (non-zero), or UINT32_MAX. */
uint32_t sts_u64map_get(const sts_u64map *m, uint64_t key);
/* Inserts or replaces; returns 0, or -1 when memory is exhausted. */
int sts_u64map_put(sts_u64map *m, uint64_t key, uint32_t val);
/* Inserts `key` (non-zero) with `val` unless it is there: returns 0 when inserted, 1
 * when the key was already there (its value unchanged), -1 when memory is exhausted.
 * One probe where a get and a put would take two. */
int sts_u64map_put_new(sts_u64map *m, uint64_t key, uint32_t val);
void sts_u64map_release(sts_u64map *m);

#endif
