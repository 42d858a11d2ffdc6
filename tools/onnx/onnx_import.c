/* SPDX-License-Identifier: MIT */
/*
 * Quantised ONNX → NPU ops (onnx_import.h). Operator semantics: the ONNX
 * operator documents (QuantizeLinear, DequantizeLinear, QLinearConv, Conv,
 * Gemm, MatMul, Add, MaxPool, AveragePool, GlobalAveragePool, Relu, Clip,
 * Flatten, Reshape).
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/onnx/onnx_import.h"
#include "tools/onnx/onnx_shape.h"

/* uint8 values and zero points move to int8 by subtracting this. */
#define U8_TO_S8	128
/* Scales a quantised bias is allowed to differ by from in × w before it is
 * requantised rather than taken as it is (float rounding of the product). */
#define BIAS_SCALE_RTOL	1e-5

struct imp {
	const struct onnx_graph *g;
	struct imp_graph *ig;
	int *producer;		/* ONNX tensor → node, -1 */
	int *users;		/* ONNX tensor → number of reading nodes */
	int *qt;		/* ONNX tensor → imp tensor, -1 */
	bool *used;		/* ONNX node → consumed by a pattern */
	bool *has_params;	/* imp tensor → scale / zp known */
	bool *flat_view;	/* ONNX tensor → a Flatten / Reshape of a feature map */
	bool *nhwc_view;	/* ONNX tensor → the channels-last view of its imp
				 * tensor (a graph edge only: no NPU op reads it) */
	bool *zero_const;	/* ONNX tensor → a quantised all-zero ConstantOfShape */
	bool fc_operand;	/* dq_source called for a fully-connected input */
	size_t cap_ops, cap_tensors;
	const struct onnx_node *n;	/* node being mapped, for messages */
	char *err;
	size_t err_len;
};

static int fail(struct imp *s, const char *fmt, ...)
{
	va_list ap;
	int k = 0;

	if (!s->err_len)
		return -ENOTSUP;
	if (s->n)
		k = snprintf(s->err, s->err_len, "node '%s' (%s): ", s->n->name, s->n->op_type);
	if (k < 0 || (size_t)k >= s->err_len)
		k = 0;
	va_start(ap, fmt);
	vsnprintf(s->err + k, s->err_len - (size_t)k, fmt, ap);
	va_end(ap);
	return -ENOTSUP;
}

static const struct onnx_tensor *T(const struct imp *s, int i)
{
	return i >= 0 ? &s->g->tensors[i] : NULL;
}

static const struct onnx_node *prod(const struct imp *s, int t)
{
	return t >= 0 && s->producer[t] >= 0 ? &s->g->nodes[s->producer[t]] : NULL;
}

static bool is_op(const struct onnx_node *n, const char *op)
{
	return n && !strcmp(n->op_type, op);
}

static int in_of(const struct onnx_node *n, size_t i)
{
	return i < n->n_in ? n->in[i] : -1;
}

/* ---- constants ---- */

static bool is_const(const struct imp *s, int t)
{
	return t >= 0 && T(s, t)->role == ONNX_TENSOR_CONSTANT;
}

/* Element i of a constant as a double (float, int8/uint8, int32, int64). */
static double const_at(const struct onnx_tensor *t, size_t i)
{
	const void *d = t->data;

	switch (t->dtype) {
	case ONNX_DT_FLOAT: return ((const float *)d)[i];
	case ONNX_DT_INT8: return ((const int8_t *)d)[i];
	case ONNX_DT_UINT8: return ((const uint8_t *)d)[i];
	case ONNX_DT_INT32: return ((const int32_t *)d)[i];
	case ONNX_DT_INT64: return (double)((const int64_t *)d)[i];
	default: return NAN;
	}
}

/* A scale: a positive finite float constant of 1 (or n) elements. */
static int get_scales(struct imp *s, int t, size_t n, float *out, size_t *count)
{
	const struct onnx_tensor *c = T(s, t);

	if (!is_const(s, t) || c->dtype != ONNX_DT_FLOAT || (c->count != 1 && c->count != n))
		return fail(s, "scale '%s' must be a float32 constant of 1 or %zu elements",
			    c ? c->name : "", n);
	for (size_t i = 0; i < c->count; i++) {
		out[i] = ((const float *)c->data)[i];
		if (!(out[i] > 0.0f) || !isfinite(out[i]))
			return fail(s, "scale '%s' holds %g, not a positive finite number", c->name,
				    (double)out[i]);
	}
	*count = c->count;
	return 0;
}

/* A zero point in the signed domain (absent: uint8 0); all elements equal. */
static int get_zp(struct imp *s, int t, int32_t dtype_if_absent, int32_t *zp, bool *is_u8)
{
	const struct onnx_tensor *c = T(s, t);

	if (t < 0) {
		*is_u8 = dtype_if_absent != ONNX_DT_INT8;
		*zp = *is_u8 ? -U8_TO_S8 : 0;
		return 0;
	}
	if (!is_const(s, t) || (c->dtype != ONNX_DT_INT8 && c->dtype != ONNX_DT_UINT8) ||
	    !c->count)
		return fail(s, "zero point '%s' must be an int8 or uint8 constant", c->name);
	for (size_t i = 1; i < c->count; i++)
		if (const_at(c, i) != const_at(c, 0))
			return fail(s, "zero point '%s' differs between channels (the NPU takes "
				    "one weight zero point)", c->name);
	*is_u8 = c->dtype == ONNX_DT_UINT8;
	*zp = (int32_t)const_at(c, 0) - (*is_u8 ? U8_TO_S8 : 0);
	return 0;
}

/* ---- growing the result ---- */

static int add_tensor(struct imp *s, int onnx_t, unsigned int c, unsigned int h,
		      unsigned int w)
{
	struct imp_graph *ig = s->ig;

	if (ig->n_tensors == s->cap_tensors) {
		size_t cap = s->cap_tensors ? 2 * s->cap_tensors : 32;
		struct imp_tensor *t = realloc(ig->tensors, cap * sizeof(*t));
		bool *hp = realloc(s->has_params, cap * sizeof(*hp));

		if (t)
			ig->tensors = t;
		if (hp)
			s->has_params = hp;
		if (!t || !hp)
			return -ENOMEM;
		s->cap_tensors = cap;
	}
	memset(&ig->tensors[ig->n_tensors], 0, sizeof(ig->tensors[0]));
	ig->tensors[ig->n_tensors].name = T(s, onnx_t)->name;
	ig->tensors[ig->n_tensors].c = c;
	ig->tensors[ig->n_tensors].h = h;
	ig->tensors[ig->n_tensors].w = w;
	s->has_params[ig->n_tensors] = false;
	s->qt[onnx_t] = (int)ig->n_tensors;
	return (int)ig->n_tensors++;
}

/* The imp tensor of an ONNX tensor of rank 4 [1,C,H,W], 3 [A,B,C] or 2
 * [M,K]: M rows (H) of K channels, which the runtime converts channels-last. */
static int new_qt(struct imp *s, int onnx_t)
{
	const struct onnx_tensor *t = T(s, onnx_t);

	if (t->rank == 4 && t->dims[0] == 1)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[1], (unsigned int)t->dims[2],
				  (unsigned int)t->dims[3]);
	if (t->rank == 2)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[1], (unsigned int)t->dims[0], 1);
	/* Only element-wise ops and views take rank 3 (shape inference keeps
	 * it from windows and matmuls): C, H, W in row-major order. */
	if (t->rank == 3)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[0], (unsigned int)t->dims[1],
				  (unsigned int)t->dims[2]);
	return fail(s, "tensor '%s' is not [1,C,H,W], [A,B,C] or [M,K] (batch 1 only)", t->name);
}

