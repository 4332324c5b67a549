/* The writers: XSpace (.xplane.pb), Chrome trace JSON (.json/.json.gz) and JAX-style
 * profile directories. Timelines are built with the model's builder API in the shape
 * of lesson 3 (four steps, each an input wait then a model call, plus device work),
 * written, then read back and compared exactly; protoc checks our protobuf on its own. */
#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>
#include <zlib.h>

#include "base/instream.h"
#include "model/timeline_builder.h"
#include "read/readers.h"
#include "read/xplane.h"
#include "stepscope/timeline.h"
#include "stepscope/version.h"
#include "stepscope/write.h"
#include "test.h"
#include "write/xplane_write.h"

/* ---- building timelines ---- */

static uint32_t str(sts_timeline *tl, const char *s)
{
    return sts_tl_intern(tl, s, strlen(s));
}

static uint32_t mk_lane(sts_timeline *tl, int64_t pid, const char *pname, int64_t tid, const char *tname, int device)
{
    char p[32], t[32];
    snprintf(p, sizeof p, "%lld", (long long)pid);
    snprintf(t, sizeof t, "%lld", (long long)tid);
    uint32_t proc = sts_tl_process(tl, str(tl, p), pid);
    tl->procs.v[proc].name = str(tl, pname);
    uint32_t l = sts_tl_lane(tl, proc, str(tl, t), tid);
    tl->lanes.v[l].name = tname ? str(tl, tname) : 0;
    tl->lanes.v[l].kind = device ? STS_LANE_DEVICE : STS_LANE_THREAD;
    return l;
}

static sts_slice *add(sts_timeline *tl, uint32_t lane, const char *name, int64_t ts, int64_t dur)
{
    sts_slice *s = STS_VEC_PUSH(tl->slices);
    s->ts = ts;
    s->dur = dur;
    s->name = str(tl, name);
    s->lane = lane;
    s->args = STS_NONE;
    s->parent = (uint32_t)tl->info.events++;
    return s;
}

static sts_arg a_int(sts_timeline *tl, const char *k, int64_t v)
{
    sts_arg a = { str(tl, k), STS_ARG_INT, 0, 0, { .i = v } };
    return a;
}

static sts_arg a_str(sts_timeline *tl, const char *k, const char *v)
{
    sts_arg a = { str(tl, k), STS_ARG_STRING, 0, 0, { .str = str(tl, v) } };
    return a;
}

static sts_arg a_dbl(sts_timeline *tl, const char *k, double v)
{
    sts_arg a = { str(tl, k), STS_ARG_DOUBLE, 0, 0, { .d = v } };
    return a;
}

static sts_arg a_bool(sts_timeline *tl, const char *k, int v)
{
    sts_arg a = { str(tl, k), STS_ARG_BOOL, 0, 0, { .i = v } };
    return a;
}

enum { STEP0 = 1000007, STEP_GAP = 2000000, STEP_DUR = 1393123 };

/* Lesson 3's shape with odd nanoseconds, so microsecond rounding would show. */
static sts_timeline *lesson3(void)
{
    sts_timeline *tl = sts_tl_new("built", "recorder", STS_ARGS_ALL);
    uint32_t main_l = mk_lane(tl, 4242, "python3", 4243, "MainThread", 0);
    uint32_t worker = mk_lane(tl, 4242, "python3", 4250, "worker", 0);
    uint32_t dev = mk_lane(tl, 1, "/device:CPU:0", 0, "Queue 0", 1);
    for (int i = 0; i < 4; i++) {
        int64_t ts = STEP0 + (int64_t)i * STEP_GAP;
        sts_slice *s = add(tl, main_l, "learner_step", ts, STEP_DUR);
        sts_arg sa[] = { a_int(tl, "step_num", i) };
        s->args = sts_tl_add_args(tl, sa, 1);
        add(tl, main_l, "input_wait", ts + 5, 1263001);
        s = add(tl, main_l, "model_and_wait", ts + 5 + 1263001 + 3, 108555);
        sts_arg ma[] = { a_dbl(tl, "flops", 1.5e6 + 0.25), a_str(tl, "shape", "48x32"), a_bool(tl, "jit", 1) };
        s->args = sts_tl_add_args(tl, ma, 3);
        s = add(tl, dev, "matmul_tanh", ts + 1263001 + 1000, 50001);
        sts_arg ka[] = { a_int(tl, "correlation_id", 100 + i), a_str(tl, "shape", "48x32") };
        s->args = sts_tl_add_args(tl, ka, 2);
    }
    /* A step that already carries _r, and a duplicate key: one stat each. */
    sts_slice *s = add(tl, worker, "prefetch", STEP0, 999);
    sts_arg pa[] = { a_int(tl, "step_num", 100), a_int(tl, "_r", 1), a_int(tl, "step_num", 101) };
    s->args = sts_tl_add_args(tl, pa, 3);
    sts_instant *in = STS_VEC_PUSH(tl->instants);
    in->ts = STEP0 + 17;
    in->name = str(tl, "marker");
    in->lane = main_l;
    in->args = STS_NONE;
    in->scope = 't';
    sts_counter *c = STS_VEC_PUSH(tl->counters);
    c->ts = STEP0;
    c->value = 42.5;
    c->name = str(tl, "queue_depth");
    c->series = str(tl, "depth");
    c->lane = main_l;
    return tl;
}

