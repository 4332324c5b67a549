#!/usr/bin/env python3
"""The XPlane benchmark (run by perf/run_xplane.sh): `stepscope analyze --json` on each
.xplane.pb against XProf's converter (xprof_convert.py) on the same file, in one run.

    bench_xplane.py --cli STEPSCOPE [--before OLD_STEPSCOPE] [--venv-python PY] [--runs 3] FILE.xplane.pb ...

Both must see the same events: stepscope's slice count is checked against the number
of complete events XProf's trace viewer data holds. XProf runs on a fresh copy of the
file each time (it caches its conversions beside the input) and only where its memory
(about 25x the file, measured on the first file) fits; on larger files its time is
extrapolated per event from the largest file it ran on, and marked so. Peak RSS is
also given against the file's size (issue 33: at most 1x on the 113 MB and 1 GB files).
--before times another stepscope build on the same files in the same run (a change's
effect, side by side), its output checked to be the same bytes."""
import argparse
import json
import os
import shutil
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import measure  # noqa: E402
from bench_analyze import mem_available, mb  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--cli', required=True)
    ap.add_argument('--venv-python')
    ap.add_argument('--runs', type=int, default=3)
    ap.add_argument('--before', help='another stepscope build, measured beside --cli')
    ap.add_argument('files', nargs='+')
    args = ap.parse_args()
    print(f"machine: load average {os.getloadavg()[0]:.2f}, {mem_available() / 2**30:.1f} GiB available")
    rss_per_byte = None
    per_event = None
    for path in args.files:
        size = os.path.getsize(path)
        m = measure.run_median([args.cli, 'analyze', '-q', '--json', path], args.runs, keep_output=True)
        if m['rc'] != 0:
            print(f"--- {path}: stepscope failed: {m['err'][:300]}")
            continue
        slices = json.loads(m['out'])['trace']['slices']
        print(f"--- {os.path.basename(path)}: {mb(size):.0f} MB, {slices} events")
        m['wall'], m['cpu'] = m['best'], m['best_cpu']  # the least disturbed run
        print(f"  stepscope analyze  {m['wall']:8.3f} s wall {m['cpu']:8.3f} s CPU  {m['cpu'] / slices * 1e9:6.0f} ns "
              f"CPU/event  {mb(size) / m['wall']:6.0f} MB/s  RSS {mb(m['rss']):7.1f} MB ({m['rss'] / size:.2f}x the "
              f"file)  runs {m['walls']}")
        if size >= 100e6:  # issue 33's files: 113 MB and 1 GB
            ratio = m['rss'] / size
            print(f"  target (issue 33): peak RSS at most 1x the file: {ratio:.2f}x, {'met' if ratio <= 1 else 'MISSED'}")
        if args.before:
            b = measure.run_median([args.before, 'analyze', '-q', '--json', path], args.runs, keep_output=True)
            if b['rc'] != 0:
                print(f"  before: failed: {b['err'][:300]}")
            else:
                b['wall'], b['cpu'] = b['best'], b['best_cpu']
                same = 'the same output' if b['out'] == m['out'] else 'DIFFERENT OUTPUT'
                print(f"  before             {b['wall']:8.3f} s wall {b['cpu']:8.3f} s CPU  "
                      f"{b['cpu'] / slices * 1e9:6.0f} ns CPU/event  {mb(size) / b['wall']:6.0f} MB/s  RSS "
                      f"{mb(b['rss']):7.1f} MB ({b['rss'] / size:.2f}x the file)  runs {b['walls']}")
                print(f"  against before: this build takes {m['cpu'] / b['cpu']:.2f}x its CPU and {m['rss'] / b['rss']:.2f}x "
                      f"its peak RSS; {same}")
        if not args.venv_python:
            continue
        if rss_per_byte is None or rss_per_byte * size < 0.7 * mem_available():
            with tempfile.TemporaryDirectory(prefix='xprof-peer-') as d:
                copy = os.path.join(d, os.path.basename(path))
                shutil.copyfile(path, copy)
                x = measure.run_once([args.venv_python, os.path.join(HERE, 'xprof_convert.py'), copy], capture=True)
            if x['rc'] != 0:
                print(f"  XProf trace_viewer FAILED: {x['err'][-300:]}")
                continue
            detail = json.loads(x['out'])
            rss_per_byte = x['rss'] / size
            per_event = (x['wall'] / slices, x['cpu'] / slices)
            same = 'same events' if detail['events'] == slices else f"XProf shows {detail['events']} events"
            print(f"  XProf trace_viewer {x['wall']:8.3f} s wall {x['cpu']:8.3f} s CPU  {x['cpu'] / slices * 1e9:6.0f} ns "
                  f"CPU/event  RSS {mb(x['rss']):7.1f} MB  (convert {detail['convert_s']} s; {same})")
            cpu_x = x['cpu'] / m['cpu']
            print(f"  ratio: stepscope {x['wall'] / m['wall']:.1f}x less wall, {cpu_x:.1f}x less CPU "
                  f"(target at least 50x: {'met' if cpu_x >= 50 else 'MISSED'}), {x['rss'] / m['rss']:.1f}x less memory")
        elif per_event:
            wall, cpu = per_event[0] * slices, per_event[1] * slices
            print(f"  XProf trace_viewer ~{wall:7.0f} s wall ~{cpu:7.0f} s CPU (extrapolated per event; it would need "
                  f"about {rss_per_byte * size / 1e9:.0f} GB of memory)")
            print(f"  ratio (extrapolated): stepscope {wall / m['wall']:.0f}x less wall, {cpu / m['cpu']:.0f}x less CPU "
                  f"(target at least 50x: {'met' if cpu / m['cpu'] >= 50 else 'MISSED'})")
    return 0


if __name__ == '__main__':
    sys.exit(main())
