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
t_ok "--csv has a header and one row per compile (the first, implied by the ids, and each recompile)" test "$T_RC" = 0 -a "$(printf '%s\n' "$T_OUT" | head -1 | cut -d, -f1-4)" = "index,function,label,signature" -a "$(printf '%s\n' "$T_OUT" | grep -c '"forward (model.py:42)"')" = 9

# TORCH_TRACE=DIR (issue 35 item 6): a directory of dedicated_log_torch_trace_*.log files,
# written here in the shape torch writes them (a glog prefix, one JSON object, payload
# lines after a tab); times below are the ones written.
tt="$T_TMP/torch_trace"
mkdir -p "$tt"
P='V1204 02:34:10.737000 4423 torch/_dynamo/convert_frame.py:309]'
{
  printf '%s {"str": ["/w/train.py", 1]}\n' "$P"
  printf '%s {"dynamo_start": {"stack": [{"line": 3, "name": "f", "filename": 1}]}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0}\n' "$P"
  printf '%s {"artifact": {"name": "dynamo_graph_break_reason", "encoding": "string"}, "frame_id": 0, "frame_compile_id": 0, "attempt": 0, "has_payload": "x"}\n' "$P"
  printf '\tGraph break in user code at /w/train.py:5\n\tReason: Unsupported: builtin: print [<class '"'"'torch._dynamo.variables.constant.ConstantVariable'"'"'>] False\n'
  printf '%s {"compilation_metrics": {"compile_id": "0/0", "co_name": "f", "co_filename": "/w/train.py", "co_firstlineno": 3, "entire_frame_compile_time_s": 0.5, "backend_compile_time_s": 0.25}, "frame_id": 0, "frame_compile_id": 0, "attempt": 1}\n' "$P"
  printf '%s {"compilation_metrics": {"compile_id": "0/1", "co_name": "f", "co_filename": "/w/train.py", "co_firstlineno": 3, "entire_frame_compile_time_s": 0.25, "backend_compile_time_s": 0.125, "recompile_reason": "0/0: tensor '"'"'x'"'"' size mismatch at index 0. expected 4, actual 8"}, "frame_id": 0, "frame_compile_id": 1, "attempt": 0}\n' "$P"
  printf '%s {"compilation_metrics": {"compile_id": "0/2", "fail_type": "RecompileLimitExceeded", "fail_reason": "cache_size_limit reached", "entire_frame_compile_time_s": 0.001}, "frame_id": 0, "frame_compile_id": 2, "attempt": 0}\n' "$P"
} >"$tt/dedicated_log_torch_trace_abc.log"
t_run "$STEPSCOPE" ledger "$tt" --json
printf '%s' "$T_OUT" >"$T_TMP/tt.json"
t_ok "TORCH_TRACE directory: compiles with ids and times, the first counted, graph breaks, the limit" \
  [ "$T_RC" = 0 ] && python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = [x for x in d["functions"] if x["name"] == "f (train.py:3)"][0]
assert f["source"] == "torch_trace" and f["compiles"] == 2 and f["limit_hits"] == 1, f
assert f["compile_ns"] == 375000000 and f["trace_ns"] == 375000000, f
assert f["miss_reasons"]["first"] == 1 and f["miss_reasons"]["shape"] == 1 and f["graph_breaks"] == 1, f
g = d["graph_breaks"][0]
assert g["where"] == "train.py:5" and g["reason"].startswith("Unsupported: builtin: print"), g
assert [r["compiles"] for r in d["rows"]] == [1, 1, 0], d["rows"]
' "$T_TMP/tt.json"
t_run "$STEPSCOPE" ledger "$tt"
t_ok "TORCH_TRACE text: the graph break and the torch fix for the limit" \
  [ "$T_RC" = 0 ] && grep -qF 'f (train.py:3) at train.py:5 (x1): Unsupported: builtin: print' <<<"$T_OUT" &&
  grep -qF 'torch._dynamo.config.recompile_limit' <<<"$T_OUT"
