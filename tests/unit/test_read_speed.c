/* The Chrome JSON reader's fast paths against its reference: the fast event parser
 * (json_walk.c) against the byte parser (json_event.c), and the chunked, multi-thread
 * reader (json_par.c, json_merge.c) against one pass, on the fixtures, the fuzz corpus,
 * random traces, bad input, and a chunk boundary at every byte of small traces; and
 * chunks read by peer processes (json_peers.c, played here by callbacks in this one).
 * Each comparison is of the whole raw timeline (tl_same.h), the status and the message. */
#include "test.h"
#include "text_buf.h"

#include <dirent.h>
#include <stdarg.h>
#include <unistd.h>
#include <zlib.h>

#include "read/json_chrome.h"
#include "tl_same.h"

/* ---- reading with knobs ----------------------------------------------------------- */

typedef struct got {
    sts_timeline *tl;
    sts_status st;
    char msg[512];
} got;

/* What read_with() and read_peers() do with flow events. */
static sts_flows_mode g_flows = STS_FLOWS_KEEP;

static got read_with(const char *data, size_t n, const char *path, sts_args_mode mode, const sts_jr_tuning *tune)
{
    got g = { NULL, STS_OK, "" };
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = path ? sts_instream_open(path, &err) : sts_instream_open_mem(data, n, "trace.json", &err);
    if (!in) {
        g.st = err.code;
        snprintf(g.msg, sizeof g.msg, "%s", err.message);
        return g;
    }
    g.tl = sts_tl_new(path ? path : "trace.json", "chrome-json", mode);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = mode;
    opt.flows = g_flows;
    g.st = sts_read_chrome_json_with(in, g.tl, &opt, tune, &err);
    snprintf(g.msg, sizeof g.msg, "%s", g.st == STS_OK ? "" : err.message);
    sts_instream_free(in);
    return g;
}

static const sts_jr_tuning SERIAL_REFERENCE = { 1, 1, 0, 0, NULL, 0, 0, NULL, NULL };
static const sts_jr_tuning SERIAL_FAST = { 0, 1, 0, 0, NULL, 0, 0, NULL, NULL };
static const sts_jr_tuning INLINE_INFLATE = { 0, 1, 0, 0, NULL, 0, 1, NULL, NULL };

/* Both runs agree on status and message, and on success on the whole timeline (a
 * failed read's timeline is thrown away by the opener); says what differs otherwise. */
static int agree(const char *what, const got *a, const got *b)
{
    if (a->st != b->st || strcmp(a->msg, b->msg) != 0) {
        fprintf(stderr, "%s: status %d \"%s\" vs %d \"%s\"\n", what, a->st, a->msg, b->st, b->msg);
        return 0;
    }
    if (a->st != STS_OK) return 1;
    if (!a->tl || !b->tl) return a->tl == b->tl;
    const char *d = tl_same(a->tl, b->tl);
    if (d) fprintf(stderr, "%s: %s\n", what, d);
    return d == NULL;
}

static void drop(got *g)
{
    sts_tl_free(g->tl);
    g->tl = NULL;
}

/* The reference reading of `data` and the fast one, one thread, in all three modes. */
static int fast_agrees(const char *what, const char *data, size_t n)
{
    int ok = 1;
    for (int mode = 0; mode < 3 && ok; mode++) {
        got a = read_with(data, n, NULL, (sts_args_mode)mode, &SERIAL_REFERENCE);
        got b = read_with(data, n, NULL, (sts_args_mode)mode, &SERIAL_FAST);
        ok = agree(what, &a, &b);
        drop(&a);
        drop(&b);
    }
    return ok;
}

/* ---- generated traces ------------------------------------------------------------- */

static uint64_t rng;
static uint32_t rnd(uint32_t n)
{
    rng = rng * 6364136223846793005ull + 1442695040888963407ull;
    return (uint32_t)(rng >> 33) % n;
}

/* Values from small sets, so that layouts and values repeat as in real traces, with
 * the awkward ones mixed in: escapes, '}, {' inside strings, long text, a raw NUL. */
static const char *const NAMES[] = {
    "\"aten::mm\"",
    "\"cudaLaunchKernel\"",
    "\"ProfilerStep#1\"",
    "\"void at::native::vectorized_elementwise_kernel<4, at::native::launch_clamp_scalar>\"",
    "\"quote \\\" and }, {\\\"ph\\\": \\\"X\\\"\"",
    "\"back\\\\slash\\\\\"",
    "\"caf\\u00e9 \\ud83d\\ude00\"",
    "\"}, {\"",
    "\"\"",
};
static const char *const CATS[] = { "\"cpu_op\"", "\"kernel\"", "\"cuda_runtime\"", "\"x\\ty\"" };
static const char *const PIDS[] = { "4242", "0", "\"Spans\"", "\"CPU functions\"", "-3" };
static const char *const TIDS[] = { "4242", "4301", "7", "\"stream 7\"", "0" };
static const char *const KEYS[] = { "\"External id\"", "\"correlation\"", "\"step_num\"", "\"Input Dims\"",
                                    "\"grid\"",        "\"stream\"",      "\"note\"",     "\"e\\\"sc\"" };
static const char *const VALUES[] = {
    "0",
    "1",
    "-17",
    "3.25",
    "1e3",
    "12345678901234567890",
    "true",
    "false",
    "null",
    "\"s\"",
    "\"}, {\\\"a\"",
    "[[64, 1024], [1024]]",
    "[]",
    "{}",
    "{\"a\": {\"b\": [1, {\"c\": null}]}}",
    "[\"float\", \"\"]",
    "\"\\\\\"",
};

static const char *pick(const char *const *v, size_t n)
{
    return v[rnd((uint32_t)n)];
}
#define PICK(v) pick(v, sizeof v / sizeof v[0])

/* Whitespace between tokens: one style per trace mostly, sometimes another. */
static const char *gap(int style)
{
    static const char *const GAPS[] = { "", " ", "\n    ", "\t", "\r\n  " };
    if (rnd(16) == 0) return GAPS[rnd(5)];
    return style == 0 ? "" : style == 1 ? " " : "\n    ";
}

static void key(tbuf *b, int style, const char *k)
{
    puts_(b, gap(style));
    puts_(b, k);
    if (rnd(16) == 0) puts_(b, " "); /* a space before ':' now and then */
    puts_(b, ":");
    puts_(b, style ? " " : "");
}

static void ts_value(tbuf *b, uint64_t *t)
{
    *t += rnd(5000);
    switch (rnd(6)) {
    case 0:
        putf(b, "%llu", (unsigned long long)*t);
        break;
    case 1:
        putf(b, "\"%llu.5\"", (unsigned long long)*t);
        break;
    default:
        putf(b, "%llu.%03u", (unsigned long long)*t, rnd(1000));
    }
}

