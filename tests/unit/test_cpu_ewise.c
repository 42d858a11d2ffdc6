/* SPDX-License-Identifier: MIT */
/*
 * The element-wise CPU ops (runtime/cpu_ops.h): rkb_cpu_lut_build's tables
 * for every function (Pow's exponents integer of either sign and
 * fractional, Sqrt and Log below zero too: NaN, stored as the zero point),
 * and for a chain of three (hard-swish, a scale, a shift: one table),
 * against the ONNX definitions computed here in double and quantised with
 * ties to even (either neighbour accepted only within 10^-3 of a half,
 * where float and double may part); Lut's lookups, one table or one per
 * channel; Unary on fp16 maps within an fp16 rounding of the double result
 * (NaN where it is NaN); Binary's broadcasts, every op, Pow included (a
 * map and a [C,1,1] vector, two maps broadcasting each other, a 16 × 16 map
 * and a vector in either order, a constant plane first) in int8 and fp16
 * against index arithmetic written here; and the checks' refusals of
 * shapes that do not broadcast, parameters of the wrong size, a table on
 * fp16, an unknown function.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "runtime/cpu_ops.h"

#define C	20u	/* two int8 channel groups (the second partial), three fp16 */
#define H	3u
#define W	4u
#define GROUPS8		2u
#define GROUPS16	3u
#define ELEMS	(GROUPS8 * 16u * H * W)	/* = GROUPS16 * 8 * H * W */
#define SELU_A		1.67326319217681884765625
#define SELU_G		1.05070102214813232421875

static size_t at8(unsigned int h, unsigned int w, unsigned int c, unsigned int y, unsigned int x)
{
	return (((size_t)(c / 16u) * h + y) * w + x) * 16u + c % 16u;
}

static size_t at16(unsigned int h, unsigned int w, unsigned int c, unsigned int y,
		   unsigned int x)
{
	return (((size_t)(c / 8u) * h + y) * w + x) * 8u + c % 8u;
}

/* q = zp + round(v / scale), ties to even, saturated; *near_half when
 * v / scale lies so close to a half that float may round it the other way. */
static int ref_quant(double v, float scale, int32_t zp, bool *near_half)
{
	double x = v / scale, q;

	*near_half = false;
	if (isnan(x))
		return zp;
	if (isinf(x))
		return x > 0 ? 127 : -128;
	*near_half = fabs(x - floor(x) - 0.5) < 1e-3;
	q = nearbyint(x) + zp;
	return q < -128 ? -128 : q > 127 ? 127 : (int)q;
}

static double sigm(double v)
{
	return 1.0 / (1.0 + exp(-v));
}

/* The ONNX functions, in double. */
static double ref_fn(int32_t fn, double a, double b, double x)
{
	switch (fn) {
	case RKB_CPU_FN_RELU: return x > 0 ? x : 0;
	case RKB_CPU_FN_CLIP: return x < a ? a : x > b ? b : x;
	case RKB_CPU_FN_LEAKY_RELU: return x < 0 ? a * x : x;
	case RKB_CPU_FN_SIGMOID: return sigm(x);
	case RKB_CPU_FN_TANH: return tanh(x);
	case RKB_CPU_FN_HARD_SIGMOID: return fmax(0, fmin(1, a * x + b));
	case RKB_CPU_FN_HARD_SWISH: return x * fmax(0, fmin(1, x / 6 + 0.5));
	case RKB_CPU_FN_SWISH: return x * sigm(a * x);
	case RKB_CPU_FN_ELU: return x < 0 ? a * (exp(x) - 1) : x;
	case RKB_CPU_FN_SELU: return x <= 0 ? b * (a * exp(x) - a) : b * x;
	case RKB_CPU_FN_SOFTPLUS: return log(1 + exp(x));
	case RKB_CPU_FN_GELU:
		return a ? 0.5 * x * (1 + tanh(sqrt(2 / M_PI) * (x + 0.044715 * x * x * x))) :
		       0.5 * x * (1 + erf(x / sqrt(2)));
	case RKB_CPU_FN_ADD_K: return x + a;
	case RKB_CPU_FN_SUB_K: return x - a;
	case RKB_CPU_FN_K_SUB: return a - x;
	case RKB_CPU_FN_MUL_K: return x * a;
	case RKB_CPU_FN_DIV_K: return x / a;
	case RKB_CPU_FN_K_DIV: return x == 0 ? (a > 0 ? INFINITY : -INFINITY) : a / x;
	case RKB_CPU_FN_MAX_K: return x > a ? x : a;
	case RKB_CPU_FN_MIN_K: return x < a ? x : a;
	case RKB_CPU_FN_EXP: return exp(x);
	case RKB_CPU_FN_ABS: return fabs(x);
	case RKB_CPU_FN_SOFTSIGN: return x / (1 + fabs(x));
	case RKB_CPU_FN_SQRT: return sqrt(x);
	case RKB_CPU_FN_LOG: return log(x);
	case RKB_CPU_FN_POW_K: return pow(x, a);
	case RKB_CPU_FN_K_POW: return pow(a, x);
	default: return NAN;
	}
}

