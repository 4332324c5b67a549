/* stepscope/devview.h: the device view. Where each device's time went, exactly, and
 * why it sat idle: host launches linked to the device work they launched, device work
 * sorted into categories by a declared rule table, and per window (each step, or the
 * device's whole span) busy time by category as unions, compute and communication
 * overlap, idle time split by its cause, launch delays and queue length.
 *
 * Definitions (docs/device.md has them in full, and where they differ from HTA's):
 *   device      a process holding device lanes (sts_lane_is_device()): a GPU of a
 *               Kineto trace (pid = device, one lane per stream), an XSpace
 *               "/device:..." plane, a device the recorder traced. Its time is the
 *               union of its streams.
 *   device op   a slice on a device lane that the rules do not ignore (and not an
 *               instant). Its category is the first rule that matches it.
 *   launch      the host slice that launched a device op: the slice of a host lane
 *               with the same correlation id (Kineto's `correlation`, XSpace's and the
 *               recorder's `correlation_id`), else, where the timeline kept flows, the
 *               host slice a flow from it starts in. One launch may launch several ops
 *               (a graph launch).
 *   window      each step's [ts, ts + dur) on every device; without steps, each
 *               device's own span (its first op's start to its last op's end).
 *   exclusive   each busy instant goes to one category, the first of compute,
 *               communication, memcpy, memset, other that is running: the exclusive
 *               times add up to the busy time, and busy plus idle is the window.
 *   exposed communication  communication running while no compute runs (the
 *               communication's exclusive time).
 *   idle        an instant of the window in which no op of the device runs:
 *               kernel_wait when an op was launched and had not started (the queue
 *               is not empty); else host_wait when the next op to start on the device
 *               was launched later (the host had not launched it yet); else other (the
 *               next op's launch is unknown, or no op follows).
 *   queue       at an instant, the ops launched and not yet started (HTA's queue
 *               length, per device): its time-weighted mean over the window, and max.
 *   delay       device start minus launch start, over the linked ops that start in the
 *               window: median (as analyze.h), p90 (the smallest value at least 90% of
 *               them do not exceed: v[ceil(0.9 n) - 1]) and max.
 * What the trace cannot tell is marked unknown (the STS_DEVVIEW_KNOWN_* flags; JSON
 * null), never 0: with no linked op on a device, its idle split and queue are unknown;
 * with no linked op in a window, its delays are. */
#ifndef STEPSCOPE_DEVVIEW_H
#define STEPSCOPE_DEVVIEW_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/analyze.h"
#include "stepscope/json.h"
#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- device lanes and collective names ------------------------------------------- */

/* 1 for a lane that runs device work: lane kind STS_LANE_DEVICE (XPlane device planes),
 * a process named "/device:..." (JAX's JSON), or a thread named "stream N" (PyTorch's
 * Kineto GPU streams). */
int sts_lane_is_device(const sts_timeline *tl, uint32_t lane);

/* The collective a slice name says it is, as a static string: "all-reduce",
 * "all-gather", "reduce-scatter", "all-to-all", "collective-permute", "broadcast",
 * "reduce", "send-recv" (XLA op names such as "all-reduce.3", "all-gather-start";
 * NCCL/RCCL kernels such as "ncclDevKernel_AllReduce_Sum_f32_RING_LL"), or NULL for a
 * name that says no collective. */
const char *sts_collective_kind(const char *name);

/* ---- categories and the rule table ---------------------------------------------- */

/* In the order that decides exclusive time: an instant where several run goes to the
 * first. */
typedef enum sts_devview_category {
    STS_DV_COMPUTE = 0,
    STS_DV_COMMUNICATION,
    STS_DV_MEMCPY,
    STS_DV_MEMSET,
    STS_DV_OTHER,
    STS_DV_CATEGORIES
} sts_devview_category;

