/* The Chrome trace-event JSON reader (lib/read/json_chrome.c) on raw timelines:
 * structure, phases, time conversion, args, bad input, buffer boundaries, fixtures. */
#include "test.h"
#include "text_buf.h"

#include <dirent.h>
#include <unistd.h>
#include <zlib.h>

#include "read/readers.h"

/* One reader run over bytes in memory, named "trace.json" in messages. */
typedef struct run {
    sts_timeline *tl;
    sts_status st;
    sts_error err;
} run;

static run load_mode(const void *data, size_t n, sts_args_mode mode)
{
    run r = { NULL, STS_OK, STS_ERROR_INIT };
    sts_instream *in = sts_instream_open_mem(data, n, "trace.json", &r.err);
    if (!in) {
        r.st = r.err.code;
        return r;
    }
    r.tl = sts_tl_new("trace.json", "chrome-json", mode);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = mode;
    r.st = sts_read_chrome_json(in, r.tl, &opt, &r.err);
    sts_instream_free(in);
    return r;
}

static run load(const char *json)
{
    return load_mode(json, strlen(json), STS_ARGS_KNOWN);
}

static void done(run *r)
{
    sts_tl_free(r->tl);
}

static const char *str(const run *r, uint32_t id)
{
    return sts_timeline_string(r->tl, id);
}

/* The first warning containing `needle`, or NULL. */
static const char *warning(const run *r, const char *needle)
{
    for (size_t i = 0; i < r->tl->warnings.n; i++)
        if (strstr(r->tl->warnings.v[i], needle)) return r->tl->warnings.v[i];
    return NULL;
}

/* Generated traces are written into a tbuf (text_buf.h). */
typedef tbuf buf;

static void repeat(buf *b, char c, size_t n)
{
    for (size_t i = 0; i < n; i++)
        put(b, &c, 1);
}

/* gzip-compresses data (a whole gzip member). */
static buf gzip_bytes(const char *data, size_t n)
{
    buf out = { NULL, 0, 0 };
    z_stream z;
    memset(&z, 0, sizeof z);
    deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY);
    out.cap = deflateBound(&z, (uLong)n) + 64;
    out.p = malloc(out.cap);
    z.next_in = (Bytef *)(uintptr_t)data;
    z.avail_in = (uInt)n;
    z.next_out = (Bytef *)out.p;
    z.avail_out = (uInt)out.cap;
    deflate(&z, Z_FINISH);
    out.n = out.cap - z.avail_out;
    deflateEnd(&z);
    return out;
}

TEST(array_and_object_forms)
{
    run a = load("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":2,\"ts\":10,\"dur\":5}]");
    T_EQ_I64(a.st, STS_OK);
    T_EQ_U64(a.tl->info.events, 1);
    T_EQ_U64(a.tl->slices.n, 1);
    T_EQ_I64(a.tl->slices.v[0].ts, 10000);
    T_EQ_I64(a.tl->slices.v[0].dur, 5000);
    T_EQ_STR(str(&a, a.tl->slices.v[0].name), "a");
    done(&a);

    run o = load("{\"traceEvents\":[{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":2,\"ts\":1,\"dur\":2},"
                 "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":2,\"ts\":3,\"dur\":4}]}");
    T_EQ_I64(o.st, STS_OK);
    T_EQ_U64(o.tl->info.events, 2);
    T_EQ_U64(o.tl->info.by_phase['X'], 2);
    T_EQ_STR(str(&o, o.tl->slices.v[1].name), "c");
    T_EQ_I64(o.tl->info.truncated, 0);
    T_EQ_U64(o.tl->warnings.n, 0);
    done(&o);

    /* Whitespace everywhere, a byte order mark, an empty events array. */
    run w = load("\xef\xbb\xbf \n\t{ \"traceEvents\" : [ ] } \n");
    T_EQ_I64(w.st, STS_OK);
    T_EQ_U64(w.tl->info.events, 0);
    done(&w);
}

TEST(keys_around_trace_events)
{
    /* A large nested "metadata" before the events, other keys after; all skipped. */
    buf b = { NULL, 0, 0 };
    puts_(&b, "{\"schemaVersion\": 1, \"metadata\": {\"big\": [");
    for (int i = 0; i < 50000; i++)
        putf(&b, "%s{\"k\": \"v%d\", \"n\": [1, 2.5e3, true, null]}", i ? "," : "", i);
    puts_(&b, "]}, \"deviceProperties\": [{\"id\": 0, \"name\": \"dev \\\"quoted\\\" \\u00e9\"}],\n");
    puts_(&b, "\"traceEvents\": [{\"ph\": \"X\", \"name\": \"k\", \"pid\": 1, \"tid\": 1, \"ts\": 5, \"dur\": 1}],\n");
    puts_(&b, "\"displayTimeUnit\": \"ns\", \"distributedInfo\": {\"rank\": 3}, \"traceName\": \"t\"}");
    T_TRUE(b.n > 1000000); /* several read buffers of skipped data */
    run r = load_mode(b.p, b.n, STS_ARGS_KNOWN);
    T_EQ_I64(r.st, STS_OK);
    T_EQ_U64(r.tl->info.events, 1);
    T_EQ_STR(r.tl->info.display_time_unit, "ns");
    T_EQ_U64(r.tl->info.bytes, b.n);
    done(&r);
    free(b.p);

    run m = load("{\"displayTimeUnit\": \"ms\", \"traceEvents\": []}");
    T_EQ_I64(m.st, STS_OK);
    T_EQ_STR(m.tl->info.display_time_unit, "ms");
    done(&m);
}

TEST(trailing_empty_object)
{
    run r = load("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},{}]");
    T_EQ_I64(r.st, STS_OK);
    T_EQ_U64(r.tl->info.events, 1); /* JAX's terminator is not an event */
    T_EQ_U64(r.tl->info.skipped, 0);
    T_EQ_U64(r.tl->warnings.n, 0);
    done(&r);
    /* A trailing comma, as Chrome's own streaming writer leaves. */
    run c = load("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n]");
    T_EQ_I64(c.st, STS_OK);
    T_EQ_U64(c.tl->slices.n, 1);
    done(&c);
}

TEST(truncated_file_keeps_complete_events)
{
    const char *full = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                       "{\"ph\":\"X\",\"name\":\"b\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1},\n"
                       "{\"ph\":\"X\",\"name\":\"c\",\"pid\":1,\"tid\":1,\"ts\":3,\"dur\":1}]";
    const char *third = strstr(full, "{\"ph\":\"X\",\"name\":\"c\"");
    /* Cut at every byte inside the third event: two events, a warning, no error. */
    for (const char *cut = third + 1; cut < full + strlen(full) - 1; cut++) {
        run r = load_mode(full, (size_t)(cut - full), STS_ARGS_KNOWN);
        T_EQ_I64(r.st, STS_OK);
        T_EQ_U64(r.tl->slices.n, 2);
        T_EQ_I64(r.tl->info.truncated, 1);
        char want[64];
        snprintf(want, sizeof want, "trace.json: truncated: the file ends at byte %zu inside event 2",
                 (size_t)(cut - full));
        T_TRUE(warning(&r, want) != NULL);
        done(&r);
    }
    /* No closing ']' after a complete event. */
    size_t upto = (size_t)(third - full) - 2; /* ends with "}," */
    run r = load_mode(full, upto, STS_ARGS_KNOWN);
    T_EQ_I64(r.st, STS_OK);
    T_EQ_U64(r.tl->slices.n, 2);
    T_EQ_I64(r.tl->info.truncated, 1);
    T_TRUE(warning(&r, "before the closing ']'") != NULL);
    done(&r);
    /* The complete file is not truncated. */
    run f = load(full);
    T_EQ_I64(f.tl->info.truncated, 0);
    T_EQ_U64(f.tl->slices.n, 3);
    done(&f);
    /* Cut inside the object before "traceEvents". */
    run o = load("{\"metadata\": {\"a\": [1, 2");
    T_EQ_I64(o.st, STS_OK);
    T_EQ_I64(o.tl->info.truncated, 1);
    T_TRUE(warning(&o, "before any \"traceEvents\"") != NULL);
    done(&o);
}

