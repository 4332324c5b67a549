/* The XSpace (.xplane.pb) reader. The mapping to the timeline is described in
 * read/xplane.h; the schema is proto/xplane.proto.
 *
 * It reads from a stream and never holds the input whole. XSpace, XPlane and XLine are
 * walked field by field from the stream (base/pbstream); what is small enough is
 * decoded in memory (base/pb): an XEvent, an XStat. A plane lists its lines before the
 * metadata that names their events (fields come in number order), so a plane is read in
 * two steps:
 *   1. collect: the plane's name, its metadata (decoded at once; the XEventMetadata
 *      stats kept as bytes), each line's header and where its events lie;
 *   2. resolve, at the plane's end: the process, one lane per line, and each event
 *      decoded into a slice with its name and args.
 * A plain file or memory input is read again for step 2 (a second stream, by pread),
 * so step 1 passes over the events keeping nothing of them (a field longer than the
 * stream's window, such as an HLO blob, is passed by a seek), and memory is the
 * timeline being built: on a 1 GB file whose host plane is most of it, holding the
 * plane's events took as much again as the file. Input that cannot be read twice
 * (gzip, a pipe) keeps one plane's events as bytes until its end. Garbage is refused
 * at the first field that breaks the schema, without reading further. */
#include "read/xplane.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/completion.h"
#include "base/instream.h"
#include "base/pb.h"
#include "base/pbstream.h"
#include "read/readers.h"

/* The most bytes one XEvent, or one name, may take: profilers write events of tens of
 * bytes and names of hundreds. A bigger one is refused rather than held in memory. */
#define MAX_LOAD ((size_t)16 << 20)

/* Messages, for error text: each lists its fields by number. */
typedef enum msg_kind {
    M_SPACE,
    M_PLANE,
    M_LINE,
    M_EVENT,
    M_STAT,
    M_EVENT_META,
    M_STAT_META,
    M_EVENT_META_ENTRY,
    M_STAT_META_ENTRY
} msg_kind;

static const char *msg_name(msg_kind m)
{
    static const char *const names[] = {
        "XSpace",
        "XPlane",
        "XLine",
        "XEvent",
        "XStat",
        "XEventMetadata",
        "XStatMetadata",
        "XPlane.event_metadata entry",
        "XPlane.stat_metadata entry",
    };
    return names[m];
}

static const char *field_name(msg_kind m, uint32_t num)
{
    static const char *const space[] = { NULL, "planes", "errors", "warnings", "hostnames" };
    static const char *const plane[] = { NULL, "id", "name", "lines", "event_metadata", "stat_metadata", "stats" };
    static const char *const line[] = { NULL, "id", "name", "timestamp_ns", "events",     NULL,
                                        NULL, NULL, NULL,   "duration_ps",  "display_id", "display_name" };
    static const char *const event[] = { NULL, "metadata_id", "offset_ps", "duration_ps", "stats", "num_occurrences" };
    static const char *const stat[] = { NULL,          "metadata_id", "double_value", "uint64_value",
                                        "int64_value", "str_value",   "bytes_value",  "ref_value" };
    static const char *const emeta[] = { NULL, "id", "name", "metadata", "display_name", "stats", "child_id" };
    static const char *const smeta[] = { NULL, "id", "name", "description" };
    static const char *const entry[] = { NULL, "key", "value" };
#define PICK(tab) (num < sizeof tab / sizeof tab[0] ? tab[num] : NULL)
    const char *n = NULL;
    switch (m) {
    case M_SPACE:
        n = PICK(space);
        break;
    case M_PLANE:
        n = PICK(plane);
        break;
    case M_LINE:
        n = PICK(line);
        break;
    case M_EVENT:
        n = PICK(event);
        break;
    case M_STAT:
        n = PICK(stat);
        break;
    case M_EVENT_META:
        n = PICK(emeta);
        break;
    case M_STAT_META:
        n = PICK(smeta);
        break;
    case M_EVENT_META_ENTRY:
    case M_STAT_META_ENTRY:
        n = PICK(entry);
        break;
    }
#undef PICK
    return n ? n : "unknown field";
}

/* An int64-keyed index (ids may be 0 or negative; sts_u64map reserves key 0). */
typedef struct idmap {
    sts_u64map m;
    uint32_t zero;
} idmap;

static uint32_t idmap_get(const idmap *im, int64_t id)
{
    return id == 0 ? im->zero : sts_u64map_get(&im->m, (uint64_t)id);
}

static int idmap_put(idmap *im, int64_t id, uint32_t v)
{
    if (id == 0) {
        im->zero = v;
        return 0;
    }
    return sts_u64map_put(&im->m, (uint64_t)id, v);
}

static void idmap_reset(idmap *im)
{
    sts_u64map_release(&im->m);
    im->zero = UINT32_MAX;
}

/* Bytes kept in reader.arena until the plane's end: an offset and a length. */
typedef struct span {
    size_t off;
    uint32_t len;
} span;

/* An XEventMetadata.stats entry kept as bytes, to decode once the plane's stat metadata
 * is known. */
typedef struct stat_blob {
    uint64_t tag_off, data_off; /* input offsets of its tag and payload */
    span bytes;
} stat_blob;

typedef struct event_meta {
    uint32_t name;                 /* shown name: display_name, else name */
    uint32_t long_name;            /* name when display_name differs from it, else STS_NONE */
    uint32_t blobs_first, blobs_n; /* its stats, into reader.blobs */
    uint32_t args_first, args_n;   /* into reader.meta_args */
} event_meta;

typedef struct stat_meta {
    uint32_t name;
    int keep;      /* kept under the current args mode */
    uint32_t mark; /* last event that used this key (duplicate detection) */
} stat_meta;

/* A stat decoded, before it joins an event's args. */
typedef struct pending_arg {
    sts_arg a;
    uint32_t meta; /* stat metadata index */
} pending_arg;

/* A line read, its events not yet decoded. */
typedef struct pending_line {
    int64_t id, display_id, base;
    span name, disp;
    size_t first_event, n_events; /* into reader.events (n_events alone when read again) */
    uint64_t start, end;          /* its payload's input offsets, to read its events again */
} pending_line;

/* An XEvent's bytes, in reader.ev_bytes (events follow each other there, in order). */
typedef struct pending_event {
    uint64_t data_off; /* input offset of its payload */
    uint32_t len;
    uint8_t hdr; /* bytes of its tag and length before the payload */
} pending_event;

