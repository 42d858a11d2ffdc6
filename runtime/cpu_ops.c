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
#include "runtime/model.h"

/* int8 values, for the tables of element-wise ops. */
#define Q_MIN		(-128)
#define Q_LEVELS	256

/* Ops the application registered, under registry_lock: a context being
 * created on one CPU looks them up while another CPU may register one. */
static struct hal_lock registry_lock = HAL_LOCK_INITIALIZER;
static const struct rkb_cpu_op *registered[RKB_CPU_OPS_MAX];
static unsigned int n_registered;

static float dequant(int8_t q, const struct rkb_cpu_tensor *t)
{
	return t->scale * (float)(q - t->zp);
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
	return 1.0f / (1.0f + expf(-v));
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
 * map along it, exp(x − max) / Σ exp(x − max). */
static int run_softmax(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in;
	int axis = softmax_axis(call);
	unsigned int len = axis == RKB_CPU_AXIS_C ? in->c : axis == RKB_CPU_AXIS_H ? in->h : in->w;
	unsigned int a = axis == RKB_CPU_AXIS_C ? in->h : in->c;
	unsigned int b = axis == RKB_CPU_AXIS_W ? in->h : in->w;

	for (unsigned int i = 0; i < a; i++)
		for (unsigned int j = 0; j < b; j++) {
			float top = -INFINITY, sum = 0.0f;

			for (unsigned int k = 0; k < len; k++) {
				float v = line_get(in, axis, i, j, k);

				top = v > top ? v : top;
			}
			for (unsigned int k = 0; k < len; k++)
				sum += expf(line_get(in, axis, i, j, k) - top);
			for (unsigned int k = 0; k < len; k++)
				line_set(&call->out, axis, i, j, k,
					 expf(line_get(in, axis, i, j, k) - top) / sum);
		}
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

static const struct rkb_cpu_op builtins[] = {
	{ "Sigmoid", same_shape, run_sigmoid },
	{ "Tanh", same_shape, run_tanh },
	{ "Softmax", check_softmax, run_softmax },
	{ "AveragePool", check_avg_pool, run_avg_pool },
	{ "Transpose", check_transpose, run_transpose },
	{ "Concat", check_concat, run_concat },
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
