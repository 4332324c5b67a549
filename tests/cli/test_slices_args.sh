# slices --args KEY,KEY: a CSV column per arg key, empty where a slice has none; a mode
# name keeps its old meaning. Expected values are the ones written here.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"
python3 - "$W/t.json" <<'PY'
import json, sys
ev = [{"ph": "X", "name": "ProfilerStep#3", "pid": 1, "tid": 1, "ts": 0, "dur": 100, "args": {"step_num": 3}},
      {"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 10, "dur": 20,
       "args": {"Input Dims": [[2, 3], [3, 4]], "External id": 7, "note": "a, \"quoted\" one"}},
      {"ph": "X", "name": "fusion.1", "pid": 1, "tid": 1, "ts": 40, "dur": 5, "args": {"hlo_op": "fusion.1", "ratio": 0.5}}]
json.dump(ev, open(sys.argv[1], "w"), indent=2)
PY

t_run "$STEPSCOPE" slices --csv "$W/t.json" --args 'Input Dims,step_num,hlo_op,note,ratio,absent'
printf '%s\n' "$T_OUT" >"$W/out.csv"
t_ok "slices --args KEY,KEY: one column per key, the values as written, empty when absent" python3 - "$W/out.csv" <<'PY'
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
assert rows[0] == ["pid", "tid", "ts_ns", "dur_ns", "depth", "name", "Input Dims", "step_num", "hlo_op", "note",
                   "ratio", "absent"], rows[0]
by = {r[5]: r[6:] for r in rows[1:]}
assert by["ProfilerStep#3"] == ["", "3", "", "", "", ""], by
assert by["aten::mm"] == ["[[2,3],[3,4]]", "", "", 'a, "quoted" one', "", ""], by
assert by["fusion.1"] == ["", "", "fusion.1", "", "0.5", ""], by
PY

t_run "$STEPSCOPE" slices --csv "$W/t.json" --track --args step_num
t_ok "slices --track --args KEY: the key column after the track" \
  test "$(head -n 1 <<<"$T_OUT")" = "pid,tid,ts_ns,dur_ns,depth,name,track,step_num"
t_run "$STEPSCOPE" slices --csv "$W/t.json" --args all
t_ok "slices --args all: still a mode, no extra columns" test "$(head -n 1 <<<"$T_OUT")" = "pid,tid,ts_ns,dur_ns,depth,name"
t_run "$STEPSCOPE" slices --csv "$W/t.json" --args 'a,,b'
t_ok "slices --args with an empty key: a usage error" test "$T_RC" -eq 2 -a -n "$(grep 'comma-separated arg keys' <<<"$T_ERR")"

F=$(t_fixtures)
K="$F/traces/kineto/h100_bert_small.json.gz"
if [ -f "$K" ]; then
  t_run "$STEPSCOPE" slices --csv "$K" --args 'Input Dims'
  t_ok "slices --args 'Input Dims' on a Kineto fixture: shapes of aten ops as one-line JSON" \
    test -n "$(grep -F 'aten::slice,"[[1,512],' <<<"$T_OUT")"
else
  t_skip "slices --args on a Kineto fixture" "no fixtures (STEPSCOPE_FIXTURES)"
fi

t_done
