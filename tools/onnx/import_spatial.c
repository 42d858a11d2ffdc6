// SPDX-License-Identifier: MIT
/*
 * The spatial ops in both precisions (import_int.h): convolutions as
 * exporters write them (grouped, depthwise with a channel multiplier,
 * dilated) laid out for the NPU's plain or depthwise convolution;
 * ConvTranspose as a convolution (a 1×1 one and a DepthToSpace when the
 * kernel equals the stride, else the input spread out with zeros and a
 * convolution with the flipped kernel); Resize, DepthToSpace, SpaceToDepth,
 * Slice, Split and Pad as CPU ops (runtime/cpu_spatial.h) whose indices
 * are computed here, once. Operator semantics: the ONNX operator
 * documents; where they leave rounding open, onnxruntime's
 * (tools/onnx/onnx_spatial.h).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/cpu_spatial.h"
#include "tools/onnx/import_int.h"
#include "tools/onnx/onnx_spatial.h"

/* The lowering's largest kernel side (lower_conv_check). */
#define MAX_KERNEL	LOWER_CONV_MAX_KERNEL

bool spatial_moves(const struct onnx_node *n)
{
	return is_op(n, "Resize") || is_op(n, "DepthToSpace") || is_op(n, "SpaceToDepth") ||
	       is_op(n, "Slice") || is_op(n, "Split") || is_op(n, "Pad");
}

void *conv_dense(const void *src, size_t es, const void *fill, const struct conv_shape *c,
		 size_t *count)
{
	unsigned int kh = (c->kh - 1) * c->dh + 1, kw = (c->kw - 1) * c->dw + 1;
	unsigned int ocg = c->m / c->group;
	size_t n = c->depthwise ? (size_t)kh * kw * c->m : (size_t)c->m * kh * kw * c->in_c;
	uint8_t *dst = malloc(n * es);

	if (!dst)
		return NULL;
	for (size_t i = 0; i < n; i++)
		memcpy(dst + i * es, fill, es);
	for (unsigned int o = 0; o < c->m; o++)
		for (unsigned int i = 0; i < c->icg; i++)
			for (unsigned int y = 0; y < c->kh; y++)
				for (unsigned int x = 0; x < c->kw; x++) {
					size_t from = (((size_t)o * c->icg + i) * c->kh + y) * c->kw + x;
					size_t yy = (size_t)y * c->dh, xx = (size_t)x * c->dw;
					/* input channel i of the output's group */
					size_t ch = (size_t)(o / ocg) * c->icg + i;
					size_t to = c->depthwise ? (yy * kw + xx) * c->m + o
								 : (((size_t)o * kh + yy) * kw + xx) * c->in_c + ch;

					memcpy(dst + to * es, (const uint8_t *)src + from * es, es);
				}
	*count = n;
	return dst;
}

void conv_kernel(const struct onnx_tensor *wt, unsigned int *kh, unsigned int *kw)
{
	*kh = wt->rank == 4 ? (unsigned int)wt->dims[2] : 1;
	*kw = (unsigned int)wt->dims[wt->rank - 1];
}

int conv_window(struct imp *s, const struct onnx_node *n, const struct imp_tensor *x,
		const struct onnx_tensor *wt, struct onnx_window *win)
{
	unsigned int kh, kw;

	conv_kernel(wt, &kh, &kw);
	if (onnx_conv1d(s->g, n))
		return onnx_conv1d_window(n, (int)x->w, (int)kw, win, s->err, s->err_len);
	return onnx_window_get(n, (int)x->h, (int)x->w, (int)kh, (int)kw, win, s->err,
			       s->err_len);
}

int conv_shape_of(struct imp *s, const struct onnx_node *n, unsigned int in_c,
		  const struct onnx_tensor *wt, const struct onnx_window *win,
		  struct conv_shape *c)
{
	int64_t group = onnx_attr_int(n, "group", 1);

	*c = (struct conv_shape){
		.m = (unsigned int)wt->dims[0], .icg = (unsigned int)wt->dims[1],
		.dh = (unsigned int)win->dh, .dw = (unsigned int)win->dw, .in_c = in_c,
	};
	conv_kernel(wt, &c->kh, &c->kw);
	if (group < 1 || (uint64_t)group * c->icg != in_c || c->m % group)
		return fail(s, "group %lld does not divide the %u input and %u output channels "
			    "into the weights' %u per group", (long long)group, in_c, c->m, c->icg);
	c->group = (unsigned int)group;
	/* one channel in and one out per group is the NPU's depthwise form;
	 * any other grouping (a channel multiplier included) is a plain
	 * convolution whose kernels are zero outside their group */
	c->depthwise = group > 1 && c->m == in_c && c->icg == 1;
	if ((c->kh - 1) * c->dh + 1 > MAX_KERNEL || (c->kw - 1) * c->dw + 1 > MAX_KERNEL)
		return fail(s, "dilations %u,%u spread the %ux%u kernel to %ux%u; the NPU takes "
			    "at most %ux%u (the kernel is spread with zeros: the CNA's atrous "
			    "fields are not used, docs/HARDWARE.md)", c->dh, c->dw, c->kh, c->kw,
			    (c->kh - 1) * c->dh + 1, (c->kw - 1) * c->dw + 1, MAX_KERNEL, MAX_KERNEL);
	return 0;
}

/* ---- maps in place: views (model_format.h rkb_view) ---- */

/* The channels an op writes of its output, in groups of: a convolution's
 * kernel group (lower_conv.c), else the atom (docs/HARDWARE.md §5.3). */
