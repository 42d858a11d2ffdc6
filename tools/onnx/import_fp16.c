/* SPDX-License-Identifier: MIT */
/*
 * A float ONNX graph → fp16 NPU ops (onnx_import.h, `--precision fp16`):
 * no quantisation, every feature map fp16, weights rounded to fp16 and
 * biases kept fp32 (HARDWARE.md §5.5). The ops are those of the int8 path
 * that have an fp16 lowering: Conv (plain or depthwise, bias, a Relu after
 * it fused), Gemm and MatMul with constant weights (a convolution, as in
 * the int8 path), Add (a Relu after it fused), a lone Relu, MaxPool and
 * AveragePool, a Concat with zeros along the channels (a channel pad), and
 * the views (TensorFlow's NHWC transposes at the edges, Reshape / Flatten
 * of an output or of a Gemm's input). CPU ops (runtime/cpu_ops.h) take fp16
 * maps too: Softmax, an average over padding that leaves the padding out, a
 * Concat of two maps; the activations and element-wise ops are
 * import_ewise.c's. Anything else is refused naming the node.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/cpu_ops.h"
#include "tools/onnx/import_int.h"
#include "tools/onnx/onnx_spatial.h"

/* The fp16 bit pattern of 1.0: the weight of the identities below. */
#define FP16_ONE	0x3c00u

/* Imp tensor it (or an error passed on) made an fp16 map: scale 1, zp 0. */
static int as_fp16(struct imp *s, int it)
{
	int rc;

	if (it < 0)
		return it;
	s->ig->tensors[it].fp16 = true;
	rc = set_params(s, it, 1.0f, 0);
	return rc ? rc : it;
}

/* An fp16 feature map for ONNX tensor t. */
int fp16_tensor(struct imp *s, int t)
{
	return as_fp16(s, new_qt(s, t));
}

/* The imp tensor an NPU op reads as its input f. */
static int operand(struct imp *s, int f)
{
	if (f < 0)
		return fail(s, "an input is missing");
	if (s->qt[f] < 0)
		return fail(s, "input '%s' is not a feature map computed on the NPU", T(s, f)->name);
	if (s->nhwc_view[f])
		return fail(s, "input '%s' is a transposed (channels-last) feature map: only a "
			    "graph output may be one", T(s, f)->name);
	if (s->flat_view[f])
		return fail(s, "input '%s' is a reshaped feature map that was not laid out",
			    T(s, f)->name);
	return s->qt[f];
}

/* A float constant of `count` values, or NULL (with a message). */
static const float *float_const(struct imp *s, int t, size_t count, const char *what)
{
	const struct onnx_tensor *x = T(s, t);

	if (!x || !is_const(s, t) || x->dtype != ONNX_DT_FLOAT || x->count != count) {
		fail(s, "%s '%s' is not a float32 constant of %zu values", what, x ? x->name : "",
		     count);
		return NULL;
	}
	for (size_t i = 0; i < count; i++)
		if (!isfinite(((const float *)x->data)[i])) {
			fail(s, "%s '%s' holds %g at %zu: not a finite number", what, x->name,
			     (double)((const float *)x->data)[i], i);
			return NULL;
		}
	return x->data;
}

/* Is n a ReLU: a Relu, or a Clip to [0, +inf) (the one clip fp16
 * convolutions and adds take)? */
static bool is_relu(struct imp *s, const struct onnx_node *n)
{
	struct imp_op bounds = { 0 };
	const struct onnx_node *at = s->n;
	bool relu;

	if (is_op(n, "Relu"))
		return true;
	if (!is_op(n, "Clip"))
		return false;
	/* only the bounds are wanted: a refusal here is the Clip's own later */
	s->n = n;
	relu = !activation_of(s, n, &bounds) && bounds.act == LOWER_ACT_RELU;
	s->n = at;
	return relu;
}

/* A ReLU reading the op's output alone is fused: the op writes its output. */
int fp16_fuse_relu(struct imp *s, struct imp_op *op, int out)
{
	const struct onnx_node *r = sole_reader(s, out);

	if (r && is_relu(s, r) && !T(s, out)->is_output) {
		s->used[r - s->g->nodes] = true;
		op->act = LOWER_ACT_RELU;
		out = r->out[0];
	}
	op->out = fp16_tensor(s, out);
	return op->out < 0 ? op->out : 0;
}

