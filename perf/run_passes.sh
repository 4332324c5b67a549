#!/usr/bin/env bash
# The analysis passes' budgets (issue 33 item 5, issue 31 item 5), side by side in one
# run on a Kineto-shaped trace (perf/gen_trace.c) of BENCH_PASSES_SIZE:
#   1. by the command line, CPU time (user + system, perf/runstat) at -j 1, runs
#      interleaved, the least of BENCH_RUNS each:
#        steps --critical-path --what-if top=20  against steps      budget 2x
#        steps --memory                          against steps      budget 1.2x
#        analyze --memory                        against analyze    budget 1.2x
#        analyze --device                        against analyze    budget 1.2x
#      (steps --device against steps is perf/run_devview.sh);
#      and on a host set of 32 Kineto ranks with an all-reduce per GPU and step
#      (perf/gen_hosts.c, about 15 MB of .json.gz):
#        steps --collectives                     against steps      budget 1.2x
#   2. by pass, over one read (perf/pass_cost.c): the host syncs, which every `steps`
#      runs and the command line cannot leave out, as the read plus the steps with them
#      against without them, budget 1.2x; and each pass's CPU seconds beside the read's.
# Prints each ratio and fails when one is over its budget. Results:
# perf/out/passes_results.txt. See docs/benchmarks.md.
#
#   BENCH_PASSES_SIZE=100M   the trace's size (default 100M)
#   BENCH_RUNS=N             runs per command (the least is kept; default 5)
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
out=perf/out
mkdir -p "$out"
for f in "$BUILD/stepscope" "$BUILD/perf/gen_trace" "$BUILD/perf/gen_hosts" "$BUILD/perf/runstat" "$BUILD/perf/pass_cost"; do
  [ -x "$f" ] || { echo "run_passes: $f is missing (make BUILD=$BUILD all $f)"; exit 1; }
done
size=${BENCH_PASSES_SIZE:-100M}
. perf/bench_lib.sh
bytes=$(bench_bytes "$size")
runs=${BENCH_RUNS:-5}
# The same file as perf/run_devview.sh makes at this size (perf/bench_lib.sh).
trace=$(bench_kineto_trace run_passes "$bytes") || exit 1

cpu_of() { bench_cpu run_passes "$out/passes.stat" "$@"; }
# The host set for the collectives, remade when its generator changes.
ranks="$out/passes_hosts"
rstamp="$(sha256sum perf/gen_hosts.c | cut -c1-16) 32 40 400"
if [ "$(cat "$ranks.stamp" 2>/dev/null)" != "$rstamp" ]; then
  rm -rf "$ranks" "$ranks.stamp"
  "$BUILD/perf/gen_hosts" --hosts 32 --steps 40 --kernels 400 --format kineto "$ranks" >/dev/null ||
    { echo "run_passes: gen_hosts failed"; exit 1; }
  echo "$rstamp" >"$ranks.stamp"
fi

rc=0
res="$out/passes_results.txt"
: >"$res"
mb=$((bytes / 1000000))
# name|command (after the binary)
cmds=(
  "steps|steps --json -j 1 $trace"
  "steps_cp|steps --json --critical-path --what-if top=20 -j 1 $trace"
  "steps_memory|steps --json --memory -j 1 $trace"
  "analyze|analyze --json -j 1 $trace"
  "analyze_memory|analyze --json --memory -j 1 $trace"
  "analyze_device|analyze --json --device -j 1 $trace"
  "hosts_steps|steps --json -j 1 $ranks/kineto/*.json.gz"
  "hosts_colls|steps --json --collectives -j 1 $ranks/kineto/*.json.gz"
)
declare -A best
for ((i = 0; i < runs; i++)); do
  for c in "${cmds[@]}"; do
    name=${c%%|*}
    # shellcheck disable=SC2086 # the command's words
    t=$(cpu_of "$BUILD/stepscope" ${c#*|}) || { rc=1; continue; }
    if [ -z "${best[$name]:-}" ] || python3 -c "import sys; sys.exit(0 if float(sys.argv[1]) < float(sys.argv[2]) else 1)" "$t" "${best[$name]}"; then
      best[$name]=$t
    fi
  done
done
# name, against, budget
check() {
  local a=${best[$1]:-} b=${best[$2]:-}
  [ -n "$a" ] && [ -n "$b" ] || { echo "run_passes: no figure for $1 or $2"; rc=1; return; }
  local line
  line=$(python3 -c "
import sys
a, b, budget = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3])
r = a / b
print('%-14s %.3f s against %-8s %.3f s: %.2fx (budget <= %gx)%s' % (sys.argv[4], a, sys.argv[5], b, r, budget, '' if r <= budget else ': OVER'))
" "$a" "$b" "$3" "$1" "$2")
  echo "$line" | tee -a "$res"
  case $line in *OVER) rc=1 ;; esac
}
echo "CPU s on $mb MB (Kineto shape, -j 1, least of $runs, interleaved):" | tee -a "$res"
check steps_cp steps 2
check steps_memory steps 1.2
check analyze_memory analyze 1.2
check analyze_device analyze 1.2
echo "CPU s on 32 generated Kineto ranks (perf/gen_hosts.c, -j 1, least of $runs):" | tee -a "$res"
check hosts_colls hosts_steps 1.2

# By pass, over one read.
if ! p=$("$BUILD/perf/pass_cost" "$trace" "$runs"); then
  echo "run_passes: pass_cost failed"
  exit 1
fi
line=$(python3 -c "
import sys
v = dict((l.split()[0], float(l.split()[1])) for l in sys.argv[1].splitlines())
base = v['read'] + v['steps']
r = (base + v['host_syncs']) / base
print('by pass, CPU s (least of %s): %s' % (sys.argv[2], ', '.join('%s %.4f' % kv for kv in v.items())))
print('host syncs: read + steps + host syncs %.4f against read + steps %.4f: %.2fx (budget <= 1.2x)%s' % (
    base + v['host_syncs'], base, r, '' if r <= 1.2 else ': OVER'))
" "$p" "$runs")
echo "$line" | tee -a "$res"
case $line in *OVER*) rc=1 ;; esac
exit $rc