static void event(tbuf *b, int style, uint64_t *t)
{
    static const char PH[] = "XXXXXXBEiCMsfbeZ";
    char ph = PH[rnd(sizeof PH - 1)];
    puts_(b, "{");
    int fields = 0;
#define SEP() (fields++ ? puts_(b, ",") : (void)0)
    /* ph usually first, as producers write it; elsewhere sometimes */
    int ph_at = rnd(4) == 0 ? (int)rnd(5) : 0;
    for (int slot = 0; slot < 7; slot++) {
        if (slot == ph_at) {
            SEP();
            key(b, style, "\"ph\"");
            putf(b, "\"%c\"", ph);
        }
        switch (slot) {
        case 0:
            SEP();
            key(b, style, "\"cat\"");
            puts_(b, PICK(CATS));
            break;
        case 1:
            SEP();
            key(b, style, "\"name\"");
            puts_(b, ph == 'M' ? (rnd(2) ? "\"process_name\"" : "\"thread_sort_index\"") : PICK(NAMES));
            break;
        case 2:
            SEP();
            key(b, style, "\"pid\"");
            puts_(b, PICK(PIDS));
            SEP();
            key(b, style, "\"tid\"");
            puts_(b, PICK(TIDS));
            break;
        case 3:
            if (rnd(40) == 0) break; /* a missing ts: rejected with a warning */
            SEP();
            key(b, style, "\"ts\"");
            ts_value(b, t);
            break;
        case 4:
            if (ph != 'X') break;
            SEP();
            key(b, style, "\"dur\"");
            if (rnd(50) == 0)
                puts_(b, "-2"); /* rejected with a warning */
            else
                putf(b, "%u.%03u", rnd(100), rnd(1000));
            break;
        case 5:
            if (ph == 's' || ph == 'f' || ph == 'b' || ph == 'e') {
                SEP();
                key(b, style, rnd(3) ? "\"id\"" : "\"id2\"");
                puts_(b, rnd(2) ? "\"0x1f\"" : "{\"local\": \"7\"}");
            }
            break;
        default:
            if (rnd(3) == 0) break;
            SEP();
            key(b, style, "\"args\"");
            puts_(b, "{");
            uint32_t n = rnd(5);
            if (ph == 'M') {
                puts_(b, rnd(2) ? "\"name\": \"thread one\"" : "\"sort_index\": 3");
            } else {
                for (uint32_t i = 0; i < n; i++) {
                    if (i) puts_(b, ",");
                    key(b, style, PICK(KEYS));
                    puts_(b, PICK(VALUES));
                }
            }
            puts_(b, gap(style));
            puts_(b, "}");
        }
    }
#undef SEP
    puts_(b, gap(style));
    puts_(b, "}");
}

/* A trace of n elements in one of a few top-level shapes. */
static tbuf trace(uint64_t seed, int n)
{
    rng = seed;
    tbuf b = { NULL, 0, 0 };
    int style = (int)rnd(3);
    int in_object = (int)rnd(2);
    uint64_t t = 1712195495400000ull;
    if (in_object)
        puts_(&b,
              "{\"schemaVersion\": 1, \"deviceProperties\": [{\"id\": 0, \"name\": \"GPU\"}],\n  \"traceEvents\": [");
    else
        puts_(&b, "[");
    for (int i = 0; i < n; i++) {
        if (i) puts_(&b, style ? ",\n  " : ",");
        int kind = (int)rnd(60);
        if (kind == 0)
            puts_(&b, "{}");
        else if (kind == 1)
            puts_(&b, "17"); /* not an object: skipped with a warning */
        else
            event(&b, style, &t);
    }
    if (rnd(4) == 0) puts_(&b, ","); /* Chrome's trailing comma */
    puts_(&b, "]");
    if (in_object) puts_(&b, ",\n  \"displayTimeUnit\": \"ns\", \"stackFrames\": {\"1\": {\"name\": \"f\"}}}");
    puts_(&b, "\n");
    return b;
}

/* ---- the fast event parser against the reference --------------------------------- */

TEST(fast_parser_matches_reference_on_random_traces)
{
    for (uint64_t seed = 1; seed <= 300; seed++) {
        tbuf b = trace(seed, 1 + (int)(seed % 90));
        char what[64];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        T_TRUE(fast_agrees(what, b.p, b.n));
        free(b.p);
    }
}

/* Bad JSON: every cut and a few byte changes give the same error or truncation
 * warning, word for word, from both parsers. */
TEST(fast_parser_matches_reference_on_bad_input)
{
    for (uint64_t seed = 1; seed <= 40; seed++) {
        tbuf b = trace(seed * 7919, 12);
        for (size_t cut = 0; cut < b.n; cut += 1 + seed % 3) {
            char what[64];
            snprintf(what, sizeof what, "seed %llu cut %zu", (unsigned long long)seed, cut);
            if (!fast_agrees(what, b.p, cut)) {
                T_TRUE(!"cut");
                break;
            }
        }
        static const char GARBAGE[] = "x}]{,:\"\\0\x01 -.e";
        for (int k = 0; k < 60; k++) {
            size_t at = rnd((uint32_t)b.n);
            char was = b.p[at];
            b.p[at] = GARBAGE[rnd(sizeof GARBAGE - 1)];
            char what[64];
            snprintf(what, sizeof what, "seed %llu byte %zu", (unsigned long long)seed, at);
            int ok = fast_agrees(what, b.p, b.n);
            b.p[at] = was;
            if (!ok) {
                T_TRUE(!"garbage");
                break;
            }
        }
        free(b.p);
    }
}

/* A pair that repeats byte for byte is taken from what was learned: the spans must
 * point at this event's bytes, whatever the value's kind. */
TEST(fast_parser_repeated_pairs_keep_their_own_bytes)
{
    const char *json =
        "[{\"ph\":\"X\",\"name\":\"a\",\"ts\":1.5,\"dur\":2,\"pid\":1,\"tid\":1,\"args\":{\"step_num\":3}},"
        "{\"ph\":\"X\",\"name\":\"a\",\"ts\":1.5,\"dur\":2,\"pid\":1,\"tid\":1,\"args\":{\"step_num\":3}},"
        "{\"ph\":\"X\",\"name\":\"b\",\"ts\":1.5,\"dur\":2,\"pid\":1,\"tid\":1,\"args\":{\"step_num\":4}},"
        "{\"ph\":\"X\",\"name\":\"a\",\"ts\":9,\"dur\":2,\"pid\":1,\"tid\":1,\"args\":{\"step_num\":\"3\"}}]";
    T_TRUE(fast_agrees("repeats", json, strlen(json)));
    got g = read_with(json, strlen(json), NULL, STS_ARGS_KNOWN, &SERIAL_FAST);
    T_EQ_I64(g.st, STS_OK);
    T_EQ_U64(g.tl->slices.n, 4);
    T_EQ_STR(sts_timeline_string(g.tl, g.tl->slices.v[2].name), "b");
    T_EQ_I64(g.tl->slices.v[3].ts, 9000);
    const sts_arg *a = sts_timeline_find_arg(g.tl, g.tl->slices.v[3].args, "step_num");
    T_TRUE(a && a->type == STS_ARG_STRING);
    drop(&g);
}

/* ---- fixtures and the fuzz corpus ----------------------------------------------- */

/* Reads a whole file, inflating gzip. */
static char *slurp(const char *path, size_t *n)
{
    gzFile f = gzopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *p = malloc(cap);
    int k;
    while (p && (k = gzread(f, p + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)k;
        if (len == cap) p = realloc(p, cap *= 2);
    }
    gzclose(f);
    *n = len;
    return p;
}

typedef int (*file_check)(const char *what, const char *data, size_t n);

/* Runs check on every regular file in dir whose name ends in one of the suffixes;
 * returns the count, or -1 when the folder is missing. */
static int each_file(const char *dir, const char *const *suffixes, file_check check)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    int count = 0;
    for (struct dirent *e; (e = readdir(d));) {
        int want = 0;
        for (const char *const *s = suffixes; *s; s++) {
            size_t a = strlen(e->d_name), b = strlen(*s);
            want |= a >= b && strcmp(e->d_name + a - b, *s) == 0;
        }
        if (!want || e->d_name[0] == '.') continue;
        char path[8192];
        snprintf(path, sizeof path, "%.4000s/%.1000s", dir, e->d_name);
        size_t n;
        char *data = slurp(path, &n);
        if (!data) continue;
        T_TRUE(check(path, data, n));
        free(data);
        count++;
    }
    closedir(d);
    return count;
}

