/* hosts: the records of a set of hosts (include/stepscope/hosts.h). Each host's record
 * owns its strings, so a record moves between sets (merge, deserialize) without
 * re-interning; the names over all hosts have a string table of their own. */
#ifndef STS_HOSTS_IMPL_H
#define STS_HOSTS_IMPL_H

#include "base/mem.h"
#include "base/vec.h"
#include "stepscope/hosts.h"

/* One collective op on a device of a host (STS_HOSTS_COLLECTIVES), with what matches it
 * across hosts and the host's step around its start. */
typedef struct sts_host_coll_op {
    const char *device, *kind, *name, *group, *dtype; /* group, dtype NULL: unknown */
    int64_t seq, in_nelems, out_nelems, group_size;   /* -1: unknown */
    int64_t ts_ns, end_ns;
    int64_t step;                  /* the number of the host's step holding ts_ns, when in_step */
    int64_t in_step;               /* 0 or 1 */
    uint32_t first_pre, pre_count; /* in cpre: that step's children's time before ts_ns, by name */
} sts_host_coll_op;

typedef struct sts_host_rec {
    sts_strtab str; /* every string the record points at */
    sts_host_info info;
    STS_VEC(sts_host_lane) lanes;
    STS_VEC(sts_host_process) procs;
    STS_VEC(sts_host_overlap) overlaps;
    STS_VEC(const char *) warnings;
    int has_steps;
    sts_host_steps_info steps_info;
    STS_VEC(const char *) tried;
    STS_VEC(sts_host_step) steps;
    STS_VEC(sts_host_child) children;
    STS_VEC(sts_host_collective) colls;
    STS_VEC(sts_host_device_step) dsteps; /* STS_HOSTS_DEVICE */
    STS_VEC(sts_host_memory_step) msteps; /* STS_HOSTS_MEMORY */
    STS_VEC(sts_memory_live) mlives;      /* what msteps' entries index */
    int memory_asked;                     /* STS_HOSTS_MEMORY was computed (msteps may be empty) */
    STS_VEC(sts_memory_device) mdevs;     /* STS_HOSTS_MEMORY_DEVICES; their lives in mlives */
    STS_VEC(sts_memory_point) mpoints;
    STS_VEC(const char *) mwarnings;
    int has_colls;                  /* STS_HOSTS_COLLECTIVES */
    uint64_t colls_nested;          /* ops inside another of their device, left out */
    uint64_t colls_unpaired;        /* host-thread calls that did not pair with gloo works: left out */
    STS_VEC(sts_host_coll_op) cops; /* by device, then start */
    STS_VEC(sts_host_child) cpre;
} sts_host_rec;

/* Slices of one name, over the hosts added so far. */
typedef struct sts_name_rec {
    sts_host_name pub; /* pub.name points into the set's name strings */
    int median_set;    /* pub.median_ns was set from outside */
    int has_values;    /* `values` holds every duration (pub.count of them), in no order */
    STS_VEC(int64_t) values;
} sts_name_rec;

struct sts_hosts {
    STS_VEC(sts_host_rec *) hosts; /* ordered by info.index */
    sts_strtab nstr;               /* the names' strings */
    sts_u64map nmap;               /* name string id + 1 -> index into names */
    STS_VEC(sts_name_rec) names;
    STS_VEC(sts_host_name) view; /* what sts_hosts_names() returns */
    STS_VEC(uint32_t) view_rec;  /* view entry -> names index */
    int finished;
};

/* A new record with an initialized string table; NULL when memory runs out. */
sts_host_rec *sts_host_rec_new(void);
void sts_host_rec_free(sts_host_rec *r);

/* Interns s (NULL stays NULL) into the record; "" on no memory is avoided: returns
 * NULL and sets *bad. */
const char *sts_host_rec_str(sts_host_rec *r, const char *s, int *bad);

/* Copies what names the timeline's lane (sts_lane_pid() and friends) into the record:
 * names[0..4) = pid, tid, process, thread. Sets *bad when memory runs out. */
void sts_host_rec_lane_names(sts_host_rec *r, const sts_timeline *tl, uint32_t lane, const char **names[4], int *bad);

/* Inserts r, keeping hosts ordered by index; -1 on a duplicate index or no memory. */
int sts_hosts_insert(sts_hosts *h, sts_host_rec *r);

/* The name record for `name` (created empty on first use); NULL when memory runs out. */
sts_name_rec *sts_hosts_name(sts_hosts *h, const char *name, size_t len);

/* Rebuilds h->view (ranked when finished, else in record order); -1 on no memory. */
int sts_hosts_refresh_view(sts_hosts *h);

/* Fills a record's steps (STS_HOSTS_STEPS) from a timeline. */
sts_status sts_host_rec_steps(sts_host_rec *r, const sts_timeline *tl, const sts_hosts_options *opt, sts_error *err);

/* Fills a record's device view per step (STS_HOSTS_DEVICE) from the timeline and the
 * steps its record kept. */
sts_status sts_host_rec_device(sts_host_rec *r, const sts_timeline *tl, const sts_steps *s,
                               const sts_devview_rules *rules, sts_error *err);

/* Fills a record's device memory per step (STS_HOSTS_MEMORY) from the timeline and the
 * steps its record kept; the memory warnings join the host's warnings (at most
 * keep_warnings kept, all counted). */
sts_status sts_host_rec_memory(sts_host_rec *r, const sts_timeline *tl, const sts_steps *s, size_t keep_warnings,
                               sts_error *err);

/* Fills a record's memory devices over the whole trace (STS_HOSTS_MEMORY_DEVICES); the
 * warnings are kept whole in mwarnings and counted among the host's (at most
 * keep_warnings of them kept there). */
sts_status sts_host_rec_memory_devices(sts_host_rec *r, const sts_timeline *tl, size_t keep_warnings, sts_error *err);
/* Fills a record's collective ops (STS_HOSTS_COLLECTIVES) from the timeline and its steps. */
sts_status sts_host_rec_colls(sts_host_rec *r, const sts_timeline *tl, const sts_steps *s, sts_error *err);

/* Adds a timeline's slices by name to the set's names (STS_HOSTS_NAMES). */
sts_status sts_hosts_add_names(sts_hosts *h, const sts_timeline *tl, sts_error *err);

sts_status sts_hosts_nomem(sts_error *err);

#endif
