#!/usr/bin/env bash
# `stepscope diff` on real pairs and against SciPy:
#   - the statistics against scipy.stats.mannwhitneyu and NumPy (tests/interop/diff_check.py);
#   - two JAX runs of lesson 3's code (scripts/interop/jax_lesson3.py) with a 20 ms and a
#     2 ms input_wait, 12 steps each: input_wait and the step shrank, and the per-step
#     samples are exactly the durations the lesson's own code reads back. (Not the
#     lesson's 1 ms and 0.2 ms over 4 steps: on a loaded machine a 0.2 ms sleep can take
#     milliseconds, and then the diff rightly says it cannot tell; the waits here are
#     far enough apart that scheduling delays do not cross them.)
#   - two PyTorch runs of the same waits, 12 steps each (scripts/interop/torch_lesson.py,
#     Debian's python3-torch);
#   - on both pairs, the critical path's what-if on the slow run predicts the step's change
#     (tests/interop/critpath_predict.py), which the diff then measures;
#   - two ledgers from real JAX compile logs before and after padding the batch
#     (scripts/interop/jax_padding.py): batch_loss compiles 8 -> 4.
# Prints ok/FAIL/SKIP lines; skips what its producer cannot run.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh
STEPSCOPE=${STEPSCOPE:-build/stepscope}
py=${STEPSCOPE_VENV:-.venv}/bin/python

if [ ! -x "$STEPSCOPE" ]; then
  echo "FAIL diff-interop: $STEPSCOPE is not built"
  exit 1
fi
have_jax=0
if [ -x "$py" ] && "$py" -c 'import jax, scipy' 2>/dev/null; then have_jax=1; fi

# The exit status must agree with the predictions in the JSON, whatever they say.
status_matches() {
  python3 - "$1" "$2" <<'EOF'
import json, sys
d = json.load(open(sys.argv[1]))
r = [p["result"] for p in d["predictions"]]
want = 3 if "failed" in r else 4 if "inconclusive" in r else 0
sys.exit(0 if want == int(sys.argv[2]) == d["summary"]["exit_status"] else 1)
EOF
}

# ---- SciPy ----------------------------------------------------------------------------
if [ "$have_jax" = 1 ]; then
  mkdir -p "$T_TMP/scipy"
  "$py" tests/interop/diff_check.py "$STEPSCOPE" "$T_TMP/scipy" || T_FAILS=$((T_FAILS + 1))
else
  t_skip "diff-scipy" "$py cannot import scipy (scripts/interop/setup.sh makes the environment)"
fi

# ---- JAX: lesson 3 with two waits ---------------------------------------------------------
if [ "$have_jax" = 1 ]; then
  ok_jax=1
  for run in "slow 0.02" "fast 0.002"; do
    set -- $run
    mkdir -p "$T_TMP/jax-$1"
    timeout 3000 "$py" scripts/interop/jax_lesson3.py "$T_TMP/jax-$1" "$2" 12 >"$T_TMP/jax-$1.log" 2>&1 || ok_jax=0
  done
  if [ "$ok_jax" = 0 ]; then
    echo "FAIL diff-jax: jax_lesson3.py failed"
    tail -n 10 "$T_TMP"/jax-*.log | sed 's/^/  | /'
    T_FAILS=$((T_FAILS + 1))
  else
    pa=$T_TMP/jax-slow/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["perfetto_trace"])' "$T_TMP/jax-slow/lesson3.json")
    pb=$T_TMP/jax-fast/$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["perfetto_trace"])' "$T_TMP/jax-fast/lesson3.json")
    t_run "$STEPSCOPE" diff "$pa" "$pb" --expect input_wait:shrink --expect step:shrink --expect model_and_wait:same --json
    printf '%s' "$T_OUT" >"$T_TMP/jax-diff.json"
    t_ok "diff-jax: the JSON's exit status agrees with its predictions" status_matches "$T_TMP/jax-diff.json" "$T_RC"
    python3 - "$T_TMP/jax-diff.json" "$T_TMP/jax-slow/lesson3.json" "$T_TMP/jax-fast/lesson3.json" <<'EOF' || T_FAILS=$((T_FAILS + 1))
import json, sys
d = json.load(open(sys.argv[1]))
lesson = [json.load(open(p)) for p in sys.argv[2:]]
rows = {r["key"]: r for r in d["intervals"]}
preds = {p["expect"]: p for p in d["predictions"]}
ok = True
def check(name, cond, detail=""):
    global ok
    print(("ok   " if cond else "FAIL ") + "diff-jax " + name + ("" if cond else ": " + str(detail)))
    ok &= bool(cond)
for key, field in (("input_wait", "input_wait_us"), ("model_and_wait", "model_and_wait_us"), ("step", "step_us")):
    for side, l in zip(("base", "new"), lesson):
        got = rows[key][side]["samples_ns"]
        want = [round(us * 1000) for us in l[field]]
        check("%s %s samples are the lesson's own durations" % (side, key), got == want, "%s vs %s" % (got, want))
