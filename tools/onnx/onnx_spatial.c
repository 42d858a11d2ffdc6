// SPDX-License-Identifier: MIT
/* Resize, DepthToSpace, SpaceToDepth, Split, Slice, ConvTranspose: geometry,
 * shapes and the float32 reference (onnx_spatial.h). */
#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "tools/onnx/onnx_shape.h"
#include "tools/onnx/onnx_spatial.h"

/* Dimensions above this are refused (as onnx_shape.c does). */
#define SPATIAL_MAX_DIM	(1 << 24)

/* coordinate_transformation_mode values taken. */
enum { COORD_HALF_PIXEL, COORD_PYTORCH_HALF_PIXEL, COORD_ALIGN_CORNERS, COORD_ASYMMETRIC,
       COORD_TF_HALF_PIXEL_FOR_NN };
/* nearest_mode values taken. */
enum { NEAREST_ROUND_PREFER_FLOOR, NEAREST_ROUND_PREFER_CEIL, NEAREST_FLOOR, NEAREST_CEIL };

static const char *const coord_names[] = {
	"half_pixel", "pytorch_half_pixel", "align_corners", "asymmetric", "tf_half_pixel_for_nn",
};
static const char *const nearest_names[] = {
	"round_prefer_floor", "round_prefer_ceil", "floor", "ceil",
};

static int fail(char *err, size_t err_len, const struct onnx_node *n, int code, const char *fmt,
		...) __attribute__((format(printf, 5, 6)));

static int fail(char *err, size_t err_len, const struct onnx_node *n, int code, const char *fmt,
		...)
{
	va_list ap;
	int k;

	if (!err_len)
		return code;
	k = snprintf(err, err_len, "node '%s' (%s): ", n->name, n->op_type);
	if (k >= 0 && (size_t)k < err_len) {
		va_start(ap, fmt);
		vsnprintf(err + k, err_len - (size_t)k, fmt, ap);
		va_end(ap);
	}
	return code;
}

bool onnx_spatial_op(const char *op)
{
	static const char *const ops[] = {
		"Resize", "DepthToSpace", "SpaceToDepth", "Split", "Slice", "ConvTranspose",
	};

	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++)
		if (!strcmp(op, ops[i]))
			return true;
	return false;
}

static const struct onnx_tensor *tin(const struct onnx_graph *g, const struct onnx_node *n,
				     size_t i)
{
	return i < n->n_in && n->in[i] >= 0 ? &g->tensors[n->in[i]] : NULL;
}

/* Element i of an int32 / int64 constant. */
static int64_t int_at(const struct onnx_tensor *t, size_t i)
{
	return t->dtype == ONNX_DT_INT32 ? ((const int32_t *)t->data)[i]
					 : ((const int64_t *)t->data)[i];
}

static bool int_const(const struct onnx_tensor *t)
{
	return t && t->role == ONNX_TENSOR_CONSTANT &&
	       (t->dtype == ONNX_DT_INT32 || t->dtype == ONNX_DT_INT64);
}

/* An optional input given: present and not empty. */
static bool given(const struct onnx_tensor *t)
{
	return t && !(t->role == ONNX_TENSOR_CONSTANT && t->count == 0);
}

static int name_index(const char *s, const char *const *names, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(s, names[i]))
			return (int)i;
	return -1;
}

/* ---- Resize ---- */

int onnx_resize_get(const struct onnx_graph *g, const struct onnx_node *n, int in_h, int in_w,
		    struct onnx_resize *r, char *err, size_t err_len)
{
	const char *mode = onnx_attr_string(n, "mode", "nearest");
	const char *coord = onnx_attr_string(n, "coordinate_transformation_mode", "half_pixel");
	const char *nearest = onnx_attr_string(n, "nearest_mode", "round_prefer_floor");
	const struct onnx_tensor *x = tin(g, n, 0), *sc, *sz;
	bool opset10 = g->opset < 11;

