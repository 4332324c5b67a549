/* The device view: launch correlation, categories by rules, and per window busy time
 * by category, overlap, idle causes, delays and queue length, on generated Kineto-shaped
 * traces whose answers are worked out by hand beside each test. Times in the traces are
 * microseconds; answers in nanoseconds. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "stepscope.h"
#include "stepscope/devview.h"
#include "json_gen.h"
#include "test.h"

#define US 1000

/* ---- building traces ------------------------------------------------------------------ */

/* A runtime call on the host thread (pid 100), with a correlation id (0: none). */
static void host(tbuf *b, double ts, double dur, const char *name, long corr)
{
    kt_host(b, "cuda_runtime", 100, ts, dur, name, corr);
}

/* A device op on GPU 0's stream (corr 0: no correlation arg). */
static void dev(tbuf *b, int stream_id, double ts, double dur, const char *name, const char *cat, long corr)
{
    kt_dev(b, cat, stream_id, ts, dur, name, corr);
}

static void step(tbuf *b, int n, double ts, double dur)
{
    kt_step(b, "user_annotation", n, ts, dur);
}

static sts_timeline *open_tb(tbuf *b, sts_flows_mode flows)
{
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    if (kt_open(b, "devview-test", STS_ARGS_ANALYSIS, flows, &tl, &err) != STS_OK)
        fprintf(stderr, "open: %s\n", err.message);
    return tl;
}

/* The device view without steps (one window per device: its span), or with them. */
static sts_devview *view(const sts_timeline *tl, const sts_devview_rules *rules, const sts_steps *steps)
{
    sts_devview_options o = STS_DEVVIEW_OPTIONS_INIT;
    o.rules = rules;
    o.steps = steps;
    sts_devview *v = NULL;
    sts_error err = STS_ERROR_INIT;
    if (sts_devview_compute(tl, &o, &v, &err) != STS_OK) fprintf(stderr, "devview: %s\n", err.message);
    return v;
}

static int has_warning(const sts_devview *v, const char *needle)
{
    size_t n;
    const char *const *w = sts_devview_warnings(v, &n);
    for (size_t i = 0; i < n; i++)
        if (strstr(w[i], needle)) return 1;
    return 0;
}

/* The invariants every window keeps. */
static void check_window(const sts_devview_window *x)
{
    int64_t excl = 0;
    for (int c = 0; c < STS_DV_CATEGORIES; c++) {
        excl += x->exclusive_ns[c];
        T_TRUE(x->union_ns[c] <= x->busy_ns);
        T_TRUE(x->exclusive_ns[c] <= x->union_ns[c]);
    }
    T_EQ_I64(excl, x->busy_ns);
    T_EQ_I64(x->busy_ns + x->idle_ns, x->window_ns);
    T_EQ_I64(x->host_wait_ns + x->kernel_wait_ns + x->other_idle_ns, x->idle_ns);
    T_EQ_I64(x->overlap_ns + x->exposed_ns, x->union_ns[STS_DV_COMMUNICATION]);
    T_EQ_I64(x->exposed_ns, x->exclusive_ns[STS_DV_COMMUNICATION]);
}

/* ---- busy time and categories ------------------------------------------------------------- */

