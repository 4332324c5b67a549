# Opening a trace: every path a user can name is opened once and told apart by its
# first bytes (`-`, /dev/stdin, FIFOs, process substitution, for JSON, gzip and XSpace,
# for the trace commands and report); what is not a trace is named; memory stays
# bounded on /dev/zero and gzip bombs; profile directories are read at any level.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"
cat >"$W/t.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "name": "step", "pid": 7, "tid": 1, "ts": 0, "dur": 100, "args": {"step_num": 1, "extra": "x"}},
 {"ph": "X", "name": "load", "pid": 7, "tid": 1, "ts": 1, "dur": 40},
 {"ph": "X", "name": "step", "pid": 7, "tid": 1, "ts": 200, "dur": 100, "args": {"step_num": 2, "extra": "y"}},
 {"ph": "X", "name": "load", "pid": 7, "tid": 1, "ts": 201, "dur": 30}
]}
JSON
gzip -c "$W/t.json" >"$W/t.json.gz"
# A minimal XSpace (protoc --decode shows it): plane /host:CPU, line 7 at 100 ns, one
# 4000 ps event named "k".
printf '\012\045\022\011/host:CPU\032\015\010\007\030\144\042\007\010\001\020\000\030\240\037\042\011\010\001\022\005\010\001\022\001k' >"$W/x.xplane.pb"
gzip -c "$W/x.xplane.pb" >"$W/x.xplane.pb.gz"
FX=$(t_fixtures)
BIG="$FX/traces/jax/te_fused_attn.xplane.pb"
[ -n "$FX" ] && [ -f "$BIG" ] || BIG=""

# Every source against the same file read by name: the same slices.
for f in t.json t.json.gz x.xplane.pb x.xplane.pb.gz ${BIG:+BIG}; do
  src="$W/$f"
  [ "$f" = BIG ] && src="$BIG"
  want=$("$STEPSCOPE" slices "$src")
  t_run sh -c 'cat "$1" | "$2" slices -' _ "$src" "$STEPSCOPE"
  t_ok "$f through a pipe (-) reads the same slices" test "$T_RC" = 0 -a "$T_OUT" = "$want"
  t_run sh -c 'cat "$1" | "$2" slices /dev/stdin' _ "$src" "$STEPSCOPE"
  t_ok "$f through /dev/stdin reads the same slices" test "$T_RC" = 0 -a "$T_OUT" = "$want"
  t_run bash -c '"$2" slices <(cat "$1")' _ "$src" "$STEPSCOPE"
  t_ok "$f through process substitution reads the same slices" test "$T_RC" = 0 -a "$T_OUT" = "$want"
  rm -f "$W/fifo"
  mkfifo "$W/fifo"
  (timeout 30 cat "$src" >"$W/fifo" &)
  t_run timeout 30 "$STEPSCOPE" slices "$W/fifo"
  t_ok "$f through a FIFO reads the same slices (opened once: no hang)" test "$T_RC" = 0 -a "$T_OUT" = "$want"
done
t_run sh -c 'cat "$1" | "$2" analyze -' _ "$W/t.json" "$STEPSCOPE"
t_ok "cat t.json | stepscope analyze - exits 0" test "$T_RC" = 0 -a -n "$(grep '^slices *4' <<<"$T_OUT")"

# report: a pipe, a FIFO (a second open would block: the input is opened once) and
# process substitution.
t_run sh -c 'cat "$1" | "$2" report - -o "$3"' _ "$W/x.xplane.pb.gz" "$STEPSCOPE" "$W/r1.html"
t_ok "report - reads an XSpace from a pipe" test "$T_RC" = 0 -a -s "$W/r1.html"
rm -f "$W/fifo"
mkfifo "$W/fifo"
(timeout 30 cat "$W/t.json" >"$W/fifo" &)
t_run timeout 30 "$STEPSCOPE" report "$W/fifo" -o "$W/r2.html"
t_ok "report reads a FIFO, opened once" test "$T_RC" = 0 -a -n "$(grep -F "$W/fifo: read as trace" <<<"$T_ERR")"
t_ok "report from a FIFO draws the steps" grep -q 'id="fig-steps"' "$W/r2.html"
t_run bash -c '"$2" report <(cat "$1") -o "$3"' _ "$W/t.json.gz" "$STEPSCOPE" "$W/r3.html"
t_ok "report reads process substitution" test "$T_RC" = 0 -a -s "$W/r3.html"

