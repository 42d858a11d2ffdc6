// SPDX-License-Identifier: MIT
/*
 * Memory an application gives an rknn context (rknn_api.h): an input or
 * output in its own buffer (rknn_set_io_mem, zero copy), the activation
 * arena and the weights (rknn_set_internal_mem, rknn_set_weight_mem), and
 * the weights a duplicate shares with its original (rknn_dup_context).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "runtime/model_format.h"
#include "runtime/rknn_ctx.h"
#include "runtime/rknn_device.h"
#include "runtime/rknn_handle.h"

void rknn_shared_put(struct shared_weights *sw)
{
	struct npu_dev *dev;
	struct dma_pool *pool;
	bool last;

	if (!sw)
		return;
	rknn_device_lock();
	last = !--sw->users;
	rknn_device_unlock();
	if (!last || rknn_device_get(&dev, &pool))
		return;
	dma_pool_free(pool, &sw->buf);
	free(sw);
}

void rknn_release_mem(rknn_tensor_mem **slot)
{
	if (*slot)
		rknn_mem_drop(*slot);
	*slot = NULL;
}

int rknn_ctx_check_mem(const struct rknn_ctx *c, const char *who)
{
	for (uint32_t i = 0; i < c->n_edges; i++)
		if (c->bound[i] && !rknn_mem_buf(c->bound[i], who))
			return RKNN_ERR_PARAM_INVALID;
	if ((c->internal && !rknn_mem_buf(c->internal, who)) ||
	    (c->weights && !rknn_mem_buf(c->weights, who)))
		return RKNN_ERR_PARAM_INVALID;
	return RKNN_SUCC;
}

/* *slot, which keeps memory the NPU may reach, now holds mem, which
 * rknn_mem_hold counted: the old memory's binding ends (rknn_destroy_mem). */
static void adopt_mem(rknn_tensor_mem **slot, rknn_tensor_mem *mem)
{
	rknn_release_mem(slot);
	*slot = mem;
}

/* c's constants, in the pool buffer c already has, become the buffer its
 * duplicates share: no second copy. */
static int share_weights(struct rknn_ctx *c)
{
	const struct rkb_model *m = rkb_ctx_model(c->rkb);
	struct shared_weights *sw;

	if (c->shared || c->weights || !m->const_bytes)
		return RKNN_SUCC;
	sw = calloc(1, sizeof(*sw));
	if (!sw)
		return RKNN_ERR_MALLOC_FAIL;
	if (rkb_ctx_take_constants(c->rkb, &sw->buf)) {
		free(sw);
		return RKNN_ERR_CTX_INVALID;	/* the context owns its constants until here */
	}
	sw->users = 1;
	c->shared = sw;
	return RKNN_SUCC;
}

/*
 * A context on the same model buffer with its own arena and command stream
 * and the weights of the first: one copy of the constants in DMA memory
 * for both, freed with the last of them (or the application's weight
 * memory, rknn_set_weight_mem, shared the same way). The duplicate is
 * created without constants of its own and lowered once they are given,
 * so the pool never holds a second copy, not even for a moment.
 */
static int dup_context(struct rknn_ctx *c, rknn_context *context_out)
{
	const struct rkb_model *m;
	struct rknn_ctx *d;
	const struct dma_buf *wbuf;
	char err[160];
	int rc;

	rknn_finish_frame(c);	/* no frame may be in flight */
	m = rkb_ctx_model(c->rkb);
	rc = share_weights(c);
	if (!rc)
		rc = rknn_ctx_create(c->model, c->model_size, c->flags,
				     m->const_bytes ? RKB_CTX_CONSTANTS_OUTSIDE : 0u,
				     c->model_copy, &d);
	if (rc)
		return rc;
	*context_out = d->handle;
	if (!m->const_bytes)
		return RKNN_SUCC;
	wbuf = c->shared ? &c->shared->buf : rknn_mem_hold(c->weights, "rknn_dup_context");
	err[0] = '\0';
	if (!wbuf || rkb_ctx_set_constants(d->rkb, wbuf->cpu, wbuf->phys,
					   c->shared ? wbuf->size : c->weights->size, err,
					   sizeof(err))) {
		hal_err("rknn_dup_context: %s", err);
		if (wbuf && !c->shared)
			rknn_mem_drop(c->weights);
		rknn_ctx_free(d);
		*context_out = 0;
		return RKNN_ERR_MALLOC_FAIL;
	}
	if (c->shared) {
		d->shared = c->shared;
		rknn_device_lock();
		d->shared->users++;
		rknn_device_unlock();
	} else {
		adopt_mem(&d->weights, c->weights);
	}
	return RKNN_SUCC;
}

int rknn_dup_context(rknn_context *context_in, rknn_context *context_out)
{
	struct rknn_ctx *c;
	rknn_context h;
	int rc;

	if (!context_in || !context_out) {
		hal_err("rknn_dup_context: a context and a place for the duplicate are needed");
		return RKNN_ERR_CTX_INVALID;
	}
	h = *context_in;	/* context_out may be context_in */
	rc = rknn_ctx_enter(h, "rknn_dup_context", &c);
	if (rc)
		return rc;
	rc = dup_context(c, context_out);
	rknn_ctx_leave(h);
	return rc;
}

/* The arena (internal) or the constants (weights) into mem (at least the
 * MEM_SIZE query's total_internal_size / total_weight_size). */
