// SPDX-License-Identifier: MIT
/*
 * The built-in CPU ops that move or resample pixels (cpu_ops.h): Resize,
 * DepthToSpace / SpaceToDepth, Slice and Pad, on the NC1HWC2 maps in the
 * arena. Their geometry comes from the container, computed once by the
 * compiler (Resize's source indices and weights, Slice's starts and steps,
 * Pad's extents), so a run only copies, and where the two quantisations
 * differ requantises (dequantise, then quantise as QuantizeLinear does).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/cpu_ops.h"
#include "runtime/cpu_spatial.h"

/* Bytes of one NC1HWC2 atom: 16 int8 or 8 fp16 channels. */
#define ATOM_BYTES	16u

static bool is_fp16(const struct rkb_cpu_tensor *t)
{
	return t->dtype == RKB_CPU_FP16;
}

/* Bytes of one element of t. */
static unsigned int ebytes(const struct rkb_cpu_tensor *t)
{
	return is_fp16(t) ? 2u : 1u;
}

/* The element of channel ch at (y, x). */
static uint8_t *elem(const struct rkb_cpu_tensor *t, unsigned int ch, unsigned int y,
		     unsigned int x)
{
	unsigned int es = ebytes(t), c2 = ATOM_BYTES / es;

	return (uint8_t *)t->data +
	       (((size_t)(ch / c2) * t->h + y) * t->w + x) * ATOM_BYTES + (ch % c2) * es;
}

static float load(const struct rkb_cpu_tensor *t, const uint8_t *p)
{
	uint16_t h;

	if (!is_fp16(t))
		return t->scale * (float)((int8_t)*p - t->zp);
	memcpy(&h, p, sizeof(h));
	return layout_f16_to_f32(h);
}

/* real → element, as QuantizeLinear (round half to even, saturate) or fp16. */
static void store(const struct rkb_cpu_tensor *t, uint8_t *p, float v)
{
	uint16_t h;
	float q;
	long r;

	if (is_fp16(t)) {
		h = layout_f32_to_f16(v);
		memcpy(p, &h, sizeof(h));
		return;
	}
	q = v / t->scale;
	if (!(q == q)) {
		*p = (uint8_t)(int8_t)t->zp;
		return;
	}
	/* far outside int8 whatever the zero point, and inside long */
	q = q < (float)INT16_MIN ? (float)INT16_MIN : q > (float)INT16_MAX ? (float)INT16_MAX : q;
	r = lrintf(q) + t->zp;
	*p = (uint8_t)(int8_t)(r > INT8_MAX ? INT8_MAX : r < INT8_MIN ? INT8_MIN : r);
}

/* Do input and output hold the same values for the same bytes? */
static bool same_values(const struct rkb_cpu_call *call)
{
	return is_fp16(&call->in) ||
	       (call->in.scale == call->out.scale && call->in.zp == call->out.zp);
}

/* Output element (c, y, x) from input element (ic, iy, ix). */
static void move(const struct rkb_cpu_call *call, bool same, unsigned int c, unsigned int y,
		 unsigned int x, unsigned int ic, unsigned int iy, unsigned int ix)
{
	const uint8_t *src = elem(&call->in, ic, iy, ix);
	uint8_t *dst = elem(&call->out, c, y, x);

	if (same)
		memcpy(dst, src, ebytes(&call->out));
	else
		store(&call->out, dst, load(&call->in, src));
}

static int params_are(const struct rkb_cpu_call *call, size_t words, char *err, size_t err_len)
{
	if (call->params_bytes == words * sizeof(int32_t) && (words == 0 || call->params))
		return 0;
	snprintf(err, err_len, "%zu parameter bytes, %zu expected", call->params_bytes,
		 words * sizeof(int32_t));
	return -1;
}

static int32_t param(const struct rkb_cpu_call *call, size_t i)
{
	int32_t v;

	memcpy(&v, (const uint8_t *)call->params + i * sizeof(v), sizeof(v));
	return v;
}

static float param_f(const struct rkb_cpu_call *call, size_t i)
{
	float v;

	memcpy(&v, (const uint8_t *)call->params + i * sizeof(v), sizeof(v));
	return v;
}

/* Every op here reads one input of the output's element type. */
static int one_input(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	if (call->in2.c) {
		snprintf(err, err_len, "a second input for an op that takes one");
		return -1;
	}
	if (is_fp16(&call->in) != is_fp16(&call->out)) {
		snprintf(err, err_len, "input and output differ in element type");
		return -1;
	}
	return 0;
}

/* ---- Resize ---- */