static struct imp_op *add_op(struct imp *s, enum imp_op_kind kind)
{
	struct imp_graph *ig = s->ig;
	struct imp_op *op;

	if (ig->n_ops == s->cap_ops) {
		size_t cap = s->cap_ops ? 2 * s->cap_ops : 32;
		struct imp_op *o = realloc(ig->ops, cap * sizeof(*o));

		if (!o)
			return NULL;
		ig->ops = o;
		s->cap_ops = cap;
	}
	op = &ig->ops[ig->n_ops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->node = s->n->name[0] ? s->n->name : s->n->op_type;
	op->in[1] = -1;
	return op;
}

/* Sets (or checks) the quantisation of an imp tensor. */
static int set_params(struct imp *s, int it, float scale, int32_t zp)
{
	struct imp_tensor *t = &s->ig->tensors[it];

	if (s->has_params[it] && (t->scale != scale || t->zp != zp))
		return fail(s, "tensor '%s' is read with two different quantisations", t->name);
	t->scale = scale;
	t->zp = zp;
	s->has_params[it] = true;
	return 0;
}

/* ---- operands ---- */

/* The quantised ONNX tensor behind DequantizeLinear output f, or -1. */
static int dq_input(const struct imp *s, int f)
{
	const struct onnx_node *dq = prod(s, f);

	return is_op(dq, "DequantizeLinear") ? in_of(dq, 0) : -1;
}

/* The imp tensor behind a float tensor read by a compute op: the output of
 * a DequantizeLinear of a quantised tensor. */
static int dq_source(struct imp *s, int f)
{
	int q = dq_input(s, f);

	if (q < 0 || s->qt[q] < 0)
		return fail(s, "input '%s' is not the DequantizeLinear of a quantised tensor "
			    "(quantize the model first: rkbare quantize)", T(s, f)->name);
	if (s->nhwc_view[q])
		return fail(s, "input '%s' is a transposed (channels-last) feature map: only a "
			    "graph edge may be one", T(s, f)->name);
	/* A flattened map keeps its C × H × W memory: only a fully-connected
	 * layer (an H × W convolution) reads it in the flattened order. */
	if (s->flat_view[q] && !s->fc_operand)
		return fail(s, "input '%s' is a reshaped feature map; only Gemm / MatMul may "
			    "read it", T(s, f)->name);
	return s->qt[q];
}

/*
 * Quantised weights behind w_f (the output of a DequantizeLinear of a
 * constant, or a quantised constant read by a QLinear op directly):
 * signed int8 values in the constant's order, per-axis scales over `axis`.
 */
struct qweights {
	int8_t *v;
	size_t count;
	float *scale;
	size_t n_scale;
	int32_t zp;
	const struct onnx_tensor *t;
};

static int weights_of(struct imp *s, int wq, int sc, int zpt, size_t channels,
		      struct qweights *w)
{
	const struct onnx_tensor *q = T(s, wq);
	bool is_u8;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!is_const(s, wq) || (q->dtype != ONNX_DT_INT8 && q->dtype != ONNX_DT_UINT8))
		return fail(s, "weights '%s' are not a quantised int8/uint8 constant",
			    q ? q->name : "");
	w->t = q;
	w->count = q->count;
	w->v = malloc(q->count ? q->count : 1);
	w->scale = malloc(channels * sizeof(float));
	if (!w->v || !w->scale)
		return -ENOMEM;
	rc = get_scales(s, sc, channels, w->scale, &w->n_scale);
	if (!rc)
		rc = get_zp(s, zpt, q->dtype, &w->zp, &is_u8);
	if (rc)
		return rc;
	for (size_t i = 0; i < q->count; i++)
		w->v[i] = (int8_t)((int32_t)const_at(q, i) - (is_u8 ? U8_TO_S8 : 0));
	return 0;
}

static int weights_from_dq(struct imp *s, int w_f, int expected_axis, size_t channels,
			   struct qweights *w)
{
	const struct onnx_node *dq = prod(s, w_f);

	if (!dq && is_const(s, w_f))
		return fail(s, "weights '%s' are float (quantize the model first: rkbare quantize)",
			    T(s, w_f)->name);
	if (!is_op(dq, "DequantizeLinear"))
		return fail(s, "weights '%s' are not a DequantizeLinear of a constant",
			    T(s, w_f)->name);
	if (T(s, in_of(dq, 1))->count > 1 && onnx_attr_int(dq, "axis", 1) != expected_axis)
		return fail(s, "weights '%s' are quantised along axis %lld, the NPU needs the "
			    "output-channel axis %d", T(s, w_f)->name,
			    (long long)onnx_attr_int(dq, "axis", 1), expected_axis);
	return weights_of(s, in_of(dq, 0), in_of(dq, 1), in_of(dq, 2), channels, w);
}

static void qweights_free(struct qweights *w)
{
	free(w->v);
	free(w->scale);
}

/*
 * The bias in units of in_scale × w_scale[c] from a DequantizeLinear of an
 * int32 constant (requantised when its scale differs) or a float constant,
 * times mul (Gemm's beta; 1 elsewhere).
 */
static int bias_of(struct imp *s, int b_f, float in_scale, const struct qweights *w,
		   size_t channels, float mul, int32_t **out)
{
	const struct onnx_node *dq = prod(s, b_f);
	const struct onnx_tensor *bq = NULL;
	float bscale[8192];
	size_t n_bscale = 0;
	int rc;

	*out = NULL;
	if (b_f < 0)
		return 0;
	if (channels > sizeof(bscale) / sizeof(bscale[0]))
		return fail(s, "more than 8192 output channels");
	if (is_op(dq, "DequantizeLinear")) {
		bq = T(s, in_of(dq, 0));
		if (!is_const(s, in_of(dq, 0)) || bq->dtype != ONNX_DT_INT32 || bq->count != channels)
			return fail(s, "bias '%s' is not an int32 constant of %zu values",
				    T(s, b_f)->name, channels);
		rc = get_scales(s, in_of(dq, 1), channels, bscale, &n_bscale);
		if (rc)
			return rc;
	} else if (is_const(s, b_f) && T(s, b_f)->dtype == ONNX_DT_FLOAT &&
		   (T(s, b_f)->count == channels || T(s, b_f)->count == 1)) {
		bq = T(s, b_f);		/* one value broadcasts to every channel */
	} else {
		return fail(s, "bias '%s' is neither a quantised nor a float constant of %zu values "
			    "(or one)", T(s, b_f)->name, channels);
	}
	*out = malloc(channels * sizeof(int32_t));
	if (!*out)
		return -ENOMEM;
	for (size_t c = 0; c < channels; c++) {
		double unit = (double)in_scale * w->scale[w->n_scale > 1 ? c : 0];
		double v = const_at(bq, bq->count == 1 ? 0 : c);

		if (n_bscale) {
			double bs = bscale[n_bscale > 1 ? c : 0] * mul;

			if (fabs(bs - unit) > BIAS_SCALE_RTOL * unit)
				v = nearbyint(v * bs / unit);
		} else {
			v = nearbyint(v * mul / unit);
		}
		if (!(fabs(v) <= 2147483647.0))
			return fail(s, "bias %zu does not fit int32 in units of input x weight scale",
				    c);
		(*out)[c] = (int32_t)v;
	}
	return 0;
}

/* ---- patterns ---- */