	memset(r, 0, sizeof(*r));
	r->in[0] = in_h;
	r->in[1] = in_w;
	if (!strcmp(mode, "nearest"))
		r->mode = ONNX_RESIZE_NEAREST;
	else if (!strcmp(mode, "linear") || !strcmp(mode, "bilinear"))
		r->mode = ONNX_RESIZE_LINEAR;
	else if (!strcmp(mode, "cubic") && !opset10)
		r->mode = ONNX_RESIZE_CUBIC;
	else
		return fail(err, err_len, n, -ENOTSUP, "mode '%s' (supported: nearest, linear; "
			    "cubic from opset 11)", mode);
	r->cubic_a = onnx_attr_float(n, "cubic_coeff_a", -0.75f);
	r->exclude_outside = onnx_attr_int(n, "exclude_outside", 0) != 0;
	if (!isfinite(r->cubic_a))
		return fail(err, err_len, n, -EINVAL, "cubic_coeff_a %g is not finite",
			    (double)r->cubic_a);
	if (onnx_node_attr(n, "axes"))
		return fail(err, err_len, n, -ENOTSUP, "the axes attribute (only all axes, with "
			    "N and C of scale 1)");
	if (onnx_attr_int(n, "antialias", 0))
		return fail(err, err_len, n, -ENOTSUP, "antialias 1 (supported: 0)");
	if (strcmp(onnx_attr_string(n, "keep_aspect_ratio_policy", "stretch"), "stretch"))
		return fail(err, err_len, n, -ENOTSUP, "keep_aspect_ratio_policy '%s' (supported: "
			    "stretch)", onnx_attr_string(n, "keep_aspect_ratio_policy", ""));
	/* opset 10: x_in = x_out / scale, the nearest pixel below (onnxruntime's
	 * opset-10 rule for upsampling) */
	r->coord = opset10 ? COORD_ASYMMETRIC : name_index(coord, coord_names, 5);
	r->nearest = opset10 ? NEAREST_FLOOR : name_index(nearest, nearest_names, 4);
	if (r->coord < 0 || (r->coord == COORD_TF_HALF_PIXEL_FOR_NN &&
			     r->mode != ONNX_RESIZE_NEAREST))
		return fail(err, err_len, n, -ENOTSUP, "coordinate_transformation_mode '%s' "
			    "(supported: half_pixel, pytorch_half_pixel, align_corners, "
			    "asymmetric; tf_half_pixel_for_nn with nearest)", coord);
	if (r->nearest < 0)
		return fail(err, err_len, n, -ENOTSUP, "nearest_mode '%s' (supported: "
			    "round_prefer_floor, round_prefer_ceil, floor, ceil)", nearest);
	if (!x || x->rank != 4)
		return fail(err, err_len, n, -ENOTSUP, "input X is not 4-D [N,C,H,W]");
	sc = tin(g, n, opset10 ? 1 : 2);
	sz = opset10 ? NULL : tin(g, n, 3);
	if (given(sz)) {
		if (given(sc))
			return fail(err, err_len, n, -EINVAL, "both scales and sizes are given");
		if (!int_const(sz) || sz->count != 4)
			return fail(err, err_len, n, -ENOTSUP, "sizes is not a constant of 4 "
				    "integers (computed sizes are not supported)");
		if (int_at(sz, 0) != x->dims[0] || int_at(sz, 1) != x->dims[1])
			return fail(err, err_len, n, -ENOTSUP, "sizes change N or C (only H and "
				    "W are resized)");
		for (int a = 0; a < 2; a++) {
			int64_t o = int_at(sz, 2 + (size_t)a);

			if (o < 1 || o > SPATIAL_MAX_DIM)
				return fail(err, err_len, n, -EINVAL, "sizes[%d] is %lld", 2 + a,
					    (long long)o);
			r->out[a] = (int)o;
			r->scale[a] = (float)o / (float)r->in[a];
		}
	} else {
		if (!given(sc) || sc->role != ONNX_TENSOR_CONSTANT || sc->dtype != ONNX_DT_FLOAT ||
		    sc->count != 4)
			return fail(err, err_len, n, -ENOTSUP, "scales is not a constant of 4 "
				    "floats (and no sizes are given)");
		if (((const float *)sc->data)[0] != 1.0f || ((const float *)sc->data)[1] != 1.0f)
			return fail(err, err_len, n, -ENOTSUP, "scales for N and C are not 1 (only "
				    "H and W are resized)");
		for (int a = 0; a < 2; a++) {
			float s = ((const float *)sc->data)[2 + a];
			double o = floor((double)s * r->in[a]);

			if (!(s > 0.0f) || !isfinite(s) || o < 1 || o > SPATIAL_MAX_DIM)
				return fail(err, err_len, n, -EINVAL, "scales[%d] %g gives %g rows "
					    "or columns", 2 + a, (double)s, o);
			/* onnxruntime: the output size is the float product, truncated */
			r->out[a] = (int)(s * (float)r->in[a]);
			if (r->out[a] < 1)
				r->out[a] = 1;
			r->scale[a] = s;
		}
	}
	if (opset10 && (r->scale[0] < 1.0f || r->scale[1] < 1.0f))
		return fail(err, err_len, n, -ENOTSUP, "downsampling at opset 10 (its nearest "
			    "rounding differs; convert the model to opset 11 or later)");
	return 0;
}

/* The input coordinate of output index o along axis a, as onnxruntime
 * computes it (float32). */
static float resize_coord(const struct onnx_resize *r, int a, int o)
{
	float s = r->scale[a];

	switch (r->coord) {
	case COORD_HALF_PIXEL:
		return ((float)o + 0.5f) / s - 0.5f;
	case COORD_PYTORCH_HALF_PIXEL:
		return r->out[a] > 1 ? ((float)o + 0.5f) / s - 0.5f : 0.0f;
	case COORD_ALIGN_CORNERS:
		return r->out[a] == 1 ? 0.0f : (float)o * (float)(r->in[a] - 1) /
					       (float)(r->out[a] - 1);
	case COORD_TF_HALF_PIXEL_FOR_NN:
		return ((float)o + 0.5f) / s;
	default:
		return (float)o / s;
	}
}

int onnx_resize_nearest(const struct onnx_resize *r, int a, int o)
{
	float x = resize_coord(r, a, o);
	float f = floorf(x);
	int i;

	switch (r->nearest) {
	case NEAREST_ROUND_PREFER_FLOOR:
		i = (int)(x == f + 0.5f ? f : roundf(x));
		break;
	case NEAREST_ROUND_PREFER_CEIL:
		i = (int)roundf(x);
		break;
	case NEAREST_FLOOR:
		i = (int)f;
		break;
	default:
		i = (int)ceilf(x);
		break;
	}
	return i < 0 ? 0 : i >= r->in[a] ? r->in[a] - 1 : i;
}

void onnx_resize_linear(const struct onnx_resize *r, int a, int o, int *i0, int *i1, float *f1)
{
	float x = resize_coord(r, a, o), hi = (float)(r->in[a] - 1);

	/* coordinates outside the input take its edge */
	x = x < 0.0f ? 0.0f : x > hi ? hi : x;
	*i0 = (int)x;
	*i1 = *i0 + 1 < r->in[a] ? *i0 + 1 : *i0;
	*f1 = *i1 == *i0 ? 0.0f : x - (float)*i0;
}

void onnx_resize_cubic(const struct onnx_resize *r, int a, int o,
		       int idx[ONNX_RESIZE_CUBIC_TAPS], float w[ONNX_RESIZE_CUBIC_TAPS])
{
	double x = resize_coord(r, a, o), x0 = floor(x), t = x - x0, A = r->cubic_a, sum = 0.0;
	/* the taps' distances from x: 1 + t, t, 1 − t, 2 − t */
	double d[ONNX_RESIZE_CUBIC_TAPS] = { 1.0 + t, t, 1.0 - t, 2.0 - t };

	for (int k = 0; k < ONNX_RESIZE_CUBIC_TAPS; k++) {
		double u = d[k], c = u <= 1.0 ? ((A + 2.0) * u - (A + 3.0)) * u * u + 1.0 :
				     ((A * u - 5.0 * A) * u + 8.0 * A) * u - 4.0 * A;
		int i = (int)x0 - 1 + k;

		if (r->exclude_outside && (i < 0 || i >= r->in[a]))
			c = 0.0;
		idx[k] = i < 0 ? 0 : i >= r->in[a] ? r->in[a] - 1 : i;
		w[k] = (float)c;
		sum += c;
	}
	/* without the outside taps the rest are scaled back to a sum of 1 */
	if (r->exclude_outside && sum != 0.0)
		for (int k = 0; k < ONNX_RESIZE_CUBIC_TAPS; k++)
			w[k] = (float)(w[k] / sum);
}