printf '%s {"compilation_metrics": {"compile_id": "0/0", \n' "$P" >"$tt/dedicated_log_torch_trace_bad.log"
t_run "$STEPSCOPE" ledger "$tt"
t_ok "TORCH_TRACE: a record that is not JSON is a warning naming FILE:LINE and the byte; the rest is read" \
  [ "$T_RC" = 0 ] && grep -qF "$tt/dedicated_log_torch_trace_bad.log:1: a TORCH_TRACE record that is not one JSON object" <<<"$T_ERR" &&
  grep -q "byte [0-9]*: expected" <<<"$T_ERR"

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
# ---- issue 11: what a real JAX session showed wrong -----------------------------------
# Lesson 2 under JAX 0.9: three different jitted lambdas (lines 68, 104, 131), a lax.cond
# whose branch lambdas are explained while the lambda at 131 is traced, a static branch.
LL=$L/jax-0.9-lesson2-lambdas.log
t_run "$STEPSCOPE" ledger "$LL" --json
printf '%s' "$T_OUT" >"$T_TMP/ll.json"
t_ok "same-named functions stay apart, named by their definition site" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
names = [f["name"] for f in d["functions"]]
lam = [n for n in names if n.startswith("<lambda>")]
assert lam == ["<lambda> (script.py:68)", "<lambda> (script.py:104)", "<lambda> (script.py:131)",
               "<lambda> (script.py:131, called at script.py:131:40)"], lam
f = {x["name"]: x for x in d["functions"]}
for n in lam[:3]:
    assert f[n]["compiles"] == 1 and f[n]["rows"] == 1, f[n]
assert f["score (script.py:25)"]["compiles"] == 3
' "$T_TMP/ll.json"
t_ok "no churn diagnosis for the lambdas (no false reshape or cast fixes)" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
bad = [c["message"] for c in d["churn"] if c["function"].startswith("<lambda>")]
assert not bad, bad
assert [c["function"] for c in d["churn"]] == ["score (script.py:25)"], d["churn"]
' "$T_TMP/ll.json"
t_run "$STEPSCOPE" ledger "$LL"
t_ok "the text names each lambda with its site" test "$(printf '%s\n' "$T_OUT" | grep -c '^  <lambda> (script.py:[0-9]*) ')" = 3
t_ok "the text has no reshape or cast advice" test -z "$(printf '%s\n' "$T_OUT" | grep -E 'reshape|cast ')"
t_ok "a nested cache miss belongs to its own function, not the enclosing jitted one" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
rows = [r for r in d["rows"] if r["function"] == "<lambda> (script.py:131)"]
assert len(rows) == 1 and rows[0]["reason"] == "first: first call" and rows[0]["compiles"] == 1, rows
f = {x["name"]: x for x in d["functions"]}
assert f["<lambda> (script.py:131)"]["miss_reasons"]["context"] == 0
assert f["<lambda> (script.py:131)"]["redefined"] == 0
inner = f["<lambda> (script.py:131, called at script.py:131:40)"]
assert inner["miss_reasons"]["context"] == 1 and inner["redefined"] == 1 and inner["compiles"] == 0, inner
' "$T_TMP/ll.json"
t_ok "hits and calls from a log are null with the reason, never 0" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
for f in d["functions"]:
    assert f["hits"] is None and f["calls"] is None and f["unknown"] == "not in JAX logs", f
    assert f["source"] == "jax_log" and f["rows"] >= 0
