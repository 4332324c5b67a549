/* The protobuf wire codec (base/pb) and the XSpace reader (read/xplane): known byte
 * sequences, hand-built XSpaces covering each mapping rule, every kind of malformed
 * input, and the real JAX fixtures checked against an independent decode by protoc
 * (tests/cli/xplane_protoc_summary.py). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zlib.h>

#include "base/instream.h"
#include "base/pb.h"
#include "model/finalize.h"
#include "model/timeline_builder.h"
#include "read/readers.h"
#include "read/xplane.h"
#include "stepscope/timeline.h"
#include "test.h"
#include "tl_same.h"

/* ---- helpers ---- */

typedef struct buf {
    uint8_t *v;
    size_t n, cap;
} buf;

static int buf_sink(void *user, const void *p, size_t n)
{
    buf *b = user;
    if (sts_grow((void **)&b->v, &b->cap, b->n + n, 1) != 0) return -1;
    memcpy(b->v + b->n, p, n);
    b->n += n;
    return 0;
}

typedef void (*build_fn)(sts_pb_writer *w);

/* Runs `fn` through both writer passes; returns the bytes (caller frees b.v). */
static buf build(build_fn fn)
{
    buf b = { NULL, 0, 0 };
    sts_pb_writer w;
    if (sts_pb_writer_init(&w, buf_sink, &b) != 0) abort();
    fn(&w);
    sts_pb_writer_emit(&w);
    fn(&w);
    if (sts_pb_writer_finish(&w) != STS_PB_W_OK) abort();
    sts_pb_writer_release(&w);
    return b;
}

static int bytes_eq(const buf *b, const char *hex)
{
    size_t n = strlen(hex) / 2;
    if (b->n != n) return 0;
    for (size_t i = 0; i < n; i++) {
        unsigned v;
        if (sscanf(hex + 2 * i, "%2x", &v) != 1 || b->v[i] != v) return 0;
    }
    return 1;
}

static sts_timeline *read_mem(const void *p, size_t n, sts_args_mode mode, sts_status *st, sts_error *err)
{
    sts_timeline *tl = sts_tl_new("mem.xplane.pb", "xplane", mode);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = mode;
    sts_error_clear(err);
    *st = sts_read_xplane_mem(p, n, "mem.xplane.pb", tl, &opt, err);
    return tl;
}

/* The stream reader on a file, as the opener calls it. */
static sts_status read_path(const char *path, sts_timeline *tl, const sts_open_options *opt, sts_error *err)
{
    sts_instream *in = sts_instream_open(path, err);
    if (!in) return err->code;
    sts_status st = sts_read_xplane(in, tl, opt, err);
    sts_instream_free(in);
    return st;
}

static const char *S(const sts_timeline *tl, uint32_t id)
{
    return sts_timeline_string(tl, id);
}

/* The slice named `name` (the first), or NULL. */
static const sts_slice *find_slice(const sts_timeline *tl, const char *name)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(S(tl, s[i].name), name) == 0) return &s[i];
    return NULL;
}

static const sts_lane *find_lane(const sts_timeline *tl, const char *proc, int64_t tid)
{
    size_t np, nl;
    const sts_process *p = sts_timeline_processes(tl, &np);
    const sts_lane *l = sts_timeline_lanes(tl, &nl);
    for (size_t i = 0; i < nl; i++)
        if (l[i].tid == tid && strcmp(S(tl, p[l[i].process].name), proc) == 0) return &l[i];
    return NULL;
}

/* ---- the codec ---- */

static void enc_known(sts_pb_writer *w)
{
    sts_pb_put_uint(w, 1, 150);      /* 08 96 01: protobuf's own documented example */
    sts_pb_put_str(w, 2, "testing"); /* 12 07 74657374696e67 */
    sts_pb_begin(w, 3);              /* 1a 03 */
    sts_pb_put_uint(w, 1, 150);      /*   08 96 01 */
    sts_pb_end(w);
    sts_pb_put_double(w, 4, 1.0); /* 21 000000000000f03f */
    sts_pb_put_int(w, 5, -1);     /* 28 ffffffffffffffffff01 */
}

TEST(encoder_known_bytes)
{
    buf b = build(enc_known);
    T_TRUE(bytes_eq(&b, "089601"
                        "120774657374696e67"
                        "1a03089601"
                        "21000000000000f03f"
                        "28ffffffffffffffffff01"));
    free(b.v);
}

static void enc_bad_utf8(sts_pb_writer *w)
{
    sts_pb_begin(w, 1);
    sts_pb_put_str(w, 2,
                   "a\xff"
                   "b\xc3\xa9\xe2\x82"); /* a, bad, b, é, a cut € */
    sts_pb_end(w);
    sts_pb_put_str(w, 3, "\xed\xa0\x80"); /* a surrogate: three bad bytes */
}

/* A proto3 string must be UTF-8, or parsers refuse the whole file: each bad byte is
 * written as U+FFFD, and the lengths (the submessage's too) count the repair. */
TEST(encoder_repairs_strings_that_are_not_utf8)
{
    buf b = build(enc_bad_utf8);
    T_TRUE(bytes_eq(&b, "0a0f"
                        "120d"
                        "61"
                        "efbfbd"
                        "62"
                        "c3a9"
                        "efbfbd"
                        "efbfbd"
                        "1a09"
                        "efbfbd"
                        "efbfbd"
                        "efbfbd"));
    free(b.v);
}

static void enc_nested(sts_pb_writer *w)
{
    /* A 200-byte payload needs a 2-byte length; the outer length must count it. */
    char big[201];
    memset(big, 'x', 200);
    big[200] = 0;
    sts_pb_begin(w, 1);
    sts_pb_begin(w, 2);
    sts_pb_put_str(w, 3, big);
    sts_pb_end(w);
    sts_pb_end(w);
}

TEST(encoder_nested_sizes)
{
    buf b = build(enc_nested);
    /* inner: tag(1) + len(2) + 200 = 203; middle: 1 + 2 + 203 = 206; outer: 1 + 2 + 206 */
    T_EQ_U64(b.n, 209);
    T_EQ_U64(b.v[0], 0x0a);
    sts_pb_reader r;
    sts_pb_field f, g, h;
    sts_pb_error e;
    sts_pb_reader_init(&r, b.v, b.n);
    T_EQ_I64(sts_pb_next(&r, &f, &e), 1);
    T_EQ_U64(f.len, 206);
    sts_pb_reader r2, r3;
    sts_pb_sub(&r2, &r, &f);
    T_EQ_I64(sts_pb_next(&r2, &g, &e), 1);
    T_EQ_U64(g.len, 203);
    sts_pb_sub(&r3, &r2, &g);
    T_EQ_I64(sts_pb_next(&r3, &h, &e), 1);
    T_EQ_U64(h.len, 200);
    T_EQ_U64(h.data_offset, 9);
    T_EQ_I64(sts_pb_next(&r, &f, &e), 0);
    free(b.v);
}

TEST(encoder_detects_misuse)
{
    buf b = { NULL, 0, 0 };
    sts_pb_writer w;
    T_EQ_I64(sts_pb_writer_init(&w, buf_sink, &b), 0);
    sts_pb_begin(&w, 1);
    sts_pb_writer_emit(&w); /* a message left open in the measuring pass */
    T_EQ_I64(sts_pb_writer_finish(&w), STS_PB_W_MISUSE);
    sts_pb_writer_release(&w);
    T_EQ_I64(sts_pb_writer_init(&w, buf_sink, &b), 0);
    sts_pb_end(&w);
    T_EQ_I64(sts_pb_writer_finish(&w), STS_PB_W_MISUSE);
    sts_pb_writer_release(&w);
    free(b.v);
}

