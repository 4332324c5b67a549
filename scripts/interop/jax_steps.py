#!/usr/bin/env python3
"""Eight JAX training steps of unequal length, for reading stepscope beside XProf.

    .venv/bin/python scripts/interop/jax_steps.py OUTDIR

Lesson 3's loop (StepTraceAnnotation `learner_step` with step_num 0..7, each holding
`input_wait` then `model_and_wait` on tanh(x @ w), 48x32 @ 32x16), with host waits of
1, 1, 6, 1, 1, 6, 1, 1 ms so the step times spread: the mean and the sample and
population standard deviations of the middle six differ by more than XProf's 0.1 ms
rounding. Writes the profile under OUTDIR/profile and OUTDIR/steps.json naming the
.xplane.pb.
"""
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault('JAX_PLATFORMS', 'cpu')

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402

WAITS_MS = (1, 1, 6, 1, 1, 6, 1, 1)


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[1]).resolve()
    root = out / 'profile'
    root.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(31)
    x = jnp.asarray(rng.normal(size=(48, 32)).astype(np.float32))
    w = jnp.asarray(rng.normal(size=(32, 16)).astype(np.float32))
    compiled = jax.jit(lambda a, b: jnp.tanh(a @ b))
    compiled(x, w).block_until_ready()
    with jax.profiler.trace(str(root), create_perfetto_trace=True):
        for index, wait in enumerate(WAITS_MS):
            with jax.profiler.StepTraceAnnotation('learner_step', step_num=index):
                with jax.profiler.TraceAnnotation('input_wait'):
                    time.sleep(wait / 1000)
                with jax.profiler.TraceAnnotation('model_and_wait'):
                    compiled(x, w).block_until_ready()
    xplanes = sorted(root.rglob('*.xplane.pb'))
    assert xplanes, 'the profiler wrote no .xplane.pb'
    (out / 'steps.json').write_text(json.dumps({'xplane': str(xplanes[-1].relative_to(out)),
                                                'steps': len(WAITS_MS)}) + '\n')
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
