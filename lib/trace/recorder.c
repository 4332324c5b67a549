/* trace: session start, thread registration and the recording hot path. */
#include "trace/recorder_impl.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include "base/utf8.h"

sts_recorder sts_rec = { .lock = PTHREAD_MUTEX_INITIALIZER };
uint32_t sts__trace_on;

static __thread sts_tstate *tls_state;
static __thread int tls_exiting;
static pthread_key_t exit_key;
static pthread_once_t exit_once = PTHREAD_ONCE_INIT;
static int exit_key_ok;

#define LIKELY(x)   __builtin_expect(!!(x), 1)
#define UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Remnants (see sts_recorder.remnants). A remnant holds at least this many bytes of
 * records, more than the largest record, so any record fits in one. */
#define MIN_REMNANT  ((size_t)320)
#define REM_OFF_BITS 40
#define REM_OFF_MASK (((uint64_t)1 << REM_OFF_BITS) - 1)
#define REM_TAG_ONE  ((uint64_t)1 << REM_OFF_BITS)
_Static_assert(MIN_REMNANT >= ((STS_REC_ARG_HEADER + STS_REC_STR_MAX + 1 + 7) & ~(size_t)7), "a record fits");

static sts_chunk *remnant_at(uint64_t off)
{
    return off ? (sts_chunk *)(void *)(sts_rec.pool + (off - 1) * 8) : NULL;
}

static uint64_t remnant_off(const sts_chunk *c)
{
    return c ? (uint64_t)((const char *)c - sts_rec.pool) / 8 + 1 : 0;
}

static void push_remnant(sts_chunk *c)
{
    uint64_t h = atomic_load_explicit(&sts_rec.remnants, memory_order_acquire);
    do {
        atomic_store_explicit(&c->next, remnant_at(h & REM_OFF_MASK), memory_order_relaxed);
    } while (!atomic_compare_exchange_weak_explicit(&sts_rec.remnants, &h,
                                                    remnant_off(c) | ((h & ~REM_OFF_MASK) + REM_TAG_ONE),
                                                    memory_order_release, memory_order_acquire));
}

/* Lock-free: a stale head (its chunk popped, reused and pushed again meanwhile)
 * carries an older tag, so its compare-exchange fails and the pop retries. */
static sts_chunk *pop_remnant(void)
{
    uint64_t h = atomic_load_explicit(&sts_rec.remnants, memory_order_acquire);
    for (;;) {
        sts_chunk *c = remnant_at(h & REM_OFF_MASK);
        if (!c) return NULL;
        uint64_t below = remnant_off(atomic_load_explicit(&c->next, memory_order_relaxed));
        if (atomic_compare_exchange_weak_explicit(&sts_rec.remnants, &h, below | ((h & ~REM_OFF_MASK) + REM_TAG_ONE),
                                                  memory_order_acquire, memory_order_acquire))
            return c;
    }
}

/* An exiting thread's unused end of its chunk becomes a remnant; its records stay
 * below its chunk's `used`, where the builder and the crash dump read them. */
static void give_back_rest(sts_tstate *s)
{
    if (!s->cur || s->full || (size_t)(s->wend - s->wp) < sizeof(sts_chunk) + MIN_REMNANT) return;
    sts_chunk *c = (sts_chunk *)(void *)s->wp;
    atomic_store_explicit(&c->used, (size_t)(s->wend - s->wp), memory_order_relaxed);
    s->wend = s->wp;
    push_remnant(c);
}

static void push_free(sts_tstate *s)
{
    if (s->on_free) return;
    s->on_free = 1;
    s->free_next = sts_rec.free_states;
    sts_rec.free_states = s;
}

void sts_rec_collect_free(void)
{
    uint32_t running = atomic_load_explicit(&sts_rec.session, memory_order_relaxed);
    for (sts_tstate *t = atomic_load_explicit(&sts_rec.threads, memory_order_relaxed); t;
         t = atomic_load_explicit(&t->next, memory_order_relaxed))
        if (atomic_load_explicit(&t->exited, memory_order_relaxed) && t->session != running) push_free(t);
}

/* A thread's TLS destructor: its state stays in the registry (with its events) and
 * becomes reusable once the session it recorded for has been stopped; the unused
 * rest of its chunk serves later threads of the session now. */
