# rkbare — bare-metal driver and runtime for the RK3588 NPU.
#
#   make [BOARD=qemu-virt|rk3588]   build the image for a board (default qemu-virt)
#   make run [ARGS="k=v ..."]       build and boot the qemu-virt image under QEMU
#   make test                       host unit tests + QEMU boot tests
#   make host                       host tool build/host/rkbare + build/host/librkbare.a
#                                   (sanitised, for the tests)
#   make host-opt                   the same optimised, without sanitizers (build/host-opt)
#   make bench                      benchmarks (not part of make test)
#   make mutation                   mutation run: tests/mutation/mutations.txt, each
#                                   mutant on a scratch copy (not part of make test)
#   make lint                       cppcheck over the project's C (part of make test)
#   make kernel-lib [BOARD=rk3588]  drivers + compiler + runtime as one static library for
#                                   another kernel, and the NPU model as a second one
#   make example-kernel             a second kernel of its own that runs that library
#                                   (examples/second_kernel; run-example-kernel boots it)
#
# Each directory contributes its sources through a fragment (*.mk) that
# appends to these lists:
#   IMAGE_SRCS      C/asm linked into the bare-metal image (every board)
#   HOST_LIB_SRCS   C compiled into build/host/librkbare.a (host HAL)
#   HOST_TOOL_SRCS  C of the host command-line tool build/host/rkbare
#   UNIT_TESTS      host unit tests: tests/unit/<name>.c → build/host/tests/<name>
#   QEMU_TESTS      shell scripts run by `make test` after the unit tests
# and board/$(BOARD)/board.mk adds BOARD_SRCS and BOARD_CFLAGS.

BOARD ?= qemu-virt
BOARDS := qemu-virt rk3588
ifeq ($(filter $(BOARD),$(BOARDS)),)
$(error BOARD must be one of: $(BOARDS))
endif

CROSS ?= aarch64-linux-gnu-
CC_IMG := $(CROSS)gcc
OBJCOPY := $(CROSS)objcopy
SIZE := $(CROSS)size
HOSTCC ?= gcc
QEMU ?= qemu-system-aarch64
MKIMAGE ?= mkimage

LOG_LEVEL ?= 2

BUILD := build
IMG_DIR := $(BUILD)/$(BOARD)
HOST_DIR := $(BUILD)/host
# Before the fragments: their rules name it as a prerequisite, which make
# expands as it reads them (an empty name would never relink their clients).
HOST_LIB := $(HOST_DIR)/librkbare.a
# The optimised host build (make host-opt): no sanitizers, for users and benchmarks.
OPT_DIR := $(BUILD)/host-opt

COMMON_INC := -Iinclude -Ihal -I.
# Warnings are errors in every build (image, host, host-opt, tests).
WARN := -Wall -Wextra -Wshadow -Wstrict-prototypes -Wmissing-prototypes \
	-Wno-unused-parameter -Werror
# Nothing reads errno after a math call: lrintf and friends can then be
# single instructions (fcvtns on the A76) instead of libm calls.
MATH := -fno-math-errno

IMG_CFLAGS := --specs=picolibc.specs -ffreestanding -mstrict-align -fno-pie \
	-mcpu=cortex-a76 -O2 -g -std=gnu11 $(WARN) $(MATH) -fno-common \
	-ffunction-sections -fdata-sections \
	$(COMMON_INC) -Ihal/aarch64 -DLOG_LEVEL=$(LOG_LEVEL) -DRKBARE_BARE_METAL=1
# -no-pie: the image runs at its link address; the toolchain defaults to PIE,
# whose dynamic relocations nothing would apply.
IMG_LDFLAGS := --specs=picolibc.specs -nostartfiles -no-pie -Wl,--gc-sections \
	-Wl,-Map=$(IMG_DIR)/rkbare.map -Wl,-z,max-page-size=4096 -Wl,--no-warn-rwx-segments

HOST_SAN ?= -fsanitize=address,undefined,float-cast-overflow,float-divide-by-zero \
	-fno-omit-frame-pointer -fno-sanitize-recover=all
HOST_CFLAGS := -O1 -g -std=gnu11 $(WARN) $(MATH) $(COMMON_INC) -Ihal/host \
	-DLOG_LEVEL=3 -DRKBARE_HOST=1 $(HOST_SAN)
HOST_LDFLAGS := $(HOST_SAN)
OPT_CFLAGS := -O3 -g -std=gnu11 $(WARN) $(MATH) $(COMMON_INC) -Ihal/host -DLOG_LEVEL=3 \
	-DRKBARE_HOST=1
HOST_LIBS := -lm
# Libraries only the host tool links (the ONNX front end's protobuf-c).
HOST_TOOL_LIBS :=

IMAGE_SRCS :=
HOST_LIB_SRCS :=
HOST_TOOL_SRCS :=
UNIT_TESTS :=
QEMU_TESTS :=
BOARD_SRCS :=
BOARD_CFLAGS :=

