/* device: the kernel sources embedded at build time. The table itself is generated
 * from the .cl files in lib/device/kernels into $(BUILD)/gen/device_kernels.c (see module.mk). */
#ifndef STS_DEVICE_EMBEDDED_H
#define STS_DEVICE_EMBEDDED_H

#include <stddef.h>

typedef struct sts_embedded_file {
    const char *name; /* file stem: "matmul" for kernels/matmul.cl */
    const char *text; /* NUL-terminated */
    size_t len;       /* bytes, without the NUL */
} sts_embedded_file;

extern const sts_embedded_file sts_device_kernel_files[];
extern const size_t sts_device_kernel_files_count;

#endif
