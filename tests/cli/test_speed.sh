# Reading fast: -j N gives the same output whatever N (chunks on threads, merged in
# file order), and the progress line shows on a terminal only, and not with -q.
. "$(dirname "$0")/lib.sh"

W="$T_TMP/w"
mkdir -p "$W"
# About 20 MB of Kineto-like events (past the size from which chunks are used): two
# lanes, nested X, B/E pairs, flows, counters, metadata at both ends, a bad event.
python3 - "$W/big.json" <<'PY'
import random, sys
random.seed(7)
names = ["aten::mm", "cudaLaunchKernel", "aten::add_", "a \\\"quoted\\\" }, { name", "back\\\\slash"]
out = ['{"traceEvents": [',
       '{"ph":"M","name":"process_name","pid":1,"tid":0,"args":{"name":"python"}},']
t = 1712195495400000
parts = []
for i in range(90000):
    t += random.randint(1, 9)
    k = i % 9
    if k < 5:
        parts.append('{"ph":"X","cat":"cpu_op","name":"%s","pid":1,"tid":%d,"ts":%d.%03d,"dur":%d.%03d,'
                     '"args":{"External id":%d,"Input Dims":[[64,1024],[1024]]}}'
                     % (random.choice(names), 1 + i % 2, t, i % 1000, k + 1, i % 7, i))
    elif k == 5:
        parts.append('{"ph":"B","name":"step","pid":1,"tid":3,"ts":%d}' % t)
    elif k == 6:
        parts.append('{"ph":"E","pid":1,"tid":3,"ts":%d.5}' % (t + 1))
    elif k == 7:
        parts.append('{"ph":"s","cat":"ac2g","name":"ac2g","id":%d,"pid":1,"tid":1,"ts":%d}' % (i, t))
    else:
        parts.append('{"ph":"C","name":"mem","pid":1,"ts":%d,"args":{"bytes":%d}}' % (t, i * 7))
    if i == 80000:
        parts.append('{"ph":"X","name":"bad","pid":1,"tid":1,"ts":%d,"dur":-1}' % t)
out.append(",\n".join(parts))
out.append(',\n{"ph":"M","name":"thread_name","pid":1,"tid":2,"args":{"name":"worker"}}')
out.append('], "displayTimeUnit": "ns"}\n')
open(sys.argv[1], "w").write("".join(out))
PY

for cmd in "analyze --json" "slices --csv" "steps --json --step step"; do
  name=${cmd%% *}
  "$STEPSCOPE" $cmd "$W/big.json" -j 1 >"$W/$name.1" 2>"$W/$name.err1"
  rc1=$?
  same=1
  for j in 2 3 7; do
    "$STEPSCOPE" $cmd "$W/big.json" -j $j >"$W/$name.$j" 2>"$W/$name.errj"
    cmp -s "$W/$name.1" "$W/$name.$j" && cmp -s "$W/$name.err1" "$W/$name.errj" || same=0
  done
  T_RC=$rc1
  t_ok "$name: -j 2, 3 and 7 print exactly what -j 1 prints" test "$rc1" = 0 -a "$same" = 1 -a -s "$W/$name.1"
done
t_ok "a warning from a later chunk names the event's index in the whole file" \
  grep -q "event 80002 (byte" "$W/analyze.errj"
# analyze counts flows without keeping them (STS_FLOWS_COUNT): every one, at any -j.
want_flows=$(grep -o '"ph":"s"' "$W/big.json" | wc -l)
t_ok "analyze counts the file's $want_flows flow events at -j 1 and -j 7" \
  test "$want_flows" -gt 0 -a -n "$(grep "\"flows\": *$want_flows," "$W/analyze.1")" -a \
  -n "$(grep "\"flows\": *$want_flows," "$W/analyze.7")"

