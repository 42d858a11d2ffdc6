/* SPDX-License-Identifier: MIT */
/*
 * rkbare compile: an ONNX model → a model container (docs/FORMAT.md).
 * Quantised models (QDQ, QLinearConv) are imported as they are; a float32
 * model is first calibrated to int8 on the .npy batches of --calib.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "runtime/model.h"
#include "tools/cli_parse.h"
#include "tools/commands.h"
#include "tools/op_stats.h"
#include "tools/onnx/model_write.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_import.h"
#include "tools/onnx/onnx_quant.h"
#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_spatial.h"
#include "tools/onnx/onnx_write.h"

static const char usage_text[] =
	"usage: rkbare compile MODEL.onnx -o OUT.rkb [--calib DIR [--pow2-scales]\n"
	"                      [--calib-percentile P] [--keep-float NAME[,NAME..] ...]\n"
	"                      [--keep-float-auto N]]\n"
	"                      [--save-qdq OUT.onnx]\n"
	"                      [--precision int8|fp16] [--user TEXT] [--cpu-op TYPE ...]\n"
	"                      [--shape-set NAME=DxDx..[,NAME=..] ...] [--no-fusion]\n"
	"  writes the model container the runtime loads. A quantised model (QDQ or\n"
	"  QLinearConv, int8/uint8) is taken as it is; a float32 model is calibrated\n"
	"  to int8 on the .npy batches in DIR first (a model of several inputs: one\n"
	"  subdirectory per input, named as it; --save-qdq keeps that QDQ model,\n"
	"  for onnxruntime; --pow2-scales rounds every scale up to a power of two, so\n"
	"  each requantisation is an exact shift the NPU and onnxruntime round\n"
	"  alike; --calib-percentile P as rkbare quantize's; --keep-float leaves\n"
	"  the named activations in float, and --keep-float-auto the N whose int8\n"
	"  step is coarsest against their spread on the calibration data: the ops\n"
	"  that compute or read them run in fp16, with casts to and from int8 on\n"
	"  the CPU at the edges: hybrid quantisation). --precision fp16 runs\n"
	"  a float32 model in fp16 instead (no calibration; Conv, Gemm, pools,\n"
	"  Concat, activations and element-wise ops, the last on the CPU where the\n"
	"  NPU has no mapping). --user stores a string the runtime reports. --cpu-op\n"
	"  declares nodes of that op type (any domain; between DequantizeLinear and\n"
	"  QuantizeLinear, shape-preserving) CPU ops, which the application running\n"
	"  the container implements (rkb_cpu_op_register). Each --shape-set gives\n"
	"  input dimensions to compile the model for (dynamic shapes: the first is\n"
	"  shape set 0, the one the runtime starts with and --calib data has;\n"
	"  rknn_set_input_shapes picks another); inputs a set leaves out keep the\n"
	"  model's dimensions. Symbolic dimensions other than the first (batch 1)\n"
	"  need a --shape-set. The float graph is folded first, for those sizes:\n"
	"  shape subgraphs become constants, BatchNormalization and constant\n"
	"  scales / offsets after a Conv, ConvTranspose or Gemm go into its\n"
	"  weights, Identity and Dropout go, and the spelled-out hard-swish, SiLU,\n"
	"  LayerNorm and erf GELU become HardSwish, Swish, LayerNormalization and\n"
	"  Gelu nodes. A model exported with a fixed batch N > 1 on its [N,C,H,W]\n"
	"  inputs ([N,C,D,H,W], and [N,C,W] in a graph of 1-D convolutions or\n"
	"  pools) is compiled for one image; rkbare infer runs an [N, ...] input\n"
	"  as N runs. A convolution followed by an Add of its output and another\n"
	"  map becomes one NPU op (the DPU adds the map), and fp16 Sigmoid, Tanh,\n"
	"  HardSigmoid, HardSwish, Swish and Gelu run on the DPU's lookup table;\n"
	"  --no-fusion keeps the convolution and the Add apart and those\n"
	"  functions on the CPU.\n";

/* --no-fusion: every op as imported (model_write fuses conv + residual add
 * and writes fp16 functions for the DPU's lookup table) */
