# `stepscope bench` and `stepscope demo bench`: reports, boundaries, and every failure
# path with its exit code. JSON is read with python3.
. "$(dirname "$0")/lib.sh"

# json FILE EXPR: prints the Python expression evaluated with `r` = the parsed report.
json() { python3 -c "import json,sys; r=json.load(open(sys.argv[1])); print($2)" "$1"; }

# The build without OpenCL (make check-noocl): bench refuses, saying what to install,
# after its usage checks; nothing in the library or the CLI reaches for OpenCL.
if [ "${STEPSCOPE_OPENCL:-1}" = 0 ]; then
  lib=$(dirname "$STEPSCOPE")/libstepscope.a
  for args in "" "--list-devices" "energy --repeats 3 --json"; do
    t_run "$STEPSCOPE" bench $args
    t_ok "bench ${args:-(no arguments)} without OpenCL: exit 5 and what to install" test "$T_RC" = 5 -a \
      -n "$(grep -F "stepscope bench: error: this command needs OpenCL: this build of stepscope was made without OpenCL (make OPENCL=0, or the OpenCL headers CL/cl.h were missing): install ocl-icd-opencl-dev opencl-headers pocl-opencl-icd" <<<"$T_ERR")" -a -z "$T_OUT"
  done
  t_run "$STEPSCOPE" bench --repeats 0
  t_ok "a usage error is still one (exit 2)" test "$T_RC" = 2
  t_run "$STEPSCOPE" bench --help
  t_ok "bench --help exits 0" test "$T_RC" = 0 -a -n "$(grep structured <<<"$T_OUT")"
  T_OUT=$(ldd "$STEPSCOPE" 2>&1 | grep -i opencl)
  t_ok "the CLI needs no OpenCL library (ldd)" test -z "$T_OUT"
  T_OUT=$(nm -u "$lib" | grep ' cl[A-Z]' | sort -u | head -5)
  t_ok "$lib calls no OpenCL function (nm)" test -f "$lib" -a -z "$T_OUT"
  t_done
  exit
fi

t_run "$STEPSCOPE" bench --list-devices
if [ "$T_RC" != 0 ]; then
  t_skip "bench" "no OpenCL device: $T_ERR"
  exit 0
fi

t_run "$STEPSCOPE" bench --help
t_ok "help exits 0 and names the workloads" test "$T_RC" = 0 -a -n "$(printf '%s' "$T_OUT" | grep structured)"

# The lesson's report, in a fresh process with an empty kernel cache: PoCL keeps
# compiled kernels in POCL_CACHE_DIR, so an empty one makes the first call compile for
# real. (The other runs share the user's cache, to keep this file fast.)
mkdir -p "$T_TMP/pocl-cache"
POCL_CACHE_DIR="$T_TMP/pocl-cache" t_run "$STEPSCOPE" bench --json
printf '%s' "$T_OUT" >"$T_TMP/predict.json"
t_ok "predict exits 0" test "$T_RC" = 0
t_ok "predict contract: shapes and dtype" test "$(json "$T_TMP/predict.json" \
  'r["input_shape"], r["weight_shape"], r["output_shape"], r["dtype"]')" = "[64, 32] [32, 16] [64, 16] float32"
t_ok "seven nonnegative warm samples and their median" test "$(json "$T_TMP/predict.json" \
  'len(r["warm_samples_seconds"]) == 7 and min(r["warm_samples_seconds"]) >= 0 and
   sorted(r["warm_samples_seconds"])[3] == r["warm_median_seconds"]')" = True
t_ok "first call (compiles for real) is slower than the warm median" test "$(json "$T_TMP/predict.json" \
  'r["first_call_seconds"] > r["warm_median_seconds"]')" = True
t_ok "checked max error within the lesson's tolerance" test "$(json "$T_TMP/predict.json" \
  'r["check"]["passed"] and r["max_abs_error"] <= 2e-5 and r["atol"] == 2e-5 and r["rtol"] == 2e-5')" = True
t_ok "boundary, dispatch-only, device samples and environment are reported" test "$(json "$T_TMP/predict.json" \
  '"placed" in r["boundary"] and len(r["dispatch_only_seconds"]) == 7 and "no" in r["dispatch_only_boundary"]
   and len(r["device_samples_seconds"]) == 7 and r["environment"]["os"] != "" and
   r["environment"]["opencl"]["device"] == r["device"] and r["versions"]["stepscope"] != ""')" = True
