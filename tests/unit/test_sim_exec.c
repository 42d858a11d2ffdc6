/* SPDX-License-Identifier: MIT */
/*
 * NPU model arithmetic against the CPU reference (tests/ref/): register
 * streams are built by hand from the facts (test_sim_util.h), data is laid
 * out in NC1HWC2 by a test-local helper, the PC is programmed through MMIO,
 * and every output element is compared with the reference over fixed-seed
 * parametric grids. Integer paths must match bit for bit; fp16 paths within
 * the tolerance stated next to each check.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "test_sim_util.h"
#include "ref/ref_nn.h"
#include "sim/fp16.h"

/* Buffer plan inside the host DMA region. */
#define RC_PA		(T_MEM + 0x000000u)
#define IN_PA		(T_MEM + 0x100000u)
#define WT_PA		(T_MEM + 0x400000u)
#define BIAS_PA		(T_MEM + 0x800000u)
#define OUT_PA		(T_MEM + 0x900000u)
#define OUT2_PA		(T_MEM + 0xC00000u)
#define EW_PA		(T_MEM + 0xE00000u)
#define OUT_FILL	0xCD

/* Run one task stream on core 0 and expect completion with `done` bits. */
static void run_task(struct t_rc *rc, uint32_t enable, uint32_t done)
{
	uint32_t s;

	t_rc_tail(rc, 0, 0, enable);
	t_rc_store(rc, RC_PA);
	t_kick(0, RC_PA, t_amount(rc->n), 1, done);
	s = t_wait(0, done);
	if (!(t_fuzz(s) & done))
		fail_msg("task did not complete: status 0x%x, model says: %s", s,
			 sim_soc_last_error(t_soc));
	assert_int_equal(s & (NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR), 0);
}

static void fill_input_int8(const struct t_conv *t, const int32_t *nhwc, unsigned c_real)
{
	uint8_t *in = t_phys(t->in_pa);

	for (unsigned ch = 0; ch < t->c; ch++)
	for (unsigned y = 0; y < t->h; y++)
	for (unsigned x = 0; x < t->w; x++)
		in[t_nc1hwc2(16, 1, t->in_surf, t->w, ch, y, x)] =
			ch < c_real ? (uint8_t)(int8_t)nhwc[(y * t->w + x) * c_real + ch] : 0;
}

/* The int32 NC1HWC2 output of conv task t equals want (NHWC, oh x ow x oc). */
static void check_int32_out(const struct t_conv *t, const int64_t *want)
{
	const uint8_t *out = t_phys(t->out_pa);

	for (unsigned oy = 0; oy < t->oh; oy++)
	for (unsigned ox = 0; ox < t->ow; ox++)
	for (unsigned o = 0; o < t->oc; o++) {
		int32_t got;

		memcpy(&got, out + t_nc1hwc2(4, 4, t->out_surf, t->ow, o, oy, ox), 4);
		assert_int_equal(got, want[(oy * t->ow + ox) * t->oc + o]);
	}
}

/* ---- int8 direct convolution grid ---- */

struct int8_case {
	unsigned h, w, c, oc, k, s, pad;
	int out_prec;
	bool bias, relu, qd, requant;
	unsigned clip;
	uint32_t extra_surf;
	unsigned c_quantum;	/* DATAIN_CHANNEL granularity; 0: a whole atom (16) */
};

static int64_t post_int(const struct int8_case *k, int64_t acc, int64_t wsum, int16_t ow_op,
			int32_t bias, int32_t offset, int64_t scale, int shift)
{
	int64_t v = acc + (k->qd ? ow_op * wsum : 0);

	v = ref_requant(v, 1, (int)k->clip, 0, INT32_MIN, INT32_MAX);
	if (k->bias)
		v = ref_clamp(v + bias, INT32_MIN, INT32_MAX);
	if (k->relu && v < 0)
		v = 0;
	switch (k->out_prec) {
	case NPU_PREC_INT8:
		return ref_requant(v, scale, shift, offset, INT8_MIN, INT8_MAX);
	case NPU_PREC_INT16:
		return ref_requant(v, scale, shift, offset, INT16_MIN, INT16_MAX);
	default:
		return ref_requant(v, scale, shift, offset, INT32_MIN, INT32_MAX);
	}
}

static void run_int8_case(const struct int8_case *k, uint32_t seed)
{
	struct ref_conv_shape sh = {
		.h = (int)k->h, .w = (int)k->w, .c = (int)k->c, .oc = (int)k->oc,
		.kh = (int)k->k, .kw = (int)k->k, .sy = (int)k->s, .sx = (int)k->s,
		.pad_top = (int)k->pad, .pad_left = (int)k->pad,
	};
	struct t_conv t = { 0 };
	struct t_rc rc = { .n = 0 };
	unsigned q = k->c_quantum ? k->c_quantum : 16u;
	unsigned cal = (k->c + q - 1u) / q * q, kernels, och, ob;
	int32_t *in, *wt, *bias;
	uint32_t *wpack;
	int64_t *acc, *wsum;
	int16_t ow_op;
	int32_t pad, offset;
	int64_t scale;
	int shift;
	uint32_t en;
	const uint8_t *out;

	sh.oh = (sh.h + 2 * sh.pad_top - sh.kh) / sh.sy + 1;
	sh.ow = (sh.w + 2 * sh.pad_left - sh.kw) / sh.sx + 1;
	t.prec = NPU_PREC_INT8;
	t.h = k->h; t.w = k->w; t.c = cal; t.oc = k->oc;
	t.oh = (unsigned)sh.oh; t.ow = (unsigned)sh.ow;
	t.kh = t.kw = k->k; t.sy = t.sx = k->s; t.pt = t.pl = k->pad;
	t.in_pa = IN_PA; t.wt_pa = WT_PA; t.out_pa = OUT_PA;
	t.bias_pa = k->bias ? BIAS_PA : 0;
	t.in_row = 16u * t.w;
	t.in_surf = t.in_row * t.h;
	/* lanes beyond DATAIN_CHANNEL hold junk the MACs must not see */
	memset(t_phys(IN_PA), 0x5A, (size_t)(cal + 15u) / 16u * t.in_surf);
	t.out_prec = k->out_prec;
	t.qd = k->qd; t.clip = k->clip; t.relu = k->relu;
	t.out_surf = t.ow * t.oh * 16u + k->extra_surf;
	kernels = t_kernels(&t);
	och = t_out_channels(&t);

	in = calloc(k->h * k->w * k->c, sizeof(*in));
	wt = calloc((size_t)kernels * k->k * k->k * cal, sizeof(*wt));
	wpack = calloc((size_t)kernels * k->k * k->k * cal, sizeof(*wpack));
	bias = calloc(och, sizeof(*bias));
	acc = calloc((size_t)sh.oh * sh.ow * sh.oc, sizeof(*acc));
	wsum = calloc((size_t)sh.oh * sh.ow, sizeof(*wsum));
	assert_true(in && wt && wpack && bias && acc && wsum);

	for (unsigned i = 0; i < k->h * k->w * k->c; i++)
		in[i] = t_rand_range(&seed, -128, 127);
	/* wt in NPU order [kernels][kh][kw][cal]; padded lanes/kernels are 0 */
	for (unsigned o = 0; o < k->oc; o++)
	for (unsigned j = 0; j < k->k * k->k; j++)
	for (unsigned ch = 0; ch < k->c; ch++)
		wt[(o * k->k * k->k + j) * cal + ch] = t_rand_range(&seed, -128, 127);
	for (unsigned o = 0; o < k->oc; o++)
		bias[o] = t_rand_range(&seed, -20000, 20000);
	pad = t_rand_range(&seed, -128, 127);
	t.pad_raw = (uint32_t)pad;		/* sign-extended, like Mesa */
	ow_op = (int16_t)t_rand_range(&seed, -127, 128);
	t.ow_op = ow_op;
	offset = k->requant ? t_rand_range(&seed, -20, 20) : 0;
	scale = k->requant ? t_rand_range(&seed, 1 << 14, (1 << 15) - 1) : 1;
	shift = k->requant ? t_rand_range(&seed, 18, 26) : 0;
	t.cvt_offset = offset;
	t.cvt_scale = (uint16_t)scale;
	t.cvt_shift = (unsigned)shift;

	fill_input_int8(&t, in, k->c);
	for (size_t i = 0; i < (size_t)kernels * k->k * k->k * cal; i++)
		wpack[i] = (uint32_t)wt[i];
	t_pack_weights(t_phys(WT_PA), wpack, kernels, k->k, k->k, cal, 32, 1);
	memcpy(t_phys(BIAS_PA), bias, och * sizeof(*bias));
	memset(t_phys(OUT_PA), OUT_FILL, (size_t)och * t.out_surf);

	en = t_conv_body(&rc, &t);
	run_task(&rc, en, NPU_INT_DPU);

	/* Reference: NHWC weights [oc][kh][kw][c] from the NPU-order array. */
	{
		int32_t *wref = calloc((size_t)k->oc * k->k * k->k * k->c, sizeof(*wref));

		assert_non_null(wref);
		for (unsigned o = 0; o < k->oc; o++)
		for (unsigned j = 0; j < k->k * k->k; j++)
		for (unsigned ch = 0; ch < k->c; ch++)
			wref[(o * k->k * k->k + j) * k->c + ch] = wt[(o * k->k * k->k + j) * cal + ch];
		ref_conv_int(&sh, in, wref, pad, acc);
		free(wref);
	}
	/* window sums over the aligned channel count: aligned lanes hold 0,
	 * padded pixels hold the pad value in every lane (sim/ASSUMPTIONS.md A11) */
	{
		struct ref_conv_shape shc = sh;
		int32_t *inc = calloc(k->h * k->w * cal, sizeof(*inc));

		assert_non_null(inc);
		for (unsigned p = 0; p < k->h * k->w; p++)
			for (unsigned ch = 0; ch < k->c; ch++)
				inc[p * cal + ch] = in[p * k->c + ch];
		shc.c = (int)cal;
		ref_window_sums(&shc, inc, pad, wsum);
		free(inc);
	}

	out = t_phys(OUT_PA);
	ob = t_prec_bytes(k->out_prec);
	for (int oy = 0; oy < sh.oh; oy++)
	for (int ox = 0; ox < sh.ow; ox++)
	for (unsigned o = 0; o < k->oc; o++) {
		size_t at = t_nc1hwc2(16u / ob, ob, t.out_surf, t.ow, o, (unsigned)oy, (unsigned)ox);
		int64_t want = post_int(k, acc[(oy * sh.ow + ox) * sh.oc + o],
					wsum[oy * sh.ow + ox], ow_op, bias[o], offset, scale, shift);
		int64_t got = ob == 1 ? (int8_t)out[at] : ob == 2 ?
			      (int16_t)(out[at] | out[at + 1] << 8) :
			      (int32_t)((uint32_t)out[at] | (uint32_t)out[at + 1] << 8 |
					(uint32_t)out[at + 2] << 16 | (uint32_t)out[at + 3] << 24);

		if (got != want)
			fail_msg("case %ux%ux%u->%u k%u s%u p%u out%d: (%d,%d,%u) got %lld want %lld",
				 k->h, k->w, k->c, k->oc, k->k, k->s, k->pad, k->out_prec, oy, ox,
				 o, (long long)got, (long long)want);
	}
	free(in);
	free(wt);
	free(wpack);
	free(bias);
	free(acc);
	free(wsum);
}

