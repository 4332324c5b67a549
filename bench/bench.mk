# Extra link and compile flags for benchmarks that need them (included by the Makefile).

# bench/trace_overhead.c: the recorder against an LTTng-UST tracepoint provider
# (bench/trace_lttng_tp.h, found through -Ibench). Without liblttng-ust-dev the
# benchmark builds without its LTTng half.
$(BUILD)/obj/bench/trace_overhead.o: CPPFLAGS += -Ibench
ifneq ($(wildcard /usr/include/lttng/tracepoint.h /usr/include/*/lttng/tracepoint.h),)
$(BUILD)/bench/trace_overhead: BENCH_LDLIBS += -llttng-ust -ldl
endif

# bench/device_bench.c: sts_op_matmul against OpenBLAS cblas_sgemm (libopenblas-dev).
$(BUILD)/bench/device_bench: BENCH_LDLIBS += -lopenblas
