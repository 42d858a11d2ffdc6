/* SPDX-License-Identifier: MIT */
/*
 * Physically contiguous allocator for NPU buffers.
 *
 * The pool carves one region (from hal_dma_region(), or any caller-given
 * range) into blocks. Block bookkeeping lives outside the region, so a
 * misbehaving NPU job that scribbles over its buffers cannot corrupt the
 * allocator. All NPU address fields are 32 bits, so the region must end at
 * or below 4 GiB physical.
 *
 * Every function but dma_pool_init takes the pool's lock: contexts on
 * several CPUs allocate from one pool.
 */
#ifndef RKBARE_DMA_POOL_H
#define RKBARE_DMA_POOL_H

#include <stddef.h>
#include <stdint.h>

#include "hal.h"

/* Smallest alignment handed out: one D-cache line on every RK3588 core
 * (HARDWARE.md §B.1), so cache maintenance never touches a neighbour. */
#define DMA_POOL_MIN_ALIGN	64u
#define DMA_POOL_PAGE_ALIGN	4096u
/* Bookkeeping capacity: free and used blocks together. */
#define DMA_POOL_MAX_BLOCKS	512u

struct dma_buf {
	void *cpu;		/* CPU pointer */
	uint32_t phys;		/* address as the NPU sees it */
	size_t size;		/* bytes requested, rounded up to DMA_POOL_MIN_ALIGN */
};

struct dma_pool_stats {
	size_t total;		/* bytes managed */
	size_t used;		/* bytes in live allocations */
	size_t peak_used;
	size_t largest_free;	/* largest free block (before alignment) */
	unsigned live;		/* live allocations */
	unsigned free_blocks;	/* fragments of free space */
	unsigned failed;	/* allocations refused for lack of space */
};

struct dma_block {
	size_t offset;
	size_t size;
	int used;
};

struct dma_pool {
	struct hal_lock lock;	/* the fields below */
	uint8_t *base;
	uint64_t phys_base;
	size_t size;
	unsigned nblocks;	/* blocks[0..nblocks) sorted by offset, covering the region */
	struct dma_block blocks[DMA_POOL_MAX_BLOCKS];
	size_t used;
	size_t peak_used;
	unsigned failed;
};

/* Manage [base, base + size); phys_base is its physical address.
 * -EINVAL if the range is empty, misaligned or crosses 4 GiB. Not while
 * another CPU uses the pool. */
int dma_pool_init(struct dma_pool *pool, void *base, uint64_t phys_base, size_t size);

/* Manage the environment's DMA region (hal_dma_region()). */
int dma_pool_init_default(struct dma_pool *pool);

/*
 * Allocate size bytes aligned to align (a power of two; values below
 * DMA_POOL_MIN_ALIGN are raised to it). 0 on success, -EINVAL for a bad
 * argument, -ENOMEM when no free block fits, -ENOSPC when the bookkeeping
 * table is full. The contents are not cleared.
 */
int dma_pool_alloc(struct dma_pool *pool, size_t size, size_t align, struct dma_buf *buf);

/* Return a buffer. -EINVAL for a buffer this pool did not hand out or one
 * already freed (double free); the pool is unchanged then. */
int dma_pool_free(struct dma_pool *pool, const struct dma_buf *buf);
/* Return buf if it holds memory (an empty buffer is left alone), and
 * empty it, so that releasing it again does nothing. */
void dma_pool_release(struct dma_pool *pool, struct dma_buf *buf);

void dma_pool_get_stats(struct dma_pool *pool, struct dma_pool_stats *stats);
/* Start peak_used again from the bytes in use now (to measure one step). */
void dma_pool_reset_peak(struct dma_pool *pool);

#endif /* RKBARE_DMA_POOL_H */