static int map_conv_fp16(struct imp *s, const struct onnx_node *n)
{
	const struct onnx_tensor *wt = T(s, in_of(n, 1));
	struct imp_op *op;
	const struct imp_tensor *x;
	const float *w, *b = NULL;
	unsigned int m, icg, kh, kw;
	struct onnx_window win;
	struct conv_shape cs;
	uint16_t *w16, zero = 0;
	size_t count;
	int in = operand(s, in_of(n, 0)), rc;

	if (in < 0)
		return in;
	if (!wt || wt->rank != (onnx_conv1d(s->g, n) ? 3 : 4))
		return fail(s, "weights are not a rank-%d constant", onnx_conv1d(s->g, n) ? 3 : 4);
	m = (unsigned int)wt->dims[0];
	icg = (unsigned int)wt->dims[1];
	conv_kernel(wt, &kh, &kw);
	w = float_const(s, in_of(n, 1), (size_t)m * icg * kh * kw, "weights");
	if (!w)
		return -EINVAL;
	if (in_of(n, 2) >= 0) {
		b = float_const(s, in_of(n, 2), m, "bias");
		if (!b)
			return -EINVAL;
	}
	op = add_op(s, IMP_CONV);
	if (!op)
		return -ENOMEM;
	op->in[0] = in;
	x = &s->ig->tensors[in];
	rc = conv_window(s, n, x, wt, &win);
	if (!rc)
		rc = conv_shape_of(s, n, x->c, wt, &win, &cs);
	if (rc)
		return rc;
	window_to_op(&win, op);
	op->depthwise = cs.depthwise;
	op->groups = cs.group > 1 && !cs.depthwise ? cs.group : 0;
	w16 = malloc((size_t)m * icg * kh * kw * sizeof(uint16_t));
	if (!w16)
		return -ENOMEM;
	for (size_t k = 0; k < (size_t)m * icg * kh * kw; k++)
		w16[k] = layout_f32_to_f16(w[k]);
	op->weights_f16 = conv_dense(w16, sizeof(uint16_t), &zero, &cs, &count);
	free(w16);
	if (!op->weights_f16)
		return -ENOMEM;
	op->kh = (kh - 1) * cs.dh + 1;
	op->kw = (kw - 1) * cs.dw + 1;
	if (b) {
		op->bias_f = malloc(m * sizeof(float));
		if (!op->bias_f)
			return -ENOMEM;
		memcpy(op->bias_f, b, m * sizeof(float));
	}
	return fp16_fuse_relu(s, op, n->out[0]);
}

/*
 * Gemm / MatMul [M,K] × [K,N] (transB: [N,K]) as a 1×1 convolution over K
 * channels on M rows, or, after a Flatten / Reshape of a [1,C,H,W] map, an
 * H×W convolution whose kernel takes the flattened NCHW order apart
 * (k = c·H·W + y·W + x). alpha scales the weights, beta the bias (a vector
 * of N, or one value).
 */
