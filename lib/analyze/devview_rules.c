/* The device view's rule table: which device-lane slices are work, and of what
 * category. One line per rule, `CATEGORY COND [and COND]...`, the first rule whose
 * conditions all hold deciding (grammar and built-in table in docs/device.md). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/devview_impl.h"

/* Keep in step with docs/device.md ("The built-in rules"). */
static const char builtin[] =
    "# Not device work: spans and waits drawn on a stream's lane.\n"
    "ignore         cat is gpu_user_annotation      # Kineto: a user annotation's span on the GPU\n"
    "ignore         cat is cuda_sync                # Kineto: the host waiting on a stream or event\n"
    "# Communication: collectives by name, and XLA's own category where the trace has it.\n"
    "communication  name collective                 # ncclDevKernel_AllReduce_..., all-reduce.3, ...\n"
    "communication  name matches ^(nccl|rccl).*Kernel  # any other NCCL/RCCL kernel (HTA's rule)\n"
    "communication  arg:hlo_category collective\n"
    "# Memory.\n"
    "memcpy         cat is gpu_memcpy               # direction from the name: Memcpy HtoD, DtoH, DtoD\n"
    "memcpy         name prefix Memcpy\n"
    "memset         cat is gpu_memset\n"
    "memset         name prefix Memset\n"
    "memcpy.htod    name is write and lane prefix \"queue \"  # the recorder's OpenCL array writes\n"
    "memcpy.dtoh    name is read and lane prefix \"queue \"   # and reads\n"
    "# Everything else on a device lane is a kernel.\n"
    "compute        any\n";

const char *sts_devview_rules_builtin_text(void)
{
    return builtin;
}

const char *sts_devview_category_name(sts_devview_category c)
{
    static const char *const names[] = { "compute", "communication", "memcpy", "memset", "other" };
    return (unsigned)c < STS_DV_CATEGORIES ? names[c] : NULL;
}

const char *sts_devview_direction_name(sts_devview_direction d)
{
    static const char *const names[] = { "htod", "dtoh", "dtod", "other" };
    return (unsigned)d < STS_DV_DIRECTIONS ? names[d] : NULL;
}

static int has(const char *s, const char *w)
{
    return strstr(s, w) != NULL;
}

sts_devview_direction sts_dv_direction_from_name(const char *name)
{
    if (has(name, "HtoD") || has(name, "H2D")) return STS_DV_HTOD;
    if (has(name, "DtoH") || has(name, "D2H")) return STS_DV_DTOH;
    if (has(name, "DtoD") || has(name, "D2D") || has(name, "PtoP") || has(name, "P2P")) return STS_DV_DTOD;
    return STS_DV_DIR_OTHER;
}

int sts_dv_cond_test(const dv_cond *c, const char *text, size_t n)
{
    switch (c->test) {
    case DV_T_ANY:
        return 1;
    case DV_T_IS:
        return n == c->value_len && memcmp(text, c->value, n) == 0;
    case DV_T_PREFIX:
        return n >= c->value_len && memcmp(text, c->value, c->value_len) == 0;
    case DV_T_CONTAINS:
        return strstr(text, c->value) != NULL;
    case DV_T_MATCHES:
        return regexec(&c->re, text, 0, NULL, 0) == 0;
    case DV_T_COLLECTIVE:
        return sts_collective_kind(text) != NULL;
    default:
        return 0;
    }
}

/* ---- parsing ---------------------------------------------------------------------- */

typedef struct parser {
    const char *name; /* the table's name in messages */
    uint32_t line;
    const char *p, *end; /* the rest of the line */
    char word[1024];
    size_t word_len;
    int quoted;
    sts_devview_rules *r;
    sts_error *err;
} parser;

static sts_status fail(parser *ps, const char *msg)
{
    return sts_error_set(ps->err, STS_ERR_PARSE, -1, "%s:%u: %s", ps->name, ps->line, msg);
}

/* The same, ending "got 'WORD'" (cut to 80 bytes). */
static sts_status fail_got(parser *ps, const char *msg)
{
    return sts_error_set(ps->err, STS_ERR_PARSE, -1, "%s:%u: %s, got '%.80s'", ps->name, ps->line, msg, ps->word);
}

