/* SPDX-License-Identifier: MIT */
/*
 * Direct integer convolution of the NPU model on a SIMD dot-product unit,
 * summed exactly in int32. Two units: AVX-512 VNNI multiplies unsigned
 * 8-bit inputs (the model's int8 or uint8 input plus a bias that makes it
 * unsigned) by signed 8-bit weights; AVX2 multiplies the int16 input as
 * it is by the weights widened to int16. exec_conv.c removes the bias
 * again and applies the CORE's output stage; this file only multiplies.
 * Without such a unit (the machine lacks it, or RKBARE_SIMD caps it,
 * hal/host/simd_level.h) conv_u8s8_path() is CONV_U8S8_NONE and
 * exec_conv.c keeps its portable int16 loop.
 */
#ifndef RKBARE_SIM_CONV_U8S8_H
#define RKBARE_SIM_CONV_U8S8_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* Kernels one packed weight group holds, and input channels per step. */
#define CONV_U8S8_KERNELS	16u
#define CONV_U8S8_CHANNELS	4u

/* Largest window (kh·kw·channels) whose sums cannot overflow int32:
 * 255 · 128 per product. */
#define CONV_U8S8_MAX_WINDOW	65536u

enum conv_u8s8_path {
	CONV_U8S8_NONE,		/* no unit: the portable loop */
	CONV_U8S8_AVX2,		/* vpmaddwd on the int16 input */
	CONV_U8S8_VNNI,		/* vpdpbusd on the biased uint8 input */
};

struct conv_u8s8 {
	enum conv_u8s8_path path;
	const uint8_t *in;	/* VNNI: padded input [hp][wp][ch], value + bias */
	const int16_t *in16;	/* AVX2: the same input, int16, no bias */
	const void *wt;		/* conv_u8s8_pack() output for this path */
	unsigned wp, ch;	/* padded row width; ch a multiple of 4 */
	unsigned kw, kh, sx, sy;
	unsigned ow, oh, kernels;
};

/* The unit this machine has and the SIMD level allows. */
enum conv_u8s8_path conv_u8s8_path(void);

/* Bytes conv_u8s8_pack() writes for `kernels` kernels of kh·kw·ch. */
size_t conv_u8s8_packed_bytes(enum conv_u8s8_path path, unsigned kernels, unsigned kh,
			      unsigned kw, unsigned ch);

/*
 * Weights [kernel][kh][kw][ch] → [kernel group][kh][kw·ch/n][16 kernels][n]
 * with n = 4 int8 (VNNI) or n = 2 int16 (AVX2), kernels past the last zero.
 */
void conv_u8s8_pack(enum conv_u8s8_path path, const int16_t *wt, void *dst, unsigned kernels,
		    unsigned kh, unsigned kw, unsigned ch);

/* Kernels rounded up to whole groups: the stride of one position in sums. */
unsigned conv_u8s8_kernel_stride(unsigned kernels);

/* sums[(oy·ow + ox) · kernel_stride + k] = Σ window · kernel k, for
 * cv->path (not CONV_U8S8_NONE). */
void conv_u8s8_run(const struct conv_u8s8 *cv, int32_t *sums);

#endif /* RKBARE_SIM_CONV_U8S8_H */
