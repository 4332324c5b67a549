"""Benchmarking a Python callable lesson 1's way, with the C harness (lib/bench) doing
the timing, the statistics and the stability verdict, and writing the report."""
import inspect
import numbers
import platform
from collections.abc import Mapping
import sys
import warnings

import numpy as np

from . import _stepscope
from ._errors import CheckError
from ._json_doc import Document

DEFAULT_ATOL = 2e-5
DEFAULT_RTOL = 2e-5


class BenchResult(Document):
    """`stepscope bench --json` (schema stepscope.bench/1, docs/bench.md) as a dict with
    attribute access: first_call_seconds, warm_samples_seconds, warm_median_seconds,
    warm_stats, dispatch_only_seconds, max_abs_error, check, unstable, warnings,
    environment, ... save(path) writes it for `stepscope report` and `stepscope diff`."""

    def __repr__(self):
        check = self["check"]
        verdict = "not checked" if not check["checked"] else "check passed" if check["passed"] else "CHECK FAILED"
        return "<stepscope.BenchResult %s: first call %s, warm median %s over %d samples%s, %s>" % (
            self["name"], fmt_seconds(self["first_call_seconds"]), fmt_seconds(self["warm_median_seconds"]),
            len(self["warm_samples_seconds"]), ", UNSTABLE" if self["unstable"] else "", verdict)

    def table(self):
        """The result as text for people, the table `stepscope show BENCH.json` prints:
        the boundary, the first call, the warm median, min and max, each sample, the
        dispatch-only median and the check; what the result lacks is "unknown"."""
        warm = [x for x in self.get("warm_samples_seconds") or [] if x is not None]
        check = self.get("check") or {}
        verdict = ("unknown" if not check else "not checked" if not check.get("checked")
                   else "passed" if check.get("passed") else "FAILED")
        disp = self.get("dispatch_only_seconds")
        if isinstance(disp, list):
            d = [x for x in disp if x is not None]
            disp = float(np.median(d)) if d else None
        lines = ["%s" % self.get("name", "(unnamed)"),
                 "  boundary:    %s" % self.get("boundary", "unknown"),
                 "  first call:  %s" % fmt_seconds(self.get("first_call_seconds")),
                 "  warm:        median %s, min %s, max %s over %d samples" % (
                     fmt_seconds(self.get("warm_median_seconds")), fmt_seconds(min(warm) if warm else None),
                     fmt_seconds(max(warm) if warm else None), len(warm)),
                 "  samples:     %s" % ", ".join(fmt_seconds(x) for x in warm),
                 "  dispatch:    %s" % fmt_seconds(disp),
                 "  check:       %s" % verdict]
        if self.get("unstable"):
            lines.append("  UNSTABLE: the warm samples spread widely")
        lines += ["  warning:     %s" % w for w in self.get("warnings") or []]
        return "\n".join(lines)

    def print(self, file=None):
        """Prints table() (to sys.stdout, or `file`)."""
        import sys

        print(self.table(), file=file or sys.stdout)


def fmt_seconds(s):
    """A duration as stepscope writes durations ("35.2 µs"); None is "unknown"."""
    return _stepscope.fmt_duration(float("nan") if s is None else s * 1e9)


# ---- the check: result leaves against reference leaves ---------------------------------


def _leaves(tree, path=()):
    """(path, leaf) pairs: dicts by sorted key (as JAX flattens them), lists and tuples
    by position; anything else is a leaf."""
    if isinstance(tree, dict):
        for k in sorted(tree, key=str):
            yield from _leaves(tree[k], path + (str(k),))
    elif isinstance(tree, (list, tuple)):
        for i, v in enumerate(tree):
            yield from _leaves(v, path + (str(i),))
    else:
        yield path, tree


