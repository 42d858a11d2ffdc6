/* SPDX-License-Identifier: MIT */
/*
 * rkb_chain (include/rkbare/rkb_chain.h) on the NPU model through the
 * driver: each matmul and add type against a CPU reference written here,
 * a stage of dependent ops in one kick, several stages sharing tensors,
 * the refusals of bad arguments, and the pool as it was after destroy and
 * after a failed finish.
 */
#include <math.h>
#include <stdbool.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "rknn_api.h"
#include "rkbare/rkb_chain.h"
#include "compiler/layout.h"
#include "runtime/dma_pool.h"

#include "npu_fixture.h"

#define K 96
#define N 64

static struct rkb_chain *open_chain(unsigned int stages)
{
	struct rkb_chain_config cfg = { .stages = stages, .core = 0, .dev = &fx_dev,
					.pool = &fx_pool };
	struct rkb_chain *c;

	assert_int_equal(rkb_chain_create(&c, &cfg), RKNN_SUCC);
	return c;
}

static int tensor(struct rkb_chain *c, const char *name, enum rkb_chain_type t, unsigned int len,
		  float scale)
{
	int id;

	assert_int_equal(rkb_chain_tensor(c, name, t, len, scale, &id), RKNN_SUCC);
	return id;
}

static int8_t *random_int8(size_t n, int lo, int hi)
{
	int8_t *p = malloc(n);

	assert_non_null(p);
	for (size_t i = 0; i < n; i++)
		p[i] = (int8_t)fx_rng_range(lo, hi);
	return p;
}

static float *random_scales(size_t n, float lo, float hi)
{
	float *s = malloc(n * sizeof(float));

	assert_non_null(s);
	for (size_t i = 0; i < n; i++)
		s[i] = lo + (hi - lo) * (float)fx_rng_range(0, 1000) / 1000.0f;
	return s;
}

static void kicked_once(const struct rkb_chain *c, uint64_t runs)
{
	struct rkb_chain_stats st;

	rkb_chain_get_stats(c, &st);
	assert_int_equal(st.runs, runs);
	assert_int_equal(st.kicks, runs);
}

/* a INT8 · w INT8 per channel → INT32 raw sums (exact) and → INT8
 * requantised (the real-valued requantisation, within one step). */
static void int8_matmuls(void **state)
{
	struct rkb_chain *c = open_chain(1);
	int8_t *a = random_int8(K, -127, 127), *w = random_int8((size_t)K * N, -127, 127);
	float *ws = random_scales(N, 0.002f, 0.02f), a_scale = 0.05f, o_scale = 0.4f;
	struct rkb_chain_weights cw = { .type = RKB_CHAIN_W_INT8, .k = K, .n = N, .data = w,
					.scale = ws };
	int ta = tensor(c, "a", RKB_CHAIN_INT8, K, a_scale);
	int raw = tensor(c, "raw", RKB_CHAIN_INT32, N, 0);
	int req = tensor(c, "req", RKB_CHAIN_INT8, N, o_scale);

	assert_int_equal(rkb_chain_matmul(c, 0, "raw", ta, &cw, raw), RKNN_SUCC);
	assert_int_equal(rkb_chain_matmul(c, 0, "req", ta, &cw, req), RKNN_SUCC);
	assert_int_equal(rkb_chain_finish(c), RKNN_SUCC);
	memcpy(rkb_chain_data(c, ta), a, K);
	assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
	for (int n = 0; n < N; n++) {
		int32_t sum = 0;
		double real;
		long want;

		for (int k = 0; k < K; k++)
			sum += a[k] * w[k * N + n];
		assert_int_equal(((int32_t *)rkb_chain_data(c, raw))[n], sum);
		real = (double)sum * a_scale * ws[n] / o_scale;
		want = lround(real);
		want = want > 127 ? 127 : want < -128 ? -128 : want;
		assert_true(labs(((int8_t *)rkb_chain_data(c, req))[n] - want) <= 1);
	}
	kicked_once(c, 1);
	rkb_chain_destroy(c);
	free(a);
	free(w);
	free(ws);
}

static float half_round(float v)
{
	return layout_f16_to_f32(layout_f32_to_f16(v));
}

/* fp16 · fp16 and fp16 · int4 per group (dequantised to fp16(s · q)): the
 * fp32 sums of the fp16 operands, rounded once to fp16 (within an fp16
 * rounding of the result, for the summation order). */