/* Relu / Clip between a compute op and its QuantizeLinear. */
static int activation_of(struct imp *s, const struct onnx_node *a, struct imp_op *op)
{
	if (is_op(a, "Relu")) {
		op->act = LOWER_ACT_RELU;
		return 0;
	}
	if (s->g->opset < 11) {
		op->act_min = onnx_attr_float(a, "min", -INFINITY);
		op->act_max = onnx_attr_float(a, "max", INFINITY);
	} else {
		int lo = in_of(a, 1), hi = in_of(a, 2);

		if ((lo >= 0 && (!is_const(s, lo) || T(s, lo)->count != 1)) ||
		    (hi >= 0 && (!is_const(s, hi) || T(s, hi)->count != 1)))
			return fail(s, "Clip bounds must be constants");
		op->act_min = lo >= 0 ? (float)const_at(T(s, lo), 0) : -INFINITY;
		op->act_max = hi >= 0 ? (float)const_at(T(s, hi), 0) : INFINITY;
	}
	if (op->act_min == 0.0f && op->act_max == 6.0f)
		op->act = LOWER_ACT_RELU6;
	else if (op->act_min == 0.0f && isinf(op->act_max))
		op->act = LOWER_ACT_RELU;
	else
		op->act = LOWER_ACT_CLIP;
	return 0;
}

static void window_to_op(const struct onnx_window *w, struct imp_op *op)
{
	op->kh = (unsigned int)w->kh;
	op->kw = (unsigned int)w->kw;
	op->stride_y = (unsigned int)w->sh;
	op->stride_x = (unsigned int)w->sw;
	op->pad_top = (unsigned int)w->pad_top;
	op->pad_left = (unsigned int)w->pad_left;
	op->pad_bottom = (unsigned int)w->pad_bottom;
	op->pad_right = (unsigned int)w->pad_right;
}

/* Conv between DQ and Q, or QLinearConv: weights [M, C/g, kh, kw]. */
static int map_conv(struct imp *s, struct imp_op *op, const struct onnx_node *c,
		    const struct qweights *w, int bias_f, bool bias_is_int)
{
	const struct imp_tensor *x = &s->ig->tensors[op->in[0]];
	const struct onnx_tensor *wt = w->t;
	int64_t group = onnx_attr_int(c, "group", 1);
	unsigned int m = (unsigned int)wt->dims[0], kh = (unsigned int)wt->dims[2],
		     kw = (unsigned int)wt->dims[3], icg = (unsigned int)wt->dims[1];
	struct onnx_window win;
	int rc;

	rc = onnx_window_get(c, (int)x->h, (int)x->w, (int)kh, (int)kw, &win, s->err, s->err_len);
	if (rc)
		return rc;
	if (win.dh != 1 || win.dw != 1)
		return fail(s, "dilated convolutions are not supported by the NPU lowering");
	window_to_op(&win, op);
	if (group == 1) {
		op->depthwise = false;
	} else if (group == (int64_t)x->c && m == x->c && icg == 1) {
		op->depthwise = true;
	} else {
		return fail(s, "group %lld: only plain (1) and depthwise (channels, multiplier 1) "
			    "convolutions map to the NPU", (long long)group);
	}
	op->kind = IMP_CONV;
	op->weights = malloc(w->count);
	if (!op->weights)
		return -ENOMEM;
	/* OIHW → OHWI; depthwise [C,1,kh,kw] → [kh][kw][C] */
	for (unsigned int o = 0; o < m; o++)
		for (unsigned int i = 0; i < icg; i++)
			for (unsigned int y = 0; y < kh; y++)
				for (unsigned int xx = 0; xx < kw; xx++) {
					size_t src = ((size_t)(o * icg + i) * kh + y) * kw + xx;
					size_t dst = op->depthwise
							     ? ((size_t)y * kw + xx) * m + o
							     : (((size_t)o * kh + y) * kw + xx) * icg + i;

					op->weights[dst] = w->v[src];
				}
	op->w_zp = w->zp;
	op->w_scale = malloc(w->n_scale * sizeof(float));
	if (!op->w_scale)
		return -ENOMEM;
	memcpy(op->w_scale, w->scale, w->n_scale * sizeof(float));
	op->w_scale_count = (unsigned int)w->n_scale;
	if (bias_is_int && bias_f >= 0) {
		const struct onnx_tensor *b = T(s, bias_f);

		if (!is_const(s, bias_f) || b->dtype != ONNX_DT_INT32 || b->count != m)
			return fail(s, "bias '%s' is not an int32 constant of %u values", b->name, m);
		op->bias = malloc(m * sizeof(int32_t));
		if (!op->bias)
			return -ENOMEM;
		memcpy(op->bias, b->data, m * sizeof(int32_t));
		return 0;
	}
	return bias_of(s, bias_f, x->scale, w, m, 1.0f, &op->bias);
}

/*
 * Fully connected weights w ([K, N], or [N, K] when tb) as the kernel of a
 * kh × kw convolution over x: element (n, k = c·kh·kw + y·kw + x) → OHWI
 * [n][y][x][c]; alpha scales every product (Gemm).
 */
static int fc_weights(struct imp_op *op, const struct imp_tensor *x, const struct qweights *w,
		      unsigned int k, unsigned int n, bool tb, unsigned int kh, unsigned int kw,
		      float alpha)
{
	op->weights = malloc(w->count);
	op->w_scale = malloc(w->n_scale * sizeof(float));
	if (!op->weights || !op->w_scale)
		return -ENOMEM;
	for (unsigned int o = 0; o < n; o++)
		for (unsigned int i = 0; i < k; i++) {
			unsigned int c = i / (kh * kw), y = (i % (kh * kw)) / kw, xx = i % kw;

			op->weights[(((size_t)o * kh + y) * kw + xx) * x->c + c] =
				w->v[tb ? (size_t)o * k + i : (size_t)i * n + o];
		}
	for (size_t i = 0; i < w->n_scale; i++)
		op->w_scale[i] = w->scale[i] * alpha;
	op->w_scale_count = (unsigned int)w->n_scale;
	op->w_zp = w->zp;
	op->kind = IMP_CONV;
	op->kh = kh;
	op->kw = kw;
	op->stride_y = op->stride_x = 1;
	return 0;
}

/*
 * Gemm / MatMul as a convolution: an [M,K] input is a 1×1 conv over K
 * channels on M rows; a Flatten / Reshape of a [1,C,H,W] map is an H×W conv
 * whose kernel takes the flattened NCHW order apart. Gemm's alpha scales
 * the weights, beta the bias.
 */
static int map_fc(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	bool gemm = is_op(p, "Gemm");
	bool tb = gemm && onnx_attr_int(p, "transB", 0);
	float alpha = gemm ? onnx_attr_float(p, "alpha", 1.0f) : 1.0f;
	float beta = gemm ? onnx_attr_float(p, "beta", 1.0f) : 1.0f;
	int a = in_of(p, 0);
	const struct onnx_tensor *at = T(s, a);
	const struct onnx_node *view = prod(s, a);
	const struct imp_tensor *x;
	struct qweights w;
	unsigned int k, n, kh = 1, kw = 1;
	int rc;

	if (gemm && onnx_attr_int(p, "transA", 0))
		return fail(s, "Gemm with transA: the NPU does not transpose a feature map");
	if (!(alpha > 0.0f) || !isfinite(alpha) || !isfinite(beta))
		return fail(s, "Gemm alpha %g / beta %g: alpha must be positive and both finite",
			    (double)alpha, (double)beta);
	if (is_op(view, "Flatten") || is_op(view, "Reshape")) {
		s->used[view - s->g->nodes] = true;
		a = in_of(view, 0);
	}
	s->fc_operand = true;
	op->in[0] = dq_source(s, a);
	s->fc_operand = false;
	if (op->in[0] < 0)
		return op->in[0];
	x = &s->ig->tensors[op->in[0]];
	/* M rows of K channels ([M,K] itself), or a flattened [1,C,H,W] map
	 * (seen here directly or through its QuantizeLinear / DequantizeLinear) */
	if (!(at->rank == 2 && x->w == 1 && (uint64_t)at->dims[0] == x->h &&
	      (uint64_t)at->dims[1] == x->c)) {
		kh = x->h;
		kw = x->w;
	}
	k = (unsigned int)T(s, in_of(p, 1))->dims[tb ? 1 : 0];
	n = (unsigned int)T(s, in_of(p, 1))->dims[tb ? 0 : 1];
	if (k != x->c * kh * kw)
		return fail(s, "the input holds %u values a row, the weights take %u",
			    x->c * kh * kw, k);
	rc = weights_from_dq(s, in_of(p, 1), tb ? 0 : 1, n, &w);
	if (!rc)
		rc = fc_weights(op, x, &w, k, n, tb, kh, kw, alpha);
	if (!rc) {
		for (size_t i = 0; i < w.n_scale; i++)
			w.scale[i] *= alpha;	/* the bias is in units of the product */
		rc = bias_of(s, gemm ? in_of(p, 2) : -1, x->scale, &w, n, beta, &op->bias);
	}
	qweights_free(&w);
	return rc;
}