typedef struct reader {
    sts_timeline *tl;
    const char *name;
    sts_error *err;
    sts_args_mode mode;
    uint64_t size; /* the input's size: known in advance or once it ended, else STS_PBS_NO_END */
    const sts_open_options *opt;
    sts_instream *in;
    sts_pbs s;
    /* The same input read again at each line of a plane, once its metadata is known:
     * a plain file or memory input's events are never held (`reread` set); others'
     * are kept in ev_bytes until the plane's end. */
    sts_pbs again;
    int reread;
    /* The XSpace field being read, to word a cut file as its length running past the end. */
    sts_pb_field top;
    int in_top;
    /* the current plane, collected */
    STS_VEC(event_meta) emeta;
    STS_VEC(stat_meta) smeta;
    idmap emap, smap;
    STS_VEC(stat_blob) blobs;
    STS_VEC(pending_line) lines;
    STS_VEC(pending_event) events;
    STS_VEC(uint8_t) ev_bytes; /* the plane's XEvent payloads, back to back */
    STS_VEC(uint8_t) arena;    /* names and stat bytes kept until the plane's end */
    STS_VEC(uint8_t) tmp;      /* strings read for one metadata entry */
    /* the current plane, resolved */
    STS_VEC(pending_arg) meta_args; /* event metadata stats, decoded once per plane */
    STS_VEC(pending_arg) scratch;
    sts_u64map pids; /* the pids given to planes so far (see pid_key) */
    uint32_t mark;
    uint64_t seq; /* events read: the raw slices' sequence numbers */
    int device_plane;
    uint32_t process;
    int64_t process_pid;
    uint64_t plane_warned_event, plane_warned_stat;
    /* Args copied from event metadata onto events. Bounded by the input's size read so
     * far (plus 1 Mi), so a small file cannot make billions of args (one metadata with
     * many stats, referenced by many events). */
    uint64_t meta_arg_used, meta_arg_limit;
    int meta_budget_warned;
} reader;

static sts_status nomem(reader *x)
{
    return sts_error_set(x->err, STS_ERR_NOMEM, -1, "%s: out of memory", x->name);
}

/* Words a wire-format fault inside message `m`. */
static sts_status pb_fail(reader *x, msg_kind m, const sts_pb_error *e)
{
    const char *mn = msg_name(m);
    unsigned long long off = (unsigned long long)e->offset;
    int at_file_end = e->msg_end == x->size;
    char where[160];
    if (at_file_end)
        snprintf(where, sizeof where, "the end of the file (size %llu)", (unsigned long long)x->size);
    else
        snprintf(where, sizeof where, "the end of its enclosing %s message (which ends at byte %llu)", mn,
                 (unsigned long long)e->msg_end);
    const char *hint = e->offset == 0 ? " (is this an XSpace .xplane.pb file?)" : "";
    sts_status code = STS_ERR_PARSE;
    switch (e->fault) {
    case STS_PB_LENGTH_PAST_END:
        if (at_file_end) code = STS_ERR_TRUNCATED;
        return sts_error_set(x->err, code, (int64_t)e->offset,
                             "%s: byte %llu: length %llu of field %u (%s.%s) runs past %s: %llu bytes remain%s",
                             x->name, off, (unsigned long long)e->len, e->num, mn, field_name(m, e->num), where,
                             (unsigned long long)e->avail, hint);
    case STS_PB_TRUNCATED_VARINT:
    case STS_PB_FIXED_PAST_END:
        if (at_file_end) code = STS_ERR_TRUNCATED;
        if (e->num == 0)
            return sts_error_set(x->err, code, (int64_t)e->offset,
                                 "%s: byte %llu: a field tag in %s is cut off by %s%s", x->name, off, mn, where, hint);
        return sts_error_set(x->err, code, (int64_t)e->offset,
                             "%s: byte %llu: the %s value of field %u (%s.%s) is cut off by %s%s", x->name, off,
                             sts_pb_wire_name(e->wire), e->num, mn, field_name(m, e->num), where, hint);
    case STS_PB_OVERLONG_VARINT:
        return sts_error_set(x->err, code, (int64_t)e->offset,
                             "%s: byte %llu: a varint in %s is longer than 10 bytes or overflows 64 bits%s", x->name,
                             off, mn, hint);
    case STS_PB_BAD_FIELD_NUMBER:
        return sts_error_set(x->err, code, (int64_t)e->offset,
                             "%s: byte %llu: field number %u in %s, expected 1 to 536870911%s", x->name, off, e->num,
                             mn, hint);
    case STS_PB_BAD_WIRE_TYPE:
        return sts_error_set(x->err, code, (int64_t)e->offset,
                             "%s: byte %llu: field %u in %s has wire type %u (%s), which protobuf 3 does not use%s",
                             x->name, off, e->num, mn, e->wire, sts_pb_wire_name(e->wire), hint);
    case STS_PB_OK:
        break;
    }
    return sts_error_set(x->err, STS_ERR_INTERNAL, (int64_t)e->offset, "%s: byte %llu: %s", x->name, off,
                         sts_pb_fault_text(e->fault));
}

/* The input ended inside a message: inside an XSpace field, that field's length runs
 * past the end of the file, which is how a file cut short reads when its size is known
 * in advance. */
static sts_status cut_short(reader *x, const sts_pb_error *e)
{
    x->size = e->msg_end;
    if (!x->in_top) return pb_fail(x, M_SPACE, e);
    sts_pb_error t;
    memset(&t, 0, sizeof t);
    t.fault = STS_PB_LENGTH_PAST_END;
    t.offset = x->top.offset;
    t.num = x->top.num;
    t.wire = x->top.wire;
    t.len = x->top.len;
    t.avail = x->size - x->top.data_offset;
    t.msg_end = x->size;
    return pb_fail(x, M_SPACE, &t);
}

/* A stream result below zero, as a status (err filled). */
static sts_status stream_fail(reader *x, msg_kind m, int rc, const sts_pb_error *e)
{
    if (rc == STS_PBS_FAULT) return pb_fail(x, m, e);
    if (rc == STS_PBS_CUT) return cut_short(x, e);
    return x->err && x->err->code != STS_OK ? x->err->code : STS_ERR_IO;
}

/* In memory: 1: a field; 0: end of message; -1: failure (err filled). */
static int mnext(reader *x, msg_kind m, sts_pb_reader *r, sts_pb_field *f)
{
    sts_pb_error e;
    int rc = sts_pb_next(r, f, &e);
    if (rc < 0) pb_fail(x, m, &e);
    return rc;
}

