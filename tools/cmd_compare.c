/* SPDX-License-Identifier: MIT */
/*
 * rkbare compare MODEL.onnx MODEL.rkb --input NAME=FILE.npy ...: where a
 * compiled model loses accuracy, layer by layer, as the vendor toolkit's
 * accuracy analysis shows it. The container runs on the NPU model with a
 * stage per op (rkb_ctx_set_per_op) and the runtime's debugging tap
 * (rkb_ctx_set_tap), so each op's output is read before a later op reuses
 * its arena bytes; nothing of this is in the normal run path. Each output
 * is matched by name to the float32 value of the ONNX tensor it computes
 * (the calibrated container names a tensor NAME_quantized): from the float
 * CPU reference (tools/onnx/onnx_ref.c, independent of the NPU path), or
 * with --ref-dir from DIR/<name>.npy files, e.g. onnxruntime's run of the
 * model with every tensor made a graph output.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "runtime/model_run.h"
#include "tools/accuracy.h"
#include "tools/cli_parse.h"
#include "tools/commands.h"
#include "tools/model_host.h"
#include "tools/onnx/npy.h"
#include "tools/onnx/onnx_graph.h"
#include "tools/onnx/onnx_ref.h"
#include "tools/onnx/onnx_shape.h"

#define COMPARE_MAX_INPUTS	16
#define COMPARE_MAX_NPY		(1u << 30)
/* The suffix of a tensor the calibration quantised (tools/onnx/onnx_quant.c). */
#define QUANTIZED_SUFFIX	"_quantized"

static const char usage_text[] =
	"usage: rkbare compare MODEL.onnx MODEL.rkb --input NAME=FILE.npy ...\n"
	"                      [--ref-dir DIR] [--min-cosine C]\n"
	"  runs the container MODEL.rkb (compiled from MODEL.onnx) on the NPU model,\n"
	"  op by op, and prints for each op's output its cosine similarity and\n"
	"  largest absolute error (int8: also in steps of its scale, LSB) against the\n"
	"  float32 value of the same ONNX tensor:\n"
	"  from the float CPU reference (rkbare onnx-ref), or with --ref-dir from\n"
	"  DIR/<tensor name>.npy ('/' and ':' in a name become '_'), e.g. written by\n"
	"  onnxruntime. Then the same for the graph outputs. Inputs: float32 .npy in\n"
	"  the graph's shape. Exit 1 when no op's output has a reference, or with\n"
	"  --min-cosine when a graph output's cosine is below C (or unknown).\n";

struct compare_input {
	const char *name, *path;
	struct npy_array a;
};

struct compare {
	struct onnx_graph *g;
	struct onnx_ref ref;		/* without --ref-dir */
	const char *ref_dir;
	float *got, *ref_nchw;		/* scratch for one tensor */
	size_t room;
	unsigned int compared, missing;
	double worst;
	char worst_name[CLI_ESCAPED_LEN];
	int failed;			/* a tensor could not be read */
};

/* The reference values of ONNX tensor `name` with its dimensions, from
 * the CPU reference or DIR/<name>.npy: 0, or -1 when there is none. *owned
 * is what the caller frees. */
static int ref_values(struct compare *s, const char *name, const float **vals, int *rank,
		      int64_t *dims, struct npy_array *owned)
{
	if (!s->ref_dir) {
		int k = onnx_graph_find(s->g, name);

		if (k < 0 || !s->ref.val[k])
			return -1;
		*vals = s->ref.val[k];
		*rank = s->g->tensors[k].rank;
		memcpy(dims, s->g->tensors[k].dims, (size_t)*rank * sizeof(*dims));
		return 0;
	} else {
		char path[4096], err[160];
		FILE *f;

		if (cli_output_path(s->ref_dir, name, path, sizeof(path)))
			return -1;
		f = fopen(path, "rb");
		if (!f)
			return -1;
		fclose(f);
		if (npy_read(path, COMPARE_MAX_NPY, owned, err, sizeof(err)) ||
		    owned->dtype != NPY_F32) {
			fprintf(stderr, "rkbare compare: %s: %s\n", path,
				owned->data ? "not float32" : err);
			npy_free(owned);
			return -1;
		}
		*vals = owned->data;
		*rank = (int)owned->rank;
		for (unsigned int d = 0; d < owned->rank; d++)
			dims[d] = (int64_t)owned->shape[d];
		return 0;
	}
}