static int map_pool(struct imp *s, struct imp_op *op, const struct onnx_node *p, int in)
{
	const struct imp_tensor *x = &s->ig->tensors[in];
	struct onnx_window win = { 0 };
	int rc;

	op->kind = IMP_POOL;
	op->in[0] = in;
	if (is_op(p, "GlobalAveragePool") || is_op(p, "GlobalMaxPool")) {
		op->pool = is_op(p, "GlobalMaxPool") ? LOWER_POOL_MAX : LOWER_POOL_AVG;
		op->kh = x->h;
		op->kw = x->w;
		op->stride_y = op->stride_x = 1;
		return 0;
	}
	op->pool = is_op(p, "MaxPool") ? LOWER_POOL_MAX : LOWER_POOL_AVG;
	rc = onnx_window_get(p, (int)x->h, (int)x->w, 0, 0, &win, s->err, s->err_len);
	if (rc)
		return rc;
	if (win.dh != 1 || win.dw != 1)
		return fail(s, "dilated pooling is not supported by the PPU");
	window_to_op(&win, op);
	/* The PPU counts padded cells, as zeros, in an average's divisor: ONNX's
	 * count_include_pad = 1. Without it the divisors differ, so the CPU
	 * averages the cells inside the input (runtime/cpu_ops.c). */
	if (op->pool == LOWER_POOL_AVG && (win.pad_top || win.pad_left || win.pad_bottom ||
					   win.pad_right || win.ceil_mode) &&
	    (!win.count_include_pad || win.ceil_mode)) {
		if (win.count_include_pad)
			return fail(s, "average pooling with ceil_mode and count_include_pad = 1 "
				    "(a divisor over the padding but not past it)");
		op->kind = IMP_CPU;
		op->cpu_type = "AveragePool";
		return 0;
	}
	/* ceil_mode: the extra output row / column reads padding past the end */
	op->pad_bottom = (unsigned int)((win.out_h - 1) * win.sh + win.kh - (int)x->h) -
			 op->pad_top;
	op->pad_right = (unsigned int)((win.out_w - 1) * win.sw + win.kw - (int)x->w) -
			op->pad_left;
	if ((int)op->pad_bottom < 0)
		op->pad_bottom = 0;
	if ((int)op->pad_right < 0)
		op->pad_right = 0;
	return 0;
}

/* The op behind QuantizeLinear q: [compute] [Relu|Clip] → Q. */
/* Transpose perm of a rank-4 tensor as 4 digits (0231 = NCHW → NHWC), or -1. */
static int perm4(const struct onnx_node *n)
{
	const struct onnx_attr *a = onnx_node_attr(n, "perm");
	int v = 0;

	if (!a || a->type != ONNX_ATTR_INTS || a->n != 4)
		return -1;
	for (int i = 0; i < 4; i++) {
		if (a->ints[i] < 0 || a->ints[i] > 3)
			return -1;
		v = v * 10 + (int)a->ints[i];
	}
	return v;
}

#define PERM_TO_NHWC	231	/* (0, 2, 3, 1) */
#define PERM_TO_NCHW	312	/* (0, 3, 1, 2) */

/* Is quantised tensor t read only on the way to a graph output: by
 * DequantizeLinear nodes whose results are outputs or are reshaped? */
static bool toward_output(const struct imp *s, int t)
{
	const struct onnx_graph *g = s->g;

	for (size_t k = 0; k < g->n_nodes; k++)
		for (size_t j = 0; j < g->nodes[k].n_in; j++) {
			const struct onnx_node *dq = &g->nodes[k];

			if (dq->in[j] != t)
				continue;
			if (!is_op(dq, "DequantizeLinear"))
				return false;
			for (size_t m = 0; m < g->n_nodes; m++)
				for (size_t i = 0; i < g->nodes[m].n_in; i++)
					if (g->nodes[m].in[i] == dq->out[0] &&
					    !is_op(&g->nodes[m], "Reshape") &&
					    !is_op(&g->nodes[m], "Flatten"))
						return false;
		}
	return true;
}

/* The map axis (0 channels, 1 rows, 2 columns) of ONNX axis a of a rank-r
 * tensor: [1, C, H, W], [A, B, C] as C × H × W, [M, K] as M rows of K
 * channels; -1 for the batch axis. */
static int map_axis(int r, int a)
{
	static const int of4[] = { -1, 0, 1, 2 }, of3[] = { 0, 1, 2 }, of2[] = { 1, 0 };

	return r == 4 ? of4[a] : r == 3 ? of3[a] : of2[a];
}

/*
 * Any other transpose of a map (the batch axis of a 4-D tensor staying
 * first) runs on the CPU (runtime/cpu_ops.c "Transpose"), requantising
 * when its QuantizeLinear differs from its input's.
 */
static int map_cpu_transpose(struct imp *s, const struct onnx_node *q,
			     const struct onnx_node *p, int src, float scale, int32_t zp)
{
	const struct onnx_attr *a = onnx_node_attr(p, "perm");
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	int r = x->rank, out, rc;
	struct imp_op *op;
	int perm[3] = { 0, 1, 2 };

	if (s->nhwc_view[src] || s->flat_view[src] || r < 2 || r > 4 ||
	    (r == 4 && x->dims[0] != 1))
		return fail(s, "only transposes of a [1,C,H,W], [A,B,C] or [M,K] map that is "
			    "not a channels-last or flattened view");
	if (a && (a->type != ONNX_ATTR_INTS || a->n != (size_t)r))
		return fail(s, "perm is not a list of %d axes", r);
	for (int j = 0; j < r; j++) {
		int from = a ? (int)a->ints[j] : r - 1 - j;	/* default: reversed */

		if (from < 0 || from >= r)
			return fail(s, "perm names axis %d of a rank-%d tensor", from, r);
		if (map_axis(r, j) < 0 || map_axis(r, from) < 0) {
			if (map_axis(r, j) != map_axis(r, from))
				return fail(s, "a transpose that moves the batch axis");
			continue;
		}
		perm[map_axis(r, j)] = map_axis(r, from);
	}
	out = new_qt(s, q->out[0]);
	rc = out < 0 ? out : set_params(s, out, scale, zp);
	op = rc ? NULL : add_op(s, IMP_CPU);
	if (!rc && !op)
		rc = -ENOMEM;
	if (rc)
		return rc;
	op->kind = IMP_CPU;
	op->cpu_type = "Transpose";
	memcpy(op->cpu_perm, perm, sizeof(perm));
	op->in[0] = s->qt[src];
	op->out = out;
	s->used[p - s->g->nodes] = true;
	return 0;
}

/*
 * Transpose between DequantizeLinear and QuantizeLinear, as TensorFlow
 * exports put them at the graph's edges: NHWC → NCHW right after a
 * channels-last input (map_inputs laid the input out NCHW already), and
 * NCHW → NHWC before an output, which then leaves channels-last. Both are
 * views: no data moves, and the quantisation must not change.
 */