static unsigned int written_group(const struct imp_op *op, bool fp16)
{
	if (op->kind == IMP_CONV)
		return fp16 ? (op->depthwise ? LAYOUT_DW_GROUP_FP16 : LAYOUT_KERNEL_GROUP_FP16) :
			      (op->depthwise ? LAYOUT_DW_GROUP_INT8 : LAYOUT_KERNEL_GROUP_INT8);
	return layout_c2(fp16 ? NPU_PREC_FP16 : NPU_PREC_INT8);
}

/* Does ONNX tensor t reach a graph output through the nodes that only
 * carry it (QuantizeLinear, DequantizeLinear and the views)? Such a map is
 * a graph edge, which is never a view. */
static bool feeds_output(const struct imp *s, int t)
{
	static const char *const carriers[] = {
		"QuantizeLinear", "DequantizeLinear", "Reshape", "Flatten", "Transpose",
		"Identity",
	};

	if (t < 0 || T(s, t)->is_output)
		return t >= 0;
	for (size_t k = 0; k < s->g->n_nodes; k++) {
		const struct onnx_node *n = &s->g->nodes[k];
		bool carrier = false;

		for (size_t c = 0; c < sizeof(carriers) / sizeof(carriers[0]); c++)
			carrier |= is_op(n, carriers[c]);
		/* graphs are acyclic: each step goes to a later node */
		if (carrier && in_of(n, 0) == t && feeds_output(s, n->out[0]))
			return true;
	}
	return false;
}

/* The op writing imp tensor t, or NULL (a graph input). */
static const struct imp_op *writer_of(const struct imp *s, int t)
{
	for (size_t i = s->ig->n_ops; i-- > 0;)
		if (s->ig->ops[i].out == t)
			return &s->ig->ops[i];
	return NULL;
}

static bool in_view(const struct imp *s, int t)
{
	for (size_t i = 0; i < s->ig->n_views; i++)
		if (s->ig->views[i].tensor == t || s->ig->views[i].parent == t)
			return true;
	return false;
}

/* ---- the CPU ops' parameters ---- */


static int32_t *words(struct imp_op *op, size_t n)
{
	free(op->cpu_params);
	op->cpu_params = calloc(n, sizeof(int32_t));
	op->cpu_params_bytes = op->cpu_params ? n * sizeof(int32_t) : 0;
	return op->cpu_params;
}

static int32_t float_word(float f)
{
	int32_t v;

	memcpy(&v, &f, sizeof(v));
	return v;
}

static int resize_params(struct imp *s, struct imp_op *op, const struct onnx_node *p,
			 const struct imp_tensor *x, const struct imp_tensor *y)
{
	struct onnx_resize r;
	int rc = onnx_resize_get(s->g, p, (int)x->h, (int)x->w, &r, s->err, s->err_len);
	size_t at = RKB_CPU_RESIZE_HEADER, entry;
	int32_t *v, mode;

	if (rc)
		return rc;
	if ((unsigned int)r.out[0] != y->h || (unsigned int)r.out[1] != y->w || x->c != y->c)
		return fail(s, "the resize does not give the %ux%u output", y->h, y->w);
	mode = r.mode == ONNX_RESIZE_NEAREST ? RKB_CPU_RESIZE_NEAREST :
	       r.mode == ONNX_RESIZE_LINEAR ? RKB_CPU_RESIZE_LINEAR : RKB_CPU_RESIZE_CUBIC;
	entry = rkb_cpu_resize_entry_words(mode);
	v = words(op, RKB_CPU_RESIZE_HEADER + entry * ((size_t)y->h + y->w));
	if (!v)
		return -ENOMEM;
	v[0] = mode;
	for (int a = 0; a < 2; a++) {
		unsigned int n = a ? y->w : y->h;

		for (unsigned int o = 0; o < n; o++) {
			int i0, i1, idx[ONNX_RESIZE_CUBIC_TAPS];
			float f1, w[ONNX_RESIZE_CUBIC_TAPS];

			if (r.mode == ONNX_RESIZE_NEAREST) {
				v[at + o] = onnx_resize_nearest(&r, a, (int)o);
			} else if (r.mode == ONNX_RESIZE_LINEAR) {
				onnx_resize_linear(&r, a, (int)o, &i0, &i1, &f1);
				v[at + o] = i0;
				v[at + n + o] = i1;
				v[at + 2 * (size_t)n + o] = float_word(f1);
			} else {
				onnx_resize_cubic(&r, a, (int)o, idx, w);
				for (size_t k = 0; k < RKB_CPU_RESIZE_TAPS; k++) {
					v[at + k * n + o] = idx[k];
					v[at + (RKB_CPU_RESIZE_TAPS + k) * n + o] = float_word(w[k]);
				}
			}
		}
		at += entry * n;
	}
	return 0;
}

