#include "stepscope/status.h"
#include "stepscope/version.h"

#include <stdarg.h>
#include <stdio.h>

static const char *const status_names[] = {
#define STS_X_NAME(name, msg) "STS_" #name,
    STS_STATUS_MAP(STS_X_NAME)
#undef STS_X_NAME
};

static const char *const status_messages[] = {
#define STS_X_MSG(name, msg) msg,
    STS_STATUS_MAP(STS_X_MSG)
#undef STS_X_MSG
};

const char *sts_status_name(sts_status s)
{
    if ((unsigned)s >= STS_STATUS_COUNT) return "STS_UNKNOWN";
    return status_names[s];
}

const char *sts_strerror(sts_status s)
{
    if ((unsigned)s >= STS_STATUS_COUNT) return "unknown status";
    return status_messages[s];
}

void sts_error_clear(sts_error *err)
{
    if (!err) return;
    sts_error blank = STS_ERROR_INIT;
    *err = blank;
}

sts_status sts_error_set(sts_error *err, sts_status code, int64_t byte_offset, const char *fmt, ...)
{
    if (!err) return code;
    err->code = code;
    err->byte_offset = byte_offset;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(err->message, sizeof err->message, fmt, ap);
    va_end(ap);
    return code;
}

const char *sts_version(void)
{
    return STS_VERSION_STRING;
}

unsigned sts_version_number(void)
{
    return STS_VERSION_NUMBER;
}
