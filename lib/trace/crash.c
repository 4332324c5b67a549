/* trace: the fatal-signal dump. On SIGSEGV, SIGBUS, SIGFPE, SIGILL or SIGABRT the
 * handler writes what the threads have recorded so far as Chrome trace JSON to
 * DIR/stepscope-crash-<pid>.trace.json, then restores the previous disposition and
 * re-raises the signal so the process dies (or the earlier handler runs) as before.
 *
 * Async-signal-safety: only open, write, close, sigaction, raise and getpid are
 * called; no allocation, no stdio, no locks. The registry and the chunks are read with
 * atomic loads, numbers are formatted by hand into a static buffer. Converting ticks
 * uses the provisional rate measured at start (integer arithmetic). Scopes still open
 * in any thread are written as "B" events without an "E" (viewers show them as not
 * ended), which is where each thread was when the signal arrived. A stack overflow
 * cannot be dumped (no alternate signal stack is installed). */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>

#include "trace/recorder_impl.h"

static const int fatal_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };
#define NFATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction previous[NFATAL];
static int installed;
static volatile sig_atomic_t dumping;

/* ---- a write(2)-only output buffer ---------------------------------------------- */

static char out_buf[1 << 16];
static size_t out_len;
static int out_fd = -1;

static void out_flush(void)
{
    size_t off = 0;
    while (off < out_len) {
        ssize_t w = write(out_fd, out_buf + off, out_len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) break;
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
static int64_t dump_pid;

static void event_head(char ph, int64_t tid, const char *name, int64_t ts)
{
    out_str(first_event ? "\n" : ",\n");
    first_event = 0;
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
        } else if (npending < PENDING_MAX) {
            pending[npending++] = (const sts_rec_arg *)(const void *)p;
        }
        p += size;
    }
}

static void dump_thread(const sts_tstate *s)
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
}

static void dump(int sig)
{
    uint32_t session = atomic_load_explicit(&sts_rec.session, memory_order_acquire);
    if (session == 0) return;
    out_fd = open(sts_rec.crash_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (out_fd < 0) return;
    out_len = 0;
    first_event = 1;
    dump_pid = (int64_t)getpid();
    out_str("{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
    event_head('M', dump_pid, "process_name", 0);
    out_str(",\"args\":{\"name\":\"" STS_HOST_PROCESS_NAME "\"}}");
    for (sts_tstate *s = atomic_load_explicit(&sts_rec.threads, memory_order_acquire); s;
         s = atomic_load_explicit(&s->next, memory_order_acquire))
        if (s->session == session) dump_thread(s);
    event_head('i', dump_pid, "stepscope.crash", sts_clock_ns());
    out_str(",\"s\":\"g\",\"args\":{\"signal\":");
    out_i64(sig);
    out_str("}}\n]}\n");
    out_flush();
    close(out_fd);
    out_fd = -1;
}

static void on_fatal(int sig)
{
    int saved = errno;
    if (!dumping) {
        dumping = 1;
        dump(sig);
    }
    for (size_t i = 0; i < NFATAL; i++)
        if (fatal_signals[i] == sig) sigaction(sig, &previous[i], NULL);
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
    sa.sa_handler = on_fatal;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < NFATAL; i++)
        sigaction(fatal_signals[i], &sa, &previous[i]);
    dumping = 0;
    installed = 1;
}

void sts_crash_uninstall(void)
{
    if (!installed) return;
    for (size_t i = 0; i < NFATAL; i++) {
        struct sigaction cur;
        if (sigaction(fatal_signals[i], NULL, &cur) == 0 && cur.sa_handler == on_fatal)
            sigaction(fatal_signals[i], &previous[i], NULL);
    }
    installed = 0;
}
