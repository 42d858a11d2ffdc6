/* SPDX-License-Identifier: MIT */
/*
 * rknn_matmul_set_core_mask with two or three cores on the NPU model: the
 * matmul is split by N over the cores named (runtime/matmul_api.c). For
 * masks 0_1, 0_1_2 and 1_2, the four types and several M, K, N, results
 * are compared with a CPU matmul written here, and the PC kicks are
 * counted per core window (OPERATION_ENABLE writes seen on the MMIO bus):
 * every core the split policy gives work to is kicked, no other core is,
 * and all of them are kicked before any is polled (one submit running the
 * cores together, not one submit per core).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hal.h"
#include "rkbare/rknn_matmul_api.h"
#include "runtime/dma_pool.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

/* Core register windows and the PC kick register (HARDWARE.md §1.1). */
#define CORE_BASE(c)		(0xFDAB0000ull + 0x10000ull * (c))
#define CORE_WINDOW		0x10000ull
#define PC_OPERATION_ENABLE	0x0008u
#define CORES			3

/* Columns of one kernel group, the unit of the split (RK3588 TRM: 32 int8
 * or 16 fp16 kernels per group). */
#define GROUP_INT8		32
#define GROUP_FP16		16

static struct dma_pool pool;
static unsigned int kicks[CORES];
static uint32_t kicked;			/* cores kicked so far in this run */
static uint32_t kicked_at_poll[CORES];	/* `kicked` at the first read of a core
					 * after its kick */
static bool polled[CORES];

static void count_reset(void)
{
	memset(kicks, 0, sizeof(kicks));
	memset(kicked_at_poll, 0, sizeof(kicked_at_poll));
	memset(polled, 0, sizeof(polled));
	kicked = 0;
}

/* MMIO seen by the model, kicks counted on the way. */
static uint32_t count_read32(void *ctx, uint64_t phys)
{
	uint32_t v = 0;

	for (unsigned int c = 0; c < CORES; c++)
		if (phys >= CORE_BASE(c) && phys < CORE_BASE(c) + CORE_WINDOW &&
		    (kicked & (1u << c)) && !polled[c]) {
			polled[c] = true;
			kicked_at_poll[c] = kicked;
		}
	assert_int_equal(sim_soc_read32(ctx, phys, &v), 0);
	return v;
}

static void count_write32(void *ctx, uint64_t phys, uint32_t value)
{
	for (unsigned int c = 0; c < CORES; c++)
		if (phys == CORE_BASE(c) + PC_OPERATION_ENABLE && (value & 1u)) {
			kicks[c]++;
			kicked |= 1u << c;
		}
	assert_int_equal(sim_soc_write32(ctx, phys, value), 0);
}

static struct hal_host_mmio_ops count_ops = {
	.read32 = count_read32,
	.write32 = count_write32,
};

static int setup(void **state)
{
	(void)state;
	fx_attach(0x7);
	count_ops.ctx = fx_soc;
	hal_host_set_mmio(&count_ops);
	assert_int_equal(dma_pool_init_default(&pool), 0);
	assert_int_equal(rknn_matmul_bind(&fx_dev, &pool), RKNN_SUCC);
	return 0;
}

static int teardown(void **state)
{
	struct dma_pool_stats st;

	dma_pool_get_stats(&pool, &st);
	fx_teardown(state);
	assert_int_equal(st.live, 0);	/* every buffer returned */
	return 0;
}

/*
 * The documented policy: the lowest min(cores named, kernel groups of N)
 * named cores run; K above one segment (8192) runs on the lowest named.
 */
static uint32_t expected_cores(uint32_t mask, bool int8, int k, int n)
{
	int g = int8 ? GROUP_INT8 : GROUP_FP16;
	int groups = (n + g - 1) / g, want = k > 8192 ? 1 : groups;
	uint32_t cores = 0;

	for (int c = 0; c < CORES && want; c++)
		if (mask & (1u << c)) {
			cores |= 1u << c;
			want--;
		}
	return cores;
}

