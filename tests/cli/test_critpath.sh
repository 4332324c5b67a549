# steps --critical-path and --what-if on the command line: text, JSON, what-if answers
# computed here by hand from the trace written here, and the errors.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"
# Two steps of 100 us: a launch [0,5) of gemm [10,90) on stream 7, a
# cudaDeviceSynchronize [5,95), the step's own time after it. Path per step: launch
# delay 10, gemm 80, sync past gemm 5, host 5.
python3 - "$W/t.json" <<'PY'
import json, sys
ev = [{"ph": "M", "name": "thread_name", "pid": 0, "tid": 7, "args": {"name": "stream 7 "}}]
for k in range(2):
    t = 1000 * k
    ev.append({"ph": "X", "cat": "user_annotation", "name": "ProfilerStep#%d" % k, "pid": 100, "tid": 100, "ts": t, "dur": 100})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 100, "tid": 100, "ts": t, "dur": 5, "args": {"correlation": k + 1}})
    ev.append({"ph": "X", "cat": "cuda_runtime", "name": "cudaDeviceSynchronize", "pid": 100, "tid": 100, "ts": t + 5, "dur": 90})
    ev.append({"ph": "X", "cat": "kernel", "name": "gemm", "pid": 0, "tid": 7, "ts": t + 10, "dur": 80, "args": {"correlation": k + 1}})
json.dump({"traceEvents": ev}, open(sys.argv[1], "w"))
PY

t_run "$STEPSCOPE" steps "$W/t.json" --critical-path
t_ok "text shows each step's path by kind" \
  sh -c 'test "$0" = 0 && echo "$1" | grep -q "critical path 100 µs: launch 10.0% sync_wait 5.0% idle\|critical path 100 µs:.*compute 80.0%"' "$T_RC" "$T_OUT"

t_run "$STEPSCOPE" steps "$W/t.json" --critical-path --json --what-if gemm=0.5 --what-if top=1
echo "$T_OUT" >"$W/out.json"
t_ok "json: critical_path tiles each step, kinds add up, the what-if is the hand answer" \
  python3 - "$W/out.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["steps"]:
    cp = s["critical_path"]
    assert cp["length_ns"] == s["dur_ns"] == 100000, cp
    assert sum(cp["by_kind"].values()) == cp["length_ns"]
    assert cp["by_kind"]["compute"] == 80000 and cp["by_kind"]["launch"] == 10000
    assert cp["by_kind"]["sync_wait"] == 5000 and cp["by_kind"]["host"] == 5000
    at = s["ts_ns"]
    for iv in cp["intervals"]:
        assert iv["ts_ns"] == at, (iv, at)
        at += iv["dur_ns"]
    assert at == s["ts_ns"] + s["dur_ns"]
w = d["critical_path"]["what_if"]
# gemm halved: 10 + 40 + 5 + 5 = 60 us per step: -40%
assert w[0]["change"] == "gemm=0.5" and w[0]["predicted_step_ns"] == 60000, w[0]
assert abs(w[0]["predicted_change_pct"] + 40) < 1e-9 and w[0]["expect"] == "step:shrink>=40%"
assert w[1]["change"] == "gemm=0.5", w[1]  # top=1: the name whose halving saves most
PY

t_run "$STEPSCOPE" steps "$W/t.json" --json
t_ok "without --critical-path the document has no critical_path" \
  sh -c 'test "$0" = 0 && ! echo "$1" | grep -q critical_path' "$T_RC" "$T_OUT"

t_run "$STEPSCOPE" steps "$W/t.json" --what-if gemn=0.5
t_ok "a what-if naming nothing: exit 2 with a did-you-mean" \
  sh -c 'test "$0" = 2 && echo "$1" | grep -q "did you mean .gemm."' "$T_RC" "$T_ERR"

t_run "$STEPSCOPE" steps "$W/t.json" --what-if gemm=fast
t_ok "a factor that is no number: exit 2 naming it" \
  sh -c 'test "$0" = 2 && echo "$1" | grep -q "factor .fast."' "$T_RC" "$T_ERR"

t_run "$STEPSCOPE" steps "$W/t.json" --what-if top=0
t_ok "top=0: exit 2" sh -c 'test "$0" = 2' "$T_RC"

F="$(t_fixtures)/traces/kineto/simple_add_flows.json.gz"
if [ -f "$F" ]; then
  t_run "$STEPSCOPE" steps "$F" --critical-path --json
  echo "$T_OUT" >"$W/f.json"
  t_ok "fixture: every known path's kinds add up to its step" \
    python3 - "$W/f.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
for s in d["steps"]:
    cp = s["critical_path"]
    if cp is None:
        continue
    assert cp["length_ns"] == s["dur_ns"] and sum(cp["by_kind"].values()) == s["dur_ns"]
PY
else
  t_skip "fixture paths" "no STEPSCOPE_FIXTURES"
fi

t_done
