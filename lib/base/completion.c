/* base: the completion record's reader side (see completion.h). */
#include "base/completion.h"

#include <string.h>

int sts_completion_note_name(sts_completion *c, const char *name, size_t n)
{
    if (n == sizeof STS_COMPLETION_HEAD - 1 && memcmp(name, STS_COMPLETION_HEAD, n) == 0) {
        c->announced = 1;
        return 1;
    }
    if (n == sizeof STS_COMPLETION_TAIL - 1 && memcmp(name, STS_COMPLETION_TAIL, n) == 0) {
        c->complete = 1;
        return 1;
    }
    return 0;
}

int sts_completion_note_field(sts_completion *c, uint32_t field)
{
    if (field == STS_COMPLETION_XSPACE_HEAD) c->announced = 1;
    if (field == STS_COMPLETION_XSPACE_TAIL) c->complete = 1;
    return field == STS_COMPLETION_XSPACE_HEAD || field == STS_COMPLETION_XSPACE_TAIL;
}

sts_status sts_completion_check(const sts_completion *c, const char *path, uint64_t bytes, const char *record,
                                sts_error *err)
{
    if (!c->announced || c->complete) return STS_OK;
    return sts_error_set(err, STS_ERR_TRUNCATED, (int64_t)bytes,
                         "%s: cut short: the file ends at byte %llu without its completion record (%s), which "
                         "stepscope writes last; the file was truncated (an interrupted dump, a full disk or a "
                         "partial copy) and what it holds may be incomplete",
                         path, (unsigned long long)bytes, record);
}
