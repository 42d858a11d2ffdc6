/* SPDX-License-Identifier: MIT */
/*
 * Matmuls lowered by runtime/ and run on the NPU model through the driver,
 * compared with a CPU matmul written here: int8 × int8 → int32 exactly;
 * fp16 × fp16 → fp32 / fp16 within a stated tolerance (the model
 * accumulates in fp32, sim/ASSUMPTIONS.md). Includes shapes larger than
 * one CBUF load (rows split) and than the weight banks (N split).
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "hal.h"
#include "drivers/npu/npu.h"
#include "runtime/layout.h"
#include "runtime/lower_conv.h"
#include "runtime/lower_matmul.h"
#include "runtime/regcmd.h"
#include "sim/sim.h"
#include "sim/sim_host.h"

static struct sim_soc *soc;
static struct npu_dev dev;
static uint8_t *dma_base;
static size_t dma_size, dma_used;

static void *dma_alloc(size_t size)
{
	size_t at = layout_align(dma_used, 4096);

	if (at + size > dma_size)
		fail_msg("test DMA region exhausted");
	dma_used = at + size;
	memset(dma_base + at, 0, size);
	return dma_base + at;
}

static uint32_t phys(const void *p)
{
	return (uint32_t)hal_virt_to_phys(p);
}

static int setup(void **state)
{
	struct sim_config cfg = { .powered_at_reset = false };
	void *base;

	(void)state;
	soc = sim_host_attach(&cfg);
	assert_non_null(soc);
	assert_int_equal(hal_dma_region(&base, &dma_size), 0);
	dma_base = base;
	dma_used = 0;
	assert_int_equal(npu_init(&dev, &rk3588_npu_board), NPU_OK);
	assert_int_equal(npu_power_on(&dev, 0x1), NPU_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sim_host_detach(soc);
	return 0;
}

/* IEEE half precision, written for this test (round to nearest even). */
static uint16_t f32_to_f16(float f)
{
	uint32_t x;
	uint32_t sign, mant;
	int32_t exp;

	memcpy(&x, &f, 4);
	sign = (x >> 16) & 0x8000u;
	exp = (int32_t)((x >> 23) & 0xFF) - 127 + 15;
	mant = x & 0x7FFFFFu;
	if (exp >= 31)
		return (uint16_t)(sign | 0x7C00u);
	if (exp <= 0) {
		if (exp < -10)
			return (uint16_t)sign;
		mant |= 0x800000u;
		uint32_t shift = (uint32_t)(14 - exp);
		uint32_t h = mant >> shift, rem = mant & ((1u << shift) - 1), half = 1u << (shift - 1);

		if (rem > half || (rem == half && (h & 1)))
			h++;
		return (uint16_t)(sign | h);
	}
	uint32_t h = ((uint32_t)exp << 10) | (mant >> 13), rem = mant & 0x1FFFu;

	if (rem > 0x1000u || (rem == 0x1000u && (h & 1)))
		h++;
	return (uint16_t)(sign | h);
}

static float f16_to_f32(uint16_t h)
{
	int exp = (h >> 10) & 0x1F;
	float m = (float)(h & 0x3FF);
	float v = exp ? ldexpf(1.0f + m / 1024.0f, exp - 15) : ldexpf(m / 1024.0f, -14);

	return (h & 0x8000u) ? -v : v;
}

static uint64_t rng_state;

static uint32_t rng(void)
{
	rng_state ^= rng_state >> 12;
	rng_state ^= rng_state << 25;
	rng_state ^= rng_state >> 27;
	return (uint32_t)((rng_state * 2685821657736338717ull) >> 32);
}

