# stepscope build.  `make` builds build/stepscope and build/libstepscope.a.
#
# Sources are found by layout, so adding a file needs no edit here:
#   lib/<module>/*.c        -> libstepscope.a
#   programs/*.c            -> the stepscope CLI
#   tests/unit/test_*.c     -> one test binary each
#   bench/*.c               -> one benchmark binary each
# A module that needs generated sources or extra rules adds lib/<module>/module.mk,
# which may append to GEN_SRC (generated .c files, built into the library).

VERSION := 0.1.0
PREFIX ?= /usr/local
BUILD ?= build
CC ?= cc

WARN := -Wall -Wextra -Werror -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
        -Wpointer-arith -Wvla -Wformat=2 -Wundef -Wwrite-strings -Wold-style-definition \
        -Wimplicit-fallthrough -Wno-unused-parameter
OPT ?= -O2 -g
SAN_FLAGS :=
ifeq ($(SAN),1)
  SAN_FLAGS := -fsanitize=address,undefined -fno-sanitize-recover=undefined -fno-omit-frame-pointer
  OPT := -O1 -g
endif
CPPFLAGS += -Iinclude -Ilib -D_GNU_SOURCE -DCL_TARGET_OPENCL_VERSION=120 -DSTS_VERSION_STRING='"$(VERSION)"'
CFLAGS += -std=c11 $(OPT) $(WARN) $(SAN_FLAGS) -MMD -MP
LDFLAGS += $(SAN_FLAGS)
LDLIBS += -lOpenCL -lz -lm -lpthread

GEN_SRC :=
BENCH_LDLIBS :=
-include $(wildcard lib/*/module.mk)
-include bench/bench.mk

LIB_SRC  := $(wildcard lib/*/*.c)
V ?= 0
ifeq ($(V),0)
  Q := @
endif
PROG_SRC := $(wildcard programs/*.c)
TEST_SRC := $(wildcard tests/unit/test_*.c)
BENCH_SRC := $(wildcard bench/*.c)
FUZZ_SRC := $(wildcard fuzz/fuzz_*.c)

LIB_OBJ  := $(LIB_SRC:%.c=$(BUILD)/obj/%.o) $(GEN_SRC:%.c=%.o)
PROG_OBJ := $(PROG_SRC:%.c=$(BUILD)/obj/%.o)
TEST_BIN := $(TEST_SRC:tests/unit/%.c=$(BUILD)/tests/%)
BENCH_BIN := $(BENCH_SRC:bench/%.c=$(BUILD)/bench/%)
# Each fuzz target is also linked with a corpus replayer so `make test` runs its corpus.
FUZZ_REPLAY := $(FUZZ_SRC:fuzz/%.c=$(BUILD)/fuzz/%_replay)

LIB := $(BUILD)/libstepscope.a
CLI := $(BUILD)/stepscope

.SECONDARY:
.PHONY: all lib test check check-asan unit demo bench install uninstall clean deps format fuzz
all: $(CLI) $(LIB)
lib: $(LIB)

$(BUILD)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(BUILD)/gen/%.o: $(BUILD)/gen/%.c
	@$(if $(Q),echo "  CC      $<")
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) -c $< -o $@

$(LIB): $(LIB_OBJ)
	@mkdir -p $(dir $@)
	@rm -f $@
	@$(if $(Q),echo "  AR      $@")
	$(Q)ar rcs $@ $^

$(CLI): $(PROG_OBJ) $(LIB)
	@$(if $(Q),echo "  LD      $@")
	$(Q)$(CC) $(LDFLAGS) $(PROG_OBJ) $(LIB) $(LDLIBS) -o $@

$(BUILD)/tests/%: $(BUILD)/obj/tests/unit/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LIB) $(LDLIBS) -o $@

$(BUILD)/bench/%: $(BUILD)/obj/bench/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $< $(LIB) $(LDLIBS) $(BENCH_LDLIBS) -o $@

$(BUILD)/fuzz/%_replay: $(BUILD)/obj/fuzz/%.o $(BUILD)/obj/fuzz/replay.o $(LIB)
	@mkdir -p $(dir $@)
	$(CC) $(LDFLAGS) $^ $(LDLIBS) -o $@

# Everything the test runner needs, for one build flavour.
unit: $(CLI) $(LIB) $(TEST_BIN) $(FUZZ_REPLAY)

# `make test`: install what is missing, then the suite in a normal build and again under
# AddressSanitizer + UndefinedBehaviorSanitizer.
test: deps
	$(MAKE) check
	$(MAKE) check-asan

check: unit
	BUILD=$(BUILD) tests/run.sh

check-asan:
	$(MAKE) BUILD=$(BUILD)/asan SAN=1 unit
	ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1 \
	  STEPSCOPE_SANITIZED=1 BUILD=$(BUILD)/asan tests/run.sh

deps:
	@scripts/deps.sh

demo: deps all
	$(CLI) demo

bench: all $(BENCH_BIN)
	@scripts/deps.sh bench
	BUILD=$(BUILD) bench/run.sh

# libFuzzer builds need clang; `make fuzz` builds each target for a long run.
fuzz:
	@mkdir -p $(BUILD)/fuzzer
	for f in $(FUZZ_SRC); do \
	  clang $(CPPFLAGS) -std=c11 -g -O1 -fsanitize=fuzzer,address,undefined $$f $(filter-out %/main.c,$(LIB_SRC)) $(GEN_SRC) \
	    $(LDLIBS) -o $(BUILD)/fuzzer/$$(basename $$f .c) || exit 1; done

install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/lib/pkgconfig \
	  $(DESTDIR)$(PREFIX)/include/stepscope $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 $(CLI) $(DESTDIR)$(PREFIX)/bin/stepscope
	install -m 644 $(LIB) $(DESTDIR)$(PREFIX)/lib/libstepscope.a
	install -m 644 include/stepscope.h $(DESTDIR)$(PREFIX)/include/stepscope.h
	install -m 644 include/stepscope/*.h $(DESTDIR)$(PREFIX)/include/stepscope/
	install -m 644 docs/stepscope.1 $(DESTDIR)$(PREFIX)/share/man/man1/stepscope.1
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' scripts/stepscope.pc.in \
	  > $(DESTDIR)$(PREFIX)/lib/pkgconfig/stepscope.pc

uninstall:
	rm -rf $(DESTDIR)$(PREFIX)/bin/stepscope $(DESTDIR)$(PREFIX)/lib/libstepscope.a \
	  $(DESTDIR)$(PREFIX)/include/stepscope.h $(DESTDIR)$(PREFIX)/include/stepscope \
	  $(DESTDIR)$(PREFIX)/share/man/man1/stepscope.1 $(DESTDIR)$(PREFIX)/lib/pkgconfig/stepscope.pc

format:
	clang-format -i $(LIB_SRC) $(PROG_SRC) $(TEST_SRC) $(BENCH_SRC) include/*.h include/stepscope/*.h lib/*/*.h

clean:
	rm -rf build demo-out

-include $(wildcard $(BUILD)/obj/*/*.d $(BUILD)/obj/*/*/*.d $(BUILD)/obj/*/*/*/*.d)