TEST(fast_parser_matches_reference_on_fixtures)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures (see docs/fixtures.md)");
    static const char *const suffixes[] = { ".json", ".json.gz", NULL };
    static const char *const dirs[] = { "traces/chrome", "traces/kineto", "traces/torch-legacy" };
    int files = 0;
    for (size_t i = 0; i < 3; i++) {
        char dir[8192];
        snprintf(dir, sizeof dir, "%.4000s/%s", fx, dirs[i]);
        int k = each_file(dir, suffixes, fast_agrees);
        files += k > 0 ? k : 0;
    }
    T_GE_I64(files, 10);
}

TEST(fast_parser_matches_reference_on_fuzz_corpus)
{
    static const char *const any[] = { "", NULL };
    int files = each_file("fuzz/corpus/chrome_json", any, fast_agrees);
    if (files < 0) T_SKIP("no fuzz/corpus/chrome_json here (run from the repository root)");
    T_GE_I64(files, 10);
}

/* ---- chunks ------------------------------------------------------------------------ */

/* One pass (fast parser, one thread) against chunks cut at `splits`, two threads. */
static int chunks_agree(const char *what, const char *data, size_t n, const char *path, const uint64_t *splits,
                        size_t nsplits)
{
    sts_jr_tuning chunked = { 0, 2, 0, 1, splits, nsplits, 0, NULL, NULL };
    got a = read_with(data, n, path, STS_ARGS_KNOWN, &SERIAL_FAST);
    got b = read_with(data, n, path, STS_ARGS_KNOWN, &chunked);
    int ok = agree(what, &a, &b);
    drop(&a);
    drop(&b);
    return ok;
}

/* Events whose strings hold what a chunk's start is found by ("}, {" and friends) next
 * to escaped quotes and backslashes, so a cut at most bytes lands in a lookalike. */
static const char STRADDLE[] =
    "{\"traceEvents\": [\n"
    "  {\"ph\": \"X\", \"name\": \"a\\\"},{\\\"b\", \"ts\": 1, \"dur\": 5, \"pid\": 1, \"tid\": 1},\n"
    "  {\"ph\": \"X\", \"name\": \"}, {\", \"ts\": 2, \"dur\": 1, \"pid\": 1, \"tid\": 1, \"args\": {\"x\": "
    "\"\\\\\"}},\n"
    "  {\"ph\": \"X\", \"name\": \"\\\\\\\"}, {\\\\\", \"ts\": 3, \"dur\": 1, \"pid\": 1, \"tid\": 2},\n"
    "  {\"ph\": \"B\", \"name\": \"b\", \"ts\": 4, \"pid\": 1, \"tid\": 1, \"args\": {\"s\": \"},\\n{\"}},\n"
    "  {\"ph\": \"E\", \"ts\": 9, \"pid\": 1, \"tid\": 1},\n"
    "  {\"ph\": \"i\", \"name\": \"\\\\\", \"ts\": 5, \"pid\": \"p\", \"tid\": \"t\", \"s\": \"g\"},\n"
    "  {\"ph\": \"C\", \"name\": \"mem\", \"id\": \"}{c\", \"ts\": 6, \"pid\": 1, \"args\": {\"v\": 3, \"w\": \"}, "
    "{\"}},\n"
    "  {\"ph\": \"s\", \"name\": \"f\", \"id\": \"}{\", \"ts\": 7, \"pid\": 1, \"tid\": 1},\n"
    "  {\"ph\": \"X\", \"name\": \"\\\"\\\"\", \"ts\": 8, \"dur\": 0.5, \"pid\": 2, \"tid\": 3, \"args\": "
    "{\"a\": [[1, 2], {\"}\": \"{\"}]}},\n"
    "  {},\n"
    "  {\"ph\": \"X\", \"name\": \"last\", \"ts\": 10, \"dur\": 1, \"pid\": 2, \"tid\": 3}\n"
    "], \"displayTimeUnit\": \"ns\"}\n";

TEST(chunks_split_at_every_byte_give_one_pass)
{
    size_t n = sizeof STRADDLE - 1;
    for (uint64_t s = 1; s < n; s++) {
        char what[64];
        snprintf(what, sizeof what, "split at %llu", (unsigned long long)s);
        if (!chunks_agree(what, STRADDLE, n, NULL, &s, 1)) {
            T_TRUE(!"split");
            break;
        }
    }
}

TEST(chunks_split_twice_at_every_pair_near_the_middle)
{
    size_t n = sizeof STRADDLE - 1;
    for (uint64_t s = n / 3; s < n / 3 + 120; s++)
        for (uint64_t u = s + 1; u < s + 160 && u < n; u += 3) {
            uint64_t splits[2] = { s, u };
            char what[64];
            snprintf(what, sizeof what, "split at %llu and %llu", (unsigned long long)s, (unsigned long long)u);
            if (!chunks_agree(what, STRADDLE, n, NULL, splits, 2)) {
                T_TRUE(!"two splits");
                return;
            }
        }
}

/* Random traces (metadata, warnings, non-object elements, B/E across chunks) cut at
 * random places into up to 8 chunks, from memory and from a file (pread). */
TEST(chunks_of_random_traces_give_one_pass)
{
    char path[] = "/tmp/sts_chunks_XXXXXX";
    int fd = mkstemp(path);
    T_TRUE(fd >= 0);
    for (uint64_t seed = 1; seed <= 120; seed++) {
        tbuf b = trace(seed * 104729, 40 + (int)(seed % 200));
        uint64_t splits[8];
        size_t k = 1 + rnd(8);
        for (size_t i = 0; i < k; i++)
            splits[i] = (uint64_t)(b.n * (i + 1) / (k + 1)) + rnd(40);
        char what[64];
        snprintf(what, sizeof what, "seed %llu, %zu splits", (unsigned long long)seed, k);
        T_TRUE(chunks_agree(what, b.p, b.n, NULL, splits, k));
        if (seed % 10 == 0 && fd >= 0) {
            T_TRUE(ftruncate(fd, 0) == 0 && pwrite(fd, b.p, b.n, 0) == (ssize_t)b.n);
            T_TRUE(chunks_agree(what, NULL, 0, path, splits, k));
        }
        free(b.p);
    }
    if (fd >= 0) close(fd);
    unlink(path);
}

/* Errors and truncation inside a later chunk read as in one pass (the message names
 * the global event index and byte). */
TEST(chunks_report_errors_and_truncation_as_one_pass)
{
    tbuf b = trace(99991, 300);
    uint64_t splits[3] = { b.n / 4, b.n / 2, 3 * b.n / 4 };
    size_t good = b.n;
    T_TRUE(chunks_agree("whole", b.p, b.n, NULL, splits, 3));
    T_TRUE(chunks_agree("cut in the last chunk", b.p, 7 * b.n / 8, NULL, splits, 3));
    b.p[5 * b.n / 8] = '#';
    T_TRUE(chunks_agree("garbage in the third chunk", b.p, good, NULL, splits, 3));
    got g = read_with(b.p, good, NULL, STS_ARGS_KNOWN, &SERIAL_FAST);
    T_EQ_I64(g.st, STS_ERR_PARSE);
    drop(&g);
    free(b.p);
}

