/* Log parsing into the ledger: each fixture in tests/data/logs/ (written by hand from
 * the format strings in JAX's and PyTorch's sources; see each file's header) parses to
 * the counts, times and reasons it was written with. Expected times are the sums of the
 * times written in the fixture, given here as those sums. */
#include "test.h"

#include <unistd.h>
#include <zlib.h>

#include "stepscope.h"

#define LOGS "tests/data/logs/"

static sts_ledger *parse(const char *name)
{
    char path[512];
    snprintf(path, sizeof path, LOGS "%s", name);
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    if (sts_ledger_parse_log(l, path, &err) != STS_OK) fprintf(stderr, "parse %s: %s\n", path, err.message);
    sts_ledger_finalize(l, &err);
    return l;
}

static sts_ledger_fn_info fn(const sts_ledger *l, const char *name)
{
    sts_ledger_fn_info in;
    memset(&in, 0, sizeof in);
    long i = sts_ledger_function_find(l, name);
    if (i < 0)
        fprintf(stderr, "no function %s\n", name);
    else
        sts_ledger_function(l, (size_t)i, &in);
    return in;
}

static const char *sig(const sts_ledger *l, const char *name, size_t j)
{
    long i = sts_ledger_function_find(l, name);
    return i < 0 ? NULL : sts_ledger_function_signature(l, (size_t)i, j);
}

/* The churn entry of `function` about `component`, or NULL. */
static int churn(const sts_ledger *l, const char *function, const char *component, sts_ledger_churn *out)
{
    for (size_t i = 0; i < sts_ledger_churn_count(l); i++) {
        sts_ledger_churn_get(l, i, out);
        if (strcmp(out->function, function) == 0 && strcmp(out->component, component) == 0) return 1;
    }
    return 0;
}

static int has_warning(const sts_ledger *l, const char *needle)
{
    for (size_t i = 0; i < sts_ledger_warning_count(l); i++)
        if (strstr(sts_ledger_warning(l, i), needle)) return 1;
    return 0;
}

static const int64_t MS = 1000000;

TEST(jax_0_4_1_jit_and_pmap)
{
    sts_ledger *l = parse("jax-0.4.1-jit.log");
    sts_ledger_fn_info s = fn(l, "score");
    T_EQ_I64(s.traces, 2);
    T_EQ_I64(s.compiles, 2);
    T_EQ_I64(s.trace_ns, 3125000 + 2 * MS);
    T_EQ_I64(s.compile_ns, (42 + 38) * MS);
    T_EQ_I64(s.max_compile_ns, 42 * MS);
    T_EQ_I64(s.signatures, 2);
    T_EQ_STR(sig(l, "score", 0), "float32[8], float32[]");
    T_EQ_STR(sig(l, "score", 1), "float32[12], float32[]");
    sts_ledger_fn_info p = fn(l, "step"); /* pmap: the module name pmap_step maps back */
    T_EQ_I64(p.compiles, 1);
    T_EQ_I64(p.compile_ns, 250 * MS);
    T_EQ_STR(sig(l, "step", 0), "float32[16], float32[] weak");
    sts_ledger_fn_info w = fn(l, "wide"); /* "for 12 args.": a compile with no shapes */
    T_EQ_I64(w.compiles, 1);
    T_EQ_I64(w.trace_ns, 15000); /* 1.5e-05 sec */
    T_EQ_I64(w.signatures, 0);
    sts_log_stats st = sts_ledger_log_stats(l);
    T_EQ_I64(st.records, 12);
    T_EQ_I64(st.comments, 6);
    T_EQ_I64(st.skipped, 0);
    T_EQ_I64(st.warnings, 0);
    sts_ledger_free(l);
}

TEST(jax_0_4_14_absl_and_persistent_cache)
{
    sts_ledger *l = parse("jax-0.4.14-pjit-absl.log");
    sts_ledger_fn_info s = fn(l, "score");
    T_EQ_I64(s.compiles, 2);
    T_EQ_I64(s.lower_ns, (11 + 9) * MS);
    T_EQ_I64(s.compile_ns, (2 + 50) * MS);
    T_EQ_I64(s.persistent_hits, 1);
    T_EQ_I64(s.persistent_writes, 1);
    /* "<lambda>" traced, module "jit__lambda_" compiled: one function, Python's spelling. */
    sts_ledger_fn_info lam = fn(l, "<lambda>");
    T_EQ_I64(lam.traces, 1);
    T_EQ_I64(lam.compiles, 1);
    T_EQ_I64(lam.compile_ns, 10 * MS);
    T_TRUE(sts_ledger_function_find(l, "_lambda_") < 0);
    T_EQ_U64(sts_ledger_function_count(l), 3);
    T_EQ_STR(sig(l, "layer", 0), "float32[8,4], float32[4,4]");
    T_EQ_I64(sts_ledger_log_stats(l).skipped, 1); /* "Initialized persistent compilation cache" */
    sts_ledger_free(l);
}

TEST(jax_0_4_30_explain_era_one)
{
    sts_ledger *l = parse("jax-0.4.30-explain.log");
    sts_ledger_fn_info s = fn(l, "score (lesson2.py:12)");
    T_EQ_I64(s.traces, 3);
    T_EQ_I64(s.compiles, 3);
    T_EQ_I64(s.reasons[STS_MISS_FIRST], 1);
    T_EQ_I64(s.reasons[STS_MISS_SHAPE], 1);
    T_EQ_I64(s.reasons[STS_MISS_WEAK_TYPE], 1);
    sts_ledger_fn_info b = fn(l, "batch_loss (lesson2.py:45)");
    T_EQ_I64(b.compiles, 8);
    T_EQ_I64(b.reasons[STS_MISS_FIRST], 1);
    T_EQ_I64(b.reasons[STS_MISS_SHAPE], 7);
    sts_ledger_churn c;
    T_TRUE(churn(l, "batch_loss (lesson2.py:45)", "dimension 0 of b", &c));
    T_EQ_STR(c.values, "8, 12, 16, 20, 24, 28, 32, 36");
    T_EQ_I64(c.specializations, 8);
    T_EQ_I64(c.cost_ns, 8 * (2 + 4 + 40) * MS); /* trace + lower + compile of each */
    T_EQ_STR(c.buckets, "8, 16, 32, 64");
    T_CONTAINS(c.message, "with a validity mask");
    /* Positional shapes from "Compiling" got their names from "x: f32[12],  gain: f32[]". */
    T_TRUE(churn(l, "score (lesson2.py:12)", "dimension 0 of x", &c));
    T_EQ_STR(c.values, "8, 12");
    T_TRUE(churn(l, "score (lesson2.py:12)", "weak type of gain", &c));
    T_EQ_I64(fn(l, "kw (lesson2.py:58)").reasons[STS_MISS_PYTREE], 1);
    T_EQ_I64(fn(l, "ctx (lesson2.py:64)").reasons[STS_MISS_CONTEXT], 1);
    T_EQ_I64(fn(l, "branch_score (lesson2.py:38)").reasons[STS_MISS_OTHER], 1);
    T_EQ_I64(sts_ledger_log_stats(l).skipped, 0);
    T_EQ_I64(sts_ledger_warning_count(l), 0);
    sts_ledger_free(l);
}

/* The row a cache-miss explanation was attached to: 0.6 - 0.8 explain after tracing. */
static const char *row_reason(const sts_ledger *l, const char *function, int nth)
{
    for (size_t i = 0; i < sts_ledger_row_count(l); i++) {
        sts_ledger_row r;
        sts_ledger_row_get(l, i, &r);
        if (strcmp(r.call.function, function) == 0 && nth-- == 0) return r.call.reason;
    }
    return NULL;
}

