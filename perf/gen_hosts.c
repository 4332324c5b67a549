/* gen_hosts: writes a synthetic multi-host profile, one trace per host, with stragglers
 * planted where the caller knows them, for the multi-host tests and benchmarks.
 *
 *   gen_hosts [--hosts N] [--steps N] [--kernels K] [--names M] [--seed S]
 *             [--format xplane|kineto|both] [--no-plant] [--facts FILE] OUT
 *
 * Every host runs the same training step on its own clock: on a host thread a step
 * slice (XProf's "train_step" with a step_num arg, or PyTorch's "ProfilerStep#N") holds
 * input, forward, backward, sync and optimizer; two GPUs run K kernels per step (named
 * from M kernel names, 50 by default) during forward and backward and an all-reduce
 * during sync, which the host waits for. The
 * durations vary by up to 1% from host to host and step to step (seeded, so the same
 * arguments give the same bytes). Planted (unless --no-plant):
 *   - host 7 (mod N): in steps 4, 9 and 15 its all-reduce takes 40 ms longer (a slow
 *     link: a collective wait), so its sync and its step grow by as much;
 *   - host 12 (mod N, when another host than the first): in step 11 its input takes
 *     30 ms longer (a slow data loader).
 * The traces are built as Chrome JSON text, read with sts_timeline_open() and written
 * with the project's writers: OUT/plugins/profile/2026_01_01_00_00_00/hostNN.xplane.pb
 * (sts_write_xplane: the GPUs become device planes) and OUT/kineto/rankN.json.gz
 * (sts_write_chrome_json; Kineto's names: "stream 7 " lanes and NCCL kernels).
 *
 * --facts FILE writes what the generator knows exactly, computed here from the
 * intervals it made: per host and step the duration, the children's totals, the GPUs'
 * busy time (union) and all-reduce time (union) inside the step, and the planted
 * stragglers with the component that explains them. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "stepscope.h"

#define GPUS        2
#define MS          1000000LL
#define COLL_STEPS  3
#define COLL_EXTRA  (40 * MS)
#define INPUT_STEP  11
#define INPUT_EXTRA (30 * MS)
#define RUN_NAME    "2026_01_01_00_00_00"

static const int coll_steps[COLL_STEPS] = { 4, 9, 15 };

typedef struct args {
    int hosts, steps, kernels, names, plant, xplane, kineto;
    uint64_t seed;
    const char *facts, *out;
} args;

typedef struct iv {
    int64_t a, b;
} iv;

/* One host's step, as generated. */
typedef struct step_facts {
    int64_t ts, dur;
    int64_t child[5];
    int64_t busy, coll;
} step_facts;

static const char *const child_names[5] = { "input", "forward", "backward", "sync", "optimizer" };

