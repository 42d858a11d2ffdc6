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
				    layout == DW_GROUPS32 ?
				    ((size_t)c / LAYOUT_DW_GROUP_FP16 * DW_K * DW_K + t) *
				    LAYOUT_DW_GROUP_FP16 + c % LAYOUT_DW_GROUP_FP16 :
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

/* ---- A35: the LUT, in quarter units ---- */

/* How one reading computes the LUT: the input rounding (EWR_*, or -1: kept
 * with its fraction), the entries' sign, the interpolation rounding (EWR_*,
 * or -1: exact), the priority bit's meaning, the slopes' rounding (EWR_*)
 * and whether out-of-range inputs use the slopes at all. */
struct lut_way {
	int round_in;
	bool unsig;
	int interp;
	bool swap;
	int slope;
	bool clamp;
	int force;		/* the table every input takes (-1: the priorities') */
};

/* Quarter units per LUT unit: 2^2. */
#define LUT_Q_BITS	2u
#define LUT_Q		((int64_t)1 << LUT_Q_BITS)

static int64_t lut_entry(const struct probe_lut_table *tab, int64_t i, bool unsig)
{
	return unsig ? (int64_t)tab->t[i] : (int64_t)(int16_t)tab->t[i];
}

/* The value at xs (quarter units) inside the table's range, × 4. */
static int64_t lut_inside(const struct probe_lut_table *tab, const struct lut_way *w, int64_t xs)
{
	unsigned int unit = tab->sel + LUT_Q_BITS;	/* quarter units per entry: 2^unit */
	int64_t off = xs - tab->start * LUT_Q;
	int64_t idx = off >> unit, frac = off - (idx << unit);
	int64_t y0 = lut_entry(tab, idx, w->unsig), n;

	if (!frac)
		return y0 * LUT_Q;
	n = y0 * ((int64_t)1 << unit) + (lut_entry(tab, idx + 1, w->unsig) - y0) * frac;
	if (w->interp < 0)
		return floor_div(n * LUT_Q, (int64_t)1 << unit);
	return shift_round(n, unit, w->interp) * LUT_Q;
}

enum { LUT_HIT, LUT_UNDER, LUT_OVER };

static int lut_where(const struct probe_lut_table *tab, int64_t xs)
{
	return xs < tab->start * LUT_Q ? LUT_UNDER : xs > tab->end * LUT_Q ? LUT_OVER : LUT_HIT;
}

static int64_t lut_eval(const struct probe_lut *l, const struct lut_way *w, int64_t xq)
{
	int64_t xs = w->round_in < 0 ? xq : shift_round(xq, LUT_Q_BITS, w->round_in) * LUT_Q;
	int le = lut_where(&l->tab[0], xs), lo = lut_where(&l->tab[1], xs);
	const struct probe_lut_table *tab;
	unsigned int id;
	int64_t x;
	int at;

	if (w->force >= 0)
		id = (unsigned int)w->force;
	else if (le == LUT_HIT && lo != LUT_HIT)
		id = 0;
	else if (lo == LUT_HIT && le != LUT_HIT)
		id = 1;
	else
		id = (le == LUT_UNDER && lo == LUT_UNDER ? l->uflow :
		      le == LUT_OVER && lo == LUT_OVER ? l->oflow : l->hybrid) ^ w->swap;
	tab = &l->tab[id];
	at = id ? lo : le;
	if (at == LUT_HIT)
		return lut_inside(tab, w, xs);
	/* out of range: the probes feed whole numbers there */
	x = floor_div(xs, LUT_Q);
	if (at == LUT_UNDER)
		return (lut_entry(tab, 0, w->unsig) +
			(w->clamp ? 0 : shift_round((x - tab->start) * tab->uflow_scale,
						    tab->uflow_shift, w->slope))) * LUT_Q;
	return lut_inside(tab, w, tab->end * LUT_Q) +
	       ((w->clamp ? 0 : shift_round((x - tab->end) * tab->oflow_scale, tab->oflow_shift,
					    w->slope)) * LUT_Q);
}