/* Slice (and Split's part `part`): starts and steps of the map's axes. */
static int box_params(struct imp *s, struct imp_op *op, const struct onnx_node *p, int part)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0)), *y = T(s, p->out[part]);
	int64_t start[ONNX_GRAPH_MAX_RANK] = { 0 }, step[ONNX_GRAPH_MAX_RANK];
	int32_t *v;
	int rc;

	for (int a = 0; a < x->rank; a++)
		step[a] = 1;
	if (is_op(p, "Split")) {
		int64_t len[64];
		int axis;

		rc = onnx_split_get(s->g, p, &axis, len, s->err, s->err_len);
		for (int k = 0; !rc && k < part; k++)
			start[axis] += len[k];
	} else {
		struct onnx_slice sl;

		rc = onnx_slice_get(s->g, p, &sl, s->err, s->err_len);
		memcpy(start, sl.start, sizeof(start));
		memcpy(step, sl.step, sizeof(step));
	}
	if (rc)
		return rc;
	v = words(op, RKB_CPU_SLICE_PARAMS);
	if (!v)
		return -ENOMEM;
	v[1] = v[3] = v[5] = 1;
	for (int a = 0; a < x->rank; a++) {
		int m = imp_map_axis(s, x->rank, a);

		/* the batch of one, or a rank-5 tensor's A or B, kept whole */
		if (m < 0 && (start[a] || step[a] != 1 || y->dims[a] != x->dims[a]))
			return fail(s, "%s along axis %d of a rank-%d tensor (supported: the map "
				    "axes; not the batch, nor A or B of [1,A,B,H,W])", p->op_type,
				    a, x->rank);
		if (m < 0)
			continue;
		v[2 * m] = (int32_t)start[a];
		v[2 * m + 1] = (int32_t)step[a];
	}
	return 0;
}

static int pad_params(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	const struct onnx_attr *pa = onnx_node_attr(p, "pads");
	const int64_t *pads = s->g->opset < 11 && pa ? pa->ints : NULL;
	int mode = onnx_pad_mode(p), cv = in_of(p, 2);
	float value = s->g->opset < 11 ? onnx_attr_float(p, "value", 0.0f) : 0.0f;
	int32_t *v;

	if (!pads) {
		const struct onnx_tensor *pt = T(s, in_of(p, 1));

		if (!pt || !is_const(s, in_of(p, 1)) || pt->dtype != ONNX_DT_INT64)
			return fail(s, "pads must be an int64 constant");
		pads = pt->data;
	}
	if (cv >= 0 && s->g->opset >= 11) {
		if (!is_const(s, cv) || T(s, cv)->dtype != ONNX_DT_FLOAT || T(s, cv)->count != 1)
			return fail(s, "constant_value must be one float32 constant");
		value = (float)const_at(T(s, cv), 0);
	}
	if (!isfinite(value))
		return fail(s, "constant_value %g is not finite", (double)value);
	v = words(op, RKB_CPU_PAD_PARAMS);
	if (!v)
		return -ENOMEM;
	v[0] = mode == ONNX_PAD_REFLECT ? RKB_CPU_PAD_REFLECT :
	       mode == ONNX_PAD_EDGE ? RKB_CPU_PAD_EDGE : RKB_CPU_PAD_CONSTANT;
	v[1] = float_word(value);
	for (int a = 0; a < x->rank; a++) {
		int m = imp_map_axis(s, x->rank, a);

		if (m < 0) {
			if (pads[a] || pads[a + x->rank])
				return fail(s, "pads on the batch axis");
			continue;
		}
		v[2 + m] = (int32_t)pads[a];
	}
	return 0;
}

/* The CPU op for spatial node p, whose output `part` op->out is. */
static int spatial_cpu(struct imp *s, struct imp_op *op, const struct onnx_node *p, int part)
{
	const struct imp_tensor *x = &s->ig->tensors[op->in[0]], *y = &s->ig->tensors[op->out];
	const struct onnx_tensor *xt = T(s, in_of(p, 0));

	op->kind = IMP_CPU;
	if (!imp_map_rank(xt))
		return fail(s, "only maps [1,A,B,H,W], [1,C,H,W], [A,B,C], [M,K] or [K] (batch 1)");
	if (is_op(p, "Resize")) {
		op->cpu_type = "Resize";
		return resize_params(s, op, p, x, y);
	}
	if (is_op(p, "DepthToSpace") || is_op(p, "SpaceToDepth")) {
		int32_t *v = words(op, 2);

		if (!v)
			return -ENOMEM;
		op->cpu_type = "DepthToSpace";
		v[0] = (int32_t)onnx_attr_int(p, "blocksize", 1);
		v[1] = is_op(p, "SpaceToDepth") ? RKB_CPU_S2D :
		       !strcmp(onnx_attr_string(p, "mode", "DCR"), "CRD") ? RKB_CPU_D2S_CRD :
		       RKB_CPU_D2S_DCR;
		return 0;
	}
	if (is_op(p, "Pad")) {
		op->cpu_type = "Pad";
		return pad_params(s, op, p);
	}
	op->cpu_type = "Slice";
	return box_params(s, op, p, part);
}

/*
 * Split or Slice p along the channels only (step 1) as a view of its input
 * map in: the part (imp tensor out, ONNX tensor t) read where it lies.
 * Where the layout allows: the part starts on an atom, in is written whole
 * by an op (no graph input, no part of a Concat in place), and neither is
 * a graph edge. false: the CPU copies it.
 */
