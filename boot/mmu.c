/* SPDX-License-Identifier: MIT */
/*
 * Identity map of the low 4 GiB with 2 MiB blocks: one level-1 table
 * (four 1 GiB slots) and one level-2 table per slot. Settings from
 * HARDWARE.md §B.6 (tested there on QEMU 7.2 at EL1).
 *
 * Runs before the MMU is on, when every data access is Device-nGnRnE:
 * only aligned stores, no library calls.
 */

#include "boot/board.h"
#include "boot/mmu.h"
#include "hal.h"
#include "sysreg.h"

#define VA_BITS			32
#define L1_ENTRIES		4		/* 4 GiB / 1 GiB */
#define L2_ENTRIES		512
#define BLOCK_SHIFT		21		/* 2 MiB */
#define BLOCK_SIZE		(1ull << BLOCK_SHIFT)
#define L1_SHIFT		30
#define VA_LIMIT		(1ull << VA_BITS)

/* MAIR_EL1 attribute indices and encodings */
#define MT_DEVICE_NGNRNE	0
#define MT_NORMAL_WB		1
#define MT_NORMAL_NC		2
#define MAIR_DEVICE_NGNRNE	0x00ull
#define MAIR_NORMAL_WB		0xffull		/* inner/outer WB, RW-allocate */
#define MAIR_NORMAL_NC		0x44ull
#define MAIR_VALUE		(MAIR_DEVICE_NGNRNE << (8 * MT_DEVICE_NGNRNE) | \
				 MAIR_NORMAL_WB << (8 * MT_NORMAL_WB) | \
				 MAIR_NORMAL_NC << (8 * MT_NORMAL_NC))

/* TCR_EL1: T0SZ = 32 (walk starts at level 1), WB-WA inner-shareable
 * walks, 4 KiB granule, no TTBR1 walks, 32-bit IPS. */
#define TCR_T0SZ(bits)		(64ull - (bits))
#define TCR_IRGN0_WBWA		(1ull << 8)
#define TCR_ORGN0_WBWA		(1ull << 10)
#define TCR_SH0_INNER		(3ull << 12)
#define TCR_TG0_4K		(0ull << 14)
#define TCR_EPD1		(1ull << 23)
#define TCR_IPS_32BIT		(0ull << 32)
#define TCR_VALUE		(TCR_T0SZ(VA_BITS) | TCR_IRGN0_WBWA | TCR_ORGN0_WBWA | \
				 TCR_SH0_INNER | TCR_TG0_4K | TCR_EPD1 | TCR_IPS_32BIT)

/* Descriptor fields */
#define DESC_BLOCK		1ull
#define DESC_TABLE		3ull
#define DESC_ATTRINDX(i)	((uint64_t)(i) << 2)
#define DESC_SH_INNER		(3ull << 8)
#define DESC_AF			(1ull << 10)
#define DESC_PXN		(1ull << 53)
#define DESC_UXN		(1ull << 54)

#define ATTR_RAM	(DESC_ATTRINDX(MT_NORMAL_WB) | DESC_SH_INNER | DESC_AF)
#define ATTR_MMIO	(DESC_ATTRINDX(MT_DEVICE_NGNRNE) | DESC_AF | DESC_PXN | DESC_UXN)

static uint64_t l1_table[L1_ENTRIES] __attribute__((aligned(4096)));
static uint64_t l2_tables[L1_ENTRIES][L2_ENTRIES] __attribute__((aligned(4096)));

static void map_range(uint64_t base, uint64_t size, uint64_t attr)
{
	uint64_t start = (base + BLOCK_SIZE - 1) & ~(BLOCK_SIZE - 1);
	uint64_t end = (base + size) & ~(BLOCK_SIZE - 1);
	uint64_t a;

	if (base + size < base || base + size > VA_LIMIT)
		end = VA_LIMIT;
	for (a = start; a < end; a += BLOCK_SIZE)
		l2_tables[a >> L1_SHIFT][(a >> BLOCK_SHIFT) % L2_ENTRIES] =
			a | attr | DESC_BLOCK;
}

void mmu_enable(const struct boot_layout *layout)
{
	const struct mem_range *mmio;
	unsigned int i, count;
	uint64_t sctlr;

	for (i = 0; i < L1_ENTRIES; i++)
		l1_table[i] = (uint64_t)(uintptr_t)l2_tables[i] | DESC_TABLE;
	for (i = 0; i < layout->ram_count; i++)
		map_range(layout->ram[i].base, layout->ram[i].size, ATTR_RAM);
	mmio = board_mmio_ranges(&count);
	for (i = 0; i < count; i++)
		map_range(mmio[i].base, mmio[i].size, ATTR_MMIO);

	/* The walker reads the tables through the cache (IRGN0/ORGN0 WB):
	 * drop any stale line over what was just written with caches off. */
	hal_dcache_invalidate(l1_table, sizeof(l1_table));
	hal_dcache_invalidate(l2_tables, sizeof(l2_tables));

	write_sysreg(mair_el1, MAIR_VALUE);
	write_sysreg(tcr_el1, TCR_VALUE);
	write_sysreg(ttbr0_el1, (uintptr_t)l1_table);
	isb();
	__asm__ volatile("tlbi vmalle1\n\tdsb ish\n\tic iallu\n\tdsb ish" : : : "memory");
	isb();

	sctlr = read_sysreg(sctlr_el1);
	sctlr |= SCTLR_ELx_M | SCTLR_ELx_C | SCTLR_ELx_I;
	write_sysreg(sctlr_el1, sctlr);
	isb();
}