/* From the stream, in the message ending at `end`: the same results. */
static int snext(reader *x, msg_kind m, uint64_t end, sts_pb_field *f)
{
    sts_pb_error e;
    int rc = sts_pbs_next(&x->s, end, f, &e);
    if (rc < 0) {
        stream_fail(x, m, rc, &e);
        return -1;
    }
    return rc;
}

static sts_status failed(reader *x)
{
    return x->err && x->err->code != STS_OK ? x->err->code : STS_ERR_PARSE;
}

/* Consumes a field's payload unread (a scalar's value is consumed already). */
static sts_status skip(reader *x, msg_kind m, const sts_pb_field *f)
{
    if (f->wire != STS_PB_LEN || f->len == 0) return STS_OK;
    sts_pb_error e;
    int rc = sts_pbs_skip(&x->s, f->len, &e);
    return rc ? stream_fail(x, m, rc, &e) : STS_OK;
}

/* A LEN field's payload is held whole (an XEvent or a name): at most MAX_LOAD bytes. */
static sts_status check_load(reader *x, msg_kind m, const sts_pb_field *f)
{
    if (f->len <= MAX_LOAD) return STS_OK;
    return sts_error_set(x->err, STS_ERR_LIMIT, (int64_t)f->offset,
                         "%s: byte %llu: field %u (%s.%s) is %zu bytes long; this reader takes at most %zu MiB "
                         "for one XEvent or name",
                         x->name, (unsigned long long)f->offset, f->num, msg_name(m), field_name(m, f->num), f->len,
                         MAX_LOAD >> 20);
}

/* Appends a LEN field's payload to the byte vector `v`; at most MAX_LOAD bytes. */
#define APPEND(x, m, vec, f) append_bytes(x, m, (void **)&(vec).v, &(vec).n, &(vec).cap, f)
static sts_status append_bytes(reader *x, msg_kind m, void **v, size_t *n, size_t *cap, const sts_pb_field *f)
{
    sts_status st = check_load(x, m, f);
    if (st != STS_OK) return st;
    if (sts_grow(v, cap, *n + f->len + 1, 1) != 0) return nomem(x);
    sts_pb_error e;
    int rc = sts_pbs_copy(&x->s, f->len, (uint8_t *)*v + *n, &e);
    if (rc) return stream_fail(x, m, rc, &e);
    *n += f->len;
    return STS_OK;
}

/* Reads a LEN field's payload into the arena. */
static sts_status keep_span(reader *x, msg_kind m, const sts_pb_field *f, span *out)
{
    size_t off = x->arena.n;
    sts_status st = APPEND(x, m, x->arena, f);
    if (st != STS_OK) return st;
    out->off = off;
    out->len = (uint32_t)f->len;
    return STS_OK;
}

/* Known fields must carry the wire type the schema gives them. */
static int want(reader *x, msg_kind m, const sts_pb_field *f, unsigned wire)
{
    if (f->wire == wire) return 0;
    sts_error_set(x->err, STS_ERR_PARSE, (int64_t)f->offset,
                  "%s: byte %llu: field %u (%s.%s) has wire type %u (%s), expected %s", x->name,
                  (unsigned long long)f->offset, f->num, msg_name(m), field_name(m, f->num), f->wire,
                  sts_pb_wire_name(f->wire), sts_pb_wire_name(wire));
    return -1;
}

static uint32_t intern(reader *x, const void *p, size_t n)
{
    return sts_tl_intern(x->tl, p ? (const char *)p : "", p ? n : 0); /* an absent string is empty */
}

static uint32_t intern_span(reader *x, span sp)
{
    return sts_tl_intern(x->tl, sp.len ? (const char *)x->arena.v + sp.off : "", sp.len);
}

/* ---- metadata, decoded as it streams by ---- */

/* Where the strings of one XEventMetadata stand in x->tmp. */
typedef struct meta_names {
    size_t name_off, name_n, disp_off, disp_n;
} meta_names;

static sts_status read_event_meta_value(reader *x, const sts_pb_field *vf, meta_names *nm, uint32_t *blobs_n)
{
    uint64_t end = vf->data_offset + vf->len;
    sts_pb_field f;
    int rc;
    sts_status st = STS_OK;
    while (st == STS_OK && (rc = snext(x, M_EVENT_META, end, &f)) > 0) {
        if (f.num != 2 && f.num != 4 && f.num != 5) {
            st = skip(x, M_EVENT_META, &f); /* the metadata blob (an HLO proto) is never read */
            continue;
        }
        if (want(x, M_EVENT_META, &f, STS_PB_LEN)) return STS_ERR_PARSE;
        if (f.num == 5 && x->mode == STS_ARGS_NONE) {
            st = skip(x, M_EVENT_META, &f); /* stats are never decoded: not kept */
        } else if (f.num == 5) {
            stat_blob *b = STS_VEC_PUSH(x->blobs);
            if (!b) return nomem(x);
            b->tag_off = f.offset;
            b->data_off = f.data_offset;
            st = keep_span(x, M_EVENT_META, &f, &b->bytes);
            (*blobs_n)++;
        } else {
            size_t off = x->tmp.n;
            st = APPEND(x, M_EVENT_META, x->tmp, &f);
            if (f.num == 2)
                nm->name_off = off, nm->name_n = f.len;
            else
                nm->disp_off = off, nm->disp_n = f.len;
        }
    }
    if (st != STS_OK) return st;
    return rc < 0 ? failed(x) : STS_OK;
}

static sts_status read_event_meta(reader *x, const sts_pb_field *ef)
{
    uint64_t end = ef->data_offset + ef->len;
    sts_pb_field f;
    int64_t key = 0;
    meta_names nm = { 0, 0, 0, 0 };
    uint32_t blobs_first = (uint32_t)x->blobs.n, blobs_n = 0;
    int rc;
    sts_status st = STS_OK;
    x->tmp.n = 0;
    while (st == STS_OK && (rc = snext(x, M_EVENT_META_ENTRY, end, &f)) > 0) {
        if (f.num == 1) {
            if (want(x, M_EVENT_META_ENTRY, &f, STS_PB_VARINT)) return STS_ERR_PARSE;
            key = (int64_t)f.u;
        } else if (f.num == 2) {
            if (want(x, M_EVENT_META_ENTRY, &f, STS_PB_LEN)) return STS_ERR_PARSE;
            /* A repeated value: the last one counts. */
            memset(&nm, 0, sizeof nm);
            x->tmp.n = 0;
            x->blobs.n = blobs_first;
            blobs_n = 0;
            st = read_event_meta_value(x, &f, &nm, &blobs_n);
        } else {
            st = skip(x, M_EVENT_META_ENTRY, &f);
        }
    }
    if (st != STS_OK) return st;
    if (rc < 0) return failed(x);
    event_meta *em = STS_VEC_PUSH(x->emeta);
    if (!em) return nomem(x);
    em->long_name = STS_NONE;
    em->blobs_first = blobs_first;
    em->blobs_n = blobs_n;
    const uint8_t *name = nm.name_n ? x->tmp.v + nm.name_off : NULL;
    const uint8_t *disp = nm.disp_n ? x->tmp.v + nm.disp_off : NULL;
    if (nm.disp_n) {
        em->name = intern(x, disp, nm.disp_n);
        if (nm.disp_n != nm.name_n || memcmp(disp, name, nm.name_n) != 0) em->long_name = intern(x, name, nm.name_n);
    } else {
        em->name = intern(x, name, nm.name_n);
    }
    if (em->name == STS_NONE) return nomem(x);
    if (idmap_put(&x->emap, key, (uint32_t)(x->emeta.n - 1)) != 0) return nomem(x);
    return STS_OK;
}

