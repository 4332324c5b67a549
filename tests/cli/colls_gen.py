"""Rank traces with collectives whose every number is known, for test_collectives.sh.

gen DIR: writes DIR/rank{0..3}.json (Kineto-like: ProfilerStep#N with forward and
backward children on the host thread; NCCL kernels on a "stream 7" lane with the args
PyTorch records) and DIR/facts.json (the generator's own values). Each rank's clock is
off by a known offset; ranks leave each collective together (a shared end), arrive with
known delays, and the last one's kernel lasts the known transfer time.

check FACTS STEPS_JSON: checks steps --collectives --json against the facts, computed
here from the generator's values, not from stepscope's output."""
import json
import random
import sys

RANKS = 4
OFFSETS_NS = [0, 1500000, -700000, 3000000]  # each rank's clock minus rank0's
STEPS = 3
PER_STEP = 4  # collectives of group "0" per step, numbered by Seq
DTYPE, ELEM = "Float", 4
FACTOR = {"allreduce": 2.0 * (RANKS - 1) / RANKS, "allgather": (RANKS - 1) / RANKS, "broadcast": 1.0}
KERNEL = {
    "allreduce": "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "allgather": "ncclDevKernel_AllGather_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
    "broadcast": "ncclDevKernel_Broadcast_RING_LL(ncclDevComm*, unsigned long, ncclWork*)",
}


def gen(out, bad=False):
    rnd = random.Random(32)
    events = [[] for _ in range(RANKS)]
    facts = {"offsets_ns": {"rank%d" % r: OFFSETS_NS[r] for r in range(RANKS)}, "instances": []}

    def x(r, name, ts_ns, dur_ns, pid, tid, args=None):
        e = {"ph": "X", "name": name, "pid": pid, "tid": tid, "ts": (ts_ns + OFFSETS_NS[r]) / 1000.0,
             "dur": dur_ns / 1000.0}
        if args:
            e["args"] = args
        events[r].append(e)

    for r in range(RANKS):
        events[r].append({"ph": "M", "name": "process_name", "pid": 0, "args": {"name": "GPU 0"}})
        events[r].append({"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7"}})
    seq = 0
    t = 10_000_000  # true time, ns
    for s in range(STEPS):
        fwd = 2_000_000
        bwd = [3_000_000 + rnd.randrange(0, 5) * 100_000 for _ in range(RANKS)]
        late = s % RANKS  # planted: this rank's backward is 4 ms longer
        bwd[late] += 4_000_000
        step_len = 40_000_000
        facts.setdefault("children", {})[str(s)] = {
            "rank%d" % r: {"forward": [t + 100_000, fwd], "backward": [t + 100_000 + fwd, bwd[r]]} for r in range(RANKS)}
        for r in range(RANKS):
            x(r, "ProfilerStep#%d" % s, t, step_len, 1, 1)
            x(r, "forward", t + 100_000, fwd, 1, 1)
            x(r, "backward", t + 100_000 + fwd, bwd[r], 1, 1)
        arrive = [t + 100_000 + fwd + bwd[r] + 50_000 for r in range(RANKS)]
        for j in range(PER_STEP):
            kind = ["allreduce", "allgather", "allreduce", "broadcast"][j]
            nelems = 1 << (16 + j)
            transfer = 200_000 + 10_000 * j + 1_000 * s
            last = max(range(RANKS), key=lambda r: (arrive[r], -r))
            end = arrive[last] + transfer
            out_nelems = nelems * RANKS if kind == "allgather" else nelems
            inst = {"seq": seq, "group": "0", "name": kind, "step": s, "arrival_ns": {}, "end_ns": {},
                    "transfer_ns": transfer, "bytes": max(nelems, out_nelems) * ELEM, "last_rank": "rank%d" % last}
            for r in range(RANKS):
                args = {"Collective name": kind, "Process Group Name": "0", "Seq": seq, "In msg nelems": nelems,
                        "Out msg nelems": out_nelems, "dtype": DTYPE, "Group size": RANKS}
                x(r, KERNEL[kind], arrive[r], end - arrive[r], 0, 7, args)
                inst["arrival_ns"]["rank%d" % r] = arrive[r]
                inst["end_ns"]["rank%d" % r] = end
            facts["instances"].append(inst)
            seq += 1
            # the next collective: each rank a few known microseconds after the end
            arrive = [end + 30_000 + 7_000 * ((r + j + s) % RANKS) for r in range(RANKS)]
        t += step_len + 1_000_000
    # Group "1" has no Seq: matched by order; two of them, in the last step.
    for j in range(2):
        a = [t - 1_000_000 - 40_000_000 + 30_000_000 + 500_000 * j + 11_000 * r for r in range(RANKS)]
        end = max(a) + 100_000
        inst = {"seq": j, "group": "1", "name": "broadcast", "step": STEPS - 1, "arrival_ns": {}, "end_ns": {},
                "transfer_ns": 100_000, "bytes": None, "last_rank": "rank%d" % (RANKS - 1)}
        for r in range(RANKS):
            x(r, KERNEL["broadcast"], a[r], end - a[r], 0, 7, {"Collective name": "broadcast",
                                                                "Process Group Name": "1"})
            inst["arrival_ns"]["rank%d" % r] = a[r]
            inst["end_ns"]["rank%d" % r] = end
        facts["instances"].append(inst)
    if bad:
        # A collective on rank0 only (Seq 100), and rank1 repeating Seq 5 a little later:
        # both counted and left out, every other number unchanged.
        x(0, KERNEL["allreduce"], t - 3_000_000, 50_000, 0, 7, {"Collective name": "allreduce",
                                                                 "Process Group Name": "0", "Seq": 100})
        f5 = [f for f in facts["instances"] if f["group"] == "0" and f["seq"] == 5][0]
        x(1, KERNEL["allgather"], f5["end_ns"]["rank1"] + 10_000, 5_000, 0, 7,
          {"Collective name": "allgather", "Process Group Name": "0", "Seq": 5})
        facts["instances"].remove(f5)
        facts["left_out"] = {"one_rank": 1, "repeated": 1}
    for r in range(RANKS):
        with open("%s/rank%d.json" % (out, r), "w") as f:
            json.dump({"traceEvents": events[r]}, f)
    with open("%s/facts.json" % out, "w") as f:
        json.dump(facts, f)


