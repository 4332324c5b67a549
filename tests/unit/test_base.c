#include "test.h"

#include <errno.h>
#include <unistd.h>
#include <zlib.h>

#include "base/instream.h"
#include "base/json_dom.h"
#include "base/jsontext.h"
#include "base/mem.h"
#include "base/pb.h"
#include "base/pbstream.h"
#include "base/sbuf.h"
#include "base/search.h"
#include "base/threads.h"
#include "base/utf8.h"
#include "ref_duration.h"
#include "stepscope.h"

TEST(status_names)
{
    T_EQ_STR(sts_status_name(STS_OK), "STS_OK");
    T_EQ_STR(sts_status_name(STS_ERR_PARSE), "STS_ERR_PARSE");
    T_EQ_STR(sts_status_name((sts_status)9999), "STS_UNKNOWN");
    T_EQ_STR(sts_strerror(STS_ERR_TRUNCATED), "input ends before it is complete");
    sts_error e = STS_ERROR_INIT;
    T_EQ_I64(sts_error_set(&e, STS_ERR_IO, 12, "f.json: %s", "bad"), STS_ERR_IO);
    T_EQ_STR(e.message, "f.json: bad");
    T_EQ_I64(e.byte_offset, 12);
    sts_error_clear(&e);
    T_EQ_I64(e.code, STS_OK);
    T_EQ_I64(sts_error_set(NULL, STS_ERR_IO, 0, "x"), STS_ERR_IO);
}

TEST(version)
{
    char buf[32];
    snprintf(buf, sizeof buf, "%d.%d.%d", STS_VERSION_MAJOR, STS_VERSION_MINOR, STS_VERSION_PATCH);
    T_EQ_STR(sts_version(), buf);
    T_EQ_U64(sts_version_number(), STS_VERSION_NUMBER);
}

TEST(strtab)
{
    sts_strtab t;
    T_EQ_I64(sts_strtab_init(&t), 0);
    T_EQ_U64(sts_strtab_intern(&t, "", 0), 0);
    uint32_t a = sts_strtab_intern(&t, "alpha", 5);
    uint32_t b = sts_strtab_intern(&t, "beta", 4);
    T_TRUE(a != b);
    T_EQ_U64(sts_strtab_intern(&t, "alpha", 5), a);
    T_EQ_STR(sts_strtab_get(&t, b), "beta");
    /* Enough strings to force several rehashes. */
    char buf[32];
    for (int i = 0; i < 20000; i++) {
        int n = snprintf(buf, sizeof buf, "name-%d", i);
        sts_strtab_intern(&t, buf, (size_t)n);
    }
    T_EQ_U64(t.count, 20003);
    T_EQ_U64(sts_strtab_find(&t, "name-19999", 10), 20002);
    T_EQ_U64(sts_strtab_find(&t, "missing", 7), UINT32_MAX);
    /* Embedded NUL bytes are part of the string. */
    uint32_t z = sts_strtab_intern(&t, "a\0b", 3);
    T_TRUE(z != sts_strtab_intern(&t, "a", 1));
    T_EQ_U64(sts_strtab_len(&t, z), 3);
    sts_strtab_release(&t);
}

/* Interning many strings at once gives the ids one call per string gives: batches of
 * every size up to 40, mixing strings the table holds, new ones and repeats within a
 * batch, across the table's growth. */
TEST(strtab_intern_many)
{
    sts_strtab one, many;
    T_EQ_I64(sts_strtab_init(&one), 0);
    T_EQ_I64(sts_strtab_init(&many), 0);
    char text[64][16];
    const char *strs[64];
    uint32_t lens[64], ids[64];
    uint64_t x = 88172645463325252ull;
    for (int round = 0; round < 4000; round++) {
        uint32_t count = (uint32_t)(round % 41);
        for (uint32_t k = 0; k < count; k++) {
            x ^= x << 13, x ^= x >> 7, x ^= x << 17;
            int len = snprintf(text[k], sizeof text[k], "s%llu", (unsigned long long)(x % (uint64_t)(round * 8 + 16)));
            strs[k] = text[k];
            lens[k] = (uint32_t)len;
        }
        T_EQ_I64(sts_strtab_intern_many(&many, strs, lens, count, ids), 0);
        for (uint32_t k = 0; k < count; k++)
            T_EQ_U64(ids[k], sts_strtab_intern(&one, strs[k], lens[k]));
    }
    T_EQ_U64(many.count, one.count);
    T_TRUE(one.count > 20000);
    for (uint32_t id = 0; id < many.count; id++) {
        T_EQ_STR(sts_strtab_get(&many, id), sts_strtab_get(&one, id));
        T_EQ_U64(sts_strtab_find(&many, sts_strtab_get(&one, id), sts_strtab_len(&one, id)), id);
    }
    sts_strtab_release(&one);
    sts_strtab_release(&many);
}

TEST(u64map)
{
    sts_u64map m = STS_U64MAP_INIT;
    T_EQ_U64(sts_u64map_get(&m, 5), UINT32_MAX);
    for (uint64_t k = 1; k <= 5000; k++)
        T_EQ_I64(sts_u64map_put(&m, k * 7919, (uint32_t)k), 0);
    T_EQ_U64(sts_u64map_get(&m, 7919 * 4321), 4321);
    sts_u64map_put(&m, 7919, 99);
    T_EQ_U64(sts_u64map_get(&m, 7919), 99);
    T_EQ_U64(m.count, 5000);
    sts_u64map_release(&m);
}

/* put_new keeps the first value of a key, across the table's growth. */
TEST(u64map_put_new_keeps_the_first)
{
    sts_u64map m = STS_U64MAP_INIT;
    for (uint64_t k = 1; k <= 3000; k++)
        T_EQ_I64(sts_u64map_put_new(&m, k * 7919, (uint32_t)k), 0);
    for (uint64_t k = 1; k <= 3000; k += 7)
        T_EQ_I64(sts_u64map_put_new(&m, k * 7919, 7), 1);
    for (uint64_t k = 1; k <= 3000; k++)
        T_EQ_U64(sts_u64map_get(&m, k * 7919), k);
    T_EQ_U64(m.count, 3000);
    sts_u64map_release(&m);
}

static const char *tmp_path(const char *name)
{
    static char buf[4][256];
    static int k;
    k = (k + 1) % 4;
    const char *dir = getenv("TMPDIR");
    snprintf(buf[k], sizeof buf[k], "%s/sts_test_%d_%s", dir ? dir : "/tmp", (int)getpid(), name);
    return buf[k];
}

TEST(instream_plain_and_gzip)
{
    const char *plain = tmp_path("plain.txt"), *gz = tmp_path("data.gz");
    FILE *f = fopen(plain, "wb");
    for (int i = 0; i < 100000; i++)
        fprintf(f, "line %d\n", i);
    fclose(f);
    gzFile g = gzopen(gz, "wb");
    for (int i = 0; i < 100000; i++)
        gzprintf(g, "line %d\n", i);
    gzclose(g);

    char *a, *b;
    size_t na, nb;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_read_file(plain, &a, &na, &err), STS_OK);
    T_EQ_I64(sts_read_file(gz, &b, &nb, &err), STS_OK);
    T_EQ_U64(na, nb);
    T_TRUE(na == nb && memcmp(a, b, na) == 0);
    free(a);
    free(b);

    /* A gzip file cut in half is reported as truncated, not silently shortened. */
    FILE *in = fopen(gz, "rb");
    fseek(in, 0, SEEK_END);
    long size = ftell(in);
    fseek(in, 0, SEEK_SET);
    char *raw = malloc((size_t)size);
    T_EQ_U64(fread(raw, 1, (size_t)size, in), size);
    fclose(in);
    const char *cut = tmp_path("cut.gz");
    f = fopen(cut, "wb");
    fwrite(raw, 1, (size_t)size / 2, f);
    fclose(f);
    free(raw);
    T_EQ_I64(sts_read_file(cut, &a, &na, &err), STS_ERR_TRUNCATED);
    T_CONTAINS(err.message, cut);
    T_CONTAINS(err.message, "truncated");

    T_EQ_I64(sts_read_file(tmp_path("does-not-exist"), &a, &na, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "cannot open");
    remove(plain);
    remove(gz);
    remove(cut);
}

