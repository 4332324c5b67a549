#!/usr/bin/python3
"""Lesson 3's capture redone with PyTorch's profiler, for the interop tests.

    /usr/bin/python3 scripts/interop/torch_lesson.py OUT.json [WAIT_SECONDS [STEPS]]

Runs with Debian's python3-torch (1.13, whose profiler writes the legacy Chrome
format: a bare JSON array, pid "CPU functions", whole-microsecond times). Warms
tanh(x @ w) on 48x32 @ 32x16, then records four `learner_step` regions, each holding
`input_wait` (a 1 ms sleep) then `model_and_wait` (the call; CPU tensors are ready
when it returns). WAIT_SECONDS (default 0.001) and STEPS (default 4) change the sleep
and the number of steps, for the diff tests (tests/interop/test_diff.sh).
"""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function


def main(argv):
    if len(argv) not in (2, 3, 4):
        print(__doc__, file=sys.stderr)
        return 2
    wait = float(argv[2]) if len(argv) > 2 else 0.001
    nsteps = int(argv[3]) if len(argv) > 3 else 4
    torch.manual_seed(31)
    x = torch.randn(48, 32)
    w = torch.randn(32, 16)

    def model(a, b):
        return torch.tanh(a @ b)

    expected = model(x, w)  # warm before the trace
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for _ in range(nsteps):
            with record_function('learner_step'):
                with record_function('input_wait'):
                    time.sleep(wait)
                with record_function('model_and_wait'):
                    y = model(x, w)
    assert torch.allclose(y, expected, rtol=2e-5, atol=2e-5)
    prof.export_chrome_trace(argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
