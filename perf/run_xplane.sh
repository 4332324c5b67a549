#!/usr/bin/env bash
# XPlane benchmark (issue 13): reading an XSpace .xplane.pb with stepscope against
# XProf's own converter (xspace_to_tool_data for the trace viewer, from the interop
# environment), side by side in one run. The files are written by the project's own
# writer (perf/gen_xplane.c, stepscope/write.h) from gen_trace's compact Kineto-like
# trace: about 22, 110 and 1000 MB of planes. XProf needs about 25x the file in memory,
# so it runs only where that fits and is extrapolated per event beyond (and says so).
#
#   BENCH_XPLANE_LARGE=0   skip the 1 GB file (its JSON source is 4.5 GB)
#   BENCH_RUNS=N           stepscope runs per file (median; default 3)
#   BENCH_BEFORE=PATH      another stepscope build measured beside this one (a change's effect)
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
out=perf/out
mkdir -p "$out"
for f in "$BUILD/stepscope" "$BUILD/perf/gen_trace" "$BUILD/perf/gen_xplane" "$BUILD/perf/runstat"; do
  [ -x "$f" ] || { echo "run_xplane: $f is missing (make BUILD=$BUILD all $f)"; exit 1; }
done
export STS_RUNSTAT=$BUILD/perf/runstat # each command's own peak RSS (perf/peers/measure.py)
hash=$(cat perf/gen_trace.c perf/gen_xplane.c lib/write/xplane_write.c | sha256sum | cut -c1-16)
files=()
make_xplane() { # LABEL JSON_SIZE
  local x="$out/xplane_$1.xplane.pb" j="$out/xplane_$1.src.json"
  if [ "$(cat "$x.stamp" 2>/dev/null)" != "$hash" ] || [ ! -f "$x" ]; then
    echo "generating $x (from $2 of compact JSON)"
    "$BUILD/perf/gen_trace" --seed 2 --compact "$2" "$j" >/dev/null &&
      "$BUILD/perf/gen_xplane" "$j" "$x" >/dev/null || { rm -f "$j"; return 1; }
    rm -f "$j"
    echo "$hash" >"$x.stamp"
  fi
  files+=("$x")
}
make_xplane small 100M || exit 1
make_xplane medium 500M || exit 1
[ "${BENCH_XPLANE_LARGE:-1}" = 1 ] && { make_xplane large 4500M || exit 1; }
venv=()
if scripts/interop/setup.sh >/dev/null 2>&1 && [ -x .venv/bin/python ] &&
   .venv/bin/python -c 'import xprof' 2>/dev/null; then
  venv=(--venv-python .venv/bin/python)
else
  echo "note: no interop environment with xprof (scripts/interop/setup.sh); XProf is skipped"
fi
before=()
[ -n "${BENCH_BEFORE:-}" ] && before=(--before "$BENCH_BEFORE")
python3 perf/peers/bench_xplane.py --cli "$BUILD/stepscope" --runs "${BENCH_RUNS:-3}" "${before[@]}" "${venv[@]}" \
  "${files[@]}"