/* gzip of n bytes, in memory (the caller frees *out). */
static size_t gzip_mem(const void *data, size_t n, uint8_t **out)
{
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    size_t cap = deflateBound(&z, (uLong)n) + 64;
    *out = malloc(cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    z.next_out = *out;
    z.avail_out = (uInt)cap;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
    size_t len = cap - z.avail_out;
    deflateEnd(&z);
    return len;
}

/* Reads everything left in the stream, in reads of `chunk` bytes. */
static size_t drain(sts_instream *in, uint8_t *out, size_t cap, size_t chunk, sts_status *st, sts_error *err)
{
    size_t n = 0;
    *st = STS_OK;
    for (;;) {
        long got = sts_instream_read(in, out + n, n + chunk <= cap ? chunk : cap - n, err);
        if (got < 0) {
            *st = err->code;
            break;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    return n;
}

TEST(instream_peek_then_read)
{
    size_t n = 300000;
    uint8_t *data = malloc(n), *back = malloc(n + 16), *gz;
    for (size_t i = 0; i < n; i++)
        data[i] = (uint8_t)(i * 7 + i / 300);
    size_t gzn = gzip_mem(data, n, &gz);
    for (int compressed = 0; compressed < 2; compressed++) {
        sts_error err = STS_ERROR_INIT;
        sts_instream *in =
            compressed ? sts_instream_open_mem(gz, gzn, "g", &err) : sts_instream_open_mem(data, n, "p", &err);
        T_TRUE(in != NULL);
        T_EQ_I64(sts_instream_is_gzip(in), compressed);
        const unsigned char *p;
        T_EQ_I64(sts_instream_peek(in, 10, &p, &err), 10);
        T_TRUE(memcmp(p, data, 10) == 0);
        T_EQ_I64(sts_instream_peek(in, 70000, &p, &err), 70000); /* a longer look, from the same start */
        T_TRUE(memcmp(p, data, 70000) == 0);
        T_EQ_U64(sts_instream_offset(in), 0); /* peeking consumes nothing */
        T_EQ_I64(sts_instream_read(in, back, 5, &err), 5);
        T_EQ_I64(sts_instream_peek(in, 100, &p, &err), 100); /* from where reading stands */
        T_TRUE(memcmp(p, data + 5, 100) == 0);
        sts_status st;
        size_t got = 5 + drain(in, back + 5, n + 11, 4096, &st, &err);
        T_EQ_I64(st, STS_OK);
        T_EQ_U64(got, n);
        T_TRUE(got == n && memcmp(back, data, n) == 0);
        T_EQ_U64(sts_instream_offset(in), n);
        T_EQ_I64(sts_instream_peek(in, 10, &p, &err), 0); /* the end, seen again */
        sts_instream_free(in);
    }
    /* A gzip stream cut short: peeking shows what came; the error waits for the read
     * that reaches it. */
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_mem(gz, gzn / 2, "cut.gz", &err);
    const unsigned char *p;
    long seen = sts_instream_peek(in, STS_INSTREAM_MAX_PEEK, &p, &err);
    T_TRUE(seen > 0 && seen < (long)n);
    T_TRUE(seen > 0 && memcmp(p, data, (size_t)seen) == 0);
    sts_status st;
    size_t got = drain(in, back, n + 16, 1 << 20, &st, &err);
    T_EQ_U64(got, seen);
    T_EQ_I64(st, STS_ERR_TRUNCATED);
    T_CONTAINS(err.message, "cut.gz: gzip stream is truncated");
    sts_instream_free(in);
    free(data);
    free(back);
    free(gz);
}

TEST(instream_from_a_pipe)
{
    int fds[2];
    T_EQ_I64(pipe(fds), 0);
    static const char text[] = "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1,\"dur\":2}]";
    T_EQ_I64(write(fds[1], text, sizeof text - 1), sizeof text - 1);
    close(fds[1]);
    FILE *f = fdopen(fds[0], "rb");
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_file(f, "pipe", &err);
    T_TRUE(in != NULL);
    T_EQ_U64(sts_instream_raw_size(in), 0); /* a pipe's size is unknown */
    const unsigned char *p;
    T_EQ_I64(sts_instream_peek(in, 4096, &p, &err), sizeof text - 1);
    uint8_t back[128];
    sts_status st;
    T_EQ_U64(drain(in, back, sizeof back, 7, &st, &err), sizeof text - 1);
    T_TRUE(memcmp(back, text, sizeof text - 1) == 0);
    sts_instream_free(in); /* leaves the FILE open */
    T_EQ_I64(fclose(f), 0);
}

/* A message of `n` fields of every wire type, LEN payloads up to 600 KB (bigger than
 * the stream's window). */
static size_t pb_sample(uint8_t *out, int n)
{
    size_t k = 0;
    for (int i = 0; i < n; i++) {
        unsigned wire = (unsigned[]){ 0, 1, 2, 5 }[i % 4];
        k += sts_pb_encode_varint(out + k, (uint64_t)(i % 50 + 1) << 3 | wire);
        if (wire == 0) k += sts_pb_encode_varint(out + k, (uint64_t)i * 0x9e3779b97f4a7c15ull);
        if (wire == 1 || wire == 5) {
            for (unsigned b = 0; b < (wire == 1 ? 8u : 4u); b++)
                out[k++] = (uint8_t)(i + b);
        }
        if (wire == 2) {
            size_t len = i == 6 ? 600000 : (size_t)(i * 37 % 700);
            k += sts_pb_encode_varint(out + k, len);
            for (size_t b = 0; b < len; b++)
                out[k++] = (uint8_t)(b ^ (size_t)i);
        }
    }
    return k;
}

TEST(pbstream_matches_the_buffer_reader)
{
    uint8_t *buf = malloc(2000000);
    size_t n = pb_sample(buf, 3000);
    for (int mode = 0; mode < 2; mode++) { /* payloads skipped / copied, size known / not */
        sts_error err = STS_ERROR_INIT;
        sts_instream *in = sts_instream_open_mem_plain(buf, n, "s", &err);
        sts_pbs s;
        T_EQ_I64(sts_pbs_init(&s, in, mode ? STS_PBS_NO_END : n, &err), 0);
        sts_pb_reader r;
        sts_pb_reader_init(&r, buf, n);
        sts_pb_field a, b;
        sts_pb_error e;
        int fields = 0, rc;
        uint8_t *copy = malloc(600000);
        while ((rc = sts_pb_next(&r, &a, &e)) > 0) {
            T_EQ_I64(sts_pbs_next(&s, STS_PBS_NO_END, &b, &e), 1);
            T_EQ_U64(a.num, b.num);
            T_EQ_U64(a.wire, b.wire);
            T_EQ_U64(a.offset, b.offset);
            T_EQ_U64(a.data_offset, b.data_offset);
            T_EQ_U64(a.len, b.len);
            if (a.wire != STS_PB_LEN) T_EQ_U64(a.u, b.u);
            if (a.wire == STS_PB_LEN && (fields % 3 == 0 || mode)) {
                T_EQ_I64(sts_pbs_copy(&s, b.len, copy, &e), 0);
                T_TRUE(memcmp(copy, a.data, a.len) == 0);
            } else if (a.wire == STS_PB_LEN && fields % 3 == 1) {
                const uint8_t *p;
                T_EQ_I64(sts_pbs_load(&s, b.len, &p, &e), 0);
                T_TRUE(memcmp(p, a.data, a.len) == 0);
            } else if (a.wire == STS_PB_LEN) {
                T_EQ_I64(sts_pbs_skip(&s, b.len, &e), 0);
            }
            fields++;
        }
        T_EQ_I64(rc, 0);
        T_EQ_I64(fields, 3000);
        T_EQ_I64(sts_pbs_next(&s, STS_PBS_NO_END, &b, &e), 0);
        T_EQ_U64(sts_pbs_offset(&s), n);
        free(copy);
        sts_pbs_release(&s);
        sts_instream_free(in);
    }
    free(buf);
}

/* The first failure of a stream over `bytes`; *e describes it. */
static int pbstream_fault(const char *bytes, size_t n, int size_known, sts_pb_error *e)
{
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_mem_plain(bytes, n, "f", &err);
    sts_pbs s;
    sts_pbs_init(&s, in, size_known ? n : STS_PBS_NO_END, &err);
    sts_pb_field f;
    int rc;
    while ((rc = sts_pbs_next(&s, STS_PBS_NO_END, &f, e)) > 0)
        if (f.wire == STS_PB_LEN && (rc = sts_pbs_skip(&s, f.len, e)) != 0) break;
    sts_pbs_release(&s);
    sts_instream_free(in);
    return rc;
}

TEST(pbstream_faults_and_cuts)
{
    sts_pb_error e;
    /* Malformed whatever the size: the same faults as base/pb, at the same offsets. */
    for (int known = 0; known < 2; known++) {
        T_EQ_I64(pbstream_fault("\x00\x01", 2, known, &e), STS_PBS_FAULT);
        T_EQ_I64(e.fault, STS_PB_BAD_FIELD_NUMBER);
        T_EQ_I64(pbstream_fault("\x08\x01\x0b", 3, known, &e), STS_PBS_FAULT);
        T_EQ_I64(e.fault, STS_PB_BAD_WIRE_TYPE);
        T_EQ_U64(e.offset, 2);
        T_EQ_I64(pbstream_fault("\x08\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 11, known, &e), STS_PBS_FAULT);
        T_EQ_I64(e.fault, STS_PB_OVERLONG_VARINT);
    }
    /* Cut short: with the size known, a fault against the file's end; with it unknown,
     * the input is found to end there. Either way the end is at the input's size. */
    T_EQ_I64(pbstream_fault("\x08\x96", 2, 1, &e), STS_PBS_FAULT);
    T_EQ_I64(e.fault, STS_PB_TRUNCATED_VARINT);
    T_EQ_U64(e.msg_end, 2);
    T_EQ_I64(pbstream_fault("\x08\x96", 2, 0, &e), STS_PBS_CUT);
    T_EQ_I64(e.fault, STS_PB_TRUNCATED_VARINT);
    T_EQ_U64(e.offset, 1);
    T_EQ_U64(e.msg_end, 2);
    T_EQ_I64(pbstream_fault("\x12\x05\x61\x62", 4, 1, &e), STS_PBS_FAULT);
    T_EQ_I64(e.fault, STS_PB_LENGTH_PAST_END);
    T_EQ_U64(e.len, 5);
    T_EQ_U64(e.avail, 2);
    T_EQ_I64(pbstream_fault("\x12\x05\x61\x62", 4, 0, &e), STS_PBS_CUT);
    T_EQ_U64(e.msg_end, 4);
    T_EQ_I64(pbstream_fault("\x09\x01\x02\x03", 4, 0, &e), STS_PBS_CUT);
    T_EQ_I64(e.fault, STS_PB_FIXED_PAST_END);
    /* A nested length past its message's end is a fault even with the size unknown. */
    sts_error err = STS_ERROR_INIT;
    const char nested[] = "\x0a\x03\x12\x05\x61\x62\x63";
    sts_instream *in = sts_instream_open_mem_plain(nested, 7, "n", &err);
    sts_pbs s;
    sts_pbs_init(&s, in, STS_PBS_NO_END, &err);
    sts_pb_field f;
    T_EQ_I64(sts_pbs_next(&s, STS_PBS_NO_END, &f, &e), 1);
    T_EQ_I64(sts_pbs_next(&s, f.data_offset + f.len, &f, &e), STS_PBS_FAULT);
    T_EQ_I64(e.fault, STS_PB_LENGTH_PAST_END);
    T_EQ_U64(e.offset, 2);
    T_EQ_U64(e.msg_end, 5);
    sts_pbs_release(&s);
    sts_instream_free(in);
}

/* Writes a document with `layout` through a memory stream; returns it (malloc'd) and
 * the status of finishing it. */
typedef void (*doc_fn)(sts_jsonw *w);
static char *render(sts_json_layout layout, doc_fn doc, sts_status *st)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sts_jsonw *w = sts_jsonw_create(f, layout);
    doc(w);
    *st = sts_jsonw_finish(w);
    sts_jsonw_free(w);
    fclose(f);
    return buf;
}

static void doc_values(sts_jsonw *w)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_key(w, "s");
    sts_jsonw_strn(w, "a\"b\\c\n\x01\b\f\xff\xc3\xa9", 12);
    sts_jsonw_key(w, "n");
    sts_jsonw_arr_begin(w);
    sts_jsonw_i64(w, INT64_MIN);
    sts_jsonw_u64(w, UINT64_MAX);
    sts_jsonw_f64(w, 0.1);
    sts_jsonw_f64(w, NAN);
    sts_jsonw_bool(w, 1);
    sts_jsonw_str(w, NULL);
    sts_jsonw_raw(w, "{\"r\":[]}");
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
}

TEST(json_writer_values)
{
    sts_status st;
    char *out = render(STS_JSON_COMPACT, doc_values, &st);
    T_EQ_I64(st, STS_OK);
    T_EQ_STR(out, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\\b\\f\xef\xbf\xbd\xc3\xa9\","
                  "\"n\":[-9223372036854775808,18446744073709551615,0.1,null,true,null,{\"r\":[]}]}\n");
    free(out);
}

/* Each key-value helper writes what its key and value written apart write. */
static void doc_kv(sts_jsonw *w)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_kv_str(w, "s", "a\"b");
    sts_jsonw_kv_str(w, "none", NULL);
    sts_jsonw_kv_i64(w, "i", INT64_MIN);
    sts_jsonw_kv_u64(w, "u", UINT64_MAX);
    sts_jsonw_kv_f64(w, "f", 0.1);
    sts_jsonw_kv_f64(w, "nan", NAN);
    sts_jsonw_kv_bool(w, "b", 0);
    sts_jsonw_kv_null(w, "z");
    sts_jsonw_obj_end(w);
}

static void doc_kv_apart(sts_jsonw *w)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_key(w, "s"), sts_jsonw_str(w, "a\"b");
    sts_jsonw_key(w, "none"), sts_jsonw_str(w, NULL);
    sts_jsonw_key(w, "i"), sts_jsonw_i64(w, INT64_MIN);
    sts_jsonw_key(w, "u"), sts_jsonw_u64(w, UINT64_MAX);
    sts_jsonw_key(w, "f"), sts_jsonw_f64(w, 0.1);
    sts_jsonw_key(w, "nan"), sts_jsonw_f64(w, NAN);
    sts_jsonw_key(w, "b"), sts_jsonw_bool(w, 0);
    sts_jsonw_key(w, "z"), sts_jsonw_null(w);
    sts_jsonw_obj_end(w);
}

TEST(json_writer_key_values)
{
    sts_status st, st2;
    char *out = render(STS_JSON_COMPACT, doc_kv, &st);
    T_EQ_I64(st, STS_OK);
    T_EQ_STR(out, "{\"s\":\"a\\\"b\",\"none\":null,\"i\":-9223372036854775808,\"u\":18446744073709551615,"
                  "\"f\":0.1,\"nan\":null,\"b\":false,\"z\":null}\n");
    free(out);
    for (int layout = STS_JSON_COMPACT; layout <= STS_JSON_TWO_LEVELS; layout++) {
        char *a = render((sts_json_layout)layout, doc_kv, &st),
             *b = render((sts_json_layout)layout, doc_kv_apart, &st2);
        T_EQ_STR(a, b);
        free(a);
        free(b);
    }
}

/* Three levels of nesting, each container holding two values, an empty one at each
 * level: the layouts differ only in where they break lines. */
static void doc_nested(sts_jsonw *w)
{
    sts_jsonw_obj_begin(w);
    sts_jsonw_key(w, "a");
    sts_jsonw_arr_begin(w);
    sts_jsonw_obj_begin(w);
    sts_jsonw_key(w, "x");
    sts_jsonw_i64(w, 1);
    sts_jsonw_key(w, "y");
    sts_jsonw_arr_begin(w);
    sts_jsonw_arr_end(w);
    sts_jsonw_obj_end(w);
    sts_jsonw_i64(w, 2);
    sts_jsonw_arr_end(w);
    sts_jsonw_key(w, "e");
    sts_jsonw_obj_begin(w);
    sts_jsonw_obj_end(w);
    sts_jsonw_obj_end(w);
}

TEST(json_writer_layouts)
{
    sts_status st;
    char *out = render(STS_JSON_COMPACT, doc_nested, &st);
    T_EQ_STR(out, "{\"a\":[{\"x\":1,\"y\":[]},2],\"e\":{}}\n");
    free(out);
    out = render(STS_JSON_INDENTED, doc_nested, &st);
    T_EQ_STR(out, "{\n"
                  "  \"a\": [\n"
                  "    {\n"
                  "      \"x\": 1,\n"
                  "      \"y\": []\n"
                  "    },\n"
                  "    2\n"
                  "  ],\n"
                  "  \"e\": {}\n"
                  "}\n");
    free(out);
    /* The CLI's: top-level keys and the elements of top-level containers on their own
     * lines; the object inside the array is inline, with ":" and no spaces. */
    out = render(STS_JSON_TWO_LEVELS, doc_nested, &st);
    T_EQ_STR(out, "{\n"
                  "  \"a\": [\n"
                  "    {\"x\":1,\"y\":[]},\n"
                  "    2\n"
                  "  ],\n"
                  "  \"e\": {}\n"
                  "}\n");
    T_EQ_I64(st, STS_OK);
    free(out);
}

static void doc_unclosed(sts_jsonw *w)
{
    sts_jsonw_arr_begin(w);
}

static void doc_overclosed(sts_jsonw *w)
{
    sts_jsonw_arr_begin(w);
    sts_jsonw_arr_end(w);
    sts_jsonw_arr_end(w);
}

static void doc_too_deep(sts_jsonw *w)
{
    for (int i = 0; i < STS_JSONW_MAX_DEPTH; i++)
        sts_jsonw_arr_begin(w);
    for (int i = 0; i < STS_JSONW_MAX_DEPTH; i++)
        sts_jsonw_arr_end(w);
}

static void doc_deepest(sts_jsonw *w)
{
    for (int i = 0; i < STS_JSONW_MAX_DEPTH - 1; i++)
        sts_jsonw_arr_begin(w);
    for (int i = 0; i < STS_JSONW_MAX_DEPTH - 1; i++)
        sts_jsonw_arr_end(w);
}

TEST(json_writer_failures)
{
    sts_status st;
    free(render(STS_JSON_COMPACT, doc_unclosed, &st));
    T_EQ_I64(st, STS_ERR_STATE);
    free(render(STS_JSON_COMPACT, doc_overclosed, &st));
    T_EQ_I64(st, STS_ERR_STATE);
    free(render(STS_JSON_COMPACT, doc_too_deep, &st));
    T_EQ_I64(st, STS_ERR_LIMIT);
    char *out = render(STS_JSON_COMPACT, doc_deepest, &st);
    T_EQ_I64(st, STS_OK);
    T_EQ_U64(strlen(out), 2 * (STS_JSONW_MAX_DEPTH - 1) + 1);
    free(out);
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        sts_jsonw *w = sts_jsonw_create(full, STS_JSON_COMPACT);
        sts_jsonw_str(w, "lost");
        T_EQ_I64(sts_jsonw_finish(w), STS_ERR_IO);
        T_EQ_I64(sts_jsonw_errno(w), ENOSPC); /* the reason, not a bare I/O error */
        sts_jsonw_free(w);
        fclose(full);
    }
    /* Larger than stdio's buffer: written past it, stdio keeps no bytes that a later
     * flush could fail on again, so the writer must have kept the reason itself. */
    full = fopen("/dev/full", "w");
    if (full) {
        sts_jsonw *w = sts_jsonw_create(full, STS_JSON_COMPACT);
        static char big[300000];
        memset(big, 'x', sizeof big - 1);
        sts_jsonw_str(w, big);
        T_EQ_I64(sts_jsonw_finish(w), STS_ERR_IO);
        T_EQ_I64(sts_jsonw_errno(w), ENOSPC);
        sts_jsonw_free(w);
        fclose(full);
    }
    sts_jsonw_free(NULL);
}

