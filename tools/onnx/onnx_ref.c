/* SPDX-License-Identifier: MIT */
/*
 * Float32 reference execution, op by op, in the plainest loops that state
 * each operator's definition: correctness over speed.
 */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "runtime/cpu_xformer.h"
#include "tools/onnx/onnx_ref.h"
#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_spatial.h"

struct run {
	const struct onnx_graph *g;
	const struct onnx_node *n;
	struct onnx_ref *r;
	char *err;
	size_t err_len;
};

static int fail(const struct run *c, const char *why)
{
	if (c->err_len)
		snprintf(c->err, c->err_len, "node '%s' (%s): %s", c->n->name, c->n->op_type, why);
	return -ENOTSUP;
}

static const struct onnx_tensor *tin(const struct run *c, size_t i)
{
	return i < c->n->n_in && c->n->in[i] >= 0 ? &c->g->tensors[c->n->in[i]] : NULL;
}

static const float *vin(const struct run *c, size_t i)
{
	return i < c->n->n_in && c->n->in[i] >= 0 ? c->r->val[c->n->in[i]] : NULL;
}

static const struct onnx_tensor *tout(const struct run *c)
{
	return &c->g->tensors[c->n->out[0]];
}

static float *vout(const struct run *c)
{
	return c->r->val[c->n->out[0]];
}

/* Scalar float operand (Clip min/max, LeakyRelu alpha given as input). */
static float scalar_in(const struct run *c, size_t i, float dflt)
{
	const float *v = vin(c, i);

	return v ? v[0] : dflt;
}

/* ---- element-wise ---- */

static int unary(struct run *c)
{
	const char *op = c->n->op_type;
	size_t n = onnx_tensor_count(tout(c));
	const float *x = vin(c, 0);
	float *y = vout(c);
	float lo = -INFINITY, hi = INFINITY;
	float alpha = onnx_attr_float(c->n, "alpha", !strcmp(op, "LeakyRelu") ? 0.01f : 0.2f);
	float beta = onnx_attr_float(c->n, "beta", 0.5f);

	if (!strcmp(op, "Clip")) {
		if (c->g->opset < 11) {
			lo = onnx_attr_float(c->n, "min", -INFINITY);
			hi = onnx_attr_float(c->n, "max", INFINITY);
		} else {
			lo = scalar_in(c, 1, -INFINITY);
			hi = scalar_in(c, 2, INFINITY);
		}
	}
	for (size_t i = 0; i < n; i++) {
		float v = x[i];

		switch (op[0]) {
		case 'R': v = v > 0 ? v : 0; break;				/* Relu */
		case 'S': v = 1.0f / (1.0f + expf(-v)); break;			/* Sigmoid */
		case 'T': v = tanhf(v); break;					/* Tanh */
		case 'L': v = v >= 0 ? v : alpha * v; break;			/* LeakyRelu */
		case 'H': v = fmaxf(0.0f, fminf(1.0f, alpha * v + beta)); break; /* HardSigmoid */
		case 'C': v = fminf(fmaxf(v, lo), hi); break;			/* Clip */
		default: break;							/* Identity, Dropout */
		}
		y[i] = v;
	}
	return 0;
}

/* Numpy broadcasting: output index → operand offset through per-axis
 * strides that are 0 on broadcast axes. */
static void broadcast_strides(const struct onnx_tensor *t, const struct onnx_tensor *out,
			      size_t *st)
{
	size_t s = 1;

	for (int i = out->rank - 1; i >= 0; i--) {
		int k = i - (out->rank - t->rank);
		int64_t d = k >= 0 ? t->dims[k] : 1;

		st[i] = d == 1 ? 0 : s;
		s *= (size_t)d;
	}
}

static int binary(struct run *c)
{
	const struct onnx_tensor *o = tout(c);
	size_t sa[ONNX_GRAPH_MAX_RANK], sb[ONNX_GRAPH_MAX_RANK], idx[ONNX_GRAPH_MAX_RANK] = { 0 };
	size_t n = onnx_tensor_count(o);
	const float *a = vin(c, 0), *b = vin(c, 1);
	float *y = vout(c);
	char op = c->n->op_type[0];

	broadcast_strides(tin(c, 0), o, sa);
	broadcast_strides(tin(c, 1), o, sb);
	for (size_t i = 0; i < n; i++) {
		size_t oa = 0, ob = 0;
		float va, vb;

		for (int k = 0; k < o->rank; k++) {
			oa += idx[k] * sa[k];
			ob += idx[k] * sb[k];
		}
		va = a[oa];
		vb = b[ob];
		y[i] = op == 'A' ? va + vb : op == 'S' ? va - vb : op == 'M' ? va * vb :
		       op == 'P' ? (float)pow(va, vb) : va / vb;
		for (int k = o->rank - 1; k >= 0; k--) {
			if (++idx[k] < (size_t)o->dims[k])
				break;
			idx[k] = 0;
		}
	}
	return 0;
}

