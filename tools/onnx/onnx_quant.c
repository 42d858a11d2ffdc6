/* SPDX-License-Identifier: MIT */
/*
 * Calibration ranges and the QDQ graph (see onnx_quant.h). Operator
 * semantics of QuantizeLinear / DequantizeLinear are those of the ONNX
 * operator documents (opset 13: per-axis scales, saturation to the zero
 * point's type, round half to even).
 */
#include <errno.h>
#include <float.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/onnx/onnx_import.h"
#include "tools/onnx/onnx_quant.h"
#include "tools/onnx/onnx_ref.h"
#include "tools/onnx/onnx_shape.h"

#define QDQ_OPSET		13	/* per-axis DequantizeLinear */
#define LAYERNORM_OPSET		17	/* LayerNormalization */
#define ACT_LEVELS		255.0f	/* int8: -128 .. 127 */
#define WEIGHT_MAX		127.0f	/* symmetric int8 weights: -127 .. 127 */
/* The largest quantised bias: 2^30 leaves int32 room for the correction
 * -zp_in · Σw (at most 128 · 127 · K, K < 2^16) the lowering adds. */
#define BIAS_Q_MAX		1073741824.0f
/* A range narrower than this is widened: its scale would underflow the
 * DPU's multiplier derivation long before it mattered. */
#define MIN_RANGE		1e-6f

static int fail(char *err, size_t err_len, int code, const char *fmt, ...)
{
	va_list ap;

	if (err_len) {
		va_start(ap, fmt);
		vsnprintf(err, err_len, fmt, ap);
		va_end(ap);
	}
	return code;
}

/* ---- calibration ---- */

int onnx_ranges_init(struct onnx_ranges *r, const struct onnx_graph *g)
{
	r->n = g->n_tensors;
	r->samples = 0;
	r->percentile = 0;
	r->min = malloc((r->n + 1) * sizeof(float));
	r->max = malloc((r->n + 1) * sizeof(float));
	r->sum_lo = calloc(r->n + 1, sizeof(double));
	r->sum_hi = calloc(r->n + 1, sizeof(double));
	r->sum = calloc(r->n + 1, sizeof(double));
	r->sum_sq = calloc(r->n + 1, sizeof(double));
	r->count = calloc(r->n + 1, sizeof(double));
	if (!r->min || !r->max || !r->sum_lo || !r->sum_hi || !r->sum || !r->sum_sq ||
	    !r->count) {
		onnx_ranges_free(r);
		return -ENOMEM;
	}
	for (size_t i = 0; i < r->n; i++) {
		r->min[i] = FLT_MAX;
		r->max[i] = -FLT_MAX;
	}
	return 0;
}

void onnx_ranges_free(struct onnx_ranges *r)
{
	free(r->min);
	free(r->max);
	free(r->sum_lo);
	free(r->sum_hi);
	free(r->sum);
	free(r->sum_sq);
	free(r->count);
	r->min = r->max = NULL;
	r->sum_lo = r->sum_hi = r->sum = r->sum_sq = r->count = NULL;
	r->n = 0;
}

static int node_weight(const struct onnx_graph *g, const struct onnx_node *n, int *axis);
static int node_bias(const struct onnx_graph *g, const struct onnx_node *n);

/* The weights and biases quantisation will take: a NaN or infinity has no
 * int8 (int32) value, and would leave every range after it undefined. */
static int finite_constants(const struct onnx_graph *g, char *err, size_t err_len)
{
	for (size_t k = 0; k < g->n_nodes; k++) {
		const struct onnx_node *n = &g->nodes[k];
		int axis, ts[2] = { node_weight(g, n, &axis), node_bias(g, n) };

		for (int j = 0; j < 2; j++) {
			const struct onnx_tensor *c = ts[j] >= 0 ? &g->tensors[ts[j]] : NULL;

			for (size_t i = 0; c && i < c->count; i++)
				if (!isfinite(((const float *)c->data)[i]))
					return fail(err, err_len, -EINVAL, "node '%s' (%s): %s '%s' "
						    "holds %g at %zu: not a finite number", n->name,
						    n->op_type, j ? "bias" : "weights", c->name,
						    (double)((const float *)c->data)[i], i);
		}
	}
	return 0;
}

static int cmp_float(const void *a, const void *b)
{
	float x = *(const float *)a, y = *(const float *)b;

	return (x > y) - (x < y);
}

/* Averages this batch's percentiles of tensor t's n values into its range
 * (the values are finite: checked by the caller). */
static int percentile_range(struct onnx_ranges *r, size_t t, const float *v, size_t n)
{
	float *s = malloc(n * sizeof(float));
	double tail = (100.0 - (double)r->percentile) / 100.0;
	size_t lo, hi;

	if (!s)
		return -ENOMEM;
	memcpy(s, v, n * sizeof(float));
	qsort(s, n, sizeof(float), cmp_float);
	lo = (size_t)(tail * (double)(n - 1));
	hi = n - 1 - lo;
	r->sum_lo[t] += s[lo];
	r->sum_hi[t] += s[hi];
	r->min[t] = (float)(r->sum_lo[t] / (double)(r->samples + 1));
	r->max[t] = (float)(r->sum_hi[t] / (double)(r->samples + 1));
	free(s);
	return 0;
}

int onnx_calibrate(const struct onnx_graph *g, const float *const *inputs,
		   struct onnx_ranges *r, char *err, size_t err_len)
{
	struct onnx_ref v;
	int rc = r->samples ? 0 : finite_constants(g, err, err_len);

	if (!rc)
		rc = onnx_ref_run(g, inputs, &v, err, err_len);
	if (rc)
		return rc;
	for (size_t t = 0; !rc && t < g->n_tensors; t++) {
		size_t n;

		if (!v.val[t] || g->tensors[t].role == ONNX_TENSOR_CONSTANT)
			continue;
		n = onnx_tensor_count(&g->tensors[t]);
		for (size_t i = 0; !rc && i < n; i++) {
			if (!isfinite(v.val[t][i]))
				rc = fail(err, err_len, -EINVAL, "tensor '%s' takes the value %g: "
					  "calibration needs finite inputs and results",
					  g->tensors[t].name, (double)v.val[t][i]);
			if (r->percentile <= 0) {
				r->min[t] = fminf(r->min[t], v.val[t][i]);
				r->max[t] = fmaxf(r->max[t], v.val[t][i]);
			}
			r->sum[t] += v.val[t][i];
			r->sum_sq[t] += (double)v.val[t][i] * v.val[t][i];
		}
		r->count[t] += (double)n;
		if (!rc && r->percentile > 0 && n)
			rc = percentile_range(r, t, v.val[t], n);
	}
	if (!rc)
		r->samples++;
	onnx_ref_free(&v);
	return rc;
}

/* ---- a growable graph ---- */

