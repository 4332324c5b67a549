/* Reading many hosts at once: worker threads each open a file, reduce it and free it.
 * A failure stops new work; the failure reported is that of the first host in set
 * order, whichever thread saw which first, so the message does not depend on timing. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "base/threads.h"
#include "hosts/hosts_impl.h"

typedef struct pool {
    const sts_host_file *files;
    const size_t *which; /* position -> host index; NULL: the identity */
    size_t n;            /* positions */
    const sts_hosts_options *opt;
    sts_open_options open;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    size_t next;     /* the next position to claim */
    size_t consumed; /* positions handed to the callback (sts_hostset_each) */
    size_t window;   /* claim a position only below consumed + window */
    int stop;
    sts_error *errs; /* per position */
    unsigned char *failed, *ready;
    sts_timeline **tls; /* per position (sts_hostset_each) */
} pool;

static unsigned default_jobs(unsigned jobs, size_t n)
{
    if (jobs == 0) jobs = (unsigned)sts_cores();
    if (jobs > n) jobs = (unsigned)(n ? n : 1);
    return jobs;
}

static size_t host_of(const pool *p, size_t pos)
{
    return p->which ? p->which[pos] : pos;
}

/* The next position to work on, or SIZE_MAX when there is none (or the pool stopped). */
static size_t claim(pool *p)
{
    pthread_mutex_lock(&p->mu);
    while (!p->stop && p->next < p->n && p->next >= p->consumed + p->window)
        pthread_cond_wait(&p->cv, &p->mu);
    size_t pos = SIZE_MAX;
    if (!p->stop && p->next < p->n) pos = p->next++;
    pthread_mutex_unlock(&p->mu);
    return pos;
}

static void fail(pool *p, size_t pos)
{
    pthread_mutex_lock(&p->mu);
    p->failed[pos] = 1;
    p->stop = 1;
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
}

/* ---- reduce every host (sts_hosts_read) ---------------------------------------------- */

typedef struct reader {
    pool *p;
    sts_hosts *local;
    pthread_t thread;
} reader;

static void read_one(pool *p, sts_hosts *local, size_t pos)
{
    const sts_host_file *f = &p->files[host_of(p, pos)];
    sts_timeline *tl = NULL;
    sts_error *e = &p->errs[pos];
    sts_status st = sts_timeline_open(f->path, &p->open, &tl, e);
    if (st == STS_OK) st = sts_hosts_add(local, host_of(p, pos), f->name, tl, p->opt, e);
    sts_timeline_free(tl);
    if (st != STS_OK) fail(p, pos);
}

static void *read_loop(void *arg)
{
    reader *r = arg;
    for (size_t pos; (pos = claim(r->p)) != SIZE_MAX;)
        read_one(r->p, r->local, pos);
    return NULL;
}

static sts_status pool_init(pool *p, const sts_hostset *set, const size_t *which, size_t n, sts_error *err)
{
    size_t nfiles;
    p->files = sts_hostset_files(set, &nfiles);
    p->which = which;
    p->n = which ? n : nfiles;
    for (size_t i = 0; which && i < n; i++)
        if (which[i] >= nfiles)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "hosts: host %zu of a set of %zu", which[i], nfiles);
    p->errs = calloc(p->n ? p->n : 1, sizeof *p->errs);
    p->failed = calloc(p->n ? p->n : 1, 1);
    p->ready = calloc(p->n ? p->n : 1, 1);
    p->tls = calloc(p->n ? p->n : 1, sizeof *p->tls);
    p->window = SIZE_MAX / 2;
    if (!p->errs || !p->failed || !p->ready || !p->tls) return sts_hosts_nomem(err);
    for (size_t i = 0; i < p->n; i++)
        sts_error_clear(&p->errs[i]);
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->cv, NULL);
    return STS_OK;
}

static void pool_release(pool *p)
{
    if (p->tls)
        for (size_t i = 0; i < p->n; i++)
            sts_timeline_free(p->tls[i]);
    free(p->errs);
    free(p->failed);
    free(p->ready);
    free(p->tls);
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->cv);
}

/* The failure of the first failed position, into err. */
static sts_status first_failure(const pool *p, sts_error *err)
{
    for (size_t i = 0; i < p->n; i++) {
        if (!p->failed[i]) continue;
        if (err) *err = p->errs[i];
        return p->errs[i].code != STS_OK ? p->errs[i].code : STS_ERR_INTERNAL;
    }
    return STS_OK;
}

