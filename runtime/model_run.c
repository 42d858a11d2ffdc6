/* SPDX-License-Identifier: MIT */
/*
 * Compile once, run many (model_run.h). The whole model is one chained
 * program: each op's tasks follow the previous op's in the PC chain, so an
 * op starts only when the one before it has written its output, and one
 * kick runs the graph.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "runtime/dma_verify.h"
#include "runtime/layout.h"
#include "runtime/model_run.h"
#include "runtime/regcmd.h"

struct rkb_ctx {
	struct rkb_model m;
	struct npu_dev *dev;
	struct dma_pool *pool;
	struct dma_buf arena, consts, prog;
	struct rc_task *rc_tasks;
	struct npu_task *tasks;
	struct rc_program p;
	struct npu_submit sub;
	struct npu_inflight job;	/* rkb_run_start .. rkb_run_wait */
	bool running;
	struct npu_buf arena_buf;
	int8_t *staging;	/* one edge tensor in NCHW int8, for the layout pass */
	size_t staging_bytes;
	struct rkb_run_stats stats;
};

static int fail(char *err, size_t err_len, int status, const char *msg)
{
	if (err_len)
		snprintf(err, err_len, "%s", msg);
	return status;
}

size_t rkb_io_elems(const struct rkb_io *io)
{
	size_t n = 1;

	for (uint32_t d = 0; d < io->rank; d++)
		n *= io->dims[d];
	return n;
}

const struct rkb_model *rkb_ctx_model(const struct rkb_ctx *c)
{
	return &c->m;
}

void *rkb_tensor_data(struct rkb_ctx *c, uint32_t tensor)
{
	if (!c || tensor >= c->m.n_tensors)
		return NULL;
	return (uint8_t *)c->arena.cpu + c->m.tensors[tensor].arena_offset;
}

static void op_addrs(const struct rkb_ctx *c, const struct rkb_op *op, struct rkb_op_addrs *a)
{
	const struct rkb_tensor *t = c->m.tensors;
	uint32_t arena = c->arena.phys, k = c->consts.phys;

	a->in[0] = arena + t[op->in[0]].arena_offset;
	a->in[1] = op->in[1] == RKB_NONE ? 0 : arena + t[op->in[1]].arena_offset;
	a->out = arena + t[op->out].arena_offset;
	a->weights = op->weights.bytes ? k + op->weights.offset : 0;
	a->bias = op->bias.bytes ? k + op->bias.offset : 0;
	a->mult = op->mult.bytes ? k + op->mult.offset : 0;
	a->scratch = op->scratch_bytes ? arena + op->scratch_offset : 0;
}

/* Lower every op into the program, in order, as one chain. */
static int build_program(struct rkb_ctx *c, uint32_t core)
{
	const struct rkb_model *m = &c->m;
	size_t n = m->plan.tasks;
	size_t cap = rc_program_size(n, CONV_TASK_MAX_ENTRIES);
	int rc = 0;

	c->rc_tasks = calloc(n, sizeof(*c->rc_tasks));
	c->tasks = calloc(n, sizeof(*c->tasks));
	if (!c->rc_tasks || !c->tasks ||
	    dma_pool_alloc(c->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &c->prog))
		return RKB_E_NOMEM;
	rc_program_init(&c->p, c->prog.cpu, cap, c->rc_tasks, n);
	for (uint32_t i = 0; i < m->n_ops && !rc; i++) {
		const struct rkb_op *op = &m->ops[i];
		struct rkb_op_addrs a;

		op_addrs(c, op, &a);
		if (op->type == RKB_OP_CONV) {
			struct lower_conv_op conv;

			rkb_conv_op(m, op, &a, &conv);
			rc = lower_conv(&c->p, &conv);
		} else if (op->type == RKB_OP_POOL) {
			struct lower_pool_op pool;

			rkb_pool_op(m, op, &a, &pool);
			rc = lower_pool(&c->p, &pool);
		} else {
			struct lower_add_op add;

			rkb_add_op(m, op, &a, &add);
			rc = lower_add(&c->p, &add);
		}
	}
	if (rc || c->p.err || c->p.task_count != n ||
	    rc_program_link(&c->p, c->prog.phys) ||
	    rc_program_tasks(&c->p, c->prog.phys, 0, n, c->tasks))
		return RKB_E_OP;

	memset(&c->sub, 0, sizeof(c->sub));
	c->sub.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	rkb_ctx_set_core(c, core);
	c->sub.tasks = c->tasks;
	c->sub.task_count = c->sub.task_number = (uint32_t)n;
	/* The arena holds inputs and outputs: cleaned before the kick (the
	 * inputs written by the CPU), invalidated after (the outputs). The
	 * constants were cleaned once at create. */
	c->arena_buf = (struct npu_buf){ c->arena.cpu, c->arena.size };
	c->sub.outputs = &c->arena_buf;
	c->sub.output_count = 1;
	c->stats.regcmd_bytes = (uint32_t)(c->p.len * sizeof(uint64_t));
	c->stats.dma_bytes = (uint32_t)(c->arena.size + c->consts.size + c->prog.size);
	return RKB_OK;
}

