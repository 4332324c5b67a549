#!/usr/bin/env bash
# Python package benchmark (issue 15): loading a trace from Python (stepscope.open and
# the NumPy columns) against the CLI on the same file, and against Holistic Trace
# Analysis, side by side in one run (perf/peers/bench_python.py).
#   BENCH_RUNS=N   runs per measurement (median; default 3)
#   BENCH_HTA=0    skip Holistic Trace Analysis
# Uses the 100 MB synthetic Kineto trace perf/run_analyze.sh makes (made here when
# missing) and the Kineto fixtures. Results also go to perf/out/python_results.json.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
cli=$BUILD/stepscope
gen=$BUILD/perf/gen_trace
export STS_RUNSTAT=$BUILD/perf/runstat # each command's own peak RSS (perf/peers/measure.py)
out=perf/out
mkdir -p "$out"
scripts/python_site.sh
rc=$?
if [ "$rc" = 3 ]; then
  echo "run_python: skipped: the package cannot be built here (see above)"
  exit 0
elif [ "$rc" != 0 ]; then
  echo "run_python: building the package failed"
  exit 1
fi
traces=()
big=$out/kineto_100M.json
if [ ! -f "$big" ] || [ ! -f "$big.gz" ]; then
  if [ -x "$gen" ]; then
    echo "generating $big and .json.gz (100M)"
    "$gen" --seed 1 100M "$big" >/dev/null && "$gen" --seed 1 --gzip 100M "$big.gz" >/dev/null ||
      rm -f "$big" "$big.gz"
  fi
fi
[ -f "$big" ] && traces+=(--trace "synthetic Kineto 100 MB:$big")
[ -f "$big.gz" ] && traces+=(--trace "synthetic Kineto 100 MB, gzip:$big.gz")
fixtures=${STEPSCOPE_FIXTURES:-../shared/fixtures}
for f in "$fixtures"/traces/kineto/ns_resolution_rank0.json.gz "$fixtures"/traces/jax/conv_mi300_8gpu.xplane.pb; do
  [ -f "$f" ] && traces+=(--trace "$(basename "$f"):$f")
done
hta=()
[ "${BENCH_HTA:-1}" = 1 ] && hta=(--hta --venv-python .venv/bin/python)
python3 perf/peers/bench_python.py --cli "$cli" --python .venv/bin/python \
  --pythonpath "$PWD/build/python/site" --runs "${BENCH_RUNS:-3}" "${hta[@]}" "${traces[@]}" \
  --results "$out/python_results.json"
