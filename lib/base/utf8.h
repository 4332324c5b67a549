/* base: UTF-8 validation shared by every writer that must emit valid text. */
#ifndef STS_BASE_UTF8_H
#define STS_BASE_UTF8_H

#include <stddef.h>

/* Length (1 to 4) of the well-formed UTF-8 sequence starting at s[0], reading at most
 * n > 0 bytes; 0 when it is not well formed (overlong, a surrogate, beyond U+10FFFF,
 * cut short). */
size_t sts_utf8_len(const unsigned char *s, size_t n);

/* The code point of the well-formed sequence of `len` bytes at s (from sts_utf8_len). */
unsigned sts_utf8_decode(const unsigned char *s, size_t len);

/* The length of s[0..n) without a multi-byte sequence cut short at its end (a lead byte
 * followed by fewer continuation bytes than it announces): where to cut text kept to
 * at most n bytes so that the cut splits no character. Reads s[0..n) only. */
size_t sts_utf8_cut(const char *s, size_t n);

/* Drops from the NUL-terminated s a sequence cut short at its end, as snprintf() into a
 * fixed buffer (or the kernel's 15-byte thread names) leaves one. */
void sts_utf8_trim(char *s);

#endif