/* Larger than the writer's buffer (64 KB), with values that straddle its edge at every
 * offset and one string longer than the buffer itself: the text is the one built here
 * piece by piece. */
static void doc_large(sts_jsonw *w)
{
    sts_jsonw_arr_begin(w);
    for (int i = 0; i < 30000; i++)
        sts_jsonw_i64(w, (int64_t)i * 7919 - 100000);
    static char big[200000];
    for (size_t k = 0; k + 1 < sizeof big; k++)
        big[k] = (char)('a' + k % 26);
    sts_jsonw_str(w, big);
    sts_jsonw_str(w, "end");
    sts_jsonw_arr_end(w);
}

/* A stream handed to a writer: its failure and the reason at the end (ENOSPC of a full
 * device), not a bare flag. */
TEST(stream_failure_gives_the_reason)
{
    FILE *ok = tmpfile();
    T_TRUE(ok != NULL);
    if (ok) {
        fputs("fine", ok);
        T_EQ_I64(sts_stream_failure(ok), 0);
        fclose(ok);
    }
    FILE *full = fopen("/dev/full", "w");
    if (!full) return;
    fputs("lost", full);
    T_EQ_I64(sts_stream_failure(full), ENOSPC);
    T_TRUE(sts_stream_failure(full) != 0); /* asked again: still failed (its bytes were dropped) */
    fclose(full);
    T_EQ_STR(sts_stream_name(stdout), "standard output");
}

