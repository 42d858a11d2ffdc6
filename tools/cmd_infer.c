/* SPDX-License-Identifier: MIT */
/*
 * rkbare infer: runs a model container on the host through the NPU model
 * (sim/), with the runtime and driver the image links: inputs from .npy,
 * each graph output written as DIR/<name>.npy in the graph's own layout.
 * An input whose first axis is 1 in the model may carry a batch of N: the
 * model runs N times and the outputs get the same first axis.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "hal.h"
#include "boot/bootargs.h"
#include "tools/accuracy.h"
#include "tools/cli_parse.h"
#include "runtime/model_run.h"
#include "tools/commands.h"
#include "tools/model_host.h"
#include "tools/onnx/npy.h"

#define INFER_MAX_INPUTS	16
#define INFER_MAX_NPY		(1u << 30)
/* Graph outputs written (run_all refuses more). */
#define INFER_MAX_OUTPUTS	(RKB_MAX_RANK * 8)

static const char usage_text[] =
	"usage: rkbare infer MODEL.rkb --input NAME=FILE.npy ... --output-dir DIR\n"
	"                    [--raw] [--core N[,N...]] [--reference REF [--min-cosine C]]\n"
	"  runs the model on the NPU model (sim/). Inputs: float32 for float inputs,\n"
	"  int8/uint8 for quantised ones, in the graph's shape, or with a batch of N\n"
	"  on a first axis of 1. Outputs: DIR/<output name>.npy, float32, or the raw\n"
	"  quantised int8/uint8 values with --raw ('/' and ':' in a name become '_';\n"
	"  DIR is created). --core picks the NPU core, or\n"
	"  spreads the model over several (--core 0,1,2): the same outputs.\n"
	"  --reference REF: prints each output's cosine similarity and largest\n"
	"  absolute error against float32 reference values: REF/<output name>.npy\n"
	"  (a directory, named as the outputs are), or REF.npy for a model of one\n"
	"  output; --min-cosine C then fails (exit 1) when one is below C.\n";

struct infer_input {
	const char *name, *path;
	struct npy_array a;
	size_t batch;
};

static enum npy_dtype io_npy(enum rkb_io_kind kind)
{
	return kind == RKB_IO_FLOAT ? NPY_F32 : kind == RKB_IO_UINT8 ? NPY_U8 :
	       kind == RKB_IO_INT32 ? NPY_I32 : NPY_I8;
}

/* The values of an output as --raw writes them: the quantised int8 or
 * uint8 values, or an int32 tensor's sums. */
static enum rkb_io_kind raw_kind(const struct rkb_model *m, const struct rkb_io *io)
{
	if (m->tensors[io->tensor].dtype == RKB_DT_INT32)
		return RKB_IO_INT32;
	return io->kind == RKB_IO_UINT8 ? RKB_IO_UINT8 : RKB_IO_INT8;
}

/* The batch an array holds for io: its shape is io's, or io's with the
 * first axis (1 in the model) replaced by N. */
static bool shape_fits(const struct rkb_io *io, const struct npy_array *a)
{
	bool same = a->rank == io->rank;

	for (unsigned int d = 0; same && d < io->rank; d++)
		same = a->shape[d] == io->dims[d] || (d == 0 && io->dims[0] == 1 && a->shape[0]);
	return same;
}

static int batch_of(const struct rkb_io *io, const struct infer_input *in, size_t *batch)
{
	const struct npy_array *a = &in->a;

	if (!shape_fits(io, a)) {
		fprintf(stderr, "rkbare infer: %s: shape does not match input '%s' (rank %u, "
			"dims", in->path, in->name, io->rank);
		for (unsigned int d = 0; d < io->rank; d++)
			fprintf(stderr, " %u", io->dims[d]);
		fprintf(stderr, ", or N on the first axis)\n");
		return -1;
	}
	*batch = io->dims[0] == 1 ? (size_t)a->shape[0] : 1;
	return 0;
}

static int write_outputs(struct rkb_ctx *ctx, const char *dir, bool raw, size_t batch,
			 void **data)
{
	const struct rkb_model *m = rkb_ctx_model(ctx);
	const char *names[INFER_MAX_OUTPUTS];
	char path[4096], e[CLI_ESCAPED_LEN];

	for (uint32_t o = 0; o < m->n_outputs; o++)
		names[o] = rkb_model_str(m, m->outputs[o].name);
	if (cli_prepare_outputs("rkbare infer", dir, names, m->n_outputs))
		return -1;
	for (uint32_t o = 0; o < m->n_outputs; o++) {
		const struct rkb_io *io = &m->outputs[o];
		enum npy_dtype dt = raw ? io_npy(raw_kind(m, io)) : NPY_F32;
		uint64_t shape[RKB_MAX_RANK];

		for (unsigned int d = 0; d < io->rank; d++)
			shape[d] = io->dims[d];
		if (io->dims[0] == 1)
			shape[0] = batch;
		cli_output_path(dir, rkb_model_str(m, io->name), path, sizeof(path));
		if (npy_write(path, dt, io->rank, shape, data[o])) {
			fprintf(stderr, "rkbare infer: cannot write %s\n",
				cli_escape(path, e, sizeof(e)));
			return -1;
		}
	}
	return 0;
}

