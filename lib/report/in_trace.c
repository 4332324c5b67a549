/* A trace section: the facts of the trace, per-step stacked bars, the lane timeline of
 * the busiest window and the names by self time, all computed with the analyzer. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "report/report_impl.h"
#include "stepscope/analyze.h"

#define MAX_STEPS_DRAWN  60
#define MAX_SERIES       7 /* child names drawn; the rest become "other children" */
#define MAX_LANES        24
#define MAX_ROWS         8
#define MAX_SLICES       3000
#define MAX_NAME_ROWS    25
#define MAX_WINDOW_LANES 4

static const char HOW_STEPS[] =
    "Each bar is one step, in trace order. Its stacked segments are the step's children (the outermost slices of its "
    "thread that lie inside it), summed by name, and the hatched, dashed-outline segment is the unattributed "
    "remainder: step time that no child covers. The heavy line across each bar marks the step's own duration, so "
    "children plus remainder meet it exactly (unless children overlap each other; the remainder is then what none "
    "of them covers); never add the step to its children (that counts the same time twice). Hover a segment for "
    "its value.";

static const char HOW_WINDOWS[] =
    "Each group is one step, in trace order; its grey outline is the step's duration. Inside it, one bar per lane "
    "(the lanes busiest over all steps: device streams, worker threads) gives the time that lane had any slice open "
    "during the step. Lanes run alongside the step and each other, so the bars are never added up: a bar as tall as "
    "the outline is a lane busy for the whole step, a short one a lane that waited. Hover a bar for its value and "
    "its share of the step.";

static const char HOW_LANES[] =
    "Time runs left to right from the start of the window; each band is one thread or device lane, under a "
    "heading for its process or device. Within a lane, row 1 holds the outermost slices and each row below holds "
    "the slices nested one level deeper, so a slice's parent is the slice directly above it. A hatched first row "
    "stands for the slices that enclose the whole window (a Python tracer's frames, a runner's loop): it says how "
    "many and names the innermost. Names are written when they fit; hover a slice for its name, duration and "
    "depth, a lane's name for the whole of it. Slices with the same name have the same colour and texture as in "
    "the step figure.";

static const char *series_label(const char *name)
{
    return name;
}

/* What to call the steps: their name when they share one (and it is not one step's
 * "NAME#N"), else the part before "#" ("ProfilerStep#551" -> "ProfilerStep"), else
 * "step". */
static const char *step_name(sts_report *r, const sts_timeline *tl, const sts_step *steps, size_t n)
{
    if (n == 0) return "step";
    int same = 1;
    for (size_t i = 1; i < n && same; i++)
        same = steps[i].name == steps[0].name;
    const char *first = sts_timeline_string(tl, steps[0].name);
    const char *hash = strrchr(first, '#');
    /* One step named "ProfilerStep#6": its number is written beside it anyway. */
    int numbered = hash && hash > first && hash[1] && strspn(hash + 1, "0123456789") == strlen(hash + 1);
    if (same && !numbered) return sts_rpt_strdup(r, first);
    hash = strchr(first, '#');
    return hash && hash > first ? sts_rpt_strndup(r, first, (size_t)(hash - first)) : "step";
}

