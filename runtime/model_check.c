// SPDX-License-Identifier: MIT
/*
 * The loader's checks of one shape set's records (model_check.h): every
 * tensor, input and output; every op's fields, then the op handed to the
 * same check the lowering runs (lower_*_check), whose output shape must be
 * the output tensor's and whose byte counts must be the constants' and fit
 * the tensors' arena ranges; the task count; the data flow and the plan
 * against the tensors' lifetimes. Offsets are added in 64 bits.
 */
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/model_check.h"

/* The placeholder NPU addresses the checks lower against. */
#define RKB_CHECK_ADDR		0x1000u

static bool overlap(uint64_t a, uint64_t an, uint64_t b, uint64_t bn)
{
	return an && bn && a < b + bn && b < a + an;
}

static int check_name(struct rkb_loader *l, uint32_t off, const char *what, uint32_t i)
{
	if (off >= l->m->strings_bytes)
		return fail(l, RKB_E_STRING, "%s[%u].name: offset %u outside STRINGS (%u bytes)",
			    what, i, off, l->m->strings_bytes);
	return RKB_OK;
}

static int check_tensors(struct rkb_loader *l)
{
	const struct rkb_model *m = l->m;

	for (uint32_t i = 0; i < m->n_tensors; i++) {
		const struct rkb_tensor *t = &m->tensors[i];
		int rc = check_name(l, t->name, "tensor", i);
		const char *n = m->strings + (rc ? 0 : t->name);

		if (rc)
			return rc;
		if (t->dtype != RKB_DT_INT8 && t->dtype != RKB_DT_INT32 && t->dtype != RKB_DT_FP16)
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s'.dtype: %u (int8, int32 or fp16)",
				    i, n, t->dtype);
		if (t->dtype != RKB_DT_INT8 && (t->scale != 1.0f || t->zp))
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s': %s with scale %g and zp %d "
				    "(1 and 0)", i, n, t->dtype == RKB_DT_FP16 ? "fp16" : "int32",
				    (double)t->scale, t->zp);
		if (!t->c || !t->h || !t->w || t->c > RKB_MAX_DIM || t->h > RKB_MAX_DIM ||
		    t->w > RKB_MAX_DIM || t->c_mem < t->c || t->c_mem > RKB_MAX_DIM)
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s': shape %ux%ux%u (c_mem %u) "
				    "outside 1..%u", i, n, t->c, t->h, t->w, t->c_mem, RKB_MAX_DIM);
		if (!isfinite(t->scale) || !(t->scale > 0.0f))
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s'.scale: %g is not a positive "
				    "finite number", i, n, (double)t->scale);
		if (t->zp < INT8_MIN || t->zp > INT8_MAX)
			return fail(l, RKB_E_TENSOR, "tensor[%u] '%s'.zp: %d outside int8", i, n,
				    t->zp);
		if (t->arena_offset % RKB_ARENA_ALIGN ||
		    !range_ok(t->arena_offset, t->arena_bytes, m->plan.arena_bytes) ||
		    t->arena_bytes < layout_nc1hwc2_bytes(rkb_tensor_prec(t), t->h, t->w,
							  t->c_mem))
			return fail(l, RKB_E_PLAN, "tensor[%u] '%s': %u bytes at arena offset %u "
				    "(arena %u bytes, %zu needed, %u-byte aligned)", i, n,
				    t->arena_bytes, t->arena_offset, m->plan.arena_bytes,
				    layout_nc1hwc2_bytes(rkb_tensor_prec(t), t->h, t->w, t->c_mem),
				    RKB_ARENA_ALIGN);
	}
	return RKB_OK;
}

