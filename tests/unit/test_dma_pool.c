/* SPDX-License-Identifier: MIT */
/*
 * DMA pool tests. The randomized stress test checks the allocator against
 * an independent model of the region: a bitmap of 64-byte granules. Every
 * allocation must be aligned, inside the region and on free granules;
 * every refusal must be justified by the bitmap; after every operation the
 * pool's statistics (bytes used, number of free fragments = maximal free
 * runs, so coalescing is complete) must match the bitmap.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "hal.h"
#include "runtime/dma_pool.h"

#define GRANULE DMA_POOL_MIN_ALIGN
#define STRESS_SEED 0x5eed1234u
#define STRESS_OPS 20000
#define STRESS_POOL (1u << 20)
#define STRESS_PHYS 0x20000040ull	/* deliberately not 4 KiB aligned */
/* Live allocations + the free gaps between them stay within the block
 * table: 2 * live + 1 <= DMA_POOL_MAX_BLOCKS. */
#define STRESS_MAX_LIVE ((DMA_POOL_MAX_BLOCKS - 1) / 2)

static struct dma_pool pool;

static uint32_t rng_state;

static uint32_t rng(void)
{
	/* xorshift32: small, fixed, reproducible */
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 17;
	rng_state ^= rng_state << 5;
	return rng_state;
}

static void *region_alloc(size_t size)
{
	void *p = aligned_alloc(4096, size);

	assert_non_null(p);
	return p;
}

static void test_init_rejects_bad_regions(void **state)
{
	uint8_t *mem = region_alloc(8192);

	(void)state;
	assert_int_equal(dma_pool_init(&pool, mem, 0xFFFFF000ull, 8192), -EINVAL);
	assert_int_equal(dma_pool_init(&pool, mem, 0x1000 + 4, 4096), -EINVAL);
	assert_int_equal(dma_pool_init(&pool, mem, 0x1000, 0), -EINVAL);
	assert_int_equal(dma_pool_init(&pool, NULL, 0x1000, 4096), -EINVAL);
	assert_int_equal(dma_pool_init(&pool, mem, 0xFFFFE000ull, 8192), 0);
	free(mem);
}

static void test_bad_arguments(void **state)
{
	uint8_t *mem = region_alloc(65536);
	struct dma_buf b;

	(void)state;
	assert_int_equal(dma_pool_init(&pool, mem, 0x10000000, 65536), 0);
	assert_int_equal(dma_pool_alloc(&pool, 0, 64, &b), -EINVAL);
	assert_int_equal(dma_pool_alloc(&pool, 100, 96, &b), -EINVAL);
	assert_int_equal(dma_pool_alloc(&pool, 65536 + 1, 64, &b), -ENOMEM);
	free(mem);
}

static void test_alignment_and_min_size(void **state)
{
	uint8_t *mem = region_alloc(65536);
	struct dma_buf a, b;

	(void)state;
	assert_int_equal(dma_pool_init(&pool, mem, 0x10000000, 65536), 0);
	assert_int_equal(dma_pool_alloc(&pool, 1, 0, &a), 0);
	assert_int_equal(a.phys % 64, 0);
	assert_int_equal(a.size, 64);
	assert_int_equal(dma_pool_alloc(&pool, 10, 4096, &b), 0);
	assert_int_equal(b.phys % 4096, 0);
	assert_ptr_equal((uint8_t *)b.cpu - mem, b.phys - 0x10000000u);
	assert_int_equal(dma_pool_free(&pool, &a), 0);
	assert_int_equal(dma_pool_free(&pool, &b), 0);
	free(mem);
}

