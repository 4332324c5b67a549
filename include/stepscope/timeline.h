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

/* Which event arguments to keep. KNOWN keeps the keys stepscope's commands and writers
 * use (step_num, group_id, correlation ids and the like: see sts_arg_key_is_known()).
 * ANALYSIS keeps only the keys the analyses read (step_num, hlo_op, hlo_module, and the
 * device view's correlation, correlation_id and hlo_category: see
 * sts_arg_key_is_analyzed()): on a Kineto trace, whose every event carries ids, that
 * is most of the memory a read holds for args. sts_args_mode_keeps() tells either. */
typedef enum sts_args_mode {
    STS_ARGS_KNOWN = 0,
    STS_ARGS_NONE,
    STS_ARGS_ALL,
    STS_ARGS_ANALYSIS,
    /* Flags OR'd into a mode (other than ALL, which keeps them anyway): also keep the
     * keys the collective matching reads (sts_arg_key_is_collective(): Kineto's NCCL
     * metadata, correlation ids) or the memory analysis reads (sts_arg_key_is_memory():
     * Kineto's [memory] instants, XSpace's MemoryAllocation stats), so a read for
     * `steps --collectives` or `--memory` keeps them and no other read pays for them.
     * WITH_STREAMS keeps the keys the critical path's stream edges read
     * (sts_arg_key_is_stream(): Kineto's stream, wait_on_stream,
     * wait_on_cuda_event_record_corr_id, correlation), for `steps --critical-path`. */
    STS_ARGS_WITH_COLLECTIVES = 0x100,
    STS_ARGS_WITH_MEMORY = 0x200,
    STS_ARGS_WITH_STREAMS = 0x400
} sts_args_mode;
#define STS_ARGS_BASE_MASK 0xffu  /* the mode without its flags */
#define STS_ARGS_FLAG_MASK 0x700u /* the flags a mode may carry */

/* Whether to keep flow events (s, t, f). COUNT reads and checks them as KEEP does and
 * counts them (sts_timeline_info.flows), but keeps none (sts_timeline_flows() is
 * empty) and interns none of their ids: for a caller that only reports how many there
 * are, as `stepscope analyze` does. On a Kineto trace, a third of whose events are
 * flows with ids seen nowhere else, that is a fifth of the read's CPU time and a
 * quarter of its memory. */
typedef enum sts_flows_mode { STS_FLOWS_KEEP = 0, STS_FLOWS_COUNT } sts_flows_mode;

typedef void (*sts_progress_fn)(uint64_t done_bytes, uint64_t total_bytes, void *user);

/* Other processes that read chunks of a large uncompressed JSON trace for this one
 * (`--mpi` with one input: other ranks), so that its parsing divides among them. The
 * library moves no bytes between processes; the caller does, through these callbacks,
 * which are called on the thread that opens the trace. The timeline is the same, byte
 * for byte, whatever the peers do: a chunk a peer did not deliver, or delivered from a
 * different file or build, is read here instead.
 *
 * Chunk i is read by part i % (count + 1); part 0 is this process, parts 1..count
 * the peers. Each peer passes the plan to sts_chunk_serve(). */
typedef struct sts_chunk_peers {
    unsigned count; /* peers besides this process */
    void *user;
    /* Called at most once per open, when the reader has found where the events start and
     * has decided to read them in chunks: the plan (len bytes) must reach every peer.
     * Return 0, or -1 to read without the peers. */
    int (*start)(void *user, const void *plan, size_t len);
    /* Chunk `index` as its peer (index % (count + 1)) sent it. *data stays valid until
     * the next call. Indices increase from call to call, skipping the chunks this
     * process no longer needs: the caller discards what a peer sent for those. Return 0,
     * or -1 when the peer sent nothing for it (this process then reads the chunk). */
    int (*fetch)(void *user, size_t index, const void **data, size_t *len);
} sts_chunk_peers;

typedef struct sts_open_options {
    sts_args_mode args;
    const char *run;          /* profile directory: the run to read; NULL = the latest */
    sts_progress_fn progress; /* optional; called every few MB while reading */
    void *progress_user;
    /* Threads reading a large JSON trace in chunks, and finalizing any large trace
     * (its slices bucketed and its lanes replayed by parts): 0 = one per core, 1 = this
     * thread only; the result is the same either way. A gzip input is inflated on a
     * thread of its own, which from 2 on counts as one of them (chunk workers from 3
     * on). */
    int jobs;
    const sts_chunk_peers *peers; /* NULL: no other process reads chunks */
    sts_flows_mode flows;
} sts_open_options;
/* clang-format off */
#define STS_OPEN_OPTIONS_INIT { STS_ARGS_KNOWN, NULL, NULL, NULL, 0, NULL, STS_FLOWS_KEEP }
/* clang-format on */

