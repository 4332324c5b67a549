/* --mpi: the ranks of an mpirun job divide the hosts' files, each reduces its share to
 * records (include/stepscope/hosts.h), and the records travel to rank 0, which prints
 * what one process reading every file prints. Exact: counts and sums add, medians are
 * found by counting rounds (sts_xmedian) over every rank's durations, which never
 * leave their rank. Every step that can fail is followed by a collective that tells
 * every rank, so a failure ends the job on all ranks with one message, never a hang.
 *
 * Built with MPI when the Makefile finds it (programs/programs.mk defines
 * STS_HAVE_MPI); otherwise --mpi says how to get it. The library knows nothing of MPI. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "hosts_cli.h"

#ifndef STS_HAVE_MPI

int hm_built(void)
{
    return 0;
}

int hm_init(const char *cmd)
{
    fprintf(stderr,
            "stepscope %s: --mpi: this stepscope was built without MPI; install Open MPI (apt-get install "
            "libopenmpi-dev openmpi-bin) and rebuild, then run it under mpirun\n",
            cmd);
    return CLI_USAGE;
}

int hm_rank(void)
{
    return 0;
}

int hm_size(void)
{
    return 1;
}

unsigned hm_default_jobs(void)
{
    return 1;
}

int hm_share_set(const char *cmd, sts_hostset **set, int rc0, const char *msg0)
{
    (void)cmd, (void)set, (void)msg0;
    return rc0;
}

int hm_collect(const char *cmd, const sts_hostset *set, const sts_hosts_options *ho, sts_hosts **out)
{
    (void)set, (void)ho, (void)out;
    return hm_init(cmd);
}

#else

#include <mpi.h>
#include <sys/resource.h>

static int g_rank, g_size, g_started;
static int g_local = 1; /* ranks on this node */

/* What the reduce moved, for STEPSCOPE_MPI_STATS=1 (make bench reports it). */
static struct {
    double t0, read_s, names_s, reduce_s;
    double cpu_max, cpu_min, cpu_sum; /* the ranks' CPU seconds (user + system) at the end of reading */
    uint64_t names, rounds, counters, names_bytes, records_bytes;
} g_stats;

static double cpu_seconds(void)
{
    struct rusage ru;
    if (getrusage(RUSAGE_SELF, &ru) != 0) return 0;
    return (double)ru.ru_utime.tv_sec + (double)ru.ru_utime.tv_usec / 1e6 + (double)ru.ru_stime.tv_sec +
           (double)ru.ru_stime.tv_usec / 1e6;
}

int hm_built(void)
{
    return 1;
}

static void finalize_at_exit(void)
{
    int done = 0;
    MPI_Finalized(&done);
    if (!done) MPI_Finalize();
}

