/* SPDX-License-Identifier: MIT */
/*
 * int8 convolutions lowered by runtime/ and RUN ON THE NPU MODEL (sim/)
 * through the driver (drivers/npu), compared with a CPU reference written
 * here from the quantised-convolution maths (uint8 or int8 tensors with
 * zero points, int32 bias, fused ReLU/ReLU6) — not from the lowering's
 * code.
 *
 * Grid (Mesa rocket's op tests): input 3, 5, 8, 80, 112; kernel 1, 3, 5;
 * input channels 1, 32, 120; output channels 1, 16, 120; stride 1, 2;
 * SAME / VALID; signed / unsigned; plus depthwise. `make unit` runs a fixed-
 * seed sample; RKBARE_TEST_FULL=1 (`make test-full`) runs the whole grid.
 *
 * The reference is ONNX's QLinearConv: an exact int64 accumulation, then
 * round(acc · s_in · s_w / s_out) with ties to even, computed exactly from
 * the float scales in 128-bit integers (no fixed-point recipe of the
 * lowering). Tolerance, stated: exact when every scale is a power of two or
 * the combined scale is a short dyadic fraction (the NPU's 15-bit
 * multiplier then holds it exactly, ties included); otherwise the NPU's
 * fixed-point multiplier may move an output by 1 LSB, so |diff| <= 1 and
 * such differences must stay rare (MAX_OFF_BY_ONE_PER_MILLE).
 * Kernels with kh != kw, strides with sy != sx and non-square inputs run
 * too (conv_rectangular).
 */
#include <errno.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "host/simd_level.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

/* ---- the case ---- */

struct conv_case {
	unsigned int size, k, ic, oc, stride;
	bool same, is_unsigned, depthwise;
	enum lower_act act;
	bool per_channel;	/* one weight scale per output channel */
	/* every scale a power of two (rkbare compile --pow2-scales): the
	 * reference is then ONNX's own, round(acc · s_c) ties to even */
	bool pow2;
	/* width, kernel width, x stride when they differ from size, k, stride */
	unsigned int width, kw, stride_x;
	/* per-tensor combined scale dyadic/16 (odd): exact in the multiplier,
	 * with exact halves where ONNX rounds to even */
	unsigned int dyadic;
};

static unsigned int c_w(const struct conv_case *c) { return c->width ? c->width : c->size; }
static unsigned int c_kw(const struct conv_case *c) { return c->kw ? c->kw : c->k; }
static unsigned int c_sx(const struct conv_case *c) { return c->stride_x ? c->stride_x : c->stride; }

/* Of 1000 outputs, at most this many 1 LSB off the exact definition where
 * the fixed-point multiplier is not exact: in one case (they cluster where
 * a channel's scale lands near a half), and over the sampled grid (measured:
 * 30 of 114,000, 0.26 per mille). */
#define MAX_OFF_BY_ONE_PER_MILLE	5u
#define MAX_OFF_BY_ONE_PER_MILLE_GRID	1u

/* ---- CPU reference ---- */

/* A float as m · 2^e with an integer m of at most 24 bits. */
static int64_t float_parts(float f, int *e)
{
	int64_t m = (int64_t)ldexp(frexp((double)f, e), 24);

	*e -= 24;
	return m;
}

/* round(acc · a · b / c), ties to even, exactly: a, b, c > 0 floats. */
static int64_t onnx_requant(int64_t acc, float a, float b, float c)
{
	int ea, eb, ec;
	__int128 num = (__int128)acc * float_parts(a, &ea) * float_parts(b, &eb);
	__int128 den = float_parts(c, &ec), q, r;
	int e = ea + eb - ec;
	bool neg = num < 0;

	if (neg)
		num = -num;
	if (e >= 0)
		num <<= e;
	else
		den <<= -e;
	q = num / den;
	r = num % den;
	if (2 * r > den || (2 * r == den && (q & 1)))
		q++;
	return (int64_t)(neg ? -q : q);
}

