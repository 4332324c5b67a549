"""Shared fixtures of the Python package's tests, and one ok/FAIL/SKIP line per test in
the style of the other tiers (tests/run.sh counts them)."""
import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def _cli():
    return os.environ.get("STEPSCOPE") or os.path.join(ROOT, "build", "stepscope")


def _fixtures():
    d = os.environ.get("STEPSCOPE_FIXTURES") or os.path.join(ROOT, "..", "shared", "fixtures")
    return os.path.abspath(d)


def trace_fixtures():
    """Every trace file under fixtures/traces (path relative to it, absolute path)."""
    base = os.path.join(_fixtures(), "traces")
    out = []
    for folder, _, files in os.walk(base):
        for f in sorted(files):
            if f.endswith((".json", ".json.gz", ".xplane.pb")):
                full = os.path.join(folder, f)
                out.append((os.path.relpath(full, base), full))
    return sorted(out)


@pytest.fixture(scope="session")
def cli():
    path = _cli()
    if not os.access(path, os.X_OK):
        pytest.fail("the CLI %s is not built (make)" % path)
    return path


@pytest.fixture(scope="session")
def fixtures_dir():
    d = _fixtures()
    if not os.path.isdir(os.path.join(d, "traces")):
        pytest.skip("no trace fixtures at %s (set STEPSCOPE_FIXTURES)" % d)
    return d


def run_cli(cli, *args, check=True):
    """(exit status, stdout bytes, stderr text) of the CLI."""
    p = subprocess.run([cli] + [os.fspath(a) for a in args], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    if check and p.returncode != 0:
        raise AssertionError("%s %s exited %d: %s" % (cli, " ".join(map(str, args)), p.returncode,
                                                     p.stderr.decode("utf-8", "replace")))
    return p.returncode, p.stdout, p.stderr.decode("utf-8", "replace")


@pytest.fixture(scope="session")
def interop_profile():
    """A JAX profile directory made by lesson 3's code (tests/interop caches one), if any."""
    cache = os.environ.get("STEPSCOPE_INTEROP_CACHE") or os.path.join(ROOT, "build", "interop")
    if os.path.isdir(cache):
        for d in sorted(os.listdir(cache)):
            prof = os.path.join(cache, d, "profile")
            if d.startswith("jax-") and os.path.isfile(os.path.join(cache, d, "done")) and os.path.isdir(prof):
                return prof
    pytest.skip("no JAX profile directory from tests/interop (run tests/interop/run.sh first)")


def _reporter(config):
    return config.pluginmanager.get_plugin("terminalreporter")


def pytest_runtest_logreport(report):
    name = "python/" + report.nodeid.split("tests/python/")[-1]
    line = None
    if report.failed:
        line = "FAIL %s" % name
    elif report.skipped and report.when in ("setup", "call"):
        reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
        line = "SKIP %s: %s" % (name, reason.replace("Skipped: ", ""))
    elif report.passed and report.when == "call":
        line = "ok %s" % name
    if line:
        sys.stdout.write("\n" + line + "\n")
        sys.stdout.flush()


def pytest_report_header(config):
    import stepscope

    return "stepscope %s from %s; CLI %s" % (stepscope.__version__, os.path.dirname(stepscope.__file__), _cli())


def which(name):
    return shutil.which(name)
