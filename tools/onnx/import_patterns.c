/* SPDX-License-Identifier: MIT */
/* The NPU op (or CPU op) each float pattern between DequantizeLinear and
 * QuantizeLinear becomes (import_int.h). Operator semantics: the ONNX
 * operator documents. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/onnx/import_int.h"
#include "tools/onnx/onnx_spatial.h"

/* ---- patterns ---- */

/* Relu / Clip between a compute op and its QuantizeLinear. */
int activation_of(struct imp *s, const struct onnx_node *a, struct imp_op *op)
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

void window_to_op(const struct onnx_window *w, struct imp_op *op)
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
int map_conv(struct imp *s, struct imp_op *op, const struct onnx_node *c,
	     const struct qweights *w, int bias_f, bool bias_is_int)
{
	const struct imp_tensor *x = &s->ig->tensors[op->in[0]];
	const struct onnx_tensor *wt = w->t;
	unsigned int m = (unsigned int)wt->dims[0], kh, kw;
	struct onnx_window win;
	struct conv_shape cs;
	int8_t zero = (int8_t)w->zp;	/* a weight of real value 0 */
	size_t count;
	int rc;

	conv_kernel(wt, &kh, &kw);
	rc = conv_window(s, c, x, wt, &win);
	if (!rc)
		rc = conv_shape_of(s, c, x->c, wt, &win, &cs);
	if (rc)
		return rc;
	window_to_op(&win, op);
	op->depthwise = cs.depthwise;
	op->groups = cs.group > 1 && !cs.depthwise ? cs.group : 0;
	op->kind = IMP_CONV;
	op->weights = conv_dense(w->v, 1, &zero, &cs, &count);
	if (!op->weights)
		return -ENOMEM;
	op->kh = (kh - 1) * cs.dh + 1;
	op->kw = (kw - 1) * cs.dw + 1;
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
int fc_weights(struct imp_op *op, const struct imp_tensor *x, const struct qweights *w,
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
int map_fc(struct imp *s, struct imp_op *op, const struct onnx_node *p)
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

int map_pool(struct imp *s, struct imp_op *op, const struct onnx_node *p, int in)
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
		if (x->h <= LOWER_POOL_MAX_KERNEL && x->w <= LOWER_POOL_MAX_KERNEL)
			return 0;
		/* wider than the PPU's kernel: the mean on the CPU, which reads
		 * the map once (squeeze-and-excitation's pool on a large map) */
		if (op->pool == LOWER_POOL_MAX)
			return fail(s, "GlobalMaxPool over a %ux%u map: the PPU's kernel is at most "
				    "%ux%u (GlobalAveragePool of any size is supported)", x->h, x->w,
				    LOWER_POOL_MAX_KERNEL, LOWER_POOL_MAX_KERNEL);
		op->kind = IMP_CPU;
		op->cpu_type = "AveragePool";
		return 0;
	}
	op->pool = is_op(p, "MaxPool") ? LOWER_POOL_MAX : LOWER_POOL_AVG;
	if (onnx_window1d(s->g, p))
		rc = onnx_conv1d_window(p, (int)x->w, 0, &win, s->err, s->err_len);
	else
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
int perm4(const struct onnx_node *n)
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


/*
 * Any other transpose of a map (the batch axis of a 4-D tensor staying
 * first) runs on the CPU (runtime/cpu_ops.c "Transpose"), requantising
 * when its QuantizeLinear differs from its input's.
 */
int transpose_map_perm(struct imp *s, const struct onnx_node *p, int src, int perm[3])
{
	const struct onnx_attr *a = onnx_node_attr(p, "perm");
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	int r = x->rank, rc;

	/* a reshaped map is laid out in its shape first */
	rc = s->flat_view[src] && !s->nhwc_view[src] ? reshape_map(s, src) : 0;
	if (rc < 0)
		return rc;
	if (s->nhwc_view[src] || r < 2 || r > 4 || (r == 4 && x->dims[0] != 1))
		return fail(s, "only transposes of a [1,C,H,W], [A,B,C] or [M,K] map that is "
			    "not a channels-last view");
	if (a && (a->type != ONNX_ATTR_INTS || a->n != (size_t)r))
		return fail(s, "perm is not a list of %d axes", r);
	for (int j = 0; j < r; j++) {
		int from = a ? (int)a->ints[j] : r - 1 - j;	/* default: reversed */

		if (from < 0 || from >= r)
			return fail(s, "perm names axis %d of a rank-%d tensor", from, r);
		if (imp_map_axis(s, r, j) < 0 || imp_map_axis(s, r, from) < 0) {
			if (imp_map_axis(s, r, j) != imp_map_axis(s, r, from))
				return fail(s, "a transpose that moves the batch axis");
			continue;
		}
		perm[imp_map_axis(s, r, j)] = imp_map_axis(s, r, from);
	}
	return 0;
}

static int map_cpu_transpose(struct imp *s, const struct onnx_node *q,
			     const struct onnx_node *p, int src, float scale, int32_t zp)
{
	int perm[3] = { 0, 1, 2 }, out, rc = transpose_map_perm(s, p, src, perm);
	struct imp_op *op;

	if (rc)
		return rc;
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
int map_transpose(struct imp *s, const struct onnx_node *q, const struct onnx_node *p,
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
bool zero_constant(const struct onnx_node *p)
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
 * Concat of two maps on the CPU (runtime/cpu_ops.c "Concat"), along one
 * axis of [1, C, H, W], [A, B, C] or [M, K]; each input requantised to
 * the output's quantisation when it differs.
 */
int concat_params(struct imp *s, const struct onnx_node *p, struct imp_op *op)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	int64_t axis = onnx_attr_int(p, "axis", 0);
	int r = x->rank;

	axis = axis < 0 ? axis + r : axis;
	if (p->n_in != 2 || imp_map_axis(s, r, (int)axis) < 0 || !imp_map_rank(x))
		return fail(s, "Concat of %zu inputs along axis %lld of a rank-%d tensor (two "
			    "inputs, along a map axis of [1,C,H,W], [A,B,C], [M,K] or [K], or "
			    "H or W of [1,A,B,H,W])", p->n_in,
			    (long long)onnx_attr_int(p, "axis", 0), r);
	op->kind = IMP_CPU;
	op->cpu_type = "Concat";
	op->cpu_axis = imp_map_axis(s, r, (int)axis);
	return 0;
}

static int map_concat(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	int64_t axis = onnx_attr_int(p, "axis", 0);
	int r = x->rank;

	axis = axis < 0 ? axis + r : axis;
	if (imp_map_axis(s, r, (int)axis) < 0 || !imp_map_rank(x))
		return fail(s, "Concat along axis %lld of a rank-%d tensor (a map axis of "
			    "[1,C,H,W], [A,B,C], [M,K] or [K], or H or W of [1,A,B,H,W])",
			    (long long)axis, r);
	op->kind = IMP_CPU;
	op->cpu_type = "Concat";
	op->cpu_axis = imp_map_axis(s, r, (int)axis);
	op->in[0] = dq_source(s, in_of(p, 0));
	if (op->in[0] < 0)
		return op->in[0];
	op->in[1] = dq_source(s, in_of(p, 1));
	if (op->in[1] < 0)
		return op->in[1];
	if (op->act != LOWER_ACT_NONE)
		return fail(s, "an activation after Concat is not fused into a CPU op");
	return 0;
}

/*
 * Concat of a feature map with zeros along the channels (TensorFlow's
 * channel Pad): a 1×1 convolution whose first C kernels are the identity
 * and whose new kernels are zero, so the new channels hold the output's
 * zero point, real zero.
 */
int map_channel_pad(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	int64_t axis = onnx_attr_int(p, "axis", 0);
	int zero = p->n_in == 2 ? dq_input(s, in_of(p, 1)) : -1;
	const struct imp_tensor *x, *y;

	if (p->n_in > 2 || (p->n_in == 2 && (zero < 0 || !s->zero_const[zero]))) {
		int rc = map_concat_n(s, op, p);

		if (rc <= 0)
			return rc;
	}
	if (p->n_in == 2 && (zero < 0 || !s->zero_const[zero]))
		return map_concat(s, op, p);
	if (p->n_in != 2 || (axis != 1 && axis != -3) || zero < 0)
		return fail(s, "only a Concat of two maps, or of a feature map with zeros along "
			    "the channels (a channel pad), maps to the NPU and CPU");
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
int map_activation(struct imp *s, struct imp_op *op, int f)
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
int softmax_axis(struct imp *s, const struct onnx_node *p, struct imp_op *op)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	int64_t given = onnx_attr_int(p, "axis", s->g->opset >= 13 ? -1 : 1);
	int64_t axis = given < 0 ? given + x->rank : given, rest = 1;
	/* ONNX axis → the map's (imp_map_axis) */
	for (int64_t k = axis < x->rank ? axis + 1 : x->rank; axis >= 0 && k < x->rank; k++)
		rest *= x->dims[k];
	/* the map's axes are CPU_AXIS_* */
	op->cpu_axis = imp_map_axis(s, x->rank, (int)axis);
	/* before opset 13 Softmax flattens the axes from `axis` on */
	if (op->cpu_axis < 0 || (s->g->opset < 13 && rest != 1))
		return fail(s, "%s over axis %lld of a rank-%d tensor%s", p->op_type,
			    (long long)given, x->rank, s->g->opset < 13 ? " (before opset 13: "
			    "over the flattened axes from it)" : "");
	return 0;
}

int map_cpu(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	const struct imp_tensor *in, *out;

	if (op->act != LOWER_ACT_NONE)
		return fail(s, "an activation after %s is not fused into a CPU op", p->op_type);
	if ((is_op(p, "Softmax") || is_op(p, "LogSoftmax")) && softmax_axis(s, p, op))
		return -EINVAL;
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
