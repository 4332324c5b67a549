# Text from an input is made harmless where it lands (issue 34, items 15 and 16):
#   - ESC, BEL, DEL and the C1 controls in trace names, log names and paths never reach
#     the terminal raw: warnings, errors, `steps` headers, `analyze` headers and tables,
#     `ledger` text all write them as '?', as the tables did for C0;
#   - a CSV text cell a spreadsheet would evaluate (=, +, -, @, tab, CR first) is quoted
#     with a "'" first in every CSV writer (slices --csv, ledger --csv); a negative
#     number stays a number (docs/csv.md).
. "$(dirname "$0")/lib.sh"

# ESC ] 0 ; ... BEL sets a terminal's title; CSI (ESC [ or the C1 byte U+009B) moves
# the cursor and clears the screen.
bad=$'e\033]0;t\007'
tr="$T_TMP/$bad.json"
cat >"$tr" <<'JSON'
{"traceEvents":[
{"ph":"X","name":"Prof\u001b[31mStep\u0007#0","pid":1,"tid":1,"ts":0,"dur":100},
{"ph":"X","name":"Prof\u001b[31mStep\u0007#1","pid":1,"tid":1,"ts":100,"dur":100},
{"ph":"X","name":"k\u001b]0;evil\u0007\u009b2J\u007f","pid":1,"tid":1,"ts":10,"dur":30},
{"ph":"X","name":"k\u001b]0;evil\u0007\u009b2J\u007f","pid":1,"tid":1,"ts":110,"dur":30},
{"ph":"M","name":"thread_name","pid":1,"tid":1,"args":{"name":"th\u001bread"}},
{"ph":"B","name":"open\u001bX","pid":1,"tid":2,"ts":10},
{"ph":"E","name":"other\u001bY","pid":1,"tid":2,"ts":20}
]}
JSON
# No raw control byte but the newline (and a table's own tab, none here), and no C1
# control encoded as UTF-8 (C2 80..C2 9F).
raw_controls() { LC_ALL=C grep -c $'[\x01-\x09\x0b-\x1f\x7f]\|\xc2[\x80-\x9f]' "$1"; }
clean() { # NAME CMD...: what CMD writes to stdout and stderr holds no raw control
  local name=$1; shift
  "$@" >"$T_TMP/o" 2>"$T_TMP/e"
  T_RC=$?
  T_OUT=$(cat -v "$T_TMP/o")
  T_ERR=$(cat -v "$T_TMP/e")
  t_ok "$name: stdout" [ "$(raw_controls "$T_TMP/o")" = 0 ]
  t_ok "$name: stderr" [ "$(raw_controls "$T_TMP/e")" = 0 ]
}
clean "steps (header, warnings)" "$STEPSCOPE" steps --step 'Prof.*' "$tr"
t_ok "steps header names the thread with '?'" grep -qx "2 steps on pid 1 tid 1 (th?read)" "$T_TMP/o"
t_ok "steps: a child's C1 CSI and DEL are '?'" grep -q '^         k?\]0;evil??2J? ' "$T_TMP/o"
t_ok "warnings name the file and the slice with '?'" grep -q "warning: $T_TMP/e?\]0;t?.json: .*'open?X'" "$T_TMP/e"
clean "steps (no steps: tried, suggestions)" "$STEPSCOPE" steps --step 'nothing' "$tr"
t_ok "no steps: exit 1, the path with '?'" [ "$T_RC" = 1 ] && grep -q "no steps found in $T_TMP/e?\]0;t?.json" "$T_TMP/e"
clean "analyze (header, tables, overlaps)" "$STEPSCOPE" analyze "$tr"
t_ok "analyze: the C1 CSI and DEL are '?' in the table" grep -q '^  k?\]0;evil??2J?  ' "$T_TMP/o"
clean "analyze --name" "$STEPSCOPE" analyze --name $'k\033' "$tr"
clean "analyze of a missing file" "$STEPSCOPE" analyze "$T_TMP/no$bad.json"
t_ok "missing file: exit 1, named with '?'" [ "$T_RC" = 1 ] && grep -q "no?\]0;t?.json" "$T_TMP/e"
clean "unknown command" "$STEPSCOPE" $'no\033such'

