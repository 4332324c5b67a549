"""The device view from Python (Trace.steps(device=True), Trace.device(),
Trace.device_launches()) holds what `steps --device --json` and `analyze --device --json`
print, on every fixture: one library writer behind both."""
import json
import os
import warnings

import numpy as np
import pytest

import stepscope
from conftest import run_cli, trace_fixtures

FIXTURES = trace_fixtures()
IDS = [r for r, _ in FIXTURES]


def open_quiet(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        return stepscope.open(path, **kw)


@pytest.mark.parametrize("rel,path", FIXTURES, ids=IDS)
def test_device_documents_equal_cli(cli, fixtures_dir, rel, path):
    _, out, _ = run_cli(cli, "analyze", path, "--json", "--device")
    want = json.loads(out)["device"]
    rc, sout, _ = run_cli(cli, "steps", path, "--json", "--device", check=False)
    with open_quiet(path) as t:
        assert t.device() == want
        if rc == 0:
            assert t.steps(device=True) == json.loads(sout)
        else:
            with pytest.raises(stepscope.NoStepsFound):
                t.steps(device=True)


@pytest.mark.parametrize("rel,path", FIXTURES, ids=IDS)
def test_launches_agree_with_the_windows(fixtures_dir, rel, path):
    with open_quiet(path) as t:
        d = t.device()
        L = t.device_launches()
        assert len(L) == d["links"]["ops"]
        assert int(L.linked.sum()) == d["links"]["matched"]
        linked = L.linked
        assert np.array_equal(L.delay_ns[linked], L.device_ts_ns[linked] - L.host_ts_ns[linked])
        for i, w in enumerate(d["windows"]):
            mine = L.device == i
            assert int((mine & linked).sum()) == w["launches"]["matched"]
            assert int((mine & ~linked).sum()) == w["launches"]["unmatched"]
            delays = np.sort(L.delay_ns[mine & linked])
            if len(delays):
                n = len(delays)
                assert w["launches"]["delay_ns"]["max"] == int(delays[-1])
                assert w["launches"]["delay_ns"]["median"] == int((delays[(n - 1) // 2] + delays[n // 2]) // 2)
            assert L.devices[i] == w["device"]


def test_categories_and_its_errors(tmp_path, fixtures_dir):
    path = dict(FIXTURES).get("kineto/profiler_steps_rank0.json.gz")
    if not path:
        pytest.skip("no fixture kineto/profiler_steps_rank0.json.gz")
    rules = tmp_path / "r.rules"
    rules.write_text("compute any\n")
    bad = tmp_path / "bad.rules"
    bad.write_text("compute any\nnonsense name is x\n")
    with open_quiet(path) as t:
        d = t.device(categories=str(rules))
        assert [r["rule"] for r in d["rules"]] == ["compute any"]
        assert any("0 device ops matched communication" in w for w in d["warnings"])
        s = t.steps(device=True, categories=str(rules))
        assert all(x["by_category"]["communication"]["union_ns"] == 0 for st in s["steps"] for x in st["devices"])
        with pytest.raises(stepscope.Error) as e:
            t.device(categories=str(bad))
        assert "bad.rules:2: expected a category" in str(e.value)
        with pytest.raises(ValueError):
            t.steps(categories=str(rules))
        df = t.device_launches().to_pandas()
        assert set(df["category"].astype(str)) <= {"compute", "communication", "memcpy", "memset", "other"}


def test_hosts_device_is_the_clis_bytes_and_each_host_alone(cli, fixtures_dir):
    """steps_hosts(device=True) writes `steps --device --json`'s bytes on several hosts,
    and each host step's devices are those of that trace alone."""
    names = ["ns_resolution_rank0.json.gz", "profiler_steps_rank0.json.gz", "simple_add_flows.json.gz"]
    paths = [os.path.join(fixtures_dir, "traces", "kineto", n) for n in names]
    paths = [p for p in paths if os.path.exists(p)]
    if len(paths) < 2:
        pytest.skip("the Kineto fixtures with device lanes are absent (see docs/fixtures.md)")
    _, out, _ = run_cli(cli, "steps", "--json", "--device", *paths)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        d = stepscope.steps_hosts(paths, device=True)
        assert d.text.encode("utf-8") == out
        assert all("devices" not in s for h in stepscope.steps_hosts(paths)["hosts"] for s in h["steps"])
    for h, path in zip(d["hosts"], paths):
        with open_quiet(path) as t:
            alone = t.steps(device=True)["steps"]
        kept = {(s["index"], s["ts_ns"]): s["devices"] for s in alone}
        assert h["steps"] and all(s["devices"] == kept[(s["step"], s["ts_ns"])] for s in h["steps"]), path
