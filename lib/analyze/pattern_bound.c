/* Bounds on a pattern before glibc's regcomp() sees it. That compiler parses by
 * recursive descent and walks its NFA recursively, so about 12,000 nested groups (or
 * 65,000 `a?`) overflow an 8 MiB stack, and it copies a group once per count of its
 * interval, so `((a{0,100}){0,100}){0,100}` is a million positions and half a minute;
 * below that its time grows with the square of the positions. The scan here is a loop
 * over the bytes with a fixed stack of groups: it refuses a pattern nested more than
 * STS_AN_PATTERN_MAX_DEPTH deep, or one whose positions after expanding the intervals
 * would pass STS_AN_PATTERN_MAX_SIZE, and lets through every other (what regcomp
 * itself refuses, it still reports). */
#include <stdint.h>
#include <string.h>

#include "an_impl.h"

/* Far above any count that matters, and small enough that a product of two never
 * overflows. */
#define SATURATED ((uint64_t)1 << 31)

#define LIMIT_TEXT(x) #x
#define LIMIT(x)      LIMIT_TEXT(x)

typedef struct frame {
    uint64_t sum;  /* positions of the group's finished atoms */
    uint64_t last; /* positions of its last atom, which a quantifier repeats */
} frame;

static uint64_t sat_add(uint64_t a, uint64_t b)
{
    return a + b > SATURATED ? SATURATED : a + b;
}

static uint64_t sat_mul(uint64_t a, uint64_t b)
{
    return a && b > SATURATED / a ? SATURATED : a * b > SATURATED ? SATURATED : a * b;
}

/* The end of the bracket expression whose `[` is at p[0] (the byte after its `]`), or
 * the end of the text when it is not closed (regcomp reports that). */
static const char *bracket_end(const char *p)
{
    p++;
    if (*p == '^') p++;
    if (*p == ']') p++;
    while (*p && *p != ']') {
        if (p[0] == '[' && (p[1] == ':' || p[1] == '=' || p[1] == '.')) {
            char close = p[1];
            p += 2;
            while (*p && !(p[0] == close && p[1] == ']'))
                p++;
            if (*p) p += 2;
        } else
            p++;
    }
    return *p ? p + 1 : p;
}

/* A decimal count of an interval at *p, saturated; advances *p. -1 when no digit. */
static int64_t count_at(const char **p)
{
    if (**p < '0' || **p > '9') return -1;
    int64_t v = 0;
    for (; **p >= '0' && **p <= '9'; (*p)++)
        if (v < (int64_t)SATURATED) v = v * 10 + (**p - '0');
    return v;
}

/* The copies an interval `{n}`, `{n,}` or `{n,m}` at p[0] makes (glibc: m, or n + 1 when
 * unbounded), and its end in *end; 0 when p does not start an interval (a literal `{`). */
static uint64_t interval_copies(const char *p, const char **end)
{
    const char *q = p + 1;
    int64_t lo = count_at(&q), hi = lo;
    if (*q == ',') {
        q++;
        hi = count_at(&q);
        if (hi < 0) hi = lo + 1;
    }
    if (*q != '}' || (lo < 0 && hi < 0)) return 0;
    *end = q + 1;
    uint64_t copies = (uint64_t)(lo > hi ? lo : hi);
    return copies ? copies : 1;
}

/* Applies a quantifier making `copies` copies of the frame's last atom, plus its own
 * position. */
static void repeat_last(frame *f, uint64_t copies)
{
    uint64_t grown = sat_mul(f->last, copies);
    f->sum = sat_add(f->sum - f->last, sat_add(grown, 1));
    f->last = sat_add(grown, 1);
}

static void atom(frame *f, uint64_t size)
{
    f->sum = sat_add(f->sum, size);
    f->last = size;
}

/* A short, whole-character head of the pattern for messages. */
static int head_len(const char *pattern)
{
    size_t n = strlen(pattern), cut = n > 24 ? 24 : n;
    while (cut > 0 && cut < n && ((unsigned char)pattern[cut] & 0xC0) == 0x80)
        cut--;
    return (int)cut;
}

/* reason: which limit the pattern passed, in words. */
static sts_status too_complex(const char *pattern, const char *what, const char *reason, sts_error *err)
{
    size_t n = strlen(pattern);
    int head = head_len(pattern);
    return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                         "%s '%.*s%s' (%zu bytes) is too complex for the regular-expression engine: %s", what, head,
                         pattern, (size_t)head < n ? "..." : "", n, reason);
}

sts_status sts_an_pattern_check(const char *pattern, const char *what, sts_error *err)
{
    frame stack[STS_AN_PATTERN_MAX_DEPTH + 1];
    int depth = 0;
    memset(&stack[0], 0, sizeof stack[0]);
    for (const char *p = pattern; *p;) {
        frame *f = &stack[depth];
        const char *end = p + 1;
        uint64_t copies;
        switch (*p) {
        case '\\':
            if (p[1]) end = p + 2;
            atom(f, 1);
            break;
        case '[':
            end = bracket_end(p);
            atom(f, 1);
            break;
        case '(':
            if (depth == STS_AN_PATTERN_MAX_DEPTH)
                return too_complex(pattern, what, "it nests groups more than " LIMIT(STS_AN_PATTERN_MAX_DEPTH) " deep",
                                   err);
            memset(&stack[++depth], 0, sizeof stack[0]);
            break;
        case ')':
            if (depth == 0) {
                atom(f, 1);
                break;
            }
            depth--;
            atom(&stack[depth], sat_add(f->sum, 1));
            break;
        case '*':
        case '?':
            repeat_last(f, 1);
            break;
        case '+':
            repeat_last(f, 2);
            break;
        case '{':
            if ((copies = interval_copies(p, &end)))
                repeat_last(f, copies);
            else
                atom(f, 1);
            break;
        default:
            atom(f, 1);
            break;
        }
        p = end;
    }
    uint64_t size = 0;
    for (int d = 0; d <= depth; d++)
        size = sat_add(size, stack[d].sum);
    if (size > STS_AN_PATTERN_MAX_SIZE)
        return too_complex(pattern, what,
                           "it makes more than " LIMIT(STS_AN_PATTERN_MAX_SIZE) " positions once its intervals are "
                                                                                "expanded",
                           err);
    return STS_OK;
}
