/* Device memory over time (stepscope/memory.h): generated Kineto traces whose answers
 * the generator knows (peaks, ends, allocations), random traces checked against the
 * invariants (peak >= start and end, live at the peak + untracked = peak), and every bad
 * input counted and warned, never turned into a number. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope.h"
#include "json_gen.h"
#include "test.h"

/* One [memory] instant (ts in us) of device type 1 (cuda) id `dev`. */
static void mem_event(tbuf *b, int64_t ts, int dev, int64_t addr, int64_t bytes, int64_t total)
{
    putf(b,
         ",{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"args\":{\"Device "
         "Type\":1,\"Device Id\":%d,\"Addr\":%lld,\"Bytes\":%lld,\"Total Allocated\":%lld}}",
         (long long)ts, dev, (long long)addr, (long long)bytes, (long long)total);
}

static sts_timeline *open_json(tbuf *b, int with_memory)
{
    putf(b, "]}");
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = with_memory ? (sts_args_mode)(STS_ARGS_ANALYSIS | STS_ARGS_WITH_MEMORY) : STS_ARGS_ANALYSIS;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_timeline_open_mem(b->p, b->n, "gen.json", &o, &tl, &err) != STS_OK) {
        fprintf(stderr, "open: %s\n", err.message);
        return NULL;
    }
    return tl;
}

static sts_steps *find_steps(const sts_timeline *tl)
{
    sts_step_options so = STS_STEP_OPTIONS_INIT;
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    return sts_steps_find(tl, &so, &s, &err) == STS_OK ? s : NULL;
}

static sts_memory *find_memory(const sts_timeline *tl, const sts_steps *s)
{
    sts_memory_options mo = STS_MEMORY_OPTIONS_INIT;
    mo.steps = s;
    mo.top = 0;
    sts_memory *m = NULL;
    sts_error err = STS_ERROR_INIT;
    return sts_memory_find(tl, &mo, &m, &err) == STS_OK ? m : NULL;
}

/* Steps of 1000 us at 1000 * k; in each, allocations inside an "op" slice: step k
 * allocates sizes[k] twice (a then b), frees a, and keeps b: so the peak of step k is
 * the start + 2 sizes[k] and its end is start + sizes[k]; the bytes grow step by step. */
TEST(known_peaks)
{
    static const int64_t sizes[] = { 4096, 1000, 70000, 512 };
    const int64_t base = 1 << 20; /* in use before the capture: untracked */
    tbuf b = { 0 };
    putf(&b, "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}");
    int64_t total = base, addr = 0x1000;
    int64_t want_start[4], want_peak[4], want_end[4], want_peak_ts[4];
    for (int k = 0; k < 4; k++) {
        int64_t t0 = 1000 * (k + 1);
        putf(&b, ",{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":900}", k,
             (long long)t0);
        putf(&b, ",{\"ph\":\"X\",\"name\":\"op%d\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":100}", k,
             (long long)t0 + 10);
        want_start[k] = total;
        mem_event(&b, t0 + 20, 0, addr, sizes[k], total += sizes[k]);
        mem_event(&b, t0 + 30, 0, addr + 8, sizes[k], total += sizes[k]);
        want_peak[k] = total;
        want_peak_ts[k] = (t0 + 30) * 1000;
        mem_event(&b, t0 + 40, 0, addr, -sizes[k], total -= sizes[k]);
        want_end[k] = total;
        addr += 16;
    }
    sts_timeline *tl = open_json(&b, 1);
    T_TRUE(tl != NULL);
    sts_steps *s = find_steps(tl);
    T_TRUE(s != NULL);
    sts_memory *m = find_memory(tl, s);
    T_TRUE(m != NULL);
    size_t nd;
    const sts_memory_device *d = sts_memory_devices(m, &nd);
    T_EQ_U64(nd, 1);
    T_EQ_STR(d[0].name, "cuda:0");
    T_EQ_I64(d[0].start_bytes, base);
    T_EQ_I64(d[0].peak_bytes, want_peak[2]); /* the largest size's step */
    T_EQ_I64(d[0].peak_ts_ns, want_peak_ts[2]);
    T_EQ_I64(d[0].end_bytes, want_end[3]);
    T_EQ_U64(d[0].allocations, 8);
    T_EQ_U64(d[0].frees, 4);
    T_EQ_U64(d[0].unmatched_frees, 0);
    /* Live at the device's peak: b of steps 0 and 1, a and b of step 2; the rest untracked. */
    size_t nl;
    const sts_memory_live *l = sts_memory_lives(m, &nl);
    int64_t live = 0;
    for (uint32_t i = d[0].first_live; i < d[0].first_live + d[0].live_count; i++)
        live += l[i].bytes;
    T_EQ_I64(live, sizes[0] + sizes[1] + 2 * sizes[2]);
    T_EQ_I64(d[0].untracked_bytes, base);
    T_EQ_STR(l[d[0].first_live].name, "op2");
    for (size_t k = 0; k < 4; k++) {
        size_t n;
        const sts_memory_step *e = sts_memory_step_entries(m, k, &n);
        T_EQ_U64(n, 1);
        T_EQ_I64(e[0].start_bytes, want_start[k]);
        T_EQ_I64(e[0].peak_bytes, want_peak[k]);
        T_EQ_I64(e[0].peak_ts_ns, want_peak_ts[k]);
        T_EQ_I64(e[0].end_bytes, want_end[k]);
        T_EQ_U64(e[0].allocations, 2);
        T_EQ_U64(e[0].frees, 1);
        T_EQ_I64(e[0].allocated_bytes, 2 * sizes[k]);
    }
    /* Ends grew at every step: a leak suspect, with what each earlier step kept. */
    T_TRUE(d[0].leak_suspect);
    T_EQ_I64(d[0].leak_growth_bytes, want_end[3] - want_end[0]);
    sts_memory_free(m);
    sts_steps_free(s);
    sts_timeline_free(tl);
    free(b.p);
}