/* ---- helpers ---- */

static char tmpdir[256];

static const char *tmp(const char *name)
{
    static char buf[4][512];
    static int k;
    k = (k + 1) % 4;
    snprintf(buf[k], sizeof buf[k], "%s/%s", tmpdir, name);
    return buf[k];
}

static char *slurp(const char *path, size_t *n)
{
    gzFile g = gzopen(path, "rb"); /* reads plain files too */
    if (!g) return NULL;
    size_t cap = 1 << 16, len = 0;
    char *b = malloc(cap + 1);
    int got;
    while ((got = gzread(g, b + len, (unsigned)(cap - len))) > 0) {
        len += (size_t)got;
        if (len == cap) b = realloc(b, (cap *= 2) + 1);
    }
    gzclose(g);
    b[len] = 0;
    if (n) *n = len;
    return b;
}

static int count_substr(const char *hay, const char *needle)
{
    int n = 0;
    for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
        n++;
    return n;
}

static int have_tools(void)
{
    return system("command -v protoc >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1") == 0;
}

static const char *S(const sts_timeline *tl, uint32_t id)
{
    return sts_timeline_string(tl, id);
}

/* A slice's identity for comparison: "lane name|name|ts|dur". */
static void slice_key(const sts_timeline *tl, const sts_slice *s, char *out, size_t cap)
{
    size_t nl;
    const sts_lane *l = sts_timeline_lanes(tl, &nl);
    snprintf(out, cap, "%s|%s|%lld|%lld", s->lane < nl ? S(tl, l[s->lane].name) : "?", S(tl, s->name), (long long)s->ts,
             (long long)s->dur);
}

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted identities of all slices (instants as zero-length slices when with_instants). */
static char **keys(const sts_timeline *tl, int with_instants, size_t *n)
{
    size_t ns, ni;
    const sts_slice *s = sts_timeline_slices(tl, &ns);
    const sts_instant *in = sts_timeline_instants(tl, &ni);
    if (!with_instants) ni = 0;
    char **k = calloc(ns + ni + 1, sizeof *k);
    for (size_t i = 0; i < ns; i++) {
        k[i] = malloc(512);
        slice_key(tl, &s[i], k[i], 512);
    }
    for (size_t i = 0; i < ni; i++) {
        sts_slice tmp_s = { in[i].ts, 0, in[i].name, in[i].lane, STS_NONE, STS_NONE, 0, 0, 0, 0 };
        k[ns + i] = malloc(512);
        slice_key(tl, &tmp_s, k[ns + i], 512);
    }
    qsort(k, ns + ni, sizeof *k, cmp_str);
    *n = ns + ni;
    return k;
}

static void free_keys(char **k, size_t n)
{
    for (size_t i = 0; i < n; i++)
        free(k[i]);
    free(k);
}

/* Every original slice (and instant) appears in `back` with the same lane name, name,
 * start and duration. */
static void same_slices(const sts_timeline *orig, int with_instants, const sts_timeline *back)
{
    size_t na, nb;
    char **a = keys(orig, with_instants, &na), **b = keys(back, 0, &nb);
    T_EQ_U64(na, nb);
    for (size_t i = 0; i < na && i < nb; i++)
        if (strcmp(a[i], b[i]) != 0) {
            T_FAIL_AT("slice %zu: %s != %s", i, a[i], b[i]);
            break;
        }
    free_keys(a, na);
    free_keys(b, nb);
}

static sts_timeline *read_xplane_raw(const char *path, sts_args_mode mode)
{
    sts_timeline *tl = sts_tl_new(path, "xplane", mode);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = mode;
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open(path, &err);
    sts_status st = in ? sts_read_xplane(in, tl, &opt, &err) : err.code;
    sts_instream_free(in);
    if (st != STS_OK) {
        T_FAIL_AT("read %s: %s", path, err.message);
        sts_tl_free(tl);
        return NULL;
    }
    return tl;
}

static const sts_arg *arg_of(const sts_timeline *tl, const char *slice_name, int nth, const char *key)
{
    size_t n;
    const sts_slice *s = sts_timeline_slices(tl, &n);
    for (size_t i = 0; i < n; i++)
        if (strcmp(S(tl, s[i].name), slice_name) == 0 && nth-- == 0) return sts_timeline_find_arg(tl, s[i].args, key);
    return NULL;
}

/* ---- XSpace ---- */

