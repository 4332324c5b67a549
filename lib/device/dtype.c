/* device: the element types of arrays. Needs no OpenCL, so the library built without
 * it (device_none.c) has them too. */
#include "stepscope/device.h"

const char *sts_dtype_name(sts_dtype dt)
{
    switch (dt) {
    case STS_DTYPE_F32:
        return "float32";
    case STS_DTYPE_I32:
        return "int32";
    }
    return "unknown";
}

size_t sts_dtype_size(sts_dtype dt)
{
    (void)dt;
    return 4;
}