static int map_transpose(struct imp *s, const struct onnx_node *q, const struct onnx_node *p,
			 float scale, int32_t zp)
{
	int src = dq_input(s, in_of(p, 0)), perm = perm4(p), in;

	s->n = p;
	if (src < 0 || s->qt[src] < 0)
		return fail(s, "input is not the DequantizeLinear of a quantised tensor");
	in = s->qt[src];
	if ((s->ig->tensors[in].scale != scale || s->ig->tensors[in].zp != zp) &&
	    !(s->nhwc_view[src] || s->flat_view[src]))
		return map_cpu_transpose(s, q, p, src, scale, zp);
	if (s->ig->tensors[in].scale != scale || s->ig->tensors[in].zp != zp)
		return fail(s, "a transpose of a channels-last edge that requantises (its "
			    "QuantizeLinear differs from its input's)");
	if (perm == PERM_TO_NCHW && s->nhwc_view[src]) {
		s->nhwc_view[q->out[0]] = false;
	} else if (perm == PERM_TO_NHWC && !s->nhwc_view[src] && !s->flat_view[src] &&
		   toward_output(s, q->out[0])) {
		s->nhwc_view[q->out[0]] = true;
	} else {
		return map_cpu_transpose(s, q, p, src, scale, zp);
	}
	s->used[p - s->g->nodes] = true;
	s->qt[q->out[0]] = in;
	return 0;
}

/* A ConstantOfShape of value 0 (the default), real zero once quantised. */
static bool zero_constant(const struct onnx_node *p)
{
	const struct onnx_attr *v = onnx_node_attr(p, "value");

	if (!v)
		return true;
	return v->type == ONNX_ATTR_TENSOR && v->t && v->t->count == 1 && const_at(v->t, 0) == 0.0;
}

/* A 1×1 convolution with `count` zero weights of scale 1, for the
 * identities below to fill: the output is the input requantised. */
static int unit_conv(struct imp_op *op, size_t count)
{
	op->kind = IMP_CONV;
	op->kh = op->kw = 1;
	op->stride_y = op->stride_x = 1;
	op->weights = calloc(count, 1);
	op->w_scale = malloc(sizeof(float));
	if (!op->weights || !op->w_scale)
		return -ENOMEM;
	op->w_scale[0] = 1.0f;
	op->w_scale_count = 1;
	op->w_zp = 0;
	return 0;
}

/*
 * Concat of a feature map with zeros along the channels (TensorFlow's
 * channel Pad): a 1×1 convolution whose first C kernels are the identity
 * and whose new kernels are zero, so the new channels hold the output's
 * zero point, real zero.
 */
static int map_channel_pad(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	int64_t axis = onnx_attr_int(p, "axis", 0);
	int zero = p->n_in == 2 ? dq_input(s, in_of(p, 1)) : -1;
	const struct imp_tensor *x, *y;

	if (p->n_in != 2 || (axis != 1 && axis != -3) || zero < 0 || !s->zero_const[zero])
		return fail(s, "only a Concat of a feature map with zeros along the channels "
			    "(a channel pad) maps to the NPU");
	op->in[0] = dq_source(s, in_of(p, 0));
	if (op->in[0] < 0)
		return op->in[0];
	x = &s->ig->tensors[op->in[0]];
	y = &s->ig->tensors[op->out];
	if (y->h != x->h || y->w != x->w || y->c <= x->c)
		return fail(s, "the padded map is not the input with more channels");
	if (unit_conv(op, (size_t)y->c * x->c))
		return -ENOMEM;
	for (unsigned int c = 0; c < x->c; c++)
		op->weights[(size_t)c * x->c + c] = 1;
	return 0;
}

/* Relu / Clip with no producer to fuse into: a 1×1 depthwise convolution
 * of weight 1 carrying the activation. */
static int map_activation(struct imp *s, struct imp_op *op, int f)
{
	const struct imp_tensor *x;

	op->in[0] = dq_source(s, f);
	if (op->in[0] < 0)
		return op->in[0];
	x = &s->ig->tensors[op->in[0]];
	if (unit_conv(op, x->c))
		return -ENOMEM;
	op->depthwise = true;
	memset(op->weights, 1, x->c);
	return 0;
}

/*
 * An op the NPU cannot run, on the CPU (runtime/cpu_ops.h) between its
 * DequantizeLinear and QuantizeLinear. Softmax runs over channels: the
 * axis must be the channel one of N, C, H, W, or the K of an [N, K] matrix.
 */
static int map_cpu(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	const struct imp_tensor *in, *out;

	if (op->act != LOWER_ACT_NONE)
		return fail(s, "an activation after %s is not fused into a CPU op", p->op_type);
	if (is_op(p, "Softmax")) {
		int64_t given = onnx_attr_int(p, "axis", s->g->opset >= 13 ? -1 : 1);
		int64_t axis = given < 0 ? given + x->rank : given, rest = 1;
		/* ONNX axis → the map's: [1, C, H, W], [A, B, C] as C × H × W, and
		 * [M, K] as M rows of K channels */
		static const int axes4[] = { -1, CPU_AXIS_C, CPU_AXIS_H, CPU_AXIS_W };
		static const int axes3[] = { CPU_AXIS_C, CPU_AXIS_H, CPU_AXIS_W };
		static const int axes2[] = { CPU_AXIS_H, CPU_AXIS_C };

		for (int k = (int)axis + 1; axis >= 0 && k < x->rank; k++)
			rest *= x->dims[k];
		op->cpu_axis = axis < 0 || axis >= x->rank ? -1 :
			       x->rank == 4 ? axes4[axis] : x->rank == 3 ? axes3[axis] :
			       x->rank == 2 ? axes2[axis] : -1;
		/* before opset 13 Softmax flattens the axes from `axis` on */
		if (op->cpu_axis < 0 || (s->g->opset < 13 && rest != 1))
			return fail(s, "Softmax over axis %lld of a rank-%d tensor%s", (long long)given,
				    x->rank, s->g->opset < 13 ? " (before opset 13: over the "
				    "flattened axes from it)" : "");
	}
	op->kind = IMP_CPU;
	op->cpu_type = p->op_type;
	op->in[0] = dq_source(s, in_of(p, 0));
	if (op->in[0] < 0)
		return op->in[0];
	in = &s->ig->tensors[op->in[0]];
	out = &s->ig->tensors[op->out];
	if (in->c != out->c || in->h != out->h || in->w != out->w)
		return fail(s, "%s changes the shape %ux%ux%u to %ux%ux%u", p->op_type, in->c,
			    in->h, in->w, out->c, out->h, out->w);
	return 0;
}