TEST(varint_round_trip)
{
    const uint64_t vals[] = {
        0, 1, 127, 128, 300, 16383, 16384, (1ull << 35) - 1, 1ull << 56, (uint64_t)INT64_MAX, 1ull << 63, UINT64_MAX
    };
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint8_t tmp[12];
        tmp[0] = 0x08; /* field 1, varint */
        size_t n = 1 + sts_pb_encode_varint(tmp + 1, vals[i]);
        T_EQ_U64(n - 1, sts_pb_varint_size(vals[i]));
        sts_pb_reader r;
        sts_pb_field f;
        sts_pb_error e;
        sts_pb_reader_init(&r, tmp, n);
        T_EQ_I64(sts_pb_next(&r, &f, &e), 1);
        T_EQ_U64(f.u, vals[i]);
        T_EQ_I64(sts_pb_next(&r, &f, &e), 0);
    }
}

static sts_pb_fault decode_fault(const char *bytes, size_t n, uint64_t *off)
{
    sts_pb_reader r;
    sts_pb_field f;
    sts_pb_error e;
    sts_pb_reader_init(&r, bytes, n);
    int rc;
    while ((rc = sts_pb_next(&r, &f, &e)) > 0) {
    }
    if (rc == 0) return STS_PB_OK;
    *off = e.offset;
    return e.fault;
}