/* Words of a Resize's parameters for an oh × ow output. */
static size_t resize_words(int32_t mode, unsigned int oh, unsigned int ow)
{
	return RKB_CPU_RESIZE_HEADER + rkb_cpu_resize_entry_words(mode) * ((size_t)oh + ow);
}

/* The index tables of one axis (n output indices from `in` at word `at`)
 * are in range, the weights finite (linear: within 0..1). */
static bool resize_axis_ok(const struct rkb_cpu_call *call, size_t at, unsigned int n,
			   unsigned int in, int32_t mode)
{
	unsigned int taps = mode == RKB_CPU_RESIZE_NEAREST ? 1u :
			    mode == RKB_CPU_RESIZE_LINEAR ? 2u : RKB_CPU_RESIZE_TAPS;

	for (unsigned int i = 0; i < n; i++) {
		for (unsigned int k = 0; k < taps; k++) {
			int32_t src = param(call, at + (size_t)k * n + i);

			if (src < 0 || (unsigned int)src >= in)
				return false;
		}
		if (mode == RKB_CPU_RESIZE_LINEAR) {
			float f = param_f(call, at + 2 * (size_t)n + i);

			if (!(f >= 0.0f && f <= 1.0f))
				return false;
		}
		for (unsigned int k = 0; mode == RKB_CPU_RESIZE_CUBIC && k < taps; k++)
			if (!isfinite(param_f(call, at + (size_t)(taps + k) * n + i)))
				return false;
	}
	return true;
}

static int check_resize(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;
	int32_t mode;

	if (one_input(call, err, err_len))
		return -1;
	if (call->params_bytes < RKB_CPU_RESIZE_HEADER * sizeof(int32_t) || !call->params) {
		snprintf(err, err_len, "%zu parameter bytes, no header", call->params_bytes);
		return -1;
	}
	mode = param(call, 0);
	if (mode != RKB_CPU_RESIZE_NEAREST && mode != RKB_CPU_RESIZE_LINEAR &&
	    mode != RKB_CPU_RESIZE_CUBIC) {
		snprintf(err, err_len, "mode %d (0 nearest, 1 linear, 2 cubic)", (int)mode);
		return -1;
	}
	if (i->c != o->c) {
		snprintf(err, err_len, "%u channels to %u", i->c, o->c);
		return -1;
	}
	if (params_are(call, resize_words(mode, o->h, o->w), err, err_len))
		return -1;
	if (!resize_axis_ok(call, RKB_CPU_RESIZE_HEADER, o->h, i->h, mode) ||
	    !resize_axis_ok(call,
			    RKB_CPU_RESIZE_HEADER + rkb_cpu_resize_entry_words(mode) * o->h,
			    o->w, i->w, mode)) {
		snprintf(err, err_len, "a source index outside the %ux%u input or a weight "
			 "outside 0..1 (linear) or not finite (cubic)", i->h, i->w);
		return -1;
	}
	return 0;
}

/* Cubic: the sum of the 4 × 4 taps' values each times its row's and its
 * column's weight (the separable cubic convolution). */
static void resize_cubic(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	const size_t rows = RKB_CPU_RESIZE_HEADER;
	const size_t cols = rows + 2u * RKB_CPU_RESIZE_TAPS * out->h;

	for (unsigned int c = 0; c < out->c; c++)
		for (unsigned int y = 0; y < out->h; y++)
			for (unsigned int x = 0; x < out->w; x++) {
				float v = 0.0f;

				for (unsigned int i = 0; i < RKB_CPU_RESIZE_TAPS; i++) {
					unsigned int sy = (unsigned int)param(call, rows + i * out->h + y);
					float wy = param_f(call, rows + (RKB_CPU_RESIZE_TAPS + i) *
									    out->h + y);

					for (unsigned int j = 0; j < RKB_CPU_RESIZE_TAPS; j++) {
						unsigned int sx = (unsigned int)param(call,
										cols + j * out->w + x);
						float wx = param_f(call, cols + (RKB_CPU_RESIZE_TAPS + j) *
										    out->w + x);

						v += wy * wx * load(in, elem(in, c, sy, sx));
					}
				}
				store(out, elem(out, c, y, x), v);
			}
}

