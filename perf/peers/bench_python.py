#!/usr/bin/env python3
"""Loading a trace from Python (the stepscope package) beside the CLI and beside
Holistic Trace Analysis, measured side by side in one run. Called by perf/run_python.sh.

For each trace, py_load.py interleaves (so the machine's load falls on both alike):
  CLI        `stepscope steps TRACE` (read, nest, find the steps: the least the CLI does
             after loading) and `stepscope slices TRACE --csv` (the slice table), whole
             processes;
  Python     stepscope.open() + steps(), and open() + slices(), timed in the process (a
             Python user's interpreter is already running);
each --runs times, reported as the fastest run and the median; then the whole
`python -c` process, interpreter and NumPy start included;
  HTA        TraceAnalysis() loading the same file (Kineto traces only), one run.
Ratios: Python / CLI for the same work (the goal: at most 1.2x), HTA load / Python.
"""
import argparse
import json
import os
import statistics
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import measure  # noqa: E402


def fmt(s):
    return "%.3f s" % s if s >= 0.1 else "%.1f ms" % (s * 1e3)


def py_env(args):
    env = dict(os.environ)
    env["PYTHONPATH"] = args.pythonpath
    return env


def stat(v):
    """(min, median): the minimum is the run the machine disturbed least."""
    return min(v), statistics.median(v)


def bench(args, label, path, results):
    size = os.path.getsize(path)
    print("--- %s: %s (%.1f MB)" % (label, path, size / 1e6))
    row = {"label": label, "path": path, "bytes": size}
    py = measure.run_once([args.python, os.path.join(HERE, "py_load.py"), path, str(args.runs), args.cli],
                          capture=True, env=py_env(args))
    if py["rc"] != 0:
        print("  Python FAILED: %s" % py["err"][-500:])
        return False
    d = json.loads(py["out"])
    proc = measure.run_median([args.python, "-c", "import stepscope, sys; stepscope.open(sys.argv[1]).slices()",
                               path], args.runs, env=py_env(args))
    ratios = {}
    for what, cli_key, py_key in (("steps", "cli_steps_s", "py_steps_s"), ("slices", "cli_slices_s", "py_slices_s")):
        (cmin, cmed), (pmin, pmed) = stat(d[cli_key]), stat(d[py_key])
        ratios[what] = (pmin / cmin, pmed / cmed)
        title = "steps" if what == "steps" else "slices --csv"
        print("  CLI %-13s min %s, median %s" % (title, fmt(cmin), fmt(cmed)))
        print("  Python open+%-8s min %s, median %s: %.2fx the CLI (median %.2fx)"
              % (what, fmt(pmin), fmt(pmed), ratios[what][0], ratios[what][1]))
    print("  (runs interleaved; %d slices as NumPy columns; peak RSS %.0f MB; import stepscope %s, once)"
          % (d["slices"], d["peak_rss_kb"] / 1024, fmt(d["import_s"])))
    print("  Python process       %s   %.2fx CLI slices (interpreter and NumPy start included)"
          % (fmt(proc["wall"]), proc["wall"] / min(d["cli_slices_s"])))
    row.update(py=d, py_process_s=proc["wall"], ratio_steps=ratios["steps"][0], ratio_slices=ratios["slices"][0],
               ratio_steps_median=ratios["steps"][1], ratio_slices_median=ratios["slices"][1])
    if args.venv_python and args.hta and (path.endswith(".json") or path.endswith(".json.gz")) and "kineto" in path:
        hta = measure.run_once([args.venv_python, os.path.join(HERE, "hta_breakdown.py"), path], capture=True)
        if hta["rc"] == 0:
            h = json.loads(hta["out"])
            pmin = min(d["py_slices_s"])
            print("  HTA load             %s   %.0fx Python open+slices" % (fmt(h["load_s"]), h["load_s"] / pmin))
            row["hta_load_s"] = h["load_s"]
        else:
            print("  HTA FAILED: %s" % hta["err"].strip()[-300:])
    results.append(row)
    return True


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cli", required=True)
    ap.add_argument("--python", required=True, help="the interop environment's Python")
    ap.add_argument("--pythonpath", required=True, help="where the package is installed")
    ap.add_argument("--venv-python", help="for HTA (the same interpreter)")
    ap.add_argument("--hta", action="store_true")
    ap.add_argument("--runs", type=int, default=3)
    ap.add_argument("--trace", action="append", default=[], help="LABEL:PATH")
    ap.add_argument("--results")
    args = ap.parse_args()
    results, ok = [], True
    for t in args.trace:
        label, path = t.split(":", 1)
        ok = bench(args, label, path, results) and ok
    if args.results:
        with open(args.results, "w") as f:
            json.dump(results, f, indent=1)
    big = [r for r in results if r["bytes"] >= 5e6]
    if big:
        worst = max(max(r["ratio_steps"], r["ratio_slices"]) for r in big)
        print("worst Python/CLI ratio (fastest runs) on the traces of 5 MB or more: %.2fx (goal: at most 1.2x)" % worst)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
