/* SPDX-License-Identifier: MIT */
/*
 * Convolution lowering: shapes and limits, weight/bias packing with the
 * zero-point algebra of HARDWARE.md §6.2, requantisation (§6.3: one OUT_CVT
 * multiplier, or per-channel multipliers in the EW stage), fused
 * activations, fp16 convolutions, and the CBUF-tiled task program
 * (lower_tile.c: rows, kernel groups, input channels).
 *
 * Signed domain: uint8 tensors are shifted by 0x80 (HARDWARE.md §6.1), so x' and
 * w' are int8 with zero points zx, zw. Per output channel o the hardware
 * computes Σ w'x' (MAC) − zw·Σ x' (CPEND, only when zw ≠ 0) over every
 * lane, padded input channels carry weight zw (they contribute nothing) and
 * padded pixels carry zx (PAD_CON1). Adding bias − zx·Σ(w' − zw) gives
 * bias + Σ(w' − zw)(x' − zx), the quantised convolution.
 */
#include <errno.h>
#include <math.h>
#include <string.h>

#include "hal.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_tile.h"

/* Field limits (npu_regs.def): DATA_SIZE0 width/height 11 bits (the TRM's
 * height width, kept here though the model reads 13 for board-run streams,
 * sim/ASSUMPTIONS.md A31), WEIGHT_SIZE2
 * kernel 5 bits, CONV_CON3 strides 3 bits, PAD_CON0 pads 4 bits, DPU channel
 * fields 13 bits. */
#define CONV_MAX_DIM		2047u
#define CONV_MAX_KERNEL		LOWER_CONV_MAX_KERNEL
#define CONV_MAX_STRIDE		7u
#define CONV_MAX_PAD		15u
#define CONV_MAX_CHANNELS	8192u
/* TFLite ReLU6 upper bound. */
#define CONV_RELU6_MAX		6.0f

static unsigned int conv_out_dim(unsigned int in, unsigned int k, unsigned int s, bool same)
{
	if (same)
		return (in + s - 1) / s;
	return in >= k ? (in - k) / s + 1 : 0;
}

/* TFLite SAME padding: total = max((out - 1)·s + k - in, 0), the smaller
 * half before. */
static void conv_pads(unsigned int in, unsigned int out, unsigned int k, unsigned int s,
		      bool same, unsigned int *before, unsigned int *after)
{
	int total = same ? (int)((out - 1) * s + k) - (int)in : 0;

	if (total < 0)
		total = 0;
	*before = (unsigned int)total / 2;
	*after = (unsigned int)total - *before;
}

/* True when the weight scales differ between channels. */
static bool conv_per_channel(const struct lower_conv_op *op)
{
	for (unsigned int i = 1; i < op->w_scale_count; i++)
		if (op->w_scale[i] != op->w_scale[0])
			return true;
	return false;
}

/*
 * Per-channel requantisation by the EW multiplier (32-bit operand): channel
 * c uses round(s_c · 2^T) with s_c = in_scale · w_scale[c] / out_scale
 * (float) and T chosen so the largest multiplier lies in [2^29, 2^30):
 * 15 bits more than the OUT_CVT normalisation of the largest scale. The
 * product's width and saturation are UNSURE (sim/ASSUMPTIONS.md A37, board
 * probes A37-ew-mul, A37-ew-sat; the rounding A12-ew-round).
 */
#define CONV_CHANNEL_EXTRA_BITS	15u

static float conv_channel_scale(const struct lower_conv_op *op, unsigned int c)
{
	return op->in_scale * op->w_scale[c] / op->out_scale;
}

/*
 * Per-channel scales that are all powers of two (`--pow2-scales`): the EW
 * stage multiplies channel c by 2^(e_c + S) exactly (truncate 0) and OUT_CVT
 * shifts right by S, rounding ties to even as ONNX does (A12: the TRM's
 * cvt_round 0), so no rounding is left to the EW truncation (round half up,
 * UNSURE). S keeps every unsaturated product below 2^31: |out| · 2^S with
 * |out| < 2^8. True with *shift = S when it applies.
 */
#define CONV_POW2_MAX_SHIFT	22u
#define CONV_POW2_MAX_EXP	30

static bool conv_pow2_channels(const struct lower_conv_op *op, unsigned int *shift)
{
	int e_min = 0, e_max = 0;

	for (unsigned int c = 0; c < op->out_c; c++) {
		int e;

		if (frexpf(conv_channel_scale(op, c), &e) != 0.5f)
			return false;
		e -= 1;		/* scale = 2^e */
		if (!c || e < e_min)
			e_min = e;
		if (!c || e > e_max)
			e_max = e;
	}
	if (e_min > 0 || -e_min > (int)CONV_POW2_MAX_SHIFT ||
	    e_max - e_min > CONV_POW2_MAX_EXP)
		return false;
	*shift = (unsigned int)-e_min;
	return true;
}

