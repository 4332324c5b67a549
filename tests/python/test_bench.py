"""stepscope.bench on plain Python: the C harness's boundaries, counts, statistics and
report, checked against independent computations."""
import json
import os
import math
import statistics
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import stepscope
from conftest import run_cli


class Job:
    """Work handed to a thread: the call returns at once, ready() joins it."""

    def __init__(self, seconds):
        self.t = threading.Thread(target=time.sleep, args=(seconds,))
        self.t.start()


def test_samples_counts_and_boundaries():
    log = []

    def setup():
        log.append("setup")

    def fn(n):
        log.append("call")
        return Job(0.02)

    def ready(job):
        log.append("ready")
        job.t.join()

    r = stepscope.bench(fn, 3, ready=ready, setup=setup, repeats=5, warmup=2, dispatch=4)
    # setup first, then 1 first call + 2 warm-up + 5 samples + 4 dispatch-only, each waited.
    assert log[0] == "setup" and log.count("setup") == 1
    assert log.count("call") == 1 + 2 + 5 + 4
    assert log.count("ready") == log.count("call")
    assert len(r.warm_samples_seconds) == 5 and r.repeats == 5 and r.warmup == 2
    assert len(r.dispatch_only_seconds) == 4
    # Every synchronized sample holds the 20 ms of work; dispatch-only intervals do not.
    assert min(r.warm_samples_seconds) >= 0.02
    assert r.first_call_seconds >= 0.02
    assert r.dispatch_only_median_seconds < 0.01
    assert r.device_median_seconds is None and all(d is None for d in r.device_samples_seconds)


def test_statistics_against_independent_formulas():
    r = stepscope.bench(lambda: sum(range(2000)), repeats=9)
    s = r.warm_samples_seconds
    assert len(s) == 9 and all(x >= 0 for x in s)
    assert r.warm_median_seconds == pytest.approx(statistics.median(s), rel=1e-9)
    st = r.warm_stats
    assert st["n"] == 9
    assert st["mean_seconds"] == pytest.approx(statistics.mean(s), rel=1e-6)
    assert st["stddev_seconds"] == pytest.approx(statistics.stdev(s), rel=1e-6)
    assert st["min_seconds"] == pytest.approx(min(s), rel=1e-9) and st["max_seconds"] == pytest.approx(max(s), rel=1e-9)
    mad = statistics.median([abs(x - statistics.median(s)) for x in s])
    assert st["mad_seconds"] == pytest.approx(mad, rel=1e-6, abs=1e-12)
    cv = statistics.stdev(s) / statistics.mean(s)
    assert st["cv"] == pytest.approx(cv, rel=1e-6)
    outliers = [i for i, x in enumerate(s) if (abs(0.6745 * (x - statistics.median(s)) / mad) > 3.5 if mad
                                              else x != statistics.median(s))]
    assert st["outliers"] == outliers
    assert r.unstable == (cv > 0.10 or bool(outliers))
    assert bool(r.warnings) == r.unstable
    assert r.first_to_warm_median_ratio == pytest.approx(r.first_call_seconds / r.warm_median_seconds, rel=1e-6)
    # No ready: the call is the whole interval and there is no dispatch-only series.
    assert r.dispatch_only_seconds == [] and r.dispatch_only_median_seconds is None
    assert "no completion boundary" in r.boundary


def test_check_passes_and_reports_leaves():
    a = np.arange(12, dtype=np.float32).reshape(3, 4)

    def fn(x):
        return {"double": x * 2, "sum": x.sum()}

    ref = {"double": a.astype(np.float64) * 2, "sum": float(a.sum())}
    r = stepscope.bench(fn, a, check=ref, repeats=3)
    assert r.check["checked"] and r.check["passed"]
    assert [l["name"] for l in r.check["leaves"]] == ["double", "sum"]
    assert r.check["leaves"][0]["shape"] == [3, 4] and r.check["leaves"][0]["values"] == 12
    assert r.max_abs_error == 0
    assert r.x_shape == [3, 4] and r.dtype == "float32"
    # A callable reference is evaluated once, on the result.
    seen = []
    r = stepscope.bench(fn, a, check=lambda res: seen.append(1) or ref, repeats=2)
    assert r.check["passed"] and seen == [1]


def test_wrong_check_fails_clearly():
    a = np.linspace(0, 1, 100)
    want = a ** 2
    want[37] += 0.5
    with pytest.raises(stepscope.CheckError) as e:
        stepscope.bench(lambda x: x ** 2, a, check=want, atol=1e-6, rtol=0, repeats=3, name="square")
    msg = str(e.value)
    assert "square" in msg and "does not match the reference" in msg
    assert "1 of 100 values differ" in msg and "flat index 37" in msg
    assert "atol 1e-06" in msg
    r = e.value.result
    assert isinstance(r, stepscope.BenchResult)
    assert r.check["checked"] and not r.check["passed"]
    assert r.max_abs_error == pytest.approx(0.5)
    assert len(r.warm_samples_seconds) == 3
    assert isinstance(e.value, AssertionError)


