/* Finding the trace in a profile directory (see read/profile.h). */
#include "read/profile.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const char LAYOUT[] = "expected a JAX profile directory (DIR/plugins/profile/RUN/HOST.xplane.pb), its "
                             "plugins/profile folder, a run folder holding *.xplane.pb, perfetto_trace.json.gz or "
                             "*.trace.json.gz, a PyTorch profiler directory (WORKER.TIME.pt.trace.json[.gz]), or a "
                             "trace file";

static int ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

/* out = a/b; -1 when it does not fit. */
static int join(char *out, size_t cap, const char *a, const char *b)
{
    int n = snprintf(out, cap, "%s/%s", a, b);
    return n < 0 || (size_t)n >= cap ? -1 : 0;
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The last component of a path, trailing slashes ignored, into out. */
static void base_name(const char *path, char *out, size_t cap)
{
    size_t n = strlen(path);
    while (n > 1 && path[n - 1] == '/')
        n--;
    size_t b = n;
    while (b > 0 && path[b - 1] != '/')
        b--;
    snprintf(out, cap, "%.*s", (int)(n - b), path + b);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

void sts_profile_names_release(sts_profile_names *names)
{
    for (size_t i = 0; i < names->n; i++)
        free(names->v[i]);
    STS_VEC_RELEASE(*names);
}

sts_status sts_profile_list_runs(const char *dir, sts_profile_names *out, sts_error *err)
{
    DIR *d = opendir(dir);
    if (!d) return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot list the directory: %s", dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        char full[4096];
        if (e->d_name[0] == '.' || join(full, sizeof full, dir, e->d_name) != 0 || !is_dir(full)) continue;
        char *copy = strdup(e->d_name);
        char **slot = copy ? STS_VEC_PUSH(*out) : NULL;
        if (!slot) {
            free(copy);
            closedir(d);
            return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", dir);
        }
        *slot = copy;
    }
    closedir(d);
    if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, cmp_names);
    return STS_OK;
}

static int trace_kind(const char *name, sts_profile_kind *k)
{
    if (ends_with(name, ".xplane.pb"))
        *k = STS_PROFILE_XPLANE;
    else if (strcmp(name, "perfetto_trace.json.gz") == 0)
        *k = STS_PROFILE_PERFETTO_JSON;
    else if (ends_with(name, ".trace.json.gz") || ends_with(name, ".pt.trace.json"))
        *k = STS_PROFILE_TRACE_JSON;
    else
        return 0;
    return 1;
}

static int cmp_files(const void *a, const void *b)
{
    const sts_profile_file *x = a, *y = b;
    if (x->kind != y->kind) return x->kind < y->kind ? -1 : 1;
    return strcmp(x->name, y->name);
}

void sts_profile_files_release(sts_profile_files *files)
{
    for (size_t i = 0; i < files->n; i++)
        free(files->v[i].name);
    STS_VEC_RELEASE(*files);
    files->superseded = 0;
}

size_t sts_profile_torch_worker(const char *name, uint64_t *time)
{
    size_t n = strlen(name);
    if (ends_with(name, ".gz")) n -= 3;
    static const char suffix[] = ".pt.trace.json";
    size_t m = sizeof suffix - 1;
    if (n <= m || strncmp(name + n - m, suffix, m) != 0) return 0;
    size_t end = n - m, dot = end;
    while (dot > 0 && name[dot - 1] >= '0' && name[dot - 1] <= '9')
        dot--;
    if (dot == end || end - dot > 19 || dot < 2 || name[dot - 1] != '.') return 0;
    if (time) {
        *time = 0;
        for (size_t i = dot; i < end; i++)
            *time = *time * 10 + (uint64_t)(name[i] - '0');
    }
    return dot - 1;
}

/* Of one PyTorch profiler worker's traces (one per profiling cycle) only the latest
 * stays: HTA, too, reads one trace per rank. */
