/* SPDX-License-Identifier: MIT */
/*
 * The second kernel's MMIO accessors and barriers (docs/PORTING.md, item 1),
 * for its own code that includes hal.h. librkbare_kernel.a was compiled
 * with the image's accessors already inlined; what matters for it is the
 * form they take, which this file keeps: one 32-bit LDR or STR with a plain
 * register address, so an access to an unbacked NPU window under QEMU
 * traps with an instruction the library's decoder takes.
 */
#ifndef SECOND_KERNEL_HAL_ARCH_H
#define SECOND_KERNEL_HAL_ARCH_H

#include <stdint.h>

static inline uint32_t hal_read32(uintptr_t addr)
{
	uint32_t v;

	__asm__ volatile("ldr %w0, [%1]" : "=r"(v) : "r"(addr) : "memory");
	return v;
}

static inline void hal_write32(uintptr_t addr, uint32_t value)
{
	__asm__ volatile("str %w0, [%1]" : : "rZ"(value), "r"(addr) : "memory");
}

static inline void hal_mb(void)
{
	__asm__ volatile("dsb sy" : : : "memory");
}

static inline void hal_wmb(void)
{
	__asm__ volatile("dsb st" : : : "memory");
}

static inline void hal_rmb(void)
{
	__asm__ volatile("dsb ld" : : : "memory");
}

/*
 * The lock storage librkbare_kernel.a was compiled with (docs/PORTING.md,
 * "Concurrency"): 64 bytes, 8-byte aligned, zero when unlocked. This
 * kernel keeps its spinlock in the first word.
 */
#define HAL_LOCK_WORDS	8u

struct hal_lock {
	uint64_t word[HAL_LOCK_WORDS];
};

#define HAL_LOCK_INITIALIZER	{ { 0 } }

#endif /* SECOND_KERNEL_HAL_ARCH_H */
