// SPDX-License-Identifier: MIT
/*
 * The CPU op registry and the built-in ops (cpu_ops.h). Built-ins compute
 * as the ONNX operators define them on the real values (int8 dequantised,
 * fp16 widened), then store as QuantizeLinear does (round half to even,
 * saturate) or round to half: what onnxruntime computes for
 * DequantizeLinear → op → QuantizeLinear, or for the op in fp16.
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "compiler/layout.h"
#include "hal.h"
#include "runtime/cpu_ops.h"
#include "runtime/cpu_spatial.h"
#include "runtime/cpu_xformer.h"
#include "runtime/model.h"

/* int8 values, for the tables of element-wise ops. */
#define Q_MIN		(-128)
#define Q_LEVELS	256
/* Pow's integer exponents up to this magnitude go by repeated squaring
 * (20 steps); beyond, a float's spacing is 1 or more anyway. */
#define POW_INT_MAX	(1L << 20)

/* Ops the application registered, under registry_lock: a context being
 * created on one CPU looks them up while another CPU may register one. */
static struct hal_lock registry_lock = HAL_LOCK_INITIALIZER;
static const struct rkb_cpu_op *registered[RKB_CPU_OPS_MAX];
static unsigned int n_registered;

static float dequant(int8_t q, const struct rkb_cpu_tensor *t)
{
	return t->scale * (float)(q - t->zp);
}

/* |x| and log x (rkb_cpu_log, cpu_ops.h) without C library symbols beyond
 * those the kernel library takes (docs/PORTING.md): the compiler's fabs
 * instruction, and, with x = m·2^e (m in [0.5, 1)), log1p(m − 1) + e·ln 2,
 * m − 1 exact. sqrtf is an instruction too (-fno-math-errno). */
static float abs_of(float x)
{
	return __builtin_fabsf(x);
}

float rkb_cpu_log(float x)
{
	int e;
	float m;

	if (!(x > 0.0f) || isinf(x))
		return x == 0.0f ? -INFINITY : x > 0.0f ? x : NAN;
	m = frexpf(x, &e);
	return log1pf(m - 1.0f) + (float)e * (float)M_LN2;
}

/* ONNX Pow in float, through the same few functions: integer exponents
 * (any base) by repeated squaring, else e^(k·log x) for x > 0; 0 to a
 * negative power is +inf, a negative base to a fractional one NaN. */
static float pow_of(float x, float k)
{
	float r = 1.0f, b = x;
	long n;

	if (k != k || x != x)
		return NAN;
	if (k == 0.5f)
		return sqrtf(x);
	if (abs_of(k) <= (float)POW_INT_MAX && (float)lrintf(k) == k) {
		for (n = lrintf(k) < 0 ? -lrintf(k) : lrintf(k); n; n >>= 1, b *= b)
			if (n & 1)
				r *= b;
		return k < 0.0f ? rkb_cpu_binop_eval(RKB_CPU_BIN_DIV, 1.0f, r) : r;
	}
	if (x == 0.0f)
		return k > 0.0f ? 0.0f : INFINITY;
	return x > 0.0f ? expf(k * rkb_cpu_log(x)) : NAN;
}

static int8_t quant(float v, const struct rkb_cpu_tensor *t)
{
	float q = v / t->scale;
	long r;

	if (!(q == q))
		return (int8_t)t->zp;
	/* far outside int8 whatever the zero point, and inside long */
	q = q < (float)INT16_MIN ? (float)INT16_MIN : q > (float)INT16_MAX ? (float)INT16_MAX : q;
	r = lrintf(q) + t->zp;
	return (int8_t)(r > INT8_MAX ? INT8_MAX : r < INT8_MIN ? INT8_MIN : r);
}

float rkb_cpu_get(const struct rkb_cpu_tensor *t, unsigned int ch, unsigned int y,
		  unsigned int x)
{
	size_t at = rkb_cpu_at(t, ch, y, x);

	return t->dtype == RKB_CPU_FP16 ? layout_f16_to_f32(rkb_cpu_half(t)[at]) :
	       dequant(t->data[at], t);
}

int32_t rkb_cpu_encode(const struct rkb_cpu_tensor *t, float v)
{
	return t->dtype == RKB_CPU_FP16 ? (int32_t)layout_f32_to_f16(v) : (int32_t)quant(v, t);
}

void rkb_cpu_set(const struct rkb_cpu_tensor *t, unsigned int ch, unsigned int y,
		 unsigned int x, float v)
{
	size_t at = rkb_cpu_at(t, ch, y, x);

	if (t->dtype == RKB_CPU_FP16)
		rkb_cpu_half(t)[at] = layout_f32_to_f16(v);
	else
		t->data[at] = quant(v, t);
}

/* Copy element (ci, yi, xi) of `in` to (co, yo, xo) of `out`: the bits
 * when both store values alike, else through the real value. */
static void move(const struct rkb_cpu_tensor *in, unsigned int ci, unsigned int yi,
		 unsigned int xi, const struct rkb_cpu_tensor *out, unsigned int co,
		 unsigned int yo, unsigned int xo)
{
	if (in->dtype != out->dtype || (in->dtype == RKB_CPU_INT8 &&
					(in->scale != out->scale || in->zp != out->zp)))
		rkb_cpu_set(out, co, yo, xo, rkb_cpu_get(in, ci, yi, xi));
	else if (in->dtype == RKB_CPU_FP16)
		rkb_cpu_half(out)[rkb_cpu_at(out, co, yo, xo)] =
			rkb_cpu_half(in)[rkb_cpu_at(in, ci, yi, xi)];
	else
		out->data[rkb_cpu_at(out, co, yo, xo)] = in->data[rkb_cpu_at(in, ci, yi, xi)];
}

