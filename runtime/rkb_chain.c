/* SPDX-License-Identifier: MIT */
/*
 * rkb_chain (include/rkbare/rkb_chain.h): matmuls and adds on one-row maps,
 * lowered once into one command stream whose stages are chains of their
 * own, one npu_submit per stage run.
 *
 * Every matmul is the 1×1 convolution of compiler/lower_conv.h over an
 * input of height 1, width 1 and K channels (what lower_matmul.c and
 * rknn_matmul's int8 → int8 path lower a matmul to): its weights packed by
 * lower_conv_pack from the transposed B (OHWI = N × K), its per-channel
 * requantisation the convolution's. Adds are compiler/lower_eltwise.h's
 * DPU-only task. A one-row NC1HWC2 map of whole 32-channel groups is the
 * plain vector, so the tensors are the caller's vectors as they are.
 */
#include <errno.h>
#include <math.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "drivers/npu/npu.h"
#include "rknn_api.h"
#include "rkbare/rkb_chain.h"
#include "compiler/layout.h"
#include "compiler/lower_conv.h"
#include "compiler/lower_eltwise.h"
#include "compiler/regcmd.h"
#include "runtime/dma_pool.h"
#include "runtime/dma_verify.h"
#include "runtime/matmul_types.h"
#include "runtime/rknn_device.h"

/* Every length is whole groups of this many values (the header says why). */
#define CHAIN_LEN_ALIGN		32u
#define CHAIN_NAME_LEN		32u

struct chain_tensor {
	char name[CHAIN_NAME_LEN];
	enum rkb_chain_type type;
	unsigned int len;
	float scale;
	struct dma_buf buf;
};

/* MUL and LUT: the FP16 steps of rkb_chain_rmsnorm and rkb_chain_swiglu;
 * CONVERT: rkb_chain_convert. */
enum chain_op_kind { CHAIN_MATMUL, CHAIN_ADD, CHAIN_MUL, CHAIN_LUT, CHAIN_CONVERT };

struct chain_op {
	enum chain_op_kind kind;
	char name[CHAIN_NAME_LEN];
	unsigned int stage;
	int a, b, out;			/* tensors (b: adds and muls) */
	unsigned int k, n;
	float a_factor;			/* MUL: a's power-of-two factor (0: none) */
	struct lower_lut *lut;		/* LUT: the tables, built at the call */
	float *w_scale;			/* int8: N per-channel scales, kept for the lowering */
	/* Packed weights, the bias the int8 path reads (zeros: symmetric
	 * tensors), per-channel multipliers, input-channel split partials. */
	struct dma_buf weights, bias, mult, scratch;
};

struct chain_stage {
	size_t first, count;		/* its tasks in the program */
	struct npu_submit sub;
};

struct rkb_chain {
	struct npu_dev *dev;
	struct dma_pool *pool;
	unsigned int core, stage_count;
	bool finished, broken;
	struct chain_tensor *tensors;
	unsigned int n_tensors;
	struct chain_op *ops;
	unsigned int n_ops;
	struct chain_stage *stages;
	/* The built program: the stream, its task records and descriptors, and
	 * the buffers every kick cleans and invalidates (all tensors). */
	struct dma_buf prog;
	size_t prog_len;
	struct rc_task *rt;
	struct npu_task *tasks;
	struct npu_buf *io;
	struct rkb_chain_stats stats;
};

static const char *type_name(enum rkb_chain_type t)
{
	return t == RKB_CHAIN_FP16 ? "FP16" : t == RKB_CHAIN_INT8 ? "INT8" :
	       t == RKB_CHAIN_INT32 ? "INT32" : "unknown";
}

static size_t type_bytes(enum rkb_chain_type t)
{
	return t == RKB_CHAIN_FP16 ? 2 : t == RKB_CHAIN_INT8 ? 1 : 4;
}

static enum npu_precision type_prec(enum rkb_chain_type t)
{
	return t == RKB_CHAIN_FP16 ? NPU_PREC_FP16 : t == RKB_CHAIN_INT8 ? NPU_PREC_INT8 :
	       NPU_PREC_INT32;
}