int64_t probe_lut_expect(const void *lut, int h, size_t i)
{
	static const int round_in[LUTR_READINGS] = { EWR_EVEN, EWR_UP, EWR_FLOOR, -1 };
	static const int interp[LUTI_READINGS] = { EWR_UP, EWR_FLOOR, EWR_EVEN, -1 };
	const struct probe_lut *l = lut;
	/* the model's reading of every question */
	struct lut_way w = { .round_in = EWR_EVEN, .interp = EWR_UP, .slope = EWR_UP,
			     .force = -1 };

	switch (l->q) {
	case PROBE_LUT_ROUND:
		w.round_in = round_in[h];
		break;
	case PROBE_LUT_SIGN:
		w.unsig = h == LUTS_UNSIGNED;
		break;
	case PROBE_LUT_INTERP:
		w.interp = interp[h];
		break;
	case PROBE_LUT_SELECT:
		w.swap = h == LUTP_SWAPPED;
		w.slope = h == LUTP_SLOPE_FLOOR ? EWR_FLOOR : EWR_UP;
		w.clamp = h == LUTP_CLAMP;
		break;
	case PROBE_LUT_MUX:
		/* tab[0] is LE, tab[1] LO */
		w.force = h == LUTM_LE ? 0 : h == LUTM_LO ? 1 : -1;
		break;
	}
	return lut_eval(l, &w, l->xq[i]);
}

/* ---- A36 ---- */

int probe_inherit_pick(const bool sums[INH_CASES])
{
	/* which cases give the sums under each reading */
	static const bool pattern[INH_READINGS][INH_CASES] = {
		[INH_INHERITED] = { false, false, true, false },
		[INH_SCALE_INERT] = { false, true, true, false },
		[INH_ZERO_INERT] = { true, true, true, false },
		[INH_FP16_SCALE] = { false, false, false, true },
	};

	for (int h = 0; h < INH_READINGS; h++)
		if (!memcmp(pattern[h], sums, sizeof(pattern[h])))
			return h;
	return PROBE_NONE;
}

/* ---- A40 ---- */

int64_t probe_int4_expect(const void *sums, int h, size_t i)
{
	int32_t v = ((const int32_t *)sums)[i];

	if (h == I4_SATURATE)
		return sat(v, INT16_MIN, INT16_MAX);
	/* the low 16 bits, as a two's-complement int16 */
	return (int64_t)((v & 0xFFFF) ^ 0x8000) - 0x8000;
}

/* ---- A21-stages ---- */

/* A value in quarter units rounded to fp16 (to nearest, ties to even), in
 * quarter units: the probes' values are whole quarters below 2^16. */
static int64_t f16_quarters(int64_t q)
{
	return (int64_t)(layout_f16_to_f32(layout_f32_to_f16((float)q / 4.0f)) * 4.0f);
}

int64_t probe_stages_expect(const void *st, int h, size_t i)
{
	const struct probe_stages *s = st;
	int64_t v = (int64_t)s->xq[i] + s->bnq;

	if (h == STG_FP16)
		v = f16_quarters(v);
	return f16_quarters(v + s->eq[i]);
}

/* ---- patterns of cases; A40's int32 output and DATA_ENTRIES ---- */

int probe_pattern_pick(const bool *seen, const bool *patterns, unsigned int readings,
		       unsigned int cases)
{
	for (unsigned int h = 0; h < readings; h++) {
		unsigned int c = 0;

		while (c < cases && patterns[h * cases + c] == seen[c])
			c++;
		if (c == cases)
			return (int)h;
	}
	return PROBE_NONE;
}

int probe_i4_int32_pick(const bool seen[I4W_CASES])
{
	static const bool pattern[I4W_READINGS][I4W_CASES] = {
		[I4W_INT16_ONLY] = { false, true },
		[I4W_INT32] = { true, false },
	};

	return probe_pattern_pick(seen, &pattern[0][0], I4W_READINGS, I4W_CASES);
}

int probe_i4_entries_pick(const bool seen[I4E_CASES])
{
	static const bool pattern[I4E_READINGS][I4E_CASES] = {
		[I4E_DENSE] = { true, false },
		[I4E_PIXEL] = { false, true },
		[I4E_EITHER] = { true, true },
	};

	return probe_pattern_pick(seen, &pattern[0][0], I4E_READINGS, I4E_CASES);
}

/* ---- A40-last-group ---- */

/* int4 kernels a group, channels a block (sim/ASSUMPTIONS.md A40). */
#define I4_GROUP	64u
#define I4_BLOCK	32u

size_t probe_i4_b_index(int h, unsigned int k_total, unsigned int n_total, unsigned int k,
			unsigned int n)
{
	unsigned int g = n / I4_GROUP, left = n_total - g * I4_GROUP;
	unsigned int kg = h == I4G_PADDED || left > I4_GROUP ? I4_GROUP : left;

	return (size_t)g * I4_GROUP * k_total + (size_t)(k / I4_BLOCK) * kg * I4_BLOCK +
	       (size_t)(n % I4_GROUP) * I4_BLOCK + k % I4_BLOCK;
}

