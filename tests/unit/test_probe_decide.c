/* SPDX-License-Identifier: MIT */
/*
 * boot/probe_decide.c: each board probe's decision, run on NPU outputs
 * computed here per reading from data shaped as the probe's (its ranges,
 * operands and layouts), must name that reading: the probes can tell
 * their readings apart. The readings' formulas are spelled out here where
 * they are simple (the roundings), independently of probe_decide.c.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "boot/probe_decide.h"
#include "compiler/layout.h"

#define SEED	0x7E57u

static uint32_t rng = SEED;

static int8_t rnd8(void)
{
	rng ^= rng << 13;
	rng ^= rng >> 17;
	rng ^= rng << 5;
	return (int8_t)rng;
}

/* Every reading's own outputs make the decision name it. */
static void check_int(const void *ctx, probe_int_fn f, unsigned int readings, size_t n)
{
	static int64_t got[4096];

	assert_true(n <= sizeof(got) / sizeof(got[0]));
	for (unsigned int h = 0; h < readings; h++) {
		for (size_t i = 0; i < n; i++)
			got[i] = f(ctx, (int)h, i);
		assert_int_equal(probe_decide_int(ctx, f, readings, got, n, NULL), (int)h);
	}
	/* one result off every reading: none */
	got[0] = INT64_MIN;
	assert_int_equal(probe_decide_int(ctx, f, readings, got, n, NULL), PROBE_NONE);
}

static void check_float(const void *ctx, probe_float_fn f, unsigned int readings, size_t n)
{
	static float got[4096];

	assert_true(n <= sizeof(got) / sizeof(got[0]));
	for (unsigned int h = 0; h < readings; h++) {
		for (size_t i = 0; i < n; i++)
			got[i] = layout_f16_to_f32(layout_f32_to_f16(f(ctx, (int)h, i)));
		assert_int_equal(probe_decide_float(ctx, f, readings, got, n, NULL), (int)h);
	}
}

static void test_pick(void **state)
{
	const unsigned int one[3] = { 5, 10, 7 }, two[3] = { 10, 3, 10 }, none[2] = { 9, 0 };

	assert_int_equal(probe_pick(one, 3, 10), 1);
	assert_int_equal(probe_pick(two, 3, 10), PROBE_AMBIGUOUS);
	assert_int_equal(probe_pick(none, 2, 10), PROBE_NONE);
}

/* The readings of exact halves, spelled out. */
static void test_roundings(void **state)
{
	/* acc / 2: 5 → 2.5, -5 → -2.5, 7 → 3.5 */
	const int32_t acc[3] = { 5, -5, 7 };
	/* window sums 2 mod 4: 6 → 1.5, -6 → -1.5, 10 → 2.5 */
	const int32_t sums[3] = { 6, -6, 10 };
	const int32_t a[2] = { 6, -6 }, m[2] = { 1, 1 };
	const struct probe_ew_mul ew = { a, m, 2 };	/* 1.5, -1.5 */

	assert_int_equal(probe_ties_expect(acc, TIES_EVEN, 0), 2);
	assert_int_equal(probe_ties_expect(acc, TIES_EVEN, 1), -2);
	assert_int_equal(probe_ties_expect(acc, TIES_EVEN, 2), 4);
	assert_int_equal(probe_ties_expect(acc, TIES_UP, 0), 3);
	assert_int_equal(probe_ties_expect(acc, TIES_UP, 1), -2);
	assert_int_equal(probe_pool_ties_expect(sums, PTIES_UP, 1), -1);
	assert_int_equal(probe_pool_ties_expect(sums, PTIES_EVEN, 0), 2);
	assert_int_equal(probe_pool_ties_expect(sums, PTIES_EVEN, 2), 2);
	assert_int_equal(probe_pool_ties_expect(sums, PTIES_AWAY, 1), -2);
	assert_int_equal(probe_pool_ties_expect(sums, PTIES_FLOOR, 0), 1);
	assert_int_equal(probe_ew_round_expect(&ew, EWR_UP, 1), -1);
	assert_int_equal(probe_ew_round_expect(&ew, EWR_EVEN, 0), 2);
	assert_int_equal(probe_ew_round_expect(&ew, EWR_FLOOR, 1), -2);
}

