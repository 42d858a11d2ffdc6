/* SPDX-License-Identifier: MIT */
/*
 * Activations and element-wise ops, in both precisions (import_int.h).
 *
 * One map in, one out (Sigmoid, Tanh, LeakyRelu, HardSigmoid, HardSwish,
 * Swish, Elu, Selu, Softplus, Gelu; a Clip in fp16): on int8 maps exactly
 * a 256-entry table from the input's quantisation to the output's, built
 * here at compile time, looked up by the DPU's lookup table (one table for
 * the map) or the CPU (op "Lut": a table per channel); fp16 maps run the
 * float function on the lookup table where it holds it closely, else the
 * CPU (op "Unary"). Relu, and Clip in int8, stay on the NPU, fused into
 * their producer (import_patterns.c, import_fp16.c).
 *
 * Two operands (Add, Sub, Mul, Div, Max, Min, PRelu; the fold makes Sum,
 * Mean, Max and Min of other input counts chains of them): a constant that is
 * one value or one per channel with an affine op (x + k, x − k, k − x,
 * x · k, x / k), and a standalone BatchNormalization, are a depthwise 1×1
 * convolution on the NPU (weight = scale, bias); the other ops with such a
 * constant are a table per channel (int8) or a function of x (fp16, one
 * value); two maps of one shape added are the NPU's element-wise add;
 * anything else that broadcasts as ONNX does along the C × H × W axes of
 * the maps runs on the CPU ("Binary", the constant in its parameters).
 * Operator semantics: the ONNX operator documents.
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/cpu_ops.h"
#include "runtime/npu_fn.h"
#include "tools/onnx/import_int.h"

/* Most functions one table composes: an activation with a scale and a
 * shift on either side is five. */
#define CHAIN_MAX	8

/* Largest int8 weight magnitude: a per-channel weight of ±127 with scale
 * |k| / 127 is k itself, as exactly as float holds it. */
#define W_MAX		127.0f
/* Largest int32 bias magnitude taken as is; beyond, the channel's weight
 * scale grows (its weight shrinks) so the bias fits. */
#define BIAS_MAX	1073741824.0f	/* 2^30 */

/* SELU's constants (ONNX Selu defaults). */
#define SELU_ALPHA	1.67326319217681884765625f
#define SELU_GAMMA	1.05070102214813232421875f

/* The unary activations, their functions and attribute defaults (ONNX). */
static const struct {
	const char *op;
	int32_t fn;
	const char *a_name, *b_name;
	float a, b;
} unaries[] = {
	{ "Sigmoid", RKB_CPU_FN_SIGMOID, NULL, NULL, 0.0f, 0.0f },
	{ "Tanh", RKB_CPU_FN_TANH, NULL, NULL, 0.0f, 0.0f },
	{ "LeakyRelu", RKB_CPU_FN_LEAKY_RELU, "alpha", NULL, 0.01f, 0.0f },
	{ "HardSigmoid", RKB_CPU_FN_HARD_SIGMOID, "alpha", "beta", 0.2f, 0.5f },
	{ "HardSwish", RKB_CPU_FN_HARD_SWISH, NULL, NULL, 0.0f, 0.0f },
	{ "Swish", RKB_CPU_FN_SWISH, "alpha", NULL, 1.0f, 0.0f },
	{ "Elu", RKB_CPU_FN_ELU, "alpha", NULL, 1.0f, 0.0f },
	{ "Selu", RKB_CPU_FN_SELU, "alpha", "gamma", SELU_ALPHA, SELU_GAMMA },
	{ "Softplus", RKB_CPU_FN_SOFTPLUS, NULL, NULL, 0.0f, 0.0f },
	{ "Gelu", RKB_CPU_FN_GELU, NULL, NULL, 0.0f, 0.0f },
	{ "Clip", RKB_CPU_FN_CLIP, NULL, NULL, 0.0f, 0.0f },
	{ "Relu", RKB_CPU_FN_RELU, NULL, NULL, 0.0f, 0.0f },
	{ "Exp", RKB_CPU_FN_EXP, NULL, NULL, 0.0f, 0.0f },
	{ "Abs", RKB_CPU_FN_ABS, NULL, NULL, 0.0f, 0.0f },
	{ "Softsign", RKB_CPU_FN_SOFTSIGN, NULL, NULL, 0.0f, 0.0f },
	{ "Sqrt", RKB_CPU_FN_SQRT, NULL, NULL, 0.0f, 0.0f },
	{ "Log", RKB_CPU_FN_LOG, NULL, NULL, 0.0f, 0.0f },
	/* a constant's binary op, the constant the row's a */
	{ "Neg", RKB_CPU_FN_K_SUB, NULL, NULL, 0.0f, 0.0f },
	{ "Reciprocal", RKB_CPU_FN_K_DIV, NULL, NULL, 1.0f, 0.0f },
};

static const struct {
	const char *op;
	int32_t binop;
} binaries[] = {
	{ "Add", RKB_CPU_BIN_ADD }, { "Sub", RKB_CPU_BIN_SUB }, { "Mul", RKB_CPU_BIN_MUL },
	{ "Div", RKB_CPU_BIN_DIV }, { "Max", RKB_CPU_BIN_MAX }, { "Min", RKB_CPU_BIN_MIN },
	{ "PRelu", RKB_CPU_BIN_PRELU }, { "Pow", RKB_CPU_BIN_POW },
};

