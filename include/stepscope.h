/* stepscope: diagnose the performance of asynchronous compute.
 *
 * Umbrella header: include this, or only the module headers you use. */
#ifndef STEPSCOPE_H
#define STEPSCOPE_H

#define STS_VERSION_MAJOR 0
#define STS_VERSION_MINOR 1
#define STS_VERSION_PATCH 0
#define STS_VERSION_NUMBER (STS_VERSION_MAJOR * 10000 + STS_VERSION_MINOR * 100 + STS_VERSION_PATCH)

#include "stepscope/status.h"
#include "stepscope/timeline.h"
#include "stepscope/analyze.h"
#include "stepscope/write.h"
#include "stepscope/trace.h"
#include "stepscope/report.h"
#include "stepscope/ledger.h"
#include "stepscope/device.h"
#include "stepscope/bench.h"

#ifdef __cplusplus
extern "C" {
#endif

/* The library's version as "MAJOR.MINOR.PATCH"; static storage. Compare with
 * STS_VERSION_* to detect a header/library mismatch. */
const char *sts_version(void);

/* The library's version as STS_VERSION_NUMBER would spell it. */
unsigned sts_version_number(void);

#ifdef __cplusplus
}
#endif
#endif
