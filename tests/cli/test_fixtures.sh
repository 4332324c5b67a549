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
    # --no-group: the facts are per exact name (the numbered names' rows are checked below)
    "$STEPSCOPE" analyze --json --no-group "$f" >"$T_TMP/a.json" 2>"$T_TMP/a.err"
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
    t_ok "$label: no name has a negative self time" python3 -c '
import json, sys
bad = [n for n in json.load(open(sys.argv[1]))["names"] if n["self_ns"] < 0]
assert not bad, bad[:3]
' "$T_TMP/a.json"
    "$STEPSCOPE" analyze --json --no-group --args known "$f" 2>/dev/null | sed '/args_kept/d' >"$T_TMP/ak.json"
    "$STEPSCOPE" steps --json --args known "$f" >"$T_TMP/sk.json" 2>/dev/null
    t_ok "$label: analyze and steps print the same with --args known (the default keeps only what they read)" \
      test "$(sed '/args_kept/d' "$T_TMP/a.json")" = "$(cat "$T_TMP/ak.json")" -a \
      "$(cat "$T_TMP/s.json")" = "$(cat "$T_TMP/sk.json")"
    "$STEPSCOPE" analyze --json "$f" >"$T_TMP/ag.json" 2>/dev/null
    t_ok "$label: by default numbered names (PREFIX#DIGITS, two or more) are one row PREFIX#N, the sums of theirs" \
      python3 - "$T_TMP/a.json" "$T_TMP/ag.json" <<'PY'
import json, re, sys, collections
exact, grouped = (json.load(open(p))["names"] for p in sys.argv[1:3])
pre = collections.defaultdict(list)
for n in exact:
    m = re.fullmatch(r"(.+)#[0-9]+", n["name"])
    if m:
        pre[m.group(1)].append(n)
want = {}
for p, rows in pre.items():
    if len(rows) >= 2:
        want[p + "#N"] = (sum(r["count"] for r in rows), sum(r["total_ns"] for r in rows),
                          sum(r["self_ns"] for r in rows), min(r["min_ns"] for r in rows), max(r["max_ns"] for r in rows))
got = {n["name"]: (n["count"], n["total_ns"], n["self_ns"], n["min_ns"], n["max_ns"]) for n in grouped if n.get("by") == "numbered"}
assert got == want, (got, want)
members = {r["name"] for p in pre for r in pre[p] if len(pre[p]) >= 2}
assert len(grouped) == len(exact) - len(members) + len(want), (len(grouped), len(exact), len(members), len(want))
PY
    python3 "$FACTS" check "$f" --label "$label" --analyze "$T_TMP/a.json" \
      --steps "$T_TMP/s.json" --steps-rc "$src" --csv "$T_TMP/c.csv" || T_FAILS=$((T_FAILS + 1))
  done
done
[ "$n" -gt 0 ] || t_skip "fixture traces" "none found under $FX/traces"

# JAX's XPlane files: no negative self time either; steps see the device lanes.
for f in "$FX/traces/jax"/*.xplane.pb; do
  [ -f "$f" ] || continue
  label="jax/$(basename "$f")"
  t_run "$STEPSCOPE" analyze --json "$f" --group hlo_op --args known
  known_out=$(sed '/args_kept/d' <<<"$T_OUT")
  t_run "$STEPSCOPE" analyze --json "$f" --group hlo_op
  t_ok "$label: analyze --group hlo_op prints the same with --args known" \
    test "$T_RC" = 0 -a "$(sed '/args_kept/d' <<<"$T_OUT")" = "$known_out"
  t_run "$STEPSCOPE" analyze --json "$f"
  t_ok "$label: no name has a negative self time" python3 -c '
import json, sys
bad = [n for n in json.loads(sys.argv[1])["names"] if n["self_ns"] < 0]
assert not bad, bad[:3]
' "$T_OUT"
  t_run "$STEPSCOPE" steps --json "$f"
  t_ok "$label: the steps see the device ops (windows on /device: lanes, each inside its step)" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["steps"], "no steps"
dev = [(s, w) for s in d["steps"] for w in s["windows"] if w["process"].startswith("/device:")]
assert dev and all(0 < w["busy_ns"] <= s["dur_ns"] and w["names"] for s, w in dev), dev[:1]
# Every step longer than 1 ms (these runs keep the GPUs fed) sees a device lane busy.
for s in d["steps"]:
    if s["dur_ns"] > 1000000:
        assert any(w["process"].startswith("/device:") for w in s["windows"]), s["index"]
' "$T_OUT"
done

# kineto/h100_bert_small.json.gz: ProfilerStep#6 starts inside a Python frame and ends
# inside the next one, all within run_torch_profiler.
h100="$FX/traces/kineto/h100_bert_small.json.gz"
if [ -f "$h100" ]; then
  "$STEPSCOPE" analyze --json "$h100" >"$T_TMP/h.json"
  "$STEPSCOPE" slices --csv "$h100" >"$T_TMP/h.csv"
  t_ok "h100_bert_small: run_torch_profiler's self time is its duration minus the union of what lies inside it" \
    python3 - "$T_TMP/h.json" "$T_TMP/h.csv" <<'PY'
import csv, json, sys
name = "moca/library/profiling/profile.py(34): run_torch_profiler"
rows = list(csv.DictReader(open(sys.argv[2], newline="", encoding="utf-8")))
mine = [r for r in rows if r["name"] == name]
assert len(mine) == 1, len(mine)
r = mine[0]
ts, end = int(r["ts_ns"]), int(r["ts_ns"]) + int(r["dur_ns"])
# Everything else on its thread that starts inside it and ends by its end, merged.
inner = sorted((int(o["ts_ns"]), int(o["ts_ns"]) + int(o["dur_ns"])) for o in rows
               if (o["pid"], o["tid"]) == (r["pid"], r["tid"]) and o is not r
               and ts <= int(o["ts_ns"]) < end and int(o["ts_ns"]) + int(o["dur_ns"]) <= end)
covered, lo, hi = 0, None, None
for a, b in inner:
    if hi is None or a > hi:
        covered += (hi - lo) if hi is not None else 0
        lo, hi = a, b
    else:
        hi = max(hi, b)
covered += (hi - lo) if hi is not None else 0
want = (end - ts) - covered
got = [n["self_ns"] for n in json.load(open(sys.argv[1]))["names"] if n["name"] == name]
assert got == [want] and want >= 0, (got, want)
PY
  t_run "$STEPSCOPE" steps --json "$h100"
  t_ok "h100_bert_small: the step keeps run_action as a child, and sees the GPU stream" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = d["steps"]
assert len(s) == 1 and s[0]["name"] == "ProfilerStep#6", [x["name"] for x in s]
assert "moca/library/model_hub/entry_point.py(106): run_action" in s[0]["children"], list(s[0]["children"])
assert s[0]["unattributed_ns"] >= 0
gpu = [w for w in s[0]["windows"] if w["thread"].startswith("stream")]
assert gpu and gpu[0]["busy_ns"] > 0, s[0]["windows"]
' "$T_OUT"
else
  t_skip "h100_bert_small" "kineto/h100_bert_small.json.gz missing"
fi

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