# Not a trace: named from its first bytes, exit 1, the file and byte 0 named.
printf '[{"ph":"X"}]' | iconv -f UTF-8 -t UTF-16 >"$W/u16bom.json"
printf '[{"ph":"X"}]' | iconv -f UTF-8 -t UTF-16LE >"$W/u16le.json"
printf 'step times, by hand\n1.2 ms\n' >"$W/notes.txt"
printf 'PK\003\004\024\000\000\000' >"$W/a.zip"
check_not_trace() { # FILE WHAT
  t_run "$STEPSCOPE" analyze "$1"
  t_ok "$(basename "$1"): exit 1" test "$T_RC" = 1
  t_ok "$(basename "$1"): named as $2" \
    grep -qF "$1: byte 0: not a trace: looks like $2" <<<"$T_ERR"
  t_ok "$(basename "$1"): says what was expected" grep -qF "expected Chrome trace JSON" <<<"$T_ERR"
}
check_not_trace "$W/u16bom.json" "UTF-16 text (little-endian, with a byte-order mark)"
check_not_trace "$W/u16le.json" "UTF-16 text (little-endian, no byte-order mark)"
check_not_trace "$W/notes.txt" 'plain text ("step times, by hand")'
check_not_trace "$W/a.zip" "a zip archive"
check_not_trace "$STEPSCOPE" "an ELF executable or library"
t_run "$STEPSCOPE" analyze "$W/u16bom.json"
t_ok "UTF-16 comes with the iconv hint" grep -qF "iconv -f UTF-16 -t UTF-8" <<<"$T_ERR"
t_run "$STEPSCOPE" report "$W/notes.txt" -o "$W/r.html"
t_ok "report names plain text too (exit 1)" test "$T_RC" = 1 -a -n "$(grep -F 'not a trace: looks like plain text' <<<"$T_ERR")"
: >"$W/empty.pb"
t_run "$STEPSCOPE" analyze "$W/empty.pb"
t_ok "an empty file: exit 1, byte 0, empty" test "$T_RC" = 1 -a -n "$(grep -F "$W/empty.pb: byte 0: empty file" <<<"$T_ERR")"

# XSpace damage through a pipe (size unknown) reads as through the file.
head -c 20 "$W/x.xplane.pb" >"$W/cut.xplane.pb"
t_run "$STEPSCOPE" analyze "$W/cut.xplane.pb"
from_file=$T_ERR
t_ok "a cut XSpace: exit 1, the field past the end of the file" test "$T_RC" = 1 -a -n "$(grep -F 'byte 0: length 37 of field 1 (XSpace.planes) runs past the end of the file (size 20): 18 bytes remain' <<<"$T_ERR")"
t_run sh -c 'cat "$1" | "$2" analyze -' _ "$W/cut.xplane.pb" "$STEPSCOPE"
t_ok "the same cut through a pipe: the same message" test "$T_RC" = 1 -a "${T_ERR#*<stdin>}" = "${from_file#*cut.xplane.pb}"
# An XEvent claiming 20 MiB: refused at its length, before reading it.
printf '\012\212\200\200\012\032\205\200\200\012\042\200\200\200\012' >"$W/bigevent.xplane.pb"
t_run sh -c 'cat "$1" | "$2" analyze -' _ "$W/bigevent.xplane.pb" "$STEPSCOPE"
t_ok "an XEvent over 16 MiB: exit 1, byte 10, the limit" test "$T_RC" = 1 -a -n "$(grep -F '<stdin>: byte 10: field 4 (XLine.events) is 20971520 bytes long; this reader takes at most 16 MiB' <<<"$T_ERR")"