TEST(jax_0_7_explain_era_two)
{
    sts_ledger *l = parse("jax-0.7-explain.log");
    sts_ledger_fn_info s = fn(l, "score (train.py:12)");
    T_EQ_I64(s.compiles, 3);
    T_EQ_I64(s.persistent_misses, 1);
    T_EQ_I64(s.reasons[STS_MISS_SHAPE], 1);
    T_EQ_I64(s.reasons[STS_MISS_WEAK_TYPE], 1);
    T_EQ_STR(row_reason(l, "score (train.py:12)", 1), "shape: dimension 0 of x: 8 -> 12");
    /* Several closest keys in one record count once for the category. */
    sts_ledger_fn_info b = fn(l, "batch_loss (train.py:48)");
    T_EQ_I64(b.reasons[STS_MISS_SHAPE], 4);
    T_EQ_I64(b.persistent_hits, 1);
    sts_ledger_churn c;
    T_TRUE(churn(l, "batch_loss (train.py:48)", "dimension 0 of b", &c));
    T_EQ_STR(c.values, "8, 16, 24, 32, 40");
    T_EQ_I64(fn(l, "branch_score (train.py:38)").reasons[STS_MISS_STATIC], 1);
    T_EQ_I64(fn(l, "act (train.py:42)").reasons[STS_MISS_STATIC], 1);
    T_EQ_I64(fn(l, "cfg (train.py:68)").reasons[STS_MISS_CONTEXT], 1);
    T_EQ_STR(row_reason(l, "branch_score (train.py:38)", 1), "static: value of square: True -> False");
    T_EQ_STR(row_reason(l, "act (train.py:42)", 1), "static: value of static args: 'relu' -> 'gelu'");
    T_EQ_I64(sts_ledger_log_stats(l).skipped, 0);
    sts_ledger_free(l);
}

TEST(jax_0_10_lesson2_explain_era_three)
{
    sts_ledger *l = parse("jax-0.10-lesson2.log");
    sts_ledger_fn_info s = fn(l, "score (lesson2.py:12)");
    /* Lesson 2: new data and a new dynamic gain reuse; lengths 12 and 16 re-trace. */
    T_EQ_I64(s.traces, 3);
    T_EQ_I64(s.compiles, 3);
    T_EQ_I64(s.reasons[STS_MISS_SHAPE], 2);
    sts_ledger_churn c;
    T_TRUE(churn(l, "score (lesson2.py:12)", "dimension 0 of x", &c));
    T_EQ_STR(c.values, "8, 12, 16");
    T_EQ_STR(c.buckets, "8, 16");
    T_TRUE(churn(l, "batch_loss (lesson2.py:105)", "dimension 0 of b", &c));
    T_EQ_I64(c.specializations, 8);
    T_EQ_STR(c.values, "8, 12, 16, 20, 24, 28, 32, 36");
    T_EQ_I64(fn(l, "branch_score (lesson2.py:69)").reasons[STS_MISS_STATIC], 1);
    T_EQ_STR(row_reason(l, "branch_score (lesson2.py:69)", 1), "static: value of square: True -> False");
    sts_ledger_fn_info lo = fn(l, "loss (lesson2.py:120)"); /* re-defined at the same line */
    T_EQ_I64(lo.reasons[STS_MISS_FIRST], 1);
    T_EQ_I64(lo.reasons[STS_MISS_CONTEXT], 2);
    sts_ledger_fn_info g = fn(l, "gain_fn (lesson2.py:125)");
    T_EQ_I64(g.reasons[STS_MISS_WEAK_TYPE], 1);
    T_EQ_I64(g.reasons[STS_MISS_CONTEXT], 2);
    T_EQ_I64(fn(l, "pair (lesson2.py:138)").reasons[STS_MISS_PYTREE], 1);
    T_EQ_STR(sig(l, "add", 0), "float32[8], float32[] weak");
    T_EQ_I64(fn(l, "score (lesson2.py:12)").trace_ns, (5 + 5 + 4) * MS);
    T_EQ_I64(sts_ledger_warning_count(l), 0);
    sts_ledger_free(l);
}

TEST(torch_2_5_recompiles_and_limit)
{
    sts_ledger *l = parse("torch-2.5-recompiles.log");
    sts_ledger_fn_info f = fn(l, "forward (model.py:42)");
    T_EQ_I64(f.rows, 9);   /* the first compile (0/0, implied by the ids) and eight recompiles */
    T_EQ_I64(f.calls, -1); /* torch logs record recompiles, not calls or hits */
    T_EQ_I64(f.hits, -1);
    T_EQ_STR(f.unknown, "not in PyTorch logs");
    T_EQ_I64(f.source, STS_LEDGER_SRC_TORCH_LOG);
    T_EQ_I64(f.compiles, 8); /* 0/0 to 0/7; the eighth recompile was refused by the limit */
    T_EQ_I64(f.specializations, 8);
    T_EQ_I64(f.compile_ns, -1); /* no compile is timed in these logs */
    T_EQ_I64(f.limit_hits, 1);
    T_EQ_I64(f.reasons[STS_MISS_SHAPE], 8);
    T_EQ_I64(f.reasons[STS_MISS_FIRST], 1);
    sts_ledger_churn c;
    T_TRUE(churn(l, "forward (model.py:42)", "dimension 0 of x", &c));
    T_EQ_STR(c.values, "8, 12, 16, 20, 24, 28, 32, 36, 40");
    T_CONTAINS(c.message, "torch._dynamo.mark_dynamic(x, 0)");
    T_CONTAINS(c.message, "dynamic=True");
    T_CONTAINS(row_reason(l, "forward (model.py:42)", 8), "recompile limit");
    T_CONTAINS(row_reason(l, "forward (model.py:42)", 0), "first compile");
    /* The first compile's input is what 0/0's guard expected; the next, what failed it. */
    T_EQ_STR(sig(l, "forward (model.py:42)", 0), "x.size(0)=8");
    T_EQ_STR(sig(l, "forward (model.py:42)", 1), "x.size(0)=12");
    T_EQ_I64(fn(l, "f (util.py:7)").reasons[STS_MISS_DTYPE], 2);
    T_EQ_STR(row_reason(l, "f (util.py:7)", 1), "dtype: dtype of x: float32 -> bfloat16");
    T_EQ_I64(fn(l, "g (util.py:20)").reasons[STS_MISS_CONTEXT], 1);
    T_EQ_I64(sts_ledger_log_stats(l).skipped, 1);
    sts_ledger_free(l);
}

/* A compile id PyTorch never writes (20 digits) is no id: the ledger's counts stay
 * what the listed entries show, never past int64 (found by fuzz_ledger_logs). */
TEST(torch_compile_ids_too_long_are_no_ids)
{
    static const char text[] =
        "V0920 13:54:44.010000 3904 torch/_dynamo/guards.py:2862] [0/1] [__recompiles] Recompiling function "
        "forward in /m.py:42\n"
        "V0920 13:54:44.010000 3904 torch/_dynamo/guards.py:2862] [0/1] [__recompiles]     triggered by the "
        "following guard failure(s):\n"
        "V0920 13:54:44.010000 3904 torch/_dynamo/guards.py:2862] [0/1] [__recompiles]     - "
        "0/99999999999999999999: tensor 'x' size mismatch at index 0. expected 8, actual 12\n";
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(l, "ids.log", text, sizeof text - 1, &err), STS_OK);
    sts_ledger_fn_info f = fn(l, "forward (m.py:42)");
    T_EQ_I64(f.rows, 2);            /* the implied first compile and this recompile */
    T_EQ_I64(f.specializations, 2); /* compile 0/1: entry 0 listed, this is the second */
    sts_ledger_free(l);
}

TEST(torch_2_4_verbose_interleaved_ranks)
{
    sts_ledger *l = parse("torch-2.4-verbose-ranks.log");
    sts_ledger_fn_info f = fn(l, "step (train.py:88)");
    T_EQ_I64(f.rows, 4); /* the first compile and three recompiles */
    T_EQ_I64(f.reasons[STS_MISS_SHAPE], 3);
    sts_ledger_churn c;
    T_TRUE(churn(l, "step (train.py:88)", "dimension 0 of batch", &c));
    T_EQ_I64(c.nvalues, 4); /* 32, 30 (rank 0), 31 (rank 1), 28 */
    T_TRUE(churn(l, "step (train.py:88)", "dimension 0 of mask", &c));
    T_EQ_I64(sts_ledger_log_stats(l).skipped, 0);
    T_EQ_I64(sts_ledger_warning_count(l), 0);
    sts_ledger_free(l);
}

