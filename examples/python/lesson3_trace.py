#!/usr/bin/env python3
"""Lesson 3, "Read an XProf trace", with the trace read back as arrays by stepscope.

    python examples/python/lesson3_trace.py [--out DIR]      (default DIR: demo-out/python)

Records the lesson's four warmed steps (StepTraceAnnotation 'learner_step', each
holding 'input_wait', a 1 ms host sleep, then 'model_and_wait', the jitted call and its
wait) with jax.profiler.trace into DIR/profile, then opens that profile directory with
stepscope.open(): the slices come back as NumPy columns (no Python object per event).
Prints the lesson's durations in microseconds, each step's unattributed remainder and
the wrong double-counted total, and stepscope's own step breakdown; `stepscope report
DIR/profile` draws the page."""
import argparse
import json
import os
import time

import jax
import jax.numpy as jnp
import numpy as np

import stepscope


def capture(trace_root):
    rng = np.random.default_rng(31)
    host = rng.normal(size=(48, 32)).astype(np.float32)
    weights = rng.normal(size=(32, 16)).astype(np.float32)
    x, w = jnp.asarray(host), jnp.asarray(weights)
    compiled = jax.jit(lambda a, b: jnp.tanh(a @ b))
    compiled(x, w).block_until_ready()  # compile and warm before the trace
    with jax.profiler.trace(trace_root, create_perfetto_trace=True):
        for index in range(4):
            with jax.profiler.StepTraceAnnotation("learner_step", step_num=index):
                with jax.profiler.TraceAnnotation("input_wait"):
                    time.sleep(.001)  # injected host delay; not a measured real input pipeline
                with jax.profiler.TraceAnnotation("model_and_wait"):
                    result = compiled(x, w)
                    result.block_until_ready()
    np.testing.assert_allclose(result, np.tanh(host @ weights), rtol=2e-5, atol=2e-5)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="demo-out/python", help="folder for the profile (default %(default)s)")
    args = ap.parse_args()
    trace_root = os.path.abspath(os.path.join(args.out, "profile"))
    os.makedirs(trace_root, exist_ok=True)
    capture(trace_root)

    with stepscope.open(trace_root) as t:  # the latest run of the profile directory
        s = t.slices()
        steps = t.steps()
        print("Trace directory:", trace_root, "(read %s)" % t.info["path"])

    # Columns, selected with NumPy: a name's code, then a mask over the rows.
    def durations_us(name):
        code = s.names.index(name)
        rows = s.name.codes == code
        order = np.argsort(s.ts_ns[rows], kind="stable")
        return s.dur_ns[rows][order] / 1000.0

    input_us, model_us, step_us = (durations_us(n) for n in ("input_wait", "model_and_wait", "learner_step"))
    assert len(step_us) == len(input_us) == len(model_us) == 4
    assert (input_us >= 0).all() and (model_us >= 0).all() and (step_us >= 0).all()
    print(json.dumps({"input_wait_us": input_us.tolist(), "model_and_wait_us": model_us.tolist(),
                      "step_us": step_us.tolist()}, indent=2))
    print("Four named steps verified; host annotations are not isolated device kernels.")

    overhead = step_us - input_us - model_us
    wrong = step_us + input_us + model_us
    assert (overhead >= -2).all() and (wrong >= step_us).all()
    print("Unattributed outer time, microseconds:", np.round(overhead, 3).tolist())
    print("Wrong double-counted totals:", np.round(wrong, 3).tolist())
    summary = steps["summary"]
    print("stepscope steps (%s): %d steps, %s in all; children %s; unattributed %s; step+children %s is WRONG"
          " as a total: it counts the children twice"
          % (steps["rule"], summary["steps"], stepscope.fmt_seconds(summary["total_ns"] / 1e9),
             stepscope.fmt_seconds(summary["children_ns"] / 1e9),
             stepscope.fmt_seconds(summary["unattributed_ns"] / 1e9), stepscope.fmt_seconds(summary["naive_ns"] / 1e9)))
    print("wrote %s (stepscope report %s -o report.html)" % (trace_root, trace_root))


if __name__ == "__main__":
    main()
