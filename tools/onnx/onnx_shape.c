/* SPDX-License-Identifier: MIT */
/* Shape inference and window geometry of the importer's op set. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "runtime/cpu_xformer.h"
#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_spatial.h"

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

size_t onnx_tensor_count(const struct onnx_tensor *t)
{
	size_t c = 1;

	for (int i = 0; i < t->rank; i++)
		c *= (size_t)t->dims[i];
	return c;
}

/* An INTS attribute of exactly `n` values, or NULL when absent; *bad is
 * set when present with another length or type. */
static const int64_t *ints_attr(const struct onnx_node *nd, const char *name, size_t n,
				bool *bad)
{
	const struct onnx_attr *a = onnx_node_attr(nd, name);

	if (!a)
		return NULL;
	if (a->type != ONNX_ATTR_INTS || a->n != n) {
		*bad = true;
		return NULL;
	}
	return a->ints;
}

static int out_size(int in, int pad_sum, int k, int d, int s, bool ceil_mode, int pad_begin)
{
	int span = (k - 1) * d + 1;
	int num = in + pad_sum - span;
	int out;

	if (num < 0)
		return 0;
	out = (ceil_mode ? (num + s - 1) / s : num / s) + 1;
	/* A ceil-mode window must start inside the input or its leading
	 * padding (as onnxruntime's pool attributes compute it). */
	if (ceil_mode && (out - 1) * s >= in + pad_begin)
		out--;
	return out;
}

int onnx_window_get(const struct onnx_node *n, int in_h, int in_w, int kh, int kw,
		    struct onnx_window *w, char *err, size_t err_len)
{
	const char *auto_pad = onnx_attr_string(n, "auto_pad", "NOTSET");
	bool bad = false;
	const int64_t *ks = ints_attr(n, "kernel_shape", 2, &bad);
	const int64_t *st = ints_attr(n, "strides", 2, &bad);
	const int64_t *dl = ints_attr(n, "dilations", 2, &bad);
	const int64_t *pd = ints_attr(n, "pads", 4, &bad);

	if (bad)
		return fail(err, err_len, -ENOTSUP, "node '%s' (%s): kernel_shape, strides, "
			    "dilations or pads is not a 2-D list", n->name, n->op_type);
	memset(w, 0, sizeof(*w));
	w->kh = ks ? (int)ks[0] : kh;
	w->kw = ks ? (int)ks[1] : kw;
	w->sh = st ? (int)st[0] : 1;
	w->sw = st ? (int)st[1] : 1;
	w->dh = dl ? (int)dl[0] : 1;
	w->dw = dl ? (int)dl[1] : 1;
	w->ceil_mode = onnx_attr_int(n, "ceil_mode", 0) != 0;
	w->count_include_pad = onnx_attr_int(n, "count_include_pad", 0) != 0;
	if ((ks && (ks[0] < 1 || ks[1] < 1 || ks[0] > 255 || ks[1] > 255)) || w->kh < 1 ||
	    w->kw < 1 || w->sh < 1 || w->sw < 1 || w->dh < 1 || w->dw < 1 ||
	    (st && (st[0] > 255 || st[1] > 255)) || (dl && (dl[0] > 255 || dl[1] > 255)))
		return fail(err, err_len, -EINVAL, "node '%s' (%s): kernel, stride or dilation "
			    "outside 1..255", n->name, n->op_type);
	/* Conv's kernel_shape, when given, must be that of its weights (the
	 * weights are read with it) */
	if (ks && kh > 0 && kw > 0 && (w->kh != kh || w->kw != kw))
		return fail(err, err_len, -EINVAL, "node '%s' (%s): kernel_shape %dx%d differs "
			    "from the weights' %dx%d", n->name, n->op_type, w->kh, w->kw, kh, kw);

	if (!strcmp(auto_pad, "NOTSET")) {
		if (pd) {
			for (int i = 0; i < 4; i++)
				if (pd[i] < 0 || pd[i] > 255)
					return fail(err, err_len, -EINVAL, "node '%s' (%s): pads "
						    "outside 0..255", n->name, n->op_type);
			w->pad_top = (int)pd[0];
			w->pad_left = (int)pd[1];
			w->pad_bottom = (int)pd[2];
			w->pad_right = (int)pd[3];
		}
		/* ONNX pools: padding smaller than the (dilated) kernel, so no
		 * window lies wholly in the padding */
		if (pd && kh <= 0 &&
		    (w->pad_top >= (w->kh - 1) * w->dh + 1 || w->pad_bottom >= (w->kh - 1) * w->dh + 1 ||
		     w->pad_left >= (w->kw - 1) * w->dw + 1 || w->pad_right >= (w->kw - 1) * w->dw + 1))
			return fail(err, err_len, -EINVAL, "node '%s' (%s): pads (%d,%d,%d,%d) are "
				    "not smaller than the %dx%d kernel", n->name, n->op_type,
				    w->pad_top, w->pad_left, w->pad_bottom, w->pad_right, w->kh,
				    w->kw);
	} else if (!strcmp(auto_pad, "SAME_UPPER") || !strcmp(auto_pad, "SAME_LOWER")) {
		/* Output ceil(in / stride); the odd pixel of padding goes at the end
		 * (UPPER) or the beginning (LOWER). */
		int oh = (in_h + w->sh - 1) / w->sh, ow = (in_w + w->sw - 1) / w->sw;
		int ph = (oh - 1) * w->sh + (w->kh - 1) * w->dh + 1 - in_h;
		int pw = (ow - 1) * w->sw + (w->kw - 1) * w->dw + 1 - in_w;
		bool upper = auto_pad[5] == 'U';

		ph = ph < 0 ? 0 : ph;
		pw = pw < 0 ? 0 : pw;
		w->pad_top = upper ? ph / 2 : ph - ph / 2;
		w->pad_bottom = ph - w->pad_top;
		w->pad_left = upper ? pw / 2 : pw - pw / 2;
		w->pad_right = pw - w->pad_left;
	} else if (strcmp(auto_pad, "VALID")) {
		return fail(err, err_len, -EINVAL, "node '%s' (%s): auto_pad '%s' is not an ONNX "
			    "value", n->name, n->op_type, auto_pad);
	}
	w->out_h = out_size(in_h, w->pad_top + w->pad_bottom, w->kh, w->dh, w->sh, w->ceil_mode,
			    w->pad_top);
	w->out_w = out_size(in_w, w->pad_left + w->pad_right, w->kw, w->dw, w->sw, w->ceil_mode,
			    w->pad_left);
	if (w->out_h < 1 || w->out_w < 1)
		return fail(err, err_len, -EINVAL, "node '%s' (%s): the window does not fit the "
			    "%dx%d input", n->name, n->op_type, in_h, in_w);
	return 0;
}

