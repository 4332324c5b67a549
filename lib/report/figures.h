/* report: the data each figure draws and the functions that draw it. The data is
 * plain arrays filled by the input adapters (trace, bench, ledger), so every figure
 * can be tested from hand-made numbers. Times are nanoseconds as double. */
#ifndef STS_REPORT_FIGURES_H
#define STS_REPORT_FIGURES_H

#include <stddef.h>
#include <stdint.h>

#include "base/sbuf.h"

/* Per-step stacked bars: each step's direct children by name, then the unattributed
 * remainder (step minus children; negative when children overrun by rounding). */
typedef struct sts_rpt_steps {
    const char *step_name; /* the step slices' name, for the title */
    size_t nsteps;         /* steps drawn */
    size_t found;          /* steps in the trace (>= nsteps) */
    const char **labels;   /* per step: its label on the x axis ("0", "1", ...) */
    double *total_ns;      /* per step: the step's duration */
    size_t nseries;        /* child names drawn, in stacking order */
    const char **series;   /* their names; the last may be "other children" */
    double *child_ns;      /* nsteps x nseries: time of each series in each step */
    uint32_t *child_count; /* nsteps x nseries: children of that name (0 = none: no mark) */
    double *rem_ns;        /* per step: total - sum of children */
    const char *title;     /* NULL: "Time inside each STEP: children and unattributed remainder" */
    const char *rem_label; /* NULL: "unattributed (step minus children)" */
} sts_rpt_steps;

/* One slice in the lane timeline, on its lane's depth row. */
typedef struct sts_rpt_lslice {
    double ts, dur; /* ns, trace clock */
    uint32_t lane;  /* index into lanes */
    uint16_t depth; /* row within the lane */
    uint16_t color; /* series index (fill) */
    const char *name;
} sts_rpt_lslice;

typedef struct sts_rpt_lane {
    const char *name;            /* the thread or stream: "MainThread", "tid 12", "Stream #7" */
    int rows;                    /* depth rows shown */
    const char *group;           /* its process or device ("pid 701", "/device:GPU:0"); NULL: none.
                                  * Consecutive lanes of one group share a heading. */
    int enclosing;               /* depths 0..enclosing-1 each hold one slice spanning the whole
                                  * window: drawn as one row on top, slices below it move up */
    const char *enclosing_names; /* their names, outermost first, joined by " › " */
} sts_rpt_lane;

typedef struct sts_rpt_lanes {
    double t0, t1;      /* the window shown, ns */
    const char *window; /* why this window: "busiest step: learner_step 2" */
    size_t nlanes, lanes_total;
    sts_rpt_lane *lanes;
    size_t nslices;
    sts_rpt_lslice *slices;
    size_t hidden; /* slices in the window not drawn (too deep, too many lanes or slices) */
} sts_rpt_lanes;

/* Per step, the busy time of other lanes (device streams, workers) inside the step's
 * interval: the union of their slices there, never more than the step. */
typedef struct sts_rpt_windows {
    const char *step_name;
    size_t nsteps, found;   /* drawn, found */
    const char **labels;    /* per step: its number */
    const double *total_ns; /* per step: its duration */
    size_t nlanes;
    const char **names;    /* per lane: thread or stream */
    const char **groups;   /* per lane: its process or device */
    double *lane_total_ns; /* per lane: busy time summed over all steps found */
    double *busy_ns;       /* nsteps x nlanes; 0 = idle in that step */
} sts_rpt_windows;

/* One device's bytes in use over time: a step line through the points (the bytes in
 * use after each event, held until the next), the steps' boundaries, the peak marked. */
typedef struct sts_rpt_memory {
    const char *device; /* "cuda:0", "GPU_0_bfc" */
    double t0, t1;      /* the window shown, ns (trace clock) */
    size_t npoints;
    const double *ts, *bytes;      /* per point, in time order */
    double peak_bytes, peak_ts;    /* peak_bytes < 0: unknown (not marked) */
    double start_bytes, end_bytes; /* < 0: unknown */
    const char *step_name;
    size_t nsteps, found;             /* steps drawn, steps in the trace */
    const char **labels;              /* per step: its number */
    const double *step_ts, *step_end; /* per step: its window, ns */
    const double *step_peak;          /* per step: its peak on this device; < 0 unknown */
} sts_rpt_memory;

/* Names by self time (a table, not a figure). */
typedef struct sts_rpt_name_row {
    const char *name;
    uint64_t count;
    double total_ns, self_ns, min_ns, median_ns, max_ns;
} sts_rpt_name_row;