static double ref_bin(int32_t op, double a, double b)
{
	switch (op) {
	case RKB_CPU_BIN_ADD: return a + b;
	case RKB_CPU_BIN_SUB: return a - b;
	case RKB_CPU_BIN_MUL: return a * b;
	case RKB_CPU_BIN_DIV: return a / b;
	case RKB_CPU_BIN_MAX: return a > b ? a : b;
	case RKB_CPU_BIN_MIN: return a < b ? a : b;
	case RKB_CPU_BIN_POW: return pow(a, b);
	default: return a < 0 ? a * b : a;	/* PRelu */
	}
}

/* Every function with attributes of its own. */
static const struct rkb_cpu_fn_step fns[] = {
	{ RKB_CPU_FN_RELU, 0, 0 }, { RKB_CPU_FN_CLIP, -0.7f, 1.9f },
	{ RKB_CPU_FN_LEAKY_RELU, 0.13f, 0 }, { RKB_CPU_FN_SIGMOID, 0, 0 },
	{ RKB_CPU_FN_TANH, 0, 0 }, { RKB_CPU_FN_HARD_SIGMOID, 0.3f, 0.45f },
	{ RKB_CPU_FN_HARD_SWISH, 0, 0 }, { RKB_CPU_FN_SWISH, 1.3f, 0 },
	{ RKB_CPU_FN_ELU, 0.8f, 0 }, { RKB_CPU_FN_SELU, (float)SELU_A, (float)SELU_G },
	{ RKB_CPU_FN_SOFTPLUS, 0, 0 }, { RKB_CPU_FN_GELU, 0, 0 }, { RKB_CPU_FN_GELU, 1, 0 },
	{ RKB_CPU_FN_ADD_K, 0.37f, 0 }, { RKB_CPU_FN_SUB_K, -1.1f, 0 },
	{ RKB_CPU_FN_K_SUB, 2.2f, 0 }, { RKB_CPU_FN_MUL_K, -1.7f, 0 },
	{ RKB_CPU_FN_DIV_K, 0.6f, 0 }, { RKB_CPU_FN_K_DIV, 1.5f, 0 },
	{ RKB_CPU_FN_MAX_K, 0.25f, 0 }, { RKB_CPU_FN_MIN_K, -0.4f, 0 },
	{ RKB_CPU_FN_EXP, 0, 0 }, { RKB_CPU_FN_ABS, 0, 0 }, { RKB_CPU_FN_SOFTSIGN, 0, 0 },
	{ RKB_CPU_FN_SQRT, 0, 0 }, { RKB_CPU_FN_LOG, 0, 0 }, { RKB_CPU_FN_POW_K, 2.0f, 0 },
	{ RKB_CPU_FN_POW_K, 0.7f, 0 }, { RKB_CPU_FN_POW_K, -3.0f, 0 },
	{ RKB_CPU_FN_K_POW, 1.3f, 0 },
};

/* Quantisations in → out: zero points inside and at the edge of int8. */
static const struct {
	float in_scale, out_scale;
	int32_t in_zp, out_zp;
} quants[] = {
	{ 0.05f, 0.02f, 3, -10 }, { 0.11f, 0.007f, -128, 0 }, { 0.02f, 0.09f, 127, -128 },
};

/* The table of steps[0..n) checked against the functions in double, one
 * after the other. */
