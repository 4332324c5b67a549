#!/usr/bin/env bash
# Builds the Python package (`pip install ./python`, its setuptools build) with the
# interop environment's Python (.venv, made by scripts/interop/setup.sh) into
# build/python/site, and the test requirements (tests/python/requirements.txt) into
# build/python/deps, beside it: the shared environment stays as setup.sh made it. Use
#   PYTHONPATH=build/python/site:build/python/deps .venv/bin/python ...
# Each is redone only when what it depends on changes (stamps in the folders).
# Exit: 0 ready; 3 cannot be made here (no interop environment, PyPI unreachable for
# the build tools): callers print a SKIP; 1 the build failed (the log is shown).
# Used by tests/python/run.sh, perf/run_python.sh and `make python`.
set -u
cd "$(dirname "$0")/.." || exit 1
venv=${STEPSCOPE_VENV:-.venv}
out=${STEPSCOPE_PYTHON_BUILD:-$PWD/build/python}
site=$out/site deps=$out/deps
mkdir -p "$out"

scripts/interop/setup.sh >"$out/setup.log" 2>&1
rc=$?
if [ "$rc" = 3 ]; then
  echo "python_site.sh: no interop environment (scripts/interop/setup.sh: $(tail -n 1 "$out/setup.log"))" >&2
  exit 3
elif [ "$rc" != 0 ]; then
  echo "python_site.sh: scripts/interop/setup.sh exited $rc" >&2
  tail -n 5 "$out/setup.log" | sed 's/^/  | /' >&2
  exit 1
fi
py=$venv/bin/python
pip=("$py" -m pip --disable-pip-version-check --no-input install -q)

# pip's failures that mean "no network", not "broken package".
offline() {
  grep -qiE 'NewConnectionError|Temporary failure in name resolution|No matching distribution found|Network is unreachable' "$1"
}

# install WHAT DIR STAMP LOG PIP-ARGS...: into DIR.new, then moved over DIR.
install() {
  local what=$1 dir=$2 stamp=$3 log=$4; shift 4
  [ "$(cat "$dir/.stamp" 2>/dev/null)" = "$stamp" ] && return 0
  rm -rf "$dir.new"
  local t0
  t0=$(date +%s)
  if ! "${pip[@]}" --target "$dir.new" "$@" >"$log" 2>&1; then
    rm -rf "$dir.new"
    if offline "$log"; then
      echo "python_site.sh: pip could not reach PyPI for $what: $(grep -iE 'error' "$log" | tail -n 1)" >&2
      exit 3
    fi
    echo "python_site.sh: pip install of $what failed" >&2
    tail -n 30 "$log" | sed 's/^/  | /' >&2
    exit 1
  fi
  echo "$stamp" >"$dir.new/.stamp"
  rm -rf "$dir" && mv "$dir.new" "$dir"
  echo "python_site.sh: installed $what in $(( $(date +%s) - t0 )) s ($dir)" >&2
}

install "tests/python/requirements.txt" "$deps" \
  "$(cat tests/python/requirements.txt <("$py" --version 2>&1) | sha256sum | cut -c1-16)" "$out/deps.log" \
  -r tests/python/requirements.txt
# The package: the binding, the C library's sources, the interpreter.
stamp=$( (find python -path python/build -prune -o -path '*egg-info' -prune -o -type f -print
          find lib include -name '*.[ch]') | LC_ALL=C sort | xargs cat | cat - <("$py" --version 2>&1) |
         sha256sum | cut -c1-16)
STEPSCOPE_WERROR=1 install "the stepscope package (./python)" "$site" "$stamp" "$out/pip.log" --no-deps ./python
exit 0
