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