/* Per-step bars from the analyzer's breakdown. */
static sts_status build_steps(sts_report *r, const sts_timeline *tl, const sts_steps *st, sts_rpt_steps **out)
{
    size_t n, nch, nstats;
    const sts_step *steps = sts_steps_list(st, &n);
    const sts_step_child *ch = sts_steps_children(st, &nch);
    const sts_step_child_stats *stats = sts_steps_child_stats(st, &nstats);
    sts_rpt_steps *s = sts_rpt_alloc(r, sizeof *s);
    if (!s) return STS_ERR_NOMEM;
    s->found = n;
    s->nsteps = n < MAX_STEPS_DRAWN ? n : MAX_STEPS_DRAWN;
    s->step_name = step_name(r, tl, steps, n);

    /* Keep the child names with the most time, in their order of first appearance
     * (the order a reader meets them inside a step). */
    size_t keep = nstats;
    int *kept = calloc(nstats ? nstats : 1, sizeof *kept);
    if (!kept) return STS_ERR_NOMEM;
    if (nstats > MAX_SERIES) {
        keep = MAX_SERIES - 1;
        for (size_t k = 0; k < keep; k++) {
            size_t best = SIZE_MAX;
            for (size_t j = 0; j < nstats; j++)
                if (!kept[j] && (best == SIZE_MAX || stats[j].total_ns > stats[best].total_ns)) best = j;
            kept[best] = 1;
        }
    } else {
        for (size_t j = 0; j < nstats; j++)
            kept[j] = 1;
    }
    int other = nstats > keep;
    s->nseries = keep + (size_t)other;
    size_t cells = s->nsteps * (s->nseries ? s->nseries : 1);
    s->series = sts_rpt_alloc(r, (s->nseries + 1) * sizeof *s->series);
    s->labels = sts_rpt_alloc(r, (s->nsteps + 1) * sizeof *s->labels);
    s->total_ns = sts_rpt_alloc(r, (s->nsteps + 1) * sizeof *s->total_ns);
    s->rem_ns = sts_rpt_alloc(r, (s->nsteps + 1) * sizeof *s->rem_ns);
    s->child_ns = sts_rpt_alloc(r, (cells + 1) * sizeof *s->child_ns);
    s->child_count = sts_rpt_alloc(r, (cells + 1) * sizeof *s->child_count);
    /* name string id -> series index, through the stats order */
    uint32_t *names = calloc(s->nseries + 1, sizeof *names);
    if (!s->series || !s->labels || !s->total_ns || !s->rem_ns || !s->child_ns || !s->child_count || !names) {
        free(kept);
        free(names);
        return STS_ERR_NOMEM;
    }
    size_t si = 0;
    for (size_t j = 0; j < nstats; j++) {
        if (!kept[j]) continue;
        names[si] = stats[j].name;
        s->series[si++] = sts_rpt_strdup(r, series_label(sts_timeline_string(tl, stats[j].name)));
    }
    if (other) s->series[si] = "other children";
    free(kept);
    for (size_t i = 0; i < s->nsteps; i++) {
        char lab[32];
        snprintf(lab, sizeof lab, "%" PRId64, steps[i].index);
        s->labels[i] = sts_rpt_strdup(r, lab);
        s->total_ns[i] = (double)steps[i].dur;
        s->rem_ns[i] = (double)steps[i].unattributed_ns;
        for (uint32_t c = steps[i].first_child; c < steps[i].first_child + steps[i].child_count && c < nch; c++) {
            size_t j = 0;
            while (j < keep && names[j] != ch[c].name)
                j++;
            if (j == keep) j = keep; /* "other children" when it exists */
            if (j >= s->nseries) continue;
            s->child_ns[i * s->nseries + j] += (double)ch[c].total_ns;
            s->child_count[i * s->nseries + j] += ch[c].count;
        }
    }
    free(names);
    *out = s;
    return STS_OK;
}

static int32_t series_of(const sts_rpt_steps *s, const char *name)
{
    if (!s) return -1;
    if (s->step_name && strcmp(s->step_name, name) == 0) return 7;
    for (size_t j = 0; j < s->nseries && j < 7; j++)
        if (strcmp(s->series[j], name) == 0) return (int32_t)j;
    return -1;
}

static uint16_t color_for(const sts_rpt_steps *s, const char *name)
{
    int32_t c = series_of(s, name);
    if (c >= 0) return (uint16_t)c;
    uint64_t h = 1469598103934665603ull;
    for (const unsigned char *p = (const unsigned char *)name; *p; p++)
        h = (h ^ *p) * 1099511628211ull;
    return (uint16_t)(h % 7);
}

/* s without its leading and trailing blanks ("stream 7 " -> "stream 7"), in buf. */
static const char *trimmed(const char *s, char *buf, size_t n)
{
    while (*s == ' ' || *s == '\t')
        s++;
    snprintf(buf, n, "%s", s);
    size_t len = strlen(buf);
    while (len > 0 && (buf[len - 1] == ' ' || buf[len - 1] == '\t'))
        buf[--len] = 0;
    return buf;
}

static int numeric(const char *s)
{
    if (*s == '-') s++;
    return *s && strspn(s, "0123456789") == strlen(s);
}

/* A lane's own name: its thread name, else its tid ("tid 12", or the tid as written
 * when that is a word: "PyTorch Profiler"). With `tid`, the tid is added, to tell apart
 * threads of one process that share a name. */
