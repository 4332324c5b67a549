/* base: a growable text buffer (reports, ledgers and messages are rendered into it), with the
 * escaping that SVG and HTML text need. Rendering into memory first lets one figure
 * be written both inside the page and as a standalone SVG file. */
#ifndef STS_BASE_SBUF_H
#define STS_BASE_SBUF_H

#include <stddef.h>

typedef struct sts_sbuf {
    char *p;  /* NUL-terminated text; NULL until the first append */
    size_t n; /* bytes used, excluding the NUL */
    size_t cap;
    int oom; /* set when an append failed for lack of memory; later appends are dropped */
} sts_sbuf;
/* clang-format off */
#define STS_SBUF_INIT { NULL, 0, 0, 0 }
/* clang-format on */

void sts_sbuf_put(sts_sbuf *b, const char *s, size_t n);
void sts_sbuf_puts(sts_sbuf *b, const char *s);
void sts_sbuf_printf(sts_sbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* Appends `s` (n bytes) escaped for XML/HTML text and attribute values: & < > " ' become
 * entities, and bytes that are not valid UTF-8 or are control characters XML forbids
 * become U+FFFD, so a hostile trace name can neither break the markup nor make the
 * standalone SVG ill-formed. */
void sts_sbuf_esc(sts_sbuf *b, const char *s, size_t n);
void sts_sbuf_escs(sts_sbuf *b, const char *s);

/* Frees the text and resets the buffer; safe on an empty buffer. */
void sts_sbuf_release(sts_sbuf *b);

#endif
