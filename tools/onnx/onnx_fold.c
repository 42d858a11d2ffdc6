/* SPDX-License-Identifier: MIT */
/* The float graph's canonical form (onnx_fold.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/onnx/onnx_fold.h"
#include "tools/onnx/onnx_shape.h"

/* Constants the fold computes hold at most this many elements: shape
 * subgraph values are a handful; a larger all-constant computation (a
 * ConstantOfShape filling a map) is left to run as it is written. */
#define FOLD_MAX_ELEMS	(1u << 22)

/* 1/6 as exporters write it (float32 0.16666667, or a float64 rounded):
 * closer than this is the constant of a hard-swish. */
#define SIXTH_TOLERANCE	1e-6

/* Graph inputs whose symbolic batch axis onnx_fold sets (more than any
 * model has). */
#define ONNX_FOLD_MAX_BATCHED	64u

struct fold {
	struct onnx_graph *g;
	bool *dead;			/* per node: dropped at the end */
	struct onnx_fold_stats *st;
	const struct onnx_node *n;	/* the node being folded, for messages */
	char why[200];			/* the first node whose shape was not inferred */
	char *err;
	size_t err_len;
};

/* A constant being computed. */
struct cval {
	int32_t dtype;
	int rank;
	int64_t dims[ONNX_GRAPH_MAX_RANK];
	void *data;
	size_t count;
};

static int fail(struct fold *f, int code, const char *fmt, ...)
{
	va_list ap;
	int len = 0;

	if (!f->err_len)
		return code;
	if (f->n)
		len = snprintf(f->err, f->err_len, "node '%s' (%s): ", f->n->name, f->n->op_type);
	if (len < 0 || (size_t)len >= f->err_len)
		return code;
	va_start(ap, fmt);
	vsnprintf(f->err + len, f->err_len - (size_t)len, fmt, ap);
	va_end(ap);
	return code;
}

static struct onnx_tensor *T(const struct fold *f, int t)
{
	return &f->g->tensors[t];
}

static int in_of(const struct onnx_node *n, size_t i)
{
	return i < n->n_in ? n->in[i] : -1;
}

/* Node n is op of the default domain, and not declared a CPU op (those
 * the application runs as they are written). */
static bool is_op(const struct fold *f, const struct onnx_node *n, const char *op)
{
	return n && !*n->domain && !strcmp(n->op_type, op) && !onnx_declared_cpu_op(f->g, n);
}

static bool is_const(const struct fold *f, int t)
{
	return t >= 0 && T(f, t)->role == ONNX_TENSOR_CONSTANT;
}

static bool shape_known(const struct onnx_tensor *t)
{
	if (t->rank < 0)
		return false;
	for (int i = 0; i < t->rank; i++)
		if (t->dims[i] < 0)
			return false;
	return true;
}

/* ---- reading the graph ---- */

/* Live nodes reading t (each input slot counts). */
static size_t readers(const struct fold *f, int t)
{
	size_t c = 0;

	for (size_t i = 0; i < f->g->n_nodes; i++)
		for (size_t k = 0; !f->dead[i] && k < f->g->nodes[i].n_in; k++)
			c += f->g->nodes[i].in[k] == t;
	return c;
}

/* Whether node n is the one reader of t, which is no graph output. */
static bool only_reader(const struct fold *f, int t, const struct onnx_node *n)
{
	size_t mine = 0;

	if (t < 0 || T(f, t)->is_output)
		return false;
	for (size_t k = 0; k < n->n_in; k++)
		mine += n->in[k] == t;
	return mine == 1 && readers(f, t) == 1;
}

/* The live node writing t, or NULL. */
static struct onnx_node *producer(const struct fold *f, int t)
{
	for (size_t i = 0; t >= 0 && i < f->g->n_nodes; i++)
		for (size_t k = 0; !f->dead[i] && k < f->g->nodes[i].n_out; k++)
			if (f->g->nodes[i].out[k] == t)
				return &f->g->nodes[i];
	return NULL;
}

static void replace_uses(struct fold *f, int from, int to)
{
	for (size_t i = 0; i < f->g->n_nodes; i++)
		for (size_t k = 0; !f->dead[i] && k < f->g->nodes[i].n_in; k++)
			if (f->g->nodes[i].in[k] == from)
				f->g->nodes[i].in[k] = to;
}

static void kill(struct fold *f, const struct onnx_node *n)
{
	f->dead[n - f->g->nodes] = true;
}

/* Element i of an integer constant as int64. */
static int64_t get_i(const struct onnx_tensor *t, size_t i)
{
	const void *d = t->data;

	switch (t->dtype) {
	case ONNX_DT_INT64: { int64_t v; memcpy(&v, (const int64_t *)d + i, 8); return v; }
	case ONNX_DT_INT32: { int32_t v; memcpy(&v, (const int32_t *)d + i, 4); return v; }
	case ONNX_DT_INT16: { int16_t v; memcpy(&v, (const int16_t *)d + i, 2); return v; }
	case ONNX_DT_UINT16: { uint16_t v; memcpy(&v, (const uint16_t *)d + i, 2); return v; }
	case ONNX_DT_INT8: return ((const int8_t *)d)[i];
	case ONNX_DT_UINT8:
	case ONNX_DT_BOOL: return ((const uint8_t *)d)[i];
	default: return 0;
	}
}

static bool is_int_dtype(int32_t dt)
{
	return dt == ONNX_DT_INT64 || dt == ONNX_DT_INT32 || dt == ONNX_DT_INT16 ||
	       dt == ONNX_DT_UINT16 || dt == ONNX_DT_INT8 || dt == ONNX_DT_UINT8 ||
	       dt == ONNX_DT_BOOL;
}

static double get_d(const struct onnx_tensor *t, size_t i)
{
	if (t->dtype == ONNX_DT_FLOAT) {
		float v;

		memcpy(&v, (const float *)t->data + i, 4);
		return v;
	}
	if (t->dtype == ONNX_DT_DOUBLE) {
		double v;

		memcpy(&v, (const double *)t->data + i, 8);
		return v;
	}
	return (double)get_i(t, i);
}

/* The one float value of constant t (any rank, one element). */
static bool const_scalar(const struct fold *f, int t, double *v)
{
	if (!is_const(f, t) || T(f, t)->count != 1 ||
	    (T(f, t)->dtype != ONNX_DT_FLOAT && T(f, t)->dtype != ONNX_DT_DOUBLE))
		return false;
	*v = get_d(T(f, t), 0);
	return true;
}

/* Integers of a constant 1-D (or scalar) int32/int64 tensor. */
static bool const_ints(const struct fold *f, int t, int64_t *v, size_t max, size_t *n)
{
	const struct onnx_tensor *c = t >= 0 ? T(f, t) : NULL;

	if (!c || c->role != ONNX_TENSOR_CONSTANT || c->rank > 1 || c->count > max ||
	    (c->dtype != ONNX_DT_INT64 && c->dtype != ONNX_DT_INT32))
		return false;
	for (size_t i = 0; i < c->count; i++)
		v[i] = get_i(c, i);
	*n = c->count;
	return true;
}

/* An INTS attribute, or the constant input i from opset `since` on:
 * 0 (*given when present), 1 when computed at run time, or an error. */
static int ints_operand(struct fold *f, const struct onnx_node *n, const char *attr, size_t i,
			int64_t since, int64_t *v, size_t *cnt, bool *given)
{
	const struct onnx_attr *a = onnx_node_attr(n, attr);

	*given = false;
	if (f->g->opset < since) {
		if (!a)
			return 0;
		if (a->type != ONNX_ATTR_INTS || a->n > ONNX_GRAPH_MAX_RANK)
			return fail(f, -EINVAL, "attribute '%s' is not a list of at most %u ints",
				    attr, ONNX_GRAPH_MAX_RANK);
		memcpy(v, a->ints, a->n * sizeof(*v));
		*cnt = a->n;
		*given = true;
		return 0;
	}
	if (in_of(n, i) < 0)
		return 0;
	if (!const_ints(f, in_of(n, i), v, ONNX_GRAPH_MAX_RANK, cnt))
		return 1;	/* computed at run time: not folded */
	*given = true;
	return 0;
}

/* ---- constants ---- */

/* Allocates o's data for dtype and dims: 1, 0 when larger than the fold
 * makes, -ENOMEM. */
static int cv_alloc(struct cval *o, int32_t dtype, int rank, const int64_t *dims)
{
	size_t c = 1, es = onnx_dtype_size(dtype);

	if (!es || rank < 0 || rank > (int)ONNX_GRAPH_MAX_RANK)
		return 0;
	for (int i = 0; i < rank; i++) {
		if (dims[i] < 0 || (dims[i] && c > FOLD_MAX_ELEMS / (size_t)dims[i]))
			return 0;
		c *= (size_t)dims[i];
	}
	if (c > FOLD_MAX_ELEMS)
		return 0;
	o->dtype = dtype;
	o->rank = rank;
	if (rank)
		memcpy(o->dims, dims, (size_t)rank * sizeof(*dims));
	o->count = c;
	o->data = calloc(c ? c : 1, es);
	return o->data ? 1 : -ENOMEM;
}

static void put_i(struct cval *o, size_t i, int64_t v)
{
	switch (o->dtype) {
	case ONNX_DT_INT64: memcpy((int64_t *)o->data + i, &v, 8); break;
	case ONNX_DT_INT32: {
		int32_t w = (int32_t)v;

		memcpy((int32_t *)o->data + i, &w, 4);
		break;
	}
	case ONNX_DT_INT16:
	case ONNX_DT_UINT16: {
		uint16_t w = (uint16_t)v;

		memcpy((uint16_t *)o->data + i, &w, 2);
		break;
	}
	default: ((uint8_t *)o->data)[i] = (uint8_t)v; break;
	}
}

static void put_d(struct cval *o, size_t i, double v)
{
	if (o->dtype == ONNX_DT_FLOAT) {
		float w = (float)v;

		memcpy((float *)o->data + i, &w, 4);
	} else {
		memcpy((double *)o->data + i, &v, 8);
	}
}

/* Output 0 of f->n becomes the constant o (which it takes). */
static void commit(struct fold *f, struct cval *o)
{
	struct onnx_tensor *t = T(f, f->n->out[0]);

	t->role = ONNX_TENSOR_CONSTANT;
	t->dtype = o->dtype;
	t->rank = o->rank;
	memcpy(t->dims, o->dims, sizeof(t->dims));
	free(t->data);
	t->data = o->data;
	t->count = o->count;
	o->data = NULL;
}

/* Copies the elements of src at the strided positions of an output of
 * o's dims: position k along axis a reads start[a] + k·step[a]. */
static void strided_copy(const struct onnx_tensor *src, struct cval *o, const int64_t *start,
			 const int64_t *step)
{
	size_t es = onnx_dtype_size(src->dtype), st[ONNX_GRAPH_MAX_RANK] = { 0 }, s = 1;
	int64_t idx[ONNX_GRAPH_MAX_RANK] = { 0 };

	for (int a = src->rank - 1; a >= 0; a--) {
		st[a] = s;
		s *= (size_t)src->dims[a];
	}
	for (size_t i = 0; i < o->count; i++) {
		size_t off = 0;

		for (int a = 0; a < o->rank; a++)
			off += (size_t)(start[a] + idx[a] * step[a]) * st[a];
		memcpy((uint8_t *)o->data + i * es, (const uint8_t *)src->data + off * es, es);
		for (int a = o->rank - 1; a >= 0; a--) {
			if (++idx[a] < o->dims[a])
				break;
			idx[a] = 0;
		}
	}
}

