"""The package: its version is the C library's, it is an abi3 extension for CPython
3.9+, it links no OpenCL, and importing it does not import JAX."""
import os
import re
import subprocess
import sys

import stepscope
from conftest import ROOT, run_cli, which


def test_version_is_the_c_library_version(cli):
    _, out, _ = run_cli(cli, "version")
    assert out.decode().split()[-1] == stepscope.__version__
    h = open(os.path.join(ROOT, "include", "stepscope", "version.h")).read()
    parts = [re.search(r"STS_VERSION_%s\s+(\d+)" % k, h).group(1) for k in ("MAJOR", "MINOR", "PATCH")]
    assert stepscope.__version__ == ".".join(parts)


def test_abi3_extension_without_opencl():
    so = stepscope._stepscope.__file__
    assert so.endswith(".abi3.so"), so
    if which("ldd"):
        libs = subprocess.run(["ldd", so], stdout=subprocess.PIPE, text=True).stdout
        assert "OpenCL" not in libs, libs
    if which("nm"):
        undefined = subprocess.run(["nm", "-D", "--undefined-only", so], stdout=subprocess.PIPE, text=True).stdout
        names = [l.split()[-1] for l in undefined.splitlines() if l.strip()]
        # No OpenCL entry point (clGetPlatformIDs, ...) and no library symbol left unresolved.
        assert not [n for n in names if re.match(r"(cl[A-Z]|sts_)", n)], names
        exported = subprocess.run(["nm", "-D", "--defined-only", so], stdout=subprocess.PIPE, text=True).stdout
        assert [l.split()[-1] for l in exported.splitlines() if " T " in l] == ["PyInit__stepscope"]


def test_import_does_not_import_jax_or_torch():
    code = "import sys, stepscope; print('jax' in sys.modules, 'torch' in sys.modules, stepscope.jax.__name__)"
    out = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, text=True, check=True).stdout
    assert out.split() == ["False", "False", "stepscope.jax"]


def test_fmt_seconds_is_the_cli_rule():
    assert stepscope.fmt_seconds(0.0012) == "1.20 ms"
    assert stepscope.fmt_seconds(5e-6) == "5 \u00b5s"
    assert stepscope.fmt_seconds(None) == "unknown"