/* Channel groups × rows × columns × lanes of an int8 map: its bytes. */
static size_t int8_bytes(const struct rkb_cpu_tensor *t)
{
	return (size_t)((t->c + RKB_CPU_C2 - 1) / RKB_CPU_C2) * t->h * t->w * RKB_CPU_C2;
}

/* Every built-in but Concat takes one input. */
static int one_input(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	if (!call->in2.c)
		return 0;
	snprintf(err, err_len, "a second input for an op that takes one");
	return -1;
}

static int same_shape(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;

	if (one_input(call, err, err_len))
		return -1;

	if (i->c != o->c || i->h != o->h || i->w != o->w) {
		snprintf(err, err_len, "output %ux%ux%u differs from the input %ux%ux%u", o->c,
			 o->h, o->w, i->c, i->h, i->w);
		return -1;
	}
	if (call->params_bytes) {
		snprintf(err, err_len, "%zu parameter bytes for an op that takes none",
			 call->params_bytes);
		return -1;
	}
	return 0;
}

/* Element-wise. int8 to int8: the 256 possible results, then a lookup per
 * element (the importer writes a Lut op instead, whose table it builds at
 * compile time; these two stay for the containers that name them). */
static void unary(const struct rkb_cpu_call *call, float (*f)(float))
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	int8_t table[Q_LEVELS];
	bool int8 = in->dtype == RKB_CPU_INT8 && out->dtype == RKB_CPU_INT8;

	for (int q = 0; int8 && q < Q_LEVELS; q++)
		table[q] = quant(f(dequant((int8_t)(q + Q_MIN), in)), out);
	for (unsigned int ch = 0; ch < in->c; ch++)
		for (unsigned int y = 0; y < in->h; y++)
			for (unsigned int x = 0; x < in->w; x++) {
				size_t at = rkb_cpu_at(in, ch, y, x);

				if (int8)
					out->data[at] = table[in->data[at] - Q_MIN];
				else
					rkb_cpu_set(out, ch, y, x, f(rkb_cpu_get(in, ch, y, x)));
			}
}

static float sigmoid(float v)
{
	return rkb_cpu_fn_eval(RKB_CPU_FN_SIGMOID, 0.0f, 0.0f, v);
}

static int run_sigmoid(const struct rkb_cpu_call *call)
{
	unary(call, sigmoid);
	return 0;
}

static int run_tanh(const struct rkb_cpu_call *call)
{
	unary(call, tanhf);
	return 0;
}

/* Softmax's axis: its parameter, or the channels without one. */
static int softmax_axis(const struct rkb_cpu_call *call)
{
	int32_t axis = RKB_CPU_AXIS_C;

	if (call->params_bytes)
		memcpy(&axis, call->params, sizeof(axis));
	return axis;
}

static int check_softmax(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	struct rkb_cpu_call shape = *call;
	int32_t axis = RKB_CPU_AXIS_C;

	if (one_input(call, err, err_len))
		return -1;

	if (call->params_bytes && call->params_bytes != sizeof(axis)) {
		snprintf(err, err_len, "%zu parameter bytes (an int32 axis, or none)",
			 call->params_bytes);
		return -1;
	}
	axis = softmax_axis(call);
	if (axis < RKB_CPU_AXIS_C || axis > RKB_CPU_AXIS_W) {
		snprintf(err, err_len, "axis %d (0 channels, 1 rows, 2 columns)", (int)axis);
		return -1;
	}
	shape.params_bytes = 0;
	return same_shape(&shape, err, err_len);
}

/* Element k of line (i, j) along `axis`, as a real value; i and j index
 * the two other axes in C, H, W order. */
static float line_get(const struct rkb_cpu_tensor *t, int axis, unsigned int i, unsigned int j,
		      unsigned int k)
{
	switch (axis) {
	case RKB_CPU_AXIS_C:
		return rkb_cpu_get(t, k, i, j);
	case RKB_CPU_AXIS_H:
		return rkb_cpu_get(t, i, k, j);
	default:
		return rkb_cpu_get(t, i, j, k);
	}
}

static void line_set(const struct rkb_cpu_tensor *t, int axis, unsigned int i, unsigned int j,
		     unsigned int k, float v)
{
	switch (axis) {
	case RKB_CPU_AXIS_C:
		rkb_cpu_set(t, k, i, j, v);
		break;
	case RKB_CPU_AXIS_H:
		rkb_cpu_set(t, i, k, j, v);
		break;
	default:
		rkb_cpu_set(t, i, j, k, v);
	}
}

/* Softmax along one axis (ONNX Softmax, opset 13): for every line of the
 * map along it, exp(x − max) / Σ exp(x − max); LogSoftmax's
 * x − max − log Σ exp(x − max) with `log`. */