/* The function of unary activation n: 0, 1 when n is not one, or an error
 * naming the attribute. */
static int unary_fn(struct imp *s, const struct onnx_node *n, int32_t *fn, float *a, float *b)
{
	for (size_t i = 0; i < sizeof(unaries) / sizeof(unaries[0]); i++) {
		if (!is_op(n, unaries[i].op))
			continue;
		*fn = unaries[i].fn;
		*a = unaries[i].a_name ? onnx_attr_float(n, unaries[i].a_name, unaries[i].a) :
					 unaries[i].a;
		*b = unaries[i].b_name ? onnx_attr_float(n, unaries[i].b_name, unaries[i].b) :
					 unaries[i].b;
		if (*fn == RKB_CPU_FN_GELU) {
			const char *m = onnx_attr_string(n, "approximate", "none");

			if (strcmp(m, "none") && strcmp(m, "tanh"))
				return fail(s, "attribute approximate = '%s' (supported: 'none', "
					    "'tanh')", m);
			*a = strcmp(m, "tanh") ? 0.0f : 1.0f;
		}
		if (*fn == RKB_CPU_FN_CLIP) {
			struct imp_op bounds = { 0 };
			int rc = activation_of(s, n, &bounds);

			if (rc)
				return rc;
			*a = bounds.act_min;
			*b = bounds.act_max;
			if (*a > *b)
				return fail(s, "min %g is above max %g", (double)*a, (double)*b);
		}
		if (!isfinite(*a) && *fn != RKB_CPU_FN_CLIP)
			return fail(s, "attribute %s = %g is not a finite number",
				    unaries[i].a_name, (double)*a);
		if (!isfinite(*b) && *fn != RKB_CPU_FN_CLIP)
			return fail(s, "attribute %s = %g is not a finite number",
				    unaries[i].b_name, (double)*b);
		return 0;
	}
	return 1;
}

/* Which of the two tables above has n: unaries, binaries, or neither. */
static enum onnx_table_kind ewise_row(const struct onnx_node *n)
{
	for (size_t i = 0; i < sizeof(unaries) / sizeof(unaries[0]); i++)
		if (is_op(n, unaries[i].op))
			return ONNX_TABLE_UNARY;
	for (size_t i = 0; i < sizeof(binaries) / sizeof(binaries[0]); i++)
		if (is_op(n, binaries[i].op))
			return ONNX_TABLE_BINARY;
	return ONNX_TABLE_NONE;
}

bool ewise_op(const struct onnx_node *n)
{
	return ewise_row(n) != ONNX_TABLE_NONE || is_op(n, "BatchNormalization");
}

enum onnx_table_kind onnx_import_table_kind(const struct onnx_node *n)
{
	if (is_op(n, "Relu") || is_op(n, "Clip") || is_op(n, "PRelu"))
		return ONNX_TABLE_NONE;
	return ewise_row(n);
}

static int32_t binop_of(const struct onnx_node *n)
{
	for (size_t i = 0; i < sizeof(binaries) / sizeof(binaries[0]); i++)
		if (is_op(n, binaries[i].op))
			return binaries[i].binop;
	return 0;
}

/* ---- operands ---- */

/* An operand of a two-operand op: a map (imp tensor `it`) or a constant
 * (its float values), and its extents along the output's C, H, W axes. */
struct operand {
	int t;			/* the ONNX tensor */
	bool konst;
	float *vals;		/* konst: c × h × w values, C, H, W order (owned) */
	int it;			/* !konst: the imp tensor */
	unsigned int ext[3];
};

/* ONNX tensor t's dims right-aligned against a rank-5 shape, 1 before. */
static void dims5(const struct onnx_tensor *x, int64_t d[5])
{
	for (int i = 0; i < 5; i++)
		d[i] = i < 5 - x->rank ? 1 : x->dims[i - (5 - x->rank)];
}

/* ONNX tensor t's extents along the C, H, W axes of the output y it
 * broadcasts to: [1,A,B,H,W] as A·B × H × W, [1,C,H,W], [A,B,C] as
 * C × H × W, [M,K] as M rows of K channels, [K] as one row of K channels,
 * t right-aligned against it (numpy's rule). Along a rank-5 output's A and
 * B, t spans both or neither, or one alone (*ab_apart, when given): its
 * values then need expand_ab, and its extents are the output's A·B. */
static int extents(struct imp *s, int t, int y, unsigned int ext[3], bool *ab_apart)
{
	const struct onnx_tensor *x = T(s, t), *out = T(s, y);
	int64_t d[5];
	int rank = out->rank;
	bool apart;

	if (rank < 1 || rank > 5 || x->rank > rank)
		return fail(s, "operand '%s' of rank %d against an output of rank %d (supported: "
			    "outputs [1,A,B,H,W], [1,C,H,W], [A,B,C], [M,K] or [K] and operands of "
			    "no higher rank)",
			    x->name, x->rank, rank);
	dims5(x, d);
	if (d[0] != 1 || (rank < 5 && d[1] != 1))
		return fail(s, "operand '%s' has batch %lld (batch 1 only)", x->name,
			    (long long)(rank < 5 ? d[1] : d[0]));
	apart = rank == 5 && !(d[1] == 1 && d[2] == 1) &&
		!(d[1] == out->dims[1] && d[2] == out->dims[2]);
	if (ab_apart)
		*ab_apart = apart;
	if (rank <= 2) {
		ext[0] = (unsigned int)d[4];
		ext[1] = (unsigned int)d[3];
		ext[2] = 1;
	} else {
		ext[0] = (unsigned int)(apart ? out->dims[1] * out->dims[2] : d[1] * d[2]);
		ext[1] = (unsigned int)d[3];
		ext[2] = (unsigned int)d[4];
	}
	return 0;
}