TEST(torch_2_1_cache_size_limit)
{
    sts_ledger *l = parse("torch-2.1-cache-size-limit.log");
    sts_ledger_fn_info f = fn(l, "transform (perf_interp_bilinear_aa.py:5)");
    T_EQ_I64(f.rows, 9);
    T_EQ_I64(f.compiles, 8);        /* the first and seven recompiles; the eighth was refused */
    T_EQ_I64(f.specializations, 8); /* the refused record listed eight entries */
    T_EQ_I64(f.limit_hits, 1);
    sts_ledger_churn c;
    T_TRUE(churn(l, "transform (perf_interp_bilinear_aa.py:5)", "dimension 2 of img", &c));
    T_EQ_I64(c.nvalues, 9);
    sts_ledger_free(l);
}

TEST(mixed_prefixes_and_interleaving)
{
    sts_ledger *l = parse("mixed-interleaved.log");
    sts_ledger_fn_info s = fn(l, "score (a.py:2)");
    T_EQ_I64(s.trace_ns, 4 * MS);
    T_EQ_I64(s.lower_ns, 7 * MS);
    T_EQ_I64(s.compile_ns, 25 * MS);
    T_EQ_I64(s.reasons[STS_MISS_SHAPE], 1);
    T_EQ_STR(row_reason(l, "score (a.py:2)", 0), "shape: dimension 0 of x: 8 -> 12");
    sts_ledger_fn_info f = fn(l, "forward (m.py:10)");
    T_EQ_I64(f.rows, 3);
    T_EQ_I64(f.reasons[STS_MISS_SHAPE], 2);
    sts_log_stats st = sts_ledger_log_stats(l);
    T_EQ_I64(st.skipped, 2);
    T_EQ_I64(st.warnings, 0);
    sts_ledger_free(l);
}

TEST(malformed_records_are_line_numbered_warnings)
{
    sts_ledger *l = parse("malformed.log");
    static const int lines[] = { 5, 6, 7, 8, 9, 10, 11, 12, 17, 18 };
    char needle[64];
    for (size_t i = 0; i < sizeof lines / sizeof lines[0]; i++) {
        snprintf(needle, sizeof needle, "malformed.log:%d: ", lines[i]);
        if (!has_warning(l, needle)) T_FAIL_AT("no warning for line %d", lines[i]);
    }
    T_EQ_I64(sts_ledger_warning_count(l), 10);
    T_TRUE(has_warning(l, "expected 'Finished XLA compilation of NAME in T sec'"));
    T_TRUE(has_warning(l, "(truncated?)"));
    /* The good records around them still count. */
    sts_ledger_fn_info k = fn(l, "k");
    T_EQ_I64(k.compiles, 1);
    T_EQ_I64(k.compile_ns, 3 * MS);
    T_TRUE(sts_ledger_function_find(l, "h") < 0); /* the cut "Compiling h" made no row */
    sts_ledger_free(l);
}

TEST(no_records)
{
    sts_ledger *l = parse("no-records.log");
    sts_log_stats st = sts_ledger_log_stats(l);
    T_EQ_I64(st.records, 0);
    T_EQ_I64(st.skipped, 2);
    T_EQ_I64(st.comments, 1);
    sts_ledger_free(l);
}

static char *slurp(const char *path, size_t *len)
{
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *buf = malloc((size_t)n + 1);
    *len = fread(buf, 1, (size_t)n, f);
    fclose(f);
    return buf;
}

TEST(gzip_and_crlf_read_the_same)
{
    size_t len;
    char *text = slurp(LOGS "jax-0.7-explain.log", &len);
    T_TRUE(text != NULL);
    if (!text) return;
    char gz[256];
    snprintf(gz, sizeof gz, "%s/sts_ledger_%d.log.gz", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp", (int)getpid());
    gzFile g = gzopen(gz, "wb");
    gzwrite(g, text, (unsigned)len);
    gzclose(g);
    sts_ledger *a = sts_ledger_create(), *b = sts_ledger_create(), *c = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(a, "plain", text, len, &err), STS_OK);
    T_EQ_I64(sts_ledger_parse_log(b, gz, &err), STS_OK);
    /* The same text with CRLF line ends. */
    char *crlf = malloc(len * 2 + 1);
    size_t n = 0;
    for (size_t i = 0; i < len; i++) {
        if (text[i] == '\n') crlf[n++] = '\r';
        crlf[n++] = text[i];
    }
    T_EQ_I64(sts_ledger_parse_text(c, "crlf", crlf, n, &err), STS_OK);
    sts_ledger *all[] = { a, b, c };
    for (int i = 0; i < 3; i++) {
        sts_ledger_finalize(all[i], &err);
        sts_ledger_fn_info s = fn(all[i], "batch_loss (train.py:48)");
        T_EQ_I64(s.compiles, 5);
        T_EQ_I64(s.compile_ns, 5 * 60 * MS);
        T_EQ_I64(sts_ledger_log_stats(all[i]).records, sts_ledger_log_stats(a).records);
    }
    for (int i = 0; i < 3; i++)
        sts_ledger_free(all[i]);
    free(crlf);
    free(text);
    remove(gz);
}

/* Every prefix of every fixture parses without crashing (ASan/UBSan watch), and a
 * cut inside a record is a warning or a skipped line, never a made-up number. */
TEST(every_truncation_parses)
{
    static const char *files[] = { "jax-0.4.30-explain.log",      "jax-0.10-lesson2.log",  "torch-2.5-recompiles.log",
                                   "torch-2.4-verbose-ranks.log", "mixed-interleaved.log", "malformed.log" };
    for (size_t f = 0; f < sizeof files / sizeof files[0]; f++) {
        char path[256];
        snprintf(path, sizeof path, LOGS "%s", files[f]);
        size_t len;
        char *text = slurp(path, &len);
        if (!text) {
            T_FAIL_AT("cannot read %s", path);
            continue;
        }
        size_t step = len / 97 + 1;
        for (size_t cut = 0; cut <= len; cut += step) {
            sts_ledger *l = sts_ledger_create();
            sts_error err = STS_ERROR_INIT;
            T_EQ_I64(sts_ledger_parse_text(l, files[f], text, cut, &err), STS_OK);
            T_EQ_I64(sts_ledger_finalize(l, &err), STS_OK);
            FILE *null = fopen("/dev/null", "w");
            sts_ledger_write_json(l, null, NULL, NULL, &err);
            sts_ledger_write_text(l, null, &err);
            fclose(null);
            sts_ledger_free(l);
        }
        free(text);
    }
}

TEST(unreadable_file_is_an_error)
{
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_log(l, LOGS "does-not-exist.log", &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "does-not-exist.log");
    T_EQ_I64(sts_ledger_parse_text(l, "empty", "", 0, &err), STS_OK);
    T_EQ_I64(sts_ledger_log_stats(l).records, 0);
    sts_ledger_free(l);
}

/* The row of `function` that compiled, nth of them. */
static const sts_ledger_call *compiled_row(const sts_ledger *l, const char *function, int nth, sts_ledger_row *out)
{
    for (size_t i = 0; i < sts_ledger_row_count(l); i++) {
        sts_ledger_row_get(l, i, out);
        if (strcmp(out->call.function, function) == 0 && out->call.compiles && nth-- == 0) return &out->call;
    }
    return NULL;
}