static void softmax_lines(const struct rkb_cpu_call *call, bool log)
{
	const struct rkb_cpu_tensor *in = &call->in;
	int axis = softmax_axis(call);
	unsigned int len = axis == RKB_CPU_AXIS_C ? in->c : axis == RKB_CPU_AXIS_H ? in->h : in->w;
	unsigned int a = axis == RKB_CPU_AXIS_C ? in->h : in->c;
	unsigned int b = axis == RKB_CPU_AXIS_W ? in->h : in->w;

	for (unsigned int i = 0; i < a; i++)
		for (unsigned int j = 0; j < b; j++) {
			float top = -INFINITY, sum = 0.0f, log_sum;

			for (unsigned int k = 0; k < len; k++) {
				float v = line_get(in, axis, i, j, k);

				top = v > top ? v : top;
			}
			for (unsigned int k = 0; k < len; k++)
				sum += expf(line_get(in, axis, i, j, k) - top);
			log_sum = log ? rkb_cpu_log(sum) : 0.0f;
			for (unsigned int k = 0; k < len; k++) {
				float d = line_get(in, axis, i, j, k) - top;

				line_set(&call->out, axis, i, j, k, log ? d - log_sum : expf(d) / sum);
			}
		}
}

static int run_softmax(const struct rkb_cpu_call *call)
{
	softmax_lines(call, false);
	return 0;
}

static int run_log_softmax(const struct rkb_cpu_call *call)
{
	softmax_lines(call, true);
	return 0;
}

/* The window of an AveragePool op: kernel, strides, leading pads. */
struct pool_window {
	int32_t kh, kw, sy, sx, pt, pl;
};

static struct pool_window pool_window(const struct rkb_cpu_call *call)
{
	int32_t v[RKB_CPU_POOL_PARAMS];

	memcpy(v, call->params, sizeof(v));
	return (struct pool_window){ v[0], v[1], v[2], v[3], v[4], v[5] };
}

/* The cells of window (oy, ox) inside the input, along one axis:
 * [first, last]; empty when last < first. */
static void window_span(int32_t o, int32_t k, int32_t stride, int32_t pad, unsigned int size,
			int32_t *first, int32_t *last)
{
	int32_t a = o * stride - pad, b = a + k - 1;

	*first = a < 0 ? 0 : a;
	*last = b >= (int32_t)size ? (int32_t)size - 1 : b;
}

static int check_avg_pool(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	struct pool_window pw;
	int32_t f, l;

	if (one_input(call, err, err_len))
		return -1;

	if (call->params_bytes != RKB_CPU_POOL_PARAMS * sizeof(int32_t)) {
		snprintf(err, err_len, "%zu parameter bytes, the window takes %zu",
			 call->params_bytes, RKB_CPU_POOL_PARAMS * sizeof(int32_t));
		return -1;
	}
	pw = pool_window(call);
	if (call->in.c != call->out.c || pw.kh < 1 || pw.kw < 1 || pw.sy < 1 || pw.sx < 1 ||
	    pw.pt < 0 || pw.pl < 0 || pw.pt >= pw.kh || pw.pl >= pw.kw) {
		snprintf(err, err_len, "window %dx%d, strides %d,%d, pads %d,%d over %u to %u "
			 "channels", (int)pw.kh, (int)pw.kw, (int)pw.sy, (int)pw.sx, (int)pw.pt,
			 (int)pw.pl, call->in.c, call->out.c);
		return -1;
	}
	/* every window, the last row and column included, holds a real cell */
	window_span((int32_t)call->out.h - 1, pw.kh, pw.sy, pw.pt, call->in.h, &f, &l);
	if (l < f) {
		snprintf(err, err_len, "output row %u reads no input row", call->out.h - 1);
		return -1;
	}
	window_span((int32_t)call->out.w - 1, pw.kw, pw.sx, pw.pl, call->in.w, &f, &l);
	if (l < f) {
		snprintf(err, err_len, "output column %u reads no input column", call->out.w - 1);
		return -1;
	}
	return 0;
}

/* ONNX AveragePool with count_include_pad = 0: the mean of the window's
 * cells inside the input. */
static int run_avg_pool(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in;
	struct pool_window pw = pool_window(call);

	for (unsigned int ch = 0; ch < in->c; ch++)
		for (unsigned int oy = 0; oy < call->out.h; oy++)
			for (unsigned int ox = 0; ox < call->out.w; ox++) {
				int32_t y0, y1, x0, x1;
				float sum = 0.0f;

				window_span((int32_t)oy, pw.kh, pw.sy, pw.pt, in->h, &y0, &y1);
				window_span((int32_t)ox, pw.kw, pw.sx, pw.pl, in->w, &x0, &x1);
				for (int32_t y = y0; y <= y1; y++)
					for (int32_t x = x0; x <= x1; x++)
						sum += rkb_cpu_get(in, ch, (unsigned int)y,
								   (unsigned int)x);
				rkb_cpu_set(&call->out, ch, oy, ox,
					    sum / (float)((y1 - y0 + 1) * (x1 - x0 + 1)));
			}
	return 0;
}

/* Transpose's parameters: for each output axis, the input axis it takes. */
static int transpose_perm(const struct rkb_cpu_call *call, int32_t perm[RKB_CPU_TRANSPOSE_PARAMS])
{
	if (call->params_bytes != RKB_CPU_TRANSPOSE_PARAMS * sizeof(int32_t))
		return -1;
	memcpy(perm, call->params, RKB_CPU_TRANSPOSE_PARAMS * sizeof(int32_t));
	return 0;
}

