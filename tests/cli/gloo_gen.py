"""CPU-only rank traces (gloo) whose collectives' every number is known, for
test_collectives_cpu.sh.

gen DIR [bad]: writes DIR/rank{0..2}.json, Kineto-like with no device lane: per step a
ProfilerStep#N with forward and backward children on the main thread, then the c10d
calls PyTorch records there (c10d::allreduce_, c10d::broadcast_; their "Sequence
number" is autograd's, different on every rank, and must not key the match), each one's
work a gloo:* annotation on one of two worker threads, starting after the call and
ending when the ranks leave together; one c10d::allgather_ wrapping a record_param_comms
with a group and a seq. Each rank's clock is off by a known offset. DIR/facts.json holds
the generator's values. With `bad`, rank1 loses its last gloo work: its calls no longer
pair with works, and it must give no op at all.

check FACTS STEPS_JSON: checks steps --collectives --json against the facts, computed
here from the generator's values."""
import json
import random
import sys

RANKS = 3
OFFSETS_NS = [0, 2_500_000, -1_200_000]  # each rank's clock minus rank0's
STEPS = 3
CALL_NS = 60_000  # the c10d call only hands the work to gloo's thread


def gen(out, bad=False):
    rnd = random.Random(7)
    events = [[] for _ in range(RANKS)]
    facts = {"offsets_ns": {"rank%d" % r: OFFSETS_NS[r] for r in range(RANKS)}, "instances": [], "children": {}}

    def x(r, name, ts_ns, dur_ns, tid, args=None):
        e = {"ph": "X", "cat": "cpu_op", "name": name, "pid": 100 + r, "tid": tid,
             "ts": (ts_ns + OFFSETS_NS[r]) / 1000.0, "dur": dur_ns / 1000.0}
        if args:
            e["args"] = args
        events[r].append(e)

    def coll(name, work, arrive, transfer, step, group=None, seq=None, rpc=None):
        last = max(range(RANKS), key=lambda r: (arrive[r], -r))
        end = arrive[last] + transfer
        place = sum(1 for f in facts["instances"] if f["name"] == (rpc or name) and f["group"] == group)
        inst = {"name": rpc or name, "group": group, "seq": seq if seq is not None else place,
                "by": "seq" if seq is not None else "order", "step": step, "last_rank": "rank%d" % last,
                "arrival_ns": {}, "end_ns": {}, "transfer_ns": transfer}
        for r in range(RANKS):
            x(r, name, arrive[r], CALL_NS, 1, {"Sequence number": rnd.randrange(1000)})
            if rpc:
                x(r, "record_param_comms", arrive[r] + 5_000, CALL_NS - 10_000, 1,
                  {"Collective name": rpc, "Process Group Name": group, "seq": seq})
            # gloo's worker starts the work a little after the call, on either thread
            x(r, work, arrive[r] + 20_000 + 1_000 * r, end - arrive[r] - 20_000 - 1_000 * r, 2 + (len(facts["instances"]) + r) % 2)
            inst["arrival_ns"]["rank%d" % r] = arrive[r]
            inst["end_ns"]["rank%d" % r] = end
        facts["instances"].append(inst)
        return end

    t = 5_000_000
    for s in range(STEPS):
        fwd = 1_000_000
        bwd = [2_000_000 + rnd.randrange(0, 5) * 100_000 for _ in range(RANKS)]
        bwd[(s + 1) % RANKS] += 10_000_000  # planted: the late rank's backward is 10 ms longer
        step_len = 30_000_000
        facts["children"][str(s)] = {
            "rank%d" % r: {"forward": [t + 100_000, fwd], "backward": [t + 100_000 + fwd, bwd[r]]} for r in range(RANKS)}
        for r in range(RANKS):
            x(r, "ProfilerStep#%d" % s, t, step_len, 1)
            x(r, "forward", t + 100_000, fwd, 1)
            x(r, "backward", t + 100_000 + fwd, bwd[r], 1)
        arrive = [t + 100_000 + fwd + bwd[r] + 40_000 for r in range(RANKS)]
        end = coll("c10d::allreduce_", "gloo:all_reduce", arrive, 300_000 + 1_000 * s, s)
        arrive = [end + 100_000 + 13_000 * ((r + s) % RANKS) for r in range(RANKS)]
        end = coll("c10d::broadcast_", "gloo:broadcast", arrive, 150_000, s)
        if s == STEPS - 1:
            arrive = [end + 200_000 + 17_000 * r for r in range(RANKS)]
            coll("c10d::allgather_", "gloo:all_gather", arrive, 250_000, s, group="0", seq=41, rpc="_allgather_base")
        t += step_len + 1_000_000
    if bad:
        works = [e for e in events[1] if e["name"].startswith("gloo:")]
        events[1].remove(works[-1])
        facts["absent"] = "rank1"
        facts["unpaired"] = len(works)  # rank1's calls, one per work it had
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
    absent = facts.get("absent")
    ranks = sorted(r for r in facts["offsets_ns"] if r != absent)
    offs = doc["clock_offsets_ns"]
    for h in ranks:
        if offs.get(h) != facts["offsets_ns"][h]:
            fail("offset of %s: %r, expected %r" % (h, offs.get(h), facts["offsets_ns"][h]))
    if doc["clock_residual_ns"] != 0 or doc["clock_residual_max_ns"] != 0:
        fail("residual %r/%r, expected 0" % (doc["clock_residual_ns"], doc["clock_residual_max_ns"]))
    k = doc["collective_counts"]
    if k["unpaired_calls"] != facts.get("unpaired", 0):
        fail("unpaired_calls %r, expected %r" % (k["unpaired_calls"], facts.get("unpaired", 0)))
    calls = sum(len(f["arrival_ns"]) for f in facts["instances"])
    nested = len(ranks)  # one record_param_comms per rank that gave ops
    if k["ops"] != calls - facts.get("unpaired", 0) or k["nested"] != nested:
        fail("ops %r, nested %r: expected %r, %r" % (k["ops"], k["nested"], calls - facts.get("unpaired", 0), nested))
    got = {(c["group"], c["name"], c["seq"]): c for c in doc["collectives"]}
    if len(got) != len(facts["instances"]):
        fail("%d instances, expected %d" % (len(got), len(facts["instances"])))
    for f in facts["instances"]:
        c = got.get((f["group"], f["name"], f["seq"]))
        if c is None:
            fail("instance %s/%s/%d missing" % (f["group"], f["name"], f["seq"]))
        arr = {r: a for r, a in f["arrival_ns"].items() if r in ranks}
        hi = max(arr.values())
        last = min((r for r in arr if arr[r] == hi))
        want = {"ranks": ranks, "arrival_ns": arr, "end_ns": {r: f["end_ns"][r] for r in ranks},
                "wait_ns": {r: hi - a for r, a in arr.items()}, "wait_total_ns": sum(hi - a for a in arr.values()),
                "skew_ns": hi - min(arr.values()), "last_rank": last, "step": f["step"], "matched_by": f["by"],
                "bytes": None, "bus_bw_gbps": None,
                "transfer_ns": f["end_ns"][last] - arr[last]}
        kids = facts["children"][str(f["step"])]
        ordered = sorted(arr, key=lambda r: (arr[r], r))
        med = ordered[(len(ordered) - 1) // 2]

        def before(rank, name):
            a, d = kids[rank][name]
            return max(0, min(a + d, arr[rank]) - a)
        best = None
        for name in sorted(kids[last]):
            ex = before(last, name) - before(med, name)
            if ex > 0 and (best is None or ex > best["excess_ns"]):
                best = {"name": name, "ns": before(last, name), "median_rank_ns": before(med, name), "excess_ns": ex}
        want["by"] = best
        for k, v in want.items():
            if c[k] != v:
                fail("instance %s/%s/%d: %s = %r, expected %r" % (f["group"], f["name"], f["seq"], k, c[k], v))
    print("ok")


if __name__ == "__main__":
    if sys.argv[1] == "gen":
        gen(sys.argv[2], len(sys.argv) > 3 and sys.argv[3] == "bad")
    else:
        check(sys.argv[2], sys.argv[3])