static void check_table(const struct rkb_cpu_fn_step *steps, size_t n, size_t k)
{
	int8_t t[RKB_CPU_LUT_ENTRIES];

	assert_int_equal(rkb_cpu_lut_build(steps, n, quants[k].in_scale, quants[k].in_zp,
					   quants[k].out_scale, quants[k].out_zp, t),
			 0);
	for (int q = -128; q <= 127; q++) {
		double x = (double)quants[k].in_scale * (q - quants[k].in_zp);
		bool near;
		int want, got = t[q + 128];

		for (size_t i = 0; i < n; i++)
			x = ref_fn(steps[i].fn, steps[i].a, steps[i].b, x);
		want = ref_quant(x, quants[k].out_scale, quants[k].out_zp, &near);
		if (got != want && !(near && abs(got - want) == 1))
			fail_msg("fn %d (%zu steps), quantisation %zu, q %d: %d, ONNX's %d",
				 (int)steps[0].fn, n, k, q, got, want);
	}
}

static void test_lut_build(void **state)
{
	/* PP-LCNetV3's activation: hard-swish, then a learnable scale and shift */
	static const struct rkb_cpu_fn_step chain[] = {
		{ RKB_CPU_FN_HARD_SWISH, 0, 0 }, { RKB_CPU_FN_MUL_K, 0.83f, 0 },
		{ RKB_CPU_FN_ADD_K, -0.21f, 0 },
	};
	static const struct rkb_cpu_fn_step unknown = { RKB_CPU_FN_COUNT, 0, 0 };
	int8_t t[RKB_CPU_LUT_ENTRIES];

	(void)state;
	for (size_t k = 0; k < sizeof(quants) / sizeof(quants[0]); k++) {
		for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++)
			check_table(&fns[f], 1, k);
		check_table(chain, sizeof(chain) / sizeof(chain[0]), k);
	}
	assert_int_not_equal(rkb_cpu_lut_build(&unknown, 1, 1, 0, 1, 0, t), 0);
	assert_int_not_equal(rkb_cpu_lut_build(fns, 0, 1, 0, 1, 0, t), 0);
	assert_int_not_equal(rkb_cpu_lut_build(fns, 1, 0, 0, 1, 0, t), 0);
	assert_int_not_equal(rkb_cpu_lut_build(fns, 1, 1, 0, NAN, 0, t), 0);
}

/* One table per channel: each element looked up in its channel's. */
static void test_lut_run(void **state)
{
	static int8_t in[ELEMS], out[ELEMS], tables[C * RKB_CPU_LUT_ENTRIES];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Lut");
	struct rkb_cpu_call call = {
		.node = "lut", .in = { in, C, H, W, 0.1f, 0 }, .out = { out, C, H, W, 0.2f, 1 },
		.params = tables, .params_bytes = sizeof(tables),
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(in); i++)
		in[i] = (int8_t)(i * 37u + 11u);
	for (size_t i = 0; i < sizeof(tables); i++)
		tables[i] = (int8_t)(i * 13u + i / 256u);
	assert_int_equal(op->check(&call, err, sizeof(err)), 0);
	assert_int_equal(op->run(&call), 0);
	for (unsigned int c = 0; c < C; c++)
		for (unsigned int y = 0; y < H; y++)
			for (unsigned int x = 0; x < W; x++)
				assert_int_equal(out[at8(H, W, c, y, x)],
						 tables[c * 256u + (unsigned int)(in[at8(H, W, c, y, x)] +
										  128)]);
	call.params_bytes = RKB_CPU_LUT_ENTRIES;	/* one table for all */
	assert_int_equal(op->check(&call, err, sizeof(err)), 0);
	assert_int_equal(op->run(&call), 0);
	assert_int_equal(out[at8(H, W, 19, 2, 3)], tables[in[at8(H, W, 19, 2, 3)] + 128]);
	call.params_bytes = 3 * RKB_CPU_LUT_ENTRIES;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "one per channel"));
	call.params_bytes = RKB_CPU_LUT_ENTRIES;
	call.in.dtype = call.out.dtype = RKB_CPU_FP16;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "fp16"));
}

/* fp16 element i holds a value spread over -6 .. 6. */
static float fp16_input(size_t i)
{
	return (float)((int)(i * 29u % 97u) - 48) / 8.0f;
}

static void expect_half(uint16_t got, double want, const char *what, size_t i)
{
	double g = layout_f16_to_f32(got);
	/* one fp16 rounding (2^-11 relative) and float's evaluation */
	double tol = ldexp(fmax(fabs(want), ldexp(1.0, -14)), -10);

	if (!(fabs(g - want) <= tol))
		fail_msg("%s element %zu: %g, the reference %g", what, i, g, want);
}

