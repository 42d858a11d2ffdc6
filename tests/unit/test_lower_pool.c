/* SPDX-License-Identifier: MIT */
/*
 * Pooling lowered by runtime/ and run on the NPU model, compared with a CPU
 * reference written here (TFLite semantics: max/min ignore padding; average
 * over VALID windows, rounded half up: the model's reading of the PPU).
 * Max/min are exact for int8 and fp16. Averages are exact where both kernel
 * sides are powers of two (the 16-bit reciprocals 2^16 / k are then exact);
 * elsewhere one unit of difference is allowed, because the PPU multiplies
 * by reciprocals whose rounding is not documented (HARDWARE.md §4.6,
 * UNSURE). Rectangular kernels, unequal strides and non-square inputs run
 * for every method (pool_rectangular).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "compiler/lower_pool.h"

#include "npu_fixture.h"
#include "ref/ref_nn.h"

static bool pow2(unsigned int k)
{
	return (k & (k - 1)) == 0;
}

static void run_pool_rect(enum npu_precision prec, enum lower_pool_method method,
			  unsigned int h, unsigned int w, unsigned int c, unsigned int kh,
			  unsigned int kw, unsigned int sy, unsigned int sx, bool same)
{
	struct lower_pool_op op = {
		.prec = prec, .method = method, .in_h = h, .in_w = w, .c = c,
		.kh = kh, .kw = kw, .stride_y = sy, .stride_x = sx, .same_padding = same,
	};
	/* an exact reciprocal on both sides: the average must be exact */
	int tolerance = method == LOWER_POOL_AVG && !(pow2(kh) && pow2(kw)) ? 1 : 0;
	struct lower_pool_shape s;
	unsigned int eb = layout_elem_bytes(prec);
	size_t n_in = (size_t)h * w * c, n_out;
	int16_t *vals = malloc(n_in * sizeof(*vals));
	uint8_t *in = malloc(n_in * eb), *in_n, *out_n, *got;
	struct fx_program f;

	fx_rng_seed(h * 1009u + w * 499u + c * 31u + kh * 7u + kw * 5u + sy + sx * 13u + same * 3u +
		    method * 101u + prec);
	fx_dma_reset();
	assert_int_equal(lower_pool_check(&op, &s), 0);
	n_out = (size_t)s.out_h * s.out_w * c;
	got = malloc(n_out * eb);
	for (size_t i = 0; i < n_in; i++) {
		vals[i] = (int16_t)((int)(fx_rng() % 256) - 128);
		if (prec == NPU_PREC_INT8) {
			in[i] = (uint8_t)vals[i];
		} else {
			uint16_t half = ref_f32_to_f16((float)vals[i]);	/* exact */

			memcpy(in + i * 2, &half, 2);
		}
	}
	in_n = fx_dma_alloc(s.in_bytes);
	out_n = fx_dma_alloc(s.out_bytes);
	layout_nhwc_to_nc1hwc2(prec, in, in_n, h, w, c, c);
	op.in_addr = fx_phys(in_n);
	op.out_addr = fx_phys(out_n);
	fx_program_init(&f, 1, POOL_TASK_MAX_ENTRIES);
	assert_int_equal(lower_pool(&f.p, &op), 0);
	fx_program_link(&f, 1);
	assert_int_equal(f.tasks[0].enable_mask, 0x60);	/* HARDWARE.md §4.6 */
	assert_int_equal(f.tasks[0].int_mask, 0xC00);
	fx_run(f.tasks, 1, out_n, s.out_bytes, "pool");
	layout_nc1hwc2_to_nhwc(prec, out_n, got, s.out_h, s.out_w, c);

	for (unsigned int oy = 0; oy < s.out_h; oy++)
	for (unsigned int ox = 0; ox < s.out_w; ox++)
	for (unsigned int ch = 0; ch < c; ch++) {
		int best = method == LOWER_POOL_MAX ? -1000 : 1000, sum = 0, cnt = 0, want, g;
		size_t o = ((size_t)oy * s.out_w + ox) * c + ch;

		for (unsigned int ky = 0; ky < kh; ky++)
		for (unsigned int kx = 0; kx < kw; kx++) {
			int iy = (int)(oy * sy + ky) - (int)s.pad_top;
			int ix = (int)(ox * sx + kx) - (int)s.pad_left;
			int v;

			if (iy < 0 || ix < 0 || iy >= (int)h || ix >= (int)w)
				continue;
			v = vals[((size_t)iy * w + (size_t)ix) * c + ch];
			sum += v;
			cnt++;
			best = method == LOWER_POOL_MAX ? (v > best ? v : best) : (v < best ? v : best);
		}
		/* mean rounded half up */
		want = method == LOWER_POOL_AVG ? (int)((2 * sum + cnt) / (2 * cnt) -
							 ((2 * sum + cnt) % (2 * cnt) < 0)) : best;
		if (prec == NPU_PREC_INT8) {
			g = (int8_t)got[o];
		} else {
			uint16_t half;

			memcpy(&half, got + o * 2, 2);
			g = -9999;
			for (int v = -128; v < 128; v++)
				if (ref_f32_to_f16((float)v) == half)
					g = v;
		}
		if (abs(g - want) > tolerance)
			fail_msg("pool m%d %ux%ux%u k%ux%u s%ux%u %s: out (%u,%u,%u) = %d, want %d",
				 method, h, w, c, kh, kw, sy, sx, same ? "same" : "valid", oy, ox, ch,
				 g, want);
	}
	fx_program_free(&f);
	free(vals);
	free(in);
	free(got);
}

