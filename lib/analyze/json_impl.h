/* analyze: what the JSON writers of analyze_json.c and steps_json.c share. */
#ifndef STS_ANALYZE_JSON_IMPL_H
#define STS_ANALYZE_JSON_IMPL_H

#include "stepscope/analyze.h"
#include "stepscope/hostsync.h"

/* Writes a lane's "pid", "tid", "process" and "thread" into the object open on `j`. */
void sts_an_json_lane_fields(sts_jsonw *j, const sts_timeline *tl, uint32_t lane);

/* Writes "host_syncs": entry `step`'s syncs as [{name, count, wait_ns, where}], "where"
 * null when no slice encloses one. */
void sts_an_json_host_syncs(sts_jsonw *j, const sts_timeline *tl, const sts_host_syncs *h, uint32_t step);

#endif