/* ---- Slice, Split ---- */

int onnx_slice_get(const struct onnx_graph *g, const struct onnx_node *n, struct onnx_slice *s,
		   char *err, size_t err_len)
{
	const struct onnx_tensor *x = tin(g, n, 0);
	const struct onnx_tensor *st = NULL, *en = NULL, *ax = NULL, *sp = NULL;
	const struct onnx_attr *ast = NULL, *aen = NULL, *aax = NULL;
	size_t k;

	for (int i = 0; i < x->rank; i++) {
		s->start[i] = 0;
		s->step[i] = 1;
		s->len[i] = x->dims[i];
	}
	if (g->opset < 10) {
		ast = onnx_node_attr(n, "starts");
		aen = onnx_node_attr(n, "ends");
		aax = onnx_node_attr(n, "axes");
		if (!ast || !aen || ast->type != ONNX_ATTR_INTS || aen->type != ONNX_ATTR_INTS ||
		    ast->n != aen->n || (aax && (aax->type != ONNX_ATTR_INTS || aax->n != ast->n)))
			return fail(err, err_len, n, -EINVAL, "starts, ends (and axes) are not lists "
				    "of one length");
		k = ast->n;
	} else {
		st = tin(g, n, 1);
		en = tin(g, n, 2);
		ax = given(tin(g, n, 3)) ? tin(g, n, 3) : NULL;
		sp = given(tin(g, n, 4)) ? tin(g, n, 4) : NULL;
		if (!int_const(st) || !int_const(en) || (ax && !int_const(ax)) ||
		    (sp && !int_const(sp)))
			return fail(err, err_len, n, -ENOTSUP, "starts, ends, axes and steps must "
				    "be integer constants");
		k = st->count;
		if (en->count != k || (ax && ax->count != k) || (sp && sp->count != k))
			return fail(err, err_len, n, -EINVAL, "starts, ends, axes and steps differ "
				    "in length");
	}
	if (k > (size_t)x->rank)
		return fail(err, err_len, n, -EINVAL, "%zu starts for a rank-%d input", k, x->rank);
	for (size_t i = 0; i < k; i++) {
		int64_t a = aax ? aax->ints[i] : ax ? int_at(ax, i) : (int64_t)i;
		int64_t b = ast ? ast->ints[i] : int_at(st, i);
		int64_t e = aen ? aen->ints[i] : int_at(en, i);
		int64_t step = sp ? int_at(sp, i) : 1, d, len;

		a = a < 0 ? a + x->rank : a;
		if (a < 0 || a >= x->rank)
			return fail(err, err_len, n, -EINVAL, "axis %lld of a rank-%d input",
				    (long long)(aax ? aax->ints[i] : ax ? int_at(ax, i) : (int64_t)i),
				    x->rank);
		if (!step)
			return fail(err, err_len, n, -EINVAL, "step 0 on axis %lld", (long long)a);
		d = x->dims[a];
		/* clamp first: starts and ends may be INT64_MIN / INT64_MAX */
		b = b < -d ? -d - 1 : b > d ? d : b;
		e = e < -d ? -d - 1 : e > d ? d : e;
		b = b < 0 ? b + d : b;
		e = e < 0 ? e + d : e;
		if (step > 0) {
			b = b < 0 ? 0 : b;
			e = e < 0 ? 0 : e;
			len = e > b ? (e - b + step - 1) / step : 0;
		} else {
			b = b < 0 ? -1 : b > d - 1 ? d - 1 : b;
			e = e < -1 ? -1 : e > d - 1 ? d - 1 : e;
			len = b > e ? (b - e - step - 1) / -step : 0;
		}
		if (len < 1)
			return fail(err, err_len, n, -ENOTSUP, "axis %lld is sliced to nothing "
				    "(empty tensors are not supported)", (long long)a);
		s->start[a] = b;
		s->step[a] = step;
		s->len[a] = len;
	}
	return 0;
}

int onnx_split_get(const struct onnx_graph *g, const struct onnx_node *n, int *axis,
		   int64_t *len, char *err, size_t err_len)
{
	const struct onnx_tensor *x = tin(g, n, 0), *sp = g->opset >= 13 ? tin(g, n, 1) : NULL;
	const struct onnx_attr *sa = g->opset < 13 ? onnx_node_attr(n, "split") : NULL;
	int64_t a = onnx_attr_int(n, "axis", 0), d, sum = 0;
	int64_t parts = onnx_attr_int(n, "num_outputs", (int64_t)n->n_out);

	a = a < 0 ? a + x->rank : a;
	if (a < 0 || a >= x->rank)
		return fail(err, err_len, n, -EINVAL, "axis %lld of a rank-%d input",
			    (long long)onnx_attr_int(n, "axis", 0), x->rank);
	*axis = (int)a;
	d = x->dims[a];
	if (parts != (int64_t)n->n_out)
		return fail(err, err_len, n, -EINVAL, "num_outputs %lld for %zu outputs",
			    (long long)parts, n->n_out);
	if (sa && (sa->type != ONNX_ATTR_INTS || sa->n != n->n_out))
		return fail(err, err_len, n, -EINVAL, "split is not a list of %zu lengths",
			    n->n_out);
	if (given(sp) && (!int_const(sp) || sp->count != n->n_out))
		return fail(err, err_len, n, -ENOTSUP, "split is not a constant of %zu lengths",
			    n->n_out);
	for (size_t i = 0; i < n->n_out; i++) {
		if (sa)
			len[i] = sa->ints[i];
		else if (given(sp))
			len[i] = int_at(sp, i);
		else if (onnx_node_attr(n, "num_outputs"))
			/* opset 18: ceil(d / n) each, the last what remains */
			len[i] = i + 1 < n->n_out ? (d + parts - 1) / parts
						  : d - (parts - 1) * ((d + parts - 1) / parts);
		else if (d % (int64_t)n->n_out)
			return fail(err, err_len, n, -EINVAL, "%lld does not split into %zu equal "
				    "parts", (long long)d, n->n_out);
		else
			len[i] = d / (int64_t)n->n_out;
		if (len[i] < 1)
			return fail(err, err_len, n, -ENOTSUP, "output %zu has length %lld (empty "
				    "tensors are not supported)", i, (long long)len[i]);
		/* sum stays within d: no length can overflow it */
		if (len[i] > d - sum)
			return fail(err, err_len, n, -EINVAL, "the lengths up to output %zu add "
				    "up to more than the axis's %lld", i, (long long)d);
		sum += len[i];
	}
	if (sum != d)
		return fail(err, err_len, n, -EINVAL, "the lengths add up to %lld, the axis is "
			    "%lld", (long long)sum, (long long)d);
	return 0;
}

