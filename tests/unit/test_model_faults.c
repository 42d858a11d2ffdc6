// SPDX-License-Identifier: MIT
/*
 * The model runtime under faults and over time, on the container the build
 * compiles (build/models/fmnist/fmnist.rkb):
 *   - fault matrix: every fault the NPU model can inject (hang, DMA read and
 *     write errors, the other status bit of a pair, completion late by a
 *     few polls, completion after the driver gave up, a reset that does not
 *     take) gives its status from rkb_run, leaks nothing from the DMA pool,
 *     and the next inference returns the bytes of a fault-free run;
 *   - pool exhaustion at every point of rkb_ctx_create: RKB_E_NOMEM and the
 *     pool exactly as before;
 *   - rkb_run_start / rkb_run_wait: the arena refused while a job runs;
 *   - soak: SOAK_RUNS inferences (RKBARE_SOAK_RUNS overrides it; make soak
 *     runs 10,000) of one fixed input, every output bit-identical and the
 *     pool unchanged at the end.
 * The oracle is the fault-free first run of the same context; that the
 * runtime's outputs are right is shown against onnxruntime by
 * tests/onnx/fmnist_npu.sh. Inputs come from a fixed seed.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/model_run.h"

#include "npu_fixture.h"

#define MODEL_PATH	"build/models/fmnist/fmnist.rkb"
#define SOAK_RUNS	1000u
#define SEED		20261124u
#define MAX_OUT		64u
/* Pool sizes tried below the create's need: every one must fail cleanly. */
#define NOMEM_STEPS	48u

static uint8_t *blob;
static size_t blob_size;
static struct dma_pool pool;
static float *input;
static size_t in_elems, out_elems;
static int8_t golden[MAX_OUT];

static const struct rkb_io_fmt f32 = { .kind = RKB_IO_FLOAT };
static const struct rkb_io_fmt raw = { .kind = RKB_IO_INT8 };

static int setup(void **state)
{
	(void)state;
	blob = fx_read_file("test_model_faults", MODEL_PATH, &blob_size);
	if (!blob)
		return -1;
	fx_attach(0x1);
	return dma_pool_init_default(&pool);
}

static int teardown(void **state)
{
	(void)state;
	free(blob);
	free(input);
	return fx_teardown(NULL);
}

static struct rkb_ctx *create(void)
{
	struct rkb_ctx *ctx = NULL;
	char err[256];
	int rc = rkb_ctx_create(&fx_dev, &pool, blob, blob_size, 1, 0, &ctx, err, sizeof(err));

	if (rc)
		fail_msg("rkb_ctx_create: %s", err);
	return ctx;
}

/* One inference of the fixed input; the raw int8 outputs in out. */
static int infer(struct rkb_ctx *ctx, int8_t *out)
{
	int rc = rkb_input_set(ctx, 0, input, in_elems * sizeof(float), &f32);

	if (!rc)
		rc = rkb_run(ctx);
	if (!rc)
		rc = rkb_output_get(ctx, 0, out, out_elems, &raw);
	return rc;
}

/* The fixed input and the fault-free outputs every later run must give. */
static struct rkb_ctx *first_run(void)
{
	struct rkb_ctx *ctx = create();
	const struct rkb_model *m = rkb_ctx_model(ctx);
	uint32_t s = SEED;

	in_elems = rkb_io_elems(&m->inputs[0]);
	out_elems = rkb_io_elems(&m->outputs[0]);
	assert_true(out_elems <= MAX_OUT);
	if (!input) {
		input = malloc(in_elems * sizeof(float));
		assert_non_null(input);
		for (size_t i = 0; i < in_elems; i++) {
			s = s * 1103515245u + 12345u;
			input[i] = (float)(s >> 16 & 0xFFu) / 255.0f;
		}
	}
	assert_int_equal(infer(ctx, golden), RKB_OK);
	return ctx;
}