static const char *thread_text(const sts_timeline *tl, const sts_lane *ln, int tid, char *buf, size_t n)
{
    char t[256];
    const char *name = ln->name ? trimmed(sts_timeline_string(tl, ln->name), t, sizeof t) : "";
    const char *label = sts_timeline_string(tl, ln->label);
    if (!*name)
        snprintf(buf, n, "%s%s", numeric(label) ? "tid " : "", label);
    else if (tid)
        snprintf(buf, n, "%s (tid %s)", name, label);
    else
        snprintf(buf, n, "%s", name);
    return buf;
}

/* A process's heading: its name, else its pid; with `pid`, the pid is added, to tell
 * apart processes that share a name. */
static const char *process_text(const sts_timeline *tl, const sts_process *p, int pid, char *buf, size_t n)
{
    char t[256];
    const char *name = p->name ? trimmed(sts_timeline_string(tl, p->name), t, sizeof t) : "";
    const char *label = sts_timeline_string(tl, p->label);
    if (!*name)
        snprintf(buf, n, "%s%s", numeric(label) ? "pid " : "", label);
    else if (pid)
        snprintf(buf, n, "%s (pid %s)", name, label);
    else
        snprintf(buf, n, "%s", name);
    return buf;
}

/* Names lanes (ids[k] is the k-th one's index in the timeline): a thread name and its
 * process's, with the tid or pid added only where two of these lanes or processes
 * would otherwise read the same. */
static sts_status name_lanes(sts_report *r, const sts_timeline *tl, const uint32_t *ids, size_t n, const char **names,
                             const char **groups)
{
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    const sts_process *procs = sts_timeline_processes(tl, NULL);
    char a[512], b[512];
    for (size_t k = 0; k < n; k++) {
        const sts_lane *ln = &lanes[ids[k]];
        int same_thread = 0, same_proc = 0;
        for (size_t m = 0; m < n; m++) {
            const sts_lane *o = &lanes[ids[m]];
            if (m == k) continue;
            if (o->process == ln->process &&
                strcmp(thread_text(tl, o, 0, a, sizeof a), thread_text(tl, ln, 0, b, sizeof b)) == 0)
                same_thread = 1;
            if (o->process != ln->process && strcmp(process_text(tl, &procs[o->process], 0, a, sizeof a),
                                                    process_text(tl, &procs[ln->process], 0, b, sizeof b)) == 0)
                same_proc = 1;
        }
        names[k] = sts_rpt_strdup(r, thread_text(tl, ln, same_thread, a, sizeof a));
        groups[k] = sts_rpt_strdup(r, process_text(tl, &procs[ln->process], same_proc, b, sizeof b));
        if (!names[k] || !groups[k]) return STS_ERR_NOMEM;
    }
    return STS_OK;
}

/* The window: the step where the most slices start, else the stretch of 1/50 of the
 * trace where the most slices start, else the whole trace when it is small. */
static void choose_window(const sts_timeline *tl, const sts_steps *st, double *t0, double *t1, char *why, size_t n)
{
    size_t ns, nsteps = 0;
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    const sts_step *steps = st ? sts_steps_list(st, &nsteps) : NULL;
    const sts_timeline_info *info = sts_timeline_get_info(tl);
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t i = 0; i < ns; i++) {
        if (sl[i].ts < lo) lo = sl[i].ts;
        if (sl[i].ts + sl[i].dur > hi) hi = sl[i].ts + sl[i].dur;
    }
    if (ns == 0) lo = info->ts_min, hi = info->ts_max;
    *t0 = (double)lo;
    *t1 = (double)hi;
    snprintf(why, n, "whole trace");
    if (nsteps > 0) {
        size_t *count = calloc(nsteps, sizeof *count);
        if (!count) return;
        for (size_t i = 0; i < ns; i++) {
            /* steps are in time order: find the last step starting at or before ts */
            size_t a = 0, b = nsteps;
            while (b - a > 1) {
                size_t m = (a + b) / 2;
                if (steps[m].ts <= sl[i].ts)
                    a = m;
                else
                    b = m;
            }
            if (steps[a].ts <= sl[i].ts && sl[i].ts < steps[a].ts + (steps[a].dur > 0 ? steps[a].dur : 1)) count[a]++;
        }
        size_t best = 0;
        for (size_t k = 1; k < nsteps; k++)
            if (count[k] > count[best]) best = k;
        *t0 = (double)steps[best].ts;
        *t1 = (double)(steps[best].ts + (steps[best].dur > 0 ? steps[best].dur : 1));
        /* "ProfilerStep#6" already says which step; "learner_step" needs its number. */
        const char *sname = sts_timeline_string(tl, steps[best].name);
        char num[32];
        snprintf(num, sizeof num, "#%" PRId64, steps[best].index);
        size_t ln = strlen(sname), lnum = strlen(num);
        int named = ln >= lnum && strcmp(sname + ln - lnum, num) == 0;
        snprintf(why, n, "busiest step: %s%s%s (%zu slices start in it)", sname, named ? "" : " ", named ? "" : num + 1,
                 count[best]);
        free(count);
        return;
    }
    if (ns <= 400 || hi <= lo) return;
    enum { BINS = 50 };
    size_t bins[BINS] = { 0 };
    double width = (double)(hi - lo) / BINS;
    for (size_t i = 0; i < ns; i++) {
        size_t k = (size_t)((double)(sl[i].ts - lo) / width);
        bins[k < BINS ? k : BINS - 1]++;
    }
    size_t best = 0;
    for (size_t k = 1; k < BINS; k++)
        if (bins[k] > bins[best]) best = k;
    *t0 = (double)lo + width * (double)best;
    *t1 = *t0 + width;
    snprintf(why, n, "busiest 1/50 of the trace (%zu slices start in it)", bins[best]);
}

