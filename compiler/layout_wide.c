// SPDX-License-Identifier: MIT
/*
 * 64 pixels of 16 int8 channels at a time: each 64-byte plane run is one
 * load (or store), and a byte permute (vpermb) orders it so that the
 * four 16-byte lanes transpose independently, with the same four rounds
 * of in-lane interleaves as layout.c's 16 × 16 block. After the rounds
 * each vector holds four consecutive pixels: one 64-byte store (or load)
 * on the surface side as well.
 */
#include "compiler/layout_wide.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#define WIDE	__attribute__((target("avx512f,avx512bw,avx512vbmi")))

#define CHANNELS	16u	/* one int8 atom */
#define RUN		64u	/* pixels per vector of one plane */
/* Runs per step: each of the 16 planes is read (or written) GROUP × 64
 * bytes at a time, not 64 bytes 64 KiB from the last plane's, which keeps
 * the plane streams from thrashing shared cache sets (measured on 4 MiB
 * against memcpy: NC1HWC2 → NCHW from 0.45 to 0.68, NCHW → NC1HWC2 from
 * 0.65 to 0.72). 16 runs of 16 planes, 16 KiB, stay in L1. */
#define GROUP		16u

typedef uint8_t v64u8 __attribute__((vector_size(RUN)));

/* Interleave the low (ZLO) or high (ZHI) halves of a and b, lane by lane. */
#define Z2(l, i)	(16 * (l) + (i)), (64 + 16 * (l) + (i))
#define ZL(l, o)	Z2(l, o + 0), Z2(l, o + 1), Z2(l, o + 2), Z2(l, o + 3), \
			Z2(l, o + 4), Z2(l, o + 5), Z2(l, o + 6), Z2(l, o + 7)
#define ZLO(a, b)	__builtin_shufflevector(a, b, ZL(0, 0), ZL(1, 0), ZL(2, 0), ZL(3, 0))
#define ZHI(a, b)	__builtin_shufflevector(a, b, ZL(0, 8), ZL(1, 8), ZL(2, 8), ZL(3, 8))

/*
 * The first interleave fused with the order planes need: lane b byte m of
 * the lane order is pixel 4·m + b, so the first round reads its rows from
 * the plane vectors directly (one two-source byte permute, vpermt2b).
 */
#define F2(l, i)	(4 * (i) + (l)), (64 + 4 * (i) + (l))
#define FL(l, o)	F2(l, o + 0), F2(l, o + 1), F2(l, o + 2), F2(l, o + 3), \
			F2(l, o + 4), F2(l, o + 5), F2(l, o + 6), F2(l, o + 7)
#define FLO(a, b)	__builtin_shufflevector(a, b, FL(0, 0), FL(1, 0), FL(2, 0), FL(3, 0))
#define FHI(a, b)	__builtin_shufflevector(a, b, FL(0, 8), FL(1, 8), FL(2, 8), FL(3, 8))

/*
 * The last interleave fused with the way back: byte 4·m + b of a plane
 * vector is byte 16·b + m of the interleave's result, which took byte
 * 16·b + m / 2 of a (m even) or of b (m odd).
 */
#define B1(m, b, o)	(((m) % 2 ? 64 : 0) + 16 * (b) + (m) / 2 + (o))
#define B4(m, o)	B1(m, 0, o), B1(m, 1, o), B1(m, 2, o), B1(m, 3, o)
#define BQ(m, o)	B4(m, o), B4(m + 1, o), B4(m + 2, o), B4(m + 3, o)
#define BLO(a, b)	__builtin_shufflevector(a, b, BQ(0, 0), BQ(4, 0), BQ(8, 0), BQ(12, 0))
#define BHI(a, b)	__builtin_shufflevector(a, b, BQ(0, 8), BQ(4, 8), BQ(8, 8), BQ(12, 8))

/* Threads asking at once compute the same answer: an atomic store of it
 * is all they need to share. */
