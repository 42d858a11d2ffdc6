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
#include <stdbool.h>
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

/* A21-stages: x + 1 + e in quarter units, the probe's cells (x a multiple
 * of 4 in [2048, 4096) with e = 1, and small exact quarters), the outputs
 * spelled out: fp16 steps are 2 in [2048, 4096). */
static void test_stages(void **state)
{
	int32_t xq[64], eq[64];
	const struct probe_stages st = { xq, eq, 4 };

	(void)state;
	for (size_t i = 0; i < 64; i++) {
		xq[i] = i % 2 ? rnd8() : (2048 + 4 * (int32_t)(uint8_t)rnd8()) * 4;
		eq[i] = i % 2 ? rnd8() : 4;
	}
	check_int(&st, probe_stages_expect, STG_READINGS, 64);
	xq[0] = 2048 * 4;	/* 2048 + 1 → 2048 (even), + 1 → 2048; fp32: 2050 */
	xq[1] = 2050 * 4;	/* 2051 → 2052, + 1 → 2053 → 2052; fp32: 2052 */
	eq[1] = 4;
	xq[2] = -7;		/* -1.75 + 1 + 2.5 = 1.75 either way */
	eq[2] = 10;
	assert_int_equal(probe_stages_expect(&st, STG_FP16, 0), 2048 * 4);
	assert_int_equal(probe_stages_expect(&st, STG_FP32, 0), 2050 * 4);
	assert_int_equal(probe_stages_expect(&st, STG_FP16, 1), 2052 * 4);
	assert_int_equal(probe_stages_expect(&st, STG_FP32, 1), 2052 * 4);
	assert_int_equal(probe_stages_expect(&st, STG_FP16, 2), 7);
	assert_int_equal(probe_stages_expect(&st, STG_FP32, 2), 7);
}

/* int4 B (K × N) packed the way the test reads A40: groups of 64 kernels
 * one after the other, in each 32-channel blocks of the group's kernels
 * (`padded`: every group 64 kernels, zeros past N), a nibble counter
 * walking the layout. */
static void pack_i4(const int8_t *b, unsigned int k_total, unsigned int n_total, bool padded,
		    uint8_t *out, size_t bytes)
{
	size_t at = 0;

	memset(out, 0, bytes);
	for (unsigned int g = 0; g * 64 < n_total; g++) {
		unsigned int kernels = padded || n_total - g * 64 >= 64 ? 64 : n_total - g * 64;

		for (unsigned int kb = 0; kb < k_total / 32; kb++)
			for (unsigned int n = g * 64; n < g * 64 + kernels; n++)
				for (unsigned int k = kb * 32; k < kb * 32 + 32; k++, at++) {
					int v = n < n_total ? b[k * n_total + n] : 0;

					out[at / 2] |= (uint8_t)((v & 0xF) << (at % 2 ? 4 : 0));
				}
	}
}

/* A40-int32, A40-entries: each reading's pattern names it, others none.
 * A40-last-group: each buffer read in its own layout gives A·B, read in
 * the other does not. */