static void test_unary_fp16(void **state)
{
	static uint16_t in[ELEMS], out[ELEMS];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Unary");
	uint8_t params[RKB_CPU_UNARY_BYTES];
	struct rkb_cpu_call call = {
		.node = "u", .in = { (int8_t *)in, C, H, W, 1.0f, 0, RKB_CPU_FP16 },
		.out = { (int8_t *)out, C, H, W, 1.0f, 0, RKB_CPU_FP16 },
		.params = params, .params_bytes = sizeof(params),
	};
	char err[160];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < ELEMS; i++)
		in[i] = layout_f32_to_f16(fp16_input(i));
	for (size_t f = 0; f < sizeof(fns) / sizeof(fns[0]); f++) {
		memcpy(params, &fns[f].fn, 4);
		memcpy(params + 4, &fns[f].a, 4);
		memcpy(params + 8, &fns[f].b, 4);
		assert_int_equal(op->check(&call, err, sizeof(err)), 0);
		assert_int_equal(op->run(&call), 0);
		for (unsigned int c = 0; c < C; c++)
			for (unsigned int y = 0; y < H; y++)
				for (unsigned int x = 0; x < W; x++) {
					size_t i = at16(H, W, c, y, x);
					double v = layout_f16_to_f32(in[i]);
					double want = ref_fn(fns[f].fn, fns[f].a, fns[f].b, v);

					if (isnan(want))
						assert_true(isnan(layout_f16_to_f32(out[i])));
					else if (isinf(want))
						assert_true(isinf(layout_f16_to_f32(out[i])));
					else
						expect_half(out[i], want, "Unary", i);
				}
	}
	memset(params, 0, 4);	/* function 0 */
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "function"));
	call.out.dtype = RKB_CPU_INT8;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
}

/* Binary's parameters: op, constant side, its extents, its values. */
static size_t binary_params(uint8_t *p, int32_t op, int32_t side, int32_t kc, int32_t kh,
			    int32_t kw, const float *k)
{
	int32_t head[RKB_CPU_BINARY_HEADER] = { op, side, kc, kh, kw };
	size_t n = (size_t)kc * (size_t)kh * (size_t)kw;

	memcpy(p, head, sizeof(head));
	if (n)
		memcpy(p + sizeof(head), k, n * sizeof(float));
	return sizeof(head) + n * sizeof(float);
}

/* int8: a C×H×W map with a [C,1,1] vector, a [1,H,W] map with a [C,1,W]
 * one (each broadcasting the other), two maps of one shape, every op. */
static void test_binary_int8(void **state)
{
	static int8_t a[ELEMS], b[ELEMS], out[ELEMS];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Binary");
	static uint8_t p[64];
	const unsigned int shapes[3][2][3] = {
		{ { C, H, W }, { C, 1, 1 } }, { { 1, H, W }, { C, 1, W } },
		{ { C, H, W }, { C, H, W } },
	};
	struct rkb_cpu_call call = {
		.node = "bin", .in = { a, C, H, W, 0.05f, 3 }, .in2 = { b, C, 1, 1, 0.1f, -5 },
		.out = { out, C, H, W, 0.08f, 1 }, .params = p,
	};
	char err[200];

	(void)state;
	assert_non_null(op);
	for (size_t i = 0; i < sizeof(a); i++) {
		a[i] = (int8_t)(i * 41u + 7u);
		b[i] = (int8_t)(i * 23u + 100u);
	}
	for (int s = 0; s < 3; s++)
		for (int32_t o = RKB_CPU_BIN_ADD; o < RKB_CPU_BIN_COUNT; o++) {
			const unsigned int *sa = shapes[s][0], *sb = shapes[s][1];

			call.in.c = sa[0];
			call.in.h = sa[1];
			call.in.w = sa[2];
			call.in2.c = sb[0];
			call.in2.h = sb[1];
			call.in2.w = sb[2];
			call.params_bytes = binary_params(p, o, RKB_CPU_BIN_NO_CONST, 0, 0, 0, NULL);
			assert_int_equal(op->check(&call, err, sizeof(err)), 0);
			assert_int_equal(op->run(&call), 0);
			for (unsigned int c = 0; c < C; c++)
				for (unsigned int y = 0; y < H; y++)
					for (unsigned int x = 0; x < W; x++) {
						int8_t qa = a[at8(sa[1], sa[2], sa[0] == 1 ? 0 : c,
								  sa[1] == 1 ? 0 : y, sa[2] == 1 ? 0 : x)];
						int8_t qb = b[at8(sb[1], sb[2], sb[0] == 1 ? 0 : c,
								  sb[1] == 1 ? 0 : y, sb[2] == 1 ? 0 : x)];
						double va = 0.05 * (qa - 3), vb = 0.1 * (qb + 5);
						bool near;
						int want = ref_quant(vb == 0 && o == RKB_CPU_BIN_DIV ? NAN :
								     ref_bin(o, va, vb), 0.08f, 1, &near);
						int got = out[at8(H, W, c, y, x)];

						if (vb == 0 && o == RKB_CPU_BIN_DIV)
							continue;	/* ±inf or NaN: ONNX's too */
						if (got != want && !(near && abs(got - want) == 1))
							fail_msg("op %d shapes %d (%u,%u,%u): %d, want %d",
								 (int)o, s, c, y, x, got, want);
					}
		}
	/* refusals: H of 2 against 3; an output larger than the broadcast */
	call.params_bytes = binary_params(p, RKB_CPU_BIN_ADD, RKB_CPU_BIN_NO_CONST, 0, 0, 0, NULL);
	call.in2.h = 2;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "do not broadcast"));
	call.in = (struct rkb_cpu_tensor){ a, C, 1, W, 0.05f, 3, RKB_CPU_INT8 };
	call.in2 = (struct rkb_cpu_tensor){ b, C, 1, 1, 0.1f, -5, RKB_CPU_INT8 };
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "larger"));
	/* a constant beside a second input; an unknown op; a short parameter */
	call.in.h = H;
	call.params_bytes = binary_params(p, RKB_CPU_BIN_ADD, RKB_CPU_BIN_CONST_B, 1, 1, 1,
					  (const float[]){ 1.0f });
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "second input"));
	call.params_bytes = binary_params(p, RKB_CPU_BIN_COUNT, RKB_CPU_BIN_NO_CONST, 0, 0, 0,
					  NULL);
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	call.params_bytes = 3;
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "parameter bytes"));
}

