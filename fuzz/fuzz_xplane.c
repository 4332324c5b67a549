/* libFuzzer target: arbitrary bytes through the XSpace reader. A successful read is
 * written back with the XSpace encoder and read again: the second read must succeed
 * with the same slices, so the fuzzer exercises the encoder too. A failed read must
 * explain itself with a position. Seeds: fuzz/corpus/xplane (see its README). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "model/timeline_builder.h"
#include "read/xplane.h"
#include "write/xplane_write.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_rewrite(const sts_timeline *tl)
{
    sts_write_options o = STS_WRITE_OPTIONS_INIT;
    o.host = "fuzz";
    uint8_t *out = NULL;
    size_t n = 0;
    sts_error err = STS_ERROR_INIT;
    if (sts_xplane_encode_mem(tl, &o, &out, &n, &err) != STS_OK) {
        /* Only limits may refuse a timeline the reader produced. */
        if (err.code != STS_ERR_RANGE && err.code != STS_ERR_LIMIT && err.code != STS_ERR_NOMEM) abort();
        return;
    }
    sts_timeline *again = sts_tl_new("rewrite", "xplane", STS_ARGS_ALL);
    if (!again) abort();
    if (sts_read_xplane_mem(out, n, "rewrite", again, NULL, &err) != STS_OK) abort();
    size_t a, b;
    const sts_slice *s1 = sts_timeline_slices(tl, &a);
    const sts_slice *s2 = sts_timeline_slices(again, &b);
    if (a != b) abort();
    uint64_t sum1 = 0, sum2 = 0; /* unsigned: wraps instead of overflowing */
    for (size_t i = 0; i < a; i++) {
        sum1 += (uint64_t)s1[i].dur;
        sum2 += (uint64_t)s2[i].dur;
    }
    if (sum1 != sum2) abort();
    sts_tl_free(again);
    free(out);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sts_timeline *tl = sts_tl_new("fuzz.xplane.pb", "xplane", STS_ARGS_ALL);
    if (!tl) return 0;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_read_xplane_mem(data, size, "fuzz.xplane.pb", tl, NULL, &err);
    if (st == STS_OK)
        check_rewrite(tl);
    else if (st != STS_ERR_NOMEM && (err.byte_offset < 0 || (uint64_t)err.byte_offset > size || !err.message[0]))
        abort();
    sts_tl_free(tl);
    return 0;
}
