/* libFuzzer target: arbitrary bytes as the host records one MPI rank sends another
 * (sts_hosts_deserialize). A failure must be STS_ERR_FORMAT naming a byte (or out of
 * memory); a success must hold records that finish or say why not, align without
 * reading past their arrays, match their collectives and move onto the clocks they give
 * without overflow, and serialize back to bytes that read back the same.
 * Seeds: fuzz/corpus/hosts (records of small generated hosts, with and without
 * durations; two ranks of tests/cli/colls_gen.py's bad set, with collective ops and
 * memory instants added per step). */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope/hosts.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    sts_hosts *h = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_hosts_deserialize(data, size, &h, &err);
    if (st != STS_OK) {
        if (h || (st != STS_ERR_FORMAT && st != STS_ERR_NOMEM)) __builtin_trap();
        if (st == STS_ERR_FORMAT && (!strstr(err.message, "byte") || err.byte_offset < 0)) __builtin_trap();
        return 0;
    }
    void *a = NULL, *b = NULL;
    size_t na = 0, nb = 0;
    sts_hosts *back = NULL;
    if (sts_hosts_serialize(h, 1, &a, &na, NULL) != STS_OK) __builtin_trap();
    if (sts_hosts_deserialize(a, na, &back, NULL) != STS_OK) __builtin_trap();
    if (sts_hosts_serialize(back, 1, &b, &nb, NULL) != STS_OK || na != nb || memcmp(a, b, na) != 0) __builtin_trap();
    sts_alignment *al = NULL;
    sts_hosts_align(h, 1.1, &al, NULL);
    sts_alignment_free(al);
    sts_collectives *c = NULL;
    if (sts_collectives_match(h, &c, NULL) == STS_OK) {
        size_t n;
        const sts_coll_instance *in = sts_collectives_instances(c, &n);
        for (size_t i = 0; i < n; i++)
            if (in[i].skew_ns < 0 || in[i].wait_ns < 0 || in[i].transfer_ns < 0 || in[i].count < 2) __builtin_trap();
        sts_hosts_apply_offsets(h, c);
        sts_collectives_free(c);
    }
    sts_hosts_finish(h, NULL);
    free(a);
    free(b);
    sts_hosts_free(back);
    sts_hosts_free(h);
    return 0;
}