struct qb {
	struct onnx_graph *q;
	size_t cap_t, cap_n;
	char *err;
	size_t err_len;
};

static int qb_grow(struct qb *b)
{
	if (b->q->n_tensors == b->cap_t) {
		size_t cap = b->cap_t ? 2 * b->cap_t : 64;
		struct onnx_tensor *t = realloc(b->q->tensors, cap * sizeof(*t));

		if (!t)
			return -ENOMEM;
		b->q->tensors = t;
		b->cap_t = cap;
	}
	if (b->q->n_nodes == b->cap_n) {
		size_t cap = b->cap_n ? 2 * b->cap_n : 64;
		struct onnx_node *n = realloc(b->q->nodes, cap * sizeof(*n));

		if (!n)
			return -ENOMEM;
		b->q->nodes = n;
		b->cap_n = cap;
	}
	return 0;
}

static char *name_with(const char *base, const char *suffix)
{
	size_t a = strlen(base), s = strlen(suffix);
	char *n = malloc(a + s + 1);

	if (n) {
		memcpy(n, base, a);
		memcpy(n + a, suffix, s + 1);
	}
	return n;
}

/* Adds a tensor; takes ownership of `data`. Returns its index or -ENOMEM. */
static int qb_tensor(struct qb *b, const char *base, const char *suffix,
		     enum onnx_tensor_role role, int32_t dtype, int rank, const int64_t *dims,
		     void *data, size_t count)
{
	struct onnx_tensor *t;

	if (qb_grow(b)) {
		free(data);
		return -ENOMEM;
	}
	t = &b->q->tensors[b->q->n_tensors];
	memset(t, 0, sizeof(*t));
	t->name = name_with(base, suffix);
	if (!t->name) {
		free(data);
		return -ENOMEM;
	}
	t->role = role;
	t->dtype = dtype;
	t->rank = rank;
	if (rank > 0)
		memcpy(t->dims, dims, (size_t)rank * sizeof(*dims));
	t->data = data;
	t->count = count;
	return (int)b->q->n_tensors++;
}

/* A scalar or 1-D constant of `n` elements of size `es` copied from `v`. */
static int qb_const(struct qb *b, const char *base, const char *suffix, int32_t dtype,
		    const void *v, size_t n, size_t es, bool vector)
{
	void *d = malloc(n * es);
	int64_t dim = (int64_t)n;

	if (!d)
		return -ENOMEM;
	memcpy(d, v, n * es);
	return qb_tensor(b, base, suffix, ONNX_TENSOR_CONSTANT, dtype, vector ? 1 : 0, &dim, d, n);
}

/* Adds a node; `attr` (optional) is one INT attribute. */
static int qb_node(struct qb *b, const char *op, const int *in, size_t n_in, int out,
		   const char *attr, int64_t attr_value)
{
	struct onnx_node *n;

	if (qb_grow(b))
		return -ENOMEM;
	n = &b->q->nodes[b->q->n_nodes];
	memset(n, 0, sizeof(*n));
	b->q->n_nodes++;
	n->name = name_with(b->q->tensors[out].name, "_node");
	n->op_type = name_with(op, "");
	n->domain = name_with("", "");
	n->in = malloc(n_in * sizeof(int));
	n->out = malloc(sizeof(int));
	n->attr = calloc(1, sizeof(*n->attr));
	if (!n->name || !n->op_type || !n->domain || !n->in || !n->out || !n->attr)
		return -ENOMEM;
	memcpy(n->in, in, n_in * sizeof(int));
	n->n_in = n_in;
	n->out[0] = out;
	n->n_out = 1;
	if (attr) {
		n->attr[0].name = name_with(attr, "");
		if (!n->attr[0].name)
			return -ENOMEM;
		n->attr[0].type = ONNX_ATTR_INT;
		n->attr[0].i = attr_value;
		n->n_attr = 1;
	}
	return 0;
}

/* Copies a node of the source graph with remapped tensor indices. */
static int qb_copy_node(struct qb *b, const struct onnx_node *s, const int *cname,
			const int *pname)
{
	struct onnx_node *n;

	if (qb_grow(b))
		return -ENOMEM;
	n = &b->q->nodes[b->q->n_nodes];
	memset(n, 0, sizeof(*n));
	b->q->n_nodes++;
	n->name = name_with(s->name, "");
	n->op_type = name_with(s->op_type, "");
	n->domain = name_with(s->domain, "");
	n->in = malloc((s->n_in + 1) * sizeof(int));
	n->out = malloc((s->n_out + 1) * sizeof(int));
	n->attr = calloc(s->n_attr + 1, sizeof(*n->attr));
	if (!n->name || !n->op_type || !n->domain || !n->in || !n->out || !n->attr)
		return -ENOMEM;
	for (size_t i = 0; i < s->n_in; i++)
		n->in[i] = s->in[i] < 0 ? -1 : cname[s->in[i]];
	for (size_t i = 0; i < s->n_out; i++)
		n->out[i] = s->out[i] < 0 ? -1 : pname[s->out[i]];
	n->n_in = s->n_in;
	n->n_out = s->n_out;
	for (size_t i = 0; i < s->n_attr; i++) {
		const struct onnx_attr *a = &s->attr[i];
		struct onnx_attr *d = &n->attr[i];

		n->n_attr++;
		*d = *a;
		d->name = name_with(a->name, "");
		d->s = a->s ? name_with(a->s, "") : NULL;
		d->ints = NULL;
		d->floats = NULL;
		d->t = NULL;
		if (a->ints && (d->ints = malloc((a->n + 1) * sizeof(int64_t))))
			memcpy(d->ints, a->ints, a->n * sizeof(int64_t));
		if (a->floats && (d->floats = malloc((a->n + 1) * sizeof(float))))
			memcpy(d->floats, a->floats, a->n * sizeof(float));
		if (!d->name || (a->s && !d->s) || (a->ints && !d->ints) ||
		    (a->floats && !d->floats))
			return -ENOMEM;
		if (a->type == ONNX_ATTR_TENSOR)
			return fail(b->err, b->err_len, -ENOTSUP, "node '%s' (%s): tensor "
				    "attributes are not carried into the QDQ graph", s->name,
				    s->op_type);
	}
	return 0;
}

/* ---- what gets quantised, and how ---- */

struct qparam {
	bool on;
	float scale;
	int8_t zp;
};

static bool op_is(const struct onnx_node *n, const char *op)
{
	return !strcmp(n->op_type, op);
}

/* Ops whose outputs keep the parameters of their input 0: pooling, views,
 * and the ops that move pixels (a Resize's linear mix stays inside its
 * input's range, so it keeps them too); the int8 result of a move is then
 * the exact rearrangement of the int8 input. */
