// SPDX-License-Identifier: MIT
/* libFuzzer: the ONNX front end — protobuf reading and validation, shape
 * inference, the quantised-graph importer and the fp16 importer
 * (tools/onnx). */
#include <stdint.h>
#include <stdlib.h>

#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_import.h"
#include "tools/onnx/onnx_shape.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct onnx_graph *g = NULL;
	struct imp_graph *ig = NULL;
	char err[256];

	if (onnx_graph_load(data, size, &g, err, sizeof(err)))
		return 0;
	if (!onnx_infer_shapes(g, 1, err, sizeof(err))) {
		if (!onnx_import(g, &ig, err, sizeof(err)))
			imp_graph_free(ig);
		if (!onnx_import_fp16(g, &ig, err, sizeof(err)))
			imp_graph_free(ig);
	}
	onnx_graph_free(g);
	return 0;
}
