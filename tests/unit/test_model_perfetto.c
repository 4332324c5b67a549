/* Perfetto's own conformance tests for its JSON importer
 * (test/trace_processor/diff_tests/parser/json/tests.py in google/perfetto), restated for
 * stepscope: the same input, the same expected rows, asserted on stepscope's model in its
 * own words. docs/perfetto.md lists every test of that file and what became of it here:
 * passes, not applicable, or differs on purpose. Each TEST below is named after the
 * Perfetto test it restates. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepscope.h"
#include "stepscope/analyze.h"
#include "test.h"

static sts_timeline *open_json(const char *json)
{
    char path[256];
    snprintf(path, sizeof path, "/tmp/sts_test_model_perfetto_%d.json", (int)getpid());
    FILE *f = fopen(path, "wb");
    fwrite(json, 1, strlen(json), f);
    fclose(f);
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = STS_ARGS_ALL;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(path, &o, &tl, &err) != STS_OK) T_FAIL_AT("open: %s", err.message);
    remove(path);
    return tl;
}

static const char *S(const sts_timeline *tl, uint32_t id)
{
    return sts_timeline_string(tl, id);
}

/* The (first) slice with this name, or NULL. */
static const sts_slice *slice(const sts_timeline *tl, const char *name)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(S(tl, s[i].name), name) == 0) return &s[i];
    return NULL;
}

static size_t count_slices(const sts_timeline *tl)
{
    size_t n;
    sts_timeline_slices(tl, &n);
    return n;
}

static const sts_track *track(const sts_timeline *tl, const sts_slice *s)
{
    return &sts_timeline_tracks(tl, NULL)[s->track];
}

static const sts_lane *lane_of(const sts_timeline *tl, const sts_slice *s)
{
    return &sts_timeline_lanes(tl, NULL)[s->lane];
}

static const sts_process *proc_of(const sts_timeline *tl, const sts_slice *s)
{
    return &sts_timeline_processes(tl, NULL)[lane_of(tl, s)->process];
}

/* Perfetto's thread_or_process_slice: slices on thread or process tracks. */
static int thread_or_process(const sts_timeline *tl, const sts_slice *s)
{
    uint32_t k = track(tl, s)->kind;
    return k == STS_TRACK_THREAD || k == STS_TRACK_OVERFLOW || k == STS_TRACK_PROCESS_INSTANTS;
}

/* Perfetto shows a slice that never ended with dur -1. */
static int64_t table_dur(const sts_slice *s)
{
    return (s->flags & STS_SLICE_UNCLOSED) ? -1 : s->dur;
}

