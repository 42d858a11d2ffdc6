/* SPDX-License-Identifier: MIT */
/*
 * The post-process of a DB (Differentiable Binarization) text detector such
 * as PaddleOCR's PP-OCRv4 det: from its probability map [H, W] to text
 * boxes, as PaddleOCR's DBPostProcess does (ppocr/postprocess/
 * db_postprocess.py), in freestanding C: the caller gives the scratch, so
 * it runs in the bare-metal image as well as on the host.
 *
 * 1. bitmap = map > thresh (PaddleOCR: 0.3);
 * 2. the bitmap's 8-connected components (what OpenCV's findContours
 *    traces as outer contours);
 * 3. per component, the minimum-area rectangle of its pixel centres (the
 *    rotating-calipers minimum over the edges of their convex hull, as
 *    cv2.minAreaRect); a rectangle whose short side is < min_size (3) is
 *    dropped;
 * 4. score = mean of the map over the pixels whose centres lie within half
 *    a pixel of that rectangle (PaddleOCR's box_score_fast fills the
 *    polygon, edge pixels included); below box_thresh (0.6) it is dropped;
 * 5. unclip: the rectangle grows by d = area * unclip_ratio / perimeter on
 *    every side (pyclipper's round offset by d, whose minimum-area
 *    rectangle is exactly that); short side < min_size + 2 is dropped;
 * 6. corners scaled from the map's size to the image's, rounded and
 *    clamped to it.
 */
#ifndef RKBARE_EXAMPLES_DB_POST_H
#define RKBARE_EXAMPLES_DB_POST_H

#include <stddef.h>
#include <stdint.h>

struct db_params {
	float thresh;		/* bitmap threshold on the probability */
	float box_thresh;	/* least mean probability inside a box */
	float unclip_ratio;	/* growth: area * ratio / perimeter per side */
	float min_size;		/* least short side, in map pixels */
	uint32_t image_w;	/* the image the boxes are given in (the map's */
	uint32_t image_h;	/* size when 0) */
};

/* PaddleOCR's defaults for PP-OCR det (tools/infer/utility.py). */
#define DB_PARAMS_DEFAULT { .thresh = 0.3f, .box_thresh = 0.6f, .unclip_ratio = 1.5f, \
			    .min_size = 3.0f }

struct db_box {
	/* corners in image pixels, clockwise from the top-left one */
	int32_t x[4], y[4];
	float score;
};

/* 32-bit words of scratch db_boxes needs for a map of h x w. */
size_t db_scratch_words(uint32_t h, uint32_t w);

/*
 * The boxes of map (h x w floats, row-major), at most max_boxes of them
 * into boxes, in the order of their components' first pixel (row-major
 * scan). Returns how many boxes were found (possibly more than max_boxes:
 * only the first max_boxes are stored), or -1 when h or w is 0.
 */
int db_boxes(const float *map, uint32_t h, uint32_t w, const struct db_params *p,
	     uint32_t *scratch, struct db_box *boxes, unsigned int max_boxes);

#endif /* RKBARE_EXAMPLES_DB_POST_H */
