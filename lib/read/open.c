/* The trace opener: resolve what the user named (a file, "-", a profile directory at
 * any level) to one input, open it once, tell its format from the first bytes, read it
 * with that reader and finalize. */
#include "read/open.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

#include "base/threads.h"
#include "model/finalize.h"
#include "read/profile.h"
#include "read/readers.h"
#include "read/sniff.h"

static const char EXPECTED[] = "expected Chrome trace JSON (starting with '[' or '{') or an XSpace protobuf "
                               "(.xplane.pb), either possibly gzip-compressed";

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The error for input that is no trace: what it looks like, and what was expected. */
static sts_status not_a_trace(sts_instream *in, const sts_sniff *sn, sts_error *err)
{
    const char *name = sts_instream_name(in);
    const char *gz = sts_instream_is_gzip(in) ? "gzip-compressed, " : "";
    /* A FIFO, a pipe or standard input that gave nothing is no "empty file". */
    struct stat st;
    int std_in = strcmp(name, "-") == 0 || strcmp(name, "<stdin>") == 0;
    int special = !std_in && stat(name, &st) == 0 && !S_ISREG(st.st_mode);
    const char *empty = std_in    ? "empty input (standard input gave no bytes)"
                        : special ? "empty input (it gave no bytes; not a regular file)"
                                  : "empty file";
    if (sn->empty)
        return sts_error_set(err, STS_ERR_FORMAT, 0, "%s: byte 0: %s%s; %s", name,
                             strcmp(sn->what, "empty") == 0 ? empty : sn->what,
                             sts_instream_is_gzip(in) ? " once gzip is inflated" : "", EXPECTED);
    return sts_error_set(err, STS_ERR_FORMAT, 0, "%s: byte 0: not a trace: %slooks like %s; %s%s%s", name, gz, sn->what,
                         EXPECTED, sn->hint[0] ? "; " : "", sn->hint);
}

/* Run facts from the profile directory, kept in the timeline's info. */
static sts_status note_run(sts_timeline *tl, const sts_profile_pick *pick, sts_error *err)
{
    uint32_t id = sts_tl_intern(tl, pick->run, strlen(pick->run));
    if (id == STS_NONE) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", pick->file);
    tl->info.run = sts_timeline_string(tl, id);
    tl->info.runs = (uint32_t)pick->runs;
    tl->info.run_latest = pick->latest;
    tl->info.run_hosts = (uint32_t)pick->hosts;
    if (pick->hosts > 1)
        sts_tl_warn(tl, "%s: the run holds %zu more %s file%s (other hosts); only this one was read", pick->file,
                    pick->hosts - 1, strstr(pick->file, ".xplane.pb") ? ".xplane.pb" : "trace",
                    pick->hosts == 2 ? "" : "s");
    return STS_OK;
}

static sts_status read_stream(sts_instream *in, const sts_open_options *opt, const sts_profile_pick *pick,
                              sts_timeline **out, sts_error *err)
{
    static const sts_open_options defaults = STS_OPEN_OPTIONS_INIT;
    if (!opt) opt = &defaults;
    *out = NULL;
    const unsigned char *p;
    long n = sts_instream_peek(in, STS_SNIFF_BYTES, &p, err);
    if (n < 0) return err->code;
    sts_sniff sn;
    sts_sniff_trace(p, (size_t)n, (size_t)n < STS_SNIFF_BYTES, &sn);
    if (sn.format == STS_FORMAT_NONE) return not_a_trace(in, &sn, err);
    const char *path = sts_instream_path(in);
    int json = sn.format == STS_FORMAT_CHROME_JSON;
    sts_timeline *tl = sts_tl_new(path, json ? "chrome-json" : "xplane", opt->args);
    if (!tl) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", path);
    tl->jobs = opt->jobs > 0 ? opt->jobs : sts_cores();
    sts_status st = json ? sts_read_chrome_json(in, tl, opt, err) : sts_read_xplane(in, tl, opt, err);
    if (st == STS_OK && pick) st = note_run(tl, pick, err);
    if (st == STS_OK) st = sts_tl_finalize(tl, err);
    if (st != STS_OK) {
        if (err->message[0] == 0) sts_error_set(err, st, -1, "%s: %s", sts_instream_name(in), sts_strerror(st));
        sts_tl_free(tl);
        return st;
    }
    *out = tl;
    return STS_OK;
}

sts_status sts_timeline_read_stream(sts_instream *in, const sts_open_options *opt, sts_timeline **out, sts_error *err)
{
    sts_error local = STS_ERROR_INIT;
    if (!err) err = &local;
    sts_error_clear(err);
    return read_stream(in, opt, NULL, out, err);
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
    sts_profile_pick pick;
    const char *file = path;
    int from_dir = strcmp(path, "-") != 0 && is_dir(path);
    if (from_dir) {
        sts_status st = sts_profile_locate(path, opt->run, &pick, err);
        if (st != STS_OK) return st;
        file = pick.file;
    } else if (opt->run) {
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: a run (%s) can only be chosen in a profile directory",
                             path, opt->run);
    }
    sts_instream *in = sts_instream_open(file, err);
    if (!in) return err->code;
    sts_status st = read_stream(in, opt, from_dir ? &pick : NULL, out, err);
    sts_instream_free(in);
    return st;
}

sts_status sts_timeline_open_file(FILE *f, const char *name, const sts_open_options *opt, sts_timeline **out,
                                  sts_error *err)
{
    sts_error local = STS_ERROR_INIT;
    if (!err) err = &local;
    sts_error_clear(err);
    *out = NULL;
    if (opt && opt->run)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: a run (%s) can only be chosen in a profile directory",
                             name ? name : "<file>", opt->run);
    sts_instream *in = sts_instream_open_file(f, name, err);
    if (!in) return err->code;
    sts_status st = read_stream(in, opt, NULL, out, err);
    sts_instream_free(in);
    return st;
}

sts_status sts_timeline_open_mem(const void *data, size_t len, const char *name, const sts_open_options *opt,
                                 sts_timeline **out, sts_error *err)
{
    sts_error local = STS_ERROR_INIT;
    if (!err) err = &local;
    sts_error_clear(err);
    *out = NULL;
    if (opt && opt->run)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: a run (%s) can only be chosen in a profile directory",
                             name ? name : "<memory>", opt->run);
    sts_instream *in = sts_instream_open_mem(data, len, name, err);
    if (!in) return err->code;
    sts_status st = read_stream(in, opt, NULL, out, err);
    sts_instream_free(in);
    return st;
}
