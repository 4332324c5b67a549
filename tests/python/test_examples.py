"""examples/python: each lesson runs on the installed JAX, prints what the lesson asks,
and writes files `stepscope report` turns into the page."""
import json
import os
import subprocess
import sys

import pytest

from conftest import ROOT, run_cli

pytest.importorskip("jax")
EXAMPLES = os.path.join(ROOT, "examples", "python")


@pytest.fixture(scope="module")
def out(tmp_path_factory):
    return tmp_path_factory.mktemp("examples")


def run_example(name, out):
    p = subprocess.run([sys.executable, os.path.join(EXAMPLES, name), "--out", str(out)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, timeout=3000)
    assert p.returncode == 0, p.stderr[-3000:]
    return p.stdout


def first_json(text):
    """The first JSON object printed (the lesson's report)."""
    start = text.index("{")
    return json.JSONDecoder().raw_decode(text[start:])[0]


def test_lesson1(out):
    text = run_example("lesson1_bench.py", out)
    report = first_json(text)
    assert report["input_shape"] == [64, 32] and report["weight_shape"] == [32, 16] and report["dtype"] == "float32"
    assert len(report["warm_samples_seconds"]) == 7 and min(report["warm_samples_seconds"]) >= 0
    assert report["first_call_seconds"] > report["warm_median_seconds"]
    assert report["max_abs_error"] <= 2e-5
    assert "checked against NumPy" in text and "passed" in text
    saved = json.load(open(out / "bench.json"))
    assert saved["warm_samples_seconds"] == report["warm_samples_seconds"]
    assert saved["check"]["passed"] and saved["output_shape"] == [64, 16]


def test_lesson2(out):
    text = run_example("lesson2_ledger.py", out)
    report = first_json(text)
    assert [c["result"] for c in report["calls"]] == [140.0, 204.0, 560.0, 506.0, 1240.0]
    assert [c["observed_trace_delta"] for c in report["calls"]] == [1, 0, 0, 1, 1]
    assert "compiled 3 times" in text and "8 -> 12" in text
    ledger = json.load(open(out / "ledger.json"))
    assert ledger["schema"] == "stepscope.ledger/1"


def test_lesson3(out):
    text = run_example("lesson3_trace.py", out)
    report = first_json(text)
    for key in ("input_wait_us", "model_and_wait_us", "step_us"):
        assert len(report[key]) == 4 and min(report[key]) >= 0
    for s, i, m in zip(report["step_us"], report["input_wait_us"], report["model_and_wait_us"]):
        assert s >= i + m - 2  # children inside their step
        assert i >= 1000 - 2  # the injected 1 ms sleep
    assert "WRONG as a total" in text
    assert os.path.isdir(out / "profile" / "plugins" / "profile")


def test_report_of_the_three(cli, out):
    needed = [out / "bench.json", out / "ledger.json", out / "profile"]
    if not all(os.path.exists(p) for p in needed):
        pytest.skip("an example above failed")
    _, _, err = run_cli(cli, "report", *needed, "-o", out / "report.html")
    html = (out / "report.html").read_text()
    assert "read as bench" in err and "read as ledger" in err and "read as trace" in err
    assert html.count("<svg") >= 3 and "learner_step" in html