static uint64_t rng_next(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

/* nominal, varied by up to 1% either way. */
static int64_t vary(uint64_t *s, int64_t nominal)
{
    int64_t r = (int64_t)(rng_next(s) % 2001) - 1000;
    return nominal + r * nominal / 100000;
}

static int cmp_iv(const void *x, const void *y)
{
    const iv *p = x, *q = y;
    return (p->a > q->a) - (p->a < q->a);
}

static int64_t union_len(iv *v, size_t n)
{
    if (n == 0) return 0;
    qsort(v, n, sizeof *v, cmp_iv);
    int64_t total = 0, s = v[0].a, e = v[0].b;
    for (size_t i = 1; i < n; i++) {
        if (v[i].a > e) {
            total += e - s;
            s = v[i].a;
            e = v[i].b;
        } else if (v[i].b > e) {
            e = v[i].b;
        }
    }
    return total + e - s;
}

/* ---- the JSON text of one host ---- */

typedef struct out {
    FILE *f;
    int first;
} out;

static void put_us(FILE *f, int64_t ns)
{
    fprintf(f, "%" PRId64 ".%03" PRId64, ns / 1000, ns % 1000);
}

static void ev(out *o, const char *name, int pid, int tid, int64_t ts, int64_t dur, const char *eargs)
{
    fprintf(o->f, "%s\n{\"ph\":\"X\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"ts\":", o->first ? "" : ",", name, pid,
            tid);
    put_us(o->f, ts);
    fputs(",\"dur\":", o->f);
    put_us(o->f, dur);
    if (eargs) fprintf(o->f, ",\"args\":%s", eargs);
    fputc('}', o->f);
    o->first = 0;
}

static void meta(out *o, const char *what, int pid, int tid, const char *name)
{
    fprintf(o->f, "%s\n{\"ph\":\"M\",\"name\":\"%s\",\"pid\":%d,\"tid\":%d,\"args\":{\"name\":\"%s\"}}",
            o->first ? "" : ",", what, pid, tid, name);
    o->first = 0;
}

static int is_coll_step(const args *a, int host, int s)
{
    if (!a->plant || host != 7 % a->hosts) return 0;
    for (int i = 0; i < COLL_STEPS; i++)
        if (coll_steps[i] == s) return 1;
    return 0;
}

static int is_input_step(const args *a, int host, int s)
{
    return a->plant && host == 12 % a->hosts && 12 % a->hosts != 0 && s == INPUT_STEP;
}

/* Writes host `h`'s JSON text (flavor: 0 XLA names, 1 Kineto names) and fills its facts. */
static void host_json(const args *a, int h, int kineto, FILE *f, step_facts *facts, iv *scratch)
{
    out o = { f, 1 };
    uint64_t rng = a->seed * 0x9e3779b97f4a7c15u + (uint64_t)h * 0xbf58476d1ce4e5b9u + 1;
    int hpid = kineto ? 4000 + h : 701, htid = kineto ? 4000 + h : 1;
    fputs("{\"traceEvents\":[", f);
    if (kineto) {
        char nm[64];
        snprintf(nm, sizeof nm, "thread %d (python)", htid);
        meta(&o, "process_name", hpid, 0, "python");
        meta(&o, "thread_name", hpid, htid, nm);
        for (int g = 0; g < GPUS; g++) {
            snprintf(nm, sizeof nm, "GPU %d", g);
            meta(&o, "process_name", g, 0, nm);
            meta(&o, "thread_name", g, 7, "stream 7 ");
        }
    } else {
        meta(&o, "process_name", hpid, 0, "/host:CPU");
        meta(&o, "thread_name", hpid, htid, "python");
        for (int g = 0; g < GPUS; g++) {
            char nm[32];
            snprintf(nm, sizeof nm, "/device:GPU:%d", g);
            meta(&o, "process_name", g + 1, 0, nm);
            meta(&o, "thread_name", g + 1, 7, "stream 7");
        }
    }
    int64_t t = 1000000000000LL + (int64_t)h * 123456789LL; /* each host's own clock */
    for (int s = 0; s < a->steps; s++) {
        step_facts *sf = &facts[s];
        memset(sf, 0, sizeof *sf);
        int64_t start = t;
        int64_t in = vary(&rng, 3 * MS) + (is_input_step(a, h, s) ? INPUT_EXTRA : 0);
        int64_t fw = vary(&rng, 12 * MS), bw = vary(&rng, 20 * MS), op = vary(&rng, 4 * MS);
        int64_t ar = 2 * MS + (is_coll_step(a, h, s) ? COLL_EXTRA : 0);
        int64_t c0 = start + 20000, f0 = c0 + in, b0 = f0 + fw, s0 = b0 + bw;
        /* The GPUs' all-reduce starts 10 us after backward (GPU g 1 us later per g);
         * the host's sync waits for the last to end. */
        int64_t ar_end = s0 + 10000 + (GPUS - 1) * 1000 + ar;
        int64_t sy = ar_end - s0, o0 = ar_end, end = o0 + op + 20000;
        const int64_t child_ts[5] = { c0, f0, b0, s0, o0 }, child_dur[5] = { in, fw, bw, sy, op };
        char sargs[48];
        snprintf(sargs, sizeof sargs, "{\"step_num\":%d}", s);
        char sname[48];
        snprintf(sname, sizeof sname, kineto ? "ProfilerStep#%d" : "train_step", s);
        ev(&o, sname, hpid, htid, start, end - start, kineto ? NULL : sargs);
        for (int c = 0; c < 5; c++) {
            ev(&o, child_names[c], hpid, htid, child_ts[c], child_dur[c], NULL);
            sf->child[c] = child_dur[c];
        }
        size_t nv = 0, nc = 0;
        iv *coll = scratch + (size_t)GPUS * (size_t)a->kernels + GPUS;
        for (int g = 0; g < GPUS; g++) {
            int pid = kineto ? g : g + 1;
            for (int k = 0; k < a->kernels; k++) {
                /* Half the kernels in forward, half in backward, evenly spaced. */
                int half = a->kernels / 2, in_fw = k < half;
                int n = in_fw ? half : a->kernels - half, i = in_fw ? k : k - half;
                int64_t w0 = (in_fw ? f0 : b0) + 50000, wlen = (in_fw ? fw : bw) - 100000;
                int64_t slot = wlen / (n ? n : 1), kts = w0 + i * slot + g * 1000, kdur = vary(&rng, slot * 8 / 10);
                char kn[96];
                if (kineto)
                    snprintf(kn, sizeof kn, "void gemm_kernel<%d>(float*)", k % a->names);
                else
                    snprintf(kn, sizeof kn, "fusion.%d", k % a->names);
                ev(&o, kn, pid, 7, kts, kdur, NULL);
                scratch[nv++] = (iv){ kts, kts + kdur };
            }
            int64_t ats = s0 + 10000 + g * 1000;
            ev(&o,
               kineto ? "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
                      : "all-reduce.1",
               pid, 7, ats, ar, NULL);
            scratch[nv++] = (iv){ ats, ats + ar };
            coll[nc++] = (iv){ ats, ats + ar };
        }
        sf->ts = start;
        sf->dur = end - start;
        sf->busy = union_len(scratch, nv);
        sf->coll = union_len(coll, nc);
        t = end + 1 * MS;
    }
    fputs("\n]}\n", f);
}

/* ---- writing ---- */

static int mkdirs(const char *path)
{
    char tmp[4096];
    snprintf(tmp, sizeof tmp, "%s", path);
    for (char *p = tmp + 1; *p; p++) {
        if (*p != '/') continue;
        *p = 0;
        if (mkdir(tmp, 0755) != 0 && errno != EEXIST) return -1;
        *p = '/';
    }
    return mkdir(tmp, 0755) != 0 && errno != EEXIST ? -1 : 0;
}

static int fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gen_hosts: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 1;
}

