/* write: the buffered, gzip-capable front of base/outfile (see wfile.h). */
#include "write/wfile.h"

#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "base/outfile_fd.h"

#define BUF_SIZE (256 * 1024)

/* A buffer (and optionally deflate) in front of a base outfile, which owns the
 * temporary file, the rename and the error reporting. */
struct sts_wfile {
    sts_outfile *out;
    int gzip;
    int failed;  /* a write or compression error: sticky */
    int zfailed; /* deflate itself failed (not the file) */
    z_stream z;
    unsigned char *buf, *zbuf;
    size_t used;
    char *path;
};

int sts_path_is_gz(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

static void raw_write(sts_wfile *f, const unsigned char *p, size_t n)
{
    if (!f->failed && sts_outfile_write(f->out, p, n) != 0) f->failed = 1;
}

/* Sends the buffer on: straight to the file, or through deflate. */
static void drain(sts_wfile *f, int finish)
{
    if (!f->gzip) {
        raw_write(f, f->buf, f->used);
        f->used = 0;
        return;
    }
    f->z.next_in = f->buf;
    f->z.avail_in = (uInt)f->used;
    while (!f->failed) {
        f->z.next_out = f->zbuf;
        f->z.avail_out = BUF_SIZE;
        int rc = deflate(&f->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_ERROR) {
            f->failed = f->zfailed = 1;
            break;
        }
        raw_write(f, f->zbuf, BUF_SIZE - f->z.avail_out);
        if (finish ? rc == Z_STREAM_END : f->z.avail_out != 0) break;
    }
    f->used = 0;
}

sts_wfile *sts_wfile_open(const char *path, int gzip, int level, sts_error *err)
{
    sts_wfile *f = calloc(1, sizeof *f);
    if (f) {
        f->path = strdup(path);
        f->buf = malloc(BUF_SIZE);
        if (gzip) f->zbuf = malloc(BUF_SIZE);
    }
    if (!f || !f->path || !f->buf || (gzip && !f->zbuf)) {
        sts_wfile_abort(f);
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
        return NULL;
    }
    if (sts_outfile_open(path, &f->out, err) != STS_OK) {
        sts_wfile_abort(f);
        return NULL;
    }
    if (gzip) {
        f->gzip = 1;
        if (deflateInit2(&f->z, level >= 1 && level <= 9 ? level : Z_DEFAULT_COMPRESSION, Z_DEFLATED, 15 + 16, 8,
                         Z_DEFAULT_STRATEGY) != Z_OK) {
            f->gzip = 0;
            sts_wfile_abort(f);
            sts_error_set(err, STS_ERR_NOMEM, -1, "%s: cannot initialise zlib", path);
            return NULL;
        }
    }
    return f;
}

int sts_wfile_write(sts_wfile *f, const void *p, size_t n)
{
    const unsigned char *s = p;
    while (n && !f->failed) {
        if (f->used == BUF_SIZE) drain(f, 0);
        size_t take = BUF_SIZE - f->used;
        if (take > n) take = n;
        memcpy(f->buf + f->used, s, take);
        f->used += take;
        s += take;
        n -= take;
    }
    return f->failed ? -1 : 0;
}

int sts_wfile_puts(sts_wfile *f, const char *s)
{
    return sts_wfile_write(f, s, strlen(s));
}

sts_status sts_wfile_commit(sts_wfile *f, sts_error *err)
{
    drain(f, 1);
    sts_status st;
    if (f->zfailed) {
        st = sts_error_set(err, STS_ERR_INTERNAL, -1, "%s: compression failed; the file was not written", f->path);
    } else {
        st = sts_outfile_commit(f->out, err);
        f->out = NULL;
    }
    sts_wfile_abort(f);
    return st;
}

void sts_wfile_abort(sts_wfile *f)
{
    if (!f) return;
    if (f->gzip) deflateEnd(&f->z);
    sts_outfile_free(f->out);
    free(f->path);
    free(f->buf);
    free(f->zbuf);
    free(f);
}