static void on_thread_exit(void *p)
{
    sts_tstate *s = p;
    pthread_mutex_lock(&sts_rec.lock);
    uint32_t running = atomic_load_explicit(&sts_rec.session, memory_order_relaxed);
    if (running != 0 && s->session == running) give_back_rest(s);
    atomic_store_explicit(&s->exited, 1, memory_order_release);
    if (s->session != running) push_free(s);
    pthread_mutex_unlock(&sts_rec.lock);
    tls_state = NULL;
    tls_exiting = 1;
}

static void make_exit_key(void)
{
    exit_key_ok = pthread_key_create(&exit_key, on_thread_exit) == 0;
}

static void default_name(sts_tstate *s)
{
    char buf[64] = "";
    if (pthread_getname_np(pthread_self(), buf, sizeof buf) != 0 || !buf[0])
        snprintf(buf, sizeof buf, "thread %lld", (long long)s->tid);
    snprintf(s->name, sizeof s->name, "%s", buf);
    sts_utf8_trim(s->name); /* the kernel keeps 15 bytes of a name, cutting characters */
}

/* The calling thread's state, created (or recycled) on first use. Holds the lock. */
static sts_tstate *state_for_thread(void)
{
    if (tls_state) return tls_state;
    if (tls_exiting) return NULL;
    pthread_once(&exit_once, make_exit_key);
    uint32_t running = atomic_load_explicit(&sts_rec.session, memory_order_relaxed);
    sts_tstate *s = sts_rec.free_states;
    while (s && !(atomic_load_explicit(&s->exited, memory_order_acquire) && s->session != running)) {
        sts_rec.free_states = s->free_next; /* not reusable now: off the list */
        s->on_free = 0;
        s = sts_rec.free_states;
    }
    if (s) {
        sts_rec.free_states = s->free_next;
        s->on_free = 0;
        atomic_store_explicit(&s->exited, 0, memory_order_relaxed);
    } else {
        s = calloc(1, sizeof *s);
        if (!s) return NULL;
        atomic_store_explicit(&s->next, atomic_load_explicit(&sts_rec.threads, memory_order_relaxed),
                              memory_order_relaxed);
        atomic_store_explicit(&sts_rec.threads, s, memory_order_release);
    }
    s->session = STS_NO_SESSION;
    s->tid = (int64_t)gettid();
    s->order = sts_rec.nthreads++;
    default_name(s);
    if (exit_key_ok) pthread_setspecific(exit_key, s);
    tls_state = s;
    return s;
}

/* Resets a state for a new session and gives it its first chunk. Holds the lock. */
static void join_session(sts_tstate *s, uint32_t session)
{
    s->session = session;
    s->tsc = sts_rec.clock.tsc;
    atomic_store_explicit(&s->depth, 0, memory_order_relaxed);
    atomic_store_explicit(&s->dropped, 0, memory_order_relaxed);
    atomic_store_explicit(&s->too_deep, 0, memory_order_relaxed);
    atomic_store_explicit(&s->unmatched, 0, memory_order_relaxed);
    s->full = 0;
    s->held = 0;
    s->last_t1 = 0;
    s->cur = NULL;
    s->wp = s->wend = NULL;
    atomic_store_explicit(&s->first, NULL, memory_order_release);
    atomic_fetch_add_explicit(&sts_rec.joined, 1, memory_order_relaxed);
    (void)sts_rec_reserve_slow(s, sizeof(sts_rec_scope));
}

static sts_tstate *attach_slow(void)
{
    pthread_mutex_lock(&sts_rec.lock);
    uint32_t session = atomic_load_explicit(&sts_rec.session, memory_order_relaxed);
    sts_tstate *s = NULL;
    if (session != 0) {
        s = state_for_thread();
        if (s && s->session != session) join_session(s, session);
    }
    pthread_mutex_unlock(&sts_rec.lock);
    return s;
}

static inline sts_tstate *current(void)
{
    sts_tstate *s = tls_state;
    uint32_t session = atomic_load_explicit(&sts_rec.session, memory_order_relaxed);
    if (LIKELY(s && s->session == session)) return s;
    if (session == 0) return NULL;
    return attach_slow();
}

sts_tstate *sts_rec_current(void)
{
    return current();
}