TEST(decoder_faults)
{
    uint64_t off = 0;
    T_EQ_I64(decode_fault("\x08\x96", 2, &off), STS_PB_TRUNCATED_VARINT);
    T_EQ_U64(off, 1);
    T_EQ_I64(decode_fault("\x08\x01\x88", 3, &off), STS_PB_TRUNCATED_VARINT); /* a tag cut off */
    T_EQ_U64(off, 2);
    T_EQ_I64(decode_fault("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11, &off), STS_PB_OVERLONG_VARINT);
    T_EQ_I64(decode_fault("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", 12, &off), STS_PB_OVERLONG_VARINT);
    T_EQ_I64(decode_fault("\x00\x01", 2, &off), STS_PB_BAD_FIELD_NUMBER);
    T_EQ_I64(decode_fault("\x0b", 1, &off), STS_PB_BAD_WIRE_TYPE); /* group start */
    T_EQ_I64(decode_fault("\x0e", 1, &off), STS_PB_BAD_WIRE_TYPE);
    T_EQ_I64(decode_fault("\x12\x05\x61\x62", 4, &off), STS_PB_LENGTH_PAST_END);
    T_EQ_U64(off, 0);
    T_EQ_I64(decode_fault("\x12\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10, &off), STS_PB_LENGTH_PAST_END);
    T_EQ_I64(decode_fault("\x09\x01\x02\x03", 4, &off), STS_PB_FIXED_PAST_END);
    T_EQ_I64(decode_fault("\x0d\x01\x02\x03\x04", 5, &off), STS_PB_OK); /* a whole 32-bit value */
}

/* ---- the reader on hand-built XSpaces ---- */

static void stat_int(sts_pb_writer *w, uint64_t meta, int64_t v)
{
    sts_pb_begin(w, 4);
    sts_pb_put_uint(w, 1, meta);
    sts_pb_put_int(w, 4, v);
    sts_pb_end(w);
}

static void event(sts_pb_writer *w, uint64_t meta, int64_t off_ps, int64_t dur_ps)
{
    sts_pb_put_uint(w, 1, meta);
    sts_pb_put_int(w, 2, off_ps);
    if (dur_ps) sts_pb_put_int(w, 3, dur_ps);
}

/* An event_metadata entry; meta_stat > 0 adds XEventMetadata.stats {meta_stat: 99}. */
static void emeta(sts_pb_writer *w, int64_t id, const char *name, const char *display, uint64_t meta_stat)
{
    sts_pb_begin(w, 4);
    sts_pb_put_int(w, 1, id);
    sts_pb_begin(w, 2);
    sts_pb_put_int(w, 1, id);
    sts_pb_put_str(w, 2, name);
    if (display) sts_pb_put_str(w, 4, display);
    if (meta_stat) {
        sts_pb_begin(w, 5);
        sts_pb_put_uint(w, 1, meta_stat);
        sts_pb_put_int(w, 4, 99);
        sts_pb_end(w);
    }
    sts_pb_end(w);
    sts_pb_end(w);
}

static void smeta(sts_pb_writer *w, int64_t id, const char *name)
{
    sts_pb_begin(w, 5);
    sts_pb_put_int(w, 1, id);
    sts_pb_begin(w, 2);
    sts_pb_put_int(w, 1, id);
    sts_pb_put_str(w, 2, name);
    sts_pb_end(w);
    sts_pb_end(w);
}

static void space_rules(sts_pb_writer *w)
{
    sts_pb_begin(w, 1); /* plane /host:CPU */
    sts_pb_put_str(w, 2, "/host:CPU");
    sts_pb_begin(w, 3); /* line 42 */
    sts_pb_put_int(w, 1, 42);
    sts_pb_put_str(w, 2, "main");
    sts_pb_put_int(w, 3, 1000); /* line starts at 1000 ns */
    sts_pb_begin(w, 4);
    event(w, 1, 1499, 5000000); /* 1000 ns + 1.499 ns -> 1001; end 6001.499 -> 6001 */
    stat_int(w, 1, 7);          /* step_num = 7 */
    sts_pb_begin(w, 4);         /* step_name = ref to stat metadata 3 ("hello") */
    sts_pb_put_uint(w, 1, 2);
    sts_pb_put_uint(w, 7, 3);
    sts_pb_end(w);
    sts_pb_begin(w, 4); /* a bytes value: not kept */
    sts_pb_put_uint(w, 1, 6);
    sts_pb_put_bytes(w, 6, "\x01\x02", 2);
    sts_pb_end(w);
    sts_pb_end(w);
    sts_pb_begin(w, 4);
    event(w, 2, 1500, 1000); /* 1001.5 -> 1002 (halves up); end 1002.5 -> 1003 */
    sts_pb_begin(w, 4);      /* group_id = UINT64_MAX: above INT64_MAX, kept as text */
    sts_pb_put_uint(w, 1, 4);
    sts_pb_put_uint(w, 3, UINT64_MAX);
    sts_pb_end(w);
    stat_int(w, 5, 11); /* the event's own correlation_id beats its metadata's 99 */
    sts_pb_end(w);
    sts_pb_begin(w, 4); /* an aggregate: skipped */
    sts_pb_put_uint(w, 1, 1);
    sts_pb_put_int(w, 5, 12);
    sts_pb_end(w);
    sts_pb_begin(w, 4); /* negative duration: rejected */
    event(w, 1, 0, 0);
    sts_pb_put_int(w, 3, -5);
    sts_pb_end(w);
    sts_pb_begin(w, 4); /* unknown metadata id */
    event(w, 99, 10000000, 0);
    sts_pb_end(w);
    sts_pb_begin(w, 4); /* negative offset: 1000 ns - 1.5 ns = 998.5 -> 999 */
    event(w, 1, -1500, 0);
    sts_pb_end(w);
    sts_pb_put_str(w, 11, "Main thread");
    sts_pb_end(w);
    sts_pb_begin(w, 3); /* the same line id again: the same lane */
    sts_pb_put_int(w, 1, 42);
    sts_pb_put_str(w, 2, "ignored: the lane is already named");
    sts_pb_put_int(w, 3, 2000);
    sts_pb_begin(w, 4);
    event(w, 2, 0, 0);
    sts_pb_end(w);
    sts_pb_end(w);
    emeta(w, 1, "learner_step", NULL, 0);
    emeta(w, 2, "jit(fn)/long.internal.name", "model_and_wait", 5); /* correlation_id = 99 */
    smeta(w, 1, "step_num");
    smeta(w, 2, "step_name");
    smeta(w, 3, "hello");
    smeta(w, 4, "group_id");
    smeta(w, 5, "correlation_id");
    smeta(w, 6, "Hlo Proto");
    sts_pb_end(w);

    sts_pb_begin(w, 1); /* a device plane */
    sts_pb_put_int(w, 1, 3);
    sts_pb_put_str(w, 2, "/device:GPU:3");
    sts_pb_begin(w, 3);
    sts_pb_put_int(w, 1, 7);
    sts_pb_put_str(w, 2, "Stream #7(Kernel)");
    sts_pb_begin(w, 4);
    event(w, 1, 0, 2000);
    sts_pb_end(w);
    sts_pb_end(w);
    emeta(w, 1, "kernel", NULL, 0);
    sts_pb_end(w);

    sts_pb_begin(w, 1); /* metadata only: skipped */
    sts_pb_put_str(w, 2, "/host:metadata");
    emeta(w, 1, "jit_fn(1)", NULL, 0);
    sts_pb_end(w);

    sts_pb_begin(w, 1); /* the same device name again: its pid moves to 1000 + index */
    sts_pb_put_str(w, 2, "/device:GPU:3");
    sts_pb_begin(w, 3);
    sts_pb_put_int(w, 1, 7);
    sts_pb_begin(w, 4);
    event(w, 1, 0, 0);
    sts_pb_end(w);
    sts_pb_end(w);
    sts_pb_end(w);

    sts_pb_put_str(w, 2, "device 5 failed to start");
    sts_pb_put_str(w, 4, "host-a");
}

/* Three device planes whose pids collide in a chain: /device:GPU:1000 is pid 1001,
 * /device:TPU:1000 wants 1001 and then 1000 + its index 1, taken too; /device:XPU:1001
 * wants 1002 and then 1000 + 2. Each holds one kernel over the same interval. */
static void space_pid_chain(sts_pb_writer *w)
{
    static const char *const names[] = { "/device:GPU:1000", "/device:TPU:1000", "/device:XPU:1001" };
    for (int i = 0; i < 3; i++) {
        sts_pb_begin(w, 1);
        sts_pb_put_str(w, 2, names[i]);
        sts_pb_begin(w, 3);
        sts_pb_put_int(w, 1, 7);
        sts_pb_begin(w, 4);
        event(w, 1, 0, 2000000);
        sts_pb_end(w);
        sts_pb_end(w);
        emeta(w, 1, "kernel", NULL, 0);
        sts_pb_end(w);
    }
}

/* The second pid a plane tries (1000 + index) was taken as given: two devices shared
 * one pid, so one lane, one kernel nested in the other's. */
TEST(reader_pid_fallback_is_checked_again)
{
    buf b = build(space_pid_chain);
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(b.v, b.n, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_OK);
    T_EQ_I64(sts_tl_finalize(tl, &err), STS_OK);
    size_t np, nl, ns;
    const sts_process *p = sts_timeline_processes(tl, &np);
    const sts_lane *l = sts_timeline_lanes(tl, &nl);
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    T_EQ_U64(np, 3);
    if (np == 3) {
        T_EQ_I64(p[0].pid, 1001); /* ordinal + 1 */
        T_EQ_I64(p[1].pid, 1002); /* 1001 taken, then 1000 + 1 taken: the next free */
        T_EQ_I64(p[2].pid, 1003); /* 1002 taken, then 1000 + 2 taken: the next free */
    }
    T_EQ_U64(nl, 3);
    for (size_t i = 0; i < nl && i < 3; i++)
        T_EQ_U64(l[i].slice_count, 1);
    T_EQ_U64(ns, 3);
    for (size_t i = 0; i < ns; i++)
        T_EQ_I64(sl[i].depth, 0);
    T_EQ_U64(tl->info.overlaps, 0);
    sts_tl_free(tl);
    free(b.v);
}

static const sts_arg *arg(const sts_timeline *tl, const sts_slice *s, const char *key)
{
    return s ? sts_timeline_find_arg(tl, s->args, key) : NULL;
}

TEST(reader_mapping_rules)
{
    buf b = build(space_rules);
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(b.v, b.n, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_OK);
    T_EQ_STR(tl->info.format, "xplane");
    size_t np, nl, ns;
    const sts_process *p = sts_timeline_processes(tl, &np);
    sts_timeline_lanes(tl, &nl);
    sts_timeline_slices(tl, &ns);
    T_EQ_U64(np, 3); /* the metadata-only plane is skipped */
    T_EQ_STR(S(tl, p[0].name), "/host:CPU");
    T_EQ_I64(p[0].pid, 701);
    T_EQ_I64(p[1].pid, 4);    /* /device:GPU:3 -> ordinal + 1 */
    T_EQ_I64(p[2].pid, 1003); /* taken: 1000 + plane index */
    T_EQ_U64(nl, 3);
    const sts_lane *main = find_lane(tl, "/host:CPU", 42);
    T_TRUE(main != NULL);
    if (main) {
        T_EQ_STR(S(tl, main->name), "Main thread"); /* display_name wins */
        T_EQ_I64(main->kind, STS_LANE_THREAD);
    }
    const sts_lane *dev = find_lane(tl, "/device:GPU:3", 7);
    T_TRUE(dev && dev->kind == STS_LANE_DEVICE);
    if (dev) T_EQ_STR(S(tl, dev->name), "Stream #7(Kernel)");
    T_EQ_U64(ns, 7);
    T_EQ_U64(tl->info.events, 9);
    T_EQ_U64(tl->info.skipped, 1);
    T_EQ_U64(tl->info.rejected, 1);

    const sts_slice *step = find_slice(tl, "learner_step");
    T_TRUE(step != NULL);
    if (step) {
        T_EQ_I64(step->ts, 1001);
        T_EQ_I64(step->dur, 5000);
        T_EQ_I64(arg(tl, step, "step_num")->v.i, 7);
        T_EQ_STR(S(tl, arg(tl, step, "step_name")->v.str), "hello");
        T_TRUE(arg(tl, step, "Hlo Proto") == NULL); /* not a known key, and bytes anyway */
    }
    const sts_slice *model = find_slice(tl, "model_and_wait"); /* display_name wins */
    T_TRUE(model != NULL);
    if (model) {
        T_EQ_I64(model->ts, 1002);
        T_EQ_I64(model->dur, 1);
        const sts_arg *g = arg(tl, model, "group_id");
        T_TRUE(g && g->type == STS_ARG_STRING);
        if (g) T_EQ_STR(S(tl, g->v.str), "18446744073709551615");
        T_EQ_I64(arg(tl, model, "correlation_id")->v.i, 11);
    }
    T_TRUE(find_slice(tl, "event_metadata 99") != NULL);
    /* The second line with id 42 starts at 2000 ns; its event inherits the metadata's
     * correlation_id (99). */
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    int found_neg = 0, found_second = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i].ts == 999 && s[i].dur == 0) found_neg = 1;
        if (s[i].ts == 2000 && main && s[i].lane == (uint32_t)(main - sts_timeline_lanes(tl, NULL))) {
            found_second = 1;
            T_EQ_I64(arg(tl, &s[i], "correlation_id")->v.i, 99);
        }
    }
    T_TRUE(found_neg);
    T_TRUE(found_second);
    size_t nw;
    uint64_t total;
    const char *const *w = sts_timeline_warnings(tl, &nw, &total);
    int saw_error = 0, saw_neg = 0, saw_unknown = 0;
    for (size_t i = 0; i < nw; i++) {
        saw_error |= strstr(w[i], "device 5 failed to start") != NULL;
        saw_neg |= strstr(w[i], "negative duration_ps (-5)") != NULL;
        saw_unknown |= strstr(w[i], "event metadata id 99") != NULL;
    }
    T_TRUE(saw_error && saw_neg && saw_unknown);
    sts_tl_free(tl);
    free(b.v);
}

TEST(reader_args_modes)
{
    buf b = build(space_rules);
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(b.v, b.n, STS_ARGS_NONE, &st, &err);
    T_EQ_I64(st, STS_OK);
    size_t na;
    sts_timeline_args(tl, &na);
    T_EQ_U64(na, 0);
    sts_tl_free(tl);
    tl = read_mem(b.v, b.n, STS_ARGS_ALL, &st, &err);
    T_EQ_I64(st, STS_OK);
    const sts_slice *model = find_slice(tl, "model_and_wait");
    T_TRUE(model != NULL);
    if (model) T_EQ_STR(S(tl, arg(tl, model, "long_name")->v.str), "jit(fn)/long.internal.name");
    const sts_slice *step = find_slice(tl, "learner_step");
    T_TRUE(arg(tl, step, "Hlo Proto") == NULL); /* bytes values are never kept */
    sts_tl_free(tl);
    /* ANALYSIS: step_num and correlation_id (the device view's) stay; the ids and names
     * KNOWN also keeps (step_name, group_id, from the event or its metadata) do not. */
    tl = read_mem(b.v, b.n, STS_ARGS_ANALYSIS, &st, &err);
    T_EQ_I64(st, STS_OK);
    step = find_slice(tl, "learner_step");
    model = find_slice(tl, "model_and_wait");
    T_TRUE(step != NULL && model != NULL);
    const sts_arg *num = arg(tl, step, "step_num");
    T_TRUE(num != NULL);
    if (num) T_EQ_I64(num->v.i, 7);
    T_TRUE(arg(tl, step, "step_name") == NULL);
    T_TRUE(arg(tl, model, "group_id") == NULL);
    T_TRUE(arg(tl, model, "correlation_id") != NULL);
    sts_timeline_args(tl, &na);
    size_t steps = 0, corrs = 0;
    size_t ns;
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    for (size_t i = 0; i < ns; i++) {
        steps += arg(tl, &sl[i], "step_num") != NULL;
        corrs += arg(tl, &sl[i], "correlation_id") != NULL;
    }
    T_TRUE(corrs > 0);
    T_EQ_U64(na, steps + corrs); /* nothing but step_num and correlation_id */
    sts_tl_free(tl);
    free(b.v);
}

TEST(reader_gzip_file)
{
    buf b = build(space_rules);
    char path[] = "/tmp/sts_test_xplane_XXXXXX";
    int fd = mkstemp(path);
    T_TRUE(fd >= 0);
    gzFile gz = gzdopen(fd, "wb");
    gzwrite(gz, b.v, (unsigned)b.n);
    gzclose(gz);
    sts_timeline *tl = sts_tl_new(path, "xplane", STS_ARGS_KNOWN);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(read_path(path, tl, NULL, &err), STS_OK);
    T_EQ_I64(tl->info.compressed, 1);
    T_EQ_U64(tl->info.bytes, b.n);
    size_t ns;
    sts_timeline_slices(tl, &ns);
    T_EQ_U64(ns, 7);
    sts_tl_free(tl);
    unlink(path);
    tl = sts_tl_new("x", "xplane", STS_ARGS_KNOWN);
    T_TRUE(read_path("/nonexistent/dir/f.xplane.pb", tl, NULL, &err) == STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "/nonexistent/dir/f.xplane.pb");
    sts_tl_free(tl);
    free(b.v);
}

/* ---- malformed input ---- */

TEST(error_length_past_end_of_file)
{
    /* A plane whose length (100) runs past the 7-byte file. */
    const char bytes[] = "\x0a\x64\x12\x03/ab";
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(bytes, 7, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_ERR_TRUNCATED);
    T_EQ_I64(err.byte_offset, 0);
    T_CONTAINS(err.message, "mem.xplane.pb: byte 0: length 100 of field 1 (XSpace.planes) runs past the end of the "
                            "file (size 7)");
    sts_tl_free(tl);
}

static void space_bad_line(sts_pb_writer *w)
{
    sts_pb_begin(w, 1);
    sts_pb_put_str(w, 2, "/host:CPU");
    sts_pb_begin(w, 3);
    sts_pb_put_int(w, 1, 1);
    sts_pb_end(w);
    sts_pb_end(w);
    sts_pb_put_str(w, 4, "host");
}

TEST(error_names_field_and_enclosing_message)
{
    buf b = build(space_bad_line);
    /* Bytes: 0a 0f | 12 09 "/host:CPU" | 1a 02 08 01 | 22 04 "host". Make the line's
     * length (byte 14) claim 9 bytes: past its plane (ends at byte 17), not the file. */
    T_EQ_U64(b.v[13], 0x1a);
    T_EQ_U64(b.v[14], 0x02);
    b.v[14] = 0x09;
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(b.v, b.n, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_ERR_PARSE);
    T_EQ_I64(err.byte_offset, 13);
    T_CONTAINS(err.message, "byte 13: length 9 of field 3 (XPlane.lines) runs past the end of its enclosing XPlane "
                            "message (which ends at byte 17)");
    sts_tl_free(tl);
    /* A known field with the wrong wire type. */
    b.v[14] = 0x02;
    b.v[15] = 0x0a; /* XLine.id as an empty length-delimited field */
    b.v[16] = 0x00;
    tl = read_mem(b.v, b.n, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_ERR_PARSE);
    T_CONTAINS(err.message, "byte 15: field 1 (XLine.id) has wire type 2 (length-delimited), expected varint");
    sts_tl_free(tl);
    free(b.v);
}

TEST(error_not_a_protobuf)
{
    const char *json = "{\"traceEvents\":[]}";
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(json, strlen(json), STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_ERR_PARSE);
    T_CONTAINS(err.message, "byte 0: field 15 in XSpace has wire type 3 (group start)");
    T_CONTAINS(err.message, "is this an XSpace .xplane.pb file?");
    sts_tl_free(tl);
}

TEST(empty_input_is_an_empty_space)
{
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem("", 0, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_OK);
    size_t nw;
    const char *const *w = sts_timeline_warnings(tl, &nw, NULL);
    T_EQ_U64(nw, 1);
    if (nw) T_CONTAINS(w[0], "holds no planes");
    sts_tl_free(tl);
}

TEST(deep_nesting_is_refused_not_recursed)
{
    /* 10,000 nested length-delimited field-1 messages: XSpace.planes, then XPlane.id
     * with the wrong wire type. */
    size_t depth = 10000, cap = depth * 4 + 16, n = 0;
    uint8_t *out = malloc(cap), *tmp = malloc(cap);
    for (size_t i = 0; i < depth; i++) {
        uint8_t hdr[12];
        hdr[0] = 0x0a;
        size_t h = 1 + sts_pb_encode_varint(hdr + 1, n);
        memcpy(tmp, hdr, h);
        memcpy(tmp + h, out, n);
        n += h;
        memcpy(out, tmp, n);
    }
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(out, n, STS_ARGS_ALL, &st, &err);
    T_EQ_I64(st, STS_ERR_PARSE);
    T_CONTAINS(err.message, "field 1 (XPlane.id) has wire type 2 (length-delimited), expected varint");
    sts_tl_free(tl);
    /* The same through lines -> events -> stats -> an unknown field 3 levels further:
     * XStat skips unknown fields without descending. */
    n = 0;
    for (size_t i = 0; i < depth; i++) {
        uint8_t hdr[12];
        hdr[0] = (uint8_t)(i < depth - 4    ? 0x42
                           : i == depth - 4 ? 0x22
                           : i == depth - 3 ? 0x22
                           : i == depth - 2 ? 0x1a
                                            : 0x0a);
        size_t h = 1 + sts_pb_encode_varint(hdr + 1, n);
        memcpy(tmp, hdr, h);
        memcpy(tmp + h, out, n);
        n += h;
        memcpy(out, tmp, n);
    }
    tl = read_mem(out, n, STS_ARGS_ALL, &st, &err);
    T_EQ_I64(st, STS_OK); /* field 8 of XStat is unknown: skipped whole */
    size_t ns;
    const sts_slice *s = sts_timeline_slices(tl, &ns);
    T_EQ_U64(ns, 1); /* an event without offset_ps starts with its line (proto3 default 0) */
    if (ns) T_EQ_I64(s[0].ts, 0);
    sts_tl_free(tl);
    free(out);
    free(tmp);
}

/* One event metadata with `nstats` stats, used by `nevents` events. */
static void space_amplify_n(sts_pb_writer *w, int nevents, int nstats)
{
    sts_pb_begin(w, 1);
    sts_pb_put_str(w, 2, "/host:CPU");
    sts_pb_begin(w, 3);
    sts_pb_put_int(w, 1, 1);
    for (int i = 0; i < nevents; i++) {
        sts_pb_begin(w, 4);
        event(w, 1, i, 0);
        sts_pb_end(w);
    }
    sts_pb_end(w);
    sts_pb_begin(w, 4);
    sts_pb_put_int(w, 1, 1);
    sts_pb_begin(w, 2);
    sts_pb_put_int(w, 1, 1);
    sts_pb_put_str(w, 2, "e");
    for (int i = 1; i <= nstats; i++) {
        sts_pb_begin(w, 5);
        sts_pb_put_uint(w, 1, (uint64_t)i);
        sts_pb_put_int(w, 4, i);
        sts_pb_end(w);
    }
    sts_pb_end(w);
    sts_pb_end(w);
    for (int i = 1; i <= nstats; i++) {
        char name[16];
        snprintf(name, sizeof name, "k%d", i);
        smeta(w, i, name);
    }
    sts_pb_end(w);
}

/* 1,100 stats used by 1,000 events: a 30 KB file that would copy 1.1 million args onto
 * events. */
static void space_amplify(sts_pb_writer *w)
{
    space_amplify_n(w, 1000, 1100);
}

/* The fuzz seed: the same shape, small enough that each run stays fast (the copies of
 * the big one make one fuzz iteration take seconds under the fuzzer's instrumentation). */
static void space_amplify_seed(sts_pb_writer *w)
{
    space_amplify_n(w, 40, 50);
}

TEST(metadata_stats_copies_are_bounded)
{
    buf b = build(space_amplify);
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_mem(b.v, b.n, STS_ARGS_ALL, &st, &err);
    T_EQ_I64(st, STS_OK);
    size_t ns, na, nw;
    sts_timeline_slices(tl, &ns);
    sts_timeline_args(tl, &na);
    T_EQ_U64(ns, 1000);
    T_TRUE(na <= b.n + (1u << 20));
    T_TRUE(na >= (1u << 20)); /* copied until the budget ran out */
    const char *const *w = sts_timeline_warnings(tl, &nw, NULL);
    T_EQ_U64(nw, 1);
    if (nw) T_CONTAINS(w[0], "exceed the input's size");
    sts_tl_free(tl);
    free(b.v);
}

/* Issue 34: N planes, each plane's pid checked against those of all the planes before
 * it one by one (200,000 planes took 13 s). */
enum { MANY_PLANES = 500000 };

static void space_many_planes(sts_pb_writer *w)
{
    char name[32];
    for (int k = 0; k < MANY_PLANES; k++) {
        sts_pb_begin(w, 1);
        snprintf(name, sizeof name, "/device:GPU:%d", k % 300000); /* pids from 200001 on taken twice */
        sts_pb_put_str(w, 2, name);
        sts_pb_begin(w, 3);
        sts_pb_put_int(w, 1, 1);
        sts_pb_put_int(w, 3, (int64_t)k * 1000);
        sts_pb_begin(w, 4);
        event(w, 1, 0, 1000000);
        sts_pb_end(w);
        sts_pb_end(w);
        emeta(w, 1, "kernel", NULL, 0);
        sts_pb_end(w);
    }
}

/* 500,000 planes: about two minutes that way, a second now. A plane's pid is its
 * device's ordinal + 1, and 1000 + its index where an earlier plane took that. */
TEST(half_a_million_planes)
{
    buf b = build(space_many_planes);
    sts_status st;
    sts_error err = STS_ERROR_INIT;
    sts_timeline *tl = read_mem(b.v, b.n, STS_ARGS_KNOWN, &st, &err);
    free(b.v);
    T_EQ_I64(st, STS_OK);
    size_t np;
    const sts_process *p = sts_timeline_processes(tl, &np);
    T_EQ_U64(np, MANY_PLANES);
    int ok = np == MANY_PLANES;
    for (size_t k = 0; ok && k < np; k++) {
        int64_t want = k < 300000 ? (int64_t)k + 1 : 1000 + (int64_t)k;
        if (p[k].pid != want) ok = 0;
    }
    T_TRUE(ok);
    sts_timeline_free(tl);
}

static void space_small(sts_pb_writer *w)
{
    space_rules(w);
    space_bad_line(w);
}

TEST(truncated_at_every_offset)
{
    buf b = build(space_small);
    int errors = 0, ok = 0, boundaries = 0;
    sts_pb_reader r;
    sts_pb_field f;
    sts_pb_reader_init(&r, b.v, b.n);
    while (sts_pb_next(&r, &f, NULL) > 0)
        boundaries++; /* cuts at 0 and after each field but the last */
    for (size_t cut = 0; cut < b.n; cut++) {
        uint8_t *copy = malloc(cut + 1); /* exact size: ASan sees any overread */
        memcpy(copy, b.v, cut);
        sts_status st;
        sts_error err;
        sts_timeline *tl = read_mem(copy, cut, STS_ARGS_ALL, &st, &err);
        if (st == STS_OK) {
            ok++;
        } else {
            errors++;
            if (!strstr(err.message, "mem.xplane.pb: byte "))
                T_FAIL_AT("cut %zu: unexpected message %s", cut, err.message);
            if (err.byte_offset < 0 || (size_t)err.byte_offset > cut)
                T_FAIL_AT("cut %zu: offset %lld", cut, (long long)err.byte_offset);
        }
        sts_tl_free(tl);
        free(copy);
    }
    /* Only cuts between top-level fields leave a (shorter) valid XSpace. */
    T_EQ_I64(boundaries, 8);
    T_EQ_I64(ok, boundaries);
    T_EQ_I64(errors, (int64_t)b.n - boundaries);
    free(b.v);
}

TEST(random_byte_flips_never_crash)
{
    buf b = build(space_small);
    uint64_t rng = 0x9e3779b97f4a7c15ull;
    int failures = 0;
    uint8_t *copy = malloc(b.n);
    for (int iter = 0; iter < 3000; iter++) {
        memcpy(copy, b.v, b.n);
        int flips = 1 + iter % 4;
        for (int k = 0; k < flips; k++) {
            rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
            copy[rng % b.n] ^= (uint8_t)(1u << (rng >> 32) % 8);
        }
        sts_status st;
        sts_error err;
        sts_timeline *tl = read_mem(copy, b.n, STS_ARGS_ALL, &st, &err);
        if (st != STS_OK) {
            failures++;
            if (!strstr(err.message, "byte "))
                T_FAIL_AT("iteration %d: message without a position: %s", iter, err.message);
        }
        sts_tl_free(tl);
    }
    T_TRUE(failures > 100); /* most flips break something; all are reported */
    free(copy);
    free(b.v);
}

/* ---- reading from a stream ---- */

/* The reader on a FILE* over the bytes: a stream whose size is not known in advance
 * (fmemopen has no file size), as a pipe is. */
static sts_timeline *read_unsized(const void *p, size_t n, sts_status *st, sts_error *err)
{
    sts_timeline *tl = sts_tl_new("mem.xplane.pb", "xplane", STS_ARGS_ALL);
    sts_error_clear(err);
    FILE *f = fmemopen((void *)(uintptr_t)(n ? p : ""), n ? n : 1, "rb");
    if (!f) abort();
    if (n == 0) fgetc(f); /* an empty stream */
    sts_instream *in = sts_instream_open_file(f, "mem.xplane.pb", err);
    T_TRUE(in != NULL);
    T_EQ_U64(sts_instream_raw_size(in), 0);
    *st = sts_read_xplane(in, tl, NULL, err);
    sts_instream_free(in);
    fclose(f);
    return tl;
}

TEST(stream_of_unknown_size_fails_like_a_file)
{
    /* A file cut anywhere gives the same status, offset and message whether its size
     * was known before reading (a file) or found at its end (a pipe). */
    buf b = build(space_small);
    int errors = 0;
    for (size_t cut = 0; cut <= b.n; cut++) {
        sts_status st1, st2;
        sts_error e1, e2;
        sts_timeline *t1 = read_mem(b.v, cut, STS_ARGS_ALL, &st1, &e1);
        sts_timeline *t2 = read_unsized(b.v, cut, &st2, &e2);
        if (st1 != st2 || strcmp(e1.message, e2.message) != 0 || e1.byte_offset != e2.byte_offset)
            T_FAIL_AT("cut %zu: %s (%lld) vs %s (%lld)", cut, e1.message, (long long)e1.byte_offset, e2.message,
                      (long long)e2.byte_offset);
        size_t n1, n2;
        sts_timeline_slices(t1, &n1);
        sts_timeline_slices(t2, &n2);
        T_EQ_U64(n1, n2);
        errors += st1 != STS_OK;
        sts_tl_free(t1);
        sts_tl_free(t2);
    }
    T_TRUE(errors > 100);
    free(b.v);
}

/* The same plane twice: fields in number order (as every protobuf library writes
 * them), and shuffled (metadata first, names last, an event's fields reversed). */
static void plane_ordered(sts_pb_writer *w, int shuffled)
{
    sts_pb_begin(w, 1);
    if (shuffled) {
        smeta(w, 2, "correlation_id");
        emeta(w, 2, "op", NULL, 0);
    } else {
        sts_pb_put_str(w, 2, "/host:CPU");
    }
    sts_pb_begin(w, 3);
    if (shuffled) {
        sts_pb_put_str(w, 11, "T");
    } else {
        sts_pb_put_int(w, 1, 5);
        sts_pb_put_str(w, 2, "t");
        sts_pb_put_int(w, 3, 1000);
    }
    sts_pb_begin(w, 4);
    if (shuffled) {
        stat_int(w, 1, 7);
        sts_pb_put_int(w, 3, 3000);
        sts_pb_put_int(w, 2, 2000);
        sts_pb_put_uint(w, 1, 1);
    } else {
        event(w, 1, 2000, 3000);
        stat_int(w, 1, 7);
    }
    sts_pb_end(w);
    sts_pb_begin(w, 4);
    event(w, 2, 10000, 500);
    sts_pb_end(w);
    if (shuffled) {
        sts_pb_put_int(w, 3, 1000);
        sts_pb_put_str(w, 2, "t");
        sts_pb_put_int(w, 1, 5);
    } else {
        sts_pb_put_str(w, 11, "T");
    }
    sts_pb_end(w);
    if (shuffled) {
        smeta(w, 1, "step_num");
        emeta(w, 1, "step", NULL, 2);
        sts_pb_put_str(w, 2, "/host:CPU");
    } else {
        emeta(w, 1, "step", NULL, 2);
        emeta(w, 2, "op", NULL, 0);
        smeta(w, 1, "step_num");
        smeta(w, 2, "correlation_id");
    }
    sts_pb_end(w);
}

static void space_canonical(sts_pb_writer *w)
{
    plane_ordered(w, 0);
}
static void space_shuffled(sts_pb_writer *w)
{
    plane_ordered(w, 1);
}

TEST(field_order_does_not_matter)
{
    buf a = build(space_canonical), b = build(space_shuffled);
    T_TRUE(a.n == b.n && memcmp(a.v, b.v, a.n) != 0);
    sts_status st;
    sts_error err;
    sts_timeline *ta = read_mem(a.v, a.n, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_OK);
    sts_timeline *tb = read_mem(b.v, b.n, STS_ARGS_KNOWN, &st, &err);
    T_EQ_I64(st, STS_OK);
    size_t na, nb;
    const sts_slice *sa = sts_timeline_slices(ta, &na), *sb = sts_timeline_slices(tb, &nb);
    T_EQ_U64(na, 2);
    T_EQ_U64(nb, 2);
    for (size_t i = 0; i < na && i < nb; i++) {
        T_EQ_I64(sa[i].ts, sb[i].ts);
        T_EQ_I64(sa[i].dur, sb[i].dur);
        T_EQ_STR(S(ta, sa[i].name), S(tb, sb[i].name));
        const sts_lane *la = sts_timeline_lanes(ta, NULL) + sa[i].lane, *lb = sts_timeline_lanes(tb, NULL) + sb[i].lane;
        T_EQ_I64(la->tid, lb->tid);
        T_EQ_STR(S(ta, la->name), S(tb, lb->name));
        const char *keys[] = { "step_num", "correlation_id" };
        for (int k = 0; k < 2; k++) {
            const sts_arg *x = arg(ta, &sa[i], keys[k]), *y = arg(tb, &sb[i], keys[k]);
            T_TRUE((x == NULL) == (y == NULL));
            if (x && y) T_EQ_I64(x->v.i, y->v.i);
        }
    }
    const sts_slice *step = find_slice(tb, "step");
    T_TRUE(step != NULL);
    if (step) {
        T_EQ_I64(step->ts, 1002); /* 1000 ns + 2000 ps */
        T_EQ_I64(step->dur, 3);
        T_EQ_I64(arg(tb, step, "step_num")->v.i, 7);
        T_EQ_I64(arg(tb, step, "correlation_id")->v.i, 99); /* from its metadata */
        T_EQ_STR(S(tb, sts_timeline_lanes(tb, NULL)[step->lane].name), "T");
    }
    T_EQ_STR(S(tb, sts_timeline_processes(tb, NULL)[0].name), "/host:CPU");
    sts_tl_free(ta);
    sts_tl_free(tb);
    free(a.v);
    free(b.v);
}

/* ---- events read again from the input, or held ---- */

/* A random space for the two ways of reading a plane's events (read/xplane.c): planes
 * of several lines, one of them longer than the stream's 256 KB window, events with
 * and without metadata, own stats and metadata stats, lines with their headers after
 * their events, planes without lines. The seed is set before each build. */
static uint64_t space_seed;

static uint64_t space_rand(void)
{
    space_seed ^= space_seed << 13;
    space_seed ^= space_seed >> 7;
    space_seed ^= space_seed << 17;
    return space_seed;
}

static void random_line(sts_pb_writer *w, int64_t id, int nevents)
{
    int late = space_rand() % 3 == 0; /* header after the events */
    sts_pb_begin(w, 3);
    if (!late) {
        sts_pb_put_int(w, 1, id);
        sts_pb_put_int(w, 3, 1000 + (int64_t)(space_rand() % 5000));
    }
    for (int i = 0; i < nevents; i++) {
        sts_pb_begin(w, 4);
        event(w, 1 + space_rand() % 6, (int64_t)(space_rand() % 100000000), (int64_t)(space_rand() % 3000000));
        if (space_rand() % 2) stat_int(w, 1 + space_rand() % 3, (int64_t)(space_rand() % 1000));
        sts_pb_end(w);
    }
    if (late) {
        sts_pb_put_str(w, 2, "late");
        sts_pb_put_int(w, 3, 777);
        sts_pb_put_int(w, 1, id);
    }
    sts_pb_end(w);
}

static void space_random(sts_pb_writer *w)
{
    static const char *const planes[] = { "/host:CPU", "/device:GPU:0", "/host:metadata", "/device:TPU:1" };
    uint64_t seed = space_seed;
    for (int p = 0; p < 4; p++) {
        sts_pb_begin(w, 1);
        sts_pb_put_str(w, 2, planes[p]);
        if (p != 2)
            for (int l = 0; l < 3; l++)
                random_line(w, l + 1, p == 0 && l == 1 ? 30000 : (int)(space_rand() % 200));
        for (int m = 1; m <= 5; m++) { /* metadata 6 is missing */
            char name[16];
            snprintf(name, sizeof name, "op%d", m);
            emeta(w, m, name, m == 2 ? "shown" : NULL, m % 2 ? 2 : 0);
        }
        smeta(w, 1, "step_num");
        smeta(w, 2, "correlation_id");
        smeta(w, 3, "flops");
        sts_pb_end(w);
    }
    space_seed = seed; /* the second writer pass writes the same */
}

/* The bytes written to `path`, gzip-compressed with `gz`. */
static void write_bytes(const char *path, const uint8_t *p, size_t n, int gz)
{
    if (gz) {
        gzFile g = gzopen(path, "wb");
        gzwrite(g, p, (unsigned)n);
        gzclose(g);
        return;
    }
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(p, 1, n, f) != n) abort();
    fclose(f);
}