static bool keeps_input_params(const struct onnx_node *n)
{
	return op_is(n, "MaxPool") || op_is(n, "AveragePool") || op_is(n, "GlobalAveragePool") ||
	       op_is(n, "GlobalMaxPool") || op_is(n, "Reshape") || op_is(n, "Flatten") ||
	       op_is(n, "Transpose") || op_is(n, "Identity") || op_is(n, "Dropout") ||
	       op_is(n, "Resize") || op_is(n, "DepthToSpace") || op_is(n, "SpaceToDepth") ||
	       op_is(n, "Split") || op_is(n, "Slice") || op_is(n, "Pad") ||
	       op_is(n, "Gather") || op_is(n, "Squeeze") || op_is(n, "Unsqueeze");
}

/* A function of one computed map that the importer makes a 256-entry
 * table of (import_ewise.c: one per channel when a constant is), and the
 * map's input index: an activation, or an element-wise op with a constant
 * of one value or one per channel. -1 otherwise. */
static int table_op(const struct onnx_graph *g, const struct onnx_node *n)
{
	enum onnx_table_kind kind = onnx_import_table_kind(n);

	if (kind == ONNX_TABLE_UNARY)
		return n->n_in >= 1 && n->in[0] >= 0 ? 0 : -1;
	if (kind == ONNX_TABLE_BINARY && n->n_in == 2 && n->in[0] >= 0 && n->in[1] >= 0) {
		for (int k = 0; k < 2; k++) {
			const struct onnx_tensor *c = &g->tensors[n->in[k]];
			const struct onnx_tensor *x = &g->tensors[n->in[1 - k]];
			/* one value per channel of an [N, C, H, W] map */
			bool per_channel = x->rank == 4 && c->count == (size_t)x->dims[1] &&
					   ((c->rank == 4 && c->dims[1] == x->dims[1]) ||
					    (c->rank == 3 && c->dims[0] == x->dims[1]));

			if (c->role == ONNX_TENSOR_CONSTANT && c->dtype == ONNX_DT_FLOAT &&
			    (c->count == 1 || per_channel) && x->role != ONNX_TENSOR_CONSTANT)
				return 1 - k;
		}
	}
	return -1;
}

/* An op a following Relu / Clip fuses into: a convolution (a MatMul of
 * [M, K] rows too), or an add of two maps of one shape (the NPU's; a
 * broadcasting add is a CPU op, which takes no activation). */
static bool fusible_producer(const struct onnx_graph *g, const struct onnx_node *n)
{
	const struct onnx_tensor *a, *b;

	/* a MatMul of rank-3/4 maps is a CPU op, which takes no activation */
	if (op_is(n, "Conv") || op_is(n, "Gemm") || op_is(n, "ConvTranspose") ||
	    (op_is(n, "MatMul") && n->in[0] >= 0 && g->tensors[n->in[0]].rank <= 2))
		return true;
	if (!op_is(n, "Add") || n->n_in != 2 || n->in[0] < 0 || n->in[1] < 0)
		return false;
	a = &g->tensors[n->in[0]];
	b = &g->tensors[n->in[1]];
	if (a->rank != b->rank)
		return false;
	for (int i = 0; i < a->rank; i++)
		if (a->dims[i] != b->dims[i])
			return false;
	return true;
}

/* The smallest power of two >= v (v > 0, normal). */
static float pow2_ceil(float v)
{
	int e;
	float m = frexpf(v, &e);	/* v = m · 2^e, m in [0.5, 1) */

	return ldexpf(1.0f, m == 0.5f ? e - 1 : e);
}

static struct qparam act_param(float lo, float hi, bool pow2)
{
	struct qparam p = { .on = true };
	float zp;

	lo = fminf(lo, 0.0f);
	hi = fmaxf(hi, 0.0f);
	if (hi - lo < MIN_RANGE)
		hi = lo + MIN_RANGE;
	p.scale = (hi - lo) / ACT_LEVELS;
	if (pow2)
		p.scale = pow2_ceil(p.scale);
	zp = nearbyintf(-128.0f - lo / p.scale);
	p.zp = (int8_t)fminf(fmaxf(zp, -128.0f), 127.0f);
	return p;
}

/* Weight input index and its output-channel axis, or -1 when the node has
 * no weights to quantise. */
static int weight_axis(const struct onnx_node *n, int *axis)
{
	if (op_is(n, "Conv")) {
		*axis = 0;
		return 1;
	}
	/* [C_in, C_out / group, kh, kw]: per output channel */
	if (op_is(n, "ConvTranspose")) {
		*axis = 1;
		return 1;
	}
	if (op_is(n, "Gemm")) {
		*axis = onnx_attr_int(n, "transB", 0) ? 0 : 1;
		return 1;
	}
	if (op_is(n, "MatMul")) {
		*axis = 1;
		return 1;
	}
	return -1;
}

/* The constant float weights of n (rank >= 2) and their channel axis, or -1. */
static int node_weight(const struct onnx_graph *g, const struct onnx_node *n, int *axis)
{
	int wi = weight_axis(n, axis);
	const struct onnx_tensor *w;

	if (wi < 0 || (size_t)wi >= n->n_in || n->in[wi] < 0)
		return -1;
	w = &g->tensors[n->in[wi]];
	return w->role == ONNX_TENSOR_CONSTANT && w->dtype == ONNX_DT_FLOAT && w->rank >= 2
		       ? n->in[wi] : -1;
}

/* The constant float bias of n, one value per weight channel, or -1. */
static int node_bias(const struct onnx_graph *g, const struct onnx_node *n)
{
	int axis, w = node_weight(g, n, &axis);
	const struct onnx_tensor *b;

	if (w < 0 || n->n_in < 3 || n->in[2] < 0)
		return -1;
	b = &g->tensors[n->in[2]];
	return b->role == ONNX_TENSOR_CONSTANT && b->dtype == ONNX_DT_FLOAT && b->rank == 1 &&
			       b->count == (size_t)g->tensors[w].dims[axis]
		       ? n->in[2] : -1;
}

struct quant {
	const struct onnx_graph *g;
	const struct onnx_ranges *r;
	const struct onnx_quant_opts *o;
	bool pow2;		/* scales rounded up to powers of two */
	bool *fp16;		/* per source node: left in float (keep_float) */
	struct qb b;
	struct qparam *qp;	/* per source tensor */
	int *cname, *pname;	/* source tensor → tensor consumers read / producer writes */
	int *users;		/* nodes reading each source tensor */
};

/*
 * The interval a function's values lie in, for the ones bounded on both
 * sides. A percentile range cuts the top of such a map where few values
 * reach it (a text detector's probability map on a photograph with little
 * text: [0, 0.69] for PP-OCRv4 det), and every score above that is then
 * lost; the interval keeps them, as TFLite's int8 spec fixes Logistic's
 * output to [0, 1] (tensorflow.org/lite/performance/quantization_spec).
 */
