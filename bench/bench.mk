# Extra link and compile flags for benchmarks that need them (included by the Makefile).

# bench/trace_overhead.c: the recorder against an LTTng-UST tracepoint provider
# (bench/trace_lttng_tp.h, found through -Ibench).
$(BUILD)/obj/bench/trace_overhead.o: CPPFLAGS += -Ibench
$(BUILD)/bench/trace_overhead: BENCH_LDLIBS += -llttng-ust -ldl
