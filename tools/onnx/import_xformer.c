/* SPDX-License-Identifier: MIT */
/*
 * Transformer pieces as CPU ops (runtime/cpu_xformer.h), in int8 (between
 * DequantizeLinear and QuantizeLinear) and fp16: LayerNormalization (the
 * fold writes it for the spelled-out pattern too: onnx_fold.h), ONNX's ten
 * Reduce* operators over any axes of the map, MatMul of rank-3 or rank-4 maps
 * (two computed operands, attention's; or a constant [K, N] B, a Linear
 * layer on [1, T, C] tokens), and in fp16 a Transpose of a map's axes
 * (int8 has its own: import_patterns.c). Operator meanings: the ONNX
 * operator documents.
 *
 * The map of a [1, C, H, W], [A, B, C] or [M, K] tensor is C × H × W, A ×
 * B × C or K channels by M rows (new_qt): an exporter's last axis is the
 * map's W for rank 3 and 4, its channels for rank 2.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cpu_ops.h"
#include "runtime/cpu_xformer.h"
#include "tools/onnx/import_int.h"
#include "tools/onnx/onnx_spatial.h"

static bool matmul_of_maps(const struct imp *s, const struct onnx_node *n)
{
	const struct onnx_tensor *a = T(s, in_of(n, 0));

	return is_op(n, "MatMul") && a && a->rank >= 3;
}

bool xformer_op(const struct imp *s, const struct onnx_node *n)
{
	return is_op(n, "LayerNormalization") || onnx_reduce_fn(n) || matmul_of_maps(s, n);
}

/* Float constant t of `count` values into v, or an error naming `what`. */
static int float_values(struct imp *s, int t, size_t count, const char *what, float *v)
{
	const struct onnx_tensor *x = T(s, t);

	if (!x || !is_const(s, t) || x->count != count)
		return fail(s, "%s '%s' is not a constant of %zu values (the normalised axes' "
			    "elements)", what, x ? x->name : "", count);
	for (size_t i = 0; i < count; i++) {
		v[i] = (float)const_at(x, i);
		if (!isfinite(v[i]))
			return fail(s, "%s '%s' holds %g at %zu: not a finite number", what,
				    x->name, (double)v[i], i);
	}
	return 0;
}

/* LayerNormalization n's parameters (cpu_xformer.h) into op: the map
 * axes of its input's axes from `axis` on (the batch axis of extent 1
 * among them only beside a map axis), Scale and B reordered from the
 * ONNX row-major order of those axes into the map's C, H, W order. */
