/* base: a small JSON DOM for bench, ledger and diff results (kilobytes, not traces).
 * The whole document is parsed into nodes allocated from one arena. Nesting depth is
 * bounded, and every error names the byte offset and what was expected there. */
#ifndef STS_BASE_JSON_DOM_H
#define STS_BASE_JSON_DOM_H

#include <stddef.h>

#include "base/mem.h"
#include "stepscope/status.h"

#define STS_JSON_MAX_DEPTH 64

typedef enum sts_jtype { STS_J_NULL = 0, STS_J_BOOL, STS_J_NUM, STS_J_STR, STS_J_ARR, STS_J_OBJ } sts_jtype;

typedef struct sts_jval sts_jval;
typedef struct sts_jmember {
    const char *key; /* decoded UTF-8, NUL-terminated (may hold \u0000 as a byte) */
    size_t key_len;
    sts_jval *val;
} sts_jmember;

struct sts_jval {
    sts_jtype type;
    size_t offset; /* byte offset of the value's first character in the input */
    union {
        int b;
        double num;
        struct {
            const char *s; /* decoded, NUL-terminated */
            size_t n;
        } str;
        struct {
            sts_jval **items;
            size_t n;
        } arr;
        struct {
            sts_jmember *members; /* in document order; duplicates kept */
            size_t n;
        } obj;
    } u;
};

typedef struct sts_jdoc {
    sts_arena arena;
    sts_jval *root;
} sts_jdoc;
/* clang-format off */
#define STS_JDOC_INIT { STS_ARENA_INIT, NULL }
/* clang-format on */

/* Parses `len` bytes of `text` as one JSON value (whitespace around it allowed).
 * `name` (a file name) prefixes error messages. On failure doc->root is NULL and err
 * says "NAME: byte N: expected ..."; err->byte_offset is N. Release with
 * sts_jdoc_release() either way. */
sts_status sts_json_parse(sts_jdoc *doc, const char *text, size_t len, const char *name, sts_error *err);

/* Frees every node; the doc is then empty. */
void sts_jdoc_release(sts_jdoc *doc);

/* The last member named `key` in an object (JSON's usual rule), or NULL (also when v
 * is NULL or not an object). */
const sts_jval *sts_json_get(const sts_jval *v, const char *key);

/* Number of items of an array; 0 for anything else. */
size_t sts_json_len(const sts_jval *v);
/* Item i of an array or NULL. */
const sts_jval *sts_json_at(const sts_jval *v, size_t i);

/* The number, or `dflt` when v is not a number. */
double sts_json_num(const sts_jval *v, double dflt);
/* The string, or `dflt` when v is not a string. */
const char *sts_json_str(const sts_jval *v, const char *dflt);

#endif