TEST(xplane_round_trip)
{
    sts_timeline *tl = lesson3();
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "testhost";
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_xplane(tl, tmp("a.xplane.pb"), &o, &err), STS_OK);
    sts_timeline *back = read_xplane_raw(tmp("a.xplane.pb"), STS_ARGS_ALL);
    if (!back) return;
    same_slices(tl, 1, back);
    size_t np, nl;
    const sts_process *p = sts_timeline_processes(back, &np);
    const sts_lane *l = sts_timeline_lanes(back, &nl);
    T_EQ_U64(np, 2);
    T_EQ_U64(nl, 3);
    if (np == 2) {
        T_EQ_STR(S(back, p[0].name), "/host:CPU");
        T_EQ_STR(S(back, p[1].name), "/device:CUSTOM:CPU:0"); /* a plane XProf displays */
    }
    for (size_t i = 0; i < nl; i++) {
        const char *pn = S(back, p[l[i].process].name);
        T_EQ_I64(l[i].kind, strcmp(pn, "/device:CUSTOM:CPU:0") == 0 ? STS_LANE_DEVICE : STS_LANE_THREAD);
        if (strcmp(S(back, l[i].name), "MainThread") == 0) T_EQ_I64(l[i].tid, 4243);
    }
    for (int i = 0; i < 4; i++) {
        const sts_arg *a = arg_of(back, "learner_step", i, "step_num");
        T_TRUE(a && a->type == STS_ARG_INT && a->v.i == i);
        a = arg_of(back, "learner_step", i, "_r");
        T_TRUE(a && a->type == STS_ARG_INT && a->v.i == 1);
        T_TRUE(arg_of(back, "input_wait", i, "_r") == NULL);
        a = arg_of(back, "matmul_tanh", i, "correlation_id");
        T_TRUE(a && a->v.i == 100 + i);
    }
    const sts_arg *f = arg_of(back, "model_and_wait", 0, "flops");
    T_TRUE(f && f->type == STS_ARG_DOUBLE && f->v.d == 1.5e6 + 0.25);
    const sts_arg *sh = arg_of(back, "model_and_wait", 0, "shape");
    T_TRUE(sh && sh->type == STS_ARG_STRING);
    if (sh) T_EQ_STR(S(back, sh->v.str), "48x32");
    const sts_arg *j = arg_of(back, "model_and_wait", 0, "jit");
    T_TRUE(j && j->type == STS_ARG_INT && j->v.i == 1);
    const sts_arg *ps = arg_of(back, "prefetch", 0, "step_num");
    T_TRUE(ps && ps->v.i == 100); /* the first of a duplicated key */
    sts_tl_free(back);
    sts_tl_free(tl);
}

TEST(xplane_decodes_with_protoc)
{
    if (!have_tools()) T_SKIP("protoc or python3 missing");
    sts_timeline *tl = lesson3();
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "testhost";
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_xplane(tl, tmp("b.xplane.pb"), &o, &err), STS_OK);
    char cmd[2048];
    snprintf(cmd, sizeof cmd, "protoc --decode=tensorflow.profiler.XSpace -I proto proto/xplane.proto < %s > %s 2>&1",
             tmp("b.xplane.pb"), tmp("b.txt"));
    T_EQ_I64(system(cmd), 0);
    char *txt = slurp(tmp("b.txt"), NULL);
    T_TRUE(txt != NULL);
    if (txt) {
        T_EQ_I64(count_substr(txt, "\n    events {"), 18); /* 4 x 4 slices + prefetch + the instant */
        T_EQ_I64(count_substr(txt, "planes {"), 2);
        T_CONTAINS(txt, "name: \"/host:CPU\"");
        T_CONTAINS(txt, "name: \"/device:CUSTOM:CPU:0\"");
        T_CONTAINS(txt, "name: \"step_num\"");
        T_CONTAINS(txt, "name: \"_r\"");
        T_CONTAINS(txt, "hostnames: \"testhost\"");
        /* Deduplicated metadata: "learner_step" is one event metadata entry. */
        T_EQ_I64(count_substr(txt, "name: \"learner_step\""), 1);
        T_EQ_I64(count_substr(txt, "name: \"48x32\""), 2); /* one stat metadata per plane */
    }
    free(txt);
    /* The independent summary sees the 5 steps with their step_num. */
    snprintf(cmd, sizeof cmd, "python3 tests/cli/xplane_protoc_summary.py %s > %s", tmp("b.xplane.pb"), tmp("b.sum"));
    T_EQ_I64(system(cmd), 0);
    char *sum = slurp(tmp("b.sum"), NULL);
    if (sum) {
        T_EQ_I64(count_substr(sum, "step\t/host:CPU\t"), 5);
        char want[128];
        snprintf(want, sizeof want, "step\t/host:CPU\t4243\t%d\t%d\t3", STEP0 + 3 * STEP_GAP, STEP_DUR);
        T_CONTAINS(sum, want);
        T_CONTAINS(sum, "line\t/device:CUSTOM:CPU:0\t0\tQueue 0\t4\t200004\t");
    }
    free(sum);
    sts_tl_free(tl);
}

/* Opens through the public entry point (reader + finalize); NULL on failure. */
static sts_timeline *open_public(const char *path, sts_args_mode mode)
{
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = mode;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open(path, &opt, &tl, &err) != STS_OK) {
        T_FAIL_AT("open %s: %s", path, err.message);
        return NULL;
    }
    return tl;
}