/* Read again from memory and from a file (pread), and held from a pipe-like stream and
 * a gzip file of the same name: the same status and message, and read whole, the same
 * raw timeline, for random spaces. */
TEST(events_read_again_or_held_read_alike)
{
    char path[] = "/tmp/sts_test_xplane_again_XXXXXX";
    int fd = mkstemp(path);
    T_TRUE(fd >= 0);
    if (fd < 0) return;
    close(fd);
    for (int t = 0; t < 6; t++) {
        space_seed = 0x9e3779b97f4a7c15ull * (uint64_t)(t + 1);
        buf b = build(space_random);
        T_TRUE(b.n > (300u << 10));
        size_t cuts[] = { b.n, b.n / 2, b.n - 3 };
        for (int c = 0; c < (t ? 1 : 3); c++) {
            size_t n = cuts[c];
            sts_status st[4];
            sts_error err[4];
            sts_timeline *tl[4];
            tl[0] = read_mem(b.v, n, STS_ARGS_ALL, &st[0], &err[0]);
            tl[1] = read_unsized(b.v, n, &st[1], &err[1]);
            for (int k = 2; k < 4; k++) {
                write_bytes(path, b.v, n, k == 3);
                tl[k] = sts_tl_new(path, "xplane", STS_ARGS_ALL);
                sts_error_clear(&err[k]);
                sts_open_options opt = STS_OPEN_OPTIONS_INIT;
                opt.args = STS_ARGS_ALL;
                st[k] = read_path(path, tl[k], &opt, &err[k]);
            }
            if (c == 0) {
                T_EQ_I64(st[0], STS_OK);
                size_t ns;
                sts_timeline_slices(tl[0], &ns);
                T_TRUE(ns > 30000);
                T_EQ_I64(tl[3]->info.compressed, 1);
                tl[3]->info.compressed = 0;
                const char *why = tl_same(tl[0], tl[1]);
                if (why) T_FAIL_AT("space %d: memory and stream: %s", t, why);
                if ((why = tl_same(tl[2], tl[3]))) T_FAIL_AT("space %d: file and gzip file: %s", t, why);
            } else {
                T_TRUE(st[0] != STS_OK);
            }
            static const char *const how[4] = { "memory", "stream", "file", "gzip file" };
            for (int k = 1; k < 4; k++) {
                if (st[k] != st[0]) T_FAIL_AT("space %d cut %d: %s status %d, memory %d", t, c, how[k], st[k], st[0]);
                /* the files' messages name their path: compare what follows it */
                const char *m0 = strstr(err[0].message, ": "), *mk = strstr(err[k].message, ": ");
                if (st[0] != STS_OK && (!m0 || !mk || strcmp(m0, mk) != 0 || err[0].byte_offset != err[k].byte_offset))
                    T_FAIL_AT("space %d cut %d: %s says %s, memory %s", t, c, how[k], err[k].message, err[0].message);
            }
            for (int k = 0; k < 4; k++)
                sts_tl_free(tl[k]);
        }
        free(b.v);
    }
    unlink(path);
}