static int check_transpose(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const unsigned int in[3] = { call->in.c, call->in.h, call->in.w };
	const unsigned int out[3] = { call->out.c, call->out.h, call->out.w };
	int32_t perm[RKB_CPU_TRANSPOSE_PARAMS];
	unsigned int seen = 0;

	if (one_input(call, err, err_len))
		return -1;

	if (transpose_perm(call, perm)) {
		snprintf(err, err_len, "%zu parameter bytes, %zu expected (the permutation)",
			 call->params_bytes, RKB_CPU_TRANSPOSE_PARAMS * sizeof(int32_t));
		return -1;
	}
	for (int i = 0; i < 3; i++) {
		if (perm[i] < 0 || perm[i] > 2 || (seen & (1u << perm[i]))) {
			snprintf(err, err_len, "permutation %d,%d,%d of the axes 0..2", perm[0],
				 perm[1], perm[2]);
			return -1;
		}
		seen |= 1u << perm[i];
		if (out[i] != in[perm[i]]) {
			snprintf(err, err_len, "output %ux%ux%u is not the input %ux%ux%u permuted",
				 out[0], out[1], out[2], in[0], in[1], in[2]);
			return -1;
		}
	}
	return 0;
}

/* Each output element is the input element at the permuted coordinates,
 * requantised when the two quantisations differ. */
static int run_transpose(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	int32_t perm[RKB_CPU_TRANSPOSE_PARAMS];
	unsigned int o[3], i[3];

	if (transpose_perm(call, perm))
		return -1;	/* the check refused it at create already */
	for (o[0] = 0; o[0] < out->c; o[0]++)
		for (o[1] = 0; o[1] < out->h; o[1]++)
			for (o[2] = 0; o[2] < out->w; o[2]++) {
				for (int k = 0; k < 3; k++)
					i[perm[k]] = o[k];
				move(in, i[0], i[1], i[2], out, o[0], o[1], o[2]);
			}
	return 0;
}

/* Reshape: the C × H × W elements in row-major (ONNX) order, poured into
 * the output's C × H × W — a map whose layout the reshape changes (e.g.
 * [1,C,H,W] → [1,C,H·W], which is a [A,B,C] map of one channel); the values
 * requantised when the output's quantisation differs. */
static int check_reshape(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;

	if (one_input(call, err, err_len))
		return -1;
	if ((uint64_t)in->c * in->h * in->w != (uint64_t)out->c * out->h * out->w ||
	    call->params_bytes) {
		snprintf(err, err_len, "%ux%ux%u to %ux%ux%u with %zu parameter bytes: a reshape "
			 "keeps the element count and takes no parameters", in->c, in->h, in->w,
			 out->c, out->h, out->w, call->params_bytes);
		return -1;
	}
	return 0;
}

static int run_reshape(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	unsigned int ic = 0, iy = 0, ix = 0;

	for (unsigned int c = 0; c < out->c; c++)
		for (unsigned int y = 0; y < out->h; y++)
			for (unsigned int x = 0; x < out->w; x++) {
				move(in, ic, iy, ix, out, c, y, x);
				if (++ix == in->w) {
					ix = 0;
					if (++iy == in->h) {
						iy = 0;
						ic++;
					}
				}
			}
	return 0;
}

/* Concat's axis and the extent of the first input along it. */
static int concat_axis(const struct rkb_cpu_call *call, int32_t *axis)
{
	if (call->params_bytes != sizeof(*axis))
		return -1;
	memcpy(axis, call->params, sizeof(*axis));
	return *axis < RKB_CPU_AXIS_C || *axis > RKB_CPU_AXIS_W ? -1 : 0;
}

static int check_concat(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *a = &call->in, *b = &call->in2, *o = &call->out;
	const unsigned int da[3] = { a->c, a->h, a->w }, db[3] = { b->c, b->h, b->w };
	const unsigned int dout[3] = { o->c, o->h, o->w };
	int32_t axis;

	if (concat_axis(call, &axis)) {
		snprintf(err, err_len, "the parameter is not one int32 axis 0..2");
		return -1;
	}
	if (!b->c) {
		snprintf(err, err_len, "a Concat needs a second input");
		return -1;
	}
	for (int k = 0; k < 3; k++)
		if (dout[k] != (k == axis ? da[k] + db[k] : da[k]) || (k != axis && db[k] != da[k])) {
			snprintf(err, err_len, "%ux%ux%u and %ux%ux%u do not make %ux%ux%u along "
				 "axis %d", da[0], da[1], da[2], db[0], db[1], db[2], dout[0],
				 dout[1], dout[2], axis);
			return -1;
		}
	return 0;
}

/* Copy map `t` into the output at `at` along the axis, requantising when
 * the quantisations differ. */
static void concat_part(const struct rkb_cpu_tensor *t, const struct rkb_cpu_tensor *out,
			int32_t axis, unsigned int at)
{
	for (unsigned int c = 0; c < t->c; c++)
		for (unsigned int y = 0; y < t->h; y++)
			for (unsigned int x = 0; x < t->w; x++)
				move(t, c, y, x, out, c + (axis == RKB_CPU_AXIS_C ? at : 0),
				     y + (axis == RKB_CPU_AXIS_H ? at : 0),
				     x + (axis == RKB_CPU_AXIS_W ? at : 0));
}

static int run_concat(const struct rkb_cpu_call *call)
{
	int32_t axis = RKB_CPU_AXIS_C;
	unsigned int first;

	if (concat_axis(call, &axis))
		return -1;	/* the check refused it at create already */
	first = axis == RKB_CPU_AXIS_C ? call->in.c : axis == RKB_CPU_AXIS_H ? call->in.h :
		call->in.w;
	concat_part(&call->in, &call->out, axis, 0);
	concat_part(&call->in2, &call->out, axis, first);
	return 0;
}