def _as_float64(x, what):
    if hasattr(x, "detach") and hasattr(x, "cpu"):  # a torch tensor, maybe on a GPU
        x = x.detach().cpu().numpy()
    a = np.asarray(x)
    if a.dtype.kind == "c":
        raise TypeError("check: %s is complex (%s); compare its real and imaginary parts as two leaves" % (what, a.dtype))
    if a.dtype.kind not in "biuf":
        raise TypeError("check: %s has dtype %s, not a number" % (what, a.dtype))
    return np.ascontiguousarray(a, dtype=np.float64)


def _check_leaves(result, reference):
    """[(name, shape, got bytes, want bytes)] for the C check; raises when the
    structures differ."""
    got = list(_leaves(result))
    want = list(_leaves(reference))
    gp, wp = [p for p, _ in got], [p for p, _ in want]
    if gp != wp:
        raise CheckError("check: the result's structure %s differs from the reference's %s"
                         % (["/".join(p) or "result" for p in gp], ["/".join(p) or "reference" for p in wp]))
    out = []
    for (path, g), (_, w) in zip(got, want):
        name = "/".join(path) or "result"
        ga, wa = _as_float64(g, "result leaf %r" % name), _as_float64(w, "reference leaf %r" % name)
        if ga.shape != wa.shape:
            raise CheckError("check: leaf %r has shape %s but the reference has shape %s"
                             % (name, list(ga.shape), list(wa.shape)))
        out.append((name, list(ga.shape), ga.tobytes(), wa.tobytes()))
    return out


def _tolerance(value, what):
    """A tolerance as a float; the C harness refuses one that is negative, infinite or
    NaN."""
    if isinstance(value, bool) or not isinstance(value, numbers.Real):
        raise TypeError("bench: %s must be a real number, not %s" % (what, type(value).__name__))
    return float(value)


def _failure_message(name, leaves, atol, rtol):
    parts = []
    for leaf in leaves:
        if leaf["mismatches"]:
            parts.append("leaf '%s': %d of %d values differ; largest |got - want| = %.6g at flat index %d "
                         "(got %.9g, want %.9g)" % (leaf["name"], leaf["mismatches"], leaf["values"],
                                                   leaf["max_abs_error"], leaf["worst_index"], leaf["worst_got"],
                                                   leaf["worst_want"]))
    return ("bench %s: the result does not match the reference (|got - want| <= atol + rtol * |want| with atol %g, "
            "rtol %g; an infinity matches only itself, a NaN only a NaN with equal_nan=True): %s"
            % (name, atol, rtol, "; ".join(parts) or "a leaf beyond the first four differs"))


# ---- the description of the run --------------------------------------------------------


def _arg_names(fn, n):
    try:
        params = list(inspect.signature(fn).parameters.values())
    except (TypeError, ValueError):
        params = []
    names = []
    for i in range(n):
        p = params[i] if i < len(params) else None
        if p is not None and p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD):
            names.append(p.name)
        else:
            names.append("arg%d" % i)
    return names


def _default_shapes(fn, args):
    """"<parameter>_shape" for each positional argument with a shape (at most 4, the
    report's limit)."""
    shapes = []
    for name, a in zip(_arg_names(fn, len(args)), args):
        shape = getattr(a, "shape", None)
        if shape is not None and len(shape) <= 4 and len(shapes) < 4:
            shapes.append((name + "_shape", [int(d) for d in shape]))
    return shapes


def _default_dtype(args):
    for a in args:
        dt = getattr(a, "dtype", None)
        if dt is not None:
            return str(dt)
    return ""


# ---- results that are not complete when returned ---------------------------------------

_NOT_GIVEN = object()  # `ready` not passed, as against ready=None (the caller's "no wait")


def _pending_leaves(result):
    """The leaves of `result` that may still be computing when fn returns: anything
    with block_until_ready (JAX arrays, also in pytrees JAX knows and stepscope does
    not) and torch tensors on a GPU (is_cuda). Plain Python values, NumPy arrays and
    CPU tensors are complete when returned."""
    jax = sys.modules.get("jax")
    if jax is not None and not isinstance(result, (dict, list, tuple)):
        try:
            leaves = jax.tree_util.tree_leaves(result)
        except Exception:  # not a pytree JAX can flatten: take it as one leaf
            leaves = [result]
    else:
        leaves = [leaf for _, leaf in _leaves(result)]
    return [x for x in leaves if callable(getattr(x, "block_until_ready", None)) or getattr(x, "is_cuda", False) is True]