/* XStatMetadata: only its name is read. */
static sts_status read_stat_meta_value(reader *x, const sts_pb_field *vf, int *have_name)
{
    uint64_t end = vf->data_offset + vf->len;
    sts_pb_field g;
    int rc;
    sts_status st = STS_OK;
    while (st == STS_OK && (rc = snext(x, M_STAT_META, end, &g)) > 0) {
        if (g.num != 2) {
            st = skip(x, M_STAT_META, &g);
            continue;
        }
        if (want(x, M_STAT_META, &g, STS_PB_LEN)) return STS_ERR_PARSE;
        x->tmp.n = 0;
        *have_name = 1;
        st = APPEND(x, M_STAT_META, x->tmp, &g);
    }
    if (st != STS_OK) return st;
    return rc < 0 ? failed(x) : STS_OK;
}

static sts_status read_stat_meta(reader *x, const sts_pb_field *ef)
{
    uint64_t end = ef->data_offset + ef->len;
    sts_pb_field f;
    int64_t key = 0;
    int have_name = 0;
    int rc;
    sts_status st = STS_OK;
    x->tmp.n = 0;
    while (st == STS_OK && (rc = snext(x, M_STAT_META_ENTRY, end, &f)) > 0) {
        if (f.num == 1) {
            if (want(x, M_STAT_META_ENTRY, &f, STS_PB_VARINT)) return STS_ERR_PARSE;
            key = (int64_t)f.u;
        } else if (f.num == 2) {
            if (want(x, M_STAT_META_ENTRY, &f, STS_PB_LEN)) return STS_ERR_PARSE;
            st = read_stat_meta_value(x, &f, &have_name);
        } else {
            st = skip(x, M_STAT_META_ENTRY, &f);
        }
    }
    if (st != STS_OK) return st;
    if (rc < 0) return failed(x);
    stat_meta *sm = STS_VEC_PUSH(x->smeta);
    if (!sm) return nomem(x);
    const char *name = have_name && x->tmp.n ? (const char *)x->tmp.v : NULL;
    size_t name_n = have_name ? x->tmp.n : 0;
    sm->name = intern(x, name, name_n);
    if (sm->name == STS_NONE) return nomem(x);
    sm->keep = sts_args_mode_keeps(x->mode, name, name_n);
    if (idmap_put(&x->smap, key, (uint32_t)(x->smeta.n - 1)) != 0) return nomem(x);
    return STS_OK;
}

/* ---- stats ---- */

/* Decodes one XStat (the payload under `sr`; its tag at `tag_off`) into x->scratch when
 * its key is kept. */
static sts_status read_stat_msg(reader *x, sts_pb_reader *sr, uint64_t tag_off)
{
    sts_pb_field f, val = { 0 };
    int64_t mid = 0;
    int rc;
    while ((rc = mnext(x, M_STAT, sr, &f)) > 0) {
        static const unsigned wire_of[8] = { 0,          STS_PB_VARINT, STS_PB_I64,   STS_PB_VARINT, STS_PB_VARINT,
                                             STS_PB_LEN, STS_PB_LEN,    STS_PB_VARINT };
        if (f.num > 7) continue;
        if (want(x, M_STAT, &f, wire_of[f.num])) return STS_ERR_PARSE;
        if (f.num == 1)
            mid = (int64_t)f.u;
        else
            val = f; /* a oneof: the last value wins */
    }
    if (rc < 0) return failed(x);
    if (x->mode == STS_ARGS_NONE || val.num == 0 || val.num == 6) return STS_OK;
    uint32_t mi = idmap_get(&x->smap, mid);
    if (mi == UINT32_MAX) {
        if (x->plane_warned_stat++ == 0)
            sts_tl_warn(x->tl,
                        "%s: byte %llu: stat metadata id %" PRId64 " is not in its plane's stat_metadata; "
                        "such stats are left out",
                        x->name, (unsigned long long)tag_off, mid);
        return STS_OK;
    }
    stat_meta *sm = &x->smeta.v[mi];
    if (!sm->keep) return STS_OK;
    pending_arg *pa = STS_VEC_PUSH(x->scratch);
    if (!pa) return nomem(x);
    pa->meta = mi;
    pa->a.key = sm->name;
    switch (val.num) {
    case 2:
        pa->a.type = STS_ARG_DOUBLE;
        pa->a.v.d = sts_pb_double(val.u);
        break;
    case 3:
        if (val.u > (uint64_t)INT64_MAX) {
            char buf[24];
            int n = snprintf(buf, sizeof buf, "%" PRIu64, val.u);
            pa->a.type = STS_ARG_STRING;
            pa->a.v.str = intern(x, buf, (size_t)n);
        } else {
            pa->a.type = STS_ARG_INT;
            pa->a.v.i = (int64_t)val.u;
        }
        break;
    case 4:
        pa->a.type = STS_ARG_INT;
        pa->a.v.i = (int64_t)val.u;
        break;
    case 5:
        pa->a.type = STS_ARG_STRING;
        pa->a.v.str = intern(x, val.data, val.len);
        break;
    case 7: {
        uint32_t ri = idmap_get(&x->smap, (int64_t)val.u);
        if (ri == UINT32_MAX) {
            x->scratch.n--;
            if (x->plane_warned_stat++ == 0)
                sts_tl_warn(x->tl,
                            "%s: byte %llu: ref_value %" PRIu64 " names no stat metadata; such stats are "
                            "left out",
                            x->name, (unsigned long long)val.offset, val.u);
            return STS_OK;
        }
        pa->a.type = STS_ARG_STRING;
        pa->a.v.str = x->smeta.v[ri].name;
        break;
    }
    default:
        x->scratch.n--;
        return STS_OK;
    }
    if ((pa->a.type == STS_ARG_STRING && pa->a.v.str == STS_NONE)) return nomem(x);
    return STS_OK;
}

