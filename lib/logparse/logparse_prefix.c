/* logparse: strips the prefixes that logging frameworks put before JAX and PyTorch
 * messages, and names the stream a line belongs to.
 *
 *   (none)                                    Python's last-resort handler
 *   WARNING:jax._src.dispatch:                logging.basicConfig()
 *   WARNING:2024-10-15 12:34:56,789:jax._src.dispatch:205:   JAX's own handler
 *   W1015 12:34:56.789012 1234 dispatch.py:205]              absl
 *   V0920 13:54:44.535000 3904 torch/_dynamo/guards.py:4760] [0/1] [__recompiles]   torch
 *   [rank0]:  before any of the torch forms (distributed runs)
 *   [2023-09-28 14:50:06,548] torch._dynamo.convert_frame: [WARNING]   torch 2.1
 *
 * Python logging prefixes only the first line of a multi-line message; torch prefixes
 * every line, so its continuation lines carry the prefix (per_line). */
#include "logparse/logparse.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>

static const char *digits(const char *p, int min)
{
    int n = 0;
    while (isdigit((unsigned char)*p))
        p++, n++;
    return n >= min ? p : NULL;
}

static const char *rank_prefix(const char *s, char *rank, size_t cap)
{
    if (strncmp(s, "[rank", 5) != 0) return s;
    const char *p = digits(s + 5, 1);
    if (!p || p[0] != ']' || p[1] != ':') return s;
    snprintf(rank, cap, "%.*s", (int)(p - s - 1), s + 1);
    return p + 2;
}

/* HH:MM:SS with an optional fraction. */
static const char *clock_time(const char *p)
{
    if (!(p = digits(p, 2)) || *p != ':' || !(p = digits(p + 1, 2)) || *p != ':' || !(p = digits(p + 1, 2)))
        return NULL;
    if (*p == '.' || *p == ',') p = digits(p + 1, 1);
    return p;
}

/* Torch's " [0/1]" compile ids and " [__recompiles]" artifact tags, in any number. */
static const char *torch_groups(const char *p, lp_prefix *pf, int *found)
{
    for (;;) {
        const char *q = p;
        while (*q == ' ')
            q++;
        if (*q != '[') return p;
        const char *close = strchr(q, ']');
        if (!close || close - q > 46) return p;
        int is_id = (q[1] == '!' || isdigit((unsigned char)q[1])) && memchr(q, '/', (size_t)(close - q));
        int is_art = q[1] == '_' && q[2] == '_';
        if (!is_id && !is_art) return p;
        for (const char *c = q + 1; c < close; c++)
            if (!(isalnum((unsigned char)*c) || strchr("/_!.-", *c))) return p;
        /* The compile id is not part of the stream: one thread's records follow each
         * other, and a new compile id starts a new record anyway. */
        if (is_id)
            snprintf(pf->traceid, sizeof pf->traceid, "%.*s", (int)(close - q - 1), q + 1);
        else {
            size_t len = strlen(pf->stream);
            snprintf(pf->stream + len, sizeof pf->stream - len, "|%.*s", (int)(close - q - 1), q + 1);
        }
        *found = 1;
        p = close + 1;
    }
}

static const char *glog_prefix(const char *s, lp_prefix *pf)
{
    if (!strchr("VDIWEFC", s[0])) return NULL;
    const char *p = digits(s + 1, 4);
    if (!p || p - s != 5 || *p != ' ' || !(p = clock_time(p + 1))) return NULL;
    while (*p == ' ')
        p++;
    const char *tid = p;
    if (!(p = digits(p, 1)) || *p != ' ') return NULL;
    size_t tlen = (size_t)(p - tid);
    const char *path = ++p;
    while (*p && *p != ' ' && *p != ']')
        p++;
    if (*p != ']') return NULL;
    const char *colon = p;
    while (colon > path && isdigit((unsigned char)colon[-1]))
        colon--;
    if (colon == p || colon == path || colon[-1] != ':') return NULL;
    size_t len = strlen(pf->stream);
    snprintf(pf->stream + len, sizeof pf->stream - len, "|t%.*s", (int)tlen, tid);
    int groups = 0;
    p = torch_groups(p + 1, pf, &groups);
    pf->per_line = groups || strstr(path, "torch") != NULL;
    return *p == ' ' ? p + 1 : p;
}

