/* SPDX-License-Identifier: MIT */
/*
 * QEMU virt (cortex-a76): PL011 console, semihosting exit, and the memory
 * map of HARDWARE.md §B.5 (measured on QEMU 7.2).
 */
#include <stdint.h>

#include "board/qemu-virt/mmio_trap.h"
#include "boot/board.h"
#include "drivers/uart/pl011.h"

#define PL011_BASE		0x09000000u
/* Flash, GIC, UART, RTC, fw_cfg, GPIO, virtio-mmio, PCIe: all below RAM. */
#define LOW_MMIO_BASE		0x00000000u
#define LOW_MMIO_SIZE		0x40000000u
/*
 * The RK3588 peripheral range. Nothing backs it in QEMU: mapped as Device,
 * an access is a synchronous external abort (DFSC 0x10), which the MMIO
 * trap turns into NPU/PMU/CRU model traffic.
 */
#define SOC_MMIO_BASE		0xf0000000u
#define SOC_MMIO_SIZE		0x10000000u
/* QEMU writes the DTB here for an ELF payload (x0 = 0). */
#define RAM_BASE		0x40000000u
#define DTB_FALLBACK		RAM_BASE
/* QEMU's default -m. */
#define RAM_FALLBACK_SIZE	(128u << 20)
#define NPU_CORE0_PC_VERSION	0xfdab0000u

/* Semihosting (HARDWARE.md §B.5): HLT #0xF000, operation in w0,
 * parameter block in x1. */
#define SEMIHOST_SYS_EXIT		0x18
#define SEMIHOST_APPLICATION_EXIT	0x20026
#define SEMIHOST_STATUS_MASK		0xff

const char board_name[] = "qemu-virt";
const uintptr_t board_selftest_mmio_reg = NPU_CORE0_PC_VERSION;

static const struct mem_range mmio_ranges[] = {
	{ LOW_MMIO_BASE, LOW_MMIO_SIZE },
	{ SOC_MMIO_BASE, SOC_MMIO_SIZE },
};

void board_console_init(void)
{
	pl011_init(PL011_BASE);
}

void board_console_putc(char c)
{
	pl011_putc(PL011_BASE, c);
}

uintptr_t board_dtb_fallback(void)
{
	return DTB_FALLBACK;
}

struct mem_range board_ram_fallback(void)
{
	return (struct mem_range){ RAM_BASE, RAM_FALLBACK_SIZE };
}

const struct mem_range *board_mmio_ranges(unsigned int *count)
{
	*count = sizeof(mmio_ranges) / sizeof(mmio_ranges[0]);
	return mmio_ranges;
}

int board_init(const struct boot_layout *layout, const struct bootargs *args)
{
	return mmio_trap_init(layout, args);
}

void board_exit(int status)
{
	/* QEMU exits with the subcode's low byte: keep a failure a failure. */
	int code = status != 0 && (status & SEMIHOST_STATUS_MASK) == 0 ? 1 : status;
	uint64_t block[2] = { SEMIHOST_APPLICATION_EXIT, (uint64_t)code };
	register uint64_t op __asm__("x0") = SEMIHOST_SYS_EXIT;
	register uint64_t param __asm__("x1") = (uintptr_t)block;

	__asm__ volatile("hlt #0xf000" : "+r"(op) : "r"(param) : "memory");
	/* Without -semihosting the HLT is an undefined instruction, reported
	 * as a crash; nothing else can end the run. */
	for (;;)
		__asm__ volatile("wfe");
}
