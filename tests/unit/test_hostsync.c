/* Host syncs found in a trace: the rule table, outermost matches only, steps and where,
 * and a property test over random traces against a count kept while building them. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "model/finalize.h"
#include "model/timeline_builder.h"
#include "stepscope.h"
#include "stepscope/hostsync.h"
#include "raw_timeline.h"
#include "test.h"

static const char *rule_of(const char *name)
{
    const sts_host_sync_rule *r = sts_host_sync_match_name(name);
    return r ? r->name : "(none)";
}

TEST(rules_match_the_declared_names)
{
    T_EQ_STR(rule_of("$array.py:615 _value"), "_value");
    T_EQ_STR(rule_of("$jax/_src/array.py:615 _value"), "_value");
    T_EQ_STR(rule_of("$array.py:301 __float__"), "__float__");
    T_EQ_STR(rule_of("$array.py:420 __array__"), "__array__");
    T_EQ_STR(rule_of("$train.py:9 block_until_ready"), "block_until_ready");
    T_EQ_STR(rule_of("aten::item"), "aten::item");
    T_EQ_STR(rule_of("aten::_local_scalar_dense"), "aten::_local_scalar_dense");
    T_EQ_STR(rule_of("<built-in method item of Tensor object at 0x7f00>"), "Tensor.item");
    T_EQ_STR(rule_of("cudaStreamSynchronize"), "cudaStreamSynchronize");
    T_EQ_STR(rule_of("cudaMemcpy"), "cudaMemcpy");
    T_EQ_STR(rule_of("hipDeviceSynchronize"), "hipDeviceSynchronize");
    /* not syncs: an async copy, another file's _value, a name that only contains one */
    T_EQ_STR(rule_of("cudaMemcpyAsync"), "(none)");
    T_EQ_STR(rule_of("$model.py:5 _value"), "(none)");
    T_EQ_STR(rule_of("$myarray.py:5 _value"), "(none)");
    T_EQ_STR(rule_of("aten::items"), "(none)");
    T_EQ_STR(rule_of("$array.py:615 _value2"), "(none)");
    T_EQ_STR(rule_of(""), "(none)");
    T_TRUE(sts_host_sync_match_name(NULL) == NULL);
    size_t n;
    const sts_host_sync_rule *r = sts_host_sync_rules(&n);
    T_TRUE(n > 10);
    for (size_t i = 0; i < n; i++) /* every rule is complete */
        T_TRUE(r[i].name && r[i].framework && r[i].pattern);
    sts_host_syncs_free(NULL);
}

static sts_steps *steps_of(sts_timeline *tl)
{
    sts_steps *s = NULL;
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    sts_error err = STS_ERROR_INIT;
    if (sts_steps_find(tl, &so, &s, &err) != STS_OK) fprintf(stderr, "steps: %s\n", err.message);
    return s;
}

TEST(outermost_only_with_where)
{
    sts_timeline *tl = mk(0);
    uint32_t a = lane(tl, 1, 1), b = lane(tl, 1, 2);
    X(tl, a, "ProfilerStep#1", 0, 1000);
    X(tl, b, "log", 100, 500);
    X(tl, b, "aten::item", 110, 100);
    X(tl, b, "aten::_local_scalar_dense", 111, 90);
    X(tl, b, "cudaStreamSynchronize", 112, 80);
    X(tl, b, "cudaDeviceSynchronize", 700, 40); /* a root: where unknown */
    X(tl, b, "aten::item", 2000, 5);            /* after the step */
    sts_error err = STS_ERROR_INIT;
    T_TRUE(sts_tl_finalize(tl, &err) == STS_OK);
    sts_steps *s = steps_of(tl);
    T_TRUE(s != NULL);
    sts_host_syncs *h = NULL;
    T_TRUE(sts_host_syncs_find(tl, s, &h, &err) == STS_OK);
    size_t n, first;
    const sts_host_sync *hs = sts_host_syncs_list(h, &n);
    T_EQ_U64(n, 2);
    T_EQ_U64(sts_host_syncs_of_step(h, 0, &first), 2);
    T_EQ_U64(first, 0);
    T_EQ_U64(sts_host_syncs_of_step(h, 1, &first), 0); /* past the last step */
    T_EQ_U64(sts_host_syncs_outside(h), 1);
    T_EQ_STR(hs[0].name, "aten::item");
    T_EQ_U64(hs[0].count, 1);
    T_EQ_I64(hs[0].wait_ns, 100);
    T_EQ_STR(sts_timeline_string(tl, hs[0].where), "log");
    T_EQ_STR(hs[1].name, "cudaDeviceSynchronize");
    T_TRUE(hs[1].where == STS_NONE);
    T_EQ_I64(hs[1].wait_ns, 40);
    sts_host_syncs_free(h);
    sts_steps_free(s);
    sts_timeline_free(tl);
}

static uint64_t rnd(uint64_t *x)
{
    *x ^= *x << 13;
    *x ^= *x >> 7;
    *x ^= *x << 17;
    return *x;
}