/* An XStat field of the message under `pr`. */
static sts_status read_stat(reader *x, sts_pb_reader *pr, const sts_pb_field *sf)
{
    sts_pb_reader sr;
    sts_pb_sub(&sr, pr, sf);
    return read_stat_msg(x, &sr, sf->offset);
}

/* After the plane's metadata is known: decode each event metadata's stats once. */
static sts_status resolve_meta_stats(reader *x)
{
    if (x->mode == STS_ARGS_NONE) return STS_OK;
    for (size_t i = 0; i < x->emeta.n; i++) {
        event_meta *em = &x->emeta.v[i];
        x->scratch.n = 0;
        for (uint32_t k = 0; k < em->blobs_n; k++) {
            const stat_blob *b = &x->blobs.v[em->blobs_first + k];
            sts_pb_reader r;
            sts_pb_reader_init_at(&r, x->arena.v + b->bytes.off, b->bytes.len, b->data_off);
            sts_status st = read_stat_msg(x, &r, b->tag_off);
            if (st != STS_OK) return st;
        }
        em->args_first = (uint32_t)x->meta_args.n;
        em->args_n = 0;
        for (size_t k = 0; k < x->scratch.n; k++) {
            pending_arg *a = STS_VEC_PUSH(x->meta_args);
            if (!a) return nomem(x);
            *a = x->scratch.v[k];
            em->args_n++;
        }
    }
    x->scratch.n = 0;
    return STS_OK;
}

/* ---- events ---- */

static void divmod1000(int64_t v, int64_t *q, int64_t *r)
{
    *q = v / 1000;
    *r = v % 1000;
    if (*r < 0) {
        *r += 1000;
        *q -= 1;
    }
}

/* ns start and end of [base_ns*1000 + off_ps, + dur_ps), each rounded to the nearest
 * ns (halves up). Returns -1 when the result does not fit in int64. */
static int event_times(int64_t base_ns, int64_t off_ps, int64_t dur_ps, int64_t *ts, int64_t *end)
{
    int64_t q1, r1, q2, r2;
    divmod1000(off_ps, &q1, &r1);
    divmod1000(dur_ps, &q2, &r2);
    int64_t b, e, eq;
    if (__builtin_add_overflow(base_ns, q1 + (r1 >= 500), &b)) return -1;
    if (__builtin_add_overflow(q1, q2 + (r1 + r2) / 1000, &eq)) return -1;
    if (__builtin_add_overflow(base_ns, eq + ((r1 + r2) % 1000 >= 500), &e)) return -1;
    *ts = b;
    *end = e;
    return 0;
}

static sts_status add_event_args(reader *x, const event_meta *em, uint32_t *first)
{
    *first = STS_NONE;
    if (x->mode == STS_ARGS_NONE) return STS_OK;
    uint32_t mark = ++x->mark;
    if (mark == 0) { /* wrapped: forget old marks */
        for (size_t i = 0; i < x->smeta.n; i++)
            x->smeta.v[i].mark = 0;
        mark = x->mark = 1;
    }
    /* Build the final list in scratch order: the event's own stats (first of a key
     * wins), then its metadata's stats for keys not already present. */
    size_t kept = 0;
    for (size_t i = 0; i < x->scratch.n; i++) {
        stat_meta *sm = &x->smeta.v[x->scratch.v[i].meta];
        if (sm->mark == mark) continue;
        sm->mark = mark;
        x->scratch.v[kept++] = x->scratch.v[i];
    }
    x->scratch.n = kept;
    if (em) {
        if (em->args_n > x->meta_arg_limit - x->meta_arg_used) {
            if (!x->meta_budget_warned++)
                sts_tl_warn(x->tl,
                            "%s: event metadata stats copied onto events exceed the input's size in "
                            "number; further events keep only their own stats",
                            x->name);
        } else {
            x->meta_arg_used += em->args_n;
        }
        for (uint32_t i = 0; i < em->args_n && !x->meta_budget_warned; i++) {
            const pending_arg *a = &x->meta_args.v[em->args_first + i];
            stat_meta *sm = &x->smeta.v[a->meta];
            if (sm->mark == mark) continue;
            sm->mark = mark;
            pending_arg *pa = STS_VEC_PUSH(x->scratch);
            if (!pa) return nomem(x);
            *pa = *a;
        }
        if (x->mode == STS_ARGS_ALL && em->long_name != STS_NONE) {
            uint32_t k = intern(x, "long_name", 9);
            pending_arg *pa = STS_VEC_PUSH(x->scratch);
            if (!pa || k == STS_NONE) return nomem(x);
            pa->a.key = k;
            pa->a.type = STS_ARG_STRING;
            pa->a.v.str = em->long_name;
        }
    }
    if (x->scratch.n == 0) return STS_OK;
    sts_arg tmp[64];
    size_t n = x->scratch.n;
    sts_arg *buf = n <= 64 ? tmp : malloc(n * sizeof *buf);
    if (!buf) return nomem(x);
    for (size_t i = 0; i < n; i++)
        buf[i] = x->scratch.v[i].a;
    *first = sts_tl_add_args(x->tl, buf, n);
    if (buf != tmp) free(buf);
    if (*first == STS_NONE) return nomem(x);
    return STS_OK;
}

