/* `stepscope demo trace`: lesson 3 in C. A warmed tanh(x @ w) on the default OpenCL
 * device, four annotated learner_step steps (a 1 ms input_wait, then model_and_wait:
 * the call and its wait), recorded with device lanes and written as a JAX-style
 * profile directory; then read back with the analyzer and checked the way the lesson
 * checks it: nesting, order, the unattributed remainder, why summing nested durations
 * double counts, a min/median/max summary, and a union against a sum. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "demo.h"
#include "lesson3_model.h"
#include "stepscope.h"
#include "stepscope/analyze.h"
#include "stepscope/device.h"
#include "stepscope/trace.h"

enum { STEPS = 4 };

/* ---- reading it back ----------------------------------------------------------- */

typedef struct step_view {
    int64_t step_ts, step_dur, unattributed, naive;
    int64_t in_ts, in_dur, mo_ts, mo_dur;
    int have_in, have_mo, extra;
} step_view;

static int checks_failed;

static void check(int ok, const char *what)
{
    printf("%s %s\n", ok ? "PASS" : "FAIL", what);
    if (!ok) checks_failed++;
}

/* The step's direct children input_wait and model_and_wait, from the slices. */
static void view_step(const sts_timeline *tl, const sts_step *s, step_view *v)
{
    memset(v, 0, sizeof *v);
    v->step_ts = s->ts;
    v->step_dur = s->dur;
    v->unattributed = s->unattributed_ns;
    v->naive = s->naive_ns;
    const sts_lane *lane = &sts_timeline_lanes(tl, NULL)[s->lane];
    const sts_slice *sl = sts_timeline_slices(tl, NULL);
    for (uint32_t i = lane->first_slice; i < lane->first_slice + lane->slice_count; i++) {
        if (sl[i].parent != s->slice) continue;
        const char *name = sts_timeline_string(tl, sl[i].name);
        if (strcmp(name, "input_wait") == 0 && !v->have_in) {
            v->have_in = 1;
            v->in_ts = sl[i].ts;
            v->in_dur = sl[i].dur;
        } else if (strcmp(name, "model_and_wait") == 0 && !v->have_mo) {
            v->have_mo = 1;
            v->mo_ts = sl[i].ts;
            v->mo_dur = sl[i].dur;
        } else {
            v->extra++;
        }
    }
}

static void print_us(const char *key, const int64_t *ns, int n)
{
    printf("%s: [", key);
    for (int i = 0; i < n; i++)
        printf("%s%.1f", i ? ", " : "", (double)ns[i] / 1000.0);
    printf("]\n");
}

/* Device commands on device lanes, and how many have a host dispatch with the same
 * correlation_id. */
static void device_summary(const sts_timeline *tl, size_t *commands, size_t *linked, const char **lane_name)
{
    size_t nl, ns;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    *commands = *linked = 0;
    *lane_name = "";
    for (size_t l = 0; l < nl; l++) {
        if (lanes[l].kind != STS_LANE_DEVICE) continue;
        *lane_name = sts_timeline_string(tl, sts_timeline_processes(tl, NULL)[lanes[l].process].name);
        for (uint32_t i = lanes[l].first_slice; i < lanes[l].first_slice + lanes[l].slice_count; i++) {
            const sts_arg *c = sts_timeline_find_arg(tl, sl[i].args, "correlation_id");
            (*commands)++;
            if (!c) continue;
            for (size_t j = 0; j < ns; j++) {
                if (lanes[sl[j].lane].kind != STS_LANE_THREAD) continue;
                const sts_arg *h = sts_timeline_find_arg(tl, sl[j].args, "correlation_id");
                if (h && h->type == c->type && h->v.i == c->v.i) {
                    (*linked)++;
                    break;
                }
            }
        }
    }
}

/* The step durations from one file of the run, for the cross-check. */
static int steps_of_file(const char *path, int64_t *dur, size_t cap, sts_error *err)
{
    sts_timeline *tl = NULL;
    sts_steps *steps = NULL;
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = "learner_step";
    int n = -1;
    if (sts_timeline_open(path, NULL, &tl, err) == STS_OK && sts_steps_find(tl, &so, &steps, err) == STS_OK) {
        size_t k;
        const sts_step *list = sts_steps_list(steps, &k);
        for (size_t i = 0; i < k && i < cap; i++)
            dur[i] = list[i].dur;
        n = (int)k;
    }
    sts_steps_free(steps);
    sts_timeline_free(tl);
    return n;
}

/* Reads back the run this session wrote (its own directory, not the profile
 * directory, whose latest run by name may be another host's or a copied one). */