static int layernorm_params(struct imp *s, const struct onnx_node *n, struct imp_op *op)
{
	const struct onnx_tensor *x = T(s, in_of(n, 0));
	int64_t given = onnx_attr_int(n, "axis", -1), axis = given < 0 ? given + x->rank : given;
	float eps = onnx_attr_float(n, "epsilon", 1e-5f), *v = NULL;
	int32_t axes = RKB_CPU_REDUCE_AXES;
	unsigned int e[3] = { 1, 1, 1 };
	size_t len = 1;
	uint8_t *p;
	int rc;

	for (size_t i = 1; i < n->n_out; i++)
		if (n->out[i] >= 0 && (s->users[n->out[i]] || T(s, n->out[i])->is_output))
			return fail(s, "output %zu (Mean / InvStdDev) is read: only Y is supported",
				    i);
	if (axis < 0 || axis >= x->rank || x->rank > 4)
		return fail(s, "attribute axis %lld of a rank-%d tensor (an axis of a rank-1 to 4 "
			    "tensor is supported)", (long long)given, x->rank);
	for (int64_t a = axis; a < x->rank; a++) {
		int m = imp_map_axis(s, x->rank, (int)a);

		len *= (size_t)x->dims[a];
		if (m >= 0) {
			axes |= 1 << m;
			e[m] = (unsigned int)x->dims[a];
		} else if (x->dims[a] != 1) {
			return fail(s, "attribute axis %lld: the batch axis (batch 1 only)",
				    (long long)given);
		}
	}
	if (axes == RKB_CPU_REDUCE_AXES)
		return fail(s, "attribute axis %lld: the batch axis alone (extent 1) is not "
			    "supported", (long long)given);
	if (!(eps >= 0.0f) || !isfinite(eps))
		return fail(s, "attribute epsilon %g: a finite value >= 0 is supported",
			    (double)eps);
	if (onnx_attr_int(n, "stash_type", 1) != 1)
		return fail(s, "attribute stash_type %lld: 1 (float32) is supported",
			    (long long)onnx_attr_int(n, "stash_type", 1));
	op->cpu_params_bytes = RKB_CPU_LAYERNORM_HEADER + 2 * len * sizeof(float);
	p = op->cpu_params = calloc(1, op->cpu_params_bytes);
	v = malloc(len * sizeof(float));
	if (!p || !v) {
		free(v);
		return -ENOMEM;
	}
	memcpy(p, &axes, sizeof(axes));
	memcpy(p + sizeof(axes), &eps, sizeof(eps));
	for (int k = 0; k < 2; k++) {
		float *dst = (float *)(void *)(p + RKB_CPU_LAYERNORM_HEADER + k * len * sizeof(float));

		if (k == 0)
			rc = float_values(s, in_of(n, 1), len, "Scale", v);
		else if (in_of(n, 2) >= 0)
			rc = float_values(s, in_of(n, 2), len, "B", v);
		else
			break;
		if (rc) {
			free(v);
			return rc;
		}
		/* ONNX index i over dims[axis..] → (c, h, w) in the block */
		for (size_t i = 0; i < len; i++) {
			unsigned int pos[3] = { 0, 0, 0 };
			size_t rest = i;

			for (int64_t a = x->rank - 1; a >= axis; a--) {
				int m = imp_map_axis(s, x->rank, (int)a);

				if (m >= 0)
					pos[m] = (unsigned int)(rest % (size_t)x->dims[a]);
				rest /= (size_t)x->dims[a];
			}
			dst[(pos[0] * e[1] + pos[1]) * e[2] + pos[2]] = v[i];
		}
	}
	free(v);
	return 0;
}

/* A reduction's function and the map axes it reduces (cpu_xformer.h):
 * the batch axis of a rank-4 tensor (extent 1) only beside a map axis. */
static int reduce_params(struct imp *s, const struct onnx_node *n, struct imp_op *op)
{
	const struct onnx_tensor *x = T(s, in_of(n, 0));
	bool reduced[ONNX_GRAPH_MAX_RANK];
	int32_t v[RKB_CPU_REDUCE_PARAMS] = { onnx_reduce_fn(n), RKB_CPU_REDUCE_AXES };
	int rc = onnx_reduce_set(s->g, n, x->rank, reduced, s->err, s->err_len);

	if (rc)
		return rc;
	for (int k = 0; k < x->rank; k++) {
		int axis = imp_map_axis(s, x->rank, k);

		if (reduced[k] && axis >= 0)
			v[1] |= 1 << axis;
		else if (reduced[k] && (x->rank != 4 || x->dims[0] != 1))
			return fail(s, "attribute axes: axis %d of a rank-%d tensor (the batch axis "
				    "or rank above 4) is not supported", k, x->rank);
	}
	if (v[1] == RKB_CPU_REDUCE_AXES)
		return fail(s, "attribute axes: the batch axis alone (extent 1) is not "
			    "supported");
	op->cpu_params = malloc(sizeof(v));
	if (!op->cpu_params)
		return -ENOMEM;
	memcpy(op->cpu_params, v, sizeof(v));
	op->cpu_params_bytes = sizeof(v);
	return 0;
}

/* A MatMul's B: a computed map, or a constant (in int8 the
 * DequantizeLinear of one): [K, N] or one matrix per channel; checks the
 * shapes the CPU op takes. */