TEST(xplane_round_trip_nests)
{
    sts_timeline *tl = lesson3();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_xplane(tl, tmp("c.xplane.pb"), NULL, &err), STS_OK);
    sts_timeline *back = open_public(tmp("c.xplane.pb"), STS_ARGS_KNOWN);
    if (!back) return;
    size_t n;
    const sts_slice *s = sts_timeline_slices(back, &n);
    int children = 0;
    for (size_t i = 0; i < n; i++) {
        if (strcmp(S(back, s[i].name), "input_wait") != 0 && strcmp(S(back, s[i].name), "model_and_wait") != 0)
            continue;
        T_TRUE(s[i].parent != STS_NONE && strcmp(S(back, s[s[i].parent].name), "learner_step") == 0);
        T_EQ_I64(s[i].depth, 1);
        children++;
    }
    T_EQ_I64(children, 8);
    T_EQ_STR(sts_timeline_get_info(back)->format, "xplane");
    sts_timeline_free(back);
    sts_tl_free(tl);
}

TEST(xplane_fixture_rewrite_keeps_counts)
{
    const char *fx = t_fixtures();
    if (!fx) T_SKIP("no fixtures (see docs/fixtures.md)");
    char path[2048];
    if (snprintf(path, sizeof path, "%s/traces/jax/conv_mi300_8gpu.xplane.pb", (const char *)fx) >= (int)sizeof path)
        T_SKIP("path too long");
    if (access(path, R_OK) != 0) T_SKIP("%s missing", path);
    sts_timeline *orig = read_xplane_raw(path, STS_ARGS_ALL);
    if (!orig) return;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_xplane(orig, tmp("d.xplane.pb"), NULL, &err), STS_OK);
    sts_timeline *back = read_xplane_raw(tmp("d.xplane.pb"), STS_ARGS_ALL);
    if (!back) return;
    same_slices(orig, 0, back);
    size_t np1, np2, na1, na2;
    const sts_process *p1 = sts_timeline_processes(orig, &np1);
    const sts_process *p2 = sts_timeline_processes(back, &np2);
    T_EQ_U64(np1, np2);
    for (size_t i = 0; i < np1; i++) { /* the host plane comes first now: match by name */
        size_t k = 0;
        while (k < np2 && strcmp(S(orig, p1[i].name), S(back, p2[k].name)) != 0)
            k++;
        T_TRUE(k < np2);
        if (k < np2) T_EQ_I64(p1[i].pid, p2[k].pid);
    }
    sts_timeline_args(orig, &na1);
    sts_timeline_args(back, &na2);
    T_EQ_U64(na1, na2);
    sts_tl_free(orig);
    sts_tl_free(back);
}

TEST(xplane_range_error_keeps_destination)
{
    FILE *f = fopen(tmp("e.xplane.pb"), "w");
    fputs("old", f);
    fclose(f);
    sts_timeline *tl = sts_tl_new("x", "x", STS_ARGS_KNOWN);
    uint32_t l = mk_lane(tl, 1, "p", 1, "t", 0);
    add(tl, l, "early", -INT64_MAX / 2, 1);
    add(tl, l, "late", INT64_MAX / 2, 1);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_xplane(tl, tmp("e.xplane.pb"), NULL, &err), STS_ERR_RANGE);
    T_CONTAINS(err.message, "spans more than 2^63 ps");
    char *back = slurp(tmp("e.xplane.pb"), NULL);
    T_EQ_STR(back, "old");
    free(back);
    DIR *d = opendir(tmpdir);
    for (struct dirent *e; d && (e = readdir(d));)
        if (strstr(e->d_name, ".tmp.")) T_FAIL_AT("temporary file left behind: %s", e->d_name);
    if (d) closedir(d);
    T_EQ_I64(sts_write_xplane(tl, "/nonexistent-dir/x.xplane.pb", NULL, &err), STS_ERR_NOT_FOUND);
    T_CONTAINS(err.message, "/nonexistent-dir/x.xplane.pb: cannot open for writing: cannot create a temporary file "
                            "beside it: No such file or directory");
    sts_tl_free(tl);
}

TEST(xplane_encoder_is_deterministic_and_canonical)
{
    sts_timeline *tl = lesson3();
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "h";
    uint8_t *a, *b;
    size_t na, nb;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_xplane_encode_mem(tl, &o, &a, &na, &err), STS_OK);
    T_EQ_I64(sts_xplane_encode_mem(tl, &o, &b, &nb, &err), STS_OK);
    T_TRUE(na == nb && memcmp(a, b, na) == 0);
    /* Reading our bytes and writing them again gives the same bytes. */
    sts_timeline *back = sts_tl_new("m", "xplane", STS_ARGS_ALL);
    T_EQ_I64(sts_read_xplane_mem(a, na, "m", back, NULL, &err), STS_OK);
    uint8_t *c;
    size_t nc;
    T_EQ_I64(sts_xplane_encode_mem(back, &o, &c, &nc, &err), STS_OK);
    sts_timeline *again = sts_tl_new("m2", "xplane", STS_ARGS_ALL);
    T_EQ_I64(sts_read_xplane_mem(c, nc, "m2", again, NULL, &err), STS_OK);
    same_slices(back, 0, again);
    free(a);
    free(b);
    free(c);
    sts_tl_free(back);
    sts_tl_free(again);
    sts_tl_free(tl);
}

