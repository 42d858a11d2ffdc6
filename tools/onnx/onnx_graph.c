/* SPDX-License-Identifier: MIT */
/*
 * ONNX model → struct onnx_graph: parse with protobuf-c, copy what the
 * importer needs, validate, drop the protobuf. Field meanings follow
 * onnx.proto (github.com/onnx/onnx, onnx/onnx.in.proto): typed constant
 * data lives in float_data / int32_data (all integer types up to 32 bits,
 * bool and float16 bit patterns) / int64_data / double_data, or in raw_data
 * as little-endian bytes.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "onnx.pb-c.h"
#include "tools/cli_parse.h"
#include "tools/onnx/onnx_graph.h"

/* A constant larger than this is refused: no model we import comes close,
 * and it bounds what a hostile file can make us allocate. */
#define ONNX_MAX_CONST_BYTES	(1ull << 31)

/* Messages nested deeper than this are refused before protobuf-c, whose
 * unpacking recurses once per level, unpacks them: a model of subgraphs
 * within subgraphs (If, Loop) would otherwise exhaust the stack. Each
 * subgraph level costs 3 (graph, node, attribute); real models nest a
 * handful. */
#define ONNX_MAX_NESTING	96u

struct loader {
	struct onnx_graph *g;
	size_t cap_tensors;
	int *hash;		/* open addressing over tensor indices, -1 empty */
	size_t hash_size;	/* power of two */
	char *err;
	size_t err_len;
};

static int fail(struct loader *l, int code, const char *fmt, ...)
{
	va_list ap;

	if (l->err_len) {
		va_start(ap, fmt);
		vsnprintf(l->err, l->err_len, fmt, ap);
		va_end(ap);
	}
	return code;
}

size_t onnx_dtype_size(int32_t dtype)
{
	switch (dtype) {
	case ONNX_DT_UINT8:
	case ONNX_DT_INT8:
	case ONNX_DT_BOOL:
		return 1;
	case ONNX_DT_UINT16:
	case ONNX_DT_INT16:
	case ONNX_DT_FLOAT16:
		return 2;
	case ONNX_DT_FLOAT:
	case ONNX_DT_INT32:
		return 4;
	case ONNX_DT_INT64:
	case ONNX_DT_DOUBLE:
		return 8;
	default:
		return 0;
	}
}

const char *onnx_dtype_name(int32_t dtype)
{
	switch (dtype) {
	case ONNX_DT_FLOAT: return "float32";
	case ONNX_DT_UINT8: return "uint8";
	case ONNX_DT_INT8: return "int8";
	case ONNX_DT_UINT16: return "uint16";
	case ONNX_DT_INT16: return "int16";
	case ONNX_DT_INT32: return "int32";
	case ONNX_DT_INT64: return "int64";
	case ONNX_DT_BOOL: return "bool";
	case ONNX_DT_FLOAT16: return "float16";
	case ONNX_DT_DOUBLE: return "float64";
	default: return "unsupported";
	}
}

static char *dup_str(const char *s)
{
	size_t n = s ? strlen(s) : 0;
	char *d = malloc(n + 1);

	if (d) {
		if (n)
			memcpy(d, s, n);
		d[n] = '\0';
	}
	return d;
}

/* ---- name → tensor index ---- */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;	/* FNV-1a */

	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

static int hash_find(const struct loader *l, const char *name)
{
	size_t mask = l->hash_size - 1;

	for (size_t i = name_hash(name) & mask;; i = (i + 1) & mask) {
		int t = l->hash[i];

		if (t < 0)
			return -1;
		if (!strcmp(l->g->tensors[t].name, name))
			return t;
	}
}

static void hash_insert(struct loader *l, int t)
{
	size_t mask = l->hash_size - 1;
	size_t i = name_hash(l->g->tensors[t].name) & mask;

	while (l->hash[i] >= 0)
		i = (i + 1) & mask;
	l->hash[i] = t;
}

