#include "cli.h"

#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* The long name of an option, without its "x|" short alias. */
static const char *long_name(const cli_opt *o)
{
    return o->name[0] && o->name[1] == '|' ? o->name + 2 : o->name;
}

static char short_name(const cli_opt *o)
{
    return o->name[0] && o->name[1] == '|' ? o->name[0] : 0;
}

void cli_usage(const cli_spec *spec, FILE *f)
{
    fprintf(f, "usage: stepscope %s %s\n", spec->command, spec->synopsis);
    if (spec->about) fprintf(f, "\n%s\n", spec->about);
    fprintf(f, "\noptions:\n");
    for (const cli_opt *o = spec->opts; o && o->name; o++) {
        char left[64];
        char alias[8] = "";
        if (short_name(o)) snprintf(alias, sizeof alias, "-%c, ", short_name(o));
        snprintf(left, sizeof left, "%s--%s%s%s", alias, long_name(o), o->metavar ? " " : "",
                 o->metavar ? o->metavar : "");
        fprintf(f, "  %-24s %s\n", left, o->help);
    }
    fprintf(f, "  %-24s %s\n", "-h, --help", "show this help");
    fprintf(f, "\nexit status: 0 ok, 1 bad input, 2 usage error\n");
}

static int usage_error(const cli_spec *spec, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static int usage_error(const cli_spec *spec, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fprintf(stderr, "stepscope %s: ", spec->command);
    cli_vsay(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    fprintf(stderr, "usage: stepscope %s %s\n(see 'stepscope %s --help')\n", spec->command, spec->synopsis,
            spec->command);
    return CLI_USAGE;
}

static int set_value(const cli_spec *spec, const cli_opt *o, const char *val)
{
    char *end;
    switch (o->kind) {
    case CLI_STRING:
        *(const char **)o->target = val;
        return 0;
    case CLI_INT: {
        errno = 0;
        long long v = strtoll(val, &end, 10);
        if (errno || end == val || *end || v < INT_MIN || v > INT_MAX)
            return usage_error(spec, "--%s expects an integer, got '%s'", long_name(o), val);
        *(int *)o->target = (int)v;
        return 0;
    }
    case CLI_DOUBLE: {
        errno = 0;
        double v = strtod(val, &end);
        if (errno || end == val || *end) return usage_error(spec, "--%s expects a number, got '%s'", long_name(o), val);
        *(double *)o->target = v;
        return 0;
    }
    case CLI_MULTI: {
        cli_list *l = o->target;
        if (l->n == CLI_LIST_MAX) return usage_error(spec, "--%s given more than %d times", o->name, CLI_LIST_MAX);
        l->v[l->n++] = val;
        return 0;
    }
    case CLI_FLAG:
        break;
    }
    return 0;
}

/* "unknown option", with the options that look like a typo of it. */
static int unknown_option(const cli_spec *spec, const char *name, size_t nlen)
{
    char word[64];
    snprintf(word, sizeof word, "%.*s", (int)nlen, name);
    const char *names[64];
    size_t n = 0;
    for (const cli_opt *o = spec->opts; o && o->name && n < 64; o++)
        names[n++] = o->name;
    size_t pick[3];
    size_t k = sts_suggest(word, names, n, pick, 3);
    if (!k) return usage_error(spec, "unknown option '--%.*s'", (int)nlen, name);
    char hint[256];
    size_t at = 0;
    for (size_t i = 0; i < k && at < sizeof hint; i++)
        at += (size_t)snprintf(hint + at, sizeof hint - at, "%s--%s", i ? ", " : "", names[pick[i]]);
    return usage_error(spec, "unknown option '--%.*s'; did you mean %s?", (int)nlen, name, hint);
}

int cli_parse(const cli_spec *spec, int argc, char **argv, const char **pos, int *npos)
{
    *npos = 0;
    int only_pos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (only_pos || a[0] != '-' || strcmp(a, "-") == 0) {
            if (*npos >= spec->max_pos) return usage_error(spec, "unexpected argument '%s'", a);
            pos[(*npos)++] = a;
            continue;
        }
        if (strcmp(a, "--") == 0) {
            only_pos = 1;
            continue;
        }
        if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) {
            cli_usage(spec, stdout);
            return CLI_OK;
        }
        if (a[1] != '-') {
            const cli_opt *o = spec->opts;
            while (o && o->name && short_name(o) != a[1])
                o++;
            if (!o || !o->name) return usage_error(spec, "unknown option '%s'", a);
            if (o->kind == CLI_FLAG) {
                if (a[2]) return usage_error(spec, "-%c takes no value", a[1]);
                *(int *)o->target = 1;
                continue;
            }
            const char *val = a[2] ? a + 2 : i + 1 < argc ? argv[++i] : NULL;
            if (!val) return usage_error(spec, "-%c needs a value (%s)", a[1], o->metavar);
            int rc = set_value(spec, o, val);
            if (rc != 0) return rc;
            continue;
        }
        const char *name = a + 2;
        const char *eq = strchr(name, '=');
        size_t nlen = eq ? (size_t)(eq - name) : strlen(name);
        const cli_opt *o = spec->opts;
        while (o && o->name && !(strlen(long_name(o)) == nlen && memcmp(long_name(o), name, nlen) == 0))
            o++;
        if (!o || !o->name) return unknown_option(spec, name, nlen);
        if (o->kind == CLI_FLAG) {
            if (eq) return usage_error(spec, "--%s takes no value", long_name(o));
            *(int *)o->target = 1;
            continue;
        }
        const char *val = eq ? eq + 1 : NULL;
        if (!val) {
            if (i + 1 >= argc) return usage_error(spec, "--%s needs a value (%s)", long_name(o), o->metavar);
            val = argv[++i];
        }
        int rc = set_value(spec, o, val);
        if (rc >= 0) {
            if (rc != 0) return rc;
        }
    }
    if (*npos < spec->min_pos) return usage_error(spec, "missing argument");
    return -1;
}