TEST(xplane_several_processes_and_empty)
{
    /* Two host processes, both with a thread 1: one /host:CPU plane, distinct line ids,
     * names prefixed with the process. */
    sts_timeline *tl = sts_tl_new("x", "x", STS_ARGS_KNOWN);
    uint32_t a = mk_lane(tl, 10, "procA", 1, "main", 0);
    uint32_t b = mk_lane(tl, 20, "procB", 1, "main", 0);
    add(tl, a, "fa", 100, 10);
    add(tl, b, "fb", 100, 20);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_xplane(tl, tmp("m.xplane.pb"), NULL, &err), STS_OK);
    sts_timeline *back = read_xplane_raw(tmp("m.xplane.pb"), STS_ARGS_KNOWN);
    if (back) {
        size_t np, nl;
        sts_timeline_processes(back, &np);
        const sts_lane *l = sts_timeline_lanes(back, &nl);
        T_EQ_U64(np, 1);
        T_EQ_U64(nl, 2);
        if (nl == 2) {
            T_EQ_STR(S(back, l[0].name), "procA/main");
            T_EQ_I64(l[0].tid, 1);
            T_EQ_STR(S(back, l[1].name), "procB/main");
            T_EQ_I64(l[1].tid, INT64_C(0x80000000) + 1); /* distinct as a uint32, as XProf sees it */
        }
        sts_tl_free(back);
    }
    sts_tl_free(tl);
    /* An empty timeline: an XSpace with only the completion record's head (field 1001:
     * tag 8010 = varint ca 3e), the hostname and its tail (field 1002: d2 3e, empty as
     * no event was written); JSON with only the two completion events. */
    tl = sts_tl_new("x", "x", STS_ARGS_KNOWN);
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "h";
    uint8_t *bytes;
    size_t n;
    T_EQ_I64(sts_xplane_encode_mem(tl, &o, &bytes, &n, &err), STS_OK);
    char writer[64];
    int wn = snprintf(writer, sizeof writer, "stepscope %s", sts_version());
    uint8_t want[96] = { 0xca, 0x3e, (uint8_t)(wn + 2), 0x0a, (uint8_t)wn };
    memcpy(want + 5, writer, (size_t)wn);
    const uint8_t rest[] = { 0x22, 1, 'h', 0xd2, 0x3e, 0 };
    memcpy(want + 5 + wn, rest, sizeof rest);
    T_EQ_U64(n, 5 + (size_t)wn + sizeof rest);
    if (n == 5 + (size_t)wn + sizeof rest) T_TRUE(memcmp(bytes, want, n) == 0);
    free(bytes);
    T_EQ_I64(sts_write_chrome_json(tl, tmp("empty.json"), NULL, &err), STS_OK);
    char *txt = slurp(tmp("empty.json"), NULL);
    char json[512];
    snprintf(json, sizeof json,
             "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
             "{\"ph\":\"M\",\"pid\":0,\"name\":\"stepscope.file\",\"args\":{\"writer\":\"%s\","
             "\"ends_with\":\"stepscope.complete\"}},\n"
             "{\"ph\":\"M\",\"pid\":0,\"name\":\"stepscope.complete\",\"args\":{\"events\":0}}\n]}\n",
             writer);
    T_EQ_STR(txt, json);
    free(txt);
    sts_tl_free(tl);
}

/* ---- Chrome JSON ---- */

TEST(chrome_json_layout)
{
    sts_timeline *tl = lesson3();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_chrome_json(tl, tmp("a.json"), NULL, &err), STS_OK);
    size_t n;
    char *txt = slurp(tmp("a.json"), &n);
    T_TRUE(txt != NULL);
    if (!txt) return;
    const char *head = "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n";
    T_TRUE(strncmp(txt, head, strlen(head)) == 0);
    /* No empty object ends the array (DevTools' trace engine throws on one), and no
     * event is followed by a comma that nothing follows. */
    T_TRUE(n > 5 && strcmp(txt + n - 5, "}\n]}\n") == 0);
    T_TRUE(strstr(txt, "{}") == NULL && strstr(txt, ",\n\n]") == NULL);
    /* 1000007 ns = 1000.007 us exactly; 1393123 ns = 1393.123 us. */
    T_CONTAINS(txt,
               "{\"ph\":\"X\",\"pid\":4242,\"tid\":4243,\"ts\":1000.007,\"dur\":1393.123,\"name\":\"learner_step\","
               "\"args\":{\"step_num\":0}}");
    T_CONTAINS(txt, "\"args\":{\"flops\":1500000.25,\"shape\":\"48x32\",\"jit\":true}");
    T_CONTAINS(txt, "{\"ph\":\"M\",\"pid\":1,\"name\":\"process_name\",\"args\":{\"name\":\"/device:CPU:0\"}}");
    T_CONTAINS(txt, "{\"ph\":\"M\",\"pid\":4242,\"tid\":4250,\"name\":\"thread_name\",\"args\":{\"name\":\"worker\"}}");
    T_CONTAINS(txt, "\"name\":\"thread_sort_index\"");
    T_CONTAINS(txt, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":4242,\"tid\":4243,\"ts\":1000.024,\"name\":\"marker\"}");
    T_CONTAINS(
        txt,
        "{\"ph\":\"C\",\"pid\":4242,\"tid\":4243,\"ts\":1000.007,\"name\":\"queue_depth\",\"args\":{\"depth\":42.5}}");
    T_EQ_I64(count_substr(txt, "\"ph\":\"X\""), 17);
    free(txt);
    if (have_tools()) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); "
                 "assert all(e.get(\"ph\") for e in d[\"traceEvents\"])' %s",
                 tmp("a.json"));
        T_EQ_I64(system(cmd), 0);
    }
    sts_tl_free(tl);
}

