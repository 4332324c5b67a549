"""Trace.analyze() and steps() are the bytes the CLI's --json prints, and Trace.info,
names(), lanes() and processes() its parts, on every fixture (and on lesson 3's JAX
profile directory when tests/interop made one)."""
import json
import os
import subprocess
import sys
import warnings

import pytest

import stepscope
from conftest import HERE, run_cli, trace_fixtures

FIXTURES = trace_fixtures()
IDS = [r for r, _ in FIXTURES]


def analyze_json(cli, path):
    _, out, _ = run_cli(cli, "analyze", path, "--json")
    return json.loads(out)


def open_quiet(path, **kw):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        return stepscope.open(path, **kw)


@pytest.mark.parametrize("rel,path", FIXTURES, ids=IDS)
def test_analyze_documents_equal_cli(cli, fixtures_dir, rel, path):
    want = analyze_json(cli, path)
    with open_quiet(path) as t:
        assert t.info == want["trace"]
        assert t.names() == want["names"]
        assert t.lanes() == want["lanes"]
        assert t.processes() == want["processes"]


@pytest.mark.parametrize("rel,path", FIXTURES, ids=IDS)
def test_analyze_document_is_the_clis_bytes(cli, fixtures_dir, rel, path):
    _, out, _ = run_cli(cli, "analyze", path, "--json")
    _, out_top, _ = run_cli(cli, "analyze", path, "--json", "--top", "3", "--overlaps", "-j", "1")
    with open_quiet(path) as t:
        d = t.analyze()
        assert d.text.encode("utf-8") == out
        assert d["trace"] == t.info and d["scope"]["group"] == "name"
        # One thread or several: the same document.
        assert t.analyze(jobs=1).text == d.text and t.analyze(jobs=3).text == d.text
        assert t.analyze(top=3, overlaps=True).text.encode("utf-8") == out_top


def steps_cli(cli, path, step=None):
    args = ["steps", path, "--json"] + (["--step", step] if step else [])
    rc, out, err = run_cli(cli, *args, check=False)
    return rc, (json.loads(out) if rc == 0 else None), err


@pytest.mark.parametrize("rel,path", FIXTURES, ids=IDS)
def test_steps_equal_cli(cli, fixtures_dir, rel, path):
    rc, want, err = steps_cli(cli, path)
    with open_quiet(path) as t:
        if rc == 0:
            got = t.steps()
            assert got == want
            _, out, _ = run_cli(cli, "steps", path, "--json")
            assert got.text.encode("utf-8") == out
        else:
            assert rc == 1, err
            with pytest.raises(stepscope.NoStepsFound) as e:
                t.steps()
            # The same rules and candidates as the CLI lists on stderr.
            tried = [line.strip() for line in err.splitlines() if line.startswith("  - ")]
            assert tried and all(x in str(e.value) for x in tried)


def test_steps_with_a_name_and_a_regex(cli, fixtures_dir):
    path = dict(FIXTURES).get("torch-legacy/torch_lesson.json")
    if not path:
        pytest.skip("fixture torch-legacy/torch_lesson.json missing")
    with open_quiet(path) as t:
        for step in ("learner_step", "learner_st.p", "^learner"):
            rc, want, err = steps_cli(cli, path, step)
            assert rc == 0, err
            got = t.steps(step=step)
            assert got == want
            assert got["summary"]["steps"] == 4
        # What the CLI calls a usage error (exit 2) is an InvalidArgument here.
        rc, _, err = steps_cli(cli, path, "(unclosed")
        assert rc == 2
        with pytest.raises(stepscope.InvalidArgument) as e:
            t.steps(step="(unclosed")
        assert str(e.value) in err


def test_profile_directory_equals_cli(cli, interop_profile):
    want = analyze_json(cli, interop_profile)
    rc, steps, err = steps_cli(cli, interop_profile)
    assert rc == 0, err
    with open_quiet(interop_profile) as t:
        assert t.info == want["trace"] and t.info["format"] == "xplane"
        assert t.names() == want["names"]
        assert t.steps() == steps
        assert steps["summary"]["steps"] == 4
        s = t.slices()
    assert {"learner_step", "input_wait", "model_and_wait"} <= set(s.names)


SCOPED = [r for r in ("kineto/profiler_steps_rank0.json.gz", "jax/te_fused_attn.xplane.pb",
                      "torch-legacy/torch_train_small.json") if r in dict(FIXTURES)]


