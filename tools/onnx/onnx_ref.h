/* SPDX-License-Identifier: MIT */
/*
 * Float32 CPU execution of an ONNX graph, written from the ONNX operator
 * documents (github.com/onnx/onnx, docs/Operators.md) and sharing nothing
 * with the NPU path. `rkbare compile --calib` reads activation ranges from
 * it; `rkbare onnx-ref` exposes it so the tests can hold it against the
 * published outputs of the ONNX conformance data.
 */
#ifndef RKBARE_TOOLS_ONNX_REF_H
#define RKBARE_TOOLS_ONNX_REF_H

#include <stddef.h>

#include "tools/onnx/onnx_graph.h"

/* One float buffer per tensor of the graph (NULL for tensors not computed:
 * non-float constants). */
struct onnx_ref {
	size_t n;
	float **val;
};

/*
 * Runs g, whose shapes onnx_infer_shapes() has set, on one float buffer per
 * graph input (g->inputs order, onnx_tensor_count() elements each). Every
 * activation stays in r until onnx_ref_free(). Fails with a message naming
 * the node for ops or types outside the float32 set.
 */
int onnx_ref_run(const struct onnx_graph *g, const float *const *inputs, struct onnx_ref *r,
		 char *err, size_t err_len);
void onnx_ref_free(struct onnx_ref *r);

#endif /* RKBARE_TOOLS_ONNX_REF_H */