# Bounded memory: /dev/zero and gzip bombs under a 512 MB address-space limit, for
# analyze and report. (Sanitizer builds reserve terabytes of address space up front:
# there the limit is left out and only the messages are checked.)
LIMIT="ulimit -v 524288;"
[ -n "${STEPSCOPE_SANITIZED:-}" ] && LIMIT=""
head -c 1000000000 /dev/zero | gzip -1 >"$W/zeros.gz"
{ printf '\012\200\200\200\200\200\040'; head -c 1000000000 /dev/zero; } | gzip -1 >"$W/xbomb.gz"
for cmd in analyze report; do
  out=""
  [ $cmd = report ] && out="-o $W/bomb.html"
  t_run bash -c "$LIMIT timeout 60 \"\$1\" $cmd /dev/zero $out" _ "$STEPSCOPE"
  t_ok "$cmd /dev/zero: exit 1, NUL bytes named" test "$T_RC" = 1 -a -n "$(grep -F '/dev/zero: byte 0: not a trace: looks like NUL bytes' <<<"$T_ERR")"
  t_run bash -c "$LIMIT timeout 60 \"\$1\" $cmd \"\$2\" $out" _ "$STEPSCOPE" "$W/zeros.gz"
  t_ok "$cmd on 1 GB of NULs gzipped: exit 1, named" test "$T_RC" = 1 -a -n "$(grep -F 'zeros.gz: byte 0: not a trace: gzip-compressed, looks like NUL bytes' <<<"$T_ERR")"
  t_run bash -c "$LIMIT timeout 60 \"\$1\" $cmd \"\$2\" $out" _ "$STEPSCOPE" "$W/xbomb.gz"
  t_ok "$cmd on an XSpace plane of 1 GB of NULs gzipped: exit 1 at its first bad byte" test "$T_RC" = 1 -a -n "$(grep -F 'xbomb.gz: byte 7: field number 0 in XPlane' <<<"$T_ERR")"
  t_run bash -c "$LIMIT head -c 3000000000 /dev/zero | timeout 60 \"\$1\" $cmd - $out" _ "$STEPSCOPE"
  t_ok "$cmd on 3 GB of NULs through a pipe: exit 1, named" test "$T_RC" = 1 -a -n "$(grep -F '<stdin>: byte 0: not a trace: looks like NUL bytes' <<<"$T_ERR")"
done
rm -f "$W/zeros.gz" "$W/xbomb.gz"

# Profile directories at any level: the latest run, said on stderr, in --json and in
# the report's header.
P="$W/prof"
R1="$P/plugins/profile/2026_05_01_10_00_00"
R2="$P/plugins/profile/2026_05_01_11_00_00"
mkdir -p "$R1" "$R2"
cp "$W/t.json.gz" "$R1/perfetto_trace.json.gz"
cp "$W/x.xplane.pb" "$R2/hostA.xplane.pb"
cp "$W/x.xplane.pb" "$R2/hostB.xplane.pb"
# The latest run holds two hosts: every level reads both (a host column first).
want=$("$STEPSCOPE" slices "$R2/hostA.xplane.pb" "$R2/hostB.xplane.pb")
for level in "$P" "$P/plugins" "$P/plugins/profile" "$R2"; do
  t_run "$STEPSCOPE" slices "$level"
  t_ok "slices ${level#$W/}: the latest run's two hosts" test "$T_RC" = 0 -a "$T_OUT" = "$want" -a \
    "$(head -1 <<<"$T_OUT")" = "host,pid,tid,ts_ns,dur_ns,depth,name"
done
t_run "$STEPSCOPE" slices "$R2/hostA.xplane.pb"
t_ok "slices on one host's file: that trace alone" test "$T_RC" = 0 -a "$T_OUT" = "$("$STEPSCOPE" slices "$W/x.xplane.pb")"
t_run "$STEPSCOPE" analyze "$P/plugins/profile"
t_ok "stderr says which run, of how many, and the hosts" grep -qF "$P/plugins/profile: run 2026_05_01_11_00_00 (the latest of 2 runs), 2 hosts (*.xplane.pb)" <<<"$T_ERR"
t_ok "analyze reads both hosts of the run" grep -q "^hosts       2 (hostA to hostB)" <<<"$T_OUT"
t_run "$STEPSCOPE" analyze "$P" --json
t_ok "analyze --json names the run" grep -q '"run": *"2026_05_01_11_00_00"' <<<"$T_OUT"
t_run "$STEPSCOPE" analyze "$W/t.json" --json
t_ok "analyze --json on a file: run is null" grep -q '"run": *null' <<<"$T_OUT"
t_run "$STEPSCOPE" report "$P" -o "$W/rp.html"
t_ok "report on a profile directory exits 0" test "$T_RC" = 0
t_ok "the report's header names the run" grep -qF "from <span class=\"mono\">$P, run 2026_05_01_11_00_00</span>" "$W/rp.html"
t_run "$STEPSCOPE" slices "$P" --run 2026_05_01_10_00_00
t_ok "--run chooses an older run" test "$T_RC" = 0 -a "$T_OUT" = "$("$STEPSCOPE" slices "$W/t.json")"
t_run "$STEPSCOPE" slices "$R2" --run 2026_05_01_10_00_00
t_ok "--run on a run folder: exit 1, explained" test "$T_RC" = 1 -a -n "$(grep -F 'a run folder' <<<"$T_ERR")"
# The latest run holds a 0-byte .xplane.pb (a profile cut short): an error naming the
# older run that holds a trace.
R3="$P/plugins/profile/2026_05_01_12_00_00"
mkdir -p "$R3"
: >"$R3/host.xplane.pb"
for cmd in analyze steps slices; do
  t_run "$STEPSCOPE" $cmd "$P"
  t_ok "$cmd, latest run empty: exit 1" test "$T_RC" = 1
  t_ok "$cmd, latest run empty: the file, byte 0, and the older run" \
    grep -qF "$R3/host.xplane.pb: byte 0: empty file (0 bytes): the latest run, 2026_05_01_12_00_00, holds no readable trace (a profile cut short or still being written?); the older run 2026_05_01_11_00_00 holds one: read it with --run 2026_05_01_11_00_00" <<<"$T_ERR"