/* A plane whose length (2^64 - 5) puts its end past 2^64, then bytes that read as
 * fields (found by fuzz_xplane comparing the two ways of reading). A stream of unknown
 * size took it, its end wrapped to below its start: an empty plane, and the bytes
 * after it read as more planes. It is refused as running past the end of the file,
 * in the same words whether the size was known in advance or not. */
#define PAST_ANY_END "\x0a\xfb\xff\xff\xff\xff\xff\xff\xff\xff\x01\x22\x07\x08\x00\x40\x73\x0b\x4d\x74"

TEST(a_length_past_any_end_is_refused_on_a_stream)
{
    sts_status st1, st2;
    sts_error e1, e2;
    size_t n = sizeof PAST_ANY_END - 1;
    sts_timeline *t1 = read_mem(PAST_ANY_END, n, STS_ARGS_ALL, &st1, &e1);
    sts_timeline *t2 = read_unsized(PAST_ANY_END, n, &st2, &e2);
    T_EQ_I64(st1, STS_ERR_TRUNCATED);
    T_EQ_I64(st2, STS_ERR_TRUNCATED);
    T_EQ_STR(e2.message, e1.message);
    T_EQ_I64(e2.byte_offset, 0);
    T_CONTAINS(e2.message, "length 18446744073709551611 of field 1 (XSpace.planes) runs past the end of the file "
                           "(size 20): 9 bytes remain");
    sts_tl_free(t1);
    sts_tl_free(t2);
}