/* Constant t's values *vals (ONNX order) expanded along A and B of the
 * rank-5 output y, which t spans one of (extents' ab_apart): A·B × H × W
 * values in the output's order. */
static int expand_ab(struct imp *s, int t, int y, float **vals)
{
	const struct onnx_tensor *out = T(s, y);
	int64_t d[5];
	size_t a_n = (size_t)out->dims[1], b_n = (size_t)out->dims[2], hw;
	float *e;

	dims5(T(s, t), d);
	hw = (size_t)(d[3] * d[4]);
	e = malloc(a_n * b_n * hw * sizeof(*e));
	if (!e)
		return -ENOMEM;
	for (size_t a = 0; a < a_n; a++)
		for (size_t b = 0; b < b_n; b++)
			memcpy(&e[(a * b_n + b) * hw],
			       &(*vals)[((d[1] == 1 ? 0 : a) * (size_t)d[2] + (d[2] == 1 ? 0 : b)) *
					hw],
			       hw * sizeof(*e));
	free(*vals);
	*vals = e;
	return 0;
}

/* Constant t's values as floats (a float constant, or the
 * DequantizeLinear of an integer constant with one scale and zero point),
 * malloc'd; NULL with *rc = 0 when t is not a constant. */
static float *const_values(struct imp *s, int t, int *rc)
{
	const struct onnx_node *dq = prod(s, t);
	const struct onnx_tensor *x = T(s, t);
	float scale = 1.0f, *v;
	int32_t zp = 0;
	int q = t;

	*rc = 0;
	if (is_op(dq, "DequantizeLinear") && is_const(s, in_of(dq, 0))) {
		size_t one;
		bool u8;

		q = in_of(dq, 0);
		*rc = get_scales(s, in_of(dq, 1), 1, &scale, &one);
		if (!*rc)
			*rc = get_zp(s, in_of(dq, 2), T(s, q)->dtype, &zp, &u8);
		if (*rc)
			return NULL;
		/* get_zp moves a uint8 zero point to the signed domain */
		if (u8)
			zp += U8_TO_S8;
		s->used[dq - s->g->nodes] = true;
	} else if (!is_const(s, t)) {
		return NULL;
	} else if (x->dtype != ONNX_DT_FLOAT) {
		*rc = fail(s, "constant operand '%s' is %s (float32, or an integer constant "
			   "behind a DequantizeLinear)", x->name, onnx_dtype_name(x->dtype));
		return NULL;
	}
	x = T(s, q);
	v = malloc((x->count ? x->count : 1) * sizeof(float));
	if (!v) {
		*rc = -ENOMEM;
		return NULL;
	}
	for (size_t i = 0; i < x->count; i++) {
		v[i] = q == t ? ((const float *)x->data)[i] :
			scale * (float)(const_at(x, i) - (double)zp);
		if (!isfinite(v[i])) {
			*rc = fail(s, "constant operand '%s' holds %g at %zu: not a finite number",
				   x->name, (double)v[i], i);
			free(v);
			return NULL;
		}
	}
	return v;
}

/* Operand i of n against its output (rank `rank`); `map_of` gives the imp
 * tensor of a computed one (dq_source for int8, the fp16 map). */
static int get_operand(struct imp *s, const struct onnx_node *n, size_t i,
		       int (*map_of)(struct imp *s, int f), struct operand *o)
{
	int rank = T(s, n->out[0])->rank, rc;
	bool ab_apart;

	o->t = in_of(n, i);
	if (o->t < 0)
		return fail(s, "input %zu is missing", i);
	rc = extents(s, o->t, n->out[0], o->ext, &ab_apart);
	if (rc)
		return rc;
	o->vals = const_values(s, o->t, &rc);
	o->konst = o->vals != NULL;
	if (!rc && ab_apart && !o->konst)
		return fail(s, "operand '%s' spans one of A and B of the [1,A,B,H,W] output "
			    "alone (supported: both, or neither, or a constant)", T(s, o->t)->name);
	if (!rc && ab_apart)
		rc = expand_ab(s, o->t, n->out[0], &o->vals);
	if (o->konst && rank == 2 && o->ext[0] > 1 && o->ext[1] > 1) {
		/* an [M, K] constant is K channels of M rows: its row-major
		 * order is the map's transposed */
		float *t = malloc((size_t)o->ext[0] * o->ext[1] * sizeof(*t));

		if (!t)
			return -ENOMEM;
		for (unsigned int m = 0; m < o->ext[1]; m++)
			for (unsigned int k = 0; k < o->ext[0]; k++)
				t[(size_t)k * o->ext[1] + m] = o->vals[(size_t)m * o->ext[0] + k];
		free(o->vals);
		o->vals = t;
	}
	if (rc || o->konst)
		return rc;
	o->it = map_of(s, o->t);
	if (o->it < 0)
		return o->it;
	/* a computed map keeps the layout of its own rank */
	{
		const struct imp_tensor *x = &s->ig->tensors[o->it];

		if (x->c != o->ext[0] || x->h != o->ext[1] || x->w != o->ext[2])
			return fail(s, "operand '%s' (%ux%ux%u as a map) would broadcast as "
				    "%ux%ux%u: a computed operand of a lower rank is not supported "
				    "(supported: computed operands of the output's rank, constants "
				    "of any rank up to it)",
				    T(s, o->t)->name, x->c, x->h, x->w, o->ext[0], o->ext[1],
				    o->ext[2]);
	}
	return 0;
}

