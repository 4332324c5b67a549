#!/usr/bin/env python3
"""A reference for the device view (docs/device.md), written apart from the library:
reads a small Chrome/Kineto JSON trace and prints, as JSON, per ProfilerStep and device
(or per device span with --spans) what `stepscope steps --device --json` reports under
"devices": busy time by category (unions and exclusive times), overlap, idle causes,
launches and queue length.

Slow on purpose (every elementary interval is classified by scanning every op), for the
small traces the CLI tests write. Categories follow the built-in rules for the names
those traces use: annotations and syncs ignored; NCCL/RCCL kernels and XLA collectives
communication; gpu_memcpy or Memcpy* memcpy (direction from the name); gpu_memset or
Memset* memset; the rest compute.

    device_ref.py TRACE.json [--spans]
"""
import json
import re
import sys
from decimal import Decimal

CATS = ["compute", "communication", "memcpy", "memset", "other"]


def ns(us):
    return int((Decimal(str(us)) * 1000).to_integral_value())


def category(name, cat):
    if cat in ("gpu_user_annotation", "cuda_sync"):
        return None, None
    if re.match(r"^(nccl|rccl)(Dev)?Kernel_", name) or re.match(r"^(nccl|rccl).*Kernel", name):
        return "communication", None
    if re.match(r"^%?(all-reduce|all-gather|reduce-scatter|all-to-all|collective-permute)([.\-_ (]|$)", name):
        return "communication", None
    if cat == "gpu_memcpy" or name.startswith("Memcpy"):
        for d, words in (("htod", ("HtoD", "H2D")), ("dtoh", ("DtoH", "D2H")), ("dtod", ("DtoD", "D2D", "PtoP", "P2P"))):
            if any(w in name for w in words):
                return "memcpy", d
        return "memcpy", "other"
    if cat == "gpu_memset" or name.startswith("Memset"):
        return "memset", None
    return "compute", None


def load(path):
    d = json.load(open(path))
    ev = d["traceEvents"] if isinstance(d, dict) else d
    thread_names, process_names = {}, {}
    for e in ev:
        if e.get("ph") == "M" and e.get("name") == "thread_name":
            thread_names[(str(e["pid"]), str(e.get("tid")))] = e["args"]["name"]
        if e.get("ph") == "M" and e.get("name") == "process_name":
            process_names[str(e["pid"])] = e["args"]["name"]

    def is_device(pid, tid):
        return re.match(r"^stream \d+ *$", thread_names.get((pid, tid), "")) or process_names.get(pid, "").startswith(
            "/device:")

    ops, hosts, steps = [], {}, []
    for e in ev:
        if e.get("ph") != "X":
            continue
        pid, tid = str(e["pid"]), str(e.get("tid"))
        args = e.get("args") or {}
        corr = args.get("correlation", args.get("correlation_id"))
        corr = corr if isinstance(corr, int) and corr > 0 else None
        t0, t1 = ns(e["ts"]), ns(e["ts"]) + ns(e.get("dur", 0))
        if is_device(pid, tid):
            c, d = category(e["name"], e.get("cat", ""))
            if c:
                ops.append({"start": t0, "end": t1, "cat": c, "dir": d, "corr": corr, "pid": pid})
        else:
            if corr is not None and corr not in hosts:
                hosts[corr] = t0
            if re.match(r"^ProfilerStep#\d+$", e["name"]):
                steps.append((t0, t1))
    for o in ops:
        o["launch"] = hosts.get(o["corr"]) if o["corr"] is not None else None
    return ops, sorted(steps)


def window(ops, w0, w1, span):
    linked_device = any(o["launch"] is not None for o in ops)
    cuts = sorted({w0, w1} | {t for o in ops for t in (o["start"], o["end"], w0 if o["launch"] is None else o["launch"]) if w0 < t < w1})
    r = {c: [0, 0] for c in CATS}
    dirs = {d: 0 for d in ("htod", "dtoh", "dtod", "other")}
    busy = idle = hw = kw = other = overlap = exposed = qint = qmax = 0
    for a, b in zip(cuts, cuts[1:]):
        length = b - a
        run = {o["cat"] for o in ops if o["start"] <= a < o["end"]}
        rdir = {o["dir"] for o in ops if o["start"] <= a < o["end"] and o["cat"] == "memcpy"}
        pending = sum(1 for o in ops if o["launch"] is not None and o["launch"] <= a < o["start"])
        later = [o for o in ops if o["start"] > a]
        first = [c for c in CATS if c in run]
        for c in run:
            r[c][0] += length
        for d in rdir:
            dirs[d] += length
        if first:
            r[first[0]][1] += length
            busy += length
            if "compute" in run and "communication" in run:
                overlap += length
            if "compute" not in run and "communication" in run:
                exposed += length
        else:
            idle += length
            nxt = min((o["start"] for o in later), default=None)
            if pending:
                kw += length
            elif nxt is not None and all(o["launch"] is not None for o in later if o["start"] == nxt):
                hw += length
            else:
                other += length
        qint += pending * length
        if pending > qmax:
            qmax = pending
    inside = [o for o in ops if w0 <= o["start"] and (o["start"] < w1 or span)]
    delays = sorted(o["start"] - o["launch"] for o in inside if o["launch"] is not None)
    out = {
        "window_ns": w1 - w0,
        "busy_ns": busy,
        "by_category": {c: {"union_ns": r[c][0], "exclusive_ns": r[c][1]} for c in CATS},
        "overlap": {"compute_communication_ns": overlap, "exposed_communication_ns": exposed},
        "idle": {"total_ns": idle, "host_wait_ns": hw if linked_device else None,
                 "kernel_wait_ns": kw if linked_device else None, "other_ns": other if linked_device else None},
        "launches": {"matched": len(delays), "unmatched": len(inside) - len(delays), "delay_ns": {
            "median": (delays[(len(delays) - 1) // 2] + delays[len(delays) // 2]) // 2 if delays else None,
            "p90": delays[-(-9 * len(delays) // 10) - 1] if delays else None,
            "max": delays[-1] if delays else None}},
        "queue_max": qmax if linked_device else None,
        "queue_mean": qint / (w1 - w0) if linked_device and w1 > w0 else (0.0 if linked_device else None),
    }
    for d, v in dirs.items():
        out["by_category"]["memcpy"][d + "_ns"] = v
    return out


def main():
    ops, steps = load(sys.argv[1])
    span = "--spans" in sys.argv[2:]
    pids = sorted({o["pid"] for o in ops}, key=lambda p: (int(p) if p.isdigit() else 1 << 62, p))
    result = []
    for pid in pids:
        mine = [o for o in ops if o["pid"] == pid]
        if span:
            result.append([window(mine, min(o["start"] for o in mine), max(o["end"] for o in mine), True)])
        else:
            result.append([window(mine, w0, w1, False) for w0, w1 in steps])
    json.dump({"pids": pids, "windows": result}, sys.stdout)


if __name__ == "__main__":
    main()
