/* base: the protobuf wire format read from a stream (sts_instream) rather than a buffer,
 * so a decoder holds in memory only what it keeps, never the whole input.
 *
 * The decoder walks the outer messages field by field: sts_pbs_next() reads one field's
 * tag and, for a scalar, its value; for a length-delimited field it reads only the
 * length, and the caller chooses what to do with the payload: read its fields in turn
 * (a nested message: pass its end, f.data_offset + f.len, to sts_pbs_next), skip it,
 * load it into the window (small messages, then decoded with base/pb's sts_pb_reader),
 * or copy it out. Lengths are checked against the enclosing message's end as in
 * base/pb, and a failure is described with the same sts_pb_error, offsets counted
 * from the start of the (uncompressed) input.
 *
 * The window is a buffer over the stream that grows only to the largest payload
 * loaded, so memory follows the input's messages, not its size.
 *
 * A second stream can read a range of an uncompressed file or memory input again
 * (sts_pbs_init_reread, sts_pbs_reread_at) without moving the first: a decoder that
 * meets the fields it needs after those they explain (XPlane's metadata after its
 * lines) skips the bytes once and reads them again from the file, where it would
 * otherwise have to hold them. */
#ifndef STS_BASE_PBSTREAM_H
#define STS_BASE_PBSTREAM_H

#include <stddef.h>
#include <stdint.h>

#include "base/instream.h"
#include "base/pb.h"

/* No known end: the message runs to the end of the input. */
#define STS_PBS_NO_END UINT64_MAX

/* Results below zero. */
enum {
    STS_PBS_FAULT = -1, /* malformed wire format: the sts_pb_error says what and where */
    STS_PBS_CUT = -2,   /* the input ended first: the sts_pb_error's msg_end is where it ended */
    STS_PBS_IO = -3     /* the stream failed (read error, corrupt gzip, no memory): err is filled */
};

typedef struct sts_pbs {
    sts_instream *in;
    sts_error *err;
    uint8_t *buf; /* the window: buf[pos, len) are read but not consumed */
    size_t cap, pos, len;
    uint64_t base; /* input offset of buf[0] */
    uint64_t size; /* the input's size when known in advance, else STS_PBS_NO_END */
    int eof;
    /* A stream that reads again (sts_pbs_init_reread): from the file by pread, or from
     * the memory source's bytes, at offset `at` up to `stop`; fd -1 and mem NULL for
     * an ordinary stream, which reads `in` in turn. */
    int fd;
    const uint8_t *mem;
    size_t mem_len;
    uint64_t at, stop;
} sts_pbs;

/* Prepares to read `in` from where it stands. `size` is the input's uncompressed size
 * when known (lengths past it are refused at once), else STS_PBS_NO_END. Returns 0, or
 * -1 without memory (err filled). Release with sts_pbs_release(). */
int sts_pbs_init(sts_pbs *s, sts_instream *in, uint64_t size, sts_error *err);
void sts_pbs_release(sts_pbs *s);
/* Prepares a stream that reads ranges of `in` again, by offset, leaving `in` where it
 * stands: possible for an uncompressed regular file opened by path, and for an
 * uncompressed memory source. `size` as for sts_pbs_init. Returns 0 (position it with
 * sts_pbs_reread_at before reading), 1 when `in` cannot be read again (gzip, a pipe;
 * nothing to release), or -1 without memory (err filled). */
int sts_pbs_init_reread(sts_pbs *s, sts_instream *in, uint64_t size, sts_error *err);
/* Makes a stream from sts_pbs_init_reread read the input's bytes [off, stop): past
 * `stop` it reads as the input's end. */
void sts_pbs_reread_at(sts_pbs *s, uint64_t off, uint64_t stop);

/* Input offset of the next unread byte. */
static inline uint64_t sts_pbs_offset(const sts_pbs *s)
{
    return s->base + s->pos;
}

/* Reads the next field of the message ending at input offset `end` (STS_PBS_NO_END:
 * the top level, which ends with the input). Returns 1 with *f filled (for a LEN
 * field f->data is NULL and the payload is still unread), 0 at the end of the message,
 * or STS_PBS_FAULT / STS_PBS_CUT (*e filled) / STS_PBS_IO. */
int sts_pbs_next(sts_pbs *s, uint64_t end, sts_pb_field *f, sts_pb_error *e);

/* Consumes the next `n` bytes (a payload the caller does not need): a seek, not a read,
 * in an uncompressed input of known size. 0, STS_PBS_CUT or STS_PBS_IO. */
int sts_pbs_skip(sts_pbs *s, uint64_t n, sts_pb_error *e);

/* Consumes the next `n` bytes and points *p at them in the window, valid until the
 * next call. The window grows to `n`: callers bound it. 0, STS_PBS_CUT or STS_PBS_IO. */
int sts_pbs_load(sts_pbs *s, size_t n, const uint8_t **p, sts_pb_error *e);

/* Consumes the next `n` bytes into dst. 0, STS_PBS_CUT or STS_PBS_IO. */
int sts_pbs_copy(sts_pbs *s, size_t n, void *dst, sts_pb_error *e);

#endif