int hm_init(const char *cmd)
{
    (void)cmd;
    if (g_started) return CLI_OK;
    int inited = 0;
    MPI_Initialized(&inited);
    int provided = 0; /* threads read files and chunks; only this one calls MPI */
    if (!inited && MPI_Init_thread(NULL, NULL, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) {
        cli_say(stderr, "stepscope %s: --mpi: MPI_Init failed\n", cmd);
        return CLI_BAD_INPUT;
    }
    atexit(finalize_at_exit);
    MPI_Comm_rank(MPI_COMM_WORLD, &g_rank);
    MPI_Comm_size(MPI_COMM_WORLD, &g_size);
    /* A collective: here, where every rank is, not where one rank decides its threads. */
    MPI_Comm node;
    if (MPI_Comm_split_type(MPI_COMM_WORLD, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node) == MPI_SUCCESS) {
        MPI_Comm_size(node, &g_local);
        MPI_Comm_free(&node);
    }
    g_started = 1;
    return CLI_OK;
}

int hm_rank(void)
{
    return g_rank;
}

int hm_size(void)
{
    return g_size;
}

unsigned hm_default_jobs(void)
{
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    long jobs = cpus > 0 ? cpus / (g_local > 0 ? g_local : 1) : 1;
    return jobs > 0 ? (unsigned)jobs : 1;
}

/* ---- moving bytes ----------------------------------------------------------------------- */

/* Rank 0's bytes to every rank (buf is malloc'd on the others). */
static int bcast_bytes(void **buf, size_t *len)
{
    uint64_t n = *len;
    MPI_Bcast(&n, 1, MPI_UINT64_T, 0, MPI_COMM_WORLD);
    if (n > INT_MAX) return -1;
    if (g_rank != 0) {
        *buf = malloc(n ? n : 1);
        *len = n;
        if (!*buf) return -1; /* every rank takes part in the Bcast below or none does: abort */
    }
    MPI_Bcast(*buf, (int)n, MPI_BYTE, 0, MPI_COMM_WORLD);
    return 0;
}

/* Every rank's bytes to rank 0: all[r] and lens[r] on rank 0 (one malloc'd block). */
static int gather_bytes(const void *buf, size_t len, unsigned char **all, int **lens, int **offs)
{
    int n = len > INT_MAX ? -1 : (int)len, bad = n < 0, any_bad = 0;
    MPI_Allreduce(&bad, &any_bad, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_bad) return -1;
    *all = NULL;
    *lens = *offs = NULL;
    if (g_rank == 0) {
        *lens = calloc((size_t)g_size, sizeof **lens);
        *offs = calloc((size_t)g_size, sizeof **offs);
        if (!*lens || !*offs) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Gather(&n, 1, MPI_INT, *lens, 1, MPI_INT, 0, MPI_COMM_WORLD);
    int too_big = 0;
    if (g_rank == 0) {
        int64_t total = 0;
        for (int r = 0; r < g_size; r++) {
            (*offs)[r] = (int)total;
            total += (*lens)[r];
        }
        too_big = total > INT_MAX;
        if (!too_big && !(*all = malloc(total ? (size_t)total : 1))) MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Bcast(&too_big, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (too_big) return -1;
    MPI_Gatherv(buf, n, MPI_BYTE, *all, *lens, *offs, MPI_BYTE, 0, MPI_COMM_WORLD);
    return 0;
}

/* ---- the host list ------------------------------------------------------------------------- */

/* The set as "path\0name\0size\0" triples. */
static int pack_set(const sts_hostset *set, void **buf, size_t *len)
{
    size_t n, cap = 1;
    const sts_host_file *f = sts_hostset_files(set, &n);
    for (size_t i = 0; i < n; i++)
        cap += strlen(f[i].path) + strlen(f[i].name) + 24;
    char *b = malloc(cap), *p = b;
    if (!b) return -1;
    for (size_t i = 0; i < n; i++)
        p += sprintf(p, "%s%c%s%c%" PRIu64 "%c", f[i].path, 0, f[i].name, 0, f[i].size, 0);
    *buf = b;
    *len = (size_t)(p - b);
    return 0;
}

static int unpack_set(const char *b, size_t len, sts_hostset **set)
{
    size_t n = 0;
    for (size_t i = 0; i < len; i++)
        n += b[i] == 0;
    n /= 3;
    sts_host_file *f = calloc(n ? n : 1, sizeof *f);
    if (!f) return -1;
    const char *p = b;
    for (size_t i = 0; i < n; i++) {
        f[i].path = p;
        p += strlen(p) + 1;
        f[i].name = p;
        p += strlen(p) + 1;
        f[i].size = strtoull(p, NULL, 10);
        p += strlen(p) + 1;
    }
    sts_status st = sts_hostset_from(f, n, set, NULL);
    free(f);
    return st == STS_OK ? 0 : -1;
}

int hm_share_set(const char *cmd, sts_hostset **set, int rc0, const char *msg0)
{
    int rc = rc0;
    MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
    if (rc != CLI_OK) {
        if (g_rank == 0 && msg0) cli_say(stderr, "%s\n", msg0);
        return rc;
    }
    void *buf = NULL;
    size_t len = 0;
    if (g_rank == 0 && pack_set(*set, &buf, &len) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
    if (bcast_bytes(&buf, &len) != 0) {
        if (g_rank == 0) cli_say(stderr, "stepscope %s: error: the list of hosts is too long for one message\n", cmd);
        free(buf);
        return CLI_BAD_INPUT;
    }
    int bad = g_rank != 0 && unpack_set(buf, len, set) != 0, any = 0;
    free(buf);
    MPI_Allreduce(&bad, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any && g_rank == 0) cli_say(stderr, "stepscope %s: error: a rank ran out of memory\n", cmd);
    return any ? CLI_BAD_INPUT : CLI_OK;
}

/* ---- failures -------------------------------------------------------------------------------- */

/* Tells every rank whether any failed; rank 0 prints the first failed rank's message.
 * Returns the exit code every rank then returns (CLI_OK when none failed). */
static int agree(const char *cmd, int rc, const char *msg)
{
    int worst = rc == CLI_OK ? 0 : rc, any = 0;
    MPI_Allreduce(&worst, &any, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (!any) return CLI_OK;
    char mine[768] = "";
    if (rc != CLI_OK) snprintf(mine, sizeof mine, "%s", msg && *msg ? msg : "failed");
    char *all = g_rank == 0 ? calloc((size_t)g_size, sizeof mine) : NULL;
    if (g_rank == 0 && !all) MPI_Abort(MPI_COMM_WORLD, 1);
    MPI_Gather(mine, (int)sizeof mine, MPI_CHAR, all, (int)sizeof mine, MPI_CHAR, 0, MPI_COMM_WORLD);
    if (g_rank == 0) {
        int first = -1, failed = 0;
        for (int r = 0; r < g_size; r++) {
            if (!all[(size_t)r * sizeof mine]) continue;
            failed++;
            if (first < 0) first = r;
        }
        cli_say(stderr, "stepscope %s: error: rank %d: %s", cmd, first, all + (size_t)first * sizeof mine);
        if (failed > 1) cli_say(stderr, " (and %d more rank%s failed)", failed - 1, failed == 2 ? "" : "s");
        fputc('\n', stderr);
    }
    free(all);
    return any;
}

/* ---- names: a common table, then exact medians ---------------------------------------------- */

static int cmp_str(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted, unique NUL-separated names a[0..na) and b[0..nb) merged into a new block. */
static char *merge_names(const char *a, size_t na, const char *b, size_t nb, size_t *nout)
{
    char *out = malloc(na + nb + 1), *q = out;
    if (!out) return NULL;
    size_t i = 0, j = 0;
    while (i < na || j < nb) {
        int c = i >= na ? 1 : j >= nb ? -1 : strcmp(a + i, b + j);
        const char *take = c <= 0 ? a + i : b + j;
        size_t len = strlen(take) + 1;
        memcpy(q, take, len);
        q += len;
        if (c <= 0) i += len;
        if (c >= 0) j += strlen(b + j) + 1;
    }
    *nout = (size_t)(q - out);
    return out;
}

/* Every rank's names, sorted and unique, known to every rank as NUL-separated text.
 * The lists merge up a binomial tree (log2(ranks) steps, each list at most the names
 * in all), so rank 0 never holds every rank's copy of names the hosts share. */
static int global_names(const sts_hosts *local, char **text, size_t *len, char ***names, size_t *n)
{
    size_t nl, cap = 1;
    const sts_host_name *hn = sts_hosts_names(local, &nl);
    const char **sorted = malloc((nl ? nl : 1) * sizeof *sorted);
    if (!sorted) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < nl; i++) {
        sorted[i] = hn[i].name;
        cap += strlen(hn[i].name) + 1;
    }
    if (nl > 1) qsort(sorted, nl, sizeof *sorted, cmp_str);
    char *buf = malloc(cap), *p = buf;
    if (!buf) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < nl; i++) /* names are unique within a set of records */
        p = stpcpy(p, sorted[i]) + 1;
    free(sorted);
    size_t blen = (size_t)(p - buf);
    for (int step = 1; step < g_size; step <<= 1) {
        if (g_rank & step) { /* hand the list down the tree and leave it */
            uint64_t m = blen;
            MPI_Send(&m, 1, MPI_UINT64_T, g_rank - step, 1, MPI_COMM_WORLD);
            if (m > INT_MAX) MPI_Abort(MPI_COMM_WORLD, 1); /* the 2 GiB limit of one message */
            MPI_Send(buf, (int)m, MPI_BYTE, g_rank - step, 2, MPI_COMM_WORLD);
            break;
        }
        if (g_rank + step >= g_size) continue;
        uint64_t m = 0;
        MPI_Recv(&m, 1, MPI_UINT64_T, g_rank + step, 1, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        char *other = m <= INT_MAX ? malloc(m ? m : 1) : NULL;
        if (!other) MPI_Abort(MPI_COMM_WORLD, 1);
        MPI_Recv(other, (int)m, MPI_BYTE, g_rank + step, 2, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
        size_t mlen = 0;
        char *merged = merge_names(buf, blen, other, (size_t)m, &mlen);
        if (!merged) MPI_Abort(MPI_COMM_WORLD, 1);
        free(buf);
        free(other);
        buf = merged;
        blen = mlen;
    }
    void *vb = buf;
    if (g_rank != 0) {
        free(buf);
        vb = NULL;
        blen = 0;
    }
    if (bcast_bytes(&vb, &blen) != 0) {
        free(vb);
        return -1;
    }
    buf = vb;
    size_t count = 0;
    for (size_t i = 0; i < blen; i++)
        count += buf[i] == 0;
    char **v = malloc((count ? count : 1) * sizeof *v);
    if (!v) MPI_Abort(MPI_COMM_WORLD, 1);
    size_t k = 0;
    for (size_t i = 0; i < blen; i += strlen(buf + i) + 1)
        v[k++] = buf + i;
    *text = buf;
    *len = blen;
    *names = v;
    *n = k;
    g_stats.names = k;
    g_stats.names_bytes = blen;
    return 0;
}

/* The medians of every global name over every rank's durations, exactly. */
static int medians(sts_hosts *local, char **names, size_t n, int64_t **out)
{
    size_t nl;
    const sts_host_name *hn = sts_hosts_names(local, &nl);
    /* Local names in sorted order line up with the global ones by a merge walk. */
    size_t *order = malloc((nl ? nl : 1) * sizeof *order);
    uint64_t *count = calloc(n ? n : 1, sizeof *count), *gcount = calloc(n ? n : 1, sizeof *gcount);
    int64_t *min = malloc((n ? n : 1) * sizeof *min), *gmin = malloc((n ? n : 1) * sizeof *gmin);
    int64_t *max = malloc((n ? n : 1) * sizeof *max), *gmax = malloc((n ? n : 1) * sizeof *gmax);
    const int64_t **vals = calloc(n ? n : 1, sizeof *vals);
    size_t *nvals = calloc(n ? n : 1, sizeof *nvals);
    if (!order || !count || !gcount || !min || !gmin || !max || !gmax || !vals || !nvals) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < n; i++)
        min[i] = INT64_MAX, max[i] = INT64_MIN;
    for (size_t i = 0; i < nl; i++) {
        /* Binary search of the global table: it holds every local name. */
        size_t lo = 0, hi = n;
        while (lo < hi) {
            size_t mid = lo + (hi - lo) / 2;
            if (strcmp(names[mid], hn[i].name) < 0)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (lo == n || strcmp(names[lo], hn[i].name) != 0) MPI_Abort(MPI_COMM_WORLD, 1);
        count[lo] = hn[i].count;
        min[lo] = hn[i].min_ns;
        max[lo] = hn[i].max_ns;
        vals[lo] = sts_hosts_name_values(local, i, &nvals[lo]);
    }
    MPI_Allreduce(count, gcount, (int)n, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
    MPI_Allreduce(min, gmin, (int)n, MPI_INT64_T, MPI_MIN, MPI_COMM_WORLD);
    MPI_Allreduce(max, gmax, (int)n, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
    sts_xmedian *x = NULL;
    int rc = sts_xmedian_create(n, gcount, gmin, gmax, &x, NULL) == STS_OK ? 0 : -1;
    int any = 0;
    MPI_Allreduce(&rc, &any, 1, MPI_INT, MPI_MIN, MPI_COMM_WORLD);
    rc = any;
    for (size_t k; rc == 0 && (k = sts_xmedian_round(x)) > 0;) {
        g_stats.rounds++;
        g_stats.counters += k;
        uint64_t *c = malloc(k * sizeof *c), *s = malloc(k * sizeof *s);
        if (!c || !s || k > INT_MAX) MPI_Abort(MPI_COMM_WORLD, 1);
        sts_xmedian_count(x, vals, nvals, c);
        MPI_Allreduce(c, s, (int)k, MPI_UINT64_T, MPI_SUM, MPI_COMM_WORLD);
        if (sts_xmedian_advance(x, s, NULL) != STS_OK) rc = -1; /* the same on every rank: the sums are */
        free(c);
        free(s);
    }
    int64_t *m = malloc((n ? n : 1) * sizeof *m);
    if (!m) MPI_Abort(MPI_COMM_WORLD, 1);
    for (size_t i = 0; i < n; i++)
        m[i] = sts_xmedian_result(x, i);
    sts_xmedian_free(x);
    free(order);
    free(count);
    free(gcount);
    free(min);
    free(gmin);
    free(max);
    free(gmax);
    free(vals);
    free(nvals);
    if (rc != 0) {
        free(m);
        return -1;
    }
    *out = m;
    return 0;
}

/* ---- the collection ------------------------------------------------------------------------------ */

/* With fewer hosts than ranks, each rank holds at most one host and the ranks without
 * one help read one that has: the k-th idle rank (in rank order) helps the owner of the
 * (k mod hosts)-th largest host, as helper k / hosts + 1. Every rank works this out
 * alike from the assignment. Sets *owner and *part on a helper (*owner -1: none), and
 * helpers[0..*nhelp) on an owner. */
static void teams(const uint32_t *part, size_t n, int *owner, unsigned *mypart, int *helpers, int *nhelp)
{
    *owner = -1;
    *mypart = 0;
    *nhelp = 0;
    if (n == 0 || n >= (size_t)g_size) return;
    /* Owners by host size, largest first: sts_hostset_assign gives the largest host to
     * rank 0, the next to rank 1, and so on, so host order by rank is size order. */
    int idle = 0;
    for (int r = 0; r < g_size; r++) {
        int has = 0;
        for (size_t i = 0; i < n && !has; i++)
            has = part[i] == (uint32_t)r;
        if (has) continue;
        int k = idle++;
        int own = (int)((size_t)k % n); /* owners are ranks 0..n-1 */
        if (r == g_rank) *owner = own, *mypart = (unsigned)((size_t)k / n + 1);
        if (own == g_rank) helpers[(*nhelp)++] = r;
    }
}

/* This rank's hosts, read (with its helpers' chunks, or as a helper). */
static int read_share(const char *cmd, const sts_hostset *set, const sts_hosts_options *ho, sts_hosts **local,
                      char *msg, size_t cap)
{
    size_t n;
    sts_hostset_files(set, &n);
    uint32_t *part = malloc((n ? n : 1) * sizeof *part);
    size_t *which = malloc((n ? n : 1) * sizeof *which), k = 0;
    int *helpers = malloc((size_t)g_size * sizeof *helpers);
    /* Every rank must know that every other can take part before any waits on another. */
    int rc = agree(cmd, part && which && helpers ? CLI_OK : CLI_BAD_INPUT, "out of memory");
    if (rc != CLI_OK) {
        free(part);
        free(which);
        free(helpers);
        return rc;
    }
    sts_hostset_assign(set, (size_t)g_size, part);
    for (size_t i = 0; i < n; i++)
        if (part[i] == (uint32_t)g_rank) which[k++] = i;
    int owner, nhelp;
    unsigned mypart;
    teams(part, n, &owner, &mypart, helpers, &nhelp);
    sts_error err = STS_ERROR_INIT;
    sts_hosts_options opt = *ho;
    if (nhelp > 0) {
        hm_chunks_arm(helpers, nhelp);
        opt.open.peers = hm_chunk_peers();
        if (opt.open.jobs == 0) opt.open.jobs = (int)hm_default_jobs();
    }
    if (owner >= 0) rc = hm_chunks_serve(cmd, owner, mypart);
    if (k == 0)
        *local = sts_hosts_create();
    else if (sts_hosts_read(set, which, k, &opt, local, &err) != STS_OK)
        rc = CLI_BAD_INPUT, snprintf(msg, cap, "%s", err.message);
    hm_chunks_end();
    if (rc == CLI_OK && !*local) rc = CLI_BAD_INPUT, snprintf(msg, cap, "out of memory");
    free(part);
    free(which);
    free(helpers);
    return rc;
}

/* Rank 0: every rank's records merged, medians set, finished. */
static int merge_at_root(const char *cmd, sts_hosts *local, char **names, size_t nnames, const int64_t *med,
                         unsigned char *all, const int *lens, const int *offs, sts_hosts **out)
{
    sts_error err = STS_ERROR_INIT;
    sts_status st = STS_OK;
    for (int r = 1; r < g_size && st == STS_OK; r++) {
        sts_hosts *part = NULL;
        st = sts_hosts_deserialize(all + offs[r], (size_t)lens[r], &part, &err);
        if (st == STS_OK) st = sts_hosts_merge(local, part, &err);
        sts_hosts_free(part);
    }
    for (size_t i = 0; i < nnames && st == STS_OK; i++)
        st = sts_hosts_set_median(local, names[i], med[i], &err);
    if (st == STS_OK) st = sts_hosts_finish(local, &err);
    if (st != STS_OK) return cli_report(cmd, &err);
    *out = local;
    return CLI_OK;
}

/* One line on stderr from rank 0 with what the reduce moved and the phases' times. */
static void print_stats(const char *cmd, size_t hosts)
{
    if (g_rank != 0 || !getenv("STEPSCOPE_MPI_STATS")) return;
    fprintf(stderr,
            "stepscope %s: mpi: ranks %d, hosts %zu, names %" PRIu64 " (%" PRIu64
            " bytes broadcast), median rounds %" PRIu64 ", counters %" PRIu64
            " (8 bytes each, summed over ranks), records gathered %" PRIu64
            " bytes; read %.3f s, names and medians %.3f s, gather and merge %.3f s; CPU per rank when read: max "
            "%.2f s, min %.2f s, all %.2f s\n",
            cmd, g_size, hosts, g_stats.names, g_stats.names_bytes, g_stats.rounds, g_stats.counters,
            g_stats.records_bytes, g_stats.read_s, g_stats.names_s, g_stats.reduce_s, g_stats.cpu_max, g_stats.cpu_min,
            g_stats.cpu_sum);
}

int hm_collect(const char *cmd, const sts_hostset *set, const sts_hosts_options *ho, sts_hosts **out)
{
    *out = NULL;
    char msg[640] = "";
    sts_hosts *local = NULL;
    g_stats.t0 = MPI_Wtime();
    int rc = read_share(cmd, set, ho, &local, msg, sizeof msg);
    if ((rc = agree(cmd, rc, msg)) != CLI_OK) {
        sts_hosts_free(local);
        return rc;
    }
    char *text = NULL, **names = NULL;
    size_t tlen = 0, nnames = 0;
    int64_t *med = NULL;
    int bad = 0;
    double t = MPI_Wtime(), cpu = cpu_seconds();
    g_stats.read_s = t - g_stats.t0; /* the slowest rank's, as every rank waits in agree() */
    MPI_Reduce(&cpu, &g_stats.cpu_max, 1, MPI_DOUBLE, MPI_MAX, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &g_stats.cpu_min, 1, MPI_DOUBLE, MPI_MIN, 0, MPI_COMM_WORLD);
    MPI_Reduce(&cpu, &g_stats.cpu_sum, 1, MPI_DOUBLE, MPI_SUM, 0, MPI_COMM_WORLD);
    if (ho->what & STS_HOSTS_NAMES)
        bad = global_names(local, &text, &tlen, &names, &nnames) != 0 || medians(local, names, nnames, &med) != 0;
    g_stats.names_s = MPI_Wtime() - t;
    t = MPI_Wtime();
    void *buf = NULL;
    size_t len = 0;
    if (!bad && sts_hosts_serialize(local, 0, &buf, &len, NULL) != STS_OK) bad = 1;
    if ((rc = agree(cmd, bad ? CLI_BAD_INPUT : CLI_OK,
                    "cannot bring the records together (out of memory, or "
                    "over 2 GiB for one message)")) != CLI_OK) {
        sts_hosts_free(local);
        free(buf);
        free(text);
        free(names);
        free(med);
        return rc;
    }
    unsigned char *all = NULL;
    int *lens = NULL, *offs = NULL;
    if (gather_bytes(buf, len, &all, &lens, &offs) != 0) bad = 1;
    free(buf);
    if (g_rank == 0 && !bad) {
        for (int r = 0; r < g_size; r++)
            g_stats.records_bytes += (uint64_t)lens[r];
        rc = merge_at_root(cmd, local, names, nnames, med, all, lens, offs, out);
        if (rc == CLI_OK) local = NULL;
        g_stats.reduce_s = MPI_Wtime() - t;
        size_t nh;
        sts_hostset_files(set, &nh);
        print_stats(cmd, nh);
    } else if (g_rank == 0) {
        rc = cli_fail(CLI_BAD_INPUT, "%s: the records are over 2 GiB for one message", cmd);
    }
    sts_hosts_free(local);
    free(all);
    free(lens);
    free(offs);
    free(text);
    free(names);
    free(med);
    return rc;
}

#endif
