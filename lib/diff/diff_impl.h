/* diff: the diff object and the helpers the trace, bench and ledger comparisons share.
 * Everything a diff holds (strings, sample arrays, rows) lives in its arena or its
 * vectors, so the inputs can be freed once it is built. */
#ifndef STS_DIFF_DIFF_IMPL_H
#define STS_DIFF_DIFF_IMPL_H

#include "base/mem.h"
#include "base/vec.h"
#include "stepscope/analyze.h"
#include "stepscope/diff.h"

/* What a trace run looked like, for the header lines and the JSON. */
typedef struct sts_dd_side {
    const char *name;      /* the path or label */
    const char *step_name; /* the step slices' name (first step's), NULL without steps */
    const char *rule;      /* sts_step_rule_name(), NULL without steps */
    size_t steps;
} sts_dd_side;

struct sts_diff {
    sts_diff_kind kind;
    sts_diff_options opt;
    sts_arena arena;
    sts_dd_side side[2]; /* base, new */
    const char *samples_word;
    STS_VEC(sts_diff_interval) rows;
    STS_VEC(const char *) notes;
    STS_VEC(sts_diff_prediction) preds;
};

/* A new diff with copies of the names and options; NULL when memory is exhausted. */
sts_diff *sts_dd_new(sts_diff_kind kind, const sts_diff_options *opt, const char *base_name, const char *new_name);

/* Arena copies; NULL when memory is exhausted. */
const char *sts_dd_strdup(sts_diff *d, const char *s);
const char *sts_dd_printf(sts_diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Adds the row memory.peak (bytes, per step) when either run holds memory events
 * (diff_memory.c); steps[side] NULL: that run has no steps, so no samples. */
sts_status sts_dd_memory_rows(sts_diff *d, const sts_timeline *const tl[2], const sts_steps *const steps[2],
                              sts_error *err);

/* Appends a note (printf-style); STS_ERR_NOMEM when memory is exhausted. */
sts_status sts_dd_note(sts_diff *d, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* One sample series: values and, beside each, its step number or ordinal. */
typedef struct sts_dd_series {
    const int64_t *v;
    const int64_t *idx; /* NULL: ordinals 0..n-1 */
    size_t n;
} sts_dd_series;

/* Adds a row compared by sts_diff_samples(). `key` NULL: the name, or name.group when
 * another row already has that key. An empty series on one side makes the row appear
 * or disappear. The arrays are copied. */
sts_status sts_dd_add_samples(sts_diff *d, const char *name, const char *group, const char *unit, const char *sample,
                              sts_dd_series base, sts_dd_series new_, const char *note, sts_error *err);

/* The device view's per-step rows (trace_device.c): device.busy, device.idle,
 * communication.exposed, ... from both runs' steps; none when neither run has device
 * ops. */
sts_status sts_dd_device_rows(sts_diff *d, const sts_timeline *const *tl, sts_steps *const *steps, sts_error *err);

/* Adds a row of two exact counts. known_*: 1 the value is known, 0 it is unknown (the
 * input says null: not compared), -1 the thing is absent from that run (the row
 * appears or disappears). */
sts_status sts_dd_add_counts(sts_diff *d, const char *name, const char *group, int known_base, int64_t base,
                             int known_new, int64_t new_, const char *note, sts_error *err);

/* Adds a row with one observation per run (a first call): the change without a test. */
sts_status sts_dd_add_single(sts_diff *d, const char *name, const char *group, int known_base, int64_t base,
                             int known_new, int64_t new_, const char *note, sts_error *err);

/* The row whose key is `key`, or NULL. */
const sts_diff_interval *sts_dd_find(const sts_diff *d, const char *key, size_t *index);

/* The direction and size (NAN: none) of a prediction's text, as sts_diff_expect()
 * parses it; -1 when it does not parse. */
int sts_dd_parse_expect(const char *text, sts_diff_direction *dir, double *size);

/* "shrink", "grow", "same". Static string. */
const char *sts_dd_direction_name(sts_diff_direction d);

/* A duration pair with one unit for both ("1.07 ms", "0.21 ms"), and a signed percent
 * ("−80%", "+5.2%"), for sentences. */
void sts_dd_fmt_pair(int64_t a, int64_t b, char *abuf, char *bbuf, size_t cap);
void sts_dd_fmt_pct(double pct, char *buf, size_t cap);

/* The sentence describing a row's change, without the prediction's result
 * ("input_wait shrank 1.07 ms → 0.21 ms, −80% (95% CI −82% to −78%, p = 0.029 over 4
 * vs 4 steps)"). Written into buf. */
void sts_dd_describe(const sts_diff *d, const sts_diff_interval *row, char *buf, size_t cap);

#endif