include hal/hal.mk
include boot/boot.mk
include drivers/drivers.mk
include compiler/compiler.mk
include runtime/runtime.mk
include sim/sim.mk
include tools/tools.mk
include models/models.mk
include tests/tests.mk
include board/$(BOARD)/board.mk

IMG_CFLAGS += $(BOARD_CFLAGS)

.DEFAULT_GOAL := all
.PHONY: all image host host-opt test unit qemu-test run bench clean setup size qemu-flags lint \
	kernel-lib mutation img-cflags

# ---- toolchain check: install what is missing (scripts/setup.sh) ----
TOOLS_STAMP := $(BUILD)/.tools-ok
$(TOOLS_STAMP): scripts/setup.sh
	@sh scripts/setup.sh
	@mkdir -p $(BUILD) && touch $@

setup:
	sh scripts/setup.sh

# ---- bare-metal image ----
IMG_ALL_SRCS := $(IMAGE_SRCS) $(BOARD_SRCS)
IMG_OBJS := $(patsubst %,$(IMG_DIR)/obj/%.o,$(IMG_ALL_SRCS))

$(IMG_DIR)/obj/%.c.o: %.c | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(CC_IMG) $(IMG_CFLAGS) -MMD -MP -c $< -o $@

# Assembly may use the board's link.h and early_uart.h (boot/start.S).
$(IMG_DIR)/obj/%.S.o: %.S | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(CC_IMG) $(IMG_CFLAGS) -Iboard/$(BOARD) -D__ASSEMBLY__ -MMD -MP -c $< -o $@

$(IMG_DIR)/linker.ld: linker.ld board/$(BOARD)/board.mk | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(CC_IMG) -E -P -x c $(BOARD_CFLAGS) -Iboard/$(BOARD) $< -o $@

$(IMG_DIR)/rkbare.elf: $(IMG_OBJS) $(IMG_DIR)/linker.ld
	$(CC_IMG) $(IMG_LDFLAGS) -T $(IMG_DIR)/linker.ld $(IMG_OBJS) -o $@

# Raw arm64 Image: the header at offset 0 makes it bootable by `booti` and
# by QEMU -kernel; image_size in the header covers .bss.
$(IMG_DIR)/Image: $(IMG_DIR)/rkbare.elf
	$(OBJCOPY) -O binary $< $@

image: $(IMG_DIR)/rkbare.elf $(IMG_DIR)/Image $(BOARD_OUTPUTS)

all: image

size: $(IMG_DIR)/rkbare.elf
	$(SIZE) $<

# ---- make kernel-lib: the driver and runtime for another kernel ----
# drivers/ + compiler/ + runtime/ (and hal_poll.c, the RK3588 NPU table) as
# one static library of the image's own objects; a foreign kernel supplies
# the hal.h functions and the libc subset docs/PORTING.md lists
# (tests/kernel/kernel_lib.sh holds it to that list). The second library is
# the NPU model with the load/store decoder, for a kernel under QEMU.
KLIB_SRCS := hal/hal_poll.c $(NPU_COMMON_SRCS) $(NPU_DRIVER_SRCS) $(COMPILER_SRCS) \
	$(RUNTIME_SRCS) board/rk3588/npu_board.c
KLIB := $(IMG_DIR)/librkbare_kernel.a
KLIB_MODEL_SRCS := $(SIM_SRCS) sim/power.c board/qemu-virt/mmio_insn.c \
	board/qemu-virt/mmio_emulate.c
KLIB_MODEL := $(IMG_DIR)/librkbare_npu_model.a

$(KLIB): $(patsubst %,$(IMG_DIR)/obj/%.o,$(KLIB_SRCS))
	@rm -f $@
	$(CROSS)ar rcs $@ $^

$(KLIB_MODEL): $(patsubst %,$(IMG_DIR)/obj/%.o,$(KLIB_MODEL_SRCS))
	@rm -f $@
	$(CROSS)ar rcs $@ $^

kernel-lib: $(KLIB) $(KLIB_MODEL)

# make example-kernel: a second kernel that links those two and runs them.
include examples/second_kernel/second_kernel.mk

# ---- host library, tool and tests ----
HOST_LIB_OBJS := $(patsubst %,$(HOST_DIR)/obj/%.o,$(HOST_LIB_SRCS))
HOST_TOOL := $(HOST_DIR)/rkbare
HOST_TOOL_OBJS := $(patsubst %,$(HOST_DIR)/obj/%.o,$(HOST_TOOL_SRCS))

$(HOST_DIR)/obj/%.c.o: %.c | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -MMD -MP -c $< -o $@