/* Whether the thread may take another chunk, and which. With thread_bytes set, up to
 * that cap. Otherwise a thread's first chunk is granted while any is free, and a
 * later one only (1) within the thread's share of the pool not kept back, (pool -
 * kept back) / threads joined, and (2) when it leaves free the chunks kept back for
 * the first chunks of threads yet to join. So with 8 threads every one records, and
 * one thread alone still gets nearly the whole pool. Both limits only tighten as
 * threads join, so a refusal stays right until stop. Within them a remnant of an
 * exited thread is taken first, so the pool's whole chunks last longer. */
static sts_chunk *take_chunk(const sts_tstate *s, size_t *bytes)
{
    size_t n = sts_rec.nchunks, keep = 0;
    if (sts_rec.thread_cap) {
        if (s->held >= sts_rec.thread_cap) return NULL;
    } else if (s->held > 0) {
        size_t joined = atomic_load_explicit(&sts_rec.joined, memory_order_relaxed);
        if (joined == 0) joined = 1;
        keep = sts_rec.first_reserve > joined ? sts_rec.first_reserve - joined : 0;
        if (s->held - 1 >= (n - sts_rec.first_reserve) / joined) return NULL;
    }
    sts_chunk *c = pop_remnant();
    if (c) {
        *bytes = atomic_load_explicit(&c->used, memory_order_relaxed);
        return c;
    }
    size_t t = atomic_load_explicit(&sts_rec.next_chunk, memory_order_relaxed);
    do {
        if (t + 1 + keep > n) return NULL;
    } while (!atomic_compare_exchange_weak_explicit(&sts_rec.next_chunk, &t, t + 1, memory_order_relaxed,
                                                    memory_order_relaxed));
    *bytes = sts_rec.chunk_bytes;
    return (sts_chunk *)(void *)(sts_rec.pool + t * sts_rec.chunk_bytes);
}

char *sts_rec_reserve_slow(sts_tstate *s, size_t need)
{
    if (s->full) return NULL;
    size_t bytes = 0;
    sts_chunk *c = need > sts_rec.chunk_bytes - sizeof(sts_chunk) ? NULL : take_chunk(s, &bytes);
    if (!c) {
        /* From here on this thread drops everything until stop, so the count of
         * dropped scopes is exact and no later, smaller record sneaks in. */
        s->full = 1;
        s->wend = s->wp;
        return NULL;
    }
    s->held++;
    atomic_store_explicit(&c->next, NULL, memory_order_relaxed);
    atomic_store_explicit(&c->used, 0, memory_order_relaxed);
    if (s->cur)
        atomic_store_explicit(&s->cur->next, c, memory_order_release);
    else
        atomic_store_explicit(&s->first, c, memory_order_release);
    s->cur = c;
    s->wp = c->data;
    s->wend = (char *)c + bytes;
    return s->wp;
}

/* ---- hot path ------------------------------------------------------------------ */

static inline uint32_t begin_in(sts_tstate *s, const char *name)
{
    uint32_t d = atomic_load_explicit(&s->depth, memory_order_relaxed);
    if (LIKELY(d < STS_TRACE_MAX_DEPTH)) {
        atomic_store_explicit(&s->stack[d].name, name, memory_order_relaxed);
        atomic_store_explicit(&s->stack[d].t0, sts_ticks(s->tsc), memory_order_relaxed);
    }
    atomic_store_explicit(&s->depth, d + 1, memory_order_release);
    return s->session;
}

/* The first scope of a thread in a session: join it, then record. */
__attribute__((noinline)) static uint32_t begin_slow(const char *name)
{
    sts_tstate *s = attach_slow();
    return s ? begin_in(s, name) : 0;
}

uint32_t sts_scope_begin(const char *name)
{
    sts_tstate *s = tls_state;
    uint32_t session = atomic_load_explicit(&sts_rec.session, memory_order_relaxed);
    if (LIKELY(s && s->session == session)) return begin_in(s, name);
    if (session == 0) return 0;
    return begin_slow(name);
}

static inline void end_scope(sts_tstate *s)
{
    uint64_t t1 = sts_ticks(s->tsc);
    uint32_t d = atomic_load_explicit(&s->depth, memory_order_relaxed);
    if (UNLIKELY(d == 0)) {
        sts_rec_count(&s->unmatched);
        return;
    }
    d--;
    atomic_store_explicit(&s->depth, d, memory_order_release);
    if (UNLIKELY(d >= STS_TRACE_MAX_DEPTH)) {
        sts_rec_count(&s->too_deep);
        return;
    }
    char *p = sts_rec_reserve(s, sizeof(sts_rec_scope));
    if (UNLIKELY(!p)) {
        sts_rec_count(&s->dropped);
        return;
    }
    sts_rec_scope *r = (sts_rec_scope *)(void *)p;
    r->kd = STS_REC_SCOPE | d << 8;
    r->reserved = 0;
    r->name = atomic_load_explicit(&s->stack[d].name, memory_order_relaxed);
    r->t0 = atomic_load_explicit(&s->stack[d].t0, memory_order_relaxed);
    r->t1 = t1;
    sts_rec_commit(s, sizeof *r);
    s->last_t1 = t1;
}