t_ok "statistics are consistent with the samples" test "$(json "$T_TMP/predict.json" \
  'abs(r["warm_stats"]["min_seconds"] - min(r["warm_samples_seconds"])) < 1e-12 and
   abs(r["warm_stats"]["max_seconds"] - max(r["warm_samples_seconds"])) < 1e-12 and r["warm_stats"]["n"] == 7')" = True

t_run "$STEPSCOPE" bench predict --repeats 3 --warmup 2 --out "$T_TMP/three.json"
t_ok "human table: samples and the first-call ratio" test "$T_RC" = 0 -a \
  -n "$(printf '%s' "$T_OUT" | grep 'first call / warm median')" -a \
  "$(printf '%s\n' "$T_OUT" | grep -cE '^ +[0-9]+ +[0-9.]+ (ns|µs|ms|s) ')" = 3
t_ok "--out writes the report; sample count equals --repeats" test "$(json "$T_TMP/three.json" \
  'len(r["warm_samples_seconds"]), r["warmup"]')" = "3 2"

t_run "$STEPSCOPE" bench energy --repeats 5 --json
printf '%s' "$T_OUT" >"$T_TMP/energy.json"
t_ok "energy: shape (64,) and the lesson's atol" test "$(json "$T_TMP/energy.json" \
  'r["output_shape"], r["atol"], r["check"]["passed"], len(r["warm_samples_seconds"])')" = "[64] 0.002 True 5"

t_run "$STEPSCOPE" bench structured --repeats 3 --json
printf '%s' "$T_OUT" >"$T_TMP/structured.json"
t_ok "structured: both leaves checked" test "$(json "$T_TMP/structured.json" \
  '[l["name"] for l in r["check"]["leaves"]], r["check"]["passed"]')" = "['prediction', 'mean'] True"

t_run "$STEPSCOPE" bench --rows 1 --features 1 --outputs 1 --repeats 2 --json
printf '%s' "$T_OUT" >"$T_TMP/one.json"
t_ok "1x1 @ 1x1 checks" test "$T_RC" = 0 -a "$(json "$T_TMP/one.json" 'r["check"]["passed"]')" = True
t_run "$STEPSCOPE" bench --input-shape 63x33 --weight-shape 33x17 --repeats 2 --json
printf '%s' "$T_OUT" >"$T_TMP/odd.json"
t_ok "63x33 @ 33x17 checks" test "$T_RC" = 0 -a "$(json "$T_TMP/odd.json" \
  'r["output_shape"], r["check"]["passed"]')" = "[63, 17] True"

# Dispatch-only against synchronized on work that keeps the device busy >= 10 ms.
t_run "$STEPSCOPE" bench --rows 512 --features 1024 --outputs 512 --repeats 3 --json
printf '%s' "$T_OUT" >"$T_TMP/big.json"
if [ "$T_RC" = 0 ] && [ "$(json "$T_TMP/big.json" 'r["device_median_seconds"] >= 0.01')" = True ]; then
  t_ok "dispatch-only is far shorter than synchronized on >= 10 ms of device work" test "$(json "$T_TMP/big.json" \
    'r["dispatch_only_median_seconds"] < r["warm_median_seconds"] / 2')" = True
else
  t_skip "dispatch-only against synchronized" "the device finished 512x1024x512 in under 10 ms (rc $T_RC)"
fi

# Bad input: usage errors exit 2, runtime errors exit 1.
t_run "$STEPSCOPE" bench --repeats 0
t_ok "zero repeats is a usage error" test "$T_RC" = 2 -a -n "$(printf '%s' "$T_ERR" | grep 'at least 1 (got 0)')"
t_run "$STEPSCOPE" bench --repeats -4
t_ok "negative repeats is a usage error" test "$T_RC" = 2 -a -n "$(printf '%s' "$T_ERR" | grep 'got -4')"
t_run "$STEPSCOPE" bench --repeats many
t_ok "non-numeric repeats is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" bench --input-shape 64x32 --weight-shape 33x16
t_ok "mismatched shapes are a usage error naming both" test "$T_RC" = 2 -a \
  -n "$(printf '%s' "$T_ERR" | grep 'input_shape \[64,32\] and weight_shape \[33,16\] do not match')"
t_run "$STEPSCOPE" bench --features 0
t_ok "a zero dimension is a usage error" test "$T_RC" = 2
# Tolerances: -1 once silently meant the default; NaN, inf or a negative made the check
# fail or pass every value.
for tol in atol rtol; do
  for v in -1 -0.5 nan inf -inf 1e999 abc ''; do
    t_run "$STEPSCOPE" bench --$tol "$v" --repeats 1
    t_ok "--$tol '$v' is a usage error naming it" test "$T_RC" = 2 -a \
      -n "$(printf '%s' "$T_ERR" | grep -F -- "--$tol expects a finite number >= 0, got '$v'")"
  done
