#!/usr/bin/env bash
# Runs every libFuzzer target built by `make fuzz` ($BUILD/fuzzer/fuzz_*) for
# FUZZ_SECONDS each (default 60), starting from its seeds in fuzz/corpus/<name>/ plus a
# scratch corpus of what earlier runs found ($BUILD/fuzzer/fuzz_<name>.d/corpus).
#   FUZZ_TARGETS="xplane chrome_json"   only these targets (names without fuzz_)
#   FUZZ_JOBS=N                          run N targets at once (default 1)
# A crash, a leak, an input slower than FUZZ_TIMEOUT seconds (default 10) or one that
# needs more than FUZZ_RSS_MB of memory (default 2048) fails the target; its input is
# left as $BUILD/fuzzer/fuzz_<name>.d/{crash,leak,timeout,oom}-<sha1> and its log as
# .../log. Prints one line per target with the executions it ran; the exit status is
# non-zero when any target failed.
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-build}
secs=${FUZZ_SECONDS:-60}
jobs=${FUZZ_JOBS:-1}

targets=()
for bin in "$BUILD"/fuzzer/fuzz_*; do
  [ -f "$bin" ] && [ -x "$bin" ] || continue
  name=$(basename "$bin")
  if [ -n "${FUZZ_TARGETS:-}" ] && ! grep -qw "${name#fuzz_}" <<<"$FUZZ_TARGETS"; then continue; fi
  targets+=("$bin")
done
if [ ${#targets[@]} = 0 ]; then
  echo "fuzz_run: no fuzz targets in $BUILD/fuzzer (run make fuzz)" >&2
  exit 1
fi

run_one() {
  local bin=$1 name work log rc execs
  name=$(basename "$bin")
  work="$BUILD/fuzzer/$name.d"
  mkdir -p "$work/corpus"
  log="$work/log"
  "$bin" -max_total_time="$secs" -timeout="${FUZZ_TIMEOUT:-10}" -rss_limit_mb="${FUZZ_RSS_MB:-2048}" \
    -print_final_stats=1 -artifact_prefix="$work/" "$work/corpus" "fuzz/corpus/${name#fuzz_}" >"$log" 2>&1
  rc=$?
  execs=$(grep -o 'stat::number_of_executed_units: *[0-9]*' "$log" | grep -o '[0-9]*$')
  if [ "$rc" = 0 ]; then
    echo "ok   $name: ${execs:-?} executions in ${secs}s, no crash"
  else
    echo "FAIL $name: exit $rc after ${execs:-?} executions; input and log in $work/"
    grep -m1 -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error' "$log" | sed 's/^/     /'
  fi
  [ "$rc" = 0 ]
}

bad=0
running=0
for bin in "${targets[@]}"; do
  if [ "$jobs" -le 1 ]; then
    run_one "$bin" || bad=1
    continue
  fi
  run_one "$bin" &
  running=$((running + 1))
  if [ "$running" -ge "$jobs" ]; then
    wait -n || bad=1
    running=$((running - 1))
  fi
done
while [ "$running" -gt 0 ]; do
  wait -n || bad=1
  running=$((running - 1))
done
exit $bad
