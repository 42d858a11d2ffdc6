/* SPDX-License-Identifier: MIT */
/* The board probes' decisions (probe_decide.h): CPU expectations per reading. */
#include <string.h>

#include "boot/probe_decide.h"
#include "compiler/layout.h"

int probe_pick(const unsigned int *matches, unsigned int readings, unsigned int total)
{
	int pick = PROBE_NONE;

	for (unsigned int h = 0; h < readings; h++) {
		if (matches[h] != total)
			continue;
		if (pick != PROBE_NONE)
			return PROBE_AMBIGUOUS;
		pick = (int)h;
	}
	return pick;
}

int probe_decide_int(const void *ctx, probe_int_fn f, unsigned int readings,
		     const int64_t *got, size_t n, unsigned int *matches)
{
	unsigned int m[PROBE_MAX_READINGS] = { 0 };

	if (readings > PROBE_MAX_READINGS)
		return PROBE_NONE;
	for (unsigned int h = 0; h < readings; h++)
		for (size_t i = 0; i < n; i++)
			m[h] += got[i] == f(ctx, (int)h, i);
	for (unsigned int h = 0; matches && h < readings; h++)
		matches[h] = m[h];
	return probe_pick(m, readings, (unsigned int)n);
}

/* One fp16 unit in the last place is at most |v| / 1024 (10 stored bits);
 * the slack covers results that round to zero. */
#define FP16_ULP_DIV	1024.0f
#define FP16_ABS_SLACK	1e-6f
#define FP16_MAX	65504.0f

bool probe_f16_close(float got, float want)
{
	float off, mag;

	/* beyond the fp16 range the result is an infinity of the same sign */
	if (want > FP16_MAX || want < -FP16_MAX || got > FP16_MAX || got < -FP16_MAX)
		return (want > 0.0f) == (got > 0.0f) &&
		       (want > FP16_MAX || want < -FP16_MAX) &&
		       (got > FP16_MAX || got < -FP16_MAX);
	off = got > want ? got - want : want - got;
	mag = want < 0.0f ? -want : want;
	return off <= mag / FP16_ULP_DIV + FP16_ABS_SLACK;	/* NaN fails */
}

int probe_decide_float(const void *ctx, probe_float_fn f, unsigned int readings,
		       const float *got, size_t n, unsigned int *matches)
{
	unsigned int m[PROBE_MAX_READINGS] = { 0 };

	if (readings > PROBE_MAX_READINGS)
		return PROBE_NONE;
	for (unsigned int h = 0; h < readings; h++)
		for (size_t i = 0; i < n; i++)
			m[h] += probe_f16_close(got[i], f(ctx, (int)h, i));
	for (unsigned int h = 0; matches && h < readings; h++)
		matches[h] = m[h];
	return probe_pick(m, readings, (unsigned int)n);
}

