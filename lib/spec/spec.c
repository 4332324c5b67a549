/* spec: specialized functions on a device. A call looks its key up; a miss traces
 * (writes the specialized source) and compiles (builds the program), each timed, and
 * every call becomes a ledger row. */
#include "spec/spec_impl.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/clock.h"

static char *dup(const char *s)
{
    if (!s) return NULL;
    size_t n = strlen(s) + 1;
    char *d = malloc(n);
    if (d) memcpy(d, s, n);
    return d;
}

static int is_ident(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

void sts_fn_free(sts_fn *f)
{
    if (!f) return;
    for (size_t i = 0; i < f->specs.n; i++)
        sts_kernel_free(f->specs.v[i].kernel);
    for (int i = 0; i < f->nparams; i++) {
        free(f->param_names[i]);
        for (char **c = f->choices[i]; c && *c; c++)
            free(*c);
        free(f->choices[i]);
    }
    STS_VEC_RELEASE(f->specs);
    free(f->name);
    free(f->source);
    free(f->options);
    sts_strtab_release(&f->keys);
    free(f);
}

static sts_status check_spec(const sts_fn_spec *s, sts_error *err)
{
    if (!s || !is_ident(s->name))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "specialized function: the name must be a C identifier");
    if (!s->source && !s->trace)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: needs source or a trace function", s->name);
    if (s->nparams < 1 || s->nparams > SPEC_MAX_PARAMS || !s->params)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: %d parameters (1..%d allowed)", s->name, s->nparams,
                             SPEC_MAX_PARAMS);
    for (int i = 0; i < s->nparams; i++) {
        const sts_fn_param *p = &s->params[i];
        if (!is_ident(p->name))
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: parameter %d needs a C identifier name", s->name,
                                 i);
        for (int j = 0; j < i; j++)
            if (strcmp(s->params[j].name, p->name) == 0)
                return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: parameter '%s' appears twice", s->name,
                                     p->name);
        if (p->kind == STS_PARAM_STATIC && p->static_type == STS_STATIC_ENUM && (!p->choices || !p->choices[0]))
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: enum parameter '%s' needs its choices", s->name,
                                 p->name);
        if ((unsigned)p->kind > STS_PARAM_STATIC)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: parameter '%s' has an unknown kind", s->name,
                                 p->name);
    }
    const int idx[2] = { s->grid, s->result };
    const char *what[2] = { "grid", "result" };
    for (int k = 0; k < 2; k++)
        if (idx[k] != -1 && (idx[k] < 0 || idx[k] >= s->nparams || s->params[idx[k]].kind != STS_PARAM_ARRAY))
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: %s must name an array parameter or be -1", s->name,
                                 what[k]);
    return STS_OK;
}

static int copy_choices(sts_fn *f, int i, const char *const *choices)
{
    size_t n = 0;
    while (choices && choices[n])
        n++;
    if (!n) return 0;
    f->choices[i] = calloc(n + 1, sizeof *f->choices[i]);
    if (!f->choices[i]) return -1;
    for (size_t k = 0; k < n; k++)
        if (!(f->choices[i][k] = dup(choices[k]))) return -1;
    return 0;
}

sts_status sts_fn_create(sts_device *dev, const sts_fn_spec *spec, sts_ledger *ledger, sts_fn **out, sts_error *err)
{
    *out = NULL;
    if (!dev || !ledger)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "specialized function: no device or ledger");
    sts_status st = check_spec(spec, err);
    if (st != STS_OK) return st;
    sts_fn *f = calloc(1, sizeof *f);
    if (!f || sts_strtab_init(&f->keys) != 0) {
        free(f);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", spec->name);
    }
    f->dev = dev;
    f->l = ledger;
    f->trace = spec->trace;
    f->user = spec->user;
    f->nparams = spec->nparams;
    f->grid = spec->grid;
    f->result = spec->result;
    int bad = !(f->name = dup(spec->name)) || (spec->source && !(f->source = dup(spec->source))) ||
              (spec->options && !(f->options = dup(spec->options)));
    for (int i = 0; i < spec->nparams && !bad; i++) {
        f->params[i] = spec->params[i];
        bad = !(f->param_names[i] = dup(spec->params[i].name)) || copy_choices(f, i, spec->params[i].choices) != 0;
        f->params[i].name = f->param_names[i];
        f->params[i].choices = NULL;
        if (f->params[i].kind == STS_PARAM_DYNAMIC && f->params[i].dtype != STS_DTYPE_I32)
            f->params[i].dtype = STS_DTYPE_F32;
    }
    if (bad) {
        sts_fn_free(f);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", spec->name);
    }
    *out = f;
    return STS_OK;
}