/* A12-ties: the matmul's accumulators, operands within ±3 over K = 32. */
static void test_ties(void **state)
{
	int32_t acc[128];

	for (size_t i = 0; i < 128; i++) {
		acc[i] = 0;
		for (int q = 0; q < 32; q++)
			acc[i] += (rnd8() % 4) * (rnd8() % 4);
	}
	check_int(acc, probe_ties_expect, TIES_READINGS, 128);
}

/* A40-int4: sums within int16 (both readings agree), past it either way,
 * and a few worked by hand. */
static void test_int4(void **state)
{
	int32_t sums[64];

	(void)state;
	for (size_t i = 0; i < 64; i++)
		sums[i] = (int32_t)(i % 2 ? 40000 + i * 1000 : -40000 - i * 1000);
	check_int(sums, probe_int4_expect, I4_READINGS, 64);
	sums[0] = 65536;
	sums[1] = -32769;
	sums[2] = 1234;
	assert_int_equal(probe_int4_expect(sums, I4_SATURATE, 0), 32767);
	assert_int_equal(probe_int4_expect(sums, I4_WRAP, 0), 0);
	assert_int_equal(probe_int4_expect(sums, I4_SATURATE, 1), -32768);
	assert_int_equal(probe_int4_expect(sums, I4_WRAP, 1), 32767);
	assert_int_equal(probe_int4_expect(sums, I4_WRAP, 2), 1234);
}

/* A15-ties: 2x2 windows of halved int8 values, made 2 mod 4. */
static void test_pool_ties(void **state)
{
	int32_t sum[144];

	for (size_t i = 0; i < 144; i++) {
		int s = rnd8() / 2 + rnd8() / 2 + rnd8() / 2 + rnd8() / 2;

		sum[i] = s + ((2 - s) & 3);
	}
	check_int(sum, probe_pool_ties_expect, PTIES_READINGS, 144);
}

/* A15-avg3: 3x3 windows of int8 values; 21845² / 2^32 is just below 1/9,
 * so a window of 9 · 100 averages to 99.99.. (nearest 100, floor 99). */
static void test_avg3(void **state)
{
	int32_t sum[64] = { 900 };
	const struct probe_avg avg = { sum, 3 };

	assert_int_equal(probe_avg_expect(&avg, AVG_NEAREST, 0), 100);
	assert_int_equal(probe_avg_expect(&avg, AVG_FLOOR, 0), 99);
	for (size_t i = 0; i < 64; i++) {
		sum[i] = 0;
		for (int j = 0; j < 9; j++)
			sum[i] += rnd8();
	}
	check_int(&avg, probe_avg_expect, AVG_READINGS, 64);
}

/* The EW probes: 1x1 convolutions of 16 int8 channels times the probes'
 * own operands, 16 channels × 16 pixels. */
static void ew_check(enum probe_ew_kind kind, probe_int_fn f, unsigned int readings)
{
	int32_t acc[256], m[256], mult[16];
	unsigned int shift = probe_ew_operands(kind, mult, 16);
	struct probe_ew_mul ew = { acc, m, shift };

	for (size_t i = 0; i < 256; i++) {
		acc[i] = 0;
		for (int c = 0; c < 16; c++)
			acc[i] += rnd8() * rnd8();
		m[i] = mult[i / 16];
	}
	check_int(&ew, f, readings, 256);
}

static void test_ew(void **state)
{
	ew_check(PROBE_EW_ROUND, probe_ew_round_expect, EWR_READINGS);
	ew_check(PROBE_EW_WIDTH, probe_ew_mul_expect, EWM_READINGS);
	ew_check(PROBE_EW_SAT, probe_ew_sat_expect, EWS_READINGS);
}

/* A11-cpend: 3x3 pad 1 over 16 channels (32 lanes), zero point -91,
 * BS_OW_OP 37: the probe's four readings. */
