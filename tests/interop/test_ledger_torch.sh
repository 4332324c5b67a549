#!/usr/bin/env bash
# `stepscope ledger` on a real TORCH_TRACE directory: scripts/interop/torch_trace_logs.py
# runs torch.compile on CPU (shape changes under a recompile limit, a graph break, a
# scalar and a dtype change) with TORCH_TRACE set and writes what it did to truth.json;
# the ledger of the directory must say the same. Needs PyTorch 2.2 or later (Debian's
# 1.13 has no TORCH_TRACE): $STEPSCOPE_TORCH_PYTHON, else the interop .venv's python;
# skips cleanly when neither imports such a torch. Prints ok/FAIL/SKIP lines.
set -u
CDPATH= cd "$(dirname "$0")/../.." || exit 1
. tests/cli/lib.sh
STEPSCOPE=${STEPSCOPE:-build/stepscope}
py=${STEPSCOPE_TORCH_PYTHON:-${STEPSCOPE_VENV:-.venv}/bin/python}
if [ ! -x "$py" ] || ! "$py" -c 'import torch._logging.structured' 2>/dev/null; then
  t_skip "ledger-torch" "$py has no PyTorch with TORCH_TRACE (2.2 on); set STEPSCOPE_TORCH_PYTHON"
  exit 0
fi
out=$T_TMP/tt
mkdir -p "$out"
if ! TORCH_TRACE="$out/trace" timeout 600 "$py" scripts/interop/torch_trace_logs.py "$out" >"$out/log" 2>&1; then
  echo "FAIL ledger-torch: scripts/interop/torch_trace_logs.py failed"
  tail -n 15 "$out/log" | sed 's/^/  | /'
  exit 1
fi
t_run "$STEPSCOPE" ledger "$out/trace" --json
t_ok "ledger-torch: the ledger reads the real TORCH_TRACE directory" test "$T_RC" = 0
printf '%s' "$T_OUT" >"$out/ledger.json"
"$py" - "$out/ledger.json" "$out/truth.json" <<'PY' || T_FAILS=$((T_FAILS + 1))
import json, sys
ledger, truth = json.load(open(sys.argv[1])), json.load(open(sys.argv[2]))
fns = {x["name"]: x for x in ledger["functions"]}
bad = []
def check(name, cond, detail=""):
    print(("ok   " if cond else "FAIL ") + "ledger-torch: " + name + ("" if cond else ": " + str(detail)))
    if not cond:
        bad.append(name)
f = fns.get("f (%s:%d)" % (truth["file"], truth["f_line"]))
h = fns.get("h (%s:%d)" % (truth["file"], truth["h_line"]))
check("f and h are named by their definition lines", f and h, sorted(fns))
if f and h:
    n = len(truth["f_sizes"])
    check("f compiled once per size below the limit, the first compile counted", f["compiles"] == n, f)
    check("f hit the recompile limit", f["limit_hits"] >= 1, f)
    check("f's times are known", f["compile_ns"] is not None and f["trace_ns"] is not None and f["trace_ns"] > 0, f)
    check("f's miss reasons: one first compile, the rest shapes", f["miss_reasons"]["first"] == 1 and f["miss_reasons"]["shape"] >= n - 1, f["miss_reasons"])
    check("f met its graph break at each compile", f["graph_breaks"] == n, f["graph_breaks"])
    gb = [g for g in ledger["graph_breaks"] if g["function"] == f["name"]]
    check("the graph break's site is the marked line", any(g["where"] == "%s:%d" % (truth["file"], truth["break_line"]) for g in gb), gb)
    sizes = [s for s in (ledger_row["signature"] for ledger_row in ledger["rows"] if ledger_row["function"] == f["name"])]
    check("f's signatures are the sizes it was called with", all("x.size(0)=%d" % s in sizes for s in truth["f_sizes"]), sizes)
    check("h compiled three times", h["compiles"] == truth["h_compiles"], h)
    check("h's dtype change is a dtype cause", h["miss_reasons"]["dtype"] >= 1, h["miss_reasons"])
    check("no scalar change is called pytree", h["miss_reasons"]["pytree"] == 0, h["miss_reasons"])
    check("torch fixes in the churn", any("mark_dynamic" in c["message"] for c in ledger["churn"] if c["function"] == f["name"]), ledger["churn"])
check("no warnings", not ledger["warnings"], ledger["warnings"])
sys.exit(1 if bad else 0)
PY
t_done