/* ---- shape inference ---- */

struct infer {
	struct onnx_graph *g;
	const struct onnx_node *n;
	char *err;
	size_t err_len;
};

static const struct onnx_tensor *in_t(const struct infer *c, size_t i)
{
	return i < c->n->n_in && c->n->in[i] >= 0 ? &c->g->tensors[c->n->in[i]] : NULL;
}

static int node_fail(const struct infer *c, const char *fmt, const char *what)
{
	return fail(c->err, c->err_len, -ENOTSUP, "node '%s' (%s): %s%s", c->n->name,
		    c->n->op_type, fmt, what ? what : "");
}

static int set_out(struct infer *c, int rank, const int64_t *dims)
{
	struct onnx_tensor *t;

	if (!c->n->n_out || c->n->out[0] < 0)
		return node_fail(c, "has no output", NULL);
	t = &c->g->tensors[c->n->out[0]];
	for (int i = 0; i < rank; i++)
		if (dims[i] < 0 || dims[i] > ONNX_MAX_DIM)
			return node_fail(c, "output dimension out of range", NULL);
	t->rank = rank;
	memcpy(t->dims, dims, (size_t)rank * sizeof(*dims));
	return 0;
}

static bool known(const struct onnx_tensor *t)
{
	if (!t || t->rank < 0)
		return false;
	for (int i = 0; i < t->rank; i++)
		if (t->dims[i] < 0)
			return false;
	return true;
}

/* Integer values of a constant int64 tensor (Reshape shape, Pad pads). */
static bool const_ints(const struct onnx_tensor *t, const int64_t **v, size_t *n)
{
	if (!t || t->role != ONNX_TENSOR_CONSTANT || t->dtype != ONNX_DT_INT64)
		return false;
	*v = t->data;
	*n = t->count;
	return true;
}

/* Window ops; the weights of a Conv / ConvInteger are input 1, of a
 * QLinearConv input 3. */
enum window_kind { WINDOW_POOL, WINDOW_CONV, WINDOW_QLINEAR_CONV };

static int infer_window(struct infer *c, enum window_kind kind)
{
	const struct onnx_tensor *x = in_t(c, 0);
	const struct onnx_tensor *wt = in_t(c, kind == WINDOW_QLINEAR_CONV ? 3 : 1);
	bool is_conv = kind != WINDOW_POOL;
	struct onnx_window w;
	int64_t d[4];
	int rc;

	if (x->rank == 3 && !is_conv) {
		/* a 1-D pool: [N, C, W] */
		rc = onnx_conv1d_window(c->n, (int)x->dims[2], 0, &w, c->err, c->err_len);
		if (rc)
			return rc;
		d[0] = x->dims[0];
		d[1] = x->dims[1];
		d[2] = w.out_w;
		return set_out(c, 3, d);
	}
	if (x->rank != 4)
		return node_fail(c, "only 1-D (NCW) pools and 2-D (NCHW) inputs are supported",
				 NULL);
	if (is_conv && (!known(wt) || wt->rank != 4))
		return node_fail(c, "weights must be a 4-D tensor of known shape", NULL);
	if (is_conv && (wt->dims[0] < 1 || wt->dims[1] < 1 || wt->dims[2] < 1 || wt->dims[3] < 1))
		return node_fail(c, "weights have an empty dimension", NULL);
	rc = onnx_window_get(c->n, (int)x->dims[2], (int)x->dims[3],
			     is_conv ? (int)wt->dims[2] : 0, is_conv ? (int)wt->dims[3] : 0, &w,
			     c->err, c->err_len);
	if (rc)
		return rc;
	d[0] = x->dims[0];
	d[1] = is_conv ? wt->dims[0] : x->dims[1];
	d[2] = w.out_h;
	d[3] = w.out_w;
	if (is_conv) {
		int64_t group = onnx_attr_int(c->n, "group", 1);

		const struct onnx_tensor *b = kind == WINDOW_CONV && strcmp(c->n->op_type, "Conv")
					      ? NULL : in_t(c, kind == WINDOW_QLINEAR_CONV ? 8 : 2);

		if (group < 1 || x->dims[1] % group || wt->dims[1] * group != x->dims[1] ||
		    wt->dims[0] % group)
			return node_fail(c, "group, input channels and weight shape disagree", NULL);
		/* ONNX: the bias B is 1-D, one value per output channel */
		if (b && (b->rank != 1 || b->dims[0] != wt->dims[0]))
			return node_fail(c, "bias B is not 1-D of one value per output channel",
					 NULL);
	}
	return set_out(c, 4, d);
}