static int matmul_shapes(struct imp *s, const struct onnx_node *n, bool *const_b)
{
	const struct onnx_tensor *a = T(s, in_of(n, 0)), *b = T(s, in_of(n, 1));
	int bq = dq_input(s, in_of(n, 1));

	*const_b = is_const(s, in_of(n, 1)) || (bq >= 0 && is_const(s, bq));
	if (b->rank == 2 && !*const_b)
		return fail(s, "B '%s' is a computed [K, N] matrix: a computed B of A's rank, "
			    "or a constant B, is supported", b->name);
	if (a->rank == 4 && a->dims[0] != 1)
		return fail(s, "A '%s' has batch %lld (1 is supported)", a->name,
			    (long long)a->dims[0]);
	if (b->rank == 4 && b->dims[0] != 1)
		return fail(s, "B '%s' has batch %lld (1 is supported)", b->name,
			    (long long)b->dims[0]);
	if (b->rank != 2 && b->rank != a->rank)
		return fail(s, "B '%s' is rank %d: A's rank %d, or a constant [K, N], is "
			    "supported", b->name, b->rank, a->rank);
	return 0;
}

/* A constant B (one [K, N] matrix, or one per channel) as the op's
 * parameters, from float values. */
static int matmul_const(struct imp_op *op, const float *v, size_t count)
{
	op->cpu_params = malloc(count * sizeof(float));
	if (!op->cpu_params)
		return -ENOMEM;
	memcpy(op->cpu_params, v, count * sizeof(float));
	op->cpu_params_bytes = count * sizeof(float);
	return 0;
}

static int params_of(struct imp *s, const struct onnx_node *n, struct imp_op *op)
{
	if (is_op(n, "LayerNormalization")) {
		op->cpu_type = "LayerNorm";
		return layernorm_params(s, n, op);
	}
	if (is_op(n, "MatMul")) {
		op->cpu_type = "MatMul";
		return 0;
	}
	op->cpu_type = "Reduce";
	return reduce_params(s, n, op);
}

int map_xformer_fp16(struct imp *s, const struct onnx_node *n)
{
	struct imp_op *op;
	bool const_b = false;
	int in = fp16_operand(s, in_of(n, 0)), rc;

	if (in < 0)
		return in;
	if (is_op(n, "MatMul") && (rc = matmul_shapes(s, n, &const_b)))
		return rc;
	op = add_op(s, IMP_CPU);
	if (!op)
		return -ENOMEM;
	op->in[0] = in;
	op->out = fp16_tensor(s, n->out[0]);
	if (op->out < 0)
		return op->out;
	rc = params_of(s, n, op);
	if (rc || !is_op(n, "MatMul"))
		return rc;
	if (!const_b) {
		op->in[1] = fp16_operand(s, in_of(n, 1));
		return op->in[1] < 0 ? op->in[1] : 0;
	}
	{
		const struct onnx_tensor *b = T(s, in_of(n, 1));
		float *v = malloc(b->count * sizeof(float) + 1);

		rc = !v ? -ENOMEM : float_values(s, in_of(n, 1), b->count, "B", v);
		if (!rc)
			rc = matmul_const(op, v, b->count);
		free(v);
		return rc;
	}
}

int map_xformer_q(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	bool const_b = false;
	int rc;

	if (op->act != LOWER_ACT_NONE)
		return fail(s, "an activation after %s is not fused into a CPU op", p->op_type);
	if (is_op(p, "MatMul") && (rc = matmul_shapes(s, p, &const_b)))
		return rc;
	op->kind = IMP_CPU;
	op->in[0] = dq_source(s, in_of(p, 0));
	if (op->in[0] < 0)
		return op->in[0];
	rc = params_of(s, p, op);
	if (rc || !is_op(p, "MatMul"))
		return rc;
	if (!const_b) {
		op->in[1] = dq_source(s, in_of(p, 1));
		return op->in[1] < 0 ? op->in[1] : 0;
	}
	{
		/* the calibration quantised B per index along axis 1 (the columns
		 * of [K, N], the rows of a batched B): dequantised */
		const struct onnx_tensor *b = T(s, in_of(p, 1));
		size_t cols = (size_t)b->dims[1];
		size_t inner = onnx_tensor_count(b) / (size_t)b->dims[0] / cols;
		struct qweights w;
		float *v;

		if (is_const(s, in_of(p, 1)) && b->dtype == ONNX_DT_FLOAT) {
			v = malloc(b->count * sizeof(float) + 1);
			rc = !v ? -ENOMEM : float_values(s, in_of(p, 1), b->count, "B", v);
			if (!rc)
				rc = matmul_const(op, v, b->count);
			free(v);
			return rc;
		}
		rc = weights_from_dq(s, in_of(p, 1), 1, cols, &w);
		if (rc)
			return rc;
		v = malloc(w.count * sizeof(float) + 1);
		if (!v) {
			qweights_free(&w);
			return -ENOMEM;
		}
		for (size_t i = 0; i < w.count; i++)
			v[i] = w.scale[w.n_scale == 1 ? 0 : i / inner % cols] * (float)(w.v[i] - w.zp);
		rc = matmul_const(op, v, w.count);
		free(v);
		qweights_free(&w);
		return rc;
	}
}

