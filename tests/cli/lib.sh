# Helpers for CLI tests. Source from tests/cli/test_*.sh; $STEPSCOPE is the binary.
#   t_run CMD...        runs CMD, capturing $T_OUT, $T_ERR and $T_RC
#   t_ok NAME COND...   prints "ok NAME" when the test command succeeds, else FAIL + context
#   t_skip NAME WHY
set -u
STEPSCOPE=${STEPSCOPE:-build/stepscope}
T_TMP=$(mktemp -d)
trap 'rm -rf "$T_TMP"' EXIT
T_FAILS=0

t_run() {
  "$@" >"$T_TMP/out" 2>"$T_TMP/err"
  T_RC=$?
  T_OUT=$(cat "$T_TMP/out")
  T_ERR=$(cat "$T_TMP/err")
}

t_ok() {
  local name=$1; shift
  if "$@"; then
    echo "ok   $name"
  else
    echo "FAIL $name"
    echo "  check: $*"
    echo "  exit: ${T_RC:-?}"
    echo "  stdout: $(printf '%s' "${T_OUT:-}" | head -c 600)"
    echo "  stderr: $(printf '%s' "${T_ERR:-}" | head -c 600)"
    T_FAILS=$((T_FAILS + 1))
  fi
}

t_skip() { echo "SKIP $1: $2"; }

# Fixture directory or empty.
t_fixtures() { printf '%s' "${STEPSCOPE_FIXTURES:-}"; }

t_done() { [ "$T_FAILS" = 0 ]; }
