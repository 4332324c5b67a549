#include "trace_scope.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_cli.h"

/* Prints the suggestions among cands (at most 5) as " did you mean 'a', 'b'?". */
static void print_suggestions(const char *word, const char *const *cands, size_t n)
{
    size_t pick[5];
    size_t k = sts_suggest(word, cands, n, pick, 5);
    if (!k) return;
    cli_say(stderr, "did you mean ");
    for (size_t i = 0; i < k; i++)
        cli_say(stderr, "%s'%s'", i ? ", " : "", cands[pick[i]]);
    cli_say(stderr, "?\n");
}

/* Each distinct string once, in first-seen order (a small quadratic dedupe would do
 * for lane names, but traces can have a million lanes). */
static const char **distinct(const sts_timeline *tl, const uint32_t *ids, size_t n, size_t *out_n)
{
    uint32_t bound = 0;
    for (size_t i = 0; i < n; i++)
        if (ids[i] != STS_NONE && ids[i] >= bound) bound = ids[i] + 1;
    unsigned char *seen = calloc(bound ? bound : 1, 1);
    const char **v = malloc((n ? n : 1) * sizeof *v);
    size_t k = 0;
    if (seen && v) {
        for (size_t i = 0; i < n; i++) {
            if (ids[i] == STS_NONE || ids[i] == 0 || seen[ids[i]]) continue;
            seen[ids[i]] = 1;
            v[k++] = sts_timeline_string(tl, ids[i]);
        }
    }
    free(seen);
    *out_n = k;
    return v;
}

static void suggest_lanes(const sts_timeline *tl, const char *pattern)
{
    size_t nl;
    const sts_lane *ln = sts_timeline_lanes(tl, &nl);
    uint32_t *ids = malloc((nl ? nl : 1) * sizeof *ids);
    if (!ids) return;
    for (size_t l = 0; l < nl; l++)
        ids[l] = ln[l].name;
    size_t n = 0;
    const char **names = distinct(tl, ids, nl, &n);
    if (names) print_suggestions(pattern, names, n);
    free(names);
    free(ids);
}

int ts_lanes(const char *cmd, const sts_timeline *tl, const char *pattern, uint32_t **out, size_t *n)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_lanes_matching(tl, pattern, out, n, &err) != STS_OK) {
        cli_say(stderr, "stepscope %s: error: %s\n", cmd, err.message);
        return err.code == STS_ERR_INVALID_ARG ? CLI_USAGE : CLI_BAD_INPUT;
    }
    if (*n) return CLI_OK;
    fprintf(stderr,
            "stepscope %s: no lane of %s matches '%s' (by thread or process name, pid, tid or PID:TID, or as an "
            "extended regex over the names)\n",
            cmd, sts_timeline_get_info(tl)->path, pattern);
    suggest_lanes(tl, pattern);
    return CLI_BAD_INPUT;
}

void ts_suggest_names(const sts_timeline *tl, const char *word)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    uint32_t *ids = malloc((n ? n : 1) * sizeof *ids);
    if (!ids) return;
    for (size_t i = 0; i < n; i++)
        ids[i] = s[i].name;
    size_t k = 0;
    const char **names = distinct(tl, ids, n, &k);
    if (names) print_suggestions(word, names, k);
    free(names);
    free(ids);
}

int ts_parse_duration(const char *s, size_t len, int64_t *ns)
{
    char buf[64];
    if (len == 0 || len >= sizeof buf) return -1;
    memcpy(buf, s, len);
    buf[len] = 0;
    errno = 0;
    char *end;
    double v = strtod(buf, &end);
    if (end == buf || errno || !isfinite(v)) return -1;
    double scale = 1e6;
    if (!strcmp(end, "ns"))
        scale = 1;
    else if (!strcmp(end, "us"))
        scale = 1e3;
    else if (!strcmp(end, "ms") || !*end)
        scale = 1e6;
    else if (!strcmp(end, "s"))
        scale = 1e9;
    else
        return -1;
    double x = v * scale;
    if (x > 9.2e18 || x < -9.2e18) return -1;
    *ns = (int64_t)llround(x);
    return 0;
}

int ts_parse_window(const char *cmd, const char *text, const sts_timeline *tl, int64_t *start, int64_t *end)
{
    const char *colon = strchr(text, ':');
    if (!colon) return 1;
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    int64_t a = 0, b = 0;
    int bad = 0;
    if (colon > text) bad |= ts_parse_duration(text, (size_t)(colon - text), &a) != 0;
    if (colon[1]) bad |= ts_parse_duration(colon + 1, strlen(colon + 1), &b) != 0;
    if (bad) {
        fprintf(stderr,
                "stepscope %s: --window expects START:END (times since the trace's first timestamp, e.g. 12.5ms:20ms; "
                "no unit = ms) or a step number, got '%s'\n",
                cmd, text);
        return -1;
    }
    /* The trace's span is in int64 ns, so the sums below stay within range unless a
     * bound is absurd; those are refused. */
    if (__builtin_add_overflow(in->ts_min, a, start) || __builtin_add_overflow(in->ts_min, b, end)) {
        cli_say(stderr, "stepscope %s: --window %s is out of range\n", cmd, text);
        return -1;
    }
    if (colon == text) *start = in->ts_min;
    if (!colon[1]) *end = in->ts_max;
    if (*start >= *end) {
        cli_say(stderr, "stepscope %s: --window %s is empty: START must be before END\n", cmd, text);
        return -1;
    }
    return 0;
}
