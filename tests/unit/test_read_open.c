/* The trace opener (read/open.c), the format sniffer (read/sniff.c) and profile
 * directories (read/profile.c): every input a user can name is opened once, told
 * apart by its first bytes, and a profile directory is read at any level. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zlib.h>

#include "read/open.h"
#include "read/profile.h"
#include "read/sniff.h"
#include "stepscope.h"
#include "test.h"

static const char JSON[] = "[{\"ph\":\"X\",\"name\":\"step\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5,"
                           "\"args\":{\"step_num\":3,\"other\":1}},"
                           "{\"ph\":\"X\",\"name\":\"op\",\"pid\":1,\"tid\":2,\"ts\":11,\"dur\":2}]";

/* A minimal XSpace (checked with protoc --decode): plane "/host:CPU", line 7 at
 * 100 ns holding one event of 4000 ps named "k". */
static const char XSPACE[] = "\x0a\x25"                                   /* planes, 37 bytes */
                             "\x12\x09/host:CPU"                          /* name */
                             "\x1a\x0d\x08\x07\x18\x64"                   /* lines: id 7, timestamp_ns 100 */
                             "\x22\x07\x08\x01\x10\x00\x18\xa0\x1f"       /* events: metadata 1, offset 0, 4000 ps */
                             "\x22\x09\x08\x01\x12\x05\x08\x01\x12\x01k"; /* event_metadata {1: {id 1, name "k"}} */

static const char *tmp(const char *name)
{
    static char buf[8][512];
    static int k;
    k = (k + 1) % 8;
    snprintf(buf[k], sizeof buf[k], "/tmp/sts_test_open_%d_%s", (int)getpid(), name);
    return buf[k];
}

static void write_file(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (n) fwrite(p, 1, n, f);
    fclose(f);
}

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

/* ---- the sniffer ---- */

static sts_trace_format sniff(const char *p, size_t n, sts_sniff *out)
{
    sts_sniff_trace((const uint8_t *)p, n, 1, out);
    return out->format;
}

