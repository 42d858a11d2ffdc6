/* SPDX-License-Identifier: MIT */
/*
 * A second kernel that runs rkbare's library: what a port does, in one
 * file (docs/PORTING.md). Its console, identity map and exception handling
 * are its own; the NPU driver, compiler and runtime come from
 * librkbare_kernel.a, and under QEMU the NPU itself from
 * librkbare_npu_model.a, reached the way a kernel reaches a device it
 * emulates: the access faults and the abort handler answers it.
 */
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "board/qemu-virt/mmio_emulate.h"
#include "hal.h"
#include "kernel.h"
#include "rkbare.h"
#include "rkbare/rknn_matmul_api.h"

/* ---- console: QEMU virt's PL011, already set up by QEMU ---- */

#define UART_BASE	0x09000000u
#define UART_DR		0x00u
#define UART_FR		0x18u
#define UART_FR_TXFF	(1u << 5)	/* transmit FIFO full */

void console_write(const char *s, size_t n)
{
	for (; n; n--, s++) {
		while (hal_read32(UART_BASE + UART_FR) & UART_FR_TXFF)
			;
		hal_write32(UART_BASE + UART_DR, (uint8_t)*s);
	}
}

void kvprintf(const char *fmt, va_list ap)
{
	char line[256];
	int n = vsnprintf(line, sizeof(line), fmt, ap);

	if (n > 0)
		console_write(line, (size_t)n < sizeof(line) ? (size_t)n : sizeof(line) - 1);
}

void kprintf(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
}

/* ---- identity map: four 1 GiB blocks cover the 32-bit address space ---- */

#define RAM_BASE	0x40000000u
#define RAM_SIZE	0x40000000u	/* what the map calls RAM; -m 1G */

#define MAIR_IDX_DEVICE	0		/* Device-nGnRnE */
#define MAIR_IDX_NORMAL	1		/* Normal, write-back cacheable */
#define MAIR_VALUE	(0x00ull << (8 * MAIR_IDX_DEVICE) | 0xffull << (8 * MAIR_IDX_NORMAL))

#define DESC_BLOCK	1ull
#define DESC_ATTR(i)	((uint64_t)(i) << 2)
#define DESC_SH_INNER	(3ull << 8)
#define DESC_AF		(1ull << 10)
#define DESC_XN		(3ull << 53)	/* PXN, UXN */
#define BLOCK_RAM	(DESC_BLOCK | DESC_ATTR(MAIR_IDX_NORMAL) | DESC_SH_INNER | DESC_AF)
#define BLOCK_DEVICE	(DESC_BLOCK | DESC_ATTR(MAIR_IDX_DEVICE) | DESC_AF | DESC_XN)
#define GIB		(1ull << 30)

/* TCR_EL1: 32-bit VA (the walk starts at level 1), 4 KiB granule,
 * write-back inner-shareable walks, no TTBR1, 32-bit PA. */
#define TCR_VALUE	((64ull - 32) | 1ull << 8 | 1ull << 10 | 3ull << 12 | 1ull << 23)
#define SCTLR_M		(1ull << 0)
#define SCTLR_A		(1ull << 1)	/* alignment check: off, memcpy needs none */
#define SCTLR_C		(1ull << 2)
#define SCTLR_I		(1ull << 12)

/*
 * The library and the NPU model make no unaligned access (built with
 * -mstrict-align, as is this kernel) and the run gives the same output
 * with the MMU off under QEMU. The MMU is on all the same, as a kernel on
 * a board has it: with it off every access is Device memory, uncached, and
 * an unaligned one faults. 0-1 GiB: devices (UART); 1-2 GiB: RAM;
 * 3-4 GiB: devices, the NPU, CRU and PMU windows among them, which QEMU
 * does not back: an access there is a synchronous external abort (trap()).
 */
static uint64_t l1_table[4] __attribute__((aligned(32)));

static void mmu_on(void)
{
	uint64_t sctlr;

	l1_table[0] = 0 * GIB | BLOCK_DEVICE;
	l1_table[1] = 1 * GIB | BLOCK_RAM;
	l1_table[3] = 3 * GIB | BLOCK_DEVICE;
	__asm__ volatile("msr mair_el1, %0; msr tcr_el1, %1; msr ttbr0_el1, %2; isb;"
			 "tlbi vmalle1; dsb sy; isb"
			 : : "r"(MAIR_VALUE), "r"(TCR_VALUE), "r"(l1_table) : "memory");
	__asm__ volatile("mrs %0, sctlr_el1" : "=r"(sctlr));
	sctlr = (sctlr | SCTLR_M | SCTLR_C | SCTLR_I) & ~SCTLR_A;
	__asm__ volatile("msr sctlr_el1, %0; isb" : : "r"(sctlr) : "memory");
}

/* ---- the NPU model behind the unbacked windows (PORTING.md) ---- */

