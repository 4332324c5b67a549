/* stepscope: status codes and error reports shared by every module. */
#ifndef STEPSCOPE_STATUS_H
#define STEPSCOPE_STATUS_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* One table, expanded into the enum, its names and its messages.
 * X(NAME, "message") */
#define STS_STATUS_MAP(X)                                                       \
    X(OK, "success")                                                            \
    X(ERR_NOMEM, "out of memory")                                               \
    X(ERR_IO, "input/output error")                                             \
    X(ERR_NOT_FOUND, "file or object not found")                                \
    X(ERR_PARSE, "malformed input")                                             \
    X(ERR_FORMAT, "unsupported or unrecognized format")                         \
    X(ERR_TRUNCATED, "input ends before it is complete")                        \
    X(ERR_INVALID_ARG, "invalid argument")                                      \
    X(ERR_RANGE, "value out of range")                                          \
    X(ERR_LIMIT, "a size or nesting limit was exceeded")                        \
    X(ERR_DEVICE, "device error")                                               \
    X(ERR_NO_DEVICE, "no OpenCL platform or device available")                  \
    X(ERR_BUILD, "kernel build failed")                                         \
    X(ERR_SHAPE, "array shapes do not match")                                   \
    X(ERR_CHECK, "result does not match the reference")                         \
    X(ERR_DYNAMIC_BRANCH, "dynamic value used where a static choice is needed") \
    X(ERR_STATE, "operation not valid in the current state")                    \
    X(ERR_EXISTS, "output already exists")                                      \
    X(ERR_INTERNAL, "internal error")

typedef enum sts_status {
#define STS_X_ENUM(name, msg) STS_##name,
    STS_STATUS_MAP(STS_X_ENUM)
#undef STS_X_ENUM
        STS_STATUS_COUNT
} sts_status;

/* "STS_ERR_PARSE" for STS_ERR_PARSE; "STS_UNKNOWN" for values outside the enum.
 * Returns a static string. */
const char *sts_status_name(sts_status s);

/* A one-line description of the status ("malformed input"). Returns a static string. */
const char *sts_strerror(sts_status s);

/* Filled by functions that read files or user input, when the caller passes one.
 * `message` is complete and ready to print: it names the file, the position (byte
 * offset or event index, when known; FILE:LINE for a line-oriented input such as a compile
 * log) and what was expected. */
typedef struct sts_error {
    sts_status code;
    int64_t byte_offset; /* -1 when not applicable */
    int64_t event_index; /* -1 when not applicable */
    char message[512];
} sts_error;

/* clang-format off */
#define STS_ERROR_INIT { STS_OK, -1, -1, { 0 } }
/* clang-format on */

/* Reset `err` to STS_ERROR_INIT. NULL is accepted and ignored. */
void sts_error_clear(sts_error *err);

/* Record a failure in `err` (NULL accepted) and return `code`, printf-style. */
sts_status sts_error_set(sts_error *err, sts_status code, int64_t byte_offset, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

#ifdef __cplusplus
}
#endif
#endif