TEST(jax_0_9_lambdas_keep_their_identity)
{
    sts_ledger *l = parse("jax-0.9-lesson2-lambdas.log");
    /* Three lambdas, three functions: each compiled once. */
    static const char *const lambdas[] = { "<lambda> (script.py:68)", "<lambda> (script.py:104)",
                                           "<lambda> (script.py:131)" };
    for (int i = 0; i < 3; i++) {
        sts_ledger_fn_info f = fn(l, lambdas[i]);
        T_EQ_I64(f.compiles, 1);
        T_EQ_I64(f.rows, 1);
        T_EQ_I64(f.reasons[STS_MISS_FIRST], 1);
        T_EQ_I64(f.reasons[STS_MISS_CONTEXT], 0);
    }
    T_TRUE(sts_ledger_function_find(l, "<lambda>") < 0);
    /* The cond's branch lambdas were explained while the lambda at 131 was traced. */
    sts_ledger_fn_info inner = fn(l, "<lambda> (script.py:131, called at script.py:131:40)");
    T_EQ_I64(inner.rows, 0);
    T_EQ_I64(inner.reasons[STS_MISS_FIRST], 1);
    T_EQ_I64(inner.reasons[STS_MISS_CONTEXT], 1);
    T_EQ_I64(inner.redefined, 1);
    sts_ledger_row r;
    const sts_ledger_call *c = compiled_row(l, "<lambda> (script.py:131)", 0, &r);
    T_TRUE(c != NULL);
    if (c) T_EQ_STR(c->reason, "first: first call");
    /* broken_branch was traced (and failed): a trace, no compile. */
    sts_ledger_fn_info b = fn(l, "broken_branch (script.py:118)");
    T_EQ_I64(b.traces, 1);
    T_EQ_I64(b.compiles, 0);
    /* The static value is in both of branch_score's signatures. */
    T_EQ_STR(sig(l, "branch_score (script.py:52)", 0), "float32[8], square=True (static)");
    T_EQ_STR(sig(l, "branch_score (script.py:52)", 1), "float32[8], square=False (static)");
    /* Helpers traced inside score are rows of their own, without a compile. */
    sts_ledger_fn_info m = fn(l, "multiply");
    T_EQ_I64(m.traces, 4);
    T_EQ_I64(m.compiles, 0);
    sts_ledger_fn_info s = fn(l, "score (script.py:25)");
    T_EQ_I64(s.calls, -1);
    T_EQ_I64(s.hits, -1);
    T_EQ_STR(s.unknown, "not in JAX logs");
    T_EQ_I64(s.source, STS_LEDGER_SRC_JAX_LOG);
    T_EQ_STR(sts_ledger_syncs_unknown(l), "not in JAX logs");
    T_EQ_U64(sts_ledger_churn_count(l), 1);
    T_EQ_U64(sts_ledger_warning_count(l), 0);
    sts_ledger_free(l);
}

TEST(lambdas_without_sites_are_not_diagnosed_as_one_function)
{
    sts_ledger *l = parse("jax-0.9-lesson2-noexplain.log");
    sts_ledger_fn_info f = fn(l, "<lambda>");
    T_EQ_I64(f.compiles, 3);
    sts_ledger_churn c;
    T_TRUE(churn(l, "<lambda>", "identity not in the log", &c));
    T_CONTAINS(c.message, "enable jax_explain_cache_misses");
    for (size_t i = 0; i < sts_ledger_churn_count(l); i++) {
        sts_ledger_churn_get(l, i, &c);
        if (strcmp(c.function, "<lambda>") == 0) T_EQ_STR(c.component, "identity not in the log");
    }
    sts_ledger_free(l);
}

static sts_ledger *parse_string(const char *text)
{
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(l, "t.log", text, strlen(text), &err), STS_OK);
    T_EQ_I64(sts_ledger_finalize(l, &err), STS_OK);
    return l;
}

#define MISS_HEAD  "TRACING CACHE MISS at /s.py:14:4 (<module>):\n"
#define NEVER_SEEN "  never seen function:\n    power id=7 defined at /s.py:10\n"
#define FOR_POWER \
    "  for power defined at /s.py:10\n  all previously seen cache keys differ. For the closest previous key:\n"
#define STATIC_CHANGE(now, before)                                                                              \
    "  different input pytree:\n  * at input path [0][1], now <class 'jax._src.tree_util.Static'> with pytree " \
    "metadata Static(val=" now                                                                                  \
    ") and before <class 'jax._src.tree_util.Static'> with pytree metadata Static(val=" before                  \
    "), so the pytree node metadata does not match\n"
#define POWER_ROWS(shape)                                                                    \
    "Finished tracing + transforming power for pjit in 0.001 sec\n"                          \
    "Compiling jit(power) with global shapes and types (ShapedArray(float32[" shape "]),). " \
    "Argument mapping: (UnspecifiedValue,).\nFinished XLA compilation of jit(power) in 0.01 sec\n"

TEST(static_values_join_the_signatures)
{
    /* JAX 0.9: the explanation names the value before and now; "before" was the first row's. */
    sts_ledger *l = parse_string(MISS_HEAD NEVER_SEEN POWER_ROWS("8") MISS_HEAD FOR_POWER STATIC_CHANGE("2", "1")
                                     POWER_ROWS("8") MISS_HEAD FOR_POWER STATIC_CHANGE("3", "1") POWER_ROWS("8"));
    T_EQ_I64(fn(l, "power (s.py:10)").signatures, 3);
    T_EQ_STR(sig(l, "power (s.py:10)", 0), "float32[8], argument 1=1 (static)");
    T_EQ_STR(sig(l, "power (s.py:10)", 1), "float32[8], argument 1=2 (static)");
    T_EQ_STR(sig(l, "power (s.py:10)", 2), "float32[8], argument 1=3 (static)");
    sts_ledger_churn c;
    T_TRUE(churn(l, "power (s.py:10)", "value of argument 1", &c));
    T_EQ_STR(c.values, "1, 2, 3");
    sts_ledger_free(l);
    /* Two earlier rows without the value: which one "before" was is not in the log. */
    l = parse_string(MISS_HEAD NEVER_SEEN POWER_ROWS("8") MISS_HEAD FOR_POWER
                     "  different input types:\n  * at v, now f32[12] and before f32[8]\n" POWER_ROWS("12")
                         MISS_HEAD FOR_POWER STATIC_CHANGE("2", "1") POWER_ROWS("12"));
    T_EQ_STR(sig(l, "power (s.py:10)", 0), "float32[8], argument 1=? (static)");
    T_EQ_STR(sig(l, "power (s.py:10)", 1), "float32[12], argument 1=? (static)");
    T_EQ_STR(sig(l, "power (s.py:10)", 2), "float32[12], argument 1=2 (static)");
    sts_ledger_row r;
    const sts_ledger_call *c0 = compiled_row(l, "power (s.py:10)", 0, &r);
    T_TRUE(c0 && c0->nargs == 2 && c0->args[1].kind == STS_PARAM_STATIC && c0->args[1].value == NULL);
    sts_ledger_free(l);
    /* JAX 0.7 explains after the trace, with static kwargs: the same signatures. */
    l = parse("jax-0.7-explain.log");
    T_EQ_STR(sig(l, "branch_score (train.py:38)", 0), "float32[8], square=True (static)");
    T_EQ_STR(sig(l, "branch_score (train.py:38)", 1), "float32[8], square=False (static)");
    sts_ledger_free(l);
}

/* "* at v, now and before f32[8]": " and before " is there only from the space that
 * ends ", now ", so no types can be read and the line is kept as it is (a read before
 * the line's start under UBSan, found by fuzz_ledger_logs after 2.78 M executions). */
TEST(explain_patterns_that_overlap_are_kept_as_text)
{
    sts_ledger *l = parse_string(MISS_HEAD NEVER_SEEN POWER_ROWS("8") MISS_HEAD FOR_POWER
                                 "  different input types:\n  * at v, now and before f32[8]\n" POWER_ROWS("12"));
    sts_ledger_fn_info f = fn(l, "power (s.py:10)");
    T_EQ_I64(f.rows, 2);
    T_EQ_I64(f.reasons[STS_MISS_OTHER], 1);
    T_EQ_I64(f.reasons[STS_MISS_SHAPE], 0);
    sts_ledger_free(l);
}

TEST(nested_jit_traces_are_not_the_outer_compile)
{
    sts_ledger *l = parse_string("TRACING CACHE MISS at /s.py:27 (<module>):\n  never seen function:\n"
                                 "    outer id=4 defined at /s.py:24\n"
                                 "TRACING CACHE MISS at /s.py:26:11 (outer):\n  never seen function:\n"
                                 "    inner id=5 defined at /s.py:21\n"
                                 "Finished tracing + transforming inner for pjit in 0.001 sec\n"
                                 "Finished tracing + transforming outer for pjit in 0.002 sec\n"
                                 "Compiling jit(outer) with global shapes and types (ShapedArray(float32[8]),). "
                                 "Argument mapping: (UnspecifiedValue,).\n"
                                 "Finished XLA compilation of jit(outer) in 0.01 sec\n"
                                 "Compiling jit(inner) with global shapes and types (ShapedArray(float32[8]),). "
                                 "Argument mapping: (UnspecifiedValue,).\n"
                                 "Finished XLA compilation of jit(inner) in 0.02 sec\n");
    sts_ledger_fn_info o = fn(l, "outer (s.py:24)"), in = fn(l, "inner (s.py:21)");
    T_EQ_I64(o.traces, 1);
    T_EQ_I64(o.compiles, 1);
    T_EQ_I64(o.reasons[STS_MISS_FIRST], 1);
    /* inner: traced inside outer, then compiled on its own (its trace was cached). */
    T_EQ_I64(in.traces, 1);
    T_EQ_I64(in.compiles, 1);
    T_EQ_I64(in.rows, 2);
    T_EQ_I64(in.compile_ns, 20 * MS);
    T_EQ_I64(in.reasons[STS_MISS_FIRST], 1);
    sts_ledger_free(l);
}

