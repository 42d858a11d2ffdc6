/* SPDX-License-Identifier: MIT */
/* Imported graph → model container (model_write.h). */
#include <errno.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout.h"
#include "compiler/lower_eltwise.h"
#include "runtime/cpu_ops.h"
#include "runtime/model.h"
#include "runtime/op_kinds.h"
#include "tools/onnx/model_write.h"

/* Placeholder NPU addresses for the lowering's checks. */
#define CHECK_ADDR	0x1000u
static const struct rkb_op_addrs check_addrs = {
	.in = { CHECK_ADDR, CHECK_ADDR }, .out = CHECK_ADDR, .weights = CHECK_ADDR,
	.bias = CHECK_ADDR, .mult = CHECK_ADDR, .scratch = CHECK_ADDR,
};

struct bytes {
	uint8_t *p;
	size_t len, cap;
};

struct writer {
	const struct imp_graph *ig;
	struct rkb_tensor *t;
	struct rkb_op *ops;
	struct rkb_io *in, *out;
	unsigned int *written;	/* channels the producer (or the input conversion) writes */
	struct rkb_view *views;
	struct bytes strings, consts;
	uint32_t tasks;
	char *err;
	size_t err_len;
};

static int fail(struct writer *w, int rc, const char *fmt, ...)
{
	va_list ap;

	if (w->err_len) {
		va_start(ap, fmt);
		vsnprintf(w->err, w->err_len, fmt, ap);
		va_end(ap);
	}
	return rc;
}

/* Appends n bytes (zeros when src is NULL) at an `align` boundary; returns
 * the offset or -1. */
static long put(struct bytes *b, const void *src, size_t n, size_t align)
{
	size_t at = layout_align(b->len, align);

	if (at + n > UINT32_MAX)
		return -1;
	if (at + n > b->cap) {
		size_t cap = (at + n) * 2 + 64;
		uint8_t *p = realloc(b->p, cap);

		if (!p)
			return -1;
		b->p = p;
		b->cap = cap;
	}
	memset(b->p + b->len, 0, at - b->len);
	if (src)
		memcpy(b->p + at, src, n);
	else
		memset(b->p + at, 0, n);
	b->len = at + n;
	return (long)at;
}

static uint32_t put_str(struct writer *w, const char *s)
{
	long off = put(&w->strings, s ? s : "", strlen(s ? s : "") + 1, 1);

	return off < 0 ? 0 : (uint32_t)off;
}

static uint32_t act_code(enum lower_act a)
{
	switch (a) {
	case LOWER_ACT_RELU: return RKB_ACT_RELU;
	case LOWER_ACT_RELU6: return RKB_ACT_RELU6;
	case LOWER_ACT_CLIP: return RKB_ACT_CLIP;
	default: return RKB_ACT_NONE;
	}
}

static unsigned int widen(unsigned int *have, unsigned int want)
{
	if (want > *have)
		*have = want;
	return *have;
}

static int put_range(struct writer *w, const void *src, size_t n, struct rkb_range *r)
{
	long off;

	if (!n) {
		*r = (struct rkb_range){ 0, 0 };
		return 0;
	}
	off = put(&w->consts, src, n, RKB_CONST_ALIGN);
	if (off < 0)
		return fail(w, -ENOMEM, "out of memory (constants)");
	*r = (struct rkb_range){ (uint32_t)off, (uint32_t)n };
	return 0;
}

/* What the records so far say: the tensors and the constants (for the
 * row's shape, op_kinds.h). */
static struct rkb_model view(const struct writer *w)
{
	return (struct rkb_model){ .tensors = w->t, .constants = w->consts.p,
				   .const_bytes = (uint32_t)w->consts.len };
}

/*
 * An NPU op that reads weights (its row uses RKB_USES_WEIGHTS): the weight
 * quantisation, then the weights packed into the CNA's native layout with
 * the bias and multipliers (lower_conv_pack), and the flags.
 */
