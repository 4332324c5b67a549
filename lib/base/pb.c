#include "base/pb.h"

#include <stdlib.h>
#include <string.h>

#include "base/mem.h"
#include "base/utf8.h"

/* ---- reader ---- */

void sts_pb_reader_init(sts_pb_reader *r, const void *buf, size_t n)
{
    sts_pb_reader_init_at(r, buf, n, 0);
}

void sts_pb_reader_init_at(sts_pb_reader *r, const void *buf, size_t n, uint64_t base)
{
    r->p = (const uint8_t *)buf;
    r->end = r->p + n;
    r->bias = base - (uint64_t)(uintptr_t)buf;
}

void sts_pb_sub(sts_pb_reader *sub, const sts_pb_reader *parent, const sts_pb_field *f)
{
    sub->bias = parent->bias;
    sub->p = f->data;
    sub->end = f->data + f->len;
}

/* Decodes a varint at *pp (not past end). 0 on success, else the fault. */
static sts_pb_fault read_varint_slow(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned i = 0; i < 10; i++) {
        if (p >= end) return STS_PB_TRUNCATED_VARINT;
        uint8_t b = *p++;
        /* The 10th byte holds only bit 63: anything more cannot fit in 64 bits. */
        if (i == 9 && b > 1) return STS_PB_OVERLONG_VARINT;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (!(b & 0x80)) {
            *pp = p;
            *out = v;
            return STS_PB_OK;
        }
    }
    return STS_PB_OVERLONG_VARINT;
}

/* Most tags, lengths and small values are one byte: decode those inline. */
static inline sts_pb_fault read_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) {
        *out = *p;
        *pp = p + 1;
        return STS_PB_OK;
    }
    return read_varint_slow(pp, end, out);
}

sts_pb_fault sts_pb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    return read_varint(pp, end, out);
}

static int fail(sts_pb_error *e, const sts_pb_reader *r, sts_pb_fault fault, uint64_t offset, uint64_t num,
                unsigned wire)
{
    if (e) {
        e->fault = fault;
        e->offset = offset;
        e->num = num > UINT32_MAX ? UINT32_MAX : (uint32_t)num;
        e->wire = (uint8_t)wire;
        e->len = 0;
        e->avail = (uint64_t)(r->end - r->p);
        e->msg_end = (uint64_t)(uintptr_t)r->end + r->bias;
    }
    return -1;
}

/* The hot path of every reader: kept branch-light, with the error record written only
 * on failure. */
int sts_pb_next_slow(sts_pb_reader *r, sts_pb_field *f, sts_pb_error *e)
{
    const uint8_t *p = r->p, *end = r->end;
    if (p >= end) return 0;
    uint64_t tag_off = (uint64_t)(uintptr_t)p + r->bias;
    uint64_t tag;
    sts_pb_fault fl = read_varint(&p, end, &tag);
    if (fl) return fail(e, r, fl, tag_off, 0, 0);
    uint64_t num = tag >> 3;
    unsigned wire = (unsigned)(tag & 7);
    if (num == 0 || num > STS_PB_MAX_FIELD) return fail(e, r, STS_PB_BAD_FIELD_NUMBER, tag_off, num, wire);
    f->num = (uint32_t)num;
    f->wire = (uint8_t)wire;
    f->offset = tag_off;
    uint64_t val_off = (uint64_t)(uintptr_t)p + r->bias;
    switch (wire) {
    case STS_PB_VARINT:
        fl = read_varint(&p, end, &f->u);
        if (fl) return fail(e, r, fl, val_off, num, wire);
        f->data = NULL;
        f->len = 0;
        f->data_offset = val_off;
        break;
    case STS_PB_I64:
    case STS_PB_I32: {
        size_t w = wire == STS_PB_I64 ? 8 : 4;
        if ((size_t)(end - p) < w) return fail(e, r, STS_PB_FIXED_PAST_END, val_off, num, wire);
        uint64_t v = 0;
        for (size_t i = 0; i < w; i++)
            v |= (uint64_t)p[i] << (8 * i);
        f->u = v;
        f->data = NULL;
        f->len = 0;
        f->data_offset = val_off;
        p += w;
        break;
    }
    case STS_PB_LEN: {
        uint64_t len;
        fl = read_varint(&p, end, &len);
        if (fl) return fail(e, r, fl, val_off, num, wire);
        uint64_t avail = (uint64_t)(end - p);
        if (len > avail) {
            fail(e, r, STS_PB_LENGTH_PAST_END, tag_off, num, wire);
            if (e) {
                e->len = len;
                e->avail = avail;
            }
            return -1;
        }
        f->u = 0;
        f->data = p;
        f->len = (size_t)len;
        f->data_offset = (uint64_t)(uintptr_t)p + r->bias;
        p += len;
        break;
    }
    default:
        return fail(e, r, STS_PB_BAD_WIRE_TYPE, tag_off, num, wire);
    }
    r->p = p;
    return 1;
}

