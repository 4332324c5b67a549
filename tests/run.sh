#!/usr/bin/env bash
# Runs every test tier against one build flavour ($BUILD, default build):
#   unit binaries (build/tests/test_*), fuzz corpus replays, CLI tests (tests/cli/test_*.sh),
#   and the interop tests with real producers (tests/interop/run.sh).
# Each tier prints "ok NAME", "FAIL NAME" or "SKIP NAME" lines; this script totals them.
#
# The items run side by side, STS_TEST_JOBS at a time (default: twice the machine's cores,
# since most items spend much of their time waiting for the programs they start), each
# into its own log, printed whole when it ends, with its time. Every item makes its own
# temporary files, so none depends on another or on the order.
# STS_TEST_NOOCL=DIR adds the OpenCL-free flavour built in DIR (make noocl-unit): the
# items STS_TEST_NOOCL_ITEMS names (CLI tests and unit binaries), each as "noocl/NAME",
# with DIR's binaries and STEPSCOPE_OPENCL=0 (tests/cli/lib.sh), beside the others.
# STS_TEST_ITEMS="NAME ...", when set, runs only the items it names (`make check-noocl`).
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export STEPSCOPE="$PWD/$BUILD/stepscope"
export STEPSCOPE_BUILD="$PWD/$BUILD"
if [ -z "${STEPSCOPE_FIXTURES:-}" ] && [ -d ../shared/fixtures ]; then
  export STEPSCOPE_FIXTURES="$(cd ../shared/fixtures && pwd)"
fi
jobs_max=${STS_TEST_JOBS:-$((2 * $(nproc 2>/dev/null || echo 1)))}
case "$jobs_max" in '' | *[!0-9]* | 0) jobs_max=1 ;; esac
# An item that hangs fails with its log so far instead of holding the run (and CI) to its
# own limit. The longest item, the interop tier making its traces, takes ~3 minutes: the
# limit is sized for a machine ten times slower, a guard against a hang only.
limit=${STS_TEST_TIMEOUT:-2400}
case "$limit" in '' | *[!0-9]* | 0) limit=2400 ;; esac
work=$(mktemp -d)
declare -A running=() # pid -> item index

# Each item runs under timeout (start), which gives it a process group of its own and
# SIGINT at its default, as in a foreground run (a background job would start with it
# ignored). An interrupted run signals each timeout, which ends its item's group.
stop_all() {
  local pid
  for pid in "${!running[@]}"; do
    [ -f "$work/${running[$pid]}.tpid" ] && kill -TERM "$(cat "$work/${running[$pid]}.tpid")" 2>/dev/null
    kill -TERM "$pid" 2>/dev/null
  done
}
trap 'stop_all; rm -rf "$work"' EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

names=()
cmds=()
solo=() # 1: the item runs alone, after the others
add() { # NAME CMD...
  if [ -n "${STS_TEST_ITEMS:-}" ]; then
    case " $STS_TEST_ITEMS " in *" $1 "*) ;; *) return 0 ;; esac
  fi
  case "$SOLO" in *" ${1#noocl/} "*) solo+=(1) ;; *) solo+=(0) ;; esac
  names+=("$1")
  shift
  cmds+=("$(printf '%q ' "$@")")
}
# Items that run alone. test_hosts.sh starts ~50 mpirun jobs: with the other items
# beside it (the interop tier's JAX and PyTorch above all), mpirun twice in two runs
# reported a rank that had printed its whole output as "exiting improperly" (with PID
# 0, Open MPI's launcher losing track of it). It did not fail in 90 runs of mpirun by
# hand under load, nor in two copies of test_hosts.sh beside test_perfetto.sh and
# test_fixtures.sh, run twice: so the OpenCL-free flavour's copy runs beside the plain
# one, both after the others.
SOLO=" test_hosts.sh "
nocl=${STS_TEST_NOOCL:-}
# noocl KIND: the OpenCL-free flavour's items of one kind (*.sh or unit binaries).
noocl() {
  [ -n "$nocl" ] || return 0
  local item
  for item in ${STS_TEST_NOOCL_ITEMS:-}; do
    case "$1:$item" in
      sh:*.sh) add "noocl/$item" env STEPSCOPE="$PWD/$nocl/stepscope" STEPSCOPE_BUILD="$PWD/$nocl" \
        STEPSCOPE_OPENCL=0 bash "tests/cli/$item" ;;
      unit:*.sh) ;;
      unit:*) add "noocl/$item" env STEPSCOPE_OPENCL=0 "$nocl/tests/$item" ;;
    esac
  done
}

