/* SPDX-License-Identifier: MIT */
/* Boot self-tests (see selftest.h). */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "boot/board.h"
#include "boot/boot.h"
#include "boot/selftest.h"
#include "hal.h"

/* Just past the 4 GiB the identity map covers: never mapped, on any
 * board, and not an NPU window the trap would emulate. */
#define UNMAPPED_ADDR		0x100000000ull
#define FP_REGS_BYTES		(32 * 16)
#define FP_PATTERN_SEED		0x9e3779b97f4a7c15ull

void selftest_fp_mmio(uintptr_t reg, const void *in, void *out, uint32_t *value);

static int selftest_crash(void)
{
	volatile uint32_t *p = (volatile uint32_t *)(uintptr_t)UNMAPPED_ADDR;

	printf("selftest: loading from 0x%llx, expect a crash report\n", UNMAPPED_ADDR);
	return (int)*p;
}

static int selftest_undef(void)
{
	printf("selftest: executing an undefined instruction, expect a crash report\n");
	__asm__ volatile("udf #0");
	return 0;
}

static int selftest_mmio(void)
{
	uint8_t in[FP_REGS_BYTES], out[FP_REGS_BYTES];
	uint64_t x = FP_PATTERN_SEED;
	unsigned long traps = board_mmio_trap_count();
	uint32_t version;
	unsigned int i;

	if (!board_selftest_mmio_reg) {
		printf("selftest: no MMIO test register on this board\n");
		return 1;
	}
	/* A fixed, irregular pattern in every FP/SIMD register byte. */
	for (i = 0; i < FP_REGS_BYTES; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		in[i] = (uint8_t)x;
	}
	selftest_fp_mmio(board_selftest_mmio_reg, in, out, &version);
	traps = board_mmio_trap_count() - traps;
	printf("selftest: MMIO read 0x%08lx = 0x%08x (%lu trapped access%s)\n",
	       (unsigned long)board_selftest_mmio_reg, version, traps, traps == 1 ? "" : "es");
	if (memcmp(in, out, sizeof(in))) {
		printf("selftest: FP/SIMD registers changed across the access\n");
		return 1;
	}
	printf("selftest: FP/SIMD registers preserved\n");
	return 0;
}

static int selftest_mmio_wide(void)
{
	volatile uint64_t *reg = (volatile uint64_t *)board_selftest_mmio_reg;

	if (!reg) {
		printf("selftest: no MMIO test register on this board\n");
		return 1;
	}
	printf("selftest: 64-bit MMIO read, expect a crash report\n");
	return (int)*reg;
}

int selftest_run(const char *name)
{
	if (!strcmp(name, "crash"))
		return selftest_crash();
	if (!strcmp(name, "undef"))
		return selftest_undef();
	if (!strcmp(name, "mmio"))
		return selftest_mmio();
	if (!strcmp(name, "mmio-wide"))
		return selftest_mmio_wide();
	hal_err("selftest: unknown test '%s' (crash, undef, mmio, mmio-wide)", name);
	return BOOT_STATUS_ERROR;
}