TEST(chrome_json_gzip_and_times)
{
    sts_timeline *tl = sts_tl_new("x", "x", STS_ARGS_KNOWN);
    uint32_t l = mk_lane(tl, 7, "p", 8, "t", 0);
    add(tl, l, "neg", -1500, 1); /* -1.500 us, 0.001 us */
    add(tl, l, "zero", 0, 0);
    add(tl, l, "big", 1771595639214724894, 999); /* ns since the epoch: every digit kept */
    add(tl, l, "raw_b", 10, -1);                 /* a raw timeline's open B: left out */
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_chrome_json(tl, tmp("t.json.gz"), NULL, &err), STS_OK);
    FILE *f = fopen(tmp("t.json.gz"), "rb");
    unsigned char magic[2] = { 0, 0 };
    T_EQ_I64(fread(magic, 1, 2, f), 2);
    fclose(f);
    T_TRUE(magic[0] == 0x1f && magic[1] == 0x8b);
    char *txt = slurp(tmp("t.json.gz"), NULL);
    T_CONTAINS(txt, "\"ts\":-1.500,\"dur\":0.001,\"name\":\"neg\"");
    T_CONTAINS(txt, "\"ts\":0.000,\"dur\":0.000,\"name\":\"zero\"");
    T_CONTAINS(txt, "\"ts\":1771595639214724.894,\"dur\":0.999,\"name\":\"big\"");
    T_TRUE(strstr(txt, "raw_b") == NULL);
    free(txt);
    sts_tl_free(tl);
}

TEST(chrome_json_escapes_and_big_ids)
{
    sts_timeline *tl = sts_tl_new("x", "x", STS_ARGS_ALL);
    uint32_t l = mk_lane(tl, 5, "proc \"q\"", (INT64_C(1) << 60) + 12345, "tab\there", 0);
    uint32_t l2 = mk_lane(tl, 5, "proc \"q\"", (INT64_C(1) << 61) + 12345, "second", 0);
    add(tl, l, "quote\" back\\ nl\n ctl\x01 bad\xff ok\xc3\xa9", 1000, 1000);
    add(tl, l2, "other", 1000, 1000);
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_chrome_json(tl, tmp("esc.json"), NULL, &err), STS_OK);
    char *txt = slurp(tmp("esc.json"), NULL);
    T_CONTAINS(txt, "\"name\":\"quote\\\" back\\\\ nl\\n ctl\\u0001 bad\xef\xbf\xbd ok\xc3\xa9\"");
    /* Past JSON's safe integers: the low 31 bits (as JAX writes), then 2^40 + lane 1
     * for the second lane whose low bits collide. */
    T_CONTAINS(txt,
               "{\"ph\":\"M\",\"pid\":5,\"tid\":12345,\"name\":\"thread_name\",\"args\":{\"name\":\"tab\\there\"}}");
    T_CONTAINS(
        txt, "{\"ph\":\"M\",\"pid\":5,\"tid\":1099511627777,\"name\":\"thread_name\",\"args\":{\"name\":\"second\"}}");
    T_CONTAINS(txt, "{\"ph\":\"M\",\"pid\":5,\"name\":\"process_sort_index\",\"args\":{\"sort_index\":5}}");
    T_CONTAINS(
        txt,
        "{\"ph\":\"M\",\"pid\":5,\"tid\":1099511627777,\"name\":\"thread_sort_index\",\"args\":{\"sort_index\":2}}");
    free(txt);
    if (have_tools()) {
        char cmd[1024];
        snprintf(cmd, sizeof cmd,
                 "python3 -c 'import json,sys; d=json.load(open(sys.argv[1],encoding=\"utf-8\")); "
                 "n=[e for e in d[\"traceEvents\"] if e.get(\"ph\")==\"X\"][0][\"name\"]; "
                 "assert n==\"quote\\\" back\\\\ nl\\n ctl\\x01 bad\\ufffd ok\\u00e9\", repr(n)' %s",
                 tmp("esc.json"));
        T_EQ_I64(system(cmd), 0);
    }
    sts_tl_free(tl);
}

