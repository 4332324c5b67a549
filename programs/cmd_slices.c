/* stepscope slices: every slice of Perfetto's slice table as CSV, lanes in display
 * order, then by ts and the order the importer made them. */
#include <errno.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "hosts_cli.h"
#include "trace_cli.h"
#include "stepscope/format.h"

#define TRACK_TEXT 4096

/* Output goes through one large buffer with hand-made integer formatting: a 10M-slice
 * trace is hundreds of MB of CSV, and printf would dominate. */
typedef struct csv {
    FILE *f;
    char *buf;
    size_t len, cap;
    int failed; /* the errno of the first failure, 0 while none */
} csv;

/* stdio keeps only a flag once a write failed: its reason is kept here. */
static void csv_note(csv *c, int ok)
{
    if (!ok && !c->failed) c->failed = errno ? errno : EIO;
}

static void csv_flush(csv *c)
{
    if (c->len) csv_note(c, fwrite(c->buf, 1, c->len, c->f) == c->len);
    c->len = 0;
}

static void csv_put(csv *c, const char *s, size_t n)
{
    if (c->len + n > c->cap) csv_flush(c);
    if (n > c->cap) {
        csv_note(c, fwrite(s, 1, n, c->f) == n);
        return;
    }
    memcpy(c->buf + c->len, s, n);
    c->len += n;
}

/* Writes v in decimal at p; returns the end. */
static char *put_i64(char *p, int64_t v)
{
    char tmp[24];
    int i = sizeof tmp;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) tmp[--i] = '-';
    memcpy(p, tmp + i, sizeof tmp - (size_t)i);
    return p + (sizeof tmp - (size_t)i);
}

/* RFC 4180: a field holding a comma, quote, CR or LF is quoted, its quotes doubled;
 * one a spreadsheet would take for a formula is quoted with a "'" first (docs/csv.md).
 * Writes at p, which has room for 2 * strlen(s) + 3 bytes; returns the end. */
static char *put_field(char *p, const char *s, size_t n, size_t plain)
{
    int formula = sts_csv_formula(s, n);
    if (plain == n && !formula) {
        memcpy(p, s, n);
        return p + n;
    }
    *p++ = '"';
    if (formula) *p++ = '\'';
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') *p++ = '"';
        *p++ = s[i];
    }
    *p++ = '"';
    return p;
}

/* Room for `need` more bytes at the end of the buffer, flushing first if needed;
 * NULL when even an empty buffer is too small. */
static char *csv_room(csv *c, size_t need)
{
    if (c->len + need > c->cap) csv_flush(c);
    return need <= c->cap ? c->buf + c->len : NULL;
}

static void csv_field(csv *c, const char *s)
{
    size_t n = strlen(s), plain = strcspn(s, ",\"\r\n");
    char *p = csv_room(c, 2 * n + 3);
    if (p) {
        c->len = (size_t)(put_field(p, s, n, plain) - c->buf);
        return;
    }
    csv_put(c, "\"", 1); /* longer than the buffer: piece by piece */
    if (sts_csv_formula(s, n)) csv_put(c, "'", 1);
    for (size_t i = 0; i < n; i++) {
        if (s[i] == '"') csv_put(c, "\"", 1);
        csv_put(c, s + i, 1);
    }
    csv_put(c, "\"", 1);
}

/* A slice's duration as Perfetto's table gives it: -1 for a B that nothing closed. */
static int64_t table_dur(const sts_slice *s)
{
    return (s->flags & STS_SLICE_UNCLOSED) ? -1 : s->dur;
}

/* One row: the lane prefix ("pid,tid,"), then ts, dur, depth and the name, then the
 * track when asked for. */
