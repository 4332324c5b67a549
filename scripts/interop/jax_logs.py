"""Real JAX compile logs for `stepscope ledger` (tests/interop/test_ledger_jax.sh).

Three programs, each run with JAX_LOG_COMPILES=1 and jax_explain_cache_misses on:

  lesson2      lesson 2's code, all of it: score(x, gain) with new data, a new dynamic
               gain and new lengths; branch_score with a static square; the update
               loop (a jitted lambda) read each step and once; the padded batch with
               its mask (a jitted lambda); broken_branch's TracerBoolConversionError
               and its lax.cond repair (a jitted lambda whose branches are lambdas);
               plus batch_loss fed eight batch lengths.
  lambda_loop  a jitted lambda re-created in every turn of a loop.
  static_int   a function whose static int argument takes several values.

JAX writes its log to standard error; redirect it:

    JAX_LOG_COMPILES=1 .venv/bin/python scripts/interop/jax_logs.py MODE OUT_DIR 2> OUT_DIR/compile.log

OUT_DIR/truth.json records what the program did, counted on the Python side: every
jitted function appends to a list while JAX traces it (lambdas too), and the program
says which functions it called (name and the line they are defined at), how many
times each was traced at the top level (each such trace is compiled), which were only
traced inside another function's trace, and why each retrace happened. The test
compares the ledger built from the log with that, not with a stored answer.
"""
import json
import os
import sys