/* How many depths of a lane, from the top, each hold exactly one slice covering the
 * whole window: the stack the window sits inside (a Python tracer's frames, a
 * runner's loop). Two or more are drawn as one row; fewer, 0. */
static int enclosing_depths(const sts_slice *sl, size_t ns, const sts_lane *ln, int64_t w0, int64_t w1)
{
    enum { D = 64 };
    uint32_t count[D] = { 0 };
    unsigned char covers[D] = { 0 };
    for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count && i < ns; i++) {
        const sts_slice *s = &sl[i];
        if (s->ts >= w1) break;
        if (s->track != ln->first_track) continue; /* an overflow track's depths are its own */
        if (!(s->dur > 0 ? s->ts + s->dur > w0 : s->ts >= w0) || s->depth >= D) continue;
        count[s->depth]++;
        if (s->ts <= w0 && s->ts + s->dur >= w1) covers[s->depth] = 1;
    }
    int k = 0;
    while (k < D && count[k] == 1 && covers[k])
        k++;
    return k >= 2 ? k : 0;
}

/* Appends " › name" (or name first) to the chain of enclosing names, as room allows. */
static void chain_add(char *chain, size_t n, const char *name)
{
    size_t len = strlen(chain);
    if (len + 1 < n) snprintf(chain + len, n - len, "%s%s", len ? " \xe2\x80\xba " : "", name);
}

static int in_window(const sts_slice *s, int64_t w0)
{
    return s->dur > 0 ? s->ts + s->dur > w0 : s->ts >= w0;
}

/* A lane's tracks are drawn one under another, its own track first: a slice spilled to
 * an overflow track (it overran a slice it started inside) is nested only within that
 * track, so its depth there counts from the row under the tracks before it. base[t] is
 * the first row of the lane's track t, from the depths each track reaches in the window. */
static void track_bases(const sts_slice *sl, size_t ns, const sts_lane *ln, int64_t w0, int64_t w1, uint32_t *base)
{
    uint32_t nt = ln->track_count;
    for (uint32_t t = 0; t < nt; t++)
        base[t] = 0;
    for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count && i < ns; i++) {
        const sts_slice *s = &sl[i];
        if (s->ts >= w1) break;
        uint32_t t = s->track - ln->first_track;
        if (t < nt && in_window(s, w0) && (uint32_t)s->depth + 1 > base[t]) base[t] = (uint32_t)s->depth + 1;
    }
    uint32_t row = 0;
    for (uint32_t t = 0; t < nt; t++) {
        uint32_t rows = base[t];
        base[t] = row;
        row += rows;
    }
}

