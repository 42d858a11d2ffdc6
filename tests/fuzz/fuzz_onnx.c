// SPDX-License-Identifier: MIT
/* libFuzzer: the ONNX front end end to end — protobuf reading and
 * validation, the fold to canonical form (onnx_fold.h), shape inference,
 * the quantised-graph and fp16 importers and
 * the container writer (weight packing), and, for float models small
 * enough, the float32 reference on a generated input, calibration and the
 * int8 import of the QDQ graph it makes (tools/onnx).
 *
 * The custom mutator changes the model as a model: it unpacks the
 * protobuf, edits one field (a dimension, an attribute value, an
 * initializer's data length, a node's input or op type) and packs it again;
 * half the time, or when the input does not unpack, libFuzzer's byte
 * mutations run instead. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "tools/onnx/model_write.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_import.h"
#include "tools/onnx/onnx_quant.h"
#include "tools/onnx/onnx_ref.h"
#include "tools/onnx/onnx_shape.h"

/* The reference runs only when every node's outputs times its inputs
 * stay under this many elements: a bound on its work per execution. */
#define FUZZ_REF_WORK	(1u << 22)
/* Graph inputs the reference is run with (as many as calibration takes). */
#define FUZZ_MAX_INPUTS	8

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
size_t LLVMFuzzerMutate(uint8_t *data, size_t size, size_t max_size);
size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed);

/* An imported graph through the container writer (weights packed). */
static void write_container(struct imp_graph *ig)
{
	void *blob = NULL;
	size_t n = 0;
	char err[256];

	if (!model_write(ig, NULL, &blob, &n, err, sizeof(err)))
		free(blob);
	imp_graph_free(ig);
}

static void import_all(struct onnx_graph *g)
{
	struct imp_graph *ig = NULL;
	char err[256];

	if (!onnx_import(g, &ig, err, sizeof(err)))
		write_container(ig);
	ig = NULL;
	if (!onnx_import_fp16(g, &ig, err, sizeof(err)))
		write_container(ig);
}

/* Float inputs only, and little enough work for the reference. */
static bool ref_fits(const struct onnx_graph *g)
{
	/* the harness makes each input itself (the tools take it from .npy) */
	for (size_t i = 0; i < g->n_inputs; i++)
		if (g->tensors[g->inputs[i]].dtype != ONNX_DT_FLOAT ||
		    onnx_tensor_count(&g->tensors[g->inputs[i]]) > FUZZ_REF_WORK)
			return false;
	for (size_t k = 0; k < g->n_nodes; k++) {
		const struct onnx_node *n = &g->nodes[k];
		uint64_t in = 0, out = 0;

		for (size_t i = 0; i < n->n_in; i++)
			if (n->in[i] >= 0)
				in += onnx_tensor_count(&g->tensors[n->in[i]]);
		for (size_t i = 0; i < n->n_out; i++)
			if (n->out[i] >= 0)
				out += onnx_tensor_count(&g->tensors[n->out[i]]);
		if (in > FUZZ_REF_WORK || out > FUZZ_REF_WORK || in * out > FUZZ_REF_WORK)
			return false;
	}
	return true;
}

/* The reference on a fixed input pattern, calibration on it, and the QDQ
 * graph through the int8 importer and the writer; graphs of an odd node
 * count keep one activation float (the hybrid import). */
