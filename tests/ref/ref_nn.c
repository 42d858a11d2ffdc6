// SPDX-License-Identifier: MIT
/*
 * CPU reference (see ref_nn.h). Deliberately naive: loops straight from the
 * definitions, NHWC indexing, no layout or hardware knowledge.
 */
#include <math.h>
#include <string.h>

#include "ref_nn.h"

static int in_bounds(int y, int x, int h, int w)
{
	return y >= 0 && x >= 0 && y < h && x < w;
}

void ref_conv_int(const struct ref_conv_shape *s, const int32_t *in, const int32_t *wt,
		  int32_t pad_value, int64_t *acc)
{
	for (int oy = 0; oy < s->oh; oy++)
	for (int ox = 0; ox < s->ow; ox++)
	for (int o = 0; o < s->oc; o++) {
		int64_t sum = 0;

		for (int ky = 0; ky < s->kh; ky++)
		for (int kx = 0; kx < s->kw; kx++) {
			int y = oy * s->sy + ky - s->pad_top;
			int x = ox * s->sx + kx - s->pad_left;
			int inside = in_bounds(y, x, s->h, s->w);

			if (s->depthwise) {
				int64_t v = inside ? in[(y * s->w + x) * s->c + o] : pad_value;

				sum += v * wt[(o * s->kh + ky) * s->kw + kx];
				continue;
			}
			for (int i = 0; i < s->c; i++) {
				int64_t v = inside ? in[(y * s->w + x) * s->c + i] : pad_value;

				sum += v * wt[((o * s->kh + ky) * s->kw + kx) * s->c + i];
			}
		}
		acc[(oy * s->ow + ox) * s->oc + o] = sum;
	}
}

void ref_conv_double(const struct ref_conv_shape *s, const double *in, const double *wt,
		     double pad_value, double *acc)
{
	for (int oy = 0; oy < s->oh; oy++)
	for (int ox = 0; ox < s->ow; ox++)
	for (int o = 0; o < s->oc; o++) {
		double sum = 0;

		for (int ky = 0; ky < s->kh; ky++)
		for (int kx = 0; kx < s->kw; kx++) {
			int y = oy * s->sy + ky - s->pad_top;
			int x = ox * s->sx + kx - s->pad_left;
			int inside = in_bounds(y, x, s->h, s->w);

			for (int i = 0; i < s->c; i++) {
				double v = inside ? in[(y * s->w + x) * s->c + i] : pad_value;

				sum += v * wt[((o * s->kh + ky) * s->kw + kx) * s->c + i];
			}
		}
		acc[(oy * s->ow + ox) * s->oc + o] = sum;
	}
}

void ref_window_sums(const struct ref_conv_shape *s, const int32_t *in, int32_t pad_value,
		     int64_t *out)
{
	int lanes = s->depthwise ? s->c : 1;

	for (int oy = 0; oy < s->oh; oy++)
	for (int ox = 0; ox < s->ow; ox++)
	for (int l = 0; l < lanes; l++) {
		int64_t sum = 0;

		for (int ky = 0; ky < s->kh; ky++)
		for (int kx = 0; kx < s->kw; kx++) {
			int y = oy * s->sy + ky - s->pad_top;
			int x = ox * s->sx + kx - s->pad_left;

			for (int i = 0; i < s->c; i++) {
				if (s->depthwise && i != l)
					continue;
				sum += in_bounds(y, x, s->h, s->w) ?
				       in[(y * s->w + x) * s->c + i] : pad_value;
			}
		}
		out[(oy * s->ow + ox) * lanes + l] = sum;
	}
}

void ref_matmul_int(int m, int k, int n, const int32_t *a, const int32_t *b, int64_t *c)
{
	for (int i = 0; i < m; i++)
	for (int j = 0; j < n; j++) {
		int64_t sum = 0;

		for (int t = 0; t < k; t++)
			sum += (int64_t)a[i * k + t] * b[t * n + j];
		c[i * n + j] = sum;
	}
}

int64_t ref_clamp(int64_t v, int64_t lo, int64_t hi)
{
	if (v < lo)
		return lo;
	if (v > hi)
		return hi;
	return v;
}

/* floor(num / 2^shift) for any sign, by division (not by shifting). */
static int64_t floor_div_pow2(int64_t num, int shift)
{
	int64_t d = (int64_t)1 << shift;
	int64_t q = num / d;

	if (num % d != 0 && num < 0)
		q--;
	return q;
}

