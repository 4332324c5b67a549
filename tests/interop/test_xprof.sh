#!/usr/bin/env bash
# XProf compatibility: XProf's own converters (PyPI xprof in the interop environment,
# .venv/ from scripts/interop/setup.sh) read the .xplane.pb that `stepscope demo trace`
# writes without error, and the events and steps they report match `stepscope slices`
# and `stepscope steps` on the same run (tests/interop/xprof_check.py does the
# comparing). Prints ok/FAIL/SKIP lines; skips cleanly when .venv/bin/python, xprof or
# an OpenCL device is missing.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh
STEPSCOPE=${STEPSCOPE:-build/stepscope}
py=${STEPSCOPE_VENV:-.venv}/bin/python

if [ ! -x "$py" ]; then
  t_skip "xprof" "$py is missing (scripts/interop/setup.sh makes it)"
  exit 0
fi
if ! "$py" -c 'import importlib.util as u, sys; sys.exit(u.find_spec("xprof") is None)' 2>/dev/null; then
  t_skip "xprof" "$py has no xprof (scripts/interop/requirements-optional.txt; setup.sh tolerates its failure)"
  exit 0
fi
if [ ! -x "$STEPSCOPE" ]; then
  echo "FAIL xprof: $STEPSCOPE is not built"
  exit 1
fi

out=$T_TMP/demo
t_run "$STEPSCOPE" demo trace --out "$out"
if [ "$T_RC" != 0 ] && printf '%s' "$T_ERR$T_OUT" | grep -q "no OpenCL"; then
  t_skip "xprof" "no OpenCL device here, so no trace to convert"
  exit 0
fi
t_ok "xprof: demo trace writes a run" test "$T_RC" = 0
run=$(ls -d "$out"/trace/plugins/profile/*/ 2>/dev/null | head -1)
xplane=$(ls "$run"*.xplane.pb 2>/dev/null | head -1)
t_ok "xprof: the run holds an .xplane.pb" test -n "$xplane"
[ -n "$xplane" ] || { t_done; exit; }

t_run "$STEPSCOPE" steps "$xplane" --json
t_ok "xprof: stepscope steps reads the xplane" test "$T_RC" = 0
printf '%s\n' "$T_OUT" >"$T_TMP/steps.json"
t_run "$STEPSCOPE" slices "$xplane" --csv
t_ok "xprof: stepscope slices reads the xplane" test "$T_RC" = 0
printf '%s\n' "$T_OUT" >"$T_TMP/slices.csv"

# XProf caches its results beside the file it converts: give it a copy of its own.
mkdir -p "$T_TMP/xprof"
cp "$xplane" "$T_TMP/xprof/"
copy=$T_TMP/xprof/$(basename "$xplane")
# XProf's C++ side logs every conversion to stderr; shown only when a check fails.
timeout 1200 "$py" tests/interop/xprof_check.py "$copy" "$T_TMP/steps.json" "$T_TMP/slices.csv" 2>"$T_TMP/xprof.log"
rc=$?
if [ "$rc" != 0 ]; then
  echo "FAIL xprof: xprof_check.py exited $rc; the end of XProf's log:"
  grep -E '^[EF][0-9]{4}|Error|Traceback' "$T_TMP/xprof.log" | tail -n 15 | sed 's/^/  | /'
  T_FAILS=$((T_FAILS + 1))
fi
t_done