static void reference(const struct conv_case *c, const struct lower_conv_op *op,
		      const struct lower_conv_shape *s, const uint8_t *in, const uint8_t *w,
		      const int32_t *bias, uint8_t *out)
{
	int32_t qmin = c->is_unsigned ? 0 : -128, qmax = c->is_unsigned ? 255 : 127;
	unsigned int taps_ic = c->depthwise ? 1 : c->ic, kw = c_kw(c), w_in = c_w(c);

	if (c->act != LOWER_ACT_NONE)
		qmin = qmin > op->out_zp ? qmin : op->out_zp;
	if (c->act == LOWER_ACT_RELU6) {
		int32_t six = op->out_zp + (int32_t)lround(6.0 / op->out_scale);

		qmax = qmax < six ? qmax : six;
	}
	for (unsigned int oy = 0; oy < s->out_h; oy++)
	for (unsigned int ox = 0; ox < s->out_w; ox++)
	for (unsigned int o = 0; o < c->oc; o++) {
		int64_t acc = bias[o];

		for (unsigned int ky = 0; ky < c->k; ky++)
		for (unsigned int kx = 0; kx < kw; kx++) {
			int iy = (int)(oy * c->stride + ky) - (int)s->pad_top;
			int ix = (int)(ox * c_sx(c) + kx) - (int)s->pad_left;

			if (iy < 0 || ix < 0 || iy >= (int)c->size || ix >= (int)w_in)
				continue;	/* padding holds the zero point: contributes 0 */
			for (unsigned int i = 0; i < taps_ic; i++) {
				unsigned int ch = c->depthwise ? o : i;
				size_t xi = ((size_t)iy * w_in + (size_t)ix) * c->ic + ch;
				size_t wi = c->depthwise ? ((size_t)ky * kw + kx) * c->ic + o :
					    (((size_t)o * c->k + ky) * kw + kx) * c->ic + i;
				int32_t x = c->is_unsigned ? in[xi] : (int8_t)in[xi];
				int32_t wv = c->is_unsigned ? w[wi] : (int8_t)w[wi];

				acc += (int64_t)(x - op->in_zp) * (wv - op->w_zp);
			}
		}
		int64_t q = onnx_requant(acc, op->in_scale, op->w_scale[c->per_channel ? o : 0],
					 op->out_scale) + op->out_zp;

		q = q < qmin ? qmin : q > qmax ? qmax : q;
		out[((size_t)oy * s->out_w + ox) * c->oc + o] = (uint8_t)q;
	}
}

/* ---- one case on the model ---- */

/* Outputs compared, and those 1 LSB off, over the cases of one test. */
static size_t outputs_total, off_by_one_total;

