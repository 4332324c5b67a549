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

t_done