/* Appends a tensor named `name`; fails when the name is taken. */
static int add_tensor(struct loader *l, const char *name, enum onnx_tensor_role role,
		      const char *what)
{
	struct onnx_graph *g = l->g;
	struct onnx_tensor *t;

	if (!name || !*name)
		return fail(l, -EINVAL, "%s has an empty name", what);
	if (hash_find(l, name) >= 0)
		return fail(l, -EINVAL, "tensor '%s' is defined twice (%s)", name, what);
	if (g->n_tensors == l->cap_tensors)
		return fail(l, -EINVAL, "more tensors than the model declares");
	t = &g->tensors[g->n_tensors];
	memset(t, 0, sizeof(*t));
	t->name = dup_str(name);
	if (!t->name)
		return fail(l, -ENOMEM, "out of memory");
	t->role = role;
	t->rank = -1;
	hash_insert(l, (int)g->n_tensors);
	return (int)g->n_tensors++;
}

/* ---- constant data ---- */

static int copy_dims(struct loader *l, struct onnx_tensor *t, size_t n, const int64_t *dims,
		     size_t *count)
{
	size_t c = 1;

	if (n > ONNX_GRAPH_MAX_RANK)
		return fail(l, -EINVAL, "tensor '%s': rank %zu above %u", t->name, n,
			    ONNX_GRAPH_MAX_RANK);
	t->rank = (int)n;
	for (size_t i = 0; i < n; i++) {
		if (dims[i] < 0)
			return fail(l, -EINVAL, "tensor '%s': dimension %zu is negative", t->name, i);
		if (dims[i] && c > ONNX_MAX_CONST_BYTES / (uint64_t)dims[i])
			return fail(l, -EINVAL, "tensor '%s': element count overflows", t->name);
		c *= (size_t)dims[i];
		t->dims[i] = dims[i];
	}
	*count = c;
	return 0;
}

/* Fills t->data from a TensorProto; dims give the element count. */
static int load_constant(struct loader *l, struct onnx_tensor *t, const Onnx__TensorProto *p)
{
	size_t count = 0, es, bytes;
	int rc;

	if (p->n_external_data || (p->has_data_location && p->data_location != 0))
		return fail(l, -ENOTSUP, "tensor '%s': external data is not supported", t->name);
	if (p->segment)
		return fail(l, -ENOTSUP, "tensor '%s': segmented tensors are not supported",
			    t->name);
	rc = copy_dims(l, t, p->n_dims, p->dims, &count);
	if (rc)
		return rc;
	t->dtype = p->data_type;
	es = onnx_dtype_size(t->dtype);
	if (!es)
		return fail(l, -ENOTSUP, "tensor '%s': element type %d is not supported", t->name,
			    (int)t->dtype);
	if (count > ONNX_MAX_CONST_BYTES / es)
		return fail(l, -EINVAL, "tensor '%s': larger than %llu bytes", t->name,
			    (unsigned long long)ONNX_MAX_CONST_BYTES);
	bytes = count * es;
	/* the data must be there before anything is allocated for it (a
	 * fuzz_onnx find: 2 GiB asked for a tensor whose dims alone were large) */
	if (p->has_raw_data ? p->raw_data.len != bytes :
	    (t->dtype == ONNX_DT_FLOAT ? p->n_float_data : t->dtype == ONNX_DT_INT64 ?
	     p->n_int64_data : t->dtype == ONNX_DT_DOUBLE ? p->n_double_data :
	     p->n_int32_data) != count)
		return fail(l, -EINVAL, "tensor '%s': holds a different number of elements than "
			    "its dims (%zu)", t->name, count);
	t->count = count;
	t->data = malloc(bytes ? bytes : 1);
	if (!t->data)
		return fail(l, -ENOMEM, "tensor '%s': out of memory (%zu bytes)", t->name, bytes);

	if (p->has_raw_data) {
		if (p->raw_data.len != bytes)
			return fail(l, -EINVAL, "tensor '%s': raw_data has %zu bytes, dims say %zu",
				    t->name, p->raw_data.len, bytes);
		if (bytes)
			memcpy(t->data, p->raw_data.data, bytes);
		return 0;
	}

	switch (t->dtype) {
	case ONNX_DT_FLOAT:
		if (p->n_float_data != count)
			break;
		if (bytes)
			memcpy(t->data, p->float_data, bytes);
		return 0;
	case ONNX_DT_INT64:
		if (p->n_int64_data != count)
			break;
		if (bytes)
			memcpy(t->data, p->int64_data, bytes);
		return 0;
	case ONNX_DT_DOUBLE:
		if (p->n_double_data != count)
			break;
		if (bytes)
			memcpy(t->data, p->double_data, bytes);
		return 0;
	default:
		/* Narrow integers, bool and float16: one int32_data entry each. */
		if (p->n_int32_data != count)
			break;
		for (size_t i = 0; i < count; i++) {
			int32_t v = p->int32_data[i];
			uint8_t *d = (uint8_t *)t->data + i * es;

			if (es == 1)
				d[0] = (uint8_t)v;
			else if (es == 2) {
				uint16_t h = (uint16_t)v;

				memcpy(d, &h, 2);
			} else
				memcpy(d, &v, 4);
		}
		return 0;
	}
	return fail(l, -EINVAL, "tensor '%s': holds a different number of elements than its "
		    "dims (%zu)", t->name, count);
}

