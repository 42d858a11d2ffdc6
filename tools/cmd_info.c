/* SPDX-License-Identifier: MIT */
/* rkbare info: what this build knows about the NPU. */
#include <stdio.h>
#include <string.h>

#include "rkbare/npu_regs.h"
#include "tools/commands.h"

int cmd_info(int argc, char **argv)
{
	if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		printf("usage: rkbare info\n  prints the register table (blocks, registers, fields)\n");
		return RKBARE_EXIT_OK;
	}
	if (argc > 1) {
		fprintf(stderr, "rkbare info: unexpected argument '%s'\n", argv[1]);
		return RKBARE_EXIT_USAGE;
	}
	printf("register table: %zu registers, %zu fields\n", npu_reg_count, npu_field_count);
	for (size_t i = 0; i < npu_reg_count; i++) {
		const struct npu_reg_desc *r = &npu_reg_table[i];

		printf("0x%04x %s.%s\n", r->offset, npu_block_table[r->block].name, r->name);
		for (size_t f = 0; f < npu_field_count; f++) {
			const struct npu_field_desc *fd = &npu_field_table[f];

			if (fd->reg_offset == r->offset)
				printf("         [%2u:%2u] %s\n", fd->hi, fd->lo, fd->name);
		}
	}
	return RKBARE_EXIT_OK;
}
