// SPDX-License-Identifier: MIT
/*
 * LayerNorm, Reduce and MatMul on the CPU (cpu_xformer.h). As the other
 * built-ins: computed on the real values (int8 dequantised, fp16 widened)
 * as the ONNX operators define them, stored as QuantizeLinear does or
 * rounded to half (rkb_cpu_set).
 */
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cpu_xformer.h"

/* The extent of `axis` of t, 0 for no such axis. */
static unsigned int extent(const struct rkb_cpu_tensor *t, int32_t axis)
{
	return axis == RKB_CPU_AXIS_C ? t->c : axis == RKB_CPU_AXIS_H ? t->h :
	       axis == RKB_CPU_AXIS_W ? t->w : 0;
}

static int int32_at(const struct rkb_cpu_call *call, size_t k, int32_t *v)
{
	if (call->params_bytes < (k + 1) * sizeof(*v))
		return -1;
	memcpy(v, (const uint8_t *)call->params + k * sizeof(*v), sizeof(*v));
	return 0;
}

static float float_at(const struct rkb_cpu_call *call, size_t byte)
{
	float v;

	memcpy(&v, (const uint8_t *)call->params + byte, sizeof(v));
	return v;
}

/* ---- axis sets (LayerNorm, Reduce) ---- */

/* An axes parameter's set of axes (bit 1 << RKB_CPU_AXIS_*), 0 for none
 * or a malformed one. */
static unsigned int axis_set(int32_t axes)
{
	const unsigned int all = (1u << RKB_CPU_AXIS_C) | (1u << RKB_CPU_AXIS_H) |
				 (1u << RKB_CPU_AXIS_W);

	if (axes >= RKB_CPU_AXIS_C && axes <= RKB_CPU_AXIS_W)
		return 1u << axes;
	if ((axes & ~(int32_t)all) != RKB_CPU_REDUCE_AXES)
		return 0;
	return (unsigned int)axes & all;
}

/* Element k, in C, H, W order, of the block of e[0] × e[1] × e[2]
 * elements whose first is (c, y, x). */
static void block_pos(unsigned int c, unsigned int y, unsigned int x, const unsigned int e[3],
		      unsigned int k, unsigned int p[3])
{
	p[0] = c + k / (e[1] * e[2]);
	p[1] = y + k / e[2] % e[1];
	p[2] = x + k % e[2];
}

static float block_get(const struct rkb_cpu_tensor *t, unsigned int c, unsigned int y,
		       unsigned int x, const unsigned int e[3], unsigned int k)
{
	unsigned int p[3];

	block_pos(c, y, x, e, k, p);
	return rkb_cpu_get(t, p[0], p[1], p[2]);
}

/* t's extent along `axis`, or 1 when the set reduces it. */
static unsigned int kept(const struct rkb_cpu_tensor *t, unsigned int set, int32_t axis)
{
	return set & (1u << axis) ? 1u : extent(t, axis);
}

/* ---- LayerNorm ---- */

int rkb_cpu_check_layernorm(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;
	int32_t axes;
	unsigned int set, n = 1;
	float eps;

	if (call->in2.c) {
		snprintf(err, err_len, "a second input for an op that takes one");
		return -1;
	}
	if (i->c != o->c || i->h != o->h || i->w != o->w) {
		snprintf(err, err_len, "output %ux%ux%u differs from the input %ux%ux%u", o->c,
			 o->h, o->w, i->c, i->h, i->w);
		return -1;
	}
	if (int32_at(call, 0, &axes) || !(set = axis_set(axes))) {
		snprintf(err, err_len, "no axis 0..2 (channels, rows, columns) or set of them "
			 "(0x%x with one bit per axis) in the parameters", RKB_CPU_REDUCE_AXES);
		return -1;
	}
	for (int32_t a = RKB_CPU_AXIS_C; a <= RKB_CPU_AXIS_W; a++)
		n *= set & (1u << a) ? extent(i, a) : 1u;
	if (call->params_bytes != RKB_CPU_LAYERNORM_HEADER + 2u * n * sizeof(float)) {
		snprintf(err, err_len, "%zu parameter bytes (axes, epsilon, %u scale and %u bias "
			 "values: %zu)", call->params_bytes, n, n,
			 (size_t)RKB_CPU_LAYERNORM_HEADER + 2u * n * sizeof(float));
		return -1;
	}
	eps = float_at(call, sizeof(axes));
	if (!(eps >= 0.0f) || !isfinite(eps)) {
		snprintf(err, err_len, "epsilon %g (a finite value >= 0)", (double)eps);
		return -1;
	}
	return 0;
}

