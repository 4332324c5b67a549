#!/usr/bin/env bash
# Cut benchmark (issue 33): `stepscope cut` of one step out of a large trace against
# `stepscope analyze` of the whole trace, side by side in one run, on a Kineto-shaped
# trace (perf/gen_trace.c, compact) and a dense one (perf/gen_dense.c) as large as the
# disk allows, up to BENCH_CUT_SIZE. The cut is checked before any time is printed:
# analyze of the cut must equal analyze --window of the whole on the same time. See
# docs/cut.md and docs/benchmarks.md.
#
#   BENCH_CUT_SIZE=4G        the size to aim for (default 4G; less where the disk is short)
#   BENCH_CUT_SHAPES="kineto dense"
#   BENCH_RUNS=N             runs per measurement (median; default 3)
# Generated traces are cached in perf/out/ and remade only when their generator changes.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
out=perf/out
mkdir -p "$out"
for f in "$BUILD/stepscope" "$BUILD/perf/gen_trace" "$BUILD/perf/gen_dense" "$BUILD/perf/runstat"; do
  [ -x "$f" ] || { echo "run_cut: $f is missing (make BUILD=$BUILD all $f)"; exit 1; }
done
export STS_RUNSTAT=$BUILD/perf/runstat

# As large as the disk allows: the trace, plus room for the cut and the other files.
want=${BENCH_CUT_SIZE:-4G}
want_bytes=$(python3 -c "import sys; s=sys.argv[1]; m={'K':1e3,'M':1e6,'G':1e9}.get(s[-1:],1); print(int(float(s.rstrip('KMG'))*m))" "$want")
free=$(df -B1 --output=avail "$out" | tail -1)
if [ "$want_bytes" -gt $((free / 3)) ]; then
  want_bytes=$((free / 3 / 1000000 * 1000000))
  echo "note: $want does not fit beside the rest on this disk ($((free / 1000000000)) GB free): using $((want_bytes / 1000000)) MB"
fi
size="${want_bytes}"

specs=()
for shape in ${BENCH_CUT_SHAPES:-kineto dense}; do
  base="$out/cut_${shape}_$((size / 1000000))M"
  case $shape in
    kineto) gen=(perf/gen_trace.c "$BUILD/perf/gen_trace" --seed 3 --compact) ;;
    dense) gen=(perf/gen_dense.c "$BUILD/perf/gen_dense" --seed 3) ;;
    *) echo "run_cut: unknown shape $shape"; exit 1 ;;
  esac
  hash=$(sha256sum "${gen[0]}" | cut -c1-16)
  if [ "$(cat "$base.stamp" 2>/dev/null)" != "$hash" ] || [ ! -f "$base.json" ]; then
    rm -f "$base.stamp" "$base.json"
    echo "generating $base.json ($((size / 1000000)) MB, $shape)"
    "${gen[@]:1}" --facts "$base.facts.json" "$size" "$base.json" >/dev/null ||
      { echo "run_cut: generating $base.json failed"; rm -f "$base.json"; exit 1; }
    echo "$hash" >"$base.stamp"
  fi
  specs+=(--trace "$shape:$base.json")
done
python3 perf/peers/bench_cut.py --cli "$BUILD/stepscope" --runs "${BENCH_RUNS:-3}" --tmp "$out" "${specs[@]}" \
  --results "$out/cut_results.json"
