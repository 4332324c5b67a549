/* Which files are which hosts: profile directories expanded to every host of their run
 * (read/profile.h enumerates them), files named by their stem, in a stable order. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "base/vec.h"
#include "hosts/hosts_impl.h"
#include "read/profile.h"

struct sts_hostset {
    STS_VEC(sts_host_file) files; /* strings malloc'd */
    STS_VEC(char *) notes;
    char *run;
    int run_mixed;
};

void sts_hostset_free(sts_hostset *set)
{
    if (!set) return;
    for (size_t i = 0; i < set->files.n; i++) {
        free((char *)set->files.v[i].path);
        free((char *)set->files.v[i].name);
    }
    STS_VEC_RELEASE(set->files);
    for (size_t i = 0; i < set->notes.n; i++)
        free(set->notes.v[i]);
    STS_VEC_RELEASE(set->notes);
    free(set->run);
    free(set);
}

const sts_host_file *sts_hostset_files(const sts_hostset *set, size_t *n)
{
    if (n) *n = set->files.n;
    return set->files.v;
}

const char *const *sts_hostset_notes(const sts_hostset *set, size_t *n)
{
    if (n) *n = set->notes.n;
    return (const char *const *)set->notes.v;
}

const char *sts_hostset_run(const sts_hostset *set)
{
    return set->run_mixed ? NULL : set->run;
}

static int add_file(sts_hostset *set, const char *path, const char *name, uint64_t size)
{
    char *p = strdup(path), *n = strdup(name);
    sts_host_file *f = p && n ? STS_VEC_PUSH(set->files) : NULL;
    if (!f) {
        free(p);
        free(n);
        return -1;
    }
    f->path = p;
    f->name = n;
    f->size = size;
    return 0;
}

sts_status sts_hostset_from(const sts_host_file *files, size_t n, sts_hostset **out, sts_error *err)
{
    *out = NULL;
    sts_hostset *set = calloc(1, sizeof *set);
    if (!set) return sts_hosts_nomem(err);
    for (size_t i = 0; i < n; i++) {
        if (add_file(set, files[i].path ? files[i].path : "", files[i].name ? files[i].name : "", files[i].size) != 0) {
            sts_hostset_free(set);
            return sts_hosts_nomem(err);
        }
    }
    *out = set;
    return STS_OK;
}

/* ---- names and order ------------------------------------------------------------------ */

static int ends_with(const char *s, size_t n, const char *suffix)
{
    size_t m = strlen(suffix);
    return n >= m && memcmp(s + n - m, suffix, m) == 0;
}

/* The host name a path gives: its last component less the trace suffix. */
static char *stem(const char *path)
{
    const char *b = strrchr(path, '/');
    b = b ? b + 1 : path;
    size_t n = strlen(b);
    if (ends_with(b, n, ".gz")) n -= 3;
    static const char *const suffixes[] = { ".xplane.pb", ".pt.trace.json", ".trace.json", ".json" };
    for (size_t i = 0; i < sizeof suffixes / sizeof suffixes[0]; i++) {
        if (ends_with(b, n, suffixes[i]) && n > strlen(suffixes[i])) {
            n -= strlen(suffixes[i]);
            break;
        }
    }
    /* A PyTorch profiler file, WORKER.TIME.pt.trace.json: the host is the worker. */
    size_t worker = sts_profile_torch_worker(b, NULL);
    if (worker) n = worker;
    char *s = malloc(n + 1);
    if (!s) return NULL;
    memcpy(s, b, n);
    s[n] = 0;
    return s;
}

static int is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* Byte order, except that runs of digits compare as numbers (host2 < host10). */
static int natural_cmp(const char *a, const char *b)
{
    while (*a && *b) {
        if (is_digit(*a) && is_digit(*b)) {
            while (*a == '0' && is_digit(a[1]))
                a++;
            while (*b == '0' && is_digit(b[1]))
                b++;
            size_t na = 0, nb = 0;
            while (is_digit(a[na]))
                na++;
            while (is_digit(b[nb]))
                nb++;
            if (na != nb) return na < nb ? -1 : 1;
            int c = memcmp(a, b, na);
            if (c) return c;
            a += na;
            b += nb;
            continue;
        }
        if (*a != *b) return (unsigned char)*a < (unsigned char)*b ? -1 : 1;
        a++;
        b++;
    }
    return (unsigned char)*a - (unsigned char)*b;
}

static int cmp_hosts(const void *x, const void *y)
{
    const sts_host_file *a = x, *b = y;
    int c = natural_cmp(a->name, b->name);
    if (c == 0) c = strcmp(a->name, b->name);
    return c ? c : strcmp(a->path, b->path);
}

