/* sts_timeline_open(): find the trace (a file or a JAX-style profile directory), pick
 * the reader by content, not by name, and finalize. */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "model/finalize.h"
#include "read/readers.h"

typedef enum trace_kind { KIND_JSON, KIND_XPLANE } trace_kind;

/* ---- profile directories -------------------------------------------------------- */

typedef STS_VEC(char *) name_list;

static void names_free(name_list *l)
{
    for (size_t i = 0; i < l->n; i++)
        free(l->v[i]);
    free(l->v);
    memset(l, 0, sizeof *l);
}

static int cmp_names(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

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

/* Entries of `dir` (sorted by name) that are directories (want_dirs) or files. */
static int list_dir(const char *dir, int want_dirs, name_list *out)
{
    DIR *d = opendir(dir);
    if (!d) return -1;
    for (struct dirent *e; (e = readdir(d));) {
        if (e->d_name[0] == '.') continue;
        char full[4096];
        if (join(full, sizeof full, dir, e->d_name) != 0) continue;
        if (is_dir(full) != want_dirs) continue;
        char *copy = strdup(e->d_name);
        char **slot = copy ? STS_VEC_PUSH(*out) : NULL;
        if (!slot) {
            free(copy);
            closedir(d);
            return -1;
        }
        *slot = copy;
    }
    closedir(d);
    if (out->n > 1) qsort(out->v, out->n, sizeof *out->v, cmp_names);
    return 0;
}

/* The run directory: DIR/plugins/profile/<run> (the named one, else the latest by
 * name), or DIR itself when it has no plugins/profile. */
static sts_status pick_run(const char *dir, const char *run, char *out, size_t cap, sts_error *err)
{
    char runs_dir[4096];
    if (join(runs_dir, sizeof runs_dir, dir, "plugins/profile") != 0)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: path too long", dir);
    if (!is_dir(runs_dir)) {
        if (run)
            return sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                                 "%s: no plugins/profile directory, so there is no run '%s' to choose", dir, run);
        snprintf(out, cap, "%s", dir);
        return STS_OK;
    }
    name_list runs = { 0 };
    if (list_dir(runs_dir, 1, &runs) != 0) {
        names_free(&runs);
        return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot list the runs", runs_dir);
    }
    sts_status st = STS_OK;
    const char *chosen = NULL;
    for (size_t i = 0; run && i < runs.n; i++)
        if (strcmp(runs.v[i], run) == 0) chosen = runs.v[i];
    if (!run && runs.n) chosen = runs.v[runs.n - 1];
    if (!chosen && run) {
        char avail[256] = "";
        for (size_t i = 0; i < runs.n && strlen(avail) < 200; i++)
            snprintf(avail + strlen(avail), sizeof avail - strlen(avail), "%s'%s'", i ? ", " : "", runs.v[i]);
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1, "%s: no run '%s' (runs: %s)", runs_dir, run,
                           runs.n ? avail : "none");
    } else if (!chosen) {
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1, "%s: no runs in this profile directory", runs_dir);
    } else {
        if (join(out, cap, runs_dir, chosen) != 0)
            st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: path too long", runs_dir);
    }
    names_free(&runs);
    return st;
}

/* In a run directory: the first *.xplane.pb, else perfetto_trace.json.gz, else the
 * first *.trace.json.gz. *others counts further .xplane.pb files (other hosts). */
static sts_status pick_file(const char *run_dir, char *out, size_t cap, trace_kind *kind, size_t *others,
                            sts_error *err)
{
    name_list files = { 0 };
    if (list_dir(run_dir, 0, &files) != 0) {
        names_free(&files);
        return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot list the directory", run_dir);
    }
    const char *xplane = NULL, *perfetto = NULL, *trace = NULL;
    *others = 0;
    for (size_t i = 0; i < files.n; i++) {
        const char *f = files.v[i];
        if (ends_with(f, ".xplane.pb")) {
            if (xplane)
                (*others)++;
            else
                xplane = f;
        } else if (strcmp(f, "perfetto_trace.json.gz") == 0) {
            perfetto = f;
        } else if (!trace && ends_with(f, ".trace.json.gz")) {
            trace = f;
        }
    }
    const char *pick = xplane ? xplane : perfetto ? perfetto : trace;
    *kind = xplane ? KIND_XPLANE : KIND_JSON;
    sts_status st = STS_OK;
    if (pick && join(out, cap, run_dir, pick) != 0)
        st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: path too long", run_dir);
    else if (!pick)
        st = sts_error_set(err, STS_ERR_NOT_FOUND, -1,
                           "%s: no *.xplane.pb, perfetto_trace.json.gz or *.trace.json.gz here; expected a JAX "
                           "profile directory (DIR/plugins/profile/RUN/) or a run directory",
                           run_dir);
    names_free(&files);
    return st;
}

