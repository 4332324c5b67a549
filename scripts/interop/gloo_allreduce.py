"""Two CPU processes (gloo) all-reducing under torch.profiler, for
tests/interop/test_collectives_gloo.sh: writes OUT/rank{0,1}.pt.trace.json and
OUT/truth.json. Per step both ranks leave a barrier together, rank 1 sleeps SLEEP_S,
then both call all_reduce; each rank notes time.time_ns() just before its call, so the
arrivals' difference is measured here, by the ranks themselves, not taken from the
traces. Usage: python gloo_allreduce.py OUT [PORT]"""
import json
import os
import sys
import time

import torch
import torch.distributed as dist
import torch.multiprocessing as mp
from torch.profiler import ProfilerActivity, profile, record_function

STEPS = 8
SLEEP_S = 0.010


def main(rank, world, out, port):
    os.environ["MASTER_ADDR"] = "127.0.0.1"
    os.environ["MASTER_PORT"] = str(port)
    dist.init_process_group("gloo", rank=rank, world_size=world)
    x = torch.randn(64, 64)
    before = []
    with profile(activities=[ProfilerActivity.CPU], record_shapes=True) as p:
        for step in range(STEPS):
            with record_function("ProfilerStep#%d" % step):
                y = (x @ x).sum()
                dist.barrier()
                if rank == 1:
                    time.sleep(SLEEP_S)
                g = torch.full((256, 256), float(y))
                before.append(time.time_ns())
                dist.all_reduce(g)
            p.step()
    p.export_chrome_trace("%s/rank%d.pt.trace.json" % (out, rank))
    with open("%s/before%d.json" % (out, rank), "w") as f:
        json.dump(before, f)
    dist.destroy_process_group()


if __name__ == "__main__":
    out = sys.argv[1]
    port = int(sys.argv[2]) if len(sys.argv) > 2 else 29533
    os.makedirs(out, exist_ok=True)
    mp.spawn(main, args=(2, out, port), nprocs=2)
    b = [json.load(open("%s/before%d.json" % (out, r))) for r in range(2)]
    json.dump({"steps": STEPS, "sleep_ns": int(SLEEP_S * 1e9), "arrival_diff_ns": [y - x for x, y in zip(*b)]},
              open("%s/truth.json" % out, "w"))