/* The activations beside unary()'s, in double: HardSwish, Swish, Elu,
 * Selu, Softplus, Gelu, Exp, Abs, Softsign, Neg, Reciprocal, Sqrt, Log (ONNX's
 * definitions and attribute defaults; onnx_fold.c rewrites the exporters'
 * spellings of the first two). */
static int activation(struct run *c)
{
	const char *op = c->n->op_type;
	size_t n = onnx_tensor_count(tout(c));
	const float *x = vin(c, 0);
	float *y = vout(c);
	double alpha = onnx_attr_float(c->n, "alpha", !strcmp(op, "Selu") ?
				       1.67326319217681884765625f : 1.0f);
	double gamma = onnx_attr_float(c->n, "gamma", 1.05070102214813232421875f);
	const char *approx = onnx_attr_string(c->n, "approximate", "none");

	if (!strcmp(op, "Gelu") && strcmp(approx, "none") && strcmp(approx, "tanh"))
		return fail(c, "attribute approximate (supported: 'none', 'tanh')");
	for (size_t i = 0; i < n; i++) {
		double v = x[i], r;

		if (!strcmp(op, "HardSwish"))
			r = v * fmax(0.0, fmin(1.0, v / 6.0 + 0.5));
		else if (!strcmp(op, "Swish"))
			r = v / (1.0 + exp(-alpha * v));
		else if (!strcmp(op, "Elu"))
			r = v < 0 ? alpha * (exp(v) - 1.0) : v;
		else if (!strcmp(op, "Selu"))
			r = v <= 0 ? gamma * (alpha * exp(v) - alpha) : gamma * v;
		else if (!strcmp(op, "Softplus"))
			r = v > 0 ? v + log1p(exp(-v)) : log1p(exp(v));
		else if (!strcmp(op, "Exp"))
			r = exp(v);
		else if (!strcmp(op, "Abs"))
			r = fabs(v);
		else if (!strcmp(op, "Softsign"))
			r = v / (1.0 + fabs(v));
		else if (!strcmp(op, "Sqrt"))
			r = sqrt(v);
		else if (!strcmp(op, "Log"))
			r = log(v);
		else if (!strcmp(op, "Neg"))
			r = -v;
		else if (!strcmp(op, "Reciprocal"))
			r = 1.0 / v;
		else if (strcmp(approx, "tanh"))	/* Gelu */
			r = 0.5 * v * (1.0 + erf(v / sqrt(2.0)));
		else
			r = 0.5 * v * (1.0 + tanh(sqrt(2.0 / M_PI) * (v + 0.044715 * v * v * v)));
		y[i] = (float)r;
	}
	return 0;
}

/* Max, Min and PRelu of two broadcast operands (numpy's rule). */
static int binary_select(struct run *c)
{
	const struct onnx_tensor *o = tout(c);
	size_t sa[ONNX_GRAPH_MAX_RANK], sb[ONNX_GRAPH_MAX_RANK], idx[ONNX_GRAPH_MAX_RANK] = { 0 };
	size_t n = onnx_tensor_count(o);
	const float *a = vin(c, 0), *b = vin(c, 1);
	const char *op = c->n->op_type;
	float *y = vout(c);

	if (c->n->n_in != 2)
		return fail(c, "only two inputs are supported");
	broadcast_strides(tin(c, 0), o, sa);
	broadcast_strides(tin(c, 1), o, sb);
	for (size_t i = 0; i < n; i++) {
		size_t oa = 0, ob = 0;

		for (int k = 0; k < o->rank; k++) {
			oa += idx[k] * sa[k];
			ob += idx[k] * sb[k];
		}
		if (!strcmp(op, "PRelu"))
			y[i] = a[oa] < 0 ? a[oa] * b[ob] : a[oa];
		else if (!strcmp(op, "Max"))
			y[i] = a[oa] > b[ob] ? a[oa] : b[ob];
		else
			y[i] = a[oa] < b[ob] ? a[oa] : b[ob];
		for (int k = o->rank - 1; k >= 0; k--) {
			if (++idx[k] < (size_t)o->dims[k])
				break;
			idx[k] = 0;
		}
	}
	return 0;
}

/* ---- windows ---- */

