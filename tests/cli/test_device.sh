# The device view on the command line: steps --device and analyze --device, text and
# JSON, --categories and --explain, and their errors. Expected numbers come from
# tests/tools/device_ref.py, a reference written apart from the library, on traces
# written here: overlapping streams, a late host, a kernel queue, unmatched launches, a
# renamed collective.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"
REF="$(dirname "$0")/../tools/device_ref.py"

# Three steps of a Kineto-shaped trace on one host thread, GPU 0 with streams 7 and 8
# and GPU 1 with stream 7.
#   step 1: two compute kernels overlapping across streams, a renamed NCCL kernel
#           (ncclDevKernel_...) under compute and past it, a memcpy of each direction;
#   step 2: the host launches late (host_wait), then four kernels queue up;
#   step 3: an op with no correlation id, one pointing nowhere, a launch that launched
#           nothing; GPU 1 runs a kernel whose launch is in step 2.
python3 - "$W/t.json" <<'PY'
import json, sys
ev = [{"ph": "M", "name": "thread_name", "pid": p, "tid": t, "args": {"name": "stream %d " % t}}
      for p, t in ((0, 7), (0, 8), (1, 7))]
ev.append({"ph": "M", "name": "process_name", "pid": 100, "args": {"name": "python3"}})
corr = [0]
def launch(ts, pid, tid, start, dur, name="gemm", cat="kernel", link="yes"):
    corr[0] += 1
    c = corr[0]
    if link == "yes":
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": ts, "dur": 1, "args": {"correlation": c}})
    args = {} if link == "none" else {"correlation": c + (100000 if link == "dangling" else 0)}
    ev.append({"ph": "X", "cat": cat, "name": name, "pid": pid, "tid": tid, "ts": start, "dur": dur, "args": args})
for k, t in enumerate((0, 1000, 2000)):
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % (k + 1), "pid": 100, "tid": 100, "ts": t, "dur": 1000})
launch(10, 0, 7, 100, 200)
launch(12, 0, 8, 150, 200)
launch(14, 0, 8, 300, 250, "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevComm*, unsigned long, ncclWork*)")
launch(16, 0, 7, 600, 10, "Memcpy HtoD (Pageable -> Device)", "gpu_memcpy")
launch(18, 0, 7, 620, 20, "Memcpy DtoH (Device -> Pinned)", "gpu_memcpy")
launch(20, 0, 8, 615, 30, "Memcpy DtoD (Device -> Device)", "gpu_memcpy")
ev.append({"ph": "X", "cat": "gpu_user_annotation", "name": "ProfilerStep#1", "pid": 0, "tid": 7, "ts": 100, "dur": 540})
launch(1700, 0, 7, 1705, 50)
for i in range(4):
    launch(1760 + i, 0, 7, 1770 + 40 * i, 40)
launch(1900, 1, 7, 2100, 100)
launch(0, 0, 7, 2300, 50, link="none")
launch(0, 0, 8, 2400, 50, link="dangling")
ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaMemsetAsync", "pid": 100, "tid": 100, "ts": 2500, "dur": 2, "args": {"correlation": 999}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY

python3 "$REF" "$W/t.json" >"$W/ref.json"
t_run "$STEPSCOPE" steps --device --json "$W/t.json"
printf '%s' "$T_OUT" >"$W/steps.json"
t_ok "steps --device --json: exit 0" test "$T_RC" = 0
t_ok "steps --device --json: every step's devices equal the reference's numbers" python3 - "$W/steps.json" "$W/ref.json" <<'PY'
import json, sys
d, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
assert ref["pids"] == ["0", "1"], ref["pids"]
for k, s in enumerate(d["steps"]):
    assert [x["pid"] for x in s["devices"]] == ref["pids"], s["devices"]
    for i, x in enumerate(s["devices"]):
        r = ref["windows"][i][k]
        for key in ("window_ns", "busy_ns", "by_category", "overlap", "idle", "launches"):
            assert x[key] == r[key], (k, i, key, x[key], r[key])
        assert x["queue"]["max"] == r["queue_max"], (k, i, x["queue"], r)
        assert (x["queue"]["mean"] is None) == (r["queue_mean"] is None)
        if r["queue_mean"] is not None:
            assert abs(x["queue"]["mean"] - r["queue_mean"]) < 1e-9, (x["queue"], r["queue_mean"])