TEST(an_oversized_event_is_refused_unread)
{
    /* A plane holding a line holding an XEvent of 20 MiB, of which only the headers
     * exist: refused at its length, before a byte of it is read or allocated. */
    uint8_t hdr[64];
    size_t n = 0, ev = 20u << 20;
    size_t line = 1 + sts_pb_varint_size(ev) + ev, plane = 1 + sts_pb_varint_size(line) + line;
    hdr[n++] = 0x0a;
    n += sts_pb_encode_varint(hdr + n, plane);
    hdr[n++] = 0x1a;
    n += sts_pb_encode_varint(hdr + n, line);
    hdr[n++] = 0x22;
    size_t ev_at = n - 1;
    n += sts_pb_encode_varint(hdr + n, ev);
    sts_status st;
    sts_error err;
    sts_timeline *tl = read_unsized(hdr, n, &st, &err);
    T_EQ_I64(st, STS_ERR_LIMIT);
    T_EQ_I64(err.byte_offset, ev_at);
    T_CONTAINS(err.message, "field 4 (XLine.events) is 20971520 bytes long; this reader takes at most 16 MiB");
    sts_tl_free(tl);
}

TEST(non_protobuf_is_refused_at_once)
{
    /* 64 MiB of zeros, then a plane whose payload is zeros: each fails at its first
     * byte, having read no more than the stream's first window. */
    size_t big = 64u << 20;
    uint8_t *z = calloc(big, 1);
    z[0] = 0x0a; /* second case: XSpace.planes, length 0x80 0x80 0x80 0x10 (32 MiB) */
    for (int k = 0; k < 2; k++) {
        const uint8_t *p = k ? z : z + 8;
        if (k) memcpy(z, "\x0a\x80\x80\x80\x10", 5);
        sts_error err = STS_ERROR_INIT;
        sts_instream *in = sts_instream_open_mem_plain(p, big - 8, "zeros", &err);
        sts_timeline *tl = sts_tl_new("zeros", "xplane", STS_ARGS_KNOWN);
        T_EQ_I64(sts_read_xplane(in, tl, NULL, &err), STS_ERR_PARSE);
        T_EQ_I64(err.byte_offset, k ? 5 : 0);
        T_CONTAINS(err.message, k ? "field number 0 in XPlane" : "field number 0 in XSpace");
        T_TRUE(sts_instream_offset(in) <= (1u << 20));
        sts_instream_free(in);
        sts_tl_free(tl);
    }
    free(z);
}