static bool same_ext(const unsigned int a[3], const unsigned int b[3])
{
	return a[0] == b[0] && a[1] == b[1] && a[2] == b[2];
}

/* One value per channel of a c-channel output (or one for all)? */
static bool per_channel(const struct operand *k, unsigned int c)
{
	return k->ext[1] == 1 && k->ext[2] == 1 && (k->ext[0] == 1 || k->ext[0] == c);
}

/* Constant k's value for channel ch (per_channel). */
static float chan_val(const struct operand *k, unsigned int ch)
{
	return k->vals[k->ext[0] == 1 ? 0 : ch];
}

/* Whether x op k (k first when k_first) is the affine w·x + b for every
 * channel, and its w, b. */
static bool affine(int32_t binop, bool k_first, float k, float *w, float *b)
{
	switch (binop) {
	case RKB_CPU_BIN_ADD: *w = 1.0f; *b = k; return true;
	case RKB_CPU_BIN_SUB: *w = k_first ? -1.0f : 1.0f; *b = k_first ? k : -k; return true;
	case RKB_CPU_BIN_MUL: *w = k; *b = 0.0f; return true;
	case RKB_CPU_BIN_DIV:
		if (k_first || k == 0.0f)
			return false;
		*w = 1.0f / k;
		*b = 0.0f;
		return true;
	default: return false;
	}
}

/* The unary function of x op k, for a constant k. */
static int32_t const_fn(int32_t binop, bool k_first)
{
	switch (binop) {
	case RKB_CPU_BIN_ADD: return RKB_CPU_FN_ADD_K;
	case RKB_CPU_BIN_SUB: return k_first ? RKB_CPU_FN_K_SUB : RKB_CPU_FN_SUB_K;
	case RKB_CPU_BIN_MUL: return RKB_CPU_FN_MUL_K;
	case RKB_CPU_BIN_DIV: return k_first ? RKB_CPU_FN_K_DIV : RKB_CPU_FN_DIV_K;
	case RKB_CPU_BIN_MAX: return RKB_CPU_FN_MAX_K;
	case RKB_CPU_BIN_MIN: return RKB_CPU_FN_MIN_K;
	case RKB_CPU_BIN_POW: return k_first ? RKB_CPU_FN_K_POW : RKB_CPU_FN_POW_K;
	/* PRelu with one slope: a LeakyRelu */
	default: return RKB_CPU_FN_LEAKY_RELU;
	}
}

/* BatchNormalization n (inference) as a per-channel w·x + b: w, b of the
 * map's `c` values each, malloc'd (a [N, C, D, H, W] input's map holds
 * each channel's value D times: channels C·D). */
static int batchnorm_affine(struct imp *s, const struct onnx_node *n, unsigned int c, float **w,
			    float **b)
{
	const struct onnx_tensor *x = T(s, in_of(n, 0));
	unsigned int rep = x->rank == 5 ? (unsigned int)x->dims[2] : 1, k0;
	float eps = onnx_attr_float(n, "epsilon", 1e-5f);
	float *p[4] = { NULL, NULL, NULL, NULL };
	int rc = 0;

	*w = *b = NULL;
	c /= rep;
	if (n->n_out > 1 && n->out[1] >= 0)
		return fail(s, "training-mode outputs (running mean / var) are not supported");
	if (onnx_attr_int(n, "training_mode", 0))
		return fail(s, "attribute training_mode = 1 (supported: 0, inference)");
	for (int i = 0; i < 4 && !rc; i++) {
		p[i] = const_values(s, in_of(n, (size_t)i + 1), &rc);
		if (!rc && (!p[i] || T(s, in_of(n, (size_t)i + 1))->count != c))
			rc = fail(s, "input %d (scale, B, mean, var) is not a constant of %u values",
				  i + 1, c);
	}
	*w = rc ? NULL : malloc(c * rep * sizeof(float));
	*b = rc ? NULL : malloc(c * rep * sizeof(float));
	if (!rc && (!*w || !*b))
		rc = -ENOMEM;
	for (unsigned int k = 0; !rc && k < c * rep; k++) {
		k0 = k / rep;
		(*w)[k] = p[0][k0] / sqrtf(p[3][k0] + eps);
		(*b)[k] = p[1][k0] - p[2][k0] * (*w)[k];
		if (!isfinite((*w)[k]) || !isfinite((*b)[k]))
			rc = fail(s, "channel %u: scale / sqrt(var + epsilon) is not finite", k0);
	}
	for (int i = 0; i < 4; i++)
		free(p[i]);
	if (rc) {
		free(*w);
		free(*b);
		*w = *b = NULL;
	}
	return rc;
}