/* Hands one chunk's bytes to the reading process: 0, or -1 to stop serving. */
typedef int (*sts_chunk_send_fn)(void *user, size_t index, const void *data, size_t len);

/* A peer's side of sts_chunk_peers: reads the chunks that `plan` (from the reading
 * process's start callback) gives to part `part` (1..count), in increasing index, and
 * hands each to `send`, one message per chunk it owns: a chunk it could not read (the
 * file missing or changed here) goes as a short message that tells the reader to read
 * it itself. Returns STS_OK when every chunk was sent; else err is set:
 * STS_ERR_FORMAT when the plan is damaged or from another build, STS_ERR_INVALID_ARG
 * when `part` is not one of its peers', STS_ERR_IO when send stopped it. */
sts_status sts_chunk_serve(const void *plan, size_t len, unsigned part, sts_chunk_send_fn send, void *user,
                           sts_error *err);

/* Slice flags. */
#define STS_SLICE_FROM_BE 0x01u /* made from a B (b on an async track) and its matching E (e) */
#define STS_SLICE_UNCLOSED                                                                                        \
    0x02u                       /* a B no E closed: Perfetto's dur -1; here dur runs to the last timestamp of its \
                                 * lane's data (see docs/ARCHITECTURE.md, "The interval model") */
#define STS_SLICE_CLAMPED 0x04u /* overran an open slice by <= resolution; end clamped to that slice's */
#define STS_SLICE_OVERLAP                                                                                          \
    0x08u                       /* overran an open slice on its thread track by more: spilled to an overflow track \
                                 * (see sts_track), listed in sts_timeline_overlaps() */
#define STS_SLICE_INSTANT 0x10u /* an instant (i, I, R; n on an async track): dur 0 */
#define STS_SLICE_ASYNC   0x20u /* from async events (b, e, n) on an async track */
#define STS_SLICE_TRUNCATED                                                               \
    0x40u /* cut at the end of an enclosing slice: one that ended while it was still open \
           * (a misplaced E: Perfetto's misplaced_end_event), or a parent it ran past     \
           * (counted in info.repaired) */

/* One slice of Perfetto's slice table. After loading, slices are ordered by lane, then
 * ts, then the order Perfetto's importer creates them (so equal-ts slices keep their
 * nesting order); each lane's slices are contiguous and a parent precedes its
 * children. Parent and depth are on the slice's own track. */
typedef struct sts_slice {
    int64_t ts;      /* start, ns */
    int64_t dur;     /* duration, ns (after clamping; see STS_SLICE_UNCLOSED) */
    uint32_t name;   /* string id; "[No name]" for a B, X or b without one, as Perfetto */
    uint32_t lane;   /* index into sts_timeline_lanes() */
    uint32_t parent; /* slice index (same track), or STS_NONE for a root */
    uint32_t args;   /* index of the first arg in sts_timeline_args(), or STS_NONE */
    uint32_t cat;    /* string id of the category; 0 when absent */
    uint32_t track;  /* index into sts_timeline_tracks() */
    uint16_t depth;  /* on its track: 0 for roots; saturates at 65535 */
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
    uint32_t global;    /* 1: no process of the trace, but the holder of its global tracks (label "") */
} sts_process;

typedef enum sts_lane_kind {
    STS_LANE_THREAD = 0, /* a thread: its own track plus its overflow tracks */
    STS_LANE_DEVICE,     /* a device stream or XPlane device line */
    STS_LANE_ASYNC,      /* one async track (b/e/n) of a process, or of the trace (global) */
    STS_LANE_INSTANTS    /* the process-scoped (s: p) or global (s: g) instants track */
} sts_lane_kind;

typedef struct sts_lane {
    uint32_t process;                  /* index into sts_timeline_processes() */
    uint32_t label;                    /* string id of the tid as written ("" for async and instant lanes) */
    int64_t tid;                       /* numeric tid (a missing or zero tid with a non-zero pid = pid) */
    uint32_t name;                     /* thread_name metadata, XPlane line name, or the async track set's name */
    int32_t sort_index;                /* thread_sort_index metadata */
    uint32_t kind;                     /* sts_lane_kind */
    uint32_t first_slice, slice_count; /* this lane's slices, contiguous */
    uint32_t first_track, track_count; /* this lane's tracks, contiguous: its own track first */
} sts_lane;