static void test_conv_int8_grid(void **state)
{
	static const unsigned hw[][2] = { { 6, 5 }, { 9, 8 } };
	static const unsigned cs[] = { 16, 20, 48 };
	static const unsigned ocs[] = { 7, 40 };
	static const unsigned ks[] = { 1, 3 };
	static const int outs[] = { NPU_PREC_INT32, NPU_PREC_INT8, NPU_PREC_INT16 };
	unsigned idx = 0;
	uint32_t seed = 0x1234567u;

	for (unsigned a = 0; a < 2; a++)
	for (unsigned b = 0; b < 3; b++)
	for (unsigned d = 0; d < 2; d++)
	for (unsigned e = 0; e < 2; e++)
	for (unsigned s = 1; s <= 2; s++)
	for (unsigned pad = 0; pad <= 1; pad++, idx++) {
		struct int8_case k = {
			.h = hw[a][0], .w = hw[a][1], .c = cs[b], .oc = ocs[d], .k = ks[e],
			.s = s, .pad = pad, .out_prec = outs[idx % 3],
			.bias = idx % 2, .relu = idx % 5 == 0,
			/* the zero-point term needs whole 16-channel atoms of data */
			.qd = idx % 4 == 1 && cs[b] % 16 == 0,
			.clip = idx % 7 == 3 ? 1 : 0,
			.extra_surf = idx % 6 == 0 ? 64 : 0,
		};

		k.requant = k.out_prec != NPU_PREC_INT32;
		run_int8_case(&k, seed + idx);
	}
}

/*
 * DATAIN_CHANNEL in half atoms: the TRM (RKNN_cna_data_size1) allows any
 * multiple of 8 int8 channels. The input stays in 16-byte atoms and lanes
 * past the channel count hold junk; weights carry exactly that many
 * channels (sim/ASSUMPTIONS.md A10).
 */
static void test_conv_int8_half_atom(void **state)
{
	static const struct int8_case cases[] = {
		{ .h = 6, .w = 5, .c = 3, .oc = 7, .k = 3, .s = 1, .pad = 1,
		  .out_prec = NPU_PREC_INT32, .c_quantum = 8 },
		{ .h = 7, .w = 9, .c = 8, .oc = 40, .k = 1, .s = 2, .pad = 0,
		  .out_prec = NPU_PREC_INT8, .requant = true, .bias = true, .c_quantum = 8 },
		{ .h = 5, .w = 6, .c = 24, .oc = 33, .k = 3, .s = 1, .pad = 1,
		  .out_prec = NPU_PREC_INT16, .requant = true, .qd = true, .c_quantum = 8 },
		{ .h = 9, .w = 4, .c = 40, .oc = 16, .k = 3, .s = 2, .pad = 1,
		  .out_prec = NPU_PREC_INT32, .relu = true, .c_quantum = 8 },
	};

	(void)state;
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_int8_case(&cases[i], 0xC0FFEEu + i);
}

/* Matmul as a 1x1 convolution (HARDWARE.md §4.8 A): input W=1, H=M, C=K. */
static void test_matmul_int8(void **state)
{
	static const unsigned dims[][3] = { { 4, 32, 32 }, { 12, 64, 48 }, { 8, 96, 64 } };
	uint32_t seed = 0xACE1u;

	for (unsigned d = 0; d < 3; d++) {
		unsigned m = dims[d][0], kk = dims[d][1], n = dims[d][2];
		struct t_conv t = {
			.prec = NPU_PREC_INT8, .h = m, .w = 1, .c = kk, .oh = m, .ow = 1, .oc = n,
			.kh = 1, .kw = 1, .sy = 1, .sx = 1, .in_pa = IN_PA, .wt_pa = WT_PA,
			.out_pa = OUT_PA, .in_row = 16, .in_surf = 16u * m,
			.out_prec = NPU_PREC_INT32, .cvt_scale = 1, .out_surf = 16u * m,
		};
		struct t_rc rc = { .n = 0 };
		int32_t *a = calloc(m * kk, sizeof(*a)), *b = calloc(kk * n, sizeof(*b));
		uint32_t *w = calloc(n * kk, sizeof(*w));
		int64_t *c = calloc(m * n, sizeof(*c));

		assert_true(a && b && w && c);
		for (unsigned i = 0; i < m * kk; i++)
			a[i] = t_rand_range(&seed, -128, 127);
		for (unsigned i = 0; i < kk * n; i++)
			b[i] = t_rand_range(&seed, -128, 127);
		fill_input_int8(&t, a, kk);
		for (unsigned j = 0; j < n; j++)
			for (unsigned i = 0; i < kk; i++)
				w[j * kk + i] = (uint32_t)b[i * n + j];
		t_pack_weights(t_phys(WT_PA), w, n, 1, 1, kk, 32, 1);
		run_task(&rc, t_conv_body(&rc, &t), NPU_INT_DPU);
		ref_matmul_int((int)m, (int)kk, (int)n, a, b, c);
		check_int32_out(&t, c);
		free(a);
		free(b);
		free(w);
		free(c);
	}
}

/* Depthwise int8 (64-channel groups, requantised to int8 / int16). */
static void test_depthwise_int8(void **state)
{
	static const unsigned chans[] = { 16, 80 };
	uint32_t seed = 0xD00Du;

	for (unsigned ci = 0; ci < 2; ci++)
	for (unsigned s = 1; s <= 2; s++)
	for (unsigned pad = 0; pad <= 1; pad++) {
		unsigned c = chans[ci], h = 7, w = 6, kk = 3;
		struct ref_conv_shape sh = {
			.h = (int)h, .w = (int)w, .c = (int)c, .oc = (int)c, .kh = 3, .kw = 3,
			.sy = (int)s, .sx = (int)s, .pad_top = (int)pad, .pad_left = (int)pad,
			.depthwise = true,
		};
		struct t_conv t = { 0 };
		struct t_rc rc = { .n = 0 };
		int32_t *in = calloc(h * w * c, sizeof(*in)), *wt = calloc(c * 9, sizeof(*wt));
		int8_t *w8 = calloc(c * 9, 1);
		int64_t *acc, *wsum;
		int64_t scale = t_rand_range(&seed, 1 << 14, (1 << 15) - 1);
		int shift = t_rand_range(&seed, 14, 20);
		int32_t pad_v = t_rand_range(&seed, -128, 127), offset = t_rand_range(&seed, -9, 9);
		int16_t ow_op = (int16_t)t_rand_range(&seed, -100, 100);
		bool qd = (s + pad) % 2;
		int out_prec = pad ? NPU_PREC_INT16 : NPU_PREC_INT8;
		unsigned ob = t_prec_bytes(out_prec);
		const uint8_t *out = t_phys(OUT_PA);

		sh.oh = (int)((h + 2 * pad - kk) / s + 1);
		sh.ow = (int)((w + 2 * pad - kk) / s + 1);
		acc = calloc((size_t)sh.oh * sh.ow * c, sizeof(*acc));
		wsum = calloc((size_t)sh.oh * sh.ow * c, sizeof(*wsum));
		assert_true(in && wt && w8 && acc && wsum);
		for (unsigned i = 0; i < h * w * c; i++)
			in[i] = t_rand_range(&seed, -128, 127);
		for (unsigned i = 0; i < c * 9; i++) {
			wt[i] = t_rand_range(&seed, -128, 127);
			w8[i] = (int8_t)wt[i];
		}
		t = (struct t_conv){
			.prec = NPU_PREC_INT8, .dw = true, .h = h, .w = w, .c = c,
			.oh = (unsigned)sh.oh, .ow = (unsigned)sh.ow, .oc = c, .kh = 3, .kw = 3,
			.sy = s, .sx = s, .pt = pad, .pl = pad, .pad_raw = (uint32_t)pad_v,
			.in_pa = IN_PA, .wt_pa = WT_PA, .out_pa = OUT_PA, .in_row = 16u * w,
			.in_surf = 16u * w * h, .out_prec = out_prec, .qd = qd, .ow_op = ow_op,
			.cvt_offset = offset, .cvt_scale = (uint16_t)scale, .cvt_shift = (unsigned)shift,
			.out_surf = 16u * (unsigned)(sh.oh * sh.ow),
		};
		fill_input_int8(&t, in, c);
		t_pack_dw_weights(t_phys(WT_PA), w8, c, 3, 3);
		run_task(&rc, t_conv_body(&rc, &t), NPU_INT_DPU);
		ref_conv_int(&sh, in, wt, pad_v, acc);
		ref_window_sums(&sh, in, pad_v, wsum);
		for (int oy = 0; oy < sh.oh; oy++)
		for (int ox = 0; ox < sh.ow; ox++)
		for (unsigned ch = 0; ch < c; ch++) {
			size_t i = ((size_t)oy * sh.ow + ox) * c + ch;
			int64_t v = acc[i] + (qd ? ow_op * wsum[i] : 0);
			int64_t want = ref_requant(v, scale, shift, offset,
						   ob == 1 ? INT8_MIN : INT16_MIN,
						   ob == 1 ? INT8_MAX : INT16_MAX);
			size_t at = t_nc1hwc2(16u / ob, ob, t.out_surf, t.ow, ch, (unsigned)oy,
					      (unsigned)ox);
			int64_t got = ob == 1 ? (int8_t)out[at] : (int16_t)(out[at] | out[at + 1] << 8);

			if (got != want)
				fail_msg("depthwise c%u s%u p%u (%d,%d,%u): got %lld want %lld", c, s,
					 pad, oy, ox, ch, (long long)got, (long long)want);
		}
		free(in);
		free(wt);
		free(w8);
		free(acc);
		free(wsum);
	}
}

/*
 * A row slice of a larger tensor: FEATURE_DATA_ADDR points at the first
 * row, DMA_CON1/2 keep the full tensor's strides (HARDWARE.md §5.2, §5.6).
 */
static void test_conv_row_slice(void **state)
{
	const unsigned full_h = 12, w = 8, c = 32, oc = 32, row0 = 3, h = 7;
	struct ref_conv_shape sh = { .h = (int)h, .w = (int)w, .c = (int)c, .oc = (int)oc,
				     .kh = 3, .kw = 3, .sy = 1, .sx = 1, .oh = 5, .ow = 6 };
	struct t_conv t = {
		.prec = NPU_PREC_INT8, .h = h, .w = w, .c = c, .oh = 5, .ow = 6, .oc = oc,
		.kh = 3, .kw = 3, .sy = 1, .sx = 1, .wt_pa = WT_PA, .out_pa = OUT_PA,
		.in_row = 16u * w, .in_surf = 16u * w * full_h, .out_prec = NPU_PREC_INT32,
		.cvt_scale = 1, .out_surf = 16u * 30,
	};
	struct t_rc rc = { .n = 0 };
	uint32_t seed = 0x51CEu;
	int32_t *full = calloc(full_h * w * c, sizeof(*full)), *slice = calloc(h * w * c, sizeof(*slice));
	uint32_t *wt = calloc(oc * 9 * c, sizeof(*wt));
	int32_t *wref = calloc(oc * 9 * c, sizeof(*wref));
	int64_t *acc = calloc(5 * 6 * oc, sizeof(*acc));
	struct t_conv whole;

	assert_true(full && slice && wt && wref && acc);
	for (unsigned i = 0; i < full_h * w * c; i++)
		full[i] = t_rand_range(&seed, -128, 127);
	for (unsigned i = 0; i < oc * 9 * c; i++) {
		wref[i] = t_rand_range(&seed, -128, 127);
		wt[i] = (uint32_t)wref[i];
	}
	whole = t;
	whole.h = full_h;
	whole.in_pa = IN_PA;
	fill_input_int8(&whole, full, c);
	t.in_pa = IN_PA + 16u * w * row0;
	t_pack_weights(t_phys(WT_PA), wt, oc, 3, 3, c, 32, 1);
	run_task(&rc, t_conv_body(&rc, &t), NPU_INT_DPU);

	memcpy(slice, full + row0 * w * c, h * w * c * sizeof(*slice));
	ref_conv_int(&sh, slice, wref, 0, acc);
	check_int32_out(&t, acc);
	free(full);
	free(slice);
	free(wt);
	free(wref);
	free(acc);
}