TEST(phases_stored_in_place)
{
    run r = load("[\n"
                 "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":7,\"args\":{\"name\":\"trainer\"}},\n"
                 "{\"ph\":\"M\",\"name\":\"process_sort_index\",\"pid\":7,\"args\":{\"sort_index\":-3}},\n"
                 "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":7,\"tid\":8,\"args\":{\"name\":\"main\"}},\n"
                 "{\"ph\":\"M\",\"name\":\"thread_sort_index\",\"pid\":7,\"tid\":8,\"args\":{\"sort_index\":4}},\n"
                 "{\"ph\":\"M\",\"name\":\"process_labels\",\"pid\":7,\"args\":{\"labels\":\"x\"}},\n"
                 "{\"ph\":\"X\",\"cat\":\"op\",\"name\":\"x\",\"pid\":7,\"tid\":8,\"ts\":100,\"dur\":50},\n"
                 "{\"ph\":\"B\",\"cat\":\"op\",\"name\":\"b\",\"pid\":7,\"tid\":8,\"ts\":110},\n"
                 "{\"ph\":\"E\",\"pid\":7,\"tid\":8,\"ts\":120},\n"
                 "{\"ph\":\"i\",\"name\":\"mark\",\"pid\":7,\"tid\":8,\"ts\":130,\"s\":\"g\"},\n"
                 "{\"ph\":\"I\",\"name\":\"mark2\",\"pid\":7,\"tid\":8,\"ts\":131,\"s\":\"p\"},\n"
                 "{\"ph\":\"R\",\"name\":\"mark3\",\"pid\":7,\"tid\":8,\"ts\":132},\n"
                 "{\"ph\":\"C\",\"name\":\"mem\",\"pid\":7,\"tid\":8,\"ts\":140,\"args\":{\"used\":10,\"free\":2.5,"
                 "\"note\":\"s\"}},\n"
                 "{\"ph\":\"b\",\"cat\":\"a\",\"name\":\"req\",\"id\":\"0x1f\",\"pid\":7,\"tid\":8,\"ts\":150},\n"
                 "{\"ph\":\"n\",\"cat\":\"a\",\"name\":\"req\",\"id\":\"0x1f\",\"pid\":7,\"tid\":8,\"ts\":151},\n"
                 "{\"ph\":\"e\",\"cat\":\"a\",\"name\":\"req\",\"id\":\"0x1f\",\"pid\":7,\"tid\":8,\"ts\":152},\n"
                 "{\"ph\":\"S\",\"name\":\"old\",\"id\":42,\"pid\":7,\"tid\":8,\"ts\":160},\n"
                 "{\"ph\":\"T\",\"name\":\"old\",\"id\":42,\"pid\":7,\"tid\":8,\"ts\":161},\n"
                 "{\"ph\":\"p\",\"name\":\"old\",\"id\":42,\"pid\":7,\"tid\":8,\"ts\":162},\n"
                 "{\"ph\":\"F\",\"name\":\"old\",\"id2\":{\"local\":\"0x2\"},\"pid\":7,\"tid\":8,\"ts\":163},\n"
                 "{\"ph\":\"s\",\"cat\":\"flow\",\"name\":\"f\",\"id\":5,\"pid\":7,\"tid\":8,\"ts\":170},\n"
                 "{\"ph\":\"t\",\"name\":\"f\",\"id\":5,\"pid\":7,\"tid\":8,\"ts\":171},\n"
                 "{\"ph\":\"f\",\"bp\":\"e\",\"name\":\"f\",\"id\":5,\"pid\":7,\"tid\":8,\"ts\":172},\n"
                 "{\"ph\":\"P\",\"name\":\"sample\",\"pid\":7,\"tid\":8,\"ts\":180},\n"
                 "{\"ph\":\"O\",\"name\":\"snap\",\"pid\":7,\"tid\":8,\"ts\":181,\"id\":\"1\"}\n"
                 "]");
    T_EQ_I64(r.st, STS_OK);
    sts_timeline *tl = r.tl;
    T_EQ_U64(tl->info.events, 24);
    T_EQ_U64(tl->info.by_phase['M'], 5);
    T_EQ_U64(tl->info.by_phase['P'], 1);
    T_EQ_U64(tl->info.skipped, 2);
    T_EQ_U64(tl->info.rejected, 0);
    /* Metadata. */
    T_EQ_U64(tl->procs.n, 1);
    T_EQ_STR(str(&r, tl->procs.v[0].name), "trainer");
    T_EQ_I64(tl->procs.v[0].sort_index, -3);
    T_EQ_I64(tl->procs.v[0].pid, 7);
    T_EQ_U64(tl->lanes.n, 1); /* process-level metadata creates no lane */
    T_EQ_STR(str(&r, tl->lanes.v[0].name), "main");
    T_EQ_I64(tl->lanes.v[0].sort_index, 4);
    T_EQ_I64(tl->lanes.v[0].tid, 8);
    /* Slices: X, then B (open, dur -1, sequence number in parent). */
    T_EQ_U64(tl->slices.n, 2);
    T_EQ_I64(tl->slices.v[0].dur, 50000);
    T_EQ_STR(str(&r, tl->slices.v[0].cat), "op");
    T_EQ_I64(tl->slices.v[0].flags, 0);
    T_EQ_I64(tl->slices.v[1].dur, -1);
    T_EQ_I64(tl->slices.v[1].flags, STS_SLICE_FROM_BE);
    T_EQ_U64(tl->slices.v[1].parent, 6);
    T_EQ_U64(tl->slices.v[0].parent, 5);
    T_EQ_U64(tl->ends.n, 1);
    T_EQ_I64(tl->ends.v[0].ts, 120000);
    T_EQ_U64(tl->ends.v[0].seq, 7);
    T_EQ_U64(tl->ends.v[0].lane, tl->slices.v[1].lane);
    /* Instants with their scope. */
    T_EQ_U64(tl->instants.n, 3);
    T_EQ_I64(tl->instants.v[0].scope, 'g');
    T_EQ_I64(tl->instants.v[1].scope, 'p');
    T_EQ_I64(tl->instants.v[2].scope, 't');
    T_EQ_STR(str(&r, tl->instants.v[2].name), "mark3");
    /* One counter per numeric arg; the string arg is not a series. */
    T_EQ_U64(tl->counters.n, 2);
    T_EQ_STR(str(&r, tl->counters.v[0].series), "used");
    T_NEAR(tl->counters.v[0].value, 10, 0, 0);
    T_EQ_STR(str(&r, tl->counters.v[1].series), "free");
    T_NEAR(tl->counters.v[1].value, 2.5, 0, 0);
    T_EQ_STR(str(&r, tl->counters.v[1].name), "mem");
    /* Async events keep their id as written. */
    T_EQ_U64(tl->asyncs.n, 7);
    T_EQ_STR(str(&r, tl->asyncs.v[0].id), "0x1f");
    T_EQ_I64(tl->asyncs.v[0].phase, 'b');
    T_EQ_I64(tl->asyncs.v[2].phase, 'e');
    T_EQ_STR(str(&r, tl->asyncs.v[3].id), "42");
    T_EQ_I64(tl->asyncs.v[5].phase, 'p');
    T_EQ_STR(str(&r, tl->asyncs.v[6].id), "0x2"); /* id2's "local" id, scoped to its process */
    T_EQ_I64(tl->asyncs.v[6].id_kind, STS_ASYNC_ID_LOCAL_STRING);
    T_EQ_I64(tl->asyncs.v[3].id_kind, STS_ASYNC_ID_NUMBER);
    /* Flows. */
    T_EQ_U64(tl->flows.n, 3);
    T_EQ_I64(tl->flows.v[0].phase, 's');
    T_EQ_I64(tl->flows.v[0].bind_enclosing, 0);
    T_EQ_I64(tl->flows.v[2].phase, 'f');
    T_EQ_I64(tl->flows.v[2].bind_enclosing, 1);
    T_EQ_STR(str(&r, tl->flows.v[2].id), "5");
    T_EQ_STR(str(&r, tl->flows.v[0].cat), "flow");
    done(&r);
}

