/* The timeline a Python Trace holds: a capsule owning one sts_timeline. */
#ifndef STS_PYEXT_TL_H
#define STS_PYEXT_TL_H

#include "ext.h"
#include "stepscope/timeline.h"

/* The open timeline behind a capsule; NULL with ValueError when it was closed. */
const sts_timeline *tl_get(PyObject *cap);

/* The lane's pid and tid as written, and its process and thread names ("" when absent),
 * as the CLI prints them. */
const char *tl_pid(const sts_timeline *tl, uint32_t lane);
const char *tl_tid(const sts_timeline *tl, uint32_t lane);
const char *tl_process_name(const sts_timeline *tl, uint32_t lane);
const char *tl_thread_name(const sts_timeline *tl, uint32_t lane);

#endif
