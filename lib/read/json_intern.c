#include "read/json_intern.h"

#include <stdlib.h>
#include <string.h>

#include "read/json_scan.h"

static inline uint32_t load32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* a == b over n bytes: word compares for the short names most strings are, the C
 * library's vector compare for long ones (kernel names run to hundreds of bytes). */
static inline int same_bytes(const char *a, const char *b, size_t n)
{
    return n > 64 ? memcmp(a, b, n) == 0 : json_eq(a, b, n);
}

static inline uint64_t mix(uint64_t h)
{
    h *= 0x9e3779b97f4a7c15ull;
    return h ^ (h >> 32);
}

/* Two words that, with n, determine a string of up to 16 bytes. Reads only s[0, n). */
static inline void ends(const char *s, size_t n, uint64_t *w0, uint64_t *w1)
{
    if (n >= 8) {
        *w0 = json_load64(s);
        *w1 = json_load64(s + n - 8);
    } else if (n >= 4) {
        *w0 = (uint64_t)load32(s) | (uint64_t)load32(s + n - 4) << 32;
        *w1 = 0;
    } else {
        *w0 = n ? ((uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << 8 |
                   (uint64_t)(unsigned char)s[n - 1] << 16)
                : 0;
        *w1 = 0;
    }
}

static uint32_t full_hash(const char *s, size_t n, uint64_t w0, uint64_t w1)
{
    uint64_t h = 0x243f6a8885a308d3ull ^ n;
    for (size_t i = 8; i + 8 < n; i += 8)
        h = mix(h ^ json_load64(s + i));
    h = mix(h ^ w0);
    h = mix(h ^ w1);
    return (uint32_t)(h ^ (h >> 29));
}

static int grow(json_intern *c)
{
    uint32_t nslots = c->mask ? (c->mask + 1) * 2 : 1024;
    uint64_t *slots = calloc(nslots, sizeof *slots);
    if (!slots) return -1;
    for (uint32_t i = 0; c->slots && i <= c->mask; i++) {
        uint64_t v = c->slots[i];
        if (!v) continue;
        uint32_t j = (uint32_t)(v >> 32) & (nslots - 1);
        while (slots[j])
            j = (j + 1) & (nslots - 1);
        slots[j] = v;
    }
    free(c->slots);
    c->slots = slots;
    c->mask = nslots - 1;
    return 0;
}

static uint32_t lookup(json_intern *c, sts_timeline *tl, const char *s, size_t n, uint64_t w0, uint64_t w1)
{
    if ((uint64_t)(c->count + 1) * 2 > (uint64_t)c->mask + 1 && grow(c) != 0) return STS_NONE;
    uint32_t h = full_hash(s, n, w0, w1);
    uint32_t i = h & c->mask;
    const sts_strtab *t = &tl->strings;
    for (;;) {
        uint64_t v = c->slots[i];
        if (!v) break;
        if ((uint32_t)(v >> 32) == h) {
            uint32_t id = (uint32_t)v - 1;
            if (t->lens[id] == n && same_bytes(t->strs[id], s, n)) return id;
        }
        i = (i + 1) & c->mask;
    }
    uint32_t id = sts_tl_intern(tl, s, n);
    if (id == STS_NONE) return STS_NONE;
    c->slots[i] = (uint64_t)h << 32 | ((uint64_t)id + 1);
    c->count++;
    return id;
}

uint32_t sts_jr_intern_get(json_intern *c, sts_timeline *tl, const char *s, size_t n)
{
    if (n > UINT32_MAX - 1) return STS_NONE;
    if (!c->front && !(c->front = calloc(JSON_INTERN_FRONT, sizeof *c->front))) return STS_NONE;
    uint64_t w0, w1;
    ends(s, n, &w0, &w1);
    json_intern_front *f = &c->front[mix(w0 ^ (w1 * 0xff51afd7ed558ccdull) ^ n) % JSON_INTERN_FRONT];
    if (f->id && f->n == n && f->w0 == w0 && f->w1 == w1) {
        uint32_t id = f->id - 1;
        /* Up to 16 bytes the two words are the whole string; past that, compare. */
        if (n <= 16 || same_bytes(tl->strings.strs[id] + 8, s + 8, n - 16)) return id;
    }
    uint32_t id = lookup(c, tl, s, n, w0, w1);
    if (id != STS_NONE) {
        f->w0 = w0;
        f->w1 = w1;
        f->n = (uint32_t)n;
        f->id = id + 1;
    }
    return id;
}

/* Whether the window can grow to hold `value`: to the next power of two past it,
 * while that keeps at most 16 slots per id held (64 bytes an id, a little more than
 * the hash table's share) plus 64 KB. */
static int grow_nums(json_intern *c, uint64_t value)
{
    if (!c->nums) c->nums_base = value & ~(uint64_t)1023;
    if (value < c->nums_base) return -1;
    uint64_t need = value - c->nums_base + 1, len = c->nums_len ? c->nums_len : 1024;
    while (len < need)
        len *= 2;
    if (len > UINT32_MAX || len > 16 * ((uint64_t)c->nums_count + 1024)) return -1;
    uint32_t *nums = realloc(c->nums, (size_t)len * sizeof *nums);
    if (!nums) return -1;
    memset(nums + c->nums_len, 0, (size_t)(len - c->nums_len) * sizeof *nums);
    c->nums = nums;
    c->nums_len = (uint32_t)len;
    return 0;
}

/* Starts the window afresh at `value`. Its entries only save lookups (the strtab has
 * every string), so dropping them loses nothing. */
static int rebase_nums(json_intern *c, uint64_t value)
{
    free(c->nums);
    c->nums = NULL;
    c->nums_len = c->nums_count = c->nums_hits = c->nums_misses = 0;
    return grow_nums(c, value);
}

uint32_t sts_jr_intern_uint(json_intern *c, sts_timeline *tl, uint64_t value, const char *s, size_t n)
{
    if ((!c->nums || value < c->nums_base || value - c->nums_base >= c->nums_len) && grow_nums(c, value) != 0) {
        /* A chunk of a large file may start with the rarer of two sequences (Kineto's
         * fwdbwd flows before its ac2g ones); when values outside the window outnumber
         * those in it, the window moves to them. */
        if (++c->nums_misses <= c->nums_hits + 256 || rebase_nums(c, value) != 0) return sts_jr_intern_get(c, tl, s, n);
    }
    c->nums_hits++;
    uint32_t *e = &c->nums[value - c->nums_base];
    if (*e) return *e - 1;
    /* New here. The strtab gives the id the text has if it was read as a string ("52"),
     * and the string table need not hold it: a miss there asks the strtab too. */
    uint32_t id = sts_tl_intern(tl, s, n);
    if (id == STS_NONE) return STS_NONE;
    *e = id + 1;
    c->nums_count++;
    return id;
}

void sts_jr_intern_release(json_intern *c)
{
    free(c->front);
    free(c->slots);
    free(c->nums);
    c->front = NULL;
    c->slots = NULL;
    c->nums = NULL;
    c->mask = c->count = 0;
    c->nums_len = c->nums_count = c->nums_hits = c->nums_misses = 0;
    c->nums_base = 0;
}