TEST(pid_tid_forms)
{
    run r = load("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":\"CPU functions\",\"tid\":1,\"ts\":1,\"dur\":1},\n"
                 " {\"ph\":\"X\",\"name\":\"b\",\"pid\":\"4037\",\"tid\":\"stream 7\",\"ts\":1,\"dur\":1},\n"
                 " {\"ph\":\"X\",\"name\":\"c\",\"pid\":12,\"ts\":1,\"dur\":1},\n"
                 " {\"ph\":\"X\",\"name\":\"d\",\"pid\":12,\"tid\":0,\"ts\":1,\"dur\":1},\n"
                 " {\"ph\":\"X\",\"name\":\"e\",\"pid\":0,\"tid\":0,\"ts\":1,\"dur\":1},\n"
                 " {\"ph\":\"X\",\"name\":\"f\",\"ts\":1,\"dur\":1},\n"
                 " {\"ph\":\"X\",\"name\":\"g\",\"pid\":-5,\"tid\":-6,\"ts\":1,\"dur\":1}]");
    T_EQ_I64(r.st, STS_OK);
    sts_timeline *tl = r.tl;
    T_EQ_U64(tl->slices.n, 7);
    const sts_lane *la = &tl->lanes.v[tl->slices.v[0].lane];
    const sts_process *pa = &tl->procs.v[la->process];
    T_EQ_STR(str(&r, pa->label), "CPU functions");
    T_TRUE(pa->pid != 0);
    T_EQ_I64(la->tid, 1);
    const sts_lane *lb = &tl->lanes.v[tl->slices.v[1].lane];
    T_EQ_I64(tl->procs.v[lb->process].pid, 4037); /* numeric text in a string */
    T_EQ_STR(str(&r, lb->label), "stream 7");
    T_TRUE(lb->tid != 0);
    /* Missing or zero tid with a non-zero pid: tid = pid, one lane for both. */
    const sts_lane *lc = &tl->lanes.v[tl->slices.v[2].lane];
    T_EQ_I64(lc->tid, 12);
    T_EQ_STR(str(&r, lc->label), "12");
    T_EQ_U64(tl->slices.v[3].lane, tl->slices.v[2].lane);
    /* pid 0 keeps tid 0; a missing pid is pid 0. */
    const sts_lane *le = &tl->lanes.v[tl->slices.v[4].lane];
    T_EQ_I64(le->tid, 0);
    T_EQ_I64(tl->procs.v[le->process].pid, 0);
    T_EQ_U64(tl->slices.v[5].lane, tl->slices.v[4].lane);
    const sts_lane *lg = &tl->lanes.v[tl->slices.v[6].lane];
    T_EQ_I64(lg->tid, -6);
    T_EQ_I64(tl->procs.v[lg->process].pid, -5);
    T_EQ_U64(tl->procs.n, 5);
    T_EQ_U64(tl->lanes.n, 5);
    done(&r);
}

/* More lanes than the reader's lane cache holds, interleaved, so that lanes are found
 * again through the map of integer pids and tids, with the same pid spelled as a number
 * on some events and as a string on others, tid 0, a missing tid, and pids and tids too
 * large for the map (some of whose bits would collide in one 64-bit key): every slice lands on the lane its own pid and
 * tid name, and each distinct pair makes one lane. The expected labels are worked out here from the texts. */
TEST(many_interleaved_lanes_keep_their_identity)
{
    enum { LANES = 300, ROUNDS = 4 };
    char pid_text[LANES][32], tid_text[LANES][32];
    buf b = { 0 };
    puts_(&b, "[");
    for (int round = 0; round < ROUNDS; round++) {
        for (int i = 0; i < LANES; i++) {
            unsigned long long pid = (unsigned long long)(i % 23), tid = 1000u + (unsigned)i;
            if (i % 7 == 3) pid = 3000000000ull + (unsigned)(i % 3); /* beyond the map's keys */
            if (i % 11 == 5) tid = 4000000000ull + (unsigned)i;
            if (i % 13 == 6) tid = 0; /* the process's pid stands for it (but pid 0 keeps 0) */
            /* Pairs whose bits would run together in a 64-bit key of pid and tid. */
            if (i == LANES - 1) pid = 1, tid = 5;
            if (i == LANES - 6) pid = 2, tid = 5;
            if (i == LANES - 4) pid = 1, tid = (1ull << 32) + 5; /* (1, 5) if the tid spilled */
            if (i == LANES - 5) pid = (1ull << 32) + 2, tid = 5; /* (2, 5) if the pid wrapped */
            snprintf(pid_text[i], sizeof pid_text[i], "%llu", pid);
            snprintf(tid_text[i], sizeof tid_text[i], "%llu", tid);
            char pid_json[40], tid_json[48];
            /* pid 7 is a string on odd rounds: the same process as the number 7 */
            snprintf(pid_json, sizeof pid_json, pid == 7 && round % 2 ? "\"%llu\"" : "%llu", pid);
            if (i % 17 == 9) /* a string tid */
                snprintf(tid_json, sizeof tid_json, "\"t%d\"", i), snprintf(tid_text[i], sizeof tid_text[i], "t%d", i);
            else
                snprintf(tid_json, sizeof tid_json, "%llu", tid);
            int string_tid = i % 17 == 9, no_tid = !string_tid && tid == 0 && i % 2; /* missing: 0 */
            putf(&b, "%s{\"ph\":\"X\",\"name\":\"L%d\",\"pid\":%s%s%s,\"ts\":%d,\"dur\":1}\n", round || i ? "," : "", i,
                 pid_json, no_tid ? "" : ",\"tid\":", no_tid ? "" : tid_json, 10 * round + 1);
            if (!string_tid && tid == 0 && pid != 0) memcpy(tid_text[i], pid_text[i], sizeof tid_text[i]);
        }
    }
    puts_(&b, "]");
    run r = load(b.p);
    T_EQ_I64(r.st, STS_OK);
    sts_timeline *tl = r.tl;
    T_EQ_U64(tl->slices.n, (uint64_t)LANES * ROUNDS);
    size_t distinct = 0;
    for (int i = 0; i < LANES; i++) {
        int seen = 0;
        for (int k = 0; k < i && !seen; k++)
            seen = strcmp(pid_text[k], pid_text[i]) == 0 && strcmp(tid_text[k], tid_text[i]) == 0;
        distinct += !seen;
    }
    T_EQ_U64(tl->lanes.n, distinct);
    size_t wrong = 0;
    for (size_t k = 0; k < tl->slices.n; k++) {
        const sts_slice *sl = &tl->slices.v[k];
        int i = atoi(str(&r, sl->name) + 1);
        const sts_lane *ln = &tl->lanes.v[sl->lane];
        const char *pl = str(&r, tl->procs.v[ln->process].label), *ll = str(&r, ln->label);
        if (strcmp(pl, pid_text[i]) != 0 || strcmp(ll, tid_text[i]) != 0) {
            if (!wrong++)
                printf("  slice %zu of lane def %d: pid %s tid %s, want %s %s\n", k, i, pl, ll, pid_text[i],
                       tid_text[i]);
        }
    }
    T_EQ_U64(wrong, 0);
    done(&r);
    free(b.p);
}

static int64_t one_ts(const char *ts_text, int *res, sts_status *st)
{
    char json[256];
    snprintf(json, sizeof json, "[{\"ph\":\"i\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":%s}]", ts_text);
    run r = load(json);
    *st = r.st;
    int64_t v = r.tl && r.tl->instants.n == 1 ? r.tl->instants.v[0].ts : INT64_MIN;
    *res = r.tl ? (int)r.tl->info.resolution_ns : 0;
    done(&r);
    return v;
}

