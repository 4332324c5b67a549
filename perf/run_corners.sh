#!/usr/bin/env bash
# Corner shapes (issue 34): every per-item loop of the readers and of finalize stays
# linear. For each shape gen_corners writes (perf/gen_corners.c: zero-length slices
# at one instant, staircases of overlaps, async ids open at once, lanes, processes,
# names, flows, process instants, XSpace planes and lines), `slices --csv` (read and
# finalize) and `analyze --json` (the analysis too) run at N and 4N items, N =
# BENCH_CORNERS_N (default 250000, so 4N is 10^6), and the CPU time of each is
# printed with its ratio. Linear time makes the ratio about 4 and N^2 about 16: a
# ratio above BENCH_CORNERS_MAX (default 8, room for caches and a busy machine) is a
# failure, and the script exits 1 naming the shape.
# Then the recorder under thread churn (perf/churn.c: BENCH_CHURN_N short-lived threads
# one after another, default 8192, and 4 times as many; each records 3 scopes), the CPU
# time of the churn and the stop, judged the same way.
#   STEPSCOPE=PATH   the binary timed (default: $BUILD/stepscope)
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
cli=${STEPSCOPE:-$BUILD/stepscope}
gen=$BUILD/perf/gen_corners
out=perf/out/corners
n=${BENCH_CORNERS_N:-250000}
max=${BENCH_CORNERS_MAX:-8}
churn=$BUILD/perf/churn
nchurn=${BENCH_CHURN_N:-8192}
for f in "$cli" "$gen" "$churn"; do
  [ -x "$f" ] || { echo "run_corners: $f is missing (make BUILD=$BUILD all $f)"; exit 1; }
done
mkdir -p "$out"

# CPU seconds (user + system) of one run; a run that fails stops the benchmark.
cpu() {
  /usr/bin/time -f '%U %S' -o "$out/time" "$@" >/dev/null 2>"$out/last.err" ||
    { echo "run_corners: failed: $*" >&2; cat "$out/last.err" >&2; return 1; }
  awk '{ printf "%.2f", $1 + $2 }' "$out/time"
}

rc=0
printf '%-9s %-9s %10s %10s %8s\n' shape command "N CPU (s)" "4N CPU (s)" ratio
for shape in zero stair async lanes pids names flows instants planes lines; do
  case $shape in planes | lines) ext=xplane.pb ;; *) ext=json ;; esac
  for k in 1 4; do
    f=$out/$shape-$((k * n)).$ext
    [ -s "$f" ] || "$gen" "$shape" $((k * n)) "$f" || { echo "run_corners: gen_corners $shape failed"; exit 1; }
  done
  for cmd in slices analyze; do
    args=(slices --csv)
    [ "$cmd" = analyze ] && args=(analyze --json)
    a=$(cpu "$cli" "${args[@]}" "$out/$shape-$n.$ext") || exit 1
    b=$(cpu "$cli" "${args[@]}" "$out/$shape-$((4 * n)).$ext") || exit 1
    # A run too short to time (under 0.05 s) counts as 0.05 s.
    ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a < 0.05) a = 0.05; if (b < 0.05) b = 0.05; printf "%.1f", b / a }')
    verdict=$(awk -v r="$ratio" -v m="$max" 'BEGIN { print (r > m) ? "NOT LINEAR" : "linear" }')
    printf '%-9s %-9s %10s %10s %7sx %s\n' "$shape" "$cmd" "$a" "$b" "$ratio" "$verdict"
    [ "$verdict" = linear ] || rc=1
  done
done
# The recorder: its own CPU figure (the churn and the stop, not the pool's start).
ca=$("$churn" "$nchurn") || { echo "run_corners: churn $nchurn failed (or dropped scopes): $ca"; exit 1; }
cb=$("$churn" $((4 * nchurn))) || { echo "run_corners: churn $((4 * nchurn)) failed (or dropped scopes): $cb"; exit 1; }
a=$(echo "$ca" | awk '{ printf "%.2f", $2 }')
b=$(echo "$cb" | awk '{ printf "%.2f", $2 }')
ratio=$(awk -v a="$a" -v b="$b" 'BEGIN { if (a < 0.05) a = 0.05; if (b < 0.05) b = 0.05; printf "%.1f", b / a }')
verdict=$(awk -v r="$ratio" -v m="$max" 'BEGIN { print (r > m) ? "NOT LINEAR" : "linear" }')
printf '%-9s %-9s %10s %10s %7sx %s (%d and %d threads)\n' churn recorder "$a" "$b" "$ratio" "$verdict" "$nchurn" $((4 * nchurn))
[ "$verdict" = linear ] || rc=1
echo "ratio: CPU time at 4N over N (4 linear, 16 quadratic; above $max fails)"
exit $rc
