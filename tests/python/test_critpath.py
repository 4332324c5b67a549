"""The critical path from Python (Trace.steps(critical_path=True, what_if=[...])) holds
what `steps --critical-path --json` prints: one library writer behind both. A Trace
keeps no flows, so where the CLI followed flow edges between threads the documents may
differ; there the test checks only what holds for both: each path tiles its step."""
import json
import warnings

import pytest

import stepscope
from conftest import run_cli, trace_fixtures

FIXTURES = [f for f in trace_fixtures() if f[0].startswith("kineto/")]
IDS = [r for r, _ in FIXTURES]


def tiles(doc):
    for s in doc["steps"]:
        cp = s["critical_path"]
        if cp is None:
            continue
        assert cp["length_ns"] == s["dur_ns"]
        assert sum(cp["by_kind"].values()) == s["dur_ns"]
        at = s["ts_ns"]
        for iv in cp["intervals"]:
            assert iv["ts_ns"] == at
            at += iv["dur_ns"]
        assert at == s["ts_ns"] + s["dur_ns"]


@pytest.mark.parametrize("rel,path", FIXTURES, ids=IDS)
def test_critical_path_equals_cli(cli, fixtures_dir, rel, path):
    rc, out, _ = run_cli(cli, "steps", path, "--json", "--critical-path", "--what-if", "top=2", check=False)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        with stepscope.open(path) as t:
            if rc != 0:
                with pytest.raises(stepscope.NoStepsFound):
                    t.steps(critical_path=True)
                return
            mine = t.steps(critical_path=True, what_if=["top=2"])
    want = json.loads(out)
    tiles(mine)
    tiles(want)
    if want["critical_path"]["edges_by_type"]["flow"] == 0:
        assert mine == want
    else:
        assert mine["critical_path"]["edges_by_type"]["flow"] == 0


def test_what_if_naming_nothing_raises(fixtures_dir):
    path = dict(FIXTURES).get("kineto/h100_bert_small.json.gz")
    if not path:
        pytest.skip("no kineto/h100_bert_small.json.gz fixture")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        with stepscope.open(path) as t:
            with pytest.raises(Exception, match="matches no slice name"):
                t.steps(what_if=["no_such_thing_at_all=0.5"])
