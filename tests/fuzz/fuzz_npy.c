// SPDX-License-Identifier: MIT
/* libFuzzer: the .npy reader (tools/onnx/npy.c) — magic, version, header
 * dict, shape, element count and data length. npy_read takes a path, so
 * each input is written to one scratch file first. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "tools/onnx/npy.h"

/* The reader's limit in this harness: large enough for every shape a
 * small file can declare to be checked against it. */
#define FUZZ_NPY_MAX	(1u << 20)

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char path[64];

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct npy_array a;
	char err[256];
	FILE *f;

	if (!path[0])
		snprintf(path, sizeof(path), "/tmp/fuzz_npy.%ld.npy", (long)getpid());
	f = fopen(path, "wb");
	if (!f)
		abort();	/* the harness itself cannot run */
	if (fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	if (!npy_read(path, FUZZ_NPY_MAX, &a, err, sizeof(err))) {
		/* every element the header promises is there to read */
		volatile uint8_t sum = 0;

		for (size_t i = 0; i < a.count * npy_dtype_size(a.dtype); i++)
			sum += ((const uint8_t *)a.data)[i];
		npy_free(&a);
	}
	return 0;
}
