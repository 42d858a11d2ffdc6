/* SPDX-License-Identifier: MIT */
/* Requantisation parameters from first principles (HARDWARE.md §6.3). */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "compiler/quant.h"

/* IEEE-754 binary32 fields. */
#define F32_MANT_BITS	23u
#define F32_EXP_MASK	0xFFu
#define F32_EXP_BIAS	127

int quant_multiplier(float scale, struct quant_mult *out)
{
	uint32_t bits;
	int32_t exp, shift;
	uint32_t mant, mult;
	const uint32_t drop = F32_MANT_BITS - (QUANT_MULT_BITS - 1);

	if (!(scale > 0.0f))
		return -EINVAL;
	memcpy(&bits, &scale, sizeof(bits));
	exp = (int32_t)((bits >> F32_MANT_BITS) & F32_EXP_MASK);
	if (exp == 0 || exp == F32_EXP_MASK)	/* subnormal, inf, NaN */
		return -EINVAL;
	/* 1.m with the hidden bit, rounded from 24 to 15 significant bits. */
	mant = (bits & ((1u << F32_MANT_BITS) - 1u)) | (1u << F32_MANT_BITS);
	mult = (mant + (1u << (drop - 1))) >> drop;
	if (mult >> QUANT_MULT_BITS) {		/* rounding carried to 2^15 */
		mult >>= 1;
		exp++;
	}
	/* scale = mult × 2^(E - 127 - 14) → right shift 141 - E */
	shift = (int32_t)(QUANT_MULT_BITS - 1) + F32_EXP_BIAS - exp;
	if (shift < 0 || shift > (int32_t)QUANT_SHIFT_MAX)
		return -EINVAL;
	out->multiplier = (uint16_t)mult;
	out->shift = (uint8_t)shift;
	return 0;
}

/*
 * Arithmetic right shift with exact halves to even: the OUT_CVT rounding
 * the lowering selects (cvt_round 0, "if the integer is odd, carry 1",
 * TRM RKNN_dpu_out_cvt_shift), which is also QuantizeLinear's.
 */
static int64_t shift_round_half_even(int64_t v, unsigned int shift)
{
	int64_t q, rem, half;

	if (!shift)
		return v;
	q = v >> shift;
	rem = v - q * ((int64_t)1 << shift);
	half = (int64_t)1 << (shift - 1);
	if (rem > half || (rem == half && (q & 1)))
		q++;
	return q;
}

int32_t quant_requant(int64_t acc, const struct quant_mult *m, int32_t offset)
{
	int64_t v = shift_round_half_even(acc * m->multiplier, m->shift) + offset;

	if (v > INT8_MAX)
		return INT8_MAX;
	if (v < INT8_MIN)
		return INT8_MIN;
	return (int32_t)v;
}

int32_t quant_round(double v)
{
	double r = v >= 0 ? v + 0.5 : v - 0.5;

	if (!(r == r))
		return 0;
	if (r >= (double)INT32_MAX)
		return INT32_MAX;
	if (r <= (double)INT32_MIN)
		return INT32_MIN;
	return (int32_t)r;
}

bool quant_scale_ok(float scale)
{
	return isnormal(scale) && scale > 0.0f;
}

int32_t quant_bound(int32_t zp, double real, float scale)
{
	double v = (double)zp + real / (double)scale;

	if (!(v == v))
		return zp;
	if (v > (double)INT16_MAX)
		return INT16_MAX;
	if (v < (double)INT16_MIN)
		return INT16_MIN;
	return quant_round(v);
}

/* float's exponent bias and the place of its exponent field */
#define F32_EXP_BIAS	127
#define F32_EXP_SHIFT	23
#define F32_EXP_MIN	(-126)
#define F32_EXP_MAX	127

float quant_pow2(int e)
{
	uint32_t bits;
	float v;

	if (e < F32_EXP_MIN)
		e = F32_EXP_MIN;
	if (e > F32_EXP_MAX)
		e = F32_EXP_MAX;
	bits = (uint32_t)(e + F32_EXP_BIAS) << F32_EXP_SHIFT;
	memcpy(&v, &bits, sizeof(v));
	return v;
}

int quant_floor_log2(float v)
{
	int e;

	(void)frexpf(v, &e);	/* v = m · 2^e, m in [0.5, 1) */
	return e - 1;
}

int quant_ceil_log2(float v)
{
	int e;
	float m = frexpf(v, &e);

	return m == 0.5f ? e - 1 : e;
}