/* "[2023-09-28 14:50:06,548] torch._dynamo.convert_frame: [WARNING] " (torch 2.1). */
static const char *bracket_date_prefix(const char *s, lp_prefix *pf)
{
    const char *p = s;
    if (*p != '[' || !(p = digits(p + 1, 4)) || *p != '-' || !(p = digits(p + 1, 2)) || *p != '-' ||
        !(p = digits(p + 1, 2)) || *p != ' ' || !(p = clock_time(p + 1)) || *p != ']' || p[1] != ' ')
        return NULL;
    const char *name = p + 2, *q = name;
    while (isalnum((unsigned char)*q) || *q == '_' || *q == '.')
        q++;
    if (q == name || q[0] != ':' || q[1] != ' ' || q[2] != '[') return NULL;
    const char *lvl_end = strchr(q + 3, ']');
    if (!lvl_end || lvl_end - q > 14) return NULL;
    size_t len = strlen(pf->stream);
    snprintf(pf->stream + len, sizeof pf->stream - len, "|%.*s", (int)(q - name), name);
    int groups = 0;
    p = torch_groups(lvl_end + 1, pf, &groups);
    pf->per_line = 1;
    return *p == ' ' ? p + 1 : p;
}

static const char *level_word(const char *s)
{
    static const char *const levels[] = { "DEBUG:", "INFO:", "WARNING:", "ERROR:", "CRITICAL:" };
    for (size_t i = 0; i < sizeof levels / sizeof levels[0]; i++) {
        size_t n = strlen(levels[i]);
        if (strncmp(s, levels[i], n) == 0) return s + n;
    }
    return NULL;
}

static const char *logger_name(const char *p)
{
    const char *q = p;
    while (isalnum((unsigned char)*q) || *q == '_' || *q == '.')
        q++;
    return q > p && *q == ':' ? q + 1 : NULL;
}

/* "LEVEL:logger:" (basicConfig) or "LEVEL:YYYY-MM-DD HH:MM:SS,mmm:logger:lineno: " (JAX). */
static const char *python_prefix(const char *s)
{
    const char *p = level_word(s);
    if (!p) return NULL;
    const char *d = digits(p, 4);
    if (d && *d == '-' && (d = digits(d + 1, 2)) && *d == '-' && (d = digits(d + 1, 2)) && *d == ' ' &&
        (d = clock_time(d + 1)) && *d == ':' && (d = logger_name(d + 1)) && (d = digits(d, 1)) && *d == ':')
        return d[1] == ' ' ? d + 2 : d + 1;
    return logger_name(p);
}

const char *sts_lp_strip_prefix(const char *line, lp_prefix *pf)
{
    memset(pf, 0, sizeof *pf);
    char rank[32] = "";
    const char *s = rank_prefix(line, rank, sizeof rank);
    snprintf(pf->stream, sizeof pf->stream, "%s", rank);
    const char *m = glog_prefix(s, pf);
    if (!m) m = bracket_date_prefix(s, pf);
    if (m) {
        pf->prefixed = 1;
        if (!pf->per_line) snprintf(pf->stream, sizeof pf->stream, "%s|py", rank);
        return m;
    }
    snprintf(pf->stream, sizeof pf->stream, "%s|py", rank);
    if ((m = python_prefix(s))) {
        pf->prefixed = 1;
        return m;
    }
    /* Torch's short format: compile id and artifact tags with no glog prefix. */
    int groups = 0;
    snprintf(pf->stream, sizeof pf->stream, "%s", rank);
    m = s[0] == '[' ? torch_groups(s, pf, &groups) : s;
    if (groups) {
        pf->prefixed = pf->per_line = 1;
        return *m == ' ' ? m + 1 : m;
    }
    snprintf(pf->stream, sizeof pf->stream, "%s|py", rank);
    pf->prefixed = s != line;
    return s;
}
