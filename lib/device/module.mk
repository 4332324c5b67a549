# lib/device's files that need no OpenCL: the whole device layer of a build without it
# (OPENCL=0, see the Makefile), where device_none.c stands in for the rest; dtype.c is
# in both builds, device_none.c only in that one.
DEVICE_NONE_SRC := lib/device/device_none.c
DEVICE_NOCL_SRC := lib/device/dtype.c $(DEVICE_NONE_SRC)

# lib/device: embed the OpenCL C kernels (lib/device/kernels/*.cl) into the library at
# build time, so the binary needs no kernel files at run time.
DEVICE_CL := $(sort $(wildcard lib/device/kernels/*.cl))

$(BUILD)/gen/device_kernels.c: $(DEVICE_CL) scripts/embed_files.sh lib/device/module.mk
	@mkdir -p $(dir $@)
	sh scripts/embed_files.sh device/embedded.h sts_device_kernel_files $(DEVICE_CL) > $@.tmp
	mv $@.tmp $@

ifneq ($(OPENCL),0)
GEN_SRC += $(BUILD)/gen/device_kernels.c
endif

# `make fuzz` compiles GEN_SRC directly, so the table must exist first.
fuzz: $(BUILD)/gen/device_kernels.c