bool lower_conv_pow2_ok(const struct lower_conv_op *op)
{
	unsigned int shift;

	return op->prec == NPU_PREC_INT8 && conv_per_channel(op) && conv_pow2_channels(op, &shift);
}

static int conv_channel_shift(const struct lower_conv_op *op, unsigned int *shift)
{
	struct quant_mult m;
	float max = 0.0f;
	int ret;

	for (unsigned int c = 0; c < op->out_c; c++)
		if (conv_channel_scale(op, c) > max)
			max = conv_channel_scale(op, c);
	ret = quant_multiplier(max, &m);
	if (ret || m.shift + CONV_CHANNEL_EXTRA_BITS > QUANT_SHIFT_MAX) {
		hal_err("conv: per-channel scale %g out of range", (double)max);
		return -EINVAL;
	}
	*shift = m.shift + CONV_CHANNEL_EXTRA_BITS;
	return 0;
}

static bool zp_ok(int32_t zp, bool is_unsigned)
{
	return is_unsigned ? zp >= 0 && zp <= UINT8_MAX : zp >= INT8_MIN && zp <= INT8_MAX;
}

/* EW_CVT_SCALE_VALUE's operand shift field: 6 bits (npu_regs.def). */
#define CONV_RES_SHIFT_MAX	63
/* EW_CVT's scale is a signed 16-bit field: multipliers up to 2^15 - 1. */
#define CONV_RES_SCALE_BITS	15

/*
 * The residual's EW_CVT (int8): r' = ((r − zr) · M) >> S in units of the
 * accumulator (in_scale · w_scale), M / 2^S = res_scale / (in_scale ·
 * w_scale) with M in [2^14, 2^15).
 */
static int conv_res_cvt(const struct lower_conv_op *op, uint16_t *scale, unsigned int *shift)
{
	/* float: 24 bits, more than the 15 of the multiplier (frexpf is in the
	 * freestanding set, docs/PORTING.md) */
	float ratio = op->res_scale / (op->in_scale * op->w_scale[0]);
	int e, s;
	float f = frexpf(ratio, &e);	/* ratio = f · 2^e, f in [0.5, 1) */
	long m = (long)(f * (float)(1 << CONV_RES_SCALE_BITS) + 0.5f);

	s = CONV_RES_SCALE_BITS - e;
	if (m == 1L << CONV_RES_SCALE_BITS) {
		m >>= 1;
		s--;
	}
	if (!(ratio > 0.0f) || s < 0 || s > CONV_RES_SHIFT_MAX)
		return -ENOTSUP;
	*scale = (uint16_t)m;
	*shift = (unsigned int)s;
	return 0;
}

/* Whether a conv of shape s takes op's residual; *why says why not. */
static bool conv_residual_fits(const struct lower_conv_op *op, const struct lower_conv_shape *s,
			       const char **why)
{
	uint16_t scale;
	unsigned int shift;

	*why = NULL;
	if (op->depthwise || op->out_int32 || op->ic_segment || s->scale_bytes ||
	    s->scratch_bytes)
		*why = "the EW stage is taken: not with depthwise, an int32 output, input-"
		       "channel segments or split, or per-channel scales";
	else if (op->prec == NPU_PREC_INT8 &&
		 (!quant_scale_ok(op->res_scale) || !zp_ok(op->res_zp, op->is_unsigned)))
		*why = "its scale must be a positive normal number, its zero point in range";
	else if (op->prec == NPU_PREC_INT8 && conv_res_cvt(op, &scale, &shift))
		*why = "its scale over the accumulator's has no 16-bit multiplier and shift";
	return !*why;
}

/* The residual part of lower_conv_check (the rest already checked). */
static int conv_check_residual(const struct lower_conv_op *op, struct lower_conv_shape *s)
{
	const char *why;

	if (!op->residual)
		return 0;
	if (!conv_residual_fits(op, s, &why)) {
		hal_err("conv: residual add: %s", why);
		return -ENOTSUP;
	}
	s->res_bytes = layout_nc1hwc2_bytes(op->prec, s->out_h, s->out_w, s->out_c_aligned);
	return 0;
}

bool lower_conv_residual_ok(const struct lower_conv_op *op)
{
	struct lower_conv_op plain = *op;
	struct lower_conv_shape s;
	const char *why;

	plain.residual = false;
	return !lower_conv_check(&plain, &s) && conv_residual_fits(op, &s, &why);
}

/*
 * The fp16 part of lower_conv_check (shape already validated). fp16
 * tensors hold whole 32-channel groups in memory: a depthwise task
 * produces 32 channels (CORE DATAOUT channel 31 for fewer, allbilly/rk3588
 * conv_gemm.py), a direct one reads 32-channel weight groups.
 */
