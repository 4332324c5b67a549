/* spec: host synchronizations that record themselves. Each wraps one blocking device
 * call and notes how long the host waited in it, so a loop that reads a metric every
 * step can be set beside one that waits once at the end. */
#include "stepscope/spec.h"

#include <stdint.h>
#include <string.h>

#include "base/clock.h"

static sts_status record(sts_ledger *l, const char *label, const char *scope, sts_sync_kind kind, int64_t t0,
                         sts_status st, sts_error *err)
{
    int64_t waited = sts_clock_ns() - t0;
    if (st != STS_OK) return st;
    return l ? sts_ledger_add_sync(l, label, scope, kind, waited, err) : STS_OK;
}

sts_status sts_ledger_read(sts_ledger *l, const char *label, const char *scope, const sts_array *a, void *host,
                           size_t bytes, sts_error *err)
{
    int64_t t0 = sts_clock_ns();
    sts_status st = sts_array_read(a, host, bytes, err);
    return record(l, label, scope, STS_SYNC_READ, t0, st, err);
}

sts_status sts_ledger_wait(sts_ledger *l, const char *label, const char *scope, sts_array *const *arrays, size_t n,
                           sts_error *err)
{
    int64_t t0 = sts_clock_ns();
    sts_status st = sts_arrays_ready(arrays, n, err);
    return record(l, label, scope, STS_SYNC_WAIT, t0, st, err);
}

sts_status sts_ledger_scalar(sts_ledger *l, const char *label, const char *scope, const sts_array *a, double *out,
                             sts_error *err)
{
    if (!a || !out) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: no array or output", label ? label : "");
    int64_t t0 = sts_clock_ns();
    unsigned char buf[8];
    size_t esz = sts_dtype_size(sts_array_dtype(a));
    if (esz > sizeof buf) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "unsupported dtype");
    /* One element: a blocking read of a sub-range is not in the device API, so a
     * one-element array is read whole and larger ones are refused. */
    if (sts_array_count(a) != 1)
        return sts_error_set(err, STS_ERR_SHAPE, -1,
                             "%s: a scalar conversion needs a one-element array, got %zu elements",
                             label ? label : "scalar", sts_array_count(a));
    sts_status st = sts_array_read(a, buf, esz, err);
    if (st == STS_OK) {
        if (sts_array_dtype(a) == STS_DTYPE_I32) {
            int32_t v;
            memcpy(&v, buf, sizeof v);
            *out = v;
        } else {
            float v;
            memcpy(&v, buf, sizeof v);
            *out = v;
        }
    }
    return record(l, label, scope, STS_SYNC_SCALAR, t0, st, err);
}