/* ---- value infos (graph inputs and outputs) ---- */

static void take_type(struct onnx_tensor *t, const Onnx__ValueInfoProto *vi)
{
	const Onnx__TypeProto__Tensor *tt;

	if (!vi->type || vi->type->value_case != ONNX__TYPE_PROTO__VALUE_TENSOR_TYPE)
		return;
	tt = vi->type->tensor_type;
	if (!tt)
		return;
	if (tt->has_elem_type)
		t->dtype = tt->elem_type;
	if (!tt->shape || tt->shape->n_dim > ONNX_GRAPH_MAX_RANK)
		return;
	t->rank = (int)tt->shape->n_dim;
	for (size_t i = 0; i < tt->shape->n_dim; i++) {
		const Onnx__TensorShapeProto__Dimension *d = tt->shape->dim[i];

		t->dims[i] = d->value_case == ONNX__TENSOR_SHAPE_PROTO__DIMENSION__VALUE_DIM_VALUE &&
					     d->dim_value >= 0
				     ? d->dim_value
				     : -1;
	}
}

/* ---- nodes ---- */

static int copy_attr(struct loader *l, const Onnx__NodeProto *np, struct onnx_attr *a,
		     const Onnx__AttributeProto *ap)
{
	a->name = dup_str(ap->name);
	if (!a->name)
		return fail(l, -ENOMEM, "out of memory");
	a->type = (enum onnx_attr_type)ap->type;
	switch (ap->type) {
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOAT:
		a->f = ap->f;
		return 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INT:
		a->i = ap->i;
		return 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__STRING:
		a->s = malloc(ap->s.len + 1);
		if (!a->s)
			return fail(l, -ENOMEM, "out of memory");
		if (ap->s.len)
			memcpy(a->s, ap->s.data, ap->s.len);
		a->s[ap->s.len] = '\0';
		return 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__INTS:
		a->n = ap->n_ints;
		a->ints = malloc((a->n ? a->n : 1) * sizeof(*a->ints));
		if (!a->ints)
			return fail(l, -ENOMEM, "out of memory");
		if (a->n)
			memcpy(a->ints, ap->ints, a->n * sizeof(*a->ints));
		return 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__FLOATS:
		a->n = ap->n_floats;
		a->floats = malloc((a->n ? a->n : 1) * sizeof(*a->floats));
		if (!a->floats)
			return fail(l, -ENOMEM, "out of memory");
		if (a->n)
			memcpy(a->floats, ap->floats, a->n * sizeof(*a->floats));
		return 0;
	case ONNX__ATTRIBUTE_PROTO__ATTRIBUTE_TYPE__TENSOR:
		if (!ap->t)
			break;
		a->t = calloc(1, sizeof(*a->t));
		if (!a->t)
			return fail(l, -ENOMEM, "out of memory");
		a->t->name = dup_str(ap->name);
		a->t->role = ONNX_TENSOR_CONSTANT;
		if (!a->t->name)
			return fail(l, -ENOMEM, "out of memory");
		return load_constant(l, a->t, ap->t);
	default:
		break;
	}
	return fail(l, -ENOTSUP, "node '%s' (%s): attribute '%s' has a type (%d) the importer "
		    "does not take (graphs, sparse tensors, lists of strings or tensors)",
		    np->name ? np->name : "", np->op_type, ap->name ? ap->name : "",
		    (int)ap->type);
}

