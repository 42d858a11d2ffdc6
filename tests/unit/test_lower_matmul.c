/* SPDX-License-Identifier: MIT */
/*
 * Matmuls lowered by runtime/ and run on the NPU model through the driver,
 * compared with a CPU matmul written here: int8 × int8 → int32 exactly;
 * fp16 × fp16 → fp32 / fp16 within a stated tolerance (the model
 * accumulates in fp32, sim/ASSUMPTIONS.md). Includes shapes larger than
 * one CBUF load (rows split) and than the weight banks (N split); int4 ×
 * int4 → int16 exactly, saturated sums included.
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_matmul.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

/* count random elements: any int8, or fp16 multiples of 1/500 in [-2, 2]. */
static void fill_random(uint8_t *dst, size_t count, bool fp16)
{
	for (size_t i = 0; i < count; i++) {
		if (fp16) {
			uint16_t h = ref_f32_to_f16(((int)(fx_rng() % 2001) - 1000) / 500.0f);

			memcpy(dst + i * 2, &h, 2);
		} else {
			dst[i] = (uint8_t)fx_rng();
		}
	}
}

/* op on the operands at a_n, b_n (native layouts) into c_n: lowered into
 * want_tasks tasks, linked and run on the model (the program freed after). */
static void lower_and_run(struct lower_matmul_op *op, uint8_t *a_n, uint8_t *b_n, uint8_t *c_n,
			  size_t c_bytes, size_t want_tasks, const char *name)
{
	struct fx_program f;
	size_t count;

	op->a_addr = fx_phys(a_n);
	op->b_addr = fx_phys(b_n);
	op->c_addr = fx_phys(c_n);
	assert_int_equal(lower_matmul_task_count(op, &count), 0);
	assert_int_equal(count, want_tasks);
	fx_program_init(&f, count, CONV_TASK_MAX_ENTRIES);
	assert_int_equal(lower_matmul(&f.p, op), 0);
	fx_program_link(&f, count);
	fx_run(f.tasks, count, c_n, c_bytes, name);
	fx_program_free(&f);
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
	char name[64];

	snprintf(name, sizeof(name), "matmul %d %ux%ux%u", type, m, k, n);
	fx_rng_seed(0x1234567ull + m * 31 + k * 7 + n + type);
	fx_dma_reset();
	assert_true(a && b && c);
	fill_random(a, (size_t)m * k, fp16);
	fill_random(b, (size_t)k * n, fp16);
	assert_int_equal(lower_matmul_check(&op, &s), 0);
	a_n = fx_dma_alloc(s.a_bytes);
	b_n = fx_dma_alloc(s.b_bytes);
	c_n = fx_dma_alloc(s.c_bytes);
	layout_nhwc_to_nc1hwc2(in_p, a, a_n, m, 1, k, k);
	if (fp16)
		layout_matmul_b_fp16((const uint16_t *)b, (uint16_t *)b_n, k, n, k, n);
	else
		layout_matmul_b_int8((const int8_t *)b, (int8_t *)b_n, k, n, k, n);
	lower_and_run(&op, a_n, b_n, c_n, s.c_bytes, want_tasks, name);
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
				want += (double)ref_f16_to_f32(x) * ref_f16_to_f32(y);
				mag += fabs((double)ref_f16_to_f32(x) * ref_f16_to_f32(y));
			}
			if (out_p == NPU_PREC_FP32) {
				float g;

				memcpy(&g, c + ((size_t)i * n + j) * 4, 4);
				got = g;
			} else {
				uint16_t h;

				memcpy(&h, c + ((size_t)i * n + j) * 2, 2);
				got = ref_f16_to_f32(h);
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
}

static void matmul_int8_int32(void **state)
{
	(void)state;
	run(LOWER_MM_INT8_INT32, 4, 32, 32, 1);
	run(LOWER_MM_INT8_INT32, 1, 64, 32, 1);
	run(LOWER_MM_INT8_INT32, 37, 96, 64, 1);
	run(LOWER_MM_INT8_INT32, 1024, 512, 64, 2);	/* A 512 KiB > 11 banks: rows split */
	/* A fits the CBUF, but feature_grains (rows + 1, 10 bits) cuts 1022 rows a task */
	run(LOWER_MM_INT8_INT32, 1500, 32, 32, 2);
}

static void matmul_fp16_fp32(void **state)
{
	(void)state;
	run(LOWER_MM_FP16_FP32, 4, 32, 16, 1);
	run(LOWER_MM_FP16_FP32, 64, 128, 48, 1);
	run(LOWER_MM_FP16_FP32, 2047, 32, 16, 3);	/* 1022 + 1022 + 3 rows */
}

static void matmul_fp16_fp16(void **state)
{
	(void)state;
	run(LOWER_MM_FP16_FP16, 8, 64, 32, 1);
	run(LOWER_MM_FP16_FP16, 365, 448, 448, 7);	/* vendor GEMM tile, N split */
}