/* ---- ConvTranspose ---- */

/*
 * The pads of ConvTranspose n that give its output_shape os (the input
 * times the strides for auto_pad SAME_*), replacing its pads: ONNX's
 * total padding, stride · (in − 1) + output_padding + (kernel − 1) ·
 * dilation + 1 − out, split as ONNX defines it (SAME_UPPER the larger
 * half at the end, else at the start; libonnx-testdata's
 * test_convtranspose_autopad_same and onnxruntime agree); an output past
 * the unpadded one extends output_padding, which must stay below the
 * stride or the dilation.
 */
static int deconv_fit(const struct onnx_node *n, const struct onnx_attr *os, int in_h, int in_w,
		      struct onnx_deconv *d, bool upper, char *err, size_t err_len)
{
	int64_t in[2] = { in_h, in_w }, k[2] = { d->kh, d->kw }, s[2] = { d->sh, d->sw };
	int64_t dl[2] = { d->dh, d->dw };
	int *head[2] = { &d->pad_top, &d->pad_left }, *tail[2] = { &d->pad_bottom, &d->pad_right };
	int *extra[2] = { &d->out_pad_h, &d->out_pad_w };

	for (int i = 0; i < 2; i++) {
		int64_t out = os ? os->ints[i] : in[i] * s[i];
		int64_t total = s[i] * (in[i] - 1) + *extra[i] + (k[i] - 1) * dl[i] + 1 - out;

		if (out < 1 || out > SPATIAL_MAX_DIM || total > 2 * 255 ||
		    (total < 0 && *extra[i] - total >= s[i] && *extra[i] - total >= dl[i]))
			return fail(err, err_len, n, -EINVAL, "output size %lld along axis "
				    "%d is out of reach (supported: sizes that pads of 0..255 "
				    "each, or an output padding below the stride or the "
				    "dilation, give)", (long long)out, i);
		if (total < 0) {
			*extra[i] -= (int)total;
			total = 0;
		}
		*head[i] = (int)(upper ? total / 2 : total - total / 2);
		*tail[i] = (int)(total - *head[i]);
	}
	return 0;
}

int onnx_deconv_get(const struct onnx_node *n, int in_h, int in_w, int kh, int kw,
		    struct onnx_deconv *d, char *err, size_t err_len)
{
	const struct onnx_attr *st = onnx_node_attr(n, "strides"), *dl = onnx_node_attr(n, "dilations");
	const struct onnx_attr *pd = onnx_node_attr(n, "pads"), *op = onnx_node_attr(n, "output_padding");
	const struct onnx_attr *ks = onnx_node_attr(n, "kernel_shape");
	const struct onnx_attr *os = onnx_node_attr(n, "output_shape");
	const char *auto_pad = onnx_attr_string(n, "auto_pad", "NOTSET");
	bool upper = !strcmp(auto_pad, "SAME_UPPER");
	bool same = upper || !strcmp(auto_pad, "SAME_LOWER");
	int64_t oh, ow;