static bool no_fusion;

/* --cpu-op types a command line may declare. */
#define COMPILE_MAX_CPU_OPS	16
/* --shape-set options a command line may give (runtime/model_load.c takes
 * more). */
#define COMPILE_MAX_SHAPE_SETS	16
/* Graph inputs a model with shape sets may have. */
#define COMPILE_MAX_INPUTS	16
/* --keep-float names a command line may give. */
#define COMPILE_MAX_KEEP_FLOAT	256

/* Adds --keep-float's comma-separated names (list is split in place):
 * 0, or -1 when there are more than COMPILE_MAX_KEEP_FLOAT. */
static int keep_float_add(char *list, const char **names, size_t *n)
{
	for (char *name = strtok(list, ","); name; name = strtok(NULL, ",")) {
		if (*n == COMPILE_MAX_KEEP_FLOAT)
			return -1;
		names[(*n)++] = name;
	}
	return 0;
}

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
	FILE *f = cli_mkdirs_parent(path) ? NULL : fopen(path, "wb");
	int rc = f && fwrite(data, 1, size, f) == size ? 0 : -1;

	if (f && fclose(f))
		rc = -1;
	return rc;
}

/* One "NAME=DxDx..." of a --shape-set: the dimensions of graph input NAME. */
static int apply_input_dims(struct onnx_graph *g, const char *item, size_t len, char *err,
			    size_t err_len)
{
	const char *eq = memchr(item, '=', len), *p;
	struct onnx_tensor *t = NULL;
	int64_t dims[ONNX_GRAPH_MAX_RANK];
	int rank = 0;

	if (!eq || eq == item) {
		snprintf(err, err_len, "'%.*s': expected NAME=DxDx..", (int)len, item);
		return -1;
	}
	for (size_t i = 0; i < g->n_inputs; i++) {
		struct onnx_tensor *in = &g->tensors[g->inputs[i]];

		if (strlen(in->name) == (size_t)(eq - item) && !memcmp(in->name, item, eq - item))
			t = in;
	}
	if (!t) {
		snprintf(err, err_len, "'%.*s': the model has no input '%.*s'", (int)len, item,
			 (int)(eq - item), item);
		return -1;
	}
	for (p = eq + 1; p < item + len; p++) {
		char *end;
		long long v = strtoll(p, &end, 10);

		if (end == p || v <= 0 || v > INT32_MAX || rank == ONNX_GRAPH_MAX_RANK ||
		    end > item + len || (end < item + len && *end != 'x')) {
			snprintf(err, err_len, "'%.*s': dimensions are positive integers joined "
				 "by 'x'", (int)len, item);
			return -1;
		}
		dims[rank++] = v;
		p = end;
	}
	if (t->rank >= 0 && t->rank != rank) {
		snprintf(err, err_len, "'%.*s': input '%s' has %d dimensions", (int)len, item,
			 t->name, t->rank);
		return -1;
	}
	t->rank = rank;
	memcpy(t->dims, dims, (size_t)rank * sizeof(dims[0]));
	return 0;
}

/* A --shape-set: "NAME=DxD..,NAME=DxD..". */
static int apply_shape_set(struct onnx_graph *g, const char *set, char *err, size_t err_len)
{
	while (*set) {
		size_t len = strcspn(set, ",");

		if (apply_input_dims(g, set, len, err, err_len))
			return -1;
		set += len + (set[len] == ',');
	}
	return 0;
}

static void print_fold(const char *model, const struct onnx_fold_stats *st)
{
	char line[200];

	onnx_fold_summary(st, line, sizeof(line));
	if (line[0])
		printf("rkbare compile: %s: %s\n", model, line);
}