static int write_host(const args *a, int h, int kineto, step_facts *facts, iv *scratch)
{
    char tmp[4096], dst[4096], name[32];
    snprintf(tmp, sizeof tmp, "%s/.gen_hosts.%d.json", a->out, h);
    FILE *f = fopen(tmp, "w");
    if (!f) return fail("%s: %s", tmp, strerror(errno));
    host_json(a, h, kineto, f, facts, scratch);
    if (fclose(f) != 0) return fail("%s: write failed", tmp);
    sts_timeline *tl = NULL;
    sts_error err = STS_ERROR_INIT;
    sts_open_options oo = STS_OPEN_OPTIONS_INIT;
    if (sts_timeline_open(tmp, &oo, &tl, &err) != STS_OK) {
        unlink(tmp);
        return fail("%s", err.message);
    }
    unlink(tmp);
    sts_write_options wo = STS_WRITE_OPTIONS_INIT;
    snprintf(name, sizeof name, "host%02d", h);
    wo.host = name;
    sts_status st;
    if (kineto) {
        snprintf(dst, sizeof dst, "%s/kineto/rank%d.json.gz", a->out, h);
        wo.gzip_level = 1;
        st = sts_write_chrome_json(tl, dst, &wo, &err);
    } else {
        snprintf(dst, sizeof dst, "%s/plugins/profile/%s/%s.xplane.pb", a->out, RUN_NAME, name);
        st = sts_write_xplane(tl, dst, &wo, &err);
    }
    sts_timeline_free(tl);
    return st == STS_OK ? 0 : fail("%s", err.message);
}