	memset(d, 0, sizeof(*d));
	if (strcmp(auto_pad, "NOTSET") && strcmp(auto_pad, "VALID") && !same)
		return fail(err, err_len, n, -ENOTSUP, "auto_pad '%s' (supported: NOTSET, VALID, "
			    "SAME_UPPER, SAME_LOWER)", auto_pad);
	if (os && (os->type != ONNX_ATTR_INTS || os->n != 2))
		return fail(err, err_len, n, -ENOTSUP, "output_shape is not a list of 2 sizes");
	if ((st && (st->type != ONNX_ATTR_INTS || st->n != 2)) ||
	    (dl && (dl->type != ONNX_ATTR_INTS || dl->n != 2)) ||
	    (pd && (pd->type != ONNX_ATTR_INTS || pd->n != 4)) ||
	    (op && (op->type != ONNX_ATTR_INTS || op->n != 2)) ||
	    (ks && (ks->type != ONNX_ATTR_INTS || ks->n != 2)))
		return fail(err, err_len, n, -ENOTSUP, "strides, dilations, pads, output_padding "
			    "or kernel_shape is not a 2-D list");
	if (ks && (ks->ints[0] != kh || ks->ints[1] != kw))
		return fail(err, err_len, n, -EINVAL, "kernel_shape differs from the weights'");
	d->kh = kh;
	d->kw = kw;
	d->sh = st ? (int)st->ints[0] : 1;
	d->sw = st ? (int)st->ints[1] : 1;
	d->dh = dl ? (int)dl->ints[0] : 1;
	d->dw = dl ? (int)dl->ints[1] : 1;
	d->group = (int)onnx_attr_int(n, "group", 1);
	if ((st && (st->ints[0] < 1 || st->ints[1] < 1 || st->ints[0] > 255 || st->ints[1] > 255)) ||
	    (dl && (dl->ints[0] < 1 || dl->ints[1] < 1 || dl->ints[0] > 255 || dl->ints[1] > 255)))
		return fail(err, err_len, n, -EINVAL, "strides or dilations outside 1..255");
	for (int i = 0; pd && i < 4; i++)
		if (pd->ints[i] < 0 || pd->ints[i] > 255)
			return fail(err, err_len, n, -EINVAL, "pads outside 0..255");
	if (pd) {
		d->pad_top = (int)pd->ints[0];
		d->pad_left = (int)pd->ints[1];
		d->pad_bottom = (int)pd->ints[2];
		d->pad_right = (int)pd->ints[3];
	}
	if (op) {
		/* ONNX: output_padding below the stride or the dilation */
		if (op->ints[0] < 0 || op->ints[1] < 0 ||
		    (op->ints[0] >= d->sh && op->ints[0] >= d->dh) ||
		    (op->ints[1] >= d->sw && op->ints[1] >= d->dw))
			return fail(err, err_len, n, -EINVAL, "output_padding %lld,%lld is not below "
				    "the stride or the dilation", (long long)op->ints[0],
				    (long long)op->ints[1]);
		d->out_pad_h = (int)op->ints[0];
		d->out_pad_w = (int)op->ints[1];
	}
	if (os || same) {
		int rc = deconv_fit(n, os, in_h, in_w, d, upper, err, err_len);

		if (rc)
			return rc;
	}
	oh = (int64_t)(in_h - 1) * d->sh + (int64_t)(kh - 1) * d->dh + 1 - d->pad_top -
	     d->pad_bottom + d->out_pad_h;
	ow = (int64_t)(in_w - 1) * d->sw + (int64_t)(kw - 1) * d->dw + 1 - d->pad_left -
	     d->pad_right + d->out_pad_w;
	if (oh < 1 || ow < 1 || oh > SPATIAL_MAX_DIM || ow > SPATIAL_MAX_DIM)
		return fail(err, err_len, n, -EINVAL, "the output would be %lldx%lld",
			    (long long)oh, (long long)ow);
	d->out_h = (int)oh;
	d->out_w = (int)ow;
	return 0;
}

static int set_dims(struct onnx_graph *g, const struct onnx_node *n, size_t k, int rank,
		    const int64_t *dims, int32_t dtype, char *err, size_t err_len)
{
	struct onnx_tensor *t;

	if (k >= n->n_out || n->out[k] < 0)
		return fail(err, err_len, n, -EINVAL, "output %zu is missing", k);
	for (int i = 0; i < rank; i++)
		if (dims[i] < 1 || dims[i] > SPATIAL_MAX_DIM)
			return fail(err, err_len, n, -ENOTSUP, "output dimension %d is %lld", i,
				    (long long)dims[i]);
	t = &g->tensors[n->out[k]];
	t->rank = rank;
	memcpy(t->dims, dims, (size_t)rank * sizeof(*dims));
	if (!t->dtype)
		t->dtype = dtype;
	return 0;
}

/* ---- Conv1d ---- */

bool onnx_conv1d(const struct onnx_graph *g, const struct onnx_node *n)
{
	const struct onnx_tensor *x = tin(g, n, 0);

	return !strcmp(n->op_type, "Conv") && !*n->domain && x && x->rank == 3;
}

bool onnx_window1d(const struct onnx_graph *g, const struct onnx_node *n)
{
	const struct onnx_tensor *x = tin(g, n, 0);

	return (!strcmp(n->op_type, "Conv") || !strcmp(n->op_type, "MaxPool") ||
		!strcmp(n->op_type, "AveragePool")) && !*n->domain && x && x->rank == 3;
}

int onnx_conv1d_window(const struct onnx_node *n, int in_w, int kw, struct onnx_window *w,
		       char *err, size_t err_len)
{
	static const char *const names[] = { "kernel_shape", "strides", "dilations", "pads" };
	/* each attribute's 2-D value: the row axis first (pads: its begin, the
	 * column's, its end, the column's) */
	int64_t vals[4][4];
	struct onnx_attr attrs[16];
	struct onnx_node row = *n;
	size_t k = 0;

	if (n->n_attr > sizeof(attrs) / sizeof(attrs[0]))
		return fail(err, err_len, n, -EINVAL, "%zu attributes", n->n_attr);
	for (size_t i = 0; i < n->n_attr; i++) {
		const struct onnx_attr *a = &n->attr[i];
		int which = name_index(a->name, names, 4);

		attrs[k] = *a;
		if (which >= 0) {
			size_t want = which == 3 ? 2 : 1;

			if (a->type != ONNX_ATTR_INTS || a->n != want)
				return fail(err, err_len, n, -EINVAL, "%s is not a 1-D list of %zu",
					    a->name, want);
			if (which == 3) {
				vals[which][0] = 0;
				vals[which][1] = a->ints[0];
				vals[which][2] = 0;
				vals[which][3] = a->ints[1];
			} else {
				vals[which][0] = 1;
				vals[which][1] = a->ints[0];
			}
			attrs[k].ints = vals[which];
			attrs[k].n = which == 3 ? 4 : 2;
		}
		k++;
	}
	row.attr = attrs;
	row.n_attr = k;
	/* a pool's kernel is its kernel_shape (kw 0) */
	return onnx_window_get(&row, 1, in_w, kw ? 1 : 0, kw, w, err, err_len);
}

static int infer_conv1d(struct onnx_graph *g, const struct onnx_node *n, char *err,
			size_t err_len)
{
	const struct onnx_tensor *x = tin(g, n, 0), *wt = tin(g, n, 1), *b = tin(g, n, 2);
	int64_t group = onnx_attr_int(n, "group", 1), dims[3];
	struct onnx_window w;
	int rc;

	if (!wt || wt->rank != 3 || wt->dims[0] < 1 || wt->dims[1] < 1 || wt->dims[2] < 1)
		return fail(err, err_len, n, -EINVAL, "weights are not a 3-D tensor of known shape");
	rc = onnx_conv1d_window(n, (int)x->dims[2], (int)wt->dims[2], &w, err, err_len);
	if (rc)
		return rc;
	if (group < 1 || x->dims[1] % group || wt->dims[1] * group != x->dims[1] ||
	    wt->dims[0] % group)
		return fail(err, err_len, n, -EINVAL, "group, input channels and weight shape "
			    "disagree");
	if (b && (b->rank != 1 || b->dims[0] != wt->dims[0]))
		return fail(err, err_len, n, -EINVAL, "bias B is not 1-D of one value per output "
			    "channel");
	dims[0] = x->dims[0];
	dims[1] = wt->dims[0];
	dims[2] = w.out_w;
	return set_dims(g, n, 0, 3, dims, x->dtype, err, err_len);
}