static void csv_row(csv *c, const char *prefix, size_t plen, const sts_slice *s, const char *name, const char *track,
                    int end_line)
{
    size_t n = strlen(name), tn = track ? strlen(track) : 0;
    char *p = csv_room(c, plen + 3 * 21 + 2 * n + 2 * tn + 8);
    if (!p) {
        csv_put(c, prefix, plen);
        char num[72], *q = put_i64(num, s->ts);
        *q++ = ',';
        q = put_i64(q, table_dur(s));
        *q++ = ',';
        q = put_i64(q, s->depth);
        *q++ = ',';
        csv_put(c, num, (size_t)(q - num));
        csv_field(c, name);
        if (track) {
            csv_put(c, ",", 1);
            csv_field(c, track);
        }
        if (end_line) csv_put(c, "\n", 1);
        return;
    }
    memcpy(p, prefix, plen);
    p += plen;
    p = put_i64(p, s->ts);
    *p++ = ',';
    p = put_i64(p, table_dur(s));
    *p++ = ',';
    p = put_i64(p, s->depth);
    *p++ = ',';
    p = put_field(p, name, n, strcspn(name, ",\"\r\n"));
    if (track) {
        *p++ = ',';
        p = put_field(p, track, tn, strcspn(track, ",\"\r\n"));
    }
    if (end_line) *p++ = '\n';
    c->len = (size_t)(p - c->buf);
}

/* ---- --args KEY,KEY: the args as columns ------------------------------------------ */

#define ARG_KEYS_MAX 32

typedef struct arg_keys {
    const char *text; /* the --args value, "KEY,KEY" */
    size_t n;
    uint32_t id[ARG_KEYS_MAX]; /* string ids in the trace; STS_NONE when no event has the key */
} arg_keys;

/* Whether --args names keys rather than a mode. */
static int is_key_list(const char *text)
{
    static const char *const modes[] = { "analysis", "known", "all", "none" };
    if (!text) return 0;
    for (size_t i = 0; i < sizeof modes / sizeof modes[0]; i++)
        if (strcmp(text, modes[i]) == 0) return 0;
    return 1;
}

/* The header's key columns; the ids of the keys in `tl`. */
static int key_columns(csv *c, const sts_timeline *tl, arg_keys *k, int header)
{
    k->n = 0;
    for (const char *p = k->text; *p;) {
        size_t len = strcspn(p, ",");
        if (!len || k->n == ARG_KEYS_MAX)
            return cli_fail(CLI_USAGE,
                            "slices: --args expects a mode (analysis, known, all, none) or up to %d "
                            "comma-separated arg keys, got '%s'",
                            ARG_KEYS_MAX, k->text);
        char key[256];
        snprintf(key, sizeof key, "%.*s", (int)(len < 255 ? len : 255), p);
        k->id[k->n++] = sts_timeline_find_string(tl, key);
        if (header) {
            csv_put(c, ",", 1);
            csv_field(c, key);
        }
        p += len;
        if (*p == ',') p++;
    }
    return CLI_OK;
}

/* One arg's value as text (sts_arg_text); the result lives until the next call. */
static const char *arg_text(const sts_timeline *tl, const sts_arg *a)
{
    static char *buf;
    static size_t cap;
    size_t n = sts_arg_text(tl, a, buf, cap);
    if (n + 1 > cap) {
        char *more = realloc(buf, n + 1);
        if (!more) return ""; /* an empty cell rather than a cut value */
        buf = more;
        cap = n + 1;
        sts_arg_text(tl, a, buf, cap);
    }
    return buf;
}

static void key_cells(csv *c, const sts_timeline *tl, const sts_arg *args, const sts_slice *s, const arg_keys *k)
{
    for (size_t j = 0; j < k->n; j++) {
        const char *v = "";
        for (uint32_t i = s->args; k->id[j] != STS_NONE && i != STS_NONE; i++) {
            if (args[i].key == k->id[j]) {
                v = arg_text(tl, &args[i]);
                break;
            }
            if (args[i].last) break;
        }
        csv_put(c, ",", 1);
        csv_field(c, v);
    }
    csv_put(c, "\n", 1);
}