size_t sts_fn_specializations(const sts_fn *f)
{
    return f ? f->specs.n : 0;
}

static int log_compiles(void)
{
    const char *v = getenv("STEPSCOPE_LOG_COMPILES");
    return v && *v && strcmp(v, "0") != 0;
}

/* Traces and compiles a new specialization for `key`; fills the call's info. */
static sts_status specialize(sts_fn *f, const sts_fn_arg *args, const char *key, const char *sig,
                             sts_fn_call_info *info, sts_error *err)
{
    int64_t t0 = sts_clock_ns();
    sts_sbuf src = STS_SBUF_INIT;
    sts_status st = sts_spec_source(f, args, &src, err);
    info->trace_ns = sts_clock_ns() - t0;
    info->traces = 1;
    if (log_compiles() && st == STS_OK)
        fprintf(stderr, "stepscope: Finished tracing %s for %s in %.9f sec\n", f->name, sig,
                (double)info->trace_ns / 1e9);
    else if (log_compiles())
        fprintf(stderr, "stepscope: Tracing %s for %s failed after %.9f sec: %s\n", f->name, sig,
                (double)info->trace_ns / 1e9, sts_status_name(st));
    if (st != STS_OK) {
        sts_sbuf_release(&src);
        return st;
    }
    int64_t t1 = sts_clock_ns();
    sts_program *prog = NULL;
    sts_build_info bi;
    memset(&bi, 0, sizeof bi);
    st = sts_program_build(f->dev, src.p, src.n, f->options, &prog, &bi, err);
    sts_sbuf_release(&src);
    sts_kernel *k = NULL;
    if (st == STS_OK) st = sts_kernel_create(prog, f->name, &k, err);
    info->compile_ns = sts_clock_ns() - t1;
    /* A program the device already built from the same text costs no compile. */
    info->compiles = st == STS_OK && !bi.cache_hit;
    if (log_compiles() && st == STS_OK)
        fprintf(stderr, "stepscope: Finished compiling %s in %.9f sec%s\n", f->name, (double)info->compile_ns / 1e9,
                bi.cache_hit ? " (the device's program cache already held it)" : "");
    if (st != STS_OK) return st;
    spec_entry *e = STS_VEC_PUSH(f->specs);
    if (!e || sts_strtab_intern(&f->keys, key, strlen(key)) != (uint32_t)f->specs.n) {
        if (e) f->specs.n--;
        sts_kernel_free(k);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", f->name);
    }
    e->kernel = k;
    return STS_OK;
}

static sts_status launch(sts_fn *f, sts_kernel *k, const sts_fn_arg *args, sts_event **ev, sts_error *err)
{
    unsigned ai = 0;
    sts_status st = STS_OK;
    for (int i = 0; i < f->nparams && st == STS_OK; i++) {
        const sts_fn_param *p = &f->params[i];
        if (p->kind == STS_PARAM_ARRAY)
            st = sts_kernel_set_array(k, ai++, args[i].array, err);
        else if (p->kind == STS_PARAM_DYNAMIC && p->dtype == STS_DTYPE_I32)
            st = sts_kernel_set_i32(k, ai++, (int32_t)args[i].number, err);
        else if (p->kind == STS_PARAM_DYNAMIC)
            st = sts_kernel_set_f32(k, ai++, (float)args[i].number, err);
    }
    if (st != STS_OK) return st;
    size_t global = f->grid >= 0 ? sts_array_count(args[f->grid].array) : 1;
    st = sts_kernel_enqueue(k, 1, &global, NULL, ev, err);
    if (st != STS_OK) return st;
    /* Any array may be written: each one's readiness now includes this launch. */
    for (int i = 0; i < f->nparams; i++)
        if (f->params[i].kind == STS_PARAM_ARRAY) sts_array_set_event(args[i].array, *ev);
    return STS_OK;
}

