/* Scopes: which lanes, names and time window an analysis looks at. */
#include <stdlib.h>
#include <string.h>

#include "analyze/an_impl.h"

void sts_an_scope_close(sts_an_scope *x)
{
    free(x->lane_on);
    free(x->memo);
    if (x->by_name) sts_an_matcher_release(&x->name);
    memset(x, 0, sizeof *x);
}

static sts_status lanes_of(sts_an_scope *x, const sts_timeline *tl, const sts_scope *sc, sts_error *err)
{
    size_t nl;
    sts_timeline_lanes(tl, &nl);
    x->lane_on = calloc(nl ? nl : 1, 1);
    if (!x->lane_on) return sts_an_nomem(err, "choosing lanes");
    for (size_t k = 0; k < sc->nlanes; k++) {
        if (sc->lanes[k] >= nl)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "lane %u out of range (%zu lanes)", sc->lanes[k], nl);
        x->lane_on[sc->lanes[k]] = 1;
    }
    return STS_OK;
}

sts_status sts_an_scope_open(sts_an_scope *x, const sts_timeline *tl, const sts_scope *sc, sts_error *err)
{
    memset(x, 0, sizeof *x);
    x->tl = tl;
    if (!sc) return STS_OK;
    x->group = sc->group;
    sts_status st = STS_OK;
    if (sc->lanes) st = lanes_of(x, tl, sc, err);
    if (st == STS_OK && sc->windowed) {
        if (sc->start_ns >= sc->end_ns)
            st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "empty window: start %lld ns is not before end %lld ns",
                               (long long)sc->start_ns, (long long)sc->end_ns);
        x->windowed = 1;
        x->window[0] = sc->start_ns;
        x->window[1] = sc->end_ns;
    }
    if (st == STS_OK && sc->name) {
        st = sts_an_matcher_init(&x->name, sc->name, sts_an_has_name(tl, sc->name), "name pattern", err);
        if (st == STS_OK) {
            x->by_name = 1;
            x->bound = sts_an_name_bound(tl);
            x->memo = malloc(x->bound ? x->bound : 1);
            if (!x->memo)
                st = sts_an_nomem(err, "matching names");
            else
                memset(x->memo, -1, x->bound);
        }
    }
    if (st != STS_OK) sts_an_scope_close(x);
    return st;
}

int sts_an_scope_name_match(sts_an_scope *x, uint32_t name)
{
    if (name >= x->bound) return 0;
    if (x->memo[name] < 0)
        x->memo[name] = (signed char)sts_an_matcher_match(&x->name, sts_timeline_string(x->tl, name));
    return x->memo[name];
}