static void run_case(const struct conv_case *c, uint64_t seed)
{
	struct lower_conv_shape s;
	float w_scale[128];
	struct lower_conv_op op = {
		.in_h = c->size, .in_w = c_w(c), .in_c = c->ic, .out_c = c->oc,
		.kh = c->k, .kw = c_kw(c), .stride_y = c->stride, .stride_x = c_sx(c),
		.same_padding = c->same, .depthwise = c->depthwise,
		.is_unsigned = c->is_unsigned, .w_scale = w_scale,
		.w_scale_count = c->per_channel ? c->oc : 1, .act = c->act,
	};
	size_t n_in = (size_t)c->size * c_w(c) * c->ic;
	size_t n_w = c->depthwise ? (size_t)c->k * c_kw(c) * c->ic :
		     (size_t)c->oc * c->k * c_kw(c) * c->ic;
	unsigned int k_taps = c->k * c_kw(c) * (c->depthwise ? 1 : c->ic);
	bool exact = c->pow2 || c->dyadic;
	size_t off_by_one = 0, n_out;
	uint8_t *in, *w, *in_s8, *in_native, *w_native, *out_native, *got, *want;
	int32_t *bias, *bias_native, *scale_native = NULL;
	struct fx_program f;
	size_t task_count;
	char name[160];

	snprintf(name, sizeof(name), "%s %ux%ux%u k%ux%u s%ux%u -> %u %s %s act%d%s seed %llu",
		 c->depthwise ? "dw" : "conv", c->size, c_w(c), c->ic, c->k, c_kw(c), c->stride,
		 c_sx(c), c->oc,
		 c->same ? "same" : "valid", c->is_unsigned ? "u8" : "s8", c->act,
		 c->per_channel ? " per-channel" : "", (unsigned long long)seed);
	fx_rng_seed(seed * 0x9E3779B97F4A7C15ull + 1);
	fx_dma_reset();

	/* Quantisation parameters spreading the outputs over the int8 range. */
	op.in_scale = 0.02f + (float)(fx_rng() % 100) / 5000.0f;
	w_scale[0] = 0.005f + (float)(fx_rng() % 100) / 20000.0f;
	for (unsigned int o = 1; o < c->oc; o++)	/* per channel: within ×0.5 .. ×2 */
		w_scale[o] = w_scale[0] * (0.5f + (float)(fx_rng() % 150) / 100.0f);
	op.out_scale = (float)(op.in_scale * w_scale[0] * sqrt((double)k_taps) * 74.0 * 74.0 / 50.0 *
			       (0.5 + (fx_rng() % 100) / 66.0));
	if (c->pow2) {
		/* powers of two, channels up to 2^4 apart, outputs shifted right
		 * by 1 to 5 bits: many exact halves, where the rounding rules part */
		op.in_scale = 1.0f / 64.0f;
		for (unsigned int o = 0; o < c->oc; o++)
			w_scale[o] = ldexpf(1.0f, -5 + (int)(fx_rng() % 5));
		op.out_scale = 1.0f / 64.0f;
		op.pow2_requant = c->per_channel;
	}
	if (c->dyadic) {
		/* (dyadic/32) · (1/4) / (1/8) = dyadic/16, one scale per tensor */
		op.in_scale = (float)c->dyadic / 32.0f;
		w_scale[0] = 0.25f;
		op.out_scale = 0.125f;
	}
	if (c->is_unsigned) {
		op.in_zp = fx_rng_range(90, 166);
		op.w_zp = fx_rng_range(90, 166);
		op.out_zp = fx_rng_range(60, 190);
	} else {
		op.in_zp = fx_rng_range(-30, 30);
		op.w_zp = 0;
		op.out_zp = fx_rng_range(-40, 40);
	}
	if (lower_conv_check(&op, &s))
		fail_msg("%s: lower_conv_check refused", name);

	in = malloc(n_in);
	w = malloc(n_w);
	bias = malloc(sizeof(*bias) * c->oc);
	got = malloc((size_t)s.out_h * s.out_w * c->oc);
	want = malloc((size_t)s.out_h * s.out_w * c->oc);
	in_s8 = malloc(n_in);
	assert_true(in && w && bias && got && want && in_s8);
	for (size_t i = 0; i < n_in; i++)
		in[i] = exact ? (uint8_t)(op.in_zp + fx_rng_range(-3, 3)) : (uint8_t)fx_rng();
	for (size_t i = 0; i < n_w; i++)
		w[i] = exact ? (uint8_t)fx_rng_range(-3, 3) : (uint8_t)fx_rng();
	for (unsigned int o = 0; o < c->oc; o++)
		bias[o] = exact ? fx_rng_range(-64, 64) : fx_rng_range(-40000, 40000);

	/* NPU buffers: input (shifted to int8, NC1HWC2), weights, bias, output. */
	in_native = fx_dma_alloc(s.in_bytes);
	w_native = fx_dma_alloc(s.weight_bytes);
	bias_native = fx_dma_alloc(s.bias_bytes);
	out_native = fx_dma_alloc(s.out_bytes);
	if (c->is_unsigned)
		layout_u8_to_s8(in, (int8_t *)in_s8, n_in);
	else
		memcpy(in_s8, in, n_in);
	layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, in_s8, in_native, c->size, c_w(c), c->ic,
			       s.in_c_aligned);
	if (s.scale_bytes)
		scale_native = fx_dma_alloc(s.scale_bytes);
	assert_int_equal(lower_conv_pack(&op, &s, w, bias, w_native, bias_native, scale_native), 0);
	if (scale_native)
		op.scale_addr = fx_phys(scale_native);
	if (s.scratch_bytes)
		op.scratch_addr = fx_phys(fx_dma_alloc(s.scratch_bytes));
	op.in_addr = fx_phys(in_native);
	op.weight_addr = fx_phys(w_native);
	op.bias_addr = fx_phys(bias_native);
	op.out_addr = fx_phys(out_native);

	assert_int_equal(lower_conv_task_count(&op, &task_count), 0);
	fx_program_init(&f, task_count, CONV_TASK_MAX_ENTRIES);
	if (lower_conv(&f.p, &op))
		fail_msg("%s: lower_conv failed", name);
	assert_int_equal(f.p.task_count, task_count);
	fx_program_link(&f, task_count);
	fx_run(f.tasks, task_count, out_native, s.out_bytes, name);

	layout_nc1hwc2_to_nhwc(NPU_PREC_INT8, out_native, got, s.out_h, s.out_w, c->oc);
	if (c->is_unsigned)
		layout_s8_to_u8((const int8_t *)got, got, (size_t)s.out_h * s.out_w * c->oc);
	reference(c, &op, &s, in, w, bias, want);
	n_out = (size_t)s.out_h * s.out_w * c->oc;
	for (size_t i = 0; i < n_out; i++) {
		int d = c->is_unsigned ? (int)got[i] - (int)want[i] :
			(int)(int8_t)got[i] - (int)(int8_t)want[i];

		if (d == 0)
			continue;
		if (!exact && (d == 1 || d == -1)) {
			off_by_one++;
			continue;
		}
		fail_msg("%s (%zu tasks): output %zu (y %zu x %zu c %zu) = %u, reference %u",
			 name, task_count, i, i / c->oc / s.out_w, i / c->oc % s.out_w,
			 i % c->oc, got[i], want[i]);
	}
	if (off_by_one * 1000u > MAX_OFF_BY_ONE_PER_MILLE * n_out + 1000u)
		fail_msg("%s: %zu of %zu outputs 1 LSB off the exact definition", name, off_by_one,
			 n_out);
	off_by_one_total += off_by_one;
	outputs_total += n_out;

	free(in);
	free(w);
	free(bias);
	free(got);
	free(want);
	free(in_s8);
	fx_program_free(&f);
}