static int resolve_input(struct loader *l, const Onnx__NodeProto *np, const char *name,
			 int *idx)
{
	if (!name || !*name) {	/* an omitted optional input */
		*idx = -1;
		return 0;
	}
	*idx = hash_find(l, name);
	if (*idx < 0)
		return fail(l, -EINVAL, "node '%s' (%s): input '%s' is not defined before the "
			    "node (unknown name, or nodes out of topological order)",
			    np->name ? np->name : "", np->op_type, name);
	return 0;
}

/*
 * A Constant node is not kept: its output becomes a constant tensor
 * (value, value_float(s), value_int(s); onnx/defs/generator/defs.cc).
 */
static int take_constant_node(struct loader *l, const Onnx__NodeProto *np)
{
	struct onnx_tensor *t;
	const Onnx__AttributeProto *ap;
	int idx;

	if (np->n_output != 1 || np->n_attribute != 1)
		return fail(l, -EINVAL, "Constant node '%s': needs one output and one attribute",
			    np->name ? np->name : "");
	idx = add_tensor(l, np->output[0], ONNX_TENSOR_CONSTANT, "Constant output");
	if (idx < 0)
		return idx;
	t = &l->g->tensors[idx];
	ap = np->attribute[0];
	if (!ap->name)
		return fail(l, -EINVAL, "Constant node '%s': attribute without a name",
			    np->name ? np->name : "");
	if (!strcmp(ap->name, "value") && ap->t)
		return load_constant(l, t, ap->t);
	if (!strcmp(ap->name, "value_float") || !strcmp(ap->name, "value_int")) {
		bool is_float = ap->name[6] == 'f';

		t->rank = 0;
		t->count = 1;
		t->dtype = is_float ? ONNX_DT_FLOAT : ONNX_DT_INT64;
		t->data = malloc(8);
		if (!t->data)
			return fail(l, -ENOMEM, "out of memory");
		if (is_float)
			memcpy(t->data, &ap->f, sizeof(float));
		else
			memcpy(t->data, &ap->i, sizeof(int64_t));
		return 0;
	}
	if (!strcmp(ap->name, "value_floats") || !strcmp(ap->name, "value_ints")) {
		bool is_float = ap->name[6] == 'f';
		size_t n = is_float ? ap->n_floats : ap->n_ints;
		size_t es = is_float ? sizeof(float) : sizeof(int64_t);

		t->rank = 1;
		t->dims[0] = (int64_t)n;
		t->count = n;
		t->dtype = is_float ? ONNX_DT_FLOAT : ONNX_DT_INT64;
		t->data = malloc(n ? n * es : 1);
		if (!t->data)
			return fail(l, -ENOMEM, "out of memory");
		if (n)
			memcpy(t->data, is_float ? (const void *)ap->floats : (const void *)ap->ints,
			       n * es);
		return 0;
	}
	return fail(l, -ENOTSUP, "Constant node '%s': attribute '%s' is not supported",
		    np->name ? np->name : "", ap->name);
}

