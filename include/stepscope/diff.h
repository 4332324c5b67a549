/* stepscope/diff.h: compare two runs and judge stated predictions about what changed.
 *
 * Two traces, two `stepscope bench --json` results or two ledgers (`stepscope ledger
 * --json`) go in; out comes one row per interval (a step child, an interval name, the
 * step itself, a benchmarked workload, a ledger function or host-sync scope) with both
 * runs' samples, their medians, the change with a confidence interval, a rank test and
 * a verdict. Predictions ("input_wait:shrink", "step:same<=5%") are then judged against
 * the rows: held, failed or inconclusive, each with a one-sentence reason.
 *
 * The statistics (docs/diff.md gives the method and why):
 *   shift      Hodges–Lehmann: the median of the n*m differences new_j - base_i, in ns.
 *   interval   the distribution-free interval for that shift from the order statistics
 *              of the same differences (Moses), with ranks from the exact Mann–Whitney
 *              distribution when there are no ties and the samples are small enough,
 *              else from the normal approximation with tie correction.
 *   change     shift and interval in percent of the base median.
 *   p          two-sided Mann–Whitney U test, exact or normal (tie- and
 *              continuity-corrected), as above; the method is reported.
 *   verdict    grew / shrank when p < 1 - confidence and the interval excludes 0; same
 *              when the interval lies within +-margin; otherwise inconclusive, with an
 *              estimate of the samples per run that would decide.
 * Durations and counts are int64_t (nanoseconds for times). */
#ifndef STEPSCOPE_DIFF_H
#define STEPSCOPE_DIFF_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- two samples --------------------------------------------------------------- */

/* How a row was compared. */
typedef enum sts_diff_method {
    STS_DIFF_METHOD_NONE = 0,    /* not compared: the row is in one run only, or a value is unknown */
    STS_DIFF_METHOD_EXACT,       /* exact Mann–Whitney distribution (no ties, small samples) */
    STS_DIFF_METHOD_NORMAL,      /* normal approximation with continuity correction (no ties) */
    STS_DIFF_METHOD_NORMAL_TIES, /* normal approximation with tie and continuity correction */
    STS_DIFF_METHOD_COUNT,       /* two exact counts (ledger): no sampling, no test */
    STS_DIFF_METHOD_SINGLE       /* one observation per run (a first call): no test */
} sts_diff_method;

/* "none", "exact", "normal", "normal-ties", "count", "single". Static string. */
const char *sts_diff_method_name(sts_diff_method m);

typedef enum sts_diff_verdict {
    STS_DIFF_INCONCLUSIVE = 0, /* the samples cannot tell */
    STS_DIFF_SAME,             /* the interval lies within +-margin */
    STS_DIFF_SHRANK,           /* significant, interval below 0 */
    STS_DIFF_GREW,             /* significant, interval above 0 */
    STS_DIFF_APPEARED,         /* in the new run only */
    STS_DIFF_DISAPPEARED       /* in the base run only */
} sts_diff_verdict;

/* "inconclusive", "same", "shrank", "grew", "appeared", "disappeared". Static string. */
const char *sts_diff_verdict_name(sts_diff_verdict v);

typedef struct sts_diff_options {
    double confidence; /* of the intervals; the test's level is 1 - confidence. (0.5, 1) */
    double margin_pct; /* a change within +-margin_pct of the base median counts as "same"; > 0 */
    const char *step;  /* traces: the step name or regex, as in sts_steps_find(); NULL: detect */
    /* traces: "A=B" each, NEW's lane B compared as BASE's lane A (the rows' names, as
     * "process / thread" with random per-process ids already left out); NULL: none */
    const char *const *pair_lanes;
    size_t npair_lanes;
    /* bench results: "A=B" each, NEW's workload B compared as BASE's workload A (the row
     * keeps A's name); NULL: workloads pair by name, and two results holding one
     * workload each pair whatever their names */
    const char *const *pairs;
    size_t npairs;
    /* bench results: 1 compares workloads whose shapes or dtypes differ (said in a note);
     * 0 refuses them (STS_ERR_SHAPE) */
    int allow_contract_change;
} sts_diff_options;
/* clang-format off */
#define STS_DIFF_OPTIONS_INIT { 0.95, 5.0, NULL, NULL, 0, NULL, 0, 0 }
/* clang-format on */

/* The comparison of two samples. Fields that do not apply are NAN (doubles). */
typedef struct sts_diff_stats {
    sts_diff_method method;
    sts_diff_verdict verdict;
    size_t n_base, n_new;
    int64_t median_base, median_new; /* as sts_median_i64(); 0 when the sample is empty */
    int64_t min_base, max_base, min_new, max_new;
    double u;                /* pairs (base_i, new_j) with new_j > base_i, a tie counting 1/2 */
    double p_value;          /* two-sided */
    double shift_ns;         /* Hodges–Lehmann shift, new - base */
    double ci_low_ns;        /* the interval for the shift; -INFINITY / +INFINITY when the */
    double ci_high_ns;       /* samples are too small for any interval at this confidence */
    double ci_level;         /* its coverage: exact (>= confidence) or nominal */
    double change_pct;       /* 100 * shift / median_base; NAN when median_base is 0 */
    double ci_low_pct;       /* the interval in the same percent */
    double ci_high_pct;      /* */
    double spread_pct;       /* robust spread (1.4826 MAD, pooled) in percent of median_base */
    uint64_t samples_needed; /* inconclusive only: samples per run estimated to decide (0: unknown) */
} sts_diff_stats;

