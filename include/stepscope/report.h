/* stepscope/report.h: a self-contained HTML report, and standalone SVG figures, from
 * traces, bench results and ledgers.
 *
 * The page needs no network and runs no script: figures are inline SVG with real
 * <text> labels, styled for light and dark schemes, in colours told apart with the
 * common colour-vision deficiencies and backed by textures and labels. Every figure
 * has a stable id and data attributes (counts, values in ns) that tests can query;
 * docs/report.md lists them and explains how to read each figure.
 *
 * Inputs are added one at a time; each adds a section. A report keeps its own copy of
 * everything it draws, so inputs can be freed after they are added. */
#ifndef STEPSCOPE_REPORT_H
#define STEPSCOPE_REPORT_H

#include <stddef.h>

#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sts_report sts_report;

/* What an input file holds. */
typedef enum sts_report_input {
    STS_REPORT_INPUT_UNKNOWN = 0,
    STS_REPORT_INPUT_TRACE,  /* anything sts_timeline_open() reads */
    STS_REPORT_INPUT_BENCH,  /* `stepscope bench --json` output */
    STS_REPORT_INPUT_LEDGER, /* `stepscope ledger --json` output */
    STS_REPORT_INPUT_DIFF    /* `stepscope diff --json` output */
} sts_report_input;

/* "trace", "bench", "ledger", "diff" or "unknown". Static string. */
const char *sts_report_input_name(sts_report_input kind);

/* A new, empty report titled `title` (NULL: "stepscope report"; copied). On success
 * *out is the report; free it with sts_report_free(). */
sts_status sts_report_create(const char *title, sts_report **out);

/* Frees the report and everything it holds; NULL is a no-op. */
void sts_report_free(sts_report *r);

/* Decides what `path` holds from its content, not its name (sts_report_add_path() does
 * this itself; this is for callers that only ask): a directory is a trace
 * (a profile directory); JSON whose text holds "traceEvents" is a trace; a JSON object
 * with the bench keys ("warm_samples_seconds") is a bench result; one with the ledger
 * keys is a ledger; one with schema "stepscope.diff/..." is a diff result; other JSON
 * and binary files are traces. Reads at most the first
 * 64 KiB (gzip is inflated). Fails with STS_ERR_NOT_FOUND / STS_ERR_IO. */
sts_status sts_report_detect(const char *path, sts_report_input *kind, sts_error *err);

/* Adds `path`, detected as above; *kind (optional) receives what it was. The path is
 * opened once (a pipe, FIFO or "-" works): a trace is read as sts_timeline_open()
 * reads it, its section headed by the path and, for a profile directory, the run read
 * ("prof, run 2026_05_01_12_00_00"); bench and ledger JSON are parsed. Errors name the
 * file and the position. */
sts_status sts_report_add_path(sts_report *r, const char *path, sts_report_input *kind, sts_error *err);

/* Adds a trace section: per-step stacked bars, the lane timeline of the busiest window
 * and the names by self time. `label` heads the section (NULL: the trace's path). */
sts_status sts_report_add_timeline(sts_report *r, const sts_timeline *tl, const char *label, sts_error *err);

/* Adds a bench section from bench JSON text (`len` bytes; `name` is used in messages
 * and as the section's source). Fails with STS_ERR_PARSE on malformed JSON and
 * STS_ERR_FORMAT when no object in it has "warm_samples_seconds". */
sts_status sts_report_add_bench_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err);

/* Adds a ledger section from ledger JSON text: trace and compile deltas per call,
 * compile time per function, host-sync waits per scope. STS_ERR_FORMAT when it has
 * neither rows nor functions. */
sts_status sts_report_add_ledger_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err);

/* Adds a diff section from `stepscope diff --json` text: the two runs, the predictions
 * with their verdicts and reasons, and the before/after figure (each row's samples of
 * both runs on one axis, paired by step, with the interval of the change).
 * STS_ERR_FORMAT when it is not a stepscope.diff document. */
sts_status sts_report_add_diff_json(sts_report *r, const char *text, size_t len, const char *name, sts_error *err);

/* Adds a visible note (a skipped section, say) under `heading` (copied). */
sts_status sts_report_add_note(sts_report *r, const char *heading, const char *text);

/* Renders the page. On success *html is a NUL-terminated string of *len bytes the
 * caller frees with free(). */
sts_status sts_report_render(const sts_report *r, char **html, size_t *len);

/* Writes the page to `path` ("-" = standard output). A path that is, under any name (a
 * symbolic or hard link, another spelling), a file the report read with
 * sts_report_add_path() is refused with STS_ERR_INVALID_ARG and left as it was. */
sts_status sts_report_write_html(const sts_report *r, const char *path, sts_error *err);

/* Writes each figure as DIR/<figure id>.svg, with its stylesheet embedded, creating
 * DIR when missing. *written (optional) receives the number of files. As above, none
 * is written when one of them would replace an input. */
sts_status sts_report_write_svgs(const sts_report *r, const char *dir, size_t *written, sts_error *err);

/* Number of figures so far, and the id of figure i ("fig-steps", "fig-bench-2"...);
 * NULL when i is out of range. The id is owned by the report. */
size_t sts_report_figure_count(const sts_report *r);
const char *sts_report_figure_id(const sts_report *r, size_t i);

#ifdef __cplusplus
}
#endif
#endif
