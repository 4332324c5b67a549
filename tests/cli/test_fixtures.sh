# analyze / steps / slices on every real Chrome-JSON trace in the fixtures, checked
# against an independent Python reading of the same file (tests/tools/trace_facts.py):
# slice, clamped and overlap counts, per-name totals and self times, per-lane busy time,
# the step list, and every CSV row. Then lesson 3's contract on torch_lesson.json.
. "$(dirname "$0")/lib.sh"
FACTS="$(dirname "$0")/../tools/trace_facts.py"
FX=$(t_fixtures)
if [ -z "$FX" ] || [ ! -d "$FX/traces" ]; then
  t_skip "fixture traces" "no \$STEPSCOPE_FIXTURES/traces"
  exit 0
fi
if ! command -v python3 >/dev/null; then
  t_skip "fixture traces" "python3 not installed"
  exit 0
fi

n=0
for dir in chrome kineto torch-legacy; do
  for f in "$FX/traces/$dir"/*.json "$FX/traces/$dir"/*.json.gz; do
    [ -f "$f" ] || continue
    n=$((n + 1))
    label="$dir/$(basename "$f")"
    "$STEPSCOPE" analyze --json "$f" >"$T_TMP/a.json" 2>"$T_TMP/a.err"
    arc=$?
    "$STEPSCOPE" steps --json "$f" >"$T_TMP/s.json" 2>"$T_TMP/s.err"
    src=$?
    "$STEPSCOPE" slices --csv "$f" >"$T_TMP/c.csv" 2>"$T_TMP/c.err"
    crc=$?
    T_RC=$arc; T_OUT=""; T_ERR=$(cat "$T_TMP/a.err")
    t_ok "$label: analyze and slices exit 0" test "$arc" = 0 -a "$crc" = 0
    if [ "$src" = 1 ]; then
      T_RC=$src; T_ERR=$(cat "$T_TMP/s.err")
      t_ok "$label: steps says what it tried" grep -q "no steps found in .*; tried:" "$T_TMP/s.err"
    fi
    python3 "$FACTS" check "$f" --label "$label" --analyze "$T_TMP/a.json" \
      --steps "$T_TMP/s.json" --steps-rc "$src" --csv "$T_TMP/c.csv" || T_FAILS=$((T_FAILS + 1))
  done
done
[ "$n" -gt 0 ] || t_skip "fixture traces" "none found under $FX/traces"

# Lesson 3: four learner_step steps, each holding input_wait then model_and_wait; the
# unattributed remainder is >= 0 and summing step and children exceeds the step.
lesson="$FX/traces/torch-legacy/torch_lesson.json"
if [ -f "$lesson" ]; then
  t_run "$STEPSCOPE" steps --json "$lesson"
  printf '%s' "$T_OUT" >"$T_TMP/lesson.json"
  t_ok "lesson 3: steps exit 0" test "$T_RC" = 0
  t_ok "lesson 3: 4 learner_step steps, input_wait then model_and_wait, unattributed >= 0, step+children > step" \
    python3 - "$T_TMP/lesson.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
steps = d["steps"]
assert d["rule"] == "repeated-name", d["rule"]
assert len(steps) == 4, len(steps)
for s in steps:
    assert s["name"] == "learner_step", s["name"]
    names = list(s["children"])
    assert "input_wait" in names and "model_and_wait" in names, names
    assert names.index("input_wait") < names.index("model_and_wait"), names
    assert s["unattributed_ns"] >= 0, s
    assert s["unattributed_ns"] == s["dur_ns"] - sum(s["children"].values()), s
    assert s["naive_ns"] == s["dur_ns"] + sum(s["children"].values()) > s["dur_ns"], s
summ = d["summary"]
assert summ["naive_ns"] > summ["total_ns"] and summ["steps"] == 4
PY
  t_run "$STEPSCOPE" steps "$lesson"
  t_ok "lesson 3: human output names the rule and the double counting" \
    grep -q "WRONG as a total" <<<"$T_OUT"
else
  t_skip "lesson 3 contract" "torch-legacy/torch_lesson.json missing"
fi
t_done
