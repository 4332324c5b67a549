# steps: children on any track, mean and standard deviation, partial steps, XProf's
# view, and each step's window on the other lanes (--lanes, --names, --json).
# Expected numbers are computed here from the trace written here.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"

# Seven steps on the main thread, 100 us apart, each 40 + 5k us long. Inside each: a
# child; a frame that crosses the step's end (not a child); a worker thread and a
# device stream busy during the steps; the first step starts the trace.
python3 - "$W/t.json" <<'PY'
import json, sys
ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "tf_XLAEigen/1"}},
      {"ph": "M", "name": "thread_name", "pid": 2, "tid": 5, "args": {"name": "stream 5"}}]
for k in range(7):
    t = 100 * k
    ev.append({"ph": "X", "name": "train_step", "pid": 1, "tid": 1, "ts": t, "dur": 40 + 5 * k, "args": {"step_num": 10 + k}})
    ev.append({"ph": "X", "name": "forward", "pid": 1, "tid": 1, "ts": t + 2, "dur": 20})
    ev.append({"ph": "X", "name": "tail", "pid": 1, "tid": 1, "ts": t + 30, "dur": 30 + 5 * k})
    ev.append({"ph": "X", "name": "dot", "pid": 1, "tid": 2, "ts": t + 5, "dur": 10})
    ev.append({"ph": "X", "name": "tanh", "pid": 1, "tid": 2, "ts": t + 12, "dur": 6})
    ev.append({"ph": "X", "name": "kernel", "pid": 2, "tid": 5, "ts": t + 20, "dur": 30})
ev.append({"ph": "X", "name": "late", "pid": 2, "tid": 5, "ts": 800, "dur": 10})
json.dump(ev, open(sys.argv[1], "w"))
PY

t_run "$STEPSCOPE" steps --json "$W/t.json"
printf '%s' "$T_OUT" >"$W/s.json"
t_ok "steps --json: 7 steps numbered by step_num, mean and sample std dev over them" python3 - "$W/s.json" <<'PY'
import json, statistics, sys
d = json.load(open(sys.argv[1]))
s = d["steps"]
durs = [(40 + 5 * k) * 1000 for k in range(7)]
assert [x["index"] for x in s] == list(range(10, 17)) and [x["dur_ns"] for x in s] == durs
y = d["summary"]
assert y["mean_ns"] == statistics.mean(durs), y
assert abs(y["stddev_ns"] - statistics.stdev(durs)) < 1e-6, (y["stddev_ns"], statistics.stdev(durs))
assert y["dropped"] == 0 and d["xprof_view"] is False
PY
t_ok "children: the slice inside each step; the one crossing its end is not a child" python3 - "$W/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for x in d["steps"]:
    assert x["children"] == {"forward": 20000}, x["children"]
    assert x["children_ns"] + x["unattributed_ns"] == x["dur_ns"] and x["unattributed_ns"] >= 0
    assert x["naive_ns"] == x["dur_ns"] + 20000
PY
t_ok "partial steps: the first starts the trace" python3 - "$W/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
s = d["steps"]
assert s[0]["partial"] and s[0]["partial_reasons"] == ["at_trace_start"], s[0]
assert not any(x["partial"] for x in s[1:]) and d["summary"]["partial"] == 1
PY
t_ok "windows: busy time and names on the worker and the stream, inside each step" python3 - "$W/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for k, x in enumerate(d["steps"]):
    t0, t1 = x["ts_ns"], x["ts_ns"] + x["dur_ns"]
    w = {l["thread"]: l for l in x["windows"]}
    assert set(w) == {"tf_XLAEigen/1", "stream 5"}, w.keys()
    # the worker: dot [5, 15) and tanh [12, 18) us: union 13 us; tanh started last, so it has [12, 18)
    assert w["tf_XLAEigen/1"]["busy_ns"] == 13000, w
    assert w["tf_XLAEigen/1"]["names"] == [{"name": "dot", "ns": 7000}, {"name": "tanh", "ns": 6000}], w
    # the stream: kernel [20, 50) us cut to the step's end
    want = min(t0 + 50000, t1) - (t0 + 20000)
    assert w["stream 5"]["busy_ns"] == want and w["stream 5"]["names"] == [{"name": "kernel", "ns": want}], w
    assert all(l["busy_ns"] <= x["dur_ns"] for l in x["windows"])
lanes = {l["thread"]: l for l in d["window_lanes"]}
assert lanes["tf_XLAEigen/1"]["steps"] == 7 and lanes["tf_XLAEigen/1"]["total_ns"] == 7 * 13000
PY

