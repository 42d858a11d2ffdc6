/* SPDX-License-Identifier: MIT */
/* rkbare disasm FILE: decode a regcmd stream in text form, entry by entry. */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/disasm.h"
#include "tools/commands.h"

#define DISASM_MAX_ENTRIES	(1u << 20)
#define DISASM_MAX_TEXT		(64u << 20)
#define DISASM_LINE		512

static void disasm_usage(FILE *out)
{
	fprintf(out,
		"usage: rkbare disasm FILE\n"
		"  FILE: one regcmd entry per line (16 hex digits, optional 0x),\n"
		"  '#' starts a comment; '-' reads standard input.\n"
		"  Prints each entry followed by '# BLOCK.REGISTER field=value ...';\n"
		"  entries the register table does not explain are marked with '?'.\n");
}

static char *read_all(FILE *f, const char *name)
{
	size_t cap = 4096, len = 0;
	char *buf = malloc(cap);

	if (!buf) {
		fprintf(stderr, "rkbare disasm: out of memory\n");
		return NULL;
	}
	for (;;) {
		size_t n = fread(buf + len, 1, cap - len - 1, f);

		len += n;
		if (len < cap - 1)
			break;
		if (cap >= DISASM_MAX_TEXT) {
			fprintf(stderr, "rkbare disasm: %s is larger than %u bytes\n", name,
				DISASM_MAX_TEXT);
			free(buf);
			return NULL;
		}
		cap *= 2;
		char *grown = realloc(buf, cap);

		if (!grown) {
			fprintf(stderr, "rkbare disasm: out of memory\n");
			free(buf);
			return NULL;
		}
		buf = grown;
	}
	if (ferror(f)) {
		fprintf(stderr, "rkbare disasm: cannot read %s: %s\n", name, strerror(errno));
		free(buf);
		return NULL;
	}
	buf[len] = '\0';
	if (memchr(buf, '\0', len)) {
		fprintf(stderr, "rkbare disasm: %s is not a text file\n", name);
		free(buf);
		return NULL;
	}
	return buf;
}

int cmd_disasm(int argc, char **argv)
{
	const char *name;
	FILE *f;
	char *text;
	uint64_t *entries;
	size_t count = 0, flagged = 0;
	unsigned int bad_line;
	int ret;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		disasm_usage(stdout);
		return RKBARE_EXIT_OK;
	}
	if (argc != 2) {
		disasm_usage(stderr);
		return RKBARE_EXIT_USAGE;
	}
	name = argv[1];
	f = strcmp(name, "-") ? fopen(name, "r") : stdin;
	if (!f) {
		fprintf(stderr, "rkbare disasm: cannot open %s: %s\n", name, strerror(errno));
		return RKBARE_EXIT_USAGE;
	}
	text = read_all(f, name);
	if (f != stdin)
		fclose(f);
	if (!text)
		return RKBARE_EXIT_USAGE;
	entries = malloc(DISASM_MAX_ENTRIES * sizeof(*entries));
	if (!entries) {
		fprintf(stderr, "rkbare disasm: out of memory\n");
		free(text);
		return RKBARE_EXIT_FAIL;
	}
	ret = rc_parse_text(text, entries, DISASM_MAX_ENTRIES, &count, &bad_line);
	if (ret == -EINVAL) {
		fprintf(stderr, "rkbare disasm: %s:%u: not a 16-hex-digit entry\n", name, bad_line);
	} else if (ret == -ENOSPC) {
		fprintf(stderr, "rkbare disasm: %s has more than %u entries\n", name,
			DISASM_MAX_ENTRIES);
	} else {
		for (size_t i = 0; i < count; i++) {
			char line[DISASM_LINE];

			flagged += (size_t)rc_disasm_entry(entries[i], line, sizeof(line));
			printf("%016" PRIx64 "  # %s\n", entries[i], line);
		}
		fprintf(stderr, "%zu entries, %zu not fully decoded\n", count, flagged);
	}
	free(entries);
	free(text);
	return ret ? RKBARE_EXIT_USAGE : RKBARE_EXIT_OK;
}