def _type_name(x):
    t = type(x)
    return t.__name__ if t.__module__ == "builtins" else "%s.%s" % (t.__module__, t.__qualname__)


def _wait_on(pending):
    """Waits on every pending leaf: block_until_ready, or the leaf's CUDA device."""
    synced = set()
    for x in pending:
        b = getattr(x, "block_until_ready", None)
        if callable(b):
            b()
        else:
            dev = getattr(x, "device", None)
            if dev not in synced:
                synced.add(dev)
                sys.modules["torch"].cuda.synchronize(dev)


class _AutoReady:
    """The wait stepscope draws when the caller gave no `ready`: each result's pending
    leaves, found anew every call (a function may return different structures)."""

    def __init__(self, wait):
        self.wait = wait
        self.types = {}  # type name -> leaves of it in the first result

    def __call__(self, result):
        pending = _pending_leaves(result)
        if not self.types:
            for x in pending:
                n = _type_name(x)
                self.types[n] = self.types.get(n, 0) + 1
            self.types = self.types or {"": 0}
        if self.wait and pending:
            _wait_on(pending)

    def what(self):
        return ", ".join("%d %s" % (n, t) for t, n in sorted(self.types.items()) if n)


def python_runtime():
    """(backend, device, versions) describing plain Python."""
    versions = [("python", platform.python_version()), ("numpy", np.__version__)]
    return "Python %s (%s)" % (platform.python_version(), platform.python_implementation()), "", versions


