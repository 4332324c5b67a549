#!/usr/bin/env python3
"""The analyzer benchmark (run by bench/run_analyze.sh; see docs/benchmarks.md).

    bench_analyze.py --cli STEPSCOPE --trace LABEL:PLAIN:GZ:FACTS ... [--venv-python PY]
                     [--fixtures DIR] [--runs 3] [--results OUT.json]

For each generated trace: `stepscope analyze --json` on the plain and the gzip file
(median of --runs runs: wall, CPU and peak RSS), a zlib inflate loop on the gzip file
as the reference for "limited only by inflate", and the peers on the same plain file,
side by side in this one run: py_nesting.py (json.load + a nesting pass) and
hta_breakdown.py (Holistic Trace Analysis, with --venv-python). It checks that
stepscope's per-name count/total/self agree with what the generator wrote in FACTS
before printing any speed. Then the real fixtures, stepscope against py_nesting.py.

Environment: BENCH_PY_LARGE=0 skips the Python peer on traces over 200 MB (it is then
extrapolated from the smaller one, and says so); BENCH_HTA_LARGE=1 runs HTA on traces
over 200 MB too (default: extrapolated, since HTA needs minutes per 100 MB).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LARGE = 200e6
INFLATE = (
    "import sys, zlib\n"
    "d = zlib.decompressobj(31); n = 0\n"
    "with open(sys.argv[1], 'rb') as f:\n"
    "    while True:\n"
    "        c = f.read(1 << 16)\n"
    "        if not c: break\n"
    "        n += len(d.decompress(c))\n"
    "n += len(d.flush()); print(n)\n")


def mb(n):
    return n / 1e6


def mem_available():
    with open('/proc/meminfo') as f:
        for line in f:
            if line.startswith('MemAvailable:'):
                return int(line.split()[1]) * 1024
    return 0


def check_names(analyze_json, facts):
    """Names whose count/total/self differ between stepscope and the generator."""
    got = {r['name']: r for r in analyze_json.get('names', [])}
    bad = []
    for name, want in facts['names'].items():
        r = got.get(name)
        have = r and (r['count'], r['total_ns'], r['self_ns'])
        if have != (want['count'], want['total_ns'], want['self_ns']):
            bad.append(f"{name}: stepscope {have}, generator "
                       f"{(want['count'], want['total_ns'], want['self_ns'])}")
    return bad


def fmt_run(m, size, events=None):
    s = (f"{m['wall']:7.3f} s  {mb(size) / m['wall']:8.1f} MB/s  "
         f"{mb(size) / max(m['cpu'], 1e-9):8.1f} MB/s/core  peak RSS {mb(m['rss']):8.1f} MB "
         f"({m['rss'] / size:.3f}x)")
    if events:
        s += f"  {events / m['wall'] / 1e6:6.2f} M events/s"
    return s


def bench_trace(args, label, plain, gz, facts_path, results):
    facts = json.load(open(facts_path))
    size = facts['bytes']
    events = facts['events']
    print(f"--- {label}: {mb(size):.0f} MB of JSON ({mb(os.path.getsize(gz)):.1f} MB gzip), "
          f"{events} events, {facts['steps']} steps")
    row = {'label': label, 'bytes': size, 'gz_bytes': os.path.getsize(gz), 'events': events}
    ok = True
    for kind, path in (('plain', plain), ('gzip', gz)):
        m = measure.run_median([args.cli, 'analyze', '--json', path], args.runs, keep_output=True)
        if m['rc'] != 0:
            print(f"  stepscope analyze {kind}: FAILED (exit {m['rc']}): {m['err'].strip()[:300]}")
            row[kind] = {'error': m['err'].strip()[:300]}
            ok = False
            continue
        bad = check_names(json.loads(m['out']), facts)
        if bad:
            ok = False
            print(f"  stepscope analyze {kind}: WRONG ANSWER, {len(bad)} names differ:")
            for b in bad[:5]:
                print(f"    {b}")
        print(f"  stepscope {kind:5s} {fmt_run(m, size, events)}  runs {m['walls']}")
        row[kind] = {'wall': m['wall'], 'cpu': m['cpu'], 'rss': m['rss'], 'walls': m['walls'],
                     'names_agree': not bad}
    inf = measure.run_median([sys.executable, '-c', INFLATE, gz], args.runs)
    if inf['rc'] == 0:
        print(f"  zlib inflate only  {inf['wall']:7.3f} s  {mb(size) / inf['wall']:8.1f} MB/s  "
              f"(reference for gzip)")
        row['inflate'] = {'wall': inf['wall'], 'cpu': inf['cpu']}

    py_runs = args.runs if size < LARGE else 1
    py = None
    if size >= LARGE and os.environ.get('BENCH_PY_LARGE', '1') == '0':
        print("  python peer: skipped (BENCH_PY_LARGE=0)")
    elif size >= LARGE and args.py_rss_per_byte and \
            args.py_rss_per_byte * size > 0.8 * mem_available():
        print(f"  python peer: skipped, it would need about {args.py_rss_per_byte * size / 1e9:.1f} GB "
              f"of {mem_available() / 1e9:.1f} GB available")
    else:
        py = measure.run_median([sys.executable, os.path.join(HERE, 'py_nesting.py'), plain], py_runs,
                                keep_output=True)
        if py['rc'] != 0:
            print(f"  python peer FAILED: {py['err'].strip()[-300:]}")
            py = None
        else:
            args.py_rss_per_byte = py['rss'] / size
            args.py_s_per_byte = py['wall'] / size
            print(f"  python json+nest  {fmt_run(py, size, events)}  runs {py['walls']}")
            row['python'] = {'wall': py['wall'], 'cpu': py['cpu'], 'rss': py['rss'], 'runs': py_runs,
                             'detail': json.loads(py['out'])}
    if py is None and getattr(args, 'py_s_per_byte', None):
        row['python'] = {'wall': args.py_s_per_byte * size, 'rss': args.py_rss_per_byte * size,
                         'extrapolated': True}
        print(f"  python json+nest  ~{row['python']['wall']:.1f} s, ~{mb(row['python']['rss']):.0f} MB "
              f"peak RSS (extrapolated linearly from the smaller trace)")

    hta = None
    if args.venv_python and (size < LARGE or os.environ.get('BENCH_HTA_LARGE') == '1'):
        hta = measure.run_once([args.venv_python, os.path.join(HERE, 'hta_breakdown.py'), plain],
                               capture=True)
        if hta['rc'] != 0:
            print(f"  HTA peer FAILED: {hta['err'].strip()[-300:]}")
            hta = None
        else:
            detail = json.loads(hta['out'])
            args.hta_s_per_byte = hta['wall'] / size
            print(f"  HTA load+breakdown {fmt_run(hta, size, events)}  (1 run; load "
                  f"{detail['load_s']} s, breakdown {detail['breakdown_s']} s)")
            row['hta'] = {'wall': hta['wall'], 'cpu': hta['cpu'], 'rss': hta['rss'], 'runs': 1,
                          'detail': detail}
    elif not args.venv_python:
        print("  HTA peer: skipped (no interop environment: scripts/interop/setup.sh)")
    if hta is None and getattr(args, 'hta_s_per_byte', None) and 'hta' not in row:
        row['hta'] = {'wall': args.hta_s_per_byte * size, 'extrapolated': True}
        print(f"  HTA load+breakdown ~{row['hta']['wall']:.0f} s (extrapolated linearly from the "
              f"smaller trace; BENCH_HTA_LARGE=1 runs it)")

    ss = row.get('plain', {})
    if 'wall' in ss:
        for peer in ('python', 'hta'):
            if peer in row:
                tag = ' (extrapolated)' if row[peer].get('extrapolated') else ''
                print(f"  ratio: stepscope is {row[peer]['wall'] / ss['wall']:.1f}x faster than "
                      f"{peer}{tag}" + (f", uses {row[peer]['rss'] / ss['rss']:.1f}x less memory"
                                        if 'rss' in row[peer] else ''))
    results['traces'].append(row)
    return ok


def targets(results):
    print("--- targets")
    for row in results['traces']:
        p, g, inf = row.get('plain', {}), row.get('gzip', {}), row.get('inflate')
        if 'cpu' in p:
            rate = mb(row['bytes']) / p['cpu']
            print(f"  {row['label']}: plain {rate:.0f} MB/s per core (target >= 1000): "
                  f"{'met' if rate >= 1000 else 'MISSED'}")
        if 'wall' in g and inf:
            over = g['wall'] / inf['wall']
            print(f"  {row['label']}: gzip takes {over:.2f}x the inflate-only time "
                  f"(target: limited by inflate, about 1x; the JSON work overlaps or adds)")
        if 'rss' in p and row['bytes'] >= LARGE:
            r = p['rss'] / row['bytes']
            print(f"  {row['label']}: peak RSS {r:.3f}x the JSON size (target <= 0.4x): "
                  f"{'met' if r <= 0.4 else 'MISSED'}")
        if 'wall' in p and 'python' in row:
            r = row['python']['wall'] / p['wall']
            print(f"  {row['label']}: {r:.0f}x faster than the Python pass (target >= 30x): "
                  f"{'met' if r >= 30 else 'MISSED'}")


def bench_fixtures(args, results):
    base = os.path.join(args.fixtures, 'traces')
    files = []
    for sub in ('kineto', 'chrome', 'torch-legacy'):
        d = os.path.join(base, sub)
        if os.path.isdir(d):
            files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(('.json', '.gz'))]
    print(f"--- real fixtures ({len(files)} files; small, so start-up dominates)")
    for path in files:
        name = os.path.relpath(path, base)
        nbytes = os.path.getsize(path)
        if path.endswith('.gz'):
            nbytes = int(measure.run_once([sys.executable, '-c', INFLATE, path], capture=True)['out'])
        m = measure.run_median([args.cli, 'analyze', '--json', path], args.runs)
        py = measure.run_median([sys.executable, os.path.join(HERE, 'py_nesting.py'), path], args.runs)
        entry = {'file': name, 'bytes': nbytes}
        line = f"  {name:45s} {mb(nbytes):7.2f} MB"
        if m['rc'] == 0:
            entry['stepscope'] = {'wall': m['wall'], 'rss': m['rss']}
            line += f"  stepscope {m['wall'] * 1e3:7.1f} ms"
        else:
            line += f"  stepscope exit {m['rc']}: {m['err'].strip()[:80]}"
        if py['rc'] == 0:
            entry['python'] = {'wall': py['wall'], 'rss': py['rss']}
            line += f"  python {py['wall'] * 1e3:7.1f} ms"
            if m['rc'] == 0:
                line += f"  ({py['wall'] / m['wall']:.0f}x)"
        print(line)
        results['fixtures'].append(entry)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--trace', action='append', default=[])
    ap.add_argument('--venv-python')
    ap.add_argument('--fixtures')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--results')
    args = ap.parse_args()
    args.py_rss_per_byte = None
    results = {'traces': [], 'fixtures': [], 'cores': os.cpu_count(),
               'cpu': next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
                            if l.startswith('model name')), '?')}
    print(f"machine: {results['cpu']}, {results['cores']} cores, "
          f"{mem_available() / 2**30:.1f} GiB available")
    ok = True
    for spec in args.trace:
        label, plain, gz, facts = spec.split(':')
        ok &= bench_trace(args, label, plain, gz, facts, results)
    targets(results)
    if args.fixtures and os.path.isdir(args.fixtures):
        bench_fixtures(args, results)
    if args.results:
        with open(args.results, 'w') as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