static int write_weights(struct writer *w, const struct imp_op *op, struct rkb_op *r)
{
	struct lower_conv_shape s;
	struct lower_conv_op c;
	struct rkb_model m;
	void *wbuf = NULL;
	int32_t *bias = NULL, *mult = NULL;
	int rc;

	r->flags = op->depthwise ? RKB_OP_F_DEPTHWISE : 0;
	r->w_zp = op->w_zp;
	r->w_scale_count = op->w_scale_count;
	rc = put_range(w, op->w_scale, op->w_scale_count * sizeof(float), &r->w_scale);
	if (rc)
		return rc;
	m = view(w);
	rkb_conv_op(&m, r, &check_addrs, &c);
	/* the importer's copy of the scales: the constants move as they grow */
	c.w_scale = op->w_scale;
	/* scales that allow it are requantised by exact shifts */
	if (lower_conv_pow2_ok(&c)) {
		c.pow2_requant = true;
		r->flags |= RKB_OP_F_POW2;
	}
	if (lower_conv_check(&c, &s))
		return fail(w, -ENOTSUP, "node '%s': the NPU convolution lowering refuses "
			    "%ux%ux%u -> %u kernel %ux%u stride %ux%u", op->node, c.in_c, c.in_h,
			    c.in_w, c.out_c, c.kh, c.kw, c.stride_y, c.stride_x);
	wbuf = malloc(s.weight_bytes ? s.weight_bytes : 1);
	bias = malloc(s.bias_bytes ? s.bias_bytes : 1);
	mult = malloc(s.scale_bytes ? s.scale_bytes : 1);
	rc = !wbuf || !bias || !mult ? fail(w, -ENOMEM, "out of memory") : 0;
	if (!rc && c.prec == NPU_PREC_FP16) {
		/* fp16: the weights as they are, an fp32 bias only when the node has one */
		if (lower_conv_pack(&c, &s, op->weights_f16, NULL, wbuf, NULL, NULL))
			rc = fail(w, -ERANGE, "node '%s': the weights do not pack", op->node);
		else if (op->bias_f)
			lower_conv_pack_bias_fp16(&c, &s, op->bias_f, (float *)(void *)bias);
		else
			s.bias_bytes = 0;
	} else if (!rc && lower_conv_pack(&c, &s, op->weights, op->bias, wbuf, bias,
					  s.scale_bytes ? mult : NULL)) {
		rc = fail(w, -ERANGE, "node '%s': the weights or bias do not pack (see above)",
			  op->node);
	}
	if (!rc)
		rc = put_range(w, wbuf, s.weight_bytes, &r->weights);
	if (!rc)
		rc = put_range(w, bias, s.bias_bytes, &r->bias);
	if (!rc)
		rc = put_range(w, mult, s.scale_bytes, &r->mult);
	free(wbuf);
	free(bias);
	free(mult);
	return rc;
}

/* A CPU op (its row uses RKB_USES_CPU_TYPE): its type by name and its
 * parameters (runtime/cpu_ops.h). */
static int write_cpu(struct writer *w, const struct imp_op *op, struct rkb_op *r)
{
	int32_t axis = op->cpu_axis;

	/* Softmax's and Concat's parameter: the axis; AveragePool's: its
	 * window; Transpose's: the permutation (runtime/cpu_ops.h) */
	int32_t window[RKB_CPU_POOL_PARAMS] = {
		(int32_t)op->kh, (int32_t)op->kw, (int32_t)op->stride_y, (int32_t)op->stride_x,
		(int32_t)op->pad_top, (int32_t)op->pad_left,
	};
	int rc = 0;

	int32_t perm[RKB_CPU_TRANSPOSE_PARAMS] = { op->cpu_perm[0], op->cpu_perm[1],
						   op->cpu_perm[2] };

	if (!strcmp(op->cpu_type, "Softmax") || !strcmp(op->cpu_type, "LogSoftmax"))
		rc = put_range(w, &axis, sizeof(axis), &r->weights);
	else if (!strcmp(op->cpu_type, "AveragePool"))
		rc = put_range(w, window, sizeof(window), &r->weights);
	else if (!strcmp(op->cpu_type, "Transpose"))
		rc = put_range(w, perm, sizeof(perm), &r->weights);
	else if (!strcmp(op->cpu_type, "Concat"))
		rc = put_range(w, &axis, sizeof(axis), &r->weights);
	else if (op->cpu_params_bytes)
		rc = put_range(w, op->cpu_params, op->cpu_params_bytes, &r->weights);
	if (rc)
		return rc;
	r->cpu_type = put_str(w, op->cpu_type);
	return 0;
}

/*
 * Op i's record, by its type's row (runtime/op_kinds.h): the fields the
 * type uses, its constants, then what the lowering makes of it (the row's
 * shape): the channels its tensors hold, its scratch and its tasks.
 */