/* Binary's parameters (runtime/cpu_ops.h) for binop on `in` (and in2, or
 * the constant k, A when k_first). */
static int binary_params(struct imp_op *op, int32_t binop, const struct operand *k, bool k_first)
{
	size_t count = k ? (size_t)k->ext[0] * k->ext[1] * k->ext[2] : 0;
	int32_t head[RKB_CPU_BINARY_HEADER] = {
		binop, !k ? RKB_CPU_BIN_NO_CONST : k_first ? RKB_CPU_BIN_CONST_A :
		RKB_CPU_BIN_CONST_B, k ? (int32_t)k->ext[0] : 0, k ? (int32_t)k->ext[1] : 0,
		k ? (int32_t)k->ext[2] : 0,
	};
	uint8_t *p = malloc(sizeof(head) + count * sizeof(float));

	if (!p)
		return -ENOMEM;
	memcpy(p, head, sizeof(head));
	if (count)
		memcpy(p + sizeof(head), k->vals, count * sizeof(float));
	op->kind = IMP_CPU;
	op->cpu_type = "Binary";
	op->cpu_params = p;
	op->cpu_params_bytes = sizeof(head) + count * sizeof(float);
	return 0;
}

/* The two operands of binary n and which is the constant (k NULL: none). */
struct operands {
	struct operand a, b;
	struct operand *k, *x;	/* with a constant: it, and the map */
	int32_t binop;
};

static void operands_free(struct operands *o)
{
	free(o->a.vals);
	free(o->b.vals);
}

static int get_operands(struct imp *s, const struct onnx_node *n, int (*map_of)(struct imp *s,
			int f), struct operands *o)
{
	int rc;

	memset(o, 0, sizeof(*o));
	o->binop = binop_of(n);
	if (n->n_in != 2)
		return fail(s, "%zu inputs (supported: 2)", n->n_in);
	rc = get_operand(s, n, 0, map_of, &o->a);
	if (!rc)
		rc = get_operand(s, n, 1, map_of, &o->b);
	if (rc)
		return rc;
	if (o->a.konst && o->b.konst)
		return fail(s, "both operands are constants (fold them before compiling)");
	if (o->binop == RKB_CPU_BIN_PRELU && !o->b.konst && o->a.konst)
		return fail(s, "a constant input X with a computed slope");
	o->k = o->a.konst ? &o->a : o->b.konst ? &o->b : NULL;
	o->x = o->a.konst ? &o->b : &o->a;
	return 0;
}

/* Refusal of a broadcast the maps cannot take, naming the shapes. */
static int bad_broadcast(struct imp *s, const struct operands *o, const unsigned int out[3])
{
	return fail(s, "operands %ux%ux%u and %ux%ux%u (C x H x W) do not broadcast to the output "
		    "%ux%ux%u: along each axis each operand's extent must be the output's or 1, "
		    "batch 1", o->a.ext[0], o->a.ext[1], o->a.ext[2], o->b.ext[0], o->b.ext[1],
		    o->b.ext[2], out[0], out[1], out[2]);
}

static bool broadcast_ok(const struct operands *o, const unsigned int out[3])
{
	for (int i = 0; i < 3; i++)
		if ((o->a.ext[i] != out[i] && o->a.ext[i] != 1) ||
		    (o->b.ext[i] != out[i] && o->b.ext[i] != 1))
			return false;
	return true;
}

/* ---- int8 (between DequantizeLinear and QuantizeLinear) ---- */

/* A table of the functions steps[0..n) per channel (or one) from imp
 * tensor `in` to op's output, clamped to the fused activation in the
 * quantised domain (quantisation is monotonic, so clamping after it is
 * exact). A step with per-channel values (kv[i], one per channel of `in`)
 * takes channel c's as its attribute a in channel c's table. */