static const sts_process *process(const sts_timeline *tl, const char *label)
{
    size_t n;
    const sts_process *p = sts_timeline_processes(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (!p[i].global && strcmp(S(tl, p[i].label), label) == 0) return &p[i];
    return NULL;
}

static const sts_lane *thread(const sts_timeline *tl, const char *pid, const char *tid)
{
    size_t n;
    const sts_lane *l = sts_timeline_lanes(tl, &n);
    const sts_process *p = sts_timeline_processes(tl, NULL);
    for (size_t i = 0; i < n; i++)
        if (l[i].kind == STS_LANE_THREAD && strcmp(S(tl, p[l[i].process].label), pid) == 0 &&
            strcmp(S(tl, l[i].label), tid) == 0)
            return &l[i];
    return NULL;
}

/* An arg of slice s: its index in sts_timeline_args(), or -1. */
static long arg_at(const sts_timeline *tl, const sts_slice *s, const char *key)
{
    const sts_arg *a = sts_timeline_find_arg(tl, s->args, key);
    return a ? (long)(a - sts_timeline_args(tl, NULL)) : -1;
}

/* Perfetto's counter name: "NAME id: ID SERIES", or "NAME SERIES". */
static const sts_counter *counter(const sts_timeline *tl, const char *full)
{
    size_t n;
    const sts_counter *c = sts_timeline_counters(tl, &n);
    for (size_t i = 0; i < n; i++) {
        char name[256];
        if (c[i].id)
            snprintf(name, sizeof name, "%s id: %s %s", S(tl, c[i].name), S(tl, c[i].id), S(tl, c[i].series));
        else
            snprintf(name, sizeof name, "%s %s", S(tl, c[i].name), S(tl, c[i].series));
        if (strcmp(name, full) == 0) return &c[i];
    }
    return NULL;
}

/* ---- the tests ---------------------------------------------------------------------- */

TEST(string_pid_tid)
{
    sts_timeline *tl = open_json("{\"traceEvents\": [{\"pid\": \"foo\", \"tid\": \"bar\", \"ts\": 5.1, \"dur\": 500.1,"
                                 " \"name\": \"name.exec\", \"ph\": \"XXX\", \"cat\": \"aaa\"}]}");
    if (!tl) return;
    const sts_slice *s = slice(tl, "name.exec");
    T_TRUE(s != NULL);
    if (s) {
        T_EQ_I64(s->ts, 5100);
        T_EQ_I64(table_dur(s), 500100);
        T_EQ_STR(S(tl, proc_of(tl, s)->name), "foo"); /* a pid written as a string names its process */
        T_EQ_STR(S(tl, lane_of(tl, s)->name), "bar");
    }
    sts_timeline_free(tl);
}

TEST(args_ordered)
{
    /* Perfetto's input has a trailing comma inside the first args object, which is not
     * JSON: stepscope refuses it (docs/perfetto.md). Without it: */
    sts_timeline *tl = open_json("[{\"name\": \"Event1\", \"cat\": \"C\", \"ph\": \"b\", \"ts\": 40000, \"pid\": 1,"
                                 " \"id\": 1, \"args\": {\"02.step2\": 2}},"
                                 "{\"name\": \"Event2\", \"cat\": \"C\", \"ph\": \"b\", \"ts\": 40000, \"pid\": 2,"
                                 " \"id\": 1, \"args\": {\"01.step1\": 1, \"02.step2\": 2}}]");
    if (!tl) return;
    const sts_slice *a = slice(tl, "Event1"), *b = slice(tl, "Event2");
    T_TRUE(a && b);
    if (a && b) {
        const sts_arg *args = sts_timeline_args(tl, NULL);
        T_EQ_I64(args[a->args].v.i, 2);
        T_EQ_STR(S(tl, args[a->args].key), "02.step2");
        T_TRUE(args[a->args].last);
        T_EQ_STR(S(tl, args[b->args].key), "01.step1");
        T_EQ_I64(args[b->args].v.i, 1);
        T_EQ_STR(S(tl, args[b->args + 1].key), "02.step2");
        T_EQ_I64(args[b->args + 1].v.i, 2);
    }
    sts_timeline_free(tl);
}

TEST(x_event_order)
{
    sts_timeline *tl =
        open_json("[{\"name\": \"Child\", \"ph\": \"X\", \"ts\": 1, \"dur\": 5, \"pid\": 1},"
                  "{\"name\": \"Parent\", \"ph\": \"X\", \"ts\": 1, \"dur\": 10, \"pid\": 1, \"tid\": 1}]");
    if (!tl) return;
    const sts_slice *p = slice(tl, "Parent"), *c = slice(tl, "Child");
    T_TRUE(p && c);
    if (p && c) {
        T_EQ_I64(p->ts, 1000);
        T_EQ_I64(p->dur, 10000);
        T_EQ_I64(p->depth, 0);
        T_EQ_I64(c->ts, 1000);
        T_EQ_I64(c->dur, 5000);
        T_EQ_I64(c->depth, 1);
        T_TRUE(p < c); /* the table's order */
    }
    sts_timeline_free(tl);
}

TEST(json_incomplete)
{
    sts_timeline *tl = open_json("[\n{\"name\":\"typecheck\",\"ph\":\"X\",\"ts\":4619295550.000,\"dur\":8000.000,"
                                 "\"pid\":306339,\"tid\":3},\n");
    if (!tl) return;
    T_EQ_U64(count_slices(tl), 1);
    const sts_slice *s = slice(tl, "typecheck");
    if (s) T_EQ_I64(s->ts, 4619295550000);
    sts_timeline_free(tl);
}

static const char all_slice_types[] =
    "[{\"ph\": \"B\", \"pid\": 10, \"tid\": 11, \"ts\": 100, \"name\": \"BeginEvent\", \"cat\": \"cat1\","
    " \"args\": {\"arg_str\": \"hello\", \"arg_int\": 123, \"arg_bool\": true}},"
    "{\"ph\": \"E\", \"pid\": 10, \"tid\": 11, \"ts\": 200, \"name\": \"EndEvent\", \"cat\": \"cat1\", \"tts\": 190,"
    " \"args\": {\"arg_double\": 45.67}},"
    "{\"ph\": \"X\", \"pid\": 10, \"tid\": 12, \"ts\": 250, \"dur\": 50, \"name\": \"CompleteEvent\","
    " \"cat\": \"cat2,cat3\", \"tts\": 240, \"tdur\": 40, \"args\": {\"arg_null\": null, \"another_int\": -5}},"
    "{\"ph\": \"I\", \"pid\": 10, \"tid\": 11, \"ts\": 300, \"name\": \"InstantGlobal\", \"cat\": \"cat_inst\","
    " \"s\": \"g\", \"args\": {}},"
    "{\"ph\": \"I\", \"pid\": 10, \"tid\": 0, \"ts\": 310, \"name\": \"InstantProcess\", \"cat\": \"cat_inst\","
    " \"s\": \"p\", \"args\": {\"scope_val\": \"process\"}},"
    "{\"ph\": \"I\", \"pid\": 10, \"tid\": 11, \"ts\": 320, \"name\": \"InstantThread\", \"cat\": \"cat_inst\","
    " \"s\": \"t\"},"
    "{\"ph\": \"I\", \"pid\": 10, \"tid\": 12, \"ts\": 330, \"name\": \"InstantDefaultScope\", \"cat\": \"cat_inst\"},"
    "{\"ph\": \"R\", \"pid\": 10, \"tid\": 11, \"ts\": 340, \"name\": \"InstantR\", \"cat\": \"cat_inst\", \"s\": "
    "\"g\"},"
    "{\"ph\": \"i\", \"pid\": 10, \"tid\": 11, \"ts\": 350, \"name\": \"Instanti\", \"cat\": \"cat_inst\", \"s\": "
    "\"t\"}]";

TEST(json_all_slice_types)
{
    sts_timeline *tl = open_json(all_slice_types);
    if (!tl) return;
    /* thread_or_process_slice: every slice but the two global instants. */
    static const struct {
        const char *name;
        int64_t ts, dur;
    } want[] = {
        { "BeginEvent", 100000, -1 },       { "InstantThread", 320000, 0 },       { "Instanti", 350000, 0 },
        { "CompleteEvent", 250000, 50000 }, { "InstantDefaultScope", 330000, 0 }, { "InstantProcess", 310000, 0 }
    };
    size_t n, shown = 0;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        shown += thread_or_process(tl, &s[i]);
    T_EQ_U64(shown, 6);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const sts_slice *x = slice(tl, want[k].name);
        T_TRUE(x && thread_or_process(tl, x));
        if (!x) continue;
        T_EQ_I64(x->ts, want[k].ts);
        T_EQ_I64(table_dur(x), want[k].dur);
    }
    /* The E is named EndEvent: it closes no B named BeginEvent. */
    T_TRUE(slice(tl, "BeginEvent")->flags & STS_SLICE_UNCLOSED);
    T_EQ_I64(track(tl, slice(tl, "InstantGlobal"))->kind, STS_TRACK_GLOBAL_INSTANTS);
    T_EQ_I64(track(tl, slice(tl, "InstantR"))->kind, STS_TRACK_GLOBAL_INSTANTS);
    T_EQ_I64(track(tl, slice(tl, "InstantProcess"))->kind, STS_TRACK_PROCESS_INSTANTS);
    /* Args as Perfetto lists them (stepscope's keys have no "args." prefix). */
    const sts_arg *args = sts_timeline_args(tl, NULL);
    const sts_slice *b = slice(tl, "BeginEvent"), *c = slice(tl, "CompleteEvent"), *p = slice(tl, "InstantProcess");
    long a;
    T_TRUE((a = arg_at(tl, b, "arg_str")) >= 0 && strcmp(S(tl, args[a].v.str), "hello") == 0);
    T_TRUE((a = arg_at(tl, b, "arg_int")) >= 0 && args[a].v.i == 123);
    T_TRUE((a = arg_at(tl, b, "arg_bool")) >= 0 && args[a].type == STS_ARG_BOOL && args[a].v.i == 1);
    T_TRUE((a = arg_at(tl, c, "another_int")) >= 0 && args[a].v.i == -5);
    T_TRUE((a = arg_at(tl, p, "scope_val")) >= 0 && strcmp(S(tl, args[a].v.str), "process") == 0);
    sts_timeline_free(tl);
}