static void test_double_free_and_foreign_free(void **state)
{
	uint8_t *mem = region_alloc(65536);
	struct dma_buf a, inner, outside = { .cpu = mem + 65536, .phys = 0, .size = 64 };
	struct dma_pool_stats st;

	(void)state;
	assert_int_equal(dma_pool_init(&pool, mem, 0x10000000, 65536), 0);
	assert_int_equal(dma_pool_alloc(&pool, 256, 64, &a), 0);
	inner = a;
	inner.cpu = (uint8_t *)a.cpu + 64;
	assert_int_equal(dma_pool_free(&pool, &inner), -EINVAL);
	assert_int_equal(dma_pool_free(&pool, &outside), -EINVAL);
	assert_int_equal(dma_pool_free(&pool, &a), 0);
	assert_int_equal(dma_pool_free(&pool, &a), -EINVAL);
	dma_pool_get_stats(&pool, &st);
	assert_int_equal(st.used, 0);
	assert_int_equal(st.free_blocks, 1);
	free(mem);
}

static void test_exhaustion_then_reuse(void **state)
{
	uint8_t *mem = region_alloc(4096);
	struct dma_buf bufs[64], extra;
	struct dma_pool_stats st;

	(void)state;
	assert_int_equal(dma_pool_init(&pool, mem, 0x10000000, 4096), 0);
	for (int i = 0; i < 64; i++)
		assert_int_equal(dma_pool_alloc(&pool, 64, 64, &bufs[i]), 0);
	assert_int_equal(dma_pool_alloc(&pool, 64, 64, &extra), -ENOMEM);
	dma_pool_get_stats(&pool, &st);
	assert_int_equal(st.used, 4096);
	assert_int_equal(st.failed, 1);
	assert_int_equal(st.live, 64);
	/* Free every other buffer: 32 holes of 64 bytes, none fits 128. */
	for (int i = 0; i < 64; i += 2)
		assert_int_equal(dma_pool_free(&pool, &bufs[i]), 0);
	assert_int_equal(dma_pool_alloc(&pool, 128, 64, &extra), -ENOMEM);
	/* Free one neighbour: a 192-byte run appears. */
	assert_int_equal(dma_pool_free(&pool, &bufs[1]), 0);
	assert_int_equal(dma_pool_alloc(&pool, 128, 64, &extra), 0);
	assert_ptr_equal(extra.cpu, bufs[0].cpu);
	dma_pool_get_stats(&pool, &st);
	assert_int_equal(st.peak_used, 4096);
	free(mem);
}

static void test_bookkeeping_full(void **state)
{
	size_t size = 2 * DMA_POOL_MAX_BLOCKS * GRANULE;
	uint8_t *mem = region_alloc(size);
	struct dma_buf b;
	struct dma_pool_stats st;

	(void)state;
	assert_int_equal(dma_pool_init(&pool, mem, 0x10000000, size), 0);
	/* Each allocation splits the free tail: used blocks + 1 free tail. */
	for (unsigned i = 0; i < DMA_POOL_MAX_BLOCKS - 1; i++)
		assert_int_equal(dma_pool_alloc(&pool, GRANULE, 0, &b), 0);
	assert_int_equal(dma_pool_alloc(&pool, GRANULE, 0, &b), -ENOSPC);
	dma_pool_get_stats(&pool, &st);
	assert_int_equal(st.live, DMA_POOL_MAX_BLOCKS - 1);
	assert_int_equal(st.used, (DMA_POOL_MAX_BLOCKS - 1) * GRANULE);
	/* The whole tail still fits without a split. */
	assert_int_equal(dma_pool_alloc(&pool, size - st.used, 0, &b), 0);
	free(mem);
}

/* ---- randomized stress against the granule bitmap ---- */

struct live_buf {
	struct dma_buf buf;
	uint8_t tag;
};

static uint8_t granule_used[STRESS_POOL / GRANULE];

static int ref_has_fit(size_t size, size_t align)
{
	size_t need = (size + GRANULE - 1) / GRANULE;

	for (size_t g = 0; g + need <= STRESS_POOL / GRANULE; g++) {
		uint64_t phys = STRESS_PHYS + g * GRANULE;
		size_t k;

		if (phys % align)
			continue;
		for (k = 0; k < need && !granule_used[g + k]; k++)
			;
		if (k == need)
			return 1;
	}
	return 0;
}

