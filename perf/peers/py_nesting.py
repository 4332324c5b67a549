#!/usr/bin/env python3
"""The peer that lesson 3 does by hand: json.load a Chrome trace, then one plain pass
that nests complete slices per lane and sums per-name count, total and self time.

    py_nesting.py TRACE[.json|.json.gz] [--float] [--json OUT]

It follows the interval model of DESIGN.md (lanes are (pid, tid) with a missing or zero
tid meaning the pid; sort by ts ascending, dur descending, file order; half-open
intervals; a child overrunning its parent by at most the trace's resolution is clamped,
a bigger overrun is an overlap kept out of the tree) so its answers can be compared
with stepscope's. By default timestamps are read exactly (json's parse_float keeps the
text, converted to integer nanoseconds), because a double holds a 1.7e15 us Kineto
timestamp only to 0.25 us; --float does what the lesson does (plain floats), which is
faster and can misplace children by a fraction of a microsecond.

Prints one JSON line with counts and the seconds spent loading and nesting; --json OUT
also writes the per-name table.
"""
import gzip
import json
import resource
import sys
import time


def ns_from_text(s):
    """Microseconds written as decimal text -> integer nanoseconds, exactly."""
    if isinstance(s, (int, float)):
        return round(s * 1000)
    if 'e' in s or 'E' in s:
        return round(float(s) * 1000)
    neg = s.startswith('-')
    if neg:
        s = s[1:]
    whole, _, frac = s.partition('.')
    frac3 = (frac + '000')[:3]
    ns = int(whole or '0') * 1000 + int(frac3)
    if len(frac) > 3 and frac[3] >= '5':
        ns += 1
    return -ns if neg else ns


def load(path, exact):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rb') as f:
        if exact:
            doc = json.load(f, parse_float=str)
        else:
            doc = json.load(f)
    return doc['traceEvents'] if isinstance(doc, dict) else doc


def to_ns(v, exact):
    if isinstance(v, str):
        return ns_from_text(v)
    if isinstance(v, int):
        return v * 1000
    return round(v * 1000)


def collect(events, exact):
    """Complete slices per lane: lists of [ts, dur, order, name]."""
    lanes = {}
    open_b = {}
    whole_us = True
    unmatched_e = 0
    order = 0
    for e in events:
        ph = e.get('ph')
        if ph not in ('X', 'B', 'E'):
            continue
        pid = e.get('pid', 0)
        tid = e.get('tid', 0)
        if tid in (0, None, '0') and pid not in (0, None):
            tid = pid
        lane = (pid, tid)
        ts_raw = e.get('ts', 0)
        if isinstance(ts_raw, float) or (isinstance(ts_raw, str) and '.' in ts_raw and
                                         ts_raw.split('.', 1)[1].strip('0')):
            whole_us = False
        ts = to_ns(ts_raw, exact)
        if ph == 'X':
            dur_raw = e.get('dur', 0)
            if isinstance(dur_raw, float) or (isinstance(dur_raw, str) and '.' in dur_raw and
                                              dur_raw.split('.', 1)[1].strip('0')):
                whole_us = False
            lanes.setdefault(lane, []).append([ts, to_ns(dur_raw, exact), order, e.get('name', '')])
        elif ph == 'B':
            open_b.setdefault(lane, []).append((ts, order, e.get('name', '')))
        else:
            stack = open_b.get(lane)
            if not stack:
                unmatched_e += 1
                continue
            bts, border, name = stack.pop()
            lanes.setdefault(lane, []).append([bts, ts - bts, border, name])
        order += 1
    unclosed = sum(len(s) for s in open_b.values())
    return lanes, (1000 if whole_us else 1), unmatched_e, unclosed


def nest(lanes, tol):
    names = {}
    clamped = overlaps = slices = 0
    for lane, sl in lanes.items():
        sl.sort(key=lambda s: (s[0], -s[1], s[2]))
        stack = []  # [end, child_sum, name, dur]
        def finish(top):
            rec = names.setdefault(top[2], [0, 0, 0, []])
            rec[0] += 1
            rec[1] += top[3]
            rec[2] += top[3] - top[1]
            rec[3].append(top[3])
        for ts, dur, _, name in sl:
            end = ts + dur
            while stack and stack[-1][0] <= ts:
                finish(stack.pop())
            if stack and end > stack[-1][0]:
                if end - stack[-1][0] <= tol:
                    end = stack[-1][0]
                    dur = end - ts
                    clamped += 1
                else:
                    overlaps += 1
                    continue
            if stack:
                stack[-1][1] += dur
            stack.append([end, 0, name, dur])
            slices += 1
        while stack:
            finish(stack.pop())
    table = []
    for name, (count, total, self_ns, durs) in names.items():
        durs.sort()
        n = len(durs)
        median = durs[n // 2] if n % 2 else (durs[n // 2 - 1] + durs[n // 2]) // 2
        table.append({'name': name, 'count': count, 'total_ns': total, 'self_ns': self_ns,
                      'min_ns': durs[0], 'median_ns': median, 'max_ns': durs[-1]})
    table.sort(key=lambda r: (-r['total_ns'], r['name']))
    return table, slices, clamped, overlaps


def main(argv):
    args = argv[1:]
    exact = True
    out = None
    if '--float' in args:
        args.remove('--float')
        exact = False
    if '--json' in args:
        i = args.index('--json')
        out = args[i + 1]
        del args[i:i + 2]
    if len(args) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    t0 = time.perf_counter()
    events = load(args[0], exact)
    t1 = time.perf_counter()
    lanes, tol, unmatched_e, unclosed = collect(events, exact)
    table, slices, clamped, overlaps = nest(lanes, tol)
    t2 = time.perf_counter()
    summary = {'events': len(events), 'slices': slices, 'lanes': len(lanes), 'clamped': clamped,
               'overlaps': overlaps, 'unmatched_e': unmatched_e, 'unclosed_b': unclosed,
               'load_s': round(t1 - t0, 3), 'nest_s': round(t2 - t1, 3),
               'peak_rss_kb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}
    if out:
        with open(out, 'w') as f:
            json.dump({'summary': summary, 'names': table}, f)
    print(json.dumps(summary))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
