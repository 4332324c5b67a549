"""stepscope.torch on Debian's PyTorch (/usr/bin/python3, where tests/interop finds it):
the same abi3 extension, another interpreter. Skipped when that Python has no torch."""
import json
import os
import subprocess

import pytest

import stepscope

SYSTEM_PY = "/usr/bin/python3"

SCRIPT = r"""
import json, sys, numpy as np, torch, stepscope
torch.manual_seed(4)
x, w = torch.randn(64, 32), torch.randn(32, 16)
def predict(x, w):
    return torch.tanh(x @ w)
ref = np.tanh(x.numpy().astype(np.float64) @ w.numpy().astype(np.float64))
r = stepscope.torch.bench(predict, x, w, check=ref, repeats=7)
try:
    stepscope.torch.bench(predict, x, w, check=ref + 1e-3, repeats=2)
    failed = None
except stepscope.CheckError as e:
    failed = str(e)
r.save(sys.argv[1])
print(json.dumps({"failed": failed, "sys": sys.version.split()[0]}))
"""


def test_torch_bench_with_debian_python(cli, tmp_path):
    if not os.access(SYSTEM_PY, os.X_OK):
        pytest.skip("no %s" % SYSTEM_PY)
    probe = subprocess.run([SYSTEM_PY, "-c", "import torch, numpy"], stderr=subprocess.PIPE)
    if probe.returncode != 0:
        pytest.skip("%s has no torch (scripts/deps.sh interop installs python3-torch)" % SYSTEM_PY)
    site = os.path.dirname(os.path.dirname(stepscope.__file__))
    env = dict(os.environ, PYTHONPATH=site)
    out = tmp_path / "bench.json"
    p = subprocess.run([SYSTEM_PY, "-c", SCRIPT, str(out)], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       text=True, timeout=3000)
    assert p.returncode == 0, p.stderr[-2000:]
    info = json.loads(p.stdout.strip().splitlines()[-1])
    assert info["failed"] and "1024 of 1024 values differ" in info["failed"]
    r = json.loads(out.read_text())
    assert r["versions"]["torch"] and r["versions"]["python"] == info["sys"]
    assert r["backend"].startswith("PyTorch ") and r["device"] == "cpu"
    assert len(r["warm_samples_seconds"]) == 7 and min(r["warm_samples_seconds"]) >= 0
    assert r["check"]["passed"] and r["x_shape"] == [64, 32]
    assert r["dispatch_only_seconds"] == []  # eager CPU: no separate completion boundary
    from conftest import run_cli

    run_cli(cli, "report", out, "-o", tmp_path / "r.html")
