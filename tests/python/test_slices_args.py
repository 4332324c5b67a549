"""Trace.slices(args=[...]) is `stepscope slices --csv --args KEY,KEY`: one column per
arg key, the values as the CLI writes them, None where a slice has no such arg."""
import csv
import io
import json

import pytest

import stepscope
from conftest import run_cli, trace_fixtures

FIXTURES = dict(trace_fixtures())


def cli_arg_rows(cli, path, keys):
    _, out, _ = run_cli(cli, "slices", path, "--csv", "--track", "--args", ",".join(keys))
    rows = list(csv.reader(io.StringIO(out.decode("utf-8", "replace"), newline="")))
    assert rows[0][7:] == keys
    return [tuple(r[7:]) for r in rows[1:]]


def write_trace(tmp_path):
    ev = [{"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": 100 * k, "dur": 90,
           "args": {"step_num": k}} for k in range(3)]
    ev += [{"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 100 * k + 5, "dur": 50,
            "args": {"Input Dims": [[64, 32], [32, 8]], "scale": 0.5, "ok": True, "hlo_op": "dot.%d" % k}}
           for k in range(3)]
    p = tmp_path / "t.json"
    p.write_text(json.dumps(ev, indent=1))  # indented: "Input Dims" comes pretty-printed, as Kineto writes it
    return p


def test_arg_columns_hold_the_values(tmp_path):
    with stepscope.open(write_trace(tmp_path), args="all") as t:
        s = t.slices(args=["step_num", "Input Dims", "scale", "ok", "absent"])
    assert s.arg_keys == ("step_num", "Input Dims", "scale", "ok", "absent")
    names = [s.name[i] for i in range(len(s))]
    got = {(names[i], s["step_num"][i], s["Input Dims"][i], s["scale"][i], s["ok"][i], s["absent"][i])
           for i in range(len(s))}
    want = {("ProfilerStep#%d" % k, str(k), None, None, None, None) for k in range(3)}
    want |= {("aten::mm", None, "[[64,32],[32,8]]", "0.5", "true", None)}
    assert got == want
    assert isinstance(s["step_num"], stepscope.Dictionary) and s["step_num"].codes.min() == -1
    assert list(s["absent"].decode()) == [None] * len(s)
    row = next(r for r in s.rows() if r[5] == "ProfilerStep#1")
    assert row[7:] == ("1", None, None, None, None)


def test_arg_columns_in_pandas_and_arrow(tmp_path):
    pd = pytest.importorskip("pandas")
    with stepscope.open(write_trace(tmp_path), args="all") as t:
        s = t.slices(args=["step_num"])
    df = s.to_pandas()
    assert list(df.columns)[-1] == "step_num"
    steps = df[df.name.astype(str).str.startswith("ProfilerStep")]
    assert sorted(steps.step_num.astype(str)) == ["0", "1", "2"]
    assert df[df.name == "aten::mm"].step_num.isna().all()
    assert isinstance(df.step_num.dtype, pd.CategoricalDtype)
    pa = pytest.importorskip("pyarrow")
    tab = s.to_arrow()
    assert tab.column_names[-1] == "step_num" and tab.column("step_num").null_count == 3
    assert isinstance(tab.column("step_num").type, pa.DictionaryType)


def test_a_key_the_reader_dropped_is_an_error(tmp_path):
    path = write_trace(tmp_path)
    with stepscope.open(path) as t:  # args="analysis": "Input Dims" is not kept
        with pytest.raises(ValueError, match="no slice holds arg 'Input Dims'.*args='analysis'.*args=\"all\""):
            t.slices(args=["Input Dims"])
        assert t.slices(args=["step_num"])["step_num"][0] == "0"  # kept by the analysis mode


@pytest.mark.parametrize("bad,err,msg", [
    ("step_num", TypeError, "must be a list of arg keys"),
    (["step_num", 3], TypeError, "non-empty str"),
    ([""], TypeError, "non-empty str"),
    (["name"], ValueError, "name of a column"),
    (["a", "a"], ValueError, "given twice"),
    (7, TypeError, "must be a list of arg keys"),
])
def test_bad_keys(tmp_path, bad, err, msg):
    with stepscope.open(write_trace(tmp_path), args="all") as t:
        with pytest.raises(err, match=msg):
            t.slices(args=bad)


@pytest.mark.skipif("kineto/profiler_steps_rank0.json.gz" not in FIXTURES, reason="fixture absent")
def test_equals_cli_args_on_kineto(cli):
    path = FIXTURES["kineto/profiler_steps_rank0.json.gz"]
    keys = ["Input Dims", "External id"]
    want = cli_arg_rows(cli, path, keys)
    with stepscope.open(path, args="all") as t:
        s = t.slices(args=keys)
    got = [tuple("" if v is None else v for v in r[7:]) for r in s.rows()]
    assert got == want
    assert any(r[0] for r in want)  # the fixture has shapes: a comparison of something