TEST(overlapping_streams_are_united_not_summed)
{
    /* Stream 7: compute A [0,100), compute D [200,300); stream 8: compute B [50,150),
     * NCCL C [150,250). Compute = [0,150) u [200,300) = 250; communication [150,250) =
     * 100, of which [200,250) overlaps compute: 50 exposed. The durations sum to 400 over
     * a 300 us span: HTA's sum (pytorch#60783's 112.5%) would exceed the window. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    kt_stream(&b, 8);
    host(&b, -40, 2, "cudaLaunchKernel", 1);
    host(&b, -30, 2, "cudaLaunchKernel", 2);
    host(&b, -20, 2, "cudaLaunchKernel", 3);
    host(&b, -10, 2, "cudaLaunchKernel", 4);
    dev(&b, 7, 0, 100, "gemmA", "kernel", 1);
    dev(&b, 8, 50, 100, "gemmB", "kernel", 2);
    dev(&b, 8, 150, 100, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", 3);
    dev(&b, 7, 200, 100, "gemmD", "kernel", 4);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    T_TRUE(tl != NULL);
    if (!tl) return;
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    size_t nd, nw;
    const sts_devview_device *d = sts_devview_devices(v, &nd);
    const sts_devview_window *w = sts_devview_windows(v, &nw);
    T_EQ_U64(nd, 1);
    T_EQ_U64(nw, 1);
    T_EQ_U64(d[0].lanes, 2);
    T_EQ_U64(d[0].ops, 4);
    char label[64];
    T_EQ_STR(sts_devview_device_label(tl, v, 0, label, sizeof label), "GPU 0");
    T_EQ_I64(w[0].window_ns, 300 * US);
    T_EQ_I64(w[0].busy_ns, 300 * US);
    T_EQ_I64(w[0].union_ns[STS_DV_COMPUTE], 250 * US);
    T_EQ_I64(w[0].union_ns[STS_DV_COMMUNICATION], 100 * US);
    T_EQ_I64(w[0].overlap_ns, 50 * US);
    T_EQ_I64(w[0].exposed_ns, 50 * US);
    T_EQ_I64(w[0].exclusive_ns[STS_DV_COMPUTE], 250 * US);
    T_EQ_I64(w[0].exclusive_ns[STS_DV_COMMUNICATION], 50 * US);
    T_EQ_I64(w[0].idle_ns, 0);
    int64_t sum = 0;
    size_t nl;
    const sts_devview_launch *L = sts_devview_launches(v, &nl);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    for (size_t i = 0; i < nl; i++)
        sum += s[L[i].device_slice].dur;
    T_EQ_I64(sum, 400 * US);
    T_TRUE(sum > w[0].window_ns);
    check_window(&w[0]);
    sts_devview_free(v);
    sts_timeline_free(tl);
}

TEST(memcpy_directions_memset_and_ignored_annotations)
{
    tbuf b = { 0 };
    kt_stream(&b, 7);
    dev(&b, 7, 0, 10, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy", 0);
    dev(&b, 7, 10, 20, "Memcpy DtoH (Device -> Pinned)", "gpu_memcpy", 0);
    dev(&b, 7, 30, 5, "Memcpy DtoD (Device -> Device)", "gpu_memcpy", 0);
    dev(&b, 7, 35, 5, "MemcpyH2D", "something", 0);
    dev(&b, 7, 40, 7, "Memset (Device)", "gpu_memset", 0);
    dev(&b, 7, 0, 60, "ProfilerStep#3", "gpu_user_annotation", 0);
    dev(&b, 7, 50, 1, "Stream Sync", "cuda_sync", 0);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    const sts_devview_window *w = sts_devview_windows(v, NULL);
    /* The annotation and the sync are not device work: the span is [0, 47). */
    T_EQ_I64(w[0].window_ns, 47 * US);
    T_EQ_I64(w[0].memcpy_ns[STS_DV_HTOD], 15 * US);
    T_EQ_I64(w[0].memcpy_ns[STS_DV_DTOH], 20 * US);
    T_EQ_I64(w[0].memcpy_ns[STS_DV_DTOD], 5 * US);
    T_EQ_I64(w[0].memcpy_ns[STS_DV_DIR_OTHER], 0);
    T_EQ_I64(w[0].union_ns[STS_DV_MEMCPY], 40 * US);
    T_EQ_I64(w[0].union_ns[STS_DV_MEMSET], 7 * US);
    T_EQ_I64(w[0].union_ns[STS_DV_COMPUTE], 0);
    T_EQ_U64(sts_devview_get_links(v)->ignored, 2);
    T_EQ_U64(sts_devview_get_links(v)->no_correlation, 5);
    /* No op has a launch: the idle split and queue are unknown, not zero. */
    T_TRUE(!(w[0].known & STS_DEVVIEW_KNOWN_IDLE_SPLIT));
    T_TRUE(!(w[0].known & STS_DEVVIEW_KNOWN_QUEUE));
    T_TRUE(!(w[0].known & STS_DEVVIEW_KNOWN_DELAY));
    check_window(&w[0]);
    sts_devview_free(v);
    sts_timeline_free(tl);
}

