/* spec: what a specialization is made of. The key names everything that selects a
 * distinct program (device, options, array dtypes and shapes, static values) and
 * nothing else: dynamic scalars never enter it. The source starts with defines for
 * the same facts, so the kernel can size its loops at compile time. */
#include "spec/spec_impl.h"

#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int is_ident(const char *s)
{
    if (!s || !(isalpha((unsigned char)*s) || *s == '_')) return 0;
    for (; *s; s++)
        if (!isalnum((unsigned char)*s) && *s != '_') return 0;
    return 1;
}

static void upper(const char *s, char *out, size_t cap)
{
    size_t i = 0;
    for (; s[i] && i + 1 < cap; i++)
        out[i] = (char)toupper((unsigned char)s[i]);
    out[i] = 0;
}

sts_status sts_spec_static_text(const sts_fn *f, int i, const sts_fn_arg *a, char *buf, size_t cap, sts_error *err)
{
    const sts_fn_param *p = &f->params[i];
    switch (p->static_type) {
    case STS_STATIC_INT:
        if (!isfinite(a->number) || a->number != floor(a->number) || fabs(a->number) > 9e15)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: static argument '%s' must be an integer, got %g",
                                 f->name, p->name, a->number);
        snprintf(buf, cap, "%lld", (long long)a->number);
        return STS_OK;
    case STS_STATIC_BOOL:
        snprintf(buf, cap, "%s", a->number != 0 ? "True" : "False");
        return STS_OK;
    case STS_STATIC_ENUM:
        for (char **c = f->choices[i]; c && *c; c++)
            if (a->text && strcmp(*c, a->text) == 0) {
                snprintf(buf, cap, "%s", *c);
                return STS_OK;
            }
        {
            char list[256] = "";
            size_t pos = 0;
            for (char **c = f->choices[i]; c && *c && pos + 2 < sizeof list; c++)
                pos += (size_t)snprintf(list + pos, sizeof list - pos, "%s%s", pos ? ", " : "", *c);
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: static argument '%s' is '%s'; expected one of: %s",
                                 f->name, p->name, a->text ? a->text : "(none)", list);
        }
    case STS_STATIC_STRING:
        if (!is_ident(a->text) || strlen(a->text) >= cap)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1,
                                 "%s: static string argument '%s' must be an identifier (it becomes a define), got "
                                 "'%s'",
                                 f->name, p->name, a->text ? a->text : "(none)");
        snprintf(buf, cap, "%s", a->text);
        return STS_OK;
    }
    return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: parameter '%s' has an unknown static type", f->name,
                         p->name);
}

sts_status sts_spec_check_args(const sts_fn *f, const sts_fn_arg *args, int nargs, sts_error *err)
{
    if (nargs != f->nparams || (nargs && !args))
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: called with %d arguments; it takes %d", f->name, nargs,
                             f->nparams);
    char tmp[64];
    for (int i = 0; i < nargs; i++) {
        const sts_fn_param *p = &f->params[i];
        if (p->kind == STS_PARAM_ARRAY && !args[i].array)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: argument %d ('%s') must be an array", f->name, i,
                                 p->name);
        if (p->kind == STS_PARAM_ARRAY && sts_array_device(args[i].array) != f->dev)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: array '%s' lives on another device", f->name,
                                 p->name);
        if (p->kind == STS_PARAM_DYNAMIC && !isfinite(args[i].number) && p->dtype == STS_DTYPE_I32)
            return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: int argument '%s' is not finite", f->name, p->name);
        if (p->kind == STS_PARAM_STATIC) {
            sts_status st = sts_spec_static_text(f, i, &args[i], tmp, sizeof tmp, err);
            if (st != STS_OK) return st;
        }
    }
    return STS_OK;
}

static void array_text(const sts_array *a, sts_sbuf *b)
{
    sts_sbuf_printf(b, "%s[", sts_dtype_name(sts_array_dtype(a)));
    const int64_t *shape = sts_array_shape(a);
    for (int d = 0; d < sts_array_ndim(a); d++)
        sts_sbuf_printf(b, "%s%lld", d ? "," : "", (long long)shape[d]);
    sts_sbuf_puts(b, "]");
}

void sts_spec_key(const sts_fn *f, const sts_fn_arg *args, sts_sbuf *key)
{
    char tmp[64];
    sts_sbuf_printf(key, "device=%s;options=%s", sts_device_get_info(f->dev)->name, f->options ? f->options : "");
    for (int i = 0; i < f->nparams; i++) {
        const sts_fn_param *p = &f->params[i];
        sts_sbuf_printf(key, ";%s=", p->name);
        if (p->kind == STS_PARAM_ARRAY)
            array_text(args[i].array, key);
        else if (p->kind == STS_PARAM_DYNAMIC)
            sts_sbuf_printf(key, "%s dynamic", sts_dtype_name(p->dtype));
        else if (sts_spec_static_text(f, i, &args[i], tmp, sizeof tmp, NULL) == STS_OK)
            sts_sbuf_puts(key, tmp);
    }
}

static const char *cl_type(sts_dtype dt)
{
    return dt == STS_DTYPE_I32 ? "int" : "float";
}

