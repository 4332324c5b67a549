# XSpace (.xplane.pb) input through the CLI: the real JAX fixtures give the same
# per-line event counts and kernel time as an independent decode by protoc
# (tests/cli/xplane_protoc_summary.py); gzip input reads the same; damaged files fail
# with exit 1 and a message naming the file, the byte offset and the field.
. "$(dirname "$0")/lib.sh"

FX=$(t_fixtures)
HAVE_TOOLS=1
command -v protoc >/dev/null 2>&1 && command -v python3 >/dev/null 2>&1 || HAVE_TOOLS=0
SUMMARY="$(dirname "$0")/xplane_protoc_summary.py"

# Per line id: "tid count total_ns" from `stepscope slices` CSV (name may hold commas,
# but pid, tid, ts, dur come first).
per_tid_from_csv() {
  awk -F, 'NR > 1 { n[$2]++; d[$2] += $4 } END { for (t in n) printf "%s %d %.0f\n", t, n[t], d[t] }' "$1" | sort
}

per_tid_from_summary() {
  awk -F'\t' '$1 == "line" { print $3, $5, $6 }' "$1" | sort
}

t_run "$STEPSCOPE" slices --help
if [ "$T_RC" != 0 ]; then
  t_skip "xplane via the CLI" "stepscope slices is not built yet"
  t_done
  exit $?
fi

for name in conv_mi300_8gpu te_fused_attn; do
  f="$FX/traces/jax/$name.xplane.pb"
  if [ -z "$FX" ] || [ ! -f "$f" ]; then
    t_skip "xplane $name" "fixture missing (set STEPSCOPE_FIXTURES)"
    continue
  fi
  t_run "$STEPSCOPE" slices "$f"
  printf '%s\n' "$T_OUT" >"$T_TMP/$name.csv"
  t_ok "slices reads $name.xplane.pb" test "$T_RC" = 0
  if [ "$HAVE_TOOLS" = 1 ]; then
    python3 "$SUMMARY" "$f" >"$T_TMP/$name.sum"
    per_tid_from_csv "$T_TMP/$name.csv" >"$T_TMP/$name.ours"
    per_tid_from_summary "$T_TMP/$name.sum" >"$T_TMP/$name.theirs"
    t_ok "$name: events and busy ns per line match protoc" \
      cmp -s "$T_TMP/$name.ours" "$T_TMP/$name.theirs"
    total=$(awk -F'\t' '$1 == "events" { print $2 }' "$T_TMP/$name.sum")
    t_ok "$name: $total events in all" test "$(($(wc -l <"$T_TMP/$name.csv") - 1))" = "$total"
  else
    t_skip "$name vs protoc" "protoc or python3 missing"
  fi
  gzip -c "$f" >"$T_TMP/$name.xplane.pb.gz"
  t_run "$STEPSCOPE" slices "$T_TMP/$name.xplane.pb.gz"
  t_ok "$name: gzip input gives the same slices" test "$T_RC" = 0 -a "$T_OUT" = "$(cat "$T_TMP/$name.csv")"
  t_run "$STEPSCOPE" analyze "$f"
  t_ok "analyze reads $name.xplane.pb" test "$T_RC" = 0
done

# Damaged inputs: a cut file, a length past its enclosing message, not a protobuf.
if [ -n "$FX" ] && [ -f "$FX/traces/jax/te_fused_attn.xplane.pb" ]; then
  head -c 5000 "$FX/traces/jax/te_fused_attn.xplane.pb" >"$T_TMP/cut.xplane.pb"
  t_run "$STEPSCOPE" analyze "$T_TMP/cut.xplane.pb"
  t_ok "a cut file is bad input (exit 1)" test "$T_RC" = 1
  t_ok "a cut file names file, byte and field" \
    sh -c 'printf "%s" "$1" | grep -q "cut.xplane.pb: byte [0-9]*: length [0-9]* of field 1 (XSpace.planes) runs past the end of the file (size 5000)"' _ "$T_ERR"
fi
# A plane (field 1, 15 bytes) whose line claims 9 bytes: past the plane, not the file.
printf '\012\017\022\011/host:CPU\032\011\010\001\042\004host' >"$T_TMP/overrun.xplane.pb"
t_run "$STEPSCOPE" analyze "$T_TMP/overrun.xplane.pb"
t_ok "a line overrunning its plane is bad input" test "$T_RC" = 1
t_ok "the message names XPlane.lines and the plane's end" \
  sh -c 'printf "%s" "$1" | grep -q "byte 13: length 9 of field 3 (XPlane.lines) runs past the end of its enclosing XPlane message (which ends at byte 17)"' _ "$T_ERR"
printf '\013\000\001' >"$T_TMP/group.xplane.pb"
t_run "$STEPSCOPE" analyze "$T_TMP/group.xplane.pb"
t_ok "a wire type protobuf 3 never uses is bad input" test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'wire type 3')"
t_done