static void check_kicks(uint32_t cores, const char *what)
{
	for (unsigned int c = 0; c < CORES; c++) {
		bool want = cores & (1u << c);

		if (want != (kicks[c] > 0))
			fail_msg("%s: core %u kicked %u times, expected %s", what, c, kicks[c],
				 want ? "at least once" : "never");
		if (want && kicked_at_poll[c] != cores)
			fail_msg("%s: core %u polled with cores 0x%x of 0x%x kicked", what, c,
				 kicked_at_poll[c], cores);
	}
}

/* Requantisation as the hardware model reads OUT_CVT: 15-bit multiplier,
 * halves rounded up (sim/ASSUMPTIONS.md). */
static int32_t requant(int64_t acc, double scale, int32_t zp)
{
	return (int32_t)ref_requant_scale(acc, scale, zp, INT8_MIN, INT8_MAX);
}

struct mm_run {
	rknn_matmul_ctx ctx;
	rknn_matmul_io_attr io;
	rknn_tensor_mem *a, *b, *c;
};

static void mm_mem(struct mm_run *r)
{
	r->a = rknn_create_mem(r->ctx, r->io.A.size);
	r->b = rknn_create_mem(r->ctx, r->io.B.size);
	r->c = rknn_create_mem(r->ctx, r->io.C.size);
	assert_true(r->a && r->b && r->c);
	assert_int_equal(rknn_matmul_set_io_mem(r->ctx, r->a, &r->io.A), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r->ctx, r->b, &r->io.B), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_io_mem(r->ctx, r->c, &r->io.C), RKNN_SUCC);
}

static void mm_close(struct mm_run *r)
{
	assert_int_equal(rknn_destroy_mem(r->ctx, r->a), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(r->ctx, r->b), RKNN_SUCC);
	assert_int_equal(rknn_destroy_mem(r->ctx, r->c), RKNN_SUCC);
	assert_int_equal(rknn_matmul_destroy(r->ctx), RKNN_SUCC);
}

static bool is_int8(rknn_matmul_type type)
{
	return type == RKNN_INT8_MM_INT8_TO_INT32 || type == RKNN_INT8_MM_INT8_TO_INT8;
}

/* A and B (normal layouts) with random values; fp16 values are q/64 with
 * |q| <= 127, so products and sums are exact in fp32 for the K here. */
static void fill_inputs(struct mm_run *r, rknn_matmul_type type, int m, int k, int n)
{
	if (is_int8(type)) {
		int8_t *a = r->a->virt_addr, *b = r->b->virt_addr;

		for (int i = 0; i < m * k; i++)
			a[i] = (int8_t)fx_rng();
		for (int i = 0; i < k * n; i++)
			b[i] = (int8_t)fx_rng();
	} else {
		uint16_t *a = r->a->virt_addr, *b = r->b->virt_addr;

		for (int i = 0; i < m * k; i++)
			a[i] = ref_f32_to_f16((float)fx_rng_range(-127, 127) / 64.0f);
		for (int i = 0; i < k * n; i++)
			b[i] = ref_f32_to_f16((float)fx_rng_range(-127, 127) / 64.0f);
	}
}

static const float q_scale[3] = { 0.05f, 0.02f, 0.9f };
static const int32_t q_zp[3] = { 3, -2, -5 };

static void set_quant(struct mm_run *r)
{
	const char *names[3] = { "A", "B", "C" };

	for (int t = 0; t < 3; t++) {
		float s = q_scale[t];
		int32_t z = q_zp[t];
		rknn_quant_params q = { .scale = &s, .scale_len = 1, .zp = &z, .zp_len = 1 };

		strcpy(q.name, names[t]);
		assert_int_equal(rknn_matmul_set_quant_params(r->ctx, &q), RKNN_SUCC);
	}
}

/* C (normal layout) against the CPU product; exact except fp16 output,
 * which may differ from the exact sum by one rounding (11 bits). */