/* The extents of dims other than 1, in order, into out; their count. */
static int squeezed(const int64_t *dims, int rank, int64_t *out)
{
	int n = 0;

	for (int d = 0; d < rank; d++)
		if (dims[d] != 1)
			out[n++] = dims[d];
	return n;
}

static bool same_extents(const int64_t *a, int n, const int64_t *b, int m)
{
	return n == m && !memcmp(a, b, (size_t)n * sizeof(*a));
}

/* The reference of a c x h x w tensor in C, H, W order: as it is when the
 * ONNX shape is C, H, W (axes of 1 aside: [1, C, H, W], [1, N] rows, a
 * flattened map), transposed from channels last ([1, h, w, c] maps,
 * [1, T, c] token matrices with T = h·w). NULL when the element counts
 * differ or the shape is neither: a tensor the lowering lays out its own
 * way (a ConvTranspose's convolution before its pixel shuffle). */
static const float *as_chw(struct compare *s, const float *v, int rank, const int64_t *dims,
			   uint32_t c, uint32_t h, uint32_t w)
{
	const int64_t chw[3] = { c, h, w }, hwc[3] = { h, w, c }, tc[2] = { (int64_t)h * w, c };
	int64_t onnx[NPY_MAX_RANK], ours[3];
	size_t count = 1;
	int n = squeezed(dims, rank, onnx);

	for (int d = 0; d < rank; d++)
		count *= (size_t)dims[d];
	if (count != (size_t)c * h * w)
		return NULL;
	if (n <= 1 || c == 1 || same_extents(onnx, n, ours, squeezed(chw, 3, ours)))
		return v;
	if (!same_extents(onnx, n, ours, squeezed(hwc, 3, ours)) && !same_extents(onnx, n, tc, 2))
		return NULL;
	for (uint32_t ch = 0; ch < c; ch++)
		for (size_t p = 0; p < (size_t)h * w; p++)
			s->ref_nchw[ch * (size_t)h * w + p] = v[p * c + ch];
	return s->ref_nchw;
}

static int room_for(struct compare *s, size_t n)
{
	float *a, *b;

	if (n <= s->room)
		return 0;
	a = realloc(s->got, n * sizeof(float));
	if (a)
		s->got = a;
	b = realloc(s->ref_nchw, n * sizeof(float));
	if (b)
		s->ref_nchw = b;
	if (!a || !b)
		return -1;
	s->room = n;
	return 0;
}

