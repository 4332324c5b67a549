#include "diff/jin.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

#define VALUE_LIMIT 4503599627370496.0 /* 2^52 */

int sts_dj_int(const sts_jval *v, double scale, const char *name, const char *key, int64_t *out, sts_error *err)
{
    *out = 0;
    if (!v || v->type == STS_J_NULL) return 0;
    double x = v->type == STS_J_NUM ? v->u.num * scale : NAN;
    if (!(x >= 0) || !(x <= VALUE_LIMIT)) {
        sts_error_set(err, STS_ERR_FORMAT, (int64_t)v->offset,
                      "%s: byte %zu: \"%s\" must be a non-negative number (at most 2^52 after scaling) or null", name,
                      v->offset, key);
        return -1;
    }
    *out = (int64_t)llround(x);
    return 1;
}

sts_status sts_dj_ints(const sts_jval *v, double scale, const char *name, const char *key, sts_dj_vec *out,
                       size_t *nulls, sts_error *err)
{
    if (nulls) *nulls = 0;
    if (!v || v->type == STS_J_NULL) return STS_OK;
    if (v->type != STS_J_ARR)
        return sts_error_set(err, STS_ERR_FORMAT, (int64_t)v->offset,
                             "%s: byte %zu: \"%s\" must be an array of numbers", name, v->offset, key);
    for (size_t i = 0; i < v->u.arr.n; i++) {
        int64_t x;
        int got = sts_dj_int(v->u.arr.items[i], scale, name, key, &x, err);
        if (got < 0) return STS_ERR_FORMAT;
        if (got == 0) {
            if (nulls) (*nulls)++;
            continue;
        }
        int64_t *slot = STS_VEC_PUSH(*out);
        if (!slot) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", name);
        *slot = x;
    }
    return STS_OK;
}

static void scalar(const sts_jval *v, char *buf, size_t cap)
{
    switch (v->type) {
    case STS_J_NUM:
        snprintf(buf, cap, "%.17g", v->u.num);
        break;
    case STS_J_STR:
        snprintf(buf, cap, "%s", v->u.str.s);
        break;
    case STS_J_BOOL:
        snprintf(buf, cap, "%s", v->u.b ? "true" : "false");
        break;
    case STS_J_NULL:
        snprintf(buf, cap, "null");
        break;
    default:
        snprintf(buf, cap, "...");
        break;
    }
}

void sts_dj_text(const sts_jval *v, char *buf, size_t cap)
{
    buf[0] = 0;
    if (!v) return;
    if (v->type != STS_J_ARR) {
        scalar(v, buf, cap);
        return;
    }
    size_t used = (size_t)snprintf(buf, cap, "[");
    for (size_t i = 0; i < v->u.arr.n && used < cap; i++) {
        char one[64];
        scalar(v->u.arr.items[i], one, sizeof one);
        used += (size_t)snprintf(buf + used, cap - used, "%s%s", i ? ", " : "", one);
    }
    if (used < cap) snprintf(buf + used, cap - used, "]");
}
