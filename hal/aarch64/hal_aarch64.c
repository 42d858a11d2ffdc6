/* SPDX-License-Identifier: MIT */
/*
 * The porting interface on bare-metal aarch64: cache maintenance by VA to
 * the Point of Coherency, the generic timer, identity virt↔phys, the DMA
 * region chosen by boot/, and the log on the console (picolibc stdio).
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "hal.h"
#include "hal_aarch64.h"
#include "sysreg.h"

#define USEC_PER_SEC	1000000u

static void *dma_base;
static size_t dma_size;

/* ---- cache maintenance (HARDWARE.md §B.6) ---- */

size_t hal_dcache_line(void)
{
	uint64_t ctr = read_sysreg(ctr_el0);

	/* DminLine is log2 of the line size in 4-byte words. */
	return (size_t)4 << ((ctr >> CTR_DMINLINE_SHIFT) & CTR_DMINLINE_MASK);
}

static inline void dc_cvac(uintptr_t a)
{
	__asm__ volatile("dc cvac, %0" : : "r"(a) : "memory");
}

static inline void dc_ivac(uintptr_t a)
{
	__asm__ volatile("dc ivac, %0" : : "r"(a) : "memory");
}

static inline void dc_civac(uintptr_t a)
{
	__asm__ volatile("dc civac, %0" : : "r"(a) : "memory");
}

void hal_dcache_clean(const void *addr, size_t size)
{
	uintptr_t line = hal_dcache_line();
	uintptr_t end = (uintptr_t)addr + size;
	uintptr_t a;

	if (!size)
		return;
	for (a = (uintptr_t)addr & ~(line - 1); a < end; a += line)
		dc_cvac(a);
	/* DSB, not DMB: the device may only start after the clean finished. */
	hal_mb();
}

void hal_dcache_invalidate(void *addr, size_t size)
{
	uintptr_t line = hal_dcache_line();
	uintptr_t start = (uintptr_t)addr;
	uintptr_t end = start + size;
	uintptr_t a;

	if (!size)
		return;
	for (a = start & ~(line - 1); a < end; a += line) {
		/* A line shared with data outside the range is cleaned too,
		 * so the neighbours' dirty bytes are not thrown away. */
		if (a < start || a + line > end)
			dc_civac(a);
		else
			dc_ivac(a);
	}
	hal_mb();
}

void hal_dcache_flush(void *addr, size_t size)
{
	uintptr_t line = hal_dcache_line();
	uintptr_t end = (uintptr_t)addr + size;
	uintptr_t a;

	if (!size)
		return;
	for (a = (uintptr_t)addr & ~(line - 1); a < end; a += line)
		dc_civac(a);
	hal_mb();
}

/* ---- time: the generic timer's physical counter ---- */

uint64_t hal_counter(void)
{
	/* Without the ISB the counter may be read ahead of earlier code. */
	isb();
	return read_sysreg(cntpct_el0);
}

uint64_t hal_counter_freq(void)
{
	return read_sysreg(cntfrq_el0);
}

uint64_t hal_time_us(void)
{
	uint64_t cnt = hal_counter();
	uint64_t freq = hal_counter_freq();

	/* Split so that cnt * 10^6 cannot overflow. */
	return cnt / freq * USEC_PER_SEC + cnt % freq * USEC_PER_SEC / freq;
}

void hal_delay_us(uint32_t us)
{
	uint64_t freq = hal_counter_freq();
	uint64_t ticks = ((uint64_t)us * freq + USEC_PER_SEC - 1) / USEC_PER_SEC;
	uint64_t start = hal_counter();

	while (hal_counter() - start < ticks)
		;
}

/* ---- memory: identity map (boot/mmu.c) ---- */

uint64_t hal_virt_to_phys(const void *addr)
{
	return (uint64_t)(uintptr_t)addr;
}

void *hal_phys_to_virt(uint64_t phys)
{
	return (void *)(uintptr_t)phys;
}

void hal_aarch64_set_dma_region(void *base, size_t size)
{
	dma_base = base;
	dma_size = size;
}

int hal_dma_region(void **base, size_t *size)
{
	if (!dma_size)
		return -ENOMEM;
	*base = dma_base;
	*size = dma_size;
	return 0;
}

/* ---- locks ---- */

/*
 * A test-and-set spinlock on the first word: an acquiring exchange
 * (LDAXR/STXR through the exclusive monitor, or LSE's SWPA; boot/mmu.c maps
 * RAM cacheable, which both need) and a releasing store. The image runs on
 * one CPU and takes no lock in an interrupt handler, so a lock found taken
 * can never be given back: that is the runtime re-entering its own lock,
 * reported before the CPU spins on it.
 */
void hal_lock_init(struct hal_lock *lock)
{
	*lock = (struct hal_lock)HAL_LOCK_INITIALIZER;
}

void hal_lock(struct hal_lock *lock)
{
	if (!__atomic_exchange_n(&lock->word[0], 1u, __ATOMIC_ACQUIRE))
		return;
	hal_err("hal_lock: lock %p is already held on the only CPU: re-entered, it can never "
		"be given back", (void *)lock);
	while (__atomic_exchange_n(&lock->word[0], 1u, __ATOMIC_ACQUIRE))
		__asm__ volatile("wfe" : : : "memory");
}

void hal_unlock(struct hal_lock *lock)
{
	__atomic_store_n(&lock->word[0], 0u, __ATOMIC_RELEASE);
	__asm__ volatile("sev" : : : "memory");	/* wake a CPU waiting in wfe */
}

/* ---- log ---- */

void hal_log(enum hal_log_level level, const char *fmt, ...)
{
	static const char *const tag[] = { "E", "W", "I", "D" };
	va_list ap;

	if ((unsigned int)level > HAL_LOG_DEBUG)
		level = HAL_LOG_DEBUG;
	printf("[%s] ", tag[level]);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
}