/* "[d0,d1,...]" of tensor t. */
static void dims_str(const struct onnx_tensor *t, char *buf, size_t len)
{
	size_t k = (size_t)snprintf(buf, len, "[");

	for (int i = 0; i < t->rank && k < len; i++)
		k += (size_t)snprintf(buf + k, len - k, "%s%lld", i ? "," : "",
				      (long long)t->dims[i]);
	if (k < len)
		snprintf(buf + k, len - k, "]");
}

/* numpy's broadcast of dims a (rank ra) and b (rank rb), right-aligned:
 * along each axis equal extents or 1. Whether they broadcast; *rank and d
 * the result. */
static bool broadcast_dims(const int64_t *a, int ra, const int64_t *b, int rb, int64_t *d,
			   int *rank)
{
	*rank = ra > rb ? ra : rb;
	for (int i = 0; i < *rank; i++) {
		int ia = i - (*rank - ra), ib = i - (*rank - rb);
		int64_t da = ia >= 0 ? a[ia] : 1, db = ib >= 0 ? b[ib] : 1;

		if (da != db && da != 1 && db != 1)
			return false;
		d[i] = da == 1 ? db : da;
	}
	return true;
}

static int infer_broadcast(struct infer *c)
{
	const struct onnx_tensor *a = in_t(c, 0), *b = in_t(c, 1);
	int rank;
	int64_t d[ONNX_GRAPH_MAX_RANK];
	char shapes[2][ONNX_GRAPH_MAX_RANK * 21 + 3], msg[sizeof(shapes) + 100];

	if (!a || !b)
		return node_fail(c, "two inputs are needed", NULL);
	/* before opset 7, broadcast 1 aligns B with A from `axis` on (default:
	 * A's last axes): numpy's rule where that is the trailing alignment */
	if (c->g->opset < 7 && onnx_attr_int(c->n, "broadcast", 0)) {
		int64_t axis = onnx_attr_int(c->n, "axis", a->rank - b->rank);

		if ((axis < 0 ? axis + a->rank : axis) != a->rank - b->rank) {
			char why[120];

			snprintf(why, sizeof(why), "broadcast from axis %lld of a rank-%d input "
				 "(opset %lld; supported: B aligned with A's last axes)",
				 (long long)axis, a->rank, (long long)c->g->opset);
			return node_fail(c, why, NULL);
		}
	}

	if (broadcast_dims(a->dims, a->rank, b->dims, b->rank, d, &rank))
		return set_out(c, rank, d);
	dims_str(a, shapes[0], sizeof(shapes[0]));
	dims_str(b, shapes[1], sizeof(shapes[1]));
	snprintf(msg, sizeof(msg), "operand shapes %s and %s do not broadcast (along each axis, "
		 "right-aligned: equal extents or 1)", shapes[0], shapes[1]);
	return node_fail(c, msg, NULL);
}

/* Expand: X broadcast with its constant shape input, numpy's rule (a 1 in
 * either keeps the other's extent). */
static int infer_expand(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);
	const int64_t *v = NULL;
	size_t n = 0;
	int64_t d[ONNX_GRAPH_MAX_RANK];
	int rank;
	bool ok;

	if (!const_ints(in_t(c, 1), &v, &n) || n > ONNX_GRAPH_MAX_RANK)
		return node_fail(c, "the shape input is not an int64 constant of at most 8 "
				 "values", NULL);
	ok = broadcast_dims(x->dims, x->rank, v, (int)n, d, &rank);
	for (size_t i = 0; i < n; i++)
		ok = ok && v[i] >= 1;
	if (!ok)
		return node_fail(c, "the shape input does not broadcast with the input "
				 "(along each axis, right-aligned: equal extents or 1)", NULL);
	return set_out(c, rank, d);
}

/* Tile: each axis's extent times its constant repeat. */
static int infer_tile(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);
	const int64_t *v = NULL;
	int64_t d[ONNX_GRAPH_MAX_RANK];
	size_t n = 0;

	if (!const_ints(in_t(c, 1), &v, &n) || n != (size_t)x->rank)
		return node_fail(c, "the repeats input is not an int64 constant of one value per "
				 "axis", NULL);
	for (int i = 0; i < x->rank; i++) {
		if (v[i] < 1 || v[i] > ONNX_MAX_DIM / x->dims[i])
			return node_fail(c, "a repeat below 1 or past the largest extent", NULL);
		d[i] = x->dims[i] * v[i];
	}
	return set_out(c, x->rank, d);
}

/* GatherElements: the indices' shape, of the data's rank. */
static int infer_gather_elements(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0), *ix = in_t(c, 1);

	if (!ix || ix->rank != x->rank)
		return node_fail(c, "the indices are not of the data's rank", NULL);
	return set_out(c, ix->rank, ix->dims);
}

/* PRelu: the slope broadcasts to X (unidirectionally), the output is X's. */
static int infer_prelu(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0), *s = in_t(c, 1);

	if (s->rank > x->rank)
		return node_fail(c, "the slope has a higher rank than X", NULL);
	for (int i = 0; i < s->rank; i++) {
		int64_t d = s->dims[i], dx = x->dims[x->rank - s->rank + i];

		if (d != dx && d != 1)
			return node_fail(c, "the slope does not broadcast to X", NULL);
	}
	return set_out(c, x->rank, x->dims);
}

