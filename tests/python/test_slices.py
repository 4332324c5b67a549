"""Trace.slices() is `stepscope slices --csv`, row for row, on every fixture; its
columns are NumPy arrays, not Python objects per row."""
import csv
import io

import numpy as np
import pytest

import stepscope
from conftest import run_cli, trace_fixtures

FIXTURES = trace_fixtures()


def cli_rows(cli, path):
    """The CLI's CSV as tuples (pid, tid, ts, dur, depth, name, track)."""
    _, out, _ = run_cli(cli, "slices", path, "--csv", "--track")
    text = out.decode("utf-8", "replace")
    rows = list(csv.reader(io.StringIO(text, newline="")))
    header, body = rows[0], rows[1:]
    assert header == ["pid", "tid", "ts_ns", "dur_ns", "depth", "name", "track"]
    return [(r[0], r[1], int(r[2]), int(r[3]), int(r[4])) + tuple(r[5:]) for r in body]


@pytest.mark.parametrize("rel,path", FIXTURES, ids=[r for r, _ in FIXTURES])
def test_slices_equal_cli_csv(cli, fixtures_dir, rel, path):
    want = cli_rows(cli, path)
    with stepscope.open(path) as t:
        s = t.slices()
    assert len(s) == len(want)
    assert list(s.rows()) == want


@pytest.mark.parametrize("rel,path", FIXTURES[:3], ids=[r for r, _ in FIXTURES[:3]])
def test_columns_are_numpy_without_objects(fixtures_dir, rel, path):
    with stepscope.open(path) as t:
        s = t.slices()
        info = t.info
    assert len(s) == info["slices"]
    for col, dtype in (("ts_ns", np.int64), ("dur_ns", np.int64), ("depth", np.int32), ("lane", np.int32)):
        a = s[col]
        assert isinstance(a, np.ndarray) and a.dtype == dtype and a.shape == (len(s),)
    for col in ("pid", "tid", "name", "track"):
        d = s[col]
        assert isinstance(d, stepscope.Dictionary)
        assert d.codes.dtype == np.int32 and d.codes.shape == (len(s),)
        assert len(set(d.values)) == len(d.values)  # a table of distinct texts
        if len(s):
            assert d.codes.min() >= 0 and d.codes.max() < len(d.values)
    assert s.names == s.name.values


def test_columns_outlive_the_trace(fixtures_dir):
    path = FIXTURES[0][1]
    t = stepscope.open(path)
    s = t.slices()
    before = list(s.rows())
    t.close()
    del t
    assert list(s.rows()) == before
    t2 = stepscope.open(path)
    t2.close()
    with pytest.raises(ValueError, match="closed"):
        t2.slices()


def test_to_pandas_matches_columns(fixtures_dir):
    pd = pytest.importorskip("pandas")
    with stepscope.open(dict(FIXTURES).get("chrome/simple_trace.json", FIXTURES[0][1])) as t:
        s = t.slices()
    df = s.to_pandas()
    assert list(df.columns) == list(s.columns) + ["lane"]
    assert len(df) == len(s)
    assert isinstance(df["name"].dtype, pd.CategoricalDtype)
    assert df["name"].astype(str).tolist() == [r[5] for r in s.rows()]
    assert df["ts_ns"].tolist() == s.ts_ns.tolist()
    assert (df["pid"].astype(str) == s.pid.decode()).all()


def test_to_arrow_dictionary_columns(fixtures_dir):
    pa = pytest.importorskip("pyarrow")
    with stepscope.open(FIXTURES[0][1]) as t:
        s = t.slices()
    table = s.to_arrow()
    assert pa.types.is_dictionary(table.schema.field("name").type)
    assert table.column("name").to_pylist() == [r[5] for r in s.rows()]


def test_async_track_labels_name_the_set(cli, tmp_path):
    """A set's second track, made by an event named X, is labelled by the set's name
    (A), as trace_processor's `name` dimension of the track and the CLI."""
    ev = [("b", "A", "1", 0), ("e", "A", "1", 100), ("b", "A", "3", 200), ("b", "X", "1", 300),
          ("e", "X", "1", 400), ("e", "A", "3", 500)]
    p = tmp_path / "async.json"
    p.write_text('{"traceEvents": [%s]}' % ", ".join(
        '{"ph": "%s", "name": "%s", "cat": "c", "id": "%s", "pid": 1, "tid": 1, "ts": %d}' % e for e in ev))
    want = cli_rows(cli, str(p))
    with stepscope.open(p) as t:
        got = list(t.slices().rows())
    assert got == want
    assert [(r[5], r[6]) for r in got] == [("A", "global async 0 A"), ("A", "global async 0 A"),
                                           ("X", "global async 1 A")]


def test_empty_trace_gives_empty_columns(tmp_path):
    p = tmp_path / "empty.json"
    p.write_text('{"traceEvents": []}')
    with stepscope.open(p) as t:
        s = t.slices()
    assert len(s) == 0 and s.ts_ns.shape == (0,) and s.name.decode().shape == (0,)
    assert list(s.rows()) == []


@pytest.mark.parametrize("rel,path", FIXTURES, ids=[r for r, _ in FIXTURES])
def test_open_bytes_reads_what_open_reads(fixtures_dir, rel, path):
    with open(path, "rb") as f:
        data = f.read()
    with stepscope.open(path) as a, stepscope.open_bytes(data, name="mem:" + rel) as b:
        assert list(b.slices().rows()) == list(a.slices().rows())
        assert b.names() == a.names()
        assert b.path == "mem:" + rel


def test_open_bytes_errors_name_the_source():
    with pytest.raises(stepscope.FormatError) as e:
        stepscope.open_bytes(b'{"traceEvents": [{"ph": "X", "ts": ]}', name="upload.json")
    assert "upload.json" in str(e.value) and e.value.byte_offset is not None


def test_args_analysis_keeps_what_the_analyses_read(tmp_path):
    """args="analysis" keeps step_num, hlo_op and hlo_module (and the device view's
    correlation ids) only; names() and steps() are what "known" gives."""
    p = tmp_path / "a.json"
    p.write_text('{"traceEvents": ['
                 '{"ph": "X", "name": "ProfilerStep#1", "pid": 1, "tid": 1, "ts": 0, "dur": 100,'
                 ' "args": {"step_num": 1, "context": 5, "extra": "x"}},'
                 '{"ph": "X", "name": "fusion", "pid": 1, "tid": 1, "ts": 1, "dur": 40,'
                 ' "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f", "External id": 3}}]}')
    with stepscope.open(p, args="known") as k, stepscope.open(p, args="analysis") as a:
        assert (k.info["args_kept"], a.info["args_kept"]) == (5, 3)
        assert a.names(group="hlo_op") == k.names(group="hlo_op")
        assert a.steps() == k.steps()
