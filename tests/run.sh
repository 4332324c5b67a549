#!/usr/bin/env bash
# Runs every test tier against one build flavour ($BUILD, default build):
#   unit binaries (build/tests/test_*), fuzz corpus replays, CLI tests (tests/cli/test_*.sh),
#   and the interop tests with real producers (tests/interop/run.sh).
# Each tier prints "ok NAME", "FAIL NAME" or "SKIP NAME" lines; this script totals them.
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
export STEPSCOPE="$PWD/$BUILD/stepscope"
export STEPSCOPE_BUILD="$PWD/$BUILD"
if [ -z "${STEPSCOPE_FIXTURES:-}" ] && [ -d ../shared/fixtures ]; then
  export STEPSCOPE_FIXTURES="$(cd ../shared/fixtures && pwd)"
fi
log=$(mktemp)
trap 'rm -f "$log"' EXIT
bad=0

run_one() {
  local what=$1; shift
  echo "== $what"
  if ! "$@" 2>&1 | tee -a "$log"; then :; fi
  local rc=${PIPESTATUS[0]}
  if [ "$rc" != 0 ]; then
    echo "FAIL $what (exit $rc)" | tee -a "$log"
    bad=1
  fi
}

for t in "$BUILD"/tests/test_*; do
  [ -x "$t" ] || continue
  run_one "$(basename "$t")" "$t"
done
for r in "$BUILD"/fuzz/*_replay; do
  [ -x "$r" ] || continue
  name=$(basename "$r" _replay)
  run_one "$name corpus" "$r" "fuzz/corpus/${name#fuzz_}"
done
for s in tests/cli/test_*.sh; do
  [ -f "$s" ] || continue
  run_one "$(basename "$s")" bash "$s"
done
if [ -x tests/interop/run.sh ] && [ -z "${STEPSCOPE_SANITIZED:-}" ]; then
  run_one "interop" tests/interop/run.sh
fi

passed=$(grep -c '^ok ' "$log")
failed=$(grep -c '^FAIL ' "$log")
skipped=$(grep -c '^SKIP ' "$log")
echo
grep '^FAIL ' "$log" | sed 's/^/  /'
echo "$BUILD: $passed passed, $failed failed, $skipped skipped"
[ "$failed" = 0 ] && [ "$bad" = 0 ]
