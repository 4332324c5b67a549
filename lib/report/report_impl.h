/* report: the report object. Sections hold items (figures, fact lists, tables,
 * notes) in page order; all of it lives in the report's arena. */
#ifndef STS_REPORT_REPORT_IMPL_H
#define STS_REPORT_REPORT_IMPL_H

#include "base/mem.h"
#include "report/figures.h"
#include "base/sbuf.h"
#include "report/scale.h"
#include "stepscope/analyze.h"
#include "stepscope/devview.h"
#include "stepscope/report.h"

typedef enum sts_rpt_fig_kind {
    STS_RPT_FIG_STEPS = 0,
    STS_RPT_FIG_LANES,
    STS_RPT_FIG_BENCH,
    STS_RPT_FIG_LEDGER_CALLS,
    STS_RPT_FIG_HBARS,
    STS_RPT_FIG_DIFF,
    STS_RPT_FIG_WINDOWS,
    STS_RPT_FIG_MEMORY
} sts_rpt_fig_kind;

typedef struct sts_rpt_fig {
    sts_rpt_fig_kind kind;
    const char *id;
    const char *how_to_read; /* plain text for the caption */
    const void *data;
} sts_rpt_fig;

#define STS_RPT_MAX_FACTS 32

typedef struct sts_rpt_facts {
    size_t n;
    const char *key[STS_RPT_MAX_FACTS];
    const char *val[STS_RPT_MAX_FACTS];
} sts_rpt_facts;

typedef enum sts_rpt_item_kind {
    STS_RPT_ITEM_FIG,
    STS_RPT_ITEM_FACTS,
    STS_RPT_ITEM_NAMES,
    STS_RPT_ITEM_NOTE,
    STS_RPT_ITEM_H3
} sts_rpt_item_kind;

typedef struct sts_rpt_item {
    sts_rpt_item_kind kind;
    const sts_rpt_fig *fig;
    sts_rpt_facts *facts;
    const sts_rpt_names *names;
    const char *id;   /* names table id */
    const char *text; /* note or heading text */
    struct sts_rpt_item *next;
} sts_rpt_item;

typedef struct sts_rpt_section {
    const char *id;
    const char *kind; /* "trace", "bench", "ledger", "diff", "note" */
    const char *heading;
    const char *source; /* file or label shown under the heading; may be NULL */
    sts_rpt_item *items, *last;
    struct sts_rpt_section *next;
} sts_rpt_section;

typedef struct sts_rpt_idcount {
    const char *base;
    unsigned n;
    struct sts_rpt_idcount *next;
} sts_rpt_idcount;

/* A file the report read, which none of its outputs may replace. */
typedef struct sts_rpt_input_file {
    unsigned long long dev, ino;
    const char *path;
    struct sts_rpt_input_file *next;
} sts_rpt_input_file;

struct sts_report {
    sts_arena arena;
    const char *title;
    sts_rpt_section *sections, *last_section;
    sts_rpt_idcount *ids;
    sts_rpt_input_file *inputs;
};

/* Notes `path` (a file the report read; "-", standard input, is no file) as one its
 * outputs must not replace. Returns STS_OK, or STS_ERR_NOMEM. */
sts_status sts_rpt_note_input(sts_report *r, const char *path, sts_error *err);

/* STS_OK when writing `out` replaces no input: `out` does not exist, or is not, under
 * any name (a symbolic link, a hard link, another spelling of the path), a file the
 * report read. Else STS_ERR_INVALID_ARG, and err names both. */
sts_status sts_rpt_output_is_no_input(const sts_report *r, const char *out, sts_error *err);

/* Zeroed arena memory, NULL when exhausted. */
void *sts_rpt_alloc(sts_report *r, size_t n);
/* A stacked bar per step in the arena: the first `drawn` of the n steps (at most `most`),
 * labelled by their numbers, with zeroed totals, remainders and nseries series per step;
 * title and remainder label left to the caller. NULL when memory is exhausted. */
sts_rpt_steps *sts_rpt_steps_new(sts_report *r, const sts_step *steps, size_t n, size_t most, const char *const *series,
                                 size_t nseries);
/* A copy of s in the arena ("" for NULL); NULL when memory is exhausted. */
const char *sts_rpt_strdup(sts_report *r, const char *s);
const char *sts_rpt_strndup(sts_report *r, const char *s, size_t n);
/* "base" the first time, then "base-2", "base-3"...; NULL on no memory. */
const char *sts_rpt_unique_id(sts_report *r, const char *base);

/* A new section, not yet on the page: fill it, then sts_rpt_section_commit() it, so an
 * input that fails half way leaves no partial section behind. */
sts_rpt_section *sts_rpt_section_new(sts_report *r, const char *kind, const char *heading, const char *source);
void sts_rpt_section_commit(sts_report *r, sts_rpt_section *s);

/* Calls fn for each figure of the committed sections, in page order. */
void sts_rpt_each_fig(const sts_report *r, void (*fn)(const sts_rpt_fig *f, void *user), void *user);
/* Each returns the new item or NULL when memory is exhausted. */
sts_rpt_item *sts_rpt_add_fig(sts_report *r, sts_rpt_section *s, sts_rpt_fig_kind kind, const char *base_id,
                              const void *data, const char *how_to_read);
sts_rpt_item *sts_rpt_add_text(sts_report *r, sts_rpt_section *s, sts_rpt_item_kind kind, const char *text);
sts_rpt_facts *sts_rpt_add_facts(sts_report *r, sts_rpt_section *s);
sts_rpt_item *sts_rpt_add_names(sts_report *r, sts_rpt_section *s, const sts_rpt_names *names, const char *base_id);
/* Appends a fact (copied); silently ignored past STS_RPT_MAX_FACTS. printf-style value. */
void sts_rpt_fact(sts_report *r, sts_rpt_facts *f, const char *key, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* Draws one figure. */
void sts_rpt_draw(sts_sbuf *b, const sts_rpt_fig *f, int standalone);

/* Builds the figures of a trace section (lib/report/in_trace.c). */
sts_status sts_rpt_trace_section(sts_report *r, const sts_timeline *tl, const char *label, sts_error *err);

/* The trace section's device figures (in_device.c): per device (at most 4), a stacked
 * bar per step of its busy time by category and idle time by cause, then the device
 * view's warnings. Adds nothing when no lane holds device work. Then, from the same view,
 * the critical-path figures (sts_rpt_critpath_figures()). `step_name` as the steps
 * figure calls them. */
sts_status sts_rpt_device_figures(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_steps *st,
                                  const char *step_name);

/* The trace section's memory figures (in_memory.c): per device with memory events (at
 * most 4), its bytes in use over time with the steps' boundaries and its peak marked,
 * then the memory warnings. `st` may be NULL (no steps). Adds nothing when the trace
 * holds no memory events. */
sts_status sts_rpt_memory_figures(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_steps *st,
                                  const char *step_name);

/* The trace section's critical-path figures (in_critpath.c): per step, a bar of its
 * path by kind (fig-critpath), the names with the most time on the paths
 * (fig-critpath-top), the what-if predictions of halving the top names, and the
 * path's warnings. `dv` computed with these steps. Adds nothing without steps. */
sts_status sts_rpt_critpath_figures(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_steps *st,
                                    const sts_devview *dv, const char *step_name);

#endif