typedef enum sts_track_kind {
    STS_TRACK_THREAD = 0,       /* a thread's (or device lane's) own track */
    STS_TRACK_OVERFLOW,         /* a thread's overflow track: complete slices that overlap */
    STS_TRACK_ASYNC_PROCESS,    /* async slices with an id2 "local" id */
    STS_TRACK_ASYNC_GLOBAL,     /* async slices with an "id" or id2 "global" id */
    STS_TRACK_PROCESS_INSTANTS, /* instants with "s": "p" */
    STS_TRACK_GLOBAL_INSTANTS   /* instants with "s": "g" */
} sts_track_kind;

/* A track of Perfetto's model: slices nest only with slices of their own track. A
 * thread lane holds its own track then overflow tracks 1, 2, ...: a complete slice that
 * starts inside an open slice and ends after it goes to the first overflow track on
 * which it nests inside the innermost open slice or follows all of them. */
typedef struct sts_track {
    uint32_t lane;        /* the lane holding it */
    uint32_t kind;        /* sts_track_kind */
    uint32_t index;       /* overflow: 1, 2, ...; async: Perfetto's track_compressor_idx; else 0 */
    uint32_t name;        /* async: the track's name, Perfetto's: that of the event that made it; else 0 */
    uint32_t slice_count; /* slices on it */
} sts_track;

/* An instant as read (i, I, R). After loading each is also a zero-duration slice
 * (STS_SLICE_INSTANT): on its thread's track, or on its process's or the global
 * instants track. */
typedef struct sts_instant {
    int64_t ts;
    uint32_t name, cat, lane, args;
    uint32_t seq; /* the event's index among the events read */
    char scope;   /* 't' thread, 'p' process, 'g' global */
} sts_instant;

typedef struct sts_counter {
    int64_t ts;
    double value;
    uint32_t name;   /* counter name */
    uint32_t series; /* the arg key holding this value */
    uint32_t lane;   /* lane of the emitting thread */
    uint32_t id;     /* string id of the event's "id", 0 when absent (Perfetto names the
                      * counter "NAME id: ID SERIES") */
} sts_counter;

/* How an async event names its id (Perfetto's async cookie). */
typedef enum sts_async_id {
    STS_ASYNC_ID_NONE = 0,
    STS_ASYNC_ID_STRING,        /* "id": "0x1f" */
    STS_ASYNC_ID_NUMBER,        /* "id": 42 */
    STS_ASYNC_ID_LOCAL_STRING,  /* "id2": {"local": "0x2"}: scoped to the process */
    STS_ASYNC_ID_LOCAL_NUMBER,  /* "id2": {"local": 2} */
    STS_ASYNC_ID_GLOBAL_STRING, /* "id2": {"global": "0x2"} */
    STS_ASYNC_ID_GLOBAL_NUMBER  /* "id2": {"global": 2} */
} sts_async_id;

/* Async (b/e/n, S/T/F/p) events as read. After loading, b/e pairs and n are also slices
 * on async tracks (STS_SLICE_ASYNC), as in Perfetto; legacy S/T/F and p make none,
 * as in Perfetto. */
typedef struct sts_async {
    int64_t ts;
    uint32_t name, cat, id, lane, args; /* id: string id of the id's value as written */
    uint32_t seq;                       /* the event's index among the events read */
    uint8_t id_kind;                    /* sts_async_id */
    char phase;
} sts_async;

typedef struct sts_flow {
    int64_t ts;
    uint32_t name, cat, id, lane;
    char phase;          /* 's', 't' or 'f' */
    char bind_enclosing; /* "bp":"e" */
} sts_flow;

/* An overlap: a complete slice that overran an open slice of its thread's own track by
 * more than the resolution, and was spilled to an overflow track. */
