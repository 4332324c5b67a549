/* trace: the polygon of device-to-host lines left open by causal bounds (devclock.h).
 * Offsets are kept relative to a reference in double: they stay within microseconds
 * of it, where a double is exact to far below a nanosecond. */
#include "trace/devclock.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Slack for rounding, in ns: a vertex this close to a bound counts as on it. */
#define EPS 1e-3

static double weight(const sts_devclock *c, int64_t t)
{
    return (double)(t - c->d0) / (double)(c->d1 - c->d0);
}

static int reserve(sts_devclock *c, size_t need)
{
    if (need <= c->cap) return 0;
    size_t cap = c->cap ? c->cap * 2 : 16;
    while (cap < need)
        cap *= 2;
    double *p[4] = { c->pu, c->pv, c->tu, c->tv };
    for (int i = 0; i < 4; i++) {
        double *q = realloc(p[i], cap * sizeof *q);
        if (!q) {
            c->nomem = 1;
            return -1;
        }
        p[i] = q;
        c->pu = p[0], c->pv = p[1], c->tu = p[2], c->tv = p[3];
    }
    c->cap = cap;
    return 0;
}

int sts_devclock_init(sts_devclock *c, int64_t d0, int64_t d1, int64_t ref, int64_t span)
{
    memset(c, 0, sizeof *c);
    c->d0 = d0;
    c->d1 = d1 > d0 ? d1 : d0 + 1;
    c->ref = ref;
    if (reserve(c, 16) != 0) return -1;
    const double s = (double)span, box[4][2] = { { -s, -s }, { s, -s }, { s, s }, { -s, s } };
    for (int i = 0; i < 4; i++)
        c->pu[i] = box[i][0], c->pv[i] = box[i][1];
    c->n = 4;
    return 0;
}

void sts_devclock_release(sts_devclock *c)
{
    free(c->pu), free(c->pv), free(c->tu), free(c->tv);
    memset(c, 0, sizeof *c);
}

static void keep(sts_devclock *c, size_t *m, double u, double v)
{
    /* Drop a vertex that repeats the previous one: clipping near a vertex makes them. */
    if (*m && fabs(c->tu[*m - 1] - u) <= EPS && fabs(c->tv[*m - 1] - v) <= EPS) return;
    c->tu[*m] = u, c->tv[*m] = v;
    (*m)++;
}

/* Keeps the part of the polygon where a u + b v <= k (Sutherland-Hodgman against one
 * half-plane; the polygon stays convex and in order). */
static void clip(sts_devclock *c, double a, double b, double k)
{
    if (c->n == 0 || reserve(c, c->n + 2) != 0) return;
    size_t m = 0;
    for (size_t i = 0; i < c->n; i++) {
        size_t j = i + 1 == c->n ? 0 : i + 1;
        double pu = c->pu[i], pv = c->pv[i], qu = c->pu[j], qv = c->pv[j];
        double dp = a * pu + b * pv - k, dq = a * qu + b * qv - k;
        if (dp <= EPS) keep(c, &m, pu, pv);
        if ((dp < -EPS && dq > EPS) || (dp > EPS && dq < -EPS)) {
            double s = dp / (dp - dq);
            keep(c, &m, pu + s * (qu - pu), pv + s * (qv - pv));
        }
    }
    if (m > 1 && fabs(c->tu[m - 1] - c->tu[0]) <= EPS && fabs(c->tv[m - 1] - c->tv[0]) <= EPS) m--;
    double *t = c->pu;
    c->pu = c->tu, c->tu = t;
    t = c->pv;
    c->pv = c->tv, c->tv = t;
    c->n = m;
}

void sts_devclock_bound(sts_devclock *c, int64_t t, int64_t lo, int64_t hi)
{
    double w = weight(c, t);
    if (hi != INT64_MAX) clip(c, 1 - w, w, (double)(hi - c->ref));
    if (lo != INT64_MIN) clip(c, -(1 - w), -w, -(double)(lo - c->ref));
}