static int check_io(struct rkb_loader *l, const struct rkb_io *io, uint32_t count,
		    const char *what)
{
	const struct rkb_model *m = l->m;

	if (!count)
		return fail(l, RKB_E_IO, "%s: none", what);
	bool output = !strcmp(what, "output");

	for (uint32_t i = 0; i < count; i++) {
		uint64_t elems = 1;
		const struct rkb_tensor *t;
		bool wide;
		int rc = check_name(l, io[i].name, what, i);

		if (rc)
			return rc;
		if (io[i].tensor >= m->n_tensors)
			return fail(l, RKB_E_IO, "%s[%u].tensor: %u of %u", what, i, io[i].tensor,
				    m->n_tensors);
		if (io[i].kind < RKB_IO_FLOAT || io[i].kind > RKB_IO_INT32)
			return fail(l, RKB_E_IO, "%s[%u].kind: %u", what, i, io[i].kind);
		/* int32 tensors are raw sums: outputs, read as int32 or float;
		 * fp16 tensors meet the user as float */
		wide = m->tensors[io[i].tensor].dtype == RKB_DT_INT32;
		if (m->tensors[io[i].tensor].dtype == RKB_DT_FP16 ? io[i].kind != RKB_IO_FLOAT :
		    wide ? io[i].kind == RKB_IO_INT8 || io[i].kind == RKB_IO_UINT8 || !output :
			   io[i].kind == RKB_IO_INT32)
			return fail(l, RKB_E_IO, "%s[%u].kind: %u for a%s %s tensor", what, i,
				    io[i].kind, output ? "n" : "n input",
				    wide ? "int32" : m->tensors[io[i].tensor].dtype == RKB_DT_FP16 ?
				    "fp16" : "int8");
		if (io[i].layout > RKB_LAYOUT_NHWC)
			return fail(l, RKB_E_IO, "%s[%u].layout: %u", what, i, io[i].layout);
		if (!io[i].rank || io[i].rank > RKB_MAX_RANK)
			return fail(l, RKB_E_IO, "%s[%u].rank: %u (1..%u)", what, i, io[i].rank,
				    RKB_MAX_RANK);
		for (uint32_t d = 0; d < io[i].rank; d++) {
			if (!io[i].dims[d] || io[i].dims[d] > RKB_MAX_DIM)
				return fail(l, RKB_E_IO, "%s[%u].dims[%u]: %u", what, i, d,
					    io[i].dims[d]);
			elems *= io[i].dims[d];
		}
		for (uint32_t d = io[i].rank; d < RKB_MAX_RANK; d++)
			if (io[i].dims[d])
				return fail(l, RKB_E_IO, "%s[%u].dims[%u]: %u past rank %u (must be "
					    "0)", what, i, d, io[i].dims[d], io[i].rank);
		t = &m->tensors[io[i].tensor];
		if (elems != (uint64_t)t->c * t->h * t->w)
			return fail(l, RKB_E_IO, "%s[%u] '%s': %llu elements, its tensor %ux%ux%u",
				    what, i, m->strings + io[i].name, (unsigned long long)elems,
				    t->c, t->h, t->w);
	}
	return RKB_OK;
}

/* ---- ops ---- */

static int check_const(struct rkb_loader *l, uint32_t i, const char *field,
		       const struct rkb_range *r, uint64_t expected)
{
	if (r->bytes != expected)
		return fail(l, RKB_E_OP, "op[%u].%s: %u bytes, the layer needs %llu", i, field,
			    r->bytes, (unsigned long long)expected);
	if (r->bytes && (r->offset % RKB_CONST_ALIGN ||
			 !range_ok(r->offset, r->bytes, l->m->const_bytes)))
		return fail(l, RKB_E_OP, "op[%u].%s: %u bytes at %u outside CONSTANTS (%u bytes, "
			    "%u-byte aligned)", i, field, r->bytes, r->offset, l->m->const_bytes,
			    RKB_CONST_ALIGN);
	return RKB_OK;
}

static const struct rkb_op_addrs check_addrs = {
	.in = { RKB_CHECK_ADDR, RKB_CHECK_ADDR }, .out = RKB_CHECK_ADDR,
	.weights = RKB_CHECK_ADDR, .bias = RKB_CHECK_ADDR, .mult = RKB_CHECK_ADDR,
	.scratch = RKB_CHECK_ADDR,
};

static enum lower_act act_of(uint32_t act)
{
	switch (act) {
	case RKB_ACT_RELU: return LOWER_ACT_RELU;
	case RKB_ACT_RELU6: return LOWER_ACT_RELU6;
	case RKB_ACT_CLIP: return LOWER_ACT_CLIP;
	default: return LOWER_ACT_NONE;
	}
}

