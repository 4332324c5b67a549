# `make install` lays out the library, headers, pkg-config file and man page, and a
# program built only from what was installed records a trace the CLI reads back.
. "$(dirname "$0")/lib.sh"

if [ -n "${STEPSCOPE_SANITIZED:-}" ]; then
  t_skip "install" "the sanitizer build's library needs sanitizer flags to link"
  exit 0
fi
if ! command -v pkg-config >/dev/null; then
  t_skip "install" "pkg-config is not installed"
  exit 0
fi
build=${STEPSCOPE_BUILD:-build}
prefix="$T_TMP/prefix"
t_run make -s install BUILD="$build" PREFIX="$prefix"
t_ok "make install exits 0" test "$T_RC" = 0
for f in bin/stepscope lib/libstepscope.a include/stepscope.h include/stepscope/trace.h \
         lib/pkgconfig/stepscope.pc share/man/man1/stepscope.1; do
  t_ok "installs $f" test -f "$prefix/$f"
done

cat >"$T_TMP/ex.c" <<'C'
#include <stepscope.h>
#include <stdio.h>
#include <string.h>
int main(int argc, char **argv)
{
    if (argc < 2 || strcmp(sts_version(), STS_VERSION_STRING_EXPECTED) != 0) return 3;
    sts_error err = STS_ERROR_INIT;
    if (sts_trace_start(argv[1], NULL, &err) != STS_OK) return 1;
    for (int i = 0; i < 3; i++) {
        STS_STEP("train_step", i);
        STS_SCOPE("work");
    }
    sts_trace_stats st;
    if (sts_trace_stop(&st, &err) != STS_OK) return 2;
    puts(st.run_path);
    return 0;
}
C
ver=$("$prefix/bin/stepscope" version | awk '{print $2}')
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
t_run cc -std=c11 -DSTS_VERSION_STRING_EXPECTED="\"$ver\"" $(pkg-config --cflags stepscope) "$T_TMP/ex.c" \
  $(pkg-config --libs --static stepscope) -o "$T_TMP/ex"
t_ok "a program builds against the installed headers and pkg-config" test "$T_RC" = 0
t_run "$T_TMP/ex" "$T_TMP/prof"
t_ok "it records a trace and reports the run directory" test "$T_RC" = 0 -a -d "$T_OUT"
t_run "$prefix/bin/stepscope" steps --json "$T_TMP/prof"
t_ok "the installed CLI finds its 3 train_step steps" \
  test "$T_RC" = 0 -a "$(printf '%s' "$T_OUT" | grep -o '"name": *"train_step"' | wc -l)" = 3
t_done
