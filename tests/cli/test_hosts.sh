# Many hosts of one run: a generated 16-host x 20-step profile (perf/gen_hosts.c, as
# XPlane files through the project's XSpace writer and as Kineto JSON through its Chrome
# JSON writer) with stragglers planted in known steps; steps must find exactly those,
# and what explains them, with every number checked against the generator's facts by
# an independent computation (hosts_check.py). Then: the same output whatever the
# inputs' spelling or the threads; slices with a host column; failures named; and under
# mpirun -n 1, 2, 4 the same bytes as one process (skipped, saying why, without MPI).
. "$(dirname "$0")/lib.sh"

GEN=${STEPSCOPE_BUILD:-build}/perf/gen_hosts
CHECK="python3 $(dirname "$0")/hosts_check.py"
W="$T_TMP/w"
P="$W/prof"
RUN="$P/plugins/profile/2026_01_01_00_00_00"
if [ ! -x "$GEN" ]; then
  echo "FAIL gen_hosts: $GEN is missing (make unit builds it)"
  exit 1
fi
t_run "$GEN" --hosts 16 --steps 20 --kernels 8 --facts "$W/facts.json" "$P"
t_ok "gen_hosts writes 16 hosts x 20 steps" test "$T_RC" = 0 -a "$(ls "$RUN" | wc -l)" = 16 -a "$(ls "$P/kineto" | wc -l)" = 16
t_ok "the XPlane files name their hosts (XSpace hostnames)" grep -q '"meta_host":"host03"' <("$STEPSCOPE" analyze --json "$RUN/host03.xplane.pb" "$RUN/host04.xplane.pb")

# steps: every number against the facts, the planted stragglers and their causes.
t_run "$STEPSCOPE" steps --json "$P"
t_ok "steps --json on the profile directory reads all 16 hosts" test "$T_RC" = 0 -a -n "$(grep -F '16 hosts (*.xplane.pb)' <<<"$T_ERR")"
printf '%s' "$T_OUT" >"$W/steps_x.json"
t_run $CHECK steps "$W/facts.json" "$W/steps_x.json" xplane 1.1
t_ok "XPlane: steps, children, device time, medians, stragglers and causes match the facts" test "$T_RC" = 0
t_run "$STEPSCOPE" steps --json "$P"/kineto/rank*.json.gz
printf '%s' "$T_OUT" >"$W/steps_k.json"
t_run $CHECK steps "$W/facts.json" "$W/steps_k.json" kineto 1.1
t_ok "Kineto rank traces: the same checks pass" test "$T_RC" = 0
# The same ranks as a PyTorch profiler directory (tensorboard_trace_handler's
# WORKER.TIME.pt.trace.json[.gz]), with an older cycle of rank0 beside its latest: one
# host per worker, the latest each, the same steps as the files named one by one.
PT="$W/pt_dir"
mkdir -p "$PT"
for f in "$P"/kineto/rank*.json.gz; do
  b=$(basename "$f" .json.gz)
  cp "$f" "$PT/$b.1701000000500.pt.trace.json.gz"
done
cp "$P/kineto/rank1.json.gz" "$PT/rank0.1701000000100.pt.trace.json.gz"
gzip -dc "$P/kineto/rank2.json.gz" >"$PT/rank2.1701000000500.pt.trace.json" && rm "$PT/rank2.1701000000500.pt.trace.json.gz"
t_run "$STEPSCOPE" steps --json "$PT"
t_ok "a PyTorch profiler directory: 16 hosts named by worker, the older cycle left out and said" \
  test "$T_RC" = 0 -a -n "$(grep -F '16 hosts (*.trace.json.gz, *.pt.trace.json); 1 older PyTorch profiler trace of the same workers left out' <<<"$T_ERR")"
printf '%s' "$T_OUT" >"$W/steps_pt.json"
t_ok "... and its steps are the rank files' steps (all but the paths and the run)" python3 -c '
import json, sys
a, b = (json.load(open(p)) for p in sys.argv[1:3])
for d in (a, b):
    d.pop("run", None)
    for h in d["hosts"]:
        h.pop("path")
assert a == b
' "$W/steps_pt.json" "$W/steps_k.json"
t_run $CHECK steps "$W/facts.json" "$W/steps_x.json" xplane 1.0
t_ok "the checker fails when the ratio differs from the one stepscope used" test "$T_RC" = 1
t_ok "stragglers: host07's all-reduce in steps 4, 9, 15 and host12's input in step 11" \
  test "$(python3 -c 'import json,sys; print(" ".join("%d:%s:%s" % (x["step"], x["host"], x["by"]["name"]) for x in json.load(open(sys.argv[1]))["stragglers"]))' "$W/steps_x.json")" = "4:host07:all-reduce 9:host07:all-reduce 11:host12:input 15:host07:all-reduce"
