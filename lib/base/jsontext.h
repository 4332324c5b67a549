/* base: JSON text primitives shared by the JSON writer (stepscope/json.h) and the Chrome
 * trace writer, which writes millions of values onto its own buffered file: string
 * escaping onto any sink, and number formatting into a caller's buffer. The rules are
 * the ones stepscope/json.h states. */
#ifndef STS_BASE_JSONTEXT_H
#define STS_BASE_JSONTEXT_H

#include <stddef.h>
#include <stdint.h>

/* Receives n bytes of output. */
typedef void (*sts_json_sink)(void *ctx, const char *p, size_t n);

/* Writes `s` (n bytes) as a JSON string literal, quotes included, in as few calls to
 * `put` as the escapes allow. */
void sts_json_escape(const char *s, size_t n, sts_json_sink put, void *ctx);

/* Room for any number the formatters below write, with its NUL. */
#define STS_JSON_NUM_MAX 32

/* Each writes a JSON number (or null) and a NUL into buf[STS_JSON_NUM_MAX] and returns
 * its length without the NUL. */
size_t sts_json_fmt_i64(char *buf, int64_t v);
size_t sts_json_fmt_u64(char *buf, uint64_t v);
/* The shortest round trip of stepscope/json.h; null for NaN and infinities. */
size_t sts_json_fmt_f64(char *buf, double v);
/* Nanoseconds as microseconds, exactly: "-12.345" for -12345, "7.000" for 7000. */
size_t sts_json_fmt_us(char *buf, int64_t ns);

#endif