/* Whether g is a graph of 1-D convolutions or pools (onnx_window1d), whose
 * [N, C, W] inputs carry their batch first. */
static bool graph_1d(const struct onnx_graph *g)
{
	for (size_t i = 0; i < g->n_nodes; i++)
		if (onnx_window1d(g, &g->nodes[i]))
			return true;
	return false;
}

/*
 * A fixed batch N > 1 on the [N, C, H, W] inputs ([N, A, B, H, W], and
 * [N, C, W] in a graph of 1-D windows): the vendor's multi-batch, which
 * runs N images. The graph is compiled for one image (the batch axis
 * made symbolic, which the fold and the importers take as 1, and which
 * calibration data of any batch fills) and run N times over the batch's
 * slices (rkbare infer takes [N, ...] inputs; compile once, run many).
 * Returns N (1: no fixed batch), or -1 with a message when the inputs'
 * batches differ.
 */
static int64_t per_image(struct onnx_graph *g, const char *model)
{
	int64_t n = 1;
	const char *first = NULL;
	bool ncw = graph_1d(g);

	for (size_t i = 0; i < g->n_inputs; i++) {
		struct onnx_tensor *t = &g->tensors[g->inputs[i]];

		if (!(t->rank == 4 || t->rank == 5 || (t->rank == 3 && ncw)) || t->dims[0] <= 1)
			continue;
		if (first && t->dims[0] != n) {
			fprintf(stderr, "rkbare compile: %s: inputs '%s' and '%s' have fixed "
				"batches %lld and %lld; a batch runs as one image per run, so "
				"they must agree\n", model, first, t->name, (long long)n,
				(long long)t->dims[0]);
			return -1;
		}
		first = t->name;
		n = t->dims[0];
		t->dims[0] = -1;
	}
	for (size_t i = 0; n > 1 && i < g->n_outputs; i++) {
		struct onnx_tensor *t = &g->tensors[g->outputs[i]];

		if (t->rank > 0 && t->dims[0] == n)
			t->dims[0] = -1;
	}
	if (n > 1)
		printf("rkbare compile: %s: input '%s' has a fixed batch of %lld: compiled for "
		       "one image, the batch runs as %lld runs of it (rkbare infer takes the "
		       "[%lld, ...] input)\n", model, first, (long long)n, (long long)n,
		       (long long)n);
	return n;
}

/*
 * The attribute of node n that reaches across the images of a batch (its
 * input a rank-3 to 5 map whose first axis is the batch), or NULL: an axis 0
 * (Softmax, Concat, Gather, Split, Flatten, LayerNormalization), a
 * reduction over axis 0 or over everything, a Transpose moving axis 0. g is
 * the graph compiled for one image, its shapes inferred.
 */
static const char *batch_axis_attr(const struct onnx_graph *g, const struct onnx_node *n)
{
	const struct onnx_tensor *x = n->n_in && n->in[0] >= 0 ? &g->tensors[n->in[0]] : NULL;
	const char *op = n->op_type;
	const struct onnx_attr *a;
	int64_t axis = 1;

	if (!x || x->rank < 3 || x->rank > 5 || x->role == ONNX_TENSOR_CONSTANT)
		return NULL;
	if (!strcmp(op, "Softmax") || !strcmp(op, "LogSoftmax"))
		axis = onnx_attr_int(n, "axis", g->opset < 13 ? 1 : -1);
	else if (!strcmp(op, "Concat") || !strcmp(op, "Gather") || !strcmp(op, "Split"))
		axis = onnx_attr_int(n, "axis", 0);
	else if (!strcmp(op, "Flatten"))
		axis = onnx_attr_int(n, "axis", 1);
	else if (!strcmp(op, "LayerNormalization"))
		axis = onnx_attr_int(n, "axis", -1);
	if (axis == 0 || axis == -x->rank)
		return "axis";
	if (onnx_reduce_fn(n)) {
		bool reduced[ONNX_GRAPH_MAX_RANK];

		if (!onnx_reduce_set(g, n, x->rank, reduced, NULL, 0) && reduced[0])
			return "axes";
	}
	a = onnx_node_attr(n, "perm");
	if (!strcmp(op, "Transpose") && (!a || (a->type == ONNX_ATTR_INTS &&
						a->n == (size_t)x->rank && a->ints[0] != 0)))
		return "perm";
	return NULL;
}

