#include "base/instream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <zlib.h>
#if defined(STS_HAVE_ISAL)
#include <isa-l/igzip_lib.h>
/* Weak: a program linked without -lisal (one that uses only the ledger, say) still
 * links, and inflates with zlib. */
#pragma weak isal_inflate_init
#pragma weak isal_inflate_reset
#pragma weak isal_inflate
#endif

#include "base/mem.h"

#define RAW_CHUNK (256 * 1024)

struct sts_instream {
    FILE *f;
    int own;
    int gzip;
    int zdone;  /* the current gzip member ended */
    int eof;    /* raw input ended */
    int ended;  /* no more uncompressed bytes will come */
    z_stream z; /* zlib, and in any case the cursor over the raw bytes (next_in, avail_in) */
#if defined(STS_HAVE_ISAL)
    struct inflate_state *isal; /* ISA-L's inflater, when it is the one in use */
#endif
    const unsigned char *mem; /* memory source (sts_instream_open_mem), else NULL */
    size_t mem_len, mem_pos;
    unsigned char *raw;     /* compressed bytes, for gzip input only */
    unsigned char magic[2]; /* the sniffed bytes of a plain input, delivered first */
    uint64_t out_off;       /* bytes delivered by sts_instream_read() */
    uint64_t prod_off;      /* bytes produced (inflated or read), peeked ones included */
    uint64_t raw_off, raw_size;
    /* Lookahead: produced but not yet delivered (sts_instream_peek). */
    unsigned char *ahead;
    size_t ahead_cap, ahead_pos, ahead_len;
    int has_pending; /* an error met after some bytes were made: returned by the next read */
    sts_error pending;
    char path[];
};

static int start_stream(sts_instream *in, int detect_gzip, sts_error *err);

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

static sts_instream *alloc_stream(const char *name, sts_error *err)
{
    size_t plen = strlen(name);
    sts_instream *in = calloc(1, sizeof *in + plen + 1);
    if (!in) {
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
        return NULL;
    }
    memcpy(in->path, name, plen + 1);
    return in;
}