/*
 * A Transpose of an fp16 map's axes (the batch axis of a rank-4 tensor
 * staying first) on the CPU ("Transpose"): attention's K^T and its heads
 * moved between axes. The NCHW <-> NHWC views at a graph's edges are
 * import_fp16.c's; true when n is one for this, else false (not taken).
 */
bool transpose_fp16_op(const struct imp *s, const struct onnx_node *n)
{
	int src = in_of(n, 0);
	const struct onnx_tensor *x = T(s, src);
	int p = perm4(n);

	if (!is_op(n, "Transpose") || !x || s->qt[src] < 0 || s->nhwc_view[src] ||
	    s->flat_view[src])
		return false;
	/* what map_view takes: NCHW -> NHWC toward an output */
	return !(x->rank == 4 && p == PERM_TO_NHWC);
}

int map_transpose_fp16(struct imp *s, const struct onnx_node *n)
{
	const struct onnx_attr *a = onnx_node_attr(n, "perm");
	const struct onnx_tensor *x = T(s, in_of(n, 0));
	int r = x->rank, perm[3] = { 0, 1, 2 };
	struct imp_op *op;

	if (r < 2 || r > 4 || (r == 4 && x->dims[0] != 1))
		return fail(s, "only transposes of a [1,C,H,W], [A,B,C] or [M,K] map");
	if (a && (a->type != ONNX_ATTR_INTS || a->n != (size_t)r))
		return fail(s, "attribute perm is not a list of %d axes", r);
	for (int j = 0; j < r; j++) {
		int from = a ? (int)a->ints[j] : r - 1 - j;	/* default: reversed */

		if (from < 0 || from >= r)
			return fail(s, "attribute perm names axis %d of a rank-%d tensor", from, r);
		if (imp_map_axis(s, r, j) < 0 || imp_map_axis(s, r, from) < 0) {
			if (imp_map_axis(s, r, j) != imp_map_axis(s, r, from))
				return fail(s, "attribute perm moves the batch axis");
			continue;
		}
		perm[imp_map_axis(s, r, j)] = imp_map_axis(s, r, from);
	}
	op = add_op(s, IMP_CPU);
	if (!op)
		return -ENOMEM;
	op->cpu_type = "Transpose";
	memcpy(op->cpu_perm, perm, sizeof(perm));
	op->in[0] = fp16_operand(s, in_of(n, 0));
	if (op->in[0] < 0)
		return op->in[0];
	op->out = fp16_tensor(s, n->out[0]);
	return op->out < 0 ? op->out : 0;
}

/* The map (c, h, w) of a [1,C,H,W] or [A,B,C] tensor, as new_qt lays it. */
static bool map_dims(const struct onnx_tensor *t, unsigned int d[3])
{
	if (t->rank == 4 && t->dims[0] == 1) {
		for (int i = 0; i < 3; i++)
			d[i] = (unsigned int)t->dims[i + 1];
		return true;
	}
	if (t->rank == 3) {
		for (int i = 0; i < 3; i++)
			d[i] = (unsigned int)t->dims[i];
		return true;
	}
	return false;
}

