# steps --memory and analyze --memory: a generated Kineto trace whose numbers Python
# computes here, JSON nulls for what a trace cannot tell, clear errors, one host only,
# and the real fixtures checked against their own [memory] events read by Python.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"

# Three steps; each allocates 1000 * (k + 1) bytes twice and frees the first.
python3 - "$W/m.json" <<'PY'
import json, sys
ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
total, addr = 500, 4096
for k in range(3):
    t = 1000 * (k + 1)
    ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": t, "dur": 900})
    ev.append({"ph": "X", "name": "aten::empty", "pid": 1, "tid": 1, "ts": t + 10, "dur": 100})
    for dt, a, b in ((20, addr, 1000 * (k + 1)), (30, addr + 8, 1000 * (k + 1)), (40, addr, -1000 * (k + 1))):
        total += b
        ev.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": t + dt,
                   "args": {"Device Type": 1, "Device Id": 0, "Addr": a, "Bytes": b, "Total Allocated": total}})
    addr += 16
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY

t_run "$STEPSCOPE" steps --memory --json "$W/m.json"
t_ok "steps --memory --json exits 0" test "$T_RC" = 0
t_ok "steps --memory --json: numbers from the trace" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); ev = json.load(open(sys.argv[2]))["traceEvents"]
mem = [e for e in ev if e["name"] == "[memory]"]
dev = d["devices"][0]
assert dev["device"] == "cuda:0", dev
assert dev["peak_bytes"] == max(e["args"]["Total Allocated"] for e in mem), dev
assert dev["start_bytes"] == mem[0]["args"]["Total Allocated"] - mem[0]["args"]["Bytes"], dev
assert dev["end_bytes"] == mem[-1]["args"]["Total Allocated"], dev
assert dev["allocations"] == sum(1 for e in mem if e["args"]["Bytes"] > 0), dev
assert dev["untracked_bytes"] == 500, dev
assert sum(l["bytes"] for l in dev["live_at_peak"]) + dev["untracked_bytes"] == dev["peak_bytes"], dev
assert [s["step"] for s in d["steps"]] == [0, 1, 2], d["steps"]
for k, s in enumerate(d["steps"]):
    m = s["memory"][0]
    inside = [e for e in mem if s["ts_ns"] <= e["ts"] * 1000 < s["ts_ns"] + s["dur_ns"]]
    assert m["peak_bytes"] == max(e["args"]["Total Allocated"] for e in inside), m
    assert m["end_bytes"] == inside[-1]["args"]["Total Allocated"], m
    assert m["allocations"] == 2 and m["frees"] == 1, m
assert d["devices"][0]["leak"]["suspect"] is True, d["devices"][0]["leak"]
' "$T_OUT" "$W/m.json"

t_run "$STEPSCOPE" steps --memory "$W/m.json"
t_ok "steps --memory text names the device, peak and the allocating op" \
  test "$T_RC" = 0 -a -n "$(grep -F "cuda:0" <<<"$T_OUT")" -a -n "$(grep -F "'aten::empty'" <<<"$T_OUT")" \
  -a -n "$(grep -F "leak suspect" <<<"$T_OUT")"

t_run "$STEPSCOPE" analyze --memory --json "$W/m.json"
t_ok "analyze --memory --json: devices, no steps" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); assert d["steps"] is None and d["devices"][0]["peak_bytes"] == 500 + 1000 + 2000 + 2 * 3000, d
' "$T_OUT"

# Bad input: a size that is not a number, a negative total, no totals at all.
python3 - "$W/bad.json" <<'PY'
import json, sys
a = lambda ts, **k: {"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": ts,
                     "args": dict({"Device Type": 1, "Device Id": 1}, **k)}
ev = [a(1, Addr=1, Bytes="x", **{"Total Allocated": 5}), a(2, Addr=2, Bytes=10, **{"Total Allocated": -3}),
      a(3, Addr=3, Bytes=-7, **{"Total Allocated": 3})]
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY
t_run "$STEPSCOPE" analyze --memory --json "$W/bad.json"
t_ok "bad memory args: warned, counted, the start unknown (null)" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); v = d["devices"][0]
assert v["device"] == "cuda:1" and v["bad_events"] == 1 and v["bad_totals"] == 1 and v["unmatched_frees"] == 1, v
assert v["start_bytes"] is None, v
assert "negative" in sys.argv[2] and "cuda:1" in sys.argv[2], sys.argv[2]
' "$T_OUT" "$T_ERR"