/* Every address of every task inside the context's own buffers
 * (runtime/dma_verify.h): checked once, the stream never changes. */
static int verify_program(const struct rkb_ctx *c, char *err, size_t err_len)
{
	const struct dv_range owned[] = {
		{ c->arena.phys, c->arena.size, "arena" },
		{ c->consts.phys, c->consts.size, "constants" },
		{ c->prog.phys, c->prog.size, "command stream" },
	};
	char why[192];

	if (!dv_check_job(c->tasks, c->sub.task_count, c->prog.cpu, c->prog.phys, c->p.len,
			  owned, sizeof(owned) / sizeof(owned[0]), why, sizeof(why)))
		return RKB_OK;
	if (err_len)
		snprintf(err, err_len, "DMA verifier: %s", why);
	return RKB_E_DMA;
}

int rkb_ctx_set_core(struct rkb_ctx *c, unsigned int core)
{
	if (!c || core >= NPU_CORE_COUNT || !(c->dev->powered_mask & (1u << core)))
		return RKB_E_ARG;
	if (c->running)
		return RKB_E_BUSY;
	memset(c->sub.subcore_task, 0, sizeof(c->sub.subcore_task));
	c->sub.core_mask = 1u << core;
	/* BSP slot rule (drivers/npu/npu.h): one core c takes slot c. */
	c->sub.subcore_task[core] = (struct npu_subcore_task){ 0, c->m.plan.tasks };
	return RKB_OK;
}

static size_t max_edge_elems(const struct rkb_model *m)
{
	size_t n = 0;

	for (uint32_t i = 0; i < m->n_inputs; i++)
		if (rkb_io_elems(&m->inputs[i]) > n)
			n = rkb_io_elems(&m->inputs[i]);
	for (uint32_t i = 0; i < m->n_outputs; i++)
		if (rkb_io_elems(&m->outputs[i]) > n)
			n = rkb_io_elems(&m->outputs[i]);
	return n;
}

int rkb_ctx_create(struct npu_dev *dev, struct dma_pool *pool, const void *blob,
		   size_t size, uint32_t core_mask, struct rkb_ctx **out, char *err,
		   size_t err_len)
{
	struct rkb_ctx *c;
	uint32_t core = 0;
	int rc;

	if (!out)
		return fail(err, err_len, RKB_E_ARG, "out: NULL");
	*out = NULL;
	if (!dev || !pool)
		return fail(err, err_len, RKB_E_ARG, "device or DMA pool: NULL");
	if (core_mask >> NPU_CORE_COUNT)
		return fail(err, err_len, RKB_E_ARG, "core mask names a core the NPU lacks");
	/* One chain on one core: the lowest core of the mask. */
	while (core_mask && !(core_mask & (1u << core)))
		core++;
	if (!(dev->powered_mask & (1u << core)))
		return fail(err, err_len, RKB_E_ARG, "the core is not powered");
	c = calloc(1, sizeof(*c));
	if (!c)
		return fail(err, err_len, RKB_E_NOMEM, "out of memory");
	c->dev = dev;
	c->pool = pool;
	rc = rkb_model_load(blob, size, &c->m, err, err_len);
	if (rc) {
		free(c);
		return rc;
	}
	c->staging_bytes = max_edge_elems(&c->m);
	c->staging = malloc(c->staging_bytes);
	if (!c->staging ||
	    dma_pool_alloc(pool, c->m.plan.arena_bytes, RKB_ARENA_ALIGN, &c->arena) ||
	    (c->m.const_bytes &&
	     dma_pool_alloc(pool, c->m.const_bytes, RKB_CONST_ALIGN, &c->consts))) {
		rc = fail(err, err_len, RKB_E_NOMEM, "DMA pool: no room for the arena and "
			  "constants");
		goto err;
	}
	/* Channel groups a producer leaves unwritten are read by wider
	 * consumers against zero-point weights: start them at zero. */
	memset(c->arena.cpu, 0, c->arena.size);
	if (c->m.const_bytes) {
		memcpy(c->consts.cpu, c->m.constants, c->m.const_bytes);
		hal_dcache_clean(c->consts.cpu, c->consts.size);
	}
	rc = build_program(c, core);
	if (rc) {
		fail(err, err_len, rc, rc == RKB_E_NOMEM ? "DMA pool: no room for the command "
		     "stream" : "the lowering failed on a verified op");
		goto err;
	}
	rc = verify_program(c, err, err_len);
	if (rc)
		goto err;
	*out = c;
	return RKB_OK;
err:
	rkb_ctx_destroy(c);
	return rc;
}

