# examples/second_kernel: a small kernel of its own that runs the library
# (docs/PORTING.md) under QEMU. It links its own objects, the two
# `make kernel-lib BOARD=rk3588` archives and libgcc, nothing else
# (-nostdlib, no libc header either); tests/kernel/second_kernel.sh checks
# the link map and compares its output with the image's.
#   make example-kernel       build build/second-kernel/second_kernel.elf
#   make run-example-kernel   and boot it under QEMU
SK_DIR := $(BUILD)/second-kernel
SK_ELF := $(SK_DIR)/second_kernel.elf
SK_MAP := $(SK_DIR)/second_kernel.map
SK_SRC := examples/second_kernel
SK_SRCS := $(SK_SRC)/start.S $(SK_SRC)/kernel.c $(SK_SRC)/hal.c $(SK_SRC)/libc.c \
	$(SK_SRC)/app.c $(SK_SRC)/blob.S
SK_OBJS := $(patsubst %,$(SK_DIR)/obj/%.o,$(SK_SRCS))
SK_LIBS := $(BUILD)/rk3588/librkbare_kernel.a $(BUILD)/rk3588/librkbare_npu_model.a
# The library's flags (aarch64, freestanding, strict alignment), with the
# compiler's own headers only: hal_arch.h is the example's, and no libc
# header is on the path. Loops stay loops (libc.c implements memcpy & co).
SK_CFLAGS = -ffreestanding -nostdinc -isystem $(shell $(CC_IMG) -print-file-name=include) \
	-mcpu=cortex-a76 -mstrict-align -fno-pie -O2 -g -std=gnu11 $(WARN) $(MATH) \
	-fno-common -fno-tree-loop-distribute-patterns -ffunction-sections -fdata-sections \
	-I$(SK_SRC) -Ihal -Iinclude -I. -DLOG_LEVEL=$(LOG_LEVEL)
SK_LDFLAGS := -nostdlib -static -no-pie -T $(SK_SRC)/kernel.ld -Wl,--gc-sections \
	-Wl,-Map=$(SK_MAP) -Wl,-z,max-page-size=4096 -Wl,--no-warn-rwx-segments -Wl,--build-id=none

$(SK_DIR)/obj/%.c.o: %.c | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(CC_IMG) $(SK_CFLAGS) -MMD -MP -c $< -o $@

$(SK_DIR)/obj/%.S.o: %.S | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(CC_IMG) $(SK_CFLAGS) -D__ASSEMBLY__ -MMD -MP -c $< -o $@

# The image's default model and samples (models/models.mk).
SK_BLOBS := $(FMNIST_DIR)/fmnist.rkb $(FMNIST_DIR)/test.npy $(FMNIST_DIR)/labels.npy
$(SK_DIR)/obj/$(SK_SRC)/blob.S.o: $(SK_BLOBS)
$(SK_DIR)/obj/$(SK_SRC)/blob.S.o: SK_CFLAGS += \
	-DSK_MODEL='"$(abspath $(FMNIST_DIR)/fmnist.rkb)"' \
	-DSK_SAMPLES='"$(abspath $(FMNIST_DIR)/test.npy)"' \
	-DSK_LABELS='"$(abspath $(FMNIST_DIR)/labels.npy)"'

# The archives are built for BOARD=rk3588 whatever BOARD this make has;
# the kernel is relinked each time (a link is cheap).
.PHONY: example-kernel run-example-kernel sk-libs
sk-libs:
	@$(MAKE) --no-print-directory BOARD=rk3588 kernel-lib

$(SK_ELF): $(SK_OBJS) $(SK_SRC)/kernel.ld sk-libs
	$(CC_IMG) $(SK_LDFLAGS) $(SK_OBJS) $(SK_LIBS) -lgcc -o $@

example-kernel: $(SK_ELF)

run-example-kernel: example-kernel
	@QEMU=$(QEMU) sh scripts/qemu-run.sh $(SK_ELF) "" $(QEMU_FLAGS)

-include $(SK_OBJS:.o=.d)
