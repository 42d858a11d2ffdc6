// SPDX-License-Identifier: MIT
/*
 * A client of rknn_api.h alone for dynamic shapes, built against
 * librkbare.a by tests/onnx/dynamic_shapes.sh:
 *
 *   rknn_dyn_client MODEL.rkb SETS DIMS:IN.f32:OUT.f32 ...
 *
 * checks that the INPUT_DYNAMIC_RANGE query lists SETS shape sets and that
 * rknn_set_input_shapes refuses dimensions outside them; then, for each
 * item in turn, picks the shape set of DIMS (NxCxHxW) with
 * rknn_set_input_shapes, checks the CURRENT_INPUT_ATTR query gives DIMS,
 * runs the float32 NCHW input IN and writes the first output as float32 to
 * OUT.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"

static void *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	void *p = NULL;
	long n;

	if (!f)
		return NULL;
	if (!fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 && !fseek(f, 0, SEEK_SET)) {
		p = malloc((size_t)n);
		if (p && fread(p, 1, (size_t)n, f) != (size_t)n) {
			free(p);
			p = NULL;
		}
		*size = (size_t)n;
	}
	fclose(f);
	return p;
}

/* "NxCxHxW:in:out" */
static int parse_item(char *item, rknn_tensor_attr *a, char **in, char **out)
{
	char *colon = strchr(item, ':'), *dims = item;

	if (!colon || !(*out = strchr(colon + 1, ':')))
		return -1;
	*colon = '\0';
	*in = colon + 1;
	*(*out)++ = '\0';
	memset(a, 0, sizeof(*a));
	a->fmt = RKNN_TENSOR_NCHW;
	while (*dims && a->n_dims < RKNN_MAX_DIMS) {
		a->dims[a->n_dims++] = (uint32_t)strtoul(dims, &dims, 10);
		if (*dims == 'x')
			dims++;
	}
	return a->n_dims ? 0 : -1;
}

static int run_item(rknn_context ctx, char *item)
{
	rknn_tensor_attr want, cur = { .index = 0 };
	rknn_input in = { .index = 0, .type = RKNN_TENSOR_FLOAT32, .fmt = RKNN_TENSOR_NCHW };
	rknn_output out = { .want_float = 1 };
	char *in_path, *out_path;
	size_t size = 0;
	FILE *f;
	int rc;

	if (parse_item(item, &want, &in_path, &out_path)) {
		fprintf(stderr, "rknn_dyn_client: '%s': expected NxCxHxW:IN.f32:OUT.f32\n", item);
		return -1;
	}
	rc = rknn_set_input_shapes(ctx, 1, &want);
	if (rc) {
		fprintf(stderr, "rknn_dyn_client: rknn_set_input_shapes: %d\n", rc);
		return -1;
	}
	rc = rknn_query(ctx, RKNN_QUERY_CURRENT_INPUT_ATTR, &cur, sizeof(cur));
	if (rc || cur.n_dims != want.n_dims ||
	    memcmp(cur.dims, want.dims, want.n_dims * sizeof(want.dims[0]))) {
		fprintf(stderr, "rknn_dyn_client: CURRENT_INPUT_ATTR is not the set picked\n");
		return -1;
	}
	in.buf = read_file(in_path, &size);
	in.size = (uint32_t)size;
	if (!in.buf || size != (size_t)cur.n_elems * sizeof(float)) {
		fprintf(stderr, "rknn_dyn_client: %s: %zu bytes, %u floats wanted\n", in_path,
			size, cur.n_elems);
		free(in.buf);
		return -1;
	}
	rc = rknn_inputs_set(ctx, 1, &in);
	free(in.buf);
	if (!rc)
		rc = rknn_run(ctx, NULL);
	if (!rc)
		rc = rknn_outputs_get(ctx, 1, &out, NULL);
	if (rc) {
		fprintf(stderr, "rknn_dyn_client: inputs_set / run / outputs_get: %d\n", rc);
		return -1;
	}
	f = fopen(out_path, "wb");
	rc = f && fwrite(out.buf, 1, out.size, f) == out.size ? 0 : -1;
	if (f && fclose(f))
		rc = -1;
	rknn_outputs_release(ctx, 1, &out);
	return rc;
}

int main(int argc, char **argv)
{
	rknn_context ctx = 0;
	rknn_input_range range = { .index = 0 };
	rknn_tensor_attr bad = { .n_dims = 4, .dims = { 1, 3, 7, 7 }, .fmt = RKNN_TENSOR_NCHW };
	size_t size = 0;
	void *model;
	int status = 1;

	if (argc < 4) {
		fprintf(stderr, "usage: rknn_dyn_client MODEL.rkb SETS DIMS:IN.f32:OUT.f32 ...\n");
		return 2;
	}
	model = read_file(argv[1], &size);
	if (!model || rknn_init(&ctx, model, (uint32_t)size, 0, NULL)) {
		fprintf(stderr, "rknn_dyn_client: %s: cannot load\n", argv[1]);
		free(model);
		return 1;
	}
	if (rknn_query(ctx, RKNN_QUERY_INPUT_DYNAMIC_RANGE, &range, sizeof(range)) ||
	    range.shape_number != strtoul(argv[2], NULL, 10)) {
		fprintf(stderr, "rknn_dyn_client: INPUT_DYNAMIC_RANGE: %u shape sets, %s wanted\n",
			range.shape_number, argv[2]);
		goto out;
	}
	if (rknn_set_input_shapes(ctx, 1, &bad) != RKNN_ERR_INPUT_INVALID) {
		fprintf(stderr, "rknn_dyn_client: a shape outside the sets was taken\n");
		goto out;
	}
	for (int i = 3; i < argc; i++)
		if (run_item(ctx, argv[i]))
			goto out;
	printf("rknn_dyn_client: %u shape sets; %d runs through rknn_set_input_shapes\n",
	       range.shape_number, argc - 3);
	status = 0;
out:
	rknn_destroy(ctx);
	free(model);
	return status;
}