/* ---- the grid ---- */

static const unsigned int sizes[] = { 3, 5, 8, 80, 112 };
static const unsigned int kernels[] = { 1, 3, 5 };
static const unsigned int in_chs[] = { 1, 32, 120 };
static const unsigned int out_chs[] = { 1, 16, 120 };

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* Case number i of the full grid (conv and depthwise), or false when the
 * combination has no output (VALID with a kernel larger than the input). */
static bool grid_case(size_t i, struct conv_case *c)
{
	size_t conv_cases = N(sizes) * N(kernels) * N(in_chs) * N(out_chs) * 8;

	memset(c, 0, sizeof(*c));
	c->depthwise = i >= conv_cases;
	if (c->depthwise)
		i -= conv_cases;
	c->is_unsigned = i & 1;
	c->same = (i >> 1) & 1;
	c->stride = ((i >> 2) & 1) + 1;
	i >>= 3;
	if (c->depthwise) {
		c->ic = c->oc = in_chs[i % N(in_chs)];
		i /= N(in_chs);
	} else {
		c->oc = out_chs[i % N(out_chs)];
		i /= N(out_chs);
		c->ic = in_chs[i % N(in_chs)];
		i /= N(in_chs);
	}
	c->k = kernels[i % N(kernels)];
	i /= N(kernels);
	c->size = sizes[i % N(sizes)];
	c->act = (enum lower_act)((c->size + c->k + c->ic + c->oc + c->stride) % 3);
	/* TFLite int8 convolutions carry per-channel weight scales. */
	c->per_channel = !c->is_unsigned && c->oc > 1 && c->same;
	return c->same || c->k <= c->size;
}

static size_t grid_size(void)
{
	return N(sizes) * N(kernels) * N(in_chs) * 8 * (N(out_chs) + 1);
}

