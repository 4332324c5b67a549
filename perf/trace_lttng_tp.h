/* An LTTng-UST tracepoint provider equivalent to one recorder scope: a begin and an
 * end event, each carrying the scope name's address (the recorder stores the name as a
 * pointer too) and the tracer's own timestamp. Used by perf/trace_overhead.c only. */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER sts_bench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "trace_lttng_tp.h"

#if !defined(STS_BENCH_TRACE_LTTNG_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define STS_BENCH_TRACE_LTTNG_TP_H

#include <stdint.h>
#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(sts_bench, scope_begin, LTTNG_UST_TP_ARGS(const char *, name),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer_hex(uintptr_t, name, (uintptr_t)name)))

LTTNG_UST_TRACEPOINT_EVENT(sts_bench, scope_end, LTTNG_UST_TP_ARGS(const char *, name),
                           LTTNG_UST_TP_FIELDS(lttng_ust_field_integer_hex(uintptr_t, name, (uintptr_t)name)))

#endif

#include <lttng/tracepoint-event.h>