t_run "$STEPSCOPE" steps "$P"
t_ok "steps text names the straggler, the collective and the median host" \
  grep -q "step 4: host07 took 81.103 ms, the median 41.065 ms; by all-reduce (collective, device lanes): 42.001 ms against 2.001 ms on host10 (the median host)" <<<"$T_OUT"
t_run "$STEPSCOPE" steps "$P" --straggler-ratio 2
t_ok "--straggler-ratio 2: no straggler (the slowest took 1.98 x)" grep -q "^stragglers: none" <<<"$T_OUT"
t_run "$STEPSCOPE" steps "$P" --straggler-ratio 0.5
t_ok "--straggler-ratio below 1: usage error" test "$T_RC" = 2

# analyze: per-host slices and names over every host against the facts.
t_run "$STEPSCOPE" analyze --json "$P"
printf '%s' "$T_OUT" >"$W/analyze_x.json"
t_run $CHECK analyze "$W/facts.json" "$W/analyze_x.json" xplane 8 2
t_ok "XPlane: analyze's per-host slices and names (count, total, self, min, median, max) match the facts" test "$T_RC" = 0
t_run "$STEPSCOPE" analyze --json "$P"/kineto/rank*.json.gz
printf '%s' "$T_OUT" >"$W/analyze_k.json"
t_run $CHECK analyze "$W/facts.json" "$W/analyze_k.json" kineto 8 2
t_ok "Kineto: the same" test "$T_RC" = 0
t_run "$STEPSCOPE" analyze "$P"
t_ok "analyze text: 16 hosts, a hosts table, lanes with a host column" test "$T_RC" = 0 -a \
  -n "$(grep '^hosts       16 (host00 to host15)' <<<"$T_OUT")" -a -n "$(grep -E '^  host07 +/device:GPU|^  host07 +1 +7 ' <<<"$T_OUT")"

# The same output whatever names the hosts, and whatever the threads.
want=$("$STEPSCOPE" steps --json "$P" 2>/dev/null)
no_run() { grep -v '^  "run": '; } # files named one by one are no run
t_ok "the run folder and plugins/profile read the same" test \
  "$("$STEPSCOPE" steps --json "$RUN" 2>/dev/null)" = "$want" -a \
  "$("$STEPSCOPE" steps --json "$P/plugins/profile" 2>/dev/null)" = "$want"
t_ok "the files named one by one read the same, run null" test \
  "$("$STEPSCOPE" steps --json "$RUN"/*.xplane.pb 2>/dev/null | no_run)" = "$(no_run <<<"$want")" -a \
  -n "$("$STEPSCOPE" steps --json "$RUN"/*.xplane.pb 2>/dev/null | grep '^  "run": null')"
t_ok "files in any order give one host order (host2 before host10)" \
  test "$("$STEPSCOPE" steps --json $(ls "$RUN"/*.xplane.pb | sort -r) 2>/dev/null | no_run)" = "$(no_run <<<"$want")"
for j in 0 1 3 16; do
  t_ok "-j $j: the same steps and analyze output" test "$("$STEPSCOPE" steps --json "$P" -j $j 2>/dev/null)" = "$want" -a \
    "$("$STEPSCOPE" analyze --json "$P" --jobs=$j 2>/dev/null)" = "$(cat "$W/analyze_x.json")"
done
t_run "$STEPSCOPE" steps "$P" -j -1
t_ok "-j -1: usage error saying what -j takes" test "$T_RC" = 2 -a -n "$(grep -F 'got -1' <<<"$T_ERR" | grep -F '0: one per core')"

# Options that narrow one trace say so with several hosts.
t_run "$STEPSCOPE" analyze "$P" --lane python
t_ok "analyze --lane with 16 hosts: usage error, explained" test "$T_RC" = 2 -a -n "$(grep -F -- '--lane applies to one trace' <<<"$T_ERR")"
t_run "$STEPSCOPE" steps "$P" --lanes stream
t_ok "steps --lanes with 16 hosts: usage error, explained" test "$T_RC" = 2 -a -n "$(grep -F -- '--lanes applies to one trace' <<<"$T_ERR")"
t_run "$STEPSCOPE" steps "$P" --xprof --json
t_ok "steps --xprof with 16 hosts: each host's first and last step left out" test "$T_RC" = 0 -a \
  "$(python3 -c 'import json,sys; s=json.load(sys.stdin)["steps"]; print(s[0]["step"], s[-1]["step"], len(s))' <<<"$T_OUT")" = "1 18 18"

