#!/usr/bin/env python3
"""Lesson 1, "Benchmark asynchronous work correctly", on your JAX, with stepscope.

    python examples/python/lesson1_bench.py [--out DIR]      (default DIR: demo-out/python)

The seed's workload: predict(x, w) = tanh(x @ w) on x [64, 32] and w [32, 16] float32
(seeded normal values), placed on the CPU and waited for before any clock. The C harness
times the first call apart, then 7 warm synchronized samples (call plus
jax.block_until_ready), and checks the last result against NumPy within atol = rtol =
2e-5. Prints the lesson's report and writes DIR/bench.json, which `stepscope report`
draws (first call and warm samples, two panels)."""
import argparse
import json
import os

import jax
import jax.numpy as jnp
import numpy as np

import stepscope


def predict(x, w):
    return jnp.tanh(x @ w)


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--out", default="demo-out/python", help="folder for bench.json (default %(default)s)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)

    # Prepare and place the workload: outside every clock.
    cpu = jax.devices("cpu")[0]
    rng = np.random.default_rng(4)
    x_host = rng.normal(size=(64, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    jax.block_until_ready((x, w))

    # The independent reference: NumPy on the same float32 inputs.
    reference = np.tanh(x_host @ w_host)

    # A fresh jit: its first call traces and compiles, the 7 warm calls reuse it.
    r = stepscope.jax.bench(jax.jit(predict), x, w, check=reference, atol=2e-5, rtol=2e-5, repeats=7,
                            name="predict", shapes={"input_shape": x.shape, "weight_shape": w.shape,
                                                    "output_shape": reference.shape})

    report = {
        "backend": r.device, "jax": r.versions["jax"], "numpy": r.versions["numpy"], "python": r.versions["python"],
        "input_shape": r.input_shape, "weight_shape": r.weight_shape, "dtype": r.dtype, "boundary": r.boundary,
        "first_call_seconds": r.first_call_seconds, "warm_samples_seconds": r.warm_samples_seconds,
        "warm_median_seconds": r.warm_median_seconds, "max_abs_error": r.max_abs_error,
    }
    assert len(r.warm_samples_seconds) == 7 and all(t >= 0 for t in r.warm_samples_seconds)
    print(json.dumps(report, indent=2))
    print("first call %s, warm median %s (%.0fx): the first call traced and compiled; the warm calls reused it"
          % (stepscope.fmt_seconds(r.first_call_seconds), stepscope.fmt_seconds(r.warm_median_seconds),
             r.first_to_warm_median_ratio))
    print("dispatch only (the clock stopped when the call returned, before the work was done): median %s"
          % stepscope.fmt_seconds(r.dispatch_only_median_seconds))
    print("checked against NumPy: max |got - want| = %.3g (atol %g, rtol %g): %s"
          % (r.max_abs_error, r.atol, r.rtol, "passed" if r.check["passed"] else "FAILED"))
    for w_ in r.warnings:
        print("note:", w_)
    path = r.save(os.path.join(args.out, "bench.json"))
    print("wrote %s (stepscope report %s -o report.html)" % (path, path))


if __name__ == "__main__":
    main()