/* int8 maps of 16 × 16 cells and a [C,1,1] vector, in both orders (the
 * per-channel tables' path): every op against the reference. */
static void test_binary_by_channel(void **state)
{
	enum { BH = 16, BW = 16 };
	static int8_t m[GROUPS8 * 16 * BH * BW], v[GROUPS8 * 16], out[GROUPS8 * 16 * BH * BW];
	static uint8_t p[RKB_CPU_BINARY_HEADER * 4];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Binary");
	const struct rkb_cpu_tensor tm = { m, C, BH, BW, 0.04f, -6, RKB_CPU_INT8 };
	const struct rkb_cpu_tensor tv = { v, C, 1, 1, 0.03f, 9, RKB_CPU_INT8 };
	struct rkb_cpu_call call = {
		.node = "se", .out = { out, C, BH, BW, 0.05f, 2, RKB_CPU_INT8 }, .params = p,
	};
	char err[200];

	(void)state;
	for (size_t i = 0; i < sizeof(m); i++)
		m[i] = (int8_t)(i * 89u + 3u);
	for (size_t i = 0; i < sizeof(v); i++)
		v[i] = (int8_t)(i * 57u + 20u);
	for (int v_first = 0; v_first < 2; v_first++)
		for (int32_t o = RKB_CPU_BIN_ADD; o < RKB_CPU_BIN_COUNT; o++) {
			call.in = v_first ? tv : tm;
			call.in2 = v_first ? tm : tv;
			call.params_bytes = binary_params(p, o, RKB_CPU_BIN_NO_CONST, 0, 0, 0, NULL);
			assert_int_equal(op->check(&call, err, sizeof(err)), 0);
			assert_int_equal(op->run(&call), 0);
			for (unsigned int c = 0; c < C; c++)
				for (unsigned int y = 0; y < BH; y++)
					for (unsigned int x = 0; x < BW; x++) {
						double vm = 0.04 * (m[at8(BH, BW, c, y, x)] + 6);
						double vv = 0.03 * (v[at8(1, 1, c, 0, 0)] - 9);
						double a = v_first ? vv : vm, b = v_first ? vm : vv;
						bool near;
						int want, got = out[at8(BH, BW, c, y, x)];

						if (b == 0 && o == RKB_CPU_BIN_DIV)
							continue;	/* ±inf or NaN: ONNX's too */
						want = ref_quant(ref_bin(o, a, b), 0.05f, 2, &near);
						if (got != want && !(near && abs(got - want) == 1))
							fail_msg("op %d, vector first %d (%u,%u,%u): %d, "
								 "want %d", (int)o, v_first, c, y, x, got,
								 want);
					}
		}
}