PY
t_ok "steps --device --json: the answers worked by hand (step 1's unions, step 2's late host and queue)" python3 - "$W/steps.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
g0 = [s["devices"][0] for s in d["steps"]]
c = g0[0]["by_category"]
# compute [100,350) on two streams: 250 us united; NCCL [300,550): 250, 50 under compute.
assert c["compute"]["union_ns"] == 250000 and c["communication"]["union_ns"] == 250000
assert g0[0]["overlap"] == {"compute_communication_ns": 50000, "exposed_communication_ns": 200000}
assert c["memcpy"]["htod_ns"] == 10000 and c["memcpy"]["dtoh_ns"] == 20000 and c["memcpy"]["dtod_ns"] == 30000
# step 2 [1000,2000): nothing launched until 1700 (host_wait 700 us), launched at 1700 and
# started at 1705 (kernel_wait 5); the queue's launches at 1760.. come 5 us after the first
# ends (host_wait 5) and start 10 us later (kernel_wait 10); after 1930 the next op's
# launch is unknown (other 70).
assert g0[1]["idle"] == {"total_ns": 790000, "host_wait_ns": 705000, "kernel_wait_ns": 15000, "other_ns": 70000}
assert g0[1]["queue"]["max"] == 4 and g0[1]["launches"]["matched"] == 5
# step 3: two ops of unknown launch on GPU 0; GPU 1's kernel launched in step 2.
assert g0[2]["launches"] == {"matched": 0, "unmatched": 2, "delay_ns": {"median": None, "p90": None, "max": None}}
dv = d["device"]
assert dv["links"]["no_correlation"] == 1 and dv["links"]["dangling"] == 1 and dv["links"]["orphan_calls"] == 1
assert dv["links"]["ignored"] == 1
assert any("carry no correlation id" in w for w in dv["warnings"])
PY
t_ok "steps --device: the warnings on stderr" grep -q "warning: 1 device op names a correlation id that no host slice holds (e.g. 100014)" <<<"$(
  "$STEPSCOPE" steps --device "$W/t.json" 2>&1 >/dev/null)"

t_run "$STEPSCOPE" steps --device "$W/t.json"
t_ok "steps --device text: each step's device line" grep -q "^         GPU 0: busy 0.490 of 1.000 (49.0%): compute 0.250, communication 0.200 (+0.050 under compute), memcpy 0.040" <<<"$T_OUT"
t_ok "steps --device text: the idle causes" grep -q "idle 0.790 (host_wait 0.705, kernel_wait 0.015, other 0.070)" <<<"$T_OUT"
t_ok "steps --device text: the whole-trace section" grep -q "^devices over the whole trace" <<<"$T_OUT"
t_ok "steps --device text: no rules without --explain" test -z "$(grep 'device rules' <<<"$T_OUT")"

python3 "$REF" "$W/t.json" --spans >"$W/ref_spans.json"
t_run "$STEPSCOPE" analyze --device --json "$W/t.json"
printf '%s' "$T_OUT" >"$W/an.json"
t_ok "analyze --device --json: each device's span equals the reference's" python3 - "$W/an.json" "$W/ref_spans.json" <<'PY'
import json, sys
d, ref = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
w = d["device"]["windows"]
assert [x["pid"] for x in w] == ref["pids"]
for i, x in enumerate(w):
    r = ref["windows"][i][0]
    for key in ("window_ns", "busy_ns", "by_category", "overlap", "idle", "launches"):
        assert x[key] == r[key], (i, key, x[key], r[key])