void rkb_conv_op(const struct rkb_model *m, const struct rkb_op *op,
		 const struct rkb_op_addrs *a, struct lower_conv_op *c)
{
	const struct rkb_tensor *in = &m->tensors[op->in[0]], *out = &m->tensors[op->out];

	*c = (struct lower_conv_op){
		.prec = in->dtype == RKB_DT_FP16 ? NPU_PREC_FP16 : NPU_PREC_INT8,
		.out_int32 = out->dtype == RKB_DT_INT32,
		.in_h = in->h, .in_w = in->w, .in_c = in->c, .out_c = out->c,
		.kh = op->kh, .kw = op->kw, .stride_y = op->stride_y, .stride_x = op->stride_x,
		.explicit_pads = true,
		.pad_top = op->pad_top, .pad_left = op->pad_left,
		.pad_bottom = op->pad_bottom, .pad_right = op->pad_right,
		.depthwise = op->flags & RKB_OP_F_DEPTHWISE,
		.pow2_requant = op->flags & RKB_OP_F_POW2,
		.in_scale = in->scale, .in_zp = in->zp,
		.w_scale = (const float *)(const void *)(m->constants + op->w_scale.offset),
		.w_scale_count = op->w_scale_count, .w_zp = op->w_zp,
		.out_scale = out->scale, .out_zp = out->zp,
		.act = act_of(op->act), .act_min = op->act_min, .act_max = op->act_max,
		.in_addr = a->in[0], .weight_addr = a->weights, .bias_addr = a->bias,
		.out_addr = a->out, .scale_addr = a->mult, .scratch_addr = a->scratch,
	};
}

void rkb_pool_op(const struct rkb_model *m, const struct rkb_op *op,
		 const struct rkb_op_addrs *a, struct lower_pool_op *p)
{
	const struct rkb_tensor *in = &m->tensors[op->in[0]];

	*p = (struct lower_pool_op){
		.prec = rkb_tensor_prec(in),
		.method = op->pool == RKB_POOL_MAX ? LOWER_POOL_MAX : LOWER_POOL_AVG,
		.in_h = in->h, .in_w = in->w, .c = in->c,
		.kh = op->kh, .kw = op->kw, .stride_y = op->stride_y, .stride_x = op->stride_x,
		.explicit_pads = true,
		.pad_top = op->pad_top, .pad_left = op->pad_left,
		.pad_bottom = op->pad_bottom, .pad_right = op->pad_right,
		/* an average counts padding as real zero (docs/FORMAT.md) */
		.count_padding = true, .pad_value = in->zp,
		.in_addr = a->in[0], .out_addr = a->out,
	};
}

void rkb_add_op(const struct rkb_model *m, const struct rkb_op *op,
		const struct rkb_op_addrs *a, struct lower_add_op *e)
{
	const struct rkb_tensor *x = &m->tensors[op->in[0]], *y = &m->tensors[op->in[1]];
	const struct rkb_tensor *out = &m->tensors[op->out];

	*e = (struct lower_add_op){
		.prec = rkb_tensor_prec(out),
		.h = out->h, .w = out->w, .c = out->c,
		.a_scale = x->scale, .b_scale = y->scale, .out_scale = out->scale,
		.a_zp = x->zp, .b_zp = y->zp, .out_zp = out->zp,
		.act = act_of(op->act),
		.a_addr = a->in[0], .b_addr = a->in[1], .out_addr = a->out,
	};
}

/* Does tensor t hold at least `bytes` and `c_aligned` channels? */
static int check_fits(struct rkb_loader *l, uint32_t i, const char *role, uint32_t t,
		      unsigned int c_aligned, size_t bytes)
{
	const struct rkb_tensor *x = &l->m->tensors[t];

	if (x->c_mem < c_aligned || x->arena_bytes < bytes)
		return fail(l, RKB_E_PLAN, "op[%u] %s '%s': %u channels / %u bytes in memory, "
			    "the layer uses %u / %zu", i, role, l->m->strings + x->name,
			    x->c_mem, x->arena_bytes, c_aligned, bytes);
	return RKB_OK;
}

