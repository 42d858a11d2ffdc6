/* SPDX-License-Identifier: MIT */
/* What a QuantizeLinear closes (map_q), the QLinear ops and the Integer ops
 * (import_int.h). Operator semantics: the ONNX operator documents. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/onnx/import_int.h"
#include "tools/onnx/onnx_spatial.h"

int map_q(struct imp *s, const struct onnx_node *q)
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
	if (!rc && p && s->fp16_node[p - s->g->nodes])
		return fp16_quantise(s, q, scale, zp);
	if (!rc)
		rc = reshape_inputs(s, p);
	if (rc)
		return rc;
	if (chain_view_q(s, q, p))
		return map_chain_q(s, q, p, scale, zp);
	if (reshape_of_maps(s, p))
		return map_reshape_q(s, q, p, scale, zp);
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
		/* alone, straight after a DequantizeLinear: nothing to fuse into;
		 * ReLU and ReLU6 a convolution's, other bounds a table */
		if (is_op(prod(s, act_in), "DequantizeLinear") && op->act == LOWER_ACT_CLIP) {
			op->act = LOWER_ACT_NONE;
			return map_ewise_q(s, op, p);
		}
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
	if (is_op(p, "Softmax") || is_op(p, "LogSoftmax") || onnx_declared_cpu_op(s->g, p))
		return map_cpu(s, op, p);
	if (xformer_op(s, p))
		return map_xformer_q(s, op, p);
	if (ewise_op(p))
		return map_ewise_q(s, op, p);
	if (is_op(p, "Conv")) {
		struct qweights w;
		const struct onnx_tensor *wt = T(s, in_of(p, 1));

		op->in[0] = dq_source(s, in_of(p, 0));
		if (op->in[0] < 0)
			return op->in[0];
		if (!wt || wt->rank != (onnx_conv1d(s->g, p) ? 3 : 4))
			return fail(s, "weights are not %s", onnx_conv1d(s->g, p) ? "3-D" : "4-D");
		rc = weights_from_dq(s, in_of(p, 1), 0, (size_t)wt->dims[0], &w);
		if (!rc)
			rc = map_conv(s, op, p, &w, in_of(p, 2), false);
		qweights_free(&w);
		return rc;
	}
	if (is_op(p, "Gemm") || is_op(p, "MatMul"))
		return map_fc(s, op, p);
	if (spatial_moves(p))
		return map_spatial(s, op, p, x);
	if (is_op(p, "ConvTranspose"))
		return map_deconv(s, op, p);
	if (is_op(p, "Concat"))
		return map_channel_pad(s, op, p);
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
int map_qlinear_conv(struct imp *s, const struct onnx_node *n)
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
int map_qlinear_matmul(struct imp *s, const struct onnx_node *n)
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
int map_integer(struct imp *s, const struct onnx_node *n, bool conv)
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
int reads_int32(struct imp *s, const struct onnx_node *n)
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
int map_int_pool(struct imp *s, const struct onnx_node *n)
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