static sts_status build_lanes(sts_report *r, const sts_timeline *tl, const sts_steps *st, const sts_rpt_steps *steps,
                              sts_rpt_lanes **out)
{
    size_t nl, ns;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    const sts_slice *sl = sts_timeline_slices(tl, &ns);
    sts_rpt_lanes *L = sts_rpt_alloc(r, sizeof *L);
    if (!L) return STS_ERR_NOMEM;
    char why[512];
    choose_window(tl, st, &L->t0, &L->t1, why, sizeof why);
    L->window = sts_rpt_strdup(r, why);
    uint32_t *order = malloc((nl ? nl : 1) * sizeof *order);
    uint32_t ids[MAX_LANES];
    L->lanes = sts_rpt_alloc(r, MAX_LANES * sizeof *L->lanes);
    L->slices = sts_rpt_alloc(r, MAX_SLICES * sizeof *L->slices);
    if (!order || !L->lanes || !L->slices) {
        free(order);
        return STS_ERR_NOMEM;
    }
    sts_lane_display_order(tl, order);
    int64_t w0 = (int64_t)L->t0, w1 = (int64_t)L->t1;
    for (size_t k = 0; k < nl; k++) {
        const sts_lane *ln = &lanes[order[k]];
        size_t n_in = 0;
        int maxrow = -1;
        int enc = enclosing_depths(sl, ns, ln, w0, w1);
        uint32_t *base = malloc((ln->track_count ? ln->track_count : 1) * sizeof *base);
        if (!base) {
            free(order);
            return STS_ERR_NOMEM;
        }
        track_bases(sl, ns, ln, w0, w1, base);
        char chain[1024] = "";
        for (uint32_t i = ln->first_slice; i < ln->first_slice + ln->slice_count && i < ns; i++) {
            const sts_slice *s = &sl[i];
            if (s->ts >= w1) break; /* a lane's slices are in ts order */
            if (!in_window(s, w0)) continue;
            n_in++;
            uint32_t t = s->track - ln->first_track;
            uint32_t depth = (t < ln->track_count ? base[t] : 0) + s->depth;
            if (depth < (uint32_t)enc) { /* drawn as the one enclosing row */
                chain_add(chain, sizeof chain, sts_timeline_string(tl, s->name));
                maxrow = maxrow < 0 ? 0 : maxrow;
                continue;
            }
            int row = (int)depth - enc + (enc ? 1 : 0);
            if (row >= MAX_ROWS || L->nlanes >= MAX_LANES || L->nslices >= MAX_SLICES) {
                L->hidden++;
                continue;
            }
            if (row > maxrow) maxrow = row;
            sts_rpt_lslice *o = &L->slices[L->nslices++];
            o->ts = (double)s->ts;
            o->dur = (double)s->dur;
            o->lane = (uint32_t)L->nlanes;
            o->depth = (uint16_t)(depth > 65535 ? 65535 : depth);
            o->name = sts_rpt_strdup(r, sts_timeline_string(tl, s->name));
            o->color = o->name ? color_for(steps, o->name) : 0;
            if (!o->name) {
                free(base);
                free(order);
                return STS_ERR_NOMEM;
            }
        }
        free(base);
        if (n_in == 0) continue;
        L->lanes_total++;
        if (L->nlanes >= MAX_LANES || maxrow < 0) continue;
        ids[L->nlanes] = order[k];
        L->lanes[L->nlanes].rows = maxrow + 1;
        L->lanes[L->nlanes].enclosing = enc;
        if (enc && !(L->lanes[L->nlanes].enclosing_names = sts_rpt_strdup(r, chain))) {
            free(order);
            return STS_ERR_NOMEM;
        }
        L->nlanes++;
    }
    free(order);
    *out = L;
    const char *names[MAX_LANES], *groups[MAX_LANES];
    sts_status s = name_lanes(r, tl, ids, L->nlanes, names, groups);
    for (size_t k = 0; s == STS_OK && k < L->nlanes; k++) {
        L->lanes[k].name = names[k];
        L->lanes[k].group = groups[k];
    }
    return s;
}

/* Per step, the busy time of the other lanes busiest over all steps (at most
 * MAX_WINDOW_LANES): NULL in *out when no other lane was busy during the steps. */
