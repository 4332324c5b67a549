#!/usr/bin/env python3
"""The trace-reading benchmark (run by perf/run_analyze.sh; see docs/benchmarks.md).

    bench_analyze.py --cli STEPSCOPE --trace LABEL:PLAIN:GZ:FACTS ... [--wide LABEL:PATH:P:L:S]
                     [--jobs 1,2] [--zinflate BIN] [--tp TRACE_PROCESSOR] [--venv-python PY]
                     [--fixtures DIR] [--runs 3] [--results OUT.json]

Everything is measured side by side in this one run, on the same files:
  - `cat FILE > /dev/null`: how fast the bytes can be read at all;
  - `stepscope analyze --json` on the plain file with each -j in --jobs, and on the gzip
    file; its per-name count/total/self are checked against what the generator wrote
    (FACTS) before any speed is printed, so a fast wrong answer shows as WRONG ANSWER;
  - the inflater stepscope uses, alone (`igzip -dc` with ISA-L, or `zinflate --isal`
    where ISA-L's programs are missing; else zlib: --zinflate); with ISA-L, also the zlib
    fallback (STEPSCOPE_INFLATE=zlib) against zlib alone; and gzip's wall time against
    the machine's bound, (inflater CPU + parse CPU) / cores (issue 33), where the parse
    CPU is the least CPU of stepscope on the plain file (and no less than the inflater
    alone);
  - the Python pass the lesson does (py_nesting.py --float: json.load + nesting);
  - Perfetto's trace_processor importing the file and counting its slices (--tp);
  - Holistic Trace Analysis loading it (hta_breakdown.py, from --venv-python);
  - a wide trace (--wide: many processes and lanes, few events each).
Wall time is the median of --runs; CPU time (user + sys) and peak RSS come from wait4, each
command run under perf/runstat so that its peak is its own (see measure.py).

Environment: BENCH_PY_LARGE=0 / BENCH_TP_LARGE=0 / BENCH_HTA_LARGE=1 choose whether
the peers run on traces over 200 MB (else extrapolated linearly from the smaller one,
and said so; a peer that would not fit in memory is always extrapolated); BENCH_HTA=0
skips HTA.
"""
import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
LARGE = 200e6


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


def fmt(m, size, events=None):
    """Wall time: the best of the runs (the median beside it); rates from the best run
    and the least CPU time, as other work on the machine only ever slows a run."""
    wall, cpu = m.get('best', m['wall']), m.get('best_cpu', m['cpu'])
    s = (f"{wall:8.3f} s (median {m['wall']:.3f}) {mb(size) / wall:7.0f} MB/s {mb(size) / max(cpu, 1e-9):7.0f} "
         f"MB/s/core RSS {mb(m['rss']):7.1f} MB ({m['rss'] / size:.3f}x)")
    if events:
        s += f" {events / wall / 1e6:6.2f} M ev/s"
    return s


def keep(m):
    """What results keep of a measurement: the best run's wall and CPU time, the median."""
    return {'wall': m.get('best', m['wall']), 'cpu': m.get('best_cpu', m['cpu']), 'rss': m['rss'],
            'median': m['wall'], 'walls': m.get('walls')}


def inflater(args):
    """The inflater stepscope uses, as a command: ISA-L's when stepscope links it (and
    STEPSCOPE_INFLATE does not ask for zlib), through igzip or, where ISA-L's programs are
    not installed, perf/zinflate.c's --isal; else zlib (perf/zinflate.c)."""
    libs = subprocess.run(['ldd', args.cli], capture_output=True, text=True).stdout
    if 'libisal' in libs and os.environ.get('STEPSCOPE_INFLATE') != 'zlib':
        if shutil.which('igzip'):
            return 'igzip -dc', lambda gz: ['igzip', '-dc', gz]
        if args.zinflate:
            return 'ISA-L inflate', lambda gz: [args.zinflate, '--isal', gz]
    return 'zlib inflate', lambda gz: [args.zinflate, gz]


