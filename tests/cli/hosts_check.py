#!/usr/bin/env python3
"""Checks `stepscope steps --json` and `analyze --json` on a generated multi-host profile
against what the generator knows (perf/gen_hosts.c --facts), recomputing every derived
number here by the rules docs/hosts.md states: medians, slowest and median hosts, the
stragglers and the component that explains each step's slowest host.

  hosts_check.py steps FACTS STEPS_JSON xplane|kineto RATIO
  hosts_check.py analyze FACTS ANALYZE_JSON xplane|kineto KERNELS GPUS

Prints one line per failed check and exits 1 if any."""
import json
import sys

bad = []


def check(cond, what):
    if not cond:
        bad.append(what)


def median(v):
    v = sorted(v)
    n = len(v)
    lo, hi = v[(n - 1) // 2], v[n // 2]
    return lo + (hi - lo) // 2


def components(fs):
    """A host-step's components, by the tie order: collectives, device, children, unattributed."""
    out = [("collective", "all-reduce", fs["collective_ns"]),
           ("device", None, fs["device_busy_ns"] - fs["collective_ns"])]
    for name, ns in fs["children"].items():
        out.append(("child", name, ns))
    out.append(("unattributed", None, fs["dur_ns"] - sum(fs["children"].values())))
    return out


ORDER = {"collective": 0, "device": 1, "child": 2, "unattributed": 3}


def cause(slow, med):
    m = {(k, n): ns for k, n, ns in components(med)}
    best = None
    for k, n, ns in components(slow):
        ex = ns - m.get((k, n), 0)
        if ex <= 0:
            continue
        key = (-ex, ORDER[k], n or "")
        if best is None or key < best[0]:
            best = (key, k, n, ns, m.get((k, n), 0))
    return None if best is None else best[1:]


def check_steps(facts, out, flavor, ratio):
    names = [h["xplane_host" if flavor == "xplane" else "kineto_host"] for h in facts["hosts"]]
    check(out["hosts_count"] == len(names), f"hosts_count {out['hosts_count']} != {len(names)}")
    got = {h["host"]: h for h in out["hosts"]}
    check(sorted(got) == sorted(names), f"hosts {sorted(got)} != {sorted(names)}")
    order = [h["host"] for h in out["hosts"]]
    for fh, name in zip(facts["hosts"], names):
        h = got.get(name)
        if not h:
            continue
        check(len(h["steps"]) == len(fh["steps"]), f"{name}: {len(h['steps'])} steps, expected {len(fh['steps'])}")
        for fs, s in zip(fh["steps"], h["steps"]):
            w = f"{name} step {fs['step']}"
            check(s["step"] == fs["step"], f"{w}: step number {s['step']}")
            check(s["dur_ns"] == fs["dur_ns"], f"{w}: dur_ns {s['dur_ns']} != {fs['dur_ns']}")
            check(s["children"] == fs["children"], f"{w}: children {s['children']} != {fs['children']}")
            d = s["device"]
            check(d is not None and d["busy_ns"] == fs["device_busy_ns"],
                  f"{w}: device busy {d and d['busy_ns']} != {fs['device_busy_ns']}")
            check(d is not None and d["collectives"] == {"all-reduce": fs["collective_ns"]},
                  f"{w}: collectives {d and d['collectives']} != all-reduce {fs['collective_ns']}")
        durs = [fs["dur_ns"] for fs in fh["steps"]]
        check(h["median_ns"] == median(durs), f"{name}: median_ns {h['median_ns']} != {median(durs)}")
        check(h["min_ns"] == min(durs) and h["max_ns"] == max(durs), f"{name}: min/max")
    # Per step across hosts, recomputed.
    nsteps = len(facts["hosts"][0]["steps"])
    slowest_count = {n: 0 for n in names}
    strag_count = {n: 0 for n in names}
    want_strag = []
    for k in range(nsteps):
        rows = [(fh["steps"][k]["dur_ns"], order.index(n), n, fh["steps"][k]) for fh, n in zip(facts["hosts"], names)]
        durs = [r[0] for r in rows]
        med = median(durs)
        by_dur = sorted(rows, key=lambda r: (r[0], r[1]))
        top = max(durs)
        slow = min((r for r in rows if r[0] == top), key=lambda r: r[1])
        mid = by_dur[(len(rows) - 1) // 2]
        s = out["steps"][k]
        w = f"step {k}"
        check(s["step"] == k and s["hosts"] == len(names), f"{w}: step/hosts {s['step']} {s['hosts']}")
        check(s["min_ns"] == min(durs) and s["max_ns"] == top and s["median_ns"] == med,
              f"{w}: min/median/max {s['min_ns']} {s['median_ns']} {s['max_ns']} != {min(durs)} {med} {top}")
        check(s["spread_ns"] == top - min(durs), f"{w}: spread")
        check(s["slowest"] == slow[2], f"{w}: slowest {s['slowest']} != {slow[2]}")
        check(s["median_host"] == mid[2], f"{w}: median host {s['median_host']} != {mid[2]}")
        c = cause(slow[3], mid[3])
        if c is None:
            check(s["by"] is None, f"{w}: by {s['by']} != null")
        else:
            kind, name, ns, mns = c
            b = s["by"] or {}
            check((b.get("kind"), b.get("name"), b.get("ns"), b.get("median_host_ns")) == (kind, name, ns, mns),
                  f"{w}: by {b} != {(kind, name, ns, mns)}")
        strag = top >= ratio * med
        check(s["straggler"] == strag, f"{w}: straggler {s['straggler']} != {strag}")
        slowest_count[slow[2]] += 1
        if strag:
            strag_count[slow[2]] += 1
            want_strag.append((k, slow[2], top, med))
    got_strag = [(x["step"], x["host"], x["dur_ns"], x["median_ns"]) for x in out["stragglers"]]
    check(got_strag == want_strag, f"stragglers {got_strag} != {want_strag}")
    for n in names:
        h = got.get(n)
        if h:
            check(h["slowest"] == slowest_count[n] and h["stragglers"] == strag_count[n],
                  f"{n}: slowest/stragglers {h['slowest']}/{h['stragglers']} != {slowest_count[n]}/{strag_count[n]}")
    # The planted stragglers are exactly the stragglers found, each with its cause.
    planted = {(p["step"], names[p["host"]]): p for p in facts["planted"]}
    check(set(planted) == {(x[0], x[1]) for x in got_strag},
          f"planted {sorted(planted)} != found {[(x[0], x[1]) for x in got_strag]}")
    for x in out["stragglers"]:
        p = planted.get((x["step"], x["host"]))
        if not p:
            continue
        b = x["by"] or {}
        check(b.get("kind") == p["kind"] and b.get("name") == p["name"],
              f"step {x['step']}: by {b.get('kind')} {b.get('name')} != planted {p['kind']} {p['name']}")
        check(b.get("excess_ns", 0) >= p["extra_ns"] * 0.99,
              f"step {x['step']}: excess {b.get('excess_ns')} < planted {p['extra_ns']}")


def check_analyze(facts, out, flavor, kernels, gpus):
    names = [h["xplane_host" if flavor == "xplane" else "kineto_host"] for h in facts["hosts"]]
    nsteps = len(facts["hosts"][0]["steps"])
    per_host = nsteps * (1 + 5 + gpus * (kernels + 1))
    hosts = {h["host"]: h for h in out["hosts"]}
    check(sorted(hosts) == sorted(names), f"hosts {sorted(hosts)}")
    for n in names:
        check(hosts.get(n, {}).get("slices") == per_host, f"{n}: slices {hosts.get(n, {}).get('slices')} != {per_host}")
    check(out["trace"]["slices"] == per_host * len(names), f"total slices {out['trace']['slices']}")
    check(out["trace"]["hosts"] == len(names), "trace.hosts")
    got = {x["name"]: x for x in out["names"]}
    for child in ["input", "forward", "backward", "sync", "optimizer"]:
        v = [fs["children"][child] for fh in facts["hosts"] for fs in fh["steps"]]
        x = got.get(child, {})
        want = (len(v), sum(v), min(v), median(v), max(v))
        have = (x.get("count"), x.get("total_ns"), x.get("min_ns"), x.get("median_ns"), x.get("max_ns"))
        check(have == want, f"name {child}: {have} != {want}")
        check(x.get("self_ns") == sum(v), f"name {child}: self {x.get('self_ns')} != {sum(v)} (no children)")
    step_name = "train_step" if flavor == "xplane" else None
    if step_name:
        v = [fs["dur_ns"] for fh in facts["hosts"] for fs in fh["steps"]]
        x = got.get(step_name, {})
        check((x.get("count"), x.get("total_ns"), x.get("median_ns")) == (len(v), sum(v), median(v)),
              f"name {step_name}: {x}")
    coll = "all-reduce.1" if flavor == "xplane" else \
        "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)"
    check(got.get(coll, {}).get("count") == len(names) * nsteps * gpus, f"name {coll}: count")


def main():
    mode, facts_path, out_path, flavor = sys.argv[1:5]
    facts = json.load(open(facts_path))
    out = json.load(open(out_path))
    if mode == "steps":
        check_steps(facts, out, flavor, float(sys.argv[5]))
    else:
        check_analyze(facts, out, flavor, int(sys.argv[5]), int(sys.argv[6]))
    for b in bad[:20]:
        print(b)
    if len(bad) > 20:
        print(f"... and {len(bad) - 20} more")
    sys.exit(1 if bad else 0)


main()
