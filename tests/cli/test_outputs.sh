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

# ---- item 12: -o through symbolic links, and signals while writing ----------------
d="$T_TMP/o12"
mkdir -p "$d/sub"
ln -s nowhere.html "$d/dangling.html"
ln -s sub/far.html "$d/dangling-rel.html"
ln -s dangling.html "$d/chain.html"
ln -s loop2 "$d/loop1"
ln -s loop1 "$d/loop2"
ln -s "$d/sub/abs.html" "$d/dangling-abs.html"
t_run "$STEPSCOPE" report "$a" -o "$d/dangling.html"
t_ok "-o DANGLING-LINK: exit 0" test "$T_RC" = 0
t_ok "-o DANGLING-LINK: the link is still the link" test "$(readlink "$d/dangling.html")" = nowhere.html
t_ok "-o DANGLING-LINK: its target holds the report, as '>' would write it" grep -q "<html" "$d/nowhere.html"
t_run "$STEPSCOPE" report "$a" -o "$d/dangling-rel.html"
t_ok "-o DANGLING-LINK into a folder: the target beside the link's folder holds the report" \
  grep -q "<html" "$d/sub/far.html"
t_ok "-o DANGLING-LINK into a folder: the link is still a link" test -L "$d/dangling-rel.html"
t_run "$STEPSCOPE" report "$a" -o "$d/dangling-abs.html"
t_ok "-o DANGLING-LINK, absolute: its target holds the report" grep -q "<html" "$d/sub/abs.html"
rm "$d/nowhere.html"
t_run "$STEPSCOPE" report "$a" -o "$d/chain.html"
t_ok "-o LINK-TO-DANGLING-LINK: both links stay, the end of the chain holds the report" \
  test -L "$d/chain.html" -a -L "$d/dangling.html" -a -f "$d/nowhere.html"
t_run "$STEPSCOPE" report "$a" -o "$d/loop1"
t_ok "-o LINK-LOOP: exit 1" test "$T_RC" = 1
t_ok "-o LINK-LOOP: the message says it is a loop" grep -q "loop1: cannot open for writing: a symbolic link loop" <<<"$T_ERR"
t_ok "-o LINK-LOOP: both links are as they were" \
  test "$(readlink "$d/loop1")" = loop2 -a "$(readlink "$d/loop2")" = loop1
t_ok "-o: no temporary file is left beside any of them" test -z "$(find "$d" -name '.*.tmp*')"

# A signal that ends the process while the output is written or committed (raised from
# the write or the fsync by the fault shim) leaves the old file whole and no temporary
# file: the process still dies of the signal. env --default-signal undoes a SIGINT
# ignored by whoever started the test.
shim="$T_TMP/fault_shim.so"
if ${CC:-cc} -shared -fPIC -O1 -o "$shim" "$root/tests/cli/fault_shim.c" -ldl 2>"$T_TMP/shim.err"; then
  if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"; fi
  for when in SIGNAL FSYNC_SIGNAL; do
    for sig in INT TERM HUP; do
      num=$(kill -l "$sig")
      step=write
      [ "$when" = FSYNC_SIGNAL ] && step=commit
      w="$T_TMP/o12-$when-$sig"
      mkdir -p "$w"
      echo "previous report" >"$w/report.html"
      # Through a shell of its own, which says "Terminated" into the captured stderr.
      t_run bash -c '"$@"; exit $?' _ env --default-signal="$sig" LD_PRELOAD="$shim" STS_FAULT_DIR="$w" "STS_FAULT_$when=$num" \
        "$STEPSCOPE" report "$a" -o "$w/report.html"
      t_ok "SIG$sig in the report's $step: the process dies of SIG$sig" test "$T_RC" = $((128 + num))
      t_ok "SIG$sig in the report's $step: the old file is whole" \
        test "$(cat "$w/report.html")" = "previous report"
      t_ok "SIG$sig in the report's $step: no temporary file is left" \
        test -z "$(find "$w" -name '.*.tmp*')"
    done
  done
  # A program that handles the signal itself keeps its handler: an ignored SIGTERM
  # leaves the report to be written whole.
  w="$T_TMP/o12-ignored"
  mkdir -p "$w"
  t_run env --ignore-signal=TERM LD_PRELOAD="$shim" STS_FAULT_DIR="$w" STS_FAULT_FSYNC_SIGNAL=15 \
    "$STEPSCOPE" report "$a" -o "$w/report.html"
  t_ok "SIGTERM ignored, in the commit: the report is written, exit 0" test "$T_RC" = 0 -a -s "$w/report.html"
else
  T_ERR=$(cat "$T_TMP/shim.err")
  t_ok "the fault-injection shim builds" false
fi

t_done