def cores():
    """The cores this process may run on."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def gzip_bound(row, gz, inf, label, key):
    """Prints and keeps (as row[key]) gzip's wall time against the machine's bound for
    gzip input (issue 33): the inflater's CPU and the parse's CPU (the least of stepscope
    on the plain file) spread over every core, the least wall time reading a .json.gz
    could take here; and never less than the inflater alone, as one stream inflates on
    one core (the bound where the inflater is slower than the parse, as zlib is)."""
    parse = min((row[k]['cpu'] for k in row if k.startswith('plain_j')), default=None)
    if parse is None:
        return
    n = cores()
    spread = (inf['cpu'] + parse) / n
    bound = max(spread, inf['wall'])
    # On a loaded machine every wall time stretches, the bound's with them; the CPU the
    # gzip run spends against its two parts' does not, and says what the overlap cannot.
    row[key] = {'bound': bound, 'ratio': gz['wall'] / bound, 'inflate_cpu': inf['cpu'], 'inflate_wall': inf['wall'],
                'parse_cpu': parse, 'cores': n, 'cpu_ratio': gz['cpu'] / (inf['cpu'] + parse),
                'load': os.getloadavg()[0]}
    print(f"  {label} against the machine's bound: {gz['wall']:.3f} s against max(({inf['cpu']:.3f} s inflater CPU "
          f"+ {parse:.3f} s parse CPU) / {n} cores = {spread:.3f} s, inflater alone {inf['wall']:.3f} s): "
          f"{gz['wall'] / bound:.2f}x (target 1.15x); its CPU {gz['cpu']:.3f} s, "
          f"{gz['cpu'] / (inf['cpu'] + parse):.2f}x the two parts' (load average {os.getloadavg()[0]:.1f})")


class Peers:
    """Per-byte rates of the peers from a smaller trace of the same style (pretty or
    compact: their bytes cost differently), for extrapolating. `style` is the trace's
    being measured, set by bench_trace."""

    def __init__(self):
        self.rate = {}
        self.style = ''

    def note(self, key, m, size):
        self.rate[(key, self.style)] = (m['wall'] / size, m['cpu'] / size, m['rss'] / size)

    def guess(self, key, size):
        r = self.rate.get((key, self.style))
        return r and {'wall': r[0] * size, 'cpu': r[1] * size, 'rss': r[2] * size, 'extrapolated': True}


def run_peer(args, peers, row, key, title, argv, size, env_large, mem_factor, check=None, runs=None):
    """Runs one peer (median of --runs, or `runs`, on small traces; once on large ones), or
    extrapolates it when it is off for large traces or would not fit in memory."""
    guess = peers.guess(key, size)
    big = size >= LARGE
    why = None
    if big and os.environ.get(env_large, '1') == '0':
        why = f"{env_large}=0"
    elif big and guess and guess['rss'] > 0.8 * mem_available():
        why = f"it would need about {guess['rss'] / 1e9:.1f} GB of {mem_available() / 1e9:.1f} GB available"
    elif big and not guess and mem_factor * size > 0.8 * mem_available():
        why = "it would not fit in memory"
    if why is None:
        m = measure.run_median(argv, 1 if big else runs or args.runs, keep_output=True)
        if m['rc'] == 0 and (check is None or check(m)):
            peers.note(key, m, size)
            row[key] = keep(m)
            print(f"  {title:22s}{fmt(m, size)}")
            return
        why = f"failed (exit {m['rc']}): {m['err'].strip()[-200:]}"
    if guess:
        row[key] = guess
        print(f"  {title:22s}~{guess['wall']:7.1f} s, ~{mb(guess['rss']):.0f} MB (extrapolated from the smaller "
              f"trace; not run: {why})")
    else:
        print(f"  {title:22s}not run: {why}")


def analyze(args, path, jobs, facts=None, env=None):
    m = measure.run_median([args.cli, 'analyze', '-q', '-j', str(jobs), '--json', path], args.runs,
                           env=env, keep_output=True)
    if m['rc'] != 0:
        return m, [f"exit {m['rc']}: {m['err'].strip()[:300]}"]
    doc = json.loads(m['out'])
    m['trace'] = doc['trace']
    return m, check_names(doc, facts) if facts else []


def bench_trace(args, peers, label, plain, gz, facts_path, results):
    facts = json.load(open(facts_path))
    size, events = facts['bytes'], facts['events']
    print(f"--- {label}: {mb(size):.0f} MB of JSON ({mb(os.path.getsize(gz)):.1f} MB gzip), {events} events")
    row = {'label': label, 'bytes': size, 'gz_bytes': os.path.getsize(gz), 'events': events}
    peers.style = label.rsplit('_', 1)[-1]
    ok = True
    cat = measure.run_median(['cat', plain], args.runs)
    row['cat'] = keep(cat)
    print(f"  {'cat > /dev/null':22s}{fmt(cat, size)}")
    for jobs in args.jobs:
        m, bad = analyze(args, plain, jobs, facts)
        if bad:
            ok = False
            print(f"  stepscope -j {jobs}: WRONG ANSWER or failure: {bad[:3]}")
            continue
        row[f'plain_j{jobs}'] = keep(m)
        print(f"  {'stepscope -j ' + str(jobs):22s}{fmt(m, size, events)}  runs {m['walls']}")
    for jobs in args.jobs:
        m, bad = analyze(args, gz, jobs, facts)
        if bad:
            ok = False
            print(f"  stepscope gzip -j {jobs}: WRONG ANSWER or failure: {bad[:3]}")
            continue
        row[f'gzip_j{jobs}'] = keep(m)
        print(f"  {'stepscope gzip -j ' + str(jobs):22s}{fmt(m, size, events)}  runs {m['walls']}")
    name, cmd = inflater(args)
    inf = measure.run_median(cmd(gz), args.runs)
    if inf['rc'] == 0:
        row['inflate'] = dict(keep(inf), tool=name)
        print(f"  {name + ' alone':22s}{fmt(inf, size)}")
    if name != 'zlib inflate' and args.zinflate:
        # The fallback where ISA-L is missing: zlib inflates several times slower than
        # the parse reads, so there the inflater is what gzip input waits on.
        jobs = max(args.jobs)
        m, bad = analyze(args, gz, jobs, facts, env=dict(os.environ, STEPSCOPE_INFLATE='zlib'))
        z = measure.run_median([args.zinflate, gz], args.runs)
        if bad:
            ok = False
            print(f"  stepscope gzip zlib: WRONG ANSWER or failure: {bad[:3]}")
        elif z['rc'] == 0:
            row[f'gzip_zlib_j{jobs}'], row['inflate_zlib'] = keep(m), keep(z)
            print(f"  {'gzip zlib -j ' + str(jobs):22s}{fmt(m, size, events)}  runs {m['walls']}")
            print(f"  {'zlib inflate alone':22s}{fmt(z, size)}")
    run_peer(args, peers, row, 'python', 'python json+nesting', [sys.executable, os.path.join(HERE, 'py_nesting.py'),
                                                                   plain, '--float'], size, 'BENCH_PY_LARGE', 7)
    if args.tp:
        with tempfile.NamedTemporaryFile('w', suffix='.sql', delete=False) as q:
            q.write('select count(*) as slices from slice;\n')
        run_peer(args, peers, row, 'tp', 'trace_processor', [args.tp, '-q', q.name, plain], size, 'BENCH_TP_LARGE',
                 6, check=lambda m: b'slices' in (m['out'] or b''))
        os.unlink(q.name)
    if args.venv_python and os.environ.get('BENCH_HTA') != '0':
        if size < LARGE or os.environ.get('BENCH_HTA_LARGE') == '1':
            run_peer(args, peers, row, 'hta', 'HTA load+breakdown',
                     [args.venv_python, os.path.join(HERE, 'hta_breakdown.py'), plain], size, 'BENCH_HTA_LARGE', 8,
                     runs=1)
        elif peers.guess('hta', size):
            row['hta'] = peers.guess('hta', size)
            print(f"  {'HTA load+breakdown':22s}~{row['hta']['wall']:7.0f} s (extrapolated; BENCH_HTA_LARGE=1 runs it)")
    ratios(row, args.jobs)
    results['traces'].append(row)
    return ok


def ratios(row, jobs):
    best = min((row[k] for k in row if k.startswith('plain_j')), key=lambda m: m['wall'], default=None)
    one = row.get('plain_j1')
    if not best:
        return
    for peer, title in (('python', 'the Python pass'), ('tp', 'trace_processor'), ('hta', 'HTA')):
        p = row.get(peer)
        if not p:
            continue
        tag = ' (extrapolated)' if p.get('extrapolated') else ''
        line = f"  vs {title}{tag}: {p['wall'] / best['wall']:.1f}x less wall"
        if one:
            line += f" ({p['wall'] / one['wall']:.1f}x at -j 1), {p['cpu'] / one['cpu']:.1f}x less CPU"
        line += f", {p['rss'] / best['rss']:.1f}x less memory"
        print(line)
    cat = row['cat']
    print(f"  vs cat: stepscope takes {best['wall'] / cat['wall']:.1f}x the time to read the bytes alone")
    g1, inf = row.get('gzip_j1'), row.get('inflate')
    gbest = min((row[k] for k in row if k.startswith('gzip_j')), key=lambda m: m['wall'], default=None)
    if gbest and inf:
        print(f"  gzip: {gbest['wall'] / inf['wall']:.2f}x the wall time of {inf['tool']} alone"
              + (f" ({g1['wall'] / inf['wall']:.2f}x at -j 1)" if g1 else ''))
        gzip_bound(row, gbest, inf, 'gzip', 'gzip_bound')
    gz_zlib = next((row[k] for k in row if k.startswith('gzip_zlib_j')), None)
    if gz_zlib and row.get('inflate_zlib'):
        print(f"  gzip with zlib (the fallback): {gz_zlib['wall'] / row['inflate_zlib']['wall']:.2f}x the wall time "
              f"of zlib alone")
        gzip_bound(row, gz_zlib, row['inflate_zlib'], 'gzip with zlib', 'gzip_zlib_bound')
    if one and len(jobs) > 1:
        print("  scaling: " + ", ".join(f"-j {j} {one['wall'] / row[f'plain_j{j}']['wall']:.2f}x"
                                         for j in jobs if f'plain_j{j}' in row))


def bench_wide(args, spec, results):
    label, path, procs, lanes, slices = spec.split(':')
    size = os.path.getsize(path)
    print(f"--- {label}: {procs} processes, {lanes} lanes, {slices} slices, {mb(size):.0f} MB")
    row = {'label': label, 'bytes': size, 'processes': int(procs), 'lanes': int(lanes)}
    for jobs in args.jobs:
        m, bad = analyze(args, path, jobs)
        t = m.get('trace', {})
        if bad or t.get('lanes') != int(lanes) or t.get('slices') != int(slices):
            print(f"  stepscope -j {jobs}: WRONG ANSWER or failure: {bad[:2]} {t.get('lanes')} lanes "
                  f"{t.get('slices')} slices")
            continue
        row[f'plain_j{jobs}'] = keep(m)
        print(f"  {'stepscope -j ' + str(jobs):22s}{fmt(m, size)}")
    results['wide'].append(row)


def bench_fixtures(args, results):
    base = os.path.join(args.fixtures, 'traces')
    files = []
    for sub in ('kineto', 'chrome', 'torch-legacy'):
        d = os.path.join(base, sub)
        if os.path.isdir(d):
            files += [os.path.join(d, f) for f in sorted(os.listdir(d)) if f.endswith(('.json', '.gz'))]
    print(f"--- real fixtures ({len(files)} files; small, so process start-up dominates)")
    for path in files:
        name = os.path.relpath(path, base)
        m = measure.run_median([args.cli, 'analyze', '-q', '--json', path], args.runs)
        py = measure.run_median([sys.executable, os.path.join(HERE, 'py_nesting.py'), path], args.runs)
        entry = {'file': name}
        line = f"  {name:45s}"
        if m['rc'] == 0:
            entry['stepscope'] = {'wall': m['wall'], 'cpu': m['cpu'], 'rss': m['rss']}
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
    ap.add_argument('--wide', action='append', default=[])
    ap.add_argument('--jobs', default='1,2')
    ap.add_argument('--zinflate')
    ap.add_argument('--tp')
    ap.add_argument('--venv-python')
    ap.add_argument('--fixtures')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--results')
    args = ap.parse_args()
    args.jobs = [int(j) for j in args.jobs.split(',')]
    peers = Peers()
    results = {'traces': [], 'wide': [], 'fixtures': [], 'cores': os.cpu_count(),
               'cpu': next((line.split(':', 1)[1].strip() for line in open('/proc/cpuinfo')
                            if line.startswith('model name')), '?'), 'load_start': os.getloadavg()}
    print(f"machine: {results['cpu']}, {results['cores']} cores, {mem_available() / 2**30:.1f} GiB available, "
          f"load average {results['load_start'][0]:.2f} {results['load_start'][1]:.2f} {results['load_start'][2]:.2f}")
    ok = True
    for spec in args.trace:
        label, plain, gz, facts = spec.split(':')
        ok &= bench_trace(args, peers, label, plain, gz, facts, results)
    for spec in args.wide:
        bench_wide(args, spec, results)
    if args.fixtures and os.path.isdir(args.fixtures):
        bench_fixtures(args, results)
    results['load_end'] = os.getloadavg()
    print(f"load average at the end: {results['load_end'][0]:.2f} {results['load_end'][1]:.2f} "
          f"{results['load_end'][2]:.2f}")
    if args.results:
        with open(args.results, 'w') as f:
            json.dump(results, f, indent=1)
    return 0 if ok else 1


if __name__ == '__main__':
    sys.exit(main())