sts_status sts_hosts_read(const sts_hostset *set, const size_t *which, size_t n, const sts_hosts_options *opt,
                          sts_hosts **out, sts_error *err)
{
    static const sts_hosts_options defaults = STS_HOSTS_OPTIONS_INIT;
    if (!opt) opt = &defaults;
    *out = NULL;
    pool p;
    memset(&p, 0, sizeof p);
    p.opt = opt;
    p.open = opt->open;
    p.open.run = NULL;
    p.open.progress = NULL; /* per-file progress from several threads would interleave */
    if (opt->what & STS_HOSTS_COLLECTIVES)
        p.open.args = (sts_args_mode)((unsigned)p.open.args | STS_ARGS_WITH_COLLECTIVES);
    sts_status st = pool_init(&p, set, which, n, err);
    if (st != STS_OK) {
        pool_release(&p);
        return st;
    }
    unsigned jobs = default_jobs(opt->jobs, p.n);
    /* Files read side by side are the parallelism: chunk threads inside each as well
     * would put jobs x cores threads on the cores. */
    if (jobs > 1 && p.open.jobs == 0) p.open.jobs = 1;
    reader *rs = calloc(jobs, sizeof *rs);
    if (!rs) {
        pool_release(&p);
        return sts_hosts_nomem(err);
    }
    unsigned started = 0;
    for (unsigned i = 0; i < jobs; i++) {
        rs[i].p = &p;
        rs[i].local = sts_hosts_create();
        if (!rs[i].local) break;
        if (i == 0) continue; /* the calling thread is the first reader */
        if (pthread_create(&rs[i].thread, NULL, read_loop, &rs[i]) != 0) break;
        started = i;
    }
    if (rs[0].local) read_loop(&rs[0]);
    for (unsigned i = 1; i <= started; i++)
        pthread_join(rs[i].thread, NULL);
    st = rs[0].local ? first_failure(&p, err) : sts_hosts_nomem(err);
    for (unsigned i = 1; i < jobs && st == STS_OK; i++)
        if (rs[i].local) st = sts_hosts_merge(rs[0].local, rs[i].local, err);
    for (unsigned i = 1; i < jobs; i++)
        sts_hosts_free(rs[i].local);
    if (st == STS_OK) {
        *out = rs[0].local;
    } else {
        sts_hosts_free(rs[0].local);
    }
    free(rs);
    pool_release(&p);
    return st;
}

/* ---- hand each timeline over in order (sts_hostset_each) ---------------------------------- */

static void *open_loop(void *arg)
{
    pool *p = arg;
    for (size_t pos; (pos = claim(p)) != SIZE_MAX;) {
        sts_timeline *tl = NULL;
        if (sts_timeline_open(p->files[pos].path, &p->open, &tl, &p->errs[pos]) != STS_OK) {
            fail(p, pos);
            continue;
        }
        pthread_mutex_lock(&p->mu);
        p->tls[pos] = tl;
        p->ready[pos] = 1;
        pthread_cond_broadcast(&p->cv);
        pthread_mutex_unlock(&p->mu);
    }
    return NULL;
}

sts_status sts_hostset_each(const sts_hostset *set, const sts_open_options *opt, unsigned jobs, sts_hostset_fn fn,
                            void *user, sts_error *err)
{
    static const sts_open_options defaults = STS_OPEN_OPTIONS_INIT;
    pool p;
    memset(&p, 0, sizeof p);
    p.open = opt ? *opt : defaults;
    p.open.run = NULL;
    p.open.progress = NULL;
    sts_status st = pool_init(&p, set, NULL, 0, err);
    if (st != STS_OK) {
        pool_release(&p);
        return st;
    }
    jobs = default_jobs(jobs, p.n);
    if (jobs > 1 && p.open.jobs == 0) p.open.jobs = 1; /* as in sts_hosts_read */
    p.window = jobs;
    pthread_t *th = calloc(jobs, sizeof *th);
    unsigned started = 0;
    while (th && started < jobs && pthread_create(&th[started], NULL, open_loop, &p) == 0)
        started++;
    if (!started) st = sts_hosts_nomem(err);
    for (size_t pos = 0; pos < p.n && st == STS_OK; pos++) {
        pthread_mutex_lock(&p.mu);
        while (!p.ready[pos] && !p.failed[pos])
            pthread_cond_wait(&p.cv, &p.mu);
        sts_timeline *tl = p.tls[pos];
        p.tls[pos] = NULL;
        int failed = p.failed[pos];
        pthread_mutex_unlock(&p.mu);
        if (failed) {
            if (err) *err = p.errs[pos];
            st = p.errs[pos].code != STS_OK ? p.errs[pos].code : STS_ERR_INTERNAL;
            break;
        }
        st = fn(pos, &p.files[pos], tl, user, err);
        sts_timeline_free(tl);
        pthread_mutex_lock(&p.mu);
        p.consumed = pos + 1;
        pthread_cond_broadcast(&p.cv);
        pthread_mutex_unlock(&p.mu);
    }
    pthread_mutex_lock(&p.mu);
    p.stop = 1;
    pthread_cond_broadcast(&p.cv);
    pthread_mutex_unlock(&p.mu);
    for (unsigned i = 0; i < started; i++)
        pthread_join(th[i], NULL);
    free(th);
    pool_release(&p);
    return st;
}
