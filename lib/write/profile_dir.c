/* A JAX-style profile directory: DIR/plugins/profile/RUN/{HOST.xplane.pb,
 * HOST.trace.json.gz, perfetto_trace.json.gz} (see stepscope/write.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "stepscope/write.h"
#include "write/wfile.h"
#include "write/xplane_write.h"

#define MAX_SUFFIX 999

/* mkdir -p: creates each missing component of `path` (modified in place, restored). */
static sts_status make_dirs(char *path, sts_error *err)
{
    for (char *p = path + 1;; p++) {
        if (*p != '/' && *p != 0) continue;
        char c = *p;
        *p = 0;
        struct stat st;
        if (mkdir(path, 0755) != 0 && errno != EEXIST) {
            sts_status code = errno == ENOENT ? STS_ERR_NOT_FOUND : STS_ERR_IO;
            sts_error_set(err, code, -1, "%s: cannot create directory: %s", path, strerror(errno));
            *p = c;
            return code;
        }
        if (stat(path, &st) != 0 || !S_ISDIR(st.st_mode)) {
            sts_error_set(err, STS_ERR_IO, -1, "%s: exists and is not a directory", path);
            *p = c;
            return STS_ERR_IO;
        }
        *p = c;
        if (!c) return STS_OK;
        while (p[1] == '/')
            p++;
        if (!p[1]) return STS_OK;
    }
}

static char *join(const char *a, const char *b)
{
    size_t n = strlen(a) + strlen(b) + 2;
    char *s = malloc(n);
    if (s) snprintf(s, n, "%s/%s", a, b);
    return s;
}

/* Copies a file byte for byte (the second name for the same gzip JSON). */
static sts_status copy_file(const char *from, const char *to, sts_error *err)
{
    FILE *in = fopen(from, "rb");
    if (!in) return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot reopen: %s", from, strerror(errno));
    sts_wfile *out = sts_wfile_open(to, 0, 0, err);
    if (!out) {
        fclose(in);
        return err ? err->code : STS_ERR_IO;
    }
    char buf[65536];
    size_t n;
    int bad = 0;
    while ((n = fread(buf, 1, sizeof buf, in)) > 0)
        if (sts_wfile_write(out, buf, n) != 0) break;
    if (ferror(in)) bad = errno ? errno : EIO;
    fclose(in);
    if (bad) {
        sts_wfile_abort(out);
        return sts_error_set(err, STS_ERR_IO, -1, "%s: read error: %s", from, strerror(bad));
    }
    return sts_wfile_commit(out, err);
}

/* Claims a fresh run directory under `base`: `name` itself, or (when `suffixes`) the
 * first free name_2, name_3, ... Returns the new path (malloc'd) or NULL. */
static char *claim_run(const char *base, const char *name, int suffixes, sts_error *err)
{
    size_t n = strlen(base) + strlen(name) + 16;
    char *path = malloc(n);
    if (!path) {
        sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", base);
        return NULL;
    }
    for (int k = 1; k <= (suffixes ? MAX_SUFFIX : 1); k++) {
        if (k == 1)
            snprintf(path, n, "%s/%s", base, name);
        else
            snprintf(path, n, "%s/%s_%d", base, name, k);
        if (mkdir(path, 0755) == 0) return path;
        if (errno != EEXIST) {
            sts_error_set(err, STS_ERR_IO, -1, "%s: cannot create run directory: %s", path, strerror(errno));
            free(path);
            return NULL;
        }
    }
    snprintf(path, n, "%s/%s", base, name);
    if (suffixes)
        sts_error_set(err, STS_ERR_EXISTS, -1, "%s: this run and %d suffixed variants already exist", path, MAX_SUFFIX);
    else
        sts_error_set(err, STS_ERR_EXISTS, -1,
                      "%s: run directory already exists; choose another run name (an existing run is never "
                      "overwritten)",
                      path);
    free(path);
    return NULL;
}

static int bad_run_name(const char *s)
{
    return !*s || strchr(s, '/') || strcmp(s, ".") == 0 || strcmp(s, "..") == 0;
}

/* The file stem: the host name with '/' (not allowed in a name) replaced. */
static void host_stem(const sts_write_options *opts, char *buf, size_t cap)
{
    char tmp[256];
    snprintf(buf, cap, "%s", sts_write_host(opts, tmp, sizeof tmp));
    for (char *c = buf; *c; c++)
        if (*c == '/') *c = '_';
    if (!*buf || strcmp(buf, ".") == 0 || strcmp(buf, "..") == 0) snprintf(buf, cap, "localhost");
}

static sts_status write_run(const sts_timeline *tl, const char *run, const char *host, const sts_write_options *opts,
                            char **made, sts_error *err)
{
    char stem[300];
    snprintf(stem, sizeof stem, "%s.xplane.pb", host);
    made[0] = join(run, stem);
    made[1] = join(run, "perfetto_trace.json.gz");
    snprintf(stem, sizeof stem, "%s.trace.json.gz", host);
    made[2] = join(run, stem);
    if (!made[0] || !made[1] || !made[2]) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", run);
    sts_status st = sts_write_xplane(tl, made[0], opts, err);
    if (st == STS_OK) st = sts_write_chrome_json(tl, made[1], opts, err);
    if (st == STS_OK) st = copy_file(made[1], made[2], err);
    return st;
}

sts_status sts_write_profile_dir(const sts_timeline *tl, const char *dir, const sts_write_options *opts,
                                 char **out_run_path, sts_error *err)
{
    if (out_run_path) *out_run_path = NULL;
    if (!tl || !dir || !*dir)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "profile writer: no timeline or directory");
    const char *run_name = opts ? opts->run_name : NULL;
    if (run_name && bad_run_name(run_name))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "profile writer: run name \"%s\" must be a single non-empty path component", run_name);
    char *base = join(dir, "plugins/profile");
    if (!base) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", dir);
    sts_status st = make_dirs(base, err);
    if (st != STS_OK) {
        free(base);
        return st;
    }
    char stamp[64];
    if (!run_name) {
        time_t now = time(NULL);
        struct tm tm;
        localtime_r(&now, &tm);
        strftime(stamp, sizeof stamp, "%Y_%m_%d_%H_%M_%S", &tm);
    }
    char *run = claim_run(base, run_name ? run_name : stamp, run_name == NULL, err);
    free(base);
    if (!run) return err ? err->code : STS_ERR_EXISTS;
    char host[256];
    host_stem(opts, host, sizeof host);
    char *made[3] = { NULL, NULL, NULL };
    st = write_run(tl, run, host, opts, made, err);
    for (int i = 0; i < 3; i++) {
        if (st != STS_OK && made[i]) unlink(made[i]);
        free(made[i]);
    }
    if (st != STS_OK) {
        rmdir(run);
        free(run);
        return st;
    }
    if (out_run_path)
        *out_run_path = run;
    else
        free(run);
    return STS_OK;
}
