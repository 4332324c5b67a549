/* stepscope/hostsync.h: host synchronizations found in a trace.
 *
 * A host sync is a place where the host stopped to wait for the device: a scalar read of
 * a device array (JAX's `_value`, `__float__`, `np.asarray` of one; PyTorch's
 * `aten::item`), an explicit wait (`block_until_ready`, `cudaStreamSynchronize`), a
 * synchronous device-to-host copy. They are found by a declared rule table
 * (sts_host_sync_rules(), docs/host-syncs.md) applied to slice names. Only the
 * outermost matching slice of a nest counts (`aten::item` holds
 * `aten::_local_scalar_dense`, which holds `cudaStreamSynchronize`: one sync), and its
 * wait is that slice's duration: the time the host spent inside the call. */
#ifndef STEPSCOPE_HOSTSYNC_H
#define STEPSCOPE_HOSTSYNC_H

#include <stddef.h>
#include <stdint.h>

#include "stepscope/analyze.h"
#include "stepscope/status.h"
#include "stepscope/timeline.h"

#ifdef __cplusplus
extern "C" {
#endif

/* How a rule matches a slice name. */
typedef enum sts_host_sync_match {
    STS_HSM_EXACT = 0, /* the whole name */
    STS_HSM_PREFIX,    /* the name starts with `pattern` */
    STS_HSM_PYFRAME    /* a Python-tracer frame "$FILE:LINE FUNC" whose FUNC is `pattern` and, when
                        * `file` is set, whose FILE is `file` */
} sts_host_sync_match;

/* One rule of the table. All strings are static. */
typedef struct sts_host_sync_rule {
    const char *name;      /* what the sync is reported as: "aten::item", "_value", ... */
    const char *framework; /* "jax", "pytorch", "cuda", "hip" */
    sts_host_sync_match how;
    const char *pattern;
    const char *file; /* STS_HSM_PYFRAME only; NULL for any file */
    const char *kind; /* what the host waited for, as the ledger's sync kinds name it: "read" (a copy to
                       * the host), "wait" (an explicit wait) or "scalar" (a scalar read of a device value) */
} sts_host_sync_rule;

/* The rule table, in the order rules are tried; *n gets its length. Static storage. */
const sts_host_sync_rule *sts_host_sync_rules(size_t *n);

/* The rule a slice name matches, or NULL. */
const sts_host_sync_rule *sts_host_sync_match_name(const char *name);

/* The host syncs of one step that share a rule and an enclosing slice. */
typedef struct sts_host_sync {
    uint32_t step;    /* index into sts_steps_list() */
    const char *name; /* the rule's name (static) */
    uint32_t where;   /* string id of the name of the slice enclosing the sync (the annotation
                       * or Python frame it was called from), or STS_NONE when none does */
    uint32_t count;
    int64_t wait_ns; /* the matching slices' summed durations */
} sts_host_sync;

typedef struct sts_host_syncs sts_host_syncs;

/* Finds the host syncs of every step of `s` (steps of `tl`), on every lane: a sync belongs to
 * the step whose [ts, ts + dur) holds its start. On success *out is the caller's, freed with
 * sts_host_syncs_free(). */
sts_status sts_host_syncs_find(const sts_timeline *tl, const sts_steps *s, sts_host_syncs **out, sts_error *err);
/* Finds the host syncs of a scope as one span (what `analyze` reports): the slices
 * starting in the scope's window (the whole trace when it is not windowed) on its lanes
 * (every lane when scope->lanes is NULL, or scope is NULL). The scope's name and group
 * are not used: a sync is found by its own name. Entries carry step 0, so
 * sts_host_syncs_of_step(h, 0, ...) lists them all; sts_host_syncs_outside() counts the
 * matches outside the span. On success *out is the caller's, freed with
 * sts_host_syncs_free(). */
sts_status sts_host_syncs_find_scope(const sts_timeline *tl, const sts_scope *scope, sts_host_syncs **out,
                                     sts_error *err);
void sts_host_syncs_free(sts_host_syncs *h); /* NULL is a no-op */

/* The syncs, ordered by step, then the longest wait first (then name, then where). The
 * memory stays h's. */
const sts_host_sync *sts_host_syncs_list(const sts_host_syncs *h, size_t *n);
/* Entries of sts_host_syncs_list() for step `step`: *first gets the first, returns the count. */
size_t sts_host_syncs_of_step(const sts_host_syncs *h, uint32_t step, size_t *first);
/* Every outermost matching slice counted (in a step, or in the scope's span), as indices
 * into sts_timeline_slices(), in slice order: one per sync, for recording each (the
 * ledger's --trace). The memory stays h's. */
const uint32_t *sts_host_syncs_slices(const sts_host_syncs *h, size_t *n);
/* Matching slices that started inside no step (counted, not listed). */
size_t sts_host_syncs_outside(const sts_host_syncs *h);

#ifdef __cplusplus
}
#endif

#endif
