# analyze: self time by containment on overlapping slices, the compact overlap listing,
# and narrowing (--lane, --name, --window, --group); did-you-mean for mistyped
# subcommands, options and names. Every number is checked against a computation here.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"

# A PyTorch-like overlap: ProfilerStep starts inside a Python frame and ends inside
# the next one, all inside run (pid 1 tid 1); a second thread; a device lane.
cat >"$W/ov.json" <<'JSON'
[
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 1, "args": {"name": "main"}},
 {"ph": "M", "name": "thread_name", "pid": 1, "tid": 2, "args": {"name": "worker"}},
 {"ph": "M", "name": "thread_name", "pid": 9, "tid": 7, "args": {"name": "stream 7"}},
 {"ph": "X", "name": "run", "pid": 1, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "name": "enter", "pid": 1, "tid": 1, "ts": 5, "dur": 10},
 {"ph": "X", "name": "step", "pid": 1, "tid": 1, "ts": 10, "dur": 70},
 {"ph": "X", "name": "work", "pid": 1, "tid": 1, "ts": 20, "dur": 30},
 {"ph": "X", "name": "leaf", "pid": 1, "tid": 1, "ts": 22, "dur": 5},
 {"ph": "X", "name": "exit", "pid": 1, "tid": 1, "ts": 75, "dur": 15},
 {"ph": "X", "name": "bg", "pid": 1, "tid": 2, "ts": 30, "dur": 40},
 {"ph": "X", "name": "kernel", "pid": 9, "tid": 7, "ts": 25, "dur": 10},
 {"ph": "X", "name": "kernel", "pid": 9, "tid": 7, "ts": 60, "dur": 30}
]
JSON
t_run "$STEPSCOPE" analyze --json "$W/ov.json"
printf '%s' "$T_OUT" >"$W/ov.out.json"
"$STEPSCOPE" slices --csv "$W/ov.json" >"$W/ov.csv"
t_ok "self time is duration minus the union of what lies inside, per name (independent computation)" \
  python3 - "$W/ov.out.json" "$W/ov.csv" <<'PY'
import csv, json, sys
d = json.load(open(sys.argv[1]))
rows = list(csv.DictReader(open(sys.argv[2])))
lanes = {}
for k, r in enumerate(rows):
    lanes.setdefault((r["pid"], r["tid"]), []).append((int(r["ts_ns"]), int(r["ts_ns"]) + int(r["dur_ns"]), k, r["name"]))
want = {}
for iv in lanes.values():
    iv.sort(key=lambda x: (x[0], -x[1], x[2]))
    for i, (ts, end, _, name) in enumerate(iv):
        inner = sorted((a, b) for a, b, _, _ in iv[i + 1:] if a < end and b <= end)
        covered, reach = 0, None
        for a, b in inner:
            lo = a if reach is None else max(a, reach)
            covered += max(0, b - lo)
            reach = b if reach is None else max(reach, b)
        want[name] = want.get(name, 0) + (end - ts) - covered
got = {n["name"]: n["self_ns"] for n in d["names"]}
assert got == want, (got, want)
assert all(v >= 0 for v in got.values()), got
# run holds enter [5,15), step [10,80), exit [75,90) (and what they hold): [5,90) once.
assert got["run"] == 100000 - 85000, got["run"]
# step crosses enter and exit: only work (and leaf inside it) lies inside it.
assert got["step"] == 70000 - 30000, got["step"]
PY
t_run "$STEPSCOPE" analyze "$W/ov.json"
t_ok "the names table says what self time is" grep -q "self = duration minus the union of what lies inside it" <<<"$T_OUT"
# step crosses enter's end and moves to an overflow track (as in Perfetto); exit then
# nests in run on the thread's track, so it is not an overlap although it crosses step.
t_ok "overlaps are counted and listed by pair of names" \
  test -n "$(grep "overlaps: 1 slice started inside an open slice of its track and ended after it" <<<"$T_OUT")" \
  -a -n "$(grep -F "1x 'step' overran 'enter' by $(t_dur 65000)" <<<"$T_OUT")"