static int conv_check_fp16(const struct lower_conv_op *op, struct lower_conv_shape *s)
{
	if (op->act != LOWER_ACT_NONE && op->act != LOWER_ACT_RELU) {
		hal_err("conv: fp16 supports no activation or ReLU only");
		return -ENOTSUP;
	}
	s->in_c_aligned = (unsigned int)layout_align(op->in_c, LAYOUT_WEIGHT_IC_GROUP);
	s->out_c_aligned = (unsigned int)layout_align(op->out_c, op->depthwise ?
						      LAYOUT_DW_GROUP_FP16 :
						      LAYOUT_KERNEL_GROUP_FP16);
	s->in_bytes = layout_nc1hwc2_bytes(NPU_PREC_FP16, op->in_h, op->in_w, s->in_c_aligned);
	s->out_bytes = layout_nc1hwc2_bytes(NPU_PREC_FP16, s->out_h, s->out_w, s->out_c_aligned);
	s->weight_bytes = (size_t)s->out_c_aligned * op->kh * op->kw * 2u *
			  (op->depthwise ? 1u : s->in_c_aligned);
	/* fp32 per channel (UNSURE A28, lower_conv.h) */
	s->bias_bytes = (size_t)s->out_c_aligned * sizeof(float);
	return 0;
}

/*
 * A 1 × 1, stride-1, unpadded convolution reads each pixel alone, and an
 * NC1HWC2 map of h × w pixels is, byte for byte, one of h' × w' pixels
 * when h·w = h'·w' (the pixels of a surface are in raster order). A map
 * wider or taller than the CNA takes (CONV_MAX_DIM, e.g. a detection head's
 * 4 × 8400 anchors) is lowered as the widest such fold that fits: v is a
 * copy of op with the folded input, returned in place of op. Anything else
 * (or no fold fits) returns op itself.
 */
static const struct lower_conv_op *conv_fold(const struct lower_conv_op *op,
					     struct lower_conv_op *v)
{
	uint64_t n = (uint64_t)op->in_h * op->in_w;

	if ((op->in_h <= CONV_MAX_DIM && op->in_w <= CONV_MAX_DIM) || op->kh != 1 ||
	    op->kw != 1 || op->stride_y != 1 || op->stride_x != 1 ||
	    (op->explicit_pads && (op->pad_top || op->pad_left || op->pad_bottom ||
				   op->pad_right)))
		return op;
	for (uint64_t w = CONV_MAX_DIM; w * CONV_MAX_DIM >= n; w--)
		if (n % w == 0) {
			*v = *op;
			v->in_h = (unsigned int)(n / w);
			v->in_w = (unsigned int)w;
			return v;
		}
	return op;
}

static int conv_check_folded(const struct lower_conv_op *op, struct lower_conv_shape *s);

int lower_conv_check(const struct lower_conv_op *op, struct lower_conv_shape *s)
{
	struct lower_conv_op v;
	const struct lower_conv_op *f = conv_fold(op, &v);
	int ret = conv_check_folded(f, s);

	if (!ret && f != op) {
		/* the output as the caller's tensors have it: 1 × 1, stride 1 */
		s->out_h = op->in_h;
		s->out_w = op->in_w;
	}
	return ret;
}