TEST(timestamps_exact)
{
    struct {
        const char *text;
        int64_t ns;
        int res;
    } cases[] = {
        { "\"1.0005\"", 1001, 1 },
        { "1.0005", 1001, 1 },
        { "1.00049999", 1000, 1000 }, /* rounds to a whole microsecond */
        { "1682725898079292.123", 1682725898079292123, 1 },
        { "1682725898079292", 1682725898079292000, 1000 },
        { "\"123.5\"", 123500, 1 },
        { "68.0", 68000, 1000 },
        { "0.9995", 1000, 1000 },
        { "-1.0005", -1001, 1 },
        { "-0.0004", 0, 1000 },
        { "1.5e3", 1500000, 1000 },
        { "2E-3", 2, 1 },
        { "\"7\"", 7000, 1000 },
        { "9223372036854775", 9223372036854775000, 1000 },
        { "9223372036854775.807", INT64_MAX, 1 },
        { "0.001", 1, 1 },
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        int res;
        sts_status st;
        int64_t v = one_ts(cases[i].text, &res, &st);
        T_EQ_I64(st, STS_OK);
        if (v != cases[i].ns)
            T_FAIL_AT("ts %s: got %lld, want %lld", cases[i].text, (long long)v, (long long)cases[i].ns);
        if (res != cases[i].res) T_FAIL_AT("ts %s: resolution %d, want %d", cases[i].text, res, cases[i].res);
    }
    /* X durations follow the same rule. */
    run r = load("[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":\"10\",\"dur\":\"0.0015\"}]");
    T_EQ_I64(r.tl->slices.v[0].dur, 2);
    T_EQ_I64(r.tl->info.resolution_ns, 1);
    done(&r);
}

TEST(out_of_range_numbers_rejected)
{
    const char *bad[] = { "1e400", "99999999999999999999999", "9223372036854775.808", "-1e300", "\"1e999\"" };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        char json[256];
        snprintf(json, sizeof json,
                 "[{\"ph\":\"X\",\"name\":\"ok\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                 "{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":%s,\"dur\":1}]",
                 bad[i]);
        run r = load(json);
        T_EQ_I64(r.st, STS_OK);
        T_EQ_U64(r.tl->slices.n, 1);
        T_EQ_U64(r.tl->info.rejected, 1);
        T_TRUE(warning(&r, "trace.json: event 1 (byte ") != NULL);
        T_TRUE(warning(&r, "out of range") != NULL);
        done(&r);
    }
    /* In args, huge numbers are kept: beyond a double as their JSON text. */
    const char *json = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,"
                       "\"args\":{\"big\":1e400,\"wide\":99999999999999999999999,\"neg\":-9223372036854775808}}]";
    run r = load_mode(json, strlen(json), STS_ARGS_ALL);
    T_EQ_I64(r.st, STS_OK);
    const sts_arg *a = sts_timeline_find_arg(r.tl, r.tl->slices.v[0].args, "big");
    T_TRUE(a && a->type == STS_ARG_JSON);
    if (a) T_EQ_STR(str(&r, a->v.str), "1e400");
    a = sts_timeline_find_arg(r.tl, r.tl->slices.v[0].args, "wide");
    T_TRUE(a && a->type == STS_ARG_DOUBLE);
    if (a) T_NEAR(a->v.d, 1e23, 0, 1e-15);
    a = sts_timeline_find_arg(r.tl, r.tl->slices.v[0].args, "neg");
    T_TRUE(a && a->type == STS_ARG_INT);
    if (a) T_EQ_I64(a->v.i, INT64_MIN);
    done(&r);
}

TEST(rejected_events_warn)
{
    run r = load("[{\"ph\":\"X\",\"name\":\"neg\",\"pid\":1,\"tid\":1,\"ts\":5,\"dur\":-2},\n"
                 "{\"ph\":\"X\",\"name\":\"bool\",\"pid\":1,\"tid\":1,\"ts\":true,\"dur\":1},\n"
                 "{\"ph\":\"B\",\"name\":\"nots\",\"pid\":1,\"tid\":1},\n"
                 "{\"ph\":\"E\",\"pid\":1,\"tid\":1},\n"
                 "{\"ph\":\"i\",\"name\":\"nots\",\"pid\":1,\"tid\":1},\n"
                 "{\"ph\":\"X\",\"name\":\"nodur\",\"pid\":1,\"tid\":1,\"ts\":1},\n"
                 "{\"ph\":\"X\",\"name\":\"strts\",\"pid\":1,\"tid\":1,\"ts\":\"soon\",\"dur\":1},\n"
                 "{\"ph\":\"X\",\"name\":\"objpid\",\"pid\":{},\"tid\":1,\"ts\":1,\"dur\":1},\n"
                 "{\"ph\":\"X\",\"name\":7,\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                 "{\"ph\":5,\"name\":\"numph\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},\n"
                 "{\"ph\":\"X\",\"name\":\"good\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":0}]");
    T_EQ_I64(r.st, STS_OK);
    T_EQ_U64(r.tl->info.events, 11);
    /* As in Perfetto, a pid that is no number or string counts as absent, and a name
     * that is no string as no name ("[No name]"): both warn and import. */
    T_EQ_U64(r.tl->info.rejected, 8);
    T_EQ_U64(r.tl->slices.n, 3);
    T_EQ_STR(str(&r, r.tl->slices.v[0].name), "objpid");
    T_EQ_STR(str(&r, r.tl->slices.v[1].name), "[No name]");
    T_EQ_STR(str(&r, r.tl->slices.v[2].name), "good");
    T_EQ_U64(r.tl->ends.n, 0);
    T_EQ_U64(r.tl->instants.n, 0);
    T_CONTAINS(warning(&r, "event 0 "), "trace.json: event 0 (byte 1): 'X' event has a negative \"dur\" (-2 us)");
    T_CONTAINS(warning(&r, "event 1 "), "\"ts\" is a boolean, expected a number");
    T_CONTAINS(warning(&r, "event 2 "), "'B' event has no \"ts\"");
    T_CONTAINS(warning(&r, "event 3 "), "'E' event has no \"ts\"");
    T_CONTAINS(warning(&r, "event 4 "), "'i' event has no \"ts\"");
    T_CONTAINS(warning(&r, "event 5 "), "'X' event has no \"dur\"");
    T_CONTAINS(warning(&r, "event 6 "), "\"ts\" is the string \"soon\"");
    T_CONTAINS(warning(&r, "event 7 "), "\"pid\" is an object, expected a number or a string; taken as absent");
    T_CONTAINS(warning(&r, "event 8 "), "\"name\" is a number, expected a string; taken as absent");
    T_CONTAINS(warning(&r, "event 9 "), "\"ph\" is a number");
    T_EQ_U64(r.tl->info.by_phase['X'], 7);
    done(&r);
}

TEST(non_object_elements_skipped)
{
    run r = load("[1, \"two\", [3, [4]], null, {\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]");
    T_EQ_I64(r.st, STS_OK);
    T_EQ_U64(r.tl->info.events, 1);
    T_EQ_U64(r.tl->slices.n, 1);
    T_CONTAINS(warning(&r, "event 2 "),
               "trace.json: event 2 (byte 11): an array in the events array, expected an object");
    T_EQ_U64(r.tl->warnings_total, 4);
    done(&r);
}

/* Asserts a parse failure whose message contains `want`. */
static void expect_error_n(const char *data, size_t n, sts_status code, const char *want)
{
    run r = load_mode(data, n, STS_ARGS_KNOWN);
    if (r.st != code) T_FAIL_AT("status %s, want %s (%s)", sts_status_name(r.st), sts_status_name(code), r.err.message);
    T_CONTAINS(r.err.message, want);
    done(&r);
}

static void expect_error(const char *data, sts_status code, const char *want)
{
    expect_error_n(data, strlen(data), code, want);
}

