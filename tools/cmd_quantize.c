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

#include "tools/cli_parse.h"
#include "tools/commands.h"
#include "tools/onnx/npy.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_quant.h"
#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_write.h"

#define CALIB_MAX_FILES		1024
#define CALIB_MAX_BYTES		(256u << 20)	/* one .npy batch */
/* Float inputs a model may have for calibration. */
#define ONNX_CALIB_MAX_INPUTS	8
/* --calib-percentile's range: above the median, below every value */
#define CALIB_PERCENTILE_MIN	50.0
#define CALIB_PERCENTILE_MAX	100.0

static const char usage_text[] =
	"usage: rkbare quantize MODEL.onnx --calib DIR -o OUT.onnx [--pow2-scales]\n"
	"                       [--calib-percentile P]\n"
	"  calibrates the float32 model on every .npy in DIR (float32 batches of the\n"
	"  model's input, any batch size when its first axis is symbolic; a model of\n"
	"  several inputs takes a subdirectory of DIR per input, named as the input,\n"
	"  file i of each making sample i; symbolic dimensions take each file's\n"
	"  sizes, unless the model's shape subgraphs fold for the first file's,\n"
	"  which every file must then have)\n"
	"  and writes the int8 QDQ model: activations per tensor, weights per\n"
	"  channel, as the NPU runs them; --pow2-scales rounds every scale up to a\n"
	"  power of two (requantisations become exact shifts); --calib-percentile P\n"
	"  (e.g. 99.99) takes each activation's range from the (100 - P)th to the\n"
	"  Pth percentile of each batch, averaged, instead of the extremes seen\n"
	"  (deep networks whose maps have rare outliers); Sigmoid, HardSigmoid,\n"
	"  Softmax and Tanh outputs keep [0, 1] or [-1, 1] then\n";

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

/* Calibration files: for each of the model's inputs, its sorted .npy paths
 * (sample i is file i of every input). */
struct calib_files {
	char **files[ONNX_CALIB_MAX_INPUTS];
	size_t count[ONNX_CALIB_MAX_INPUTS];	/* files of each input */
	size_t n;		/* samples: files per input */
	size_t n_inputs;	/* lists held */
};

static void calib_files_free(struct calib_files *cf)
{
	for (size_t k = 0; k < cf->n_inputs; k++)
		free_list(cf->files[k], cf->count[k]);
}

/*
 * One input: the .npy files in dir. Several: a subdirectory of dir per
 * input, named as the input, each with as many files.
 */
static int calib_files_list(const struct onnx_graph *g, const char *dir, struct calib_files *cf)
{
	memset(cf, 0, sizeof(*cf));
	if (g->n_inputs == 1) {
		cf->files[0] = list_npy(dir, &cf->count[0]);
		cf->n_inputs = 1;
		cf->n = cf->count[0];
		return cf->files[0] && cf->n ? 0 : -1;
	}
	for (size_t k = 0; k < g->n_inputs; k++) {
		const char *name = g->tensors[g->inputs[k]].name;
		char *sub = malloc(strlen(dir) + strlen(name) + 2);

		if (!sub || strchr(name, '/')) {
			fprintf(stderr, "calibration: input '%s': no subdirectory of that name\n",
				name);
			free(sub);
			return -1;
		}
		sprintf(sub, "%s/%s", dir, name);
		cf->files[k] = list_npy(sub, &cf->count[k]);
		cf->n_inputs = k + 1;
		free(sub);
		if (!cf->files[k] || !cf->count[k])
			return -1;
		if (k && cf->count[k] != cf->n) {
			fprintf(stderr, "calibration: input '%s' has %zu files, '%s' %zu: sample i "
				"is file i of every input\n", name, cf->count[k],
				g->tensors[g->inputs[0]].name, cf->n);
			return -1;
		}
		cf->n = cf->count[k];
	}
	return 0;
}

static int calibrate(struct onnx_graph *g, const struct calib_files *cf,
		     struct onnx_ranges *r)
{
	int64_t declared[ONNX_CALIB_MAX_INPUTS][ONNX_GRAPH_MAX_RANK];
	char err[256];
	int rc = 0;