/* ---- files ------------------------------------------------------------------------ */

/* Chrome JSON starts (after gzip and whitespace) with '[' or '{'; anything else is
 * tried as an XSpace protobuf. */
static sts_status sniff(const char *path, trace_kind *kind, sts_error *err)
{
    sts_instream *in = sts_instream_open(path, err);
    if (!in) return err->code;
    unsigned char buf[4096];
    long got = sts_instream_read(in, buf, sizeof buf, err);
    sts_instream_free(in);
    if (got < 0) return err->code;
    long i = 0;
    if (got >= 3 && buf[0] == 0xef && buf[1] == 0xbb && buf[2] == 0xbf) i = 3;
    while (i < got && (buf[i] == ' ' || buf[i] == '\t' || buf[i] == '\n' || buf[i] == '\r'))
        i++;
    if (i == got)
        return sts_error_set(err, STS_ERR_FORMAT, 0,
                             "%s: %s; expected Chrome trace JSON (starting with '[' or '{') or an XSpace protobuf",
                             path, got == 0 ? "empty file" : "only whitespace");
    *kind = buf[i] == '[' || buf[i] == '{' ? KIND_JSON : KIND_XPLANE;
    return STS_OK;
}

static sts_status read_json(const char *path, const sts_open_options *opt, sts_timeline *tl, sts_error *err)
{
    sts_instream *in = sts_instream_open(path, err);
    if (!in) return err->code;
    sts_status st = sts_read_chrome_json(in, tl, opt, err);
    if (tl->info.bytes == 0) tl->info.bytes = sts_instream_offset(in);
    if (!tl->info.compressed) tl->info.compressed = sts_instream_is_gzip(in);
    sts_instream_free(in);
    return st;
}

static sts_status load(const char *path, trace_kind kind, const sts_open_options *opt, sts_timeline **out,
                       sts_error *err)
{
    sts_timeline *tl = sts_tl_new(path, kind == KIND_JSON ? "chrome-json" : "xplane", opt->args);
    if (!tl) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    sts_status st = kind == KIND_JSON ? read_json(path, opt, tl, err) : sts_read_xplane(path, tl, opt, err);
    if (st == STS_OK) st = sts_tl_finalize(tl, err);
    if (st != STS_OK) {
        if (err->message[0] == 0) sts_error_set(err, st, -1, "%s: %s", path, sts_strerror(st));
        sts_tl_free(tl);
        return st;
    }
    *out = tl;
    return STS_OK;
}

sts_status sts_timeline_open(const char *path, const sts_open_options *opt, sts_timeline **out, sts_error *err)
{
    static const sts_open_options defaults = STS_OPEN_OPTIONS_INIT;
    sts_error local = STS_ERROR_INIT;
    if (!err) err = &local;
    sts_error_clear(err);
    *out = NULL;
    if (!opt) opt = &defaults;
    if (!path || !*path) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "no trace path given");
    char file[4096];
    trace_kind kind = KIND_JSON;
    size_t others = 0;
    sts_status st;
    if (strcmp(path, "-") == 0) {
        snprintf(file, sizeof file, "%s", path); /* a pipe cannot be read twice: JSON only */
        st = STS_OK;
    } else if (is_dir(path)) {
        char run_dir[4096];
        st = pick_run(path, opt->run, run_dir, sizeof run_dir, err);
        if (st == STS_OK) st = pick_file(run_dir, file, sizeof file, &kind, &others, err);
    } else {
        if (opt->run)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                                 "%s: a run (%s) can only be chosen in a profile directory", path, opt->run);
        snprintf(file, sizeof file, "%s", path);
        st = sniff(path, &kind, err);
    }
    if (st == STS_OK) st = load(file, kind, opt, out, err);
    if (st == STS_OK && others)
        sts_tl_warn(*out, "%s: the run holds %zu more .xplane.pb file%s (other hosts); only this one was read", file,
                    others, others == 1 ? "" : "s");
    return st;
}
