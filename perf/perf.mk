# Extra link and compile flags for benchmarks that need them (included by the Makefile).

# perf/trace_overhead.c: the recorder against an LTTng-UST tracepoint provider
# (perf/trace_lttng_tp.h, found through -Iperf). Without liblttng-ust-dev the
# benchmark builds without its LTTng half.
$(BUILD)/obj/perf/trace_overhead.o: CPPFLAGS += -Iperf
ifneq ($(wildcard /usr/include/lttng/tracepoint.h /usr/include/*/lttng/tracepoint.h),)
$(BUILD)/perf/trace_overhead: PERF_LDLIBS += -llttng-ust -ldl
endif

# perf/device_bench.c: sts_op_matmul against OpenBLAS cblas_sgemm (libopenblas-dev).
$(BUILD)/perf/device_bench: PERF_LDLIBS += -lopenblas
