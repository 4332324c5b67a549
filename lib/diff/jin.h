/* diff: reading bench and ledger JSON documents (the DOM of base/json_dom.h) into
 * numbers, with errors that name the file, the byte and what was expected. */
#ifndef STS_DIFF_JIN_H
#define STS_DIFF_JIN_H

#include <stddef.h>
#include <stdint.h>

#include "base/json_dom.h"
#include "base/vec.h"
#include "stepscope/status.h"

typedef STS_VEC(int64_t) sts_dj_vec;

/* A number or null as an integer: 1 when a number (rounded half away from zero, after
 * multiplying by `scale`), 0 when null or absent, STS_ERR_FORMAT (with err) for
 * anything else or a value beyond +-2^52 or below 0. */
int sts_dj_int(const sts_jval *v, double scale, const char *name, const char *key, int64_t *out, sts_error *err);

/* An array of non-negative numbers times `scale` appended to *out (null items are
 * skipped and counted in *nulls). Absent or null: nothing appended, STS_OK.
 * STS_ERR_FORMAT for anything else. */
sts_status sts_dj_ints(const sts_jval *v, double scale, const char *name, const char *key, sts_dj_vec *out,
                       size_t *nulls, sts_error *err);

/* A scalar or a short flat array as compact text, for comparing contracts ("[64, 32]");
 * "" when absent. */
void sts_dj_text(const sts_jval *v, char *buf, size_t cap);

#endif