static bool part_view(struct imp *s, const struct onnx_node *p, int part, int in, int out,
		      int t)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	const struct imp_tensor *a = &s->ig->tensors[in], *b = &s->ig->tensors[out];
	int64_t start[ONNX_GRAPH_MAX_RANK] = { 0 };
	struct imp_view *v;

	if (x->rank != 4 || feeds_output(s, in_of(p, 0)) || feeds_output(s, t) ||
	    feeds_output(s, dq_input(s, in_of(p, 0))) ||
	    !writer_of(s, in) || b->h != a->h || b->w != a->w || a->fp16 != b->fp16 ||
	    a->int32 || (!a->fp16 && (a->scale != b->scale || a->zp != b->zp)))
		return false;
	for (size_t i = 0; i < s->ig->n_views; i++)
		if (s->ig->views[i].tensor == in || s->ig->views[i].tensor == out)
			return false;
	if (is_op(p, "Split")) {
		int64_t len[64];
		int axis;

		if (onnx_split_get(s->g, p, &axis, len, NULL, 0) || axis != 1)
			return false;
		for (int k = 0; k < part; k++)
			start[1] += len[k];
	} else {
		struct onnx_slice sl;

		if (onnx_slice_get(s->g, p, &sl, NULL, 0) || sl.step[1] != 1)
			return false;
		start[1] = sl.start[1];
	}
	if (start[1] % layout_c2(a->fp16 ? NPU_PREC_FP16 : NPU_PREC_INT8))
		return false;
	v = realloc(s->ig->views, (s->ig->n_views + 1) * sizeof(*v));
	if (!v)
		return false;	/* the copy needs no memory of its own */
	s->ig->views = v;
	v[s->ig->n_views++] = (struct imp_view){ out, in, (unsigned int)start[1] };
	return true;
}

/* Which output of n ONNX tensor t is. */
static int output_index(const struct onnx_node *n, int t)
{
	for (size_t k = 0; k < n->n_out; k++)
		if (n->out[k] == t)
			return (int)k;
	return 0;
}

int map_spatial(struct imp *s, struct imp_op *op, const struct onnx_node *p, int t)
{
	if (op->act != LOWER_ACT_NONE)
		return fail(s, "an activation after %s is not fused into a CPU op; apply it "
			    "before", p->op_type);
	op->in[0] = dq_source(s, in_of(p, 0));
	if (op->in[0] < 0)
		return op->in[0];
	if ((is_op(p, "Split") || is_op(p, "Slice")) &&
	    part_view(s, p, output_index(p, t), op->in[0], op->out, t)) {
		s->ig->n_ops--;	/* op, the last, is not needed: nothing is copied */
		return 0;
	}
	return spatial_cpu(s, op, p, output_index(p, t));
}

int map_spatial_fp16(struct imp *s, const struct onnx_node *n, int in)
{
	for (size_t k = 0; k < n->n_out; k++) {
		struct imp_op *op;
		int out, rc;

		if (n->out[k] < 0)
			continue;
		out = new_qt(s, n->out[k]);
		if (out < 0)
			return out;
		s->ig->tensors[out].fp16 = true;
		rc = set_params(s, out, 1.0f, 0);
		if (!rc && (is_op(n, "Split") || is_op(n, "Slice")) &&
		    part_view(s, n, (int)k, in, out, n->out[k]))
			continue;
		op = rc ? NULL : add_op(s, IMP_CPU);
		if (!rc && !op)
			rc = -ENOMEM;
		if (rc)
			return rc;
		op->in[0] = in;
		op->out = out;
		rc = spatial_cpu(s, op, n, (int)k);
		if (rc)
			return rc;
	}
	return 0;
}

/* ---- ConvTranspose ---- */

/* An imp tensor between two ops of one node: named as ONNX tensor `like`,
 * which keeps its own imp tensor. */
static int inner_tensor(struct imp *s, int like, unsigned int c, unsigned int h,
			unsigned int w, int params)
{
	struct imp_tensor p = s->ig->tensors[params];	/* add_tensor may move it */
	int keep = s->qt[like], it = add_tensor(s, like, c, h, w), rc;

	s->qt[like] = keep;
	if (it < 0)
		return it;
	s->ig->tensors[it].fp16 = p.fp16;
	rc = set_params(s, it, p.scale, p.zp);
	return rc ? rc : it;
}

/*
 * The convolution a ConvTranspose becomes, in ONNX Conv order [m][c][kh][kw]
 * (es bytes an element) from its weights w [c][m][kh][kw]: with the kernel
 * equal to the stride (unit = true) a 1×1 convolution whose output channel
 * (i·s + j)·M + m is tap (i, j) of output m, for a DepthToSpace (DCR); else
 * the flipped kernel, run over the input spread out with zeros.
 */
static void *deconv_weights(const void *w, size_t es, unsigned int c, unsigned int m,
			    unsigned int kh, unsigned int kw, bool unit)
{
	uint8_t *dst = malloc((size_t)c * m * kh * kw * es);

	if (!dst)
		return NULL;
	for (unsigned int i = 0; i < c; i++)
		for (unsigned int o = 0; o < m; o++)
			for (unsigned int y = 0; y < kh; y++)
				for (unsigned int x = 0; x < kw; x++) {
					size_t from = (((size_t)i * m + o) * kh + y) * kw + x;
					size_t to = unit ? ((size_t)(y * kw + x) * m + o) * c + i
							 : (((size_t)o * c + i) * kh + (kh - 1 - y)) *
								   kw + (kw - 1 - x);

					memcpy(dst + to * es, (const uint8_t *)w + from * es, es);
				}
	return dst;
}

/* The geometry of ConvTranspose p over imp tensor x, and whether it is the
 * kernel = stride case. */
static int deconv_plan(struct imp *s, const struct onnx_node *p, const struct imp_tensor *x,
		       struct onnx_deconv *d, bool *unit)
{
	const struct onnx_tensor *wt = T(s, in_of(p, 1));
	int rc;

