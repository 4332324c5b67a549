/* The timeline a Python Trace holds: a capsule owning one sts_timeline. */
#ifndef STS_PYEXT_TL_H
#define STS_PYEXT_TL_H

#include "ext.h"
#include "stepscope/timeline.h"

/* The open timeline behind a capsule; NULL with ValueError when it was closed. */
const sts_timeline *tl_get(PyObject *cap);

#endif