static int conv(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0), *w = tin(c, 1), *o = tout(c);
	const float *xv = vin(c, 0), *wv = vin(c, 1), *bv = vin(c, 2);
	int group = (int)onnx_attr_int(c->n, "group", 1);
	int ic = (int)x->dims[1], ih = (int)x->dims[2], iw = (int)x->dims[3];
	int oc = (int)o->dims[1], icg = ic / group, ocg = oc / group;
	struct onnx_window win;
	float *y = vout(c);

	if (onnx_window_get(c->n, ih, iw, (int)w->dims[2], (int)w->dims[3], &win, c->err,
			    c->err_len))
		return -EINVAL;
	for (int64_t b = 0; b < x->dims[0]; b++)
		for (int m = 0; m < oc; m++)
			for (int oy = 0; oy < win.out_h; oy++)
				for (int ox = 0; ox < win.out_w; ox++) {
					double acc = bv ? bv[m] : 0.0;
					int g = m / ocg;

					for (int ci = 0; ci < icg; ci++)
						for (int ky = 0; ky < win.kh; ky++)
							for (int kx = 0; kx < win.kw; kx++) {
								int yy = oy * win.sh - win.pad_top + ky * win.dh;
								int xx = ox * win.sw - win.pad_left + kx * win.dw;

								if (yy < 0 || yy >= ih || xx < 0 || xx >= iw)
									continue;
								acc += (double)xv[((b * ic + g * icg + ci) * ih + yy) * iw + xx] *
								       wv[((m * icg + ci) * win.kh + ky) * win.kw + kx];
							}
					y[((b * oc + m) * win.out_h + oy) * win.out_w + ox] = (float)acc;
				}
	return 0;
}

static int pool(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0);
	const float *xv = vin(c, 0);
	bool is_max = c->n->op_type[0] == 'M';
	/* [N, C, W] is one row of W */
	int ih = x->rank == 3 ? 1 : (int)x->dims[2], iw = (int)x->dims[x->rank - 1];
	struct onnx_window win;
	float *y = vout(c);

	if (x->rank == 3 ? onnx_conv1d_window(c->n, iw, 0, &win, c->err, c->err_len) :
			   onnx_window_get(c->n, ih, iw, 0, 0, &win, c->err, c->err_len))
		return -EINVAL;
	if (!is_max && (win.dh != 1 || win.dw != 1))
		return fail(c, "AveragePool with dilations is not supported");
	for (int64_t p = 0; p < x->dims[0] * x->dims[1]; p++)
		for (int oy = 0; oy < win.out_h; oy++)
			for (int ox = 0; ox < win.out_w; ox++) {
				int y0 = oy * win.sh - win.pad_top, x0 = ox * win.sw - win.pad_left;
				double acc = 0.0;
				float best = -INFINITY;
				int inside = 0, padded = 0;

				for (int ky = 0; ky < win.kh; ky++)
					for (int kx = 0; kx < win.kw; kx++) {
						int yy = y0 + ky * win.dh, xx = x0 + kx * win.dw;

						/* count_include_pad counts the declared padding,
						 * never the ceil-mode overhang past it */
						if (yy < ih + win.pad_bottom && xx < iw + win.pad_right)
							padded++;
						if (yy < 0 || yy >= ih || xx < 0 || xx >= iw)
							continue;
						inside++;
						acc += xv[(p * ih + yy) * iw + xx];
						best = fmaxf(best, xv[(p * ih + yy) * iw + xx]);
					}
				/* onnx_window_get keeps pads below the kernel, so a
				 * window always holds an input pixel */
				if (!inside)
					return fail(c, "a window lies wholly in the padding");
				y[(p * win.out_h + oy) * win.out_w + ox] =
					is_max ? best
					       : (float)(acc / (win.count_include_pad ? padded : inside));
			}
	return 0;
}

static int global_pool(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0);
	size_t hw = (size_t)(x->dims[2] * (x->rank == 3 ? 1 : x->dims[3]));
	const float *xv = vin(c, 0);
	float *y = vout(c);
	bool is_max = strstr(c->n->op_type, "Max") != NULL;

	for (int64_t p = 0; p < x->dims[0] * x->dims[1]; p++) {
		double acc = 0.0;
		float best = -INFINITY;

		for (size_t i = 0; i < hw; i++) {
			acc += xv[(size_t)p * hw + i];
			best = fmaxf(best, xv[(size_t)p * hw + i]);
		}
		y[p] = is_max ? best : (float)(acc / (double)hw);
	}
	return 0;
}

/* ---- matrix products ---- */

static void matmul(const float *a, const float *b, float *y, size_t m, size_t k, size_t n,
		   bool ta, bool tb, float alpha)
{
	for (size_t i = 0; i < m; i++)
		for (size_t j = 0; j < n; j++) {
			double acc = 0.0;

			for (size_t p = 0; p < k; p++)
				acc += (double)a[ta ? p * m + i : i * k + p] *
				       b[tb ? j * k + p : p * n + j];
			y[i * n + j] = (float)(alpha * acc);
		}
}

