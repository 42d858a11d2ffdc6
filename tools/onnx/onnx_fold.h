/* SPDX-License-Identifier: MIT */
/*
 * Canonical form of a float ONNX graph, made once its input sizes are
 * chosen and before anything else reads it: the float reference, the
 * calibration, the QDQ writer and both importers all see the graph this
 * leaves. In order:
 * - nodes whose inputs are all constant (Shape subgraphs: Shape, Size,
 *   Gather, Slice, Concat, Cast, Reshape, Unsqueeze, Squeeze,
 *   ConstantOfShape of an integer fill, Range, Add, Sub, Mul, Div, Floor,
 *   Ceil, Neg, Abs, Equal, Where, Expand, Transpose, Identity), and Shape
 *   of a tensor whose shape is known, become constants; Identity and
 *   inference-mode Dropout disappear;
 * - BatchNormalization, and Mul / Add / Sub / Div (x - c, x / c) by a
 *   scalar or per-channel constant, that alone read a Conv, ConvTranspose
 *   or Gemm output are folded into its weights and bias (float algebra).
 *   Per channel means one value per output channel along axis 1 as numpy
 *   broadcasts it ([1,C,1,1], [C,1,1]; a [C] vector only after a Gemm —
 *   after a Conv numpy aligns it with the width, and it stays);
 * - x·Clip(x+3, 0, 6)/6 (or ·1/6) and x·HardSigmoid(x) (alpha 1/6, beta
 *   1/2) become one HardSwish (opset-14 meaning), x·Sigmoid(x) one Swish
 *   (alpha 1), when the intermediate tensors have no other reader;
 * - LayerNorm spelled out (ReduceMean, Sub, Pow 2 or the product with
 *   itself, ReduceMean, Add eps, Sqrt, Div, then Mul gamma and Add beta, the
 *   means over the last axis) becomes one LayerNormalization (opset-17
 *   meaning, axis -1), and x·0.5·(1 + Erf(x/√2)) (the ·0.5 first or last,
 *   x/√2 or x·(1/√2)) one Gelu, under the same condition;
 * - ReduceMean / ReduceMax over exactly H and W of a rank-4 map becomes
 *   GlobalAveragePool / GlobalMaxPool, followed without keepdims by a
 *   Flatten from axis 1 (a new tensor <output>_pooled between them); any
 *   other ReduceMean / ReduceSum / ReduceMax without keepdims, its output's
 *   shape known, the reduction with keepdims (into <output>_kept) and a
 *   Reshape to that shape (<output>_shape);
 * - an Expand that only Add / Sub / Mul / Div / Max / Min / Pow read, each
 *   against an operand of the expanded shape, is dropped (they broadcast
 *   its input alike).
 * Operator meanings: the ONNX operator documents (github.com/onnx/onnx,
 * docs/Operators.md).
 */
#ifndef RKBARE_TOOLS_ONNX_FOLD_H
#define RKBARE_TOOLS_ONNX_FOLD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "tools/onnx/onnx_graph.h"

struct onnx_fold_stats {
	size_t constants;	/* nodes computed at compile time */
	size_t removed;		/* Identity and Dropout nodes dropped */
	size_t affine;		/* nodes folded into a Conv / ConvTranspose / Gemm */
	size_t activations;	/* HardSwish, Swish, LayerNormalization and Gelu nodes
				 * written for their patterns */
	size_t pools;		/* ReduceMean / ReduceMax over H and W written as
				 * GlobalAveragePool / GlobalMaxPool */
	bool sized;		/* a Shape was folded: g holds for its inputs' present sizes only */
};

/*
 * Rewrites g in place. A symbolic first input axis takes `batch` (when
 * above 0) while folding; other input dimensions are used as g holds them,
 * so callers set the sizes they know first. Unless st->sized, the input
 * dimensions are left as they were. Fails, with a message naming the node,
 * when a Shape reads a tensor whose shape is not known (a symbolic input
 * dimension), when a constant computation is invalid (an index out of
 * range, a division by zero) or memory runs out; g is then unusable.
 */
int onnx_fold(struct onnx_graph *g, int64_t batch, struct onnx_fold_stats *st, char *err,
	      size_t err_len);

/* What the fold did, as one line for the user ("" when nothing). */
void onnx_fold_summary(const struct onnx_fold_stats *st, char *buf, size_t len);

#endif /* RKBARE_TOOLS_ONNX_FOLD_H */