def test_check_structure_and_nan():
    with pytest.raises(stepscope.CheckError, match="structure"):
        stepscope.bench(lambda: {"a": 1.0}, check={"b": 1.0}, repeats=1)
    with pytest.raises(stepscope.CheckError, match="shape"):
        stepscope.bench(lambda: np.zeros(3), check=np.zeros(4), repeats=1)
    with pytest.raises(stepscope.CheckError) as e:
        stepscope.bench(lambda: np.array([1.0, math.nan]), check=np.array([1.0, 2.0]), repeats=1)
    assert e.value.result.max_abs_error is None  # NaN: unknown in JSON, and a failure


def test_kwargs_not_a_mapping_raise_not_crash():
    # A list, a str or an int reached PyObject_Call as the keyword dict and killed the
    # interpreter (SIGSEGV): run in a child so a crash fails this test alone.
    code = """if 1:
        import stepscope
        from stepscope import _stepscope
        f = lambda *a, **k: 1
        for bad in ([1, 2], "abc", 0, 10 ** 30, b"x", (1,)):
            for call in (lambda: stepscope.bench(f, kwargs=bad),
                         lambda: _stepscope.bench(f, (), bad, None, None, None)):
                try:
                    call()
                except TypeError as e:
                    assert "kwargs" in str(e), e
                else:
                    raise AssertionError("kwargs=%r did not raise" % (bad,))
        for arg in range(3):
            spec = [None, None, None]
            spec[arg] = [1, 2]
            try:
                _stepscope.bench(f, (), None, *spec)
            except TypeError as e:
                assert ("ready", "setup", "check")[arg] in str(e), e
            else:
                raise AssertionError("a list as callback %d did not raise" % arg)
        assert stepscope.bench(lambda x=0: x, kwargs={"x": 2}, check=2.0, repeats=1).check["passed"]
        print("ok")
    """
    p = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0 and p.stdout == b"ok\n", (p.returncode, p.stderr.decode("utf-8", "replace"))


def test_report_roundtrip_and_stepscope_report(cli, tmp_path):
    r = stepscope.bench(lambda: None, repeats=3, name="noop", versions={"mylib": "1.2"})
    assert r.schema == "stepscope.bench/1"
    assert r.versions["mylib"] == "1.2" and r.versions["python"]
    assert r.environment["runtime"]["python"] == r.versions["python"]
    assert r.backend.startswith("Python ")
    path = r.save(tmp_path / "bench.json")
    with open(path) as f:
        assert json.load(f) == r
    run_cli(cli, "report", path, "-o", tmp_path / "report.html")
    html = (tmp_path / "report.html").read_text()
    assert "noop" in html and "<svg" in html


def test_save_goes_through_the_library_outfile(tmp_path):
    r = stepscope.bench(lambda: None, repeats=2)
    missing = tmp_path / "no_such_folder" / "bench.json"
    with pytest.raises(stepscope.Error) as e:
        r.save(missing)
    assert str(missing) in str(e.value) and "cannot open for writing" in str(e.value)
    assert not missing.parent.exists()
    path = tmp_path / "bench.json"
    path.write_text("previous")
    r.save(path)
    assert json.loads(path.read_text()) == r
    assert [p.name for p in tmp_path.iterdir()] == ["bench.json"]  # no temporary file left
    umask = os.umask(0)
    os.umask(umask)
    fresh = tmp_path / "fresh.json"
    r.save(fresh)
    assert fresh.stat().st_mode & 0o777 == 0o666 & ~umask


def test_stepscope_diff_reads_two_python_results(cli, tmp_path):
    rc, out, err = run_cli(cli, "diff", "--help", check=False)
    if rc != 0 or b"BASE NEW" not in out:
        pytest.skip("this CLI has no `stepscope diff` yet")

    def work(n):
        return sum(range(n))

    a = stepscope.bench(work, 20000, repeats=15, name="work").save(tmp_path / "a.json")
    b = stepscope.bench(work, 200000, repeats=15, name="work").save(tmp_path / "b.json")
    rc, out, err = run_cli(cli, "diff", a, b, "--json", "--expect", "work:grow", check=False)
    assert rc in (0, 4), err  # 4: a prediction the samples cannot decide
    d = json.loads(out)
    assert "work" in json.dumps(d)