os.environ.setdefault("JAX_LOG_COMPILES", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

jax.config.update("jax_explain_cache_misses", True)

BATCH_LENGTHS = [8, 12, 16, 20, 24, 28, 32, 36]
HERE = os.path.basename(__file__)


class Truth:
    """What the program did, per function: traces seen on the Python side and the
    reasons its retraces had, by construction of the calls."""

    def __init__(self):
        self.functions = {}
        self.traces = {}

    def declare(self, key, fn, compiled=True, nested_in=None, reasons=None, statics=None):
        self.functions[key] = {
            "name": fn.__name__,
            "line": fn.__code__.co_firstlineno,
            "compiled": compiled,
            "nested_in": nested_in,
            "reasons": reasons or {},
            "statics": statics or [],
        }
        self.traces.setdefault(key, 0)

    def traced(self, key):
        self.traces[key] = self.traces.get(key, 0) + 1
        return 0

    def dump(self, out_dir, results):
        for key, f in self.functions.items():
            f["traces"] = self.traces[key]
        doc = {"jax": jax.__version__, "file": HERE, "functions": self.functions, "results": results}
        with open(os.path.join(out_dir, "truth.json"), "w") as fh:
            json.dump(doc, fh, indent=2)


def lesson2(out_dir):
    t = Truth()
    cpu = jax.devices("cpu")[0]
    results = {}

    def score(x, gain):
        t.traced("score")
        return jnp.sum((x * gain) ** 2)

    compiled_score = jax.jit(score)
    x8 = jax.device_put(np.arange(8, dtype=np.float32), cpu)
    x12 = jax.device_put(np.arange(12, dtype=np.float32), cpu)
    x16 = jax.device_put(np.arange(16, dtype=np.float32), cpu)
    calls = [("initial", x8, 1.0), ("changed data", x8 + 1.0, 1.0), ("changed dynamic gain", x8, 2.0),
             ("new shape", x12, 1.0), ("length sixteen", x16, 1.0)]
    for label, x, gain in calls:
        results[label] = float(compiled_score(x, jax.device_put(np.float32(gain), cpu)))
    # New data and a new dynamic gain reuse; lengths 12 and 16 each change dimension 0 of x.
    t.declare("score", score, reasons={"first": 1, "shape": 2})

    def branch_score(x, square):
        t.traced("branch_score")
        return jnp.sum(x ** 2) if square else jnp.sum(x)

    static_score = jax.jit(branch_score, static_argnames=("square",))
    for i, square in enumerate([True, True, False]):
        results["branch %d" % i] = float(static_score(x8, square=square))
    t.declare("branch_score", branch_score, reasons={"first": 1, "static": 1}, statics=["True", "False"])

    update_fn = lambda value: (t.traced("update"), 0.9 * value + 1.0)[1]  # noqa: E731
    update = jax.jit(update_fn)
    initial = jax.device_put(np.float32(0.0), cpu)
    for read_each in (True, False):
        value = initial
        for _ in range(6):
            value = update(value)
            if read_each:
                float(value)
        results["geometric read_each=%s" % read_each] = float(value)
    t.declare("update", update_fn, reasons={"first": 1})

    masked_fn = lambda values, mask: (t.traced("masked"),  # noqa: E731
                                      jnp.sum(jnp.where(mask, (values + 1.0) ** 2, 0.0)))[1]
    masked_score = jax.jit(masked_fn)
    padded = jax.device_put(np.pad(np.arange(5, dtype=np.float32), (0, 3)), cpu)
    mask = jax.device_put(np.arange(8) < 5, cpu)
    results["masked"] = float(masked_score(padded, mask))
    results["unmasked"] = float(jnp.sum((padded + 1.0) ** 2))
    t.declare("masked", masked_fn, reasons={"first": 1})

    def broken_branch(values, gain):
        t.traced("broken_branch")
        if gain > 1.0:
            return jnp.sum(values ** 2)
        return jnp.sum(values)

    try:
        jax.jit(broken_branch)(x8, jax.device_put(np.float32(2.0), cpu))
        raise AssertionError("a host branch on a traced value was accepted")
    except jax.errors.TracerBoolConversionError:
        results["broken_branch"] = "TracerBoolConversionError"
    t.declare("broken_branch", broken_branch, compiled=False, reasons={"first": 1})

    # The repair: branches written as lambdas on the jitted lambda's own line.
    repaired_fn = lambda values, gain: (t.traced("repaired"), jax.lax.cond(gain > 1.0, lambda v: (t.traced("branches"), jnp.sum(v ** 2))[1], lambda v: (t.traced("branches"), jnp.sum(v))[1], values))[1]  # noqa: E501,E731
    repaired = jax.jit(repaired_fn)
    for gain in (0.5, 2.0):
        results["repaired %g" % gain] = float(repaired(x8, jax.device_put(np.float32(gain), cpu)))
    t.declare("repaired", repaired_fn, reasons={"first": 1})
    # Both branches are traced inside the repaired lambda's trace, never compiled alone.
    t.declare("branches", repaired_fn, compiled=False, nested_in="repaired")

    def batch_loss(b):
        t.traced("batch_loss")
        return jnp.mean(b * b)

    compiled_loss = jax.jit(batch_loss)
    for n in BATCH_LENGTHS:
        results["batch %d" % n] = float(compiled_loss(jax.device_put(np.ones((n, 4), np.float32), cpu)))
    t.declare("batch_loss", batch_loss, reasons={"first": 1, "shape": len(BATCH_LENGTHS) - 1})

    t.dump(out_dir, results)
    assert results["initial"] == 140.0 and results["changed dynamic gain"] == 560.0
    assert results["new shape"] == 506.0 and results["length sixteen"] == 1240.0
    assert results["branch 0"] == 140.0 and results["branch 2"] == 28.0
    assert abs(results["geometric read_each=True"] - 10 * (1 - 0.9 ** 6)) < 2e-4
    assert results["masked"] == 55.0 and results["unmasked"] == 58.0
    assert results["repaired 0.5"] == 28.0 and results["repaired 2"] == 140.0


def lambda_loop(out_dir):
    t = Truth()
    x = jnp.arange(8.0)
    turns = 4
    fns = []
    for _ in range(turns):
        fn = lambda v: (t.traced("doubled"), v * 2.0)[1]  # noqa: E731
        fns.append(fn)
        jax.jit(fn)(x).block_until_ready()
    # Every turn makes a new function object at the same line: each is traced and
    # compiled; JAX says so for every turn after the first.
    t.declare("doubled", fns[0], reasons={"first": 1, "context": turns - 1}, statics=[])
    t.functions["doubled"]["redefined"] = turns - 1
    t.dump(out_dir, {"turns": turns})


def static_int(out_dir):
    t = Truth()
    x = jnp.arange(8.0)

    def power(v, n):
        t.traced("power")
        return v ** n

    p = jax.jit(power, static_argnums=1)
    values = [1, 2, 3, 2, 1, 4]
    results = {}
    for n in values:
        results[str(n)] = float(jnp.sum(p(x, n)))
    distinct = list(dict.fromkeys(values))
    t.declare("power", power, reasons={"first": 1, "static": len(distinct) - 1},
              statics=[str(n) for n in distinct])
    t.functions["power"]["static_position"] = 1
    t.dump(out_dir, results)
    assert results["2"] == float(sum(i * i for i in range(8)))


if __name__ == "__main__":
    modes = {"lesson2": lesson2, "lambda_loop": lambda_loop, "static_int": static_int}
    if len(sys.argv) != 3 or sys.argv[1] not in modes:
        sys.exit("usage: jax_logs.py lesson2|lambda_loop|static_int OUT_DIR  (JAX's log goes to standard error)")
    modes[sys.argv[1]](sys.argv[2])