/*
 * int4 × int4 → int16 (HARDWARE.md §5.7) on the model's int4 mode, against
 * packing and sums written here from the layouts the board-run int4 matmuls
 * use: A (K/32, M, 32), B (N/64, K/32, 64, 32), two values a byte, the even
 * element in the low nibble; C int16 (N/8, M, 8), the sum saturated.
 */
static void put_nibble(uint8_t *buf, size_t i, int v)
{
	unsigned int shift = i % 2 ? 4 : 0;

	buf[i / 2] = (uint8_t)((buf[i / 2] & ~(0xfu << shift)) | (((unsigned int)v & 0xfu) << shift));
}

static void run_int4(unsigned int m, unsigned int k, unsigned int n, int fill_lo, int fill_hi,
		     size_t want_tasks)
{
	struct lower_matmul_op op = { .type = LOWER_MM_INT4_INT16, .m = m, .k = k, .n = n };
	struct lower_matmul_shape s;
	int8_t *a = malloc((size_t)m * k), *b = malloc((size_t)k * n);
	uint8_t *a_n, *b_n, *c_n;
	char name[64];
	int span = fill_hi - fill_lo + 1;

	snprintf(name, sizeof(name), "int4 matmul %ux%ux%u", m, k, n);
	fx_rng_seed(0x4444ull + m * 31 + k * 7 + n);
	fx_dma_reset();
	assert_true(a && b);
	for (size_t i = 0; i < (size_t)m * k; i++)
		a[i] = (int8_t)(fill_lo + (int)(fx_rng() % (unsigned int)span));
	for (size_t i = 0; i < (size_t)k * n; i++)
		b[i] = (int8_t)(fill_lo + (int)(fx_rng() % (unsigned int)span));
	assert_int_equal(lower_matmul_check(&op, &s), 0);
	assert_int_equal(s.a_bytes, (size_t)m * k / 2);
	assert_int_equal(s.b_bytes, (size_t)k * n / 2);
	assert_int_equal(s.c_bytes, (size_t)m * n * 2);
	a_n = fx_dma_alloc(s.a_bytes);
	b_n = fx_dma_alloc(s.b_bytes);
	c_n = fx_dma_alloc(s.c_bytes);
	for (unsigned int i = 0; i < m; i++)
		for (unsigned int q = 0; q < k; q++)
			put_nibble(a_n, ((size_t)(q / 32) * m + i) * 32 + q % 32, a[(size_t)i * k + q]);
	for (unsigned int q = 0; q < k; q++)
		for (unsigned int j = 0; j < n; j++)
			put_nibble(b_n, (((size_t)(j / 64) * (k / 32) + q / 32) * 64 + j % 64) * 32 +
				   q % 32, b[(size_t)q * n + j]);
	lower_and_run(&op, a_n, b_n, c_n, s.c_bytes, want_tasks, name);

	for (unsigned int i = 0; i < m; i++)
		for (unsigned int j = 0; j < n; j++) {
			int64_t sum = 0;
			int16_t got;

			for (unsigned int q = 0; q < k; q++)
				sum += a[(size_t)i * k + q] * b[(size_t)q * n + j];
			sum = sum > INT16_MAX ? INT16_MAX : sum < INT16_MIN ? INT16_MIN : sum;
			memcpy(&got, c_n + (((size_t)(j / 8) * m + i) * 8 + j % 8) * 2, 2);
			if (got != sum)
				fail_msg("%s C[%u][%u] = %d, want %lld", name, i, j, got,
					 (long long)sum);
		}
	free(a);
	free(b);
}

static void matmul_int4_int16(void **state)
{
	(void)state;
	run_int4(4, 32, 64, -8, 7, 1);
	run_int4(17, 160, 128, -8, 7, 1);
	run_int4(1024, 1024, 64, -8, 7, 2);	/* A 512 KiB: rows split */
	run_int4(3, 8192, 128, -8, 7, 2);	/* B 512 KiB: one 64-kernel group a task */
	run_int4(2, 1024, 64, -8, -5, 1);	/* every sum past int16: saturated */
	run_int4(2, 1024, 64, 4, 7, 1);
}

/* Other int4 sizes are refused by name: N not a multiple of 64, K past
 * one segment. */
static void matmul_int4_refused(void **state)
{
	struct lower_matmul_op op = { .type = LOWER_MM_INT4_INT16, .m = 4, .k = 64, .n = 32,
				      .a_addr = 0x1000, .b_addr = 0x2000, .c_addr = 0x3000 };
	struct lower_matmul_shape s;
	enum lower_mm_type t;

	(void)state;
	assert_int_equal(lower_matmul_check(&op, &s), -EINVAL);
	op.n = 64;
	op.k = 8192 + 32;
	assert_int_equal(lower_matmul_check(&op, &s), -EINVAL);
	assert_int_equal(lower_matmul_type_parse("int4:int16", &t), 0);
	assert_int_equal(t, LOWER_MM_INT4_INT16);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(matmul_int8_int32, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(matmul_fp16_fp32, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(matmul_fp16_fp16, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(matmul_int4_int16, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(matmul_int4_refused, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
