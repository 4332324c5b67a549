/* stepscope/memory.h: device memory over time, from the allocation events a trace holds:
 * how many bytes each device had in use, its peak overall and per step, what was live at
 * each peak (grouped by the slice that allocated it), the allocations and frees of each
 * step, and the bytes still in use at each step's end, with a leak suspicion when they
 * keep growing.
 *
 * What is read (the keys are kept at read time with STS_ARGS_WITH_MEMORY):
 *   - Kineto's `[memory]` instants (PyTorch's profile_memory=True): "Bytes" (> 0 an
 *     allocation, < 0 a free), "Addr", "Total Allocated" (bytes in use after the
 *     event), "Device Type" and "Device Id" (c10's numbering: 0 cpu, 1 cuda, ...);
 *   - XSpace's MemoryAllocation / MemoryDeallocation events: "allocation_bytes",
 *     "addr", "bytes_allocated" (in use after the event), "allocator_name" (the
 *     device, "GPU_0_bfc"), "tf_op" (the op that asked, when set);
 *   - counters whose name or series says memory ("memory", "allocated", "bytes in use",
 *     "bytes_in_use", "hbm", any case): bytes in use over time, nothing else.
 *
 * The bytes in use are the trace's own totals, never a sum of our own: a free of memory
 * allocated before the capture began is counted (unmatched_frees) and changes nothing,
 * and what the capture never saw allocated shows as `untracked` bytes at a peak. What
 * the input cannot tell is -1 here (null in JSON, "unknown" in text): a device whose
 * events carry no totals has no peak, a device without addresses no live allocations.
 *
 * Each allocation is attributed to the slice that made it: the innermost slice of its
 * lane that holds the event (Kineto's [memory] instants sit inside the aten op that
 * allocated; XSpace's inside the executable's slice), or the event's own tf_op when it
 * names one; `within` is the outermost slice holding it other than a step. */
#ifndef STEPSCOPE_MEMORY_H
#define STEPSCOPE_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/analyze.h"
#include "stepscope/json.h"
#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct sts_memory sts_memory;

typedef struct sts_memory_options {
    const sts_steps *steps; /* per-step numbers for these steps (found on the same timeline); NULL: none */
    size_t top;             /* groups of live allocations kept per peak, the most bytes first; 0: all */
} sts_memory_options;
/* clang-format off */
#define STS_MEMORY_OPTIONS_INIT { NULL, 10 }
/* clang-format on */

/* Live allocations of one name at a moment (a peak, or a leak's last step end). */
typedef struct sts_memory_live {
    const char *name;   /* the slice that allocated them (or the event's tf_op); owned by the timeline */
    const char *within; /* the outermost slice holding that one other than a step; NULL when none */
    int64_t bytes;
    uint64_t count;
} sts_memory_live;

/* A device's bytes in use after one of its events (or one counter sample). */
typedef struct sts_memory_point {
    int64_t ts_ns;
    int64_t bytes;
} sts_memory_point;

typedef struct sts_memory_device {
    const char *name;   /* "cuda:0", "cpu", "GPU_0_bfc", a counter's "NAME SERIES"; owned by the handle */
    const char *source; /* "kineto", "xspace" or "counter" (static) */
    int has_totals;     /* the trace says the bytes in use (else peaks and ends are unknown) */
    int has_addrs;      /* allocations and frees name addresses (else live allocations are unknown) */
    int has_events;     /* allocation events (a counter has none: counts below are unknown) */
    uint64_t events;    /* events (or counter samples) read */
    uint64_t allocations, frees;
    int64_t allocated_bytes, freed_bytes;
    int64_t start_bytes;               /* in use before the first event; -1 unknown */
    int64_t end_bytes;                 /* in use after the last; -1 unknown */
    int64_t peak_bytes;                /* the most in use; -1 unknown */
    int64_t peak_ts_ns;                /* when first reached */
    uint32_t first_live, live_count;   /* live at the peak, in sts_memory_lives(), the most bytes first */
    int64_t untracked_bytes;           /* in use at the peak but allocated before the capture; -1 unknown */
    uint32_t first_point, point_count; /* in sts_memory_points(), in time order */
    /* Bad or partial input, counted (and warned once per device): */
    uint64_t unmatched_frees;     /* frees of an address the capture never saw allocated */
    uint64_t reused_addrs;        /* allocations of an address still live (a free is missing) */
    uint64_t bad_totals;          /* totals negative or not a number: that point left out */
    uint64_t inconsistent_totals; /* a total that moved by other than the event's bytes (events missing) */
    uint64_t bad_events;          /* events without their size: skipped */
    /* Bytes in use at each step's end, growing across steps (see sts_memory_options.steps):
     * a suspicion, never a proof. leak_suspect when there are 3 or more steps whose end is
     * known, the last ends above the first, no step ends below the first, and at least
     * two thirds of the step-to-step changes grew. */
    int leak_suspect;
    uint32_t leak_steps, leak_grew;          /* steps compared; changes that grew (of leak_steps - 1) */
    int64_t leak_first_step, leak_last_step; /* their step numbers */
    int64_t leak_growth_bytes;               /* end of the last step minus end of the first */
    uint32_t first_kept,
        kept_count;     /* allocated in an earlier step, live at the last step's end (sts_memory_lives()) */
    int64_t kept_bytes; /* their sum; -1 unknown (no addresses) */
} sts_memory_device;

