"""Trace.memory() is the bytes `analyze --memory --json` and `steps --memory --json`
print (one writer in the library), on a generated trace and the fixtures with memory
events; a trace without them raises."""
import json
import os

import pytest

import stepscope
from conftest import run_cli, trace_fixtures


def memory_trace(path):
    ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    total = 0
    for k in range(4):
        t = 1000 * (k + 1)
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": t, "dur": 900})
        for dt, b in ((20, 100 * (k + 1)), (40, -50 * (k + 1))):
            total += b
            ev.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": t + dt,
                       "args": {"Device Type": 1, "Device Id": 0, "Addr": 64 * k, "Bytes": b,
                                "Total Allocated": total}})
    with open(path, "w") as f:
        json.dump({"traceEvents": ev}, f)


def test_memory_is_the_clis_bytes(cli, tmp_path):
    p = tmp_path / "m.json"
    memory_trace(p)
    _, out, _ = run_cli(cli, "analyze", p, "--memory", "--json")
    _, out_steps, _ = run_cli(cli, "steps", p, "--memory", "--json")
    with stepscope.open(str(p), args="memory") as t:
        d = t.memory()
        assert d.text.encode("utf-8") == out
        assert t.memory(steps=True).text.encode("utf-8") == out_steps
    totals, total = [], 0
    for k in range(4):
        total += 100 * (k + 1)
        totals.append(total)
        total -= 50 * (k + 1)
    assert d["devices"][0]["peak_bytes"] == max(totals)


def test_memory_without_events_raises(tmp_path):
    p = tmp_path / "none.json"
    p.write_text('{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}')
    with stepscope.open(str(p), args="memory") as t:
        with pytest.raises(stepscope.Error, match="no memory events"):
            t.memory()


@pytest.mark.parametrize("rel,path", [f for f in trace_fixtures() if f[0] in (
    os.path.join("kineto", "h100_bert_small.json.gz"), os.path.join("jax", "conv_mi300_8gpu.xplane.pb"))])
def test_memory_fixtures_equal_cli(cli, rel, path):
    _, out, _ = run_cli(cli, "analyze", path, "--memory", "--json", "-q")
    with stepscope.open(path, args="memory") as t:
        assert t.memory().text.encode("utf-8") == out


def test_hosts_memory_is_the_clis_bytes_and_each_host_alone(cli, tmp_path):
    """steps_hosts(memory=True) writes `steps --memory --json`'s bytes on several hosts,
    and each host step's memory is that of its trace alone."""
    paths = [str(tmp_path / ("rank%d.json" % r)) for r in range(2)]
    for p in paths:
        memory_trace(p)
    _, out, _ = run_cli(cli, "steps", "--json", "--memory", *paths)
    d = stepscope.steps_hosts(paths, memory=True)
    assert d.text.encode("utf-8") == out
    assert all("memory" not in s for h in stepscope.steps_hosts(paths)["hosts"] for s in h["steps"])
    for h, path in zip(d["hosts"], paths):
        with stepscope.open(path, args="memory") as t:
            alone = t.memory(steps=True)["steps"]
        kept = {(s["step"], s["ts_ns"]): s["memory"] for s in alone}
        assert h["steps"] and all(s["memory"] == kept[(s["step"], s["ts_ns"])] for s in h["steps"]), path