static void test_cpend(void **state)
{
	static int8_t x[16 * 36], w[8 * 9 * 16];
	static int64_t want[4][288];
	const int64_t *wants[4] = { want[0], want[1], want[2], want[3] };
	struct probe_table tab = { wants };
	const unsigned int lanes[3] = { 32, 16, 0 };
	struct probe_conv8 cv = { .x = x, .w = w, .c = 16, .h = 6, .w_ = 6, .k = 8, .kh = 3,
				  .kw = 3, .pad = 1, .pad_value = -91 };

	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8();
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8();
	assert_int_equal(probe_conv8_outputs(&cv), 288);
	for (size_t i = 0; i < 288; i++) {
		unsigned int p = (unsigned int)(i % 36);
		int64_t base = probe_conv8_acc(&cv, (unsigned int)(i / 36), p / 6, p % 6);

		for (int h = 0; h < 3; h++)
			want[h][i] = base + 37 * probe_conv8_window_sum(&cv, p / 6, p % 6, lanes[h]);
		want[3][i] = base;
	}
	check_int(&tab, probe_table_expect, 4, 288);
}

/* A10-half-atom: 16 pixels of 16-byte atoms, 16 kernels of 8 channels. */
static void test_half_atom(void **state)
{
	static int8_t mem[16 * 16], w[16 * 8];
	const struct probe_half_atom ha = { mem, w, 16, 16 };

	for (size_t i = 0; i < sizeof(mem); i++)
		mem[i] = rnd8();
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8();
	check_int(&ha, probe_half_atom_expect, HALF_READINGS, 256);
}

/* A28: fp32 bias words q/64 (never 0) on exact fp16 sums. */
static void test_bias_words(void **state)
{
	static float b[16], sum[576], want[BIAS_READINGS][576];
	const float *wants[BIAS_READINGS] = { want[0], want[1], want[2], want[3] };
	struct probe_ftable tab = { wants };

	for (size_t k = 0; k < 16; k++)
		b[k] = (float)(rnd8() % 31 + 1) / 64.0f;
	for (size_t i = 0; i < 576; i++)
		sum[i] = (float)(rnd8() % 32) / 16.0f;
	for (int h = 0; h < BIAS_READINGS; h++)
		for (size_t i = 0; i < 576; i++)
			want[h][i] = sum[i] + probe_bias_word(b, h, (unsigned int)(i / 36));
	check_float(&tab, probe_ftable_expect, BIAS_READINGS, 576);
}

/* fp16 depthwise 3x3 on 6 rows: weights packed as lower_conv_pack packs
 * them (layout_weights_dw_fp16), values q/64. */
static void dw_check(unsigned int c, unsigned int w, unsigned int pad, const int *layouts,
		     unsigned int readings)
{
	static uint16_t hwc[9 * 32], packed[9 * 32];
	static float x[32 * 6 * 6], wbuf[2 * 9 * 32];
	struct probe_dw d = { .x = x, .wbuf = wbuf, .wbuf_len = 2 * 9 * 32, .c = c, .h = 6,
			      .w = w, .lanes = layout_dw_lanes_fp16(c), .pad = pad,
			      .readings = layouts };
	size_t n = (size_t)c * (6 + 2 * pad - 2) * (w + 2 * pad - 2);

	for (size_t i = 0; i < (size_t)c * 6 * w; i++)
		x[i] = (float)(rnd8() % 32) / 64.0f;
	for (size_t i = 0; i < 9u * c; i++)
		hwc[i] = layout_f32_to_f16((float)(rnd8() % 32) / 64.0f);
	assert_int_equal(layout_weights_dw_fp16(hwc, packed, 3, 3, c), 9 * 32 * 2);
	memset(wbuf, 0, sizeof(wbuf));
	for (size_t i = 0; i < 9 * 32; i++)
		wbuf[i] = layout_f16_to_f32(packed[i]);
	check_float(&d, probe_dw_expect, readings, n);
}

static void test_depthwise(void **state)
{
	static const int order[] = { DW_SPATIAL, DW_CHANNEL_MAJOR };
	static const int lanes[] = { DW_SPATIAL, DW_LANES32 };
	static const int pitch[] = { DW_SPATIAL, DW_EVEN_PITCH };

	dw_check(24, 6, 0, order, 2);		/* A29-fp16-dw */
	dw_check(16, 6, 0, lanes, 2);		/* A38-dw-lanes16 */
	dw_check(8, 6, 0, lanes, 2);		/* A38-dw-lanes8 */
	dw_check(8, 5, 0, pitch, 2);		/* A38-dw-odd */
}

