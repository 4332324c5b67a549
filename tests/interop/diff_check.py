#!/usr/bin/env python3
"""`stepscope diff`'s statistics against an independent computation (SciPy, NumPy).

    .venv/bin/python tests/interop/diff_check.py STEPSCOPE WORKDIR

Draws pairs of samples (sizes 1 to 60, with and without ties, shifted and not), writes
each pair as two bench results (the warm samples are the samples), runs `stepscope diff
--json` on them and compares the warm row with:

  - U and the two-sided p-value: scipy.stats.mannwhitneyu(new, base), with the method
    stepscope reports ("exact" -> method="exact"; "normal"/"normal-ties" ->
    method="asymptotic", continuity-corrected, SciPy's tie correction);
  - the Hodges-Lehmann shift: numpy.median of every difference new_j - base_i;
  - the interval's ends: the order statistics of those differences at the rank given
    by the exact null distribution of U (counted here by a recursion of our own), or
    by scipy.stats.norm.ppf with SciPy's tiecorrect for the normal method.

Prints "ok/FAIL diff-scipy ..." lines; exit status 1 when any check failed.
"""
import json
import math
import os
import subprocess
import sys
from functools import lru_cache

import numpy as np
from scipy import stats

STEPSCOPE, WORK = sys.argv[1], sys.argv[2]
CONF = 0.95
failures = 0


def report(name, cond, detail=""):
    global failures
    print(("ok   " if cond else "FAIL ") + "diff-scipy " + name + ("" if cond else ": " + detail))
    if not cond:
        failures += 1


@lru_cache(maxsize=None)
def freq(n, m, u):
    """Orderings of n x's and m y's with u (x, y) pairs where y > x: the null U counts."""
    if u < 0:
        return 0
    if n == 0 or m == 0:
        return 1 if u == 0 else 0
    # The largest value is a y (it beats all n x's) or an x (it beats none).
    return freq(n, m - 1, u - n) + freq(n - 1, m, u)


def exact_rank(n, m, alpha):
    total = math.comb(n + m, n)
    cum, c = 0, -1
    for u in range(n * m // 2 + 1):
        cum += freq(n, m, u)
        if cum / total > alpha / 2:
            break
        c = u
    return c


def normal_rank(x, y, alpha):
    n, m = len(x), len(y)
    if math.comb(n + m, n) < 2 / alpha:
        return -1  # no distribution-free interval at this size, ties or not (docs/diff.md)
    tc = stats.tiecorrect(stats.rankdata(np.concatenate([x, y])))
    sigma = math.sqrt(n * m * (n + m + 1) / 12 * tc)
    c = math.floor(n * m / 2 - 0.5 - stats.norm.ppf(1 - alpha / 2) * sigma)
    return max(c, -1)


def bench(path, ns):
    with open(path, "w") as f:
        json.dump({"schema": "stepscope.bench/1", "name": "w", "first_call_seconds": 1.0,
                   "warm_samples_seconds": [v / 1e9 for v in ns]}, f)


def one(case, x, y):
    a, b = os.path.join(WORK, "a.json"), os.path.join(WORK, "b.json")
    bench(a, x)
    bench(b, y)
    out = subprocess.run([STEPSCOPE, "diff", a, b, "--json"], capture_output=True, text=True)
    if out.returncode != 0:
        report(case, False, "stepscope diff exited %d: %s" % (out.returncode, out.stderr.strip()))
        return
    row = {r["key"]: r for r in json.loads(out.stdout)["intervals"]}["w"]
    method = row["method"]
    ties = len(set(list(x) + list(y))) < len(x) + len(y)
    ref = stats.mannwhitneyu(y, x, alternative="two-sided", use_continuity=True,
                             method="exact" if method == "exact" else "asymptotic")
    problems = []
    if method == "exact" and ties:
        problems.append("exact method with ties")
    if row["u"] != ref.statistic:
        problems.append("U %s, SciPy %s" % (row["u"], ref.statistic))
    tol = 1e-12 if method == "exact" else 1e-9
    if not math.isclose(row["p_value"], ref.pvalue, rel_tol=tol, abs_tol=1e-300):
        problems.append("p %r, SciPy %r (%s)" % (row["p_value"], ref.pvalue, method))
    d = np.sort(np.subtract.outer(np.asarray(y, dtype=np.int64), np.asarray(x, dtype=np.int64)).ravel())
    if row["shift_ns"] != float(np.median(d)):
        problems.append("shift %r, numpy %r" % (row["shift_ns"], float(np.median(d))))
    c = exact_rank(len(x), len(y), 1 - CONF) if method == "exact" else normal_rank(x, y, 1 - CONF)
    if c < 0:
        if row["ci_bounded"] is not False:
            problems.append("expected no interval (rank %d)" % c)
    elif (row["ci_low_ns"], row["ci_high_ns"]) != (float(d[c]), float(d[len(d) - 1 - c])):
        problems.append("interval (%r, %r), expected (%r, %r) at rank %d" %
                        (row["ci_low_ns"], row["ci_high_ns"], float(d[c]), float(d[len(d) - 1 - c]), c))
    report(case, not problems, "; ".join(problems))


def main():
    rng = np.random.default_rng(20261201)
    cases = 0
    for n, m in [(1, 1), (2, 3), (3, 3), (4, 4), (5, 7), (8, 8), (10, 12), (20, 20), (33, 33), (34, 34), (50, 45),
                 (60, 3)]:
        for shift in (0.0, 0.05, 0.5):
            for tied in (False, True):
                scale = 50 if tied else 10 ** 7  # a small range makes ties certain
                x = rng.integers(10 ** 6, 10 ** 6 + scale, n)
                y = (rng.integers(10 ** 6, 10 ** 6 + scale, m) * (1 + shift)).astype(np.int64)
                if not tied and len(set(x.tolist() + y.tolist())) < n + m:
                    continue  # an accidental tie: the untied case is not what was drawn
                one("%dv%d shift %g%s" % (n, m, shift, " ties" if tied else ""), x.tolist(), y.tolist())
                cases += 1
    print("diff-scipy: %d pairs compared, %d failed" % (cases, failures))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