TEST(chrome_json_round_trip)
{
    sts_timeline *tl = lesson3();
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_chrome_json(tl, tmp("rt.json.gz"), NULL, &err), STS_OK);
    sts_timeline *back = open_public(tmp("rt.json.gz"), STS_ARGS_ALL);
    if (!back) return;
    same_slices(tl, 1, back); /* read back, the instant is a zero-length slice too, as in Perfetto */
    const sts_arg *a = arg_of(back, "learner_step", 2, "step_num");
    T_TRUE(a && a->v.i == 2);
    a = arg_of(back, "model_and_wait", 1, "flops");
    T_TRUE(a && a->type == STS_ARG_DOUBLE && a->v.d == 1.5e6 + 0.25);
    size_t ni, nc;
    sts_timeline_instants(back, &ni);
    sts_timeline_counters(back, &nc);
    T_EQ_U64(ni, 1);
    T_EQ_U64(nc, 1);
    sts_timeline_free(back);
    sts_tl_free(tl);
}

/* ---- profile directories ---- */

static int exists(const char *p)
{
    struct stat st;
    return stat(p, &st) == 0;
}

TEST(profile_dir_layout_and_no_overwrite)
{
    sts_timeline *tl = lesson3();
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "hostA";
    o.run_name = "run1";
    char *run = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_write_profile_dir(tl, tmp("logs"), &o, &run, &err), STS_OK);
    T_EQ_STR(run, tmp("logs/plugins/profile/run1"));
    T_TRUE(exists(tmp("logs/plugins/profile/run1/hostA.xplane.pb")));
    T_TRUE(exists(tmp("logs/plugins/profile/run1/hostA.trace.json.gz")));
    T_TRUE(exists(tmp("logs/plugins/profile/run1/perfetto_trace.json.gz")));
    free(run);
    size_t n1, n2;
    char *a = slurp(tmp("logs/plugins/profile/run1/hostA.trace.json.gz"), &n1);
    char *b = slurp(tmp("logs/plugins/profile/run1/perfetto_trace.json.gz"), &n2);
    T_TRUE(a && b && n1 == n2 && memcmp(a, b, n1) == 0);
    free(a);
    free(b);
    run = (char *)1;
    T_EQ_I64(sts_write_profile_dir(tl, tmp("logs"), &o, &run, &err), STS_ERR_EXISTS);
    T_TRUE(run == NULL);
    T_CONTAINS(err.message, "run1: run directory already exists");
    o.run_name = "../escape";
    T_EQ_I64(sts_write_profile_dir(tl, tmp("logs"), &o, NULL, &err), STS_ERR_INVALID_ARG);
    /* Timestamp runs: claim the stamps of the next few seconds first; the writer must
     * pick a suffixed name rather than write into one of them. */
    o.run_name = NULL;
    time_t now = time(NULL);
    for (int k = 0; k < 4; k++) {
        time_t t = now + k;
        struct tm tm;
        localtime_r(&t, &tm);
        char stamp[64], path[600];
        strftime(stamp, sizeof stamp, "%Y_%m_%d_%H_%M_%S", &tm);
        snprintf(path, sizeof path, "%s/%s", tmp("logs/plugins/profile"), stamp);
        mkdir(path, 0755);
    }
    T_EQ_I64(sts_write_profile_dir(tl, tmp("logs"), &o, &run, &err), STS_OK);
    T_TRUE(run && strlen(run) > 2 && strcmp(run + strlen(run) - 2, "_2") == 0);
    free(run);
    /* The opener reads a run back (the xplane file in it). */
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.run = "run1";
    sts_timeline *back = NULL;
    if (sts_timeline_open(tmp("logs"), &opt, &back, &err) == STS_OK) {
        T_EQ_STR(sts_timeline_get_info(back)->format, "xplane");
        same_slices(tl, 1, back);
        sts_timeline_free(back);
    } else {
        T_FAIL_AT("open profile dir: %s", err.message);
    }
    sts_tl_free(tl);
}

TEST(profile_dir_bad_parent)
{
    sts_timeline *tl = lesson3();
    FILE *f = fopen(tmp("afile"), "w");
    fclose(f);
    sts_error err = STS_ERROR_INIT;
    T_TRUE(sts_write_profile_dir(tl, tmp("afile"), NULL, NULL, &err) != STS_OK);
    T_CONTAINS(err.message, "afile");
    sts_tl_free(tl);
}

/* With STS_WRITE_FUZZ_SEEDS=DIR, saves the writer's XSpaces as fuzz seeds. */
static void write_seeds(void)
{
    const char *dir = getenv("STS_WRITE_FUZZ_SEEDS");
    if (!dir) return;
    sts_timeline *tl = lesson3();
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "seed";
    char path[1024];
    snprintf(path, sizeof path, "%s/writer_lesson3.pb", dir);
    sts_write_xplane(tl, path, &o, NULL);
    sts_tl_free(tl);
    tl = sts_tl_new("x", "x", STS_ARGS_ALL);
    uint32_t l = mk_lane(tl, 3, "/device:GPU:0", 5, "Stream #5", 1);
    add(tl, l, "kernel", 123456789, 1);
    add(tl, l, "kernel", 123456790, 0);
    snprintf(path, sizeof path, "%s/writer_device.pb", dir);
    sts_write_xplane(tl, path, &o, NULL);
    sts_tl_free(tl);
}

/* ---- the completion record ---- */