done
t_run "$STEPSCOPE" report "$P" -o "$W/rp2.html"
t_ok "report, latest run empty: exit 1 naming the older run" test "$T_RC" = 1 -a -n "$(grep -F 'the older run 2026_05_01_11_00_00 holds one' <<<"$T_ERR")"
mkdir -p "$W/nothing"
t_run "$STEPSCOPE" analyze "$W/nothing"
t_ok "a folder with no trace: exit 1, the layout expected" test "$T_RC" = 1 -a -n "$(grep -F "$W/nothing: no trace here; expected a JAX profile directory" <<<"$T_ERR")"

# --args: what docs/xplane.md and docs/chrome-json.md describe. a.json's events carry
# an arg of each set: step_num and hlo_op (analysis), context (known), extra.
cat >"$W/a.json" <<'JSON'
{"traceEvents": [
 {"ph": "X", "name": "step", "pid": 7, "tid": 1, "ts": 0, "dur": 100, "args": {"step_num": 1, "context": 5, "extra": "x"}},
 {"ph": "X", "name": "fusion", "pid": 7, "tid": 1, "ts": 1, "dur": 40, "args": {"hlo_op": "fusion.1", "hlo_module": "jit_f", "extra": "y"}},
 {"ph": "X", "name": "step", "pid": 7, "tid": 1, "ts": 200, "dur": 100, "args": {"step_num": 2, "context": 6}},
 {"ph": "X", "name": "load", "pid": 7, "tid": 1, "ts": 201, "dur": 30, "args": {"External id": 9}}
]}
JSON
args_kept() { "$STEPSCOPE" "$1" "$W/a.json" --json ${2:+--args "$2"} | grep -o '"args_kept": *[0-9]*' | grep -o '[0-9]*$'; }
t_ok "--args analysis keeps step_num, hlo_op and hlo_module" test "$(args_kept analyze analysis)" = 4
t_ok "analyze keeps only what it reads by default (analysis)" test "$(args_kept analyze)" = 4
t_ok "--args known keeps the ids and correlations too" test "$(args_kept analyze known)" = 7
t_ok "--args all keeps every arg" test "$(args_kept analyze all)" = 9
t_ok "--args none keeps none" test "$(args_kept analyze none)" = 0
# What analyze and steps print does not depend on the args they do not read.
for cmd in "analyze --json" "analyze --group hlo_op" "steps --json" "steps"; do
  t_run "$STEPSCOPE" $cmd "$W/a.json" --args known
  known_out=$(sed '/args_kept/d' <<<"$T_OUT")
  t_run "$STEPSCOPE" $cmd "$W/a.json"
  t_ok "$cmd: the default prints what --args known prints (args_kept aside)" \
    test "$T_RC" = 0 -a "$(sed '/args_kept/d' <<<"$T_OUT")" = "$known_out"
done
t_run "$STEPSCOPE" slices "$W/a.json" --args some
t_ok "--args some is a usage error (2) naming the choices" test "$T_RC" = 2 -a -n "$(grep -F -- '--args expects analysis, known, all or none' <<<"$T_ERR")"
t_done
