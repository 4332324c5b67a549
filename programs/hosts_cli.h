/* Many hosts for the trace commands (analyze, steps, slices): deciding whether the
 * inputs are one host or several, reading several on threads or over MPI ranks, and
 * printing what they hold. */
#ifndef STS_PROGRAMS_HOSTS_CLI_H
#define STS_PROGRAMS_HOSTS_CLI_H

#include "cli.h"
#include "stepscope/hosts.h"

/* Returned by the hc_* entry points when the inputs are one host (and --mpi was not
 * given): the command goes on with its single-trace path. */
#define HC_SINGLE (-1)

/* -j N (tc_read_opts, shared with one trace's chunked reading) for several hosts: the
 * files read at once; INT_MIN, the default, when -j was not given (0 in tc_read_opts):
 * one per CPU, or with --mpi the node's CPUs divided among its ranks. */
#define HC_JOBS(ro) ((ro).jobs == 0 ? INT_MIN : (ro).jobs)
#define HC_MPI_OPT(var)                                                                                        \
    {                                                                                                          \
        "mpi", CLI_FLAG, &(var), NULL,                                                                         \
            "run under mpirun: the ranks divide the hosts' files and large JSON files' chunks; rank 0 prints " \
            "what one process would print"                                                                     \
    }

/* What a trace command was given. */
typedef struct hc_opts {
    const char *cmd;
    const char *const *inputs;
    size_t ninputs;
    const char *run, *args;
    int jobs; /* INT_MIN: the default */
    int mpi;
    const char *one_host; /* an option given that applies to one host only ("--lane"), else NULL */
    int hosts_always;     /* read even one file as a set of one host (steps --collectives) */
} hc_opts;

/* Expands the inputs and, when they are several hosts (or --mpi), reads them with
 * `what` (STS_HOSTS_*) and `steps`. Returns HC_SINGLE (one host, no --mpi: nothing was
 * read), or an exit code: CLI_OK with *out holding the finished records of every host
 * (on MPI ranks other than 0, *out is NULL: nothing to print), or a failure already
 * printed. *set receives the expansion when not NULL on return (free both). */
int hc_collect(const hc_opts *o, unsigned what, const sts_step_options *steps, sts_hostset **set, sts_hosts **out);

/* The multi-host outputs (programs/hosts_analyze.c, programs/hosts_steps.c). */
int hc_print_analyze(const sts_hosts *h, const sts_hostset *set, int json, size_t top);
/* `analyze --memory` on several hosts: each host's memory devices as its file alone
 * gives them (text or the hosts' memory document); exit 1 when no host has memory
 * events. */
int hc_print_memory(const sts_hosts *h, const sts_hostset *set, int json);
int hc_print_steps(const sts_hosts *h, const sts_hostset *set, int json, double ratio, const sts_collectives *c);
/* The collectives' text (programs/hosts_colls.c): instances, waits per step, clock offsets. */
void hc_print_collectives(const sts_hosts *h, const sts_collectives *c);

/* The commands' multi-host entry points: HC_SINGLE or an exit code. hc_steps with
 * `extra` STS_HOSTS_DEVICE: each host's device view per step as well; STS_HOSTS_MEMORY:
 * each host's device memory per step. hc_analyze with `memory`: each host's device
 * memory over its whole trace instead (STS_HOSTS_MEMORY_DEVICES). */
int hc_analyze(const hc_opts *o, int json, size_t top, int memory);
int hc_steps(const hc_opts *o, const char *step, int xprof, int json, double ratio, unsigned extra);
/* hc_steps's collectives: HC_COLLECTIVES matches them across hosts (STS_HOSTS_COLLECTIVES),
 * HC_ALIGN also moves every output onto the clocks their ends give. */
#define HC_COLLECTIVES 0x1
#define HC_ALIGN       0x2
int hc_steps_colls(const hc_opts *o, const char *step, int xprof, int json, double ratio, unsigned extra, int colls);

/* ---- MPI (programs/hosts_mpi.c) ---- */

/* 1 when this stepscope was built with MPI. */
int hm_built(void);
/* Starts MPI (once; MPI_Finalize runs at exit). CLI_OK, or CLI_USAGE after saying why
 * it cannot (built without MPI). */
int hm_init(const char *cmd);
int hm_rank(void);
int hm_size(void);
/* Files the ranks read at once: the node's CPUs divided among its ranks. */
unsigned hm_default_jobs(void);
/* Rank 0's expansion to every rank. Rank 0 passes its *set, or NULL with the exit code
 * and message of its failure; every rank returns that code (CLI_OK with *set). */
int hm_share_set(const char *cmd, sts_hostset **set, int rc0, const char *msg0);
/* Reads this rank's share of the hosts and reduces every rank's records to rank 0,
 * exactly (names' medians by sts_xmedian). Every rank returns the same code; on
 * failure rank 0 has printed one message naming the rank and the file. */
int hm_collect(const char *cmd, const sts_hostset *set, const sts_hosts_options *ho, sts_hosts **out);

/* ---- a large file's chunks over several ranks (programs/chunks_mpi.c) ---- */

/* The owner of a file, before opening it: the next trace opened is read with the ranks
 * helpers[0..n) as its chunk peers (hm_chunk_peers). */
void hm_chunks_arm(const int *helpers, int n);
/* The peers for the trace being opened, or NULL (not armed, or already used). */
const sts_chunk_peers *hm_chunk_peers(void);
/* The owner, after the open (whatever it did): tells the helpers that got no plan, and
 * takes what the others sent that was not used, so that every rank ends. Runs at exit
 * too. */
void hm_chunks_end(void);
/* A helper: reads the chunks that the owner's plan gives to `part` (its place among the
 * owner's helpers, from 1) and sends them; CLI_OK. */
int hm_chunks_serve(const char *cmd, int owner, unsigned part);

#endif
