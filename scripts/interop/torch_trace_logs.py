"""Runs torch.compile on CPU under TORCH_TRACE and writes what it did to truth.json.

Usage: TORCH_TRACE=OUT/trace python torch_trace_logs.py OUT

f is compiled with dynamic=False and called with five sizes under a recompile limit
of 3: compiles 0/0..0/2, the fourth size refused (the limit), each compile meeting the
graph break at the line marked BREAK. h is called with a float then an int scalar,
then a float64 tensor: three compiles, the second for k's value or type, the third
for the dtype. The checks (tests/interop/test_ledger_torch.sh) compare the ledger of
OUT/trace with truth.json.
"""
import inspect
import json
import sys

import torch
import torch._dynamo

out = sys.argv[1]
LIMIT = 3
if hasattr(torch._dynamo.config, "recompile_limit"):
    torch._dynamo.config.recompile_limit = LIMIT
else:
    torch._dynamo.config.cache_size_limit = LIMIT


def f(x):
    y = x * 2
    torch._dynamo.graph_break()  # BREAK
    return y.sum()


def h(x, k):
    return x + k


g = torch.compile(f, backend="eager", dynamic=False)
sizes = [4, 8, 16, 32, 64]
for n in sizes:
    g(torch.ones(n))
hc = torch.compile(h, backend="eager", dynamic=False)
hc(torch.ones(3), 1.5)
hc(torch.ones(3), 2)
hc(torch.ones(3, dtype=torch.float64), 2)

src, first = inspect.getsourcelines(f)
brk = first + next(i for i, l in enumerate(src) if "# BREAK" in l)
truth = {
    "torch": torch.__version__,
    "file": __file__.rsplit("/", 1)[-1],
    "f_line": f.__code__.co_firstlineno,
    "h_line": h.__code__.co_firstlineno,
    "f_sizes": sizes[:LIMIT],  # compiled; the next was refused
    "limit": LIMIT,
    "break_line": brk,
    "h_compiles": 3,
}
json.dump(truth, open(out + "/truth.json", "w"))