/* Many chunks, sized rather than placed, with as many threads as chunks allow. */
TEST(chunks_by_size_give_one_pass)
{
    tbuf b = trace(4242, 3000);
    for (int jobs = 2; jobs <= 5; jobs++) {
        sts_jr_tuning tune = { 0, jobs, 4096 + (uint64_t)jobs * 777, 1, NULL, 0, 0, NULL, NULL };
        got a = read_with(b.p, b.n, NULL, STS_ARGS_ALL, &SERIAL_FAST);
        got c = read_with(b.p, b.n, NULL, STS_ARGS_ALL, &tune);
        T_TRUE(agree("sized chunks", &a, &c));
        drop(&a);
        drop(&c);
    }
    free(b.p);
}

/* n complete events spread over `lanes` threads, in turn. */
static tbuf lanes_trace(int n, int lanes)
{
    tbuf b = { NULL, 0, 0 };
    puts_(&b, "{\"traceEvents\": [\n");
    for (int i = 0; i < n; i++)
        putf(&b, "%s{\"ph\": \"X\", \"name\": \"op\", \"ts\": %d, \"dur\": 5, \"pid\": 1, \"tid\": %d}", i ? ",\n" : "",
             10 * i, i % lanes);
    puts_(&b, "\n]}\n");
    return b;
}

/* A trace wide rather than long (each event on a lane of its own) is read by one thread
 * from the first event on: the probe, the events read before chunks may take over,
 * tells it before any worker starts. A long trace of the same size is read in chunks.
 * Both give the one-pass timeline. */
TEST(wide_trace_is_read_by_one_thread_long_one_in_chunks)
{
    for (int wide = 0; wide < 2; wide++) {
        tbuf b = lanes_trace(100000, wide ? 100000 : 4);
        T_TRUE(b.n > ((size_t)4 << 20)); /* twice the probe at least, so chunks could follow it */
        uint64_t chunks = UINT64_MAX;
        sts_jr_tuning tune = { 0, 2, 0, 1, NULL, 0, 0, NULL, &chunks };
        got a = read_with(b.p, b.n, NULL, STS_ARGS_KNOWN, &SERIAL_FAST);
        got c = read_with(b.p, b.n, NULL, STS_ARGS_KNOWN, &tune);
        T_TRUE(agree(wide ? "wide" : "long", &a, &c));
        if (wide)
            T_EQ_U64(chunks, 0);
        else
            T_TRUE(chunks > 0 && chunks != UINT64_MAX);
        drop(&a);
        drop(&c);
        free(b.p);
    }
}

/* ---- whole events by shape (json_shape.c) ------------------------------------------ */

/* Events of four kinds written the same way again and again, as profilers write them,
 * each value changing at its own rate; now and then a key, a space, "ph" or a value's
 * kind changes too. So shapes are built, used, given new holes and rebuilt, and events
 * that almost fit one must still be read as the reference reads them. */
static void shaped_event(tbuf *b, int style, int kind, uint64_t *t, uint64_t id)
{
    static const char *const KCAT[] = { "\"cpu_op\"", "\"kernel\"", "\"cuda_runtime\"", "\"ac2g\"" };
    static const char *const KNAME[] = { "\"aten::mm\"", "\"void gemm_kernel<128>\"", "\"cudaLaunchKernel\"",
                                         "\"ac2g\"" };
    const char *sp = style ? " " : "";
    const char *ph = kind == 3 ? "\"s\"" : "\"X\"";
    if (rnd(40) == 0) ph = rnd(2) ? "\"i\"" : rnd(2) ? "\"C\"" : "\"M\"";
    puts_(b, style ? "{\n    " : "{");
    putf(b, "\"ph\":%s%s,%s\"cat\":%s%s,%s", sp, ph, sp, sp, rnd(30) ? KCAT[kind] : PICK(CATS), sp);
    if (kind == 1 && rnd(2)) /* kernel names too long to remember, differing after the prefix */
        putf(b, "\"name\":%s\"void at::native::elementwise_kernel_with_index<%u, float>(int, float*)\",%s", sp, rnd(5),
             sp);
    else
        putf(b, "\"name\":%s%s,%s", sp, rnd(12) ? KNAME[kind] : PICK(NAMES), sp);
    if (kind == 3) putf(b, "\"id\":%s%llu,%s", sp, (unsigned long long)id, sp);
    if (rnd(50) == 0)
        putf(b, "\"tid\":%s%s,%s\"pid\":%s4242,%s", sp, PICK(TIDS), sp, sp, sp); /* keys swapped */
    else
        putf(b, "\"pid\":%s%s,%s\"tid\":%s4301,%s", sp, rnd(25) ? "4242" : PICK(PIDS), sp, sp, sp);
    puts_(b, rnd(60) ? "" : " "); /* a space where there was none */
    putf(b, "\"ts\":%s", sp);
    ts_value(b, t);
    if (kind != 3) {
        putf(b, ",%s\"dur\":%s", sp, sp);
        if (rnd(30) == 0)
            puts_(b, PICK(VALUES));
        else
            putf(b, "%u.%03u", rnd(100), rnd(1000));
        putf(b, ",%s\"args\":%s{", sp, sp);
        puts_(b, style ? "\n      " : "");
        putf(b, "\"External id\":%s%llu,%s", sp, (unsigned long long)id, sp);
        putf(b, "\"Record function id\":%s%s", sp, rnd(20) ? "0" : PICK(VALUES));
        if (kind == 0 && rnd(2)) putf(b, ",%s\"Input Dims\":%s%s", sp, sp, rnd(3) ? "[[64, 1024], [1024]]" : "[]");
        if (rnd(8) == 0) putf(b, ",%s\"step_num\":%s%s", sp, sp, PICK(VALUES));
        putf(b, ",%s\"Ev Idx\":%s%u", sp, sp, rnd(4));
        puts_(b, style ? "\n    }" : "}");
    }
    puts_(b, style ? "\n  }" : "}");
}

static tbuf shaped_trace(uint64_t seed, int n)
{
    rng = seed;
    tbuf b = { NULL, 0, 0 };
    int style = (int)rnd(2);
    uint64_t t = 1712195495400000ull;
    puts_(&b, "{\"traceEvents\": [\n  ");
    for (int i = 0; i < n; i++) {
        if (i) puts_(&b, style ? ",\n  " : ",\n");
        shaped_event(&b, style, (int)rnd(4), &t, (uint64_t)i * 7 + 11);
    }
    puts_(&b, "\n]}\n");
    return b;
}

/* Events read by shape are the reference's events, in every args mode, and many events
 * are read by shape (else this tests the walk again): more than a third, as about a
 * third of these events carry a change of some kind. */
TEST(shapes_match_reference_on_repeated_events)
{
    for (uint64_t seed = 1; seed <= 12; seed++) {
        tbuf b = shaped_trace(seed * 7727, 3000);
        char what[64];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        T_TRUE(fast_agrees(what, b.p, b.n));
        uint64_t shaped = 0;
        sts_jr_tuning fast = SERIAL_FAST;
        fast.shaped = &shaped;
        got g = read_with(b.p, b.n, NULL, STS_ARGS_ANALYSIS, &fast);
        T_EQ_I64(g.st, STS_OK);
        T_TRUE(shaped > 3000 / 3);
        if (shaped <= 3000 / 3) fprintf(stderr, "%s: %llu of 3000 events by shape\n", what, (unsigned long long)shaped);
        drop(&g);
        free(b.p);
    }
}