static void fp16_matmuls(void **state)
{
	const unsigned int g = 32;
	struct rkb_chain *c = open_chain(1);
	uint16_t *a16 = malloc(K * 2), *w16 = malloc((size_t)K * N * 2);
	uint8_t *w4 = calloc((size_t)K * N / 2, 1);
	int8_t *q4 = random_int8((size_t)K * N, -8, 7);
	float *gs = random_scales((size_t)K / g * N, 0.01f, 0.1f);
	struct rkb_chain_weights cw16 = { .type = RKB_CHAIN_W_FP16, .k = K, .n = N, .data = w16 };
	struct rkb_chain_weights cw4 = { .type = RKB_CHAIN_W_INT4, .k = K, .n = N, .data = w4,
					 .scale = gs, .group_size = g };
	int ta = tensor(c, "a", RKB_CHAIN_FP16, K, 0), o16 = tensor(c, "o16", RKB_CHAIN_FP16, N, 0);
	int o4 = tensor(c, "o4", RKB_CHAIN_FP16, N, 0);

	assert_non_null(a16);
	assert_non_null(w16);
	assert_non_null(w4);
	for (int i = 0; i < K; i++)
		a16[i] = layout_f32_to_f16((float)fx_rng_range(-1000, 1000) / 1000.0f);
	for (int i = 0; i < K * N; i++) {
		w16[i] = layout_f32_to_f16((float)fx_rng_range(-1000, 1000) / 4000.0f);
		w4[i / 2] |= (uint8_t)((q4[i] & 0xF) << (i % 2 ? 4 : 0));
	}
	assert_int_equal(rkb_chain_matmul(c, 0, "w16", ta, &cw16, o16), RKNN_SUCC);
	assert_int_equal(rkb_chain_matmul(c, 0, "w4", ta, &cw4, o4), RKNN_SUCC);
	assert_int_equal(rkb_chain_finish(c), RKNN_SUCC);
	memcpy(rkb_chain_data(c, ta), a16, K * 2);
	assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
	for (int n = 0; n < N; n++) {
		float s16 = 0.0f, s4 = 0.0f, got16, got4;

		for (int k = 0; k < K; k++) {
			float a = layout_f16_to_f32(a16[k]);

			s16 += a * layout_f16_to_f32(w16[k * N + n]);
			s4 += a * half_round(gs[(k / g) * N + n] * (float)q4[k * N + n]);
		}
		got16 = layout_f16_to_f32(((uint16_t *)rkb_chain_data(c, o16))[n]);
		got4 = layout_f16_to_f32(((uint16_t *)rkb_chain_data(c, o4))[n]);
		assert_true(fabsf(got16 - s16) <= fabsf(s16) / 1024.0f + 1e-3f);
		assert_true(fabsf(got4 - s4) <= fabsf(s4) / 1024.0f + 1e-3f);
	}
	kicked_once(c, 1);
	rkb_chain_destroy(c);
	free(a16);
	free(w16);
	free(w4);
	free(q4);
	free(gs);
}

/* One stage: h = x + y (int8), then out = h · W (raw sums) reading h: the
 * matmul sees the add's output in the same kick. A second stage reuses h. */
static void chained_stage(void **state)
{
	struct rkb_chain *c = open_chain(2);
	int8_t *x = random_int8(K, -60, 60), *y = random_int8(K, -60, 60);
	int8_t *w = random_int8((size_t)K * N, -127, 127);
	float *ws = random_scales(N, 0.002f, 0.02f);
	struct rkb_chain_weights cw = { .type = RKB_CHAIN_W_INT8, .k = K, .n = N, .data = w,
					.scale = ws };
	int tx = tensor(c, "x", RKB_CHAIN_INT8, K, 0.05f), ty = tensor(c, "y", RKB_CHAIN_INT8, K, 0.05f);
	int th = tensor(c, "h", RKB_CHAIN_INT8, K, 0.1f), out = tensor(c, "out", RKB_CHAIN_INT32, N, 0);
	int th2 = tensor(c, "h2", RKB_CHAIN_INT8, K, 0.1f);
	int8_t h[K];

	assert_int_equal(rkb_chain_add(c, 0, "res", tx, ty, th), RKNN_SUCC);
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", th, &cw, out), RKNN_SUCC);
	assert_int_equal(rkb_chain_add(c, 1, "again", th, th, th2), RKNN_SUCC);
	assert_int_equal(rkb_chain_finish(c), RKNN_SUCC);
	memcpy(rkb_chain_data(c, tx), x, K);
	memcpy(rkb_chain_data(c, ty), y, K);
	assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
	memcpy(h, rkb_chain_data(c, th), K);
	for (int k = 0; k < K; k++)	/* (x + y) · 0.05 / 0.1: halves of integers */
		assert_true(abs(h[k] - (x[k] + y[k]) / 2) <= 1);
	for (int n = 0; n < N; n++) {
		int32_t sum = 0;

		for (int k = 0; k < K; k++)
			sum += h[k] * w[k * N + n];
		assert_int_equal(((int32_t *)rkb_chain_data(c, out))[n], sum);
	}
	assert_int_equal(rkb_chain_run(c, 1), RKNN_SUCC);
	for (int k = 0; k < K; k++)
		assert_int_equal(((int8_t *)rkb_chain_data(c, th2))[k], 2 * h[k]);
	kicked_once(c, 2);
	rkb_chain_destroy(c);
	free(x);
	free(y);
	free(w);
	free(ws);
}

