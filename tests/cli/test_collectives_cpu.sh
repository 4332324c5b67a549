# steps --collectives over CPU-only ranks (gloo): three generated rank traces
# (tests/cli/gloo_gen.py) with c10d calls on the main thread, their gloo:* work on
# worker threads, known clock offsets, arrivals and shared ends; every number checked
# against the generator's values; a rank whose calls and works do not pair gives no op
# and is counted. (Real PyTorch traces: tests/interop/test_collectives_gloo.sh.)
. "$(dirname "$0")/lib.sh"

GEN="python3 $(dirname "$0")/gloo_gen.py"
W="$T_TMP/w"
mkdir -p "$W/good" "$W/bad"
$GEN gen "$W/good" && $GEN gen "$W/bad" bad
t_ok "the generator writes 3 CPU-only rank traces" test -f "$W/good/rank2.json" -a -f "$W/bad/rank2.json"

t_run "$STEPSCOPE" steps --collectives --json "$W"/good/rank*.json
t_ok "steps --collectives --json: exit 0" test "$T_RC" = 0
printf '%s' "$T_OUT" >"$W/good.json"
t_run $GEN check "$W/good/facts.json" "$W/good.json"
t_ok "offsets, arrivals (the calls' starts), ends (the works' ends), waits, last rank, transfer, step, cause, by order and by record_param_comms' seq: as generated" test "$T_RC" = 0
t_run $GEN check "$W/good/facts.json" <(sed 's/"rank2": -1200000/"rank2": -1200001/' "$W/good.json")
t_ok "the checker fails on an offset 1 ns off" test "$T_RC" = 1

t_run "$STEPSCOPE" steps --collectives --json "$W"/bad/rank*.json
printf '%s' "$T_OUT" >"$W/bad.json"
t_ok "a rank whose works do not pair: exit 0, said" \
  test "$T_RC" = 0 -a -n "$(grep -F 'left out: 7 collective call(s) on host threads that do not pair' <<<"$T_ERR")"
t_run $GEN check "$W/bad/facts.json" "$W/bad.json"
t_ok "that rank gives no op (unpaired_calls 7), the others' numbers exact" test "$T_RC" = 0

t_run "$STEPSCOPE" steps --collectives "$W"/good/rank*.json
t_ok "text: the late rank and its longer backward" \
  grep -q "c10d::allreduce_ #0: waits 19.700 ms; rank1 arrived 9.800 ms late: its 'backward' took" <<<"$T_OUT"
t_done