def bench(fn, *args, ready=_NOT_GIVEN, check=None, atol=DEFAULT_ATOL, rtol=DEFAULT_RTOL, repeats=7, warmup=0,
          dispatch=None, setup=None, kwargs=None, name=None, boundary=None, shapes=None, dtype=None,
          reference=None, backend=None, device=None, versions=None, equal_nan=False):
    """Benchmarks `fn(*args, **kwargs)` lesson 1's way and returns a BenchResult.

    The C harness calls `setup()` outside the clock (place and wait for the inputs),
    times the first call apart (with its wait), makes `warmup` untimed waited calls,
    then takes `repeats` synchronized samples: clock start, `result = fn(*args)`,
    `ready(result)`, clock stop. `ready` is the completion boundary
    (`jax.block_until_ready`, `lambda r: torch.cuda.synchronize()`, or your own wait).
    Without `ready`, stepscope waits itself on every leaf of each result that may still
    be computing (anything with block_until_ready, as JAX arrays in any pytree, and
    torch tensors on a GPU) and says so in the boundary; `ready=None` says the call is
    synchronous and keeps the clock at the call's return, with a warning when the
    result is of a kind that completes later. When `ready` is given, `dispatch`
    dispatch-only intervals (the clock stops when the call returns) are reported apart
    (default: as many as `repeats`; 0 for none). When a wait was drawn and the first
    call was not slower than the warm median, the report warns that fn was already
    compiled (its first call shows no compile).

    `check` is the reference: an array, a dict/list/tuple of arrays shaped like the
    result, or a callable taking the result and returning one. The last sample's
    result is compared after the clock, in float64, as numpy.isclose(got, want, rtol,
    atol, equal_nan) compares: |got - want| <= atol + rtol * |want| for finite values,
    an infinity matches only the same infinity, a NaN only a NaN and only with
    `equal_nan`. atol and rtol are finite numbers >= 0 (else InvalidArgument). A
    mismatch raises CheckError (its `result` holds the measurements).

    `name`, `boundary`, `shapes` ({key: shape}), `dtype`, `reference` (words for what
    check compares with) and `backend`, `device`, `versions` ({name: version}) describe
    the run in the report; defaults come from the function and its arguments."""
    if not callable(fn):
        raise TypeError("bench: fn must be callable, not %s" % type(fn).__name__)
    auto = None
    if ready is _NOT_GIVEN or ready is None:
        auto = _AutoReady(wait=ready is _NOT_GIVEN)
    elif not callable(ready):
        raise TypeError("bench: ready must be callable (the completion boundary), not %s" % type(ready).__name__)
    if setup is not None and not callable(setup):
        raise TypeError("bench: setup must be callable (it places the inputs), not %s" % type(setup).__name__)
    if kwargs is not None:
        if not isinstance(kwargs, Mapping):
            raise TypeError("bench: kwargs must be a dict of keyword arguments for fn, not %s" % type(kwargs).__name__)
        kwargs = dict(kwargs)
    if isinstance(repeats, bool) or not isinstance(repeats, int) or isinstance(warmup, bool) or not isinstance(warmup, int):
        raise TypeError("bench: repeats and warmup are ints")
    atol, rtol = _tolerance(atol, "atol"), _tolerance(rtol, "rtol")
    checker = None
    if check is not None:
        ref_cache = []

        def checker(result):
            if not ref_cache:
                ref_cache.append(check(result) if callable(check) else check)
            return _check_leaves(result, ref_cache[0])

    if dispatch is None:
        dispatch_n = 0 if auto is None else -1
    else:
        dispatch_n = int(dispatch) if dispatch > 0 else -1
    user_boundary = boundary is not None
    if boundary is None:
        boundary = ("inputs ready before the clock; call plus ready(result)" if auto is None
                    else "call until it returns (no completion boundary given: fn must be synchronous)")
    for what, value in (("shapes", shapes), ("versions", versions)):
        if value is not None and not isinstance(value, Mapping):
            raise TypeError("bench: %s must be a dict, not %s" % (what, type(value).__name__))

    def finish(first_s, median_s):
        notes, drawn = [], None
        what = auto.what() if auto is not None else ""
        if auto is not None and auto.wait and what:
            drawn = ("inputs ready before the clock; call plus stepscope's wait on the result "
                     "(no ready= given; waited on %s)" % what)
        elif auto is not None and not auto.wait and what:
            msg = ("ready=None: the clock stopped when fn returned, but its result (%s) completes later: "
                   "the samples time the dispatch, not the work; give ready= or leave it out" % what)
            notes.append(msg)
            warnings.warn("bench %s: %s" % (label, msg), RuntimeWarning, stacklevel=3)
        if (auto is None or drawn) and median_s > 0 and first_s <= median_s:
            msg = ("the first call (%s) was not slower than the warm median (%s): fn was compiled before "
                   "bench, so no compile time is in the first call" % (fmt_seconds(first_s), fmt_seconds(median_s)))
            notes.append(msg)
        return (None if user_boundary else drawn), notes

    shape_list = [(k, [int(d) for d in v]) for k, v in shapes.items()] if shapes is not None else \
        _default_shapes(fn, args)
    label = name or getattr(fn, "__name__", None) or type(fn).__name__
    py_backend, py_device, py_versions = python_runtime()
    vers = list(py_versions)
    for k, v in (versions or {}).items():
        vers = [(a, b) for a, b in vers if a != k] + [(str(k), str(v))]
    text, checked, passed, leaves = _stepscope.bench(
        fn, tuple(args), kwargs, auto if auto is not None else ready, setup, checker,
        name=str(label), boundary=boundary, dtype=dtype if dtype is not None else _default_dtype(args),
        reference=reference or ("the caller's reference, compared in float64" if check is not None else None),
        shapes=shape_list, repeats=repeats, warmup=warmup, dispatch=dispatch_n, atol=atol, rtol=rtol,
        backend=backend or py_backend, device=device if device is not None else py_device, runtime=vers,
        equal_nan=bool(equal_nan), finish=finish)
    r = BenchResult(text)
    if checked and not passed:
        raise CheckError(_failure_message(r["name"], leaves, atol, rtol), result=r)
    return r