/* fp16 add: one rounding of the fp32 sum. */
static void fp16_add(void **state)
{
	struct rkb_chain *c = open_chain(1);
	int a = tensor(c, "a", RKB_CHAIN_FP16, K, 0), b = tensor(c, "b", RKB_CHAIN_FP16, K, 0);
	int o = tensor(c, "o", RKB_CHAIN_FP16, K, 0);
	uint16_t *pa = rkb_chain_data(c, a), *pb = rkb_chain_data(c, b);

	assert_int_equal(rkb_chain_add(c, 0, "add", a, b, o), RKNN_SUCC);
	assert_int_equal(rkb_chain_finish(c), RKNN_SUCC);
	for (int i = 0; i < K; i++) {
		pa[i] = layout_f32_to_f16((float)fx_rng_range(-3000, 3000) / 1000.0f);
		pb[i] = layout_f32_to_f16((float)fx_rng_range(-3000, 3000) / 1000.0f);
	}
	assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
	for (int i = 0; i < K; i++)
		assert_int_equal(((uint16_t *)rkb_chain_data(c, o))[i],
				 layout_f32_to_f16(layout_f16_to_f32(pa[i]) +
						   layout_f16_to_f32(pb[i])));
	rkb_chain_destroy(c);
}

/*
 * INT8 → FP16 → INT8 through rkb_chain_convert against the header's
 * definitions computed here: fp16(q · fp16(scale)) up, and down x ·
 * fp16(1 / scale) rounded by the C library in its default mode (to
 * nearest, halves to even), clamped. Every int8 value; then fp16 inputs on
 * exact halves and past the int8 range.
 */
#define CVT_LEN		256
static void conversions(void **state)
{
	const float up_scale = 0.0236f, down_scale = 0.5f;
	struct rkb_chain *c = open_chain(2);
	int q = tensor(c, "q", RKB_CHAIN_INT8, CVT_LEN, up_scale);
	int f = tensor(c, "f", RKB_CHAIN_FP16, CVT_LEN, 0);
	int back = tensor(c, "back", RKB_CHAIN_INT8, CVT_LEN, down_scale);
	int x = tensor(c, "x", RKB_CHAIN_FP16, CVT_LEN, 0);
	int halves = tensor(c, "halves", RKB_CHAIN_INT8, CVT_LEN, down_scale);
	int8_t *pq = rkb_chain_data(c, q);
	uint16_t *px = rkb_chain_data(c, x);
	float up = half_round(up_scale), down = half_round(1.0f / down_scale);

	assert_int_equal(rkb_chain_convert(c, 0, "up", q, f), RKNN_SUCC);
	assert_int_equal(rkb_chain_convert(c, 0, "down", f, back), RKNN_SUCC);
	assert_int_equal(rkb_chain_convert(c, 1, "halves", x, halves), RKNN_SUCC);
	assert_int_equal(rkb_chain_finish(c), RKNN_SUCC);
	for (int i = 0; i < CVT_LEN; i++) {
		pq[i] = (int8_t)(i + INT8_MIN);
		/* k/2 + 1/4 for k over ±160: halves after the factor 2, and
		 * values past ±127.5 that saturate */
		px[i] = layout_f32_to_f16((float)(i - CVT_LEN / 2) * 1.25f + 0.25f);
	}
	assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
	assert_int_equal(rkb_chain_run(c, 1), RKNN_SUCC);
	for (int i = 0; i < CVT_LEN; i++) {
		float want_f = half_round((float)pq[i] * up);
		float in[2] = { want_f, layout_f16_to_f32(px[i]) };
		const int8_t *got[2] = { rkb_chain_data(c, back), rkb_chain_data(c, halves) };

		assert_int_equal(((uint16_t *)rkb_chain_data(c, f))[i], layout_f32_to_f16(want_f));
		for (int j = 0; j < 2; j++) {
			float r = nearbyintf(in[j] * down);

			r = r > INT8_MAX ? INT8_MAX : r < INT8_MIN ? INT8_MIN : r;
			assert_int_equal(got[j][i], (int)r);
		}
	}
	rkb_chain_destroy(c);
}