static bool bounded_values(const struct onnx_node *n, float *lo, float *hi)
{
	*lo = op_is(n, "Tanh") ? -1.0f : 0.0f;
	*hi = 1.0f;
	return op_is(n, "Sigmoid") || op_is(n, "HardSigmoid") || op_is(n, "Softmax") ||
	       op_is(n, "Tanh");
}

/* The parameters of output t of node i: none when a Relu / Clip after it
 * is fused (its output is quantised instead) or when it and its one reader
 * are table ops (one table takes both), its input's when the op keeps
 * them, a bounded function's interval with percentile ranges, else from
 * the calibration range. */
static int plan_output(struct quant *s, size_t i, int t)
{
	const struct onnx_graph *g = s->g;
	const struct onnx_node *n = &g->nodes[i];
	float lo, hi;

	if (t < 0 || g->tensors[t].dtype != ONNX_DT_FLOAT)
		return 0;
	if ((fusible_producer(g, n) || table_op(g, n) >= 0) && s->users[t] == 1 &&
	    !g->tensors[t].is_output)
		for (size_t j = i + 1; j < g->n_nodes; j++) {
			const struct onnx_node *u = &g->nodes[j];
			int m = table_op(g, u);

			if (u->n_in && u->in[0] == t && (op_is(u, "Relu") || op_is(u, "Clip")))
				return 0;
			/* a chain of table ops is one table: no rounding between */
			if (table_op(g, n) >= 0 && m >= 0 && u->in[m] == t)
				return 0;
		}
	if (keeps_input_params(n) && n->in[0] >= 0 && s->qp[n->in[0]].on)
		s->qp[t] = s->qp[n->in[0]];
	else if (s->r->percentile > 0 && bounded_values(n, &lo, &hi))
		s->qp[t] = act_param(lo, hi, s->pow2);
	else if (s->r->min[t] <= s->r->max[t])
		s->qp[t] = act_param(s->r->min[t], s->r->max[t], s->pow2);
	else
		return fail(s->b.err, s->b.err_len, -EINVAL, "tensor '%s' was never computed "
			    "during calibration", g->tensors[t].name);
	return 0;
}

/* The node computing tensor t, or -1. */
static int producer_of(const struct onnx_graph *g, int t)
{
	for (size_t i = 0; t >= 0 && i < g->n_nodes; i++)
		for (size_t k = 0; k < g->nodes[i].n_out; k++)
			if (g->nodes[i].out[k] == t)
				return (int)i;
	return -1;
}

/*
 * A Concat's inputs computed for it alone take its output's parameters
 * (whose range holds theirs): the Concat then only moves int8 values, and
 * the maps' producers can write them straight into the output
 * (onnx_import). Inputs that others read, graph inputs and inputs whose
 * parameters are their own input's (pools, views) keep theirs.
 */
static void share_concat_params(struct quant *s, const struct onnx_node *n)
{
	const struct onnx_graph *g = s->g;
	int out = n->out[0];

	if (out < 0 || !s->qp[out].on)
		return;
	for (size_t k = 0; k < n->n_in; k++) {
		int t = n->in[k], pi = producer_of(g, t);
		const struct onnx_node *p = pi >= 0 ? &g->nodes[pi] : NULL;

		if (p && s->qp[t].on && s->users[t] == 1 && !g->tensors[t].is_output &&
		    !keeps_input_params(p))
			s->qp[t] = s->qp[out];
	}
}

/* Marks the activations to quantise and their parameters, in node order. */
static int plan(struct quant *s)
{
	const struct onnx_graph *g = s->g;

	for (size_t i = 0; i < g->n_nodes; i++)
		for (size_t k = 0; k < g->nodes[i].n_in; k++)
			if (g->nodes[i].in[k] >= 0)
				s->users[g->nodes[i].in[k]]++;

	for (size_t i = 0; i < g->n_inputs; i++) {
		int t = g->inputs[i];

		if (g->tensors[t].dtype == ONNX_DT_FLOAT)
			s->qp[t] = act_param(s->r->min[t], s->r->max[t], s->pow2);
	}
	for (size_t i = 0; i < g->n_nodes; i++)
		for (size_t k = 0; k < g->nodes[i].n_out; k++) {
			int rc = plan_output(s, i, g->nodes[i].out[k]);

			if (rc)
				return rc;
		}
	for (size_t i = 0; i < g->n_nodes; i++)
		if (op_is(&g->nodes[i], "Concat"))
			share_concat_params(s, &g->nodes[i]);
	return 0;
}

/* ---- hybrid quantisation (onnx_quant_opts.keep_float) ---- */

/* Signal-to-quantisation-noise of activation t: its variance over the
 * calibration values against the noise of a uniform step, scale² / 12. */
static double act_sqnr(const struct quant *s, int t)
{
	const struct onnx_ranges *r = s->r;
	double mean = r->sum[t] / r->count[t];
	double var = r->sum_sq[t] / r->count[t] - mean * mean;
	double step = s->qp[t].scale;

	return var / (step * step / 12.0);
}

/* Whether t is an activation computed by a node that the plan quantises. */
static bool quantised_activation(const struct quant *s, int t)
{
	const struct onnx_tensor *x = &s->g->tensors[t];

	return s->qp[t].on && x->role == ONNX_TENSOR_ACTIVATION && s->r->count[t] > 0;
}

/* A computed tensor that is not quantised joins the nodes around it into
 * one op (a convolution and the activation after it, a chain of tables),
 * which the importer takes whole. */
static bool unquantised_link(const void *ctx, int t)
{
	const struct quant *s = ctx;

	return !s->qp[t].on && s->g->tensors[t].role == ONNX_TENSOR_ACTIVATION;
}

/* Leaves tensor t in float: its producer and readers are marked fp16
 * (keep_float grows the marks to their groups). */
static void keep_tensor_float(struct quant *s, int t)
{
	const struct onnx_graph *g = s->g;
	int p = producer_of(g, t);

	s->qp[t].on = false;
	if (p >= 0)
		s->fp16[p] = true;
	for (size_t j = 0; j < g->n_nodes; j++)
		for (size_t k = 0; k < g->nodes[j].n_in; k++)
			if (g->nodes[j].in[k] == t)
				s->fp16[j] = true;
}