static int map_fc_fp16(struct imp *s, const struct onnx_node *n)
{
	bool gemm = is_op(n, "Gemm"), tb = gemm && onnx_attr_int(n, "transB", 0);
	float alpha = gemm ? onnx_attr_float(n, "alpha", 1.0f) : 1.0f;
	float beta = gemm ? onnx_attr_float(n, "beta", 1.0f) : 1.0f;
	const struct onnx_tensor *bt = T(s, in_of(n, 1)), *ct = T(s, in_of(n, 2));
	int a = in_of(n, 0), in;
	const struct imp_tensor *x;
	unsigned int k, m, kh = 1, kw = 1;
	const float *w, *c = NULL;
	struct imp_op *op;

	if (gemm && onnx_attr_int(n, "transA", 0))
		return fail(s, "Gemm with transA: the NPU does not transpose a feature map");
	if (!isfinite(alpha) || !isfinite(beta))
		return fail(s, "Gemm alpha %g / beta %g are not finite", (double)alpha,
			    (double)beta);
	if (a >= 0 && s->flat_view[a] && !s->nhwc_view[a]) {
		const struct onnx_node *view = prod(s, a);

		a = view ? in_of(view, 0) : -1;
	}
	in = operand(s, a);
	if (in < 0)
		return in;
	x = &s->ig->tensors[in];
	if (T(s, a)->rank != 2) {
		kh = x->h;
		kw = x->w;
	}
	if (!bt || bt->rank != 2)
		return fail(s, "the weights are not a rank-2 constant");
	k = (unsigned int)bt->dims[tb ? 1 : 0];
	m = (unsigned int)bt->dims[tb ? 0 : 1];
	if (k != x->c * kh * kw)
		return fail(s, "the input holds %u values a row, the weights take %u",
			    x->c * kh * kw, k);
	w = float_const(s, in_of(n, 1), (size_t)k * m, "weights");
	if (!w)
		return -EINVAL;
	if (ct && ct->count != 1 && ct->count != m)
		return fail(s, "bias '%s' of %zu values: one per output column (%u) or one for "
			    "all", ct->name, ct->count, m);
	if (ct) {
		c = float_const(s, in_of(n, 2), ct->count, "bias");
		if (!c)
			return -EINVAL;
	}
	op = add_op(s, IMP_CONV);
	if (!op)
		return -ENOMEM;
	op->in[0] = in;
	op->kh = kh;
	op->kw = kw;
	op->stride_y = op->stride_x = 1;
	op->weights_f16 = malloc((size_t)k * m * sizeof(uint16_t));
	op->bias_f = c ? malloc(m * sizeof(float)) : NULL;
	if (!op->weights_f16 || (c && !op->bias_f))
		return -ENOMEM;
	for (unsigned int o = 0; o < m; o++) {
		for (unsigned int i = 0; i < k; i++) {
			unsigned int ch = i / (kh * kw), y = i % (kh * kw) / kw, xx = i % kw;

			op->weights_f16[(((size_t)o * kh + y) * kw + xx) * x->c + ch] =
				layout_f32_to_f16(alpha * w[tb ? (size_t)o * k + i : (size_t)i * m + o]);
		}
		if (c)
			op->bias_f[o] = beta * c[ct->count == 1 ? 0 : o];
	}
	return fp16_fuse_relu(s, op, n->out[0]);
}

/* A 1×1 convolution of in (c channels) onto `out_c` channels with weight
 * 1.0 from channel i to channel i: a Relu of its own (depthwise) or a
 * channel pad (plain, the extra channels 0). */
static int identity_conv(struct imp *s, int in, unsigned int out_c, bool depthwise)
{
	unsigned int c = s->ig->tensors[in].c;
	struct imp_op *op = add_op(s, IMP_CONV);

	if (!op)
		return -ENOMEM;
	op->in[0] = in;
	op->kh = op->kw = op->stride_y = op->stride_x = 1;
	op->depthwise = depthwise;
	op->weights_f16 = calloc(depthwise ? c : (size_t)out_c * c, sizeof(uint16_t));
	if (!op->weights_f16)
		return -ENOMEM;
	for (unsigned int i = 0; i < c; i++)
		op->weights_f16[depthwise ? i : (size_t)i * c + i] = FP16_ONE;
	return 0;
}

static int map_relu_fp16(struct imp *s, const struct onnx_node *n)
{
	int in = operand(s, in_of(n, 0)), rc;
	struct imp_op *op;

	if (in < 0)
		return in;
	rc = identity_conv(s, in, s->ig->tensors[in].c, true);
	if (rc)
		return rc;
	op = &s->ig->ops[s->ig->n_ops - 1];
	op->act = LOWER_ACT_RELU;
	op->out = fp16_tensor(s, n->out[0]);
	return op->out < 0 ? op->out : 0;
}

int fp16_add(struct imp *s, const struct onnx_node *n, int a, int b)
{
	struct imp_op *op = add_op(s, IMP_ADD);

	if (!op)
		return -ENOMEM;
	op->in[0] = a;
	op->in[1] = b;
	return fp16_fuse_relu(s, op, n->out[0]);
}

int fp16_operand(struct imp *s, int f)
{
	return operand(s, f);
}