static int map_q(struct imp *s, const struct onnx_node *q)
{
	int x = in_of(q, 0), out, rc;
	const struct onnx_node *p = prod(s, x);
	struct imp_op *op;
	float scale;
	size_t one;
	int32_t zp;
	bool u8;

	rc = get_scales(s, in_of(q, 1), 1, &scale, &one);
	if (!rc)
		rc = get_zp(s, in_of(q, 2), ONNX_DT_UINT8, &zp, &u8);
	if (rc)
		return rc;
	if (is_op(p, "Flatten") || is_op(p, "Reshape")) {
		int src = dq_input(s, in_of(p, 0)), in;

		s->n = p;
		/* a channels-last view reshaped keeps its order: an edge only */
		in = src >= 0 && s->nhwc_view[src] ? s->qt[src] : dq_source(s, in_of(p, 0));
		if (in < 0)
			return in;
		if (s->ig->tensors[in].scale != scale || s->ig->tensors[in].zp != zp)
			return fail(s, "a reshape that requantises (its QuantizeLinear differs from "
				    "its input's)");
		s->used[p - s->g->nodes] = true;
		s->qt[q->out[0]] = in;
		s->flat_view[q->out[0]] = true;
		s->nhwc_view[q->out[0]] = src >= 0 && s->nhwc_view[src];
		return 0;
	}
	if (is_op(p, "Transpose"))
		return map_transpose(s, q, p, scale, zp);
	if (is_op(p, "ConstantOfShape")) {
		s->n = p;
		if (!zero_constant(p))
			return fail(s, "only an all-zero constant (a channel pad) maps to the NPU");
		s->used[p - s->g->nodes] = true;
		s->zero_const[q->out[0]] = true;
		return 0;
	}
	out = new_qt(s, q->out[0]);
	if (out < 0)
		return out;
	rc = set_params(s, out, scale, zp);
	if (rc)
		return rc;
	op = add_op(s, IMP_CONV);
	if (!op)
		return -ENOMEM;
	op->out = out;
	if (is_op(p, "Relu") || is_op(p, "Clip")) {
		int act_in = in_of(p, 0);

		rc = activation_of(s, p, op);
		if (rc)
			return rc;
		s->used[p - s->g->nodes] = true;
		s->n = p;
		/* alone, straight after a DequantizeLinear: nothing to fuse into */
		if (is_op(prod(s, act_in), "DequantizeLinear"))
			return map_activation(s, op, act_in);
		if (s->users[act_in] != 1)
			return fail(s, "the input of %s '%s' has other readers; it cannot be fused",
				    p->op_type, p->name);
		p = prod(s, act_in);
	}
	if (!p)
		return fail(s, "QuantizeLinear of '%s', which no node computes", T(s, x)->name);
	s->used[p - s->g->nodes] = true;
	s->n = p;
	if (is_op(p, "Sigmoid") || is_op(p, "Tanh") || is_op(p, "Softmax") ||
	    onnx_declared_cpu_op(s->g, p))
		return map_cpu(s, op, p);
	if (is_op(p, "Conv")) {
		struct qweights w;
		const struct onnx_tensor *wt = T(s, in_of(p, 1));

		op->in[0] = dq_source(s, in_of(p, 0));
		if (op->in[0] < 0)
			return op->in[0];
		if (wt->rank != 4)
			return fail(s, "weights are not 4-D");
		rc = weights_from_dq(s, in_of(p, 1), 0, (size_t)wt->dims[0], &w);
		if (!rc)
			rc = map_conv(s, op, p, &w, in_of(p, 2), false);
		qweights_free(&w);
		return rc;
	}
	if (is_op(p, "Gemm") || is_op(p, "MatMul"))
		return map_fc(s, op, p);
	if (is_op(p, "Concat"))
		return map_channel_pad(s, op, p);
	if (is_op(p, "Add")) {
		const struct imp_tensor *a, *b;

		op->kind = IMP_ADD;
		op->in[0] = dq_source(s, in_of(p, 0));
		op->in[1] = op->in[0] < 0 ? -1 : dq_source(s, in_of(p, 1));
		if (op->in[1] < 0)
			return -ENOTSUP;
		a = &s->ig->tensors[op->in[0]];
		b = &s->ig->tensors[op->in[1]];
		if (a->c != b->c || a->h != b->h || a->w != b->w)
			return fail(s, "operands of different shapes (no broadcasting on the NPU)");
		if (op->act == LOWER_ACT_CLIP)
			return fail(s, "Add with a Clip other than ReLU / ReLU6");
		return 0;
	}
	if (is_op(p, "MaxPool") || is_op(p, "AveragePool") || is_op(p, "GlobalAveragePool") ||
	    is_op(p, "GlobalMaxPool")) {
		int in = dq_source(s, in_of(p, 0));
		const struct imp_tensor *xt;

		if (in < 0)
			return in;
		xt = &s->ig->tensors[in];
		if (xt->scale != scale || xt->zp != zp)
			return fail(s, "pooling that requantises (output scale/zero point differ from "
				    "the input's) is not supported by the PPU");
		if (op->act != LOWER_ACT_NONE)
			return fail(s, "an activation after pooling is not fused by the PPU");
		return map_pool(s, op, p, in);
	}
	return fail(s, "no NPU mapping for %s between DequantizeLinear and QuantizeLinear",
		    p->op_type);
}

/*
 * The common part of QLinearConv and QLinearMatMul (inputs x, x_scale,
 * x_zp, ..., y_scale at 6, y_zp at 7): x's quantisation, the output tensor
 * with y's, and the convolution op between them.
 */
static struct imp_op *qlinear_op(struct imp *s, const struct onnx_node *n, int *rc)
{
	float xs, ys;
	size_t one;
	int32_t xz, yz;
	bool xu8, yu8;
	int x = s->qt[in_of(n, 0)], out;
	struct imp_op *op;

	if (x < 0) {
		*rc = fail(s, "input '%s' is not a quantised tensor", T(s, in_of(n, 0))->name);
		return NULL;
	}
	*rc = get_scales(s, in_of(n, 1), 1, &xs, &one);
	if (!*rc)
		*rc = get_zp(s, in_of(n, 2), T(s, in_of(n, 0))->dtype, &xz, &xu8);
	if (!*rc)
		*rc = set_params(s, x, xs, xz);
	if (!*rc)
		*rc = get_scales(s, in_of(n, 6), 1, &ys, &one);
	if (!*rc)
		*rc = get_zp(s, in_of(n, 7), ONNX_DT_UINT8, &yz, &yu8);
	if (*rc)
		return NULL;
	out = new_qt(s, n->out[0]);
	if (out < 0) {
		*rc = out;
		return NULL;
	}
	*rc = set_params(s, out, ys, yz);
	op = *rc ? NULL : add_op(s, IMP_CONV);
	if (!op) {
		*rc = *rc ? *rc : -ENOMEM;
		return NULL;
	}
	op->in[0] = x;
	op->out = out;
	return op;
}

/* QLinearConv: x, x_scale, x_zp, w, w_scale, w_zp, y_scale, y_zp, B. */
static int map_qlinear_conv(struct imp *s, const struct onnx_node *n)
{
	const struct onnx_tensor *wt = T(s, in_of(n, 3));
	struct qweights w;
	struct imp_op *op;
	int rc;

	if (!wt || wt->rank != 4)
		return fail(s, "weights are not a 4-D constant");
	op = qlinear_op(s, n, &rc);
	if (!op)
		return rc;
	rc = weights_of(s, in_of(n, 3), in_of(n, 4), in_of(n, 5), (size_t)wt->dims[0], &w);
	if (!rc)
		rc = map_conv(s, op, n, &w, in_of(n, 8), true);
	qweights_free(&w);
	return rc;
}

/* QLinearMatMul: a, a_scale, a_zp, b, b_scale, b_zp, y_scale, y_zp; b a
 * constant [K, N] with per-tensor or per-column scales: a 1×1 convolution
 * over the K channels of each of a's M rows. */
static int map_qlinear_matmul(struct imp *s, const struct onnx_node *n)
{
	const struct onnx_tensor *bt = T(s, in_of(n, 3)), *at = T(s, in_of(n, 0));
	struct qweights w;
	struct imp_op *op;
	int rc;

	if (!bt || bt->rank != 2 || !at || at->rank != 2 || at->dims[1] != bt->dims[0])
		return fail(s, "only a 2-D input times a 2-D constant of matching inner size");
	op = qlinear_op(s, n, &rc);
	if (!op)
		return rc;
	rc = weights_of(s, in_of(n, 3), in_of(n, 4), in_of(n, 5), (size_t)bt->dims[1], &w);
	if (!rc)
		rc = fc_weights(op, &s->ig->tensors[op->in[0]], &w, (unsigned int)bt->dims[0],
				(unsigned int)bt->dims[1], false, 1, 1, 1.0f);
	qweights_free(&w);
	return rc;
}