/* The windows the model answers (docs/PORTING.md, item 1). */
static const struct {
	uint64_t base, size;
} npu_windows[] = {
	{ 0xfdab0000, 3 * 0x10000 },	/* NPU cores 0-2 */
	{ 0xfd7c0000, 0x5c000 },	/* CRU */
	{ 0xfd8d8000, 0x400 },		/* PMU */
};

static struct sim_soc *npu_model;

static bool in_npu_window(uint64_t addr)
{
	for (size_t i = 0; i < sizeof(npu_windows) / sizeof(npu_windows[0]); i++)
		if (addr - npu_windows[i].base < npu_windows[i].size)
			return true;
	return false;
}

/* The model's DMA: NPU addresses are physical, RAM is identity-mapped. */
static uint8_t *npu_model_dma(void *ctx, uint64_t phys, size_t len)
{
	if (phys < RAM_BASE || phys - RAM_BASE > RAM_SIZE || len > RAM_SIZE - (phys - RAM_BASE))
		return NULL;
	return hal_phys_to_virt(phys);
}

/* struct trap_frame: what start.S saves (FRAME_* there). */
struct trap_frame {
	uint64_t x[31];
	uint64_t elr, spsr, esr, far, fpsr, fpcr;
	__uint128_t q[32];
};
_Static_assert(offsetof(struct trap_frame, elr) == 248, "FRAME_ELR in start.S");
_Static_assert(offsetof(struct trap_frame, q) == 304, "FRAME_Q in start.S");
_Static_assert(sizeof(struct trap_frame) == 816, "FRAME_SIZE in start.S");

#define VECTOR_SYNC_CURRENT_EL	4	/* current EL with SP_ELx, synchronous */
#define ESR_EC_SHIFT		26
#define ESR_EC_DABT_CURRENT_EL	0x25u
#define ESR_WNR			(1u << 6)
#define ESR_DFSC_MASK		0x3fu
#define DFSC_SYNC_EXTERNAL	0x10u
#define INSN_BYTES		4u

/* Every exception (start.S). Returns only after emulating an NPU access. */
void trap(struct trap_frame *f, unsigned int vector);
void trap(struct trap_frame *f, unsigned int vector)
{
	static bool crashed;

	if (vector == VECTOR_SYNC_CURRENT_EL && npu_model &&
	    f->esr >> ESR_EC_SHIFT == ESR_EC_DABT_CURRENT_EL &&
	    (f->esr & ESR_DFSC_MASK) == DFSC_SYNC_EXTERNAL && in_npu_window(f->far) &&
	    mmio_emulate(npu_model, f->far, *(const uint32_t *)(uintptr_t)f->elr,
			 f->esr & ESR_WNR, f->x) == 0) {
		f->elr += INSN_BYTES;	/* emulated: resume after the LDR/STR */
		return;
	}
	if (crashed)		/* a fault while reporting one */
		for (;;)
			__asm__ volatile("wfe");
	crashed = true;
	kprintf("second-kernel: exception (vector %u): ESR 0x%llx ELR 0x%llx FAR 0x%llx\n",
		vector, (unsigned long long)f->esr, (unsigned long long)f->elr,
		(unsigned long long)f->far);
	semihost_exit(1);
}

/* ---- main ---- */

int kmain(void);
int kmain(void)
{
	const struct sim_bus bus = { .map = npu_model_dma };
	const struct sim_config cfg = { .powered_at_reset = false };
	static struct npu_dev npu;
	static struct dma_pool pool;
	int err, status = 1;

	mmu_on();
	kprintf("second-kernel: up, heap %zu MiB, DMA region %zu MiB at 0x%llx\n",
		((uintptr_t)__heap_end - (uintptr_t)__heap_start) >> 20,
		((uintptr_t)__dma_end - (uintptr_t)__dma_start) >> 20,
		(unsigned long long)hal_virt_to_phys(__dma_start));

	npu_model = sim_soc_create(&bus, &cfg);	/* before npu_init() */
	if (!npu_model) {
		kprintf("second-kernel: cannot create the NPU model\n");
		return 1;
	}
	err = npu_init(&npu, &rk3588_npu_board);
	if (!err)
		err = npu_power_on(&npu, (1u << NPU_CORE_COUNT) - 1);
	if (err) {
		kprintf("second-kernel: NPU bring-up failed: %s\n", npu_strerror(err));
		return 1;
	}
	kprintf("second-kernel: NPU up, version 0x%08x\n", (unsigned int)npu.version);
	if (dma_pool_init_default(&pool) || rknn_matmul_bind(&npu, &pool)) {
		kprintf("second-kernel: no DMA memory for the NPU\n");
		goto power_off;
	}
	status = app_matmul(&npu, &pool) | app_model(&npu, &pool);
power_off:
	err = npu_power_off(&npu);
	if (err) {
		kprintf("second-kernel: NPU power-off failed: %s\n", npu_strerror(err));
		status = 1;
	}
	kprintf("second-kernel: %s\n", status ? "FAILED" : "done");
	return status;
}
