/* libFuzzer target: arbitrary bytes through the trace opener, as a file or pipe would
 * reach it: gzip inflated, the format told from the first bytes (Chrome JSON, XSpace,
 * or "not a trace: looks like ..."), read and finalized. The last byte picks the args
 * mode (its two low bits) and whether flows are kept or counted (bit 2). A failure
 * must say where (a byte offset) and what; a success must hold a timeline whose slices
 * nest inside their parents. Seeds: fuzz/corpus/open. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "stepscope/timeline.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    unsigned pick = size ? data[size - 1] : 0;
    opt.args = (sts_args_mode)(pick % 4);
    opt.flows = pick & 4 ? STS_FLOWS_COUNT : STS_FLOWS_KEEP;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_timeline_open_mem(data, size, "fuzz.trace", &opt, &tl, &err);
    if (st != STS_OK) {
        if (tl || !err.message[0] || !strstr(err.message, "fuzz.trace")) __builtin_trap();
        if (st != STS_ERR_NOMEM && st != STS_ERR_LIMIT && err.byte_offset < 0 && err.event_index < 0 &&
            !strstr(err.message, "byte"))
            __builtin_trap();
        return 0;
    }
    size_t n, nl, nf;
    sts_timeline_flows(tl, &nf);
    if (opt.flows == STS_FLOWS_COUNT ? nf != 0 : sts_timeline_get_info(tl)->flows != nf) __builtin_trap();
    const sts_slice *s = sts_timeline_slices(tl, &n);
    sts_timeline_lanes(tl, &nl);
    for (size_t i = 0; i < n; i++) {
        if (s[i].lane >= nl) __builtin_trap();
        if (s[i].parent == STS_NONE) continue;
        const sts_slice *p = &s[s[i].parent];
        if (s[i].parent >= i || p->lane != s[i].lane || s[i].ts < p->ts) __builtin_trap();
    }
    sts_timeline_free(tl);
    return 0;
}
