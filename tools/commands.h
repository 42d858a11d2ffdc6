/* SPDX-License-Identifier: MIT */
/* Subcommands of the host tool build/host/rkbare, one file each (cmd_*.c). */
#ifndef RKBARE_TOOLS_COMMANDS_H
#define RKBARE_TOOLS_COMMANDS_H

#include <stdbool.h>

struct rkbare_command {
	const char *name;
	const char *summary;
	int (*run)(int argc, char **argv);	/* argv[0] is the subcommand */
};

/* Exit statuses shared by every subcommand. */
enum {
	RKBARE_EXIT_OK = 0,
	RKBARE_EXIT_FAIL = 1,	/* the operation ran and failed (timeout, DMA error, ...) */
	RKBARE_EXIT_USAGE = 2,	/* bad arguments or bad input file */
};

int cmd_info(int argc, char **argv);
int cmd_disasm(int argc, char **argv);
int cmd_regcmd(int argc, char **argv);
int cmd_sim(int argc, char **argv);
int cmd_onnx_dump(int argc, char **argv);
int cmd_onnx_ref(int argc, char **argv);
int cmd_quantize(int argc, char **argv);
int cmd_compile(int argc, char **argv);
int cmd_infer(int argc, char **argv);
int cmd_compare(int argc, char **argv);

struct onnx_graph;
struct onnx_quant_opts;
/* Post-training int8 calibration of float32 model g on the .npy batches in
 * dir (cmd_quantize.c), quantised as opts says (onnx_quant.h: power-of-two
 * scales, activations kept float), ranges from percentiles when
 * percentile > 0 (struct onnx_ranges): g is
 * folded first (onnx_fold.h; *sized when that held for the first batch's
 * input sizes only, which every batch must then have), the QDQ graph in
 * *q, or -1 with messages on stderr prefixed by who. */
int quantize_with_calibration(struct onnx_graph *g, const char *dir,
			      const struct onnx_quant_opts *opts, float percentile,
			      struct onnx_graph **q, bool *sized, const char *who);
/* Parses --calib-percentile's value into *p: 0 or -1 with a message. */
int calib_percentile_parse(const char *s, float *p, const char *who);
#endif /* RKBARE_TOOLS_COMMANDS_H */