/* lower_conv_check of an op as the CNA takes it (conv_fold done). */
static int conv_check_folded(const struct lower_conv_op *op, struct lower_conv_shape *s)
{
	unsigned int c_group;

	memset(s, 0, sizeof(*s));
	if (!op->in_h || !op->in_w || op->in_h > CONV_MAX_DIM || op->in_w > CONV_MAX_DIM) {
		hal_err("conv: input %ux%u outside 1..%u", op->in_h, op->in_w, CONV_MAX_DIM);
		return -EINVAL;
	}
	if (op->ic_segment && (op->kh != 1 || op->kw != 1 || op->depthwise ||
			       op->prec != NPU_PREC_INT8 || op->ic_segment % LAYOUT_WEIGHT_IC_GROUP ||
			       op->ic_segment > CONV_MAX_CHANNELS ||
			       op->in_c > CONV_MAX_SEGMENTED_CHANNELS)) {
		/* A segment's channels go to the 14-bit CNA DATAIN_CHANNEL_REAL
		 * (minus one), not to the 13-bit DPU fields: 8192 fits. */
		hal_err("conv: input-channel segments of %u need an int8 1x1 convolution of at most "
			"%u channels, segments a multiple of %u up to %u", op->ic_segment,
			CONV_MAX_SEGMENTED_CHANNELS, LAYOUT_WEIGHT_IC_GROUP, CONV_MAX_CHANNELS);
		return -EINVAL;
	}
	if (!op->in_c || !op->out_c || (op->in_c >= CONV_MAX_CHANNELS && !op->ic_segment) ||
	    op->out_c >= CONV_MAX_CHANNELS) {
		hal_err("conv: channels %u -> %u outside 1..%u", op->in_c, op->out_c,
			CONV_MAX_CHANNELS - 1);
		return -EINVAL;
	}
	if (op->depthwise && op->out_c != op->in_c) {
		hal_err("conv: depthwise needs out_c = in_c (multiplier 1), got %u -> %u",
			op->in_c, op->out_c);
		return -ENOTSUP;
	}
	if (!op->kh || !op->kw || op->kh > CONV_MAX_KERNEL || op->kw > CONV_MAX_KERNEL) {
		hal_err("conv: kernel %ux%u outside 1..%u", op->kh, op->kw, CONV_MAX_KERNEL);
		return -EINVAL;
	}
	if (!op->stride_y || !op->stride_x || op->stride_y > CONV_MAX_STRIDE ||
	    op->stride_x > CONV_MAX_STRIDE) {
		hal_err("conv: stride %ux%u outside 1..%u", op->stride_y, op->stride_x,
			CONV_MAX_STRIDE);
		return -EINVAL;
	}
	if (op->explicit_pads) {
		if (op->pad_top > CONV_MAX_PAD || op->pad_left > CONV_MAX_PAD ||
		    op->pad_bottom > CONV_MAX_PAD || op->pad_right > CONV_MAX_PAD) {
			hal_err("conv: padding %u/%u/%u/%u above %u", op->pad_top, op->pad_left,
				op->pad_bottom, op->pad_right, CONV_MAX_PAD);
			return -ENOTSUP;
		}
		s->out_h = conv_out_dim(op->in_h + op->pad_top + op->pad_bottom, op->kh,
					op->stride_y, false);
		s->out_w = conv_out_dim(op->in_w + op->pad_left + op->pad_right, op->kw,
					op->stride_x, false);
		s->pad_top = op->pad_top;
		s->pad_left = op->pad_left;
		s->pad_bottom = op->pad_bottom;
		s->pad_right = op->pad_right;
	} else {
		s->out_h = conv_out_dim(op->in_h, op->kh, op->stride_y, op->same_padding);
		s->out_w = conv_out_dim(op->in_w, op->kw, op->stride_x, op->same_padding);
		conv_pads(op->in_h, s->out_h, op->kh, op->stride_y, op->same_padding,
			  &s->pad_top, &s->pad_bottom);
		conv_pads(op->in_w, s->out_w, op->kw, op->stride_x, op->same_padding,
			  &s->pad_left, &s->pad_right);
	}
	if (!s->out_h || !s->out_w) {
		hal_err("conv: %ux%u kernel larger than the padded %ux%u input", op->kh, op->kw,
			op->in_h, op->in_w);
		return -EINVAL;
	}
	if (s->pad_top > CONV_MAX_PAD || s->pad_left > CONV_MAX_PAD) {
		hal_err("conv: padding %u/%u above %u", s->pad_top, s->pad_left, CONV_MAX_PAD);
		return -ENOTSUP;
	}
	if (op->prec == NPU_PREC_FP16) {
		int ret = conv_check_fp16(op, s);

		return ret ? ret : conv_check_residual(op, s);
	}
	if (op->prec != NPU_PREC_INT8) {
		hal_err("conv: precision %d (int8 or fp16 only)", op->prec);
		return -ENOTSUP;
	}
	if (!zp_ok(op->in_zp, op->is_unsigned) || !zp_ok(op->w_zp, op->is_unsigned) ||
	    !zp_ok(op->out_zp, op->is_unsigned)) {
		hal_err("conv: zero points %d/%d/%d outside the %s range", op->in_zp, op->w_zp,
			op->out_zp, op->is_unsigned ? "uint8" : "int8");
		return -EINVAL;
	}
	if (!quant_scale_ok(op->in_scale) || !quant_scale_ok(op->out_scale) || !op->w_scale ||
	    (op->w_scale_count != 1 && op->w_scale_count != op->out_c)) {
		hal_err("conv: scales must be positive normal numbers (in %g, out %g) with 1 or "
			"out_c (%u) weight scales, got %u", (double)op->in_scale,
			(double)op->out_scale, op->out_c, op->w_scale_count);
		return -EINVAL;
	}
	for (unsigned int i = 0; i < op->w_scale_count; i++)
		if (!quant_scale_ok(op->w_scale[i])) {
			hal_err("conv: weight scale %u (%g) is not a positive normal number", i,
				(double)op->w_scale[i]);
			return -EINVAL;
		}
	c_group = op->depthwise ? LAYOUT_DW_GROUP_INT8 : LAYOUT_WEIGHT_IC_GROUP;
	s->in_c_aligned = (unsigned int)layout_align(op->in_c, c_group);
	s->out_c_aligned = (unsigned int)layout_align(op->out_c, op->depthwise ?
						      LAYOUT_DW_GROUP_INT8 :
						      LAYOUT_KERNEL_GROUP_INT8);
	if (op->out_int32 && (op->depthwise || op->act != LOWER_ACT_NONE || op->ic_segment ||
			      conv_per_channel(op))) {
		hal_err("conv: int32 output: no depthwise, activation, segments or per-channel "
			"scales");
		return -ENOTSUP;
	}
	s->in_bytes = layout_nc1hwc2_bytes(NPU_PREC_INT8, op->in_h, op->in_w, s->in_c_aligned);
	s->out_bytes = layout_nc1hwc2_bytes(op->out_int32 ? NPU_PREC_INT32 : NPU_PREC_INT8,
					    s->out_h, s->out_w, s->out_c_aligned);
	s->weight_bytes = op->depthwise ? (size_t)op->kh * op->kw * s->in_c_aligned :
			  (size_t)s->out_c_aligned * op->kh * op->kw * s->in_c_aligned;
	s->bias_bytes = (size_t)s->out_c_aligned * sizeof(int32_t);
	s->scale_bytes = conv_per_channel(op) ? s->bias_bytes : 0;
	if (op->pow2_requant && !lower_conv_pow2_ok(op)) {
		hal_err("conv: power-of-two requantisation asked for scales that are not all "
			"powers of two (or one per tensor)");
		return -EINVAL;
	}
	if ((op->ic_segment && s->in_c_aligned > op->ic_segment) ||
	    (!op->depthwise && lower_tile_needs_ic_split(op->in_w, op->kh, op->kw, s->in_c_aligned)))
		s->scratch_bytes = 2 * layout_nc1hwc2_bytes(NPU_PREC_INT32, s->out_h, s->out_w,
							    s->out_c_aligned);
	return conv_check_residual(op, s);
}