static int map_pool_fp16(struct imp *s, const struct onnx_node *n)
{
	int in = operand(s, in_of(n, 0)), rc;
	struct imp_op *op;

	if (in < 0)
		return in;
	op = add_op(s, IMP_POOL);
	if (!op)
		return -ENOMEM;
	rc = map_pool(s, op, n, in);
	if (rc)
		return rc;
	/* an fp16 average the PPU cannot take (a 1-D pool's row): the CPU's */
	if (op->kind == IMP_POOL && op->pool == LOWER_POOL_AVG &&
	    !lower_pool_fp16_avg_fits(op->kh, op->kw)) {
		op->kind = IMP_CPU;
		op->cpu_type = "AveragePool";
	}
	op->out = fp16_tensor(s, n->out[0]);
	return op->out < 0 ? op->out : 0;
}

/* A CPU op (runtime/cpu_ops.h) of type `type` on the fp16 map of n's
 * first input, writing n's output; *op_out the op, for its parameters. */
static int cpu_op_fp16(struct imp *s, const struct onnx_node *n, const char *type,
		       struct imp_op **op_out)
{
	int in = operand(s, in_of(n, 0));
	struct imp_op *op;

	if (in < 0)
		return in;
	op = add_op(s, IMP_CPU);
	if (!op)
		return -ENOMEM;
	op->cpu_type = type;
	op->in[0] = in;
	op->out = fp16_tensor(s, n->out[0]);
	if (op_out)
		*op_out = op;
	return op->out < 0 ? op->out : 0;
}

static int map_softmax_fp16(struct imp *s, const struct onnx_node *n)
{
	struct imp_op *op;
	int rc = cpu_op_fp16(s, n, n->op_type, &op);

	return rc ? rc : softmax_axis(s, n, op);
}

/* Concat of a map with a ConstantOfShape of zeros along the channels (a
 * channel pad on the NPU), or of maps (in place, or copied on the CPU). */
static int map_pad_fp16(struct imp *s, const struct onnx_node *n)
{
	const struct onnx_node *z = prod(s, in_of(n, 1));
	int64_t axis = onnx_attr_int(n, "axis", 0);
	int in = operand(s, in_of(n, 0)), rc;
	struct imp_op *op;

	if (in < 0)
		return in;
	if (n->n_in > 64)
		return fail(s, "Concat of %zu inputs (at most 64)", n->n_in);
	if (n->n_in > 2 || (n->n_in == 2 && !is_op(z, "ConstantOfShape"))) {
		int ins[64], out;

		for (size_t i = 0; i < n->n_in; i++) {
			ins[i] = operand(s, in_of(n, i));
			if (ins[i] < 0)
				return ins[i];
		}
		out = fp16_tensor(s, n->out[0]);
		return out < 0 ? out : map_concat_n_fp16(s, n, ins, out);
	}
	if (n->n_in != 2 || (axis != 1 && axis != -3) || !zero_constant(z))
		return fail(s, "only a Concat of two maps, or of a feature map with zeros along "
			    "the channels (a channel pad), maps in fp16");
	s->used[z - s->g->nodes] = true;
	rc = fp16_tensor(s, n->out[0]);
	if (rc < 0)
		return rc;
	rc = identity_conv(s, in, s->ig->tensors[rc].c, false);
	if (rc)
		return rc;
	op = &s->ig->ops[s->ig->n_ops - 1];
	op->out = s->qt[n->out[0]];
	return 0;
}

/* Transpose / Reshape / Flatten as views: the NHWC transpose right after a
 * [1,H,W,C] input, and any view on the way to a graph output. */
static int map_view(struct imp *s, const struct onnx_node *n)
{
	int src = in_of(n, 0), dst = n->out[0];
	int perm = is_op(n, "Transpose") ? perm4(n) : -1;

	if (src < 0 || s->qt[src] < 0)
		return fail(s, "input '%s' is not a feature map", src >= 0 ? T(s, src)->name : "");
	if (is_op(n, "Transpose") && perm == PERM_TO_NCHW && s->nhwc_view[src]) {
		s->nhwc_view[dst] = false;
	} else if (is_op(n, "Transpose") && perm == PERM_TO_NHWC && !s->nhwc_view[src] &&
		   !s->flat_view[src]) {
		s->nhwc_view[dst] = true;
	} else if (!is_op(n, "Transpose")) {
		s->nhwc_view[dst] = s->nhwc_view[src];
		s->flat_view[dst] = true;
	} else {
		/* any other transpose of a map: the CPU moves it */
		int perm3[3] = { 0, 1, 2 }, rc = transpose_map_perm(s, n, src, perm3);
		struct imp_op *op;

		if (rc)
			return rc;
		op = add_op(s, IMP_CPU);
		if (!op)
			return -ENOMEM;
		op->cpu_type = "Transpose";
		memcpy(op->cpu_perm, perm3, sizeof(perm3));
		op->in[0] = s->qt[src];
		op->out = fp16_tensor(s, dst);
		return op->out < 0 ? op->out : 0;
	}
	s->qt[dst] = s->qt[src];
	return 0;
}