/* 0, or -1 with a message in err when a node of g (its shapes inferred for
 * one image) mixes the images of a fixed batch of n. */
static int per_image_check(const struct onnx_graph *g, int64_t n, char *err, size_t err_len)
{
	for (size_t i = 0; i < g->n_nodes; i++) {
		const char *attr = batch_axis_attr(g, &g->nodes[i]);

		if (attr) {
			snprintf(err, err_len, "node '%s' (%s): attribute %s reaches across the "
				 "images of the fixed batch of %lld, which runs as one image per "
				 "run: not supported", g->nodes[i].name, g->nodes[i].op_type, attr,
				 (long long)n);
			return -1;
		}
	}
	return 0;
}

/* The container of graph g, folded (onnx_fold.h), in a malloc'd *blob;
 * *sized tells whether the fold holds for g's present input sizes only. A
 * graph with a fixed batch > 1 (compiled for one image) is refused when a
 * node reaches across the batch's images. */
static int compile_graph(struct onnx_graph *g, bool fp16, const char *model, const char *user,
			 int64_t batch, void **blob, size_t *size, bool *sized, char *err,
			 size_t err_len)
{
	struct imp_graph *ig = NULL;
	struct onnx_fold_stats st;
	int rc = onnx_fold(g, 1, &st, err, err_len);

	if (!rc)
		print_fold(model, &st);
	*sized = st.sized;
	if (!rc)
		rc = onnx_infer_shapes(g, 1, err, err_len);
	if (!rc && batch > 1)
		rc = per_image_check(g, batch, err, err_len);
	if (!rc)
		rc = fp16 ? onnx_import_fp16(g, &ig, err, err_len) :
			    onnx_import(g, &ig, err, err_len);
	if (!rc) {
		ig->no_fusion = no_fusion;
		rc = model_write(ig, user, blob, size, err, err_len);
	}
	imp_graph_free(ig);
	return rc;
}

/* The inputs' shapes as the model declares them, by input index. */
struct declared_inputs {
	size_t n;
	int rank[COMPILE_MAX_INPUTS];
	int64_t dims[COMPILE_MAX_INPUTS][ONNX_GRAPH_MAX_RANK];
};

static int save_inputs(const struct onnx_graph *g, struct declared_inputs *d)
{
	if (g->n_inputs > COMPILE_MAX_INPUTS)
		return -1;
	d->n = g->n_inputs;
	for (size_t i = 0; i < d->n; i++) {
		d->rank[i] = g->tensors[g->inputs[i]].rank;
		memcpy(d->dims[i], g->tensors[g->inputs[i]].dims, sizeof(d->dims[i]));
	}
	return 0;
}

static void restore_inputs(struct onnx_graph *g, const struct declared_inputs *d)
{
	for (size_t i = 0; i < d->n && i < g->n_inputs; i++) {
		g->tensors[g->inputs[i]].rank = d->rank[i];
		memcpy(g->tensors[g->inputs[i]].dims, d->dims[i], sizeof(d->dims[i]));
	}
}

/* Shape sets 1.. compiled and added to the container of set 0; inputs a
 * set leaves out keep the shapes the model declares. A graph whose fold
 * held for set 0's sizes only is read again from `model` for each set. */
