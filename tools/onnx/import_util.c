/* SPDX-License-Identifier: MIT */
/* The importer's operands (import_int.h): constants, scales and zero points,
 * quantised weights and biases, and the tensors and ops it grows. */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/onnx/import_int.h"
#include "tools/onnx/onnx_spatial.h"

/* Scales a quantised bias is allowed to differ by from in × w before it is
 * requantised rather than taken as it is (float rounding of the product). */
#define BIAS_SCALE_RTOL	1e-5

int fail(struct imp *s, const char *fmt, ...)
{
	va_list ap;
	int k = 0;

	if (!s->err_len)
		return -ENOTSUP;
	if (s->n)
		k = snprintf(s->err, s->err_len, "node '%s' (%s): ", s->n->name, s->n->op_type);
	if (k < 0 || (size_t)k >= s->err_len)
		k = 0;
	va_start(ap, fmt);
	vsnprintf(s->err + k, s->err_len - (size_t)k, fmt, ap);
	va_end(ap);
	return -ENOTSUP;
}

/* ---- constants ---- */

bool is_const(const struct imp *s, int t)
{
	return t >= 0 && T(s, t)->role == ONNX_TENSOR_CONSTANT;
}

/* Element i of a constant as a double (float, int8/uint8, int32, int64). */
double const_at(const struct onnx_tensor *t, size_t i)
{
	const void *d = t->data;

	switch (t->dtype) {
	case ONNX_DT_FLOAT: return ((const float *)d)[i];
	case ONNX_DT_INT8: return ((const int8_t *)d)[i];
	case ONNX_DT_UINT8: return ((const uint8_t *)d)[i];
	case ONNX_DT_INT32: return ((const int32_t *)d)[i];
	case ONNX_DT_INT64: return (double)((const int64_t *)d)[i];
	default: return NAN;
	}
}

/* A scale: a positive finite float constant of 1 (or n) elements. */
int get_scales(struct imp *s, int t, size_t n, float *out, size_t *count)
{
	const struct onnx_tensor *c = T(s, t);

	if (!is_const(s, t) || c->dtype != ONNX_DT_FLOAT || (c->count != 1 && c->count != n))
		return fail(s, "scale '%s' must be a float32 constant of 1 or %zu elements",
			    c ? c->name : "", n);
	for (size_t i = 0; i < c->count; i++) {
		out[i] = ((const float *)c->data)[i];
		if (!(out[i] > 0.0f) || !isfinite(out[i]))
			return fail(s, "scale '%s' holds %g, not a positive finite number", c->name,
				    (double)out[i]);
	}
	*count = c->count;
	return 0;
}

/* A zero point in the signed domain (absent: uint8 0); all elements equal. */
int get_zp(struct imp *s, int t, int32_t dtype_if_absent, int32_t *zp, bool *is_u8)
{
	const struct onnx_tensor *c = T(s, t);

	if (t < 0) {
		*is_u8 = dtype_if_absent != ONNX_DT_INT8;
		*zp = *is_u8 ? -U8_TO_S8 : 0;
		return 0;
	}
	if (!is_const(s, t) || (c->dtype != ONNX_DT_INT8 && c->dtype != ONNX_DT_UINT8) ||
	    !c->count)
		return fail(s, "zero point '%s' must be an int8 or uint8 constant", c->name);
	for (size_t i = 1; i < c->count; i++)
		if (const_at(c, i) != const_at(c, 0))
			return fail(s, "zero point '%s' differs between channels (the NPU takes "
				    "one weight zero point)", c->name);
	*is_u8 = c->dtype == ONNX_DT_UINT8;
	*zp = (int32_t)const_at(c, 0) - (*is_u8 ? U8_TO_S8 : 0);
	return 0;
}

/* ---- growing the result ---- */

/* The most elements a map may hold: 256 MiB of int8 (a board's DMA pool is
 * far smaller), and what the importer allocates per element (a view's
 * index table, 4 bytes each) stays within a gigabyte. */
#define IMP_MAP_MAX_ELEMENTS	(1ull << 28)

