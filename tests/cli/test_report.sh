# `stepscope report`: usage, bad inputs, a report from a trace, bench and ledger JSON,
# standalone SVGs, escaping, and the page checked in headless Chromium.
. "$(dirname "$0")/lib.sh"
data=tests/data/report

# Lesson 3's shape: 4 learner_step steps, each input_wait then model_and_wait; the
# last step's model call has two nested device-side slices. One name is hostile.
trace="$T_TMP/trace.json"
{
  echo '{"traceEvents":['
  echo '{"ph":"M","pid":701,"tid":12,"name":"thread_name","args":{"name":"MainThread"}},'
  for i in 0 1 2 3; do
    t=$((1000 + i * 2000))
    echo "{\"ph\":\"X\",\"pid\":701,\"tid\":12,\"ts\":$t,\"dur\":$((1500 + i * 10)),\"name\":\"learner_step\",\"args\":{\"step_num\":$i}},"
    echo "{\"ph\":\"X\",\"pid\":701,\"tid\":12,\"ts\":$((t + 10)),\"dur\":1060,\"name\":\"input_wait\"},"
    echo "{\"ph\":\"X\",\"pid\":701,\"tid\":12,\"ts\":$((t + 1080)),\"dur\":400,\"name\":\"model_and_wait\"},"
  done
  echo '{"ph":"X","pid":701,"tid":12,"ts":7090,"dur":300,"name":"dot_general"},'
  echo '{"ph":"X","pid":701,"tid":13,"ts":7100,"dur":200,"name":"<script>alert(1)</script> & \"q\""}'
  echo ']}'
} >"$trace"

t_run "$STEPSCOPE" report --help
t_ok "report --help exits 0 and explains the inputs" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep 'warm samples')"
t_run "$STEPSCOPE" report
t_ok "report without inputs is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" report "$data/bench.json"
t_ok "report without -o is a usage error naming -o" test "$T_RC" = 2 -a -n "$(printf '%s' "$T_ERR" | grep 'missing -o FILE')"
t_run "$STEPSCOPE" report "$data/bench.json" -o "$T_TMP/x.html" --bogus
t_ok "unknown option is a usage error" test "$T_RC" = 2

t_run "$STEPSCOPE" report "$T_TMP/missing.json" -o "$T_TMP/x.html"
t_ok "a missing input fails with exit 1 and names it" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep "missing.json")" -a ! -e "$T_TMP/x.html"
printf '{"warm_samples_seconds": [1e-5, "fast"]}' >"$T_TMP/bad_bench.json"
t_run "$STEPSCOPE" report "$T_TMP/bad_bench.json" -o "$T_TMP/x.html"
t_ok "a malformed bench result names the file, byte and key" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'bad_bench.json: byte 32: "warm_samples_seconds"\[1\] must be a non-negative number')"
printf '{"warm_samples_seconds": [1e-5,' >"$T_TMP/cut_bench.json"
t_run "$STEPSCOPE" report "$T_TMP/cut_bench.json" -o "$T_TMP/x.html"
t_ok "a cut-short bench result names the byte where it ends" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'cut_bench.json: byte 31: input ends')"
printf '{"schema":"stepscope.ledger/1","rows":{},"functions":[]}' >"$T_TMP/bad_ledger.json"
t_run "$STEPSCOPE" report "$T_TMP/bad_ledger.json" -o "$T_TMP/x.html"
t_ok "a malformed ledger names the file and byte" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'bad_ledger.json: byte 38: "rows" and "functions" must be arrays')"
t_run "$STEPSCOPE" report "$data/bench.json" -o "$T_TMP/no-such-dir/x.html"
t_ok "an unwritable output fails with exit 1 and names it" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep 'no-such-dir/x.html: cannot open for writing')"

out="$T_TMP/report.html"
t_run "$STEPSCOPE" report "$data/bench.json" "$data/ledger.json" "$trace" -o "$out" --svg "$T_TMP/svg" --title 'Lessons <1-3>'
t_ok "report from bench, ledger and trace exits 0" test "$T_RC" = 0 -a -s "$out"
t_ok "each input is recognized by its content" \
  test -n "$(printf '%s' "$T_ERR" | grep 'bench.json: read as bench')" -a -n "$(printf '%s' "$T_ERR" | grep 'ledger.json: read as ledger')" \
  -a -n "$(printf '%s' "$T_ERR" | grep 'trace.json: read as trace')"
html=$(cat "$out")
has() { printf '%s' "$html" | grep -q -- "$1"; }
has_all() { for p in "$@"; do has "$p" || return 1; done; }
t_ok "the page has every figure" has_all 'id="fig-bench"' 'id="fig-ledger-calls"' 'id="fig-ledger-compile"' \
  'id="fig-ledger-syncs"' 'id="fig-steps"' 'id="fig-windows"' 'id="fig-lanes"' 'id="tbl-names"'