TEST(json_flow)
{
    /* The same events: no flow event, so no slice has a flow in or out. */
    sts_timeline *tl = open_json(all_slice_types);
    if (!tl) return;
    size_t nf;
    sts_timeline_flows(tl, &nf);
    T_EQ_U64(nf, 0);
    T_TRUE(slice(tl, "BeginEvent") != NULL);
    sts_timeline_free(tl);
}

TEST(json_metadata)
{
    sts_timeline *tl = open_json(
        "[{\"ph\": \"B\", \"pid\": 30, \"tid\": 31, \"ts\": 790, \"name\": \"ActivityOnThread31\","
        " \"cat\": \"test_cat_setup\"},"
        "{\"ph\": \"C\", \"pid\": 30, \"tid\": 31, \"ts\": 800, \"name\": \"MyCounters\", \"cat\": \"stats\","
        " \"id\": \"counter_group_1\", \"args\": {\"counter1_float\": 100.5, \"counter2_int\": -50,"
        " \"counter3_str_num\": \"25.7\"}},"
        "{\"ph\": \"E\", \"pid\": 30, \"tid\": 31, \"ts\": 815, \"name\": \"ActivityOnThread31\","
        " \"cat\": \"test_cat_setup\"},"
        "{\"ph\": \"C\", \"pid\": 30, \"tid\": 31, \"ts\": 810, \"name\": \"EmptyArgsCounter\", \"cat\": \"stats\","
        " \"args\": {}},"
        "{\"ph\": \"C\", \"pid\": 30, \"tid\": 31, \"ts\": 820, \"name\": \"NoArgsCounter\", \"cat\": \"stats\"},"
        "{\"ph\": \"M\", \"pid\": 30, \"tid\": 0, \"ts\": 830, \"name\": \"process_name\", \"cat\": \"__metadata\","
        " \"args\": {\"name\": \"MyProcess30\"}},"
        "{\"ph\": \"M\", \"pid\": 30, \"tid\": 31, \"ts\": 840, \"name\": \"thread_name\", \"cat\": \"__metadata\","
        " \"args\": {\"name\": \"MyRevisedThread31Name\"}},"
        "{\"ph\": \"M\", \"pid\": 30, \"tid\": 0, \"ts\": 850, \"name\": \"process_sort_index\","
        " \"cat\": \"__metadata\", \"args\": {\"sort_index\": -2}},"
        "{\"ph\": \"M\", \"pid\": 30, \"tid\": 31, \"ts\": 860, \"name\": \"thread_sort_index\","
        " \"cat\": \"__metadata\", \"args\": {\"sort_index\": 5}},"
        "{\"ph\": \"B\", \"pid\": 30, \"tid\": 32, \"ts\": 900, \"name\": \"EventMissingCatAndArgs\"},"
        "{\"ph\": \"E\", \"pid\": 30, \"tid\": 32, \"ts\": 950},"
        "{\"ph\": \"X\", \"pid\": 33, \"ts\": 960, \"dur\": 10, \"name\": \"PidOnlyEvent\", \"cat\": \"special_pids\"},"
        "{\"ph\": \"X\", \"ts\": 970, \"dur\": 10, \"name\": \"NoPidNoTidEvent\", \"cat\": \"special_pids\"}]");
    if (!tl) return;
    static const struct {
        const char *name;
        int64_t ts, dur;
        const char *thread, *tid, *process, *pid;
    } want[] = {
        { "ActivityOnThread31", 790000, 25000, "MyRevisedThread31Name", "31", "MyProcess30", "30" },
        { "EventMissingCatAndArgs", 900000, 50000, "", "32", "MyProcess30", "30" },
        { "PidOnlyEvent", 960000, 10000, "", "33", "", "33" },
        { "NoPidNoTidEvent", 970000, 10000, "", "0", "", "0" },
    };
    T_EQ_U64(count_slices(tl), 4);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const sts_slice *s = slice(tl, want[k].name);
        T_TRUE(s != NULL);
        if (!s) continue;
        T_EQ_I64(s->ts, want[k].ts);
        T_EQ_I64(table_dur(s), want[k].dur);
        T_EQ_STR(S(tl, lane_of(tl, s)->name), want[k].thread);
        T_EQ_STR(S(tl, lane_of(tl, s)->label), want[k].tid);
        T_EQ_STR(S(tl, proc_of(tl, s)->name), want[k].process);
        T_EQ_STR(S(tl, proc_of(tl, s)->label), want[k].pid);
    }
    T_EQ_I64(process(tl, "30")->sort_index, -2);
    T_EQ_I64(thread(tl, "30", "31")->sort_index, 5);
    /* The counters: a string holding a number is a value too; an event with no args, or
     * empty ones, makes none. */
    size_t nc;
    sts_timeline_counters(tl, &nc);
    T_EQ_U64(nc, 3);
    const sts_counter *c;
    T_TRUE((c = counter(tl, "MyCounters id: counter_group_1 counter1_float")) && c->value == 100.5);
    T_TRUE((c = counter(tl, "MyCounters id: counter_group_1 counter2_int")) && c->value == -50);
    T_TRUE((c = counter(tl, "MyCounters id: counter_group_1 counter3_str_num")) && c->value == 25.7);
    sts_timeline_free(tl);
}

