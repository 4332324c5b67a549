"""Bad inputs raise Python exceptions carrying the C library's message: the same text
the CLI prints after "stepscope CMD: error: "."""
import gzip
import os
import subprocess
import sys

import pytest

import stepscope
from conftest import run_cli


def cli_error(cli, *args):
    rc, _, err = run_cli(cli, *args, check=False)
    assert rc == 1, err
    prefix = "stepscope %s: error: " % args[0]
    line = [l for l in err.splitlines() if l.startswith(prefix)]
    assert line, err
    return line[0][len(prefix):]


def test_missing_file(cli, tmp_path):
    p = tmp_path / "nope.json"
    with pytest.raises(stepscope.NotFoundError) as e:
        stepscope.open(p)
    assert isinstance(e.value, FileNotFoundError)
    assert str(p) in str(e.value)
    assert str(e.value) == cli_error(cli, "slices", p, "--csv")


def test_malformed_json_names_the_byte_offset(cli, tmp_path):
    p = tmp_path / "bad.json"
    body = '{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}, {"ph": "X", "ts": ]}'
    p.write_text(body)
    with pytest.raises(stepscope.FormatError) as e:
        stepscope.open(p)
    msg = str(e.value)
    assert isinstance(e.value, ValueError)
    assert msg == cli_error(cli, "analyze", p)
    assert str(p) in msg
    assert e.value.byte_offset is not None
    assert "byte %d" % e.value.byte_offset in msg
    # The offset points into the file at or after the bad value.
    assert body.index("]}") - 10 <= e.value.byte_offset <= len(body)


def test_not_a_trace(cli, tmp_path):
    p = tmp_path / "notes.txt"
    p.write_bytes(b"\x00\x01 this is not a trace at all\n" * 10)
    with pytest.raises(stepscope.Error) as e:
        stepscope.open(p)
    assert str(e.value) == cli_error(cli, "analyze", p)


def test_directory_without_a_trace(cli, tmp_path):
    with pytest.raises(stepscope.Error) as e:
        stepscope.open(tmp_path)
    assert str(e.value) == cli_error(cli, "analyze", tmp_path)


def test_unknown_run_in_a_profile_directory(cli, tmp_path):
    run = tmp_path / "plugins" / "profile" / "2026_01_01_00_00_00"
    run.mkdir(parents=True)
    with gzip.open(run / "host.trace.json.gz", "wt") as f:
        f.write('{"traceEvents": []}')
    assert len(stepscope.open(tmp_path).slices()) == 0
    with pytest.raises(stepscope.Error) as e:
        stepscope.open(tmp_path, run="no_such_run")
    assert str(e.value) == cli_error(cli, "analyze", tmp_path, "--run", "no_such_run")


def test_bad_arguments():
    with pytest.raises(ValueError):
        stepscope.open("x.json", args="some")
    with pytest.raises(TypeError):
        stepscope.open(None)


