# Host syncs found in a trace (docs/host-syncs.md): per step their count, the host's
# wait and the slice they were called from, in steps --json and text. The expected
# numbers are computed here from the trace written here.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"

# Four steps on the main thread, 10 ms apart. In step k: k+1 JAX `_value` reads inside
# log_loss, one `__float__` holding a `_value` (one sync, not two), a `_value` of another
# file (no sync); on a worker thread two `aten::item`, each holding
# `aten::_local_scalar_dense` and `cudaStreamSynchronize` (one sync each). Step 0 also has a
# root cudaDeviceSynchronize (no enclosing slice); one aten::item lies after the steps.
python3 - "$W/t.json" <<'PY'
import json, sys
ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
      {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "worker"}}]
def x(name, tid, ts, dur):
    ev.append({"ph": "X", "name": name, "pid": 1, "tid": tid, "ts": ts, "dur": dur})
for k in range(4):
    t = 10000 * k
    x("ProfilerStep#%d" % k, 1, t, 9000)
    x("$train.py:78 log_loss", 1, t + 100, 4000)
    for i in range(k + 1):
        x("$array.py:615 _value", 1, t + 200 + 300 * i, 100 + 10 * i)
    x("$array.py:640 __float__", 1, t + 3000, 30)
    x("$array.py:615 _value", 1, t + 3005, 20)
    x("$model.py:5 _value", 1, t + 3500, 50)
    x("log_metrics", 2, t + 5000, 3000)
    for i in range(2):
        s = t + 5100 + 1000 * i
        x("aten::item", 2, s, 50 + k)
        x("aten::_local_scalar_dense", 2, s + 1, 40)
        x("cudaStreamSynchronize", 2, s + 2, 30)
    if k == 0:
        x("cudaDeviceSynchronize", 2, t + 8500, 200)
x("aten::item", 2, 45000, 10)
json.dump(ev, open(sys.argv[1], "w"))
PY

t_run "$STEPSCOPE" steps --json "$W/t.json"
printf '%s' "$T_OUT" >"$W/s.json"
t_ok "steps --json: each step's host syncs by rule and enclosing slice, counts and waits from the trace" python3 - "$W/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert len(d["steps"]) == 4, len(d["steps"])
assert d["host_syncs_outside_steps"] == 1, d["host_syncs_outside_steps"]
for k, s in enumerate(d["steps"]):
    got = {(h["name"], h["where"]): (h["count"], h["wait_ns"]) for h in s["host_syncs"]}
    want = {("_value", "$train.py:78 log_loss"): (k + 1, sum((100 + 10 * i) * 1000 for i in range(k + 1))),
            ("__float__", "$train.py:78 log_loss"): (1, 30000),
            ("aten::item", "log_metrics"): (2, 2 * (50 + k) * 1000)}
    if k == 0:
        want[("cudaDeviceSynchronize", None)] = (1, 200000)
    assert got == want, (k, got, want)
    waits = [h["wait_ns"] for h in s["host_syncs"]]
    assert waits == sorted(waits, reverse=True), waits
PY

t_run "$STEPSCOPE" steps "$W/t.json"
t_ok "steps: a host-sync line per step and the total" python3 - "$T_OUT" <<'PY'
import sys
out = sys.argv[1]
lines = [l for l in out.splitlines() if l.lstrip().startswith("host syncs: ") and l.startswith(" ")]
assert len(lines) == 4, out
total = sum(k + 1 + 1 + 2 for k in range(4)) + 1
assert ("host syncs:    %d in 4 of 4 steps" % total) in out, out
assert "1 more outside the steps" in out, out
assert "in $train.py:78 log_loss" in out and "(enclosing slice unknown)" in out, out
PY

# analyze: the same syncs over the whole trace (the one after the steps too), narrowed by
# --window and --lane as the rest of analyze is.
t_run "$STEPSCOPE" analyze --json "$W/t.json"
printf '%s' "$T_OUT" >"$W/a.json"
t_ok "analyze --json: the trace's host syncs by rule and enclosing slice, and their total" python3 - "$W/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
got = {(h["name"], h["where"]): (h["count"], h["wait_ns"]) for h in d["host_syncs"]}
want = {("_value", "$train.py:78 log_loss"): (10, sum(sum((100 + 10 * i) * 1000 for i in range(k + 1)) for k in range(4))),
        ("__float__", "$train.py:78 log_loss"): (4, 4 * 30000),
        ("aten::item", "log_metrics"): (8, sum(2 * (50 + k) * 1000 for k in range(4))),
        ("cudaDeviceSynchronize", None): (1, 200000),
        ("aten::item", None): (1, 10000)}