/* A memcpy's direction. */
typedef enum sts_devview_direction {
    STS_DV_HTOD = 0,  /* host to device */
    STS_DV_DTOH,      /* device to host */
    STS_DV_DTOD,      /* device to device (and peer to peer) */
    STS_DV_DIR_OTHER, /* host to host, or unknown */
    STS_DV_DIRECTIONS
} sts_devview_direction;

/* "compute", "communication", "memcpy", "memset", "other"; "htod", "dtoh", "dtod",
 * "other". Static strings; NULL out of range. */
const char *sts_devview_category_name(sts_devview_category c);
const char *sts_devview_direction_name(sts_devview_direction d);

/* A rule table: lines of `CATEGORY FIELD TEST [VALUE] [and FIELD TEST [VALUE]]...`,
 * the first rule whose every condition holds deciding an op's category (docs/device.md
 * gives the grammar and the built-in table). CATEGORY is compute, communication,
 * memcpy (direction from the name), memcpy.htod, memcpy.dtoh, memcpy.dtod,
 * memcpy.other, memset, other or ignore (not device work: annotations, syncs). An op
 * no rule matches is `other`. */
typedef struct sts_devview_rules sts_devview_rules;

/* The built-in table, as text (static). */
const char *sts_devview_rules_builtin_text(void);

/* Parses a table from text[0..len) (`name` stands for it in messages). On success *out
 * is a new table (free with sts_devview_rules_free()); a line that does not parse is
 * STS_ERR_PARSE naming `name`, the line number and what was expected there. */
sts_status sts_devview_rules_parse(const char *text, size_t len, const char *name, sts_devview_rules **out,
                                   sts_error *err);

/* Reads and parses the file at `path` (errors name it; one that cannot be read is
 * STS_ERR_IO). */
sts_status sts_devview_rules_load(const char *path, sts_devview_rules **out, sts_error *err);

/* Frees a table; NULL is a no-op. */
void sts_devview_rules_free(sts_devview_rules *r);

/* The table's rules: their count, and rule i's line as written (comment and spacing
 * dropped), its line number and category (STS_DV_CATEGORIES for ignore). Owned by the
 * table. */
size_t sts_devview_rules_count(const sts_devview_rules *r);
const char *sts_devview_rule_text(const sts_devview_rules *r, size_t i);
uint32_t sts_devview_rule_line(const sts_devview_rules *r, size_t i);
int sts_devview_rule_category(const sts_devview_rules *r, size_t i);

/* The arg keys the table's conditions read (arg:KEY), so a caller can keep them when
 * it opens the trace (sts_args_mode_keeps() tells whether a mode does). Owned by the
 * table; *n of them. */
const char *const *sts_devview_rules_arg_keys(const sts_devview_rules *r, size_t *n);

/* ---- the computation ---------------------------------------------------------------- */

typedef struct sts_devview_options {
    const sts_devview_rules *rules; /* NULL: the built-in table */
    const sts_steps *steps;         /* NULL (or no steps): one window per device, its span */
} sts_devview_options;
/* clang-format off */
#define STS_DEVVIEW_OPTIONS_INIT { NULL, NULL }
/* clang-format on */

typedef struct sts_devview sts_devview;

typedef struct sts_devview_device {
    uint32_t process;         /* index into sts_timeline_processes() */
    uint32_t lanes;           /* its device lanes holding ops (streams) */
    uint64_t ops;             /* device ops */
    uint64_t matched;         /* ops whose launch is known */
    int64_t start_ns, end_ns; /* first op start, last op end */
    int kineto;               /* its lanes are Kineto's "stream N" threads: pid N is GPU N */
} sts_devview_device;

/* A device's name for people, into buf[0..n) (cut to fit; returns buf): "GPU N" for a
 * Kineto device (pid N, as Kineto numbers them; its process name is the host
 * program's), else its process name ("/device:GPU:0"), else "pid N". */
const char *sts_devview_device_label(const sts_timeline *tl, const sts_devview *v, uint32_t d, char *buf, size_t n);