int64_t ref_requant(int64_t x, int64_t scale, int shift, int64_t offset, int64_t lo, int64_t hi)
{
	int64_t prod = x * scale, q = prod;

	/* OUT_CVT as the TRM documents cvt_round 0 (what the lowering
	 * writes): round to nearest, an exact half to the even integer. */
	if (shift) {
		int64_t fl = floor_div_pow2(prod, shift);
		int64_t twice_rem = 2 * (prod - fl * ((int64_t)1 << shift));

		q = fl;
		if (twice_rem > ((int64_t)1 << shift) ||
		    (twice_rem == ((int64_t)1 << shift) && (fl & 1)))
			q++;
	}
	return ref_clamp(q + offset, lo, hi);
}

int64_t ref_shift_half_up(int64_t x, int shift)
{
	return shift ? floor_div_pow2(2 * x + ((int64_t)1 << shift), shift + 1) : x;
}

void ref_multiplier(double scale, int64_t *mult, int *shift)
{
	int e;
	int64_t m = llround(ldexp(frexp(scale, &e), 15));	/* scale = frac · 2^e */

	if (m == (int64_t)1 << 15) {	/* frac rounded up to 1 */
		m >>= 1;
		e++;
	}
	*mult = m;
	*shift = 15 - e;
}

int64_t ref_requant_scale(int64_t acc, double scale, int64_t zp, int64_t lo, int64_t hi)
{
	int64_t mult;
	int shift;

	ref_multiplier(scale, &mult, &shift);
	return ref_requant(acc, mult, shift > 0 ? shift : 0, zp, lo, hi);
}

void ref_pool_int(enum ref_pool op, int h, int w, int c, int oh, int ow, int kh, int kw,
		  int sy, int sx, int pad_top, int pad_left, int32_t pad_value,
		  const int32_t *in, int32_t *out)
{
	for (int oy = 0; oy < oh; oy++)
	for (int ox = 0; ox < ow; ox++)
	for (int ch = 0; ch < c; ch++) {
		int64_t sum = 0, best = 0;
		int seen = 0;

		for (int ky = 0; ky < kh; ky++)
		for (int kx = 0; kx < kw; kx++) {
			int y = oy * sy + ky - pad_top, x = ox * sx + kx - pad_left;
			int64_t v;

			if (!in_bounds(y, x, h, w)) {
				sum += pad_value;
				continue;
			}
			v = in[(y * w + x) * c + ch];
			sum += v;
			if (!seen || (op == REF_POOL_MAX && v > best) ||
			    (op == REF_POOL_MIN && v < best))
				best = v;
			seen = 1;
		}
		if (op == REF_POOL_AVG) {
			int64_t n = (int64_t)kh * kw;
			/* round half up: floor(sum / n + 1/2) */
			int64_t q = (2 * sum + n) / (2 * n);

			if ((2 * sum + n) % (2 * n) != 0 && (2 * sum + n) < 0)
				q--;
			best = q;
		}
		out[(oy * ow + ox) * c + ch] = (int32_t)best;
	}
}

void ref_pool_double(enum ref_pool op, int h, int w, int c, int oh, int ow, int kh, int kw,
		     int sy, int sx, int pad_top, int pad_left, const double *in, double *out)
{
	for (int oy = 0; oy < oh; oy++)
	for (int ox = 0; ox < ow; ox++)
	for (int ch = 0; ch < c; ch++) {
		double sum = 0, best = 0;
		int seen = 0;

		for (int ky = 0; ky < kh; ky++)
		for (int kx = 0; kx < kw; kx++) {
			int y = oy * sy + ky - pad_top, x = ox * sx + kx - pad_left;
			double v;

			if (!in_bounds(y, x, h, w))
				continue;
			v = in[(y * w + x) * c + ch];
			sum += v;
			if (!seen || (op == REF_POOL_MAX && v > best) ||
			    (op == REF_POOL_MIN && v < best))
				best = v;
			seen = 1;
		}
		out[(oy * ow + ox) * c + ch] = op == REF_POOL_AVG ? sum / (kh * kw) : best;
	}
}

int64_t ref_eltwise_int(enum ref_eltwise op, int64_t a, int64_t b)
{
	switch (op) {
	case REF_EW_ADD:
		return a + b;
	case REF_EW_SUB:
		return a - b;
	case REF_EW_MUL:
		return a * b;
	case REF_EW_MAX:
		return a > b ? a : b;
	default:
		return a < b ? a : b;
	}
}

uint16_t ref_f32_to_f16(float f)
{
	_Float16 h = (_Float16)f;
	uint16_t bits;

	memcpy(&bits, &h, sizeof(bits));
	return bits;
}

float ref_f16_to_f32(uint16_t bits)
{
	_Float16 h;

	memcpy(&h, &bits, sizeof(h));
	return (float)h;
}