def test_check_infinities_and_nan_like_numpy_isclose():
    # Each pair judged as numpy.isclose judges it (an infinite reference once passed any
    # value, inf failed against inf and passed against -inf).
    pairs = [(math.inf, math.inf), (-math.inf, -math.inf), (math.inf, -math.inf), (1.0, math.inf),
             (math.inf, 1.0), (math.nan, math.nan), (math.nan, 1.0), (1.0, math.nan), (1.0, 1.0 + 1e-9)]
    for equal_nan in (False, True):
        for got, want in pairs:
            expect = bool(np.isclose(got, want, rtol=1e-5, atol=1e-8, equal_nan=equal_nan))
            g, w = np.array([got]), np.array([want])
            if expect:
                r = stepscope.bench(lambda: g, check=w, atol=1e-8, rtol=1e-5, repeats=1, equal_nan=equal_nan)
                assert r.check["passed"] and r.check["equal_nan"] == equal_nan, (got, want, equal_nan)
            else:
                with pytest.raises(stepscope.CheckError):
                    stepscope.bench(lambda: g, check=w, atol=1e-8, rtol=1e-5, repeats=1, equal_nan=equal_nan)


def test_tolerances_validated():
    for bad in (-1, -1e-300, math.nan, math.inf, -math.inf):
        for key in ("atol", "rtol"):
            with pytest.raises(stepscope.InvalidArgument, match=key + " must be a finite number >= 0"):
                stepscope.bench(lambda: 1.0, **{key: bad}, repeats=1)
    for bad in ("0.1", None, [1e-5], True):
        with pytest.raises(TypeError, match="atol must be a real number"):
            stepscope.bench(lambda: 1.0, atol=bad, repeats=1)


class Later:
    """A result that is not complete when returned, as a JAX array: its work runs on a
    thread and block_until_ready() waits for it."""

    def __init__(self, seconds):
        self.job = Job(seconds)
        self.waited = False

    def block_until_ready(self):
        self.job.t.join()
        self.waited = True
        return self


def test_no_ready_waits_on_results_that_complete_later():
    made = []

    def fn():
        made.append({"a": Later(0.02), "b": [Later(0.01), 3]})
        return made[-1]

    r = stepscope.bench(fn, repeats=4)
    # Every leaf with block_until_ready of every result was waited on, inside the clock:
    # each sample holds the 20 ms of the slower leaf, not the call's microseconds.
    assert all(d["a"].waited and d["b"][0].waited for d in made)
    assert min(r.warm_samples_seconds) >= 0.02 and r.first_call_seconds >= 0.02
    assert "stepscope's wait" in r.boundary and "2 test_bench.Later" in r.boundary
    assert r.dispatch_only_seconds == []


def test_ready_none_keeps_the_dispatch_and_warns_naming_the_type():
    made = []

    def fn():
        made.append(Later(0.02))
        return made[-1]

    with pytest.warns(RuntimeWarning, match="test_bench.Later"):
        r = stepscope.bench(fn, ready=None, repeats=3)
    assert not any(x.waited for x in made)
    assert max(r.warm_samples_seconds) < 0.02
    assert any("ready=None" in w and "test_bench.Later" in w for w in r.warnings)
    assert "no completion boundary" in r.boundary
    for x in made:
        x.job.t.join()


def test_first_call_not_slower_is_said():
    # A first call as fast as the warm ones (nothing to compile): with a wait drawn,
    # the report says the function was compiled before bench.
    r = stepscope.bench(lambda: Later(0.0), repeats=5)
    said = any("not slower than the warm median" in w for w in r.warnings)
    assert said == (r.first_call_seconds <= r.warm_median_seconds)
    # A first call that is slower (a compile) is not warned about.
    calls = []

    def compiles():
        calls.append(1)
        return Later(0.03 if len(calls) == 1 else 0.001)

    r = stepscope.bench(compiles, repeats=5)
    assert not any("not slower" in w for w in r.warnings)


def test_diff_refuses_other_shapes_and_pairs_renamed(cli, tmp_path):
    # Batch 256 against 64 timed another problem: it passed as "-68%, shrank" because the
    # contract check read only the CLI's keys; the Python result's x_shape is the contract.
    w = np.ones((128, 128))

    def mlp_before(x):
        return x @ w

    def mlp_after(x):
        return x @ w

    big = stepscope.bench(mlp_before, np.ones((256, 128)), repeats=5).save(tmp_path / "a.json")
    small = stepscope.bench(mlp_after, np.ones((64, 128)), repeats=5).save(tmp_path / "b.json")
    same = stepscope.bench(mlp_after, np.ones((256, 128)), repeats=5).save(tmp_path / "c.json")
    rc, out, err = run_cli(cli, "diff", big, small, check=False)
    assert rc == 1 and out == b"", (rc, out, err)
    assert "workload mlp_before: x_shape differs" in err and "[256, 128]" in err and "[64, 128]" in err, err
    rc, out, err = run_cli(cli, "diff", big, same, "--json", check=False)
    assert rc == 0, err
    d = json.loads(out)
    assert {r["key"] for r in d["intervals"]} >= {"mlp_before", "mlp_before.first_call"}
    assert any("NEW's workload mlp_after is compared as BASE's mlp_before" in n for n in d["notes"]), d["notes"]
    assert not any("measured in" in n for n in d["notes"]), d["notes"]
