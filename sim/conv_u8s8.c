// SPDX-License-Identifier: MIT
/*
 * The model's direct int8 convolution on x86 vector units, chosen at run
 * time (hal/host/simd_level.h) so one host binary runs on any x86-64:
 *
 * - AVX-512 VNNI (vpdpbusd: four u8 × s8 products added into each int32
 *   lane). The four input channels of one position are broadcast to all
 *   lanes and multiplied with the same four channels of 16 kernels, for
 *   TILE_POS positions × 2 kernel groups held in registers while the
 *   window is walked once (the usual tile of int8 GEMM kernels).
 * - AVX2 (vpmaddwd: two int16 × int16 products added into each int32
 *   lane, exact; vpmaddubsw would be twice as wide but saturates its int16
 *   pair sums). Two input channels are broadcast and multiplied with the
 *   same two channels of 16 kernels (two vectors), for A2_POS positions.
 *
 * Elsewhere (aarch64, the image) there is no path: exec_conv.c's portable
 * loop runs.
 */
#include "sim/conv_u8s8.h"

#include <string.h>

/* Channels per step of the AVX2 packing: one int16 pair a lane. */
#define PAIR	2u

size_t conv_u8s8_packed_bytes(enum conv_u8s8_path path, unsigned kernels, unsigned kh,
			      unsigned kw, unsigned ch)
{
	size_t elem = path == CONV_U8S8_AVX2 ? sizeof(int16_t) : sizeof(int8_t);

	return (size_t)conv_u8s8_kernel_stride(kernels) * kh * kw * ch * elem;
}

unsigned conv_u8s8_kernel_stride(unsigned kernels)
{
	return (kernels + CONV_U8S8_KERNELS - 1u) / CONV_U8S8_KERNELS * CONV_U8S8_KERNELS;
}

void conv_u8s8_pack(enum conv_u8s8_path path, const int16_t *wt, void *dst, unsigned kernels,
		    unsigned kh, unsigned kw, unsigned ch)
{
	unsigned n = path == CONV_U8S8_AVX2 ? PAIR : CONV_U8S8_CHANNELS;
	size_t seg = (size_t)kw * ch, steps = seg / n, at = 0;
	unsigned groups = conv_u8s8_kernel_stride(kernels) / CONV_U8S8_KERNELS;
	int16_t *d16 = dst;
	int8_t *d8 = dst;

	for (unsigned g = 0; g < groups; g++)
	for (unsigned ky = 0; ky < kh; ky++)
	for (size_t q = 0; q < steps; q++)
	for (unsigned lane = 0; lane < CONV_U8S8_KERNELS; lane++) {
		unsigned k = g * CONV_U8S8_KERNELS + lane;

		for (unsigned b = 0; b < n; b++, at++) {
			int16_t v = k < kernels ? wt[((size_t)k * kh + ky) * seg + q * n + b] : 0;

			if (path == CONV_U8S8_AVX2)
				d16[at] = v;
			else
				d8[at] = (int8_t)v;
		}
	}
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#include "host/simd_level.h"

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))
#define AVX2 __attribute__((target("avx2")))

/* Positions per tile: 2 × TILE_POS accumulators, two weight vectors and a
 * broadcast stay within the 32 vector registers. */
#define TILE_POS	6u
#define TILE_GROUPS	2u
/* Bytes of one step of one kernel group: 16 kernels × 4 channels. */
#define GROUP_STEP	(CONV_U8S8_KERNELS * CONV_U8S8_CHANNELS)

/* AVX2 positions per tile: 2 × A2_POS accumulators, the group's two
 * weight vectors, a broadcast and a product fill the 16 registers. */
#define A2_POS		6u
/* int16 weights of one AVX2 step of one group: 16 kernels × 2 channels. */
#define A2_STEP		(CONV_U8S8_KERNELS * PAIR)
/* Kernels per 256-bit vector of int32 sums. */
#define A2_HALF		(CONV_U8S8_KERNELS / 2u)

enum conv_u8s8_path conv_u8s8_path(void)
{
	if (simd_avx512_vnni())
		return CONV_U8S8_VNNI;
	return simd_level() >= SIMD_AVX2 ? CONV_U8S8_AVX2 : CONV_U8S8_NONE;
}

/* np positions from (oy, ox) × ng groups from g; np, ng are constants at
 * every call, so the arrays below live in registers. */
VNNI static inline __attribute__((always_inline))
void tile(const struct conv_u8s8 *cv, int32_t *sums, unsigned oy, unsigned ox, unsigned g,
	  const unsigned np, const unsigned ng)
{
	size_t quads = (size_t)cv->kw * cv->ch / CONV_U8S8_CHANNELS;
	size_t group_bytes = (size_t)cv->kh * quads * GROUP_STEP;
	unsigned stride = conv_u8s8_kernel_stride(cv->kernels);
	__m512i acc[TILE_POS][TILE_GROUPS];

	for (unsigned p = 0; p < np; p++)
		for (unsigned q = 0; q < ng; q++)
			acc[p][q] = _mm512_setzero_si512();
	for (unsigned ky = 0; ky < cv->kh; ky++) {
		const uint8_t *x[TILE_POS];
		const int8_t *w = (const int8_t *)cv->wt + g * group_bytes + ky * quads * GROUP_STEP;

		for (unsigned p = 0; p < np; p++)
			x[p] = cv->in + (((size_t)oy * cv->sy + ky) * cv->wp +
					 (size_t)(ox + p) * cv->sx) * cv->ch;
		for (size_t j = 0; j < quads; j++, w += GROUP_STEP) {
			__m512i wv[TILE_GROUPS];

			for (unsigned q = 0; q < ng; q++)
				wv[q] = _mm512_loadu_si512(w + q * group_bytes);
			for (unsigned p = 0; p < np; p++) {
				int32_t four;
				__m512i xv;

				memcpy(&four, x[p] + j * CONV_U8S8_CHANNELS, sizeof(four));
				xv = _mm512_set1_epi32(four);
				for (unsigned q = 0; q < ng; q++)
					acc[p][q] = _mm512_dpbusd_epi32(acc[p][q], xv, wv[q]);
			}
		}
	}
	for (unsigned p = 0; p < np; p++)
		for (unsigned q = 0; q < ng; q++)
			_mm512_storeu_si512(sums + ((size_t)oy * cv->ow + ox + p) * stride +
					    (g + q) * CONV_U8S8_KERNELS, acc[p][q]);
}

