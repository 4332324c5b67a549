/* device: the built-in kernels. Every .cl file in lib/device/kernels (embedded at build
 * time) goes into one OpenCL program, built on first use through the program cache:
 * with PoCL each program build costs a compiler run and a link of its kernel library,
 * so one build serves every operation. `#line` markers keep the compiler's messages
 * pointing at the right file and line. $STEPSCOPE_KERNELS=DIR replaces a file by
 * DIR/<file>.cl when that exists. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/sbuf.h"
#include "device/device_impl.h"
#include "device/embedded.h"

#define STR2(x) #x
#define STR(x)  STR2(x)

static const char *const kernel_names[STS_BI_COUNT] = {
    [STS_BI_MATMUL_TILED] = "matmul_tiled",
    [STS_BI_MATMUL_BLOCK] = "matmul_block",
    [STS_BI_MATMUL_EDGE] = "matmul_edge",
    [STS_BI_TANH] = "ew_tanh",
    [STS_BI_SQUARE] = "ew_square",
    [STS_BI_SCALE] = "ew_scale",
    [STS_BI_ROW_SUM] = "row_sum",
    [STS_BI_SUM] = "sum_all",
    [STS_BI_MM_TANH_SMALL] = "mm_tanh_small",
    [STS_BI_MM_SQSUM_SMALL] = "mm_sqsum_small",
};

/* The matmul block height is the host's, so launch sizes and kernel agree. */
static const char build_options[] = "-cl-std=CL1.2 -DBLOCK_ROWS=" STR(STS_MATMUL_BLOCK_ROWS);

/* 0, or -1 once memory ran out (the buffer drops every later append). */
static int append(sts_sbuf *t, const char *s, size_t n)
{
    sts_sbuf_put(t, s, n);
    return t->oom ? -1 : 0;
}

/* Appends DIR/<name>.cl when it exists; returns 1 if it did, 0 if there is no such
 * file, -1 on a read or memory error. */
static int append_override(sts_sbuf *t, const char *dir, const char *name)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.cl", dir, name);
    FILE *f = fopen(path, "rb");
    if (!f) return 0;
    char head[4200];
    int n = snprintf(head, sizeof head, "#line 1 \"%s\"\n", path);
    int rc = append(t, head, (size_t)n) == 0 ? 1 : -1;
    char buf[8192];
    size_t got;
    while (rc == 1 && (got = fread(buf, 1, sizeof buf, f)) > 0)
        if (append(t, buf, got) != 0) rc = -1;
    if (ferror(f)) rc = -1;
    fclose(f);
    return rc;
}

/* The combined source of every kernel file. */
static sts_status combined_source(sts_sbuf *t, sts_error *err)
{
    const char *dir = getenv(STS_KERNELS_ENV);
    for (size_t i = 0; i < sts_device_kernel_files_count; i++) {
        const sts_embedded_file *e = &sts_device_kernel_files[i];
        int got = dir && *dir ? append_override(t, dir, e->name) : 0;
        if (got < 0) return sts_error_set(err, STS_ERR_IO, -1, "%s/%s.cl: cannot read it", dir, e->name);
        if (got == 0) {
            char head[256];
            int n = snprintf(head, sizeof head, "#line 1 \"lib/device/kernels/%s.cl\"\n", e->name);
            if (append(t, head, (size_t)n) != 0 || append(t, e->text, e->len) != 0)
                return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory for the kernel source");
        }
        if (append(t, "\n", 1) != 0) return sts_error_set(err, STS_ERR_NOMEM, -1, "out of memory");
    }
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

static sts_status build_builtins(sts_device *dev, sts_program **prog, sts_error *err)
{
    sts_sbuf t = STS_SBUF_INIT;
    sts_status st = combined_source(&t, err);
    if (st == STS_OK) st = sts_program_build(dev, t.p, t.n, build_options, prog, NULL, err);
    sts_sbuf_release(&t);
    if (st == STS_ERR_BUILD && err) {
        const char *dir = getenv(STS_KERNELS_ENV);
        char prefix[512];
        snprintf(prefix, sizeof prefix,
                 "built-in kernels (lib/device/kernels%s%s): ", dir && *dir ? ", overridden from " : "",
                 dir && *dir ? dir : "");
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
    sts_status st = build_builtins(dev, &prog, err);
    if (st != STS_OK) return st;
    st = sts_kernel_create(prog, kernel_names[which], &dev->builtin[which], err);
    if (st != STS_OK) return st;
    *out = dev->builtin[which];
    return STS_OK;
}
