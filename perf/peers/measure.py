"""Runs a command and measures it: wall seconds, CPU seconds (user + sys) and the
command's peak resident set size. Imported by the benchmark scripts.

The command runs under perf/runstat (built as $BUILD/perf/runstat; STS_RUNSTAT names it,
else build/perf/runstat is looked for): a child started straight from this Python would
report as its peak RSS the larger of its own and this harness's (Linux keeps the peak
of the address space replaced at exec), and the harness holds parsed outputs of
hundreds of MB. Without runstat, os.wait4's figures are used and a note says so."""
import os
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_runstat = None


def runstat():
    """The runstat program, or '' when there is none (said once, on stderr)."""
    global _runstat
    if _runstat is None:
        path = os.environ.get('STS_RUNSTAT') or os.path.join(HERE, '..', '..', 'build', 'perf', 'runstat')
        _runstat = path if os.access(path, os.X_OK) else ''
        if not _runstat:
            print(f"measure: no runstat at {path} (make {path}): peak RSS figures may be this harness's own",
                  file=sys.stderr)
    return _runstat


def run_once(argv, capture=False, env=None):
    """Returns {rc, wall, cpu, rss (bytes), out (bytes or None), err (text)}."""
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f, \
            tempfile.NamedTemporaryFile('r', suffix='.stats') as stats:
        runner = runstat()
        full = [runner, stats.name] + list(argv) if runner else list(argv)
        t0 = time.perf_counter()
        proc = subprocess.Popen(full, stdout=out_f if capture else subprocess.DEVNULL, stderr=err_f, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        cpu, rss = usage.ru_utime + usage.ru_stime, usage.ru_maxrss * 1024
        if runner:
            fields = stats.read().split()
            if len(fields) == 4:
                wall, cpu, rss = float(fields[0]), float(fields[1]) + float(fields[2]), int(fields[3]) * 1024
        out_f.seek(0)
        err_f.seek(0)
        return {'rc': proc.returncode, 'wall': wall, 'cpu': cpu, 'rss': rss,
                'out': out_f.read() if capture else None, 'err': err_f.read().decode('utf-8', 'replace')}


def run_median(argv, runs=3, env=None, keep_output=False):
    """Runs argv `runs` times and returns the run with the median wall time, with
    'walls' (every run's wall time), 'best' and 'best_cpu' (the fastest run's wall time,
    the least CPU time) and 'rss' (the largest peak seen). Stops at the first failure
    and returns it."""
    samples = []
    for i in range(runs):
        s = run_once(argv, capture=keep_output and i == 0, env=env)
        if s['rc'] != 0:
            return s
        samples.append(s)
    order = sorted(samples, key=lambda s: s['wall'])
    med = dict(order[len(order) // 2])
    med['walls'] = [round(s['wall'], 3) for s in samples]
    # The fastest run is the one least disturbed by other work on the machine.
    med['best'] = order[0]['wall']
    med['best_cpu'] = min(s['cpu'] for s in samples)
    med['rss'] = max(s['rss'] for s in samples)
    med['out'] = samples[0]['out']
    return med
