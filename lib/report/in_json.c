#include "report/in_json.h"

#include <math.h>
#include <stdio.h>

#include "base/sbuf.h"

static void scalar(sts_sbuf *b, const sts_jval *v)
{
    char num[64];
    switch (v->type) {
    case STS_J_NUM:
        snprintf(num, sizeof num, "%.6g", v->u.num);
        sts_sbuf_puts(b, num);
        break;
    case STS_J_STR:
        sts_sbuf_put(b, v->u.str.s, v->u.str.n);
        break;
    case STS_J_BOOL:
        sts_sbuf_puts(b, v->u.b ? "true" : "false");
        break;
    default:
        break;
    }
}

const char *sts_rpt_json_text(sts_report *r, const sts_jval *v)
{
    if (!v || v->type == STS_J_NULL || v->type == STS_J_OBJ) return NULL;
    sts_sbuf b = STS_SBUF_INIT;
    if (v->type == STS_J_ARR) {
        if (v->u.arr.n > 16) return NULL;
        sts_sbuf_puts(&b, "[");
        for (size_t i = 0; i < v->u.arr.n; i++) {
            const sts_jval *it = v->u.arr.items[i];
            if (it->type == STS_J_ARR || it->type == STS_J_OBJ || it->type == STS_J_NULL) {
                sts_sbuf_release(&b);
                return NULL;
            }
            if (i) sts_sbuf_puts(&b, ", ");
            scalar(&b, it);
        }
        sts_sbuf_puts(&b, "]");
    } else {
        scalar(&b, v);
    }
    const char *out = b.oom ? NULL : sts_rpt_strndup(r, b.p ? b.p : "", b.n);
    sts_sbuf_release(&b);
    return out;
}

sts_status sts_rpt_json_numbers(sts_report *r, const sts_jval *v, double scale, const char *name, const char *key,
                                double **out, size_t *n, size_t *finite, sts_error *err)
{
    *out = NULL;
    *n = 0;
    if (finite) *finite = 0;
    if (!v || v->type == STS_J_NULL) return STS_OK;
    if (v->type != STS_J_ARR) {
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)v->offset,
                             "%s: byte %zu: \"%s\" must be an array of seconds", name, v->offset, key);
    }
    double *d = sts_rpt_alloc(r, (v->u.arr.n + 1) * sizeof *d);
    if (!d) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
    for (size_t i = 0; i < v->u.arr.n; i++) {
        const sts_jval *it = v->u.arr.items[i];
        if (it->type == STS_J_NULL) {
            d[i] = NAN;
            continue;
        }
        if (it->type != STS_J_NUM || !(it->u.num >= 0) || !isfinite(it->u.num)) {
            return sts_error_set(err, STS_ERR_FORMAT, (int64_t)it->offset,
                                 "%s: byte %zu: \"%s\"[%zu] must be a non-negative number of seconds or null", name,
                                 it->offset, key, i);
        }
        d[i] = it->u.num * scale;
        if (!isfinite(d[i]))
            return sts_error_set(err, STS_ERR_RANGE, (int64_t)it->offset, "%s: byte %zu: \"%s\"[%zu] is out of range",
                                 name, it->offset, key, i);
        if (finite) (*finite)++;
    }
    *out = d;
    *n = v->u.arr.n;
    return STS_OK;
}

sts_status sts_rpt_json_number(const sts_jval *v, double scale, const char *name, const char *key, double *out,
                               sts_error *err)
{
    *out = NAN;
    if (!v || v->type == STS_J_NULL) return STS_OK;
    if (v->type != STS_J_NUM || !(v->u.num >= 0) || !isfinite(v->u.num)) {
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)v->offset,
                             "%s: byte %zu: \"%s\" must be a non-negative number", name, v->offset, key);
    }
    *out = v->u.num * scale;
    if (!isfinite(*out))
        return sts_error_set(err, STS_ERR_RANGE, (int64_t)v->offset, "%s: byte %zu: \"%s\" is out of range", name,
                             v->offset, key);
    return STS_OK;
}
