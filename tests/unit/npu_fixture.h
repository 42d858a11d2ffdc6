/* SPDX-License-Identifier: MIT */
/*
 * Shared fixture of the tests that run lowered ops on the NPU model through
 * the driver: the model attached behind the host MMIO seam (sim_host.h), a
 * powered driver instance, a bump allocator over the host DMA region, a
 * seeded random sequence, regcmd programs in DMA memory and a one-core
 * submit; for the matmul API tests, a dma_pool bound to the API and a
 * context with its buffers. Nothing here computes an expected result: each
 * test keeps its own CPU reference.
 */
#ifndef RKBARE_TEST_NPU_FIXTURE_H
#define RKBARE_TEST_NPU_FIXTURE_H

#include <stddef.h>
#include <stdint.h>

#include "drivers/npu/npu.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/dma_pool.h"
#include "compiler/regcmd.h"
#include "sim/sim.h"

extern struct sim_soc *fx_soc;
extern struct npu_dev fx_dev;

/* Attach the model (unpowered at reset), bring the driver up and power the
 * cores in core_mask; empties the DMA allocator. Asserts on failure. */
void fx_attach(uint32_t core_mask);
/* cmocka setup / teardown: fx_attach(core 0) / detach the model. */
int fx_setup(void **state);
int fx_teardown(void **state);

/* A whole file in malloc'd memory (the build's model containers); NULL with
 * a message naming `who` and the path when it cannot be read. */
uint8_t *fx_read_file(const char *who, const char *path, size_t *size);

/* The pool's occupancy (peak and failure counters cleared) and its
 * comparison: what "the pool is as it was" means in the tests. */
void fx_pool_snapshot(struct dma_pool *pool, struct dma_pool_stats *st);
void fx_assert_pool_equal(const struct dma_pool_stats *a, const struct dma_pool_stats *b);

/* ---- DMA memory: bump allocator over hal_dma_region() ---- */

#define FX_DMA_ALIGN	4096u

/* size zeroed bytes at the next FX_DMA_ALIGN boundary; fails the test when
 * the region is exhausted. */
void *fx_dma_alloc(size_t size);
/* Forget every allocation (each case starts from the region's base). */
void fx_dma_reset(void);
/* NPU (physical) address of a DMA pointer. */
uint32_t fx_phys(const void *p);

/* ---- deterministic data: xorshift64*, seeded by each case ---- */

void fx_rng_seed(uint64_t seed);
uint32_t fx_rng(void);
/* Uniform-ish in [lo, hi] (modulo bias is irrelevant here). */
int32_t fx_rng_range(int32_t lo, int32_t hi);

/* ---- a regcmd program in DMA memory, submitted on core 0 ---- */

struct fx_program {
	struct rc_program p;
	uint64_t *q;			/* entries, in the DMA region */
	struct rc_task *rt;
	struct npu_task *tasks;		/* descriptors, filled by fx_program_link */
};

/* Room for `tasks` tasks of at most `max_entries` body entries each. */
void fx_program_init(struct fx_program *f, size_t tasks, size_t max_entries);
/* Link the program where it lies and describe tasks [0, count). */
void fx_program_link(struct fx_program *f, size_t count);
void fx_program_free(struct fx_program *f);

/* A blocking PC submit of tasks[0, count) on core 0, no buffers. */
void fx_submit_init(struct npu_submit *sub, struct npu_task *tasks, size_t count);
/* npu_submit(); on failure the test fails with `what` and the model's error. */
void fx_submit(struct npu_submit *sub, const char *what);
/* Both, with one output buffer for the driver's cache maintenance. */
void fx_run(struct npu_task *tasks, size_t count, void *out, size_t out_bytes, const char *what);

/* ---- the matmul API (rknn_matmul_api.h) over a dma_pool ---- */

extern struct dma_pool fx_pool;

/* cmocka setup: fx_attach(all three cores: the API's core selection is
 * under test), fx_pool initialised and bound to the matmul API. */
int fx_matmul_setup(void **state);
/* cmocka teardown: detach the model; fails when a pool buffer is live. */
int fx_matmul_teardown(void **state);
/* A cmocka test run between the two. */
#define FX_MATMUL_TEST(f) \
	cmocka_unit_test_setup_teardown(f, fx_matmul_setup, fx_matmul_teardown)

/* A context with its A, B and C buffers. */
struct fx_mm {
	rknn_matmul_ctx ctx;
	rknn_matmul_io_attr io;
	rknn_tensor_mem *a, *b, *c;
};

/* rknn_matmul_create from info, then fx_mm_bind(r, &r->io). */
void fx_mm_open(struct fx_mm *r, rknn_matmul_info *info);
/* Buffers of the sizes in io created on r->ctx and set as its A, B, C. */
void fx_mm_bind(struct fx_mm *r, rknn_matmul_io_attr *io);
/* The three buffers destroyed, then the context. */
void fx_mm_close(struct fx_mm *r);

#endif /* RKBARE_TEST_NPU_FIXTURE_H */