/* Cuts and damage inside events that a shape almost fits give the reference's error or
 * truncation warning, word for word; and chunks read by shape on two threads. */
TEST(shapes_match_reference_on_bad_input_and_in_chunks)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        tbuf b = shaped_trace(seed * 15485863, 400);
        static const char GARBAGE[] = "x}]{,:\"\\0\x01 -.e9";
        for (int k = 0; k < 40; k++) {
            size_t at = b.n / 3 + rnd((uint32_t)(2 * b.n / 3));
            char was = b.p[at];
            b.p[at] = GARBAGE[rnd(sizeof GARBAGE - 1)];
            char what[64];
            snprintf(what, sizeof what, "seed %llu byte %zu", (unsigned long long)seed, at);
            int ok = fast_agrees(what, b.p, b.n) && fast_agrees(what, b.p, at + 1 + rnd(40));
            b.p[at] = was;
            if (!ok) {
                T_TRUE(!"damage");
                break;
            }
        }
        uint64_t splits[3] = { b.n / 4 + rnd(50), b.n / 2 + rnd(50), 3 * b.n / 4 + rnd(50) };
        T_TRUE(chunks_agree("shaped chunks", b.p, b.n, NULL, splits, 3));
        free(b.p);
    }
}

/* ---- chunks read by peers ------------------------------------------------------------ */

/* Peers played in this process: start serves every part at once and keeps each
 * message; fetch hands them out, damaged or withheld as the test asks. */
typedef struct fake_peers {
    sts_chunk_peers pub;
    const char *serve_path; /* the path the peers read instead of the plan's (NULL: the plan's) */
    int withhold;           /* fetch fails for every k-th chunk (0: none) */
    int flip;               /* one byte of every k-th message is changed (0: none) */
    int replay;             /* start serves nothing: the messages of an earlier read are handed out */
    int started, served_ok, order_ok;
    size_t fetched, clean, last;
    tbuf msgs[512];
    size_t nmsgs[512];
} fake_peers;

static int fake_send(void *user, size_t index, const void *data, size_t len)
{
    fake_peers *f = user;
    if (index >= 512 || f->msgs[index].p) return -1;
    put(&f->msgs[index], data, len);
    f->nmsgs[index] = len;
    return 0;
}

/* A plan with its path swapped for f->serve_path (the plan's layout: json_peers.c). */
static tbuf plan_for(const fake_peers *f, const void *plan, size_t len)
{
    tbuf b = { NULL, 0, 0 };
    put(&b, plan, len);
    if (!f->serve_path) return b;
    /* magic, fingerprint, first, size, end, parts, mode, in_object, reference,
     * count_flows: 10 x 8 */
    enum { AT = 80 };
    uint64_t plen;
    memcpy(&plen, b.p + AT, 8);
    tbuf out = { NULL, 0, 0 };
    uint64_t nlen = strlen(f->serve_path);
    put(&out, b.p, AT);
    put(&out, (const char *)&nlen, 8);
    put(&out, f->serve_path, nlen);
    put(&out, b.p + AT + 8 + plen, b.n - AT - 8 - plen - 8);
    uLong c = crc32(0L, Z_NULL, 0);
    c = crc32(c, (const Bytef *)out.p, (uInt)out.n);
    uint64_t crc = c;
    put(&out, (const char *)&crc, 8);
    free(b.p);
    return out;
}

static int fake_start(void *user, const void *plan, size_t len)
{
    fake_peers *f = user;
    f->started++;
    f->served_ok = 1;
    if (f->replay) return 0;
    tbuf p = plan_for(f, plan, len);
    for (unsigned part = 1; part <= f->pub.count; part++) {
        sts_error err = STS_ERROR_INIT;
        if (sts_chunk_serve(p.p, p.n, part, fake_send, f, &err) != STS_OK) {
            fprintf(stderr, "serve part %u: %s\n", part, err.message);
            f->served_ok = 0;
        }
    }
    free(p.p);
    return 0;
}

static int fake_fetch(void *user, size_t index, const void **data, size_t *len)
{
    fake_peers *f = user;
    if (f->fetched && index <= f->last) f->order_ok = 0;
    f->last = index;
    f->fetched++;
    if (index % (f->pub.count + 1) == 0) f->order_ok = 0; /* part 0 is the reader's own */
    if (index >= 512 || !f->msgs[index].p || (f->withhold && index % (size_t)f->withhold == 0)) return -1;
    tbuf *m = &f->msgs[index];
    if (f->flip && index % (size_t)f->flip == 0) m->p[(index * 7919) % m->n] ^= 0x20;
    f->clean += m->n > 40 && m->p[24] == 1; /* the clean flag, after magic, fingerprint, index */
    *data = m->p;
    *len = f->nmsgs[index];
    return 0;
}

static void fake_init(fake_peers *f, unsigned count)
{
    memset(f, 0, sizeof *f);
    f->pub.count = count;
    f->pub.user = f;
    f->pub.start = fake_start;
    f->pub.fetch = fake_fetch;
    f->order_ok = 1;
}

static void fake_release(fake_peers *f)
{
    for (size_t i = 0; i < 512; i++)
        free(f->msgs[i].p);
}

static got read_peers(const char *path, int jobs, uint64_t chunk, fake_peers *f)
{
    got g = { NULL, STS_OK, "" };
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open(path, &err);
    if (!in) {
        g.st = err.code;
        snprintf(g.msg, sizeof g.msg, "%s", err.message);
        return g;
    }
    g.tl = sts_tl_new(path, "chrome-json", STS_ARGS_ALL);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = STS_ARGS_ALL;
    opt.peers = &f->pub;
    opt.flows = g_flows;
    sts_jr_tuning tune = { 0, jobs, chunk, 1, NULL, 0, 0, NULL, NULL };
    g.st = sts_read_chrome_json_with(in, g.tl, &opt, &tune, &err);
    snprintf(g.msg, sizeof g.msg, "%s", g.st == STS_OK ? "" : err.message);
    sts_instream_free(in);
    return g;
}

static int write_file(const char *path, const char *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    int ok = fp && fwrite(p, 1, n, fp) == n;
    if (fp && fclose(fp) != 0) ok = 0;
    return ok;
}

/* Writes b to a new temporary file (path: "/tmp/sts_peers_XXXXXX", its name on
 * return) and reads it in one pass. */
static got one_pass_file(char *path, const tbuf *b)
{
    got a = { NULL, STS_ERR_IO, "could not write a temporary file" };
    int fd = mkstemp(path);
    if (fd < 0) return a;
    close(fd);
    if (!write_file(path, b->p, b->n)) return a;
    return read_with(NULL, 0, path, STS_ARGS_ALL, &SERIAL_FAST);
}

/* A trace of plain events (no metadata, nothing rejected: chunks a peer can read
 * whole), with escapes, B/E pairs across chunks, instants, counters and args. */