/*
 * ConvInteger (x, w, x_zero_point, w_zero_point) and MatMulInteger (A, B,
 * a_zero_point, b_zero_point): the int32 sums Σ(x − x_zp)(w − w_zp), which
 * leave the NPU unrequantised (a graph output only). x is an integer
 * tensor, which takes (scale 1, x_zp) as its quantisation; the weights are
 * stored as w − w_zp, which must fit int8, so no weight zero point reaches
 * the NPU (its datapath is unverified, HARDWARE.md §6.2).
 */
static int map_integer(struct imp *s, const struct onnx_node *n, bool conv)
{
	const struct onnx_tensor *xt = T(s, in_of(n, 0)), *wt = T(s, in_of(n, 1));
	int x = s->qt[in_of(n, 0)], out;
	struct qweights w = { 0 };
	struct imp_op *op;
	double wz = 0.0;
	int32_t xz;
	bool xu8;
	int rc;

	if (x < 0)
		return fail(s, "input '%s' is not an integer graph input or quantised tensor",
			    xt->name);
	if (!wt || !is_const(s, in_of(n, 1)) || wt->rank != (conv ? 4 : 2) ||
	    (wt->dtype != ONNX_DT_INT8 && wt->dtype != ONNX_DT_UINT8))
		return fail(s, "weights are not a %d-D int8/uint8 constant", conv ? 4 : 2);
	if (!conv && (xt->rank != 2 || xt->dims[1] != wt->dims[0]))
		return fail(s, "only a 2-D input times a 2-D constant of matching inner size");
	rc = get_zp(s, in_of(n, 2), xt->dtype, &xz, &xu8);
	if (!rc && in_of(n, 3) >= 0) {
		const struct onnx_tensor *z = T(s, in_of(n, 3));
		int32_t zs;
		bool zu8;

		rc = get_zp(s, in_of(n, 3), wt->dtype, &zs, &zu8);
		wz = z->count ? const_at(z, 0) : 0.0;	/* one value: get_zp checked */
	}
	if (!rc)
		rc = set_params(s, x, 1.0f, xz);
	if (rc)
		return rc;
	w.t = wt;
	w.count = wt->count;
	w.v = malloc(wt->count ? wt->count : 1);
	w.scale = malloc(sizeof(float));
	if (!w.v || !w.scale) {
		qweights_free(&w);
		return -ENOMEM;
	}
	w.scale[0] = 1.0f;
	w.n_scale = 1;
	for (size_t i = 0; i < wt->count; i++) {
		double v = const_at(wt, i) - wz;

		if (v < INT8_MIN || v > INT8_MAX) {
			qweights_free(&w);
			return fail(s, "weight %zu minus its zero point is %g, outside int8 (the "
				    "NPU's weight zero point is not used)", i, v);
		}
		w.v[i] = (int8_t)v;
	}
	out = new_qt(s, n->out[0]);
	rc = out < 0 ? out : set_params(s, out, 1.0f, 0);
	op = rc ? NULL : add_op(s, IMP_CONV);
	if (!rc && !op)
		rc = -ENOMEM;
	if (!rc) {
		s->ig->tensors[out].int32 = true;
		op->in[0] = x;
		op->out = out;
		rc = conv ? map_conv(s, op, n, &w, -1, true) :
		     fc_weights(op, &s->ig->tensors[x], &w, (unsigned int)wt->dims[0],
				(unsigned int)wt->dims[1], false, 1, 1, 1.0f);
	}
	qweights_free(&w);
	return rc;
}

/* A node reading the int32 sums of a ConvInteger / MatMulInteger: refused. */
static int reads_int32(struct imp *s, const struct onnx_node *n)
{
	for (size_t k = 0; k < n->n_in; k++) {
		const struct onnx_node *p = n->in[k] >= 0 ? prod(s, n->in[k]) : NULL;

		if (is_op(p, "ConvInteger") || is_op(p, "MatMulInteger"))
			return fail(s, "reads the int32 output of %s '%s', which is only a graph "
				    "output", p->op_type, p->name);
	}
	return 0;
}

/* A pool applied to a quantised tensor directly (MaxPool on uint8). */
static int map_int_pool(struct imp *s, const struct onnx_node *n)
{
	int in = s->qt[in_of(n, 0)], out;
	struct imp_op *op;

	if (in < 0)
		return fail(s, "input is neither float between DequantizeLinear/QuantizeLinear "
			    "nor a quantised tensor");
	out = new_qt(s, n->out[0]);
	if (out < 0)
		return out;
	s->ig->tensors[out].scale = s->ig->tensors[in].scale;
	s->ig->tensors[out].zp = s->ig->tensors[in].zp;
	s->has_params[out] = s->has_params[in];
	if (!s->has_params[in]) {	/* raw integers: the identity quantisation */
		int32_t zp = T(s, in_of(n, 0))->dtype == ONNX_DT_UINT8 ? -U8_TO_S8 : 0;

		s->ig->tensors[in].scale = s->ig->tensors[out].scale = 1.0f;
		s->ig->tensors[in].zp = s->ig->tensors[out].zp = zp;
		s->has_params[in] = s->has_params[out] = true;
	}
	op = add_op(s, IMP_POOL);
	if (!op)
		return -ENOMEM;
	op->out = out;
	return map_pool(s, op, n, in);
}

/* The one node reading ONNX tensor t, or NULL. */
static const struct onnx_node *sole_reader(const struct imp *s, int t)
{
	if (s->users[t] != 1)
		return NULL;
	for (size_t k = 0; k < s->g->n_nodes; k++)
		for (size_t j = 0; j < s->g->nodes[k].n_in; j++)
			if (s->g->nodes[k].in[j] == t)
				return &s->g->nodes[k];
	return NULL;
}

/*
 * The imp tensor of a float graph input's QuantizeLinear output q. A
 * [1,H,W,C] input the graph transposes to NCHW right away (DequantizeLinear
 * → Transpose (0,3,1,2), TensorFlow's exports) is laid out as the C × H × W
 * map and its edge is channels-last; an [M,K] edge is channels-last too.
 */
static int input_tensor(struct imp *s, const struct onnx_node *q, struct imp_io *io)
{
	int qo = q->out[0];
	const struct onnx_tensor *t = T(s, qo);
	const struct onnx_node *dq = sole_reader(s, qo);
	const struct onnx_node *tr = is_op(dq, "DequantizeLinear") ? sole_reader(s, dq->out[0]) : NULL;

	if (t->rank == 4 && t->dims[0] == 1 && is_op(tr, "Transpose") &&
	    perm4(tr) == PERM_TO_NCHW) {
		io->channels_last = true;
		s->nhwc_view[qo] = true;
		return add_tensor(s, qo, (unsigned int)t->dims[3], (unsigned int)t->dims[1],
				  (unsigned int)t->dims[2]);
	}
	io->channels_last = t->rank == 2;
	return new_qt(s, qo);
}