static void test_fault_matrix(void **state)
{
	static const struct {
		const char *spec;
		int status;
	} cases[] = {
		{ "hang", RKB_E_TIMEOUT },
		{ "dma_read", RKB_E_NPU },
		{ "dma_write", RKB_E_NPU },
		{ "half_status", RKB_OK },	/* rknpu_fuzz_status still matches */
		{ "poll=3", RKB_OK },		/* late, inside the timeout */
		{ "late", RKB_E_TIMEOUT },	/* after the driver gave up */
		/* the reset after the hang does not take: the core is lost and
		 * the next submit brings it up again */
		{ "hang,reset_stuck=0", RKB_E_NPU },
	};
	struct dma_pool_stats before, after;
	struct rkb_ctx *ctx;
	int8_t out[MAX_OUT];
	int rc;

	(void)state;
	ctx = first_run();
	for (unsigned int i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		fx_pool_snapshot(&pool, &before);
		assert_int_equal(sim_soc_set_fault(fx_soc, cases[i].spec), 0);
		memset(out, 0x55, sizeof(out));
		rc = infer(ctx, out);
		if (rc != cases[i].status)
			fail_msg("fault '%s': status %d (%s), want %d (%s)", cases[i].spec, rc,
				 rkb_strerror(rc), cases[i].status, rkb_strerror(cases[i].status));
		if (cases[i].status == RKB_OK)
			assert_memory_equal(out, golden, out_elems);
		assert_int_equal(sim_soc_set_fault(fx_soc, ""), 0);
		fx_pool_snapshot(&pool, &after);
		fx_assert_pool_equal(&before, &after);
		memset(out, 0x55, sizeof(out));
		if (infer(ctx, out) != RKB_OK)
			fail_msg("after fault '%s': the next inference fails", cases[i].spec);
		assert_memory_equal(out, golden, out_elems);
	}
	rkb_ctx_destroy(ctx);
}

/* Leave exactly `room` bytes of the pool free (the filler is returned). */
static int squeeze(size_t room, struct dma_buf *filler)
{
	struct dma_pool_stats st;

	dma_pool_get_stats(&pool, &st);
	if (room >= st.largest_free)
		return -1;
	return dma_pool_alloc(&pool, st.largest_free - room, 1, filler);
}

static void test_pool_exhaustion_in_create(void **state)
{
	struct dma_pool_stats before, after;
	struct rkb_run_stats rs;
	struct rkb_ctx *ctx;
	size_t need;
	int8_t out[MAX_OUT];

	(void)state;
	ctx = first_run();
	rkb_ctx_stats(ctx, &rs);
	rkb_ctx_destroy(ctx);
	need = rs.dma_bytes;
	assert_true(need > 0);
	for (unsigned int i = 0; i < NOMEM_STEPS; i++) {
		size_t room = need * i / NOMEM_STEPS;
		struct dma_buf filler;
		char err[256];

		fx_pool_snapshot(&pool, &before);
		assert_int_equal(squeeze(room, &filler), 0);
		ctx = NULL;
		if (rkb_ctx_create(&fx_dev, &pool, blob, blob_size, 1, 0, &ctx, err,
				   sizeof(err)) != RKB_E_NOMEM)
			fail_msg("create with %zu of %zu bytes free: not RKB_E_NOMEM (%s)", room,
				 need, err);
		assert_null(ctx);
		assert_int_equal(dma_pool_free(&pool, &filler), 0);
		fx_pool_snapshot(&pool, &after);
		fx_assert_pool_equal(&before, &after);
	}
	ctx = create();
	assert_int_equal(infer(ctx, out), RKB_OK);
	assert_memory_equal(out, golden, out_elems);
	rkb_ctx_destroy(ctx);
}

/*
 * Spreading the model over three cores lowers it again. With no room in the
 * pool for the new program the call fails with RKB_E_NOMEM and the context
 * keeps running on its old core; with room it runs on three, bit for bit
 * the single-core outputs, and back on one; the pool ends as it started.
 */
