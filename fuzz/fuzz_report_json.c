/* libFuzzer target: bench and ledger JSON through the report's JSON DOM and figures.
 * Whatever the bytes, adding them either fails cleanly or yields a page that is valid
 * UTF-8 with no control characters but tab, CR and LF and no U+FFFE or U+FFFF (so it
 * stays well-formed XML). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "base/utf8.h"
#include "stepscope/report.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_page(const sts_report *r)
{
    char *html;
    size_t n;
    if (sts_report_render(r, &html, &n) != STS_OK) return;
    const unsigned char *u = (const unsigned char *)html;
    for (size_t i = 0; i < n;) {
        if (u[i] < 0x20 && u[i] != '\n' && u[i] != '\t' && u[i] != '\r') __builtin_trap();
        size_t len = sts_utf8_len(u + i, n - i);
        if (len == 0) __builtin_trap();
        unsigned cp = sts_utf8_decode(u + i, len);
        if (cp == 0xfffe || cp == 0xffff) __builtin_trap(); /* no XML character */
        i += len;
    }
    free(html);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sts_report *r;
    if (sts_report_create("fuzz", &r) != STS_OK) return 0;
    sts_error err = STS_ERROR_INIT;
    size_t figs = 0;
    if (sts_report_add_bench_json(r, (const char *)data, size, "fuzz.json", &err) != STS_OK) {
        /* A failed input adds nothing. */
        if (sts_report_figure_count(r) != figs) __builtin_trap();
        if (err.message[0] == 0) __builtin_trap();
    }
    figs = sts_report_figure_count(r);
    err = (sts_error)STS_ERROR_INIT;
    if (sts_report_add_ledger_json(r, (const char *)data, size, "fuzz.json", &err) != STS_OK) {
        if (sts_report_figure_count(r) != figs) __builtin_trap();
        if (err.message[0] == 0) __builtin_trap();
    }
    check_page(r);
    sts_report_free(r);
    return 0;
}