/* The size still to read of a regular file, from where `f` stands; 0 when unknown. */
static uint64_t file_size_left(FILE *f)
{
    struct stat st;
    if (fstat(fileno(f), &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    long pos = ftell(f);
    if (pos < 0 || (uint64_t)pos > (uint64_t)st.st_size) return 0;
    return (uint64_t)st.st_size - (uint64_t)pos;
}

sts_instream *sts_instream_open(const char *path, sts_error *err)
{
    sts_instream *in = alloc_stream(path, err);
    if (!in) return NULL;
    if (strcmp(path, "-") == 0) {
        in->f = stdin;
        in->raw_size = file_size_left(stdin);
        return start_stream(in, 1, err) == 0 ? in : NULL;
    }
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
        /* Not "a trace file": compile logs are opened here too. */
        if (S_ISDIR(st.st_mode)) {
            sts_error_set(err, STS_ERR_IO, -1, "%s: is a directory, expected a file", path);
            fclose(in->f);
            free(in);
            return NULL;
        }
        if (S_ISREG(st.st_mode)) in->raw_size = (uint64_t)st.st_size;
    }
    return start_stream(in, 1, err) == 0 ? in : NULL;
}

sts_instream *sts_instream_open_file(FILE *f, const char *name, sts_error *err)
{
    if (!name) name = "<file>";
    if (!f) {
        sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: no file given", name);
        return NULL;
    }
    sts_instream *in = alloc_stream(name, err);
    if (!in) return NULL;
    in->f = f;
    in->raw_size = file_size_left(f);
    return start_stream(in, 1, err) == 0 ? in : NULL;
}

static sts_instream *open_mem(const void *data, size_t len, const char *name, int detect_gzip, sts_error *err)
{
    if (!name) name = "<memory>";
    sts_instream *in = alloc_stream(name, err);
    if (!in) return NULL;
    /* A non-NULL pointer marks the memory source even for an empty buffer. */
    in->mem = data ? (const unsigned char *)data : (const unsigned char *)"";
    in->mem_len = data ? len : 0;
    in->raw_size = in->mem_len;
    return start_stream(in, detect_gzip, err) == 0 ? in : NULL;
}

sts_instream *sts_instream_open_mem(const void *data, size_t len, const char *name, sts_error *err)
{
    return open_mem(data, len, name, 1, err);
}

sts_instream *sts_instream_open_mem_plain(const void *data, size_t len, const char *name, sts_error *err)
{
    return open_mem(data, len, name, 0, err);
}

/* Sniffs gzip and allocates its raw buffer; frees `in` and fills err on failure. A
 * plain input needs no buffer of its own (it is read into the caller's), which keeps
 * opening a small input cheap. */
static int start_stream(sts_instream *in, int detect_gzip, sts_error *err)
{
    const char *path = in->path;
    /* Peek at the magic bytes: gzip starts with 1f 8b whatever the file is called. */
    size_t got = detect_gzip ? raw_read(in, in->magic, 2) : 0;
    in->raw_off = got;
    if (got == 2 && in->magic[0] == 0x1f && in->magic[1] == 0x8b) {
        in->raw = malloc(RAW_CHUNK);
        if (!in->raw) {
            sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
            sts_instream_free(in);
            return -1;
        }
        memcpy(in->raw, in->magic, 2);
        in->gzip = 1;
        memset(&in->z, 0, sizeof in->z);
#if defined(STS_HAVE_ISAL)
        const char *want = getenv("STEPSCOPE_INFLATE");
        if (isal_inflate && !(want && strcmp(want, "zlib") == 0)) {
            in->isal = malloc(sizeof *in->isal);
            if (!in->isal) {
                sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
                in->gzip = 0;
                sts_instream_free(in);
                return -1;
            }
            isal_inflate_init(in->isal);
            in->isal->crc_flag = ISAL_GZIP;
            in->z.next_in = in->raw;
            in->z.avail_in = (uInt)got;
            return 0;
        }
#endif
        if (inflateInit2(&in->z, 15 + 32) != Z_OK) {
            sts_error_set(err, STS_ERR_NOMEM, -1, "%s: cannot initialise zlib", path);
            in->gzip = 0;
            sts_instream_free(in);
            return -1;
        }
    }
    in->z.next_in = in->gzip ? in->raw : in->magic;
    in->z.avail_in = (uInt)got;
    return 0;
}

static int refill(sts_instream *in, sts_error *err)
{
    size_t got = raw_read(in, in->raw, RAW_CHUNK);
    if (got == 0) {
        if (raw_error(in)) {
            sts_error_set(err, STS_ERR_IO, (int64_t)in->prod_off, "%s: read error: %s", display_path(in->path),
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
            sts_error_set(err, STS_ERR_IO, (int64_t)in->prod_off, "%s: read error: %s", display_path(in->path),
                          strerror(errno));
            return -1;
        }
        if (got == 0) in->eof = 1;
        in->raw_off += got;
        n += got;
    }
    return (long)n;
}

/* On an error, *made says how many bytes were inflated into buf before it. */
static long read_gzip(sts_instream *in, unsigned char *buf, size_t cap, size_t *made, sts_error *err)
{
    in->z.next_out = buf;
    in->z.avail_out = (uInt)(cap > UINT32_MAX ? UINT32_MAX : cap);
    *made = 0;
    while (in->z.avail_out) {
        *made = cap - in->z.avail_out;
        if (in->z.avail_in == 0 && !in->eof) {
            if (refill(in, err) != 0) return -1;
        }
        if (in->z.avail_in == 0 && in->eof) {
            if (!in->zdone) {
                uint64_t at = in->prod_off + (cap - in->z.avail_out);
                sts_error_set(err, STS_ERR_TRUNCATED, (int64_t)at,
                              "%s: gzip stream is truncated after %llu uncompressed bytes (compressed file ends at "
                              "byte %llu before the gzip trailer)",
                              display_path(in->path), (unsigned long long)at, (unsigned long long)in->raw_off);
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
            sts_error_set(err, STS_ERR_PARSE, (int64_t)(in->prod_off + (cap - in->z.avail_out)),
                          "%s: corrupt gzip data near compressed byte %llu: %s", display_path(in->path),
                          (unsigned long long)(in->raw_off - in->z.avail_in), in->z.msg ? in->z.msg : "inflate failed");
            return -1;
        }
    }
    return (long)(cap - in->z.avail_out);
}

#if defined(STS_HAVE_ISAL)
static const char *isal_reason(int rc)
{
    switch (rc) {
    case ISAL_INVALID_BLOCK:
        return "invalid deflate block";
    case ISAL_INVALID_SYMBOL:
        return "invalid deflate symbol";
    case ISAL_INVALID_LOOKBACK:
        return "invalid distance too far back";
    case ISAL_INVALID_WRAPPER:
        return "not a gzip header";
    case ISAL_UNSUPPORTED_METHOD:
        return "unknown compression method";
    case ISAL_INCORRECT_CHECKSUM:
        return "incorrect data check";
    default:
        return "inflate failed";
    }
}

/* read_gzip with ISA-L's inflater: the same stream rules (members one after another,
 * the end only after a member's trailer), about four times zlib's speed. */
static long read_gzip_isal(sts_instream *in, unsigned char *buf, size_t cap, size_t *made, sts_error *err)
{
    struct inflate_state *s = in->isal;
    s->next_out = buf;
    s->avail_out = (uint32_t)(cap > UINT32_MAX ? UINT32_MAX : cap);
    *made = 0;
    while (s->avail_out) {
        *made = cap - s->avail_out;
        if (in->z.avail_in == 0 && !in->eof) {
            if (refill(in, err) != 0) return -1;
        }
        if (in->z.avail_in == 0 && in->eof) {
            if (!in->zdone) {
                uint64_t at = in->prod_off + (cap - s->avail_out);
                sts_error_set(err, STS_ERR_TRUNCATED, (int64_t)at,
                              "%s: gzip stream is truncated after %llu uncompressed bytes (compressed file ends at "
                              "byte %llu before the gzip trailer)",
                              display_path(in->path), (unsigned long long)at, (unsigned long long)in->raw_off);
                return -1;
            }
            break;
        }
        if (in->zdone) { /* the next member of `cat a.gz b.gz` */
            isal_inflate_reset(s);
            s->crc_flag = ISAL_GZIP;
            in->zdone = 0;
        }
        s->next_in = (uint8_t *)in->z.next_in;
        s->avail_in = in->z.avail_in;
        int rc = isal_inflate(s);
        in->z.next_in = s->next_in;
        in->z.avail_in = s->avail_in;
        if (rc < 0) {
            sts_error_set(err, STS_ERR_PARSE, (int64_t)(in->prod_off + (cap - s->avail_out)),
                          "%s: corrupt gzip data near compressed byte %llu: %s", display_path(in->path),
                          (unsigned long long)(in->raw_off - in->z.avail_in), isal_reason(rc));
            return -1;
        }
        if (s->block_state == ISAL_BLOCK_FINISH) in->zdone = 1;
    }
    return (long)(cap - s->avail_out);
}
#endif

const char *sts_instream_inflater(const sts_instream *in)
{
    if (!in->gzip) return NULL;
#if defined(STS_HAVE_ISAL)
    if (in->isal) return "isa-l";
#endif
    return "zlib";
}

/* New uncompressed bytes from the source, past any lookahead. The bytes inflated
 * before an error are delivered first, the error by the next call. */
static long produce(sts_instream *in, unsigned char *buf, size_t cap, sts_error *err)
{
    if (in->has_pending) {
        in->has_pending = 0;
        if (err) *err = in->pending;
        return -1;
    }
    if (in->ended) return 0;
    sts_error e = STS_ERROR_INIT;
    size_t made = 0;
    long got;
#if defined(STS_HAVE_ISAL)
    if (in->isal)
        got = read_gzip_isal(in, buf, cap, &made, &e);
    else
#endif
        got = in->gzip ? read_gzip(in, buf, cap, &made, &e) : read_plain(in, buf, cap, &e);
    if (got < 0 && made > 0) {
        in->pending = e;
        in->has_pending = 1;
        got = (long)made;
    } else if (got < 0) {
        if (err) *err = e;
        return -1;
    }
    if (got > 0) in->prod_off += (uint64_t)got;
    if (got == 0) in->ended = 1; /* a terminal would be read again after its end: don't */
    return got;
}

long sts_instream_read(sts_instream *in, void *buf, size_t cap, sts_error *err)
{
    if (cap == 0) return 0;
    if (cap > (size_t)1 << 30) cap = (size_t)1 << 30;
    size_t ahead = in->ahead_len - in->ahead_pos;
    if (ahead) {
        size_t n = ahead < cap ? ahead : cap;
        memcpy(buf, in->ahead + in->ahead_pos, n);
        in->ahead_pos += n;
        in->out_off += n;
        return (long)n;
    }
    long got = produce(in, buf, cap, err);
    if (got > 0) in->out_off += (uint64_t)got;
    return got;
}

long sts_instream_peek(sts_instream *in, size_t n, const unsigned char **p, sts_error *err)
{
    if (n > STS_INSTREAM_MAX_PEEK) n = STS_INSTREAM_MAX_PEEK;
    size_t have = in->ahead_len - in->ahead_pos;
    if (have < n && !in->has_pending && !in->ended) {
        if (in->ahead_pos) { /* keep the lookahead at the start of its buffer */
            memmove(in->ahead, in->ahead + in->ahead_pos, have);
            in->ahead_pos = 0;
            in->ahead_len = have;
        }
        if (sts_grow((void **)&in->ahead, &in->ahead_cap, n, 1) != 0) {
            sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", display_path(in->path));
            return -1;
        }
        while (have < n) {
            sts_error e = STS_ERROR_INIT;
            long got = produce(in, in->ahead + in->ahead_len, n - have, &e);
            if (got < 0) {
                if (have == 0) {
                    if (err) *err = e;
                    return -1;
                }
                in->pending = e;
                in->has_pending = 1;
                break;
            }
            if (got == 0) break;
            in->ahead_len += (size_t)got;
            have += (size_t)got;
        }
    }
    *p = in->ahead ? in->ahead + in->ahead_pos : (const unsigned char *)"";
    return (long)(have < n ? have : n);
}

int sts_instream_skip_to(sts_instream *in, uint64_t off, sts_error *err)
{
    if (off < in->out_off) {
        sts_error_set(err, STS_ERR_INTERNAL, (int64_t)off, "%s: cannot go back to byte %llu", display_path(in->path),
                      (unsigned long long)off);
        return -1;
    }
    /* What was peeked goes first. */
    uint64_t n = off - in->out_off;
    size_t ahead = in->ahead_len - in->ahead_pos;
    size_t k = n < ahead ? (size_t)n : ahead;
    in->ahead_pos += k;
    in->out_off += k;
    n -= k;
    if (n && !in->gzip && !in->has_pending) {
        /* Plain bytes: the two sniffed ones, then a jump in memory or a seek. */
        uint64_t from_sniff = n < in->z.avail_in ? n : in->z.avail_in;
        in->z.next_in += from_sniff;
        in->z.avail_in -= (uInt)from_sniff;
        uint64_t moved = from_sniff;
        n -= from_sniff;
        if (n && in->mem) {
            size_t left = in->mem_len - in->mem_pos;
            size_t m = n < left ? (size_t)n : left;
            in->mem_pos += m;
            in->raw_off += m;
            moved += m;
            n -= m;
        } else if (n && fseeko(in->f, (off_t)n, SEEK_CUR) == 0) {
            in->raw_off += n;
            moved += n;
            n = 0;
        }
        in->out_off += moved;
        in->prod_off += moved;
        in->eof = in->ended = 0;
    }
    /* Anything else is read and dropped. */
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
    /* Opened by path, so stream offsets are file offsets. */
    if (in->gzip || in->mem || !in->f || !in->own || !in->raw_size) return -1;
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
const char *sts_instream_name(const sts_instream *in)
{
    return display_path(in->path);
}

void sts_instream_free(sts_instream *in)
{
    if (!in) return;
#if defined(STS_HAVE_ISAL)
    if (in->isal) {
        free(in->isal);
        in->isal = NULL;
        in->gzip = 0;
    }
#endif
    if (in->gzip) inflateEnd(&in->z);
    if (in->own && in->f) fclose(in->f);
    free(in->raw);
    free(in->ahead);
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