/* fp16: a constant [1,H,W] plane first, k − x and k / x. */
static void test_binary_fp16_const(void **state)
{
	static uint16_t x[ELEMS], out[ELEMS];
	const struct rkb_cpu_op *op = rkb_cpu_op_find("Binary");
	/* room for the [C,2,1] constant of the refusal too */
	static uint8_t p[RKB_CPU_BINARY_HEADER * 4 + C * H * 4];
	float k[C * H];
	const int32_t ops[] = { RKB_CPU_BIN_SUB, RKB_CPU_BIN_DIV, RKB_CPU_BIN_MIN };
	struct rkb_cpu_call call = {
		.node = "binc", .in = { (int8_t *)x, C, H, W, 1.0f, 0, RKB_CPU_FP16 },
		.out = { (int8_t *)out, C, H, W, 1.0f, 0, RKB_CPU_FP16 }, .params = p,
	};
	char err[200];

	(void)state;
	for (unsigned int i = 0; i < C * H; i++)
		k[i] = 0.75f * (float)(i % (H * W)) - 3.0f;
	for (size_t i = 0; i < ELEMS; i++) {
		float v = fp16_input(i);

		x[i] = layout_f32_to_f16(v == 0.0f ? 0.5f : v);	/* no division by zero */
	}
	for (size_t j = 0; j < sizeof(ops) / sizeof(ops[0]); j++) {
		call.params_bytes = binary_params(p, ops[j], RKB_CPU_BIN_CONST_A, 1, H, W, k);
		assert_int_equal(op->check(&call, err, sizeof(err)), 0);
		assert_int_equal(op->run(&call), 0);
		for (unsigned int c = 0; c < C; c++)
			for (unsigned int y = 0; y < H; y++)
				for (unsigned int xx = 0; xx < W; xx++) {
					size_t i = at16(H, W, c, y, xx);

					expect_half(out[i], ref_bin(ops[j], k[y * W + xx],
								    layout_f16_to_f32(x[i])),
						    "Binary", i);
				}
	}
	/* a [C,2,1] constant does not broadcast to H 3 */
	call.params_bytes = binary_params(p, RKB_CPU_BIN_ADD, RKB_CPU_BIN_CONST_B, C, 2, 1, k);
	assert_true(call.params_bytes <= sizeof(p));
	assert_int_not_equal(op->check(&call, err, sizeof(err)), 0);
	assert_non_null(strstr(err, "do not broadcast"));
}

/* The accessors: int8 quantises with ties to even and saturates, fp16
 * rounds to half. */
static void test_accessors(void **state)
{
	static int8_t q[ELEMS];
	static uint16_t h[ELEMS];
	struct rkb_cpu_tensor t8 = { q, C, H, W, 0.5f, -2, RKB_CPU_INT8 };
	struct rkb_cpu_tensor t16 = { (int8_t *)h, C, H, W, 1.0f, 0, RKB_CPU_FP16 };

	(void)state;
	rkb_cpu_set(&t8, 17, 2, 3, 1.25f);	/* 2.5 → 2, + zp */
	assert_int_equal(q[at8(H, W, 17, 2, 3)], 0);
	assert_true(rkb_cpu_get(&t8, 17, 2, 3) == 1.0f);
	rkb_cpu_set(&t8, 0, 0, 0, 1000.0f);
	assert_int_equal(q[0], 127);
	rkb_cpu_set(&t8, 0, 0, 1, NAN);
	assert_int_equal(q[at8(H, W, 0, 0, 1)], -2);
	rkb_cpu_set(&t16, 19, 1, 2, 1.0f + 1.0f / 4096.0f);	/* below half an fp16 ulp */
	assert_int_equal(h[at16(H, W, 19, 1, 2)], 0x3c00);
	assert_true(rkb_cpu_get(&t16, 19, 1, 2) == 1.0f);
	assert_int_equal(rkb_cpu_encode(&t16, -2.0f), 0xc000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lut_build),
		cmocka_unit_test(test_lut_run),
		cmocka_unit_test(test_unary_fp16),
		cmocka_unit_test(test_binary_int8),
		cmocka_unit_test(test_binary_by_channel),
		cmocka_unit_test(test_binary_fp16_const),
		cmocka_unit_test(test_accessors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