static int map_inputs(struct imp *s)
{
	const struct onnx_graph *g = s->g;
	struct imp_graph *ig = s->ig;

	ig->inputs = calloc(g->n_inputs + 1, sizeof(*ig->inputs));
	if (!ig->inputs)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_inputs; i++) {
		int t = g->inputs[i], q = -1, it;
		struct imp_io *io = &ig->inputs[ig->n_inputs++];

		io->name = T(s, t)->name;
		io->rank = T(s, t)->rank;
		memcpy(io->dims, T(s, t)->dims, sizeof(io->dims));
		if (T(s, t)->dtype == ONNX_DT_FLOAT) {
			/* read only by QuantizeLinear: the run quantises */
			for (size_t k = 0; k < g->n_nodes; k++)
				for (size_t j = 0; j < g->nodes[k].n_in; j++)
					if (g->nodes[k].in[j] == t) {
						if (!is_op(&g->nodes[k], "QuantizeLinear") || q >= 0) {
							s->n = &g->nodes[k];
							return fail(s, "float input '%s' must be read by "
								    "one QuantizeLinear only",
								    io->name);
						}
						q = (int)k;
					}
			if (q < 0)
				return fail(s, "input '%s' is not used", io->name);
			s->n = &g->nodes[q];
			s->used[q] = true;
			it = input_tensor(s, &g->nodes[q], io);
			if (it < 0)
				return it;
			{
				float sc;
				size_t one;
				int32_t zp;
				bool u8;
				int rc = get_scales(s, in_of(&g->nodes[q], 1), 1, &sc, &one);

				if (!rc)
					rc = get_zp(s, in_of(&g->nodes[q], 2), ONNX_DT_UINT8, &zp, &u8);
				if (!rc)
					rc = set_params(s, it, sc, zp);
				if (rc)
					return rc;
			}
			io->kind = IMP_IO_FLOAT;
		} else if (T(s, t)->dtype == ONNX_DT_INT8 || T(s, t)->dtype == ONNX_DT_UINT8) {
			io->channels_last = io->rank == 2;
			it = new_qt(s, t);
			if (it < 0)
				return it;
			io->kind = T(s, t)->dtype == ONNX_DT_UINT8 ? IMP_IO_UINT8 : IMP_IO_INT8;
		} else {
			return fail(s, "input '%s' is %s (float32, int8 or uint8 only)", io->name,
				    onnx_dtype_name(T(s, t)->dtype));
		}
		io->tensor = it;
	}
	return 0;
}

static int map_outputs(struct imp *s)
{
	const struct onnx_graph *g = s->g;
	struct imp_graph *ig = s->ig;

	s->n = NULL;
	ig->outputs = calloc(g->n_outputs + 1, sizeof(*ig->outputs));
	if (!ig->outputs)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_outputs; i++) {
		int t = g->outputs[i];
		const struct onnx_node *dq = prod(s, t);
		struct imp_io *io = &ig->outputs[ig->n_outputs++];

		io->name = T(s, t)->name;
		io->rank = T(s, t)->rank;
		memcpy(io->dims, T(s, t)->dims, sizeof(io->dims));
		if (s->qt[t] >= 0) {
			io->tensor = s->qt[t];
			io->kind = s->ig->tensors[s->qt[t]].int32 ? IMP_IO_INT32 :
				   T(s, t)->dtype == ONNX_DT_UINT8 ? IMP_IO_UINT8 : IMP_IO_INT8;
			io->channels_last = s->nhwc_view[t] || io->rank == 2;
		} else if (is_op(dq, "DequantizeLinear") && s->qt[in_of(dq, 0)] >= 0) {
			s->used[dq - g->nodes] = true;
			io->tensor = s->qt[in_of(dq, 0)];
			io->kind = IMP_IO_FLOAT;
			io->channels_last = s->nhwc_view[in_of(dq, 0)] || io->rank == 2;
		} else {
			return fail(s, "output '%s' is not a quantised tensor or its "
				    "DequantizeLinear", io->name);
		}
	}
	return 0;
}

static int map_graph(struct imp *s)
{
	const struct onnx_graph *g = s->g;
	int rc;

	for (size_t i = 0; i < g->n_nodes; i++)
		for (size_t k = 0; k < g->nodes[i].n_out; k++)
			if (g->nodes[i].out[k] >= 0)
				s->producer[g->nodes[i].out[k]] = (int)i;
	for (size_t i = 0; i < g->n_nodes; i++)
		for (size_t k = 0; k < g->nodes[i].n_in; k++)
			if (g->nodes[i].in[k] >= 0)
				s->users[g->nodes[i].in[k]]++;
	rc = map_inputs(s);
	for (size_t i = 0; !rc && i < g->n_nodes; i++) {
		const struct onnx_node *n = &g->nodes[i];

		s->n = n;
		/* a declared CPU op is taken by the QuantizeLinear after it (map_q) */
		if (s->used[i] || onnx_declared_cpu_op(g, n))
			continue;
		rc = *n->domain ? fail(s, "operator domain '%s' is not supported", n->domain) :
		     reads_int32(s, n);
		if (rc)
			break;
		if (is_op(n, "QuantizeLinear"))
			rc = (s->used[i] = true, map_q(s, n));
		else if (is_op(n, "ConvInteger") || is_op(n, "MatMulInteger"))
			rc = (s->used[i] = true, map_integer(s, n, is_op(n, "ConvInteger")));
		else if (is_op(n, "QLinearConv"))
			rc = (s->used[i] = true, map_qlinear_conv(s, n));
		else if (is_op(n, "QLinearMatMul"))
			rc = (s->used[i] = true, map_qlinear_matmul(s, n));
		else if ((is_op(n, "MaxPool") || is_op(n, "GlobalMaxPool")) && s->qt[in_of(n, 0)] >= 0)
			rc = (s->used[i] = true, map_int_pool(s, n));
		else if (is_op(n, "DequantizeLinear"))
			s->used[i] = true;	/* read through by the ops */
	}
	if (!rc)
		rc = map_outputs(s);
	for (size_t i = 0; !rc && i < g->n_nodes; i++)
		if (!s->used[i]) {
			s->n = &g->nodes[i];
			rc = fail(s, "no NPU mapping (float ops must sit between DequantizeLinear "
				  "and QuantizeLinear; supported: Conv, Gemm, MatMul, Add, MaxPool, "
				  "AveragePool, GlobalAveragePool, Relu, Clip, Flatten, QLinearConv, "
				  "QLinearMatMul, ConvInteger, MatMulInteger)");
		}
	for (size_t i = 0; !rc && i < s->ig->n_tensors; i++)
		if (!s->has_params[i]) {
			s->n = NULL;
			rc = fail(s, "tensor '%s' has no quantisation", s->ig->tensors[i].name);
		}
	return rc;
}

int onnx_import(const struct onnx_graph *g, struct imp_graph **out, char *err, size_t err_len)
{
	struct imp s = { .g = g, .err = err, .err_len = err_len };
	int rc;

	*out = NULL;
	s.ig = calloc(1, sizeof(*s.ig));
	s.producer = malloc((g->n_tensors + 1) * sizeof(int));
	s.users = calloc(g->n_tensors + 1, sizeof(int));
	s.qt = malloc((g->n_tensors + 1) * sizeof(int));
	s.used = calloc(g->n_nodes + 1, sizeof(bool));
	s.flat_view = calloc(g->n_tensors + 1, sizeof(bool));
	s.nhwc_view = calloc(g->n_tensors + 1, sizeof(bool));
	s.zero_const = calloc(g->n_tensors + 1, sizeof(bool));
	rc = !s.ig || !s.producer || !s.users || !s.qt || !s.used || !s.flat_view ||
	     !s.nhwc_view || !s.zero_const ? -ENOMEM : 0;
	if (!rc) {
		memset(s.producer, 0xff, (g->n_tensors + 1) * sizeof(int));
		memset(s.qt, 0xff, (g->n_tensors + 1) * sizeof(int));
		rc = map_graph(&s);
	}
	if (rc == -ENOMEM && err_len)
		snprintf(err, err_len, "out of memory");
	free(s.producer);
	free(s.users);
	free(s.qt);
	free(s.used);
	free(s.flat_view);
	free(s.nhwc_view);
	free(s.zero_const);
	free(s.has_params);
	if (rc)
		imp_graph_free(s.ig);
	else
		*out = s.ig;
	return rc;
}

void imp_graph_free(struct imp_graph *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->n_ops; i++) {
		free(ig->ops[i].weights);
		free(ig->ops[i].w_scale);
		free(ig->ops[i].bias);
	}
	free(ig->ops);
	free(ig->tensors);
	free(ig->inputs);
	free(ig->outputs);
	free(ig);
}
