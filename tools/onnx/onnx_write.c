/* SPDX-License-Identifier: MIT */
/*
 * struct onnx_graph → ONNX file, through protobuf-c's packer: the inverse
 * of onnx_graph.c, used to hand the graphs we derive (the QDQ model of a
 * calibration) to other engines. Constants are written as raw_data; every
 * graph input and output carries its element type and shape.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "onnx.pb-c.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_write.h"

/* IR version 8 (ONNX 1.10) covers every opset up to 16. */
#define ONNX_WRITE_IR_VERSION	8

/* Everything the protobuf tree points to, freed in one go. */
struct arena {
	void **p;
	size_t n, cap;
	bool failed;
};

static void *arena_calloc(struct arena *a, size_t n, size_t size)
{
	void *p;

	if (a->failed)
		return NULL;
	if (a->n == a->cap) {
		size_t cap = a->cap ? 2 * a->cap : 256;
		void **np = realloc(a->p, cap * sizeof(*np));

		if (!np) {
			a->failed = true;
			return NULL;
		}
		a->p = np;
		a->cap = cap;
	}
	p = calloc(n ? n : 1, size);
	if (!p) {
		a->failed = true;
		return NULL;
	}
	a->p[a->n++] = p;
	return p;
}

static void arena_free(struct arena *a)
{
	for (size_t i = 0; i < a->n; i++)
		free(a->p[i]);
	free(a->p);
}

static Onnx__TensorProto *tensor_proto(struct arena *a, const struct onnx_tensor *t,
				       const char *name)
{
	Onnx__TensorProto *p = arena_calloc(a, 1, sizeof(*p));
	int64_t *dims = arena_calloc(a, (size_t)(t->rank > 0 ? t->rank : 1), sizeof(int64_t));

	if (!p || !dims)
		return NULL;
	onnx__tensor_proto__init(p);
	p->name = (char *)name;
	p->n_dims = (size_t)(t->rank > 0 ? t->rank : 0);
	memcpy(dims, t->dims, p->n_dims * sizeof(int64_t));
	p->dims = dims;
	p->has_data_type = 1;
	p->data_type = t->dtype;
	p->has_raw_data = 1;
	p->raw_data.len = t->count * onnx_dtype_size(t->dtype);
	p->raw_data.data = t->data;
	return p;
}

static Onnx__ValueInfoProto *value_info(struct arena *a, const struct onnx_tensor *t)
{
	Onnx__ValueInfoProto *vi = arena_calloc(a, 1, sizeof(*vi));
	Onnx__TypeProto *tp = arena_calloc(a, 1, sizeof(*tp));
	Onnx__TypeProto__Tensor *tt = arena_calloc(a, 1, sizeof(*tt));
	Onnx__TensorShapeProto *sh = arena_calloc(a, 1, sizeof(*sh));
	Onnx__TensorShapeProto__Dimension **dims =
		arena_calloc(a, (size_t)(t->rank > 0 ? t->rank : 1), sizeof(*dims));

	if (!vi || !tp || !tt || !sh || !dims)
		return NULL;
	onnx__value_info_proto__init(vi);
	onnx__type_proto__init(tp);
	onnx__type_proto__tensor__init(tt);
	onnx__tensor_shape_proto__init(sh);
	vi->name = t->name;
	vi->type = tp;
	tp->value_case = ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE;
	tp->tensor_type = tt;
	tt->has_elem_type = 1;
	tt->elem_type = t->dtype;
	if (t->rank < 0)
		return vi;
	tt->shape = sh;
	sh->n_dim = (size_t)t->rank;
	sh->dim = dims;
	for (int i = 0; i < t->rank; i++) {
		dims[i] = arena_calloc(a, 1, sizeof(**dims));
		if (!dims[i])
			return NULL;
		onnx__tensor_shape_proto__dimension__init(dims[i]);
		if (t->dims[i] >= 0) {
			dims[i]->value_case = ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE;
			dims[i]->dim_value = t->dims[i];
		}
	}
	return vi;
}

static Onnx__AttributeProto *attr_proto(struct arena *a, const struct onnx_attr *at)
{
	Onnx__AttributeProto *p = arena_calloc(a, 1, sizeof(*p));

	if (!p)
		return NULL;
	onnx__attribute_proto__init(p);
	p->name = at->name;
	p->has_type = 1;
	p->type = (Onnx__AttributeProto__AttributeType)at->type;
	switch (at->type) {
	case ONNX_ATTR_FLOAT:
		p->has_f = 1;
		p->f = at->f;
		break;
	case ONNX_ATTR_INT:
		p->has_i = 1;
		p->i = at->i;
		break;
	case ONNX_ATTR_STRING:
		p->has_s = 1;
		p->s.len = strlen(at->s);
		p->s.data = (uint8_t *)at->s;
		break;
	case ONNX_ATTR_INTS:
		p->n_ints = at->n;
		p->ints = at->ints;
		break;
	case ONNX_ATTR_FLOATS:
		p->n_floats = at->n;
		p->floats = at->floats;
		break;
	case ONNX_ATTR_TENSOR:
		p->t = tensor_proto(a, at->t, at->t->name);
		if (!p->t)
			return NULL;
		break;
	}
	return p;
}

static char *tensor_name(const struct onnx_graph *g, int idx)
{
	return idx < 0 ? "" : g->tensors[idx].name;
}