done
t_run "$STEPSCOPE" bench --atol 0 --rtol 0.5 --repeats 1 --json
t_ok "--atol 0 --rtol 0.5 are used as given" test "$T_RC" = 0 -a \
  "$(printf '%s' "$T_OUT" | python3 -c 'import json,sys; r=json.load(sys.stdin); print(r["atol"], r["rtol"], r["check"]["equal_nan"])')" = "0 0.5 False"
# A user must learn from --help that bench times stepscope's own workload, and where
# the harness for their own code is.
t_run "$STEPSCOPE" bench --help
t_ok "bench --help says it times stepscope's own workload" test "$T_RC" = 0 -a \
  -n "$(printf '%s' "$T_OUT" | grep "stepscope's own OpenCL version")"
for ref in docs/bench.md stepscope/bench.h stepscope.jax.bench; do
  t_ok "bench --help points to $ref" test -n "$(printf '%s' "$T_OUT" | grep -F "$ref")"
done
t_ok "the README says so too" grep -q "stepscope's own OpenCL version" README.md
t_run "$STEPSCOPE" bench frobnicate
t_ok "unknown workload is a usage error" test "$T_RC" = 2 -a \
  -n "$(printf '%s' "$T_ERR" | grep "unknown workload 'frobnicate'")"
t_run "$STEPSCOPE" bench --matmul fastest
t_ok "unknown matmul kernel is a usage error" test "$T_RC" = 2
t_run "$STEPSCOPE" bench --device 999
t_ok "unknown device is a runtime error listing the devices" test "$T_RC" = 1 -a \
  -n "$(printf '%s' "$T_ERR" | grep "'999' matches no OpenCL device")"

mkdir -p "$T_TMP/no-icd"
OCL_ICD_VENDORS="$T_TMP/no-icd" t_run "$STEPSCOPE" bench
t_ok "no OpenCL platform: exit 1 naming the packages" test "$T_RC" = 1 -a \
  -n "$(printf '%s' "$T_ERR" | grep 'pocl-opencl-icd ocl-icd-opencl-dev opencl-headers')" -a \
  -n "$(printf '%s' "$T_ERR" | grep 'scripts/deps.sh')"

mkdir -p "$T_TMP/kernels"
printf '__kernel void matmul_block(__global float *a) { a[0] = no_such_symbol_here; }\n' >"$T_TMP/kernels/matmul.cl"
STEPSCOPE_KERNELS="$T_TMP/kernels" t_run "$STEPSCOPE" bench
t_ok "a kernel that fails to build: exit 1 with the compiler's log" test "$T_RC" = 1 -a \
  -n "$(printf '%s' "$T_ERR" | grep 'built-in kernels (lib/device/kernels, overridden from .*OpenCL program build failed')" -a \
  -n "$(printf '%s' "$T_ERR" | grep "$T_TMP/kernels/matmul.cl:1:")" -a \
  -n "$(printf '%s' "$T_ERR" | grep 'no_such_symbol_here')"

t_run "$STEPSCOPE" bench --out /nonexistent-dir/report.json --repeats 1
t_ok "an unwritable --out is a runtime error naming the file" test "$T_RC" = 1 -a -n "$(printf '%s' "$T_ERR" | grep '/nonexistent-dir/report.json: cannot open for writing')"

# The lesson end to end.
t_run "$STEPSCOPE" demo bench --out "$T_TMP/demo"
t_ok "demo bench exits 0 and writes bench.json" test "$T_RC" = 0 -a -f "$T_TMP/demo/bench.json"
t_ok "demo report: main predict and its variants" test "$(json "$T_TMP/demo/bench.json" \
  'len(r["warm_samples_seconds"]), sorted(r["variants"]), r["variants"]["predict_rows96"]["input_shape"],
   len(r["variants"]["energy"]["warm_samples_seconds"]), r["variants"]["energy"]["output_shape"],
   len(r["variants"]["structured"]["check"]["leaves"]), r["variants"]["repaired"]["boundary"],
   len(r["variants"]["repaired"]["warm_samples_seconds"])')" = \
  "7 ['energy', 'predict_rows96', 'repaired', 'structured'] [96, 32] 5 [64] 2 placed inputs; warm call plus output wait 5"
t_ok "demo prints handle-only against synchronized" test -n "$(printf '%s' "$T_OUT" | grep 'handle-only seconds')"
t_done