static int compile_shape_sets(struct onnx_graph *g, bool fp16, const char *model, bool reload,
			      const struct declared_inputs *declared, const char *const *sets,
			      size_t n_sets, const char *user, void **blob, size_t *size, char *err,
			      size_t err_len)
{
	void *blobs[COMPILE_MAX_SHAPE_SETS] = { 0 };
	size_t sizes[COMPILE_MAX_SHAPE_SETS] = { 0 };
	int rc = 0;

	for (size_t k = 1; !rc && k < n_sets; k++) {
		struct onnx_graph *fresh = NULL;
		char why[400];
		bool sized;

		if (reload && !(rc = onnx_graph_load_file(model, &fresh, why, sizeof(why)))) {
			fresh->cpu_ops = g->cpu_ops;
			fresh->n_cpu_ops = g->n_cpu_ops;
		}
		if (!rc) {
			restore_inputs(fresh ? fresh : g, declared);
			rc = apply_shape_set(fresh ? fresh : g, sets[k], why, sizeof(why));
		}
		if (!rc)
			rc = compile_graph(fresh ? fresh : g, fp16, model, user, 1, &blobs[k],
					   &sizes[k], &sized, why, sizeof(why));
		if (rc)
			snprintf(err, err_len, "shape set %zu (%s): %s", k, sets[k], why);
		onnx_graph_free(fresh);
	}
	if (!rc)
		rc = model_add_shape_sets(blob, size, blobs + 1, sizes + 1, n_sets - 1, err,
					  err_len);
	for (size_t k = 1; k < n_sets; k++)
		free(blobs[k]);
	return rc;
}

