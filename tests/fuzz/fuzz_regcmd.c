// SPDX-License-Identifier: MIT
/* libFuzzer: the regcmd text reader `rkbare sim` uses, the disassembler
 * (compiler/disasm.c) and the DMA verifier (runtime/dma_verify.c) over
 * whatever entries it yields. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/disasm.h"
#include "runtime/dma_verify.h"

#define FUZZ_MAX_ENTRIES	4096u

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t entries[FUZZ_MAX_ENTRIES];
	char *text = malloc(size + 1);
	size_t count = 0;
	unsigned int bad = 0;
	char line[512];

	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (!rc_parse_text(text, entries, FUZZ_MAX_ENTRIES, &count, &bad)) {
		static const struct dv_range owned[] = {
			{ 0x10000000u, 1u << 20, "a" },
			{ 0x20000000u, 1u << 20, "b" },
			{ 0x30000000u, 1u << 20, "c" },
		};
		struct dv_state s;
		char err[256];

		for (size_t i = 0; i < count; i++)
			rc_disasm_entry(entries[i], line, sizeof(line));
		dv_state_reset(&s);
		dv_check_task(&s, entries, count, 0, owned, 3, err, sizeof(err));
	}
	/* raw words too: every 8 bytes as one entry */
	for (size_t i = 0; i + sizeof(uint64_t) <= size; i += sizeof(uint64_t)) {
		uint64_t e;

		memcpy(&e, data + i, sizeof(e));
		rc_disasm_entry(e, line, sizeof(line));
	}
	free(text);
	return 0;
}