assert got == want, (got, want)
assert d["host_syncs_total"] == {"count": sum(c for c, _ in want.values()), "wait_ns": sum(w for _, w in want.values())}, d["host_syncs_total"]
PY
t_run "$STEPSCOPE" analyze --json "$W/t.json" --window 0:10ms --lane worker
t_ok "analyze --json --window --lane: only step 0's syncs of the worker lane" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
got = sorted((h["name"], h["count"], h["wait_ns"]) for h in d["host_syncs"])
assert got == [("aten::item", 2, 100000), ("cudaDeviceSynchronize", 1, 200000)], got' "$T_OUT"
t_run "$STEPSCOPE" analyze "$W/t.json"
t_ok "analyze: one host-sync line, the count and wait of the JSON" python3 - "$T_OUT" "$W/a.json" <<'PY'
import json, sys
out, d = sys.argv[1], json.load(open(sys.argv[2]))
lines = [l for l in out.splitlines() if l.startswith("host syncs  ")]
assert len(lines) == 1, out
assert lines[0].startswith("host syncs  %d, the host waited " % d["host_syncs_total"]["count"]), lines
assert "_value x10" in lines[0] and "in $train.py:78 log_loss" in lines[0], lines
PY

# A trace without syncs says none were found rather than 0 of anything.
python3 - "$W/none.json" <<'PY'
import json, sys
ev = [{"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": 100 * k, "dur": 90} for k in range(3)]
ev += [{"ph": "X", "name": "work", "pid": 1, "tid": 1, "ts": 100 * k + 5, "dur": 50} for k in range(3)]
json.dump(ev, open(sys.argv[1], "w"))
PY
t_run "$STEPSCOPE" steps --json "$W/none.json"
t_ok "steps --json: no syncs, an empty list per step" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert all(s["host_syncs"] == [] for s in d["steps"]) and d["host_syncs_outside_steps"] == 0' "$T_OUT"
t_run "$STEPSCOPE" steps "$W/none.json"
t_ok "steps: no syncs said as none found" grep -q "host syncs:    none found" <<<"$T_OUT"
t_run "$STEPSCOPE" analyze "$W/none.json"
t_ok "analyze: no syncs said as none found" grep -q "^host syncs  none found by the rules" <<<"$T_OUT"
t_run "$STEPSCOPE" analyze --json "$W/none.json"
t_ok "analyze --json: no syncs, an empty list and a zero total (a count, known)" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert d["host_syncs"] == [] and d["host_syncs_total"] == {"count": 0, "wait_ns": 0}, d' "$T_OUT"

# diff: per-step host syncs and their wait as rows keyed host_syncs and host_sync_wait,
# for --expect. Twelve steps; BASE has 3 aten::item per step, NEW 1.
python3 - "$W" <<'PY'
import json, sys
for nm, per in (("a", 3), ("b", 1)):
    ev = []
    for k in range(12):
        t = 10000 * k
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": t, "dur": 9000})
        for i in range(per):
            ev.append({"ph": "X", "name": "aten::item", "pid": 1, "tid": 1, "ts": t + 2000 + 1000 * i,
                       "dur": 300 + (k * 13 + i * 7) % 40})
    json.dump(ev, open("%s/%s.json" % (sys.argv[1], nm), "w"))
PY
t_run "$STEPSCOPE" diff "$W/a.json" "$W/b.json" --expect host_syncs:shrink --expect host_sync_wait:shrink --json
t_ok "diff --expect host_syncs:shrink holds when the syncs per step fall from 3 to 1" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
rows = {r["key"]: r for r in d["intervals"]}
assert rows["host_syncs"]["unit"] == "count" and rows["host_sync_wait"]["unit"] == "ns", rows.keys()
assert [p["result"] for p in d["predictions"]] == ["held", "held"], d["predictions"]' "$T_OUT"
t_run "$STEPSCOPE" diff "$W/a.json" "$W/b.json" --expect host_syncs:grow
t_ok "diff --expect host_syncs:grow fails (exit 3) when they shrank" test "$T_RC" -eq 3

t_done