static int infer_matmul(struct infer *c, size_t ia, size_t ib)
{
	const struct onnx_tensor *a = in_t(c, ia), *b = in_t(c, ib);
	int64_t d[ONNX_GRAPH_MAX_RANK];

	/* batched (attention): [.., M, K] x [.., K, N], the leading axes alike
	 * or B 2-D, shared */
	if (a->rank >= 3 && a->rank <= 4 && (b->rank == 2 || b->rank == a->rank) &&
	    !strcmp(c->n->op_type, "MatMul")) {
		if (a->dims[a->rank - 1] != b->dims[b->rank - 2])
			return node_fail(c, "the inner sizes (A's last axis, B's second last) differ",
					 NULL);
		for (int i = 0; i < a->rank - 2 && b->rank == a->rank; i++)
			if (a->dims[i] != b->dims[i] && b->dims[i] != 1)
				return node_fail(c, "B's leading axes are neither A's nor 1", NULL);
		memcpy(d, a->dims, (size_t)a->rank * sizeof(*d));
		d[a->rank - 1] = b->dims[b->rank - 1];
		return set_out(c, a->rank, d);
	}
	if (a->rank != 2 || b->rank != 2 || a->dims[1] != b->dims[0])
		return node_fail(c, strcmp(c->n->op_type, "MatMul") ?
				 "only 2-D operands with matching inner size are supported" :
				 "only 2-D operands with matching inner size, or A of rank 3 or 4 "
				 "times B of its rank or 2, are supported", NULL);
	d[0] = a->dims[0];
	d[1] = b->dims[1];
	return set_out(c, 2, d);
}

int onnx_reduce_axes(const struct onnx_graph *g, const struct onnx_node *n, const int64_t **v,
		     size_t *count)
{
	const struct onnx_attr *at = onnx_node_attr(n, "axes");

	*v = NULL;
	*count = 0;
	if (at && at->type == ONNX_ATTR_INTS) {
		*v = at->ints;
		*count = at->n;
	} else if (n->n_in > 1 && n->in[1] >= 0 && !const_ints(&g->tensors[n->in[1]], v, count)) {
		return -ENOTSUP;
	}
	return 0;
}

int onnx_reduce_fn(const struct onnx_node *n)
{
	static const struct {
		const char *op;
		int fn;
	} fns[] = {
		{ "ReduceMean", RKB_CPU_REDUCE_MEAN }, { "ReduceSum", RKB_CPU_REDUCE_SUM },
		{ "ReduceMax", RKB_CPU_REDUCE_MAX }, { "ReduceMin", RKB_CPU_REDUCE_MIN },
		{ "ReduceProd", RKB_CPU_REDUCE_PROD },
		{ "ReduceSumSquare", RKB_CPU_REDUCE_SUM_SQUARE },
		{ "ReduceL1", RKB_CPU_REDUCE_L1 }, { "ReduceL2", RKB_CPU_REDUCE_L2 },
		{ "ReduceLogSum", RKB_CPU_REDUCE_LOG_SUM },
		{ "ReduceLogSumExp", RKB_CPU_REDUCE_LOG_SUM_EXP },
	};

	for (size_t i = 0; i < sizeof(fns) / sizeof(fns[0]); i++)
		if (!strcmp(n->op_type, fns[i].op))
			return fns[i].fn;
	return 0;
}

int onnx_reduce_set(const struct onnx_graph *g, const struct onnx_node *n, int rank,
		    bool reduced[ONNX_GRAPH_MAX_RANK], char *err, size_t err_len)
{
	const int64_t *v;
	size_t count;

	if (onnx_reduce_axes(g, n, &v, &count))
		return fail(err, err_len, -ENOTSUP, "node '%s' (%s): the axes input is not an "
			    "int64 constant", n->name, n->op_type);
	if (!count && onnx_attr_int(n, "noop_with_empty_axes", 0))
		return fail(err, err_len, -ENOTSUP, "node '%s' (%s): attribute "
			    "noop_with_empty_axes 1 without axes (the identity) is not supported",
			    n->name, n->op_type);
	if (!onnx_attr_int(n, "keepdims", 1))
		return fail(err, err_len, -ENOTSUP, "node '%s' (%s): attribute keepdims: 0 is not "
			    "supported (keepdims 1)", n->name, n->op_type);
	for (int k = 0; k < rank; k++)
		reduced[k] = !count;
	for (size_t k = 0; k < count; k++) {
		if (v[k] < -rank || v[k] >= rank)
			return fail(err, err_len, -ENOTSUP, "node '%s' (%s): attribute axes: %lld "
				    "is out of range for the rank-%d input", n->name, n->op_type,
				    (long long)v[k], rank);
		reduced[v[k] < 0 ? v[k] + rank : v[k]] = true;
	}
	return 0;
}

/*
 * The shape of any reduction ONNX defines — axes an attribute or a
 * constant input, none meaning all (or none with noop_with_empty_axes),
 * keepdims or not — so that shapes downstream are known to the fold
 * (onnx_fold.c writes those over H and W as global pools); what the
 * importer and the reference take is onnx_reduce_axis's.
 */