static int run_resize(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	bool same = same_values(call);
	size_t rows = RKB_CPU_RESIZE_HEADER;

	if (param(call, 0) == RKB_CPU_RESIZE_CUBIC) {
		resize_cubic(call);
		return 0;
	}
	if (param(call, 0) == RKB_CPU_RESIZE_NEAREST) {
		size_t cols = rows + out->h;

		for (unsigned int c = 0; c < out->c; c++)
			for (unsigned int y = 0; y < out->h; y++)
				for (unsigned int x = 0; x < out->w; x++)
					move(call, same, c, y, x, c, (unsigned int)param(call, rows + y),
					     (unsigned int)param(call, cols + x));
		return 0;
	}
	for (unsigned int c = 0; c < out->c; c++)
		for (unsigned int y = 0; y < out->h; y++) {
			unsigned int y0 = (unsigned int)param(call, rows + y);
			unsigned int y1 = (unsigned int)param(call, rows + out->h + y);
			float fy = param_f(call, rows + 2 * (size_t)out->h + y);
			size_t cols = rows + 3 * (size_t)out->h;

			for (unsigned int x = 0; x < out->w; x++) {
				unsigned int x0 = (unsigned int)param(call, cols + x);
				unsigned int x1 = (unsigned int)param(call, cols + out->w + x);
				float fx = param_f(call, cols + 2 * (size_t)out->w + x);
				/* onnxruntime's bilinear form: the four corner weights */
				float v = (1.0f - fy) * (1.0f - fx) * load(in, elem(in, c, y0, x0)) +
					  (1.0f - fy) * fx * load(in, elem(in, c, y0, x1)) +
					  fy * (1.0f - fx) * load(in, elem(in, c, y1, x0)) +
					  fy * fx * load(in, elem(in, c, y1, x1));

				store(out, elem(out, c, y, x), v);
			}
		}
	return 0;
}

/* ---- DepthToSpace, SpaceToDepth ---- */

static int check_d2s(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;
	int32_t b, mode;
	bool d2s;

	if (one_input(call, err, err_len) || params_are(call, 2, err, err_len))
		return -1;
	b = param(call, 0);
	mode = param(call, 1);
	d2s = mode != RKB_CPU_S2D;
	if (b < 1 || mode < RKB_CPU_D2S_DCR || mode > RKB_CPU_S2D ||
	    (d2s ? (i->c != o->c * (unsigned int)(b * b) || o->h != i->h * (unsigned int)b ||
		    o->w != i->w * (unsigned int)b)
		 : (o->c != i->c * (unsigned int)(b * b) || i->h != o->h * (unsigned int)b ||
		    i->w != o->w * (unsigned int)b))) {
		snprintf(err, err_len, "block %d mode %d does not take %ux%ux%u to %ux%ux%u",
			 (int)b, (int)mode, i->c, i->h, i->w, o->c, o->h, o->w);
		return -1;
	}
	return 0;
}

/* The deep map's channel of the wide map's channel c at block offset (i, j). */
static unsigned int deep_channel(int32_t mode, unsigned int b, unsigned int wide_c,
				 unsigned int c, unsigned int i, unsigned int j)
{
	return mode == RKB_CPU_D2S_CRD ? (c * b + i) * b + j : (i * b + j) * wide_c + c;
}

static int run_d2s(const struct rkb_cpu_call *call)
{
	unsigned int b = (unsigned int)param(call, 0);
	int32_t mode = param(call, 1);
	bool same = same_values(call), d2s = mode != RKB_CPU_S2D;
	const struct rkb_cpu_tensor *wide = d2s ? &call->out : &call->in;

	for (unsigned int c = 0; c < wide->c; c++)
		for (unsigned int y = 0; y < wide->h; y++)
			for (unsigned int x = 0; x < wide->w; x++) {
				unsigned int dc = deep_channel(mode, b, wide->c, c, y % b, x % b);

				if (d2s)
					move(call, same, c, y, x, dc, y / b, x / b);
				else
					move(call, same, dc, y / b, x / b, c, y, x);
			}
	return 0;
}

/* ---- Slice ---- */

/* Does start + k·step stay inside 0..in-1 for k < n? */
static bool strided_inside(int32_t start, int32_t step, unsigned int n, unsigned int in)
{
	int64_t last = (int64_t)start + (int64_t)step * ((int64_t)n - 1);

	return step && start >= 0 && (uint64_t)start < in && last >= 0 && (uint64_t)last < in;
}

static int check_slice(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const unsigned int in[3] = { call->in.c, call->in.h, call->in.w };
	const unsigned int out[3] = { call->out.c, call->out.h, call->out.w };

	if (one_input(call, err, err_len) || params_are(call, 6, err, err_len))
		return -1;
	for (int a = 0; a < 3; a++)
		if (!strided_inside(param(call, 2 * (size_t)a), param(call, 2 * (size_t)a + 1),
				    out[a], in[a])) {
			snprintf(err, err_len, "axis %d: %u elements from %d in steps of %d leave "
				 "the input's %u", a, out[a], (int)param(call, 2 * (size_t)a),
				 (int)param(call, 2 * (size_t)a + 1), in[a]);
			return -1;
		}
	return 0;
}

