/* zinflate: inflates a gzip file with zlib and throws the output away, printing the
 * number of bytes it made. It is the floor for reading a .json.gz trace: a reader
 * "limited only by inflate" takes about this long (perf/run_analyze.sh times both).
 *
 *   zinflate FILE.gz
 *
 * Concatenated gzip members are inflated one after another, as gzip -d does. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>

enum { IN_SIZE = 1 << 18, OUT_SIZE = 1 << 20 };

static unsigned char in_buf[IN_SIZE];
static unsigned char out_buf[OUT_SIZE];

int main(int argc, char **argv)
{
    if (argc != 2) {
        fprintf(stderr, "usage: zinflate FILE.gz\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f) {
        fprintf(stderr, "zinflate: cannot open %s: %s\n", argv[1], strerror(errno));
        return 1;
    }
    z_stream z;
    memset(&z, 0, sizeof z);
    if (inflateInit2(&z, 15 + 32) != Z_OK) { /* +32: accept gzip or zlib headers */
        fclose(f);
        fprintf(stderr, "zinflate: inflateInit2 failed\n");
        return 1;
    }
    uint64_t total = 0;
    int rc = Z_OK, ended = 0;
    for (;;) {
        if (z.avail_in == 0) {
            size_t n = fread(in_buf, 1, sizeof in_buf, f);
            if (n == 0) break;
            z.next_in = in_buf;
            z.avail_in = (uInt)n;
        }
        if (ended) { /* another gzip member follows */
            inflateReset(&z);
            ended = 0;
        }
        z.next_out = out_buf;
        z.avail_out = sizeof out_buf;
        rc = inflate(&z, Z_NO_FLUSH);
        total += sizeof out_buf - z.avail_out;
        if (rc == Z_STREAM_END)
            ended = 1;
        else if (rc != Z_OK && rc != Z_BUF_ERROR)
            break;
    }
    inflateEnd(&z);
    int bad = ferror(f) || !ended;
    fclose(f);
    if (bad) {
        fprintf(stderr, "zinflate: %s: not a complete gzip stream (zlib %d)\n", argv[1], rc);
        return 1;
    }
    printf("%" PRIu64 "\n", total);
    return 0;
}