TEST(json_extreme_vals)
{
    sts_timeline *tl = open_json(
        "[{\"ph\": \"X\", \"pid\": 100, \"tid\": 101, \"ts\": 1000, \"name\": \"CompleteNoDur\", \"cat\": "
        "\"test_missing\"},"
        "{\"ph\": \"B\", \"pid\": 100, \"tid\": 102, \"ts\": 1100, \"name\": \"BeginNoTTS\", \"cat\": "
        "\"test_missing\"},"
        "{\"ph\": \"E\", \"pid\": 100, \"tid\": 102, \"ts\": 1200, \"name\": \"EndNoTTS\", \"cat\": \"test_missing\"},"
        "{\"ph\": \"X\", \"pid\": 100, \"tid\": 103, \"ts\": 1300, \"dur\": 50, \"name\": \"CompleteNoTDUR\","
        " \"cat\": \"test_missing\", \"tts\": 1290}]");
    if (!tl) return;
    T_EQ_U64(count_slices(tl), 2);
    T_TRUE(slice(tl, "CompleteNoDur") == NULL);
    T_EQ_I64(table_dur(slice(tl, "BeginNoTTS")), -1);
    T_EQ_I64(slice(tl, "BeginNoTTS")->ts, 1100000);
    T_EQ_STR(S(tl, lane_of(tl, slice(tl, "BeginNoTTS"))->label), "102");
    T_EQ_I64(table_dur(slice(tl, "CompleteNoTDUR")), 50000);
    T_EQ_U64(sts_timeline_get_info(tl)->rejected, 1);
    sts_timeline_free(tl);
}

TEST(json_async)
{
    sts_timeline *tl = open_json(
        "[{\"ph\": \"b\", \"pid\": 200, \"tid\": 201, \"ts\": 2000, \"name\": \"AsyncMissingCat\", \"id\": \"flow1\"},"
        "{\"ph\": \"e\", \"pid\": 200, \"tid\": 201, \"ts\": 2100, \"name\": \"AsyncMissingCat\", \"id\": \"flow1\"},"
        "{\"ph\": \"b\", \"pid\": 200, \"tid\": 202, \"ts\": 2200, \"name\": \"AsyncEmptyStringId\","
        " \"cat\": \"category2\", \"id\": \"\"},"
        "{\"ph\": \"e\", \"pid\": 200, \"tid\": 202, \"ts\": 2300, \"name\": \"AsyncEmptyStringId\","
        " \"cat\": \"category2\", \"id\": \"\"},"
        "{\"ph\": \"b\", \"pid\": 200, \"tid\": 203, \"ts\": 2400, \"name\": \"AsyncMissingCatEmptyStringId\","
        " \"id\": \"\"},"
        "{\"ph\": \"e\", \"pid\": 200, \"tid\": 203, \"ts\": 2500, \"name\": \"AsyncMissingCatEmptyStringId\","
        " \"id\": \"\"}]");
    if (!tl) return;
    /* No thread or process slice: each pair is a slice of a global async track. */
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    T_EQ_U64(n, 3);
    for (size_t i = 0; i < n; i++) {
        T_TRUE(!thread_or_process(tl, &s[i]));
        T_EQ_I64(track(tl, &s[i])->kind, STS_TRACK_ASYNC_GLOBAL);
        T_EQ_I64(s[i].dur, 100000);
    }
    sts_timeline_free(tl);
}

