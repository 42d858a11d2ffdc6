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

#include "tools/onnx/import_int.h"

/*
 * The imp tensor of a float graph input's QuantizeLinear output q; the
 * transpose that may follow is DequantizeLinear → Transpose (input_map).
 */
static int input_tensor(struct imp *s, const struct onnx_node *q, struct imp_io *io)
{
	int qo = q->out[0];
	const struct onnx_node *dq = sole_reader(s, qo);
	const struct onnx_node *tr = is_op(dq, "DequantizeLinear") ? sole_reader(s, dq->out[0]) : NULL;
	bool nhwc;
	int it = input_map(s, qo, tr, io, &nhwc);

	s->nhwc_view[qo] = nhwc;
	return it;
}

/* Whether tensor t is read, and only by fp16 nodes. */
static bool fp16_readers(const struct imp *s, int t)
{
	size_t readers = 0;

	for (size_t k = 0; k < s->g->n_nodes; k++)
		for (size_t j = 0; j < s->g->nodes[k].n_in; j++)
			if (s->g->nodes[k].in[j] == t) {
				if (!s->fp16_node[k])
					return false;
				readers++;
			}
	return readers > 0;
}

/* Whether n has weights that are float constants: an op a QDQ file left
 * float (its int8 form reads them through a DequantizeLinear). */
static bool float_weights(const struct imp *s, const struct onnx_node *n)
{
	int w = n->n_in > 1 ? n->in[1] : -1;

	return (is_op(n, "Conv") || is_op(n, "ConvTranspose") || is_op(n, "Gemm") ||
		is_op(n, "MatMul")) && w >= 0 && is_const(s, w) &&
	       T(s, w)->dtype == ONNX_DT_FLOAT;
}

static bool qdq_node(const struct onnx_node *n)
{
	return is_op(n, "QuantizeLinear") || is_op(n, "DequantizeLinear");
}

/* A computed tensor no QuantizeLinear / DequantizeLinear writes joins the
 * ops around it into one (float_groups)... */
static bool unquantised_link(const void *ctx, int t)
{
	const struct imp *s = ctx;

	return s->producer[t] >= 0 && !qdq_node(prod(s, t));
}

/* ...but never the QuantizeLinear that reads it. */
static bool not_qdq(const void *ctx, const struct onnx_node *n)
{
	(void)ctx;
	return !qdq_node(n);
}

/*
 * The nodes of an int8 graph that run in fp16: those the file or the
 * quantiser marks (onnx_node.fp16, rkbare compile --keep-float), those
 * with float weights (onnxruntime's quantiser leaves nodes_to_exclude so),
 * and every node joined to one of them by a computed tensor no
 * QuantizeLinear / DequantizeLinear stands on: the ops fused with it.
 */
static int float_groups(struct imp *s)
{
	const struct onnx_graph *g = s->g;

	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct onnx_node *n = &g->nodes[i];

		s->fp16_node[i] = !qdq_node(n) && (n->fp16 || float_weights(s, n));
	}
	return onnx_mark_joined(g, s->fp16_node, unquantised_link, not_qdq, s);
}

static int map_inputs(struct imp *s)
{
	const struct onnx_graph *g = s->g;

	for (size_t i = 0; i < g->n_inputs; i++) {
		int t = g->inputs[i], q = -1, it;
		struct imp_io *io = new_edge(s, true, t);

		if (T(s, t)->dtype == ONNX_DT_FLOAT && fp16_readers(s, t)) {
			/* a hybrid graph's input that only fp16 ops read */
			int rc = fp16_input(s, t, io);

			if (rc)
				return rc;
			continue;
		}
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

	s->n = NULL;
	for (size_t i = 0; i < g->n_outputs; i++) {
		int t = g->outputs[i];
		const struct onnx_node *dq = prod(s, t);
		struct imp_io *io = new_edge(s, false, t);

		if (s->qt[t] >= 0) {
			const struct imp_tensor *it = &s->ig->tensors[s->qt[t]];

			io->tensor = s->qt[t];
			io->kind = it->fp16 ? IMP_IO_FLOAT : it->int32 ? IMP_IO_INT32 :
				   T(s, t)->dtype == ONNX_DT_UINT8 ? IMP_IO_UINT8 : IMP_IO_INT8;
			io->channels_last = edge_channels_last(s, t, io->rank);
		} else if (is_op(dq, "DequantizeLinear") && s->qt[in_of(dq, 0)] >= 0) {
			s->used[dq - g->nodes] = true;
			io->tensor = s->qt[in_of(dq, 0)];
			io->kind = IMP_IO_FLOAT;
			io->channels_last = edge_channels_last(s, in_of(dq, 0), io->rank);
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

	rc = float_groups(s);
	if (!rc)
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
		if (s->fp16_node[i])
			rc = (s->used[i] = true, fp16_map_in_int8(s, n));
		else if (is_op(n, "QuantizeLinear"))
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
	struct imp s;
	int rc = imp_begin(&s, g, err, err_len);

	if (!rc)
		rc = map_graph(&s);
	if (!rc)
		rc = split_grouped(&s);
	return imp_end(&s, rc, out);
}

void imp_graph_free(struct imp_graph *ig)
{
	if (!ig)
		return;
	for (size_t i = 0; i < ig->n_ops; i++) {
		free(ig->ops[i].weights);
		free(ig->ops[i].w_scale);
		free(ig->ops[i].bias);
		free(ig->ops[i].weights_f16);
		free(ig->ops[i].bias_f);
		free(ig->ops[i].cpu_params);
	}
	free(ig->ops);
	free(ig->tensors);
	free(ig->inputs);
	free(ig->outputs);
	free(ig->views);
	free(ig);
}