/* A text of `n` copies of byte c. */
static char *repeat(char c, size_t n)
{
    char *s = malloc(n + 1);
    if (s) memset(s, c, n), s[n] = 0;
    return s;
}

TEST(long_lines_are_skipped_and_binary_is_refused)
{
    const char *rec = "Finished tracing + transforming f for pjit in 0.001 sec\n";
    size_t big = (size_t)STS_LEDGER_MAX_LINE + 10;
    char *x = repeat('x', big);
    T_TRUE(x != NULL);
    if (!x) return;
    size_t n = strlen(rec) * 2 + big + 1;
    char *text = malloc(n + 1);
    snprintf(text, n + 1, "%s%s\n%s", rec, x, rec);
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(l, "long.log", text, strlen(text), &err), STS_OK);
    sts_log_stats st = sts_ledger_log_stats(l);
    T_EQ_I64(st.lines, 3);
    T_EQ_I64(st.long_lines, 1);
    T_EQ_I64(st.records, 2);
    T_EQ_I64(st.warnings, 1);
    T_CONTAINS(sts_ledger_warning(l, 0), "long.log:2: a line of 1048586 bytes, longer than the 1048576 bytes");
    T_EQ_I64(fn(l, "f").traces, 2);
    sts_ledger_free(l);
    /* The same line of NUL bytes is binary data: an error naming its offset; the record
     * before it is kept. */
    memset(text + strlen(rec), 0, big);
    l = sts_ledger_create();
    err = (sts_error)STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(l, "bin.log", text, strlen(rec) * 2 + big + 1, &err), STS_ERR_FORMAT);
    char want[96];
    snprintf(want, sizeof want, "bin.log: byte %zu: NUL bytes in a line longer than 1048576 bytes", strlen(rec));
    T_CONTAINS(err.message, want);
    T_EQ_I64(err.byte_offset, (int64_t)strlen(rec)); /* the first NUL follows the first line */
    T_EQ_I64(fn(l, "f").traces, 1);
    /* A short line with a NUL is text with a stray byte, shown as '?'. */
    sts_ledger_free(l);
    l = parse_string("");
    err = (sts_error)STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(l, "nul.log", "Finished tracing + transforming g\0h for pjit in 1 sec\n", 55, &err),
             STS_OK);
    T_TRUE(sts_ledger_function_find(l, "g?h") >= 0);
    sts_ledger_free(l);
    free(text);
    free(x);
}

/* A JSON export with the file name left out, for comparing two parses. */
static char *json_of(sts_ledger *l)
{
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    sts_error err = STS_ERROR_INIT;
    sts_ledger_write_json(l, f, NULL, NULL, &err);
    fclose(f);
    return buf;
}

TEST(streamed_file_and_memory_parse_agree)
{
    size_t len;
    char *text = slurp(LOGS "jax-0.9-lesson2-lambdas.log", &len);
    T_TRUE(text != NULL);
    if (!text) return;
    sts_ledger *a = sts_ledger_create(), *b = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(a, LOGS "jax-0.9-lesson2-lambdas.log", text, len, &err), STS_OK);
    T_EQ_I64(sts_ledger_parse_log(b, LOGS "jax-0.9-lesson2-lambdas.log", &err), STS_OK);
    char *ja = json_of(a), *jb = json_of(b);
    T_EQ_STR(ja, jb);
    free(ja);
    free(jb);
    sts_ledger_free(a);
    sts_ledger_free(b);
    free(text);
}

/* ---- property: random logs keep their totals --------------------------------------------- */

static uint64_t rnd_state = 0x9e3779b97f4a7c15ull;
static unsigned rnd(unsigned n)
{
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return (unsigned)(rnd_state % n);
}

/* One random record of the kinds a JAX or torch log holds, or a line of noise. */
static void random_record(FILE *f)
{
    static const char *const names[] = { "f", "g", "<lambda>", "loss", "step" };
    const char *name = names[rnd(5)];
    unsigned line = 10 + rnd(4), dim = 4 << rnd(4);
    switch (rnd(9)) {
    case 0:
        fprintf(f, "TRACING CACHE MISS at /s.py:%u:4 (%s):\n  never seen function:\n    %s id=%u defined at /s.py:%u\n",
                40 + rnd(3), rnd(3) ? "<module>" : "<lambda>", name, rnd(1000), line);
        break;
    case 1:
        fprintf(f,
                "TRACING CACHE MISS at /s.py:50 (<module>)%s:\n  for %s defined at /s.py:%u\n  different input types:\n"
                "  * at x, now f32[%u] and before f32[%u]\n",
                rnd(2) ? "" : " costing 1.0 ms because", name, line, dim, dim * 2);
        break;
    case 2:
    case 3:
        fprintf(f, "Finished tracing + transforming %s for pjit in 0.00%u sec\n", name, 1 + rnd(9));
        break;
    case 4:
    case 5:
        fprintf(f,
                "Compiling jit(%s) with global shapes and types (ShapedArray(float32[%u]),). Argument mapping: "
                "(UnspecifiedValue,).\n",
                name, dim);
        break;
    case 6:
        fprintf(f, "Finished XLA compilation of jit(%s) in 0.0%u sec\n", name, 1 + rnd(9));
        break;
    case 7:
        fprintf(f,
                "Recompiling function %s in /m.py:%u\n    triggered by the following guard failure(s):\n"
                "    - 0/%u: tensor 'x' size mismatch at index 0. expected %u, actual %u\n",
                name, line, rnd(4), dim, dim + 4);
        break;
    default:
        fprintf(f, "epoch %u loss 0.%u\n", rnd(100), rnd(100));
    }
}

TEST(random_logs_keep_their_totals)
{
    int64_t all_rows = 0, all_churn = 0, all_reasons = 0;
    for (int round = 0; round < 200; round++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        unsigned nrec = 1 + rnd(40);
        for (unsigned i = 0; i < nrec; i++)
            random_record(f);
        fclose(f);
        sts_ledger *l = sts_ledger_create();
        sts_error err = STS_ERROR_INIT;
        T_EQ_I64(sts_ledger_parse_text(l, "r.log", text, len, &err), STS_OK);
        T_EQ_I64(sts_ledger_finalize(l, &err), STS_OK);
        int64_t rows = 0, traces = 0, compiles = 0, compile_ns = 0;
        for (size_t i = 0; i < sts_ledger_function_count(l); i++) {
            sts_ledger_fn_info in;
            sts_ledger_function(l, i, &in);
            rows += in.rows;
            traces += in.traces;
            compiles += in.compiles;
            /* -1: compiles whose times no row gave; then no single compile is known either. */
            if (in.compile_ns == -1 && (in.compiles == 0 || in.max_compile_ns != -1))
                T_FAIL_AT("round %d: %s compile time unknown without unknown compiles", round, in.name);
            compile_ns += in.compile_ns > 0 ? in.compile_ns : 0;
            if (in.hits != -1 || in.calls != -1 || !in.unknown)
                T_FAIL_AT("round %d: %s has known hits", round, in.name);
            if (in.signatures > in.rows) T_FAIL_AT("round %d: %s has more signatures than rows", round, in.name);
            if (in.max_compile_ns > in.compile_ns) T_FAIL_AT("round %d: %s max > total compile", round, in.name);
        }
        int64_t rt = 0, rc = 0, rns = 0;
        for (size_t i = 0; i < sts_ledger_row_count(l); i++) {
            sts_ledger_row r;
            sts_ledger_row_get(l, i, &r);
            rt += r.call.traces;
            rc += r.call.compiles;
            rns += r.call.compile_ns > 0 ? r.call.compile_ns : 0;
            if (r.call.hit) T_FAIL_AT("round %d: a log row claims a hit", round);
        }
        all_rows += rows;
        all_churn += (int64_t)sts_ledger_churn_count(l);
        for (size_t i = 0; i < sts_ledger_function_count(l); i++) {
            sts_ledger_fn_info in;
            sts_ledger_function(l, i, &in);
            for (int k = 0; k < STS_MISS_COUNT; k++)
                all_reasons += in.reasons[k];
        }
        T_EQ_I64(rows, (int64_t)sts_ledger_row_count(l));
        T_EQ_I64(traces, rt);
        T_EQ_I64(compiles, rc);
        T_EQ_I64(compile_ns, rns);
        sts_log_stats st = sts_ledger_log_stats(l);
        if (st.records + st.skipped + st.comments + st.long_lines > st.lines) T_FAIL_AT("round %d: counts", round);
        for (size_t i = 0; i < sts_ledger_churn_count(l); i++) {
            sts_ledger_churn c;
            sts_ledger_churn_get(l, i, &c);
            if (sts_ledger_function_find(l, c.function) < 0) T_FAIL_AT("round %d: churn of no function", round);
            if (c.values[0] && c.nvalues < 2) T_FAIL_AT("round %d: churn with one value", round);
        }
        sts_ledger_free(l);
        free(text);
        if (t_current_failed) break;
    }
    /* The generator made what the properties are about. */
    T_GE_I64(all_rows, 1000);
    T_GE_I64(all_churn, 10);
    T_GE_I64(all_reasons, 500);
}