/* The count and wait of a scope's syncs (sts_host_syncs_find_scope: one entry, step 0). */
static int sum_scope(const sts_timeline *tl, const sts_scope *sc, uint64_t *count, int64_t *wait)
{
    sts_host_syncs *h = NULL;
    if (sts_host_syncs_find_scope(tl, sc, &h, NULL) != STS_OK) return 0;
    size_t n, first;
    const sts_host_sync *hs = sts_host_syncs_list(h, &n);
    *count = 0;
    *wait = 0;
    int ok = sts_host_syncs_of_step(h, 0, &first) == n && first == 0;
    for (size_t i = 0; i < n; i++) {
        *count += hs[i].count;
        *wait += hs[i].wait_ns;
    }
    sts_host_syncs_free(h);
    return ok;
}

TEST(scope_bad_arguments)
{
    sts_host_syncs *h = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_host_syncs_find_scope(NULL, NULL, &h, &err), STS_ERR_INVALID_ARG);
    T_CONTAINS(err.message, "no timeline");
    T_TRUE(h == NULL);
    T_EQ_I64(sts_host_syncs_find_scope(NULL, NULL, NULL, &err), STS_ERR_INVALID_ARG);
}

/* Random steps and, on a worker, random blocks: plain work, an aten::item nest (one sync),
 * a root cudaMemcpy (one sync), a sync under a sync. The expected count and wait per step
 * are kept as the blocks are made. */
TEST(random_traces_count_as_built)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    for (int round = 0; round < 50; round++) {
        sts_timeline *tl = mk(0);
        uint32_t a = lane(tl, 1, 1), b = lane(tl, 1, 2);
        int nsteps = 2 + (int)(rnd(&seed) % 6);
        uint64_t want_count[8] = { 0 }, outside = 0;
        int64_t want_wait[8] = { 0 }, outside_wait = 0;
        for (int k = 0; k < nsteps; k++) {
            char nm[32];
            snprintf(nm, sizeof nm, "ProfilerStep#%d", k);
            X(tl, a, nm, 10000 * k, 8000);
            X(tl, a, "work", 10000 * k + 1, 10);
        }
        int64_t t = 0;
        while (t < 10000 * nsteps + 5000) {
            int64_t dur = 10 + (int64_t)(rnd(&seed) % 500);
            int kind = (int)(rnd(&seed) % 4);
            int64_t k = t / 10000, in_step = t % 10000 < 8000 && k < nsteps;
            if (kind == 0) X(tl, b, "compute", t, dur);
            if (kind == 1) {
                X(tl, b, "aten::item", t, dur);
                X(tl, b, "cudaStreamSynchronize", t + 1, dur - 2);
            }
            if (kind == 2) X(tl, b, "cudaMemcpy", t, dur);
            if (kind == 3) {
                X(tl, b, "frame", t, dur);
                X(tl, b, "cudaDeviceSynchronize", t + 1, dur - 2);
            }
            if (kind) {
                int64_t w = kind == 3 ? dur - 2 : dur;
                if (in_step) {
                    want_count[k]++;
                    want_wait[k] += w;
                } else {
                    outside++;
                    outside_wait += w;
                }
            }
            t += dur + 1 + (int64_t)(rnd(&seed) % 300);
        }
        sts_error err = STS_ERROR_INIT;
        T_TRUE(sts_tl_finalize(tl, &err) == STS_OK);
        sts_steps *s = steps_of(tl);
        sts_host_syncs *h = NULL;
        T_TRUE(s && sts_host_syncs_find(tl, s, &h, &err) == STS_OK);
        if (!h) return;
        const sts_host_sync *hs = sts_host_syncs_list(h, NULL);
        for (int k = 0; k < nsteps; k++) {
            size_t first, n = sts_host_syncs_of_step(h, (uint32_t)k, &first);
            uint64_t c = 0;
            int64_t w = 0;
            for (size_t i = first; i < first + n; i++) {
                c += hs[i].count;
                w += hs[i].wait_ns;
                T_TRUE(hs[i].wait_ns >= 0 && hs[i].count > 0);
                if (i > first) T_TRUE(hs[i - 1].wait_ns >= hs[i].wait_ns);
            }
            T_EQ_U64(c, want_count[k]);
            T_EQ_I64(w, want_wait[k]);
        }
        T_EQ_U64(sts_host_syncs_outside(h), outside);
        sts_host_syncs_free(h);
        /* The whole trace as one span (analyze): every sync, in the steps or not; only the
         * steps' lane: none; step 0's window: step 0's. */
        uint64_t all_count = outside;
        int64_t all_wait = outside_wait;
        for (int k = 0; k < nsteps; k++) {
            all_count += want_count[k];
            all_wait += want_wait[k];
        }
        sts_scope sc = STS_SCOPE_INIT;
        uint64_t c = 0;
        int64_t w = 0;
        T_TRUE(sum_scope(tl, NULL, &c, &w));
        T_EQ_U64(c, all_count);
        T_EQ_I64(w, all_wait);
        sc.lanes = &a;
        sc.nlanes = 1;
        T_TRUE(sum_scope(tl, &sc, &c, &w));
        T_EQ_U64(c, 0);
        sc.lanes = NULL;
        sc.windowed = 1;
        sc.start_ns = 0;
        sc.end_ns = 8000;
        T_TRUE(sum_scope(tl, &sc, &c, &w));
        T_EQ_U64(c, want_count[0]);
        T_EQ_I64(w, want_wait[0]);
        sts_steps_free(s);
        sts_timeline_free(tl);
    }
}

int main(void)
{
    RUN(rules_match_the_declared_names);
    RUN(outermost_only_with_where);
    RUN(random_traces_count_as_built);
    RUN(scope_bad_arguments);
    return t_done();
}
