#!/usr/bin/env bash
# A change's speed, measured the way this VM allows: two (or more) stepscope builds run
# in turns on one trace, A B A B ..., so that the machine's drift between runs falls on
# both alike; medians of CPU and wall, the ratio to the first build, and a check that
# both printed the same bytes. Not part of `make bench` (it compares builds, not peers).
#
#   perf/ab.sh [--runs N] [--args "analyze -j 1"] TRACE OLD_BINARY NEW_BINARY...
#
# e.g. keep the old build: cp build/stepscope /tmp/stepscope.old; make; then
#   perf/ab.sh perf/out/kineto_1G_compact.json /tmp/stepscope.old build/stepscope
set -u
cd "$(dirname "$0")/.." || exit 1
export STS_RUNSTAT=${STS_RUNSTAT:-${BUILD:-build}/perf/runstat} # each build's own peak RSS
exec python3 perf/peers/ab_builds.py "$@"