	if (!wt || wt->rank != 4)
		return fail(s, "weights are not 4-D");
	rc = onnx_deconv_get(p, (int)x->h, (int)x->w, (int)wt->dims[2], (int)wt->dims[3], d,
			     s->err, s->err_len);
	if (rc)
		return rc;
	if (d->group != 1)
		return fail(s, "group %d (supported: 1)", d->group);
	if (wt->dims[0] != x->c)
		return fail(s, "weights for %lld input channels, the input has %u",
			    (long long)wt->dims[0], x->c);
	*unit = d->kh == d->sh && d->kw == d->sw && d->dh == 1 && d->dw == 1 && !d->pad_top &&
		!d->pad_left && !d->pad_bottom && !d->pad_right && !d->out_pad_h && !d->out_pad_w;
	if (!*unit && ((d->kh - 1) * d->dh < d->pad_top || (d->kh - 1) * d->dh < d->pad_bottom ||
		       (d->kw - 1) * d->dw < d->pad_left || (d->kw - 1) * d->dw < d->pad_right))
		return fail(s, "pads beyond the dilated kernel (they would crop the input)");
	return 0;
}

/*
 * op, the last op, becomes the first of the ConvTranspose's two: the
 * DepthToSpace's convolution (unit), or the zero-spreading Pad. The second
 * is returned (NULL: out of memory), with op's output and activation.
 */
static struct imp_op *deconv_ops(struct imp *s, struct imp_op *op, int like, int x_it,
				 const struct onnx_deconv *d, bool unit, int *rc)
{
	const struct imp_tensor *x = &s->ig->tensors[x_it], *y = &s->ig->tensors[op->out];
	size_t first = (size_t)(op - s->ig->ops);
	unsigned int c = unit ? y->c * (unsigned int)(d->sh * d->sw) : x->c;
	unsigned int h = unit ? x->h : (unsigned int)((x->h - 1) * d->sh + 1 + 2 * (d->kh - 1) * d->dh -
						  d->pad_top - d->pad_bottom + d->out_pad_h);
	unsigned int w = unit ? x->w : (unsigned int)((x->w - 1) * d->sw + 1 + 2 * (d->kw - 1) * d->dw -
						  d->pad_left - d->pad_right + d->out_pad_w);
	/* the convolution writes the output's values: the DepthToSpace only
	 * moves them; the spread input holds the input's */
	int mid = inner_tensor(s, like, c, h, w, unit ? op->out : x_it);
	struct imp_op *second;
	int32_t *v;

	*rc = mid < 0 ? mid : 0;
	if (*rc)
		return NULL;
	second = add_op(s, unit ? IMP_CPU : IMP_CONV);
	if (!second) {
		*rc = -ENOMEM;
		return NULL;
	}
	op = &s->ig->ops[first];
	second->out = op->out;
	second->in[0] = mid;
	second->act = op->act;
	second->act_min = op->act_min;
	second->act_max = op->act_max;
	op->out = mid;
	op->in[0] = x_it;
	if (unit) {
		second->cpu_type = "DepthToSpace";
		v = words(second, 2);
		if (v) {
			v[0] = d->sh;
			v[1] = RKB_CPU_D2S_DCR;
		}
		op->kind = IMP_CONV;
		op->kh = op->kw = op->stride_y = op->stride_x = 1;
		second->act = LOWER_ACT_NONE;
		return v ? second : NULL;
	}
	op->kind = IMP_CPU;
	op->act = LOWER_ACT_NONE;
	op->cpu_type = "Pad";
	v = words(op, RKB_CPU_PAD_PARAMS);
	if (!v)
		return NULL;
	v[0] = RKB_CPU_PAD_CONSTANT;
	v[1] = float_word(0.0f);
	v[3] = (d->kh - 1) * d->dh - d->pad_top;
	v[4] = (d->kw - 1) * d->dw - d->pad_left;
	v[6] = d->sh - 1;
	v[7] = d->sw - 1;
	second->kh = (unsigned int)d->kh;
	second->kw = (unsigned int)d->kw;
	second->stride_y = second->stride_x = 1;
	return second;
}

/* The convolution's kernel (ONNX Conv order, es bytes each) in the
 * importer's layout: conv->weights or weights_f16. */
static int deconv_kernel(struct imp *s, struct imp_op *conv, const void *w, size_t es,
			 const void *zero, unsigned int c, unsigned int m,
			 const struct onnx_deconv *d, bool unit)
{
	struct conv_shape cs = {
		.m = unit ? m * (unsigned int)(d->kh * d->kw) : m, .icg = c,
		.kh = unit ? 1 : (unsigned int)d->kh, .kw = unit ? 1 : (unsigned int)d->kw,
		.dh = unit ? 1 : (unsigned int)d->dh, .dw = unit ? 1 : (unsigned int)d->dw,
		.group = 1, .in_c = c,
	};
	void *order = deconv_weights(w, es, c, m, (unsigned int)d->kh, (unsigned int)d->kw, unit);
	void *dense;
	size_t n;

	if (!order)
		return -ENOMEM;
	if ((cs.kh - 1) * cs.dh + 1 > MAX_KERNEL || (cs.kw - 1) * cs.dw + 1 > MAX_KERNEL) {
		free(order);
		return fail(s, "the %dx%d kernel with dilations %d,%d is wider than the NPU's %u",
			    d->kh, d->kw, d->dh, d->dw, MAX_KERNEL);
	}
	dense = conv_dense(order, es, zero, &cs, &n);
	free(order);
	if (!dense)
		return -ENOMEM;
	conv->kh = (cs.kh - 1) * cs.dh + 1;
	conv->kw = (cs.kw - 1) * cs.dw + 1;
	if (es == 1)
		conv->weights = dense;
	else
		conv->weights_f16 = dense;
	return 0;
}

/* Per-output-channel values (scales, biases) of the unit case: output
 * channel (i·s + j)·M + m takes m's. */