/* ---- element-wise functions (Lut, Unary, Binary) ---- */

static float sigmoid_of(float v)
{
	return 1.0f / (1.0f + expf(-v));
}

/* v clamped to [0, 1], NaN kept (fmaxf / fminf are not in the C library a
 * kernel provides: docs/PORTING.md). */
static float unit_clamp(float v)
{
	return v < 0.0f ? 0.0f : v > 1.0f ? 1.0f : v;
}

float rkb_cpu_binop_eval(int32_t op, float a, float b)
{
	switch (op) {
	case RKB_CPU_BIN_ADD: return a + b;
	case RKB_CPU_BIN_SUB: return a - b;
	case RKB_CPU_BIN_MUL: return a * b;
	case RKB_CPU_BIN_DIV:
		/* IEEE's quotient by zero, spelt out (a float division by zero
		 * is what the sanitizers flag) */
		if (b == 0.0f)
			return a != a || a == 0.0f ? NAN :
			       !signbit(a) == !signbit(b) ? INFINITY : -INFINITY;
		return a / b;
	/* ONNX Max / Min propagate NaN */
	case RKB_CPU_BIN_MAX: return a != a || b != b ? NAN : a > b ? a : b;
	case RKB_CPU_BIN_MIN: return a != a || b != b ? NAN : a < b ? a : b;
	case RKB_CPU_BIN_PRELU: return a < 0.0f ? a * b : a;
	case RKB_CPU_BIN_POW: return pow_of(a, b);
	default: return NAN;
	}
}

float rkb_cpu_fn_eval(int32_t fn, float a, float b, float x)
{
	/* sqrt(2 / pi) and the cubic coefficient of GELU's tanh form */
	const float gelu_k = 0.7978845608f, gelu_c = 0.044715f;

	switch (fn) {
	case RKB_CPU_FN_RELU: return x > 0.0f ? x : x != x ? x : 0.0f;
	case RKB_CPU_FN_CLIP: return x < a ? a : x > b ? b : x;
	case RKB_CPU_FN_LEAKY_RELU: return x < 0.0f ? a * x : x;
	case RKB_CPU_FN_SIGMOID: return sigmoid_of(x);
	case RKB_CPU_FN_TANH: return tanhf(x);
	case RKB_CPU_FN_HARD_SIGMOID: return unit_clamp(a * x + b);
	/* ONNX HardSwish: x · HardSigmoid(x) with alpha 1/6, beta 0.5 */
	case RKB_CPU_FN_HARD_SWISH: return x * unit_clamp(x / 6.0f + 0.5f);
	case RKB_CPU_FN_SWISH: return x * sigmoid_of(a * x);
	case RKB_CPU_FN_ELU: return x < 0.0f ? a * (expf(x) - 1.0f) : x;
	case RKB_CPU_FN_SELU: return x <= 0.0f ? b * (a * expf(x) - a) : b * x;
	/* log(1 + e^x) without overflowing e^x */
	case RKB_CPU_FN_SOFTPLUS: return x > 0.0f ? x + log1pf(expf(-x)) : log1pf(expf(x));
	/* x·Φ(x) with 1 + erf(z) as erfc(−z) and 1 + tanh(z) as 2·sigmoid(2z):
	 * no cancellation for negative x */
	case RKB_CPU_FN_GELU:
		return a != 0.0f ? x * sigmoid_of(2.0f * gelu_k * (x + gelu_c * x * x * x)) :
		       0.5f * x * erfcf(-x / sqrtf(2.0f));
	case RKB_CPU_FN_ADD_K: return rkb_cpu_binop_eval(RKB_CPU_BIN_ADD, x, a);
	case RKB_CPU_FN_SUB_K: return rkb_cpu_binop_eval(RKB_CPU_BIN_SUB, x, a);
	case RKB_CPU_FN_K_SUB: return rkb_cpu_binop_eval(RKB_CPU_BIN_SUB, a, x);
	case RKB_CPU_FN_MUL_K: return rkb_cpu_binop_eval(RKB_CPU_BIN_MUL, x, a);
	case RKB_CPU_FN_DIV_K: return rkb_cpu_binop_eval(RKB_CPU_BIN_DIV, x, a);
	case RKB_CPU_FN_K_DIV: return rkb_cpu_binop_eval(RKB_CPU_BIN_DIV, a, x);
	case RKB_CPU_FN_MAX_K: return rkb_cpu_binop_eval(RKB_CPU_BIN_MAX, x, a);
	case RKB_CPU_FN_MIN_K: return rkb_cpu_binop_eval(RKB_CPU_BIN_MIN, x, a);
	case RKB_CPU_FN_EXP: return expf(x);
	case RKB_CPU_FN_ABS: return abs_of(x);
	case RKB_CPU_FN_SOFTSIGN: return x / (1.0f + abs_of(x));
	case RKB_CPU_FN_SQRT: return sqrtf(x);
	case RKB_CPU_FN_LOG: return rkb_cpu_log(x);
	case RKB_CPU_FN_POW_K: return pow_of(x, a);
	case RKB_CPU_FN_K_POW: return pow_of(a, x);
	default: return NAN;
	}
}

