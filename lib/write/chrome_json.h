/* write: the Chrome trace JSON writer's pieces, shared by the whole-timeline writer
 * (chrome_write.c, sts_write_chrome_json()) and the cut (chrome_cut.c,
 * sts_write_chrome_json_cut()), so that both write lanes, ids, args and times the same
 * way (the rules are in stepscope/write.h). */
#ifndef STS_WRITE_CHROME_JSON_H
#define STS_WRITE_CHROME_JSON_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/write.h"
#include "write/wfile.h"

/* One file being written. */
typedef struct sts_cjw {
    const sts_timeline *tl;
    sts_wfile *f;
    const sts_process *procs;
    const sts_lane *lanes;
    const sts_arg *args;
    size_t nprocs, nlanes, nargs;
    int64_t *tid;                         /* per lane: the tid written */
    int32_t *tid_order;                   /* per lane: 1-based position within its process */
    int labels;                           /* see sts_cjw_open() */
    unsigned char *proc_text, *lane_text; /* with labels: per process and lane, written as its label's text */
    uint32_t first_proc;                  /* the process the completion record names (STS_NONE: pid 0) */
    uint64_t events;                      /* events written so far, the completion record's head included */
} sts_cjw;

/* Chooses every lane's tid and opens `path` (gzip when it ends in ".gz"), then writes
 * the top-level object's head with displayTimeUnit `time_unit` and the completion
 * record's head naming the pid of process `first_proc` (STS_NONE: pid 0). `labels`
 * (the cut): a pid or tid the trace wrote as text ("CPU functions") is written as that
 * text again, not as the number derived from it, and the file says
 * "stepscope_exact_times": true (read without the rounding tolerance). On failure
 * nothing is left behind and err says why. */
sts_status sts_cjw_open(sts_cjw *w, const sts_timeline *tl, const char *path, const sts_write_options *opts,
                        const char *time_unit, uint32_t first_proc, int labels, sts_error *err);

/* Writes the completion record's tail and the end of the object, and renames the file
 * into place; frees what open allocated either way. */
sts_status sts_cjw_commit(sts_cjw *w, sts_error *err);

/* Abandons the file (its destination untouched) and frees what open allocated. */
void sts_cjw_abort(sts_cjw *w);

/* process_name and process_sort_index per process, thread_name and thread_sort_index
 * per thread or device lane. lane_on NULL: every process and lane; else only the lanes
 * it marks and the processes holding one of them. */
void sts_cjw_metadata(sts_cjw *w, const unsigned char *lane_on);

/* The number written for process `proc`'s pid: its own, or 2^40 + proc beyond +-2^53. */
int64_t sts_cjw_pid(const sts_cjw *w, uint32_t proc);
/* Process `proc`'s pid (0 out of range), lane `lane`'s tid, as a JSON value. */
void sts_cjw_put_pid(sts_cjw *w, uint32_t proc);
void sts_cjw_put_tid(sts_cjw *w, uint32_t lane);

/* Starts an event with `head` (the separator goes before it). */
void sts_cjw_event(sts_cjw *w, const char *head);
/* Starts an event {"ph":"P", for a one-character phase. */
void sts_cjw_phase(sts_cjw *w, char phase);

void sts_cjw_lit(sts_cjw *w, const char *s);
void sts_cjw_i64(sts_cjw *w, int64_t v);
void sts_cjw_f64(sts_cjw *w, double v);
/* Nanoseconds as microseconds with three decimals, exactly. */
void sts_cjw_us(sts_cjw *w, int64_t ns);
/* A string id as a JSON string. */
void sts_cjw_str(sts_cjw *w, uint32_t id);
/* A NUL-terminated text as a JSON string. */
void sts_cjw_text(sts_cjw *w, const char *s);
/* "pid":P,"tid":T for a lane; STS_NONE or an index out of range writes pid 0. */
void sts_cjw_pid_tid(sts_cjw *w, uint32_t lane);
/* ,"name":N and ,"cat":C when cat is not 0. */
void sts_cjw_name_cat(sts_cjw *w, uint32_t name, uint32_t cat);
/* The members of the args starting at `first` (STS_NONE: none), comma-separated
 * without the braces, leaving out the key `skip` (STS_NONE: none). Returns how many
 * it wrote. */
size_t sts_cjw_arg_members(sts_cjw *w, uint32_t first, uint32_t skip);
/* ,"args":{...} for the args starting at `first`; nothing for STS_NONE. */
void sts_cjw_args(sts_cjw *w, uint32_t first);

#endif
