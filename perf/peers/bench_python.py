#!/usr/bin/env python3
"""Loading a trace from Python (the stepscope package) beside the CLI and beside
Holistic Trace Analysis, measured side by side in one run. Called by perf/run_python.sh.

For each trace:
  CLI        `stepscope steps TRACE` (read, nest, find the steps: the least the CLI does
             after loading) and `stepscope slices TRACE --csv` (the slice table), whole
             processes, median of --runs;
  Python     py_load.py: stepscope.open() + steps(), and open() + slices(), timed in
             the process (a Python user's interpreter is already running), median of
             --runs; and the whole `python -c` process, interpreter start included;
  HTA        TraceAnalysis() loading the same file (Kineto traces only), one run.
Ratios: Python / CLI for the same work (the goal: at most 1.2x), HTA load / Python.
"""
import argparse
import json
import os
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


def bench(args, label, path, results):
    size = os.path.getsize(path)
    print("--- %s: %s (%.1f MB)" % (label, path, size / 1e6))
    row = {"label": label, "path": path, "bytes": size}
    cli_steps = measure.run_median([args.cli, "steps", path], args.runs)
    cli_slices = measure.run_median([args.cli, "slices", path, "--csv"], args.runs)
    for m, what in ((cli_steps, "steps"), (cli_slices, "slices --csv")):
        if m["rc"] not in (0, 1):  # steps exits 1 when a trace has none: still a load
            print("  CLI %s FAILED: %s" % (what, m["err"][-300:]))
            return False
    py = measure.run_once([args.python, os.path.join(HERE, "py_load.py"), path, str(args.runs)], capture=True,
                          env=py_env(args))
    if py["rc"] != 0:
        print("  Python FAILED: %s" % py["err"][-500:])
        return False
    d = json.loads(py["out"])
    proc = measure.run_median([args.python, "-c", "import stepscope, sys; stepscope.open(sys.argv[1]).slices()",
                               path], args.runs, env=py_env(args))
    open_steps = d["open_median_s"] + d["steps_median_s"]
    open_slices = d["open_median_s"] + d["slices_median_s"]
    print("  CLI steps            %s   (runs %s)" % (fmt(cli_steps["wall"]), cli_steps["walls"]))
    print("  Python open+steps    %s   %.2fx the CLI (import stepscope %s, once)"
          % (fmt(open_steps), open_steps / cli_steps["wall"], fmt(d["import_s"])))
    print("  CLI slices --csv     %s   (runs %s)" % (fmt(cli_slices["wall"]), cli_slices["walls"]))
    print("  Python open+slices   %s   %.2fx the CLI   (%d slices as NumPy columns; peak RSS %.0f MB)"
          % (fmt(open_slices), open_slices / cli_slices["wall"], d["slices"], d["peak_rss_kb"] / 1024))
    print("  Python process       %s   %.2fx CLI slices (interpreter and NumPy start included)"
          % (fmt(proc["wall"]), proc["wall"] / cli_slices["wall"]))
    row.update(cli_steps_s=cli_steps["wall"], cli_slices_s=cli_slices["wall"], py=d, py_process_s=proc["wall"],
               ratio_steps=open_steps / cli_steps["wall"], ratio_slices=open_slices / cli_slices["wall"])
    if args.venv_python and args.hta and (path.endswith(".json") or path.endswith(".json.gz")) and "kineto" in path:
        hta = measure.run_once([args.venv_python, os.path.join(HERE, "hta_breakdown.py"), path], capture=True)
        if hta["rc"] == 0:
            h = json.loads(hta["out"])
            print("  HTA load             %s   %.0fx Python open+slices" % (fmt(h["load_s"]), h["load_s"] / open_slices))
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
    worst = max((r["ratio_slices"] for r in results if r["bytes"] >= 10e6), default=None)
    if worst is not None:
        print("worst Python/CLI ratio on traces of 10 MB or more: %.2fx (goal: at most 1.2x)" % worst)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
