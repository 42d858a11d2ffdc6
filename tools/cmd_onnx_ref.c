/* SPDX-License-Identifier: MIT */
/*
 * rkbare onnx-ref MODEL.onnx --input NAME=FILE.npy ... --output-dir DIR
 * runs an ONNX model on the float32 CPU reference (tools/onnx/onnx_ref.c)
 * and writes each graph output as DIR/<name>.npy.
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/cli_parse.h"
#include "tools/commands.h"
#include "tools/onnx/npy.h"
#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_ref.h"
#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_write.h"

#define ONNX_REF_MAX_INPUT	(1u << 30)	/* bytes of one .npy input */

static const char usage_text[] =
	"usage: rkbare onnx-ref MODEL.onnx --input NAME=FILE.npy ... --output-dir DIR\n"
	"                       [--save-folded OUT.onnx]\n"
	"  runs the model on the float32 CPU reference (every input float32, shapes\n"
	"  as the model declares them, symbolic dimensions taken from the input)\n"
	"  and writes DIR/<output name>.npy for each graph output ('/' and ':' in a\n"
	"  name become '_'; DIR is created). The graph runs as every command sees\n"
	"  it, folded (shape subgraphs, BatchNormalization and constant scales into\n"
	"  convolutions, HardSwish / Swish patterns); --save-folded writes that graph\n";

struct ref_args {
	const char *model;
	const char *out_dir;
	const char *folded;
	int n_inputs;
	char *names[16];
	const char *files[16];
};

static int parse_args(int argc, char **argv, struct ref_args *a)
{
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--input") && i + 1 < argc) {
			char *eq = strchr(argv[++i], '=');

			if (!eq || eq == argv[i] || !eq[1] || a->n_inputs == 16) {
				fprintf(stderr, "rkbare onnx-ref: --input takes NAME=FILE.npy "
					"(at most 16)\n");
				return -EINVAL;
			}
			*eq = '\0';
			a->names[a->n_inputs] = argv[i];
			a->files[a->n_inputs++] = eq + 1;
		} else if (!strcmp(argv[i], "--output-dir") && i + 1 < argc) {
			a->out_dir = argv[++i];
		} else if (!strcmp(argv[i], "--save-folded") && i + 1 < argc) {
			a->folded = argv[++i];
		} else if (argv[i][0] != '-' && !a->model) {
			a->model = argv[i];
		} else {
			fprintf(stderr, "rkbare onnx-ref: unexpected argument '%s'\n", argv[i]);
			return -EINVAL;
		}
	}
	if (!a->model || !a->out_dir) {
		fputs(usage_text, stderr);
		return -EINVAL;
	}
	return 0;
}

/* Loads the .npy of every graph input, checks it against the declared
 * shape and takes symbolic dimensions from it. */
static int load_inputs(struct onnx_graph *g, const struct ref_args *a, struct npy_array *arr)
{
	char err[160];

	for (size_t i = 0; i < g->n_inputs; i++) {
		struct onnx_tensor *t = &g->tensors[g->inputs[i]];
		int k;

		for (k = 0; k < a->n_inputs && strcmp(a->names[k], t->name); k++)
			;
		if (k == a->n_inputs) {
			fprintf(stderr, "rkbare onnx-ref: no --input for graph input '%s'\n", t->name);
			return -EINVAL;
		}
		if (npy_read(a->files[k], ONNX_REF_MAX_INPUT, &arr[i], err, sizeof(err))) {
			fprintf(stderr, "rkbare onnx-ref: %s: %s\n", a->files[k], err);
			return -EINVAL;
		}
		if (arr[i].dtype != NPY_F32 || (int)arr[i].rank != t->rank) {
			fprintf(stderr, "rkbare onnx-ref: %s: input '%s' needs float32 of rank %d\n",
				a->files[k], t->name, t->rank);
			return -EINVAL;
		}
		for (int d = 0; d < t->rank; d++) {
			if (t->dims[d] < 0)
				t->dims[d] = (int64_t)arr[i].shape[d];
			else if (t->dims[d] != (int64_t)arr[i].shape[d]) {
				fprintf(stderr, "rkbare onnx-ref: %s: dimension %d is %llu, the model "
					"says %lld\n", a->files[k], d,
					(unsigned long long)arr[i].shape[d], (long long)t->dims[d]);
				return -EINVAL;
			}
		}
	}
	return 0;
}

