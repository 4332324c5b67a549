#!/usr/bin/env bash
# Interop tier: traces made by the real producers, read back by stepscope.
#   JAX (lesson 3's own code, from .venv/): perfetto_trace.json.gz, HOST.trace.json.gz,
#   *.xplane.pb and the profile directory; PyTorch (Debian's python3-torch, with
#   /usr/bin/python3): the lesson redone and a small training loop.
# Asserts that `stepscope analyze|steps|slices` agree with tests/tools/trace_facts.py
# and with what the lesson itself reads (tests/interop/check.py prints the verdicts).
# Traces are cached in build/interop/<producer>-<hash of its script and versions>/.
# Then runs the other interop tests, tests/interop/test_*.sh.
# Prints "ok/FAIL/SKIP NAME" lines; exits non-zero when any check failed.
set -u
cd "$(dirname "$0")/../.." || exit 1
root=$PWD
STEPSCOPE=${STEPSCOPE:-$root/build/stepscope}
cache=${STEPSCOPE_INTEROP_CACHE:-$root/build/interop}
venv=${STEPSCOPE_VENV:-.venv}
mkdir -p "$cache"
t0=$(date +%s)

if [ ! -x "$STEPSCOPE" ]; then
  echo "FAIL interop: $STEPSCOPE is not built"
  exit 1
fi

# Runs a producer into a fresh folder and moves it into the cache when it succeeds.
# produce KEYDIR CMD...   (CMD gets the folder as its last argument)
produce() {
  local dir=$1; shift
  [ -f "$dir/done" ] && return 0
  local tmp
  tmp=$(mktemp -d "$cache/tmp.XXXXXX")
  if ! "$@" "$tmp" >"$tmp/log" 2>&1; then
    echo "  producer failed: $*"
    tail -n 15 "$tmp/log" | sed 's/^/  | /'
    rm -rf "$tmp"
    return 1
  fi
  touch "$tmp/done"
  rm -rf "$dir"
  mv "$tmp" "$dir"
  # Traces made by older versions of the scripts are of no further use.
  local old
  for old in "${dir%-*}"-*; do
    [ "$old" = "$dir" ] || rm -rf "$old"
  done
}

jax_torch_args=()

# JAX: needs the interop environment.
scripts/interop/setup.sh
rc=$?
if [ "$rc" = 3 ]; then
  echo "SKIP interop jax: could not create the interop environment (no network?); see the setup.sh message above"
elif [ "$rc" != 0 ]; then
  echo "FAIL interop setup: scripts/interop/setup.sh exited $rc"
  exit 1
else
  key=$(cat scripts/interop/jax_lesson3.py scripts/interop/requirements.txt | sha256sum | cut -c1-16)
  jax_dir=$cache/jax-$key
  run_jax() { "$venv/bin/python" scripts/interop/jax_lesson3.py "$1"; }
  if produce "$jax_dir" run_jax; then
    jax_torch_args+=(--jax "$jax_dir")
  else
    echo "FAIL interop jax: jax_lesson3.py could not make a trace"
    exit 1
  fi
fi

# PyTorch: Debian's python3-torch under /usr/bin/python3 (scripts/deps.sh interop).
# (find_spec, not import: importing torch costs seconds.)
if /usr/bin/python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)' 2>/dev/null; then
  tv=$(dpkg-query -W -f='${Version}' python3-torch 2>/dev/null || echo unknown)
  key=$( (cat scripts/interop/torch_lesson.py scripts/interop/torch_train.py; echo "$tv") | sha256sum | cut -c1-16)
  torch_dir=$cache/torch-$key
  run_torch() {
    /usr/bin/python3 scripts/interop/torch_lesson.py "$1/lesson.json" &&
      /usr/bin/python3 scripts/interop/torch_train.py "$1/train.json" 6
  }
  if produce "$torch_dir" run_torch; then
    jax_torch_args+=(--torch "$torch_dir")
  else
    echo "FAIL interop torch: the torch scripts could not make traces"
    exit 1
  fi
else
  echo "SKIP interop torch: /usr/bin/python3 has no torch (scripts/deps.sh interop installs python3-torch)"
fi

rc=0
if [ ${#jax_torch_args[@]} != 0 ]; then
  python3 tests/interop/check.py --cli "$STEPSCOPE" "${jax_torch_args[@]}" || rc=1
fi

# The other interop tests (tests/interop/test_*.sh, e.g. the ledger on real JAX logs)
# print their own ok/FAIL/SKIP lines and skip themselves when their producer is missing.
export STEPSCOPE STEPSCOPE_VENV=$venv
for t in tests/interop/test_*.sh; do
  [ -f "$t" ] || continue
  echo "== interop/$(basename "$t")"
  bash "$t" || { echo "FAIL interop/$(basename "$t") (exit $?)"; rc=1; }
done
echo "interop: $(( $(date +%s) - t0 )) s"
exit $rc
