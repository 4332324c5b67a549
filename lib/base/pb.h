/* base: the protobuf wire format, read and written by hand.
 *
 * Why not protobuf-c or the C++ runtime: stepscope reads and writes one schema
 * (XSpace, see proto/xplane.proto) and needs none of their features. Doing it here
 * means no code-generation step in the build, no extra runtime library to install
 * or link, and byte-exact control over what is written (canonical field order,
 * minimal varints, zero scalars omitted except inside a oneof). The reader is
 * written for hostile input: every length is checked against the bytes that remain
 * in the enclosing message, and a failure reports the byte offset of the field and
 * what was wrong, so a caller can name the file, offset and field.
 *
 * Reader: a cursor over one message's bytes. sts_pb_next() yields each field in
 * order; a length-delimited field's payload can be opened as a nested reader with
 * sts_pb_sub(). The reader never recurses by itself, so nesting depth is whatever
 * the caller descends; callers bound it.
 *
 * Writer: two passes over the same sequence of calls. The first pass only measures
 * (it records each submessage's size, in the order the submessages begin); the
 * second writes, prefixing each submessage with the size measured for it. Output
 * goes to a sink in 64 KiB pieces, so a large file never sits in memory whole. The
 * second pass checks every submessage against its measured size. */
#ifndef STS_BASE_PB_H
#define STS_BASE_PB_H

#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"

/* Wire types. 3 and 4 (groups) are refused by the reader; proto3 has no groups. */
enum { STS_PB_VARINT = 0, STS_PB_I64 = 1, STS_PB_LEN = 2, STS_PB_I32 = 5 };

/* The largest field number protobuf allows. */
#define STS_PB_MAX_FIELD 536870911u

/* ---- reader ---- */

typedef struct sts_pb_reader {
    const uint8_t *p, *end; /* unread bytes of this message */
    /* Added to a byte's address, gives its offset in the input: the buffer's offset
     * (0, or where a message copied out of a stream stood) minus its address, in
     * wrapping unsigned arithmetic, so an offset costs one addition. */
    uint64_t bias;
} sts_pb_reader;

/* One decoded field. For VARINT, I64 and I32 the value is in `u` (I64 and I32 raw,
 * little-endian decoded); for LEN, `data`/`len` give the payload. */
typedef struct sts_pb_field {
    uint32_t num;
    uint8_t wire;
    uint64_t u;
    const uint8_t *data;
    size_t len;
    uint64_t offset;      /* offset of the field's tag */
    uint64_t data_offset; /* offset of the value (after the tag, and the length for LEN) */
} sts_pb_field;

typedef enum sts_pb_fault {
    STS_PB_OK = 0,
    STS_PB_TRUNCATED_VARINT, /* a tag, varint value or length is cut off by the message end */
    STS_PB_OVERLONG_VARINT,  /* more than 10 bytes, or a 10th byte above 1 */
    STS_PB_BAD_FIELD_NUMBER, /* 0, or above STS_PB_MAX_FIELD */
    STS_PB_BAD_WIRE_TYPE,    /* 3, 4, 6 or 7 */
    STS_PB_LENGTH_PAST_END,  /* a LEN payload runs past the end of the enclosing message */
    STS_PB_FIXED_PAST_END    /* an I64/I32 value runs past the end */
} sts_pb_fault;

/* What went wrong, for the caller to word with its own message and field names. */
typedef struct sts_pb_error {
    sts_pb_fault fault;
    uint64_t offset;  /* where the bad tag, varint or value starts */
    uint32_t num;     /* field number, when the tag was read */
    uint8_t wire;     /* wire type, when the tag was read */
    uint64_t len;     /* the length that was too long (LENGTH_PAST_END) */
    uint64_t avail;   /* bytes that remained in the enclosing message */
    uint64_t msg_end; /* offset where the enclosing message ends */
} sts_pb_error;

