/* SPDX-License-Identifier: MIT */
/*
 * Shapes of an ONNX graph and the window geometry of its 2-D convolutions
 * and pools, resolved once (auto_pad, ceil_mode, defaults) so the CPU
 * reference and the NPU mapping read the same numbers. Operator semantics
 * are those of the ONNX operator documents (github.com/onnx/onnx,
 * docs/Operators.md) at the opset the model imports.
 */
#ifndef RKBARE_TOOLS_ONNX_SHAPE_H
#define RKBARE_TOOLS_ONNX_SHAPE_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/onnx/onnx_graph.h"

/* Dimensions above this are refused: they keep every product in size_t
 * and in the NPU's 32-bit address space with room to spare. */
#define ONNX_MAX_DIM	(1 << 24)

/* Conv, MaxPool, AveragePool over NCHW: kernel, stride, dilation, padding. */
struct onnx_window {
	int kh, kw;
	int sh, sw;
	int dh, dw;
	int pad_top, pad_left, pad_bottom, pad_right;
	int out_h, out_w;
	bool ceil_mode;			/* pools: output size rounded up */
	bool count_include_pad;		/* AveragePool: padding counts in the divisor */
};

/*
 * Resolves the window of node n applied to an in_h × in_w input, with
 * kernel kh × kw when the node gives no kernel_shape (Conv takes it from
 * its weights; a kernel_shape must then match them). kh = kw = 0 marks a
 * pool, whose pads must be smaller than its kernel (ONNX). Returns 0, or
 * -EINVAL / -ENOTSUP with a message naming the node and the attribute.
 */
int onnx_window_get(const struct onnx_node *n, int in_h, int in_w, int kh, int kw,
		    struct onnx_window *w, char *err, size_t err_len);

/*
 * Gives every activation of g its shape, node by node, from the graph
 * inputs' shapes. Symbolic input dimensions take `batch` for the first
 * axis and are refused elsewhere. Ops outside the importer's set, or
 * shapes they cannot take, fail with a message naming the node.
 */
int onnx_infer_shapes(struct onnx_graph *g, int64_t batch, char *err, size_t err_len);
/* The same for node n alone, its inputs' shapes set (onnx_fold.c runs it
 * node by node to learn the shapes that Shape nodes read). */
int onnx_infer_node(struct onnx_graph *g, const struct onnx_node *n, char *err, size_t err_len);

/* Elements of a tensor whose shape is known (rank >= 0, no -1). */
size_t onnx_tensor_count(const struct onnx_tensor *t);

/*
 * The axes Reduce node n lists: the axes attribute (before opset 18;
 * ReduceSum 13) or its constant int64 axes input, as given (negative ones
 * count from the end); none: *count 0. -ENOTSUP when the input is not a
 * constant.
 */
int onnx_reduce_axes(const struct onnx_graph *g, const struct onnx_node *n, const int64_t **v,
		     size_t *count);

/* The function of reduction node n (enum rkb_cpu_reduce: ONNX's ten
 * Reduce* operators), or 0: n is not one. */
int onnx_reduce_fn(const struct onnx_node *n);

/*
 * The axes reduction node n reduces over its rank-`rank` input, as
 * reduced[0..rank): from the axes attribute or input, every axis when it
 * names none. An axes input that is not a constant, an axis out of range,
 * no axes with noop_with_empty_axes (the identity) and keepdims 0 (the
 * fold makes it 1 and reshapes) are refused naming the node and attribute.
 */
int onnx_reduce_set(const struct onnx_graph *g, const struct onnx_node *n, int rank,
		    bool reduced[ONNX_GRAPH_MAX_RANK], char *err, size_t err_len);

#endif /* RKBARE_TOOLS_ONNX_SHAPE_H */
