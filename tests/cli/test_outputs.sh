# Nothing written is lost without an error (issue 34, items 10 to 12):
#   - every command whose output does not reach standard output (a full device,
#     /dev/full: ENOSPC) exits 1 and names standard output and the reason, in text,
#     CSV and JSON, one host and several;
#   - -o never names an input: the input stays as it was, whatever name reaches it;
#   - -o through a dangling symbolic link writes the link's target, as the shell's `>`
#     does; a symbolic link loop is refused; a signal during the commit leaves no
#     temporary file.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)

a="$T_TMP/a.json"
b="$T_TMP/b.json"
cat >"$a" <<'JSON'
{"traceEvents":[
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":100,"name":"ProfilerStep#0"},
{"ph":"X","pid":1,"tid":1,"ts":10,"dur":30,"name":"forward"},
{"ph":"X","pid":1,"tid":1,"ts":100,"dur":100,"name":"ProfilerStep#1"},
{"ph":"X","pid":1,"tid":1,"ts":110,"dur":40,"name":"forward"}
]}
JSON
sed 's/"dur":30/"dur":35/' "$a" >"$b"
log="$root/tests/data/logs/jax-0.10-lesson2.log"
"$STEPSCOPE" ledger --json "$log" >"$T_TMP/l1.json" 2>/dev/null
cp "$T_TMP/l1.json" "$T_TMP/l2.json"

# ---- item 10: output to a full device --------------------------------------------
# Each command as a user would redirect it; the message must say standard output and
# the reason the kernel gave (ENOSPC), not a generic I/O error.
full_device() { # NAME CMD...
  local name=$1
  shift
  t_run bash -c '"$@" >/dev/full' _ "$@"
  t_ok "$name into /dev/full: exit 1" test "$T_RC" = 1
  t_ok "$name into /dev/full: names standard output and ENOSPC" \
    grep -q "standard output:.*No space left on device" <<<"$T_ERR"
}
if [ -w /dev/full ]; then
  full_device "analyze" "$STEPSCOPE" analyze "$a"
  full_device "analyze --json" "$STEPSCOPE" analyze --json "$a"
  full_device "analyze, two hosts" "$STEPSCOPE" analyze "$a" "$b"
  full_device "analyze --json, two hosts" "$STEPSCOPE" analyze --json "$a" "$b"
  full_device "steps" "$STEPSCOPE" steps "$a"
  full_device "steps --json" "$STEPSCOPE" steps --json "$a"
  full_device "steps, two hosts" "$STEPSCOPE" steps "$a" "$b"
  full_device "slices --csv" "$STEPSCOPE" slices --csv "$a"
  full_device "slices --csv, two hosts" "$STEPSCOPE" slices --csv "$a" "$b"
  full_device "diff" "$STEPSCOPE" diff "$a" "$b"
  full_device "diff with a failed prediction" "$STEPSCOPE" diff "$a" "$b" --expect forward:shrink
  full_device "diff --json" "$STEPSCOPE" diff --json "$a" "$b"
  full_device "diff of ledgers" "$STEPSCOPE" diff "$T_TMP/l1.json" "$T_TMP/l2.json"
  full_device "ledger" "$STEPSCOPE" ledger "$log"
  full_device "ledger --csv" "$STEPSCOPE" ledger --csv "$log"
  full_device "ledger --json" "$STEPSCOPE" ledger --json "$log"
  full_device "report -o -" "$STEPSCOPE" report "$a" -o -
  full_device "version" "$STEPSCOPE" version
  full_device "--version" "$STEPSCOPE" --version
  full_device "--help" "$STEPSCOPE" --help
  full_device "analyze --help" "$STEPSCOPE" analyze --help
  # The same commands into a pipe that takes everything still exit 0.
  t_run bash -c '"$1" analyze "$2" | cat >/dev/null; exit ${PIPESTATUS[0]}' _ "$STEPSCOPE" "$a"
  t_ok "analyze into a pipe: exit 0" test "$T_RC" = 0
else
  t_skip "output to a full device" "/dev/full is not writable here"
fi

# ---- item 11: -o never names an input ---------------------------------------------
# `report` is the one command that reads inputs and writes -o (bench --out and demo
# --out read none). Every name of the input is refused, the input keeps its bytes.
d="$T_TMP/o11"
mkdir -p "$d/sub" "$d/prof/plugins/profile/run1"
cp "$a" "$d/in.json"
cp "$log" "$d/l.log"
"$STEPSCOPE" ledger --json "$log" >"$d/ledger.json" 2>/dev/null
ln -s in.json "$d/link.json"
ln "$d/in.json" "$d/hard.json"
gzip -c "$a" >"$d/prof/plugins/profile/run1/host.trace.json.gz"
sum0=$(cksum <"$d/in.json")
refused() { # NAME FILE-THAT-MUST-STAY CMD...
  local name=$1 keep=$2
  shift 2
  local before
  before=$(cksum <"$keep")
  t_run "$@"
  t_ok "$name: exit 1" test "$T_RC" = 1
  t_ok "$name: the message says it would replace an input" grep -q "would replace it: name another output file" <<<"$T_ERR"
  t_ok "$name: the input is intact" test "$(cksum <"$keep")" = "$before"
}
refused "report IN -o IN" "$d/in.json" "$STEPSCOPE" report "$d/in.json" -o "$d/in.json"
refused "report IN -o LINK-TO-IN" "$d/in.json" "$STEPSCOPE" report "$d/in.json" -o "$d/link.json"
t_ok "report IN -o LINK-TO-IN: the link is still a link" test -L "$d/link.json"
refused "report LINK -o IN" "$d/in.json" "$STEPSCOPE" report "$d/link.json" -o "$d/in.json"
refused "report IN -o HARD-LINK" "$d/in.json" "$STEPSCOPE" report "$d/in.json" -o "$d/hard.json"
refused "report IN -o another spelling" "$d/in.json" "$STEPSCOPE" report "$d/in.json" -o "$d/sub/../in.json"
refused "report A IN -o IN (the second input)" "$d/in.json" "$STEPSCOPE" report "$b" "$d/in.json" -o "$d/in.json"
refused "report LEDGER.json -o LEDGER.json" "$d/ledger.json" \
  "$STEPSCOPE" report "$d/ledger.json" -o "$d/ledger.json"
refused "report PROFILE-DIR -o the run's trace" "$d/prof/plugins/profile/run1/host.trace.json.gz" \
  "$STEPSCOPE" report "$d/prof" -o "$d/prof/plugins/profile/run1/host.trace.json.gz"
refused "report IN --svg DIR, a figure's file is IN" "$d/in.json" \
  bash -c 'cp "$1" "$2/fig-lanes.svg" && exec "$3" report "$2/fig-lanes.svg" -o "$2/out.html" --svg "$2"' _ \
  "$a" "$d/sub" "$STEPSCOPE"
t_ok "report IN --svg DIR: the figure that is an input is intact" cmp -s "$a" "$d/sub/fig-lanes.svg"
t_ok "report IN -o IN: IN kept its bytes through all of it" test "$(cksum <"$d/in.json")" = "$sum0"
t_run "$STEPSCOPE" report "$d/in.json" -o "$d/report.html"
t_ok "report IN -o another file still writes it" test "$T_RC" = 0 -a -s "$d/report.html"
t_run "$STEPSCOPE" report "$d/prof" -o "$d/prof/report.html"
t_ok "report PROFILE-DIR -o a new file inside it is written" test "$T_RC" = 0 -a -s "$d/prof/report.html"

t_done