/* ---- idle causes, delays, the queue ------------------------------------------------------ */

TEST(late_host_is_host_wait_then_kernel_wait)
{
    /* K1 launched at 0, runs [10,20); the host launches K2 only at 100, and it runs
     * [110,120). Idle [20,120-10): [20,100) nothing was launched (host_wait 80),
     * [100,110) launched, not started (kernel_wait 10). HTA counts all 90 as host wait. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    host(&b, 0, 2, "cudaLaunchKernel", 11);
    host(&b, 100, 5, "cudaLaunchKernel", 12);
    dev(&b, 7, 10, 10, "k1", "kernel", 11);
    dev(&b, 7, 110, 10, "k2", "kernel", 12);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    const sts_devview_window *w = sts_devview_windows(v, NULL);
    T_EQ_I64(w[0].window_ns, 110 * US);
    T_EQ_I64(w[0].idle_ns, 90 * US);
    T_EQ_I64(w[0].host_wait_ns, 80 * US);
    T_EQ_I64(w[0].kernel_wait_ns, 10 * US);
    T_EQ_I64(w[0].other_idle_ns, 0);
    T_TRUE(w[0].known & STS_DEVVIEW_KNOWN_DELAY);
    T_EQ_I64(w[0].delay_median_ns, 10 * US);
    T_EQ_I64(w[0].delay_p90_ns, 10 * US);
    T_EQ_I64(w[0].delay_max_ns, 10 * US);
    T_EQ_I64(w[0].queue_max, 1);
    /* Pending [100,110) inside the window; [0,10) is before it. */
    T_NEAR(w[0].queue_mean, 10.0 / 110.0, 1e-12, 0);
    T_EQ_U64(w[0].matched, 2);
    size_t nl;
    const sts_devview_launch *L = sts_devview_launches(v, &nl);
    T_EQ_U64(nl, 2);
    const sts_slice *s = sts_timeline_slices(tl, NULL);
    T_EQ_STR(sts_timeline_string(tl, s[L[1].host_slice].name), "cudaLaunchKernel");
    T_EQ_I64(s[L[1].host_slice].ts, s[L[0].host_slice].ts + 100 * US);
    T_EQ_I64(L[1].delay_ns, 10 * US);
    check_window(&w[0]);
    sts_devview_free(v);
    sts_timeline_free(tl);
}