static void *repeat(const void *v, size_t es, size_t m, size_t times)
{
	uint8_t *dst = malloc(m * times * es);

	for (size_t t = 0; dst && t < times; t++)
		memcpy(dst + t * m * es, v, m * es);
	return dst;
}

int map_deconv(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	int in = dq_source(s, in_of(p, 0)), rc;
	struct imp_tensor x;
	struct onnx_deconv d;
	struct imp_op *conv;
	struct qweights w;
	int32_t *bias = NULL;
	unsigned int m;
	size_t taps;
	bool unit;

	if (in < 0)
		return in;
	x = s->ig->tensors[in];
	rc = deconv_plan(s, p, &x, &d, &unit);
	if (rc)
		return rc;
	m = s->ig->tensors[op->out].c;
	taps = unit ? (size_t)d.kh * d.kw : 1;
	rc = weights_from_dq(s, in_of(p, 1), 1, m, &w);
	if (!rc)
		rc = bias_of(s, in_of(p, 2), x.scale, &w, m, 1.0f, &bias);
	conv = rc ? NULL : deconv_ops(s, op, p->out[0], in, &d, unit, &rc);
	if (conv && unit)
		conv = &s->ig->ops[s->ig->n_ops - 2];
	if (!rc && !conv)
		rc = -ENOMEM;
	if (!rc) {
		int8_t zero = (int8_t)w.zp;

		rc = deconv_kernel(s, conv, w.v, 1, &zero, x.c, m, &d, unit);
	}
	if (!rc) {
		size_t n_scale = w.n_scale > 1 ? w.n_scale * taps : 1;

		conv->w_zp = w.zp;
		conv->w_scale = repeat(w.scale, sizeof(float), w.n_scale, n_scale / w.n_scale);
		conv->w_scale_count = (unsigned int)n_scale;
		conv->bias = bias ? repeat(bias, sizeof(int32_t), m, taps) : NULL;
		if (!conv->w_scale || (bias && !conv->bias))
			rc = -ENOMEM;
	}
	free(bias);
	qweights_free(&w);
	return rc;
}

int map_deconv_fp16(struct imp *s, const struct onnx_node *n, int in, const float *w,
		    const float *b, int out)
{
	struct imp_tensor x = s->ig->tensors[in];
	unsigned int m = s->ig->tensors[out].c;
	struct onnx_deconv d;
	struct imp_op *op, *conv;
	uint16_t *w16, zero = 0;
	size_t count = (size_t)x.c * m, taps;
	bool unit;
	int rc = deconv_plan(s, n, &x, &d, &unit);

	if (rc)
		return rc;
	count *= (size_t)d.kh * d.kw;
	taps = unit ? (size_t)d.kh * d.kw : 1;
	op = add_op(s, IMP_CONV);
	if (!op)
		return -ENOMEM;
	op->out = out;
	conv = deconv_ops(s, op, n->out[0], in, &d, unit, &rc);
	if (rc)
		return rc;
	if (!conv)
		return -ENOMEM;
	if (unit)
		conv = &s->ig->ops[s->ig->n_ops - 2];
	w16 = malloc(count * sizeof(uint16_t));
	if (!w16)
		return -ENOMEM;
	for (size_t i = 0; i < count; i++)
		w16[i] = layout_f32_to_f16(w[i]);
	rc = deconv_kernel(s, conv, w16, sizeof(uint16_t), &zero, x.c, m, &d, unit);
	free(w16);
	if (!rc && b) {
		conv->bias_f = repeat(b, sizeof(float), m, taps);
		if (!conv->bias_f)
			rc = -ENOMEM;
	}
	return rc;
}

/* ---- Concat of more than two maps ---- */

/*
 * Concat p of n > 2 maps ins[] as a chain of two-input CPU Concats, the
 * first being ops[first] (its output set): each adds one input to what the
 * ones before it gathered, in maps of the output's quantisation, so every
 * element is requantised once, as DequantizeLinear → Concat →
 * QuantizeLinear does it.
 */
static int concat_chain(struct imp *s, size_t first, const struct onnx_node *p, const int *ins,
			size_t n)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	int64_t a = onnx_attr_int(p, "axis", 0);
	int out = s->ig->ops[first].out, acc = ins[0], axis;
	unsigned int ext[3];

	a = a < 0 ? a + x->rank : a;
	if (imp_map_axis(s, x->rank, (int)a) < 0 || !imp_map_rank(x))
		return fail(s, "Concat along axis %lld of a rank-%d tensor (a map axis of "
			    "[1,C,H,W], [A,B,C], [M,K] or [K], or H or W of [1,A,B,H,W])",
			    (long long)onnx_attr_int(p, "axis", 0), x->rank);
	axis = imp_map_axis(s, x->rank, (int)a);
	ext[0] = s->ig->tensors[acc].c;
	ext[1] = s->ig->tensors[acc].h;
	ext[2] = s->ig->tensors[acc].w;
	for (size_t i = 1; i < n; i++) {
		const struct imp_tensor *t = &s->ig->tensors[ins[i]];
		struct imp_op *op = i == 1 ? &s->ig->ops[first] : add_op(s, IMP_CPU);
		int dst = out;

		if (!op)
			return -ENOMEM;
		ext[axis] += axis == 0 ? t->c : axis == 1 ? t->h : t->w;
		if (i + 1 < n) {
			dst = inner_tensor(s, p->out[0], ext[0], ext[1], ext[2], out);
			if (dst < 0)
				return dst;
		}
		op->kind = IMP_CPU;
		op->cpu_type = "Concat";
		op->cpu_axis = axis;
		op->in[0] = acc;
		op->in[1] = ins[i];
		op->out = dst;
		acc = dst;
	}
	return 0;
}