TEST(json_writer_larger_than_its_buffer)
{
    sts_status st;
    char *out = render(STS_JSON_COMPACT, doc_large, &st);
    T_EQ_I64(st, STS_OK);
    size_t cap = 600000, n = 0;
    char *want = malloc(cap);
    T_TRUE(want != NULL);
    if (!out || !want) {
        free(out);
        free(want);
        return;
    }
    want[n++] = '[';
    for (int i = 0; i < 30000; i++)
        n += (size_t)snprintf(want + n, cap - n, "%s%lld", i ? "," : "", (long long)i * 7919 - 100000);
    want[n++] = ',';
    want[n++] = '"';
    for (size_t k = 0; k + 1 < 200000; k++)
        want[n++] = (char)('a' + k % 26);
    n += (size_t)snprintf(want + n, cap - n, "\",\"end\"]\n");
    T_EQ_U64(strlen(out), n);
    T_TRUE(memcmp(out, want, n) == 0);
    free(out);
    free(want);
}

/* A document abandoned on an error (freed, not finished) still reaches the stream as
 * far as it was written, as it did when every token went to the stream at once. */
TEST(json_writer_freed_unfinished_hands_over_its_text)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    T_TRUE(f != NULL);
    if (!f) return;
    sts_jsonw *w = sts_jsonw_create(f, STS_JSON_COMPACT);
    sts_jsonw_obj_begin(w);
    sts_jsonw_key(w, "cut");
    sts_jsonw_i64(w, 42);
    sts_jsonw_free(w);
    fclose(f);
    T_EQ_STR(buf, "{\"cut\":42");
    free(buf);
}