/* Random allocations and frees on two devices over random steps: every invariant holds,
 * and the device peak is the generator's own maximum of the totals it wrote. */
TEST(random_invariants)
{
    rng r = { 0x9e3779b97f4a7c15ull };
    for (int round = 0; round < 60; round++) {
        tbuf b = { 0 };
        putf(&b, "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":"
                 "\"t\"}}");
        int nsteps = 1 + (int)(rng_next(&r) % 5);
        int64_t total[2] = { (int64_t)(rng_next(&r) % 5000), 0 }, peak[2], live_addr[2][64], live_sz[2][64];
        int nlive[2] = { 0, 0 };
        peak[0] = total[0], peak[1] = total[1];
        int64_t t = 100, addr = 1;
        for (int k = 0; k < nsteps; k++) {
            int64_t len = 200 + (int64_t)(rng_next(&r) % 800);
            putf(&b, ",{\"ph\":\"X\",\"name\":\"ProfilerStep#%d\",\"pid\":1,\"tid\":1,\"ts\":%lld,\"dur\":%lld}", k,
                 (long long)t, (long long)len);
            for (int64_t u = t + 1; u < t + len; u += 1 + (int64_t)(rng_next(&r) % 40)) {
                int dv = (int)(rng_next(&r) % 2);
                if (nlive[dv] && (rng_next(&r) % 3 == 0 || nlive[dv] == 64)) {
                    int j = (int)(rng_next(&r) % (uint64_t)nlive[dv]);
                    total[dv] -= live_sz[dv][j];
                    mem_event(&b, u, dv, live_addr[dv][j], -live_sz[dv][j], total[dv]);
                    live_addr[dv][j] = live_addr[dv][nlive[dv] - 1];
                    live_sz[dv][j] = live_sz[dv][--nlive[dv]];
                } else {
                    int64_t sz = 1 + (int64_t)(rng_next(&r) % 100000);
                    total[dv] += sz;
                    live_addr[dv][nlive[dv]] = addr * 256;
                    live_sz[dv][nlive[dv]++] = sz;
                    mem_event(&b, u, dv, addr++ * 256, sz, total[dv]);
                    if (total[dv] > peak[dv]) peak[dv] = total[dv];
                }
            }
            t += len + (int64_t)(rng_next(&r) % 50);
        }
        sts_timeline *tl = open_json(&b, 1);
        sts_steps *s = tl ? find_steps(tl) : NULL;
        sts_memory *m = s ? find_memory(tl, s) : NULL;
        T_TRUE(m != NULL);
        if (!m) return;
        size_t nd, nl;
        const sts_memory_device *d = sts_memory_devices(m, &nd);
        const sts_memory_live *l = sts_memory_lives(m, &nl);
        for (size_t i = 0; i < nd; i++) {
            int dv = d[i].name[5] - '0';
            T_TRUE(dv == 0 || dv == 1);
            if (dv != 0 && dv != 1) continue;
            T_GE_I64(d[i].peak_bytes, d[i].start_bytes);
            T_GE_I64(d[i].peak_bytes, d[i].end_bytes);
            T_EQ_I64(d[i].peak_bytes, peak[dv]);
            T_EQ_I64(d[i].end_bytes, total[dv]);
            int64_t live = 0;
            for (uint32_t j = d[i].first_live; j < d[i].first_live + d[i].live_count; j++)
                live += l[j].bytes;
            T_EQ_I64(live + d[i].untracked_bytes, d[i].peak_bytes);
            T_EQ_U64(d[i].unmatched_frees, 0);
            uint64_t allocs = 0;
            for (size_t k = 0; k < (size_t)nsteps; k++) {
                size_t n;
                const sts_memory_step *e = sts_memory_step_entries(m, k, &n);
                T_GE_I64(e[i].peak_bytes, e[i].start_bytes);
                T_GE_I64(e[i].peak_bytes, e[i].end_bytes);
                T_TRUE(e[i].peak_bytes <= d[i].peak_bytes);
                allocs += e[i].allocations;
            }
            T_EQ_U64(allocs, d[i].allocations); /* every event lies inside a step */
        }
        sts_memory_free(m);
        sts_steps_free(s);
        sts_timeline_free(tl);
        free(b.p);
    }
}

