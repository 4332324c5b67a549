#!/usr/bin/env bash
# Trace-reading benchmark (issues 2, 13 and 33): `stepscope analyze` on large synthetic
# Kineto traces, pretty-printed and compact, and dense traces of small events
# (perf/gen_dense.c), plain and gzip, at several -j, and on a wide trace (100,000
# processes, 1,000,000 lanes), with its peers measured side by side
# in the same run: cat, the inflater, the Python pass, trace_processor, HTA; then the
# real fixtures. See docs/benchmarks.md.
#
#   BENCH_SIZES="100M 1G"  trace sizes (default "100M 1G"; add 4G for the full table)
#   BENCH_FORMATS="pretty compact"
#   BENCH_JOBS=1,2         -j values (default 1 and the machine's cores)
#   BENCH_RUNS=N           runs per measurement (median; default 3)
#   BENCH_WIDE=0           skip the wide trace
#   BENCH_DENSE=0          skip the dense traces
#   BENCH_PY_LARGE=0 BENCH_TP_LARGE=0 BENCH_HTA=0 BENCH_HTA_LARGE=1  (see bench_analyze.py)
# Generated traces are cached in perf/out/ and remade only when their generator
# changes. Results also go to perf/out/analyze_results.json.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
cli=$BUILD/stepscope
gen=$BUILD/perf/gen_trace
wide=$BUILD/perf/gen_wide
out=perf/out
mkdir -p "$out"
dense=$BUILD/perf/gen_dense
for f in "$cli" "$gen" "$wide" "$dense" "$BUILD/perf/zinflate" "$BUILD/perf/runstat"; do
  [ -x "$f" ] || { echo "run_analyze: $f is missing (make BUILD=$BUILD all $f)"; exit 1; }
done
export STS_RUNSTAT=$BUILD/perf/runstat # each command's own peak RSS (perf/peers/measure.py)

gen_hash=$(sha256sum perf/gen_trace.c | cut -c1-16)
traces=()
make_trace() { # LABEL SIZE FORMAT
  local label=$1 size=$2 format=$3 base="$out/kineto_$1" flags=()
  [ "$format" = compact ] && flags=(--compact)
  if [ "$(cat "$base.stamp" 2>/dev/null)" != "$gen_hash" ] || [ ! -f "$base.json" ] ||
     [ ! -f "$base.json.gz" ] || [ ! -f "$base.facts.json" ]; then
    rm -f "$base.stamp"
    echo "generating $base.json and .json.gz ($size, $format)"
    "$gen" --seed 1 "${flags[@]}" --facts "$base.facts.json" "$size" "$base.json" >/dev/null &&
      "$gen" --seed 1 "${flags[@]}" --gzip "$size" "$base.json.gz" >/dev/null || return 1
    echo "$gen_hash" >"$base.stamp"
  fi
  traces+=(--trace "$label:$base.json:$base.json.gz:$base.facts.json")
}
for size in ${BENCH_SIZES:-100M 1G}; do
  for format in ${BENCH_FORMATS:-pretty compact}; do
    make_trace "${size}_$format" "$size" "$format" || { echo "run_analyze: generating $size $format failed"; exit 1; }
  done
done

# The dense shape (issue 33): ~100-byte X events, six deep, fourteen names, four threads.
dense_hash=$(sha256sum perf/gen_dense.c | cut -c1-16)
make_dense() { # SIZE
  local base="$out/dense_$1"
  if [ "$(cat "$base.stamp" 2>/dev/null)" != "$dense_hash" ] || [ ! -f "$base.json" ] ||
     [ ! -f "$base.json.gz" ] || [ ! -f "$base.facts.json" ]; then
    rm -f "$base.stamp"
    echo "generating $base.json and .json.gz ($1, dense)"
    "$dense" --facts "$base.facts.json" "$1" "$base.json" >/dev/null &&
      "$dense" --gzip "$1" "$base.json.gz" >/dev/null || return 1
    echo "$dense_hash" >"$base.stamp"
  fi
  traces+=(--trace "${1}_dense:$base.json:$base.json.gz:$base.facts.json")
}
if [ "${BENCH_DENSE:-1}" = 1 ]; then
  for size in ${BENCH_SIZES:-100M 1G}; do
    make_dense "$size" || { echo "run_analyze: generating the $size dense trace failed"; exit 1; }
  done
fi

wides=()
if [ "${BENCH_WIDE:-1}" = 1 ]; then
  w="$out/wide_100k_1m.json"
  wide_hash=$(sha256sum perf/gen_wide.c | cut -c1-16)
  if [ "$(cat "$w.stamp" 2>/dev/null)" != "$wide_hash" ] || [ ! -f "$w" ]; then
    echo "generating $w"
    "$wide" --compact 100000 1000000 4 "$w" >/dev/null || { echo "run_analyze: gen_wide failed"; exit 1; }
    echo "$wide_hash" >"$w.stamp"
  fi
  wides+=(--wide "wide:$w:100000:1000000:4000000")
fi

peers=()
if scripts/interop/setup.sh >/dev/null 2>&1 && [ -x .venv/bin/python ]; then
  peers+=(--venv-python .venv/bin/python)
else
  echo "note: no interop environment (scripts/interop/setup.sh failed); HTA is skipped"
fi
tp=${TRACE_PROCESSOR:-../shared/tools/trace_processor_shell}
if [ -x "$tp" ]; then
  peers+=(--tp "$tp")
else
  echo "note: no $tp; the trace_processor peer is skipped"
fi
fixtures=${STEPSCOPE_FIXTURES:-../shared/fixtures}
[ -d "$fixtures" ] && peers+=(--fixtures "$fixtures")

python3 perf/peers/bench_analyze.py --cli "$cli" --zinflate "$BUILD/perf/zinflate" \
  --jobs "${BENCH_JOBS:-1,$(nproc)}" --runs "${BENCH_RUNS:-3}" "${traces[@]}" "${wides[@]}" "${peers[@]}" \
  --results "$out/analyze_results.json"
