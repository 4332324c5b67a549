# The trace commands (analyze, steps, slices): help, usage errors, bad input, output
# formats, warnings. Traces are written here; real ones are in test_fixtures.sh.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"
# A small whole-microsecond trace: two steps with children, a 1 us overrun (clamped),
# a 5 us overrun (overlap), a name needing CSV quotes, a second lane.
cat >"$W/t.json" <<'JSON'
{"traceEvents": [
 {"ph": "M", "name": "thread_name", "pid": 7, "tid": 1, "args": {"name": "main"}},
 {"ph": "X", "name": "step", "pid": 7, "tid": 1, "ts": 0, "dur": 100},
 {"ph": "X", "name": "load", "pid": 7, "tid": 1, "ts": 1, "dur": 40},
 {"ph": "X", "name": "compute, \"fast\"", "pid": 7, "tid": 1, "ts": 50, "dur": 51},
 {"ph": "X", "name": "step", "pid": 7, "tid": 1, "ts": 200, "dur": 100},
 {"ph": "X", "name": "load", "pid": 7, "tid": 1, "ts": 201, "dur": 30},
 {"ph": "X", "name": "compute, \"fast\"", "pid": 7, "tid": 1, "ts": 250, "dur": 55},
 {"ph": "X", "name": "other", "pid": 7, "tid": 2, "ts": 10, "dur": 20}
]}
JSON

for cmd in analyze steps slices; do
  t_run "$STEPSCOPE" $cmd --help
  t_ok "$cmd --help exits 0 and shows usage" test "$T_RC" = 0 -a -n "$(grep "usage: stepscope $cmd" <<<"$T_OUT")"
  t_run "$STEPSCOPE" $cmd
  t_ok "$cmd without a trace is a usage error (2)" test "$T_RC" = 2
  t_run "$STEPSCOPE" $cmd "$W/t.json" --bogus
  t_ok "$cmd with an unknown option is a usage error (2)" test "$T_RC" = 2 -a -n "$(grep -e "--bogus" <<<"$T_ERR")"
  t_run "$STEPSCOPE" $cmd "$W/t.json" "$W/t.json"
  t_ok "$cmd with one trace named twice (as two hosts): exit 1, named" test "$T_RC" = 1 -a -n "$(grep -F 'are the same file' <<<"$T_ERR")"
  t_run "$STEPSCOPE" $cmd "$W/missing.json"
  t_ok "$cmd on a missing file exits 1 naming it" test "$T_RC" = 1 -a -n "$(grep -F "$W/missing.json" <<<"$T_ERR")"
done

t_run "$STEPSCOPE" analyze "$W/t.json" --top -1
t_ok "analyze --top -1 is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" analyze "$W/t.json" --top x
t_ok "analyze --top x is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" steps "$W/t.json" --step 'bad(regex'
t_ok "steps with an invalid regex is a usage error naming it" test "$T_RC" = 2 -a -n "$(grep -F 'bad(regex' <<<"$T_ERR")"
t_run "$STEPSCOPE" analyze "$W/t.json" --run latest
t_ok "--run on a file is an error" test "$T_RC" = 1 -a -n "$(grep -F "$W/t.json" <<<"$T_ERR")"

# Bad input: the file name and position in the message, exit 1.
printf '[{"ph": "X", "name": "a", "ts": 1, "dur": 2}, {"ph": "X", "ts": }]' >"$W/broken.json"
t_run "$STEPSCOPE" analyze "$W/broken.json"
t_ok "malformed JSON exits 1 naming the file and byte" test "$T_RC" = 1 -a -n "$(grep -F "$W/broken.json" <<<"$T_ERR" | grep -i byte)"
: >"$W/empty.json"
t_run "$STEPSCOPE" steps "$W/empty.json"
t_ok "an empty file exits 1 naming the file" test "$T_RC" = 1 -a -n "$(grep -F "$W/empty.json" <<<"$T_ERR" | grep empty)"
printf '\x08\x01\x12garbage' >"$W/garbage.pb"
t_run "$STEPSCOPE" slices "$W/garbage.pb"
t_ok "a non-JSON, non-XSpace file exits 1 naming the file" test "$T_RC" = 1 -a -n "$(grep -F "$W/garbage.pb" <<<"$T_ERR")"
mkdir -p "$W/emptydir"
t_run "$STEPSCOPE" analyze "$W/emptydir"
t_ok "a directory without a profile exits 1 saying what it expected" test "$T_RC" = 1 -a -n "$(grep xplane.pb <<<"$T_ERR")"