/* The next word of the line: 1, 0 at its end (or a comment), -1 on a bad quote. */
static int next_word(parser *ps)
{
    while (ps->p < ps->end && (*ps->p == ' ' || *ps->p == '\t' || *ps->p == '\r'))
        ps->p++;
    ps->word_len = 0;
    ps->quoted = 0;
    if (ps->p >= ps->end || *ps->p == '#') return 0;
    if (*ps->p == '"') {
        ps->quoted = 1;
        for (ps->p++; ps->p < ps->end; ps->p++) {
            char ch = *ps->p;
            if (ch == '"') {
                ps->p++;
                ps->word[ps->word_len] = 0;
                return 1;
            }
            if (ch == '\\' && ps->p + 1 < ps->end) ch = *++ps->p;
            if (ps->word_len + 1 >= sizeof ps->word) return -1;
            ps->word[ps->word_len++] = ch;
        }
        return -1;
    }
    while (ps->p < ps->end && *ps->p != ' ' && *ps->p != '\t' && *ps->p != '\r' && *ps->p != '#') {
        if (ps->word_len + 1 >= sizeof ps->word) return -1;
        ps->word[ps->word_len++] = *ps->p++;
    }
    ps->word[ps->word_len] = 0;
    return 1;
}

static int word_is(const parser *ps, const char *w)
{
    return !ps->quoted && strcmp(ps->word, w) == 0;
}

static const struct {
    const char *name;
    uint8_t category, direction;
} categories[] = {
    { "compute", STS_DV_COMPUTE, 0 },
    { "communication", STS_DV_COMMUNICATION, 0 },
    { "memcpy", STS_DV_MEMCPY, DV_DIR_FROM_NAME },
    { "memcpy.htod", STS_DV_MEMCPY, STS_DV_HTOD },
    { "memcpy.dtoh", STS_DV_MEMCPY, STS_DV_DTOH },
    { "memcpy.dtod", STS_DV_MEMCPY, STS_DV_DTOD },
    { "memcpy.other", STS_DV_MEMCPY, STS_DV_DIR_OTHER },
    { "memset", STS_DV_MEMSET, 0 },
    { "other", STS_DV_OTHER, 0 },
    { "ignore", DV_IGNORE, 0 },
};

static char *dup_n(const char *s, size_t n)
{
    char *d = malloc(n + 1);
    if (d) {
        memcpy(d, s, n);
        d[n] = 0;
    }
    return d;
}

static sts_status nomem(parser *ps)
{
    return sts_error_set(ps->err, STS_ERR_NOMEM, -1, "%s: out of memory reading the device rules", ps->name);
}

static sts_status add_arg_key(parser *ps, const char *key)
{
    for (size_t i = 0; i < ps->r->arg_keys.n; i++)
        if (strcmp(ps->r->arg_keys.v[i], key) == 0) return STS_OK;
    char **slot = STS_VEC_PUSH(ps->r->arg_keys);
    if (!slot || !(*slot = strdup(key))) return nomem(ps);
    return STS_OK;
}