/* Sampled grid for `make unit`: every small case is cheap, large ones are
 * drawn sparsely with a fixed seed, keeping the run short. */
static void conv_grid_sampled(void **state)
{
	size_t n = grid_size(), ran = 0;
	uint64_t sampler = 42;	/* its own sequence: run_case reseeds fx_rng */

	(void)state;
	outputs_total = off_by_one_total = 0;
	for (size_t i = 0; i < n; i++) {
		struct conv_case c;
		uint64_t pick = sampler;

		sampler = pick * 6364136223846793005ull + 1442695040888963407ull;
		if (!grid_case(i, &c))
			continue;
		/* sizes 3/5/8 at one in 6; 80/112 at one in 120 */
		if ((c.size <= 8 && (pick >> 33) % 6) || (c.size > 8 && (pick >> 33) % 120))
			continue;
		run_case(&c, i);
		ran++;
	}
	print_message("%zu of %zu grid cases run; %zu of %zu outputs 1 LSB off the exact "
		      "definition\n", ran, n, off_by_one_total, outputs_total);
	assert_true(off_by_one_total * 1000u <= MAX_OFF_BY_ONE_PER_MILLE_GRID * outputs_total);
}

/*
 * The model's integer convolution has a path per SIMD level the host has
 * (sim/conv_u8s8.c: AVX-512 VNNI, AVX2, and the portable loop of
 * exec_conv.c). conv_grid_sampled runs on the selected one; this runs small
 * grid cases on each level below it, against the same reference.
 */
static void conv_grid_levels(void **state)
{
	enum simd_level top = simd_level();
	size_t n = grid_size(), ran = 0;

	(void)state;
	print_message("SIMD level: %s\n", simd_level_name(top));
	for (int level = SIMD_PORTABLE; level < (int)top; level++) {
		simd_level_set((enum simd_level)level);
		for (size_t i = 0; i < n; i += 11) {
			struct conv_case c;

			if (!grid_case(i, &c) || c.size > 8)
				continue;
			run_case(&c, i);
			ran++;
		}
		print_message("small grid cases run on %s\n", simd_level_name(level));
	}
	simd_level_set(SIMD_AVX512);
	print_message("%zu small grid cases run below %s\n", ran, simd_level_name(top));
}

static void conv_grid_full(void **state)
{
	size_t n = grid_size(), ran = 0;

	(void)state;
	if (!getenv("RKBARE_TEST_FULL"))
		skip();
	for (size_t i = 0; i < n; i++) {
		struct conv_case c;

		if (!grid_case(i, &c))
			continue;
		run_case(&c, i);
		ran++;
	}
	print_message("%zu grid cases run\n", ran);
}

/* Layers larger than one CBUF load: row split, kernel split, both. */
static void conv_cbuf_tiling(void **state)
{
	static const struct conv_case cases[] = {
		{ 112, 3, 120, 16, 1, true, true, false, LOWER_ACT_RELU, false, false, 0, 0, 0, 0 },	/* rows */
		{ 80, 5, 120, 120, 2, true, false, false, LOWER_ACT_NONE, false, false, 0, 0, 0, 0 },	/* rows + kernels */
		{ 112, 1, 120, 120, 1, false, true, false, LOWER_ACT_RELU6, false, false, 0, 0, 0, 0 },
		{ 112, 5, 120, 120, 1, true, false, true, LOWER_ACT_RELU, false, false, 0, 0, 0, 0 },	/* depthwise rows */
		{ 80, 3, 120, 120, 1, true, false, false, LOWER_ACT_RELU6, true, false, 0, 0, 0, 0 },
		{ 112, 3, 32, 32, 2, true, false, true, LOWER_ACT_RELU6, true, false, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i], 1000 + i);
}

/* Kernel groups too large for the CBUF: split by input channels, partial
 * sums through int32 scratch tensors (2 and 3 chunks; zero points and
 * ReLU6 applied after the last chunk). */