static int64_t nibble(const uint8_t *p, size_t at, size_t count)
{
	if (at >= count)
		return 0;
	/* the low nibble first, sign-extended from 4 bits */
	return (int64_t)(((p[at / 2u] >> (at % 2u ? 4 : 0)) & 0xF) ^ 0x8) - 0x8;
}

int64_t probe_i4_group_expect(const void *gp, int h, size_t i)
{
	const struct probe_i4_group *g = gp;
	size_t per_run = (size_t)g->m * g->n, j = i % per_run;
	const uint8_t *b = g->bbuf[i / per_run];
	unsigned int m = (unsigned int)(j / g->n), n = (unsigned int)(j % g->n);
	int64_t acc = 0;

	for (unsigned int k = 0; k < g->k; k++)
		acc += g->a[(size_t)m * g->k + k] *
		       nibble(b, probe_i4_b_index(h, g->k, g->n, k, n), g->bbuf_nibbles);
	return sat(acc, INT16_MIN, INT16_MAX);
}

int probe_lut_mux_pick(const int cls[LUTX_RUNS])
{
	bool other = true, same = true;

	for (int r = 0; r < LUTX_RUNS; r++) {
		other = other && cls[r] < 0;
		same = same && cls[r] == LUTM_AS_2;
	}
	if (other)
		return LUTX_ONLY2;
	if (same)
		return LUTX_SAME;
	if (cls[LUTX_MUX0] == LUTM_LE && cls[LUTX_MUX1] == LUTM_LO)
		return LUTX_LE0_LO1;
	if (cls[LUTX_MUX0] == LUTM_LO && cls[LUTX_MUX1] == LUTM_LE)
		return LUTX_LO0_LE1;
	return PROBE_NONE;
}

int64_t probe_lut_read_expect(const void *rd, int h, size_t i)
{
	const struct probe_lut_read *r = rd;
	unsigned int tab = (unsigned int)(i / r->reads), j = (unsigned int)(i % r->reads);

	if (h == LUTB_ZERO)
		return 0;
	return r->t[tab][r->addr[tab] + (h == LUTB_NEXT ? j : 0u)];
}

/* ---- A35-lut-int ---- */

int64_t probe_lut_int_expect(const void *ctx, int h, size_t i)
{
	const struct probe_lut_int *l = ctx;
	const int64_t lo = INT8_MIN, hi = INT8_MAX;
	int64_t x = l->x[i];

	if (h == LUTN_UNSIGNED)
		x = (uint8_t)l->x[i];
	else if (h == LUTN_SHIFTED)
		x *= 256;
	/* past an end: that end's entry (the slopes are 0) */
	x = x < lo ? lo : x > hi ? hi : x;
	return (int16_t)l->t[x - lo];
}

/* ---- A41 ---- */

uint16_t probe_cvt_in_want(const struct probe_cvt_in *c, size_t i)
{
	return layout_f32_to_f16((float)(c->q[i] - c->zp) * c->factor);
}

int probe_cvt_in_pick(const bool seen[CVI_CASES])
{
	if (seen[CVI_CASE_PROC_FP16])
		return seen[CVI_CASE_ZP] ? CVI_CONVERTED : CVI_NO_ZP;
	return seen[CVI_CASE_PROC_INT8] ? CVI_PROC_INT8 : PROBE_NONE;
}

/* Quarter units: two fraction bits. */
#define QUARTER_BITS	2u

int64_t probe_cvt_out_expect(const void *pq, int h, size_t i)
{
	int64_t q = ((const int32_t *)pq)[i], v;

	if (h == CVO_EVEN)
		v = shift_round(q, QUARTER_BITS, EWR_EVEN);
	else if (h == CVO_HALF_UP)
		v = shift_round(q, QUARTER_BITS, EWR_UP);
	else if (h == CVO_FLOOR)
		v = shift_round(q, QUARTER_BITS, EWR_FLOOR);
	else	/* away and truncate: half up and floor of |q|, the sign put back */
		v = (q < 0 ? -1 : 1) * shift_round(q < 0 ? -q : q, QUARTER_BITS,
						   h == CVO_AWAY ? EWR_UP : EWR_FLOOR);
	return sat(v, INT8_MIN, INT8_MAX);
}

/* ---- A30-int16-acc ---- */