$(HOST_LIB): $(HOST_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(HOST_TOOL): $(HOST_TOOL_OBJS) $(HOST_LIB)
	$(HOSTCC) $(HOST_LDFLAGS) $(HOST_TOOL_OBJS) $(HOST_LIB) $(HOST_TOOL_LIBS) $(HOST_LIBS) -o $@

host: $(HOST_LIB) $(HOST_TOOL)

OPT_LIB := $(OPT_DIR)/librkbare.a
OPT_LIB_OBJS := $(patsubst %,$(OPT_DIR)/obj/%.o,$(HOST_LIB_SRCS))
OPT_TOOL := $(OPT_DIR)/rkbare
OPT_TOOL_OBJS := $(patsubst %,$(OPT_DIR)/obj/%.o,$(HOST_TOOL_SRCS))

$(OPT_DIR)/obj/%.c.o: %.c | $(TOOLS_STAMP)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(OPT_CFLAGS) -MMD -MP -c $< -o $@

$(OPT_LIB): $(OPT_LIB_OBJS)
	@rm -f $@
	ar rcs $@ $^

$(OPT_TOOL): $(OPT_TOOL_OBJS) $(OPT_LIB)
	$(HOSTCC) $(OPT_TOOL_OBJS) $(OPT_LIB) $(HOST_TOOL_LIBS) $(HOST_LIBS) -o $@

host-opt: $(OPT_LIB) $(OPT_TOOL)

UNIT_BINS := $(patsubst %,$(HOST_DIR)/tests/%,$(UNIT_TESTS))

# (-MMD: a unit test rebuilds when a header or a .c file it includes changes)
$(HOST_DIR)/tests/%: tests/unit/%.c $(HOST_LIB) $(TEST_SUPPORT_OBJS)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(HOST_CFLAGS) -MMD -MP -MT $@ -MF $@.d -Itests $< $(TEST_SUPPORT_OBJS) \
		$(HOST_LIB) $(HOST_LDFLAGS) -lcmocka $(HOST_LIBS) -o $@
-include $(UNIT_BINS:=.d)

unit: $(UNIT_BINS)
	@sh tests/run-unit.sh $(UNIT_BINS)

# Each mutation of tests/mutation/mutations.txt applied to a scratch copy of
# the tree and its tests run there (docs/TESTING.md); the build made here is
# copied, so the scratch copy recompiles only what a mutation touches.
# MUTATIONS="id ..." runs some of them.
mutation: host $(UNIT_BINS) $(FMNIST_DIR)/fmnist.rkb $(FMNIST_DIR)/fmnist_fp16.rkb
	@/usr/bin/python3 tests/mutation/mutate.py $(MUTATIONS)

qemu-test:
	@$(MAKE) --no-print-directory BOARD=qemu-virt image
	@sh tests/run-qemu.sh $(QEMU_TESTS)

# cppcheck over the project's C (scripts/lint.sh); part of make test.
lint: | $(TOOLS_STAMP)
	@sh scripts/lint.sh

# The README's test command: everything, unit tests first (the fuzz
# harnesses replay their seeds and saved crashes before).
test: lint host $(UNIT_BINS) fuzz-regress
	@$(MAKE) --no-print-directory BOARD=rk3588 image
	@$(MAKE) --no-print-directory BOARD=qemu-virt image
	@sh tests/run-all.sh "$(UNIT_BINS)" "$(QEMU_TESTS)"

# ---- QEMU ----
QEMU_MEM ?= 1G
# -nic none: no default virtio NIC, whose option ROM (ipxe) is not installed.
QEMU_FLAGS := -machine virt -cpu cortex-a76 -m $(QEMU_MEM) -nographic -nic none \
	-semihosting-config enable=on,target=native -no-reboot
ARGS ?=

# make exits 2 whenever a recipe fails; the line qemu-run.sh prints and its
# own status (sh scripts/qemu-run.sh ...) carry the image's exact status.
run:
	@$(MAKE) --no-print-directory BOARD=qemu-virt image
	@QEMU=$(QEMU) sh scripts/qemu-run.sh $(BUILD)/qemu-virt/Image "$(ARGS)" $(QEMU_FLAGS)

# The QEMU command-line flags (scripts/qemu-run.sh, tests/qemu/lib.sh).
qemu-flags:
	@echo $(QEMU_FLAGS)

# The image's C flags for the board (tests/bench/a64_count.sh).
img-cflags:
	@echo $(IMG_CFLAGS)

# make bench regenerates docs/BENCHMARKS.md (tests/bench/bench.sh).
$(OPT_DIR)/bench/%: tests/bench/%.c $(OPT_LIB)
	@mkdir -p $(dir $@)
	$(HOSTCC) $(OPT_CFLAGS) -Itests $< $(OPT_LIB) $(HOST_LIBS) -o $@

bench: host-opt $(OPT_DIR)/bench/bench_runtime $(FMNIST_DIR)/fmnist.rkb
	@sh tests/bench/bench.sh

# Section 10 of docs/BENCHMARKS.md alone (the LLM decoder; make bench runs it too).
bench-llm: host-opt $(OPT_DIR)/bench/llm_decode
	@sh tests/bench/llm_bench.sh --update
.PHONY: bench-llm

clean:
	rm -rf $(BUILD)

-include $(IMG_OBJS:.o=.d) $(HOST_LIB_OBJS:.o=.d) $(HOST_TOOL_OBJS:.o=.d) \
	$(OPT_LIB_OBJS:.o=.d) $(OPT_TOOL_OBJS:.o=.d)
