# steps --collectives: four generated rank traces (tests/cli/colls_gen.py) with known
# clock offsets, arrivals, a shared end per collective, transfer times and message sizes;
# every number of the document checked against the generator's own values; bad input
# (a collective on one rank only, a repeated sequence number) counted and left out with
# the rest unchanged; --align; -j; and the 8-GPU XSpace fixture, whose devices are the
# ranks of one file and which holds no collective. (--mpi: in test_hosts.sh.)
. "$(dirname "$0")/lib.sh"

GEN="python3 $(dirname "$0")/colls_gen.py"
W="$T_TMP/w"
mkdir -p "$W/good" "$W/bad"
$GEN gen "$W/good" && $GEN gen "$W/bad" bad
t_ok "the generator writes 4 rank traces" test -f "$W/good/rank3.json" -a -f "$W/bad/rank3.json"

t_run "$STEPSCOPE" steps --collectives --json "$W"/good/rank*.json
t_ok "steps --collectives --json: exit 0" test "$T_RC" = 0
printf '%s' "$T_OUT" >"$W/good.json"
t_run $GEN check "$W/good/facts.json" "$W/good.json"
t_ok "offsets, residual, arrivals, ends, skew, waits, last and median rank, transfer, bytes, bandwidth, step, cause and per-step waits match the generator" test "$T_RC" = 0
t_run "$STEPSCOPE" steps --collectives --json -j 1 "$W"/good/rank*.json
t_ok "-j 1 gives the same bytes as the default" test "$T_OUT" = "$(cat "$W/good.json")"
t_run $GEN check "$W/good/facts.json" <(sed 's/"rank2": -700000/"rank2": -700001/' "$W/good.json")
t_ok "the checker fails on an offset 1 ns off" test "$T_RC" = 1

t_run "$STEPSCOPE" steps --collectives --json "$W"/bad/rank*.json
printf '%s' "$T_OUT" >"$W/bad.json"
t_ok "bad input: exit 0, a warning naming what was left out" \
  test "$T_RC" = 0 -a -n "$(grep -F 'left out: 1 seen on one rank only, 1 with a sequence number a rank repeats' <<<"$T_ERR")"
t_run $GEN check "$W/bad/facts.json" "$W/bad.json"
t_ok "bad input: counted (one_rank 1, repeated 1), the repeated instance left out, every other number exact" test "$T_RC" = 0

t_run "$STEPSCOPE" steps --collectives "$W"/good/rank*.json
t_ok "text: the late rank and the interval that made it late" \
  grep -q "allreduce #4: waits 12.800 ms; rank1 arrived 4.300 ms late: its 'backward' took 4.300 ms longer before it (7.300 ms against 3.000 ms on rank3)" <<<"$T_OUT"
t_ok "text: the offsets and the residual" grep -q "rank2 *-0.700000" <<<"$T_OUT"

# --align: the generator's ranks start each step at the same true time.
starts='import json,sys; d=json.load(open(sys.argv[1])); print(" ".join(str(s["ts_ns"]) for h in d["hosts"] for s in h["steps"] if s["step"]==1))'
"$STEPSCOPE" steps --collectives --json "$W"/good/rank*.json >"$W/plain.json"
"$STEPSCOPE" steps --align --json "$W"/good/rank*.json >"$W/align.json"
t_ok "without --align the hosts' step 1 starts are their own clocks'" \
  test "$(python3 -c "$starts" "$W/plain.json")" = "51000000 52500000 50300000 54000000"
t_ok "--align: every host's step 1 starts at the same aligned time" \
  test "$(python3 -c "$starts" "$W/align.json")" = "51000000 51000000 51000000 51000000"
t_ok "--align: the collectives themselves are the same either way" \
  test "$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["collectives"] == json.load(open(sys.argv[2]))["collectives"])' "$W/plain.json" "$W/align.json")" = True

# No collectives: said, exit 1 after the output.
FX=$(t_fixtures)
if [ -n "$FX" ] && [ -f "$FX/traces/jax/conv_mi300_8gpu.xplane.pb" ]; then
  t_run "$STEPSCOPE" steps --collectives --json "$FX/traces/jax/conv_mi300_8gpu.xplane.pb"
  t_ok "8-GPU XSpace (one file, its devices the ranks): no collective, said, exit 1, the document still written" \
    test "$T_RC" = 1 -a -n "$(grep -F 'no collective was matched across ranks (0 collective ops' <<<"$T_ERR")" \
    -a "$(python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["collectives"], d["clock_residual_ns"], d["hosts_count"])' <<<"$T_OUT")" = "[] None 1"
else
  t_skip "the 8-GPU XSpace fixture" "no fixtures (../shared/fixtures or STEPSCOPE_FIXTURES)"
fi
t_run "$STEPSCOPE" steps --align "$W"/good/rank0.json "$W"/good/rank1.json --step nothing-is-called-this
t_ok "no steps: exit 1 as for steps without --align" test "$T_RC" = 1
t_done
