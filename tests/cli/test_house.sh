# House rules the build promises: plain `make` builds the CLI and the library, every
# external symbol of the library carries the prefix, no sanitizer hook ships, and no two
# sources share a file name.
. "$(dirname "$0")/lib.sh"
root=$(cd "$(dirname "$0")/../.." && pwd)
build=${STEPSCOPE_BUILD:-$root/build}
# make test's own make exports OPENCL (probed once there); each make below probes for
# itself, as a user's plain make does, or the machine without headers is never probed.
unset OPENCL

# ---- symbols -------------------------------------------------------------------------
symbols() {
  lib=$build/libstepscope.a
  if [ ! -f "$lib" ]; then
    t_ok "$lib is built" false
  else
    syms=$(nm -g --defined-only "$lib" | awk 'NF == 3 { print $3 }' | sort -u)
    n=$(printf '%s\n' "$syms" | grep -c .)
    T_OUT=$(printf '%s\n' "$syms" | grep -v '^sts_\|^STS_' | head -20)
    if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
      # Sanitizer builds add the compiler's own module constructors and instrumentation.
      T_OUT=$(printf '%s\n' "$T_OUT" | grep -v '^__\(asan\|ubsan\|sanitizer\|odr_asan\)\|^___asan\|^asan\.module' | head -20)
    fi
    t_ok "every external symbol of libstepscope.a starts with sts_ or STS_ ($n symbols)" test -z "$T_OUT"
    T_OUT=$(printf '%s\n' "$syms" | grep '^__lsan\|^__asan_default\|^__ubsan_default\|^__tsan_default')
    t_ok "no sanitizer hook in the shipped library" test -z "$T_OUT"
  fi
}

# The sanitizer tier checks only what its own build makes (the symbols): the rest
# tests the Makefile and the layer script, which no sanitizer changes, and takes a
# minute of make test.
if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
  symbols
  t_done
  exit
fi

# ---- plain make -------------------------------------------------------------------
t_run make -C "$root" -pn BUILD="$T_TMP/b"
goal=$(printf '%s\n' "$T_OUT" | sed -n 's/^\.DEFAULT_GOAL := //p' | tail -n 1)
T_OUT="default goal: $goal"
t_ok "plain make's default goal is 'all'" test "$goal" = all
t_run make -C "$root" -n BUILD="$T_TMP/b"
t_ok "plain make links the CLI" grep -q -- "-o $T_TMP/b/stepscope" <<<"$T_OUT"
t_ok "plain make archives the library" grep -q "$T_TMP/b/libstepscope.a" <<<"$T_OUT"

# ---- OpenCL optional ---------------------------------------------------------------
# A machine without the OpenCL headers: a CL/cl.h that stops any compile including it
# comes first on the include path.
mkdir -p "$T_TMP/nocl/CL"
printf '#error "no OpenCL headers on this machine (test_house.sh)"\n' >"$T_TMP/nocl/CL/cl.h"
nocc="cc -I$T_TMP/nocl"
t_run make -C "$root" -n BUILD="$T_TMP/nh" CC="$nocc"
dry=$T_OUT
t_ok "plain make without the OpenCL headers builds, saying it has no OpenCL and what to install" \
  test "$T_RC" = 0 -a -n "$(grep -F 'the OpenCL headers (CL/cl.h) are missing, so this build has no OpenCL: bench, demo and the recorder' <<<"$dry" | grep -F 'installs ocl-icd-opencl-dev opencl-headers pocl-opencl-icd')"
T_OUT=$(grep -o 'lib/device/[a-z_]*\.c' <<<"$dry" | sort -u | tr '\n' ' ')
t_ok "... compiling only lib/device's OpenCL-free files ($T_OUT)" \
  test "$T_OUT" = "lib/device/device_none.c lib/device/dtype.c "
