/* SPDX-License-Identifier: MIT */
/*
 * RK3588 (Rock 5B class) booted from U-Boot: UART2 console and the memory
 * map of HARDWARE.md §B.1.
 */
#include <stdint.h>
#include <stdio.h>

#include "boot/board.h"
#include "drivers/uart/dw8250.h"

/* Debug UART2, set up by U-Boot for 1.5 Mbaud 8N1 (rk3588-base.dtsi). */
#define UART2_BASE		0xfeb50000u
/* On-chip peripherals; U-Boot maps the same range Device-nGnRnE + XN
 * (arch/arm/mach-rockchip/rk3588/rk3588.c mem_map). */
#define PERIPH_BASE		0xf0000000u
#define PERIPH_SIZE		0x10000000u
/*
 * RAM when no DTB was passed: DRAM bank 0 starts after the 2 MiB BL31
 * reserves; 1 GiB is less than any RK3588 board has and holds the image,
 * the heap and the DMA region. Always pass a DTB to use all of it.
 */
#define RAM_FALLBACK_BASE	0x00200000u
#define RAM_FALLBACK_SIZE	(0x40000000u - RAM_FALLBACK_BASE)

const char board_name[] = "rk3588";
/* An unpowered NPU stalls the bus on silicon: no blind MMIO self-test. */
const uintptr_t board_selftest_mmio_reg;

static const struct mem_range mmio_ranges[] = {
	{ PERIPH_BASE, PERIPH_SIZE },
};

void board_console_init(void)
{
}

void board_console_putc(char c)
{
	dw8250_putc(UART2_BASE, c);
}

uintptr_t board_dtb_fallback(void)
{
	return 0;
}

struct mem_range board_ram_fallback(void)
{
	return (struct mem_range){ RAM_FALLBACK_BASE, RAM_FALLBACK_SIZE };
}

const struct mem_range *board_mmio_ranges(unsigned int *count)
{
	*count = sizeof(mmio_ranges) / sizeof(mmio_ranges[0]);
	return mmio_ranges;
}

int board_init(const struct boot_layout *layout, const struct bootargs *args)
{
	return 0;
}

int board_data_abort(struct exc_frame *frame)
{
	return -1;
}

unsigned long board_mmio_trap_count(void)
{
	return 0;
}

/*
 * No semihosting without a debugger (HLT would be undefined). The status
 * is already on the console; park the CPU so the console stays readable,
 * rather than PSCI SYSTEM_OFF, which would cut the board's power.
 */
void board_exit(int status)
{
	printf("rkbare: halted (status %d); reset the board to run again\n", status);
	for (;;)
		__asm__ volatile("wfe");
}