bool reshape_of_maps(const struct imp *s, const struct onnx_node *n)
{
	unsigned int a[3], b[3];
	int src = n ? in_of(n, 0) : -1, q = dq_input(s, src);

	/* a view of a view (a channels-last edge, a flattened map) stays the
	 * other importers' */
	if (src < 0 || s->nhwc_view[q >= 0 ? q : src] || s->flat_view[q >= 0 ? q : src])
		return false;
	return is_op(n, "Reshape") && n->out[0] >= 0 && map_dims(T(s, src), a) &&
	       map_dims(T(s, n->out[0]), b);
}

/* Reshape n of a map into a map: the same map when their C × H × W agree,
 * else a CPU Reshape (cpu_xformer.h) into out (when out < 0: a new fp16
 * map). */
static int reshape_op(struct imp *s, const struct onnx_node *n, int in, int out)
{
	unsigned int a[3], b[3];
	struct imp_op *op;

	map_dims(T(s, in_of(n, 0)), a);
	map_dims(T(s, n->out[0]), b);
	if (!memcmp(a, b, sizeof(a)) && out < 0) {
		s->qt[n->out[0]] = in;
		return 0;
	}
	op = add_op(s, IMP_CPU);
	if (!op)
		return -ENOMEM;
	op->cpu_type = "Reshape";
	op->in[0] = in;
	op->out = out >= 0 ? out : fp16_tensor(s, n->out[0]);
	return op->out < 0 ? op->out : 0;
}

int map_reshape_fp16(struct imp *s, const struct onnx_node *n)
{
	int in = fp16_operand(s, in_of(n, 0));

	return in < 0 ? in : reshape_op(s, n, in, -1);
}

int map_reshape_q(struct imp *s, const struct onnx_node *q, const struct onnx_node *p,
		  float scale, int32_t zp)
{
	int in, out, rc;

	s->n = p;
	s->used[p - s->g->nodes] = true;
	in = dq_source(s, in_of(p, 0));
	if (in < 0)
		return in;
	out = new_qt(s, q->out[0]);
	rc = out < 0 ? out : set_params(s, out, scale, zp);
	return rc ? rc : reshape_op(s, p, in, out);
}

/* ---- rearrangements through tensors no map holds ---- */

/* The longest chain of view nodes a Gather table follows. */
#define CHAIN_MAX	32

/* A node that only moves elements: what a Gather table can follow. A
 * Slice with constant bounds is one too (PaddlePaddle's exports split
 * attention's Q, K and V with Slice and Squeeze where PyTorch's Gather). */
static bool view_node(const struct imp *s, const struct onnx_node *n)
{
	struct onnx_slice sl;

	return is_op(n, "Reshape") || is_op(n, "Flatten") || is_op(n, "Squeeze") ||
	       is_op(n, "Unsqueeze") || is_op(n, "Transpose") ||
	       ((is_op(n, "Gather") || is_op(n, "GatherElements") || is_op(n, "Tile") ||
		 is_op(n, "Expand")) && is_const(s, in_of(n, 1))) ||
	       (is_op(n, "Slice") && in_of(n, 0) >= 0 && !onnx_slice_get(s->g, n, &sl, NULL, 0));
}

/* Whether only views read ONNX tensor t, through int8's QuantizeLinear /
 * DequantizeLinear pair (`qdq` steps of it left), and it is no graph
 * output. */
static bool views_read_only(const struct imp *s, int t, int qdq)
{
	if (T(s, t)->is_output)
		return false;
	for (size_t k = 0; k < s->g->n_nodes; k++) {
		const struct onnx_node *n = &s->g->nodes[k];
		bool pair = is_op(n, "QuantizeLinear") || is_op(n, "DequantizeLinear");

		for (size_t j = 0; j < n->n_in; j++) {
			if (n->in[j] != t)
				continue;
			if (j || !(pair || view_node(s, n)) ||
			    (pair && (!qdq || !views_read_only(s, n->out[0], qdq - 1))))
				return false;
		}
	}
	return true;
}

