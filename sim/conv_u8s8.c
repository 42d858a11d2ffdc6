// SPDX-License-Identifier: MIT
/*
 * The model's direct int8 convolution on x86 AVX-512 VNNI (vpdpbusd: four
 * u8 × s8 products added into each int32 lane), chosen at run time so one
 * host binary runs on any x86-64. The tile is the usual one of int8 GEMM
 * kernels: the four input channels of one position are broadcast to all
 * lanes and multiplied with the same four channels of 16 kernels, for
 * TILE_POS positions × 2 kernel groups held in registers while the window
 * is walked once.
 */
#include "sim/conv_u8s8.h"

#include <string.h>

static bool enabled = true;

size_t conv_u8s8_packed_bytes(unsigned kernels, unsigned kh, unsigned kw, unsigned ch)
{
	return (size_t)conv_u8s8_kernel_stride(kernels) * kh * kw * ch;
}

unsigned conv_u8s8_kernel_stride(unsigned kernels)
{
	return (kernels + CONV_U8S8_KERNELS - 1u) / CONV_U8S8_KERNELS * CONV_U8S8_KERNELS;
}

void conv_u8s8_pack(const int16_t *wt, int8_t *dst, unsigned kernels, unsigned kh,
		    unsigned kw, unsigned ch)
{
	size_t seg = (size_t)kw * ch, quads = seg / CONV_U8S8_CHANNELS;
	unsigned groups = conv_u8s8_kernel_stride(kernels) / CONV_U8S8_KERNELS;

	for (unsigned g = 0; g < groups; g++)
	for (unsigned ky = 0; ky < kh; ky++)
	for (size_t q = 0; q < quads; q++)
	for (unsigned lane = 0; lane < CONV_U8S8_KERNELS; lane++) {
		unsigned k = g * CONV_U8S8_KERNELS + lane;

		for (unsigned b = 0; b < CONV_U8S8_CHANNELS; b++)
			*dst++ = k < kernels ?
				(int8_t)wt[((size_t)k * kh + ky) * seg + q * CONV_U8S8_CHANNELS + b] :
				0;
	}
}

void conv_u8s8_enable(bool on)
{
	enabled = on;
}

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <immintrin.h>

#define VNNI __attribute__((target("avx512f,avx512bw,avx512vnni")))

/* Positions per tile: 2 × TILE_POS accumulators, two weight vectors and a
 * broadcast stay within the 32 vector registers. */
#define TILE_POS	6u
#define TILE_GROUPS	2u
/* Bytes of one step of one kernel group: 16 kernels × 4 channels. */
#define GROUP_STEP	(CONV_U8S8_KERNELS * CONV_U8S8_CHANNELS)

bool conv_u8s8_available(void)
{
	static int have = -1;

	if (have < 0) {
		__builtin_cpu_init();
		have = __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512bw") &&
		       __builtin_cpu_supports("avx512vnni");
	}
	return enabled && have;
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
		const int8_t *w = cv->wt + g * group_bytes + ky * quads * GROUP_STEP;

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

void conv_u8s8_run(const struct conv_u8s8 *cv, int32_t *sums)
{
	run_vnni(cv, sums);
}

#else

bool conv_u8s8_available(void)
{
	return false;
}

void conv_u8s8_run(const struct conv_u8s8 *cv, int32_t *sums)
{
}

#endif
