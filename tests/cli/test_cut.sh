# cut: every fixture cut at random windows (with lanes and names) round-trips through
# analyze and opens in Perfetto's trace_processor with its names and flows
# (tests/cli/cut_check.py); --steps against the steps' own times; the output's shape
# (gzip, --json, the description event, the completion record); every refusal.
. "$(dirname "$0")/lib.sh"
HERE="$(cd "$(dirname "$0")" && pwd)"
W="$T_TMP/w"
mkdir -p "$W"

# ---- a trace written here: three steps on the main thread, a worker, a flow ----------
python3 - "$W/t.json" <<'PY'
import json, sys
ev = [{"ph": "M", "name": "process_name", "pid": 7, "args": {"name": "trainer"}},
      {"ph": "M", "name": "thread_name", "pid": 7, "tid": 1, "args": {"name": "main"}},
      {"ph": "M", "name": "thread_name", "pid": 7, "tid": 2, "args": {"name": "worker"}}]
for k in range(3):
    t = 1000 * k
    ev.append({"ph": "X", "name": f"ProfilerStep#{5 + k}", "pid": 7, "tid": 1, "ts": t, "dur": 900})
    ev.append({"ph": "X", "name": "forward", "pid": 7, "tid": 1, "ts": t + 100, "dur": 500, "args": {"k": k}})
    ev.append({"ph": "X", "name": "tiny", "pid": 7, "tid": 1, "ts": t + 200, "dur": 3})
    ev.append({"ph": "X", "name": "load", "pid": 7, "tid": 2, "ts": t + 850, "dur": 300})
ev.append({"ph": "s", "name": "f", "cat": "c", "id": 1, "pid": 7, "tid": 1, "ts": 1150})
ev.append({"ph": "f", "name": "f", "cat": "c", "id": 1, "pid": 7, "tid": 2, "ts": 1900, "bp": "e"})
json.dump({"displayTimeUnit": "ms", "traceEvents": ev}, open(sys.argv[1], "w"))
PY

t_run "$STEPSCOPE" cut "$W/t.json" -o "$W/s.json.gz" --steps 6..7 --json
printf '%s' "$T_OUT" >"$W/stats.json"
t_ok "cut --steps 6..7: exit 0, gzip output" test "$T_RC" = 0 -a "$(head -c 2 "$W/s.json.gz" | od -An -tx1 | tr -d ' ')" = 1f8b
t_ok "cut --steps 6..7: the window is from step 6's start to step 7's end; what it wrote" python3 - "$W/stats.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["window"]["start_ns"] == 1000000 and d["window"]["end_ns"] == 2900000, d["window"]
assert d["window"]["first_step"] == 6 and d["window"]["last_step"] == 7
# steps 6, 7; forward x2, tiny x2, load x3 (the first and last cut), the flow inside
assert d["slices"] == 9 and d["cut_start"] == 1 and d["cut_end"] == 1, d
assert d["flows"] == 1 and d["flow_events"] == 2 and d["flows_left_out"] == 0, d
assert d["lanes"] == 2 and d["processes"] == 1 and d["lanes_chosen"] is None and d["name"] is None
PY
t_run "$STEPSCOPE" analyze -q --json "$W/s.json.gz"
printf '%s' "$T_OUT" >"$W/cut_an.json"
t_run "$STEPSCOPE" analyze -q --json --window 1000us:2900us "$W/t.json"
printf '%s' "$T_OUT" >"$W/win_an.json"
t_ok "analyze of the steps' cut equals analyze --window of the same time" python3 - "$W/cut_an.json" "$W/win_an.json" <<'PY'
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:])
assert a["names"] == b["names"], (a["names"], b["names"])
assert a["trace"]["busy_ns"] == b["trace"]["busy_ns"] == 1900000
load = [n for n in a["names"] if n["name"] == "load"][0]
assert load["count"] == 3 and load["total_ns"] == 150000 + 300000 + 50000, load
PY
python3 - "$W/s.json.gz" >"$W/layout.txt" <<'PY'
import gzip, json, sys
d = json.load(gzip.open(sys.argv[1]))
ev = d["traceEvents"]
print(d["displayTimeUnit"], d["stepscope_exact_times"], ev[0]["name"], ev[-1]["name"], ev[-1]["args"]["events"] == len(ev) - 2)
desc = [e for e in ev if e.get("name") == "stepscope.cut"][0]["args"]
print(desc["start_ns"], desc["end_ns"], desc["lanes"], desc["name"], desc["min_dur_ns"], desc["source"].endswith("t.json"))
names = {e["args"]["name"] for e in ev if e.get("ph") == "M" and e["name"] in ("process_name", "thread_name")}
print(sorted(names))
for e in ev:
    if e.get("name") == "load" and "stepscope_cut" in e.get("args", {}):
        print(e["ts"], e["dur"], json.dumps(e["args"]["stepscope_cut"], sort_keys=True))
