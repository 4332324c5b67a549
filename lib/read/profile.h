/* read: JAX-style profile directories, at any level:
 *
 *   ROOT/plugins/profile/RUN/HOST.xplane.pb      (and perfetto_trace.json.gz,
 *   ROOT/plugins/profile/RUN/HOST.trace.json.gz   HOST.trace.json.gz)
 *
 * A user may name ROOT, ROOT/plugins, ROOT/plugins/profile or a RUN folder; runs are
 * named by the profiler's local time (2026_05_01_12_00_00), so the latest is the last by
 * name. Enumeration (runs of a directory, trace files of a run) is kept apart from the
 * choice of one file, so a multi-host reader can take every host of a run. */
#ifndef STS_READ_PROFILE_H
#define STS_READ_PROFILE_H

#include <stddef.h>
#include <stdint.h>

#include "base/vec.h"
#include "stepscope/status.h"

typedef enum sts_profile_kind {
    STS_PROFILE_XPLANE = 0,    /* HOST.xplane.pb: one per host */
    STS_PROFILE_PERFETTO_JSON, /* perfetto_trace.json.gz */
    STS_PROFILE_TRACE_JSON     /* HOST.trace.json.gz, WORKER.TIME.pt.trace.json[.gz] (PyTorch profiler) */
} sts_profile_kind;

/* A trace file of a run. */
typedef struct sts_profile_file {
    char *name; /* in the run folder */
    sts_profile_kind kind;
    uint64_t size; /* bytes on disk; 0 also for an unreadable entry */
} sts_profile_file;

typedef STS_VEC(char *) sts_profile_names;
/* A run's trace files (an STS_VEC with one count more). */
typedef struct sts_profile_files {
    sts_profile_file *v;
    size_t n, cap;
    size_t superseded; /* PyTorch profiler traces left out: a newer one of the same worker is there */
} sts_profile_files;

/* The sub-folders of `dir` (hidden ones left out), sorted by name. */
sts_status sts_profile_list_runs(const char *dir, sts_profile_names *out, sts_error *err);
void sts_profile_names_release(sts_profile_names *names);

/* For a PyTorch profiler file name "WORKER.TIME.pt.trace.json[.gz]": the length of
 * WORKER, and TIME in *time (digits only; NULL allowed). 0 for any other name. */
size_t sts_profile_torch_worker(const char *name, uint64_t *time);

/* The trace files of a run folder, sorted by kind (.xplane.pb first), then name.
 * PyTorch's tensorboard_trace_handler names its files WORKER.TIME.pt.trace.json[.gz]
 * (TIME in ms) and adds one per profiling cycle: of one worker's files only the one
 * with the latest TIME is listed, the others counted in `superseded`. */
sts_status sts_profile_list_files(const char *run_dir, sts_profile_files *out, sts_error *err);
void sts_profile_files_release(sts_profile_files *files);

/* What sts_profile_locate() chose. */
typedef struct sts_profile_pick {
    char file[4096]; /* the trace file to read */
    char run[256];   /* the run's name (its folder's) */
    size_t runs;     /* runs in the profile directory; 0 when a run folder was named */
    int latest;      /* the run was taken as the latest, not named */
    size_t hosts;    /* host files in the run (.xplane.pb, else per-rank *.trace.json[.gz] without a
                        perfetto_trace.json.gz); one is read */
} sts_profile_pick;

/* Resolves a directory named by the user (see above) to one trace file: in the run
 * named `run` (NULL: the latest), the first non-empty .xplane.pb, else
 * perfetto_trace.json.gz, else a .trace.json.gz. A run whose trace files are missing or
 * empty is an error naming the latest older run that has one. */
sts_status sts_profile_locate(const char *dir, const char *run, sts_profile_pick *pick, sts_error *err);

#endif