static int have_wide(void)
{
	static int have = -1;
	int h = __atomic_load_n(&have, __ATOMIC_RELAXED);

	if (h < 0) {
		__builtin_cpu_init();
		h = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		    __builtin_cpu_supports("avx512vbmi");
		__atomic_store_n(&have, h, __ATOMIC_RELAXED);
	}
	return h;
}

/*
 * Four rounds of interleaving row i with row i + 8 transpose each lane;
 * `from_planes` fuses the plane order into the first round, `to_planes`
 * into the last.
 */
WIDE static inline void transpose_lanes(v64u8 r[CHANNELS], int from_planes, int to_planes)
{
	for (unsigned int round = 0; round < 4; round++) {
		v64u8 t[CHANNELS];

		for (unsigned int i = 0; i < CHANNELS / 2; i++) {
			v64u8 a = r[i], b = r[i + CHANNELS / 2];

			if (round == 0 && from_planes) {
				t[2 * i] = FLO(a, b);
				t[2 * i + 1] = FHI(a, b);
			} else if (round == 3 && to_planes) {
				t[2 * i] = BLO(a, b);
				t[2 * i + 1] = BHI(a, b);
			} else {
				t[2 * i] = ZLO(a, b);
				t[2 * i + 1] = ZHI(a, b);
			}
		}
		memcpy(r, t, sizeof(t));
	}
}

WIDE static size_t planes_to_surface(const uint8_t *src, uint8_t *dst, size_t hw)
{
	uint8_t block[CHANNELS][GROUP * RUN] __attribute__((aligned(RUN)));
	size_t p = 0;

	for (; p + GROUP * RUN <= hw; p += GROUP * RUN) {
		/* each plane's GROUP runs in one piece; transposed from L1 */
		for (unsigned int k = 0; k < CHANNELS; k++)
			memcpy(block[k], src + k * hw + p, GROUP * RUN);
		for (unsigned int g = 0; g < GROUP; g++) {
			v64u8 r[CHANNELS];

			for (unsigned int k = 0; k < CHANNELS; k++)
				memcpy(&r[k], block[k] + g * RUN, RUN);
			transpose_lanes(r, 1, 0);
			/* r[m] holds pixels 4m .. 4m + 3 of the run */
			for (unsigned int m = 0; m < CHANNELS; m++)
				memcpy(dst + (p + g * RUN + 4u * m) * CHANNELS, &r[m], RUN);
		}
	}
	return p;
}

WIDE static size_t surface_to_planes(const uint8_t *src, uint8_t *dst, size_t hw)
{
	size_t p = 0;

	for (; p + GROUP * RUN <= hw; p += GROUP * RUN) {
		v64u8 r[GROUP][CHANNELS];

		for (unsigned int g = 0; g < GROUP; g++) {
			for (unsigned int m = 0; m < CHANNELS; m++)
				memcpy(&r[g][m], src + (p + g * RUN + 4u * m) * CHANNELS, RUN);
			transpose_lanes(r[g], 0, 1);
		}
		for (unsigned int k = 0; k < CHANNELS; k++)
			for (unsigned int g = 0; g < GROUP; g++)
				memcpy(dst + k * hw + p + g * RUN, &r[g][k], RUN);
	}
	return p;
}

/*
 * NHWC with whole 64-channel blocks ↔ NC1HWC2: four pixels × four atoms
 * are a 4 × 4 transpose of 16-byte lanes. to_surfaces chooses the
 * direction; the transpose is its own inverse.
 */
typedef uint64_t v8u64 __attribute__((vector_size(RUN)));

#define PIXELS		4u	/* pixels per step: four 16-byte lanes */

