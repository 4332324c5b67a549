# What the recorder writes is text every reader accepts (issue 34.3): a thread name cut
# at 63 bytes inside "é", one the kernel cut at 15, an arg cut at 255 inside "€", and
# bytes that are not UTF-8 in names, keys and values (tests/cli/recorder_hostile.c)
# come out valid UTF-8, cut on character boundaries, in the .xplane.pb (decoded by
# protoc with the schema, which refuses a file with one bad string, and by
# google.protobuf when the interop environment has it), in the JSON files and in the
# signal dump (tests/cli/recorder_text_check.py).
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${STEPSCOPE_BUILD:-$root/build}
cc=${CC:-cc}
san=()
[ -n "${STEPSCOPE_SANITIZED:-}" ] && san=(-fsanitize=address,undefined)
probe="$T_TMP/recorder_hostile"
"$cc" -std=c11 -O1 -g -D_GNU_SOURCE "${san[@]}" -I"$root/include" "$root/tests/cli/recorder_hostile.c" \
  "$build/libstepscope.a" -lOpenCL -lz -lm -lpthread -o "$probe" 2>"$T_TMP/probe.err"
T_ERR=$(cat "$T_TMP/probe.err")
t_ok "the hostile-names probe links against $build/libstepscope.a" test -x "$probe"

if ! command -v protoc >/dev/null 2>&1 || ! command -v python3 >/dev/null 2>&1; then
  t_skip "the recorder's files decoded independently" "protoc or python3 missing"
  t_done
  exit
fi
venv_python=${STEPSCOPE_VENV:-$root/.venv}/bin/python
[ -x "$venv_python" ] || venv_python=

t_run "$probe" "$T_TMP/names" names
t_ok "the probe records and stops" test "$T_RC" = 0
t_run python3 "$root/tests/cli/recorder_text_check.py" "$T_TMP/names" "$venv_python"
t_ok "every file of the profile decodes strictly, names cut on character boundaries" test "$T_RC" = 0
printf '%s\n' "$T_OUT" | grep '^ok' | sed 's/^ok  */  /'
t_run "$STEPSCOPE" analyze --json "$T_TMP/names"
t_ok "stepscope reads the profile back" test "$T_RC" = 0

t_run "$probe" "$T_TMP/crash" crash
t_ok "the probe aborts (SIGABRT)" test "$T_RC" = 134
t_ok "the signal dump is written" test -n "$(find "$T_TMP/crash" -name 'stepscope-crash-*.trace.json')"
t_run python3 "$root/tests/cli/recorder_text_check.py" "$T_TMP/crash"
t_ok "the signal dump is strict UTF-8 JSON, names cut on character boundaries" test "$T_RC" = 0
t_done