@pytest.mark.parametrize("rel", SCOPED)
def test_scoped_analysis_equals_cli(cli, fixtures_dir, rel):
    path = dict(FIXTURES)[rel]
    with open_quiet(path) as t:
        info = t.info
        lanes = t.lanes()
        busiest = max(lanes, key=lambda l: l["union_ns"])
        top = t.names()[0]["name"]
        a, b = info["ts_min_ns"], info["ts_min_ns"] + (info["ts_max_ns"] - info["ts_min_ns"]) // 3
        cases = [
            (dict(lane="%s:%s" % (busiest["pid"], busiest["tid"])), ["--lane", "%s:%s" % (busiest["pid"], busiest["tid"])]),
            (dict(name=top), ["--name", top]),
            (dict(window=(a, b)), ["--window", "%dns:%dns" % (a - info["ts_min_ns"], b - info["ts_min_ns"])]),
            (dict(group="hlo_op"), ["--group", "hlo_op"]),
            (dict(group="hlo_module", window=(a, b)),
             ["--group", "hlo_module", "--window", "%dns:%dns" % (a - info["ts_min_ns"], b - info["ts_min_ns"])]),
        ]
        for kw, flags in cases:
            _, out, _ = run_cli(cli, "analyze", path, "--json", *flags)
            want = json.loads(out)
            assert t.analyze(**kw).text.encode("utf-8") == out, flags
            assert t.names(**kw) == want["names"], flags
            kw.pop("group", None)
            assert t.lanes(**kw) == want["lanes"], flags
            assert t.processes(**kw) == want["processes"], flags


@pytest.mark.parametrize("rel", SCOPED)
def test_steps_options_equal_cli(cli, fixtures_dir, rel):
    path = dict(FIXTURES)[rel]
    rc, base, _ = steps_cli(cli, path)
    if rc != 0:
        pytest.skip("no steps in %s" % rel)
    with open_quiet(path) as t:
        lane = t.lanes()[-1]
        for kw, flags in ((dict(names=0), ["--names", "0"]), (dict(names=2), ["--names", "2"]),
                          (dict(xprof=True), ["--xprof"]),
                          (dict(lanes=lane["pid"]), ["--lanes", lane["pid"]])):
            rc, out, err = run_cli(cli, "steps", path, "--json", *flags, check=False)
            assert rc == 0, err
            assert t.steps(**kw).text.encode("utf-8") == out, flags


def test_lane_and_step_errors_carry_the_cli_text(cli, fixtures_dir):
    path = dict(FIXTURES).get("torch-legacy/torch_lesson.json")
    if not path:
        pytest.skip("fixture torch-legacy/torch_lesson.json missing")
    with open_quiet(path) as t:
        rc, _, err = run_cli(cli, "analyze", path, "--lane", "no-such-lane", check=False)
        assert rc == 1
        with pytest.raises(stepscope.NotFoundError) as e:
            t.names(lane="no-such-lane")
        assert str(e.value) in err
        # A mistyped step: the CLI's candidates and its "did you mean".
        rc, _, err = run_cli(cli, "steps", path, "--step", "lerner_step", check=False)
        assert rc == 1 and "did you mean" in err
        with pytest.raises(stepscope.NoStepsFound) as e:
            t.steps(step="lerner_step")
        assert "did you mean 'learner_step'?" in str(e.value)
        with pytest.raises(ValueError):
            t.names(group="op")
        with pytest.raises(stepscope.InvalidArgument):
            t.names(window=(10, 10))


# ---- several hosts ------------------------------------------------------------------------

def _host_sets():
    """Sets of fixtures read as the hosts of one run, as the CLI reads several files."""
    have = dict(FIXTURES)
    sets = [("kineto", ["kineto/cpu_only.json.gz", "kineto/profiler_steps_rank0.json.gz",
                        "kineto/ns_resolution_rank0.json.gz"]),
            ("jax", ["jax/conv_mi300_8gpu.xplane.pb", "jax/te_fused_attn.xplane.pb"]),
            ("torch", ["torch-legacy/torch_lesson.json", "torch-legacy/torch_train_small.json"]),
            ("chrome", ["chrome/simple_trace.json", "chrome/tall_trace.json", "chrome/x_event_trace.json"]),
            ("all", sorted(have))]
    return [(name, [have[r] for r in rels]) for name, rels in sets if all(r in have for r in rels)]


HOST_SETS = _host_sets()


@pytest.fixture(scope="module")
def generated_run(tmp_path_factory):
    """A generated 6-host x 8-step profile with stragglers (perf/gen_hosts), as
    tests/cli/test_hosts.sh makes a larger one."""
    build = os.environ.get("STEPSCOPE_BUILD") or os.path.join(os.path.dirname(os.path.dirname(HERE)), "build")
    gen = os.path.join(build, "perf", "gen_hosts")
    if not os.access(gen, os.X_OK):
        pytest.skip("%s is not built (make unit builds it)" % gen)
    out = tmp_path_factory.mktemp("hosts") / "prof"
    subprocess.run([gen, "--hosts", "6", "--steps", "8", "--kernels", "4", str(out)], check=True,
                   stdout=subprocess.DEVNULL)
    return str(out)


