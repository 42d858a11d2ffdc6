/* SPDX-License-Identifier: MIT */
/*
 * Text boxes from the probability map of a DB text detector (PP-OCRv4 det:
 * output sigmoid_0.tmp_0, [1, 1, H, W]) written as .npy by `rkbare infer`
 * or onnxruntime, with PaddleOCR's DB post-process (db_post.h):
 *
 *   ppocr_db MAP.npy [--image WxH] [--thresh T] [--box-thresh B] [--unclip R]
 *
 * --image: the photograph's size, which the map was resized from (boxes
 * are given in its pixels; default the map's size). Prints one line per
 * box, "box I: score S: X0,Y0 X1,Y1 X2,Y2 X3,Y3" (clockwise from the
 * top-left corner), then "N boxes". Build:
 *
 *   cc examples/ppocr_det/ppocr_db.c examples/ppocr_det/db_post.c \
 *      tools/onnx/npy.c tools/cli_parse.c -I. -lm
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "examples/ppocr_det/db_post.h"
#include "tools/onnx/npy.h"

/* Largest map read: a 4096 x 4096 float map. */
#define MAX_MAP_BYTES	(64u << 20)
/* Boxes stored; more are counted. PaddleOCR keeps at most 1000 candidates. */
#define MAX_BOXES	1000u

static int usage(void)
{
	fprintf(stderr, "usage: ppocr_db MAP.npy [--image WxH] [--thresh T] [--box-thresh B] "
		"[--unclip R]\n");
	return 2;
}

static int parse_float(const char *s, float *out)
{
	char *end;
	double v = strtod(s, &end);

	if (end == s || *end || !(v >= 0.0) || v > 1e6)
		return -1;
	*out = (float)v;
	return 0;
}

int main(int argc, char **argv)
{
	struct db_params p = DB_PARAMS_DEFAULT;
	struct npy_array a;
	const char *path = NULL;
	struct db_box *boxes = NULL;
	uint32_t *scratch = NULL;
	uint32_t h, w;
	char err[160];
	int n, rc = 1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--image") && i + 1 < argc) {
			unsigned int iw, ih;
			char c;

			if (sscanf(argv[++i], "%ux%u%c", &iw, &ih, &c) != 2 || !iw || !ih)
				return usage();
			p.image_w = iw;
			p.image_h = ih;
		} else if (!strcmp(argv[i], "--thresh") && i + 1 < argc) {
			if (parse_float(argv[++i], &p.thresh))
				return usage();
		} else if (!strcmp(argv[i], "--box-thresh") && i + 1 < argc) {
			if (parse_float(argv[++i], &p.box_thresh))
				return usage();
		} else if (!strcmp(argv[i], "--unclip") && i + 1 < argc) {
			if (parse_float(argv[++i], &p.unclip_ratio))
				return usage();
		} else if (!path && argv[i][0] != '-') {
			path = argv[i];
		} else {
			return usage();
		}
	}
	if (!path)
		return usage();
	if (npy_read(path, MAX_MAP_BYTES, &a, err, sizeof(err))) {
		fprintf(stderr, "ppocr_db: %s\n", err);
		return 1;
	}
	/* [H, W], or [1, 1, H, W] as the model writes it */
	if (a.dtype != NPY_F32 || a.rank < 2 || a.count != a.shape[a.rank - 2] * a.shape[a.rank - 1] ||
	    !a.count) {
		fprintf(stderr, "ppocr_db: %s: a float32 map of one image and one channel expected\n",
			path);
		goto out;
	}
	h = (uint32_t)a.shape[a.rank - 2];
	w = (uint32_t)a.shape[a.rank - 1];
	scratch = malloc(db_scratch_words(h, w) * sizeof(*scratch));
	boxes = malloc(MAX_BOXES * sizeof(*boxes));
	if (!scratch || !boxes) {
		fprintf(stderr, "ppocr_db: out of memory\n");
		goto out;
	}
	n = db_boxes(a.data, h, w, &p, scratch, boxes, MAX_BOXES);
	for (int i = 0; i < n && (unsigned int)i < MAX_BOXES; i++) {
		const struct db_box *b = &boxes[i];

		printf("box %d: score %.3f: %d,%d %d,%d %d,%d %d,%d\n", i, b->score, b->x[0], b->y[0],
		       b->x[1], b->y[1], b->x[2], b->y[2], b->x[3], b->y[3]);
	}
	printf("%d boxes\n", n);
	rc = 0;
out:
	free(scratch);
	free(boxes);
	npy_free(&a);
	return rc;
}
