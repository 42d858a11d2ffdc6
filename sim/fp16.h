/* SPDX-License-Identifier: MIT */
/*
 * IEEE 754 binary16 <-> binary32 for the model's fp16 paths. Conversion to
 * binary16 rounds to nearest, ties to even, with overflow to infinity.
 */
#ifndef RKBARE_SIM_FP16_H
#define RKBARE_SIM_FP16_H

#include <stdint.h>
#include <string.h>

static inline float sim_f16_to_f32(uint16_t h)
{
	uint32_t sign = (uint32_t)(h & 0x8000u) << 16;
	uint32_t exp = (h >> 10) & 0x1Fu;
	uint32_t man = h & 0x3FFu;
	uint32_t bits;
	float f;

	if (exp == 0) {
		/* zero or subnormal: man * 2^-24, exact in binary32 */
		f = (float)man * 0x1p-24f;
		return sign ? -f : f;
	}
	if (exp == 0x1F)
		bits = sign | 0x7F800000u | (man << 13);
	else
		bits = sign | ((exp + 112u) << 23) | (man << 13);
	memcpy(&f, &bits, sizeof(f));
	return f;
}

static inline uint16_t sim_f32_to_f16(float f)
{
	uint32_t x, man, h, rem, half, shift;
	uint16_t sign;
	int32_t e;

	memcpy(&x, &f, sizeof(x));
	sign = (uint16_t)((x >> 16) & 0x8000u);
	man = x & 0x7FFFFFu;
	if (((x >> 23) & 0xFFu) == 0xFFu)
		return sign | 0x7C00u | (man ? 0x200u : 0);
	e = (int32_t)((x >> 23) & 0xFFu) - 127 + 15;
	if (e >= 31)
		return sign | 0x7C00u;
	if (e <= 0) {
		if (e < -10)
			return sign;
		man |= 0x800000u;
		shift = (uint32_t)(14 - e);
		h = man >> shift;
		rem = man & ((1u << shift) - 1u);
		half = 1u << (shift - 1u);
		if (rem > half || (rem == half && (h & 1u)))
			h++;
		return sign | (uint16_t)h;
	}
	h = ((uint32_t)e << 10) | (man >> 13);
	rem = man & 0x1FFFu;
	if (rem > 0x1000u || (rem == 0x1000u && (h & 1u)))
		h++;
	return sign | (uint16_t)h;
}

#endif /* RKBARE_SIM_FP16_H */