static void test_int4_parts(void **state)
{
	enum { M = 2, K = 64, N = 96 };
	static const bool w_int32[2] = { true, false }, w_int16[2] = { false, true };
	static const bool w_partial[2] = { false, false };
	static const bool e_dense[2] = { true, false }, e_pixel[2] = { false, true };
	static const bool e_either[2] = { true, true }, e_neither[2] = { false, false };
	static int8_t a[M * K], b[K * N];
	static uint8_t buf[2][K * 128 / 2];
	const uint8_t *bufs[2] = { buf[0], buf[1] };
	const struct probe_i4_group g = { a, bufs, 2 * sizeof(buf[0]), M, K, N };

	(void)state;
	assert_int_equal(probe_i4_int32_pick(w_int32), I4W_INT32);
	assert_int_equal(probe_i4_int32_pick(w_int16), I4W_INT16_ONLY);
	assert_int_equal(probe_i4_int32_pick(w_partial), PROBE_NONE);
	assert_int_equal(probe_i4_entries_pick(e_dense), I4E_DENSE);
	assert_int_equal(probe_i4_entries_pick(e_pixel), I4E_PIXEL);
	assert_int_equal(probe_i4_entries_pick(e_either), I4E_EITHER);
	assert_int_equal(probe_i4_entries_pick(e_neither), PROBE_NONE);

	for (size_t i = 0; i < sizeof(a); i++)
		a[i] = (int8_t)(rnd8() % 8);
	for (size_t i = 0; i < sizeof(b); i++)
		b[i] = (int8_t)(rnd8() % 8);
	pack_i4(b, K, N, false, buf[0], sizeof(buf[0]));
	pack_i4(b, K, N, true, buf[1], sizeof(buf[1]));
	/* B[32][64]: group 1, block 1 — 32 or 64 kernels into the group */
	assert_int_equal(probe_i4_b_index(I4G_DENSE, K, N, 32, 64), 64 * 64 + 32 * 32);
	assert_int_equal(probe_i4_b_index(I4G_PADDED, K, N, 32, 64), 64 * 64 + 64 * 32);
	assert_int_equal(probe_i4_b_index(I4G_DENSE, K, N, 40, 10), 64 * 32 + 10 * 32 + 8);
	for (unsigned int m = 0; m < M; m++)
		for (unsigned int n = 0; n < N; n++) {
			int64_t c = 0;
			size_t i = (size_t)m * N + n;

			for (unsigned int k = 0; k < K; k++)
				c += a[m * K + k] * b[k * N + n];
			assert_int_equal(probe_i4_group_expect(&g, I4G_DENSE, i), c);
			assert_int_equal(probe_i4_group_expect(&g, I4G_PADDED, M * N + i), c);
		}
	check_int(&g, probe_i4_group_expect, I4G_READINGS, 2 * M * N);
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

/* A35-lut-mux: the classes of a run (the probe's tables: LE 0..32, LO
 * 16..48, select 2, no slopes, hybrid LO) at whole inputs on entries, and
 * the pick over the runs with lo_le_mux 0, 1, 3. A35-lut-read: each
 * reading's reads spelled out. */
/* a job that failed: a negative class other than PROBE_NONE */
#define PROBE_FAILED_TEST	(-3)

static void test_lut_mux_read(void **state)
{
	static uint16_t t[2][9], le[17], lo[17];
	static int32_t xq[128];
	const struct probe_lut l = {
		.tab = { { .start = 0, .end = 32, .sel = 2, .t = t[0] },
			 { .start = 16, .end = 48, .sel = 2, .t = t[1] } },
		.hybrid = 1, .oflow = 1, .uflow = 0, .xq = xq, .q = PROBE_LUT_MUX,
	};
	const struct probe_lut_read rd = { { le, lo }, { 3, 10 }, 4 };
	static const int only2[3] = { PROBE_FAILED_TEST, PROBE_FAILED_TEST, PROBE_NONE };
	static const int same[3] = { LUTM_AS_2, LUTM_AS_2, LUTM_AS_2 };
	static const int le0[3] = { LUTM_LE, LUTM_LO, PROBE_NONE };
	static const int lo0[3] = { LUTM_LO, LUTM_LE, LUTM_AS_2 };
	static const int mixed[2][3] = { { LUTM_AS_2, PROBE_NONE, PROBE_NONE },
					 { LUTM_LE, LUTM_LE, LUTM_LE } };

	(void)state;
	for (unsigned int j = 0; j < 9; j++) {
		t[0][j] = (uint16_t)(100 + j);
		t[1][j] = (uint16_t)(-100 - (int)j);
	}
	for (unsigned int i = 0; i < 128; i++)
		xq[i] = (int32_t)(i % 49) * 4;
	/* 20: both cover it, hybrid LO: LO[1]; forced LE: LE[5] */
	assert_int_equal(probe_lut_expect(&l, LUTM_AS_2, 20), -101 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTM_LE, 20), 105 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTM_LO, 20), -101 * 4);
	/* 8: LE only (LE[2]); forced LO: under, its first entry */
	assert_int_equal(probe_lut_expect(&l, LUTM_AS_2, 8), 102 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTM_LO, 8), -100 * 4);
	/* 44: LO only (LO[7]); forced LE: over, its last entry */
	assert_int_equal(probe_lut_expect(&l, LUTM_AS_2, 44), -107 * 4);
	assert_int_equal(probe_lut_expect(&l, LUTM_LE, 44), 108 * 4);
	check_int(&l, probe_lut_expect, LUTM_CLASSES, 128);

	assert_int_equal(probe_lut_mux_pick(only2), LUTX_ONLY2);
	assert_int_equal(probe_lut_mux_pick(same), LUTX_SAME);
	assert_int_equal(probe_lut_mux_pick(le0), LUTX_LE0_LO1);
	assert_int_equal(probe_lut_mux_pick(lo0), LUTX_LO0_LE1);
	for (int i = 0; i < 2; i++)
		assert_int_equal(probe_lut_mux_pick(mixed[i]), PROBE_NONE);

	for (unsigned int j = 0; j < 17; j++) {
		le[j] = (uint16_t)(0x1000 + 0x111 * j);
		lo[j] = (uint16_t)(0x9000 + 0x37 * j);
	}
	assert_int_equal(probe_lut_read_expect(&rd, LUTB_NEXT, 2), 0x1000 + 0x111 * 5);
	assert_int_equal(probe_lut_read_expect(&rd, LUTB_NEXT, 5), 0x9000 + 0x37 * 11);
	assert_int_equal(probe_lut_read_expect(&rd, LUTB_SAME, 7), 0x9000 + 0x37 * 10);
	assert_int_equal(probe_lut_read_expect(&rd, LUTB_ZERO, 3), 0);
	check_int(&rd, probe_lut_read_expect, LUTB_READINGS, 8);
}