/* A29-dw-wide: 64 channels packed as the model reads them (two blocks of
 * 32); the groups-of-32 reading is the depthwise of the source weights
 * themselves, the others read the packed buffer at [t][c] and [c][t]. */
enum { DWW_C = 64, DWW_HW = 6, DWW_OHW = 4 };

static void test_dw_wide(void **state)
{
	static const int layouts[] = { DW_GROUPS32, DW_SPATIAL, DW_CHANNEL_MAJOR };
	static uint16_t hwc[9 * DWW_C], packed[9 * DWW_C];
	static float x[DWW_C * DWW_HW * DWW_HW], wbuf[9 * DWW_C];
	const struct probe_dw d = { .x = x, .wbuf = wbuf, .wbuf_len = 9 * DWW_C, .c = DWW_C,
				    .h = DWW_HW, .w = DWW_HW, .lanes = DWW_C,
				    .readings = layouts };
	const size_t n = (size_t)DWW_C * DWW_OHW * DWW_OHW;

	for (size_t i = 0; i < sizeof(x) / sizeof(x[0]); i++)
		x[i] = (float)(rnd8() % 32) / 64.0f;
	for (size_t i = 0; i < 9 * DWW_C; i++)
		hwc[i] = layout_f32_to_f16((float)(rnd8() % 32) / 64.0f);
	assert_int_equal(layout_weights_dw_fp16(hwc, packed, 3, 3, DWW_C), sizeof(packed));
	for (size_t i = 0; i < 9 * DWW_C; i++)
		wbuf[i] = layout_f16_to_f32(packed[i]);
	for (size_t i = 0; i < n; i++) {
		unsigned int c = (unsigned int)(i / (DWW_OHW * DWW_OHW));
		unsigned int oy = (unsigned int)(i / DWW_OHW % DWW_OHW);
		unsigned int ox = (unsigned int)(i % DWW_OHW);
		float want[3] = { 0.0f, 0.0f, 0.0f };

		for (unsigned int t = 0; t < 9; t++) {
			float xv = x[(c * DWW_HW + oy + t / 3) * DWW_HW + ox + t % 3];

			want[0] += xv * layout_f16_to_f32(hwc[t * DWW_C + c]);
			want[1] += xv * wbuf[t * DWW_C + c];
			want[2] += xv * wbuf[c * 9 + t];
		}
		for (int h = 0; h < 3; h++)
			assert_true(probe_f16_close(probe_dw_expect(&d, h, i), want[h]));
	}
	check_float(&d, probe_dw_expect, 3, n);
}

/* A33: 3-channel pixels in a buffer of random values, rows 6 pixels apart
 * for a width of 4; each reading's sums computed here from the buffer:
 * zeros over the 3 channels at the row pitch, memory over 8 values on,
 * back-to-back over 3 channels at the width. */
enum { AR_N = 3, AR_W = 4, AR_H = 4, AR_K = 16, AR_LINE = 6, AR_MEM = 128 };

static void argb_check(const int *readings, bool pad_zero)
{
	static float mem[AR_MEM], w[AR_K * 8];
	const struct probe_argb a = { mem, AR_MEM, w, AR_N, AR_W, AR_H, AR_K, AR_LINE,
				      readings };
	const size_t n = (size_t)AR_K * AR_H * AR_W;

	for (size_t i = 0; i < AR_MEM; i++)
		mem[i] = (float)(rnd8() % 32) / 64.0f;
	for (size_t i = 0; i < AR_K * 8; i++)
		w[i] = pad_zero && i % 8 >= AR_N ? 0.0f : (float)(rnd8() % 32) / 64.0f;
	for (size_t i = 0; i < n; i++) {
		unsigned int k = (unsigned int)(i / (AR_H * AR_W));
		unsigned int y = (unsigned int)(i / AR_W % AR_H), x = (unsigned int)(i % AR_W);

		for (int h = 0; h < 2; h++) {
			bool packed = readings[h] == ARGB_BACK_TO_BACK;
			unsigned int lanes = readings[h] == ARGB_MEMORY ? 8 : AR_N;
			const float *px = &mem[((packed ? AR_W : AR_LINE) * y + x) * AR_N];
			float want = 0.0f;

			for (unsigned int c = 0; c < lanes; c++)
				want += px[c] * w[k * 8 + c];
			assert_true(probe_f16_close(probe_argb_expect(&a, h, i), want));
		}
	}
	check_float(&a, probe_argb_expect, 2, n);
}