static void ref_check_stats(void)
{
	struct dma_pool_stats st;
	size_t used = 0;
	unsigned runs = 0;

	for (size_t g = 0; g < STRESS_POOL / GRANULE; g++) {
		used += granule_used[g] ? GRANULE : 0;
		if (!granule_used[g] && (g == 0 || granule_used[g - 1]))
			runs++;
	}
	dma_pool_get_stats(&pool, &st);
	assert_int_equal(st.used, used);
	assert_int_equal(st.free_blocks, runs);
	assert_int_equal(st.total, STRESS_POOL);
}

static void ref_mark(const struct dma_buf *b, uint8_t v)
{
	size_t first = (b->phys - STRESS_PHYS) / GRANULE;

	for (size_t g = 0; g < b->size / GRANULE; g++) {
		assert_int_not_equal(granule_used[first + g], v);
		granule_used[first + g] = v;
	}
}

static void test_random_stress_against_reference(void **state)
{
	static const size_t aligns[] = { 0, 64, 128, 256, 1024, 4096 };
	static struct live_buf live[STRESS_MAX_LIVE];
	unsigned nlive = 0;
	uint8_t *mem = region_alloc(STRESS_POOL);

	(void)state;
	rng_state = STRESS_SEED;
	memset(granule_used, 0, sizeof(granule_used));
	assert_int_equal(dma_pool_init(&pool, mem, STRESS_PHYS, STRESS_POOL), 0);

	for (int op = 0; op < STRESS_OPS; op++) {
		int do_alloc = nlive == 0 || (nlive < STRESS_MAX_LIVE && rng() % 100 < 55);

		if (do_alloc) {
			size_t size = 1 + rng() % ((rng() % 8) ? 4096 : 65536);
			size_t align = aligns[rng() % 6];
			size_t eff = align < GRANULE ? GRANULE : align;
			struct live_buf *l = &live[nlive];
			int ret = dma_pool_alloc(&pool, size, align, &l->buf);

			if (ret == -ENOMEM) {
				assert_false(ref_has_fit(size, eff));
				continue;
			}
			assert_int_equal(ret, 0);
			assert_int_equal(l->buf.phys % eff, 0);
			assert_true(l->buf.size >= size);
			assert_true(l->buf.phys >= STRESS_PHYS);
			assert_true(l->buf.phys + l->buf.size <= STRESS_PHYS + STRESS_POOL);
			assert_ptr_equal((uint8_t *)l->buf.cpu - mem, l->buf.phys - STRESS_PHYS);
			ref_mark(&l->buf, 1);
			l->tag = (uint8_t)rng();
			memset(l->buf.cpu, l->tag, l->buf.size);
			nlive++;
		} else {
			unsigned victim = rng() % nlive;
			struct live_buf *l = &live[victim];
			const uint8_t *p = l->buf.cpu;

			for (size_t i = 0; i < l->buf.size; i++)
				assert_int_equal(p[i], l->tag);
			assert_int_equal(dma_pool_free(&pool, &l->buf), 0);
			ref_mark(&l->buf, 0);
			live[victim] = live[--nlive];
		}
		ref_check_stats();
	}
	while (nlive) {
		assert_int_equal(dma_pool_free(&pool, &live[--nlive].buf), 0);
		ref_mark(&live[nlive].buf, 0);
	}
	ref_check_stats();
	free(mem);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_init_rejects_bad_regions),
		cmocka_unit_test(test_bad_arguments),
		cmocka_unit_test(test_alignment_and_min_size),
		cmocka_unit_test(test_double_free_and_foreign_free),
		cmocka_unit_test(test_exhaustion_then_reuse),
		cmocka_unit_test(test_bookkeeping_full),
		cmocka_unit_test(test_random_stress_against_reference),
	};

	/* Refusals are expected here; their log lines are noise. */
	hal_host_set_log_level(HAL_LOG_NONE);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