int rkb_cpu_run_layernorm(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	int32_t axes;
	unsigned int set, e[3], n;
	float eps;
	size_t gamma = RKB_CPU_LAYERNORM_HEADER, beta;

	if (int32_at(call, 0, &axes))
		return -1;	/* refused at create already */
	set = axis_set(axes);
	for (int32_t a = RKB_CPU_AXIS_C; a <= RKB_CPU_AXIS_W; a++)
		e[a] = set & (1u << a) ? extent(in, a) : 1u;
	n = e[0] * e[1] * e[2];
	beta = gamma + n * sizeof(float);
	eps = float_at(call, sizeof(axes));
	/* each block of the normalised axes at (c, y, x), its elements k in
	 * C, H, W order, which is the order of gamma and beta */
	for (unsigned int c = 0; c < in->c / e[0]; c++)
		for (unsigned int y = 0; y < in->h / e[1]; y++)
			for (unsigned int x = 0; x < in->w / e[2]; x++) {
				float mean = 0.0f, var = 0.0f, inv;

				for (unsigned int k = 0; k < n; k++)
					mean += block_get(in, c, y, x, e, k);
				mean /= (float)n;
				for (unsigned int k = 0; k < n; k++) {
					float d = block_get(in, c, y, x, e, k) - mean;

					var += d * d;
				}
				inv = 1.0f / sqrtf(var / (float)n + eps);
				for (unsigned int k = 0; k < n; k++) {
					unsigned int p[3];

					block_pos(c, y, x, e, k, p);
					rkb_cpu_set(out, p[0], p[1], p[2],
						    (block_get(in, c, y, x, e, k) - mean) * inv *
							    float_at(call, gamma + k * sizeof(float)) +
							    float_at(call, beta + k * sizeof(float)));
				}
			}
	return 0;
}

/* ---- Reduce ---- */

int rkb_cpu_check_reduce(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;
	int32_t fn, axes;
	unsigned int set;

	if (call->in2.c) {
		snprintf(err, err_len, "a second input for an op that takes one");
		return -1;
	}
	if (call->params_bytes != RKB_CPU_REDUCE_PARAMS * sizeof(int32_t) ||
	    int32_at(call, 0, &fn) || int32_at(call, 1, &axes)) {
		snprintf(err, err_len, "%zu parameter bytes (function, axes: %zu)",
			 call->params_bytes, RKB_CPU_REDUCE_PARAMS * sizeof(int32_t));
		return -1;
	}
	set = axis_set(axes);
	if (fn < RKB_CPU_REDUCE_MEAN || fn > RKB_CPU_REDUCE_LOG_SUM_EXP || !set) {
		snprintf(err, err_len, "function %d (1 mean .. 10 log-sum-exp), axes 0x%x (an "
			 "axis 0..2, or 0x%x with one bit per axis)", (int)fn, (unsigned int)axes,
			 RKB_CPU_REDUCE_AXES);
		return -1;
	}
	if (o->c != kept(i, set, RKB_CPU_AXIS_C) || o->h != kept(i, set, RKB_CPU_AXIS_H) ||
	    o->w != kept(i, set, RKB_CPU_AXIS_W)) {
		snprintf(err, err_len, "output %ux%ux%u is not the input %ux%ux%u reduced along "
			 "axes 0x%x", o->c, o->h, o->w, i->c, i->h, i->w, (unsigned int)axes);
		return -1;
	}
	return 0;
}