TEST(json_counter_args)
{
    sts_timeline *tl =
        open_json("[{\"ph\": \"C\", \"pid\": 300, \"tid\": 301, \"ts\": 3000, \"name\": \"CounterStringEdgeCases\","
                  " \"cat\": \"counters_str\", \"args\": {\"leading_dot\": \".75\", \"trailing_dot\": \"246.\","
                  " \"leading_zero_float\": \"01.23\", \"leading_zero_int_str\": \"050\", \"incomplete_exp\": \"1.5e\","
                  " \"exp_no_digit\": \"2e+\", \"just_dot\": \".\", \"plus_val\": \"+10.5\", \"just_plus\": \"+\","
                  " \"just_minus\": \"-\"}}]");
    if (!tl) return;
    static const struct {
        const char *name;
        double value;
    } want[] = { { "CounterStringEdgeCases leading_dot", 0.75 },
                 { "CounterStringEdgeCases leading_zero_float", 1.23 },
                 { "CounterStringEdgeCases leading_zero_int_str", 50 },
                 { "CounterStringEdgeCases plus_val", 10.5 },
                 { "CounterStringEdgeCases trailing_dot", 246 } };
    size_t nc;
    const sts_counter *all = sts_timeline_counters(tl, &nc);
    T_EQ_U64(nc, 5);
    for (size_t k = 0; k < sizeof want / sizeof want[0]; k++) {
        const sts_counter *c = counter(tl, want[k].name);
        T_TRUE(c != NULL);
        if (c) T_NEAR(c->value, want[k].value, 0, 1e-15);
    }
    if (nc)
        T_EQ_STR(S(tl, sts_timeline_processes(tl, NULL)[sts_timeline_lanes(tl, NULL)[all[0].lane].process].label),
                 "300");
    sts_timeline_free(tl);
}

TEST(json_trailing_comma)
{
    sts_timeline *tl = open_json("{\"displayTimeUnit\":\"ms\",\"traceEvents\":[\n"
                                 "{\"name\":\"Foo\",\"ph\":\"X\",\"tid\":0,\"ts\":3473608.458,\"dur\":295555.500},\n"
                                 "{\"name\":\"Bar\",\"ph\":\"X\",\"tid\":0,\"ts\":4890.000,\"dur\":3764289.708},\n]}");
    if (!tl) return;
    T_EQ_I64(slice(tl, "Bar")->ts, 4890000);
    T_EQ_I64(slice(tl, "Bar")->dur, 3764289708);
    T_EQ_I64(slice(tl, "Foo")->ts, 3473608458);
    T_EQ_I64(slice(tl, "Foo")->dur, 295555500);
    T_TRUE(slice(tl, "Bar") < slice(tl, "Foo"));
    sts_timeline_free(tl);
}

TEST(json_id2)
{
    sts_timeline *tl =
        open_json("[{\"ph\": \"b\", \"pid\": 400, \"tid\": 401, \"ts\": 4000, \"name\": \"AsyncId2StandardGlobalKey\","
                  " \"cat\": \"id2test\", \"id2\": {\"global\": \"standard_global_id_1\"}},"
                  "{\"ph\": \"e\", \"pid\": 400, \"tid\": 401, \"ts\": 4100, \"name\": \"AsyncId2StandardGlobalKey\","
                  " \"cat\": \"id2test\", \"id2\": {\"global\": \"standard_global_id_1\"}},"
                  "{\"ph\": \"b\", \"pid\": 400, \"tid\": 402, \"ts\": 4200, \"name\": \"AsyncId2EmptyGlobalKey\","
                  " \"cat\": \"id2test\", \"id2\": {\"\": \"empty_key_global_id_2\"}},"
                  "{\"ph\": \"e\", \"pid\": 400, \"tid\": 402, \"ts\": 4300, \"name\": \"AsyncId2EmptyGlobalKey\","
                  " \"cat\": \"id2test\", \"id2\": {\"\": \"empty_key_global_id_2\"}}]");
    if (!tl) return;
    /* No thread or process slice: the first pair is global; the second has no usable id
     * (neither "local" nor "global") and is refused. */
    T_EQ_U64(count_slices(tl), 1);
    T_EQ_I64(track(tl, slice(tl, "AsyncId2StandardGlobalKey"))->kind, STS_TRACK_ASYNC_GLOBAL);
    T_EQ_U64(sts_timeline_get_info(tl)->rejected, 2);
    sts_timeline_free(tl);
}

TEST(string_ts_and_dur)
{
    sts_timeline *tl = open_json(
        "[{\"ph\": \"B\", \"pid\": 10, \"tid\": 11, \"ts\": \"100\", \"name\": \"BeginEvent\"},"
        "{\"ph\": \"E\", \"pid\": 10, \"tid\": 11, \"ts\": \"200.5\", \"name\": \"BeginEvent\"},"
        "{\"ph\": \"X\", \"pid\": 10, \"tid\": 12, \"ts\": \"250\", \"dur\": \"50.5\", \"name\": \"CompleteEvent\","
        " \"cat\": \"cat2,cat3\", \"tts\": \"240\", \"tdur\": \"40.5\"}]");
    if (!tl) return;
    T_EQ_I64(slice(tl, "BeginEvent")->ts, 100000);
    T_EQ_I64(table_dur(slice(tl, "BeginEvent")), 100500);
    T_EQ_I64(slice(tl, "CompleteEvent")->ts, 250000);
    T_EQ_I64(table_dur(slice(tl, "CompleteEvent")), 50500);
    sts_timeline_free(tl);
}