static int check_out_shape(struct rkb_loader *l, uint32_t i, unsigned int c, unsigned int h,
			   unsigned int w)
{
	const struct rkb_tensor *o = &l->m->tensors[l->m->ops[i].out];

	if (o->c != c || o->h != h || o->w != w)
		return fail(l, RKB_E_OP, "op[%u]: output '%s' is %ux%ux%u, the layer makes "
			    "%ux%ux%u", i, l->m->strings + o->name, o->c, o->h, o->w, c, h, w);
	return RKB_OK;
}

/*
 * Element types around op i: int8 ops read and write int8 (a convolution
 * may write int32 sums); fp16 ops (convolution, pool, add, CPU ops) read
 * and write fp16; nothing reads int32.
 */
static int check_dtypes(struct rkb_loader *l, uint32_t i)
{
	const struct rkb_model *m = l->m;
	const struct rkb_op *op = &m->ops[i];
	uint32_t in = m->tensors[op->in[0]].dtype, out = m->tensors[op->out].dtype;
	bool in1_ok = op->in[1] == RKB_NONE || m->tensors[op->in[1]].dtype == in;

	if (in == RKB_DT_FP16 && in1_ok && out == RKB_DT_FP16)
		return RKB_OK;
	if (in == RKB_DT_INT8 && in1_ok &&
	    (out == RKB_DT_INT8 || (out == RKB_DT_INT32 && op->type == RKB_OP_CONV)))
		return RKB_OK;
	return fail(l, RKB_E_OP, "op[%u]: element types %u -> %u: int8 ops stay int8 (a "
		    "convolution may write int32), fp16 ops stay fp16, nothing reads int32",
		    i, in, out);
}

static int check_conv(struct rkb_loader *l, uint32_t i, size_t *tasks)
{
	const struct rkb_model *m = l->m;
	const struct rkb_op *op = &m->ops[i];
	const struct rkb_tensor *out = &m->tensors[op->out];
	bool fp16 = out->dtype == RKB_DT_FP16;
	struct lower_conv_shape s;
	struct lower_conv_op c;
	int rc;

	if (op->in[1] != RKB_NONE || op->pool ||
	    (op->flags & ~(RKB_OP_F_DEPTHWISE | RKB_OP_F_POW2)))
		return fail(l, RKB_E_OP, "op[%u]: conv with a second input, pool method or "
			    "unknown flags", i);
	if (fp16 ? op->w_scale_count || op->w_zp || op->mult.bytes :
		   op->w_scale_count != 1 && op->w_scale_count != out->c)
		return fail(l, RKB_E_OP, "op[%u].w_scale_count: %u (%s)", i, op->w_scale_count,
			    fp16 ? "0, without weight zero point or multipliers, for fp16" :
			    "1 or the output channels");
	rc = check_const(l, i, "w_scale", &op->w_scale,
			 (uint64_t)op->w_scale_count * sizeof(float));
	if (rc)
		return rc;
	for (uint32_t k = 0; k < op->w_scale_count; k++) {
		float v;

		memcpy(&v, m->constants + op->w_scale.offset + k * sizeof(v), sizeof(v));
		if (!isfinite(v) || !(v > 0.0f))
			return fail(l, RKB_E_OP, "op[%u] weight scale %u: %g is not a positive "
				    "finite number", i, k, (double)v);
	}
	if (op->act == RKB_ACT_CLIP && (!isfinite(op->act_min) || !isfinite(op->act_max) ||
					 !(op->act_min <= op->act_max)))
		return fail(l, RKB_E_OP, "op[%u]: clip range [%g, %g]", i, (double)op->act_min,
			    (double)op->act_max);
	rkb_conv_op(m, op, &check_addrs, &c);
	if (lower_conv_check(&c, &s))
		return fail(l, RKB_E_OP, "op[%u] '%s': the convolution lowering refuses it "
			    "(%ux%ux%u -> %u, kernel %ux%u, stride %ux%u)", i,
			    m->strings + op->name, c.in_c, c.in_h, c.in_w, c.out_c, c.kh, c.kw,
			    c.stride_y, c.stride_x);
	rc = check_out_shape(l, i, c.out_c, s.out_h, s.out_w);
	if (!rc)
		rc = check_const(l, i, "weights", &op->weights, s.weight_bytes);
	/* an fp16 convolution may go without bias */
	if (!rc && (!fp16 || op->bias.bytes))
		rc = check_const(l, i, "bias", &op->bias, s.bias_bytes);
	if (!rc)
		rc = check_const(l, i, "mult", &op->mult, s.scale_bytes);
	if (!rc && op->scratch_bytes != s.scratch_bytes)
		rc = fail(l, RKB_E_OP, "op[%u].scratch_bytes: %u, the layer needs %zu", i,
			  op->scratch_bytes, s.scratch_bytes);
	if (!rc && op->scratch_bytes &&
	    (op->scratch_offset % RKB_ARENA_ALIGN ||
	     !range_ok(op->scratch_offset, op->scratch_bytes, m->plan.arena_bytes)))
		rc = fail(l, RKB_E_PLAN, "op[%u]: %u scratch bytes at %u outside the arena", i,
			  op->scratch_bytes, op->scratch_offset);
	if (!rc)
		rc = check_fits(l, i, "input", op->in[0], s.in_c_aligned, s.in_bytes);
	if (!rc)
		rc = check_fits(l, i, "output", op->out, s.out_c_aligned, s.out_bytes);
	if (!rc && lower_conv_task_count(&c, tasks))
		rc = fail(l, RKB_E_OP, "op[%u]: cannot count its tasks", i);
	return rc;
}