/* Compares base[0..n) with new_[0..m) (any order; neither is modified). Values must lie
 * within +-2^52. With n or m == 0 the result is method NONE, verdict APPEARED (n == 0)
 * or DISAPPEARED (m == 0). STS_ERR_INVALID_ARG for bad options, STS_ERR_RANGE for an
 * out-of-range value, STS_ERR_NOMEM. */
sts_status sts_diff_samples(const int64_t *base, size_t n, const int64_t *new_, size_t m, const sts_diff_options *opt,
                            sts_diff_stats *out, sts_error *err);

/* Whether v[0..n) (any order, not modified) holds two modes, durations of a loop that
 * now and then waits (0.1 ms and 28 ms): sorted, the widest ratio between neighbours is
 * at least STS_DIFF_MODE_RATIO, with at least max(2, n / 10) samples on each side of it
 * (so one outlier is no mode), all samples positive and n >= 6. Returns 1 and each
 * side's median in modes[0] (the lower) and modes[1]; 0 when not, or when v is NULL (a
 * read diff document that counts samples it does not hold); -1 on no memory. */
int sts_diff_modes(const int64_t *v, size_t n, int64_t modes[2]);
#define STS_DIFF_MODE_RATIO 4.0

/* Two exact counts (a ledger's compiles): method COUNT, verdict from their order, and
 * the change in percent of base (NAN when base is 0). */
void sts_diff_counts(int64_t base, int64_t new_, sts_diff_stats *out);

/* ---- two runs ------------------------------------------------------------------ */

typedef enum sts_diff_kind {
    STS_DIFF_KIND_TRACE = 1, /* two traces */
    STS_DIFF_KIND_BENCH,     /* two `stepscope bench --json` results */
    STS_DIFF_KIND_LEDGER     /* two `stepscope ledger --json` ledgers */
} sts_diff_kind;

/* "trace", "bench", "ledger" ("unknown" otherwise). Static string. */
const char *sts_diff_kind_name(sts_diff_kind k);

/* One compared row. Strings and arrays are owned by the diff. */
typedef struct sts_diff_interval {
    const char *name;   /* the interval, child, lane, workload, function or scope */
    const char *group;  /* "step", "child", "unattributed", "name", "lane"; "warm",
                         * "first_call", "device", "dispatch"; "compiles",
                         * "specializations", "traces", "compile_time", "wait", "syncs" */
    const char *key;    /* what --expect names: `name`, or `name.group` for a row that is
                         * not the name's main one (see docs/diff.md) */
    const char *unit;   /* "ns" or "count" */
    const char *sample; /* what one sample is: "step", "slice", "call", "compile", "sync",
                         * "run" */
    sts_diff_stats stats;
    const int64_t *base_samples; /* stats.n_base values, in run order */
    const int64_t *new_samples;  /* stats.n_new values */
    const int64_t *base_index;   /* per sample: its step number (traces with steps), else */
    const int64_t *new_index;    /* its ordinal */
    const char *note;            /* NULL, or one sentence: why a row was not tested, etc. */
} sts_diff_interval;

typedef enum sts_diff_direction {
    STS_DIFF_EXPECT_SHRINK = 0,
    STS_DIFF_EXPECT_GROW,
    STS_DIFF_EXPECT_SAME
} sts_diff_direction;

typedef enum sts_diff_result { STS_DIFF_HELD = 0, STS_DIFF_FAILED, STS_DIFF_UNDECIDED } sts_diff_result;

/* "held", "failed", "inconclusive". Static string. */
const char *sts_diff_result_name(sts_diff_result r);

typedef struct sts_diff_prediction {
    const char *expect; /* as given */
    const char *key;    /* the row it names */
    size_t interval;    /* that row's index in sts_diff_intervals() */
    sts_diff_direction direction;
    double size_pct; /* the stated size (shrink/grow: at least; same: at most); NAN when none */
    sts_diff_result result;
    const char *why; /* one sentence, ending in the result */
} sts_diff_prediction;

typedef struct sts_diff sts_diff;

/* Compares two traces. With steps in both (sts_steps_find() with opt->step), each row's
 * samples are per step: the step's duration, each direct child's per-step total, the
 * unattributed remainder, and for every other interval name the time its outermost
 * slices cover inside each step's window, on any lane. With steps in neither, each
 * sample is one slice's duration. Names are matched by text and lanes by process and
 * thread name, never by ids. Errors (STS_ERR_FORMAT): a trace without slices; steps in
 * one trace only. On success *out is a new diff; free it with sts_diff_free(). The
 * timelines may be freed afterwards. */
sts_status sts_diff_timelines(const sts_timeline *base, const sts_timeline *new_, const sts_diff_options *opt,
                              sts_diff **out, sts_error *err);