TEST(invalid_string_ts_and_dur)
{
    sts_timeline *tl = open_json(
        "[{\"ph\": \"X\", \"pid\": 10, \"tid\": 13, \"ts\": \"300\", \"dur\": \"invalid\", \"name\": \"InvalidDur\"},"
        "{\"ph\": \"X\", \"pid\": 10, \"tid\": 14, \"ts\": \"invalid\", \"dur\": \"50\", \"name\": \"InvalidTs\"}]");
    if (!tl) return;
    T_EQ_U64(count_slices(tl), 0);
    T_EQ_U64(sts_timeline_get_info(tl)->rejected, 2);
    sts_timeline_free(tl);
}

TEST(string_tts_and_tdur)
{
    /* ts, dur and name as Perfetto's; stepscope keeps no thread time (thread_ts, thread_dur). */
    sts_timeline *tl = open_json("[{\"ph\": \"X\", \"pid\": 10, \"tid\": 15, \"ts\": \"400\", \"dur\": \"100\","
                                 " \"tts\": \"390.5\", \"tdur\": \"80.5\", \"name\": \"StringTtsTdur\"}]");
    if (!tl) return;
    T_EQ_I64(slice(tl, "StringTtsTdur")->ts, 400000);
    T_EQ_I64(slice(tl, "StringTtsTdur")->dur, 100000);
    sts_timeline_free(tl);
}

static void async_pair(const char *id2, const char *name, uint32_t kind)
{
    char json[1024];
    snprintf(json, sizeof json,
             "[{\"ph\": \"b\", \"pid\": 400, \"tid\": 401, \"ts\": 4000, \"name\": \"%s\", \"cat\": \"id2test\","
             " \"id2\": %s}, {\"ph\": \"e\", \"pid\": 400, \"tid\": 401, \"ts\": 4100, \"name\": \"%s\","
             " \"cat\": \"id2test\", \"id2\": %s}]",
             name, id2, name, id2);
    sts_timeline *tl = open_json(json);
    if (!tl) return;
    const sts_slice *s = slice(tl, name);
    T_TRUE(s != NULL);
    if (s) {
        T_EQ_I64(s->ts, 4000000);
        T_EQ_I64(s->dur, 100000);
        T_EQ_STR(S(tl, track(tl, s)->name), name);
        T_EQ_I64(track(tl, s)->kind, kind);
    }
    sts_timeline_free(tl);
}

TEST(json_id2_global_string_id)
{
    async_pair("{\"global\": \"global_id_str\"}", "AsyncId2GlobalString", STS_TRACK_ASYNC_GLOBAL);
}

TEST(json_id2_local_string_id)
{
    async_pair("{\"local\": \"local_id_str\"}", "AsyncId2LocalString", STS_TRACK_ASYNC_PROCESS);
}

TEST(string_ts_trailing_chars)
{
    sts_timeline *tl = open_json(
        "[{\"ph\": \"X\", \"pid\": 10, \"tid\": 16, \"ts\": \"100a\", \"dur\": \"50\", \"name\": \"TrailingCharsTs\"},"
        "{\"ph\": \"X\", \"pid\": 10, \"tid\": 17, \"ts\": \"200\", \"dur\": \"50a\", \"name\": "
        "\"TrailingCharsDur\"}]");
    if (!tl) return;
    T_EQ_U64(count_slices(tl), 0);
    sts_timeline_free(tl);
}

static void async_int_id(const char *scope, uint32_t kind, int64_t ts_us)
{
    char json[2048];
    snprintf(
        json, sizeof json,
        "{\"traceEvents\": [{\"name\": \"process_name\", \"ph\": \"M\", \"pid\": 2, \"args\": {\"name\": \"device2\"}},"
        "{\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": 2, \"tid\": 2, \"args\": {\"name\": \"send2\"}},"
        "{\"name\": \"write\", \"ph\": \"b\", \"pid\": 2, \"tid\": 2, \"ts\": %lld.0, \"id2\": {\"%s\": 1},"
        " \"args\": {\"dev_name\": \"86\", \"length\": \"1048577\"}},"
        "{\"name\": \"write\", \"ph\": \"e\", \"pid\": 2, \"tid\": 2, \"ts\": %lld.0, \"id2\": {\"%s\": 1}}]}",
        (long long)ts_us, scope, (long long)ts_us + 167, scope);
    sts_timeline *tl = open_json(json);
    if (!tl) return;
    const sts_slice *s = slice(tl, "write");
    T_TRUE(s != NULL);
    if (s) {
        T_EQ_I64(s->ts, ts_us * 1000);
        T_EQ_I64(s->dur, 167000);
        T_EQ_STR(S(tl, track(tl, s)->name), "write");
        T_EQ_I64(track(tl, s)->kind, kind);
    }
    sts_timeline_free(tl);
}

TEST(json_id2_global_int_id)
{
    async_int_id("global", STS_TRACK_ASYNC_GLOBAL, 1850244461563845);
}

TEST(json_id2_local_int_id)
{
    async_int_id("local", STS_TRACK_ASYNC_PROCESS, 1750244461563845);
}