int lower_conv_pack(const struct lower_conv_op *op, const struct lower_conv_shape *s,
		    const void *weights, const int32_t *bias, void *weight_out, int32_t *bias_out,
		    int32_t *scale_out)
{
	const uint8_t *raw = weights;
	int8_t *w = weight_out;
	unsigned int taps = op->kh * op->kw;
	int32_t zx = quant_signed_zp(op->in_zp, op->is_unsigned);
	/* The layout moves bytes; the uint8 → int8 shift is one bit flip applied
	 * afterwards to everything, padding included (HARDWARE.md §6.1). */
	int8_t pad = (int8_t)(uint8_t)op->w_zp;
	unsigned int shift2;
	size_t n;

	if (op->ic_segment) {
		hal_err("conv: segmented weights are packed by their producer (matmul)");
		return -EINVAL;
	}
	if (op->prec == NPU_PREC_FP16) {
		n = op->depthwise ?
		    layout_weights_dw_fp16(weights, weight_out, op->kh, op->kw, op->in_c) :
		    layout_weights_fp16(weights, weight_out, op->out_c, op->kh, op->kw, op->in_c,
					s->out_c_aligned, s->in_c_aligned);
		return n == s->weight_bytes ? 0 : -EINVAL;
	}
	if (op->depthwise)
		n = layout_weights_dw_int8(weights, w, op->kh, op->kw, op->in_c, s->in_c_aligned, pad);
	else
		n = layout_weights_int8(weights, w, op->out_c, op->kh, op->kw, op->in_c,
					s->out_c_aligned, s->in_c_aligned, pad);
	if (n != s->weight_bytes) {
		hal_err("conv: weight packing produced %zu bytes, expected %zu", n, s->weight_bytes);
		return -EINVAL;
	}
	if (op->is_unsigned)
		layout_u8_to_s8((const uint8_t *)w, w, n);

	for (unsigned int o = 0; o < s->out_c_aligned; o++) {
		int64_t sum = 0, b;

		if (o >= op->out_c) {
			bias_out[o] = 0;
			continue;
		}
		/* Σ (w − zw) over the kernel's real taps: the same in the
		 * unsigned and the shifted domain. */
		for (unsigned int t = 0; t < taps; t++) {
			if (op->depthwise) {
				sum += op->is_unsigned ? (int32_t)raw[(size_t)t * op->in_c + o]
						       : (int8_t)raw[(size_t)t * op->in_c + o];
				sum -= op->w_zp;
				continue;
			}
			for (unsigned int i = 0; i < op->in_c; i++) {
				size_t idx = ((size_t)o * taps + t) * op->in_c + i;

				sum += (op->is_unsigned ? (int32_t)raw[idx] : (int8_t)raw[idx]) -
				       op->w_zp;
			}
		}
		b = (bias ? bias[o] : 0) - (int64_t)zx * sum;
		if (b < INT32_MIN || b > INT32_MAX) {
			hal_err("conv: corrected bias of channel %u (%lld) overflows int32", o,
				(long long)b);
			return -ERANGE;
		}
		bias_out[o] = (int32_t)b;
	}
	if (s->scale_bytes && op->pow2_requant && conv_pow2_channels(op, &shift2)) {
		if (!scale_out)
			return -EINVAL;
		for (unsigned int o = 0; o < s->out_c_aligned; o++) {
			int e = 0;

			/* scale = 2^(e - 1): the multiplier 2^(e - 1 + shift) */
			if (o < op->out_c)
				(void)frexpf(conv_channel_scale(op, o), &e);
			scale_out[o] = o < op->out_c ? (int32_t)1 << (e - 1 + (int)shift2) : 0;
		}
	} else if (s->scale_bytes) {
		unsigned int shift;
		/* 2^shift as a double: exact for shift <= QUANT_SHIFT_MAX. */
		double one;

		if (!scale_out || conv_channel_shift(op, &shift))
			return -EINVAL;
		one = (double)(1ull << shift);
		for (unsigned int o = 0; o < s->out_c_aligned; o++)
			scale_out[o] = o < op->out_c ?
				(int32_t)((double)conv_channel_scale(op, o) * one + 0.5) : 0;
	}
	return 0;
}

