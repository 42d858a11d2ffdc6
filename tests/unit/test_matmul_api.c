/* SPDX-License-Identifier: MIT */
/*
 * rknn_matmul_* (include/rkbare/rknn_matmul_api.h) end to end on the NPU
 * model: every supported type with K and N that need zero padding, normal
 * and native layouts (native A/B/C filled here from the layouts the vendor
 * header documents, dense for M = 1..3 too, in int8 and fp16), quantisation
 * parameters, core selection and the error paths. Results are checked
 * against a CPU matmul written here.
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

#include "rkbare/rknn_matmul_api.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

/* Requantisation as the TRM documents OUT_CVT with cvt_round 0: 15-bit
 * multiplier, no shift for scales of 2^15 and above, exact halves to even
 * (sim/ASSUMPTIONS.md A12). */
static int32_t requant(int64_t acc, double scale, int32_t zp)
{
	return (int32_t)ref_requant_scale(acc, scale, zp, INT8_MIN, INT8_MAX);
}

static void int8_normal(int m, int k, int n, rknn_matmul_type type, rknn_core_mask core)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = type };
	struct fx_mm r;
	const float sa = 0.05f, sb = 0.02f, sc = 0.9f;
	const int32_t za = 3, zb = -2, zc = -5;
	int8_t *a, *b;

	fx_rng_seed((uint64_t)m * 1000003u + (uint64_t)k * 101u + (uint64_t)n + type);
	fx_mm_open(&r, &info);
	assert_int_equal(rknn_matmul_set_core_mask(r.ctx, core), RKNN_SUCC);
	a = r.a->virt_addr;
	b = r.b->virt_addr;
	for (int i = 0; i < m * k; i++)
		a[i] = (int8_t)fx_rng();
	for (int i = 0; i < k * n; i++)
		b[i] = (int8_t)fx_rng();
	if (type == RKNN_INT8_MM_INT8_TO_INT8) {
		float s[3] = { sa, sb, sc };
		int32_t z[3] = { za, zb, zc };
		const char *names[3] = { "A", "B", "C" };

		for (int t = 0; t < 3; t++) {
			rknn_quant_params q = { .scale = &s[t], .scale_len = 1, .zp = &z[t],
						.zp_len = 1 };

			strcpy(q.name, names[t]);
			assert_int_equal(rknn_matmul_set_quant_params(r.ctx, &q), RKNN_SUCC);
		}
	}
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			int64_t acc = 0;

			if (type == RKNN_INT8_MM_INT8_TO_INT32) {
				int32_t got;

				for (int q = 0; q < k; q++)
					acc += a[i * k + q] * b[q * n + j];
				memcpy(&got, (uint8_t *)r.c->virt_addr + ((size_t)i * n + j) * 4,
				       sizeof(got));
				assert_int_equal(got, acc);
			} else {
				int8_t got = ((int8_t *)r.c->virt_addr)[i * n + j];

				for (int q = 0; q < k; q++)
					acc += (int64_t)(a[i * k + q] - za) * (b[q * n + j] - zb);
				assert_int_equal(got, requant(acc, (double)(sa * sb / sc), zc));
			}
		}
	fx_mm_close(&r);
}

static void api_int8_int32(void **state)
{
	(void)state;
	int8_normal(7, 50, 40, RKNN_INT8_MM_INT8_TO_INT32, RKNN_NPU_CORE_AUTO);
	int8_normal(64, 256, 96, RKNN_INT8_MM_INT8_TO_INT32, RKNN_NPU_CORE_1);
}

static void api_int8_int8(void **state)
{
	(void)state;
	int8_normal(9, 45, 33, RKNN_INT8_MM_INT8_TO_INT8, RKNN_NPU_CORE_2);
	int8_normal(32, 128, 64, RKNN_INT8_MM_INT8_TO_INT8, RKNN_NPU_CORE_0);
}

/* fp16 with native A, B and C, filled from the vendor's layout description:
 * A (K/8, M, 8), B through rknn_B_normal_layout_to_native_layout, C read as
 * (N/4, M, 4) fp32 or (N/8, M, 8) fp16. */