static void conv_input_channel_split(void **state)
{
	static const struct conv_case cases[] = {
		{ 6, 3, 1600, 40, 1, true, false, false, LOWER_ACT_RELU6, false, false, 0, 0, 0, 0 },
		{ 5, 3, 3000, 16, 2, true, true, false, LOWER_ACT_RELU, false, false, 0, 0, 0, 0 },
		{ 6, 5, 640, 33, 1, false, true, false, LOWER_ACT_NONE, false, false, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i], 3000 + i);
}

/* Fully connected as a 1×1 convolution over a 1×1 input. */
static void conv_fully_connected(void **state)
{
	static const struct conv_case cases[] = {
		{ 1, 1, 120, 16, 1, false, true, false, LOWER_ACT_NONE, false, false, 0, 0, 0, 0 },
		{ 1, 1, 32, 120, 1, false, false, false, LOWER_ACT_RELU, false, false, 0, 0, 0, 0 },
		{ 1, 1, 120, 40, 1, false, false, false, LOWER_ACT_RELU6, true, false, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i], 2000 + i);
}

/*
 * Power-of-two scales (--pow2-scales), per tensor and per channel: each
 * requantisation an exact shift rounding ties to even, equal to ONNX's
 * round(acc · s) — the per-channel path multiplies exactly in the EW stage
 * and leaves the rounding to OUT_CVT (lower_conv.c).
 */
static void conv_pow2_scales(void **state)
{
	static const struct conv_case cases[] = {
		{ 9, 3, 24, 40, 1, true, false, false, LOWER_ACT_NONE, true, true, 0, 0, 0, 0 },
		{ 8, 3, 16, 32, 2, true, false, false, LOWER_ACT_RELU, true, true, 0, 0, 0, 0 },
		{ 7, 1, 64, 24, 1, false, false, false, LOWER_ACT_RELU6, true, true, 0, 0, 0, 0 },
		{ 8, 3, 48, 48, 1, true, false, true, LOWER_ACT_RELU, true, true, 0, 0, 0, 0 },
		{ 6, 3, 16, 16, 1, true, false, false, LOWER_ACT_NONE, false, true, 0, 0, 0, 0 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i], 4000 + i);
}

/*
 * Rectangular kernels, unequal strides and non-square inputs: a swap of
 * any x/y pair moves outputs by far more than 1 LSB (and the exact cases
 * by any amount).
 */
static void conv_rectangular(void **state)
{
	static const struct conv_case cases[] = {
		/* size k ic oc stride same uns dw act per-ch pow2 width kw stride_x */
		{ 9, 3, 16, 24, 2, true, false, false, LOWER_ACT_NONE, false, false, 13, 1, 1, 0 },
		{ 11, 1, 8, 16, 1, false, true, false, LOWER_ACT_RELU, false, false, 7, 5, 2, 0 },
		{ 10, 5, 32, 8, 1, true, false, false, LOWER_ACT_RELU6, true, false, 6, 3, 2, 0 },
		{ 12, 3, 16, 16, 2, true, false, true, LOWER_ACT_NONE, false, false, 8, 5, 1, 0 },
		{ 9, 3, 16, 24, 1, true, false, false, LOWER_ACT_NONE, false, true, 12, 1, 2, 0 },
		{ 7, 2, 8, 8, 1, false, false, false, LOWER_ACT_NONE, false, false, 9, 3, 3, 3 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i], 5000 + i);
}

/*
 * 1 × 1 convolutions over maps wider or taller than the CNA takes (2047):
 * lowered as a fold of the same pixels (a detection head's 4 × 8400
 * anchors), against the same reference on the unfolded map; and one that
 * no fold fits (2 × 4099 pixels: no divisor of 8198 between 5 and 2047),
 * refused.
 */