static int lut_op(struct imp *s, struct imp_op *op, int in, const struct rkb_cpu_fn_step *steps,
		  float *const *kv, size_t n)
{
	const struct imp_tensor *x = &s->ig->tensors[in], *y = &s->ig->tensors[op->out];
	struct rkb_cpu_fn_step chan[CHAIN_MAX];
	unsigned int tables = 1;
	int8_t *t;
	struct rkb_cpu_tensor q = { NULL, 1, 1, 1, y->scale, y->zp, RKB_CPU_INT8 };
	int32_t lo = INT8_MIN, hi = INT8_MAX;

	for (size_t i = 0; i < n; i++)
		if (kv && kv[i])
			tables = x->c;
	t = malloc((size_t)tables * RKB_CPU_LUT_ENTRIES);
	if (!t)
		return -ENOMEM;
	if (op->act == LOWER_ACT_RELU || op->act == LOWER_ACT_RELU6)
		lo = rkb_cpu_encode(&q, 0.0f);
	if (op->act == LOWER_ACT_RELU6)
		hi = rkb_cpu_encode(&q, 6.0f);
	if (op->act == LOWER_ACT_CLIP) {
		lo = rkb_cpu_encode(&q, op->act_min);
		hi = rkb_cpu_encode(&q, op->act_max);
	}
	for (unsigned int c = 0; c < tables; c++) {
		int8_t *tc = t + (size_t)c * RKB_CPU_LUT_ENTRIES;

		for (size_t i = 0; i < n; i++) {
			chan[i] = steps[i];
			if (kv && kv[i])
				chan[i].a = kv[i][c];
		}
		if (rkb_cpu_lut_build(chan, n, x->scale, x->zp, y->scale, y->zp, tc)) {
			free(t);
			return fail(s, "no table for function %d", (int)steps[0].fn);
		}
		for (unsigned int i = 0; i < RKB_CPU_LUT_ENTRIES; i++)
			tc[i] = (int8_t)(tc[i] < lo ? lo : tc[i] > hi ? hi : tc[i]);
	}
	/* one table: the DPU's lookup table where its cube takes the map
	 * (cpu_type and the parameters stay those of the CPU's Lut, which
	 * --no-fusion runs instead) */
	op->kind = tables == 1 && lower_eltwise_dims_ok(x->h, x->w, x->c) ? IMP_LUT : IMP_CPU;
	op->cpu_type = "Lut";
	op->in[0] = in;
	op->act = LOWER_ACT_NONE;
	op->cpu_params = t;
	op->cpu_params_bytes = (size_t)tables * RKB_CPU_LUT_ENTRIES;
	return 0;
}

/* Node n as one step of a table chain, and its map input (an ONNX
 * tensor): a unary activation, or a two-operand op with a constant of one
 * value (in st->a) or one per channel of an [N, C, H, W] output (*kv,
 * malloc'd). 1 when n is neither. */
static int chain_step(struct imp *s, const struct onnx_node *n, struct rkb_cpu_fn_step *st,
		      float **kv, int *map)
{
	int32_t binop = binop_of(n);
	const struct onnx_tensor *y = T(s, n->n_out ? n->out[0] : -1);
	int rc = unary_fn(s, n, &st->fn, &st->a, &st->b);

	*map = in_of(n, 0);
	*kv = NULL;
	if (rc <= 0)
		return rc;
	if (!binop || binop == RKB_CPU_BIN_PRELU || n->n_in != 2 || !y)
		return 1;
	rc = 0;
	for (size_t i = 0; i < 2; i++) {
		const struct onnx_tensor *c = T(s, in_of(n, i));
		bool per_channel = c && y->rank == 4 && c->count == (size_t)y->dims[1] &&
				   ((c->rank == 4 && c->dims[1] == y->dims[1]) ||
				    (c->rank == 3 && c->dims[0] == y->dims[1]));
		float *k = c && (c->count == 1 || per_channel) ? const_values(s, in_of(n, i), &rc)
							     : NULL;

		if (rc)
			return rc;
		if (!k)
			continue;
		st->fn = const_fn(binop, i == 0);
		st->a = k[0];
		st->b = 0.0f;
		if (c->count == 1)
			free(k);
		else
			*kv = k;
		*map = in_of(n, 1 - i);
		return 0;
	}
	return 1;
}

/*
 * p and the chain of one-map ops before it whose outputs the quantiser
 * left in float (onnx_quant.c: an activation with a scale and a shift
 * around it) as one table from the chain's quantised input to p's output:
 * one rounding instead of one per op. 1 when p's map input is quantised
 * (no chain: the one-op paths take it).
 */
static int table_chain(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	struct rkb_cpu_fn_step steps[CHAIN_MAX], t;
	float *kv[CHAIN_MAX] = { NULL }, *tk;
	size_t count = 1;
	int map, in, rc;

	rc = chain_step(s, p, &steps[0], &kv[0], &map);
	if (rc || dq_input(s, map) >= 0) {
		free(kv[0]);
		return rc < 0 ? rc : 1;
	}
	/* map: the float input of the step last taken */
	for (; dq_input(s, map) < 0; count++) {
		const struct onnx_node *n = prod(s, map);
		int f = map;

		if (count == CHAIN_MAX) {
			rc = fail(s, "more than %d element-wise ops in float between two "
				  "quantisations", CHAIN_MAX);
			goto out;
		}
		if (!n || s->users[f] != 1) {
			rc = dq_source(s, f);
			goto out;
		}
		rc = chain_step(s, n, &steps[count], &kv[count], &map);
		if (rc) {
			rc = rc < 0 ? rc : dq_source(s, f);
			goto out;
		}
		s->used[n - s->g->nodes] = true;
	}
	for (size_t i = 0; i < count / 2; i++) {
		t = steps[i];
		steps[i] = steps[count - 1 - i];
		steps[count - 1 - i] = t;
		tk = kv[i];
		kv[i] = kv[count - 1 - i];
		kv[count - 1 - i] = tk;
	}
	in = dq_source(s, map);
	rc = in < 0 ? in : lut_op(s, op, in, steps, kv, count);
out:
	for (size_t i = 0; i < CHAIN_MAX; i++)
		free(kv[i]);
	return rc;
}

/* The per-channel w·x + b as an int8 depthwise 1×1 convolution: each
 * channel's one weight ±127 with scale |w| / 127 (w exactly), the bias in
 * units of the input scale × that. */
