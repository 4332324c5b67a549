/* The ledger itself: rows, signatures, churn diagnosis, host syncs and the exporters,
 * without a device. */
#include "test.h"

#include "stepscope.h"

static sts_argsig array(const char *name, const char *dtype, int ndim, const int64_t *shape)
{
    sts_argsig a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.kind = STS_PARAM_ARRAY;
    a.dtype = dtype;
    a.ndim = ndim;
    for (int i = 0; i < ndim; i++)
        a.shape[i] = shape[i];
    return a;
}

static sts_argsig dynamic(const char *name)
{
    sts_argsig a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.kind = STS_PARAM_DYNAMIC;
    a.dtype = "float32";
    a.ndim = -1;
    return a;
}

static sts_argsig stat(const char *name, const char *value)
{
    sts_argsig a;
    memset(&a, 0, sizeof a);
    a.name = name;
    a.kind = STS_PARAM_STATIC;
    a.value = value;
    a.ndim = -1;
    return a;
}

/* One row of score(x, gain): a hit when `hit`, else a trace and a compile of `cost` ms. */
static sts_status score_row(sts_ledger *l, int64_t n, int hit, int64_t cost_ms)
{
    sts_argsig args[2] = { array("x", "float32", 1, &n), dynamic("gain") };
    sts_ledger_call c = STS_LEDGER_CALL_INIT;
    c.function = "score";
    c.args = args;
    c.nargs = 2;
    c.hit = hit;
    c.traces = c.compiles = !hit;
    c.trace_ns = hit ? -1 : 1000000;
    c.compile_ns = hit ? -1 : cost_ms * 1000000;
    return sts_ledger_add_call(l, &c, NULL);
}

static int find_churn(const sts_ledger *l, const char *component, sts_ledger_churn *out)
{
    for (size_t i = 0; i < sts_ledger_churn_count(l); i++) {
        sts_ledger_churn_get(l, i, out);
        if (strcmp(out->component, component) == 0) return 1;
    }
    return 0;
}

TEST(rows_and_totals)
{
    sts_ledger *l = sts_ledger_create();
    T_EQ_I64(score_row(l, 8, 0, 40), STS_OK);
    T_EQ_I64(score_row(l, 8, 1, 0), STS_OK);
    T_EQ_I64(score_row(l, 12, 0, 30), STS_OK);
    sts_ledger_fn_info in;
    T_EQ_I64(sts_ledger_function(l, 0, &in), STS_OK);
    T_EQ_STR(in.name, "score");
    T_EQ_I64(in.calls, 3);
    T_EQ_I64(in.traces, 2);
    T_EQ_I64(in.compiles, 2);
    T_EQ_I64(in.hits, 1);
    T_EQ_I64(in.compile_ns, 70000000);
    T_EQ_I64(in.max_compile_ns, 40000000);
    T_EQ_I64(in.signatures, 2);
    T_EQ_STR(sts_ledger_function_signature(l, 0, 1), "x: float32[12], gain: float32 (dynamic)");
    sts_ledger_row r;
    T_EQ_I64(sts_ledger_row_get(l, 1, &r), STS_OK);
    T_EQ_I64(r.call.hit, 1);
    T_EQ_I64(r.call.nargs, 2);
    T_EQ_STR(r.call.args[0].name, "x");
    T_EQ_I64(r.call.args[0].shape[0], 8);
    T_EQ_I64(r.call.compile_ns, -1);
    T_EQ_I64(sts_ledger_row_get(l, 3, &r), STS_ERR_RANGE);
    sts_ledger_free(l);
}