static int gemm(struct run *c)
{
	const struct onnx_tensor *a = tin(c, 0), *o = tout(c), *ct = tin(c, 2);
	bool ta = onnx_attr_int(c->n, "transA", 0), tb = onnx_attr_int(c->n, "transB", 0);
	bool is_gemm = !strcmp(c->n->op_type, "Gemm");
	size_t m = (size_t)o->dims[0], n = (size_t)o->dims[1];
	size_t k = (size_t)a->dims[ta ? 0 : 1];
	float beta = onnx_attr_float(c->n, "beta", 1.0f);
	float *y = vout(c);

	matmul(vin(c, 0), vin(c, 1), y, m, k, n, is_gemm && ta, is_gemm && tb,
	       is_gemm ? onnx_attr_float(c->n, "alpha", 1.0f) : 1.0f);
	if (is_gemm && ct) {	/* C broadcasts to (M, N) */
		const float *cv = vin(c, 2);
		size_t cm = ct->rank == 2 ? (size_t)ct->dims[0] : 1;
		size_t cn = ct->rank >= 1 ? (size_t)ct->dims[ct->rank - 1] : 1;

		for (size_t i = 0; i < m; i++)
			for (size_t j = 0; j < n; j++)
				y[i * n + j] += beta * cv[(cm == 1 ? 0 : i) * cn + (cn == 1 ? 0 : j)];
	}
	return 0;
}

/* ---- transformer pieces ---- */

/* LayerNormalization (opset 17) over the axes from `axis` on, Scale and B
 * holding all their elements (the importer's form; others are refused). */
static int layernorm(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0), *sc = tin(c, 1), *b = tin(c, 2);
	int64_t axis = onnx_attr_int(c->n, "axis", -1);
	double eps = onnx_attr_float(c->n, "epsilon", 1e-5f);
	size_t outer, len;
	const float *xv = vin(c, 0), *g = vin(c, 1), *bv = vin(c, 2);
	float *y = vout(c);

	if (!x->rank)
		return fail(c, "a scalar input: LayerNormalization normalises an axis");
	for (size_t k = 1; k < c->n->n_out; k++)
		if (c->n->out[k] >= 0 && c->g->tensors[c->n->out[k]].is_output)
			return fail(c, "output 1 (Mean / InvStdDev) is read: only Y is supported");
	if (axis < 0)
		axis += x->rank;
	if (axis < 0 || axis >= x->rank)
		return fail(c, "attribute axis is out of range");
	/* the block normalised: the axes from `axis` on, flattened */
	outer = 1;
	len = 1;
	for (int k = 0; k < x->rank; k++)
		*(k < axis ? &outer : &len) *= (size_t)x->dims[k];
	if (!sc || onnx_tensor_count(sc) != len || (b && onnx_tensor_count(b) != len))
		return fail(c, "Scale and B must hold the normalised axes' elements");
	for (size_t o = 0; o < outer; o++) {
		const float *xp = xv + o * len;
		double mean = 0.0, var = 0.0, inv;

		for (size_t k = 0; k < len; k++)
			mean += xp[k];
		mean /= (double)len;
		for (size_t k = 0; k < len; k++)
			var += (xp[k] - mean) * (xp[k] - mean);
		inv = 1.0 / sqrt(var / (double)len + eps);
		for (size_t k = 0; k < len; k++)
			y[o * len + k] = (float)((xp[k] - mean) * inv * g[k] + (bv ? bv[k] : 0.0f));
	}
	return 0;
}

/* ONNX's Reduce* operators (onnx_reduce_fn) over any set of axes,
 * keepdims, in double: each input element into the running value of the
 * output element it reduces to. */
