#!/usr/bin/env bash
# Many hosts (issue 14): a 16-host profile of about 100 MB of XPlane per host
# (perf/gen_hosts.c), read by `stepscope analyze --json` and `steps --json` in one
# process on one core, then by 2 MPI ranks of one core each, and by one process on 2
# threads, side by side in one run. Prints wall times (the median of BENCH_RUNS), the
# rate per core, the scaling (1 rank's time over 2 ranks') and what the reduce moved
# (STEPSCOPE_MPI_STATS); docs/scale.md works from these figures. Then one large Kineto
# JSON file (compact, perf/gen_trace.c), whose chunks the second rank reads for the first.
#
#   BENCH_HOSTS_KERNELS=K  kernels per GPU and step (default 31000: ~100 MB per host)
#   BENCH_HOSTS_STEPS=N    steps per host (default 100)
#   BENCH_RUNS=N           runs per measurement (default 3)
#   BENCH_HOSTS_ONE=SIZE   the one file's size (default 1G; 0: skip it)
# The profile is cached in perf/out/hosts/ and remade when perf/gen_hosts.c changes.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
cli=$BUILD/stepscope
gen=$BUILD/perf/gen_hosts
out=perf/out
runs=${BENCH_RUNS:-3}
kernels=${BENCH_HOSTS_KERNELS:-31000}
steps=${BENCH_HOSTS_STEPS:-100}
for f in "$cli" "$gen"; do
  [ -x "$f" ] || { echo "run_hosts: $f is missing (make BUILD=$BUILD all $gen)"; exit 1; }
