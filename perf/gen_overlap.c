/* gen_overlap: writes a Chrome trace where a given share of the slices overlap, for the
 * benchmark of what spilling overlaps to overflow tracks and self time by containment
 * cost (issue 10: "spilling and containment must not slow analyze").
 *
 *   gen_overlap [--seed N] PERCENT SIZE OUT
 *
 * Compact JSON, one event per line, until SIZE bytes (K/M/G suffixes, powers of 1000).
 * Eight threads of one process each hold root slices one after another; a root holds
 * four children, each with two grandchildren (13 slices). The last child of a root
 * overruns its root's end by 5 us with a probability chosen so that PERCENT of all
 * slices overrun their parent (13 slices per root: the probability is PERCENT * 13 /
 * 100); its grandchildren stay inside it. The gap between roots (10 us) is longer than
 * the overrun, so every overlap is one slice spilled and nothing cascades. Prints the
 * slices and overlaps written, which a reader's counts can be checked against.
 * Deterministic for a seed; libc only. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS  8
#define CHILDREN 4
#define GRAND    2

static uint64_t rng = 88172645463325252ull;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int usage(void)
{
    fprintf(stderr, "usage: gen_overlap [--seed N] PERCENT SIZE OUT\n");
    return 2;
}

static int parse_size(const char *s, uint64_t *out)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v <= 0) return -1;
    double m = *end == 'K' ? 1e3 : *end == 'M' ? 1e6 : *end == 'G' ? 1e9 : 1;
    if (*end && m == 1) return -1;
    *out = (uint64_t)(v * m);
    return 0;
}

/* One X event; ts and dur in ns, written as microseconds with three decimals. */
static int slice(FILE *f, int tid, const char *name, uint64_t ts, uint64_t dur)
{
    return fprintf(
        f, ",\n{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"name\":\"%s\",\"ts\":%" PRIu64 ".%03u,\"dur\":%" PRIu64 ".%03u}",
        tid, name, ts / 1000, (unsigned)(ts % 1000), dur / 1000, (unsigned)(dur % 1000));
}

int main(int argc, char **argv)
{
    int a = 1;
    if (a + 1 < argc && strcmp(argv[a], "--seed") == 0) {
        rng ^= strtoull(argv[a + 1], NULL, 10) * 0x9E3779B97F4A7C15ull;
        a += 2;
    }
    if (argc - a != 3) return usage();
    double pct = strtod(argv[a], NULL);
    uint64_t size;
    const int per_root = 1 + CHILDREN + CHILDREN * GRAND;
    /* At most one overlap per root. */
    if (!(pct >= 0 && pct <= 100.0 / per_root) || parse_size(argv[a + 1], &size) != 0) return usage();
    FILE *f = fopen(argv[a + 2], "wb");
    if (!f) {
        fprintf(stderr, "gen_overlap: cannot write %s: %s\n", argv[a + 2], strerror(errno));
        return 1;
    }
    static char buf[1 << 20];
    setvbuf(f, buf, _IOFBF, sizeof buf);
    const uint64_t p = (uint64_t)(pct * per_root / 100.0 * 1e6); /* per million roots */
    uint64_t slices = 0, overlaps = 0, t[THREADS];
    for (int k = 0; k < THREADS; k++)
        t[k] = 1700000000000000000ull + (uint64_t)k * 1000;
    fprintf(f, "{\"traceEvents\":[\n{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"gen\"}}");
    while ((uint64_t)ftell(f) < size) {
        for (int k = 0; k < THREADS; k++) {
            const uint64_t child = 40000 + next() % 20000, gap = 2000;
            uint64_t root_ts = t[k], root_dur = CHILDREN * (child + gap) + gap;
            slice(f, k + 1, "root", root_ts, root_dur);
            int over = next() % 1000000 < p;
            for (int c = 0; c < CHILDREN; c++) {
                uint64_t cts = root_ts + gap + (uint64_t)c * (child + gap), cdur = child;
                if (over && c == CHILDREN - 1) cdur = root_ts + root_dur + 5000 - cts; /* ends 5 us past the root */
                slice(f, k + 1, c == CHILDREN - 1 ? "last_child" : "child", cts, cdur);
                for (int g = 0; g < GRAND; g++)
                    slice(f, k + 1, g ? "leaf_b" : "leaf_a", cts + 1000 + (uint64_t)g * (child / 2), child / 2 - 2000);
            }
            slices += (uint64_t)per_root;
            overlaps += (uint64_t)over;
            t[k] = root_ts + root_dur + 10000;
        }
    }
    fprintf(f, "\n]}\n");
    if (fclose(f) != 0) {
        fprintf(stderr, "gen_overlap: cannot write %s: %s\n", argv[a + 2], strerror(errno));
        return 1;
    }
    printf("slices %" PRIu64 " overlaps %" PRIu64 "\n", slices, overlaps);
    return 0;
}