static void run(enum lower_mm_type type, unsigned int m, unsigned int k, unsigned int n,
		size_t want_tasks)
{
	struct lower_matmul_op op = { .type = type, .m = m, .k = k, .n = n };
	struct lower_matmul_shape s;
	bool fp16 = type != LOWER_MM_INT8_INT32;
	enum npu_precision in_p = fp16 ? NPU_PREC_FP16 : NPU_PREC_INT8;
	enum npu_precision out_p = type == LOWER_MM_INT8_INT32 ? NPU_PREC_INT32 :
				   type == LOWER_MM_FP16_FP32 ? NPU_PREC_FP32 : NPU_PREC_FP16;
	unsigned int eb = fp16 ? 2 : 1, ob = layout_elem_bytes(out_p);
	uint8_t *a = malloc((size_t)m * k * eb), *b = malloc((size_t)k * n * eb);
	uint8_t *c = malloc((size_t)m * n * ob);
	uint8_t *a_n, *b_n, *c_n;
	uint64_t *entries;
	struct rc_task *rt;
	struct npu_task *tasks;
	struct rc_program p;
	struct npu_submit sub;
	struct npu_buf outb;
	size_t count, cap;

	rng_state = 0x1234567ull + m * 31 + k * 7 + n + type;
	dma_used = 0;
	assert_true(a && b && c);
	for (size_t i = 0; i < (size_t)m * k; i++) {
		if (fp16) {
			uint16_t h = f32_to_f16(((int)(rng() % 2001) - 1000) / 500.0f);

			memcpy(a + i * 2, &h, 2);
		} else {
			a[i] = (uint8_t)rng();
		}
	}
	for (size_t i = 0; i < (size_t)k * n; i++) {
		if (fp16) {
			uint16_t h = f32_to_f16(((int)(rng() % 2001) - 1000) / 500.0f);

			memcpy(b + i * 2, &h, 2);
		} else {
			b[i] = (uint8_t)rng();
		}
	}
	assert_int_equal(lower_matmul_check(&op, &s), 0);
	a_n = dma_alloc(s.a_bytes);
	b_n = dma_alloc(s.b_bytes);
	c_n = dma_alloc(s.c_bytes);
	layout_nhwc_to_nc1hwc2(in_p, a, a_n, m, 1, k, k);
	if (fp16)
		layout_matmul_b_fp16((const uint16_t *)b, (uint16_t *)b_n, k, n, k, n);
	else
		layout_matmul_b_int8((const int8_t *)b, (int8_t *)b_n, k, n, k, n);
	op.a_addr = phys(a_n);
	op.b_addr = phys(b_n);
	op.c_addr = phys(c_n);

	assert_int_equal(lower_matmul_task_count(&op, &count), 0);
	assert_int_equal(count, want_tasks);
	cap = rc_program_size(count, CONV_TASK_MAX_ENTRIES);
	entries = dma_alloc(cap * 8);
	rt = calloc(count, sizeof(*rt));
	tasks = calloc(count, sizeof(*tasks));
	rc_program_init(&p, entries, cap, rt, count);
	assert_int_equal(lower_matmul(&p, &op), 0);
	assert_int_equal(rc_program_link(&p, phys(entries)), 0);
	assert_int_equal(rc_program_tasks(&p, phys(entries), 0, count, tasks), 0);
	memset(&sub, 0, sizeof(sub));
	sub.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	sub.core_mask = 1;
	sub.tasks = tasks;
	sub.task_count = sub.task_number = sub.subcore_task[0].task_number = (uint32_t)count;
	outb.cpu = c_n;
	outb.size = s.c_bytes;
	sub.outputs = &outb;
	sub.output_count = 1;
	if (npu_submit(&dev, &sub) != NPU_OK)
		fail_msg("matmul %d %ux%ux%u: submit failed (%s)", type, m, k, n,
			 sim_soc_last_error(soc));
	layout_nc1hwc2_to_nhwc(out_p, c_n, c, m, 1, n);

	for (unsigned int i = 0; i < m; i++)
		for (unsigned int j = 0; j < n; j++) {
			if (!fp16) {
				int32_t want = 0, got;

				for (unsigned int q = 0; q < k; q++)
					want += (int8_t)a[(size_t)i * k + q] * (int8_t)b[(size_t)q * n + j];
				memcpy(&got, c + ((size_t)i * n + j) * 4, 4);
				if (got != want)
					fail_msg("int8 %ux%ux%u C[%u][%u] = %d, want %d", m, k, n, i, j,
						 got, want);
				continue;
			}
			double want = 0, mag = 0, got;

			for (unsigned int q = 0; q < k; q++) {
				uint16_t x, y;

				memcpy(&x, a + ((size_t)i * k + q) * 2, 2);
				memcpy(&y, b + ((size_t)q * n + j) * 2, 2);
				want += (double)f16_to_f32(x) * f16_to_f32(y);
				mag += fabs((double)f16_to_f32(x) * f16_to_f32(y));
			}
			if (out_p == NPU_PREC_FP32) {
				float g;

				memcpy(&g, c + ((size_t)i * n + j) * 4, 4);
				got = g;
			} else {
				uint16_t h;

				memcpy(&h, c + ((size_t)i * n + j) * 2, 2);
				got = f16_to_f32(h);
			}
			/* fp32 accumulation error plus, for fp16 output, half an ulp
			 * of fp16 (2^-11 relative) */
			double tol = mag * 1e-5 + (out_p == NPU_PREC_FP16 ? fabs(want) / 2048 + 1e-4 : 0);

			if (fabs(got - want) > tol)
				fail_msg("fp16 %ux%ux%u C[%u][%u] = %g, want %g (tol %g)", m, k, n, i, j,
					 got, want, tol);
		}
	free(a);
	free(b);
	free(c);
	free(rt);
	free(tasks);
}

static void matmul_int8_int32(void **state)
{
	(void)state;
	run(LOWER_MM_INT8_INT32, 4, 32, 32, 1);
	run(LOWER_MM_INT8_INT32, 1, 64, 32, 1);
	run(LOWER_MM_INT8_INT32, 37, 96, 64, 1);
	run(LOWER_MM_INT8_INT32, 1024, 512, 64, 2);	/* A 512 KiB > 11 banks: rows split */
}

static void matmul_fp16_fp32(void **state)
{
	(void)state;
	run(LOWER_MM_FP16_FP32, 4, 32, 16, 1);
	run(LOWER_MM_FP16_FP32, 64, 128, 48, 1);
}

static void matmul_fp16_fp16(void **state)
{
	(void)state;
	run(LOWER_MM_FP16_FP16, 8, 64, 32, 1);
	run(LOWER_MM_FP16_FP16, 365, 448, 448, 7);	/* vendor GEMM tile, N split */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(matmul_int8_int32, setup, teardown),
		cmocka_unit_test_setup_teardown(matmul_fp16_fp32, setup, teardown),
		cmocka_unit_test_setup_teardown(matmul_fp16_fp16, setup, teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
