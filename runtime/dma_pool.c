/* SPDX-License-Identifier: MIT */
/*
 * First-fit allocator over a sorted block table. Free neighbours are merged
 * on every free, so the table never holds two adjacent free blocks.
 */
#include <errno.h>
#include <string.h>

#include "hal.h"
#include "runtime/dma_pool.h"

#define NPU_ADDR_LIMIT (1ull << 32)	/* NPU address fields are 32 bits */

static int is_pow2(size_t v)
{
	return v && !(v & (v - 1));
}

static size_t align_up(size_t v, size_t a)
{
	return (v + a - 1) & ~(a - 1);
}

int dma_pool_init(struct dma_pool *pool, void *base, uint64_t phys_base, size_t size)
{
	if (!pool || !base || size < DMA_POOL_MIN_ALIGN) {
		hal_err("dma_pool: empty region");
		return -EINVAL;
	}
	if (phys_base % DMA_POOL_MIN_ALIGN) {
		hal_err("dma_pool: region 0x%llx not %u-byte aligned",
			(unsigned long long)phys_base, DMA_POOL_MIN_ALIGN);
		return -EINVAL;
	}
	if (phys_base + size > NPU_ADDR_LIMIT) {
		hal_err("dma_pool: region 0x%llx+0x%zx ends above 4 GiB; the NPU cannot address it",
			(unsigned long long)phys_base, size);
		return -EINVAL;
	}
	memset(pool, 0, sizeof(*pool));
	hal_lock_init(&pool->lock);
	pool->base = base;
	pool->phys_base = phys_base;
	pool->size = size & ~(size_t)(DMA_POOL_MIN_ALIGN - 1);
	pool->nblocks = 1;
	pool->blocks[0].offset = 0;
	pool->blocks[0].size = pool->size;
	pool->blocks[0].used = 0;
	return 0;
}

int dma_pool_init_default(struct dma_pool *pool)
{
	void *base;
	size_t size;
	int ret = hal_dma_region(&base, &size);

	if (ret) {
		hal_err("dma_pool: the environment provides no DMA region (%d)", ret);
		return ret;
	}
	return dma_pool_init(pool, base, hal_virt_to_phys(base), size);
}

/* Split block i at rel (0 < rel < size): the tail becomes block i + 1. */
static int split_block(struct dma_pool *pool, unsigned i, size_t rel)
{
	if (pool->nblocks == DMA_POOL_MAX_BLOCKS)
		return -ENOSPC;
	memmove(&pool->blocks[i + 2], &pool->blocks[i + 1],
		(pool->nblocks - i - 1) * sizeof(pool->blocks[0]));
	pool->blocks[i + 1].offset = pool->blocks[i].offset + rel;
	pool->blocks[i + 1].size = pool->blocks[i].size - rel;
	pool->blocks[i + 1].used = pool->blocks[i].used;
	pool->blocks[i].size = rel;
	pool->nblocks++;
	return 0;
}

static void remove_block(struct dma_pool *pool, unsigned i)
{
	memmove(&pool->blocks[i], &pool->blocks[i + 1],
		(pool->nblocks - i - 1) * sizeof(pool->blocks[0]));
	pool->nblocks--;
}

/* Blocks needed beyond the one found: a front gap and/or a tail. */
static unsigned extra_blocks(size_t pad, size_t tail)
{
	return (pad != 0) + (tail != 0);
}

static int alloc_locked(struct dma_pool *pool, size_t size, size_t align, struct dma_buf *buf)
{
	if (size > pool->size) {
		pool->failed++;
		hal_err("dma_pool: %zu bytes requested, pool holds %zu", size, pool->size);
		return -ENOMEM;
	}
	size = align_up(size, DMA_POOL_MIN_ALIGN);

	for (unsigned i = 0; i < pool->nblocks; i++) {
		struct dma_block *b = &pool->blocks[i];
		uint64_t start_phys, aligned_phys;
		size_t pad, tail;

		if (b->used)
			continue;
		start_phys = pool->phys_base + b->offset;
		aligned_phys = (start_phys + align - 1) & ~(uint64_t)(align - 1);
		pad = (size_t)(aligned_phys - start_phys);
		if (pad > b->size || b->size - pad < size)
			continue;
		tail = b->size - pad - size;
		if (pool->nblocks + extra_blocks(pad, tail) > DMA_POOL_MAX_BLOCKS) {
			hal_err("dma_pool: bookkeeping full (%u blocks)", DMA_POOL_MAX_BLOCKS);
			return -ENOSPC;
		}
		if (pad) {
			split_block(pool, i, pad);
			i++;
		}
		if (tail)
			split_block(pool, i, size);
		b = &pool->blocks[i];
		b->used = 1;
		pool->used += size;
		if (pool->used > pool->peak_used)
			pool->peak_used = pool->used;
		buf->cpu = pool->base + b->offset;
		buf->phys = (uint32_t)(pool->phys_base + b->offset);
		buf->size = size;
		return 0;
	}
	pool->failed++;
	hal_err("dma_pool: out of memory: %zu bytes aligned to %zu requested, %zu of %zu bytes free",
		size, align, pool->size - pool->used, pool->size);
	return -ENOMEM;
}