static void test_set_cores(void **state)
{
	struct dma_pool_stats before, after;
	struct rkb_run_stats rs;
	struct dma_buf filler;
	struct rkb_ctx *ctx;
	int8_t out[MAX_OUT];
	char err[256];

	(void)state;
	assert_int_equal(npu_power_on(&fx_dev, 0x7), NPU_OK);
	ctx = first_run();
	fx_pool_snapshot(&pool, &before);
	assert_int_equal(squeeze(0, &filler), 0);
	assert_int_equal(rkb_ctx_set_cores(ctx, 0x7, err, sizeof(err)), RKB_E_NOMEM);
	assert_int_equal(infer(ctx, out), RKB_OK);
	assert_memory_equal(out, golden, out_elems);
	rkb_ctx_stats(ctx, &rs);
	assert_int_equal(rs.kicks, 1);
	assert_int_equal(dma_pool_free(&pool, &filler), 0);

	assert_int_equal(rkb_ctx_set_cores(ctx, 0x7, err, sizeof(err)), RKB_OK);
	assert_int_equal(infer(ctx, out), RKB_OK);
	assert_memory_equal(out, golden, out_elems);
	rkb_ctx_stats(ctx, &rs);
	assert_true(rs.kicks > 1);
	assert_int_equal(rkb_ctx_set_cores(ctx, 0x8, err, sizeof(err)), RKB_E_ARG);
	assert_int_equal(rkb_ctx_set_cores(ctx, 0x2, err, sizeof(err)), RKB_OK);
	assert_int_equal(infer(ctx, out), RKB_OK);
	assert_memory_equal(out, golden, out_elems);
	rkb_ctx_stats(ctx, &rs);
	assert_int_equal(rs.kicks, 1);
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);
	rkb_ctx_destroy(ctx);
}

/* rkb_run_start returns with the job in flight: the arena is the NPU's
 * (inputs, outputs and a second start refused) until rkb_run_wait. */
static void test_start_wait(void **state)
{
	struct rkb_ctx *ctx;
	int8_t out[MAX_OUT];

	(void)state;
	ctx = first_run();
	assert_int_equal(rkb_input_set(ctx, 0, input, in_elems * sizeof(float), &f32), RKB_OK);
	assert_int_equal(rkb_run_start(ctx), RKB_OK);
	assert_true(rkb_run_busy(ctx));
	assert_int_equal(rkb_run_start(ctx), RKB_E_BUSY);
	assert_int_equal(rkb_input_set(ctx, 0, input, in_elems * sizeof(float), &f32),
			 RKB_E_BUSY);
	assert_int_equal(rkb_output_get(ctx, 0, out, out_elems, &raw), RKB_E_BUSY);
	assert_int_equal(rkb_run_wait(ctx), RKB_OK);
	assert_false(rkb_run_busy(ctx));
	assert_int_equal(rkb_run_wait(ctx), RKB_OK);	/* nothing in flight */
	assert_int_equal(rkb_output_get(ctx, 0, out, out_elems, &raw), RKB_OK);
	assert_memory_equal(out, golden, out_elems);
	/* destroyed with a job in flight: waited for, nothing leaks */
	assert_int_equal(rkb_run_start(ctx), RKB_OK);
	rkb_ctx_destroy(ctx);
}

static void test_soak(void **state)
{
	const char *env = getenv("RKBARE_SOAK_RUNS");
	unsigned long runs = SOAK_RUNS;
	struct dma_pool_stats before, after;
	struct rkb_ctx *ctx;
	int8_t out[MAX_OUT];

	(void)state;
	if (env) {
		char *end;

		runs = strtoul(env, &end, 10);
		if (!*env || *end || !runs)
			fail_msg("RKBARE_SOAK_RUNS '%s': expected a positive decimal count", env);
	}
	fx_pool_snapshot(&pool, &before);
	ctx = first_run();
	for (unsigned long i = 0; i < runs; i++) {
		memset(out, 0x55, sizeof(out));
		if (infer(ctx, out) != RKB_OK || memcmp(out, golden, out_elems))
			fail_msg("soak: inference %lu of %lu differs or fails", i + 1, runs);
	}
	rkb_ctx_destroy(ctx);
	fx_pool_snapshot(&pool, &after);
	fx_assert_pool_equal(&before, &after);
	printf("test_model_faults: %lu inferences bit-identical, pool as before\n", runs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fault_matrix),
		cmocka_unit_test(test_pool_exhaustion_in_create),
		cmocka_unit_test(test_start_wait),
		cmocka_unit_test(test_set_cores),
		cmocka_unit_test(test_soak),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
