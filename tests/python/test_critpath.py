"""The critical path from Python (Trace.steps(critical_path=True, what_if=[...])) holds
what `steps --critical-path --json` prints: one library writer behind both, over the
same read (a Trace opened without flows reads its file again keeping the flows and the
stream args, as the CLI does), so flow and stream-wait edges agree too."""
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
    assert mine == want
    assert mine.text.encode() == out


def test_flows_and_stream_waits_as_the_cli(cli, fixtures_dir):
    """simple_add_flows: its Stream Wait Event records give stream_wait edges in the
    alex_net step; ns_resolution_rank0's flows give flow edges. open(..., flows=True)
    reads them at once; open_bytes without it follows neither."""
    cases = [("kineto/simple_add_flows.json.gz", "[param|pytorch.model.alex_net|0|0|0]", "stream_wait"),
             ("kineto/ns_resolution_rank0.json.gz", None, "flow")]
    ran = 0
    for rel, step, edge in cases:
        path = dict(FIXTURES).get(rel)
        if not path:
            continue
        ran += 1
        argv = ["steps", path, "--json", "--critical-path"] + (["--step", step] if step else [])
        _, out, _ = run_cli(cli, *argv)
        want = json.loads(out)
        assert want["critical_path"]["edges_by_type"][edge] > 0
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", stepscope.TraceWarning)
            with stepscope.open(path, flows=True) as t:
                assert t.steps(step=step, critical_path=True).text.encode() == out
            with open(path, "rb") as f:
                data = f.read()
            with stepscope.open_bytes(data, name=path) as t:
                bare = t.steps(step=step, critical_path=True)
        assert bare["critical_path"]["edges_by_type"][edge] == 0
    if not ran:
        pytest.skip("no Kineto fixtures with flows")


def test_what_if_naming_nothing_raises(fixtures_dir):
    path = dict(FIXTURES).get("kineto/h100_bert_small.json.gz")
    if not path:
        pytest.skip("no kineto/h100_bert_small.json.gz fixture")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        with stepscope.open(path) as t:
            with pytest.raises(Exception, match="matches no slice name"):
                t.steps(what_if=["no_such_thing_at_all=0.5"])


def test_a_closed_trace_is_not_read_again(fixtures_dir):
    path = dict(FIXTURES).get("kineto/simple_add_flows.json.gz")
    if not path:
        pytest.skip("no kineto/simple_add_flows.json.gz fixture")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        t = stepscope.open(path)
    t.close()
    with pytest.raises(ValueError, match="closed"):
        t.steps(critical_path=True)