t_run "$STEPSCOPE" steps --json "$W/t.json" --lanes stream --names 1
t_ok "--lanes keeps only those lanes' windows; --names 1 keeps the longest name" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
for x in d["steps"]:
    assert [w["thread"] for w in x["windows"]] == ["stream 5"], x["windows"]
    assert len(x["windows"][0]["names"]) == 1
' "$T_OUT"
t_run "$STEPSCOPE" steps "$W/t.json" --lanes nothing_like_it
t_ok "--lanes with no match exits 1" test "$T_RC" = 1 -a -n "$(grep -F "no lane of" <<<"$T_ERR")"
t_run "$STEPSCOPE" steps "$W/t.json" --names -1
t_ok "--names -1 is a usage error" test "$T_RC" = 2

t_run "$STEPSCOPE" steps --json "$W/t.json" --xprof
t_ok "--xprof: XProf's overview view leaves out the first and last of 7 steps" python3 -c '
import json, statistics, sys
d = json.loads(sys.argv[1])
s = d["steps"]
assert [x["index"] for x in s] == list(range(11, 16)) and d["summary"]["dropped"] == 2 and d["xprof_view"]
durs = [(40 + 5 * k) * 1000 for k in range(1, 6)]
assert d["summary"]["steps"] == 5 and d["summary"]["mean_ns"] == statistics.mean(durs)
assert abs(d["summary"]["stddev_ns"] - statistics.stdev(durs)) < 1e-6
' "$T_OUT"

t_run "$STEPSCOPE" steps "$W/t.json"
t_ok "text: the step-number column is labelled step" grep -qE "^ +step +start \(ms\)" <<<"$T_OUT"
t_ok "text: mean and std dev beside min, median and max" \
  grep -qE "^steps: +7, .*mean 0\.055 ms, std dev 0\.011 ms; min 0\.040, median 0\.055, max 0\.070 ms" <<<"$T_OUT"
t_ok "text: the partial step is marked and explained" \
  test -n "$(grep -E "^ +10 .*partial\? at the trace's start" <<<"$T_OUT")" -a -n "$(grep "1 step may be partial" <<<"$T_OUT")"
t_ok "text: says XProf leaves out the first and last step and how to see that" grep -q -- "--xprof shows that view" <<<"$T_OUT"
t_ok "text: each step shows the other lanes busy during it" \
  test "$(grep -cF "tf_XLAEigen/1 (pid 1): busy $(t_dur 13000)" <<<"$T_OUT")" = 7
t_ok "text: the lanes across steps" grep -qE "^  stream 5 +\(pid 2\) +7 " <<<"$T_OUT"

# One step: the standard deviation is unknown, not 0.
printf '[{"ph":"X","name":"s","pid":1,"tid":1,"ts":0,"dur":10},{"ph":"X","name":"c","pid":1,"tid":1,"ts":1,"dur":2}]' >"$W/one.json"
t_run "$STEPSCOPE" steps --json "$W/one.json" --step s
t_ok "one step: stddev_ns is null" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["summary"]["stddev_ns"] is None and d["summary"]["mean_ns"] == 10000
' "$T_OUT"
t_run "$STEPSCOPE" steps "$W/one.json" --step s
t_ok "one step: text says the std dev is unknown" grep -q "std dev unknown" <<<"$T_OUT"

# An unclosed B step is partial; a spilled step (crossing its parent) keeps its children.
cat >"$W/spill.json" <<'JSON'
[
 {"ph": "X", "name": "frame", "pid": 1, "tid": 1, "ts": 0, "dur": 10},
 {"ph": "X", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 5, "dur": 50},
 {"ph": "X", "name": "run_action", "pid": 1, "tid": 1, "ts": 12, "dur": 30},
 {"ph": "X", "name": "inner", "pid": 1, "tid": 1, "ts": 14, "dur": 3},
 {"ph": "B", "name": "ProfilerStep#4", "pid": 1, "tid": 1, "ts": 60},
 {"ph": "X", "name": "run_action", "pid": 1, "tid": 1, "ts": 61, "dur": 5}
]
JSON
t_run "$STEPSCOPE" steps --json "$W/spill.json"
t_ok "a step that overran the frame it started in keeps its children; an unclosed one is partial" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
s = d["steps"]
assert [x["index"] for x in s] == [3, 4], s
assert s[0]["children"] == {"run_action": 30000} and s[0]["unattributed_ns"] == 20000, s[0]
assert s[1]["partial"] and "unclosed" in s[1]["partial_reasons"], s[1]
' "$T_OUT"
t_done
