#!/usr/bin/python3
"""A small PyTorch training loop traced with the profiler, for the interop tests.

    /usr/bin/python3 scripts/interop/torch_train.py OUT.json [STEPS]

Each step is a `ProfilerStep#N` region (named as torch.profiler's own step markers)
holding `data`, `forward`, `backward`, `optimizer` and `log` regions around real
aten ops (a 64-128-10 MLP, SGD, cross-entropy). Debian's python3-torch 1.13 writes
the legacy Chrome format (one lane: its legacy profiler records only the thread that
started it, which is why there is no worker thread here).
"""
import sys
import time

import torch
from torch.profiler import ProfilerActivity, profile, record_function


def main(argv):
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    steps = int(argv[2]) if len(argv) == 3 else 6
    torch.manual_seed(7)
    net = torch.nn.Sequential(torch.nn.Linear(64, 128), torch.nn.ReLU(), torch.nn.Linear(128, 10))
    opt = torch.optim.SGD(net.parameters(), lr=0.05)
    inputs = torch.randn(512, 64)
    labels = torch.randint(0, 10, (512,))

    losses = []
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as prof:
        for i in range(steps):
            with record_function(f'ProfilerStep#{i}'):
                with record_function('data'):
                    time.sleep(0.0003)  # a stand-in for fetching the batch
                    lo = (i * 64) % 512
                    xb, yb = inputs[lo:lo + 64], labels[lo:lo + 64]
                with record_function('forward'):
                    loss = torch.nn.functional.cross_entropy(net(xb), yb)
                with record_function('backward'):
                    opt.zero_grad()
                    loss.backward()
                with record_function('optimizer'):
                    opt.step()
                with record_function('log'):
                    losses.append(float(loss))
    assert all(v == v for v in losses), 'loss is NaN'
    prof.export_chrome_trace(argv[1])
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
