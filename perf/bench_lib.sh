# Shared by the perf/run_*.sh benchmarks that measure commands on a generated
# Kineto-shaped trace; sourced, after `cd` to the repository root and with BUILD and
# out (perf/out) set.

# bench_bytes SIZE: "100M", "1G", "4K" or a plain number as bytes.
bench_bytes() {
  python3 -c "import sys; s=sys.argv[1]; m={'K':1e3,'M':1e6,'G':1e9}.get(s[-1:],1); print(int(float(s.rstrip('KMG'))*m))" "$1"
}

# bench_kineto_trace WHO BYTES: the path of $out/devview_<MB>M.json, made by
# perf/gen_trace.c (seed 3) unless a copy from the same generator is there already
# (its stamp holds the generator's hash). WHO names the caller in messages.
bench_kineto_trace() {
  local who=$1 bytes=$2
  local trace="$out/devview_$((bytes / 1000000))M.json"
  local hash
  hash=$(sha256sum perf/gen_trace.c | cut -c1-16)
  if [ "$(cat "$trace.stamp" 2>/dev/null)" != "$hash" ] || [ ! -f "$trace" ]; then
    rm -f "$trace" "$trace.stamp"
    echo "generating $trace ($((bytes / 1000000)) MB, Kineto shape)" >&2
    "$BUILD/perf/gen_trace" --seed 3 "$bytes" "$trace" >/dev/null || { echo "$who: generating failed" >&2; return 1; }
    echo "$hash" >"$trace.stamp"
  fi
  echo "$trace"
}

# bench_cpu WHO STATFILE CMD...: the CPU seconds (user + system) of one run of CMD, its
# output thrown away (perf/runstat).
bench_cpu() {
  local who=$1 stat=$2
  shift 2
  "$BUILD/perf/runstat" "$stat" "$@" >/dev/null 2>&1 || { echo "$who: $* failed" >&2; return 1; }
  awk '{printf "%.3f\n", $2 + $3}' "$stat"
}
