#!/usr/bin/env bash
# Device view benchmark (issue 30), side by side in one run:
#   1. `steps --device --json` against `steps --json` on a Kineto-shaped trace
#      (perf/gen_trace.c: launches with correlation ids, kernels on device streams) of
#      BENCH_DEVICE_SIZE, CPU time (user + system) of each, runs interleaved; judged by
#      the least of BENCH_RUNS of each (what else the machine runs only adds time), the
#      median printed beside it; target: --device at most 1.2x;
#   2. on a Kineto fixture with device lanes, `steps --device --json` against Holistic
#      Trace Analysis loading it and computing its breakdowns (perf/peers/hta_device.py,
#      from .venv/; skipped without it), CPU time of each.
# Results: perf/out/devview_results.txt and the lines printed here. See docs/device.md
# and docs/benchmarks.md.
#
#   BENCH_DEVICE_SIZE=1G   the trace's size (default 1G)
#   BENCH_RUNS=N           runs per measurement (least and median; default 5)
#   BENCH_DEVICE_FIXTURE=PATH  the HTA comparison's trace
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
out=perf/out
mkdir -p "$out"
for f in "$BUILD/stepscope" "$BUILD/perf/gen_trace" "$BUILD/perf/runstat"; do
  [ -x "$f" ] || { echo "run_devview: $f is missing (make BUILD=$BUILD all $f)"; exit 1; }
done
size=${BENCH_DEVICE_SIZE:-1G}
. perf/bench_lib.sh
bytes=$(bench_bytes "$size")
runs=${BENCH_RUNS:-5}
trace=$(bench_kineto_trace run_devview "$bytes") || exit 1

# CPU seconds (user + sys) of one run of "$@"; the output is thrown away.
cpu_of() { bench_cpu run_devview "$out/devview.stat" "$@"; }
median() { sort -g | awk '{v[NR] = $1} END {print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2}'; }
least() { sort -g | head -n 1; }

rc=0
# Interleaved, so that what the machine does meanwhile falls on both alike.
plain=() dev=()
for ((i = 0; i < runs; i++)); do
  plain+=("$(cpu_of "$BUILD/stepscope" steps --json -j 1 "$trace")") || rc=1
  dev+=("$(cpu_of "$BUILD/stepscope" steps --device --json -j 1 "$trace")") || rc=1
done
p=$(printf '%s\n' "${plain[@]}" | least)
d=$(printf '%s\n' "${dev[@]}" | least)
pm=$(printf '%s\n' "${plain[@]}" | median)
dm=$(printf '%s\n' "${dev[@]}" | median)
ratio=$(python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) / float(sys.argv[1])))" "$p" "$d")
mratio=$(python3 -c "import sys; print('%.3f' % (float(sys.argv[2]) / float(sys.argv[1])))" "$pm" "$dm")
line="steps on $((bytes / 1000000)) MB (Kineto shape, -j 1, least of $runs, CPU s): steps $p, steps --device $d: ${ratio}x (target <= 1.2x; medians $pm and $dm: ${mratio}x)"
echo "$line" | tee "$out/devview_results.txt"
python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) <= 1.2 else 1)" "$ratio" || { echo "run_devview: over 1.2x"; rc=1; }

fx=${BENCH_DEVICE_FIXTURE:-${STEPSCOPE_FIXTURES:-/work/shared/fixtures}/traces/kineto/h100_bert_small.json.gz}
if [ ! -x .venv/bin/python ] || ! .venv/bin/python -c 'import hta' 2>/dev/null; then
  echo "HTA: skipped (.venv has no hta; scripts/interop/setup.sh makes it)"
elif [ ! -f "$fx" ]; then
  echo "HTA: skipped ($fx is absent; see docs/fixtures.md)"
else
  ours=()
  for ((i = 0; i < runs; i++)); do ours+=("$(cpu_of "$BUILD/stepscope" steps --device --json -j 1 "$fx")") || rc=1; done
  o=$(printf '%s\n' "${ours[@]}" | median)
  h=$(.venv/bin/python perf/peers/hta_device.py "$fx") || { echo "run_devview: HTA failed"; rc=1; }
  line=$(python3 -c "
import json, sys
h = json.loads(sys.argv[2]); o = float(sys.argv[1]); t = h['load_cpu_s'] + h['breakdowns_cpu_s']
print('%s: stepscope steps --device %.3f CPU s; HTA load %.3f + breakdowns %.3f = %.3f CPU s: HTA %.0fx%s' % (
    sys.argv[3], o, h['load_cpu_s'], h['breakdowns_cpu_s'], t, t / o if o else float('nan'),
    ('; HTA failed: ' + ', '.join(h['failed'])) if h['failed'] else ''))" "$o" "$h" "$(basename "$fx")")
  echo "$line" | tee -a "$out/devview_results.txt"
fi
exit $rc