/* A block of the run: where it was taken in the order, and how often it ran. */
typedef struct run_block {
    size_t *taken; /* shared counter, where the order is checked on one thread; or NULL */
    size_t at;
    _Atomic int runs;
} run_block;

static void run_block_fn(void *p, size_t thread)
{
    (void)thread;
    run_block *b = p;
    b->runs++;
    if (b->taken) b->at = (*b->taken)++;
}

/* Heaviest first, ties in array order, each block once; on several threads too. */
TEST(parts_run_heaviest_first)
{
    enum { N = 9 };
    const uint64_t weight[N] = { 3, 9, 3, 0, 9, 1, 5, 3, 2 };
    size_t taken = 0;
    run_block b[N];
    for (size_t i = 0; i < N; i++)
        b[i] = (run_block){ &taken, 0, 0 };
    sts_run_parts_heaviest_first(run_block_fn, b, sizeof *b, N, 1, weight);
    /* worked out by hand: 9 (1), 9 (4), 5 (6), 3 (0), 3 (2), 3 (7), 2 (8), 1 (5), 0 (3) */
    const size_t want_at[N] = { 3, 0, 4, 8, 1, 7, 2, 5, 6 };
    for (size_t i = 0; i < N; i++) {
        T_EQ_I64(b[i].runs, 1);
        T_EQ_U64(b[i].at, want_at[i]);
    }
    static run_block many[200];
    static uint64_t w[200];
    for (size_t i = 0; i < 200; i++) {
        many[i] = (run_block){ NULL, 0, 0 };
        w[i] = (i * 7919) % 13;
    }
    sts_run_parts_heaviest_first(run_block_fn, many, sizeof *many, 200, 4, w);
    size_t once = 0;
    for (size_t i = 0; i < 200; i++)
        once += many[i].runs == 1;
    T_EQ_U64(once, 200);
}

static void put_mem(void *ctx, const char *p, size_t n)
{
    FILE *f = ctx;
    fwrite(p, 1, n, f);
}

/* Every single byte, escaped: the expected text is built from the rule, byte class by
 * byte class. */
TEST(json_escape_each_byte)
{
    for (unsigned c = 0; c < 256; c++) {
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        char in = (char)c;
        sts_json_escape(&in, 1, put_mem, f);
        fclose(f);
        char want[16];
        const char *named = c == '"'    ? "\\\""
                            : c == '\\' ? "\\\\"
                            : c == '\n' ? "\\n"
                            : c == '\r' ? "\\r"
                            : c == '\t' ? "\\t"
                            : c == '\b' ? "\\b"
                            : c == '\f' ? "\\f"
                                        : NULL;
        if (named)
            snprintf(want, sizeof want, "\"%s\"", named);
        else if (c < 0x20)
            snprintf(want, sizeof want, "\"\\u%04x\"", c);
        else if (c < 0x80)
            snprintf(want, sizeof want, "\"%c\"", (char)c);
        else
            snprintf(want, sizeof want, "\"\xef\xbf\xbd\""); /* a lone byte >= 0x80 is never UTF-8 */
        T_EQ_STR(buf, want);
        free(buf);
    }
    /* Well-formed sequences pass whole; each byte of a broken one is replaced. */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    const char mixed[] = "\xf0\x9f\x98\x80|\xe2\x82|\xed\xa0\x80";
    sts_json_escape(mixed, sizeof mixed - 1, put_mem, f);
    fclose(f);
    T_EQ_STR(buf, "\"\xf0\x9f\x98\x80|\xef\xbf\xbd\xef\xbf\xbd|\xef\xbf\xbd\xef\xbf\xbd\xef\xbf\xbd\"");
    free(buf);
}

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

TEST(json_integers)
{
    const int64_t edge[] = { 0, 1, -1, 9, 10, -10, 999, -1000, INT64_MAX, INT64_MIN, INT64_MIN + 1 };
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < 2000; i++) {
        int64_t v = i < sizeof edge / sizeof edge[0] ? edge[i] : (int64_t)(rng_next(&seed) >> (i % 64));
        if (i % 2) v = (int64_t)(0 - (uint64_t)v); /* wraps INT64_MIN to itself */
        char got[STS_JSON_NUM_MAX], want[40];
        size_t n = sts_json_fmt_i64(got, v);
        snprintf(want, sizeof want, "%" PRId64, v);
        T_EQ_STR(got, want);
        T_EQ_U64(n, strlen(want));
        uint64_t u = rng_next(&seed) >> (i % 64);
        n = sts_json_fmt_u64(got, u);
        snprintf(want, sizeof want, "%" PRIu64, u);
        T_EQ_STR(got, want);
        T_EQ_U64(n, strlen(want));
    }
}

/* ns as us: the text, read back as decimal integers, gives the nanoseconds again. */
TEST(json_microseconds_exact)
{
    const int64_t edge[] = { 0, 1, -1, 999, -999, 1000, -1000, 1001, INT64_MAX, INT64_MIN };
    uint64_t seed = 12345;
    for (size_t i = 0; i < 2000; i++) {
        int64_t ns = i < sizeof edge / sizeof edge[0] ? edge[i] : (int64_t)(rng_next(&seed) >> (i % 64));
        if (i % 3 == 1) ns = (int64_t)(0 - (uint64_t)ns);
        char got[STS_JSON_NUM_MAX];
        size_t n = sts_json_fmt_us(got, ns);
        T_EQ_U64(n, strlen(got));
        const char *dot = strchr(got, '.');
        T_TRUE(dot && strlen(dot) == 4);
        if (!dot) continue;
        int neg = got[0] == '-';
        uint64_t whole = strtoull(got + neg, NULL, 10), frac = strtoull(dot + 1, NULL, 10);
        uint64_t mag = whole * 1000 + frac;
        T_EQ_I64(neg ? (int64_t)(0 - mag) : (int64_t)mag, ns);
        T_EQ_I64(neg, ns < 0);
    }
}

/* The fewest significant digits (>= 6) that read back, found by a plain scan from 1. */
static int fewest_digits(double v)
{
    char b[64];
    for (int p = 1; p <= 17; p++) {
        snprintf(b, sizeof b, "%.*e", p - 1, v);
        if (strtod(b, NULL) == v) return p < 6 ? 6 : p;
    }
    return -1;
}

/* Significant digits in a %g-style text: digits of the mantissa without leading zeros. */
static int sig_digits(const char *s)
{
    int n = 0, started = 0;
    for (; *s && *s != 'e'; s++) {
        if (*s < '0' || *s > '9') continue;
        if (*s != '0') started = 1;
        if (started) n++;
    }
    return n;
}