static int take_node(struct loader *l, const Onnx__NodeProto *np)
{
	struct onnx_graph *g = l->g;
	struct onnx_node *n = &g->nodes[g->n_nodes];
	int rc;

	if (!np->op_type || !*np->op_type)
		return fail(l, -EINVAL, "node %zu has no op_type", g->n_nodes);
	if ((!np->domain || !*np->domain || !strcmp(np->domain, "ai.onnx")) &&
	    !strcmp(np->op_type, "Constant"))
		return take_constant_node(l, np);

	memset(n, 0, sizeof(*n));
	g->n_nodes++;	/* owned from here on, so a failure frees it */
	n->name = dup_str(np->name);
	n->op_type = dup_str(np->op_type);
	n->domain = dup_str(np->domain && strcmp(np->domain, "ai.onnx") ? np->domain : "");
	n->in = calloc(np->n_input + 1, sizeof(int));
	n->out = calloc(np->n_output + 1, sizeof(int));
	n->attr = calloc(np->n_attribute + 1, sizeof(*n->attr));
	if (!n->name || !n->op_type || !n->domain || !n->in || !n->out || !n->attr)
		return fail(l, -ENOMEM, "out of memory");

	for (size_t i = 0; i < np->n_input; i++) {
		rc = resolve_input(l, np, np->input[i], &n->in[i]);
		if (rc)
			return rc;
		n->n_in++;
	}
	for (size_t i = 0; i < np->n_attribute; i++) {
		n->n_attr++;
		rc = copy_attr(l, np, &n->attr[i], np->attribute[i]);
		if (rc)
			return rc;
	}
	for (size_t i = 0; i < np->n_output; i++) {
		if (!np->output[i] || !*np->output[i]) {	/* an omitted optional output */
			n->out[n->n_out++] = -1;
			continue;
		}
		rc = add_tensor(l, np->output[i], ONNX_TENSOR_ACTIVATION, "node output");
		if (rc < 0)
			return rc;
		n->out[n->n_out++] = rc;
	}
	if (!np->n_output)
		return fail(l, -EINVAL, "node '%s' (%s) has no output", n->name, n->op_type);
	return 0;
}

/* ---- the graph ---- */

/* ONNX_META_FP16_NODES's lines: the node computing each named tensor is
 * fp16; a name no node computes is refused. */
static int mark_fp16_nodes(struct loader *l, const char *list)
{
	struct onnx_graph *g = l->g;

	while (*list) {
		const char *end = strchr(list, '\n');
		size_t len = end ? (size_t)(end - list) : strlen(list);
		bool found = false;

		for (size_t i = 0; len && i < g->n_nodes && !found; i++) {
			const char *out = g->nodes[i].n_out && g->nodes[i].out[0] >= 0 ?
					  g->tensors[g->nodes[i].out[0]].name : "";

			if (strlen(out) == len && !memcmp(out, list, len))
				found = g->nodes[i].fp16 = true;
		}
		if (len && !found)
			return fail(l, -EINVAL, "metadata %s names '%.*s', the first output of no "
				    "node", ONNX_META_FP16_NODES, (int)(len > 64 ? 64 : len), list);
		list += len + (end != NULL);
	}
	return 0;
}

