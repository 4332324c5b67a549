#!/usr/bin/env bash
# Analyzer benchmark (issue 2): `stepscope analyze --json` throughput and peak RSS on
# large synthetic Kineto traces (plain and gzip) and on the real fixtures, with the
# peers measured side by side in the same run. See docs/benchmarks.md.
#
#   BENCH_LARGE=0     skip the 1 GB traces (default 1: generate and run them)
#   BENCH_RUNS=N      runs per measurement for stepscope (median; default 3)
#   BENCH_PY_LARGE=0  skip the Python peer on the 1 GB trace (extrapolated instead)
#   BENCH_HTA=0       skip Holistic Trace Analysis (minutes per 100 MB)
#   BENCH_HTA_LARGE=1 also run HTA on the 1 GB trace (default: extrapolated)
# Generated traces are cached in perf/out/ and remade only when perf/gen_trace.c
# changes. Results are also written to perf/out/analyze_results.json.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
cli=$BUILD/stepscope
gen=$BUILD/perf/gen_trace
out=perf/out
mkdir -p "$out"
for f in "$cli" "$gen"; do
  [ -x "$f" ] || { echo "run_analyze: $f is missing (make BUILD=$BUILD all $gen)"; exit 1; }
done

gen_hash=$(sha256sum perf/gen_trace.c | cut -c1-16)
traces=()
make_trace() { # LABEL SIZE
  local label=$1 size=$2 base="$out/kineto_$1"
  if [ "$(cat "$base.stamp" 2>/dev/null)" != "$gen_hash" ] || [ ! -f "$base.json" ] ||
     [ ! -f "$base.json.gz" ] || [ ! -f "$base.facts.json" ]; then
    rm -f "$base.stamp"
    echo "generating $base.json and .json.gz ($size)"
    "$gen" --seed 1 --facts "$base.facts.json" "$size" "$base.json" >/dev/null &&
      "$gen" --seed 1 --gzip "$size" "$base.json.gz" >/dev/null || return 1
    echo "$gen_hash" >"$base.stamp"
  fi
  traces+=(--trace "$label:$base.json:$base.json.gz:$base.facts.json")
}
make_trace 100M 100M || { echo "run_analyze: generating the 100 MB trace failed"; exit 1; }
if [ "${BENCH_LARGE:-1}" = 1 ]; then
  make_trace 1G 1G || { echo "run_analyze: generating the 1 GB trace failed"; exit 1; }
fi

venv=()
if scripts/interop/setup.sh >/dev/null 2>&1 && [ -x .venv/bin/python ]; then
  venv=(--venv-python .venv/bin/python)
else
  echo "note: no interop environment (scripts/interop/setup.sh failed); HTA is skipped"
fi
fix=()
fixtures=${STEPSCOPE_FIXTURES:-../shared/fixtures}
[ -d "$fixtures" ] && fix=(--fixtures "$fixtures")

python3 perf/peers/bench_analyze.py --cli "$cli" --zinflate "$BUILD/perf/zinflate" \
  --runs "${BENCH_RUNS:-3}" "${traces[@]}" \
  "${venv[@]}" "${fix[@]}" --results "$out/analyze_results.json"