static int ev_shape(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0));
	bool size = !strcmp(n->op_type, "Size");
	int64_t start = onnx_attr_int(n, "start", 0), end = onnx_attr_int(n, "end", x->rank);
	int64_t len;
	int rc;

	if (!shape_known(x)) {
		for (size_t i = 0; i < f->g->n_inputs; i++) {
			const struct onnx_tensor *in = T(f, f->g->inputs[i]);

			for (int k = 0; k < in->rank; k++)
				if (in->dims[k] < 0)
					return fail(f, -EINVAL, "the shape of '%s' is not known at "
						    "compile time: input '%s' has the symbolic "
						    "dimension %d; give the input's size (rkbare "
						    "compile --shape-set %s=DxDx..)", x->name,
						    in->name, k, in->name);
		}
		return fail(f, -ENOTSUP, "the shape of '%s' is not known at compile time (%s)",
			    x->name, f->why[0] ? f->why : "no node gives it");
	}
	f->st->sized = true;
	if (size) {
		rc = cv_alloc(o, ONNX_DT_INT64, 0, NULL);
		if (rc == 1)
			put_i(o, 0, (int64_t)onnx_tensor_count(x));
		return rc;
	}
	/* opset 15: start and end clamp to the rank, negatives count back */
	start = start < 0 ? start + x->rank : start;
	end = end < 0 ? end + x->rank : end;
	start = start < 0 ? 0 : start > x->rank ? x->rank : start;
	end = end < 0 ? 0 : end > x->rank ? x->rank : end;
	len = end > start ? end - start : 0;
	rc = cv_alloc(o, ONNX_DT_INT64, 1, &len);
	for (int64_t i = 0; rc == 1 && i < len; i++)
		put_i(o, (size_t)i, x->dims[start + i]);
	return rc;
}

static int ev_gather(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0)), *ix = T(f, in_of(n, 1));
	int64_t axis = onnx_attr_int(n, "axis", 0), dims[ONNX_GRAPH_MAX_RANK];
	size_t outer = 1, inner = 1, es = onnx_dtype_size(x->dtype);
	int rank = x->rank - 1 + ix->rank, rc;

	if (!is_int_dtype(ix->dtype) || ix->dtype == ONNX_DT_BOOL)
		return fail(f, -EINVAL, "indices are %s, not an integer type",
			    onnx_dtype_name(ix->dtype));
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis >= x->rank)
		return fail(f, -EINVAL, "axis %lld is outside the rank-%d data",
			    (long long)onnx_attr_int(n, "axis", 0), x->rank);
	if (rank > (int)ONNX_GRAPH_MAX_RANK)
		return 0;
	for (int i = 0; i < axis; i++) {
		dims[i] = x->dims[i];
		outer *= (size_t)x->dims[i];
	}
	for (int i = 0; i < ix->rank; i++)
		dims[axis + i] = ix->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++) {
		dims[i - 1 + ix->rank] = x->dims[i];
		inner *= (size_t)x->dims[i];
	}
	for (size_t j = 0; j < ix->count; j++) {
		int64_t k = get_i(ix, j);

		if (k < -x->dims[axis] || k >= x->dims[axis])
			return fail(f, -EINVAL, "index %lld is outside 0..%lld of axis %lld",
				    (long long)k, (long long)x->dims[axis] - 1, (long long)axis);
	}
	rc = cv_alloc(o, x->dtype, rank, dims);
	for (size_t p = 0; rc == 1 && p < outer; p++)
		for (size_t j = 0; j < ix->count; j++) {
			int64_t k = get_i(ix, j);

			k += k < 0 ? x->dims[axis] : 0;
			memcpy((uint8_t *)o->data + (p * ix->count + j) * inner * es,
			       (const uint8_t *)x->data +
				       ((p * (size_t)x->dims[axis] + (size_t)k) * inner) * es,
			       inner * es);
		}
	return rc;
}

static int ev_slice(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0));
	int64_t starts[ONNX_GRAPH_MAX_RANK], ends[ONNX_GRAPH_MAX_RANK], axes[ONNX_GRAPH_MAX_RANK];
	int64_t steps[ONNX_GRAPH_MAX_RANK], b[ONNX_GRAPH_MAX_RANK], st[ONNX_GRAPH_MAX_RANK];
	int64_t dims[ONNX_GRAPH_MAX_RANK];
	size_t ns = 0, ne = 0, na = 0, nst = 0;
	bool gs, ge, ga, gst;
	unsigned int seen = 0;

	int rc = ints_operand(f, n, "starts", 1, 10, starts, &ns, &gs);

	gst = false;
	if (!rc)
		rc = ints_operand(f, n, "ends", 2, 10, ends, &ne, &ge);
	if (!rc)
		rc = ints_operand(f, n, "axes", 3, 10, axes, &na, &ga);
	if (!rc && f->g->opset >= 10)
		rc = ints_operand(f, n, "steps", 4, 10, steps, &nst, &gst);
	if (rc)
		return rc < 0 ? rc : 0;
	if (!gs || !ge || ns != ne || (ga && na != ns) || (gst && nst != ns))
		return fail(f, -EINVAL, "starts, ends, axes and steps differ in length");
	for (int a = 0; a < x->rank; a++) {
		b[a] = 0;
		st[a] = 1;
		dims[a] = x->dims[a];
	}
	for (size_t i = 0; i < ns; i++) {
		int64_t a = ga ? axes[i] : (int64_t)i, d, s, e, step;

		a += a < 0 ? x->rank : 0;
		if (a < 0 || a >= x->rank || (seen & (1u << a)))
			return fail(f, -EINVAL, "axis %lld is outside the rank-%d data or repeated",
				    (long long)(ga ? axes[i] : (int64_t)i), x->rank);
		seen |= 1u << a;
		d = x->dims[a];
		step = gst ? steps[i] : 1;
		if (!step)
			return fail(f, -EINVAL, "a step is 0");
		s = starts[i] < 0 ? starts[i] + d : starts[i];
		e = ends[i] < 0 ? ends[i] + d : ends[i];
		/* clamped as the operator document says: [0, d] forwards,
		 * [-1, d-1] backwards */
		if (step > 0) {
			s = s < 0 ? 0 : s > d ? d : s;
			e = e < 0 ? 0 : e > d ? d : e;
			dims[a] = e > s ? (e - s + step - 1) / step : 0;
		} else {
			s = s < 0 ? 0 : s > d - 1 ? d - 1 : s;
			e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
			dims[a] = s > e ? (s - e - step - 1) / -step : 0;
		}
		b[a] = s;
		st[a] = step;
	}
	rc = cv_alloc(o, x->dtype, x->rank, dims);
	if (rc == 1)
		strided_copy(x, o, b, st);
	return rc;
}

static int ev_concat(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *a = T(f, in_of(n, 0));
	int64_t axis = onnx_attr_int(n, "axis", 0), dims[ONNX_GRAPH_MAX_RANK];
	size_t outer = 1, inner = 1, off = 0, es = onnx_dtype_size(a->dtype);
	int rc;

	if (axis < 0)
		axis += a->rank;
	if (axis < 0 || axis >= a->rank)
		return fail(f, -EINVAL, "axis %lld is outside rank %d",
			    (long long)onnx_attr_int(n, "axis", 0), a->rank);
	memcpy(dims, a->dims, sizeof(dims));
	dims[axis] = 0;
	for (size_t k = 0; k < n->n_in; k++) {
		const struct onnx_tensor *t = in_of(n, k) >= 0 ? T(f, n->in[k]) : NULL;

		if (!t || t->rank != a->rank || t->dtype != a->dtype)
			return fail(f, -EINVAL, "inputs differ in rank or type");
		for (int i = 0; i < a->rank; i++)
			if (i != axis && t->dims[i] != a->dims[i])
				return fail(f, -EINVAL, "inputs differ outside axis %lld",
					    (long long)axis);
		dims[axis] += t->dims[axis];
	}
	for (int i = 0; i < axis; i++)
		outer *= (size_t)dims[i];
	for (int i = (int)axis + 1; i < a->rank; i++)
		inner *= (size_t)dims[i];
	rc = cv_alloc(o, a->dtype, a->rank, dims);
	for (size_t k = 0; rc == 1 && k < n->n_in; k++) {
		const struct onnx_tensor *t = T(f, n->in[k]);
		size_t chunk = (size_t)t->dims[axis] * inner * es;

		for (size_t p = 0; p < outer; p++)
			memcpy((uint8_t *)o->data + p * (size_t)dims[axis] * inner * es + off,
			       (const uint8_t *)t->data + p * chunk, chunk);
		off += chunk;
	}
	return rc;
}

/* Reshape, Unsqueeze, Squeeze, Identity (and Flatten): the same elements
 * under new dims. */
static int relabel(const struct onnx_tensor *x, struct cval *o, int rank, const int64_t *dims)
{
	int rc = cv_alloc(o, x->dtype, rank, dims);

	if (rc == 1 && o->count != x->count) {
		free(o->data);
		o->data = NULL;
		return -EINVAL;
	}
	if (rc == 1)
		memcpy(o->data, x->data, x->count * onnx_dtype_size(x->dtype));
	return rc;
}

static int ev_reshape(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0));
	int64_t v[ONNX_GRAPH_MAX_RANK], known = 1;
	size_t cnt = 0;
	int at = -1, rc;

	if (!const_ints(f, in_of(n, 1), v, ONNX_GRAPH_MAX_RANK, &cnt))
		return fail(f, -EINVAL, "the shape is not 1-D int64 of at most %u values",
			    ONNX_GRAPH_MAX_RANK);
	for (size_t i = 0; i < cnt; i++) {
		if (!v[i] && !onnx_attr_int(n, "allowzero", 0))
			v[i] = (int)i < x->rank ? x->dims[i] : -2;
		if (v[i] == -1 && at < 0)
			at = (int)i;
		else if (v[i] < 0 || (v[i] && known > (int64_t)FOLD_MAX_ELEMS / v[i]))
			return fail(f, -EINVAL, "the shape holds an invalid dimension");
		else
			known *= v[i];
	}
	if (at >= 0)
		v[at] = known ? (int64_t)x->count / known : -1;
	rc = relabel(x, o, (int)cnt, v);
	return rc == -EINVAL ? fail(f, rc, "the shape does not hold the %zu elements", x->count)
			     : rc;
}

static int ev_unsqueeze(struct fold *f, const struct onnx_node *n, struct cval *o, bool squeeze)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0));
	int64_t axes[ONNX_GRAPH_MAX_RANK], dims[ONNX_GRAPH_MAX_RANK];
	size_t na = 0;
	bool given;
	unsigned int mark = 0;
	int r = 0, rc = ints_operand(f, n, "axes", 1, 13, axes, &na, &given);
	int rank = squeeze ? x->rank : x->rank + (int)na;

	if (rc)
		return rc < 0 ? rc : 0;
	if (!squeeze && !given)
		return fail(f, -EINVAL, "axes are missing");
	if (rank > (int)ONNX_GRAPH_MAX_RANK)
		return 0;
	for (size_t i = 0; i < na; i++) {
		int64_t a = axes[i] + (axes[i] < 0 ? rank : 0);

		if (a < 0 || a >= rank || (mark & (1u << a)) || (squeeze && x->dims[a] != 1))
			return fail(f, -EINVAL, "axis %lld is out of range, repeated or not of "
				    "size 1", (long long)axes[i]);
		mark |= 1u << a;
	}
	for (int a = 0, k = 0; a < rank; a++) {
		if (squeeze) {
			if ((given && (mark & (1u << a))) || (!given && x->dims[a] == 1))
				continue;
			dims[r++] = x->dims[a];
		} else {
			dims[r++] = (mark & (1u << a)) ? 1 : x->dims[k++];
		}
	}
	return relabel(x, o, r, dims);
}