int add_tensor(struct imp *s, int onnx_t, unsigned int c, unsigned int h,
	       unsigned int w)
{
	struct imp_graph *ig = s->ig;

	if ((unsigned long long)c * h * w > IMP_MAP_MAX_ELEMENTS)
		return fail(s, "tensor '%s' is %u x %u x %u: more than %llu elements",
			    T(s, onnx_t)->name, c, h, w, IMP_MAP_MAX_ELEMENTS);

	if (ig->n_tensors == s->cap_tensors) {
		size_t cap = s->cap_tensors ? 2 * s->cap_tensors : 32;
		struct imp_tensor *t = realloc(ig->tensors, cap * sizeof(*t));
		bool *hp = realloc(s->has_params, cap * sizeof(*hp));

		if (t)
			ig->tensors = t;
		if (hp)
			s->has_params = hp;
		if (!t || !hp)
			return -ENOMEM;
		s->cap_tensors = cap;
	}
	memset(&ig->tensors[ig->n_tensors], 0, sizeof(ig->tensors[0]));
	ig->tensors[ig->n_tensors].name = T(s, onnx_t)->name;
	ig->tensors[ig->n_tensors].c = c;
	ig->tensors[ig->n_tensors].h = h;
	ig->tensors[ig->n_tensors].w = w;
	s->has_params[ig->n_tensors] = false;
	s->qt[onnx_t] = (int)ig->n_tensors;
	return (int)ig->n_tensors++;
}

/* The imp tensor of an ONNX tensor of rank 5 [1,A,B,H,W] (A·B channels:
 * a detection head's [1, anchors, H, W, outputs], row-major as ONNX's),
 * 4 [1,C,H,W], 3 [A,B,C], 2 [M,K] (M rows (H) of K channels, which the
 * runtime converts channels-last) or 1 [K] (one row of K channels). */
int new_qt(struct imp *s, int onnx_t)
{
	const struct onnx_tensor *t = T(s, onnx_t);

	if (t->rank == 5 && t->dims[0] == 1)
		return add_tensor(s, onnx_t, (unsigned int)(t->dims[1] * t->dims[2]),
				  (unsigned int)t->dims[3], (unsigned int)t->dims[4]);
	if (t->rank == 4 && t->dims[0] == 1)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[1], (unsigned int)t->dims[2],
				  (unsigned int)t->dims[3]);
	if (t->rank == 2)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[1], (unsigned int)t->dims[0], 1);
	/* [K] as [1, K]: K channels of one row */
	if (t->rank == 1)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[0], 1, 1);
	/* A graph of 1-D convolutions: [1, C, W] is C channels of one row */
	if (t->rank == 3 && s->maps_1d && t->dims[0] == 1)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[1], 1, (unsigned int)t->dims[2]);
	if (t->rank == 3 && s->maps_1d)
		return fail(s, "tensor '%s' is not [1,C,W] in a graph of 1-D convolutions (batch 1 "
			    "only)", t->name);
	/* Only element-wise ops and views take rank 3 (shape inference keeps
	 * it from windows and matmuls): C, H, W in row-major order. */
	if (t->rank == 3)
		return add_tensor(s, onnx_t, (unsigned int)t->dims[0], (unsigned int)t->dims[1],
				  (unsigned int)t->dims[2]);
	return fail(s, "tensor '%s' is not [1,A,B,H,W], [1,C,H,W], [A,B,C], [M,K] or [K] (batch 1 "
		    "only)",
		    t->name);
}

struct imp_op *add_op(struct imp *s, enum imp_op_kind kind)
{
	struct imp_graph *ig = s->ig;
	struct imp_op *op;

	if (ig->n_ops == s->cap_ops) {
		size_t cap = s->cap_ops ? 2 * s->cap_ops : 32;
		struct imp_op *o = realloc(ig->ops, cap * sizeof(*o));

		if (!o)
			return NULL;
		ig->ops = o;
		s->cap_ops = cap;
	}
	op = &ig->ops[ig->n_ops++];
	memset(op, 0, sizeof(*op));
	op->kind = kind;
	op->node = s->n->name[0] ? s->n->name : s->n->op_type;
	op->in[1] = -1;
	return op;
}

/* Sets (or checks) the quantisation of an imp tensor. */
int set_params(struct imp *s, int it, float scale, int32_t zp)
{
	struct imp_tensor *t = &s->ig->tensors[it];

	if (s->has_params[it] && (t->scale != scale || t->zp != zp))
		return fail(s, "tensor '%s' is read with two different quantisations", t->name);
	t->scale = scale;
	t->zp = zp;
	s->has_params[it] = true;
	return 0;
}

/* ---- operands ---- */

/* The quantised ONNX tensor behind DequantizeLinear output f, or -1. */
int dq_input(const struct imp *s, int f)
{
	const struct onnx_node *dq = prod(s, f);

	return is_op(dq, "DequantizeLinear") ? in_of(dq, 0) : -1;
}

/* The imp tensor behind a float tensor read by a compute op: the output of
 * a DequantizeLinear of a quantised tensor. */