static void test_argb(void **state)
{
	static const int lanes[] = { ARGB_ZEROS, ARGB_MEMORY };
	static const int line[] = { ARGB_ZEROS, ARGB_BACK_TO_BACK };

	argb_check(lanes, false);	/* A33-lanes */
	argb_check(line, true);		/* A33-line */
}

/* A35: each LUT question on data shaped as its probe's, and a few
 * outputs worked by hand (quarter units). */
static void lut_check(struct probe_lut *l, size_t n, unsigned int readings)
{
	check_int(l, probe_lut_expect, readings, n);
}

static void test_lut(void **state)
{
	static const int steps[4] = { 1, -1, 2, 3 };
	static uint16_t t[2][33];
	static int32_t xq[128];
	struct probe_lut l;

	/* round: T[i] = 16i, select 0, inputs k + q/4 */
	for (unsigned int i = 0; i < 33; i++)
		t[0][i] = (uint16_t)(16 * i);
	for (unsigned int i = 0; i < 128; i++)
		xq[i] = (int32_t)i;
	memset(&l, 0, sizeof(l));
	l.tab[0] = (struct probe_lut_table){ .start = 0, .end = 32, .t = t[0] };
	l.tab[1] = l.tab[0];
	l.xq = xq;
	l.q = PROBE_LUT_ROUND;
	lut_check(&l, 128, LUTR_READINGS);
	/* 3.5: 4 (even, half up) or 3 (floor) steps of 16, or 56 (fraction) */
	assert_int_equal(probe_lut_expect(&l, LUTR_EVEN, 14), 64 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTR_UP, 14), 64 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTR_FLOOR, 14), 48 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTR_FRACTION, 14), 56 * 4);
	/* 2.5: ties to even gives 2, half up 3 */
	assert_int_equal(probe_lut_expect(&l, LUTR_EVEN, 10), 32 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTR_UP, 10), 48 * 4);

	/* sign: 0xFFE0 reads -32 or 65504 */
	for (unsigned int i = 0; i < 16; i++)
		t[0][i] = (uint16_t)(i % 3 ? 0xFFE0u - 0x800u * i : 0x10u * i);
	for (unsigned int i = 0; i < 128; i++)
		xq[i] = (int32_t)(i % 16 * 4);
	l.tab[0] = (struct probe_lut_table){ .start = 0, .end = 15, .t = t[0] };
	l.tab[1] = l.tab[0];
	l.q = PROBE_LUT_SIGN;
	lut_check(&l, 128, LUTS_READINGS);
	t[0][1] = 0xFFE0;
	assert_int_equal(probe_lut_expect(&l, LUTS_SIGNED, 1), -32 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTS_UNSIGNED, 1), 65504 * 4);

	/* interp: select 2, random entries with steps 1, -1, 2, 3 */
	for (unsigned int i = 0; i < 33; i++)
		t[0][i] = (uint16_t)(i & 1 ? (int16_t)t[0][i - 1] + steps[i / 2 % 4] : rnd8());
	for (unsigned int i = 0; i < 128; i++)
		xq[i] = (int32_t)(i * 4);
	l.tab[0] = (struct probe_lut_table){ .start = 0, .end = 128, .sel = 2, .t = t[0] };
	l.tab[1] = l.tab[0];
	l.q = PROBE_LUT_INTERP;
	lut_check(&l, 128, LUTI_READINGS);
	/* 10 → 11 over 4 units: at 2, 10.5 → 11 (half up), 10 (floor, even) */
	t[0][0] = 10;
	t[0][1] = 11;
	assert_int_equal(probe_lut_expect(&l, LUTI_UP, 2), 11 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTI_FLOOR, 2), 10 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTI_EVEN, 2), 10 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTI_EXACT, 2), 42);
	assert_int_equal(probe_lut_expect(&l, LUTI_EXACT, 1), 41);

	/* select: LE 0..32, LO 64..96, the probe's slopes and priorities */
	for (unsigned int id = 0; id < 2; id++)
		for (unsigned int j = 0; j < 9; j++)
			t[id][j] = (uint16_t)rnd8();
	for (unsigned int i = 0; i < 128; i++)
		xq[i] = (-48 + (int32_t)(3 * i / 2)) * 4;
	l.tab[0] = (struct probe_lut_table){ .start = 0, .end = 32, .sel = 2, .uflow_scale = 3,
					     .uflow_shift = 2, .oflow_scale = -5, .oflow_shift = 3,
					     .t = t[0] };
	l.tab[1] = (struct probe_lut_table){ .start = 64, .end = 96, .sel = 2, .uflow_scale = 7,
					     .uflow_shift = 3, .oflow_scale = 5, .oflow_shift = 1,
					     .t = t[1] };
	l.hybrid = 0;
	l.oflow = 0;
	l.uflow = 1;
	l.q = PROBE_LUT_SELECT;
	lut_check(&l, 128, LUTP_READINGS);
	/* -44 (i = 3), under both: LO's T[0] + (-108·7 = -756) / 8 = -94.5
	 * → -94 (half up) or -95 (floor); swapped: LE's T[0] - 33; clamped: LO's T[0] */
	assert_int_equal(probe_lut_expect(&l, LUTP_MODEL, 3), ((int16_t)t[1][0] - 94) * 4);
	assert_int_equal(probe_lut_expect(&l, LUTP_SLOPE_FLOOR, 3), ((int16_t)t[1][0] - 95) * 4);
	assert_int_equal(probe_lut_expect(&l, LUTP_SWAPPED, 3), ((int16_t)t[0][0] - 33) * 4);
	assert_int_equal(probe_lut_expect(&l, LUTP_CLAMP, 3), (int16_t)t[1][0] * 4);
	/* 45 (i = 62), between: hybrid LE, over it: LE's T[8] + (13·-5 = -65) / 8
	 * = -8.125 → -8 */
	assert_int_equal(probe_lut_expect(&l, LUTP_MODEL, 62), ((int16_t)t[0][8] - 8) * 4);
}