TEST(json_doubles_shortest)
{
    char got[STS_JSON_NUM_MAX];
    struct {
        double v;
        const char *text;
    } fixed[] = {
        { 0.1, "0.1" }, { 0.1 + 0.2, "0.30000000000000004" }, { 1234567.0, "1234567" },          { 1e20, "1e+20" },
        { -0.0, "-0" }, { 5e-324, "4.94066e-324" },           { 1.0 / 3, "0.3333333333333333" }, { 2.5e-7, "2.5e-07" }
    };
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++) {
        sts_json_fmt_f64(got, fixed[i].v);
        T_EQ_STR(got, fixed[i].text);
    }
    T_EQ_U64(sts_json_fmt_f64(got, NAN), 4);
    T_EQ_STR(got, "null");
    sts_json_fmt_f64(got, -INFINITY);
    T_EQ_STR(got, "null");
    uint64_t seed = 777;
    for (int i = 0; i < 5000; i++) {
        uint64_t bits = rng_next(&seed);
        double v;
        if (i % 2) {
            memcpy(&v, &bits, sizeof v); /* any finite bit pattern */
            if (!isfinite(v)) continue;
        } else {
            v = (double)(bits % 1000000) / (double)(1 + rng_next(&seed) % 1000); /* short decimals */
        }
        size_t n = sts_json_fmt_f64(got, v);
        T_EQ_U64(n, strlen(got));
        T_TRUE(strtod(got, NULL) == v);
        int want = fewest_digits(v);
        if (v != 0 && sig_digits(got) > want) T_FAIL_AT("%.17g written as %s: more than %d digits", v, got, want);
    }
}

#define MICRO "\xc2\xb5"

/* The examples the rule in stepscope/format.h gives, and its edges. */
TEST(duration_rule_examples)
{
    static const struct {
        double ns;
        const char *s;
    } cases[] = {
        { 0, "0 ns" },
        { 12, "12 ns" },
        { 999, "999 ns" },
        { 5000, "5 " MICRO "s" },
        { 3600e9, "3600 s" },
        { 1.05e6, "1.05 ms" },
        { 812e3, "812 " MICRO "s" },
        { 812400, "812 " MICRO "s" },
        { 21.3e6, "21.3 ms" },
        { 1200, "1.20 " MICRO "s" },
        { 1005, "1.01 " MICRO "s" },   /* half away from zero */
        { -1005, "-1.01 " MICRO "s" }, /* also below zero */
        { 99960, "100 " MICRO "s" },   /* the carry drops a decimal */
        { 9996, "10.0 " MICRO "s" },
        { 999.7e3, "1.00 ms" }, /* never "1000 us" */
        { 999999999, "1.00 s" },
        { 1234.5e9, "1235 s" }, /* from 1000 s, whole seconds */
        { 3.2e9, "3.20 s" },
        { -1500, "-1.50 " MICRO "s" },
        { 2.5, "2.50 ns" }, /* fractions: means */
        { 0.25, "0.250 ns" },
        { 1500.5, "1.50 " MICRO "s" },
        { 999.96, "1.00 " MICRO "s" },
        { 0.0001, "0.000 ns" },                    /* at most three decimals */
        { -0.0001, "0.000 ns" },                   /* no sign on a zero */
        { 4611686018427387904.0, "4611686018 s" }, /* 2^62 ns */
        { 1e20, "1e+11 s" },                       /* past 2^63 ns: three digits, exponent */
        { NAN, "unknown" },
        { INFINITY, "unknown" },
    };
    char buf[STS_FMT_DURATION_MAX];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_fmt_duration(cases[i].ns, buf, sizeof buf);
        T_EQ_STR(buf, cases[i].s);
    }
}

/* Whole nanoseconds of every magnitude against the reference, which works on the
 * decimal digits as text. */
TEST(duration_rule_against_reference)
{
    uint64_t seed = 2024;
    char got[STS_FMT_DURATION_MAX], want[48];
    for (int i = 0; i < 200000; i++) {
        uint64_t r = rng_next(&seed);
        int64_t ns = (int64_t)(r >> (1 + r % 63)); /* every bit length, 0 to 62 */
        if (i % 7 == 0) ns = ns / 1000 * 1000;     /* many whole units */
        if (i % 5 == 0) ns = -ns;
        if (ns > -(INT64_C(1) << 53) && ns < (INT64_C(1) << 53)) { /* exact as a double */
            sts_fmt_duration((double)ns, got, sizeof got);
            T_EQ_STR(got, ref_duration(ns, want));
        }
    }
    /* Every rounding edge around each unit boundary. */
    for (int64_t base = 1000; base <= INT64_C(1000000000000); base *= 10)
        for (int64_t d = -12; d <= 12; d++) {
            int64_t ns = base + d * (base / 1000 > 0 ? base / 1000 : 1) / 2;
            sts_fmt_duration((double)ns, got, sizeof got);
            T_EQ_STR(got, ref_duration(ns, want));
        }
}

/* Issue 34 item 15: what a terminal would obey (C0, DEL, C1 as UTF-8 or a lone byte)
 * becomes '?', one per control; every other byte, UTF-8 included, is kept. Checked
 * against a byte-by-byte statement of the rule over every byte pair. */
static void put_text_of(const char *s, size_t n, char *out, size_t cap)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    T_TRUE(f != NULL);
    T_EQ_I64(sts_fmt_put_text(f, s, n), 0);
    fclose(f);
    snprintf(out, cap, "%.*s", (int)len, buf);
    free(buf);
}

TEST(terminal_text_controls)
{
    char out[256];
    put_text_of("a\033]0;t\007b\x7f\xc2\x9b"
                "2J\x9b"
                "c\xc2\xb5s\n",
                19, out, sizeof out);
    T_EQ_STR(out, "a?]0;t?b??2J?c\xc2\xb5s?");
    for (int a = 0; a < 256; a++)
        for (int b = 1; b < 256; b++) {
            char in[2] = { (char)a, (char)b };
            put_text_of(in, 2, out, sizeof out);
            /* A well-formed two-byte sequence (lead 0xC2..0xDF, a continuation byte) is
             * one character: a C1 control when it is U+0080..U+009F, else kept whole,
             * its continuation byte too (0x80..0x9F there is no lone C1 byte). */
            int pair = a >= 0xc2 && a <= 0xdf && b >= 0x80 && b <= 0xbf;
            int c1 = pair && a == 0xc2 && b <= 0x9f;
            int c0 = a < 0x20 || a == 0x7f || (a >= 0x80 && a <= 0x9f);
            int bc = !pair && (b < 0x20 || b == 0x7f || (b >= 0x80 && b <= 0x9f));
            char want[3];
            if (c1)
                snprintf(want, sizeof want, "?");
            else
                snprintf(want, sizeof want, "%c%c", c0 ? '?' : a, bc ? '?' : b);
            if (a == 0) continue; /* out is a C string: a NUL first is checked as '?' below */
            if (strcmp(out, want) != 0) T_FAIL_AT("bytes %02x %02x: got '%s'", a, b, out);
        }
    put_text_of("\0x", 2, out, sizeof out);
    T_EQ_STR(out, "?x");
    /* U+2400 (E2 90 80) and U+4E00 (E4 B8 80): continuation bytes in 0x80..0x9F kept. */
    put_text_of("k\xe2\x90\x80"
                "a\xe4\xb8\x80",
                8, out, sizeof out);
    T_EQ_STR(out, "k\xe2\x90\x80"
                  "a\xe4\xb8\x80");
    put_text_of("\xe2\x90", 2, out, sizeof out); /* cut short: two lone bytes, 0x90 a C1 */
    T_EQ_STR(out, "\xe2?");
}

/* Issue 34 item 16: the cells a spreadsheet would evaluate, and the numbers it would
 * not (docs/csv.md). */