# JAX's Python tracer: a step annotation opened inside a frame that closes first, in
# every step. 30 alike overlaps make one line by default, 30 with --overlaps.
{
  printf '[{"ph":"M","name":"thread_name","pid":7,"tid":1,"args":{"name":"python"}}'
  for i in $(seq 0 29); do
    t=$((i * 100))
    printf ',{"ph":"X","name":"$profiler.py:349 __init__","pid":7,"tid":1,"ts":%d,"dur":5}' "$t"
    printf ',{"ph":"X","name":"learner_step","pid":7,"tid":1,"ts":%d,"dur":%d,"args":{"step_num":%d}}' $((t + 2)) $((50 + i)) "$i"
    printf ',{"ph":"X","name":"input_wait","pid":7,"tid":1,"ts":%d,"dur":20}' $((t + 10))
  done
  printf ']'
} >"$W/jax.json"
t_run "$STEPSCOPE" analyze "$W/jax.json"
t_ok "30 alike overlaps: one line naming both and the range of overruns" \
  test "$(grep -c "overran '\$profiler.py:349 __init__'" <<<"$T_OUT")" = 1 -a \
  -n "$(grep -F "30x 'learner_step' overran '\$profiler.py:349 __init__' by $(t_dur 47000) to $(t_dur 76000)" <<<"$T_OUT")"
t_ok "the summary comes before the overlaps, and warnings stay off stdout" \
  test "$(grep -n '^names by self time' <<<"$T_OUT" | cut -d: -f1)" -lt "$(grep -n '^overlaps:' <<<"$T_OUT" | cut -d: -f1)" -a -z "$T_ERR"
t_run "$STEPSCOPE" analyze "$W/jax.json" --overlaps
t_ok "--overlaps lists every overlap" test "$(grep -c "^  'learner_step' (ts .*) overran" <<<"$T_OUT")" = 30
t_run "$STEPSCOPE" analyze "$W/jax.json" --json
t_ok "--json: overlap_groups has the pair with its count and overrun range" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
g = d["overlap_groups"]
assert g == [{"name": "learner_step", "parent": "$profiler.py:349 __init__", "count": 30,
              "min_overrun_ns": 47000, "max_overrun_ns": 76000}], g
assert len(d["overlap_list"]) == 30 and d["overlaps"] == 30
assert all(n["self_ns"] >= 0 for n in d["names"])
' "$T_OUT"

# --lane: by thread name, PID:TID, or a regex; a miss names the near lanes.
t_run "$STEPSCOPE" analyze --json "$W/ov.json" --lane worker
t_ok "--lane NAME keeps that lane: names, lanes and busy time" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [n["name"] for n in d["names"]] == ["bg"], d["names"]
assert [(l["pid"], l["tid"]) for l in d["lanes"]] == [("1", "2")], d["lanes"]
assert d["trace"]["busy_ns"] == 40000 and d["scope"]["lanes_matched"] == 1
' "$T_OUT"
t_run "$STEPSCOPE" analyze --json "$W/ov.json" --lane 9:7
t_ok "--lane PID:TID" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert [n["name"] for n in d["names"]] == ["kernel"] and d["trace"]["busy_ns"] == 40000, d
' "$T_OUT"
t_run "$STEPSCOPE" analyze --json "$W/ov.json" --lane 'main|stream'
t_ok "--lane REGEX over thread names: busy is the union over the kept lanes" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert {(l["pid"], l["tid"]) for l in d["lanes"]} == {("1", "1"), ("9", "7")}, d["lanes"]
assert d["trace"]["busy_ns"] == 100000 and "bg" not in {n["name"] for n in d["names"]}
' "$T_OUT"
t_run "$STEPSCOPE" analyze "$W/ov.json" --lane wroker
t_ok "--lane with no match exits 1 and suggests the near lane" \
  test "$T_RC" = 1 -a -n "$(grep -F "no lane of" <<<"$T_ERR")" -a -n "$(grep -F "did you mean 'worker'" <<<"$T_ERR")"