/*
 * Concat p along the channels of maps ins[] (read through the ONNX tensors
 * src[], each read by p alone) into out as views: each producer writes its
 * map straight into out's channels. Where the layout allows: every part
 * but the last fills whole groups of what its producer writes (so the next
 * starts on a fresh atom), the parts are distinct maps their producers
 * wrote, of out's quantisation, and nothing of it is a graph edge. false:
 * the CPU copies.
 */
static bool concat_views(struct imp *s, const struct onnx_node *p, const int *ins,
			 const int *src, size_t n, int out)
{
	const struct onnx_tensor *x = T(s, in_of(p, 0));
	const struct imp_tensor *o = &s->ig->tensors[out];
	int64_t axis = onnx_attr_int(p, "axis", 0);
	unsigned int at = 0;
	struct imp_view *v;

	if (x->rank != 4 || (axis != 1 && axis != -3) || feeds_output(s, p->out[0]) ||
	    o->int32 || in_view(s, out))
		return false;
	for (size_t i = 0; i < n; i++) {
		const struct imp_tensor *t = &s->ig->tensors[ins[i]];
		const struct imp_op *w = writer_of(s, ins[i]);

		if (!w || s->users[src[i]] != 1 || feeds_output(s, src[i]) || in_view(s, ins[i]) ||
		    t->scale != o->scale || t->zp != o->zp || t->fp16 != o->fp16 || t->int32 ||
		    (i + 1 < n && t->c % written_group(w, o->fp16)))
			return false;
		for (size_t j = 0; j < i; j++)
			if (ins[j] == ins[i])
				return false;
	}
	v = realloc(s->ig->views, (s->ig->n_views + n) * sizeof(*v));
	if (!v)
		return false;	/* the copies need no memory of their own */
	s->ig->views = v;
	for (size_t i = 0; i < n; i++) {
		v[s->ig->n_views++] = (struct imp_view){ ins[i], out, at };
		at += s->ig->tensors[ins[i]].c;
	}
	return true;
}

int map_concat_n(struct imp *s, struct imp_op *op, const struct onnx_node *p)
{
	int ins[64], src[64];

	if (p->n_in > sizeof(ins) / sizeof(ins[0]))
		return fail(s, "Concat of %zu inputs (at most %zu)", p->n_in,
			    sizeof(ins) / sizeof(ins[0]));
	if (op->act != LOWER_ACT_NONE)
		return fail(s, "an activation after Concat is not fused into a CPU op");
	for (size_t i = 0; i < p->n_in; i++) {
		ins[i] = dq_source(s, in_of(p, i));
		if (ins[i] < 0)
			return ins[i];
		/* the DequantizeLinear read by the Concat alone, its input by it alone */
		src[i] = s->users[in_of(p, i)] == 1 ? dq_input(s, in_of(p, i)) : in_of(p, i);
	}
	if (concat_views(s, p, ins, src, p->n_in, op->out)) {
		s->ig->n_ops--;	/* op, the last, is not needed: nothing is copied */
		return 0;
	}
	if (p->n_in == 2)
		return 1;	/* the two-input CPU Concat (import_patterns.c) */
	return concat_chain(s, (size_t)(op - s->ig->ops), p, ins, p->n_in);
}

int map_concat_n_fp16(struct imp *s, const struct onnx_node *n, const int *ins, int out)
{
	struct imp_op *op;

	if (concat_views(s, n, ins, n->in, n->n_in, out))
		return 0;
	op = add_op(s, IMP_CPU);
	if (!op)
		return -ENOMEM;
	op->out = out;
	if (n->n_in > 2)
		return concat_chain(s, s->ig->n_ops - 1, n, ins, n->n_in);
	op->in[0] = ins[0];
	op->in[1] = ins[1];
	return concat_params(s, n, op);
}

/* ---- grouped convolutions cut in place ---- */

static bool is_edge_tensor(const struct imp *s, int t)
{
	for (size_t i = 0; i < s->ig->n_inputs; i++)
		if (s->ig->inputs[i].tensor == t)
			return true;
	for (size_t i = 0; i < s->ig->n_outputs; i++)
		if (s->ig->outputs[i].tensor == t)
			return true;
	return false;
}

/* The kernel group a convolution writes (lower_conv.c). */
static unsigned int kernel_group(bool fp16)
{
	return fp16 ? LAYOUT_KERNEL_GROUP_FP16 : LAYOUT_KERNEL_GROUP_INT8;
}

/*
 * The fewest groups k (dividing g) a convolution of op's may take so that
 * each reads its channels from an atom (k·icg a multiple of C2) and writes
 * whole kernel groups (k·ocg a multiple of the kernel group); g when none
 * is fewer, or when the maps cannot be views (op's input written whole by
 * an op, neither map a graph edge or a view already).
 */
static unsigned int cluster_groups(const struct imp *s, const struct imp_op *op)
{
	const struct imp_tensor *x = &s->ig->tensors[op->in[0]], *y = &s->ig->tensors[op->out];
	unsigned int g = op->groups, icg = x->c / g, ocg = y->c / g;
	unsigned int c2 = layout_c2(x->fp16 ? NPU_PREC_FP16 : NPU_PREC_INT8);

	if (!writer_of(s, op->in[0]) || is_edge_tensor(s, op->in[0]) ||
	    is_edge_tensor(s, op->out) || y->int32)
		return g;
	for (size_t i = 0; i < s->ig->n_views; i++)
		if (s->ig->views[i].tensor == op->in[0] || s->ig->views[i].tensor == op->out ||
		    s->ig->views[i].parent == op->out)
			return g;
	for (unsigned int k = 1; k < g; k++)
		if (!(g % k) && !((k * icg) % c2) && !((k * ocg) % kernel_group(y->fp16)))
			return k;
	return g;
}

