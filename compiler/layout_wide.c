// SPDX-License-Identifier: MIT
/*
 * The int8 feature-map conversions on x86 vectors, chosen at run time
 * (hal/host/simd_level.h); elsewhere every function here does nothing and
 * layout.c's portable loops do it all.
 *
 * AVX-512 (BW, VBMI): 64 pixels of 16 int8 channels at a time: each 64-byte
 * plane run is one load (or store), and a byte permute (vpermb) orders it
 * so that the four 16-byte lanes transpose independently, with the same
 * four rounds of in-lane interleaves as layout.c's 16 × 16 block. After
 * the rounds each vector holds four consecutive pixels: one 64-byte store
 * (or load) on the surface side as well.
 *
 * AVX2: 32 pixels at a time (two runs per step), the two 16-byte lanes of a vector being two
 * 16 × 16 blocks (pixels 0-15 and 16-31) transposed by the same rounds;
 * AVX2 has no byte permute across lanes, so one 128-bit lane swap per
 * vector (vperm2i128) pairs consecutive pixels for 32-byte stores.
 */
#include "compiler/layout_wide.h"

#include <string.h>

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))

#include <immintrin.h>

#include "host/simd_level.h"

#define WIDE	__attribute__((target("avx512f,avx512bw,avx512vbmi")))
#define AVX2	__attribute__((target("avx2")))

#define CHANNELS	16u	/* one int8 atom */
#define RUN		64u	/* pixels per vector of one plane */
/* Runs per step: each of the 16 planes is read (or written) GROUP × 64
 * bytes at a time, not 64 bytes 64 KiB from the last plane's, which keeps
 * the plane streams from thrashing shared cache sets (measured on 4 MiB
 * against memcpy: NC1HWC2 → NCHW from 0.45 to 0.68, NCHW → NC1HWC2 from
 * 0.65 to 0.72). 16 runs of 16 planes, 16 KiB, stay in L1. */
#define GROUP		16u

/*
 * NC1HWC2 -> NCHW streams half of its planes past the cache (non-temporal
 * stores) from this many output bytes per channel group, half of this
 * machine's L2; below it the planes stay in the cache for what reads them
 * next. 16 plane streams of ordinary stores, 64 bytes each per step,
 * thrash the L1 set they share; all 16 streamed leave the cache idle while
 * the stores queue for memory. Eight of each stay within L1's ways and
 * drain by both paths at once (measured on 4 MiB against memcpy, AVX2:
 * 0.42 all ordinary, 0.66 all streamed, 0.78 half and half; AVX-512:
 * 0.66 ordinary, 0.99 half and half).
 */
#define STREAM_MIN	(512u << 10)
#define STREAMED	(CHANNELS / 2u)	/* planes 0 .. STREAMED - 1 of a group */

typedef uint8_t v64u8 __attribute__((vector_size(RUN)));

/* Pixels from base that put base + p on a `to`-byte boundary. */
static inline size_t align_gap(const uint8_t *base, size_t to)
{
	return (to - (uintptr_t)base % to) % to;
}

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

/* `runs` runs from pixel p; stream: planes below STREAMED non-temporal,
 * dst + p on a vector boundary. */
WIDE static inline __attribute__((always_inline))
void surface_to_planes_step(const uint8_t *src, uint8_t *dst, size_t hw, size_t p,
			    const unsigned int runs, int stream)
{
	v64u8 r[GROUP][CHANNELS];

	for (unsigned int g = 0; g < runs; g++) {
		for (unsigned int m = 0; m < CHANNELS; m++)
			memcpy(&r[g][m], src + (p + g * RUN + 4u * m) * CHANNELS, RUN);
		transpose_lanes(r[g], 0, 1);
	}
	for (unsigned int k = 0; k < CHANNELS; k++)
		for (unsigned int g = 0; g < runs; g++) {
			uint8_t *out = dst + k * hw + p + g * RUN;

			if (stream && k < STREAMED)
				_mm512_stream_si512((void *)out, (__m512i)r[g][k]);
			else
				memcpy(out, &r[g][k], RUN);
		}
}

/* Streamed, one run a step: each plane's line written whole by one store
 * (from a pixel that puts the planes on line boundaries; one unaligned run
 * first covers the head, overlapping the next). In the cache, GROUP runs a
 * step. */