static sts_memory *one_device_of(const char *events, sts_timeline **tl, int with_memory)
{
    tbuf b = { 0 };
    putf(&b,
         "{\"traceEvents\":[{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":1,\"tid\":1,\"args\":{\"name\":\"t\"}}%s",
         events);
    *tl = open_json(&b, with_memory);
    free(b.p);
    return *tl ? find_memory(*tl, NULL) : NULL;
}

#define MEM(ts, args) \
    ",{\"ph\":\"i\",\"s\":\"t\",\"name\":\"[memory]\",\"pid\":1,\"tid\":1,\"ts\":" #ts ",\"args\":{" args "}}"
#define CUDA "\"Device Type\":1,\"Device Id\":0,"

/* Bad input: counted, warned, and never a number it cannot know. */
TEST(bad_input)
{
    sts_timeline *tl;
    /* A size that is not a number; a negative total; a free of what the capture never saw. */
    sts_memory *m = one_device_of(MEM(1, CUDA "\"Addr\":16,\"Bytes\":\"lots\",\"Total Allocated\":10")
                                      MEM(2, CUDA "\"Addr\":32,\"Bytes\":100,\"Total Allocated\":-5")
                                          MEM(3, CUDA "\"Addr\":48,\"Bytes\":-50,\"Total Allocated\":150")
                                              MEM(4, CUDA "\"Addr\":32,\"Bytes\":-100,\"Total Allocated\":50"),
                                  &tl, 1);
    T_TRUE(m != NULL);
    size_t nd, nw;
    const sts_memory_device *d = sts_memory_devices(m, &nd);
    T_EQ_U64(nd, 1);
    T_EQ_U64(d[0].bad_events, 1);
    T_EQ_U64(d[0].bad_totals, 1);
    T_EQ_U64(d[0].unmatched_frees, 1);
    T_EQ_I64(d[0].start_bytes, -1); /* the first total is bad: the start is unknown */
    T_EQ_I64(d[0].end_bytes, 50);
    const char *const *w = sts_memory_warnings(m, &nw);
    T_EQ_U64(nw, 1);
    if (nw) {
        T_CONTAINS(w[0], "cuda:0");
        T_CONTAINS(w[0], "without a size");
        T_CONTAINS(w[0], "negative");
        T_CONTAINS(w[0], "never saw allocated");
    }
    sts_memory_free(m);
    sts_timeline_free(tl);
    /* No totals: peak and ends unknown, never 0. */
    m = one_device_of(MEM(1, CUDA "\"Addr\":16,\"Bytes\":100") MEM(2, CUDA "\"Addr\":16,\"Bytes\":-100"), &tl, 1);
    d = sts_memory_devices(m, &nd);
    T_EQ_U64(nd, 1);
    T_EQ_I64(d[0].peak_bytes, -1);
    T_EQ_I64(d[0].end_bytes, -1);
    T_EQ_U64(d[0].allocations, 1);
    w = sts_memory_warnings(m, &nw);
    T_EQ_U64(nw, 1);
    if (nw) T_CONTAINS(w[0], "no totals");
    sts_memory_free(m);
    sts_timeline_free(tl);
    /* Read without STS_ARGS_WITH_MEMORY: the sizes were not kept, which the warning says. */
    m = one_device_of(MEM(1, CUDA "\"Addr\":16,\"Bytes\":100,\"Total Allocated\":100"), &tl, 0);
    d = sts_memory_devices(m, &nd);
    T_EQ_U64(nd, 1);
    T_EQ_U64(d[0].bad_events, 1);
    T_EQ_I64(d[0].peak_bytes, -1);
    sts_memory_free(m);
    sts_timeline_free(tl);
    /* No memory events at all: no devices, not an error. */
    m = one_device_of(",{\"ph\":\"X\",\"name\":\"a\",\"pid\":1,\"tid\":1,\"ts\":1,\"dur\":2}", &tl, 1);
    T_TRUE(m != NULL);
    sts_memory_devices(m, &nd);
    T_EQ_U64(nd, 0);
    sts_memory_free(m);
    sts_timeline_free(tl);
}

