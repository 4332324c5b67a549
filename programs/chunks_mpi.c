/* --mpi, and a large JSON file with ranks to spare: other ranks (its helpers) read
 * chunks of its events for the rank that reads it (its owner), through
 * sts_chunk_peers (include/stepscope/timeline.h). The owner merges them as it merges its
 * own threads' chunks, so what it reads is what one process reads, byte for byte. Used
 * for one input (rank 0 owns it, every other rank helps) and for fewer hosts than ranks
 * (hosts_mpi.c: the ranks without a host help those with one).
 *
 * Messages, all between an owner and one of its helpers, in order on each pair:
 *   owner -> helper: TAG_PLAN, the plan (empty: nothing to read; the helper returns);
 *   helper -> owner: per chunk it reads, TAG_INDEX (its index, 8 bytes) then TAG_CHUNK
 *   (its bytes); then TAG_DONE (8 bytes) when it has sent all of its chunks.
 * The owner receives a helper's chunks in index order when its reader wants them,
 * discards the ones it no longer needs, and after the read takes whatever is left up to
 * TAG_DONE, so no rank waits forever whatever the read did (an error, a small file,
 * gzip: the plan is then empty). A helper that cannot read the file (missing there,
 * changed) sends short messages that make the owner read those chunks itself. */
#include <inttypes.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "hosts_cli.h"

#ifndef STS_HAVE_MPI

void hm_chunks_arm(const int *helpers, int n)
{
    (void)helpers, (void)n;
}

const sts_chunk_peers *hm_chunk_peers(void)
{
    return NULL;
}

void hm_chunks_end(void) {}

int hm_chunks_serve(const char *cmd, int owner, unsigned part)
{
    (void)cmd, (void)owner, (void)part;
    return CLI_OK;
}

#else

#include <mpi.h>

enum { TAG_PLAN = 7101, TAG_INDEX, TAG_CHUNK, TAG_DONE };

typedef struct peer {
    int rank; /* its rank in MPI_COMM_WORLD */
    int done; /* its TAG_DONE has come */
    int held; /* a chunk received ahead of the one asked for is in buf */
    uint64_t held_index;
    unsigned char *buf;
    size_t cap;
    int len;
} peer;

static struct {
    int armed, started, ended;
    uint64_t got, got_bytes; /* chunks the reader took from its helpers, for STEPSCOPE_MPI_STATS */
    sts_chunk_peers pub;
    peer *peers; /* by part; [0], this rank, unused */
    int n;       /* parts: this rank and its helpers */
} g;

/* The next message of part k: 1 with a chunk in its buf (its index in *index), 0 when
 * it is done, -1 when MPI failed (then it counts as done). */
