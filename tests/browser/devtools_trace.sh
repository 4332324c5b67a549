#!/usr/bin/env bash
# Chrome DevTools' own trace engine (the Performance panel's models/trace, bundled in
# Chromium) reads the perfetto_trace.json.gz that `stepscope demo trace` writes: the
# parse succeeds and the four learner_step steps and their children carry the ts/dur
# that `stepscope steps --json` reports for the same run.
#
#   tests/browser/devtools_trace.sh        ($STEPSCOPE is the binary)
#
# Prints "ok NAME" / "FAIL NAME" / "SKIP NAME: why" lines; skips without Chromium or
# python3 and under sanitizers (the engine reads the same file either way).
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh

if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
  t_skip "devtools" "runs in the plain build only (the trace file is the same)"; exit 0
fi
command -v python3 >/dev/null 2>&1 || { t_skip "devtools" "python3 is not installed"; exit 0; }
browser=$(command -v chromium || command -v chromium-browser || true)
[ -n "$browser" ] || { t_skip "devtools" "chromium is not installed (scripts/deps.sh browser installs it)"; exit 0; }

t_run "$STEPSCOPE" demo trace --out "$T_TMP/demo"
if [ "$T_RC" != 0 ] && printf '%s' "$T_ERR$T_OUT" | grep -q "no OpenCL"; then
  t_skip "devtools" "no OpenCL device here for demo trace"; exit 0
fi
t_ok "devtools: demo trace exits 0" test "$T_RC" = 0
run=$(ls -d "$T_TMP"/demo/trace/plugins/profile/*/ 2>/dev/null | head -1)
trace="${run}perfetto_trace.json.gz"
t_ok "devtools: demo trace wrote perfetto_trace.json.gz" test -n "$run" -a -s "$trace"
t_done || exit 1

t_run "$STEPSCOPE" steps "$T_TMP/demo/trace" --json
t_ok "devtools: stepscope steps --json reads the run" test "$T_RC" = 0
t_done || exit 1
printf '%s\n' "$T_OUT" >"$T_TMP/steps.json"

timeout 900 python3 tests/browser/devtools_trace.py --browser "$browser" --trace "$trace" \
  --steps "$T_TMP/steps.json" 2>"$T_TMP/py.err"
rc=$?
case $rc in
  0) ;;
  1) T_FAILS=$((T_FAILS + 1)) ;;
  3) echo "SKIP devtools: chromium did not run its DevTools frontend: $(tail -1 "$T_TMP/py.err")" ;;
  *) echo "FAIL devtools: devtools_trace.py exited $rc"; sed 's/^/  /' "$T_TMP/py.err" | tail -5
     T_FAILS=$((T_FAILS + 1)) ;;
esac
t_done