/* The debugging tap: after each stage, its ops' outputs against the reference. */
static void tap(void *user, struct rkb_ctx *c, uint32_t first_op, uint32_t n_ops)
{
	struct compare *s = user;
	const struct rkb_model *m = rkb_ctx_model(c);

	for (uint32_t k = first_op; k < first_op + n_ops; k++) {
		const struct rkb_tensor *t = &m->tensors[m->ops[k].out];
		const char *name = rkb_model_str(m, t->name);
		size_t n = (size_t)t->c * t->h * t->w, len = strlen(name);
		struct npy_array owned = { 0 };
		char base[1024], e[CLI_ESCAPED_LEN];
		const float *v, *ref = NULL;
		int64_t dims[NPY_MAX_RANK];
		struct accuracy acc;
		int rank;

		if (room_for(s, n) || rkb_tensor_read(c, m->ops[k].out, s->got, n)) {
			fprintf(stderr, "rkbare compare: op %u: cannot read its output\n", k);
			s->failed = 1;
			return;
		}
		snprintf(base, sizeof(base), "%s", name);
		if (len > strlen(QUANTIZED_SUFFIX) && len < sizeof(base) &&
		    !strcmp(name + len - strlen(QUANTIZED_SUFFIX), QUANTIZED_SUFFIX))
			base[len - strlen(QUANTIZED_SUFFIX)] = '\0';
		rank = -1;
		if (!ref_values(s, name, &v, &rank, dims, &owned) ||
		    !ref_values(s, base, &v, &rank, dims, &owned))
			ref = as_chw(s, v, rank, dims, t->c, t->h, t->w);
		printf("op %4u %-8s %-40s %4ux%4ux%4u", k, rkb_op_kind(m, &m->ops[k]),
		       cli_escape(base, e, sizeof(e)), t->c, t->h, t->w);
		if (!ref) {
			/* an intermediate layout named after the ONNX tensor it leads to */
			printf(rank < 0 ? "  (no reference)\n" :
			       "  (no reference: laid out unlike the ONNX tensor)\n");
			s->missing++;
			npy_free(&owned);
			continue;
		}
		accuracy_compare(s->got, ref, n, &acc);
		printf("  cosine %.6f  max |error| %.4g (max |ref| %.4g)", acc.cosine,
		       acc.max_abs_err, acc.max_abs_ref);
		/* int8: the error in steps of the tensor's scale */
		if (t->dtype == RKB_DT_INT8)
			printf(" = %.3g LSB", acc.max_abs_err / t->scale);
		printf("\n");
		if (!s->compared || !(acc.cosine >= s->worst)) {
			s->worst = acc.cosine;
			cli_escape(base, s->worst_name, sizeof(s->worst_name));
		}
		s->compared++;
		npy_free(&owned);
	}
}

/* The graph outputs, read as infer reads them, against the reference;
 * 1 when one's cosine is below min_cosine. */
static int compare_outputs(struct compare *s, struct rkb_ctx *ctx, double min_cosine)
{
	const struct rkb_model *m = rkb_ctx_model(ctx);
	const struct rkb_io_fmt f32 = { .kind = RKB_IO_FLOAT };
	int below = 0;

	for (uint32_t o = 0; o < m->n_outputs; o++) {
		const char *name = rkb_model_str(m, m->outputs[o].name);
		size_t n = rkb_io_elems(&m->outputs[o]), count = 1;
		struct npy_array owned = { 0 };
		char e[CLI_ESCAPED_LEN];
		int64_t dims[NPY_MAX_RANK];
		const float *v;
		struct accuracy acc;
		int rank;

		if (room_for(s, n) || rkb_output_get(ctx, o, s->got, n * sizeof(float), &f32)) {
			fprintf(stderr, "rkbare compare: output %u: cannot read it\n", o);
			return -1;
		}
		if (ref_values(s, name, &v, &rank, dims, &owned)) {
			printf("output '%s': no reference\n", cli_escape(name, e, sizeof(e)));
			below |= min_cosine > -1.0;	/* a gate it cannot check */
			continue;
		}
		for (int d = 0; d < rank; d++)
			count *= (size_t)dims[d];
		if (count != n) {
			printf("output '%s': the reference has %zu values, the output %zu\n",
			       cli_escape(name, e, sizeof(e)), count, n);
			below = 1;
		} else {
			accuracy_compare(s->got, v, n, &acc);
			printf("output '%s': cosine %.6f  max |error| %.4g (max |ref| %.4g)\n",
			       cli_escape(name, e, sizeof(e)), acc.cosine, acc.max_abs_err,
			       acc.max_abs_ref);
			below |= !(acc.cosine >= min_cosine);
		}
		npy_free(&owned);
	}
	return below;
}

/* Graph inputs from the .npy files, their dimensions taken from the data
 * (a symbolic dimension gets the file's), shapes inferred, and the float
 * reference run unless the reference is a directory. */