t_ok "the per-step figure holds 4 steps, 8 children and 4 remainders" \
  test "$(printf '%s' "$html" | grep -c 'id="fig-steps"[^>]*data-steps="4"')" = 1 -a \
  "$(printf '%s' "$html" | sed -n '/<svg id="fig-steps"/,/<\/svg>/p' | grep -o '<rect class="bar" [^>]*data-step=' | wc -l)" = 8 -a \
  "$(printf '%s' "$html" | sed -n '/<svg id="fig-steps"/,/<\/svg>/p' | grep -o '<rect class="bar rem"' | wc -l)" = 4
t_ok "the remainder is step minus children (1500 - 1460 us)" has 'data-step="0" data-name="(unattributed)" data-ns="40000"'
# tid 13's one slice (7100-7300 us) lies in step 3 (7000-8530 us): busy 200 us there, idle in the others.
t_ok "the other lane's busy time per step: 200 us in step 3, 0 in steps 0-2" \
  test "$(printf '%s' "$html" | grep -o '<rect class="busy"[^>]*data-step="3" data-lane="0" data-ns="200000"' | wc -l)" = 1 -a \
  "$(printf '%s' "$html" | grep -o '<rect class="busy"[^>]*data-lane="0" data-ns="0"' | wc -l)" = 3
t_ok "the title is escaped" has '<title>Lessons &lt;1-3&gt;</title>'
t_ok "hostile trace names are escaped" test -z "$(printf '%s' "$html" | grep -F '<script>alert')" -a \
  -n "$(printf '%s' "$html" | grep -F '&lt;script&gt;alert(1)&lt;/script&gt; &amp; &quot;q&quot;')"
t_ok "the page is self-contained (no scripts, no URLs to fetch)" \
  test -z "$(printf '%s' "$html" | grep -E '<script|<link|<img|src=|https?://[^"]*"' | grep -v 'xmlns')"