/* A reader over the whole buffer `buf` of `n` bytes. */
void sts_pb_reader_init(sts_pb_reader *r, const void *buf, size_t n);

/* The same for bytes that stood at offset `base` of the input: offsets in fields and
 * errors count from the input's start. */
void sts_pb_reader_init_at(sts_pb_reader *r, const void *buf, size_t n, uint64_t base);

/* A reader over the payload of LEN field `f`, read from `parent`. */
void sts_pb_sub(sts_pb_reader *sub, const sts_pb_reader *parent, const sts_pb_field *f);

/* sts_pb_next for every case, faults included. */
int sts_pb_next_slow(sts_pb_reader *r, sts_pb_field *f, sts_pb_error *e);

/* A varint at *pp, not read at or past `end`: 0 with *out set and *pp advanced, or -1
 * (cut off or overlong: the slow path says which). */
static inline int sts_pb__varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    uint64_t v = 0;
    for (unsigned i = 0; i < 10 && p < end; i++) {
        uint8_t b = *p++;
        v |= (uint64_t)(b & 0x7f) << (7 * i);
        if (b < 0x80) {
            if (i == 9 && b > 1) return -1;
            *pp = p;
            *out = v;
            return 0;
        }
    }
    return -1;
}

/* Reads the next field. Returns 1 with *f filled, 0 at the end of the message, or -1
 * with *e describing the fault (the reader is then left where the fault began).
 * Inline for the common case (a valid field): readers call it once per field of every
 * event; anything wrong goes to sts_pb_next_slow, which words the fault. */
static inline int sts_pb_next(sts_pb_reader *r, sts_pb_field *f, sts_pb_error *e)
{
    const uint8_t *p = r->p, *end = r->end;
    if (p >= end) return 0;
    uint64_t tag, num;
    const uint8_t *q = p;
    if (sts_pb__varint(&q, end, &tag) != 0 || (num = tag >> 3) == 0 || num > STS_PB_MAX_FIELD)
        return sts_pb_next_slow(r, f, e);
    unsigned wire = (unsigned)(tag & 7);
    uint64_t v;
    const uint8_t *vq = q;
    switch (wire) {
    case STS_PB_VARINT:
        if (sts_pb__varint(&q, end, &v) != 0) return sts_pb_next_slow(r, f, e);
        f->u = v;
        f->data = NULL;
        f->len = 0;
        break;
    case STS_PB_LEN:
        if (sts_pb__varint(&q, end, &v) != 0 || v > (uint64_t)(end - q)) return sts_pb_next_slow(r, f, e);
        f->u = 0;
        f->data = q;
        f->len = (size_t)v;
        q += v;
        break;
    case STS_PB_I64:
    case STS_PB_I32: {
        size_t w = wire == STS_PB_I64 ? 8 : 4;
        if ((size_t)(end - q) < w) return sts_pb_next_slow(r, f, e);
        uint64_t x = 0;
        for (size_t i = 0; i < w; i++)
            x |= (uint64_t)q[i] << (8 * i);
        f->u = x;
        f->data = NULL;
        f->len = 0;
        q += w;
        break;
    }
    default:
        return sts_pb_next_slow(r, f, e);
    }
    f->num = (uint32_t)num;
    f->wire = (uint8_t)wire;
    f->offset = (uint64_t)(uintptr_t)p + r->bias;
    f->data_offset = (uint64_t)(uintptr_t)(wire == STS_PB_LEN ? f->data : vq) + r->bias;
    r->p = q;
    return 1;
}

/* Offset of the reader's position from the buffer's origin. */
static inline uint64_t sts_pb_offset(const sts_pb_reader *r)
{
    return (uint64_t)(uintptr_t)r->p + r->bias;
}

/* Decodes a varint at *pp, not reading at or past `end`. Returns STS_PB_OK with *out
 * set and *pp advanced, or STS_PB_TRUNCATED_VARINT / STS_PB_OVERLONG_VARINT. */
