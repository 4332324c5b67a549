#!/usr/bin/env bash
# Overlaps (issue 10): what Perfetto's slice table (overlaps spilled to overflow tracks)
# and self time by containment cost `stepscope analyze`. Two traces of about
# BENCH_OVERLAP_SIZE (default 100M): gen_trace's Kineto trace (no overlaps) and
# gen_overlap's with 5% of slices overrunning their parent. Each is read by `analyze
# --json -q -j 1`, median wall and CPU of BENCH_RUNS runs; the overlaps analyze counts
# must equal what the generator wrote before any time is printed.
#
#   STEPSCOPE_BASE=PATH   a stepscope binary from before (e.g. built from the commit
#                         before the slice table landed): timed side by side, and the
#                         ratio printed. Without it, only this build is timed.
#   STEPSCOPE=PATH        the binary timed as "now" (default: $BUILD/stepscope)
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
cli=${STEPSCOPE:-$BUILD/stepscope}
out=perf/out
runs=${BENCH_RUNS:-3}
size=${BENCH_OVERLAP_SIZE:-100M}
base=${STEPSCOPE_BASE:-}
for f in "$cli" "$BUILD/perf/gen_overlap" "$BUILD/perf/gen_trace"; do
  [ -x "$f" ] || { echo "run_overlap: $f is missing (make BUILD=$BUILD all $f)"; exit 1; }
done
mkdir -p "$out"
plain=$out/overlap_none_$size.json
over=$out/overlap_5pct_$size.json
stamp="$(cat perf/gen_overlap.c perf/gen_trace.c | sha256sum | cut -c1-16) $size"
if [ "$(cat "$out/overlap.stamp" 2>/dev/null)" != "$stamp" ]; then
  "$BUILD/perf/gen_trace" --compact "$size" "$plain" >/dev/null || { echo "run_overlap: gen_trace failed"; exit 1; }
  "$BUILD/perf/gen_overlap" 5 "$size" "$over" >"$over.facts" || { echo "run_overlap: gen_overlap failed"; exit 1; }
  echo "$stamp" >"$out/overlap.stamp"
fi
want=$(awk '{ print $4 }' "$over.facts")
# One thread, no progress line, where the binary has the options (older ones read on
# one thread and print no progress off a terminal anyway).
opts() { if "$1" analyze --help 2>&1 | grep -q -- '--jobs'; then echo "-q -j 1"; fi; }
got=$("$cli" analyze --json $(opts "$cli") "$over" | python3 -c 'import json,sys; print(json.load(sys.stdin)["overlaps"])')
if [ "$got" != "$want" ]; then
  echo "WRONG ANSWER: analyze counts $got overlaps, the generator wrote $want"
  exit 1
fi
echo "5% trace: $(cat "$over.facts") (analyze agrees)"

# "WALL CPU" of the run with the median wall time.
timed() {
  local t=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S' -o "$out/overlap_time" "$@" >/dev/null 2>"$out/overlap_last.err" ||
      { echo "run_overlap: failed: $*" >&2; cat "$out/overlap_last.err" >&2; return 1; }
    t+=("$(awk '{ printf "%s %.2f", $1, $2 + $3 }' "$out/overlap_time")")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p"
}

printf '%-28s %12s %12s %14s %14s %10s\n' trace "wall (s)" "CPU (s)" "base wall (s)" "base CPU (s)" "CPU ratio"
for f in "$plain" "$over"; do
  now=$(timed "$cli" analyze --json $(opts "$cli") "$f") || exit 1
  if [ -n "$base" ]; then
    then_=$(timed "$base" analyze --json $(opts "$base") "$f") || exit 1
    ratio=$(awk -v a="${now#* }" -v b="${then_#* }" 'BEGIN { printf "%.2fx", a / b }')
  else
    then_="- -"
    ratio="-"
  fi
  printf '%-28s %12s %12s %14s %14s %10s\n' "$(basename "$f")" "${now% *}" "${now#* }" "${then_% *}" "${then_#* }" \
    "$ratio"
done
echo "CPU ratio: this build's CPU time over the base's (below 1: faster now)"