TEST(churn_names_the_varying_dimension_and_buckets)
{
    sts_ledger *l = sts_ledger_create();
    static const int64_t lengths[] = { 8, 12, 16, 20, 24, 28, 32 };
    for (size_t i = 0; i < 7; i++)
        score_row(l, lengths[i], 0, 10);
    score_row(l, 8, 1, 0); /* a hit adds no value */
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_finalize(l, &err), STS_OK);
    sts_ledger_churn c;
    T_TRUE(find_churn(l, "dimension 0 of x", &c));
    T_EQ_I64(c.nvalues, 7);
    T_EQ_STR(c.values, "8, 12, 16, 20, 24, 28, 32");
    T_EQ_I64(c.specializations, 7);
    T_EQ_I64(c.cost_ns, 7 * (1 + 10) * 1000000); /* trace + compile of each miss */
    T_EQ_STR(c.buckets, "8, 16, 32");
    T_EQ_I64(c.nbuckets, 3);
    T_CONTAINS(c.message, "score: dimension 0 of x took 7 values (8, 12, 16, 20, 24, 28, 32)");
    T_CONTAINS(c.message, "pad dimension 0 of x to 3 power-of-two buckets (8, 16, 32) with a validity mask");
    /* gain is dynamic and x's dtype never changed: neither is churn. */
    T_TRUE(!find_churn(l, "dtype of x", &c));
    T_EQ_U64(sts_ledger_churn_count(l), 1);
    sts_ledger_free(l);
}

TEST(churn_on_static_values_and_dtypes)
{
    sts_ledger *l = sts_ledger_create();
    static const char *modes[] = { "relu", "gelu", "tanh" };
    static const char *dtypes[] = { "float32", "bfloat16", "float32" };
    int64_t n = 4;
    for (int i = 0; i < 3; i++) {
        sts_argsig args[2] = { array("x", dtypes[i], 1, &n), stat("mode", modes[i]) };
        sts_ledger_call c = STS_LEDGER_CALL_INIT;
        c.function = "act";
        c.args = args;
        c.nargs = 2;
        c.traces = c.compiles = 1;
        T_EQ_I64(sts_ledger_add_call(l, &c, NULL), STS_OK);
    }
    sts_error err = STS_ERROR_INIT;
    sts_ledger_finalize(l, &err);
    sts_ledger_churn c;
    T_TRUE(find_churn(l, "value of mode", &c));
    T_EQ_STR(c.values, "relu, gelu, tanh");
    T_CONTAINS(c.message, "keep mode static only if it selects program structure");
    T_EQ_I64(c.cost_ns, -1); /* no times were given */
    T_TRUE(find_churn(l, "dtype of x", &c));
    T_EQ_STR(c.values, "float32, bfloat16");
    T_EQ_STR(sts_ledger_function_signature(l, 0, 0), "x: float32[4], mode=relu (static)");
    sts_ledger_free(l);
}

TEST(few_specializations_are_not_churn)
{
    sts_ledger *l = sts_ledger_create();
    score_row(l, 8, 0, 1);
    score_row(l, 12, 0, 1);
    sts_error err = STS_ERROR_INIT;
    sts_ledger_finalize(l, &err);
    T_EQ_U64(sts_ledger_churn_count(l), 0);
    sts_ledger_free(l);
}

TEST(ten_thousand_calls_with_a_hundred_shapes)
{
    sts_ledger *l = sts_ledger_create();
    int bad = 0;
    for (int i = 0; i < 10000; i++) {
        int64_t n = 1 + i % 100;
        bad += score_row(l, n, i >= 100, 2) != STS_OK;
    }
    T_EQ_I64(bad, 0);
    sts_ledger_fn_info in;
    sts_ledger_function(l, 0, &in);
    T_EQ_I64(in.calls, 10000);
    T_EQ_I64(in.compiles, 100);
    T_EQ_I64(in.hits, 9900);
    T_EQ_I64(in.signatures, 100);
    T_EQ_I64(in.compile_ns, 100 * 2000000);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_finalize(l, &err), STS_OK);
    sts_ledger_churn c;
    T_TRUE(find_churn(l, "dimension 0 of x", &c));
    T_EQ_I64(c.nvalues, 100);
    T_EQ_STR(c.buckets, "1, 2, 4, 8, 16, 32, 64, 128");
    FILE *null = fopen("/dev/null", "w");
    T_EQ_I64(sts_ledger_write_json(l, null, NULL, NULL, &err), STS_OK);
    T_EQ_I64(sts_ledger_write_csv(l, null, &err), STS_OK);
    fclose(null);
    sts_ledger_free(l);
}