VNNI static void run_vnni(const struct conv_u8s8 *cv, int32_t *sums)
{
	unsigned groups = conv_u8s8_kernel_stride(cv->kernels) / CONV_U8S8_KERNELS;

	for (unsigned oy = 0; oy < cv->oh; oy++) {
		unsigned ox = 0;

		for (; ox + TILE_POS <= cv->ow; ox += TILE_POS) {
			unsigned g = 0;

			for (; g + TILE_GROUPS <= groups; g += TILE_GROUPS)
				tile(cv, sums, oy, ox, g, TILE_POS, TILE_GROUPS);
			if (g < groups)
				tile(cv, sums, oy, ox, g, TILE_POS, 1);
		}
		for (; ox < cv->ow; ox++) {
			unsigned g = 0;

			for (; g + TILE_GROUPS <= groups; g += TILE_GROUPS)
				tile(cv, sums, oy, ox, g, 1, TILE_GROUPS);
			if (g < groups)
				tile(cv, sums, oy, ox, g, 1, 1);
		}
	}
}

/* np positions from (oy, ox) × the 16 kernels of group g. */
AVX2 static inline __attribute__((always_inline))
void tile_avx2(const struct conv_u8s8 *cv, int32_t *sums, unsigned oy, unsigned ox, unsigned g,
	       const unsigned np)
{
	size_t pairs = (size_t)cv->kw * cv->ch / PAIR;
	size_t group_elems = (size_t)cv->kh * pairs * A2_STEP;
	unsigned stride = conv_u8s8_kernel_stride(cv->kernels);
	__m256i acc[A2_POS][2];

	for (unsigned p = 0; p < np; p++)
		acc[p][0] = acc[p][1] = _mm256_setzero_si256();
	for (unsigned ky = 0; ky < cv->kh; ky++) {
		const int16_t *x[A2_POS];
		const int16_t *w = (const int16_t *)cv->wt + g * group_elems + ky * pairs * A2_STEP;

		for (unsigned p = 0; p < np; p++)
			x[p] = cv->in16 + (((size_t)oy * cv->sy + ky) * cv->wp +
					   (size_t)(ox + p) * cv->sx) * cv->ch;
		for (size_t j = 0; j < pairs; j++, w += A2_STEP) {
			__m256i w0 = _mm256_loadu_si256((const __m256i *)w);
			__m256i w1 = _mm256_loadu_si256((const __m256i *)(w + A2_STEP / 2));

			for (unsigned p = 0; p < np; p++) {
				int32_t two;
				__m256i xv;

				memcpy(&two, x[p] + j * PAIR, sizeof(two));
				xv = _mm256_set1_epi32(two);
				acc[p][0] = _mm256_add_epi32(acc[p][0], _mm256_madd_epi16(xv, w0));
				acc[p][1] = _mm256_add_epi32(acc[p][1], _mm256_madd_epi16(xv, w1));
			}
		}
	}
	for (unsigned p = 0; p < np; p++) {
		int32_t *s = sums + ((size_t)oy * cv->ow + ox + p) * stride + g * CONV_U8S8_KERNELS;

		_mm256_storeu_si256((__m256i *)s, acc[p][0]);
		_mm256_storeu_si256((__m256i *)(s + A2_HALF), acc[p][1]);
	}
}

AVX2 static void run_avx2(const struct conv_u8s8 *cv, int32_t *sums)
{
	unsigned groups = conv_u8s8_kernel_stride(cv->kernels) / CONV_U8S8_KERNELS;

	for (unsigned oy = 0; oy < cv->oh; oy++) {
		unsigned ox = 0;

		for (; ox + A2_POS <= cv->ow; ox += A2_POS)
			for (unsigned g = 0; g < groups; g++)
				tile_avx2(cv, sums, oy, ox, g, A2_POS);
		for (; ox < cv->ow; ox++)
			for (unsigned g = 0; g < groups; g++)
				tile_avx2(cv, sums, oy, ox, g, 1);
	}
}

void conv_u8s8_run(const struct conv_u8s8 *cv, int32_t *sums)
{
	if (cv->path == CONV_U8S8_VNNI)
		run_vnni(cv, sums);
	else if (cv->path == CONV_U8S8_AVX2)
		run_avx2(cv, sums);
}

#else

enum conv_u8s8_path conv_u8s8_path(void)
{
	return CONV_U8S8_NONE;
}

void conv_u8s8_run(const struct conv_u8s8 *cv, int32_t *sums)
{
}

#endif