static Onnx__NodeProto *node_proto(struct arena *a, const struct onnx_graph *g,
				   const struct onnx_node *n)
{
	Onnx__NodeProto *p = arena_calloc(a, 1, sizeof(*p));
	char **in = arena_calloc(a, n->n_in, sizeof(char *));
	char **out = arena_calloc(a, n->n_out, sizeof(char *));
	Onnx__AttributeProto **at = arena_calloc(a, n->n_attr, sizeof(*at));

	if (!p || !in || !out || !at)
		return NULL;
	onnx__node_proto__init(p);
	p->name = n->name;
	p->op_type = n->op_type;
	p->domain = n->domain;
	for (size_t i = 0; i < n->n_in; i++)
		in[i] = tensor_name(g, n->in[i]);
	for (size_t i = 0; i < n->n_out; i++)
		out[i] = tensor_name(g, n->out[i]);
	for (size_t i = 0; i < n->n_attr; i++) {
		at[i] = attr_proto(a, &n->attr[i]);
		if (!at[i])
			return NULL;
	}
	p->n_input = n->n_in;
	p->input = in;
	p->n_output = n->n_out;
	p->output = out;
	p->n_attribute = n->n_attr;
	p->attribute = at;
	return p;
}

/* The fp16 nodes' first outputs, one per line, under ONNX_META_FP16_NODES
 * (none: no entry). */
static int fp16_nodes_meta(struct arena *a, const struct onnx_graph *g, Onnx__ModelProto *m)
{
	Onnx__StringStringEntryProto *e, **list;
	size_t len = 1;
	char *v;

	for (size_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].fp16 && g->nodes[i].n_out)
			len += strlen(tensor_name(g, g->nodes[i].out[0])) + 1;
	if (len == 1)
		return 0;
	e = arena_calloc(a, 1, sizeof(*e));
	list = arena_calloc(a, 1, sizeof(*list));
	v = arena_calloc(a, len, 1);
	if (!e || !list || !v)
		return -ENOMEM;
	onnx__string_string_entry_proto__init(e);
	for (size_t i = 0; i < g->n_nodes; i++)
		if (g->nodes[i].fp16 && g->nodes[i].n_out) {
			strcat(v, tensor_name(g, g->nodes[i].out[0]));
			strcat(v, "\n");
		}
	e->key = ONNX_META_FP16_NODES;
	e->value = v;
	list[0] = e;
	m->n_metadata_props = 1;
	m->metadata_props = list;
	return 0;
}

static int build(struct arena *a, const struct onnx_graph *g, Onnx__ModelProto *m)
{
	Onnx__GraphProto *gp = arena_calloc(a, 1, sizeof(*gp));
	Onnx__OperatorSetIdProto *opset = arena_calloc(a, 1, sizeof(*opset));
	Onnx__OperatorSetIdProto **opsets = arena_calloc(a, 1, sizeof(*opsets));
	size_t n_const = 0;

	if (!gp || !opset || !opsets)
		return -ENOMEM;
	onnx__model_proto__init(m);
	onnx__graph_proto__init(gp);
	onnx__operator_set_id_proto__init(opset);
	m->has_ir_version = 1;
	m->ir_version = ONNX_WRITE_IR_VERSION;
	m->producer_name = g->producer;
	opset->domain = "";
	opset->has_version = 1;
	opset->version = g->opset;
	opsets[0] = opset;
	m->n_opset_import = 1;
	m->opset_import = opsets;
	m->graph = gp;
	gp->name = "rkbare";

	for (size_t i = 0; i < g->n_tensors; i++)
		n_const += g->tensors[i].role == ONNX_TENSOR_CONSTANT;
	gp->initializer = arena_calloc(a, n_const, sizeof(*gp->initializer));
	gp->node = arena_calloc(a, g->n_nodes, sizeof(*gp->node));
	gp->input = arena_calloc(a, g->n_inputs, sizeof(*gp->input));
	gp->output = arena_calloc(a, g->n_outputs, sizeof(*gp->output));
	if (!gp->initializer || !gp->node || !gp->input || !gp->output)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_tensors; i++)
		if (g->tensors[i].role == ONNX_TENSOR_CONSTANT) {
			gp->initializer[gp->n_initializer] =
				tensor_proto(a, &g->tensors[i], g->tensors[i].name);
			if (!gp->initializer[gp->n_initializer++])
				return -ENOMEM;
		}
	for (size_t i = 0; i < g->n_nodes; i++) {
		gp->node[i] = node_proto(a, g, &g->nodes[i]);
		if (!gp->node[i])
			return -ENOMEM;
	}
	gp->n_node = g->n_nodes;
	for (size_t i = 0; i < g->n_inputs; i++) {
		gp->input[i] = value_info(a, &g->tensors[g->inputs[i]]);
		if (!gp->input[i])
			return -ENOMEM;
	}
	gp->n_input = g->n_inputs;
	for (size_t i = 0; i < g->n_outputs; i++) {
		gp->output[i] = value_info(a, &g->tensors[g->outputs[i]]);
		if (!gp->output[i])
			return -ENOMEM;
	}
	gp->n_output = g->n_outputs;
	return fp16_nodes_meta(a, g, m);
}

int onnx_graph_save(const struct onnx_graph *g, const char *path)
{
	struct arena a = { 0 };
	Onnx__ModelProto m;
	uint8_t *buf = NULL;
	size_t len;
	FILE *f;
	int rc = build(&a, g, &m);

	if (!rc) {
		len = onnx__model_proto__get_packed_size(&m);
		buf = malloc(len ? len : 1);
		rc = buf ? 0 : -ENOMEM;
	}
	if (!rc) {
		onnx__model_proto__pack(&m, buf);
		f = fopen(path, "wb");
		if (!f)
			rc = -errno;
		else if (fwrite(buf, 1, len, f) != len)
			rc = -EIO;
		if (f && fclose(f) && !rc)
			rc = -EIO;
	}
	free(buf);
	arena_free(&a);
	return rc;
}