static int write_op(struct writer *w, size_t i)
{
	const struct imp_op *op = &w->ig->ops[i];
	const struct rkb_op_kind *k = rkb_op_kind_of((uint32_t)op->kind);
	struct rkb_op *r = &w->ops[i];
	struct rkb_op_shape s;
	struct rkb_model m;
	int rc = 0;

	if (!k)
		return fail(w, -ENOTSUP, "node '%s': op kind %d is no container op type",
			    op->node, (int)op->kind);
	*r = (struct rkb_op){
		.type = k->type,
		.name = put_str(w, op->node),
		.in = { (uint32_t)op->in[0],
			(k->uses & RKB_USES_IN2) && op->in[1] >= 0 ? (uint32_t)op->in[1] :
			RKB_NONE },
		.out = (uint32_t)op->out,
	};
	if (k->uses & RKB_USES_WINDOW) {
		r->kh = op->kh;
		r->kw = op->kw;
		r->stride_y = op->stride_y;
		r->stride_x = op->stride_x;
		r->pad_top = op->pad_top;
		r->pad_left = op->pad_left;
		r->pad_bottom = op->pad_bottom;
		r->pad_right = op->pad_right;
	} else if (k->engine == RKB_ENGINE_NPU) {
		/* no window: 1 x 1 of stride 1, as the writer has always put it */
		r->kh = r->kw = r->stride_y = r->stride_x = 1;
	}
	if (k->uses & RKB_USES_ACT) {
		r->act = act_code(op->act);
		r->act_min = op->act_min;
		r->act_max = op->act_max;
	}
	if (k->uses & RKB_USES_POOL) {
		if (op->pool != LOWER_POOL_MAX && op->pool != LOWER_POOL_AVG)
			return fail(w, -ENOTSUP, "node '%s': pool method %d", op->node, op->pool);
		r->pool = op->pool == LOWER_POOL_MAX ? RKB_POOL_MAX : RKB_POOL_AVG;
	}
	if (k->uses & RKB_USES_CPU_TYPE)
		rc = write_cpu(w, op, r);
	else if (k->uses & RKB_USES_WEIGHTS)
		rc = write_weights(w, op, r);
	else if (k->uses & RKB_USES_PARAMS)
		rc = put_range(w, op->cpu_params, op->cpu_params_bytes, &r->weights);
	if (rc)
		return rc;
	m = view(w);
	if (k->shape(&m, r, &s)) {
		const struct imp_tensor *a = &w->ig->tensors[op->in[0]];
		const struct imp_tensor *o = &w->ig->tensors[op->out];

		return fail(w, -ENOTSUP, "node '%s': the NPU %s lowering refuses %ux%ux%u%s -> "
			    "%ux%ux%u", op->node, k->name, a->c, a->h, a->w,
			    r->in[1] != RKB_NONE ? " and a second input" : "", o->c, o->h, o->w);
	}
	widen(&w->t[op->in[0]].c_mem, s.in_c_mem);
	if (r->in[1] != RKB_NONE)
		widen(&w->t[op->in[1]].c_mem, s.in2_c_mem);
	widen(&w->t[op->out].c_mem, s.out_c_mem);
	w->written[op->out] = s.out_c_written;
	r->scratch_bytes = (uint32_t)s.scratch_bytes;
	w->tasks += (uint32_t)s.tasks;
	return 0;
}

/* --no-fusion: the functions on the DPU's table as the CPU ops they came
 * from (their Unary parameters or Lut table are the same). */
static void unfuse_tables(struct imp_graph *g)
{
	for (size_t i = 0; i < g->n_ops; i++)
		if (g->ops[i].kind == IMP_LUT || g->ops[i].kind == IMP_CONVERT)
			g->ops[i].kind = IMP_CPU;
}

/* A convert the DPU's task cannot take (a side past its cube, a scale or
 * its inverse outside fp16's normal range) runs as the CPU's Cast. */
static void cpu_converts(struct imp_graph *g)
{
	for (size_t i = 0; i < g->n_ops; i++) {
		struct imp_op *op = &g->ops[i];
		const struct imp_tensor *a = &g->tensors[op->in[0]], *o = &g->tensors[op->out];
		const struct imp_tensor *q = a->fp16 ? o : a;

		if (op->kind == IMP_CONVERT &&
		    !lower_convert_fits(q->scale, q->zp, !a->fp16, o->h, o->w, o->c))
			op->kind = IMP_CPU;
	}
}

/* An int8 table's one task must not follow another (the loader refuses
 * it: the table is one per core, HARDWARE.md §4.4): the second runs as the
 * CPU's Lut instead. An fp16 function ends with its scale's task. */
static void apart_tables(struct imp_graph *g)
{
	for (size_t i = 1; i < g->n_ops; i++) {
		const struct imp_op *prev = &g->ops[i - 1];

		if (g->ops[i].kind == IMP_LUT && prev->kind == IMP_LUT &&
		    !g->tensors[prev->out].fp16)
			g->ops[i].kind = IMP_CPU;
	}
}

/* ---- views: the parts of a Concat written in place ---- */

static const struct imp_view *view_of(const struct imp_graph *ig, int t)
{
	for (size_t i = 0; i < ig->n_views; i++)
		if (ig->views[i].tensor == t)
			return &ig->views[i];
	return NULL;
}

static bool op_writes(const struct imp_graph *ig, int t)
{
	for (size_t i = 0; i < ig->n_ops; i++)
		if (ig->ops[i].out == t)
			return true;
	return false;
}

/*
 * The parent holds its views' channels. A view written by its producer
 * holds what the producer writes (its c_mem), and those of one parent must
 * not meet (the importer lays them out so); the parent is then written
 * through them. A view read (of a parent an op writes) holds what its
 * readers read, which may reach into its neighbours' channels.
 */
static int fit_views(struct writer *w)
{
	const struct imp_graph *ig = w->ig;

	for (size_t i = 0; i < ig->n_views; i++) {
		const struct imp_view *v = &ig->views[i];
		uint32_t end = v->c_offset + w->t[v->tensor].c_mem;

		widen(&w->t[v->parent].c_mem, end);
		if (op_writes(ig, v->parent))
			continue;
		for (size_t j = 0; j < i; j++) {
			const struct imp_view *u = &ig->views[j];

			if (u->parent == v->parent && v->c_offset < u->c_offset +
			    w->t[u->tensor].c_mem && u->c_offset < end)
				return fail(w, -EINVAL, "'%s': its producer writes %u channels from "
					    "channel %u of '%s', over another part's",
					    ig->tensors[v->tensor].name, w->t[v->tensor].c_mem,
					    v->c_offset, ig->tensors[v->parent].name);
		}
		widen(&w->written[v->parent], end);
	}
	return 0;
}