static int ref_conv1d(const struct onnx_graph *g, const struct onnx_node *n, float *const *v,
		      float *y, char *err, size_t err_len)
{
	const struct onnx_tensor *xt = tin(g, n, 0), *wt = tin(g, n, 1);
	int64_t group = onnx_attr_int(n, "group", 1), ic = xt->dims[1], iw = xt->dims[2];
	int64_t oc = wt->dims[0], icg = wt->dims[1];
	struct onnx_window w;
	int rc = onnx_conv1d_window(n, (int)iw, (int)wt->dims[2], &w, err, err_len);

	if (rc)
		return rc;
	for (int64_t bn = 0; bn < xt->dims[0]; bn++)
		for (int64_t m = 0; m < oc; m++)
			for (int ox = 0; ox < w.out_w; ox++) {
				double acc = v[2] ? v[2][m] : 0.0;
				int64_t g0 = m / (oc / group) * icg;

				for (int64_t c = 0; c < icg; c++)
					for (int k = 0; k < w.kw; k++) {
						int64_t xx = (int64_t)ox * w.sw - w.pad_left + (int64_t)k * w.dw;

						if (xx >= 0 && xx < iw)
							acc += (double)v[0][((bn * ic + g0 + c) * iw) + xx] *
							       v[1][(m * icg + c) * w.kw + k];
					}
				y[(bn * oc + m) * w.out_w + ox] = (float)acc;
			}
	return 0;
}

/* ---- Pad ---- */

int onnx_pad_mode(const struct onnx_node *n)
{
	static const char *const modes[] = { "constant", "reflect", "edge" };

	return name_index(onnx_attr_string(n, "mode", "constant"), modes, 3);
}

int64_t onnx_pad_source(enum onnx_pad_mode mode, int64_t o, int64_t before, int64_t in)
{
	int64_t i = o - before;

	if (i >= 0 && i < in)
		return i;
	if (mode == ONNX_PAD_CONSTANT)
		return -1;
	if (mode == ONNX_PAD_EDGE)
		return i < 0 ? 0 : in - 1;
	/* reflect: mirrored about the edge element, which is not repeated */
	if (in == 1)
		return 0;
	while (i < 0 || i >= in)
		i = i < 0 ? -i : 2 * (in - 1) - i;
	return i;
}

/* ---- shapes ---- */


static int infer_deconv(struct onnx_graph *g, const struct onnx_node *n, char *err,
			size_t err_len)
{
	const struct onnx_tensor *x = tin(g, n, 0), *w = tin(g, n, 1), *b = tin(g, n, 2);
	struct onnx_deconv d;
	int64_t dims[4];
	int rc;

	if (x->rank != 4)
		return fail(err, err_len, n, -ENOTSUP, "only 2-D (NCHW) inputs are supported");
	if (!w || w->rank != 4 || w->dims[0] < 1 || w->dims[1] < 1 || w->dims[2] < 1 ||
	    w->dims[3] < 1)
		return fail(err, err_len, n, -EINVAL, "weights are not a 4-D tensor of known "
			    "shape");
	rc = onnx_deconv_get(n, (int)x->dims[2], (int)x->dims[3], (int)w->dims[2],
			     (int)w->dims[3], &d, err, err_len);
	if (rc)
		return rc;
	if (d.group < 1 || x->dims[1] % d.group || w->dims[0] != x->dims[1])
		return fail(err, err_len, n, -EINVAL, "group %d, input channels %lld and weights "
			    "[%lld, ...] disagree", d.group, (long long)x->dims[1],
			    (long long)w->dims[0]);
	dims[0] = x->dims[0];
	dims[1] = w->dims[1] * d.group;
	dims[2] = d.out_h;
	dims[3] = d.out_w;
	if (b && (b->rank != 1 || b->dims[0] != dims[1]))
		return fail(err, err_len, n, -EINVAL, "bias B is not 1-D of one value per output "
			    "channel");
	return set_dims(g, n, 0, 4, dims, x->dtype, err, err_len);
}

