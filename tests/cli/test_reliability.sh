# The reliability tier (issue 16): the probes that found defects in what stepscope
# writes and records, replayed against the CLI with their exit code, message and files.
#   - no half-written files: every writer under a full disk (ENOSPC after N bytes) and
#     a failing fsync, injected by tests/cli/fault_shim.c under LD_PRELOAD: exit 1, the
#     message names the file, the old file is intact, no temporary file is left;
#   - the recorder (tests/cli/recorder_probe.c): fair shares of a small pool, SIGTERM
#     and SIGINT leave a readable dump, drop counts in the dump, a dump cut short is an
#     error naming the missing completion record, a signal during stop waits for the
#     profile;
#   - `demo trace` reads back the run it wrote beside a later-named one;
#   - the probes of the other items as they landed: 16.1 (bounded memory on /dev/zero
#     and a gzip bomb, under ulimit -v), 16.3 (FIFOs, pipes, process substitution),
#     16.11 (plain text, UTF-16, an empty latest run).
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${STEPSCOPE_BUILD:-$root/build}
cc=${CC:-cc}

# ---- the tools: the fault shim and the recording program -------------------------
shim="$T_TMP/fault_shim.so"
if ! "$cc" -shared -fPIC -O1 -o "$shim" "$root/tests/cli/fault_shim.c" -ldl 2>"$T_TMP/shim.err"; then
  T_ERR=$(cat "$T_TMP/shim.err")
  t_ok "the fault-injection shim builds" false
  t_done
  exit
fi
san=()
if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
  san=(-fsanitize=address,undefined)
  # The shim is preloaded before the sanitizer's runtime; it only wraps write and fsync.
  export ASAN_OPTIONS="${ASAN_OPTIONS:-}:verify_asan_link_order=0"
fi
probe="$T_TMP/recorder_probe"
"$cc" -std=c11 -O1 -g -D_GNU_SOURCE "${san[@]}" -I"$root/include" "$root/tests/cli/recorder_probe.c" \
  "$build/libstepscope.a" -lOpenCL -lz -lm -lpthread -o "$probe" 2>"$T_TMP/probe.err"
T_ERR=$(cat "$T_TMP/probe.err")
t_ok "the recorder probe links against $build/libstepscope.a" test -x "$probe"

# Runs a command with the shim: faults DIR SETTING=VALUE... -- CMD...
faults() {
  local dir=$1; shift
  local vars=()
  while [ "$1" != "--" ]; do vars+=("$1"); shift; done
  shift
  t_run env LD_PRELOAD="$shim" STS_FAULT_DIR="$dir" "${vars[@]}" "$@"
}

# No temporary file (".NAME.tmp.XXXXXX", ".stepscope-crash-*.tmp") anywhere under DIR.
no_temp() { [ -z "$(find "$1" -name '.*.tmp*' 2>/dev/null)" ]; }

# After a failed write of FILE whose old content was OLD: exit 1, FILE and REASON in the
# message, FILE still OLD, nothing temporary left beside it.
kept_whole() {
  local what=$1 file=$2 old=$3 reason=$4
  t_ok "$what: exit 1" test "$T_RC" = 1
  t_ok "$what: the message names $(basename "$file") and says '$reason'" \
    grep -qF "$file: $reason" <<<"$T_ERR"
  t_ok "$what: the old file is intact" test "$(cat "$file" 2>/dev/null)" = "$old"
  t_ok "$what: no temporary file is left" no_temp "$(dirname "$file")"
}

trace="$T_TMP/in/trace.json"
mkdir -p "$T_TMP/in"
cat >"$trace" <<'JSON'
{"traceEvents":[
{"ph":"X","pid":1,"tid":1,"ts":0,"dur":100,"name":"learner_step","args":{"step_num":0}},
{"ph":"X","pid":1,"tid":1,"ts":10,"dur":30,"name":"input_wait"},
{"ph":"X","pid":1,"tid":1,"ts":50,"dur":40,"name":"model_and_wait"},
{"ph":"X","pid":1,"tid":1,"ts":100,"dur":100,"name":"learner_step","args":{"step_num":1}},
{"ph":"X","pid":1,"tid":1,"ts":110,"dur":30,"name":"input_wait"}
]}
JSON