/* A36: each reading's pattern of cases with the sums names it; others none. */
static void test_inherit(void **state)
{
	static const bool patterns[INH_READINGS][INH_CASES] = {
		{ false, false, true, false },	/* only the integer scale 1 */
		{ false, true, true, false },	/* scale 0 inert, the reset BS/BN state not */
		{ true, true, true, false },	/* every zero multiplier inert */
		{ false, false, false, true },	/* fp16 scale */
	};
	static const bool odd[2][INH_CASES] = {
		{ true, false, true, false }, { false, false, false, false },
	};

	for (int h = 0; h < INH_READINGS; h++)
		assert_int_equal(probe_inherit_pick(patterns[h]), h);
	for (int i = 0; i < 2; i++)
		assert_int_equal(probe_inherit_pick(odd[i]), PROBE_NONE);
}

/* A change against its control: ignored only when every case is right. */
static void test_change(void **state)
{
	static const bool all_ok[2] = { true, true }, one_bad[2] = { true, false };

	assert_int_equal(probe_change_pick(true, all_ok, 2), CHANGE_NONE);
	assert_int_equal(probe_change_pick(true, one_bad, 2), CHANGE_MATTERS);
	assert_int_equal(probe_change_pick(false, all_ok, 2), PROBE_NONE);
	assert_int_equal(probe_change_pick(false, one_bad, 2), PROBE_NONE);
}

/* A4: the outputs memory holds under each reading, the sums of two
 * different data sets computed here; a base that moves the reads but not
 * the writes (or the reverse) is neither. */
enum { DB_N = 8, DB_C = 16 };
#define DB_UNTOUCHED	0x5A5A5A5A

