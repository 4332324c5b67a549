#include "base/pbstream.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/mem.h"

#define WINDOW (256 * 1024)

int sts_pbs_init(sts_pbs *s, sts_instream *in, uint64_t size, sts_error *err)
{
    memset(s, 0, sizeof *s);
    s->in = in;
    s->err = err;
    s->size = size;
    s->fd = -1;
    s->base = sts_instream_offset(in);
    s->buf = malloc(WINDOW);
    if (!s->buf) {
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", sts_instream_name(in));
        return -1;
    }
    s->cap = WINDOW;
    return 0;
}

int sts_pbs_init_reread(sts_pbs *s, sts_instream *in, uint64_t size, sts_error *err)
{
    size_t mem_len = 0;
    const char *mem = sts_instream_plain_mem(in, &mem_len);
    int fd = mem ? -1 : sts_instream_plain_fd(in);
    if (!mem && fd < 0) {
        memset(s, 0, sizeof *s);
        s->fd = -1;
        return 1;
    }
    if (sts_pbs_init(s, in, size, err) != 0) return -1;
    s->fd = fd;
    s->mem = (const uint8_t *)mem;
    s->mem_len = mem_len;
    sts_pbs_reread_at(s, 0, 0);
    return 0;
}

void sts_pbs_reread_at(sts_pbs *s, uint64_t off, uint64_t stop)
{
    if (s->mem && stop > s->mem_len) stop = s->mem_len;
    s->base = s->at = off;
    s->stop = stop;
    s->pos = s->len = 0;
    s->eof = 0;
}

/* Reads up to `cap` bytes of the input into dst: from `in` in turn, or for a stream
 * that reads again, at `at` below `stop`. The count, 0 at the end, or -1 (err filled). */
static long source_read(sts_pbs *s, uint8_t *dst, size_t cap)
{
    if (s->fd < 0 && !s->mem) return sts_instream_read(s->in, dst, cap, s->err);
    uint64_t left = s->stop > s->at ? s->stop - s->at : 0;
    if (cap > left) cap = (size_t)left;
    if (cap == 0) return 0;
    if (s->mem) {
        memcpy(dst, s->mem + s->at, cap);
        s->at += cap;
        return (long)cap;
    }
    ssize_t got;
    do
        got = pread(s->fd, dst, cap, (off_t)s->at);
    while (got < 0 && errno == EINTR);
    if (got < 0) {
        sts_error_set(s->err, STS_ERR_IO, (int64_t)s->at, "%s: byte %llu: reading again: %s", sts_instream_name(s->in),
                      (unsigned long long)s->at, strerror(errno));
        return -1;
    }
    s->at += (uint64_t)got;
    return (long)got;
}

void sts_pbs_release(sts_pbs *s)
{
    free(s->buf);
    s->buf = NULL;
    s->cap = s->pos = s->len = 0;
}

/* Makes `want` bytes available in the window, unless the input ends first. 0 or
 * STS_PBS_IO. */
static int fill(sts_pbs *s, size_t want)
{
    size_t have = s->len - s->pos;
    if (have >= want || s->eof) return 0;
    if (have == 0 || s->pos + want > s->cap) { /* move the unread bytes to the front */
        memmove(s->buf, s->buf + s->pos, have);
        s->base += s->pos;
        s->pos = 0;
        s->len = have;
    }
    if (want > s->cap && sts_grow((void **)&s->buf, &s->cap, want, 1) != 0) {
        sts_error_set(s->err, STS_ERR_NOMEM, (int64_t)sts_pbs_offset(s), "%s: out of memory for a %zu-byte message",
                      sts_instream_name(s->in), want);
        return STS_PBS_IO;
    }
    while (s->len - s->pos < want) {
        long got = source_read(s, s->buf + s->len, s->cap - s->len);
        if (got < 0) return STS_PBS_IO;
        if (got == 0) {
            s->eof = 1;
            break;
        }
        s->len += (size_t)got;
    }
    return 0;
}

static void describe(sts_pb_error *e, sts_pb_fault fault, uint64_t at, uint64_t num, unsigned wire, uint64_t end)
{
    e->fault = fault;
    e->offset = at;
    e->num = num > UINT32_MAX ? UINT32_MAX : (uint32_t)num;
    e->wire = (uint8_t)wire;
    e->len = 0;
    e->msg_end = end;
    e->avail = end >= at ? end - at : 0;
}

