#!/usr/bin/env bash
# Device-layer benchmarks (issue 3), each side by side with its peer in one run:
#   1. the bench harness's own cost per sample against an empty workload (target <= 100 ns);
#   2. matmul 1024x1024x1024 float32: stepscope on the OpenCL device (PoCL here) against
#      OpenBLAS cblas_sgemm, GFLOP/s for both and the ratio (target: within 3x);
#   3. lesson 1's tanh(x @ w) (64x32 @ 32x16, and 96 rows) against JAX on XLA:CPU: first-call
#      and warm-median ratios, and where stepscope's warm call goes (dispatch, launch
#      latency, device, completion notice) from device timestamps. Each side runs in a
#      fresh process; stepscope's with an empty PoCL kernel cache so its first call
#      compiles for real, as JAX's does. JAX comes from the interop venv (.venv/, made
#      by scripts/interop/setup.sh); without it that half is skipped.
# Results: perf/out/device_*.json and the lines printed here.
#
#   BENCH_MATMUL_N=N   matmul size (default 1024)
set -u
cd "$(dirname "$0")/.."
BUILD=${BUILD:-build}
bin=$BUILD/perf/device_bench
out=perf/out
mkdir -p "$out"
[ -x "$bin" ] || { echo "run_device: $bin is missing (make BUILD=$BUILD $bin)"; exit 1; }
rc=0

if ! "$BUILD/stepscope" bench --list-devices >/dev/null 2>&1; then
  echo "run_device: no OpenCL device (scripts/deps.sh installs PoCL): skipped"
  exit 0
fi

echo "-- harness overhead"
"$bin" overhead || rc=1

echo "-- matmul: stepscope (OpenCL) against OpenBLAS"
# The environment may pin OpenBLAS to an old core type for safety elsewhere; this
# comparison lets OpenBLAS pick its own kernels, and prints the core it chose.
env -u OPENBLAS_CORETYPE -u OPENBLAS_L2_SIZE "$bin" matmul --n "${BENCH_MATMUL_N:-1024}" | tee "$out/device_matmul.txt" \
  || rc=1

echo "-- lesson 1: stepscope against JAX on XLA:CPU"
for rows in 64 96; do
  cache=$(mktemp -d)
  POCL_CACHE_DIR=$cache "$bin" lesson --rows "$rows" >"$out/device_lesson_stepscope_$rows.json" || rc=1
  rm -rf "$cache"
done
py=.venv/bin/python
have_jax=0
if [ -x "$py" ] && "$py" -c 'import jax' >/dev/null 2>&1; then
  have_jax=1
  for rows in 64 96; do
    JAX_PLATFORMS=cpu "$py" perf/jax_lesson1.py --rows "$rows" >"$out/device_lesson_jax_$rows.json" 2>/dev/null || rc=1
  done
else
  echo "JAX comparison skipped: $py with jax is missing (run scripts/interop/setup.sh to create .venv)"
fi

python3 - "$out" "$have_jax" <<'EOF'
import json, sys
out, have_jax = sys.argv[1], sys.argv[2] == "1"
def load(name):
    with open(f"{out}/{name}") as f:
        return json.loads(f.read())
us = lambda s: f"{s * 1e6:9.1f} us"
ms = lambda s: f"{s * 1e3:9.1f} ms"
for rows in (64, 96):
    s = load(f"device_lesson_stepscope_{rows}.json")
    print(f"x [{rows},32] @ w [32,16], tanh, float32")
    print(f"  stepscope first call {ms(s['first_call_seconds'])}   warm median {us(s['warm_median_seconds'])}")
    if have_jax:
        j = load(f"device_lesson_jax_{rows}.json")
        print(f"  JAX       first call {ms(j['first_call_seconds'])}   warm median {us(j['warm_median_seconds'])}"
              f"   (jax {j['jax']}, {j['backend']})")
        print(f"  stepscope / JAX: first call {s['first_call_seconds'] / j['first_call_seconds']:.2f}x, "
              f"warm median {s['warm_median_seconds'] / j['warm_median_seconds']:.2f}x")
    print(f"  stepscope warm call: dispatch {us(s['dispatch_median_seconds'])} (the call returns), "
          f"then wait {us(s['wait_median_seconds'])}")
    print(f"    from device timestamps: launch latency {us(s['launch_latency_median_seconds'])}, "
          f"device busy {us(s['device_span_median_seconds'])}, completion notice "
          f"{us(s['completion_notice_median_seconds'])} (clock pairing +-{s['clock_pair_uncertainty_seconds'] * 1e9:.0f} ns)")
EOF
[ $? = 0 ] || rc=1
exit $rc
