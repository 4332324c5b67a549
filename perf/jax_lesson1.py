"""Lesson 1's workload on JAX (XLA:CPU), measured like `device_bench lesson`.

Run by perf/run_device.sh with the interop venv's python (.venv/bin/python, made by
scripts/interop/setup.sh). One process per variant, so the first call traces and
compiles for real. Prints one JSON line.

    python perf/jax_lesson1.py --rows 64 [--repeats 7]
"""
import argparse
import json
import statistics
import time

import jax
import jax.numpy as jnp
import numpy as np


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--rows", type=int, default=64)
    ap.add_argument("--repeats", type=int, default=7)
    args = ap.parse_args()

    cpu = jax.devices("cpu")[0]
    rng = np.random.default_rng(4)
    x_host = rng.normal(size=(args.rows, 32)).astype(np.float32)
    w_host = rng.normal(size=(32, 16)).astype(np.float32)
    x = jax.device_put(x_host, cpu)
    w = jax.device_put(w_host, cpu)
    jax.block_until_ready((x, w))

    predict = jax.jit(lambda a, b: jnp.tanh(a @ b))
    start = time.perf_counter()
    predict(x, w).block_until_ready()
    first = time.perf_counter() - start

    samples, dispatch, wait = [], [], []
    result = None
    for _ in range(args.repeats):
        a = time.perf_counter()
        result = predict(x, w)
        b = time.perf_counter()
        result.block_until_ready()
        c = time.perf_counter()
        samples.append(c - a)
        dispatch.append(b - a)
        wait.append(c - b)

    reference = np.tanh(x_host.astype(np.float64) @ w_host.astype(np.float64))
    err = float(np.max(np.abs(np.asarray(result) - reference)))
    np.testing.assert_allclose(np.asarray(result), reference, atol=2e-5, rtol=2e-5)
    print(json.dumps({
        "tool": "jax", "jax": jax.__version__, "backend": str(cpu), "rows": args.rows,
        "first_call_seconds": first,
        "warm_samples_seconds": samples,
        "warm_median_seconds": statistics.median(samples),
        "dispatch_median_seconds": statistics.median(dispatch),
        "wait_median_seconds": statistics.median(wait),
        "max_abs_error": err,
    }))


if __name__ == "__main__":
    main()