int rkb_chain_create(struct rkb_chain **chain, const struct rkb_chain_config *cfg)
{
	struct rkb_chain *c;
	struct npu_dev *dev;
	struct dma_pool *pool;

	if (!chain || !cfg) {
		hal_err("rkb_chain_create: %s is NULL", chain ? "cfg" : "chain");
		return RKNN_ERR_PARAM_INVALID;
	}
	*chain = NULL;
	if (!cfg->stages || cfg->stages > RKB_CHAIN_MAX_STAGES) {
		hal_err("rkb_chain_create: cfg.stages = %u outside 1..%u", cfg->stages,
			RKB_CHAIN_MAX_STAGES);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (cfg->core >= NPU_CORE_COUNT) {
		hal_err("rkb_chain_create: cfg.core = %u outside 0..%u", cfg->core,
			NPU_CORE_COUNT - 1);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (!cfg->dev != !cfg->pool) {
		hal_err("rkb_chain_create: cfg.dev and cfg.pool must be both set or both NULL");
		return RKNN_ERR_PARAM_INVALID;
	}
	dev = cfg->dev;
	pool = cfg->pool;
	if (!dev) {
		int rc = rknn_device_get(&dev, &pool);

		if (rc)
			return rc;
	}
	c = calloc(1, sizeof(*c));
	if (c)
		c->stages = calloc(cfg->stages, sizeof(*c->stages));
	if (!c || !c->stages) {
		free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	c->dev = dev;
	c->pool = pool;
	c->core = cfg->core;
	c->stage_count = cfg->stages;
	*chain = c;
	return RKNN_SUCC;
}

/* A copy of the count elements of `size` bytes at old with room for one
 * more (docs/PORTING.md's C library has no realloc); old is freed on
 * success. NULL when out of memory, old untouched. */
static void *grow(void *old, size_t count, size_t size)
{
	void *p = malloc((count + 1) * size);

	if (p && count)
		memcpy(p, old, count * size);
	if (p)
		free(old);
	return p;
}

static bool name_ok(const char *who, const char *name)
{
	if (!name || !name[0] || strlen(name) >= CHAIN_NAME_LEN) {
		hal_err("%s: name must be 1..%u characters", who, CHAIN_NAME_LEN - 1);
		return false;
	}
	return true;
}

static bool len_ok(const char *who, const char *name, const char *field, unsigned int len)
{
	if (!len || len % CHAIN_LEN_ALIGN || len > RKB_CHAIN_MAX_LEN) {
		hal_err("%s '%s': %s = %u must be a non-zero multiple of %u up to %u", who, name,
			field, len, CHAIN_LEN_ALIGN, RKB_CHAIN_MAX_LEN);
		return false;
	}
	return true;
}

/* Before finish, on a chain that exists. */
static bool open_ok(const struct rkb_chain *c, const char *who)
{
	if (!c) {
		hal_err("%s: chain is NULL", who);
		return false;
	}
	if (c->finished || c->broken) {
		hal_err("%s: the chain is already %s", who, c->broken ? "broken" : "finished");
		return false;
	}
	return true;
}

int rkb_chain_tensor(struct rkb_chain *c, const char *name, enum rkb_chain_type type,
		     unsigned int len, float scale, int *id)
{
	static const char who[] = "rkb_chain_tensor";
	struct chain_tensor *grown, *t;

	if (!open_ok(c, who) || !name_ok(who, name) || !len_ok(who, name, "len", len))
		return RKNN_ERR_PARAM_INVALID;
	if (!id) {
		hal_err("%s '%s': id is NULL", who, name);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (type != RKB_CHAIN_FP16 && type != RKB_CHAIN_INT8 && type != RKB_CHAIN_INT32) {
		hal_err("%s '%s': type %d is not FP16, INT8 or INT32", who, name, (int)type);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (type == RKB_CHAIN_INT8 ? !quant_scale_ok(scale) : scale != 0.0f) {
		hal_err("%s '%s': scale %g: %s", who, name, (double)scale,
			type == RKB_CHAIN_INT8 ? "an INT8 tensor needs a positive normal scale" :
						 "only INT8 tensors have a scale (pass 0)");
		return RKNN_ERR_PARAM_INVALID;
	}
	grown = grow(c->tensors, c->n_tensors, sizeof(*grown));
	if (!grown)
		return RKNN_ERR_MALLOC_FAIL;
	c->tensors = grown;
	t = &grown[c->n_tensors];
	memset(t, 0, sizeof(*t));
	memcpy(t->name, name, strlen(name) + 1);
	t->type = type;
	t->len = len;
	t->scale = scale;
	if (dma_pool_alloc(c->pool, len * type_bytes(type), DMA_POOL_MIN_ALIGN, &t->buf))
		return RKNN_ERR_MALLOC_FAIL;
	memset(t->buf.cpu, 0, t->buf.size);
	*id = (int)c->n_tensors++;
	return RKNN_SUCC;
}

static const struct chain_tensor *tensor_at(const struct rkb_chain *c, const char *who,
					    const char *name, const char *field, int id)
{
	if (id < 0 || (unsigned int)id >= c->n_tensors) {
		hal_err("%s '%s': %s = %d is no tensor of the chain (0..%u)", who, name, field, id,
			c->n_tensors ? c->n_tensors - 1 : 0);
		return NULL;
	}
	return &c->tensors[id];
}

static bool stage_ok(const struct rkb_chain *c, const char *who, const char *name,
		     unsigned int stage)
{
	if (stage >= c->stage_count) {
		hal_err("%s '%s': stage %u outside 0..%u", who, name, stage, c->stage_count - 1);
		return false;
	}
	return true;
}

static void op_free(struct rkb_chain *c, struct chain_op *op)
{
	free(op->w_scale);
	op->w_scale = NULL;
	free(op->lut);
	op->lut = NULL;
	dma_pool_release(c->pool, &op->weights);
	dma_pool_release(c->pool, &op->bias);
	dma_pool_release(c->pool, &op->mult);
	dma_pool_release(c->pool, &op->scratch);
}

/* The op's convolution at the given addresses (0 while packing). */
static void conv_of(const struct rkb_chain *c, const struct chain_op *op, struct lower_conv_op *cv)
{
	const struct chain_tensor *a = &c->tensors[op->a], *o = &c->tensors[op->out];
	static const float one = 1.0f;

	memset(cv, 0, sizeof(*cv));
	cv->prec = a->type == RKB_CHAIN_FP16 ? NPU_PREC_FP16 : NPU_PREC_INT8;
	cv->in_h = cv->in_w = 1;
	cv->in_c = op->k;
	cv->out_c = op->n;
	cv->kh = cv->kw = cv->stride_y = cv->stride_x = 1;
	cv->act = LOWER_ACT_NONE;
	cv->min_tasks = 1;
	if (cv->prec == NPU_PREC_INT8) {
		cv->out_int32 = o->type == RKB_CHAIN_INT32;
		cv->in_scale = a->scale;
		/* raw sums: one scale, unused; requantised: the per-channel ones */
		cv->w_scale = cv->out_int32 ? &one : op->w_scale;
		cv->w_scale_count = cv->out_int32 ? 1 : op->n;
		cv->out_scale = cv->out_int32 ? 1.0f : o->scale;
	}
	cv->in_addr = c->tensors[op->a].buf.phys;
	cv->out_addr = o->buf.phys;
	cv->weight_addr = op->weights.phys;
	cv->bias_addr = op->bias.cpu ? op->bias.phys : 0;
	cv->scale_addr = op->mult.cpu ? op->mult.phys : 0;
	cv->scratch_addr = op->scratch.cpu ? op->scratch.phys : 0;
}

/* The weights as OHWI (N × K) in the NPU's element type: fp16 bits (INT4
 * dequantised) or int8. NULL when out of memory. */
static void *weights_ohwi(const struct rkb_chain_weights *w)
{
	size_t count = (size_t)w->k * w->n;
	uint16_t *h = NULL;
	int8_t *q = NULL;

	if (w->type == RKB_CHAIN_W_INT8)
		q = malloc(count);
	else
		h = malloc(count * sizeof(*h));
	if (!q && !h)
		return NULL;
	for (unsigned int k = 0; k < w->k; k++)
		for (unsigned int n = 0; n < w->n; n++) {
			size_t src = (size_t)k * w->n + n, dst = (size_t)n * w->k + k;

			if (w->type == RKB_CHAIN_W_INT8)
				q[dst] = ((const int8_t *)w->data)[src];
			else if (w->type == RKB_CHAIN_W_FP16)
				h[dst] = ((const uint16_t *)w->data)[src];
			else
				/* rknn_matmul's FP16×INT4 dequantisation, fp16(s · b) */
				h[dst] = layout_f32_to_f16(
					w->scale[(size_t)(k / w->group_size) * w->n + n] *
					(float)mm_load_int(w->data, MM_E_INT4, src));
		}
	return q ? (void *)q : (void *)h;
}

static bool weights_ok(const char *who, const char *name, const struct chain_tensor *a,
		       const struct chain_tensor *o, const struct rkb_chain_weights *w)
{
	size_t groups;

	if (!w || !w->data) {
		hal_err("%s '%s': w%s is NULL", who, name, w ? ".data" : "");
		return false;
	}
	if (w->k != a->len || w->n != o->len) {
		hal_err("%s '%s': w.k x w.n = %u x %u, but a has %u values and out %u", who, name,
			w->k, w->n, a->len, o->len);
		return false;
	}
	if (a->type == RKB_CHAIN_FP16 ?
	    (w->type != RKB_CHAIN_W_FP16 && w->type != RKB_CHAIN_W_INT4) ||
	    o->type != RKB_CHAIN_FP16 :
	    a->type != RKB_CHAIN_INT8 || w->type != RKB_CHAIN_W_INT8 ||
	    (o->type != RKB_CHAIN_INT8 && o->type != RKB_CHAIN_INT32)) {
		hal_err("%s '%s': a %s, w.type %d, out %s: supported are a FP16 with w FP16 or "
			"INT4 to out FP16, a INT8 with w INT8 to out INT8 or INT32", who, name,
			type_name(a->type), (int)w->type, type_name(o->type));
		return false;
	}
	if (w->type == RKB_CHAIN_W_FP16) {
		if (w->scale || w->group_size) {
			hal_err("%s '%s': w.scale and w.group_size are for INT8 / INT4 weights", who,
				name);
			return false;
		}
		return true;
	}
	if (w->type == RKB_CHAIN_W_INT8 && w->group_size) {
		hal_err("%s '%s': w.group_size = %u: INT8 weights are per channel (0)", who, name,
			w->group_size);
		return false;
	}
	if (w->type == RKB_CHAIN_W_INT4 &&
	    ((w->group_size != 32 && w->group_size != 64 && w->group_size != 128 &&
	      w->group_size != 256) || w->k % w->group_size)) {
		hal_err("%s '%s': w.group_size = %u must be 32, 64, 128 or 256 and divide w.k = %u",
			who, name, w->group_size, w->k);
		return false;
	}
	if (!w->scale) {
		hal_err("%s '%s': w.scale is NULL", who, name);
		return false;
	}
	groups = w->type == RKB_CHAIN_W_INT4 ? (size_t)(w->k / w->group_size) * w->n : w->n;
	for (size_t i = 0; i < groups; i++)
		if (!quant_scale_ok(w->scale[i])) {
			hal_err("%s '%s': w.scale[%zu] = %g is not a positive normal number", who,
				name, i, (double)w->scale[i]);
			return false;
		}
	return true;
}

/* Pack op's weights (and the int8 path's bias and multipliers) into NPU
 * memory: the only pass over W, at the call. */
static int op_pack(struct rkb_chain *c, struct chain_op *op, const struct rkb_chain_weights *w)
{
	struct lower_conv_op cv;
	struct lower_conv_shape s;
	void *ohwi;
	int rc = -ENOMEM;

	if (w->type == RKB_CHAIN_W_INT8) {
		op->w_scale = malloc(w->n * sizeof(float));
		if (!op->w_scale)
			return -ENOMEM;
		memcpy(op->w_scale, w->scale, w->n * sizeof(float));
	}
	conv_of(c, op, &cv);
	if (lower_conv_check(&cv, &s))
		return -EINVAL;
	ohwi = weights_ohwi(w);
	if (!ohwi)
		return -ENOMEM;
	if (dma_pool_alloc(c->pool, s.weight_bytes, DMA_POOL_MIN_ALIGN, &op->weights) ||
	    (cv.prec == NPU_PREC_INT8 &&
	     dma_pool_alloc(c->pool, s.bias_bytes, DMA_POOL_MIN_ALIGN, &op->bias)) ||
	    (s.scale_bytes &&
	     dma_pool_alloc(c->pool, s.scale_bytes, DMA_POOL_MIN_ALIGN, &op->mult)) ||
	    (s.scratch_bytes &&
	     dma_pool_alloc(c->pool, s.scratch_bytes, DMA_POOL_MIN_ALIGN, &op->scratch)))
		goto out;
	rc = lower_conv_pack(&cv, &s, ohwi, NULL, op->weights.cpu, op->bias.cpu, op->mult.cpu);
	if (rc)
		goto out;
	/* Written once by the CPU here, read by the NPU from now on: clean
	 * them now rather than at every kick. */
	hal_dcache_clean(op->weights.cpu, op->weights.size);
	if (op->bias.cpu)
		hal_dcache_clean(op->bias.cpu, op->bias.size);
	if (op->mult.cpu)
		hal_dcache_clean(op->mult.cpu, op->mult.size);
	c->stats.weight_bytes += s.weight_bytes;
	c->stats.macs += (uint64_t)op->k * op->n;
out:
	free(ohwi);
	return rc;
}

/* Append op to the chain's list (the caller filled it); frees its memory
 * when the list cannot grow. */
static int op_append(struct rkb_chain *c, struct chain_op *op)
{
	struct chain_op *grown = grow(c->ops, c->n_ops, sizeof(*grown));

	if (!grown) {
		op_free(c, op);
		return RKNN_ERR_MALLOC_FAIL;
	}
	c->ops = grown;
	c->ops[c->n_ops++] = *op;
	return RKNN_SUCC;
}

int rkb_chain_matmul(struct rkb_chain *c, unsigned int stage, const char *name, int a,
		     const struct rkb_chain_weights *w, int out)
{
	static const char who[] = "rkb_chain_matmul";
	const struct chain_tensor *ta, *to;
	struct chain_op op = { .kind = CHAIN_MATMUL, .stage = stage, .a = a, .b = -1, .out = out };
	int rc;

	if (!open_ok(c, who) || !name_ok(who, name) || !stage_ok(c, who, name, stage))
		return RKNN_ERR_PARAM_INVALID;
	ta = tensor_at(c, who, name, "a", a);
	to = ta ? tensor_at(c, who, name, "out", out) : NULL;
	if (!to || !weights_ok(who, name, ta, to, w))
		return RKNN_ERR_PARAM_INVALID;
	if (a == out) {
		hal_err("%s '%s': out is a: a matmul cannot write its own input", who, name);
		return RKNN_ERR_PARAM_INVALID;
	}
	memcpy(op.name, name, strlen(name) + 1);
	op.k = w->k;
	op.n = w->n;
	rc = op_pack(c, &op, w);
	if (rc) {
		op_free(c, &op);
		if (rc == -ENOMEM)
			return RKNN_ERR_MALLOC_FAIL;
		hal_err("%s '%s': the convolution lowering refuses it", who, name);
		return RKNN_ERR_PARAM_INVALID;
	}
	return op_append(c, &op);
}

static void add_of(const struct rkb_chain *c, const struct chain_op *op, struct lower_add_op *ad)
{
	const struct chain_tensor *a = &c->tensors[op->a], *b = &c->tensors[op->b],
				  *o = &c->tensors[op->out];

	memset(ad, 0, sizeof(*ad));
	ad->prec = type_prec(a->type);
	ad->alu = op->kind == CHAIN_MUL ? LOWER_EW_MUL : LOWER_EW_ADD;
	ad->a_factor = op->a_factor;
	ad->h = ad->w = 1;
	ad->c = a->len;
	ad->a_scale = a->scale;
	ad->b_scale = b->scale;
	ad->out_scale = o->scale;
	ad->act = LOWER_ACT_NONE;
	ad->a_addr = a->buf.phys;
	ad->b_addr = b->buf.phys;
	ad->out_addr = o->buf.phys;
}

/* out = a + b (CHAIN_ADD) or (a · a_factor) ⊙ b (CHAIN_MUL, FP16). */
/*
 * What every element-wise step checks first: the chain open, the name, the
 * stage; a, b (when the step has one) and out tensors of the chain, out
 * another than a and b, all of one length. Their element types are the
 * step's question.
 */
static bool operands_ok(const struct rkb_chain *c, const char *who, const char *name,
			unsigned int stage, int a, bool has_b, int b, int out,
			const struct chain_tensor **ta, const struct chain_tensor **tb,
			const struct chain_tensor **to)
{
	*tb = NULL;
	if (!open_ok(c, who) || !name_ok(who, name) || !stage_ok(c, who, name, stage))
		return false;
	*ta = tensor_at(c, who, name, "a", a);
	if (*ta && has_b)
		*tb = tensor_at(c, who, name, "b", b);
	*to = *ta && (!has_b || *tb) ? tensor_at(c, who, name, "out", out) : NULL;
	if (!*to)
		return false;
	if (out == a || (has_b && out == b)) {
		/* the DPU streams the operands in while it writes: whether a
		 * write can overtake a read of the same bytes is not known */
		hal_err("%s '%s': out is %s: the step writes a tensor of its own", who, name,
			out == a ? "a" : "b");
		return false;
	}
	if ((*to)->len != (*ta)->len || (*tb && (*tb)->len != (*ta)->len)) {
		hal_err("%s '%s': lengths a %u, b %u, out %u differ", who, name, (*ta)->len,
			*tb ? (*tb)->len : (*ta)->len, (*to)->len);
		return false;
	}
	return true;
}

static int ew_op(struct rkb_chain *c, enum chain_op_kind kind, const char *who, unsigned int stage,
		 const char *name, int a, int b, int out, float a_factor)
{
	const struct chain_tensor *ta, *tb, *to;
	struct chain_op op = { .kind = kind, .stage = stage, .a = a, .b = b, .out = out,
			       .a_factor = a_factor };
	struct lower_add_op ad;
	struct lower_add_params prm;

	if (!operands_ok(c, who, name, stage, a, true, b, out, &ta, &tb, &to))
		return RKNN_ERR_PARAM_INVALID;
	if (kind == CHAIN_MUL ? ta->type != RKB_CHAIN_FP16 || tb->type != ta->type ||
				to->type != ta->type :
	    ta->type == RKB_CHAIN_INT32 || tb->type != ta->type || to->type != ta->type) {
		hal_err("%s '%s': a %s, b %s, out %s: all FP16%s", who, name, type_name(ta->type),
			type_name(tb->type), type_name(to->type),
			kind == CHAIN_MUL ? "" : " or all INT8");
		return RKNN_ERR_PARAM_INVALID;
	}
	memcpy(op.name, name, strlen(name) + 1);
	op.k = op.n = ta->len;
	add_of(c, &op, &ad);
	if (lower_add_check(&ad, &prm)) {
		hal_err("%s '%s': the element-wise lowering refuses it", who, name);
		return RKNN_ERR_PARAM_INVALID;
	}
	return op_append(c, &op);
}

int rkb_chain_add(struct rkb_chain *c, unsigned int stage, const char *name, int a, int b,
		  int out)
{
	return ew_op(c, CHAIN_ADD, "rkb_chain_add", stage, name, a, b, out, 0.0f);
}

/* ---- precision conversions (rkb_chain.h) ---- */

/* The task of a conversion, from its INT8 tensor's scale (value = scale ·
 * q: symmetric). */
static void convert_of(const struct rkb_chain *c, const struct chain_op *op,
		       struct lower_scale_op *sc)
{
	const struct chain_tensor *a = &c->tensors[op->a], *o = &c->tensors[op->out];
	bool up = a->type == RKB_CHAIN_INT8;

	*sc = lower_convert_op(up ? a->scale : o->scale, 0, up, 1, 1, op->n);
	sc->in_addr = a->buf.phys;
	sc->out_addr = o->buf.phys;
}

int rkb_chain_convert(struct rkb_chain *c, unsigned int stage, const char *name, int a, int out)
{
	static const char who[] = "rkb_chain_convert";
	const struct chain_tensor *ta, *tb, *to;
	struct chain_op op = { .kind = CHAIN_CONVERT, .stage = stage, .a = a, .b = -1,
			       .out = out };
	struct lower_scale_op sc;

	if (!operands_ok(c, who, name, stage, a, false, -1, out, &ta, &tb, &to))
		return RKNN_ERR_PARAM_INVALID;
	if (!(ta->type == RKB_CHAIN_INT8 && to->type == RKB_CHAIN_FP16) &&
	    !(ta->type == RKB_CHAIN_FP16 && to->type == RKB_CHAIN_INT8)) {
		hal_err("%s '%s': a %s, out %s: INT8 to FP16 or FP16 to INT8", who, name,
			type_name(ta->type), type_name(to->type));
		return RKNN_ERR_PARAM_INVALID;
	}
	memcpy(op.name, name, strlen(name) + 1);
	op.k = op.n = ta->len;
	convert_of(c, &op, &sc);
	if (!lower_scale_fits(&sc)) {
		hal_err("%s '%s': its factor %g (the INT8 tensor's scale up, its inverse down) "
			"is outside fp16's normal range", who, name, (double)sc.factor);
		return RKNN_ERR_PARAM_INVALID;
	}
	return op_append(c, &op);
}

/* ---- the LUT steps: RMSNorm and SwiGLU (rkb_chain.h) ---- */

static void lut_of(const struct rkb_chain *c, const struct chain_op *op, struct lower_lut_op *lo)
{
	*lo = (struct lower_lut_op){
		.h = 1, .w = 1, .c = op->n, .lut = op->lut,
		.in_addr = c->tensors[op->a].buf.phys, .out_addr = c->tensors[op->out].buf.phys,
	};
}

/* out = the table lut of a (FP16, same length); the op owns lut from here,
 * freed on failure too. */
static int lut_op(struct rkb_chain *c, unsigned int stage, const char *name, int a, int out,
		  struct lower_lut *lut)
{
	struct chain_op op = { .kind = CHAIN_LUT, .stage = stage, .a = a, .b = -1, .out = out,
			       .lut = lut };
	struct lower_lut_op lo;

	memcpy(op.name, name, strlen(name) + 1);
	op.k = op.n = c->tensors[a].len;
	lut_of(c, &op, &lo);
	if (lower_lut_check(&lo)) {
		op_free(c, &op);
		hal_err("rkb_chain '%s': the lookup-table lowering refuses it", name);
		return RKNN_ERR_FAIL;
	}
	return op_append(c, &op);
}

/* name with a suffix naming a step's scratch tensor or task ("norm.sq"). */
static void step_name(char *dst, const char *name, const char *suffix)
{
	size_t n = strlen(name), m = strlen(suffix);

	if (n + m >= CHAIN_NAME_LEN)
		n = CHAIN_NAME_LEN - 1 - m;
	memcpy(dst, name, n);
	memcpy(dst + n, suffix, m + 1);
}

/* A scratch FP16 tensor of a step. */
static int scratch_tensor(struct rkb_chain *c, const char *name, const char *suffix,
			  unsigned int len, int *id)
{
	char full[CHAIN_NAME_LEN];

	step_name(full, name, suffix);
	return rkb_chain_tensor(c, full, RKB_CHAIN_FP16, len, 0.0f, id);
}

/* out = a · W for W of k × n values all equal to 2^-shift (exact in fp16:
 * shift ≤ 14, a normal number). */
static int const_matmul(struct rkb_chain *c, unsigned int stage, const char *name,
			const char *suffix, int a, int out, unsigned int k, unsigned int n,
			unsigned int shift)
{
	size_t count = (size_t)k * n;
	uint16_t *w = malloc(count * sizeof(*w));
	uint16_t v = layout_f32_to_f16(quant_pow2(-(int)shift));
	struct rkb_chain_weights cw = { .type = RKB_CHAIN_W_FP16, .k = k, .n = n, .data = w };
	char full[CHAIN_NAME_LEN];
	int rc;

	if (!w)
		return RKNN_ERR_MALLOC_FAIL;
	for (size_t i = 0; i < count; i++)
		w[i] = v;
	step_name(full, name, suffix);
	rc = rkb_chain_matmul(c, stage, full, a, &cw, out);
	free(w);
	return rc;
}

/* Undo what a failed composite step added: its ops and scratch tensors. */
static void roll_back(struct rkb_chain *c, unsigned int n_tensors, unsigned int n_ops)
{
	while (c->n_ops > n_ops)
		op_free(c, &c->ops[--c->n_ops]);
	while (c->n_tensors > n_tensors)
		dma_pool_release(c->pool, &c->tensors[--c->n_tensors].buf);
}

/* A LUT step's operands (operands_ok; b < 0: none), all FP16. */
static bool step_ok(const struct rkb_chain *c, const char *who, const char *name,
		    unsigned int stage, int a, int b, int out)
{
	const struct chain_tensor *ta, *tb, *to;

	if (!operands_ok(c, who, name, stage, a, b >= 0, b, out, &ta, &tb, &to))
		return false;
	if (ta->type != RKB_CHAIN_FP16 || to->type != RKB_CHAIN_FP16 ||
	    (tb && tb->type != RKB_CHAIN_FP16)) {
		hal_err("%s '%s': the tensors must be FP16 (the steps' tables take float "
			"inputs)", who, name);
		return false;
	}
	return true;
}

/* SiLU's table (rkb_chain.h): X = round(x · 2^12); LE [-8, 8] in steps of
 * 2^7 units (1/32), LO [-16, 16 - 1/16] in steps of 2^8 (1/16), LE where
 * both cover x; entries 2^11 · silu; above LO, slope 1 (2^11 / 2^12 = 1/2
 * an output unit an input unit), below it the entry of -16 (silu(-16) ·
 * 2^11 rounds to 0). */
#define SILU_IN_SHIFT		12
#define SILU_OUT_SHIFT		11
#define SILU_LE_SELECT		7u
#define SILU_LO_SELECT		8u
#define SILU_LE_HALF		(8 << SILU_IN_SHIFT)
#define SILU_LO_HALF		(16 << SILU_IN_SHIFT)
#define SILU_OFLOW_SCALE	1
#define SILU_OFLOW_SHIFT	(SILU_IN_SHIFT - SILU_OUT_SHIFT)

static double silu(double x, const void *ctx)
{
	return x / (1.0 + expf((float)-x));
}

int rkb_chain_swiglu(struct rkb_chain *c, unsigned int stage, const char *name, int gate,
		     int up, int out)
{
	static const char who[] = "rkb_chain_swiglu";
	unsigned int n_tensors, n_ops;
	struct lower_lut *lut;
	int g, rc;

	if (!step_ok(c, who, name, stage, gate, up, out))
		return RKNN_ERR_PARAM_INVALID;
	lut = calloc(1, sizeof(*lut));
	if (!lut)
		return RKNN_ERR_MALLOC_FAIL;
	lut->in_scale = quant_pow2(SILU_IN_SHIFT);
	lut->hybrid = NPU_LUT_TABLE_LE;
	lut->oflow = lut->uflow = NPU_LUT_TABLE_LO;
	lut->tab[NPU_LUT_TABLE_LE] = (struct lower_lut_table){
		.start = -SILU_LE_HALF, .end = SILU_LE_HALF, .select = SILU_LE_SELECT };
	lut->tab[NPU_LUT_TABLE_LO] = (struct lower_lut_table){
		.start = -SILU_LO_HALF, .end = SILU_LO_HALF - (1 << SILU_LO_SELECT),
		.select = SILU_LO_SELECT, .oflow_scale = SILU_OFLOW_SCALE,
		.oflow_shift = SILU_OFLOW_SHIFT };
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		lower_lut_fill(&lut->tab[id], lut->in_scale, quant_pow2(SILU_OUT_SHIFT), silu,
			       NULL);
	n_tensors = c->n_tensors;
	n_ops = c->n_ops;
	rc = scratch_tensor(c, name, ".silu", c->tensors[gate].len, &g);
	if (rc) {
		free(lut);
		return rc;
	}
	rc = lut_op(c, stage, name, gate, g, lut);
	if (!rc)
		rc = ew_op(c, CHAIN_MUL, who, stage, name, up, g, out,
			   quant_pow2(-SILU_OUT_SHIFT));
	if (rc)
		roll_back(c, n_tensors, n_ops);
	return rc;
}

/*
 * RMSNorm's numbers (rkb_chain.h): s = (a · 2^-p) ⊙ a with 2^p the power
 * of two at or above rms_max² / 16, so s ≤ 16 at rms_max and fp16 holds a²
 * of values up to 60 rms_max; y = Σ s · 2^-k = mean · mul with mul =
 * n / 2^(k + p); the table of g(y) = 1 / sqrt(y / mul + eps) spans [0, Y],
 * Y = 2^e, the power of two at or above rms_max² · mul (e is 3 or 4, so
 * in_scale stays an fp16 power): X = y · 2^(18 - e), LE [0, 2^14] in steps of
 * 2^5, LO [0, 2^18] in steps of 2^9; entries g · 2^q, q as large as keeps
 * g(Y / 1024) within int16 (smaller y saturate: as Y may be twice
 * rms_max² · mul, that is rms below rms_max / 22.6); the 2^q undone partly by
 * the broadcast's weights (2^-5 · 2^-t, averaging the 32 copies) and the
 * rest as a's factor in the last multiply.
 */
#define NORM_COPIES		32u	/* the mean's copies: one tensor's minimum */
#define NORM_COPIES_SHIFT	5u
#define NORM_SQ_HEADROOM	4	/* s ≤ 2^4 at rms_max */
#define NORM_SPAN_SHIFT		18	/* X units of LO's whole range: 512 << 9 */
#define NORM_LE_SELECT		5u
#define NORM_LO_SELECT		9u
#define NORM_LE_END		(1 << 14)	/* LE: Y / 16 */
#define NORM_SAT_SHIFT		10	/* saturate below Y / 2^10: rms under rms_max / 16 at worst */
#define NORM_FP16_MIN_SHIFT	14	/* 2^-14: fp16's smallest normal power */
#define NORM_FP16_MAX_SHIFT	15	/* 2^15: its largest */
#define NORM_RMS_MAX		512.0f
#define NORM_SLOPE_SHIFT_MAX	31u

struct norm_fn {
	double mul, eps;
};

static double inv_rms(double y, const void *ctx)
{
	const struct norm_fn *f = ctx;

	return 1.0 / sqrt(y / f->mul + f->eps);
}

/* The table and the shifts of RMSNorm over n values. */
static void norm_table(struct lower_lut *lut, struct norm_fn *fn, unsigned int n, float eps,
		       float rms_max, int *p, unsigned int *k, int *q)
{
	int e;
	double in_scale, slope, top, v;
	struct lower_lut_table *lo = &lut->tab[NPU_LUT_TABLE_LO];
	unsigned int sh = NORM_SLOPE_SHIFT_MAX;

	*p = quant_ceil_log2(rms_max * rms_max) - NORM_SQ_HEADROOM;
	*k = (unsigned int)quant_ceil_log2((float)n);
	fn->mul = (double)n / quant_pow2((int)*k + *p);
	fn->eps = eps;
	e = quant_ceil_log2((float)(rms_max * rms_max * fn->mul));
	in_scale = quant_pow2(NORM_SPAN_SHIFT - e);
	top = inv_rms(quant_pow2(e - NORM_SAT_SHIFT), fn);
	*q = quant_floor_log2((float)(INT16_MAX / top));
	lut->in_scale = (float)in_scale;
	lut->hybrid = NPU_LUT_TABLE_LE;
	lut->oflow = NPU_LUT_TABLE_LO;
	lut->uflow = NPU_LUT_TABLE_LE;
	lut->tab[NPU_LUT_TABLE_LE] = (struct lower_lut_table){
		.start = 0, .end = NORM_LE_END, .select = NORM_LE_SELECT };
	*lo = (struct lower_lut_table){
		.start = 0, .end = 1 << NORM_SPAN_SHIFT, .select = NORM_LO_SELECT };
	for (unsigned int id = 0; id < NPU_LUT_TABLES; id++)
		lower_lut_fill(&lut->tab[id], lut->in_scale, quant_pow2(*q), inv_rms, fn);
	/* past Y: g's slope at Y in output units an input unit, as
	 * scale >> shift with the scale as wide as int16 allows */
	v = quant_pow2(e) / fn->mul + eps;
	slope = -0.5 / fn->mul / (v * sqrt(v)) * quant_pow2(*q) / in_scale;
	while (sh && -slope * quant_pow2((int)sh) > INT16_MAX)
		sh--;
	lo->oflow_scale = (int16_t)quant_round(slope * quant_pow2((int)sh));
	lo->oflow_shift = sh;
}

int rkb_chain_rmsnorm(struct rkb_chain *c, unsigned int stage, const char *name, int a,
		      float eps, float rms_max, int out)
{
	static const char who[] = "rkb_chain_rmsnorm";
	unsigned int n_tensors, n_ops, k, n, t;
	struct lower_lut *lut;
	struct norm_fn *fn;
	int sq, mean, r, bc, p, q, rc;

	if (!step_ok(c, who, name, stage, a, -1, out))
		return RKNN_ERR_PARAM_INVALID;
	if (!(eps >= 0.0f && eps <= 1.0f) || !(rms_max >= 1.0f && rms_max <= NORM_RMS_MAX)) {
		hal_err("%s '%s': eps = %g must be in [0, 1] and rms_max = %g in [1, %g]", who,
			name, (double)eps, (double)rms_max, (double)NORM_RMS_MAX);
		return RKNN_ERR_PARAM_INVALID;
	}
	n = c->tensors[a].len;
	lut = calloc(1, sizeof(*lut));
	fn = malloc(sizeof(*fn));
	if (!lut || !fn) {
		free(lut);
		free(fn);
		return RKNN_ERR_MALLOC_FAIL;
	}
	norm_table(lut, fn, n, eps, rms_max, &p, &k, &q);
	free(fn);
	/* 2^-q split: the broadcast's weights take what a's factor cannot */
	t = q > NORM_FP16_MIN_SHIFT ? (unsigned int)q - NORM_FP16_MIN_SHIFT : 0;
	if (q < 0 || k > NORM_FP16_MIN_SHIFT || NORM_COPIES_SHIFT + t > NORM_FP16_MIN_SHIFT ||
	    p > NORM_FP16_MIN_SHIFT || -p > NORM_FP16_MAX_SHIFT) {
		free(lut);
		hal_err("%s '%s': len %u with rms_max %g needs scales past fp16's normal range",
			who, name, n, (double)rms_max);
		return RKNN_ERR_PARAM_INVALID;
	}
	n_tensors = c->n_tensors;
	n_ops = c->n_ops;
	rc = scratch_tensor(c, name, ".sq", n, &sq);
	if (!rc)
		rc = scratch_tensor(c, name, ".mean", NORM_COPIES, &mean);
	if (!rc)
		rc = scratch_tensor(c, name, ".rinv", NORM_COPIES, &r);
	if (!rc)
		rc = scratch_tensor(c, name, ".bcast", n, &bc);
	if (rc) {
		free(lut);
		roll_back(c, n_tensors, n_ops);
		return rc;
	}
	rc = ew_op(c, CHAIN_MUL, who, stage, name, a, a, sq, quant_pow2(-p));
	if (!rc)
		rc = const_matmul(c, stage, name, ".mean", sq, mean, n, NORM_COPIES, k);
	if (!rc)
		rc = lut_op(c, stage, name, mean, r, lut);
	else
		free(lut);
	if (!rc)
		rc = const_matmul(c, stage, name, ".bcast", r, bc, NORM_COPIES, n,
				  NORM_COPIES_SHIFT + t);
	if (!rc)
		rc = ew_op(c, CHAIN_MUL, who, stage, name, a, bc, out, quant_pow2(-(q - (int)t)));
	if (rc)
		roll_back(c, n_tensors, n_ops);
	return rc;
}

/* Lower op into p, or with p NULL count its tasks and the register
 * entries each may take. */
static int op_lower(const struct rkb_chain *c, const struct chain_op *op, struct rc_program *p,
		    size_t *count, size_t *body)
{
	struct lower_conv_op cv;
	struct lower_add_op ad;
	struct lower_lut_op lo;
	struct lower_scale_op sc;

	if (op->kind != CHAIN_MATMUL) {
		if (!p) {
			*count = 1;	/* one DPU task */
			*body = op->kind == CHAIN_LUT ? LUT_TASK_MAX_ENTRIES :
							ELTWISE_TASK_MAX_ENTRIES;
			return 0;
		}
		if (op->kind == CHAIN_LUT) {
			lut_of(c, op, &lo);
			return lower_lut(p, &lo);
		}
		if (op->kind == CHAIN_CONVERT) {
			convert_of(c, op, &sc);
			return lower_scale(p, &sc);
		}
		add_of(c, op, &ad);
		return lower_add(p, &ad);
	}
	conv_of(c, op, &cv);
	if (p)
		return lower_conv(p, &cv);
	*body = CONV_TASK_MAX_ENTRIES;
	return lower_conv_task_count(&cv, count);
}

static void program_free(struct rkb_chain *c)
{
	dma_pool_release(c->pool, &c->prog);
	free(c->rt);
	free(c->tasks);
	free(c->io);
	c->rt = NULL;
	c->tasks = NULL;
	c->io = NULL;
}

/* Every address stage s's tasks can touch: the tensors, the ops' buffers
 * and the stream itself. */
static int stage_verify(const struct rkb_chain *c, const struct chain_stage *st, unsigned int s)
{
	size_t n = 0, cap = c->n_tensors + 4 * (size_t)c->n_ops + 1;
	struct dv_range *owned = malloc(cap * sizeof(*owned));
	char why[192];
	int rc;

	if (!owned)
		return -ENOMEM;
	for (unsigned int i = 0; i < c->n_tensors; i++)
		owned[n++] = (struct dv_range){ c->tensors[i].buf.phys, c->tensors[i].buf.size,
						c->tensors[i].name };
	for (unsigned int i = 0; i < c->n_ops; i++) {
		const struct dma_buf *b[] = { &c->ops[i].weights, &c->ops[i].bias, &c->ops[i].mult,
					      &c->ops[i].scratch };

		for (size_t j = 0; j < sizeof(b) / sizeof(b[0]); j++)
			if (b[j]->cpu)
				owned[n++] = (struct dv_range){ b[j]->phys, b[j]->size,
								c->ops[i].name };
	}
	owned[n++] = (struct dv_range){ c->prog.phys, c->prog.size, "command stream" };
	rc = dv_check_job(c->tasks + st->first, (uint32_t)st->count, c->prog.cpu, c->prog.phys,
			  c->prog_len, owned, n, why, sizeof(why));
	free(owned);
	if (rc)
		hal_err("rkb_chain_finish: stage %u: DMA verifier: %s", s, why);
	return rc;
}

static int build(struct rkb_chain *c)
{
	struct rc_program p;
	size_t total = 0, cap = 0;

	for (unsigned int s = 0; s < c->stage_count; s++) {
		bool any = false;

		for (unsigned int i = 0; i < c->n_ops; i++)
			any |= c->ops[i].stage == s;
		if (!any) {
			hal_err("rkb_chain_finish: stage %u has no op", s);
			return RKNN_ERR_PARAM_INVALID;
		}
	}
	for (unsigned int i = 0; i < c->n_ops; i++) {
		size_t n = 0, body = 0;

		if (op_lower(c, &c->ops[i], NULL, &n, &body))
			return RKNN_ERR_PARAM_INVALID;
		total += n;
		/* linear in the task count: the ops' sizes add up */
		cap += rc_program_size(n, body);
	}
	c->rt = calloc(total, sizeof(*c->rt));
	c->tasks = calloc(total, sizeof(*c->tasks));
	c->io = calloc(c->n_tensors, sizeof(*c->io));
	if (!c->rt || !c->tasks || !c->io ||
	    dma_pool_alloc(c->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &c->prog))
		return RKNN_ERR_MALLOC_FAIL;
	for (unsigned int i = 0; i < c->n_tensors; i++)
		c->io[i] = (struct npu_buf){ c->tensors[i].buf.cpu, c->tensors[i].buf.size };
	rc_program_init(&p, c->prog.cpu, cap, c->rt, total);
	for (unsigned int s = 0; s < c->stage_count; s++) {
		struct chain_stage *st = &c->stages[s];

		st->first = p.task_count;
		for (unsigned int i = 0; i < c->n_ops; i++)
			if (c->ops[i].stage == s && op_lower(c, &c->ops[i], &p, NULL, NULL)) {
				hal_err("rkb_chain_finish: op '%s' does not lower", c->ops[i].name);
				return RKNN_ERR_FAIL;
			}
		st->count = p.task_count - st->first;
		if (p.err || rc_program_link_range(&p, c->prog.phys, st->first, st->count) ||
		    rc_program_tasks(&p, c->prog.phys, st->first, st->count, c->tasks + st->first))
			return RKNN_ERR_FAIL;
		st->sub = (struct npu_submit){
			.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG,
			.task_start = (uint32_t)st->first,
			.task_number = (uint32_t)st->count,
			.core_mask = 1u << c->core,
			.tasks = c->tasks,
			.task_count = (uint32_t)total,
			/* every tensor: cleaned before the kick (the CPU wrote
			 * the inputs), invalidated after (the NPU wrote the
			 * outputs); a one-row map is small */
			.outputs = c->io,
			.output_count = c->n_tensors,
		};
		/* BSP slot rule (drivers/npu/npu.h): one core c takes slot c */
		st->sub.subcore_task[c->core] = (struct npu_subcore_task){
			.task_start = (uint32_t)st->first, .task_number = (uint32_t)st->count,
		};
	}
	c->prog_len = p.len;
	for (unsigned int s = 0; s < c->stage_count; s++)
		if (stage_verify(c, &c->stages[s], s))
			return RKNN_ERR_FAIL;
	c->stats.tasks = (unsigned int)total;
	return RKNN_SUCC;
}

int rkb_chain_finish(struct rkb_chain *c)
{
	int rc;

	if (!open_ok(c, "rkb_chain_finish"))
		return RKNN_ERR_PARAM_INVALID;
	rc = build(c);
	if (rc) {
		program_free(c);
		c->broken = true;
		return rc;
	}
	c->finished = true;
	return RKNN_SUCC;
}

void *rkb_chain_data(struct rkb_chain *c, int id)
{
	if (!c || id < 0 || (unsigned int)id >= c->n_tensors) {
		hal_err("rkb_chain_data: %s", c ? "id is no tensor of the chain" : "chain is NULL");
		return NULL;
	}
	return c->tensors[id].buf.cpu;
}

int rkb_chain_run(struct rkb_chain *c, unsigned int stage)
{
	struct npu_submit *sub;
	uint64_t t0;
	int err;

	if (!c || !c->finished) {
		hal_err("rkb_chain_run: %s", c ? "the chain is not finished" : "chain is NULL");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (stage >= c->stage_count) {
		hal_err("rkb_chain_run: stage %u outside 0..%u", stage, c->stage_count - 1);
		return RKNN_ERR_PARAM_INVALID;
	}
	sub = &c->stages[stage].sub;
	t0 = hal_counter();
	err = npu_submit(c->dev, sub);
	c->stats.submit_ticks += hal_counter() - t0;
	c->stats.runs++;
	c->stats.hw_ticks += sub->hw_ticks;
	for (unsigned int i = 0; i < NPU_CORE_COUNT; i++)
		c->stats.kicks += sub->core[i].kicks;
	if (err) {
		hal_err("rkb_chain_run: stage %u: NPU job failed: %s", stage, npu_strerror(err));
		return err == NPU_ERR_TIMEOUT ? RKNN_ERR_TIMEOUT : RKNN_ERR_FAIL;
	}
	return RKNN_SUCC;
}

void rkb_chain_get_stats(const struct rkb_chain *c, struct rkb_chain_stats *stats)
{
	if (c && stats)
		*stats = c->stats;
}

void rkb_chain_destroy(struct rkb_chain *c)
{
	if (!c)
		return;
	program_free(c);
	for (unsigned int i = 0; i < c->n_ops; i++)
		op_free(c, &c->ops[i]);
	for (unsigned int i = 0; i < c->n_tensors; i++)
		dma_pool_release(c->pool, &c->tensors[i].buf);
	free(c->ops);
	free(c->tensors);
	free(c->stages);
	free(c);
}