static int64_t sat(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* floor(v / d), d > 0 (C division truncates toward zero). */
static int64_t floor_div(int64_t v, int64_t d)
{
	int64_t q = v / d;

	return q * d > v ? q - 1 : q;
}

/* v / 2^s with the fraction rounded as reading r (EWR_*) says. */
static int64_t shift_round(int64_t v, unsigned int s, int r)
{
	int64_t fl, rem, half;

	if (!s)
		return v;
	fl = floor_div(v, (int64_t)1 << s);
	rem = v - fl * ((int64_t)1 << s);
	half = (int64_t)1 << (s - 1u);
	if (r == EWR_FLOOR || rem < half)
		return fl;
	if (rem > half || r == EWR_UP)
		return fl + 1;
	return fl + (fl & 1);	/* an exact half, to even */
}

int64_t probe_ties_expect(const void *acc, int h, size_t i)
{
	int32_t a = ((const int32_t *)acc)[i];

	return sat(shift_round(a, 1, h == TIES_EVEN ? EWR_EVEN : EWR_UP), INT8_MIN, INT8_MAX);
}

int64_t probe_pool_ties_expect(const void *sum, int h, size_t i)
{
	int32_t s = ((const int32_t *)sum)[i];
	int64_t fl = floor_div(s, 4);

	if (h == PTIES_UP)
		return fl + 1;
	if (h == PTIES_EVEN)
		return fl + (fl & 1);
	if (h == PTIES_FLOOR)
		return fl;
	return s >= 0 ? fl + 1 : fl;	/* away from zero */
}

/* PPU reciprocals are 2^16 / k in 16 bits; the average shifts by 32. */
#define AVG_RECIP_BITS	16u

int64_t probe_avg_expect(const void *avg, int h, size_t i)
{
	const struct probe_avg *a = avg;
	int64_t r = (((int64_t)1 << AVG_RECIP_BITS) + a->k / 2u) / a->k;

	return shift_round((int64_t)a->sum[i] * r * r, 2u * AVG_RECIP_BITS,
			   h == AVG_NEAREST ? EWR_UP : EWR_FLOOR);
}

int64_t probe_ew_round_expect(const void *ew, int h, size_t i)
{
	const struct probe_ew_mul *e = ew;

	return sat(shift_round((int64_t)e->acc[i] * e->mult[i], e->shift, h), INT32_MIN,
		   INT32_MAX);
}

int64_t probe_ew_mul_expect(const void *ew, int h, size_t i)
{
	const struct probe_ew_mul *e = ew;
	int64_t p;

	if (h == EWM_WRAP32)
		p = (int32_t)(uint32_t)((uint64_t)(int64_t)e->acc[i] * (uint64_t)(int64_t)e->mult[i]);
	else if (h == EWM_OP16)
		p = (int64_t)e->acc[i] * (int16_t)(uint16_t)e->mult[i];
	else
		p = (int64_t)e->acc[i] * e->mult[i];
	/* the model's rounding (A12): the probe's data has no fraction */
	return sat(shift_round(p, e->shift, EWR_UP), INT32_MIN, INT32_MAX);
}

int64_t probe_ew_sat_expect(const void *ew, int h, size_t i)
{
	const struct probe_ew_mul *e = ew;
	int64_t v = shift_round((int64_t)e->acc[i] * e->mult[i], e->shift, EWR_UP);

	if (h == EWS_WRAP)
		return (int32_t)(uint32_t)(uint64_t)v;
	return sat(v, INT32_MIN, INT32_MAX);
}

#define EWR_SHIFT		2u
#define EWR_MAX_MULT		7
#define EWM_SHIFT		20u
#define EWS_OPERAND_SHIFT	16u

unsigned int probe_ew_operands(enum probe_ew_kind kind, int32_t *mult, unsigned int k)
{
	for (unsigned int i = 0; i < k; i++)
		mult[i] = kind == PROBE_EW_ROUND ? (int32_t)(i % EWR_MAX_MULT) + 1 :
			  kind == PROBE_EW_WIDTH ? (int32_t)(2u * i + 1u) << EWM_SHIFT :
			  (int32_t)(i + 1u) << EWS_OPERAND_SHIFT;
	return kind == PROBE_EW_ROUND ? EWR_SHIFT : kind == PROBE_EW_WIDTH ? EWM_SHIFT : 0u;
}

float probe_bias_word(const float *words, int h, unsigned int k)
{
	uint32_t word;
	uint16_t half;

	if (h == BIAS_FP32)
		return words[k];
	if (h == BIAS_IGNORED)
		return 0.0f;
	if (h == BIAS_INT32) {
		memcpy(&word, &words[k], sizeof(word));
		return (float)(int32_t)word;
	}
	/* 16-bit elements: the k-th halfword of the buffer (little-endian) */
	memcpy(&half, (const uint8_t *)words + 2u * k, sizeof(half));
	return layout_f16_to_f32(half);
}

int64_t probe_table_expect(const void *table, int h, size_t i)
{
	return ((const struct probe_table *)table)->want[h][i];
}

float probe_ftable_expect(const void *table, int h, size_t i)
{
	return ((const struct probe_ftable *)table)->want[h][i];
}

static int32_t conv8_in(const struct probe_conv8 *cv, unsigned int c, int iy, int ix)
{
	if (iy < 0 || ix < 0 || iy >= (int)cv->h || ix >= (int)cv->w_)
		return cv->pad_value;
	return cv->x[((size_t)c * cv->h + (unsigned int)iy) * cv->w_ + (unsigned int)ix];
}

int64_t probe_conv8_acc(const struct probe_conv8 *cv, unsigned int k, unsigned int oy,
			unsigned int ox)
{
	int64_t sum = 0;

	for (unsigned int ky = 0; ky < cv->kh; ky++)
		for (unsigned int kx = 0; kx < cv->kw; kx++)
			for (unsigned int c = 0; c < cv->c; c++)
				sum += (int64_t)conv8_in(cv, c, (int)(oy + ky) - (int)cv->pad,
							 (int)(ox + kx) - (int)cv->pad) *
				       cv->w[(((size_t)k * cv->kh + ky) * cv->kw + kx) * cv->c + c];
	return sum;
}

int64_t probe_conv8_window_sum(const struct probe_conv8 *cv, unsigned int oy, unsigned int ox,
			       unsigned int pad_lanes)
{
	int64_t sum = 0;

	for (unsigned int ky = 0; ky < cv->kh; ky++)
		for (unsigned int kx = 0; kx < cv->kw; kx++) {
			int iy = (int)(oy + ky) - (int)cv->pad;
			int ix = (int)(ox + kx) - (int)cv->pad;

			if (iy < 0 || ix < 0 || iy >= (int)cv->h || ix >= (int)cv->w_) {
				sum += (int64_t)cv->pad_value * pad_lanes;
				continue;
			}
			for (unsigned int c = 0; c < cv->c; c++)
				sum += conv8_in(cv, c, iy, ix);
		}
	return sum;
}

size_t probe_conv8_outputs(const struct probe_conv8 *cv)
{
	return (size_t)cv->k * (cv->h + 2u * cv->pad - cv->kh + 1u) *
	       (cv->w_ + 2u * cv->pad - cv->kw + 1u);
}

/* int8 NC1HWC2 lanes per pixel (16-byte atoms) and the half-atom's 8. */
#define HALF_ATOM_LANES		16u
#define HALF_ATOM_CHANNELS	8u

int64_t probe_half_atom_expect(const void *ha, int h, size_t i)
{
	const struct probe_half_atom *a = ha;
	size_t k = i / a->pixels, p = i % a->pixels;
	size_t pitch = h == HALF_FIRST_LANES ? HALF_ATOM_LANES : HALF_ATOM_CHANNELS;
	int64_t sum = 0;

	for (unsigned int c = 0; c < HALF_ATOM_CHANNELS; c++)
		sum += (int64_t)a->mem[p * pitch + c] * a->w[k * HALF_ATOM_CHANNELS + c];
	return sum;
}

/* fp16 depthwise kernels are 3x3 (the probes' shape). */
#define DW_K	3u

float probe_dw_expect(const void *dw, int h, size_t i)
{
	const struct probe_dw *d = dw;
	int layout = d->readings[h];
	unsigned int ow = d->w + 2u * d->pad - DW_K + 1u, oh = d->h + 2u * d->pad - DW_K + 1u;
	unsigned int c = (unsigned int)(i / ((size_t)oh * ow));
	unsigned int oy = (unsigned int)(i / ow % oh), ox = (unsigned int)(i % ow);
	/* the even-pitch reading: rows read as if one pixel wider when odd */
	unsigned int pitch = layout == DW_EVEN_PITCH ? (d->w + 1u) & ~1u : d->w;
	float sum = 0.0f;

	for (unsigned int ky = 0; ky < DW_K; ky++)
		for (unsigned int kx = 0; kx < DW_K; kx++) {
			int iy = (int)(oy + ky) - (int)d->pad, ix = (int)(ox + kx) - (int)d->pad;
			unsigned int t = ky * DW_K + kx;
			size_t wi = layout == DW_CHANNEL_MAJOR ? (size_t)c * DW_K * DW_K + t :
				    layout == DW_LANES32 ? (size_t)t * 32u + c :
				    (size_t)t * d->lanes + c;
			size_t xi;

			if (iy < 0 || ix < 0 || iy >= (int)d->h || ix >= (int)d->w)
				continue;
			xi = (size_t)c * d->h * d->w + (size_t)iy * pitch + (unsigned int)ix;
			if (xi >= (size_t)(c + 1u) * d->h * d->w)
				continue;	/* read past the plane: counted as 0 */
			sum += d->x[xi] * (wi < d->wbuf_len ? d->wbuf[wi] : 0.0f);
		}
	return sum;
}

int64_t probe_int4_expect(const void *sums, int h, size_t i)
{
	int32_t v = ((const int32_t *)sums)[i];

	if (h == I4_SATURATE)
		return sat(v, INT16_MIN, INT16_MAX);
	/* the low 16 bits, as a two's-complement int16 */
	return (int64_t)((v & 0xFFFF) ^ 0x8000) - 0x8000;
}