TEST(warnings_are_counted_all_and_kept_to_a_thousand)
{
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    for (int i = 0; i < 1500; i++)
        fprintf(f, "Finished XLA compilation of jit(f) in soon\n");
    fclose(f);
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_text(l, "w.log", text, len, &err), STS_OK);
    T_EQ_I64(sts_ledger_log_stats(l).warnings, 1500);
    T_EQ_U64(sts_ledger_warning_count(l), 1000);
    T_CONTAINS(sts_ledger_warning(l, 999), "w.log:1000: ");
    sts_ledger_free(l);
    free(text);
}

/* ---- TORCH_TRACE (torch/_logging/_internal.py trace_structured) ---------------------- */

/* Lines in the shape torch 2.15 writes them: a glog prefix, one JSON object, and the
 * payload's lines each after a tab. Times are the ones written here. */
#define TT_P        "V1204 02:34:10.737000 4423 torch/_dynamo/convert_frame.py:309] "
#define TT_ID(f, c) "\"frame_id\": " #f ", \"frame_compile_id\": " #c ", \"attempt\": 0"
static const char tt_log[] = TT_P "{\"chromium_event\": {}, " TT_ID(
    0,
    0) ", \"has_payload\": \"ab\"}\n"
       "\t{\n"
       "\t\"compilation_metrics\": {\"compile_id\": \"9/9\"}\n" /* a payload line is no record */
       "\t}\n" TT_P "{\"str\": [\"/home/u/train.py\", 1]}\n" TT_P
       "{\"dynamo_start\": {\"stack\": [{\"line\": 3, \"name\": \"f\", \"filename\": 1}]}, " TT_ID(
           0,
           0) "}\n" TT_P
              "{\"artifact\": {\"name\": \"dynamo_graph_break_reason\", \"encoding\": \"string\"}, " TT_ID(
                  0,
                  0) ", "
                     "\"has_payload\": \"cd\"}\n"
                     "\tGraph break in user code at /home/u/train.py:5\n"
                     "\tGraph Break Reason: Encountered graph break when attempting to trace CALL: a function call, "
                     "e.g. f(x, y):\n"
                     "\t\n"
                     "\tCall to `torch._dynamo.graph_break()`\n"
                     "\t  Explanation: User-inserted graph break. Message: None\n" TT_P
                     "{\"compilation_metrics\": {\"compile_id\": \"0/0\", \"co_name\": \"f\", \"co_filename\": "
                     "\"/home/u/train.py\", "
                     "\"co_firstlineno\": 3, \"entire_frame_compile_time_s\": 0.5, \"backend_compile_time_s\": 0.125, "
                     "\"restart_reasons\": [\"Call to `torch._dynamo.graph_break()`\\n  Explanation: ...\"], "
                     "\"fail_type\": null}, "
                     "\"frame_id\": 0, \"frame_compile_id\": 0, \"attempt\": 1}\n" TT_P
                     "{\"artifact\": {\"name\": \"recompile_reasons\", \"encoding\": \"json\"}, " TT_ID(
                         0, 1) ", \"has_payload\": \"ef\"}\n"
                               "\t0/0: tensor 'x' size mismatch at index 0. expected 4, actual 8\n" TT_P
                               "{\"compilation_metrics\": {\"compile_id\": \"0/1\", \"co_name\": \"f\", "
                               "\"co_filename\": \"/home/u/train.py\", "
                               "\"co_firstlineno\": 3, \"entire_frame_compile_time_s\": 0.25, "
                               "\"backend_compile_time_s\": 0.0625, "
                               "\"restart_reasons\": [\"Call to `torch._dynamo.graph_break()`\"]}, " TT_ID(
                                   0,
                                   1) "}\n" TT_P "{\"compilation_metrics\": {\"compile_id\": \"0/2\", "
                                      "\"entire_frame_compile_time_s\": 0.001, "
                                      "\"fail_type\": \"Unsupported\", \"fail_reason\": \"Dynamo recompile limit "
                                      "exceeded\\n  Explanation: ...\", "
                                      "\"recompile_reason\": \"0/1: tensor 'x' size mismatch at index 0. expected 8, "
                                      "actual 16\"}, " TT_ID(
                                          0,
                                          2) "}\n" TT_P "{\"compilation_metrics\": {\"compile_id\": \"1/0\", "
                                             "\"co_name\": \"h\", \"co_filename\": \"/home/u/train.py\", "
                                             "\"co_firstlineno\": 10, \"entire_frame_compile_time_s\": 1.0}, " TT_ID(
                                                 1,
                                                 0) "}\n" TT_P
                                                    "{\"compilation_metrics\": {\"compile_id\": \"1/1\", \"co_name\": "
                                                    "\"h\", \"co_filename\": \"/home/u/train.py\", "
                                                    "\"co_firstlineno\": 10, \"entire_frame_compile_time_s\": 0.5, "
                                                    "\"backend_compile_time_s\": 0.25, "
                                                    "\"recompile_reason\": \"1/0: ___check_type_id(k, 9447), "
                                                    "type=<class 'float'>  # return x * k\\nUser stack "
                                                    "trace:\\n  File \\\"train.py\\\", line 11\"}, " TT_ID(
                                                        1,
                                                        1) "}\n" TT_P
                                                           "{\"compilation_metrics\": {\"compile_id\": \"1/2\", "
                                                           "\"co_name\": \"h\", \"co_filename\": \"/home/u/train.py\", "
                                                           "\"co_firstlineno\": 10, \"entire_frame_compile_time_s\": "
                                                           "0.5, \"backend_compile_time_s\": 0.25, "
                                                           "\"recompile_reason\": \"1/1: tensor 'x' requires_grad "
                                                           "mismatch. expected requires_grad=0\"}, " TT_ID(1, 2) "}\n";

static sts_ledger *parse_mem(const char *name, const char *text)
{
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    if (sts_ledger_parse_text(l, name, text, strlen(text), &err) != STS_OK) fprintf(stderr, "%s\n", err.message);
    sts_ledger_finalize(l, &err);
    return l;
}

static const char *row_field(const sts_ledger *l, const char *name, size_t j, int64_t *trace, int64_t *compile,
                             int *compiles)
{
    size_t k = 0;
    for (size_t i = 0; i < sts_ledger_row_count(l); i++) {
        sts_ledger_row r;
        sts_ledger_row_get(l, i, &r);
        if (strcmp(r.call.function, name) != 0 || k++ != j) continue;
        *trace = r.call.trace_ns;
        *compile = r.call.compile_ns;
        *compiles = r.call.compiles;
        return r.call.reason ? r.call.reason : "";
    }
    return NULL;
}