/* Largest accumulator the requantisation maps to at most `hi`. */
static int64_t requant_ceiling(const struct quant_mult *m, int32_t offset, int32_t hi)
{
	int64_t lo_acc = 0, hi_acc = INT32_MAX;

	while (lo_acc < hi_acc) {
		int64_t mid = lo_acc + (hi_acc - lo_acc + 1) / 2;

		if (quant_requant(mid, m, offset) <= hi)
			lo_acc = mid;
		else
			hi_acc = mid - 1;
	}
	return lo_acc;
}

/* Fused activation as BS-stage clamps on the accumulator: ReLU at 0 (= the
 * output zero point after requantisation) and ReLUX at the largest
 * accumulator that still requantises to the upper bound. */
static int conv_activation(const struct lower_conv_op *op, struct conv_task *t)
{
	int32_t zo = t->out_offset;
	int32_t hi = INT8_MAX, lo = zo;

	switch (op->act) {
	case LOWER_ACT_NONE:
		return 0;
	case LOWER_ACT_RELU:
		break;
	case LOWER_ACT_RELU6:
		hi = quant_bound(zo, CONV_RELU6_MAX, op->out_scale);
		break;
	case LOWER_ACT_CLIP:
		if (!isfinite(op->act_min) || !isfinite(op->act_max)) {
			hal_err("conv: clip bounds %g, %g are not finite", (double)op->act_min,
				(double)op->act_max);
			return -EINVAL;
		}
		lo = quant_bound(zo, op->act_min, op->out_scale);
		hi = quant_bound(zo, op->act_max, op->out_scale);
		break;
	}
	if (lo != zo && lo > INT8_MIN) {
		hal_err("conv: activation lower bound %g is neither 0 nor below the output range",
			(double)op->act_min);
		return -ENOTSUP;
	}
	if (hi < lo) {
		hal_err("conv: activation range is empty");
		return -EINVAL;
	}
	t->relu = lo == zo;
	if (t->scale_addr) {
		/* EW clamps act on the rescaled value, before the offset. */
		if (!t->relu && lo > INT8_MIN) {
			hal_err("conv: activation lower bound must be 0");
			return -ENOTSUP;
		}
		t->relux = hi < INT8_MAX;
		t->relux_max = hi - zo;
		return 0;
	}
	if (hi < INT8_MAX) {
		if (!t->relu) {
			hal_err("conv: an upper activation bound needs the lower bound at 0");
			return -ENOTSUP;
		}
		t->relux_max = (int32_t)requant_ceiling(&t->out_mult, zo, hi);
		if (quant_requant(t->relux_max, &t->out_mult, zo) != hi) {
			hal_err("conv: activation bound %d is skipped by the output scale", hi);
			return -ENOTSUP;
		}
		t->relux = true;
	}
	return 0;
}

void lower_conv_pack_bias_fp16(const struct lower_conv_op *op, const struct lower_conv_shape *s,
				const float *bias, float *bias_out)
{
	for (unsigned int o = 0; o < s->out_c_aligned; o++)
		bias_out[o] = o < op->out_c && bias ? bias[o] : 0.0f;
}

/* Fields shared by the int8 and fp16 whole-op tasks. */
static void conv_task_shape(const struct lower_conv_op *op, const struct lower_conv_shape *s,
			    struct conv_task *t)
{
	memset(t, 0, sizeof(*t));
	t->depthwise = op->depthwise;
	t->in_addr = op->in_addr;
	t->in_w = op->in_w;
	t->in_h_full = t->in_rows = op->in_h;
	t->in_c = op->in_c;
	t->in_c_aligned = s->in_c_aligned;
	t->kw = op->kw;
	t->kh = op->kh;
	t->stride_x = op->stride_x;
	t->stride_y = op->stride_y;
	t->pad_left = s->pad_left;
	t->pad_top = s->pad_top;
	t->weight_addr = op->weight_addr;
	t->kernels = op->depthwise ? 1 : s->out_c_aligned;
	t->weight_bytes = (uint32_t)s->weight_bytes;
	t->out_addr = op->out_addr;
	t->out_w = s->out_w;
	t->out_rows = t->out_h_full = s->out_h;
	t->out_c = op->out_c;
	t->out_c_aligned = s->out_c_aligned;
	t->min_tasks = op->min_tasks;
}