/*
 * CNA input converter on uint8 input (data_sign 0): Mesa's C = 1 values
 * (scale 16384, truncate 14, offset -128: x - 128, HARDWARE.md §4.8 D) and an
 * add-first set that saturates. Reference: convert, then convolve.
 */
static void test_conv_input_converter(void **state)
{
	static const struct { int scale, offset; unsigned trunc; bool add_first; } sets[] = {
		{ 16384, -128, 14, false },
		{ 3, -100, 1, true },
	};
	const unsigned h = 6, w = 6, c = 16, oc = 32;
	uint32_t seed = 0xC07u;

	for (unsigned n = 0; n < 2; n++) {
		struct ref_conv_shape sh = { .h = 6, .w = 6, .c = 16, .oc = 32, .kh = 3, .kw = 3,
					     .sy = 1, .sx = 1, .pad_top = 1, .pad_left = 1,
					     .oh = 6, .ow = 6 };
		uint32_t trunc = sets[n].trunc;
		struct t_conv t = {
			.prec = NPU_PREC_INT8, .h = h, .w = w, .c = c, .oh = 6, .ow = 6, .oc = oc,
			.kh = 3, .kw = 3, .sy = 1, .sx = 1, .pt = 1, .pl = 1, .pad_raw = (uint32_t)-7,
			.in_pa = IN_PA, .wt_pa = WT_PA, .out_pa = OUT_PA, .in_row = 16u * w,
			.in_surf = 16u * w * h, .out_prec = NPU_PREC_INT32, .cvt_scale = 1,
			.out_surf = 16u * 36,
			.cvt_con0 = NPU_FV(CNA, CVT_CON0, CVT_TRUNCATE_3, trunc) |
				    NPU_FV(CNA, CVT_CON0, CVT_TRUNCATE_2, trunc) |
				    NPU_FV(CNA, CVT_CON0, CVT_TRUNCATE_1, trunc) |
				    NPU_FV(CNA, CVT_CON0, CVT_TRUNCATE_0, trunc) |
				    NPU_FV(CNA, CVT_CON0, CVT_TYPE, sets[n].add_first),
			.cvt_set = NPU_FV(CNA, CVT_CON1, CVT_SCALE0, sets[n].scale) |
				   NPU_FV(CNA, CVT_CON1, CVT_OFFSET0, (uint16_t)sets[n].offset),
			.cvt_con5 = 0xFFFF,
		};
		struct t_rc rc = { .n = 0 };
		int32_t in[6 * 6 * 16], conv_in[6 * 6 * 16], wref[32 * 9 * 16];
		uint32_t wt[32 * 9 * 16];
		int64_t acc[6 * 6 * 32];
		uint8_t *mem = t_phys(IN_PA);

		for (unsigned i = 0; i < h * w * c; i++) {
			int64_t x;

			in[i] = t_rand_range(&seed, 0, 255);
			x = sets[n].add_first ?
			    ref_requant(in[i] + sets[n].offset, sets[n].scale, (int)trunc, 0,
					INT32_MIN, INT32_MAX) :
			    ref_requant(in[i], sets[n].scale, (int)trunc, sets[n].offset,
					INT32_MIN, INT32_MAX);
			conv_in[i] = (int32_t)ref_clamp(x, INT8_MIN, INT8_MAX);
		}
		for (unsigned ch = 0; ch < c; ch++)
		for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++)
			mem[t_nc1hwc2(16, 1, t.in_surf, w, ch, y, x)] = (uint8_t)in[(y * w + x) * c + ch];
		for (unsigned i = 0; i < oc * 9 * c; i++) {
			wref[i] = t_rand_range(&seed, -128, 127);
			wt[i] = (uint32_t)wref[i];
		}
		t_pack_weights(t_phys(WT_PA), wt, oc, 3, 3, c, 32, 1);
		run_task(&rc, t_conv_body(&rc, &t), NPU_INT_DPU);
		/* padding is in the converted domain: -7 */
		ref_conv_int(&sh, conv_in, wref, -7, acc);
		check_int32_out(&t, acc);
	}
}

/* ---- fp16 convolution ---- */

/*
 * fp16 convolutions against a double-precision reference. The fp16-output
 * cases carry two board-run register values the model once refused: a
 * CVT_CON5 channel mask with the input converter bypassed (allbilly/rk3588
 * experimental/kernel_6_18/conv_gemm.py: CVT_CON0 1, CVT_CON5 c2 mask) and,
 * in the last case, OUT_CVT scale 0 (experimental/ops_rockchip.py: "0 or 1
 * both passed").
 */
static void test_conv_fp16(void **state)
{
	static const unsigned cases[][7] = {
		/* h, w, c, oc, k, s, pad */
		{ 6, 6, 8, 16, 3, 1, 1 },
		{ 8, 5, 40, 20, 3, 2, 0 },
		{ 5, 7, 64, 33, 1, 1, 0 },
	};
	uint32_t seed = 0xF16u;

	for (unsigned n = 0; n < 6; n++) {
		const unsigned *p = cases[n % 3];
		unsigned h = p[0], w = p[1], c = p[2], oc = p[3], kk = p[4], s = p[5], pad = p[6];
		int out_prec = n < 3 ? NPU_PREC_FP32 : NPU_PREC_FP16;
		struct ref_conv_shape sh = {
			.h = (int)h, .w = (int)w, .c = (int)c, .oc = (int)oc, .kh = (int)kk,
			.kw = (int)kk, .sy = (int)s, .sx = (int)s, .pad_top = (int)pad,
			.pad_left = (int)pad,
		};
		struct t_conv t;
		struct t_rc rc = { .n = 0 };
		unsigned kernels = (oc + 1u) & ~1u;
		double *in, *wt, *acc, *mag, *absin, *abswt;
		uint32_t *wbits;
		uint8_t *mem = t_phys(IN_PA);
		const uint8_t *out = t_phys(OUT_PA);
		unsigned ob = t_prec_bytes(out_prec);
		uint32_t en;

		sh.oh = (int)((h + 2 * pad - kk) / s + 1);
		sh.ow = (int)((w + 2 * pad - kk) / s + 1);
		in = calloc(h * w * c, sizeof(*in));
		absin = calloc(h * w * c, sizeof(*absin));
		wt = calloc(oc * kk * kk * c, sizeof(*wt));
		abswt = calloc(oc * kk * kk * c, sizeof(*abswt));
		wbits = calloc(kernels * kk * kk * c, sizeof(*wbits));
		acc = calloc((size_t)sh.oh * sh.ow * oc, sizeof(*acc));
		mag = calloc((size_t)sh.oh * sh.ow * oc, sizeof(*mag));
		assert_true(in && absin && wt && abswt && wbits && acc && mag);

		for (unsigned ch = 0; ch < c; ch++)
		for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			uint16_t hb = ref_f32_to_f16((float)t_rand_range(&seed, -1000, 1000) / 1000.0f);

			in[(y * w + x) * c + ch] = ref_f16_to_f32(hb);
			absin[(y * w + x) * c + ch] = fabs(in[(y * w + x) * c + ch]);
			memcpy(mem + t_nc1hwc2(8, 2, 16u * w * h, w, ch, y, x), &hb, 2);
		}
		for (unsigned i = 0; i < oc * kk * kk * c; i++) {
			uint16_t hb = ref_f32_to_f16((float)t_rand_range(&seed, -1000, 1000) / 1000.0f);

			wt[i] = ref_f16_to_f32(hb);
			abswt[i] = fabs(wt[i]);
			wbits[i] = hb;
		}
		t_pack_weights(t_phys(WT_PA), wbits, kernels, kk, kk, c, 16, 2);
		t = (struct t_conv){
			.prec = NPU_PREC_FP16, .h = h, .w = w, .c = c, .oh = (unsigned)sh.oh,
			.ow = (unsigned)sh.ow, .oc = oc, .kh = kk, .kw = kk, .sy = s, .sx = s,
			.pt = pad, .pl = pad, .in_pa = IN_PA, .wt_pa = WT_PA, .out_pa = OUT_PA,
			.in_row = 16u * w, .in_surf = 16u * w * h, .out_prec = out_prec,
			.cvt_scale = 1, .qd = n % 2, .out_surf = 16u * (unsigned)(sh.oh * sh.ow),
		};
		en = t_conv_body(&rc, &t);
		if (out_prec == NPU_PREC_FP16) {
			T_CNA(&rc, CVT_CON0, NPU_FV(CNA, CVT_CON0, CVT_BYPASS, 1));
			T_CNA(&rc, CVT_CON5, (1u << 8) - 1u);	/* 8 fp16 lanes */
		}
		if (n == 5)
			T_DPU(&rc, OUT_CVT_SCALE, NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, 1));
		run_task(&rc, en, NPU_INT_DPU);
		ref_conv_double(&sh, in, wt, 0.0, acc);
		ref_conv_double(&sh, absin, abswt, 0.0, mag);
		for (int oy = 0; oy < sh.oh; oy++)
		for (int ox = 0; ox < sh.ow; ox++)
		for (unsigned o = 0; o < oc; o++) {
			size_t i = ((size_t)oy * sh.ow + ox) * oc + o;
			size_t at = t_nc1hwc2(16u / ob, ob, t.out_surf, t.ow, o, (unsigned)oy,
					      (unsigned)ox);
			double got, tol;

			if (ob == 4) {
				float f;

				memcpy(&f, out + at, 4);
				got = f;
			} else {
				uint16_t hb;

				memcpy(&hb, out + at, 2);
				got = ref_f16_to_f32(hb);
			}
			/* fp32 accumulation of exact fp16 products: error bounded by
			 * (terms x 2^-24) x sum|x*w|; fp16 output adds half an fp16 ulp
			 * (2^-11 relative). */
			tol = mag[i] * 1e-5 + (ob == 2 ? fabs(acc[i]) * 0x1p-11 + 1e-7 : 1e-7);
			if (fabs(got - acc[i]) > tol)
				fail_msg("fp16 case %u (%d,%d,%u): got %.7f want %.7f (tol %.2g)", n,
					 oy, ox, o, got, acc[i], tol);
		}
		free(in);
		free(absin);
		free(wt);
		free(abswt);
		free(wbits);
		free(acc);
		free(mag);
	}
}

/*
 * fp16 depthwise over 96 channels in one task, the shape of the vendor's
 * fresh_dw_c96_h20 capture (allbilly/rk3588
 * conv_expt/capture_harness/decoded/fresh_dw_c96_h20.json: 20x20x96, 3x3,
 * DATA_SIZE1 channel 96, WEIGHT_SIZE0 1728 = 9 x 96 x 2, DATAOUT channel 95,
 * SURFACE_ADD 4 x DST_SURF_STRIDE: 32-channel output groups). Weights in the
 * model's UNSURE reading [C/32][kh][kw][32] (A29); against a double sum.
 */