int fp16_input(struct imp *s, int t, struct imp_io *io)
{
	const struct onnx_tensor *x = T(s, t);
	const struct onnx_node *tr = sole_reader(s, t);
	bool nhwc;
	int it;

	io->kind = IMP_IO_FLOAT;
	if (x->dtype != ONNX_DT_FLOAT)
		return fail(s, "input '%s' is %s: an fp16 model takes float32 inputs",
			    x->name, onnx_dtype_name(x->dtype));
	it = as_fp16(s, input_map(s, t, tr, io, &nhwc));
	if (it < 0)
		return it;
	if (nhwc) {
		/* the transpose is the map itself */
		s->used[tr - s->g->nodes] = true;
		s->qt[tr->out[0]] = it;
	}
	io->tensor = it;
	return 0;
}

static int map_inputs_fp16(struct imp *s)
{
	const struct onnx_graph *g = s->g;

	for (size_t i = 0; i < g->n_inputs; i++) {
		int rc = fp16_input(s, g->inputs[i], new_edge(s, true, g->inputs[i]));

		if (rc)
			return rc;
	}
	return 0;
}

static int map_outputs_fp16(struct imp *s)
{
	const struct onnx_graph *g = s->g;

	s->n = NULL;
	for (size_t i = 0; i < g->n_outputs; i++) {
		int t = g->outputs[i];
		struct imp_io *io = new_edge(s, false, t);

		io->kind = IMP_IO_FLOAT;
		if (s->qt[t] < 0)
			return fail(s, "output '%s' is not computed on the NPU", io->name);
		io->tensor = s->qt[t];
		io->channels_last = edge_channels_last(s, t, io->rank);
	}
	return 0;
}

/* ConvTranspose: weights [C, M, kh, kw] and a bias of M, float constants. */
static int map_deconv_node_fp16(struct imp *s, const struct onnx_node *n)
{
	const struct onnx_tensor *wt = T(s, in_of(n, 1)), *yt = T(s, n->out[0]);
	int in = operand(s, in_of(n, 0)), out;
	const float *w, *b = NULL;

	if (in < 0)
		return in;
	if (!wt || wt->rank != 4 || yt->rank != 4)
		return fail(s, "weights or output are not 4-D");
	w = float_const(s, in_of(n, 1), wt->count, "weights");
	if (!w)
		return -EINVAL;
	if (in_of(n, 2) >= 0) {
		b = float_const(s, in_of(n, 2), (size_t)yt->dims[1], "bias");
		if (!b)
			return -EINVAL;
	}
	out = fp16_tensor(s, n->out[0]);
	if (out < 0)
		return out;
	return map_deconv_fp16(s, n, in, w, b, out);
}

