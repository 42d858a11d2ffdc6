/* SPDX-License-Identifier: MIT */
/*
 * The transformer CPU ops (runtime/cpu_xformer.h), found through the
 * registry: LayerNorm over each map axis and set of axes, Reduce (ONNX's
 * ten reductions) over each set of axes, MatMul of two maps (B one channel
 * shared, or per channel) and with a constant B, Reshape and the Gather
 * table, on fp16 maps (within an fp16 rounding of the double result
 * computed here from plain C × H × W arrays)
 * and int8 ones (within 1 LSB of the double result quantised here); and
 * the checks' refusals of parameters of the wrong size, a bad axis or
 * function, shapes that do not multiply, an index outside the input.
 */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/layout.h"
#include "runtime/cpu_ops.h"
#include "runtime/cpu_xformer.h"

#define MAXE	4096u	/* elements (with channel padding) of any map here */

struct map {
	struct rkb_cpu_tensor t;
	int8_t buf[2 * MAXE];
	double v[MAXE];		/* real values, C × H × W row-major */
};

static void map_init(struct map *m, unsigned int c, unsigned int h, unsigned int w, bool fp16,
		     float scale)
{
	memset(m, 0, sizeof(*m));
	m->t = (struct rkb_cpu_tensor){ .data = m->buf, .c = c, .h = h, .w = w,
					.scale = fp16 ? 1.0f : scale,
					.dtype = fp16 ? RKB_CPU_FP16 : RKB_CPU_INT8 };
}

/* Fills m with values of a fixed pseudo-random sequence, stored and read
 * back (so v holds what the tensor holds). */
static void map_fill(struct map *m, unsigned int seed, double spread)
{
	uint32_t s = seed * 2654435761u + 1u;

	for (unsigned int c = 0; c < m->t.c; c++)
		for (unsigned int y = 0; y < m->t.h; y++)
			for (unsigned int x = 0; x < m->t.w; x++) {
				s = s * 1664525u + 1013904223u;
				rkb_cpu_set(&m->t, c, y, x,
					    (float)(((double)(s >> 8) / (1u << 24) - 0.5) * 2 * spread));
				m->v[(c * m->t.h + y) * m->t.w + x] = rkb_cpu_get(&m->t, c, y, x);
			}
}

/* Every element of out within tolerance of want (C × H × W): fp16 a
 * relative 2^-10 (and 1e-3 absolute), int8 one step of the scale. */
static void expect(const struct map *out, const double *want)
{
	const struct rkb_cpu_tensor *t = &out->t;

	for (unsigned int c = 0; c < t->c; c++)
		for (unsigned int y = 0; y < t->h; y++)
			for (unsigned int x = 0; x < t->w; x++) {
				double w = want[(c * t->h + y) * t->w + x];
				double got = rkb_cpu_get(t, c, y, x);
				double tol = t->dtype == RKB_CPU_FP16 ? fabs(w) / 1024 + 1e-3 :
					     t->scale * 1.01;

				if (fabs(got - w) > tol)
					fail_msg("(%u,%u,%u): %g, want %g", c, y, x, got, w);
			}
}

static int call_op(const char *type, struct map *in, struct map *in2, struct map *out,
		   const void *params, size_t bytes, char *err, size_t err_len)
{
	const struct rkb_cpu_op *op = rkb_cpu_op_find(type);
	struct rkb_cpu_call call = { .node = "t", .in = in->t, .out = out->t,
				     .params = params, .params_bytes = bytes };

	assert_non_null(op);
	if (in2)
		call.in2 = in2->t;
	if (op->check(&call, err, err_len))
		return -1;
	return op->run(&call);
}

static double at3(const struct map *m, unsigned int c, unsigned int y, unsigned int x)
{
	return m->v[(c * m->t.h + y) * m->t.w + x];
}

/* LayerNorm over the set of axes `set` (bit 1 << RKB_CPU_AXIS_*), given
 * as one axis when the set has one and single is true: each block's mean
 * and variance over its elements, gamma and beta indexed in the block's C,
 * H, W order; and the parameters one value short refused. */