/* What each element adds to the running value, the value's start, and
 * the result of n elements (ONNX's Reduce* definitions); LOG_SUM_EXP runs
 * on x − the set's largest, which is added back. */
static float reduce_start(int32_t fn)
{
	return fn == RKB_CPU_REDUCE_MAX ? -INFINITY : fn == RKB_CPU_REDUCE_MIN ? INFINITY :
	       fn == RKB_CPU_REDUCE_PROD ? 1.0f : 0.0f;
}

static float reduce_step(int32_t fn, float acc, float v)
{
	switch (fn) {
	case RKB_CPU_REDUCE_MAX:
		return v > acc ? v : acc;
	case RKB_CPU_REDUCE_MIN:
		return v < acc ? v : acc;
	case RKB_CPU_REDUCE_PROD:
		return acc * v;
	case RKB_CPU_REDUCE_SUM_SQUARE:
	case RKB_CPU_REDUCE_L2:
		return acc + v * v;
	case RKB_CPU_REDUCE_L1:
		return acc + __builtin_fabsf(v);
	case RKB_CPU_REDUCE_LOG_SUM_EXP:
		return acc + expf(v);
	default:	/* MEAN, SUM, LOG_SUM */
		return acc + v;
	}
}

static float reduce_end(int32_t fn, float acc, unsigned int n)
{
	switch (fn) {
	case RKB_CPU_REDUCE_MEAN:
		return acc / (float)n;
	case RKB_CPU_REDUCE_L2:
		return sqrtf(acc);
	case RKB_CPU_REDUCE_LOG_SUM:
	case RKB_CPU_REDUCE_LOG_SUM_EXP:
		return rkb_cpu_log(acc);
	default:
		return acc;
	}
}

int rkb_cpu_run_reduce(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *in = &call->in, *out = &call->out;
	int32_t fn, axes;
	unsigned int set, e[3], n;

	if (int32_at(call, 0, &fn) || int32_at(call, 1, &axes))
		return -1;
	set = axis_set(axes);
	/* each output element reduces a block of e[0] x e[1] x e[2] inputs */
	for (int32_t a = RKB_CPU_AXIS_C; a <= RKB_CPU_AXIS_W; a++)
		e[a] = set & (1u << a) ? extent(in, a) : 1u;
	n = e[0] * e[1] * e[2];
	for (unsigned int c = 0; c < out->c; c++)
		for (unsigned int y = 0; y < out->h; y++)
			for (unsigned int x = 0; x < out->w; x++) {
				float acc = reduce_start(fn), top = 0.0f;

				if (fn == RKB_CPU_REDUCE_LOG_SUM_EXP) {
					top = -INFINITY;
					for (unsigned int k = 0; k < n; k++) {
						float v = block_get(in, c, y, x, e, k);

						top = v > top ? v : top;
					}
				}
				for (unsigned int k = 0; k < n; k++)
					acc = reduce_step(fn, acc, block_get(in, c, y, x, e, k) - top);
				rkb_cpu_set(out, c, y, x, reduce_end(fn, acc, n) + top);
			}
	return 0;
}

/* ---- MatMul ---- */

/* B's rows (K) and columns (N): in2's, or (constant B) the input's
 * columns and the output's. */
static void matmul_b(const struct rkb_cpu_call *call, unsigned int *k, unsigned int *n)
{
	*k = call->in2.c ? call->in2.h : call->in.w;
	*n = call->in2.c ? call->in2.w : call->out.w;
}

