/* stepscope: diagnose the performance of asynchronous compute.
 *
 * Umbrella header: include this, or only the module headers you use. */
#ifndef STEPSCOPE_H
#define STEPSCOPE_H

#include "stepscope/version.h"
#include "stepscope/status.h"
#include "stepscope/json.h"
#include "stepscope/format.h"
#include "stepscope/outfile.h"
#include "stepscope/timeline.h"
#include "stepscope/analyze.h"
#include "stepscope/devview.h"
#include "stepscope/memory.h"
#include "stepscope/hosts.h"
#include "stepscope/write.h"
#include "stepscope/trace.h"
#include "stepscope/report.h"
#include "stepscope/ledger.h"
#include "stepscope/spec.h"
#include "stepscope/device.h"
#include "stepscope/bench.h"
#include "stepscope/diff.h"

#endif
