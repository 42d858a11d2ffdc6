/* SPDX-License-Identifier: MIT */
/*
 * An imported graph (onnx_import.h) as a model container
 * (runtime/model_format.h, docs/FORMAT.md): the weights packed in the
 * NPU's layout by the runtime's own lower_conv_pack, the channel widths
 * every producer and consumer needs, and the activation arena planned by
 * the tensors' lifetimes.
 */
#ifndef RKBARE_TOOLS_ONNX_MODEL_WRITE_H
#define RKBARE_TOOLS_ONNX_MODEL_WRITE_H

#include <stddef.h>

#include "tools/onnx/onnx_import.h"

/* The container in a malloc'd *blob of *size bytes. 0, or a negative errno
 * value with a message naming the op in err. user may be NULL. */
int model_write(const struct imp_graph *ig, const char *user, void **blob, size_t *size,
		char *err, size_t err_len);

/*
 * Dynamic shapes: *blob (shape set 0) with the n containers of sets[] as
 * its shape sets 1..n, in a malloc'd container that replaces *blob. Each
 * set must be the same model compiled for other input dimensions: the
 * same strings, constants and user string (else -EINVAL, naming the set
 * and what differs).
 */
int model_add_shape_sets(void **blob, size_t *size, void *const sets[], const size_t sizes[],
			 size_t n, char *err, size_t err_len);

#endif /* RKBARE_TOOLS_ONNX_MODEL_WRITE_H */
