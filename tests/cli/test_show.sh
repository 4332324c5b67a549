# show: a bench result as a table for people; what it lacks is "unknown"; a file that
# is no bench result is refused naming it.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"
printf '%s' '{"name": "mlp", "first_call_seconds": 0.5, "warm_samples_seconds": [0.001, 0.003, 0.002],
  "warm_median_seconds": 0.002, "boundary": "call plus output synchronization",
  "check": {"checked": true, "passed": true}}' >"$W/b.json"
t_run "$STEPSCOPE" show "$W/b.json"
t_ok "show: first call, warm median, min, max and count from the samples; no dispatch given is unknown" python3 - "$T_OUT" <<'PY'
import sys
rows = [l.split() for l in sys.argv[1].splitlines()]
mlp = next(r for r in rows if r and r[0] == "mlp")
assert mlp[1:] == ["500", "ms", "2", "ms", "1", "ms", "3", "ms", "3", "unknown", "passed"], mlp
assert "boundary: call plus output synchronization" in sys.argv[1]
PY
printf '{"x": 1}' >"$W/bad.json"
t_run "$STEPSCOPE" show "$W/bad.json"
t_ok "show: no bench result, exit 1 naming the file" test "$T_RC" -eq 1 -a -n "$(grep -F "bad.json" <<<"$T_ERR")"
t_run "$STEPSCOPE" show "$W/none.json"
t_ok "show: a missing file, exit 1 naming it" test "$T_RC" -eq 1 -a -n "$(grep -F "none.json" <<<"$T_ERR")"
t_done
