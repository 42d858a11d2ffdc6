/* SPDX-License-Identifier: MIT */
/*
 * rkbare compile: an ONNX model → a model container (docs/FORMAT.md).
 * Quantised models (QDQ, QLinearConv) are imported as they are; a float32
 * model is first calibrated to int8 on the .npy batches of --calib.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/model.h"
#include "tools/commands.h"
#include "tools/onnx/model_write.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_import.h"
#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_write.h"

static const char usage_text[] =
	"usage: rkbare compile MODEL.onnx -o OUT.rkb [--calib DIR] [--save-qdq OUT.onnx]\n"
	"                      [--precision int8] [--user TEXT] [--cpu-op TYPE ...]\n"
	"  writes the model container the runtime loads. A quantised model (QDQ or\n"
	"  QLinearConv, int8/uint8) is taken as it is; a float32 model is calibrated\n"
	"  to int8 on the .npy batches in DIR first (--save-qdq keeps that QDQ model,\n"
	"  for onnxruntime). --user stores a string the runtime reports. --cpu-op\n"
	"  declares nodes of that op type (any domain; between DequantizeLinear and\n"
	"  QuantizeLinear, shape-preserving) CPU ops, which the application running\n"
	"  the container implements (rkb_cpu_op_register).\n";

/* --cpu-op types a command line may declare. */
#define COMPILE_MAX_CPU_OPS	16

static bool is_quantised(const struct onnx_graph *g)
{
	for (size_t i = 0; i < g->n_nodes; i++)
		if (!strcmp(g->nodes[i].op_type, "QuantizeLinear") ||
		    !strncmp(g->nodes[i].op_type, "QLinear", 7))
			return true;
	for (size_t i = 0; i < g->n_inputs; i++)
		if (g->tensors[g->inputs[i]].dtype == ONNX_DT_INT8 ||
		    g->tensors[g->inputs[i]].dtype == ONNX_DT_UINT8)
			return true;
	return false;
}

static double seconds(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static int write_file(const char *path, const void *data, size_t size)
{
	FILE *f = fopen(path, "wb");
	int rc = f && fwrite(data, 1, size, f) == size ? 0 : -1;

	if (f && fclose(f))
		rc = -1;
	return rc;
}

int cmd_compile(int argc, char **argv)
{
	const char *model = NULL, *out = NULL, *calib = NULL, *qdq = NULL, *user = NULL;
	const char *cpu_ops[COMPILE_MAX_CPU_OPS];
	size_t n_cpu_ops = 0;
	struct onnx_graph *g = NULL, *q = NULL;
	struct imp_graph *ig = NULL;
	struct rkb_model check;
	void *blob = NULL;
	size_t size = 0;
	char err[512];
	double t0 = seconds();
	int status = RKBARE_EXIT_USAGE;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return RKBARE_EXIT_OK;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (!strcmp(argv[i], "--calib") && i + 1 < argc) {
			calib = argv[++i];
		} else if (!strcmp(argv[i], "--save-qdq") && i + 1 < argc) {
			qdq = argv[++i];
		} else if (!strcmp(argv[i], "--user") && i + 1 < argc) {
			user = argv[++i];
		} else if (!strcmp(argv[i], "--cpu-op") && i + 1 < argc) {
			if (n_cpu_ops == COMPILE_MAX_CPU_OPS || !argv[i + 1][0]) {
				fprintf(stderr, "rkbare compile: --cpu-op %s: a non-empty type, at "
					"most %d\n", argv[i + 1], COMPILE_MAX_CPU_OPS);
				return RKBARE_EXIT_USAGE;
			}
			cpu_ops[n_cpu_ops++] = argv[++i];
		} else if (!strcmp(argv[i], "--precision") && i + 1 < argc) {
			if (strcmp(argv[++i], "int8")) {
				fprintf(stderr, "rkbare compile: --precision %s: only int8 is "
					"implemented\n", argv[i]);
				return RKBARE_EXIT_USAGE;
			}
		} else if (argv[i][0] != '-' && !model) {
			model = argv[i];
		} else {
			fprintf(stderr, "rkbare compile: unexpected argument '%s'\n", argv[i]);
			return RKBARE_EXIT_USAGE;
		}
	}
	if (!model || !out) {
		fputs(usage_text, stderr);
		return RKBARE_EXIT_USAGE;
	}
	if (onnx_graph_load_file(model, &g, err, sizeof(err))) {
		fprintf(stderr, "rkbare compile: %s: %s\n", model, err);
		return RKBARE_EXIT_USAGE;
	}
	g->cpu_ops = cpu_ops;
	g->n_cpu_ops = n_cpu_ops;
	if (!is_quantised(g)) {
		if (!calib) {
			fprintf(stderr, "rkbare compile: %s is a float model: give --calib DIR "
				"(.npy inputs) to quantise it to int8\n", model);
			goto out;
		}
		if (quantize_with_calibration(g, calib, &q, "rkbare compile"))
			goto out;
		if (qdq && onnx_graph_save(q, qdq)) {
			fprintf(stderr, "rkbare compile: cannot write '%s'\n", qdq);
			status = RKBARE_EXIT_FAIL;
			goto out;
		}
	} else if (calib || qdq) {
		fprintf(stderr, "rkbare compile: %s is already quantised: --calib and --save-qdq "
			"do not apply\n", model);
		goto out;
	}
	if (onnx_infer_shapes(q ? q : g, 1, err, sizeof(err)) ||
	    onnx_import(q ? q : g, &ig, err, sizeof(err)) ||
	    model_write(ig, user, &blob, &size, err, sizeof(err))) {
		fprintf(stderr, "rkbare compile: %s: %s\n", model, err);
		goto out;
	}
	/* What the runtime will accept: the writer and the loader agree. */
	if (rkb_model_load(blob, size, &check, err, sizeof(err))) {
		fprintf(stderr, "rkbare compile: %s: the written container fails verification: "
			"%s\n", model, err);
		status = RKBARE_EXIT_FAIL;
		goto out;
	}
	if (write_file(out, blob, size)) {
		fprintf(stderr, "rkbare compile: cannot write '%s'\n", out);
		status = RKBARE_EXIT_FAIL;
	} else {
		printf("rkbare compile: %s -> %s: %u ops, %u tasks, %u tensors, arena %u bytes, "
		       "constants %u bytes, file %zu bytes, %.2f s\n", model, out, check.n_ops,
		       check.plan.tasks, check.n_tensors, check.plan.arena_bytes,
		       check.const_bytes, size, seconds() - t0);
		status = RKBARE_EXIT_OK;
	}
	rkb_model_unload(&check);
out:
	free(blob);
	imp_graph_free(ig);
	onnx_graph_free(q);
	onnx_graph_free(g);
	return status;
}
