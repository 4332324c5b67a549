/* gen_corners: writes a trace of N items of one shape, for the benchmark that every
 * per-item loop of the readers and of finalize stays linear (perf/run_corners.sh,
 * issue 34: each of these shapes once cost N^2).
 *
 *   gen_corners SHAPE N OUT
 *
 * Chrome JSON shapes (one event per line):
 *   zero     N zero-length X events at one instant, each nesting in the one before
 *   stair    N X events each starting inside the one before and ending after it: a
 *            staircase, each step spilled to an overflow track of its own
 *   async    N async b events under N distinct ids, all open at once
 *   lanes    N threads of one process, one X event each
 *   pids     N processes, one X event each
 *   names    N X events with N distinct names
 *   flows    N flows (s and f) between N X events
 *   instants N process-scoped instants in N processes
 * XSpace shapes (.xplane.pb):
 *   planes   N planes ("/device:GPU:k"), one line and one event each
 *   lines    one plane of N lines, one event each
 * Deterministic; libc only. */
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- protobuf: a growable buffer, varints, tags, nested messages ------------------ */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *src, size_t n)
{
    if (b->n + n > b->cap) {
        size_t cap = b->cap ? b->cap : 256;
        while (cap < b->n + n)
            cap *= 2;
        uint8_t *p = realloc(b->p, cap);
        if (!p) {
            fprintf(stderr, "gen_corners: out of memory\n");
            exit(1);
        }
        b->p = p, b->cap = cap;
    }
    memcpy(b->p + b->n, src, n);
    b->n += n;
}

static void varint(buf *b, uint64_t v)
{
    uint8_t t[10];
    size_t n = 0;
    do {
        t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
        v >>= 7;
    } while (v);
    put(b, t, n);
}

static void field_int(buf *b, unsigned num, uint64_t v)
{
    varint(b, (uint64_t)num << 3);
    varint(b, v);
}

static void field_bytes(buf *b, unsigned num, const void *p, size_t n)
{
    varint(b, (uint64_t)num << 3 | 2);
    varint(b, n);
    put(b, p, n);
}

static void field_str(buf *b, unsigned num, const char *s)
{
    field_bytes(b, num, s, strlen(s));
}

/* A line (XLine) holding one event (XEvent) of metadata 1 at ts, 1 us long. */
static void line(buf *plane, int64_t id, const char *name, int64_t ts_ns)
{
    buf ev = { 0 }, ln = { 0 };
    field_int(&ev, 1, 1);       /* metadata_id */
    field_int(&ev, 2, 0);       /* offset_ps */
    field_int(&ev, 3, 1000000); /* duration_ps */
    field_int(&ln, 1, (uint64_t)id);
    field_str(&ln, 2, name);
    field_int(&ln, 3, (uint64_t)ts_ns);
    field_bytes(&ln, 4, ev.p, ev.n);
    field_bytes(plane, 3, ln.p, ln.n);
    free(ev.p);
    free(ln.p);
}

/* The plane's event metadata: id 1 named "kernel" (a map entry: key 1, value 2). */
static void metadata(buf *plane)
{
    buf md = { 0 }, entry = { 0 };
    field_int(&md, 1, 1);
    field_str(&md, 2, "kernel");
    field_int(&entry, 1, 1);
    field_bytes(&entry, 2, md.p, md.n);
    field_bytes(plane, 4, entry.p, entry.n);
    free(md.p);
    free(entry.p);
}

static void plane_out(FILE *f, buf *plane)
{
    buf head = { 0 };
    varint(&head, 1 << 3 | 2); /* XSpace.planes */
    varint(&head, plane->n);
    fwrite(head.p, 1, head.n, f);
    fwrite(plane->p, 1, plane->n, f);
    free(head.p);
    plane->n = 0;
}

