#!/usr/bin/env bash
# Python package tier: builds the package (`pip install ./python`, see
# scripts/python_site.sh) with the interop environment's Python (JAX, NumPy, pandas),
# then runs the pytest suite in tests/python against it and the CLI ($STEPSCOPE).
# Prints "ok/FAIL/SKIP python/..." lines; SKIP (exit 0) when the environment cannot be
# made here; exit 1 when anything failed. Extra arguments go to pytest (-k NAME).
set -u
cd "$(dirname "$0")/../.." || exit 1
export STEPSCOPE=${STEPSCOPE:-$PWD/build/stepscope}
out=${STEPSCOPE_PYTHON_BUILD:-$PWD/build/python}
if [ ! -x "$STEPSCOPE" ]; then
  echo "FAIL python: $STEPSCOPE is not built"
  exit 1
fi
scripts/python_site.sh 2>"$out.log"
rc=$?
cat "$out.log" >&2
if [ "$rc" = 3 ]; then
  echo "SKIP python: $(tail -n 1 "$out.log")"
  exit 0
elif [ "$rc" != 0 ]; then
  echo "FAIL python build: scripts/python_site.sh exited $rc"
  exit 1
fi
PYTHONPATH=$out/site:$out/deps:$PWD/tests/python PYTHONDONTWRITEBYTECODE=1 \
  "${STEPSCOPE_VENV:-.venv}/bin/python" -m pytest -q -p no:cacheprovider --rootdir tests/python tests/python "$@"
rc=$?
[ "$rc" = 0 ] || echo "FAIL python: pytest exited $rc"
[ "$rc" = 0 ]
