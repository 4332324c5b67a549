/* hosts: the records of a set of hosts (include/stepscope/hosts.h). Each host's record
 * owns its strings, so a record moves between sets (merge, deserialize) without
 * re-interning; the names over all hosts have a string table of their own. */
#ifndef STS_HOSTS_IMPL_H
#define STS_HOSTS_IMPL_H

#include "base/mem.h"
#include "base/vec.h"
#include "stepscope/hosts.h"

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

/* Adds a timeline's slices by name to the set's names (STS_HOSTS_NAMES). */
sts_status sts_hosts_add_names(sts_hosts *h, const sts_timeline *tl, sts_error *err);

sts_status sts_hosts_nomem(sts_error *err);

#endif