TEST(kernel_queue_length_and_delays)
{
    /* Four launches at 0,1,2,3 us; the stream runs them back to back at 5, 15, 25, 35.
     * Queue (launched, not started) over [5,45): 3 for 10 us, 2, 1, then 0: mean
     * (30+20+10)/40 = 1.5, max 3 (before the window it reached 4, outside it). Delays 5,
     * 14, 23, 32 us: median floor((14+23)/2) = 18.5 -> 18500 ns, p90 the 4th (ceil(3.6)),
     * max 32. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    for (int i = 0; i < 4; i++)
        host(&b, i, 0.5, "cudaLaunchKernel", 20 + i);
    for (int i = 0; i < 4; i++)
        dev(&b, 7, 5 + 10 * i, 10, "k", "kernel", 20 + i);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    const sts_devview_window *w = sts_devview_windows(v, NULL);
    T_EQ_I64(w[0].window_ns, 40 * US);
    T_EQ_I64(w[0].idle_ns, 0);
    T_EQ_I64(w[0].queue_max, 3);
    T_NEAR(w[0].queue_mean, 1.5, 1e-12, 0);
    T_EQ_I64(w[0].delay_median_ns, 18500);
    T_EQ_I64(w[0].delay_p90_ns, 32 * US);
    T_EQ_I64(w[0].delay_max_ns, 32 * US);
    check_window(&w[0]);
    sts_devview_free(v);
    sts_timeline_free(tl);
}

TEST(unmatched_launches_are_counted_and_unknown)
{
    /* An op with no correlation id, one whose id no host slice holds, a launch call that
     * launched nothing, and a sync whose id launches nothing (not a launch call). */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    host(&b, 0, 1, "cudaLaunchKernel", 5);
    host(&b, 2, 1, "cudaDeviceSynchronize", 6);
    dev(&b, 7, 10, 10, "no_id", "kernel", 0);
    dev(&b, 7, 30, 10, "dangling", "kernel", 999);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    const sts_devview_links *k = sts_devview_get_links(v);
    T_EQ_U64(k->ops, 2);
    T_EQ_U64(k->matched, 0);
    T_EQ_U64(k->no_correlation, 1);
    T_EQ_U64(k->dangling, 1);
    T_EQ_I64(k->first_dangling_id, 999);
    T_EQ_U64(k->launch_calls, 1);
    T_EQ_U64(k->orphan_calls, 1);
    T_TRUE(has_warning(v, "1 of 2 device ops carry no correlation id"));
    T_TRUE(has_warning(v, "(e.g. 999)"));
    T_TRUE(has_warning(v, "launched no device op"));
    const sts_devview_window *w = sts_devview_windows(v, NULL);
    T_EQ_U64(w[0].matched, 0);
    T_EQ_U64(w[0].unmatched, 2);
    T_TRUE(!(w[0].known & (STS_DEVVIEW_KNOWN_IDLE_SPLIT | STS_DEVVIEW_KNOWN_QUEUE | STS_DEVVIEW_KNOWN_DELAY)));
    T_EQ_I64(w[0].other_idle_ns, 10 * US);
    /* The JSON says null for what is unknown, never 0. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sts_jsonw *j = sts_jsonw_create(f, STS_JSON_COMPACT);
    sts_devview_write_windows_json(j, tl, v, w, 1);
    T_EQ_I64(sts_jsonw_finish(j), STS_OK);
    sts_jsonw_free(j);
    fclose(f);
    T_CONTAINS(text, "\"host_wait_ns\":null,\"kernel_wait_ns\":null,\"other_ns\":null");
    T_CONTAINS(text, "\"delay_ns\":{\"median\":null,\"p90\":null,\"max\":null}");
    T_CONTAINS(text, "\"queue\":{\"mean\":null,\"max\":null}");
    T_CONTAINS(text, "\"total_ns\":10000");
    free(text);
    check_window(&w[0]);
    sts_devview_free(v);
    sts_timeline_free(tl);
}

TEST(idle_before_an_unlinked_op_is_other)
{
    /* A linked op [0,10) and an unlinked one [20,30): the idle [10,20) waits for an op
     * whose launch the trace lacks, so its cause is other. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    host(&b, -5, 1, "cudaLaunchKernel", 1);
    dev(&b, 7, 0, 10, "a", "kernel", 1);
    dev(&b, 7, 20, 10, "b", "kernel", 0);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    const sts_devview_window *w = sts_devview_windows(v, NULL);
    T_TRUE(w[0].known & STS_DEVVIEW_KNOWN_IDLE_SPLIT);
    T_EQ_I64(w[0].other_idle_ns, 10 * US);
    T_EQ_I64(w[0].host_wait_ns, 0);
    T_EQ_I64(w[0].kernel_wait_ns, 0);
    check_window(&w[0]);
    sts_devview_free(v);
    sts_timeline_free(tl);
}

TEST(step_windows_cut_device_work)
{
    /* Steps [0,50) and [50,100) on the host; a kernel [40,60) launched at 35 counts 10 us
     * in each (its launch in the first: delay 5); a kernel [120,130) is in no step. */
    tbuf b = { 0 };
    kt_stream(&b, 7);
    step(&b, 1, 0, 50);
    step(&b, 2, 50, 50);
    host(&b, 35, 1, "cudaLaunchKernel", 1);
    host(&b, 60, 1, "cudaLaunchKernel", 2);
    dev(&b, 7, 40, 20, "k", "kernel", 1);
    dev(&b, 7, 120, 10, "late", "kernel", 2);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_steps *s = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_steps_find(tl, NULL, &s, &err), STS_OK);
    sts_devview *v = view(tl, NULL, s);
    T_TRUE(v != NULL);
    if (!v) return;
    T_TRUE(sts_devview_has_steps(v));
    size_t n;
    const sts_devview_window *w1 = sts_devview_step_windows(v, 0, &n);
    T_EQ_U64(n, 1);
    const sts_devview_window *w2 = sts_devview_step_windows(v, 1, &n);
    T_TRUE(sts_devview_step_windows(v, 2, &n) == NULL);
    T_EQ_I64(w1->window_ns, 50 * US);
    T_EQ_I64(w1->busy_ns, 10 * US);
    T_EQ_I64(w2->busy_ns, 10 * US);
    /* Step 1: idle [0,35) host_wait, [35,40) kernel_wait. Step 2: after 60 the next op
     * (at 120) is launched at 60, so [60,100) is kernel_wait. */
    T_EQ_I64(w1->host_wait_ns, 35 * US);
    T_EQ_I64(w1->kernel_wait_ns, 5 * US);
    T_EQ_I64(w2->kernel_wait_ns, 40 * US);
    T_EQ_I64(w2->host_wait_ns, 0);
    T_EQ_U64(w1->matched, 1);
    T_EQ_U64(w2->matched, 0);
    T_TRUE(!(w2->known & STS_DEVVIEW_KNOWN_DELAY));
    T_EQ_I64(w1->delay_max_ns, 5 * US);
    check_window(w1);
    check_window(w2);
    /* The steps document gains each step's devices and the summary. */
    char *text = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&text, &len);
    sts_jsonw *j = sts_jsonw_create(f, STS_JSON_COMPACT);
    T_EQ_I64(sts_steps_write_json_device(j, tl, s, 0, v, &err), STS_OK);
    T_EQ_I64(sts_jsonw_finish(j), STS_OK);
    sts_jsonw_free(j);
    fclose(f);
    T_CONTAINS(text, "\"devices\":[{\"device\":\"GPU 0\"");
    T_CONTAINS(text, "\"device\":{\"devices\":");
    free(text);
    /* A view made without the steps does not pass for one with them. */
    sts_devview *span = view(tl, NULL, NULL);
    f = open_memstream(&text, &len);
    j = sts_jsonw_create(f, STS_JSON_COMPACT);
    T_EQ_I64(sts_steps_write_json_device(j, tl, s, 0, span, &err), STS_ERR_INVALID_ARG);
    sts_jsonw_free(j);
    fclose(f);
    free(text);
    sts_devview_free(span);
    sts_devview_free(v);
    sts_steps_free(s);
    sts_timeline_free(tl);
}