typedef struct sts_overlap {
    uint32_t slice;  /* the overrunning slice */
    uint32_t parent; /* the open slice it overran (Perfetto's conflicting slice) */
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
    uint64_t flows;                /* flow events (s, t, f) imported: kept, or only counted (STS_FLOWS_COUNT) */
    uint64_t clamped;              /* children clamped to their parent's end */
    uint64_t overlaps;             /* overruns beyond the resolution, spilled (see STS_SLICE_OVERLAP) */
    uint64_t unmatched_end;        /* E (e) events that matched no open B (b) and were ignored */
    uint64_t unclosed_begin;       /* B (b) slices no E closed (STS_SLICE_UNCLOSED) */
    uint64_t misplaced_end;        /* times open slices were cut at an enclosing slice's end (STS_SLICE_TRUNCATED) */
    uint64_t overflow_tracks;      /* overflow tracks made for overlaps */
    uint64_t repaired;             /* slices cut at, or moved out of, a parent they ran past (see docs/perfetto.md) */
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

/* What names a lane (an index into sts_timeline_lanes()), as the trace wrote it: its
 * process's pid, its tid, its process's name and its thread's name ("" when absent). The
 * memory stays the timeline's. */
const char *sts_lane_pid(const sts_timeline *tl, uint32_t lane);
const char *sts_lane_tid(const sts_timeline *tl, uint32_t lane);
const char *sts_lane_process_name(const sts_timeline *tl, uint32_t lane);
const char *sts_lane_thread_name(const sts_timeline *tl, uint32_t lane);

const sts_track *sts_timeline_tracks(const sts_timeline *tl, size_t *n);
const sts_slice *sts_timeline_slices(const sts_timeline *tl, size_t *n);
const sts_arg *sts_timeline_args(const sts_timeline *tl, size_t *n);
const sts_instant *sts_timeline_instants(const sts_timeline *tl, size_t *n);
const sts_counter *sts_timeline_counters(const sts_timeline *tl, size_t *n);
const sts_async *sts_timeline_asyncs(const sts_timeline *tl, size_t *n);
const sts_flow *sts_timeline_flows(const sts_timeline *tl, size_t *n);
const sts_overlap *sts_timeline_overlaps(const sts_timeline *tl, size_t *n);

/* A track's label, as `stepscope slices --track` writes it and as the Python
 * binding's track column holds it: "thread", "overflow N", "async N NAME",
 * "global async N NAME", "instants" or "global instants", where N is the track's
 * index and NAME its set's name (the name of its lane, Perfetto's `name` dimension of
 * the track; not sts_track.name, the event that made the track). Written into
 * buf[0..n) (cut to fit and NUL-terminated, as snprintf does; nothing when n == 0);
 * returns buf. */
const char *sts_track_label(const sts_timeline *tl, const sts_track *t, char *buf, size_t n);

/* Warning messages, in order; at most the first 100 are kept, *total counts all. */
const char *const *sts_timeline_warnings(const sts_timeline *tl, size_t *n, uint64_t *total);

/* Finds arg `key` of the event whose first arg is `args` (STS_NONE accepted: not
 * found). Returns NULL when absent. */
const sts_arg *sts_timeline_find_arg(const sts_timeline *tl, uint32_t args, const char *key);

/* 1 for the arg keys STS_ARGS_KNOWN keeps. */
int sts_arg_key_is_known(const char *key, size_t n);

/* 1 for the arg keys STS_ARGS_ANALYSIS keeps: those sts_name_summaries_in(),
 * sts_steps_find() and sts_devview_compute() read (each of them also one STS_ARGS_KNOWN
 * keeps). */
int sts_arg_key_is_analyzed(const char *key, size_t n);

/* 1 for the arg keys STS_ARGS_WITH_COLLECTIVES adds: "Collective name", "Process Group
 * Name", "Process Group ID", "pg_id", "seq", "hlo_module", "Process Group Ranks", "Group size", "Seq", "In msg
 * nelems", "Out msg nelems", "dtype", "Rank", "correlation", "External id". */
int sts_arg_key_is_collective(const char *key, size_t n);

/* 1 for the arg keys STS_ARGS_WITH_MEMORY adds: Kineto's "Bytes", "Addr", "Total
 * Allocated", "Device Id", "Device Type"; XSpace's "allocator_name", "bytes_allocated",
 * "allocation_bytes", "addr", "tf_op", "region_type". */
int sts_arg_key_is_memory(const char *key, size_t n);

/* 1 for the arg keys STS_ARGS_WITH_STREAMS adds: "stream", "wait_on_stream",
 * "wait_on_cuda_event_record_corr_id", "correlation" (docs/critical-path.md). */
int sts_arg_key_is_stream(const char *key, size_t n);

/* 1 when `mode` keeps an event arg whose key is key[0..n); 0 for a mode out of range
 * (a base mode unknown, or flags other than STS_ARGS_FLAG_MASK's). */
int sts_args_mode_keeps(sts_args_mode mode, const char *key, size_t n);

#ifdef __cplusplus
}
#endif
#endif
