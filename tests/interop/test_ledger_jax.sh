#!/usr/bin/env bash
# `stepscope ledger` on real JAX logs: scripts/interop/jax_logs.py runs lesson 2's code
# (all of it), a jitted lambda re-created in a loop, and a static int that takes several
# values, with JAX_LOG_COMPILES=1 and jax_explain_cache_misses, in the interop
# environment (.venv/, made by scripts/interop/setup.sh). Each program writes what it
# did (which functions, defined where, traced how often, why each retrace happened) to
# truth.json; the ledger built from its log must say the same. Prints ok/FAIL/SKIP
# lines; skips cleanly when the environment cannot be made.
set -u
cd "$(dirname "$0")/../.."
. tests/cli/lib.sh
STEPSCOPE=${STEPSCOPE:-build/stepscope}
venv=${STEPSCOPE_VENV:-.venv}
py=$venv/bin/python

if [ ! -x "$py" ] && [ -z "${STEPSCOPE_VENV:-}" ]; then
  scripts/interop/setup.sh >/dev/null 2>&1
fi
if [ ! -x "$py" ]; then
  t_skip "ledger-jax" "$py is missing and scripts/interop/setup.sh could not make it (no network?)"
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

for mode in lesson2 lambda_loop static_int; do
  out=$T_TMP/$mode
  mkdir -p "$out"
  if ! JAX_LOG_COMPILES=1 timeout 3000 "$py" scripts/interop/jax_logs.py "$mode" "$out" 2>"$out/compile.log" >"$out/stdout"; then
    echo "FAIL ledger-jax $mode: scripts/interop/jax_logs.py failed"
    tail -n 15 "$out/compile.log" | sed 's/^/  | /'
    T_FAILS=$((T_FAILS + 1))
    continue
  fi
  t_ok "ledger-jax $mode: the program wrote a compile log and its truth" test -s "$out/compile.log" -a -s "$out/truth.json"
  t_run "$STEPSCOPE" ledger "$out/compile.log" --json
  t_ok "ledger-jax $mode: the ledger parses the real log" test "$T_RC" = 0
  printf '%s' "$T_OUT" >"$out/ledger.json"
  t_run "$STEPSCOPE" ledger "$out/compile.log"
  printf '%s' "$T_OUT" >"$out/ledger.txt"
  t_ok "ledger-jax $mode: the text summary exits 0" test "$T_RC" = 0

  # The checks, one line each, from the ledger against the program's own record.
  "$py" - "$mode" "$out/ledger.json" "$out/truth.json" "$out/ledger.txt" <<'EOF' || T_FAILS=$((T_FAILS + 1))
import json, sys
mode, ledger, truth, text = sys.argv[1], json.load(open(sys.argv[2])), json.load(open(sys.argv[3])), open(sys.argv[4]).read()
fns = {f["name"]: f for f in ledger["functions"]}
failed = []
def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + "ledger-jax " + mode + ": " + name + ("" if cond else ": " + str(detail)))
    if not cond:
        failed.append(name)
major, minor = (int(p) for p in truth["jax"].split(".")[:2])
# Before 0.6 a changed static argument is "explanation unavailable"; from 0.9 on a
# miss is explained before its trace, so nested traces are told apart.
static_kind = "static" if (major, minor) >= (0, 6) else "other"
before = (major, minor) >= (0, 9)
where = lambda f: "%s (%s:%d)" % (f["name"], truth["file"], f["line"])

for key, t in truth["functions"].items():
    if t["nested_in"]:
        continue
    f = fns.get(where(t))
    check(key + " is one function named with its definition site", f is not None,
          "%s not in %s" % (where(t), sorted(fns)))
    if f is None:
        continue
    compiles = t["traces"] if t["compiled"] else 0
    check(key + ": traces are the program's count", f["traces"] == t["traces"], (f["traces"], t["traces"]))
    check(key + ": compiles are its top-level traces", f["compiles"] == compiles, (f["compiles"], compiles))
    check(key + ": calls and hits unknown, never 0", f["calls"] is None and f["hits"] is None
          and f["unknown"] == "not in JAX logs", (f["calls"], f["hits"]))
    want = {k.replace("static", static_kind): v for k, v in t["reasons"].items()}
    got = {k: v for k, v in f["miss_reasons"].items() if v}
    check(key + ": miss reasons are the program's", got == want, (got, want))
    if t.get("redefined") is not None:
        check(key + ": every re-created function object counted", f["redefined"] == t["redefined"],
              (f["redefined"], t["redefined"]))
    if t["statics"] and static_kind == "static":
        name = "argument %d" % t["static_position"] if "static_position" in t else "square"
        for v in t["statics"]:
            s = "%s=%s (static)" % (name, v)
            check(key + ": signatures hold " + s, any(s in sig for sig in f["signatures"]), f["signatures"])
        check(key + ": one signature per specialization", len(f["signatures"]) == compiles, f["signatures"])

for key, t in truth["functions"].items():
    if not t["nested_in"] or not before:
        continue
    outer = truth["functions"][t["nested_in"]]
    inner = [f for n, f in fns.items() if n.startswith(where(t)[:-1] + ", called at ")]
    check(key + ": traced inside " + t["nested_in"] + ", a function of its own", len(inner) == 1, sorted(fns))
    if inner:
        n = sum(inner[0]["miss_reasons"].values())
        check(key + ": its explanations are its own", n == t["traces"] and inner[0]["compiles"] == 0,
              inner[0]["miss_reasons"])
    rows = [r for r in ledger["rows"] if r["function"] == where(outer)]
    check(t["nested_in"] + "'s compile is blamed on its own first call, not on " + key,
          [r["reason"] for r in rows if r["compiles"]] == ["first: first call"], [r["reason"] for r in rows])

lambdas = [c for c in ledger["churn"] if c["function"].startswith("<lambda>")]
if mode == "lambda_loop":
    t = truth["functions"]["doubled"]
    check("the re-created lambda is diagnosed as a new function object each time",
          [c["component"] for c in lambdas] == ["function object"], lambdas)
else:
    check("no churn diagnosis for any lambda", lambdas == [], [c["message"] for c in lambdas])
if mode == "lesson2":
    churn = [c for c in ledger["churn"] if c["component"] == "dimension 0 of b"]
    check("batch_loss churn names dimension 0 of b", len(churn) == 1, ledger["churn"])
    if churn:
        check("churn values are the batch lengths", churn[0]["values"] == [str(n) for n in (8, 12, 16, 20, 24, 28, 32, 36)],
              churn[0]["values"])
        check("churn suggests power-of-two buckets", churn[0]["buckets"] == [8, 16, 32, 64], churn[0]["buckets"])
if mode == "static_int" and static_kind == "static":
    t = truth["functions"]["power"]
    churn = [c for c in ledger["churn"] if c["function"] == where(t)]
    check("the static int is the churn, with the values it took",
          [(c["component"], c["values"]) for c in churn] == [("value of argument 1", t["statics"])], churn)
check("host syncs are unknown, not empty", ledger["host_syncs"] is None
      and ledger["host_syncs_unknown"] == "not in JAX logs", ledger["host_syncs"])
check("the text says why host syncs are unknown", "host syncs: unknown (not in JAX logs)" in text)
check("no hint to enable what is on", "enable jax_explain_cache_misses" not in text)
check("no warnings on a real log", ledger["warnings"] == [], ledger["warnings"][:3])
sys.exit(1 if failed else 0)
EOF
done
t_done
