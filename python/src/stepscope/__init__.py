"""stepscope: measure asynchronous work correctly, explain a slow call, and read traces
fast, with stepscope's C core (libstepscope) doing the work.

    t = stepscope.open("trace.json.gz")          # or a JAX profile directory
    s = t.slices()                               # NumPy columns; s.to_pandas()
    t.analyze(), t.names(), t.steps()            # as `stepscope analyze|steps --json`
    stepscope.analyze_hosts(["host0.xplane.pb", "host1.xplane.pb"])   # several hosts

    r = stepscope.bench(fn, x, ready=wait, check=reference)   # lesson 1's method
    r.save("bench.json")                         # for `stepscope report`

    stepscope.ledger("compile.log")              # as `stepscope ledger --json`
    stepscope.jax.bench(...), stepscope.jax.compile_log(), stepscope.torch.bench(...)
"""
from . import _errors, _stepscope
from ._bench import BenchResult, bench, fmt_seconds
from ._errors import (CheckError, Error, FormatError, InputOutputError, InvalidArgument, NoStepsFound,
                      NotFoundError, OutOfMemory, TraceWarning)
from ._hosts import analyze_hosts, steps_hosts
from ._ledger import Ledger, ledger
from ._trace import DeviceLaunches, Dictionary, Slices, Trace, open, open_bytes

_stepscope._set_error_factory(_errors._make)

__version__ = _stepscope.version()

__all__ = ["open", "open_bytes", "Trace", "Slices", "Dictionary", "DeviceLaunches", "analyze_hosts", "steps_hosts", "bench", "BenchResult", "fmt_seconds", "ledger", "Ledger",
           "Error", "FormatError", "NotFoundError", "InputOutputError", "InvalidArgument", "OutOfMemory",
           "NoStepsFound", "CheckError", "TraceWarning", "jax", "torch", "__version__"]


def __getattr__(name):
    # stepscope.jax and stepscope.torch without importing JAX or PyTorch until used.
    if name in ("jax", "torch"):
        import importlib

        return importlib.import_module("." + name, __name__)
    raise AttributeError("module 'stepscope' has no attribute %r" % name)
