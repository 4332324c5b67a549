# `stepscope ledger`: compile logs to a ledger; output formats, warnings and exit codes.
. "$(dirname "$0")/lib.sh"
L=tests/data/logs

t_run "$STEPSCOPE" ledger "$L/jax-0.10-lesson2.log"
t_ok "text summary exits 0" test "$T_RC" = 0
t_ok "text names the churn and its fix" test -n "$(printf '%s' "$T_OUT" | grep 'batch_loss (lesson2.py:105): dimension 0 of b took 8 values (8, 12, 16, 20, 24, 28, 32, 36)' | grep 'power-of-two buckets (8, 16, 32, 64)')"
t_ok "text groups miss reasons" test -n "$(printf '%s' "$T_OUT" | grep -E '^  score \(lesson2.py:12\): first 1 shape 2$')"

t_run "$STEPSCOPE" ledger "$L/jax-0.10-lesson2.log" --json
t_ok "--json exits 0" test "$T_RC" = 0
printf '%s' "$T_OUT" >"$T_TMP/l.json"
t_ok "--json is valid JSON with the schema name" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "stepscope.ledger/1"
f = {x["name"]: x for x in d["functions"]}
s = f["score (lesson2.py:12)"]
assert s["traces"] == 3 and s["compiles"] == 3, s
assert s["signatures"] == ["float32[8], float32[]", "float32[12], float32[]", "float32[16], float32[]"]
assert f["batch_loss (lesson2.py:105)"]["compile_ns"] == 8 * 60000000, f["batch_loss (lesson2.py:105)"]
c = [c for c in d["churn"] if c["component"] == "dimension 0 of b"][0]
assert c["values"] == ["8", "12", "16", "20", "24", "28", "32", "36"] and c["buckets"] == [8, 16, 32, 64]
assert d["log_stats"]["warnings"] == 0
' "$T_TMP/l.json"

t_run "$STEPSCOPE" ledger "$L/torch-2.5-recompiles.log" --csv
t_ok "--csv has a header and one row per recompile" test "$T_RC" = 0 -a "$(printf '%s\n' "$T_OUT" | head -1 | cut -d, -f1-4)" = "index,function,label,signature" -a "$(printf '%s\n' "$T_OUT" | grep -c '"forward (model.py:42)"')" = 8

t_run "$STEPSCOPE" ledger "$L/jax-0.4.1-jit.log" "$L/torch-2.1-cache-size-limit.log"
t_ok "several files make one ledger" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep 'logs: 2 file(s)')"

t_run "$STEPSCOPE" ledger "$L/malformed.log"
t_ok "malformed records warn with file:line and still exit 0" test "$T_RC" = 0 -a "$(printf '%s\n' "$T_ERR" | grep -c 'warning: tests/data/logs/malformed.log:[0-9]*: ')" = 10
t_ok "the warning says what was expected" test -n "$(printf '%s' "$T_ERR" | grep "malformed.log:5: .*expected 'Finished XLA compilation of NAME in T sec'")"

t_run "$STEPSCOPE" ledger "$L/no-records.log"
t_ok "a log with no records exits 1 and says what it expected" test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'no JAX or PyTorch compile records in tests/data/logs/no-records.log' | grep 'JAX_LOG_COMPILES')"

t_run "$STEPSCOPE" ledger "$L/nonexistent.log"
t_ok "a missing file exits 1 naming it" test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'nonexistent.log')"

gzip -c "$L/jax-0.7-explain.log" >"$T_TMP/j.log.gz"
t_run "$STEPSCOPE" ledger "$T_TMP/j.log.gz"
t_ok "gzip logs are read" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep 'batch_loss (train.py:48): dimension 0 of b took 5 values')"

t_run sh -c "cat '$L/torch-2.4-verbose-ranks.log' | '$STEPSCOPE' ledger -"
t_ok "standard input is read with '-'" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep 'step (train.py:88)')"

t_run "$STEPSCOPE" ledger
t_ok "no log is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" ledger "$L/jax-0.4.1-jit.log" --json --csv
t_ok "--json with --csv is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" ledger --help
t_ok "--help exits 0" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep 'usage: stepscope ledger')"
# `stepscope demo retrace`: lesson 2 on the default device, numbers against closed forms.
t_run "$STEPSCOPE" demo retrace --out "$T_TMP/demo"
if [ "$T_RC" != 0 ] && printf '%s' "$T_ERR" | grep -q 'no device'; then
  t_skip "demo retrace" "no OpenCL device"
else
  t_ok "demo retrace exits 0 and lists its checks" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep 'ok   score: new length sixteen')"
  t_ok "demo retrace shows the named misuse error" test -n "$(printf '%s' "$T_OUT" | grep 'STS_ERR_DYNAMIC_BRANCH: broken_branch: ')"
  t_ok "demo retrace writes ledger.json as lesson 2 says" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["schema"] == "stepscope.ledger/1"
rows = [r for r in d["rows"] if r["function"] == "score"]
assert [r["traces"] for r in rows] == [1, 0, 0, 1, 1], [r["traces"] for r in rows]
want = [sum(i * i for i in range(8)), sum((i + 1) ** 2 for i in range(8)), 4 * sum(i * i for i in range(8)),
        sum(i * i for i in range(12)), sum(i * i for i in range(16))]
assert [round(r["result"], 3) for r in rows] == want, [r["result"] for r in rows]
b = [r for r in d["rows"] if r["function"] == "branch_score"]
assert [r["result"] for r in b] == [140, 140, 28] and [r["traces"] for r in b] == [1, 0, 1]
demo = d["demo"]
assert demo["failed"] == 0 and all(c["ok"] for c in demo["checks"])
loop = demo["metric_loop"]
ref = 10 * (1 - 0.9 ** 6)
assert abs(loop["read_each_step_value"] - ref) < 2e-5 * ref and abs(loop["one_final_wait_value"] - ref) < 2e-5 * ref
assert loop["read_each_step_ns"] > 0 and loop["one_final_wait_ns"] > 0
scopes = {s["scope"]: s for s in d["host_syncs"]["scopes"]}
assert scopes["read each step"]["scalars"] == 6 and scopes["one final wait"]["count"] == 1
assert demo["misuse"]["status"] == "STS_ERR_DYNAMIC_BRANCH" and demo["misuse"]["fixed_results"] == [28, 140]
m = [r["result"] for r in d["rows"] if r["function"] in ("masked_score", "padded_score")]
assert m == [sum((i + 1) ** 2 for i in range(5)), sum((i + 1) ** 2 for i in range(5)) + 3], m
' "$T_TMP/demo/ledger.json"
  STEPSCOPE_LOG_COMPILES=1 t_run "$STEPSCOPE" demo retrace --out "$T_TMP/demo" --json
  t_ok "demo retrace --json prints the ledger" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep '"schema": "stepscope.ledger/1"')"
  t_ok "STEPSCOPE_LOG_COMPILES=1 logs each trace and compile" test "$(printf '%s\n' "$T_ERR" | grep -c '^stepscope: Finished tracing ')" = 9 -a "$(printf '%s\n' "$T_ERR" | grep -c '^stepscope: Tracing broken_branch .* failed after .*STS_ERR_DYNAMIC_BRANCH$')" = 1 -a "$(printf '%s\n' "$T_ERR" | grep -c '^stepscope: Finished compiling ')" = 9
fi
t_done