static int reference(struct compare *s, struct compare_input *in, size_t n_in)
{
	const float **vals = calloc(s->g->n_inputs + 1, sizeof(*vals));
	char err[256];
	int rc = -1;

	if (!vals)
		return -1;
	for (size_t i = 0; i < s->g->n_inputs; i++) {
		struct onnx_tensor *t = &s->g->tensors[s->g->inputs[i]];
		size_t k = 0;

		while (k < n_in && strcmp(in[k].name, t->name))
			k++;
		if (k == n_in) {
			fprintf(stderr, "rkbare compare: no --input for graph input '%s'\n", t->name);
			goto out;
		}
		if (npy_read(in[k].path, COMPARE_MAX_NPY, &in[k].a, err, sizeof(err))) {
			fprintf(stderr, "rkbare compare: %s: %s\n", in[k].path, err);
			goto out;
		}
		if (in[k].a.dtype != NPY_F32 || (int)in[k].a.rank != t->rank) {
			fprintf(stderr, "rkbare compare: %s: input '%s' takes float32 of rank %d\n",
				in[k].path, t->name, t->rank);
			goto out;
		}
		for (int d = 0; d < t->rank; d++) {
			if (t->dims[d] >= 0 && t->dims[d] != (int64_t)in[k].a.shape[d]) {
				fprintf(stderr, "rkbare compare: %s: dimension %d is %llu, the model "
					"says %lld\n", in[k].path, d,
					(unsigned long long)in[k].a.shape[d], (long long)t->dims[d]);
				goto out;
			}
			t->dims[d] = (int64_t)in[k].a.shape[d];
		}
		vals[i] = in[k].a.data;
	}
	if (onnx_infer_shapes(s->g, 1, err, sizeof(err)) ||
	    (!s->ref_dir && onnx_ref_run(s->g, vals, &s->ref, err, sizeof(err)))) {
		fprintf(stderr, "rkbare compare: float reference: %s%s\n", err,
			s->ref_dir ? "" : " (--ref-dir takes another engine's values)");
		goto out;
	}
	rc = 0;
out:
	free(vals);
	return rc;
}

/* The container's inputs set from the files (in[] holds every graph input). */
static int set_inputs(struct rkb_ctx *ctx, struct compare_input *in, size_t n_in)
{
	const struct rkb_model *m = rkb_ctx_model(ctx);
	const struct rkb_io_fmt f32 = { .kind = RKB_IO_FLOAT };
	char e[CLI_ESCAPED_LEN];

	for (uint32_t i = 0; i < m->n_inputs; i++) {
		const char *name = rkb_model_str(m, m->inputs[i].name);
		size_t k = 0, n = rkb_io_elems(&m->inputs[i]);

		while (k < n_in && strcmp(in[k].name, name))
			k++;
		if (k == n_in || !in[k].a.data || in[k].a.count != n) {
			fprintf(stderr, "rkbare compare: container input '%s': no --input of %zu "
				"values\n", cli_escape(name, e, sizeof(e)), n);
			return -1;
		}
		if (rkb_input_set(ctx, i, in[k].a.data, n * sizeof(float), &f32)) {
			fprintf(stderr, "rkbare compare: input '%s' refused\n",
				cli_escape(name, e, sizeof(e)));
			return -1;
		}
	}
	return 0;
}