TEST(malformed_input_errors)
{
    expect_error("", STS_ERR_PARSE, "trace.json: empty file, expected a JSON array or object");
    expect_error(" \n\t ", STS_ERR_PARSE, "trace.json: empty file, expected a JSON array or object");
    expect_error("hello", STS_ERR_PARSE, "trace.json: byte 0: expected a JSON array or object, found 'h'");
    expect_error("{\"a\": 1}", STS_ERR_FORMAT, "trace.json: the top-level object has no \"traceEvents\"");
    expect_error("{\"traceEvents\": 5}", STS_ERR_FORMAT, "byte 16: expected '[' to start the \"traceEvents\" array");
    /* Cut mid-string, then more JSON: the string swallows a quote and the key after it breaks. */
    const char *cut = "[{\"name\": \"abc, \"ph\": \"X\", \"ts\": 1, \"dur\": 1}]";
    expect_error(cut, STS_ERR_PARSE, "trace.json: byte 17 (event 0): expected ',' or '}' after a value, found 'p'");
    const char *esc = "[{\"ph\":\"X\"},{\"name\": \"a\\qb\"}]";
    expect_error(esc, STS_ERR_PARSE, "trace.json: byte 24 (event 1): expected an escape");
    const char *hex = "[{\"name\": \"\\u12G4\"}]";
    expect_error(hex, STS_ERR_PARSE, "byte 15 (event 0): expected 4 hex digits after '\\u'");
    const char nul[] = "[{\"ph\":\"X\"}\0,{}]";
    expect_error_n(nul, sizeof nul - 1, STS_ERR_PARSE,
                   "trace.json: byte 11 (event 1): expected ',' or ']' after an event, found a NUL byte");
    const char nul2[] = "[{\"ph\":\0\"X\"}]";
    expect_error_n(nul2, sizeof nul2 - 1, STS_ERR_PARSE, "byte 7 (event 0): expected a value");
    expect_error("[{\"ph\" \"X\"}]", STS_ERR_PARSE, "byte 7 (event 0): expected ':' after an object key, found '\"'");
    expect_error("[{\"ts\": 1.}]", STS_ERR_PARSE, "byte 10 (event 0): expected a digit after '.', found '}'");
    expect_error("[{\"ts\": tru}]", STS_ERR_PARSE, "byte 11 (event 0): expected a value");
    expect_error("[{\"a\": [1 2]}]", STS_ERR_PARSE, "byte 10 (event 0): expected ',' or ']' after a value, found '2'");
    expect_error("[{\"a\": [[1], [2] [3]]}]", STS_ERR_PARSE,
                 "byte 17 (event 0): expected ',' or ']' after a value, found '['");
    expect_error("[{\"a\": [[1,]]}]", STS_ERR_PARSE, "byte 11 (event 0): expected a value");
    expect_error("[{\"a\": [\"x\" \"y\"]}]", STS_ERR_PARSE,
                 "byte 12 (event 0): expected ',' or ']' after a value, found '\"'");
    expect_error("[{}] x", STS_ERR_PARSE, "byte 5: expected the end of the file after the top-level value, found 'x'");
    expect_error("[{} {}]", STS_ERR_PARSE, "byte 4 (event 1): expected ',' or ']' after an event, found '{'");
    expect_error("{\"m\": [1,}], \"traceEvents\": []}", STS_ERR_PARSE, "byte 9: expected a value");
    expect_error("[{,}]", STS_ERR_PARSE, "byte 2 (event 0): expected a string key, found ','");
    expect_error("[{\"a\":1,}]", STS_ERR_PARSE, "byte 8 (event 0): expected a string key, found '}'");
    /* The error fills the offset and event index fields too. */
    run r = load("[{}, {\"ph\": @}]");
    T_EQ_I64(r.st, STS_ERR_PARSE);
    T_EQ_I64(r.err.byte_offset, 12);
    T_EQ_I64(r.err.event_index, 1);
    done(&r);
}

TEST(truncated_gzip_is_an_error)
{
    const char *json = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]";
    buf gz = gzip_bytes(json, strlen(json));
    run ok = load_mode(gz.p, gz.n, STS_ARGS_KNOWN);
    T_EQ_I64(ok.st, STS_OK);
    T_EQ_U64(ok.tl->slices.n, 1);
    T_EQ_I64(ok.tl->info.compressed, 1);
    T_EQ_U64(ok.tl->info.bytes, strlen(json));
    done(&ok);
    run bad = load_mode(gz.p, gz.n - 10, STS_ARGS_KNOWN);
    T_EQ_I64(bad.st, STS_ERR_TRUNCATED);
    T_CONTAINS(bad.err.message, "trace.json: gzip stream is truncated");
    done(&bad);
    free(gz.p);
}

TEST(deep_nesting_is_iterative)
{
    /* 10,000 levels inside args, and 200,000 inside a skipped top-level key. */
    buf b = { NULL, 0, 0 };
    puts_(&b, "{\"meta\": ");
    repeat(&b, '[', 200000);
    repeat(&b, ']', 200000);
    puts_(
        &b,
        ", \"traceEvents\": [{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{\"deep\":");
    size_t at = b.n;
    for (int i = 0; i < 10000; i++)
        puts_(&b, "{\"a\":[");
    repeat(&b, ']', 0);
    for (int i = 0; i < 10000; i++)
        puts_(&b, "]}");
    size_t deep_len = b.n - at;
    puts_(&b, ", \"External id\": 9}}]}");
    for (int mode = 0; mode < 3; mode++) {
        run r = load_mode(b.p, b.n, (sts_args_mode)mode);
        T_EQ_I64(r.st, STS_OK);
        T_EQ_U64(r.tl->slices.n, 1);
        const sts_arg *a = sts_timeline_find_arg(r.tl, r.tl->slices.v[0].args, "deep");
        if (mode == STS_ARGS_ALL) {
            T_TRUE(a && a->type == STS_ARG_JSON);
            if (a) T_EQ_U64(strlen(str(&r, a->v.str)), deep_len);
        } else {
            T_TRUE(a == NULL);
        }
        const sts_arg *k = sts_timeline_find_arg(r.tl, r.tl->slices.v[0].args, "External id");
        if (mode == STS_ARGS_NONE)
            T_TRUE(k == NULL);
        else
            T_TRUE(k && k->type == STS_ARG_INT && k->v.i == 9);
        done(&r);
    }
    /* A mismatched bracket deep down is still found. */
    size_t wrong = at + 10000 * 6 + 2 * 2500;
    T_EQ_I64(b.p[wrong], ']');
    b.p[wrong] = '}';
    run bad = load_mode(b.p, b.n, STS_ARGS_KNOWN);
    T_EQ_I64(bad.st, STS_ERR_PARSE);
    char want[80];
    snprintf(want, sizeof want, "byte %zu (event 0): expected ',' or ']' after a value, found '}'", wrong);
    T_CONTAINS(bad.err.message, want);
    done(&bad);
    free(b.p);
}