static void check_result(const struct mm_run *r, rknn_matmul_type type, int m, int k, int n,
			 const char *what)
{
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			if (type == RKNN_INT8_MM_INT8_TO_INT32 || type == RKNN_INT8_MM_INT8_TO_INT8) {
				const int8_t *a = r->a->virt_addr, *b = r->b->virt_addr;
				bool i8 = type == RKNN_INT8_MM_INT8_TO_INT8;
				int64_t acc = 0, want;
				int32_t got;

				for (int q = 0; q < k; q++)
					acc += (int64_t)(a[i * k + q] - (i8 ? q_zp[0] : 0)) *
					       (b[q * n + j] - (i8 ? q_zp[1] : 0));
				if (i8) {
					want = requant(acc, (double)(q_scale[0] * q_scale[1] /
								     q_scale[2]), q_zp[2]);
					got = ((const int8_t *)r->c->virt_addr)[i * n + j];
				} else {
					want = acc;
					memcpy(&got, (const uint8_t *)r->c->virt_addr +
						     ((size_t)i * n + j) * 4, 4);
				}
				if (got != want)
					fail_msg("%s: C[%d][%d] = %d, CPU %lld", what, i, j, got,
						 (long long)want);
			} else {
				const uint16_t *a = r->a->virt_addr, *b = r->b->virt_addr;
				double want = 0, got;

				for (int q = 0; q < k; q++)
					want += (double)ref_f16_to_f32(a[i * k + q]) *
						ref_f16_to_f32(b[q * n + j]);
				if (type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32) {
					float g;

					memcpy(&g, (const uint8_t *)r->c->virt_addr +
						   ((size_t)i * n + j) * 4, 4);
					got = g;
				} else {
					got = ref_f16_to_f32(((const uint16_t *)
							      r->c->virt_addr)[i * n + j]);
				}
				if (fabs(got - want) >
				    (type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32 ?
				     0.0 : fabs(want) / 2048.0 + 1e-6))
					fail_msg("%s: C[%d][%d] = %g, CPU %g", what, i, j, got, want);
			}
		}
}

/* One matmul on `mask`: result and the cores kicked. */
static void run_one(rknn_matmul_type type, rknn_core_mask mask, int m, int k, int n)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = type };
	/* AUTO is core 0, ALL the three cores (rknn_matmul_set_core_mask). */
	uint32_t named = mask == RKNN_NPU_CORE_AUTO ? 0x1u :
			 mask == RKNN_NPU_CORE_ALL ? 0x7u : (uint32_t)mask;
	struct mm_run r;
	char what[96];

	snprintf(what, sizeof(what), "type %d, mask 0x%x, M %d, K %d, N %d", type,
		 (unsigned int)mask, m, k, n);
	fx_rng_seed((uint64_t)m * 1000003u + (uint64_t)k * 101u + (uint64_t)n * 7u + type +
		    (uint64_t)mask * 17u);
	assert_int_equal(rknn_matmul_create(&r.ctx, &info, &r.io), RKNN_SUCC);
	mm_mem(&r);
	assert_int_equal(rknn_matmul_set_core_mask(r.ctx, mask), RKNN_SUCC);
	fill_inputs(&r, type, m, k, n);
	if (type == RKNN_INT8_MM_INT8_TO_INT8)
		set_quant(&r);
	count_reset();
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	check_result(&r, type, m, k, n, what);
	check_kicks(expected_cores(named, is_int8(type), k, n), what);
	mm_close(&r);
}

static const rknn_core_mask masks[] = {
	RKNN_NPU_CORE_0_1, RKNN_NPU_CORE_0_1_2, (rknn_core_mask)(RKNN_NPU_CORE_1 | RKNN_NPU_CORE_2),
};
static const int ms[] = { 1, 5, 64, 200 }, ks[] = { 32, 100 }, ns[] = { 16, 70 };

static void sweep(rknn_matmul_type type)
{
	for (size_t mi = 0; mi < sizeof(masks) / sizeof(masks[0]); mi++)
		for (size_t a = 0; a < sizeof(ms) / sizeof(ms[0]); a++)
			for (size_t b = 0; b < sizeof(ks) / sizeof(ks[0]); b++)
				for (size_t c = 0; c < sizeof(ns) / sizeof(ns[0]); c++)
					run_one(type, masks[mi], ms[a], ks[b], ns[c]);
}