/* The slices of one trace; `host` (several hosts: the host's name, else NULL) becomes
 * a first column, and the header is written when `header` is set. `keys`: --args KEY,KEY
 * columns, or NULL. */
static int write_csv(const sts_timeline *tl, const char *host, int header, int with_track, arg_keys *keys)
{
    size_t nl;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order);
    csv c = { stdout, malloc(1 << 20), 0, 1 << 20, 0 };
    if (!order || !c.buf) {
        free(order);
        free(c.buf);
        return cli_fail(CLI_BAD_INPUT, "slices: out of memory");
    }
    sts_lane_display_order(tl, order);
    static const char head[] = "pid,tid,ts_ns,dur_ns,depth,name\n", head_track[] = ",track\n";
    if (header && host) csv_put(&c, "host,", 5);
    if (header) csv_put(&c, head, sizeof head - 2);
    if (header && with_track) csv_put(&c, head_track, sizeof head_track - 2);
    if (keys && key_columns(&c, tl, keys, header) != CLI_OK) {
        free(order);
        free(c.buf);
        return CLI_USAGE;
    }
    if (header) csv_put(&c, "\n", 1);
    const sts_arg *targs = sts_timeline_args(tl, NULL);
    const sts_track *tracks = sts_timeline_tracks(tl, NULL);
    char *tbuf = malloc(TRACK_TEXT);
    if (!tbuf) c.failed = ENOMEM;
    for (size_t k = 0; k < nl && !c.failed; k++) {
        const sts_lane *ln = &lanes[order[k]];
        if (!ln->slice_count) continue;
        /* The lane prefix is the same on every row: format it once. Quoting at most
         * doubles a field, so the buffer never needs flushing. */
        const char *pid = sts_lane_pid(tl, order[k]), *tid = sts_lane_tid(tl, order[k]);
        size_t room = 2 * (strlen(pid) + strlen(tid) + (host ? strlen(host) : 0)) + 11;
        csv pre = { NULL, malloc(room), 0, room, 0 };
        if (!pre.buf) {
            c.failed = ENOMEM;
            break;
        }
        if (host) csv_field(&pre, host), csv_put(&pre, ",", 1);
        csv_field(&pre, pid);
        csv_put(&pre, ",", 1);
        csv_field(&pre, tid);
        csv_put(&pre, ",", 1);
        for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++) {
            csv_row(&c, pre.buf, pre.len, &s[i], sts_timeline_string(tl, s[i].name),
                    with_track ? sts_track_label(tl, &tracks[s[i].track], tbuf, TRACK_TEXT) : NULL, !keys);
            if (keys) key_cells(&c, tl, targs, &s[i], keys);
        }
        free(pre.buf);
    }
    csv_flush(&c);
    free(order);
    free(c.buf);
    free(tbuf);
    if (c.failed == ENOMEM) return cli_fail(CLI_BAD_INPUT, "slices: out of memory");
    return c.failed ? cli_stdout_error("slices", c.failed) : cli_stdout_check("slices");
}

static sts_status host_csv(size_t i, const sts_host_file *f, const sts_timeline *tl, void *user, sts_error *err)
{
    (void)err;
    int *u = user; /* u[0]: the result, u[1]: --track */
    u[0] = write_csv(tl, f->name, i == 0, u[1], NULL);
    return u[0] == CLI_OK ? STS_OK : STS_ERR_IO;
}