# The same file gzipped: the inflater is one of the -j threads (-j 2: it and one reader;
# -j 3 and 7: it and chunk workers on the inflated stream), the output the same.
gzip -c "$W/big.json" >"$W/big.json.gz"
"$STEPSCOPE" analyze --json "$W/big.json.gz" -j 1 >"$W/gz.1" 2>"$W/gz.err1"
rc1=$?
same=1
for j in 2 3 7; do
  "$STEPSCOPE" analyze --json "$W/big.json.gz" -j $j >"$W/gz.$j" 2>"$W/gz.errj"
  cmp -s "$W/gz.1" "$W/gz.$j" && cmp -s "$W/gz.err1" "$W/gz.errj" || same=0
done
T_RC=$rc1
t_ok "gzip: -j 2, 3 and 7 print exactly what -j 1 prints" test "$rc1" = 0 -a "$same" = 1 -a -s "$W/gz.1"
t_ok "gzip: the names and lanes of the plain file" \
  test "$(python3 -c 'import json,sys; a,b=(json.load(open(f)) for f in sys.argv[1:]); print(a["names"]==b["names"] and a["lanes"]==b["lanes"])' "$W/gz.1" "$W/analyze.1")" = True

t_run "$STEPSCOPE" analyze "$W/big.json" -j -2
t_ok "analyze -j -2 is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" analyze "$W/big.json" --jobs=many
t_ok "analyze --jobs=many is a usage error" test "$T_RC" = 2

# Progress: a read that takes more than a second (half the bytes, a pause, the rest)
# through a pipe, with stderr a terminal (script(1)) or a file.
if command -v script >/dev/null 2>&1; then
  half=$(($(wc -c <"$W/big.json") / 2))
  slow() { { head -c "$half" "$W/big.json"; sleep 1.5; tail -c +"$((half + 1))" "$W/big.json"; } >"$W/fifo"; }
  mkfifo "$W/fifo"
  slow &
  script -qec "$STEPSCOPE analyze - <'$W/fifo' >/dev/null" /dev/null </dev/null >"$W/tty.txt" 2>&1
  wait
  t_ok "a slow read on a terminal shows bytes read and the rate" grep -q "stepscope analyze: read [0-9]* MB, [0-9]* MB/s" "$W/tty.txt"
  slow &
  script -qec "$STEPSCOPE analyze -q - <'$W/fifo' >/dev/null" /dev/null </dev/null >"$W/quiet.txt" 2>&1
  wait
  t_ok "-q turns the progress line off" sh -c "! grep -q 'MB/s' '$W/quiet.txt'"
  slow &
  "$STEPSCOPE" analyze - <"$W/fifo" >/dev/null 2>"$W/file.txt"
  wait
  t_ok "no progress line when stderr is not a terminal" sh -c "! grep -q 'MB/s' '$W/file.txt'"
else
  t_skip "progress line" "no script(1) to give the command a terminal"
fi

# The chunked reader's threads (workers, the inflater, peers' callbacks) under
# ThreadSanitizer: the unit tests that start threads, from the build make check-tsan makes.
threaded="chunks_by_size_give_one_pass wide_trace_is_read_by_one_thread_long_one_in_chunks peers_give_one_pass gzip_feed_and_chunks_match_inline_inflate gzip_errors_are_the_same_on_every_path"
if t_tsan "chunked reader under ThreadSanitizer" test_read_speed; then
  t_run env STS_TEST_ONLY="$threaded" TSAN_OPTIONS=halt_on_error=1 "$T_TSAN"
  t_ok "the chunked reader's threaded tests, all $(wc -w <<<"$threaded") run and race-free under ThreadSanitizer" \
    test "$T_RC" = 0 -a -n "$(grep -x "$(wc -w <<<"$threaded") passed, 0 failed, 0 skipped" <<<"$T_OUT")"
fi
# Finalize's lanes replayed in parts on threads side by side, under ThreadSanitizer.
if t_tsan "finalize by parts under ThreadSanitizer" test_model; then
  t_run env STS_TEST_ONLY=finalize_by_parts_gives_the_one_thread_table TSAN_OPTIONS=halt_on_error=1 "$T_TSAN"
  t_ok "finalize by parts: the one thread's table, race-free under ThreadSanitizer" \
    test "$T_RC" = 0 -a -n "$(grep -x "1 passed, 0 failed, 0 skipped" <<<"$T_OUT")"
fi
t_done
