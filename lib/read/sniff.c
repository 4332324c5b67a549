/* Recognizing an input from its first bytes. Traces are Chrome JSON or XSpace
 * protobufs (gzip is inflated before this sees the bytes); everything else gets a name,
 * so a user who passed the wrong file reads "looks like a zip archive", not a protobuf
 * wire-type error. */
#include "read/sniff.h"

#include <stdio.h>
#include <string.h>

typedef struct magic {
    const char *bytes;
    size_t n, at;
    const char *what, *hint;
} magic;

#define M(s, at, what, hint)            \
    {                                   \
        s, sizeof s - 1, at, what, hint \
    }
static const magic MAGICS[] = {
    M("\x7f"
      "ELF",
      0, "an ELF executable or library", ""),
    M("PK\x03\x04", 0, "a zip archive", "unzip it and pass the trace inside"),
    M("PK\x05\x06", 0, "an empty zip archive", ""),
    M("\x89PNG\r\n\x1a\n", 0, "a PNG image", ""),
    M("\xff\xd8\xff", 0, "a JPEG image", ""),
    M("GIF87a", 0, "a GIF image", ""),
    M("GIF89a", 0, "a GIF image", ""),
    M("%PDF-", 0, "a PDF document", ""),
    M("1AY&SY", 4, "bzip2-compressed data", "decompress it first (bunzip2); stepscope inflates only gzip"),
    M("\xfd"
      "7zXZ\x00",
      0, "xz-compressed data", "decompress it first (unxz); stepscope inflates only gzip"),
    M("\x28\xb5\x2f\xfd", 0, "zstd-compressed data", "decompress it first (zstd -d); stepscope inflates only gzip"),
    M("7z\xbc\xaf\x27\x1c", 0, "a 7-Zip archive", ""),
    M("SQLite format 3", 0, "an SQLite database", ""),
    M("\x93NUMPY", 0, "a NumPy array file (.npy)", ""),
    M("\x89HDF\r\n\x1a\n", 0, "an HDF5 file", ""),
    M("\xcf\xfa\xed\xfe", 0, "a Mach-O executable", ""),
    M("ustar", 257, "a tar archive", "extract it and pass the trace inside"),
    /* UTF-32 before UTF-16: its little-endian mark starts with UTF-16's. */
    M("\xff\xfe\x00\x00", 0, "UTF-32 text (little-endian, with a byte-order mark)",
      "stepscope reads UTF-8 JSON: convert it, e.g. iconv -f UTF-32 -t UTF-8"),
    M("\x00\x00\xfe\xff", 0, "UTF-32 text (big-endian, with a byte-order mark)",
      "stepscope reads UTF-8 JSON: convert it, e.g. iconv -f UTF-32 -t UTF-8"),
    M("\xff\xfe", 0, "UTF-16 text (little-endian, with a byte-order mark)",
      "stepscope reads UTF-8 JSON: convert it, e.g. iconv -f UTF-16 -t UTF-8"),
    M("\xfe\xff", 0, "UTF-16 text (big-endian, with a byte-order mark)",
      "stepscope reads UTF-8 JSON: convert it, e.g. iconv -f UTF-16 -t UTF-8"),
};
#undef M

static const char UTF16_HINT[] = "stepscope reads UTF-8 JSON: convert it, e.g. iconv -f UTF-16 -t UTF-8";