static int load_graph(struct loader *l, const Onnx__ModelProto *m)
{
	const Onnx__GraphProto *gp = m->graph;
	struct onnx_graph *g = l->g;
	size_t n_out_names = 0;
	int rc;

	if (!gp)
		return fail(l, -EINVAL, "the model has no graph");
	if (gp->n_sparse_initializer)
		return fail(l, -ENOTSUP, "sparse initializers are not supported");
	for (size_t i = 0; i < m->n_opset_import; i++) {
		const Onnx__OperatorSetIdProto *o = m->opset_import[i];

		if ((!o->domain || !*o->domain || !strcmp(o->domain, "ai.onnx")) && o->has_version)
			g->opset = o->version;
	}
	if (!g->opset)
		return fail(l, -EINVAL, "the model imports no version of the default ONNX domain");
	g->producer = dup_str(m->producer_name);
	if (!g->producer)
		return fail(l, -ENOMEM, "out of memory");

	for (size_t i = 0; i < gp->n_node; i++)
		n_out_names += gp->node[i]->n_output;
	l->cap_tensors = gp->n_initializer + gp->n_input + n_out_names;
	for (l->hash_size = 16; l->hash_size < 2 * l->cap_tensors + 1; l->hash_size *= 2)
		;
	l->hash = malloc(l->hash_size * sizeof(int));
	g->tensors = calloc(l->cap_tensors + 1, sizeof(*g->tensors));
	g->nodes = calloc(gp->n_node + 1, sizeof(*g->nodes));
	g->inputs = calloc(gp->n_input + 1, sizeof(int));
	g->outputs = calloc(gp->n_output + 1, sizeof(int));
	if (!l->hash || !g->tensors || !g->nodes || !g->inputs || !g->outputs)
		return fail(l, -ENOMEM, "out of memory");
	memset(l->hash, 0xff, l->hash_size * sizeof(int));

	for (size_t i = 0; i < gp->n_initializer; i++) {
		rc = add_tensor(l, gp->initializer[i]->name, ONNX_TENSOR_CONSTANT, "initializer");
		if (rc < 0)
			return rc;
		rc = load_constant(l, &g->tensors[rc], gp->initializer[i]);
		if (rc)
			return rc;
	}
	/* Inputs that are also initializers (IR < 4 lists them) stay constants. */
	for (size_t i = 0; i < gp->n_input; i++) {
		const char *name = gp->input[i]->name;
		int idx = name ? hash_find(l, name) : -1;

		if (idx >= 0 && g->tensors[idx].role == ONNX_TENSOR_CONSTANT)
			continue;
		idx = add_tensor(l, name, ONNX_TENSOR_INPUT, "graph input");
		if (idx < 0)
			return idx;
		take_type(&g->tensors[idx], gp->input[i]);
		g->inputs[g->n_inputs++] = idx;
	}
	for (size_t i = 0; i < gp->n_node; i++) {
		rc = take_node(l, gp->node[i]);
		if (rc)
			return rc;
	}
	if (!gp->n_output)
		return fail(l, -EINVAL, "the graph has no outputs");
	for (size_t i = 0; i < gp->n_output; i++) {
		const char *name = gp->output[i]->name;
		int idx = name ? hash_find(l, name) : -1;

		if (idx < 0)
			return fail(l, -EINVAL, "graph output '%s' is not produced by any node",
				    name ? name : "");
		take_type(&g->tensors[idx], gp->output[i]);
		g->tensors[idx].is_output = true;
		g->outputs[g->n_outputs++] = idx;
	}
	for (size_t i = 0; i < m->n_metadata_props; i++)
		if (m->metadata_props[i]->key && m->metadata_props[i]->value &&
		    !strcmp(m->metadata_props[i]->key, ONNX_META_FP16_NODES)) {
			rc = mark_fp16_nodes(l, m->metadata_props[i]->value);
			if (rc)
				return rc;
		}
	return 0;
}

/* One varint at *p (at most 10 bytes) below end; false when malformed. */
static bool pb_varint(const uint8_t **p, const uint8_t *end, uint64_t *v)
{
	*v = 0;
	for (unsigned int shift = 0; shift < 64 && *p < end; shift += 7) {
		uint8_t b = *(*p)++;

		*v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			return true;
	}
	return false;
}

/*
 * The deepest nesting of message fields in the protobuf encoding of a
 * message of type d (buf, len), up to limit: fields that are messages per
 * the descriptor are walked into, everything else skipped. Malformed
 * encodings stop the walk; protobuf-c refuses them afterwards.
 */