TEST(json_sort_index_hints)
{
    sts_timeline *tl =
        open_json("[{\"ph\": \"M\", \"pid\": 30, \"tid\": 0, \"ts\": 100, \"name\": \"process_sort_index\","
                  " \"cat\": \"__metadata\", \"args\": {\"sort_index\": -2}},"
                  "{\"ph\": \"M\", \"pid\": 30, \"tid\": 31, \"ts\": 110, \"name\": \"thread_sort_index\","
                  " \"cat\": \"__metadata\", \"args\": {\"sort_index\": 5}},"
                  "{\"ph\": \"M\", \"pid\": 40, \"tid\": 0, \"ts\": 120, \"name\": \"process_sort_index\","
                  " \"cat\": \"__metadata\", \"args\": {\"sort_index\": 10}},"
                  "{\"ph\": \"X\", \"pid\": 30, \"tid\": 31, \"ts\": 200, \"dur\": 100, \"name\": \"Event1\"}]");
    if (!tl) return;
    T_EQ_I64(process(tl, "30")->sort_index, -2);
    T_EQ_I64(process(tl, "40")->sort_index, 10);
    T_EQ_I64(thread(tl, "30", "31")->sort_index, 5);
    sts_timeline_free(tl);
}

TEST(json_sort_index_ordering)
{
    sts_timeline *tl =
        open_json("[{\"ph\": \"M\", \"pid\": 10, \"tid\": 10, \"ts\": 100, \"name\": \"process_sort_index\", \"args\": "
                  "{\"sort_index\": 100}},"
                  "{\"ph\": \"M\", \"pid\": 20, \"tid\": 20, \"ts\": 110, \"name\": \"process_sort_index\", \"args\": "
                  "{\"sort_index\": 50}},"
                  "{\"ph\": \"M\", \"pid\": 30, \"tid\": 30, \"ts\": 120, \"name\": \"process_sort_index\", \"args\": "
                  "{\"sort_index\": 200}},"
                  "{\"ph\": \"M\", \"pid\": 40, \"tid\": 40, \"ts\": 130, \"name\": \"process_sort_index\", \"args\": "
                  "{\"sort_index\": -5}},"
                  "{\"ph\": \"M\", \"pid\": 10, \"tid\": 11, \"ts\": 200, \"name\": \"thread_sort_index\", \"args\": "
                  "{\"sort_index\": 10}},"
                  "{\"ph\": \"M\", \"pid\": 10, \"tid\": 12, \"ts\": 210, \"name\": \"thread_sort_index\", \"args\": "
                  "{\"sort_index\": 20}},"
                  "{\"ph\": \"M\", \"pid\": 10, \"tid\": 13, \"ts\": 220, \"name\": \"thread_sort_index\", \"args\": "
                  "{\"sort_index\": 5}},"
                  "{\"ph\": \"M\", \"pid\": 10, \"tid\": 14, \"ts\": 230, \"name\": \"thread_sort_index\", \"args\": "
                  "{\"sort_index\": -3}},"
                  "{\"ph\": \"X\", \"pid\": 10, \"tid\": 11, \"ts\": 1000, \"dur\": 100, \"name\": \"Event1\"},"
                  "{\"ph\": \"X\", \"pid\": 20, \"tid\": 20, \"ts\": 2000, \"dur\": 100, \"name\": \"Event2\"},"
                  "{\"ph\": \"X\", \"pid\": 30, \"tid\": 30, \"ts\": 3000, \"dur\": 100, \"name\": \"Event3\"},"
                  "{\"ph\": \"X\", \"pid\": 40, \"tid\": 40, \"ts\": 4000, \"dur\": 100, \"name\": \"Event4\"}]");
    if (!tl) return;
    /* Processes by sort index then pid: 40, 20, 10, 30; pid 10's threads by sort index:
     * 14, 13, 11, 12 (Perfetto also lists its process 0 and a thread 10 for pid 10). */
    size_t nl;
    const sts_lane *l = sts_timeline_lanes(tl, &nl);
    const sts_process *p = sts_timeline_processes(tl, NULL);
    uint32_t *order = malloc(nl * sizeof *order);
    sts_lane_display_order(tl, order);
    char got[256] = "";
    for (size_t k = 0; k < nl; k++) {
        char one[32];
        snprintf(one, sizeof one, "%s/%s ", S(tl, p[l[order[k]].process].label), S(tl, l[order[k]].label));
        strncat(got, one, sizeof got - strlen(got) - 1);
    }
    T_EQ_STR(got, "40/40 20/20 10/14 10/13 10/11 10/12 30/30 ");
    free(order);
    sts_timeline_free(tl);
}

TEST(json_pid_tid_zero)
{
    static const char *const ev[][4] = {
        { "b", "RoutineControl Reeq", "0" },
        { "b", "31 ", "0" },
        { "e", "31 ", "1" },
        { "b", "RoutineControl", "0" },
        { "e", "RoutineControl", "1" },
        { "b", "01 ", "1" },
        { "e", "01 ", "2" },
        { "b", "startRoutine", "1" },
        { "e", "startRoutine", "2" },
        { "b", "02 03 ", "2" },
        { "e", "02 03 ", "4" },
        { "b", "Routine Identifier", "2" },
        { "e", "Routine Identifier", "4" },
        { "e", "RoutineControl Reeq", "4" },
    };
    char json[8192] = "{\"traceEvents\": [";
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        char one[512];
        snprintf(one, sizeof one,
                 "%s{\"cat\": \"Reeq\", \"pid\": 0, \"tid\": 0, \"ts\": %s, \"ph\": \"%s\", \"name\": \"%s\","
                 " \"id\": \"0x31\", \"args\": {\"name\": \"%s\"}}",
                 i ? "," : "", ev[i][2], ev[i][0], ev[i][1], ev[i][1]);
        strncat(json, one, sizeof json - strlen(json) - 1);
    }
    strncat(json, "]}", sizeof json - strlen(json) - 1);
    sts_timeline *tl = open_json(json);
    if (!tl) return;
    static const struct {
        const char *name;
        int64_t ts, dur;
    } want[] = { { "RoutineControl Reeq", 0, 4000 },  { "31 ", 0, 1000 },
                 { "RoutineControl", 0, 1000 },       { "01 ", 1000, 1000 },
                 { "startRoutine", 1000, 1000 },      { "02 03 ", 2000, 2000 },
                 { "Routine Identifier", 2000, 2000 } };
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    T_EQ_U64(n, 7);
    for (size_t k = 0; k < n && k < 7; k++) { /* in the table's order */
        T_EQ_STR(S(tl, s[k].name), want[k].name);
        T_EQ_I64(s[k].ts, want[k].ts);
        T_EQ_I64(table_dur(&s[k]), want[k].dur);
    }
    sts_timeline_free(tl);
}