assert d["device"]["devices"][0]["device"] == "GPU 0" and d["device"]["devices"][0]["streams"] == 2
PY

# --explain: the rules and their hits.
t_run "$STEPSCOPE" steps --device --explain "$W/t.json"
t_ok "--explain: the collective rule decided the renamed NCCL kernel" grep -qE "^ +5 +1  communication  name collective" <<<"$T_OUT"
t_ok "--explain: the catch-all decided the kernels" grep -qE "^ +16 +10  compute        any" <<<"$T_OUT"
t_run "$STEPSCOPE" steps --explain "$W/t.json"
t_ok "--explain without --device: usage error" test "$T_RC" = 2 -a -n "$(grep -F -- '--explain needs --device' <<<"$T_ERR")"

# --categories: a table that misses the renamed collective says so.
printf '# kernels only\ncompute any\n' >"$W/only.rules"
t_run "$STEPSCOPE" steps --device --categories "$W/only.rules" --json "$W/t.json"
t_ok "--categories: communication is zero under a table without it" python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
assert all(x["by_category"]["communication"]["union_ns"] == 0 for s in d["steps"] for x in s["devices"])
assert [r["rule"] for r in d["device"]["rules"]] == ["compute any"]' <<<"$T_OUT"
t_ok "--categories: the warning names the lookalike names" grep -qF "0 device ops matched communication; 1 name contains nccl" <<<"$T_ERR"
printf 'compute any\nmemcpy name prefix\n' >"$W/bad.rules"
t_run "$STEPSCOPE" steps --device --categories "$W/bad.rules" "$W/t.json"
t_ok "--categories that does not parse: exit 1 naming the file and line" test "$T_RC" = 1 -a -n "$(grep -F "$W/bad.rules:2: expected a value after the test" <<<"$T_ERR")"
t_run "$STEPSCOPE" steps --device --categories "$W/missing.rules" "$W/t.json"
t_ok "--categories missing: exit 1 naming it" test "$T_RC" = 1 -a -n "$(grep -F "$W/missing.rules: cannot read the device rules" <<<"$T_ERR")"
printf 'communication arg:kind is nccl\ncompute any\n' >"$W/arg.rules"
t_run "$STEPSCOPE" steps --device --categories "$W/arg.rules" --args analysis "$W/t.json"
t_ok "--categories reading an arg --args drops: usage error" test "$T_RC" = 2 -a -n "$(grep -F "reads arg 'kind', which --args analysis drops" <<<"$T_ERR")"
t_run "$STEPSCOPE" steps --device --categories "$W/arg.rules" "$W/t.json"
t_ok "--categories reading an arg: read with the args it needs" test "$T_RC" = 0 -a -n "$(grep -F "reading with --args all" <<<"$T_ERR")"
t_run "$STEPSCOPE" analyze --device --lane main "$W/t.json"
t_ok "analyze --device with --lane: usage error" test "$T_RC" = 2 -a -n "$(grep -F -- '--lane does not narrow it' <<<"$T_ERR")"

# Correlation ids read with --args none: nothing links, and the view says so instead of
# reporting zero waits.
t_run "$STEPSCOPE" steps --device --json --args none "$W/t.json"
t_ok "--args none: idle causes unknown (null), not 0" python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
x = d["steps"][1]["devices"][0]
assert x["idle"]["host_wait_ns"] is None and x["queue"]["max"] is None and x["launches"]["matched"] == 0, x' <<<"$T_OUT"

