/* A small JSON writer for the CLI's --json output (programs use only public headers,
 * so they carry their own). Top-level keys and the elements of top-level containers go
 * on their own lines; anything nested deeper is written inline. Strings are escaped and
 * invalid UTF-8 becomes U+FFFD, so the output is always valid JSON. */
#ifndef STS_PROGRAMS_JOUT_H
#define STS_PROGRAMS_JOUT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define JO_MAX_DEPTH 32

typedef struct jout {
    FILE *f;
    int depth;
    unsigned char count[JO_MAX_DEPTH]; /* per open container: 1 once it holds a value */
    int after_key;
} jout;

void jo_init(jout *j, FILE *f);
void jo_obj(jout *j);
void jo_obj_end(jout *j);
void jo_arr(jout *j);
void jo_arr_end(jout *j);
void jo_key(jout *j, const char *key);
void jo_str(jout *j, const char *s);
void jo_strn(jout *j, const char *s, size_t n);
void jo_i64(jout *j, int64_t v);
void jo_u64(jout *j, uint64_t v);
/* Non-finite values are written as null. */
void jo_f64(jout *j, double v);
void jo_bool(jout *j, int v);
void jo_null(jout *j);
/* Ends the document with a newline. */
void jo_end(jout *j);

/* Writes s (n bytes) as a JSON string literal. */
void jo_write_string(FILE *f, const char *s, size_t n);

#endif