/* A35-lut-int: every int8 value once, each reading spelled out. */
static void test_lut_int(void **state)
{
	static int8_t x[256];
	static uint16_t t[256];
	const struct probe_lut_int l = { x, t };

	(void)state;
	for (int j = 0; j < 256; j++) {
		t[j] = (uint16_t)(int16_t)((j * 37 + 11) % 256 - 128);
		x[j] = (int8_t)((j * 101) % 256 - 128);	/* 101 odd: a permutation */
	}
	for (size_t i = 0; i < 256; i++) {
		int v = x[i];
		int16_t integer = (int16_t)t[v + 128];
		int16_t unsigned_byte = (int16_t)(v >= 0 ? t[v + 128] : t[255]);
		int16_t shifted = (int16_t)(v == 0 ? t[128] : v < 0 ? t[0] : t[255]);

		assert_int_equal(probe_lut_int_expect(&l, LUTN_INTEGER, i), integer);
		assert_int_equal(probe_lut_int_expect(&l, LUTN_UNSIGNED, i), unsigned_byte);
		assert_int_equal(probe_lut_int_expect(&l, LUTN_SHIFTED, i), shifted);
	}
	check_int(&l, probe_lut_int_expect, LUTN_READINGS, 256);
}

/* A41-int8-fp16: outputs as fp16 bits and the pick, spelled out.
 * A41-fp16-int8: worked products per reading, then the probe's products
 * (x · 2 over ±136 in quarters) tell the five readings apart. */
#define CVT_PROBE_Q	544	/* 136 in quarters */
static void test_cvt(void **state)
{
	static const int8_t q[5] = { -128, 127, 1, -3, 0 };
	/* × 0.125: -16, 15.875, 0.125, -0.375, 0 */
	static const uint16_t half[5] = { 0xCC00, 0x4BF0, 0x3000, 0xB600, 0x0000 };
	/* × 0.125 after − (−17): -13.875, 18, 2.25, 1.75, 2.125 */
	static const uint16_t half_zp[5] = { 0xCAF0, 0x4C80, 0x4080, 0x3F00, 0x4040 };
	static const bool seen[6][CVI_CASES] = {
		{ true, false, true }, { true, true, true }, { false, true, false },
		{ false, false, false }, { true, false, false }, { false, true, true },
	};
	static const int pick[6] = { CVI_CONVERTED, CVI_CONVERTED, CVI_PROC_INT8, PROBE_NONE,
				     CVI_NO_ZP, CVI_PROC_INT8 };
	/* in quarters: ±2.5, ±3.5, ±2.75, ±2.25, -0.5, 127.5, -128.5, 135.75, -136 */
	static const int32_t pq[13] = { 10, -10, 14, -14, 11, -11, 9, -9, -2, 510, -514, 543,
					-544 };
	/* even, half-up, away, floor, truncate */
	static const int64_t want[13][CVO_READINGS] = {
		{ 2, 3, 3, 2, 2 },		/* 2.5 */
		{ -2, -2, -3, -3, -2 },		/* -2.5 */
		{ 4, 4, 4, 3, 3 },		/* 3.5 */
		{ -4, -3, -4, -4, -3 },		/* -3.5 */
		{ 3, 3, 3, 2, 2 },		/* 2.75 */
		{ -3, -3, -3, -3, -2 },		/* -2.75 */
		{ 2, 2, 2, 2, 2 },		/* 2.25 */
		{ -2, -2, -2, -3, -2 },		/* -2.25 */
		{ 0, 0, -1, -1, 0 },		/* -0.5 */
		{ 127, 127, 127, 127, 127 },	/* 127.5: 128 saturated, or 127 */
		{ -128, -128, -128, -128, -128 },	/* -128.5: -129 saturated, or -128 */
		{ 127, 127, 127, 127, 127 },
		{ -128, -128, -128, -128, -128 },
	};
	static int32_t all[2 * CVT_PROBE_Q];
	const struct probe_cvt_in c = { q, 0.125f, 0 }, c_zp = { q, 0.125f, -17 };

	(void)state;
	for (size_t i = 0; i < 5; i++) {
		assert_int_equal(probe_cvt_in_want(&c, i), half[i]);
		assert_int_equal(probe_cvt_in_want(&c_zp, i), half_zp[i]);
	}
	for (int i = 0; i < 6; i++)
		assert_int_equal(probe_cvt_in_pick(seen[i]), pick[i]);
	for (size_t i = 0; i < 13; i++)
		for (int h = 0; h < CVO_READINGS; h++)
			assert_int_equal(probe_cvt_out_expect(pq, h, i), want[i][h]);
	for (int i = 0; i < 2 * CVT_PROBE_Q; i++)
		all[i] = i - CVT_PROBE_Q;
	check_int(all, probe_cvt_out_expect, CVO_READINGS, 2 * CVT_PROBE_Q);
}