typedef struct sts_rpt_names {
    size_t n, total; /* rows shown, names in the trace */
    sts_rpt_name_row *rows;
    double trace_self_ns; /* sum of self over every name: the share denominator */
} sts_rpt_names;

/* One benchmarked workload: the first call apart from warm samples. NAN = absent. */
typedef struct sts_rpt_bench {
    const char *label; /* "y = tanh(x @ w): x [64,32] f32, w [32,16] f32" */
    double first_ns;
    double *warm_ns;
    size_t nwarm;
    double median_ns;   /* as reported; else computed from warm_ns */
    double dispatch_ns; /* dispatch-only (not synchronized) interval */
    double *device_ns;  /* device-timestamp durations per warm sample, may be empty */
    size_t ndevice;
} sts_rpt_bench;

/* Per call: new traces and compiles the call caused (lesson 2: 1, 0, 0, 1). */
typedef struct sts_rpt_ledger_calls {
    size_t n;
    const char **labels; /* call category or signature */
    double *traces;      /* NAN = not recorded */
    double *compiles;    /* NAN = not recorded */
    int from_log;        /* rows of a compile log: only new traces and compiles, never a reuse */
} sts_rpt_ledger_calls;

/* Horizontal bars of time per name: compile time per function, host-sync wait per
 * scope. */
typedef struct sts_rpt_hbars {
    const char *title;      /* figure title */
    const char *axis_title; /* x axis title, without the unit */
    const char *count_word; /* "compile", "sync": labels read "312 ms (2 compiles)" */
    const char *data_name;  /* data-* attribute for the count: "compiles", "syncs" */
    size_t n;
    const char **names;
    double *ns;
    uint32_t *counts; /* behind each time; 0 = not shown */
} sts_rpt_hbars;

/* One compared interval of a diff: both runs' samples on one time axis, paired by
 * step, and the change with its interval on a percent axis shared by every row. */
typedef struct sts_rpt_diff_row {
    const char *key;
    const char *verdict;    /* "shrank", "grew", "same", "inconclusive", "appeared", "disappeared" */
    const char *prediction; /* "held", "failed", "inconclusive", or NULL when none named it */
    const char *method;
    double *base, *new_; /* samples, ns */
    double *bidx, *nidx; /* their step numbers (or ordinals) */
    size_t nb, nn;
    double med_base, med_new;          /* ns; NAN when a side is empty */
    double change_pct, lo_pct, hi_pct; /* NAN when unknown; +-INFINITY for an unbounded interval */
    double lo_ns, hi_ns;               /* the shift's interval, ns */
    double p;
    double predicted_pct; /* the prediction's stated bound (shrink>=6%: -6; grow>=6%: +6); NAN when none */
} sts_rpt_diff_row;

typedef struct sts_rpt_diff {
    double confidence, margin_pct;
    const char *sample; /* "step", "call", ... */
    size_t n, total;    /* rows drawn, rows in the diff */
    sts_rpt_diff_row *rows;
} sts_rpt_diff;

/* Each writes one <svg> with the given id; `standalone` adds the namespace and the
 * stylesheet so the output is a complete .svg file. */
void sts_rpt_draw_steps(sts_sbuf *b, const char *id, int standalone, const sts_rpt_steps *s);
void sts_rpt_draw_lanes(sts_sbuf *b, const char *id, int standalone, const sts_rpt_lanes *l);
void sts_rpt_draw_bench(sts_sbuf *b, const char *id, int standalone, const sts_rpt_bench *bn);
void sts_rpt_draw_ledger_calls(sts_sbuf *b, const char *id, int standalone, const sts_rpt_ledger_calls *c);
void sts_rpt_draw_hbars(sts_sbuf *b, const char *id, int standalone, const sts_rpt_hbars *f);
void sts_rpt_draw_diff(sts_sbuf *b, const char *id, int standalone, const sts_rpt_diff *d);
void sts_rpt_draw_windows(sts_sbuf *b, const char *id, int standalone, const sts_rpt_windows *w);
void sts_rpt_draw_memory(sts_sbuf *b, const char *id, int standalone, const sts_rpt_memory *m);

/* The names table as HTML (<table id=ID>). */
void sts_rpt_table_names(sts_sbuf *b, const char *id, const sts_rpt_names *n);

/* Median of n values (copied and sorted); NAN when n == 0. */
double sts_rpt_median(const double *v, size_t n);

#endif