/* Compares two bench results (the JSON text of `stepscope bench --json`; `*_name` name
 * them in messages). Per workload (the top level and each of `variants`): the warm
 * samples, the first call (one observation per run: no test), device times and
 * dispatch-only intervals. Workloads pair by name, by opt->pairs, or (neither result
 * holding more than one) whatever their names. A paired workload's contract is every
 * member named `dtype` or ending in `_shape` or `_dtype` (Python's `x_shape` keys too):
 * one that differs, or that one run lacks, is STS_ERR_SHAPE naming the key and both
 * values unless opt->allow_contract_change (then a note); `boundary` and `device` that
 * differ are a note. STS_ERR_PARSE for malformed JSON (the message names the file and
 * byte), STS_ERR_FORMAT when a document is not a bench result, STS_ERR_NOT_FOUND for a
 * pair naming no workload of its run (the message lists the workloads). */
sts_status sts_diff_bench_json(const char *base_text, size_t base_len, const char *base_name, const char *new_text,
                               size_t new_len, const char *new_name, const sts_diff_options *opt, sts_diff **out,
                               sts_error *err);

/* Compares two ledgers (the JSON of `stepscope ledger --json` or `stepscope demo retrace
 * --json`): compiles, specializations and traces per function (exact counts), compile
 * time per compile, host-sync waits per scope (per sync) and sync counts. A count the
 * ledger gives as null is unknown: its row is not compared. Errors as for bench. */
sts_status sts_diff_ledger_json(const char *base_text, size_t base_len, const char *base_name, const char *new_text,
                                size_t new_len, const char *new_name, const sts_diff_options *opt, sts_diff **out,
                                sts_error *err);

/* Frees the diff; NULL is a no-op. */
void sts_diff_free(sts_diff *d);

sts_diff_kind sts_diff_get_kind(const sts_diff *d);
/* The names of the two inputs as given (trace paths, or the *_name arguments). */
const char *sts_diff_base_name(const sts_diff *d);
const char *sts_diff_new_name(const sts_diff *d);
/* What one sample is, for the whole diff ("step", "slice", ...; rows may differ). */
const char *sts_diff_samples_word(const sts_diff *d);
const sts_diff_options *sts_diff_get_options(const sts_diff *d);

/* Rows, in display order; owned by the diff. */
const sts_diff_interval *sts_diff_intervals(const sts_diff *d, size_t *n);
/* Sentences about the inputs (a contract that differs, a failed check, steps found
 * under different names...); owned by the diff. */
const char *const *sts_diff_notes(const sts_diff *d, size_t *n);

/* Judges one prediction, NAME:shrink, NAME:grow or NAME:same, optionally sized
 * (NAME:shrink>=20%, NAME:grow>=10%, NAME:same<=5%; same without a size uses the
 * margin). NAME is a row's key. STS_ERR_INVALID_ARG when the text does not parse,
 * STS_ERR_NOT_FOUND when NAME is no row in either run (the message suggests close
 * keys); the prediction is then not added. */
sts_status sts_diff_expect(sts_diff *d, const char *prediction, sts_error *err);

/* Checks only the form of a prediction (as sts_diff_expect() parses it), so a command
 * line can be refused before any input is read. STS_ERR_INVALID_ARG with the reason. */
sts_status sts_diff_expect_check(const char *prediction, sts_error *err);

/* The predictions judged so far, in the order given; owned by the diff. */
const sts_diff_prediction *sts_diff_predictions(const sts_diff *d, size_t *n);

/* The exit status `stepscope diff` gives for the predictions: 0 when all held (or there
 * are none), 3 when any failed, 4 when some were inconclusive and none failed. */
int sts_diff_exit_status(const sts_diff *d);

/* Writes the diff as JSON (schema stepscope.diff/1, docs/diff.md) to f. STS_ERR_IO when
 * writing fails. */
sts_status sts_diff_write_json(const sts_diff *d, FILE *f, sts_error *err);

/* Reads a diff that sts_diff_write_json() wrote (stepscope.diff/1) back into a diff:
 * every row with its samples (when written) and statistics, the notes and the judged
 * predictions, so that sts_diff_write_json() writes the same bytes again (an interval
 * the writer gave as null where unbounded is read back as infinite). `name` (a file
 * name) begins every message. STS_ERR_PARSE for malformed JSON (the byte named),
 * STS_ERR_FORMAT for a document that is not a diff or a member of the wrong type. On
 * success *out is a new diff; free it with sts_diff_free(). */
sts_status sts_diff_read_json(const char *text, size_t len, const char *name, sts_diff **out, sts_error *err);

/* Two traces' diff: the steps run `which` (0 BASE, 1 NEW) was cut into, and their
 * name and rule (NULL, and 0 steps, without steps or for other kinds). */
size_t sts_diff_run_steps(const sts_diff *d, int which, const char **step_name, const char **rule);

/* Prints the diff for people: the rows (at most `top` of the interval-name rows, 0 = all)
 * then the predictions. */
void sts_diff_print(const sts_diff *d, FILE *f, size_t top);

#ifdef __cplusplus
}
#endif
#endif
