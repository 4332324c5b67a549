/* report: helpers shared by the bench and ledger adapters. */
#ifndef STS_REPORT_IN_JSON_H
#define STS_REPORT_IN_JSON_H

#include "base/json_dom.h"
#include "report/report_impl.h"

/* A scalar or a short array of scalars as text ("[64, 32]", "float32", "2e-05"); NULL
 * for objects, long or nested arrays and null. The text lives in the report. */
const char *sts_rpt_json_text(sts_report *r, const sts_jval *v);

/* An array of non-negative finite numbers times `scale`, copied into the report; a
 * null item (a sample that was not measured) becomes NAN and *finite counts the rest.
 * Returns STS_OK and sets *out and *n (NULL and 0 when v is absent); STS_ERR_FORMAT with err
 * set when v is present but not such an array ("NAME: byte N: KEY must be ..."). */
sts_status sts_rpt_json_numbers(sts_report *r, const sts_jval *v, double scale, const char *name, const char *key,
                                double **out, size_t *n, size_t *finite, sts_error *err);

/* A non-negative number times `scale`; NAN when absent or null. STS_ERR_FORMAT with
 * err set when present but something else. */
sts_status sts_rpt_json_number(const sts_jval *v, double scale, const char *name, const char *key, double *out,
                               sts_error *err);

#endif
