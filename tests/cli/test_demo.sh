# `stepscope demo`: choosing a lesson, and `demo report` rebuilding the page from what
# an earlier run left in --out (missing lessons become notes, a broken one fails).
. "$(dirname "$0")/lib.sh"
STEPSCOPE=$(cd "$(dirname "$STEPSCOPE")" && pwd)/$(basename "$STEPSCOPE")

t_run "$STEPSCOPE" demo --help
t_ok "demo --help lists report and diff" \
  test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep '^  report ')" -a -n "$(printf '%s' "$T_OUT" | grep '^  diff ')"

# Run from a scratch folder: a rejected choice must not leave demo-out/ behind.
mkdir -p "$T_TMP/cwd"
t_run sh -c "cd '$T_TMP/cwd' && exec '$STEPSCOPE' demo bogus"
t_ok "demo bogus is a usage error" test "$T_RC" = 2 -a -n "$(printf '%s' "$T_ERR" | grep '^usage: stepscope demo')"
t_ok "demo bogus creates nothing" test ! -e "$T_TMP/cwd/demo-out"
t_run "$STEPSCOPE" demo trace bench --out "$T_TMP/x"
t_ok "two choices are a usage error" test "$T_RC" = 2

t_run "$STEPSCOPE" demo report --out "$T_TMP/nowhere"
t_ok "demo report on a missing folder fails naming it" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep "$T_TMP/nowhere is not a directory")" -a ! -e "$T_TMP/nowhere"

# The build without OpenCL (make check-noocl): the lessons refuse before making
# anything, saying what to install; the page alone needs no device.
if [ "${STEPSCOPE_OPENCL:-1}" = 0 ]; then
  for lesson in "" bench retrace trace diff; do
    t_run sh -c "cd '$T_TMP/cwd' && exec '$STEPSCOPE' demo $lesson"
    t_ok "demo ${lesson:-(all)} without OpenCL: exit 5, says to install it, creates nothing" \
      test "$T_RC" = 5 -a ! -e "$T_TMP/cwd/demo-out" -a -n "$(grep -F "stepscope demo: error: this command needs OpenCL: this build of stepscope was made without OpenCL" <<<"$T_ERR" | grep -F 'install ocl-icd-opencl-dev opencl-headers pocl-opencl-icd (scripts/deps.sh')"
  done
  mkdir -p "$T_TMP/empty"
  t_run "$STEPSCOPE" demo report --out "$T_TMP/empty"
  t_ok "demo report without OpenCL still writes the page, each lesson a note" \
    test "$T_RC" = 0 -a -s "$T_TMP/empty/report.html" -a -n "$(grep -F "$T_TMP/empty/bench.json not found" <<<"$T_OUT")"
fi

out=$T_TMP/demo
t_run "$STEPSCOPE" demo trace --out "$out"
if t_no_opencl "demo report after demo trace"; then
  t_done
  exit
elif [ "$T_RC" != 0 ] && printf '%s' "$T_ERR$T_OUT" | grep -q "no OpenCL"; then
  t_skip "demo report after demo trace" "no OpenCL device here"
  t_done
  exit
fi
t_ok "demo trace exits 0 and writes no page" test "$T_RC" = 0 -a ! -e "$out/report.html"
runs_before=$(ls "$out/trace/plugins/profile" | wc -l)

t_run "$STEPSCOPE" demo report --out "$out"
t_ok "demo report exits 0 and writes report.html" test "$T_RC" = 0 -a -s "$out/report.html"
t_ok "demo report runs no lesson" \
  test -z "$(printf '%s' "$T_OUT" | grep '== lesson')" -a "$(ls "$out/trace/plugins/profile" | wc -l)" = "$runs_before"
page=$(cat "$out/report.html" 2>/dev/null)
t_ok "the page has the trace's step figure with its 4 steps" \
  test -n "$(printf '%s' "$page" | grep -o '<svg id="fig-steps"[^>]*data-steps="4"')"