int onnx_spatial_infer(struct onnx_graph *g, const struct onnx_node *n, char *err,
		       size_t err_len)
{
	const struct onnx_tensor *x = tin(g, n, 0);
	const char *op = n->op_type;
	int64_t dims[ONNX_GRAPH_MAX_RANK];

	if (!x || x->rank < 0)
		return fail(err, err_len, n, -EINVAL, "has no first input of known shape");
	if (onnx_conv1d(g, n))
		return infer_conv1d(g, n, err, err_len);
	memcpy(dims, x->dims, sizeof(dims));
	if (!strcmp(op, "Resize")) {
		struct onnx_resize r;
		int rc = x->rank == 4 ? onnx_resize_get(g, n, (int)x->dims[2], (int)x->dims[3], &r,
							err, err_len)
				      : fail(err, err_len, n, -ENOTSUP, "input X is not 4-D");

		if (rc)
			return rc;
		dims[2] = r.out[0];
		dims[3] = r.out[1];
		return set_dims(g, n, 0, 4, dims, x->dtype, err, err_len);
	}
	if (!strcmp(op, "DepthToSpace") || !strcmp(op, "SpaceToDepth")) {
		int64_t b = onnx_attr_int(n, "blocksize", 0);
		bool d2s = op[0] == 'D';
		const char *mode = onnx_attr_string(n, "mode", "DCR");

		if (x->rank != 4)
			return fail(err, err_len, n, -ENOTSUP, "input is not 4-D [N,C,H,W]");
		if (b < 1 || b > SPATIAL_MAX_DIM)
			return fail(err, err_len, n, -EINVAL, "blocksize %lld", (long long)b);
		if (d2s && strcmp(mode, "DCR") && strcmp(mode, "CRD"))
			return fail(err, err_len, n, -ENOTSUP, "mode '%s' (supported: DCR, CRD)",
				    mode);
		if (d2s ? x->dims[1] % (b * b) : x->dims[2] % b || x->dims[3] % b)
			return fail(err, err_len, n, -EINVAL, "blocksize %lld does not divide the "
				    "%s", (long long)b, d2s ? "channels by its square" : "rows and "
				    "columns");
		dims[1] = d2s ? x->dims[1] / (b * b) : x->dims[1] * b * b;
		dims[2] = d2s ? x->dims[2] * b : x->dims[2] / b;
		dims[3] = d2s ? x->dims[3] * b : x->dims[3] / b;
		return set_dims(g, n, 0, 4, dims, x->dtype, err, err_len);
	}
	if (!strcmp(op, "Slice")) {
		struct onnx_slice s;
		int rc = onnx_slice_get(g, n, &s, err, err_len);

		if (rc)
			return rc;
		return set_dims(g, n, 0, x->rank, s.len, x->dtype, err, err_len);
	}
	if (!strcmp(op, "Split")) {
		int64_t len[64];
		int axis, rc;

		if (n->n_out > sizeof(len) / sizeof(len[0]) || n->n_out < 1)
			return fail(err, err_len, n, -ENOTSUP, "%zu outputs (1..64)", n->n_out);
		rc = onnx_split_get(g, n, &axis, len, err, err_len);
		for (size_t k = 0; !rc && k < n->n_out; k++) {
			dims[axis] = len[k];
			rc = set_dims(g, n, k, x->rank, dims, x->dtype, err, err_len);
		}
		return rc;
	}
	return infer_deconv(g, n, err, err_len);
}

/* ---- the float32 reference ---- */

static int ref_resize(const struct onnx_graph *g, const struct onnx_node *n, const float *x,
		      float *y, char *err, size_t err_len)
{
	const struct onnx_tensor *xt = tin(g, n, 0);
	struct onnx_resize r;
	int rc = onnx_resize_get(g, n, (int)xt->dims[2], (int)xt->dims[3], &r, err, err_len);
	size_t planes = (size_t)(xt->dims[0] * xt->dims[1]);

	if (rc)
		return rc;
	for (size_t p = 0; p < planes; p++) {
		const float *xp = x + p * (size_t)r.in[0] * (size_t)r.in[1];

		for (int oy = 0; oy < r.out[0]; oy++)
			for (int ox = 0; ox < r.out[1]; ox++) {
				float v;

				if (r.mode == ONNX_RESIZE_NEAREST) {
					v = xp[(size_t)onnx_resize_nearest(&r, 0, oy) * (size_t)r.in[1] +
					       (size_t)onnx_resize_nearest(&r, 1, ox)];
				} else if (r.mode == ONNX_RESIZE_CUBIC) {
					int iy[ONNX_RESIZE_CUBIC_TAPS], ix[ONNX_RESIZE_CUBIC_TAPS];
					float wy[ONNX_RESIZE_CUBIC_TAPS], wx[ONNX_RESIZE_CUBIC_TAPS];
					double acc = 0.0;

					onnx_resize_cubic(&r, 0, oy, iy, wy);
					onnx_resize_cubic(&r, 1, ox, ix, wx);
					for (int i = 0; i < ONNX_RESIZE_CUBIC_TAPS; i++)
						for (int j = 0; j < ONNX_RESIZE_CUBIC_TAPS; j++)
							acc += (double)wy[i] * wx[j] *
							       xp[(size_t)iy[i] * r.in[1] + ix[j]];
					v = (float)acc;
				} else {
					int y0, y1, x0, x1;
					float fy, fx;

					onnx_resize_linear(&r, 0, oy, &y0, &y1, &fy);
					onnx_resize_linear(&r, 1, ox, &x0, &x1, &fx);
					v = (1 - fy) * ((1 - fx) * xp[(size_t)y0 * r.in[1] + x0] +
							fx * xp[(size_t)y0 * r.in[1] + x1]) +
					    fy * ((1 - fx) * xp[(size_t)y1 * r.in[1] + x0] +
						  fx * xp[(size_t)y1 * r.in[1] + x1]);
				}
				y[(p * r.out[0] + oy) * r.out[1] + ox] = v;
			}
	}
	return 0;
}

/* DepthToSpace (DCR, CRD) and SpaceToDepth, from the operator documents'
 * reshape-transpose-reshape definitions. */
static void ref_d2s(const struct onnx_graph *g, const struct onnx_node *n, const float *x,
		    float *y)
{
	const struct onnx_tensor *xt = tin(g, n, 0), *yt = &g->tensors[n->out[0]];
	int64_t b = onnx_attr_int(n, "blocksize", 1);
	bool d2s = n->op_type[0] == 'D', crd = d2s && !strcmp(onnx_attr_string(n, "mode", "DCR"),
							       "CRD");
	/* the side with the large channel count and the small plane */
	const struct onnx_tensor *deep = d2s ? xt : yt, *wide = d2s ? yt : xt;
	int64_t cw = wide->dims[1], h = deep->dims[2], w = deep->dims[3];

	for (int64_t bn = 0; bn < xt->dims[0]; bn++)
		for (int64_t c = 0; c < cw; c++)
			for (int64_t yy = 0; yy < h * b; yy++)
				for (int64_t xx = 0; xx < w * b; xx++) {
					int64_t i = yy % b, j = xx % b;
					int64_t cd = crd ? (c * b + i) * b + j : (i * b + j) * cw + c;
					size_t at_wide = (size_t)(((bn * cw + c) * h * b + yy) * w * b + xx);
					size_t at_deep = (size_t)(((bn * deep->dims[1] + cd) * h + yy / b) *
								  w + xx / b);

					if (d2s)
						y[at_wide] = x[at_deep];
					else
						y[at_deep] = x[at_wide];
				}
}