int dq_source(struct imp *s, int f)
{
	int q = dq_input(s, f);

	if (q < 0 || s->qt[q] < 0)
		return fail(s, "input '%s' is not the DequantizeLinear of a quantised tensor "
			    "(quantize the model first: rkbare quantize)", T(s, f)->name);
	if (s->nhwc_view[q])
		return fail(s, "input '%s' is a transposed (channels-last) feature map: only a "
			    "graph edge may be one", T(s, f)->name);
	/* A flattened map keeps its C × H × W memory: only a fully-connected
	 * layer (an H × W convolution) reads it in the flattened order (other
	 * readers had reshape_inputs lay it out). */
	if (s->flat_view[q] && !s->fc_operand)
		return fail(s, "input '%s' is a reshaped feature map; only Gemm / MatMul may "
			    "read it", T(s, f)->name);
	return s->qt[q];
}

/* Readers that take a reshaped view as it is: a fully-connected layer reads
 * the flattened order, a view of a view stays one, a transpose lays it out
 * itself (transpose_map_perm). */
static bool reads_flat_view(const struct onnx_node *n)
{
	return is_op(n, "Gemm") || is_op(n, "MatMul") || is_op(n, "Reshape") ||
	       is_op(n, "Flatten") || is_op(n, "Transpose") || is_op(n, "QuantizeLinear") ||
	       is_op(n, "DequantizeLinear");
}

int reshape_inputs(struct imp *s, const struct onnx_node *n)
{
	if (!n || reads_flat_view(n))
		return 0;
	for (size_t i = 0; i < n->n_in; i++) {
		int f = in_of(n, i), q = f < 0 ? -1 : dq_input(s, f);
		int t = q >= 0 ? q : f, rc;

		if (t < 0 || s->qt[t] < 0 || !s->flat_view[t] || s->nhwc_view[t])
			continue;
		rc = reshape_map(s, t);
		if (rc < 0)
			return rc;
	}
	return 0;
}

int reshape_map(struct imp *s, int t)
{
	const struct imp_tensor *src = &s->ig->tensors[s->qt[t]];
	float scale = src->scale;
	int32_t zp = src->zp;
	bool fp16 = src->fp16;
	int in = s->qt[t], out = new_qt(s, t), rc;
	struct imp_op *op;

	if (out < 0)
		return out;
	s->ig->tensors[out].fp16 = fp16;	/* fp16 maps: scale 1, zp 0 */
	rc = set_params(s, out, scale, zp);
	if (rc)
		return rc;
	op = add_op(s, IMP_CPU);
	if (!op)
		return -ENOMEM;
	op->cpu_type = "Reshape";
	op->in[0] = in;
	op->out = out;
	s->qt[t] = out;
	s->flat_view[t] = false;
	return out;
}

/*
 * Quantised weights behind w_f (the output of a DequantizeLinear of a
 * constant, or a quantised constant read by a QLinear op directly):
 * signed int8 values in the constant's order, per-axis scales over `axis`.
 */

int weights_of(struct imp *s, int wq, int sc, int zpt, size_t channels,
	       struct qweights *w)
{
	const struct onnx_tensor *q = T(s, wq);
	bool is_u8;
	int rc;

	memset(w, 0, sizeof(*w));
	if (!is_const(s, wq) || (q->dtype != ONNX_DT_INT8 && q->dtype != ONNX_DT_UINT8))
		return fail(s, "weights '%s' are not a quantised int8/uint8 constant",
			    q ? q->name : "");
	w->t = q;
	w->count = q->count;
	w->v = malloc(q->count ? q->count : 1);
	w->scale = malloc(channels * sizeof(float));
	if (!w->v || !w->scale)
		return -ENOMEM;
	rc = get_scales(s, sc, channels, w->scale, &w->n_scale);
	if (!rc)
		rc = get_zp(s, zpt, q->dtype, &w->zp, &is_u8);
	if (rc)
		return rc;
	for (size_t i = 0; i < q->count; i++)
		w->v[i] = (int8_t)((int32_t)const_at(q, i) - (is_u8 ? U8_TO_S8 : 0));
	return 0;
}

int weights_from_dq(struct imp *s, int w_f, int expected_axis, size_t channels,
		    struct qweights *w)
{
	const struct onnx_node *dq = prod(s, w_f);
	const struct onnx_tensor *wq, *sc;
	int64_t axis;