static void layernorm_set(bool fp16, unsigned int set, bool single)
{
	static struct map in, out;
	static uint8_t params[RKB_CPU_LAYERNORM_HEADER + 2 * 5 * 3 * 7 * sizeof(float)];
	static float gamma[5 * 3 * 7], beta[5 * 3 * 7];
	static double want[5 * 3 * 7];
	unsigned int d[3] = { 5, 3, 7 }, e[3], n;
	int32_t axes = RKB_CPU_REDUCE_AXES | (int32_t)set;
	float eps = 1e-3f;
	char err[160];

	for (int32_t a = 0; a < 3; a++) {
		e[a] = set & (1u << a) ? d[a] : 1u;
		if (single && set == 1u << a)
			axes = a;
	}
	n = e[0] * e[1] * e[2];
	map_init(&in, d[0], d[1], d[2], fp16, 0.02f);
	map_init(&out, d[0], d[1], d[2], fp16, 1.0f / 32);
	map_fill(&in, 40 + set, 2.0);
	for (unsigned int k = 0; k < n; k++) {
		gamma[k] = 0.5f + 0.01f * (float)k;
		beta[k] = 0.005f * (float)k - 0.1f;
	}
	memcpy(params, &axes, sizeof(axes));
	memcpy(params + 4, &eps, sizeof(eps));
	memcpy(params + RKB_CPU_LAYERNORM_HEADER, gamma, n * sizeof(float));
	memcpy(params + RKB_CPU_LAYERNORM_HEADER + n * sizeof(float), beta, n * sizeof(float));
	for (unsigned int c = 0; c < d[0]; c++)
		for (unsigned int y = 0; y < d[1]; y++)
			for (unsigned int x = 0; x < d[2]; x++) {
				/* the block of (c, y, x): the other axes' coordinates kept */
				unsigned int b0 = e[0] > 1 ? 0 : c, b1 = e[1] > 1 ? 0 : y;
				unsigned int b2 = e[2] > 1 ? 0 : x;
				unsigned int k = ((e[0] > 1 ? c : 0) * e[1] + (e[1] > 1 ? y : 0)) * e[2] +
						 (e[2] > 1 ? x : 0);
				double mean = 0, var = 0;

				for (unsigned int i = 0; i < e[0]; i++)
					for (unsigned int j = 0; j < e[1]; j++)
						for (unsigned int l = 0; l < e[2]; l++)
							mean += at3(&in, b0 + i, b1 + j, b2 + l);
				mean /= n;
				for (unsigned int i = 0; i < e[0]; i++)
					for (unsigned int j = 0; j < e[1]; j++)
						for (unsigned int l = 0; l < e[2]; l++) {
							double v = at3(&in, b0 + i, b1 + j, b2 + l) - mean;

							var += v * v;
						}
				want[(c * d[1] + y) * d[2] + x] =
					(at3(&in, c, y, x) - mean) / sqrt(var / n + eps) * gamma[k] +
					beta[k];
			}
	assert_int_equal(call_op("LayerNorm", &in, NULL, &out, params,
				 RKB_CPU_LAYERNORM_HEADER + 2 * n * sizeof(float), err, sizeof(err)),
			 0);
	expect(&out, want);
	assert_int_equal(call_op("LayerNorm", &in, NULL, &out, params,
				 RKB_CPU_LAYERNORM_HEADER + 2 * n * sizeof(float) - 4, err,
				 sizeof(err)), -1);
	assert_non_null(strstr(err, "parameter bytes"));
}

static void test_layernorm(void **state)
{
	(void)state;
	for (unsigned int set = 1; set < 8; set++)
		for (int fp16 = 0; fp16 < 2; fp16++) {
			layernorm_set(fp16, set, false);
			if (!(set & (set - 1)))	/* one axis, given as the axis too */
				layernorm_set(fp16, set, true);
		}
}

/* ONNX's definition of reduction fn over n values, in double. */
static double reduce_ref(int32_t fn, const double *v, unsigned int n)
{
	double acc = fn == RKB_CPU_REDUCE_MAX ? -INFINITY : fn == RKB_CPU_REDUCE_MIN ? INFINITY :
		     fn == RKB_CPU_REDUCE_PROD ? 1.0 : 0.0;

	for (unsigned int k = 0; k < n; k++)
		switch (fn) {
		case RKB_CPU_REDUCE_MAX:
			acc = fmax(acc, v[k]);
			break;
		case RKB_CPU_REDUCE_MIN:
			acc = fmin(acc, v[k]);
			break;
		case RKB_CPU_REDUCE_PROD:
			acc *= v[k];
			break;
		case RKB_CPU_REDUCE_SUM_SQUARE:
		case RKB_CPU_REDUCE_L2:
			acc += v[k] * v[k];
			break;
		case RKB_CPU_REDUCE_L1:
			acc += fabs(v[k]);
			break;
		case RKB_CPU_REDUCE_LOG_SUM_EXP:
			acc += exp(v[k]);
			break;
		default:
			acc += v[k];
		}
	if (fn == RKB_CPU_REDUCE_MEAN)
		return acc / n;
	if (fn == RKB_CPU_REDUCE_L2)
		return sqrt(acc);
	if (fn == RKB_CPU_REDUCE_LOG_SUM || fn == RKB_CPU_REDUCE_LOG_SUM_EXP)
		return log(acc);
	return acc;
}