	for (size_t k = 0; k < g->n_inputs; k++)
		memcpy(declared[k], g->tensors[g->inputs[k]].dims, sizeof(declared[k]));
	for (size_t i = 0; !rc && i < cf->n; i++) {
		struct npy_array a[ONNX_CALIB_MAX_INPUTS];
		const float *data[ONNX_CALIB_MAX_INPUTS];
		int64_t batch = -1;
		size_t k;

		memset(a, 0, sizeof(a));
		for (k = 0; !rc && k < g->n_inputs; k++) {
			struct onnx_tensor *in = &g->tensors[g->inputs[k]];
			int64_t b;

			if (npy_read(cf->files[k][i], CALIB_MAX_BYTES, &a[k], err, sizeof(err))) {
				fprintf(stderr, "calibration: %s: %s\n", cf->files[k][i], err);
				rc = -1;
				break;
			}
			b = batch_of(in, declared[k], &a[k], cf->files[k][i]);
			if (b < 0) {
				rc = -1;
			} else if (in->rank > 0 && declared[k][0] < 0) {
				/* the symbolic batch axes of all inputs take one size */
				if (batch >= 0 && b != batch) {
					fprintf(stderr, "calibration: %s: batch %lld, the other "
						"inputs' %lld\n", cf->files[k][i], (long long)b,
						(long long)batch);
					rc = -1;
				}
				batch = b;
			}
			data[k] = a[k].data;
			for (int d = 0; !rc && d < in->rank; d++)
				in->dims[d] = declared[k][d] >= 0 ? declared[k][d]
								  : (int64_t)a[k].shape[d];
		}
		if (!rc) {
			rc = onnx_infer_shapes(g, batch < 0 ? 1 : batch, err, sizeof(err));
			if (!rc)
				rc = onnx_calibrate(g, data, r, err, sizeof(err));
			if (rc)
				fprintf(stderr, "calibration: %s\n", err);
		}
		for (size_t j = 0; j < g->n_inputs; j++)
			npy_free(&a[j]);
	}
	for (size_t k = 0; k < g->n_inputs; k++)
		memcpy(g->tensors[g->inputs[k]].dims, declared[k], sizeof(declared[k]));
	return rc;
}

/*
 * Folds g (onnx_fold.h) for the sizes of sample 0: its symbolic input
 * dimensions take that sample's, and keep them when the fold needed them
 * (*sized).
 */
static int fold_for_first_sample(struct onnx_graph *g, const struct calib_files *cf,
				 bool *sized, const char *who)
{
	int64_t declared[ONNX_CALIB_MAX_INPUTS][ONNX_GRAPH_MAX_RANK];
	struct onnx_fold_stats st;
	char err[256];
	int rc = 0;

	for (size_t k = 0; !rc && k < g->n_inputs; k++) {
		struct onnx_tensor *in = &g->tensors[g->inputs[k]];
		struct npy_array a;

		memcpy(declared[k], in->dims, sizeof(declared[k]));
		if (npy_read(cf->files[k][0], CALIB_MAX_BYTES, &a, err, sizeof(err))) {
			fprintf(stderr, "calibration: %s: %s\n", cf->files[k][0], err);
			rc = -1;
			break;
		}
		if (batch_of(in, declared[k], &a, cf->files[k][0]) < 0)
			rc = -1;
		for (int d = 0; !rc && d < in->rank; d++)
			if (in->dims[d] < 0)
				in->dims[d] = (int64_t)a.shape[d];
		npy_free(&a);
	}
	if (!rc && onnx_fold(g, 0, &st, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", who, err);
		rc = -1;
	}
	if (!rc) {
		onnx_fold_summary(&st, err, sizeof(err));
		if (err[0])
			printf("%s: %s\n", who, err);
	}
	*sized = !rc && st.sized;
	for (size_t k = 0; !rc && !st.sized && k < g->n_inputs; k++)
		memcpy(g->tensors[g->inputs[k]].dims, declared[k], sizeof(declared[k]));
	return rc;
}

int calib_percentile_parse(const char *s, float *p, const char *who)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v > CALIB_PERCENTILE_MIN && v < CALIB_PERCENTILE_MAX)) {
		fprintf(stderr, "%s: --calib-percentile %s: a number above %g and below %g\n",
			who, s, CALIB_PERCENTILE_MIN, CALIB_PERCENTILE_MAX);
		return -1;
	}
	*p = (float)v;
	return 0;
}