# analyze: facts, names by self time, lanes, overlaps.
t_run "$STEPSCOPE" analyze "$W/t.json"
t_ok "analyze exits 0" test "$T_RC" = 0
t_ok "analyze reports 1 clamped and 1 overlap" grep -q "1 clamped .* 1 overlap " <<<"$T_OUT"
t_ok "analyze ranks by self time: compute (105 us) then step (80 us)" test "$(grep -A3 '^names by self time' <<<"$T_OUT" | tail -2 | awk '{print $1}' | tr '\n' ' ')" = "compute, step "
t_ok "analyze lists the overlap with both names" grep -qF "1x 'compute, \"fast\"' overran 'step' by $(t_dur 5000)" <<<"$T_OUT"
t_ok "analyze shows the thread name" grep -q "main" <<<"$T_OUT"
t_run "$STEPSCOPE" analyze --json "$W/t.json"
printf '%s' "$T_OUT" >"$W/a.json"
t_ok "analyze --json has the documented fields and exact numbers" python3 - "$W/a.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
t = d["trace"]
assert t["slices"] == 7 and t["clamped"] == 1 and t["overlaps"] == 1 and d["clamped"] == 1 and d["overlaps"] == 1
assert t["resolution_ns"] == 1000 and t["by_phase"] == {"M": 1, "X": 7} and t["events"] == 8
names = {n["name"]: n for n in d["names"]}
assert [n["name"] for n in d["names"]] == ['compute, "fast"', "step", "load", "other"]
# step 1: load 40 + compute clamped to 50 -> self 10; step 2: load 30, compute 55 overlaps -> self 70
assert names["step"] == {"name": "step", "count": 2, "total_ns": 200000, "self_ns": 80000,
                         "min_ns": 100000, "median_ns": 100000, "max_ns": 100000}, names["step"]
c = names['compute, "fast"']
assert (c["total_ns"], c["self_ns"], c["min_ns"], c["max_ns"], c["median_ns"]) == (105000, 105000, 50000, 55000, 52500)
lanes = {(l["pid"], l["tid"]): l for l in d["lanes"]}
assert lanes[("7", "1")]["thread"] == "main"
assert lanes[("7", "1")]["union_ns"] == 205000 and lanes[("7", "1")]["span_ns"] == 305000
assert lanes[("7", "2")]["union_ns"] == 20000
ov = d["overlap_list"][0]
assert ov["name"] == 'compute, "fast"' and ov["parent"] == "step" and ov["overrun_ns"] == 5000
PY
t_run "$STEPSCOPE" analyze --json --top 1 "$W/t.json"
t_ok "analyze --json --top 1 lists one name" test "$(printf '%s' "$T_OUT" | python3 -c 'import json,sys; print(len(json.load(sys.stdin)["names"]))')" = 1

# steps
t_run "$STEPSCOPE" steps "$W/t.json"
t_ok "steps finds the repeated root and says so" test "$T_RC" = 0 -a -n "$(grep 'found by: repeated-name' <<<"$T_OUT")"
t_run "$STEPSCOPE" steps --json --step step "$W/t.json"
printf '%s' "$T_OUT" >"$W/s.json"
t_ok "steps --json: children by name, unattributed, naive" python3 - "$W/s.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
assert d["rule"] == "given-name"
s = d["steps"]
assert [x["index"] for x in s] == [0, 1]
assert s[0]["children"] == {"load": 40000, 'compute, "fast"': 50000}, s[0]
assert s[0]["unattributed_ns"] == 10000 and s[0]["naive_ns"] == 190000
assert s[1]["children"] == {"load": 30000} and s[1]["unattributed_ns"] == 70000
assert d["summary"]["naive_ns"] == 200000 + 120000
PY
t_run "$STEPSCOPE" steps "$W/t.json" --step 'no_such_name'
t_ok "steps with no match exits 1 listing what it tried" test "$T_RC" = 1 -a -n "$(grep "tried:" <<<"$T_ERR")" -a -n "$(grep "no_such_name" <<<"$T_ERR")"
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":0,"dur":1},{"ph":"X","name":"b","pid":1,"tid":1,"ts":5,"dur":1}]' >"$W/flat.json"
t_run "$STEPSCOPE" steps "$W/flat.json"
t_ok "steps on a flat trace exits 1 naming the candidates" test "$T_RC" = 1 -a -n "$(grep "ProfilerStep#N" <<<"$T_ERR")" -a -n "$(grep "'a'" <<<"$T_ERR")"