static int write_outputs(const struct onnx_graph *g, const struct onnx_ref *r,
			 const char *dir)
{
	const char **names = calloc(g->n_outputs + 1, sizeof(*names));
	char path[4096], e[CLI_ESCAPED_LEN];
	int rc;

	if (!names)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_outputs; i++)
		names[i] = g->tensors[g->outputs[i]].name;
	rc = cli_prepare_outputs("rkbare onnx-ref", dir, names, g->n_outputs);
	free(names);
	for (size_t i = 0; !rc && i < g->n_outputs; i++) {
		const struct onnx_tensor *t = &g->tensors[g->outputs[i]];
		uint64_t shape[ONNX_GRAPH_MAX_RANK];

		/* only float32 tensors have values here (a Shape folded to
		 * an int64 constant does not) */
		if (!r->val[g->outputs[i]]) {
			fprintf(stderr, "rkbare onnx-ref: output '%s' is %s; the reference "
				"writes float32 outputs\n", t->name, onnx_dtype_name(t->dtype));
			rc = -ENOTSUP;
			break;
		}
		for (int d = 0; d < t->rank; d++)
			shape[d] = (uint64_t)t->dims[d];
		cli_output_path(dir, t->name, path, sizeof(path));
		if (npy_write(path, NPY_F32, (unsigned int)t->rank, shape, r->val[g->outputs[i]])) {
			fprintf(stderr, "rkbare onnx-ref: cannot write %s\n",
				cli_escape(path, e, sizeof(e)));
			rc = -EIO;
		}
	}
	return rc;
}

int cmd_onnx_ref(int argc, char **argv)
{
	struct ref_args a = { 0 };
	struct npy_array *arr = NULL;
	const float **in = NULL;
	struct onnx_graph *g = NULL;
	struct onnx_ref r = { 0 };
	struct onnx_fold_stats st;
	char err[256];
	int status = RKBARE_EXIT_USAGE;

	if (argc == 2 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h"))) {
		fputs(usage_text, stdout);
		return RKBARE_EXIT_OK;
	}
	if (parse_args(argc, argv, &a))
		return RKBARE_EXIT_USAGE;
	if (onnx_graph_load_file(a.model, &g, err, sizeof(err))) {
		fprintf(stderr, "rkbare onnx-ref: %s: %s\n", a.model, err);
		return RKBARE_EXIT_USAGE;
	}
	arr = calloc(g->n_inputs + 1, sizeof(*arr));
	in = calloc(g->n_inputs + 1, sizeof(*in));
	if (!arr || !in || load_inputs(g, &a, arr))
		goto out;
	for (size_t i = 0; i < g->n_inputs; i++)
		in[i] = arr[i].data;
	if (onnx_fold(g, 0, &st, err, sizeof(err))) {
		fprintf(stderr, "rkbare onnx-ref: %s: %s\n", a.model, err);
		goto out;
	}
	/* written before the later stages judge it, so a graph they refuse
	 * can be looked at */
	if (a.folded && (cli_mkdirs_parent(a.folded) || onnx_graph_save(g, a.folded))) {
		fprintf(stderr, "rkbare onnx-ref: cannot write '%s'\n", a.folded);
		status = RKBARE_EXIT_FAIL;
		goto out;
	}
	if (onnx_infer_shapes(g, 1, err, sizeof(err)) || onnx_ref_run(g, in, &r, err, sizeof(err))) {
		fprintf(stderr, "rkbare onnx-ref: %s: %s\n", a.model, err);
		goto out;
	}
	status = write_outputs(g, &r, a.out_dir) ? RKBARE_EXIT_FAIL : RKBARE_EXIT_OK;
out:
	onnx_ref_free(&r);
	for (size_t i = 0; arr && i < g->n_inputs; i++)
		npy_free(&arr[i]);
	free(arr);
	free(in);
	onnx_graph_free(g);
	return status;
}