static int map_node_fp16(struct imp *s, const struct onnx_node *n)
{
	int rc;

	if (*n->domain)
		return fail(s, "operator domain '%s' is not supported", n->domain);
	rc = reshape_inputs(s, n);
	if (rc)
		return rc;
	if (is_op(n, "Conv"))
		return map_conv_fp16(s, n);
	if (chain_view_fp16(s, n))
		return map_chain_fp16(s, n);
	if (xformer_op(s, n))
		return map_xformer_fp16(s, n);
	if (transpose_fp16_op(s, n))
		return map_transpose_fp16(s, n);
	if (reshape_of_maps(s, n))
		return map_reshape_fp16(s, n);
	if (is_op(n, "Gemm") || is_op(n, "MatMul"))
		return map_fc_fp16(s, n);
	if (is_relu(s, n))
		return map_relu_fp16(s, n);
	if (is_op(n, "MaxPool") || is_op(n, "AveragePool") || is_op(n, "GlobalAveragePool") ||
	    is_op(n, "GlobalMaxPool"))
		return map_pool_fp16(s, n);
	if (is_op(n, "Concat"))
		return map_pad_fp16(s, n);
	if (is_op(n, "Transpose") || is_op(n, "Reshape") || is_op(n, "Flatten"))
		return map_view(s, n);
	if (is_op(n, "ConstantOfShape"))
		return 0;	/* taken by the Concat it pads with */
	if (spatial_moves(n)) {
		int in = operand(s, in_of(n, 0));

		return in < 0 ? in : map_spatial_fp16(s, n, in);
	}
	if (is_op(n, "ConvTranspose"))
		return map_deconv_node_fp16(s, n);
	if (is_op(n, "Softmax") || is_op(n, "LogSoftmax"))
		return map_softmax_fp16(s, n);
	if (ewise_op(n))
		return map_ewise_fp16(s, n);
	return fail(s, "no fp16 mapping (supported: Conv, ConvTranspose, Gemm, MatMul, Relu, "
		    "MaxPool, AveragePool, GlobalAveragePool, Concat, Transpose / Reshape / Flatten "
		    "views, Softmax, LogSoftmax; Add, Sub, Mul, Div, Max, Min (Sum, Mean, Max, Min of "
		    "any number of inputs), PRelu, Pow, "
		    "BatchNormalization, Clip, Sigmoid, Tanh, LeakyRelu, HardSigmoid, HardSwish, "
		    "Swish, Elu, Selu, Softplus, Gelu, Exp, Abs, Softsign, Neg, Reciprocal, Sqrt, "
		    "Log; Resize, DepthToSpace, SpaceToDepth, Slice, Split, Pad on the CPU; Expand "
		    "only where element-wise ops alone read it, which broadcast alike)");
}

/* ---- fp16 ops inside an int8 graph (onnx_node.fp16: --keep-float) ---- */

/* A Cast of imp tensor `in` into a new tensor for ONNX tensor t, fp16 or
 * int8 with scale and zp (runtime/cpu_ops.h): a convert in the DPU, which
 * the writer leaves to the CPU where the DPU cannot take it. */
static int cast_op(struct imp *s, int in, int t, bool to_fp16, float scale, int32_t zp)
{
	struct imp_op *op = add_op(s, IMP_CONVERT);
	int out, rc;

	if (!op)
		return -ENOMEM;
	op->cpu_type = RKB_CPU_CAST;
	op->in[0] = in;
	if (to_fp16) {
		out = fp16_tensor(s, t);
	} else {
		out = new_qt(s, t);
		rc = out < 0 ? out : set_params(s, out, scale, zp);
		if (rc)
			return rc;
	}
	op->out = out;
	return out < 0 ? out : 0;
}

int fp16_map_in_int8(struct imp *s, const struct onnx_node *n)
{
	for (size_t k = 0; k < n->n_in; k++) {
		int f = n->in[k], rc;
		const struct onnx_node *dq = prod(s, f);

		/* a DequantizeLinear of an int8 map: read through a cast, once */
		if (f < 0 || s->qt[f] >= 0 || !is_op(dq, "DequantizeLinear"))
			continue;
		rc = dq_source(s, f);
		if (rc < 0)
			return rc;
		s->used[dq - s->g->nodes] = true;
		rc = cast_op(s, rc, f, true, 1.0f, 0);
		if (rc)
			return rc;
	}
	return map_node_fp16(s, n);
}

int fp16_quantise(struct imp *s, const struct onnx_node *q, float scale, int32_t zp)
{
	int in = operand(s, in_of(q, 0));

	return in < 0 ? in : cast_op(s, in, q->out[0], false, scale, zp);
}

int onnx_import_fp16(const struct onnx_graph *g, struct imp_graph **out, char *err,
		     size_t err_len)
{
	struct imp s;
	int rc = imp_begin(&s, g, err, err_len);

	if (!rc)
		rc = map_inputs_fp16(&s);
	for (size_t i = 0; !rc && i < g->n_nodes; i++) {
		s.n = &g->nodes[i];
		if (!s.used[i]) {
			s.used[i] = true;
			rc = map_node_fp16(&s, s.n);
		}
	}
	if (!rc)
		rc = map_outputs_fp16(&s);
	if (!rc)
		rc = split_grouped(&s);
	return imp_end(&s, rc, out);
}