# slices
t_run "$STEPSCOPE" slices --csv "$W/t.json"
t_ok "slices header is exact" test "$(head -1 <<<"$T_OUT")" = "pid,tid,ts_ns,dur_ns,depth,name"
t_ok "slices has one row per slice" test "$(wc -l <<<"$T_OUT")" = 8
t_ok "slices quotes names per RFC 4180" grep -qx '7,1,50000,50000,1,"compute, ""fast"""' <<<"$T_OUT"
t_ok "slices lists lane 7/1 before 7/2, by ts then depth" test "$(sed -n '2p;3p;8p' <<<"$T_OUT" | cut -d, -f1-5 | tr '\n' ' ')" = "7,1,0,100000,0 7,1,1000,40000,1 7,2,10000,20000,0 "
t_run "$STEPSCOPE" slices "$W/t.json"
t_ok "slices writes CSV without --csv too" test "$T_RC" = 0 -a "$(head -1 <<<"$T_OUT")" = "pid,tid,ts_ns,dur_ns,depth,name"
gzip -c "$W/t.json" >"$W/t.json.gz"
t_run "$STEPSCOPE" slices --csv "$W/t.json.gz"
t_ok "gzip input gives the same CSV" test "$T_OUT" = "$("$STEPSCOPE" slices --csv "$W/t.json")"

# warnings: prefixed, at most 10 then a count
{
  printf '['
  for i in $(seq 1 13); do printf '{"ph":"X","name":"nodur","pid":1,"tid":1,"ts":%d},' "$i"; done
  printf '{"ph":"B","name":"open","pid":1,"tid":1,"ts":50},{"ph":"X","name":"w","pid":1,"tid":1,"ts":60,"dur":5}]'
} >"$W/warn.json"
t_run "$STEPSCOPE" analyze "$W/warn.json"
t_ok "warnings go to stderr with the prefix" test "$T_RC" = 0 -a "$(grep -c '^stepscope analyze: warning: ' <<<"$T_ERR")" = 11
t_ok "warnings beyond 10 are counted" grep -q "and 4 more warnings" <<<"$T_ERR"
t_run "$STEPSCOPE" slices "$W/warn.json"
t_ok "an unclosed B has dur -1 in slices, as in Perfetto" grep -qx "1,1,50000,-1,0,open" <<<"$T_OUT"

# Times that do not fit int64 together are refused, never wrapped (issue 16, item 5).
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":-9e15,"dur":1},{"ph":"X","name":"b","pid":1,"tid":1,"ts":9e15,"dur":1}]' >"$W/far.json"
t_run "$STEPSCOPE" analyze --json "$W/far.json"
t_ok "events 1.8e19 ns apart: the second is refused naming its event index, the span is not negative" \
  python3 -c 'import json,sys; t=json.load(sys.stdin)["trace"]; assert t["span_ns"] >= 0 and t["rejected"] == 1 and t["slices"] == 1, t; assert any("event 1" in w and "out of range" in w for w in t["warnings"]), t["warnings"]' <<<"$T_OUT"
t_run "$STEPSCOPE" analyze "$W/far.json"
t_ok "analyze prints no negative span" test "$T_RC" = 0 -a -z "$(grep -E '^span +-' <<<"$T_OUT")"

# A JAX-style profile directory: the latest run, or --run.
mkdir -p "$W/prof/plugins/profile/2024_01_01" "$W/prof/plugins/profile/2024_02_01"
gzip -c "$W/flat.json" >"$W/prof/plugins/profile/2024_01_01/perfetto_trace.json.gz"
gzip -c "$W/t.json" >"$W/prof/plugins/profile/2024_02_01/host.trace.json.gz"
t_run "$STEPSCOPE" slices "$W/prof"
t_ok "a profile directory reads the latest run" test "$T_RC" = 0 -a "$(wc -l <<<"$T_OUT")" = 8
t_run "$STEPSCOPE" slices "$W/prof" --run 2024_01_01
t_ok "--run picks a run" test "$T_RC" = 0 -a "$(wc -l <<<"$T_OUT")" = 3
t_run "$STEPSCOPE" slices "$W/prof" --run nope
t_ok "--run with an unknown run exits 1 listing the runs" test "$T_RC" = 1 -a -n "$(grep "2024_02_01" <<<"$T_ERR")"
# The names table by parts of the lanes on threads side by side (sts_scope.jobs), and the
# whole analysis with the busy times on a thread beside the names (sts_analysis_run), under
# ThreadSanitizer: the unit tests against the definitions, from the build make check-tsan makes.
if t_tsan "names by parts under ThreadSanitizer" test_analyze_props; then
  t_run env STS_TEST_ONLY="names_by_parts_match_the_definitions analysis_run_matches_its_parts" \
    TSAN_OPTIONS=halt_on_error=1 "$T_TSAN"
  t_ok "names by parts and the analysis's threads: right and race-free under ThreadSanitizer" \
    test "$T_RC" = 0 -a -n "$(grep -x "2 passed, 0 failed, 0 skipped" <<<"$T_OUT")"
