/* libFuzzer target: the Chrome JSON reader over arbitrary bytes (gzip detected too).
 * The last byte picks the args mode (its two low bits) and whether flows are kept or
 * counted (bit 2), so every path gets exercised. */
#include <stddef.h>
#include <stdint.h>

#include "read/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    unsigned pick = size ? data[size - 1] : 0;
    sts_args_mode mode = (sts_args_mode)(pick % 4);
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_mem(data, size, "fuzz.json", &err);
    if (!in) return 0;
    sts_timeline *tl = sts_tl_new("fuzz.json", "chrome-json", mode);
    if (tl) {
        sts_open_options opt = STS_OPEN_OPTIONS_INIT;
        opt.args = mode;
        opt.flows = pick & 4 ? STS_FLOWS_COUNT : STS_FLOWS_KEEP;
        sts_read_chrome_json(in, tl, &opt, &err);
        if (opt.flows == STS_FLOWS_COUNT ? tl->flows.n != 0 : tl->info.flows != tl->flows.n) __builtin_trap();
        /* Everything stored must point at valid strings and lanes. */
        for (size_t i = 0; i < tl->slices.n; i++) {
            const sts_slice *s = &tl->slices.v[i];
            if (s->lane >= tl->lanes.n || s->name >= tl->strings.count || s->cat >= tl->strings.count) __builtin_trap();
            if (s->args != STS_NONE && s->args >= tl->args.n) __builtin_trap();
            if (s->dur < -1) __builtin_trap();
        }
        for (size_t i = 0; i < tl->lanes.n; i++)
            if (tl->lanes.v[i].process >= tl->procs.n) __builtin_trap();
    }
    sts_tl_free(tl);
    sts_instream_free(in);
    return 0;
}
