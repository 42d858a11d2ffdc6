/* SPDX-License-Identifier: MIT */
/*
 * examples/ppocr_det/db_post.c, the DB text-detection post-process, on
 * maps drawn by hand; the expected boxes are worked out here from the
 * rules db_post.h states (PaddleOCR's DBPostProcess), not taken from the
 * code.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "examples/ppocr_det/db_post.c"

#define H	64u
#define W	80u

static float map[H * W];
static uint32_t *scratch;

static int setup(void **state)
{
	scratch = malloc(db_scratch_words(H, W) * sizeof(*scratch));
	return scratch ? 0 : -1;
}

static int teardown(void **state)
{
	free(scratch);
	return 0;
}

static void fill(uint32_t y0, uint32_t y1, uint32_t x0, uint32_t x1, float v)
{
	for (uint32_t y = y0; y <= y1; y++)
		for (uint32_t x = x0; x <= x1; x++)
			map[y * W + x] = v;
}

static void assert_corners(const struct db_box *b, int32_t x0, int32_t y0, int32_t x1,
			   int32_t y1)
{
	/* clockwise from the top-left corner */
	const int32_t want_x[4] = { x0, x1, x1, x0 }, want_y[4] = { y0, y0, y1, y1 };

	for (unsigned int i = 0; i < 4; i++) {
		assert_int_equal(b->x[i], want_x[i]);
		assert_int_equal(b->y[i], want_y[i]);
	}
}

/*
 * Rows 10..19, columns 20..59 at 0.9: pixel centres span 39 x 9, score
 * 0.9; unclip d = 39 * 9 * 1.5 / (2 * (39 + 9)) = 5.484375, so the box
 * is 49.96875 x 19.96875 about (39.5, 14.5): x 14.515625 .. 64.484375,
 * y 4.515625 .. 24.484375, rounded 15 .. 64, 5 .. 24.
 */
static void test_axis_aligned(void **state)
{
	struct db_params p = DB_PARAMS_DEFAULT;
	struct db_box b[2];

	memset(map, 0, sizeof(map));
	fill(10, 19, 20, 59, 0.9f);
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 2), 1);
	assert_corners(&b[0], 15, 5, 64, 24);
	assert_float_equal(b[0].score, 0.9f, 1e-6f);
	/* in an image twice the map's size: 29.03 .. 128.97, 9.03 .. 48.97 */
	p.image_w = 2 * W;
	p.image_h = 2 * H;
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 2), 1);
	assert_corners(&b[0], 29, 9, 129, 49);
}

/* Kept: the score is the mean inside the rectangle, holes included. */
static void test_score_is_the_mean(void **state)
{
	const struct db_params p = DB_PARAMS_DEFAULT;
	struct db_box b[1];

	memset(map, 0, sizeof(map));
	fill(10, 19, 20, 59, 0.9f);
	fill(12, 17, 30, 49, 0.0f);	/* a hole of 6 x 20 of 10 x 40 pixels */
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 1);
	assert_float_equal(b[0].score, 0.9f * (400 - 120) / 400, 1e-5f);
	fill(12, 17, 22, 57, 0.0f);	/* 6 x 36: mean 0.9 * 184 / 400 < 0.6 */
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 0);
}

/* Dropped: above the threshold but a mean below box_thresh; a short side
 * under min_size (3); nothing above the threshold at all. */
static void test_dropped(void **state)
{
	const struct db_params p = DB_PARAMS_DEFAULT;
	struct db_box b[1];

	memset(map, 0, sizeof(map));
	fill(10, 19, 20, 59, 0.5f);
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 0);
	memset(map, 0, sizeof(map));
	fill(10, 12, 20, 59, 0.9f);	/* centres span 2 rows */
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 0);
	fill(10, 13, 20, 59, 0.9f);	/* 3 rows: kept */
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 1);
	memset(map, 0, sizeof(map));
	fill(0, H - 1, 0, W - 1, 0.3f);	/* the threshold is exclusive */
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 0);
}

/* Components in the order of their first pixel; 8-connected (a diagonal
 * step joins: every score kept here, as such a staircase scores low); all
 * counted, max_boxes stored. */
static void test_components(void **state)
{
	struct db_params p = DB_PARAMS_DEFAULT;
	struct db_box b[3];

	p.box_thresh = 0.0f;
	memset(map, 0, sizeof(map));
	fill(40, 49, 5, 30, 0.9f);
	fill(5, 14, 40, 70, 0.9f);
	fill(15, 24, 71, 79, 0.9f);	/* touches the one above at a corner */
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 3), 2);
	assert_true(b[0].y[0] < 20 && b[1].y[0] > 30);
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 2);
	assert_true(b[0].y[0] < 20);
	fill(15, 24, 71, 79, 0.0f);
	fill(16, 24, 71, 79, 0.9f);	/* one row lower: apart */
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 3), 3);
}

/* A band along the diagonal: the rectangle turns with it, its area far
 * below that of the axis-aligned box around it. */
static void test_rotated(void **state)
{
	const struct db_params p = DB_PARAMS_DEFAULT;
	struct db_box b[1];
	double area = 0, bx, by;
	int32_t xmin = INT32_MAX, xmax = INT32_MIN, ymin = INT32_MAX, ymax = INT32_MIN;

	memset(map, 0, sizeof(map));
	for (uint32_t y = 0; y < H; y++)
		for (uint32_t x = 0; x < W; x++)
			if ((int)x - (int)y >= -3 && (int)x - (int)y <= 3 && x + y >= 20 &&
			    x + y <= 100)
				map[y * W + x] = 0.9f;
	assert_int_equal(db_boxes(map, H, W, &p, scratch, b, 1), 1);
	for (unsigned int i = 0; i < 4; i++) {
		unsigned int j = (i + 1) % 4;

		area += (double)b[0].x[i] * b[0].y[j] - (double)b[0].x[j] * b[0].y[i];
		xmin = b[0].x[i] < xmin ? b[0].x[i] : xmin;
		xmax = b[0].x[i] > xmax ? b[0].x[i] : xmax;
		ymin = b[0].y[i] < ymin ? b[0].y[i] : ymin;
		ymax = b[0].y[i] > ymax ? b[0].y[i] : ymax;
	}
	bx = xmax - xmin;
	by = ymax - ymin;
	assert_true(area > 0);	/* clockwise in image coordinates (y down) */
	assert_true(area / 2 < 0.5 * bx * by);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_axis_aligned),
		cmocka_unit_test(test_score_is_the_mean),
		cmocka_unit_test(test_dropped),
		cmocka_unit_test(test_components),
		cmocka_unit_test(test_rotated),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