T_OUT=$(grep -e "-o $T_TMP/nh/stepscope" <<<"$dry")
t_ok "... and linking the CLI without -lOpenCL" test -n "$T_OUT" -a -z "$(grep -e '-lOpenCL' <<<"$T_OUT")"
t_run make -C "$root" -n BUILD="$T_TMP/nh0" OPENCL=0
t_ok "make OPENCL=0 does the same where the headers are, without the note" test "$T_RC" = 0 -a \
  -z "$(grep -F 'headers (CL/cl.h) are missing' <<<"$T_OUT")" -a -z "$(grep -e '-lOpenCL' <<<"$T_OUT")" -a \
  "$(grep -o 'lib/device/[a-z_]*\.c' <<<"$T_OUT" | sort -u | tr '\n' ' ')" = "lib/device/device_none.c lib/device/dtype.c "
t_run make -C "$root" -n BUILD="$T_TMP/nh1"
t_ok "where the headers are, plain make links -lOpenCL" test -n "$(grep -e "-o $T_TMP/nh1/stepscope" <<<"$T_OUT" | grep -e '-lOpenCL')"
# Those two files really compile there (check-layers keeps <CL/...> in device_impl.h).
t_run env -C "$root" make -s BUILD="$T_TMP/nh" CC="$nocc" "$T_TMP/nh/obj/lib/device/device_none.o" "$T_TMP/nh/obj/lib/device/dtype.o"
t_ok "lib/device's OpenCL-free files compile without the headers" test "$T_RC" = 0 -a -f "$T_TMP/nh/obj/lib/device/device_none.o"

# ---- a change of flags remakes what they built ---------------------------------------
# (scripts/deps.sh installing ISA-L after a first build turns on -DSTS_HAVE_ISAL: the
# objects built before must not go on without it)
obj=$T_TMP/f/obj/lib/base/clock.o
# Run from the repository itself, as a user does (with -C, make wrote the flags
# differently and hid a stamp that changed on every run).
in_root() { env -C "$root" "$@"; }
t_run in_root make -s BUILD="$T_TMP/f" "$obj"
t_ok "one object builds in a new build folder" test "$T_RC" = 0 -a -f "$obj"
t_run in_root make -q BUILD="$T_TMP/f" "$obj"
t_ok "with the same flags it is up to date" test "$T_RC" = 0
t_run in_root make -q BUILD="$T_TMP/f" "$obj"
t_ok "and still so the next time (the flags file is not rewritten)" test "$T_RC" = 0
t_run in_root make -q BUILD="$T_TMP/f" OPT="-O2 -g -DSTS_FLAGS_CHANGED" "$obj"
t_ok "with other flags it is out of date" test "$T_RC" = 1
t_ok "the build folder keeps the flags of the last make" grep -q -- "-DSTS_FLAGS_CHANGED" "$T_TMP/f/flags"
t_run in_root make -q BUILD="$T_TMP/f" "$obj"
t_ok "back to the first flags, it is out of date again" test "$T_RC" = 1
t_run in_root make -s BUILD="$T_TMP/f" "$obj"
t_run in_root make -q BUILD="$T_TMP/f" "$obj"
t_ok "made again, it is up to date" test "$T_RC" = 0
if [ -f "$build/flags" ]; then
  # The suite's own build (made by make test before this runs) is up to date.
  t_run in_root make -q BUILD="$build" all
  t_ok "the suite's build is up to date for plain make" test "$T_RC" = 0
fi

symbols

# ---- file names ----------------------------------------------------------------------
# Every C and Python source has a name of its own across the tree (zstd's rule: a name
# says which file; the test tiers' shell runners may share theirs).
T_OUT=$(cd "$root" && find lib include programs python/ext python/src python/setup.py tests perf fuzz scripts examples \
  \( -name '*.[ch]' -o -name '*.py' \) -not -path '*/corpus/*' 2>/dev/null | xargs -n1 basename | sort | uniq -d)
t_ok "no two C or Python sources share a file name${T_OUT:+ (shared: $(echo $T_OUT))}" test -z "$T_OUT"