static void drop_superseded(sts_profile_files *out)
{
    /* Marked first, freed after: every comparison sees every name. */
    char *gone = out->n ? calloc(out->n, 1) : NULL;
    if (!gone) return; /* out of memory: all are kept, as before this rule */
    for (size_t i = 0; i < out->n; i++) {
        uint64_t ti, tj;
        size_t wi = sts_profile_torch_worker(out->v[i].name, &ti);
        for (size_t j = 0; wi && j < out->n && !gone[i]; j++) {
            size_t wj = j == i ? 0 : sts_profile_torch_worker(out->v[j].name, &tj);
            /* ties (a .json and a .json.gz of one time) keep the first by name */
            gone[i] = wj == wi && strncmp(out->v[i].name, out->v[j].name, wi) == 0 &&
                      (tj > ti || (tj == ti && strcmp(out->v[j].name, out->v[i].name) < 0));
        }
    }
    size_t k = 0;
    for (size_t i = 0; i < out->n; i++) {
        if (gone[i]) {
            free(out->v[i].name);
            out->superseded++;
        } else
            out->v[k++] = out->v[i];
    }
    out->n = k;
    free(gone);
}

sts_status sts_profile_list_files(const char *run_dir, sts_profile_files *out, sts_error *err)
{
    DIR *d = opendir(run_dir);
    if (!d) return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot list the directory: %s", run_dir, strerror(errno));
    for (struct dirent *e; (e = readdir(d));) {
        char full[4096];
        sts_profile_kind kind;
        struct stat st;
        if (e->d_name[0] == '.' || !trace_kind(e->d_name, &kind) || join(full, sizeof full, run_dir, e->d_name) != 0)
            continue;
        int ok = stat(full, &st) == 0;
        if (ok && S_ISDIR(st.st_mode)) continue;
        char *copy = strdup(e->d_name);
        sts_profile_file *slot = copy ? STS_VEC_PUSH(*out) : NULL;
        if (!slot) {
            free(copy);
            closedir(d);
            return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", run_dir);
        }
        slot->name = copy;
        slot->kind = kind;
        slot->size = ok && S_ISREG(st.st_mode) ? (uint64_t)st.st_size : 0;
    }
    closedir(d);
    if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, cmp_files);
    drop_superseded(out);
    return STS_OK;
}

/* The file to read among a run's trace files: the first non-empty .xplane.pb when the
 * run has any, else the first non-empty JSON. -1 when there is none. */
static long choose(const sts_profile_files *f, size_t *hosts)
{
    size_t xplane = 0, json = 0;
    int perfetto = 0;
    for (size_t i = 0; i < f->n; i++) {
        xplane += f->v[i].kind == STS_PROFILE_XPLANE;
        json += f->v[i].kind == STS_PROFILE_TRACE_JSON;
        perfetto |= f->v[i].kind == STS_PROFILE_PERFETTO_JSON;
    }
    /* A folder of per-rank JSON traces (a PyTorch profiler directory) holds hosts too;
     * beside perfetto_trace.json.gz (JAX's, which is read) they are JAX's per-host copies. */
    *hosts = xplane ? xplane : !perfetto && json > 1 ? json : 0;
    for (size_t i = 0; i < f->n; i++) {
        if (xplane && f->v[i].kind != STS_PROFILE_XPLANE) break;
        if (f->v[i].size > 0) return (long)i;
    }
    return -1;
}

/* Whether run `name` of `runs_dir` holds a file to read. */
static int run_usable(const char *runs_dir, const char *name)
{
    char dir[4096];
    if (join(dir, sizeof dir, runs_dir, name) != 0) return 0;
    sts_profile_files files = { 0 };
    size_t hosts;
    int ok = sts_profile_list_files(dir, &files, NULL) == STS_OK && choose(&files, &hosts) >= 0;
    sts_profile_files_release(&files);
    return ok;
}

