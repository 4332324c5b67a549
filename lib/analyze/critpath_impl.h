/* analyze: the critical path's graph, shared by its builder (critpath.c), its replay and
 * what-if (critpath_whatif.c) and its JSON (critpath_json.c). */
#ifndef STS_ANALYZE_CRITPATH_IMPL_H
#define STS_ANALYZE_CRITPATH_IMPL_H

#include "stepscope/critpath.h"

enum { CP_E_PROGRAM = 0, CP_E_LAUNCH, CP_E_STREAM, CP_E_SYNC, CP_E_FLOW, CP_E_WAIT, CP_E_TYPES };

typedef struct sts_cp_node {
    int64_t ts, dur;
    uint32_t slice; /* STS_NONE: a gap */
    uint32_t lane;
    uint32_t kind;
    uint32_t wait;     /* sync: the node it waited for; STS_NONE */
    int64_t tail;      /* sync: its end minus the waited node's end */
    uint32_t first_in; /* in-edges, [first_in, first_in + nin) of the step's edges */
    uint32_t nin;
} sts_cp_node;

typedef struct sts_cp_edge {
    uint32_t from, to; /* node indices, global */
    uint8_t type;      /* CP_E_* */
    uint8_t at_start;  /* anchored at the source's start (launch, flow), else its end */
    uint16_t unused;
    int64_t gap;
} sts_cp_edge;

typedef struct sts_cp_graph {
    uint32_t first_node, nnodes; /* into nodes */
    uint32_t first_edge, nedges; /* into edges, sorted by `to` */
    uint32_t first_order;        /* a topological order: order[first_order ..+ nnodes) */
    uint32_t last;               /* the step lane's last segment (global); STS_NONE */
    int64_t ts;                  /* the step's start */
} sts_cp_graph;

struct sts_critpath {
    const sts_timeline *tl;
    sts_cp_node *nodes;
    size_t nnodes, capnodes;
    sts_cp_edge *edges;
    size_t nedges, capedges;
    uint32_t *order;
    sts_cp_graph *graphs;
    sts_cp_step *steps;
    size_t nsteps;
    sts_cp_interval *iv;
    size_t niv, capiv;
    sts_critpath_counts counts;
    char **warnings;
    size_t nwarnings;
    sts_cp_prediction *pred;
    size_t npred;
    uint32_t *names;   /* per node, its slice's name id (STS_NONE for a gap): made by the first
                        * what-if, which reads a node's name per try, where the slice is a
                        * cache miss */
    uint8_t *checked;  /* per name id, scratch for a what-if's name search */
    uint32_t *main_of; /* per step, the lane holding most of its observed path: made by
                        * the first what-if, which compares each try's against it */
    uint32_t name_bound;
    uint32_t *iv_names; /* per observed interval (the first niv_names of iv), its slice's name
                         * id (STS_NONE for none): made with names, for what-if's test of
                         * whether a name lies on a step's path */
    size_t niv_names;
};

/* Replays graph g with node durations scaled by factor[node - g->first_node] (NULL: all
 * 1), into start[]/end[] (g->nnodes each) and bind[] (the binding in-edge per node,
 * global edge index, STS_NONE for the step's start) and endby[] (for a sync whose end a
 * waited op decided, that op's node; else STS_NONE). Returns the step's
 * replayed end minus its start. */
int64_t sts_cp_replay(const sts_critpath *cp, const sts_cp_graph *g, const double *factor, int64_t *start, int64_t *end,
                      uint32_t *bind, uint32_t *endby);

/* Walks the path of a replay back from g->last, appending intervals to cp->iv. Returns
 * 0, or -1 out of memory. */
int sts_cp_walk(sts_critpath *cp, const sts_cp_graph *g, const int64_t *start, const int64_t *end, const uint32_t *bind,
                const uint32_t *endby);

/* ---- streams (critpath_streams.c) ----------------------------------------------------- */

/* A device-side wait between streams: the first op launched on lane_dst at or after
 * ts_wait waits for the last op launched on lane_src at or before ts_src. */
typedef struct sts_cp_wait {
    int64_t ts_wait, ts_src;
    uint32_t lane_src, lane_dst;
} sts_cp_wait;

typedef struct sts_cp_streams sts_cp_streams;

/* Collects the trace's sync records and waits (one pass over the slices). 0, or -1 out
 * of memory (*out NULL). Free with sts_cp_streams_free() (NULL: a no-op). */
int sts_cp_streams_make(const sts_timeline *tl, sts_cp_streams **out);
void sts_cp_streams_free(sts_cp_streams *x);

/* The device lane a host synchronization waited on (its own `stream` arg, or the
 * cuda_sync record of its correlation), or STS_NONE when the trace does not say. */
uint32_t sts_cp_sync_lane(const sts_cp_streams *x, const sts_timeline *tl, uint32_t slice);

/* Every wait, by ts_wait; owned by x. */
const sts_cp_wait *sts_cp_waits(const sts_cp_streams *x, size_t *n);

/* Writes the steps document's top-level "critical_path" object. */
void sts_critpath_write_summary_json(sts_jsonw *w, const sts_critpath *cp);

#endif
