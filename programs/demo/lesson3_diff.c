/* `stepscope demo diff`: lesson 3 made whole. State a hypothesis, change one workload
 * component, collect a comparable trace, and let the tool say whether the predicted
 * interval moved: lesson 3's four steps are recorded with the 1 ms input_wait; the
 * what-if on that run's critical paths predicts what cutting the wait does to the step
 * (lesson3_predict.c); the steps are recorded again with the wait cut to 0.2 ms, and
 * the diff judges `input_wait:shrink`, `model_and_wait:same` and the predicted
 * `step:shrink>=N%`, and the prediction is printed beside the measured change. Four steps cannot show that something
 * stayed the same within 5%; when a prediction is undecided and the diff says how many steps would decide, the demo
 * records that many and judges again. Its exit status says whether it could record and compare, not what the verdicts
 * were. Writes DIR/diff.json (the four-step diff; `stepscope report` draws it) and the traces under DIR/diff/. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "cli.h"
#include "demo.h"
#include "lesson3_model.h"
#include "lesson3_predict.h"
#include "stepscope/diff.h"

enum { LESSON_STEPS = 4, MAX_MORE_STEPS = 400 };
#define BASE_WAIT_US 1000L
#define NEW_WAIT_US  200L

static int make_dir(const char *path)
{
    if (mkdir(path, 0777) != 0 && errno != EEXIST)
        return cli_fail(CLI_BAD_INPUT, "demo diff: cannot create %s: %s", path, strerror(errno));
    return CLI_OK;
}

/* One recorded run of `steps` steps with the given wait, into DIR (a profile
 * directory); the run's own path comes back in run_path. */
static sts_status record(l3_model *m, const char *dir, int steps, long wait_us, char *run_path, size_t cap,
                         sts_error *err)
{
    sts_trace_stats stats;
    sts_status st = sts_trace_start(dir, NULL, err);
    if (st != STS_OK) return st;
    st = sts_trace_device(m->dev, err);
    if (st == STS_OK) st = l3_record_steps(m, steps, wait_us, err);
    sts_error stop_err = STS_ERROR_INIT;
    sts_status s2 = sts_trace_stop(&stats, &stop_err);
    if (st == STS_OK && s2 != STS_OK) {
        *err = stop_err;
        st = s2;
    }
    if (st == STS_OK) snprintf(run_path, cap, "%s", stats.run_path);
    return st;
}

/* Records BASE, predicts the change on it, records NEW (one change: the wait), then
 * compares them step by step. */
static sts_status record_pair(l3_model *m, const char *dir, int steps, l3_prediction *pred, sts_diff **out,
                              sts_error *err)
{
    char base_dir[PATH_MAX + 32], new_dir[PATH_MAX + 32], base_run[PATH_MAX], new_run[PATH_MAX];
    snprintf(base_dir, sizeof base_dir, "%s/base-%d", dir, steps);
    snprintf(new_dir, sizeof new_dir, "%s/new-%d", dir, steps);
    sts_timeline *tl[2] = { NULL, NULL };
    sts_status st = record(m, base_dir, steps, BASE_WAIT_US, base_run, sizeof base_run, err);
    if (st == STS_OK) st = sts_timeline_open(base_run, NULL, &tl[0], err);
    if (st == STS_OK) st = l3_predict(tl[0], BASE_WAIT_US, NEW_WAIT_US, pred, err);
    if (st == STS_OK) l3_print_prediction(pred);
    if (st == STS_OK) st = record(m, new_dir, steps, NEW_WAIT_US, new_run, sizeof new_run, err);
    if (st == STS_OK) st = sts_timeline_open(new_run, NULL, &tl[1], err);
    sts_diff_options opt = STS_DIFF_OPTIONS_INIT;
    opt.step = "learner_step";
    if (st == STS_OK) st = sts_diff_timelines(tl[0], tl[1], &opt, out, err);
    const char *predictions[] = { "input_wait:shrink", "model_and_wait:same", pred->cut.expect };
    for (size_t i = 0; st == STS_OK && i < sizeof predictions / sizeof predictions[0]; i++)
        st = sts_diff_expect(*out, predictions[i], err);
    sts_timeline_free(tl[0]);
    sts_timeline_free(tl[1]);
    return st;
}

static const sts_diff_prediction *prediction(const sts_diff *d, size_t i)
{
    size_t n;
    const sts_diff_prediction *p = sts_diff_predictions(d, &n);
    return i < n ? &p[i] : NULL;
}

/* Written whole or not at all (stepscope/outfile.h). */
static int write_json(const sts_diff *d, const char *path)
{
    sts_outfile *f = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_outfile_open(path, &f, &err) != STS_OK) return cli_report("demo diff", &err);
    if (sts_diff_write_json(d, sts_outfile_stream(f), &err) != STS_OK) {
        sts_outfile_abandon(f, &err);
        return cli_report("demo diff", &err);
    }
    if (sts_outfile_commit(f, &err) != STS_OK) return cli_report("demo diff", &err);
    printf("wrote %s\n", path);
    return CLI_OK;
}

static void print_verdicts(const sts_diff *d)
{
    size_t n;
    const sts_diff_prediction *p = sts_diff_predictions(d, &n);
    for (size_t i = 0; i < n; i++)
        printf("  %-12s %s\n  %12s %s\n", sts_diff_result_name(p[i].result), p[i].expect, "", p[i].why);
}

