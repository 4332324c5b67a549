/* base: a small streaming JSON writer with correct string escaping. */
#ifndef STS_BASE_JSONW_H
#define STS_BASE_JSONW_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

typedef struct sts_jsonw {
    FILE *f;
    int depth;
    int pretty;
    unsigned char need_comma[64]; /* per depth: a value was already written */
    int after_key;
} sts_jsonw;

void sts_jsonw_init(sts_jsonw *w, FILE *f, int pretty);
void sts_jsonw_obj_begin(sts_jsonw *w);
void sts_jsonw_obj_end(sts_jsonw *w);
void sts_jsonw_arr_begin(sts_jsonw *w);
void sts_jsonw_arr_end(sts_jsonw *w);
void sts_jsonw_key(sts_jsonw *w, const char *key);
void sts_jsonw_str(sts_jsonw *w, const char *s);
void sts_jsonw_strn(sts_jsonw *w, const char *s, size_t n);
void sts_jsonw_i64(sts_jsonw *w, int64_t v);
void sts_jsonw_u64(sts_jsonw *w, uint64_t v);
/* Non-finite values are written as null (JSON has no NaN). */
void sts_jsonw_f64(sts_jsonw *w, double v);
void sts_jsonw_bool(sts_jsonw *w, int v);
void sts_jsonw_null(sts_jsonw *w);
/* Writes pre-formatted JSON text as one value. */
void sts_jsonw_raw(sts_jsonw *w, const char *json);
/* Ends the document with a newline. */
void sts_jsonw_finish(sts_jsonw *w);

/* Writes `s` (n bytes) as a JSON string literal with quotes. Invalid UTF-8 bytes become
 * U+FFFD so the output is always valid JSON. */
void sts_json_write_string(FILE *f, const char *s, size_t n);

#endif
