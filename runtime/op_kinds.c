// SPDX-License-Identifier: MIT
/*
 * The op-kind table (op_kinds.h) and each type's functions: the mapping of
 * a record to the lowering's op, what the lowering makes of it, the
 * loader's checks and the lowering call. A new type is a row here with its
 * functions (docs/ARCHITECTURE.md "How to add an op").
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compiler/layout.h"
#include "runtime/cpu_ops.h"
#include "runtime/model_check.h"
#include "runtime/npu_fn.h"
#include "runtime/op_kinds.h"

static enum lower_act act_of(uint32_t act)
{
	switch (act) {
	case RKB_ACT_RELU: return LOWER_ACT_RELU;
	case RKB_ACT_RELU6: return LOWER_ACT_RELU6;
	case RKB_ACT_CLIP: return LOWER_ACT_CLIP;
	default: return LOWER_ACT_NONE;
	}
}

/*
 * The channels a DPU or PPU task fed from memory writes: its cube's, not
 * the lanes past them in the last atom (the model leaves those as they
 * were; whether the silicon writes them, and with what, is unpublished).
 * An fp16 map must then keep its zeroed bytes to itself: a stale int8 byte
 * pair there can read as an fp16 NaN, and NaN times a zero weight is NaN.
 * An int8 map counts whole atoms: an int8 lane holds no NaN, and the
 * weights past the channels are zero (an asymmetric weight zero point's
 * term covers them as it covers every padded lane, A11).
 */
static unsigned int flying_written(unsigned int c, enum npu_precision prec)
{
	return prec == NPU_PREC_FP16 ? c : (unsigned int)layout_align(c, layout_c2(prec));
}

/* Op i's scratch: the `need` bytes its lowering asks for (0: none), placed
 * aligned inside the arena. */
static int check_scratch(struct rkb_loader *l, uint32_t i, size_t need)
{
	const struct rkb_op *op = &l->m->ops[i];

	if (op->scratch_bytes != need)
		return fail(l, RKB_E_OP, "op[%u].scratch_bytes: %u, the op needs %zu", i,
			    op->scratch_bytes, need);
	if (op->scratch_bytes &&
	    (op->scratch_offset % RKB_ARENA_ALIGN ||
	     !range_ok(op->scratch_offset, op->scratch_bytes, l->m->plan.arena_bytes)))
		return fail(l, RKB_E_PLAN, "op[%u]: %u scratch bytes at %u outside the arena", i,
			    op->scratch_bytes, op->scratch_offset);
	return 0;
}

/* ---- conv: convolution, depthwise, fully connected (lower_conv.h) ---- */

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
		.w_scale = op->w_scale_count ?
			   (const float *)(const void *)(m->constants + op->w_scale.offset) : NULL,
		.w_scale_count = op->w_scale_count, .w_zp = op->w_zp,
		.out_scale = out->scale, .out_zp = out->zp,
		.act = act_of(op->act), .act_min = op->act_min, .act_max = op->act_max,
		.in_addr = a->in[0], .weight_addr = a->weights, .bias_addr = a->bias,
		.out_addr = a->out, .scale_addr = a->mult, .scratch_addr = a->scratch,
	};
	/* in[1]: the residual added before the activation (docs/FORMAT.md) */
	if (op->in[1] != RKB_NONE) {
		const struct rkb_tensor *r = &m->tensors[op->in[1]];

		c->residual = true;
		c->res_addr = a->in[1];
		c->res_scale = r->scale;
		c->res_zp = r->zp;
	}
}

/* A conv's residual: a map of the output's shape and element type. */
static bool conv_res_ok(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_tensor *r = &m->tensors[op->in[1]], *o = &m->tensors[op->out];

	return op->in[1] == RKB_NONE ||
	       (r->c == o->c && r->h == o->h && r->w == o->w && r->dtype == o->dtype &&
		o->dtype != RKB_DT_INT32);
}