static int set_model_mem(struct rknn_ctx *c, rknn_tensor_mem *mem, bool internal)
{
	const char *who = internal ? "rknn_set_internal_mem" : "rknn_set_weight_mem";
	const struct dma_buf *buf = rknn_mem_hold(mem, who);
	char err[160];
	int rc;

	if (!buf)
		return RKNN_ERR_PARAM_INVALID;
	rknn_finish_frame(c);	/* the program changes: no frame may be in flight */
	/* the pool's record of the buffer, not the caller's fields */
	rc = internal ? rkb_ctx_set_arena(c->rkb, buf->cpu, buf->phys, mem->size, err,
					  sizeof(err)) :
			rkb_ctx_set_constants(c->rkb, buf->cpu, buf->phys, mem->size, err,
					      sizeof(err));
	if (rc) {
		hal_err("%s: %s", who, err);
		rknn_mem_drop(mem);
		return rknn_status(rc);
	}
	adopt_mem(internal ? &c->internal : &c->weights, mem);
	if (!internal) {
		rknn_shared_put(c->shared);	/* the constants now live in mem */
		c->shared = NULL;
	}
	return RKNN_SUCC;
}

static int enter_set_model_mem(rknn_context ctx, rknn_tensor_mem *mem, bool internal)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(ctx, internal ? "rknn_set_internal_mem" : "rknn_set_weight_mem",
				&c);

	if (rc)
		return rc;
	rc = set_model_mem(c, mem, internal);
	rknn_ctx_leave(ctx);
	return rc;
}

int rknn_set_weight_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
	return enter_set_model_mem(ctx, mem, false);
}

int rknn_set_internal_mem(rknn_context ctx, rknn_tensor_mem *mem)
{
	return enter_set_model_mem(ctx, mem, true);
}

/*
 * Zero copy: the input or output that attr names (index and name, as
 * rknn_query gave them) lives in mem from now on. The NPU reads and writes
 * it in place, so the layout is the native one (NATIVE_INPUT_ATTR /
 * NATIVE_OUTPUT_ATTR: NC1HWC2 int8 — fp16 in an fp16 model, int32 for raw
 * sums — padded channels zero); rknn_inputs_set
 * and rknn_outputs_get still work, converting into and out of it.
 */
static int bind_io_mem(struct rknn_ctx *c, rknn_tensor_mem *mem, const struct dma_buf *buf,
		       const rknn_tensor_attr *attr)
{
	const struct rkb_model *m;
	rknn_tensor_type native;
	uint32_t dtype;
	bool output;
	char err[160];
	int rc;

	m = rkb_ctx_model(c->rkb);
	if (attr->index < m->n_inputs &&
	    !strncmp(attr->name, rkb_model_str(m, m->inputs[attr->index].name),
		     RKNN_MAX_NAME_LEN)) {
		output = false;
	} else if (attr->index < m->n_outputs &&
		   !strncmp(attr->name, rkb_model_str(m, m->outputs[attr->index].name),
			    RKNN_MAX_NAME_LEN)) {
		output = true;
	} else {
		hal_err("rknn_set_io_mem: no input or output %u named '%.*s'", attr->index,
			RKNN_MAX_NAME_LEN, attr->name);
		return RKNN_ERR_PARAM_INVALID;
	}
	dtype = m->tensors[(output ? m->outputs : m->inputs)[attr->index].tensor].dtype;
	native = dtype == RKB_DT_FP16 ? RKNN_TENSOR_FLOAT16 :
		 dtype == RKB_DT_INT32 ? RKNN_TENSOR_INT32 : RKNN_TENSOR_INT8;
	if (attr->fmt != RKNN_TENSOR_NC1HWC2 || attr->type != native) {
		hal_err("rknn_set_io_mem: '%.*s': the NPU reads and writes the native layout "
			"only (the NATIVE_%s_ATTR query: NC1HWC2 %s)", RKNN_MAX_NAME_LEN,
			attr->name, output ? "OUTPUT" : "INPUT",
			native == RKNN_TENSOR_FLOAT16 ? "float16" :
			native == RKNN_TENSOR_INT32 ? "int32" : "int8");
		return RKNN_ERR_PARAM_INVALID;
	}
	rknn_finish_frame(c);	/* the program changes: no frame may be in flight */
	rc = rkb_ctx_bind(c->rkb, output, attr->index, buf->cpu, buf->phys, mem->size, err,
			  sizeof(err));
	if (rc) {
		hal_err("rknn_set_io_mem: '%.*s': %s", RKNN_MAX_NAME_LEN, attr->name, err);
		return rknn_status(rc);
	}
	adopt_mem(&c->bound[(output ? m->n_inputs : 0) + attr->index], mem);
	return RKNN_SUCC;
}

/* mem is counted as bound while bind_io_mem runs, and after if it succeeds. */
static int set_io_mem(struct rknn_ctx *c, rknn_tensor_mem *mem, const rknn_tensor_attr *attr)
{
	const struct dma_buf *buf = rknn_mem_hold(mem, "rknn_set_io_mem");
	int rc;

	if (!buf || !attr) {
		hal_err("rknn_set_io_mem: memory from rknn_create_mem and an attr are needed");
		if (buf)
			rknn_mem_drop(mem);
		return RKNN_ERR_PARAM_INVALID;
	}
	rc = bind_io_mem(c, mem, buf, attr);
	if (rc)
		rknn_mem_drop(mem);
	return rc;
}

int rknn_set_io_mem(rknn_context context, rknn_tensor_mem *mem, rknn_tensor_attr *attr)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_set_io_mem", &c);

	if (rc)
		return rc;
	rc = set_io_mem(c, mem, attr);
	rknn_ctx_leave(context);
	return rc;
}
