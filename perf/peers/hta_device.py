#!/usr/bin/env python3
"""The Holistic Trace Analysis peer of the device view: load one Kineto trace with HTA
and compute the breakdowns `steps --device` answers (temporal, idle time, comm/comp
overlap, kernel launch stats, queue length summary).

    hta_device.py TRACE[.json|.json.gz]      (run with .venv/bin/python)

The trace is linked into a fresh directory as rank 0, as hta_breakdown.py does. Prints
one JSON line: CPU seconds (user + system, this process and its pool's workers) to load and for the
breakdowns, and which breakdowns HTA could not compute on the trace.
"""
import json
import logging
import os
import sys
import tempfile


def cpu():
    """This process's CPU seconds and its finished children's (HTA parses in a pool)."""
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    trace = os.path.abspath(argv[1])
    logging.disable(logging.WARNING)
    from hta.trace_analysis import TraceAnalysis

    failed = []
    with tempfile.TemporaryDirectory(prefix='hta-device-') as d:
        suffix = '.json.gz' if trace.endswith('.gz') else '.json'
        os.symlink(trace, os.path.join(d, 'rank-0' + suffix))
        c0 = cpu()
        ta = TraceAnalysis(trace_dir=d, include_last_profiler_step=True)
        c1 = cpu()
        calls = (('temporal', lambda: ta.get_temporal_breakdown(visualize=False)),
                 ('idle', lambda: ta.get_idle_time_breakdown(visualize=False)),
                 ('overlap', lambda: ta.get_comm_comp_overlap(visualize=False)),
                 ('launches', lambda: ta.get_cuda_kernel_launch_stats(visualize=False)),
                 ('queue', lambda: ta.get_queue_length_summary()))
        for name, f in calls:
            try:
                f()
            except Exception as e:  # HTA's own failure: noted, not fatal
                failed.append('%s (%s)' % (name, type(e).__name__))
        c2 = cpu()
    print(json.dumps({'load_cpu_s': round(c1 - c0, 3), 'breakdowns_cpu_s': round(c2 - c1, 3), 'failed': failed}))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
