#!/usr/bin/env bash
# Makes the interop environment: .venv/ at the repository root with JAX (CPU),
# Holistic Trace Analysis and (optionally) xprof from PyPI, and Debian's PyTorch for
# /usr/bin/python3 (via scripts/deps.sh interop).
#
# Idempotent: a stamp file in .venv/ holds the hash of the requirement files, so a
# second run with nothing changed returns at once.
#
# Exit codes: 0 ready; 3 the environment could not be made (no network, or a
# package could not be installed): callers print a SKIP and go on; 1 other error.
# Environment: PYTHON (default python3) picks the interpreter for the venv;
# STEPSCOPE_VENV the place (default: a per-user cache, linked as .venv).
set -u
cd "$(dirname "$0")/../.." || exit 1
here=scripts/interop
venv=${STEPSCOPE_VENV:-.venv}
python=${PYTHON:-python3}
# By default the environment lives in a per-user cache and .venv links to it, so a
# fresh clone (CI makes one per run) reuses what an earlier run on this machine made.
if [ -z "${STEPSCOPE_VENV:-}" ]; then
  cache=${STEPSCOPE_CACHE:-${XDG_CACHE_HOME:-${HOME:-/var/tmp}/.cache}/stepscope}/interop-venv
  mkdir -p "$(dirname "$cache")" || exit 1
  if [ ! -e .venv ] || [ -L .venv ]; then
    ln -sfn "$cache" .venv || exit 1
    venv=$cache
  fi
fi
stamp=$venv/.stepscope-interop-stamp

want=$(cat "$here/requirements.txt" "$here/requirements-optional.txt" | sha256sum | cut -c1-16)
if [ -f "$stamp" ] && [ "$(head -n1 "$stamp")" = "$want" ] && [ -x "$venv/bin/python" ]; then
  exit 0
fi

fail() { echo "setup.sh: $*" >&2; exit 3; }

# Debian's PyTorch makes the torch traces; missing it only costs the torch cases.
if ! scripts/deps.sh interop >/dev/null 2>&1; then
  echo "setup.sh: note: scripts/deps.sh interop failed; torch traces will be skipped" >&2
fi

if [ ! -x "$venv/bin/python" ]; then
  "$python" -m venv "$venv" || fail "could not create a virtual environment with $python -m venv"
fi
pip=("$venv/bin/python" -m pip --disable-pip-version-check --no-input -q)
log=$(mktemp)
trap 'rm -f "$log"' EXIT
start=$(date +%s)
if ! "${pip[@]}" install --timeout 30 --retries 1 -r "$here/requirements.txt" >"$log" 2>&1; then
  tail -n 5 "$log" >&2
  fail "could not install $here/requirements.txt from PyPI (no network?)"
fi
optional=ok
if ! "${pip[@]}" install --timeout 30 --retries 1 -r "$here/requirements-optional.txt" >"$log" 2>&1; then
  optional="failed: $(tail -n 1 "$log")"
  echo "setup.sh: note: optional packages (xprof) did not install; XProf checks will be skipped" >&2
fi
"$venv/bin/python" -c "import jax, hta" 2>"$log" || { cat "$log" >&2; fail "installed packages do not import"; }
{
  echo "$want"
  echo "made $(date -u +%Y-%m-%dT%H:%M:%SZ) in $(( $(date +%s) - start ))s with $("$venv/bin/python" --version 2>&1)"
  echo "optional: $optional"
} >"$stamp"
echo "setup.sh: interop environment ready in $venv ($(( $(date +%s) - start ))s)" >&2