t_ok "axes say their units" has_all 'time per step (ms)' 'first call (ms)' 'each warm call (µs)'
nsvg=$(ls "$T_TMP/svg"/*.svg 2>/dev/null | wc -l)
nfig=$(printf '%s' "$html" | grep -c '<svg id="fig-')
t_ok "--svg writes one standalone file per figure ($nfig)" test "$nsvg" = "$nfig" -a "$nfig" = 10 -a \
  "$(grep -l '^<?xml' "$T_TMP"/svg/*.svg | wc -l)" = 10 -a "$(grep -l 'xmlns="http://www.w3.org/2000/svg"' "$T_TMP"/svg/*.svg | wc -l)" = 10
if command -v python3 >/dev/null 2>&1; then
  t_ok "the standalone SVGs are well-formed XML" python3 -c '
import sys, xml.dom.minidom
for p in sys.argv[1:]: xml.dom.minidom.parse(p)' "$T_TMP"/svg/*.svg
fi
"$STEPSCOPE" report "$data/bench.json" "$data/ledger.json" "$trace" -o "$T_TMP/again.html" --title 'Lessons <1-3>' >/dev/null 2>&1
t_ok "the same inputs give the same page" cmp -s "$out" "$T_TMP/again.html"
t_run "$STEPSCOPE" report "$data/bench.json" -o -
t_ok "-o - writes the page to standard output" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep '^<!DOCTYPE html>')"

# The page in a real browser (skips itself without Chromium or under sanitizers).
bash tests/browser/run.sh "$out" --steps 4 --children 2 --warm 7 --calls 1,0,0,1 || T_FAILS=$((T_FAILS + 1))

# Real traces: names long enough to be cut (a Python tracer's frames, five pool threads
# that differ only at the end, streams on eight GPUs) and steps named ProfilerStep#N.
fx=${STEPSCOPE_FIXTURES:-../shared/fixtures}/traces
if [ -f "$fx/kineto/h100_bert_small.json.gz" ] && [ -f "$fx/jax/conv_mi300_8gpu.xplane.pb" ]; then
  real="$T_TMP/real.html"
  t_run "$STEPSCOPE" report "$fx/kineto/h100_bert_small.json.gz" "$fx/jax/conv_mi300_8gpu.xplane.pb" -o "$real"
  t_ok "report from a Kineto trace and an XPlane file" test "$T_RC" = 0
  t_ok "the device figure: each step's segments (busy by category, idle by cause) add up to the step" python3 - "$real" <<'PY'
import re, sys
s = open(sys.argv[1]).read()
m = re.search(r'<svg[^>]*id="fig-device0".*?</svg>', s, re.S)
assert m, "no fig-device0"
fig = m.group(0)
assert "Where GPU 0" in fig and "idle: host_wait" in fig
steps = re.findall(r'<g class="step" data-step="(\d+)" data-total-ns="(\d+)">(.*?)</g>', fig, re.S)
assert steps
for _, total, body in steps:
    parts = [int(x) for x in re.findall(r'data-ns="(-?\d+)"', body)]
    assert sum(parts) == int(total), (total, parts)
PY
  bert="$fx/kineto/h100_bert_small.json.gz"
  "$STEPSCOPE" steps --critical-path --json "$bert" >"$T_TMP/cp.json" 2>/dev/null
  "$STEPSCOPE" steps --memory --json "$bert" >"$T_TMP/mem.json" 2>/dev/null
  t_ok "the critical-path figures: each step's bar is steps --critical-path's by_kind, the top names its intervals summed" \
    python3 - "$real" "$T_TMP/cp.json" <<'PY'
import json, re, sys
from collections import defaultdict
s = open(sys.argv[1]).read()
d = json.load(open(sys.argv[2]))
fig = re.search(r'<svg id="fig-critpath" .*?</svg>', s, re.S).group(0)
series = {"host": ["host"], "launch": ["launch"], "sync_wait": ["sync_wait"], "idle": ["idle"],
          "compute": ["compute"], "communication": ["communication"], "memcpy": ["memcpy"],
          "memset, other device": ["memset", "device_other"]}
groups = re.findall(r'<g class="step" data-step="(\d+)" data-total-ns="(\d+)">(.*?)</g>', fig, re.S)
assert len(groups) == len(d["steps"]) > 0
for (i, total, body), st in zip(groups, d["steps"]):
    cp = st["critical_path"]
    assert cp is not None and int(total) == cp["length_ns"] == st["dur_ns"], (total, cp and cp["length_ns"])
    got = dict(re.findall(r'data-name="([^"]*)" data-ns="(-?\d+)"', body))
    for name, kinds in series.items():
        assert int(got.get(name, 0)) == sum(cp["by_kind"][k] for k in kinds), (name, got.get(name))
    assert got["unknown (no path found)"] == "0"
top = re.search(r'<svg id="fig-critpath-top" .*?</svg>', s, re.S).group(0)
tot, cnt = defaultdict(int), defaultdict(int)
for st in d["steps"]:
    for iv in st["critical_path"]["intervals"]:
        key = "%s (%s)" % (iv["name"], iv["kind"]) if iv["name"] is not None else "%s gap (no slice)" % iv["kind"]
        tot[key] += iv["dur_ns"]
        cnt[key] += 1
bars = re.findall(r'data-name="([^"]*)" data-ns="(\d+)" data-intervals="(\d+)"', top)
want = sorted(tot.items(), key=lambda kv: -kv[1])[:len(bars)]
assert len(bars) == min(12, len(tot)) and [int(b[1]) for b in bars] == [v for _, v in want]
import html
for name, ns, n in bars:
    name = html.unescape(name)
    assert tot[name] == int(ns) and cnt[name] == int(n), name
PY
  t_ok "the memory figures: per device the peak, the points and the step boundaries of steps --memory --json" \
    python3 - "$real" "$T_TMP/mem.json" <<'PY'
import json, re, sys
s = open(sys.argv[1]).read()
s = s[:s.index('<section id="sec-trace-2"')]  # the Kineto trace's section
d = json.load(open(sys.argv[2]))
figs = re.findall(r'<svg id="fig-memory\d+" .*?</svg>', s, re.S)
assert len(figs) == len(d["devices"]) == 2, len(figs)
for fig in figs:
    dev = re.search(r'Memory in use on (.*?) over time', fig).group(1)
    (j, m), = [(j, m) for j, m in enumerate(d["devices"]) if m["device"] == dev]
    assert int(re.search(r'data-peak-bytes="(-?\d+)"', fig).group(1)) == m["peak_bytes"]
    assert int(re.search(r'data-peak-ts-ns="(-?\d+)"', fig).group(1)) == m["peak_ts_ns"]
    c = re.search(r'<circle class="peak"[^>]*data-bytes="(\d+)" data-ts-ns="(\d+)"', fig)
    assert (int(c.group(1)), int(c.group(2))) == (m["peak_bytes"], m["peak_ts_ns"])
    # one point per event plus the bytes in use just before the first
    assert int(re.search(r'data-points="(\d+)"', fig).group(1)) == len(m["points"]) + 1
    lines = re.findall(r'<line class="ref stepb"[^>]*data-step="(\d+)" data-ts-ns="(\d+)"( data-peak-bytes="(-?\d+)")?', fig)
    assert len(lines) == len(d["steps"]) + 1
    for (k, ts, _, pk), st in zip(lines, d["steps"]):
        assert int(ts) == st["ts_ns"] and int(pk) == st["memory"][j]["peak_bytes"]
    assert int(lines[-1][1]) == d["steps"][-1]["ts_ns"] + d["steps"][-1]["dur_ns"]
PY
  t_ok "the busiest step is named once: ProfilerStep#6, not ProfilerStep#6 6" \
    test -n "$(grep -F 'busiest step: ProfilerStep#6 (' "$real")" -a -z "$(grep -F 'ProfilerStep#6 6' "$real")"
  t_ok "threads of one process that share a name are told apart by tid; processes by pid" \
    test -n "$(grep -F '<g class="lane-group"><title>python3 (pid 19392)</title>' "$real")" -a \
    -n "$(grep -F '<g class="lane-group"><title>python3 (pid 0)</title>' "$real")"
  t_ok "a Python tracer's frames around the whole window are one row" \
    test -n "$(grep -o '<rect class="encl" data-depths="[0-9]*"' "$real")"
  bash tests/browser/run.sh "$real" || T_FAILS=$((T_FAILS + 1))
else
  t_skip "report from real traces" "../shared/fixtures is absent"
fi
t_done