	/* the caller frees w whatever this returns */
	memset(w, 0, sizeof(*w));
	if (!dq && is_const(s, w_f))
		return fail(s, "weights '%s' are float (quantize the model first: rkbare quantize)",
			    T(s, w_f)->name);
	if (!is_op(dq, "DequantizeLinear"))
		return fail(s, "weights '%s' are not a DequantizeLinear of a constant",
			    T(s, w_f)->name);
	wq = T(s, in_of(dq, 0));
	sc = T(s, in_of(dq, 1));
	if (!wq || !sc)
		return fail(s, "the DequantizeLinear of weights '%s' lacks its input or scale",
			    T(s, w_f)->name);
	/* ONNX: axis in [-rank, rank), negative counting from the end */
	axis = onnx_attr_int(dq, "axis", 1);
	if (sc->count > 1 && (axis < -(int64_t)wq->rank || axis >= (int64_t)wq->rank))
		return fail(s, "the DequantizeLinear of weights '%s' has axis %lld, outside "
			    "[-%d, %d) for its rank", T(s, w_f)->name, (long long)axis, wq->rank,
			    wq->rank);
	if (axis < 0)
		axis += wq->rank;
	if (sc->count > 1 && axis != expected_axis)
		return fail(s, "weights '%s' are quantised along axis %lld, the NPU needs the "
			    "output-channel axis %d", T(s, w_f)->name, (long long)axis,
			    expected_axis);
	return weights_of(s, in_of(dq, 0), in_of(dq, 1), in_of(dq, 2), channels, w);
}

void qweights_free(struct qweights *w)
{
	free(w->v);
	free(w->scale);
}

/*
 * The bias in units of in_scale × w_scale[c] from a DequantizeLinear of an
 * int32 constant (requantised when its scale differs) or a float constant,
 * times mul (Gemm's beta; 1 elsewhere).
 */
int bias_of(struct imp *s, int b_f, float in_scale, const struct qweights *w,
	    size_t channels, float mul, int32_t **out)
{
	const struct onnx_node *dq = prod(s, b_f);
	const struct onnx_tensor *bq = NULL;
	float bscale[8192];
	size_t n_bscale = 0;
	int rc;

	*out = NULL;
	if (b_f < 0)
		return 0;
	if (channels > sizeof(bscale) / sizeof(bscale[0]))
		return fail(s, "more than 8192 output channels");
	if (is_op(dq, "DequantizeLinear")) {
		bq = T(s, in_of(dq, 0));
		if (!is_const(s, in_of(dq, 0)) || bq->dtype != ONNX_DT_INT32 || bq->count != channels)
			return fail(s, "bias '%s' is not an int32 constant of %zu values",
				    T(s, b_f)->name, channels);
		rc = get_scales(s, in_of(dq, 1), channels, bscale, &n_bscale);
		if (rc)
			return rc;
	} else if (is_const(s, b_f) && T(s, b_f)->dtype == ONNX_DT_FLOAT &&
		   (T(s, b_f)->count == channels || T(s, b_f)->count == 1)) {
		bq = T(s, b_f);		/* one value broadcasts to every channel */
	} else {
		return fail(s, "bias '%s' is neither a quantised nor a float constant of %zu values "
			    "(or one)", T(s, b_f)->name, channels);
	}
	*out = malloc(channels * sizeof(int32_t));
	if (!*out)
		return -ENOMEM;
	for (size_t c = 0; c < channels; c++) {
		double unit = (double)in_scale * w->scale[w->n_scale > 1 ? c : 0];
		double v = const_at(bq, bq->count == 1 ? 0 : c);

		if (n_bscale) {
			double bs = bscale[n_bscale > 1 ? c : 0] * mul;

			if (fabs(bs - unit) > BIAS_SCALE_RTOL * unit)
				v = nearbyint(v * bs / unit);
		} else {
			v = nearbyint(v * mul / unit);
		}
		if (!(fabs(v) <= 2147483647.0))
			return fail(s, "bias %zu does not fit int32 in units of input x weight scale",
				    c);
		(*out)[c] = (int32_t)v;
	}
	return 0;
}

/* ---- one import ---- */