static int ev_cast(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0));
	int64_t to = onnx_attr_int(n, "to", 0);
	bool from_int = is_int_dtype(x->dtype);
	int rc;

	if (to != ONNX_DT_FLOAT && to != ONNX_DT_DOUBLE && !is_int_dtype((int32_t)to))
		return 0;
	if (!from_int && x->dtype != ONNX_DT_FLOAT && x->dtype != ONNX_DT_DOUBLE)
		return 0;
	rc = cv_alloc(o, (int32_t)to, x->rank, x->dims);
	for (size_t i = 0; rc == 1 && i < x->count; i++) {
		double d = get_d(x, i);

		if (to == ONNX_DT_FLOAT || to == ONNX_DT_DOUBLE) {
			put_d(o, i, from_int ? (double)get_i(x, i) : d);
		} else if (to == ONNX_DT_BOOL) {
			put_i(o, i, from_int ? get_i(x, i) != 0 : d != 0);
		} else if (from_int) {
			put_i(o, i, get_i(x, i));
		} else {
			/* float to integer truncates; outside int64 it has no value */
			if (!(d > -9.2e18 && d < 9.2e18)) {
				free(o->data);
				o->data = NULL;
				return fail(f, -EINVAL, "%g has no integer value", d);
			}
			put_i(o, i, (int64_t)d);
		}
	}
	return rc;
}

static int ev_constant_of_shape(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_attr *v = onnx_node_attr(n, "value");
	int64_t dims[ONNX_GRAPH_MAX_RANK];
	size_t cnt;
	int32_t dt = ONNX_DT_FLOAT;
	int rc;

	if (!const_ints(f, in_of(n, 0), dims, ONNX_GRAPH_MAX_RANK, &cnt) ||
	    T(f, in_of(n, 0))->dtype != ONNX_DT_INT64)
		return fail(f, -EINVAL, "the shape is not 1-D int64 of at most %u values",
			    ONNX_GRAPH_MAX_RANK);
	if (v && (v->type != ONNX_ATTR_TENSOR || v->t->count != 1 || !onnx_dtype_size(v->t->dtype)))
		return fail(f, -EINVAL, "value is not a tensor of one element");
	if (v)
		dt = v->t->dtype;
	/* a float fill is data (TensorFlow's channel pads: Concat with
	 * zeros), which the importers map as it is written */
	if (dt == ONNX_DT_FLOAT || dt == ONNX_DT_DOUBLE || dt == ONNX_DT_FLOAT16)
		return 0;
	rc = cv_alloc(o, dt, (int)cnt, dims);
	for (size_t i = 0; rc == 1 && v && i < o->count; i++)
		memcpy((uint8_t *)o->data + i * onnx_dtype_size(dt), v->t->data,
		       onnx_dtype_size(dt));
	return rc;
}

static int ev_range(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *s = T(f, in_of(n, 0)), *l = T(f, in_of(n, 1)),
				 *d = T(f, in_of(n, 2));
	bool ints = is_int_dtype(s->dtype);
	double len;
	int64_t cnt;
	int rc;

	if (s->count != 1 || l->count != 1 || d->count != 1 || s->dtype != l->dtype ||
	    s->dtype != d->dtype)
		return fail(f, -EINVAL, "start, limit and delta are not scalars of one type");
	if (get_d(d, 0) == 0)
		return fail(f, -EINVAL, "delta is 0");
	len = ceil((get_d(l, 0) - get_d(s, 0)) / get_d(d, 0));
	if (!(len < (double)FOLD_MAX_ELEMS))
		return 0;
	cnt = len > 0 ? (int64_t)len : 0;
	rc = cv_alloc(o, s->dtype, 1, &cnt);
	for (int64_t i = 0; rc == 1 && i < cnt; i++) {
		int64_t v;

		if (!ints) {
			put_d(o, (size_t)i, get_d(s, 0) + (double)i * get_d(d, 0));
		} else if (__builtin_mul_overflow(i, get_i(d, 0), &v) ||
			   __builtin_add_overflow(v, get_i(s, 0), &v)) {
			free(o->data);
			o->data = NULL;
			return fail(f, -EINVAL, "the values overflow");
		} else {
			put_i(o, (size_t)i, v);
		}
	}
	return rc;
}

/* Add, Sub, Mul, Div (numpy broadcasting) and Floor, Ceil, Neg, Abs on
 * constants, in the operands' type: float32 arithmetic for float32,
 * integer division truncating (as onnxruntime's). */
static int ev_arith(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const char *op = n->op_type;
	bool unary = !strcmp(op, "Floor") || !strcmp(op, "Ceil") || !strcmp(op, "Neg") ||
		     !strcmp(op, "Abs");
	const struct onnx_tensor *a = T(f, in_of(n, 0)), *b = unary ? a : T(f, in_of(n, 1));
	bool ints = is_int_dtype(a->dtype);
	int rank = a->rank > b->rank ? a->rank : b->rank, rc;
	int64_t dims[ONNX_GRAPH_MAX_RANK], idx[ONNX_GRAPH_MAX_RANK] = { 0 };
	size_t sa[ONNX_GRAPH_MAX_RANK], sb[ONNX_GRAPH_MAX_RANK], pa = 1, pb = 1;

	if (a->dtype != b->dtype || a->dtype == ONNX_DT_BOOL ||
	    (!ints && a->dtype != ONNX_DT_FLOAT && a->dtype != ONNX_DT_DOUBLE) ||
	    (ints && (!strcmp(op, "Floor") || !strcmp(op, "Ceil"))))
		return 0;
	for (int i = rank - 1; i >= 0; i--) {
		int ia = i - (rank - a->rank), ib = i - (rank - b->rank);
		int64_t da = ia >= 0 ? a->dims[ia] : 1, db = ib >= 0 ? b->dims[ib] : 1;

		if (da != db && da != 1 && db != 1)
			return fail(f, -EINVAL, "operand shapes do not broadcast");
		dims[i] = da == 1 ? db : da;
		sa[i] = da == 1 ? 0 : pa;
		sb[i] = db == 1 ? 0 : pb;
		pa *= (size_t)da;
		pb *= (size_t)db;
	}
	/* a float division by 0 is left to run as written */
	for (size_t i = 0; !ints && !strcmp(op, "Div") && i < b->count; i++)
		if (get_d(b, i) == 0)
			return 0;
	rc = cv_alloc(o, a->dtype, rank, dims);
	for (size_t i = 0; rc == 1 && i < o->count; i++) {
		size_t oa = 0, ob = 0;

		for (int k = 0; k < rank; k++) {
			oa += (size_t)idx[k] * sa[k];
			ob += (size_t)idx[k] * sb[k];
		}
		if (ints) {
			int64_t x = get_i(a, oa), y = unary ? 0 : get_i(b, ob), r = 0;
			bool over = false;

			if (!strcmp(op, "Add"))
				over = __builtin_add_overflow(x, y, &r);
			else if (!strcmp(op, "Sub"))
				over = __builtin_sub_overflow(x, y, &r);
			else if (!strcmp(op, "Mul"))
				over = __builtin_mul_overflow(x, y, &r);
			else if (!strcmp(op, "Div")) {
				if (!y || (x == INT64_MIN && y == -1)) {
					free(o->data);
					o->data = NULL;
					return fail(f, -EINVAL, "integer division by 0");
				}
				r = x / y;
			} else if (!strcmp(op, "Neg"))
				over = __builtin_sub_overflow((int64_t)0, x, &r);
			else
				over = x == INT64_MIN, r = x < 0 ? -x : x;
			if (over) {
				free(o->data);
				o->data = NULL;
				return fail(f, -EINVAL, "the integer result overflows");
			}
			put_i(o, i, r);
		} else if (a->dtype == ONNX_DT_FLOAT) {
			float x = (float)get_d(a, oa), y = unary ? 0 : (float)get_d(b, ob), r;

			r = !strcmp(op, "Add") ? x + y : !strcmp(op, "Sub") ? x - y :
			    !strcmp(op, "Mul") ? x * y : !strcmp(op, "Div") ? x / y :
			    !strcmp(op, "Floor") ? floorf(x) : !strcmp(op, "Ceil") ? ceilf(x) :
			    !strcmp(op, "Neg") ? -x : fabsf(x);
			put_d(o, i, r);
		} else {
			double x = get_d(a, oa), y = unary ? 0 : get_d(b, ob), r;

			r = !strcmp(op, "Add") ? x + y : !strcmp(op, "Sub") ? x - y :
			    !strcmp(op, "Mul") ? x * y : !strcmp(op, "Div") ? x / y :
			    !strcmp(op, "Floor") ? floor(x) : !strcmp(op, "Ceil") ? ceil(x) :
			    !strcmp(op, "Neg") ? -x : fabs(x);
			put_d(o, i, r);
		}
		for (int k = rank - 1; k >= 0; k--) {
			if (++idx[k] < dims[k])
				break;
			idx[k] = 0;
		}
	}
	return rc;
}

/* Numpy broadcasting of operands t[0..n): the output's rank and dims, and
 * each operand's element stride along each output axis (0 where it
 * broadcasts); false when the shapes do not broadcast. */
static bool broadcast(const struct onnx_tensor *const *t, size_t n, int *rank, int64_t *dims,
		      size_t st[][ONNX_GRAPH_MAX_RANK])
{
	int r = 0;

	for (size_t k = 0; k < n; k++)
		r = t[k]->rank > r ? t[k]->rank : r;
	for (int i = r - 1; i >= 0; i--) {
		dims[i] = 1;
		for (size_t k = 0; k < n; k++) {
			int j = i - (r - t[k]->rank);
			int64_t d = j >= 0 ? t[k]->dims[j] : 1;

			if (d != 1 && dims[i] != 1 && dims[i] != d)
				return false;
			if (d != 1)
				dims[i] = d;
		}
	}
	for (size_t k = 0; k < n; k++) {
		size_t s = 1;

		for (int i = r - 1; i >= 0; i--) {
			int j = i - (r - t[k]->rank);
			int64_t d = j >= 0 ? t[k]->dims[j] : 1;

			st[k][i] = d == 1 ? 0 : s;
			s *= (size_t)d;
		}
	}
	*rank = r;
	return true;
}

/* Offset in operand k of output index idx. */
static size_t offset_of(const int64_t *idx, int rank, const size_t *st)
{
	size_t off = 0;

	for (int i = 0; i < rank; i++)
		off += (size_t)idx[i] * st[i];
	return off;
}

static void next_index(int64_t *idx, const int64_t *dims, int rank)
{
	for (int k = rank - 1; k >= 0; k--) {
		if (++idx[k] < dims[k])
			return;
		idx[k] = 0;
	}
}

/* Equal, Where, Expand (on constants): what PyTorch's exports compute
 * sizes with, e.g. Where(Equal(shape, -1), 1, shape) before an Expand. */