static int check_pool(struct rkb_loader *l, uint32_t i, size_t *tasks)
{
	const struct rkb_model *m = l->m;
	const struct rkb_op *op = &m->ops[i];
	const struct rkb_tensor *in = &m->tensors[op->in[0]], *out = &m->tensors[op->out];
	struct lower_pool_shape s;
	struct lower_pool_op p;
	int rc;

	if (op->in[1] != RKB_NONE || op->flags || op->act || op->weights.bytes ||
	    op->bias.bytes || op->mult.bytes || op->w_scale.bytes || op->scratch_bytes ||
	    (op->pool != RKB_POOL_AVG && op->pool != RKB_POOL_MAX))
		return fail(l, RKB_E_OP, "op[%u]: pool with conv fields or method %u", i,
			    op->pool);
	/* The PPU does not requantise: in and out share their quantisation. */
	if (in->scale != out->scale || in->zp != out->zp)
		return fail(l, RKB_E_OP, "op[%u]: pool input and output quantisation differ", i);
	rkb_pool_op(m, op, &check_addrs, &p);
	if (lower_pool_check(&p, &s))
		return fail(l, RKB_E_OP, "op[%u] '%s': the pooling lowering refuses it", i,
			    m->strings + op->name);
	rc = check_out_shape(l, i, p.c, s.out_h, s.out_w);
	if (!rc)
		rc = check_fits(l, i, "input", op->in[0], in->c, s.in_bytes);
	if (!rc)
		rc = check_fits(l, i, "output", op->out, out->c, s.out_bytes);
	*tasks = 1;
	return rc;
}

/* A CPU op: a type name, one or two inputs, its parameters in `weights`, no NPU
 * fields. Whether an implementation exists is the runtime's question
 * (rkb_ctx_create), as it depends on what the application registered. */
static int check_cpu(struct rkb_loader *l, uint32_t i, size_t *tasks)
{
	const struct rkb_op *op = &l->m->ops[i];
	int rc = check_name(l, op->cpu_type, "op cpu_type", i);

	if (rc)
		return rc;
	if (!l->m->strings[op->cpu_type])
		return fail(l, RKB_E_OP, "op[%u]: CPU op without a type", i);
	if (op->flags || op->act || op->pool || op->w_zp ||
	    op->w_scale_count || op->w_scale.bytes || op->bias.bytes || op->mult.bytes ||
	    op->scratch_bytes || op->scratch_offset || op->kh || op->kw || op->stride_y ||
	    op->stride_x || op->pad_top || op->pad_left || op->pad_bottom || op->pad_right)
		return fail(l, RKB_E_OP, "op[%u]: CPU op '%s' with NPU fields", i,
			    l->m->strings + op->cpu_type);
	*tasks = 0;
	return check_const(l, i, "weights (parameters)", &op->weights, op->weights.bytes);
}