static int xspace(FILE *f, const char *shape, long n)
{
    buf plane = { 0 };
    char name[48];
    if (strcmp(shape, "planes") == 0) {
        for (long k = 0; k < n; k++) {
            snprintf(name, sizeof name, "/device:GPU:%ld", k);
            field_int(&plane, 1, (uint64_t)k);
            field_str(&plane, 2, name);
            line(&plane, 1, "stream", k * 1000);
            metadata(&plane);
            plane_out(f, &plane);
        }
    } else {
        field_int(&plane, 1, 1);
        field_str(&plane, 2, "/device:GPU:0");
        for (long k = 0; k < n; k++) {
            snprintf(name, sizeof name, "stream %ld", k);
            line(&plane, k + 1, name, k * 1000);
        }
        metadata(&plane);
        plane_out(f, &plane);
    }
    free(plane.p);
    return 0;
}

/* ---- Chrome JSON ------------------------------------------------------------------ */

static int json(FILE *f, const char *shape, long n)
{
    fputs("{\"traceEvents\":[\n", f);
    for (long k = 0; k < n; k++) {
        const char *sep = k ? ",\n" : "";
        if (strcmp(shape, "zero") == 0)
            fprintf(f, "%s{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":0,\"name\":\"z\"}", sep);
        else if (strcmp(shape, "stair") == 0)
            fprintf(f, "%s{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":%ld,\"name\":\"step\"}", sep, k, n + 10);
        else if (strcmp(shape, "async") == 0)
            fprintf(f, "%s{\"ph\":\"b\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"cat\":\"c\",\"id\":%ld,\"name\":\"req\"}", sep,
                    k, k);
        else if (strcmp(shape, "lanes") == 0)
            fprintf(f, "%s{\"ph\":\"X\",\"pid\":1,\"tid\":%ld,\"ts\":%ld,\"dur\":1,\"name\":\"t\"}", sep, k + 1, k);
        else if (strcmp(shape, "pids") == 0)
            fprintf(f, "%s{\"ph\":\"X\",\"pid\":%ld,\"tid\":1,\"ts\":%ld,\"dur\":1,\"name\":\"p\"}", sep, k + 1, k);
        else if (strcmp(shape, "names") == 0)
            fprintf(f, "%s{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":1,\"name\":\"n%ld\"}", sep, k, k);
        else if (strcmp(shape, "flows") == 0)
            fprintf(
                f,
                "%s{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"dur\":1,\"name\":\"f\"},\n"
                "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"cat\":\"c\",\"id\":%ld,\"name\":\"fl\"},\n"
                "{\"ph\":\"f\",\"bp\":\"e\",\"pid\":1,\"tid\":1,\"ts\":%ld,\"cat\":\"c\",\"id\":%ld,\"name\":\"fl\"}",
                sep, 2 * k, 2 * k, k, 2 * k + 1, k);
        else if (strcmp(shape, "instants") == 0)
            fprintf(f, "%s{\"ph\":\"i\",\"s\":\"p\",\"pid\":%ld,\"tid\":1,\"ts\":%ld,\"name\":\"i\"}", sep, k + 1, k);
        else
            return -1;
    }
    fputs("\n]}\n", f);
    return 0;
}

int main(int argc, char **argv)
{
    char *end;
    long n = argc == 4 ? strtol(argv[2], &end, 10) : 0;
    if (argc != 4 || *end || n <= 0) {
        fprintf(stderr, "usage: gen_corners SHAPE N OUT\n");
        return 2;
    }
    const char *shape = argv[1];
    int xs = strcmp(shape, "planes") == 0 || strcmp(shape, "lines") == 0;
    FILE *f = fopen(argv[3], "wb");
    if (!f) {
        perror(argv[3]);
        return 1;
    }
    int rc = xs ? xspace(f, shape, n) : json(f, shape, n);
    if (fclose(f) != 0 || rc != 0) {
        fprintf(stderr, rc ? "gen_corners: unknown shape '%s'\n" : "gen_corners: %s: write failed\n",
                rc ? shape : argv[3]);
        return rc ? 2 : 1;
    }
    return 0;
}