static int ev_select(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *t[3] = { T(f, in_of(n, 0)), T(f, in_of(n, 1)), NULL };
	size_t st[3][ONNX_GRAPH_MAX_RANK], es;
	int64_t dims[ONNX_GRAPH_MAX_RANK], idx[ONNX_GRAPH_MAX_RANK] = { 0 };
	struct onnx_tensor shape = { .rank = 0 };
	bool equal = !strcmp(n->op_type, "Equal"), where = !strcmp(n->op_type, "Where");
	size_t cnt = 0, nt = 2;
	int rank, rc;

	if (where) {
		t[2] = T(f, in_of(n, 2));
		nt = 3;
		if (t[0]->dtype != ONNX_DT_BOOL || t[1]->dtype != t[2]->dtype)
			return fail(f, -EINVAL, "the condition is not bool or the values "
				    "differ in type");
	} else if (equal) {
		if (t[0]->dtype != t[1]->dtype || !onnx_dtype_size(t[0]->dtype) ||
		    t[0]->dtype == ONNX_DT_FLOAT16)
			return 0;
	} else {	/* Expand: the shape as a tensor of those dims */
		if (!const_ints(f, in_of(n, 1), shape.dims, ONNX_GRAPH_MAX_RANK, &cnt))
			return fail(f, -EINVAL, "the shape is not 1-D int64 of at most %u values",
				    ONNX_GRAPH_MAX_RANK);
		for (size_t i = 0; i < cnt; i++)
			if (shape.dims[i] < 0)
				return fail(f, -EINVAL, "the shape holds a negative dimension");
		shape.rank = (int)cnt;
		t[1] = &shape;
	}
	if (!broadcast(t, nt, &rank, dims, st))
		return fail(f, -EINVAL, "operand shapes do not broadcast");
	rc = cv_alloc(o, equal ? ONNX_DT_BOOL : t[where ? 1 : 0]->dtype, rank, dims);
	es = onnx_dtype_size(o->dtype);
	for (size_t i = 0; rc == 1 && i < o->count; i++) {
		size_t a = offset_of(idx, rank, st[0]), b = offset_of(idx, rank, st[1]);

		if (equal) {
			bool eq = is_int_dtype(t[0]->dtype) ? get_i(t[0], a) == get_i(t[1], b)
							    : get_d(t[0], a) == get_d(t[1], b);

			put_i(o, i, eq);
		} else if (where) {
			const struct onnx_tensor *src = get_i(t[0], a) ? t[1] : t[2];
			size_t at = get_i(t[0], a) ? b : offset_of(idx, rank, st[2]);

			memcpy((uint8_t *)o->data + i * es, (const uint8_t *)src->data + at * es, es);
		} else {
			memcpy((uint8_t *)o->data + i * es, (const uint8_t *)t[0]->data + a * es, es);
		}
		next_index(idx, dims, rank);
	}
	return rc;
}

static int ev_transpose(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0));
	const struct onnx_attr *p = onnx_node_attr(n, "perm");
	int64_t perm[ONNX_GRAPH_MAX_RANK], dims[ONNX_GRAPH_MAX_RANK];
	int64_t idx[ONNX_GRAPH_MAX_RANK] = { 0 };
	size_t xs[ONNX_GRAPH_MAX_RANK], st[ONNX_GRAPH_MAX_RANK], s = 1;
	size_t es = onnx_dtype_size(x->dtype);
	unsigned int seen = 0;
	int rc;

	for (int i = x->rank - 1; i >= 0; i--) {
		xs[i] = s;
		s *= (size_t)x->dims[i];
	}
	for (int i = 0; i < x->rank; i++) {
		perm[i] = !p ? x->rank - 1 - i :
			  p->type == ONNX_ATTR_INTS && p->n == (size_t)x->rank ? p->ints[i] : -1;
		if (perm[i] < 0 || perm[i] >= x->rank || (seen & (1u << perm[i])))
			return fail(f, -EINVAL, "perm is not a permutation of the %d axes", x->rank);
		seen |= 1u << perm[i];
		dims[i] = x->dims[perm[i]];
		st[i] = xs[perm[i]];
	}
	rc = cv_alloc(o, x->dtype, x->rank, dims);
	for (size_t i = 0; rc == 1 && i < o->count; i++) {
		memcpy((uint8_t *)o->data + i * es,
		       (const uint8_t *)x->data + offset_of(idx, x->rank, st) * es, es);
		next_index(idx, dims, x->rank);
	}
	return rc;
}

static int ev_squeeze(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	return ev_unsqueeze(f, n, o, true);
}

static int ev_unsq(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	return ev_unsqueeze(f, n, o, false);
}

static int ev_identity(struct fold *f, const struct onnx_node *n, struct cval *o)
{
	const struct onnx_tensor *x = T(f, in_of(n, 0));

	return relabel(x, o, x->rank, x->dims);
}

static const struct {
	const char *op;
	int (*ev)(struct fold *f, const struct onnx_node *n, struct cval *o);
	size_t n_in;		/* inputs it cannot do without (ONNX) */
	bool any_input;		/* reads only its input's shape (Shape, Size) */
} evals[] = {
	{ "Shape", ev_shape, 1, true }, { "Size", ev_shape, 1, true },
	{ "Gather", ev_gather, 2, false }, { "Slice", ev_slice, 1, false },
	{ "Concat", ev_concat, 1, false }, { "Cast", ev_cast, 1, false },
	{ "Reshape", ev_reshape, 2, false }, { "ConstantOfShape", ev_constant_of_shape, 1, false },
	{ "Range", ev_range, 3, false }, { "Add", ev_arith, 2, false },
	{ "Sub", ev_arith, 2, false }, { "Mul", ev_arith, 2, false }, { "Div", ev_arith, 2, false },
	{ "Floor", ev_arith, 1, false }, { "Ceil", ev_arith, 1, false },
	{ "Neg", ev_arith, 1, false }, { "Abs", ev_arith, 1, false },
	{ "Squeeze", ev_squeeze, 1, false }, { "Unsqueeze", ev_unsq, 1, false },
	{ "Identity", ev_identity, 1, false }, { "Equal", ev_select, 2, false },
	{ "Where", ev_select, 3, false }, { "Expand", ev_select, 2, false },
	{ "Transpose", ev_transpose, 1, false },
};

/*
 * Node n as a constant when its inputs are: 1 folded, 0 left as it is,
 * negative with a message.
 */
static int fold_constant(struct fold *f, const struct onnx_node *n)
{
	int (*ev)(struct fold *, const struct onnx_node *, struct cval *) = NULL;
	bool any_input = false;
	struct cval o = { 0 };
	int rc;

	if (*n->domain || n->n_out != 1 || n->out[0] < 0 || onnx_declared_cpu_op(f->g, n))
		return 0;
	for (size_t i = 0; i < sizeof(evals) / sizeof(evals[0]); i++)
		if (!strcmp(n->op_type, evals[i].op)) {
			ev = evals[i].ev;
			any_input = evals[i].any_input;
			for (size_t k = 0; k < evals[i].n_in; k++)
				if (in_of(n, k) < 0)
					return 0;	/* malformed: the later stages say so */
		}
	if (!ev)
		return 0;
	for (size_t i = 0; !any_input && i < n->n_in; i++)
		if (n->in[i] >= 0 && !is_const(f, n->in[i]))
			return 0;
	if (f->err_len)
		f->err[0] = '\0';
	rc = ev(f, n, &o);
	if (rc == 1)
		commit(f, &o);
	free(o.data);
	if (rc == -ENOMEM)
		return fail(f, rc, "out of memory");
	if (rc == -EINVAL && f->err_len && !f->err[0])
		return fail(f, rc, "its constant inputs are invalid");
	return rc;
}

/* ---- Identity, Dropout, a Reshape to the same shape, a Cast to the same type ---- */

/* Whether n is a Reshape or Flatten whose output has its input's shape,
 * both known (PyTorch's x.view(x.size(0), -1) of a tensor already flat). */
static bool same_shape_reshape(const struct fold *f, const struct onnx_node *n)
{
	const struct onnx_tensor *x, *y;

	if (!(is_op(f, n, "Reshape") || is_op(f, n, "Flatten")) || in_of(n, 0) < 0 ||
	    n->n_out != 1 || n->out[0] < 0)
		return false;
	x = T(f, in_of(n, 0));
	y = T(f, n->out[0]);
	if (x->rank < 0 || x->rank != y->rank)
		return false;
	for (int k = 0; k < x->rank; k++)
		if (x->dims[k] < 0 || x->dims[k] != y->dims[k])
			return false;
	return true;
}

/* Whether n is a Cast to its input's own element type (LayerNorm's stash
 * type spelled out, PyTorch's x.float() of a float tensor). */
static bool same_type_cast(const struct fold *f, const struct onnx_node *n)
{
	return is_op(f, n, "Cast") && in_of(n, 0) >= 0 && T(f, in_of(n, 0))->dtype &&
	       onnx_attr_int(n, "to", 0) == T(f, in_of(n, 0))->dtype;
}

/* Drops an Identity, an inference Dropout, a Reshape / Flatten to the
 * same shape or a Cast to the same type: readers take its input, or, when
 * its output is a graph output, the producer writes that output. Returns
 * whether it went. */
static bool drop_passthrough(struct fold *f, struct onnx_node *n)
{
	int x = in_of(n, 0), y = n->out[0];
	struct onnx_node *p;

	if (!(is_op(f, n, "Identity") || is_op(f, n, "Dropout") || same_shape_reshape(f, n) ||
	      same_type_cast(f, n)) || x < 0 || y < 0)
		return false;
	if (is_op(f, n, "Dropout")) {
		int train = in_of(n, 2);

		/* the mask output read, or training mode not constant false */
		if (n->n_out > 1 && n->out[1] >= 0 &&
		    (readers(f, n->out[1]) || T(f, n->out[1])->is_output))
			return false;
		if (train >= 0 && !(is_const(f, train) && T(f, train)->count == 1 &&
				    is_int_dtype(T(f, train)->dtype) && !get_i(T(f, train), 0)))
			return false;
	}
	if (!T(f, y)->is_output) {
		replace_uses(f, y, x);
	} else {
		p = producer(f, x);
		if (!p || T(f, x)->is_output)
			return false;
		for (size_t k = 0; k < p->n_out; k++)
			if (p->out[k] == x)
				p->out[k] = y;
		replace_uses(f, x, y);
		if (!T(f, y)->dtype)
			T(f, y)->dtype = T(f, x)->dtype;
	}
	kill(f, n);
	f->st->removed++;
	return true;
}

/* ---- Sum, Mean, Max, Min of any number of inputs ---- */

static int new_tensor(struct fold *f, int t, const char *suffix);
static int insert_node(struct fold *f, size_t at, const char *op, const int in[2], int out);

/* A float constant of shape dims (rank 0: a scalar) holding v, or `fill`
 * everywhere when v is NULL, named after tensor t: its index, or -ENOMEM. */
static int float_const(struct fold *f, int t, const char *suffix, const float *v, float fill,
		       int rank, const int64_t *dims)
{
	int c = new_tensor(f, t, suffix);
	size_t count = 1;
	float *data;

	if (c < 0)
		return c;
	for (int i = 0; i < rank; i++)
		count *= (size_t)dims[i];
	data = malloc(count * sizeof(*data));
	if (!data)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++)
		data[i] = v ? v[i] : fill;
	T(f, c)->role = ONNX_TENSOR_CONSTANT;
	T(f, c)->dtype = ONNX_DT_FLOAT;
	T(f, c)->rank = rank;
	if (rank)
		memcpy(T(f, c)->dims, dims, (size_t)rank * sizeof(*dims));
	T(f, c)->data = data;
	T(f, c)->count = count;
	return c;
}

/*
 * ONNX's variadic Sum, Mean, Max and Min (numpy broadcasting across all
 * inputs) as the binary ops the importers take, in place of node i: one
 * input is an Identity; k inputs a chain of k - 1 Adds (Sum, Mean), Maxes
 * or Mins, left to right, and Mean a Mul by 1/k after it. The chain's
 * intermediate results are tensors of their own (in int8 each quantised as
 * calibrated). Returns 0, or -ENOMEM.
 */