t_ok "the page notes the skipped bench section" \
  test -n "$(printf '%s' "$page" | grep -F "Skipped: $out/bench.json was not found (run \`stepscope demo bench\`")"
t_ok "the page notes the skipped ledger section" \
  test -n "$(printf '%s' "$page" | grep -F "Skipped: $out/ledger.json was not found (run \`stepscope demo retrace\`")"
t_ok "the page notes the skipped diff section" \
  test -n "$(printf '%s' "$page" | grep -F "Skipped: $out/diff.json was not found (run \`stepscope demo diff\`")"
t_ok "demo report says what it skipped" \
  test "$(printf '%s' "$T_OUT" | grep -c 'not found, section skipped')" = 3

# A lesson output that cannot be read: the page is still written, with a note, exit 1.
printf '{"warm_samples_seconds": [1e-5,' >"$out/bench.json"
rm -f "$out/report.html"
t_run "$STEPSCOPE" demo report --out "$out"
t_ok "a broken bench.json fails the report with exit 1 naming the file" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep "$out/bench.json")"
t_ok "the page is still written with the trace and a note" \
  test -n "$(grep -F "Skipped: $out/bench.json could not be read" "$out/report.html" 2>/dev/null)" \
  -a -n "$(grep -o 'data-steps="4"' "$out/report.html" 2>/dev/null)"

# A later-named run beside the demo's (another host's, a copied one): the page shows the
# run demo trace wrote, which it noted in OUT/trace_run.txt, not the latest by name.
rm -f "$out/bench.json"
run=$(ls "$out/trace/plugins/profile" | head -n 1)
planted="$out/trace/plugins/profile/9999_12_31_23_59_59"
mkdir -p "$planted"
printf '[{"ph":"X","pid":1,"tid":1,"ts":0,"dur":5,"name":"another_host_step"}]' >"$planted/perfetto_trace.json.gz"
t_ok "demo trace noted its run in trace_run.txt" test "$(cat "$out/trace_run.txt" 2>/dev/null)" = "trace/plugins/profile/$run"
t_run "$STEPSCOPE" demo report --out "$out"
page=$(cat "$out/report.html" 2>/dev/null)
t_ok "demo report beside a later-named run exits 0 naming the run demo trace wrote" \
  test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep -F "$out/trace/plugins/profile/$run")"
t_ok "the page shows the demo's run (4 steps), not the later-named one" \
  test -n "$(printf '%s' "$page" | grep -o 'data-steps="4"')" -a -z "$(printf '%s' "$page" | grep another_host_step)"
t_ok "the later-named run is left alone" test -s "$planted/perfetto_trace.json.gz"

# The note gone (a trace folder from elsewhere, an older demo): the latest run by name,
# said on the terminal and on the page.
mv "$out/trace_run.txt" "$T_TMP/trace_run.txt"
t_run "$STEPSCOPE" demo report --out "$out"
page=$(cat "$out/report.html" 2>/dev/null)
t_ok "without trace_run.txt demo report uses the latest run by name and says so" \
  test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep "trace_run.txt not found.*latest run by name")"
t_ok "the page says so too, and shows that run" \
  test -n "$(printf '%s' "$page" | grep "latest run by name")" -a -n "$(printf '%s' "$page" | grep another_host_step)"

# A note naming a run that is gone: the section is skipped with a note; an unreadable
# note fails the report (exit 1) naming the file, the page still written.
printf 'trace/plugins/profile/gone\n' >"$out/trace_run.txt"
t_run "$STEPSCOPE" demo report --out "$out"
t_ok "a noted run that is gone becomes a note" \
  test "$T_RC" = 0 -a -n "$(grep -F "Skipped: $out/trace/plugins/profile/gone was not found" "$out/report.html")"
: >"$out/trace_run.txt"
rm -f "$out/report.html"
t_run "$STEPSCOPE" demo report --out "$out"
t_ok "an empty trace_run.txt fails the report naming it" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep -F "$out/trace_run.txt")" -a -s "$out/report.html"
t_done
