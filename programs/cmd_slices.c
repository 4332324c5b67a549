/* stepscope slices: every slice as CSV, lanes in display order, then ts, then depth. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "trace_cli.h"

/* Output goes through one large buffer with hand-made integer formatting: a 10M-slice
 * trace is hundreds of MB of CSV, and printf would dominate. */
typedef struct csv {
    FILE *f;
    char *buf;
    size_t len, cap;
    int failed;
} csv;

static void csv_flush(csv *c)
{
    if (c->len && fwrite(c->buf, 1, c->len, c->f) != c->len) c->failed = 1;
    c->len = 0;
}

static void csv_put(csv *c, const char *s, size_t n)
{
    if (c->len + n > c->cap) csv_flush(c);
    if (n > c->cap) {
        if (fwrite(s, 1, n, c->f) != n) c->failed = 1;
        return;
    }
    memcpy(c->buf + c->len, s, n);
    c->len += n;
}

static void csv_i64(csv *c, int64_t v)
{
    char tmp[24];
    int i = sizeof tmp;
    uint64_t u = v < 0 ? (uint64_t)0 - (uint64_t)v : (uint64_t)v;
    do {
        tmp[--i] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0) tmp[--i] = '-';
    csv_put(c, tmp + i, sizeof tmp - (size_t)i);
}

/* RFC 4180: a field holding a comma, quote, CR or LF is quoted, its quotes doubled. */
static void csv_field(csv *c, const char *s)
{
    size_t n = strcspn(s, ",\"\r\n");
    if (s[n] == 0) {
        csv_put(c, s, n);
        return;
    }
    csv_put(c, "\"", 1);
    for (const char *p = s; *p; p++) {
        if (*p == '"') csv_put(c, "\"", 1);
        csv_put(c, p, 1);
    }
    csv_put(c, "\"", 1);
}

static int write_csv(const sts_timeline *tl)
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
    static const char header[] = "pid,tid,ts_ns,dur_ns,depth,name\n";
    csv_put(&c, header, sizeof header - 1);
    for (size_t k = 0; k < nl && !c.failed; k++) {
        const sts_lane *ln = &lanes[order[k]];
        if (!ln->slice_count) continue;
        /* The lane prefix is the same on every row: format it once. Quoting at most
         * doubles a field, so the buffer never needs flushing. */
        const char *pid = tc_pid(tl, order[k]), *tid = tc_tid(tl, order[k]);
        csv pre = { NULL, malloc(2 * (strlen(pid) + strlen(tid)) + 8), 0, 2 * (strlen(pid) + strlen(tid)) + 8, 0 };
        if (!pre.buf) {
            c.failed = 1;
            break;
        }
        csv_field(&pre, pid);
        csv_put(&pre, ",", 1);
        csv_field(&pre, tid);
        csv_put(&pre, ",", 1);
        for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count; i++) {
            csv_put(&c, pre.buf, pre.len);
            csv_i64(&c, s[i].ts);
            csv_put(&c, ",", 1);
            csv_i64(&c, s[i].dur);
            csv_put(&c, ",", 1);
            csv_i64(&c, s[i].depth);
            csv_put(&c, ",", 1);
            csv_field(&c, sts_timeline_string(tl, s[i].name));
            csv_put(&c, "\n", 1);
        }
        free(pre.buf);
    }
    csv_flush(&c);
    if (fflush(stdout) != 0) c.failed = 1;
    free(order);
    free(c.buf);
    if (c.failed) return cli_fail(CLI_BAD_INPUT, "slices: cannot write the CSV to standard output");
    return CLI_OK;
}

int cmd_slices(int argc, char **argv)
{
    int csv_flag = 0;
    const char *run = NULL;
    const cli_opt opts[] = {
        { "csv", CLI_FLAG, &csv_flag, NULL, "write CSV (the only format; accepted for clarity)" },
        { "run", CLI_STRING, &run, "NAME", "in a profile directory, the run to read (default: the latest)" },
        { 0 },
    };
    const cli_spec spec = {
        "slices", "TRACE --csv [--run NAME]",
        "Writes every slice as CSV with the header pid,tid,ts_ns,dur_ns,depth,name: lanes in\n"
        "display order (process sort index, pid, thread sort index, tid), then by ts, then by\n"
        "depth. pid and tid are as written in the trace; ts and dur are integer nanoseconds\n"
        "after nesting (a clamped child's dur is clamped); names are quoted per RFC 4180.",
        opts, 1, 1,
    };
    const char *pos[1];
    int npos;
    int rc = cli_parse(&spec, argc, argv, pos, &npos);
    if (rc >= 0) return rc;
    (void)csv_flag;
    sts_timeline *tl = NULL;
    if ((rc = tc_open("slices", pos[0], run, &tl)) != CLI_OK) return rc;
    rc = write_csv(tl);
    sts_timeline_free(tl);
    return rc;
}