static void conv_wide_folded(void **state)
{
	static const struct conv_case cases[] = {
		/* size k ic oc stride same uns dw act per-ch pow2 width kw stride_x */
		{ 4, 1, 16, 1, 1, false, false, false, LOWER_ACT_NONE, false, false, 2100, 0, 0, 0 },
		{ 2400, 1, 32, 8, 1, true, true, false, LOWER_ACT_RELU, true, false, 3, 0, 0, 0 },
	};
	struct lower_conv_op op = {
		.in_h = 2, .in_w = 4099, .in_c = 16, .out_c = 16, .kh = 1, .kw = 1,
		.stride_y = 1, .stride_x = 1,
	};
	struct lower_conv_shape s;

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i], 6500 + i);
	assert_int_equal(lower_conv_check(&op, &s), -EINVAL);
}

/*
 * Non-power-of-two scales whose combined value is dyadic (3/16, 5/16,
 * 7/16, 11/16): exact in the 15-bit multiplier, so ONNX's round half to
 * even must hold exactly, and the small accumulators land on halves often.
 */
static void conv_dyadic_ties(void **state)
{
	static const struct conv_case cases[] = {
		{ 8, 3, 32, 24, 1, true, false, false, LOWER_ACT_NONE, false, false, 0, 0, 0, 3 },
		{ 7, 3, 16, 16, 2, false, true, false, LOWER_ACT_RELU, false, false, 0, 0, 0, 5 },
		{ 6, 1, 64, 16, 1, false, false, false, LOWER_ACT_RELU6, false, false, 0, 0, 0, 7 },
		{ 9, 3, 24, 24, 1, true, false, true, LOWER_ACT_NONE, false, false, 0, 0, 0, 11 },
	};

	(void)state;
	for (size_t i = 0; i < N(cases); i++)
		run_case(&cases[i], 6000 + i);
}

/* ---- fp16 convolution ---- */

/*
 * Inputs and weights are q/64 with |q| <= 31, so every product and every
 * sum is exact in fp32; the only rounding is the fp16 output, hence the
 * tolerance of one fp16 unit in the last place of the exact result. The
 * bias (fp32 per channel, UNSURE A28) is q/64 too. Depthwise weights are
 * [k][k][ic] (oc = ic).
 */