# diff: the device rows judged by --expect. NEW overlaps the all-reduce with compute and
# fills the gap after it: exposed communication halves (300 -> 150 us a step), idle
# shrinks (400 -> 300 us); a few microseconds of jitter keep the samples apart.
python3 - "$W/base.json" "$W/new.json" <<'PY'
import json, random, sys
for path, new in ((sys.argv[1], False), (sys.argv[2], True)):
    rnd = random.Random(7 if new else 3)
    ev = [{"ph": "M", "name": "thread_name", "pid": 0, "tid": t, "args": {"name": "stream %d " % t}} for t in (7, 8)]
    c = 0
    def op(ts, tid, start, dur, name):
        global c
        c += 1
        ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": ts, "dur": 2, "args": {"correlation": c}})
        ev.append({"ph": "X", "cat": "kernel", "name": name, "pid": 0, "tid": tid, "ts": start, "dur": dur, "args": {"correlation": c}})
    for k in range(20):
        t, j = 1000 * k, rnd.randint(0, 9)
        ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 100, "tid": 100, "ts": t, "dur": 1000})
        op(t + 10, 7, t + 100, 300 + j, "gemm")
        op(t + 20, 8, t + (250 if new else 400) + j, 300, "ncclDevKernel_AllReduce_Sum_f32_RING_LL")
        if new:
            op(t + 30, 7, t + 550 + j, 250, "gemm2")
    json.dump({"traceEvents": ev}, open(path, "w"))
PY
t_run "$STEPSCOPE" diff "$W/base.json" "$W/new.json" --expect device.idle:shrink --expect "communication.exposed:shrink>=30%" --expect device.host_wait:grow
t_ok "diff --expect device.idle:shrink and communication.exposed:shrink>=30% hold" \
  test -n "$(grep -E '^  held +device.idle:shrink' <<<"$T_OUT")" -a -n "$(grep -E '^  held +communication.exposed:shrink>=30%' <<<"$T_OUT")"
t_ok "diff: a wrong device prediction fails (exit 3)" test "$T_RC" = 3 -a -n "$(grep -E '^  failed +device.host_wait:grow' <<<"$T_OUT")"
t_run "$STEPSCOPE" diff "$W/base.json" "$W/new.json" --json
t_ok "diff --json: the device rows, exposed communication's median 300 -> 150 us" python3 -c '
import json, sys
d = json.loads(sys.stdin.read())
rows = {r["key"]: r for r in d["intervals"]}
for k in ("device.busy", "device.idle", "device.host_wait", "device.kernel_wait", "device.compute", "communication.exposed", "device.launch_delay"):
    assert k in rows, (k, sorted(rows))
e = rows["communication.exposed"]
assert e["base"]["median_ns"] == 300000 and e["new"]["median_ns"] == 150000, e' <<<"$T_OUT"

# Every fixture with device lanes: the invariants hold on every window.
fx=$(t_fixtures)
if [ -z "$fx" ]; then
  t_skip "device fixtures" "no fixtures (STEPSCOPE_FIXTURES)"
