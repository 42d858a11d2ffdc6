/* SPDX-License-Identifier: MIT */
/*
 * rkbare onnx-dump MODEL.onnx: the graph as the ONNX front end reads it,
 * one line per input, constant, node and output. The format is plain
 * enough for tests/cli/onnx_dump.sh to produce it independently with
 * python3-onnx and compare.
 */
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"
#include "tools/onnx/onnx_graph.h"

/* FNV-1a over a constant's little-endian bytes: a fingerprint of its data. */
static uint32_t data_fnv(const struct onnx_tensor *t)
{
	const uint8_t *p = t->data;
	size_t n = t->count * onnx_dtype_size(t->dtype);
	uint32_t h = 2166136261u;

	for (size_t i = 0; i < n; i++)
		h = (h ^ p[i]) * 16777619u;
	return h;
}

static void print_dims(const struct onnx_tensor *t)
{
	if (t->rank < 0) {
		printf("[unknown]");
		return;
	}
	printf("[");
	for (int i = 0; i < t->rank; i++) {
		if (t->dims[i] < 0)
			printf("%s?", i ? "," : "");
		else
			printf("%s%lld", i ? "," : "", (long long)t->dims[i]);
	}
	printf("]");
}

static void print_attr(const struct onnx_attr *a)
{
	printf(" %s=", a->name);
	switch (a->type) {
	case ONNX_ATTR_INT:
		printf("%lld", (long long)a->i);
		break;
	case ONNX_ATTR_FLOAT:
		printf("%.9g", (double)a->f);
		break;
	case ONNX_ATTR_STRING:
		printf("'%s'", a->s);
		break;
	case ONNX_ATTR_INTS:
		printf("(");
		for (size_t i = 0; i < a->n; i++)
			printf("%s%lld", i ? "," : "", (long long)a->ints[i]);
		printf(")");
		break;
	case ONNX_ATTR_FLOATS:
		printf("(");
		for (size_t i = 0; i < a->n; i++)
			printf("%s%.9g", i ? "," : "", (double)a->floats[i]);
		printf(")");
		break;
	case ONNX_ATTR_TENSOR:
		printf("tensor:%s", onnx_dtype_name(a->t->dtype));
		print_dims(a->t);
		printf(":%08x", data_fnv(a->t));
		break;
	}
}

static void dump(const struct onnx_graph *g)
{
	printf("opset %lld\n", (long long)g->opset);
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct onnx_tensor *t = &g->tensors[g->inputs[i]];

		printf("input %s %s ", t->name, onnx_dtype_name(t->dtype));
		print_dims(t);
		printf("\n");
	}
	for (size_t i = 0; i < g->n_tensors; i++) {
		const struct onnx_tensor *t = &g->tensors[i];

		if (t->role != ONNX_TENSOR_CONSTANT)
			continue;
		printf("const %s %s ", t->name, onnx_dtype_name(t->dtype));
		print_dims(t);
		printf(" %08x\n", data_fnv(t));
	}
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct onnx_node *n = &g->nodes[i];

		printf("node %s%s%s in=", n->domain, *n->domain ? "." : "", n->op_type);
		for (size_t k = 0; k < n->n_in; k++)
			printf("%s%s", k ? "," : "", n->in[k] < 0 ? "" : g->tensors[n->in[k]].name);
		printf(" out=");
		for (size_t k = 0; k < n->n_out; k++)
			printf("%s%s", k ? "," : "", n->out[k] < 0 ? "" : g->tensors[n->out[k]].name);
		for (size_t k = 0; k < n->n_attr; k++)
			print_attr(&n->attr[k]);
		printf("\n");
	}
	for (size_t i = 0; i < g->n_outputs; i++)
		printf("output %s\n", g->tensors[g->outputs[i]].name);
}

int cmd_onnx_dump(int argc, char **argv)
{
	struct onnx_graph *g;
	char err[256];

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: rkbare onnx-dump MODEL.onnx\n"
		       "  prints the graph as the ONNX importer reads it: inputs, constants\n"
		       "  (type, shape, FNV-1a of the data), nodes with attributes, outputs\n");
		return RKBARE_EXIT_OK;
	}
	if (argc != 2) {
		fprintf(stderr, "usage: rkbare onnx-dump MODEL.onnx\n");
		return RKBARE_EXIT_USAGE;
	}
	if (onnx_graph_load_file(argv[1], &g, err, sizeof(err))) {
		fprintf(stderr, "rkbare onnx-dump: %s: %s\n", argv[1], err);
		return RKBARE_EXIT_USAGE;
	}
	dump(g);
	onnx_graph_free(g);
	return RKBARE_EXIT_OK;
}