/* ---- the real JAX fixtures against protoc ---- */

typedef struct summary_line {
    char plane[128];
    int64_t id;
    char name[256];
    long long n, total, first;
} summary_line;

/* Runs the independent summary; returns the number of records read, -1 when the
 * tools are missing. */
static int protoc_summary(const char *path, FILE **out)
{
    if (system("command -v protoc >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1") != 0) return -1;
    char cmd[2200];
    snprintf(cmd, sizeof cmd, "python3 tests/cli/xplane_protoc_summary.py '%s'", path);
    *out = popen(cmd, "r");
    return *out ? 0 : -1;
}

static void check_fixture(const char *file, size_t want_planes)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures: $STEPSCOPE_FIXTURES or ../shared/fixtures (see docs/fixtures.md)");
    char path[2048];
    if (snprintf(path, sizeof path, "%s/traces/jax/%s", fx, (const char *)file) >= (int)sizeof path)
        T_SKIP("path too long");
    if (access(path, R_OK) != 0) T_SKIP("%s missing", path);
    FILE *sum;
    if (protoc_summary(path, &sum) != 0) T_SKIP("protoc or python3 missing");
    sts_timeline *tl = sts_tl_new(path, "xplane", STS_ARGS_ALL);
    sts_error err = STS_ERROR_INIT;
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = STS_ARGS_ALL;
    T_EQ_I64(read_path(path, tl, &opt, &err), STS_OK);
    size_t np, nl, ns, na;
    sts_timeline_processes(tl, &np);
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, &ns);
    const sts_arg *args = sts_timeline_args(tl, &na);
    char line[1024];
    size_t lines_seen = 0, records = 0;
    while (fgets(line, sizeof line, sum)) {
        line[strcspn(line, "\n")] = 0;
        char *f[8] = { 0 };
        int nf = 0;
        for (char *tok = strtok(line, "\t"); tok && nf < 8; tok = strtok(NULL, "\t"))
            f[nf++] = tok;
        records++;
        if (strcmp(f[0], "planes") == 0) {
            T_EQ_U64(np, strtoull(f[1], NULL, 10));
            T_EQ_U64(np, want_planes);
        } else if (strcmp(f[0], "line") == 0 && nf == 7) {
            lines_seen++;
            const sts_lane *l = find_lane(tl, f[1], strtoll(f[2], NULL, 10));
            if (!l) {
                T_FAIL_AT("no lane for plane %s line %s", f[1], f[2]);
                continue;
            }
            T_EQ_STR(S(tl, l->name), f[3]);
            T_EQ_I64(l->kind, strncmp(f[1], "/device:", 8) == 0 ? STS_LANE_DEVICE : STS_LANE_THREAD);
            long long cnt = 0, total = 0, first = INT64_MAX;
            uint32_t li = (uint32_t)(l - lanes);
            for (size_t i = 0; i < ns; i++) {
                if (s[i].lane != li) continue;
                cnt++;
                total += s[i].dur;
                if (s[i].ts < first) first = s[i].ts;
            }
            T_EQ_I64(cnt, strtoll(f[4], NULL, 10));
            T_EQ_I64(total, strtoll(f[5], NULL, 10)); /* kernel time per device stream */
            if (cnt) T_EQ_I64(first, strtoll(f[6], NULL, 10));
        } else if (strcmp(f[0], "events") == 0) {
            T_EQ_U64(ns, strtoull(f[1], NULL, 10));
            T_EQ_U64(tl->info.skipped, strtoull(f[2], NULL, 10));
        } else if (strcmp(f[0], "top") == 0 && nf == 3) {
            uint32_t id = sts_timeline_find_string(tl, f[1]);
            long long cnt = 0;
            for (size_t i = 0; i < ns; i++)
                cnt += s[i].name == id;
            T_EQ_I64(cnt, strtoll(f[2], NULL, 10));
        } else if (strcmp(f[0], "stat") == 0 && nf == 3 &&
                   (strcmp(f[1], "correlation_id") == 0 || strcmp(f[1], "group_id") == 0)) {
            uint32_t id = sts_timeline_find_string(tl, f[1]);
            long long cnt = 0;
            for (size_t i = 0; i < na; i++)
                cnt += args[i].key == id;
            T_EQ_I64(cnt, strtoll(f[2], NULL, 10));
        }
    }
    T_EQ_I64(pclose(sum), 0);
    T_EQ_U64(lines_seen, nl);
    T_TRUE(records > 10);
    sts_tl_free(tl);
}