/* The named activations, then the keep_float_auto of lowest SQNR. */
static int keep_float(struct quant *s)
{
	const struct onnx_graph *g = s->g;
	const struct onnx_quant_opts *o = s->o;
	size_t candidates = 0;
	int rc;

	if (!o->n_keep_float && !o->keep_float_auto)
		return 0;
	for (size_t t = 0; t < g->n_tensors; t++)
		candidates += quantised_activation(s, (int)t);
	if (o->keep_float_auto > candidates)
		return fail(s->b.err, s->b.err_len, -EINVAL, "--keep-float-auto %u: the graph "
			    "has %zu quantised activations", o->keep_float_auto, candidates);
	for (size_t i = 0; i < o->n_keep_float; i++) {
		int t = onnx_graph_find(g, o->keep_float[i]);

		if (t < 0 || !quantised_activation(s, t))
			return fail(s->b.err, s->b.err_len, -EINVAL, "--keep-float %s: %s",
				    o->keep_float[i], t < 0 ? "no tensor of the graph has that name"
				    : "not a quantised activation (a graph input, a constant, or "
				      "fused into the op that reads it)");
		keep_tensor_float(s, t);
	}
	for (unsigned int n = 0; n < o->keep_float_auto; n++) {
		int worst = -1;

		for (size_t t = 0; t < g->n_tensors; t++)
			if (quantised_activation(s, (int)t) &&
			    (worst < 0 || act_sqnr(s, (int)t) < act_sqnr(s, worst)))
				worst = (int)t;
		if (worst >= 0)
			keep_tensor_float(s, worst);
	}
	rc = onnx_mark_joined(g, s->fp16, unquantised_link, NULL, s);
	if (rc)
		return rc;
	/* a tensor only float ops compute and read, and an input only float
	 * ops read, reach them as they are */
	for (size_t t = 0; t < g->n_tensors; t++) {
		int p = producer_of(g, (int)t);
		bool float_only = s->qp[t].on && (p >= 0 ? s->fp16[p] :
						  g->tensors[t].role == ONNX_TENSOR_INPUT);

		for (size_t j = 0; float_only && j < g->n_nodes; j++)
			for (size_t k = 0; k < g->nodes[j].n_in; k++)
				if (g->nodes[j].in[k] == (int)t && !s->fp16[j])
					float_only = false;
		if (float_only && !g->tensors[t].is_output)
			s->qp[t].on = false;
	}
	return 0;
}

/* Q and DQ after the activation `t`: producer → pname, DQ → cname. */
static int emit_qdq(struct quant *s, int t)
{
	const struct onnx_tensor *src = &s->g->tensors[t];
	const struct qparam *p = &s->qp[t];
	int sc, zp, qt, in[3], rc;

	sc = qb_const(&s->b, src->name, "_scale", ONNX_DT_FLOAT, &p->scale, 1, 4, false);
	zp = qb_const(&s->b, src->name, "_zero_point", ONNX_DT_INT8, &p->zp, 1, 1, false);
	if (sc < 0 || zp < 0)
		return -ENOMEM;
	qt = qb_tensor(&s->b, src->name, "_quantized", ONNX_TENSOR_ACTIVATION, ONNX_DT_INT8,
		       src->rank, src->dims, NULL, 0);
	if (qt < 0)
		return qt;
	in[0] = s->pname[t];
	in[1] = sc;
	in[2] = zp;
	rc = qb_node(&s->b, "QuantizeLinear", in, 3, qt, NULL, 0);
	if (rc)
		return rc;
	in[0] = qt;
	return qb_node(&s->b, "DequantizeLinear", in, 3, s->cname[t], NULL, 0);
}

/*
 * Weights (and the bias) of node n as int8 (int32) constants behind a
 * per-axis DequantizeLinear whose output takes the constant's name.
 */
static int emit_weights(struct quant *s, const struct onnx_node *n)
{
	const struct onnx_graph *g = s->g;
	int axis, wt = node_weight(g, n, &axis), bt = node_bias(g, n), in[3], rc;
	const struct onnx_tensor *w, *bias;
	size_t ch, inner, outer;
	float *scale;
	int8_t *q, *zp8;

	if (wt < 0)
		return 0;	/* activation × activation products stay as they are */
	w = &g->tensors[wt];
	if (n->in[0] < 0 || !s->qp[n->in[0]].on)
		return fail(s->b.err, s->b.err_len, -ENOTSUP, "node '%s' (%s): its input is not "
			    "quantised", n->name, n->op_type);
	ch = (size_t)w->dims[axis];
	outer = 1;
	for (int i = 0; i < axis; i++)
		outer *= (size_t)w->dims[i];
	inner = w->count / outer / ch;
	scale = calloc(ch, sizeof(float));
	q = malloc(w->count);
	zp8 = calloc(ch, 1);
	if (!scale || !q || !zp8) {
		free(scale);
		free(q);
		free(zp8);
		return -ENOMEM;
	}
	for (size_t o = 0; o < outer; o++)
		for (size_t c = 0; c < ch; c++)
			for (size_t i = 0; i < inner; i++)
				scale[c] = fmaxf(scale[c], fabsf(((const float *)w->data)[(o * ch + c) * inner + i]));
	bias = bt >= 0 ? &g->tensors[bt] : NULL;
	for (size_t c = 0; c < ch; c++) {
		/* a channel of zeros, or of weights below float's normal range
		 * (pruned: PaddlePaddle exports leave denormals), gets scale 1
		 * and quantises to zeros: its scale must be a normal number */
		scale[c] = scale[c] / WEIGHT_MAX >= FLT_MIN ? scale[c] / WEIGHT_MAX : 1.0f;
		/* A channel whose weights are tiny beside its bias (a dead
		 * channel, a folded affine) would need a bias past int32: the
		 * weight scale widens until the bias fits with room for the
		 * input zero point's correction (onnxruntime's quantiser does
		 * the same). */
		if (bias && s->qp[n->in[0]].scale > 0)
			scale[c] = fmaxf(scale[c], fabsf(((const float *)bias->data)[c]) /
						   (s->qp[n->in[0]].scale * BIAS_Q_MAX));
		if (s->pow2)
			scale[c] = pow2_ceil(scale[c]);
	}
	for (size_t o = 0; o < outer; o++)
		for (size_t c = 0; c < ch; c++)
			for (size_t i = 0; i < inner; i++) {
				size_t at = (o * ch + c) * inner + i;

				float v = nearbyintf(((const float *)w->data)[at] / scale[c]);

				/* a subnormal scale rounds, and the quotient may pass 127 */
				q[at] = (int8_t)(v > WEIGHT_MAX ? WEIGHT_MAX : v < -WEIGHT_MAX ? -WEIGHT_MAX : v);
			}

	in[0] = qb_tensor(&s->b, w->name, "_quantized", ONNX_TENSOR_CONSTANT, ONNX_DT_INT8,
			  w->rank, w->dims, q, w->count);
	in[1] = qb_const(&s->b, w->name, "_scale", ONNX_DT_FLOAT, scale, ch, 4, true);
	in[2] = qb_const(&s->b, w->name, "_zero_point", ONNX_DT_INT8, zp8, ch, 1, true);
	free(zp8);
	if (in[0] < 0 || in[1] < 0 || in[2] < 0) {
		free(scale);
		return -ENOMEM;
	}
	rc = qb_node(&s->b, "DequantizeLinear", in, 3, s->cname[wt], "axis", axis);

	if (!rc && bias) {
		float s_in = s->qp[n->in[0]].scale;
		int32_t *bq = malloc(ch * sizeof(int32_t)), *zp32 = calloc(ch, sizeof(int32_t));
		float *bs = malloc(ch * sizeof(float));

		if (!bq || !zp32 || !bs) {
			free(bq);
			free(zp32);
			free(bs);
			free(scale);
			return -ENOMEM;
		}
		for (size_t c = 0; c < ch; c++) {
			double v = nearbyint((double)((const float *)bias->data)[c] / ((double)s_in * scale[c]));

			bs[c] = s_in * scale[c];
			bq[c] = (int32_t)fmin(fmax(v, -2147483647.0), 2147483647.0);
		}
		in[0] = qb_tensor(&s->b, bias->name, "_quantized", ONNX_TENSOR_CONSTANT,
				  ONNX_DT_INT32, bias->rank, bias->dims, bq, ch);
		in[1] = qb_const(&s->b, bias->name, "_scale", ONNX_DT_FLOAT, bs, ch, 4, true);
		in[2] = qb_const(&s->b, bias->name, "_zero_point", ONNX_DT_INT32, zp32, ch, 4, true);
		free(bs);
		free(zp32);
		rc = in[0] < 0 || in[1] < 0 || in[2] < 0
			     ? -ENOMEM
			     : qb_node(&s->b, "DequantizeLinear", in, 3, s->cname[bt], "axis", 0);
	}
	free(scale);
	return rc;
}