/* The reference of output o: REF/<name>.npy, or REF itself (a file) for a
 * model of one output. 0, or -1 with a message on stderr. */
static int read_reference(const struct rkb_model *m, uint32_t o, const char *ref,
			  struct npy_array *a)
{
	char path[4096], err[160], e[CLI_ESCAPED_LEN];
	size_t len = strlen(ref);
	bool file = len > 4 && !strcmp(ref + len - 4, ".npy");

	if (file && m->n_outputs != 1) {
		fprintf(stderr, "rkbare infer: --reference %s: the model has %u outputs; give a "
			"directory of <output name>.npy\n", ref, m->n_outputs);
		return -1;
	}
	if (file)
		snprintf(path, sizeof(path), "%s", ref);
	else if (cli_output_path(ref, rkb_model_str(m, m->outputs[o].name), path, sizeof(path)))
		return -1;
	if (npy_read(path, INFER_MAX_NPY, a, err, sizeof(err))) {
		fprintf(stderr, "rkbare infer: reference %s: %s\n", cli_escape(path, e, sizeof(e)),
			err);
		return -1;
	}
	if (a->dtype != NPY_F32) {
		fprintf(stderr, "rkbare infer: reference %s: float32 expected\n",
			cli_escape(path, e, sizeof(e)));
		npy_free(a);
		return -1;
	}
	return 0;
}

/* Each output (batch runs of it in data[o]) against its reference; 1 when
 * a cosine is below min_cosine, -1 when a reference is missing or of
 * another size. */
static int check_reference(const struct rkb_model *m, size_t batch, void **data,
			   const char *ref, double min_cosine)
{
	int rc = 0;

	for (uint32_t o = 0; o < m->n_outputs && rc >= 0; o++) {
		size_t n = batch * rkb_io_elems(&m->outputs[o]);
		char e[CLI_ESCAPED_LEN];
		struct npy_array a;
		struct accuracy acc;

		cli_escape(rkb_model_str(m, m->outputs[o].name), e, sizeof(e));
		if (read_reference(m, o, ref, &a))
			return -1;
		if (a.count != n) {
			fprintf(stderr, "rkbare infer: output '%s': %zu values, the reference %zu\n",
				e, n, a.count);
			rc = -1;
		} else {
			accuracy_compare(data[o], a.data, n, &acc);
			printf("rkbare infer: output '%s': cosine %.6f, max |error| %.4g (max |ref| "
			       "%.4g) against the reference\n", e, acc.cosine, acc.max_abs_err,
			       acc.max_abs_ref);
			if (!(acc.cosine >= min_cosine))
				rc = 1;
		}
		npy_free(&a);
	}
	return rc;
}

/* What run_all checks the outputs against (--reference, --min-cosine). */
struct infer_ref {
	const char *path;	/* NULL: no reference */
	double min_cosine;
};

