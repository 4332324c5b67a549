# stepscope build.  `make` builds build/stepscope and build/libstepscope.a.
#
# Sources are found by layout, so adding a file needs no edit here:
#   lib/<module>/*.c                  -> libstepscope.a
#   programs/*.c, programs/demo/*.c   -> the stepscope CLI
#   tests/unit/test_*.c               -> one test binary each
#   perf/*.c                          -> one performance-measurement binary each (`make bench`)
#   fuzz/fuzz_*.c                     -> one libFuzzer target each, plus a corpus replayer
# A module that needs generated sources or extra rules adds lib/<module>/module.mk,
# which may append to GEN_SRC (generated .c files, built into the library).

# The first rule is the default goal; the included .mk files come after it.
all:

VERSION := 0.1.0
PREFIX ?= /usr/local
BUILD ?= build
CC ?= cc

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wvla -Wformat=2 -Wundef -Wwrite-strings -Wold-style-definition \
        -Wimplicit-fallthrough -Wno-unused-parameter
OPT ?= -O2 -g
# The library's invariants (STS_ASSERT, lib/base/invariant.h): checked in the sanitizer,
# fuzz and debug builds, compiled out in release (ASSERTS=1 turns them on anywhere).
ASSERTS ?= 0
# SAN=1: AddressSanitizer + UndefinedBehaviorSanitizer; SAN=thread: ThreadSanitizer;
# DEBUG=1: unoptimized.
SAN_FLAGS :=
ifeq ($(SAN),1)
  SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
  OPT := -O1 -g
  ASSERTS := 1
endif
ifeq ($(SAN),thread)
  SAN_FLAGS := -fsanitize=thread
  OPT := -O1 -g
  ASSERTS := 1
endif
ifeq ($(DEBUG),1)
  OPT := -O0 -g
  ASSERTS := 1
endif
CPPFLAGS += -Iinclude -Ilib -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -DSTS_VERSION_STRING='"$(VERSION)"'
ifeq ($(ASSERTS),1)
  CPPFLAGS += -DSTS_ASSERTS
endif
CFLAGS += -std=c11 $(OPT) $(WARN) $(SAN_FLAGS) -MMD -MP
LDFLAGS += $(SAN_FLAGS)

