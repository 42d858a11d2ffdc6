/* SPDX-License-Identifier: MIT */
/*
 * rkbare quantize MODEL.onnx --calib DIR -o OUT.onnx: post-training int8
 * quantisation (tools/onnx/onnx_quant.h) calibrated on the .npy files in
 * DIR, written as a QDQ ONNX model that onnxruntime runs as it is and that
 * the importer compiles for the NPU.
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/commands.h"
#include "tools/onnx/npy.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_quant.h"
#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_write.h"

#define CALIB_MAX_FILES		1024
#define CALIB_MAX_BYTES		(256u << 20)	/* one .npy batch */

static const char usage_text[] =
	"usage: rkbare quantize MODEL.onnx --calib DIR -o OUT.onnx\n"
	"  calibrates the float32 model on every .npy in DIR (float32 batches of the\n"
	"  model's single input, any batch size when its first axis is symbolic)\n"
	"  and writes the int8 QDQ model: activations per tensor, weights per\n"
	"  channel, as the NPU runs them\n";

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Sorted paths of the .npy files in dir; NULL with a message when none. */
static char **list_npy(const char *dir, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	char **list = NULL;

	*n = 0;
	if (!d) {
		fprintf(stderr, "calibration: cannot open directory '%s'\n", dir);
		return NULL;
	}
	list = calloc(CALIB_MAX_FILES, sizeof(*list));
	while (list && (e = readdir(d)) && *n < CALIB_MAX_FILES) {
		size_t len = strlen(e->d_name);

		if (len < 5 || strcmp(e->d_name + len - 4, ".npy"))
			continue;
		list[*n] = malloc(strlen(dir) + len + 2);
		if (!list[*n])
			break;
		sprintf(list[(*n)++], "%s/%s", dir, e->d_name);
	}
	closedir(d);
	if (list && *n)
		qsort(list, *n, sizeof(*list), cmp_str);
	else
		fprintf(stderr, "calibration: no .npy files in '%s'\n", dir);
	return list;
}

static void free_list(char **list, size_t n)
{
	for (size_t i = 0; list && i < n; i++)
		free(list[i]);
	free(list);
}

/* Checks one batch against the input's declared shape; returns its batch
 * size, or -1 with a message. */
static int64_t batch_of(const struct onnx_tensor *in, const int64_t *declared,
			const struct npy_array *a, const char *path)
{
	if (a->dtype != NPY_F32 || (int)a->rank != in->rank) {
		fprintf(stderr, "calibration: %s: needs float32 of rank %d\n", path, in->rank);
		return -1;
	}
	for (int d = 0; d < in->rank; d++)
		if (declared[d] >= 0 && (uint64_t)declared[d] != a->shape[d]) {
			fprintf(stderr, "calibration: %s: dimension %d is %llu, the model says "
				"%lld\n", path, d, (unsigned long long)a->shape[d],
				(long long)declared[d]);
			return -1;
		}
	return a->rank ? (int64_t)a->shape[0] : 1;
}

static int calibrate(struct onnx_graph *g, char **files, size_t n, struct onnx_ranges *r)
{
	struct onnx_tensor *in = &g->tensors[g->inputs[0]];
	int64_t declared[ONNX_GRAPH_MAX_RANK];
	char err[256];
	int rc = 0;

	memcpy(declared, in->dims, sizeof(declared));
	for (size_t i = 0; !rc && i < n; i++) {
		struct npy_array a;
		int64_t batch;

		if (npy_read(files[i], CALIB_MAX_BYTES, &a, err, sizeof(err))) {
			fprintf(stderr, "calibration: %s: %s\n", files[i], err);
			return -1;
		}
		batch = batch_of(in, declared, &a, files[i]);
		memcpy(in->dims, declared, sizeof(declared));
		rc = batch < 0 ? -1 : onnx_infer_shapes(g, batch, err, sizeof(err));
		if (!rc)
			rc = onnx_calibrate(g, (const float *const *)&a.data, r, err, sizeof(err));
		if (rc && batch >= 0)
			fprintf(stderr, "calibration: %s\n", err);
		npy_free(&a);
	}
	memcpy(in->dims, declared, sizeof(declared));
	return rc;
}

int quantize_with_calibration(struct onnx_graph *g, const char *dir, struct onnx_graph **qp,
			      const char *who)
{
	struct onnx_ranges ranges = { 0 };
	struct onnx_graph *q = NULL;
	char **files = NULL, err[256];
	size_t n_files = 0;
	int rc = -1;

	*qp = NULL;
	if (g->n_inputs != 1 || g->tensors[g->inputs[0]].dtype != ONNX_DT_FLOAT) {
		fprintf(stderr, "%s: calibration takes models with one float32 input\n", who);
		return -1;
	}
	files = list_npy(dir, &n_files);
	if (!files || !n_files || onnx_ranges_init(&ranges, g) ||
	    calibrate(g, files, n_files, &ranges))
		goto out;
	if (onnx_quantize_qdq(g, &ranges, &q, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", who, err);
		goto out;
	}
	/* A symbolic batch axis stays symbolic in the file. */
	if (g->tensors[g->inputs[0]].dims[0] < 0)
		for (size_t i = 0; i < q->n_outputs; i++)
			q->tensors[q->outputs[i]].dims[0] = -1;
	printf("%s: calibrated on %zu batches from %zu files in %s\n", who, ranges.samples,
	       n_files, dir);
	*qp = q;
	rc = 0;
out:
	free_list(files, n_files);
	onnx_ranges_free(&ranges);
	return rc;
}

int cmd_quantize(int argc, char **argv)
{
	const char *model = NULL, *dir = NULL, *out = NULL;
	struct onnx_graph *g = NULL, *q = NULL;
	char err[256];
	int status = RKBARE_EXIT_USAGE;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return RKBARE_EXIT_OK;
		} else if (!strcmp(argv[i], "--calib") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] != '-' && !model) {
			model = argv[i];
		} else {
			fprintf(stderr, "rkbare quantize: unexpected argument '%s'\n", argv[i]);
			return RKBARE_EXIT_USAGE;
		}
	}
	if (!model || !dir || !out) {
		fputs(usage_text, stderr);
		return RKBARE_EXIT_USAGE;
	}
	if (onnx_graph_load_file(model, &g, err, sizeof(err))) {
		fprintf(stderr, "rkbare quantize: %s: %s\n", model, err);
		return RKBARE_EXIT_USAGE;
	}
	if (quantize_with_calibration(g, dir, &q, "rkbare quantize"))
		goto out;
	if (onnx_graph_save(q, out)) {
		fprintf(stderr, "rkbare quantize: cannot write '%s'\n", out);
		status = RKBARE_EXIT_FAIL;
		goto out;
	}
	printf("rkbare quantize: %s: %zu nodes -> %zu in %s\n", model, g->n_nodes, q->n_nodes,
	       out);
	status = RKBARE_EXIT_OK;
out:
	onnx_graph_free(q);
	onnx_graph_free(g);
	return status;
}