static void reference_and_quantise(struct onnx_graph *g)
{
	float *in[FUZZ_MAX_INPUTS] = { 0 };
	struct onnx_ranges r = { 0 };
	struct onnx_quant_opts opts = { .keep_float_auto = g->n_nodes % 2 };
	struct onnx_graph *q = NULL;
	struct onnx_ref out;
	struct imp_graph *ig = NULL;
	char err[256];

	if (!g->n_inputs || g->n_inputs > FUZZ_MAX_INPUTS || !ref_fits(g))
		return;
	for (size_t i = 0; i < g->n_inputs; i++) {
		size_t n = onnx_tensor_count(&g->tensors[g->inputs[i]]);

		in[i] = malloc((n ? n : 1) * sizeof(float));
		if (!in[i])
			goto out;
		/* values in [-2, 2) of both signs, no two neighbours equal */
		for (size_t k = 0; k < n; k++)
			in[i][k] = (float)((k * 37 + i * 11) % 64) / 16.0f - 2.0f;
	}
	if (!onnx_ref_run(g, (const float *const *)in, &out, err, sizeof(err)))
		onnx_ref_free(&out);
	if (onnx_ranges_init(&r, g))
		goto out;
	if (!onnx_calibrate(g, (const float *const *)in, &r, err, sizeof(err)) &&
	    !onnx_quantize_qdq(g, &r, &opts, &q, err, sizeof(err)) &&
	    !onnx_infer_shapes(q, 1, err, sizeof(err)) && !onnx_import(q, &ig, err, sizeof(err)))
		write_container(ig);
	onnx_graph_free(q);
	onnx_ranges_free(&r);
out:
	for (size_t i = 0; i < g->n_inputs; i++)
		free(in[i]);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct onnx_graph *g = NULL;
	struct onnx_fold_stats st;
	char err[256];

	if (onnx_graph_load(data, size, &g, err, sizeof(err)))
		return 0;
	/* as every command: folded first, for batch 1 */
	if (!onnx_fold(g, 1, &st, err, sizeof(err)) && !onnx_infer_shapes(g, 1, err, sizeof(err))) {
		import_all(g);
		reference_and_quantise(g);
	}
	onnx_graph_free(g);
	return 0;
}

/* ---- structure-aware mutation ---- */

static uint32_t rnd(uint32_t *s)
{
	/* xorshift32: the mutation follows from libFuzzer's seed alone */
	*s ^= *s << 13;
	*s ^= *s >> 17;
	*s ^= *s << 5;
	return *s;
}

/* A value an integer field might take to hurt: small, edges, large. */
static int64_t edge_value(uint32_t *s, int64_t old)
{
	static const int64_t v[] = { 0, 1, 2, 3, -1, -2, 255, 256, 65535, 1 << 20, INT32_MAX,
				     INT64_MIN };

	switch (rnd(s) % 3) {
	/* wrapping at the int64 edges, as unsigned arithmetic does */
	case 0: return (int64_t)((uint64_t)old + 1u);
	case 1: return (int64_t)((uint64_t)old - 1u);
	default: return v[rnd(s) % (sizeof(v) / sizeof(v[0]))];
	}
}

static const char *const op_types[] = {
	"Conv", "Relu", "Add", "MaxPool", "AveragePool", "GlobalAveragePool", "Gemm", "MatMul",
	"Reshape", "Flatten", "Concat", "Transpose", "Pad", "Softmax", "Sigmoid", "Clip",
	"BatchNormalization", "QuantizeLinear", "DequantizeLinear", "QLinearConv",
	"QLinearMatMul", "ConvInteger", "MatMulInteger", "ConstantOfShape", "Identity",
	/* what onnx_fold.c computes or rewrites */
	"Shape", "Gather", "Slice", "Unsqueeze", "Squeeze", "Cast", "Range", "Mul", "Div", "Sub",
	"HardSigmoid", "Dropout", "HardSwish", "Swish",
	/* the element-wise, spatial and transformer ops the importers map */
	"Tanh", "LeakyRelu", "Elu", "Selu", "Softplus", "Gelu", "PRelu", "Max", "Min", "Resize",
	"Split", "DepthToSpace", "SpaceToDepth", "ConvTranspose", "LayerNormalization",
	"ReduceMean", "ReduceSum", "ReduceMax", "Erf", "Pow", "Sqrt", "Expand", "Where",
};

/* What an edit changed that protobuf-c's free reads: a string pointed
 * elsewhere, or the count of a repeated string field it frees one by
 * one. Both are put back after packing. */
struct undo {
	char **str, *old_str;
	size_t *count, old_count;
};