static void test_conv_fp16_dw_wide(void **state)
{
	enum { H = 20, W = 20, C = 96, K = 3, OH = H - K + 1, OW = W - K + 1 };
	struct t_conv t = {
		.prec = NPU_PREC_FP16, .dw = true, .h = H, .w = W, .c = C, .oh = OH, .ow = OW,
		.oc = C, .kh = K, .kw = K, .sy = 1, .sx = 1, .in_pa = IN_PA, .wt_pa = WT_PA,
		.out_pa = OUT_PA, .in_row = 16u * W, .in_surf = 16u * W * H,
		.out_prec = NPU_PREC_FP16, .cvt_scale = 1, .out_surf = 16u * OH * OW,
	};
	static float x[H][W][C], wt[C][K][K];
	uint8_t *in = t_phys(IN_PA), *wp = t_phys(WT_PA);
	const uint8_t *out = t_phys(OUT_PA);
	struct t_rc rc = { .n = 0 };
	uint32_t seed = 0xD96u;
	size_t n = 0;

	for (unsigned ch = 0; ch < C; ch++)
	for (unsigned y = 0; y < H; y++)
	for (unsigned xx = 0; xx < W; xx++) {
		uint16_t hb = ref_f32_to_f16((float)t_rand_range(&seed, -1000, 1000) / 1000.0f);

		x[y][xx][ch] = ref_f16_to_f32(hb);
		memcpy(in + t_nc1hwc2(8, 2, t.in_surf, W, ch, y, xx), &hb, 2);
	}
	for (unsigned g = 0; g < C / 32u; g++)
	for (unsigned ky = 0; ky < K; ky++)
	for (unsigned kx = 0; kx < K; kx++)
	for (unsigned i = 0; i < 32u; i++, n += 2) {
		uint16_t hb = ref_f32_to_f16((float)t_rand_range(&seed, -1000, 1000) / 1000.0f);

		wt[g * 32u + i][ky][kx] = ref_f16_to_f32(hb);
		memcpy(wp + n, &hb, 2);
	}
	assert_int_equal(n, 1728);	/* the vendor's WEIGHT_SIZE0 */
	run_task(&rc, t_conv_body(&rc, &t), NPU_INT_DPU);
	for (unsigned ch = 0; ch < C; ch++)
	for (unsigned y = 0; y < OH; y++)
	for (unsigned xx = 0; xx < OW; xx++) {
		double want = 0.0, mag = 0.0, got;
		uint16_t hb;

		for (unsigned ky = 0; ky < K; ky++)
		for (unsigned kx = 0; kx < K; kx++) {
			want += (double)x[y + ky][xx + kx][ch] * wt[ch][ky][kx];
			mag += fabs((double)x[y + ky][xx + kx][ch] * wt[ch][ky][kx]);
		}
		memcpy(&hb, out + t_nc1hwc2(8, 2, t.out_surf, OW, ch, y, xx), 2);
		got = ref_f16_to_f32(hb);
		/* 9 fp32 products and sums, then one fp16 rounding */
		if (fabs(got - want) > mag * 1e-6 + fabs(want) * 0x1p-11 + 1e-7)
			fail_msg("fp16 depthwise 96 (%u,%u,%u): got %f want %f", ch, y, xx, got,
				 want);
	}
}

/*
 * The decoded vendor fp16 conv (HARDWARE.md §4.8 B: C 160 -> 320, 3x3, 14x14 ->
 * 12x12): every published register value is forced into the stream, so the
 * model must accept the vendor's own choices (e.g. datain_channel_real 31)
 * and compute the convolution they describe.
 */
static void test_vendor_fp16_conv_values(void **state)
{
	static const struct { uint16_t off; uint32_t val; } vendor[] = {
		{ NPU_CNA_CONV_CON1, 0x120 }, { NPU_CNA_CONV_CON2, 0xF0 },
		{ NPU_CNA_CONV_CON3, 0x9 }, { NPU_CNA_DATA_SIZE0, 0x000E000E },
		{ NPU_CNA_DATA_SIZE1, 0x001F00A0 }, { NPU_CNA_DATA_SIZE2, 0xC },
		{ NPU_CNA_DATA_SIZE3, 0x90 }, { NPU_CNA_WEIGHT_SIZE0, 0xE1000 },
		{ NPU_CNA_WEIGHT_SIZE1, 0xB40 }, { NPU_CNA_WEIGHT_SIZE2, 0x03030140 },
		{ NPU_CNA_CBUF_CON0, 0xA2 }, { NPU_CNA_CBUF_CON1, 0x46 },
		{ NPU_CNA_CVT_CON0, 0xB }, { NPU_CNA_CVT_CON1, 0x10000 },
		{ NPU_CNA_DMA_CON0, 0x000F000F }, { NPU_CNA_DMA_CON1, 0x38 },
		{ NPU_CNA_DMA_CON2, 0x8C }, { NPU_CNA_FC_DATA_SIZE0, 0x000E000E },
		{ NPU_CNA_FC_DATA_SIZE1, 0xA0 }, { NPU_CORE_MISC_CFG, 0x200 },
		{ NPU_CORE_DATAOUT_SIZE_0, 0x000B000B }, { NPU_CORE_DATAOUT_SIZE_1, 0x13F },
		{ NPU_DPU_FEATURE_MODE_CFG, 0x1E4 }, { NPU_DPU_DATA_FORMAT, 0x48000002 },
		{ NPU_DPU_DST_SURF_STRIDE, 0x900 }, { NPU_DPU_DATA_CUBE_WIDTH, 0xB },
		{ NPU_DPU_DATA_CUBE_HEIGHT, 0xB }, { NPU_DPU_DATA_CUBE_CHANNEL, 0x013F013F },
		{ NPU_DPU_BS_CFG, 0x53 }, { NPU_DPU_BS_OW_CFG, 0x126 },
		{ NPU_DPU_WDMA_SIZE_0, 0x13F }, { NPU_DPU_WDMA_SIZE_1, 0x000B000B },
		{ NPU_DPU_BN_CFG, 0x53 }, { NPU_DPU_EW_CFG, 0x383 },
		{ NPU_DPU_EW_CVT_SCALE_VALUE, 1 }, { NPU_DPU_OUT_CVT_SCALE, 0x10001 },
		{ NPU_DPU_SURFACE_ADD, 0x1200 },
	};
	const unsigned h = 14, w = 14, c = 160, oc = 320, oh = 12, ow = 12;
	struct ref_conv_shape sh = { .h = 14, .w = 14, .c = 160, .oc = 320, .kh = 3, .kw = 3,
				     .sy = 1, .sx = 1, .oh = 12, .ow = 12 };
	struct t_conv t = {
		.prec = NPU_PREC_FP16, .h = h, .w = w, .c = c, .oh = oh, .ow = ow, .oc = oc,
		.kh = 3, .kw = 3, .sy = 1, .sx = 1, .in_pa = IN_PA, .wt_pa = WT_PA,
		.out_pa = OUT_PA, .in_row = 16u * w, .in_surf = 16u * w * h,
		.out_prec = NPU_PREC_FP16, .cvt_scale = 1, .out_surf = 16u * oh * ow,
	};
	struct t_rc rc = { .n = 0 };
	uint32_t seed = 0x7E4Du, en;
	double *in = calloc(h * w * c, sizeof(*in)), *wt = calloc(oc * 9 * c, sizeof(*wt));
	double *acc = calloc(oh * ow * oc, sizeof(*acc));
	uint32_t *wbits = calloc(oc * 9 * c, sizeof(*wbits));
	uint8_t *mem = t_phys(IN_PA);
	const uint8_t *out = t_phys(OUT_PA);

	assert_true(in && wt && acc && wbits);
	en = t_conv_body(&rc, &t);
	for (size_t v = 0; v < sizeof(vendor) / sizeof(vendor[0]); v++) {
		bool found = false;

		for (unsigned i = 0; i < rc.n; i++) {
			if (npu_rc_offset(rc.q[i]) != vendor[v].off)
				continue;
			rc.q[i] = npu_rc_entry(npu_rc_target(rc.q[i]), vendor[v].val, vendor[v].off);
			found = true;
		}
		assert_true(found);
	}
	for (unsigned ch = 0; ch < c; ch++)
	for (unsigned y = 0; y < h; y++)
	for (unsigned x = 0; x < w; x++) {
		uint16_t hb = ref_f32_to_f16((float)t_rand_range(&seed, -1000, 1000) / 1000.0f);

		in[(y * w + x) * c + ch] = ref_f16_to_f32(hb);
		memcpy(mem + t_nc1hwc2(8, 2, t.in_surf, w, ch, y, x), &hb, 2);
	}
	for (unsigned i = 0; i < oc * 9 * c; i++) {
		uint16_t hb = ref_f32_to_f16((float)t_rand_range(&seed, -1000, 1000) / 1000.0f);

		wt[i] = ref_f16_to_f32(hb);
		wbits[i] = hb;
	}
	t_pack_weights(t_phys(WT_PA), wbits, oc, 3, 3, c, 16, 2);
	run_task(&rc, en, NPU_INT_DPU);
	ref_conv_double(&sh, in, wt, 0.0, acc);
	for (unsigned o = 0; o < oc; o++)
	for (unsigned y = 0; y < oh; y++)
	for (unsigned x = 0; x < ow; x++) {
		double want = acc[(y * ow + x) * oc + o], got;
		uint16_t hb;

		memcpy(&hb, out + t_nc1hwc2(8, 2, t.out_surf, ow, o, y, x), 2);
		got = ref_f16_to_f32(hb);
		/* 1440 products of |x|,|w| <= 1 in fp32, then one fp16 rounding */
		if (fabs(got - want) > fabs(want) * 0x1p-11 + 1440 * 0x1p-20)
			fail_msg("vendor fp16 conv (%u,%u,%u): got %f want %f", o, y, x, got, want);
	}
	free(in);
	free(wt);
	free(acc);
	free(wbits);
}

/* ---- pooling ---- */

struct pool_case {
	int method;		/* 0 avg, 1 max, 2 min (HARDWARE.md §4.6) */
	unsigned k, s, pad;
	bool fp16;
	int32_t pad_value;	/* int8: PADDING_VALUE_1_CFG, counted in averages (A15) */
};

/* RECIP_KERNEL_*: 2^16 / k, an integer for int8; for fp16 its fp16 bit
 * pattern: 0x7800 = 32768.0 for k = 2 as the board-run fp16 average of
 * allbilly/rk3588 experimental/pool.py writes, 0x7555 = 21840.0 (exponent
 * 14, mantissa 341, the nearest to 21845.3) for k = 3. */
static uint32_t recip(unsigned k, bool fp16)
{
	if (fp16)
		return k == 2 ? 0x7800u : 0x7555u;
	return (65536u + k / 2u) / k;	/* 2^16 / k, rounded */
}

