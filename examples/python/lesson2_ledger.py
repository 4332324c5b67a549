#!/usr/bin/env python3
"""Lesson 2, "Diagnose recompilation and host synchronization", live, with stepscope.

    python examples/python/lesson2_ledger.py [--out DIR]     (default DIR: demo-out/python)

Runs the lesson's controlled calls of score(x, gain) = sum((x * gain)^2) (initial
signature; changed data; changed dynamic gain; a length-12 input) and its exercise (a
length-16 input) inside stepscope.jax.compile_log(), which captures JAX's compile log
(jax_log_compiles, jax_explain_cache_misses) for the block, without redirecting
standard error, and turns it into the specialization ledger. Prints the lesson's call
ledger (observed Python trace events per call) beside what JAX's log says (compiles per
function, why each missed the cache, the churn diagnosis), and writes DIR/ledger.json
for `stepscope report`."""
import argparse
import json
import os

import jax
import jax.numpy as jnp
import numpy as np

import stepscope


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="demo-out/python", help="folder for ledger.json (default %(default)s)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    cpu = jax.devices("cpu")[0]
    trace_events = []

    def score(x, gain):
        # The lesson's authoring diagnostic: runs while JAX traces, not when it executes.
        trace_events.append({"shape": list(x.shape), "dtype": str(x.dtype)})
        return jnp.sum((x * gain) ** 2)

    compiled_score = jax.jit(score)
    x8 = jax.device_put(np.arange(8, dtype=np.float32), cpu)
    x12 = jax.device_put(np.arange(12, dtype=np.float32), cpu)
    x16 = jax.device_put(np.arange(16, dtype=np.float32), cpu)
    jax.block_until_ready((x8, x12, x16))

    call_rows = []

    def observed_call(label, x, gain):
        before = len(trace_events)
        result = compiled_score(x, jax.device_put(np.float32(gain), cpu))
        result.block_until_ready()
        expected = np.sum((np.asarray(x) * np.float32(gain)) ** 2)
        np.testing.assert_allclose(np.asarray(result), expected, rtol=2e-5, atol=2e-5)
        call_rows.append({"label": label, "shape": list(x.shape), "dtype": str(x.dtype),
                          "observed_trace_delta": len(trace_events) - before, "result": float(result)})

    with stepscope.jax.compile_log() as ledger:
        observed_call("initial signature", x8, 1.)
        observed_call("same signature changed data", x8 + 1., 1.)
        observed_call("same signature changed dynamic gain", x8, 2.)
        observed_call("different input shape", x12, 1.)
        observed_call("new length sixteen", x16, 1.)
    assert call_rows[0]["result"] == 140. and call_rows[2]["result"] == 560. and call_rows[3]["result"] == 506.
    assert call_rows[4]["result"] == sum(i * i for i in range(16))

    print(json.dumps({"jax": jax.__version__, "backend": str(cpu), "calls": call_rows,
                      "python_trace_events": trace_events}, indent=2))
    fn = ledger.function("score")
    print("\nJAX's compile log, read by stepscope: %s traced %d times and compiled %d times (%s compiling)"
          % (fn["name"], fn["traces"], fn["compiles"],
             stepscope.fmt_seconds(fn["compile_ns"] / 1e9 if fn["compile_ns"] is not None else None)))
    print("signatures:", "; ".join(fn["signatures"]))
    for reason in fn.get("reason_details", []):
        print("cache miss (%s): %s" % (reason["category"], reason["detail"]))
    for churn in ledger.get("churn", []):
        print("diagnosis:", churn["message"])
    print("changed data and a changed dynamic gain compiled nothing; each new length compiled once")
    path = ledger.save(os.path.join(args.out, "ledger.json"))
    print("wrote %s (stepscope report %s -o report.html)" % (path, path))


if __name__ == "__main__":
    main()