int cmd_compile(int argc, char **argv)
{
	const char *model = NULL, *out = NULL, *calib = NULL, *qdq = NULL, *user = NULL;
	bool fp16 = false, pow2 = false;
	float percentile = 0;
	int64_t batch = 1;	/* a fixed batch, run as that many one-image runs */
	const char *cpu_ops[COMPILE_MAX_CPU_OPS], *sets[COMPILE_MAX_SHAPE_SETS];
	const char *keep_float[COMPILE_MAX_KEEP_FLOAT];
	struct onnx_quant_opts qopts = { .keep_float = keep_float };
	size_t n_cpu_ops = 0, n_sets = 0;
	struct onnx_graph *g = NULL, *q = NULL;
	struct declared_inputs declared = { 0 };
	struct rkb_model check;
	void *blob = NULL;
	size_t size = 0;
	bool sized = false, calib_sized = false;
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
		} else if (!strcmp(argv[i], "--shape-set") && i + 1 < argc) {
			if (n_sets == COMPILE_MAX_SHAPE_SETS || !argv[i + 1][0]) {
				fprintf(stderr, "rkbare compile: --shape-set %s: a non-empty set, at "
					"most %d\n", argv[i + 1], COMPILE_MAX_SHAPE_SETS);
				return RKBARE_EXIT_USAGE;
			}
			sets[n_sets++] = argv[++i];
		} else if (!strcmp(argv[i], "--pow2-scales")) {
			pow2 = true;
		} else if (!strcmp(argv[i], "--keep-float") && i + 1 < argc) {
			if (keep_float_add(argv[++i], keep_float, &qopts.n_keep_float)) {
				fprintf(stderr, "rkbare compile: --keep-float: at most %d names\n",
					COMPILE_MAX_KEEP_FLOAT);
				return RKBARE_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--keep-float-auto") && i + 1 < argc) {
			char *end;
			unsigned long v = strtoul(argv[++i], &end, 10);

			if (end == argv[i] || *end || argv[i][0] == '-' || !v || v > UINT_MAX) {
				fprintf(stderr, "rkbare compile: --keep-float-auto %s: a count of "
					"activations, 1 or more\n", argv[i]);
				return RKBARE_EXIT_USAGE;
			}
			qopts.keep_float_auto = (unsigned int)v;
		} else if (!strcmp(argv[i], "--calib-percentile") && i + 1 < argc) {
			if (calib_percentile_parse(argv[++i], &percentile, "rkbare compile"))
				return RKBARE_EXIT_USAGE;
		} else if (!strcmp(argv[i], "--no-fusion")) {
			no_fusion = true;
		} else if (!strcmp(argv[i], "--precision") && i + 1 < argc) {
			fp16 = !strcmp(argv[++i], "fp16");
			if (!fp16 && strcmp(argv[i], "int8")) {
				fprintf(stderr, "rkbare compile: --precision %s: int8 or fp16\n",
					argv[i]);
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
	if (n_sets && save_inputs(g, &declared)) {
		fprintf(stderr, "rkbare compile: --shape-set: models of at most %d inputs\n",
			COMPILE_MAX_INPUTS);
		goto out;
	}
	if (n_sets && apply_shape_set(g, sets[0], err, sizeof(err))) {
		fprintf(stderr, "rkbare compile: --shape-set %s\n", err);
		goto out;
	}
	batch = per_image(g, model);
	if (batch < 0)
		goto out;
	if (fp16) {
		if (is_quantised(g)) {
			fprintf(stderr, "rkbare compile: --precision fp16: %s is a quantised "
				"model (int8/uint8 inputs or quantisation nodes); fp16 takes a "
				"float32 model\n", model);
			goto out;
		}
		if (calib || qdq || qopts.n_keep_float || qopts.keep_float_auto) {
			fprintf(stderr, "rkbare compile: --precision fp16 takes a float32 model "
				"as it is: %s does not apply\n", calib ? "--calib" : qdq ?
				"--save-qdq" : "--keep-float");
			goto out;
		}
	} else if (!is_quantised(g)) {
		if (!calib) {
			fprintf(stderr, "rkbare compile: %s is a float model: give --calib DIR "
				"(.npy inputs) to quantise it to int8\n", model);
			goto out;
		}
		qopts.pow2_scales = pow2;
		if (quantize_with_calibration(g, calib, &qopts, percentile, &q, &calib_sized,
					      "rkbare compile"))
			goto out;
		if (qdq && (cli_mkdirs_parent(qdq) || onnx_graph_save(q, qdq))) {
			fprintf(stderr, "rkbare compile: cannot write '%s'\n", qdq);
			status = RKBARE_EXIT_FAIL;
			goto out;
		}
	} else if (calib || qdq || qopts.n_keep_float || qopts.keep_float_auto) {
		fprintf(stderr, "rkbare compile: %s is already quantised: --calib, --save-qdq "
			"and --keep-float do not apply\n", model);
		goto out;
	}
	if (compile_graph(q ? q : g, fp16, model, user, batch, &blob, &size, &sized, err,
			  sizeof(err))) {
		if (batch > 1)
			fprintf(stderr, "rkbare compile: %s: compiled for one image of its fixed "
				"batch of %lld: %s\n", model, (long long)batch, err);
		else
			fprintf(stderr, "rkbare compile: %s: %s\n", model, err);
		goto out;
	}
	/* a calibrated graph holds for the sizes it was calibrated at */
	if (n_sets > 1 && q && calib_sized) {
		fprintf(stderr, "rkbare compile: %s: its shape subgraphs fold for one input size; "
			"an int8 model is calibrated once, so compile one container per size "
			"instead of several --shape-set\n", model);
		goto out;
	}
	if (n_sets > 1 && compile_shape_sets(q ? q : g, fp16, model, sized && !q, &declared, sets,
					     n_sets, user, &blob, &size, err, sizeof(err))) {
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
		op_stats_print(stdout, "rkbare compile", &check);
		printf("rkbare compile: %s -> %s: %u ops, %u tasks, %u tensors, arena %u bytes, "
		       "constants %u bytes, %u shape set%s, file %zu bytes, %.2f s\n", model, out,
		       check.n_ops, check.plan.tasks, check.n_tensors, check.max_arena_bytes,
		       check.const_bytes, check.n_shapes, check.n_shapes > 1 ? "s" : "", size,
		       seconds() - t0);
		status = RKBARE_EXIT_OK;
	}
	rkb_model_unload(&check);
out:
	free(blob);
	onnx_graph_free(q);
	onnx_graph_free(g);
	return status;
}
