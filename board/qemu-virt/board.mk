# board/qemu-virt: QEMU virt, cortex-a76, PL011, NPU model behind trapped MMIO.
BOARD_CFLAGS += -DBOARD_QEMU_VIRT=1
# NPU integration table (the qemu-virt model emulates the same SoC).
BOARD_SRCS += board/rk3588/npu_board.c
# Board glue, console and the MMIO trap that routes NPU/PMU/CRU accesses to sim/.
BOARD_SRCS += board/qemu-virt/board.c board/qemu-virt/mmio_trap.c \
	board/qemu-virt/mmio_insn.c board/qemu-virt/mmio_emulate.c drivers/uart/pl011.c
# U-Boot payloads built by the same rules as the board's (Debian's
# u-boot-qemu runs them in tests/qemu/uboot.sh).
include board/uboot.mk