static int fold_variadic(struct fold *f, size_t i)
{
	struct onnx_node *n = &f->g->nodes[i];
	bool mean = is_op(f, n, "Mean");
	const char *bin = is_op(f, n, "Max") ? "Max" : is_op(f, n, "Min") ? "Min" : "Add";
	size_t k = n->n_in;
	int y = n->out[0], acc, in[2];
	char *name;

	if (!(is_op(f, n, "Sum") || mean || ((is_op(f, n, "Max") || is_op(f, n, "Min")) &&
					     k != 2)) || n->n_out != 1 || y < 0 || !k)
		return 0;
	for (size_t j = 0; j < k; j++)
		if (n->in[j] < 0)
			return 0;
	name = malloc(strlen(k == 1 ? "Identity" : bin) + 1);
	if (!name)
		return -ENOMEM;
	strcpy(name, k == 1 ? "Identity" : bin);
	free(n->op_type);
	n->op_type = name;
	if (k == 1 && !mean)
		return 0;
	/* node i computes the first pair (or, Mean of one, passes it on) */
	acc = k == 2 && !mean ? y : new_tensor(f, y, "_acc1");
	if (acc < 0)
		return acc;
	n->n_in = k == 1 ? 1 : 2;
	n->out[0] = acc;
	for (size_t j = 2; j < k; j++) {
		char suffix[32];
		int next = j == k - 1 && !mean ? y : -1;

		snprintf(suffix, sizeof(suffix), "_acc%zu", j);
		if (next < 0)
			next = new_tensor(f, y, suffix);
		if (next < 0)
			return next;
		in[0] = acc;
		in[1] = f->g->nodes[i].in[j];
		if (insert_node(f, i + j - 1, bin, in, next))
			return -ENOMEM;
		acc = next;
	}
	if (mean) {
		float inv = 1.0f / (float)k;
		int c = float_const(f, y, "_inv_count", &inv, 0.0f, 0, NULL);

		if (c < 0)
			return c;
		in[0] = acc;
		in[1] = c;
		if (insert_node(f, i + (k > 1 ? k - 1 : 1), "Mul", in, y))
			return -ENOMEM;
	}
	return 0;
}

/* ---- InstanceNormalization ---- */

static int to_layernorm(struct onnx_node *n, const int in[3], int64_t axis, float eps);

/*
 * InstanceNormalization of an [N, C, ...] tensor (its shape known, scale
 * and B constants of C values), node i, as the LayerNormalization of the
 * axes from 2 on (unit scale, zero bias) followed by a Mul by the scale
 * and an Add of B per channel ([C, 1, ...], broadcasting): the importers'
 * ops. Returns 0 (left as it is, or rewritten), or -ENOMEM.
 */
static int fold_instancenorm(struct fold *f, size_t i)
{
	struct onnx_node *n = &f->g->nodes[i];
	const struct onnx_tensor *x = in_of(n, 0) >= 0 ? T(f, in_of(n, 0)) : NULL;
	int sc = in_of(n, 1), b = in_of(n, 2), y = n->out[0], one, zero, s_c, b_c, t1, t2;
	int64_t cdims[ONNX_GRAPH_MAX_RANK], xdims[ONNX_GRAPH_MAX_RANK];
	float *sv = NULL, *bv = NULL;
	int rc = -ENOMEM, rank;

	if (!is_op(f, n, "InstanceNormalization") || !x || x->rank < 3 || sc < 0 || b < 0 ||
	    n->n_out != 1 || y < 0 || !is_const(f, sc) || !is_const(f, b) ||
	    T(f, sc)->dtype != ONNX_DT_FLOAT || T(f, b)->dtype != ONNX_DT_FLOAT ||
	    T(f, sc)->count != (size_t)x->dims[1] || T(f, b)->count != (size_t)x->dims[1])
		return 0;
	for (int k = 0; k < x->rank; k++)
		if (x->dims[k] < 1)
			return 0;
	/* x's shape copied: new tensors move the tensor array */
	rank = x->rank;
	memcpy(xdims, x->dims, (size_t)rank * sizeof(*xdims));
	x = NULL;
	/* the channels' scale and B as [C, 1, ...]: right-aligned they meet axis 1 */
	cdims[0] = xdims[1];
	for (int k = 1; k < rank - 1; k++)
		cdims[k] = 1;
	sv = malloc((size_t)xdims[1] * sizeof(*sv));
	bv = malloc((size_t)xdims[1] * sizeof(*bv));
	if (!sv || !bv)
		goto out;
	for (int64_t c = 0; c < xdims[1]; c++) {
		sv[c] = (float)get_d(T(f, sc), (size_t)c);
		bv[c] = (float)get_d(T(f, b), (size_t)c);
	}
	one = float_const(f, y, "_in_unit", NULL, 1.0f, rank - 2, xdims + 2);
	zero = one < 0 ? one : float_const(f, y, "_in_zeros", NULL, 0.0f, rank - 2, xdims + 2);
	s_c = zero < 0 ? zero : float_const(f, y, "_in_gamma", sv, 0, rank - 1, cdims);
	b_c = s_c < 0 ? s_c : float_const(f, y, "_in_beta", bv, 0, rank - 1, cdims);
	t1 = b_c < 0 ? b_c : new_tensor(f, y, "_in_normalised");
	t2 = t1 < 0 ? t1 : new_tensor(f, y, "_in_scaled");
	if (t2 < 0)
		goto out;
	n = &f->g->nodes[i];
	if (to_layernorm(n, (int[]){ in_of(n, 0), one, zero }, 2,
			 onnx_attr_float(n, "epsilon", 1e-5f)))
		goto out;
	n->out[0] = t1;
	if (insert_node(f, i + 1, "Mul", (int[]){ t1, s_c }, t2) ||
	    insert_node(f, i + 2, "Add", (int[]){ t2, b_c }, y))
		goto out;
	f->st->activations++;
	rc = 0;
out:
	free(sv);
	free(bv);
	return rc;
}

/* ---- pass 1: constants, pass-throughs, shapes ---- */

static int fold_shapes(struct fold *f)
{
	struct onnx_graph *g = f->g;

	for (size_t i = 0; i < g->n_nodes; i++) {
		struct onnx_node *n = &g->nodes[i];
		char why[sizeof(f->why)];
		int rc;

		f->n = n;
		rc = fold_variadic(f, i);
		if (!rc)
			rc = fold_instancenorm(f, i);
		if (rc < 0)
			return fail(f, rc, "out of memory");
		n = &g->nodes[i];
		if (drop_passthrough(f, n))
			continue;
		rc = fold_constant(f, n);
		if (rc < 0)
			return rc;
		if (rc) {
			kill(f, n);
			f->st->constants++;
			continue;
		}
		if (onnx_infer_node(g, n, why, sizeof(why))) {
			/* not fatal: later stages judge the node; a Shape
			 * reading what follows says why it cannot fold */
			for (size_t k = 0; k < n->n_out; k++)
				if (n->out[k] >= 0)
					T(f, n->out[k])->rank = -1;
			if (!f->why[0])
				snprintf(f->why, sizeof(f->why), "%s", why);
		} else {
			/* a Reshape's shape is known once inferred */
			drop_passthrough(f, n);
		}
	}
	/* a shape operand left computed at run time is the fold's failure */
	for (size_t i = 0; i < g->n_nodes; i++) {
		const struct onnx_node *n = &g->nodes[i];
		int s = in_of(n, 1);

		f->n = n;
		if (!f->dead[i] && s >= 0 && !is_const(f, s) &&
		    (is_op(f, n, "Reshape") || is_op(f, n, "Expand") || is_op(f, n, "Tile"))) {
			const struct onnx_node *p = producer(f, s);

			if (p)
				return fail(f, -ENOTSUP, "its shape input '%s' is computed from "
					    "values known only at run time (node '%s' (%s) does "
					    "not fold to a constant)", T(f, s)->name, p->name,
					    p->op_type);
		}
	}
	return 0;
}

/* Whether every reader of t is an element-wise op of two inputs that
 * broadcasts (numpy's rule) with its other operand of t's very shape, so
 * that it would broadcast a smaller t itself. */
static bool read_broadcast_only(const struct fold *f, int t)
{
	static const char *const ops[] = { "Add", "Sub", "Mul", "Div", "Max", "Min", "Pow" };
	const struct onnx_tensor *y = T(f, t);

	if (y->is_output || !shape_known(y) || !readers(f, t))
		return false;
	for (size_t i = 0; i < f->g->n_nodes; i++) {
		const struct onnx_node *r = &f->g->nodes[i];
		bool reads = false, known = false;
		int other;

		for (size_t k = 0; !f->dead[i] && k < r->n_in; k++)
			reads |= r->in[k] == t;
		if (!reads)
			continue;
		for (size_t k = 0; k < sizeof(ops) / sizeof(ops[0]); k++)
			known |= is_op(f, r, ops[k]);
		if (!known || r->n_in != 2 || r->in[0] == r->in[1])
			return false;
		other = r->in[0] == t ? r->in[1] : r->in[0];
		if (other < 0 || T(f, other)->rank != y->rank ||
		    memcmp(T(f, other)->dims, y->dims, (size_t)y->rank * sizeof(*y->dims)))
			return false;
	}
	return true;
}

/*
 * An Expand whose result only element-wise ops read, each against an
 * operand of the expanded shape (PyTorch's x * s.expand_as(x) in
 * squeeze-and-excitation), goes: those ops broadcast its input alike.
 */
static void fold_expands(struct fold *f)
{
	for (size_t i = 0; i < f->g->n_nodes; i++) {
		struct onnx_node *n = &f->g->nodes[i];

		f->n = n;
		if (f->dead[i] || !is_op(f, n, "Expand") || in_of(n, 0) < 0 || n->n_out != 1 ||
		    !read_broadcast_only(f, n->out[0]))
			continue;
		replace_uses(f, n->out[0], in_of(n, 0));
		kill(f, n);
		f->st->removed++;
	}
}

/* ---- pass 2: affine maps into the producing Conv / ConvTranspose / Gemm ---- */

/* The output channels of node p (Conv, ConvTranspose, Gemm with constant
 * float32 weights), or 0 when p is not one or cannot take a fold. */
static int64_t out_channels(const struct fold *f, const struct onnx_node *p, int *rank)
{
	int w = in_of(p, 1);
	const struct onnx_tensor *wt = w >= 0 ? T(f, w) : NULL;
	int64_t group = onnx_attr_int(p, "group", 1);

	if (!wt || wt->role != ONNX_TENSOR_CONSTANT || wt->dtype != ONNX_DT_FLOAT ||
	    p->n_out != 1)
		return 0;
	if (in_of(p, 2) >= 0 && (!is_const(f, p->in[2]) || T(f, p->in[2])->dtype != ONNX_DT_FLOAT))
		return 0;
	if (is_op(f, p, "Conv") && wt->rank >= 3 && wt->dims[0] > 0) {
		*rank = wt->rank;
		return wt->dims[0];
	}
	if (is_op(f, p, "ConvTranspose") && wt->rank >= 3 && group >= 1 &&
	    wt->dims[0] % group == 0 && wt->dims[1] > 0 && wt->dims[1] <= INT32_MAX / group) {
		*rank = wt->rank;
		return wt->dims[1] * group;
	}
	if (is_op(f, p, "Gemm") && wt->rank == 2 && wt->dims[0] > 0 && wt->dims[1] > 0) {
		*rank = 2;
		return wt->dims[onnx_attr_int(p, "transB", 0) ? 0 : 1];
	}
	return 0;
}

/* A tensor like t's, named after it, with no shape yet: its index, or
 * -ENOMEM. */
static int new_tensor(struct fold *f, int t, const char *suffix)
{
	size_t len = strlen(f->g->tensors[t].name) + strlen(suffix) + 1;
	char *name = malloc(len);
	struct onnx_tensor *grown;

	if (!name)
		return -ENOMEM;
	snprintf(name, len, "%s%s", f->g->tensors[t].name, suffix);
	grown = realloc(f->g->tensors, (f->g->n_tensors + 1) * sizeof(*grown));
	if (!grown) {
		free(name);
		return -ENOMEM;
	}
	f->g->tensors = grown;
	grown[f->g->n_tensors] = (struct onnx_tensor){
		.name = name, .role = ONNX_TENSOR_ACTIVATION, .dtype = grown[t].dtype, .rank = -1,
	};
	return (int)f->g->n_tensors++;
}