/* The input ended at `at` or before: msg_end is where it ended. */
static int cut(sts_pbs *s, sts_pb_error *e, sts_pb_fault fault, uint64_t at, uint64_t num, unsigned wire)
{
    describe(e, fault, at, num, wire, s->base + s->len);
    return STS_PBS_CUT;
}

static int fault(sts_pb_error *e, sts_pb_fault fault, uint64_t at, uint64_t num, unsigned wire, uint64_t end)
{
    describe(e, fault, at, num, wire, end);
    return STS_PBS_FAULT;
}

/* A top-level length no input could hold (its end would pass 2^64) in an input of
 * unknown size: the input is read to its end, which its size then is, and the length
 * is refused as running past it, as it is where the size is known in advance (and
 * not taken, its end wrapped to below where it starts). */
static int past_any_end(sts_pbs *s, sts_pb_error *e, uint64_t off, uint64_t num, unsigned wire, uint64_t len,
                        uint64_t data_off)
{
    while (!s->eof) {
        s->pos = s->len;
        int rc = fill(s, 1);
        if (rc) return rc;
    }
    s->pos = s->len;
    int rc = cut(s, e, STS_PB_LENGTH_PAST_END, off, num, wire);
    e->len = len;
    e->avail = e->msg_end > data_off ? e->msg_end - data_off : 0;
    return rc;
}

int sts_pbs_next(sts_pbs *s, uint64_t end, sts_pb_field *f, sts_pb_error *e)
{
    if (end == STS_PBS_NO_END) end = s->size;
    uint64_t off = sts_pbs_offset(s);
    if (end != STS_PBS_NO_END && off >= end) return 0;
    /* A tag and a varint value take at most 20 bytes: fewer in the window means the
     * input ended. */
    int rc = fill(s, 20);
    if (rc) return rc;
    size_t have = s->len - s->pos;
    if (have == 0) return end == STS_PBS_NO_END ? 0 : cut(s, e, STS_PB_TRUNCATED_VARINT, off, 0, 0);
    /* Parse within the message's end when it lies in the window; running out of bytes
     * before it means the input was cut. */
    int bound = end != STS_PBS_NO_END && end - off <= have;
    const uint8_t *p0 = s->buf + s->pos, *p = p0, *lim = p0 + (bound ? (size_t)(end - off) : have);
    uint64_t tag;
    sts_pb_fault fl = sts_pb_varint(&p, lim, &tag);
    if (fl == STS_PB_TRUNCATED_VARINT && !bound) return cut(s, e, fl, off, 0, 0);
    if (fl) return fault(e, fl, off, 0, 0, end);
    uint64_t num = tag >> 3;
    unsigned wire = (unsigned)(tag & 7);
    if (num == 0 || num > STS_PB_MAX_FIELD) return fault(e, STS_PB_BAD_FIELD_NUMBER, off, num, wire, end);
    uint64_t val_off = off + (uint64_t)(p - p0);
    f->num = (uint32_t)num;
    f->wire = (uint8_t)wire;
    f->offset = off;
    f->data = NULL;
    f->len = 0;
    f->u = 0;
    f->data_offset = val_off;
    switch (wire) {
    case STS_PB_VARINT:
        fl = sts_pb_varint(&p, lim, &f->u);
        if (fl == STS_PB_TRUNCATED_VARINT && !bound) return cut(s, e, fl, val_off, num, wire);
        if (fl) return fault(e, fl, val_off, num, wire, end);
        break;
    case STS_PB_I64:
    case STS_PB_I32: {
        size_t w = wire == STS_PB_I64 ? 8 : 4;
        if ((size_t)(lim - p) < w)
            return bound ? fault(e, STS_PB_FIXED_PAST_END, val_off, num, wire, end)
                         : cut(s, e, STS_PB_FIXED_PAST_END, val_off, num, wire);
        uint64_t v = 0;
        for (size_t i = 0; i < w; i++)
            v |= (uint64_t)p[i] << (8 * i);
        f->u = v;
        p += w;
        break;
    }
    case STS_PB_LEN: {
        uint64_t len;
        fl = sts_pb_varint(&p, lim, &len);
        if (fl == STS_PB_TRUNCATED_VARINT && !bound) return cut(s, e, fl, val_off, num, wire);
        if (fl) return fault(e, fl, val_off, num, wire, end);
        uint64_t data_off = off + (uint64_t)(p - p0);
        if (end == STS_PBS_NO_END && len >= STS_PBS_NO_END - data_off) {
            s->pos += (size_t)(p - p0);
            return past_any_end(s, e, off, num, wire, len, data_off);
        }
        if (end != STS_PBS_NO_END && len > end - data_off) {
            fault(e, STS_PB_LENGTH_PAST_END, off, num, wire, end);
            e->len = len;
            e->avail = end - data_off;
            return STS_PBS_FAULT;
        }
        f->len = (size_t)len;
        f->data_offset = data_off;
        break;
    }
    default:
        return fault(e, STS_PB_BAD_WIRE_TYPE, off, num, wire, end);
    }
    s->pos += (size_t)(p - p0);
    return 1;
}