# The longest items first, so that the last to start are short.
if [ -x tests/interop/run.sh ] && [ -z "${STEPSCOPE_SANITIZED:-}" ]; then
  add "interop" tests/interop/run.sh
fi
for s in tests/cli/test_*.sh; do
  [ -f "$s" ] || continue
  add "$(basename "$s")" bash "$s"
done
noocl sh
for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  add "$(basename "$t")" "$t"
done
noocl unit
for r in "$BUILD"/fuzz/*_replay; do
  [ -x "$r" ] || continue
  name=$(basename "$r" _replay)
  add "$name corpus" "$r" "fuzz/corpus/${name#fuzz_}"
done

start() { # INDEX
  local i=$1
  (
    t0=$(date +%s%N)
    # timeout ends the item's whole process group, on its limit or when stop_all
    # signals it.
    timeout -k 10 "$limit" bash -c "${cmds[$i]}" >"$work/$i.log" 2>&1 </dev/null &
    echo $! >"$work/$i.tpid"
    wait $!
    rc=$?
    t1=$(date +%s%N)
    echo "$rc $(((t1 - t0) / 1000000))" >"$work/$i.end"
  ) &
  running[$!]=$i
}

report() { # INDEX
  local i=$1 rc=1 ms=0
  [ -f "$work/$i.end" ] && read -r rc ms <"$work/$i.end"
  printf '== %s (%d.%d s)\n' "${names[$i]}" $((ms / 1000)) $((ms % 1000 / 100))
  cat "$work/$i.log"
  cat "$work/$i.log" >>"$work/all"
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    echo "FAIL ${names[$i]} (no end after $limit s: stopped; STS_TEST_TIMEOUT sets the limit)" | tee -a "$work/all"
  elif [ "$rc" != 0 ]; then
    echo "FAIL ${names[$i]} (exit $rc)" | tee -a "$work/all"
  fi
}

# Runs the items whose solo flag is $1, $2 at a time.
pool() { # SOLO JOBS
  local want=$1 width=$2 next=0 i done_pid
  while :; do
    while [ "$next" -lt "${#names[@]}" ] && [ "${#running[@]}" -lt "$width" ]; do
      [ "${solo[$next]}" = "$want" ] && start "$next"
      next=$((next + 1))
    done
    [ "${#running[@]}" -gt 0 ] || break
    done_pid=
    wait -n -p done_pid
    [ -n "$done_pid" ] || continue
    i=${running[$done_pid]}
    unset "running[$done_pid]"
    report "$i"
  done
}

: >"$work/all"
pool 0 "$jobs_max"
pool 1 "$([ -n "$nocl" ] && echo 2 || echo 1)"

passed=$(grep -c '^ok ' "$work/all")
failed=$(grep -c '^FAIL ' "$work/all")
skipped=$(grep -c '^SKIP ' "$work/all")
echo
# Each failure with its exit status and the start of its stderr: a log cut to its head
# and tail (as CI shows it) still says why each check failed.
awk '/^FAIL /{show = 1; print "  " $0; next}
     /^[^ ]/{show = 0}
     show && /^  (exit|stderr):/{print "    " substr($0, 3, 300)}' "$work/all"
echo "$BUILD: $passed passed, $failed failed, $skipped skipped (${#names[@]} items, $jobs_max at a time)"
[ "$failed" = 0 ]