TEST(csv_formula_cells)
{
    static const char *const formula[] = { "=1+2", "+cmd", "-2+3", "@SUM(A1)", "\tx",   "\rx",  "-",    "+",  "=",
                                           "-e5",  "-1e",  "--1",  "-1.2.3",   "-0x10", "-inf", "-nan", "+1 " };
    static const char *const plain[] = { "", "a=1", "x-1", "-1", "+1", "-2.5e3", "-2.5E-3", "-.5", "-5.", "12", "1e9" };
    for (size_t i = 0; i < sizeof formula / sizeof *formula; i++)
        if (!sts_csv_formula(formula[i], strlen(formula[i]))) T_FAIL_AT("'%s' is not guarded", formula[i]);
    for (size_t i = 0; i < sizeof plain / sizeof *plain; i++)
        if (sts_csv_formula(plain[i], strlen(plain[i]))) T_FAIL_AT("'%s' is guarded", plain[i]);
    T_EQ_I64(sts_csv_formula("-1", 1), 1); /* "-" alone: the length counts, not the NUL */
    T_EQ_I64(sts_csv_formula("\0=", 2), 0);
}

TEST(duration_table_field)
{
    char buf[STS_FMT_DURATION_MAX], line[64];
    sts_fmt_duration(1200, buf, sizeof buf);
    snprintf(line, sizeof line, "[%*s]", sts_fmt_field(buf, 10), buf);
    T_EQ_STR(line, "[   1.20 " MICRO "s]"); /* 10 columns: 9 characters and the padding */
    snprintf(line, sizeof line, "[%*s]", sts_fmt_field("12 ns", 10), "12 ns");
    T_EQ_STR(line, "[     12 ns]");
    snprintf(line, sizeof line, "[%*s]", sts_fmt_field("9223372037 s", 4), "9223372037 s");
    T_EQ_STR(line, "[9223372037 s]"); /* never cut */
}

TEST(utf8_validation)
{
    const unsigned char *u;
#define LEN(lit) (u = (const unsigned char *)(lit), sts_utf8_len(u, sizeof(lit) - 1))
    T_EQ_U64(LEN("a"), 1);
    T_EQ_U64(LEN("\xc3\xa9"), 2);         /* U+00E9 */
    T_EQ_U64(LEN("\xe2\x82\xac"), 3);     /* U+20AC */
    T_EQ_U64(LEN("\xf0\x9f\x98\x80"), 4); /* U+1F600 */
    T_EQ_U64(LEN("\xc0\xaf"), 0);         /* overlong '/' */
    T_EQ_U64(LEN("\xe0\x80\xaf"), 0);     /* overlong, 3 bytes */
    T_EQ_U64(LEN("\xed\xa0\x80"), 0);     /* a surrogate */
    T_EQ_U64(LEN("\xf4\x90\x80\x80"), 0); /* beyond U+10FFFF */
    T_EQ_U64(LEN("\xe2\x82"), 0);         /* cut short */
    T_EQ_U64(LEN("\xc3("), 0);            /* bad continuation */
    T_EQ_U64(LEN("\xff"), 0);
#undef LEN
    T_EQ_U64(sts_utf8_decode((const unsigned char *)"\xe2\x82\xac", 3), 0x20ac);
}

/* The recorder cuts names to fixed sizes: the cut must split no character. Over every
 * length of a text made of 1- to 4-byte characters (boundaries known from how it was
 * built), the cut is the largest boundary at or below the length; and a text that
 * ends in a lead byte with fewer continuation bytes than it announces loses them. */
TEST(utf8_cut_on_character_boundaries)
{
    static const char *const chars[] = { "a", "\xc3\xa9", "\xe2\x82\xac", "\xf0\x9f\x98\x80", "z", "\xe2\x82\xac" };
    char text[64];
    int boundary[64] = { 0 };
    size_t n = 0;
    boundary[0] = 1;
    for (int r = 0; r < 2; r++)
        for (size_t c = 0; c < sizeof chars / sizeof chars[0]; c++) {
            size_t l = strlen(chars[c]);
            memcpy(text + n, chars[c], l);
            n += l;
            boundary[n] = 1;
        }
    for (size_t len = 0; len <= n; len++) {
        size_t want = len;
        while (!boundary[want])
            want--;
        if (sts_utf8_cut(text, len) != want)
            T_FAIL_AT("cut at %zu: got %zu, want %zu", len, sts_utf8_cut(text, len), want);
    }
    char buf[16];
    snprintf(buf, sizeof buf, "%s", "kernel-named-x\xc3");
    sts_utf8_trim(buf);
    T_EQ_STR(buf, "kernel-named-x");
    snprintf(buf, sizeof buf, "%s", "ab\xf0\x9f\x98");
    sts_utf8_trim(buf);
    T_EQ_STR(buf, "ab");
    /* Bytes that are invalid anyway are left for the writers to replace. */
    snprintf(buf, sizeof buf, "%s", "ab\x80\x80\x80\x80");
    sts_utf8_trim(buf);
    T_EQ_STR(buf, "ab\x80\x80\x80\x80");
    snprintf(buf, sizeof buf, "%s", "\xc3\xa9\xc3\xa9");
    sts_utf8_trim(buf);
    T_EQ_STR(buf, "\xc3\xa9\xc3\xa9");
    T_EQ_U64(sts_utf8_cut("", 0), 0);
}

/* ---- sorted searches -------------------------------------------------------------- */

/* The first index of v[0..n) that `above` (v > t) or not (v >= t) accepts, by a scan. */
static size_t scan_first(const int64_t *v, size_t n, int64_t t, int above)
{
    size_t i = 0;
    while (i < n && (above ? v[i] <= t : v[i] < t))
        i++;
    return i;
}

static int search_agrees(const int64_t *v, size_t n, int64_t t)
{
    size_t a = sts_first_at_least_i64(v, n, t), b = sts_first_above_i64(v, n, t);
    if (a == scan_first(v, n, t, 0) && b == scan_first(v, n, t, 1)) return 1;
    fprintf(stderr, "n %zu t %lld: at least %zu (scan %zu), above %zu (scan %zu)\n", n, (long long)t, a,
            scan_first(v, n, t, 0), b, scan_first(v, n, t, 1));
    return 0;
}

/* STS_BISECT over a range that does not start at 0, of a signed type, with a predicate
 * that is no array lookup: the first x in [lo, hi) whose square reaches `sq`. */
TEST(bisect_by_predicate)
{
    for (int64_t sq = -2; sq < 130; sq++)
        for (int64_t from = -12; from <= 12; from += 3) {
            int64_t lo = from, hi = 12, want = from;
            while (want < hi && (want < 0 || want * want < sq))
                want++;
            STS_BISECT(int64_t, lo, hi, x, x < 0 || x * x < sq);
            if (lo != want || hi != lo)
                T_FAIL_AT("sq %lld from %lld: %lld, want %lld", (long long)sq, (long long)from, (long long)lo,
                          (long long)want);
        }
    uint32_t lo = 5, hi = 5; /* empty: untouched */
    STS_BISECT(uint32_t, lo, hi, mid, mid < 100);
    T_EQ_U64(lo, 5);
}

/* Empty, every value below or above t, runs of duplicates, the int64 extremes; then
 * every length up to 40 of random ascending arrays with many ties, at every value in
 * and around them: both searches land where a scan does. */