static tbuf plain_trace(uint64_t seed, int n)
{
    rng = seed;
    tbuf b = { NULL, 0, 0 };
    puts_(&b, "{\"traceEvents\": [\n");
    uint64_t t = 1000;
    int open = 0;
    for (int i = 0; i < n; i++) {
        unsigned pid = 1 + rnd(3), tid = 10 + rnd(4);
        const char *sep = i ? ",\n" : "";
        t += 1 + rnd(50);
        switch (rnd(6)) {
        case 0:
            putf(&b, "%s{\"ph\": \"B\", \"name\": \"step %d\", \"ts\": %llu, \"pid\": 9, \"tid\": 9}", sep, i,
                 (unsigned long long)t);
            open++;
            break;
        case 1:
            if (open) {
                putf(&b, "%s{\"ph\": \"E\", \"ts\": %llu, \"pid\": 9, \"tid\": 9}", sep, (unsigned long long)t);
                open--;
                break;
            }
            __attribute__((fallthrough));
        case 2:
            putf(&b,
                 "%s{\"ph\": \"C\", \"name\": \"mem\", \"id\": %u, \"ts\": %llu, \"pid\": %u, \"args\": {\"v\": %u}}",
                 sep, rnd(3), (unsigned long long)t, pid, rnd(1000));
            break;
        default:
            putf(&b,
                 "%s{\"ph\": \"X\", \"cat\": \"kernel\", \"name\": \"op\\\"%u\\\\}, {\", \"ts\": %llu, \"dur\": %u, "
                 "\"pid\": %u, \"tid\": %u, \"args\": {\"External id\": %d}}",
                 sep, rnd(40), (unsigned long long)t, rnd(30), pid, tid, i);
        }
    }
    puts_(&b, "\n]}\n");
    return b;
}

/* Random traces read with 1 to 3 peers and 1 or 2 threads of the reader's own give the
 * one-pass timeline, and the peers' chunks were the ones merged. The adversarial
 * traces (metadata, warnings) agree too, mostly read here. */
TEST(peers_give_one_pass)
{
    char path[] = "/tmp/sts_peers_XXXXXX";
    int fd = mkstemp(path);
    T_TRUE(fd >= 0);
    close(fd);
    size_t used = 0;
    for (uint64_t seed = 1; seed <= 30; seed++) {
        tbuf b = seed % 3 ? plain_trace(seed * 7907, 300 + (int)(seed % 7) * 150)
                          : trace(seed * 7907, 200 + (int)(seed % 7) * 150);
        T_TRUE(write_file(path, b.p, b.n));
        got a = read_with(NULL, 0, path, STS_ARGS_ALL, &SERIAL_FAST);
        for (unsigned count = 1; count <= 3; count++) {
            fake_peers f;
            fake_init(&f, count);
            int jobs = 1 + (int)(seed % 2);
            got c = read_peers(path, jobs, b.n / (5 + seed % 9) + 1, &f);
            char what[80];
            snprintf(what, sizeof what, "seed %llu, %u peers, %d threads", (unsigned long long)seed, count, jobs);
            T_TRUE(agree(what, &a, &c));
            T_EQ_I64(f.started, 1);
            T_TRUE(f.served_ok);
            T_TRUE(f.order_ok);
            used += f.clean;
            drop(&c);
            fake_release(&f);
        }
        drop(&a);
        free(b.p);
    }
    T_TRUE(used > 30); /* most chunks are plain: the peers' timelines were used */
    unlink(path);
}

/* A chunk a peer withheld, or whose message was damaged on the way, is read by the
 * reader itself: the timeline is still the one pass's. */
TEST(peers_withheld_or_damaged_chunks_are_read_here)
{
    char path[] = "/tmp/sts_peers_XXXXXX";
    tbuf b = plain_trace(31337, 2000);
    got a = one_pass_file(path, &b);
    T_EQ_I64(a.st, STS_OK);
    for (int k = 1; k <= 3; k++) {
        fake_peers f;
        fake_init(&f, 2);
        f.withhold = k;
        got c = read_peers(path, 2, b.n / 12, &f);
        T_TRUE(agree("withheld", &a, &c));
        drop(&c);
        fake_release(&f);
        fake_init(&f, 2);
        f.flip = k;
        c = read_peers(path, 1, b.n / 12, &f);
        T_TRUE(agree("damaged", &a, &c));
        T_TRUE(f.fetched > 0);
        drop(&c);
        fake_release(&f);
    }
    drop(&a);
    free(b.p);
    unlink(path);
}

/* What a peer reads is what gets merged: peers reading a file of the same size but
 * other names change the names (proof that their timelines are used), and peers
 * whose file is missing or of another size send nothing the reader uses. */
TEST(peers_read_their_own_copy_of_the_path)
{
    char path[] = "/tmp/sts_peers_XXXXXX", other[] = "/tmp/sts_peers_XXXXXX";
    int fd2 = mkstemp(other);
    T_TRUE(fd2 >= 0);
    close(fd2);
    tbuf b = plain_trace(2718, 1500);
    got a = one_pass_file(path, &b);
    T_EQ_I64(a.st, STS_OK);
    for (size_t i = 0; i + 10 < b.n; i++) /* "name": "op -> "name": "OP (same length) */
        if (memcmp(b.p + i, "\"name\": \"op", 11) == 0) b.p[i + 9] = 'O', b.p[i + 10] = 'P';
    T_TRUE(write_file(other, b.p, b.n));
    fake_peers f;
    fake_init(&f, 1);
    f.serve_path = other;
    got c = read_peers(path, 1, b.n / 10, &f);
    T_EQ_I64(c.st, STS_OK);
    T_TRUE(f.clean > 0);
    T_TRUE(c.tl && a.tl && tl_same(a.tl, c.tl) != NULL);
    drop(&c);
    fake_release(&f);

    T_TRUE(write_file(other, b.p, b.n / 2)); /* another size */
    fake_init(&f, 2);
    f.serve_path = other;
    c = read_peers(path, 1, b.n / 10, &f);
    T_TRUE(agree("peers' file of another size", &a, &c));
    T_EQ_U64(f.clean, 0);
    T_TRUE(f.fetched > 0);
    drop(&c);
    fake_release(&f);

    unlink(other);
    fake_init(&f, 2);
    f.serve_path = other;
    c = read_peers(path, 2, b.n / 10, &f);
    T_TRUE(agree("peers' file missing", &a, &c));
    T_EQ_U64(f.clean, 0);
    drop(&c);
    fake_release(&f);
    drop(&a);
    free(b.p);
    unlink(path);
}

/* Replaces a message's CRC with the one of its bytes as they are now. */
static void reseal(tbuf *m)
{
    if (m->n < 8) return;
    uint64_t crc = crc32(crc32(0L, Z_NULL, 0), (const Bytef *)m->p, (uInt)(m->n - 8));
    memcpy(m->p + m->n - 8, &crc, 8);
}

/* A message damaged and sealed again (a peer of a broken build: the CRC holds) may be
 * merged, but its ids never reach outside its own tables: under the sanitizers this
 * test fails on any read out of bounds. Every read ends with a status, and a failure
 * says what. */
TEST(peers_resealed_damage_stays_in_bounds)
{
    char path[] = "/tmp/sts_peers_XXXXXX";
    tbuf b = plain_trace(4141, 1200);
    got a = one_pass_file(path, &b);
    T_EQ_I64(a.st, STS_OK);
    rng = 77;
    size_t trials = 0;
    for (int k = 0; k < 60; k++) {
        fake_peers f;
        fake_init(&f, 1);
        got c = read_peers(path, 1, b.n / 6, &f); /* collects the messages */
        drop(&c);
        for (size_t i = 0; i < 512; i++) {
            tbuf *m = &f.msgs[i];
            if (!m->p || m->n <= 48) continue;
            for (int j = 0; j < 1 + (int)rnd(4); j++)
                m->p[32 + rnd((uint32_t)(m->n - 40))] ^= (char)(1u << rnd(8));
            reseal(m);
        }
        f.replay = 1;
        f.fetched = 0;
        c = read_peers(path, 1, b.n / 6, &f);
        trials++;
        T_TRUE(c.st == STS_OK || c.msg[0] != '\0');
        T_TRUE(f.fetched > 0);
        drop(&c);
        fake_release(&f);
    }
    T_TRUE(trials == 60);
    drop(&a);
    free(b.p);
    unlink(path);
}