static int affine_q(struct imp *s, struct imp_op *op, int in, const float *w, const float *b,
		    unsigned int c)
{
	float in_scale = s->ig->tensors[in].scale;

	op->kind = IMP_CONV;
	op->in[0] = in;
	op->depthwise = true;
	op->kh = op->kw = op->stride_y = op->stride_x = 1;
	op->weights = malloc(c);
	op->w_scale = malloc(c * sizeof(float));
	op->bias = malloc(c * sizeof(int32_t));
	if (!op->weights || !op->w_scale || !op->bias)
		return -ENOMEM;
	op->w_scale_count = c;
	op->w_zp = 0;
	for (unsigned int k = 0; k < c; k++) {
		float ws = w[k] != 0.0f ? fabsf(w[k]) / W_MAX : 1.0f;
		double qw, qb;

		if (fabs((double)b[k] / ((double)in_scale * ws)) > BIAS_MAX)
			ws = (float)(fabs((double)b[k]) / ((double)in_scale * BIAS_MAX));
		qw = ws > 0.0f && isfinite(ws) ? nearbyint((double)w[k] / ws) : NAN;
		qb = nearbyint((double)b[k] / ((double)in_scale * ws));
		/* a scale or bias so far from the input's that float cannot hold it */
		if (!(fabs(qw) <= W_MAX) || !(fabs(qb) <= 2.0 * BIAS_MAX))
			return fail(s, "channel %u: scale %g and bias %g do not fit an int8 weight "
				    "and an int32 bias at input scale %g", k, (double)w[k],
				    (double)b[k], (double)in_scale);
		op->w_scale[k] = ws;
		op->weights[k] = (int8_t)qw;
		op->bias[k] = (int32_t)qb;
	}
	return 0;
}

/* The dq_source of a computed operand. */
static int q_map(struct imp *s, int f)
{
	return dq_source(s, f);
}

static int binary_q(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	struct operands o;
	const struct imp_tensor *y = &s->ig->tensors[op->out];
	const unsigned int out[3] = { y->c, y->h, y->w };
	float *w = NULL, *b = NULL;
	int rc = get_operands(s, p, q_map, &o);

	if (rc)
		goto out;
	if (!broadcast_ok(&o, out)) {
		rc = bad_broadcast(s, &o, out);
		goto out;
	}
	if (!o.k && o.binop == RKB_CPU_BIN_ADD && same_ext(o.a.ext, out) &&
	    same_ext(o.b.ext, out)) {
		/* the NPU's element-wise add */
		op->kind = IMP_ADD;
		op->in[0] = o.a.it;
		op->in[1] = o.b.it;
		if (op->act == LOWER_ACT_CLIP)
			rc = fail(s, "Add with a Clip other than ReLU / ReLU6");
		goto out;
	}
	if (o.k && same_ext(o.x->ext, out) && per_channel(o.k, out[0])) {
		bool k_first = o.k == &o.a, lin = true;

		w = malloc(out[0] * sizeof(float));
		b = malloc(out[0] * sizeof(float));
		if (!w || !b) {
			rc = -ENOMEM;
			goto out;
		}
		for (unsigned int c = 0; c < out[0] && lin; c++)
			lin = affine(o.binop, k_first, chan_val(o.k, c), &w[c], &b[c]);
		rc = lin ? affine_q(s, op, o.x->it, w, b, out[0]) :
		     lut_op(s, op, o.x->it, &(struct rkb_cpu_fn_step){ const_fn(o.binop, k_first),
								chan_val(o.k, 0), 0.0f },
			    (float *const[]){ o.k->ext[0] > 1 ? o.k->vals : NULL }, 1);
		goto out;
	}
	if (op->act != LOWER_ACT_NONE) {
		rc = fail(s, "an activation after a broadcasting %s is not fused into its CPU op",
			  p->op_type);
		goto out;
	}
	op->in[0] = o.x->it;
	if (!o.k)
		op->in[1] = o.b.it;
	rc = binary_params(op, o.binop, o.k, o.k == &o.a);
out:
	free(w);
	free(b);
	operands_free(&o);
	return rc;
}

int map_ewise_q(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	int32_t fn;
	float a, b;
	int rc, in;

	if (is_op(p, "BatchNormalization")) {
		float *w, *bb;

		in = dq_source(s, in_of(p, 0));
		if (in < 0)
			return in;
		rc = batchnorm_affine(s, p, s->ig->tensors[in].c, &w, &bb);
		if (!rc)
			rc = affine_q(s, op, in, w, bb, s->ig->tensors[in].c);
		free(w);
		free(bb);
		return rc;
	}
	rc = table_chain(s, op, p);
	if (rc <= 0)
		return rc;
	rc = unary_fn(s, p, &fn, &a, &b);
	if (rc < 0)
		return rc;
	if (rc)
		return binary_q(s, op, p);
	in = dq_source(s, in_of(p, 0));
	if (in < 0)
		return in;
	return lut_op(s, op, in, &(struct rkb_cpu_fn_step){ fn, a, b }, NULL, 1);
}

/* ---- fp16 ---- */

