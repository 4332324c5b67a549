#!/usr/bin/env bash
# Python package tier: builds the package with `pip install ./python` (its own build
# backend, setuptools) into build/python/site with the interop environment's Python
# (.venv, made by scripts/interop/setup.sh: JAX, NumPy, pandas), then runs the pytest
# suite in tests/python against it and the CLI ($STEPSCOPE).
# Prints "ok/FAIL/SKIP python/..." lines; SKIP (exit 0) when the environment cannot be
# made or PyPI cannot be reached for the build tools; exit 1 when anything failed.
# The build is redone only when the package, the C library or this tier changes.
set -u
cd "$(dirname "$0")/../.." || exit 1
export STEPSCOPE=${STEPSCOPE:-$PWD/build/stepscope}
venv=${STEPSCOPE_VENV:-.venv}
out=${STEPSCOPE_PYTHON_BUILD:-$PWD/build/python}
site=$out/site
mkdir -p "$out"

if [ ! -x "$STEPSCOPE" ]; then
  echo "FAIL python: $STEPSCOPE is not built"
  exit 1
fi
scripts/interop/setup.sh >"$out/setup.log" 2>&1
rc=$?
if [ "$rc" = 3 ]; then
  echo "SKIP python: could not create the interop environment (no network?): $(tail -n 1 "$out/setup.log")"
  exit 0
elif [ "$rc" != 0 ]; then
  echo "FAIL python: scripts/interop/setup.sh exited $rc"; tail -n 5 "$out/setup.log" | sed 's/^/  | /'
  exit 1
fi
py=$venv/bin/python

pip=("$py" -m pip --disable-pip-version-check --no-input install -q)
# pip's failures that mean "no network", not "broken package".
offline() {
  grep -qiE 'NewConnectionError|Temporary failure in name resolution|No matching distribution found|Network is unreachable' "$1"
}

# The test requirements (pytest, pyarrow), beside the package: the interop environment
# is shared and stays as setup.sh made it.
deps=$out/deps
want=$(cat tests/python/requirements.txt <("$py" --version 2>&1) | sha256sum | cut -c1-16)
if [ "$(cat "$deps/.stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf "$deps.new"
  if ! "${pip[@]}" --target "$deps.new" -r tests/python/requirements.txt >"$out/deps.log" 2>&1; then
    rm -rf "$deps.new"
    offline "$out/deps.log" && { echo "SKIP python: pip could not reach PyPI for tests/python/requirements.txt"; exit 0; }
    echo "FAIL python deps: pip install -r tests/python/requirements.txt failed"
    tail -n 20 "$out/deps.log" | sed 's/^/  | /'
    exit 1
  fi
  echo "$want" >"$deps.new/.stamp"
  rm -rf "$deps" && mv "$deps.new" "$deps"
fi

# The package, rebuilt when it, the C library's sources or the interpreter change.
want=$( (find python -path python/build -prune -o -path '*egg-info' -prune -o -type f -print
         find lib include -name '*.[ch]') | LC_ALL=C sort | xargs cat | cat - <("$py" --version 2>&1) |
        sha256sum | cut -c1-16)
if [ "$(cat "$site/.stamp" 2>/dev/null)" != "$want" ]; then
  rm -rf "$site.new"
  t0=$(date +%s)
  if ! STEPSCOPE_WERROR=1 "${pip[@]}" --no-deps --target "$site.new" ./python >"$out/pip.log" 2>&1; then
    rm -rf "$site.new"
    offline "$out/pip.log" && { echo "SKIP python: pip could not reach PyPI for the build tools (setuptools)"; exit 0; }
    echo "FAIL python build: pip install ./python failed"
    tail -n 30 "$out/pip.log" | sed 's/^/  | /'
    exit 1
  fi
  echo "$want" >"$site.new/.stamp"
  rm -rf "$site" && mv "$site.new" "$site"
  echo "python: built and installed the package in $(( $(date +%s) - t0 )) s ($site)"
fi

PYTHONPATH=$site:$deps:$PWD/tests/python PYTHONDONTWRITEBYTECODE=1 \
  "$py" -m pytest -q -p no:cacheprovider --rootdir tests/python tests/python "$@"
rc=$?
[ "$rc" = 0 ] || echo "FAIL python: pytest exited $rc"
exit $([ "$rc" = 0 ] && echo 0 || echo 1)