/* PPU registers for an NC1HWC2 input at src (PPU_RDMA) or from the DPU. */
static uint32_t ppu_body(struct t_rc *rc, const struct pool_case *p, unsigned h, unsigned w,
			 unsigned c, unsigned oh, unsigned ow, int prec, bool from_dpu,
			 uint32_t src, uint32_t dst)
{
	T_PPU(rc, S_POINTER, 0xE);
	T_PPU(rc, DATA_CUBE_IN_WIDTH, w - 1);
	T_PPU(rc, DATA_CUBE_IN_HEIGHT, h - 1);
	T_PPU(rc, DATA_CUBE_IN_CHANNEL, c - 1);
	T_PPU(rc, DATA_CUBE_OUT_WIDTH, ow - 1);
	T_PPU(rc, DATA_CUBE_OUT_HEIGHT, oh - 1);
	T_PPU(rc, DATA_CUBE_OUT_CHANNEL, c - 1);
	/* flying_mode: 0 the DPU, 1 outside (TRM) */
	T_PPU(rc, OPERATION_MODE_CFG, NPU_FV(PPU, OPERATION_MODE_CFG, FLYING_MODE, !from_dpu) |
				      NPU_FV(PPU, OPERATION_MODE_CFG, POOLING_METHOD, p->method));
	T_PPU(rc, POOLING_KERNEL_CFG,
	      NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_STRIDE_HEIGHT, p->s - 1) |
	      NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_STRIDE_WIDTH, p->s - 1) |
	      NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_HEIGHT, p->k - 1) |
	      NPU_FV(PPU, POOLING_KERNEL_CFG, KERNEL_WIDTH, p->k - 1));
	T_PPU(rc, RECIP_KERNEL_WIDTH, recip(p->k, p->fp16));
	T_PPU(rc, RECIP_KERNEL_HEIGHT, recip(p->k, p->fp16));
	T_PPU(rc, POOLING_PADDING_CFG, NPU_FV(PPU, POOLING_PADDING_CFG, PAD_BOTTOM, p->pad) |
				       NPU_FV(PPU, POOLING_PADDING_CFG, PAD_RIGHT, p->pad) |
				       NPU_FV(PPU, POOLING_PADDING_CFG, PAD_TOP, p->pad) |
				       NPU_FV(PPU, POOLING_PADDING_CFG, PAD_LEFT, p->pad));
	T_PPU(rc, PADDING_VALUE_1_CFG, (uint32_t)p->pad_value);
	T_PPU(rc, DST_BASE_ADDR, dst);
	T_PPU(rc, DST_SURF_STRIDE, 16u * ow * oh);
	T_PPU(rc, DATA_FORMAT, NPU_FV(PPU, DATA_FORMAT, PROC_PRECISION, prec));
	T_PPU(rc, MISC_CTRL, NPU_FV(PPU, MISC_CTRL, BURST_LEN, 3));
	if (from_dpu)
		return NPU_EN_PPU;
	T_PRDMA(rc, S_POINTER, 0xE);
	T_PRDMA(rc, CUBE_IN_WIDTH, w - 1);
	T_PRDMA(rc, CUBE_IN_HEIGHT, h - 1);
	T_PRDMA(rc, CUBE_IN_CHANNEL, c - 1);
	T_PRDMA(rc, SRC_BASE_ADDR, src);
	T_PRDMA(rc, SRC_LINE_STRIDE, 16u * w);
	T_PRDMA(rc, SRC_SURF_STRIDE, 16u * w * h);
	/* an element size (A15) */
	T_PRDMA(rc, DATA_FORMAT,
		prec == NPU_PREC_INT8 ? NPU_PPU_RDMA_IN_8BIT : NPU_PPU_RDMA_IN_16BIT);
	return NPU_EN_PPU | NPU_EN_PPU_RDMA;
}

/*
 * A standalone fp16 pool with the register values of a board-run example
 * (allbilly/rk3588 experimental/pool.py, run on an RK3588): 4x4x8 fp16
 * input through PPU_RDMA, 2x2 window, stride 1, OPERATION_MODE_CFG 0x10 |
 * method (flying_mode 1: from outside), DATA_FORMAT index_add << 16 | 2,
 * RECIP 30720 (0x7800) for the average. Inputs n/8 keep max and mean exact
 * in fp16, so the results are compared bit for bit.
 */
static void test_pool_board_stream(void **state)
{
	enum { H = 4, W = 4, C = 8, OH = 3, OW = 3 };
	const uint32_t width_stride = W * C * 2, dst_surf = W * (H - 1);

	for (int max_pool = 0; max_pool <= 1; max_pool++) {
		struct t_rc rc = { .n = 0 };
		uint16_t *in = t_phys(IN_PA), *out = t_phys(OUT2_PA);
		uint32_t seed = 0x504fu + (uint32_t)max_pool;
		float x[H][W][C];

		for (int y = 0; y < H; y++)
		for (int xx = 0; xx < W; xx++)
		for (int ch = 0; ch < C; ch++) {
			int n = t_rand_range(&seed, -64, 64);

			x[y][xx][ch] = (float)n / 8.0f;
			in[(y * W + xx) * C + ch] = sim_f32_to_f16(x[y][xx][ch]);
		}
		memset(out, OUT_FILL, 2u * OH * OW * C);
		T_PPU(&rc, S_POINTER, 0xE);
		T_PRDMA(&rc, S_POINTER, 0xE);
		T_PPU(&rc, DATA_CUBE_IN_WIDTH, W - 1);
		T_PPU(&rc, DATA_CUBE_IN_HEIGHT, H - 1);
		T_PPU(&rc, DATA_CUBE_IN_CHANNEL, C - 1);
		T_PPU(&rc, DATA_CUBE_OUT_WIDTH, W - 2);
		T_PPU(&rc, DATA_CUBE_OUT_HEIGHT, H - 2);
		T_PPU(&rc, DATA_CUBE_OUT_CHANNEL, C - 1);
		T_PPU(&rc, OPERATION_MODE_CFG, (1u << 4) | (uint32_t)max_pool);
		T_PPU(&rc, POOLING_KERNEL_CFG, (0u << 20) | (0u << 16) | (1u << 8) | 1u);
		T_PPU(&rc, DST_BASE_ADDR, (OUT2_PA / 16u) << 4);
		T_PPU(&rc, DST_SURF_STRIDE, dst_surf);
		T_PPU(&rc, DATA_FORMAT, (dst_surf << 16) | 2u);
		T_PPU(&rc, MISC_CTRL, 3);
		T_PRDMA(&rc, CUBE_IN_WIDTH, W - 1);
		T_PRDMA(&rc, CUBE_IN_HEIGHT, H - 1);
		T_PRDMA(&rc, CUBE_IN_CHANNEL, C - 1);
		T_PRDMA(&rc, SRC_BASE_ADDR, IN_PA);
		T_PRDMA(&rc, SRC_LINE_STRIDE, width_stride);
		T_PRDMA(&rc, SRC_SURF_STRIDE, width_stride * H);
		T_PRDMA(&rc, DATA_FORMAT, 2);
		T_PRDMA(&rc, OPERATION_ENABLE, 1);
		T_PPU(&rc, RECIP_KERNEL_WIDTH, max_pool ? 0 : 30720);
		T_PPU(&rc, RECIP_KERNEL_HEIGHT, max_pool ? 0 : 30720);
		run_task(&rc, NPU_EN_PPU | NPU_EN_PPU_RDMA, NPU_INT_PPU);
		for (int y = 0; y < OH; y++)
		for (int xx = 0; xx < OW; xx++)
		for (int ch = 0; ch < C; ch++) {
			float a = x[y][xx][ch], b = x[y][xx + 1][ch];
			float c = x[y + 1][xx][ch], d = x[y + 1][xx + 1][ch];
			float want = max_pool ? fmaxf(fmaxf(a, b), fmaxf(c, d)) : (a + b + c + d) / 4.0f;
			float got = ref_f16_to_f32(out[(y * OW + xx) * C + ch]);

			if (got != want)
				fail_msg("%s pool (%d,%d,%d): got %f want %f", max_pool ? "max" : "avg",
					 y, xx, ch, (double)got, (double)want);
		}
	}
}

/*
 * The small PPU task that ends each vendor chain (allbilly/rk3588
 * experimental/rknn/capture_rknpu_submit_dump_gems_c32_h14_live_regcmd_
 * 20260524_1304.log, after every convolution of an fp16 model): a 1x1 max
 * "pool" of 1x1x32 from outside, PPU DATA_FORMAT 0x10 (proc_precision 0,
 * int8) with PPU_RDMA DATA_FORMAT 1, which the TRM reads as 8-bit elements.
 * Register values as captured, its two addresses moved into our memory; a
 * 1x1 max pool copies its input. The same task with in_precision 0 (4-bit
 * elements) is refused.
 */
static void test_pool_vendor_tail_task(void **state)
{
	enum { C = 32 };
	static const unsigned sizes[] = { NPU_PPU_RDMA_IN_8BIT, NPU_PPU_RDMA_IN_4BIT };
	int8_t *in = t_phys(IN_PA), *out = t_phys(OUT2_PA);
	uint32_t seed = 0x7A11u;

	for (unsigned n = 0; n < 2; n++) {
		unsigned in_size = sizes[n];
		struct t_rc rc = { .n = 0 };

		for (unsigned i = 0; i < C; i++)
			in[i] = (int8_t)t_rand(&seed);
		memset(out, OUT_FILL, C);
		T_PPU(&rc, S_POINTER, 0xE);
		T_PRDMA(&rc, S_POINTER, 0xE);
		T_PPU(&rc, DATA_CUBE_IN_WIDTH, 0);
		T_PPU(&rc, DATA_CUBE_IN_HEIGHT, 0);
		T_PPU(&rc, DATA_CUBE_IN_CHANNEL, 0x1F);
		T_PPU(&rc, DATA_CUBE_OUT_WIDTH, 0);
		T_PPU(&rc, DATA_CUBE_OUT_HEIGHT, 0);
		T_PPU(&rc, DATA_CUBE_OUT_CHANNEL, 0x1F);
		T_PPU(&rc, OPERATION_MODE_CFG, 0x11);
		T_PPU(&rc, POOLING_KERNEL_CFG, 0);
		T_PPU(&rc, RECIP_KERNEL_WIDTH, 0);
		T_PPU(&rc, RECIP_KERNEL_HEIGHT, 0);
		T_PPU(&rc, POOLING_PADDING_CFG, 0);
		T_PPU(&rc, PADDING_VALUE_1_CFG, 0);
		T_PPU(&rc, PADDING_VALUE_2_CFG, 0);
		T_PPU(&rc, DST_BASE_ADDR, OUT2_PA);
		T_PPU(&rc, DST_SURF_STRIDE, 0x10);
		T_PPU(&rc, DATA_FORMAT, 0x10);
		T_PPU(&rc, MISC_CTRL, 0x3);
		T_PRDMA(&rc, CUBE_IN_WIDTH, 0);
		T_PRDMA(&rc, CUBE_IN_HEIGHT, 0);
		T_PRDMA(&rc, CUBE_IN_CHANNEL, 0x1F);
		T_PRDMA(&rc, SRC_BASE_ADDR, IN_PA);
		T_PRDMA(&rc, SRC_LINE_STRIDE, 0x10);
		T_PRDMA(&rc, SRC_SURF_STRIDE, 0x10);
		T_PRDMA(&rc, DATA_FORMAT, in_size);
		if (in_size != NPU_PPU_RDMA_IN_8BIT) {
			t_rc_tail(&rc, 0, 0, NPU_EN_PPU | NPU_EN_PPU_RDMA);
			t_rc_store(&rc, RC_PA);
			t_kick(0, RC_PA, t_amount(rc.n), 1, NPU_INT_PPU);
			assert_int_equal(t_wait(0, NPU_INT_PPU) & NPU_INT_DMA_READ_ERROR,
					 NPU_INT_DMA_READ_ERROR);
			assert_non_null(strstr(sim_soc_last_error(t_soc), "in_precision 0"));
			continue;
		}
		run_task(&rc, NPU_EN_PPU | NPU_EN_PPU_RDMA, NPU_INT_PPU);
		for (unsigned i = 0; i < C; i++)
			if (out[i] != in[i])
				fail_msg("vendor tail task channel %u: got %d want %d", i, out[i],
					 in[i]);
	}
}