TEST(fixture_conv_mi300_8gpu_matches_protoc)
{
    check_fixture("conv_mi300_8gpu.xplane.pb", 9);
}
TEST(fixture_te_fused_attn_matches_protoc)
{
    check_fixture("te_fused_attn.xplane.pb", 2);
}

/* With STS_WRITE_FUZZ_SEEDS=DIR, saves the hand-built XSpaces as fuzz seeds. */
static void save_seed(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "wb");
    if (!f) return;
    fwrite(p, 1, n, f);
    fclose(f);
}

static void write_seeds(void)
{
    const char *dir = getenv("STS_WRITE_FUZZ_SEEDS");
    if (!dir) return;
    buf b = build(space_rules);
    save_seed(dir, "hand_rules.pb", b.v, b.n);
    free(b.v);
    b = build(space_bad_line);
    save_seed(dir, "hand_line.pb", b.v, b.n);
    b.v[14] = 0x09; /* the line's length runs past its plane */
    save_seed(dir, "hand_line_overrun.pb", b.v, b.n);
    free(b.v);
    uint8_t deep[64 * 3];
    size_t n = 0;
    for (int i = 0; i < 64; i++) { /* 64 nested planes fields */
        memmove(deep + 2, deep, n);
        deep[0] = 0x0a;
        deep[1] = (uint8_t)n;
        n += 2;
    }
    save_seed(dir, "hand_deep.pb", deep, n);
    save_seed(dir, "hand_json.pb", "{\"traceEvents\":[]}", 18);
    b = build(space_shuffled); /* fields out of number order */
    save_seed(dir, "hand_shuffled.pb", b.v, b.n);
    free(b.v);
    b = build(space_amplify_seed); /* metadata stats copied onto many events */
    save_seed(dir, "hand_amplify.pb", b.v, b.n);
    free(b.v);
    save_seed(dir, "hand_zero_plane.pb", "\x0a\x04\x00\x00\x00\x00", 6);
    save_seed(dir, "hand_big_event.pb", "\x0a\x8a\x80\x80\x0a\x1a\x85\x80\x80\x0a\x22\x80\x80\x80\x0a", 15);
    save_seed(dir, "hand_length_past_any_end.pb", PAST_ANY_END, sizeof PAST_ANY_END - 1);
}

int main(void)
{
    write_seeds();
    RUN(encoder_known_bytes);
    RUN(encoder_repairs_strings_that_are_not_utf8);
    RUN(encoder_nested_sizes);
    RUN(encoder_detects_misuse);
    RUN(varint_round_trip);
    RUN(decoder_faults);
    RUN(reader_mapping_rules);
    RUN(reader_pid_fallback_is_checked_again);
    RUN(reader_args_modes);
    RUN(reader_gzip_file);
    RUN(error_length_past_end_of_file);
    RUN(error_names_field_and_enclosing_message);
    RUN(error_not_a_protobuf);
    RUN(empty_input_is_an_empty_space);
    RUN(deep_nesting_is_refused_not_recursed);
    RUN(truncated_at_every_offset);
    RUN(random_byte_flips_never_crash);
    RUN(stream_of_unknown_size_fails_like_a_file);
    RUN(field_order_does_not_matter);
    RUN(events_read_again_or_held_read_alike);
    RUN(a_length_past_any_end_is_refused_on_a_stream);
    RUN(an_oversized_event_is_refused_unread);
    RUN(non_protobuf_is_refused_at_once);
    RUN(metadata_stats_copies_are_bounded);
    RUN(half_a_million_planes);
    RUN(fixture_conv_mi300_8gpu_matches_protoc);
    RUN(fixture_te_fused_attn_matches_protoc);
    return t_done();
}
