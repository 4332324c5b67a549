#!/usr/bin/env bash
# `stepscope ledger` on real JAX logs: scripts/interop/jax_logs.py runs lesson 2 and an
# eight-length batch loop with JAX_LOG_COMPILES=1 and jax_explain_cache_misses under the
# interop environment (.venv/, made by scripts/interop/setup.sh); the ledger built from
# its log must match what the program did (functions, compile counts, the varying
# dimension). Prints ok/FAIL/SKIP lines; skips cleanly when .venv/bin/python is missing.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh
STEPSCOPE=${STEPSCOPE:-build/stepscope}
py=${STEPSCOPE_VENV:-.venv}/bin/python

if [ ! -x "$py" ]; then
  t_skip "ledger-jax" "$py is missing (scripts/interop/setup.sh makes it)"
  exit 0
fi
if ! "$py" -c 'import jax' 2>/dev/null; then
  t_skip "ledger-jax" "$py cannot import jax"
  exit 0
fi
if [ ! -x "$STEPSCOPE" ]; then
  echo "FAIL ledger-jax: $STEPSCOPE is not built"
  exit 1
fi

out=$T_TMP/jax
mkdir -p "$out"
if ! JAX_LOG_COMPILES=1 timeout 600 "$py" scripts/interop/jax_logs.py "$out" 2>"$out/compile.log" >"$out/stdout"; then
  echo "FAIL ledger-jax: scripts/interop/jax_logs.py failed"
  tail -n 15 "$out/compile.log" | sed 's/^/  | /'
  exit 1
fi
t_ok "jax_logs.py wrote a compile log" test -s "$out/compile.log" -a -s "$out/truth.json"

t_run "$STEPSCOPE" ledger "$out/compile.log" --json
t_ok "ledger parses the real log" test "$T_RC" = 0
printf '%s' "$T_OUT" >"$out/ledger.json"
t_run "$STEPSCOPE" ledger "$out/compile.log"
t_ok "text summary names the churn" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep 'dimension 0 of b took 8 values')"

# The checks, one line each, from the ledger against the program's own record.
"$py" - "$out/ledger.json" "$out/truth.json" <<'EOF' || T_FAILS=$((T_FAILS + 1))
import json, sys
ledger = json.load(open(sys.argv[1]))
truth = json.load(open(sys.argv[2]))
fns = {f["name"]: f for f in ledger["functions"]}
failed = []
def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + "ledger-jax " + name + ("" if cond else ": " + detail))
    if not cond:
        failed.append(name)
t = truth["traces"]
for name in ("score", "branch_score", "batch_loss"):
    f = fns.get(name)
    check(name + " is in the ledger", f is not None, "functions: %s" % sorted(fns))
    if f is None:
        continue
    check(name + " traces match the program's count", f["traces"] == t[name], "%s vs %s" % (f["traces"], t[name]))
    check(name + " compiles once per trace", f["compiles"] == t[name], "%s vs %s" % (f["compiles"], t[name]))
    check(name + " has compile times", f["compile_ns"] > 0 and f["max_compile_ns"] > 0)
s = fns.get("score", {})
shapes = ["float32[%d], float32[]" % shp[0] for shp in truth["score_shapes"]]
check("score signatures are the traced shapes", s.get("signatures") == shapes, "%s vs %s" % (s.get("signatures"), shapes))
check("score misses: first call and new lengths", s.get("miss_reasons", {}).get("first") == 1
      and s.get("miss_reasons", {}).get("shape") == len(truth["score_shapes"]) - 1, str(s.get("miss_reasons")))
b = fns.get("branch_score", {})
# Before 0.6 JAX's explanation of a changed static argument is "explanation unavailable!".
major, minor = (int(p) for p in truth["jax"].split(".")[:2])
kind = "static" if (major, minor) >= (0, 6) else "other"
check("branch_score miss is the static argument", b.get("miss_reasons", {}).get(kind) == 1, str(b.get("miss_reasons")))
churn = [c for c in ledger["churn"] if c["function"] == "batch_loss" and c["component"] == "dimension 0 of b"]
want = [str(n) for n in truth["batch_lengths"]]
check("batch_loss churn names dimension 0 of b", len(churn) == 1, str(ledger["churn"]))
if churn:
    check("churn values are the batch lengths", churn[0]["values"] == want, "%s vs %s" % (churn[0]["values"], want))
    check("churn suggests power-of-two buckets", churn[0]["buckets"] == [8, 16, 32, 64], str(churn[0]["buckets"]))
check("no warnings on a real log", ledger["warnings"] == [], str(ledger["warnings"][:3]))
sys.exit(1 if failed else 0)
EOF
t_done
