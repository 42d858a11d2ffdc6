/* SPDX-License-Identifier: MIT */
/*
 * CPU reference for the NPU model's tests: convolution, depthwise
 * convolution, matrix multiply, requantisation, pooling and element-wise
 * operations on plain NHWC arrays, written from the arithmetic definitions.
 * It shares no code with sim/ (nor with runtime/): the tests compare the
 * model against it.
 */
#ifndef RKBARE_TESTS_REF_NN_H
#define RKBARE_TESTS_REF_NN_H

#include <stdbool.h>
#include <stdint.h>

/* Convolution geometry. Padding outside the input reads pad_value. */
struct ref_conv_shape {
	int h, w, c;		/* input */
	int oh, ow, oc;		/* output (oc = c for depthwise) */
	int kh, kw;
	int sy, sx;
	int pad_top, pad_left;
	bool depthwise;
};

/*
 * Integer convolution: in[h][w][c], wt[oc][kh][kw][c] (depthwise:
 * wt[c][kh][kw]), exact sums into acc[oh][ow][oc].
 */
void ref_conv_int(const struct ref_conv_shape *s, const int32_t *in, const int32_t *wt,
		  int32_t pad_value, int64_t *acc);

/* Float convolution with double-precision sums. */
void ref_conv_double(const struct ref_conv_shape *s, const double *in, const double *wt,
		     double pad_value, double *acc);

/* Sum of the input window of each output pixel (zero-point term):
 * out[oh][ow] for direct, out[oh][ow][c] for depthwise. */
void ref_window_sums(const struct ref_conv_shape *s, const int32_t *in, int32_t pad_value,
		     int64_t *out);

/* C[m][n] = sum_k A[m][k] * B[k][n]. */
void ref_matmul_int(int m, int k, int n, const int32_t *a, const int32_t *b, int64_t *c);

/*
 * Fixed-point requantisation: floor((x * scale) / 2^shift + 1/2) + offset,
 * clamped to [lo, hi]. scale >= 0.
 */
int64_t ref_requant(int64_t x, int64_t scale, int shift, int64_t offset, int64_t lo, int64_t hi);
/* x / 2^shift rounded to nearest, halves up: the model's reading of the
 * multiplier truncations that have no documented round_type (BS/BN MUL
 * shift, EW truncate; sim/ASSUMPTIONS.md A12). */
int64_t ref_shift_half_up(int64_t x, int shift);

/*
 * Fixed-point form of a real scale > 0: scale ≈ mult / 2^shift with mult a
 * 15-bit normalised multiplier in [2^14, 2^15) (frexp, halves rounded away
 * from zero). shift is negative for scales of 2 and above.
 */
void ref_multiplier(double scale, int64_t *mult, int *shift);

/*
 * Requantise acc by a real scale through ref_multiplier: ref_requant with
 * that multiplier and its shift, a negative shift taken as 0 (no left
 * shift), plus zp, clamped to [lo, hi].
 */
int64_t ref_requant_scale(int64_t acc, double scale, int64_t zp, int64_t lo, int64_t hi);

/* Clamp helper. */
int64_t ref_clamp(int64_t v, int64_t lo, int64_t hi);

enum ref_pool { REF_POOL_AVG, REF_POOL_MAX, REF_POOL_MIN };

/*
 * Pooling on in[h][w][c] → out[oh][ow][c]. Max/min ignore padding; the
 * average sums the window (padding counts as pad_value) and divides by
 * kh * kw, rounding half up. Integer version.
 */
void ref_pool_int(enum ref_pool op, int h, int w, int c, int oh, int ow, int kh, int kw,
		  int sy, int sx, int pad_top, int pad_left, int32_t pad_value,
		  const int32_t *in, int32_t *out);
/* Float version (average over the window incl. zero padding). */
void ref_pool_double(enum ref_pool op, int h, int w, int c, int oh, int ow, int kh, int kw,
		     int sy, int sx, int pad_top, int pad_left, const double *in, double *out);

enum ref_eltwise { REF_EW_ADD, REF_EW_SUB, REF_EW_MUL, REF_EW_MAX, REF_EW_MIN };
int64_t ref_eltwise_int(enum ref_eltwise op, int64_t a, int64_t b);

/* binary16 conversions through the compiler's _Float16. */
uint16_t ref_f32_to_f16(float f);
float ref_f16_to_f32(uint16_t h);

#endif /* RKBARE_TESTS_REF_NN_H */
