/* zinflate: inflates a gzip file with zlib, or with ISA-L's inflater (--isal, where the
 * build has it: the one stepscope reads gzip with), and throws the output away, printing
 * the number of bytes it made. It is the floor for reading a .json.gz trace: a reader
 * "limited only by inflate" takes about this long (perf/run_analyze.sh times both), and
 * its CPU time is the inflater's part of the machine's bound for gzip input. --isal
 * stands in for `igzip -dc` where ISA-L's library is installed without its programs.
 *
 *   zinflate [--isal] FILE.gz
 *
 * Concatenated gzip members are inflated one after another, as gzip -d does. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <zlib.h>
#if defined(STS_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
#endif

enum { IN_SIZE = 1 << 18, OUT_SIZE = 1 << 20 };

static unsigned char in_buf[IN_SIZE];
static unsigned char out_buf[OUT_SIZE];

#if defined(STS_HAVE_ISAL)
/* The same with ISA-L: 0, or -1 when the input is not a complete gzip stream. */
static int inflate_isal(FILE *f, uint64_t *total)
{
    static struct inflate_state s;
    isal_inflate_init(&s);
    s.crc_flag = ISAL_GZIP;
    int ended = 0;
    for (;;) {
        if (s.avail_in == 0) {
            size_t n = fread(in_buf, 1, sizeof in_buf, f);
            if (n == 0) break;
            s.next_in = in_buf;
            s.avail_in = (uint32_t)n;
        }
        if (ended) { /* another gzip member follows: the reset forgets the input */
            uint8_t *next = s.next_in;
            uint32_t avail = s.avail_in;
            isal_inflate_reset(&s);
            s.crc_flag = ISAL_GZIP;
            s.next_in = next;
            s.avail_in = avail;
            ended = 0;
        }
        s.next_out = out_buf;
        s.avail_out = sizeof out_buf;
        if (isal_inflate(&s) < 0) return -1;
        *total += sizeof out_buf - s.avail_out;
        if (s.block_state == ISAL_BLOCK_FINISH) ended = 1;
    }
    return ferror(f) || !ended ? -1 : 0;
}
#endif

int main(int argc, char **argv)
{
    int isal = argc == 3 && strcmp(argv[1], "--isal") == 0;
    if (argc != 2 + isal) {
        fprintf(stderr, "usage: zinflate [--isal] FILE.gz\n");
        return 2;
    }
    const char *path = argv[1 + isal];
    FILE *f = fopen(path, "rb");
    if (!f) {
        fprintf(stderr, "zinflate: cannot open %s: %s\n", path, strerror(errno));
        return 1;
    }
    if (isal) {
#if defined(STS_HAVE_ISAL)
        uint64_t made = 0;
        int bad = inflate_isal(f, &made);
        fclose(f);
        if (bad) {
            fprintf(stderr, "zinflate: %s: not a complete gzip stream (ISA-L)\n", path);
            return 1;
        }
        printf("%" PRIu64 "\n", made);
        return 0;
#else
        fclose(f);
        fprintf(stderr, "zinflate: built without ISA-L (libisal-dev)\n");
        return 2;
#endif
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
        fprintf(stderr, "zinflate: %s: not a complete gzip stream (zlib %d)\n", path, rc);
        return 1;
    }
    printf("%" PRIu64 "\n", total);
    return 0;
}
