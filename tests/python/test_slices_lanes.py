"""Slices' lane columns: pid and tid as integers in pandas and Arrow when the trace's are,
process and thread names per row, and the lane index Trace.lanes() shares to join on."""
import json

import pytest

import stepscope


def write_trace(path, pids):
    ev = [{"ph": "M", "name": "process_name", "pid": pids[0], "args": {"name": "host"}},
          {"ph": "M", "name": "thread_name", "pid": pids[0], "tid": 7, "args": {"name": "main"}}]
    for k, pid in enumerate(pids):
        ev.append({"ph": "X", "name": "s%d" % k, "pid": pid, "tid": 7, "ts": 10 * k, "dur": 5})
    path.write_text(json.dumps({"traceEvents": ev}))
    return path


def test_numeric_pid_tid_are_integers_in_pandas(tmp_path):
    pd = pytest.importorskip("pandas")
    with stepscope.open(write_trace(tmp_path / "t.json", [701, 701, 9])) as t:
        df = t.slices().to_pandas()
    assert pd.api.types.is_integer_dtype(df["pid"]) and pd.api.types.is_integer_dtype(df["tid"])
    assert len(df[df.pid == 701]) == 2 and len(df[df.pid == 9]) == 1
    assert sorted(df.tid.unique().tolist()) == [7]


def test_text_pids_stay_text(tmp_path):
    pd = pytest.importorskip("pandas")
    p = tmp_path / "t.json"
    p.write_text(json.dumps([{"ph": "X", "name": "a", "pid": "CPU functions", "tid": 1, "ts": 0, "dur": 1}]))
    with stepscope.open(p) as t:
        df = t.slices().to_pandas()
    assert isinstance(df["pid"].dtype, pd.CategoricalDtype)
    assert df["pid"].astype(str).tolist() == ["CPU functions"]


def test_process_thread_columns_and_the_lane_key(tmp_path):
    with stepscope.open(write_trace(tmp_path / "t.json", [701, 701, 9])) as t:
        s = t.slices()
        lanes = t.lanes()
    rows = {s.name[i]: (s.process[i], s.thread[i], int(s.lane[i])) for i in range(len(s))}
    assert rows["s0"][:2] == ("host", "main") and rows["s2"][:2] == ("", "")
    by_lane = {ln["lane"]: ln for ln in lanes}
    for name, (_, _, lane) in rows.items():
        ln = by_lane[lane]
        pid = 9 if name == "s2" else 701
        assert ln["pid"] == str(pid) and ln["tid"] == "7", (name, ln)


def test_arrow_pid_is_integer(tmp_path):
    pa = pytest.importorskip("pyarrow")
    with stepscope.open(write_trace(tmp_path / "t.json", [3, 4])) as t:
        table = t.slices().to_arrow()
    assert pa.types.is_integer(table.schema.field("pid").type)
    assert table.column("pid").to_pylist() == [3, 4]
    assert table.column("thread").to_pylist() == ["main", ""]
