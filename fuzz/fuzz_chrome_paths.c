/* libFuzzer target: the Chrome JSON reader's ways of reading the same bytes must agree
 * exactly (status, message, and on success the whole raw timeline): the reference byte
 * parser, the fast event parser, chunks read on two threads and merged, and the bytes
 * gzip-compressed, inflated inline, on a thread of their own, and that feed in chunks.
 * The last two bytes choose the args mode and where the chunks are cut. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <zlib.h>

#include "../tests/unit/tl_same.h"
#include "read/json_chrome.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

typedef struct outcome {
    sts_timeline *tl;
    sts_status st;
    char msg[sizeof((sts_error *)0)->message];
} outcome;

static void read_one(const uint8_t *data, size_t n, sts_args_mode mode, const sts_jr_tuning *tune, outcome *o)
{
    sts_error err = STS_ERROR_INIT;
    o->tl = NULL;
    o->st = STS_ERR_NOMEM;
    o->msg[0] = 0;
    sts_instream *in = sts_instream_open_mem(data, n, "fuzz.json", &err);
    if (!in) return;
    o->tl = sts_tl_new("fuzz.json", "chrome-json", mode);
    if (o->tl) {
        sts_open_options opt = STS_OPEN_OPTIONS_INIT;
        opt.args = mode;
        o->st = sts_read_chrome_json_with(in, o->tl, &opt, tune, &err);
        if (o->st != STS_OK) memcpy(o->msg, err.message, sizeof o->msg);
    }
    sts_instream_free(in);
}

static void same(const outcome *a, const outcome *b)
{
    if (a->st == STS_ERR_NOMEM || b->st == STS_ERR_NOMEM) return;
    if (a->st != b->st || strcmp(a->msg, b->msg) != 0) __builtin_trap();
    if (a->st == STS_OK && a->tl && b->tl && tl_same(a->tl, b->tl)) __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 2) return 0;
    size_t n = size - 2;
    sts_args_mode mode = (sts_args_mode)(data[size - 1] % 3);
    uint64_t splits[4];
    size_t k = 1 + data[size - 1] / 3 % 4;
    for (size_t i = 0; i < k; i++)
        splits[i] = n * (i + 1) / (k + 1) + data[size - 2] % 32;
    const sts_jr_tuning reference = { 1, 1, 0, 0, NULL, 0, 0, NULL, NULL };
    const sts_jr_tuning fast = { 0, 1, 0, 0, NULL, 0, 0, NULL, NULL };
    const sts_jr_tuning chunked = { 0, 2, 0, 1, splits, k, 0, NULL, NULL };
    outcome a, b, c;
    read_one(data, n, mode, &reference, &a);
    read_one(data, n, mode, &fast, &b);
    read_one(data, n, mode, &chunked, &c);
    same(&a, &b);
    same(&a, &c);
    sts_tl_free(a.tl);
    sts_tl_free(b.tl);
    sts_tl_free(c.tl);

    /* The same bytes as gzip. */
    uLongf zn = compressBound((uLong)n) + 32;
    uint8_t *gz = malloc(zn);
    z_stream z;
    memset(&z, 0, sizeof z);
    if (gz && deflateInit2(&z, 1, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) == Z_OK) {
        z.next_in = (Bytef *)(uintptr_t)data;
        z.avail_in = (uInt)n;
        z.next_out = gz;
        z.avail_out = (uInt)zn;
        int ok = deflate(&z, Z_FINISH) == Z_STREAM_END;
        size_t gn = zn - z.avail_out;
        deflateEnd(&z);
        if (ok) {
            const sts_jr_tuning inline_inflate = { 0, 1, 0, 0, NULL, 0, 1, NULL, NULL };
            const sts_jr_tuning feed_chunks = { 0, 2, 64, 1, NULL, 0, 0, NULL, NULL };
            read_one(gz, gn, mode, &inline_inflate, &a);
            read_one(gz, gn, mode, &fast, &b);
            read_one(gz, gn, mode, &feed_chunks, &c);
            same(&a, &b);
            same(&a, &c);
            sts_tl_free(a.tl);
            sts_tl_free(b.tl);
            sts_tl_free(c.tl);
        }
    }
    free(gz);
    return 0;
}