static int run_slice(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *out = &call->out;
	bool same = same_values(call);
	int32_t c0 = param(call, 0), cs = param(call, 1), y0 = param(call, 2), ys = param(call, 3);
	int32_t x0 = param(call, 4), xs = param(call, 5);

	for (unsigned int c = 0; c < out->c; c++)
		for (unsigned int y = 0; y < out->h; y++)
			for (unsigned int x = 0; x < out->w; x++)
				move(call, same, c, y, x, (unsigned int)(c0 + (int32_t)c * cs),
				     (unsigned int)(y0 + (int32_t)y * ys),
				     (unsigned int)(x0 + (int32_t)x * xs));
	return 0;
}

/* ---- Pad ---- */

/* The padded extent along one axis: before + in + (in - 1)·interior + after. */
static bool pad_axis_ok(const struct rkb_cpu_call *call, int a, unsigned int in,
			unsigned int out, int32_t mode)
{
	int32_t before = param(call, 2 + (size_t)a), interior = param(call, 5 + (size_t)a);
	int64_t after = (int64_t)out - before - in - ((int64_t)in - 1) * interior;

	if (before < 0 || interior < 0 || after < 0)
		return false;
	/* reflect and edge copy the input's own elements: no gaps, and reflect
	 * mirrors inside the axis */
	if (mode != RKB_CPU_PAD_CONSTANT && interior)
		return false;
	return mode != RKB_CPU_PAD_REFLECT || (before < (int64_t)in && after < (int64_t)in);
}

static int check_pad(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const unsigned int in[3] = { call->in.c, call->in.h, call->in.w };
	const unsigned int out[3] = { call->out.c, call->out.h, call->out.w };
	int32_t mode;

	if (one_input(call, err, err_len) || params_are(call, RKB_CPU_PAD_PARAMS, err, err_len))
		return -1;
	mode = param(call, 0);
	if (mode < RKB_CPU_PAD_CONSTANT || mode > RKB_CPU_PAD_EDGE) {
		snprintf(err, err_len, "mode %d (0 constant, 1 reflect, 2 edge)", (int)mode);
		return -1;
	}
	for (int a = 0; a < 3; a++)
		if (!pad_axis_ok(call, a, in[a], out[a], mode)) {
			snprintf(err, err_len, "axis %d: %u elements do not pad to %u with %d before "
				 "and %d between (mode %d)", a, in[a], out[a],
				 (int)param(call, 2 + (size_t)a), (int)param(call, 5 + (size_t)a),
				 (int)mode);
			return -1;
		}
	return 0;
}

/* The input index output index o reads along one axis, or -1 for the
 * constant. */
static int64_t pad_source(int32_t mode, int64_t o, int64_t before, int64_t interior, int64_t in)
{
	int64_t i = o - before;

	if (mode == RKB_CPU_PAD_CONSTANT) {
		if (i < 0 || i % (interior + 1))
			return -1;
		i /= interior + 1;
		return i < in ? i : -1;
	}
	if (i >= 0 && i < in)
		return i;
	if (mode == RKB_CPU_PAD_EDGE || in == 1)
		return i < 0 ? 0 : in - 1;
	return i < 0 ? -i : 2 * (in - 1) - i;	/* reflect, pads below the length */
}

static int run_pad(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	int32_t mode = param(call, 0);
	bool same = same_values(call);
	uint8_t fill[2];

	store(out, fill, param_f(call, 1));
	for (unsigned int c = 0; c < out->c; c++) {
		int64_t sc = pad_source(mode, c, param(call, 2), param(call, 5), in->c);

		for (unsigned int y = 0; y < out->h; y++) {
			int64_t sy = pad_source(mode, y, param(call, 3), param(call, 6), in->h);

			for (unsigned int x = 0; x < out->w; x++) {
				int64_t sx = pad_source(mode, x, param(call, 4), param(call, 7), in->w);

				if (sc < 0 || sy < 0 || sx < 0)
					memcpy(elem(out, c, y, x), fill, ebytes(out));
				else
					move(call, same, c, y, x, (unsigned int)sc, (unsigned int)sy,
					     (unsigned int)sx);
			}
		}
	}
	return 0;
}

static const struct rkb_cpu_op spatial_ops[] = {
	{ "Resize", check_resize, run_resize },
	{ "DepthToSpace", check_d2s, run_d2s },
	{ "Slice", check_slice, run_slice },
	{ "Pad", check_pad, run_pad },
};

const struct rkb_cpu_op *rkb_cpu_spatial_ops(size_t *n)
{
	*n = sizeof(spatial_ops) / sizeof(spatial_ops[0]);
	return spatial_ops;
}