printf '{"traceEvents":[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":2}]}' >"$W/none.json"
t_run "$STEPSCOPE" analyze --memory "$W/none.json"
t_ok "no memory events: exit 1, says what it looked for" \
  test "$T_RC" = 1 -a -n "$(grep -F "holds no memory events" <<<"$T_ERR")"

# Several hosts: each host's steps carry the memory of that host alone, the same bytes
# as steps --memory --json of its file, whatever the threads and under MPI; a host
# without memory events has [] in each step. r1 is m.json with 700 bytes for 1000.
python3 - "$W/m.json" "$W/r1.json" "$W/r2.json" <<'PY'
import json, sys
ev = json.load(open(sys.argv[1]))["traceEvents"]
total = 500
for e in ev:
    if e["name"] == "[memory]":
        e["args"]["Bytes"] = e["args"]["Bytes"] * 7 // 10
        total += e["args"]["Bytes"]
        e["args"]["Total Allocated"] = total
json.dump({"traceEvents": ev}, open(sys.argv[2], "w"))
json.dump({"traceEvents": [e for e in ev if e["name"] != "[memory]"]}, open(sys.argv[3], "w"))
PY
cp "$W/m.json" "$W/r0.json"
for r in 0 1; do "$STEPSCOPE" steps --memory --json "$W/r$r.json" >"$W/one$r.json" 2>/dev/null; done
t_run "$STEPSCOPE" steps --memory --json -j 1 "$W/r0.json" "$W/r1.json" "$W/r2.json"
printf '%s' "$T_OUT" >"$W/many.json"
t_ok "steps --memory --json on 3 hosts: exit 0" test "$T_RC" = 0
t_ok "each host step's memory is the bytes of steps --memory --json of that host alone" \
  python3 - "$W/many.json" "$W/one0.json" "$W/one1.json" <<'PY'
import json, sys
many = json.load(open(sys.argv[1]))
hosts = {h["host"]: h for h in many["hosts"]}
for r in (0, 1):
    one = json.load(open(sys.argv[2 + r]))
    got = hosts["r%d" % r]["steps"]
    assert [(s["step"], s["ts_ns"]) for s in got] == [(s["step"], s["ts_ns"]) for s in one["steps"]]
    for g, o in zip(got, one["steps"]):
        assert json.dumps(g["memory"]) == json.dumps(o["memory"]), (g["memory"], o["memory"])
assert all(s["memory"] == [] for s in hosts["r2"]["steps"]) and len(hosts["r2"]["steps"]) == 3
p0, p1 = (hosts["r%d" % r]["steps"][2]["memory"][0]["peak_bytes"] for r in (0, 1))
assert (p0, p1) == (500 + 1000 + 2000 + 2 * 3000, 500 + 700 + 1400 + 2 * 2100), (p0, p1)
PY
t_run "$STEPSCOPE" steps --memory --json -j 2 "$W/r0.json" "$W/r1.json" "$W/r2.json"
t_ok "-j 2 gives the bytes of -j 1" test "$T_RC" = 0 -a "$T_OUT" = "$(cat "$W/many.json")"
t_ok "no memory in host steps without --memory" python3 -c 'import json,sys; d=json.load(sys.stdin); assert all("memory" not in s for h in d["hosts"] for s in h["steps"])' \
  < <("$STEPSCOPE" steps --json "$W/r0.json" "$W/r1.json" 2>/dev/null)
t_run "$STEPSCOPE" steps --memory "$W/r0.json" "$W/r1.json" "$W/r2.json"
t_ok "steps --memory text on 3 hosts: each host's peak over its steps, in which step, first start, last end" \
  grep -qE '^  r1 +cuda:0 +3 +6800 +2 +500 +4700$' <<<"$T_OUT"