static sts_status read_json_mem(const char *buf, size_t n, sts_error *err)
{
    sts_timeline *tl = sts_tl_new("cut.json", "chrome-json", STS_ARGS_ALL);
    sts_instream *in = sts_instream_open_mem(buf, n, "cut.json", err);
    sts_status st = in ? sts_read_chrome_json(in, tl, NULL, err) : STS_ERR_NOMEM;
    sts_instream_free(in);
    sts_tl_free(tl);
    return st;
}

/* Every file the writers produce announces a completion record first and ends with
 * it, so a copy cut anywhere is an error, not a shorter trace: XSpace cut at any byte
 * after the announcement (20 bytes); Chrome JSON cut anywhere from the end of its
 * first event to the end of its last. The whole files read without error. */
TEST(completion_record_catches_every_cut)
{
    sts_timeline *tl = lesson3();
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "h";
    uint8_t *pb;
    size_t npb;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_xplane_encode_mem(tl, &o, &pb, &npb, &err), STS_OK);
    size_t head = 5 + strlen("stepscope ") + strlen(sts_version());
    /* ... hostname "h" (22 01 68), then the tail: d2 3e, its length, 08 and the
     * event count as a one-byte varint (the lesson has fewer than 128 events). */
    T_TRUE(npb > head + 8 && pb[0] == 0xca && pb[1] == 0x3e);
    size_t tail_at = npb - 5;
    T_TRUE(pb[tail_at - 3] == 0x22 && pb[tail_at] == 0xd2 && pb[tail_at + 1] == 0x3e && pb[tail_at + 2] == 2);
    sts_timeline *whole = sts_tl_new("m", "xplane", STS_ARGS_ALL);
    T_EQ_I64(sts_read_xplane_mem(pb, npb, "m", whole, NULL, &err), STS_OK);
    T_EQ_U64(pb[npb - 1], whole->slices.n + whole->instants.n);
    sts_tl_free(whole);
    size_t bad = 0;
    for (size_t cut = head; cut < npb; cut++) {
        sts_timeline *part = sts_tl_new("m", "xplane", STS_ARGS_ALL);
        sts_error e = STS_ERROR_INIT;
        sts_status st = sts_read_xplane_mem(pb, cut, "m", part, NULL, &e);
        if (st == STS_OK && bad++ < 3) T_FAIL_AT("XSpace cut at %zu of %zu read without error", cut, npb);
        /* Between two fields the format cannot tell: the completion record does. */
        if (cut == tail_at || cut == tail_at - 3) {
            T_EQ_I64(st, STS_ERR_TRUNCATED);
            T_CONTAINS(e.message, "m: cut short: the file ends at byte");
            T_CONTAINS(e.message, "without its completion record (XSpace field 1002");
        }
        sts_tl_free(part);
    }
    free(pb);

    T_EQ_I64(sts_write_chrome_json(tl, tmp("cut.json"), NULL, &err), STS_OK);
    size_t n;
    char *txt = slurp(tmp("cut.json"), &n);
    T_TRUE(txt != NULL);
    const char *first_end = txt ? strstr(txt, "}},\n") : NULL;
    const char *tail = txt ? strstr(txt, "\"name\":\"stepscope.complete\"") : NULL;
    T_TRUE(first_end && tail);
    if (first_end && tail) {
        T_EQ_I64(read_json_mem(txt, n, &err), STS_OK);
        size_t from = (size_t)(first_end - txt) + 2, to = (size_t)(strstr(tail, "}}") - txt) + 2;
        for (size_t cut = from; cut < to; cut++) {
            sts_error e = STS_ERROR_INIT;
            sts_status st = read_json_mem(txt, cut, &e);
            if ((st != STS_ERR_TRUNCATED || !strstr(e.message, "completion record (a \"stepscope.complete\"")) &&
                bad++ < 3)
                T_FAIL_AT("JSON cut at %zu of %zu: %s: %s", cut, n, sts_status_name(st), e.message);
        }
        for (size_t cut = to; cut < n; cut++) /* only the closing brackets lost */
            if (read_json_mem(txt, cut, &err) != STS_OK && bad++ < 3)
                T_FAIL_AT("JSON cut at %zu after the record", cut);
    }
    free(txt);
    sts_tl_free(tl);
}

int main(void)
{
    write_seeds();
    snprintf(tmpdir, sizeof tmpdir, "/tmp/sts_test_write_XXXXXX");
    if (!mkdtemp(tmpdir)) {
        perror("mkdtemp");
        return 1;
    }
    RUN(xplane_round_trip);
    RUN(xplane_decodes_with_protoc);
    RUN(xplane_round_trip_nests);
    RUN(xplane_fixture_rewrite_keeps_counts);
    RUN(xplane_range_error_keeps_destination);
    RUN(xplane_encoder_is_deterministic_and_canonical);
    RUN(xplane_several_processes_and_empty);
    RUN(chrome_json_layout);
    RUN(chrome_json_gzip_and_times);
    RUN(chrome_json_escapes_and_big_ids);
    RUN(chrome_json_round_trip);
    RUN(profile_dir_layout_and_no_overwrite);
    RUN(profile_dir_bad_parent);
    RUN(completion_record_catches_every_cut);
    char cmd[600];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
    if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmpdir);
    return t_done();
}