static int infer_reduce(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);
	const int64_t *v;
	int64_t d[ONNX_GRAPH_MAX_RANK];
	bool reduced[ONNX_GRAPH_MAX_RANK] = { false };
	bool keep = onnx_attr_int(c->n, "keepdims", 1);
	size_t count;
	int rank = 0;

	if (onnx_reduce_axes(c->g, c->n, &v, &count))
		return node_fail(c, "the axes input is not an int64 constant", NULL);
	for (size_t k = 0; k < count; k++) {
		if (v[k] < -x->rank || v[k] >= x->rank)
			return node_fail(c, "attribute axes: an axis is out of range", NULL);
		reduced[v[k] < 0 ? v[k] + x->rank : v[k]] = true;
	}
	if (!count && !onnx_attr_int(c->n, "noop_with_empty_axes", 0))
		for (int k = 0; k < x->rank; k++)
			reduced[k] = true;
	for (int k = 0; k < x->rank; k++)
		if (!reduced[k])
			d[rank++] = x->dims[k];
		else if (keep)
			d[rank++] = 1;
	return set_out(c, rank, d);
}

static int infer_gemm(struct infer *c)
{
	const struct onnx_tensor *a = in_t(c, 0), *b = in_t(c, 1), *bias = in_t(c, 2);
	bool ta = onnx_attr_int(c->n, "transA", 0), tb = onnx_attr_int(c->n, "transB", 0);
	int64_t d[2];

	if (a->rank != 2 || b->rank != 2 ||
	    a->dims[ta ? 0 : 1] != b->dims[tb ? 1 : 0])
		return node_fail(c, "operands are not 2-D with matching inner size", NULL);
	d[0] = a->dims[ta ? 1 : 0];
	d[1] = b->dims[tb ? 0 : 1];
	/* C broadcasts one way to (M, N): rank <= 2, each axis 1 or full */
	if (bias && (bias->rank > 2 ||
		     (bias->rank >= 1 && bias->dims[bias->rank - 1] != 1 &&
		      bias->dims[bias->rank - 1] != d[1]) ||
		     (bias->rank == 2 && bias->dims[0] != 1 && bias->dims[0] != d[0])))
		return node_fail(c, "bias C does not broadcast to the (M, N) output", NULL);
	return set_out(c, 2, d);
}

static int infer_concat(struct infer *c)
{
	const struct onnx_tensor *a = in_t(c, 0);
	int64_t axis = onnx_attr_int(c->n, "axis", 0), d[ONNX_GRAPH_MAX_RANK];

	if (axis < 0)
		axis += a->rank;
	if (axis < 0 || axis >= a->rank)
		return node_fail(c, "axis out of range", NULL);
	memcpy(d, a->dims, sizeof(d));
	d[axis] = 0;
	for (size_t i = 0; i < c->n->n_in; i++) {
		const struct onnx_tensor *t = in_t(c, i);

		if (!t || t->rank != a->rank)
			return node_fail(c, "inputs of different ranks", NULL);
		for (int k = 0; k < a->rank; k++)
			if (k != axis && t->dims[k] != a->dims[k])
				return node_fail(c, "inputs differ outside the axis", NULL);
		d[axis] += t->dims[axis];
	}
	return set_out(c, a->rank, d);
}

static int infer_reshape(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);
	size_t n, total = onnx_tensor_count(x), known_prod = 1;
	const int64_t *v;
	int64_t d[ONNX_GRAPH_MAX_RANK];
	int infer_at = -1;

	if (!const_ints(in_t(c, 1), &v, &n) || n > ONNX_GRAPH_MAX_RANK)
		return node_fail(c, "the shape must be a constant int64 tensor", NULL);
	for (size_t i = 0; i < n; i++) {
		d[i] = v[i];
		if (v[i] == 0 && !onnx_attr_int(c->n, "allowzero", 0)) {
			if ((int)i >= x->rank)
				return node_fail(c, "0 copies a dimension the input lacks", NULL);
			d[i] = x->dims[i];
		}
		if (d[i] == -1) {
			if (infer_at >= 0)
				return node_fail(c, "more than one -1 in the shape", NULL);
			infer_at = (int)i;
		} else if (d[i] < 0) {
			return node_fail(c, "negative dimension in the shape", NULL);
		} else {
			known_prod *= (size_t)d[i];
		}
	}
	if (infer_at >= 0) {
		if (!known_prod || total % known_prod)
			return node_fail(c, "-1 cannot be inferred", NULL);
		d[infer_at] = (int64_t)(total / known_prod);
	} else if (known_prod != total) {
		return node_fail(c, "the shape has a different element count", NULL);
	}
	return set_out(c, (int)n, d);
}

static int infer_flatten(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);
	int64_t axis = onnx_attr_int(c->n, "axis", 1), d[2] = { 1, 1 };

	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis > x->rank)
		return node_fail(c, "axis out of range", NULL);
	for (int i = 0; i < x->rank; i++)
		d[i < axis ? 0 : 1] *= x->dims[i];
	return set_out(c, 2, d);
}

static int infer_transpose(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);
	const struct onnx_attr *p = onnx_node_attr(c->n, "perm");
	int64_t d[ONNX_GRAPH_MAX_RANK];
	unsigned int seen = 0;

	for (int i = 0; i < x->rank; i++) {
		int64_t src = p ? (p->type == ONNX_ATTR_INTS && p->n == (size_t)x->rank
					   ? p->ints[i] : -1)
				: x->rank - 1 - i;

		if (src < 0 || src >= x->rank || (seen & (1u << src)))
			return node_fail(c, "perm is not a permutation of the axes", NULL);
		seen |= 1u << src;
		d[i] = x->dims[src];
	}
	return set_out(c, x->rank, d);
}