int cli_fail(int code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("stepscope: ", stderr);
    cli_vsay(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return code;
}

void cli_put_text(FILE *f, const char *s)
{
    sts_fmt_put_text(f, s, strlen(s));
}

void cli_vsay(FILE *f, const char *fmt, va_list ap)
{
    char small[512], *buf = small;
    va_list again;
    va_copy(again, ap);
    int n = vsnprintf(small, sizeof small, fmt, ap);
    if (n >= (int)sizeof small && (buf = malloc((size_t)n + 1)) != NULL) vsnprintf(buf, (size_t)n + 1, fmt, again);
    va_end(again);
    if (n < 0) return;
    if (!buf) buf = small, n = (int)sizeof small - 1; /* out of memory: the start of it */
    /* A newline is kept: the messages are lines, and it moves no cursor elsewhere. */
    for (const char *p = buf, *end = buf + n; p < end;) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        size_t len = nl ? (size_t)(nl - p) : (size_t)(end - p);
        sts_fmt_put_text(f, p, len);
        if (nl) fputc('\n', f);
        p += len + (nl != NULL);
    }
    if (buf != small) free(buf);
}

void cli_say(FILE *f, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    cli_vsay(f, fmt, ap);
    va_end(ap);
}

void cli_warn_text(const char *command, const char *message)
{
    fprintf(stderr, "stepscope %s: warning: ", command);
    cli_put_text(stderr, message);
    fputc('\n', stderr);
}

int cli_report(const char *command, const sts_error *err)
{
    fprintf(stderr, "stepscope %s: error: ", command);
    cli_put_text(stderr, err->message[0] ? err->message : sts_strerror(err->code));
    fputc('\n', stderr);
    return CLI_BAD_INPUT;
}

int cli_stdout_error(const char *command, int e)
{
    fprintf(stderr, "stepscope %s: error: cannot write to standard output: %s\n", command, strerror(e));
    return CLI_BAD_INPUT;
}

int cli_stdout_check(const char *command)
{
    int e = sts_stream_failure(stdout);
    return e ? cli_stdout_error(command, e) : CLI_OK;
}

int cli_stdout_finish(const char *command, int rc)
{
    return rc == CLI_OK ? cli_stdout_check(command) : rc;
}

int cli_need_opencl(const char *command)
{
    sts_error err = STS_ERROR_INIT;
    if (sts_device_require_opencl("this command", &err) == STS_OK) return -1;
    fprintf(stderr, "stepscope %s: error: %s\n", command, err.message);
    return CLI_NO_OPENCL;
}

int cli_json_finish(const char *command, sts_jsonw *j)
{
    sts_status st = sts_jsonw_finish(j);
    int e = sts_jsonw_errno(j);
    sts_jsonw_free(j);
    if (st == STS_OK) return CLI_OK;
    if (st == STS_ERR_IO) return cli_stdout_error(command, e);
    fprintf(stderr, "stepscope %s: error: writing the JSON output: %s\n", command, sts_strerror(st));
    return CLI_BAD_INPUT;
}