/* Tensor t for node p's input slot k alone: a copy when others read it. */
static int own_input(struct fold *f, struct onnx_node *p, size_t k)
{
	int t = p->in[k], nt;
	struct onnx_tensor *tt;
	char suffix[32], *name;
	size_t bytes;

	if (readers(f, t) == 1 && !T(f, t)->is_output)
		return t;
	snprintf(suffix, sizeof(suffix), "_fold%zu", f->g->n_tensors);
	nt = new_tensor(f, t, suffix);
	if (nt < 0)
		return nt;
	tt = T(f, nt);
	name = tt->name;
	*tt = *T(f, t);
	tt->name = name;
	tt->is_output = false;
	bytes = tt->count * onnx_dtype_size(tt->dtype);
	tt->data = malloc(bytes ? bytes : 1);
	if (!tt->data)
		return -ENOMEM;
	memcpy(tt->data, T(f, t)->data, bytes);
	p->in[k] = nt;
	return nt;
}

/* Gives p (Conv, ConvTranspose: input 2; Gemm: input 2 with beta 1) a bias
 * of `ch` floats it alone reads, expanded from what it has. */
static int own_bias(struct fold *f, struct onnx_node *p, int64_t ch, float **bias)
{
	int old = in_of(p, 2), nt;
	const struct onnx_tensor *o = old >= 0 ? T(f, old) : NULL;
	bool gemm = is_op(f, p, "Gemm");
	double beta = gemm ? onnx_attr_float(p, "beta", 1.0f) : 1.0;
	struct onnx_tensor *t;
	char suffix[32];
	float *v;
	int *in;

	/* a Gemm C of one value per column (or one value) only */
	if (o && !(o->count == 1 || (o->count == (size_t)ch && o->dims[o->rank - 1] == ch)))
		return 0;
	if (gemm && o && o->rank == 2 && o->dims[0] != 1)
		return 0;
	if (o && o->rank == 1 && o->count == (size_t)ch && beta == 1.0) {
		nt = own_input(f, p, 2);
		if (nt < 0)
			return nt;
		*bias = T(f, nt)->data;
		return 1;
	}
	v = malloc((size_t)ch * sizeof(float));
	if (!v)
		return -ENOMEM;
	for (int64_t c = 0; c < ch; c++)
		v[c] = o ? (float)(beta * ((const float *)o->data)[o->count == 1 ? 0 : c]) : 0.0f;
	snprintf(suffix, sizeof(suffix), "_bias_fold%zu", f->g->n_tensors);
	nt = new_tensor(f, p->out[0], suffix);
	if (nt < 0) {
		free(v);
		return nt;
	}
	t = T(f, nt);
	t->role = ONNX_TENSOR_CONSTANT;
	t->dtype = ONNX_DT_FLOAT;
	t->rank = 1;
	t->dims[0] = ch;
	t->data = v;
	t->count = (size_t)ch;
	if (p->n_in < 3) {
		in = realloc(p->in, 4 * sizeof(*in));
		if (!in)
			return -ENOMEM;
		p->in = in;
		while (p->n_in < 3)
			p->in[p->n_in++] = -1;
	}
	p->in[2] = nt;
	if (gemm)
		for (size_t a = 0; a < p->n_attr; a++)
			if (!strcmp(p->attr[a].name, "beta"))
				p->attr[a].f = 1.0f;
	*bias = v;
	return 1;
}

/*
 * y' = y·mul[c] + add[c] (or y / mul[c] + add[c]) on the output channels of
 * p, folded into its weights and bias; mul NULL is 1. Returns 1 when
 * done, 0 when p's bias cannot take it.
 */
static int fold_affine(struct fold *f, struct onnx_node *p, int64_t ch, const double *mul,
		       bool div, const double *add)
{
	const struct onnx_tensor *wt = T(f, p->in[1]);
	int64_t group = onnx_attr_int(p, "group", 1);
	bool convt = is_op(f, p, "ConvTranspose"), gemm = is_op(f, p, "Gemm");
	bool tb = gemm && onnx_attr_int(p, "transB", 0);
	size_t count = wt->count, inner;
	float *w, *bias = NULL;
	int rc = own_bias(f, p, ch, &bias), wi;

	if (rc <= 0)
		return rc;
	wi = mul ? own_input(f, p, 1) : p->in[1];
	if (wi < 0)
		return wi;
	w = T(f, wi)->data;
	wt = T(f, wi);
	inner = convt ? count / (size_t)(wt->dims[0] * wt->dims[1]) :
		gemm ? 1 : count / (size_t)ch;
	for (size_t i = 0; mul && i < count; i++) {
		size_t c;

		if (gemm)
			c = tb ? i / (size_t)wt->dims[1] : i % (size_t)wt->dims[1];
		else if (convt) {	/* [Cin][Cout/group][k..] */
			size_t ci = i / inner / (size_t)wt->dims[1], j = (i / inner) % (size_t)wt->dims[1];

			/* the group of input channel ci, then j within it */
			c = ci / ((size_t)wt->dims[0] / (size_t)group) * (size_t)wt->dims[1] + j;
		}
		else
			c = i / inner;
		w[i] = div ? (float)(w[i] / mul[c]) : (float)(w[i] * mul[c]);
	}
	for (int64_t c = 0; c < ch; c++) {
		double b = bias[c];

		if (mul)
			b = div ? b / mul[c] : b * mul[c];
		bias[c] = (float)(b + (add ? add[c] : 0.0));
	}
	return 1;
}

/* The values of constant c as per-channel vectors of ch for an output of
 * `rank` axes (channel axis 1): one value, or ch along axis 1 and 1
 * elsewhere (right-aligned, as numpy broadcasts). */
static bool per_channel(const struct fold *f, int c, int rank, int64_t ch, double *v)
{
	const struct onnx_tensor *t = c >= 0 ? T(f, c) : NULL;

	if (!t || t->role != ONNX_TENSOR_CONSTANT || t->dtype != ONNX_DT_FLOAT || t->rank > rank)
		return false;
	if (t->count != 1) {
		if (t->count != (size_t)ch)
			return false;
		for (int i = 0; i < t->rank; i++) {
			int axis = rank - t->rank + i;

			if (t->dims[i] != (axis == 1 ? ch : 1))
				return false;
		}
	}
	for (int64_t k = 0; k < ch; k++)
		v[k] = get_d(t, t->count == 1 ? 0 : (size_t)k);
	return true;
}

/* BatchNormalization n after p: y = (x - mean)·scale/sqrt(var + eps) + B. */
static int fold_bn(struct fold *f, struct onnx_node *n, struct onnx_node *p, int64_t ch,
		   double *mul, double *add)
{
	double eps = onnx_attr_float(n, "epsilon", 1e-5f);

	for (size_t k = 1; k <= 4; k++) {
		const struct onnx_tensor *t = in_of(n, k) >= 0 ? T(f, n->in[k]) : NULL;

		if (!t || t->role != ONNX_TENSOR_CONSTANT || t->dtype != ONNX_DT_FLOAT ||
		    t->count != (size_t)ch)
			return 0;
	}
	for (int64_t c = 0; c < ch; c++) {
		double scale = get_d(T(f, n->in[1]), (size_t)c);
		double b = get_d(T(f, n->in[2]), (size_t)c);
		double mean = get_d(T(f, n->in[3]), (size_t)c);
		double var = get_d(T(f, n->in[4]), (size_t)c);

		if (!(var + eps > 0))
			return 0;
		mul[c] = scale / sqrt(var + eps);
		add[c] = b - mean * mul[c];
	}
	return fold_affine(f, p, ch, mul, false, add);
}

static int fold_into_producers(struct fold *f)
{
	struct onnx_graph *g = f->g;
	double *mul = NULL, *add = NULL;
	int rc = 0;

	for (size_t i = 0; !rc && i < g->n_nodes; i++) {
		struct onnx_node *n = &g->nodes[i], *p;
		bool bn = is_op(f, n, "BatchNormalization"), add_op = is_op(f, n, "Add");
		bool sub = is_op(f, n, "Sub"), mul_op = is_op(f, n, "Mul"), div = is_op(f, n, "Div");
		int x = in_of(n, 0), c = in_of(n, 1), rank = 0;
		int64_t ch;

		f->n = n;
		if (f->dead[i] || !(bn || add_op || sub || mul_op || div) || n->n_out < 1 ||
		    n->out[0] < 0)
			continue;
		/* training-mode outputs, or (before opset 9) per-element statistics */
		if (bn && (n->n_out > 1 || onnx_attr_int(n, "training_mode", 0) ||
			   !onnx_attr_int(n, "spatial", 1)))
			continue;
		/* Add and Mul commute; Sub and Div fold only x - c, x / c */
		if ((add_op || mul_op) && is_const(f, x)) {
			x = c;
			c = in_of(n, 0);
		}
		p = x >= 0 ? producer(f, x) : NULL;
		if (!p || !only_reader(f, x, n) || !(ch = out_channels(f, p, &rank)))
			continue;
		free(mul);
		free(add);
		mul = calloc((size_t)ch, sizeof(*mul));
		add = calloc((size_t)ch, sizeof(*add));
		if (!mul || !add) {
			rc = -ENOMEM;
			break;
		}
		if (bn) {
			rc = fold_bn(f, n, p, ch, mul, add);
		} else if (!per_channel(f, c, rank, ch, add_op || sub ? add : mul)) {
			continue;
		} else if (add_op || sub) {
			for (int64_t k = 0; sub && k < ch; k++)
				add[k] = -add[k];
			rc = fold_affine(f, p, ch, NULL, false, add);
		} else {
			bool by_zero = false;

			for (int64_t k = 0; div && k < ch; k++)
				by_zero |= mul[k] == 0;
			rc = by_zero ? 0 : fold_affine(f, p, ch, mul, div, NULL);
		}
		if (rc > 0) {
			/* p now writes n's output */
			p->out[0] = n->out[0];
			kill(f, n);
			f->st->affine++;
			rc = 0;
		}
	}
	free(mul);
	free(add);
	return rc == -ENOMEM ? fail(f, rc, "out of memory") : rc;
}

/* ---- pass 3: activation patterns ---- */

/* The node writing t when it is of op type `op` and n alone reads t. */
static struct onnx_node *sole_producer(const struct fold *f, int t, const struct onnx_node *n,
				       const char *op)
{
	struct onnx_node *p = t >= 0 ? producer(f, t) : NULL;

	return is_op(f, p, op) && only_reader(f, t, n) ? p : NULL;
}

static bool near(double v, double want, double tol)
{
	return fabs(v - want) <= tol;
}

/* t = Clip(x + 3, 0, 6) read by n alone, intermediates private: x, with
 * the nodes in dead[0..1]. */
static int relu6_of_x_plus_3(const struct fold *f, int t, const struct onnx_node *n,
			     struct onnx_node **dead)
{
	struct onnx_node *clip = sole_producer(f, t, n, "Clip"), *add;
	double lo, hi, three;
	int x;

	if (!clip)
		return -1;
	if (f->g->opset < 11) {
		lo = onnx_attr_float(clip, "min", -INFINITY);
		hi = onnx_attr_float(clip, "max", INFINITY);
	} else if (!const_scalar(f, in_of(clip, 1), &lo) || !const_scalar(f, in_of(clip, 2), &hi)) {
		return -1;
	}
	if (lo != 0 || hi != 6)
		return -1;
	add = sole_producer(f, in_of(clip, 0), clip, "Add");
	if (!add)
		return -1;
	x = in_of(add, 0);
	if (const_scalar(f, x, &three)) {
		x = in_of(add, 1);
	} else if (!const_scalar(f, in_of(add, 1), &three)) {
		return -1;
	}
	if (three != 3 || x < 0 || is_const(f, x))
		return -1;
	dead[0] = clip;
	dead[1] = add;
	return x;
}

