// SPDX-License-Identifier: MIT
/*
 * The NPU test fixture (npu_fixture.h), linked into every unit test as a
 * TEST_SUPPORT_OBJS object.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hal.h"
#include "sim/sim_host.h"

#include "npu_fixture.h"

struct sim_soc *fx_soc;
struct npu_dev fx_dev;
struct dma_pool fx_pool;

static uint8_t *dma_base;
static size_t dma_size, dma_used;
static uint64_t rng_state;

void fx_attach(uint32_t core_mask)
{
	struct sim_config cfg = { .powered_at_reset = false };
	void *base;

	fx_soc = sim_host_attach(&cfg);
	assert_non_null(fx_soc);
	assert_int_equal(hal_dma_region(&base, &dma_size), 0);
	dma_base = base;
	dma_used = 0;
	assert_int_equal(npu_init(&fx_dev, &rk3588_npu_board), NPU_OK);
	assert_int_equal(npu_power_on(&fx_dev, core_mask), NPU_OK);
}

int fx_setup(void **state)
{
	(void)state;
	fx_attach(0x1);
	return 0;
}

int fx_teardown(void **state)
{
	(void)state;
	sim_host_detach(fx_soc);
	fx_soc = NULL;
	return 0;
}

void *fx_dma_alloc(size_t size)
{
	size_t at = (dma_used + FX_DMA_ALIGN - 1) / FX_DMA_ALIGN * FX_DMA_ALIGN;

	if (at + size > dma_size)
		fail_msg("test DMA region exhausted (%zu + %zu > %zu)", at, size, dma_size);
	dma_used = at + size;
	memset(dma_base + at, 0, size);
	return dma_base + at;
}

uint8_t *fx_read_file(const char *who, const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	uint8_t *b = NULL;
	long n;

	if (!f) {
		fprintf(stderr, "%s: %s is missing: run make first\n", who, path);
		return NULL;
	}
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		b = malloc((size_t)n);
		if (b && fread(b, 1, (size_t)n, f) != (size_t)n) {
			free(b);
			b = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	if (!b)
		fprintf(stderr, "%s: cannot read %s\n", who, path);
	return b;
}

void fx_pool_snapshot(struct dma_pool *pool, struct dma_pool_stats *st)
{
	dma_pool_get_stats(pool, st);
	st->peak_used = 0;
	st->failed = 0;
}

void fx_assert_pool_equal(const struct dma_pool_stats *a, const struct dma_pool_stats *b)
{
	assert_int_equal(a->used, b->used);
	assert_int_equal(a->live, b->live);
	assert_int_equal(a->free_blocks, b->free_blocks);
	assert_int_equal(a->largest_free, b->largest_free);
}

void fx_dma_reset(void)
{
	dma_used = 0;
}

uint32_t fx_phys(const void *p)
{
	return (uint32_t)hal_virt_to_phys(p);
}

void fx_rng_seed(uint64_t seed)
{
	rng_state = seed;
}

/* Any fixed non-zero start: xorshift stays at 0 from 0, which gave the
 * tests that never seed one constant value. */
#define FX_RNG_DEFAULT_SEED	0x2545F4914F6CDD1Dull

uint32_t fx_rng(void)
{
	if (!rng_state)
		rng_state = FX_RNG_DEFAULT_SEED;
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

int32_t fx_rng_range(int32_t lo, int32_t hi)
{
	return lo + (int32_t)(fx_rng() % (uint32_t)(hi - lo + 1));
}

void fx_program_init(struct fx_program *f, size_t tasks, size_t max_entries)
{
	size_t cap = rc_program_size(tasks, max_entries);

	f->q = fx_dma_alloc(cap * sizeof(*f->q));
	f->rt = calloc(tasks, sizeof(*f->rt));
	f->tasks = calloc(tasks, sizeof(*f->tasks));
	assert_true(f->rt && f->tasks);
	rc_program_init(&f->p, f->q, cap, f->rt, tasks);
}

void fx_program_link(struct fx_program *f, size_t count)
{
	assert_int_equal(rc_program_link(&f->p, fx_phys(f->q)), 0);
	assert_int_equal(rc_program_tasks(&f->p, fx_phys(f->q), 0, count, f->tasks), 0);
}

void fx_program_free(struct fx_program *f)
{
	free(f->rt);
	free(f->tasks);
}

void fx_submit_init(struct npu_submit *sub, struct npu_task *tasks, size_t count)
{
	memset(sub, 0, sizeof(*sub));
	sub->flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	sub->core_mask = 0x1;
	sub->tasks = tasks;
	sub->task_count = (uint32_t)count;
	sub->task_number = (uint32_t)count;
	sub->subcore_task[0].task_number = (uint32_t)count;
}

void fx_submit(struct npu_submit *sub, const char *what)
{
	if (npu_submit(&fx_dev, sub) != NPU_OK)
		fail_msg("%s: npu_submit failed (model: %s)", what, sim_soc_last_error(fx_soc));
}

void fx_run(struct npu_task *tasks, size_t count, void *out, size_t out_bytes, const char *what)
{
	struct npu_submit sub;
	struct npu_buf outb = { .cpu = out, .size = out_bytes };

	fx_submit_init(&sub, tasks, count);
	sub.outputs = &outb;
	sub.output_count = 1;
	fx_submit(&sub, what);
}

int fx_matmul_setup(void **state)
{
	(void)state;
	fx_attach(0x7);
	assert_int_equal(dma_pool_init_default(&fx_pool), 0);
	assert_int_equal(rknn_matmul_bind(&fx_dev, &fx_pool), RKNN_SUCC);
	return 0;
}

int fx_matmul_teardown(void **state)
{
	struct dma_pool_stats st;

	dma_pool_get_stats(&fx_pool, &st);
	fx_teardown(state);
	assert_int_equal(st.live, 0);	/* every buffer returned, failures included */
	return 0;
}

void fx_mm_open(struct fx_mm *r, rknn_matmul_info *info)
{
	assert_int_equal(rknn_matmul_create(&r->ctx, info, &r->io), RKNN_SUCC);
	fx_mm_bind(r, &r->io);
}

void fx_mm_bind(struct fx_mm *r, rknn_matmul_io_attr *io)
{
	r->a = rknn_create_mem(r->ctx, io->A.size);
	r->b = rknn_create_mem(r->ctx, io->B.size);
	r->c = rknn_create_mem(r->ctx, io->C.size);
	assert_true(r->a && r->b && r->c);
	assert_int_equal(rknn_matmul_set_io_mem(r->ctx, r->a, &io->A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r->ctx, r->b, &io->B), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r->ctx, r->c, &io->C), RKNN_SUCC);
}

void fx_mm_close(struct fx_mm *r)
{
	assert_int_equal(rknn_destroy_mem(r->ctx, r->a), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(r->ctx, r->b), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(r->ctx, r->c), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(r->ctx), RKNN_SUCC);
}
