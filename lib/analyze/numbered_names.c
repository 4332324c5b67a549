/* Numbered names (docs/json-schemas.md, "names"): PyTorch's profiler names each step's
 * slice `ProfilerStep#N`, so a ranking by exact name gives each step a row of its own.
 * A name that is a prefix, '#' and only digits is counted under `PREFIX#N` when at least
 * two such names share the prefix. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/mem.h"

size_t sts_an_numbered_prefix(const char *name)
{
    const char *hash = name ? strrchr(name, '#') : NULL;
    if (!hash || hash == name || !hash[1]) return 0;
    for (const char *p = hash + 1; *p; p++)
        if (*p < '0' || *p > '9') return 0;
    return (size_t)(hash - name);
}

/* The representative already chosen for a prefix (same bytes), probing past a hash's
 * other prefixes; STS_NONE with *key the free slot's key when there is none yet. */
static uint32_t rep_of(const sts_timeline *tl, const sts_u64map *m, const char *name, size_t n, uint64_t *key)
{
    uint64_t k = sts_hash_bytes(name, n) | 1;
    for (;; k += 2) {
        uint32_t r = sts_u64map_get(m, k);
        if (r == UINT32_MAX) break;
        const char *other = sts_timeline_string(tl, r);
        if (strncmp(other, name, n) == 0 && other[n] == '#') return r;
    }
    *key = k;
    return STS_NONE;
}

uint32_t *sts_an_numbered_reps(const sts_timeline *tl, sts_an_scope *x, uint32_t *bound)
{
    size_t ns;
    const sts_slice *s = sts_timeline_slices(tl, &ns);
    uint32_t b = 0;
    for (size_t i = 0; i < ns; i++)
        if (s[i].name >= b) b = s[i].name + 1;
    uint32_t *rep = malloc((b ? b : 1) * sizeof *rep);
    unsigned char *used = calloc(b ? b : 1, 1);
    sts_u64map m = STS_U64MAP_INIT;
    int bad = !rep || !used;
    for (size_t i = 0; i < ns && !bad; i++) {
        int64_t ts, end; /* kept: on the scope's lanes, in its window, matching its name */
        if (!used[s[i].name] && sts_an_scope_lane(x, s[i].lane) &&
            sts_an_clip(&s[i], sts_an_scope_window(x), &ts, &end) && sts_an_scope_name(x, s[i].name))
            used[s[i].name] = 1;
    }
    /* Ascending ids: the representative is the smallest id, whatever the slices' order
     * (each part of a parallel summary must agree on it). */
    for (uint32_t id = 0; id < b && !bad; id++) {
        rep[id] = STS_NONE;
        const char *name = sts_timeline_string(tl, id);
        size_t n = used[id] ? sts_an_numbered_prefix(name) : 0;
        if (!n) continue;
        uint64_t key = 0;
        uint32_t r = rep_of(tl, &m, name, n, &key);
        if (r == STS_NONE) {
            r = id;
            bad = sts_u64map_put(&m, key, id) != 0;
        }
        rep[id] = r;
    }
    /* One name alone keeps its number: a group of one says less than the name. */
    uint32_t *members = bad ? NULL : calloc(b ? b : 1, sizeof *members);
    bad = bad || !members;
    for (uint32_t id = 0; id < b && !bad; id++)
        if (rep[id] != STS_NONE) members[rep[id]]++;
    for (uint32_t id = 0; id < b && !bad; id++)
        if (rep[id] != STS_NONE && members[rep[id]] < 2) rep[id] = STS_NONE;
    free(members);
    free(used);
    sts_u64map_release(&m);
    if (bad) {
        free(rep);
        return NULL;
    }
    *bound = b;
    return rep;
}

const char *sts_name_summary_label(const sts_timeline *tl, const sts_name_summary *s, char *buf, size_t cap)
{
    const char *name = sts_timeline_string(tl, s->name);
    if (s->grouped != STS_NAME_GROUPED_NUMBERED) return name;
    snprintf(buf, cap, "%.*s#N", (int)sts_an_numbered_prefix(name), name);
    return buf;
}