TEST(strings_bytes_and_escapes)
{
    /* Invalid UTF-8 is kept as bytes; escapes decode, surrogate pairs to 4 bytes. */
    run r = load("[{\"ph\":\"X\",\"name\":\"\xff\xfe bad \xc3\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                 "{\"ph\":\"X\",\"name\":\"tab\\t\\\"q\\\" \\u00e9 \\ud83d\\ude00 "
                 "\\ud800x\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1},"
                 "{\"p\\u0068\":\"X\",\"name\":\"esc-key\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1}]");
    T_EQ_I64(r.st, STS_OK);
    T_EQ_U64(r.tl->slices.n, 3);
    T_EQ_STR(str(&r, r.tl->slices.v[0].name), "\xff\xfe bad \xc3");
    T_EQ_STR(str(&r, r.tl->slices.v[1].name), "tab\t\"q\" \xc3\xa9 \xf0\x9f\x98\x80 \xef\xbf\xbdx");
    T_EQ_STR(str(&r, r.tl->slices.v[2].name), "esc-key");
    done(&r);

    /* A 1,000,000-character name, bigger than a read buffer. */
    buf b = { NULL, 0, 0 };
    puts_(&b, "[{\"ph\":\"X\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"name\":\"");
    repeat(&b, 'n', 1000000);
    puts_(&b, "\"},{\"ph\":\"X\",\"name\":\"after\",\"pid\":1,\"tid\":1,\"ts\":2,\"dur\":1}]");
    run big = load_mode(b.p, b.n, STS_ARGS_KNOWN);
    T_EQ_I64(big.st, STS_OK);
    T_EQ_U64(big.tl->slices.n, 2);
    T_EQ_U64(strlen(str(&big, big.tl->slices.v[0].name)), 1000000);
    T_EQ_STR(str(&big, big.tl->slices.v[1].name), "after");
    done(&big);
    free(b.p);
}

static uint64_t id_rng(uint64_t *s)
{
    *s ^= *s << 13, *s ^= *s >> 7, *s ^= *s << 17;
    return *s;
}

/* Integer ids are looked up by value (json_intern.c) but must stay what the text
 * says: each flow and async id reads back as the bytes written, and equal text gives
 * one id whether it came as a number or a string. Values run in sequences from
 * several bases (in and out of the lookup's window), repeat, jump to 64-bit values,
 * and come in spellings that are not a canonical integer. */
TEST(integer_ids_keep_their_text)
{
    for (uint64_t seed = 1; seed <= 6; seed++) {
        uint64_t s = seed * 0x9e3779b97f4a7c15ull;
        buf b = { NULL, 0, 0 };
        char(*want)[48] = calloc(30000, sizeof *want);
        T_TRUE(want != NULL);
        uint64_t next[3] = { 0, 1 + id_rng(&s) % 100000, id_rng(&s) % 4000000000u }; /* sequences */
        int n = 0;
        puts_(&b, "[");
        for (int i = 0; i < 30000; i++) {
            uint64_t r = id_rng(&s), v;
            char text[32];
            int quoted = 0;
            uint64_t *seq = &next[r / 16 % 3];
            if (r % 16 == 0) /* anywhere */
                v = id_rng(&s);
            else if (r % 16 == 1) /* behind a sequence */
                v = *seq > 20 ? *seq - 20 : 0;
            else if (r % 16 == 2) /* "63" */
                v = id_rng(&s) % 64, quoted = 1;
            else if (r % 16 == 3) /* past int64 */
                v = UINT64_MAX - id_rng(&s) % 3;
            else
                v = (*seq)++;
            snprintf(text, sizeof text, "%llu", (unsigned long long)v);
            const char *spell = text;
            char other[40];
            /* Other spellings of a number, on flows (async ids must be integers). */
            int odd = i % 2 == 0 ? (int)(r % 97) : 0;
            if (odd == 5) spell = "-0";
            if (odd == 6) snprintf(other, sizeof other, "%s.0", text), spell = other;
            if (odd == 7) snprintf(other, sizeof other, "-%s", text), spell = other;
            if (odd == 8) snprintf(other, sizeof other, "%se0", text), spell = other;
            if (i % 2 && v > INT64_MAX) quoted = 1; /* an async id must fit int64 */
            snprintf(want[n], sizeof want[n], "%s", spell);
            if (i % 2 == 0)
                putf(&b, "%s{\"ph\":\"%c\",\"cat\":\"c\",\"name\":\"f\",\"id\":%s%s%s,\"pid\":1,\"tid\":1,\"ts\":%d}",
                     i ? "," : "", "stf"[r / 7 % 3], quoted ? "\"" : "", spell, quoted ? "\"" : "", i);
            else
                putf(&b, "%s{\"ph\":\"n\",\"cat\":\"c\",\"name\":\"a\",\"id\":%s%s%s,\"pid\":1,\"tid\":1,\"ts\":%d}",
                     i ? "," : "", quoted ? "\"" : "", spell, quoted ? "\"" : "", i);
            n++;
        }
        puts_(&b, "]");
        run r = load_mode(b.p, b.n, STS_ARGS_KNOWN);
        T_EQ_I64(r.st, STS_OK);
        T_EQ_U64(r.tl->flows.n + r.tl->asyncs.n, (uint64_t)n);
        size_t fi = 0, ai = 0;
        for (int i = 0; i < n; i++) {
            uint32_t id = i % 2 == 0 ? r.tl->flows.v[fi++].id : r.tl->asyncs.v[ai++].id;
            T_EQ_STR(str(&r, id), want[i]);
            T_EQ_U64(sts_timeline_find_string(r.tl, want[i]), id);
        }
        done(&r);
        free(want);
        free(b.p);
    }
}

/* The modes' key sets, as timeline.h states them: ANALYSIS within KNOWN within ALL. */
TEST(args_mode_key_sets)
{
    /* The first six are the analyses' (the device view's correlation ids and category). */
    const char *keys[] = { "step_num",     "hlo_op",      "hlo_module", "correlation", "correlation_id",
                           "hlo_category", "External id", "step_name",  "Ev Idx",      "",
                           "step_nu",      "hlo_op ",     "HLO_OP",     "Correlation" };
    for (size_t i = 0; i < sizeof keys / sizeof keys[0]; i++) {
        size_t n = strlen(keys[i]);
        int analyzed = sts_arg_key_is_analyzed(keys[i], n), known = sts_arg_key_is_known(keys[i], n);
        T_EQ_I64(analyzed, i < 6);
        T_TRUE(!analyzed || known);
        T_EQ_I64(sts_args_mode_keeps(STS_ARGS_ANALYSIS, keys[i], n), analyzed);
        T_EQ_I64(sts_args_mode_keeps(STS_ARGS_KNOWN, keys[i], n), known);
        T_EQ_I64(sts_args_mode_keeps(STS_ARGS_ALL, keys[i], n), 1);
        T_EQ_I64(sts_args_mode_keeps(STS_ARGS_NONE, keys[i], n), 0);
        T_EQ_I64(sts_args_mode_keeps((sts_args_mode)99, keys[i], n), 0);
    }
}

TEST(args_modes)
{
    const char *json = "[{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"args\":{"
                       "\"External id\": 41506, \"Ev Idx\": 7, \"f\": 2.5, \"s\": \"txt\", \"t\": true,"
                       " \"no\": false, \"z\": null, \"o\": {\"x\": [1, {\"y\": 2}]}, \"step_num\": \"3\","
                       " \"dims\": [[1, 64, 768], [], [\"a]\", -2.5e3]]}}]";
    run none = load_mode(json, strlen(json), STS_ARGS_NONE);
    T_EQ_U64(none.tl->args.n, 0);
    T_EQ_U64(none.tl->slices.v[0].args, STS_NONE);
    done(&none);

    run known = load_mode(json, strlen(json), STS_ARGS_KNOWN);
    T_EQ_U64(known.tl->args.n, 2);
    const sts_arg *a = sts_timeline_find_arg(known.tl, known.tl->slices.v[0].args, "External id");
    T_TRUE(a && a->type == STS_ARG_INT && a->v.i == 41506);
    a = sts_timeline_find_arg(known.tl, known.tl->slices.v[0].args, "step_num");
    T_TRUE(a && a->type == STS_ARG_STRING);
    if (a) T_EQ_STR(str(&known, a->v.str), "3");
    T_TRUE(known.tl->args.v[1].last);
    done(&known);

    run analysis = load_mode(json, strlen(json), STS_ARGS_ANALYSIS);
    T_EQ_U64(analysis.tl->args.n, 1);
    a = sts_timeline_find_arg(analysis.tl, analysis.tl->slices.v[0].args, "step_num");
    T_TRUE(a && a->type == STS_ARG_STRING && a->last);
    T_TRUE(sts_timeline_find_arg(analysis.tl, analysis.tl->slices.v[0].args, "External id") == NULL);
    done(&analysis);

    run all = load_mode(json, strlen(json), STS_ARGS_ALL);
    T_EQ_U64(all.tl->args.n, 10);
    uint32_t first = all.tl->slices.v[0].args;
    a = sts_timeline_find_arg(all.tl, first, "f");
    T_TRUE(a && a->type == STS_ARG_DOUBLE && a->v.d == 2.5);
    a = sts_timeline_find_arg(all.tl, first, "s");
    T_TRUE(a && a->type == STS_ARG_STRING);
    a = sts_timeline_find_arg(all.tl, first, "t");
    T_TRUE(a && a->type == STS_ARG_BOOL && a->v.i == 1);
    a = sts_timeline_find_arg(all.tl, first, "no");
    T_TRUE(a && a->type == STS_ARG_BOOL && a->v.i == 0);
    a = sts_timeline_find_arg(all.tl, first, "z");
    T_TRUE(a && a->type == STS_ARG_NULL);
    a = sts_timeline_find_arg(all.tl, first, "o");
    T_TRUE(a && a->type == STS_ARG_JSON);
    if (a) T_EQ_STR(str(&all, a->v.str), "{\"x\": [1, {\"y\": 2}]}");
    a = sts_timeline_find_arg(all.tl, first, "dims");
    T_TRUE(a && a->type == STS_ARG_JSON);
    if (a) T_EQ_STR(str(&all, a->v.str), "[[1, 64, 768], [], [\"a]\", -2.5e3]]");
    done(&all);

    /* "ph" after "args": the args still count. */
    const char *late =
        "[{\"args\":{\"used\":3},\"name\":\"m\",\"pid\":1,\"tid\":1,\"ts\":1,\"ph\":\"C\"},"
        "{\"args\":{\"External id\":5},\"name\":\"x\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":1,\"ph\":\"X\"}]";
    run l = load_mode(late, strlen(late), STS_ARGS_KNOWN);
    T_EQ_U64(l.tl->counters.n, 1);
    T_TRUE(sts_timeline_find_arg(l.tl, l.tl->slices.v[0].args, "External id") != NULL);
    done(&l);
}

/* Generates n varied events; returns the sums a correct reader must reproduce. */
static void gen_events(buf *b, int n, uint64_t *ts_sum, uint64_t *dur_sum)
{
    *ts_sum = *dur_sum = 0;
    puts_(b, "{\"schemaVersion\": 1, \"traceEvents\": [\n");
    for (int i = 0; i < n; i++) {
        long long ts = 1682725898079292LL + i * 7;
        int frac = (i * 37) % 1000, dur = 1 + i % 500;
        /* Vary the layout so buffer ends fall everywhere: pretty, compact, escapes. */
        if (i % 3 == 0)
            putf(
                b,
                "  {\n    \"ph\": \"X\", \"cat\": \"cpu_op\", \"name\": \"op\\u0020%d\", \"pid\": %d, \"tid\": "
                "\"%d\",\n"
                "    \"ts\": %lld.%03d, \"dur\": %d,\n    \"args\": {\"External id\": %d, \"grid\": [1, 2, 3]}\n  },\n",
                i % 97, 1 + i % 3, i % 5, ts, frac, dur, i);
        else
            putf(b,
                 "{\"pid\":%d,\"tid\":%d,\"ts\":\"%lld.%03d\",\"ph\":\"X\",\"name\":\"k%d\",\"dur\":%d.000,\"args\":{}}"
                 ",",
                 1 + i % 3, i % 5, ts, frac, i % 13, dur);
        *ts_sum += (uint64_t)(ts * 1000 + frac);
        *dur_sum += (uint64_t)dur * 1000;
    }
    puts_(b, "{}]}\n");
}

static void check_generated(const run *r, int n, uint64_t ts_sum, uint64_t dur_sum)
{
    T_EQ_I64(r->st, STS_OK);
    T_EQ_U64(r->tl->info.events, (uint64_t)n);
    T_EQ_U64(r->tl->slices.n, (size_t)n);
    uint64_t ts = 0, dur = 0;
    for (size_t i = 0; i < r->tl->slices.n; i++) {
        ts += (uint64_t)r->tl->slices.v[i].ts;
        dur += (uint64_t)r->tl->slices.v[i].dur;
    }
    T_EQ_U64(ts, ts_sum);
    T_EQ_U64(dur, dur_sum);
    T_EQ_U64(r->tl->procs.n, 3);
    T_EQ_U64(r->tl->warnings.n, 0);
    T_EQ_STR(str(r, r->tl->slices.v[3].name), "op 3");
}

static void count_progress(uint64_t done_bytes, uint64_t total, void *user)
{
    uint64_t *calls = user;
    calls[0]++;
    calls[1] = done_bytes;
    calls[2] = total;
}

TEST(many_buffers_plain_and_gzip)
{
    buf b = { NULL, 0, 0 };
    uint64_t ts_sum, dur_sum;
    const int n = 60000;
    gen_events(&b, n, &ts_sum, &dur_sum);
    T_TRUE(b.n > 4000000);
    run r = load_mode(b.p, b.n, STS_ARGS_KNOWN);
    check_generated(&r, n, ts_sum, dur_sum);
    T_EQ_I64(r.tl->info.resolution_ns, 1);
    done(&r);

    buf gz = gzip_bytes(b.p, b.n);
    run g = load_mode(gz.p, gz.n, STS_ARGS_KNOWN);
    check_generated(&g, n, ts_sum, dur_sum);
    T_EQ_U64(g.tl->info.bytes, b.n);
    done(&g);

    /* Progress reports raw bytes, and comes at the end as well. */
    uint64_t calls[3] = { 0, 0, 0 };
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_mem(b.p, b.n, "trace.json", &err);
    sts_timeline *tl = sts_tl_new("trace.json", "chrome-json", STS_ARGS_NONE);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = STS_ARGS_NONE;
    opt.progress = count_progress;
    opt.progress_user = calls;
    T_EQ_I64(sts_read_chrome_json(in, tl, &opt, &err), STS_OK);
    T_TRUE(calls[0] >= 1);
    T_EQ_U64(calls[1], b.n);
    T_EQ_U64(calls[2], b.n);
    T_EQ_U64(tl->args.n, 0);
    sts_tl_free(tl);
    sts_instream_free(in);
    free(gz.p);
    free(b.p);
}

TEST(event_cut_at_every_buffer_position)
{
    /* One event placed so that a read buffer ends at each of its bytes in turn. */
    const char *ev = "{\"ph\": \"X\", \"name\": \"a\\\"b\\u00e9\", \"cat\": \"c\", \"pid\": \"p 1\", \"tid\": -3, "
                     "\"ts\": 1682725898079292.1234, \"dur\": 1.5e1, \"args\": {\"External id\": [1, {\"k\": \"v\"}], "
                     "\"step_num\": 12, \"x\": true}}";
    size_t evn = strlen(ev);
    int failures = 0;
    for (size_t lead = 131072 - evn - 4; lead <= 131072 + 2; lead++) {
        buf b = { NULL, 0, 0 };
        puts_(&b, "[");
        repeat(&b, ' ', lead - 1);
        puts_(&b, ev);
        puts_(&b, "]");
        run r = load_mode(b.p, b.n, STS_ARGS_KNOWN);
        int ok = r.st == STS_OK && r.tl->slices.n == 1 && r.tl->slices.v[0].ts == 1682725898079292123 &&
                 r.tl->slices.v[0].dur == 15000 && r.tl->args.n == 2 &&
                 strcmp(str(&r, r.tl->slices.v[0].name), "a\"b\xc3\xa9") == 0;
        if (!ok && failures++ < 3)
            T_FAIL_AT("event at byte %zu: status %s %s", lead, sts_status_name(r.st), r.err.message);
        done(&r);
        free(b.p);
    }
    T_EQ_I64(failures, 0);
}

TEST(whitespace_runs_of_every_length)
{
    /* Runs of each length from 0 to 40, of all four whitespace bytes, between every
     * pair of tokens: the skipper reads runs 16 bytes at a time. */
    static const char *const tokens[] = { "[", "{",       "\"ph\"", ":", "\"X\"", ",",        "\"ts\"", ":", "2.5",
                                          ",", "\"dur\"", ":",      "1", ",",     "\"args\"", ":",      "{", "\"k\"",
                                          ":", "[",       "1",      ",", "2",     "]",        "}",      "}", "]" };
    static const char ws[] = " \t\n\r";
    int failures = 0;
    for (size_t len = 0; len <= 40; len++) {
        buf b = { NULL, 0, 0 };
        for (size_t t = 0; t < sizeof tokens / sizeof *tokens; t++) {
            for (size_t k = 0; k < len; k++)
                put(&b, &ws[(k + t) % 4], 1);
            puts_(&b, tokens[t]);
        }
        run r = load_mode(b.p, b.n, STS_ARGS_ALL);
        int ok = r.st == STS_OK && r.tl->info.events == 1 && r.tl->slices.n == 1 && r.tl->slices.v[0].ts == 2500 &&
                 r.tl->slices.v[0].dur == 1000 && r.tl->args.n == 1;
        if (!ok && failures++ < 3) T_FAIL_AT("runs of %zu: status %s %s", len, sts_status_name(r.st), r.err.message);
        done(&r);
        free(b.p);
    }
    T_EQ_I64(failures, 0);
    /* A vertical tab is not JSON whitespace, even inside a long run. */
    expect_error("[{\"ph\": \"X\",                    \v \"ts\": 1}]", STS_ERR_PARSE,
                 "byte 32 (event 0): expected a string key, found byte 0x0b");
}

/* Counts events with Python's json module, independently of the reader: for each
 * file named on the command line, "file", then the counts and the exact ns sums. */
static const char *const py_count =
    "import gzip, json, sys\n"
    "from decimal import Decimal, ROUND_HALF_UP\n"
    "ns = lambda v: int((Decimal(v) * 1000).quantize(Decimal(1), rounding=ROUND_HALF_UP))\n"
    "for path in sys.argv[1:]:\n"
    "    raw = open(path, 'rb').read()\n"
    "    if raw[:2] == b'\\x1f\\x8b': raw = gzip.decompress(raw)\n"
    "    d = json.loads(raw, parse_float=Decimal, parse_int=Decimal)\n"
    "    ev = d if isinstance(d, list) else d['traceEvents']\n"
    "    n = counters = ts = dur = 0\n"
    "    by = {}\n"
    "    for e in ev:\n"
    "        if not isinstance(e, dict) or not e: continue\n"
    "        n += 1\n"
    "        ph = e.get('ph', '')\n"
    "        if isinstance(ph, str) and len(ph) == 1: by[ph] = by.get(ph, 0) + 1\n"
    "        if ph == 'C': counters += sum(isinstance(v, Decimal) for v in e.get('args', {}).values())\n"
    "        if ph == 'X': ts += ns(e['ts']); dur += ns(e['dur'])\n"
    "    print('file', 0)\n"
    "    print('events', n)\n"
    "    print('counters', counters)\n"
    "    print('ts', ts % 2**64)\n"
    "    print('dur', dur % 2**64)\n"
    "    for k in sorted(by): print('ph', ord(k), by[k])\n";

typedef struct py_facts {
    unsigned long long events, counters, ts, dur, by[128];
} py_facts;

/* Reads the script's output: one py_facts per "file" line. Returns the count. */
static int read_facts(FILE *p, py_facts *facts, int max)
{
    char line[256], key[32];
    unsigned long long a, b;
    int n = 0;
    while (fgets(line, sizeof line, p)) {
        int got = sscanf(line, "%31s %llu %llu", key, &a, &b);
        if (got < 2) continue;
        if (strcmp(key, "file") == 0) {
            if (n == max) break;
            memset(&facts[n++], 0, sizeof *facts);
            continue;
        }
        if (n == 0) continue;
        py_facts *f = &facts[n - 1];
        if (strcmp(key, "events") == 0)
            f->events = a;
        else if (strcmp(key, "counters") == 0)
            f->counters = a;
        else if (strcmp(key, "ts") == 0)
            f->ts = a;
        else if (strcmp(key, "dur") == 0)
            f->dur = a;
        else if (strcmp(key, "ph") == 0 && got == 3 && a < 128)
            f->by[a] = b;
    }
    return n;
}

static void check_fixture(const char *path, const py_facts *want)
{
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open(path, &err);
    sts_timeline *tl = sts_tl_new(path, "chrome-json", STS_ARGS_KNOWN);
    sts_status st = in ? sts_read_chrome_json(in, tl, NULL, &err) : err.code;
    if (st != STS_OK) T_FAIL_AT("%s: %s", path, err.message);
    uint64_t ts = 0, dur = 0;
    for (size_t i = 0; i < tl->slices.n; i++)
        if (!(tl->slices.v[i].flags & STS_SLICE_FROM_BE)) {
            ts += (uint64_t)tl->slices.v[i].ts;
            dur += (uint64_t)tl->slices.v[i].dur;
        }
    if (tl->info.events != want->events)
        T_FAIL_AT("%s: %llu events, python %llu", path, (unsigned long long)tl->info.events, want->events);
    T_EQ_U64(tl->counters.n, want->counters);
    T_EQ_U64(ts, want->ts);
    T_EQ_U64(dur, want->dur);
    for (int c = 0; c < 128; c++)
        if (tl->info.by_phase[c] != want->by[c])
            T_FAIL_AT("%s: phase '%c': %llu, python %llu", path, c, (unsigned long long)tl->info.by_phase[c],
                      want->by[c]);
    T_EQ_U64(tl->info.rejected, 0);
    T_EQ_U64(tl->slices.n, tl->info.by_phase['X'] + tl->info.by_phase['B']);
    T_EQ_U64(tl->ends.n, tl->info.by_phase['E']);
    T_EQ_U64(tl->instants.n, tl->info.by_phase['i'] + tl->info.by_phase['I'] + tl->info.by_phase['R']);
    T_EQ_U64(tl->flows.n, tl->info.by_phase['s'] + tl->info.by_phase['t'] + tl->info.by_phase['f']);
    uint64_t async = 0;
    for (const char *c = "benSTFp"; *c; c++)
        async += tl->info.by_phase[(int)*c];
    T_EQ_U64(tl->asyncs.n, async);
    sts_tl_free(tl);
    sts_instream_free(in);
}

TEST(fixtures_match_python)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures: $STEPSCOPE_FIXTURES or ../shared/fixtures (see docs/fixtures.md)");
    if (system("python3 -c 'import json, gzip, decimal' >/dev/null 2>&1") != 0) T_SKIP("python3 not available");
    char script[] = "/tmp/sts_count_XXXXXX";
    int fd = mkstemp(script);
    T_TRUE(fd >= 0);
    if (fd < 0) return;
    T_TRUE(write(fd, py_count, strlen(py_count)) == (ssize_t)strlen(py_count));
    close(fd);
    /* One Python process for all files: its start-up dominates otherwise. */
    const char *dirs[] = { "chrome", "kineto", "torch-legacy" };
    char paths[64][1100];
    int files = 0;
    buf cmd = { NULL, 0, 0 };
    putf(&cmd, "python3 '%s'", script);
    for (size_t d = 0; d < 3; d++) {
        char dir[1024];
        if (snprintf(dir, sizeof dir, "%s/traces/%s", fx, dirs[d]) >= (int)sizeof dir) continue;
        DIR *dp = opendir(dir);
        struct dirent *de;
        while (dp && files < 64 && (de = readdir(dp))) {
            if (!strstr(de->d_name, ".json")) continue;
            if (snprintf(paths[files], sizeof paths[files], "%s/%s", dir, de->d_name) >= (int)sizeof paths[files])
                continue;
            puts_(&cmd, " '");
            puts_(&cmd, paths[files]);
            puts_(&cmd, "'");
            files++;
        }
        if (dp) closedir(dp);
    }
    if (files == 0) {
        unlink(script);
        free(cmd.p);
        T_SKIP("no Chrome JSON fixtures under %s/traces", fx);
    }
    FILE *p = popen(cmd.p, "r");
    T_TRUE(p != NULL);
    static py_facts want[64];
    int got = p ? read_facts(p, want, 64) : 0;
    if (p) T_EQ_I64(pclose(p), 0);
    T_EQ_I64(got, files);
    for (int i = 0; i < got && i < files; i++)
        check_fixture(paths[i], &want[i]);
    T_GE_I64(files, 15);
    unlink(script);
    free(cmd.p);
}

int main(void)
{
    RUN(array_and_object_forms);
    RUN(keys_around_trace_events);
    RUN(trailing_empty_object);
    RUN(truncated_file_keeps_complete_events);
    RUN(phases_stored_in_place);
    RUN(pid_tid_forms);
    RUN(many_interleaved_lanes_keep_their_identity);
    RUN(timestamps_exact);
    RUN(out_of_range_numbers_rejected);
    RUN(rejected_events_warn);
    RUN(non_object_elements_skipped);
    RUN(malformed_input_errors);
    RUN(truncated_gzip_is_an_error);
    RUN(deep_nesting_is_iterative);
    RUN(strings_bytes_and_escapes);
    RUN(integer_ids_keep_their_text);
    RUN(args_mode_key_sets);
    RUN(args_modes);
    RUN(many_buffers_plain_and_gzip);
    RUN(event_cut_at_every_buffer_position);
    RUN(whitespace_runs_of_every_length);
    RUN(fixtures_match_python);
    return t_done();
}
