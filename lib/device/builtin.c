/* device: the built-in kernels, found in the embedded table (or $STEPSCOPE_KERNELS) and
 * built on first use through the program cache. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "device/device_impl.h"
#include "device/embedded.h"

typedef struct builtin_desc {
    const char *file;   /* kernels/<file>.cl */
    const char *kernel; /* function name */
} builtin_desc;

static const builtin_desc builtins[STS_BI_COUNT] = {
    [STS_BI_MATMUL_TILED] = { "matmul", "matmul_tiled" },
    [STS_BI_MATMUL_BLOCK] = { "matmul", "matmul_block" },
    [STS_BI_MATMUL_EDGE] = { "matmul", "matmul_edge" },
    [STS_BI_TANH] = { "elementwise", "ew_tanh" },
    [STS_BI_SQUARE] = { "elementwise", "ew_square" },
    [STS_BI_SCALE] = { "elementwise", "ew_scale" },
    [STS_BI_ROW_SUM] = { "reduce", "row_sum" },
    [STS_BI_SUM] = { "reduce", "sum_all" },
};

/* Options every built-in program is compiled with. */
static const char build_options[] = "-cl-std=CL1.2";

static const sts_embedded_file *embedded(const char *file)
{
    for (size_t i = 0; i < sts_device_kernel_files_count; i++)
        if (strcmp(sts_device_kernel_files[i].name, file) == 0) return &sts_device_kernel_files[i];
    return NULL;
}

/* Reads DIR/<file>.cl; the caller frees *text. */
static sts_status read_override(const char *dir, const char *file, char **text, size_t *len, sts_error *err)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cl", dir, file);
    FILE *f = fopen(path, "rb");
    if (!f)
        return sts_error_set(err, STS_ERR_NOT_FOUND, -1, "%s: cannot open kernel source (%s is set to '%s')", path,
                             STS_KERNELS_ENV, dir);
    char *buf = NULL;
    size_t n = 0, cap = 0;
    for (;;) {
        if (n + 4096 + 1 > cap) {
            cap = cap ? cap * 2 : 16384;
            char *nb = realloc(buf, cap);
            if (!nb) {
                free(buf);
                fclose(f);
                return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory reading it", path);
            }
            buf = nb;
        }
        size_t got = fread(buf + n, 1, 4096, f);
        n += got;
        if (got < 4096) break;
    }
    int bad = ferror(f);
    fclose(f);
    if (bad) {
        free(buf);
        return sts_error_set(err, STS_ERR_IO, -1, "%s: read error", path);
    }
    buf[n] = 0;
    *text = buf;
    *len = n;
    return STS_OK;
}

/* Inserts `prefix` before the text in buf[cap], dropping whatever no longer fits. */
static void prepend(char *buf, size_t cap, const char *prefix)
{
    size_t p = strlen(prefix), n = strlen(buf);
    if (p >= cap) p = cap - 1;
    if (p + n >= cap) n = cap - 1 - p;
    memmove(buf + p, buf, n);
    memcpy(buf, prefix, p);
    buf[p + n] = 0;
}

static sts_status build_builtin(sts_device *dev, const builtin_desc *d, sts_program **prog, sts_error *err)
{
    const char *dir = getenv(STS_KERNELS_ENV);
    char *owned = NULL;
    const char *text;
    size_t len;
    if (dir && *dir) {
        sts_status st = read_override(dir, d->file, &owned, &len, err);
        if (st != STS_OK) return st;
        text = owned;
    } else {
        const sts_embedded_file *e = embedded(d->file);
        if (!e) return sts_error_set(err, STS_ERR_INTERNAL, -1, "kernel file %s.cl was not embedded", d->file);
        text = e->text;
        len = e->len;
    }
    sts_status st = sts_program_build(dev, text, len, build_options, prog, NULL, err);
    free(owned);
    if (st == STS_ERR_BUILD && err) {
        /* Say which file failed; the compiler log follows in the message. */
        char prefix[256];
        snprintf(prefix, sizeof prefix, "%s/%s.cl: ", dir && *dir ? dir : "lib/device/kernels", d->file);
        prepend(err->message, sizeof err->message, prefix);
    }
    return st;
}

sts_status sts_device_builtin(sts_device *dev, sts_builtin which, sts_kernel **out, sts_error *err)
{
    if (dev->builtin[which]) {
        *out = dev->builtin[which];
        return STS_OK;
    }
    sts_program *prog;
    sts_status st = build_builtin(dev, &builtins[which], &prog, err);
    if (st != STS_OK) return st;
    st = sts_kernel_create(prog, builtins[which].kernel, &dev->builtin[which], err);
    if (st != STS_OK) return st;
    *out = dev->builtin[which];
    return STS_OK;
}
