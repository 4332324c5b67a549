/* Which lanes run device work, and which slice names are collectives: what the device
 * view needs to call an op communication, and a straggler analysis to say "this host's
 * device waited in all-reduce". */
#include <string.h>

#include "stepscope/devview.h"

static int starts_with(const char *s, const char *prefix)
{
    return strncmp(s, prefix, strlen(prefix)) == 0;
}

/* "stream 7 ": Kineto names its GPU stream lanes so (with the trailing space). */
static int is_stream_name(const char *s)
{
    if (strncmp(s, "stream ", 7) != 0 || s[7] < '0' || s[7] > '9') return 0;
    for (s += 7; *s >= '0' && *s <= '9'; s++)
        ;
    while (*s == ' ')
        s++;
    return *s == 0;
}

int sts_lane_is_device(const sts_timeline *tl, uint32_t lane)
{
    size_t nl;
    const sts_lane *lanes = sts_timeline_lanes(tl, &nl);
    if (lane >= nl) return 0;
    const sts_lane *l = &lanes[lane];
    if (l->kind == STS_LANE_DEVICE) return 1;
    const sts_process *p = &sts_timeline_processes(tl, NULL)[l->process];
    return starts_with(sts_timeline_string(tl, p->name), "/device:") ||
           is_stream_name(sts_timeline_string(tl, l->name));
}

/* XLA's collective ops, as HLO names them ("all-reduce.3", "all-gather-start.1",
 * "reduce-scatter-done"). Longer names first where one begins another. */
static const struct {
    const char *op, *kind;
} xla_ops[] = {
    { "ragged-all-to-all", "all-to-all" },   { "all-reduce", "all-reduce" },
    { "all-gather", "all-gather" },          { "reduce-scatter", "reduce-scatter" },
    { "all-to-all", "all-to-all" },          { "collective-permute", "collective-permute" },
    { "collective-broadcast", "broadcast" },
};

/* What may follow an op's name in an instruction name: nothing, ".N", "-start",
 * "-done", or a fusion suffix. */
static int op_tail_ok(const char *t)
{
    return *t == 0 || *t == '.' || *t == '-' || *t == '_' || *t == ' ' || *t == '(';
}

/* NCCL and RCCL kernels: ncclKernel_AllReduce_..., ncclDevKernel_AllGather_...,
 * ncclKernel_SendRecv_... (all-to-all runs as SendRecv). */
static const struct {
    const char *word, *kind;
} nccl_ops[] = {
    { "AllReduce", "all-reduce" }, { "AllGather", "all-gather" }, { "ReduceScatter", "reduce-scatter" },
    { "AllToAll", "all-to-all" },  { "Broadcast", "broadcast" },  { "SendRecv", "send-recv" },
    { "Send", "send-recv" },       { "Recv", "send-recv" },       { "Reduce", "reduce" },
};

static const char *nccl_kind(const char *name)
{
    const char *p = strchr(name, '_');
    if (!p) return NULL;
    p++;
    for (size_t i = 0; i < sizeof nccl_ops / sizeof nccl_ops[0]; i++) {
        size_t n = strlen(nccl_ops[i].word);
        if (strncmp(p, nccl_ops[i].word, n) == 0 && (p[n] == '_' || p[n] == '(' || p[n] == 0)) return nccl_ops[i].kind;
    }
    return NULL;
}

const char *sts_collective_kind(const char *name)
{
    if (!name) return NULL;
    if (*name == '%') name++; /* an HLO instruction as printed: "%all-reduce.1" */
    for (size_t i = 0; i < sizeof xla_ops / sizeof xla_ops[0]; i++) {
        size_t n = strlen(xla_ops[i].op);
        if (strncmp(name, xla_ops[i].op, n) == 0 && op_tail_ok(name + n)) return xla_ops[i].kind;
    }
    if (starts_with(name, "ncclKernel_") || starts_with(name, "ncclDevKernel_") || starts_with(name, "rcclKernel_") ||
        starts_with(name, "rcclDevKernel_"))
        return nccl_kind(name);
    return NULL;
}