static int reduce(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0);
	bool red[ONNX_GRAPH_MAX_RANK];
	int fn = onnx_reduce_fn(c->n);
	size_t total = onnx_tensor_count(x), outs = onnx_tensor_count(tout(c)), n;
	const float *xv = vin(c, 0);
	float *y = vout(c);
	double *acc;

	if (onnx_reduce_set(c->g, c->n, x->rank, red, c->err, c->err_len))
		return -ENOTSUP;
	acc = malloc((outs ? outs : 1) * sizeof(*acc));
	if (!acc)
		return -ENOMEM;
	for (size_t o = 0; o < outs; o++)
		acc[o] = fn == RKB_CPU_REDUCE_MAX ? -INFINITY : fn == RKB_CPU_REDUCE_MIN ? INFINITY :
			 fn == RKB_CPU_REDUCE_PROD ? 1.0 : 0.0;
	for (size_t i = 0; i < total; i++) {
		size_t rest = i, o = 0, ostride = 1;
		double v = xv[i], *a;

		/* the output index: i's coordinates with the reduced ones 0 */
		for (int k = x->rank - 1; k >= 0; k--) {
			size_t d = (size_t)x->dims[k];

			if (!red[k]) {
				o += rest % d * ostride;
				ostride *= d;
			}
			rest /= d;
		}
		a = &acc[o];
		switch (fn) {
		case RKB_CPU_REDUCE_MAX:
			*a = v > *a ? v : *a;
			break;
		case RKB_CPU_REDUCE_MIN:
			*a = v < *a ? v : *a;
			break;
		case RKB_CPU_REDUCE_PROD:
			*a *= v;
			break;
		case RKB_CPU_REDUCE_SUM_SQUARE:
		case RKB_CPU_REDUCE_L2:
			*a += v * v;
			break;
		case RKB_CPU_REDUCE_L1:
			*a += fabs(v);
			break;
		case RKB_CPU_REDUCE_LOG_SUM_EXP:
			*a += exp(v);
			break;
		default:
			*a += v;
		}
	}
	n = outs ? total / outs : 0;
	for (size_t o = 0; o < outs; o++)
		y[o] = (float)(fn == RKB_CPU_REDUCE_MEAN ? acc[o] / (double)n :
			       fn == RKB_CPU_REDUCE_L2 ? sqrt(acc[o]) :
			       fn == RKB_CPU_REDUCE_LOG_SUM || fn == RKB_CPU_REDUCE_LOG_SUM_EXP ?
			       log(acc[o]) : acc[o]);
	free(acc);
	return 0;
}

/* MatMul of batched matrices: [.., M, K] x [.., K, N] (B's leading axes
 * A's or 1), or x [K, N] shared; the rest as Gemm. */
static int matmul_any(struct run *c)
{
	const struct onnx_tensor *a = tin(c, 0), *b = tin(c, 1);
	size_t m, k, n, batches = 1;

	if (a->rank <= 2)
		return gemm(c);
	m = (size_t)a->dims[a->rank - 2];
	k = (size_t)a->dims[a->rank - 1];
	n = (size_t)b->dims[b->rank - 1];
	for (int i = 0; i < a->rank - 2; i++)
		batches *= (size_t)a->dims[i];
	for (size_t bi = 0; bi < batches; bi++) {
		size_t bb = 0, stride = 1, rest = bi;

		/* B's batch index: A's, with B's extent-1 axes held at 0 */
		for (int i = a->rank - 3; b->rank > 2 && i >= 0; i--) {
			size_t ai = rest % (size_t)a->dims[i];

			rest /= (size_t)a->dims[i];
			bb += (b->dims[i] == 1 ? 0 : ai) * stride;
			stride *= (size_t)b->dims[i];
		}
		matmul(vin(c, 0) + bi * m * k, vin(c, 1) + bb * k * n, vout(c) + bi * m * n, m, k,
		       n, false, false, 1.0f);
	}
	return 0;
}

/* Gather along axis at constant integer indices (shape inference checked
 * them). */
static int gather(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0), *ix = tin(c, 1);
	int64_t axis = onnx_attr_int(c->n, "axis", 0);
	size_t outer = 1, inner = 1;
	float *y = vout(c);

	if (axis < 0)
		axis += x->rank;
	for (int i = 0; i < x->rank; i++) {
		if (i < axis)
			outer *= (size_t)x->dims[i];
		else if (i > axis)
			inner *= (size_t)x->dims[i];
	}
	for (size_t p = 0; p < outer; p++)
		for (size_t j = 0; j < ix->count; j++) {
			int64_t k = ix->dtype == ONNX_DT_INT64 ? ((const int64_t *)ix->data)[j] :
				    ((const int32_t *)ix->data)[j];

			k += k < 0 ? x->dims[axis] : 0;
			memcpy(y + (p * ix->count + j) * inner,
			       vin(c, 0) + (p * (size_t)x->dims[axis] + (size_t)k) * inner,
			       inner * sizeof(float));
		}
	return 0;
}

/* Tile, Expand and GatherElements: each output element a copy of the
 * input element at the coordinates the operator defines (Tile: modulo
 * the input's extents; Expand: numpy's broadcast, right-aligned;
 * GatherElements: the index's value along `axis`). */