PY
t_ok "the cut keeps the time unit, names, the description and the completion record; marks its cuts" diff - "$W/layout.txt" <<'TXT'
ms True stepscope.file stepscope.complete True
1000000 2900000 None None 0 True
['main', 'trainer', 'worker']
1000.0 150.0 {"at": "start", "dur_ns": 300000, "ts_ns": 850000}
2850.0 50.0 {"at": "end", "dur_ns": 300000, "ts_ns": 2850000}
TXT

t_run "$STEPSCOPE" cut "$W/t.json" -o "$W/l.json" --lanes worker --min-dur 5us --name 'load|forward' --json
t_ok "cut --lanes --name --min-dur: only the worker's loads" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["lanes_chosen"] == 1 and d["name"] == "load|forward" and d["min_dur_ns"] == 5000, d
assert d["slices"] == 3 and d["lanes"] == 1 and d["flows"] == 0 and d["flows_left_out"] == 1, d
' "$T_OUT"
t_run "$STEPSCOPE" cut "$W/t.json" -o "$W/m.json" --min-dur 5us --json
t_ok "cut --min-dur 5us: the 3 us slices are left out and counted" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["short_left_out"] == 3 and d["slices"] == 9, d
' "$T_OUT"
t_run "$STEPSCOPE" cut "$W/t.json" -o "$W/txt.json" --window 0.5ms:1.5ms
t_ok "text output: the window, what was cut and marked, the flow left out" python3 -c '
import sys
t = sys.argv[1]
assert "window      500 \u00b5s to 1.50 ms after the trace" in t, t
assert "2 cut at the window\x27s start, 2 at its end" in t, t
assert "flows       0 kept, 1 left out" in t, t  # its f lies after the window
' "$T_OUT"

# ---- refusals ---------------------------------------------------------------------------
refuse() { # NAME RC PATTERN ARGS...
  local name=$1 rc=$2 pat=$3
  shift 3
  t_run "$STEPSCOPE" cut "$@"
  t_ok "refused: $name (exit $rc, says so)" eval '[ "$T_RC" = "$rc" ] && printf "%s" "$T_ERR" | grep -q -- "$pat"'
}
refuse "no -o" 2 "-o OUT is required" "$W/t.json"
refuse "-o names the input" 2 "names the input trace" "$W/t.json" -o "$W/t.json"
ln -s t.json "$W/link.json"
refuse "-o is a link to the input" 2 "names the input trace" "$W/t.json" -o "$W/link.json"
refuse "an XSpace output name" 2 "the cut is Chrome JSON" "$W/t.json" -o "$W/x.xplane.pb"
refuse "-o -" 2 "expects a file name" "$W/t.json" -o -
refuse "an output directory that does not exist" 1 "cannot write in $W/nope" "$W/t.json" -o "$W/nope/c.json"
mkdir -p "$W/ro"
chmod 555 "$W/ro"
if [ -w "$W/ro" ]; then
  t_skip "refused: an unwritable output directory" "running as root: every directory is writable"
else
  refuse "an unwritable output directory" 1 "cannot write in $W/ro: Permission denied" "$W/t.json" -o "$W/ro/c.json"
