"""stepscope.ledger() is `stepscope ledger --json`, for files and for text in memory."""
import glob
import gzip
import json
import os

import pytest

import stepscope
from conftest import ROOT, run_cli

LOGS = sorted(p for p in glob.glob(os.path.join(ROOT, "tests", "data", "logs", "*.log"))
              if not p.endswith("no-records.log"))


@pytest.mark.parametrize("path", LOGS, ids=[os.path.basename(p) for p in LOGS])
def test_ledger_equals_cli(cli, path):
    rc, out, err = run_cli(cli, "ledger", path, "--json", check=False)
    if rc != 0:
        with pytest.raises(stepscope.Error):
            stepscope.ledger(path)
        return
    want = json.loads(out)
    got = stepscope.ledger(path)
    assert got == want
    # The same log given as text parses to the same ledger (warnings name the text).
    with open(path, "rb") as f:
        text = f.read()
    assert stepscope.ledger(text)["functions"] == want["functions"]
    n_warn = len([l for l in err.splitlines() if ": warning: " in l and "more" not in l])
    assert len(got.warnings) == n_warn


def test_several_logs_make_one_ledger(cli):
    assert len(LOGS) >= 2
    a, b = LOGS[0], LOGS[1]
    _, out, _ = run_cli(cli, "ledger", a, b, "--json")
    assert stepscope.ledger(a, b) == json.loads(out)


def test_gzip_log_and_save_roundtrip(cli, tmp_path):
    path = [p for p in LOGS if "lesson2" in p][0]
    gz = tmp_path / "log.gz"
    with open(path, "rb") as f, gzip.open(gz, "wb") as g:
        g.write(f.read())
    l, plain = stepscope.ledger(gz), stepscope.ledger(path)
    assert l["functions"] == plain["functions"]
    # Rows name their source line, FILE:LINE, and otherwise agree.
    assert [r["source"] for r in l["rows"]] == [r["source"].replace(path, str(gz)) for r in plain["rows"]]
    assert [dict(r, source=None) for r in l["rows"]] == [dict(r, source=None) for r in plain["rows"]]
    saved = l.save(tmp_path / "ledger.json")
    with open(saved) as f:
        assert json.load(f) == l
    # `stepscope report` reads what save() wrote.
    run_cli(cli, "report", saved, "-o", tmp_path / "r.html")
    assert (tmp_path / "r.html").stat().st_size > 1000


def test_function_lookup():
    path = [p for p in LOGS if "lesson2" in p][0]
    l = stepscope.ledger(path)
    names = [f["name"] for f in l["functions"]]
    f = l.function(names[0])
    assert f["name"] == names[0]
    with pytest.raises(KeyError, match="no function"):
        l.function("no_such_function_anywhere")


def test_torch_trace_directory_equals_cli(cli, tmp_path):
    """A TORCH_TRACE directory (written here in torch's format) reads as the CLI reads it."""
    p = "V1204 02:34:10.737000 4423 torch/_dynamo/convert_frame.py:309] "
    ids = '"frame_id": 0, "frame_compile_id": %d, "attempt": 0'
    lines = [
        p + '{"str": ["/w/train.py", 1]}',
        p + '{"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 1}]}, ' + ids % 0 + "}",
        p + '{"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, ' + ids % 0 + "}",
        "\tGraph break in user code at /w/train.py:5",
        "\tReason: Unsupported: builtin print",
        p + '{"compilation_metrics": {"co_name": "f", "co_filename": "/w/train.py", "co_firstlineno": 3, '
            '"entire_frame_compile_time_s": 0.5, "backend_compile_time_s": 0.25}, ' + ids % 0 + "}",
    ]
    (tmp_path / "dedicated_log_torch_trace_x.log").write_text("\n".join(lines) + "\n")
    rc, out, _ = run_cli(cli, "ledger", str(tmp_path), "--json")
    got = stepscope.ledger(tmp_path)
    assert got == json.loads(out)
    f = got.function("f")
    assert f["source"] == "torch_trace" and f["compiles"] == 1 and f["graph_breaks"] == 1
    assert f["compile_ns"] == 250000000 and f["trace_ns"] == 250000000
    assert got["graph_breaks"] == [{"function": "f (train.py:3)", "where": "train.py:5",
                                    "reason": "Unsupported: builtin print", "count": 1}]