/* fp16: fp32 accumulation, fp16 out (vendor fp16 conv, HARDWARE.md §4.8 B:
 * MISC_CFG 0x200, OUT_CVT_SCALE 0x10001), padding 0.0; the bias, when
 * given, added in the BS stage from BRDMA as fp32 (UNSURE A28). */
static int conv_full_task_fp16(const struct lower_conv_op *op, const struct lower_conv_shape *s,
			       struct conv_task *t)
{
	if ((op->in_addr | op->weight_addr | op->out_addr | op->bias_addr) % NPU_ATOM_BYTES) {
		hal_err("conv: fp16 buffers must be %u-byte aligned", NPU_ATOM_BYTES);
		return -EINVAL;
	}
	if (rc_check_extent("conv", "input", op->in_addr, s->in_bytes) ||
	    rc_check_extent("conv", "weight", op->weight_addr, s->weight_bytes) ||
	    (op->bias_addr && rc_check_extent("conv", "bias", op->bias_addr, s->bias_bytes)) ||
	    rc_check_extent("conv", "output", op->out_addr, s->out_bytes))
		return -ERANGE;
	conv_task_shape(op, s, t);
	t->in_prec = NPU_PREC_FP16;
	t->out_prec = NPU_PREC_FP16;
	t->weight_bytes_per_kernel = op->kh * op->kw * s->in_c_aligned * 2u;
	t->bias_addr = op->bias_addr;
	t->relu = op->act == LOWER_ACT_RELU;
	t->out_mult = (struct quant_mult){ .multiplier = 1, .shift = 0 };
	if (op->residual) {
		if (op->res_addr % NPU_ATOM_BYTES ||
		    rc_check_extent("conv", "residual", op->res_addr, s->res_bytes))
			return -ERANGE;
		t->res_addr = op->res_addr;
	}
	return 0;
}

/*
 * Group k of a depthwise fp16 op as a task over its (at most 32) channels:
 * 32 channels are four surfaces of input and output, one weight block and
 * 32 bias values further on.
 */
static void conv_dw_fp16_group(const struct conv_task *full, unsigned int k,
			       struct conv_task *t)
{
	const unsigned int g = LAYOUT_DW_GROUP_FP16, c2 = layout_c2(NPU_PREC_FP16);
	unsigned int first = k * g, n = full->in_c - first < g ? full->in_c - first : g;
	unsigned int lanes = layout_dw_lanes_fp16(n);

	*t = *full;
	t->in_addr += (uint32_t)(first / c2 * full->in_w * full->in_h_full * NPU_ATOM_BYTES);
	t->out_addr += (uint32_t)(first / c2 * full->out_w * full->out_h_full * NPU_ATOM_BYTES);
	t->weight_addr += (uint32_t)k * full->kh * full->kw * g * 2u;
	if (t->bias_addr)
		t->bias_addr += first * (uint32_t)sizeof(float);
	t->in_c = t->out_c = n;
	t->in_c_aligned = lanes;
	t->out_c_aligned = g;
	t->weight_bytes = t->weight_bytes_per_kernel = full->kh * full->kw * lanes * 2u;
}

static unsigned int conv_dw_fp16_groups(const struct conv_task *full)
{
	if (full->in_prec != NPU_PREC_FP16 || !full->depthwise)
		return 0;
	return (full->in_c + LAYOUT_DW_GROUP_FP16 - 1u) / LAYOUT_DW_GROUP_FP16;
}

