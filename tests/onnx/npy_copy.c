/* SPDX-License-Identifier: MIT */
/*
 * Test helper for tests/onnx/npy.sh: reads each .npy named on the command
 * line with tools/onnx/npy.c and writes it again into OUTDIR under the same
 * name, or prints the reader's refusal. numpy then checks both directions.
 * Usage: npy_copy OUTDIR FILE...
 */
#include <stdio.h>
#include <string.h>

#include "tools/onnx/npy.h"

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 2; i < argc; i++) {
		struct npy_array a;
		char err[160], out[4096];
		const char *base = strrchr(argv[i], '/');

		if (npy_read(argv[i], 1u << 26, &a, err, sizeof(err))) {
			printf("%s: refused: %s\n", argv[i], err);
			continue;
		}
		snprintf(out, sizeof(out), "%s/%s", argv[1], base ? base + 1 : argv[i]);
		if (npy_write(out, a.dtype, a.rank, a.shape, a.data)) {
			printf("%s: cannot write %s\n", argv[i], out);
			status = 1;
		}
		npy_free(&a);
	}
	return status;
}