TEST(graph_launch_and_flows)
{
    /* One launch (a graph) starting two ops; an op with no correlation arg linked by an
     * ac2g flow when flows are kept, and named in a warning when they are only counted. */
    for (int keep = 0; keep < 2; keep++) {
        tbuf b = { 0 };
        kt_stream(&b, 7);
        host(&b, 0, 3, "cudaGraphLaunch", 7);
        dev(&b, 7, 5, 5, "g1", "kernel", 7);
        dev(&b, 7, 10, 5, "g2", "kernel", 7);
        host(&b, 20, 2, "cudaLaunchKernel", 0);
        dev(&b, 7, 30, 5, "flowed", "kernel", 0);
        kt_comma(&b);
        putf(&b, "{\"ph\":\"s\",\"id\":42,\"pid\":100,\"tid\":100,\"ts\":20,\"cat\":\"ac2g\",\"name\":\"ac2g\"}");
        kt_comma(&b);
        putf(&b,
             "{\"ph\":\"f\",\"id\":42,\"pid\":0,\"tid\":7,\"ts\":30,\"cat\":\"ac2g\",\"name\":\"ac2g\",\"bp\":\"e\"}");
        sts_timeline *tl = open_tb(&b, keep ? STS_FLOWS_KEEP : STS_FLOWS_COUNT);
        sts_devview *v = view(tl, NULL, NULL);
        T_TRUE(v != NULL);
        if (!v) return;
        const sts_devview_links *k = sts_devview_get_links(v);
        T_EQ_U64(k->ops, 3);
        T_EQ_U64(k->launches, 1);
        T_EQ_U64(k->matched, keep ? 3 : 2);
        T_EQ_U64(k->by_flow, keep ? 1 : 0);
        T_EQ_U64(k->no_correlation, keep ? 0 : 1);
        if (!keep) T_TRUE(has_warning(v, "flow events were counted, not kept"));
        size_t nl;
        const sts_devview_launch *L = sts_devview_launches(v, &nl);
        T_EQ_U64(nl, 3);
        T_EQ_I64(L[0].host_slice, L[1].host_slice);
        if (keep) {
            T_TRUE(L[2].by_flow);
            T_EQ_I64(L[2].delay_ns, 10 * US);
        }
        sts_devview_free(v);
        sts_timeline_free(tl);
    }
}