log="$T_TMP/$bad.log"
printf '%s\n' \
  $'WARNING:jax._src.dispatch:Finished tracing + transforming sc\033]0;x\007ore for jit in 0.003125 sec' \
  $'WARNING:jax._src.dispatch:Compiling sc\033]0;x\007ore (140071391287104 for args (ShapedArray(float32[8]), ShapedArray(float32[])).' \
  $'WARNING:jax._src.dispatch:Finished XLA compilation of sc\033]0;x\007ore in 0.042 sec' >"$log"
clean "ledger text" "$STEPSCOPE" ledger "$log"
t_ok "ledger: the function named with '?'" grep -q '^  sc?\]0;x?ore ' "$T_TMP/o"
clean "ledger of a missing log" "$STEPSCOPE" ledger "$T_TMP/no$bad.log"

# ---- item 16: formula injection in CSV --------------------------------------------
csvt="$T_TMP/f.json"
cat >"$csvt" <<'JSON'
{"traceEvents":[
{"ph":"X","name":"=HYPERLINK(\"http://x\",\"y\")","pid":-1,"tid":"+cmd","ts":1,"dur":5},
{"ph":"X","name":"-1","pid":-1,"tid":"@evil","ts":2,"dur":1},
{"ph":"X","name":"\tx","pid":"-2+3","tid":1,"ts":10,"dur":1},
{"ph":"X","name":"-2.5e3","pid":3,"tid":-7,"ts":11,"dur":1},
{"ph":"X","name":"plain-name","pid":3,"tid":1,"ts":20,"dur":1}
]}
JSON
t_run "$STEPSCOPE" slices "$csvt"
t_ok "slices: rc 0" [ "$T_RC" = 0 ]
t_ok "slices: '=' cell quoted with a leading '" grep -qxF -- "-1,\"'+cmd\",1000,5000,0,\"'=HYPERLINK(\"\"http://x\"\",\"\"y\"\")\"" "$T_TMP/out"
t_ok "slices: '@' cell guarded, the negative pid and the name -1 stay numbers" grep -qxF -- "-1,\"'@evil\",2000,1000,0,-1" "$T_TMP/out"
t_ok "slices: a pid that is a formula, a tab first" grep -qxF -- "\"'-2+3\",1,10000,1000,0,\"'	x\"" "$T_TMP/out"
t_ok "slices: -2.5e3 and tid -7 are numbers, unquoted" grep -qxF -- "3,-7,11000,1000,0,-2.5e3" "$T_TMP/out"
t_ok "slices: an ordinary name untouched" grep -qxF -- "3,1,20000,1000,0,plain-name" "$T_TMP/out"
# No cell of any row starts with a formula character unless it is a number.
t_ok "slices: no unguarded formula cell" python3 -c '
import csv, re, sys
num = re.compile(r"^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$")
rows = list(csv.reader(open(sys.argv[1], newline="")))
bad = [c for r in rows for c in r if c[:1] in ("=", "+", "-", "@", "\t", "\r") and not num.match(c)]
sys.exit(1 if bad or len(rows) != 6 else 0)' "$T_TMP/out"

flog="$T_TMP/f.log"
printf '%s\n' \
  'WARNING:jax._src.dispatch:Finished tracing + transforming =cmd|x for jit in 0.003125 sec' \
  'WARNING:jax._src.dispatch:Compiling =cmd|x (140071391287104 for args (ShapedArray(float32[8]), ShapedArray(float32[])).' \
  'WARNING:jax._src.dispatch:Finished XLA compilation of =cmd|x in 0.042 sec' >"$flog"
t_run "$STEPSCOPE" ledger --csv "$flog"
t_ok "ledger --csv: rc 0, the function guarded" [ "$T_RC" = 0 ] && grep -q "^0,\"'=cmd|x\",\"\",\"float32\[8\], float32\[\]\",1,1,0,3125000," "$T_TMP/out"
t_done