static int fail_with(sts_error *err)
{
    if (err->code == STS_ERR_NO_DEVICE)
        fprintf(stderr, "stepscope demo diff: no OpenCL device: %s\n", err->message);
    else
        cli_report("demo diff", err);
    return CLI_BAD_INPUT;
}

/* The most samples any undecided prediction's row asks for; 0 when all decided. */
static uint64_t samples_asked(const sts_diff *d)
{
    size_t np, nr;
    const sts_diff_prediction *p = sts_diff_predictions(d, &np);
    const sts_diff_interval *rows = sts_diff_intervals(d, &nr);
    uint64_t most = 0;
    for (size_t i = 0; i < np; i++)
        if (p[i].result == STS_DIFF_UNDECIDED && rows[p[i].interval].stats.samples_needed > most)
            most = rows[p[i].interval].stats.samples_needed;
    return most;
}

static void conclude(const sts_diff *d, int steps)
{
    const sts_diff_prediction *shrink = prediction(d, 0), *same = prediction(d, 1);
    if (shrink && shrink->result != STS_DIFF_HELD)
        printf("input_wait did not read as shrunk: a host wait the machine delayed past 1 ms in a few steps (it is "
               "busy?)\nis enough to blur %d steps. The diff says what the samples support, not what was "
               "expected.\n",
               steps);
    if (!same) return;
    if (same->result == STS_DIFF_HELD)
        printf("model_and_wait stayed within 5%%: the change moved only the interval it was aimed at.\n");
    else if (same->result == STS_DIFF_FAILED)
        printf("model_and_wait moved too: cutting the wait changed more than the interval it was aimed at. Read both "
               "traces\n(the device lane, the thread around model_and_wait) before explaining why.\n");
    else
        printf("model_and_wait is still undecided with %d steps per run: its interval is wider than the 5%%\n"
               "margin allows here. Record more steps, or measure on a quieter machine, before claiming it did not "
               "move.\n",
               steps);
}

/* When four steps could not decide a prediction, record as many as the diff asked for. */
static int follow_up(l3_model *m, const char *dir, const sts_diff *first)
{
    uint64_t need = samples_asked(first);
    if (need == 0) return CLI_OK;
    int steps = need > MAX_MORE_STEPS ? MAX_MORE_STEPS : (int)need;
    printf("\n%d steps could not decide every prediction; the diff estimates %llu steps per run would.\n"
           "Recording %d steps per run, same change:\n",
           LESSON_STEPS, (unsigned long long)need, steps);
    sts_diff *d = NULL;
    sts_error err = STS_ERROR_INIT;
    l3_prediction pred;
    if (record_pair(m, dir, steps, &pred, &d, &err) != STS_OK) {
        sts_diff_free(d);
        return fail_with(&err);
    }
    print_verdicts(d);
    l3_print_outcome(&pred, d);
    conclude(d, steps);
    char path[PATH_MAX + 32];
    snprintf(path, sizeof path, "%s/diff-%d-steps.json", dir, steps);
    int rc = write_json(d, path);
    sts_diff_free(d);
    return rc;
}

int demo_diff(const demo_ctx *ctx)
{
    char dir[PATH_MAX], json[PATH_MAX];
    if (snprintf(dir, sizeof dir, "%s/diff", ctx->out_dir) >= (int)sizeof dir ||
        snprintf(json, sizeof json, "%s/diff.json", ctx->out_dir) >= (int)sizeof json)
        return cli_fail(CLI_BAD_INPUT, "demo diff: output path too long: %s", ctx->out_dir);
    int rc = make_dir(dir);
    if (rc != CLI_OK) return rc;
    printf("== lesson 3, made whole: predict which interval moves, change one thing, let the tool say\n");
    printf("hypothesis: input_wait holds the injected host wait; cutting it from %ld us to %ld us should shrink\n"
           "input_wait and leave model_and_wait (the call and its wait) the same.\n"
           "recording BASE (%d steps, %ld us wait) and NEW (%d steps, %ld us wait), then:\n"
           "  stepscope diff BASE NEW --expect input_wait:shrink --expect model_and_wait:same --expect STEP\n"
           "where STEP is what the what-if on BASE predicts for the step.\n",
           BASE_WAIT_US, NEW_WAIT_US, LESSON_STEPS, BASE_WAIT_US, LESSON_STEPS, NEW_WAIT_US);
    l3_model m;
    memset(&m, 0, sizeof m);
    sts_error err = STS_ERROR_INIT;
    sts_status st = l3_model_open(&m, &err);
    /* Compile and warm before either trace, so both show warm steps. */
    if (st == STS_OK) st = l3_model_call(&m, &err);
    if (st == STS_OK) st = l3_model_wait(&m, &err);
    sts_diff *d = NULL;
    l3_prediction pred;
    if (st == STS_OK) st = record_pair(&m, dir, LESSON_STEPS, &pred, &d, &err);
    if (st != STS_OK) {
        sts_diff_free(d);
        l3_model_close(&m);
        return fail_with(&err);
    }
    sts_diff_print(d, stdout, 5);
    l3_print_outcome(&pred, d);
    if (!samples_asked(d)) conclude(d, LESSON_STEPS);
    rc = write_json(d, json);
    if (rc == CLI_OK) rc = follow_up(&m, dir, d);
    sts_diff_free(d);
    l3_model_close(&m);
    /* The verdicts are the demo's result, whatever they are: it fails only when it
     * could not record or compare. */
    return rc;
}
