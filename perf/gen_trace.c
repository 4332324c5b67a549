/* gen_trace: writes a large synthetic PyTorch-profiler (Kineto) Chrome trace for the
 * analyzer benchmarks.
 *
 *   gen_trace [--seed N] [--gzip] [--compact] [--level N] [--steps N] [--facts FILE] SIZE OUT
 *
 * SIZE is the uncompressed JSON size to reach (bytes, or with a K/M/G suffix, powers of
 * 1000); whole training steps are written until it is reached, so the file ends a
 * little past it. --steps N writes exactly N steps instead (SIZE is then ignored and
 * may be 0). --gzip writes OUT gzip-compressed (the JSON inside is byte-identical to
 * the plain output for the same seed and size). --compact drops the whitespace between
 * tokens and writes one event per line, as many other producers do (about half the
 * bytes per event). --facts FILE writes what the generator
 * knows exactly about the trace it made (event counts, per-name count/total/self in ns
 * for the names that recur), so a benchmark can check that a reader found the same.
 *
 * The shape follows real Kineto output: a top-level object with schemaVersion,
 * deviceProperties and distributedInfo before "traceEvents" and more keys after it;
 * one event per pretty-printed block; timestamps in microseconds with three decimals
 * on a ~1.7e15 us clock; per step a ProfilerStep#N annotation on the main thread with
 * a data-loader region, a forward pass of nested aten:: ops whose leaves call
 * cudaLaunchKernel, a backward pass on the autograd thread, an optimizer step and a
 * loss read that waits for the GPU; kernels and memcpys on two GPU stream lanes with
 * ac2g flows back to their launches, fwdbwd flows, [memory] instants, and args with
 * External id, correlation, Input Dims and friends. Events of a step are written lane
 * by lane (as Kineto does), so the file is not globally sorted by time.
 *
 * Deterministic: the same seed and size give the same bytes. Uses only libc and zlib. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

/* ---- output: one buffer, flushed to stdio or zlib ---- */

typedef struct out {
    FILE *f;
    gzFile gz;
    char buf[1 << 20];
    size_t len;
    uint64_t total; /* uncompressed bytes written */
    int failed;
    int compact;   /* drop whitespace outside strings (put_n); events one per line */
    int in_string; /* compact: inside a string (our strings hold no escapes) */
} out;

static void out_flush(out *o)
{
    if (o->len == 0 || o->failed) return;
    if (o->gz) {
        if (gzwrite(o->gz, o->buf, (unsigned)o->len) != (int)o->len) o->failed = 1;
    } else if (fwrite(o->buf, 1, o->len, o->f) != o->len) {
        o->failed = 1;
    }
    o->len = 0;
}

static void put_raw(out *o, const char *s, size_t n)
{
    if (o->len + n > sizeof o->buf) out_flush(o);
    while (n > sizeof o->buf) { /* not reached with our strings: written in buffers' worth */
        memcpy(o->buf, s, sizeof o->buf);
        o->len = sizeof o->buf;
        out_flush(o);
        s += sizeof o->buf;
        n -= sizeof o->buf;
    }
    memcpy(o->buf + o->len, s, n);
    o->len += n;
    o->total += n;
}

/* Text as written, or in compact mode without the whitespace between tokens. */
static void put_n(out *o, const char *s, size_t n)
{
    if (!o->compact) {
        put_raw(o, s, n);
        return;
    }
    char tmp[512];
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        char c = s[i];
        if (c == '"') o->in_string = !o->in_string;
        if (!o->in_string && (c == ' ' || c == '\n')) continue;
        tmp[k++] = c;
        if (k == sizeof tmp) {
            put_raw(o, tmp, k);
            k = 0;
        }
    }
    if (k) put_raw(o, tmp, k);
}

static void put(out *o, const char *s)
{
    put_n(o, s, strlen(s));
}

static void put_u64(out *o, uint64_t v)
{
    char tmp[24];
    int i = (int)sizeof tmp;
    do {
        tmp[--i] = (char)('0' + v % 10);
        v /= 10;
    } while (v);
    put_n(o, tmp + i, sizeof tmp - (size_t)i);
}

static void put_i64(out *o, int64_t v)
{
    if (v < 0) {
        put_n(o, "-", 1);
        put_u64(o, (uint64_t)0 - (uint64_t)v);
    } else {
        put_u64(o, (uint64_t)v);
    }
}

/* Nanoseconds as microseconds with three decimals, as Kineto prints them. */
static void put_us(out *o, int64_t ns)
{
    char frac[4];
    int64_t r = ns % 1000;
    put_i64(o, ns / 1000);
    frac[0] = '.';
    frac[1] = (char)('0' + r / 100);
    frac[2] = (char)('0' + r / 10 % 10);
    frac[3] = (char)('0' + r % 10);
    put_n(o, frac, 4);
}

