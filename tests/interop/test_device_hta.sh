#!/usr/bin/env bash
# The device view beside Holistic Trace Analysis (tests/interop/device_hta.py) on every
# Kineto fixture with device lanes: HTA's temporal, idle-time, overlap, launch and
# queue-length breakdowns against `analyze --device` and Trace.device_launches(), equal
# or differing as docs/device.md explains. Prints ok/FAIL/SKIP lines; skips cleanly
# without .venv/bin/python, HTA or the fixtures.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh
STEPSCOPE=${STEPSCOPE:-build/stepscope}
py=${STEPSCOPE_VENV:-.venv}/bin/python
fx=$(t_fixtures)
if [ ! -x "$py" ] || ! "$py" -c 'import hta' 2>/dev/null; then
  t_skip "device-hta" "$py with HTA is missing (scripts/interop/setup.sh makes it)"
  exit 0
fi
if [ -z "$fx" ] || [ ! -d "$fx/traces/kineto" ]; then
  t_skip "device-hta" "no Kineto fixtures (STEPSCOPE_FIXTURES)"
  exit 0
fi
out=${STEPSCOPE_PYTHON_BUILD:-$PWD/build/python}
if ! scripts/python_site.sh >"$T_TMP/site.log" 2>&1; then
  t_skip "device-hta" "the Python package could not be built here ($(tail -n 1 "$T_TMP/site.log"))"
  exit 0
fi
PYTHONPATH=$out/site:$out/deps timeout 600 "$py" tests/interop/device_hta.py "$STEPSCOPE" "$fx" "$T_TMP/hta" 2>"$T_TMP/log" |
  sed 's/^ok  /ok   device-hta:/; s/^FAIL /FAIL device-hta: /; s/^note /note device-hta: /'
rc=${PIPESTATUS[0]}
if [ "$rc" != 0 ]; then
  echo "FAIL device-hta: device_hta.py exited $rc"
  grep -E "Error|Traceback" -A3 "$T_TMP/log" | tail -n 8 | sed 's/^/  | /'
  exit 1
fi