done
prof=$out/hosts
stamp="$(sha256sum perf/gen_hosts.c | cut -c1-16) $kernels $steps"
if [ "$(cat "$prof.stamp" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$prof" "$prof.stamp"
  echo "generating $prof: 16 hosts x $steps steps x 2 GPUs x $kernels kernels (XPlane; minutes, once)"
  "$gen" --hosts 16 --steps "$steps" --kernels "$kernels" --names 2000 --format xplane "$prof" >/dev/null ||
    { echo "run_hosts: generating the profile failed"; exit 1; }
  echo "$stamp" >"$prof.stamp"
fi
bytes=$(du -cb "$prof"/plugins/profile/*/*.xplane.pb | tail -1 | cut -f1)
printf 'profile: 16 hosts, %.0f MB of XPlane (%.0f MB per host)\n' "$(echo "$bytes / 1000000" | bc -l)" \
  "$(echo "$bytes / 16000000" | bc -l)"

# "WALL CPU": the run with the median wall time of `runs` runs of the command, its wall
# seconds and its CPU seconds (user + system, children included: the ranks under mpirun).
timed() {
  local t=()
  for _ in $(seq "$runs"); do
    /usr/bin/time -f '%e %U %S' -o "$out/hosts_time" "$@" >/dev/null 2>"$out/hosts_last.err" ||
      { echo "run_hosts: failed: $*" >&2; cat "$out/hosts_last.err" >&2; return 1; }
    t+=("$(awk '{ printf "%s %.2f", $1, $2 + $3 }' "$out/hosts_time")")
  done
  printf '%s\n' "${t[@]}" | sort -g | sed -n "$(((runs + 1) / 2))p"
}
wall() { echo "${1% *}"; }
cpu() { echo "${1#* }"; }

mpi=""
if command -v mpirun >/dev/null && ! "$cli" steps --mpi "$prof" 2>&1 | grep -q 'built without MPI'; then
  mpi="mpirun --oversubscribe"
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
else
  echo "note: no MPI (mpirun missing, or stepscope built without it): the rank figures are skipped"
fi

results="{"
mb=$(echo "$bytes / 1000000" | bc -l)
for cmd in analyze steps; do
  one=$(timed "$cli" $cmd --json "$prof" -j 1) || exit 1
  thr=$(timed "$cli" $cmd --json "$prof" -j 2) || exit 1
  printf '%-8s 1 process, 1 thread:  %6.2f s wall, %6.2f s CPU: %4.0f MB/s per core\n' "$cmd" "$(wall "$one")" \
    "$(cpu "$one")" "$(echo "$mb / $(cpu "$one")" | bc -l)"
  printf '         1 process, 2 threads: %6.2f s wall, %6.2f s CPU: x%.2f the 1-thread wall time\n' "$(wall "$thr")" \
    "$(cpu "$thr")" "$(echo "$(wall "$one") / $(wall "$thr")" | bc -l)"
  results+="\"$cmd\":{\"bytes\":$bytes,\"one_thread\":\"$one\",\"two_threads\":\"$thr\""
  if [ -n "$mpi" ]; then
    r1=$(timed $mpi -n 1 "$cli" $cmd --json --mpi -j 1 "$prof") || exit 1
    r2=$(timed $mpi -n 2 "$cli" $cmd --json --mpi -j 1 "$prof") || exit 1
    same=no
    cmp -s <("$cli" $cmd --json "$prof" -j 1 2>/dev/null) <($mpi -n 2 "$cli" $cmd --json --mpi -j 1 "$prof" 2>/dev/null) &&
      same=yes
    STEPSCOPE_MPI_STATS=1 $mpi -n 2 "$cli" $cmd --json --mpi -j 1 "$prof" 2>"$out/hosts_stats.err" >/dev/null
    stats=$(grep -o 'mpi: .*' "$out/hosts_stats.err")
    printf '         mpirun -n 1:          %6.2f s wall, %6.2f s CPU\n' "$(wall "$r1")" "$(cpu "$r1")"
    printf '         mpirun -n 2:          %6.2f s wall, %6.2f s CPU: scaling x%.2f of 2 (1 rank wall / 2 ranks wall); output identical to one process: %s\n' \
      "$(wall "$r2")" "$(cpu "$r2")" "$(echo "$(wall "$r1") / $(wall "$r2")" | bc -l)" "$same"
    echo "         reduce (2 ranks): $stats"
    results+=",\"one_rank\":\"$r1\",\"two_ranks\":\"$r2\",\"identical\":\"$same\",\"reduce\":\"$stats\""
  fi
  results+="},"
done
one_size=${BENCH_HOSTS_ONE:-1G}
if [ -n "$mpi" ] && [ "$one_size" != 0 ]; then
  onef=$out/one_$one_size.json
  ostamp="$(sha256sum perf/gen_trace.c | cut -c1-16) $one_size"
  if [ "$(cat "$onef.stamp" 2>/dev/null)" != "$ostamp" ]; then
    echo "generating $onef: compact Kineto JSON (once)"
    "$BUILD/perf/gen_trace" --seed 5 --compact "$one_size" "$onef" >/dev/null || { echo "run_hosts: gen_trace failed"; exit 1; }
    echo "$ostamp" >"$onef.stamp"
  fi
  obytes=$(stat -c %s "$onef")
  omb=$(echo "$obytes / 1000000" | bc -l)
  printf 'one file: %.0f MB of compact Kineto JSON, analyze --json\n' "$omb"
  one=$(timed "$cli" analyze --json "$onef" -j 1) || exit 1
  thr=$(timed "$cli" analyze --json "$onef" -j 2) || exit 1
  r1=$(timed $mpi -n 1 "$cli" analyze --json --mpi -j 1 "$onef") || exit 1
  r2=$(timed $mpi -n 2 "$cli" analyze --json --mpi -j 1 "$onef") || exit 1
  same=no
  cmp -s <("$cli" analyze --json "$onef" -j 1 2>/dev/null) <($mpi -n 2 "$cli" analyze --json --mpi -j 1 "$onef" 2>/dev/null) &&
    same=yes
  STEPSCOPE_MPI_STATS=1 $mpi -n 2 "$cli" analyze --json --mpi -j 1 "$onef" 2>"$out/hosts_stats.err" >/dev/null
  stats=$(grep -o 'one file: .*' "$out/hosts_stats.err")
  printf '         1 process, 1 thread:  %6.2f s wall, %6.2f s CPU: %4.0f MB/s per core\n' "$(wall "$one")" \
    "$(cpu "$one")" "$(echo "$omb / $(cpu "$one")" | bc -l)"
  printf '         1 process, 2 threads: %6.2f s wall, %6.2f s CPU: x%.2f the 1-thread wall time\n' "$(wall "$thr")" \
    "$(cpu "$thr")" "$(echo "$(wall "$one") / $(wall "$thr")" | bc -l)"
  printf '         mpirun -n 1:          %6.2f s wall, %6.2f s CPU\n' "$(wall "$r1")" "$(cpu "$r1")"
  printf '         mpirun -n 2:          %6.2f s wall, %6.2f s CPU: scaling x%.2f of 2 (1 rank wall / 2 ranks wall); output identical to one process: %s\n' \
    "$(wall "$r2")" "$(cpu "$r2")" "$(echo "$(wall "$r1") / $(wall "$r2")" | bc -l)" "$same"
  echo "         rank 0 (2 ranks): $stats"
  results+="\"one_file\":{\"bytes\":$obytes,\"one_thread\":\"$one\",\"two_threads\":\"$thr\",\"one_rank\":\"$r1\",\"two_ranks\":\"$r2\",\"identical\":\"$same\",\"chunks\":\"$stats\"},"
fi
echo "${results%,}}" >"$out/hosts_results.json"
echo "(measured side by side in this run; wall times carry the machine's other load, CPU times do not: docs/scale.md)"