static int run_all(struct rkb_ctx *ctx, struct infer_input *in, size_t n_in, size_t batch,
		   bool raw, const char *dir, const struct infer_ref *ref)
{
	const struct rkb_model *m = rkb_ctx_model(ctx);
	void *out[INFER_MAX_OUTPUTS] = { 0 };
	uint64_t ticks = 0;
	double t0, t1;
	int rc = 0;

	if (m->n_outputs > sizeof(out) / sizeof(out[0])) {
		fprintf(stderr, "rkbare infer: %u outputs (at most %zu)\n", m->n_outputs,
			sizeof(out) / sizeof(out[0]));
		return -1;
	}
	for (uint32_t o = 0; o < m->n_outputs; o++) {
		out[o] = malloc(batch * rkb_io_elems(&m->outputs[o]) * sizeof(float));
		if (!out[o])
			rc = -1;
	}
	t0 = (double)clock() / CLOCKS_PER_SEC;
	for (size_t b = 0; !rc && b < batch; b++) {
		struct rkb_run_stats st;

		for (size_t i = 0; !rc && i < n_in; i++) {
			const struct rkb_io *io = &m->inputs[i];
			size_t esz = npy_dtype_size(in[i].a.dtype), n = rkb_io_elems(io);
			struct rkb_io_fmt f = { .kind = in[i].a.dtype == NPY_F32 ? RKB_IO_FLOAT :
						in[i].a.dtype == NPY_U8 ? RKB_IO_UINT8 :
						RKB_IO_INT8 };
			size_t from = in[i].batch > 1 ? b : 0;

			rc = rkb_input_set(ctx, (uint32_t)i, (uint8_t *)in[i].a.data + from * n * esz,
					   n * esz, &f);
		}
		if (!rc)
			rc = rkb_run(ctx);
		if (rc) {
			fprintf(stderr, "rkbare infer: run %zu: %s\n", b, rkb_strerror(rc));
			break;
		}
		rkb_ctx_stats(ctx, &st);
		ticks += st.hw_ticks;
		for (uint32_t o = 0; !rc && o < m->n_outputs; o++) {
			const struct rkb_io *io = &m->outputs[o];
			struct rkb_io_fmt f = { .kind = raw ? raw_kind(m, io) : RKB_IO_FLOAT };
			size_t n = rkb_io_elems(io);
			size_t esz = f.kind == RKB_IO_FLOAT || f.kind == RKB_IO_INT32 ? 4 : 1;

			rc = rkb_output_get(ctx, o, (uint8_t *)out[o] + b * n * esz, n * esz, &f);
		}
	}
	t1 = (double)clock() / CLOCKS_PER_SEC;
	if (!rc)
		rc = write_outputs(ctx, dir, raw, batch, out);
	if (!rc) {
		struct rkb_run_stats st;

		rkb_ctx_stats(ctx, &st);
		printf("rkbare infer: %zu run(s), %u tasks and %u kick(s) each, %.3f ms CPU per "
		       "run on the model\n", batch, st.tasks, st.kicks,
		       (t1 - t0) * 1e3 / (double)(batch ? batch : 1));
		if (ref->path)
			rc = check_reference(m, batch, out, ref->path, ref->min_cosine);
	}
	for (uint32_t o = 0; o < m->n_outputs; o++)
		free(out[o]);
	return rc;
}

/* "N" or "N,N,...": the cores to run on, each once. */
static int parse_cores(const char *v, uint32_t *mask)
{
	if (!bootargs_core_list(v, NPU_CORE_COUNT, mask))
		return 0;
	fprintf(stderr, "rkbare infer: --core %s: cores 0 to %u, comma-separated, each once\n",
		v, NPU_CORE_COUNT - 1);
	return -1;
}