sts_pb_fault sts_pb_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out);

/* "varint", "64-bit", "length-delimited", "32-bit", "group start", ... */
const char *sts_pb_wire_name(unsigned wire);

/* A short description of a fault ("a varint is cut off by the end of the data"). */
const char *sts_pb_fault_text(sts_pb_fault fault);

/* The double stored in an I64 field's raw bits. */
double sts_pb_double(uint64_t bits);

/* ---- writer ---- */

/* Receives output bytes; returns 0, or non-zero to stop writing (a write error). */
typedef int (*sts_pb_sink_fn)(void *user, const void *buf, size_t n);

#define STS_PB_MAX_DEPTH   32
#define STS_PB_MAX_MESSAGE 2147483647u /* protobuf's own 2 GiB limit for a message */

typedef enum sts_pb_werr {
    STS_PB_W_OK = 0,
    STS_PB_W_NOMEM,   /* the size table could not grow */
    STS_PB_W_SINK,    /* the sink reported an error */
    STS_PB_W_TOO_BIG, /* a message (or the whole output) reached 2 GiB */
    STS_PB_W_MISUSE   /* unbalanced begin/end, too deep, or the passes differed */
} sts_pb_werr;

typedef struct sts_pb_writer {
    int emitting;            /* 0: measuring pass; 1: writing pass */
    sts_pb_werr failed;      /* sticky: the first failure */
    STS_VEC(uint32_t) sizes; /* submessage sizes in the order they begin */
    size_t next;
    uint64_t pos; /* bytes counted (measure) or written (emit) */
    uint64_t open_start[STS_PB_MAX_DEPTH];
    size_t open_index[STS_PB_MAX_DEPTH];
    int depth;
    uint8_t *buf; /* 64 KiB output buffer (emit pass) */
    size_t used;
    sts_pb_sink_fn sink;
    void *user;
} sts_pb_writer;

/* Prepares a writer whose second pass sends bytes to `sink`. Returns 0, or -1 when
 * memory is exhausted. Release with sts_pb_writer_release(). */
int sts_pb_writer_init(sts_pb_writer *w, sts_pb_sink_fn sink, void *user);

/* Starts the writing pass. Call after the measuring pass has made the same calls that
 * the writing pass will make. */
void sts_pb_writer_emit(sts_pb_writer *w);

/* Ends the writing pass: flushes the buffer and checks that every submessage was
 * closed. Returns the first failure (STS_PB_W_OK on success). */
sts_pb_werr sts_pb_writer_finish(sts_pb_writer *w);

void sts_pb_writer_release(sts_pb_writer *w);

/* Field writers. They always write the field: the caller decides whether a zero
 * value is omitted (proto3 omits it, except for a member of a oneof). */
void sts_pb_put_uint(sts_pb_writer *w, uint32_t num, uint64_t v);
void sts_pb_put_int(sts_pb_writer *w, uint32_t num, int64_t v); /* int64: two's complement varint */
void sts_pb_put_double(sts_pb_writer *w, uint32_t num, double v);
void sts_pb_put_bytes(sts_pb_writer *w, uint32_t num, const void *p, size_t n);
/* A NUL-terminated string; bytes that are not UTF-8 are written as U+FFFD (a protobuf
 * string must be UTF-8), each as the JSON writers write it. */
void sts_pb_put_str(sts_pb_writer *w, uint32_t num, const char *s);

/* Opens a submessage as field `num`; everything up to the matching sts_pb_end() is
 * its content. */
void sts_pb_begin(sts_pb_writer *w, uint32_t num);
void sts_pb_end(sts_pb_writer *w);

/* Bytes a varint of `v` takes (1..10). */
size_t sts_pb_varint_size(uint64_t v);

/* Encodes `v` into out (at least 10 bytes); returns the count. */
size_t sts_pb_encode_varint(uint8_t *out, uint64_t v);

#endif