static unsigned int pb_depth(const ProtobufCMessageDescriptor *d, const uint8_t *buf,
			     size_t len, unsigned int limit)
{
	const uint8_t *p = buf, *end = buf + len;
	unsigned int deepest = 1;

	if (!limit)
		return 1;
	while (p < end) {
		uint64_t key, v;
		const ProtobufCFieldDescriptor *f = NULL;

		if (!pb_varint(&p, end, &key))
			break;
		switch (key & 7) {
		case 0:
			if (!pb_varint(&p, end, &v))
				return deepest;
			continue;
		case 1:
			v = 8;
			break;
		case 5:
			v = 4;
			break;
		case 2:
			if (!pb_varint(&p, end, &v))
				return deepest;
			break;
		default:
			return deepest;
		}
		if (v > (uint64_t)(end - p))
			return deepest;
		for (unsigned int i = 0; (key & 7) == 2 && i < d->n_fields; i++)
			if (d->fields[i].id == key >> 3)
				f = &d->fields[i];
		if (f && f->type == PROTOBUF_C_TYPE_MESSAGE) {
			unsigned int sub = 1 + pb_depth(f->descriptor, p, (size_t)v, limit - 1);

			if (sub > deepest)
				deepest = sub;
			if (deepest > limit)
				return deepest;
		}
		p += v;
	}
	return deepest;
}

int onnx_graph_load(const void *buf, size_t len, struct onnx_graph **out, char *err,
		    size_t err_len)
{
	struct loader l = { .err = err, .err_len = err_len };
	Onnx__ModelProto *m;
	int rc;

	*out = NULL;
	if (err_len)
		err[0] = '\0';
	if (!buf || !len)
		return fail(&l, -EINVAL, "empty file");
	if (pb_depth(&onnx__model_proto__descriptor, buf, len, ONNX_MAX_NESTING) >
	    ONNX_MAX_NESTING)
		return fail(&l, -EINVAL, "messages nest deeper than %u levels (subgraphs within "
			    "subgraphs?)", ONNX_MAX_NESTING);
	m = onnx__model_proto__unpack(NULL, len, buf);
	if (!m)
		return fail(&l, -EINVAL, "not an ONNX model (the protobuf does not parse)");
	l.g = calloc(1, sizeof(*l.g));
	rc = l.g ? load_graph(&l, m) : fail(&l, -ENOMEM, "out of memory");
	onnx__model_proto__free_unpacked(m, NULL);
	free(l.hash);
	if (rc) {
		onnx_graph_free(l.g);
		return rc;
	}
	*out = l.g;
	return 0;
}

int onnx_graph_load_file(const char *path, struct onnx_graph **out, char *err,
			 size_t err_len)
{
	struct loader l = { .err = err, .err_len = err_len };
	FILE *f;
	struct stat st;
	void *buf;
	int rc;

	*out = NULL;
	rc = cli_open_regular(path, &f, &st);
	if (rc == -EINVAL)
		return fail(&l, rc, "not a regular file");
	if (rc)
		return fail(&l, rc, "cannot open: %s", strerror(-rc));
	if (st.st_size <= 0 || (unsigned long long)st.st_size > ONNX_MAX_FILE) {
		fclose(f);
		return fail(&l, -EINVAL, "%lld bytes; a model has 1 to %u", (long long)st.st_size,
			    ONNX_MAX_FILE);
	}
	buf = malloc((size_t)st.st_size);
	if (!buf || fread(buf, 1, (size_t)st.st_size, f) != (size_t)st.st_size) {
		free(buf);
		fclose(f);
		return fail(&l, -EIO, "cannot read the file");
	}
	fclose(f);
	rc = onnx_graph_load(buf, (size_t)st.st_size, out, err, err_len);
	free(buf);
	return rc;
}

void onnx_tensor_free(struct onnx_tensor *t)
{
	free(t->name);
	free(t->data);
}