fi
# "\u0000" in a name is U+2400, visible everywhere names are printed: "k\u0000a" and
# "k\u0000b" were two rows both shown as "k", and slices --csv cut the name at the NUL.
printf '{"traceEvents":[{"ph":"X","name":"k\\u0000a","ts":0,"dur":5,"pid":1,"tid":1},{"ph":"X","name":"k\\u0000b","ts":10,"dur":7,"pid":1,"tid":1}]}' >"$T_TMP/nul.json"
t_run "$STEPSCOPE" analyze "$T_TMP/nul.json"
t_ok "analyze: names with a NUL are shown with ␀, two distinct rows" test "$T_RC" = 0 -a \
  -n "$(grep -E '^  k␀b +1 ' <<<"$T_OUT")" -a -n "$(grep -E '^  k␀a +1 ' <<<"$T_OUT")"
t_run "$STEPSCOPE" slices --csv "$T_TMP/nul.json"
t_ok "slices --csv carries the whole name" test "$T_RC" = 0 -a \
  "$(printf '%s\n' "$T_OUT" | tail -n 2 | cut -d, -f6 | tr '\n' ' ')" = "k␀a k␀b "
t_run "$STEPSCOPE" analyze --json "$T_TMP/nul.json"
t_ok "analyze --json: both names in full" test "$T_RC" = 0 -a \
  "$(printf '%s' "$T_OUT" | python3 -c 'import json,sys; d=json.load(sys.stdin); print(sorted(n["name"] for n in d["names"]))')" = "['k␀a', 'k␀b']"
# Numbered names: ProfilerStep#3..14 rank as one row ProfilerStep#N (the sums, extremes
# and median of their durations computed here); a numbered name alone keeps its number;
# "#7" (no prefix) and "v#1x" (not only digits) are not numbered; --no-group ranks each.
python3 - "$T_TMP/ps.json" <<'PY'
import json, sys
ev = []
for k in range(3, 15):
    ev.append({"ph": "X", "name": "ProfilerStep#%d" % k, "pid": 1, "tid": 1, "ts": 1000 * k, "dur": 900 + 3 * k})
    ev.append({"ph": "X", "name": "aten::mm", "pid": 1, "tid": 1, "ts": 1000 * k + 10, "dur": 100})
ev += [{"ph": "X", "name": n, "pid": 1, "tid": 2, "ts": 10 * i, "dur": 5} for i, n in enumerate(["#7", "#8", "v#1x", "Alone#4"])]
json.dump(ev, open(sys.argv[1], "w"))
PY
t_run "$STEPSCOPE" analyze --json "$T_TMP/ps.json"
t_ok "analyze: ProfilerStep#3..14 are one row ProfilerStep#N, by numbered, its numbers those of the twelve" python3 -c '
import json, sys, statistics
d = json.loads(sys.argv[1])
rows = {n["name"]: n for n in d["names"]}
durs = [(900 + 3 * k) * 1000 for k in range(3, 15)]
p = rows["ProfilerStep#N"]
assert (p["count"], p["total_ns"], p["self_ns"], p["min_ns"], p["max_ns"], p["by"]) == (12, sum(durs), sum(durs) - 12 * 100000, min(durs), max(durs), "numbered"), p
assert p["median_ns"] == statistics.median(durs), p
assert sorted(rows) == ["#7", "#8", "Alone#4", "ProfilerStep#N", "aten::mm", "v#1x"], sorted(rows)
assert "by" not in rows["aten::mm"] and d["scope"]["numbered_names_grouped"] is True' "$T_OUT"
t_run "$STEPSCOPE" analyze "$T_TMP/ps.json"
t_ok "analyze text: the ProfilerStep#N row and a line saying what NAME#N means" \
  test "$T_RC" = 0 -a -n "$(grep -E '^  ProfilerStep#N +12 ' <<<"$T_OUT")" -a -n "$(grep -F -- '--no-group ranks each' <<<"$T_OUT")"