if command -v mpirun >/dev/null && ! "$STEPSCOPE" steps --mpi "$W/r0.json" 2>&1 | grep -q 'built without MPI'; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_orte_tmpdir_base="$W"
  mpi_asan=${ASAN_OPTIONS:-}
  [ -n "${STEPSCOPE_SANITIZED:-}" ] && mpi_asan="$mpi_asan:fast_unwind_on_malloc=0"
  t_run env ASAN_OPTIONS="$mpi_asan" timeout 1200 mpirun --oversubscribe -n 2 "$STEPSCOPE" steps --memory --json \
    "$W/r0.json" "$W/r1.json" "$W/r2.json" --mpi -j 1
  t_ok "mpirun -n 2 steps --memory --json --mpi: the bytes of one process" test "$T_RC" = 0 -a "$T_OUT" = "$(cat "$W/many.json")"
  mpi_ok=1
else
  t_skip "mpirun -n 2 steps --memory --mpi" "mpirun not found or this stepscope was built without MPI"
fi
# analyze --memory on several hosts: each host's devices and warnings the bytes of
# analyze --memory --json of its file alone.
for r in 0 1; do "$STEPSCOPE" analyze --memory --json "$W/r$r.json" >"$W/an$r.json" 2>/dev/null; done
t_run "$STEPSCOPE" analyze --memory --json -j 1 "$W/r0.json" "$W/r1.json" "$W/r2.json"
printf '%s' "$T_OUT" >"$W/an_many.json"
t_ok "analyze --memory --json on 3 hosts: each host's devices and warnings those of its file alone" \
  python3 - "$W/an_many.json" "$W/an0.json" "$W/an1.json" <<'PY'
import json, sys
many = json.load(open(sys.argv[1]))
assert many["hosts_count"] == 3 and [h["host"] for h in many["hosts"]] == ["r0", "r1", "r2"]
for r in (0, 1):
    one, h = json.load(open(sys.argv[2 + r])), many["hosts"][r]
    assert h["trace"] == one["trace"]
    assert json.dumps(h["devices"]) == json.dumps(one["devices"]) and h["warnings"] == one["warnings"], h
assert many["hosts"][2]["devices"] == [] and many["hosts"][1]["devices"][0]["peak_bytes"] == 6800
PY
t_run "$STEPSCOPE" analyze --memory --json -j 2 "$W/r0.json" "$W/r1.json" "$W/r2.json"
t_ok "analyze --memory: -j 2 gives the bytes of -j 1" test "$T_RC" = 0 -a "$T_OUT" = "$(cat "$W/an_many.json")"
t_run "$STEPSCOPE" analyze --memory "$W/r0.json" "$W/r2.json"
t_ok "analyze --memory text on 2 hosts: each host's devices, a host without events said" \
  test "$T_RC" = 0 -a -n "$(grep -F 'device memory of host r0' <<<"$T_OUT")" -a \
  -n "$(grep -F '  peak      0.01 MiB (9500 B)' <<<"$T_OUT")" -a -n "$(grep -xF '  no memory events' <<<"$T_OUT")"
cp "$W/r2.json" "$W/r3.json"
t_run "$STEPSCOPE" analyze --memory "$W/r2.json" "$W/r3.json"
t_ok "analyze --memory on hosts without memory events: exit 1, says so" \
  test "$T_RC" = 1 -a -n "$(grep -F "none of the 2 hosts holds memory events" <<<"$T_ERR")"
if [ -n "${mpi_ok:-}" ]; then
  t_run env ASAN_OPTIONS="$mpi_asan" timeout 1200 mpirun --oversubscribe -n 2 "$STEPSCOPE" analyze --memory --json \
    "$W/r0.json" "$W/r1.json" "$W/r2.json" --mpi -j 1
  t_ok "mpirun -n 2 analyze --memory --json --mpi: the bytes of one process" test "$T_RC" = 0 -a "$T_OUT" = "$(cat "$W/an_many.json")"
fi