int quantize_with_calibration(struct onnx_graph *g, const char *dir,
			      const struct onnx_quant_opts *opts, float percentile,
			      struct onnx_graph **qp, bool *sized, const char *who)
{
	struct onnx_ranges ranges = { 0 };
	struct onnx_graph *q = NULL;
	struct calib_files cf;
	bool fold_sized = false;
	char err[256];
	int rc = -1;

	*qp = NULL;
	if (!g->n_inputs || g->n_inputs > ONNX_CALIB_MAX_INPUTS) {
		fprintf(stderr, "%s: calibration takes models of 1 to %d float32 inputs\n", who,
			ONNX_CALIB_MAX_INPUTS);
		return -1;
	}
	for (size_t k = 0; k < g->n_inputs; k++)
		if (g->tensors[g->inputs[k]].dtype != ONNX_DT_FLOAT) {
			fprintf(stderr, "%s: input '%s' is not float32: calibration takes float "
				"models\n", who, g->tensors[g->inputs[k]].name);
			return -1;
		}
	if (calib_files_list(g, dir, &cf) || fold_for_first_sample(g, &cf, &fold_sized, who) ||
	    onnx_ranges_init(&ranges, g) ||
	    (ranges.percentile = percentile, calibrate(g, &cf, &ranges)))
		goto out;
	if (sized)
		*sized = fold_sized;
	if (onnx_quantize_qdq(g, &ranges, opts, &q, err, sizeof(err))) {
		fprintf(stderr, "%s: %s\n", who, err);
		goto out;
	}
	/* A symbolic batch axis stays symbolic in the file; other symbolic
	 * input dimensions leave the outputs' sizes unknown. */
	if (g->tensors[g->inputs[0]].dims[0] < 0)
		for (size_t i = 0; i < q->n_outputs; i++)
			q->tensors[q->outputs[i]].dims[0] = -1;
	for (size_t k = 0; k < g->n_inputs; k++)
		for (int d = 1; d < g->tensors[g->inputs[k]].rank; d++)
			for (size_t i = 0; g->tensors[g->inputs[k]].dims[d] < 0 && i < q->n_outputs;
			     i++)
				for (int j = 0; j < q->tensors[q->outputs[i]].rank; j++)
					q->tensors[q->outputs[i]].dims[j] = -1;
	printf("%s: calibrated on %zu batches from %zu file(s) per input in %s\n", who,
	       ranges.samples, cf.n, dir);
	*qp = q;
	rc = 0;
out:
	calib_files_free(&cf);
	onnx_ranges_free(&ranges);
	return rc;
}

int cmd_quantize(int argc, char **argv)
{
	const char *model = NULL, *dir = NULL, *out = NULL;
	struct onnx_graph *g = NULL, *q = NULL;
	bool pow2 = false;
	float percentile = 0;
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
		} else if (!strcmp(argv[i], "--pow2-scales")) {
			pow2 = true;
		} else if (!strcmp(argv[i], "--calib-percentile") && i + 1 < argc) {
			if (calib_percentile_parse(argv[++i], &percentile, "rkbare quantize"))
				return RKBARE_EXIT_USAGE;
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
	if (quantize_with_calibration(g, dir, &(struct onnx_quant_opts){ .pow2_scales = pow2 },
				      percentile, &q, NULL, "rkbare quantize"))
		goto out;
	if (cli_mkdirs_parent(out) || onnx_graph_save(q, out)) {
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