/* ---- fusion: a conv and the residual add after it, one op ---- */

/* Whether t is a view or has views: a Concat part written in place, whose
 * writer the views' layout was planned for, is never moved to another op. */
static bool shares_bytes(const struct imp_graph *g, int t)
{
	for (size_t i = 0; i < g->n_views; i++)
		if (g->views[i].tensor == t || g->views[i].parent == t)
			return true;
	return false;
}

/* Reads of tensor t by the ops not dropped. */
static unsigned int readers(const struct imp_graph *g, const bool *drop, int t)
{
	unsigned int n = 0;

	for (size_t i = 0; i < g->n_ops; i++) {
		const struct rkb_op_kind *k = rkb_op_kind_of((uint32_t)g->ops[i].kind);
		bool in2 = k && (k->uses & RKB_USES_IN2);

		for (int j = 0; j < (in2 ? 2 : 1); j++)
			n += !drop[i] && g->ops[i].in[j] == t;
	}
	return n;
}

static bool is_output(const struct imp_graph *g, int t)
{
	for (size_t i = 0; i < g->n_outputs; i++)
		if (g->outputs[i].tensor == t)
			return true;
	return false;
}

/*
 * Whether conv op ci can take add op ai (reading ci's output, and `other`)
 * as its residual: the conv's output is read by the add alone and is no
 * graph output, the conv has no activation of its own, the add's is one the
 * conv applies, the residual has the output's shape and type, and the
 * conv's lowering takes it (lower_conv_residual_ok: not per-channel scales,
 * an input-channel split, depthwise).
 */
static bool fusable(struct writer *w, const struct imp_graph *g, const bool *drop, size_t ci,
		    size_t ai, int other)
{
	const struct imp_op *conv = &g->ops[ci], *add = &g->ops[ai];
	const struct imp_tensor *r = &g->tensors[other], *o = &g->tensors[add->out];
	bool fp16 = o->fp16;
	struct rkb_op rec;
	struct lower_conv_op c;
	struct rkb_model m;

	if (conv->kind != IMP_CONV || conv->act != LOWER_ACT_NONE || conv->depthwise ||
	    g->tensors[conv->out].int32 || is_output(g, conv->out) ||
	    shares_bytes(g, conv->out) || shares_bytes(g, add->out) ||
	    readers(g, drop, conv->out) != 1 ||
	    r->c != o->c || r->h != o->h || r->w != o->w || r->fp16 != fp16 || r->int32 ||
	    (add->act != LOWER_ACT_NONE && add->act != LOWER_ACT_RELU &&
	     (fp16 || add->act != LOWER_ACT_RELU6)))
		return false;
	rec = (struct rkb_op){
		.type = RKB_OP_CONV,
		.in = { (uint32_t)conv->in[0], (uint32_t)other }, .out = (uint32_t)add->out,
		.kh = conv->kh, .kw = conv->kw, .stride_y = conv->stride_y,
		.stride_x = conv->stride_x, .pad_top = conv->pad_top,
		.pad_left = conv->pad_left, .pad_bottom = conv->pad_bottom,
		.pad_right = conv->pad_right, .act = act_code(add->act), .w_zp = conv->w_zp,
	};
	m = view(w);
	rkb_conv_op(&m, &rec, &check_addrs, &c);
	/* the importer's copy of the scales (none are written yet) */
	c.w_scale = conv->w_scale;
	c.w_scale_count = conv->w_scale_count;
	c.pow2_requant = lower_conv_pow2_ok(&c);
	return lower_conv_residual_ok(&c);
}

/*
 * Each add of two maps one of which is a conv's output only it reads becomes
 * that conv with the other map as its residual (in[1], docs/FORMAT.md),
 * with the add's activation and output, at the add's place (both of the
 * conv's inputs exist by then). The conv's own output tensor is left unread
 * and unwritten. g is the writer's copy of the ops; n_ops shrinks.
 */
static int fuse_residuals(struct writer *w, struct imp_graph *g)
{
	bool *drop = calloc(g->n_ops + 1, sizeof(*drop));
	size_t n = 0;

	if (!drop)
		return fail(w, -ENOMEM, "out of memory");
	for (size_t ai = 0; ai < g->n_ops; ai++) {
		struct imp_op *add = &g->ops[ai];
		size_t prod[2] = { SIZE_MAX, SIZE_MAX }, pick = SIZE_MAX;
		int k = 0;

		if (add->kind != IMP_ADD)
			continue;
		for (size_t i = 0; i < ai; i++)
			for (int j = 0; j < 2; j++)
				if (!drop[i] && g->ops[i].out == add->in[j])
					prod[j] = i;
		/* the later producer first: the other map is then the older one */
		for (int t = 0; t < 2 && pick == SIZE_MAX; t++) {
			int j = (prod[1] != SIZE_MAX && (prod[0] == SIZE_MAX || prod[1] > prod[0])) ?
				1 - t : t;

			if (prod[j] != SIZE_MAX && fusable(w, g, drop, prod[j], ai, add->in[1 - j])) {
				pick = prod[j];
				k = j;
			}
		}
		if (pick == SIZE_MAX)
			continue;
		{
			struct imp_op fused = g->ops[pick];

			fused.in[1] = add->in[1 - k];
			fused.out = add->out;
			fused.act = add->act;
			fused.act_min = add->act_min;
			fused.act_max = add->act_max;
			*add = fused;
			drop[pick] = true;
		}
	}
	for (size_t i = 0; i < g->n_ops; i++)
		if (!drop[i])
			g->ops[n++] = g->ops[i];
	g->n_ops = n;
	free(drop);
	return 0;
}