TEST(host_syncs_grouped_by_scope)
{
    sts_ledger *l = sts_ledger_create();
    for (int i = 0; i < 6; i++)
        sts_ledger_add_sync(l, "metric", "read each step", STS_SYNC_SCALAR, 100 + i, NULL);
    sts_ledger_add_sync(l, "final", "read each step", STS_SYNC_WAIT, 50, NULL);
    sts_ledger_add_sync(l, "final", "one final wait", STS_SYNC_WAIT, 300, NULL);
    sts_ledger_add_sync(l, "x", NULL, STS_SYNC_READ, -5, NULL);
    T_EQ_U64(sts_ledger_sync_count(l), 9);
    T_EQ_U64(sts_ledger_sync_scope_count(l), 3);
    sts_ledger_sync_scope s;
    T_EQ_I64(sts_ledger_sync_scope_get(l, 0, &s), STS_OK);
    T_EQ_STR(s.scope, "read each step");
    T_EQ_I64(s.count, 7);
    T_EQ_I64(s.scalars, 6);
    T_EQ_I64(s.waits, 1);
    T_EQ_I64(s.total_ns, 6 * 100 + 15 + 50);
    T_EQ_I64(s.max_ns, 105);
    T_EQ_I64(sts_ledger_sync_scope_get(l, 1, &s), STS_OK);
    T_EQ_STR(s.scope, "one final wait");
    T_EQ_I64(s.total_ns, 300);
    T_EQ_I64(sts_ledger_sync_scope_get(l, 2, &s), STS_OK);
    T_EQ_STR(s.scope, "default");
    T_EQ_I64(s.total_ns, 0); /* a negative wait is clamped, never negative */
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_add_sync(l, "bad", NULL, (sts_sync_kind)9, 1, &err), STS_ERR_INVALID_ARG);
    sts_ledger_free(l);
}

static char *capture(sts_ledger *l, int which, const char *extra)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    sts_error err = STS_ERROR_INIT;
    if (which == 0)
        sts_ledger_write_json(l, f, extra ? "demo" : NULL, extra, &err);
    else if (which == 1)
        sts_ledger_write_csv(l, f, &err);
    else
        sts_ledger_write_text(l, f, &err);
    fclose(f);
    return buf;
}

TEST(exports)
{
    sts_ledger *l = sts_ledger_create();
    score_row(l, 8, 0, 40);
    sts_argsig q[1] = { stat("label", "say \"hi\", ok") };
    sts_ledger_call c = STS_LEDGER_CALL_INIT;
    c.function = "quote\"d";
    c.label = "a, \"label\"";
    c.args = q;
    c.nargs = 1;
    c.has_result = 1;
    c.result = 140;
    sts_ledger_add_call(l, &c, NULL);
    char *json = capture(l, 0, "{\"checks\": []}");
    T_CONTAINS(json, "\"schema\": \"stepscope.ledger/1\"");
    T_CONTAINS(json, "\"name\": \"quote\\\"d\"");
    T_CONTAINS(json, "\"demo\": {\"checks\": []}");
    T_CONTAINS(json, "\"result\": 140");
    T_CONTAINS(json, "\"trace_ns\": 1000000");
    free(json);
    char *csv = capture(l, 1, NULL);
    T_CONTAINS(csv, "index,function,label,signature,traces,compiles,hit,trace_ns,lower_ns,compile_ns,total_ns,result,"
                    "reason,source\n");
    T_CONTAINS(csv,
               "0,\"score\",\"\",\"x: float32[8], gain: float32 (dynamic)\",1,1,0,1000000,,40000000,,,\"\",\"\"\n");
    T_CONTAINS(csv, "\"quote\"\"d\",\"a, \"\"label\"\"\"");
    free(csv);
    char *text = capture(l, 2, NULL);
    T_CONTAINS(text, "functions (2)");
    free(text);
    sts_ledger_free(l);
}

