/* SPDX-License-Identifier: MIT */
/*
 * The second kernel's implementation of hal/hal.h (docs/PORTING.md,
 * items 2-5): cache maintenance, the generic timer, its identity map and
 * DMA region, and the log on its console.
 */
#include <stdarg.h>
#include <stdint.h>

#include "hal.h"
#include "kernel.h"

#define CTR_DMINLINE_SHIFT	16	/* log2 of the smallest D-cache line, in words */
#define CTR_DMINLINE_MASK	0xfu
#define US_PER_S		1000000u

size_t hal_dcache_line(void)
{
	uint64_t ctr;

	__asm__ volatile("mrs %0, ctr_el0" : "=r"(ctr));
	return sizeof(uint32_t) << (ctr >> CTR_DMINLINE_SHIFT & CTR_DMINLINE_MASK);
}

/* Each line of [addr, addr + size) to the Point of Coherency. */
#define DCACHE_RANGE(op, addr, size)						\
	do {									\
		uintptr_t line_ = hal_dcache_line();				\
		uintptr_t a_ = (uintptr_t)(addr) & ~(line_ - 1);		\
		for (; a_ < (uintptr_t)(addr) + (size); a_ += line_)		\
			__asm__ volatile("dc " op ", %0" : : "r"(a_) : "memory");	\
		__asm__ volatile("dsb sy" : : : "memory");			\
	} while (0)

void hal_dcache_clean(const void *addr, size_t size)
{
	DCACHE_RANGE("cvac", addr, size);
}

void hal_dcache_flush(void *addr, size_t size)
{
	DCACHE_RANGE("civac", addr, size);
}

void hal_dcache_invalidate(void *addr, size_t size)
{
	uintptr_t line = hal_dcache_line(), start = (uintptr_t)addr, end = start + size;

	if (!size)
		return;
	/* Lines shared with neighbouring data are cleaned first (hal.h). */
	if (start & (line - 1))
		hal_dcache_flush((void *)start, 1);
	if (end & (line - 1))
		hal_dcache_flush((void *)(end - 1), 1);
	DCACHE_RANGE("ivac", addr, size);
}

uint64_t hal_counter(void)
{
	uint64_t v;

	__asm__ volatile("isb; mrs %0, cntpct_el0" : "=r"(v) : : "memory");
	return v;
}

uint64_t hal_counter_freq(void)
{
	uint64_t v;

	__asm__ volatile("mrs %0, cntfrq_el0" : "=r"(v));
	return v;
}

uint64_t hal_time_us(void)
{
	uint64_t c = hal_counter(), f = hal_counter_freq();

	return c / f * US_PER_S + c % f * US_PER_S / f;	/* no overflow of c * 10^6 */
}

void hal_delay_us(uint32_t us)
{
	uint64_t end = hal_counter() + (uint64_t)us * hal_counter_freq() / US_PER_S + 1;

	while (hal_counter() < end)
		;
}

/* kernel.c maps RAM at its physical address. */
uint64_t hal_virt_to_phys(const void *addr)
{
	return (uintptr_t)addr;
}

void *hal_phys_to_virt(uint64_t phys)
{
	return (void *)(uintptr_t)phys;
}

int hal_dma_region(void **base, size_t *size)
{
	*base = __dma_start;
	*size = (uintptr_t)__dma_end - (uintptr_t)__dma_start;
	return 0;
}

void hal_log(enum hal_log_level level, const char *fmt, ...)
{
	static const char *const prefix[] = { "error: ", "warning: ", "", "debug: " };
	va_list ap;

	if (level >= HAL_LOG_ERR && level <= HAL_LOG_DEBUG)
		console_write(prefix[level], strlen(prefix[level]));
	va_start(ap, fmt);
	kvprintf(fmt, ap);
	va_end(ap);
	console_write("\n", 1);
}

/* Locks: a test-and-set spinlock in the storage's first word. This kernel
 * runs on one CPU, so a lock is never found taken; the loop is what a
 * kernel with more CPUs needs. */
void hal_lock_init(struct hal_lock *lock)
{
	*lock = (struct hal_lock)HAL_LOCK_INITIALIZER;
}

void hal_lock(struct hal_lock *lock)
{
	while (__atomic_exchange_n(&lock->word[0], 1, __ATOMIC_ACQUIRE))
		__asm__ volatile("wfe");
}

void hal_unlock(struct hal_lock *lock)
{
	__atomic_store_n(&lock->word[0], 0, __ATOMIC_RELEASE);
	__asm__ volatile("sev");
}
