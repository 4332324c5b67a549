#include "trace_cli.h"

#include <inttypes.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "hosts_cli.h"

typedef struct progress {
    const char *cmd;
    struct timespec start, last;
    int shown;
} progress;

static double since(const struct timespec *a)
{
    struct timespec now;
    clock_gettime(CLOCK_MONOTONIC, &now);
    return (double)(now.tv_sec - a->tv_sec) + (double)(now.tv_nsec - a->tv_nsec) / 1e9;
}

/* "412 of 1000 MB (41%), 850 MB/s, 0.7 s left", refreshed at most 4 times a second
 * and only once the read has taken a second. */
static void on_progress(uint64_t done, uint64_t total, void *user)
{
    progress *p = user;
    double elapsed = since(&p->start);
    if (elapsed < 1.0 || since(&p->last) < 0.25 || done == 0) return;
    clock_gettime(CLOCK_MONOTONIC, &p->last);
    double rate = (double)done / elapsed;
    char tail[64] = "";
    if (total > done) snprintf(tail, sizeof tail, ", %.1f s left", (double)(total - done) / rate);
    if (total)
        fprintf(stderr, "\rstepscope %s: read %.0f of %.0f MB (%.0f%%), %.0f MB/s%s\033[K", p->cmd, (double)done / 1e6,
                (double)total / 1e6, 100.0 * (double)done / (double)total, rate / 1e6, tail);
    else
        fprintf(stderr, "\rstepscope %s: read %.0f MB, %.0f MB/s\033[K", p->cmd, (double)done / 1e6, rate / 1e6);
    p->shown = 1;
}

static void print_warnings(const char *cmd, const sts_timeline *tl)
{
    size_t n;
    uint64_t total;
    const char *const *w = sts_timeline_warnings(tl, &n, &total);
    size_t show = n < 10 ? n : 10;
    for (size_t i = 0; i < show; i++)
        fprintf(stderr, "stepscope %s: warning: %s\n", cmd, w[i]);
    if (total > show)
        fprintf(stderr, "stepscope %s: warning: ... and %" PRIu64 " more warning%s\n", cmd, total - show,
                total - show == 1 ? "" : "s");
}

/* What a command keeps when --args is not given: slices shows the args it keeps, so it
 * keeps the known ones; cut writes a trace, so it keeps them all; the analyses keep
 * only what they read, which on a Kineto trace is a third of the memory a read holds. */
static sts_args_mode default_args(const char *cmd)
{
    if (strcmp(cmd, "cut") == 0) return STS_ARGS_ALL;
    return strcmp(cmd, "slices") == 0 ? STS_ARGS_KNOWN : STS_ARGS_ANALYSIS;
}

static int args_mode(const char *cmd, const char *text, sts_args_mode *mode)
{
    static const struct {
        const char *name;
        sts_args_mode mode;
    } modes[] = { { "analysis", STS_ARGS_ANALYSIS },
                  { "known", STS_ARGS_KNOWN },
                  { "all", STS_ARGS_ALL },
                  { "none", STS_ARGS_NONE } };
    if (!text) {
        *mode = default_args(cmd);
        return CLI_OK;
    }
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++) {
        if (strcmp(text, modes[i].name) == 0) {
            *mode = modes[i].mode;
            return CLI_OK;
        }
    }
    fprintf(stderr, "stepscope %s: --args expects analysis, known, all or none, got '%s'\n", cmd, text);
    return CLI_USAGE;
}

int tc_keep_options(const char *cmd, const char *args, sts_open_options *opt)
{
    /* The trace commands count flows; only cut, which writes them, keeps them. */
    opt->flows = strcmp(cmd, "cut") == 0 ? STS_FLOWS_KEEP : STS_FLOWS_COUNT;
    return args_mode(cmd, args, &opt->args);
}

/* Which run of a profile directory was read, so a user never wonders. */
static void print_run(const char *cmd, const char *path, const sts_timeline_info *in)
{
    if (!in->run) return;
    if (in->runs == 0)
        fprintf(stderr, "stepscope %s: %s: run %s, reading %s\n", cmd, path, in->run, in->path);
    else if (in->run_latest)
        fprintf(stderr, "stepscope %s: %s: run %s (the latest of %u run%s), reading %s\n", cmd, path, in->run,
                (unsigned)in->runs, in->runs == 1 ? "" : "s", in->path);
    else
        fprintf(stderr, "stepscope %s: %s: run %s (chosen with --run; %u run%s), reading %s\n", cmd, path, in->run,
                (unsigned)in->runs, in->runs == 1 ? "" : "s", in->path);
}

