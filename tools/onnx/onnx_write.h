/* SPDX-License-Identifier: MIT */
/* Writing a struct onnx_graph back to an ONNX file (tools/onnx/onnx_write.c). */
#ifndef RKBARE_TOOLS_ONNX_WRITE_H
#define RKBARE_TOOLS_ONNX_WRITE_H

#include "tools/onnx/onnx_graph.h"

/* Returns 0 or a negative errno value (nothing is left allocated). */
int onnx_graph_save(const struct onnx_graph *g, const char *path);

#endif /* RKBARE_TOOLS_ONNX_WRITE_H */