check("input_wait:shrink held (20 ms -> 2 ms)", preds["input_wait:shrink"]["result"] == "held", preds["input_wait:shrink"]["why"])
check("step:shrink held", preds["step:shrink"]["result"] == "held", preds["step:shrink"]["why"])
w = rows["input_wait"]
untied = len(set(w["base"]["samples_ns"] + w["new"]["samples_ns"])) == 24
check("12 vs 12 steps without ties: the exact test", not untied or w["method"] == "exact", w["method"])
check("model_and_wait:same is judged", preds["model_and_wait:same"]["result"] in ("held", "failed", "inconclusive"))
sys.exit(0 if ok else 1)
EOF
    # The critical path's what-if on the slow run alone, against the diff's measurement.
    python3 tests/interop/critpath_predict.py "$STEPSCOPE" "$pa" "$pb" 0.02 0.002 critpath-jax || T_FAILS=$((T_FAILS + 1))
  fi
else
  t_skip "diff-jax" "$py cannot import jax"
fi

# ---- PyTorch: lesson 3 with two waits --------------------------------------------------------
if /usr/bin/python3 -c 'import importlib.util as u, sys; sys.exit(u.find_spec("torch") is None)' 2>/dev/null; then
  if /usr/bin/python3 scripts/interop/torch_lesson.py "$T_TMP/torch-slow.json" 0.02 12 >"$T_TMP/torch.log" 2>&1 &&
    /usr/bin/python3 scripts/interop/torch_lesson.py "$T_TMP/torch-fast.json" 0.002 12 >>"$T_TMP/torch.log" 2>&1; then
    t_run "$STEPSCOPE" diff "$T_TMP/torch-slow.json" "$T_TMP/torch-fast.json" --expect input_wait:shrink --expect step:shrink --json
    printf '%s' "$T_OUT" >"$T_TMP/torch-diff.json"
    t_ok "diff-torch: input_wait and step shrank over 12 vs 12 steps (exit 0)" test "$T_RC" = 0
    t_ok "diff-torch: the JSON's exit status agrees with its predictions" status_matches "$T_TMP/torch-diff.json" "$T_RC"
    python3 tests/interop/critpath_predict.py "$STEPSCOPE" "$T_TMP/torch-slow.json" "$T_TMP/torch-fast.json" 0.02 0.002 \
      critpath-torch || T_FAILS=$((T_FAILS + 1))
  else
    echo "FAIL diff-torch: torch_lesson.py failed"
    tail -n 10 "$T_TMP/torch.log" | sed 's/^/  | /'
    T_FAILS=$((T_FAILS + 1))
  fi
else
  t_skip "diff-torch" "/usr/bin/python3 has no torch (scripts/deps.sh interop installs python3-torch)"
fi

# ---- ledgers before and after padding the batch ------------------------------------------------
if [ "$have_jax" = 1 ]; then
  for run in "raw" "pad --pad"; do
    set -- $run
    mkdir -p "$T_TMP/pad-$1"
    JAX_LOG_COMPILES=1 timeout 3000 "$py" scripts/interop/jax_padding.py "$T_TMP/pad-$1" ${2:-} 2>"$T_TMP/pad-$1/compile.log" >/dev/null
    "$STEPSCOPE" ledger "$T_TMP/pad-$1/compile.log" --json >"$T_TMP/pad-$1/ledger.json" 2>"$T_TMP/pad-$1/ledger.err"
  done
  t_run "$STEPSCOPE" diff "$T_TMP/pad-raw/ledger.json" "$T_TMP/pad-pad/ledger.json" --expect batch_loss:shrink \
    --expect 'batch_loss.specializations:shrink>=50%' --json
  printf '%s' "$T_OUT" >"$T_TMP/pad-diff.json"
  t_ok "diff-ledger: padding cut batch_loss's compiles and specializations (exit 0)" test "$T_RC" = 0
  python3 - "$T_TMP/pad-diff.json" "$T_TMP/pad-raw/truth.json" "$T_TMP/pad-pad/truth.json" <<'EOF' || T_FAILS=$((T_FAILS + 1))
import json, sys
d = json.load(open(sys.argv[1]))
raw, pad = (json.load(open(p)) for p in sys.argv[2:])
rows = {r["key"]: r for r in d["intervals"]}
r = rows.get("batch_loss.specializations")
ok = r is not None and r["base"]["median"] == raw["specializations"] == 8 and r["new"]["median"] == pad["specializations"] == 4
print(("ok   " if ok else "FAIL ") + "diff-ledger specializations 8 -> 4 match what the program traced" + ("" if ok else ": %s" % r))
sys.exit(0 if ok else 1)
EOF
else
  t_skip "diff-ledger" "$py cannot import jax"
fi
t_done
