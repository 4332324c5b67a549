#!/usr/bin/env bash
# `stepscope steps` read beside XProf's overview page on a real JAX run of eight steps
# (scripts/interop/jax_steps.py in the interop environment): --xprof leaves out the same
# steps XProf does, and the mean and standard deviation agree with XProf's to its
# rounding (tests/interop/xprof_steps_check.py). Prints ok/FAIL/SKIP lines; skips
# cleanly without .venv/bin/python, jax or xprof.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh
STEPSCOPE=${STEPSCOPE:-build/stepscope}
py=${STEPSCOPE_VENV:-.venv}/bin/python

if [ ! -x "$py" ] || ! "$py" -c 'import jax' 2>/dev/null; then
  t_skip "xprof-steps" "$py with jax is missing (scripts/interop/setup.sh makes it)"
  exit 0
fi
if ! "$py" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("xprof") is None)' 2>/dev/null; then
  t_skip "xprof-steps" "$py has no xprof (scripts/interop/requirements-optional.txt)"
  exit 0
fi
out=$T_TMP/steps
mkdir -p "$out"
if ! timeout 3000 "$py" scripts/interop/jax_steps.py "$out" >"$out/log" 2>&1; then
  echo "FAIL xprof-steps: scripts/interop/jax_steps.py failed"
  tail -n 15 "$out/log" | sed 's/^/  | /'
  exit 1
fi
xplane=$out/$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["xplane"])' "$out/steps.json")
t_run "$STEPSCOPE" steps --json "$xplane"
t_ok "xprof-steps: steps --json reads the run" test "$T_RC" = 0
printf '%s' "$T_OUT" >"$out/plain.json"
t_run "$STEPSCOPE" steps --json --xprof "$xplane"
t_ok "xprof-steps: steps --json --xprof reads the run" test "$T_RC" = 0
printf '%s' "$T_OUT" >"$out/xprof.json"
t_run "$STEPSCOPE" steps "$xplane"
t_ok "xprof-steps: text points to --xprof" grep -q -- "--xprof shows that view" <<<"$T_OUT"
# XProf caches beside the file it converts: a copy of its own.
mkdir -p "$out/x"
cp "$xplane" "$out/x/"
timeout 1200 "$py" tests/interop/xprof_steps_check.py "$out/x/$(basename "$xplane")" "$out/plain.json" \
  "$out/xprof.json" 2>"$out/xprof.log" || { T_FAILS=$((T_FAILS + 1)); grep -E "Error|Traceback" -A3 "$out/xprof.log" | tail -n 8 | sed "s/^/  | /"; }
t_done