TEST(sorted_int64_searches)
{
    int64_t one = 5;
    T_EQ_U64(sts_first_at_least_i64(NULL, 0, 0), 0);
    T_EQ_U64(sts_first_above_i64(NULL, 0, INT64_MAX), 0);
    T_EQ_U64(sts_first_at_least_i64(&one, 1, 5), 0);
    T_EQ_U64(sts_first_above_i64(&one, 1, 5), 1);
    T_EQ_U64(sts_first_above_i64(&one, 1, 4), 0);
    const int64_t dup[] = { 1, 3, 3, 3, 3, 7, 7, 9 };
    T_EQ_U64(sts_first_at_least_i64(dup, 8, 3), 1);
    T_EQ_U64(sts_first_above_i64(dup, 8, 3), 5);
    T_EQ_U64(sts_first_at_least_i64(dup, 8, 0), 0); /* all above */
    T_EQ_U64(sts_first_above_i64(dup, 8, 0), 0);
    T_EQ_U64(sts_first_at_least_i64(dup, 8, 10), 8); /* all below */
    T_EQ_U64(sts_first_above_i64(dup, 8, 9), 8);
    const int64_t ext[] = { INT64_MIN, INT64_MIN, 0, INT64_MAX, INT64_MAX };
    T_EQ_U64(sts_first_at_least_i64(ext, 5, INT64_MIN), 0);
    T_EQ_U64(sts_first_above_i64(ext, 5, INT64_MIN), 2);
    T_EQ_U64(sts_first_at_least_i64(ext, 5, INT64_MAX), 3);
    T_EQ_U64(sts_first_above_i64(ext, 5, INT64_MAX), 5);
    uint64_t x = 0x2545f4914f6cdd1dull;
    int64_t v[40];
    for (size_t n = 0; n <= 40; n++)
        for (int round = 0; round < 8; round++) {
            int64_t at = -3;
            for (size_t i = 0; i < n; i++) {
                x ^= x << 13, x ^= x >> 7, x ^= x << 17;
                at += (int64_t)(x % 3); /* steps of 0 make runs of ties */
                v[i] = at;
            }
            for (int64_t t = -5; t <= at + 2; t++)
                if (!search_agrees(v, n, t)) T_FAIL_AT("n %zu round %d t %lld", n, round, (long long)t);
        }
}

/* ---- JSON DOM ----------------------------------------------------------------- */

static sts_status parse(sts_jdoc *d, const char *s, sts_error *err)
{
    sts_jdoc_release(d);
    sts_error_clear(err);
    return sts_json_parse(d, s, strlen(s), "t.json", err);
}

TEST(json_dom_parses_values)
{
    sts_jdoc d = STS_JDOC_INIT;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(
        parse(&d, " {\"a\": [1, -2.5e3, true, null], \"s\": \"\\u00b5s \\ud83d\\ude00 \\\"q\\\"\", \"a\": 7} ", &err),
        STS_OK);
    const sts_jval *a = sts_json_get(d.root, "a");
    T_NEAR(sts_json_num(a, 0), 7, 0, 0); /* the last duplicate wins */
    const sts_jval *arr = &d.root->u.obj.members[0].val[0];
    T_EQ_U64(sts_json_len(arr), 4);
    T_NEAR(sts_json_num(sts_json_at(arr, 1), 0), -2500, 0, 0);
    T_EQ_I64(sts_json_at(arr, 2)->type, STS_J_BOOL);
    T_EQ_I64(sts_json_at(arr, 3)->type, STS_J_NULL);
    T_EQ_STR(sts_json_str(sts_json_get(d.root, "s"), NULL), "\xc2\xb5s \xf0\x9f\x98\x80 \"q\"");
    T_EQ_U64(sts_json_get(d.root, "s")->offset, 37);
    sts_jdoc_release(&d);
}

TEST(json_dom_errors_name_the_byte)
{
    static const struct {
        const char *text;
        long long at;
        const char *what;
    } cases[] = {
        { "{", 1, "expected a '\"'" },
        { "[1,]", 3, "expected a value" },
        { "[1 2]", 3, "expected ',' or ']'" },
        { "{\"a\" 1}", 5, "expected ':'" },
        { "{\"a\":1,}", 7, "expected a '\"'" },
        { "\"abc", 0, "not closed" },
        { "\"a\\qb\"", 2, "expected one of" },
        { "\"\\ud800x\"", 1, "low surrogate" },
        { "\"\\udc00\"", 1, "unpaired low surrogate" },
        { "\"a\xff\"", 2, "invalid UTF-8" },
        { "\"a\nb\"", 2, "control character" },
        { "01", 1, "expected the end of input" },
        { "1.", 2, "digit after '.'" },
        { "-", 0, "expected a value" },
        { "[] x", 3, "expected the end of input" },
        { "", 0, "input ends" },
        { "tru", 0, "expected a value" },
        { "1e999", 0, "out of range" },
    };
    sts_jdoc d = STS_JDOC_INIT;
    sts_error err = STS_ERROR_INIT;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_status st = parse(&d, cases[i].text, &err);
        char want[32];
        snprintf(want, sizeof want, "t.json: byte %lld: ", cases[i].at);
        if (st != STS_ERR_PARSE || err.byte_offset != cases[i].at || !strstr(err.message, want) ||
            !strstr(err.message, cases[i].what) || d.root)
            T_FAIL_AT("case %zu (%s): status %d, message \"%s\"", i, cases[i].text, st, err.message);
    }
    /* Depth is bounded: 64 levels parse, 65 do not. */
    char deep[200];
    memset(deep, '[', 64);
    memset(deep + 64, ']', 64);
    deep[128] = 0;
    T_EQ_I64(parse(&d, deep, &err), STS_OK);
    memset(deep, '[', 65);
    memset(deep + 65, ']', 65);
    deep[130] = 0;
    T_EQ_I64(parse(&d, deep, &err), STS_ERR_PARSE);
    T_CONTAINS(err.message, "byte 64: nesting deeper than 64 levels");
    sts_jdoc_release(&d);
}

/* Well-formed UTF-8 that is no XML character (U+FFFF) is valid JSON: the DOM keeps it;
 * only the page's escaping replaces it. */
TEST(json_dom_keeps_noncharacters_the_page_replaces)
{
    sts_jdoc d = STS_JDOC_INIT;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(parse(&d,
                   "{\"s\": \"a\xef\xbf\xbf"
                   "b\"}",
                   &err),
             STS_OK);
    T_EQ_STR(sts_json_str(sts_json_get(d.root, "s"), NULL), "a\xef\xbf\xbf"
                                                            "b");
    T_EQ_I64(parse(&d, "{\"s\": \"a\xed\xa0\x80\"}", &err), STS_ERR_PARSE); /* a surrogate is not UTF-8 */
    T_CONTAINS(err.message, "invalid UTF-8");
    sts_sbuf b = STS_SBUF_INIT;
    sts_sbuf_escs(&b, "a\xef\xbf\xbf"
                      "b");
    T_EQ_STR(b.p, "a\xef\xbf\xbd"
                  "b");
    sts_sbuf_release(&b);
    sts_jdoc_release(&d);
}

int main(void)
{
    RUN(status_names);
    RUN(version);
    RUN(strtab);
    RUN(strtab_intern_many);
    RUN(u64map);
    RUN(u64map_put_new_keeps_the_first);
    RUN(instream_plain_and_gzip);
    RUN(instream_peek_then_read);
    RUN(instream_from_a_pipe);
    RUN(pbstream_matches_the_buffer_reader);
    RUN(pbstream_faults_and_cuts);
    RUN(json_writer_values);
    RUN(json_writer_key_values);
    RUN(json_writer_layouts);
    RUN(json_writer_failures);
    RUN(stream_failure_gives_the_reason);
    RUN(parts_run_heaviest_first);
    RUN(json_writer_larger_than_its_buffer);
    RUN(json_writer_freed_unfinished_hands_over_its_text);
    RUN(json_escape_each_byte);
    RUN(json_integers);
    RUN(json_microseconds_exact);
    RUN(json_doubles_shortest);
    RUN(utf8_validation);
    RUN(utf8_cut_on_character_boundaries);
    RUN(sorted_int64_searches);
    RUN(bisect_by_predicate);
    RUN(json_dom_parses_values);
    RUN(json_dom_errors_name_the_byte);
    RUN(json_dom_keeps_noncharacters_the_page_replaces);
    RUN(duration_rule_examples);
    RUN(duration_rule_against_reference);
    RUN(duration_table_field);
    RUN(terminal_text_controls);
    RUN(csv_formula_cells);
    return t_done();
}