/* Reduce fn over the axes in `set` (bit 1 << RKB_CPU_AXIS_*) of an 8 x 4
 * x 6 map, given as one axis when the set has one and single is true,
 * else as RKB_CPU_REDUCE_AXES | set. */
static void reduce_case(bool fp16, int32_t fn, unsigned int set, bool single)
{
	static struct map in, out;
	static double want[8 * 4 * 6], line[8 * 4 * 6];
	unsigned int d[3] = { 8, 4, 6 }, e[3];
	int32_t params[2] = { fn, RKB_CPU_REDUCE_AXES | (int32_t)set };
	double top = 0.0;
	char err[160];

	for (int32_t a = RKB_CPU_AXIS_C; a <= RKB_CPU_AXIS_W; a++) {
		e[a] = set & (1u << a) ? d[a] : 1u;
		if (single && set == 1u << a)
			params[1] = a;
	}
	map_init(&in, d[0], d[1], d[2], fp16, 0.02f);
	map_fill(&in, 7u + (unsigned int)fn * 8u + set, 1.0);
	if (fn == RKB_CPU_REDUCE_LOG_SUM)	/* a positive sum */
		for (unsigned int i = 0; i < 8 * 4 * 6; i++) {
			rkb_cpu_set(&in.t, i / 24, i / 6 % 4, i % 6, (float)(fabs(in.v[i]) + 0.1));
			in.v[i] = rkb_cpu_get(&in.t, i / 24, i / 6 % 4, i % 6);
		}
	for (unsigned int c = 0; c < d[0] / e[0]; c++)
		for (unsigned int y = 0; y < d[1] / e[1]; y++)
			for (unsigned int x = 0; x < d[2] / e[2]; x++) {
				unsigned int n = 0;

				for (unsigned int i = 0; i < e[0]; i++)
					for (unsigned int j = 0; j < e[1]; j++)
						for (unsigned int k = 0; k < e[2]; k++)
							line[n++] = at3(&in, e[0] > 1 ? i : c,
									e[1] > 1 ? j : y,
									e[2] > 1 ? k : x);
				want[(c * (d[1] / e[1]) + y) * (d[2] / e[2]) + x] =
					reduce_ref(fn, line, n);
				top = fmax(top, fabs(want[(c * (d[1] / e[1]) + y) *
							  (d[2] / e[2]) + x]));
			}
	/* int8: a step that holds the largest result */
	map_init(&out, d[0] / e[0], d[1] / e[1], d[2] / e[2], fp16, (float)(top / 100 + 1e-6));
	assert_int_equal(call_op("Reduce", &in, NULL, &out, params, sizeof(params), err,
				 sizeof(err)), 0);
	expect(&out, want);
}

static void test_reduce(void **state)
{
	static struct map in, out;
	char err[160];

	(void)state;
	for (int fp16 = 0; fp16 < 2; fp16++)
		for (int32_t fn = RKB_CPU_REDUCE_MEAN; fn <= RKB_CPU_REDUCE_LOG_SUM_EXP; fn++)
			for (unsigned int set = 1; set < 8; set++) {
				reduce_case(fp16, fn, set, true);
				if (!(set & (set - 1)))	/* one axis, given as a set too */
					reduce_case(fp16, fn, set, false);
			}
	/* an output that is not the reduced shape; an unknown function; no axis */
	{
		int32_t p[2] = { RKB_CPU_REDUCE_SUM, RKB_CPU_AXIS_H };

		map_init(&in, 8, 4, 6, true, 1);
		map_init(&out, 8, 4, 1, true, 1);
		assert_int_equal(call_op("Reduce", &in, NULL, &out, p, sizeof(p), err,
					 sizeof(err)), -1);
		assert_non_null(strstr(err, "reduced along axes 0x1"));
		p[0] = RKB_CPU_REDUCE_LOG_SUM_EXP + 1;
		assert_int_equal(call_op("Reduce", &in, NULL, &out, p, sizeof(p), err,
					 sizeof(err)), -1);
		assert_non_null(strstr(err, "function 11"));
		p[0] = RKB_CPU_REDUCE_SUM;
		p[1] = RKB_CPU_REDUCE_AXES;
		assert_int_equal(call_op("Reduce", &in, NULL, &out, p, sizeof(p), err,
					 sizeof(err)), -1);
		assert_non_null(strstr(err, "axes 0x100"));
	}
}

