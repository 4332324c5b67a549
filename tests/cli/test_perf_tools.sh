# The benchmarks' own measuring (perf/runstat.c, perf/peers/measure.py): a command's
# peak RSS is its own, whatever the harness that starts it holds, and its exit status
# and failures pass through.
. "$(dirname "$0")/lib.sh"

RS=${STEPSCOPE_BUILD:-build}/perf/runstat
S="$T_TMP/stats"

# A command that touches 200 MB: the line has four numbers, and the peak is 200 MB or
# more.
t_run "$RS" "$S" python3 -c 'b = bytearray(200 << 20); b[::4096] = b"\1" * (len(b) // 4096)'
read -r wall user sys kb rest <"$S"
t_ok "runstat: a command touching 200 MB peaks at 200 MB or more, on one line of four numbers" \
  test "$T_RC" = 0 -a -z "${rest:-}" -a "${kb:-0}" -ge 204800 -a -n "$(grep -E '^[0-9.]+ [0-9.]+ [0-9.]+ [0-9]+$' "$S")"

# The harness holds 300 MB (its own peak says so); `true` started through measure.py
# still peaks at a few MB. Started straight from the harness, Linux would report the
# harness's peak.
t_run env STS_RUNSTAT="$RS" python3 - <<'PY'
import os, resource, sys
sys.path.insert(0, os.path.join("perf", "peers"))
import measure
held = bytearray(300 << 20)
held[::4096] = b"\1" * (len(held) // 4096)
m = measure.run_once(["true"])
print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss // 1024, m["rss"] // (1 << 20), m["rc"])
PY
read -r harness child rc <<<"$T_OUT"
t_ok "measure.py: a command's peak is its own (under 50 MB) while the harness holds 300 MB or more" \
  test "$T_RC" = 0 -a "${harness:-0}" -ge 300 -a "${child:-999}" -lt 50 -a "${rc:-1}" = 0

t_run "$RS" "$S" sh -c 'exit 3'
t_ok "runstat: the command's exit status is its own" test "$T_RC" = 3 -a -s "$S"
t_run "$RS" "$S" sh -c 'kill -9 $$'
t_ok "runstat: a command killed by a signal exits 128 + the signal" test "$T_RC" = 137
t_run "$RS" "$S" "$T_TMP/no-such-program"
t_ok "runstat: a command that cannot run exits 127, named" \
  test "$T_RC" = 127 -a -n "$(grep -F "cannot run $T_TMP/no-such-program" <<<"$T_ERR")"
t_run "$RS" "$T_TMP/no-such-dir/stats" true
t_ok "runstat: a stats file that cannot be written exits 2, named" \
  test "$T_RC" = 2 -a -n "$(grep -F "cannot write $T_TMP/no-such-dir/stats" <<<"$T_ERR")"
t_run "$RS" "$S"
t_ok "runstat: no command is a usage error" test "$T_RC" = 2 -a -n "$(grep -F usage: <<<"$T_ERR")"

# zinflate, the inflater alone (the gzip bound's inflater CPU): zlib and ISA-L make the
# bytes gzip -d makes, from two members one after the other, and refuse a cut stream.
ZI=${STEPSCOPE_BUILD:-build}/perf/zinflate
seq 1 40000 >"$T_TMP/a.txt"
{ gzip -c "$T_TMP/a.txt"; gzip -c "$T_TMP/a.txt"; } >"$T_TMP/two.gz"
want=$(gzip -dc "$T_TMP/two.gz" | wc -c)
head -c 30000 "$T_TMP/two.gz" >"$T_TMP/cut.gz"
t_run "$ZI" "$T_TMP/two.gz"
t_ok "zinflate: zlib makes the bytes gzip -d makes" test "$T_RC" = 0 -a "$T_OUT" = "$want"
t_run "$ZI" "$T_TMP/cut.gz"
t_ok "zinflate: zlib refuses a cut stream" test "$T_RC" = 1 -a -n "$(grep -F 'not a complete gzip stream' <<<"$T_ERR")"
t_run "$ZI" --isal "$T_TMP/two.gz"
if [ "$T_RC" = 2 ]; then
  t_skip "zinflate --isal" "built without ISA-L"
else
  t_ok "zinflate --isal: ISA-L makes the bytes gzip -d makes" test "$T_RC" = 0 -a "$T_OUT" = "$want"
  t_run "$ZI" --isal "$T_TMP/cut.gz"
  t_ok "zinflate --isal: ISA-L refuses a cut stream" \
    test "$T_RC" = 1 -a -n "$(grep -F 'not a complete gzip stream' <<<"$T_ERR")"
fi
t_done