static sts_status build_windows(sts_report *r, const sts_timeline *tl, const sts_steps *st, const sts_rpt_steps *steps,
                                sts_rpt_windows **out)
{
    *out = NULL;
    size_t nwl, nsteps, nwin;
    const sts_window_lane_stats *wl = sts_steps_window_lanes(st, &nwl);
    const sts_step *list = sts_steps_list(st, &nsteps);
    const sts_step_window *win = sts_steps_windows(st, &nwin);
    if (nwl == 0 || nsteps == 0) return STS_OK;
    /* The busiest lanes, most busy time first (ties: display order, as listed). */
    size_t pick[MAX_WINDOW_LANES], np = 0;
    for (size_t i = 0; i < nwl; i++) {
        size_t at = np < MAX_WINDOW_LANES ? np++ : MAX_WINDOW_LANES;
        while (at > 0 && wl[pick[at - 1]].total_ns < wl[i].total_ns) {
            if (at < MAX_WINDOW_LANES) pick[at] = pick[at - 1];
            at--;
        }
        if (at < MAX_WINDOW_LANES) pick[at] = i;
    }
    sts_rpt_windows *W = sts_rpt_alloc(r, sizeof *W);
    if (!W) return STS_ERR_NOMEM;
    W->step_name = steps->step_name;
    W->labels = steps->labels;
    W->total_ns = steps->total_ns;
    W->nsteps = steps->nsteps;
    W->found = steps->found;
    W->nlanes = np;
    W->names = sts_rpt_alloc(r, np * sizeof *W->names);
    W->groups = sts_rpt_alloc(r, np * sizeof *W->groups);
    W->lane_total_ns = sts_rpt_alloc(r, np * sizeof *W->lane_total_ns);
    W->busy_ns = sts_rpt_alloc(r, (W->nsteps * np + 1) * sizeof *W->busy_ns);
    if (!W->names || !W->groups || !W->lane_total_ns || !W->busy_ns) return STS_ERR_NOMEM;
    uint32_t ids[MAX_WINDOW_LANES];
    for (size_t k = 0; k < np; k++) {
        ids[k] = wl[pick[k]].lane;
        W->lane_total_ns[k] = (double)wl[pick[k]].total_ns;
    }
    sts_status s = name_lanes(r, tl, ids, np, W->names, W->groups);
    if (s != STS_OK) return s;
    for (size_t i = 0; i < W->nsteps && i < nsteps; i++) {
        /* A lane with no slice in the step's window was idle in it: 0 is what happened. */
        for (uint32_t w = list[i].first_window; w < list[i].first_window + list[i].window_count && w < nwin; w++)
            for (size_t k = 0; k < np; k++)
                if (win[w].lane == ids[k]) W->busy_ns[i * np + k] = (double)win[w].busy_ns;
    }
    *out = W;
    return STS_OK;
}

static int cmp_self(const void *a, const void *b)
{
    const sts_name_summary *x = a, *y = b;
    return (x->self_ns < y->self_ns) - (x->self_ns > y->self_ns);
}

static sts_status build_names(sts_report *r, const sts_timeline *tl, sts_rpt_names **out, sts_error *err)
{
    sts_name_summary *sum = NULL;
    size_t n = 0;
    sts_status st = sts_name_summaries(tl, &sum, &n, err);
    if (st != STS_OK) return st;
    /* The analyzer already ranks by self time; sorting again keeps this table right
     * whatever order it returns. qsort is not stable, but ties only swap equal rows. */
    if (n > 1) qsort(sum, n, sizeof *sum, cmp_self);
    sts_rpt_names *N = sts_rpt_alloc(r, sizeof *N);
    size_t shown = n < MAX_NAME_ROWS ? n : MAX_NAME_ROWS;
    if (N) N->rows = sts_rpt_alloc(r, (shown + 1) * sizeof *N->rows);
    if (!N || !N->rows) {
        free(sum);
        return STS_ERR_NOMEM;
    }
    N->n = shown;
    N->total = n;
    for (size_t i = 0; i < n; i++)
        N->trace_self_ns += (double)sum[i].self_ns;
    for (size_t i = 0; i < shown; i++) {
        sts_rpt_name_row *row = &N->rows[i];
        row->name = sts_rpt_strdup(r, sts_timeline_string(tl, sum[i].name));
        row->count = sum[i].count;
        row->total_ns = (double)sum[i].total_ns;
        row->self_ns = (double)sum[i].self_ns;
        row->min_ns = (double)sum[i].min_ns;
        row->median_ns = (double)sum[i].median_ns;
        row->max_ns = (double)sum[i].max_ns;
    }
    free(sum);
    *out = N;
    return STS_OK;
}

