/* SPDX-License-Identifier: MIT */
/*
 * Host (test) build of the MMIO seam: every register access is routed to a
 * handler, normally the NPU model in sim/. Barriers are compiler fences.
 */
#ifndef RKBARE_HAL_ARCH_H
#define RKBARE_HAL_ARCH_H

#include <pthread.h>
#include <stdint.h>

uint32_t hal_read32(uintptr_t addr);
void hal_write32(uintptr_t addr, uint32_t value);

static inline void hal_mb(void)
{
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
}

static inline void hal_wmb(void)
{
	__atomic_thread_fence(__ATOMIC_RELEASE);
}

static inline void hal_rmb(void)
{
	__atomic_thread_fence(__ATOMIC_ACQUIRE);
}

/* The lock (hal.h): a POSIX mutex, so that ThreadSanitizer sees it. */
struct hal_lock {
	pthread_mutex_t mutex;
};

#define HAL_LOCK_INITIALIZER	{ PTHREAD_MUTEX_INITIALIZER }

/* Host-only: route MMIO to a device model. */
struct hal_host_mmio_ops {
	uint32_t (*read32)(void *ctx, uint64_t phys);
	void (*write32)(void *ctx, uint64_t phys, uint32_t value);
	void *ctx;
};

void hal_host_set_mmio(const struct hal_host_mmio_ops *ops);

/*
 * Host-only: the host models the 32-bit physical address space as one lazily
 * committed 4 GiB mapping, so phys → virt is base + phys. Returns its base.
 */
uint8_t *hal_host_phys_base(void);

/* Host-only: the DMA region handed out by hal_dma_region() (physical):
 * room for a 640×640 detector in fp16 (YOLOv5s: 274 MB of arena and
 * constants); the mapping is committed lazily, so room unused costs
 * nothing. */
#define HAL_HOST_DMA_PHYS	0x10000000u
#define HAL_HOST_DMA_SIZE	(1024u << 20)

/* Host-only: runtime log threshold (default: warnings and errors). */
enum hal_log_level;
void hal_host_set_log_level(enum hal_log_level level);

#endif /* RKBARE_HAL_ARCH_H */