int rkb_cpu_lut_build(const struct rkb_cpu_fn_step *steps, size_t n, float in_scale,
		      int32_t in_zp, float out_scale, int32_t out_zp,
		      int8_t table[RKB_CPU_LUT_ENTRIES])
{
	struct rkb_cpu_tensor in = { NULL, 1, 1, 1, in_scale, in_zp, RKB_CPU_INT8 };
	struct rkb_cpu_tensor out = { NULL, 1, 1, 1, out_scale, out_zp, RKB_CPU_INT8 };

	if (!n || !isfinite(in_scale) || !isfinite(out_scale) || !(in_scale > 0.0f) ||
	    !(out_scale > 0.0f))
		return -1;
	for (size_t k = 0; k < n; k++)
		if (steps[k].fn < RKB_CPU_FN_RELU || steps[k].fn >= RKB_CPU_FN_COUNT)
			return -1;
	for (int q = 0; q < Q_LEVELS; q++) {
		float v = dequant((int8_t)(q + Q_MIN), &in);

		for (size_t k = 0; k < n; k++)
			v = rkb_cpu_fn_eval(steps[k].fn, steps[k].a, steps[k].b, v);
		table[q] = quant(v, &out);
	}
	return 0;
}

/* One input, an output of its shape and element type. */
static int one_map(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;

	if (one_input(call, err, err_len))
		return -1;
	if (i->c != o->c || i->h != o->h || i->w != o->w || i->dtype != o->dtype) {
		snprintf(err, err_len, "output %ux%ux%u (%s) is not the input's shape and type "
			 "%ux%ux%u (%s)", o->c, o->h, o->w, o->dtype ? "fp16" : "int8", i->c, i->h,
			 i->w, i->dtype ? "fp16" : "int8");
		return -1;
	}
	return 0;
}

static int check_lut(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	if (one_map(call, err, err_len))
		return -1;
	if (call->in.dtype != RKB_CPU_INT8) {
		snprintf(err, err_len, "a table of int8 values on an fp16 map (Unary takes fp16)");
		return -1;
	}
	if (call->params_bytes != RKB_CPU_LUT_ENTRIES &&
	    call->params_bytes != (size_t)RKB_CPU_LUT_ENTRIES * call->in.c) {
		snprintf(err, err_len, "%zu parameter bytes: one table of %u, or one per channel "
			 "(%zu)", call->params_bytes, RKB_CPU_LUT_ENTRIES,
			 (size_t)RKB_CPU_LUT_ENTRIES * call->in.c);
		return -1;
	}
	return 0;
}

static int run_lut(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in;
	const int8_t *lut = call->params;
	bool per_channel = call->params_bytes != RKB_CPU_LUT_ENTRIES;

	/* one table: byte i of the output is byte i of the input looked up */
	if (!per_channel) {
		for (size_t i = 0; i < int8_bytes(in); i++)
			call->out.data[i] = lut[in->data[i] - Q_MIN];
		return 0;
	}

	for (unsigned int ch = 0; ch < in->c; ch++) {
		const int8_t *t = lut + (per_channel ? (size_t)ch * RKB_CPU_LUT_ENTRIES : 0);

		for (unsigned int y = 0; y < in->h; y++)
			for (unsigned int x = 0; x < in->w; x++) {
				size_t at = rkb_cpu_at(in, ch, y, x);

				call->out.data[at] = t[in->data[at] - Q_MIN];
			}
	}
	return 0;
}

/* Unary's parameters. */
struct unary_params {
	int32_t fn;
	float a, b;
};

static struct unary_params unary_params(const struct rkb_cpu_call *call)
{
	struct unary_params u;
	const uint8_t *p = call->params;

	memcpy(&u.fn, p, sizeof(u.fn));
	memcpy(&u.a, p + sizeof(u.fn), sizeof(u.a));
	memcpy(&u.b, p + sizeof(u.fn) + sizeof(u.a), sizeof(u.b));
	return u;
}

static int check_unary(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	struct unary_params u;

	if (one_map(call, err, err_len))
		return -1;
	if (call->params_bytes != RKB_CPU_UNARY_BYTES) {
		snprintf(err, err_len, "%zu parameter bytes, %u expected (function, a, b)",
			 call->params_bytes, RKB_CPU_UNARY_BYTES);
		return -1;
	}
	u = unary_params(call);
	if (u.fn < RKB_CPU_FN_RELU || u.fn >= RKB_CPU_FN_COUNT) {
		snprintf(err, err_len, "function %d (1 .. %d)", (int)u.fn, RKB_CPU_FN_COUNT - 1);
		return -1;
	}
	return 0;
}

static int run_unary(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in;
	struct unary_params u = unary_params(call);

	for (unsigned int ch = 0; ch < in->c; ch++)
		for (unsigned int y = 0; y < in->h; y++)
			for (unsigned int x = 0; x < in->w; x++)
				rkb_cpu_set(&call->out, ch, y, x,
					    rkb_cpu_fn_eval(u.fn, u.a, u.b,
							    rkb_cpu_get(in, ch, y, x)));
	return 0;
}

/* Binary's parameters: the op, where the constant is, its extents and
 * values (unaligned in the container: read with memcpy). */
struct binary_params {
	int32_t op, side, kc, kh, kw;
	const uint8_t *values;
};