const char *sts_pb_wire_name(unsigned wire)
{
    switch (wire) {
    case 0:
        return "varint";
    case 1:
        return "64-bit";
    case 2:
        return "length-delimited";
    case 3:
        return "group start";
    case 4:
        return "group end";
    case 5:
        return "32-bit";
    default:
        return "invalid";
    }
}

const char *sts_pb_fault_text(sts_pb_fault fault)
{
    switch (fault) {
    case STS_PB_OK:
        return "no error";
    case STS_PB_TRUNCATED_VARINT:
        return "a varint is cut off by the end of the data";
    case STS_PB_OVERLONG_VARINT:
        return "a varint is longer than 10 bytes or overflows 64 bits";
    case STS_PB_BAD_FIELD_NUMBER:
        return "a field number is 0 or above 536870911";
    case STS_PB_BAD_WIRE_TYPE:
        return "an unsupported wire type (groups or 6/7)";
    case STS_PB_LENGTH_PAST_END:
        return "a length runs past the end";
    case STS_PB_FIXED_PAST_END:
        return "a fixed-size value runs past the end";
    }
    return "unknown fault";
}

double sts_pb_double(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* ---- writer ---- */

#define OUT_BUF (64 * 1024)

size_t sts_pb_varint_size(uint64_t v)
{
    size_t n = 1;
    while (v >= 0x80) {
        v >>= 7;
        n++;
    }
    return n;
}

size_t sts_pb_encode_varint(uint8_t *out, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        out[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    out[n++] = (uint8_t)v;
    return n;
}

int sts_pb_writer_init(sts_pb_writer *w, sts_pb_sink_fn sink, void *user)
{
    memset(w, 0, sizeof *w);
    w->buf = malloc(OUT_BUF);
    if (!w->buf) return -1;
    w->sink = sink;
    w->user = user;
    return 0;
}

void sts_pb_writer_release(sts_pb_writer *w)
{
    STS_VEC_RELEASE(w->sizes);
    free(w->buf);
    w->buf = NULL;
}

static void set_failed(sts_pb_writer *w, sts_pb_werr e)
{
    if (!w->failed) w->failed = e;
}

static void flush(sts_pb_writer *w)
{
    if (w->used && !w->failed && w->sink(w->user, w->buf, w->used) != 0) set_failed(w, STS_PB_W_SINK);
    w->used = 0;
}

static void emit_bytes(sts_pb_writer *w, const void *p, size_t n)
{
    w->pos += n;
    if (!w->emitting || w->failed) return;
    const uint8_t *src = p;
    while (n) {
        if (w->used == OUT_BUF) flush(w);
        size_t take = OUT_BUF - w->used;
        if (take > n) take = n;
        memcpy(w->buf + w->used, src, take);
        w->used += take;
        src += take;
        n -= take;
    }
}

static void emit_varint(sts_pb_writer *w, uint64_t v)
{
    if (!w->emitting) {
        w->pos += sts_pb_varint_size(v);
        return;
    }
    if (w->used + 10 <= OUT_BUF && !w->failed) { /* straight into the buffer */
        size_t n = sts_pb_encode_varint(w->buf + w->used, v);
        w->used += n;
        w->pos += n;
        return;
    }
    uint8_t tmp[10];
    emit_bytes(w, tmp, sts_pb_encode_varint(tmp, v));
}

static void emit_tag(sts_pb_writer *w, uint32_t num, unsigned wire)
{
    emit_varint(w, (uint64_t)num << 3 | wire);
}

void sts_pb_writer_emit(sts_pb_writer *w)
{
    if (w->depth != 0) set_failed(w, STS_PB_W_MISUSE);
    w->emitting = 1;
    w->pos = 0;
    w->next = 0;
    w->depth = 0;
    w->used = 0;
}

sts_pb_werr sts_pb_writer_finish(sts_pb_writer *w)
{
    if (w->depth != 0 || w->next != w->sizes.n) set_failed(w, STS_PB_W_MISUSE);
    if (w->pos > STS_PB_MAX_MESSAGE) set_failed(w, STS_PB_W_TOO_BIG);
    flush(w);
    return w->failed;
}

void sts_pb_put_uint(sts_pb_writer *w, uint32_t num, uint64_t v)
{
    emit_tag(w, num, STS_PB_VARINT);
    emit_varint(w, v);
}

void sts_pb_put_int(sts_pb_writer *w, uint32_t num, int64_t v)
{
    sts_pb_put_uint(w, num, (uint64_t)v);
}

void sts_pb_put_double(sts_pb_writer *w, uint32_t num, double v)
{
    uint64_t bits;
    memcpy(&bits, &v, sizeof bits);
    uint8_t le[8];
    for (int i = 0; i < 8; i++)
        le[i] = (uint8_t)(bits >> (8 * i));
    emit_tag(w, num, STS_PB_I64);
    emit_bytes(w, le, 8);
}

void sts_pb_put_bytes(sts_pb_writer *w, uint32_t num, const void *p, size_t n)
{
    emit_tag(w, num, STS_PB_LEN);
    emit_varint(w, n);
    emit_bytes(w, p, n);
}

/* The bytes of s[0..n) once every byte that begins no well-formed UTF-8 sequence is
 * replaced by U+FFFD (3 bytes), as the JSON writers replace it. */
static size_t repaired_len(const unsigned char *s, size_t n)
{
    size_t out = 0;
    for (size_t i = 0; i < n;) {
        size_t len = s[i] < 0x80 ? 1 : sts_utf8_len(s + i, n - i);
        out += len ? len : 3;
        i += len ? len : 1;
    }
    return out;
}

/* A protobuf string must be UTF-8 (proto3 parsers refuse the whole message otherwise),
 * so a name holding other bytes is written repaired. */
void sts_pb_put_str(sts_pb_writer *w, uint32_t num, const char *str)
{
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str), out = repaired_len(s, n);
    if (out == n) {
        sts_pb_put_bytes(w, num, s, n);
        return;
    }
    emit_tag(w, num, STS_PB_LEN);
    emit_varint(w, out);
    size_t start = 0, i = 0; /* s[start, i) is valid and not yet written */
    while (i < n) {
        size_t len = s[i] < 0x80 ? 1 : sts_utf8_len(s + i, n - i);
        if (len) {
            i += len;
            continue;
        }
        emit_bytes(w, s + start, i - start);
        emit_bytes(w, "\xef\xbf\xbd", 3);
        start = ++i;
    }
    emit_bytes(w, s + start, n - start);
}

void sts_pb_begin(sts_pb_writer *w, uint32_t num)
{
    if (w->depth >= STS_PB_MAX_DEPTH) {
        set_failed(w, STS_PB_W_MISUSE);
        return;
    }
    emit_tag(w, num, STS_PB_LEN);
    size_t idx;
    if (!w->emitting) {
        if (!STS_VEC_PUSH(w->sizes)) {
            set_failed(w, STS_PB_W_NOMEM);
            idx = SIZE_MAX;
        } else {
            idx = w->sizes.n - 1;
        }
    } else {
        idx = w->next < w->sizes.n ? w->next++ : SIZE_MAX;
        if (idx == SIZE_MAX) set_failed(w, STS_PB_W_MISUSE);
        emit_varint(w, idx == SIZE_MAX ? 0 : w->sizes.v[idx]);
    }
    w->open_index[w->depth] = idx;
    w->open_start[w->depth] = w->pos;
    w->depth++;
}

void sts_pb_end(sts_pb_writer *w)
{
    if (w->depth <= 0) {
        set_failed(w, STS_PB_W_MISUSE);
        return;
    }
    w->depth--;
    uint64_t size = w->pos - w->open_start[w->depth];
    size_t idx = w->open_index[w->depth];
    if (size > STS_PB_MAX_MESSAGE) {
        set_failed(w, STS_PB_W_TOO_BIG);
        return;
    }
    if (idx == SIZE_MAX) return;
    if (!w->emitting) {
        w->sizes.v[idx] = (uint32_t)size;
        /* The length prefix precedes the content, but only the total matters here. */
        w->pos += sts_pb_varint_size(size);
    } else if (w->sizes.v[idx] != size) {
        set_failed(w, STS_PB_W_MISUSE);
    }
}
