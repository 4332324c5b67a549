/* Generated JSON traces for the unit tests: the seeded generator the property tests
 * draw their random traces from, and the Kineto-shaped events (GPU stream lanes,
 * host calls, device ops, steps) the device view and critical-path tests build their
 * traces of. One copy, so that a fix to how a trace is written reaches every test. */
#ifndef STS_TESTS_JSON_GEN_H
#define STS_TESTS_JSON_GEN_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "stepscope.h"
#include "text_buf.h"

/* xorshift64 (13, 7, 17): the same seed gives the same trace on every machine. */
typedef struct rng {
    uint64_t s; /* never 0 */
} rng;

static inline uint64_t rng_next(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

/* A number in [0, n); 0 when n <= 0. */
static inline int64_t below(rng *r, int64_t n)
{
    return n > 0 ? (int64_t)(rng_next(r) % (uint64_t)n) : 0;
}

/* ---- Kineto-shaped events -------------------------------------------------------------
 * Times in microseconds. Every event goes through kt_comma, which opens the trace at
 * the first one; kt_open closes it. */

static inline void kt_comma(tbuf *b)
{
    puts_(b, b->n ? ",\n" : "{\"traceEvents\":[\n");
}

/* A GPU stream lane: pid 0, tid `stream`, named "stream N ". */
static inline void kt_stream(tbuf *b, int stream)
{
    kt_comma(b);
    putf(b, "{\"ph\":\"M\",\"name\":\"thread_name\",\"pid\":0,\"tid\":%d,\"args\":{\"name\":\"stream %d \"}}", stream,
         stream);
}

/* A host slice of category `cat` on thread `tid` of pid 100, with a correlation id
 * (0: none). */
static inline void kt_host(tbuf *b, const char *cat, int tid, double ts, double dur, const char *name, long corr)
{
    kt_comma(b);
    putf(b, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":100,\"tid\":%d,\"ts\":%g,\"dur\":%g", cat, name, tid,
         ts, dur);
    if (corr) putf(b, ",\"args\":{\"correlation\":%ld}", corr);
    puts_(b, "}");
}

/* A device op of category `cat` on stream `stream` of pid 0; with a correlation id its
 * args name the id and the stream (corr 0: no args). */
static inline void kt_dev(tbuf *b, const char *cat, int stream, double ts, double dur, const char *name, long corr)
{
    kt_comma(b);
    putf(b, "{\"ph\":\"X\",\"cat\":\"%s\",\"name\":\"%s\",\"pid\":0,\"tid\":%d,\"ts\":%g,\"dur\":%g", cat, name, stream,
         ts, dur);
    if (corr) putf(b, ",\"args\":{\"correlation\":%ld,\"stream\":%d}", corr, stream);
    puts_(b, "}");
}

/* Step `n` ("ProfilerStep#n") as a host slice of category `cat` on thread 100. */
static inline void kt_step(tbuf *b, const char *cat, int n, double ts, double dur)
{
    char name[32];
    snprintf(name, sizeof name, "ProfilerStep#%d", n);
    kt_host(b, cat, 100, ts, dur, name, 0);
}

/* Closes the trace in b and opens it as `name` with the given args and flows modes;
 * b is freed and left empty whatever happens. */
static inline sts_status kt_open(tbuf *b, const char *name, sts_args_mode args, sts_flows_mode flows,
                                 sts_timeline **out, sts_error *err)
{
    puts_(b, "]}");
    sts_open_options o = STS_OPEN_OPTIONS_INIT;
    o.args = args;
    o.flows = flows;
    sts_status st = sts_timeline_open_mem(b->p, b->n, name, &o, out, err);
    free(b->p);
    memset(b, 0, sizeof *b);
    return st;
}

#endif