/* Whether the view making ONNX tensor t ends a chain in a map: a map's
 * shape, and for rank 5 (a detection head's [1, anchors, H, W, outputs])
 * a reader other than a view, so that attention's rank-5 q, k, v split
 * stays one move. */
static bool chain_map(const struct imp *s, int t)
{
	const struct onnx_tensor *x = T(s, t);

	return imp_map_rank(x) && (x->rank < 5 || !views_read_only(s, t, 2));
}

/* Whether t is the output of a view no map holds (deferred), through
 * int8's QuantizeLinear. */
static bool deferred(const struct imp *s, int t)
{
	const struct onnx_node *p = t >= 0 && s->qt[t] < 0 ? prod(s, t) : NULL;

	if (is_op(p, "QuantizeLinear"))
		p = prod(s, in_of(p, 0));
	if (is_op(p, "DequantizeLinear"))
		return deferred(s, in_of(p, 0));
	return p && view_node(s, p);
}

/* Whether view n (its output t) makes or ends a chain: its output is no
 * map, it reads a deferred tensor, or it is a Gather, GatherElements,
 * Tile, Expand, Squeeze or Unsqueeze (which the other importers have no
 * view for). */
static bool chain_view(const struct imp *s, const struct onnx_node *n, int t)
{
	return view_node(s, n) &&
	       (!imp_map_rank(T(s, t)) || T(s, t)->rank == 5 || deferred(s, in_of(n, 0)) ||
		is_op(n, "Gather") ||
		is_op(n, "GatherElements") || is_op(n, "Tile") || is_op(n, "Expand") ||
		is_op(n, "Squeeze") || is_op(n, "Unsqueeze"));
}

static void unravel(size_t e, const struct onnx_tensor *t, int64_t *c)
{
	for (int i = t->rank - 1; i >= 0; i--) {
		c[i] = (int64_t)(e % (size_t)t->dims[i]);
		e /= (size_t)t->dims[i];
	}
}

static size_t ravel(const int64_t *c, const struct onnx_tensor *t)
{
	size_t e = 0;

	for (int i = 0; i < t->rank; i++)
		e = e * (size_t)t->dims[i] + (size_t)c[i];
	return e;
}

/*
 * A Gather view whose output is what Gather makes of its input: one
 * output, the axis inside the input, the output's shape the input's with
 * that axis replaced by the constant indices' shape, every index inside
 * the axis (negative ones from its end). view_back reads the indices at
 * the output's coordinates, so a hostile graph must not get past here.
 */
static bool gather_view_ok(const struct imp *s, const struct onnx_node *n)
{
	const struct onnx_tensor *x = T(s, in_of(n, 0)), *y = T(s, n->out[0]);
	const struct onnx_tensor *ix = T(s, in_of(n, 1));
	int64_t axis = onnx_attr_int(n, "axis", 0);
	size_t count;

	axis += axis < 0 ? x->rank : 0;
	if (n->n_out != 1 || !ix->data || axis < 0 || axis >= x->rank ||
	    y->rank != x->rank - 1 + ix->rank || y->rank > (int)ONNX_GRAPH_MAX_RANK)
		return false;
	for (int i = 0; i < y->rank; i++) {
		int64_t want = i < axis ? x->dims[i] : i < axis + ix->rank ?
			       ix->dims[i - axis] : x->dims[i - ix->rank + 1];

		if (y->dims[i] != want)
			return false;
	}
	count = onnx_tensor_count(ix);
	for (size_t i = 0; i < count; i++) {
		double k = const_at(ix, i);

		if (!(k >= (double)-x->dims[axis] && k < (double)x->dims[axis]))
			return false;
	}
	return true;
}

/*
 * A GatherElements, Tile or Expand view whose output is what the operator
 * makes of its input (the shapes as the operator derives them; for
 * GatherElements every index inside the axis), which view_back relies on.
 */
