/* trace: turning the recorder's buffers into a timeline at stop (build.c), with the
 * device part supplied by device.c. */
#ifndef STS_TRACE_BUILD_H
#define STS_TRACE_BUILD_H

#include "model/timeline_builder.h"
#include "trace/recorder_impl.h"

typedef struct sts_build {
    sts_timeline *tl;
    const sts_tclock *clock;
    sts_u64map names;                     /* name pointer -> string id */
    STS_VEC(const sts_rec_arg *) pending; /* args waiting for their scope's record */
    STS_VEC(sts_arg) argv;
    uint32_t host_process;
    int64_t start_ns, stop_ns;
    sts_trace_stats *stats;
    int nomem;
    int devices_done;
} sts_build;

/* String id for a name pointer (cached by address); "" for NULL. */
uint32_t sts_build_name(sts_build *b, const char *name);

/* String id for text (not cached). */
uint32_t sts_build_text(sts_build *b, const char *s);

/* Appends a slice; returns its index or STS_NONE (out of memory: b->nomem set). */
uint32_t sts_build_slice(sts_build *b, uint32_t lane, int64_t ts, int64_t dur, uint32_t name, uint16_t depth,
                         uint32_t args);

/* The device part of a build, installed by device.c when a device is traced, so
 * the host recorder links without the device layer. `finish` runs once after the
 * host threads (b->tl is NULL when the build failed: then it only releases what it
 * holds): device lanes, dispatch slices, flows, calibration figures. */
typedef struct sts_build_devices {
    void (*finish)(sts_build *b);
} sts_build_devices;

extern sts_build_devices sts_build_dev;

/* sts_trace_stop_timeline() without its last step (sts_crash_finish), for stop, which
 * writes the files first. */
sts_status sts_rec_stop(sts_timeline **out, sts_trace_stats *stats, sts_error *err);

#endif