void sts_scope_end(void)
{
    sts_tstate *s = tls_state;
    if (UNLIKELY(!s || s->session != atomic_load_explicit(&sts_rec.session, memory_order_relaxed))) return;
    end_scope(s);
}

void sts_scope_end_token(uint32_t token)
{
    sts_tstate *s = tls_state;
    if (UNLIKELY(token == 0 || !s || s->session != token ||
                 token != atomic_load_explicit(&sts_rec.session, memory_order_relaxed)))
        return;
    end_scope(s);
}

/* Appends an arg record for the innermost open frame. */
static void put_arg(uint32_t kind, const char *key, int64_t i, double dv, const char *str)
{
    sts_tstate *s = tls_state;
    if (!s || s->session != atomic_load_explicit(&sts_rec.session, memory_order_relaxed) || !key) return;
    uint32_t d = atomic_load_explicit(&s->depth, memory_order_relaxed);
    if (d == 0 || d > STS_TRACE_MAX_DEPTH) return;
    size_t len = 0, size = sizeof(sts_rec_arg);
    if (kind == STS_REC_ARG_STR) {
        if (!str) str = "";
        len = sts_utf8_cut(str, strnlen(str, STS_REC_STR_MAX)); /* kept whole characters */
        size = (STS_REC_ARG_HEADER + len + 1 + 7) & ~(size_t)7;
    }
    char *p = sts_rec_reserve(s, size);
    if (!p) return; /* its scope is dropped (and counted) too: the thread is full */
    sts_rec_arg *a = (sts_rec_arg *)(void *)p;
    a->kd = kind | (d - 1) << 8;
    a->len = (uint32_t)len;
    a->key = key;
    if (kind == STS_REC_ARG_STR) {
        char *dst = p + STS_REC_ARG_HEADER;
        memcpy(dst, str, len);
        memset(dst + len, 0, size - STS_REC_ARG_HEADER - len);
    } else if (kind == STS_REC_ARG_DOUBLE) {
        a->v.d = dv;
    } else {
        a->v.i = i;
    }
    sts_rec_commit(s, size);
}

void sts_scope_arg_int(const char *key, int64_t value)
{
    put_arg(STS_REC_ARG_INT, key, value, 0, NULL);
}
void sts_scope_arg_double(const char *key, double value)
{
    put_arg(STS_REC_ARG_DOUBLE, key, 0, value, NULL);
}
void sts_scope_arg_str(const char *key, const char *value)
{
    put_arg(STS_REC_ARG_STR, key, 0, 0, value);
}

uint32_t sts_step_begin(const char *name, int64_t step_num)
{
    uint32_t token = sts_scope_begin(name);
    if (token) {
        put_arg(STS_REC_ARG_INT, "step_num", step_num, 0, NULL);
        put_arg(STS_REC_ARG_INT, "_r", 1, 0, NULL);
    }
    return token;
}

void sts_step_end(void)
{
    sts_scope_end();
}

int64_t sts_trace_now_ns(void)
{
    return sts_clock_ns();
}

int sts_trace_active(void)
{
    return atomic_load_explicit(&sts_rec.session, memory_order_acquire) != 0;
}

void sts_trace_thread_name(const char *name)
{
    if (!name) return;
    pthread_mutex_lock(&sts_rec.lock);
    sts_tstate *s = state_for_thread();
    if (s) {
        snprintf(s->name, sizeof s->name, "%s", name);
        sts_utf8_trim(s->name);
    }
    pthread_mutex_unlock(&sts_rec.lock);
}

/* ---- start -------------------------------------------------------------------- */

#define DEFAULT_POOL  ((size_t)16 << 20)
#define DEFAULT_CHUNK ((size_t)64 << 10)
#define MIN_CHUNK     ((size_t)512)
/* The default chunk is a 256th of the pool (within 512 B..64 KiB), so even a small
 * pool splits into enough chunks to share between threads. */