fi
refuse "-o names a directory" 1 "is a directory" "$W/t.json" -o "$W"
refuse "-o under a file (the writer's own error)" 1 "t.json/c.json: cannot open for writing: .*Not a directory" "$W/t.json" -o "$W/t.json/c.json"
refuse "a window after the trace" 1 "lies outside .*span 0 to 3.15 ms" "$W/t.json" -o "$W/c.json" --window 5ms:6ms
refuse "a window before the trace" 1 "lies outside" "$W/t.json" -o "$W/c.json" --window=-2ms:-1ms
refuse "an empty window" 2 "is empty" "$W/t.json" -o "$W/c.json" --window 1ms:1ms
refuse "a backwards window" 2 "is empty" "$W/t.json" -o "$W/c.json" --window 2ms:1ms
refuse "a window that is not one" 2 "expects START:END" "$W/t.json" -o "$W/c.json" --window 12
refuse "a window holding nothing of the lanes" 1 "nothing to cut" "$W/t.json" -o "$W/c.json" --window 0.95ms:1ms --lanes main
refuse "a step that does not exist" 1 "there is no step 9; the steps are numbered 5 to 7" "$W/t.json" -o "$W/c.json" --steps 5..9
t_ok "  ... and says which step is nearest" eval 'printf "%s" "$T_ERR" | grep -q "did you mean 7?"'
refuse "steps backwards" 2 "the first step comes after the last" "$W/t.json" -o "$W/c.json" --steps 7..5
refuse "steps that are not numbers" 2 "expects a step number N or a range" "$W/t.json" -o "$W/c.json" --steps a..b
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":5}]' >"$W/nosteps.json"
refuse "steps in a trace without steps" 1 "no steps found .*tried" "$W/nosteps.json" -o "$W/c.json" --steps 1
refuse "--window with --steps" 2 "not both" "$W/t.json" -o "$W/c.json" --steps 5 --window 0:1ms
refuse "--step without --steps" 2 "give --steps" "$W/t.json" -o "$W/c.json" --step ProfilerStep
refuse "a bad --min-dur" 2 "expects a duration" "$W/t.json" -o "$W/c.json" --min-dur 5parsecs
refuse "a name no slice has" 1 "no slice name of .* matches 'fowrard'" "$W/t.json" -o "$W/c.json" --name fowrard
t_ok "  ... and says which it may be" eval 'printf "%s" "$T_ERR" | grep -q "did you mean .forward."'
refuse "a name not in the window" 1 "nothing to cut: no slice named 'load'" "$W/t.json" -o "$W/c.json" --name load --window 0:0.5ms
refuse "lanes no lane has" 1 "no lane of .* matches 'wroker'" "$W/t.json" -o "$W/c.json" --lanes wroker
refuse "an input that is no trace" 1 "layout.txt" "$W/layout.txt" -o "$W/c.json"
t_ok "nothing is left behind by a refusal" test ! -e "$W/c.json" -a ! -e "$W/nope"
printf 'keep' >"$W/old.json"
t_run "$STEPSCOPE" cut "$W/t.json" -o "$W/old.json" --window 5ms:6ms
t_ok "a refused cut leaves an existing output as it was" test "$T_RC" = 1 -a "$(cat "$W/old.json")" = keep
chmod 755 "$W/ro"

# ---- every fixture, random windows, through analyze and trace_processor -------------------
FX=$(t_fixtures)
TP=${STEPSCOPE_TRACE_PROCESSOR:-}
if [ -z "$TP" ]; then
  for cand in "${FX:+$FX/../tools/trace_processor_shell}" "$HERE/../../../shared/tools/trace_processor_shell"; do
    [ -n "$cand" ] && [ -x "$cand" ] && TP=$cand && break
  done
fi
tp_args=()
if [ -n "$TP" ] && printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]' >"$W/probe.json" &&
   printf 'select count(*) from slice;\n' >"$W/probe.sql" &&
   "$TP" -q "$W/probe.sql" "$W/probe.json" >/dev/null 2>&1; then
  tp_args=(--tp "$TP")
else
  t_skip "cut: trace_processor opens every cut" "no trace_processor_shell that runs here (../shared/tools)"
fi
if [ -n "$FX" ] && [ -d "$FX/traces" ]; then
  files=()
  for f in "$FX"/traces/*/*.json "$FX"/traces/*/*.json.gz "$FX"/traces/*/*.xplane.pb; do
    [ -f "$f" ] && files+=("$f")
  done
  mkdir -p "$W/rt"
  # Under the sanitizers fewer windows and no trace_processor: the round trip's code
  # paths are the same, and test_write_cut covers them over random traces.
  windows=6
  [ -n "${STEPSCOPE_SANITIZED:-}" ] && windows=2 && tp_args=()
  python3 "$HERE/cut_check.py" "$STEPSCOPE" "$W/rt" "${tp_args[@]}" --windows "$windows" "${files[@]}"
  t_ok "cut: every fixture round-trips through analyze${tp_args:+ and opens in trace_processor}" test $? = 0
else
  t_skip "cut: every fixture round-trips" "no \$STEPSCOPE_FIXTURES/traces"
fi
t_done