void rkb_ctx_destroy(struct rkb_ctx *c)
{
	if (!c)
		return;
	rkb_run_wait(c);	/* the NPU must not write freed memory */
	if (c->prog.cpu)
		dma_pool_free(c->pool, &c->prog);
	if (c->consts.cpu)
		dma_pool_free(c->pool, &c->consts);
	if (c->arena.cpu)
		dma_pool_free(c->pool, &c->arena);
	free(c->rc_tasks);
	free(c->tasks);
	free(c->staging);
	rkb_model_unload(&c->m);
	free(c);
}

/* ---- conversions at the graph edge ---- */

static int8_t quantise(float x, float inv_scale, int32_t zp)
{
	/* QuantizeLinear: round half to even (the default rounding mode),
	 * then saturate. NaN goes to the zero point. */
	float v = x * inv_scale;
	long q;

	if (!(v == v))
		return (int8_t)zp;
	/* Far outside int8 whatever the zero point, and inside long. */
	if (v > (float)INT16_MAX)
		v = (float)INT16_MAX;
	if (v < (float)INT16_MIN)
		v = (float)INT16_MIN;
	q = lrintf(v) + zp;
	return (int8_t)(q > INT8_MAX ? INT8_MAX : q < INT8_MIN ? INT8_MIN : q);
}

static size_t io_elem_bytes(enum rkb_io_kind kind)
{
	return kind == RKB_IO_FLOAT ? sizeof(float) : sizeof(int8_t);
}

static int check_io_call(const struct rkb_ctx *c, const struct rkb_io *io, size_t bytes,
			 const struct rkb_io_fmt *fmt)
{
	if (!fmt || fmt->kind < RKB_IO_FLOAT || fmt->kind > RKB_IO_UINT8)
		return RKB_E_ARG;
	if (bytes != rkb_io_elems(io) * io_elem_bytes(fmt->kind))
		return RKB_E_ARG;
	return RKB_OK;
}

/* Channels-last edges ([M, K] matrices, transposed maps) are in that
 * order in the ONNX view too, whatever layout the caller names. */
static bool channels_last(const struct rkb_io *io, const struct rkb_io_fmt *fmt)
{
	return fmt->nhwc || io->layout == RKB_LAYOUT_NHWC;
}

int rkb_input_set(struct rkb_ctx *c, uint32_t index, const void *data, size_t bytes,
		  const struct rkb_io_fmt *fmt)
{
	const struct rkb_io *io;
	const struct rkb_tensor *t;
	size_t n;
	int rc;

	if (!c || !data || index >= c->m.n_inputs)
		return RKB_E_ARG;
	if (c->running)
		return RKB_E_BUSY;	/* the NPU owns the arena until rkb_run_wait */
	io = &c->m.inputs[index];
	rc = check_io_call(c, io, bytes, fmt);
	if (rc)
		return rc;
	t = &c->m.tensors[io->tensor];
	n = rkb_io_elems(io);
	if (fmt->kind == RKB_IO_FLOAT) {
		const float *x = data;
		float inv = 1.0f / t->scale;

		for (size_t i = 0; i < n; i++)
			c->staging[i] = quantise(x[i], inv, t->zp);
	} else if (fmt->kind == RKB_IO_UINT8) {
		layout_u8_to_s8(data, c->staging, n);
	} else {
		memcpy(c->staging, data, n);
	}
	if (channels_last(io, fmt))
		layout_nhwc_to_nc1hwc2(NPU_PREC_INT8, c->staging, rkb_tensor_data(c, io->tensor),
				       t->h, t->w, t->c, t->c_mem);
	else
		layout_nchw_to_nc1hwc2(NPU_PREC_INT8, c->staging, rkb_tensor_data(c, io->tensor),
				       t->h, t->w, t->c, t->c_mem);
	return RKB_OK;
}

