// SPDX-License-Identifier: MIT
/* libFuzzer: what the boot reads from the outside — the device tree
 * (boot/fdt.c: memory ranges, bootargs) and the boot arguments
 * (boot/bootargs.c). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "boot/bootargs.h"
#include "boot/fdt.h"

#define FUZZ_MAX_RANGES	8u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint8_t *blob = malloc(size ? size : 1);
	char *cmdline = malloc(size + 1);
	struct dtb dt;
	struct bootargs args;
	struct dtb_range ranges[FUZZ_MAX_RANGES];
	const char *ba;

	if (!blob || !cmdline)
		goto out;
	memcpy(blob, data, size);
	if (!dtb_open(&dt, blob, size)) {
		unsigned int n = 0;

		dtb_memory(&dt, ranges, FUZZ_MAX_RANGES, &n);
		if (!dtb_bootargs(&dt, &ba) && ba)
			bootargs_parse(&args, ba);
	}
	memcpy(cmdline, data, size);
	cmdline[size] = '\0';
	if (!bootargs_parse(&args, cmdline))
		bootargs_get(&args, "rkbare.fault");
out:
	free(blob);
	free(cmdline);
	return 0;
}