# One host reads as it always has.
t_run "$STEPSCOPE" steps "$RUN/host03.xplane.pb"
t_ok "one file: the single-host steps output" test "$T_RC" = 0 -a -n "$(grep "^20 steps 'train_step'" <<<"$T_OUT")"

# slices: a host column, every host's slices once, hosts in order.
t_run "$STEPSCOPE" slices "$P" -j 4
t_ok "slices on 16 hosts: the header gains host" test "$(head -1 <<<"$T_OUT")" = "host,pid,tid,ts_ns,dur_ns,depth,name"
t_ok "slices: every host's slices, in host order" test \
  "$(tail -n +2 <<<"$T_OUT" | cut -d, -f1 | uniq -c | awk '{print $2 ":" $1}' | tr '\n' ' ')" = \
  "$(for h in $(seq 0 15); do printf 'host%02d:%d ' "$h" $((20 * (1 + 5 + 2 * 9))); done)"
t_ok "slices: a host's rows are its single-file rows" test \
  "$(grep '^host05,' <<<"$T_OUT" | cut -d, -f2-)" = "$("$STEPSCOPE" slices "$RUN/host05.xplane.pb" | tail -n +2)"

# Failures: the file named, nothing printed on stdout, exit 1.
printf 'not a trace at all' >"$W/bad.xplane.pb"
head -c 3000 "$RUN/host02.xplane.pb" >"$W/cut.xplane.pb"
for f in "$W/bad.xplane.pb" "$W/cut.xplane.pb" "$W/missing.xplane.pb"; do
  for cmd in steps analyze slices; do
    t_run "$STEPSCOPE" $cmd "$RUN/host00.xplane.pb" "$f" "$RUN/host01.xplane.pb"
    t_ok "$cmd with $(basename "$f") among the hosts: exit 1, the file named" test "$T_RC" = 1 -a \
      -n "$(grep -F "stepscope $cmd: error: $f" <<<"$T_ERR")"
  done
done
t_run "$STEPSCOPE" steps "$RUN/host00.xplane.pb" "$RUN/../2026_01_01_00_00_00/host00.xplane.pb"
t_ok "the same file twice: exit 1, both named" test "$T_RC" = 1 -a -n "$(grep -F 'are the same file' <<<"$T_ERR")"
t_run "$STEPSCOPE" steps - "$RUN/host00.xplane.pb"
t_ok "- among several inputs: exit 1, explained" test "$T_RC" = 1 -a -n "$(grep -F 'standard input holds one trace' <<<"$T_ERR")"

# The reading threads under ThreadSanitizer (make check-tsan builds the unit test so).
if t_tsan "lib/hosts under ThreadSanitizer" test_hosts; then
  t_run env TSAN_OPTIONS=halt_on_error=1 "$T_TSAN"
  t_ok "lib/hosts' unit tests, threads included, race-free under ThreadSanitizer" test "$T_RC" = 0
fi

# MPI: the same bytes as one process, on 1, 2 and 4 ranks; failures end the job.
mpi_why=""
if ! command -v mpirun >/dev/null; then
  mpi_why="mpirun not found (apt-get install openmpi-bin libopenmpi-dev; scripts/deps.sh installs them)"
elif "$STEPSCOPE" steps --mpi "$RUN/host00.xplane.pb" 2>&1 | grep -q 'built without MPI'; then
  mpi_why="this stepscope was built without MPI (libopenmpi-dev was missing at build time)"
fi
if [ -n "$mpi_why" ]; then
  t_skip "mpirun -n 1, 2, 4 give the plain output" "$mpi_why"
