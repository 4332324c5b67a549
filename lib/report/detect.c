/* Deciding what an input is from its content, and adding it to the report. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/instream.h"
#include "report/report_impl.h"

#define SNIFF_BYTES (64 * 1024)
/* Bench and ledger results are small; anything bigger is refused rather than read whole. */
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

sts_status sts_report_detect(const char *path, sts_report_input *kind, sts_error *err)
{
    *kind = STS_REPORT_INPUT_UNKNOWN;
    struct stat st;
    if (strcmp(path, "-") != 0 && stat(path, &st) != 0)
        return sts_error_set(err, errno == ENOENT ? STS_ERR_NOT_FOUND : STS_ERR_IO, -1, "%s: cannot open: %s", path,
                             strerror(errno));
    if (strcmp(path, "-") != 0 && S_ISDIR(st.st_mode)) {
        *kind = STS_REPORT_INPUT_TRACE;
        return STS_OK;
    }
    sts_instream *in = sts_instream_open(path, err);
    if (!in) return err ? err->code : STS_ERR_IO;
    char *buf = malloc(SNIFF_BYTES);
    if (!buf) {
        sts_instream_free(in);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    }
    size_t n = 0;
    while (n < SNIFF_BYTES) {
        long got = sts_instream_read(in, buf + n, SNIFF_BYTES - n, err);
        if (got < 0) {
            /* A truncated gzip still has a readable start; keep what came. */
            if (n == 0) {
                free(buf);
                sts_instream_free(in);
                return err ? err->code : STS_ERR_IO;
            }
            break;
        }
        if (got == 0) break;
        n += (size_t)got;
    }
    sts_instream_free(in);
    *kind = classify(buf, n);
    free(buf);
    sts_error_clear(err);
    return STS_OK;
}

static sts_status add_result(sts_report *r, const char *path, sts_report_input kind, sts_error *err)
{
    char *text;
    size_t len;
    sts_status st = sts_read_file(path, &text, &len, err);
    if (st != STS_OK) return st;
    if (len > MAX_RESULT_BYTES) {
        free(text);
        return sts_error_set(err, STS_ERR_LIMIT, -1, "%s: %zu bytes is too large for a %s result (limit %u)", path, len,
                             sts_report_input_name(kind), MAX_RESULT_BYTES);
    }
    st = kind == STS_REPORT_INPUT_BENCH  ? sts_report_add_bench_json(r, text, len, path, err)
         : kind == STS_REPORT_INPUT_DIFF ? sts_report_add_diff_json(r, text, len, path, err)
                                         : sts_report_add_ledger_json(r, text, len, path, err);
    free(text);
    return st;
}

sts_status sts_report_add_path(sts_report *r, const char *path, sts_error *err)
{
    if (!r || !path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "report: no report or no path given");
    sts_report_input kind;
    sts_status st = sts_report_detect(path, &kind, err);
    if (st != STS_OK) return st;
    if (kind == STS_REPORT_INPUT_BENCH || kind == STS_REPORT_INPUT_LEDGER || kind == STS_REPORT_INPUT_DIFF)
        return add_result(r, path, kind, err);
    sts_timeline *tl = NULL;
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.args = STS_ARGS_KNOWN;
    st = sts_timeline_open(path, &opt, &tl, err);
    if (st != STS_OK) return st;
    st = sts_report_add_timeline(r, tl, path, err);
    sts_timeline_free(tl);
    return st;
}