/* 1 when (u, v) lies in the polygon (counter-clockwise, as the starting box is and
 * clipping keeps it), to within EPS. */
static int inside(const sts_devclock *c, double u, double v)
{
    for (size_t i = 0; i < c->n; i++) {
        size_t j = i + 1 == c->n ? 0 : i + 1;
        double eu = c->pu[j] - c->pu[i], ev = c->pv[j] - c->pv[i];
        double cross = eu * (v - c->pv[i]) - ev * (u - c->pu[i]);
        if (cross < -EPS * sqrt(eu * eu + ev * ev)) return 0;
    }
    return 1;
}

/* The middle: the centre of the polygon's bounding box, which makes the error the
 * larger half-extent, when it lies in the polygon; else the mean of the vertices. */
static void middle(const sts_devclock *c, double *u, double *v)
{
    double u0 = c->pu[0], u1 = u0, v0 = c->pv[0], v1 = v0, su = 0, sv = 0;
    for (size_t i = 0; i < c->n; i++) {
        u0 = fmin(u0, c->pu[i]), u1 = fmax(u1, c->pu[i]);
        v0 = fmin(v0, c->pv[i]), v1 = fmax(v1, c->pv[i]);
        su += c->pu[i], sv += c->pv[i];
    }
    *u = (u0 + u1) / 2, *v = (v0 + v1) / 2;
    if (!inside(c, *u, *v)) *u = su / (double)c->n, *v = sv / (double)c->n;
}

sts_devmap sts_devclock_fit(const sts_devclock *c)
{
    sts_devmap m;
    memset(&m, 0, sizeof m);
    m.d0 = c->d0, m.d1 = c->d1, m.ref = c->ref;
    if (c->nomem || c->n == 0) return m;
    middle(c, &m.u, &m.v);
    /* The gap between two lines is linear in w, so over [d0, d1] it is largest at an
     * end; over the polygon, at a vertex. */
    double err = 0;
    for (size_t i = 0; i < c->n; i++)
        err = fmax(err, fmax(fabs(c->pu[i] - m.u), fabs(c->pv[i] - m.v)));
    m.error_ns = (int64_t)ceil(err + 0.5 + 2 * EPS); /* + the rounding of the mapped value */
    m.ok = 1;
    return m;
}

#define MAX_DRIFT_NS 1000000000000LL /* 1000 s */

static sts_devmap fit_bounds(int64_t d0, int64_t d1, int64_t ref, const sts_devbound *a, size_t na,
                             const sts_devbound *b, size_t nb)
{
    sts_devclock c;
    sts_devmap m;
    memset(&m, 0, sizeof m);
    if (sts_devclock_init(&c, d0, d1, ref, MAX_DRIFT_NS) != 0) return m;
    for (size_t i = 0; i < na; i++)
        sts_devclock_bound(&c, a[i].t, a[i].lo, a[i].hi);
    for (size_t i = 0; i < nb; i++)
        sts_devclock_bound(&c, b[i].t, b[i].lo, b[i].hi);
    m = sts_devclock_fit(&c);
    sts_devclock_release(&c);
    return m;
}

sts_devmap sts_devclock_map(int64_t d0, int64_t d1, int64_t ref, const sts_devbound *cal, size_t ncal,
                            const sts_devbound *ops, size_t nops)
{
    sts_devmap m = fit_bounds(d0, d1, ref, cal, ncal, ops, nops);
    if (m.ok || !nops) return m;
    m = fit_bounds(d0, d1, ref, cal, ncal, NULL, 0);
    m.error_ns = -1;
    return m;
}

int64_t sts_devmap_host(const sts_devmap *m, int64_t device_ns)
{
    double w = (double)(device_ns - m->d0) / (double)(m->d1 - m->d0);
    return device_ns + m->ref + llround((1 - w) * m->u + w * m->v);
}
