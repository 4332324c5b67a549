# The slice table against Perfetto's trace_processor (../shared/tools/trace_processor_shell,
# Perfetto v58.2), on every fixture trace, every Chrome JSON trace of the fuzz corpus and
# random traces made to exercise the importer's rules: see tests/perfetto/compare.py for
# the checks and docs/perfetto.md for the deliberate differences each one allows.
. "$(dirname "$0")/lib.sh"
HERE="$(cd "$(dirname "$0")/.." && pwd)"
if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
  # The comparison is about results; the sanitizers see these code paths in
  # test_fixtures.sh and in test_model's thousands of random traces.
  t_skip "perfetto tier" "runs in the plain build only"
  exit 0
fi
TP=${STEPSCOPE_TRACE_PROCESSOR:-}
if [ -z "$TP" ]; then
  FX=$(t_fixtures)
  for cand in "${FX:+$FX/../tools/trace_processor_shell}" "$HERE/../../shared/tools/trace_processor_shell"; do
    [ -n "$cand" ] && [ -x "$cand" ] && TP=$cand && break
  done
fi
if [ -z "$TP" ]; then
  t_skip "perfetto tier" "no trace_processor_shell (../shared/tools, or set STEPSCOPE_TRACE_PROCESSOR)"
  exit 0
fi
printf '[{"ph":"X","name":"a","pid":1,"tid":1,"ts":1,"dur":1}]' >"$T_TMP/probe.json"
printf 'select count(*) from slice;\n' >"$T_TMP/probe.sql"
if ! "$TP" -q "$T_TMP/probe.sql" "$T_TMP/probe.json" >/dev/null 2>"$T_TMP/probe.err"; then
  t_skip "perfetto tier" "$TP cannot run here: $(head -c 200 "$T_TMP/probe.err")"
  exit 0
fi
if ! command -v python3 >/dev/null; then
  t_skip "perfetto tier" "python3 not installed"
  exit 0
fi

# Each comparison starts two importers and a Python; they run side by side, STS_TEST_JOBS
# at a time (default: the cores), each into its own output, printed in order at the end.
jobs=${STS_TEST_JOBS:-$(nproc 2>/dev/null || echo 2)}
ncmp=0
compare() { # TRACE LABEL [--may-refuse]
  ncmp=$((ncmp + 1))
  (
    TMPDIR="$T_TMP" python3 "$HERE/perfetto/compare.py" "$TP" "$STEPSCOPE" "$1" --label "$2" ${3:-} \
      >"$T_TMP/cmp_$ncmp.out" 2>&1
    echo $? >"$T_TMP/cmp_$ncmp.rc"
  ) &
  while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
}
collect() {
  wait
  local i rc
  for i in $(seq 1 "$ncmp"); do
    cat "$T_TMP/cmp_$i.out"
    rc=$(cat "$T_TMP/cmp_$i.rc" 2>/dev/null || echo missing)
    [ "$rc" = 0 ] || T_FAILS=$((T_FAILS + 1))
  done
}

n=0
FX=$(t_fixtures)
if [ -n "$FX" ] && [ -d "$FX/traces" ]; then
  for f in "$FX"/traces/*/*.json "$FX"/traces/*/*.json.gz; do
    [ -f "$f" ] || continue
    compare "$f" "fixture ${f#"$FX"/traces/}"
    n=$((n + 1))
  done
else
  t_skip "perfetto tier: fixtures" "no \$STEPSCOPE_FIXTURES/traces"
fi

# The fuzz corpus: the traces both programs read. Malformed JSON is an error in
# stepscope, while trace_processor imports what came before the error: not compared
# (docs/perfetto.md).
for f in "$HERE"/../fuzz/corpus/chrome_json/*; do
  [ -f "$f" ] || continue
  if ! "$STEPSCOPE" slices --csv "$f" >/dev/null 2>&1; then
    echo "info corpus $(basename "$f"): stepscope refuses it as malformed; not compared"
    continue
  fi
  compare "$f" "corpus $(basename "$f")" --may-refuse
  n=$((n + 1))
done

# Random traces: nesting, overlaps small and large, equal timestamps, zero lengths, B/E
# matched by name and category or not at all, instants, async ids, out-of-order files.
for seed in $(seq 1 24); do
  python3 "$HERE/perfetto/random_trace.py" "$seed" "$T_TMP/random_$seed.json"
  compare "$T_TMP/random_$seed.json" "random trace $seed"
  n=$((n + 1))
done
# The shapes that once took time growing with the square of their size (issue 34): runs
# of zero-length slices at one instant, staircases over many overflow tracks, async
# slices under many ids; the faster paths must give the table the walk gave.
for seed in $(seq 1 8); do
  python3 "$HERE/perfetto/random_trace.py" --corners "$seed" "$T_TMP/corners_$seed.json"
  compare "$T_TMP/corners_$seed.json" "corner shapes $seed"
  n=$((n + 1))
done
collect
echo "info perfetto tier: $n traces compared"
t_done
