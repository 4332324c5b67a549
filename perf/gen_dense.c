/* gen_dense: writes a Chrome trace of small dense events for the reading benchmark, the
 * shape where the reader's cost is per event rather than per byte.
 *
 *   gen_dense [--seed N] [--gzip] [--facts FILE] SIZE OUT
 *
 * Every event is a complete ("X") event of 80 to 120 bytes on a line of its own:
 *   {"ph":"X","pid":1,"tid":3,"ts":1234567.891,"dur":12.345,"name":"relu","args":{"n":7}},
 * on four threads of one process, nested six deep (each slice at depths 0 to 4 holds one
 * to three children, with gaps between them; the roots are named "step"), fourteen
 * names, one small integer arg each. Each thread's slices are written as they end, children before their parent (as
 * a tracer writes complete events), and the threads take turns a tree at a time, so the
 * file is sorted neither per thread nor overall. Times are nanoseconds written as
 * microseconds with three decimals, on a clock near 10^6 s.
 *
 * SIZE is the uncompressed size to reach (bytes, or with a K/M/G suffix, powers of 1000);
 * whole trees are written until it is reached. --gzip compresses the output (the JSON
 * inside is byte-identical). --facts FILE writes what the generator knows exactly: the
 * bytes and events, and per name its count and total and self time in ns (self =
 * duration minus the children's, which never overlap), in gen_trace's format, so a
 * benchmark can check what a reader found. Deterministic; uses only libc and zlib. */
#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define THREADS 4
#define DEPTH   6
#define NAMES   14

static const char *const NAME[NAMES] = { "step",       "forward",    "matmul",   "conv2d_fwd", "relu",
                                         "layer_norm", "softmax",    "dropout",  "add",        "gelu",
                                         "attn_qk",    "all_reduce", "copy_h2d", "embed" };

typedef struct out {
    FILE *f;
    gzFile gz;
    char buf[1 << 20];
    size_t len;
    uint64_t total;
    int failed;
} out;

static void flush(out *o)
{
    if (!o->len || o->failed) return;
    if (o->gz ? gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len : fwrite(o->buf, 1, o->len, o->f) != o->len)
        o->failed = 1;
    o->len = 0;
}

static void put(out *o, const char *s, size_t n)
{
    if (o->len + n > sizeof o->buf) flush(o);
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->total += n;
}

static uint64_t rng = 1;