/* One fp16 tensor's values as floats. */
static float f16_at(struct rkb_chain *c, int t, unsigned int i)
{
	return layout_f16_to_f32(((const uint16_t *)rkb_chain_data(c, t))[i]);
}

/*
 * RMSNorm on the NPU against the definition in double: lengths a power of
 * two and not, rms at the bottom, middle and top of the range the table is
 * made for, four ranges. The bound: rkb_chain.h's 2.5e-3 of the value (the
 * table's steps, its entries' rounding, the output's fp16 rounding).
 */
#define NORM_TOL_REL	2.5e-3
static void rmsnorm_steps(void **state)
{
	static const unsigned int lens[] = { 32, 256, 992, 4096 };
	static const float maxes[] = { 1.0f, 4.0f, 64.0f, 512.0f };
	static const float fractions[] = { 1.0f / 16.0f, 0.3f, 1.0f };
	const float eps = 1e-5f;

	for (size_t li = 0; li < sizeof(lens) / sizeof(lens[0]); li++)
		for (size_t mi = 0; mi < sizeof(maxes) / sizeof(maxes[0]); mi++) {
			unsigned int n = lens[li], nf = sizeof(fractions) / sizeof(fractions[0]);
			struct rkb_chain *c = open_chain(1);
			int a = tensor(c, "a", RKB_CHAIN_FP16, n, 0), o = tensor(c, "o", RKB_CHAIN_FP16, n, 0);
			uint16_t *pa = rkb_chain_data(c, a);
			double worst = 0.0;

			assert_int_equal(rkb_chain_rmsnorm(c, 0, "norm", a, eps, maxes[mi], o),
					 RKNN_SUCC);
			assert_int_equal(rkb_chain_finish(c), RKNN_SUCC);
			for (size_t fi = 0; fi < nf; fi++) {
				double ss = 0.0, want = maxes[mi] * fractions[fi], r;

				/* uniform on [-1, 1] has rms 1 / sqrt(3) */
				for (unsigned int i = 0; i < n; i++) {
					float u = (float)fx_rng_range(-1000, 1000) / 1000.0f;

					pa[i] = layout_f32_to_f16(u * (float)(want * sqrt(3.0)));
					ss += (double)layout_f16_to_f32(pa[i]) * layout_f16_to_f32(pa[i]);
				}
				r = 1.0 / sqrt(ss / n + eps);
				assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
				for (unsigned int i = 0; i < n; i++) {
					double ref = layout_f16_to_f32(pa[i]) * r;
					double err = fabs(f16_at(c, o, i) - ref) /
						     fmax(1.0, fabs(ref));

					worst = fmax(worst, err);
				}
			}
			assert_true(worst <= NORM_TOL_REL);
			rkb_chain_destroy(c);
		}
}

/*
 * SiLU · up on the NPU against the definition in double, gate over the
 * whole table and past it. The bound: rkb_chain.h's 7e-4 of silu (the
 * input's rounding to 2^-12, the entries' and the interpolation's to
 * 2^-11) times |up|, plus the fp16 roundings of silu's 2^11-scaled value
 * and of the product.
 */