/* Which of a window's numbers the trace can tell. */
#define STS_DEVVIEW_KNOWN_IDLE_SPLIT 0x1u /* host_wait_ns, kernel_wait_ns (the device has linked ops) */
#define STS_DEVVIEW_KNOWN_QUEUE      0x2u /* queue_mean, queue_max (the same condition) */
#define STS_DEVVIEW_KNOWN_DELAY      0x4u /* delay_*_ns (linked ops start in the window) */

/* One device in one window. Invariants, exact: sum of exclusive_ns + idle_ns ==
 * window_ns; busy_ns == sum of exclusive_ns; every union_ns <= busy_ns <= window_ns;
 * overlap + exposed == union of communication; host_wait + kernel_wait + other_idle ==
 * idle where the split is known (else other_idle == idle). */
typedef struct sts_devview_window {
    uint32_t device; /* index into sts_devview_devices() */
    uint32_t step;   /* index into sts_steps_list(); STS_NONE for a device's span */
    uint32_t known;  /* STS_DEVVIEW_KNOWN_* */
    uint32_t unused;
    int64_t start_ns, window_ns;
    int64_t busy_ns; /* union of every op */
    int64_t union_ns[STS_DV_CATEGORIES];
    int64_t exclusive_ns[STS_DV_CATEGORIES];
    int64_t memcpy_ns[STS_DV_DIRECTIONS]; /* union of the memcpys of each direction */
    int64_t overlap_ns;                   /* compute and communication both running */
    int64_t exposed_ns;                   /* communication with no compute running */
    int64_t idle_ns, host_wait_ns, kernel_wait_ns, other_idle_ns;
    uint64_t matched, unmatched; /* ops starting in the window, launch known or not */
    int64_t delay_median_ns, delay_p90_ns, delay_max_ns;
    double queue_mean;
    int64_t queue_max;
} sts_devview_window;

/* One device op and its launch: the pair a critical-path analysis follows. */
typedef struct sts_devview_launch {
    uint32_t device_slice; /* the op, an index into sts_timeline_slices() */
    uint32_t host_slice;   /* the launch; STS_NONE when unknown */
    uint32_t device;       /* index into sts_devview_devices() */
    uint8_t category;      /* sts_devview_category */
    uint8_t direction;     /* sts_devview_direction (memcpy ops) */
    uint8_t by_flow;       /* linked by a flow, not a correlation arg */
    uint8_t unused;
    int64_t delay_ns; /* device start - launch start; 0 when the launch is unknown */
} sts_devview_launch;

/* How the launches were linked, over the whole trace. */
typedef struct sts_devview_links {
    uint64_t ops;              /* device ops */
    uint64_t matched;          /* ops linked to a launch */
    uint64_t by_flow;          /* of those, linked by a flow */
    uint64_t no_correlation;   /* ops with no correlation id (and no flow) */
    uint64_t dangling;         /* ops whose correlation id no host slice holds */
    uint64_t launches;         /* host slices that launched at least one op */
    uint64_t launch_calls;     /* host launch calls (cudaLaunchKernel, hipMemcpyAsync, ...) seen */
    uint64_t orphan_calls;     /* launch calls that launched no op of the trace */
    uint64_t duplicate_ids;    /* host slices sharing a correlation id with an earlier one */
    uint64_t ignored;          /* device-lane slices the rules ignored */
    int64_t first_dangling_id; /* an example for messages; -1 when none */
} sts_devview_links;

/* Computes the device view of `tl` (see the definitions above) in one pass over the
 * device lanes and the host slices carrying correlation ids. With options->steps, one
 * window per step and device (devices in process display order); else one per device.
 * Correlation ids are read from the args the timeline kept (STS_ARGS_ANALYSIS keeps
 * them). On success *out is a new handle (free with sts_devview_free()). */
sts_status sts_devview_compute(const sts_timeline *tl, const sts_devview_options *options, sts_devview **out,
                               sts_error *err);

/* Frees the handle; NULL is a no-op. */
void sts_devview_free(sts_devview *v);