static void trace_facts(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    size_t nl, ns;
    sts_timeline_lanes(tl, &nl);
    sts_timeline_slices(tl, &ns);
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    char d[48];
    if (in->run) {
        /* Which run and which host file of a profile directory this section is. */
        const char *file = in->path ? strrchr(in->path, '/') : NULL;
        file = file ? file + 1 : in->path ? in->path : "?";
        char runs[96] = "", hosts[600] = "";
        if (in->runs > 1)
            snprintf(runs, sizeof runs, ", %s of %" PRIu32 " runs", in->run_latest ? "the latest" : "chosen, one",
                     in->runs);
        if (in->run_hosts > 1)
            snprintf(hosts, sizeof hosts, "; read %.500s, one of %" PRIu32 " host files", file, in->run_hosts);
        else
            snprintf(hosts, sizeof hosts, "; read %.500s", file);
        sts_rpt_fact(r, f, "profile run", "%s%s%s", in->run, runs, hosts);
    }
    sts_rpt_fact(r, f, "format", "%s%s%s", in->format ? in->format : "?", in->compressed ? ", gzip" : "",
                 in->truncated ? ", truncated (complete events imported)" : "");
    sts_rpt_fact(r, f, "events read", "%" PRIu64, in->events);
    sts_rpt_fact(r, f, "slices / lanes", "%zu / %zu", ns, nl);
    sts_fmt_duration((double)(in->ts_max - in->ts_min), d, sizeof d);
    sts_rpt_fact(r, f, "span", "%s", d);
    sts_rpt_fact(r, f, "time resolution", "%s",
                 in->resolution_ns >= 1000 ? "1 \xc2\xb5s (whole microseconds)" : "1 ns");
    if (in->clamped)
        sts_rpt_fact(r, f, "clamped children", "%" PRIu64 " (overran their parent by rounding)", in->clamped);
    if (in->overlaps) sts_rpt_fact(r, f, "overlaps", "%" PRIu64 " (kept out of the nesting)", in->overlaps);
    if (in->unmatched_end || in->unclosed_begin)
        sts_rpt_fact(r, f, "unmatched E / unclosed B", "%" PRIu64 " / %" PRIu64, in->unmatched_end, in->unclosed_begin);
    if (in->rejected || in->skipped)
        sts_rpt_fact(r, f, "rejected / skipped events", "%" PRIu64 " / %" PRIu64, in->rejected, in->skipped);
}

/* The other lanes busiest during the steps (device streams, worker threads). */
static void busiest_window_lanes(sts_report *r, sts_rpt_facts *f, const sts_timeline *tl, const sts_steps *st)
{
    size_t n;
    const sts_window_lane_stats *wl = sts_steps_window_lanes(st, &n);
    if (!n) return;
    size_t pick[3], np = 0;
    for (size_t i = 0; i < n; i++) {
        size_t at = np < 3 ? np++ : 3;
        while (at > 0 && wl[pick[at - 1]].total_ns < wl[i].total_ns) {
            if (at < 3) pick[at] = pick[at - 1];
            at--;
        }
        if (at < 3) pick[at] = i;
    }
    char text[512];
    size_t len = 0;
    const sts_lane *lanes = sts_timeline_lanes(tl, NULL);
    for (size_t k = 0; k < np && len < sizeof text; k++) {
        const sts_window_lane_stats *x = &wl[pick[k]];
        const char *name = sts_timeline_string(tl, lanes[x->lane].name);
        char med[48];
        sts_fmt_duration((double)x->median_ns, med, sizeof med);
        len += (size_t)snprintf(text + len, sizeof text - len, "%s%s: median %s per step", k ? "; " : "",
                                *name ? name : sts_timeline_string(tl, lanes[x->lane].label), med);
    }
    sts_rpt_fact(r, f, "other lanes during the steps", "%s", text);
}

static void steps_facts(sts_report *r, sts_rpt_section *sec, const sts_timeline *tl, const sts_steps *st)
{
    const sts_steps_summary *sm = sts_steps_get_summary(st);
    sts_rpt_facts *f = sts_rpt_add_facts(r, sec);
    char a[48], b[48], c[48];
    sts_rpt_fact(r, f, "steps", "%zu (found by rule: %s)", sm->steps, sts_step_rule_name(sts_steps_rule(st)));
    sts_fmt_duration((double)sm->min_ns, a, sizeof a);
    sts_fmt_duration((double)sm->median_ns, b, sizeof b);
    sts_fmt_duration((double)sm->max_ns, c, sizeof c);
    sts_rpt_fact(r, f, "step duration", "min %s, median %s, max %s", a, b, c);
    sts_fmt_duration(sm->mean_ns, a, sizeof a);
    if (isnan(sm->stddev_ns)) {
        sts_rpt_fact(r, f, "mean, standard deviation", "%s, unknown (one step)", a);
    } else {
        sts_fmt_duration(sm->stddev_ns, b, sizeof b);
        sts_rpt_fact(r, f, "mean, standard deviation", "%s, %s (sample, as XProf's overview page)", a, b);
    }
    if (sm->partial)
        sts_rpt_fact(r, f, "partial steps",
                     "%zu may be cut by the capture (at its start or end, or never closed); XProf's overview "
                     "leaves the first and last step out",
                     sm->partial);
    busiest_window_lanes(r, f, tl, st);
    sts_fmt_duration((double)sm->total_ns, a, sizeof a);
    sts_fmt_duration((double)sm->children_ns, b, sizeof b);
    sts_fmt_duration((double)sm->unattributed_ns, c, sizeof c);
    sts_rpt_fact(r, f, "all steps", "%s = children %s + unattributed %s", a, b, c);
    sts_fmt_duration((double)sm->naive_ns, a, sizeof a);
    sts_rpt_fact(r, f, "step + children summed", "%s: double counted, not a real duration", a);
}