static int check_add(struct rkb_loader *l, uint32_t i, size_t *tasks)
{
	const struct rkb_model *m = l->m;
	const struct rkb_op *op = &m->ops[i];
	struct lower_add_params prm;
	struct lower_add_op e;
	size_t bytes;
	int rc;

	if (op->in[1] >= m->n_tensors || op->flags || op->pool || op->weights.bytes ||
	    op->bias.bytes || op->mult.bytes || op->w_scale.bytes || op->scratch_bytes ||
	    op->act == RKB_ACT_CLIP)
		return fail(l, RKB_E_OP, "op[%u]: add with conv fields, a clip or no second "
			    "input", i);
	rkb_add_op(m, op, &check_addrs, &e);
	for (int k = 0; k < 2; k++) {
		const struct rkb_tensor *x = &m->tensors[op->in[k]];

		if (x->c != e.c || x->h != e.h || x->w != e.w)
			return fail(l, RKB_E_OP, "op[%u]: add input %d is %ux%ux%u, the output "
				    "%ux%ux%u", i, k, x->c, x->h, x->w, e.c, e.h, e.w);
	}
	if (lower_add_check(&e, &prm))
		return fail(l, RKB_E_OP, "op[%u] '%s': the element-wise lowering refuses it", i,
			    m->strings + op->name);
	bytes = layout_nc1hwc2_bytes(e.prec, e.h, e.w, e.c);
	rc = check_fits(l, i, "input", op->in[0], e.c, bytes);
	if (!rc)
		rc = check_fits(l, i, "input", op->in[1], e.c, bytes);
	if (!rc)
		rc = check_fits(l, i, "output", op->out, e.c, bytes);
	*tasks = 1;
	return rc;
}

/*
 * Data flow: ops in execution order, each input written before (by an op
 * or as a graph input), each tensor written once, every output written.
 * Plan: nothing an op writes (output, scratch) overlaps a tensor that is
 * still to be read, or a graph output; and no two tensors whose lifetimes
 * meet share arena bytes (docs/FORMAT.md: from the op that writes one, or
 * the start for a graph input, to the last op that reads it, or the end
 * for a graph output), two graph inputs included, which no op writes.
 */
static int check_flow(struct rkb_loader *l)
{
	const struct rkb_model *m = l->m;
	int32_t *def = malloc(m->n_tensors * sizeof(*def));
	int32_t *last = malloc(m->n_tensors * sizeof(*last));
	int rc = RKB_OK;

	if (!def || !last) {
		rc = fail(l, RKB_E_NOMEM, "out of memory");
		goto out;
	}
	for (uint32_t t = 0; t < m->n_tensors; t++)
		def[t] = last[t] = INT32_MIN;
	for (uint32_t i = 0; i < m->n_inputs; i++) {
		if (def[m->inputs[i].tensor] != INT32_MIN) {
			rc = fail(l, RKB_E_IO, "input[%u]: its tensor is another input's", i);
			goto out;
		}
		def[m->inputs[i].tensor] = -1;
	}
	for (uint32_t i = 0; i < m->n_ops && !rc; i++) {
		const struct rkb_op *op = &m->ops[i];

		for (int k = 0; k < 2 && !rc; k++)
			if (op->in[k] != RKB_NONE) {
				if (def[op->in[k]] == INT32_MIN)
					rc = fail(l, RKB_E_OP, "op[%u]: input '%s' is not written "
						  "before it", i, m->strings + m->tensors[op->in[k]].name);
				last[op->in[k]] = (int32_t)i;
			}
		if (!rc && def[op->out] != INT32_MIN)
			rc = fail(l, RKB_E_OP, "op[%u]: output '%s' is written twice", i,
				  m->strings + m->tensors[op->out].name);
		def[op->out] = (int32_t)i;
	}
	for (uint32_t i = 0; i < m->n_outputs && !rc; i++) {
		if (def[m->outputs[i].tensor] == INT32_MIN)
			rc = fail(l, RKB_E_IO, "output[%u] '%s': never written", i,
				  m->strings + m->outputs[i].name);
		last[m->outputs[i].tensor] = (int32_t)m->n_ops;
	}
	for (uint32_t i = 0; i < m->n_ops && !rc; i++) {
		const struct rkb_op *op = &m->ops[i];
		const struct rkb_tensor *o = &m->tensors[op->out];

		for (uint32_t t = 0; t < m->n_tensors && !rc; t++) {
			const struct rkb_tensor *x = &m->tensors[t];

			if (def[t] == INT32_MIN || def[t] >= (int32_t)i || last[t] < (int32_t)i)
				continue;	/* not live while op i runs */
			if (overlap(o->arena_offset, o->arena_bytes, x->arena_offset,
				    x->arena_bytes) ||
			    overlap(op->scratch_offset, op->scratch_bytes, x->arena_offset,
				    x->arena_bytes))
				rc = fail(l, RKB_E_PLAN, "op[%u] writes over '%s', which is still "
					  "read later", i, m->strings + x->name);
		}
		if (!rc && overlap(op->scratch_offset, op->scratch_bytes, o->arena_offset,
				   o->arena_bytes))
			rc = fail(l, RKB_E_PLAN, "op[%u]: scratch overlaps its output", i);
	}
	for (uint32_t t = 0; t < m->n_tensors && !rc; t++) {
		const struct rkb_tensor *x = &m->tensors[t];
		/* written and never read: live while its op runs */
		int32_t end_t = last[t] == INT32_MIN ? def[t] : last[t];

		if (def[t] == INT32_MIN)
			continue;
		for (uint32_t u = t + 1; u < m->n_tensors && !rc; u++) {
			const struct rkb_tensor *y = &m->tensors[u];
			int32_t end_u = last[u] == INT32_MIN ? def[u] : last[u];

			if (def[u] == INT32_MIN || def[t] > end_u || def[u] > end_t)
				continue;	/* lifetimes do not meet */
			if (overlap(x->arena_offset, x->arena_bytes, y->arena_offset,
				    y->arena_bytes))
				rc = fail(l, RKB_E_PLAN, "tensors '%s' and '%s' share arena bytes "
					  "while both are live", m->strings + x->name,
					  m->strings + y->name);
		}
	}
out:
	free(def);
	free(last);
	return rc;
}