/* ---- the activation plan ---- */

struct item {
	uint32_t *offset;
	size_t bytes;
	int32_t first, last;	/* ops during which it must stay intact */
	bool view;		/* placed with its parent */
};

static int cmp_item(const void *a, const void *b)
{
	const struct item *x = a, *y = b;

	return x->bytes < y->bytes ? 1 : x->bytes > y->bytes ? -1 :
	       x->first < y->first ? -1 : x->first > y->first;
}

/*
 * First fit, largest first: each item goes to the lowest offset where it
 * overlaps no placed item alive at the same time.
 */
static int plan(struct writer *w, uint32_t *arena)
{
	const struct imp_graph *ig = w->ig;
	size_t n = ig->n_tensors + ig->n_ops, k = 0;
	struct item *it = calloc(n + 1, sizeof(*it));
	int32_t end = (int32_t)ig->n_ops;
	uint64_t top = 0;

	if (!it)
		return fail(w, -ENOMEM, "out of memory");
	for (size_t t = 0; t < ig->n_tensors; t++)
		it[t] = (struct item){ &w->t[t].arena_offset, w->t[t].arena_bytes, end, -1, false };
	for (size_t i = 0; i < ig->n_inputs; i++)
		it[ig->inputs[i].tensor].first = -1;
	for (size_t i = 0; i < ig->n_ops; i++) {
		const struct imp_op *op = &ig->ops[i];

		for (int j = 0; j < 2; j++)
			if (w->ops[i].in[j] != RKB_NONE)
				it[w->ops[i].in[j]].last = (int32_t)i;
		if (it[op->out].first > (int32_t)i)
			it[op->out].first = (int32_t)i;
		if (w->ops[i].scratch_bytes)
			it[ig->n_tensors + k++] = (struct item){ &w->ops[i].scratch_offset,
								 w->ops[i].scratch_bytes,
								 (int32_t)i, (int32_t)i, false };
	}
	for (size_t i = 0; i < ig->n_outputs; i++)
		it[ig->outputs[i].tensor].last = end;
	/* a parent lives while any of its views does */
	for (size_t i = 0; i < ig->n_views; i++) {
		struct item *v = &it[ig->views[i].tensor], *p = &it[ig->views[i].parent];

		v->view = true;
		p->first = v->first < p->first ? v->first : p->first;
		p->last = v->last > p->last ? v->last : p->last;
		p->last = v->first > p->last ? v->first : p->last;
	}
	for (size_t t = 0; t < ig->n_tensors; t++) {
		/* neither written nor read (a conv output fused away): its bytes
		 * overlap anything, at offset 0 (the arena is at least as big) */
		if (it[t].first == end && it[t].last < 0) {
			it[t].first = it[t].last = end + 1;
			it[t].bytes = 0;
			if (w->t[t].arena_bytes > top)
				top = w->t[t].arena_bytes;
			continue;
		}
		if (it[t].last < it[t].first)
			it[t].last = it[t].first;
		/* Channel groups its producer leaves to the zeroed start state
		 * must never be shared. */
		if (w->written[t] < w->t[t].c_mem) {
			it[t].first = -1;
			it[t].last = end;
		}
	}
	n = ig->n_tensors + k;
	qsort(it, n, sizeof(*it), cmp_item);
	for (size_t i = 0; i < n; i++) {
		uint64_t at = 0;
		bool moved = !it[i].view;

		while (moved) {
			moved = false;
			for (size_t j = 0; j < i; j++) {
				uint64_t o = *it[j].offset;

				if (it[j].view || it[j].first > it[i].last ||
				    it[i].first > it[j].last)
					continue;
				if (at < o + it[j].bytes && o < at + it[i].bytes) {
					at = layout_align(o + it[j].bytes, RKB_ARENA_ALIGN);
					moved = true;
				}
			}
		}
		if (at + it[i].bytes > UINT32_MAX) {
			free(it);
			return fail(w, -EFBIG, "the activations need more than 4 GiB");
		}
		*it[i].offset = (uint32_t)at;
		if (at + it[i].bytes > top)
			top = at + it[i].bytes;
	}
	free(it);
	for (size_t i = 0; i < ig->n_views; i++) {
		const struct imp_view *v = &ig->views[i];
		const struct rkb_tensor *p = &w->t[v->parent];

		w->t[v->tensor].arena_offset = p->arena_offset + (uint32_t)layout_nc1hwc2_bytes(
			rkb_tensor_prec(p), p->h, p->w, v->c_offset);
	}
	*arena = (uint32_t)layout_align(top, RKB_ARENA_ALIGN);
	return 0;
}