t_run "$STEPSCOPE" analyze "$W/ov.json" --lane 'x(('
t_ok "--lane with an invalid regex is a usage error naming it" test "$T_RC" = 2 -a -n "$(grep -F 'x((' <<<"$T_ERR")"
# 30,000 nested groups overflowed the stack in glibc's recursive regcomp (SIGSEGV).
deep=$(printf '%30000s' '' | tr ' ' '(')
for how in "analyze --lane" "analyze --name" "steps --step" "steps --lanes"; do
  t_run "$STEPSCOPE" ${how% *} "$W/ov.json" ${how#* } "$deep"
  t_ok "${how}: 30,000 nested groups are a usage error naming the limit" \
    test "$T_RC" = 2 -a -n "$(grep -F "(30000 bytes) is too complex for the regular-expression engine: it nests groups more than 64 deep" <<<"$T_ERR")"
done
t_run "$STEPSCOPE" analyze "$W/ov.json" --name '((a{0,100}){0,100}){0,100}'
t_ok "--name with intervals a million positions long is refused at once" \
  test "$T_RC" = 2 -a -n "$(grep -F "more than 4096 positions once its intervals are expanded" <<<"$T_ERR")"

# --name: the kept slices' self time still nets out what lies inside them.
t_run "$STEPSCOPE" analyze --json "$W/ov.json" --name '^(step|work)$'
t_ok "--name REGEX: only those rows, self net of everything inside, busy of the kept slices" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
got = {n["name"]: n["self_ns"] for n in d["names"]}
assert got == {"step": 40000, "work": 25000}, got
assert d["trace"]["busy_ns"] == 70000, d["trace"]["busy_ns"]
' "$T_OUT"
t_run "$STEPSCOPE" analyze "$W/ov.json" --name wrok
t_ok "--name with no match says so, suggests names and exits 1 as --lane does" \
  test "$T_RC" = 1 -a -z "$T_OUT" -a -n "$(grep -F "no slice name matches 'wrok'" <<<"$T_ERR")" -a -n "$(grep -F "'work'" <<<"$T_ERR")"
t_run "$STEPSCOPE" analyze --json "$W/ov.json" --name exit --window 0:40us
t_ok "--name whose slices all lie outside --window: an empty answer (exit 0, no names), not a filter that matches nothing" \
  test "$T_RC" = 0 -a "$(python3 -c 'import json,sys; print(len(json.loads(sys.argv[1])["names"]))' "$T_OUT")" = 0
t_run "$STEPSCOPE" analyze "$W/ov.json" --name wrok --window 0:40us
t_ok "--name that matches nothing anywhere, with --window: exit 1 all the same" test "$T_RC" = 1 -a -z "$T_OUT"

# --window: every slice cut to [START, END) after the trace's first timestamp.
t_run "$STEPSCOPE" analyze --json "$W/ov.json" --window 0.02ms:40us
t_ok "--window START:END cuts slices: totals are the overlaps with the window" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
w0, w1 = 20000, 40000
sl = [("run", 0, 100), ("enter", 5, 10), ("step", 10, 70), ("work", 20, 30), ("leaf", 22, 5), ("exit", 75, 15),
      ("bg", 30, 40), ("kernel", 25, 10), ("kernel", 60, 30)]
want = {}
for n, ts, dur in sl:
    a, b = max(ts * 1000, w0), min((ts + dur) * 1000, w1)
    if b > a:
        want[n] = want.get(n, 0) + b - a
got = {n["name"]: n["total_ns"] for n in d["names"]}
assert got == want, (got, want)
assert all(0 <= n["self_ns"] <= n["total_ns"] for n in d["names"])
assert d["scope"]["window"] == {"start_ns": w0, "end_ns": w1, "step": None}, d["scope"]
assert d["trace"]["busy_ns"] == w1 - w0
' "$T_OUT"
t_run "$STEPSCOPE" analyze --json "$W/jax.json" --window 7
t_ok "--window STEP is step 7's time" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
w = d["scope"]["window"]
assert w["step"] == 7 and w["start_ns"] == 702000 and w["end_ns"] == 702000 + 57000, w
assert {n["name"]: n["total_ns"] for n in d["names"]} == {"learner_step": 57000, "input_wait": 20000, "$profiler.py:349 __init__": 3000}
' "$T_OUT"
t_run "$STEPSCOPE" analyze "$W/jax.json" --window 99
t_ok "--window with a step number that is not there exits 1 naming the range" \
  test "$T_RC" = 1 -a -n "$(grep -F "numbered 0 to 29" <<<"$T_ERR")"
for bad in 5:2 abc x:y 1ms:2parsecs; do
  t_run "$STEPSCOPE" analyze "$W/ov.json" --window "$bad"
  t_ok "--window $bad is a usage error" test "$T_RC" = 2
done
t_run "$STEPSCOPE" analyze "$W/ov.json" --step main
t_ok "--step without --window is a usage error" test "$T_RC" = 2

# --group: XLA ops by their hlo_op (with hlo_module) or hlo_module args.
cat >"$W/hlo.json" <<'JSON'
[
 {"ph": "X", "name": "fusion.kd", "pid": 1, "tid": 2, "ts": 0, "dur": 10, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"}},
 {"ph": "X", "name": "fusion_a.kd", "pid": 1, "tid": 2, "ts": 10, "dur": 20, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f"}},
 {"ph": "X", "name": "fusion.kd", "pid": 1, "tid": 2, "ts": 40, "dur": 5, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_g"}},
 {"ph": "X", "name": "copy.kd", "pid": 1, "tid": 2, "ts": 50, "dur": 7, "args": {"hlo_op": "copy", "hlo_module": "jit_g"}},
 {"ph": "X", "name": "host", "pid": 1, "tid": 1, "ts": 0, "dur": 100}
]
JSON
t_run "$STEPSCOPE" analyze --json "$W/hlo.json" --group hlo_op
t_ok "--group hlo_op: one row per (hlo_module, hlo_op), others by name" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
rows = {(n.get("hlo_module"), n["name"]): (n["count"], n["total_ns"], n.get("by")) for n in d["names"]}
assert rows == {("jit_f", "fusion.1"): (2, 30000, "hlo_op"), ("jit_g", "fusion.1"): (1, 5000, "hlo_op"),
                ("jit_g", "copy"): (1, 7000, "hlo_op"), (None, "host"): (1, 100000, None)}, rows
' "$T_OUT"
t_run "$STEPSCOPE" analyze --json "$W/hlo.json" --group hlo_module
t_ok "--group hlo_module: one row per module" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
rows = {n["name"]: (n["count"], n["self_ns"]) for n in d["names"]}
assert rows == {"jit_f": (2, 30000), "jit_g": (2, 12000), "host": (1, 100000)}, rows
' "$T_OUT"
t_run "$STEPSCOPE" analyze "$W/hlo.json" --group hlo_op
t_ok "--group hlo_op in text shows module/op" grep -q "jit_f/fusion.1" <<<"$T_OUT"
t_run "$STEPSCOPE" analyze "$W/hlo.json" --group flops
t_ok "--group with an unknown key is a usage error" test "$T_RC" = 2

# Did you mean: subcommands, options, step names.
t_run "$STEPSCOPE" anlyze "$W/ov.json"
t_ok "a mistyped subcommand suggests the right one" \
  test "$T_RC" = 2 -a -n "$(grep -F "did you mean 'stepscope analyze'" <<<"$T_ERR")"
t_run "$STEPSCOPE" step "$W/ov.json"
t_ok "'step' suggests 'steps'" test "$T_RC" = 2 -a -n "$(grep -F "'stepscope steps'" <<<"$T_ERR")"
t_run "$STEPSCOPE" frobnicate
t_ok "a far-off subcommand suggests nothing" test "$T_RC" = 2 -a -z "$(grep -F "did you mean" <<<"$T_ERR")"
t_run "$STEPSCOPE" analyze "$W/ov.json" --overlap
t_ok "a mistyped option suggests the right one" test "$T_RC" = 2 -a -n "$(grep -F "did you mean --overlaps" <<<"$T_ERR")"
t_run "$STEPSCOPE" steps "$W/jax.json" --step lerner_step
t_ok "a mistyped --step suggests the step name" \
  test "$T_RC" = 1 -a -n "$(grep -F "did you mean 'learner_step'" <<<"$T_ERR")"
t_done