/* Names from stems; a stem two files share names each of them by its path. */
static int name_hosts(sts_hostset *set)
{
    size_t n = set->files.n;
    char **stems = calloc(n ? n : 1, sizeof *stems);
    if (!stems) return -1;
    int bad = 0;
    for (size_t i = 0; i < n && !bad; i++)
        bad = !(stems[i] = stem(set->files.v[i].path));
    unsigned char *shared = bad ? NULL : calloc(n ? n : 1, 1);
    bad = bad || !shared;
    for (size_t i = 0; i < n && !bad; i++)
        for (size_t j = i + 1; j < n; j++)
            if (strcmp(stems[i], stems[j]) == 0) shared[i] = shared[j] = 1;
    for (size_t i = 0; i < n && !bad; i++) {
        char *name = shared[i] ? strdup(set->files.v[i].path) : stems[i];
        if (!name) {
            bad = 1;
            break;
        }
        if (shared[i]) free(stems[i]);
        stems[i] = NULL;
        free((char *)set->files.v[i].name);
        set->files.v[i].name = name;
    }
    for (size_t i = 0; i < n; i++)
        free(stems[i]);
    free(stems);
    free(shared);
    return bad ? -1 : 0;
}

/* ---- expansion ---------------------------------------------------------------------------- */

static sts_status note(sts_hostset *set, sts_error *err, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static sts_status note(sts_hostset *set, sts_error *err, const char *fmt, ...)
{
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    char *copy = strdup(buf);
    char **slot = copy ? STS_VEC_PUSH(set->notes) : NULL;
    if (!slot) {
        free(copy);
        return sts_hosts_nomem(err);
    }
    *slot = copy;
    return STS_OK;
}

static const char *kind_glob(sts_profile_kind k)
{
    return k == STS_PROFILE_XPLANE       ? "*.xplane.pb"
           : k == STS_PROFILE_TRACE_JSON ? "*.trace.json.gz, *.pt.trace.json"
                                         : "perfetto_trace.json.gz";
}

static sts_status remember_run(sts_hostset *set, const char *run, sts_error *err)
{
    if (set->run) {
        if (strcmp(set->run, run) != 0) set->run_mixed = 1;
        return STS_OK;
    }
    set->run = strdup(run);
    return set->run ? STS_OK : sts_hosts_nomem(err);
}

/* Every host of the run that sts_profile_locate() finds in `dir`. */
static sts_status expand_dir(sts_hostset *set, const char *dir, const char *run, sts_error *err)
{
    sts_profile_pick pick;
    sts_status st = sts_profile_locate(dir, run, &pick, err);
    if (st != STS_OK) return st;
    char run_dir[4096];
    snprintf(run_dir, sizeof run_dir, "%s", pick.file);
    char *slash = strrchr(run_dir, '/');
    if (slash) *slash = 0;
    sts_profile_files files = { 0 };
    st = sts_profile_list_files(run_dir, &files, err);
    sts_profile_kind kind = STS_PROFILE_XPLANE;
    const char *picked = slash ? slash + 1 : pick.file; /* the file's name is still there */
    for (size_t i = 0; st == STS_OK && i < files.n; i++)
        if (strcmp(files.v[i].name, picked) == 0) kind = files.v[i].kind;
    size_t added = 0;
    for (size_t i = 0; st == STS_OK && i < files.n; i++) {
        if (files.v[i].kind != kind) continue;
        char full[4096];
        if (snprintf(full, sizeof full, "%s/%s", run_dir, files.v[i].name) >= (int)sizeof full)
            st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: path too long", run_dir);
        else if (add_file(set, full, "", files.v[i].size) != 0)
            st = sts_hosts_nomem(err);
        added++;
        if (kind == STS_PROFILE_PERFETTO_JSON) break; /* one file holds the run */
    }
    size_t superseded = files.superseded;
    sts_profile_files_release(&files);
    if (st != STS_OK) return st;
    if (st == STS_OK) st = remember_run(set, pick.run, err);
    if (st != STS_OK) return st;
    char which[128] = "";
    if (pick.runs && pick.latest)
        snprintf(which, sizeof which, " (the latest of %zu run%s)", pick.runs, pick.runs == 1 ? "" : "s");
    else if (pick.runs)
        snprintf(which, sizeof which, " (chosen with --run; %zu run%s)", pick.runs, pick.runs == 1 ? "" : "s");
    char older[160] = "";
    if (superseded)
        snprintf(older, sizeof older, "; %zu older PyTorch profiler trace%s of the same worker%s left out", superseded,
                 superseded == 1 ? "" : "s", added == 1 ? "" : "s");
    return note(set, err, "%s: run %s%s, %zu host%s (%s)%s", dir, pick.run, which, added, added == 1 ? "" : "s",
                kind_glob(kind), older);
}

static int is_dir(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* An input as check_twice compares it: a regular file by device and inode, anything
 * else ("-", a FIFO, a missing file) by its name. */
typedef struct input_id {
    int regular;
    unsigned long long dev, ino;
    const char *path;
    size_t index;
} input_id;

static int cmp_input_id(const void *pa, const void *pb)
{
    const input_id *a = pa, *b = pb;
    if (a->regular != b->regular) return a->regular < b->regular ? -1 : 1;
    int c = a->regular ? (a->dev != b->dev   ? (a->dev < b->dev ? -1 : 1)
                          : a->ino != b->ino ? (a->ino < b->ino ? -1 : 1)
                                             : 0)
                       : strcmp(a->path, b->path);
    if (c) return c;
    return a->index < b->index ? -1 : a->index > b->index;
}

/* Two inputs that are one file (same device and inode, or the same "-"). Each input
 * is looked at once and the names sorted, so thousands of hosts cost n log n: every
 * pair was compared, with a stat each (4,000 hosts took 8 million stats and 14 s).
 * The pair named is the one the pairwise search found first: the earliest input that
 * has a twin, with its earliest twin. */
static sts_status check_twice(const sts_hostset *set, sts_error *err)
{
    size_t n = set->files.n;
    if (n < 2) return STS_OK;
    input_id *ids = malloc(n * sizeof *ids);
    if (!ids) return sts_hosts_nomem(err);
    for (size_t i = 0; i < n; i++) {
        struct stat st;
        ids[i].path = set->files.v[i].path;
        ids[i].index = i;
        ids[i].regular = stat(ids[i].path, &st) == 0 && S_ISREG(st.st_mode);
        ids[i].dev = ids[i].regular ? (unsigned long long)st.st_dev : 0;
        ids[i].ino = ids[i].regular ? (unsigned long long)st.st_ino : 0;
    }
    qsort(ids, n, sizeof *ids, cmp_input_id);
    size_t first = SIZE_MAX, twin = SIZE_MAX;
    for (size_t k = 0; k + 1 < n; k++) {
        input_id a = ids[k], b = ids[k + 1];
        a.index = b.index = 0;
        if (cmp_input_id(&a, &b) != 0) continue;
        if (k > 0) { /* only a group's first two: its earliest input and that one's earliest twin */
            input_id c = ids[k - 1];
            c.index = 0;
            if (cmp_input_id(&c, &a) == 0) continue;
        }
        if (ids[k].index < first) first = ids[k].index, twin = ids[k + 1].index;
    }
    free(ids);
    if (first == SIZE_MAX) return STS_OK;
    return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s and %s are the same file: name each host once",
                         set->files.v[first].path, set->files.v[twin].path);
}

sts_status sts_hostset_expand(const char *const *inputs, size_t n, const char *run, sts_hostset **out, sts_error *err)
{
    *out = NULL;
    sts_hostset *set = calloc(1, sizeof *set);
    if (!set) return sts_hosts_nomem(err);
    sts_status st = n ? STS_OK : sts_error_set(err, STS_ERR_INVALID_ARG, -1, "no trace given");
    int dirs = 0;
    for (size_t i = 0; i < n && st == STS_OK; i++) {
        const char *in = inputs[i];
        if (strcmp(in, "-") == 0 && n > 1) {
            st = sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                               "'-' (standard input) among %zu inputs: standard input holds one trace; name the "
                               "hosts' files",
                               n);
        } else if (strcmp(in, "-") != 0 && is_dir(in)) {
            dirs++;
            st = expand_dir(set, in, run, err);
        } else {
            struct stat s;
            uint64_t size = stat(in, &s) == 0 && S_ISREG(s.st_mode) ? (uint64_t)s.st_size : 0;
            if (add_file(set, in, "", size) != 0) st = sts_hosts_nomem(err);
        }
    }
    if (st == STS_OK && run && !dirs)
        st = sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: a run (%s) can only be chosen in a profile directory",
                           inputs[0], run);
    if (st == STS_OK) st = check_twice(set, err);
    if (st == STS_OK && name_hosts(set) != 0) st = sts_hosts_nomem(err);
    if (st != STS_OK) {
        sts_hostset_free(set);
        return st;
    }
    if (set->files.n > 1) qsort(set->files.v, set->files.n, sizeof *set->files.v, cmp_hosts);
    *out = set;
    return STS_OK;
}