WIDE static size_t surface_to_planes(const uint8_t *src, uint8_t *dst, size_t hw)
{
	size_t p = 0;

	if (hw % RUN == 0 && hw * CHANNELS >= STREAM_MIN) {
		p = align_gap(dst, RUN);
		if (p)
			surface_to_planes_step(src, dst, hw, 0, 1, 0);
		for (; p + RUN <= hw; p += RUN)
			surface_to_planes_step(src, dst, hw, p, 1, 1);
		_mm_sfence();	/* streamed stores ordered before what follows */
		return p;
	}
	for (; p + GROUP * RUN <= hw; p += GROUP * RUN)
		surface_to_planes_step(src, dst, hw, p, GROUP, 0);
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

/* ---- AVX2 ---- */

#define RUN2		32u	/* pixels per vector of one plane */
/*
 * Planar steps are two runs, 64 pixels: each plane's 64-byte line read (or
 * written) whole by two back-to-back accesses, from a pixel that puts the
 * planes on line boundaries (one unaligned step first covers the head; it
 * overlaps the next, writing the same bytes). Direct plane loads this way
 * beat copying 1 KiB per plane to the stack first (0.58 -> 0.74 of memcpy
 * on 4 MiB from malloc's 16-byte-aligned buffers, where half the 32-byte
 * plane loads used to split a line).
 */
#define STEP2		(2 * RUN2)

typedef uint8_t v32u8 __attribute__((vector_size(RUN2)));

/* One unaligned vector; as a value, so that GCC neither copies arrays of
 * them in 16-byte pieces (a 32-byte load of two 16-byte stores cannot be
 * forwarded: measured 0.33 of memcpy instead of 0.7) nor calls memcpy. */
AVX2 static inline v32u8 load2(const uint8_t *p)
{
	v32u8 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

AVX2 static inline void store2(uint8_t *p, v32u8 v)
{
	memcpy(p, &v, sizeof(v));
}

/* In-lane interleaves of the low (YLO) or high (YHI) halves of a and b. */
#define Y2(l, i)	(16 * (l) + (i)), (32 + 16 * (l) + (i))
#define YL(l, o)	Y2(l, o + 0), Y2(l, o + 1), Y2(l, o + 2), Y2(l, o + 3), \
			Y2(l, o + 4), Y2(l, o + 5), Y2(l, o + 6), Y2(l, o + 7)
#define YLO(a, b)	__builtin_shufflevector(a, b, YL(0, 0), YL(1, 0))
#define YHI(a, b)	__builtin_shufflevector(a, b, YL(0, 8), YL(1, 8))
/* The low lanes of a and b (LANES_LO), or their high lanes (LANES_HI). */
#define H16(o)		(o), (o) + 1, (o) + 2, (o) + 3, (o) + 4, (o) + 5, (o) + 6, (o) + 7, \
			(o) + 8, (o) + 9, (o) + 10, (o) + 11, (o) + 12, (o) + 13, (o) + 14, (o) + 15
#define LANES_LO(a, b)	__builtin_shufflevector(a, b, H16(0), H16(32))
#define LANES_HI(a, b)	__builtin_shufflevector(a, b, H16(16), H16(48))

/* Row i of each lane interleaved with row i + 8, four times: both lanes
 * transposed. */
AVX2 static inline void transpose_lanes2(v32u8 r[CHANNELS])
{
	for (unsigned int round = 0; round < 4; round++) {
		v32u8 t[CHANNELS];

		for (unsigned int i = 0; i < CHANNELS / 2; i++) {
			t[2 * i] = YLO(r[i], r[i + CHANNELS / 2]);
			t[2 * i + 1] = YHI(r[i], r[i + CHANNELS / 2]);
		}
		memcpy(r, t, sizeof(t));
	}
}

AVX2 static inline __attribute__((always_inline))
void planes_to_surface_step2(const uint8_t *src, uint8_t *dst, size_t hw,
						 size_t p)
{
	v32u8 r[2][CHANNELS];

	for (unsigned int k = 0; k < CHANNELS; k++) {
		r[0][k] = load2(src + k * hw + p);
		r[1][k] = load2(src + k * hw + p + RUN2);
	}
	for (unsigned int h = 0; h < 2; h++) {
		uint8_t *out = dst + (p + h * RUN2) * CHANNELS;

		transpose_lanes2(r[h]);
		/* r[m]: pixel m in the low lane, pixel 16 + m in the high */
		for (unsigned int m = 0; m < CHANNELS; m += 2) {
			v32u8 lo = LANES_LO(r[h][m], r[h][m + 1]), hi = LANES_HI(r[h][m], r[h][m + 1]);

			store2(out + m * CHANNELS, lo);
			store2(out + (CHANNELS + m) * CHANNELS, hi);
		}
	}
}

AVX2 static size_t planes_to_surface2(const uint8_t *src, uint8_t *dst, size_t hw)
{
	size_t p = align_gap(src, STEP2);

	if (hw < p + STEP2)
		return 0;
	if (p)
		planes_to_surface_step2(src, dst, hw, 0);
	for (; p + STEP2 <= hw; p += STEP2)
		planes_to_surface_step2(src, dst, hw, p);
	return p;
}

AVX2 static inline __attribute__((always_inline))
void surface_to_planes_step2(const uint8_t *src, uint8_t *dst, size_t hw,
						 size_t p, int stream)
{
	v32u8 r[2][CHANNELS];

	for (unsigned int h = 0; h < 2; h++) {
		const uint8_t *in = src + (p + h * RUN2) * CHANNELS;

		for (unsigned int m = 0; m < CHANNELS; m += 2) {
			v32u8 a = load2(in + m * CHANNELS), b = load2(in + (CHANNELS + m) * CHANNELS);

			r[h][m] = LANES_LO(a, b);
			r[h][m + 1] = LANES_HI(a, b);
		}
		transpose_lanes2(r[h]);
	}
	for (unsigned int k = 0; k < CHANNELS; k++)
		for (unsigned int h = 0; h < 2; h++) {
			uint8_t *out = dst + k * hw + p + h * RUN2;

			if (stream && k < STREAMED)
				_mm256_stream_si256((__m256i *)out, (__m256i)r[h][k]);
			else
				store2(out, r[h][k]);
		}
}

AVX2 static size_t surface_to_planes2(const uint8_t *src, uint8_t *dst, size_t hw)
{
	size_t p = align_gap(dst, STEP2);
	int stream = hw % RUN2 == 0 && hw * CHANNELS >= STREAM_MIN;

	if (hw < p + STEP2)
		return 0;
	if (p)
		surface_to_planes_step2(src, dst, hw, 0, 0);
	for (; p + STEP2 <= hw; p += STEP2)
		surface_to_planes_step2(src, dst, hw, p, stream);
	if (stream)
		_mm_sfence();	/* streamed stores ordered before what follows */
	return p;
}

/* NHWC with whole 32-channel blocks ↔ NC1HWC2: two pixels × two atoms are
 * a 2 × 2 transpose of 16-byte lanes, its own inverse. */
AVX2 static size_t nhwc_blocks2(uint8_t *nhwc, uint8_t *surf, size_t hw, size_t c,
				size_t surface, int to_surfaces)
{
	size_t p = 0;

	for (; p + 2 <= hw; p += 2)
		for (size_t q = 0; q < c / RUN2; q++) {
			uint8_t *row = nhwc + p * c + q * RUN2;
			uint8_t *atoms = surf + 2 * q * surface + p * CHANNELS;
			v32u8 a = load2(to_surfaces ? row : atoms);
			v32u8 b = load2(to_surfaces ? row + c : atoms + surface);

			store2(to_surfaces ? atoms : row, LANES_LO(a, b));
			store2(to_surfaces ? atoms + surface : row + c, LANES_HI(a, b));
		}
	return p;
}

AVX2 static size_t flip_signs2(const uint8_t *src, uint8_t *dst, size_t n)
{
	const v32u8 flip = (v32u8){ 0 } + 0x80;
	size_t i = 0;

	for (; i + RUN2 <= n; i += RUN2) {
		store2(dst + i, load2(src + i) ^ flip);
	}
	return i;
}

size_t layout_wide_nhwc_to_surfaces_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface)
{
	if (simd_avx512_vbmi())
		return c % RUN ? 0 : nhwc_blocks((uint8_t *)src, dst, hw, c, surface, 1);
	if (simd_level() >= SIMD_AVX2)
		return c % RUN2 ? 0 : nhwc_blocks2((uint8_t *)src, dst, hw, c, surface, 1);
	return 0;
}

size_t layout_wide_surfaces_to_nhwc_i8(const uint8_t *src, uint8_t *dst, size_t hw, size_t c,
				       size_t surface)
{
	if (simd_avx512_vbmi())
		return c % RUN ? 0 : nhwc_blocks(dst, (uint8_t *)src, hw, c, surface, 0);
	if (simd_level() >= SIMD_AVX2)
		return c % RUN2 ? 0 : nhwc_blocks2(dst, (uint8_t *)src, hw, c, surface, 0);
	return 0;
}

size_t layout_wide_flip_signs(const uint8_t *src, uint8_t *dst, size_t n)
{
	if (simd_avx512_vbmi())
		return flip_signs(src, dst, n);
	return simd_level() >= SIMD_AVX2 ? flip_signs2(src, dst, n) : 0;
}

size_t layout_wide_planes_to_surface_i8(const uint8_t *src, uint8_t *dst, size_t hw)
{
	if (simd_avx512_vbmi())
		return planes_to_surface(src, dst, hw);
	return simd_level() >= SIMD_AVX2 ? planes_to_surface2(src, dst, hw) : 0;
}

size_t layout_wide_surface_to_planes_i8(const uint8_t *src, uint8_t *dst, size_t hw)
{
	if (simd_avx512_vbmi())
		return surface_to_planes(src, dst, hw);
	return simd_level() >= SIMD_AVX2 ? surface_to_planes2(src, dst, hw) : 0;
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
