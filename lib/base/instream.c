#include "base/instream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>

#include "base/mem.h"

#define RAW_CHUNK (256 * 1024)

struct sts_instream {
    FILE *f;
    int own;
    int gzip;
    int zdone; /* the current gzip member ended */
    int eof;   /* raw file ended */
    z_stream z;
    const unsigned char *mem; /* memory source (sts_instream_open_mem), else NULL */
    size_t mem_len, mem_pos;
    unsigned char *raw;
    uint64_t out_off, raw_off, raw_size;
    char path[];
};

static int start_stream(sts_instream *in, sts_error *err);

static const char *display_path(const char *path)
{
    return strcmp(path, "-") == 0 ? "<stdin>" : path;
}

/* fread, or a copy out of the memory source. */
static size_t raw_read(sts_instream *in, void *buf, size_t n)
{
    if (!in->mem) return fread(buf, 1, n, in->f);
    size_t left = in->mem_len - in->mem_pos;
    if (n > left) n = left;
    if (n) memcpy(buf, in->mem + in->mem_pos, n);
    in->mem_pos += n;
    return n;
}

static int raw_error(const sts_instream *in)
{
    return in->mem ? 0 : ferror(in->f);
}

sts_instream *sts_instream_open(const char *path, sts_error *err)
{
    size_t plen = strlen(path);
    sts_instream *in = calloc(1, sizeof *in + plen + 1);
    if (!in) {
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
        return NULL;
    }
    memcpy(in->path, path, plen + 1);
    if (strcmp(path, "-") == 0) {
        in->f = stdin;
    } else {
        in->f = fopen(path, "rb");
        in->own = 1;
        if (!in->f) {
            sts_error_set(err, errno == ENOENT ? STS_ERR_NOT_FOUND : STS_ERR_IO, -1, "%s: cannot open: %s", path,
                          strerror(errno));
            free(in);
            return NULL;
        }
        struct stat st;
        if (fstat(fileno(in->f), &st) == 0) {
            if (S_ISDIR(st.st_mode)) {
                sts_error_set(err, STS_ERR_IO, -1, "%s: is a directory, expected a trace file", path);
                fclose(in->f);
                free(in);
                return NULL;
            }
            if (S_ISREG(st.st_mode)) in->raw_size = (uint64_t)st.st_size;
        }
    }
    return start_stream(in, err) == 0 ? in : NULL;
}

sts_instream *sts_instream_open_mem(const void *data, size_t len, const char *name, sts_error *err)
{
    if (!name) name = "<memory>";
    size_t plen = strlen(name);
    sts_instream *in = calloc(1, sizeof *in + plen + 1);
    if (!in) {
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
        return NULL;
    }
    memcpy(in->path, name, plen + 1);
    /* A non-NULL pointer marks the memory source even for an empty buffer. */
    in->mem = data ? (const unsigned char *)data : (const unsigned char *)"";
    in->mem_len = data ? len : 0;
    in->raw_size = in->mem_len;
    return start_stream(in, err) == 0 ? in : NULL;
}

/* Allocates the raw buffer and sniffs gzip; frees `in` and fills err on failure. */
static int start_stream(sts_instream *in, sts_error *err)
{
    const char *path = in->path;
    in->raw = malloc(RAW_CHUNK);
    if (!in->raw) {
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
        sts_instream_free(in);
        return -1;
    }
    /* Peek at the magic bytes: gzip starts with 1f 8b whatever the file is called. */
    size_t got = raw_read(in, in->raw, 2);
    in->raw_off = got;
    if (got == 2 && in->raw[0] == 0x1f && in->raw[1] == 0x8b) {
        in->gzip = 1;
        memset(&in->z, 0, sizeof in->z);
        if (inflateInit2(&in->z, 15 + 32) != Z_OK) {
            sts_error_set(err, STS_ERR_NOMEM, -1, "%s: cannot initialise zlib", path);
            in->gzip = 0;
            sts_instream_free(in);
            return -1;
        }
    }
    in->z.next_in = in->raw;
    in->z.avail_in = (uInt)got;
    return 0;
}

static int refill(sts_instream *in, sts_error *err)
{
    size_t got = raw_read(in, in->raw, RAW_CHUNK);
    if (got == 0) {
        if (raw_error(in)) {
            sts_error_set(err, STS_ERR_IO, (int64_t)in->out_off, "%s: read error: %s", display_path(in->path),
                          strerror(errno));
            return -1;
        }
        in->eof = 1;
    }
    in->raw_off += got;
    in->z.next_in = in->raw;
    in->z.avail_in = (uInt)got;
    return 0;
}

static long read_plain(sts_instream *in, unsigned char *buf, size_t cap, sts_error *err)
{
    size_t n = 0;
    /* The two peeked bytes come first. */
    while (in->z.avail_in && n < cap) {
        buf[n++] = *in->z.next_in++;
        in->z.avail_in--;
    }
    if (n < cap && !in->eof) {
        size_t got = raw_read(in, buf + n, cap - n);
        if (got == 0 && raw_error(in)) {
            sts_error_set(err, STS_ERR_IO, (int64_t)in->out_off, "%s: read error: %s", display_path(in->path),
                          strerror(errno));
            return -1;
        }
        if (got == 0) in->eof = 1;
        in->raw_off += got;
        n += got;
    }
    in->out_off += n;
    return (long)n;
}