/* ---- the file ---- */

static int write_io(struct writer *w, const struct imp_io *src, size_t n,
		    struct rkb_io *dst)
{
	for (size_t i = 0; i < n; i++) {
		const struct imp_tensor *t = &w->ig->tensors[src[i].tensor];
		uint64_t elems = 1;

		dst[i] = (struct rkb_io){
			.name = put_str(w, src[i].name),
			.tensor = (uint32_t)src[i].tensor,
			.kind = src[i].kind == IMP_IO_FLOAT ? RKB_IO_FLOAT :
				src[i].kind == IMP_IO_UINT8 ? RKB_IO_UINT8 :
				src[i].kind == IMP_IO_INT32 ? RKB_IO_INT32 : RKB_IO_INT8,
			.layout = src[i].channels_last ? RKB_LAYOUT_NHWC : RKB_LAYOUT_NCHW,
			.rank = (uint32_t)(src[i].rank ? src[i].rank : 1),
		};
		dst[i].dims[0] = 1;
		if (src[i].rank > (int)RKB_MAX_RANK)
			return fail(w, -ENOTSUP, "'%s': rank %d (at most %u)", src[i].name,
				    src[i].rank, RKB_MAX_RANK);
		for (int d = 0; d < src[i].rank; d++) {
			int64_t v = d == 0 && src[i].dims[d] < 0 ? 1 : src[i].dims[d];

			if (v <= 0 || v > UINT32_MAX)
				return fail(w, -ENOTSUP, "'%s': dimension %d is %lld", src[i].name,
					    d, (long long)src[i].dims[d]);
			dst[i].dims[d] = (uint32_t)v;
			elems *= (uint64_t)v;
		}
		if (elems != (uint64_t)t->c * t->h * t->w)
			return fail(w, -ENOTSUP, "'%s': %llu elements at the edge, %u x %u x %u "
				    "inside", src[i].name, (unsigned long long)elems, t->c, t->h,
				    t->w);
	}
	return 0;
}

/* The file f (header and table space first, then the sections) finished:
 * the table of k sections after the header, the sizes and the CRC. */
static void seal(struct bytes *f, struct rkb_header *h, const struct rkb_section *table,
		 uint32_t k)
{
	h->section_count = k;
	h->section_offset = sizeof(*h);
	h->file_bytes = (uint32_t)f->len;
	h->crc32 = 0;
	memcpy(f->p + sizeof(*h), table, k * sizeof(table[0]));
	memcpy(f->p, h, sizeof(*h));
	h->crc32 = rkb_crc32(f->p, f->len);
	memcpy(f->p, h, sizeof(*h));
}

static int assemble(struct writer *w, const char *user, uint32_t arena, void **blob,
		    size_t *size)
{
	const struct imp_graph *ig = w->ig;
	struct rkb_plan pl = { .arena_bytes = arena, .tasks = w->tasks };
	struct {
		uint32_t type;
		const void *src;
		size_t bytes, count, align;
	} sec[] = {
		{ RKB_SEC_STRINGS, w->strings.p, w->strings.len, w->strings.len, 4 },
		{ RKB_SEC_TENSORS, w->t, ig->n_tensors * sizeof(*w->t), ig->n_tensors, 4 },
		{ RKB_SEC_OPS, w->ops, ig->n_ops * sizeof(*w->ops), ig->n_ops, 4 },
		{ RKB_SEC_INPUTS, w->in, ig->n_inputs * sizeof(*w->in), ig->n_inputs, 4 },
		{ RKB_SEC_OUTPUTS, w->out, ig->n_outputs * sizeof(*w->out), ig->n_outputs, 4 },
		{ RKB_SEC_PLAN, &pl, sizeof(pl), 1, 4 },
		{ RKB_SEC_USER, user, user ? strlen(user) + 1 : 0, user ? strlen(user) + 1 : 0,
		  4 },
		{ RKB_SEC_CONSTANTS, w->consts.p, w->consts.len, w->consts.len,
		  RKB_CONST_ALIGN },
		{ RKB_SEC_VIEWS, w->views, ig->n_views * sizeof(*w->views), ig->n_views, 4 },
	};
	const size_t n_sec = sizeof(sec) / sizeof(sec[0]) - (user ? 0 : 0);
	struct rkb_section table[sizeof(sec) / sizeof(sec[0])];
	struct bytes f = { 0 };
	struct rkb_header h = {
		.magic = RKB_MAGIC,
		.version_major = RKB_VERSION_MAJOR,
		.version_minor = RKB_VERSION_MINOR,
		.header_bytes = sizeof(h),
		.target = RKB_TARGET_RK3588,
	};
	size_t k = 0;

	if (put(&f, NULL, sizeof(h) + sizeof(table), 1) < 0)
		return fail(w, -ENOMEM, "out of memory");
	for (size_t i = 0; i < n_sec; i++) {
		long off;

		if ((sec[i].type == RKB_SEC_USER && !user) ||
		    (sec[i].type == RKB_SEC_VIEWS && !ig->n_views))
			continue;
		off = put(&f, sec[i].src, sec[i].bytes, sec[i].align);
		if (off < 0) {
			free(f.p);
			return fail(w, -EFBIG, "the container would exceed 4 GiB");
		}
		table[k++] = (struct rkb_section){ sec[i].type, (uint32_t)off,
						   (uint32_t)sec[i].bytes, (uint32_t)sec[i].count };
	}
	seal(&f, &h, table, (uint32_t)k);
	*blob = f.p;
	*size = f.len;
	return 0;
}