/* Why the trace file `path` cannot be read, as the listing saw it (size 0): a dangling
 * symbolic link, a loop, a FIFO or a device was called "empty file (0 bytes)". */
static void why_unreadable(const char *path, char *out, size_t cap)
{
    struct stat st, lst;
    char target[1024];
    if (lstat(path, &lst) != 0) {
        snprintf(out, cap, "cannot be read (%s)", strerror(errno));
    } else if (stat(path, &st) != 0) {
        int e = errno;
        ssize_t n = S_ISLNK(lst.st_mode) ? readlink(path, target, sizeof target - 1) : -1;
        target[n > 0 ? n : 0] = 0;
        if (e == ELOOP)
            snprintf(out, cap, "a symbolic link loop (%s)", strerror(ELOOP));
        else if (S_ISLNK(lst.st_mode) && e == ENOENT)
            snprintf(out, cap, "a dangling symbolic link: its target %s does not exist",
                     n > 0 ? target : "(unreadable)");
        else
            snprintf(out, cap, "cannot be read (%s)", strerror(e));
    } else if (S_ISFIFO(st.st_mode)) {
        snprintf(out, cap, "a FIFO (named pipe), not a regular file");
    } else if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) {
        snprintf(out, cap, "a device, not a regular file");
    } else if (S_ISDIR(st.st_mode)) {
        snprintf(out, cap, "a directory, not a regular file");
    } else if (!S_ISREG(st.st_mode)) {
        snprintf(out, cap, "not a regular file");
    } else {
        snprintf(out, cap, "empty file (0 bytes)");
    }
}

/* Picks the file of run folder `run_dir`, or explains why it holds none. `runs_dir`
 * and `runs` (may be NULL) let the message name another run that holds a trace. */
static sts_status pick_in_run(const char *run_dir, const char *runs_dir, const sts_profile_names *runs, size_t idx,
                              sts_profile_pick *pick, sts_error *err)
{
    sts_profile_files files = { 0 };
    sts_status st = sts_profile_list_files(run_dir, &files, err);
    if (st != STS_OK) {
        sts_profile_files_release(&files);
        return st;
    }
    long k = choose(&files, &pick->hosts);
    if (k >= 0) {
        if (join(pick->file, sizeof pick->file, run_dir, files.v[k].name) != 0)
            st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: path too long", run_dir);
        sts_profile_files_release(&files);
        return st;
    }
    /* Nothing to read: say what the run holds, and which other run holds a trace. */
    char other[300] = "";
    for (size_t i = runs ? runs->n : 0; i-- > 0;) {
        if (i == idx || !run_usable(runs_dir, runs->v[i])) continue;
        snprintf(other, sizeof other, "; %s run %s holds one: read it with --run %s", i < idx ? "the older" : "the",
                 runs->v[i], runs->v[i]);
        break;
    }
    if (runs && !other[0]) snprintf(other, sizeof other, "; no other run of %s holds one", runs_dir);
    const char *which = pick->latest ? "the latest run" : "the run";
    if (files.n == 0) {
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                           "%s: %s, %s, holds no trace file (*.xplane.pb, perfetto_trace.json.gz or "
                           "*.trace.json.gz)%s",
                           run_dir, which, pick->run, other);
    } else {
        char file[4096];
        if (join(file, sizeof file, run_dir, files.v[0].name) != 0) snprintf(file, sizeof file, "%s", run_dir);
        char why[1200];
        why_unreadable(file, why, sizeof why);
        int empty = strncmp(why, "empty", 5) == 0;
        st = sts_error_set(err, STS_ERR_FORMAT, 0, "%s: %s%s%s: %s, %s, holds no readable trace%s%s", file,
                           empty ? "byte 0: " : "", why,
                           files.n > 1 ? " (nor are the run's other trace files readable)" : "", which, pick->run,
                           empty ? " (a profile cut short or still being written?)" : "", other);
    }
    sts_profile_files_release(&files);
    return st;
}

