#!/usr/bin/env python3
"""The cut benchmark (run by perf/run_cut.sh; see docs/benchmarks.md).

    bench_cut.py --cli STEPSCOPE --trace SHAPE:PATH ... [--runs 3] [--tmp DIR] [--results OUT.json]

For each trace, side by side in this one run:
  - `stepscope analyze --json` of the whole trace (what the cut is measured against);
  - `stepscope cut --steps N` of its middle step, keeping every arg (the default), and
    with `--args known` (the ids and correlations only), each writing a .json;
before any time is printed, analyze of the cut must equal `analyze --window` of the
whole on the step's time (names, counts, totals, self times), else WRONG ANSWER.
Wall time is the best of --runs (the median beside it), CPU time the least, peak RSS
the largest, each command under perf/runstat (measure.py).
"""
import argparse
import json
import os
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402


def mb(n):
    return n / 1e6


def fmt(m, size):
    wall, cpu = m.get('best', m['wall']), m.get('best_cpu', m['cpu'])
    return (f"{wall:8.3f} s (median {m['wall']:.3f}) {mb(size) / wall:7.0f} MB/s, CPU {cpu:7.2f} s, "
            f"RSS {mb(m['rss']):7.1f} MB ({m['rss'] / size:.3f}x the file)")


def keep(m):
    return {'wall': m.get('best', m['wall']), 'cpu': m.get('best_cpu', m['cpu']), 'rss': m['rss'],
            'median': m['wall'], 'walls': m.get('walls')}


def json_of(argv):
    p = subprocess.run(argv, capture_output=True, text=True)
    if p.returncode != 0:
        raise RuntimeError(f"{' '.join(argv[:3])}: exit {p.returncode}: {p.stderr.strip()[-300:]}")
    return json.loads(p.stdout)


def names(doc):
    return sorted((n['name'], n['count'], n['total_ns'], n['self_ns']) for n in doc['names'])


def bench(args, shape, path, results):
    size = os.path.getsize(path)
    print(f"--- {shape}: {mb(size):.0f} MB of JSON")
    steps = json_of([args.cli, 'steps', '-q', '--json', path])
    st = steps['steps']
    if not st:
        print("  no steps found: nothing to cut")
        return False
    mid = st[len(st) // 2]
    step = mid['index']
    print(f"  {len(st)} steps ({steps['rule']}); cutting step {step}, {mid['dur_ns'] / 1e6:.2f} ms")
    row = {'shape': shape, 'bytes': size, 'steps': len(st), 'step': step}
    an = measure.run_median([args.cli, 'analyze', '-q', '--json', path], args.runs, keep_output=True)
    if an['rc'] != 0:
        print(f"  analyze failed: {an['err'][-300:]}")
        return False
    whole = json.loads(an['out'])
    t0 = whole['trace']['ts_min_ns']
    out = os.path.join(args.tmp, f"cut_{shape}_step.json")
    ok = True
    rows = [('analyze (whole)', 'analyze', an)]
    for title, key, extra in (('cut --steps N', 'cut', []), ('cut --args known', 'cut_known', ['--args', 'known'])):
        m = measure.run_median([args.cli, 'cut', '-q', path, '--steps', str(step), '-o', out, *extra], args.runs)
        if m['rc'] != 0:
            print(f"  {title}: failed: {m['err'][-300:]}")
            ok = False
            continue
        ref = json_of([args.cli, 'analyze', '-q', '--json', path, '--window',
                       f"{mid['ts_ns'] - t0}ns:{mid['ts_ns'] + mid['dur_ns'] - t0}ns"]) if key == 'cut' else None
        if ref is not None and names(json_of([args.cli, 'analyze', '-q', '--json', out])) != names(ref):
            print(f"  {title}: WRONG ANSWER: analyze of the cut differs from analyze --window of the whole")
            ok = False
            continue
        row['cut_bytes' if key == 'cut' else 'cut_known_bytes'] = os.path.getsize(out)
        rows.append((title, key, m))
    for title, key, m in rows:
        row[key] = keep(m)
        print(f"  {title:22s}{fmt(m, size)}  runs {m['walls']}")
    a = row['analyze']
    for key, title in (('cut', 'cut'), ('cut_known', 'cut --args known')):
        c = row.get(key)
        if c:
            print(f"  {title}/analyze: {c['wall'] / a['wall']:.2f}x the wall time, {c['cpu'] / a['cpu']:.2f}x the CPU, "
                  f"{c['rss'] / a['rss']:.2f}x the memory")
    if 'cut_bytes' in row:
        print(f"  the step's cut: {mb(row['cut_bytes']):.1f} MB ({row['cut_bytes'] / size * 100:.3f}% of the trace)")
    results['traces'].append(row)
    return ok


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--trace', action='append', default=[])
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--tmp', default='.')
    ap.add_argument('--results')
    args = ap.parse_args()
    results = {'traces': [], 'cores': os.cpu_count(), 'load_start': os.getloadavg()}
    print(f"machine: {os.cpu_count()} cores, load average {results['load_start'][0]:.2f}")
    ok = True
    for spec in args.trace:
        shape, path = spec.split(':', 1)
        try:
            ok &= bench(args, shape, path, results)
        except RuntimeError as e:
            print(f"  failed: {e}")
            ok = False
    results['load_end'] = os.getloadavg()
    if args.results:
        with open(args.results, 'w') as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
