#!/usr/bin/env python3
"""The analyzer benchmark (run by perf/run_analyze.sh; see docs/benchmarks.md).

    bench_analyze.py --cli STEPSCOPE --trace LABEL:PLAIN:GZ:FACTS ... [--venv-python PY]
                     [--zinflate BIN] [--fixtures DIR] [--runs 3] [--results OUT.json]

For each generated trace: `stepscope analyze --json` on the plain and the gzip file
(median of --runs runs: wall, CPU and peak RSS), zlib inflating the gzip file to
nowhere (perf/zinflate.c) as the reference for "limited only by inflate", and the peers on the same plain file,
side by side in this one run: py_nesting.py (json.load + a nesting pass) and
hta_breakdown.py (Holistic Trace Analysis, with --venv-python). It checks that
stepscope's per-name count/total/self agree with what the generator wrote in FACTS
before printing any speed. Then the real fixtures, stepscope against py_nesting.py.

The Python peer is timed the lesson's way (py_nesting.py --float: plain doubles) and,
on the smaller trace, also exact (timestamps kept as text, as stepscope reads them).

Environment: BENCH_PY_LARGE=0 skips the Python peer on traces over 200 MB (it is then
extrapolated from the smaller one, and says so); BENCH_HTA=0 skips HTA; BENCH_HTA_LARGE=1 runs HTA on traces
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


def inflate_cmd(args, gz):
    """zlib inflate to nowhere: perf/zinflate.c when built, else a Python loop (slower:
    it allocates every output chunk)."""
    if args.zinflate and os.access(args.zinflate, os.X_OK):
        return [args.zinflate, gz]
    return [sys.executable, '-c', INFLATE, gz]


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


def run_python(args, row, key, title, plain, size, facts, flags):
    """py_nesting.py on the plain trace; on a large one only when memory allows (else
    extrapolated linearly from the smaller trace, and said so)."""
    events = facts['events']
    rate = args.py_rate.get(key)
    if size >= LARGE and os.environ.get('BENCH_PY_LARGE', '1') == '0':
        print(f"  {title}: skipped (BENCH_PY_LARGE=0)")
        py = None
    elif size >= LARGE and rate and rate[1] * size > 0.8 * mem_available():
        print(f"  {title}: skipped, it would need about {rate[1] * size / 1e9:.1f} GB of "
              f"{mem_available() / 1e9:.1f} GB available")
        py = None
    else:
        runs = args.runs if size < LARGE else 1
        py = measure.run_median([sys.executable, os.path.join(HERE, 'py_nesting.py'), plain] + flags,
                                runs, keep_output=True)
        if py['rc'] != 0:
            print(f"  {title} FAILED: {py['err'].strip()[-300:]}")
            py = None
        else:
            detail = json.loads(py['out'])
            args.py_rate[key] = (py['wall'] / size, py['rss'] / size, py['cpu'] / size)
            print(f"  {title:17s} {fmt_run(py, size, events)}  runs {py['walls']}")
            if detail['slices'] != facts['complete'] or detail['overlaps']:
                print(f"    (its answer is off: {detail['slices']} slices nested of {facts['complete']}, "
                      f"{detail['overlaps']} false overlaps: a double holds a 1.7e15 us timestamp only "
                      f"to 0.25 us)")
            row[key] = {'wall': py['wall'], 'cpu': py['cpu'], 'rss': py['rss'], 'runs': runs,
                        'detail': detail}
    if py is None and rate:
        row[key] = {'wall': rate[0] * size, 'cpu': rate[2] * size, 'rss': rate[1] * size,
                    'extrapolated': True}
        print(f"  {title:17s} ~{row[key]['wall']:.1f} s, ~{mb(row[key]['rss']):.0f} MB peak RSS "
              f"(extrapolated linearly from the smaller trace)")


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
    inf = measure.run_median(inflate_cmd(args, gz), args.runs)
    if inf['rc'] == 0:
        print(f"  zlib inflate only {inf['wall']:7.3f} s  {mb(size) / inf['wall']:8.1f} MB/s  "
              f"{mb(size) / max(inf['cpu'], 1e-9):8.1f} MB/s/core  (the floor for gzip)")
        row['inflate'] = {'wall': inf['wall'], 'cpu': inf['cpu']}

    # The lesson's way (plain floats) is the peer; the exact variant (timestamps kept as
    # text) gives stepscope's answers and is timed on the smaller trace only.
    run_python(args, row, 'python', 'python json+nest', plain, size, facts, ['--float'])
    if size < LARGE:
        run_python(args, row, 'python_exact', 'python, exact ts', plain, size, facts, [])

    hta = None
    if os.environ.get('BENCH_HTA') == '0':
        print("  HTA peer: skipped (BENCH_HTA=0)")
    elif args.venv_python and (size < LARGE or os.environ.get('BENCH_HTA_LARGE') == '1'):
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
        for peer in ('python', 'python_exact', 'hta'):
            if peer not in row:
                continue
            p = row[peer]
            tag = ' (extrapolated)' if p.get('extrapolated') else ''
            line = f"  ratio vs {peer}{tag}: {p['wall'] / ss['wall']:.1f}x less wall time"
            if 'cpu' in p:
                line += f", {p['cpu'] / ss['cpu']:.1f}x less CPU time"
            if 'rss' in p:
                line += f", {p['rss'] / ss['rss']:.1f}x less peak memory"
            print(line)
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
            print(f"  {row['label']}: gzip takes {g['wall'] / inf['wall']:.2f}x the inflate-only wall "
                  f"time, {g['cpu'] / max(inf['cpu'], 1e-9):.2f}x its CPU time (target: limited by "
                  f"inflate, about 1x wall): {'met' if g['wall'] <= 1.2 * inf['wall'] else 'MISSED'}")
        if 'rss' in p and row['bytes'] >= LARGE:
            r = p['rss'] / row['bytes']
            print(f"  {row['label']}: peak RSS {r:.3f}x the JSON size (target <= 0.4x): "
                  f"{'met' if r <= 0.4 else 'MISSED'}")
        if 'wall' in p and 'python' in row:
            r = row['python']['wall'] / p['wall']
            c = row['python'].get('cpu')
            cpu = f", {c / p['cpu']:.0f}x in CPU time" if c else ''
            print(f"  {row['label']}: {r:.0f}x faster than the Python pass in wall time{cpu} "
                  f"(target >= 30x): {'met' if r >= 30 else 'MISSED'}")


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
            nbytes = int(measure.run_once(inflate_cmd(args, path), capture=True)['out'])
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
    ap.add_argument('--zinflate')
    ap.add_argument('--fixtures')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--results')
    args = ap.parse_args()
    args.py_rate = {}
    results = {'traces': [], 'fixtures': [], 'cores': os.cpu_count(),
               'cpu': next((l.split(':', 1)[1].strip() for l in open('/proc/cpuinfo')
                            if l.startswith('model name')), '?')}
    results['loadavg_start'] = os.getloadavg()[0]
    print(f"machine: {results['cpu']}, {results['cores']} cores, "
          f"{mem_available() / 2**30:.1f} GiB available, load average {results['loadavg_start']:.1f} "
          f"(other work on the machine inflates wall times; CPU times are steadier)")
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