static int refuse(void *user, size_t index, const void *data, size_t len)
{
    (void)user, (void)index, (void)data, (void)len;
    return -1;
}

static tbuf kept_plan;

/* A start that keeps the plan and declines: the reader reads alone. */
static int keep_start(void *user, const void *plan, size_t len)
{
    (void)user;
    kept_plan.n = 0;
    put(&kept_plan, plan, len);
    return -1;
}

/* A plan that is damaged or not for this part is refused with a message, and a send
 * that fails stops the serving. */
TEST(peers_refuse_bad_plans)
{
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_chunk_serve("nonsense", 8, 1, refuse, NULL, &err), STS_ERR_FORMAT);
    T_CONTAINS(err.message, "chunk plan: damaged");
    char path[] = "/tmp/sts_peers_XXXXXX";
    tbuf b = trace(99, 800);
    got a = one_pass_file(path, &b);
    T_EQ_I64(a.st, STS_OK);
    fake_peers f;
    fake_init(&f, 1);
    f.pub.start = keep_start;
    got c = read_peers(path, 1, b.n / 6, &f);
    T_TRUE(agree("declined", &a, &c));
    T_EQ_U64(f.fetched, 0);
    T_TRUE(kept_plan.n > 80);
    drop(&c);
    drop(&a);

    err = (sts_error)STS_ERROR_INIT;
    T_EQ_I64(sts_chunk_serve(kept_plan.p, kept_plan.n, 0, refuse, NULL, &err), STS_ERR_INVALID_ARG);
    T_EQ_I64(sts_chunk_serve(kept_plan.p, kept_plan.n, 2, refuse, NULL, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "part 2 of 2");
    T_EQ_I64(sts_chunk_serve(kept_plan.p, kept_plan.n, 1, refuse, NULL, &err), STS_ERR_IO);
    T_CONTAINS(err.message, "took no more");
    for (size_t i = 0; i < kept_plan.n; i += 5) {
        kept_plan.p[i] ^= 0x01;
        err = (sts_error)STS_ERROR_INIT;
        T_EQ_I64(sts_chunk_serve(kept_plan.p, kept_plan.n, 1, refuse, NULL, &err), STS_ERR_FORMAT);
        kept_plan.p[i] ^= 0x01;
    }
    T_EQ_I64(sts_chunk_serve(kept_plan.p, kept_plan.n - 1, 1, refuse, NULL, &err), STS_ERR_FORMAT);
    free(kept_plan.p);
    kept_plan = (tbuf){ NULL, 0, 0 };
    free(b.p);
    unlink(path);
}

/* ---- gzip: inflated on its own thread, read serially or in chunks ------------------ */