TEST(bad_calls_are_refused)
{
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    sts_ledger_call c = STS_LEDGER_CALL_INIT;
    T_EQ_I64(sts_ledger_add_call(l, &c, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "function name");
    c.function = "f";
    c.nargs = 2;
    T_EQ_I64(sts_ledger_add_call(l, &c, &err), STS_ERR_INVALID_ARG);
    int64_t shape[9] = { 1, 1, 1, 1, 1, 1, 1, 1, 1 };
    sts_argsig a = array("x", "float32", 8, shape);
    a.ndim = 9;
    c.args = &a;
    c.nargs = 1;
    T_EQ_I64(sts_ledger_add_call(l, &c, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "rank 9");
    T_EQ_I64(sts_ledger_add_reason(l, NULL, STS_MISS_SHAPE, "x", &err), STS_ERR_INVALID_ARG);
    T_EQ_U64(sts_ledger_row_count(l), 0);
    T_EQ_STR(sts_miss_category_name(STS_MISS_WEAK_TYPE), "weak_type");
    T_EQ_STR(sts_sync_kind_name(STS_SYNC_SCALAR), "scalar");
    sts_ledger_free(l);
    sts_ledger_free(NULL);
}

TEST(calls_know_their_hits_and_unknown_values_stay_unknown)
{
    sts_ledger *l = sts_ledger_create();
    score_row(l, 8, 0, 40);
    score_row(l, 8, 1, 0);
    sts_ledger_fn_info in;
    T_EQ_I64(sts_ledger_function(l, 0, &in), STS_OK);
    T_EQ_I64(in.source, STS_LEDGER_SRC_CALLS);
    T_EQ_I64(in.rows, 2);
    T_EQ_I64(in.calls, 2);
    T_EQ_I64(in.hits, 1);
    T_TRUE(in.unknown == NULL);
    /* Recorded calls and no sync: none were recorded, which is known. */
    T_TRUE(sts_ledger_syncs_unknown(l) == NULL);
    /* A static argument whose value is not known prints as "?" and exports as null. */
    sts_argsig a = stat("square", NULL);
    sts_ledger_call c = STS_LEDGER_CALL_INIT;
    c.function = "branch";
    c.args = &a;
    c.nargs = 1;
    c.traces = c.compiles = 1;
    T_EQ_I64(sts_ledger_add_call(l, &c, NULL), STS_OK);
    T_EQ_STR(sts_ledger_function_signature(l, 1, 0), "square=? (static)");
    char *json = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&json, &n);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_write_json(l, f, NULL, NULL, &err), STS_OK);
    fclose(f);
    T_CONTAINS(json, "\"kind\": \"static\",\n          \"value\": null");
    T_CONTAINS(json, "\"calls\": 2,\n      \"hits\": 1,");
    T_TRUE(strstr(json, "\"host_syncs\": {") != NULL);
    free(json);
    sts_ledger_free(l);
}

TEST(churn_values_may_hold_the_separator)
{
    sts_ledger *l = sts_ledger_create();
    static const char *const values[] = { "(1, 2)", "(3, 4)", "5" };
    for (int i = 0; i < 3; i++) {
        sts_argsig a = stat("shape", values[i]);
        sts_ledger_call c = STS_LEDGER_CALL_INIT;
        c.function = "f";
        c.args = &a;
        c.nargs = 1;
        c.traces = c.compiles = 1;
        T_EQ_I64(sts_ledger_add_call(l, &c, NULL), STS_OK);
    }
    char *json = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&json, &n);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_write_json(l, f, NULL, NULL, &err), STS_OK);
    fclose(f);
    sts_ledger_churn c;
    T_TRUE(find_churn(l, "value of shape", &c));
    T_EQ_I64(c.nvalues, 3);
    /* Each value whole in the JSON list, never split at its ", ". */
    T_CONTAINS(json, "\"values\": [\n        \"(1, 2)\",\n        \"(3, 4)\",\n        \"5\"\n      ]");
    T_TRUE(!strstr(json, "\"(1\""));
    free(json);
    sts_ledger_free(l);
}

/* The reader gives back what the writer wrote: totals, rows, syncs and their scopes,
 * and a compile log's unknowns as unknown, never 0. */