static int moves(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0), *y = tout(c), *ix = tin(c, 1);
	bool tile = !strcmp(c->n->op_type, "Tile"), expand = !strcmp(c->n->op_type, "Expand");
	int64_t axis = onnx_attr_int(c->n, "axis", 0), off = y->rank - x->rank;
	size_t count = onnx_tensor_count(y);
	const float *xv = vin(c, 0);
	float *yv = vout(c);

	axis += axis < 0 ? x->rank : 0;
	if (!tile && !expand && (axis < 0 || axis >= x->rank || !ix || !ix->data))
		return fail(c, "GatherElements: attribute axis out of range or indices not constant");
	for (size_t e = 0; e < count; e++) {
		int64_t out[ONNX_GRAPH_MAX_RANK], in[ONNX_GRAPH_MAX_RANK];
		size_t rest = e, at = 0;

		for (int i = y->rank - 1; i >= 0; i--) {
			out[i] = (int64_t)(rest % (size_t)y->dims[i]);
			rest /= (size_t)y->dims[i];
		}
		for (int i = 0; i < x->rank; i++) {
			if (tile)
				in[i] = out[i] % x->dims[i];
			else if (expand)
				in[i] = x->dims[i] == 1 ? 0 : out[i + off];
			else
				in[i] = out[i];
		}
		if (!tile && !expand) {
			int64_t k = ix->dtype == ONNX_DT_INT64 ? ((const int64_t *)ix->data)[e] :
				    ((const int32_t *)ix->data)[e];

			k += k < 0 ? x->dims[axis] : 0;
			if (k < 0 || k >= x->dims[axis])
				return fail(c, "GatherElements: an index outside the axis");
			in[axis] = k;
		}
		for (int i = 0; i < x->rank; i++)
			at = at * (size_t)x->dims[i] + (size_t)in[i];
		yv[e] = xv[at];
	}
	return 0;
}

/* ---- layout ---- */

static int copy_through(struct run *c)	/* Reshape, Flatten: same elements */
{
	memcpy(vout(c), vin(c, 0), onnx_tensor_count(tout(c)) * sizeof(float));
	return 0;
}

static int concat(struct run *c)
{
	const struct onnx_tensor *o = tout(c);
	int64_t axis = onnx_attr_int(c->n, "axis", 0);
	size_t outer = 1, inner = 1, off = 0;
	float *y = vout(c);

	if (axis < 0)
		axis += o->rank;
	for (int i = 0; i < axis; i++)
		outer *= (size_t)o->dims[i];
	for (int i = (int)axis + 1; i < o->rank; i++)
		inner *= (size_t)o->dims[i];
	for (size_t k = 0; k < c->n->n_in; k++) {
		size_t chunk = (size_t)tin(c, k)->dims[axis] * inner;

		for (size_t p = 0; p < outer; p++)
			memcpy(y + p * (size_t)o->dims[axis] * inner + off, vin(c, k) + p * chunk,
			       chunk * sizeof(float));
		off += chunk;
	}
	return 0;
}

static int transpose(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0), *o = tout(c);
	const struct onnx_attr *p = onnx_node_attr(c->n, "perm");
	size_t xs[ONNX_GRAPH_MAX_RANK] = { 0 }, st[ONNX_GRAPH_MAX_RANK] = { 0 };
	size_t idx[ONNX_GRAPH_MAX_RANK] = { 0 };
	size_t n = onnx_tensor_count(o), s = 1;
	const float *xv = vin(c, 0);
	float *y = vout(c);

	for (int i = x->rank - 1; i >= 0; i--) {
		xs[i] = s;
		s *= (size_t)x->dims[i];
	}
	for (int i = 0; i < o->rank; i++)
		st[i] = xs[p ? p->ints[i] : o->rank - 1 - i];
	for (size_t i = 0; i < n; i++) {
		size_t off = 0;

		for (int k = 0; k < o->rank; k++)
			off += idx[k] * st[k];
		y[i] = xv[off];
		for (int k = o->rank - 1; k >= 0; k--) {
			if (++idx[k] < (size_t)o->dims[k])
				break;
			idx[k] = 0;
		}
	}
	return 0;
}

static int pad(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0), *o = tout(c);
	const struct onnx_attr *pa = onnx_node_attr(c->n, "pads");
	const int64_t *pads = c->g->opset < 11 && pa ? pa->ints : tin(c, 1)->data;
	float value = c->g->opset < 11 ? onnx_attr_float(c->n, "value", 0.0f) : scalar_in(c, 2, 0);
	int mode = onnx_pad_mode(c->n);
	size_t n = onnx_tensor_count(o), idx[ONNX_GRAPH_MAX_RANK] = { 0 };
	const float *xv = vin(c, 0);
	float *y = vout(c);

	for (size_t i = 0; i < n; i++) {
		size_t off = 0;
		bool inside = true;

		for (int k = 0; k < o->rank; k++) {
			int64_t src = onnx_pad_source(mode, (int64_t)idx[k], pads[k], x->dims[k]);

			if (src < 0)
				inside = false;
			else
				off = off * (size_t)x->dims[k] + (size_t)src;
			if (!inside)
				break;
		}
		y[i] = inside ? xv[off] : value;
		for (int k = o->rank - 1; k >= 0; k--) {
			if (++idx[k] < (size_t)o->dims[k])
				break;
			idx[k] = 0;
		}
	}
	return 0;
}