static int receive(int k, uint64_t *index)
{
    peer *p = &g.peers[k];
    int r = p->rank;
    if (p->done) return 0;
    MPI_Status st;
    uint64_t idx = 0;
    if (MPI_Recv(&idx, 1, MPI_UINT64_T, r, MPI_ANY_TAG, MPI_COMM_WORLD, &st) != MPI_SUCCESS) {
        p->done = 1;
        return -1;
    }
    if (st.MPI_TAG == TAG_DONE) {
        p->done = 1;
        return 0;
    }
    int count = 0;
    if (MPI_Probe(r, TAG_CHUNK, MPI_COMM_WORLD, &st) != MPI_SUCCESS ||
        MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0) {
        p->done = 1;
        return -1;
    }
    if ((size_t)count > p->cap) {
        unsigned char *nb = realloc(p->buf, (size_t)count);
        if (!nb) { /* the message cannot be taken, and the pair cannot go on without it */
            cli_say(stderr, "stepscope: rank %d: out of memory for rank %d's chunk of %d bytes\n", hm_rank(), r, count);
            MPI_Abort(MPI_COMM_WORLD, 1);
        }
        p->buf = nb;
        p->cap = (size_t)count;
    }
    if (MPI_Recv(p->buf, count, MPI_BYTE, r, TAG_CHUNK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        p->done = 1;
        return -1;
    }
    p->len = count;
    *index = idx;
    return 1;
}

static int start(void *user, const void *plan, size_t len)
{
    (void)user;
    if (g.started || len > INT_MAX) return -1;
    g.started = 1;
    for (int k = 1; k < g.n; k++)
        MPI_Send(plan, (int)len, MPI_BYTE, g.peers[k].rank, TAG_PLAN, MPI_COMM_WORLD);
    return 0;
}

static int fetch(void *user, size_t index, const void **data, size_t *len)
{
    (void)user;
    int k = (int)(index % (size_t)g.n);
    if (k == 0) return -1;
    peer *p = &g.peers[k];
    for (;;) {
        uint64_t idx = p->held_index;
        if (!p->held && receive(k, &idx) != 1) return -1;
        p->held = 0;
        if (idx < index) continue; /* a chunk the reader went past */
        if (idx > index) {         /* kept for a later call */
            p->held = 1;
            p->held_index = idx;
            return -1;
        }
        *data = p->buf;
        *len = (size_t)p->len;
        g.got += p->len > 0;
        g.got_bytes += (uint64_t)p->len;
        return p->len > 0 ? 0 : -1;
    }
}

/* The owner leaves before reading (a usage error): its helpers must not wait. */
static void end_at_exit(void)
{
    hm_chunks_end();
}

/* The k-th helper: helpers[k], or with no list every rank but this one in order. */
static int helper_rank(const int *helpers, int k)
{
    return helpers ? helpers[k] : k < hm_rank() ? k : k + 1;
}

void hm_chunks_arm(const int *helpers, int n)
{
    if (!helpers) n = hm_size() - 1;
    if (n < 1 || g.armed) return;
    memset(&g, 0, sizeof g);
    g.peers = calloc((size_t)n + 1, sizeof *g.peers);
    if (!g.peers) {
        /* Every helper waits for a plan: an empty one, and this rank reads alone. */
        for (int k = 0; k < n; k++)
            MPI_Send(NULL, 0, MPI_BYTE, helper_rank(helpers, k), TAG_PLAN, MPI_COMM_WORLD);
        return;
    }
    for (int k = 0; k < n; k++)
        g.peers[k + 1].rank = helper_rank(helpers, k);
    g.n = n + 1;
    g.armed = 1;
    g.pub.count = (unsigned)n;
    g.pub.start = start;
    g.pub.fetch = fetch;
    static int registered;
    if (!registered++) atexit(end_at_exit);
}

const sts_chunk_peers *hm_chunk_peers(void)
{
    return g.armed && !g.ended ? &g.pub : NULL;
}

void hm_chunks_end(void)
{
    if (!g.armed || g.ended) return;
    g.ended = 1;
    for (int k = 1; k < g.n; k++) {
        if (!g.started) {
            MPI_Send(NULL, 0, MPI_BYTE, g.peers[k].rank, TAG_PLAN, MPI_COMM_WORLD);
            continue;
        }
        uint64_t idx;
        while (receive(k, &idx) == 1) /* what the reader did not want */
            ;
    }
    const char *stats = getenv("STEPSCOPE_MPI_STATS");
    if (stats && *stats && strcmp(stats, "0") != 0)
        fprintf(stderr,
                "stepscope: mpi stats: rank %d: one file: %s; it took %" PRIu64 " chunks from %d other rank%s (%.1f "
                "MB of timelines)\n",
                hm_rank(), g.started ? "read in chunks" : "read alone (not a large plain JSON file)", g.got, g.n - 1,
                g.n == 2 ? "" : "s", (double)g.got_bytes / 1e6);
    for (int k = 0; k < g.n; k++)
        free(g.peers[k].buf);
    free(g.peers);
    g.peers = NULL;
    g.armed = 0;
}

static int send_chunk(void *user, size_t index, const void *data, size_t len)
{
    int owner = *(const int *)user;
    uint64_t idx = index;
    int n = len > INT_MAX ? 0 : (int)len; /* too large for one message: the owner reads it */
    if (MPI_Send(&idx, 1, MPI_UINT64_T, owner, TAG_INDEX, MPI_COMM_WORLD) != MPI_SUCCESS ||
        MPI_Send(data, n, MPI_BYTE, owner, TAG_CHUNK, MPI_COMM_WORLD) != MPI_SUCCESS)
        return -1;
    return 0;
}

int hm_chunks_serve(const char *cmd, int owner, unsigned part)
{
    MPI_Status st;
    int count = 0;
    if (MPI_Probe(owner, TAG_PLAN, MPI_COMM_WORLD, &st) != MPI_SUCCESS ||
        MPI_Get_count(&st, MPI_BYTE, &count) != MPI_SUCCESS)
        return CLI_OK; /* the owner reads alone */
    void *plan = malloc(count > 0 ? (size_t)count : 1);
    if (!plan) {
        cli_say(stderr, "stepscope %s: rank %d: out of memory for a plan of %d bytes\n", cmd, hm_rank(), count);
        MPI_Abort(MPI_COMM_WORLD, 1);
    }
    MPI_Recv(plan, count, MPI_BYTE, owner, TAG_PLAN, MPI_COMM_WORLD, MPI_STATUS_IGNORE);
    if (count > 0) {
        sts_error err = STS_ERROR_INIT;
        if (sts_chunk_serve(plan, (size_t)count, part, send_chunk, &owner, &err) != STS_OK)
            cli_say(stderr, "stepscope %s: rank %d: its chunks are read by rank %d: %s\n", cmd, hm_rank(), owner,
                    err.message);
        uint64_t done = 0;
        MPI_Send(&done, 1, MPI_UINT64_T, owner, TAG_DONE, MPI_COMM_WORLD);
    }
    free(plan);
    return CLI_OK;
}

#endif