static int binary_params(const struct rkb_cpu_call *call, struct binary_params *b)
{
	int32_t v[RKB_CPU_BINARY_HEADER];
	uint64_t count;

	if (call->params_bytes < sizeof(v))
		return -1;
	memcpy(v, call->params, sizeof(v));
	*b = (struct binary_params){ v[0], v[1], v[2], v[3], v[4],
				     (const uint8_t *)call->params + sizeof(v) };
	if (b->kc < 0 || b->kh < 0 || b->kw < 0)
		return -1;
	count = (uint64_t)b->kc * (uint64_t)b->kh * (uint64_t)b->kw;
	return call->params_bytes == sizeof(v) + count * sizeof(float) ? 0 : -1;
}

/* Operand extents: does `from` broadcast to `to` along each axis? */
static bool broadcasts(const unsigned int from[3], const unsigned int to[3])
{
	for (int k = 0; k < 3; k++)
		if (from[k] != to[k] && from[k] != 1)
			return false;
	return true;
}

static int check_binary(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *in = &call->in, *in2 = &call->in2, *o = &call->out;
	struct binary_params b;
	unsigned int x[3] = { in->c, in->h, in->w }, y[3] = { in2->c, in2->h, in2->w };
	const unsigned int out[3] = { o->c, o->h, o->w };
	bool konst;

	if (binary_params(call, &b)) {
		snprintf(err, err_len, "%zu parameter bytes: %u int32 (op, constant side, its c, "
			 "h, w) and c × h × w float32 values", call->params_bytes,
			 RKB_CPU_BINARY_HEADER);
		return -1;
	}
	if (b.op < RKB_CPU_BIN_ADD || b.op >= RKB_CPU_BIN_COUNT ||
	    b.side < RKB_CPU_BIN_NO_CONST || b.side > RKB_CPU_BIN_CONST_B) {
		snprintf(err, err_len, "op %d (1 .. %d), constant side %d (0 .. 2)", (int)b.op,
			 RKB_CPU_BIN_COUNT - 1, (int)b.side);
		return -1;
	}
	konst = b.side != RKB_CPU_BIN_NO_CONST;
	if (konst != !in2->c || konst != (b.kc > 0)) {
		snprintf(err, err_len, "%s second input with %s constant operand",
			 in2->c ? "a" : "no", b.kc ? "a" : "no");
		return -1;
	}
	if (konst) {
		y[0] = (unsigned int)b.kc;
		y[1] = (unsigned int)b.kh;
		y[2] = (unsigned int)b.kw;
	}
	if (!broadcasts(x, out) || !broadcasts(y, out) || (konst && in->dtype != o->dtype) ||
	    (!konst && (in->dtype != o->dtype || in2->dtype != o->dtype))) {
		snprintf(err, err_len, "operands %ux%ux%u and %ux%ux%u do not broadcast to the "
			 "output %ux%ux%u of their element type (along each axis each extent is "
			 "the output's or 1)", x[0], x[1], x[2], y[0], y[1], y[2], out[0], out[1],
			 out[2]);
		return -1;
	}
	for (int k = 0; k < 3; k++)
		if (x[k] != out[k] && y[k] != out[k]) {
			snprintf(err, err_len, "output %ux%ux%u is larger than the operands' "
				 "broadcast", out[0], out[1], out[2]);
			return -1;
		}
	return 0;
}

/* Constant element (c, y, x) of a broadcast constant. */
static float const_at(const struct binary_params *b, unsigned int c, unsigned int y,
		      unsigned int x)
{
	size_t i = ((size_t)(b->kc == 1 ? 0 : c) * (size_t)b->kh + (b->kh == 1 ? 0 : y)) *
		   (size_t)b->kw + (b->kw == 1 ? 0 : x);
	float v;

	memcpy(&v, b->values + i * sizeof(v), sizeof(v));
	return v;
}

/* Map element (c, y, x) of a broadcast map. */
static float map_at(const struct rkb_cpu_tensor *t, unsigned int c, unsigned int y,
		    unsigned int x)
{
	return rkb_cpu_get(t, t->c == 1 ? 0 : c, t->h == 1 ? 0 : y, t->w == 1 ? 0 : x);
}

/* A [C,1,1] (or [1,1,1]) map. */
static bool is_vector(const struct rkb_cpu_tensor *t)
{
	return t->h == 1 && t->w == 1;
}

/*
 * int8 maps, one of them a vector against a map of the output's shape
 * (squeeze-and-excitation's product): per channel the results for the 256
 * values of the map's element, then a lookup per element — the same
 * arithmetic as element by element, done 256 times a channel instead of
 * H × W times. false when the call is not one such or its channels are too
 * small for the tables to pay.
 */
static bool run_by_channel(const struct rkb_cpu_call *call, const struct binary_params *b)
{
	const struct rkb_cpu_tensor *o = &call->out, *m = &call->in, *v = &call->in2;
	bool v_first = false;
	int8_t t[Q_LEVELS];

	if (b->side != RKB_CPU_BIN_NO_CONST || o->dtype != RKB_CPU_INT8 ||
	    m->dtype != RKB_CPU_INT8 || v->dtype != RKB_CPU_INT8 || o->h * o->w < Q_LEVELS)
		return false;
	if (is_vector(m) && !is_vector(v)) {
		m = &call->in2;
		v = &call->in;
		v_first = true;
	}
	if (!is_vector(v) || m->c != o->c || m->h != o->h || m->w != o->w)
		return false;
	for (unsigned int c = 0; c < o->c; c++) {
		float k = rkb_cpu_get(v, v->c == 1 ? 0 : c, 0, 0);

		for (int q = 0; q < Q_LEVELS; q++) {
			float x = dequant((int8_t)(q + Q_MIN), m);

			t[q] = quant(v_first ? rkb_cpu_binop_eval(b->op, k, x) :
				     rkb_cpu_binop_eval(b->op, x, k), o);
		}
		for (unsigned int y = 0; y < o->h; y++)
			for (unsigned int x = 0; x < o->w; x++)
				o->data[rkb_cpu_at(o, c, y, x)] =
					t[m->data[rkb_cpu_at(m, c, y, x)] - Q_MIN];
	}
	return true;
}