int imp_begin(struct imp *s, const struct onnx_graph *g, char *err, size_t err_len)
{
	memset(s, 0, sizeof(*s));
	s->g = g;
	s->err = err;
	s->err_len = err_len;
	s->ig = calloc(1, sizeof(*s->ig));
	s->producer = malloc((g->n_tensors + 1) * sizeof(int));
	s->users = calloc(g->n_tensors + 1, sizeof(int));
	s->qt = malloc((g->n_tensors + 1) * sizeof(int));
	s->used = calloc(g->n_nodes + 1, sizeof(bool));
	s->flat_view = calloc(g->n_tensors + 1, sizeof(bool));
	s->nhwc_view = calloc(g->n_tensors + 1, sizeof(bool));
	s->zero_const = calloc(g->n_tensors + 1, sizeof(bool));
	s->fp16_node = calloc(g->n_nodes + 1, sizeof(bool));
	if (!s->ig || !s->producer || !s->users || !s->qt || !s->used || !s->flat_view ||
	    !s->nhwc_view || !s->zero_const || !s->fp16_node)
		return -ENOMEM;
	s->ig->inputs = calloc(g->n_inputs + 1, sizeof(*s->ig->inputs));
	s->ig->outputs = calloc(g->n_outputs + 1, sizeof(*s->ig->outputs));
	if (!s->ig->inputs || !s->ig->outputs)
		return -ENOMEM;
	memset(s->producer, 0xff, (g->n_tensors + 1) * sizeof(int));
	memset(s->qt, 0xff, (g->n_tensors + 1) * sizeof(int));
	for (size_t i = 0; i < g->n_nodes; i++)
		for (size_t k = 0; k < g->nodes[i].n_out; k++)
			if (g->nodes[i].out[k] >= 0)
				s->producer[g->nodes[i].out[k]] = (int)i;
	for (size_t i = 0; i < g->n_nodes; i++) {
		for (size_t k = 0; k < g->nodes[i].n_in; k++)
			if (g->nodes[i].in[k] >= 0)
				s->users[g->nodes[i].in[k]]++;
		s->maps_1d |= onnx_window1d(g, &g->nodes[i]);
	}
	return 0;
}

bool imp_map_rank(const struct onnx_tensor *t)
{
	return (t->rank >= 1 && t->rank <= 3) ||
	       ((t->rank == 4 || t->rank == 5) && t->dims[0] == 1);
}

int imp_map_axis(const struct imp *s, int r, int a)
{
	/* rank 5: A and B share the channels, neither is an axis alone */
	static const int of5[] = { -1, -1, -1, 1, 2 }, of4[] = { -1, 0, 1, 2 };
	static const int of3[] = { 0, 1, 2 }, of2[] = { 1, 0 }, of1d[] = { -1, 0, 2 };

	if (a < 0 || a >= r || r < 1 || r > 5)
		return -1;
	return r == 5 ? of5[a] : r == 4 ? of4[a] : r == 3 ? (s->maps_1d ? of1d[a] : of3[a]) :
	       r == 2 ? of2[a] : 0;
}

int imp_end(struct imp *s, int rc, struct imp_graph **out)
{
	*out = NULL;
	if (rc == -ENOMEM && s->err_len)
		snprintf(s->err, s->err_len, "out of memory");
	free(s->producer);
	free(s->users);
	free(s->qt);
	free(s->used);
	free(s->flat_view);
	free(s->nhwc_view);
	free(s->zero_const);
	free(s->fp16_node);
	free(s->has_params);
	if (rc)
		imp_graph_free(s->ig);
	else
		*out = s->ig;
	return rc;
}

const struct onnx_node *sole_reader(const struct imp *s, int t)
{
	if (s->users[t] != 1)
		return NULL;
	for (size_t k = 0; k < s->g->n_nodes; k++)
		for (size_t j = 0; j < s->g->nodes[k].n_in; j++)
			if (s->g->nodes[k].in[j] == t)
				return &s->g->nodes[k];
	return NULL;
}

struct imp_io *new_edge(struct imp *s, bool input, int t)
{
	struct imp_io *io = input ? &s->ig->inputs[s->ig->n_inputs++] :
				    &s->ig->outputs[s->ig->n_outputs++];

	io->name = T(s, t)->name;
	io->rank = T(s, t)->rank;
	memcpy(io->dims, T(s, t)->dims, sizeof(io->dims));
	return io;
}

int input_map(struct imp *s, int t, const struct onnx_node *tr, struct imp_io *io, bool *nhwc)
{
	const struct onnx_tensor *x = T(s, t);

	*nhwc = x->rank == 4 && x->dims[0] == 1 && is_op(tr, "Transpose") &&
		perm4(tr) == PERM_TO_NCHW;
	if (*nhwc) {
		io->channels_last = true;
		return add_tensor(s, t, (unsigned int)x->dims[3], (unsigned int)x->dims[1],
				  (unsigned int)x->dims[2]);
	}
	io->channels_last = x->rank == 2;
	return new_qt(s, t);
}

bool edge_channels_last(const struct imp *s, int t, int rank)
{
	return s->nhwc_view[t] || (rank == 2 && !s->flat_view[t]);
}

