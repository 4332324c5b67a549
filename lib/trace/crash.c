/* trace: the signal dump. On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT, and on
 * SIGTERM or SIGINT when their disposition was the default (terminate), the handler
 * writes what the threads have recorded so far as Chrome trace JSON to
 * DIR/stepscope-crash-<pid>.trace.json, then restores the previous disposition and
 * re-raises the signal so the process dies (or the earlier handler runs) as before.
 * A SIGTERM or SIGINT that arrives while stop is writing the profile is held until
 * the profile is written, then raised: stop finishes first.
 *
 * The dump is written like every other output: to a temporary file beside it, then
 * fsynced and renamed (base/outfile's async-signal-safe finish), so it appears whole
 * or not at all. It carries the drop counts (a "stepscope.dropped" instant per thread
 * that lost events, the totals on "stepscope.trace") and the completion record
 * (base/completion.h) at both ends.
 *
 * Async-signal-safety: only open, write, fsync, close, rename, unlink, sigaction,
 * raise, getpid and clock_gettime are called; no allocation, no stdio, no locks. The
 * registry and the chunks are read with atomic loads, numbers are formatted by hand
 * into a static buffer. Converting ticks uses the provisional rate measured at start
 * (integer arithmetic). Scopes still open in any thread are written as "B" events
 * without an "E" (viewers show them as not ended), which is where each thread was when
 * the signal arrived. Every signal is blocked while the handler runs, so a second
 * signal cannot cut the dump short. A stack overflow cannot be dumped (no alternate
 * signal stack is installed). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "base/completion.h"
#include "base/outfile_fd.h"
#include "trace/recorder_impl.h"

/* The fatal signals, then the two that ask a process to end. */
static const int handled[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGTERM, SIGINT };
#define NHANDLED (sizeof handled / sizeof handled[0])
#define NFATAL   5
static struct sigaction previous[NHANDLED];
static int ours[NHANDLED]; /* our handler is installed for handled[i] */
static int installed;
static volatile sig_atomic_t dumping;
static volatile sig_atomic_t holding; /* stop is writing: hold SIGTERM / SIGINT */
static volatile sig_atomic_t held;    /* the signal held, 0 when none */

/* ---- a write(2)-only output buffer ---------------------------------------------- */

static char out_buf[1 << 16];
static size_t out_len;
static int out_fd = -1;
static int out_failed; /* a write failed (a full disk): the dump is abandoned */

static void out_flush(void)
{
    size_t off = 0;
    while (off < out_len && !out_failed) {
        ssize_t w = write(out_fd, out_buf + off, out_len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0)
            out_failed = 1;
        else
            off += (size_t)w;
    }
    out_len = 0;
}

static void out_bytes(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        if (out_len == sizeof out_buf) out_flush();
        out_buf[out_len++] = s[i];
    }
}

static void out_str(const char *s)
{
    out_bytes(s, strlen(s));
}