/* Gather of data (any rank) at constant integer indices along axis. */
static int infer_gather(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0), *ix = in_t(c, 1);
	int64_t axis = onnx_attr_int(c->n, "axis", 0), d[ONNX_GRAPH_MAX_RANK];
	int rank;

	if (!ix || ix->role != ONNX_TENSOR_CONSTANT ||
	    (ix->dtype != ONNX_DT_INT64 && ix->dtype != ONNX_DT_INT32))
		return node_fail(c, "indices: a constant int32 / int64 tensor is supported (an "
				 "embedding lookup of computed indices is not)", NULL);
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis >= x->rank)
		return node_fail(c, "attribute axis is outside the data's rank", NULL);
	rank = x->rank - 1 + ix->rank;
	if (rank > (int)ONNX_GRAPH_MAX_RANK)
		return node_fail(c, "the output's rank is too high", NULL);
	for (size_t j = 0; j < ix->count; j++) {
		int64_t k = ix->dtype == ONNX_DT_INT64 ? ((const int64_t *)ix->data)[j] :
			    ((const int32_t *)ix->data)[j];

		if (k < -x->dims[axis] || k >= x->dims[axis])
			return node_fail(c, "an index is outside the axis", NULL);
	}
	for (int i = 0; i < axis; i++)
		d[i] = x->dims[i];
	for (int i = 0; i < ix->rank; i++)
		d[axis + i] = ix->dims[i];
	for (int i = (int)axis + 1; i < x->rank; i++)
		d[i - 1 + ix->rank] = x->dims[i];
	return set_out(c, rank, d);
}

/* Squeeze / Unsqueeze: the axes an attribute before opset 13, an input
 * (constant) after; Squeeze without axes drops every axis of extent 1. */
static int infer_squeeze(struct infer *c, bool un)
{
	const struct onnx_tensor *x = in_t(c, 0);
	const struct onnx_attr *at = onnx_node_attr(c->n, "axes");
	const int64_t *v = NULL;
	size_t n = 0;
	int rank = x->rank, out_rank;
	bool mark[ONNX_GRAPH_MAX_RANK] = { false };
	int64_t d[ONNX_GRAPH_MAX_RANK];

	if (at && at->type == ONNX_ATTR_INTS) {
		v = at->ints;
		n = at->n;
	} else if (in_t(c, 1) && !const_ints(in_t(c, 1), &v, &n)) {
		return node_fail(c, "the axes input must be a constant int64 tensor", NULL);
	}
	out_rank = un ? rank + (int)n : rank;
	if (out_rank > (int)ONNX_GRAPH_MAX_RANK || (un && !n))
		return node_fail(c, "the axes are missing or make too high a rank", NULL);
	for (size_t i = 0; i < n; i++) {
		int64_t a = v[i] < 0 ? v[i] + out_rank : v[i];

		if (a < 0 || a >= out_rank || mark[a] || (!un && x->dims[a] != 1))
			return node_fail(c, un ? "axes name an axis twice or outside the output" :
					 "axes name an axis twice, outside the input or not of "
					 "extent 1", NULL);
		mark[a] = true;
	}
	if (un) {
		for (int i = 0, k = 0; i < out_rank; i++)
			d[i] = mark[i] ? 1 : x->dims[k++];
		return set_out(c, out_rank, d);
	}
	out_rank = 0;
	for (int i = 0; i < rank; i++)
		if (!(n ? mark[i] : x->dims[i] == 1))
			d[out_rank++] = x->dims[i];
	return set_out(c, out_rank, d);
}

static int infer_constant_of_shape(struct infer *c)
{
	const int64_t *v;
	size_t n;

	if (!const_ints(in_t(c, 0), &v, &n) || n > ONNX_GRAPH_MAX_RANK)
		return node_fail(c, "the shape must be a constant int64 tensor", NULL);
	return set_out(c, (int)n, v);
}

static int infer_pad(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);
	const struct onnx_attr *pa = onnx_node_attr(c->n, "pads");
	const int64_t *v = NULL;
	size_t n = 0;
	int64_t d[ONNX_GRAPH_MAX_RANK];

	if (c->g->opset < 11 && pa && pa->type == ONNX_ATTR_INTS) {
		v = pa->ints;
		n = pa->n;
	} else if (!const_ints(in_t(c, 1), &v, &n)) {
		return node_fail(c, "pads must be constant", NULL);
	}
	if (onnx_pad_mode(c->n) < 0)
		return node_fail(c, "mode is not one of constant, reflect, edge: ",
				 onnx_attr_string(c->n, "mode", ""));
	if (n != 2 * (size_t)x->rank || in_t(c, 3))
		return node_fail(c, "pads must cover every axis (no axes input)", NULL);
	for (int i = 0; i < x->rank; i++) {
		if (v[i] < 0 || v[i + x->rank] < 0)
			return node_fail(c, "negative pads (cropping) are not supported", NULL);
		/* reflect mirrors inside the axis: at most its length - 1 added */
		if (onnx_pad_mode(c->n) == ONNX_PAD_REFLECT &&
		    (v[i] >= x->dims[i] || v[i + x->rank] >= x->dims[i]))
			return node_fail(c, "reflect pads as long as the axis or longer", NULL);
		d[i] = x->dims[i] + v[i] + v[i + x->rank];
	}
	return set_out(c, x->rank, d);
}

/* Ops whose output has the shape of their first input. */
static const char *const same_shape_ops[] = {
	"Relu", "Sigmoid", "Clip", "Identity", "Dropout", "Softmax", "LogSoftmax", "LeakyRelu",
	"BatchNormalization", "QuantizeLinear", "DequantizeLinear", "Tanh", "HardSigmoid",
	"HardSwish", "Swish", "Elu", "Selu", "Softplus", "Gelu", "LayerNormalization", "Sqrt",
	"Exp", "Abs", "Softsign", "Neg", "Reciprocal", "Log",
};

