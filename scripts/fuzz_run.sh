#!/usr/bin/env bash
# Runs every libFuzzer target built by `make fuzz` for FUZZ_SECONDS each (default 60),
# starting from its corpus in fuzz/corpus/<name>/ plus a scratch corpus of what it finds.
# New crashes are left as build/fuzzer/<name>/crash-*; the exit status is non-zero when
# any target crashed. Prints the executions each target ran.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
secs=${FUZZ_SECONDS:-60}
bad=0
for bin in "$BUILD"/fuzzer/fuzz_*; do
  [ -x "$bin" ] || continue
  name=$(basename "$bin")
  work="$BUILD/fuzzer/$name.d"
  mkdir -p "$work/corpus"
  log="$work/log"
  "$bin" -max_total_time="$secs" -print_final_stats=1 -artifact_prefix="$work/" \
    "$work/corpus" "fuzz/corpus/${name#fuzz_}" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ "$rc" = 0 ]; then
    echo "ok   $name: ${execs:-?} executions in ${secs}s, no crash"
  else
    echo "FAIL $name: exit $rc after ${execs:-?} executions; see $log"
    bad=1
  fi
done
exit $bad