' "$T_TMP/ll.json"
t_ok "the text says hits are unknown (not in JAX logs)" test -n "$(printf '%s\n' "$T_OUT" | grep -E '^  score \(script.py:25\) +3 +3 +3 +unknown ')" -a -n "$(printf '%s\n' "$T_OUT" | grep 'hits: unknown (not in JAX logs)')"
t_ok "a static argument's value is part of each signature" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
f = {x["name"]: x for x in d["functions"]}
sigs = f["branch_score (script.py:52)"]["signatures"]
assert sigs == ["float32[8], square=True (static)", "float32[8], square=False (static)"], sigs
rows = [r for r in d["rows"] if r["function"].startswith("branch_score")]
assert [a["value"] for r in rows for a in r["args"] if a["kind"] == "static"] == ["True", "False"]
' "$T_TMP/ll.json"
t_ok "host syncs from a log are null, with the reason" python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
assert d["host_syncs"] is None and d["host_syncs_unknown"] == "not in JAX logs", d["host_syncs"]
' "$T_TMP/ll.json"
t_ok "the text's host-sync section says why it is empty" test -n "$(printf '%s\n' "$T_OUT" | grep '^host syncs: unknown (not in JAX logs): a compile log does not record')"
t_ok "no 'enable jax_explain_cache_misses' when the log has its records" test -z "$(printf '%s\n' "$T_OUT" | grep 'enable jax_explain_cache_misses')"
t_run "$STEPSCOPE" ledger "$L/jax-0.9-lesson2-noexplain.log"
t_ok "without explanations, the lambdas are one name whose identity is unknown" test -n "$(printf '%s\n' "$T_OUT" | grep '^  <lambda>: 3 specializations .* does not say whether they are one function or several')"
t_ok "... and the hint to enable jax_explain_cache_misses is given" test -n "$(printf '%s\n' "$T_OUT" | grep 'enable jax_explain_cache_misses')"
t_ok "... and no reshape or cast advice is made from the merged signatures" test -z "$(printf '%s\n' "$T_OUT" | grep -E 'reshape|cast ')"
t_run "$STEPSCOPE" ledger "$L/jax-0.10-lesson2.log"
t_ok "a dtype change JAX explained as a config change gets no cast advice" test -z "$(printf '%s\n' "$T_OUT" | grep 'gain_fn.*cast')" -a -n "$(printf '%s\n' "$T_OUT" | grep 'gain_fn (lesson2.py:125): weak type of gain took 2 values')"
t_ok "a function re-created at one line is diagnosed from JAX's own words" test -n "$(printf '%s\n' "$T_OUT" | grep '^  loss (lesson2.py:120): 3 specializations .*2 of its cache misses were a new function object defined at the same line')"
t_run "$STEPSCOPE" ledger "$L/torch-2.5-recompiles.log"
t_ok "torch logs: trace and compile times unknown in text, never 0 ns" test -n "$(printf '%s\n' "$T_OUT" | grep '^  forward (model.py:42) .* unknown  *unknown  *unknown ')" -a -z "$(printf '%s\n' "$T_OUT" | grep '^  forward.* 0 ns')"
t_run "$STEPSCOPE" ledger "$L/torch-2.5-recompiles.log" --json
t_ok "torch logs: trace_ns, lower_ns and compile_ns are null in JSON, not 0" python3 -c '
import json, sys
f = json.loads(sys.stdin.read())["functions"][0]
assert f["compiles"] > 0 and f["trace_ns"] is None and f["compile_ns"] is None and f["lower_ns"] is None, f
' <<<"$T_OUT"
t_run "$STEPSCOPE" ledger "$L/torch-2.5-recompiles.log"
t_ok "torch logs: hits and host syncs unknown (not in PyTorch logs)" test -n "$(printf '%s\n' "$T_OUT" | grep 'hits: unknown (not in PyTorch logs)')" -a -n "$(printf '%s\n' "$T_OUT" | grep '^host syncs: unknown (not in PyTorch logs)')"