/*
 * Element type of the output: integer products are int32, the quantised
 * ops take their zero point's type (uint8 when QuantizeLinear has none),
 * DequantizeLinear gives float32, the rest keep their first input's type.
 */
static void infer_dtype(struct infer *c)
{
	const char *op = c->n->op_type;
	struct onnx_tensor *o = &c->g->tensors[c->n->out[0]];
	const struct onnx_tensor *zp = NULL;

	if (o->dtype)
		return;
	if (!strcmp(op, "ConvInteger") || !strcmp(op, "MatMulInteger")) {
		o->dtype = ONNX_DT_INT32;
		return;
	}
	if (!strcmp(op, "DequantizeLinear")) {
		o->dtype = ONNX_DT_FLOAT;
		return;
	}
	if (!strcmp(op, "ConstantOfShape")) {
		const struct onnx_attr *v = onnx_node_attr(c->n, "value");

		o->dtype = v && v->type == ONNX_ATTR_TENSOR ? v->t->dtype : ONNX_DT_FLOAT;
		return;
	}
	if (!strcmp(op, "QuantizeLinear"))
		zp = in_t(c, 2);
	else if (!strcmp(op, "QLinearConv") || !strcmp(op, "QLinearMatMul"))
		zp = in_t(c, 7);
	else {
		o->dtype = in_t(c, 0)->dtype;
		return;
	}
	o->dtype = zp ? zp->dtype : ONNX_DT_UINT8;
}

/* Inputs an op cannot do without (ONNX operator specs); optional inputs
 * after these may be absent or empty. */
static const struct {
	const char *op;
	size_t n;
} required_inputs[] = {
	{ "Conv", 2 }, { "ConvInteger", 2 }, { "QLinearConv", 8 }, { "MatMul", 2 },
	{ "MatMulInteger", 2 }, { "QLinearMatMul", 8 }, { "Gemm", 2 }, { "Add", 2 },
	{ "Sub", 2 }, { "Mul", 2 }, { "Div", 2 }, { "Reshape", 2 },
	{ "QuantizeLinear", 2 }, { "DequantizeLinear", 2 }, { "BatchNormalization", 5 },
	{ "PRelu", 2 }, { "Max", 1 }, { "Min", 1 },
};

static int check_arity(const struct infer *c)
{
	for (size_t i = 0; i < sizeof(required_inputs) / sizeof(required_inputs[0]); i++) {
		if (strcmp(c->n->op_type, required_inputs[i].op))
			continue;
		for (size_t k = 0; k < required_inputs[i].n; k++)
			if (!in_t(c, k))
				return node_fail(c, "a required input is missing", NULL);
	}
	return 0;
}

/* BatchNormalization: X, scale, B, input_mean, input_var, the last four
 * 1-D of X's channel count. */
static int infer_batchnorm(struct infer *c)
{
	const struct onnx_tensor *x = in_t(c, 0);

	if (x->rank < 2)
		return node_fail(c, "X has no channel axis", NULL);
	for (size_t i = 1; i <= 4; i++) {
		const struct onnx_tensor *p = in_t(c, i);

		if (!p || p->rank != 1 || p->dims[0] != x->dims[1])
			return node_fail(c, "scale, B, mean and var must each be 1-D of the "
					 "channel count", NULL);
	}
	return set_out(c, x->rank, x->dims);
}

/* Ops defined on float tensors only (ONNX type constraint T: float16,
 * float, double, bfloat16; the last is not among the types read). */
static const char *const float_ops[] = {
	"Conv", "AveragePool", "GlobalAveragePool", "BatchNormalization", "Gemm", "Softmax",
	"LogSoftmax",
	"Sigmoid", "Tanh", "HardSigmoid", "LeakyRelu",
	"HardSwish", "Swish", "Elu", "Selu", "Softplus", "Gelu", "PRelu", "Exp", "Softsign",
	"Reciprocal", "Sqrt", "Log",
};

static bool is_float_dtype(int32_t dt)
{
	/* undefined: a type the model leaves out, refused where it matters */
	return dt == ONNX_DT_FLOAT || dt == ONNX_DT_FLOAT16 || dt == ONNX_DT_DOUBLE ||
	       dt == ONNX_DT_UNDEFINED;
}

