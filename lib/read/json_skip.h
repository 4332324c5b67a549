/* read: skip one JSON value of any size and depth, validating it, in pieces.
 *
 * The value may arrive split across buffers: sts_jr_skip_feed consumes what it is given
 * and keeps its place, so a 1 GB "metadata" object is skipped with constant memory.
 * Nesting is tracked with a growable bit stack (one bit per level) and a loop, never
 * recursion, so depth is limited only by memory (a 10,000-deep array costs 1.25 KB). */
#ifndef STS_READ_JSON_SKIP_H
#define STS_READ_JSON_SKIP_H

#include <stddef.h>
#include <stdint.h>

#include "read/json_scan.h"

typedef struct json_skip {
    uint64_t depth;   /* open containers */
    uint64_t *stack;  /* bit d-1 set: level d is an object */
    size_t words;     /* stack capacity in 64-bit words */
    uint8_t state;    /* what comes next (json_skip.c) */
    uint8_t in_key;   /* the string being read is an object key */
    uint8_t num;      /* number state */
    uint8_t hex_left; /* hex digits still due in a \u escape */
    const char *lit;  /* literal being matched ("true", ...) */
    uint8_t lit_pos;
} json_skip;

typedef enum json_skip_rc {
    JSON_SKIP_DONE = 0, /* the value ended; *stop is the byte after it */
    JSON_SKIP_MORE,     /* all of [p, e) was consumed; feed the next bytes */
    JSON_SKIP_ERROR,    /* syntax error at *stop; f->expected says what was expected */
    JSON_SKIP_NOMEM
} json_skip_rc;

/* Prepares to skip a new value (keeps the stack's memory). */
void sts_jr_skip_start(json_skip *s);

/* Consumes [p, e) (followed by JSON_PAD zero bytes). A value at depth 0 that is a
 * number or literal ends only at the byte after it, so a number at the very end of the
 * input returns MORE. */
json_skip_rc sts_jr_skip_feed(json_skip *s, const char *p, const char *e, const char **stop, json_fail *f);

/* Frees the stack; the skipper is then empty and reusable. */
void sts_jr_skip_release(json_skip *s);

#endif