/*
 * The fields an op's type does not use are 0 (docs/FORMAT.md): the weight
 * fields and constant ranges outside convolutions (a CPU op's parameters
 * are its `weights`), the pool method outside pools, the activation of a
 * pool, the scratch outside convolutions, and an empty range's or
 * scratch's offset. Each is refused by name.
 */
static int check_unused_zero(struct rkb_loader *l, uint32_t i)
{
	const struct rkb_op *op = &l->m->ops[i];
	bool conv = op->type == RKB_OP_CONV, cpu = op->type == RKB_OP_CPU;
	const struct {
		const char *name;
		uint32_t value;
		bool used;
	} f[] = {
		{ "pool", op->pool, op->type == RKB_OP_POOL },
		{ "act", op->act, op->type != RKB_OP_POOL && !cpu },
		{ "w_zp", (uint32_t)op->w_zp, conv },
		{ "w_scale_count", op->w_scale_count, conv },
		{ "w_scale.offset", op->w_scale.offset, conv && op->w_scale.bytes },
		{ "w_scale.bytes", op->w_scale.bytes, conv },
		{ "weights.offset", op->weights.offset, (conv || cpu) && op->weights.bytes },
		{ "weights.bytes", op->weights.bytes, conv || cpu },
		{ "bias.offset", op->bias.offset, conv && op->bias.bytes },
		{ "bias.bytes", op->bias.bytes, conv },
		{ "mult.offset", op->mult.offset, conv && op->mult.bytes },
		{ "mult.bytes", op->mult.bytes, conv },
		{ "scratch_offset", op->scratch_offset, conv && op->scratch_bytes },
		{ "scratch_bytes", op->scratch_bytes, conv },
	};

	if (op->type < RKB_OP_CONV || op->type > RKB_OP_CPU)
		return RKB_OK;	/* the type itself is refused (check_ops) */
	for (size_t k = 0; k < sizeof(f) / sizeof(f[0]); k++)
		if (!f[k].used && f[k].value)
			return fail(l, RKB_E_OP, "op[%u].%s: %u, must be 0 for this op", i,
				    f[k].name, f[k].value);
	return RKB_OK;
}

