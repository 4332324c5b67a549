#!/usr/bin/env python3
"""The Holistic Trace Analysis peer: load one Kineto-format trace with HTA and compute
its temporal breakdown (GPU idle / compute / non-compute time).

    hta_breakdown.py TRACE[.json|.json.gz]      (run with .venv/bin/python)

HTA reads a directory of per-rank trace files and takes each file's rank from its
"distributedInfo"; the trace is linked into a fresh temporary directory as rank 0 so
that HTA sees exactly one file. Prints one JSON line: seconds to load (parse + build
HTA's data frames), seconds for the breakdown, the breakdown itself, peak RSS.
"""
import json
import logging
import os
import resource
import sys
import tempfile
import time


def main(argv):
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    trace = os.path.abspath(argv[1])
    logging.disable(logging.WARNING)  # HTA logs per-file warnings we do not need
    from hta.trace_analysis import TraceAnalysis

    with tempfile.TemporaryDirectory(prefix='hta-peer-') as d:
        suffix = '.json.gz' if trace.endswith('.gz') else '.json'
        os.symlink(trace, os.path.join(d, 'rank-0' + suffix))
        t0 = time.perf_counter()
        analysis = TraceAnalysis(trace_dir=d)
        t1 = time.perf_counter()
        df = analysis.get_temporal_breakdown(visualize=False)
        t2 = time.perf_counter()
    row = df.iloc[0].to_dict()
    print(json.dumps({
        'load_s': round(t1 - t0, 3), 'breakdown_s': round(t2 - t1, 3),
        'breakdown': {k: (float(v) if hasattr(v, '__float__') else str(v)) for k, v in row.items()},
        'peak_rss_kb': resource.getrusage(resource.RUSAGE_SELF).ru_maxrss,
    }))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv))