static void putf(out *o, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void putf(out *o, const char *fmt, ...)
{
    char tmp[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(tmp, sizeof tmp, fmt, ap);
    va_end(ap);
    if (n > 0) put_n(o, tmp, (size_t)n < sizeof tmp ? (size_t)n : sizeof tmp - 1);
}

/* ---- deterministic randomness (splitmix64) ---- */

static uint64_t rng_state;

static uint64_t rnd(void)
{
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [lo, hi] nanoseconds. */
static int64_t between(int64_t lo, int64_t hi)
{
    return lo + (int64_t)(rnd() % (uint64_t)(hi - lo + 1));
}

/* ---- names, categories, lanes ---- */

#define NAMES(X)                                                                                    \
    X(N_STEP, "ProfilerStep#")                                                                      \
    X(N_LOADER, "enumerate(DataLoader)#_SingleProcessDataLoaderIter.__next__")                      \
    X(N_EMPTY, "aten::empty")                                                                       \
    X(N_STACK, "aten::stack")                                                                       \
    X(N_CAT, "aten::cat")                                                                           \
    X(N_TO, "aten::to")                                                                             \
    X(N_TO_COPY, "aten::_to_copy")                                                                  \
    X(N_COPY, "aten::copy_")                                                                        \
    X(N_MEMCPY_ASYNC, "cudaMemcpyAsync")                                                            \
    X(N_FORWARD, "## forward ##")                                                                   \
    X(N_LINEAR, "aten::linear")                                                                     \
    X(N_T, "aten::t")                                                                               \
    X(N_TRANSPOSE, "aten::transpose")                                                               \
    X(N_AS_STRIDED, "aten::as_strided")                                                             \
    X(N_ADDMM, "aten::addmm")                                                                       \
    X(N_LAUNCH, "cudaLaunchKernel")                                                                 \
    X(N_RELU, "aten::relu")                                                                         \
    X(N_CLAMP_MIN, "aten::clamp_min")                                                               \
    X(N_XENT, "aten::cross_entropy_loss")                                                           \
    X(N_LOG_SOFTMAX, "aten::log_softmax")                                                           \
    X(N__LOG_SOFTMAX, "aten::_log_softmax")                                                         \
    X(N_NLL, "aten::nll_loss_nd")                                                                   \
    X(N_NLL_FWD, "aten::nll_loss_forward")                                                          \
    X(N_BACKWARD, "## backward ##")                                                                 \
    X(N_EVAL_ADDMM, "autograd::engine::evaluate_function: AddmmBackward0")                          \
    X(N_ADDMM_BW, "AddmmBackward0")                                                                 \
    X(N_MM, "aten::mm")                                                                             \
    X(N_EVAL_RELU, "autograd::engine::evaluate_function: ReluBackward0")                            \
    X(N_RELU_BW, "ReluBackward0")                                                                   \
    X(N_THRESH_BW, "aten::threshold_backward")                                                      \
    X(N_ALLREDUCE, "nccl:all_reduce")                                                               \
    X(N_PARAM_COMMS, "record_param_comms")                                                          \
    X(N_OPTIM, "Optimizer.step#SGD.step")                                                           \
    X(N_FOREACH_ADD, "aten::_foreach_add_")                                                         \
    X(N_ITEM, "aten::item")                                                                         \
    X(N_LOCAL_SCALAR, "aten::_local_scalar_dense")                                                  \
    X(N_STREAM_SYNC, "cudaStreamSynchronize")                                                       \
    X(N_K_GEMM, "ampere_sgemm_128x64_tn")                                                           \
    X(N_K_GEMM_BW, "ampere_sgemm_64x64_nn")                                                         \
    X(N_K_ELEM, "void at::native::vectorized_elementwise_kernel<4, at::native::(anonymous "         \
                "namespace)::launch_clamp_scalar(at::TensorIteratorBase&, c10::Scalar, "            \
                "c10::Scalar, at::native::detail::ClampLimits)::{lambda()#1}::operator()() "        \
                "const::{lambda()#7}::operator()() const::{lambda(float)#1}, at::detail::Array<"    \
                "char*, 2> >(int, at::native::(anonymous namespace)::launch_clamp_scalar("          \
                "at::TensorIteratorBase&, c10::Scalar, c10::Scalar, "                               \
                "at::native::detail::ClampLimits)::{lambda()#1}::operator()() "                     \
                "const::{lambda()#7}::operator()() const::{lambda(float)#1}, "                      \
                "at::detail::Array<char*, 2>)")                                                     \
    X(N_K_THRESH, "void at::native::elementwise_kernel<128, 2, at::native::gpu_kernel_impl<"        \
                  "at::native::(anonymous namespace)::threshold_kernel_impl<float>(at::"            \
                  "TensorIteratorBase&, float, float)::{lambda(float, float)#1}>(at::"              \
                  "TensorIteratorBase&, at::native::(anonymous namespace)::"                        \
                  "threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::"           \
                  "{lambda(float, float)#1} const&)::{lambda(int)#1}>(int, at::native::"            \
                  "gpu_kernel_impl<at::native::(anonymous namespace)::"                             \
                  "threshold_kernel_impl<float>(at::TensorIteratorBase&, float, float)::"           \
                  "{lambda(float, float)#1}>(at::TensorIteratorBase&, at::native::(anonymous "      \
                  "namespace)::threshold_kernel_impl<float>(at::TensorIteratorBase&, float, "       \
                  "float)::{lambda(float, float)#1} const&)::{lambda(int)#1})")                     \
    X(N_K_SOFTMAX, "void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, "         \
                   "float, float, at::native::(anonymous namespace)::LogSoftMaxForwardEpilogue>"    \
                   "(float*, float const*, int)")                                                   \
    X(N_K_NLL, "void at::native::(anonymous namespace)::nll_loss_forward_reduce_cuda_kernel_2d"     \
               "<float, float, long>(float*, float*, float const*, long const*, float const*, "     \
               "bool, long, long, long, long)")                                                     \
    X(N_K_NCCL, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)")  \
    X(N_K_FOREACH, "void at::native::(anonymous namespace)::multi_tensor_apply_kernel<at::native::" \
                   "(anonymous namespace)::TensorListMetadata<2>, at::native::(anonymous "          \
                   "namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, std::plus<float>, "       \
                   "float>(at::native::(anonymous namespace)::TensorListMetadata<2>, at::native::"  \
                   "(anonymous namespace)::BinaryOpListAlphaFunctor<float, 2, 2, 0>, "              \
                   "std::plus<float>, float)")                                                      \
    X(N_MEMCPY_HTOD, "Memcpy HtoD (Pinned -> Device)")                                              \
    X(N_MEMCPY_DTOH, "Memcpy DtoH (Device -> Pageable)")                                            \
    X(N_AC2G, "ac2g")                                                                               \
    X(N_FWDBWD, "fwdbwd")                                                                           \
    X(N_MEMORY, "[memory]")

#define AS_ENUM(id, text) id,
enum { NAMES(AS_ENUM) N_COUNT };
#undef AS_ENUM
#define AS_TEXT(id, text) text,
static const char *const NAME_TEXT[] = { NAMES(AS_TEXT) };
#undef AS_TEXT

enum { C_CPU_OP, C_USER, C_RUNTIME, C_KERNEL, C_MEMCPY, C_GPU_USER, C_AC2G, C_FWDBWD, C_INSTANT };
static const char *const CAT_TEXT[] = { "cpu_op", "user_annotation", "cuda_runtime",
                                        "kernel", "gpu_memcpy",      "gpu_user_annotation",
                                        "ac2g",   "fwdbwd",          "cpu_instant_event" };

enum { L_MAIN, L_BWD, L_S7, L_S20, L_COUNT };
enum { HOST_PID = 4242, BWD_TID = 4301 };
static const int LANE_PID[L_COUNT] = { HOST_PID, HOST_PID, 0, 0 };
static const int LANE_TID[L_COUNT] = { HOST_PID, BWD_TID, 7, 20 };

/* Static shape arguments: the bulk of a real cpu_op's args. */
static const char *const SHAPES_LINEAR =
    "\"Input Dims\": [[64, 1024], [1024, 1024], [1024]], \"Input type\": [\"float\", \"float\", "
    "\"float\"], \"Input Strides\": [[1024, 1], [1024, 1], [1]], \"Concrete Inputs\": [\"\", \"\", "
    "\"\"]";
static const char *const SHAPES_ADDMM =
    "\"Input Dims\": [[1024], [64, 1024], [1024, 1024], [], []], \"Input type\": [\"float\", "
    "\"float\", \"float\", \"Scalar\", \"Scalar\"], \"Input Strides\": [[1], [1024, 1], [1, 1024], "
    "[], []], \"Concrete Inputs\": [\"\", \"\", \"\", \"1\", \"1\"]";
static const char *const SHAPES_UNARY =
    "\"Input Dims\": [[64, 1024]], \"Input type\": [\"float\"], \"Input Strides\": [[1024, 1]], "
    "\"Concrete Inputs\": [\"\"]";

/* ---- one step's events, buffered per lane so they can be written lane by lane ---- */

typedef struct ev {
    uint8_t ph;    /* 'X', 's', 'f', 'i' */
    uint8_t cat;   /* C_* */
    uint8_t lane;  /* L_* */
    uint16_t name; /* N_* */
    int64_t ts, dur;
    int64_t child; /* sum of direct children's durations, for the facts */
    int64_t ext;   /* External id */
    int64_t corr;  /* correlation or flow id */
    int64_t bytes; /* memcpy bytes, memory-instant bytes */
    const char *shapes;
} ev;

typedef struct lane_buf {
    ev *v;
    size_t n, cap;
    size_t open[32]; /* indices of open slices (host lanes) */
    int depth;
} lane_buf;

typedef struct name_fact {
    uint64_t count;
    int64_t total, self;
} name_fact;

typedef struct gen {
    lane_buf lane[L_COUNT];
    int64_t gpu_free[L_COUNT]; /* when each stream lane is next free */
    int64_t ext, corr, flow, ev_idx;
    int64_t step;
    name_fact facts[N_COUNT];
    uint64_t n_x, n_flow, n_instant, n_meta;
    int layers;
} gen;

static ev *push(gen *g, int lane, int ph, int cat, int name, int64_t ts)
{
    lane_buf *b = &g->lane[lane];
    if (b->n == b->cap) {
        b->cap = b->cap ? b->cap * 2 : 256;
        b->v = realloc(b->v, b->cap * sizeof *b->v);
        if (!b->v) {
            fprintf(stderr, "gen_trace: out of memory\n");
            exit(1);
        }
    }
    ev *e = &b->v[b->n++];
    memset(e, 0, sizeof *e);
    e->ph = (uint8_t)ph;
    e->cat = (uint8_t)cat;
    e->lane = (uint8_t)lane;
    e->name = (uint16_t)name;
    e->ts = ts;
    return e;
}

/* Opens a slice on a host lane at `ts`; children pushed before close() nest inside. */
static void open_slice(gen *g, int lane, int cat, int name, int64_t ts, const char *shapes)
{
    lane_buf *b = &g->lane[lane];
    ev *e = push(g, lane, 'X', cat, name, ts);
    e->ext = ++g->ext;
    e->shapes = shapes;
    b->open[b->depth++] = b->n - 1;
}

/* Closes the innermost open slice at `end`; returns `end`. */
static int64_t close_slice(gen *g, int lane, int64_t end)
{
    lane_buf *b = &g->lane[lane];
    ev *e = &b->v[b->open[--b->depth]];
    e->dur = end - e->ts;
    if (b->depth > 0) b->v[b->open[b->depth - 1]].child += e->dur;
    return end;
}

/* A leaf slice of duration `dur` starting at `ts`; returns its end. */
static int64_t leaf(gen *g, int lane, int cat, int name, int64_t ts, int64_t dur, const char *shapes)
{
    open_slice(g, lane, cat, name, ts, shapes);
    return close_slice(g, lane, ts + dur);
}

/* A GPU activity on `stream` launched by a runtime call that started at `launch`. */
static void gpu_op(gen *g, int stream, int cat, int name, int64_t launch, int64_t dur, int64_t corr, int64_t ext,
                   int64_t bytes)
{
    int64_t start = launch + between(2500, 9000);
    if (start < g->gpu_free[stream]) start = g->gpu_free[stream] + between(300, 1500);
    ev *k = push(g, stream, 'X', cat, name, start);
    k->dur = dur;
    k->corr = corr;
    k->ext = ext;
    k->bytes = bytes;
    g->gpu_free[stream] = start + dur;
    ev *f = push(g, stream, 'f', C_AC2G, N_AC2G, start);
    f->corr = corr;
}

/* A runtime call (cudaLaunchKernel, cudaMemcpyAsync) on a host lane that enqueues one
 * GPU activity; returns the call's end. */
static int64_t launch(gen *g, int lane, int rt_name, int64_t ts, int stream, int cat, int kname, int64_t kdur,
                      int64_t bytes)
{
    int64_t corr = ++g->corr;
    int64_t ext = g->lane[lane].depth ? g->lane[lane].v[g->lane[lane].open[g->lane[lane].depth - 1]].ext : 0;
    open_slice(g, lane, C_RUNTIME, rt_name, ts, NULL);
    ev *rt = &g->lane[lane].v[g->lane[lane].n - 1];
    rt->corr = corr;
    int64_t end = close_slice(g, lane, ts + between(3200, 9800));
    ev *s = push(g, lane, 's', C_AC2G, N_AC2G, ts);
    s->corr = corr;
    gpu_op(g, stream, cat, kname, ts, kdur, corr, ext, bytes);
    return end;
}

static int64_t gap(void)
{
    return between(400, 3000);
}

/* aten::linear -> (aten::t -> transpose -> as_strided), (aten::addmm -> launch). */
static int64_t op_linear(gen *g, int64_t t, int64_t *fwd_flow_ts)
{
    open_slice(g, L_MAIN, C_CPU_OP, N_LINEAR, t, SHAPES_LINEAR);
    t += gap();
    open_slice(g, L_MAIN, C_CPU_OP, N_T, t, NULL);
    t += gap();
    open_slice(g, L_MAIN, C_CPU_OP, N_TRANSPOSE, t, NULL);
    t = leaf(g, L_MAIN, C_CPU_OP, N_AS_STRIDED, t + gap(), between(1000, 2500), NULL);
    t = close_slice(g, L_MAIN, t + gap());
    t = close_slice(g, L_MAIN, t + gap());
    t += gap();
    *fwd_flow_ts = t;
    open_slice(g, L_MAIN, C_CPU_OP, N_ADDMM, t, SHAPES_ADDMM);
    t = launch(g, L_MAIN, N_LAUNCH, t + between(4000, 12000), L_S7, C_KERNEL, N_K_GEMM, between(18000, 60000), 0);
    t = close_slice(g, L_MAIN, t + gap());
    return close_slice(g, L_MAIN, t + gap());
}

static int64_t op_relu(gen *g, int64_t t)
{
    open_slice(g, L_MAIN, C_CPU_OP, N_RELU, t, SHAPES_UNARY);
    open_slice(g, L_MAIN, C_CPU_OP, N_CLAMP_MIN, t + gap(), SHAPES_UNARY);
    t = launch(g, L_MAIN, N_LAUNCH, g->lane[L_MAIN].v[g->lane[L_MAIN].n - 1].ts + between(3000, 8000), L_S7, C_KERNEL,
               N_K_ELEM, between(2000, 6000), 0);
    t = close_slice(g, L_MAIN, t + gap());
    return close_slice(g, L_MAIN, t + gap());
}

static int64_t op_loss(gen *g, int64_t t)
{
    open_slice(g, L_MAIN, C_CPU_OP, N_XENT, t, NULL);
    open_slice(g, L_MAIN, C_CPU_OP, N_LOG_SOFTMAX, t += gap(), SHAPES_UNARY);
    open_slice(g, L_MAIN, C_CPU_OP, N__LOG_SOFTMAX, t += gap(), SHAPES_UNARY);
    t = launch(g, L_MAIN, N_LAUNCH, t + gap(), L_S7, C_KERNEL, N_K_SOFTMAX, between(3000, 9000), 0);
    t = close_slice(g, L_MAIN, t + gap());
    t = close_slice(g, L_MAIN, t + gap());
    open_slice(g, L_MAIN, C_CPU_OP, N_NLL, t += gap(), NULL);
    open_slice(g, L_MAIN, C_CPU_OP, N_NLL_FWD, t += gap(), NULL);
    t = launch(g, L_MAIN, N_LAUNCH, t + gap(), L_S7, C_KERNEL, N_K_NLL, between(2000, 5000), 0);
    t = close_slice(g, L_MAIN, t + gap());
    t = close_slice(g, L_MAIN, t + gap());
    return close_slice(g, L_MAIN, t + gap());
}

static int64_t memory_instant(gen *g, int lane, int64_t t)
{
    ev *e = push(g, lane, 'i', C_INSTANT, N_MEMORY, t);
    e->bytes = (int64_t)(rnd() % 64 + 1) * 262144;
    return t;
}

static int64_t data_loader(gen *g, int64_t t)
{
    open_slice(g, L_MAIN, C_USER, N_LOADER, t, NULL);
    t += between(20000, 90000); /* Python-side work with no ops recorded */
    for (int i = 0; i < 4; i++)
        t = leaf(g, L_MAIN, C_CPU_OP, N_EMPTY, t + gap(), between(1500, 4000), NULL);
    open_slice(g, L_MAIN, C_CPU_OP, N_STACK, t += gap(), NULL);
    t = leaf(g, L_MAIN, C_CPU_OP, N_CAT, t + gap(), between(8000, 30000), NULL);
    t = close_slice(g, L_MAIN, t + gap());
    t = close_slice(g, L_MAIN, t + gap());
    /* Host-to-device copy of the batch. */
    open_slice(g, L_MAIN, C_CPU_OP, N_TO, t += gap(), NULL);
    open_slice(g, L_MAIN, C_CPU_OP, N_TO_COPY, t += gap(), NULL);
    t = leaf(g, L_MAIN, C_CPU_OP, N_EMPTY, t + gap(), between(1500, 4000), NULL);
    open_slice(g, L_MAIN, C_CPU_OP, N_COPY, t += gap(), NULL);
    memory_instant(g, L_MAIN, t + 100);
    t = launch(g, L_MAIN, N_MEMCPY_ASYNC, t + gap(), L_S7, C_MEMCPY, N_MEMCPY_HTOD, between(9000, 20000), 262144);
    t = close_slice(g, L_MAIN, t + gap());
    t = close_slice(g, L_MAIN, t + gap());
    return close_slice(g, L_MAIN, t + gap());
}

/* Backward on the autograd thread, layer by layer in reverse, then the gradient
 * all-reduce on the communication stream. */
static int64_t backward(gen *g, int64_t t, const int64_t *fwd_ts)
{
    for (int l = g->layers - 1; l >= 0; l--) {
        open_slice(g, L_BWD, C_CPU_OP, N_EVAL_RELU, t += gap(), NULL);
        open_slice(g, L_BWD, C_CPU_OP, N_RELU_BW, t += gap(), NULL);
        open_slice(g, L_BWD, C_CPU_OP, N_THRESH_BW, t += gap(), SHAPES_UNARY);
        t = launch(g, L_BWD, N_LAUNCH, t + gap(), L_S7, C_KERNEL, N_K_THRESH, between(2000, 6000), 0);
        t = close_slice(g, L_BWD, t + gap());
        t = close_slice(g, L_BWD, t + gap());
        t = close_slice(g, L_BWD, t + gap());

        int64_t eval_ts = t += gap();
        open_slice(g, L_BWD, C_CPU_OP, N_EVAL_ADDMM, eval_ts, NULL);
        int64_t flow = ++g->flow;
        ev *s = push(g, L_MAIN, 's', C_FWDBWD, N_FWDBWD, fwd_ts[l]);
        s->corr = flow;
        ev *f = push(g, L_BWD, 'f', C_FWDBWD, N_FWDBWD, eval_ts);
        f->corr = flow;
        open_slice(g, L_BWD, C_CPU_OP, N_ADDMM_BW, t += gap(), NULL);
        for (int m = 0; m < 2; m++) {
            open_slice(g, L_BWD, C_CPU_OP, N_MM, t += gap(), SHAPES_UNARY);
            t = launch(g, L_BWD, N_LAUNCH, t + gap(), L_S7, C_KERNEL, N_K_GEMM_BW, between(16000, 55000), 0);
            t = close_slice(g, L_BWD, t + gap());
        }
        t = close_slice(g, L_BWD, t + gap());
        t = close_slice(g, L_BWD, t + gap());
        if (l % 8 == 0) memory_instant(g, L_BWD, t);
    }
    open_slice(g, L_BWD, C_USER, N_ALLREDUCE, t += gap(), NULL);
    open_slice(g, L_BWD, C_CPU_OP, N_PARAM_COMMS, t += gap(), NULL);
    t = launch(g, L_BWD, N_LAUNCH, t + gap(), L_S20, C_KERNEL, N_K_NCCL, between(150000, 400000), 0);
    t = close_slice(g, L_BWD, t + gap());
    return close_slice(g, L_BWD, t + gap());
}

static int64_t optimizer(gen *g, int64_t t)
{
    open_slice(g, L_MAIN, C_USER, N_OPTIM, t, NULL);
    open_slice(g, L_MAIN, C_CPU_OP, N_FOREACH_ADD, t += gap(), NULL);
    for (int i = 0; i < 3; i++)
        t = launch(g, L_MAIN, N_LAUNCH, t + gap(), L_S7, C_KERNEL, N_K_FOREACH, between(8000, 20000), 0);
    t = close_slice(g, L_MAIN, t + gap());
    return close_slice(g, L_MAIN, t + gap());
}

/* loss.item(): a device-to-host copy and a synchronize that waits for both streams. */
static int64_t read_loss(gen *g, int64_t t)
{
    open_slice(g, L_MAIN, C_CPU_OP, N_ITEM, t, NULL);
    open_slice(g, L_MAIN, C_CPU_OP, N_LOCAL_SCALAR, t += gap(), NULL);
    t = launch(g, L_MAIN, N_MEMCPY_ASYNC, t + gap(), L_S7, C_MEMCPY, N_MEMCPY_DTOH, between(1500, 3000), 4);
    int64_t done = g->gpu_free[L_S7] > g->gpu_free[L_S20] ? g->gpu_free[L_S7] : g->gpu_free[L_S20];
    int64_t start = t + gap();
    int64_t end = start + between(2000, 4000);
    if (end < done + 800) end = done + between(800, 2500);
    t = leaf(g, L_MAIN, C_RUNTIME, N_STREAM_SYNC, start, end - start, NULL);
    t = close_slice(g, L_MAIN, t + gap());
    return close_slice(g, L_MAIN, t + gap());
}

/* The GPU-side ProfilerStep annotation on stream 7 spans that stream's work of the step. */
static void gpu_step_annotation(gen *g, size_t first)
{
    lane_buf *b = &g->lane[L_S7];
    int64_t lo = INT64_MAX, hi = INT64_MIN, kids = 0;
    for (size_t i = first + 1; i < b->n; i++) {
        if (b->v[i].ph != 'X') continue;
        if (b->v[i].ts < lo) lo = b->v[i].ts;
        if (b->v[i].ts + b->v[i].dur > hi) hi = b->v[i].ts + b->v[i].dur;
        kids += b->v[i].dur;
    }
    ev *a = &b->v[first];
    a->ts = lo;
    a->dur = hi - lo;
    a->child = kids;
}

static int64_t one_step(gen *g, int64_t t)
{
    int64_t fwd_ts[64];
    size_t s7_first = g->lane[L_S7].n;
    ev *ann = push(g, L_S7, 'X', C_GPU_USER, N_STEP, 0);
    open_slice(g, L_MAIN, C_USER, N_STEP, t, NULL);
    ann->ext = g->lane[L_MAIN].v[g->lane[L_MAIN].n - 1].ext;
    t = data_loader(g, t + gap());
    open_slice(g, L_MAIN, C_USER, N_FORWARD, t += gap(), NULL);
    for (int l = 0; l < g->layers; l++) {
        t = op_linear(g, t + gap(), &fwd_ts[l]);
        t = op_relu(g, t + gap());
    }
    t = op_loss(g, t + gap());
    t = close_slice(g, L_MAIN, t + gap());
    /* The main thread waits in backward() while the autograd thread works. */
    open_slice(g, L_MAIN, C_USER, N_BACKWARD, t += gap(), NULL);
    t = backward(g, t + between(5000, 15000), fwd_ts);
    t = close_slice(g, L_MAIN, t + between(3000, 9000));
    t = optimizer(g, t + gap());
    t = read_loss(g, t + gap());
    t = close_slice(g, L_MAIN, t + gap());
    gpu_step_annotation(g, s7_first);
    return t;
}

/* ---- writing ---- */

static void write_event(gen *g, out *o, const ev *e, int64_t step)
{
    const char *ph = e->ph == 'X' ? "X" : e->ph == 's' ? "s" : e->ph == 'f' ? "f" : "i";
    put(o, "  {\n    \"ph\": \"");
    put(o, ph);
    put(o, "\", \"cat\": \"");
    put(o, CAT_TEXT[e->cat]);
    put(o, "\", \"name\": \"");
    put(o, NAME_TEXT[e->name]);
    if (e->name == N_STEP) put_i64(o, step);
    if (e->ph == 's' || e->ph == 'f') {
        put(o, "\", \"id\": ");
        put_i64(o, e->corr);
        put(o, ", \"pid\": ");
    } else {
        put(o, "\", \"pid\": ");
    }
    put_i64(o, LANE_PID[e->lane]);
    put(o, ", \"tid\": ");
    put_i64(o, LANE_TID[e->lane]);
    put(o, ",\n    \"ts\": ");
    put_us(o, e->ts);
    if (e->ph == 'f') {
        put(o, ", \"bp\": \"e\"\n  }");
        return;
    }
    if (e->ph == 's') {
        put(o, "\n  }");
        return;
    }
    if (e->ph == 'i') {
        put(o, ", \"s\": \"t\",\n    \"args\": {\n      \"Total Reserved\": 2097152000, "
               "\"Total Allocated\": ");
        put_i64(o, 1048576000 + e->bytes);
        put(o, ", \"Bytes\": ");
        put_i64(o, e->bytes);
        put(o, ", \"Addr\": 139812345610240, \"Device Id\": 0, \"Device Type\": 1, \"Ev Idx\": ");
        put_i64(o, g->ev_idx++);
        put(o, "\n    }\n  }");
        return;
    }
    put(o, ", \"dur\": ");
    put_us(o, e->dur);
    put(o, ",\n    \"args\": {\n      \"External id\": ");
    put_i64(o, e->ext);
    switch (e->cat) {
    case C_CPU_OP:
    case C_USER:
        put(o, ", \"Record function id\": 0");
        if (e->shapes) {
            put(o, ", ");
            put(o, e->shapes);
        }
        put(o, ", \"Ev Idx\": ");
        put_i64(o, g->ev_idx++);
        break;
    case C_RUNTIME:
        put(o, ", \"cbid\": ");
        put(o, e->name == N_LAUNCH ? "211" : e->name == N_MEMCPY_ASYNC ? "41" : "131");
        put(o, ", \"correlation\": ");
        put_i64(o, e->corr);
        break;
    case C_KERNEL:
        put(o, ",\n      \"queued\": 0, \"device\": 0, \"context\": 1, \"stream\": ");
        put_i64(o, LANE_TID[e->lane]);
        put(o, ", \"correlation\": ");
        put_i64(o, e->corr);
        put(o, ",\n      \"registers per thread\": 128, \"shared memory\": 16384, \"blocks per SM\": "
               "1.185185, \"warps per SM\": 4.740741, \"grid\": [16, 8, 1], \"block\": [128, 1, 1], "
               "\"est. achieved occupancy %\": 6");
        break;
    case C_MEMCPY:
        put(o, ", \"device\": 0, \"context\": 1, \"stream\": 7, \"correlation\": ");
        put_i64(o, e->corr);
        put(o, ", \"bytes\": ");
        put_i64(o, e->bytes);
        putf(o, ", \"memory bandwidth (GB/s)\": %.6f", (double)e->bytes / (double)e->dur);
        break;
    default:
        break;
    }
    put(o, "\n    }\n  }");
}

static void count_event(gen *g, const ev *e)
{
    if (e->ph == 'X') {
        name_fact *f = &g->facts[e->name];
        f->count++;
        f->total += e->dur;
        f->self += e->dur - e->child;
        g->n_x++;
    } else if (e->ph == 'i') {
        g->n_instant++;
    } else {
        g->n_flow++;
    }
}

/* Writes a step's buffered events lane by lane (autograd thread first, as Kineto
 * tends to), then empties the buffers. */
static void flush_step(gen *g, out *o, int64_t step, int *first)
{
    static const int order[L_COUNT] = { L_BWD, L_MAIN, L_S7, L_S20 };
    for (int k = 0; k < L_COUNT; k++) {
        lane_buf *b = &g->lane[order[k]];
        for (size_t i = 0; i < b->n; i++) {
            if (!*first) put_raw(o, ",\n", 2); /* one event per line, also when compact */
            *first = 0;
            write_event(g, o, &b->v[i], step);
            count_event(g, &b->v[i]);
        }
        b->n = 0;
    }
}

static void write_meta(gen *g, out *o, const char *name, int pid, int tid, const char *key, const char *value,
                       int quoted)
{
    put(o, "  {\n    \"name\": \"");
    put(o, name);
    put(o, "\", \"ph\": \"M\", \"ts\": 1712195495401688.500, \"pid\": ");
    put_i64(o, pid);
    put(o, ", \"tid\": ");
    put_i64(o, tid);
    put(o, ",\n    \"args\": {\n      \"");
    put(o, key);
    put(o, quoted ? "\": \"" : "\": ");
    put(o, value);
    put(o, quoted ? "\"\n    }\n  }" : "\n    }\n  }");
    put_raw(o, ",\n", 2);
    g->n_meta++;
}

static void write_head(gen *g, out *o)
{
    put(o, "{\n  \"schemaVersion\": 1,\n  \"deviceProperties\": [\n    {\n      \"id\": 0, "
           "\"name\": \"NVIDIA A100-SXM4-80GB\", \"totalGlobalMem\": 85031714816,\n      "
           "\"computeMajor\": 8, \"computeMinor\": 0,\n      \"maxThreadsPerBlock\": 1024, "
           "\"maxThreadsPerMultiprocessor\": 2048,\n      \"regsPerBlock\": 65536, "
           "\"regsPerMultiprocessor\": 65536, \"warpSize\": 32,\n      \"sharedMemPerBlock\": "
           "49152, \"sharedMemPerMultiprocessor\": 167936,\n      \"numSms\": 108, "
           "\"sharedMemPerBlockOptin\": 166912\n    }\n  ],\n  \"distributedInfo\": "
           "{\"backend\": \"nccl\", \"rank\": 0, \"world_size\": 1},\n  \"record_shapes\": 1,\n"
           "  \"with_stack\": 0,\n  \"traceEvents\": [");
    put_raw(o, "\n", 1);
    write_meta(g, o, "process_name", HOST_PID, 0, "name", "python3 train.py", 1);
    write_meta(g, o, "process_labels", HOST_PID, 0, "labels", "CPU", 1);
    write_meta(g, o, "thread_name", HOST_PID, HOST_PID, "name", "thread 4242 (python3)", 1);
    write_meta(g, o, "thread_name", HOST_PID, BWD_TID, "name", "thread 4301 (pt_autograd_0)", 1);
    write_meta(g, o, "process_name", 0, 0, "name", "python3 train.py", 1);
    write_meta(g, o, "process_labels", 0, 0, "labels", "GPU 0", 1);
    write_meta(g, o, "process_sort_index", 0, 0, "sort_index", "5000000", 0);
    write_meta(g, o, "thread_name", 0, 7, "name", "stream 7 ", 1);
    write_meta(g, o, "thread_name", 0, 20, "name", "stream 20 ", 1);
    write_meta(g, o, "thread_sort_index", 0, 7, "sort_index", "7", 0);
    write_meta(g, o, "thread_sort_index", 0, 20, "sort_index", "20", 0);
}

static void write_tail(out *o, int64_t t0, int64_t t1)
{
    put_raw(o, ",\n", 2);
    put(o, "  {\n    \"ph\": \"X\", \"cat\": \"Trace\", \"ts\": ");
    put_us(o, t0);
    put(o, ", \"dur\": ");
    put_us(o, t1 - t0);
    put(o, ",\n    \"pid\": \"Spans\", \"tid\": \"PyTorch Profiler\",\n    \"name\": \"PyTorch "
           "Profiler (0)\",\n    \"args\": {\n      \"Op count\": 0\n    }\n  },\n  {\n    \"name\": "
           "\"Iteration Start: PyTorch Profiler\", \"ph\": \"i\", \"s\": \"g\",\n    \"pid\": "
           "\"Traces\", \"tid\": \"Trace PyTorch Profiler\", \"ts\": ");
    put_us(o, t0);
    put(o, "\n  }");
    put_raw(o, "\n", 1);
    put(o, "],\n  \"traceName\": \"perf/out/synthetic.pt.trace.json\",\n  "
           "\"displayTimeUnit\": \"ms\",\n  \"baseTimeNanoseconds\": 1712190000000000000\n}\n");
}

static int write_facts(const gen *g, const char *path, uint64_t bytes)
{
    FILE *f = fopen(path, "w");
    if (!f) return -1;
    uint64_t x = g->n_x + 1; /* the profiler's own Trace span */
    fprintf(f, "{\"bytes\": %" PRIu64 ", \"steps\": %" PRId64 ", \"layers\": %d,\n", bytes, g->step, g->layers);
    fprintf(f,
            " \"events\": %" PRIu64 ", \"complete\": %" PRIu64 ", \"flows\": %" PRIu64 ", \"instants\": %" PRIu64
            ", \"metadata\": %" PRIu64 ",\n",
            x + g->n_flow + g->n_instant + 1 + g->n_meta, x, g->n_flow, g->n_instant + 1, g->n_meta);
    fprintf(f, " \"names\": {");
    int first = 1;
    for (int i = 0; i < N_COUNT; i++) {
        const name_fact *n = &g->facts[i];
        if (!n->count || i == N_STEP) continue;
        fprintf(f, "%s\n  \"%s\": {\"count\": %" PRIu64 ", \"total_ns\": %" PRId64 ", \"self_ns\": %" PRId64 "}",
                first ? "" : ",", NAME_TEXT[i], n->count, n->total, n->self);
        first = 0;
    }
    fprintf(f, "},\n \"steps_total\": {\"count\": %" PRIu64 ", \"total_ns\": %" PRId64 ", \"self_ns\": %" PRId64 "}}\n",
            g->facts[N_STEP].count, g->facts[N_STEP].total, g->facts[N_STEP].self);
    return fclose(f);
}

static int parse_size(const char *s, uint64_t *out_size)
{
    char *end;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || v < 0) return -1;
    double mul = 1;
    if (*end == 'K' || *end == 'k')
        mul = 1e3, end++;
    else if (*end == 'M' || *end == 'm')
        mul = 1e6, end++;
    else if (*end == 'G' || *end == 'g')
        mul = 1e9, end++;
    if (*end) return -1;
    *out_size = (uint64_t)(v * mul);
    return 0;
}

static int usage(void)
{
    fprintf(stderr, "usage: gen_trace [--seed N] [--gzip] [--compact] [--level 1-9] [--steps N] [--layers N] "
                    "[--facts FILE] SIZE OUT\n"
                    "  SIZE: uncompressed bytes to reach, e.g. 100M or 1G (ignored with --steps)\n");
    return 2;
}

int main(int argc, char **argv)
{
    uint64_t seed = 1, size = 0;
    long steps = -1, level = 6, layers = 24;
    int gz = 0, compact = 0;
    const char *facts = NULL, *pos[2];
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--gzip"))
            gz = 1;
        else if (!strcmp(a, "--compact"))
            compact = 1;
        else if (!strcmp(a, "--seed") && i + 1 < argc)
            seed = strtoull(argv[++i], NULL, 10);
        else if (!strcmp(a, "--steps") && i + 1 < argc)
            steps = strtol(argv[++i], NULL, 10);
        else if (!strcmp(a, "--level") && i + 1 < argc)
            level = strtol(argv[++i], NULL, 10);
        else if (!strcmp(a, "--layers") && i + 1 < argc)
            layers = strtol(argv[++i], NULL, 10);
        else if (!strcmp(a, "--facts") && i + 1 < argc)
            facts = argv[++i];
        else if (a[0] == '-' && a[1])
            return usage();
        else if (npos < 2)
            pos[npos++] = a;
        else
            return usage();
    }
    if (npos != 2 || level < 1 || level > 9 || layers < 1 || layers > 64) return usage();
    if (parse_size(pos[0], &size) != 0) {
        fprintf(stderr, "gen_trace: SIZE '%s' is not a size like 100M or 1G\n", pos[0]);
        return 2;
    }
    if (steps < 0 && size == 0) {
        fprintf(stderr, "gen_trace: give a SIZE above 0 or --steps N\n");
        return 2;
    }

    static out o;
    o.compact = compact;
    if (gz) {
        char mode[8];
        snprintf(mode, sizeof mode, "wb%ld", level);
        o.gz = gzopen(pos[1], mode);
        if (o.gz) gzbuffer(o.gz, 1 << 20);
    } else {
        o.f = fopen(pos[1], "wb");
    }
    if (!o.gz && !o.f) {
        fprintf(stderr, "gen_trace: cannot write %s: %s\n", pos[1], strerror(errno));
        return 1;
    }

    static gen g;
    rng_state = seed;
    g.layers = (int)layers;
    write_head(&g, &o);
    int first = 1;
    const int64_t t0 = 1712195495406752750ll; /* ns, a Kineto-like epoch-scale clock */
    int64_t t = t0 + between(50000, 90000);
    while (steps >= 0 ? g.step < steps : o.total < size) {
        t = one_step(&g, t) + between(5000, 40000);
        flush_step(&g, &o, g.step, &first);
        g.step++;
    }
    write_tail(&o, t0, t);
    out_flush(&o);
    int bad = o.failed;
    if (o.gz)
        bad |= gzclose(o.gz) != Z_OK;
    else
        bad |= fclose(o.f) != 0;
    if (bad) {
        fprintf(stderr, "gen_trace: writing %s failed\n", pos[1]);
        return 1;
    }
    if (facts && write_facts(&g, facts, o.total) != 0) {
        fprintf(stderr, "gen_trace: cannot write %s: %s\n", facts, strerror(errno));
        return 1;
    }
    for (int i = 0; i < L_COUNT; i++)
        free(g.lane[i].v);
    printf("gen_trace: %s: %" PRIu64 " bytes of JSON, %" PRId64 " steps, %" PRIu64 " events\n", pos[1], o.total, g.step,
           g.n_x + g.n_flow + g.n_instant + g.n_meta + 2);
    return 0;
}