static void test_pool_grid(void **state)
{
	const unsigned h = 9, w = 7, c = 24;
	uint32_t seed = 0x9001u;

	for (int method = 0; method < 3; method++)
	for (unsigned k = 2; k <= 3; k++)
	for (unsigned s = 1; s <= 2; s++)
	for (unsigned pad = 0; pad <= 1; pad++)
	for (int fp = 0; fp <= 1; fp++) {
		/* int8: a padding value of its own, so padded cells must count */
		struct pool_case p = { method, k, s, pad, fp, fp ? 0 : -37 };
		unsigned oh = (h + 2 * pad - k) / s + 1, ow = (w + 2 * pad - k) / s + 1;
		unsigned c2 = fp ? 8 : 16, b = fp ? 2 : 1;
		int32_t *in = calloc(h * w * c, sizeof(*in)), *ref = calloc(oh * ow * c, sizeof(*ref));
		double *din = calloc(h * w * c, sizeof(*din)), *dref = calloc(oh * ow * c, sizeof(*dref));
		uint8_t *mem = t_phys(IN_PA);
		const uint8_t *out = t_phys(OUT_PA);
		struct t_rc rc = { .n = 0 };

		assert_true(in && ref && din && dref);
		for (unsigned ch = 0; ch < c; ch++)
		for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			size_t i = (y * w + x) * c + ch, at = t_nc1hwc2(c2, b, 16u * w * h, w, ch, y, x);

			if (fp) {
				uint16_t hb = ref_f32_to_f16((float)t_rand_range(&seed, -4000, 4000) / 1000.0f);

				din[i] = ref_f16_to_f32(hb);
				memcpy(mem + at, &hb, 2);
			} else {
				in[i] = t_rand_range(&seed, -128, 127);
				mem[at] = (uint8_t)(int8_t)in[i];
			}
		}
		run_task(&rc, ppu_body(&rc, &p, h, w, c, oh, ow, fp ? NPU_PREC_FP16 : NPU_PREC_INT8,
				       false, IN_PA, OUT_PA), NPU_INT_PPU);
		ref_pool_int((enum ref_pool)method, (int)h, (int)w, (int)c, (int)oh, (int)ow,
			     (int)k, (int)k, (int)s, (int)s, (int)pad, (int)pad, p.pad_value, in, ref);
		ref_pool_double((enum ref_pool)method, (int)h, (int)w, (int)c, (int)oh, (int)ow,
				(int)k, (int)k, (int)s, (int)s, (int)pad, (int)pad, din, dref);
		for (unsigned ch = 0; ch < c; ch++)
		for (unsigned y = 0; y < oh; y++)
		for (unsigned x = 0; x < ow; x++) {
			size_t i = (y * ow + x) * c + ch, at = t_nc1hwc2(c2, b, 16u * ow * oh, ow, ch, y, x);

			if (fp) {
				uint16_t hb;
				double got, tol;

				memcpy(&hb, out + at, 2);
				got = ref_f16_to_f32(hb);
				/* max/min are exact; the average multiplies by fp16
				 * 2^16/k reciprocals (relative error < 2^-11 each) and
				 * rounds to fp16 (2^-11), on sums of up to 9 fp16 values. */
				tol = method ? 0 : fabs(dref[i]) * 0x1p-10 + 4.0 * 0x1p-11;
				if (fabs(got - dref[i]) > tol)
					fail_msg("fp16 pool m%d k%u s%u p%u: got %f want %f", method, k,
						 s, pad, got, dref[i]);
			} else {
				int got = (int8_t)out[at];
				/* k = 2: the 2^16/2 reciprocal is exact → bit-exact; k = 3:
				 * 21845/65536 is not 1/3, results may differ by one. */
				int tol = method == 0 && k == 3 ? 1 : 0;

				if (abs(got - ref[i]) > tol)
					fail_msg("int8 pool m%d k%u s%u p%u (%u,%u,%u): got %d want %d",
						 method, k, s, pad, y, x, ch, got, ref[i]);
			}
		}
		free(in);
		free(ref);
		free(din);
		free(dref);
	}
}

/* conv (int8, requantised) → PPU max 2x2/2 on the fly, DPU writes nothing. */
static void test_conv_to_pool_flying(void **state)
{
	const unsigned h = 8, w = 8, c = 16, oc = 32;
	struct ref_conv_shape sh = { .h = 8, .w = 8, .c = 16, .oc = 32, .kh = 3, .kw = 3,
				     .sy = 1, .sx = 1, .pad_top = 1, .pad_left = 1, .oh = 8, .ow = 8 };
	struct t_conv t = {
		.prec = NPU_PREC_INT8, .h = h, .w = w, .c = c, .oh = 8, .ow = 8, .oc = oc,
		.kh = 3, .kw = 3, .sy = 1, .sx = 1, .pt = 1, .pl = 1, .in_pa = IN_PA,
		.wt_pa = WT_PA, .out_pa = OUT_PA, .in_row = 16u * w, .in_surf = 16u * w * h,
		.out_prec = NPU_PREC_INT8, .cvt_scale = 0x5000, .cvt_shift = 24, .cvt_offset = 3,
		.out_surf = 16u * 64, .to_ppu = true, .no_memory = true,
	};
	struct pool_case p = { 1, 2, 2, 0, false, 0 };
	struct t_rc rc = { .n = 0 };
	uint32_t seed = 0xF1u, en;
	int32_t *in = calloc(h * w * c, sizeof(*in)), *wref = calloc(oc * 9 * c, sizeof(*wref));
	uint32_t *wt = calloc(oc * 9 * c, sizeof(*wt));
	int64_t *acc = calloc(64 * oc, sizeof(*acc));
	int32_t *q = calloc(64 * oc, sizeof(*q)), *pooled = calloc(16 * oc, sizeof(*pooled));
	const uint8_t *out = t_phys(OUT2_PA);

	assert_true(in && wref && wt && acc && q && pooled);
	for (unsigned i = 0; i < h * w * c; i++)
		in[i] = t_rand_range(&seed, -128, 127);
	for (unsigned i = 0; i < oc * 9 * c; i++) {
		wref[i] = t_rand_range(&seed, -128, 127);
		wt[i] = (uint32_t)wref[i];
	}
	fill_input_int8(&t, in, c);
	t_pack_weights(t_phys(WT_PA), wt, oc, 3, 3, c, 32, 1);
	memset(t_phys(OUT_PA), OUT_FILL, 2u * t.out_surf);
	en = t_conv_body(&rc, &t);
	en |= ppu_body(&rc, &p, 8, 8, oc, 4, 4, NPU_PREC_INT8, true, 0, OUT2_PA);
	run_task(&rc, en, NPU_INT_PPU);

	ref_conv_int(&sh, in, wref, 0, acc);
	for (unsigned i = 0; i < 64 * oc; i++)
		q[i] = (int32_t)ref_requant(acc[i], 0x5000, 24, 3, INT8_MIN, INT8_MAX);
	ref_pool_int(REF_POOL_MAX, 8, 8, (int)oc, 4, 4, 2, 2, 2, 2, 0, 0, 0, q, pooled);
	for (unsigned ch = 0; ch < oc; ch++)
	for (unsigned y = 0; y < 4; y++)
	for (unsigned x = 0; x < 4; x++)
		assert_int_equal((int8_t)out[t_nc1hwc2(16, 1, 16u * 16, 4, ch, y, x)],
				 pooled[(y * 4 + x) * oc + ch]);
	/* output_mode without the memory bit: the DPU wrote nothing */
	assert_int_equal(((const uint8_t *)t_phys(OUT_PA))[0], OUT_FILL);
	free(in);
	free(wref);
	free(wt);
	free(acc);
	free(q);
	free(pooled);
}

/* ---- element-wise: DPU fed by MRDMA, operand by ERDMA (HARDWARE.md §4.4-4.5) ---- */

/* DPU-only tasks below: the head (pointers, flying mode: input from MRDMA,
 * data format and the h x w x c output cube at OUT_PA). */
static void dpu_task_head(struct t_rc *rc, uint32_t data_format, uint32_t out_surf,
			  unsigned h, unsigned w, unsigned c)
{
	T_DPU(rc, S_POINTER, 0xE);
	T_RDMA(rc, S_POINTER, 0xE);
	T_DPU(rc, FEATURE_MODE_CFG, NPU_FV(DPU, FEATURE_MODE_CFG, BURST_LEN, 15) |
				    NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE, 2) |
				    NPU_FV(DPU, FEATURE_MODE_CFG, FLYING_MODE, 1));
	T_DPU(rc, DATA_FORMAT, data_format);
	T_DPU(rc, DST_BASE_ADDR, OUT_PA);
	T_DPU(rc, DST_SURF_STRIDE, out_surf);
	T_DPU(rc, DATA_CUBE_WIDTH, w - 1);
	T_DPU(rc, DATA_CUBE_HEIGHT, h - 1);
	T_DPU(rc, DATA_CUBE_CHANNEL, NPU_FV(DPU, DATA_CUBE_CHANNEL, ORIG_CHANNEL, c - 1) |
				     NPU_FV(DPU, DATA_CUBE_CHANNEL, CHANNEL, c - 1));
}

/* The write DMA's h x w x c output size. */
static void dpu_wdma_size(struct t_rc *rc, unsigned h, unsigned w, unsigned c)
{
	T_DPU(rc, WDMA_SIZE_0, c - 1);
	T_DPU(rc, WDMA_SIZE_1, NPU_FV(DPU, WDMA_SIZE_1, HEIGHT_WDMA, h - 1) |
			       NPU_FV(DPU, WDMA_SIZE_1, WIDTH_WDMA, w - 1));
}

/* MRDMA reading the h x w x c input cube at IN_PA. */
static void dpu_rdma_source(struct t_rc *rc, unsigned h, unsigned w, unsigned c)
{
	T_RDMA(rc, DATA_CUBE_WIDTH, w - 1);
	T_RDMA(rc, DATA_CUBE_HEIGHT, h - 1);
	T_RDMA(rc, DATA_CUBE_CHANNEL, c - 1);
	T_RDMA(rc, SRC_BASE_ADDR, IN_PA);
}

/* The RDMA's mode, last in the task: flying, input precision prec; fp16
 * converted to fp32 on entry as board-run fp16 streams do (A21). */
static void dpu_rdma_mode(struct t_rc *rc, int prec)
{
	T_RDMA(rc, FEATURE_MODE_CFG, NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, prec) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, MRDMA_FP16TOFP32_EN,
					    prec == NPU_PREC_FP16) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, prec) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, BURST_LEN, 15) |
				     NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, FLYING_MODE, 1));
}