static void run_case_fp16(unsigned int size, unsigned int ic, unsigned int oc, unsigned int k,
			  unsigned int stride, bool same, bool relu, size_t want_tasks, bool dw,
			  bool with_bias)
{
	struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = size, .in_w = size, .in_c = ic, .out_c = oc,
		.kh = k, .kw = k, .stride_y = stride, .stride_x = stride, .same_padding = same,
		.act = relu ? LOWER_ACT_RELU : LOWER_ACT_NONE, .depthwise = dw,
	};
	struct lower_conv_shape s;
	size_t n_in = (size_t)size * size * ic, n_w = (size_t)(dw ? 1 : oc) * k * k * ic, count;
	int *xq = malloc(n_in * sizeof(int)), *wq = malloc(n_w * sizeof(int));
	int bq[512] = { 0 };
	float bias[512];
	uint16_t *x = malloc(n_in * 2), *w = malloc(n_w * 2), *got;
	uint8_t *in_n, *w_n, *out_n;
	float *b_n;
	struct fx_program f;

	fx_rng_seed(size * 7919u + ic * 31u + oc + k);
	fx_dma_reset();
	assert_int_equal(lower_conv_check(&op, &s), 0);
	for (size_t i = 0; i < n_in; i++) {
		xq[i] = fx_rng_range(-31, 31);
		x[i] = ref_f32_to_f16((float)xq[i] / 64.0f);	/* exact */
	}
	for (size_t i = 0; i < n_w; i++) {
		wq[i] = fx_rng_range(-31, 31);
		w[i] = ref_f32_to_f16((float)wq[i] / 64.0f);
	}
	assert_true(oc <= 512);
	for (unsigned int o = 0; o < oc && with_bias; o++) {
		bq[o] = fx_rng_range(-31, 31);
		bias[o] = (float)bq[o] / 64.0f;
	}
	in_n = fx_dma_alloc(s.in_bytes);
	w_n = fx_dma_alloc(s.weight_bytes);
	b_n = fx_dma_alloc(s.bias_bytes);
	out_n = fx_dma_alloc(s.out_bytes);
	lower_conv_pack_bias_fp16(&op, &s, with_bias ? bias : NULL, b_n);
	op.bias_addr = with_bias ? fx_phys(b_n) : 0;
	layout_nhwc_to_nc1hwc2(NPU_PREC_FP16, x, in_n, size, size, ic, s.in_c_aligned);
	assert_int_equal(lower_conv_pack(&op, &s, w, NULL, w_n, NULL, NULL), 0);
	op.in_addr = fx_phys(in_n);
	op.weight_addr = fx_phys(w_n);
	op.out_addr = fx_phys(out_n);
	assert_int_equal(lower_conv_task_count(&op, &count), 0);
	assert_int_equal(count, want_tasks);
	fx_program_init(&f, count, CONV_TASK_MAX_ENTRIES);
	assert_int_equal(lower_conv(&f.p, &op), 0);
	fx_program_link(&f, count);
	fx_run(f.tasks, count, out_n, s.out_bytes, "fp16 conv");
	got = malloc((size_t)s.out_h * s.out_w * oc * 2);
	layout_nc1hwc2_to_nhwc(NPU_PREC_FP16, out_n, got, s.out_h, s.out_w, oc);
	for (unsigned int oy = 0; oy < s.out_h; oy++)
	for (unsigned int ox = 0; ox < s.out_w; ox++)
	for (unsigned int o = 0; o < oc; o++) {
		double want = bq[o] / 64.0, g;

		for (unsigned int ky = 0; ky < k; ky++)
		for (unsigned int kx = 0; kx < k; kx++) {
			int iy = (int)(oy * stride + ky) - (int)s.pad_top;
			int ix = (int)(ox * stride + kx) - (int)s.pad_left;

			if (iy < 0 || ix < 0 || iy >= (int)size || ix >= (int)size)
				continue;
			if (dw)
				want += xq[((size_t)iy * size + (size_t)ix) * ic + o] / 64.0 *
					(wq[((size_t)ky * k + kx) * ic + o] / 64.0);
			for (unsigned int i = 0; i < ic && !dw; i++)
				want += xq[((size_t)iy * size + (size_t)ix) * ic + i] / 64.0 *
					(wq[(((size_t)o * k + ky) * k + kx) * ic + i] / 64.0);
		}
		if (relu && want < 0)
			want = 0;
		g = ref_f16_to_f32(got[((size_t)oy * s.out_w + ox) * oc + o]);
		if (fabs(g - want) > fabs(want) / 1024.0 + 1e-7)
			fail_msg("fp16 %s conv %ux%ux%u -> %u%s: (%u,%u,%u) = %g, want %g",
				 dw ? "depthwise" : "direct", size, size, ic, oc,
				 with_bias ? " + bias" : "", oy, ox, o, g, want);
	}
	free(xq);
	free(wq);
	free(x);
	free(w);
	free(got);
	fx_program_free(&f);
}

static void conv_fp16(void **state)
{
	(void)state;
	/* the vendor's decoded shape (HARDWARE.md §4.8 B): three kernel-split tasks */
	run_case_fp16(14, 160, 320, 3, 1, false, false, 3, false, false);
	run_case_fp16(8, 20, 24, 3, 2, true, true, 1, false, false);
	run_case_fp16(3, 1, 16, 3, 1, true, false, 1, false, false);
	run_case_fp16(9, 24, 40, 5, 2, true, true, 1, false, true);
	/* depthwise: one task per 32 channels, lanes 8 / 16 / 32 (HARDWARE.md §5.4) */
	run_case_fp16(11, 3, 3, 3, 1, true, false, 1, true, false);
	run_case_fp16(16, 24, 24, 3, 1, true, true, 1, true, true);
	run_case_fp16(8, 96, 96, 3, 2, true, false, 3, true, true);
	run_case_fp16(7, 44, 44, 5, 1, true, true, 2, true, true);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(conv_fully_connected, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_pow2_scales, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_rectangular, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_dyadic_ties, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_wide_folded, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_fp16, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_cbuf_tiling, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_input_channel_split, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_grid_sampled, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_grid_levels, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(conv_grid_full, fx_setup, fx_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