/* A memory counter: bytes over time, allocations unknown (null in JSON). */
TEST(counter_series)
{
    sts_timeline *tl;
    sts_memory *m = one_device_of(",{\"ph\":\"C\",\"name\":\"GPU memory\",\"pid\":1,\"ts\":1,\"args\":{\"used\":100}}"
                                  ",{\"ph\":\"C\",\"name\":\"GPU memory\",\"pid\":1,\"ts\":2,\"args\":{\"used\":300}}"
                                  ",{\"ph\":\"C\",\"name\":\"GPU memory\",\"pid\":1,\"ts\":3,\"args\":{\"used\":200}}"
                                  ",{\"ph\":\"C\",\"name\":\"fps\",\"pid\":1,\"ts\":3,\"args\":{\"v\":60}}",
                                  &tl, 1);
    T_TRUE(m != NULL);
    size_t nd;
    const sts_memory_device *d = sts_memory_devices(m, &nd);
    T_EQ_U64(nd, 1);
    T_EQ_STR(d[0].source, "counter");
    T_EQ_I64(d[0].peak_bytes, 300);
    T_EQ_I64(d[0].peak_ts_ns, 2000);
    T_EQ_I64(d[0].end_bytes, 200);
    T_TRUE(!d[0].has_events);
    char *out = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&out, &len);
    sts_jsonw *w = sts_jsonw_create(f, STS_JSON_COMPACT);
    sts_memory_write_json(w, m);
    sts_jsonw_finish(w);
    sts_jsonw_free(w);
    fclose(f);
    T_CONTAINS(out, "\"allocations\":null");
    T_CONTAINS(out, "\"live_at_peak\":null");
    T_CONTAINS(out, "\"peak_bytes\":300");
    free(out);
    sts_memory_free(m);
    sts_timeline_free(tl);
}

/* The flag keeps the memory keys on top of any base mode, and nothing it does not name. */
TEST(args_flag)
{
    sts_args_mode m = (sts_args_mode)(STS_ARGS_ANALYSIS | STS_ARGS_WITH_MEMORY);
    T_TRUE(sts_args_mode_keeps(m, "Total Allocated", 15));
    T_TRUE(sts_args_mode_keeps(m, "step_num", 8));
    T_TRUE(!sts_args_mode_keeps(STS_ARGS_ANALYSIS, "Total Allocated", 15));
    T_TRUE(!sts_args_mode_keeps(m, "Seq", 3));
    T_TRUE(sts_args_mode_keeps((sts_args_mode)(STS_ARGS_NONE | STS_ARGS_WITH_MEMORY), "Bytes", 5));
    T_TRUE(!sts_args_mode_keeps((sts_args_mode)(STS_ARGS_NONE | STS_ARGS_WITH_MEMORY), "step_num", 8));
    T_TRUE(!sts_args_mode_keeps((sts_args_mode)(STS_ARGS_ANALYSIS | 0x800), "step_num", 8));
}

int main(void)
{
    RUN(args_flag);
    RUN(known_peaks);
    RUN(random_invariants);
    RUN(bad_input);
    RUN(counter_series);
    return t_done();
}