static int infer_node(struct infer *c)
{
	const char *op = c->n->op_type;
	const struct onnx_tensor *x = in_t(c, 0);

	/* a declared CPU op keeps its input's shape (onnx_graph.h) */
	if (onnx_declared_cpu_op(c->g, c->n)) {
		if (!x || !known(x) || c->n->n_in != 1 || c->n->n_out != 1)
			return node_fail(c, "a CPU op takes one input of known shape and gives "
					 "one output", NULL);
		return set_out(c, x->rank, x->dims);
	}
	if (*c->n->domain)
		return node_fail(c, "operator domain is not supported: ", c->n->domain);
	for (size_t i = 0; i < c->n->n_in; i++)
		if (c->n->in[i] >= 0 && !known(in_t(c, i)))
			return node_fail(c, "an input has no known shape", NULL);
	if (!x)
		return node_fail(c, "has no first input", NULL);
	if (check_arity(c))
		return -ENOTSUP;
	for (size_t i = 0; i < sizeof(float_ops) / sizeof(float_ops[0]); i++)
		if (!strcmp(op, float_ops[i]) && !is_float_dtype(x->dtype))
			return fail(c->err, c->err_len, -ENOTSUP, "node '%s' (%s): input '%s' is "
				    "%s; the operator takes a float tensor", c->n->name, op,
				    x->name, onnx_dtype_name(x->dtype));
	if (!strcmp(op, "BatchNormalization"))
		return infer_batchnorm(c);
	/* Clip's min and max, Pad's constant_value: one value (ONNX: a scalar) */
	for (size_t i = 1; i <= 2; i++) {
		const struct onnx_tensor *v = in_t(c, i);

		if (((!strcmp(op, "Clip") && c->g->opset >= 11) || (!strcmp(op, "Pad") && i == 2)) &&
		    v && onnx_tensor_count(v) != 1)
			return node_fail(c, "min, max or constant_value is not one value", NULL);
	}
	for (size_t i = 0; i < sizeof(same_shape_ops) / sizeof(same_shape_ops[0]); i++)
		if (!strcmp(op, same_shape_ops[i]))
			return set_out(c, x->rank, x->dims);
	if (onnx_conv1d(c->g, c->n))
		return onnx_spatial_infer(c->g, c->n, c->err, c->err_len);
	if (!strcmp(op, "Conv") || !strcmp(op, "ConvInteger"))
		return infer_window(c, WINDOW_CONV);
	if (!strcmp(op, "QLinearConv"))
		return infer_window(c, WINDOW_QLINEAR_CONV);
	if (!strcmp(op, "MaxPool") || !strcmp(op, "AveragePool")) {
		if (c->n->n_out > 1)
			return node_fail(c, "the Indices output is not supported", NULL);
		return infer_window(c, WINDOW_POOL);
	}
	if (!strcmp(op, "GlobalAveragePool") || !strcmp(op, "GlobalMaxPool")) {
		int64_t d[4] = { x->dims[0], x->dims[1], 1, 1 };

		if (x->rank != 3 && x->rank != 4)
			return node_fail(c, "only 1-D (NCW) and 2-D (NCHW) inputs are supported",
					 NULL);
		return set_out(c, x->rank, d);
	}
	if (!strcmp(op, "Add") || !strcmp(op, "Sub") || !strcmp(op, "Mul") || !strcmp(op, "Div") ||
	    !strcmp(op, "Pow"))
		return infer_broadcast(c);
	if (!strcmp(op, "PRelu"))
		return infer_prelu(c);
	if (!strcmp(op, "Expand"))
		return infer_expand(c);
	if (!strcmp(op, "Tile"))
		return infer_tile(c);
	if (!strcmp(op, "GatherElements"))
		return infer_gather_elements(c);
	if (!strcmp(op, "Max") || !strcmp(op, "Min")) {
		if (c->n->n_in != 2 || !in_t(c, 1))
			return node_fail(c, "Max / Min of other than 2 inputs is not supported", NULL);
		return infer_broadcast(c);
	}
	if (!strcmp(op, "MatMul") || !strcmp(op, "MatMulInteger"))
		return infer_matmul(c, 0, 1);
	if (!strcmp(op, "QLinearMatMul"))
		return infer_matmul(c, 0, 3);
	if (!strcmp(op, "Gemm"))
		return infer_gemm(c);
	if (!strcmp(op, "Concat"))
		return infer_concat(c);
	if (!strcmp(op, "Reshape"))
		return infer_reshape(c);
	if (!strcmp(op, "Flatten"))
		return infer_flatten(c);
	if (!strcmp(op, "Transpose"))
		return infer_transpose(c);
	if (!strcmp(op, "Pad"))
		return infer_pad(c);
	if (!strcmp(op, "ConstantOfShape"))
		return infer_constant_of_shape(c);
	if (onnx_spatial_op(op))
		return onnx_spatial_infer(c->g, c->n, c->err, c->err_len);
	if (onnx_reduce_fn(c->n))
		return infer_reduce(c);
	if (!strcmp(op, "Gather"))
		return infer_gather(c);
	if (!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze"))
		return infer_squeeze(c, !strcmp(op, "Unsqueeze"));
	return node_fail(c, "operator is not supported by the importer", NULL);
}

int onnx_infer_shapes(struct onnx_graph *g, int64_t batch, char *err, size_t err_len)
{
	for (size_t i = 0; i < g->n_inputs; i++) {
		struct onnx_tensor *t = &g->tensors[g->inputs[i]];

		if (t->rank < 0)
			return fail(err, err_len, -EINVAL, "input '%s' has no declared shape",
				    t->name);
		for (int k = 0; k < t->rank; k++) {
			if (t->dims[k] < 0 && k == 0)
				t->dims[k] = batch;
			if (t->dims[k] < 0)
				return fail(err, err_len, -EINVAL, "input '%s': dimension %d is "
					    "symbolic: give the input's size (rkbare compile "
					    "--shape-set %s=DxDx..)", t->name, k, t->name);
			if (t->dims[k] > ONNX_MAX_DIM)
				return fail(err, err_len, -EINVAL, "input '%s': dimension %d is "
					    "out of range", t->name, k);
			if (!t->dims[k])
				return fail(err, err_len, -EINVAL, "input '%s': dimension %d is 0 "
					    "(empty tensors are not supported)", t->name, k);
		}
	}
	for (size_t i = 0; i < g->n_nodes; i++) {
		int rc = onnx_infer_node(g, &g->nodes[i], err, err_len);

		if (rc)
			return rc;
	}
	return 0;
}

int onnx_infer_node(struct onnx_graph *g, const struct onnx_node *n, char *err, size_t err_len)
{
	struct infer c = { .g = g, .n = n, .err = err, .err_len = err_len };
	int rc = infer_node(&c);

	if (!rc)
		infer_dtype(&c);
	return rc;
}