static long read_gzip(sts_instream *in, unsigned char *buf, size_t cap, sts_error *err)
{
    in->z.next_out = buf;
    in->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    while (in->z.avail_out) {
        if (in->z.avail_in == 0 && !in->eof) {
            if (refill(in, err) != 0) return -1;
        }
        if (in->z.avail_in == 0 && in->eof) {
            if (!in->zdone) {
                sts_error_set(
                    err, STS_ERR_TRUNCATED, (int64_t)(in->out_off + (cap - in->z.avail_out)),
                    "%s: gzip stream is truncated after %llu uncompressed bytes (compressed file ends at byte "
                    "%llu before the gzip trailer)",
                    display_path(in->path), (unsigned long long)(in->out_off + (cap - in->z.avail_out)),
                    (unsigned long long)in->raw_off);
                return -1;
            }
            break;
        }
        if (in->zdone) {
            /* Concatenated gzip members (as `cat a.gz b.gz` makes) form one stream. */
            if (inflateReset(&in->z) != Z_OK) break;
            in->zdone = 0;
        }
        int rc = inflate(&in->z, Z_NO_FLUSH);
        if (rc == Z_STREAM_END) {
            in->zdone = 1;
        } else if (rc != Z_OK && rc != Z_BUF_ERROR) {
            sts_error_set(err, STS_ERR_PARSE, (int64_t)(in->out_off + (cap - in->z.avail_out)),
                          "%s: corrupt gzip data near compressed byte %llu: %s", display_path(in->path),
                          (unsigned long long)(in->raw_off - in->z.avail_in), in->z.msg ? in->z.msg : "inflate failed");
            return -1;
        }
    }
    size_t n = cap - in->z.avail_out;
    in->out_off += n;
    return (long)n;
}

long sts_instream_read(sts_instream *in, void *buf, size_t cap, sts_error *err)
{
    if (cap == 0) return 0;
    if (cap > (size_t)1 << 30) cap = (size_t)1 << 30;
    return in->gzip ? read_gzip(in, buf, cap, err) : read_plain(in, buf, cap, err);
}

int sts_instream_skip_to(sts_instream *in, uint64_t off, sts_error *err)
{
    if (off < in->out_off) {
        sts_error_set(err, STS_ERR_INTERNAL, (int64_t)off, "%s: cannot go back to byte %llu", display_path(in->path),
                      (unsigned long long)off);
        return -1;
    }
    if (!in->gzip) {
        /* The peeked bytes are dropped first; then a seek (or a memory jump). */
        uint64_t n = off - in->out_off;
        uint64_t from_peek = n < in->z.avail_in ? n : in->z.avail_in;
        in->z.next_in += from_peek;
        in->z.avail_in -= (uInt)from_peek;
        n -= from_peek;
        if (n && in->mem) {
            size_t left = in->mem_len - in->mem_pos;
            in->mem_pos += n < left ? (size_t)n : left;
        } else if (n && fseeko(in->f, (off_t)n, SEEK_CUR) != 0) {
            sts_error_set(err, STS_ERR_IO, (int64_t)in->out_off, "%s: cannot seek: %s", display_path(in->path),
                          strerror(errno));
            return -1;
        }
        in->raw_off += n;
        in->out_off = off;
        in->eof = 0;
        return 0;
    }
    char buf[16384];
    while (in->out_off < off) {
        uint64_t want = off - in->out_off;
        long got = sts_instream_read(in, buf, want < sizeof buf ? (size_t)want : sizeof buf, err);
        if (got < 0) return -1;
        if (got == 0) break;
    }
    return 0;
}

int sts_instream_plain_fd(const sts_instream *in)
{
    if (in->gzip || in->mem || !in->f || !in->raw_size) return -1;
    struct stat st;
    int fd = fileno(in->f);
    return fd >= 0 && fstat(fd, &st) == 0 && S_ISREG(st.st_mode) ? fd : -1;
}

const char *sts_instream_plain_mem(const sts_instream *in, size_t *len)
{
    if (in->gzip || !in->mem) return NULL;
    *len = in->mem_len;
    return (const char *)in->mem;
}

int sts_instream_is_gzip(const sts_instream *in)
{
    return in->gzip;
}
uint64_t sts_instream_offset(const sts_instream *in)
{
    return in->out_off;
}
uint64_t sts_instream_raw_offset(const sts_instream *in)
{
    return in->raw_off;
}
uint64_t sts_instream_raw_size(const sts_instream *in)
{
    return in->raw_size;
}
const char *sts_instream_path(const sts_instream *in)
{
    return in->path;
}

void sts_instream_free(sts_instream *in)
{
    if (!in) return;
    if (in->gzip) inflateEnd(&in->z);
    if (in->own && in->f) fclose(in->f);
    free(in->raw);
    free(in);
}

sts_status sts_read_file(const char *path, char **out, size_t *len, sts_error *err)
{
    *out = NULL;
    *len = 0;
    sts_instream *in = sts_instream_open(path, err);
    if (!in) return err ? err->code : STS_ERR_IO;
    char *buf = NULL;
    size_t cap = 0, n = 0;
    for (;;) {
        if (sts_grow((void **)&buf, &cap, n + 65536 + 1, 1) != 0) {
            free(buf);
            sts_instream_free(in);
            return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
        }
        long got = sts_instream_read(in, buf + n, cap - n - 1, err);
        if (got < 0) {
            free(buf);
            sts_instream_free(in);
            return err ? err->code : STS_ERR_IO;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    sts_instream_free(in);
    buf[n] = 0;
    *out = buf;
    *len = n;
    return STS_OK;
}