static bool moves_view_ok(const struct imp *s, const struct onnx_node *n)
{
	const struct onnx_tensor *x = T(s, in_of(n, 0)), *y = T(s, n->out[0]);
	const struct onnx_tensor *ix = T(s, in_of(n, 1));
	int64_t axis = onnx_attr_int(n, "axis", 0), off = y->rank - x->rank;

	axis += axis < 0 ? x->rank : 0;
	if (n->n_out != 1 || !ix->data || off < 0 || (!is_op(n, "Expand") && off) ||
	    y->rank > (int)ONNX_GRAPH_MAX_RANK)
		return false;
	for (int i = 0; i < x->rank; i++) {
		int64_t d = x->dims[i], o = y->dims[i + off];

		if ((is_op(n, "Tile") && o % d) || (is_op(n, "Expand") && d != 1 && d != o) ||
		    (is_op(n, "GatherElements") && o != ix->dims[i]))
			return false;
	}
	if (is_op(n, "GatherElements")) {
		size_t count = onnx_tensor_count(ix);

		if (axis < 0 || axis >= x->rank || ix->rank != x->rank)
			return false;
		for (size_t i = 0; i < count; i++) {
			double k = const_at(ix, i);

			if (!(k >= (double)-x->dims[axis] && k < (double)x->dims[axis]))
				return false;
		}
	}
	return true;
}

/* Coordinates in view n's output to its input's (sl: n's bounds when n is
 * a Slice). */
static void view_back(const struct imp *s, const struct onnx_node *n,
		      const struct onnx_slice *sl, const int64_t *out, int64_t *in)
{
	const struct onnx_tensor *x = T(s, in_of(n, 0)), *y = T(s, n->out[0]);

	if (is_op(n, "Transpose")) {
		const struct onnx_attr *a = onnx_node_attr(n, "perm");

		for (int i = 0; i < y->rank; i++)
			in[a ? a->ints[i] : y->rank - 1 - i] = out[i];
	} else if (is_op(n, "Slice")) {
		for (int i = 0; i < x->rank; i++)
			in[i] = sl->start[i] + out[i] * sl->step[i];
	} else if (is_op(n, "Gather")) {
		const struct onnx_tensor *ix = T(s, in_of(n, 1));
		int64_t axis = onnx_attr_int(n, "axis", 0), k, j = 0;

		axis += axis < 0 ? x->rank : 0;
		for (int i = 0; i < ix->rank; i++)
			j = j * ix->dims[i] + out[axis + i];
		k = (int64_t)const_at(ix, (size_t)j);
		for (int i = 0; i < x->rank; i++)
			in[i] = i < axis ? out[i] : i == axis ? (k < 0 ? k + x->dims[axis] : k) :
				out[i - 1 + ix->rank];
	} else if (is_op(n, "Tile")) {
		for (int i = 0; i < x->rank; i++)
			in[i] = out[i] % x->dims[i];
	} else if (is_op(n, "Expand")) {
		for (int i = 0; i < x->rank; i++)
			in[i] = x->dims[i] == 1 ? 0 : out[i + y->rank - x->rank];
	} else if (is_op(n, "GatherElements")) {
		int64_t axis = onnx_attr_int(n, "axis", 0), k;

		axis += axis < 0 ? x->rank : 0;
		k = (int64_t)const_at(T(s, in_of(n, 1)), ravel(out, y));
		for (int i = 0; i < x->rank; i++)
			in[i] = i == axis ? (k < 0 ? k + x->dims[axis] : k) : out[i];
	} else {
		unravel(ravel(out, y), x, in);	/* the same elements in order */
	}
}

/*
 * The Gather table op (cpu_xformer.h) writing imp tensor out for ONNX
 * tensor t, the end of a chain of views (through int8's QuantizeLinear /
 * DequantizeLinear pairs) from the last tensor a map holds.
 */