# The explain hint only when the log really lacks explanations: three compiles of a
# helper JAX does not explain, with and without another function's explanation record.
{
  printf 'TRACING CACHE MISS at /u/s.py:9:4 (<module>):\n  never seen function:\n    f id=1 defined at /u/s.py:3\n'
  printf 'Finished tracing + transforming f for pjit in 0.001 sec\n'
  printf 'Compiling jit(f) with global shapes and types (ShapedArray(float32[8]),). Argument mapping: (UnspecifiedValue,).\n'
  printf 'Finished XLA compilation of jit(f) in 0.01 sec\n'
  for _ in 1 2 3; do
    printf 'Compiling jit(helper) with global shapes and types (ShapedArray(float32[8]),). Argument mapping: (UnspecifiedValue,).\n'
    printf 'Finished XLA compilation of jit(helper) in 0.01 sec\n'
  done
} >"$T_TMP/helper.log"
t_run "$STEPSCOPE" ledger "$T_TMP/helper.log"
t_ok "explanations on: the unexplained helper's churn names no option to enable" test -n "$(printf '%s\n' "$T_OUT" | grep '^  helper: 3 specializations .* not in the log; JAX.s cache-miss explanations (on in this log) did not name it either')" -a -z "$(printf '%s\n' "$T_OUT" | grep 'enable jax_explain')"
grep -v 'TRACING\|^  ' "$T_TMP/helper.log" >"$T_TMP/helper-off.log"
t_run "$STEPSCOPE" ledger "$T_TMP/helper-off.log"
t_ok "explanations off: the hint to enable jax_explain_cache_misses is given" test -n "$(printf '%s\n' "$T_OUT" | grep '^  helper: 3 specializations .*; enable jax_explain_cache_misses to name it')"

# Functions JAX compiles for itself (eager jnp / lax operations outside jit) get no
# padding or static-argument advice: their shapes follow the user's eager calls.
for n in 8 9 10; do
  printf 'Compiling jit(convert_element_type) with global shapes and types (ShapedArray(float32[%s]),). Argument mapping: (UnspecifiedValue,).\n' "$n"
  printf 'Finished XLA compilation of jit(convert_element_type) in 0.01 sec\n'
done >"$T_TMP/internal.log"
for n in 8 9 10; do
  printf 'Compiling jit(user_fn) with global shapes and types (ShapedArray(float32[%s]),). Argument mapping: (UnspecifiedValue,).\n' "$n"
  printf 'Finished XLA compilation of jit(user_fn) in 0.01 sec\n'
done >"$T_TMP/user.log"
t_run "$STEPSCOPE" ledger "$T_TMP/internal.log"
t_ok "a JAX-internal function: said compiled by JAX for itself, no padding advice" test -n "$(printf '%s\n' "$T_OUT" | grep '^  convert_element_type: 3 specializations of a function JAX compiles for itself')" -a -z "$(printf '%s\n' "$T_OUT" | grep -i 'pad\|bucket\|static_arg')"
t_run "$STEPSCOPE" ledger "$T_TMP/user.log"
t_ok "the same log of a user's function still gets the shape advice" test -n "$(printf '%s\n' "$T_OUT" | grep '^  user_fn' | grep -i 'pad\|bucket')"

# The HTML report's ledger panel: unknowns said, and no "zero means reuse" for a log.
t_run "$STEPSCOPE" report "$T_TMP/ll.json" -o "$T_TMP/ll.html"
t_ok "report from a log's ledger exits 0" test "$T_RC" = 0 -a -s "$T_TMP/ll.html"
t_ok "the report says calls, hits and host syncs are unknown (not in JAX logs)" test "$(grep -o 'unknown (not in JAX logs)' "$T_TMP/ll.html" | wc -l)" -ge 2
t_ok "the report never says a zero means reuse for a log" test -z "$(grep -i -E 'zero means|reused an existing' "$T_TMP/ll.html")"

# Rough edge 5: JAX logs go to standard error.
printf 'step 1 loss 0.5\nstep 2 loss 0.25\n' >"$T_TMP/stdout.log"
t_run "$STEPSCOPE" ledger "$T_TMP/stdout.log"
t_ok "a log without records says the logs go to standard error (2> log)" test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep "write to standard error: capture it with '2> compile.log'")"

# ---- issue 9: log parsing links without OpenCL ---------------------------------------------
root=$(cd "$(dirname "$0")/../.." && pwd)
lib=${STEPSCOPE_BUILD:-$root/build}/libstepscope.a
cat >"$T_TMP/nocl.c" <<'EOF'
/* Only the ledger and its log parsers: no device, so no OpenCL. */
#include <stdio.h>

