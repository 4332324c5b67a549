"""Runs a command and measures it: wall seconds, CPU seconds (user + sys) and the
child's peak resident set size, from os.wait4's rusage. Imported by bench_analyze.py."""
import os
import subprocess
import tempfile
import time


def run_once(argv, capture=False, env=None):
    """Returns {rc, wall, cpu, rss (bytes), out (bytes or None), err (text)}."""
    with tempfile.TemporaryFile() as out_f, tempfile.TemporaryFile() as err_f:
        t0 = time.perf_counter()
        proc = subprocess.Popen(argv, stdout=out_f if capture else subprocess.DEVNULL,
                                stderr=err_f, env=env)
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)  # reaped here, not by Popen
        out_f.seek(0)
        err_f.seek(0)
        return {'rc': proc.returncode, 'wall': wall, 'cpu': usage.ru_utime + usage.ru_stime,
                'rss': usage.ru_maxrss * 1024, 'out': out_f.read() if capture else None,
                'err': err_f.read().decode('utf-8', 'replace')}


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