static void defines(const sts_fn *f, const sts_fn_arg *args, sts_sbuf *src)
{
    char up[96], tmp[64];
    sts_sbuf_printf(src, "/* stepscope specialization of %s */\n", f->name);
    for (int i = 0; i < f->nparams; i++) {
        const sts_fn_param *p = &f->params[i];
        upper(p->name, up, sizeof up);
        if (p->kind == STS_PARAM_ARRAY) {
            const sts_array *a = args[i].array;
            const int64_t *shape = sts_array_shape(a);
            sts_sbuf_printf(src, "#define %s_T %s\n#define %s_NDIM %d\n#define %s_SIZE %zu\n", up,
                            cl_type(sts_array_dtype(a)), up, sts_array_ndim(a), up, sts_array_count(a));
            for (int d = 0; d < sts_array_ndim(a); d++)
                sts_sbuf_printf(src, "#define %s_DIM%d %lld\n", up, d, (long long)shape[d]);
        } else if (p->kind == STS_PARAM_DYNAMIC) {
            sts_sbuf_printf(src, "#define %s_T %s\n", up, cl_type(p->dtype));
        } else if (sts_spec_static_text(f, i, &args[i], tmp, sizeof tmp, NULL) == STS_OK) {
            if (p->static_type == STS_STATIC_INT)
                sts_sbuf_printf(src, "#define %s %s\n", up, tmp);
            else if (p->static_type == STS_STATIC_BOOL)
                sts_sbuf_printf(src, "#define %s %d\n", up, args[i].number != 0);
            else {
                int index = 0;
                for (char **c = f->choices[i]; c && *c && strcmp(*c, tmp) != 0; c++)
                    index++;
                if (p->static_type == STS_STATIC_ENUM) sts_sbuf_printf(src, "#define %s %d\n", up, index);
                sts_sbuf_printf(src, "#define %s_IS_%s 1\n", up, tmp);
            }
        }
    }
}

sts_status sts_spec_source(sts_fn *f, const sts_fn_arg *args, sts_sbuf *src, sts_error *err)
{
    defines(f, args, src);
    if (f->trace) {
        sts_fn_trace t = { f, args, src };
        sts_status st = f->trace(&t, f->user, err);
        if (st != STS_OK) return st;
    } else
        sts_sbuf_puts(src, f->source);
    if (src->oom) return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory writing its source", f->name);
    return STS_OK;
}

void sts_spec_argsigs(const sts_fn *f, const sts_fn_arg *args, sts_argsig *out, char text[][64])
{
    for (int i = 0; i < f->nparams; i++) {
        const sts_fn_param *p = &f->params[i];
        sts_argsig *s = &out[i];
        memset(s, 0, sizeof *s);
        s->name = p->name;
        s->kind = p->kind;
        s->ndim = -1;
        if (p->kind == STS_PARAM_ARRAY) {
            const sts_array *a = args[i].array;
            s->dtype = sts_dtype_name(sts_array_dtype(a));
            s->ndim = sts_array_ndim(a);
            for (int d = 0; d < s->ndim && d < STS_LEDGER_MAX_DIMS; d++)
                s->shape[d] = sts_array_shape(a)[d];
        } else if (p->kind == STS_PARAM_DYNAMIC)
            s->dtype = sts_dtype_name(p->dtype);
        else if (sts_spec_static_text(f, i, &args[i], text[i], 64, NULL) == STS_OK)
            s->value = text[i];
    }
}

/* ---- the trace context ---- */

static int find_param(const sts_fn *f, const char *name)
{
    for (int i = 0; i < f->nparams; i++)
        if (name && strcmp(f->params[i].name, name) == 0) return i;
    return -1;
}

sts_status sts_fn_trace_emit(sts_fn_trace *t, const char *text, sts_error *err)
{
    if (!t || !text) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "trace: no context or text");
    sts_sbuf_puts(t->src, text);
    return t->src->oom ? sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory", t->f->name) : STS_OK;
}

static sts_status dynamic_branch(const sts_fn_trace *t, int i, sts_error *err)
{
    const sts_fn_param *p = &t->f->params[i];
    return sts_error_set(err, STS_ERR_DYNAMIC_BRANCH, -1,
                         "%s: the host asked for the value of %s '%s' while specializing, but that value exists only "
                         "on the device when the call runs, so no host branch can depend on it (JAX raises "
                         "TracerBoolConversionError here). Select on the device instead (for example "
                         "'%s > 1.0f ? a : b' in the kernel), or declare '%s' static if the choice really changes "
                         "the program (each value then gets its own specialization)",
                         t->f->name, p->kind == STS_PARAM_ARRAY ? "array" : "dynamic argument", p->name, p->name,
                         p->name);
}

sts_status sts_fn_trace_static(sts_fn_trace *t, const char *param, int64_t *number, const char **text, sts_error *err)
{
    if (!t) return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "trace: no context");
    int i = find_param(t->f, param);
    if (i < 0)
        return sts_error_set(err, STS_ERR_INVALID_ARG, -1, "%s: no parameter named '%s'", t->f->name,
                             param ? param : "(null)");
    if (t->f->params[i].kind != STS_PARAM_STATIC) return dynamic_branch(t, i, err);
    const sts_fn_arg *a = &t->args[i];
    if (number) {
        if (t->f->params[i].static_type == STS_STATIC_ENUM) {
            int64_t index = 0;
            for (char **c = t->f->choices[i]; c && *c && strcmp(*c, a->text) != 0; c++)
                index++;
            *number = index;
        } else
            *number = (int64_t)a->number;
    }
    if (text) {
        const sts_fn_param *p = &t->f->params[i];
        *text = p->static_type == STS_STATIC_ENUM || p->static_type == STS_STATIC_STRING ? a->text
                : a->number != 0                                                         ? "True"
                                                                                         : "False";
        if (p->static_type == STS_STATIC_INT) *text = NULL; /* ints: use *number */
    }
    return STS_OK;
}

sts_status sts_fn_trace_host_value(sts_fn_trace *t, const char *param, double *value, sts_error *err)
{
    int64_t n = 0;
    sts_status st = sts_fn_trace_static(t, param, &n, NULL, err);
    if (st == STS_OK && value) *value = (double)n;
    return st;
}