/* Decodes one XEvent (the payload under `r`; its tag at `tag_off`) into a slice. */
static sts_status read_event(reader *x, sts_pb_reader *r, uint64_t tag_off, uint32_t lane, int64_t base_ns)
{
    sts_pb_field f;
    int64_t mid = 0, off = 0, dur = 0;
    /* The oneof: offset_ps, or num_occurrences for an aggregate. Unset means
     * offset 0 (proto3's default), as XProf reads it. */
    int timed = 1;
    int rc;
    uint64_t seq = x->seq++;
    x->tl->info.events++;
    x->scratch.n = 0;
    while ((rc = mnext(x, M_EVENT, r, &f)) > 0) {
        switch (f.num) {
        case 1:
        case 2:
        case 3:
        case 5:
            if (want(x, M_EVENT, &f, STS_PB_VARINT)) return STS_ERR_PARSE;
            if (f.num == 1)
                mid = (int64_t)f.u;
            else if (f.num == 2)
                off = (int64_t)f.u, timed = 1;
            else if (f.num == 3)
                dur = (int64_t)f.u;
            else
                timed = 0;
            break;
        case 4: {
            if (want(x, M_EVENT, &f, STS_PB_LEN)) return STS_ERR_PARSE;
            sts_status st = read_stat(x, r, &f);
            if (st != STS_OK) return st;
            break;
        }
        default:
            break;
        }
    }
    if (rc < 0) return x->err ? x->err->code : STS_ERR_PARSE;
    if (!timed) {
        /* An aggregate (num_occurrences) has no place on a timeline. */
        x->tl->info.skipped++;
        return STS_OK;
    }
    if (dur < 0) {
        x->tl->info.rejected++;
        sts_tl_warn(x->tl, "%s: byte %llu: event %llu has a negative duration_ps (%" PRId64 "); left out", x->name,
                    (unsigned long long)tag_off, (unsigned long long)seq, dur);
        return STS_OK;
    }
    int64_t ts, end;
    if (event_times(base_ns, off, dur, &ts, &end) != 0) {
        x->tl->info.rejected++;
        sts_tl_warn(x->tl,
                    "%s: byte %llu: event %llu's time (line start %" PRId64 " ns + %" PRId64 " ps + %" PRId64
                    " ps) does not fit in 64-bit nanoseconds; left out",
                    x->name, (unsigned long long)tag_off, (unsigned long long)seq, base_ns, off, dur);
        return STS_OK;
    }
    uint32_t mi = idmap_get(&x->emap, mid);
    const event_meta *em = mi == UINT32_MAX ? NULL : &x->emeta.v[mi];
    uint32_t name;
    if (em) {
        name = em->name;
    } else {
        char buf[48];
        int n = snprintf(buf, sizeof buf, "event_metadata %" PRId64, mid);
        name = intern(x, buf, (size_t)n);
        if (name == STS_NONE) return nomem(x);
        if (x->plane_warned_event++ == 0)
            sts_tl_warn(x->tl,
                        "%s: byte %llu: event metadata id %" PRId64 " is not in its plane's event_metadata; "
                        "such events are named \"event_metadata ID\"",
                        x->name, (unsigned long long)tag_off, mid);
    }
    uint32_t args;
    sts_status st = add_event_args(x, em, &args);
    if (st != STS_OK) return st;
    sts_slice *s = STS_VEC_PUSH(x->tl->slices);
    if (!s) return nomem(x);
    s->ts = ts;
    s->dur = end - ts;
    s->name = name;
    s->lane = lane;
    s->parent = (uint32_t)seq;
    s->args = args;
    x->tl->info.by_phase['X']++;
    /* The same rule as for Chrome JSON, so that both readers nest the same events alike. */
    sts_tl_note_resolution(x->tl, ts % 1000 == 0 && (end - ts) % 1000 == 0);
    sts_timeline_info *info = &x->tl->info;
    if (x->tl->slices.n == 1 || ts < info->ts_min) info->ts_min = ts;
    if (x->tl->slices.n == 1 || end > info->ts_max) info->ts_max = end;
    return STS_OK;
}

/* ---- lines and planes ---- */

/* Collects a line: its own fields, and its events as bytes. */
static sts_status read_line(reader *x, const sts_pb_field *lf)
{
    uint64_t end = lf->data_offset + lf->len;
    pending_line l;
    memset(&l, 0, sizeof l);
    l.first_event = x->events.n;
    l.start = lf->data_offset;
    l.end = end;
    sts_pb_field f;
    int rc;
    sts_status st = STS_OK;
    while (st == STS_OK && (rc = snext(x, M_LINE, end, &f)) > 0) {
        switch (f.num) {
        case 1:
        case 3:
        case 9:
        case 10:
            if (want(x, M_LINE, &f, STS_PB_VARINT)) return STS_ERR_PARSE;
            if (f.num == 1)
                l.id = (int64_t)f.u;
            else if (f.num == 3)
                l.base = (int64_t)f.u;
            else if (f.num == 10)
                l.display_id = (int64_t)f.u;
            break;
        case 2:
        case 11:
            if (want(x, M_LINE, &f, STS_PB_LEN)) return STS_ERR_PARSE;
            st = keep_span(x, M_LINE, &f, f.num == 2 ? &l.name : &l.disp);
            break;
        case 4: {
            if (want(x, M_LINE, &f, STS_PB_LEN)) return STS_ERR_PARSE;
            if (x->reread) { /* read again at the plane's end */
                st = check_load(x, M_LINE, &f);
                if (st == STS_OK) st = skip(x, M_LINE, &f);
                l.n_events++;
                break;
            }
            st = APPEND(x, M_LINE, x->ev_bytes, &f);
            pending_event *ev = st == STS_OK ? STS_VEC_PUSH(x->events) : NULL;
            if (st == STS_OK && !ev) return nomem(x);
            if (ev) {
                ev->data_off = f.data_offset;
                ev->len = (uint32_t)f.len;
                ev->hdr = (uint8_t)(f.data_offset - f.offset);
            }
            break;
        }
        default:
            st = skip(x, M_LINE, &f);
            break;
        }
    }
    if (st != STS_OK) return st;
    if (rc < 0) return failed(x);
    if (!x->reread) l.n_events = x->events.n - l.first_event;
    pending_line *slot = STS_VEC_PUSH(x->lines);
    if (!slot) return nomem(x);
    *slot = l;
    return STS_OK;
}

/* A pid as a key of x->pids, which takes no zero: the sign bit flipped, so that 0
 * and small pids are keys too. */
static uint64_t pid_key(int64_t pid)
{
    return (uint64_t)pid ^ ((uint64_t)1 << 63);
}

/* Whether a plane before has this pid: looked up, not searched (200,000 planes took
 * 13 s when every plane searched the pids of all before it). */
static int pid_taken(const reader *x, int64_t pid)
{
    return sts_u64map_get(&x->pids, pid_key(pid)) != UINT32_MAX;
}