int model_write(const struct imp_graph *ig, const char *user, void **blob, size_t *size,
		char *err, size_t err_len)
{
	struct writer w = { .ig = ig, .err = err, .err_len = err_len };
	/* the ops as written: the importer's, fused (fuse_residuals) */
	struct imp_graph g = *ig;
	uint32_t arena = 0;
	int rc = 0;

	*blob = NULL;
	*size = 0;
	/* a container runs at least one op (docs/FORMAT.md); a graph of views
	 * alone (Reshape, Flatten of an input) leaves none */
	if (!ig->n_ops)
		return fail(&w, -ENOTSUP, "the graph has no op to run (only reshapes or "
			    "flattens of its inputs)");
	w.t = calloc(ig->n_tensors + 1, sizeof(*w.t));
	w.ops = calloc(ig->n_ops + 1, sizeof(*w.ops));
	w.in = calloc(ig->n_inputs + 1, sizeof(*w.in));
	w.out = calloc(ig->n_outputs + 1, sizeof(*w.out));
	w.written = calloc(ig->n_tensors + 1, sizeof(*w.written));
	if (!w.t || !w.ops || !w.in || !w.out || !w.written || put(&w.strings, "", 1, 1) < 0)
		rc = fail(&w, -ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < ig->n_tensors; i++) {
		const struct imp_tensor *t = &ig->tensors[i];
		enum npu_precision prec = t->fp16 ? NPU_PREC_FP16 : NPU_PREC_INT8;

		/* fp16 maps hold whole 32-channel groups (lower_conv.c); a view
		 * holds the atoms its producer writes */
		w.t[i] = (struct rkb_tensor){
			.name = put_str(&w, t->name),
			.dtype = t->int32 ? RKB_DT_INT32 : t->fp16 ? RKB_DT_FP16 : RKB_DT_INT8,
			.c = t->c, .h = t->h, .w = t->w,
			.c_mem = (uint32_t)layout_align(t->c, t->fp16 && !view_of(ig, (int)i) ?
							   LAYOUT_WEIGHT_IC_GROUP : layout_c2(prec)),
			.scale = t->scale, .zp = t->zp,
		};
	}
	g.ops = ig->n_ops ? malloc(ig->n_ops * sizeof(*g.ops)) : NULL;
	if (!rc && !g.ops)
		rc = fail(&w, -ENOMEM, "out of memory");
	if (!rc) {
		memcpy(g.ops, ig->ops, ig->n_ops * sizeof(*g.ops));
		w.ig = ig = &g;
		if (!ig->no_fusion)
			rc = fuse_residuals(&w, &g);
		else
			unfuse_tables(&g);
		cpu_converts(&g);
		apart_tables(&g);
	}
	for (size_t i = 0; !rc && i < ig->n_ops; i++)
		rc = write_op(&w, i);
	/* The input conversion writes every channel it lays out. */
	for (size_t i = 0; !rc && i < ig->n_inputs; i++)
		w.written[ig->inputs[i].tensor] = w.t[ig->inputs[i].tensor].c_mem;
	if (!rc)
		rc = fit_views(&w);
	for (size_t i = 0; !rc && i < ig->n_tensors; i++)
		w.t[i].arena_bytes = (uint32_t)layout_align(
			layout_nc1hwc2_bytes(rkb_tensor_prec(&w.t[i]), w.t[i].h, w.t[i].w,
					     w.t[i].c_mem),
			view_of(ig, (int)i) ? 1 : RKB_ARENA_ALIGN);
	if (!rc)
		rc = plan(&w, &arena);
	w.views = rc ? NULL : calloc(ig->n_views + 1, sizeof(*w.views));
	if (!rc && !w.views)
		rc = fail(&w, -ENOMEM, "out of memory");
	for (size_t i = 0; !rc && i < ig->n_views; i++)
		w.views[i] = (struct rkb_view){ (uint32_t)ig->views[i].tensor,
						(uint32_t)ig->views[i].parent,
						ig->views[i].c_offset, 0 };
	if (!rc)
		rc = write_io(&w, ig->inputs, ig->n_inputs, w.in);
	if (!rc)
		rc = write_io(&w, ig->outputs, ig->n_outputs, w.out);
	if (!rc)
		rc = assemble(&w, user, arena, blob, size);
	free(g.ops);
	free(w.t);
	free(w.ops);
	free(w.in);
	free(w.out);
	free(w.written);
	free(w.views);
	free(w.strings.p);
	free(w.consts.p);
	return rc;
}

