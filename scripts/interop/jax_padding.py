"""Lesson 2's batch before and after padding, for `stepscope diff` on two real ledgers.

    JAX_LOG_COMPILES=1 .venv/bin/python scripts/interop/jax_padding.py OUT_DIR [--pad] 2> OUT_DIR/compile.log

`batch_loss` (the mean of b * b) is fed batches of eight lengths, 8 to 36. Without
--pad each new length is a new shape, so JAX traces and compiles it anew: eight
specializations. With --pad each batch is padded with zeros to the next power of two
(8, 16, 32, 64) and a validity mask keeps the padding out of the mean: four shapes,
four specializations, the same values. JAX writes its compile log to standard error.

OUT_DIR/truth.json records what the program did, counted on the Python side (the
function appends the length it was traced for), and the losses, checked against
NumPy.
"""
import json
import os
import sys

os.environ.setdefault("JAX_LOG_COMPILES", "1")
os.environ.setdefault("JAX_PLATFORMS", "cpu")

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

BATCH_LENGTHS = [8, 12, 16, 20, 24, 28, 32, 36]


def bucket(n):
    b = 8
    while b < n:
        b *= 2
    return b


def main(out_dir, pad):
    cpu = jax.devices("cpu")[0]
    traced = []

    def batch_loss(b, mask):
        traced.append(b.shape[0])
        w = mask.astype(b.dtype)[:, None]
        return jnp.sum(b * b * w) / (jnp.sum(w) * b.shape[1])

    compiled = jax.jit(batch_loss)
    rng = np.random.default_rng(5)
    losses = {}
    for n in BATCH_LENGTHS:
        host = rng.normal(size=(n, 4)).astype(np.float32)
        rows = bucket(n) if pad else n
        padded = np.zeros((rows, 4), np.float32)
        padded[:n] = host
        mask = np.arange(rows) < n
        loss = float(compiled(jax.device_put(padded, cpu), jax.device_put(mask, cpu)))
        np.testing.assert_allclose(loss, float(np.mean(host * host)), rtol=1e-5)
        losses[str(n)] = loss
    truth = {"jax": jax.__version__, "pad": pad, "traced_lengths": traced,
             "specializations": len(set(traced)), "losses": losses}
    with open(os.path.join(out_dir, "truth.json"), "w") as f:
        json.dump(truth, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) not in (2, 3) or (len(sys.argv) == 3 and sys.argv[2] != "--pad"):
        sys.exit("usage: jax_padding.py OUT_DIR [--pad]  (JAX's log goes to standard error)")
    main(sys.argv[1], len(sys.argv) == 3)