t_run "$STEPSCOPE" analyze --json --no-group "$T_TMP/ps.json"
t_ok "analyze --no-group: every exact name its own row" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
names = [n["name"] for n in d["names"]]
assert sorted(n for n in names if n.startswith("ProfilerStep")) == sorted("ProfilerStep#%d" % k for k in range(3, 15)), names
assert not any("by" in n for n in d["names"]) and d["scope"]["numbered_names_grouped"] is False' "$T_OUT"
t_run "$STEPSCOPE" analyze --json --window 3ms:3.95ms "$T_TMP/ps.json"
t_ok "analyze --window holding one ProfilerStep: it keeps its number (the group counts the slices kept)" python3 -c '
import json, sys
names = [n["name"] for n in json.loads(sys.argv[1])["names"]]
assert "ProfilerStep#3" in names and "ProfilerStep#N" not in names, names' "$T_OUT"
t_run "$STEPSCOPE" analyze --no-group --group hlo_op "$T_TMP/ps.json"
t_ok "analyze --no-group with --group hlo_op: a usage error" test "$T_RC" = 2 -a -n "$(grep -F 'does not go with --group hlo_op' <<<"$T_ERR")"
t_run "$STEPSCOPE" analyze --json --name 'ProfilerStep#3' "$T_TMP/ps.json"
t_ok "analyze --name picks exact names: one ProfilerStep#3 keeps its number" python3 -c '
import json, sys
assert [n["name"] for n in json.loads(sys.argv[1])["names"]] == ["ProfilerStep#3"]' "$T_OUT"
# --group scope: XLA ops by the named scope of their HLO op_name (the /host:metadata
# plane's HloProto), each scope's rows the sums of its ops' --group hlo_op rows, with the
# scopes read here by tests/cli/hlo_scopes.py; ops without one keep their rows.
TE="${STEPSCOPE_FIXTURES:-}/traces/jax/te_fused_attn.xplane.pb"
if [ -f "$TE" ]; then
  "$STEPSCOPE" analyze --json --group hlo_op "$TE" >"$T_TMP/op.json" 2>/dev/null
  "$STEPSCOPE" analyze --json --group scope "$TE" >"$T_TMP/scope.json" 2>/dev/null
  python3 "$(dirname "$0")/hlo_scopes.py" "$TE" >"$T_TMP/scopes.json"
  t_ok "analyze --group scope: each scope row sums the ops whose op_name lies under it" python3 - "$T_TMP" <<'PY'
import json, sys, collections
d = sys.argv[1]
ops, got, sc = (json.load(open(d + "/" + f)) for f in ("op.json", "scope.json", "scopes.json"))
want, rest = collections.defaultdict(lambda: [0, 0, 0, None, None]), []
for n in ops["names"]:
    key = "%s\t%s" % (n.get("hlo_module"), n["name"]) if n.get("by") == "hlo_op" else None
    if key in sc:
        w = want[sc[key]]
        w[0] += n["count"]; w[1] += n["total_ns"]; w[2] += n["self_ns"]
        w[3] = n["min_ns"] if w[3] is None else min(w[3], n["min_ns"])
        w[4] = n["max_ns"] if w[4] is None else max(w[4], n["max_ns"])
    elif n.get("by") != "hlo_op":
        rest.append(n["name"])
g = {n["name"]: [n["count"], n["total_ns"], n["self_ns"], n["min_ns"], n["max_ns"]] for n in got["names"] if n.get("by") == "scope"}
assert len(g) >= 2 and g == dict(want), (g, dict(want))
assert got["scope"]["group"] == "scope"
plain = {n["name"] for n in got["names"] if "by" not in n}
assert set(rest) <= plain, set(rest) - plain
PY
else
  t_skip "analyze --group scope on te_fused_attn.xplane.pb" "fixture absent"
fi
t_run "$STEPSCOPE" analyze --group scopes "$T_TMP/ps.json"
t_ok "analyze --group with an unknown grouping names the four: exit 2" \
  test "$T_RC" = 2 -a -n "$(grep -F "expects name, hlo_op, hlo_module or scope, got 'scopes'" <<<"$T_ERR")"
t_run "$STEPSCOPE" analyze --json --group scope "$T_TMP/ps.json"
t_ok "analyze --group scope of a trace without HLO metadata: every slice by its name" python3 -c '
import json, sys
d = json.loads(sys.argv[1])
assert not any(n.get("by") == "scope" for n in d["names"]) and "ProfilerStep#3" in [n["name"] for n in d["names"]]' "$T_OUT"
t_done