/* One step on one device. Unknown values are -1. */
typedef struct sts_memory_step {
    uint32_t step;                  /* index into sts_steps_list() */
    uint32_t device;                /* index into sts_memory_devices() */
    int64_t start_bytes, end_bytes; /* in use when the step begins and ends */
    int64_t peak_bytes, peak_ts_ns; /* the most in use during [ts, ts + dur) (the start included) */
    uint64_t allocations, frees;    /* events inside the window */
    int64_t allocated_bytes, freed_bytes;
    uint32_t first_live, live_count; /* live at the step's peak, in sts_memory_lives() */
    int64_t untracked_bytes;         /* as for the device */
} sts_memory_step;

/* Finds the devices' memory in `tl` (read with STS_ARGS_WITH_MEMORY, or ALL, so the keys
 * above are kept). A trace without memory events has no devices (not an error). On
 * success *out is a new handle (free with sts_memory_free()). */
sts_status sts_memory_find(const sts_timeline *tl, const sts_memory_options *opt, sts_memory **out, sts_error *err);

/* Frees the handle; NULL is a no-op. */
void sts_memory_free(sts_memory *m);

/* The devices, ordered by name; owned by the handle. */
const sts_memory_device *sts_memory_devices(const sts_memory *m, size_t *n);
const sts_memory_point *sts_memory_points(const sts_memory *m, size_t *n);
const sts_memory_live *sts_memory_lives(const sts_memory *m, size_t *n);
/* Per step and device: step-major, entry k * devices + d for step k (empty without steps). */
const sts_memory_step *sts_memory_steps(const sts_memory *m, size_t *n);
/* One sentence per device with bad or partial input, naming what was counted. */
const char *const *sts_memory_warnings(const sts_memory *m, size_t *n);

/* The step-major entries of step k (an index into sts_steps_list()): *n = the devices. */
const sts_memory_step *sts_memory_step_entries(const sts_memory *m, size_t k, size_t *n);

/* Writes the devices as one JSON array (`analyze --memory`, docs/json-schemas.md). */
void sts_memory_write_json(sts_jsonw *w, const sts_memory *m);

/* Writes step k's entries as one JSON array: [{"device", "peak_bytes", "peak_ts_ns",
 * "live_at_peak": [{"name", "within", "bytes", "count"}], "untracked_bytes",
 * "allocations", "allocated_bytes", "frees", "freed_bytes", "start_bytes", "end_bytes"}]. */
void sts_memory_write_step_json(sts_jsonw *w, const sts_memory *m, size_t k);

/* Writes one device of that array from its parts (how a host set's records write the
 * same bytes): the device, the points its first_point and point_count index, and the
 * live allocations its first_live and first_kept index. */
void sts_memory_write_device_json(sts_jsonw *w, const sts_memory_device *d, const sts_memory_point *points, size_t np,
                                  const sts_memory_live *lives, size_t nlives);

/* Writes one entry of a step's array, from its parts (how a host set's records, which
 * keep the entries without the handle, write the same bytes): the device's name and
 * whether it has allocation events and addresses, the entry, and the live allocations
 * its first_live and live_count index (lives[0..nlives)). */
void sts_memory_write_entry_json(sts_jsonw *w, const char *device, int has_events, int has_addrs,
                                 const sts_memory_step *e, const sts_memory_live *lives, size_t nlives);

/* Writes the memory document of `steps --memory --json` and `analyze --memory --json`
 * (docs/memory.md, docs/json-schemas.md): {"trace", "devices": [device...], "steps":
 * [{"step", "ts_ns", "dur_ns", "memory": [entry...]}] (null when s is NULL), "warnings"}.
 * `m` was found with s as its options' steps (or without steps when s is NULL). */
sts_status sts_memory_write_document(sts_jsonw *w, const sts_timeline *tl, const sts_memory *m, const sts_steps *s);

#ifdef __cplusplus
}
#endif
#endif