int dma_pool_alloc(struct dma_pool *pool, size_t size, size_t align, struct dma_buf *buf)
{
	int ret;

	if (!pool || !buf || size == 0) {
		hal_err("dma_pool: zero-size allocation");
		return -EINVAL;
	}
	if (!is_pow2(align) && align != 0) {
		hal_err("dma_pool: alignment %zu is not a power of two", align);
		return -EINVAL;
	}
	if (align < DMA_POOL_MIN_ALIGN)
		align = DMA_POOL_MIN_ALIGN;
	hal_lock(&pool->lock);
	ret = alloc_locked(pool, size, align, buf);
	hal_unlock(&pool->lock);
	return ret;
}

static int free_locked(struct dma_pool *pool, const struct dma_buf *buf)
{
	size_t offset;
	unsigned lo = 0, hi;

	if ((uint8_t *)buf->cpu < pool->base ||
	    (uint8_t *)buf->cpu >= pool->base + pool->size) {
		hal_err("dma_pool: free of a buffer outside the pool");
		return -EINVAL;
	}
	offset = (size_t)((uint8_t *)buf->cpu - pool->base);

	/* Binary search: blocks are sorted by offset. */
	hi = pool->nblocks;
	while (lo < hi) {
		unsigned mid = (lo + hi) / 2;

		if (pool->blocks[mid].offset < offset)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == pool->nblocks || pool->blocks[lo].offset != offset) {
		hal_err("dma_pool: free of 0x%x, which is not the start of an allocation", buf->phys);
		return -EINVAL;
	}
	if (!pool->blocks[lo].used) {
		hal_err("dma_pool: double free of 0x%x", buf->phys);
		return -EINVAL;
	}

	pool->blocks[lo].used = 0;
	pool->used -= pool->blocks[lo].size;
	if (lo + 1 < pool->nblocks && !pool->blocks[lo + 1].used) {
		pool->blocks[lo].size += pool->blocks[lo + 1].size;
		remove_block(pool, lo + 1);
	}
	if (lo > 0 && !pool->blocks[lo - 1].used) {
		pool->blocks[lo - 1].size += pool->blocks[lo].size;
		remove_block(pool, lo);
	}
	return 0;
}

int dma_pool_free(struct dma_pool *pool, const struct dma_buf *buf)
{
	int ret;

	if (!pool || !buf) {
		hal_err("dma_pool: free of a buffer outside the pool");
		return -EINVAL;
	}
	hal_lock(&pool->lock);
	ret = free_locked(pool, buf);
	hal_unlock(&pool->lock);
	return ret;
}

void dma_pool_release(struct dma_pool *pool, struct dma_buf *buf)
{
	if (buf->cpu)
		dma_pool_free(pool, buf);
	*buf = (struct dma_buf){ 0 };
}

void dma_pool_reset_peak(struct dma_pool *pool)
{
	hal_lock(&pool->lock);
	pool->peak_used = pool->used;
	hal_unlock(&pool->lock);
}

void dma_pool_get_stats(struct dma_pool *pool, struct dma_pool_stats *stats)
{
	memset(stats, 0, sizeof(*stats));
	hal_lock(&pool->lock);
	stats->total = pool->size;
	stats->used = pool->used;
	stats->peak_used = pool->peak_used;
	stats->failed = pool->failed;
	for (unsigned i = 0; i < pool->nblocks; i++) {
		const struct dma_block *b = &pool->blocks[i];

		if (b->used) {
			stats->live++;
		} else {
			stats->free_blocks++;
			if (b->size > stats->largest_free)
				stats->largest_free = b->size;
		}
	}
	hal_unlock(&pool->lock);
}
