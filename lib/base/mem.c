#include "base/mem.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "base/invariant.h"

int sts_grow(void **buf, size_t *cap, size_t need, size_t elem)
{
    if (need <= *cap) return 0;
    size_t ncap = *cap ? *cap : 16;
    while (ncap < need) {
        if (ncap > SIZE_MAX / 2) return -1;
        ncap = ncap < 1u << 20 ? ncap * 2 : ncap + ncap / 2;
    }
    if (elem && ncap > SIZE_MAX / elem) return -1;
    void *p = realloc(*buf, ncap * elem);
    if (!p) return -1;
    *buf = p;
    *cap = ncap;
    return 0;
}

struct sts_arena_block {
    sts_arena_block *next;
    size_t size, used;
    _Alignas(8) unsigned char data[];
};

void *sts_arena_alloc(sts_arena *a, size_t n)
{
    if (n > SIZE_MAX / 2) return NULL; /* rounded up and with the block's header, it would wrap */
    n = (n + 7) & ~(size_t)7;
    sts_arena_block *b = a->head;
    if (!b || b->size - b->used < n) {
        /* Blocks grow with the arena so that a large trace needs few of them. */
        size_t size = a->total / 4;
        if (size < 64 * 1024) size = 64 * 1024;
        if (size > 64u * 1024 * 1024) size = 64u * 1024 * 1024;
        if (size < n) size = n;
        b = malloc(sizeof *b + size);
        if (!b) return NULL;
        b->size = size;
        b->used = 0;
        b->next = a->head;
        a->head = b;
        a->total += size;
    }
    void *p = b->data + b->used;
    b->used += n;
    a->used += n;
    /* Callers keep 8-byte values in what they get; no block is overrun. */
    STS_ASSERT(((uintptr_t)p & 7) == 0 && b->used <= b->size && a->used <= a->total);
    return p;
}

void sts_arena_release(sts_arena *a)
{
    sts_arena_block *b = a->head;
    while (b) {
        sts_arena_block *next = b->next;
        free(b);
        b = next;
    }
    a->head = NULL;
    a->used = a->total = 0;
}