/* The whole-op task (before tiling). */
static int conv_full_task(const struct lower_conv_op *op, struct conv_task *t)
{
	struct lower_conv_op folded;
	struct lower_conv_shape s;
	int ret;

	op = conv_fold(op, &folded);
	ret = conv_check_folded(op, &s);
	unsigned int pow2_shift;
	float scale;

	if (ret)
		return ret;
	if (op->prec == NPU_PREC_FP16)
		return conv_full_task_fp16(op, &s, t);
	if ((op->in_addr | op->weight_addr | op->bias_addr | op->out_addr) % NPU_ATOM_BYTES ||
	    !op->bias_addr) {
		hal_err("conv: buffer addresses must be %u-byte aligned and the bias non-zero",
			NPU_ATOM_BYTES);
		return -EINVAL;
	}
	if (rc_check_extent("conv", "input", op->in_addr, s.in_bytes) ||
	    rc_check_extent("conv", "weight", op->weight_addr, s.weight_bytes) ||
	    rc_check_extent("conv", "bias", op->bias_addr, s.bias_bytes) ||
	    rc_check_extent("conv", "output", op->out_addr, s.out_bytes) ||
	    (s.scale_bytes && rc_check_extent("conv", "multiplier", op->scale_addr,
					      s.scale_bytes)) ||
	    (s.scratch_bytes && rc_check_extent("conv", "scratch", op->scratch_addr,
						s.scratch_bytes)))
		return -ERANGE;
	conv_task_shape(op, &s, t);
	t->in_prec = NPU_PREC_INT8;
	t->out_prec = NPU_PREC_INT8;
	t->pad_value = quant_signed_zp(op->in_zp, op->is_unsigned);
	t->weight_bytes_per_kernel = op->kh * op->kw * s.in_c_aligned;
	t->bias_addr = op->bias_addr;
	if (s.scratch_bytes) {
		if (!op->scratch_addr || op->scratch_addr % NPU_ATOM_BYTES) {
			hal_err("conv: a %ux%ux%u kernel group does not fit the CBUF: the input-"
				"channel split needs a %zu-byte scratch buffer (scratch_addr)",
				op->kh, op->kw, s.in_c_aligned, s.scratch_bytes);
			return -EINVAL;
		}
		t->scratch_addr = op->scratch_addr;
	}
	t->ic_segment = op->ic_segment;
	/* The CPEND term (qd_en + BS_OW_OP = 0x80 − wzp, Mesa) is needed only
	 * for a non-zero weight zero point; its exact semantics are UNSURE
	 * (HARDWARE.md §6.2), so symmetric weights never depend on it. */
	t->ow_op = -quant_signed_zp(op->w_zp, op->is_unsigned);
	t->qd_en = t->ow_op != 0;
	if (op->out_int32) {
		/* the sums as they are: OUT_CVT the identity */
		t->out_prec = NPU_PREC_INT32;
		t->out_mult = (struct quant_mult){ .multiplier = 1, .shift = 0 };
		return 0;
	}
	t->out_offset = quant_signed_zp(op->out_zp, op->is_unsigned);
	if (s.scale_bytes) {
		if (!op->scale_addr || op->scale_addr % NPU_ATOM_BYTES) {
			hal_err("conv: per-channel scales need a %u-byte aligned multiplier buffer",
				NPU_ATOM_BYTES);
			return -EINVAL;
		}
		t->scale_addr = op->scale_addr;
		if (op->pow2_requant && conv_pow2_channels(op, &pow2_shift)) {
			/* exact multiplies; OUT_CVT rounds (and the clamps scale up) */
			t->scale_shift = 0;
			t->out_mult = (struct quant_mult){ .multiplier = 1, .shift = pow2_shift };
			ret = conv_activation(op, t);
			t->relux_max = (int32_t)((int64_t)t->relux_max << pow2_shift);
			return ret;
		}
		ret = conv_channel_shift(op, &t->scale_shift);
		if (ret)
			return ret;
		t->out_mult = (struct quant_mult){ .multiplier = 1, .shift = 0 };
		return conv_activation(op, t);
	}
	if (op->residual) {
		if (op->res_addr % NPU_ATOM_BYTES ||
		    rc_check_extent("conv", "residual", op->res_addr, s.res_bytes))
			return -ERANGE;
		t->res_addr = op->res_addr;
		t->res_offset = -quant_signed_zp(op->res_zp, op->is_unsigned);
		ret = conv_res_cvt(op, &t->res_scale, &t->res_shift);
		if (ret)
			return ret;
	}
	scale = conv_channel_scale(op, 0);
	ret = quant_multiplier(scale, &t->out_mult);
	if (ret) {
		hal_err("conv: requantisation scale %g has no multiplier/shift", (double)scale);
		return ret;
	}
	return conv_activation(op, t);
}

int lower_conv_task_count(const struct lower_conv_op *op, size_t *count)
{
	struct conv_task full, t;
	unsigned int groups;
	size_t n;
	int ret = conv_full_task(op, &full);

	if (ret)
		return ret;
	groups = conv_dw_fp16_groups(&full);
	if (!groups)
		return lower_tile_count(&full, count);
	*count = 0;
	for (unsigned int k = 0; k < groups; k++) {
		conv_dw_fp16_group(&full, k, &t);
		ret = lower_tile_count(&t, &n);
		if (ret)
			return ret;
		*count += n;
	}
	return 0;
}

int lower_conv_task(const struct lower_conv_op *op, struct conv_task *t)
{
	struct conv_task full;
	unsigned int groups;
	int ret = conv_full_task(op, &full);

	if (ret)
		return ret;
	groups = conv_dw_fp16_groups(&full);
	if (groups > 1u) {
		hal_err("conv: fp16 depthwise over %u channels is %u tasks, not one", full.in_c,
			groups);
		return -ENOTSUP;
	}
	if (groups)
		conv_dw_fp16_group(&full, 0, t);
	else
		*t = full;
	return 0;
}

int lower_conv(struct rc_program *p, const struct lower_conv_op *op)
{
	struct conv_task full, t;
	unsigned int groups;
	int ret = conv_full_task(op, &full);

	if (ret)
		return ret;
	groups = conv_dw_fp16_groups(&full);
	if (!groups)
		return lower_tile(p, &full);
	for (unsigned int k = 0; !ret && k < groups; k++) {
		conv_dw_fp16_group(&full, k, &t);
		ret = lower_tile(p, &t);
	}
	return ret;
}