/* v's low `bits` bits as a two's-complement number. */
static int64_t wrap_bits(int64_t v, unsigned int bits)
{
	uint64_t mask = ((uint64_t)1 << bits) - 1u, sign = (uint64_t)1 << (bits - 1u);

	return (int64_t)((((uint64_t)v & mask) ^ sign) - sign);
}

int64_t probe_acc16_expect(const void *sums, int h, size_t i)
{
	int64_t v = ((const int64_t *)sums)[i];

	if (h == ACC_WRAP32)
		return wrap_bits(v, 32);
	if (h == ACC_WRAP34)
		v = wrap_bits(v, 34);
	return sat(v, INT32_MIN, INT32_MAX);
}

/* ---- §9.16 bf16-out, §9.19 dilation ---- */

int64_t probe_bf16_expect(const void *sums, int h, size_t i)
{
	float v = ((const float *)sums)[i];
	uint32_t bits;

	if (h == BF_NO_BF16)
		return INT64_MIN;	/* predicts no output */
	if (h == BF_FP16)
		return layout_f32_to_f16(v);
	memcpy(&bits, &v, sizeof(bits));
	return bits >> 16;	/* exact in bf16: no rounding to choose */
}

int64_t probe_dil_expect(const void *dil, int h, size_t i)
{
	const struct probe_dil *d = dil;
	unsigned int per_k = d->region * d->region, k = (unsigned int)(i / per_k);
	unsigned int ry = (unsigned int)(i % per_k / d->region), rx = (unsigned int)(i % d->region);
	unsigned int s = h == DIL_FIELD ? d->field : h == DIL_FIELD1 ? d->field + 1u : 1u;
	int64_t acc = 0;

	if (h == DIL_UNSUPPORTED)
		return INT64_MIN;	/* predicts no output */
	for (unsigned int ky = 0; ky < 3; ky++)
		for (unsigned int kx = 0; kx < 3; kx++)
			for (unsigned int c = 0; c < d->c; c++)
				acc += d->x[((size_t)c * d->h + ry + ky * s) * d->w_ + rx + kx * s] *
				       d->w[(((size_t)k * 3 + ky) * 3 + kx) * d->c + c];
	return acc;
}

int probe_change_pick(bool control_ok, const bool *case_ok, size_t cases)
{
	if (!control_ok)
		return PROBE_NONE;
	for (size_t i = 0; i < cases; i++)
		if (!case_ok[i])
			return CHANGE_MATTERS;
	return CHANGE_NONE;
}

int64_t probe_dma_base_expect(const void *db, int h, size_t i)
{
	const struct probe_dma_base *d = db;
	bool moved_half = i >= d->n;

	if (h == DMAB_OFFSET)
		return moved_half ? d->moved[i - d->n] : d->untouched;
	return moved_half ? d->untouched : d->named[i];
}

int probe_fall_pick(const struct probe_fall_seen *s)
{
	if (s->first != PROBE_OUT_EXACT)
		return PROBE_NONE;
	if (s->completed && s->tasks_done == 2u)
		return s->second == PROBE_OUT_UNTOUCHED ? FALL_REPEAT :
		       s->second == PROBE_OUT_EXACT ? FALL_THROUGH : PROBE_NONE;
	if (s->second == PROBE_OUT_UNTOUCHED && (!s->completed || s->tasks_done == 1u))
		return FALL_STOPS;
	return PROBE_NONE;
}

int probe_irq_pick(const uint32_t *raw, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (raw[i] & PROBE_IRQ_UNDOCUMENTED)
			return IRQ_SET;
	return IRQ_CLEAR;
}

float probe_argb_expect(const void *argb, int h, size_t i)
{
	const struct probe_argb *a = argb;
	int reading = a->readings[h];
	unsigned int px = a->width * a->height;
	unsigned int k = (unsigned int)(i / px), y = (unsigned int)(i % px / a->width);
	unsigned int x = (unsigned int)(i % a->width);
	unsigned int pitch = reading == ARGB_BACK_TO_BACK ? a->width : a->line;
	size_t at = ((size_t)y * pitch + x) * a->n;
	unsigned int lanes = reading == ARGB_MEMORY ? PROBE_ARGB_LANES : a->n;
	float sum = 0.0f;

	for (unsigned int c = 0; c < lanes; c++)
		sum += (at + c < a->mem_len ? a->mem[at + c] : 0.0f) *
		       a->w[k * PROBE_ARGB_LANES + c];
	return sum;
}