/* One condition, its first word already read. */
static sts_status read_cond(parser *ps, dv_cond *c)
{
    if (word_is(ps, "any")) {
        c->field = DV_F_ANY;
        c->test = DV_T_ANY;
        return STS_OK;
    }
    if (word_is(ps, "name"))
        c->field = DV_F_NAME;
    else if (word_is(ps, "cat"))
        c->field = DV_F_CAT;
    else if (word_is(ps, "lane"))
        c->field = DV_F_LANE;
    else if (word_is(ps, "process"))
        c->field = DV_F_PROCESS;
    else if (!ps->quoted && strncmp(ps->word, "arg:", 4) == 0 && ps->word[4]) {
        c->field = DV_F_ARG;
        if (!(c->key = strdup(ps->word + 4))) return nomem(ps);
        sts_status st = add_arg_key(ps, c->key);
        if (st != STS_OK) return st;
    } else
        return fail_got(ps, "expected a field (name, cat, lane, process, arg:KEY) or any");
    int k = next_word(ps);
    if (k <= 0) return fail(ps, "expected a test (is, prefix, contains, matches, collective) after the field");
    if (word_is(ps, "is"))
        c->test = DV_T_IS;
    else if (word_is(ps, "prefix"))
        c->test = DV_T_PREFIX;
    else if (word_is(ps, "contains"))
        c->test = DV_T_CONTAINS;
    else if (word_is(ps, "matches"))
        c->test = DV_T_MATCHES;
    else if (word_is(ps, "collective")) {
        c->test = DV_T_COLLECTIVE;
        return STS_OK;
    } else
        return fail_got(ps, "expected a test (is, prefix, contains, matches, collective)");
    k = next_word(ps);
    if (k < 0) return fail(ps, "a quoted value does not end (or is longer than 1023 bytes)");
    if (k == 0) return fail(ps, "expected a value after the test");
    if (!(c->value = dup_n(ps->word, ps->word_len))) return nomem(ps);
    c->value_len = ps->word_len;
    if (c->test == DV_T_MATCHES) {
        int rc = regcomp(&c->re, c->value, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char why[160];
            regerror(rc, &c->re, why, sizeof why);
            return sts_error_set(ps->err, STS_ERR_PARSE, -1,
                                 "%s:%u: '%.200s' is not an extended regular expression: %s", ps->name, ps->line,
                                 c->value, why);
        }
        c->has_re = 1;
    }
    return STS_OK;
}

/* The rule as written, its words single-spaced and values quoted where needed. */
static char *rule_text(const char *start, const char *end)
{
    while (end > start && (end[-1] == ' ' || end[-1] == '\t' || end[-1] == '\r'))
        end--;
    return dup_n(start, (size_t)(end - start));
}

/* Where the rule's text ends: before a comment outside quotes. */
static const char *text_end(const char *p, const char *end)
{
    int q = 0;
    for (; p < end; p++) {
        if (q && *p == '\\' && p + 1 < end)
            p++;
        else if (*p == '"')
            q = !q;
        else if (!q && *p == '#')
            return p;
    }
    return end;
}

static sts_status read_line(parser *ps)
{
    const char *start = ps->p;
    int k = next_word(ps);
    if (k < 0) return fail(ps, "a quoted word does not end");
    if (k == 0) return STS_OK; /* blank or comment */
    size_t c = 0, nc = sizeof categories / sizeof categories[0];
    while (c < nc && !word_is(ps, categories[c].name))
        c++;
    if (c == nc)
        return fail_got(ps, "expected a category (compute, communication, memcpy, memcpy.htod, memcpy.dtoh, "
                            "memcpy.dtod, memcpy.other, memset, other or ignore)");
    dv_rule *r = STS_VEC_PUSH(ps->r->rules);
    if (!r) return nomem(ps);
    r->category = categories[c].category;
    r->direction = categories[c].direction;
    r->line = ps->line;
    r->first_cond = (uint32_t)ps->r->conds.n;
    const char *tstart = start;
    while (tstart < ps->end && (*tstart == ' ' || *tstart == '\t'))
        tstart++;
    if (!(r->text = rule_text(tstart, text_end(tstart, ps->end)))) return nomem(ps);
    for (;;) {
        k = next_word(ps);
        if (k < 0) return fail(ps, "a quoted value does not end (or is longer than 1023 bytes)");
        if (k == 0) {
            if (r->ncond == 0) return fail(ps, "expected a condition after the category (or any)");
            return STS_OK;
        }
        if (r->ncond) {
            if (!word_is(ps, "and")) return fail_got(ps, "expected 'and' between conditions");
            if (next_word(ps) <= 0) return fail(ps, "expected a condition after 'and'");
        }
        dv_cond *cd = STS_VEC_PUSH(ps->r->conds);
        if (!cd) return nomem(ps);
        /* The vector may have moved r's storage: rules and conds are separate vectors. */
        sts_status st = read_cond(ps, cd);
        if (st != STS_OK) return st;
        r->ncond++;
    }
}