static void fp16_native(int m, int k, int n, rknn_matmul_type type)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = type, .B_layout = 1,
				  .AC_layout = 1 };
	struct fx_mm r;
	int k_al = (k + 31) / 32 * 32, rows = m;	/* dense for every M, as the vendor documents */
	uint16_t *a = calloc((size_t)m * k, 2), *b = calloc((size_t)k * n, 2);
	bool f32 = type == RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32;
	int c2 = f32 ? 4 : 8;

	fx_rng_seed((uint64_t)m * 7 + (uint64_t)k * 13 + (uint64_t)n);
	fx_mm_open(&r, &info);
	assert_int_equal(r.io.A.size, k_al / 8 * rows * 16);
	for (int i = 0; i < m * k; i++)
		a[i] = ref_f32_to_f16((float)((int)(fx_rng() % 255) - 127) / 64.0f);
	for (int i = 0; i < k * n; i++)
		b[i] = ref_f32_to_f16((float)((int)(fx_rng() % 255) - 127) / 64.0f);
	for (int i = 0; i < m; i++)
		for (int q = 0; q < k; q++)
			((uint16_t *)r.a->virt_addr)[((size_t)(q / 8) * rows + i) * 8 + q % 8] =
				a[i * k + q];
	assert_int_equal(rknn_B_normal_layout_to_native_layout(b, r.b->virt_addr, k, n, &info),
			 RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			double want = 0, got;
			size_t at = ((size_t)(j / c2) * rows + i) * c2 + j % c2;

			for (int q = 0; q < k; q++)
				want += (double)ref_f16_to_f32(a[i * k + q]) *
					ref_f16_to_f32(b[q * n + j]);
			if (f32) {
				float g;

				memcpy(&g, (uint8_t *)r.c->virt_addr + at * 4, 4);
				got = g;
			} else {
				got = ref_f16_to_f32(((uint16_t *)r.c->virt_addr)[at]);
			}
			/* products and sums of q/64 values are exact in fp32 here;
			 * fp16 output rounds to 11 significant bits */
			assert_true(fabs(got - want) <= (f32 ? 0.0 : fabs(want) / 2048.0 + 1e-6));
		}
	free(a);
	free(b);
	fx_mm_close(&r);
}

/* int8 -> int32 with native A (K/16, M, 16) and C (N/4, M, 4), the
 * vendor's documented layouts, dense for every M (no 4-row padding). */
static void int8_native(int m, int k, int n)
{
	rknn_matmul_info info = { .M = m, .K = k, .N = n, .type = RKNN_INT8_MM_INT8_TO_INT32,
				  .B_layout = 1, .AC_layout = 1 };
	struct fx_mm r;
	int k_al = (k + 31) / 32 * 32;
	int8_t *a = calloc((size_t)m * k, 1), *b = calloc((size_t)k * n, 1);

	fx_rng_seed((uint64_t)m * 11 + (uint64_t)k * 5 + (uint64_t)n);
	fx_mm_open(&r, &info);
	assert_int_equal(r.io.A.size, k_al / 16 * m * 16);
	for (int i = 0; i < m * k; i++)
		a[i] = (int8_t)fx_rng_range(-128, 127);
	for (int i = 0; i < k * n; i++)
		b[i] = (int8_t)fx_rng_range(-128, 127);
	for (int i = 0; i < m; i++)
		for (int q = 0; q < k; q++)
			((int8_t *)r.a->virt_addr)[((size_t)(q / 16) * m + i) * 16 + q % 16] =
				a[i * k + q];
	assert_int_equal(rknn_B_normal_layout_to_native_layout(b, r.b->virt_addr, k, n, &info),
			 RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(r.ctx), RKNN_SUCC);
	for (int i = 0; i < m; i++)
		for (int j = 0; j < n; j++) {
			int32_t want = 0, got;

			for (int q = 0; q < k; q++)
				want += a[i * k + q] * b[q * n + j];
			memcpy(&got, (uint8_t *)r.c->virt_addr +
				     (((size_t)(j / 4) * m + i) * 4 + j % 4) * 4, 4);
			if (got != want)
				fail_msg("int8 native M=%d K=%d N=%d: C[%d][%d] = %d, want %d", m, k,
					 n, i, j, got, want);
		}
	free(a);
	free(b);
	fx_mm_close(&r);
}

static void api_int8_native(void **state)
{
	(void)state;
	for (int m = 1; m <= 4; m++)
		int8_native(m, 64, 48);
	int8_native(2, 40, 20);
}

static void api_fp16(void **state)
{
	(void)state;
	fp16_native(5, 40, 20, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32);
	for (int m = 1; m <= 3; m++) {
		fp16_native(m, 64, 16, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16);
		fp16_native(m, 40, 20, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT32);
	}
	fp16_native(33, 70, 50, RKNN_FLOAT16_MM_FLOAT16_TO_FLOAT16);
}

static void api_errors(void **state)
{
	/* 13: a value rknn_matmul_type does not define. */
	rknn_matmul_info info = { .M = 4, .K = 32, .N = 32, .type = (rknn_matmul_type)13 };
	rknn_matmul_io_attr io;
	rknn_matmul_ctx ctx;
	float scales[2] = { 0.5f, 0.25f };
	rknn_quant_params q = { .name = "B", .scale = scales, .scale_len = 2 };

	(void)state;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
	info.type = RKNN_INT8_MM_INT8_TO_INT8;
	info.K = 0;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
	info.K = 32;
	info.B_quant_type = 1;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_ERR_PARAM_INVALID);
	info.B_quant_type = 0;
	assert_int_equal(rknn_matmul_create(&ctx, &info, &io), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(ctx), RKNN_ERR_INPUT_INVALID);
	assert_int_equal(rknn_matmul_set_quant_params(ctx, &q), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_set_core_mask(ctx, (rknn_core_mask)8), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rknn_matmul_destroy(ctx), RKNN_SUCC);
	assert_int_equal(rknn_matmul_run(0), RKNN_ERR_CTX_INVALID);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_MATMUL_TEST(api_int8_int32),
		FX_MATMUL_TEST(api_int8_int8),
		FX_MATMUL_TEST(api_fp16),
		FX_MATMUL_TEST(api_int8_native),
		FX_MATMUL_TEST(api_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
