#!/usr/bin/env bash
# Recorder benchmark (issue 5): cost per scope (begin + end) of the stepscope recorder,
# one thread and two, median of many runs, with an equivalent pair of LTTng-UST
# tracepoints (perf/trace_lttng_tp.h) measured side by side in the same process:
#   1. with no LTTng session (LTTng's tracepoints are then a disabled branch);
#   2. with an LTTng session recording them, when lttng-tools is installed
#      (scripts/deps.sh bench); a session daemon is started for the run if none runs,
#      and stopped afterwards.
# Also counts heap allocations per recorded event after warm-up (must be 0: the
# benchmark interposes malloc). Results: perf/out/trace_results*.json.
#
#   BENCH_TRACE_RUNS=N    runs per configuration (default 21)
#   BENCH_TRACE_SCOPES=N  scopes per thread per run (default 200000)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
bin=$BUILD/perf/trace_overhead
out=perf/out
mkdir -p "$out"
[ -x "$bin" ] || { echo "run_trace: $bin is missing (make BUILD=$BUILD $bin)"; exit 1; }
runs=${BENCH_TRACE_RUNS:-21}
scopes=${BENCH_TRACE_SCOPES:-200000}
rc=0

echo "-- no LTTng session"
"$bin" --runs "$runs" --scopes "$scopes" --json "$out/trace_results.json" || rc=1

if ! command -v lttng >/dev/null 2>&1 || ! command -v lttng-sessiond >/dev/null 2>&1; then
  echo "note: lttng-tools is not installed: LTTng-UST measured without a session only" \
       "(scripts/deps.sh bench installs it)"
  exit $rc
fi

echo "-- with an LTTng session recording the tracepoints"
started_pid=
if ! lttng list >/dev/null 2>&1; then
  if ! lttng-sessiond --daemonize --no-kernel >/dev/null 2>&1; then
    echo "note: lttng-sessiond cannot run here: LTTng measured without a session only"
    exit $rc
  fi
  for pidfile in /var/run/lttng/lttng-sessiond.pid "$HOME/.lttng/lttng-sessiond.pid"; do
    [ -f "$pidfile" ] && started_pid=$(cat "$pidfile") && break
  done
fi
sess=sts-bench-$$
tmp=$(mktemp -d)
cleanup() {
  lttng destroy "$sess" >/dev/null 2>&1
  rm -rf "$tmp"
  [ -n "$started_pid" ] && kill "$started_pid" 2>/dev/null
}
trap cleanup EXIT
if lttng create "$sess" --output="$tmp" >/dev/null &&
   lttng enable-channel -u -s "$sess" --subbuf-size=4M --num-subbuf=8 stsch >/dev/null &&
   lttng enable-event -u -s "$sess" -c stsch 'sts_bench:*' >/dev/null &&
   lttng start "$sess" >/dev/null; then
  "$bin" --runs "$runs" --scopes "$scopes" --label ", session $sess" \
    --json "$out/trace_results_lttng_session.json" || rc=1
  lttng stop "$sess" 2>&1 | grep -i -E 'discard|lost' | sed 's/^/  lttng: /'
  echo "  LTTng trace size: $(du -sh "$tmp" | cut -f1) (written by its consumer daemon during the runs)"
else
  echo "note: could not set up an LTTng session: LTTng measured without a session only"
fi
exit $rc