TEST(torch_trace_compiles_times_breaks_and_limit)
{
    sts_ledger *l = parse_mem("dedicated_log_torch_trace_t.log", tt_log);
    T_EQ_I64(sts_ledger_warning_count(l), 0);
    sts_ledger_fn_info f = fn(l, "f (train.py:3)");
    T_EQ_I64(f.source, STS_LEDGER_SRC_TORCH_TRACE);
    T_EQ_I64(f.rows, 3);
    T_EQ_I64(f.compiles, 2); /* 0/0 (a first compile, counted) and 0/1; 0/2 was refused */
    T_EQ_I64(f.specializations, 2);
    T_EQ_I64(f.limit_hits, 1);
    T_EQ_I64(f.reasons[STS_MISS_FIRST], 1);
    T_EQ_I64(f.reasons[STS_MISS_SHAPE], 2);
    /* Dynamo's part is the frame's time less the backend's. */
    T_EQ_I64(f.trace_ns, (int64_t)((0.5 - 0.125 + 0.25 - 0.0625) * 1e9));
    T_EQ_I64(f.compile_ns, (int64_t)((0.125 + 0.0625) * 1e9));
    T_EQ_I64(f.calls, -1);
    int64_t tr, co;
    int n;
    T_CONTAINS(row_field(l, "f (train.py:3)", 0, &tr, &co, &n), "first");
    T_EQ_STR(row_field(l, "f (train.py:3)", 1, &tr, &co, &n), "shape: dimension 0 of x: 4 -> 8");
    T_EQ_I64(co, 62500000);
    T_CONTAINS(row_field(l, "f (train.py:3)", 2, &tr, &co, &n), "recompile limit");
    T_EQ_I64(n, 0);
    T_EQ_I64(tr, -1);
    T_EQ_STR(sig(l, "f (train.py:3)", 0), "x.size(0)=4"); /* what 0/0's guard expected */
    /* One graph break per compile of f: the artifact's site and torch's name for it,
     * counted once although restart_reasons repeat it for 0/0. */
    T_EQ_I64(f.graph_breaks, 2);
    T_EQ_U64(sts_ledger_graph_break_count(l), 2);
    sts_ledger_graph_break g;
    T_EQ_I64(sts_ledger_graph_break_get(l, 0, &g), STS_OK);
    T_EQ_STR(g.function, "f (train.py:3)");
    T_EQ_STR(g.where, "train.py:5");
    T_EQ_STR(g.reason, "Call to `torch._dynamo.graph_break()`");
    T_EQ_I64(g.count, 1);
    T_EQ_I64(sts_ledger_graph_break_get(l, 1, &g), STS_OK); /* 0/1 had no artifact: its restart reason */
    T_EQ_STR(g.where, "");
    T_EQ_STR(g.reason, "Call to `torch._dynamo.graph_break()`");
    sts_ledger_fn_info h = fn(l, "h (train.py:10)");
    T_EQ_I64(h.compiles, 3);
    T_EQ_I64(h.graph_breaks, 0);
    T_EQ_I64(h.trace_ns, (int64_t)((0.25 + 0.25) * 1e9)); /* 1/0 gave no backend time: not in the total */
    T_EQ_I64(h.reasons[STS_MISS_PYTREE], 0);              /* a float that became an int is a value, not structure */
    T_EQ_I64(h.reasons[STS_MISS_STATIC], 1);
    T_EQ_STR(row_field(l, "h (train.py:10)", 1, &tr, &co, &n),
             "static: type of k: was float (a Python number torch specializes on)");
    T_EQ_STR(row_field(l, "h (train.py:10)", 2, &tr, &co, &n), "context: requires_grad of x: False -> True");
    row_field(l, "h (train.py:10)", 0, &tr, &co, &n);
    T_EQ_I64(tr, -1); /* no backend time: the split is unknown, not 0 */
    T_EQ_I64(n, 1);
    sts_log_stats st = sts_ledger_log_stats(l);
    T_EQ_I64(st.records, 10); /* str, dynamo_start, 2 artifacts, 6 compilation_metrics */
    T_EQ_I64(st.skipped, 1);  /* the chromium_event; its payload lines are part of it */
    sts_ledger_free(l);
}

TEST(torch_trace_bad_records_are_warnings)
{
    static const char text[] =
        TT_P "{\"compilation_metrics\": {\"compile_id\": \"0/0\", \"co_name\": \"f\",\n" TT_P
             "{\"compilation_metrics\": {\"co_name\": \"f\"}}\n" TT_P
             "{\"compilation_metrics\": {\"compile_id\": \"3/1\"}}\n" TT_P "{\"str\": [\"a.py\", -1]}\n" TT_P
             "{\"artifact\": {\"name\": \"dynamo_graph_break_reason\"}, " TT_ID(
                 7, 0) "}\n"
                       "\tGraph break in user code at a.py:3\n" TT_P
                       "{\"artifact\": {\"name\": \"dynamo_graph_break_reason\"}, " TT_ID(7, 1) "}\n";
    sts_ledger *l = parse_mem("bad_trace.log", text);
    T_EQ_I64(sts_ledger_warning_count(l), 6);
    T_TRUE(has_warning(l, "bad_trace.log:5: graph break in compile 7/0 of a frame no record named"));
    T_TRUE(has_warning(l, "bad_trace.log:7: a dynamo_graph_break_reason artifact without its compile id or payload"));
    T_TRUE(has_warning(l, "bad_trace.log:1: a TORCH_TRACE record that is not one JSON object: bad_trace.log:1: byte"));
    T_TRUE(has_warning(l, "bad_trace.log:2: a TORCH_TRACE compilation_metrics record without a compile id"));
    T_TRUE(has_warning(l, "bad_trace.log:3: compile 3/1 names no function"));
    T_TRUE(has_warning(l, "bad_trace.log:4: a TORCH_TRACE \"str\" record that is not"));
    T_EQ_U64(sts_ledger_function_count(l), 0);
    sts_ledger_free(l);
}

/* TORCH_TRACE=DIR writes one file per process: a directory reads them all, in name
 * order; one without them is an error that names what was expected. */
TEST(torch_trace_directory)
{
    char dir[] = "/tmp/sts_tt_XXXXXX", path[300];
    T_TRUE(mkdtemp(dir) != NULL);
    for (int rank = 0; rank < 2; rank++) {
        snprintf(path, sizeof path, "%s/dedicated_log_torch_trace_rank_%d_x.log", dir, rank);
        FILE *f = fopen(path, "w");
        T_TRUE(f != NULL);
        fputs(tt_log, f);
        fclose(f);
    }
    snprintf(path, sizeof path, "%s/other.txt", dir);
    FILE *o = fopen(path, "w");
    fputs("not a log\n", o);
    fclose(o);
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_parse_log(l, dir, &err), STS_OK);
    sts_ledger_finalize(l, &err);
    T_EQ_I64(sts_ledger_log_stats(l).files, 2);
    T_EQ_I64(fn(l, "f (train.py:3)").compiles, 4); /* two processes, two compiles each */
    T_EQ_I64(fn(l, "f (train.py:3)").limit_hits, 2);
    sts_ledger_free(l);
    for (int rank = 0; rank < 2; rank++) {
        snprintf(path, sizeof path, "%s/dedicated_log_torch_trace_rank_%d_x.log", dir, rank);
        unlink(path);
    }
    l = sts_ledger_create();
    T_EQ_I64(sts_ledger_parse_log(l, dir, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message,
               "a directory without TORCH_TRACE logs: expected files named dedicated_log_torch_trace_*.log");
    sts_ledger_free(l);
    unlink(path);
    snprintf(path, sizeof path, "%s/other.txt", dir);
    unlink(path);
    rmdir(dir);
}

/* Random TORCH_TRACE logs: up to four frames, each compiled in order (some attempts
 * refused at the limit, some meeting graph breaks), records interleaved across frames,
 * with payload-carrying records the reader skips. What was written is counted here and
 * the ledger must give the same: compiles, refusals, rows, graph breaks, and the time
 * totals (written in whole microseconds, so exact in ns). */
