// SPDX-License-Identifier: MIT
/* libFuzzer: the model container's verifying loader (runtime/model_load.c). */
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
	if (!rkb_model_load(copy, size, &m, err, sizeof(err)))
		rkb_model_unload(&m);
	free(copy);
	return 0;
}
