// SPDX-License-Identifier: MIT
/* libFuzzer: the model container's verifying loader (runtime/model_load.c,
 * model_check.c); an accepted container's shape sets are each selected and
 * their records read, as the runtime reads them. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/model.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* the loader wants a 4-byte aligned blob, as malloc gives */
	uint8_t *copy = malloc(size ? size : 1);
	struct rkb_model m;
	char err[256];

	if (!copy)
		return 0;
	memcpy(copy, data, size);
	if (!rkb_model_load(copy, size, &m, err, sizeof(err))) {
		volatile uint32_t sum = 0;

		for (uint32_t k = 0; k < m.n_shapes; k++) {
			rkb_model_select_shape(&m, k);
			for (uint32_t i = 0; i < m.n_ops; i++)
				sum += m.tensors[m.ops[i].out].arena_bytes;
			for (uint32_t i = 0; i < m.n_inputs; i++)
				sum += m.tensors[m.inputs[i].tensor].c;
			for (uint32_t i = 0; i < m.n_outputs; i++)
				sum += m.tensors[m.outputs[i].tensor].c;
		}
		rkb_model_unload(&m);
	}
	free(copy);
	return 0;
}