int rkb_output_get(struct rkb_ctx *c, uint32_t index, void *data, size_t bytes,
		   const struct rkb_io_fmt *fmt)
{
	if (!c || index >= c->m.n_outputs)
		return RKB_E_ARG;
	if (c->running)
		return RKB_E_BUSY;
	return rkb_output_convert(c, index, rkb_tensor_data(c, c->m.outputs[index].tensor),
				  data, bytes, fmt);
}

size_t rkb_output_native_bytes(const struct rkb_ctx *c, uint32_t index)
{
	if (!c || index >= c->m.n_outputs)
		return 0;
	return c->m.tensors[c->m.outputs[index].tensor].arena_bytes;
}

int rkb_output_convert(struct rkb_ctx *c, uint32_t index, const void *native, void *data,
		       size_t bytes, const struct rkb_io_fmt *fmt)
{
	const struct rkb_io *io;
	const struct rkb_tensor *t;
	size_t n;
	int rc;

	if (!c || !native || !data || index >= c->m.n_outputs)
		return RKB_E_ARG;
	io = &c->m.outputs[index];
	rc = check_io_call(c, io, bytes, fmt);
	if (rc)
		return rc;
	t = &c->m.tensors[io->tensor];
	n = rkb_io_elems(io);
	if (channels_last(io, fmt))
		layout_nc1hwc2_to_nhwc(NPU_PREC_INT8, native, c->staging, t->h, t->w, t->c);
	else
		layout_nc1hwc2_to_nchw(NPU_PREC_INT8, native, c->staging, t->h, t->w, t->c);
	if (fmt->kind == RKB_IO_FLOAT) {
		float *y = data;

		for (size_t i = 0; i < n; i++)
			y[i] = t->scale * (float)(c->staging[i] - t->zp);
	} else if (fmt->kind == RKB_IO_UINT8) {
		layout_s8_to_u8(c->staging, data, n);
	} else {
		memcpy(data, c->staging, n);
	}
	return RKB_OK;
}

int rkb_run(struct rkb_ctx *c)
{
	int rc = rkb_run_start(c);

	return rc ? rc : rkb_run_wait(c);
}

static int npu_status(int err)
{
	if (err == NPU_ERR_TIMEOUT)
		return RKB_E_TIMEOUT;
	return err ? RKB_E_NPU : RKB_OK;
}

int rkb_run_start(struct rkb_ctx *c)
{
	int err;

	if (!c)
		return RKB_E_ARG;
	if (c->running)
		return RKB_E_BUSY;
	err = npu_submit_start(c->dev, &c->sub, &c->job);
	c->running = !err;
	return npu_status(err);
}

bool rkb_run_busy(const struct rkb_ctx *c)
{
	return c && c->running;
}

int rkb_run_wait(struct rkb_ctx *c)
{
	int err;

	if (!c)
		return RKB_E_ARG;
	if (!c->running)
		return RKB_OK;
	do
		err = npu_submit_poll(c->dev, &c->job);
	while (err == NPU_PENDING);
	c->running = false;
	c->stats.tasks = c->sub.task_counter;
	c->stats.kicks = 0;
	for (unsigned int i = 0; i < NPU_CORE_COUNT; i++)
		c->stats.kicks += c->sub.core[i].kicks;
	c->stats.hw_ticks = c->sub.hw_ticks;
	return npu_status(err);
}

void rkb_ctx_stats(const struct rkb_ctx *c, struct rkb_run_stats *st)
{
	*st = c->stats;
}