/* t = v / 6 or v · (1/6) read by n alone: v. */
static int sixth_of(const struct fold *f, int t, const struct onnx_node *n,
		    struct onnx_node **dead)
{
	struct onnx_node *p = t >= 0 ? producer(f, t) : NULL;
	double k;

	if (!p || !only_reader(f, t, n))
		return -1;
	if (is_op(f, p, "Div") && const_scalar(f, in_of(p, 1), &k) && k == 6) {
		*dead = p;
		return in_of(p, 0);
	}
	if (is_op(f, p, "Mul")) {
		int v = in_of(p, 0), c = in_of(p, 1);

		if (is_const(f, v)) {
			v = c;
			c = in_of(p, 0);
		}
		if (const_scalar(f, c, &k) && near(k, 1.0 / 6, SIXTH_TOLERANCE)) {
			*dead = p;
			return v;
		}
	}
	return -1;
}

/* x · g(x) from Mul node m, operands a and b (either order): x when b is
 * the gate of a in one of the spellings, with the nodes it replaces. */
static int gate_of(const struct fold *f, const struct onnx_node *m, int a, int b,
		   struct onnx_node **dead, size_t *nd, bool *hard)
{
	struct onnx_node *p;
	int v, x;

	if (a < 0 || b < 0 || is_const(f, a))
		return -1;
	/* Sigmoid(x) */
	p = sole_producer(f, b, m, "Sigmoid");
	if (p && in_of(p, 0) == a) {
		dead[0] = p;
		*nd = 1;
		*hard = false;
		return a;
	}
	/* HardSigmoid(x) with alpha 1/6, beta 1/2 */
	p = sole_producer(f, b, m, "HardSigmoid");
	if (p && in_of(p, 0) == a &&
	    near(onnx_attr_float(p, "alpha", 0.2f), 1.0 / 6, SIXTH_TOLERANCE) &&
	    onnx_attr_float(p, "beta", 0.5f) == 0.5f) {
		dead[0] = p;
		*nd = 1;
		*hard = true;
		return a;
	}
	/* Clip(x + 3, 0, 6) / 6 */
	v = sixth_of(f, b, m, &dead[0]);
	x = v >= 0 ? relu6_of_x_plus_3(f, v, dead[0], &dead[1]) : -1;
	if (x >= 0 && x == a) {
		*nd = 3;
		*hard = true;
		return a;
	}
	return -1;
}

/* Node n becomes op(x). */
static int rewrite(struct fold *f, struct onnx_node *n, const char *op, int x)
{
	char *name = malloc(strlen(op) + 1);

	if (!name)
		return fail(f, -ENOMEM, "out of memory");
	strcpy(name, op);
	free(n->op_type);
	n->op_type = name;
	n->in[0] = x;
	n->n_in = 1;
	onnx_node_free_attrs(n);
	return 0;
}

static int fold_activations(struct fold *f)
{
	struct onnx_graph *g = f->g;

	for (size_t i = 0; i < g->n_nodes; i++) {
		struct onnx_node *n = &g->nodes[i], *dead[4];
		size_t nd = 0;
		bool hard = false;
		int x = -1, a = in_of(n, 0), b = in_of(n, 1);

		f->n = n;
		if (f->dead[i] || n->n_in != 2 || n->n_out != 1)
			continue;
		if (is_op(f, n, "Mul")) {
			x = gate_of(f, n, a, b, dead, &nd, &hard);
			if (x < 0)
				x = gate_of(f, n, b, a, dead, &nd, &hard);
		}
		/* (x · Clip(x + 3, 0, 6)) / 6, or · (1/6) */
		if (x < 0 && (is_op(f, n, "Div") || is_op(f, n, "Mul"))) {
			struct onnx_node *m;
			double k;
			int v = a, c = b;

			if (is_op(f, n, "Mul") && is_const(f, v)) {
				v = b;
				c = a;
			}
			m = v >= 0 ? sole_producer(f, v, n, "Mul") : NULL;
			if (m && const_scalar(f, c, &k) &&
			    (is_op(f, n, "Div") ? k == 6 : near(k, 1.0 / 6, SIXTH_TOLERANCE))) {
				for (int s = 0; s < 2 && x < 0; s++) {
					int xa = in_of(m, s), cb = in_of(m, 1 - s);

					if (xa >= 0 && !is_const(f, xa) &&
					    relu6_of_x_plus_3(f, cb, m, &dead[1]) == xa) {
						x = xa;
						dead[0] = m;
						nd = 3;
						hard = true;
					}
				}
			}
		}
		if (x < 0)
			continue;
		for (size_t k = 0; k < nd; k++)
			kill(f, dead[k]);
		if (rewrite(f, n, hard ? "HardSwish" : "Swish", x))
			return -ENOMEM;
		f->st->activations++;
	}
	return 0;
}

/* ---- pass 4: transformer patterns ---- */

/* The operands of binary node n, the constant one second: false when
 * neither or both are constant. */
static bool split_const(const struct fold *f, const struct onnx_node *n, int *v, int *k)
{
	int a = in_of(n, 0), b = in_of(n, 1);

	if (a < 0 || b < 0 || is_const(f, a) == is_const(f, b))
		return false;
	*v = is_const(f, a) ? b : a;
	*k = is_const(f, a) ? a : b;
	return true;
}

/* Whether ReduceMean r reduces x over its last axis only, keeping it. */
static bool mean_over_last(const struct fold *f, const struct onnx_node *r, int x)
{
	const struct onnx_attr *at = onnx_node_attr(r, "axes");
	int64_t axes[2];
	size_t n = 0;
	int rank = x >= 0 ? T(f, x)->rank : -1;

	if (at && at->type == ONNX_ATTR_INTS && at->n == 1)
		axes[n++] = at->ints[0];
	else if (!at && !const_ints(f, in_of(r, 1), axes, 2, &n))
		return false;
	return n == 1 && onnx_attr_int(r, "keepdims", 1) &&
	       (axes[0] == -1 || (rank > 0 && axes[0] == rank - 1));
}

/* Node n gets `count` inputs; false when out of memory. */
static bool set_inputs(struct onnx_node *n, const int *in, size_t count)
{
	int *v = realloc(n->in, count * sizeof(*v));

	if (!v)
		return false;
	memcpy(v, in, count * sizeof(*v));
	n->in = v;
	n->n_in = count;
	return true;
}

/* Node n as LayerNormalization(in[0], in[1], in[2]) over the axes from
 * `axis` on with epsilon eps, its other attributes gone: 0, or -ENOMEM
 * (n then possibly without its op type or attributes). */
static int to_layernorm(struct onnx_node *n, const int in[3], int64_t axis, float eps)
{
	struct onnx_attr *at = calloc(2, sizeof(*at));

	if (!at || !set_inputs(n, in, 3)) {
		free(at);
		return -ENOMEM;
	}
	at[0].name = malloc(sizeof("axis"));
	at[1].name = malloc(sizeof("epsilon"));
	free(n->op_type);
	n->op_type = malloc(sizeof("LayerNormalization"));
	onnx_node_free_attrs(n);
	free(n->attr);
	n->attr = at;
	n->n_attr = 2;
	if (!at[0].name || !at[1].name || !n->op_type)
		return -ENOMEM;
	strcpy(n->op_type, "LayerNormalization");
	strcpy(at[0].name, "axis");
	strcpy(at[1].name, "epsilon");
	at[0].type = ONNX_ATTR_INT;
	at[0].i = axis;
	at[1].type = ONNX_ATTR_FLOAT;
	at[1].f = eps;
	return 0;
}

/*
 * Add node n ending LayerNorm as exporters spell it: Sub(x, ReduceMean(x)),
 * Pow 2 (or the product with itself), ReduceMean, Add eps, Sqrt, Div, Mul
 * gamma, Add beta, each on the last axis and private to the pattern:
 * rewritten LayerNormalization(x, gamma, beta) (opset 17) with the nodes
 * before it dropped.
 */
static int layernorm_of(struct fold *f, struct onnx_node *n)
{
	struct onnx_node *mul, *div, *sqrt_n, *add_eps, *var, *sq, *sub, *mean;
	int y, gamma, beta, d, std, ve, eps_t, x;
	double eps, two;

	if (!split_const(f, n, &y, &beta) || !(mul = sole_producer(f, y, n, "Mul")) ||
	    !split_const(f, mul, &y, &gamma) || !(div = sole_producer(f, y, mul, "Div")))
		return 0;
	d = in_of(div, 0);
	std = in_of(div, 1);
	if (!(sqrt_n = sole_producer(f, std, div, "Sqrt")) ||
	    !(add_eps = sole_producer(f, in_of(sqrt_n, 0), sqrt_n, "Add")) ||
	    !split_const(f, add_eps, &ve, &eps_t) || !const_scalar(f, eps_t, &eps) ||
	    !(var = sole_producer(f, ve, add_eps, "ReduceMean")))
		return 0;
	sq = producer(f, in_of(var, 0));
	if (!sq || !only_reader(f, in_of(var, 0), var) ||
	    !((is_op(f, sq, "Pow") && in_of(sq, 0) == d && const_scalar(f, in_of(sq, 1), &two) &&
	       two == 2) ||
	      (is_op(f, sq, "Mul") && in_of(sq, 0) == d && in_of(sq, 1) == d)))
		return 0;
	/* d: read by the square and the Div alone */
	sub = producer(f, d);
	if (!is_op(f, sub, "Sub") || T(f, d)->is_output ||
	    readers(f, d) != (is_op(f, sq, "Mul") ? 3u : 2u))
		return 0;
	x = in_of(sub, 0);
	mean = sole_producer(f, in_of(sub, 1), sub, "ReduceMean");
	if (!mean || x < 0 || in_of(mean, 0) != x || !mean_over_last(f, mean, x) ||
	    !mean_over_last(f, var, x) || eps < 0)
		return 0;
	if (to_layernorm(n, (int[]){ x, gamma, beta }, -1, (float)eps))
		return fail(f, -ENOMEM, "out of memory");
	kill(f, mul);
	kill(f, div);
	kill(f, sqrt_n);
	kill(f, add_eps);
	kill(f, var);
	kill(f, sq);
	kill(f, sub);
	kill(f, mean);
	f->st->activations++;
	return 0;
}

/* GELU with erf as exporters spell it, x · 0.5 · (1 + Erf(x / √2)), the
 * ·0.5 first or last (Mul node n the last product): rewritten Gelu(x). */
static int gelu_of(struct fold *f, struct onnx_node *n)
{
	struct onnx_node *dead[5], *m = NULL, *pm = n, *add, *erf, *scale;
	size_t nd = 0;
	int u = in_of(n, 0), v = in_of(n, 1), c, y;
	double k;

	if (split_const(f, n, &y, &c) && const_scalar(f, c, &k) && k == 0.5 &&
	    (m = sole_producer(f, y, n, "Mul"))) {
		/* (x · p) · 0.5 */
		dead[nd++] = pm = m;
		u = in_of(m, 0);
		v = in_of(m, 1);
	} else {
		/* (x · 0.5) · p */
		for (int s = 0; s < 2 && !nd; s++) {
			m = sole_producer(f, s ? v : u, n, "Mul");
			if (m && split_const(f, m, &y, &c) && const_scalar(f, c, &k) && k == 0.5) {
				dead[nd++] = m;
				if (s)
					v = u;
				u = y;
			}
		}
		if (!nd)
			return 0;
	}
	/* u · v, one of them 1 + Erf(x / √2) with x the other */
	for (int s = 0; s < 2; s++) {
		int xa = s ? v : u, p = s ? u : v, e;

		add = sole_producer(f, p, pm, "Add");
		if (!add || !split_const(f, add, &y, &c) || !const_scalar(f, c, &k) || k != 1)
			continue;
		erf = sole_producer(f, y, add, "Erf");
		e = erf ? in_of(erf, 0) : -1;
		scale = e >= 0 ? producer(f, e) : NULL;
		if (!scale || !only_reader(f, e, erf) || !split_const(f, scale, &y, &c) ||
		    y != xa || !const_scalar(f, c, &k) ||
		    !((is_op(f, scale, "Div") && fabs(k - M_SQRT2) < 1e-5) ||
		      (is_op(f, scale, "Mul") && fabs(k - M_SQRT1_2) < 1e-5)))
			continue;
		dead[nd++] = add;
		dead[nd++] = erf;
		dead[nd++] = scale;
		for (size_t i = 0; i < nd; i++)
			kill(f, dead[i]);
		f->st->activations++;
		return rewrite(f, n, "Gelu", xa);
	}
	return 0;
}