# diff: memory.peak per step, a shrink gated by --expect.
python3 - "$W" <<'PY'
import json, sys
for name, scale in (("a", 1000), ("b", 500)):
    ev = [{"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}}]
    total = 0
    for k in range(20):
        t = 1000 * (k + 1)
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": t, "dur": 900})
        for dt, b in ((20, scale * (k % 3 + 1)), (40, -scale * (k % 3 + 1))):
            total += b
            ev.append({"ph": "i", "s": "t", "name": "[memory]", "pid": 1, "tid": 1, "ts": t + dt,
                       "args": {"Device Type": 1, "Device Id": 0, "Addr": 64 * k, "Bytes": b, "Total Allocated": total}})
    json.dump({"traceEvents": ev}, open(sys.argv[1] + "/%s.json" % name, "w"))
PY
t_run "$STEPSCOPE" diff "$W/a.json" "$W/b.json" --expect memory.peak:shrink
t_ok "diff --expect memory.peak:shrink holds when every step's peak halved" \
  test "$T_RC" = 0 -a -n "$(grep -F "memory.peak" <<<"$T_OUT" | grep -F " B")"
t_run "$STEPSCOPE" diff "$W/b.json" "$W/a.json" --expect memory.peak:shrink
t_ok "diff --expect memory.peak:shrink fails when it grew" test "$T_RC" != 0
t_run "$STEPSCOPE" diff --json "$W/a.json" "$W/b.json"
t_ok "diff --json: memory.peak samples are each step's peak, in bytes" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); r = [x for x in d["intervals"] if x["key"] == "memory.peak"][0]
assert r["unit"] == "bytes" and r["base"]["samples"] == [1000 * (k % 3 + 1) for k in range(20)], r
assert r["new"]["samples"] == [500 * (k % 3 + 1) for k in range(20)], r
' "$T_OUT"

FX=$(t_fixtures)
K="$FX/traces/kineto/h100_bert_small.json.gz"
if [ -n "$FX" ] && [ -f "$K" ]; then
  t_run "$STEPSCOPE" analyze --memory --json -q "$K"
  t_ok "h100_bert_small: cuda:0's peak, start, end and allocations as its [memory] events say" python3 -c '
import gzip, json, sys
d = json.loads(sys.argv[1]); ev = json.load(gzip.open(sys.argv[2]))["traceEvents"]
mem = sorted((e for e in ev if e.get("name") == "[memory]" and e["args"].get("Device Type") == 1), key=lambda e: float(e["ts"]))
v = [x for x in d["devices"] if x["device"] == "cuda:0"][0]
assert v["peak_bytes"] == max(e["args"]["Total Allocated"] for e in mem), v
assert v["end_bytes"] == mem[-1]["args"]["Total Allocated"], v
assert v["start_bytes"] == mem[0]["args"]["Total Allocated"] - mem[0]["args"]["Bytes"], v
assert v["allocations"] == sum(1 for e in mem if e["args"]["Bytes"] > 0), v
assert v["frees"] == sum(1 for e in mem if e["args"]["Bytes"] < 0), v
' "$T_OUT" "$K"
else
  t_skip "h100_bert_small memory" "kineto/h100_bert_small.json.gz missing under \$STEPSCOPE_FIXTURES"
fi
X="$FX/traces/jax/conv_mi300_8gpu.xplane.pb"
if [ -n "$FX" ] && [ -f "$X" ]; then
  t_run "$STEPSCOPE" analyze --memory --json -q "$X"
  t_ok "conv_mi300_8gpu: 8 allocators, each peak >= its start and end" python3 -c '
import json, sys
d = json.loads(sys.argv[1]); v = d["devices"]
assert sorted(x["device"] for x in v) == ["GPU_%d_bfc" % i for i in range(8)], [x["device"] for x in v]
for x in v:
    assert x["source"] == "xspace" and x["peak_bytes"] >= max(x["start_bytes"], x["end_bytes"]), x
    assert max(p[1] for p in x["points"]) == x["peak_bytes"], x
' "$T_OUT"
else
  t_skip "conv_mi300_8gpu memory" "jax/conv_mi300_8gpu.xplane.pb missing under \$STEPSCOPE_FIXTURES"
fi
t_done