static int analyze(const char *run_path, int json)
{
    sts_error err = STS_ERROR_INIT;
    sts_timeline *tl = NULL;
    sts_steps *steps = NULL;
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    so.step = "learner_step";
    if (sts_timeline_open(run_path, NULL, &tl, &err) != STS_OK || sts_steps_find(tl, &so, &steps, &err) != STS_OK) {
        sts_timeline_free(tl);
        return cli_report("demo trace", &err);
    }
    size_t n;
    const sts_step *list = sts_steps_list(steps, &n);
    int64_t res = sts_timeline_get_info(tl)->resolution_ns;
    step_view v[STEPS];
    int64_t in_us[STEPS], mo_us[STEPS], st_us[STEPS], un[STEPS], naive[STEPS];
    check(n == STEPS, "the trace holds four learner_step steps");
    int nested = n == STEPS, ordered = n == STEPS, remainder = n == STEPS, doubled = n == STEPS;
    for (size_t i = 0; i < n && i < STEPS; i++) {
        view_step(tl, &list[i], &v[i]);
        in_us[i] = v[i].in_dur;
        mo_us[i] = v[i].mo_dur;
        st_us[i] = v[i].step_dur;
        un[i] = v[i].unattributed;
        naive[i] = v[i].naive;
        /* Children inside their step; the trace's resolution is the rounding allowance. */
        int64_t s0 = v[i].step_ts, s1 = s0 + v[i].step_dur;
        nested &= v[i].have_in && v[i].have_mo && v[i].extra == 0;
        nested &= s0 <= v[i].in_ts && v[i].in_ts + v[i].in_dur <= s1 + res;
        nested &= s0 <= v[i].mo_ts && v[i].mo_ts + v[i].mo_dur <= s1 + res;
        ordered &= v[i].in_ts + v[i].in_dur <= v[i].mo_ts + res;
        remainder &= v[i].unattributed >= -2000;
        doubled &= v[i].naive > v[i].step_dur && v[i].naive == v[i].step_dur + v[i].in_dur + v[i].mo_dur;
    }
    int k = n < STEPS ? (int)n : STEPS;
    printf("Trace directory: %s\n", run_path);
    print_us("input_wait_us", in_us, k);
    print_us("model_and_wait_us", mo_us, k);
    print_us("step_us", st_us, k);
    check(nested, "each input_wait and model_and_wait lies inside its learner_step");
    check(ordered, "input_wait ends before model_and_wait starts");
    print_us("unattributed_us", un, k);
    check(remainder, "unattributed time >= -2 us (step minus its two children)");
    print_us("wrong_double_counted_us", naive, k);
    check(doubled, "step + children exceeds the step: nested time counted twice");

    int64_t sorted[STEPS];
    memcpy(sorted, mo_us, sizeof sorted);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (int i = 0; i < k; i++) {
        if (mo_us[i] < lo) lo = mo_us[i];
        if (mo_us[i] > hi) hi = mo_us[i];
    }
    int64_t med = sts_median_i64(sorted, (size_t)k);
    if (k)
        printf("model_and_wait_ms: min %.3f median %.3f max %.3f (four samples describe this run, not a "
               "tail-latency guarantee)\n",
               (double)lo / 1e6, (double)med / 1e6, (double)hi / 1e6);
    check(k > 0 && lo <= med && med <= hi, "model min <= median <= max");

    const int64_t iv[3][2] = { { 0, 10 }, { 2, 7 }, { 8, 12 } };
    int64_t uni = sts_union_ns(iv, 3), sum = 0;
    for (int i = 0; i < 3; i++)
        sum += iv[i][1] - iv[i][0];
    printf("union([0,10],[2,7],[8,12]) = %" PRId64 " us; summed durations = %" PRId64 " us\n", uni, sum);
    check(uni == 12 && sum == 19, "the union counts overlapping time once");

    size_t commands, linked;
    const char *dev_lane;
    device_summary(tl, &commands, &linked, &dev_lane);
    printf("device: %zu commands on %s, %zu linked to their host enqueue by correlation_id\n", commands,
           commands ? dev_lane : "(no device lane)", linked);
    check(commands == 2 * STEPS && linked == commands, "every device command has its host dispatch");

    /* The same steps in the Perfetto file the lesson reads. */
    char pf[PATH_MAX + 32];
    snprintf(pf, sizeof pf, "%s/perfetto_trace.json.gz", run_path);
    int64_t pd[STEPS];
    int pn = steps_of_file(pf, pd, STEPS, &err);
    int same = pn == k;
    for (int i = 0; same && i < k; i++)
        same = pd[i] == st_us[i];
    check(same, "perfetto_trace.json.gz holds the same four step durations, to the nanosecond");

    if (json) {
        printf("{\"trace_directory\":\"%s\",\"input_wait_ns\":[", run_path);
        for (int i = 0; i < k; i++)
            printf("%s%" PRId64, i ? "," : "", in_us[i]);
        printf("],\"model_and_wait_ns\":[");
        for (int i = 0; i < k; i++)
            printf("%s%" PRId64, i ? "," : "", mo_us[i]);
        printf("],\"step_ns\":[");
        for (int i = 0; i < k; i++)
            printf("%s%" PRId64, i ? "," : "", st_us[i]);
        printf("],\"checks_failed\":%d}\n", checks_failed);
    }
    sts_steps_free(steps);
    sts_timeline_free(tl);
    return 0;
}

