# steps --summary (one line per step) and --steps RANGE (the steps numbered in it, the
# summaries over those; exit 1 when none is). Expected numbers computed here.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"

# Ten steps numbered 0..9 by ProfilerStep#N, step k lasting 100 + 10k us, one child
# "fwd" of 50 us, and k % 3 aten::item syncs of 5 us each.
python3 - "$W/t.json" <<'PY'
import json, sys
ev = []
for k in range(10):
    t = 1000 * k
    ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": t, "dur": 100 + 10 * k})
    ev.append({"ph": "X", "name": "fwd", "pid": 1, "tid": 1, "ts": t + 1, "dur": 50})
    for i in range(k % 3):
        ev.append({"ph": "X", "name": "aten::item", "pid": 1, "tid": 1, "ts": t + 60 + 6 * i, "dur": 5})
json.dump(ev, open(sys.argv[1], "w"))
PY

t_run "$STEPSCOPE" steps --summary "$W/t.json"
t_ok "steps --summary: one line per step with its syncs, then the summary" python3 - "$T_OUT" <<'PY'
import sys
out = sys.argv[1].splitlines()
rows = [l.split() for l in out if l[:8].strip().isdigit()]
assert [int(r[0]) for r in rows] == list(range(10)), out
for k, r in enumerate(rows):
    assert abs(float(r[2]) - (100 + 10 * k) / 1000) < 1e-9, r
    assert int(r[5]) == k % 3 and abs(float(r[6]) - 5 * (k % 3) / 1000) < 1e-9, r
    assert r[7] == "fwd", r
assert len(out) < 25 and not any("children across steps" in l for l in out), out
PY

t_run "$STEPSCOPE" steps --steps 3:5 --json "$W/t.json"
t_ok "steps --steps 3:5 --json: steps 3, 4, 5 and the summary over them" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [s["index"] for s in d["steps"]] == [3, 4, 5], [s["index"] for s in d["steps"]]
y = d["summary"]
assert y["steps"] == 3 and y["out_of_range"] == 7 and y["total_ns"] == sum((100 + 10 * k) * 1000 for k in (3, 4, 5)), y
assert [len(s["host_syncs"]) and s["host_syncs"][0]["count"] for s in d["steps"]] == [0, 1, 2]' "$T_OUT"

t_run "$STEPSCOPE" steps --steps 8.. --summary "$W/t.json"
t_ok "steps --steps 8..: an open range" python3 -c '
import sys
rows = [l.split()[0] for l in sys.argv[1].splitlines() if l[:8].strip().isdigit()]
assert rows == ["8", "9"], rows
assert "8 steps outside the range left out" in sys.argv[1]' "$T_OUT"

t_run "$STEPSCOPE" steps --steps 4 --json "$W/t.json"
t_ok "steps --steps 4: one step" python3 -c '
import json, sys
assert [s["index"] for s in json.loads(sys.argv[1])["steps"]] == [4]' "$T_OUT"

t_run "$STEPSCOPE" steps --steps 20:30 "$W/t.json"
t_ok "steps --steps matching no step: exit 1, said on stderr, nothing on stdout" \
  test "$T_RC" -eq 1 -a -z "$T_OUT" -a -n "$(grep 'none of the 10 steps' <<<"$T_ERR")"
t_run "$STEPSCOPE" steps --steps 5:2 "$W/t.json"
t_ok "steps --steps 5:2: a usage error (exit 2)" test "$T_RC" -eq 2
t_run "$STEPSCOPE" steps --steps 1:x "$W/t.json"
t_ok "steps --steps 1:x: a usage error naming what it expects" test "$T_RC" -eq 2 -a -n "$(grep 'FIRST:LAST' <<<"$T_ERR")"
t_run "$STEPSCOPE" steps --help
t_ok "steps --help lists --steps and --summary" test -n "$(grep -- '--summary' <<<"$T_OUT$T_ERR")" -a -n "$(grep -- '--steps RANGE' <<<"$T_OUT$T_ERR")"

# Profiler bookkeeping: Kineto's "PyTorch Profiler (0)" span on its own lane says when
# the profiler ran; it is left out of the other lanes (counted), unless --lanes names it.
python3 - "$W/k.json" <<'PY'
import json, sys
ev = [{"ph": "M", "name": "process_name", "pid": "Spans", "args": {"name": "Spans"}},
      {"ph": "X", "name": "PyTorch Profiler (0)", "pid": "Spans", "tid": "PyTorch Profiler", "ts": 0, "dur": 5000}]
for k in range(4):
    ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": 100 + 1000 * k, "dur": 900})
    ev.append({"ph": "X", "name": "kernel", "pid": 2, "tid": 7, "ts": 200 + 1000 * k, "dur": 300})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
t_run "$STEPSCOPE" steps --json "$W/k.json"
t_ok "steps: a bookkeeping-only lane is left out of the windows and counted" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["bookkeeping_lanes"] == 1, d["bookkeeping_lanes"]
assert [w["tid"] for w in d["window_lanes"]] == ["7"], d["window_lanes"]' "$T_OUT"
t_run "$STEPSCOPE" steps "$W/k.json"
t_ok "steps: the bookkeeping lane said in text" test -n "$(grep 'profiler bookkeeping only' <<<"$T_OUT")"
t_run "$STEPSCOPE" steps --json "$W/k.json" --lanes 'PyTorch Profiler'
t_ok "steps --lanes naming the bookkeeping lane keeps it" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["bookkeeping_lanes"] == 0 and [w["thread"] for w in d["window_lanes"]] == ["PyTorch Profiler"], d' "$T_OUT"

t_done