static bool same_map(const struct rkb_cpu_tensor *a, const struct rkb_cpu_tensor *b)
{
	return a->dtype == RKB_CPU_INT8 && b->dtype == RKB_CPU_INT8 && a->c == b->c &&
	       a->h == b->h && a->w == b->w;
}

/* int8 maps of one shape: byte i of each is the same element (the lanes
 * past the channels too, whose results the run overwrites), so no index
 * arithmetic. false when the call is not one such. */
static bool run_same_shape(const struct rkb_cpu_call *call, const struct binary_params *b)
{
	const struct rkb_cpu_tensor *o = &call->out, *x = &call->in, *y = &call->in2;

	if (b->side != RKB_CPU_BIN_NO_CONST || !same_map(x, o) || !same_map(y, o))
		return false;
	for (size_t i = 0; i < int8_bytes(o); i++)
		o->data[i] = quant(rkb_cpu_binop_eval(b->op, dequant(x->data[i], x),
						      dequant(y->data[i], y)), o);
	return true;
}

static int run_binary(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *o = &call->out;
	struct binary_params b;

	if (binary_params(call, &b))
		return -1;	/* the check refused it at create already */
	if (run_by_channel(call, &b) || run_same_shape(call, &b))
		return 0;
	for (unsigned int c = 0; c < o->c; c++)
		for (unsigned int y = 0; y < o->h; y++)
			for (unsigned int x = 0; x < o->w; x++) {
				float v = map_at(&call->in, c, y, x), k;

				if (b.side == RKB_CPU_BIN_NO_CONST) {
					k = map_at(&call->in2, c, y, x);
					rkb_cpu_set(o, c, y, x, rkb_cpu_binop_eval(b.op, v, k));
					continue;
				}
				k = const_at(&b, c, y, x);
				rkb_cpu_set(o, c, y, x, b.side == RKB_CPU_BIN_CONST_A ?
					    rkb_cpu_binop_eval(b.op, k, v) :
					    rkb_cpu_binop_eval(b.op, v, k));
			}
	return 0;
}

/* The map in the output's element type: each value through its real
 * value (int8 ↔ fp16, or int8 of other parameters). */
static int run_cast(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in;

	for (unsigned int ch = 0; ch < in->c; ch++)
		for (unsigned int y = 0; y < in->h; y++)
			for (unsigned int x = 0; x < in->w; x++)
				move(in, ch, y, x, &call->out, ch, y, x);
	return 0;
}

static const struct rkb_cpu_op builtins[] = {
	{ "Sigmoid", same_shape, run_sigmoid },
	{ "Tanh", same_shape, run_tanh },
	{ "Softmax", check_softmax, run_softmax },
	{ "LogSoftmax", check_softmax, run_log_softmax },
	{ "AveragePool", check_avg_pool, run_avg_pool },
	{ "Transpose", check_transpose, run_transpose },
	{ "Concat", check_concat, run_concat },
	{ "Reshape", check_reshape, run_reshape },
	{ "Lut", check_lut, run_lut },
	{ "Unary", check_unary, run_unary },
	{ "Binary", check_binary, run_binary },
	{ "LayerNorm", rkb_cpu_check_layernorm, rkb_cpu_run_layernorm },
	{ "Reduce", rkb_cpu_check_reduce, rkb_cpu_run_reduce },
	{ "MatMul", rkb_cpu_check_matmul, rkb_cpu_run_matmul },
	{ "Gather", rkb_cpu_check_gather, rkb_cpu_run_gather },
	{ RKB_CPU_CAST, same_shape, run_cast },
};

static const struct rkb_cpu_op *find_locked(const char *type)
{
	size_t n_spatial;
	const struct rkb_cpu_op *spatial = rkb_cpu_spatial_ops(&n_spatial);

	for (size_t i = 0; i < sizeof(builtins) / sizeof(builtins[0]); i++)
		if (!strcmp(builtins[i].type, type))
			return &builtins[i];
	for (size_t i = 0; i < n_spatial; i++)
		if (!strcmp(spatial[i].type, type))
			return &spatial[i];
	for (unsigned int i = 0; i < n_registered; i++)
		if (!strcmp(registered[i]->type, type))
			return registered[i];
	return NULL;
}

const struct rkb_cpu_op *rkb_cpu_op_find(const char *type)
{
	const struct rkb_cpu_op *op;

	hal_lock(&registry_lock);
	op = find_locked(type);
	hal_unlock(&registry_lock);
	return op;
}

int rkb_cpu_op_register(const struct rkb_cpu_op *op)
{
	int rc = RKB_OK;

	if (!op || !op->type || !op->type[0] || !op->run)
		return RKB_E_ARG;
	hal_lock(&registry_lock);
	if (find_locked(op->type))
		rc = RKB_E_ARG;
	else if (n_registered == RKB_CPU_OPS_MAX)
		rc = RKB_E_NOMEM;
	else
		registered[n_registered++] = op;
	hal_unlock(&registry_lock);
	return rc;
}