TEST(xspace_and_recorder_correlation_ids)
{
    /* correlation_id on both sides (XSpace stats, the recorder's args), the device a
     * "/device:" process. */
    const char *text =
        "{\"traceEvents\":["
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":3,\"args\":{\"name\":\"/device:GPU:0\"}},"
        "{\"ph\":\"M\",\"name\":\"process_name\",\"pid\":9,\"args\":{\"name\":\"/host:CPU\"}},"
        "{\"ph\":\"X\",\"name\":\"hipModuleLaunchKernel\",\"pid\":9,\"tid\":1,\"ts\":0,\"dur\":4,"
        "\"args\":{\"correlation_id\":77}},"
        "{\"ph\":\"X\",\"name\":\"fusion.1\",\"pid\":3,\"tid\":2,\"ts\":10,\"dur\":5,\"args\":{\"correlation_id\":77}},"
        "{\"ph\":\"X\",\"name\":\"all-reduce.3\",\"pid\":3,\"tid\":2,\"ts\":15,\"dur\":5}]}";
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = STS_ARGS_ANALYSIS;
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    T_EQ_I64(sts_timeline_open_mem(text, strlen(text), "x", &o, &tl, &err), STS_OK);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    char label[64];
    T_EQ_STR(sts_devview_device_label(tl, v, 0, label, sizeof label), "/device:GPU:0");
    T_EQ_U64(sts_devview_get_links(v)->matched, 1);
    const sts_devview_window *w = sts_devview_windows(v, NULL);
    T_EQ_I64(w[0].union_ns[STS_DV_COMMUNICATION], 5 * US);
    T_EQ_I64(w[0].delay_max_ns, 10 * US);
    sts_devview_free(v);
    sts_timeline_free(tl);
}

/* ---- rules ---------------------------------------------------------------------------- */

static sts_devview_rules *rules_of(const char *text, sts_error *err)
{
    sts_devview_rules *r = NULL;
    sts_devview_rules_parse(text, strlen(text), "rules.txt", &r, err);
    return r;
}