def test_deeply_nested_patterns_raise(cli, tmp_path):
    # 30,000 nested groups overflowed the stack in glibc's recursive regcomp (SIGSEGV):
    # each pattern argument raises the CLI's usage error instead, in a child so a crash
    # fails this test alone.
    p = tmp_path / "t.json"
    p.write_text('[{"ph": "X", "name": "step", "pid": 1, "tid": 1, "ts": 0, "dur": 5}]')
    deep = "(" * 30000
    code = """if 1:
        import sys, stepscope
        t = stepscope.open(sys.argv[1])
        for call in (lambda: t.names(lane=sys.argv[2]), lambda: t.names(name=sys.argv[2]),
                     lambda: t.lanes(lane=sys.argv[2]), lambda: t.steps(step=sys.argv[2]),
                     lambda: t.steps(lanes=sys.argv[2])):
            try:
                call()
            except stepscope.InvalidArgument as e:
                print(e)
            else:
                raise AssertionError("a pattern 30,000 groups deep did not raise")
    """
    r = subprocess.run([sys.executable, "-c", code, str(p), deep], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert r.returncode == 0, (r.returncode, r.stderr.decode("utf-8", "replace"))
    lines = r.stdout.decode().splitlines()
    assert len(lines) == 5
    assert all("(30000 bytes) is too complex for the regular-expression engine: it nests groups more than 64 deep"
               in line for line in lines), lines
    for line, args in ((lines[0], ("analyze", p, "--lane", deep)), (lines[3], ("steps", p, "--step", deep))):
        rc, _, err = run_cli(cli, *args, check=False)
        assert rc == 2 and err == "stepscope %s: error: %s\n" % (args[0], line), (rc, err)


def test_ledger_bad_inputs(cli, tmp_path):
    missing = tmp_path / "missing.log"
    with pytest.raises(stepscope.NotFoundError) as e:
        stepscope.ledger(missing)
    assert str(e.value) == cli_error(cli, "ledger", missing)
    plain = tmp_path / "plain.log"
    plain.write_text("hello\nworld\n")
    with pytest.raises(stepscope.FormatError, match="no JAX or PyTorch compile records"):
        stepscope.ledger(plain)
    with pytest.raises(stepscope.FormatError, match="no JAX or PyTorch compile records"):
        stepscope.ledger("just text\nwithout records\n")


def test_bench_bad_arguments_carry_the_harness_message():
    with pytest.raises(stepscope.InvalidArgument, match=r"repeats must be at least 1 \(got 0\)"):
        stepscope.bench(lambda: None, repeats=0)
    with pytest.raises(stepscope.InvalidArgument, match=r"warmup must be 0 or more \(got -1\)"):
        stepscope.bench(lambda: None, warmup=-1)
    with pytest.raises(TypeError):
        stepscope.bench(42)
    with pytest.raises(TypeError):
        stepscope.bench(lambda: None, ready=3)


def test_exceptions_from_the_callable_pass_through():
    calls = []

    def boom():
        calls.append(1)
        if len(calls) == 3:
            raise KeyError("third call")

    with pytest.raises(KeyError, match="third call"):
        stepscope.bench(boom, repeats=5)
    assert len(calls) == 3  # the harness stopped at once

    def bad_ready(_):
        raise RuntimeError("wait failed")

    with pytest.raises(RuntimeError, match="wait failed"):
        stepscope.bench(lambda: 1, ready=bad_ready)


def test_open_accepts_str_bytes_and_pathlike(tmp_path):
    p = tmp_path / "t.json"
    p.write_text('{"traceEvents": [{"ph": "X", "name": "a", "ts": 1, "dur": 2, "pid": 1, "tid": 1}]}')
    for arg in (p, str(p), os.fsencode(str(p))):
        with stepscope.open(arg) as t:
            assert len(t.slices()) == 1


def test_reader_warnings_are_the_cli_warnings(cli, tmp_path):
    p = tmp_path / "cut.json"
    events = ",".join('{"ph": "X", "name": "s%d", "ts": %d, "dur": 5, "pid": 1, "tid": 1}' % (i, i * 10)
                      for i in range(30))
    p.write_text('{"traceEvents": [' + events + ',{"ph": "B", "name": "open", "ts": 400, "pid": 1, "tid": 1},'
                 '{"ph": "X", "name": "late", "ts": 500, "pid": 1, "tid": 1, "dur": ')  # cut mid-event
    rc, _, err = run_cli(cli, "analyze", p, check=False)
    assert rc == 0, err
    cli_warnings = [l.split(": warning: ", 1)[1] for l in err.splitlines() if ": warning: " in l]
    assert cli_warnings
    with pytest.warns(stepscope.TraceWarning) as caught:
        t = stepscope.open(p)
    assert t.warnings[:len(cli_warnings)] == cli_warnings[:len(t.warnings)]
    assert [str(w.message) for w in caught][:len(cli_warnings)] == cli_warnings
    assert t.info["truncated"] and t.warnings_total == len(t.warnings)
    assert len(t.slices()) >= 30