TEST(sniff_tells_traces_from_other_files)
{
    sts_sniff s;
    T_EQ_I64(sniff("[{}]", 4, &s), STS_FORMAT_CHROME_JSON);
    T_EQ_I64(sniff("\xef\xbb\xbf \n{\"traceEvents\":[]}", 22, &s), STS_FORMAT_CHROME_JSON);
    T_EQ_I64(sniff(XSPACE, sizeof XSPACE - 1, &s), STS_FORMAT_XSPACE);
    T_EQ_I64(sniff("\x0b\x00\x01", 3, &s), STS_FORMAT_XSPACE); /* protobuf-like: the reader words it */
    struct {
        const char *bytes;
        size_t n;
        const char *what;
    } cases[] = {
        { "", 0, "empty" },
        { " \n\t", 3, "only whitespace" },
        { "\xff\xfe[\x00{\x00", 6, "UTF-16 text (little-endian, with a byte-order mark)" },
        { "\xfe\xff\x00[\x00{", 6, "UTF-16 text (big-endian, with a byte-order mark)" },
        { "[\x00{\x00\"\x00p\x00", 8, "UTF-16 text (little-endian, no byte-order mark)" },
        { "\x00[\x00{\x00\"\x00p", 8, "UTF-16 text (big-endian, no byte-order mark)" },
        { "\xff\xfe\x00\x00[\x00\x00\x00", 8, "UTF-32 text" },
        { "hello, world\nsecond line\n", 25, "plain text (\"hello, world\")" },
        { "<!DOCTYPE html><html>", 21, "an HTML page" },
        { "\x7f"
          "ELF\x02\x01\x01",
          7, "an ELF executable" },
        { "PK\x03\x04\x14\x00", 6, "a zip archive" },
        { "\x89PNG\r\n\x1a\n\x00", 9, "a PNG image" },
        { "%PDF-1.7\n%\xe2\xe3", 12, "a PDF document" },
        { "\x28\xb5\x2f\xfd\x00", 5, "zstd-compressed data" },
        { "BZh91AY&SY\x01", 11, "bzip2-compressed data" },
        { "\x00\x00\x00\x00\x00\x00", 6, "NUL bytes (the first 6 bytes are all zero)" },
        { "\x00\x00\x07\x01", 4, "binary data starting with 2 NUL bytes" },
        { "\x03\x9a\x10", 3, "binary data (first byte 0x03), not a protobuf message" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        T_EQ_I64(sniff(cases[i].bytes, cases[i].n, &s), STS_FORMAT_NONE);
        T_CONTAINS(s.what, cases[i].what);
    }
    /* A compile log is text, with a pointer to the command that reads it. */
    const char *log = "WARNING: Compiling jit(step) with global shapes and types\n";
    T_EQ_I64(sniff(log, strlen(log), &s), STS_FORMAT_NONE);
    T_CONTAINS(s.hint, "stepscope ledger");
    /* Whitespace with more to come is left to the JSON reader, which streams. */
    sts_sniff_trace((const uint8_t *)"    ", 4, 0, &s);
    T_EQ_I64(s.format, STS_FORMAT_CHROME_JSON);
}

/* ---- opening files, FILEs and memory ---- */

TEST(open_reads_every_format_from_every_source)
{
    uint8_t *gz;
    size_t gzn = gzip_mem(JSON, sizeof JSON - 1, &gz);
    uint8_t *xgz;
    size_t xgzn = gzip_mem(XSPACE, sizeof XSPACE - 1, &xgz);
    struct {
        const void *p;
        size_t n;
        const char *format;
        size_t slices;
    } inputs[] = {
        { JSON, sizeof JSON - 1, "chrome-json", 2 },
        { gz, gzn, "chrome-json", 2 },
        { XSPACE, sizeof XSPACE - 1, "xplane", 1 },
        { xgz, xgzn, "xplane", 1 },
    };
    for (size_t i = 0; i < sizeof inputs / sizeof inputs[0]; i++) {
        for (int source = 0; source < 3; source++) {
            sts_timeline *tl = NULL;
            sts_error err = STS_ERROR_INIT;
            sts_status st;
            if (source == 0) {
                st = sts_timeline_open_mem(inputs[i].p, inputs[i].n, "mem", NULL, &tl, &err);
            } else if (source == 1) {
                const char *path = tmp("in.bin");
                write_file(path, inputs[i].p, inputs[i].n);
                st = sts_timeline_open(path, NULL, &tl, &err);
                remove(path);
            } else { /* a pipe: written, then read through a FILE */
                int fds[2];
                if (pipe(fds) != 0 || write(fds[1], inputs[i].p, inputs[i].n) != (ssize_t)inputs[i].n) abort();
                close(fds[1]);
                FILE *f = fdopen(fds[0], "rb");
                st = sts_timeline_open_file(f, "pipe", NULL, &tl, &err);
                fclose(f);
            }
            if (st != STS_OK) T_FAIL_AT("input %zu source %d: %s", i, source, err.message);
            if (!tl) continue;
            size_t n;
            sts_timeline_slices(tl, &n);
            T_EQ_U64(n, inputs[i].slices);
            T_EQ_STR(sts_timeline_get_info(tl)->format, inputs[i].format);
            T_TRUE(sts_timeline_get_info(tl)->run == NULL);
            sts_timeline_free(tl);
        }
    }
    free(gz);
    free(xgz);
}

TEST(open_names_what_is_not_a_trace)
{
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    const char *p = tmp("notes.txt");
    write_file(p, "shopping list\nmilk\n", 19);
    T_EQ_I64(sts_timeline_open(p, NULL, &tl, &err), STS_ERR_FORMAT);
    T_TRUE(tl == NULL);
    T_EQ_I64(err.byte_offset, 0);
    T_CONTAINS(err.message, p);
    T_CONTAINS(err.message, ": byte 0: not a trace: looks like plain text (\"shopping list\")");
    T_CONTAINS(err.message, "expected Chrome trace JSON");
    remove(p);
    uint8_t *gz;
    size_t gzn = gzip_mem("\x7f"
                          "ELF\x02\x01\x01\x00",
                          8, &gz);
    T_EQ_I64(sts_timeline_open_mem(gz, gzn, "lib.so.gz", NULL, &tl, &err), STS_ERR_FORMAT);
    T_CONTAINS(err.message, "lib.so.gz: byte 0: not a trace: gzip-compressed, looks like an ELF executable");
    free(gz);
    T_EQ_I64(sts_timeline_open_mem("", 0, "nothing", NULL, &tl, &err), STS_ERR_FORMAT);
    T_CONTAINS(err.message, "nothing: byte 0: empty file");
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.run = "r1";
    T_EQ_I64(sts_timeline_open_mem(JSON, sizeof JSON - 1, "m", &o, &tl, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "can only be chosen in a profile directory");
}

TEST(read_stream_leaves_the_stream_to_its_owner)
{
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_mem(JSON, sizeof JSON - 1, "s.json", &err);
    const unsigned char *p;
    T_EQ_I64(sts_instream_peek(in, 64 * 1024, &p, &err), sizeof JSON - 1); /* as report peeks */
    sts_timeline *tl = NULL;
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = STS_ARGS_NONE;
    T_EQ_I64(sts_timeline_read_stream(in, &o, &tl, &err), STS_OK);
    size_t n;
    sts_timeline_slices(tl, &n);
    T_EQ_U64(n, 2);
    sts_timeline_args(tl, &n);
    T_EQ_U64(n, 0); /* --args none */
    T_EQ_U64(sts_instream_offset(in), sizeof JSON - 1);
    sts_timeline_free(tl);
    sts_instream_free(in);
}

/* ---- profile directories ---- */

static void mkdirs(const char *path)
{
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    for (char *s = buf + 1; *s; s++) {
        if (*s != '/') continue;
        *s = 0;
        mkdir(buf, 0755);
        *s = '/';
    }
    mkdir(buf, 0755);
}

static void put(const char *dir, const char *name, const void *p, size_t n)
{
    char path[1024];
    mkdirs(dir);
    snprintf(path, sizeof path, "%s/%s", dir, name);
    write_file(path, p, n);
}

static void rm_rf(const char *dir)
{
    char cmd[1100];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) fprintf(stderr, "cannot remove %s\n", dir);
}

/* Opens `path` with `run`; the run read, or NULL with err filled. */
static sts_timeline *open_dir(const char *path, const char *run, sts_error *err)
{
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.run = run;
    sts_timeline *tl = NULL;
    sts_timeline_open(path, &o, &tl, err);
    return tl;
}

TEST(profile_directory_at_any_level)
{
    const char *root = tmp("prof");
    char runs[600], r1[700], r2[700], path[800];
    snprintf(runs, sizeof runs, "%s/plugins/profile", root);
    snprintf(r1, sizeof r1, "%s/2026_01_01_00_00_00", runs);
    snprintf(r2, sizeof r2, "%s/2026_01_02_00_00_00", runs);
    put(r1, "a.xplane.pb", XSPACE, sizeof XSPACE - 1);
    put(r2, "hostA.xplane.pb", XSPACE, sizeof XSPACE - 1);
    put(r2, "hostB.xplane.pb", XSPACE, sizeof XSPACE - 1);
    put(r2, "perfetto_trace.json.gz", JSON, sizeof JSON - 1);
    char plugins[700];
    snprintf(plugins, sizeof plugins, "%s/plugins", root);
    const char *levels[] = { root, plugins, runs };
    for (size_t i = 0; i < 3; i++) {
        sts_error err = STS_ERROR_INIT;
        sts_timeline *tl = open_dir(levels[i], NULL, &err);
        if (!tl) {
            T_FAIL_AT("%s: %s", levels[i], err.message);
            continue;
        }
        const sts_timeline_info *in = sts_timeline_get_info(tl);
        T_EQ_STR(in->run, "2026_01_02_00_00_00"); /* the latest, by name */
        T_EQ_U64(in->runs, 2);
        T_EQ_I64(in->run_latest, 1);
        T_EQ_U64(in->run_hosts, 2);
        T_EQ_STR(in->format, "xplane"); /* the .xplane.pb before the JSON */
        snprintf(path, sizeof path, "%s/hostA.xplane.pb", r2);
        T_EQ_STR(in->path, path);
        size_t nw;
        const char *const *w = sts_timeline_warnings(tl, &nw, NULL);
        T_TRUE(nw == 1 && strstr(w[0], "1 more .xplane.pb file (other hosts)"));
        sts_timeline_free(tl);
    }
    sts_error err = STS_ERROR_INIT;
    sts_timeline *tl = open_dir(root, "2026_01_01_00_00_00", &err); /* named */
    T_TRUE(tl != NULL);
    if (tl) {
        T_EQ_STR(sts_timeline_get_info(tl)->run, "2026_01_01_00_00_00");
        T_EQ_I64(sts_timeline_get_info(tl)->run_latest, 0);
        T_EQ_U64(sts_timeline_get_info(tl)->run_hosts, 1);
    }
    sts_timeline_free(tl);
    tl = open_dir(r1, NULL, &err); /* a run folder */
    T_TRUE(tl != NULL);
    if (tl) {
        T_EQ_STR(sts_timeline_get_info(tl)->run, "2026_01_01_00_00_00");
        T_EQ_U64(sts_timeline_get_info(tl)->runs, 0);
    }
    sts_timeline_free(tl);
    T_TRUE(open_dir(r1, "2026_01_01_00_00_00", &err) == NULL);
    T_EQ_I64(err.code, STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "a run folder");
    T_TRUE(open_dir(root, "2027", &err) == NULL);
    T_EQ_I64(err.code, STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "no run '2027' (runs: '2026_01_01_00_00_00', '2026_01_02_00_00_00')");
    /* The latest run's trace is empty (a profile cut short): an error naming the
     * older run that holds one. */
    snprintf(path, sizeof path, "%s/2026_01_03_00_00_00", runs);
    put(path, "host.xplane.pb", "", 0);
    T_TRUE(open_dir(runs, NULL, &err) == NULL);
    T_EQ_I64(err.code, STS_ERR_FORMAT);
    T_EQ_I64(err.byte_offset, 0);
    T_CONTAINS(err.message, "2026_01_03_00_00_00/host.xplane.pb: byte 0: empty file (0 bytes)");
    T_CONTAINS(err.message, "the latest run, 2026_01_03_00_00_00, holds no readable trace");
    T_CONTAINS(err.message, "the older run 2026_01_02_00_00_00 holds one: read it with --run 2026_01_02_00_00_00");
    /* A run with no trace file at all. */
    snprintf(path, sizeof path, "%s/2026_01_04_00_00_00", runs);
    put(path, "notes.txt", "x", 1);
    T_TRUE(open_dir(root, NULL, &err) == NULL);
    T_EQ_I64(err.code, STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "the latest run, 2026_01_04_00_00_00, holds no trace file");
    T_CONTAINS(err.message, "the older run 2026_01_02_00_00_00 holds one");
    rm_rf(root);
}

/* Issue 34 item 17: a run's only trace file that is a dangling symbolic link, a link
 * loop, a FIFO or /dev/zero was called "empty file (0 bytes)"; each is named for what
 * it is, and only a real empty file is "empty" (with "byte 0"). */
TEST(unreadable_trace_files_are_named_for_what_they_are)
{
    const char *root = tmp("unreadable");
    static const struct {
        const char *kind, *want;
    } cases[] = {
        { "dangling", "h.xplane.pb: a dangling symbolic link: its target /nonexistent/stepscope-x does not exist: the "
                      "latest run, run1, holds no readable trace" },
        { "loop", "a.xplane.pb: a symbolic link loop (" },
        { "fifo", "h.xplane.pb: a FIFO (named pipe), not a regular file: the latest run" },
        { "zero", "h.xplane.pb: a device, not a regular file: the latest run" },
        { "empty", "h.xplane.pb: byte 0: empty file (0 bytes): the latest run, run1, holds no readable trace (a "
                   "profile cut short" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char run[700], a[800], b[800];
        snprintf(run, sizeof run, "%s/%s/plugins/profile/run1", root, cases[i].kind);
        mkdirs(run);
        snprintf(a, sizeof a, "%s/%s", run, strcmp(cases[i].kind, "loop") ? "h.xplane.pb" : "a.xplane.pb");
        snprintf(b, sizeof b, "%s/b.xplane.pb", run);
        int made = 1;
        if (!strcmp(cases[i].kind, "dangling")) made = symlink("/nonexistent/stepscope-x", a) == 0;
        if (!strcmp(cases[i].kind, "loop")) made = symlink("b.xplane.pb", a) == 0 && symlink("a.xplane.pb", b) == 0;
        if (!strcmp(cases[i].kind, "fifo")) made = mkfifo(a, 0644) == 0;
        if (!strcmp(cases[i].kind, "zero")) made = symlink("/dev/zero", a) == 0;
        if (!strcmp(cases[i].kind, "empty")) put(run, "h.xplane.pb", "", 0);
        T_TRUE(made);
        char dir[800];
        snprintf(dir, sizeof dir, "%s/%s", root, cases[i].kind);
        sts_error err = STS_ERROR_INIT;
        T_TRUE(open_dir(dir, NULL, &err) == NULL);
        T_EQ_I64(err.code, STS_ERR_FORMAT);
        T_CONTAINS(err.message, cases[i].want);
        if (strcmp(cases[i].kind, "empty")) T_TRUE(strstr(err.message, "empty") == NULL);
    }
    rm_rf(root);
}

TEST(profile_runs_and_files_are_listed_in_order)
{
    const char *root = tmp("list");
    char run[600];
    snprintf(run, sizeof run, "%s/r", root);
    put(run, "b.xplane.pb", "x", 1);
    put(run, "a.xplane.pb", "", 0);
    put(run, "h.trace.json.gz", "x", 1);
    put(run, "perfetto_trace.json.gz", "x", 1);
    put(run, "other.json", "x", 1);
    char q[600];
    snprintf(q, sizeof q, "%s/q", root);
    put(q, "x.trace.json.gz", "x", 1);
    sts_profile_files files = { 0 };
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_profile_list_files(run, &files, &err), STS_OK);
    T_EQ_U64(files.n, 4);
    if (files.n == 4) {
        T_EQ_STR(files.v[0].name, "a.xplane.pb");
        T_EQ_U64(files.v[0].size, 0);
        T_EQ_STR(files.v[1].name, "b.xplane.pb");
        T_EQ_I64(files.v[2].kind, STS_PROFILE_PERFETTO_JSON);
        T_EQ_I64(files.v[3].kind, STS_PROFILE_TRACE_JSON);
    }
    sts_profile_files_release(&files);
    sts_profile_names names = { 0 };
    T_EQ_I64(sts_profile_list_runs(root, &names, &err), STS_OK);
    T_EQ_U64(names.n, 2);
    if (names.n == 2) {
        T_EQ_STR(names.v[0], "q");
        T_EQ_STR(names.v[1], "r");
    }
    sts_profile_names_release(&names);
    /* The first non-empty .xplane.pb is read; hosts counts both. */
    sts_profile_pick pick;
    T_EQ_I64(sts_profile_locate(run, NULL, &pick, &err), STS_OK);
    T_CONTAINS(pick.file, "/r/b.xplane.pb");
    T_EQ_U64(pick.hosts, 2);
    rm_rf(root);
    T_EQ_I64(sts_profile_locate(root, NULL, &pick, &err), STS_ERR_NOT_FOUND);
    mkdirs(root);
    T_EQ_I64(sts_profile_locate(root, NULL, &pick, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "no trace here; expected a JAX profile directory");
    rm_rf(root);
}

int main(void)
{
    RUN(sniff_tells_traces_from_other_files);
    RUN(open_reads_every_format_from_every_source);
    RUN(open_names_what_is_not_a_trace);
    RUN(read_stream_leaves_the_stream_to_its_owner);
    RUN(profile_directory_at_any_level);
    RUN(profile_runs_and_files_are_listed_in_order);
    RUN(unreadable_trace_files_are_named_for_what_they_are);
    return t_done();
}