else
  for f in "$fx"/traces/kineto/*.json.gz "$fx"/traces/jax/*.xplane.pb; do
    [ -f "$f" ] || continue
    b=$(basename "$f")
    t_run "$STEPSCOPE" analyze --device --json "$f"
    printf '%s' "$T_OUT" >"$W/fx.json"
    t_run2=$T_RC
    "$STEPSCOPE" steps --device --json "$f" >"$W/fxs.json" 2>/dev/null
    t_ok "$b: analyze and steps --device invariants" python3 - "$W/fx.json" "$W/fxs.json" "$t_run2" <<'PY'
import json, sys
assert sys.argv[3] == "0"
d = json.load(open(sys.argv[1]))
ws = list(d["device"]["windows"])
try:
    s = json.load(open(sys.argv[2]))
    ws += [x for st in s["steps"] for x in st["devices"]]
except ValueError:
    pass  # no steps in this trace
for x in ws:
    ex = sum(c["exclusive_ns"] for c in x["by_category"].values())
    assert ex == x["busy_ns"] and x["busy_ns"] + x["idle"]["total_ns"] == x["window_ns"], x
    assert all(c["union_ns"] <= x["busy_ns"] for c in x["by_category"].values()), x
    i = x["idle"]
    if i["host_wait_ns"] is not None:
        assert i["host_wait_ns"] + i["kernel_wait_ns"] + i["other_ns"] == i["total_ns"], x
    o = x["overlap"]
    assert o["compute_communication_ns"] + o["exposed_communication_ns"] == x["by_category"]["communication"]["union_ns"]
PY
  done
fi

# Many hosts: each host's steps carry the device view of that host alone, the same
# bytes as steps --device --json of its file (rank1 is rank0 with step 1's device work
# 37 us later), whatever the threads; the text sums each host's devices.
mkdir -p "$W/ranks"
cp "$W/t.json" "$W/ranks/rank0.json"
python3 - "$W/t.json" "$W/ranks/rank1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for e in d["traceEvents"]:
    if e.get("ph") == "X" and e["pid"] != 100 and e["ts"] < 1000:
        e["ts"] += 37
json.dump(d, open(sys.argv[2], "w"))
PY
for r in 0 1; do "$STEPSCOPE" steps --device --json "$W/ranks/rank$r.json" >"$W/one$r.json" 2>/dev/null; done
t_run "$STEPSCOPE" steps --device --json -j 1 "$W/ranks/rank0.json" "$W/ranks/rank1.json"
printf '%s' "$T_OUT" >"$W/many.json"
t_ok "steps --device --json on 2 hosts: exit 0" test "$T_RC" = 0
t_ok "each host's step devices are the bytes of steps --device --json of that host alone" python3 - "$W/many.json" "$W/one0.json" "$W/one1.json" <<'PY'
import json, sys
many = json.load(open(sys.argv[1]))
hosts = {h["host"]: h for h in many["hosts"]}
for r in (0, 1):
    one = json.load(open(sys.argv[2 + r]))
    got = hosts["rank%d" % r]["steps"]
    assert len(got) == len(one["steps"]) == 3, (len(got), len(one["steps"]))
    for a, b in zip(got, one["steps"]):
        assert json.dumps(a["devices"]) == json.dumps(b["devices"]), (a["devices"], b["devices"])
g0, g1 = (hosts["rank%d" % r]["steps"][0]["devices"][0] for r in (0, 1))
assert g0 != g1 and g1["idle"]["host_wait_ns"] == g0["idle"]["host_wait_ns"] - 37000, (g0["idle"], g1["idle"])
PY
t_run "$STEPSCOPE" steps --device --json -j 2 "$W/ranks/rank0.json" "$W/ranks/rank1.json"
printf '%s' "$T_OUT" >"$W/many2.json"
t_ok "the same document on 2 threads" cmp -s "$W/many.json" "$W/many2.json"
t_ok "no devices in host steps without --device" python3 -c 'import json,sys; d=json.load(sys.stdin); assert all("devices" not in s for h in d["hosts"] for s in h["steps"])' < <("$STEPSCOPE" steps --json "$W/ranks/rank0.json" "$W/ranks/rank1.json" 2>/dev/null)
t_run "$STEPSCOPE" steps --device "$W/ranks/rank0.json" "$W/ranks/rank1.json"
want=$(python3 - "$W/one1.json" <<'PY'
import json, sys
d = [s["devices"][0] for s in json.load(open(sys.argv[1]))["steps"]]
ms = lambda k: sum(x[k] for x in d) / 1e6
print("  %-5s %-16s %11.3f %11.3f %11.3f %11.3f %11.3f %12.3f" % ("rank1", "GPU 0", ms("window_ns"), ms("busy_ns"),
      sum(x["idle"]["total_ns"] for x in d) / 1e6, sum(x["idle"]["host_wait_ns"] for x in d) / 1e6,
      sum(x["idle"]["kernel_wait_ns"] for x in d) / 1e6, sum(x["overlap"]["exposed_communication_ns"] for x in d) / 1e6))
PY
)
t_ok "steps --device text on 2 hosts: rank1's GPU 0 summed over its steps" grep -qxF -- "$want" <<<"$T_OUT"
# Under MPI the records travel as bytes (lib/hosts/serial.c): the same document.
if command -v mpirun >/dev/null && ! "$STEPSCOPE" steps --mpi "$W/t.json" 2>&1 | grep -q 'built without MPI'; then
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  export OMPI_MCA_orte_tmpdir_base="$W" # its own session directory: test_hosts.sh may start mpirun too
  # Under ASan, the slow unwinder names Open MPI's own leaks so tests/lsan.supp matches
  # them (the fast one stops in its plugins: "<unknown module>"), as test_hosts.sh does.
  mpi_asan=${ASAN_OPTIONS:-}
  [ -n "${STEPSCOPE_SANITIZED:-}" ] && mpi_asan="$mpi_asan:fast_unwind_on_malloc=0"
  t_run env ASAN_OPTIONS="$mpi_asan" timeout 1200 mpirun --oversubscribe -n 2 "$STEPSCOPE" steps --device --json \
    "$W/ranks/rank0.json" "$W/ranks/rank1.json" --mpi -j 1
  printf '%s' "$T_OUT" >"$W/many_mpi.json"
  t_ok "mpirun -n 2 steps --device --json --mpi: exit 0, the same bytes as one process" test "$T_RC" = 0 -a -s "$W/many_mpi.json"
  t_ok "  (the bytes)" cmp -s "$W/many.json" "$W/many_mpi.json"
else
  t_skip "mpirun -n 2 steps --device --mpi" "mpirun not found or this stepscope was built without MPI"
fi
# --categories on 2 hosts: each host's devices are the bytes of that host alone under
# the same table (one without communication, one reading an arg: the read keeps it).
for rules in only arg; do
  for r in 0 1; do
    "$STEPSCOPE" steps --device --categories "$W/$rules.rules" --json "$W/ranks/rank$r.json" >"$W/cat$r.json" 2>/dev/null
  done
  t_run "$STEPSCOPE" steps --device --categories "$W/$rules.rules" --json -j 1 "$W/ranks/rank0.json" "$W/ranks/rank1.json"
  printf '%s' "$T_OUT" >"$W/many_cat.json"
  t_ok "--categories $rules.rules on 2 hosts: each host's step devices are the bytes of that host alone" python3 - "$W/many_cat.json" "$W/cat0.json" "$W/cat1.json" "$W/many.json" "$T_RC" <<'PY'
import json, sys
assert sys.argv[5] == "0", sys.argv[5]
many, builtin = json.load(open(sys.argv[1])), json.load(open(sys.argv[4]))
hosts = {h["host"]: h for h in many["hosts"]}
for r in (0, 1):
    one = json.load(open(sys.argv[2 + r]))
    got = hosts["rank%d" % r]["steps"]
    assert len(got) == len(one["steps"]) == 3, (len(got), len(one["steps"]))
    for a, b in zip(got, one["steps"]):
        assert json.dumps(a["devices"]) == json.dumps(b["devices"]), (a["devices"], b["devices"])
# The table was applied: the renamed collective is no communication under it.
comm = lambda d: sum(x["by_category"]["communication"]["union_ns"] for h in d["hosts"] for s in h["steps"] for x in s["devices"])
assert comm(builtin) > 0 and comm(many) == 0, (comm(builtin), comm(many))
PY
done
t_run "$STEPSCOPE" steps --device --categories "$W/arg.rules" --args analysis "$W/ranks/rank0.json" "$W/ranks/rank1.json"
t_ok "--categories on 2 hosts reading an arg --args drops: usage error" test "$T_RC" = 2 -a -n "$(grep -F "reads arg 'kind', which --args analysis drops" <<<"$T_ERR")"
t_run "$STEPSCOPE" steps --device --explain "$W/ranks/rank0.json" "$W/ranks/rank1.json"
t_ok "--explain on 2 hosts: refused, saying so" test "$T_RC" = 2 -a -n "$(grep -F -- '--explain applies to one trace' <<<"$T_ERR")"

[ "$T_FAILS" = 0 ]