static int chain_op(struct imp *s, int t, int out)
{
	const struct onnx_node *chain[CHAIN_MAX];
	struct onnx_slice bounds[CHAIN_MAX];	/* a Slice's, read once */
	size_t nc = 0, count;
	int u = t, root;
	const struct onnx_tensor *rt, *ot = T(s, t);
	struct imp_op *op;
	int32_t *table;

	for (;;) {
		const struct onnx_node *p = prod(s, u);

		if (u != t && s->qt[u] >= 0 && !s->nhwc_view[u] && !s->flat_view[u])
			break;
		if (is_op(p, "QuantizeLinear") || is_op(p, "DequantizeLinear")) {
			u = in_of(p, 0);
			continue;
		}
		if (!p || !view_node(s, p) || nc == CHAIN_MAX)
			return fail(s, "'%s' is computed by no map, and no chain of at most %d "
				    "Reshape / Transpose / Gather / GatherElements / Tile / Expand / "
				    "Slice / Squeeze / Unsqueeze nodes leads to one", T(s, u)->name,
				    CHAIN_MAX);
		if (is_op(p, "Gather") && !gather_view_ok(s, p))
			return fail(s, "node '%s' (Gather): supported is one output, an axis of "
				    "the input, constant indices inside it and the output shape "
				    "Gather gives", p->name);
		if ((is_op(p, "GatherElements") || is_op(p, "Tile") || is_op(p, "Expand")) &&
		    !moves_view_ok(s, p))
			return fail(s, "node '%s' (%s): supported is one output, a constant second "
				    "input (indices inside the axis for GatherElements) and the "
				    "output shape the operator gives", p->name, p->op_type);
		if (is_op(p, "Slice"))
			onnx_slice_get(s->g, p, &bounds[nc], NULL, 0);	/* view_node took it */
		chain[nc++] = p;
		u = in_of(p, 0);
	}
	root = u;
	rt = T(s, root);
	count = onnx_tensor_count(ot);
	table = malloc(count * sizeof(*table) + 1);
	if (!table)
		return -ENOMEM;
	for (size_t e = 0; e < count; e++) {
		int64_t a[ONNX_GRAPH_MAX_RANK], b[ONNX_GRAPH_MAX_RANK], *cur = a, *prev = b;

		/* an [M, K] map is K channels of M rows: its row-major order is
		 * ONNX's transposed */
		if (ot->rank == 2) {
			a[0] = (int64_t)(e % (size_t)ot->dims[0]);
			a[1] = (int64_t)(e / (size_t)ot->dims[0]);
		} else {
			unravel(e, ot, a);
		}
		for (size_t k = 0; k < nc; k++) {
			view_back(s, chain[k], &bounds[k], cur, prev);
			cur = prev;
			prev = cur == a ? b : a;
		}
		table[e] = (int32_t)(rt->rank == 2 ? (size_t)cur[1] * (size_t)rt->dims[0] +
							     (size_t)cur[0] :
						     ravel(cur, rt));
	}
	op = add_op(s, IMP_CPU);
	if (!op) {
		free(table);
		return -ENOMEM;
	}
	op->cpu_type = "Gather";
	op->cpu_params = table;
	op->cpu_params_bytes = count * sizeof(*table);
	op->in[0] = s->qt[root];
	op->out = out;
	return 0;
}

bool chain_view_fp16(const struct imp *s, const struct onnx_node *n)
{
	return chain_view(s, n, n->out[0]);
}

int map_chain_fp16(struct imp *s, const struct onnx_node *n)
{
	int out;

	if (!chain_map(s, n->out[0]))
		return 0;	/* deferred: the chain's end reads through it */
	out = fp16_tensor(s, n->out[0]);
	return out < 0 ? out : chain_op(s, n->out[0], out);
}

bool chain_view_q(const struct imp *s, const struct onnx_node *q, const struct onnx_node *p)
{
	return p && chain_view(s, p, q->out[0]);
}

int map_chain_q(struct imp *s, const struct onnx_node *q, const struct onnx_node *p,
		float scale, int32_t zp)
{
	int out, rc;

	s->n = p;
	s->used[p - s->g->nodes] = true;
	if (!chain_map(s, q->out[0]))
		return 0;
	out = new_qt(s, q->out[0]);
	rc = out < 0 ? out : set_params(s, out, scale, zp);
	return rc ? rc : chain_op(s, q->out[0], out);
}
