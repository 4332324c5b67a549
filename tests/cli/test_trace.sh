# The recorder beyond its unit tests: compiled out with STS_TRACE_DISABLED (no recorder
# symbol referenced), its concurrency checks under ThreadSanitizer, and lesson 3 end to
# end through `stepscope demo trace`.
. "$(dirname "$0")/lib.sh"
cc=${CC:-cc}
root=$(cd "$(dirname "$0")/../.." && pwd)

# ---- STS_TRACE_DISABLED compiles every annotation to nothing -----------------------
cat >"$T_TMP/annotated.c" <<'SRC'
#include "stepscope/trace.h"
int annotated(int n);
int annotated(int n)
{
    int sum = 0;
    sts_trace_thread_name("worker");
    sts_trace_start("unused", NULL, NULL);
    for (int i = 0; i < n; i++) {
        STS_STEP("step", i);
        STS_SCOPE("inner");
        sts_scope_arg_int("i", i);
        sts_scope_arg_double("x", 0.5);
        sts_scope_arg_str("s", "text");
        uint32_t t = sts_scope_begin("explicit");
        sts_scope_end_token(t);
        sts_scope_begin("as a statement");
        sts_scope_end();
        sts_trace_device(NULL, NULL);
        sts_trace_device_detach(NULL, NULL);
        sts_timeline *tl;
        if (sts_trace_stop_timeline(&tl, NULL, NULL) == STS_OK) sum += tl != NULL;
        sts_step_begin("s2", i);
        sts_step_end();
        sts_scope_begin("e2");
        sts_scope_end();
        sum += i + (int)sts_trace_now_ns() + sts_trace_active();
    }
    sts_trace_stop(NULL, NULL);
    return sum;
}
SRC
flags=(-std=c11 -O2 -Wall -Wextra -Werror -Wshadow -Wundef -Wstrict-prototypes -Wmissing-prototypes -I"$root/include")
if "$cc" "${flags[@]}" -c "$T_TMP/annotated.c" -o "$T_TMP/on.o" 2>"$T_TMP/cc_on.err" &&
   "$cc" "${flags[@]}" -DSTS_TRACE_DISABLED -c "$T_TMP/annotated.c" -o "$T_TMP/off.o" 2>"$T_TMP/cc_off.err"; then
  on_syms=$(nm -u "$T_TMP/on.o" | grep -c ' sts_')
  off_syms=$(nm -g "$T_TMP/off.o" | grep -c 'sts_')
  t_ok "annotations reference the recorder when enabled ($on_syms symbols)" test "$on_syms" -ge 8
  T_OUT=$(nm -g "$T_TMP/off.o")
  t_ok "STS_TRACE_DISABLED leaves no recorder symbol (nm)" test "$off_syms" = 0
else
  T_ERR=$(cat "$T_TMP/cc_on.err" "$T_TMP/cc_off.err")
  t_ok "annotated translation unit compiles with and without STS_TRACE_DISABLED" false
fi

# ---- the concurrency checks under ThreadSanitizer --------------------------------
# The recorder's threads under ThreadSanitizer: `make check` builds the library again
# with SAN=thread and links tests/unit/trace_tsan.c against it.
if t_tsan "tsan recorder" trace_tsan; then
  t_run env TSAN_OPTIONS="halt_on_error=1 exitcode=66" "$T_TSAN"
  t_ok "recorder threads under ThreadSanitizer: no race, nothing lost" \
    test "$T_RC" = 0 -a -z "$(printf '%s' "$T_OUT" | grep FAIL)" -a -z "$(printf '%s' "$T_ERR" | grep ThreadSanitizer)"
fi

# ---- lesson 3 end to end ----------------------------------------------------------
out="$T_TMP/demo"
t_run "$STEPSCOPE" demo trace --out "$out"
if t_no_opencl "demo trace"; then
  t_done
  exit
elif [ "$T_RC" != 0 ] && printf '%s' "$T_ERR$T_OUT" | grep -q "no OpenCL"; then
  t_skip "demo trace" "no OpenCL device here"
  t_done
  exit
fi
t_ok "demo trace exits 0" test "$T_RC" = 0
run=$(ls -d "$out"/trace/plugins/profile/*/ 2>/dev/null | head -1)
t_ok "demo trace writes a profile run under OUT/trace" test -n "$run"
t_ok "the run holds an .xplane.pb" test -n "$(ls "$run"*.xplane.pb 2>/dev/null)"
t_ok "the run holds perfetto_trace.json.gz" test -s "${run}perfetto_trace.json.gz"
t_ok "the run holds HOST.trace.json.gz" test -n "$(ls "$run"*.trace.json.gz 2>/dev/null)"
for key in input_wait_us model_and_wait_us step_us; do
  n=$(printf '%s\n' "$T_OUT" | grep "^$key" | grep -o '[0-9][0-9.]*' | wc -l)
  t_ok "demo prints four $key values" test "$n" = 4
done
t_ok "demo checks nesting" grep -q "PASS each input_wait and model_and_wait lies inside its learner_step" <<<"$T_OUT"
t_ok "demo checks order" grep -q "PASS input_wait ends before model_and_wait starts" <<<"$T_OUT"
t_ok "demo checks unattributed time" grep -q "PASS unattributed time >= -2 us" <<<"$T_OUT"
t_ok "demo prints double-counted totals" grep -q "^wrong_double_counted_us" <<<"$T_OUT"
t_ok "demo prints the model summary in ms" grep -qE "^model_and_wait_ms: min [0-9.]+ median [0-9.]+ max [0-9.]+" <<<"$T_OUT"
t_ok "demo computes union 12 vs sum 19" grep -q "union(\[0,10\],\[2,7\],\[8,12\]) = 12 us; summed durations = 19 us" <<<"$T_OUT"
t_ok "demo says where to open it" grep -q "ui.perfetto.dev" <<<"$T_OUT"
t_ok "demo names xprof" grep -q "xprof --port 8791" <<<"$T_OUT"

# The numbers it printed are the trace's: recompute the steps from the files.
if [ -n "$run" ]; then
  t_run "$STEPSCOPE" steps "${run}perfetto_trace.json.gz" --step learner_step
  t_ok "stepscope steps finds the four learner_step steps in perfetto_trace.json.gz" \
    test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep -E '(^|[^0-9])4 steps')"
fi

bash "$root/tests/browser/devtools_trace.sh" || T_FAILS=$((T_FAILS + 1))  # DevTools' trace engine reads it
# A bad output location is bad input, named in the message.
touch "$T_TMP/file"
t_run "$STEPSCOPE" demo trace --out "$T_TMP/file"
t_ok "demo trace with --out naming a file exits 1 and names it" \
  test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep -F "$T_TMP/file")"
t_done