#define CHUNKS_PER_POOL 256
/* Chunks kept back for late threads' first chunks: an eighth of the pool, at most
 * this many. */
#define MAX_FIRST_RESERVE 32

static int mkdirs(const char *path)
{
    char buf[4096];
    size_t n = strlen(path);
    if (n >= sizeof buf) {
        errno = ENAMETOOLONG;
        return -1;
    }
    memcpy(buf, path, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0') continue;
        char c = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0777) != 0 && errno != EEXIST) return -1;
        buf[i] = c;
    }
    struct stat st;
    if (stat(path, &st) != 0) return -1;
    if (!S_ISDIR(st.st_mode)) {
        errno = ENOTDIR;
        return -1;
    }
    return 0;
}

static sts_status map_pool(size_t bytes, sts_error *err)
{
    if (sts_rec.pool && sts_rec.pool_bytes == bytes) return STS_OK;
    if (sts_rec.pool) munmap(sts_rec.pool, sts_rec.pool_bytes);
    sts_rec.pool = NULL;
    void *p = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED)
        return sts_error_set(err, STS_ERR_NOMEM, -1, "sts_trace_start: cannot map a %zu-byte event pool: %s", bytes,
                             strerror(errno));
#ifdef MADV_HUGEPAGE
    /* Fewer first-touch page faults on the hot path: one per 2 MiB instead of 4 KiB
     * where transparent huge pages are enabled (a hint; ignored elsewhere). */
    madvise(p, bytes, MADV_HUGEPAGE);
#endif
    sts_rec.pool = p;
    sts_rec.pool_bytes = bytes;
    return STS_OK;
}

/* Faults the pool's pages in now, so that zeroing them is paid at start and not
 * inside the scopes being measured (stop gives the pages back). */
static void prefault_pool(void)
{
#ifdef MADV_POPULATE_WRITE
    if (madvise(sts_rec.pool, sts_rec.pool_bytes, MADV_POPULATE_WRITE) == 0) return;
#endif
    long page = sysconf(_SC_PAGESIZE);
    if (page <= 0) page = 4096;
    for (size_t off = 0; off < sts_rec.pool_bytes; off += (size_t)page)
        ((volatile char *)sts_rec.pool)[off] = 0;
}

static void exit_flush(void)
{
    if (!sts_trace_active() || !sts_rec.opt.flush_at_exit) return;
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_stop(NULL, &err) != STS_OK) fprintf(stderr, "stepscope: trace at exit: %s\n", err.message);
}

static sts_status check_options(const sts_trace_options *o, sts_error *err)
{
    if (o->chunk_bytes < MIN_CHUNK || o->chunk_bytes > o->pool_bytes)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "sts_trace_start: chunk_bytes %zu must be at least %zu and at most pool_bytes %zu",
                             o->chunk_bytes, MIN_CHUNK, o->pool_bytes);
    if (o->clock == STS_TRACE_CLOCK_TSC && !sts_tsc_invariant())
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                             "sts_trace_start: clock TSC requested but this CPU's TSC is not invariant "
                             "(cpuid 0x80000007 EDX bit 8 clear)");
    if ((unsigned)o->clock > STS_TRACE_CLOCK_MONOTONIC)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "sts_trace_start: unknown clock %d", (int)o->clock);
    return STS_OK;
}

/* fork(): the child must not find the registry locked by a thread it does not have,
 * and must not go on with the parent's session. That session (its events so far, its
 * directory, its stop at exit, its signal dump) belongs to the parent: a child that
 * kept it wrote a second run of the parent's events at its exit, which could become the
 * directory's latest. The child records nothing until it starts a session of its own.
 * Only the forking thread lives on in it, so the others' states are free for reuse. */
static void fork_prepare(void)
{
    pthread_mutex_lock(&sts_rec.lock);
}

static void fork_parent(void)
{
    pthread_mutex_unlock(&sts_rec.lock);
}

static void fork_child(void)
{
    if (atomic_load_explicit(&sts_rec.session, memory_order_relaxed) != 0) {
        atomic_store_explicit(&sts_rec.session, 0, memory_order_relaxed);
        __atomic_store_n(&sts__trace_on, 0u, __ATOMIC_RELAXED);
        sts_crash_forget();
    }
    for (sts_tstate *t = atomic_load_explicit(&sts_rec.threads, memory_order_relaxed); t;
         t = atomic_load_explicit(&t->next, memory_order_relaxed))
        if (t != tls_state) atomic_store_explicit(&t->exited, 1, memory_order_relaxed);
    sts_rec_collect_free();
    pthread_mutex_unlock(&sts_rec.lock);
}