#include "stepscope/ledger.h"
#ifdef STEPSCOPE_DEVICE_H
#error "stepscope/ledger.h includes stepscope/device.h"
#endif

int main(int argc, char **argv)
{
    sts_ledger *l = sts_ledger_create();
    sts_error err = STS_ERROR_INIT;
    int rc = argc == 2 && sts_ledger_parse_log(l, argv[1], &err) == STS_OK ? 0 : 1;
    if (rc == 0) rc = sts_ledger_write_json(l, stdout, NULL, NULL, &err) == STS_OK ? 0 : 1;
    sts_ledger_free(l);
    return rc;
}
EOF
san=
[ -n "${STEPSCOPE_SANITIZED:-}" ] && san="-fsanitize=address,undefined"
t_run ${CC:-cc} -std=c11 $san -I"$root/include" "$T_TMP/nocl.c" "$lib" -lz -lm -o "$T_TMP/nocl"
t_ok "a program using only the ledger API links against libstepscope.a without -lOpenCL" test "$T_RC" = 0 -a -x "$T_TMP/nocl"
if [ -x "$T_TMP/nocl" ]; then
  t_run "$T_TMP/nocl" "$L/torch-2.5-recompiles.log"
  t_ok "... and runs on a fixture log" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep '"name": "forward (model.py:42)"')"
  t_ok "... and needs no OpenCL library at run time" test -z "$(ldd "$T_TMP/nocl" 2>/dev/null | grep -i opencl)"
fi

# ---- issue 16: the log is streamed; memory bounded by what it holds ------------------------
if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
  t_skip "ledger under ulimit -v" "sanitizer builds reserve terabytes of address space"
else
  lim=524288 # KiB: 512 MiB of address space
  t_run bash -c "ulimit -v $lim; timeout 200 '$STEPSCOPE' ledger /dev/zero"
  t_ok "/dev/zero under ulimit -v 512 MB: a clear error within seconds" test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep '/dev/zero: byte 0: NUL bytes in a line longer than 1048576 bytes: this is binary data')"
  t_run bash -c "ulimit -v $lim; { head -c 1073741824 /dev/zero | tr '\\0' x; echo; cat '$L/jax-0.4.1-jit.log'; } | timeout 300 '$STEPSCOPE' ledger -"
  t_ok "a 1 GiB line is skipped with a warning, in bounded memory" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_ERR" | grep -- '-:1: a line of 1073741824 bytes, longer than the 1048576 bytes a log line may have: skipped')"
  t_ok "... and the records after it are read" test -n "$(printf '%s' "$T_OUT" | grep '^  score ')" -a -n "$(printf '%s' "$T_OUT" | grep 'logs: 1 file(s), 19 lines, 12 records, 0 unknown lines skipped, 1 warnings')"
  # A gzip bomb: one member of 64 MiB of NUL bytes (64 KiB compressed), repeated: 2 GiB inflated.
  head -c 67108864 /dev/zero | gzip -1 >"$T_TMP/member.gz"
  for _ in $(seq 32); do cat "$T_TMP/member.gz"; done >"$T_TMP/bomb.gz"
  t_run bash -c "ulimit -v $lim; timeout 200 '$STEPSCOPE' ledger '$T_TMP/bomb.gz'"
  t_ok "a gzip bomb of NUL bytes: a clear error within seconds" test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'bomb.gz: byte 0: NUL bytes .*binary data')"
  # The same with one endless text line: skipped in bounded memory, then the records after it.
  head -c 67108864 /dev/zero | tr '\0' x | gzip -1 >"$T_TMP/xmember.gz"
  { for _ in $(seq 8); do cat "$T_TMP/xmember.gz"; done; printf '\n' | gzip; gzip -c "$L/jax-0.4.1-jit.log"; } >"$T_TMP/xbomb.gz"
  t_run bash -c "ulimit -v $lim; timeout 300 '$STEPSCOPE' ledger '$T_TMP/xbomb.gz'"
  t_ok "a gzip bomb of one 512 MiB line: skipped with a warning, the records after it read" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_ERR" | grep 'xbomb.gz:1: a line of 536870912 bytes, longer than')" -a -n "$(printf '%s' "$T_OUT" | grep '12 records')"