/* The pid XProf's trace viewer would give the plane (see read/xplane.h). */
static int64_t plane_pid(reader *x, const uint8_t *name, size_t n, size_t plane_index)
{
    int64_t pid = 500 + (int64_t)plane_index;
    static const char host[] = "/host:CPU", dev[] = "/device:";
    if (n == sizeof host - 1 && memcmp(name, host, n) == 0) {
        pid = 701;
    } else if (n > sizeof dev - 1 && memcmp(name, dev, sizeof dev - 1) == 0) {
        size_t i = n;
        while (i > 0 && name[i - 1] >= '0' && name[i - 1] <= '9')
            i--;
        if (i < n && n - i <= 6 && name[i - 1] == ':') {
            int64_t ord = 0;
            for (size_t k = i; k < n; k++)
                ord = ord * 10 + (name[k] - '0');
            pid = ord + 1;
        }
    }
    /* A pid already taken moves to 1000 + plane index, and on from there while that is
     * taken too (/device:GPU:1000 and /device:TPU:1000 would otherwise merge into one
     * process, one device's kernels nested in the other's). */
    if (pid_taken(x, pid)) {
        pid = 1000 + (int64_t)plane_index;
        while (pid_taken(x, pid))
            pid++;
    }
    return pid;
}

static void plane_reset(reader *x)
{
    x->emeta.n = 0;
    x->smeta.n = 0;
    x->meta_args.n = 0;
    x->blobs.n = 0;
    x->lines.n = 0;
    x->events.n = 0;
    x->ev_bytes.n = 0;
    x->arena.n = 0;
    idmap_reset(&x->emap);
    idmap_reset(&x->smap);
    x->plane_warned_event = x->plane_warned_stat = 0;
}

/* A line's lane, named and typed as read/xplane.h says. */
static sts_status line_lane(reader *x, const pending_line *pl, int32_t ordinal, uint32_t *out)
{
    /* The tid XProf's converters give the line (and JAX's perfetto_trace.json.gz holds):
     * its display id, else its id, as a uint32, so both files name a thread alike. */
    uint32_t tid = (uint32_t)(pl->display_id ? pl->display_id : pl->id);
    char label[24];
    int ln = snprintf(label, sizeof label, "%" PRIu32, tid);
    uint32_t lab = intern(x, label, (size_t)ln);
    if (lab == STS_NONE) return nomem(x);
    uint32_t lane = sts_tl_lane(x->tl, x->process, lab, tid);
    if (lane == STS_NONE) return nomem(x);
    sts_lane *l = &x->tl->lanes.v[lane];
    if (l->name == 0 && (pl->disp.len || pl->name.len)) {
        l->name = intern_span(x, pl->disp.len ? pl->disp : pl->name);
        if (l->name == STS_NONE) return nomem(x);
    }
    l->kind = x->device_plane ? STS_LANE_DEVICE : STS_LANE_THREAD;
    /* XProf orders the host plane's lines as they come (its thread_sort_index). */
    if (x->process_pid == 701) l->sort_index = ordinal;
    *out = lane;
    return STS_OK;
}

/* A line's events, read again from the input (their lengths were checked in step 1),
 * each decoded as it comes. */
static sts_status reread_events(reader *x, const pending_line *pl, uint32_t lane)
{
    sts_pbs *s = &x->again;
    sts_pbs_reread_at(s, pl->start, pl->end);
    sts_pb_field f;
    sts_pb_error e;
    int rc;
    while ((rc = sts_pbs_next(s, pl->end, &f, &e)) > 0) {
        if (f.wire != STS_PB_LEN) continue;
        if (f.num != 4) {
            rc = sts_pbs_skip(s, f.len, &e);
        } else {
            const uint8_t *p = NULL;
            rc = sts_pbs_load(s, f.len, &p, &e);
            if (rc == 0) {
                sts_pb_reader r;
                sts_pb_reader_init_at(&r, p, f.len, f.data_offset);
                sts_status st = read_event(x, &r, f.offset, lane, pl->base);
                if (st != STS_OK) return st;
            }
        }
        if (rc) break;
    }
    return rc < 0 ? stream_fail(x, M_LINE, rc, &e) : STS_OK;
}

/* Step 2, at the plane's end, its metadata known: its process, lanes and slices. */
static sts_status resolve_plane(reader *x, span name_sp, size_t plane_index)
{
    x->meta_arg_limit = sts_pbs_offset(&x->s) + (1u << 20);
    sts_status st = resolve_meta_stats(x);
    if (st != STS_OK) return st;
    const uint8_t *name = name_sp.len ? x->arena.v + name_sp.off : NULL;
    size_t name_n = name_sp.len;
    int64_t pid = plane_pid(x, name, name_n, plane_index);
    if (sts_u64map_put(&x->pids, pid_key(pid), 0) != 0) return nomem(x);
    char label[24];
    int ln = snprintf(label, sizeof label, "%" PRId64, pid);
    uint32_t lab = intern(x, label, (size_t)ln);
    if (lab == STS_NONE) return nomem(x);
    x->process = sts_tl_process(x->tl, lab, pid);
    if (x->process == STS_NONE) return nomem(x);
    x->process_pid = pid;
    sts_process *p = &x->tl->procs.v[x->process];
    p->name = intern(x, name, name_n);
    if (p->name == STS_NONE) return nomem(x);
    static const char dev[] = "/device:";
    x->device_plane = name_n >= sizeof dev - 1 && memcmp(name, dev, sizeof dev - 1) == 0;
    size_t at = 0; /* the events' bytes follow each other in ev_bytes */
    for (size_t i = 0; i < x->lines.n; i++) {
        const pending_line *pl = &x->lines.v[i];
        uint32_t lane = 0;
        if ((st = line_lane(x, pl, (int32_t)i + 1, &lane)) != STS_OK) return st;
        if (x->reread) {
            if ((st = reread_events(x, pl, lane)) != STS_OK) return st;
            continue;
        }
        for (size_t k = pl->first_event; k < pl->first_event + pl->n_events; k++) {
            const pending_event *ev = &x->events.v[k];
            sts_pb_reader r;
            sts_pb_reader_init_at(&r, x->ev_bytes.v + at, ev->len, ev->data_off);
            at += ev->len;
            if ((st = read_event(x, &r, ev->data_off - ev->hdr, lane, pl->base)) != STS_OK) return st;
        }
    }
    return STS_OK;
}

/* Step 1: a plane's fields from the stream. A plane without lines ("/host:metadata")
 * holds no timeline and is dropped at its end. */