/* Elements [first, first + n) of a per-output-channel array (es bytes
 * each), or all of a per-tensor one (count 1). */
static void *slice_of(const void *v, size_t es, size_t count, size_t first, size_t n)
{
	void *d;

	if (!v)
		return NULL;
	if (count == 1) {
		first = 0;
		n = 1;
	}
	d = malloc(n * es);
	if (d)
		memcpy(d, (const uint8_t *)v + first * es, n * es);
	return d;
}

/* Op i, a grouped convolution, as g / k convolutions of k groups each. */
static int cut(struct imp *s, size_t i, unsigned int k)
{
	struct imp_op whole = s->ig->ops[i];
	const struct imp_tensor *x = &s->ig->tensors[whole.in[0]];
	unsigned int g = whole.groups, n = g / k, in_c = x->c, out_c = s->ig->tensors[whole.out].c;
	unsigned int ci = k * (in_c / g), co = k * (out_c / g);
	size_t es = whole.weights_f16 ? sizeof(uint16_t) : 1, taps = (size_t)whole.kh * whole.kw;
	const uint8_t *dense = whole.weights_f16 ? (const void *)whole.weights_f16 :
			       (const void *)whole.weights;
	struct imp_op *ops = realloc(s->ig->ops, (s->ig->n_ops + n) * sizeof(*ops));
	struct imp_view *views = realloc(s->ig->views, (s->ig->n_views + 2 * n) * sizeof(*views));
	int rc = 0;

	if (ops)
		s->ig->ops = ops;
	if (views)
		s->ig->views = views;
	if (!ops || !views)
		return -ENOMEM;
	s->cap_ops = s->ig->n_ops + n;
	memmove(&s->ig->ops[i + n], &s->ig->ops[i + 1],
		(s->ig->n_ops - i - 1) * sizeof(*s->ig->ops));
	s->ig->n_ops += n - 1;
	for (unsigned int j = 0; j < n && !rc; j++) {
		struct imp_op *op = &s->ig->ops[i + j];
		/* the cluster's slices of the maps, named as the whole ones (ONNX
		 * tensor 0 keeps its own map) */
		int keep = s->qt[0], a = add_tensor(s, 0, ci, x->h, x->w), b;

		*op = whole;
		op->weights = NULL;
		op->weights_f16 = NULL;
		op->w_scale = NULL;
		op->bias = NULL;
		op->bias_f = NULL;
		op->groups = 0;
		if (a < 0)
			return a;
		b = add_tensor(s, 0, co, s->ig->tensors[whole.out].h, s->ig->tensors[whole.out].w);
		s->qt[0] = keep;
		if (b < 0)
			return b;
		x = &s->ig->tensors[whole.in[0]];	/* add_tensor may move them */
		s->ig->tensors[a] = *x;
		s->ig->tensors[a].c = ci;
		s->ig->tensors[b] = s->ig->tensors[whole.out];
		s->ig->tensors[b].c = co;
		s->has_params[a] = s->has_params[b] = true;
		s->ig->views[s->ig->n_views++] = (struct imp_view){ a, whole.in[0], j * ci };
		s->ig->views[s->ig->n_views++] = (struct imp_view){ b, whole.out, j * co };
		op->in[0] = a;
		op->out = b;
		{
			uint8_t *w = malloc((size_t)co * taps * ci * es);

			if (!w) {
				rc = -ENOMEM;
				break;
			}
			for (size_t o = 0; o < co; o++)
				for (size_t t = 0; t < taps; t++)
					memcpy(w + (o * taps + t) * ci * es,
					       dense + (((size_t)j * co + o) * taps + t) * in_c * es +
					       (size_t)j * ci * es, ci * es);
			if (es == 1)
				op->weights = (int8_t *)w;
			else
				op->weights_f16 = (uint16_t *)(void *)w;
		}
		op->w_scale = slice_of(whole.w_scale, sizeof(float), whole.w_scale_count,
				       (size_t)j * co, co);
		op->w_scale_count = whole.w_scale_count <= 1 ? whole.w_scale_count : co;
		op->bias = slice_of(whole.bias, sizeof(int32_t), out_c, (size_t)j * co, co);
		op->bias_f = slice_of(whole.bias_f, sizeof(float), out_c, (size_t)j * co, co);
		if ((whole.w_scale && !op->w_scale) || (whole.bias && !op->bias) ||
		    (whole.bias_f && !op->bias_f))
			rc = -ENOMEM;
	}
	free(whole.weights);
	free(whole.weights_f16);
	free(whole.w_scale);
	free(whole.bias);
	free(whole.bias_f);
	return rc;
}

int split_grouped(struct imp *s)
{
	for (size_t i = 0; i < s->ig->n_ops; i++) {
		unsigned int g = s->ig->ops[i].groups, k;
		int rc;

		if (s->ig->ops[i].kind != IMP_CONV || !g)
			continue;
		k = cluster_groups(s, &s->ig->ops[i]);
		if (k == g) {
			s->ig->ops[i].groups = 0;
			continue;
		}
		rc = cut(s, i, k);
		if (rc)
			return rc;
		i += g / k - 1;	/* past the convolutions it became */
	}
	return 0;
}