static int is_ws(uint8_t c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

static int is_text_byte(uint8_t c)
{
    return (c >= 0x20 && c != 0x7f) || c == '\t' || c == '\n' || c == '\v' || c == '\f' || c == '\r' || c == 0x1b;
}

static int is_ascii_print(uint8_t c)
{
    return (c >= 0x20 && c < 0x7f) || is_ws(c);
}

/* UTF-16 without a byte-order mark: ASCII characters with a zero byte beside each.
 * Pairs are checked over the first 64 bytes; one visible character is required, so a
 * run of empty protobuf messages ("\n\0\n\0") is not taken for text. */
static int utf16_without_bom(const uint8_t *p, size_t n, int *big_endian)
{
    if (n < 4) return 0;
    size_t m = n < 64 ? n & ~(size_t)1 : 64;
    for (int be = 0; be < 2; be++) {
        int ok = 1, visible = 0;
        for (size_t i = 0; i < m && ok; i += 2) {
            uint8_t ch = be ? p[i + 1] : p[i], zero = be ? p[i] : p[i + 1];
            ok = zero == 0 && is_ascii_print(ch);
            visible |= ch > 0x20;
        }
        if (ok && visible) {
            *big_endian = be;
            return 1;
        }
    }
    return 0;
}

static int starts_nocase(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    if (n < k) return 0;
    for (size_t i = 0; i < k; i++) {
        uint8_t a = p[i], b = (uint8_t)s[i];
        if (a >= 'A' && a <= 'Z') a = (uint8_t)(a - 'A' + 'a');
        if (a != b) return 0;
    }
    return 1;
}

static int contains(const uint8_t *p, size_t n, const char *s)
{
    size_t k = strlen(s);
    for (size_t i = 0; i + k <= n; i++)
        if (p[i] == (uint8_t)s[0] && memcmp(p + i, s, k) == 0) return 1;
    return 0;
}

/* "plain text (\"first line\")": the first line, cut at 40 bytes on a character
 * boundary, so the user sees which file it was. */
static void describe_text(const uint8_t *p, size_t n, sts_sniff *out)
{
    if (starts_nocase(p, n, "<!doctype html") || starts_nocase(p, n, "<html")) {
        snprintf(out->what, sizeof out->what, "an HTML page");
        return;
    }
    if (starts_nocase(p, n, "<?xml")) {
        snprintf(out->what, sizeof out->what, "XML text");
        return;
    }
    size_t k = 0;
    while (k < n && k < 40 && p[k] != '\n' && p[k] != '\r')
        k++;
    while (k > 0 && k < n && (p[k] & 0xc0) == 0x80) /* not inside a UTF-8 character */
        k--;
    char line[48];
    size_t j = 0;
    for (size_t i = 0; i < k; i++)
        line[j++] = p[i] == '"' ? '\'' : p[i] < 0x20 ? ' ' : (char)p[i];
    line[j] = 0;
    snprintf(out->what, sizeof out->what, "plain text (\"%s%s\")", line,
             k < n && p[k] != '\n' && p[k] != '\r' ? "..." : "");
    if (contains(p, n, "Compiling ") || contains(p, n, "TRACING CACHE MISS") || contains(p, n, "torch._dynamo"))
        out->hint = "compile logs are read by `stepscope ledger`";
}

void sts_sniff_trace(const uint8_t *p, size_t n, int ended, sts_sniff *out)
{
    memset(out, 0, sizeof *out);
    out->hint = "";
    if (n == 0) {
        out->empty = 1;
        snprintf(out->what, sizeof out->what, "empty");
        return;
    }
    /* Before JSON: UTF-16 JSON starts with '[' or '{' too, a zero byte beside it. */
    int be;
    if (utf16_without_bom(p, n, &be)) {
        snprintf(out->what, sizeof out->what, "UTF-16 text (%s-endian, no byte-order mark)", be ? "big" : "little");
        out->hint = UTF16_HINT;
        return;
    }
    size_t i = n >= 3 && p[0] == 0xef && p[1] == 0xbb && p[2] == 0xbf ? 3 : 0;
    while (i < n && is_ws(p[i]))
        i++;
    if (i == n) {
        if (ended) {
            out->empty = 1;
            snprintf(out->what, sizeof out->what, "only whitespace");
        } else {
            out->format = STS_FORMAT_CHROME_JSON; /* more whitespace: JSON's reader streams through it */
        }
        return;
    }
    if (p[i] == '[' || p[i] == '{') {
        out->format = STS_FORMAT_CHROME_JSON;
        return;
    }
    for (size_t k = 0; k < sizeof MAGICS / sizeof MAGICS[0]; k++) {
        const magic *m = &MAGICS[k];
        if (n >= m->at + m->n && memcmp(p + m->at, m->bytes, m->n) == 0) {
            snprintf(out->what, sizeof out->what, "%s", m->what);
            out->hint = m->hint;
            return;
        }
    }
    if (p[0] == 0) {
        size_t z = 0;
        while (z < n && p[z] == 0)
            z++;
        if (z == n)
            snprintf(out->what, sizeof out->what, "NUL bytes (the first %zu bytes are all zero)", n);
        else
            snprintf(out->what, sizeof out->what, "binary data starting with %zu NUL byte%s", z, z == 1 ? "" : "s");
        out->hint = z == n ? "is it /dev/zero, or a file allocated but never written?" : "";
        return;
    }
    size_t t = 0;
    while (t < n && is_text_byte(p[t]))
        t++;
    if (t == n) {
        describe_text(p + i, n - i, out);
        return;
    }
    /* A protobuf message starts with a tag whose field number is at least 1. */
    if (p[0] < 0x08) {
        snprintf(out->what, sizeof out->what, "binary data (first byte 0x%02x), not a protobuf message", p[0]);
        return;
    }
    out->format = STS_FORMAT_XSPACE;
}