fi

# `stepscope demo retrace`: lesson 2 on the default device, numbers against closed forms.
t_run "$STEPSCOPE" demo retrace --out "$T_TMP/demo"
if t_no_opencl "demo retrace"; then
  :
elif [ "$T_RC" != 0 ] && printf '%s' "$T_ERR" | grep -q 'no device'; then
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
# Distinct names that sanitize alike ("a+1" and "a-1" were one function) or end in a
# dotted number ("1.0" and "2.0" were both "0"); one log given twice (through a link too)
# is read once, with a warning; a 20-digit dimension is unknown, never INT64_MAX.
for n in 'a+1' 'a-1' '+x' '-x' '1.0' '2.0'; do
  printf 'Finished tracing + transforming %s for pjit in 0.001 sec\n' "$n"
  printf 'Compiling jit(%s) with global shapes and types (ShapedArray(float32[8]),). Argument mapping: (UnspecifiedValue,).\n' "$n"
  printf 'Finished XLA compilation of jit(%s) in 0.01 sec\n' "$n"
done >"$T_TMP/names.log"
t_run "$STEPSCOPE" ledger --json "$T_TMP/names.log"
t_ok "ledger: a+1, a-1, +x, -x, 1.0, 2.0 are six functions, one compile each" test "$T_RC" = 0 -a \
  "$(printf '%s' "$T_OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted((f["name"], f["compiles"]) for f in d["functions"]))')" = \
  "[('+x', 1), ('-x', 1), ('1.0', 1), ('2.0', 1), ('a+1', 1), ('a-1', 1)]"
ln -s "$T_TMP/names.log" "$T_TMP/names-link.log"
t_run "$STEPSCOPE" ledger --json "$T_TMP/names.log" "$T_TMP/names.log" "$T_TMP/names-link.log"
t_ok "ledger: a log given twice (and through a link) is read once, with a warning naming both" test "$T_RC" = 0 -a \
  "$(printf '%s' "$T_OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["compiles"] for f in d["functions"]), d["log_stats"]["files"], d["log_stats"]["warnings"])')" = "6 1 2" -a \
  -n "$(printf '%s' "$T_ERR" | grep -F "names-link.log: the same file as $T_TMP/names.log, given twice: read once")"
cp "$T_TMP/names.log" "$T_TMP/names-copy.log"
t_run "$STEPSCOPE" ledger --json "$T_TMP/names.log" "$T_TMP/names-copy.log"
t_ok "ledger: two files with the same lines are two logs (two processes may log alike)" test "$T_RC" = 0 -a \
  "$(printf '%s' "$T_OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sum(f["compiles"] for f in d["functions"]))')" = 12
printf 'Compiling jit(f) with global shapes and types (ShapedArray(float32[12345678901234567890,4]),). Argument mapping: (UnspecifiedValue,).\n' >"$T_TMP/big.log"
t_run "$STEPSCOPE" ledger --json "$T_TMP/big.log"
t_ok "ledger: a 20-digit dimension is unknown (null), never 9223372036854775807" test "$T_RC" = 0 -a \
  "$(printf '%s' "$T_OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"][0]["args"][0]["shape"])')" = "[None, 4]" -a \
  -z "$(printf '%s' "$T_OUT" | grep 9223372036854775807)"
# Issue 34 item 17: a directory given as a log was "expected a trace file". A directory
# is read as TORCH_TRACE's (issue 35 item 6): one without its logs says what it expected.
t_run "$STEPSCOPE" ledger "$T_TMP"
t_ok "ledger of a directory without TORCH_TRACE logs: exit 1, the file names expected" \
  [ "$T_RC" = 1 ] && grep -qF "$T_TMP: a directory without TORCH_TRACE logs: expected files named dedicated_log_torch_trace_*.log" <<<"$T_ERR" && ! grep -q "trace file" <<<"$T_ERR"
t_done
