/* SPDX-License-Identifier: MIT */
/* rkbare host tool: dispatches to the subcommands in cmd_*.c. */
#include <stdio.h>
#include <string.h>

#include "tools/commands.h"

static const struct rkbare_command commands[] = {
	{ "info", "print the register table and build facts", cmd_info },
	{ "disasm", "decode a regcmd stream (text form) entry by entry", cmd_disasm },
	{ "regcmd", "build the regcmd of a matmul or convolution and print it", cmd_regcmd },
	{ "sim", "run a regcmd stream on the NPU model through the driver", cmd_sim },
	{ "onnx-dump", "print an ONNX model's graph as the importer reads it", cmd_onnx_dump },
	{ "onnx-ref", "run an ONNX model on the float32 CPU reference", cmd_onnx_ref },
	{ "quantize", "calibrate a float32 ONNX model into an int8 QDQ model", cmd_quantize },
	{ "compile", "compile an ONNX model into a model container (.rkb)", cmd_compile },
	{ "infer", "run a model container on the NPU model, .npy in and out", cmd_infer },
	{ "compare", "per-layer accuracy of a container against the float ONNX model",
	  cmd_compare },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: rkbare <command> [options]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-10s %s\n", commands[i].name, commands[i].summary);
	fprintf(out, "\n'rkbare <command> --help' describes a command.\n");
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		usage(stderr);
		return RKBARE_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return RKBARE_EXIT_OK;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		if (!strcmp(argv[1], commands[i].name))
			return commands[i].run(argc - 1, argv + 1);
	fprintf(stderr, "rkbare: unknown command '%s'\n", argv[1]);
	usage(stderr);
	return RKBARE_EXIT_USAGE;
}