WIDE static inline void transpose_atoms(v8u64 a[PIXELS])
{
	v8u64 t0 = __builtin_shufflevector(a[0], a[1], 0, 1, 2, 3, 8, 9, 10, 11);
	v8u64 t1 = __builtin_shufflevector(a[0], a[1], 4, 5, 6, 7, 12, 13, 14, 15);
	v8u64 t2 = __builtin_shufflevector(a[2], a[3], 0, 1, 2, 3, 8, 9, 10, 11);
	v8u64 t3 = __builtin_shufflevector(a[2], a[3], 4, 5, 6, 7, 12, 13, 14, 15);

	a[0] = __builtin_shufflevector(t0, t2, 0, 1, 4, 5, 8, 9, 12, 13);
	a[1] = __builtin_shufflevector(t0, t2, 2, 3, 6, 7, 10, 11, 14, 15);
	a[2] = __builtin_shufflevector(t1, t3, 0, 1, 4, 5, 8, 9, 12, 13);
	a[3] = __builtin_shufflevector(t1, t3, 2, 3, 6, 7, 10, 11, 14, 15);
}

WIDE static size_t nhwc_blocks(uint8_t *nhwc, uint8_t *surf, size_t hw, size_t c,
			       size_t surface, int to_surfaces)
{
	size_t p = 0;

	for (; p + PIXELS <= hw; p += PIXELS)
		for (size_t q = 0; q < c / RUN; q++) {
			uint8_t *row = nhwc + p * c + q * RUN;
			uint8_t *atoms = surf + PIXELS * q * surface + p * CHANNELS;
			v8u64 a[PIXELS];

			for (unsigned int i = 0; i < PIXELS; i++)
				memcpy(&a[i], to_surfaces ? row + i * c : atoms + i * surface, RUN);
			transpose_atoms(a);
			for (unsigned int i = 0; i < PIXELS; i++)
				memcpy(to_surfaces ? atoms + i * surface : row + i * c, &a[i], RUN);
		}
	return p;
}

WIDE static size_t flip_signs(const uint8_t *src, uint8_t *dst, size_t n)
{
	const v64u8 flip = (v64u8){ 0 } + 0x80;
	size_t i = 0;

	for (; i + RUN <= n; i += RUN) {
		v64u8 v;

		memcpy(&v, src + i, RUN);
		v ^= flip;
		memcpy(dst + i, &v, RUN);
	}
	return i;
}

size_t layout_wide_nhwc_to_surfaces_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface)
{
	if (!have_wide() || c % RUN)
		return 0;
	return nhwc_blocks((uint8_t *)src, dst, hw, c, surface, 1);
}

size_t layout_wide_surfaces_to_nhwc_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface)
{
	if (!have_wide() || c % RUN)
		return 0;
	return nhwc_blocks(dst, (uint8_t *)src, hw, c, surface, 0);
}

size_t layout_wide_flip_signs(const uint8_t *src, uint8_t *dst, size_t n)
{
	return have_wide() ? flip_signs(src, dst, n) : 0;
}

size_t layout_wide_planes_to_surface_i8(const uint8_t *src, uint8_t *dst, size_t hw)
{
	return have_wide() ? planes_to_surface(src, dst, hw) : 0;
}

size_t layout_wide_surface_to_planes_i8(const uint8_t *src, uint8_t *dst, size_t hw)
{
	return have_wide() ? surface_to_planes(src, dst, hw) : 0;
}

#else

/* No wide vectors here: nothing done, layout.c does it all. */

size_t layout_wide_nhwc_to_surfaces_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface)
{
	return 0;
}

size_t layout_wide_surfaces_to_nhwc_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface)
{
	return 0;
}

size_t layout_wide_flip_signs(const uint8_t *src, uint8_t *dst, size_t n)
{
	return 0;
}

size_t layout_wide_planes_to_surface_i8(const uint8_t *src, uint8_t *dst, size_t hw)
{
	return 0;
}

size_t layout_wide_surface_to_planes_i8(const uint8_t *src, uint8_t *dst, size_t hw)
{
	return 0;
}

#endif