/* A30-int16-acc: sums in every band, the readings spelled out. */
static void test_acc16(void **state)
{
	int64_t sums[64];

	(void)state;
	for (size_t i = 0; i < 64; i++)	/* about 2^30 to 2^36, both signs */
		sums[i] = (i % 2 ? 1 : -1) * ((int64_t)(i + 1) << 30) + (int64_t)i;
	check_int(sums, probe_acc16_expect, ACC_READINGS, 64);
	sums[0] = ((int64_t)1 << 31) + 5;
	sums[1] = ((int64_t)1 << 33) + 5;
	sums[2] = (int64_t)1 << 35;
	sums[3] = -((int64_t)1 << 31) - 1;
	sums[4] = 1234;
	assert_int_equal(probe_acc16_expect(sums, ACC_WIDE, 0), INT32_MAX);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP32, 0), (int64_t)INT32_MIN + 5);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP34, 0), INT32_MAX);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP32, 1), 5);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP34, 1), INT32_MIN);
	assert_int_equal(probe_acc16_expect(sums, ACC_WIDE, 2), INT32_MAX);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP32, 2), 0);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP34, 2), 0);
	assert_int_equal(probe_acc16_expect(sums, ACC_WIDE, 3), INT32_MIN);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP32, 3), INT32_MAX);
	assert_int_equal(probe_acc16_expect(sums, ACC_WRAP34, 3), INT32_MIN);
	for (int h = 0; h < ACC_READINGS; h++)
		assert_int_equal(probe_acc16_expect(sums, h, 4), 1234);
}

/* bf16-out: the bit patterns spelled out; dilation: a 7×7 ramp under a 3×3
 * kernel of ones, taps 1, 2, 3 apart; both: random data tells the readings
 * apart. */
static void test_bf16_dilation(void **state)
{
	static float sums[64];
	static int8_t x[16 * 12 * 12], w[32 * 9 * 16], ramp[49], ones[9];
	const struct probe_dil d = { x, w, 16, 12, 12, 32, 6, 2 };
	const struct probe_dil r = { ramp, ones, 1, 7, 7, 1, 1, 2 };

	(void)state;
	sums[0] = 3.0f;		/* fp32 0x40400000, fp16 0x4200 */
	sums[1] = -128.0f;	/* fp32 0xC3000000, fp16 0xD800 */
	assert_int_equal(probe_bf16_expect(sums, BF_BF16, 0), 0x4040);
	assert_int_equal(probe_bf16_expect(sums, BF_FP16, 0), 0x4200);
	assert_int_equal(probe_bf16_expect(sums, BF_BF16, 1), 0xC300);
	assert_int_equal(probe_bf16_expect(sums, BF_FP16, 1), 0xD800);
	assert_true(probe_bf16_expect(sums, BF_NO_BF16, 0) == INT64_MIN);
	for (size_t i = 2; i < 64; i++)
		sums[i] = (float)(rnd8() % 128);
	sums[2] = 5.0f;		/* no zero sums everywhere: readings differ */
	check_int(sums, probe_bf16_expect, BF_READINGS, 64);

	for (int i = 0; i < 49; i++)
		ramp[i] = (int8_t)i;
	for (int i = 0; i < 9; i++)
		ones[i] = 1;
	/* Σ (7·ky + kx)·s over ky, kx < 3: 72·s */
	assert_int_equal(probe_dil_expect(&r, DIL_IGNORED, 0), 72);
	assert_int_equal(probe_dil_expect(&r, DIL_FIELD, 0), 144);
	assert_int_equal(probe_dil_expect(&r, DIL_FIELD1, 0), 216);
	for (size_t i = 0; i < sizeof(x); i++)
		x[i] = rnd8();
	for (size_t i = 0; i < sizeof(w); i++)
		w[i] = rnd8();
	check_int(&d, probe_dil_expect, DIL_READINGS, 32 * 36);
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
		cmocka_unit_test(test_stages),
		cmocka_unit_test(test_int4_parts),
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
		cmocka_unit_test(test_lut_mux_read),
		cmocka_unit_test(test_lut_int),
		cmocka_unit_test(test_cvt),
		cmocka_unit_test(test_acc16),
		cmocka_unit_test(test_bf16_dilation),
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_dma_base),
		cmocka_unit_test(test_fall),
		cmocka_unit_test(test_irq),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