# OpenCL is optional: only lib/device needs it (`bench`, `demo`'s lessons and the
# recorder's device lanes). OPENCL=0 builds lib/device/device_none.c in its place
# (lib/device/module.mk), which fails each device call saying what to install, and
# links no -lOpenCL; every trace, ledger, diff, report and hosts command is the same.
# Unset, OPENCL is 1 where CL/cl.h is found. Exported, so sub-makes agree and probe once.
ifndef OPENCL
  OPENCL := $(if $(shell printf '\043include <CL/cl.h>\n' | $(CC) $(CPPFLAGS) -E -x c - >/dev/null 2>&1 && echo ok),1,0)
  ifeq ($(OPENCL),0)
    $(info stepscope: the OpenCL headers (CL/cl.h) are missing, so this build has no OpenCL: bench, demo and the recorder's device lanes will say so. `make deps` installs ocl-icd-opencl-dev opencl-headers pocl-opencl-icd (as root; otherwise it prints the apt-get command))
  endif
endif
export OPENCL
ifneq ($(OPENCL),0)
  LDLIBS += -lOpenCL
endif
LDLIBS += -lz -lm -lpthread

GEN_SRC :=
PERF_LDLIBS :=
-include $(wildcard lib/*/module.mk)
-include perf/perf.mk

V ?= 0
ifeq ($(V),0)
  Q := @
endif

LIB_SRC_ALL := $(wildcard lib/*/*.c)
# The library without OpenCL: lib/device only as DEVICE_NOCL_SRC (lib/device/module.mk).
NOCL_SRC := $(filter-out $(filter-out $(DEVICE_NOCL_SRC),$(wildcard lib/device/*.c)),$(LIB_SRC_ALL))
ifeq ($(OPENCL),0)
  LIB_SRC := $(NOCL_SRC)
else
  LIB_SRC := $(filter-out $(DEVICE_NONE_SRC),$(LIB_SRC_ALL))
endif
PROG_SRC := $(wildcard programs/*.c programs/*/*.c)
TEST_SRC_ALL := $(wildcard tests/unit/test_*.c)
TEST_SRC := $(TEST_SRC_ALL)
# The unit tests of lib/device's OpenCL internals compile only with the OpenCL headers.
ifeq ($(OPENCL),0)
  TEST_SRC := $(filter-out tests/unit/test_device.c tests/unit/test_device_fused.c,$(TEST_SRC))
endif
PERF_SRC := $(wildcard perf/*.c)
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)
# Every C file and header clang-format keeps in shape (`make format`, `make format-check`).
FORMAT_SRC := $(LIB_SRC_ALL) $(PROG_SRC) $(TEST_SRC_ALL) $(PERF_SRC) $(FUZZ_SRC) fuzz/replay.c \
              $(wildcard include/*.h include/*/*.h lib/*/*.h programs/*.h programs/*/*.h \
                         tests/unit/*.h tests/unit/trace_*.c tests/cli/*.c perf/*.h python/ext/*.[ch])

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(GEN_SRC:%.c=%.o)
PROG_OBJ := $(PROG_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
PERF_BIN := $(PERF_SRC:perf/%.c=$(BUILD)/perf/%)
FUZZ_REPLAY := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%_replay)

LIB := $(BUILD)/libstepscope.a
CLI := $(BUILD)/stepscope
FLAGS := $(BUILD)/flags

# The OpenCL-free flavour of this build, which `make test` checks beside it: the same
# objects but lib/device's (NOCL_SRC), linked without -lOpenCL into $(NOCL): the
# library, the CLI, the unit tests of the modules that need no device and the
# generators the CLI tests run. `make OPENCL=0` compiles the same sources with the
# same flags, so this costs one object and a few links instead of a fifth build.
NOCL := $(BUILD)/noocl
NOCL_OBJ := $(NOCL_SRC:%.c=$(BUILD)/obj/%.o)
NOCL_LIB := $(NOCL)/libstepscope.a
NOCL_CLI := $(NOCL)/stepscope
NOCL_TESTS := test_ledger test_logparse test_diff test_report test_hosts test_trace test_device_none
-include programs/programs.mk

# Objects and programs are remade when the flags they were built with change: a
# library installed since the last build (ISA-L, MPI: scripts/deps.sh) turns on its -D,
# and a stale object would go on silently without it. The flags are kept in
# $(BUILD)/flags, rewritten (here, as the Makefile is read) only when they differ, so
# that its time stamp moves only then.
# (stripped: the text as given ends in a newline, which the file keeps and reading drops)
flags_differ = $(subst $(1),,$(2))$(subst $(2),,$(1))
keep_flags = $(if $(call flags_differ,$(strip $(file <$(1))),$(strip $(2))),$(shell mkdir -p $(dir $(1)))$(file >$(1),$(strip $(2))))
$(call keep_flags,$(FLAGS),$(CC) $(CPPFLAGS) $(CFLAGS) $(MPI_CFLAGS) | $(LDFLAGS) $(LDLIBS) $(MPI_LIBS))
$(FLAGS): ;

.SECONDARY:
.PHONY: all lib test check check-asan check-tsan check-layers format format-check unit demo bench \
        install uninstall clean deps fuzz fuzz-build fuzz-short fuzz-long python asan-unit noocl-unit check-noocl
all: $(CLI) $(LIB)
lib: $(LIB)

$(BUILD)/obj/programs/%.o: CPPFLAGS += -Iprograms

$(BUILD)/obj/%.o: %.c $(FLAGS)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c $(FLAGS)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)ar rcs $@ $^

$(CLI): $(PROG_OBJ) $(LIB) $(FLAGS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(PROG_OBJ) $(LIB) $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(BUILD)/perf/%: $(BUILD)/obj/perf/%.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $< $(LIB) $(LDLIBS) $(PERF_LDLIBS) -o $@

$(BUILD)/fuzz/%_replay: $(BUILD)/obj/fuzz/%.o $(BUILD)/obj/fuzz/replay.o $(LIB)
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

$(NOCL_LIB): $(NOCL_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)ar rcs $@ $^

$(NOCL_CLI): $(PROG_OBJ) $(NOCL_LIB) $(FLAGS)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(PROG_OBJ) $(NOCL_LIB) $(filter-out -lOpenCL,$(LDLIBS)) -o $@

define nocl_link
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $< $(NOCL_LIB) $(filter-out -lOpenCL,$(LDLIBS)) -o $@
endef
$(NOCL)/tests/%: $(BUILD)/obj/tests/unit/%.o $(NOCL_LIB)
	$(nocl_link)
$(NOCL)/perf/%: $(BUILD)/obj/perf/%.o $(NOCL_LIB)
	$(nocl_link)

# Everything the test runner needs, for one build flavour.
unit: $(CLI) $(LIB) $(TEST_BIN) $(FUZZ_REPLAY) $(BUILD)/perf/gen_hosts $(BUILD)/perf/gen_trace $(BUILD)/perf/runstat \
      $(BUILD)/perf/zinflate
noocl-unit: $(NOCL_CLI) $(NOCL_TESTS:%=$(NOCL)/tests/%) $(NOCL)/perf/gen_hosts $(NOCL)/perf/gen_trace $(NOCL)/perf/runstat

# `make test`: install what is missing, check the house rules, then the suite in a normal
# build and again under AddressSanitizer + UndefinedBehaviorSanitizer, then each fuzz
# target for a short fixed time.
# The builds run side by side first, JOBS at a time (default: the cores), then each tier
# runs its items side by side (tests/run.sh, STS_TEST_JOBS at a time).
JOBS ?= $(shell nproc 2>/dev/null || echo 2)
test: deps
	$(MAKE) -j$(JOBS) check-layers
	$(MAKE) format-check
	@scripts/timed.sh builds $(MAKE) -j$(JOBS) unit noocl-unit check-tsan asan-unit fuzz-build
	@scripts/timed.sh check $(MAKE) check
	@scripts/timed.sh check-asan $(MAKE) check-asan
	@scripts/timed.sh fuzz-short $(MAKE) fuzz-short

asan-unit:
	$(MAKE) BUILD=$(BUILD)/asan SAN=1 unit

# The plain tier runs the OpenCL-free flavour ($(NOCL), above; not in a build that is
# itself without OpenCL) beside it: the suites of what that flavour keeps, and bench,
# demo and the recorder's device lanes saying that they need OpenCL. Its items are
# cheap beside the plain ones (about 20 s more on 2 cores: docs/ARCHITECTURE.md);
# check-noocl runs them alone.
# The host-set and ledger suites (a minute of CPU together) run in the plain tier only: in
# this flavour their code is the same objects, and its test_hosts and test_ledger units run.
NOCL_CHECKS := $(NOCL_TESTS) test_analyze.sh test_steps.sh test_diff.sh test_report.sh \
               test_bench.sh test_demo.sh test_trace.sh
NOCL_RUN := STS_TEST_NOOCL=$(NOCL) STS_TEST_NOOCL_ITEMS="$(NOCL_CHECKS)"
check: unit check-tsan $(if $(filter 0,$(OPENCL)),,noocl-unit)
	STEPSCOPE_OPENCL=$(OPENCL) BUILD=$(BUILD) $(if $(filter 0,$(OPENCL)),,$(NOCL_RUN)) tests/run.sh

check-noocl: noocl-unit
	BUILD=$(BUILD) $(NOCL_RUN) STS_TEST_ITEMS="$(NOCL_CHECKS:%=noocl/%)" tests/run.sh

# The recorder's and the host reader's threads under ThreadSanitizer: the library built again with SAN=thread
# (from the same source lists), tests/unit/trace_tsan.c, test_hosts.c, test_read_speed.c, test_analyze_props.c
# and test_model.c linked against it.
TSAN_OK := $(shell printf 'int main(void){return 0;}' | $(CC) -fsanitize=thread -x c - -o /dev/null 2>/dev/null && echo 1)
check-tsan:
ifeq ($(TSAN_OK),1)
	$(Q)$(MAKE) --no-print-directory BUILD=$(BUILD)/tsan SAN=thread $(BUILD)/tsan/tests/trace_tsan \
	  $(BUILD)/tsan/tests/test_hosts $(BUILD)/tsan/tests/test_read_speed $(BUILD)/tsan/tests/test_analyze_props \
	  $(BUILD)/tsan/tests/test_model
else
	@echo "check-tsan: $(CC) cannot build -fsanitize=thread programs; the TSan test will be skipped"
endif

# LeakSanitizer: PoCL and its LLVM keep compiler state until exit; not our leaks.
check-asan: asan-unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  LSAN_OPTIONS=suppressions=$(CURDIR)/tests/lsan.supp:print_suppressions=0 \
	  STEPSCOPE_SANITIZED=1 STEPSCOPE_OPENCL=$(OPENCL) BUILD=$(BUILD)/asan tests/run.sh

# Layers (docs/ARCHITECTURE.md): includes and undefined symbols point down only.
check-layers: $(LIB_OBJ) $(NOCL_OBJ)
	$(Q)python3 scripts/check_layers.py --build $(BUILD) --objects "$(sort $(LIB_OBJ) $(NOCL_OBJ))"

format:
	clang-format -i $(FORMAT_SRC)

format-check:
	$(Q)clang-format --dry-run -Werror $(FORMAT_SRC) && echo "format-check: $(words $(FORMAT_SRC)) files clean"

deps:
	@scripts/deps.sh

demo: deps all
	$(CLI) demo

# The Python package (python/): `pip install ./python` into build/python/site with the
# interop environment's Python (scripts/python_site.sh); its tests are tests/python.
python: all
	@scripts/python_site.sh && echo "make python: ready; PYTHONPATH=build/python/site .venv/bin/python -c 'import stepscope'"

# The project's own performance measurements (perf/), with ratios against their peers.
bench: all $(PERF_BIN)
	@scripts/deps.sh bench
	BUILD=$(BUILD) perf/run.sh

# libFuzzer builds (clang): the library is compiled once more with the fuzzer's
# coverage and ASan + UBSan into $(BUILD)/fuzzer, and each fuzz/fuzz_*.c is linked
# against it. `make fuzz` builds them; `make fuzz-short` (run by `make test`) runs each
# for FUZZ_SHORT_SECONDS, one per core at a time, where clang can link a fuzzer, and says why it skips where it
# cannot; `make fuzz-long` runs each for FUZZ_SECONDS (an hour). scripts/fuzz_run.sh
# prints the executions and fails on any crash, leak or out-of-memory.
FUZZ_CC ?= clang
FUZZ_SECONDS ?= 3600
FUZZ_SHORT_SECONDS ?= 12
FUZZ_DIR := $(BUILD)/fuzzer
FUZZ_SAN := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
FUZZ_CFLAGS := -std=c11 -g -O1 $(WARN) $(FUZZ_SAN) -fsanitize=fuzzer-no-link -DSTS_ASSERTS -MMD -MP
FUZZ_LIB := $(FUZZ_DIR)/libstepscope-fuzz.a
FUZZ_LIB_OBJ := $(LIB_SRC:%.c=$(FUZZ_DIR)/obj/%.o) $(GEN_SRC:%.c=$(FUZZ_DIR)/obj/%.o)
FUZZ_BIN := $(FUZZ_SRC:fuzz/%.c=$(FUZZ_DIR)/%)
FUZZ_OK = $(shell printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n){return 0;}' | \
            $(FUZZ_CC) -fsanitize=fuzzer -x c - -o /dev/null 2>/dev/null && echo 1)

$(call keep_flags,$(FUZZ_DIR)/flags,$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS))
$(FUZZ_DIR)/flags: ;

$(FUZZ_DIR)/obj/%.o: %.c $(FUZZ_DIR)/flags
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  FUZZCC  $<")
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(FUZZ_CFLAGS) -c $< -o $@

$(FUZZ_LIB): $(FUZZ_LIB_OBJ)
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)ar rcs $@ $^

$(FUZZ_DIR)/fuzz_%: $(FUZZ_DIR)/obj/fuzz/fuzz_%.o $(FUZZ_LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(FUZZ_CC) $(FUZZ_SAN) -fsanitize=fuzzer $^ $(LDLIBS) -o $@

fuzz:
	@scripts/deps.sh fuzz
	$(MAKE) --no-print-directory $(FUZZ_BIN)

# The fuzz targets where clang can link them; nothing (and fuzz-short says why) elsewhere.
fuzz-build: $(GEN_SRC)
	@scripts/deps.sh fuzz || echo "fuzz-short: could not install the fuzz packages (scripts/deps.sh fuzz)"
	@if [ "$(FUZZ_OK)" = 1 ]; then $(MAKE) -s --no-print-directory $(FUZZ_BIN); fi

fuzz-short: fuzz-build
	@if [ "$(FUZZ_OK)" = 1 ]; then \
	  BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SHORT_SECONDS) FUZZ_JOBS=$(JOBS) scripts/fuzz_run.sh; \
	else echo "SKIP fuzz-short: $(FUZZ_CC) cannot link -fsanitize=fuzzer programs (scripts/deps.sh fuzz)"; fi

fuzz-long: fuzz
	BUILD=$(BUILD) FUZZ_SECONDS=$(FUZZ_SECONDS) scripts/fuzz_run.sh

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/stepscope $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/stepscope
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libstepscope.a
	install -m 644 include/stepscope.h $(DESTDIR)$(PREFIX)/include/stepscope.h
	install -m 644 include/stepscope/*.h $(DESTDIR)$(PREFIX)/include/stepscope/
	install -m 644 docs/stepscope.1 $(DESTDIR)$(PREFIX)/share/man/man1/stepscope.1
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' -e 's|@LIBS@|$(LDLIBS)|g' scripts/stepscope.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/stepscope.pc

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/stepscope $(DESTDIR)$(PREFIX)/lib/libstepscope.a \
	  $(DESTDIR)$(PREFIX)/include/stepscope.h $(DESTDIR)$(PREFIX)/include/stepscope \
	  $(DESTDIR)$(PREFIX)/share/man/man1/stepscope.1 $(DESTDIR)$(PREFIX)/lib/pkgconfig/stepscope.pc

clean:
	rm -rf $(BUILD) demo-out

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d $(BUILD)/obj/*/*/*/*.d)
-include $(wildcard $(FUZZ_DIR)/obj/*/*.d $(FUZZ_DIR)/obj/*/*/*.d $(FUZZ_DIR)/obj/*/*/*/*.d)
