/* stepscope/json.h: the JSON writer every JSON output of stepscope goes through (the
 * CLI's --json, the bench and ledger reports), so they share one escaping rule and one
 * number format.
 *
 * Strings: `"` and `\` are escaped, \n \r \t \b \f get their two-character escapes,
 * other control characters \u00XX; everything else is written as UTF-8, and each byte
 * that does not start a well-formed UTF-8 sequence becomes U+FFFD, so the output is
 * always valid JSON whatever the input bytes. Doubles: the fewest significant digits
 * (at least 6, as printf's %g counts them) that read back as the same double; NaN and
 * infinities, which JSON lacks, become null.
 *
 * The writer only formats: it does not check that keys and values alternate. It writes
 * through stdio and reports a write error, unbalanced containers or nesting deeper than
 * STS_JSONW_MAX_DEPTH when the document is finished. */
#ifndef STEPSCOPE_JSON_H
#define STEPSCOPE_JSON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stepscope/status.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Where line breaks go. Indentation is two spaces per level; a key is followed by
 * ": " where its object's values are on their own lines, by ":" elsewhere. */
typedef enum sts_json_layout {
    STS_JSON_COMPACT,    /* no whitespace at all */
    STS_JSON_INDENTED,   /* every value of every container on its own line */
    STS_JSON_TWO_LEVELS, /* the top-level keys and the elements of top-level containers
                            on their own lines, anything deeper inline (the CLI's) */
} sts_json_layout;

/* Containers nested deeper than this make sts_jsonw_finish() fail. */
#define STS_JSONW_MAX_DEPTH 64

typedef struct sts_jsonw sts_jsonw;

/* A writer of one JSON document onto `f` (which stays the caller's). The text is
 * gathered in the writer (64 KB at a time) and reaches `f` when that fills, at
 * sts_jsonw_finish() and at sts_jsonw_free(): write nothing else to `f` in between.
 * Returns NULL when memory runs out. */
sts_jsonw *sts_jsonw_create(FILE *f, sts_json_layout layout);

/* Frees the writer, not the stream, after handing the stream what it still holds (a
 * document abandoned on an error ends where it was cut, as it would unbuffered); NULL is
 * a no-op. */
void sts_jsonw_free(sts_jsonw *w);

/* Containers. A key precedes each value inside an object. */
void sts_jsonw_obj_begin(sts_jsonw *w);
void sts_jsonw_obj_end(sts_jsonw *w);
void sts_jsonw_arr_begin(sts_jsonw *w);
void sts_jsonw_arr_end(sts_jsonw *w);
void sts_jsonw_key(sts_jsonw *w, const char *key);

/* Values. A NULL string is written as null. */
void sts_jsonw_str(sts_jsonw *w, const char *s);
void sts_jsonw_strn(sts_jsonw *w, const char *s, size_t n);
void sts_jsonw_i64(sts_jsonw *w, int64_t v);
void sts_jsonw_u64(sts_jsonw *w, uint64_t v);
void sts_jsonw_f64(sts_jsonw *w, double v);
void sts_jsonw_bool(sts_jsonw *w, int v);
void sts_jsonw_null(sts_jsonw *w);

/* A member of the object open on `w` in one call: its key, then its value (as the
 * value functions above write it: a NULL string is null). The one way to write a key
 * and a scalar; sts_jsonw_key() stays for a key whose value is a container. */
void sts_jsonw_kv_str(sts_jsonw *w, const char *key, const char *s);
void sts_jsonw_kv_i64(sts_jsonw *w, const char *key, int64_t v);
void sts_jsonw_kv_u64(sts_jsonw *w, const char *key, uint64_t v);
void sts_jsonw_kv_f64(sts_jsonw *w, const char *key, double v);
void sts_jsonw_kv_bool(sts_jsonw *w, const char *key, int v);
void sts_jsonw_kv_null(sts_jsonw *w, const char *key);

/* Writes `json`, which the caller guarantees is one valid JSON value, as it is. */
void sts_jsonw_raw(sts_jsonw *w, const char *json);

/* Ends the document with a newline and flushes the stream. Returns STS_OK;
 * STS_ERR_STATE when containers were left open or closed too often; STS_ERR_LIMIT when
 * they nested deeper than STS_JSONW_MAX_DEPTH; STS_ERR_IO when the stream reports a
 * write error. */
sts_status sts_jsonw_finish(sts_jsonw *w);

#ifdef __cplusplus
}
#endif
#endif