TEST(json_reads_back)
{
    sts_ledger *l = sts_ledger_create();
    score_row(l, 8, 0, 40);
    score_row(l, 8, 1, 0);
    score_row(l, 12, 0, 30);
    sts_ledger_add_sync(l, "metric", "read each step", STS_SYNC_SCALAR, 120, NULL);
    sts_ledger_add_sync(l, "metric", "read each step", STS_SYNC_SCALAR, 80, NULL);
    char *json = capture(l, 0, NULL);
    sts_ledger_doc *d = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_ledger_read_json(json, strlen(json), "l.json", &d, &err), STS_OK);
    T_TRUE(d != NULL);
    if (d) {
        sts_ledger_fn_info in;
        sts_ledger_function(l, 0, &in);
        T_EQ_STR(d->schema, "stepscope.ledger/1");
        T_TRUE(d->has_functions && d->has_rows && d->nfunctions == 1 && d->nrows == 3);
        T_EQ_STR(d->functions[0].name, "score");
        T_EQ_I64(d->functions[0].compiles, in.compiles);
        T_EQ_I64(d->functions[0].traces, in.traces);
        T_EQ_I64(d->functions[0].specializations, in.specializations);
        T_EQ_I64(d->functions[0].compile_ns, 70 * 1000000);
        T_EQ_I64(d->functions[0].hits_unknown, 0);
        T_EQ_I64(d->rows[1].compiles, 0);
        T_EQ_I64(d->rows[1].compile_ns, -1); /* a hit: no compile time, not 0 */
        T_EQ_I64(d->rows[2].compile_ns, 30 * 1000000);
        T_EQ_STR(d->rows[2].function, "score");
        T_EQ_I64(d->syncs, STS_LEDGER_DOC_SYNCS_KNOWN);
        T_TRUE(d->nsync_events == 2 && d->sync_events[1].wait_ns == 80);
        T_TRUE(d->nscopes == 1 && d->scopes[0].count == 2 && d->scopes[0].total_ns == 200);
        T_EQ_STR(d->scopes[0].scope, "read each step");
    }
    sts_ledger_doc_free(d);
    sts_ledger_doc_free(NULL);
    free(json);
    sts_ledger_free(l);
    /* A compile log's ledger: hits and syncs unknown. */
    l = sts_ledger_create();
    static const char log[] = "Finished tracing + transforming f for pjit in 0.001 sec\n"
                              "Compiling f with global shapes and types [ShapedArray(float32[8])]. "
                              "Argument mapping: (UnspecifiedValue,).\n"
                              "Finished XLA compilation of jit(f) in 0.25 sec\n";
    T_EQ_I64(sts_ledger_parse_text(l, "c.log", log, sizeof log - 1, &err), STS_OK);
    json = capture(l, 0, NULL);
    T_EQ_I64(sts_ledger_read_json(json, strlen(json), "l.json", &d, &err), STS_OK);
    if (d) {
        T_TRUE(d->nfunctions == 1 && d->functions[0].hits_unknown && d->functions[0].unknown != NULL);
        T_EQ_I64(d->syncs, STS_LEDGER_DOC_SYNCS_UNKNOWN);
        T_TRUE(d->syncs_unknown != NULL && d->nscopes == 0);
    }
    sts_ledger_doc_free(d);
    free(json);
    /* ... and known once a trace was searched (ledger --trace), even with none found there:
     * an empty list, the source said. */
    T_EQ_I64(sts_ledger_set_sync_source(l, NULL, &err), STS_ERR_INVALID_ARG);
    T_EQ_I64(sts_ledger_set_sync_source(NULL, "trace t.json", &err), STS_ERR_INVALID_ARG);
    T_TRUE(sts_ledger_sync_source(NULL) == NULL && sts_ledger_sync_source(l) == NULL);
    T_EQ_I64(sts_ledger_set_sync_source(l, "trace t.json", &err), STS_OK);
    T_EQ_STR(sts_ledger_sync_source(l), "trace t.json");
    T_TRUE(sts_ledger_syncs_unknown(l) == NULL);
    json = capture(l, 0, NULL);
    T_CONTAINS(json, "\"source\": \"trace t.json\"");
    T_EQ_I64(sts_ledger_read_json(json, strlen(json), "l.json", &d, &err), STS_OK);
    if (d) T_TRUE(d->syncs != STS_LEDGER_DOC_SYNCS_UNKNOWN && d->nscopes == 0);
    sts_ledger_doc_free(d);
    free(json);
    sts_ledger_free(l);
}