static pthread_once_t fork_once = PTHREAD_ONCE_INIT;

static void watch_forks(void)
{
    pthread_atfork(fork_prepare, fork_parent, fork_child);
}

static char host_copy[256];

sts_status sts_trace_start(const char *dir, const sts_trace_options *opt, sts_error *err)
{
    if (!dir || !*dir) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "sts_trace_start: no directory given");
    if (strlen(dir) >= sizeof sts_rec.dir)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "sts_trace_start: directory name too long");
    sts_trace_options o = STS_TRACE_OPTIONS_INIT;
    if (opt) o = *opt;
    if (!o.pool_bytes) o.pool_bytes = DEFAULT_POOL;
    if (!o.chunk_bytes) {
        size_t c = o.pool_bytes / CHUNKS_PER_POOL;
        o.chunk_bytes = c < MIN_CHUNK ? MIN_CHUNK : c > DEFAULT_CHUNK ? DEFAULT_CHUNK : c;
        if (o.chunk_bytes > o.pool_bytes) o.chunk_bytes = o.pool_bytes;
    }
    o.chunk_bytes &= ~(size_t)7;
    sts_status st = check_options(&o, err);
    if (st != STS_OK) return st;
    pthread_once(&fork_once, watch_forks);

    pthread_mutex_lock(&sts_rec.lock);
    if (atomic_load_explicit(&sts_rec.session, memory_order_relaxed) != 0) {
        st = sts_error_set(err, STS_ERR_STATE, -1, "sts_trace_start: a session is already running (writing to %s)",
                           sts_rec.dir);
        goto out;
    }
    if (mkdirs(dir) != 0) {
        st =
            sts_error_set(err, STS_ERR_IO, -1, "sts_trace_start: cannot create directory %s: %s", dir, strerror(errno));
        goto out;
    }
    size_t nchunks = o.pool_bytes / o.chunk_bytes;
    st = map_pool(nchunks * o.chunk_bytes, err);
    if (st != STS_OK) goto out;
    if (!o.lazy_pages) prefault_pool();
    sts_rec.chunk_bytes = o.chunk_bytes;
    sts_rec.nchunks = nchunks;
    sts_rec.first_reserve = nchunks / 8 < MAX_FIRST_RESERVE ? nchunks / 8 : MAX_FIRST_RESERVE;
    sts_rec.thread_cap = o.thread_bytes ? (o.thread_bytes / o.chunk_bytes ? o.thread_bytes / o.chunk_bytes : 1) : 0;
    atomic_store_explicit(&sts_rec.next_chunk, 0, memory_order_relaxed);
    atomic_store_explicit(&sts_rec.joined, 0, memory_order_relaxed);
    atomic_store_explicit(&sts_rec.remnants, 0, memory_order_relaxed);

    snprintf(sts_rec.dir, sizeof sts_rec.dir, "%s", dir);
    if (o.host) {
        snprintf(host_copy, sizeof host_copy, "%s", o.host);
        o.host = host_copy;
    }
    sts_rec.opt = o;
    int tsc = o.clock == STS_TRACE_CLOCK_TSC || (o.clock == STS_TRACE_CLOCK_AUTO && sts_tsc_invariant());
    /* The provisional rate only serves the crash dump and very short sessions; 1 ms
     * gives it about 20 ppm. */
    sts_tclock_begin(&sts_rec.clock, tsc, 1000000);
    sts_rec.start_ns = sts_rec.clock.a.ns;

    static int atexit_done;
    if (o.flush_at_exit && !atexit_done) atexit_done = atexit(exit_flush) == 0;
    if (o.flush_on_signal) sts_crash_install();

    uint32_t id = ++sts_rec.last_session;
    if (id == 0 || id == STS_NO_SESSION) id = sts_rec.last_session = 1;
    atomic_store_explicit(&sts_rec.session, id, memory_order_release);
    __atomic_store_n(&sts__trace_on, 1u, __ATOMIC_RELEASE);
out:
    pthread_mutex_unlock(&sts_rec.lock);
    return st;
}