/* Several hosts: every host's slices in host order, read `jobs` files ahead. */
static int hosts_csv(const char *const *inputs, int n, const char *run, const char *args, int jobs, int track)
{
    sts_hostset *set = NULL;
    sts_error err = STS_ERROR_INIT;
    if (jobs != INT_MIN && jobs < 1) {
        cli_say(stderr, "stepscope slices: --jobs expects a number of threads (0: one per core), got %d\n", jobs);
        return CLI_USAGE;
    }
    if (sts_hostset_expand(inputs, (size_t)n, run, &set, &err) != STS_OK) {
        sts_hostset_free(set);
        return cli_report("slices", &err);
    }
    size_t nh, nn;
    sts_hostset_files(set, &nh);
    if (nh == 1) {
        sts_hostset_free(set);
        return HC_SINGLE;
    }
    if (is_key_list(args)) {
        sts_hostset_free(set);
        return cli_fail(CLI_USAGE, "slices: --args KEY,KEY (arg columns) reads one host; got %zu", nh);
    }
    const char *const *notes = sts_hostset_notes(set, &nn);
    for (size_t i = 0; i < nn; i++)
        cli_say(stderr, "stepscope slices: %s\n", notes[i]);
    sts_open_options opt = STS_OPEN_OPTIONS_INIT;
    int rc = tc_keep_options("slices", args, &opt), u[2] = { CLI_OK, track };
    if (rc == CLI_OK && sts_hostset_each(set, &opt, jobs == INT_MIN ? 0 : (unsigned)jobs, host_csv, u, &err) != STS_OK)
        rc = u[0] != CLI_OK ? u[0] : cli_report("slices", &err);
    sts_hostset_free(set);
    return rc;
}

int cmd_slices(int argc, char **argv)
{
    int csv_flag = 0, track = 0;
    const char *run = NULL, *args = NULL;
    tc_read_opts ro = TC_READ_OPTS_INIT;
    const cli_opt opts[] = {
        { "csv", CLI_FLAG, &csv_flag, NULL, "write CSV (the only format; accepted for clarity)" },
        { "track", CLI_FLAG, &track, NULL, "add a column naming each slice's track (see below)" },
        TC_RUN_OPT(run),
        TC_ARGS_OPT(args),
        TC_READ_OPTS(ro),
        { 0 },
    };
    const cli_spec spec = {
        "slices",
        "TRACE... --csv [--track] [--args MODE | --args KEY,KEY] [--run NAME] [-j N] [-q]",
        "Writes every slice of Perfetto's slice table as CSV with the header\n"
        "pid,tid,ts_ns,dur_ns,depth,name: lanes in display order (process sort index, pid,\n"
        "thread sort index, tid), then by ts, then in the order Perfetto's importer makes\n"
        "them. pid and tid are as written in the trace (empty for async and instant tracks,\n"
        "and pid for global ones); ts and dur are integer nanoseconds after nesting (a\n"
        "clamped slice's dur is clamped); a B that no E closed has dur -1, as in Perfetto;\n"
        "depth is on the slice's own track. Instants are zero-length slices and async b/e/n\n"
        "events slices of async tracks, as in Perfetto. --track adds a track column:\n"
        "thread, overflow N (complete slices that overlap, spilled as Perfetto does), async N\n"
        "NAME or global async N NAME, instants or global instants. Names are quoted per\n"
        "RFC 4180. Several hosts (files, or a profile run holding several): a first column,\n"
        "host, and the hosts one after another, in name order.\n"
        "--args KEY,KEY (names that are not a mode) keeps every arg and adds a column per key\n"
        "after the others: the slice's value of that arg (numbers in decimal, strings and\n"
        "JSON as written), empty where the slice has none (e.g. --args 'Input Dims,step_num').",
        opts,
        1,
        argc,
    };
    const char **pos = malloc((size_t)argc * sizeof *pos);
    if (!pos) return cli_fail(CLI_BAD_INPUT, "slices: out of memory");
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc < 0) rc = hosts_csv(pos, npos, run, args, HC_JOBS(ro), track);
    (void)csv_flag;
    sts_timeline *tl = NULL;
    arg_keys keys = { args, 0, { 0 } };
    int with_keys = is_key_list(args);
    if (rc == HC_SINGLE && (rc = tc_open("slices", pos[0], run, with_keys ? "all" : args, &ro, &tl)) == CLI_OK)
        rc = write_csv(tl, NULL, 1, track, with_keys ? &keys : NULL);
    sts_timeline_free(tl);
    free(pos);
    return rc;
}
