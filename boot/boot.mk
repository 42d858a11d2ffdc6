# boot/: entry, EL2→EL1, vectors, MMU, memory layout, console, self-tests,
# and the application (app_npu.c: NPU bring-up and matmuls checked against the CPU).
IMAGE_SRCS += boot/start.S boot/vectors.S boot/exception.c boot/mmu.c \
	boot/memmap.c boot/console.c boot/main.c boot/selftest.c \
	boot/selftest_fp.S boot/app_npu.c boot/probe.c
# The board probes of the PC, the driver's kick and the CBUF.
IMAGE_SRCS += boot/probe_pc.c
# rkbare.app=llm: the decoder of examples/llm on rkb_chain.
IMAGE_SRCS += boot/app_llm.c examples/llm/llm_decoder.c
# The device-tree reader and the boot-argument parser: portable C with no
# hardware access, host-tested and fuzzed too.
BOOT_PARSE_SRCS := boot/fdt.c boot/bootargs.c
IMAGE_SRCS += $(BOOT_PARSE_SRCS)
HOST_LIB_SRCS += $(BOOT_PARSE_SRCS)
# The qemu-virt MMIO trap's instruction decoder and emulation entry run on
# any host with the model: host-tested too.
HOST_LIB_SRCS += board/qemu-virt/mmio_insn.c board/qemu-virt/mmio_emulate.c
# The board probes' decisions (what each reading predicts, which one the
# NPU's output matches): no hardware access, host-tested too.
IMAGE_SRCS += boot/probe_decide.c boot/probe_more.c
HOST_LIB_SRCS += boot/probe_decide.c
