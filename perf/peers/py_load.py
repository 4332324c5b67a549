#!/usr/bin/env python3
"""Loading a trace from Python with the stepscope package, timed inside the process.

    py_load.py TRACE RUNS      (run with the interop environment's Python and the package
                                on PYTHONPATH; see perf/run_python.sh)

Prints one JSON line: seconds for `import stepscope`, then per run the seconds of
stepscope.open(TRACE) (the C reader: what the CLI does before it prints), of
Trace.slices() (the NumPy columns) and of Trace.steps(), their medians, the number of
slices, and the peak RSS."""
import json
import resource
import statistics
import sys
import time
import warnings


def main(argv):
    path, runs = argv[1], int(argv[2])
    t0 = time.perf_counter()
    import stepscope

    imported = time.perf_counter() - t0
    warnings.simplefilter("ignore")
    opens, slices, steps, n = [], [], [], 0
    for _ in range(runs):
        t0 = time.perf_counter()
        t = stepscope.open(path)
        t1 = time.perf_counter()
        s = t.slices()
        t2 = time.perf_counter()
        try:
            t.steps()
        except stepscope.NoStepsFound:
            pass
        t3 = time.perf_counter()
        n = len(s)
        t.close()
        del t, s
        opens.append(t1 - t0)
        slices.append(t2 - t1)
        steps.append(t3 - t2)
    print(json.dumps({"import_s": imported, "open_s": opens, "slices_s": slices, "steps_s": steps,
                      "open_median_s": statistics.median(opens), "slices_median_s": statistics.median(slices),
                      "steps_median_s": statistics.median(steps), "slices": n,
                      "peak_rss_kb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
