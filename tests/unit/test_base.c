#include "test.h"

#include <unistd.h>
#include <zlib.h>

#include "base/instream.h"
#include "base/json_dom.h"
#include "base/jsonw.h"
#include "base/mem.h"
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

int main(void)
{
    RUN(status_names);
    RUN(version);
    RUN(strtab);
    RUN(u64map);
    RUN(instream_plain_and_gzip);
    RUN(json_writer_escapes);
    RUN(utf8_validation);
    RUN(json_dom_parses_values);
    RUN(json_dom_errors_name_the_byte);
    return t_done();
}
