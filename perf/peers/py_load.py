#!/usr/bin/env python3
"""Loading a trace from Python with the stepscope package, interleaved with the CLI
doing the same work, so the machine's load falls on both alike.

    py_load.py TRACE RUNS CLI     (run with the interop environment's Python and the
                                   package on PYTHONPATH; see perf/run_python.sh)

Each run times, in turn: `CLI steps TRACE` (a whole process: read, nest, find the
steps), stepscope.open(TRACE) + Trace.steps() in this process, `CLI slices TRACE
--csv` and stepscope.open(TRACE) + Trace.slices() (the NumPy columns). Prints one JSON
line: the seconds of every run of each, the seconds `import stepscope` took, the number
of slices, and the peak RSS of this process."""
import json
import resource
import subprocess
import sys
import time
import warnings


def main(argv):
    path, runs, cli = argv[1], int(argv[2]), argv[3]
    t0 = time.perf_counter()
    import stepscope

    imported = time.perf_counter() - t0
    warnings.simplefilter("ignore")
    out = {"cli_steps_s": [], "py_steps_s": [], "cli_slices_s": [], "py_slices_s": [], "py_open_s": []}
    n = 0

    def cli_run(*args):
        t0 = time.perf_counter()
        subprocess.run([cli] + list(args), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - t0

    for _ in range(runs):
        out["cli_steps_s"].append(cli_run("steps", path))
        t0 = time.perf_counter()
        t = stepscope.open(path)
        t1 = time.perf_counter()
        try:
            t.steps()
        except stepscope.NoStepsFound:
            pass
        out["py_steps_s"].append(time.perf_counter() - t0)
        out["py_open_s"].append(t1 - t0)
        t.close()
        out["cli_slices_s"].append(cli_run("slices", path, "--csv"))
        t0 = time.perf_counter()
        t = stepscope.open(path)
        s = t.slices()
        out["py_slices_s"].append(time.perf_counter() - t0)
        n = len(s)
        t.close()
        del t, s
    out.update(import_s=imported, slices=n, peak_rss_kb=resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
