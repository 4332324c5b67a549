# Helpers for CLI tests. Source from tests/cli/test_*.sh; $STEPSCOPE is the binary.
#   t_run CMD...        runs CMD, capturing $T_OUT, $T_ERR and $T_RC
#   t_ok NAME COND...   prints "ok NAME" when the test command succeeds, else FAIL + context
#   t_skip NAME WHY
#   t_dur NS            prints how a duration of NS whole nanoseconds reads in text output
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

# The first and the last 600 bytes of a long text: a launcher's or a sanitizer's
# reason for a failure comes at the end.
t_clip() {
  if [ "${#1}" -le 1400 ]; then
    printf '%s' "$1"
  else
    printf '%s\n  [... %d bytes ...]\n%s' "${1:0:600}" $((${#1} - 1200)) "${1: -600}"
  fi
}

t_ok() {
  local name=$1; shift
  if "$@"; then
    echo "ok   $name"
  else
    echo "FAIL $name"
    echo "  check: $*"
    echo "  exit: ${T_RC:-?}"
    echo "  stdout: $(t_clip "${T_OUT:-}")"
    echo "  stderr: $(t_clip "${T_ERR:-}")"
    T_FAILS=$((T_FAILS + 1))
  fi
}

# A skip for want of the optional fixture corpus says where to get it.
t_skip() {
  case "$2" in
    *fixture* | *FIXTURES*) echo "SKIP $1: $2 (see docs/fixtures.md)" ;;
    *) echo "SKIP $1: $2" ;;
  esac
}

# A unit test from the ThreadSanitizer build (make check-tsan): true, with its path in
# T_TSAN, when it can run here; else the check named $1 is skipped, saying why.
t_tsan() {
  T_TSAN=${STEPSCOPE_BUILD:-build}/tsan/tests/$2
  if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
    t_skip "$1" "runs in the plain tier only (the ASan build cannot mix with TSan)"
    return 1
  fi
  if [ ! -x "$T_TSAN" ]; then
    t_skip "$1" "$T_TSAN is not built (make check-tsan builds it where the compiler can)"
    return 1
  fi
}

# After t_run of a command that needs OpenCL: true when it refused for want of it (exit
# 5), which only a build without OpenCL may do (STEPSCOPE_OPENCL=0: make check-noocl),
# and then the check named $1 is skipped; from the OpenCL build exit 5 is a failure.
t_no_opencl() {
  [ "$T_RC" = 5 ] || return 1
  if [ "${STEPSCOPE_OPENCL:-1}" = 0 ]; then
    t_skip "$1" "this build has no OpenCL"
  else
    t_ok "$1: the OpenCL build does not refuse for want of OpenCL (exit 5)" false
  fi
}

# Fixture directory or empty.
t_fixtures() { printf '%s' "${STEPSCOPE_FIXTURES:-}"; }

# The rule of include/stepscope/format.h, computed apart from the library with Python's
# decimal arithmetic: the largest unit not above NS; a whole number of it exactly; else
# three significant digits (whole seconds from 1000 s), half away from zero; a value that
# rounds up to 1000 moves to the next unit as 1.00.
t_dur() {
  python3 - "$1" <<'PY'
import sys
from decimal import Decimal, ROUND_HALF_UP
ns = int(sys.argv[1])
units = [(10**9, "s"), (10**6, "ms"), (10**3, "\u00b5s"), (1, "ns")]
sign, m = ("-" if ns < 0 else ""), abs(ns)
i = next(k for k, (size, _) in enumerate(units) if m >= size or size == 1)
size, name = units[i]
v = Decimal(m) / size
if m % size == 0:
    text = str(m // size)
else:
    dec = max(0, 3 - len(str(m // size)))
    q = v.quantize(Decimal(1).scaleb(-dec), rounding=ROUND_HALF_UP)
    if dec and q >= 10 ** (3 - dec):
        dec -= 1
        q = v.quantize(Decimal(1).scaleb(-dec), rounding=ROUND_HALF_UP)
    if q >= 1000 and i > 0:
        size, name = units[i - 1]
        q = (Decimal(m) / size).quantize(Decimal("0.01"), rounding=ROUND_HALF_UP)
    text = str(q)
print(f"{sign}{text} {name}")
PY
}

t_done() { [ "$T_FAILS" = 0 ]; }