static void out_u64(uint64_t v)
{
    char tmp[24];
    int n = 0;
    do {
        tmp[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    while (n)
        out_bytes(&tmp[--n], 1);
}

static void out_i64(int64_t v)
{
    if (v < 0) {
        out_bytes("-", 1);
        out_u64((uint64_t)0 - (uint64_t)v);
    } else {
        out_u64((uint64_t)v);
    }
}

/* ns as microseconds with three decimals. */
static void out_us(int64_t ns)
{
    uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    if (ns < 0) out_bytes("-", 1);
    out_u64(a / 1000);
    char f[4] = { '.', (char)('0' + a % 1000 / 100), (char)('0' + a % 100 / 10), (char)('0' + a % 10) };
    out_bytes(f, 4);
}

/* A double to six decimals; non-finite or huge values become null. */
static void out_double(double d)
{
    if (!(d == d) || d > 1e15 || d < -1e15) {
        out_str("null");
        return;
    }
    if (d < 0) {
        out_bytes("-", 1);
        d = -d;
    }
    uint64_t micro = (uint64_t)(d * 1e6 + 0.5);
    out_u64(micro / 1000000);
    char f[7];
    f[0] = '.';
    uint64_t r = micro % 1000000;
    for (int i = 6; i >= 1; i--) {
        f[i] = (char)('0' + r % 10);
        r /= 10;
    }
    out_bytes(f, 7);
}

static void out_json_str(const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    out_bytes("\"", 1);
    for (size_t i = 0; i < n && s[i]; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char e[2] = { '\\', (char)c };
            out_bytes(e, 2);
        } else if (c < 0x20) {
            char e[6] = { '\\', 'u', '0', '0', hex[c >> 4], hex[c & 15] };
            out_bytes(e, 6);
        } else {
            out_bytes((const char *)&c, 1);
        }
    }
    out_bytes("\"", 1);
}

static void out_cstr(const char *s)
{
    if (!s) s = "";
    out_json_str(s, strlen(s));
}

/* ---- events ------------------------------------------------------------------- */

#define PENDING_MAX 64
static const sts_rec_arg *pending[PENDING_MAX];
static size_t npending;
static int first_event;
static uint64_t events; /* written, not counting the completion record's two */
static int64_t dump_pid;

static void event_sep(void)
{
    out_str(first_event ? "\n" : ",\n");
    first_event = 0;
}

static void event_head(char ph, int64_t tid, const char *name, int64_t ts)
{
    event_sep();
    events++;
    out_str("{\"ph\":\"");
    out_bytes(&ph, 1);
    out_str("\",\"pid\":");
    out_i64(dump_pid);
    out_str(",\"tid\":");
    out_i64(tid);
    out_str(",\"ts\":");
    out_us(ts);
    out_str(",\"name\":");
    out_cstr(name);
}

static void out_args(uint32_t depth)
{
    size_t keep = npending;
    int any = 0;
    for (size_t i = 0; i < npending; i++) {
        const sts_rec_arg *a = pending[i];
        uint32_t d = a->kd >> 8;
        if (d < depth) continue;
        if (i < keep) keep = i;
        if (d != depth) continue;
        out_str(any ? "," : ",\"args\":{");
        any = 1;
        out_cstr(a->key);
        out_bytes(":", 1);
        switch (a->kd & 0xffu) {
        case STS_REC_ARG_INT:
            out_i64(a->v.i);
            break;
        case STS_REC_ARG_DOUBLE:
            out_double(a->v.d);
            break;
        default:
            out_json_str((const char *)a + STS_REC_ARG_HEADER, a->len);
        }
    }
    if (any) out_bytes("}", 1);
    npending = keep;
}

/* Totals over the threads, for the "stepscope.trace" instant. */
static uint64_t total_recorded, total_dropped, total_too_deep, total_open, total_threads;

static void dump_records(const sts_tstate *s, const char *p, const char *end)
{
    while (p < end) {
        size_t size = sts_rec_size(p);
        if (size == 0 || (size_t)(end - p) < size) return;
        uint32_t kd = *(const uint32_t *)(const void *)p;
        if ((kd & 0xffu) == STS_REC_SCOPE) {
            const sts_rec_scope *r = (const sts_rec_scope *)(const void *)p;
            int64_t ts = sts_tclock_ns_fast(&sts_rec.clock, r->t0);
            int64_t te = sts_tclock_ns_fast(&sts_rec.clock, r->t1);
            event_head('X', s->tid, r->name, ts);
            out_str(",\"dur\":");
            out_us(te > ts ? te - ts : 0);
            out_args(kd >> 8);
            out_bytes("}", 1);
            total_recorded++;
        } else if (npending < PENDING_MAX) {
            pending[npending++] = (const sts_rec_arg *)(const void *)p;
        }
        p += size;
    }
}

static void int_arg(const char *key, uint64_t v, int first)
{
    out_str(first ? ",\"args\":{\"" : ",\"");
    out_str(key);
    out_str("\":");
    out_u64(v);
}

/* The drop counts of a thread that lost events, as the builder writes them. */
static void dump_drops(const sts_tstate *s, int64_t now)
{
    uint64_t dropped = atomic_load_explicit(&s->dropped, memory_order_relaxed);
    uint64_t too_deep = atomic_load_explicit(&s->too_deep, memory_order_relaxed);
    total_dropped += dropped;
    total_too_deep += too_deep;
    if (!dropped && !too_deep) return;
    event_head('i', s->tid, "stepscope.dropped", now);
    out_str(",\"s\":\"t\",\"cat\":\"stepscope\"");
    int_arg("dropped", dropped, 1);
    int_arg("too_deep", too_deep, 0);
    out_str("}}");
}

static void dump_thread(const sts_tstate *s, int64_t now)
{
    event_head('M', s->tid, "thread_name", 0);
    out_str(",\"args\":{\"name\":");
    out_cstr(s->name);
    out_str("}}");
    npending = 0;
    for (sts_chunk *c = atomic_load_explicit(&s->first, memory_order_acquire); c;
         c = atomic_load_explicit(&c->next, memory_order_acquire)) {
        size_t used = atomic_load_explicit(&c->used, memory_order_acquire);
        dump_records(s, c->data, c->data + used);
    }
    uint32_t depth = atomic_load_explicit(&s->depth, memory_order_acquire);
    if (depth > STS_TRACE_MAX_DEPTH) depth = STS_TRACE_MAX_DEPTH;
    for (uint32_t d = 0; d < depth; d++) {
        uint64_t t0 = atomic_load_explicit(&s->stack[d].t0, memory_order_relaxed);
        event_head('B', s->tid, atomic_load_explicit(&s->stack[d].name, memory_order_relaxed),
                   sts_tclock_ns_fast(&sts_rec.clock, t0));
        out_bytes("}", 1);
    }
    total_open += depth;
    total_threads++;
    dump_drops(s, now);
}

/* The session's totals, on the first lane as stop writes them. */
static void dump_totals(int64_t tid)
{
    event_head('i', tid, "stepscope.trace", sts_rec.start_ns);
    out_str(",\"s\":\"t\",\"cat\":\"stepscope\"");
    int_arg("recorded", total_recorded, 1);
    int_arg("dropped", total_dropped, 0);
    int_arg("too_deep", total_too_deep, 0);
    int_arg("open_at_stop", total_open, 0);
    int_arg("threads", total_threads, 0);
    out_str(",\"clock\":\"");
    out_str(sts_rec.clock.tsc ? "tsc" : "monotonic");
    out_str("\"}}");
}

/* DIR/stepscope-crash-<pid>.trace.json and the temporary name beside it, built by
 * hand (snprintf is not async-signal-safe). */
static char dump_path[sizeof sts_rec.dir + 64], dump_tmp[sizeof sts_rec.dir + 80];

static void build_paths(int64_t pid)
{
    char digits[24];
    int n = 0;
    uint64_t v = (uint64_t)pid;
    do {
        digits[n++] = (char)('0' + v % 10);
        v /= 10;
    } while (v && n < (int)sizeof digits);
    size_t dl = strnlen(sts_rec.dir, sizeof sts_rec.dir - 1);
    char *p = dump_path, *t = dump_tmp;
    memcpy(p, sts_rec.dir, dl);
    memcpy(t, sts_rec.dir, dl);
    p += dl;
    t += dl;
    memcpy(p, "/stepscope-crash-", 17);
    memcpy(t, "/.stepscope-crash-", 18);
    p += 17;
    t += 18;
    while (n) {
        *p++ = digits[--n];
        *t++ = p[-1];
    }
    memcpy(p, ".trace.json", 12);
    memcpy(t, ".trace.json.tmp", 16);
}

static void dump(int sig)
{
    uint32_t session = atomic_load_explicit(&sts_rec.session, memory_order_acquire);
    if (session == 0) return;
    dump_pid = (int64_t)getpid();
    build_paths(dump_pid);
    out_fd = open(dump_tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) return;
    out_len = 0;
    out_failed = 0;
    first_event = 1;
    events = 0;
    total_recorded = total_dropped = total_too_deep = total_open = total_threads = 0;
    int64_t now = sts_clock_ns();
    out_str("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    event_sep();
    out_str(STS_COMPLETION_JSON_OPEN);
    out_i64(dump_pid);
    out_str(STS_COMPLETION_JSON_HEAD_REST);
    event_head('M', dump_pid, "process_name", 0);
    out_str(",\"args\":{\"name\":\"" STS_HOST_PROCESS_NAME "\"}}");
    int64_t first_tid = dump_pid; /* the totals go on the first lane, as stop puts them */
    uint32_t first_order = UINT32_MAX;
    for (sts_tstate *s = atomic_load_explicit(&sts_rec.threads, memory_order_acquire); s;
         s = atomic_load_explicit(&s->next, memory_order_acquire)) {
        if (s->session != session) continue;
        if (s->order < first_order) first_order = s->order, first_tid = s->tid;
        dump_thread(s, now);
    }
    dump_totals(first_tid);
    event_head('i', dump_pid, "stepscope.crash", now);
    out_str(",\"s\":\"g\",\"args\":{\"signal\":");
    out_i64(sig);
    out_str("}}");
    event_sep();
    out_str(STS_COMPLETION_JSON_OPEN);
    out_i64(dump_pid);
    out_str(STS_COMPLETION_JSON_TAIL_REST);
    out_u64(events);
    out_str("}}\n]}\n");
    out_flush();
    if (out_failed) {
        close(out_fd);
        unlink(dump_tmp);
    } else {
        sts_outfile_finish_fd(out_fd, dump_tmp, dump_path, NULL);
    }
    out_fd = -1;
}

static int handled_index(int sig)
{
    for (size_t i = 0; i < NHANDLED; i++)
        if (handled[i] == sig) return (int)i;
    return -1;
}

static void on_signal(int sig)
{
    int saved = errno;
    int i = handled_index(sig);
    if (i >= NFATAL && holding) {
        held = sig; /* raised by sts_crash_finish once the profile is written */
        errno = saved;
        return;
    }
    if (!dumping) {
        dumping = 1;
        dump(sig);
    }
    if (i >= 0) sigaction(sig, &previous[i], NULL);
    errno = saved;
    /* Blocked while this handler runs: delivered on return to the restored handler
     * (a fault also recurs when the instruction is retried). */
    raise(sig);
}

void sts_crash_install(void)
{
    if (installed) return;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sa.sa_flags = SA_RESTART;
    sigfillset(&sa.sa_mask);
    for (size_t i = 0; i < NHANDLED; i++) {
        ours[i] = 0;
        if (sigaction(handled[i], NULL, &previous[i]) != 0) continue;
        /* SIGTERM and SIGINT only where they would end the process: a program with its
         * own handler (or one that ignores them) decides what they do. */
        if (i >= NFATAL && (previous[i].sa_handler != SIG_DFL || (previous[i].sa_flags & SA_SIGINFO))) continue;
        ours[i] = sigaction(handled[i], &sa, NULL) == 0;
    }
    dumping = 0;
    holding = 0;
    held = 0;
    installed = 1;
}

void sts_crash_hold(void)
{
    holding = 1;
}

void sts_crash_finish(void)
{
    if (!installed) return;
    for (size_t i = 0; i < NHANDLED; i++) {
        struct sigaction cur;
        if (ours[i] && sigaction(handled[i], NULL, &cur) == 0 && cur.sa_handler == on_signal)
            sigaction(handled[i], &previous[i], NULL);
        ours[i] = 0;
    }
    installed = 0;
    holding = 0;
    int sig = held;
    held = 0;
    if (sig) raise(sig); /* the SIGTERM or SIGINT that came while stop wrote the profile */
}