/* Copy the box of x (dims xd) starting at `start` with `step` into y (dims yd). */
static void ref_box(const float *x, const int64_t *xd, int rank, const int64_t *start,
		    const int64_t *step, float *y, const int64_t *yd)
{
	size_t n = 1, idx[ONNX_GRAPH_MAX_RANK] = { 0 };

	for (int i = 0; i < rank; i++)
		n *= (size_t)yd[i];
	for (size_t o = 0; o < n; o++) {
		size_t off = 0;

		for (int k = 0; k < rank; k++)
			off = off * (size_t)xd[k] + (size_t)(start[k] + (int64_t)idx[k] * step[k]);
		y[o] = x[off];
		for (int k = rank - 1; k >= 0; k--) {
			if (++idx[k] < (size_t)yd[k])
				break;
			idx[k] = 0;
		}
	}
}

static int ref_deconv(const struct onnx_graph *g, const struct onnx_node *n, float *const *v,
		      float *y, char *err, size_t err_len)
{
	const struct onnx_tensor *xt = tin(g, n, 0), *wt = tin(g, n, 1), *yt = &g->tensors[n->out[0]];
	const float *x = v[0], *w = v[1], *b = v[2];
	struct onnx_deconv d;
	int rc = onnx_deconv_get(n, (int)xt->dims[2], (int)xt->dims[3], (int)wt->dims[2],
				 (int)wt->dims[3], &d, err, err_len);
	int64_t ic = xt->dims[1], ih = xt->dims[2], iw = xt->dims[3], oc = yt->dims[1];
	int64_t icg = ic / d.group, ocg = oc / d.group;
	size_t plane = (size_t)(d.out_h * d.out_w);
	double *acc;

	if (rc)
		return rc;
	acc = calloc((size_t)oc * plane, sizeof(double));
	if (!acc)
		return -ENOMEM;
	for (int64_t bn = 0; bn < xt->dims[0]; bn++) {
		memset(acc, 0, (size_t)oc * plane * sizeof(double));
		for (int64_t c = 0; c < ic; c++)
			for (int64_t m = 0; m < ocg; m++)
				for (int64_t iy = 0; iy < ih; iy++)
					for (int64_t ix = 0; ix < iw; ix++) {
						double xv = x[((bn * ic + c) * ih + iy) * iw + ix];
						int64_t o = c / icg * ocg + m;

						for (int ky = 0; ky < d.kh; ky++)
							for (int kx = 0; kx < d.kw; kx++) {
								int64_t oy = iy * d.sh + ky * d.dh - d.pad_top;
								int64_t ox = ix * d.sw + kx * d.dw - d.pad_left;

								if (oy < 0 || oy >= d.out_h || ox < 0 ||
								    ox >= d.out_w)
									continue;
								acc[(size_t)o * plane + (size_t)(oy * d.out_w + ox)] +=
									xv * w[((c * ocg + m) * d.kh + ky) * d.kw + kx];
							}
					}
		for (int64_t o = 0; o < oc; o++)
			for (size_t p = 0; p < plane; p++)
				y[(size_t)(bn * oc + o) * plane + p] =
					(float)(acc[(size_t)o * plane + p] + (b ? b[o] : 0.0f));
	}
	free(acc);
	return 0;
}

int onnx_spatial_ref(const struct onnx_graph *g, const struct onnx_node *n, float **val,
		     char *err, size_t err_len)
{
	const struct onnx_tensor *xt = tin(g, n, 0);
	const char *op = n->op_type;
	float *in[3] = { NULL, NULL, NULL };

	for (size_t i = 0; i < 3 && i < n->n_in; i++)
		in[i] = n->in[i] >= 0 ? val[n->in[i]] : NULL;
	if (!in[0] || ((!strcmp(op, "ConvTranspose") || !strcmp(op, "Conv")) && !in[1]))
		return fail(err, err_len, n, -ENOTSUP, "an input is not float32");
	for (size_t k = 0; k < n->n_out; k++) {
		const struct onnx_tensor *t;
		size_t c;

		if (n->out[k] < 0)
			continue;
		t = &g->tensors[n->out[k]];
		if (t->dtype != ONNX_DT_FLOAT)
			return fail(err, err_len, n, -ENOTSUP, "the float32 reference computes only "
				    "float32 outputs");
		c = onnx_tensor_count(t);
		val[n->out[k]] = calloc(c ? c : 1, sizeof(float));
		if (!val[n->out[k]])
			return -ENOMEM;
	}
	if (onnx_conv1d(g, n))
		return ref_conv1d(g, n, in, val[n->out[0]], err, err_len);
	if (!strcmp(op, "Resize"))
		return ref_resize(g, n, in[0], val[n->out[0]], err, err_len);
	if (!strcmp(op, "DepthToSpace") || !strcmp(op, "SpaceToDepth")) {
		ref_d2s(g, n, in[0], val[n->out[0]]);
		return 0;
	}
	if (!strcmp(op, "Slice")) {
		struct onnx_slice s;
		int rc = onnx_slice_get(g, n, &s, err, err_len);

		if (!rc)
			ref_box(in[0], xt->dims, xt->rank, s.start, s.step, val[n->out[0]], s.len);
		return rc;
	}
	if (!strcmp(op, "Split")) {
		int64_t len[64], start[ONNX_GRAPH_MAX_RANK] = { 0 }, step[ONNX_GRAPH_MAX_RANK];
		int64_t dims[ONNX_GRAPH_MAX_RANK];
		int axis, rc = onnx_split_get(g, n, &axis, len, err, err_len);

		for (int i = 0; i < xt->rank; i++)
			step[i] = 1;
		memcpy(dims, xt->dims, sizeof(dims));
		for (size_t k = 0; !rc && k < n->n_out; k++) {
			dims[axis] = len[k];
			if (n->out[k] >= 0)
				ref_box(in[0], xt->dims, xt->rank, start, step, val[n->out[k]], dims);
			start[axis] += len[k];
		}
		return rc;
	}
	return ref_deconv(g, n, in, val[n->out[0]], err, err_len);
}