sts_status sts_devview_rules_parse(const char *text, size_t len, const char *name, sts_devview_rules **out,
                                   sts_error *err)
{
    *out = NULL;
    parser ps;
    memset(&ps, 0, sizeof ps);
    ps.name = name ? name : "<rules>";
    ps.err = err;
    ps.r = calloc(1, sizeof *ps.r);
    if (!ps.r) return nomem(&ps);
    sts_status st = STS_OK;
    const char *p = text, *end = text + len;
    if (memchr(text, 0, len))
        st = sts_error_set(err, STS_ERR_PARSE, (int64_t)((const char *)memchr(text, 0, len) - text),
                           "%s: a NUL byte at offset %zu: not a text file of rules", ps.name,
                           (size_t)((const char *)memchr(text, 0, len) - text));
    while (st == STS_OK && p < end) {
        const char *nl = memchr(p, '\n', (size_t)(end - p));
        ps.line++;
        ps.p = p;
        ps.end = nl ? nl : end;
        st = read_line(&ps);
        p = nl ? nl + 1 : end;
    }
    if (st == STS_OK && ps.r->rules.n == 0)
        st = sts_error_set(err, STS_ERR_PARSE, -1,
                           "%s: no rules (each line: CATEGORY FIELD TEST VALUE; see docs/device.md)", ps.name);
    if (st != STS_OK) {
        sts_devview_rules_free(ps.r);
        return st;
    }
    *out = ps.r;
    return STS_OK;
}

sts_status sts_devview_rules_load(const char *path, sts_devview_rules **out, sts_error *err)
{
    *out = NULL;
    FILE *f = fopen(path, "rb");
    if (!f) return sts_error_set(err, STS_ERR_IO, -1, "%s: cannot read the device rules: %s", path, strerror(errno));
    STS_VEC(char) buf = { 0 };
    char chunk[65536];
    size_t k;
    int bad = 0;
    while (!bad && (k = fread(chunk, 1, sizeof chunk, f)) > 0) {
        if (buf.n + k > (16u << 20)) {
            fclose(f);
            free(buf.v);
            return sts_error_set(err, STS_ERR_LIMIT, -1, "%s: more than 16 MB: not a file of device rules", path);
        }
        if (STS_VEC_RESERVE(buf, buf.n + k) != 0)
            bad = 1;
        else {
            memcpy(buf.v + buf.n, chunk, k);
            buf.n += k;
        }
    }
    int rerr = ferror(f);
    fclose(f);
    if (bad) {
        free(buf.v);
        return sts_error_set(err, STS_ERR_NOMEM, -1, "%s: out of memory reading the device rules", path);
    }
    if (rerr) {
        free(buf.v);
        return sts_error_set(err, STS_ERR_IO, -1, "%s: read error", path);
    }
    sts_status st = sts_devview_rules_parse(buf.v ? buf.v : "", buf.n, path, out, err);
    free(buf.v);
    return st;
}

void sts_devview_rules_free(sts_devview_rules *r)
{
    if (!r) return;
    for (size_t i = 0; i < r->rules.n; i++)
        free(r->rules.v[i].text);
    for (size_t i = 0; i < r->conds.n; i++) {
        free(r->conds.v[i].key);
        free(r->conds.v[i].value);
        if (r->conds.v[i].has_re) regfree(&r->conds.v[i].re);
    }
    for (size_t i = 0; i < r->arg_keys.n; i++)
        free(r->arg_keys.v[i]);
    STS_VEC_RELEASE(r->rules);
    STS_VEC_RELEASE(r->conds);
    STS_VEC_RELEASE(r->arg_keys);
    free(r);
}

size_t sts_devview_rules_count(const sts_devview_rules *r)
{
    return r->rules.n;
}

const char *sts_devview_rule_text(const sts_devview_rules *r, size_t i)
{
    return i < r->rules.n ? r->rules.v[i].text : NULL;
}

uint32_t sts_devview_rule_line(const sts_devview_rules *r, size_t i)
{
    return i < r->rules.n ? r->rules.v[i].line : 0;
}

int sts_devview_rule_category(const sts_devview_rules *r, size_t i)
{
    return i < r->rules.n ? r->rules.v[i].category : -1;
}

const char *const *sts_devview_rules_arg_keys(const sts_devview_rules *r, size_t *n)
{
    if (n) *n = r->arg_keys.n;
    return (const char *const *)r->arg_keys.v;
}