static void run_pool(enum npu_precision prec, enum lower_pool_method method, unsigned int size,
		     unsigned int c, unsigned int k, unsigned int stride, bool same)
{
	run_pool_rect(prec, method, size, size, c, k, k, stride, stride, same);
}

static void pool_max_min_int8(void **state)
{
	static const unsigned int sizes[] = { 3, 5, 8, 80, 112 }, chans[] = { 1, 32, 120 };

	(void)state;
	for (size_t si = 0; si < 5; si++)
		for (size_t ci = 0; ci < 3; ci++)
			for (unsigned int k = 2; k <= 3; k++)
				for (unsigned int st = 1; st <= 2; st++) {
					bool same = (si + ci + k + st) & 1;

					if (!same && k > sizes[si])
						continue;
					run_pool(NPU_PREC_INT8, (si + k) & 1 ? LOWER_POOL_MAX : LOWER_POOL_MIN,
						 sizes[si], chans[ci], k, st, same);
				}
}

static void pool_avg_int8(void **state)
{
	(void)state;
	run_pool(NPU_PREC_INT8, LOWER_POOL_AVG, 8, 32, 2, 2, false);
	run_pool(NPU_PREC_INT8, LOWER_POOL_AVG, 9, 16, 3, 3, false);
	run_pool(NPU_PREC_INT8, LOWER_POOL_AVG, 80, 120, 5, 1, false);
	run_pool(NPU_PREC_INT8, LOWER_POOL_AVG, 12, 32, 4, 4, false);	/* exact */
}

/* kh != kw, sy != sx, h != w: any x/y mix-up shows, in every method. */
static void pool_rectangular(void **state)
{
	static const struct {
		enum lower_pool_method m;
		unsigned int h, w, c, kh, kw, sy, sx;
		bool same;
	} cases[] = {
		{ LOWER_POOL_AVG, 8, 12, 32, 2, 4, 2, 1, false },	/* exact */
		{ LOWER_POOL_AVG, 9, 6, 16, 4, 1, 1, 2, false },	/* exact */
		{ LOWER_POOL_AVG, 10, 7, 8, 1, 2, 3, 1, false },	/* exact */
		{ LOWER_POOL_AVG, 11, 9, 16, 3, 2, 2, 1, false },
		{ LOWER_POOL_MAX, 9, 13, 32, 3, 1, 1, 2, true },
		{ LOWER_POOL_MIN, 12, 7, 16, 2, 3, 2, 3, false },
		{ LOWER_POOL_MAX, 7, 10, 8, 1, 3, 2, 1, true },
	};

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		run_pool_rect(NPU_PREC_INT8, cases[i].m, cases[i].h, cases[i].w, cases[i].c,
			      cases[i].kh, cases[i].kw, cases[i].sy, cases[i].sx, cases[i].same);
}

static void pool_fp16(void **state)
{
	(void)state;
	run_pool(NPU_PREC_FP16, LOWER_POOL_MAX, 8, 20, 3, 2, true);
	run_pool(NPU_PREC_FP16, LOWER_POOL_MAX, 5, 8, 2, 1, false);
}

static void pool_errors(void **state)
{
	struct lower_pool_shape s;
	struct lower_pool_op op = {
		.prec = NPU_PREC_INT8, .method = LOWER_POOL_AVG, .in_h = 8, .in_w = 8, .c = 4,
		.kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1, .same_padding = true,
	};

	(void)state;
	assert_int_equal(lower_pool_check(&op, &s), -ENOTSUP);	/* avg + padding */
	op.method = LOWER_POOL_MAX;
	op.kh = 17;
	assert_int_equal(lower_pool_check(&op, &s), -EINVAL);
	op.kh = 3;
	op.prec = NPU_PREC_INT32;
	assert_int_equal(lower_pool_check(&op, &s), -ENOTSUP);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(pool_max_min_int8, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(pool_avg_int8, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(pool_rectangular, fx_setup, fx_teardown),
		cmocka_unit_test_setup_teardown(pool_fp16, fx_setup, fx_teardown),
		cmocka_unit_test(pool_errors),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