TEST(collective_renamed_and_a_table_that_misses_it)
{
    tbuf b = { 0 };
    kt_stream(&b, 7);
    dev(&b, 7, 0, 10, "ncclDevKernel_AllReduce_Sum_f32_RING_LL", "kernel", 0);
    dev(&b, 7, 10, 10, "ncclKernel_SendRecvGeneric", "kernel", 0);
    dev(&b, 7, 20, 10, "gemm", "kernel", 0);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    const sts_devview_rules *r = sts_devview_rules_used(v);
    size_t nh;
    const uint64_t *hits = sts_devview_rule_hits(v, &nh);
    T_EQ_U64(nh, sts_devview_rules_count(r) + 1);
    uint64_t by_name = 0, by_regex = 0;
    for (size_t i = 0; i < sts_devview_rules_count(r); i++) {
        if (strstr(sts_devview_rule_text(r, i), "name collective")) by_name = hits[i];
        if (strstr(sts_devview_rule_text(r, i), "name matches")) by_regex = hits[i];
    }
    T_EQ_U64(by_name, 1);
    T_EQ_U64(by_regex, 1);
    T_EQ_I64(sts_devview_windows(v, NULL)[0].union_ns[STS_DV_COMMUNICATION], 20 * US);
    T_TRUE(!has_warning(v, "matched communication"));
    sts_devview_free(v);
    /* A table that knows no communication: the renamed kernels become compute, and the
     * view says so. */
    sts_error err = STS_ERROR_INIT;
    sts_devview_rules *only = rules_of("compute any\n", &err);
    T_TRUE(only != NULL);
    v = view(tl, only, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    T_TRUE(has_warning(v, "0 device ops matched communication; 2 names contain nccl"));
    T_EQ_I64(sts_devview_windows(v, NULL)[0].union_ns[STS_DV_COMMUNICATION], 0);
    sts_devview_free(v);
    sts_devview_rules_free(only);
    sts_timeline_free(tl);
}

TEST(rules_parse_fields_tests_quotes_and_comments)
{
    sts_error err = STS_ERROR_INIT;
    sts_devview_rules *r = rules_of("# a comment\n"
                                    "\n"
                                    "ignore cat is gpu_user_annotation   # trailing\n"
                                    "communication name matches \"^nccl.* Kernel\" and lane prefix \"stream \"\n"
                                    "memcpy.dtoh arg:kind is \"Copy \\\"D2H\\\"\"\n"
                                    "memset process contains GPU\n"
                                    "other name collective\n"
                                    "compute any\n",
                                    &err);
    T_TRUE(r != NULL);
    if (!r) {
        fprintf(stderr, "%s\n", err.message);
        return;
    }
    T_EQ_U64(sts_devview_rules_count(r), 6);
    T_EQ_U64(sts_devview_rule_line(r, 0), 3);
    T_EQ_STR(sts_devview_rule_text(r, 0), "ignore cat is gpu_user_annotation");
    T_EQ_I64(sts_devview_rule_category(r, 0), STS_DV_CATEGORIES);
    T_EQ_I64(sts_devview_rule_category(r, 2), STS_DV_MEMCPY);
    T_EQ_I64(sts_devview_rule_category(r, 4), STS_DV_OTHER);
    size_t nk;
    const char *const *keys = sts_devview_rules_arg_keys(r, &nk);
    T_EQ_U64(nk, 1);
    T_EQ_STR(keys[0], "kind");
    sts_devview_rules_free(r);
    sts_devview_rules_free(NULL);
    /* The built-in table parses. */
    const char *bt = sts_devview_rules_builtin_text();
    T_EQ_I64(sts_devview_rules_parse(bt, strlen(bt), "builtin", &r, &err), STS_OK);
    sts_devview_rules_free(r);
}

TEST(rules_that_do_not_parse_name_the_file_and_line)
{
    static const struct {
        const char *text, *want;
    } bad[] = {
        { "compute any\n\nbogus name is x\n", "rules.txt:3: expected a category (compute, communication" },
        { "compute name\n",
          "rules.txt:1: expected a test (is, prefix, contains, matches, collective) after the field" },
        { "compute name is\n", "rules.txt:1: expected a value after the test" },
        { "compute name is \"open\n", "rules.txt:1: a quoted value does not end" },
        { "compute name matches (\n", "rules.txt:1: '(' is not an extended regular expression" },
        { "compute name is a name is b\n", "rules.txt:1: expected 'and' between conditions, got 'name'" },
        { "compute\n", "rules.txt:1: expected a condition after the category" },
        { "compute size is 3\n",
          "rules.txt:1: expected a field (name, cat, lane, process, arg:KEY) or any, got 'size'" },
        { "compute name equals x\n",
          "rules.txt:1: expected a test (is, prefix, contains, matches, collective), got 'equals'" },
        { "# only a comment\n", "rules.txt: no rules" },
        { "compute and\n", "rules.txt:1: expected a field" },
        { "compute any and\n", "rules.txt:1: expected a condition after 'and'" },
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        sts_error err = STS_ERROR_INIT;
        sts_devview_rules *r = rules_of(bad[i].text, &err);
        T_TRUE(r == NULL);
        T_EQ_I64(err.code, STS_ERR_PARSE);
        T_CONTAINS(err.message, bad[i].want);
        sts_devview_rules_free(r);
    }
    sts_error err = STS_ERROR_INIT;
    sts_devview_rules *r = NULL;
    T_EQ_I64(sts_devview_rules_parse("compute any\0x", 13, "nul.txt", &r, &err), STS_ERR_PARSE);
    T_CONTAINS(err.message, "nul.txt: a NUL byte at offset 11");
    T_EQ_I64(sts_devview_rules_load("/nonexistent/devview-rules.txt", &r, &err), STS_ERR_IO);
    T_CONTAINS(err.message, "/nonexistent/devview-rules.txt: cannot read the device rules");
    /* A file: the error names it. */
    char path[128];
    snprintf(path, sizeof path, "/tmp/sts_devview_rules_%d.txt", (int)getpid());
    FILE *f = fopen(path, "w");
    fputs("compute any\nmemcpy name prefix\n", f);
    fclose(f);
    T_EQ_I64(sts_devview_rules_load(path, &r, &err), STS_ERR_PARSE);
    char want[200];
    snprintf(want, sizeof want, "%s:2: expected a value after the test", path);
    T_CONTAINS(err.message, want);
    unlink(path);
}

TEST(rules_decide_by_arg_lane_and_process)
{
    tbuf b = { 0 };
    kt_stream(&b, 7);
    kt_stream(&b, 8);
    dev(&b, 7, 0, 10, "x", "kernel", 3);
    dev(&b, 8, 0, 10, "y", "kernel", 4);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_error err = STS_ERROR_INIT;
    /* arg:correlation is an int: tested as its decimal text. */
    sts_devview_rules *r =
        rules_of("memset arg:correlation is 3\ncommunication lane is \"stream 8 \"\nother any\n", &err);
    T_TRUE(r != NULL);
    sts_devview *v = view(tl, r, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    const sts_devview_window *w = sts_devview_windows(v, NULL);
    T_EQ_I64(w[0].union_ns[STS_DV_MEMSET], 10 * US);
    T_EQ_I64(w[0].union_ns[STS_DV_COMMUNICATION], 10 * US);
    T_EQ_I64(w[0].union_ns[STS_DV_OTHER], 0);
    sts_devview_free(v);
    sts_devview_rules_free(r);
    /* No rule matches: other, counted in the last hits entry. */
    r = rules_of("compute name is nothing-like-it\n", &err);
    v = view(tl, r, NULL);
    size_t nh;
    const uint64_t *hits = sts_devview_rule_hits(v, &nh);
    T_EQ_U64(hits[nh - 1], 2);
    T_EQ_I64(sts_devview_windows(v, NULL)[0].union_ns[STS_DV_OTHER], 10 * US);
    sts_devview_free(v);
    sts_devview_rules_free(r);
    sts_timeline_free(tl);
}

TEST(no_device_lanes_no_devices)
{
    tbuf b = { 0 };
    host(&b, 0, 5, "cudaLaunchKernel", 1);
    sts_timeline *tl = open_tb(&b, STS_FLOWS_COUNT);
    sts_devview *v = view(tl, NULL, NULL);
    T_TRUE(v != NULL);
    if (!v) return;
    size_t n;
    sts_devview_devices(v, &n);
    T_EQ_U64(n, 0);
    sts_devview_windows(v, &n);
    T_EQ_U64(n, 0);
    T_EQ_U64(sts_devview_get_links(v)->orphan_calls, 1);
    sts_devview_free(v);
    sts_devview_free(NULL);
    sts_timeline_free(tl);
}

int main(void)
{
    RUN(overlapping_streams_are_united_not_summed);
    RUN(memcpy_directions_memset_and_ignored_annotations);
    RUN(late_host_is_host_wait_then_kernel_wait);
    RUN(kernel_queue_length_and_delays);
    RUN(unmatched_launches_are_counted_and_unknown);
    RUN(idle_before_an_unlinked_op_is_other);
    RUN(step_windows_cut_device_work);
    RUN(graph_launch_and_flows);
    RUN(xspace_and_recorder_correlation_ids);
    RUN(collective_renamed_and_a_table_that_misses_it);
    RUN(rules_parse_fields_tests_quotes_and_comments);
    RUN(rules_that_do_not_parse_name_the_file_and_line);
    RUN(rules_decide_by_arg_lane_and_process);
    RUN(no_device_lanes_no_devices);
    return t_done();
}