def _cli_json(cli, *args):
    rc, out, err = run_cli(cli, *args, check=False)
    return rc, out, err


@pytest.mark.parametrize("name,paths", HOST_SETS, ids=[n for n, _ in HOST_SETS])
def test_hosts_documents_are_the_clis_bytes(cli, fixtures_dir, name, paths):
    rc, out, err = _cli_json(cli, "analyze", "--json", *paths)
    assert rc == 0, err
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stepscope.TraceWarning)
        d = stepscope.analyze_hosts(paths)
        assert d.text.encode("utf-8") == out
        assert d["trace"]["hosts"] == len(paths) == len(d["hosts"])
        assert stepscope.analyze_hosts(paths, jobs=1).text == d.text
        _, out, _ = _cli_json(cli, "analyze", "--json", "--top", "2", *paths)
        assert stepscope.analyze_hosts(paths, top=2).text.encode("utf-8") == out
        rc, out, err = _cli_json(cli, "steps", "--json", *paths)
        if rc == 0:
            assert stepscope.steps_hosts(paths).text.encode("utf-8") == out
        else:
            assert rc == 1 and "no steps found on any of the" in err
            with pytest.raises(stepscope.NoStepsFound) as e:
                stepscope.steps_hosts(paths)
            tried = [line.strip() for line in err.splitlines() if line.startswith("  - ")]
            assert all(x in str(e.value) for x in tried)


def test_hosts_of_a_generated_run_are_the_clis_bytes(cli, generated_run):
    for args, kw in ((["--xprof"], dict(xprof=True)), (["--straggler-ratio", "1.5"], dict(straggler_ratio=1.5)),
                     ([], {})):
        rc, out, err = _cli_json(cli, "steps", "--json", generated_run, *args)
        assert rc == 0, err
        d = stepscope.steps_hosts(generated_run, **kw)
        assert d.text.encode("utf-8") == out, args
        assert d["hosts_count"] == 6
    assert any(s["straggler"] for s in stepscope.steps_hosts(generated_run)["steps"])
    rc, out, err = _cli_json(cli, "analyze", "--json", generated_run)
    assert rc == 0, err
    assert stepscope.analyze_hosts(generated_run).text.encode("utf-8") == out
    # The Kineto copy, named file by file, and a step name that matches nothing.
    ranks = sorted(os.path.join(generated_run, "kineto", f) for f in os.listdir(os.path.join(generated_run, "kineto")))
    _, out, _ = _cli_json(cli, "steps", "--json", *ranks)
    assert stepscope.steps_hosts(ranks, jobs=2).text.encode("utf-8") == out
    rc, _, err = _cli_json(cli, "steps", "--json", "--step", "no_such_step", generated_run)
    assert rc == 1
    with pytest.raises(stepscope.NoStepsFound) as e:
        stepscope.steps_hosts(generated_run, step="no_such_step")
    assert "no steps found on any of the 6 hosts" in str(e.value)
    with pytest.raises(stepscope.InvalidArgument):
        stepscope.steps_hosts(generated_run, straggler_ratio=0.5)
    with pytest.raises(stepscope.NotFoundError):
        stepscope.analyze_hosts([os.path.join(generated_run, "no-such-file.json")])


def test_collectives_of_generated_ranks_are_the_clis_bytes(cli, tmp_path):
    """steps_hosts(collectives=True) and align=True write `steps --collectives --json` and
    `steps --align --json`'s bytes over tests/cli/colls_gen.py's rank traces, whose clock
    offsets it recovers exactly."""
    gen = os.path.join(os.path.dirname(__file__), "..", "cli", "colls_gen.py")
    subprocess.run([sys.executable, gen, "gen", str(tmp_path)], check=True)
    ranks = [str(tmp_path / ("rank%d.json" % r)) for r in range(4)]
    for args, kw in ((["--collectives"], dict(collectives=True)), (["--align"], dict(align=True))):
        rc, out, err = _cli_json(cli, "steps", "--json", *args, *ranks)
        assert rc == 0, err
        d = stepscope.steps_hosts(ranks, **kw)
        assert d.text.encode("utf-8") == out, args
    assert d["clock_offsets_ns"] == {"rank0": 0, "rank1": 1500000, "rank2": -700000, "rank3": 3000000}
    assert "collectives" not in stepscope.steps_hosts(ranks)
