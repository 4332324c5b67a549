/* The timeline a Python Trace holds: a capsule owning one sts_timeline. */
#ifndef STS_PYEXT_TL_H
#define STS_PYEXT_TL_H

#include "ext.h"
#include "stepscope/timeline.h"

/* The open timeline behind a capsule; NULL with ValueError when it was closed. */
const sts_timeline *tl_get(PyObject *cap);

/* What open(), open_bytes() and the hosts' documents keep: the args `mode` names, and
 * flow events counted, not kept, as nothing here reads them. -1 with the exception set
 * for a mode out of range. */
int ext_keep_options(int mode, sts_open_options *opt);

#endif