int tc_open(const char *cmd, const char *path, const char *run, const char *args, const tc_read_opts *ro,
            sts_timeline **out)
{
    if (ro && ro->jobs < 0)
        return cli_fail(CLI_USAGE, "%s: --jobs expects a number of threads (0: one per core), got %d", cmd, ro->jobs);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    opt.run = run;
    opt.jobs = ro ? ro->jobs : 0;
    opt.peers = hm_chunk_peers(); /* --mpi: the other ranks read chunks too */
    if (opt.peers && opt.jobs == 0) opt.jobs = (int)hm_default_jobs();
    int rc = tc_keep_options(cmd, args, &opt);
    if (rc != CLI_OK) return rc;
    if (ro && ro->args_flags && opt.args != STS_ARGS_ALL)
        opt.args = (sts_args_mode)((unsigned)opt.args | ro->args_flags);
    progress p = { cmd, { 0, 0 }, { 0, 0 }, 0 };
    if (isatty(STDERR_FILENO) && !(ro && ro->quiet)) {
        clock_gettime(CLOCK_MONOTONIC, &p.start);
        p.last = p.start;
        opt.progress = on_progress;
        opt.progress_user = &p;
    }
    sts_error err = STS_ERROR_INIT;
    sts_status st = sts_timeline_open(path, &opt, out, &err);
    hm_chunks_end();
    if (p.shown) fputs("\r\033[K", stderr);
    if (st != STS_OK) return cli_report(cmd, &err);
    print_run(cmd, path, sts_timeline_get_info(*out));
    print_warnings(cmd, *out);
    return CLI_OK;
}

/* Byte length of the first `chars` UTF-8 characters of s. */
static size_t prefix_bytes(const char *s, int chars)
{
    size_t i = 0;
    for (int c = 0; s[i] && c < chars; c++) {
        i++;
        while (((unsigned char)s[i] & 0xc0) == 0x80)
            i++;
    }
    return i;
}

int tc_width(const char *s, int cap)
{
    int w = 0;
    for (const unsigned char *p = (const unsigned char *)s; *p && w < cap; p++)
        if ((*p & 0xc0) != 0x80) w++;
    return w;
}

/* Control characters (a newline in a name) would break the table. */
static void put_printable(FILE *f, const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++)
        fputc((unsigned char)s[i] < 0x20 ? '?' : s[i], f);
}

void tc_cell(FILE *f, const char *s, int width, int left)
{
    int w = tc_width(s, width + 1);
    if (w > width) {
        int keep = width > 3 ? width - 3 : 0;
        put_printable(f, s, prefix_bytes(s, keep));
        fprintf(f, "%.*s", width - keep, "...");
        return;
    }
    if (!left) fprintf(f, "%*s", width - w, "");
    put_printable(f, s, strlen(s));
    if (left) fprintf(f, "%*s", width - w, "");
}

void tc_print_phases(const uint64_t *by_phase)
{
    int first = 1;
    for (int c = 0; c < 128; c++) {
        if (!by_phase[c]) continue;
        if (c > 32 && c < 127)
            printf("%s%c %" PRIu64, first ? " (" : ", ", c, by_phase[c]);
        else
            printf("%s0x%02x %" PRIu64, first ? " (" : ", ", c, by_phase[c]);
        first = 0;
    }
    printf("%s\n", first ? "" : ")");
}

void tc_busy_row(const char *const *cells, const int *widths, size_t ncells, const sts_busy *b)
{
    for (size_t c = 0; c < ncells; c++) {
        printf("  ");
        tc_cell(stdout, cells[c], widths[c], 1);
    }
    if (!b) {
        printf("  %9s %11s %11s %6s\n", "slices", "busy", "span", "busy%");
        return;
    }
    char u[32], sp[32];
    sts_fmt_duration((double)(b->union_ns), u, sizeof u);
    sts_fmt_duration((double)(b->span_ns), sp, sizeof sp);
    printf("  %9" PRIu64 " %*s %*s %5.1f%%\n", b->slices, sts_fmt_field(u, 11), u, sts_fmt_field(sp, 11), sp,
           b->span_ns ? 100.0 * (double)b->union_ns / (double)b->span_ns : 0.0);
}

void tc_fit_widths(const char *const *cells, const int *caps, int *widths, size_t ncells)
{
    for (size_t c = 0; c < ncells; c++) {
        int w = tc_width(cells[c], caps[c]);
        if (w > widths[c]) widths[c] = w;
    }
}