int cmd_compare(int argc, char **argv)
{
	static struct model_host host;
	struct compare_input in[COMPARE_MAX_INPUTS];
	struct compare s = { 0 };
	const char *onnx = NULL, *rkb = NULL;
	struct rkb_ctx *ctx = NULL;
	size_t n_in = 0, size = 0;
	double min_cosine = -2.0;	/* below any cosine: no gate */
	void *blob = NULL;
	char err[512];
	int status = RKBARE_EXIT_USAGE, rc;

	memset(in, 0, sizeof(in));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return RKBARE_EXIT_OK;
		} else if (!strcmp(argv[i], "--input") && i + 1 < argc) {
			if (n_in == COMPARE_MAX_INPUTS ||
			    cli_split_named(argv[++i], &in[n_in].name, &in[n_in].path)) {
				fprintf(stderr, "rkbare compare: --input %s: expected NAME=FILE.npy "
					"(at most %d)\n", argv[i], COMPARE_MAX_INPUTS);
				return RKBARE_EXIT_USAGE;
			}
			n_in++;
		} else if (!strcmp(argv[i], "--ref-dir") && i + 1 < argc) {
			s.ref_dir = argv[++i];
		} else if (!strcmp(argv[i], "--min-cosine") && i + 1 < argc) {
			char *end;

			min_cosine = strtod(argv[++i], &end);
			if (end == argv[i] || *end || !(min_cosine >= -1.0 && min_cosine <= 1.0)) {
				fprintf(stderr, "rkbare compare: --min-cosine %s: a number from -1 "
					"to 1\n", argv[i]);
				return RKBARE_EXIT_USAGE;
			}
		} else if (argv[i][0] != '-' && !onnx) {
			onnx = argv[i];
		} else if (argv[i][0] != '-' && !rkb) {
			rkb = argv[i];
		} else {
			fprintf(stderr, "rkbare compare: unexpected argument '%s'\n", argv[i]);
			return RKBARE_EXIT_USAGE;
		}
	}
	if (!onnx || !rkb || !n_in) {
		fputs(usage_text, stderr);
		return RKBARE_EXIT_USAGE;
	}
	if (s.ref_dir) {
		struct stat st;

		if (stat(s.ref_dir, &st) || !S_ISDIR(st.st_mode)) {
			fprintf(stderr, "rkbare compare: --ref-dir %s: not a directory\n", s.ref_dir);
			return RKBARE_EXIT_USAGE;
		}
	}
	if (onnx_graph_load_file(onnx, &s.g, err, sizeof(err))) {
		fprintf(stderr, "rkbare compare: %s: %s\n", onnx, err);
		return RKBARE_EXIT_USAGE;
	}
	if (reference(&s, in, n_in) || model_host_read("rkbare compare", rkb, &blob, &size))
		goto out;
	if (model_host_open("rkbare compare", &host, 1u)) {
		status = RKBARE_EXIT_FAIL;
		goto out;
	}
	if (rkb_ctx_create(&host.dev, &host.pool, blob, size, 1u, 0, &ctx, err, sizeof(err)) ||
	    rkb_ctx_set_per_op(ctx, true, err, sizeof(err))) {
		fprintf(stderr, "rkbare compare: %s: %s\n", rkb, err);
		goto out;
	}
	if (set_inputs(ctx, in, n_in))
		goto out;
	rkb_ctx_set_tap(ctx, tap, &s);
	rc = rkb_run(ctx);
	rkb_ctx_set_tap(ctx, NULL, NULL);
	if (rc || s.failed) {
		fprintf(stderr, "rkbare compare: run: %s\n", rc ? rkb_strerror(rc) : "tap failed");
		status = RKBARE_EXIT_FAIL;
		goto out;
	}
	rc = compare_outputs(&s, ctx, min_cosine);
	if (s.compared)
		printf("rkbare compare: %u op output(s) compared, %u without a reference; lowest "
		       "cosine %.6f at %s\n", s.compared, s.missing, s.worst, s.worst_name);
	else
		printf("rkbare compare: no op output has a reference (%u op(s))\n", s.missing);
	status = rc || !s.compared ? RKBARE_EXIT_FAIL : RKBARE_EXIT_OK;
out:
	for (size_t i = 0; i < n_in; i++)
		npy_free(&in[i].a);
	rkb_ctx_destroy(ctx);
	model_host_close(&host);
	free(blob);
	free(s.got);
	free(s.ref_nchw);
	onnx_ref_free(&s.ref);
	onnx_graph_free(s.g);
	return status;
}