else
  export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OMPI_MCA_rmaps_base_oversubscribe=1
  # Open MPI's session directory in this run's own folder: two mpirun starting at once
  # (the OpenCL-free flavour's copy of this file beside the plain one) raced to make
  # the shared /tmp/ompi.HOST.UID, and one failed in orte_init ("File exists").
  export OMPI_MCA_orte_tmpdir_base="$T_TMP"
  # Under LeakSanitizer, Open MPI's own allocations at exit are suppressed by library
  # (tests/lsan.supp); its libraries keep no frame pointers, so stacks need the slow
  # unwinder, which makes every malloc ten times dearer. The first group of runs (the
  # profile directory on 1, 2 and 4 ranks) checks leaks so; the later runs, on 20 MB
  # files, are checked by ASan and UBSan without LeakSanitizer (their reading code is
  # leak-checked outside MPI in test_speed.sh and the unit tests).
  ASAN_BASE=${ASAN_OPTIONS:-}
  [ -n "${STEPSCOPE_SANITIZED:-}" ] && export ASAN_OPTIONS="$ASAN_BASE:fast_unwind_on_malloc=0"
  MPIRUN="timeout 1200 mpirun --oversubscribe"
  for args in "analyze $P" "analyze --json $P" "steps $P" "steps --json $P" "analyze --json $P/kineto" \
              "steps --json $P/kineto/rank0.json.gz $P/kineto/rank1.json.gz $P/kineto/rank10.json.gz"; do
    # A folder of rank traces is no profile run: name the files.
    [ "$args" = "analyze --json $P/kineto" ] && args="analyze --json $(echo "$P"/kineto/rank*.json.gz)"
    plain=$("$STEPSCOPE" $args 2>/dev/null)
    for n in 1 2 4; do
      t_run $MPIRUN -n $n "$STEPSCOPE" $args --mpi -j 1
      t_ok "mpirun -n $n $(cut -c1-24 <<<"${args//$P/P}")... --mpi: exit 0, the same bytes as one process" \
        test "$T_RC" = 0 -a "$T_OUT" = "$plain"
    done
  done
  [ -n "${STEPSCOPE_SANITIZED:-}" ] && export ASAN_OPTIONS="$ASAN_BASE:detect_leaks=0"
  FX=$(t_fixtures)
  if [ -n "$FX" ] && [ -d "$FX/traces/kineto" ]; then
    # Real traces of different programs: names differ from host to host.
    set -- "$FX"/traces/jax/*.xplane.pb "$FX"/traces/kineto/*.json.gz
    plain=$("$STEPSCOPE" analyze --json "$@" 2>/dev/null)
    for n in 3 4; do
      t_run $MPIRUN -n $n "$STEPSCOPE" analyze --json --mpi "$@"
      t_ok "mpirun -n $n analyze --json on $# fixture traces (different names per host): the same bytes" \
        test "$T_RC" = 0 -a "$T_OUT" = "$plain"
    done
  else
    t_skip "mpirun on the fixture traces" "no fixtures (../shared/fixtures or STEPSCOPE_FIXTURES)"
  fi
  # Collectives matched across ranks (tests/cli/colls_gen.py): the records carry each
  # host's ops, rank 0 matches them: the same bytes as one process.
  mkdir -p "$W/colls" && python3 "$(dirname "$0")/colls_gen.py" gen "$W/colls" bad
  plain=$("$STEPSCOPE" steps --align --json "$W"/colls/rank*.json 2>/dev/null)
  for n in 2 3; do
    t_run $MPIRUN -n $n "$STEPSCOPE" steps --align --json --mpi -j 1 "$W"/colls/rank*.json
    t_ok "mpirun -n $n steps --align --json --mpi on 4 rank traces with collectives: the same bytes" \
      test "$T_RC" = 0 -a "$T_OUT" = "$plain" -a -n "$plain"
  done
  # One large plain JSON file: the other ranks read chunks of it for rank 0.
  BIG="$W/big.json"
  "${STEPSCOPE_BUILD:-build}/perf/gen_trace" --seed 7 20M "$BIG" >/dev/null
  # Under the sanitizers the rank counts that reach every path (one helper, helpers with
  # threads, a rank with no file), not each count: the plain tier runs them all.
  njs="1:1 2:1 3:2 4:1" ns="2 3 5"
  [ -n "${STEPSCOPE_SANITIZED:-}" ] && njs="2:1 3:2" ns="2 5"
  for args in "analyze --json $BIG" "steps --json $BIG"; do
    plain=$("$STEPSCOPE" $args -j 1 2>/dev/null)
    for nj in $njs; do # ranks:threads
      n=${nj%:*} j=${nj#*:}
      t_run env STEPSCOPE_MPI_STATS=1 $MPIRUN -n $n "$STEPSCOPE" $args --mpi -j $j
      got=$(sed -n 's/.*rank 0: one file: read in chunks; it took \([0-9]*\) chunks.*/\1/p' <<<"$T_ERR")
      t_ok "mpirun -n $n ${args%% *} ${args#* }: one $(du -m "$BIG" | cut -f1) MB file, -j $j: the same bytes as one process${got:+, $got chunks from other ranks}" \
        test "$T_RC" = 0 -a "$T_OUT" = "$plain" -a \( "$n" = 1 -o "${got:-0}" -gt 0 \)
    done
  done
  # Fewer large files than ranks: the ranks without a file read chunks for those with one.
  "${STEPSCOPE_BUILD:-build}/perf/gen_trace" --seed 8 18M "$W/rank1.json" >/dev/null
  for args in "analyze --json" "steps --json"; do
    plain=$("$STEPSCOPE" $args "$BIG" "$W/rank1.json" 2>/dev/null)
    for n in $ns; do
      t_run env STEPSCOPE_MPI_STATS=1 $MPIRUN -n $n "$STEPSCOPE" $args --mpi "$BIG" "$W/rank1.json"
      helped=$(grep -c 'one file: read in chunks; it took [1-9]' <<<"$T_ERR")
      t_ok "mpirun -n $n ${args%% *} on 2 large files: the same bytes as one process; $helped of them read with help (want $(( n > 4 ? 2 : n - 2 )))" \
        test "$T_RC" = 0 -a "$T_OUT" = "$plain" -a "$helped" = $(( n > 4 ? 2 : n - 2 ))
    done
  done
  # Its errors are the one process's, word for word, on any rank count; gzip is read alone.
  python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read()); i = b.index(b"\n", len(b) * 3 // 5); b[i] = 35; open(sys.argv[2], "wb").write(b)' "$BIG" "$W/bad.json"
  plain_err=$("$STEPSCOPE" analyze "$W/bad.json" 2>&1 >/dev/null)
  for n in 2 4; do
    t_run $MPIRUN -n $n "$STEPSCOPE" analyze --mpi "$W/bad.json"
    t_ok "mpirun -n $n on one large file damaged at 60%: exit 1, no hang, the one process's message" \
      test "$T_RC" = 1 -a -n "$plain_err" -a "$(grep '^stepscope' <<<"$T_ERR")" = "$plain_err"
  done
  t_run $MPIRUN -n 4 "$STEPSCOPE" steps --mpi "$W/rank1.json" "$W/bad.json"
  t_ok "mpirun -n 4, the damaged file among 2 read with helpers: non-zero exit, no hang, one message naming the rank and the file" \
    test "$T_RC" != 0 -a "$T_RC" != 124 -a -z "$T_OUT" -a \
    "$(grep -cE "^stepscope steps: error: rank [0-9]+: $W/bad.json: byte [0-9]+ \(event [0-9]+\)" <<<"$T_ERR")" = 1
  gzip -c "$BIG" >"$W/big.json.gz"
  t_run env STEPSCOPE_MPI_STATS=1 $MPIRUN -n 3 "$STEPSCOPE" steps --json --mpi "$W/big.json.gz"
  t_ok "mpirun -n 3 on one large .json.gz: rank 0 reads it alone, the same bytes, no hang" \
    test "$T_RC" = 0 -a "$T_OUT" = "$("$STEPSCOPE" steps --json "$W/big.json.gz" 2>/dev/null)" -a \
    -n "$(grep 'read alone' <<<"$T_ERR")"
  t_run $MPIRUN -n 2 "$STEPSCOPE" steps --mpi "$RUN/host03.xplane.pb"
  t_ok "mpirun -n 2 on one host: rank 0 prints the single-host output" test "$T_RC" = 0 -a \
    "$T_OUT" = "$("$STEPSCOPE" steps "$RUN/host03.xplane.pb" 2>/dev/null)"
  for f in "$W/bad.xplane.pb" "$W/cut.xplane.pb" "$W/missing.xplane.pb"; do
    for n in 2 4; do
      t_run $MPIRUN -n $n "$STEPSCOPE" steps --mpi "$RUN"/host0*.xplane.pb "$f"
      t_ok "mpirun -n $n, $(basename "$f") among the hosts: non-zero exit, no hang, one message naming the rank and the file" \
        test "$T_RC" != 0 -a "$T_RC" != 124 -a -z "$T_OUT" -a \
        "$(grep -cE "^stepscope steps: error: rank [0-9]+: $f" <<<"$T_ERR")" = 1
    done
  done
  t_run $MPIRUN -n 2 "$STEPSCOPE" analyze --mpi "$W/nothing-here"
  t_ok "mpirun -n 2 on a path that is not there: exit non-zero, one message" test "$T_RC" != 0 -a "$T_RC" != 124 -a \
    "$(grep -c "stepscope analyze: error: $W/nothing-here" <<<"$T_ERR")" = 1
fi
t_done