sts_status sts_rpt_trace_section(sts_report *r, const sts_timeline *tl, const char *label, sts_error *err)
{
    const sts_timeline_info *in = sts_timeline_get_info(tl);
    const char *src = label ? label : in->path ? in->path : "trace";
    sts_rpt_section *sec = sts_rpt_section_new(r, "trace", "Trace", src);
    if (!sec) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", src);
    trace_facts(r, sec, tl);

    sts_steps *st = NULL;
    sts_status s = sts_steps_find(tl, NULL, &st, err);
    if (s != STS_OK) return s;
    sts_rpt_steps *steps = NULL;
    if (sts_steps_rule(st) != STS_STEP_RULE_NONE) {
        s = build_steps(r, tl, st, &steps);
        if (s == STS_OK) {
            sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Where each step's time goes");
            steps_facts(r, sec, tl, st);
            if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_STEPS, "fig-steps", steps, HOW_STEPS)) s = STS_ERR_NOMEM;
            sts_rpt_windows *wins = NULL;
            if (s == STS_OK) s = build_windows(r, tl, st, steps, &wins);
            if (s == STS_OK && wins) {
                sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Other lanes during each step");
                if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_WINDOWS, "fig-windows", wins, HOW_WINDOWS)) s = STS_ERR_NOMEM;
            }
            if (s == STS_OK) s = sts_rpt_device_figures(r, sec, tl, st, steps->step_name);
        }
    } else {
        size_t nt;
        const char *const *tried = sts_steps_tried(st, &nt);
        char note[1024];
        int len = snprintf(note, sizeof note, "No steps found, so no per-step figure.%s", nt ? " Looked for:" : "");
        for (size_t i = 0; i < nt && len > 0 && (size_t)len < sizeof note; i++)
            len += snprintf(note + len, sizeof note - (size_t)len, "%s %s", i ? ";" : "", tried[i]);
        sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note);
    }
    int has_steps = sts_steps_rule(st) != STS_STEP_RULE_NONE;
    if (s == STS_OK) s = sts_rpt_memory_figures(r, sec, tl, has_steps ? st : NULL, steps ? steps->step_name : NULL);
    sts_rpt_lanes *lanes = NULL;
    if (s == STS_OK) s = build_lanes(r, tl, sts_steps_rule(st) != STS_STEP_RULE_NONE ? st : NULL, steps, &lanes);
    sts_steps_free(st);
    if (s != STS_OK) return sts_error_set(err, s, -1, "%s: %s while building the report", src, sts_strerror(s));
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Lanes in the busiest window");
    if (!sts_rpt_add_fig(r, sec, STS_RPT_FIG_LANES, "fig-lanes", lanes, HOW_LANES))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", src);
    if (lanes->hidden) {
        char note[256];
        snprintf(note, sizeof note,
                 "%zu slices in this window are not drawn: the figure shows at most %d lanes, %d depth rows and %d "
                 "slices.",
                 lanes->hidden, MAX_LANES, MAX_ROWS, MAX_SLICES);
        sts_rpt_add_text(r, sec, STS_RPT_ITEM_NOTE, note);
    }
    sts_rpt_names *names = NULL;
    s = build_names(r, tl, &names, err);
    if (s != STS_OK) return s;
    sts_rpt_add_text(r, sec, STS_RPT_ITEM_H3, "Names by self time");
    if (!sts_rpt_add_names(r, sec, names, "tbl-names"))
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", src);
    sts_rpt_section_commit(r, sec);
    return STS_OK;
}
