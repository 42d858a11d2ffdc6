/* SPDX-License-Identifier: MIT */
/*
 * Direct integer convolution of the NPU model on a SIMD dot-product unit:
 * unsigned 8-bit inputs (the model's int8 or uint8 input plus a bias that
 * makes it unsigned) times signed 8-bit weights, summed exactly in int32.
 * exec_conv.c removes the bias again and applies the CORE's output stage;
 * this file only multiplies. Without such a unit (or on a machine that
 * lacks it) conv_u8s8_available() is false and exec_conv.c keeps its
 * portable int16 loop.
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

struct conv_u8s8 {
	const uint8_t *in;	/* padded input [hp][wp][ch], value + bias */
	const int8_t *wt;	/* conv_u8s8_pack() output */
	unsigned wp, ch;	/* padded row width; ch a multiple of 4 */
	unsigned kw, kh, sx, sy;
	unsigned ow, oh, kernels;
};

/* Bytes conv_u8s8_pack() writes for `kernels` kernels of kh·kw·ch. */
size_t conv_u8s8_packed_bytes(unsigned kernels, unsigned kh, unsigned kw, unsigned ch);

/* Weights [kernel][kh][kw][ch] → [kernel group][kh][kw·ch/4][16 kernels][4],
 * kernels past the last zero. */
void conv_u8s8_pack(const int16_t *wt, int8_t *dst, unsigned kernels, unsigned kh,
		    unsigned kw, unsigned ch);

/* Kernels rounded up to whole groups: the stride of one position in sums. */
unsigned conv_u8s8_kernel_stride(unsigned kernels);

/* Whether this machine has the dot-product unit (and the model may use it). */
bool conv_u8s8_available(void);

/* Force the portable path (tests compare both against their reference). */
void conv_u8s8_enable(bool on);

/* sums[(oy·ow + ox) · kernel_stride + k] = Σ window · kernel k. */
void conv_u8s8_run(const struct conv_u8s8 *cv, int32_t *sums);

#endif /* RKBARE_SIM_CONV_U8S8_H */
