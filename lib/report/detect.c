/* Deciding what an input is from its content, and adding it to the report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/instream.h"
#include "base/mem.h"
#include "read/open.h"
#include "report/report_impl.h"

#define SNIFF_BYTES (64 * 1024)
/* Bench, ledger and diff results are small; anything bigger is refused rather than read whole. */
#define MAX_RESULT_BYTES (64u * 1024 * 1024)

static int has(const char *buf, size_t n, const char *needle)
{
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++)
        if (buf[i] == needle[0] && memcmp(buf + i, needle, k) == 0) return 1;
    return 0;
}

static sts_report_input classify(const char *buf, size_t n)
{
    size_t i = 0;
    if (n >= 3 && (unsigned char)buf[0] == 0xef && (unsigned char)buf[1] == 0xbb && (unsigned char)buf[2] == 0xbf)
        i = 3;
    while (i < n && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i >= n) return STS_REPORT_INPUT_TRACE; /* empty: let the trace reader say so */
    if (buf[i] != '{') return STS_REPORT_INPUT_TRACE;
    /* A Chrome trace may be an object too: its "traceEvents" key decides first. */
    if (has(buf, n, "\"traceEvents\"")) return STS_REPORT_INPUT_TRACE;
    if (has(buf, n, "\"stepscope.diff/")) return STS_REPORT_INPUT_DIFF;
    if (has(buf, n, "\"stepscope.ledger/")) return STS_REPORT_INPUT_LEDGER;
    if (has(buf, n, "\"stepscope.bench/")) return STS_REPORT_INPUT_BENCH;
    if (has(buf, n, "\"warm_samples_seconds\"")) return STS_REPORT_INPUT_BENCH;
    if (has(buf, n, "\"rows\"") && has(buf, n, "\"functions\"")) return STS_REPORT_INPUT_LEDGER;
    return STS_REPORT_INPUT_TRACE;
}

/* What the stream holds, from its first 64 KiB (peeked: the stream is not consumed). */
static sts_status classify_stream(sts_instream *in, sts_report_input *kind, sts_error *err)
{
    const unsigned char *p;
    long n = sts_instream_peek(in, SNIFF_BYTES, &p, err);
    if (n < 0) return err ? err->code : STS_ERR_IO;
    *kind = classify((const char *)p, (size_t)n);
    return STS_OK;
}

static int is_dir(const char *path)
{
    struct stat st;
    return strcmp(path, "-") != 0 && stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

sts_status sts_report_detect(const char *path, sts_report_input *kind, sts_error *err)
{
    *kind = STS_REPORT_INPUT_UNKNOWN;
    if (is_dir(path)) {
        *kind = STS_REPORT_INPUT_TRACE;
        return STS_OK;
    }
    sts_instream *in = sts_instream_open(path, err);
    if (!in) return err ? err->code : STS_ERR_IO;
    sts_status st = classify_stream(in, kind, err);
    sts_instream_free(in);
    return st;
}

/* The rest of a bench or ledger result, read whole: these are small, and anything
 * bigger than MAX_RESULT_BYTES is refused before it is read further. */
static sts_status add_result(sts_report *r, sts_instream *in, const char *path, sts_report_input kind, sts_error *err)
{
    char *text = NULL;
    size_t cap = 0, n = 0;
    sts_status st = STS_OK;
    for (;;) {
        if (n > MAX_RESULT_BYTES) {
            st = sts_error_set(err, STS_ERR_LIMIT, (int64_t)n,
                               "%s: more than %u bytes is too large for a %s result; a result is read whole", path,
                               MAX_RESULT_BYTES, sts_report_input_name(kind));
            break;
        }
        if (sts_grow((void **)&text, &cap, n + 65536 + 1, 1) != 0) {
            st = sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
            break;
        }
        long got = sts_instream_read(in, text + n, cap - n - 1, err);
        if (got < 0) {
            st = err ? err->code : STS_ERR_IO;
            break;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    if (st == STS_OK) {
        text[n] = 0;
        st = kind == STS_REPORT_INPUT_BENCH  ? sts_report_add_bench_json(r, text, n, path, err)
             : kind == STS_REPORT_INPUT_DIFF ? sts_report_add_diff_json(r, text, n, path, err)
                                             : sts_report_add_ledger_json(r, text, n, path, err);
    }
    free(text);
    return st;
}

/* A trace's section, headed by what the user named and, for a profile directory, the
 * run that was read ("prof, run 2026_05_01_12_00_00"). */
static sts_status add_trace(sts_report *r, sts_timeline *tl, const char *path, sts_error *err)
{
    const sts_timeline_info *info = sts_timeline_get_info(tl);
    char label[4400];
    if (info->run)
        snprintf(label, sizeof label, "%s, run %s", path, info->run);
    else
        snprintf(label, sizeof label, "%s", path);
    sts_status st = sts_report_add_timeline(r, tl, label, err);
    sts_timeline_free(tl);
    return st;
}

sts_status sts_report_add_path(sts_report *r, const char *path, sts_report_input *kind_out, sts_error *err)
{
    sts_report_input kind = STS_REPORT_INPUT_TRACE;
    if (kind_out) *kind_out = STS_REPORT_INPUT_UNKNOWN;
    if (!r || !path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no path given");
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    /* The report's figures come from the analyses; its memory figure reads the memory
     * events' keys and its critical path follows flows between threads. */
    opt.args = (sts_args_mode)((unsigned)STS_ARGS_ANALYSIS | STS_ARGS_WITH_MEMORY);
    opt.flows = STS_FLOWS_KEEP;
    sts_timeline *tl = NULL;
    sts_status st;
    if (is_dir(path)) { /* a profile directory: the opener finds the run and its file */
        st = sts_timeline_open(path, &opt, &tl, err);
    } else { /* opened once: peeked to tell what it is, then read by what takes it */
        sts_instream *in = sts_instream_open(path, err);
        if (!in) return err ? err->code : STS_ERR_IO;
        st = classify_stream(in, &kind, err);
        if (st == STS_OK &&
            (kind == STS_REPORT_INPUT_BENCH || kind == STS_REPORT_INPUT_LEDGER || kind == STS_REPORT_INPUT_DIFF))
            st = add_result(r, in, path, kind, err);
        else if (st == STS_OK)
            st = sts_timeline_read_stream(in, &opt, &tl, err);
        sts_instream_free(in);
    }
    /* The file read: the run's file for a profile directory, else the path. */
    if (st == STS_OK) st = sts_rpt_note_input(r, tl ? sts_timeline_get_info(tl)->path : path, err);
    if (st == STS_OK && tl) st = add_trace(r, tl, path, err);
    if (st == STS_OK && kind_out) *kind_out = kind;
    return st;
}