/* op as a Unary CPU op of fn with attributes a, b (its parameters). */
static int unary_params(struct imp_op *op, int32_t fn, float a, float b)
{
	uint8_t *p = malloc(RKB_CPU_UNARY_BYTES);

	if (!p)
		return -ENOMEM;
	memcpy(p, &fn, sizeof(fn));
	memcpy(p + sizeof(fn), &a, sizeof(a));
	memcpy(p + sizeof(fn) + sizeof(a), &b, sizeof(b));
	op->kind = IMP_CPU;
	op->cpu_type = "Unary";
	op->cpu_params = p;
	op->cpu_params_bytes = RKB_CPU_UNARY_BYTES;
	return 0;
}

/* The per-channel w·x + b as an fp16 depthwise 1×1 convolution. */
static int affine_f16(struct imp *s, const struct onnx_node *n, int in, const float *w,
		      const float *b, unsigned int c)
{
	struct imp_op *op = add_op(s, IMP_CONV);

	if (!op)
		return -ENOMEM;
	op->in[0] = in;
	op->depthwise = true;
	op->kh = op->kw = op->stride_y = op->stride_x = 1;
	op->weights_f16 = malloc(c * sizeof(uint16_t));
	op->bias_f = malloc(c * sizeof(float));
	if (!op->weights_f16 || !op->bias_f)
		return -ENOMEM;
	for (unsigned int k = 0; k < c; k++)
		op->weights_f16[k] = layout_f32_to_f16(w[k]);
	memcpy(op->bias_f, b, c * sizeof(float));
	return fp16_fuse_relu(s, op, n->out[0]);
}

/* A CPU op on fp16 maps (in, in2 or -1) writing n's output; the op. */
static struct imp_op *cpu_f16(struct imp *s, const struct onnx_node *n, int in, int in2,
			      int *rc)
{
	struct imp_op *op = add_op(s, IMP_CPU);

	*rc = -ENOMEM;
	if (!op)
		return NULL;
	op->in[0] = in;
	op->in[1] = in2;
	op->out = fp16_tensor(s, n->out[0]);
	*rc = op->out < 0 ? op->out : 0;
	return *rc ? NULL : op;
}

static int binary_f16(struct imp *s, const struct onnx_node *n)
{
	struct operands o;
	unsigned int out[3] = { 0 };
	float *w = NULL, *b = NULL;
	struct imp_op *op;
	int rc = get_operands(s, n, fp16_operand, &o);

	if (!rc)
		rc = extents(s, n->out[0], n->out[0], out, NULL);
	if (rc)
		goto out;
	if (!broadcast_ok(&o, out)) {
		rc = bad_broadcast(s, &o, out);
		goto out;
	}
	if (!o.k && o.binop == RKB_CPU_BIN_ADD && same_ext(o.a.ext, out) &&
	    same_ext(o.b.ext, out)) {
		rc = fp16_add(s, n, o.a.it, o.b.it);
		goto out;
	}
	if (o.k && same_ext(o.x->ext, out) && per_channel(o.k, out[0])) {
		bool k_first = o.k == &o.a, lin = true;

		w = malloc(out[0] * sizeof(float));
		b = malloc(out[0] * sizeof(float));
		if (!w || !b) {
			rc = -ENOMEM;
			goto out;
		}
		for (unsigned int c = 0; c < out[0] && lin; c++)
			lin = affine(o.binop, k_first, chan_val(o.k, c), &w[c], &b[c]);
		if (lin) {
			rc = affine_f16(s, n, o.x->it, w, b, out[0]);
			goto out;
		}
		if (o.k->ext[0] == 1) {
			op = cpu_f16(s, n, o.x->it, -1, &rc);
			if (op)
				rc = unary_params(op, const_fn(o.binop, k_first), o.k->vals[0], 0.0f);
			goto out;
		}
	}
	op = cpu_f16(s, n, o.x->it, o.k ? -1 : o.b.it, &rc);
	if (op)
		rc = binary_params(op, o.binop, o.k, o.k == &o.a);
out:
	free(w);
	free(b);
	operands_free(&o);
	return rc;
}

int map_ewise_fp16(struct imp *s, const struct onnx_node *n)
{
	struct imp_op *op;
	int32_t fn;
	float a, b;
	int rc, in;

	if (is_op(n, "BatchNormalization")) {
		float *w, *bb;

		in = fp16_operand(s, in_of(n, 0));
		if (in < 0)
			return in;
		rc = batchnorm_affine(s, n, s->ig->tensors[in].c, &w, &bb);
		if (!rc)
			rc = affine_f16(s, n, in, w, bb, s->ig->tensors[in].c);
		free(w);
		free(bb);
		return rc;
	}
	rc = unary_fn(s, n, &fn, &a, &b);
	if (rc < 0)
		return rc;
	if (rc)
		return binary_f16(s, n);
	in = fp16_operand(s, in_of(n, 0));
	if (in < 0)
		return in;
	op = cpu_f16(s, n, in, -1, &rc);
	if (op)
		rc = unary_params(op, fn, a, b);
	/* on the DPU's lookup table where it holds the function closely and
	 * its cube takes the map */
	if (!rc && rkb_npu_fn_ok(fn, a, b) &&
	    lower_eltwise_dims_ok(s->ig->tensors[in].h, s->ig->tensors[in].w,
				  s->ig->tensors[in].c))
		op->kind = IMP_LUT;
	return rc;
}
