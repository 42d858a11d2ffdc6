/* SPDX-License-Identifier: MIT */
/*
 * The ONNX front end's view of a model: a validated, self-contained copy of
 * an ONNX ModelProto's main graph (tensors, nodes, attributes, constant
 * data), with names resolved to indices. The protobuf is parsed with
 * protobuf-c from C generated at build time from the onnx.proto that
 * Debian's python3-onnx ships, then dropped: nothing here points into it.
 *
 * What loading guarantees, so later passes need no re-checking:
 * - every node input names a graph input, an initializer or the output of an
 *   earlier node (ONNX requires topological order), every tensor name is
 *   defined once, and every graph output is defined;
 * - constant data has exactly product(dims) elements of its type, with the
 *   element count and byte size computed without overflow;
 * - ranks are at most ONNX_GRAPH_MAX_RANK; symbolic dimensions are -1.
 * Anything else (external data, sparse initializers, nested graphs) is
 * refused with a message naming the tensor or node.
 */
#ifndef RKBARE_TOOLS_ONNX_GRAPH_H
#define RKBARE_TOOLS_ONNX_GRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define ONNX_GRAPH_MAX_RANK	8u

/* Element types, with ONNX TensorProto.DataType's numbering. */
enum onnx_dtype {
	ONNX_DT_UNDEFINED = 0,
	ONNX_DT_FLOAT = 1,
	ONNX_DT_UINT8 = 2,
	ONNX_DT_INT8 = 3,
	ONNX_DT_UINT16 = 4,
	ONNX_DT_INT16 = 5,
	ONNX_DT_INT32 = 6,
	ONNX_DT_INT64 = 7,
	ONNX_DT_BOOL = 9,
	ONNX_DT_FLOAT16 = 10,
	ONNX_DT_DOUBLE = 11,
};

enum onnx_tensor_role {
	ONNX_TENSOR_ACTIVATION,	/* produced by a node */
	ONNX_TENSOR_INPUT,	/* graph input fed at run time */
	ONNX_TENSOR_CONSTANT,	/* initializer (or Constant node output) with data */
};

struct onnx_tensor {
	char *name;
	enum onnx_tensor_role role;
	int32_t dtype;			/* enum onnx_dtype; 0 when not declared */
	int rank;			/* -1 when the model does not declare it */
	int64_t dims[ONNX_GRAPH_MAX_RANK];	/* -1: symbolic or unknown */
	void *data;			/* constants: little-endian elements, else NULL */
	size_t count;			/* constants: elements in data */
	bool is_output;			/* named in the graph's outputs */
};

enum onnx_attr_type {
	ONNX_ATTR_FLOAT = 1,
	ONNX_ATTR_INT = 2,
	ONNX_ATTR_STRING = 3,
	ONNX_ATTR_TENSOR = 4,
	ONNX_ATTR_FLOATS = 6,
	ONNX_ATTR_INTS = 7,
};

struct onnx_attr {
	char *name;
	enum onnx_attr_type type;
	int64_t i;
	float f;
	char *s;
	size_t n;			/* elements of ints / floats */
	int64_t *ints;
	float *floats;
	struct onnx_tensor *t;		/* ONNX_ATTR_TENSOR: a constant */
};

struct onnx_node {
	char *name;			/* never NULL: "" when the model gives none */
	char *op_type;
	char *domain;			/* "" for the default ONNX domain */
	size_t n_in, n_out, n_attr;
	int *in;			/* tensor indices; -1 for an omitted optional input */
	int *out;
	struct onnx_attr *attr;
	/* Computed in fp16 inside an int8 graph (rkbare compile --keep-float):
	 * set by onnx_quantize_qdq, read by onnx_import; a file carries it in
	 * the model's metadata (ONNX_META_FP16_NODES). */
	bool fp16;
};

/* The metadata_props key of a QDQ file whose float nodes rkbare computes in
 * fp16: each such node's first output name, one per line. onnxruntime and
 * other readers ignore it. */
#define ONNX_META_FP16_NODES	"rkbare.fp16_nodes"

struct onnx_graph {
	size_t n_tensors, n_nodes, n_inputs, n_outputs;
	struct onnx_tensor *tensors;
	struct onnx_node *nodes;
	int *inputs;			/* graph inputs that are not initializers */
	int *outputs;
	int64_t opset;			/* version of the default domain */
	char *producer;
	/* Op types the caller declares as CPU ops (rkbare compile --cpu-op):
	 * shape-preserving, any domain, run by an implementation the
	 * application registers (runtime/cpu_ops.h). Not owned. */
	const char *const *cpu_ops;
	size_t n_cpu_ops;
};

/* Whether node n's op type is one of g->cpu_ops. */
bool onnx_declared_cpu_op(const struct onnx_graph *g, const struct onnx_node *n);

/*
 * Parses and validates an ONNX model held in memory. On success *out owns
 * everything it points to. On failure returns a negative errno value,
 * writes a message naming the offending tensor, node or field into err
 * (when err_len > 0) and leaves nothing allocated.
 */
int onnx_graph_load(const void *buf, size_t len, struct onnx_graph **out, char *err,
		    size_t err_len);
void onnx_graph_free(struct onnx_graph *g);
/* What a tensor or node owns (not the struct itself), for passes that
 * drop some from a graph; onnx_node_free_attrs leaves n_attr 0. */
void onnx_tensor_free(struct onnx_tensor *t);
void onnx_node_free(struct onnx_node *n);
void onnx_node_free_attrs(struct onnx_node *n);
/* The same from a regular file of at most ONNX_MAX_FILE bytes. */
#define ONNX_MAX_FILE	(512u << 20)
int onnx_graph_load_file(const char *path, struct onnx_graph **out, char *err,
			 size_t err_len);

/* Bytes per element, 0 for types the front end does not carry. */
size_t onnx_dtype_size(int32_t dtype);
const char *onnx_dtype_name(int32_t dtype);

const struct onnx_attr *onnx_node_attr(const struct onnx_node *n, const char *name);
/* Attribute values with defaults; a present attribute of the wrong type
 * also yields the default (the op mapping checks types where it matters). */
int64_t onnx_attr_int(const struct onnx_node *n, const char *name, int64_t dflt);
float onnx_attr_float(const struct onnx_node *n, const char *name, float dflt);
const char *onnx_attr_string(const struct onnx_node *n, const char *name, const char *dflt);

/* Index of the tensor called name, or -1. */
int onnx_graph_find(const struct onnx_graph *g, const char *name);

/*
 * Grows mark (one per node of g) along tensors: a node that reads or
 * writes a tensor `joins` accepts, beside a marked node, is marked too,
 * when `admits` takes it (NULL: every node). The groups the hybrid
 * quantisation computes in fp16 (onnx_quant.c, onnx_import.c). 0 or
 * -ENOMEM.
 */
int onnx_mark_joined(const struct onnx_graph *g, bool *mark,
		     bool (*joins)(const void *ctx, int t),
		     bool (*admits)(const void *ctx, const struct onnx_node *n), const void *ctx);

#endif /* RKBARE_TOOLS_ONNX_GRAPH_H */