static int constant_of_shape(struct run *c)
{
	const struct onnx_attr *v = onnx_node_attr(c->n, "value");
	size_t n = onnx_tensor_count(tout(c));
	float fill = 0.0f;
	float *y = vout(c);

	if (v && (v->type != ONNX_ATTR_TENSOR || v->t->count != 1 || v->t->dtype != ONNX_DT_FLOAT))
		return fail(c, "value must be one float32");
	if (v)
		memcpy(&fill, v->t->data, sizeof(fill));
	for (size_t i = 0; i < n; i++)
		y[i] = fill;
	return 0;
}

/* ---- normalisation ---- */

/* Softmax, and LogSoftmax: log of the same sum. */
static int softmax(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0);
	int64_t axis = onnx_attr_int(c->n, "axis", c->g->opset < 13 ? 1 : -1);
	size_t outer = 1, len = 1, inner = 1;
	const float *xv = vin(c, 0);
	float *y = vout(c);
	bool logs = !strcmp(c->n->op_type, "LogSoftmax");

	if (axis < 0)
		axis += x->rank;
	/* Before opset 13 the input is coerced to 2-D at axis; from 13 on the
	 * softmax runs along the one axis. */
	for (int i = 0; i < x->rank; i++) {
		size_t d = (size_t)x->dims[i];

		if (i < axis)
			outer *= d;
		else if (i == axis || c->g->opset < 13)
			len *= d;
		else
			inner *= d;
	}
	for (size_t o = 0; o < outer; o++)
		for (size_t i = 0; i < inner; i++) {
			const float *xp = xv + o * len * inner + i;
			float *yp = y + o * len * inner + i;
			float mx = -INFINITY;
			double sum = 0.0;

			for (size_t k = 0; k < len; k++)
				mx = fmaxf(mx, xp[k * inner]);
			for (size_t k = 0; k < len; k++)
				sum += exp((double)xp[k * inner] - mx);
			for (size_t k = 0; k < len; k++)
				yp[k * inner] = (float)(logs ? (double)xp[k * inner] - mx - log(sum) :
							exp((double)xp[k * inner] - mx) / sum);
		}
	return 0;
}

static int batchnorm(struct run *c)
{
	const struct onnx_tensor *x = tin(c, 0);
	const float *xv = vin(c, 0), *sc = vin(c, 1), *bi = vin(c, 2), *mean = vin(c, 3),
		    *var = vin(c, 4);
	float eps = onnx_attr_float(c->n, "epsilon", 1e-5f);
	size_t ch = (size_t)x->dims[1], inner = onnx_tensor_count(x) / (size_t)x->dims[0] / ch;
	float *y = vout(c);

	if (c->n->n_out > 1)
		return fail(c, "training-mode outputs are not supported");
	for (int64_t b = 0; b < x->dims[0]; b++)
		for (size_t k = 0; k < ch; k++) {
			float s = sc[k] / sqrtf(var[k] + eps);

			for (size_t i = 0; i < inner; i++) {
				size_t at = ((size_t)b * ch + k) * inner + i;

				y[at] = (xv[at] - mean[k]) * s + bi[k];
			}
		}
	return 0;
}

static const struct {
	const char *op;
	int (*run)(struct run *c);
} ops[] = {
	{ "Relu", unary }, { "Sigmoid", unary }, { "Tanh", unary }, { "LeakyRelu", unary },
	{ "HardSigmoid", unary }, { "Clip", unary }, { "Identity", unary }, { "Dropout", unary },
	{ "Add", binary }, { "Sub", binary }, { "Mul", binary }, { "Div", binary },
	{ "Pow", binary },
	{ "Conv", conv }, { "MaxPool", pool }, { "AveragePool", pool },
	{ "GlobalAveragePool", global_pool }, { "GlobalMaxPool", global_pool },
	{ "Gemm", gemm }, { "MatMul", matmul_any }, { "Reshape", copy_through },
	{ "Flatten", copy_through }, { "Concat", concat }, { "Transpose", transpose },
	{ "Pad", pad }, { "Softmax", softmax }, { "LogSoftmax", softmax },
	{ "BatchNormalization", batchnorm },
	{ "ConstantOfShape", constant_of_shape },
	{ "HardSwish", activation }, { "Swish", activation }, { "Elu", activation },
	{ "Selu", activation }, { "Softplus", activation }, { "Gelu", activation },
	{ "Exp", activation }, { "Abs", activation }, { "Softsign", activation },
	{ "Neg", activation }, { "Reciprocal", activation }, { "Sqrt", activation },
	{ "Log", activation },
	{ "Max", binary_select }, { "Min", binary_select }, { "PRelu", binary_select },
	{ "LayerNormalization", layernorm }, { "ReduceMean", reduce }, { "ReduceSum", reduce },
	{ "ReduceMax", reduce }, { "ReduceMin", reduce }, { "ReduceProd", reduce },
	{ "ReduceSumSquare", reduce }, { "ReduceL1", reduce }, { "ReduceL2", reduce },
	{ "ReduceLogSum", reduce }, { "ReduceLogSumExp", reduce }, { "Gather", gather },
	{ "Tile", moves }, { "Expand", moves }, { "GatherElements", moves },
	{ "Squeeze", copy_through },
	{ "Unsqueeze", copy_through },
};