static void test_eltwise_int8(void **state)
{
	static const struct {
		enum ref_eltwise op;
		unsigned algo;		/* EW_CFG alu_algo: 0 max, 1 min, 2 add, 4 minus */
		bool mul;
	} ops[] = {
		{ REF_EW_ADD, 2, false }, { REF_EW_SUB, 4, false }, { REF_EW_MAX, 0, false },
		{ REF_EW_MIN, 1, false }, { REF_EW_MUL, 0, true },
	};
	const unsigned h = 5, w = 6, c = 40, surf = 16u * h * w;
	uint32_t seed = 0xE1u;

	for (unsigned n = 0; n < 10; n++) {
		bool cvt = n >= 5;
		unsigned o = n % 5, trunc = ops[o].mul ? 4 : 0;
		int32_t off = cvt ? t_rand_range(&seed, -30, 30) : 0;
		int32_t scale = cvt ? t_rand_range(&seed, 1, 300) : 1;
		unsigned shift = cvt ? (unsigned)t_rand_range(&seed, 0, 6) : 0;
		uint8_t *a = t_phys(IN_PA), *b = t_phys(EW_PA);
		const uint8_t *out = t_phys(OUT_PA);
		struct t_rc rc = { .n = 0 };
		uint32_t ew;

		for (unsigned i = 0; i < 3 * surf; i++) {
			a[i] = (uint8_t)t_rand(&seed);
			b[i] = (uint8_t)t_rand(&seed);
		}
		ew = NPU_FV(DPU, EW_CFG, EW_DATA_MODE, 1) | NPU_FV(DPU, EW_CFG, EDATA_SIZE, 1) |
		     NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, ops[o].algo) |
		     NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) | NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
		     NPU_FV(DPU, EW_CFG, EW_OP_SRC, 1) | NPU_FV(DPU, EW_CFG, EW_OP_TYPE, ops[o].mul) |
		     NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, !cvt) |
		     NPU_FV(DPU, EW_CFG, EW_CVT_TYPE, cvt);
		dpu_task_head(&rc, 0, surf, h, w, c);
		T_DPU(&rc, BS_CFG, 0x53);
		T_DPU(&rc, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));	/* 1 atom/group */
		dpu_wdma_size(&rc, h, w, c);
		T_DPU(&rc, BN_CFG, 0x53);
		T_DPU(&rc, EW_CFG, ew);
		T_DPU(&rc, EW_CVT_OFFSET_VALUE, (uint32_t)off);
		T_DPU(&rc, EW_CVT_SCALE_VALUE,
		      NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_TRUNCATE, trunc) |
		      NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SHIFT, shift) |
		      NPU_FV(DPU, EW_CVT_SCALE_VALUE, EW_OP_CVT_SCALE, scale));
		T_DPU(&rc, OUT_CVT_SCALE, 1);
		T_DPU(&rc, SURFACE_ADD, surf);
		dpu_rdma_source(&rc, h, w, c);
		T_RDMA(&rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, 1) |
				       NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, 1));
		T_RDMA(&rc, EW_BASE_ADDR, EW_PA);
		T_RDMA(&rc, EW_SURF_STRIDE, surf);
		dpu_rdma_mode(&rc, NPU_PREC_INT8);
		run_task(&rc, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);

		for (unsigned ch = 0; ch < c; ch++)
		for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			size_t at = t_nc1hwc2(16, 1, surf, w, ch, y, x);
			int64_t av = (int8_t)a[at], bv = (int8_t)b[at], want;

			if (cvt)	/* operand converter, add-first: (b + off) * scale >> shift */
				bv = ref_requant(bv + off, scale, (int)shift, 0, INT64_MIN / 4,
						 INT64_MAX / 4);
			want = ref_eltwise_int(ops[o].op, av, bv);
			if (ops[o].mul)
				want = ref_shift_half_up(want, (int)trunc);
			want = ref_clamp(want, INT8_MIN, INT8_MAX);
			if ((int8_t)out[at] != want)
				fail_msg("eltwise op %u cvt %d (%u,%u,%u): %lld op %lld -> got %d want %lld",
					 o, cvt, ch, y, x, (long long)av, (long long)bv,
					 (int8_t)out[at], (long long)want);
		}
	}
}

/*
 * DPU BS and BN stages on a DPU-only task (MRDMA input, int8 -> int32):
 * ALU with a register operand (max / min / add / minus), MUL with shift,
 * PReLU, ReLU and ReLUX, in the NVDLA SDP order ALU -> MUL -> ReLU (A19).
 */
struct stage_case {
	unsigned algo;		/* 2 add, 4 minus; 0 and 1 are reserved in BS/BN (TRM) */
	int32_t alu;
	bool mul, prelu, relu, relux;
	int16_t mul_op;
	unsigned mul_shift;
	int32_t relux_val;
	bool bn;		/* run it in BN instead of BS */
	bool refused;		/* the model must refuse it */
};

static int64_t ref_stage(const struct stage_case *k, int64_t x)
{
	switch (k->algo) {
	case 2: x = x + k->alu; break;
	default: x = x - k->alu; break;
	}
	if (k->mul && (!k->prelu || x < 0))
		x = ref_clamp(ref_shift_half_up(x * k->mul_op, (int)k->mul_shift), INT32_MIN,
			      INT32_MAX);
	if (k->relu && x < 0)
		x = 0;
	if (k->relux && x > k->relux_val)
		x = k->relux_val;
	return x;
}

/*
 * OUT_CVT rounding of exact halves, both values of cvt_round as the TRM
 * words them (RKNN_dpu_out_cvt_shift): 0 "if the integer is odd, carry 1"
 * (halves to even), 1 "carry 1 no matter what the integer is" (halves up).
 * Every int8 input x, OUT_CVT scale 1 shift 1: x / 2, a half for odd x.
 */
static void test_out_cvt_rounding(void **state)
{
	const unsigned h = 4, w = 4, c = 16, surf = 16u * h * w;

	for (int ties_up = 0; ties_up <= 1; ties_up++) {
		uint8_t *a = t_phys(IN_PA);
		const uint8_t *out = t_phys(OUT_PA);
		struct t_rc rc = { .n = 0 };

		for (unsigned i = 0; i < 256; i++)
			a[i] = (uint8_t)i;	/* x = -128 .. 127 across the cube */
		dpu_task_head(&rc, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, NPU_PREC_INT8), surf,
			      h, w, c);
		T_DPU(&rc, BS_CFG, 0x53);
		T_DPU(&rc, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
		dpu_wdma_size(&rc, h, w, c);
		T_DPU(&rc, BN_CFG, 0x53);
		T_DPU(&rc, EW_CFG, 0x383);
		T_DPU(&rc, OUT_CVT_SCALE, 1);
		T_DPU(&rc, OUT_CVT_SHIFT, NPU_FV(DPU, OUT_CVT_SHIFT, CVT_ROUND, ties_up) |
					  NPU_FV(DPU, OUT_CVT_SHIFT, OUT_CVT_SHIFT, 1));
		T_DPU(&rc, SURFACE_ADD, surf);
		dpu_rdma_source(&rc, h, w, c);
		T_RDMA(&rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, 1));
		dpu_rdma_mode(&rc, NPU_PREC_INT8);
		run_task(&rc, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);
		for (unsigned i = 0; i < 256; i++) {
			int x = (int8_t)a[i];
			/* floor(x / 2), plus the carry the TRM describes */
			int fl = x >= 0 ? x / 2 : -((-x + 1) / 2);
			int want = fl + ((x & 1) && (ties_up || (fl & 1)));

			if ((int8_t)out[i] != want)
				fail_msg("cvt_round %d: %d / 2 gave %d, want %d", ties_up, x,
					 (int8_t)out[i], want);
		}
	}
}

static void test_dpu_stages(void **state)
{
	static const struct stage_case cases[] = {
		{ 2, 1000, true, false, false, false, 300, 4, 0, false, false },
		{ 4, -77, true, true, true, false, -5, 1, 0, false, false },
		{ 4, -20, false, false, true, true, 0, 0, 90, true, false },
		{ 2, 50, true, false, false, false, 7, 0, 0, true, false },
		{ 2, -3, false, false, true, true, 0, 0, 100, false, false },
		/* BS/BN alu_algo 0 and 1 are "Reserved" in the TRM (RKNN_dpu_bs_cfg,
		 * bn_cfg; max/min exist in the EW stage only): refused */
		{ 0, -20, false, false, true, true, 0, 0, 90, true, true },
		{ 1, 50, true, false, false, false, 7, 0, 0, false, true },
	};
	const unsigned h = 4, w = 5, c = 24, surf_in = 16u * h * w, surf_out = 16u * h * w;
	uint32_t seed = 0x5A6Eu;

	for (unsigned n = 0; n < sizeof(cases) / sizeof(cases[0]); n++) {
		const struct stage_case *k = &cases[n];
		uint32_t cfg = NPU_FV(DPU, BS_CFG, BS_ALU_ALGO, k->algo) |
			       NPU_FV(DPU, BS_CFG, BS_RELUX_EN, k->relux) |
			       NPU_FV(DPU, BS_CFG, BS_RELU_BYPASS, !k->relu) |
			       NPU_FV(DPU, BS_CFG, BS_MUL_PRELU, k->prelu) |
			       NPU_FV(DPU, BS_CFG, BS_MUL_BYPASS, !k->mul);
		uint32_t mul = NPU_FV(DPU, BS_MUL_CFG, BS_MUL_OPERAND, (uint16_t)k->mul_op) |
			       NPU_FV(DPU, BS_MUL_CFG, BS_MUL_SHIFT_VALUE, k->mul_shift);
		uint8_t *a = t_phys(IN_PA);
		const uint8_t *out = t_phys(OUT_PA);
		struct t_rc rc = { .n = 0 };

		for (unsigned i = 0; i < 2 * surf_in; i++)
			a[i] = (uint8_t)t_rand(&seed);
		dpu_task_head(&rc, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, NPU_PREC_INT32), surf_out,
			      h, w, c);
		T_DPU(&rc, BS_CFG, k->bn ? 0x53 : cfg);
		T_DPU(&rc, BS_ALU_CFG, (uint32_t)k->alu);
		T_DPU(&rc, BS_MUL_CFG, mul);
		T_DPU(&rc, BS_RELUX_CMP_VALUE, (uint32_t)k->relux_val);
		T_DPU(&rc, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
		dpu_wdma_size(&rc, h, w, c);
		T_DPU(&rc, BN_CFG, k->bn ? cfg : 0x53);
		T_DPU(&rc, BN_ALU_CFG, (uint32_t)k->alu);
		T_DPU(&rc, BN_MUL_CFG, mul);
		T_DPU(&rc, BN_RELUX_CMP_VALUE, (uint32_t)k->relux_val);
		T_DPU(&rc, EW_CFG, 0x383);
		T_DPU(&rc, OUT_CVT_SCALE, 1);
		T_DPU(&rc, SURFACE_ADD, surf_out);
		dpu_rdma_source(&rc, h, w, c);
		T_RDMA(&rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DISABLE, 1));
		dpu_rdma_mode(&rc, NPU_PREC_INT8);
		if (k->refused) {
			t_rc_tail(&rc, 0, 0, NPU_EN_DPU | NPU_EN_DPU_RDMA);
			t_rc_store(&rc, RC_PA);
			t_kick(0, RC_PA, t_amount(rc.n), 1, NPU_INT_DPU);
			assert_int_equal(t_wait(0, NPU_INT_DPU) & NPU_INT_DMA_READ_ERROR,
					 NPU_INT_DMA_READ_ERROR);
			assert_non_null(strstr(sim_soc_last_error(t_soc), "reserved"));
			continue;
		}
		run_task(&rc, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);

		for (unsigned ch = 0; ch < c; ch++)
		for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			int64_t want = ref_stage(k, (int8_t)a[t_nc1hwc2(16, 1, surf_in, w, ch, y, x)]);
			int32_t got;

			memcpy(&got, out + t_nc1hwc2(4, 4, surf_out, w, ch, y, x), 4);
			if (got != want)
				fail_msg("stage case %u (%u,%u,%u): got %d want %lld", n, ch, y, x,
					 got, (long long)want);
		}
	}
}