/*
 * HardSwish and Swish as older opsets spell them, x · HardSigmoid(x)
 * (alpha 1/6, beta 1/2: HardSwish's definition) and x · Sigmoid(x), the
 * gate in float between the same DequantizeLinear and QuantizeLinear: the
 * file stays at opset 13 for onnxruntime (HardSwish needs 14, Swish 24),
 * and the fold (onnx_fold.c) makes each one node again when it is compiled.
 */
static int emit_gated(struct quant *s, const struct onnx_node *n)
{
	const struct onnx_tensor *y = &s->g->tensors[n->out[0]];
	bool hard = op_is(n, "HardSwish");
	int in[2] = { s->cname[n->in[0]], -1 }, rc;

	in[1] = qb_tensor(&s->b, y->name, "_gate", ONNX_TENSOR_ACTIVATION, ONNX_DT_FLOAT, y->rank,
			  y->dims, NULL, 0);
	if (in[1] < 0)
		return in[1];
	rc = qb_node(&s->b, hard ? "HardSigmoid" : "Sigmoid", in, 1, in[1], NULL, 0);
	if (!rc && hard) {
		struct onnx_attr *a = &s->b.q->nodes[s->b.q->n_nodes - 1].attr[0];

		a->name = name_with("alpha", "");
		a->type = ONNX_ATTR_FLOAT;
		a->f = 1.0f / 6.0f;
		s->b.q->nodes[s->b.q->n_nodes - 1].n_attr = 1;
		if (!a->name)
			rc = -ENOMEM;
	}
	return rc ? rc : qb_node(&s->b, "Mul", in, 2, s->pname[n->out[0]], NULL, 0);
}

/* Gelu's opset. */
#define GELU_OPSET	20

/*
 * Gelu (the exact, erf form) as opsets before 20 spell it, x · 0.5 · (1 +
 * Erf(x / √2)), in float between the same DequantizeLinear and
 * QuantizeLinear: for onnxruntime, as emit_gated; the fold makes it one
 * node again when the file is compiled.
 */
static int emit_gelu(struct quant *s, const struct onnx_node *n)
{
	const struct onnx_tensor *y = &s->g->tensors[n->out[0]];
	const float k[3] = { (float)M_SQRT2, 1.0f, 0.5f };
	const char *const part[4] = { "_gelu_div", "_gelu_erf", "_gelu_add", "_gelu_mul" };
	int c[3], t[4], x = s->cname[n->in[0]], rc = 0;

	for (int i = 0; i < 3; i++) {
		c[i] = qb_const(&s->b, y->name, i == 0 ? "_sqrt2" : i == 1 ? "_one" : "_half",
				ONNX_DT_FLOAT, &k[i], 1, sizeof(float), false);
		if (c[i] < 0)
			return c[i];
	}
	for (int i = 0; i < 4; i++) {
		t[i] = qb_tensor(&s->b, y->name, part[i], ONNX_TENSOR_ACTIVATION, ONNX_DT_FLOAT,
				 y->rank, y->dims, NULL, 0);
		if (t[i] < 0)
			return t[i];
	}
	rc = qb_node(&s->b, "Div", (int[]){ x, c[0] }, 2, t[0], NULL, 0);
	if (!rc)
		rc = qb_node(&s->b, "Erf", &t[0], 1, t[1], NULL, 0);
	if (!rc)
		rc = qb_node(&s->b, "Add", (int[]){ t[1], c[1] }, 2, t[2], NULL, 0);
	if (!rc)
		rc = qb_node(&s->b, "Mul", (int[]){ x, t[2] }, 2, t[3], NULL, 0);
	return rc ? rc : qb_node(&s->b, "Mul", (int[]){ t[3], c[2] }, 2, s->pname[n->out[0]],
				 NULL, 0);
}

/* ---- older spellings in opset 13's ---- */

/* Copied node d without its attribute `name` (freed), if it has one. */
static void drop_attr(struct onnx_node *d, const char *name)
{
	for (size_t i = 0; i < d->n_attr; i++)
		if (!strcmp(d->attr[i].name, name)) {
			free(d->attr[i].name);
			free(d->attr[i].s);
			free(d->attr[i].ints);
			free(d->attr[i].floats);
			memmove(&d->attr[i], &d->attr[i + 1], (d->n_attr - i - 1) * sizeof(*d->attr));
			d->n_attr--;
			return;
		}
}

/* Input `at` of copied node d becomes constant t (the inputs before it
 * that d lacks: absent, -1). */
static int set_input(struct onnx_node *d, size_t at, int t)
{
	if (t < 0)
		return t;
	if (at >= d->n_in) {
		int *in = realloc(d->in, (at + 1) * sizeof(int));

		if (!in)
			return -ENOMEM;
		d->in = in;
		for (size_t i = d->n_in; i < at; i++)
			d->in[i] = -1;
		d->n_in = at + 1;
	}
	d->in[at] = t;
	return 0;
}

/* The name of copied node di's output: the stem of its new constants'
 * names. */
static const char *out_name(struct quant *s, size_t di)
{
	return s->b.q->tensors[s->b.q->nodes[di].out[0]].name;
}

/* Copied node di: fetched again after every constant added, which may move
 * the node array (qb_grow). */
