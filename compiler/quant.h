/* SPDX-License-Identifier: MIT */
/*
 * Quantisation arithmetic of the int8 convolution path (HARDWARE.md §6):
 * real scale → DPU OUT_CVT multiplier/shift, zero points in the signed
 * (shifted by 0x80) domain, and the model of the requantisation the
 * hardware performs, used to place activation bounds.
 */
#ifndef RKBARE_COMPILER_QUANT_H
#define RKBARE_COMPILER_QUANT_H

#include <stdbool.h>
#include <stdint.h>

/* OUT_CVT_SCALE multiplier is normalised into [2^14, 2^15) (HARDWARE.md §6.3:
 * "about 1.m × 2^14"), so a right shift of QUANT_MULT_BITS - 1 + (127 - E)
 * brings it back to the real scale. */
#define QUANT_MULT_BITS		15u
#define QUANT_SHIFT_MAX		62u	/* acc (32 bit) × multiplier (15 bit) stays in 64 bits */

struct quant_mult {
	uint16_t multiplier;	/* OUT_CVT_SCALE */
	uint8_t shift;		/* OUT_CVT_SHIFT: right shift of acc × multiplier */
};

/*
 * Derive multiplier and shift for a positive real scale from its float
 * exponent and mantissa (HARDWARE.md §6.3): multiplier = round(1.m × 2^14),
 * shift = 141 - E (with E the biased exponent, renormalised when the
 * rounding carries). Returns 0, or -EINVAL when the scale is not a positive
 * finite number or the shift is outside [0, QUANT_SHIFT_MAX].
 */
int quant_multiplier(float scale, struct quant_mult *out);

/*
 * The requantisation the lowering assumes the DPU performs on a corrected
 * accumulator: round(acc × multiplier / 2^shift), halves rounded up, plus
 * offset, saturated to int8 (the NPU model's reading, sim/ASSUMPTIONS.md).
 * UNSURE (HARDWARE.md §6.3, open question 9): the order and rounding inside
 * OUT_CVT are not documented; this is the one place that reading lives. It
 * only places activation bounds, which sit at non-negative accumulators.
 */
int32_t quant_requant(int64_t acc, const struct quant_mult *m, int32_t offset);

/* Zero point of a tensor after the uint8 → int8 shift (HARDWARE.md §6.1). */
static inline int32_t quant_signed_zp(int32_t zp, bool is_unsigned)
{
	return is_unsigned ? zp - 0x80 : zp;
}

/* Quantise a real value with the round-half-away-from-zero rule; values
 * beyond int32 (or NaN) saturate instead of overflowing the conversion. */
int32_t quant_round(double v);

/* 2^e, exactly, for e in float's normal exponent range (-126..127): scales
 * made of shifts, without the C library's ldexpf (docs/PORTING.md lists
 * what the kernel library may take from one). */
float quant_pow2(int e);

/* ⌊log2 v⌋ and ⌈log2 v⌉ of a positive, finite v (through frexpf). */
int quant_floor_log2(float v);
int quant_ceil_log2(float v);

/* A usable quantisation scale: positive, finite and normal (a subnormal or
 * infinite scale has no multiplier/shift, and its ratios overflow). */
bool quant_scale_ok(float scale);

/*
 * zp + round(real / scale): where an activation bound lands in the output's
 * integer domain, computed in double and clamped to int16 — far outside
 * int8 either way, so callers compare it with int8 limits without
 * overflowing however extreme the scale.
 */
int32_t quant_bound(int32_t zp, double real, float scale);

#endif /* RKBARE_COMPILER_QUANT_H */