static sts_status finish_call(sts_fn *f, const sts_fn_arg *args, const char *label, unsigned flags, sts_event *ev,
                              sts_fn_call_info *info, sts_error *err)
{
    sts_status st = STS_OK;
    if (flags & STS_FN_RESULT && f->result >= 0) {
        char what[160];
        snprintf(what, sizeof what, "%s result%s%s", f->name, label ? ": " : "", label ? label : "");
        st = sts_ledger_scalar(f->l, what, "call results", args[f->result].array, &info->result, err);
        info->has_result = st == STS_OK;
    } else if (flags & (STS_FN_WAIT | STS_FN_RESULT))
        st = sts_event_wait(ev, err);
    return st;
}

static void record_row(sts_fn *f, const sts_fn_arg *args, const char *label, const sts_fn_call_info *info)
{
    sts_argsig sigs[SPEC_MAX_PARAMS];
    char text[SPEC_MAX_PARAMS][64];
    sts_spec_argsigs(f, args, sigs, text);
    sts_ledger_call c = STS_LEDGER_CALL_INIT;
    c.function = f->name;
    c.label = label;
    c.args = sigs;
    c.nargs = f->nparams;
    c.traces = info->traces;
    c.compiles = info->compiles;
    c.hit = info->hit;
    c.trace_ns = info->traces ? info->trace_ns : -1;
    c.compile_ns = info->traces ? info->compile_ns : -1;
    c.total_ns = info->total_ns;
    c.has_result = info->has_result;
    c.result = info->result;
    sts_ledger_add_call(f->l, &c, NULL);
}

sts_status sts_fn_call(sts_fn *f, const sts_fn_arg *args, int nargs, const char *label, unsigned flags, sts_event **ev,
                       sts_fn_call_info *info, sts_error *err)
{
    sts_fn_call_info local;
    if (!info) info = &local;
    memset(info, 0, sizeof *info);
    info->total_ns = -1;
    if (ev) *ev = NULL;
    if (!f) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "no function");
    int64_t t0 = sts_clock_ns();
    sts_status st = sts_spec_check_args(f, args, nargs, err);
    if (st != STS_OK) return st;
    sts_sbuf key = STS_SBUF_INIT;
    sts_spec_key(f, args, &key);
    if (key.oom) {
        sts_sbuf_release(&key);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", f->name);
    }
    uint32_t id = sts_strtab_find(&f->keys, key.p ? key.p : "", key.n);
    info->hit = id != UINT32_MAX;
    if (!info->hit) {
        sts_argsig sigs[SPEC_MAX_PARAMS];
        char text[SPEC_MAX_PARAMS][64];
        sts_sbuf sig = STS_SBUF_INIT;
        sts_spec_argsigs(f, args, sigs, text);
        sts_lg_format_sig(sigs, f->nparams, &sig);
        st = specialize(f, args, key.p ? key.p : "", sig.p ? sig.p : "", info, err);
        sts_sbuf_release(&sig);
        id = (uint32_t)f->specs.n;
    }
    sts_sbuf_release(&key);
    if (st != STS_OK) return st;
    sts_event *e = NULL;
    st = launch(f, f->specs.v[id - 1].kernel, args, &e, err);
    if (st == STS_OK) st = finish_call(f, args, label, flags, e, info, err);
    if (st == STS_OK && flags & (STS_FN_WAIT | STS_FN_RESULT)) info->total_ns = sts_clock_ns() - t0;
    if (st == STS_OK) record_row(f, args, label, info);
    if (ev && st == STS_OK)
        *ev = e;
    else
        sts_event_release(e);
    return st;
}