TEST(random_torch_traces_keep_their_totals)
{
    for (int round = 0; round < 200; round++) {
        char *text = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&text, &len);
        int next[4] = { 0 }, compiled[4] = { 0 }, refused[4] = { 0 }, breaks[4] = { 0 };
        int64_t backend_ns[4] = { 0 }, dynamo_ns[4] = { 0 };
        unsigned nrec = 1 + rnd(30);
        int records = 0;
        for (unsigned i = 0; i < nrec; i++) {
            int fr = (int)rnd(4), c = next[fr]++;
            if (rnd(3) == 0) /* a record the ledger skips, with a payload */
                fprintf(f, TT_P "{\"chromium_event\": {}, " TT_ID(% d, % d) ", \"has_payload\": \"x\"}\n\t{\n\t}\n", fr,
                        c);
            if (rnd(3) == 0) {
                fprintf(f,
                        TT_P "{\"dynamo_start\": {\"stack\": [{\"line\": %d, \"name\": \"fn%d\", \"filename\": "
                             "\"/w/m.py\"}]}, " TT_ID(% d, % d) "}\n",
                        10 * fr + 1, fr, fr, c);
                records++;
            }
            if (c > 0 && rnd(4) == 0) {              /* refused at the limit: no co_name, as torch writes it */
                if (!compiled[fr] && !refused[fr]) { /* no name known for the frame yet: skip */
                    next[fr]--;
                    continue;
                }
                fprintf(f,
                        TT_P "{\"compilation_metrics\": {\"compile_id\": \"%d/%d\", \"fail_type\": \"Unsupported\", "
                             "\"fail_reason\": \"Dynamo recompile limit exceeded\", \"recompile_reason\": \"%d/%d: "
                             "tensor 'x' size mismatch at index 0. expected %d, actual %d\"}, " TT_ID(% d, % d) "}\n",
                        fr, c, fr, c - 1, c, c + 1, fr, c);
                refused[fr]++;
                records++;
                continue;
            }
            int brk = rnd(2) == 0;
            if (brk) {
                fprintf(f,
                        TT_P "{\"artifact\": {\"name\": \"dynamo_graph_break_reason\", \"encoding\": \"string\"}, "
                             "" TT_ID(% d, % d) ", \"has_payload\": \"y\"}\n\tGraph break in user code at /w/m.py:%d\n"
                                                "\tReason: Unsupported: builtin print\n",
                        fr, c, 10 * fr + 2);
                records++;
                breaks[fr]++;
            }
            int64_t be = (int64_t)rnd(500000), dy = (int64_t)rnd(900000);
            fprintf(f,
                    TT_P
                    "{\"compilation_metrics\": {\"compile_id\": \"%d/%d\", \"co_name\": \"fn%d\", \"co_filename\": "
                    "\"/w/m.py\", \"co_firstlineno\": %d, \"entire_frame_compile_time_s\": %d.%06d, "
                    "\"backend_compile_time_s\": 0.%06d%s}, " TT_ID(% d, % d) "}\n",
                    fr, c, fr, 10 * fr + 1, (int)((be + dy) / 1000000), (int)((be + dy) % 1000000), (int)be,
                    brk ? ", \"restart_reasons\": [\"Unsupported: builtin print\"]" : "", fr, c);
            records++;
            compiled[fr]++;
            backend_ns[fr] += be * 1000;
            dynamo_ns[fr] += dy * 1000;
        }
        fclose(f);
        sts_ledger *l = sts_ledger_create();
        sts_error err = STS_ERROR_INIT;
        T_EQ_I64(sts_ledger_parse_text(l, "dedicated_log_torch_trace_r.log", text, len, &err), STS_OK);
        T_EQ_I64(sts_ledger_finalize(l, &err), STS_OK);
        T_EQ_I64(sts_ledger_warning_count(l), 0);
        T_EQ_I64(sts_ledger_log_stats(l).records, records);
        int64_t gb_total = 0;
        for (size_t i = 0; i < sts_ledger_graph_break_count(l); i++) {
            sts_ledger_graph_break g;
            sts_ledger_graph_break_get(l, i, &g);
            gb_total += g.count;
        }
        int64_t want_gb = 0;
        for (int fr = 0; fr < 4; fr++) {
            want_gb += breaks[fr];
            char name[64];
            snprintf(name, sizeof name, "fn%d (m.py:%d)", fr, 10 * fr + 1);
            long fi = sts_ledger_function_find(l, name);
            if (!compiled[fr] && !refused[fr]) {
                if (fi >= 0) T_FAIL_AT("round %d: %s was never compiled", round, name);
                continue;
            }
            sts_ledger_fn_info in;
            if (fi < 0 || sts_ledger_function(l, (size_t)fi, &in) != STS_OK) {
                T_FAIL_AT("round %d: no %s", round, name);
                continue;
            }
            if (in.compiles != compiled[fr] || in.limit_hits != refused[fr] || in.rows != compiled[fr] + refused[fr] ||
                in.graph_breaks != breaks[fr] || in.source != STS_LEDGER_SRC_TORCH_TRACE)
                T_FAIL_AT("round %d: %s: compiles %lld/%d, limit %lld/%d, rows %lld, breaks %lld/%d", round, name,
                          (long long)in.compiles, compiled[fr], (long long)in.limit_hits, refused[fr],
                          (long long)in.rows, (long long)in.graph_breaks, breaks[fr]);
            int64_t want_co = compiled[fr] ? backend_ns[fr] : 0, want_tr = compiled[fr] ? dynamo_ns[fr] : 0;
            if (in.compile_ns != want_co || in.trace_ns != want_tr)
                T_FAIL_AT("round %d: %s: compile %lld (want %lld), trace %lld (want %lld)", round, name,
                          (long long)in.compile_ns, (long long)want_co, (long long)in.trace_ns, (long long)want_tr);
            if (in.reasons[STS_MISS_FIRST] > 1) T_FAIL_AT("round %d: %s: two first compiles", round, name);
        }
        T_EQ_I64(gb_total, want_gb);
        sts_ledger_free(l);
        free(text);
    }
}

/* A dynamo_start naming its file by a number no "str" record gave: the frame is named
 * by its compilation_metrics, never a function of an unknown file. */
TEST(torch_trace_unknown_file_number)
{
    static const char text[] =
        TT_P "{\"dynamo_start\": {\"stack\": [{\"line\": 3, \"name\": \"f\", \"filename\": 5}]}, " TT_ID(
            0, 0) "}\n" TT_P
                  "{\"artifact\": {\"name\": \"dynamo_graph_break_reason\"}, " TT_ID(
                      0, 0) "}\n"
                            "\tGraph break in user code at /w/train.py:4\n\tReason: Unsupported: x\n" TT_P
                            "{\"compilation_metrics\": {\"co_name\": \"f\", \"co_filename\": \"/w/train.py\", "
                            "\"co_firstlineno\": 3, "
                            "\"entire_frame_compile_time_s\": 0.5}, " TT_ID(0, 0) "}\n";
    sts_ledger *l = parse_mem("unknown_file.log", text);
    T_EQ_U64(sts_ledger_function_count(l), 1);
    T_EQ_I64(fn(l, "f (train.py:3)").graph_breaks, 1);
    T_EQ_I64(sts_ledger_warning_count(l), 0);
    sts_ledger_free(l);
}

int main(void)
{
    RUN(jax_0_4_1_jit_and_pmap);
    RUN(jax_0_4_14_absl_and_persistent_cache);
    RUN(jax_0_4_30_explain_era_one);
    RUN(jax_0_7_explain_era_two);
    RUN(jax_0_10_lesson2_explain_era_three);
    RUN(torch_2_5_recompiles_and_limit);
    RUN(torch_compile_ids_too_long_are_no_ids);
    RUN(torch_2_4_verbose_interleaved_ranks);
    RUN(torch_2_1_cache_size_limit);
    RUN(mixed_prefixes_and_interleaving);
    RUN(malformed_records_are_line_numbered_warnings);
    RUN(no_records);
    RUN(gzip_and_crlf_read_the_same);
    RUN(every_truncation_parses);
    RUN(unreadable_file_is_an_error);
    RUN(jax_0_9_lambdas_keep_their_identity);
    RUN(lambdas_without_sites_are_not_diagnosed_as_one_function);
    RUN(static_values_join_the_signatures);
    RUN(explain_patterns_that_overlap_are_kept_as_text);
    RUN(nested_jit_traces_are_not_the_outer_compile);
    RUN(long_lines_are_skipped_and_binary_is_refused);
    RUN(streamed_file_and_memory_parse_agree);
    RUN(random_logs_keep_their_totals);
    RUN(warnings_are_counted_all_and_kept_to_a_thousand);
    RUN(torch_trace_compiles_times_breaks_and_limit);
    RUN(torch_trace_bad_records_are_warnings);
    RUN(torch_trace_directory);
    RUN(torch_trace_unknown_file_number);
    RUN(random_torch_traces_keep_their_totals);
    return t_done();
}