int rkb_cpu_check_matmul(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *a = &call->in, *b = &call->in2, *o = &call->out;
	unsigned int k, n;

	matmul_b(call, &k, &n);
	if (b->c && call->params_bytes) {
		snprintf(err, err_len, "%zu parameter bytes besides a second input (B is one or "
			 "the other)", call->params_bytes);
		return -1;
	}
	if (!b->c && call->params_bytes != (size_t)k * n * sizeof(float) &&
	    call->params_bytes != (size_t)a->c * k * n * sizeof(float)) {
		snprintf(err, err_len, "no second input, and %zu parameter bytes for a constant "
			 "B (%u x %u float32, shared or one per channel: %zu or %zu)",
			 call->params_bytes, k, n, (size_t)k * n * sizeof(float),
			 (size_t)a->c * k * n * sizeof(float));
		return -1;
	}
	if (a->w != k || (b->c && b->c != a->c && b->c != 1) || o->c != a->c || o->h != a->h ||
	    o->w != n) {
		snprintf(err, err_len, "%ux%ux%u times %ux%ux%u is not %ux%ux%u (per channel: "
			 "rows by K times K by N)", a->c, a->h, a->w, b->c ? b->c : 1, k, n, o->c,
			 o->h, o->w);
		return -1;
	}
	return 0;
}

int rkb_cpu_run_matmul(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *a = &call->in, *b = &call->in2;
	unsigned int k, n;
	bool per_channel;

	matmul_b(call, &k, &n);
	/* a constant B of one matrix per channel, unless one is all there is */
	per_channel = !b->c && a->c > 1 && call->params_bytes != (size_t)k * n * sizeof(float);
	for (unsigned int c = 0; c < a->c; c++)
		for (unsigned int y = 0; y < a->h; y++)
			for (unsigned int x = 0; x < n; x++) {
				float acc = 0.0f;

				for (unsigned int i = 0; i < k; i++)
					acc += rkb_cpu_get(a, c, y, i) *
					       (b->c ? rkb_cpu_get(b, b->c == 1 ? 0 : c, i, x) :
						float_at(call, (((size_t)(per_channel ? c : 0) * k + i) *
								n + x) * sizeof(float)));
				rkb_cpu_set(&call->out, c, y, x, acc);
			}
	return 0;
}

/* ---- Gather ---- */

int rkb_cpu_check_gather(const struct rkb_cpu_call *call, char *err, size_t err_len)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;
	size_t n = (size_t)o->c * o->h * o->w, in_n = (size_t)i->c * i->h * i->w;

	if (call->in2.c) {
		snprintf(err, err_len, "a second input for an op that takes one");
		return -1;
	}
	if (call->params_bytes != n * sizeof(int32_t)) {
		snprintf(err, err_len, "%zu parameter bytes (one int32 source index per output "
			 "element: %zu)", call->params_bytes, n * sizeof(int32_t));
		return -1;
	}
	for (size_t e = 0; e < n; e++) {
		int32_t k;

		memcpy(&k, (const uint8_t *)call->params + e * sizeof(k), sizeof(k));
		if (k < 0 || (size_t)k >= in_n) {
			snprintf(err, err_len, "source index %d of output element %zu is outside "
				 "the input's %zu", (int)k, e, in_n);
			return -1;
		}
	}
	return 0;
}

int rkb_cpu_run_gather(const struct rkb_cpu_call *call)
{
	const struct rkb_cpu_tensor *i = &call->in, *o = &call->out;
	size_t e = 0;

	for (unsigned int c = 0; c < o->c; c++)
		for (unsigned int y = 0; y < o->h; y++)
			for (unsigned int x = 0; x < o->w; x++, e++) {
				int32_t k;
				unsigned int ix, iy, ic;

				memcpy(&k, (const uint8_t *)call->params + e * sizeof(k), sizeof(k));
				ix = (unsigned int)k % i->w;
				iy = (unsigned int)k / i->w % i->h;
				ic = (unsigned int)k / i->w / i->h;
				rkb_cpu_set(o, c, y, x, rkb_cpu_get(i, ic, iy, ix));
			}
	return 0;
}