# ---- issue 16.1: non-JSON input is refused from its first bytes, in bounded memory ---
# Under `ulimit -v` (512 MiB) and a 200 s timeout: /dev/zero once grew to 23.6 GB. The
# sanitizer build reserves terabytes of address space, so it runs without the limit.
bounded() {
  if [ -z "${STEPSCOPE_SANITIZED:-}" ]; then
    t_run timeout 200 bash -c 'ulimit -v 524288; exec "$@"' _ "$@"
  else
    t_run timeout 600 "$@"
  fi
}
head -c 20000000 /dev/zero | gzip -c >"$T_TMP/in/zeros.json.gz"
for cmd in analyze report; do
  for input in /dev/zero "$T_TMP/in/zeros.json.gz"; do
    extra=()
    [ "$cmd" = report ] && extra=(-o "$T_TMP/zero.html")
    bounded "$STEPSCOPE" "$cmd" "$input" "${extra[@]}"
    t_ok "$cmd $(basename "$input") in 512 MiB: exit 1 within the time limit, 'not a trace: ... NUL bytes'" \
      test "$T_RC" = 1 -a -n "$(grep -F "$input: byte 0: not a trace:" <<<"$T_ERR" | grep -F 'looks like NUL bytes')"
  done
done

# ---- issue 16.3: FIFOs, pipes and process substitution are read -------------------
mkfifo "$T_TMP/in/fifo"
for cmd in analyze report; do
  extra=()
  [ "$cmd" = report ] && extra=(-o "$T_TMP/fifo.html")
  (cat "$trace" >"$T_TMP/in/fifo" &)
  t_run timeout 200 "$STEPSCOPE" "$cmd" "$T_TMP/in/fifo" "${extra[@]}"
  t_ok "$cmd FIFO: read once, exit 0 (it used to block forever)" test "$T_RC" = 0
  t_run timeout 200 "$STEPSCOPE" "$cmd" <(cat "$trace") "${extra[@]}"
  t_ok "$cmd <(cat trace.json): exit 0 (it was 'empty file')" test "$T_RC" = 0
  t_run timeout 200 bash -c 'cat "$1" | "$2" "$3" /dev/stdin "${@:4}"' _ "$trace" "$STEPSCOPE" "$cmd" "${extra[@]}"
  t_ok "cat trace.json | $cmd /dev/stdin: exit 0" test "$T_RC" = 0
done

# ---- issue 16.11: what a file is, said plainly ------------------------------------
printf 'hello world\nplain text\n' >"$T_TMP/in/notes.txt"
t_run "$STEPSCOPE" analyze "$T_TMP/in/notes.txt"
t_ok "plain text: exit 1, 'not a trace: looks like plain text'" \
  test "$T_RC" = 1 -a -n "$(grep -F "notes.txt: byte 0: not a trace: looks like plain text" <<<"$T_ERR")"
printf '\xff\xfe[\0{\0}\0]\0' >"$T_TMP/in/utf16.json"
t_run "$STEPSCOPE" analyze "$T_TMP/in/utf16.json"
t_ok "UTF-16 JSON: exit 1, 'not a trace: looks like UTF-16 text' (it was an XSpace wire-type error)" \
  test "$T_RC" = 1 -a -n "$(grep -F "utf16.json: byte 0: not a trace: looks like UTF-16 text" <<<"$T_ERR")"

# ---- issue 16.4: report -o on a full disk keeps the previous report -----------------
out="$T_TMP/full"
mkdir -p "$out"
echo "previous report" >"$out/report.html"
faults "$out" STS_FAULT_AFTER=1000 -- "$STEPSCOPE" report "$trace" -o "$out/report.html"
kept_whole "report -o, disk full after 1000 bytes" "$out/report.html" "previous report" \
  "write failed: No space left on device; the existing file was left as it was"

faults "$out" STS_FAULT_FSYNC=1 -- "$STEPSCOPE" report "$trace" -o "$out/report.html"
kept_whole "report -o, fsync fails" "$out/report.html" "previous report" \
  "fsync failed: Input/output error; the existing file was left as it was"