void onnx_node_free_attrs(struct onnx_node *n)
{
	for (size_t a = 0; a < n->n_attr; a++) {
		free(n->attr[a].name);
		free(n->attr[a].s);
		free(n->attr[a].ints);
		free(n->attr[a].floats);
		if (n->attr[a].t) {
			onnx_tensor_free(n->attr[a].t);
			free(n->attr[a].t);
		}
	}
	n->n_attr = 0;
}

void onnx_node_free(struct onnx_node *n)
{
	onnx_node_free_attrs(n);
	free(n->name);
	free(n->op_type);
	free(n->domain);
	free(n->in);
	free(n->out);
	free(n->attr);
}

void onnx_graph_free(struct onnx_graph *g)
{
	if (!g)
		return;
	for (size_t i = 0; i < g->n_tensors; i++)
		onnx_tensor_free(&g->tensors[i]);
	for (size_t i = 0; i < g->n_nodes; i++)
		onnx_node_free(&g->nodes[i]);
	free(g->tensors);
	free(g->nodes);
	free(g->inputs);
	free(g->outputs);
	free(g->producer);
	free(g);
}

const struct onnx_attr *onnx_node_attr(const struct onnx_node *n, const char *name)
{
	for (size_t i = 0; i < n->n_attr; i++)
		if (n->attr[i].name && !strcmp(n->attr[i].name, name))
			return &n->attr[i];
	return NULL;
}

int64_t onnx_attr_int(const struct onnx_node *n, const char *name, int64_t dflt)
{
	const struct onnx_attr *a = onnx_node_attr(n, name);

	return a && a->type == ONNX_ATTR_INT ? a->i : dflt;
}

float onnx_attr_float(const struct onnx_node *n, const char *name, float dflt)
{
	const struct onnx_attr *a = onnx_node_attr(n, name);

	return a && a->type == ONNX_ATTR_FLOAT ? a->f : dflt;
}

const char *onnx_attr_string(const struct onnx_node *n, const char *name, const char *dflt)
{
	const struct onnx_attr *a = onnx_node_attr(n, name);

	return a && a->type == ONNX_ATTR_STRING ? a->s : dflt;
}

int onnx_graph_find(const struct onnx_graph *g, const char *name)
{
	for (size_t i = 0; i < g->n_tensors; i++)
		if (!strcmp(g->tensors[i].name, name))
			return (int)i;
	return -1;
}

/* Tensor k of n's inputs then outputs. */
static int in_or_out(const struct onnx_node *n, size_t k)
{
	return k < n->n_in ? n->in[k] : n->out[k - n->n_in];
}

int onnx_mark_joined(const struct onnx_graph *g, bool *mark,
		     bool (*joins)(const void *ctx, int t),
		     bool (*admits)(const void *ctx, const struct onnx_node *n), const void *ctx)
{
	int *stack = malloc((g->n_nodes + 1) * sizeof(int));
	size_t top = 0;

	if (!stack)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_nodes; i++)
		if (mark[i])
			stack[top++] = (int)i;
	while (top) {
		const struct onnx_node *n = &g->nodes[stack[--top]];

		for (size_t k = 0; k < n->n_in + n->n_out; k++) {
			int t = in_or_out(n, k);

			if (t < 0 || !joins(ctx, t))
				continue;
			for (size_t j = 0; j < g->n_nodes; j++) {
				const struct onnx_node *m = &g->nodes[j];
				bool joined = false;

				for (size_t x = 0; x < m->n_in + m->n_out && !joined; x++)
					joined = in_or_out(m, x) == t;
				if (joined && !mark[j] && (!admits || admits(ctx, m))) {
					mark[j] = true;
					stack[top++] = (int)j;
				}
			}
		}
	}
	free(stack);
	return 0;
}

bool onnx_declared_cpu_op(const struct onnx_graph *g, const struct onnx_node *n)
{
	for (size_t i = 0; i < g->n_cpu_ops; i++)
		if (!strcmp(n->op_type, g->cpu_ops[i]))
			return true;
	return false;
}