/* A DPU write outside RAM ends the job with DMA_WRITE_ERROR. */
static void test_write_outside_ram(void **state)
{
	struct t_conv t = {
		.prec = NPU_PREC_INT8, .h = 4, .w = 4, .c = 16, .oh = 4, .ow = 4, .oc = 32,
		.kh = 1, .kw = 1, .sy = 1, .sx = 1, .in_pa = IN_PA, .wt_pa = WT_PA,
		.out_pa = 0xEFFFFF00u, .in_row = 64, .in_surf = 256, .out_prec = NPU_PREC_INT32,
		.cvt_scale = 1, .out_surf = 256,
	};
	struct t_rc rc = { .n = 0 };
	uint32_t s;

	t_rc_tail(&rc, 0, 0, t_conv_body(&rc, &t));
	t_rc_store(&rc, RC_PA);
	t_kick(0, RC_PA, t_amount(rc.n), 1, NPU_INT_DPU);
	s = t_wait(0, NPU_INT_DPU);
	assert_int_equal(s, NPU_INT_DMA_WRITE_ERROR);
	assert_non_null(strstr(sim_soc_last_error(t_soc), "DPU WDMA write"));
}

/*
 * fp16 element-wise add / max / min on the DPU (MRDMA + ERDMA, fp16 out via
 * FP32TOFP16_EN). The sum of two fp16 values is exact in fp32, so after one
 * round-to-nearest-even to fp16 the result must equal the compiler's
 * _Float16 rounding bit for bit.
 */
static void test_eltwise_fp16(void **state)
{
	static const unsigned algos[] = { 2, 0, 1 };	/* add, max, min */
	const unsigned h = 3, w = 7, c = 20, surf = 16u * h * w;
	uint32_t seed = 0xF1F1u;

	for (unsigned n = 0; n < 3; n++) {
		uint8_t *a = t_phys(IN_PA), *b = t_phys(EW_PA);
		const uint8_t *out = t_phys(OUT_PA);
		struct t_rc rc = { .n = 0 };

		for (unsigned i = 0; i < 3 * surf; i += 2) {
			uint16_t x = ref_f32_to_f16((float)t_rand_range(&seed, -60000, 60000) / 7.0f);
			uint16_t y = ref_f32_to_f16((float)t_rand_range(&seed, -60000, 60000) / 3.0f);

			memcpy(a + i, &x, 2);
			memcpy(b + i, &y, 2);
		}
		dpu_task_head(&rc, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, NPU_PREC_FP16) |
				   NPU_FV(DPU, DATA_FORMAT, IN_PRECISION, NPU_PREC_FP16) |
				   NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, NPU_PREC_FP16), surf, h, w, c);
		T_DPU(&rc, BS_CFG, 0x53);
		T_DPU(&rc, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, SIZE_E_2, 1) |
				      NPU_FV(DPU, BS_OW_CFG, SIZE_E_1, 1) |
				      NPU_FV(DPU, BS_OW_CFG, SIZE_E_0, 1) |
				      NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
		dpu_wdma_size(&rc, h, w, c);
		T_DPU(&rc, BN_CFG, 0x53);
		T_DPU(&rc, EW_CFG, NPU_FV(DPU, EW_CFG, EW_DATA_MODE, 1) |
				   NPU_FV(DPU, EW_CFG, EDATA_SIZE, 2) |
				   NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, algos[n]) |
				   NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
				   NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
				   NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
				   NPU_FV(DPU, EW_CFG, EW_OP_SRC, 1));
		T_DPU(&rc, OUT_CVT_SCALE, NPU_FV(DPU, OUT_CVT_SCALE, FP32TOFP16_EN, 1) |
					  NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, 1));
		T_DPU(&rc, SURFACE_ADD, 2 * surf);
		dpu_rdma_source(&rc, h, w, c);
		T_RDMA(&rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, 1) |
				       NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, 2));
		T_RDMA(&rc, EW_BASE_ADDR, EW_PA);
		T_RDMA(&rc, EW_SURF_STRIDE, surf);
		dpu_rdma_mode(&rc, NPU_PREC_FP16);
		run_task(&rc, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);

		for (unsigned ch = 0; ch < c; ch++)
		for (unsigned y = 0; y < h; y++)
		for (unsigned x = 0; x < w; x++) {
			size_t at = t_nc1hwc2(8, 2, surf, w, ch, y, x);
			uint16_t ha, hb, got, want;
			float fa, fb, r;

			memcpy(&ha, a + at, 2);
			memcpy(&hb, b + at, 2);
			memcpy(&got, out + at, 2);
			fa = ref_f16_to_f32(ha);
			fb = ref_f16_to_f32(hb);
			r = n == 0 ? fa + fb : n == 1 ? (fa > fb ? fa : fb) : (fa < fb ? fa : fb);
			want = ref_f32_to_f16(r);
			if (got != want)
				fail_msg("fp16 eltwise %u (%u,%u,%u): %g op %g -> 0x%04x want 0x%04x",
					 n, ch, y, x, fa, fb, got, want);
		}
	}
}

/*
 * Both conversion bits 0 (mrdma_fp16tofp32_en 0, fp32tofp16_en 0: the
 * board's divide) through a BN add and the EW add: the model rounds each
 * operation's result to fp16 (A21, UNSURE; board probe A21-stages), so
 * the result is round(round(a + bn) + b), with the compiler's _Float16
 * rounding here. 2048 + 1 + 1 shows it: 2048 per stage, 2050 in fp32.
 */
static void test_eltwise_fp16_unconverted(void **state)
{
	const unsigned h = 2, w = 8, c = 8, surf = 16u * h * w;
	const float bn = 1.0f;
	uint32_t seed = 0xF216u, bn_bits;
	uint8_t *a = t_phys(IN_PA), *b = t_phys(EW_PA);
	const uint8_t *out = t_phys(OUT_PA);
	struct t_rc rc = { .n = 0 };

	(void)state;
	memcpy(&bn_bits, &bn, sizeof(bn_bits));
	for (unsigned i = 0; i < surf; i += 2) {
		uint16_t x = ref_f32_to_f16((float)t_rand_range(&seed, 2048, 4095));
		uint16_t y = ref_f32_to_f16((float)t_rand_range(&seed, -400, 400) / 4.0f);

		if (i < 32) {	/* 2048 + 1 + 1 */
			x = ref_f32_to_f16(2048.0f);
			y = ref_f32_to_f16(1.0f);
		}
		memcpy(a + i, &x, 2);
		memcpy(b + i, &y, 2);
	}
	dpu_task_head(&rc, NPU_FV(DPU, DATA_FORMAT, OUT_PRECISION, NPU_PREC_FP16) |
			   NPU_FV(DPU, DATA_FORMAT, IN_PRECISION, NPU_PREC_FP16) |
			   NPU_FV(DPU, DATA_FORMAT, PROC_PRECISION, NPU_PREC_FP16), surf, h, w, c);
	T_DPU(&rc, BS_CFG, 0x53);
	T_DPU(&rc, BS_OW_CFG, NPU_FV(DPU, BS_OW_CFG, OD_BYPASS, 1));
	dpu_wdma_size(&rc, h, w, c);
	T_DPU(&rc, BN_CFG, NPU_FV(DPU, BN_CFG, BN_ALU_ALGO, NPU_ALU_ADD) |
			   NPU_FV(DPU, BN_CFG, BN_RELU_BYPASS, 1) |
			   NPU_FV(DPU, BN_CFG, BN_MUL_BYPASS, 1));
	T_DPU(&rc, BN_ALU_CFG, bn_bits);
	T_DPU(&rc, EW_CFG, NPU_FV(DPU, EW_CFG, EW_DATA_MODE, 1) |
			   NPU_FV(DPU, EW_CFG, EDATA_SIZE, 2) |
			   NPU_FV(DPU, EW_CFG, EW_ALU_ALGO, NPU_ALU_ADD) |
			   NPU_FV(DPU, EW_CFG, EW_RELU_BYPASS, 1) |
			   NPU_FV(DPU, EW_CFG, EW_OP_CVT_BYPASS, 1) |
			   NPU_FV(DPU, EW_CFG, EW_LUT_BYPASS, 1) |
			   NPU_FV(DPU, EW_CFG, EW_OP_SRC, 1));
	T_DPU(&rc, OUT_CVT_SCALE, NPU_FV(DPU, OUT_CVT_SCALE, OUT_CVT_SCALE, 1));
	T_DPU(&rc, SURFACE_ADD, surf);
	dpu_rdma_source(&rc, h, w, c);
	T_RDMA(&rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, 1) |
			       NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, 2));
	T_RDMA(&rc, EW_BASE_ADDR, EW_PA);
	T_RDMA(&rc, EW_SURF_STRIDE, surf);
	T_RDMA(&rc, FEATURE_MODE_CFG, NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, IN_PRECISION, NPU_PREC_FP16) |
				      NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, PROC_PRECISION, NPU_PREC_FP16) |
				      NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, BURST_LEN, 15) |
				      NPU_FV(DPU_RDMA, FEATURE_MODE_CFG, FLYING_MODE, 1));
	run_task(&rc, NPU_EN_DPU | NPU_EN_DPU_RDMA, NPU_INT_DPU);

	for (unsigned i = 0; i < surf; i += 2) {
		uint16_t ha, hb, got, want;

		memcpy(&ha, a + i, 2);
		memcpy(&hb, b + i, 2);
		memcpy(&got, out + i, 2);
		want = ref_f32_to_f16(ref_f16_to_f32(ref_f32_to_f16(ref_f16_to_f32(ha) + bn)) +
				      ref_f16_to_f32(hb));
		if (got != want)
			fail_msg("unconverted fp16 at %u: %g + 1 + %g -> 0x%04x want 0x%04x", i / 2,
				 ref_f16_to_f32(ha), ref_f16_to_f32(hb), got, want);
	}
	assert_int_equal(ref_f16_to_f32(*(const uint16_t *)out), 2048.0f);
}

/* The model's binary16 conversions against the compiler's _Float16: every
 * half value, and floats across the subnormal, normal and overflow ranges. */
static void test_fp16_conversions(void **state)
{
	uint32_t seed = 0x16161616u;

	for (uint32_t h = 0; h < 0x10000u; h++) {
		float a = sim_f16_to_f32((uint16_t)h), b = ref_f16_to_f32((uint16_t)h);

		if (isnan(b))
			assert_true(isnan(a));
		else
			assert_memory_equal(&a, &b, sizeof(a));
	}
	for (int i = 0; i < 1000000; i++) {
		uint32_t bits = t_rand(&seed);
		float f;

		/* bias exponents toward the fp16 range: 2^-30 .. 2^20 */
		bits = (bits & 0x807FFFFFu) | ((97u + bits % 51u) << 23);
		memcpy(&f, &bits, sizeof(f));
		if (sim_f32_to_f16(f) != ref_f32_to_f16(f))
			fail_msg("f32 0x%08x -> 0x%04x, _Float16 0x%04x", bits, sim_f32_to_f16(f),
				 ref_f32_to_f16(f));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_fp16_conversions),
		cmocka_unit_test_setup_teardown(test_conv_int8_grid, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_matmul_int8, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_depthwise_int8, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_conv_row_slice, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_conv_input_converter, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_conv_fp16, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_vendor_fp16_conv_values, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_conv_fp16_dw_wide, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_pool_grid, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_pool_board_stream, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_conv_int8_half_atom, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_out_cvt_rounding, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_conv_to_pool_flying, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_eltwise_int8, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_eltwise_fp16, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_eltwise_fp16_unconverted, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_pool_vendor_tail_task, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_dpu_stages, t_setup, t_teardown),
		cmocka_unit_test_setup_teardown(test_write_outside_ram, t_setup, t_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
