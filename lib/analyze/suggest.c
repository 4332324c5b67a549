/* Did you mean: candidates within a typo's distance of a word (optimal string
 * alignment distance: insert, delete, substitute, swap two neighbours). */
#include <ctype.h>
#include <string.h>

#include "stepscope/analyze.h"

#define MAX_LEN 256

static int same(char a, char b)
{
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

/* Distance between a and b, or `cap + 1` as soon as it must exceed cap. Three rows of
 * the dynamic programme live on the stack. */
static size_t distance(const char *a, size_t la, const char *b, size_t lb, size_t cap)
{
    size_t rows[3][MAX_LEN + 1];
    size_t *pp = rows[0], *p = rows[1], *c = rows[2];
    for (size_t j = 0; j <= lb; j++)
        p[j] = j;
    for (size_t i = 1; i <= la; i++) {
        c[0] = i;
        size_t best = c[0];
        for (size_t j = 1; j <= lb; j++) {
            size_t d = p[j - 1] + !same(a[i - 1], b[j - 1]);
            if (p[j] + 1 < d) d = p[j] + 1;
            if (c[j - 1] + 1 < d) d = c[j - 1] + 1;
            if (i > 1 && j > 1 && same(a[i - 1], b[j - 2]) && same(a[i - 2], b[j - 1]) && pp[j - 2] + 1 < d)
                d = pp[j - 2] + 1;
            c[j] = d;
            if (d < best) best = d;
        }
        if (best > cap) return cap + 1;
        size_t *t = pp;
        pp = p;
        p = c;
        c = t;
    }
    return p[lb];
}

size_t sts_suggest(const char *word, const char *const *cands, size_t ncands, size_t *out, size_t max)
{
    size_t lw = strlen(word);
    if (lw == 0 || lw > MAX_LEN || max == 0) return 0;
    size_t cap = lw / 3 > 1 ? lw / 3 : 1;
    size_t dist[16];
    if (max > 16) max = 16;
    size_t n = 0;
    for (size_t i = 0; i < ncands; i++) {
        size_t lc = strlen(cands[i]);
        if (lc > MAX_LEN || (lc > lw ? lc - lw : lw - lc) > cap) continue;
        size_t d = distance(word, lw, cands[i], lc, cap);
        if (d > cap) continue;
        /* Insert by distance, after equal ones: ties keep candidate order. */
        size_t at = n;
        while (at > 0 && dist[at - 1] > d)
            at--;
        if (at >= max) continue;
        size_t last = n < max ? n : max - 1;
        for (size_t k = last; k > at; k--) {
            out[k] = out[k - 1];
            dist[k] = dist[k - 1];
        }
        out[at] = i;
        dist[at] = d;
        if (n < max) n++;
    }
    return n;
}