static struct onnx_node *copied(struct quant *s, size_t di)
{
	return &s->b.q->nodes[di];
}

/* A new constant input `at` of copied node di (t: the constant, or an
 * error passed on). */
static int const_input(struct quant *s, size_t di, size_t at, int t)
{
	return set_input(copied(s, di), at, t);
}

/* An attribute of source node n as an int64 constant input `at` of copied
 * node di. */
static int ints_input(struct quant *s, const struct onnx_node *n, size_t di, const char *attr,
		      size_t at)
{
	const struct onnx_attr *a = onnx_node_attr(n, attr);
	char suffix[32];

	if (!a)
		return 0;
	if (a->type != ONNX_ATTR_INTS)
		return fail(s->b.err, s->b.err_len, -EINVAL, "node '%s' (%s): %s is not a list of "
			    "integers", n->name, n->op_type, attr);
	snprintf(suffix, sizeof(suffix), "_%s", attr);
	drop_attr(copied(s, di), attr);
	return const_input(s, di, at, qb_const(&s->b, out_name(s, di), suffix, ONNX_DT_INT64,
						a->ints, a->n, sizeof(int64_t), true));
}

/* Adds a STRING attribute to copied node d. */
static int add_string_attr(struct onnx_node *d, const char *name, const char *value)
{
	struct onnx_attr *a = realloc(d->attr, (d->n_attr + 1) * sizeof(*a));

	if (!a)
		return -ENOMEM;
	d->attr = a;
	a = &d->attr[d->n_attr];
	memset(a, 0, sizeof(*a));
	a->type = ONNX_ATTR_STRING;
	a->name = name_with(name, "");
	a->s = name_with(value, "");
	d->n_attr++;
	return a->name && a->s ? 0 : -ENOMEM;
}

/*
 * Copied node di of source node n in opset 13's spelling, where the
 * model's opset spells it otherwise (the QDQ file is opset 13): attributes
 * 13 no longer has dropped, Clip's, Split's, Slice's, Pad's, Squeeze's,
 * Unsqueeze's and ReduceSum's attributes that became inputs, and an
 * opset-10 Resize (X, scales) as Resize (X, roi, scales) with the
 * coordinates opset 10 defines (asymmetric, the nearest pixel below:
 * onnx_spatial.c).
 */
static int respell(struct quant *s, const struct onnx_node *n, size_t di)
{
	int64_t opset = s->g->opset;
	int rc = 0;

	/* attributes older opsets define and 13 does not: consumed_inputs
	 * (opset 1), BatchNormalization's is_test and spatial (its
	 * parameters' shapes say per channel: onnx_shape.c), Gemm's and the
	 * element-wise ops' broadcast and axis (C broadcasts in 13 either way;
	 * onnx_shape.c takes only the trailing alignment numpy's rule gives) */
	if (opset < 7)
		drop_attr(copied(s, di), "consumed_inputs");
	if (op_is(n, "BatchNormalization") && opset < 9) {
		drop_attr(copied(s, di), "is_test");
		drop_attr(copied(s, di), "spatial");
	}
	if ((op_is(n, "Gemm") || op_is(n, "Add") || op_is(n, "Sub") || op_is(n, "Mul") ||
	     op_is(n, "Div")) && opset < 7) {
		drop_attr(copied(s, di), "broadcast");
		drop_attr(copied(s, di), "axis");
	}
	if (op_is(n, "Clip") && opset < 11) {
		static const char *const bound[] = { "min", "max" };

		for (size_t i = 0; i < 2 && !rc; i++) {
			const struct onnx_attr *a = onnx_node_attr(n, bound[i]);
			char suffix[8];

			if (!a)
				continue;
			snprintf(suffix, sizeof(suffix), "_%s", bound[i]);
			drop_attr(copied(s, di), bound[i]);
			rc = const_input(s, di, 1 + i, qb_const(&s->b, out_name(s, di), suffix,
								ONNX_DT_FLOAT, &a->f, 1,
								sizeof(a->f), false));
		}
		return rc;
	}
	if (op_is(n, "Split") && opset < 13)
		return ints_input(s, n, di, "split", 1);
	if ((op_is(n, "Squeeze") || op_is(n, "Unsqueeze") || op_is(n, "ReduceSum")) && opset < 13)
		return ints_input(s, n, di, "axes", 1);
	if (op_is(n, "Slice") && opset < 10) {
		rc = ints_input(s, n, di, "starts", 1);
		if (!rc)
			rc = ints_input(s, n, di, "ends", 2);
		return rc ? rc : ints_input(s, n, di, "axes", 3);
	}
	if (op_is(n, "Pad") && opset < 11) {
		float value = onnx_attr_float(n, "value", 0.0f);

		rc = ints_input(s, n, di, "pads", 1);
		drop_attr(copied(s, di), "value");
		return rc ? rc : const_input(s, di, 2, qb_const(&s->b, out_name(s, di), "_value",
								ONNX_DT_FLOAT, &value, 1,
								sizeof(value), false));
	}
	if (op_is(n, "Resize") && opset < 11 && copied(s, di)->n_in == 2) {
		int scales = copied(s, di)->in[1];
		const int64_t none = 0;	/* roi: an empty constant */

		rc = const_input(s, di, 1, qb_tensor(&s->b, out_name(s, di), "_roi",
						      ONNX_TENSOR_CONSTANT, ONNX_DT_FLOAT, 1, &none,
						      NULL, 0));
		if (!rc)
			rc = set_input(copied(s, di), 2, scales);
		if (!rc)
			rc = add_string_attr(copied(s, di), "coordinate_transformation_mode",
					     "asymmetric");
		return rc ? rc : add_string_attr(copied(s, di), "nearest_mode", "floor");
	}
	return 0;
}

/* Ops whose meaning changed by opset 13 and so block raising the opset of
 * an older model (the others are respelled instead: respell()). Before 13,
 * Softmax,
 * LogSoftmax and Hardmax flatten the input from their axis (default 1) to
 * a matrix; over the last axis, that is opset 13's meaning. */
static const char *const softmax_like[] = { "Softmax", "LogSoftmax", "Hardmax" };

static int check_opset(const struct onnx_graph *g, char *err, size_t err_len)
{
	if (g->opset >= QDQ_OPSET)
		return 0;
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct onnx_node *n = &g->nodes[i];
		const struct onnx_tensor *x = n->n_in && n->in[0] >= 0 ? &g->tensors[n->in[0]] : NULL;
		int64_t axis = onnx_attr_int(n, "axis", 1);
		bool softmax = false;

		for (size_t k = 0; k < sizeof(softmax_like) / sizeof(*softmax_like); k++)
			softmax |= op_is(n, softmax_like[k]);
		if (!softmax)
			continue;
		if (x && axis < 0)
			axis += x->rank;
		if (!x || axis != x->rank - 1)
			return fail(err, err_len, -ENOTSUP, "node '%s' (%s): the model imports opset "
				    "%lld, where the op flattens from axis %lld on; only the last "
				    "axis keeps its meaning in opset 13, which the QDQ model is "
				    "written in", n->name, n->op_type, (long long)g->opset,
				    (long long)onnx_attr_int(n, "axis", 1));
	}
	return 0;
}

