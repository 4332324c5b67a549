"""Memory the C library owns is freed when the Python objects go: 1,000 open/close
cycles, and as many opens dropped without close, leave the resident set where it was."""
import gc
import os

import pytest

import stepscope
from conftest import trace_fixtures


def rss_bytes():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@pytest.fixture(scope="module")
def big_fixture(fixtures_dir):
    """The largest plain JSON fixture: a leaked timeline of it is megabytes."""
    files = [p for _, p in trace_fixtures() if p.endswith(".json")]
    return max(files, key=os.path.getsize)


def cycle(path, n, close):
    for _ in range(n):
        t = stepscope.open(path)
        s = t.slices()
        assert len(s) > 0
        if close:
            t.close()
        del t, s


@pytest.mark.parametrize("close", [True, False], ids=["close", "drop"])
def test_open_close_1000_cycles_rss_stable(big_fixture, close):
    cycle(big_fixture, 50, close)  # allocator pools settle
    gc.collect()
    before = rss_bytes()
    cycle(big_fixture, 1000, close)
    gc.collect()
    grown = rss_bytes() - before
    # One timeline of this trace is about its size in memory; leaking even 1% of the
    # cycles would grow the process by ~10 of them. Allow 8 MB of allocator noise.
    one = os.path.getsize(big_fixture)
    assert one > 100_000
    assert grown < max(8 << 20, 2 * one), "RSS grew %d bytes over 1000 cycles" % grown


def test_every_entry_point_repeated_rss_stable(big_fixture, tmp_path):
    """A reference or a buffer kept by mistake on any path (documents, errors, ledger,
    bench and its check) shows as growth over many calls: the trace and the checked
    arrays are large enough (a timeline of ~1 MB, 1.6 MB of check leaves per call)
    that keeping any of them grows the process by hundreds of MB."""
    import numpy as np

    steps_trace = [p for r, p in trace_fixtures() if r.endswith("torch_lesson.json")] or [trace_fixtures()[0][1]]
    log = tmp_path / "jax.log"
    log.write_text("WARNING:jax._src.dispatch:Finished tracing + transforming f for pjit in 0.001 sec\n"
                   "WARNING:jax._src.interpreters.pxla:Compiling f with global shapes and types [ShapedArray(float32[8])]."
                   " Argument mapping: (UnspecifiedValue,).\n")
    x = np.arange(100000.0)

    def work():
        with stepscope.open(big_fixture) as t:
            t.info, t.names(), t.lanes(), t.processes(), t.slices()
        with stepscope.open(steps_trace[0]) as t:
            t.info, t.names(), t.lanes(), t.processes(), t.slices()
            try:
                t.steps()
            except stepscope.NoStepsFound:
                pass
            try:
                t.steps(step="(")
            except stepscope.InvalidArgument:
                pass
        try:
            stepscope.open(tmp_path / "missing.json")
        except stepscope.NotFoundError:
            pass
        stepscope.ledger(log)
        stepscope.bench(lambda a: {"y": a * 2}, x, check={"y": x * 2}, ready=lambda r: None, repeats=3)
        try:
            stepscope.bench(lambda a: a, x, check=x + 1, repeats=2)
        except stepscope.CheckError:
            pass

    for _ in range(30):
        work()
    gc.collect()
    before = rss_bytes()
    for _ in range(300):
        work()
    gc.collect()
    grown = rss_bytes() - before
    assert grown < (6 << 20), "RSS grew %d bytes over 300 rounds of every entry point" % grown
