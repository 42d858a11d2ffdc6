/* SPDX-License-Identifier: MIT */
/* The fp16 functions of the DPU's lookup table (npu_fn.h). */
#include "runtime/npu_fn.h"

#include <errno.h>
#include <math.h>

#include "compiler/quant.h"
#include "runtime/cpu_ops.h"

#define FN_IN_SHIFT		12	/* x in units of 2^-12 */
#define FN_LE_HALF		(8 << FN_IN_SHIFT)
#define FN_LO_HALF		(16 << FN_IN_SHIFT)
#define FN_LE_SELECT		7u	/* 1/32: 2^7 units */
#define FN_LO_SELECT		8u	/* 1/16 */
#define FN_LE_RANGE		8.0f	/* LE's half-width */
#define FN_LE_STEPS		32.0f	/* LE's entries per unit of x */
#define FN_HARD_SIGMOID_SLOPE_MAX 1.0f	/* x's rounding, 2^-13, times the slope */
#define FN_SWISH_A_MIN		1.0f	/* sigmoid(16 a) within 2^-23 of 1 */
#define FN_G_AT_ZERO		0.5f	/* swish's, hard-swish's and GELU's g(0) */

struct fn_ctx {
	int32_t fn;
	float a, b;
	bool times_x;
};

static bool times_x_fn(int32_t fn)
{
	return fn == RKB_CPU_FN_SWISH || fn == RKB_CPU_FN_HARD_SWISH || fn == RKB_CPU_FN_GELU;
}

/* x is one of LE's entries. */
static bool knot_ok(float x)
{
	float k = x * FN_LE_STEPS;

	return x >= -FN_LE_RANGE && x <= FN_LE_RANGE && k == (float)lrintf(k);
}

bool rkb_npu_fn_ok(int32_t fn, float a, float b)
{
	switch (fn) {
	case RKB_CPU_FN_SIGMOID:
	case RKB_CPU_FN_TANH:
	case RKB_CPU_FN_HARD_SWISH:
		return true;
	case RKB_CPU_FN_GELU:
		return a == 0.0f || a == 1.0f;
	case RKB_CPU_FN_SWISH:
		return a >= FN_SWISH_A_MIN && isfinite(a);
	case RKB_CPU_FN_HARD_SIGMOID:
		/* the knots, where a·x + b is 0 and 1, on LE's entries: the
		 * linear pieces are then interpolated exactly */
		return a != 0.0f && a >= -FN_HARD_SIGMOID_SLOPE_MAX &&
		       a <= FN_HARD_SIGMOID_SLOPE_MAX && isfinite(b) &&
		       knot_ok(-b / a) && knot_ok((1.0f - b) / a);
	default:
		return false;
	}
}

/* g(x): the function itself, or a times-x function over x. */
static double g_of(double x, const void *p)
{
	const struct fn_ctx *c = p;
	float f = rkb_cpu_fn_eval(c->fn, c->a, c->b, (float)x);

	if (!c->times_x)
		return f;
	return x == 0.0 ? FN_G_AT_ZERO : f / x;
}

int rkb_npu_fn_table(int32_t fn, float a, float b, struct lower_lut *lut, bool *times_x)
{
	struct fn_ctx c = { fn, a, b, times_x_fn(fn) };

	if (!rkb_npu_fn_ok(fn, a, b))
		return -EINVAL;
	*times_x = c.times_x;
	*lut = (struct lower_lut){
		.hybrid = NPU_LUT_TABLE_LE, .oflow = NPU_LUT_TABLE_LO, .uflow = NPU_LUT_TABLE_LO,
		.in_scale = quant_pow2(FN_IN_SHIFT),
	};
	lut->tab[NPU_LUT_TABLE_LE] = (struct lower_lut_table){
		.start = -FN_LE_HALF, .end = FN_LE_HALF, .select = FN_LE_SELECT };
	lut->tab[NPU_LUT_TABLE_LO] = (struct lower_lut_table){
		.start = -FN_LO_HALF, .end = FN_LO_HALF - (1 << FN_LO_SELECT),
		.select = FN_LO_SELECT };
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		lower_lut_fill(&lut->tab[id], lut->in_scale, quant_pow2(RKB_NPU_FN_OUT_SHIFT),
			       g_of, &c);
	return 0;
}