static int build(struct quant *s)
{
	const struct onnx_graph *g = s->g;
	struct onnx_graph *q = s->b.q;
	int rc;

	/* Tensors every consumer reads keep their source names. */
	for (size_t i = 0; i < g->n_tensors; i++) {
		const struct onnx_tensor *t = &g->tensors[i];
		bool is_weight = false;
		void *data = NULL;
		int idx;

		/* weights and biases become the outputs of their DequantizeLinear
		 * (a float op's stay constants) */
		for (size_t k = 0; k < g->n_nodes && t->role == ONNX_TENSOR_CONSTANT; k++) {
			int axis;

			is_weight |= !s->fp16[k] &&
				     (node_weight(g, &g->nodes[k], &axis) == (int)i ||
				      node_bias(g, &g->nodes[k]) == (int)i);
		}
		if (t->role == ONNX_TENSOR_CONSTANT && !is_weight) {
			size_t bytes = t->count * onnx_dtype_size(t->dtype);

			data = malloc(bytes ? bytes : 1);
			if (!data)
				return -ENOMEM;
			memcpy(data, t->data, bytes);
		}
		idx = qb_tensor(&s->b, t->name, "",
				is_weight ? ONNX_TENSOR_ACTIVATION : t->role, t->dtype, t->rank,
				t->dims, data, data ? t->count : 0);
		if (idx < 0)
			return idx;
		q->tensors[idx].is_output = t->is_output;
		s->cname[i] = s->pname[i] = idx;
	}
	/* Quantised activations: the producer writes <name>_float (graph inputs
	 * stay where they are and consumers read <name>_dequantized). */
	for (size_t i = 0; i < g->n_tensors; i++) {
		const struct onnx_tensor *t = &g->tensors[i];
		int idx;

		if (!s->qp[i].on)
			continue;
		idx = qb_tensor(&s->b, t->name, t->role == ONNX_TENSOR_INPUT ? "_dequantized"
									       : "_float",
				ONNX_TENSOR_ACTIVATION, ONNX_DT_FLOAT, t->rank, t->dims, NULL, 0);
		if (idx < 0)
			return idx;
		if (t->role == ONNX_TENSOR_INPUT)
			s->cname[i] = idx;
		else
			s->pname[i] = idx;
	}
	q->inputs = malloc((g->n_inputs + 1) * sizeof(int));
	q->outputs = malloc((g->n_outputs + 1) * sizeof(int));
	if (!q->inputs || !q->outputs)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_inputs; i++)
		q->inputs[q->n_inputs++] = s->pname[g->inputs[i]];
	for (size_t i = 0; i < g->n_outputs; i++)
		q->outputs[q->n_outputs++] = s->cname[g->outputs[i]];

	for (size_t i = 0; i < g->n_inputs; i++)
		if (s->qp[g->inputs[i]].on && (rc = emit_qdq(s, g->inputs[i])))
			return rc;
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct onnx_node *n = &g->nodes[i];
		size_t first = q->n_nodes;

		rc = s->fp16[i] ? 0 : emit_weights(s, n);
		if (!rc && !*n->domain && n->n_in == 1 && n->in[0] >= 0 &&
		    (op_is(n, "HardSwish") || op_is(n, "Swish")))
			rc = emit_gated(s, n);
		else if (!rc && !*n->domain && op_is(n, "Gelu") && q->opset < GELU_OPSET &&
			 !strcmp(onnx_attr_string(n, "approximate", "none"), "none"))
			rc = emit_gelu(s, n);
		else if (!rc)
			rc = qb_copy_node(&s->b, n, s->cname, s->pname);
		if (!rc && !*n->domain)
			rc = respell(s, n, s->b.q->n_nodes - 1);
		for (size_t k = first; !rc && k < q->n_nodes; k++)
			q->nodes[k].fp16 = s->fp16[i];
		for (size_t k = 0; !rc && k < n->n_out; k++)
			if (n->out[k] >= 0 && s->qp[n->out[k]].on)
				rc = emit_qdq(s, n->out[k]);
		if (rc)
			return rc;
	}
	return 0;
}

int onnx_quantize_qdq(const struct onnx_graph *g, const struct onnx_ranges *r,
		      const struct onnx_quant_opts *opts, struct onnx_graph **out, char *err,
		      size_t err_len)
{
	static const struct onnx_quant_opts none;
	struct quant s = { .g = g, .r = r, .o = opts ? opts : &none,
			   .pow2 = opts && opts->pow2_scales,
			   .b = { .err = err, .err_len = err_len } };
	int rc = check_opset(g, err, err_len);

	*out = NULL;
	if (rc)
		return rc;
	if (!r->samples)
		return fail(err, err_len, -EINVAL, "no calibration samples");
	s.b.q = calloc(1, sizeof(*s.b.q));
	s.qp = calloc(g->n_tensors + 1, sizeof(*s.qp));
	s.cname = calloc(g->n_tensors + 1, sizeof(int));
	s.pname = calloc(g->n_tensors + 1, sizeof(int));
	s.users = calloc(g->n_tensors + 1, sizeof(int));
	s.fp16 = calloc(g->n_nodes + 1, sizeof(bool));
	rc = !s.b.q || !s.qp || !s.cname || !s.pname || !s.users || !s.fp16 ? -ENOMEM : 0;
	if (!rc) {
		s.b.q->opset = g->opset < QDQ_OPSET ? QDQ_OPSET : g->opset;
		/* the fold's LayerNormalization (of a spelled-out LayerNorm) is an
		 * opset-17 operator; 13 to 17 changed none of the others */
		for (size_t i = 0; i < g->n_nodes; i++)
			if (op_is(&g->nodes[i], "LayerNormalization") &&
			    s.b.q->opset < LAYERNORM_OPSET)
				s.b.q->opset = LAYERNORM_OPSET;
		s.b.q->producer = name_with("rkbare quantize", "");
		rc = s.b.q->producer ? plan(&s) : -ENOMEM;
	}
	if (!rc)
		rc = keep_float(&s);
	if (!rc)
		rc = build(&s);
	if (rc == -ENOMEM)
		fail(err, err_len, rc, "out of memory");
	if (rc)
		onnx_graph_free(s.b.q);
	else
		*out = s.b.q;
	free(s.qp);
	free(s.cname);
	free(s.pname);
	free(s.users);
	free(s.fp16);
	return rc;
}