/* The devices, in process display order; owned by the handle. */
const sts_devview_device *sts_devview_devices(const sts_devview *v, size_t *n);
/* The windows: with steps, step-major (step k's devices are [k * ndevices, (k + 1) *
 * ndevices)); else one per device (sts_devview_span_windows()). Owned by the handle. */
const sts_devview_window *sts_devview_windows(const sts_devview *v, size_t *n);
/* Each device's span window (its first op's start to its last op's end), with or
 * without steps: the whole trace's numbers. One per device; owned by the handle. */
const sts_devview_window *sts_devview_span_windows(const sts_devview *v, size_t *n);
/* Step k's windows (NULL when k is out of range or there are no steps), *n of them. */
const sts_devview_window *sts_devview_step_windows(const sts_devview *v, size_t k, size_t *n);
/* Every device op with its launch, by device, then start time. Owned by the handle. */
const sts_devview_launch *sts_devview_launches(const sts_devview *v, size_t *n);
/* Host launch calls that launched no op of the trace, as slice indices. */
const uint32_t *sts_devview_orphan_calls(const sts_devview *v, size_t *n);
const sts_devview_links *sts_devview_get_links(const sts_devview *v);
/* The rule table used and how many ops each rule decided (hits[i] for rule i; the
 * last entry, index sts_devview_rules_count(), counts ops no rule matched). */
const sts_devview_rules *sts_devview_rules_used(const sts_devview *v);
const uint64_t *sts_devview_rule_hits(const sts_devview *v, size_t *n);
/* Warnings, one sentence each: a category no op matched while op names look like it
 * ("0 device ops matched communication; 1,024 names contain nccl"), ops with no
 * correlation id, correlation ids that point nowhere. Owned by the handle. */
const char *const *sts_devview_warnings(const sts_devview *v, size_t *n);
/* Whether the view has step windows. */
int sts_devview_has_steps(const sts_devview *v);

/* ---- JSON ------------------------------------------------------------------------------
 * Written through a caller's sts_jsonw, for the CLI and the Python binding alike
 * (schemas in docs/json-schemas.md). None finishes the writer. */

/* Writes windows[0..n) as an array: {"device", "pid", "window_ns", "busy_ns",
 * "by_category", "overlap", "idle", "launches", "queue"}. */
void sts_devview_write_windows_json(sts_jsonw *w, const sts_timeline *tl, const sts_devview *v,
                                    const sts_devview_window *windows, size_t n);

/* Writes one window as one object of sts_devview_write_windows_json()'s array, its
 * device named by the caller (sts_devview_device_label(), the process's label and name):
 * the same bytes, for a window kept apart from its view (a host set's record). */
void sts_devview_write_window_named_json(sts_jsonw *w, const char *device, const char *pid, const char *process,
                                         const sts_devview_window *x);

/* Writes the view's summary as one object: the devices, the links, the rules with
 * their hits, the warnings, and each device's span window ("windows"). */
void sts_devview_write_json(sts_jsonw *w, const sts_timeline *tl, const sts_devview *v);

/* `analyze --json --device`'s document: sts_analysis_write_json()'s with a top-level
 * "device" object (sts_devview_write_json()) after the rest; `v` NULL writes
 * sts_analysis_write_json()'s bytes. `v` must have been computed over the timeline `a`
 * analyzed. */
sts_status sts_analysis_write_json_device(sts_jsonw *w, const sts_analysis *a, size_t top, size_t overlaps,
                                          const sts_devview *v, sts_error *err);

/* `steps --json --device`'s document: sts_steps_write_json()'s, each step with its
 * "devices" (sts_devview_write_windows_json()), and a top-level "device" object
 * (sts_devview_write_json()). `v` must have been computed with options.steps = s. */
sts_status sts_steps_write_json_device(sts_jsonw *w, const sts_timeline *tl, const sts_steps *s, int xprof_view,
                                       const sts_devview *v, sts_error *err);

#ifdef __cplusplus
}
#endif
#endif
