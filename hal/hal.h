/* SPDX-License-Identifier: MIT */
/*
 * rkbare porting interface.
 *
 * Everything in drivers/ and runtime/ touches the machine only through the
 * functions declared here. An environment (bare-metal aarch64, the host test
 * build, or another kernel) provides all of them; a missing one is a link
 * error, never a silent run-time failure. docs/PORTING.md is the checklist.
 *
 * Addresses:
 *  - MMIO accessors take the CPU virtual address of a 32-bit register.
 *  - DMA addresses given to the NPU are 32-bit physical addresses
 *    (no IOMMU in the default set-up); hal_virt_to_phys() converts.
 */
#ifndef RKBARE_HAL_H
#define RKBARE_HAL_H

#include <stddef.h>
#include <stdint.h>

/* Per-environment inline MMIO accessors and barriers: hal_arch.h is found
 * through the include path (hal/aarch64 or hal/host). It defines:
 *   uint32_t hal_read32(uintptr_t addr);
 *   void     hal_write32(uintptr_t addr, uint32_t value);
 *   void     hal_mb(void);    full barrier, orders memory, cache maintenance and MMIO
 *   void     hal_wmb(void);   orders earlier stores before later stores/MMIO writes
 *   void     hal_rmb(void);   orders an MMIO read before later loads
 *   struct hal_lock, HAL_LOCK_INITIALIZER   the lock type (see "locks")
 */
#include "hal_arch.h"

/* ---- cache maintenance to the Point of Coherency (non-coherent NPU) ---- */

/* CPU wrote, device will read: clean the range. */
void hal_dcache_clean(const void *addr, size_t size);
/* Device wrote, CPU will read: invalidate the range (partial lines at the
 * ends are cleaned and invalidated so neighbouring data survives). */
void hal_dcache_invalidate(void *addr, size_t size);
/* Both directions. */
void hal_dcache_flush(void *addr, size_t size);
/* Data cache line size in bytes (CTR_EL0.DminLine on aarch64). */
size_t hal_dcache_line(void);

/* ---- time ---- */

/* Monotonic counter and its frequency in Hz. */
uint64_t hal_counter(void);
uint64_t hal_counter_freq(void);
/* Monotonic microseconds since an arbitrary origin. */
uint64_t hal_time_us(void);
/* Busy-wait at least `us` microseconds. */
void hal_delay_us(uint32_t us);

/* ---- memory ---- */

/* Physical address (as the NPU sees it) of a CPU pointer, and back. */
uint64_t hal_virt_to_phys(const void *addr);
void *hal_phys_to_virt(uint64_t phys);

/*
 * The physically contiguous region the DMA pool carves NPU buffers from.
 * It must lie below 4 GiB (NPU address fields are 32 bits). Returns 0 and
 * fills *base (CPU pointer) and *size, or a negative errno.
 */
int hal_dma_region(void **base, size_t *size);

/* ---- locks ---- */

/*
 * Mutual exclusion between CPUs (docs/PORTING.md "Concurrency"). The
 * environment's hal_arch.h defines struct hal_lock and
 * HAL_LOCK_INITIALIZER, the unlocked state of a static lock; hal_lock_init
 * puts any other storage in that state before its first use. A lock owns
 * nothing beyond its storage: the runtime frees memory holding an
 * unlocked lock without a destroy call.
 *
 * The runtime holds a lock only for bookkeeping (a table entry, the DMA
 * pool's block list, claiming NPU cores), never while the NPU runs, and
 * never takes one it holds: a spinlock is enough and a sleeping mutex is
 * fine. Locks nest only in the order of docs/PORTING.md. Nothing in
 * a critical section sleeps, except the first bring-up of the default
 * device, which polls the power domains (milliseconds) under its lock.
 * If the kernel calls npu_submit_poll() from an interrupt handler, the
 * lock must also keep that interrupt off the CPU that holds it.
 */
void hal_lock_init(struct hal_lock *lock);
void hal_lock(struct hal_lock *lock);
void hal_unlock(struct hal_lock *lock);

/* ---- log ---- */

enum hal_log_level {
	HAL_LOG_NONE = -1,	/* threshold only: log nothing */
	HAL_LOG_ERR = 0,
	HAL_LOG_WARN = 1,
	HAL_LOG_INFO = 2,
	HAL_LOG_DEBUG = 3,
};

void hal_log(enum hal_log_level level, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* LOG_LEVEL compiles out everything more verbose than it. */
#ifndef LOG_LEVEL
#define LOG_LEVEL HAL_LOG_INFO
#endif

#define hal_err(...) \
	do { if (LOG_LEVEL >= HAL_LOG_ERR) hal_log(HAL_LOG_ERR, __VA_ARGS__); } while (0)
#define hal_warn(...) \
	do { if (LOG_LEVEL >= HAL_LOG_WARN) hal_log(HAL_LOG_WARN, __VA_ARGS__); } while (0)
#define hal_info(...) \
	do { if (LOG_LEVEL >= HAL_LOG_INFO) hal_log(HAL_LOG_INFO, __VA_ARGS__); } while (0)
#define hal_dbg(...) \
	do { if (LOG_LEVEL >= HAL_LOG_DEBUG) hal_log(HAL_LOG_DEBUG, __VA_ARGS__); } while (0)

/*
 * Poll a 32-bit register until (value & mask) == want or timeout_us passes.
 * Returns 0 on success, -ETIMEDOUT otherwise; *last gets the last value read
 * (may be NULL). Every wait on hardware in rkbare goes through this.
 */
int hal_poll32(uintptr_t addr, uint32_t mask, uint32_t want,
	       uint32_t timeout_us, uint32_t *last);

#endif /* RKBARE_HAL_H */