/* data as one gzip member (level 1..9), or as `members` concatenated members. */
static tbuf gzip_of(const char *data, size_t n, int level, int members)
{
    tbuf out = { NULL, 0, 0 };
    size_t per = n / (size_t)members + 1;
    for (size_t off = 0; off < n || (n == 0 && out.n == 0); off += per) {
        size_t len = n - off < per ? n - off : per;
        z_stream z;
        memset(&z, 0, sizeof z);
        deflateInit2(&z, level, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
        size_t cap = deflateBound(&z, len) + 64;
        char *tmp = malloc(cap);
        z.next_in = (Bytef *)(uintptr_t)(data + off);
        z.avail_in = (uInt)len;
        z.next_out = (Bytef *)tmp;
        z.avail_out = (uInt)cap;
        deflate(&z, Z_FINISH);
        put(&out, tmp, cap - z.avail_out);
        deflateEnd(&z);
        free(tmp);
        if (n == 0) break;
    }
    return out;
}

/* The slices of a and b, compared by their names' text (string ids differ when one
 * read interned strings the other did not). */
static int same_slices_by_text(const sts_timeline *a, const sts_timeline *b)
{
    size_t na, nb;
    const sts_slice *x = sts_timeline_slices(a, &na), *y = sts_timeline_slices(b, &nb);
    if (na != nb) return 0;
    for (size_t i = 0; i < na; i++)
        if (x[i].ts != y[i].ts || x[i].dur != y[i].dur || x[i].lane != y[i].lane || x[i].parent != y[i].parent ||
            x[i].depth != y[i].depth || x[i].flags != y[i].flags || x[i].track != y[i].track ||
            strcmp(sts_timeline_string(a, x[i].name), sts_timeline_string(b, y[i].name)) != 0)
            return 0;
    return 1;
}

/* STS_FLOWS_COUNT: no flow kept, the count KEEP's flows would have, and the rest of
 * the model as KEEP reads it; in one pass, in chunks, and with peers (the plan carries
 * the mode). */
TEST(flows_counted_not_kept)
{
    char path[] = "/tmp/sts_flows_XXXXXX";
    int fd = mkstemp(path);
    T_TRUE(fd >= 0);
    close(fd);
    uint64_t seen = 0;
    for (uint64_t seed = 1; seed <= 60; seed++) {
        tbuf b = trace(seed * 7919, 60 + (int)(seed % 150));
        uint64_t splits[4] = { b.n / 5 + rnd(30), 2 * b.n / 5, 3 * b.n / 5 + rnd(30), 4 * b.n / 5 };
        sts_jr_tuning chunked = { 0, 2, 0, 1, splits, 4, 0, NULL, NULL };
        got keep = read_with(b.p, b.n, NULL, STS_ARGS_ALL, &SERIAL_FAST);
        g_flows = STS_FLOWS_COUNT;
        got count = read_with(b.p, b.n, NULL, STS_ARGS_ALL, &SERIAL_FAST);
        got chunks = read_with(b.p, b.n, NULL, STS_ARGS_ALL, &chunked);
        got peers = { NULL, STS_ERR_IO, "" };
        fake_peers f;
        fake_init(&f, 2);
        if (write_file(path, b.p, b.n)) peers = read_peers(path, 1, b.n / 6 + 1, &f);
        g_flows = STS_FLOWS_KEEP;
        char what[64];
        snprintf(what, sizeof what, "seed %llu", (unsigned long long)seed);
        T_EQ_I64(count.st, keep.st);
        T_EQ_STR(count.msg, keep.msg);
        T_TRUE(agree(what, &count, &chunks));
        if (count.st == STS_OK && peers.tl) { /* the peers' timeline names the file */
            T_EQ_U64(sts_timeline_get_info(peers.tl)->flows, sts_timeline_get_info(count.tl)->flows);
            T_TRUE(same_slices_by_text(count.tl, peers.tl));
        }
        if (keep.st == STS_OK && count.st == STS_OK) {
            size_t nk, nc;
            sts_timeline_flows(keep.tl, &nk);
            sts_timeline_flows(count.tl, &nc);
            T_EQ_U64(nc, 0);
            T_EQ_U64(sts_timeline_get_info(keep.tl)->flows, nk);
            T_EQ_U64(sts_timeline_get_info(count.tl)->flows, nk);
            T_TRUE(same_slices_by_text(keep.tl, count.tl));
            seen += nk;
        }
        fake_release(&f);
        drop(&keep);
        drop(&count);
        drop(&chunks);
        drop(&peers);
        free(b.p);
    }
    T_TRUE(seen > 100); /* the traces held flows */
    unlink(path);
}

/* The gzip bytes read four ways with one inflater: inflated on the reading thread, on
 * a thread of its own (one reader), and that feed read in chunks by 2 and 3 workers
 * (4 KB chunks, so there are many). All four agree. */
static int gzip_paths_agree(const char *what, const char *gz, size_t n)
{
    const sts_jr_tuning tunes[3] = { SERIAL_FAST,
                                     { 0, 2, 4096, 1, NULL, 0, 0, NULL, NULL },
                                     { 0, 3, 4096, 1, NULL, 0, 0, NULL, NULL } };
    got a = read_with(gz, n, NULL, STS_ARGS_KNOWN, &INLINE_INFLATE);
    int ok = 1;
    for (int i = 0; i < 3 && ok; i++) {
        got b = read_with(gz, n, NULL, STS_ARGS_KNOWN, &tunes[i]);
        ok = agree(what, &a, &b);
        drop(&b);
    }
    drop(&a);
    return ok;
}

static const char *const INFLATERS[] = { "isa-l", "zlib" };

TEST(gzip_feed_and_chunks_match_inline_inflate)
{
    for (int k = 0; k < 2; k++) {
        setenv("STEPSCOPE_INFLATE", INFLATERS[k], 1);
        for (uint64_t seed = 1; seed <= 25; seed++) {
            tbuf b = trace(seed * 31337, 200 + (int)(seed * 40));
            tbuf gz = gzip_of(b.p, b.n, 1 + (int)(seed % 9), 1 + (int)(seed % 3));
            char what[80];
            snprintf(what, sizeof what, "%s, seed %llu", INFLATERS[k], (unsigned long long)seed);
            T_TRUE(gzip_paths_agree(what, gz.p, gz.n));
            free(b.p);
            free(gz.p);
        }
    }
    unsetenv("STEPSCOPE_INFLATE");
}

/* Where the build has ISA-L, a gzip stream is inflated by it, unless zlib is asked for
 * (else the "both inflaters" tests here would test one twice). */
TEST(gzip_inflater_is_isal_where_built)
{
    tbuf b = trace(99, 50);
    tbuf gz = gzip_of(b.p, b.n, 6, 1);
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_mem(gz.p, gz.n, "t.json.gz", &err);
#if defined(STS_HAVE_ISAL)
    T_EQ_STR(sts_instream_inflater(in), "isa-l");
#else
    T_EQ_STR(sts_instream_inflater(in), "zlib");
#endif
    sts_instream_free(in);
    setenv("STEPSCOPE_INFLATE", "zlib", 1);
    in = sts_instream_open_mem(gz.p, gz.n, "t.json.gz", &err);
    T_EQ_STR(sts_instream_inflater(in), "zlib");
    sts_instream_free(in);
    unsetenv("STEPSCOPE_INFLATE");
    in = sts_instream_open_mem(b.p, b.n, "t.json", &err);
    T_TRUE(sts_instream_inflater(in) == NULL);
    sts_instream_free(in);
    free(b.p);
    free(gz.p);
}

/* The two inflaters give the same bytes, hence the same timeline, members and all. */
TEST(gzip_inflaters_agree)
{
    tbuf b = trace(777, 2000);
    tbuf gz = gzip_of(b.p, b.n, 6, 3);
    setenv("STEPSCOPE_INFLATE", "zlib", 1);
    got z = read_with(gz.p, gz.n, NULL, STS_ARGS_ALL, &SERIAL_FAST);
    unsetenv("STEPSCOPE_INFLATE");
    got i = read_with(gz.p, gz.n, NULL, STS_ARGS_ALL, &SERIAL_FAST);
    T_TRUE(agree("zlib against the default inflater", &z, &i));
    T_EQ_I64(z.st, STS_OK);
    got plain = read_with(b.p, b.n, NULL, STS_ARGS_ALL, &SERIAL_FAST);
    T_EQ_U64(z.tl->info.bytes, b.n);
    T_EQ_U64(plain.tl->slices.n, z.tl->slices.n);
    drop(&z);
    drop(&i);
    drop(&plain);
    free(b.p);
    free(gz.p);
}

/* A stream cut short or corrupted: the same error, word for word, from every path of
 * one inflater (the bytes before it are read first, then it is reported where met). */
TEST(gzip_errors_are_the_same_on_every_path)
{
    tbuf b = trace(4711, 1500);
    tbuf gz = gzip_of(b.p, b.n, 6, 1);
    for (int k = 0; k < 2; k++) {
        setenv("STEPSCOPE_INFLATE", INFLATERS[k], 1);
        for (size_t cut = gz.n / 7; cut < gz.n; cut += gz.n / 7) {
            char what[80];
            snprintf(what, sizeof what, "%s, cut at %zu of %zu", INFLATERS[k], cut, gz.n);
            T_TRUE(gzip_paths_agree(what, gz.p, cut));
            got g = read_with(gz.p, cut, NULL, STS_ARGS_KNOWN, &SERIAL_FAST);
            T_EQ_I64(g.st, STS_ERR_TRUNCATED);
            drop(&g);
        }
        for (int flip = 0; flip < 6; flip++) {
            size_t at = 20 + (size_t)flip * (gz.n - 40) / 6;
            gz.p[at] ^= 0x5a;
            char what[80];
            snprintf(what, sizeof what, "%s, byte %zu changed", INFLATERS[k], at);
            T_TRUE(gzip_paths_agree(what, gz.p, gz.n));
            got g = read_with(gz.p, gz.n, NULL, STS_ARGS_KNOWN, &SERIAL_FAST);
            T_TRUE(g.st != STS_OK);
            drop(&g);
            gz.p[at] ^= 0x5a;
        }
    }
    unsetenv("STEPSCOPE_INFLATE");
    free(b.p);
    free(gz.p);
}

int main(void)
{
    RUN(fast_parser_matches_reference_on_random_traces);
    RUN(fast_parser_matches_reference_on_bad_input);
    RUN(fast_parser_repeated_pairs_keep_their_own_bytes);
    RUN(shapes_match_reference_on_repeated_events);
    RUN(shapes_match_reference_on_bad_input_and_in_chunks);
    RUN(fast_parser_matches_reference_on_fixtures);
    RUN(fast_parser_matches_reference_on_fuzz_corpus);
    RUN(chunks_split_at_every_byte_give_one_pass);
    RUN(chunks_split_twice_at_every_pair_near_the_middle);
    RUN(chunks_of_random_traces_give_one_pass);
    RUN(chunks_report_errors_and_truncation_as_one_pass);
    RUN(chunks_by_size_give_one_pass);
    RUN(wide_trace_is_read_by_one_thread_long_one_in_chunks);
    RUN(peers_give_one_pass);
    RUN(peers_withheld_or_damaged_chunks_are_read_here);
    RUN(peers_read_their_own_copy_of_the_path);
    RUN(peers_resealed_damage_stays_in_bounds);
    RUN(peers_refuse_bad_plans);
    RUN(flows_counted_not_kept);
    RUN(gzip_feed_and_chunks_match_inline_inflate);
    RUN(gzip_inflater_is_isal_where_built);
    RUN(gzip_inflaters_agree);
    RUN(gzip_errors_are_the_same_on_every_path);
    return t_done();
}
