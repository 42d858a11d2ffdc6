/* SPDX-License-Identifier: MIT */
/*
 * aarch64 MMIO accessors and barriers.
 *
 * Each accessor compiles to exactly one `ldr w`/`str w` with an immediate
 * offset and no writeback: on the QEMU board the NPU/PMU/CRU windows are
 * unmapped and the data-abort handler decodes precisely these forms
 * (HARDWARE.md §B.5). Do not "optimise" them into other forms.
 */
#ifndef RKBARE_HAL_ARCH_H
#define RKBARE_HAL_ARCH_H

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
 * The lock (hal.h). In librkbare_kernel.a, built with this header, it is
 * this storage, which the kernel's hal_lock_init / hal_lock / hal_unlock
 * own: 64 bytes, 8-byte aligned, all zero when unlocked (static locks are
 * zero-initialised). A kernel spinlock fits in place; a kernel whose lock
 * needs more keeps a pointer to it there.
 */
#define HAL_LOCK_WORDS	8u

struct hal_lock {
	uint64_t word[HAL_LOCK_WORDS];
};

#define HAL_LOCK_INITIALIZER	{ { 0 } }

#endif /* RKBARE_HAL_ARCH_H */
