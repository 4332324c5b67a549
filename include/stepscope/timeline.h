/* stepscope/timeline.h: a trace loaded into memory as lanes, slices and the other
 * event kinds, following the interval model in docs/ARCHITECTURE.md.
 *
 * Time is int64_t nanoseconds on the trace's own clock. Strings are interned: every
 * `name`, `cat`, label or key field is a string id, turned into text with
 * sts_timeline_string(). All returned pointers are owned by the timeline and stay
 * valid until sts_timeline_free(). */
#ifndef STEPSCOPE_TIMELINE_H
#define STEPSCOPE_TIMELINE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "stepscope/status.h"

#ifdef __cplusplus
extern "C" {
#endif

#define STS_NONE UINT32_MAX

typedef struct sts_timeline sts_timeline;

/* Which event arguments to keep. KNOWN keeps the keys the analyzer uses (step_num,
 * group_id, correlation ids and the like: see sts_arg_key_is_known()). */
typedef enum sts_args_mode { STS_ARGS_KNOWN = 0, STS_ARGS_NONE, STS_ARGS_ALL } sts_args_mode;

typedef void (*sts_progress_fn)(uint64_t done_bytes, uint64_t total_bytes, void *user);

typedef struct sts_open_options {
    sts_args_mode args;
    const char *run;          /* profile directory: the run to read; NULL = the latest */
    sts_progress_fn progress; /* optional; called every few MB while reading */
    void *progress_user;
} sts_open_options;
/* clang-format off */
#define STS_OPEN_OPTIONS_INIT { STS_ARGS_KNOWN, NULL, NULL, NULL }
/* clang-format on */

/* Slice flags. */
#define STS_SLICE_FROM_BE  0x01u /* made from a matched B/E pair */
#define STS_SLICE_UNCLOSED 0x02u /* a B with no E: dur runs to the end of its lane's data */
#define STS_SLICE_CLAMPED  0x04u /* overran its parent by <= resolution; end clamped to parent's */
#define STS_SLICE_OVERLAP                                               \
    0x08u /* overran the enclosing slice by more: not its child but its \
           * sibling, under the innermost slice holding it whole */

/* One complete interval on a lane. After loading, slices are ordered by lane, then
 * ts, then depth (Perfetto's slice table order), so each lane's slices are
 * contiguous and a parent precedes its children. */
typedef struct sts_slice {
    int64_t ts;      /* start, ns */
    int64_t dur;     /* duration, ns (after clamping) */
    uint32_t name;   /* string id */
    uint32_t lane;   /* index into sts_timeline_lanes() */
    uint32_t parent; /* slice index, or STS_NONE for a root */
    uint32_t args;   /* index of the first arg in sts_timeline_args(), or STS_NONE */
    uint32_t cat;    /* string id of the category; 0 when absent */
    uint16_t depth;  /* 0 for roots; saturates at 65535 */
    uint16_t flags;  /* STS_SLICE_* */
} sts_slice;

typedef enum sts_arg_type {
    STS_ARG_INT = 0,
    STS_ARG_DOUBLE,
    STS_ARG_STRING, /* v.str is a string id */
    STS_ARG_JSON,   /* v.str is a string id holding the raw JSON of an object or array */
    STS_ARG_BOOL,
    STS_ARG_NULL
} sts_arg_type;

/* An event's args are consecutive entries; the last one has `last` set. */
typedef struct sts_arg {
    uint32_t key; /* string id */
    uint8_t type; /* sts_arg_type */
    uint8_t last;
    uint16_t reserved;
    union {
        int64_t i;
        double d;
        uint32_t str;
    } v;
} sts_arg;

typedef struct sts_process {
    uint32_t label;     /* string id of the pid as written ("4037", "CPU functions") */
    int64_t pid;        /* numeric pid; for a non-numeric label, a number derived from it */
    uint32_t name;      /* process_name metadata, 0 when absent */
    int32_t sort_index; /* process_sort_index metadata, 0 when absent */
} sts_process;

typedef enum sts_lane_kind { STS_LANE_THREAD = 0, STS_LANE_DEVICE } sts_lane_kind;

typedef struct sts_lane {
    uint32_t process;                  /* index into sts_timeline_processes() */
    uint32_t label;                    /* string id of the tid as written */
    int64_t tid;                       /* numeric tid (a missing or zero tid with a non-zero pid = pid) */
    uint32_t name;                     /* thread_name metadata or XPlane line name, 0 when absent */
    int32_t sort_index;                /* thread_sort_index metadata */
    uint32_t kind;                     /* sts_lane_kind */
    uint32_t first_slice, slice_count; /* this lane's slices, contiguous */
} sts_lane;

typedef struct sts_instant {
    int64_t ts;
    uint32_t name, cat, lane, args;
    char scope; /* 't' thread, 'p' process, 'g' global */
} sts_instant;

typedef struct sts_counter {
    int64_t ts;
    double value;
    uint32_t name;   /* counter name */
    uint32_t series; /* the arg key holding this value */
    uint32_t lane;   /* lane of the emitting thread */
} sts_counter;

/* Async (b/e/n, S/T/F) and flow (s/t/f) events are kept apart from thread nesting. */
typedef struct sts_async {
    int64_t ts;
    uint32_t name, cat, id, lane, args; /* id: string id of the event's id text */
    char phase;
} sts_async;

typedef struct sts_flow {
    int64_t ts;
    uint32_t name, cat, id, lane;
    char phase;          /* 's', 't' or 'f' */
    char bind_enclosing; /* "bp":"e" */
} sts_flow;

/* An overlap: a slice that overran its would-be parent by more than the resolution. */
typedef struct sts_overlap {
    uint32_t slice;  /* the overrunning slice */
    uint32_t parent; /* the slice it started inside */
    int64_t overrun_ns;
} sts_overlap;

/* Facts about the trace and how it was read. */
typedef struct sts_timeline_info {
    const char *path;
    const char *format;            /* "chrome-json", "xplane" */
    uint64_t bytes;                /* uncompressed input bytes */
    int compressed;                /* gzip input */
    int truncated;                 /* input ended early; the complete events were imported */
    uint64_t events;               /* events read */
    uint64_t by_phase[128];        /* events by phase character */
    uint64_t skipped;              /* events of unknown phases, counted and skipped */
    uint64_t rejected;             /* events refused (negative dur, missing ts, ...) with a warning */
    uint64_t clamped;              /* children clamped to their parent's end */
    uint64_t overlaps;             /* overruns beyond the resolution (see STS_SLICE_OVERLAP) */
    uint64_t unmatched_end;        /* E events with no open B */
    uint64_t unclosed_begin;       /* B events with no E */
    int64_t resolution_ns;         /* 1000 if every ts/dur was a whole microsecond, else 1 */
    int64_t ts_min, ts_max;        /* span of slices and instants; 0, 0 when empty */
    const char *display_time_unit; /* "ms", "ns" or NULL */
    /* Read from a profile directory (sts_timeline_open() on a folder): */
    const char *run;    /* the run read (its folder's name); NULL when a file was named */
    uint32_t runs;      /* runs in the profile directory; 0 when a run folder was named */
    int run_latest;     /* the run was taken as the latest, not chosen with `run` */
    uint32_t run_hosts; /* .xplane.pb files (one per host) in the run; one was read */
    const char *host;   /* the host the trace names itself (XSpace hostnames); NULL when none */
} sts_timeline_info;

/* Reads a trace: Chrome JSON (.json, .json.gz, any name: gzip is detected by content),
 * an XSpace .xplane.pb, or a JAX profile directory at any level (the folder holding
 * plugins/, plugins/profile, a run folder: the latest run is read unless opt->run names
 * one). The path is opened once and the format is told from its first bytes, so "-"
 * (standard input), /dev/stdin, FIFOs and process substitution work for every format.
 * Nests slices per the interval model. On success *out holds a new timeline (free with
 * sts_timeline_free()); warnings (a truncated file imported in part, rejected events)
 * are kept, see sts_timeline_warnings(). On failure *out is NULL and err names the file,
 * position and what was expected; input that is no trace is named ("not a trace: looks
 * like a zip archive"). Memory follows what the trace holds, not the input's size. */
sts_status sts_timeline_open(const char *path, const sts_open_options *opt, sts_timeline **out, sts_error *err);

/* The same from a FILE already open (read from where it stands, left open; the caller
 * closes it); `name` stands for it in messages and info.path. opt->run must be NULL. */
sts_status sts_timeline_open_file(FILE *f, const char *name, const sts_open_options *opt, sts_timeline **out,
                                  sts_error *err);

/* The same from `len` bytes in memory (gzip inflated when they start with its magic);
 * the bytes are only read during the call. */
sts_status sts_timeline_open_mem(const void *data, size_t len, const char *name, const sts_open_options *opt,
                                 sts_timeline **out, sts_error *err);

/* Frees a timeline and everything it owns; NULL is a no-op. */
void sts_timeline_free(sts_timeline *tl);

const sts_timeline_info *sts_timeline_get_info(const sts_timeline *tl);
const char *sts_timeline_string(const sts_timeline *tl, uint32_t id);
/* Looks up an interned string; STS_NONE when the trace never uses it. */
uint32_t sts_timeline_find_string(const sts_timeline *tl, const char *s);

const sts_process *sts_timeline_processes(const sts_timeline *tl, size_t *n);
const sts_lane *sts_timeline_lanes(const sts_timeline *tl, size_t *n);
const sts_slice *sts_timeline_slices(const sts_timeline *tl, size_t *n);
const sts_arg *sts_timeline_args(const sts_timeline *tl, size_t *n);
const sts_instant *sts_timeline_instants(const sts_timeline *tl, size_t *n);
const sts_counter *sts_timeline_counters(const sts_timeline *tl, size_t *n);
const sts_async *sts_timeline_asyncs(const sts_timeline *tl, size_t *n);
const sts_flow *sts_timeline_flows(const sts_timeline *tl, size_t *n);
const sts_overlap *sts_timeline_overlaps(const sts_timeline *tl, size_t *n);

/* Warning messages, in order; at most the first 100 are kept, *total counts all. */
const char *const *sts_timeline_warnings(const sts_timeline *tl, size_t *n, uint64_t *total);

/* Finds arg `key` of the event whose first arg is `args` (STS_NONE accepted: not
 * found). Returns NULL when absent. */
const sts_arg *sts_timeline_find_arg(const sts_timeline *tl, uint32_t args, const char *key);

/* 1 for the arg keys STS_ARGS_KNOWN keeps. */
int sts_arg_key_is_known(const char *key, size_t n);

#ifdef __cplusplus
}
#endif
#endif