def fail(msg):
    print("FAIL:", msg)
    sys.exit(1)


def check(facts_path, doc_path):
    facts = json.load(open(facts_path))
    doc = json.load(open(doc_path))
    offs = doc["clock_offsets_ns"]
    for h, v in facts["offsets_ns"].items():
        if offs.get(h) != v:
            fail("offset of %s: %r, expected %r" % (h, offs.get(h), v))
    if doc["clock_residual_ns"] != 0 or doc["clock_residual_max_ns"] != 0:
        fail("residual %r/%r, expected 0 (ranks leave together)" % (doc["clock_residual_ns"],
                                                                   doc["clock_residual_max_ns"]))
    for k, v in facts.get("left_out", {"one_rank": 0, "repeated": 0}).items():
        if doc["collective_counts"][k] != v:
            fail("collective_counts.%s = %r, expected %r" % (k, doc["collective_counts"][k], v))
    got = {(c["group"], c["seq"]): c for c in doc["collectives"]}
    if len(got) != len(facts["instances"]):
        fail("%d instances, expected %d" % (len(got), len(facts["instances"])))
    for f in facts["instances"]:
        c = got.get((f["group"], f["seq"]))
        if c is None:
            fail("instance %s/%d missing" % (f["group"], f["seq"]))
        arr = f["arrival_ns"]
        hi = max(arr.values())
        want = {
            "name": f["name"], "ranks": sorted(arr), "arrival_ns": arr, "end_ns": f["end_ns"],
            "skew_ns": hi - min(arr.values()), "wait_ns": {r: hi - a for r, a in arr.items()},
            "wait_total_ns": sum(hi - a for a in arr.values()), "last_rank": f["last_rank"],
            "transfer_ns": f["transfer_ns"], "bytes": f["bytes"], "step": f["step"],
            "matched_by": "seq" if f["group"] == "0" else "order",
        }
        ordered = sorted(arr, key=lambda r: (arr[r], r))
        med = ordered[(len(ordered) - 1) // 2]
        want["median_rank"] = med
        want["late_ns"] = hi - arr[med]
        kids = facts["children"][str(f["step"])]

        def before(rank, name):
            a, d = kids[rank][name]
            return max(0, min(a + d, arr[rank]) - a)
        best = None
        for name in sorted(kids[f["last_rank"]]):
            ex = before(f["last_rank"], name) - before(med, name)
            if ex > 0 and (best is None or ex > best["excess_ns"]):
                best = {"name": name, "ns": before(f["last_rank"], name), "median_rank_ns": before(med, name),
                        "excess_ns": ex}
        want["by"] = best
        for k, v in want.items():
            if c[k] != v:
                fail("instance %s/%d: %s = %r, expected %r" % (f["group"], f["seq"], k, c[k], v))
        if f["bytes"] is None:
            if c["bus_bw_gbps"] is not None or c["alg_bw_gbps"] is not None:
                fail("bandwidth without a size")
        else:
            alg = f["bytes"] / f["transfer_ns"]
            bus = alg * FACTOR[f["name"]]
            if abs(c["alg_bw_gbps"] - alg) > 1e-9 * alg or abs(c["bus_bw_gbps"] - bus) > 1e-9 * bus:
                fail("instance %d: bandwidth %r/%r, expected %r/%r" % (f["seq"], c["alg_bw_gbps"],
                                                                      c["bus_bw_gbps"], alg, bus))
    # per step: waits summed and the worst three by wait
    if sorted(st["step"] for st in doc["collective_steps"]) != sorted({f["step"] for f in facts["instances"]}):
        fail("collective_steps' steps")
    for st in doc["collective_steps"]:
        mine = [f for f in facts["instances"] if f["step"] == st["step"]]
        waits = [sum(max(f["arrival_ns"].values()) - a for a in f["arrival_ns"].values()) for f in mine]
        if st["wait_ns"] != sum(waits):
            fail("step %d: wait %d, expected %d" % (st["step"], st["wait_ns"], sum(waits)))
        top = sorted(waits, reverse=True)[:3]
        if [t["wait_ns"] for t in st["top"]] != top:
            fail("step %d: top waits %r, expected %r" % (st["step"], [t["wait_ns"] for t in st["top"]], top))
    print("ok")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "bad")
    else:
        check(sys.argv[2], sys.argv[3])
