#!/usr/bin/env python3
"""Round trips of `stepscope cut` over real traces (tests/cli/test_cut.sh).

    cut_check.py STEPSCOPE TMPDIR [--tp TRACE_PROCESSOR] [--windows N] TRACE...

For each trace, N windows drawn at random (seeded by the file's name, so a failure
repeats), some overhanging the trace's ends, some with one lane (--lanes PID:TID) or
one slice name (--name): the cut is made with `stepscope cut --json`, and
  - `analyze` of the cut must equal `analyze --window` of the whole on the same lanes
    and names: every name's count, total, self, min, median and max; every thread
    lane's and process's slices, busy time, start and end; the busy time in all (async
    lanes are compared through their processes: which track an async slice lands on
    depends on slices outside the cut);
  - a window that keeps nothing must be refused ("nothing to cut") exactly when the
    windowed analysis finds no slice;
  - with --tp, Perfetto's trace_processor opens the cut without a JSON error, finds the
    slices the cut says it wrote, only names of the whole (slices, threads, processes),
    and only flows of the whole: each flow of the cut joins the window-cut versions of
    the two slices a flow of the whole joins (where Perfetto's times are exact), and a
    cut of the whole span has every flow of the whole.
Prints "ok"/"FAIL" lines; exits 1 on any failure.
"""
import argparse
import csv
import io
import json
import os
import random
import subprocess
import sys

FAILS = 0


def fail(msg):
    global FAILS
    FAILS += 1
    print(f"FAIL {msg}")


def run(argv):
    return subprocess.run(argv, capture_output=True, text=True)


def analyze(args, path, *extra):
    p = run([args.stepscope, 'analyze', '-q', '--json', '--no-group', path, *extra])  # exact names: a cut may hold one
    if p.returncode != 0:
        raise RuntimeError(f"analyze {path} {' '.join(extra)}: exit {p.returncode}: {p.stderr[-300:]}")
    return json.loads(p.stdout)


def digest(doc):
    names = sorted((n['name'], n['count'], n['total_ns'], n['self_ns'], n['min_ns'], n['median_ns'], n['max_ns'])
                   for n in doc['names'])
    lanes = sorted((x['pid'], x['tid'], x['process'], x['thread'], x['slices'], x['union_ns'], x['start_ns'],
                    x['end_ns']) for x in doc['lanes'] if x['slices'] and x['tid'] != '')
    procs = sorted((x['pid'], x['process'], x['slices'], x['union_ns'], x['start_ns'], x['end_ns'])
                   for x in doc['processes'] if x['slices'])
    return {'names': names, 'lanes': lanes, 'processes': procs, 'busy': doc['trace']['busy_ns']}


TP_SQL = """
select 'S' as k, name as a, '' as b, '' as c, '' as d from slice
union all select 'T', coalesce(name, ''), '', '', '' from thread
union all select 'P', coalesce(name, ''), '', '', '' from process
union all select 'F', so.name, so.ts, si.name, si.ts from flow f
  join slice so on so.id = f.slice_out join slice si on si.id = f.slice_in
union all select 'E', name, value, '', '' from stats where value > 0 and severity in ('error', 'data_loss')
  and name like 'json%';
"""


def tp_facts(args, path):
    sql = os.path.join(args.tmp, 'facts.sql')
    with open(sql, 'w') as f:
        f.write(TP_SQL)
    p = run([args.tp, '-q', sql, path])
    if p.returncode != 0:
        return None, f"trace_processor exit {p.returncode}: {p.stderr[-300:]}"
    rows = list(csv.reader(io.StringIO(p.stdout)))
    facts = {'S': [], 'T': set(), 'P': set(), 'F': [], 'E': []}
    for r in rows[1:]:
        if len(r) != 5:
            continue
        k, a, b, c, d = r
        if k == 'S':
            facts['S'].append(a)
        elif k in 'TP':
            facts[k].add(a)
        elif k == 'F':
            facts['F'].append((a, int(b), c, int(d)))
        elif k == 'E':
            facts['E'].append((a, b))
    return facts, None


