// SPDX-License-Identifier: MIT
/*
 * A classifier client written against rknn_api.h alone, as code written for
 * librknnrt is: init from a buffer, query the attributes, NHWC uint8
 * input, run, float outputs, release, destroy. On the host it links against
 * the host library and runs on the NPU model:
 *
 *   cc examples/rknn_classify.c -Iinclude build/host-opt/librkbare.a -lm
 *   ./a.out MODEL.rkb IMAGES.u8 [LABELS.u8]
 *
 * IMAGES.u8 holds the images back to back as the model's input in NHWC
 * order, one byte per value; LABELS.u8 one class per image. It prints, as
 * the boot image does for its embedded samples, the class of the first
 * eight images and the accuracy.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rknn_api.h"

#define SHOWN	8u	/* images whose class is printed */

static unsigned char *read_file(const char *path, size_t *size)
{
	FILE *f = fopen(path, "rb");
	unsigned char *p = NULL;
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

static unsigned int argmax(const float *v, unsigned int n)
{
	unsigned int best = 0;

	for (unsigned int i = 1; i < n; i++)
		if (v[i] > v[best])
			best = i;
	return best;
}

int main(int argc, char **argv)
{
	unsigned char *model = NULL, *images = NULL, *labels = NULL;
	size_t model_size = 0, images_size = 0, labels_size = 0, count, correct = 0;
	rknn_context ctx = 0;
	rknn_input_output_num io;
	rknn_tensor_attr in_attr = { .index = 0 }, out_attr = { .index = 0 };
	int status = 1;

	if (argc != 3 && argc != 4) {
		fprintf(stderr, "usage: rknn_classify MODEL.rkb IMAGES.u8 [LABELS.u8]\n");
		return 2;
	}
	model = read_file(argv[1], &model_size);
	images = read_file(argv[2], &images_size);
	if (argc == 4)
		labels = read_file(argv[3], &labels_size);
	if (!model || !images || (argc == 4 && !labels)) {
		fprintf(stderr, "rknn_classify: cannot read the model, images or labels\n");
		goto out;
	}
	if (rknn_init(&ctx, model, (uint32_t)model_size, 0, NULL) ||
	    rknn_query(ctx, RKNN_QUERY_IN_OUT_NUM, &io, sizeof(io)) ||
	    rknn_query(ctx, RKNN_QUERY_INPUT_ATTR, &in_attr, sizeof(in_attr)) ||
	    rknn_query(ctx, RKNN_QUERY_OUTPUT_ATTR, &out_attr, sizeof(out_attr))) {
		fprintf(stderr, "rknn_classify: %s: not a model this runtime takes\n", argv[1]);
		goto out;
	}
	count = images_size / in_attr.n_elems;
	if (io.n_input != 1 || !count || images_size % in_attr.n_elems ||
	    (labels && labels_size != count)) {
		fprintf(stderr, "rknn_classify: one input of %u values per image, and one label "
			"per image, are needed\n", in_attr.n_elems);
		goto out;
	}
	printf("rknn_classify: '%s' -> '%s' (%u classes), %zu image(s)\n", in_attr.name,
	       out_attr.name, out_attr.n_elems, count);
	for (size_t s = 0; s < count; s++) {
		rknn_input in = { .index = 0, .buf = images + s * in_attr.n_elems,
				  .size = in_attr.n_elems, .type = RKNN_TENSOR_UINT8,
				  .fmt = RKNN_TENSOR_NHWC };
		rknn_output out = { .index = 0, .want_float = 1 };
		unsigned int cls;

		if (rknn_inputs_set(ctx, 1, &in) || rknn_run(ctx, NULL) ||
		    rknn_outputs_get(ctx, 1, &out, NULL)) {
			fprintf(stderr, "rknn_classify: image %zu: the run failed\n", s);
			goto out;
		}
		cls = argmax(out.buf, out_attr.n_elems);
		rknn_outputs_release(ctx, 1, &out);
		correct += labels && cls == labels[s];
		if (s < SHOWN && labels)
			printf("model: sample %zu: class %u (label %u)\n", s, cls, labels[s]);
		else if (s < SHOWN)
			printf("model: sample %zu: class %u\n", s, cls);
	}
	if (labels)
		printf("model: accuracy %zu/%zu\n", correct, count);
	status = 0;
out:
	rknn_destroy(ctx);
	free(model);
	free(images);
	free(labels);
	return status;
}