/* One edit of m. */
static void mutate(Onnx__ModelProto *m, uint32_t *s, struct undo *u)
{
	Onnx__GraphProto *g = m->graph;
	size_t k;

	if (!g)
		return;
	switch (rnd(s) % 7) {
	case 0:		/* an initializer's dimension */
		if (g->n_initializer && g->initializer[k = rnd(s) % g->n_initializer]->n_dims) {
			Onnx__TensorProto *t = g->initializer[k];
			size_t d = rnd(s) % t->n_dims;

			t->dims[d] = edge_value(s, t->dims[d]);
		}
		break;
	case 1:		/* an initializer's data cut short */
		if (g->n_initializer) {
			Onnx__TensorProto *t = g->initializer[rnd(s) % g->n_initializer];

			if (t->raw_data.len)
				t->raw_data.len = rnd(s) % t->raw_data.len;
			else if (t->n_float_data)
				t->n_float_data = rnd(s) % t->n_float_data;
		}
		break;
	case 2:		/* an attribute's integer(s) */
		if (g->n_node && g->node[k = rnd(s) % g->n_node]->n_attribute) {
			Onnx__NodeProto *n = g->node[k];
			Onnx__AttributeProto *a = n->attribute[rnd(s) % n->n_attribute];

			if (a->n_ints)
				a->ints[rnd(s) % a->n_ints] = edge_value(s, a->ints[0]);
			else
				a->i = edge_value(s, a->i);
		}
		break;
	case 3:		/* a node's op type */
		if (g->n_node) {
			Onnx__NodeProto *n = g->node[rnd(s) % g->n_node];

			u->str = &n->op_type;
			u->old_str = n->op_type;
			n->op_type = (char *)op_types[rnd(s) % (sizeof(op_types) / sizeof(op_types[0]))];
		}
		break;
	case 4:		/* a node's input: another tensor, or none */
		if (g->n_node && g->node[k = rnd(s) % g->n_node]->n_input) {
			Onnx__NodeProto *n = g->node[k], *o = g->node[rnd(s) % g->n_node];
			size_t i = rnd(s) % n->n_input;

			u->str = &n->input[i];
			u->old_str = n->input[i];
			if (o->n_output && rnd(s) % 2)
				n->input[i] = o->output[rnd(s) % o->n_output];
			/* an initializer may come without a name (protobuf-c: NULL) */
			else if (g->n_initializer && rnd(s) % 2 &&
				 g->initializer[k = rnd(s) % g->n_initializer]->name)
				n->input[i] = g->initializer[k]->name;
			else
				n->input[i] = (char *)"";
		}
		break;
	case 5:		/* a node loses its last inputs */
		if (g->n_node && g->node[k = rnd(s) % g->n_node]->n_input) {
			u->count = &g->node[k]->n_input;
			u->old_count = *u->count;
			*u->count = rnd(s) % u->old_count;
		}
		break;
	default:	/* a graph input's dimension */
		if (g->n_input) {
			Onnx__ValueInfoProto *v = g->input[rnd(s) % g->n_input];
			Onnx__TypeProto *t = v->type;

			if (t && t->value_case == ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE &&
			    t->tensor_type->shape && t->tensor_type->shape->n_dim) {
				Onnx__TensorShapeProto *sh = t->tensor_type->shape;
				Onnx__TensorShapeProto__Dimension *d = sh->dim[rnd(s) % sh->n_dim];

				if (d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE)
					d->dim_value = edge_value(s, d->dim_value);
			}
		}
		break;
	}
}

size_t LLVMFuzzerCustomMutator(uint8_t *data, size_t size, size_t max_size, unsigned int seed)
{
	uint32_t s = seed | 1u;
	struct undo u = { 0 };
	Onnx__ModelProto *m;
	size_t n;

	if (rnd(&s) % 2 || !(m = onnx__model_proto__unpack(NULL, size, data)))
		return LLVMFuzzerMutate(data, size, max_size);
	mutate(m, &s, &u);
	n = onnx__model_proto__get_packed_size(m);
	if (n <= max_size)
		onnx__model_proto__pack(m, data);
	if (u.str)
		*u.str = u.old_str;
	if (u.count)
		*u.count = u.old_count;
	onnx__model_proto__free_unpacked(m, NULL);
	return n <= max_size ? n : LLVMFuzzerMutate(data, size, max_size);
}
