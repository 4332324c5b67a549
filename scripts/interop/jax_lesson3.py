#!/usr/bin/env python3
"""Lesson 3's own JAX capture ("Read an XProf trace"), for the interop tests.

    .venv/bin/python scripts/interop/jax_lesson3.py OUTDIR [WAIT_SECONDS [STEPS]]

Compiles and warms tanh(x @ w) on 48x32 @ 32x16 float32, then records four
`learner_step` steps (StepTraceAnnotation with step_num 0..3), each holding
`input_wait` (a 1 ms host sleep) then `model_and_wait` (the call and its
block_until_ready), under jax.profiler.trace(OUTDIR/profile, create_perfetto_trace=True).
WAIT_SECONDS (default 0.001) and STEPS (default 4) change the sleep and the number of
steps, for the diff tests (tests/interop/test_diff.sh).

Writes the profile directory (plugins/profile/<run>/ with *.xplane.pb,
perfetto_trace.json.gz and HOST.trace.json.gz) under OUTDIR/profile, and
OUTDIR/lesson3.json: the paths (relative to OUTDIR, so the folder can move), and
the durations the lesson itself reads back from the Perfetto JSON (microseconds,
as the lesson prints them), so a test can compare stepscope's reading with it.
"""
import gzip
import json
import os
import sys
import time
from pathlib import Path

os.environ.setdefault('JAX_PLATFORMS', 'cpu')

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402


def main(argv):
    if len(argv) not in (2, 3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[1]).resolve()
    wait = float(argv[2]) if len(argv) > 2 else .001
    nsteps = int(argv[3]) if len(argv) > 3 else 4
    trace_root = out / 'profile'
    trace_root.mkdir(parents=True, exist_ok=True)

    rng = np.random.default_rng(31)
    host = rng.normal(size=(48, 32)).astype(np.float32)
    weights = rng.normal(size=(32, 16)).astype(np.float32)
    x, w = jnp.asarray(host), jnp.asarray(weights)
    compiled = jax.jit(lambda a, b: jnp.tanh(a @ b))
    compiled(x, w).block_until_ready()  # compile and warm before the trace

    with jax.profiler.trace(str(trace_root), create_perfetto_trace=True):
        for index in range(nsteps):
            with jax.profiler.StepTraceAnnotation('learner_step', step_num=index):
                with jax.profiler.TraceAnnotation('input_wait'):
                    time.sleep(wait)  # injected host delay, as in the lesson
                with jax.profiler.TraceAnnotation('model_and_wait'):
                    result = compiled(x, w)
                    result.block_until_ready()
    np.testing.assert_allclose(result, np.tanh(host @ weights), rtol=2e-5, atol=2e-5)

    traces = sorted(trace_root.rglob('perfetto_trace.json.gz'), key=lambda p: p.stat().st_mtime_ns)
    xplanes = sorted(trace_root.rglob('*.xplane.pb'))
    assert traces and xplanes, 'the profiler wrote no perfetto_trace.json.gz / *.xplane.pb'
    events = json.loads(gzip.decompress(traces[-1].read_bytes()))['traceEvents']

    def complete(name):
        return sorted([e for e in events if e.get('ph') == 'X' and e.get('name') == name],
                      key=lambda e: e['ts'])

    steps = complete('learner_step')
    waits = complete('input_wait')
    models = complete('model_and_wait')
    assert len(steps) == len(waits) == len(models) == nsteps, (len(steps), len(waits), len(models))
    for outer, waiting, compute in zip(steps, waits, models):
        for inner in (waiting, compute):
            assert outer['ts'] <= inner['ts'] <= inner['ts'] + inner['dur'] <= outer['ts'] + outer['dur'] + 1
        assert waiting['ts'] + waiting['dur'] <= compute['ts'] + 1
    summary = {
        'jax': jax.__version__,
        'profile_dir': str(trace_root.relative_to(out)),
        'run_dir': str(traces[-1].parent.relative_to(out)),
        'perfetto_trace': str(traces[-1].relative_to(out)),
        'xplane': str(xplanes[-1].relative_to(out)),
        'tensorboard_trace': [str(p.relative_to(out)) for p in sorted(trace_root.rglob('*.trace.json.gz'))],
        'input_wait_us': [e['dur'] for e in waits],
        'model_and_wait_us': [e['dur'] for e in models],
        'step_us': [e['dur'] for e in steps],
        'step_args': [e.get('args', {}) for e in steps],
    }
    (out / 'lesson3.json').write_text(json.dumps(summary, indent=1) + '\n')
    print(json.dumps({k: summary[k] for k in ('input_wait_us', 'model_and_wait_us', 'step_us')}))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