/* ---- the demo ------------------------------------------------------------------ */

static int fail_with(sts_error *err)
{
    if (err->code == STS_ERR_NO_DEVICE)
        fprintf(stderr, "stepscope demo trace: no OpenCL device: %s\n", err->message);
    else
        cli_report("demo trace", err);
    return CLI_BAD_INPUT;
}

int demo_trace(const demo_ctx *ctx)
{
    char dir[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/trace", ctx->out_dir) >= (int)sizeof dir)
        return cli_fail(CLI_BAD_INPUT, "demo trace: output path too long: %s", ctx->out_dir);
    if (mkdir(dir, 0777) != 0 && errno != EEXIST)
        return cli_fail(CLI_BAD_INPUT, "demo trace: cannot create %s: %s", dir, strerror(errno));
    printf("== lesson 3: read a trace (tanh(x @ w), %dx%d @ %dx%d, %d steps)\n", L3_ROWS, L3_INNER, L3_INNER, L3_COLS,
           STEPS);

    l3_model m;
    memset(&m, 0, sizeof m);
    sts_error err = STS_ERROR_INIT;
    sts_status st = l3_model_open(&m, &err);
    /* Compile and warm the exact shapes before tracing: the trace shows warm steps. */
    if (st == STS_OK) st = l3_model_call(&m, &err);
    if (st == STS_OK) st = l3_model_wait(&m, &err);
    if (st != STS_OK) {
        l3_model_close(&m);
        return fail_with(&err);
    }

    sts_trace_stats stats;
    st = sts_trace_start(dir, NULL, &err);
    if (st == STS_OK) {
        st = sts_trace_device(m.dev, &err);
        if (st == STS_OK) st = l3_record_steps(&m, STEPS, 1000, &err);
        sts_error stop_err = STS_ERROR_INIT;
        sts_status s2 = sts_trace_stop(&stats, &stop_err);
        if (st == STS_OK && s2 != STS_OK) {
            st = s2;
            err = stop_err;
        }
        if (st == STS_OK) st = demo_note_trace_run(ctx->out_dir, stats.run_path, &err);
    }
    if (st == STS_OK) st = sts_array_read(m.y, m.out, sizeof m.out, &err);
    if (st != STS_OK) {
        l3_model_close(&m);
        return fail_with(&err);
    }
    double max_err;
    int close_enough = l3_model_check(&m, &max_err);
    l3_model_close(&m);

    char offset_err[32] = "unknown"; /* -1: the device's clock bounds contradicted each other */
    if (stats.device_offset_error_ns >= 0)
        snprintf(offset_err, sizeof offset_err, "%" PRId64 " ns", stats.device_offset_error_ns);
    printf("recorded %" PRIu64 " scopes and %" PRIu64 " device commands; clock %s (error <= %" PRId64
           " ns), device clock offset %" PRId64 " ns +- %s\n",
           stats.recorded, stats.device_ops, stats.clock, stats.clock_error_ns, stats.device_offset_ns, offset_err);
    checks_failed = 0;
    char msg[96];
    snprintf(msg, sizeof msg, "result matches tanh(x @ w) on the host (max abs error %.2g; atol = rtol = 2e-5)",
             max_err);
    check(close_enough, msg);
    int rc = analyze(stats.run_path, ctx->json);
    if (rc != 0) return rc;
    char abs[PATH_MAX];
    const char *shown = realpath(dir, abs) ? abs : dir;
    printf("Host annotations are not isolated device kernels: the device lane shows those.\n");
    printf("Open it:\n");
    printf("  Perfetto UI: https://ui.perfetto.dev -> Open trace file -> %s/perfetto_trace.json.gz\n", stats.run_path);
    const char *run_name = strrchr(stats.run_path, '/');
    printf("  XProf: xprof --port 8791 %s   (pick run %s, then trace_viewer; find learner_step)\n", shown,
           run_name ? run_name + 1 : stats.run_path);
    if (checks_failed) {
        fprintf(stderr, "stepscope demo trace: %d check%s failed (see FAIL lines above)\n", checks_failed,
                checks_failed > 1 ? "s" : "");
        return CLI_BAD_INPUT;
    }
    return CLI_OK;
}
