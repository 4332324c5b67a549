#include "write/wfile.h"

#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#define BUF_SIZE (256 * 1024)

struct sts_wfile {
    int fd;
    int gzip;
    int failed_errno; /* first write error, 0 when none */
    const char *failed_what;
    z_stream z;
    unsigned char *buf, *zbuf;
    size_t used;
    char *path, *tmp;
};

int sts_path_is_gz(const char *path)
{
    size_t n = strlen(path);
    return n >= 3 && strcmp(path + n - 3, ".gz") == 0;
}

static void note_failure(sts_wfile *f, const char *what, int e)
{
    if (f->failed_what) return;
    f->failed_what = what;
    f->failed_errno = e ? e : EIO;
}

static void raw_write(sts_wfile *f, const unsigned char *p, size_t n)
{
    while (n && !f->failed_what) {
        ssize_t w = write(f->fd, p, n);
        if (w < 0) {
            if (errno == EINTR) continue;
            note_failure(f, "write", errno);
            return;
        }
        p += w;
        n -= (size_t)w;
    }
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
    for (;;) {
        f->z.next_out = f->zbuf;
        f->z.avail_out = BUF_SIZE;
        int rc = deflate(&f->z, finish ? Z_FINISH : Z_NO_FLUSH);
        if (rc == Z_STREAM_ERROR) {
            note_failure(f, "compress", EIO);
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
    char *dircopy = strdup(path), *basecopy = strdup(path);
    if (f) {
        f->fd = -1;
        f->path = strdup(path);
        f->buf = malloc(BUF_SIZE);
        if (gzip) f->zbuf = malloc(BUF_SIZE);
    }
    if (!f || !dircopy || !basecopy || !f->path || !f->buf || (gzip && !f->zbuf)) {
        free(dircopy);
        free(basecopy);
        sts_wfile_abort(f);
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
        return NULL;
    }
    const char *dir = dirname(dircopy), *base = basename(basecopy);
    size_t tn = strlen(dir) + strlen(base) + 32;
    f->tmp = malloc(tn);
    if (f->tmp) snprintf(f->tmp, tn, "%s/.%s.tmp.XXXXXX", dir, base);
    free(dircopy);
    free(basecopy);
    if (!f->tmp) {
        sts_wfile_abort(f);
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
        return NULL;
    }
    f->fd = mkstemp(f->tmp);
    if (f->fd < 0) {
        int e = errno;
        free(f->tmp);
        f->tmp = NULL;
        sts_error_set(err, e == ENOENT ? STS_ERR_NOT_FOUND : STS_ERR_IO, -1,
                      "%s: cannot create a temporary file beside it: %s", path, strerror(e));
        sts_wfile_abort(f);
        return NULL;
    }
    /* mkstemp makes the file private; a trace is an ordinary file. */
    (void)fchmod(f->fd, 0644);
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
    while (n && !f->failed_what) {
        if (f->used == BUF_SIZE) drain(f, 0);
        size_t take = BUF_SIZE - f->used;
        if (take > n) take = n;
        memcpy(f->buf + f->used, s, take);
        f->used += take;
        s += take;
        n -= take;
    }
    return f->failed_what ? -1 : 0;
}

int sts_wfile_puts(sts_wfile *f, const char *s)
{
    return sts_wfile_write(f, s, strlen(s));
}

static void fsync_dir(const char *path)
{
    char *copy = strdup(path);
    if (!copy) return;
    int fd = open(dirname(copy), O_RDONLY | O_DIRECTORY);
    free(copy);
    if (fd < 0) return;
    (void)fsync(fd); /* best effort: some file systems refuse fsync on directories */
    close(fd);
}

sts_status sts_wfile_commit(sts_wfile *f, sts_error *err)
{
    drain(f, 1);
    if (!f->failed_what && fsync(f->fd) != 0 && errno != EINVAL) note_failure(f, "fsync", errno);
    if (close(f->fd) != 0 && !f->failed_what) note_failure(f, "close", errno);
    f->fd = -1;
    if (!f->failed_what && rename(f->tmp, f->path) != 0) note_failure(f, "rename", errno);
    if (f->failed_what) {
        sts_status code = STS_ERR_IO;
        sts_error_set(err, code, -1, "%s: %s failed: %s (nothing was written there)", f->path, f->failed_what,
                      strerror(f->failed_errno));
        sts_wfile_abort(f);
        return code;
    }
    fsync_dir(f->path);
    free(f->tmp);
    f->tmp = NULL;
    sts_wfile_abort(f);
    return STS_OK;
}

void sts_wfile_abort(sts_wfile *f)
{
    if (!f) return;
    if (f->gzip) deflateEnd(&f->z);
    if (f->fd >= 0) close(f->fd);
    if (f->tmp) unlink(f->tmp);
    free(f->tmp);
    free(f->path);
    free(f->buf);
    free(f->zbuf);
    free(f);
}