# ---- make check-layers catches what it promises to -------------------------------------
# A copy of the sources with one planted edge each time; the include check needs no build.
plant() {
  rm -rf "$T_TMP/house"
  mkdir -p "$T_TMP/house"
  cp -r "$root/scripts" "$root/docs" "$root/lib" "$root/include" "$root/programs" "$T_TMP/house/"
}
plant
t_run python3 "$T_TMP/house/scripts/check_layers.py" --no-symbols
t_ok "check-layers passes on the tree as it is" test "$T_RC" = 0
plant
printf '#include "device/device_impl.h"\n' >>"$T_TMP/house/lib/read/xplane.c"
t_run python3 "$T_TMP/house/scripts/check_layers.py" --no-symbols
t_ok "a reader including the device layer fails check-layers" test "$T_RC" = 1
t_ok "the failure names the file and the edge" grep -q 'lib/read/xplane.c: includes "device/device_impl.h" (read -> device)' <<<"$T_OUT"
plant
printf '#include "stepscope.h"\n' >>"$T_TMP/house/lib/base/mem.c"
t_run python3 "$T_TMP/house/scripts/check_layers.py" --no-symbols
t_ok "base including the umbrella header fails check-layers" grep -q 'lib/base/mem.c: includes the umbrella header' <<<"$T_OUT"
plant
printf '#include "model/timeline_builder.h"\n' >>"$T_TMP/house/programs/cmd_slices.c"
t_run python3 "$T_TMP/house/scripts/check_layers.py" --no-symbols
t_ok "the CLI including an internal header fails check-layers" grep -q 'programs/cmd_slices.c: includes "model/timeline_builder.h"' <<<"$T_OUT"
# Uses are direct: a table whose analyze row grants base only through model (analyze ->
# model -> base) fails, since lib/analyze includes base's headers itself.
plant
sed -i 's/^\(| `analyze` |.*| \)model base |$/\1model |/' "$T_TMP/house/docs/ARCHITECTURE.md"
t_run python3 "$T_TMP/house/scripts/check_layers.py" --no-symbols
t_ok "a use granted only transitively fails check-layers, naming a file and the edge" test "$T_RC" = 1 -a \
  -n "$(grep -E '^check-layers: lib/analyze/[a-z_]+\.[ch]: includes "base/[a-z_]+\.h" \(analyze -> base\), not a layer analyze may use' <<<"$T_OUT")"
plant
printf '#include "analyze/steps_impl.h"\n' >>"$T_TMP/house/lib/report/page.c"
t_run python3 "$T_TMP/house/scripts/check_layers.py" --no-symbols
t_ok "a module including another's *_impl.h fails check-layers, though it may use that module" test "$T_RC" = 1 -a \
  -n "$(grep -F 'lib/report/page.c: includes "analyze/steps_impl.h", analyze'"'"'s private header; only lib/analyze/ may' <<<"$T_OUT")" -a \
  -z "$(grep -F 'not a layer' <<<"$T_OUT")"
plant
printf '#include <CL/cl.h>\n' >>"$T_TMP/house/lib/read/xplane.c"
t_run python3 "$T_TMP/house/scripts/check_layers.py" --no-symbols
t_ok "OpenCL's headers outside lib/device/device_impl.h fail check-layers" \
  grep -q 'lib/read/xplane.c: includes the OpenCL headers; only lib/device/device_impl.h may' <<<"$T_OUT"
# A permission the code does not use (with the symbols: includes alone miss a use
# through another module's header): this build's objects, for the copy of its sources.
objs=$(ls "$build"/obj/lib/*/*.o "$build"/gen/*.o 2>/dev/null)
if [ -z "$objs" ]; then
  t_skip "check-layers on unused permissions" "$build has no library objects"
else
  plant
  t_run python3 "$T_TMP/house/scripts/check_layers.py" --build "$build" --objects "$objs"
  t_ok "check-layers with symbols passes on the tree as it is" test "$T_RC" = 0
  sed -i 's/^\(| `diff` |.*| analyze\) \([a-z ]*\)base |$/\1 device \2base |/' "$T_TMP/house/docs/ARCHITECTURE.md"
  t_ok "the planted permission is in the copy's table" grep -q '^| `diff` |.*| analyze device [a-z ]*base |$' \
    "$T_TMP/house/docs/ARCHITECTURE.md"
  t_run python3 "$T_TMP/house/scripts/check_layers.py" --build "$build" --objects "$objs"
  t_ok "a permission the code does not use fails check-layers, naming the row" test "$T_RC" = 1 -a \
    -n "$(grep -F "module 'diff' may use 'device', but nothing in lib/diff/ or its public headers includes device's headers or uses its symbols" <<<"$T_OUT")"
fi
t_done