static void split_int8_int32(void **state)
{
	(void)state;
	sweep(RKNN_INT8_MM_INT8_TO_INT32);
}

static void split_int8_int8(void **state)
{
	(void)state;
	sweep(RKNN_INT8_MM_INT8_TO_INT8);
}

static void split_fp16_fp32(void **state)
{
	(void)state;
	sweep(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32);
}

static void split_fp16_fp16(void **state)
{
	(void)state;
	sweep(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16);
}

/* N wide enough for every core: ALL splits over all three, AUTO runs on
 * core 0 only, a one-core mask on that core only. */
static void mask_meanings(void **state)
{
	(void)state;
	run_one(RKNN_INT8_MM_INT8_TO_INT32, RKNN_NPU_CORE_ALL, 9, 64, 96);
	run_one(RKNN_INT8_MM_INT8_TO_INT32, RKNN_NPU_CORE_AUTO, 9, 64, 96);
	run_one(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32, RKNN_NPU_CORE_2, 9, 64, 96);
	run_one(RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16, (rknn_core_mask)(RKNN_NPU_CORE_0 |
								       RKNN_NPU_CORE_2), 3, 40, 200);
}

/* K above one segment: on the lowest core named, still exact. */
static void k_segments_one_core(void **state)
{
	(void)state;
	run_one(RKNN_INT8_MM_INT8_TO_INT32, RKNN_NPU_CORE_0_1_2, 3, 8200, 64);
	run_one(RKNN_INT8_MM_INT8_TO_INT8, (rknn_core_mask)(RKNN_NPU_CORE_1 | RKNN_NPU_CORE_2),
		2, 8300, 70);
}

/* Dynamic shapes: each registered M split over the three cores. */
static void dynamic_shapes_split(void **state)
{
	rknn_matmul_shape shapes[] = { { 1, 100, 70 }, { 64, 100, 70 }, { 5, 100, 70 } };
	rknn_matmul_io_attr io[3];
	rknn_matmul_info info = { .type = RKNN_INT8_MM_INT8_TO_INT32 };
	struct mm_run r;

	(void)state;
	fx_rng_seed(42);
	assert_int_equal(rknn_matmul_create_dynamic_shape(&r.ctx, &info, 3, shapes, io),
			 RKNN_SUCC);
	r.io = io[1];	/* memory for the largest M */
	mm_mem(&r);
	assert_int_equal(rknn_matmul_set_core_mask(r.ctx, RKNN_NPU_CORE_0_1_2), RKNN_SUCC);
	for (int s = 0; s < 3; s++) {
		assert_int_equal(rknn_matmul_set_dynamic_shape(r.ctx, &shapes[s]), RKNN_SUCC);
		fill_inputs(&r, info.type, shapes[s].M, shapes[s].K, shapes[s].N);
		count_reset();
		assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
		check_result(&r, info.type, shapes[s].M, shapes[s].K, shapes[s].N, "dynamic");
		check_kicks(0x7, "dynamic");
	}
	mm_close(&r);
}

static void mask_errors(void **state)
{
	rknn_matmul_info info = { .M = 4, .K = 32, .N = 32, .type = RKNN_INT8_MM_INT8_TO_INT32 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;

	(void)state;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_set_core_mask(ctx, (rknn_core_mask)0x9),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_set_core_mask(ctx, (rknn_core_mask)0xFFFE),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(split_int8_int32, setup, teardown),
		cmocka_unit_test_setup_teardown(split_int8_int8, setup, teardown),
		cmocka_unit_test_setup_teardown(split_fp16_fp32, setup, teardown),
		cmocka_unit_test_setup_teardown(split_fp16_fp16, setup, teardown),
		cmocka_unit_test_setup_teardown(mask_meanings, setup, teardown),
		cmocka_unit_test_setup_teardown(k_segments_one_core, setup, teardown),
		cmocka_unit_test_setup_teardown(dynamic_shapes_split, setup, teardown),
		cmocka_unit_test_setup_teardown(mask_errors, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
