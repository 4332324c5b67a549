/* base: monotonic clock. */
#ifndef STS_BASE_CLOCK_H
#define STS_BASE_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds. */
int64_t sts_clock_ns(void);

#endif