static uint64_t next(void)
{
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static int64_t between(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(next() % (uint64_t)(hi - lo + 1));
}

typedef struct fact {
    uint64_t count;
    int64_t total, self;
} fact;

typedef struct gen {
    out *o;
    fact facts[NAMES];
    uint64_t events, seq;
    int first;
} gen;

/* "12.345" for 12345 ns. */
static size_t fmt_us(char *p, int64_t ns)
{
    return (size_t)sprintf(p, "%" PRId64 ".%03d", ns / 1000, (int)(ns % 1000));
}

static void emit(gen *g, int tid, int64_t ts, int64_t dur, int name)
{
    char line[256], a[32], b[32];
    fmt_us(a, ts);
    fmt_us(b, dur);
    int n = snprintf(line, sizeof line,
                     "%s{\"ph\":\"X\",\"pid\":1,\"tid\":%d,\"ts\":%s,\"dur\":%s,\"name\":\"%s\","
                     "\"args\":{\"n\":%d}}",
                     g->first ? "" : ",\n", tid, a, b, NAME[name], (int)(g->seq++ % 1000));
    g->first = 0;
    put(g->o, line, (size_t)n);
    g->events++;
}

/* A slice at `depth` starting at t0 with its subtree; returns its end. */
static int64_t node(gen *g, int tid, int depth, int64_t t0)
{
    /* Roots are steps (stepscope steps finds them as a repeated root name); below, three
     * names per depth out of the other thirteen, so names recur at several depths. */
    int name = depth == 0 ? 0 : 1 + (depth * 3 + (int)(next() % 3)) % (NAMES - 1);
    int64_t t = t0 + between(50, 900), children = 0;
    if (depth < DEPTH - 1) {
        int k = 1 + (int)(next() % 3);
        for (int i = 0; i < k; i++) {
            int64_t c0 = t;
            t = node(g, tid, depth + 1, c0);
            children += t - c0;
            t += between(20, 700);
        }
    } else {
        t += between(300, 20000);
    }
    int64_t end = t + between(10, 500), dur = end - t0;
    emit(g, tid, t0, dur, name);
    fact *f = &g->facts[name];
    f->count++;
    f->total += dur;
    f->self += dur - children;
    return end;
}

static int write_facts(const gen *g, const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    fprintf(f, "{\"bytes\": %" PRIu64 ", \"events\": %" PRIu64 ", \"complete\": %" PRIu64 ", \"metadata\": %d,\n",
            g->o->total, g->events + 1 + THREADS, g->events, 1 + THREADS);
    fprintf(f, " \"names\": {");
    for (int i = 0; i < NAMES; i++)
        fprintf(f, "%s\n  \"%s\": {\"count\": %" PRIu64 ", \"total_ns\": %" PRId64 ", \"self_ns\": %" PRId64 "}",
                i ? "," : "", NAME[i], g->facts[i].count, g->facts[i].total, g->facts[i].self);
    fprintf(f, "}}\n");
    return fclose(f);
}

static int parse_size(const char *s, uint64_t *v)
{
    char *e;
    errno = 0;
    double x = strtod(s, &e);
    if (errno || e == s || x <= 0) return -1;
    double m = *e == 'K' ? 1e3 : *e == 'M' ? 1e6 : *e == 'G' ? 1e9 : 1;
    if (m != 1) e++;
    if (*e) return -1;
    *v = (uint64_t)(x * m);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: gen_dense [--seed N] [--gzip] [--facts FILE] SIZE OUT\n");
    return 2;
}

int main(int argc, char **argv)
{
    const char *facts = NULL, *pos[2];
    int npos = 0, gz = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--gzip"))
            gz = 1;
        else if (!strcmp(argv[i], "--seed") && i + 1 < argc)
            rng = strtoull(argv[++i], NULL, 10) * 2 + 1;
        else if (!strcmp(argv[i], "--facts") && i + 1 < argc)
            facts = argv[++i];
        else if (argv[i][0] == '-' || npos == 2)
            return usage();
        else
            pos[npos++] = argv[i];
    }
    uint64_t size;
    if (npos != 2 || parse_size(pos[0], &size) != 0) return usage();
    static out o;
    if (gz) {
        o.gz = gzopen(pos[1], "wb6");
        if (o.gz) gzbuffer(o.gz, 1 << 20);
    } else {
        o.f = fopen(pos[1], "wb");
    }
    if (!o.gz && !o.f) {
        fprintf(stderr, "gen_dense: cannot write %s: %s\n", pos[1], strerror(errno));
        return 1;
    }
    static gen g;
    g.o = &o;
    const char *head = "{\"traceEvents\":[\n";
    put(&o, head, strlen(head));
    char line[160];
    int n =
        snprintf(line, sizeof line, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"dense\"}}");
    put(&o, line, (size_t)n);
    for (int t = 1; t <= THREADS; t++) {
        n = snprintf(
            line, sizeof line,
            ",\n{\"ph\":\"M\",\"pid\":1,\"tid\":%d,\"name\":\"thread_name\",\"args\":{\"name\":\"worker %d\"}}", t, t);
        put(&o, line, (size_t)n);
    }
    put(&o, ",\n", 2);
    g.first = 1;
    int64_t clock[THREADS];
    for (int t = 0; t < THREADS; t++)
        clock[t] = INT64_C(1000000000000000) + t * 1234;
    while (o.total < size) {
        for (int t = 0; t < THREADS; t++)
            clock[t] = node(&g, t + 1, 0, clock[t]) + between(1000, 5000);
    }
    put(&o, "\n]}\n", 4);
    flush(&o);
    int bad = o.failed || (o.gz ? gzclose(o.gz) != Z_OK : fclose(o.f) != 0);
    if (bad) {
        fprintf(stderr, "gen_dense: writing %s failed\n", pos[1]);
        return 1;
    }
    if (facts && write_facts(&g, facts) != 0) {
        fprintf(stderr, "gen_dense: cannot write %s: %s\n", facts, strerror(errno));
        return 1;
    }
    printf("gen_dense: %s: %" PRIu64 " bytes of JSON, %" PRIu64 " events\n", pos[1], o.total, g.events + 1 + THREADS);
    return 0;
}