uint64_t sts_hash_bytes(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* Strings hashed ahead of their insertion, so that the cache misses of up to this many
 * random slots overlap instead of following one another. */
#define STRTAB_AHEAD 8

static int strtab_rehash(sts_strtab *t, uint32_t nslots)
{
    /* Probing masks with nslots - 1 and stops at a free slot: a power of two with one
     * free at least, else a lookup loops for ever. */
    STS_ASSERT(nslots && (nslots & (nslots - 1)) == 0 && nslots > t->count);
    uint32_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    uint64_t h[STRTAB_AHEAD];
    for (uint32_t id = 0; id < t->count && id < STRTAB_AHEAD; id++)
        h[id] = sts_hash_bytes(t->strs[id], t->lens[id]);
    for (uint32_t id = 0; id < t->count; id++) {
        uint32_t i = (uint32_t)h[id % STRTAB_AHEAD] & (nslots - 1);
        if (id + STRTAB_AHEAD < t->count) {
            uint64_t next = sts_hash_bytes(t->strs[id + STRTAB_AHEAD], t->lens[id + STRTAB_AHEAD]);
            h[id % STRTAB_AHEAD] = next;
            __builtin_prefetch(&slots[(uint32_t)next & (nslots - 1)], 1);
        }
        while (slots[i])
            i = (i + 1) & (nslots - 1);
        slots[i] = id + 1;
    }
    free(t->slots);
    t->slots = slots;
    t->nslots = nslots;
    return 0;
}

int sts_strtab_init(sts_strtab *t)
{
    sts_strtab blank = STS_STRTAB_INIT;
    *t = blank;
    if (strtab_rehash(t, 1024) != 0) return -1;
    return sts_strtab_intern(t, "", 0) == 0 ? 0 : -1;
}

static uint32_t strtab_probe(const sts_strtab *t, const char *s, size_t n, uint64_t h, uint32_t *slot)
{
    uint32_t i = (uint32_t)h & (t->nslots - 1);
    for (;;) {
        uint32_t v = t->slots[i];
        if (!v) {
            *slot = i;
            return UINT32_MAX;
        }
        uint32_t id = v - 1;
        if (t->lens[id] == n && memcmp(t->strs[id], s, n) == 0) return id;
        i = (i + 1) & (t->nslots - 1);
    }
}

uint32_t sts_strtab_find(const sts_strtab *t, const char *s, size_t n)
{
    uint32_t slot;
    return strtab_probe(t, s, n, sts_hash_bytes(s, n), &slot);
}

static uint32_t strtab_intern_hashed(sts_strtab *t, const char *s, size_t n, uint64_t h)
{
    uint32_t slot;
    uint32_t id = strtab_probe(t, s, n, h, &slot);
    if (id != UINT32_MAX) return id;
    if (t->count == UINT32_MAX - 1) return UINT32_MAX;
    if (t->count + 1 >= t->cap) {
        size_t cap = t->cap, cap2 = t->cap;
        if (sts_grow((void **)&t->strs, &cap, (size_t)t->count + 1, sizeof *t->strs) != 0) return UINT32_MAX;
        if (sts_grow((void **)&t->lens, &cap2, (size_t)t->count + 1, sizeof *t->lens) != 0) return UINT32_MAX;
        t->cap = (uint32_t)(cap < cap2 ? cap : cap2);
    }
    char *copy = sts_arena_alloc(&t->arena, n + 1);
    if (!copy) return UINT32_MAX;
    if (n) memcpy(copy, s, n);
    copy[n] = 0;
    id = t->count++;
    t->strs[id] = copy;
    t->lens[id] = (uint32_t)n;
    t->slots[slot] = id + 1;
    if ((uint64_t)t->count * 2 > t->nslots) {
        if (strtab_rehash(t, t->nslots * 2) != 0) return UINT32_MAX;
    }
    return id;
}

uint32_t sts_strtab_intern(sts_strtab *t, const char *s, size_t n)
{
    if (n > UINT32_MAX - 1) return UINT32_MAX;
    return strtab_intern_hashed(t, s, n, sts_hash_bytes(s, n));
}

int sts_strtab_intern_many(sts_strtab *t, const char *const *strs, const uint32_t *lens, uint32_t count, uint32_t *ids)
{
    uint64_t h[STRTAB_AHEAD];
    for (uint32_t k = 0; k < count && k < STRTAB_AHEAD; k++)
        h[k] = sts_hash_bytes(strs[k], lens[k]);
    for (uint32_t k = 0; k < count; k++) {
        uint64_t hk = h[k % STRTAB_AHEAD];
        if (k + STRTAB_AHEAD < count) {
            uint64_t next = sts_hash_bytes(strs[k + STRTAB_AHEAD], lens[k + STRTAB_AHEAD]);
            h[k % STRTAB_AHEAD] = next;
            __builtin_prefetch(&t->slots[(uint32_t)next & (t->nslots - 1)]);
        }
        if ((ids[k] = strtab_intern_hashed(t, strs[k], lens[k], hk)) == UINT32_MAX) return -1;
    }
    return 0;
}

void sts_strtab_release(sts_strtab *t)
{
    sts_arena_release(&t->arena);
    free(t->strs);
    free(t->lens);
    free(t->slots);
    sts_strtab blank = STS_STRTAB_INIT;
    *t = blank;
}

static size_t u64_slot(uint64_t key, size_t nslots)
{
    key ^= key >> 33;
    key *= 0xff51afd7ed558ccdull;
    key ^= key >> 33;
    return (size_t)key & (nslots - 1);
}

uint32_t sts_u64map_get(const sts_u64map *m, uint64_t key)
{
    if (!m->nslots) return UINT32_MAX;
    size_t i = u64_slot(key, m->nslots);
    while (m->keys[i]) {
        if (m->keys[i] == key) return m->vals[i];
        i = (i + 1) & (m->nslots - 1);
    }
    return UINT32_MAX;
}

static int u64map_resize(sts_u64map *m, size_t nslots)
{
    uint64_t *keys = calloc(nslots, sizeof *keys);
    uint32_t *vals = calloc(nslots, sizeof *vals);
    if (!keys || !vals) {
        free(keys);
        free(vals);
        return -1;
    }
    for (size_t j = 0; j < m->nslots; j++) {
        if (!m->keys[j]) continue;
        size_t i = u64_slot(m->keys[j], nslots);
        while (keys[i])
            i = (i + 1) & (nslots - 1);
        keys[i] = m->keys[j];
        vals[i] = m->vals[j];
    }
    free(m->keys);
    free(m->vals);
    m->keys = keys;
    m->vals = vals;
    m->nslots = nslots;
    return 0;
}

int sts_u64map_put(sts_u64map *m, uint64_t key, uint32_t val)
{
    if ((m->count + 1) * 2 > m->nslots && u64map_resize(m, m->nslots ? m->nslots * 2 : 64) != 0) return -1;
    size_t i = u64_slot(key, m->nslots);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->nslots - 1);
    if (!m->keys[i]) m->count++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

int sts_u64map_put_new(sts_u64map *m, uint64_t key, uint32_t val)
{
    if ((m->count + 1) * 2 > m->nslots && u64map_resize(m, m->nslots ? m->nslots * 2 : 64) != 0) return -1;
    size_t i = u64_slot(key, m->nslots);
    while (m->keys[i] && m->keys[i] != key)
        i = (i + 1) & (m->nslots - 1);
    if (m->keys[i]) return 1;
    m->count++;
    m->keys[i] = key;
    m->vals[i] = val;
    return 0;
}

void sts_u64map_release(sts_u64map *m)
{
    free(m->keys);
    free(m->vals);
    sts_u64map blank = STS_U64MAP_INIT;
    *m = blank;
}