int cmd_infer(int argc, char **argv)
{
	static struct model_host host;
	struct infer_input in[INFER_MAX_INPUTS];
	const char *model = NULL, *dir = NULL;
	struct rkb_ctx *ctx = NULL;
	size_t n_in = 0, size = 0, batch = 1;
	uint32_t cores = 1u;
	struct infer_ref ref = { .min_cosine = -2.0 };	/* below any cosine: no gate */
	bool raw = false;
	void *blob = NULL;
	char err[512];
	int status = RKBARE_EXIT_USAGE;

	memset(in, 0, sizeof(in));
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage_text, stdout);
			return RKBARE_EXIT_OK;
		} else if (!strcmp(argv[i], "--input") && i + 1 < argc) {
			if (n_in == INFER_MAX_INPUTS ||
			    cli_split_named(argv[++i], &in[n_in].name, &in[n_in].path)) {
				fprintf(stderr, "rkbare infer: --input %s: expected NAME=FILE.npy "
					"(at most %d)\n", argv[i], INFER_MAX_INPUTS);
				return RKBARE_EXIT_USAGE;
			}
			n_in++;
		} else if (!strcmp(argv[i], "--output-dir") && i + 1 < argc) {
			dir = argv[++i];
		} else if (!strcmp(argv[i], "--raw")) {
			raw = true;
		} else if (!strcmp(argv[i], "--reference") && i + 1 < argc) {
			ref.path = argv[++i];
		} else if (!strcmp(argv[i], "--min-cosine") && i + 1 < argc) {
			char *end;

			ref.min_cosine = strtod(argv[++i], &end);
			if (end == argv[i] || *end || !(ref.min_cosine >= -1.0 &&
							ref.min_cosine <= 1.0)) {
				fprintf(stderr, "rkbare infer: --min-cosine %s: a number from -1 "
					"to 1\n", argv[i]);
				return RKBARE_EXIT_USAGE;
			}
		} else if (!strcmp(argv[i], "--core") && i + 1 < argc) {
			if (parse_cores(argv[++i], &cores))
				return RKBARE_EXIT_USAGE;
		} else if (argv[i][0] != '-' && !model) {
			model = argv[i];
		} else {
			fprintf(stderr, "rkbare infer: unexpected argument '%s'\n", argv[i]);
			return RKBARE_EXIT_USAGE;
		}
	}
	if (!model || !dir || !n_in) {
		fputs(usage_text, stderr);
		return RKBARE_EXIT_USAGE;
	}
	if (ref.path && raw) {
		fprintf(stderr, "rkbare infer: --reference compares float outputs, not --raw\n");
		return RKBARE_EXIT_USAGE;
	}
	if (ref.min_cosine > -2.0 && !ref.path) {
		fprintf(stderr, "rkbare infer: --min-cosine needs --reference\n");
		return RKBARE_EXIT_USAGE;
	}
	if (model_host_read("rkbare infer", model, &blob, &size))
		return RKBARE_EXIT_USAGE;
	if (model_host_open("rkbare infer", &host, cores)) {
		status = RKBARE_EXIT_FAIL;
		goto out;
	}
	if (rkb_ctx_create(&host.dev, &host.pool, blob, size, cores, 0, &ctx, err,
			   sizeof(err))) {
		fprintf(stderr, "rkbare infer: %s: %s\n", model, err);
		goto out;
	}
	{
		const struct rkb_model *m = rkb_ctx_model(ctx);

		if (n_in != m->n_inputs) {
			fprintf(stderr, "rkbare infer: the model has %u input(s), %zu given\n",
				m->n_inputs, n_in);
			goto out;
		}
		/* Order the inputs as the model does. */
		for (uint32_t i = 0; i < m->n_inputs; i++) {
			const struct rkb_io *io = &m->inputs[i];
			const char *name = rkb_model_str(m, io->name);
			size_t k = i;

			while (k < n_in && strcmp(in[k].name, name))
				k++;
			if (k == n_in) {
				char e[CLI_ESCAPED_LEN];

				fprintf(stderr, "rkbare infer: no --input for '%s'\n",
					cli_escape(name, e, sizeof(e)));
				goto out;
			}
			if (k != i) {
				struct infer_input t = in[i];

				in[i] = in[k];
				in[k] = t;
			}
			if (npy_read(in[i].path, INFER_MAX_NPY, &in[i].a, err, sizeof(err))) {
				fprintf(stderr, "rkbare infer: %s: %s\n", in[i].path, err);
				goto out;
			}
			if (in[i].a.dtype != NPY_F32 && in[i].a.dtype != io_npy(io->kind)) {
				char e[CLI_ESCAPED_LEN];

				fprintf(stderr, "rkbare infer: %s: %s data for input '%s', which "
					"takes float32%s\n", in[i].path,
					npy_dtype_descr(in[i].a.dtype), cli_escape(name, e, sizeof(e)),
					io->kind == RKB_IO_UINT8 ? " or uint8" :
					io->kind == RKB_IO_INT8 ? " or int8" : "");
				goto out;
			}
		}
		/* Dynamic shapes: arrays of another shape set's dimensions pick
		 * the first set they all fit. */
		bool fits = true;

		for (uint32_t i = 0; i < m->n_inputs; i++)
			fits = fits && shape_fits(&m->inputs[i], &in[i].a);
		for (uint32_t k = 1; !fits && k < m->n_shapes; k++) {
			fits = true;
			for (uint32_t i = 0; i < m->n_inputs; i++)
				fits = fits && shape_fits(&m->shapes[k].inputs[i], &in[i].a);
			if (fits && rkb_ctx_set_shape(ctx, k, err, sizeof(err))) {
				fprintf(stderr, "rkbare infer: %s: %s\n", model, err);
				goto out;
			}
		}
		for (uint32_t i = 0; i < m->n_inputs; i++) {
			if (batch_of(&m->inputs[i], &in[i], &in[i].batch))
				goto out;
			if (in[i].batch > 1 && batch > 1 && in[i].batch != batch) {
				fprintf(stderr, "rkbare infer: inputs disagree on the batch (%zu, "
					"%zu)\n", batch, in[i].batch);
				goto out;
			}
			if (in[i].batch > batch)
				batch = in[i].batch;
		}
		if (run_all(ctx, in, n_in, batch, raw, dir, &ref)) {
			status = RKBARE_EXIT_FAIL;
			goto out;
		}
	}
	status = RKBARE_EXIT_OK;
out:
	for (size_t i = 0; i < n_in; i++)
		npy_free(&in[i].a);
	rkb_ctx_destroy(ctx);
	model_host_close(&host);
	free(blob);
	return status;
}