static void test_dma_base(void **state)
{
	int8_t x[2][DB_N][DB_C], w[DB_C];
	int32_t sums[2][DB_N];
	int64_t got[2 * DB_N];
	const struct probe_dma_base db = { sums[0], sums[1], DB_N, DB_UNTOUCHED };

	for (unsigned int c = 0; c < DB_C; c++)
		w[c] = rnd8();
	for (unsigned int k = 0; k < 2; k++)
		for (unsigned int i = 0; i < DB_N; i++) {
			sums[k][i] = 0;
			for (unsigned int c = 0; c < DB_C; c++) {
				x[k][i][c] = rnd8();
				sums[k][i] += x[k][i][c] * w[c];
			}
		}
	/* offset: the named outputs untouched, the copies' sums one base on */
	for (unsigned int i = 0; i < DB_N; i++) {
		got[i] = DB_UNTOUCHED;
		got[DB_N + i] = sums[1][i];
	}
	assert_int_equal(probe_decide_int(&db, probe_dma_base_expect, DMAB_READINGS, got,
					  2 * DB_N, NULL), DMAB_OFFSET);
	/* ignored: the named data's sums where named */
	for (unsigned int i = 0; i < DB_N; i++) {
		got[i] = sums[0][i];
		got[DB_N + i] = DB_UNTOUCHED;
	}
	assert_int_equal(probe_decide_int(&db, probe_dma_base_expect, DMAB_READINGS, got,
					  2 * DB_N, NULL), DMAB_IGNORED);
	/* reads moved, writes not: the copies' sums where named */
	for (unsigned int i = 0; i < DB_N; i++)
		got[i] = sums[1][i];
	assert_int_equal(probe_decide_int(&db, probe_dma_base_expect, DMAB_READINGS, got,
					  2 * DB_N, NULL), PROBE_NONE);
	check_int(&db, probe_dma_base_expect, DMAB_READINGS, 2 * DB_N);
}

/* A6: what each reading leaves (completion, TASK_STATUS, the outputs). */
static void test_fall(void **state)
{
	static const struct { struct probe_fall_seen s; int want; } cases[] = {
		{ { true, 2, PROBE_OUT_EXACT, PROBE_OUT_UNTOUCHED }, FALL_REPEAT },
		{ { true, 2, PROBE_OUT_EXACT, PROBE_OUT_EXACT }, FALL_THROUGH },
		{ { false, 0, PROBE_OUT_EXACT, PROBE_OUT_UNTOUCHED }, FALL_STOPS },
		{ { true, 1, PROBE_OUT_EXACT, PROBE_OUT_UNTOUCHED }, FALL_STOPS },
		/* the first task wrong, the second written wrong, or written
		 * with one task counted: none */
		{ { true, 2, PROBE_OUT_WRONG, PROBE_OUT_UNTOUCHED }, PROBE_NONE },
		{ { true, 2, PROBE_OUT_EXACT, PROBE_OUT_WRONG }, PROBE_NONE },
		{ { true, 1, PROBE_OUT_EXACT, PROBE_OUT_EXACT }, PROBE_NONE },
		{ { false, 0, PROBE_OUT_EXACT, PROBE_OUT_EXACT }, PROBE_NONE },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_int_equal(probe_fall_pick(&cases[i].s), cases[i].want);
}

/* §9.3: any of bits 14-16, 30-31 in any reading is set; the documented
 * bits (pairs, DMA errors) are not. */
static void test_irq(void **state)
{
	const uint32_t documented[2] = { 0x400, 0x3FFF };
	const uint32_t undocumented[] = { 1u << 14, 1u << 15, 1u << 16, 1u << 30, 1u << 31 };

	assert_int_equal(probe_irq_pick(documented, 2), IRQ_CLEAR);
	for (size_t i = 0; i < sizeof(undocumented) / sizeof(undocumented[0]); i++) {
		const uint32_t raw[2] = { 0x400, 0x2AA | undocumented[i] };

		assert_int_equal(probe_irq_pick(raw, 2), IRQ_SET);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pick),
		cmocka_unit_test(test_roundings),
		cmocka_unit_test(test_ties),
		cmocka_unit_test(test_int4),
		cmocka_unit_test(test_pool_ties),
		cmocka_unit_test(test_avg3),
		cmocka_unit_test(test_ew),
		cmocka_unit_test(test_cpend),
		cmocka_unit_test(test_half_atom),
		cmocka_unit_test(test_bias_words),
		cmocka_unit_test(test_depthwise),
		cmocka_unit_test(test_dw_wide),
		cmocka_unit_test(test_argb),
		cmocka_unit_test(test_lut),
		cmocka_unit_test(test_inherit),
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_dma_base),
		cmocka_unit_test(test_fall),
		cmocka_unit_test(test_irq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
