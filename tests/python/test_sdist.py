"""The sdist builds outside a clone: made with setup.py, unpacked in a temporary folder
away from the repository, built there (its own build_clib and build_ext, -z defs check
included) and imported from that build, which then reads a trace. The build compiles
the library's modules once (about a minute of one core), so it runs where
STEPSCOPE_SDIST_TEST=1; the sdist's contents are checked always."""
import glob
import os
import subprocess
import sys
import tarfile

import pytest
from conftest import ROOT

PY = os.path.join(ROOT, "python")


def make_sdist(tmp_path):
    try:
        import setuptools  # noqa: F401
    except ImportError:
        pytest.skip("setuptools is not installed in this interpreter")
    dist = tmp_path / "dist"
    subprocess.run([sys.executable, "setup.py", "-q", "sdist", "-d", str(dist)], cwd=PY, check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    tars = glob.glob(str(dist / "stepscope-*.tar.gz"))
    assert len(tars) == 1, tars
    return tars[0]


def test_sdist_holds_every_source_it_compiles(tmp_path):
    tar = make_sdist(tmp_path)
    with tarfile.open(tar) as t:
        names = {n.split("/", 1)[1] for n in t.getnames() if "/" in n}
        assert not [m.name for m in t.getmembers() if m.issym() or m.islnk()]
    for module in ("base", "model", "read", "analyze", "hosts", "bench", "ledger", "logparse"):
        for c in glob.glob(os.path.join(ROOT, "lib", module, "*.[ch]")):
            assert "c/lib/%s/%s" % (module, os.path.basename(c)) in names
    for h in glob.glob(os.path.join(ROOT, "include", "stepscope", "*.h")):
        assert "c/include/stepscope/" + os.path.basename(h) in names
    for f in ("setup.py", "pyproject.toml", "src/stepscope/__init__.py", "src/stepscope/py.typed",
              "src/stepscope/_trace.pyi"):
        assert f in names


@pytest.mark.skipif(os.environ.get("STEPSCOPE_SDIST_TEST") != "1", reason="STEPSCOPE_SDIST_TEST=1 builds the sdist")
def test_sdist_builds_and_imports_outside_a_clone(tmp_path):
    tar = make_sdist(tmp_path)
    where = tmp_path / "unpacked"
    with tarfile.open(tar) as t:
        t.extractall(where)
    (src,) = glob.glob(str(where / "stepscope-*"))
    assert os.path.commonpath([src, ROOT]) != ROOT
    subprocess.run([sys.executable, "setup.py", "-q", "build", "--build-base", str(tmp_path / "b")], cwd=src,
                   check=True, stdout=subprocess.DEVNULL)
    (lib,) = glob.glob(str(tmp_path / "b" / "lib*"))
    trace = tmp_path / "t.json"
    trace.write_text('{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]}')
    code = ("import stepscope, sys; assert stepscope.__file__.startswith(sys.argv[1]), stepscope.__file__; "
            "print(len(stepscope.open(sys.argv[2]).slices()))")
    env = dict(os.environ, PYTHONPATH=lib)
    out = subprocess.run([sys.executable, "-c", code, lib, str(trace)], cwd=str(tmp_path), env=env, check=True,
                         stdout=subprocess.PIPE, text=True).stdout
    assert out.split() == ["1"]
