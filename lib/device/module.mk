# lib/device: embed the OpenCL C kernels (lib/device/kernels/*.cl) into the library at
# build time, so the binary needs no kernel files at run time.
DEVICE_CL := $(sort $(wildcard lib/device/kernels/*.cl))

$(BUILD)/gen/device_kernels.c: $(DEVICE_CL) scripts/embed_files.sh lib/device/module.mk
	@mkdir -p $(dir $@)
	sh scripts/embed_files.sh device/embedded.h sts_device_kernel_files $(DEVICE_CL) > $@.tmp
	mv $@.tmp $@

GEN_SRC += $(BUILD)/gen/device_kernels.c

# `make fuzz` compiles GEN_SRC directly, so the table must exist first.
fuzz: $(BUILD)/gen/device_kernels.c