def check_tp(args, label, whole_tp, cut_path, stats, window, whole):
    facts, err = tp_facts(args, cut_path)
    if err:
        return fail(f"{label}: {err}")
    bad = []
    if facts['E']:
        bad.append(f"JSON errors {facts['E']}")
    if len(facts['S']) != stats['slices']:
        bad.append(f"{len(facts['S'])} slices, the cut wrote {stats['slices']}")
    if whole_tp:
        if not set(facts['S']) <= set(whole_tp['S']):
            bad.append(f"slice names not in the whole: {sorted(set(facts['S']) - set(whole_tp['S']))[:3]}")
        for k, what in (('T', 'thread'), ('P', 'process')):
            if not facts[k] <= whole_tp[k]:
                bad.append(f"{what} names not in the whole: {sorted(facts[k] - whole_tp[k])[:3]}")
        # Perfetto reads times through a double (docs/perfetto.md, "Exact times"): past
        # 2^51 ns its nanoseconds are off by up to a few hundred, and a flow event next
        # to a slice's start may bind to its neighbour, so ends are compared exactly
        # only where its times are exact.
        if whole_tp['exact']:
            w0 = window[0]
            cut_of = {(a, max(b, w0), c, max(d, w0)) for a, b, c, d in whole_tp['F']}
            strays = [f for f in facts['F'] if f not in cut_of]
            if strays:
                bad.append(f"{len(strays)} flows no flow of the whole explains, e.g. {strays[:2]}")
        # A cut of the whole span keeps every flow, as Perfetto binds them.
        if whole and sorted(facts['F']) != sorted(whole_tp['F']):
            bad.append(f"{len(facts['F'])} flows where the whole has {len(whole_tp['F'])}")
    if bad:
        fail(f"{label}: trace_processor on the cut: " + "; ".join(bad))
    return len(facts['F'])


def one_trace(args, path):
    base = os.path.basename(path)
    whole = analyze(args, path)
    t = whole['trace']
    span = t['ts_max_ns'] - t['ts_min_ns']
    rng = random.Random(base)
    threads = [x for x in whole['lanes'] if x['tid'] != '' and x['slices']]
    names = [n['name'] for n in whole['names']]
    whole_tp = None
    if args.tp and not path.endswith('.pb'):
        whole_tp, err = tp_facts(args, path)
        if err:
            fail(f"{base}: {err}")
        else:
            whole_tp['exact'] = max(abs(t['ts_min_ns']), abs(t['ts_max_ns'])) < 2**51
    cuts = kept = flows = 0
    for k in range(args.windows):
        pad = span // 20 + 1
        a, b = sorted((rng.randint(-pad, span + pad), rng.randint(-pad, span + pad)))
        if k == 0:
            a, b = -pad, span + pad  # the whole, overhanging both ends
        if a == b or b <= 0 or a > span:
            continue
        window = f"{a}ns:{b}ns"
        extra_cut, extra_an, name_arg = [], [], []
        if k % 3 == 1 and threads:
            lane = rng.choice(threads)
            pattern = f"{lane['pid']}:{lane['tid']}"
            extra_cut, extra_an = ['--lanes', pattern], ['--lane', pattern]
        if k % 4 == 2 and names:
            name_arg = ['--name', rng.choice(names)]
        extra_cut += name_arg
        extra_an += name_arg
        label = f"{base} --window {window} {' '.join(extra_cut)}".strip()
        out = os.path.join(args.tmp, 'cut.json.gz' if k % 2 else 'cut.json')
        p = run([args.stepscope, 'cut', path, '-o', out, '-q', '--json', '--window', window, *extra_cut])
        ref = analyze(args, path, '--window', window, *extra_an)
        cuts += 1
        if p.returncode != 0:
            if 'nothing to cut' in p.stderr and not ref['names']:
                continue
            fail(f"{label}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
            continue
        stats = json.loads(p.stdout)
        kept += 1
        want, got = digest(ref), digest(analyze(args, out, *name_arg))
        diff = [key for key in want if want[key] != got[key]]
        if diff:
            fail(f"{label}: analyze of the cut differs from analyze --window in {diff}")
            for key in diff[:1]:
                if key == 'busy':
                    print(f"  whole {want[key]}, cut {got[key]}")
                    continue
                w, g = set(want[key]), set(got[key])
                print(f"  only in the whole: {sorted(w - g)[:3]}")
                print(f"  only in the cut:   {sorted(g - w)[:3]}")
        if args.tp:
            flows += check_tp(args, label, whole_tp, out, stats, (t['ts_min_ns'] + a, t['ts_min_ns'] + b),
                              k == 0 and not extra_cut) or 0
    print(f"ok   cut round trips: {base}: {cuts} windows, {kept} cut" + (f", {flows} flows in Perfetto" if args.tp
                                                                            else ""))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('stepscope')
    ap.add_argument('tmp')
    ap.add_argument('traces', nargs='+')
    ap.add_argument('--tp')
    ap.add_argument('--windows', type=int, default=6)
    args = ap.parse_args()
    for path in args.traces:
        try:
            one_trace(args, path)
        except (RuntimeError, json.JSONDecodeError) as e:
            fail(f"{os.path.basename(path)}: {e}")
    return 1 if FAILS else 0


if __name__ == '__main__':
    sys.exit(main())