static int conv_shape(const struct rkb_model *m, const struct rkb_op *op, struct rkb_op_shape *r)
{
	struct lower_conv_shape s;
	struct lower_conv_op c;
	uint64_t taps = (uint64_t)op->kh * op->kw;

	*r = (struct rkb_op_shape){ 0 };
	if (!conv_res_ok(m, op))
		return -1;
	rkb_conv_op(m, op, &rkb_check_addrs, &c);
	if (lower_conv_check(&c, &s) || lower_conv_task_count(&c, &r->tasks))
		return -1;
	/* the residual is read as the output is written: whole kernel groups */
	r->in2_c_mem = c.residual ? s.out_c_aligned : 0;
	/* The kernels write out_c_aligned lanes, fewer than an fp16 map's
	 * 32-channel groups when out_c % 32 is 1..16: the writer's plan then
	 * keeps the map's bytes to itself, so the lanes past the kernels stay
	 * zero. Shared, they would hold another tensor's bytes — an int8 map's
	 * can read as an fp16 NaN — and a later fp16 convolution multiplies
	 * every lane of its input, by a zero weight there: NaN. */
	r->in_c_mem = s.in_c_aligned;
	r->out_c_mem = s.out_c_aligned;
	r->out_c_written = s.out_c_aligned;
	r->scratch_bytes = s.scratch_bytes;
	r->read_bytes = s.in_bytes + s.weight_bytes + s.bias_bytes + s.scale_bytes + s.res_bytes;
	r->write_bytes = s.out_bytes;
	r->useful_macs = (uint64_t)s.out_h * s.out_w * c.out_c * taps * (c.depthwise ? 1 : c.in_c);
	r->issued_macs = (uint64_t)s.out_h * s.out_w * s.out_c_aligned * taps *
			 (c.depthwise ? 1 : s.in_c_aligned);
	r->fp16 = c.prec == NPU_PREC_FP16;
	return 0;
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

	if (op->pool || (op->flags & ~(RKB_OP_F_DEPTHWISE | RKB_OP_F_POW2)))
		return fail(l, RKB_E_OP, "op[%u]: conv with a pool method or unknown flags", i);
	if (!conv_res_ok(m, op))
		return fail(l, RKB_E_OP, "op[%u]: conv residual (in[1]) of another shape or "
			    "element type than the output", i);
	if (fp16 ? op->w_scale_count || op->w_zp || op->mult.bytes :
		   op->w_scale_count != 1 && op->w_scale_count != out->c)
		return fail(l, RKB_E_OP, "op[%u].w_scale_count: %u (%s)", i, op->w_scale_count,
			    fp16 ? "0, without weight zero point or multipliers, for fp16" :
			    "1 or the output channels");
	rc = rkb_check_const(l, i, "w_scale", &op->w_scale,
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
	rkb_conv_op(m, op, &rkb_check_addrs, &c);
	if (lower_conv_check(&c, &s))
		return fail(l, RKB_E_OP, "op[%u] '%s': the convolution lowering refuses it "
			    "(%ux%ux%u -> %u, kernel %ux%u, stride %ux%u)", i,
			    m->strings + op->name, c.in_c, c.in_h, c.in_w, c.out_c, c.kh, c.kw,
			    c.stride_y, c.stride_x);
	rc = rkb_check_out_shape(l, i, c.out_c, s.out_h, s.out_w);
	if (!rc)
		rc = rkb_check_const(l, i, "weights", &op->weights, s.weight_bytes);
	/* an fp16 convolution may go without bias */
	if (!rc && (!fp16 || op->bias.bytes))
		rc = rkb_check_const(l, i, "bias", &op->bias, s.bias_bytes);
	if (!rc)
		rc = rkb_check_const(l, i, "mult", &op->mult, s.scale_bytes);
	if (!rc)
		rc = check_scratch(l, i, s.scratch_bytes);
	if (!rc)
		rc = rkb_check_fits(l, i, "input", op->in[0], s.in_c_aligned, s.in_bytes);
	if (!rc)
		rc = rkb_check_fits(l, i, "output", op->out, s.out_c_aligned, s.out_bytes);
	if (!rc && c.residual)
		rc = rkb_check_fits(l, i, "residual", op->in[1], s.out_c_aligned, s.res_bytes);
	if (!rc && lower_conv_task_count(&c, tasks))
		rc = fail(l, RKB_E_OP, "op[%u]: cannot count its tasks", i);
	return rc;
}

static int lower_conv_kind(const struct rkb_model *m, const struct rkb_op *op,
			   const struct rkb_op_addrs *a, unsigned int cores, struct rc_program *p,
			   size_t *count)
{
	struct lower_conv_op conv;

	rkb_conv_op(m, op, a, &conv);
	conv.min_tasks = cores;
	return p ? lower_conv(p, &conv) : lower_conv_task_count(&conv, count);
}

/* ---- pool: max or average pooling on the PPU (lower_pool.h) ---- */

static void pool_lowering(const struct rkb_model *m, const struct rkb_op *op,
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

static int pool_shape(const struct rkb_model *m, const struct rkb_op *op, struct rkb_op_shape *r)
{
	struct lower_pool_shape s;
	struct lower_pool_op p;

	pool_lowering(m, op, &rkb_check_addrs, &p);
	if (op->pool != RKB_POOL_AVG && op->pool != RKB_POOL_MAX)
		return -1;
	if (lower_pool_check(&p, &s))
		return -1;
	*r = (struct rkb_op_shape){
		.tasks = 1,
		.out_c_written = flying_written(p.c, p.prec),
		.read_bytes = s.in_bytes, .write_bytes = s.out_bytes,
		.fp16 = p.prec == NPU_PREC_FP16,
	};
	return 0;
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
	pool_lowering(m, op, &rkb_check_addrs, &p);
	if (lower_pool_check(&p, &s))
		return fail(l, RKB_E_OP, "op[%u] '%s': the pooling lowering refuses it", i,
			    m->strings + op->name);
	rc = rkb_check_out_shape(l, i, p.c, s.out_h, s.out_w);
	if (!rc)
		rc = rkb_check_fits(l, i, "input", op->in[0], in->c, s.in_bytes);
	if (!rc)
		rc = rkb_check_fits(l, i, "output", op->out, out->c, s.out_bytes);
	*tasks = 1;
	return rc;
}

static int lower_pool_kind(const struct rkb_model *m, const struct rkb_op *op,
			   const struct rkb_op_addrs *a, unsigned int cores, struct rc_program *p,
			   size_t *count)
{
	struct lower_pool_op pool;

	if (!p) {
		*count = 1;	/* one task on any number of cores */
		return 0;
	}
	pool_lowering(m, op, a, &pool);
	return lower_pool(p, &pool);
}

/* ---- add: element-wise add of two maps of one shape (lower_eltwise.h) ---- */

static void add_lowering(const struct rkb_model *m, const struct rkb_op *op,
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

/* Both inputs of the output's shape (no broadcasting on the NPU). */
static bool add_same_shapes(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_tensor *o = &m->tensors[op->out];

	for (int k = 0; k < 2; k++) {
		const struct rkb_tensor *x = &m->tensors[op->in[k]];

		if (x->c != o->c || x->h != o->h || x->w != o->w)
			return false;
	}
	return true;
}

static int add_shape(const struct rkb_model *m, const struct rkb_op *op, struct rkb_op_shape *r)
{
	struct lower_add_params prm;
	struct lower_add_op e;
	size_t bytes;

	if (op->in[1] == RKB_NONE || !add_same_shapes(m, op) || op->act == RKB_ACT_CLIP)
		return -1;
	add_lowering(m, op, &rkb_check_addrs, &e);
	if (lower_add_check(&e, &prm))
		return -1;
	bytes = layout_nc1hwc2_bytes(e.prec, e.h, e.w, e.c);
	*r = (struct rkb_op_shape){
		.tasks = 1,
		.out_c_written = flying_written(e.c, e.prec),
		.read_bytes = 2 * bytes, .write_bytes = bytes,
		.fp16 = e.prec == NPU_PREC_FP16,
	};
	return 0;
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
	add_lowering(m, op, &rkb_check_addrs, &e);
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
	rc = rkb_check_fits(l, i, "input", op->in[0], e.c, bytes);
	if (!rc)
		rc = rkb_check_fits(l, i, "input", op->in[1], e.c, bytes);
	if (!rc)
		rc = rkb_check_fits(l, i, "output", op->out, e.c, bytes);
	*tasks = 1;
	return rc;
}

static int lower_add_kind(const struct rkb_model *m, const struct rkb_op *op,
			  const struct rkb_op_addrs *a, unsigned int cores, struct rc_program *p,
			  size_t *count)
{
	struct lower_add_op add;

	if (!p) {
		*count = 1;	/* one task on any number of cores */
		return 0;
	}
	add_lowering(m, op, a, &add);
	return lower_add(p, &add);
}

/* ---- lut: a function through the DPU's lookup table ---- */

/*
 * fp16 maps: the record holds the function (npu_fn.h), two tasks. int8
 * maps: it holds the 256-entry table the CPU's Lut would (cpu_ops.h), one
 * task looking each value up (lower_lut_int8).
 */

static bool lut_is_int8(const struct rkb_model *m, const struct rkb_op *op)
{
	return m->tensors[op->in[0]].dtype == RKB_DT_INT8;
}

/* The record's function (Unary's parameters: int32 fn, float32 a, b);
 * false when `weights` does not hold them. */
static bool lut_fn(const struct rkb_model *m, const struct rkb_op *op, int32_t *fn, float *a,
		   float *b)
{
	const uint8_t *p = m->constants + op->weights.offset;

	if (op->weights.bytes != RKB_CPU_UNARY_BYTES ||
	    (uint64_t)op->weights.offset + op->weights.bytes > m->const_bytes)
		return false;
	memcpy(fn, p, sizeof(*fn));
	memcpy(a, p + sizeof(*fn), sizeof(*a));
	memcpy(b, p + sizeof(*fn) + sizeof(*a), sizeof(*b));
	return true;
}

/* The record's int8 table, or NULL when `weights` does not hold one. */
static const int8_t *lut_table(const struct rkb_model *m, const struct rkb_op *op)
{
	if (op->weights.bytes != LOWER_LUT_INT8_VALUES ||
	    (uint64_t)op->weights.offset + op->weights.bytes > m->const_bytes)
		return NULL;
	return (const int8_t *)(m->constants + op->weights.offset);
}

/* In and out maps of one shape, both fp16 or both int8. */
static bool lut_maps_ok(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_tensor *x = &m->tensors[op->in[0]], *o = &m->tensors[op->out];

	return (x->dtype == RKB_DT_FP16 || x->dtype == RKB_DT_INT8) && o->dtype == x->dtype &&
	       x->c == o->c && x->h == o->h && x->w == o->w;
}

static enum npu_precision lut_prec(const struct rkb_model *m, const struct rkb_op *op)
{
	return lut_is_int8(m, op) ? NPU_PREC_INT8 : NPU_PREC_FP16;
}

static size_t lut_map_bytes(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_tensor *o = &m->tensors[op->out];

	return layout_nc1hwc2_bytes(lut_prec(m, op), o->h, o->w, o->c);
}

/* The function the record holds is one the lowering takes. */
static bool lut_params_ok(const struct rkb_model *m, const struct rkb_op *op)
{
	int32_t fn = 0;
	float a = 0.0f, b = 0.0f;

	if (lut_is_int8(m, op))
		return lut_table(m, op) != NULL;
	return lut_fn(m, op, &fn, &a, &b) && rkb_npu_fn_ok(fn, a, b);
}

/* fp16: the table into the scratch map, then its scale (npu_fn.h); int8:
 * the table alone. */
static int lut_shape(const struct rkb_model *m, const struct rkb_op *op, struct rkb_op_shape *r)
{
	const struct rkb_tensor *o = &m->tensors[op->out];
	enum npu_precision prec = lut_prec(m, op);
	size_t bytes = lut_map_bytes(m, op);

	if (!lut_maps_ok(m, op) || !lut_params_ok(m, op) ||
	    !lower_eltwise_dims_ok(o->h, o->w, o->c))
		return -1;
	*r = (struct rkb_op_shape){
		.tasks = 1,
		.out_c_written = flying_written(o->c, prec),
		.read_bytes = bytes, .write_bytes = bytes,
	};
	if (prec == NPU_PREC_FP16) {
		r->tasks = 2;
		r->scratch_bytes = bytes;
		/* x, the table's map twice (written, read), and x again (times x) */
		r->read_bytes = 3 * bytes;
		r->write_bytes = 2 * bytes;
		r->fp16 = true;
	}
	return 0;
}

/* op i's last task uses the LUT: an int8 lut's only task (an fp16 lut
 * ends with its scale). */
static bool ends_with_lut(const struct rkb_model *m, uint32_t i)
{
	return m->ops[i].type == RKB_OP_LUT && lut_is_int8(m, &m->ops[i]);
}

static int check_lut(struct rkb_loader *l, uint32_t i, size_t *tasks)
{
	const struct rkb_model *m = l->m;
	const struct rkb_op *op = &m->ops[i];
	const struct rkb_tensor *o = &m->tensors[op->out];
	bool int8 = lut_is_int8(m, op);
	size_t bytes = lut_map_bytes(m, op);
	int32_t fn = 0;
	float a = 0.0f, b = 0.0f;
	int rc;

	if (!lut_maps_ok(m, op))
		return fail(l, RKB_E_OP, "op[%u]: lut on maps other than two fp16 or two int8 "
			    "ones of one shape", i);
	if (!lower_eltwise_dims_ok(o->h, o->w, o->c))
		return fail(l, RKB_E_OP, "op[%u] '%s': a %ux%ux%u map: the DPU's cube takes 1..%u "
			    "a side", i, m->strings + op->name, o->c, o->h, o->w,
			    LOWER_ELTWISE_MAX_DIM);
	/* the table is one per core, and the PC may program a task's
	 * registers, its upload included, while the task before it runs */
	if (i > 0 && ends_with_lut(m, i - 1))
		return fail(l, RKB_E_OP, "op[%u] '%s': a lookup-table task right after op[%u]'s "
			    "would overwrite the table in use (HARDWARE.md §4.4)", i,
			    m->strings + op->name, i - 1);
	if (int8) {
		rc = rkb_check_const(l, i, "weights (table)", &op->weights, LOWER_LUT_INT8_VALUES);
		if (!rc)
			rc = check_scratch(l, i, 0);
		*tasks = 1;
	} else {
		rc = rkb_check_const(l, i, "weights (parameters)", &op->weights,
				     RKB_CPU_UNARY_BYTES);
		if (!rc && (!lut_fn(m, op, &fn, &a, &b) || !rkb_npu_fn_ok(fn, a, b)))
			return fail(l, RKB_E_OP, "op[%u] '%s': function %d (a %g, b %g) is not "
				    "one the lookup table runs (runtime/npu_fn.h)", i,
				    m->strings + op->name, (int)fn, (double)a, (double)b);
		if (!rc)
			rc = check_scratch(l, i, bytes);
		*tasks = 2;
	}
	if (!rc)
		rc = rkb_check_fits(l, i, "input", op->in[0], o->c, bytes);
	if (!rc)
		rc = rkb_check_fits(l, i, "output", op->out, o->c, bytes);
	return rc;
}

static int lower_lut_kind(const struct rkb_model *m, const struct rkb_op *op,
			  const struct rkb_op_addrs *a, unsigned int cores, struct rc_program *p,
			  size_t *count)
{
	const struct rkb_tensor *o = &m->tensors[op->out];
	struct lower_lut *lut;
	struct lower_lut_op lo = { .h = o->h, .w = o->w, .c = o->c,
				   .in_addr = a->in[0], .out_addr = a->scratch };
	float factor = quant_pow2(-RKB_NPU_FN_OUT_SHIFT), fa = 0.0f, fb = 0.0f;
	const int8_t *table = lut_table(m, op);
	bool times_x = false, int8 = lut_is_int8(m, op);
	int32_t fn = 0;
	int rc;

	if (!p) {
		*count = int8 ? 1 : 2;	/* on any number of cores */
		return 0;
	}
	/* the tables (2 KiB) off the stack: a kernel's may be small */
	lut = malloc(sizeof(*lut));
	if (!lut)
		return -ENOMEM;
	lo.lut = lut;
	if (int8) {
		rc = table ? 0 : -EINVAL;
		if (!rc) {
			lower_lut_int8(table, lut);
			lo.int8 = true;
			lo.out_addr = a->out;
		}
	} else {
		rc = lut_fn(m, op, &fn, &fa, &fb) ? rkb_npu_fn_table(fn, fa, fb, lut, &times_x) :
						     -EINVAL;
	}
	if (!rc)
		rc = lower_lut(p, &lo);
	free(lut);
	if (rc || int8)
		return rc;
	if (times_x) {
		struct lower_add_op mul = {
			.prec = NPU_PREC_FP16, .alu = LOWER_EW_MUL, .a_factor = factor,
			.h = o->h, .w = o->w, .c = o->c,
			.a_addr = a->in[0], .b_addr = a->scratch, .out_addr = a->out,
			.after_previous = true,
		};

		return lower_add(p, &mul);
	}
	return lower_scale(p, &(struct lower_scale_op){ .h = o->h, .w = o->w, .c = o->c,
			   .factor = factor, .in_addr = a->scratch, .out_addr = a->out,
			   .after_previous = true });
}

/* ---- convert: an int8 map into fp16 or the reverse in the DPU
 * (lower_scale's conversions, UNSURE: sim/ASSUMPTIONS.md A41), as the CPU's
 * Cast computes it but for the factor's fp16 rounding ---- */

static bool convert_maps_ok(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_tensor *a = &m->tensors[op->in[0]], *o = &m->tensors[op->out];

	return op->in[1] == RKB_NONE && a->c == o->c && a->h == o->h && a->w == o->w &&
	       ((a->dtype == RKB_DT_INT8 && o->dtype == RKB_DT_FP16) ||
		(a->dtype == RKB_DT_FP16 && o->dtype == RKB_DT_INT8));
}

/* The int8 side of a convert between maps the caller checked: real =
 * scale × (q − zp) there (model_format.h). */
static const struct rkb_tensor *convert_int8_side(const struct rkb_model *m,
						  const struct rkb_op *op)
{
	const struct rkb_tensor *a = &m->tensors[op->in[0]];

	return a->dtype == RKB_DT_INT8 ? a : &m->tensors[op->out];
}

static bool convert_ok(const struct rkb_model *m, const struct rkb_op *op)
{
	const struct rkb_tensor *o = &m->tensors[op->out], *q;

	if (!convert_maps_ok(m, op))
		return false;
	q = convert_int8_side(m, op);
	return lower_convert_fits(q->scale, q->zp, q != o, o->h, o->w, o->c);
}

/* One task, writing what flying_written says. */
static int convert_shape(const struct rkb_model *m, const struct rkb_op *op,
			 struct rkb_op_shape *r)
{
	const struct rkb_tensor *a = &m->tensors[op->in[0]], *o = &m->tensors[op->out];

	if (!convert_ok(m, op))
		return -1;
	*r = (struct rkb_op_shape){
		.tasks = 1, .out_c_written = flying_written(o->c, rkb_tensor_prec(o)),
		.read_bytes = layout_nc1hwc2_bytes(rkb_tensor_prec(a), a->h, a->w, a->c),
		.write_bytes = layout_nc1hwc2_bytes(rkb_tensor_prec(o), o->h, o->w, o->c),
	};
	return 0;
}

static int check_convert(struct rkb_loader *l, uint32_t i, size_t *tasks)
{
	const struct rkb_model *m = l->m;
	const struct rkb_op *op = &m->ops[i];
	const struct rkb_tensor *a = &m->tensors[op->in[0]], *o = &m->tensors[op->out];
	int rc;

	if (!convert_maps_ok(m, op))
		return fail(l, RKB_E_OP, "op[%u] '%s': convert between maps other than an int8 "
			    "and an fp16 one of one shape", i, m->strings + op->name);
	if (!convert_ok(m, op))
		return fail(l, RKB_E_OP, "op[%u] '%s': a %ux%ux%u map with the int8 side's scale "
			    "%g, zero point %d: the DPU's cube takes 1..%u a side, the scale and "
			    "its inverse fp16's normal range, the zero point -128..127", i,
			    m->strings + op->name, o->c, o->h, o->w,
			    (double)convert_int8_side(m, op)->scale,
			    (int)convert_int8_side(m, op)->zp, LOWER_ELTWISE_MAX_DIM);
	*tasks = 1;
	/* no scratch: the row uses none, which check_unused_zero holds at 0 */
	rc = rkb_check_fits(l, i, "input", op->in[0], a->c,
			    layout_nc1hwc2_bytes(rkb_tensor_prec(a), a->h, a->w, a->c));
	if (!rc)
		rc = rkb_check_fits(l, i, "output", op->out, o->c,
				    layout_nc1hwc2_bytes(rkb_tensor_prec(o), o->h, o->w, o->c));
	return rc;
}

static int lower_convert_kind(const struct rkb_model *m, const struct rkb_op *op,
			      const struct rkb_op_addrs *a, unsigned int cores,
			      struct rc_program *p, size_t *count)
{
	const struct rkb_tensor *o = &m->tensors[op->out], *q = convert_int8_side(m, op);
	struct lower_scale_op sc = lower_convert_op(q->scale, q->zp, q != o, o->h, o->w, o->c);

	if (!p) {
		*count = 1;	/* on any number of cores */
		return 0;
	}
	sc.in_addr = a->in[0];
	sc.out_addr = a->out;
	return lower_scale(p, &sc);
}

/* ---- cpu: an op the CPU runs between NPU stages (cpu_ops.h) ---- */

static int cpu_shape(const struct rkb_model *m, const struct rkb_op *op, struct rkb_op_shape *r)
{
	/* the runtime writes every lane of the output (model_run.c run_cpu) */
	*r = (struct rkb_op_shape){ .out_c_written = m->tensors[op->out].c_mem };
	return 0;
}

/* A CPU op: a type name, one or two inputs, its parameters in `weights`, no NPU
 * fields. Whether an implementation exists is the runtime's question
 * (rkb_ctx_create), as it depends on what the application registered. */
static int check_cpu(struct rkb_loader *l, uint32_t i, size_t *tasks)
{
	const struct rkb_op *op = &l->m->ops[i];
	int rc = rkb_check_name(l, op->cpu_type, "op cpu_type", i);

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
	return rkb_check_const(l, i, "weights (parameters)", &op->weights, op->weights.bytes);
}

/* ---- the table ---- */

#define LUT_KIND_TASK_ENTRIES \
	((LUT_TASK_MAX_ENTRIES + ELTWISE_TASK_MAX_ENTRIES) / 2 + RC_TASK_ALIGN_QWORDS)
_Static_assert(LUT_INT8_TASK_MAX_ENTRIES <= LUT_KIND_TASK_ENTRIES,
	       "an int8 lut's task fits the row's entries");

const struct rkb_op_kind rkb_op_kinds[] = {
	{
		.type = RKB_OP_CONV, .name = "conv", .engine = RKB_ENGINE_NPU,
		.task_entries = CONV_TASK_MAX_ENTRIES,
		.uses = RKB_USES_IN2 | RKB_USES_WINDOW | RKB_USES_ACT | RKB_USES_FLAGS |
			RKB_USES_WQUANT | RKB_USES_WEIGHTS | RKB_USES_BIAS | RKB_USES_SCRATCH,
		.dtypes = RKB_DTYPES_FP16 | RKB_DTYPES_INT32_OUT,
		.check = check_conv, .shape = conv_shape, .lower = lower_conv_kind,
	},
	{
		.type = RKB_OP_ADD, .name = "add", .engine = RKB_ENGINE_NPU,
		.task_entries = ELTWISE_TASK_MAX_ENTRIES,
		.uses = RKB_USES_IN2 | RKB_USES_ACT,
		.dtypes = RKB_DTYPES_FP16,
		.check = check_add, .shape = add_shape, .lower = lower_add_kind,
	},
	{
		.type = RKB_OP_POOL, .name = "pool", .engine = RKB_ENGINE_NPU,
		.task_entries = POOL_TASK_MAX_ENTRIES,
		.uses = RKB_USES_WINDOW | RKB_USES_POOL,
		.dtypes = RKB_DTYPES_FP16,
		.check = check_pool, .shape = pool_shape, .lower = lower_pool_kind,
	},
	{
		.type = RKB_OP_CPU, .name = "cpu", .engine = RKB_ENGINE_CPU,
		.uses = RKB_USES_IN2 | RKB_USES_WEIGHTS | RKB_USES_CPU_TYPE,
		/* the CPU ops run on int8 and fp16 maps */
		.dtypes = RKB_DTYPES_FP16 | RKB_DTYPES_CAST,
		.check = check_cpu, .shape = cpu_shape, .lower = NULL,
	},
	{
		.type = RKB_OP_LUT, .name = "lut", .engine = RKB_ENGINE_NPU,
		/* fp16: the table's task and the scale's, their mean and one
		 * task alignment for the two to round up into; int8's one task
		 * uploads fewer entries (LUT_INT8_TASK_MAX_ENTRIES) */
		.task_entries = LUT_KIND_TASK_ENTRIES,
		.uses = RKB_USES_PARAMS | RKB_USES_SCRATCH,
		.dtypes = RKB_DTYPES_FP16,
		.check = check_lut, .shape = lut_shape, .lower = lower_lut_kind,
	},
	{
		.type = RKB_OP_CONVERT, .name = "convert", .engine = RKB_ENGINE_NPU,
		.task_entries = ELTWISE_TASK_MAX_ENTRIES,
		.uses = 0,
		.dtypes = RKB_DTYPES_CAST,
		.check = check_convert, .shape = convert_shape, .lower = lower_convert_kind,
	},
};

const size_t rkb_op_kind_count = sizeof(rkb_op_kinds) / sizeof(rkb_op_kinds[0]);

const struct rkb_op_kind *rkb_op_kind_of(uint32_t type)
{
	for (size_t i = 0; i < rkb_op_kind_count; i++)
		if (rkb_op_kinds[i].type == type)
			return &rkb_op_kinds[i];
	return NULL;
}

const char *rkb_op_kind_list(char *buf, size_t len)
{
	size_t at = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (size_t i = 0; i < rkb_op_kind_count && at < len; i++) {
		int n = snprintf(buf + at, len - at, "%s%s %u", i ? ", " : "",
				 rkb_op_kinds[i].name, rkb_op_kinds[i].type);

		if (n < 0)
			break;
		at += (size_t)n;
	}
	return buf;
}
