/* What `analyze` computes, in one call: the ranked names and the busy times of one
 * scope (side by side on threads), the display orders and the overlap groups, kept in
 * one handle for the CLI's tables, the JSON document and the Python binding. */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"
#include "base/threads.h"

/* Names are ranked on parts of the lanes once a trace has this many slices: below it,
 * starting threads costs more than they save. */
#define SLICES_PER_THREAD ((size_t)1 << 15)
#define MAX_JOBS          64

struct sts_analysis {
    const sts_timeline *tl;
    sts_scope scope;
    sts_analysis_options opt;
    uint32_t *lanes; /* scope.lanes, copied */
    char *lane_pattern;
    sts_name_summary *names;
    size_t nnames;
    sts_busy *busy, *pbusy, all;
    uint32_t *order, *porder;
    size_t nlanes, nprocs;
    sts_overlap_group *groups;
    size_t ngroups;
};

void sts_analysis_free(sts_analysis *a)
{
    if (!a) return;
    free(a->lanes);
    free(a->lane_pattern);
    free(a->names);
    free(a->busy);
    free(a->pbusy);
    free(a->order);
    free(a->porder);
    free(a->groups);
    free(a);
}

/* ---- overlap groups ------------------------------------------------------------------ */

/* An overlap's sort record: (name, overrun name), then position. */
typedef struct pair {
    uint32_t name, parent, at;
} pair;

static int cmp_pair(const void *x, const void *y)
{
    const pair *a = x, *b = y;
    if (a->name != b->name) return a->name < b->name ? -1 : 1;
    if (a->parent != b->parent) return a->parent < b->parent ? -1 : 1;
    return (a->at > b->at) - (a->at < b->at);
}

static int cmp_group(const void *x, const void *y)
{
    const sts_overlap_group *a = x, *b = y;
    if (a->count != b->count) return a->count > b->count ? -1 : 1;
    return (a->first > b->first) - (a->first < b->first);
}

static int group_overlaps(sts_analysis *a)
{
    size_t n;
    const sts_overlap *ov = sts_timeline_overlaps(a->tl, &n);
    const sts_slice *s = sts_timeline_slices(a->tl, NULL);
    a->groups = malloc((n ? n : 1) * sizeof *a->groups);
    pair *by = malloc((n ? n : 1) * sizeof *by);
    if (!a->groups || !by) {
        free(by);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        by[i].name = s[ov[i].slice].name;
        by[i].parent = s[ov[i].parent].name;
        by[i].at = (uint32_t)i;
    }
    qsort(by, n, sizeof *by, cmp_pair);
    for (size_t k = 0; k < n; k++) {
        const sts_overlap *o = &ov[by[k].at];
        sts_overlap_group *g = a->ngroups ? &a->groups[a->ngroups - 1] : NULL;
        if (!g || g->name != by[k].name || g->parent != by[k].parent) {
            g = &a->groups[a->ngroups++];
            g->name = by[k].name;
            g->parent = by[k].parent;
            g->lane = s[o->slice].lane;
            g->count = 0;
            g->first = by[k].at;
            g->min_ns = g->max_ns = o->overrun_ns;
        }
        g->count++;
        if (o->overrun_ns < g->min_ns) g->min_ns = o->overrun_ns;
        if (o->overrun_ns > g->max_ns) g->max_ns = o->overrun_ns;
    }
    free(by);
    if (a->ngroups > 1) qsort(a->groups, a->ngroups, sizeof *a->groups, cmp_group);
    return 0;
}

/* ---- names and busy times side by side ------------------------------------------------- */

/* The two computations only read the timeline, and each takes a tenth of a second on
 * a 1 GB trace: one block each for sts_run_parts. */
typedef struct part {
    sts_analysis *a;
    int busy; /* 0: the names, 1: the busy times */
    sts_status st;
    sts_error err;
} part;

static void run_part(void *block, size_t thread)
{
    (void)thread;
    part *p = block;
    sts_analysis *a = p->a;
    if (p->busy)
        p->st = sts_busy_each(a->tl, &a->scope, a->busy, a->pbusy, &a->all, &p->err);
    else
        p->st = sts_name_summaries_in(a->tl, &a->scope, &a->names, &a->nnames, &p->err);
}

static sts_status compute(sts_analysis *a, unsigned jobs, sts_error *err)
{
    size_t nslices;
    sts_timeline_slices(a->tl, &nslices);
    size_t threads = jobs ? jobs : (size_t)sts_cores();
    if (threads > MAX_JOBS) threads = MAX_JOBS;
    a->scope.jobs = nslices >= SLICES_PER_THREAD && threads > 1 ? (unsigned)threads : 1;
    part parts[2] = { { a, 0, STS_OK, STS_ERROR_INIT }, { a, 1, STS_OK, STS_ERROR_INIT } };
    if (threads > 1) {
        sts_run_parts(run_part, parts, sizeof parts[0], 2, 2);
    } else {
        run_part(&parts[0], 0);
        if (parts[0].st == STS_OK) run_part(&parts[1], 0);
    }
    a->scope.jobs = 0;
    for (int k = 0; k < 2; k++) /* the names' error first, as on one thread */
        if (parts[k].st != STS_OK) {
            if (err) *err = parts[k].err;
            return parts[k].st;
        }
    return STS_OK;
}