/* Which inputs of an op are shape/size operands rather than float data. */
static bool is_int_operand(const char *op, size_t i)
{
	return (!strcmp(op, "Reshape") && i == 1) || (!strcmp(op, "Pad") && i == 1) ||
	       (!strcmp(op, "ConstantOfShape") && i == 0) || (!strncmp(op, "Reduce", 6) && i == 1) ||
	       ((!strcmp(op, "Gather") || !strcmp(op, "GatherElements") || !strcmp(op, "Tile") ||
		 !strcmp(op, "Expand")) && i == 1) ||
	       ((!strcmp(op, "Squeeze") || !strcmp(op, "Unsqueeze")) && i == 1);
}

static int run_node(struct run *c)
{
	const char *op = c->n->op_type;

	if (c->n->n_out < 1 || c->n->out[0] < 0 || tout(c)->dtype != ONNX_DT_FLOAT)
		return fail(c, "the float32 reference computes only float32 outputs");
	if (!strcmp(op, "Dropout") && c->n->n_out > 1)
		return fail(c, "the mask output is not supported");
	if (onnx_spatial_op(op) || onnx_conv1d(c->g, c->n))
		return onnx_spatial_ref(c->g, c->n, c->r->val, c->err, c->err_len);
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i].op)) {
			size_t n = onnx_tensor_count(tout(c));

			for (size_t k = 0; k < c->n->n_in; k++)
				if (c->n->in[k] >= 0 && !is_int_operand(op, k) && !vin(c, k))
					return fail(c, "an input is not float32");
			c->r->val[c->n->out[0]] = calloc(n ? n : 1, sizeof(float));
			if (!c->r->val[c->n->out[0]])
				return -ENOMEM;
			return ops[i].run(c);
		}
	return fail(c, "not in the float32 reference's op set");
}

int onnx_ref_run(const struct onnx_graph *g, const float *const *inputs, struct onnx_ref *r,
		 char *err, size_t err_len)
{
	struct run c = { .g = g, .r = r, .err = err, .err_len = err_len };
	int rc = 0;

	r->n = g->n_tensors;
	r->val = calloc(g->n_tensors + 1, sizeof(*r->val));
	if (!r->val)
		return -ENOMEM;
	for (size_t i = 0; i < g->n_tensors; i++) {
		const struct onnx_tensor *t = &g->tensors[i];

		if (t->role == ONNX_TENSOR_CONSTANT && t->dtype == ONNX_DT_FLOAT) {
			r->val[i] = malloc(t->count ? t->count * sizeof(float) : 1);
			if (!r->val[i]) {
				rc = -ENOMEM;
				break;
			}
			memcpy(r->val[i], t->data, t->count * sizeof(float));
		}
	}
	for (size_t i = 0; !rc && i < g->n_inputs; i++) {
		const struct onnx_tensor *t = &g->tensors[g->inputs[i]];
		size_t n = onnx_tensor_count(t);

		if (t->dtype != ONNX_DT_FLOAT) {
			snprintf(err, err_len, "input '%s' is %s; the reference takes float32",
				 t->name, onnx_dtype_name(t->dtype));
			rc = -ENOTSUP;
			break;
		}
		r->val[g->inputs[i]] = malloc(n ? n * sizeof(float) : 1);
		if (!r->val[g->inputs[i]]) {
			rc = -ENOMEM;
			break;
		}
		memcpy(r->val[g->inputs[i]], inputs[i], n * sizeof(float));
	}
	for (size_t i = 0; !rc && i < g->n_nodes; i++) {
		c.n = &g->nodes[i];
		rc = run_node(&c);
	}
	if (rc)
		onnx_ref_free(r);
	return rc;
}

void onnx_ref_free(struct onnx_ref *r)
{
	for (size_t i = 0; r->val && i < r->n; i++)
		free(r->val[i]);
	free(r->val);
	r->val = NULL;
	r->n = 0;
}