static int check_ops(struct rkb_loader *l)
{
	const struct rkb_model *m = l->m;
	uint64_t tasks = 0;

	if (!m->n_ops)
		return fail(l, RKB_E_OP, "OPS: no ops");
	for (uint32_t i = 0; i < m->n_ops; i++) {
		const struct rkb_op *op = &m->ops[i];
		size_t n = 0;
		int rc = check_name(l, op->name, "op", i);

		if (rc)
			return rc;
		if (op->in[0] >= m->n_tensors || op->out >= m->n_tensors ||
		    (op->in[1] != RKB_NONE && op->in[1] >= m->n_tensors))
			return fail(l, RKB_E_OP, "op[%u]: tensor index out of range (%u tensors)", i,
				    m->n_tensors);
		if (op->reserved)
			return fail(l, RKB_E_OP, "op[%u].reserved: not zero", i);
		if (op->cpu_type && op->type != RKB_OP_CPU)
			return fail(l, RKB_E_OP, "op[%u].cpu_type: set on an NPU op", i);
		if (op->act > RKB_ACT_CLIP)
			return fail(l, RKB_E_OP, "op[%u].act: %u", i, op->act);
		rc = check_unused_zero(l, i);
		if (rc)
			return rc;
		if (!op->kh || !op->kw || op->kh > RKB_MAX_KERNEL || op->kw > RKB_MAX_KERNEL ||
		    !op->stride_y || !op->stride_x || op->stride_y > RKB_MAX_KERNEL ||
		    op->stride_x > RKB_MAX_KERNEL || op->pad_top >= op->kh ||
		    op->pad_bottom >= op->kh || op->pad_left >= op->kw ||
		    op->pad_right >= op->kw) {
			if (op->type != RKB_OP_ADD && op->type != RKB_OP_CPU)
				return fail(l, RKB_E_OP, "op[%u]: kernel %ux%u stride %ux%u pads "
					    "%u,%u,%u,%u", i, op->kh, op->kw, op->stride_y,
					    op->stride_x, op->pad_top, op->pad_left,
					    op->pad_bottom, op->pad_right);
		}
		rc = check_dtypes(l, i);
		if (rc)
			return rc;
		switch (op->type) {
		case RKB_OP_CONV: rc = check_conv(l, i, &n); break;
		case RKB_OP_POOL: rc = check_pool(l, i, &n); break;
		case RKB_OP_ADD: rc = check_add(l, i, &n); break;
		case RKB_OP_CPU: rc = check_cpu(l, i, &n); break;
		default: rc = fail(l, RKB_E_OP, "op[%u].type: %u", i, op->type); break;
		}
		if (rc)
			return rc;
		tasks += n;
	}
	if (tasks != m->plan.tasks)
		return fail(l, RKB_E_PLAN, "plan.tasks: %u, the ops lower to %llu",
			    m->plan.tasks, (unsigned long long)tasks);
	return check_flow(l);
}

/* An edge of set k is the same edge as in set 0: name, kind, layout and
 * rank; only the dimensions may differ. */
static int check_same_edges(struct rkb_loader *l, const struct rkb_io *a, const struct rkb_io *b,
			    uint32_t count, const char *what)
{
	for (uint32_t i = 0; i < count; i++)
		if (a[i].name != b[i].name || a[i].kind != b[i].kind ||
		    a[i].layout != b[i].layout || a[i].rank != b[i].rank)
			return fail(l, RKB_E_IO, "%s[%u]: name, kind, layout or rank differ from "
				    "shape set 0's", what, i);
	return RKB_OK;
}

/* Every check, on the records of the selected set. */
int rkb_check_set(struct rkb_loader *l)
{
	struct rkb_model *m = l->m;
	int rc;

	if (m->plan.reserved[0] || m->plan.reserved[1])
		return fail(l, RKB_E_PLAN, "plan.reserved: not zero");
	rc = check_tensors(l);
	if (!rc)
		rc = check_io(l, m->inputs, m->n_inputs, "input");
	if (!rc)
		rc = check_io(l, m->outputs, m->n_outputs, "output");
	if (!rc && l->set) {
		rc = check_same_edges(l, m->inputs, m->shapes[0].inputs, m->n_inputs, "input");
		if (!rc)
			rc = check_same_edges(l, m->outputs, m->shapes[0].outputs, m->n_outputs,
					      "output");
	}
	if (!rc)
		rc = check_ops(l);
	return rc;
}