/* Past the window by a seek: a stream that reads again moves its offset; an ordinary
 * one seeks when the input's size is known (its lengths were checked against it, and
 * the input is not compressed). 1 when done, 0 when the bytes must be read through,
 * STS_PBS_IO. */
static int skip_by_seek(sts_pbs *s, uint64_t n)
{
    size_t have = s->len - s->pos;
    if (s->eof || n <= have || n - have < WINDOW) return 0;
    uint64_t target = s->base + s->len + (n - have);
    if (s->fd >= 0 || s->mem) {
        s->at = target;
    } else {
        if (s->size == STS_PBS_NO_END || target > s->size || sts_instream_is_gzip(s->in)) return 0;
        if (sts_instream_skip_to(s->in, target, s->err) != 0) return STS_PBS_IO;
    }
    s->base = target;
    s->pos = s->len = 0;
    return 1;
}

int sts_pbs_skip(sts_pbs *s, uint64_t n, sts_pb_error *e)
{
    int sk = skip_by_seek(s, n);
    if (sk) return sk < 0 ? sk : 0;
    while (n) {
        size_t have = s->len - s->pos;
        if (have == 0) {
            int rc = fill(s, 1);
            if (rc) return rc;
            have = s->len - s->pos;
            if (have == 0) return cut(s, e, STS_PB_LENGTH_PAST_END, sts_pbs_offset(s), 0, 0);
        }
        size_t take = (uint64_t)have < n ? have : (size_t)n;
        s->pos += take;
        n -= take;
    }
    return 0;
}

int sts_pbs_load(sts_pbs *s, size_t n, const uint8_t **p, sts_pb_error *e)
{
    int rc = fill(s, n);
    if (rc) return rc;
    if (s->len - s->pos < n) {
        s->pos = s->len;
        return cut(s, e, STS_PB_LENGTH_PAST_END, sts_pbs_offset(s), 0, 0);
    }
    *p = s->buf + s->pos;
    s->pos += n;
    return 0;
}

int sts_pbs_copy(sts_pbs *s, size_t n, void *dst, sts_pb_error *e)
{
    uint8_t *d = dst;
    size_t have = s->len - s->pos, take = have < n ? have : n;
    if (take) memcpy(d, s->buf + s->pos, take);
    s->pos += take;
    d += take;
    n -= take;
    if (n == 0) return 0;
    if (n < s->cap / 2) { /* small: through the window, which reads ahead */
        const uint8_t *p;
        int rc = sts_pbs_load(s, n, &p, e);
        if (rc) return rc;
        memcpy(d, p, n);
        return 0;
    }
    /* Large: straight from the stream into dst. The window is empty. */
    s->base += s->len;
    s->pos = s->len = 0;
    while (n) {
        long got = s->eof ? 0 : source_read(s, d, n);
        if (got < 0) return STS_PBS_IO;
        if (got == 0) {
            s->eof = 1;
            return cut(s, e, STS_PB_LENGTH_PAST_END, sts_pbs_offset(s), 0, 0);
        }
        d += got;
        n -= (size_t)got;
        s->base += (uint64_t)got;
    }
    return 0;
}