/* ---- dividing the hosts among processes -------------------------------------------------- */

typedef struct sized {
    uint64_t size;
    size_t index;
} sized;

/* Largest first, ties by set order. */
static int cmp_sized(const void *a, const void *b)
{
    const sized *x = a, *y = b;
    if (x->size != y->size) return x->size > y->size ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

void sts_hostset_assign(const sts_hostset *set, size_t parts, uint32_t *part_of)
{
    size_t n = set->files.n;
    if (parts == 0) parts = 1;
    uint64_t *load = calloc(parts, sizeof *load);
    sized *order = malloc((n ? n : 1) * sizeof *order);
    if (!load || !order) { /* without memory, round robin is still a division */
        for (size_t i = 0; i < n; i++)
            part_of[i] = (uint32_t)(i % parts);
        free(load);
        free(order);
        return;
    }
    for (size_t i = 0; i < n; i++)
        order[i] = (sized){ set->files.v[i].size ? set->files.v[i].size : 1, i };
    if (n > 1) qsort(order, n, sizeof *order, cmp_sized);
    for (size_t k = 0; k < n; k++) {
        size_t best = 0;
        for (size_t p = 1; p < parts; p++)
            if (load[p] < load[best]) best = p;
        part_of[order[k].index] = (uint32_t)best;
        load[best] += order[k].size;
    }
    free(load);
    free(order);
}