/* ---- the handle -------------------------------------------------------------------------- */

static sts_status copy_request(sts_analysis *a, const sts_scope *scope, const sts_analysis_options *opt, sts_error *err)
{
    static const sts_scope everything = STS_SCOPE_INIT;
    a->scope = scope ? *scope : everything;
    a->opt = *opt;
    a->scope.jobs = 0;
    if (a->scope.lanes) {
        a->lanes = malloc((a->scope.nlanes ? a->scope.nlanes : 1) * sizeof *a->lanes);
        if (!a->lanes) return sts_error_set(err, STS_ERR_NOMEM, -1, "analysis: out of memory");
        memcpy(a->lanes, a->scope.lanes, a->scope.nlanes * sizeof *a->lanes);
        a->scope.lanes = a->lanes;
    }
    if (opt->lane_pattern) {
        size_t len = strlen(opt->lane_pattern) + 1;
        if (!(a->lane_pattern = malloc(len))) return sts_error_set(err, STS_ERR_NOMEM, -1, "analysis: out of memory");
        memcpy(a->lane_pattern, opt->lane_pattern, len);
        a->opt.lane_pattern = a->lane_pattern;
    }
    return STS_OK;
}

sts_status sts_analysis_run(const sts_timeline *tl, const sts_scope *scope, const sts_analysis_options *opt,
                            sts_analysis **out, sts_error *err)
{
    static const sts_analysis_options defaults = STS_ANALYSIS_OPTIONS_INIT;
    *out = NULL;
    sts_analysis *a = calloc(1, sizeof *a);
    if (!a) return sts_error_set(err, STS_ERR_NOMEM, -1, "analysis: out of memory");
    a->tl = tl;
    sts_timeline_lanes(tl, &a->nlanes);
    sts_timeline_processes(tl, &a->nprocs);
    sts_status st = copy_request(a, scope, opt ? opt : &defaults, err);
    if (st == STS_OK) {
        a->order = malloc((a->nlanes ? a->nlanes : 1) * sizeof *a->order);
        a->busy = malloc((a->nlanes ? a->nlanes : 1) * sizeof *a->busy);
        a->pbusy = malloc((a->nprocs ? a->nprocs : 1) * sizeof *a->pbusy);
        a->porder = malloc((a->nprocs ? a->nprocs : 1) * sizeof *a->porder);
        if (!a->order || !a->busy || !a->pbusy || !a->porder || group_overlaps(a) != 0)
            st = sts_error_set(err, STS_ERR_NOMEM, -1, "analysis: out of memory");
    }
    if (st == STS_OK) st = compute(a, a->opt.jobs, err);
    if (st == STS_OK) {
        sts_lane_display_order(tl, a->order);
        st = sts_process_display_order(tl, a->order, a->porder, err);
    }
    if (st != STS_OK) {
        sts_analysis_free(a);
        return st;
    }
    *out = a;
    return STS_OK;
}

/* ---- accessors ------------------------------------------------------------------------------ */

const sts_timeline *sts_analysis_timeline(const sts_analysis *a)
{
    return a->tl;
}

const sts_scope *sts_analysis_scope(const sts_analysis *a)
{
    return &a->scope;
}

const sts_analysis_options *sts_analysis_get_options(const sts_analysis *a)
{
    return &a->opt;
}

int sts_analysis_scoped(const sts_analysis *a)
{
    return a->scope.lanes || a->scope.windowed || a->scope.name;
}

#define SET_N(n, v) ((n) ? (void)(*(n) = (v)) : (void)0)

const sts_name_summary *sts_analysis_names(const sts_analysis *a, size_t *n)
{
    SET_N(n, a->nnames);
    return a->names;
}

const sts_busy *sts_analysis_lane_busy(const sts_analysis *a, size_t *n)
{
    SET_N(n, a->nlanes);
    return a->busy;
}

const sts_busy *sts_analysis_process_busy(const sts_analysis *a, size_t *n)
{
    SET_N(n, a->nprocs);
    return a->pbusy;
}

const sts_busy *sts_analysis_busy(const sts_analysis *a)
{
    return &a->all;
}

const uint32_t *sts_analysis_lane_order(const sts_analysis *a, size_t *n)
{
    SET_N(n, a->nlanes);
    return a->order;
}

const uint32_t *sts_analysis_process_order(const sts_analysis *a, size_t *n)
{
    SET_N(n, a->nprocs);
    return a->porder;
}

const sts_overlap_group *sts_analysis_overlap_groups(const sts_analysis *a, size_t *n)
{
    SET_N(n, a->ngroups);
    return a->groups;
}
