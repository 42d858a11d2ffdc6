# board/qemu-virt: QEMU virt, cortex-a76, PL011, NPU model behind trapped MMIO.
BOARD_CFLAGS += -DBOARD_QEMU_VIRT=1