static void test_matmul(void **state)
{
	static struct map a, b, out;
	float bc[5 * 3];
	double want[4 * 6 * 3];
	char err[160];

	(void)state;
	for (int fp16 = 0; fp16 < 2; fp16++)
		for (unsigned int bch = 1; bch <= 4; bch += 3) {
			/* a 4 channels of 6 x 5, b bch channels of 5 x 3 */
			map_init(&a, 4, 6, 5, fp16, 0.01f);
			map_init(&b, bch, 5, 3, fp16, 0.01f);
			map_init(&out, 4, 6, 3, fp16, 0.02f);
			map_fill(&a, 21, 1.0);
			map_fill(&b, 22 + bch, 1.0);
			for (unsigned int c = 0; c < 4; c++)
				for (unsigned int y = 0; y < 6; y++)
					for (unsigned int x = 0; x < 3; x++) {
						double acc = 0;

						for (unsigned int k = 0; k < 5; k++)
							acc += at3(&a, c, y, k) *
							       at3(&b, bch == 1 ? 0 : c, k, x);
						want[(c * 6 + y) * 3 + x] = acc;
					}
			assert_int_equal(call_op("MatMul", &a, &b, &out, NULL, 0, err, sizeof(err)),
					 0);
			expect(&out, want);
		}
	/* a constant B, shared by the channels */
	for (unsigned int i = 0; i < 15; i++)
		bc[i] = 0.1f * (float)i - 0.7f;
	map_init(&a, 4, 6, 5, true, 1);
	map_init(&out, 4, 6, 3, true, 1);
	map_fill(&a, 30, 1.0);
	for (unsigned int c = 0; c < 4; c++)
		for (unsigned int y = 0; y < 6; y++)
			for (unsigned int x = 0; x < 3; x++) {
				double acc = 0;

				for (unsigned int k = 0; k < 5; k++)
					acc += at3(&a, c, y, k) * bc[k * 3 + x];
				want[(c * 6 + y) * 3 + x] = acc;
			}
	assert_int_equal(call_op("MatMul", &a, NULL, &out, bc, sizeof(bc), err, sizeof(err)), 0);
	expect(&out, want);
	/* inner sizes that differ */
	map_init(&b, 4, 4, 3, true, 1);
	assert_int_equal(call_op("MatMul", &a, &b, &out, NULL, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "rows by K times K by N"));
}

static void test_reshape_gather(void **state)
{
	static struct map in, out;
	double want[2 * 3 * 4];
	int32_t table[2 * 3 * 4];
	char err[160];

	(void)state;
	/* Reshape 2 x 3 x 4 -> 1 x 4 x 6: the same row-major elements */
	map_init(&in, 2, 3, 4, false, 0.05f);
	map_init(&out, 1, 4, 6, false, 0.05f);
	map_fill(&in, 40, 3.0);
	assert_int_equal(call_op("Reshape", &in, NULL, &out, NULL, 0, err, sizeof(err)), 0);
	expect(&out, in.v);
	/* Gather table: the transpose of H and W (out 2 x 4 x 3) */
	map_init(&out, 2, 4, 3, true, 1);
	for (unsigned int c = 0; c < 2; c++)
		for (unsigned int y = 0; y < 4; y++)
			for (unsigned int x = 0; x < 3; x++) {
				table[(c * 4 + y) * 3 + x] = (int32_t)((c * 3 + x) * 4 + y);
				want[(c * 4 + y) * 3 + x] = at3(&in, c, x, y);
			}
	assert_int_equal(call_op("Gather", &in, NULL, &out, table, sizeof(table), err,
				 sizeof(err)), 0);
	expect(&out, want);
	table[5] = 24;	/* past the input's 24 elements */
	assert_int_equal(call_op("Gather", &in, NULL, &out, table, sizeof(table), err,
				 sizeof(err)), -1);
	assert_non_null(strstr(err, "outside"));
	/* counts that differ */
	map_init(&out, 1, 4, 5, true, 1);
	assert_int_equal(call_op("Reshape", &in, NULL, &out, NULL, 0, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "element count"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_layernorm),
		cmocka_unit_test(test_reduce),
		cmocka_unit_test(test_matmul),
		cmocka_unit_test(test_reshape_gather),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
