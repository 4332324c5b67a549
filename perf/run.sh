#!/usr/bin/env bash
# `make bench`: runs each benchmark group (perf/run_*.sh) in turn. Each prints its
# figures and ratios against the peer named in its issue, measured side by side.
set -u
cd "$(dirname "$0")/.."
export BUILD=${BUILD:-build}
mkdir -p perf/out
rc=0
for b in perf/run_*.sh; do
  [ -f "$b" ] || continue
  echo "=== $(basename "$b" .sh | sed 's/^run_//')"
  bash "$b" || { echo "benchmark $(basename "$b") failed"; rc=1; }
done
exit $rc