/* Every way a document can be wrong: named by file, byte and member. */
TEST(json_reader_errors)
{
    static const struct {
        const char *text;
        sts_status st;
        const char *msg;
    } cases[] = {
        { "{\"functions\": [", STS_ERR_PARSE, "l.json: byte 15: " },
        { "{\"a\": 1}", STS_ERR_FORMAT, "l.json: not a ledger" },
        { "[]", STS_ERR_FORMAT, "l.json: not a ledger" },
        { "{\"rows\": {}, \"functions\": []}", STS_ERR_FORMAT, "byte 9: \"rows\" and \"functions\" must be arrays" },
        { "{\"rows\": [1]}", STS_ERR_FORMAT, "byte 10: each of \"rows\" must be an object" },
        { "{\"functions\": [\"f\"]}", STS_ERR_FORMAT, "each of \"functions\" must be an object" },
        { "{\"rows\": [{\"traces\": 1.5}]}", STS_ERR_FORMAT, "byte 21: \"traces\" must be a whole number >= 0" },
        { "{\"functions\": [{\"name\": \"f\", \"specializations\": -1}]}", STS_ERR_FORMAT,
          "\"specializations\" must be a whole number >= 0" },
        { "{\"rows\": [{\"compile_ns\": \"x\"}]}", STS_ERR_FORMAT, "\"compile_ns\" must be a non-negative number" },
        { "{\"rows\": [{\"compile_ns\": 1e300}]}", STS_ERR_RANGE, "\"compile_ns\" is out of range" },
        { "{\"rows\": [], \"host_syncs\": 3}", STS_ERR_FORMAT, "\"host_syncs\" must be an object or null" },
        { "{\"rows\": [], \"host_syncs\": {\"scopes\": {}}}", STS_ERR_FORMAT,
          "\"host_syncs\".\"scopes\" must be an array" },
        { "{\"rows\": [], \"host_syncs\": {\"events\": [{\"wait_ns\": -2}]}}", STS_ERR_FORMAT,
          "\"wait_ns\" must be a non-negative number" },
        { "{\"rows\": [], \"host_syncs\": {\"scopes\": [{\"count\": \"many\"}]}}", STS_ERR_FORMAT,
          "\"count\" must be a whole number >= 0" },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        sts_ledger_doc *d = (sts_ledger_doc *)1;
        sts_error err = STS_ERROR_INIT;
        sts_status st = sts_ledger_read_json(cases[i].text, strlen(cases[i].text), "l.json", &d, &err);
        if (st != cases[i].st || d != NULL || !strstr(err.message, cases[i].msg))
            T_FAIL_AT("case %zu: status %d, message \"%s\"", i, st, err.message);
    }
    /* Rows alone are a ledger (a hand-made one); nulls are unknown. */
    const char *rows = "{\"rows\": [{\"function\": \"f\", \"traces\": null}], \"churn\": [{\"message\": \"m\"}, 1]}";
    sts_ledger_doc *d = NULL;
    T_EQ_I64(sts_ledger_read_json(rows, strlen(rows), "l.json", &d, NULL), STS_OK);
    if (d) {
        T_TRUE(!d->has_functions && d->has_rows && d->rows[0].traces == -1 && d->rows[0].compiles == -1);
        T_TRUE(d->syncs == STS_LEDGER_DOC_SYNCS_ABSENT && d->nchurn == 2 && d->churn[1] == NULL);
        T_EQ_STR(d->churn[0], "m");
    }
    sts_ledger_doc_free(d);
}

int main(void)
{
    RUN(rows_and_totals);
    RUN(churn_names_the_varying_dimension_and_buckets);
    RUN(churn_on_static_values_and_dtypes);
    RUN(few_specializations_are_not_churn);
    RUN(ten_thousand_calls_with_a_hundred_shapes);
    RUN(host_syncs_grouped_by_scope);
    RUN(exports);
    RUN(bad_calls_are_refused);
    RUN(calls_know_their_hits_and_unknown_values_stay_unknown);
    RUN(churn_values_may_hold_the_separator);
    RUN(json_reads_back);
    RUN(json_reader_errors);
    return t_done();
}
