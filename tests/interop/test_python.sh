#!/usr/bin/env bash
# The Python package (python/, tests/python/): run here, in the interop tier, because it
# needs the interop environment (JAX, NumPy, pandas) and, for one test, the JAX profile
# directory tests/interop/run.sh has just made. tests/python/run.sh prints the
# ok/FAIL/SKIP lines and skips cleanly when the environment cannot be made.
set -u
cd "$(dirname "$0")/../.." || exit 1
exec tests/python/run.sh
