/* libFuzzer target: arbitrary bytes through the XSpace reader. A successful read is
 * written back with the XSpace encoder and read again: the second read must succeed
 * with the same slices, so the fuzzer exercises the encoder too. A failed read must
 * explain itself with a position. The bytes are also read as a stream of unknown size,
 * which cannot be read twice, so the reader holds each plane's events instead of
 * reading them again: it fails where the first read failed, else gives the same raw
 * timeline. Seeds: fuzz/corpus/xplane
 * (see its README). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../tests/unit/tl_same.h"
#include "base/instream.h"
#include "model/timeline_builder.h"
#include "read/readers.h"
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

/* The held way: a FILE* over the bytes, whose size the stream does not know. (Not for
 * gzip's magic bytes, which the stream would inflate where the memory read does not.) */
static void check_held(const uint8_t *data, size_t size, sts_status st, const sts_timeline *tl)
{
    if (size >= 2 && data[0] == 0x1f && data[1] == 0x8b) return;
    FILE *f = fmemopen((void *)(uintptr_t)(size ? (const void *)data : ""), size ? size : 1, "rb");
    if (!f) return;
    if (size == 0) fgetc(f);
    sts_error err = STS_ERROR_INIT;
    sts_instream *in = sts_instream_open_file(f, "fuzz.xplane.pb", &err);
    sts_timeline *held = in ? sts_tl_new("fuzz.xplane.pb", "xplane", STS_ARGS_ALL) : NULL;
    if (held) {
        sts_status st2 = sts_read_xplane(in, held, NULL, &err);
        /* Which error is met first may differ (a length past the end is refused at once
         * where the size is known), whether it fails may not. */
        if (st != STS_ERR_NOMEM && st2 != STS_ERR_NOMEM && (st2 == STS_OK) != (st == STS_OK)) abort();
        if (st == STS_OK && st2 == STS_OK && tl_same(tl, held)) abort();
        sts_tl_free(held);
    }
    sts_instream_free(in);
    fclose(f);
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
    check_held(data, size, st, tl);
    sts_tl_free(tl);
    return 0;
}