static int fold_transformer(struct onnx_graph *g, struct fold *f)
{
	for (size_t i = 0; i < g->n_nodes; i++) {
		struct onnx_node *n = &g->nodes[i];
		int rc = 0;

		f->n = n;
		if (f->dead[i] || n->n_in != 2 || n->n_out != 1)
			continue;
		if (is_op(f, n, "Add"))
			rc = layernorm_of(f, n);
		else if (is_op(f, n, "Mul"))
			rc = gelu_of(f, n);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- pass 5: spatial reductions as global pools ---- */

/* A node op(in[0], in[1]) -> out (in[1] -1: one input) inserted at index
 * at (the nodes after it move up one), with no name or attributes: 0 or
 * -ENOMEM. */
static int insert_node(struct fold *f, size_t at, const char *op, const int in[2], int out)
{
	struct onnx_graph *g = f->g;
	struct onnx_node *grown = realloc(g->nodes, (g->n_nodes + 1) * sizeof(*grown));
	bool *dead;
	struct onnx_node n = {
		.name = calloc(1, 1), .op_type = malloc(strlen(op) + 1), .domain = calloc(1, 1),
		.n_in = in[1] < 0 ? 1 : 2, .n_out = 1, .in = malloc(2 * sizeof(int)),
		.out = malloc(sizeof(int)),
	};

	if (grown)
		g->nodes = grown;
	dead = realloc(f->dead, (g->n_nodes + 2) * sizeof(*dead));
	if (dead)
		f->dead = dead;
	if (!grown || !dead || !n.name || !n.op_type || !n.domain || !n.in || !n.out) {
		onnx_node_free(&n);
		return -ENOMEM;
	}
	strcpy(n.op_type, op);
	memcpy(n.in, in, 2 * sizeof(int));
	n.out[0] = out;
	memmove(&g->nodes[at + 1], &g->nodes[at], (g->n_nodes - at) * sizeof(*g->nodes));
	memmove(&f->dead[at + 1], &f->dead[at], (g->n_nodes + 1 - at) * sizeof(*f->dead));
	g->nodes[at] = n;
	f->dead[at] = false;
	g->n_nodes++;
	return 0;
}

/* Whether n's axes are H and W of its rank-4 input, and nothing else. */
static bool over_hw(struct fold *f, const struct onnx_node *n)
{
	const int64_t *v;
	size_t count;
	bool seen[4] = { false };

	if (T(f, in_of(n, 0))->rank != 4 || onnx_reduce_axes(f->g, n, &v, &count))
		return false;
	for (size_t k = 0; k < count; k++) {
		int64_t ax = v[k] < 0 ? v[k] + 4 : v[k];

		if (ax < 2 || ax > 3 || seen[ax])
			return false;
		seen[ax] = true;
	}
	return count == 2;
}

/* An int64 vector constant of t's dims (its shape known): its index, or
 * -ENOMEM. */
static int shape_const(struct fold *f, int t, const char *suffix)
{
	int s = new_tensor(f, t, suffix);
	struct onnx_tensor *c;
	int64_t *v;

	if (s < 0)
		return s;
	c = T(f, s);
	v = malloc((size_t)(T(f, t)->rank ? T(f, t)->rank : 1) * sizeof(*v));
	if (!v)
		return -ENOMEM;
	memcpy(v, T(f, t)->dims, (size_t)T(f, t)->rank * sizeof(*v));
	c->role = ONNX_TENSOR_CONSTANT;
	c->dtype = ONNX_DT_INT64;
	c->rank = 1;
	c->dims[0] = T(f, t)->rank;
	c->data = v;
	c->count = (size_t)T(f, t)->rank;
	return s;
}

/*
 * ReduceMean / ReduceMax over H and W of an N x C x H x W map (PyTorch's
 * x.mean((2, 3)), squeeze-and-excitation's pooling) is GlobalAveragePool /
 * GlobalMaxPool; without keepdims a Flatten from axis 1 follows, which
 * drops the two 1s. Any other of ONNX's ten reductions without keepdims
 * (PyTorch's default) becomes the reduction with keepdims and a
 * Reshape to its output's shape, which the importers take as a view or a
 * CPU move (the reduction itself as they support it).
 */
static int fold_reductions(struct fold *f)
{
	struct onnx_graph *g = f->g;

	for (size_t i = 0; i < g->n_nodes; i++) {
		struct onnx_node *n = &g->nodes[i];
		bool mean = is_op(f, n, "ReduceMean"), pool;
		int y, kept, in[2] = { -1, -1 };
		struct onnx_attr *keep = NULL;

		f->n = n;
		if (f->dead[i] || !onnx_reduce_fn(n) || n->n_out != 1 || in_of(n, 0) < 0)
			continue;
		pool = (mean || is_op(f, n, "ReduceMax")) && over_hw(f, n);
		y = n->out[0];
		for (size_t k = 0; k < n->n_attr; k++)
			if (!strcmp(n->attr[k].name, "keepdims"))
				keep = &n->attr[k];
		if (keep && keep->type == ONNX_ATTR_INT && !keep->i && (pool || shape_known(T(f, y)))) {
			kept = new_tensor(f, y, pool ? "_pooled" : "_kept");
			in[0] = kept;
			if (!pool && kept >= 0)
				in[1] = shape_const(f, y, "_shape");
			if (kept < 0 || (!pool && in[1] < 0) ||
			    insert_node(f, i + 1, pool ? "Flatten" : "Reshape", in, y))
				return fail(f, -ENOMEM, "out of memory");
			n = &g->nodes[i];
			n->out[0] = kept;
			keep->i = 1;
			i++;	/* the node inserted */
		}
		if (!pool)
			continue;
		if (rewrite(f, n, mean ? "GlobalAveragePool" : "GlobalMaxPool", in_of(n, 0)))
			return -ENOMEM;
		f->st->pools++;
	}
	return 0;
}

/* ---- the graph without what was dropped ---- */

static int compact(struct fold *f)
{
	struct onnx_graph *g = f->g;
	int *map = malloc((g->n_tensors + 1) * sizeof(int));
	size_t k = 0;

	if (!map)
		return fail(f, -ENOMEM, "out of memory");
	for (size_t i = 0; i < g->n_nodes; i++) {
		if (f->dead[i])
			onnx_node_free(&g->nodes[i]);
		else
			g->nodes[k++] = g->nodes[i];
	}
	g->n_nodes = k;
	for (size_t t = 0; t < g->n_tensors; t++)
		map[t] = -1;
	for (size_t i = 0; i < g->n_inputs; i++)
		map[g->inputs[i]] = 0;
	for (size_t i = 0; i < g->n_outputs; i++)
		map[g->outputs[i]] = 0;
	for (size_t i = 0; i < g->n_nodes; i++) {
		for (size_t j = 0; j < g->nodes[i].n_in; j++)
			if (g->nodes[i].in[j] >= 0)
				map[g->nodes[i].in[j]] = 0;
		for (size_t j = 0; j < g->nodes[i].n_out; j++)
			if (g->nodes[i].out[j] >= 0)
				map[g->nodes[i].out[j]] = 0;
	}
	k = 0;
	for (size_t t = 0; t < g->n_tensors; t++) {
		if (map[t] < 0) {
			onnx_tensor_free(&g->tensors[t]);
			continue;
		}
		map[t] = (int)k;
		g->tensors[k++] = g->tensors[t];
	}
	g->n_tensors = k;
	for (size_t i = 0; i < g->n_nodes; i++) {
		for (size_t j = 0; j < g->nodes[i].n_in; j++)
			if (g->nodes[i].in[j] >= 0)
				g->nodes[i].in[j] = map[g->nodes[i].in[j]];
		for (size_t j = 0; j < g->nodes[i].n_out; j++)
			if (g->nodes[i].out[j] >= 0)
				g->nodes[i].out[j] = map[g->nodes[i].out[j]];
	}
	for (size_t i = 0; i < g->n_inputs; i++)
		g->inputs[i] = map[g->inputs[i]];
	for (size_t i = 0; i < g->n_outputs; i++)
		g->outputs[i] = map[g->outputs[i]];
	free(map);
	return 0;
}

int onnx_fold(struct onnx_graph *g, int64_t batch, struct onnx_fold_stats *st, char *err,
	      size_t err_len)
{
	struct fold f = { .g = g, .st = st, .err = err, .err_len = err_len };
	/* inputs whose symbolic first axis takes `batch` while folding */
	bool batch_set[ONNX_FOLD_MAX_BATCHED] = { false };
	int rc;

	memset(st, 0, sizeof(*st));
	if (err_len)
		err[0] = '\0';
	f.dead = calloc(g->n_nodes + 1, sizeof(*f.dead));
	if (!f.dead)
		return fail(&f, -ENOMEM, "out of memory");
	for (size_t i = 0; i < g->n_inputs; i++) {
		const struct onnx_tensor *t = &g->tensors[g->inputs[i]];

		/* as onnx_infer_shapes refuses them, before any node sees them */
		for (int k = 0; k < t->rank; k++)
			if (!t->dims[k] || t->dims[k] > ONNX_MAX_DIM) {
				free(f.dead);
				return fail(&f, -EINVAL, "input '%s': dimension %d is %s", t->name,
					    k, t->dims[k] ? "out of range" : "0 (empty tensors are "
					    "not supported)");
			}
	}
	for (size_t i = 0; i < g->n_inputs && i < ONNX_FOLD_MAX_BATCHED; i++) {
		struct onnx_tensor *t = &g->tensors[g->inputs[i]];

		if (batch > 0 && t->rank > 0 && t->dims[0] < 0) {
			t->dims[0] = batch;
			batch_set[i] = true;
		}
	}
	rc = fold_shapes(&f);
	if (!rc)
		fold_expands(&f);
	if (!rc)
		rc = fold_into_producers(&f);
	if (!rc)
		rc = fold_activations(&f);
	if (!rc)
		rc = fold_transformer(g, &f);
	if (!rc)
		rc = fold_reductions(&f);
	if (!rc)
		rc = compact(&f);
	for (size_t i = 0; !st->sized && i < g->n_inputs && i < ONNX_FOLD_MAX_BATCHED; i++)
		if (batch_set[i])
			g->tensors[g->inputs[i]].dims[0] = -1;
	free(f.dead);
	return rc;
}

void onnx_fold_summary(const struct onnx_fold_stats *st, char *buf, size_t len)
{
	char pools[64] = "";

	if (!len)
		return;
	buf[0] = '\0';
	if (st->pools)
		snprintf(pools, sizeof(pools), ", %zu reductions as global pools", st->pools);
	if (st->constants || st->removed || st->affine || st->activations || st->pools)
		snprintf(buf, len, "folded %zu constant nodes, %zu into convolutions, %zu "
			 "activations, %zu pass-throughs%s%s", st->constants, st->affine,
			 st->activations, st->removed, pools,
			 st->sized ? " (for these input sizes)" : "");
}