/* The n shape sets as the SHAPES section's bytes (model_format.h). */
static int shapes_bytes(struct bytes *b, const struct rkb_model *base,
			const struct rkb_model *sets, size_t n, char *err, size_t err_len)
{
	struct writer w = { .err = err, .err_len = err_len };

	for (size_t k = 0; k < n; k++) {
		const struct rkb_model *m = &sets[k];
		struct rkb_shape_set hdr = {
			.n_tensors = m->n_tensors, .n_ops = m->n_ops,
			.n_inputs = m->n_inputs, .n_outputs = m->n_outputs, .plan = m->plan,
		};

		if (m->strings_bytes != base->strings_bytes ||
		    memcmp(m->strings, base->strings, m->strings_bytes))
			return fail(&w, -EINVAL, "shape set %zu: its names differ from set 0's", k + 1);
		if (m->const_bytes != base->const_bytes ||
		    memcmp(m->constants, base->constants, m->const_bytes))
			return fail(&w, -EINVAL, "shape set %zu: its constants differ from set 0's "
				    "(a weight depends on the input shape, as a Gemm after Flatten "
				    "does)", k + 1);
		if (m->n_views != base->n_views ||
		    (m->n_views && memcmp(m->views, base->views, m->n_views * sizeof(*m->views))))
			return fail(&w, -EINVAL, "shape set %zu: its views differ from set 0's", k + 1);
		if (m->user_bytes != base->user_bytes ||
		    (m->user_bytes && memcmp(m->user, base->user, m->user_bytes)))
			return fail(&w, -EINVAL, "shape set %zu: its user string differs", k + 1);
		if (put(b, &hdr, sizeof(hdr), 4) < 0 ||
		    put(b, m->tensors, m->n_tensors * sizeof(*m->tensors), 4) < 0 ||
		    put(b, m->ops, m->n_ops * sizeof(*m->ops), 4) < 0 ||
		    put(b, m->inputs, m->n_inputs * sizeof(*m->inputs), 4) < 0 ||
		    put(b, m->outputs, m->n_outputs * sizeof(*m->outputs), 4) < 0)
			return fail(&w, -ENOMEM, "out of memory");
	}
	return 0;
}

/* base's sections as they are, then SHAPES, under a new table and header. */
static int reassemble(const void *blob, const struct bytes *shapes, size_t n_sets,
		      struct bytes *f)
{
	struct rkb_header h;
	struct rkb_section table[RKB_SEC_TYPES_END];
	uint32_t k;

	memcpy(&h, blob, sizeof(h));
	if (h.section_count >= RKB_SEC_TYPES_END)
		return -EINVAL;
	memcpy(table, (const uint8_t *)blob + h.section_offset,
	       h.section_count * sizeof(table[0]));
	k = h.section_count;
	if (put(f, NULL, sizeof(h) + (k + 1) * sizeof(table[0]), 1) < 0)
		return -ENOMEM;
	for (uint32_t i = 0; i < k; i++) {
		size_t align = table[i].type == RKB_SEC_CONSTANTS ? RKB_CONST_ALIGN : 4;
		long off = put(f, (const uint8_t *)blob + table[i].offset, table[i].bytes, align);

		if (off < 0)
			return -ENOMEM;
		table[i].offset = (uint32_t)off;
	}
	{
		long off = put(f, shapes->p, shapes->len, 4);

		if (off < 0)
			return -ENOMEM;
		table[k++] = (struct rkb_section){ RKB_SEC_SHAPES, (uint32_t)off,
						   (uint32_t)shapes->len, (uint32_t)n_sets };
	}
	h.version_minor = RKB_VERSION_MINOR;
	seal(f, &h, table, k);
	return 0;
}

int model_add_shape_sets(void **blob, size_t *size, void *const sets[], const size_t sizes[],
			 size_t n, char *err, size_t err_len)
{
	struct writer w = { .err = err, .err_len = err_len };
	struct rkb_model base, *m = calloc(n + 1, sizeof(*m));
	struct bytes shapes = { 0 }, f = { 0 };
	size_t loaded = 0;
	int rc;

	if (!m)
		return fail(&w, -ENOMEM, "out of memory");
	rc = rkb_model_load(*blob, *size, &base, err, err_len) ? -EINVAL : 0;
	if (!rc && base.n_shapes > 1)
		rc = fail(&w, -EINVAL, "set 0 has shape sets of its own");
	for (; !rc && loaded < n; loaded++) {
		if (rkb_model_load(sets[loaded], sizes[loaded], &m[loaded], err, err_len)) {
			rc = -EINVAL;
			break;
		}
		if (m[loaded].n_shapes > 1)
			rc = fail(&w, -EINVAL, "shape set %zu has shape sets of its own", loaded + 1);
	}
	if (!rc)
		rc = shapes_bytes(&shapes, &base, m, n, err, err_len);
	if (!rc) {
		rc = reassemble(*blob, &shapes, n, &f);
		if (rc)
			fail(&w, rc, rc == -ENOMEM ? "out of memory" : "set 0: a bad section table");
	}
	if (!rc) {
		free(*blob);
		*blob = f.p;
		*size = f.len;
	} else {
		free(f.p);
	}
	for (size_t k = 0; k < loaded; k++)
		rkb_model_unload(&m[k]);
	free(m);
	free(shapes.p);
	rkb_model_unload(&base);
	return rc;
}