TEST(json_metadata_missing_or_invalid_ts)
{
    sts_timeline *tl = open_json(
        "[{\"ph\": \"M\", \"pid\": 100, \"name\": \"process_name\", \"args\": {\"name\": \"MissingTs\"}},"
        "{\"ph\": \"M\", \"pid\": 101, \"ts\": null, \"name\": \"process_name\", \"args\": {\"name\": \"NullTs\"}},"
        "{\"ph\": \"M\", \"pid\": 102, \"ts\": \"invalid\", \"name\": \"process_name\", \"args\": {\"name\": "
        "\"InvalidTs\"}}]");
    if (!tl) return;
    T_EQ_STR(S(tl, process(tl, "100")->name), "MissingTs");
    T_EQ_STR(S(tl, process(tl, "101")->name), "NullTs");
    T_EQ_STR(S(tl, process(tl, "102")->name), "InvalidTs");
    sts_timeline_free(tl);
}

TEST(trailing_empty_event)
{
    sts_timeline *tl = open_json("{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 1, \"dur\": 2, \"pid\": 1, \"tid\": 1,"
                                 " \"name\": \"real_event\"}, {}]}");
    if (!tl) return;
    T_EQ_U64(count_slices(tl), 1);
    T_EQ_U64(sts_timeline_get_info(tl)->rejected, 0);
    T_EQ_U64(sts_timeline_get_info(tl)->events, 1);
    sts_timeline_free(tl);
}

static const char overlapping[] =
    "{\"traceEvents\": [{\"ph\": \"X\", \"ts\": 100, \"dur\": 100, \"pid\": 1, \"tid\": 1,"
    " \"name\": \"outer\"}, {\"ph\": \"X\", \"ts\": 150, \"dur\": 100, \"pid\": 1,"
    " \"tid\": 1, \"name\": \"inner\"}]}";

TEST(overlapping_complete_event_import_log)
{
    /* Perfetto logs the spill with the overlap [150, 200) us and the slice it conflicts
     * with; stepscope lists it with the same facts. */
    sts_timeline *tl = open_json(overlapping);
    if (!tl) return;
    size_t n;
    const sts_overlap *ov = sts_timeline_overlaps(tl, &n);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    T_EQ_U64(n, 1);
    if (n == 1) {
        const sts_slice *in = &s[ov[0].slice], *out = &s[ov[0].parent];
        T_EQ_STR(S(tl, in->name), "inner");
        T_EQ_I64(in->ts, 150000);             /* event ts, overlap_start */
        T_EQ_I64(out->ts + out->dur, 200000); /* overlap_end */
        T_EQ_STR(S(tl, out->name), "outer");  /* conflicting_slice_name */
        T_EQ_I64(out->ts, 100000);            /* conflicting_slice_ts */
        T_EQ_I64(out->dur, 100000);           /* conflicting_slice_dur */
        T_EQ_I64(ov[0].overrun_ns, 50000);
    }
    sts_timeline_free(tl);
}

TEST(overlapping_complete_event_recovered)
{
    sts_timeline *tl = open_json(overlapping);
    if (!tl) return;
    T_EQ_U64(count_slices(tl), 2);                           /* slice_count */
    T_EQ_U64(sts_timeline_get_info(tl)->overlaps, 1);        /* spill_count */
    T_EQ_U64(sts_timeline_get_info(tl)->overflow_tracks, 1); /* on an overflow track */
    T_EQ_I64(track(tl, slice(tl, "inner"))->kind, STS_TRACK_OVERFLOW);
    sts_timeline_free(tl);
}

int main(void)
{
    RUN(string_pid_tid);
    RUN(args_ordered);
    RUN(x_event_order);
    RUN(json_incomplete);
    RUN(json_all_slice_types);
    RUN(json_flow);
    RUN(json_metadata);
    RUN(json_extreme_vals);
    RUN(json_async);
    RUN(json_counter_args);
    RUN(json_trailing_comma);
    RUN(json_id2);
    RUN(string_ts_and_dur);
    RUN(invalid_string_ts_and_dur);
    RUN(string_tts_and_tdur);
    RUN(json_id2_global_string_id);
    RUN(json_id2_local_string_id);
    RUN(string_ts_trailing_chars);
    RUN(json_id2_global_int_id);
    RUN(json_id2_local_int_id);
    RUN(json_sort_index_hints);
    RUN(json_sort_index_ordering);
    RUN(json_pid_tid_zero);
    RUN(json_metadata_missing_or_invalid_ts);
    RUN(trailing_empty_event);
    RUN(overlapping_complete_event_import_log);
    RUN(overlapping_complete_event_recovered);
    return t_done();
}