#define SWIGLU_TOL_SILU	7e-4
#define SWIGLU_LEN	512u
static void swiglu_steps(void **state)
{
	struct rkb_chain *c = open_chain(1);
	int g = tensor(c, "g", RKB_CHAIN_FP16, SWIGLU_LEN, 0), u = tensor(c, "u", RKB_CHAIN_FP16, SWIGLU_LEN, 0);
	int o = tensor(c, "o", RKB_CHAIN_FP16, SWIGLU_LEN, 0);
	uint16_t *pg = rkb_chain_data(c, g), *pu = rkb_chain_data(c, u);

	assert_int_equal(rkb_chain_swiglu(c, 0, "mlp", g, u, o), RKNN_SUCC);
	assert_int_equal(rkb_chain_finish(c), RKNN_SUCC);
	for (unsigned int i = 0; i < SWIGLU_LEN; i++) {
		/* gate from -20 to 20 in even steps, up random */
		pg[i] = layout_f32_to_f16(-20.0f + 40.0f * (float)i / (SWIGLU_LEN - 1));
		pu[i] = layout_f32_to_f16((float)fx_rng_range(-3000, 3000) / 1000.0f);
	}
	assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
	for (unsigned int i = 0; i < SWIGLU_LEN; i++) {
		double x = layout_f16_to_f32(pg[i]), up = layout_f16_to_f32(pu[i]);
		double s = x / (1.0 + exp(-x)), ref = s * up;
		/* fp16 rounding of 2^11 · s (relative 2^-11) and of the product */
		double tol = (SWIGLU_TOL_SILU + fabs(s) * 0x1p-11) * fabs(up) +
			     fabs(ref) * 0x1p-11;

		assert_true(fabs(f16_at(c, o, i) - ref) <= tol);
	}
	rkb_chain_destroy(c);
}