static void write_facts(FILE *f, const args *a, step_facts *all)
{
    fprintf(f, "{\"hosts\":[\n");
    for (int h = 0; h < a->hosts; h++) {
        fprintf(f, "%s{\"xplane_host\":\"host%02d\",\"kineto_host\":\"rank%d\",\"steps\":[", h ? ",\n" : "", h, h);
        for (int s = 0; s < a->steps; s++) {
            const step_facts *sf = &all[(size_t)h * (size_t)a->steps + (size_t)s];
            fprintf(f, "%s{\"step\":%d,\"dur_ns\":%" PRId64 ",\"children\":{", s ? "," : "", s, sf->dur);
            for (int c = 0; c < 5; c++)
                fprintf(f, "%s\"%s\":%" PRId64, c ? "," : "", child_names[c], sf->child[c]);
            fprintf(f, "},\"device_busy_ns\":%" PRId64 ",\"collective_ns\":%" PRId64 "}", sf->busy, sf->coll);
        }
        fprintf(f, "]}");
    }
    fprintf(f, "\n],\"planted\":[");
    int first = 1;
    for (int h = 0; h < a->hosts; h++) {
        for (int s = 0; s < a->steps; s++) {
            if (is_coll_step(a, h, s))
                fprintf(f,
                        "%s{\"host\":%d,\"step\":%d,\"kind\":\"collective\",\"name\":\"all-reduce\",\"extra_ns\":%lld}",
                        first ? "" : ",", h, s, (long long)COLL_EXTRA),
                    first = 0;
            if (is_input_step(a, h, s))
                fprintf(f, "%s{\"host\":%d,\"step\":%d,\"kind\":\"child\",\"name\":\"input\",\"extra_ns\":%lld}",
                        first ? "" : ",", h, s, (long long)INPUT_EXTRA),
                    first = 0;
        }
    }
    fprintf(f, "]}\n");
}

static int parse(int argc, char **argv, args *a)
{
    *a = (args){ 16, 20, 8, 50, 1, 1, 1, 1, NULL, NULL };
    for (int i = 1; i < argc; i++) {
        const char *s = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(s, "--no-plant") == 0) {
            a->plant = 0;
        } else if (strcmp(s, "--hosts") == 0 && v) {
            a->hosts = atoi(v), i++;
        } else if (strcmp(s, "--steps") == 0 && v) {
            a->steps = atoi(v), i++;
        } else if (strcmp(s, "--kernels") == 0 && v) {
            a->kernels = atoi(v), i++;
        } else if (strcmp(s, "--names") == 0 && v) {
            a->names = atoi(v), i++;
        } else if (strcmp(s, "--seed") == 0 && v) {
            a->seed = strtoull(v, NULL, 10), i++;
        } else if (strcmp(s, "--facts") == 0 && v) {
            a->facts = v, i++;
        } else if (strcmp(s, "--format") == 0 && v) {
            a->xplane = strcmp(v, "kineto") != 0;
            a->kineto = strcmp(v, "xplane") != 0;
            i++;
        } else if (s[0] != '-' && !a->out) {
            a->out = s;
        } else {
            return fail("usage: gen_hosts [--hosts N] [--steps N] [--kernels K] [--names M] [--seed S] "
                        "[--format xplane|kineto|both] [--no-plant] [--facts FILE] OUT");
        }
    }
    if (!a->out || a->hosts < 1 || a->steps < 1 || a->kernels < 2 || a->names < 1 || a->seed == 0)
        return fail("need OUT, --hosts >= 1, --steps >= 1, --kernels >= 2, --names >= 1, --seed >= 1");
    return 0;
}

int main(int argc, char **argv)
{
    args a;
    if (parse(argc, argv, &a) != 0) return 2;
    char dir[4096];
    snprintf(dir, sizeof dir, "%s/plugins/profile/%s", a.out, RUN_NAME);
    if ((a.xplane && mkdirs(dir) != 0) || mkdirs(a.out) != 0)
        return fail("%s: cannot create: %s", dir, strerror(errno));
    snprintf(dir, sizeof dir, "%s/kineto", a.out);
    if (a.kineto && mkdirs(dir) != 0) return fail("%s: cannot create: %s", dir, strerror(errno));
    step_facts *facts = calloc((size_t)a.hosts * (size_t)a.steps, sizeof *facts);
    iv *scratch = malloc(((size_t)GPUS * ((size_t)a.kernels + 1) * 2 + 4) * sizeof *scratch);
    if (!facts || !scratch) return fail("out of memory");
    int rc = 0;
    for (int h = 0; h < a.hosts && rc == 0; h++) {
        step_facts *hf = facts + (size_t)h * (size_t)a.steps;
        if (a.xplane) rc = write_host(&a, h, 0, hf, scratch);
        if (a.kineto && rc == 0) rc = write_host(&a, h, 1, hf, scratch);
    }
    if (rc == 0 && a.facts) {
        FILE *f = fopen(a.facts, "w");
        if (!f) return fail("%s: %s", a.facts, strerror(errno));
        write_facts(f, &a, facts);
        if (fclose(f) != 0) rc = fail("%s: write failed", a.facts);
    }
    free(facts);
    free(scratch);
    return rc;
}
