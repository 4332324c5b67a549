#include "test.h"

#include <unistd.h>
#include <zlib.h>

#include "base/instream.h"
#include "base/jsonw.h"
#include "base/mem.h"
#include "base/pb.h"
#include "base/pbstream.h"
#include "base/utf8.h"
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

TEST(json_writer_escapes)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sts_jsonw w;
    sts_jsonw_init(&w, f, 0);
    sts_jsonw_obj_begin(&w);
    sts_jsonw_key(&w, "s");
    sts_jsonw_strn(&w, "a\"b\\c\n\x01\xff\xc3\xa9", 10);
    sts_jsonw_key(&w, "n");
    sts_jsonw_arr_begin(&w);
    sts_jsonw_i64(&w, -5);
    sts_jsonw_f64(&w, 0.1);
    sts_jsonw_f64(&w, NAN);
    sts_jsonw_bool(&w, 1);
    sts_jsonw_arr_end(&w);
    sts_jsonw_obj_end(&w);
    fclose(f);
    T_EQ_STR(buf, "{\"s\":\"a\\\"b\\\\c\\n\\u0001\\ufffd\xc3\xa9\",\"n\":[-5,0.1,null,true]}");
    free(buf);
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

int main(void)
{
    RUN(status_names);
    RUN(version);
    RUN(strtab);
    RUN(u64map);
    RUN(instream_plain_and_gzip);
    RUN(instream_peek_then_read);
    RUN(instream_from_a_pipe);
    RUN(pbstream_matches_the_buffer_reader);
    RUN(pbstream_faults_and_cuts);
    RUN(json_writer_escapes);
    RUN(utf8_validation);
    return t_done();
}