static sts_status read_plane(reader *x, const sts_pb_field *pf, size_t plane_index)
{
    uint64_t end = pf->data_offset + pf->len;
    sts_pb_field f;
    span name = { 0, 0 };
    size_t lines = 0;
    int rc;
    sts_status st = STS_OK;
    plane_reset(x);
    while (st == STS_OK && (rc = snext(x, M_PLANE, end, &f)) > 0) {
        switch (f.num) {
        case 1:
            if (want(x, M_PLANE, &f, STS_PB_VARINT)) return STS_ERR_PARSE;
            break;
        case 2:
        case 3:
        case 4:
        case 5:
        case 6:
            if (want(x, M_PLANE, &f, STS_PB_LEN)) return STS_ERR_PARSE;
            if (f.num == 2) {
                st = keep_span(x, M_PLANE, &f, &name);
            } else if (f.num == 3) {
                lines++;
                st = read_line(x, &f);
            } else if (f.num == 4) {
                st = read_event_meta(x, &f);
            } else if (f.num == 5) {
                st = read_stat_meta(x, &f);
            } else {
                st = skip(x, M_PLANE, &f);
            }
            break;
        default:
            st = skip(x, M_PLANE, &f);
            break;
        }
    }
    if (st != STS_OK) return st;
    if (rc < 0) return failed(x);
    if (lines == 0) return STS_OK;
    return resolve_plane(x, name, plane_index);
}

/* An XSpace error or warning becomes a timeline warning (its first 400 bytes). */
static sts_status read_note(reader *x, const sts_pb_field *f)
{
    sts_pb_field head = *f;
    if (head.len > 400) head.len = 400;
    x->tmp.n = 0;
    sts_status st = APPEND(x, M_SPACE, x->tmp, &head);
    if (st != STS_OK) return st;
    if (f->len > head.len) {
        sts_pb_field rest = *f;
        rest.len = f->len - head.len;
        if ((st = skip(x, M_SPACE, &rest)) != STS_OK) return st;
    }
    sts_tl_warn(x->tl, "%s: the profiler recorded %s: %.*s", x->name, f->num == 2 ? "an error" : "a warning",
                (int)x->tmp.n, x->tmp.n ? (const char *)x->tmp.v : "");
    return STS_OK;
}

/* XSpace.hostnames: the first names the host (a multi-host reader labels it so). */
static sts_status read_hostname(reader *x, const sts_pb_field *f)
{
    if (x->tl->info.host || f->len == 0 || f->len > 1024) return skip(x, M_SPACE, f);
    x->tmp.n = 0;
    sts_status st = APPEND(x, M_SPACE, x->tmp, f);
    if (st != STS_OK) return st;
    uint32_t id = intern(x, x->tmp.v, x->tmp.n);
    if (id == STS_NONE) return nomem(x);
    x->tl->info.host = sts_timeline_string(x->tl, id);
    return STS_OK;
}

static sts_status read_space(reader *x)
{
    sts_pb_field f;
    size_t planes = 0;
    int rc;
    sts_status st = STS_OK;
    sts_completion done = { 0, 0 }; /* stepscope's completion record, checked at the end */
    while (st == STS_OK && (rc = snext(x, M_SPACE, STS_PBS_NO_END, &f)) > 0) {
        x->top = f;
        x->in_top = f.wire == STS_PB_LEN;
        if (sts_completion_note_field(&done, f.num) || f.num < 1 || f.num > 4) {
            st = skip(x, M_SPACE, &f);
        } else if (want(x, M_SPACE, &f, STS_PB_LEN)) {
            return STS_ERR_PARSE;
        } else if (f.num == 1) {
            st = read_plane(x, &f, planes++);
            if (st == STS_OK && x->opt && x->opt->progress)
                x->opt->progress(sts_instream_raw_offset(x->in), sts_instream_raw_size(x->in), x->opt->progress_user);
        } else if (f.num == 2 || f.num == 3) {
            st = read_note(x, &f);
        } else if (f.num == 4) {
            st = read_hostname(x, &f);
        } else {
            st = skip(x, M_SPACE, &f);
        }
        x->in_top = 0;
    }
    if (st != STS_OK) return st;
    if (rc < 0) return failed(x);
    st = sts_completion_check(&done, x->name, sts_pbs_offset(&x->s), "XSpace field 1002, stepscope_complete", x->err);
    if (st != STS_OK) return st;
    if (planes == 0) sts_tl_warn(x->tl, "%s: the XSpace holds no planes", x->name);
    return STS_OK;
}

static void reader_release(reader *x)
{
    sts_pbs_release(&x->s);
    sts_pbs_release(&x->again);
    STS_VEC_RELEASE(x->emeta);
    STS_VEC_RELEASE(x->smeta);
    STS_VEC_RELEASE(x->blobs);
    STS_VEC_RELEASE(x->lines);
    STS_VEC_RELEASE(x->events);
    STS_VEC_RELEASE(x->ev_bytes);
    STS_VEC_RELEASE(x->arena);
    STS_VEC_RELEASE(x->tmp);
    STS_VEC_RELEASE(x->meta_args);
    STS_VEC_RELEASE(x->scratch);
    sts_u64map_release(&x->pids);
    idmap_reset(&x->emap);
    idmap_reset(&x->smap);
}

sts_status sts_read_xplane(sts_instream *in, sts_timeline *tl, const sts_open_options *opt, sts_error *err)
{
    reader x;
    memset(&x, 0, sizeof x);
    x.tl = tl;
    x.in = in;
    x.name = sts_instream_name(in);
    x.err = err;
    x.opt = opt;
    x.mode = opt ? opt->args : tl->args_mode;
    /* A plain file's size is known: a length past it is refused before reading on. */
    uint64_t raw = sts_instream_raw_size(in);
    x.size = !sts_instream_is_gzip(in) && raw ? raw : STS_PBS_NO_END;
    x.emap.zero = x.smap.zero = UINT32_MAX;
    uint32_t fmt = sts_tl_intern(tl, "xplane", 6);
    if (fmt == STS_NONE) return nomem(&x);
    tl->info.format = sts_timeline_string(tl, fmt);
    if (sts_pbs_init(&x.s, in, x.size, err) != 0) return STS_ERR_NOMEM;
    int again = sts_pbs_init_reread(&x.again, in, x.size, err);
    if (again < 0) {
        sts_pbs_release(&x.s);
        return STS_ERR_NOMEM;
    }
    x.reread = again == 0;
    sts_status st = read_space(&x);
    tl->info.bytes = sts_pbs_offset(&x.s);
    tl->info.compressed = sts_instream_is_gzip(in);
    reader_release(&x);
    return st;
}

sts_status sts_read_xplane_mem(const void *buf, size_t len, const char *name, sts_timeline *tl,
                               const sts_open_options *opt, sts_error *err)
{
    sts_instream *in = sts_instream_open_mem_plain(buf, len, name ? name : "<memory>", err);
    if (!in) return err ? err->code : STS_ERR_NOMEM;
    sts_status st = sts_read_xplane(in, tl, opt, err);
    sts_instream_free(in);
    return st;
}
