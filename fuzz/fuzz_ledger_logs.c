/* libFuzzer target: arbitrary bytes as a JAX / PyTorch compile log through the ledger's
 * log parser, then finalize and all three exporters. Malformed content must never fail
 * the parse (only a line longer than STS_LEDGER_MAX_LINE holding NUL bytes may: binary
 * data); the counters must add up (every line is counted once, and no more records,
 * skipped lines, comments and over-long lines than lines); every warning must name the
 * file and a line;
 * the JSON export must be valid UTF-8 without raw control bytes and be accepted by the
 * report's ledger reader, which is how `stepscope report` consumes it.
 * Seeds: fuzz/corpus/ledger_logs (short hand-written snippets of each log format). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/utf8.h"
#include "stepscope/ledger.h"
#include "stepscope/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LOG_NAME "fuzz.log"

static int64_t count_lines(const uint8_t *data, size_t size)
{
    int64_t n = 0;
    for (size_t i = 0; i < size; i++)
        n += data[i] == '\n';
    return n + (size && data[size - 1] != '\n');
}

static void check_counts(const sts_ledger *l, const uint8_t *data, size_t size)
{
    sts_log_stats s = sts_ledger_log_stats(l);
    if (s.files != 1 || s.lines != count_lines(data, size)) __builtin_trap();
    if (s.records < 0 || s.skipped < 0 || s.comments < 0) __builtin_trap();
    if (s.records + s.skipped + s.comments + s.long_lines > s.lines) __builtin_trap();
    size_t nw = sts_ledger_warning_count(l);
    for (size_t i = 0; i < nw; i++) {
        const char *w = sts_ledger_warning(l, i);
        if (!w || strncmp(w, LOG_NAME ":", sizeof LOG_NAME) != 0) __builtin_trap();
        const char *p = w + sizeof LOG_NAME;
        if (*p < '1' || *p > '9') __builtin_trap(); /* a line number, counted from 1 */
    }
}

/* Valid UTF-8, and no control bytes but the writer's own newlines and indentation. */
static void check_json_bytes(const char *s, size_t n)
{
    const unsigned char *u = (const unsigned char *)s;
    for (size_t i = 0; i < n;) {
        if (u[i] < 0x20 && u[i] != '\n') __builtin_trap();
        size_t len = sts_utf8_len(u + i, n - i);
        if (len == 0) __builtin_trap();
        i += len;
    }
}

static void check_json(sts_ledger *l)
{
    char *json = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&json, &n);
    if (!f) return;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_ledger_write_json(l, f, NULL, NULL, &err);
    if (fclose(f) != 0 || st != STS_OK) {
        if (st != STS_OK && st != STS_ERR_NOMEM && st != STS_ERR_IO) __builtin_trap();
        free(json);
        return;
    }
    check_json_bytes(json, n);
    sts_report *r = NULL;
    if (sts_report_create("fuzz", &r) == STS_OK) {
        err = (sts_error)STS_ERROR_INIT;
        st = sts_report_add_ledger_json(r, json, n, "ledger.json", &err);
        /* What the ledger writes, the report must read (limits aside). */
        if (st != STS_OK && st != STS_ERR_NOMEM && st != STS_ERR_LIMIT) {
            fprintf(stderr, "report rejected the ledger's JSON: %s\n%.*s\n", err.message, (int)(n < 4000 ? n : 4000),
                    json);
            __builtin_trap();
        }
        sts_report_free(r);
    }
    free(json);
}

static void check_other_exports(sts_ledger *l)
{
    FILE *f = fopen("/dev/null", "w");
    if (!f) return;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_ledger_write_csv(l, f, &err);
    if (st != STS_OK && st != STS_ERR_NOMEM && st != STS_ERR_IO) __builtin_trap();
    err = (sts_error)STS_ERROR_INIT;
    st = sts_ledger_write_text(l, f, &err);
    if (st != STS_OK && st != STS_ERR_NOMEM && st != STS_ERR_IO) __builtin_trap();
    fclose(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sts_ledger *l = sts_ledger_create();
    if (!l) return 0;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_ledger_parse_text(l, LOG_NAME, (const char *)data, size, &err);
    if (st != STS_OK) {
        if (st != STS_ERR_NOMEM && !(st == STS_ERR_FORMAT && size > STS_LEDGER_MAX_LINE)) __builtin_trap();
        sts_ledger_free(l);
        return 0;
    }
    check_counts(l, data, size);
    err = (sts_error)STS_ERROR_INIT;
    st = sts_ledger_finalize(l, &err);
    if (st == STS_OK) {
        check_json(l);
        check_other_exports(l);
    } else if (st != STS_ERR_NOMEM) {
        __builtin_trap();
    }
    sts_ledger_free(l);
    return 0;
}