/* The steps' bad arguments: refused naming the field, nothing kept. */
static void step_refusals(void **state)
{
	struct dma_pool_stats before, after;
	struct rkb_chain *c;
	int f, f2, q, q8, big, tiny;

	c = open_chain(1);
	f = tensor(c, "f", RKB_CHAIN_FP16, 64, 0);
	f2 = tensor(c, "f2", RKB_CHAIN_FP16, 64, 0);
	q = tensor(c, "q", RKB_CHAIN_FP16, 32, 0);
	q8 = tensor(c, "q8", RKB_CHAIN_INT8, 64, 0.1f);
	big = tensor(c, "big", RKB_CHAIN_FP16, 128, 0);
	tiny = tensor(c, "tiny", RKB_CHAIN_INT8, 64, 1e-6f);	/* 1 / scale past fp16 */
	fx_pool_snapshot(&fx_pool, &before);
	assert_int_equal(rkb_chain_rmsnorm(c, 0, "n", q8, 1e-5f, 4.0f, f), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_rmsnorm(c, 0, "n", f, 1e-5f, 4.0f, f), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_rmsnorm(c, 0, "n", f, 1e-5f, 4.0f, q), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_rmsnorm(c, 0, "n", f, -1.0f, 4.0f, f2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_rmsnorm(c, 0, "n", f, 1e-5f, 0.5f, f2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_rmsnorm(c, 0, "n", f, 1e-5f, 600.0f, f2),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_rmsnorm(c, 1, "n", f, 1e-5f, 4.0f, f2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_swiglu(c, 0, "s", f, q8, f2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_swiglu(c, 0, "s", f, f2, f2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_swiglu(c, 0, "s", f, big, f2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_convert(c, 0, "c", f, f2), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_convert(c, 0, "c", q8, q8), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_convert(c, 0, "c", q8, q), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_convert(c, 0, "c", f, tiny), RKNN_ERR_PARAM_INVALID);
	fx_pool_snapshot(&fx_pool, &after);
	fx_assert_pool_equal(&before, &after);
	rkb_chain_destroy(c);
}

/* Bad arguments refused (the message names the field), nothing kept. */
static void refusals(void **state)
{
	struct rkb_chain_config cfg = { .stages = 0, .dev = &fx_dev, .pool = &fx_pool };
	struct dma_pool_stats before, after;
	struct rkb_chain *c;
	int8_t w[64 * 32] = { 0 };
	float s[32], gs[2 * 32];
	struct rkb_chain_weights cw = { .type = RKB_CHAIN_W_INT8, .k = 64, .n = 32, .data = w,
					.scale = s };
	int a, o, f, f32, f64b, id;

	for (int i = 0; i < 32; i++)
		s[i] = 0.01f;
	for (int i = 0; i < 64; i++)
		gs[i] = 0.01f;
	fx_pool_snapshot(&fx_pool, &before);
	assert_int_equal(rkb_chain_create(&c, &cfg), RKNN_ERR_PARAM_INVALID);
	cfg.stages = 1;
	cfg.core = 3;
	assert_int_equal(rkb_chain_create(&c, &cfg), RKNN_ERR_PARAM_INVALID);
	cfg.core = 0;
	cfg.pool = NULL;
	assert_int_equal(rkb_chain_create(&c, &cfg), RKNN_ERR_PARAM_INVALID);
	c = open_chain(2);
	assert_int_equal(rkb_chain_tensor(c, "odd", RKB_CHAIN_INT8, 40, 0.1f, &id),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_tensor(c, "big", RKB_CHAIN_FP16, 8192, 0, &id),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_tensor(c, "noscale", RKB_CHAIN_INT8, 64, 0, &id),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_tensor(c, "scale16", RKB_CHAIN_FP16, 64, 1.0f, &id),
			 RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_tensor(c, "", RKB_CHAIN_FP16, 64, 0, &id),
			 RKNN_ERR_PARAM_INVALID);
	a = tensor(c, "a", RKB_CHAIN_INT8, 64, 0.1f);
	o = tensor(c, "o", RKB_CHAIN_INT32, 32, 0);
	f = tensor(c, "f", RKB_CHAIN_FP16, 64, 0);
	f32 = tensor(c, "f32", RKB_CHAIN_FP16, 32, 0);
	f64b = tensor(c, "f64b", RKB_CHAIN_FP16, 64, 0);
	/* stage, tensor ids, shapes, types, scales, groups */
	assert_int_equal(rkb_chain_matmul(c, 2, "mm", a, &cw, o), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", 7, &cw, o), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", a, NULL, o), RKNN_ERR_PARAM_INVALID);
	cw.k = 32;
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", a, &cw, o), RKNN_ERR_PARAM_INVALID);
	cw.k = 64;
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", f, &cw, o), RKNN_ERR_PARAM_INVALID);
	s[5] = 0.0f;
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", a, &cw, o), RKNN_ERR_PARAM_INVALID);
	s[5] = 0.01f;
	cw.group_size = 32;
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", a, &cw, o), RKNN_ERR_PARAM_INVALID);
	cw = (struct rkb_chain_weights){ .type = RKB_CHAIN_W_INT4, .k = 64, .n = 32, .data = w,
					 .scale = gs, .group_size = 48 };
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", f, &cw, f32), RKNN_ERR_PARAM_INVALID);
	cw.group_size = 32;
	cw.scale = NULL;
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", f, &cw, f32), RKNN_ERR_PARAM_INVALID);
	cw.scale = gs;
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", f, &cw, f), RKNN_ERR_PARAM_INVALID);
	/* a matmul writing its own input */
	cw = (struct rkb_chain_weights){ .type = RKB_CHAIN_W_FP16, .k = 64, .n = 64, .data = w };
	assert_int_equal(rkb_chain_matmul(c, 0, "mm", f, &cw, f), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_add(c, 0, "add", a, f, a), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_add(c, 0, "add", o, o, o), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_run(c, 0), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_add(c, 0, "add", a, a, a), RKNN_ERR_PARAM_INVALID);
	/* stage 1 empty: finish refused, the chain broken, its memory freed
	 * by destroy */
	assert_int_equal(rkb_chain_add(c, 0, "add", f, f, f64b), RKNN_SUCC);
	assert_int_equal(rkb_chain_finish(c), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_add(c, 1, "late", f, f, f64b), RKNN_ERR_PARAM_INVALID);
	assert_int_equal(rkb_chain_run(c, 0), RKNN_ERR_PARAM_INVALID);
	rkb_chain_destroy(c);
	fx_pool_snapshot(&fx_pool, &after);
	fx_assert_pool_equal(&before, &after);
}

/* A chain's ops, added to c (one stage): 0 or the first failure. */
typedef int (*chain_build_fn)(struct rkb_chain *c, const void *ctx);

/*
 * Every allocation failing in turn: the chain `build` makes, on a pool of
 * `step`, 2·step, ... bytes cut from a region of region_bytes, until one
 * finishes and runs. Each smaller pool fails at some tensor, op or the
 * program at finish: the call reports RKNN_ERR_MALLOC_FAIL, and after
 * destroy the pool holds nothing.
 */
static void exhaust(size_t region_bytes, size_t step, chain_build_fn build, const void *ctx)
{
	struct dma_buf region;
	bool finished = false;

	assert_int_equal(dma_pool_alloc(&fx_pool, region_bytes, DMA_POOL_MIN_ALIGN, &region), 0);
	for (size_t size = step; !finished; size += step) {
		struct dma_pool small;
		struct dma_pool_stats st;
		struct rkb_chain_config cfg = { .stages = 1, .dev = &fx_dev, .pool = &small };
		struct rkb_chain *c;
		int rc;

		assert_true(size <= region.size);
		assert_int_equal(dma_pool_init(&small, region.cpu, region.phys, size), 0);
		assert_int_equal(rkb_chain_create(&c, &cfg), RKNN_SUCC);
		rc = build(c, ctx);
		if (!rc)
			rc = rkb_chain_finish(c);
		if (!rc) {
			finished = true;
			assert_int_equal(rkb_chain_run(c, 0), RKNN_SUCC);
		} else {
			assert_int_equal(rc, RKNN_ERR_MALLOC_FAIL);
		}
		rkb_chain_destroy(c);
		dma_pool_get_stats(&small, &st);
		assert_int_equal(st.live, 0);
	}
	assert_int_equal(dma_pool_free(&fx_pool, &region), 0);
}

/* An int8 add and matmul (the weights in ctx). */
static int build_add_matmul(struct rkb_chain *c, const void *ctx)
{
	int a, h, o, rc;

	rc = rkb_chain_tensor(c, "a", RKB_CHAIN_INT8, K, 0.05f, &a);
	if (!rc)
		rc = rkb_chain_tensor(c, "h", RKB_CHAIN_INT8, K, 0.1f, &h);
	if (!rc)
		rc = rkb_chain_tensor(c, "o", RKB_CHAIN_INT8, N, 0.3f, &o);
	if (!rc)
		rc = rkb_chain_add(c, 0, "res", a, a, h);
	if (!rc)
		rc = rkb_chain_matmul(c, 0, "mm", h, ctx, o);
	return rc;
}

/* The LUT steps, whose scratch tensors and constant weights are
 * allocations of their own: a step failing part-way takes back what it
 * added. */
static int build_steps(struct rkb_chain *c, const void *ctx)
{
	int a, n, m, rc;

	(void)ctx;
	rc = rkb_chain_tensor(c, "a", RKB_CHAIN_FP16, K, 0, &a);
	if (!rc)
		rc = rkb_chain_tensor(c, "n", RKB_CHAIN_FP16, K, 0, &n);
	if (!rc)
		rc = rkb_chain_tensor(c, "m", RKB_CHAIN_FP16, K, 0, &m);
	if (!rc)
		rc = rkb_chain_rmsnorm(c, 0, "norm", a, 1e-5f, 4.0f, n);
	if (!rc)
		rc = rkb_chain_swiglu(c, 0, "mlp", a, n, m);
	return rc;
}

#define EXHAUST_REGION		(64u * 1024u)
#define EXHAUST_STEP		256u
#define EXHAUST_STEPS_REGION	(256u * 1024u)	/* the steps' tables fill the stream */
#define EXHAUST_STEPS_STEP	512u

static void pool_exhaustion(void **state)
{
	int8_t *w = random_int8((size_t)K * N, -127, 127);
	float *ws = random_scales(N, 0.002f, 0.02f);
	struct rkb_chain_weights cw = { .type = RKB_CHAIN_W_INT8, .k = K, .n = N, .data = w,
					.scale = ws };

	exhaust(EXHAUST_REGION, EXHAUST_STEP, build_add_matmul, &cw);
	free(w);
	free(ws);
}

static void steps_pool_exhaustion(void **state)
{
	exhaust(EXHAUST_STEPS_REGION, EXHAUST_STEPS_STEP, build_steps, NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		FX_MATMUL_TEST(int8_matmuls),
		FX_MATMUL_TEST(fp16_matmuls),
		FX_MATMUL_TEST(chained_stage),
		FX_MATMUL_TEST(fp16_add),
		FX_MATMUL_TEST(conversions),
		FX_MATMUL_TEST(rmsnorm_steps),
		FX_MATMUL_TEST(swiglu_steps),
		FX_MATMUL_TEST(step_refusals),
		FX_MATMUL_TEST(refusals),
		FX_MATMUL_TEST(pool_exhaustion),
		FX_MATMUL_TEST(steps_pool_exhaustion),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