faults "$out" STS_FAULT_AFTER=0 -- "$STEPSCOPE" report "$trace" -o "$out/new.html"
t_ok "report -o to a new file on a full disk: exit 1, 'no file was created'" \
  test "$T_RC" = 1 -a -n "$(grep -F "$out/new.html: write failed: No space left on device; no file was created" <<<"$T_ERR")"
t_ok "report -o to a new file on a full disk: no file, no temporary file" test ! -e "$out/new.html"
t_ok "report -o to a new file on a full disk: nothing temporary left" no_temp "$out"

svg="$T_TMP/svg"
mkdir -p "$svg"
t_run "$STEPSCOPE" report "$trace" -o "$T_TMP/first.html" --svg "$svg"
nsvg=$(ls "$svg" | wc -l)
t_ok "report --svg writes SVG files" test "$T_RC" = 0 -a "$nsvg" -gt 0
for f in "$svg"/*.svg; do echo "previous figure" >"$f"; done
faults "$svg" STS_FAULT_AFTER=100 -- "$STEPSCOPE" report "$trace" -o "$T_TMP/second.html" --svg "$svg"
failed=$(grep -o "$svg/[a-z0-9-]*\.svg" <<<"$T_ERR" | head -1)
t_ok "report --svg, disk full: the message names an SVG file" test -n "$failed"
[ -n "$failed" ] && kept_whole "report --svg, disk full" "$failed" "previous figure" \
  "write failed: No space left on device; the existing file was left as it was"
t_ok "report --svg, disk full: every earlier figure is intact" \
  test "$(cat "$svg"/*.svg | sort -u)" = "previous figure" -a "$(ls "$svg" | wc -l)" = "$nsvg"
t_ok "report --svg, disk full: the HTML elsewhere was written" test -s "$T_TMP/second.html"

# A destination that cannot be renamed over is written in place, and still reports.
t_run "$STEPSCOPE" report "$trace" -o /dev/null
t_ok "report -o /dev/null writes in place and leaves /dev/null a device" test "$T_RC" = 0 -a -c /dev/null

# ---- outputs of bench and the demo lessons (an OpenCL device) ---------------------
have_device=1
t_run "$STEPSCOPE" bench --list-devices
if [ "$T_RC" != 0 ] || [ -z "$T_OUT" ]; then
  have_device=0
  t_skip "bench, demo and recorder-on-device writers" "no OpenCL device here"
fi
if [ "$have_device" = 1 ]; then
  b="$T_TMP/bench"
  mkdir -p "$b"
  echo "previous bench" >"$b/b.json"
  faults "$b" STS_FAULT_AFTER=64 -- "$STEPSCOPE" bench predict --repeats 1 --warmup 0 --out "$b/b.json"
  kept_whole "bench --out, disk full" "$b/b.json" "previous bench" \
    "write failed: No space left on device; the existing file was left as it was"

  d="$T_TMP/demo"
  mkdir -p "$d"
  echo "previous bench" >"$d/bench.json"
  faults "$d" STS_FAULT_AFTER=64 -- "$STEPSCOPE" demo bench --out "$d"
  kept_whole "demo bench, disk full" "$d/bench.json" "previous bench" \
    "write failed: No space left on device; the existing file was left as it was"
  echo "previous ledger" >"$d/ledger.json"
  faults "$d" STS_FAULT_FSYNC=1 -- "$STEPSCOPE" demo retrace --out "$d"
  kept_whole "demo retrace, fsync fails" "$d/ledger.json" "previous ledger" \
    "fsync failed: Input/output error; the existing file was left as it was"

  # The recorder's profile files: no new run is left, an older one is untouched.
  older="$d/trace/plugins/profile/2000_01_01_00_00_00"
  mkdir -p "$older"
  echo "older run" >"$older/perfetto_trace.json.gz"
  faults "$d/trace" STS_FAULT_AFTER=1000 -- "$STEPSCOPE" demo trace --out "$d"
  t_ok "demo trace, disk full: exit 1 naming a file of the run" \
    test "$T_RC" = 1 -a -n "$(grep -F "$d/trace/plugins/profile/" <<<"$T_ERR" | grep -F "No space left on device")"
  t_ok "demo trace, disk full: no new run directory is left" \
    test "$(ls "$d/trace/plugins/profile")" = "2000_01_01_00_00_00"
  t_ok "demo trace, disk full: the older run is intact" test "$(cat "$older/perfetto_trace.json.gz")" = "older run"
  t_ok "demo trace, disk full: no temporary file" no_temp "$d/trace"

  # ---- issue 16.7: demo trace reads back its own run, not a later-named one --------
  rm -rf "$d/trace"
  planted="$d/trace/plugins/profile/9999_12_31_23_59_59"
  mkdir -p "$planted"
  printf '[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5,"name":"another_host_step"}]' >"$planted/perfetto_trace.json.gz"
  t_run "$STEPSCOPE" demo trace --out "$d"
  run=$(printf '%s\n' "$T_OUT" | sed -n 's/^Trace directory: //p')
  t_ok "demo trace beside a later-named run: exit 0, every check passes" \
    test "$T_RC" = 0 -a -z "$(grep '^FAIL' <<<"$T_OUT")"
  t_ok "demo trace beside a later-named run reads its own run ($run)" \
    test -n "$run" -a "$run" != "$planted" -a -d "$run"
  t_ok "demo trace leaves the later-named run alone" test -s "$planted/perfetto_trace.json.gz"
fi

# ---- issue 16.11: a latest run holding a 0-byte .xplane.pb, beside a valid older one --
t_run "$probe" "$T_TMP/prof" stop
older_run=$(sed -n 's/^run //p' <<<"$T_OUT")
t_ok "the recorder writes a run to stand for the older valid one" test "$T_RC" = 0 -a -d "$older_run"
mkdir -p "$T_TMP/prof/plugins/profile/9999_12_31_23_59_59"
: >"$T_TMP/prof/plugins/profile/9999_12_31_23_59_59/host.xplane.pb"
t_run "$STEPSCOPE" analyze "$T_TMP/prof"
t_ok "an empty latest run: exit 1, says it is empty and names the older run to read" \
  test "$T_RC" = 1 -a -n "$(grep -F "empty file (0 bytes)" <<<"$T_ERR" | grep -F "read it with --run $(basename "$older_run")")"

# ---- issue 16.9: the recorder shares a small pool between 8 threads --------------
t_run "$probe" "$T_TMP/fair" fair
t_ok "8 threads on a 64 KiB pool: the recording exits 0" test "$T_RC" = 0
t_ok "8 threads on a 64 KiB pool: every thread recorded something" \
  test "$(grep -c '^thread worker [0-7] recorded [1-9]' <<<"$T_OUT")" = 8
bad_sum=$(awk '/^thread/ && $5 + $7 != 2000' <<<"$T_OUT")
T_OUT="$T_OUT" t_ok "8 threads on a 64 KiB pool: recorded + dropped = 2000 for every thread" test -z "$bad_sum"
t_ok "the drops are printed when stop writes the trace" grep -q "scopes dropped (event pool full)" <<<"$T_ERR"

# ---- issue 16.9: SIGTERM and SIGINT leave a readable profile -------------------------
for sig in TERM INT; do
  dir="$T_TMP/sig$sig"
  mkdir -p "$dir"
  # A log of its own per signal: the previous probe's "ready" must not be read as this
  # one's (a signal sent before the handlers are in place kills it without a dump).
  log="$T_TMP/wait-$sig.out"
  "$probe" "$dir" wait >"$log" 2>&1 &
  pid=$!
  for _ in $(seq 1 200); do grep -q ready "$log" 2>/dev/null && break; sleep 0.05; done
  kill -s "$sig" "$pid"
  for _ in $(seq 1 200); do kill -0 "$pid" 2>/dev/null || break; sleep 0.05; done
  kill -KILL "$pid" 2>/dev/null # still alive after 10 s: the signal was not taken
  wait "$pid"
  rc=$?
  num=$(kill -l "$sig")
  T_RC=$rc
  t_ok "SIG$sig while recording: the process dies of SIG$sig (exit $((128 + num)))" test "$rc" = $((128 + num))
  dump=$(ls "$dir"/stepscope-crash-*.trace.json 2>/dev/null | head -1)
  T_OUT=$(cat "$log") T_ERR=$(ls -la "$dir") \
    t_ok "SIG$sig while recording: the directory holds the dump, not nothing" test -n "$dump"
  t_ok "SIG$sig while recording: no temporary file" no_temp "$dir"
  if [ -n "$dump" ]; then
    t_run "$STEPSCOPE" steps "$dump" --step learner_step
    t_ok "SIG$sig while recording: stepscope steps reads the dump: 2 steps, exit 0" \
      test "$T_RC" = 0 -a -n "$(grep -E '(^|[^0-9])2 steps' <<<"$T_OUT")"
  fi
done

# A SIGTERM that arrives while stop writes the profile waits for it: the process still
# dies of SIGTERM, and the profile is whole (no dump: the recording was not cut).
dir="$T_TMP/held"
mkdir -p "$dir"
faults "$dir" STS_FAULT_SIGNAL=15 -- "$probe" "$dir" stop
t_ok "SIGTERM during stop: the process dies of SIGTERM after stop (exit 143)" test "$T_RC" = 143
t_run "$STEPSCOPE" steps "$dir" --step learner_step
t_ok "SIGTERM during stop: the profile directory is whole (2 steps, exit 0)" \
  test "$T_RC" = 0 -a -n "$(grep -E '(^|[^0-9])2 steps' <<<"$T_OUT")"
t_ok "SIGTERM during stop: no dump and no temporary file" \
  test -z "$(ls "$dir"/stepscope-crash-* 2>/dev/null)" -a -z "$(find "$dir" -name '.*.tmp*')"

# ---- issue 16.8: the crash dump counts drops; a dump cut short is an error ----------
dir="$T_TMP/full-pool"
mkdir -p "$dir"
t_run "$probe" "$dir" full
t_ok "a crash with a full pool: the process dies of SIGABRT (exit 134)" test "$T_RC" = 134
dump=$(ls "$dir"/stepscope-crash-*.trace.json 2>/dev/null | head -1)
t_ok "a crash with a full pool: the dump is written" test -n "$dump"
if [ -n "$dump" ]; then
  t_ok "the dump has the thread's drops (76 of 200 scopes)" \
    grep -qF '"name":"stepscope.dropped","s":"t","cat":"stepscope","args":{"dropped":76,"too_deep":0}' "$dump"
  t_ok "the dump has the session's totals" grep -qF '"args":{"recorded":124,"dropped":76,"too_deep":0' "$dump"
  t_run "$STEPSCOPE" analyze "$dump"
  t_ok "stepscope analyze reads the whole dump (exit 0)" test "$T_RC" = 0
  size=$(stat -c %s "$dump")
  for cut in 400 $((size / 2)) $((size - 40)); do
    head -c "$cut" "$dump" >"$T_TMP/cut.json"
    if [ -z "${STEPSCOPE_SANITIZED:-}" ]; then
      t_run bash -c 'ulimit -v 524288; exec "$@"' _ "$STEPSCOPE" analyze "$T_TMP/cut.json"
    else
      t_run "$STEPSCOPE" analyze "$T_TMP/cut.json"
    fi
    t_ok "a dump cut at byte $cut of $size: exit 1, 'cut short' naming the missing completion record" \
      test "$T_RC" = 1 -a -n "$(grep -F "$T_TMP/cut.json: cut short: the file ends at byte $cut without its completion record" <<<"$T_ERR")"
  done
fi
# The dump on a full disk: no dump, and no temporary file either.
dir="$T_TMP/full-disk-dump"
mkdir -p "$dir"
faults "$dir" STS_FAULT_AFTER=100 -- "$probe" "$dir" full
t_ok "a crash on a full disk: the process still dies of SIGABRT" test "$T_RC" = 134
t_ok "a crash on a full disk: no partial dump, no temporary file" test -z "$(ls -A "$dir")"
t_done
