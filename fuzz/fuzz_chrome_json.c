/* libFuzzer target: the Chrome JSON reader over arbitrary bytes (gzip detected too).
 * The last byte picks the args mode, so all three paths get exercised. */
#include <stddef.h>
#include <stdint.h>

#include "read/readers.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sts_args_mode mode = size ? (sts_args_mode)(data[size - 1] % 3) : STS_ARGS_KNOWN;
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_mem(data, size, "fuzz.json", &err);
    if (!in) return 0;
    sts_timeline *tl = sts_tl_new("fuzz.json", "chrome-json", mode);
    if (tl) {
        sts_open_options opt = STS_OPEN_OPTIONS_INIT;
        opt.args = mode;
        sts_read_chrome_json(in, tl, &opt, &err);
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
