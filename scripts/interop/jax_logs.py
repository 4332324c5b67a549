"""Real JAX compile logs for `stepscope ledger` (tests/interop/test_ledger_jax.sh).

Runs lesson 2's code (score(x, gain) = sum((x*gain)**2) with new data, a new dynamic
gain and new lengths; a static branch; a device-resident update loop; a masked padded
batch) and a function fed eight different batch lengths, with JAX_LOG_COMPILES=1 and
jax_explain_cache_misses on. JAX writes its log to standard error; redirect it:

    JAX_LOG_COMPILES=1 .venv/bin/python scripts/interop/jax_logs.py OUT_DIR 2> OUT_DIR/compile.log

OUT_DIR/truth.json records what the program did, counted on the Python side (each
function appends to a list while JAX traces it), for the test to compare with the
ledger built from the log.
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


def main(out_dir):
    cpu = jax.devices("cpu")[0]
    traces = {"score": [], "branch_score": [], "batch_loss": []}

    def score(x, gain):
        traces["score"].append(list(x.shape))
        return jnp.sum((x * gain) ** 2)

    compiled_score = jax.jit(score)
    x8 = jax.device_put(np.arange(8, dtype=np.float32), cpu)
    x12 = jax.device_put(np.arange(12, dtype=np.float32), cpu)
    x16 = jax.device_put(np.arange(16, dtype=np.float32), cpu)
    results = {}
    for label, x, gain in [("initial", x8, 1.0), ("changed data", x8 + 1.0, 1.0),
                           ("changed dynamic gain", x8, 2.0), ("new shape", x12, 1.0),
                           ("length sixteen", x16, 1.0)]:
        out = compiled_score(x, jax.device_put(np.float32(gain), cpu))
        results[label] = float(out)

    def branch_score(x, square):
        traces["branch_score"].append(bool(square))
        return jnp.sum(x ** 2) if square else jnp.sum(x)

    static_score = jax.jit(branch_score, static_argnames=("square",))
    results["square"] = float(static_score(x8, square=True))
    results["square again"] = float(static_score(x8, square=True))
    results["plain sum"] = float(static_score(x8, square=False))

    update = jax.jit(lambda value: 0.9 * value + 1.0)
    value = jax.device_put(np.float32(0.0), cpu)
    for _ in range(6):
        value = update(value)
    results["geometric"] = float(value)

    masked_score = jax.jit(lambda values, mask: jnp.sum(jnp.where(mask, (values + 1.0) ** 2, 0.0)))
    padded = jax.device_put(np.pad(np.arange(5, dtype=np.float32), (0, 3)), cpu)
    mask = jax.device_put(np.arange(8) < 5, cpu)
    results["masked"] = float(masked_score(padded, mask))

    def batch_loss(b):
        traces["batch_loss"].append(b.shape[0])
        return jnp.mean(b * b)

    compiled_loss = jax.jit(batch_loss)
    for n in BATCH_LENGTHS:
        batch = jax.device_put(np.ones((n, 4), np.float32), cpu)
        results["batch %d" % n] = float(compiled_loss(batch))

    truth = {
        "jax": jax.__version__,
        "traces": {name: len(v) for name, v in traces.items()},
        "branch_values": traces["branch_score"],
        "score_shapes": traces["score"],
        "batch_lengths": BATCH_LENGTHS,
        "results": results,
    }
    with open(os.path.join(out_dir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=2)
    assert results["initial"] == 140.0 and results["changed dynamic gain"] == 560.0
    assert results["new shape"] == 506.0 and results["length sixteen"] == 1240.0
    assert abs(results["geometric"] - 10 * (1 - 0.9 ** 6)) < 2e-5 * 10
    assert results["masked"] == 55.0


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: jax_logs.py OUT_DIR  (JAX's log goes to standard error)")
    main(sys.argv[1])