static int holds_trace_files(const char *dir)
{
    sts_profile_files files = { 0 };
    int yes = sts_profile_list_files(dir, &files, NULL) == STS_OK && files.n > 0;
    sts_profile_files_release(&files);
    return yes;
}

/* Whether some sub-folder of `dir` holds trace files: then `dir` is a folder of runs. */
static int holds_runs(const char *dir)
{
    sts_profile_names runs = { 0 };
    int yes = 0;
    if (sts_profile_list_runs(dir, &runs, NULL) == STS_OK) {
        for (size_t i = 0; i < runs.n && !yes; i++) {
            char sub[4096];
            yes = join(sub, sizeof sub, dir, runs.v[i]) == 0 && holds_trace_files(sub);
        }
    }
    sts_profile_names_release(&runs);
    return yes;
}

/* The folder holding the runs: DIR/plugins/profile, DIR/profile when DIR is "plugins",
 * or DIR itself when its sub-folders hold traces. 0 when found; 1 when DIR is a run
 * folder itself; -1 when DIR is neither. */
static int find_runs_dir(const char *dir, char *out, size_t cap)
{
    char name[256];
    base_name(dir, name, sizeof name);
    if (join(out, cap, dir, "plugins/profile") == 0 && is_dir(out)) return 0;
    if (strcmp(name, "plugins") == 0 && join(out, cap, dir, "profile") == 0 && is_dir(out)) return 0;
    if (holds_trace_files(dir)) return 1;
    if (holds_runs(dir)) {
        snprintf(out, cap, "%s", dir);
        return 0;
    }
    return -1;
}

sts_status sts_profile_locate(const char *dir, const char *run, sts_profile_pick *pick, sts_error *err)
{
    memset(pick, 0, sizeof *pick);
    char runs_dir[4096];
    int level = find_runs_dir(dir, runs_dir, sizeof runs_dir);
    if (level < 0) {
        if (run)
            return sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                                 "%s: no plugins/profile directory and no runs, so there is no run '%s' to choose", dir,
                                 run);
        return sts_error_set(err, STS_ERR_NOT_FOUND, -1, "%s: no trace here; %s", dir, LAYOUT);
    }
    if (level == 1) {
        if (run)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                                 "%s: a run folder (it holds the trace files): --run %s chooses among the runs of a "
                                 "profile directory",
                                 dir, run);
        base_name(dir, pick->run, sizeof pick->run);
        return pick_in_run(dir, NULL, NULL, 0, pick, err);
    }
    sts_profile_names runs = { 0 };
    sts_status st = sts_profile_list_runs(runs_dir, &runs, err);
    size_t idx = runs.n;
    for (size_t i = 0; st == STS_OK && run && i < runs.n; i++)
        if (strcmp(runs.v[i], run) == 0) idx = i;
    if (st == STS_OK && !run && runs.n) idx = runs.n - 1;
    if (st != STS_OK) {
        /* err is filled */
    } else if (idx == runs.n && run) {
        char avail[256] = "";
        for (size_t i = 0; i < runs.n && strlen(avail) < 200; i++)
            snprintf(avail + strlen(avail), sizeof avail - strlen(avail), "%s'%s'", i ? ", " : "", runs.v[i]);
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1, "%s: no run '%s' (runs: %s)", runs_dir, run,
                           runs.n ? avail : "none");
    } else if (idx == runs.n) {
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1, "%s: no runs in this profile directory; %s", runs_dir, LAYOUT);
    } else {
        char run_dir[4096];
        pick->runs = runs.n;
        pick->latest = run == NULL;
        snprintf(pick->run, sizeof pick->run, "%s", runs.v[idx]);
        if (join(run_dir, sizeof run_dir, runs_dir, runs.v[idx]) != 0)
            st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: path too long", runs_dir);
        else
            st = pick_in_run(run_dir, runs_dir, &runs, idx, pick, err);
    }
    sts_profile_names_release(&runs);
    return st;
}
