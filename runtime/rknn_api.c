/* SPDX-License-Identifier: MIT */
/*
 * rknn_api.h over the model runtime (model_run.h). The context compiles
 * once at rknn_init; rknn_inputs_set converts into the arena, rknn_run
 * kicks, rknn_outputs_get converts out. Semantics follow the vendor
 * header's comments (airockchip/rknn-toolkit2, rknpu2/runtime/.../rknn_api.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "rknn_api.h"
#include "compiler/layout.h"
#include "runtime/model_format.h"
#include "runtime/rknn_ctx.h"
#include "runtime/rknn_device.h"
#include "runtime/rknn_handle.h"

#define RKNN_API_VERSION	"rkbare 1.0 (rknn_api subset)"
#define RKNN_DRV_VERSION	"rkbare bare-metal driver"

/* Flags rknn_init accepts: priorities (one queue: accepted, not ordered),
 * performance collection, asynchronous frames, internal memory given by
 * the application (rknn_set_internal_mem before the first run) and the
 * model buffer read in place (kept alive by the caller). */
#define RKNN_FLAGS_SUPPORTED	(RKNN_FLAG_PRIOR_MEDIUM | RKNN_FLAG_PRIOR_LOW | \
				 RKNN_FLAG_COLLECT_PERF_MASK | RKNN_FLAG_ASYNC_MASK | \
				 RKNN_FLAG_MEM_ALLOC_OUTSIDE | RKNN_FLAG_MODEL_BUFFER_ZERO_COPY)
/* PERF_DETAIL: a header line, then a line per op of at most this much. */
#define RKNN_PERF_LINE_BYTES	160u
/* uint8 edge tensors are the int8 ones plus this (model_format.h). */
#define RKNN_U8_SHIFT		128


int rknn_ctx_enter(rknn_context h, const char *who, struct rknn_ctx **c)
{
	void *obj;
	int rc = rknn_handle_enter(h, RKNN_HANDLE_MODEL, who, &obj);

	*c = rc ? NULL : obj;
	return rc;
}

void rknn_ctx_leave(rknn_context h)
{
	rknn_handle_leave(h);
}

/* Duplicates on other CPUs share the copy: its count is under the
 * device's lock. */
static void model_copy_put(struct model_copy *copy)
{
	bool last;

	if (!copy)
		return;
	rknn_device_lock();
	last = !--copy->users;
	rknn_device_unlock();
	if (!last)
		return;
	free(copy->bytes);
	free(copy);
}

int rknn_status(int rkb)
{
	switch (rkb) {
	case RKB_OK: return RKNN_SUCC;
	case RKB_E_NOMEM: return RKNN_ERR_MALLOC_FAIL;
	case RKB_E_TIMEOUT: return RKNN_ERR_TIMEOUT;
	case RKB_E_NPU: return RKNN_ERR_FAIL;
	case RKB_E_ARG: return RKNN_ERR_PARAM_INVALID;
	case RKB_E_BUSY: return RKNN_ERR_DEVICE_UNAVAILABLE;
	default: return RKNN_ERR_MODEL_INVALID;
	}
}

void rknn_ctx_free(struct rknn_ctx *c)
{
	if (!c)
		return;
	for (uint32_t i = 0; c->rkb && i < rkb_ctx_model(c->rkb)->n_outputs; i++) {
		if (c->out_bufs)
			free(c->out_bufs[i]);
		if (c->kept)
			free(c->kept[i]);
	}
	free(c->out_bufs);
	free(c->kept);
	free(c->staging);
	free(c->perf);
	rkb_ctx_destroy(c->rkb);	/* waits for a frame in flight */
	rknn_shared_put(c->shared);
	for (uint32_t i = 0; c->bound && i < c->n_edges; i++)
		rknn_release_mem(&c->bound[i]);
	free(c->bound);
	rknn_release_mem(&c->internal);
	rknn_release_mem(&c->weights);
	model_copy_put(c->model_copy);
	if (c->handle)
		rknn_handle_retire(c->handle);
	free(c);
}

/* The native bytes of output i in the largest of the shape sets. */
static size_t max_output_bytes(const struct rkb_model *m, uint32_t i)
{
	size_t n = 0;

	for (uint32_t k = 0; k < m->n_shapes; k++) {
		const struct rkb_shape *sh = &m->shapes[k];
		size_t b = sh->tensors[sh->outputs[i].tensor].arena_bytes;

		n = b > n ? b : n;
	}
	return n;
}

int rknn_ctx_create(const void *model, uint32_t size, uint32_t flags, uint32_t rkb_flags,
		    struct model_copy *copy, struct rknn_ctx **out)
{
	struct npu_dev *dev;
	struct dma_pool *pool;
	struct rknn_ctx *c;
	const struct rkb_model *m;
	char err[160];
	int rc;

	rc = rknn_device_get(&dev, &pool);
	if (rc)
		return rc;
	c = calloc(1, sizeof(*c));
	if (!c)
		return RKNN_ERR_MALLOC_FAIL;
	rc = rkb_ctx_create(dev, pool, model, size, 1u,
			    rkb_flags |
			    (flags & RKNN_FLAG_MEM_ALLOC_OUTSIDE ? RKB_CTX_ARENA_OUTSIDE : 0u), &c->rkb,
			    err, sizeof(err));
	if (rc) {
		hal_err("rknn_init: %s: %s", rkb_strerror(rc), err);
		free(c);
		return rknn_status(rc);
	}
	/* Per-op times: a kick for every op (model_run.h). */
	if ((flags & RKNN_FLAG_COLLECT_PERF_MASK) &&
	    rkb_ctx_set_per_op(c->rkb, true, err, sizeof(err))) {
		hal_err("rknn_init: RKNN_FLAG_COLLECT_PERF_MASK: %s", err);
		rknn_ctx_free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	m = rkb_ctx_model(c->rkb);
	/* sized for every shape set (rknn_set_input_shapes); outputs of an
	 * fp16 model pass through it as float on their way to half */
	for (uint32_t k = 0; k < m->n_shapes; k++) {
		for (uint32_t i = 0; i < m->n_inputs; i++)
			if (rkb_io_elems(&m->shapes[k].inputs[i]) > c->staging_elems)
				c->staging_elems = rkb_io_elems(&m->shapes[k].inputs[i]);
		for (uint32_t i = 0; i < m->n_outputs; i++)
			if (rkb_io_elems(&m->shapes[k].outputs[i]) > c->staging_elems)
				c->staging_elems = rkb_io_elems(&m->shapes[k].outputs[i]);
	}
	c->staging = malloc(c->staging_elems * sizeof(float));
	c->out_bufs = calloc(m->n_outputs, sizeof(*c->out_bufs));
	c->n_edges = m->n_inputs + m->n_outputs;
	c->bound = calloc(c->n_edges, sizeof(*c->bound));
	if (!c->staging || !c->out_bufs || !c->bound) {
		rknn_ctx_free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	if (flags & RKNN_FLAG_ASYNC_MASK) {
		c->kept = calloc(m->n_outputs, sizeof(*c->kept));
		for (uint32_t i = 0; c->kept && i < m->n_outputs; i++) {
			c->kept[i] = malloc(max_output_bytes(m, i));
			if (!c->kept[i])
				break;
		}
		if (!c->kept || (m->n_outputs && !c->kept[m->n_outputs - 1])) {
			rknn_ctx_free(c);
			return RKNN_ERR_MALLOC_FAIL;
		}
	}
	c->model = model;
	c->model_size = size;
	c->flags = flags;
	c->handle = rknn_handle_new(RKNN_HANDLE_MODEL, c);
	if (!c->handle) {
		rknn_ctx_free(c);
		return RKNN_ERR_MALLOC_FAIL;
	}
	if (copy) {
		c->model_copy = copy;
		rknn_device_lock();
		copy->users++;
		rknn_device_unlock();
	}
	*out = c;
	return RKNN_SUCC;
}

int rknn_init(rknn_context *context, void *model, uint32_t size, uint32_t flag,
	      rknn_init_extend *extend)
{
	struct model_copy *copy = NULL;
	struct rknn_ctx *c;
	void *bytes = NULL;
	int rc;

	(void)extend;	/* its fields serve model files and fds, which rkbare has not */
	if (!context || !model)
		return RKNN_ERR_PARAM_INVALID;
	*context = 0;
	if (!size) {
		hal_err("rknn_init: a model path (size 0): bare metal has no files; pass the "
			"container's bytes");
		return RKNN_ERR_PARAM_INVALID;
	}
	if (flag & ~RKNN_FLAGS_SUPPORTED) {
		hal_err("rknn_init: flags 0x%x are not supported (supported: priorities, "
			"RKNN_FLAG_COLLECT_PERF_MASK, RKNN_FLAG_ASYNC_MASK)",
			flag & ~RKNN_FLAGS_SUPPORTED);
		return RKNN_ERR_PARAM_INVALID;
	}
	/* Without RKNN_FLAG_MODEL_BUFFER_ZERO_COPY the caller may free the buffer
	 * once rknn_init returns, as librknnrt allows: the context reads a copy. */
	if (!(flag & RKNN_FLAG_MODEL_BUFFER_ZERO_COPY)) {
		copy = calloc(1, sizeof(*copy));
		bytes = copy ? malloc(size) : NULL;
		if (!bytes) {
			hal_err("rknn_init: no memory for a copy of the %u-byte model (or pass "
				"RKNN_FLAG_MODEL_BUFFER_ZERO_COPY and keep the buffer)", size);
			free(copy);
			return RKNN_ERR_MALLOC_FAIL;
		}
		memcpy(bytes, model, size);
		copy->bytes = bytes;
	}
	rc = rknn_ctx_create(copy ? copy->bytes : model, size, flag, 0u, copy, &c);
	if (rc) {
		free(bytes);
		free(copy);
		return rc;
	}
	*context = c->handle;
	return RKNN_SUCC;
}

int rknn_destroy(rknn_context context)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_destroy", &c);

	if (rc)
		return rc;
	rknn_ctx_free(c);	/* the handle dies with it */
	return RKNN_SUCC;
}

/* ---- queries ---- */

static rknn_tensor_type io_type(const struct rkb_model *m, const struct rkb_io *io)
{
	if (m->tensors[io->tensor].dtype == RKB_DT_INT32)
		return RKNN_TENSOR_INT32;
	if (m->tensors[io->tensor].dtype == RKB_DT_FP16)
		return RKNN_TENSOR_FLOAT16;
	return io->kind == RKB_IO_UINT8 ? RKNN_TENSOR_UINT8 : RKNN_TENSOR_INT8;
}

/* The rknn format of a graph edge as the container orders it. */
static rknn_tensor_format edge_fmt(const struct rkb_io *io)
{
	if (io->layout == RKB_LAYOUT_NHWC && io->rank == 4)
		return RKNN_TENSOR_NHWC;
	return io->rank == 4 ? RKNN_TENSOR_NCHW : RKNN_TENSOR_UNDEFINED;
}

static void fill_attr(const struct rkb_model *m, const struct rkb_io *io, uint32_t index,
		      bool native, rknn_tensor_attr *a)
{
	const struct rkb_tensor *t = &m->tensors[io->tensor];

	memset(a, 0, sizeof(*a));
	a->index = index;
	snprintf(a->name, sizeof(a->name), "%s", rkb_model_str(m, io->name));
	a->type = io_type(m, io);
	a->qnt_type = t->dtype == RKB_DT_FP16 ? RKNN_TENSOR_QNT_NONE :
		      RKNN_TENSOR_QNT_AFFINE_ASYMMETRIC;
	a->scale = t->scale;
	a->zp = t->zp + (io->kind == RKB_IO_UINT8 ? (int32_t)RKNN_U8_SHIFT : 0);
	if (native) {
		enum npu_precision prec = rkb_tensor_prec(t);
		size_t bytes = layout_nc1hwc2_bytes(prec, t->h, t->w, t->c_mem);
		uint32_t c2 = layout_c2(prec), c1 = t->c_mem / c2;

		a->fmt = RKNN_TENSOR_NC1HWC2;
		a->n_dims = 5;
		a->dims[0] = 1;
		a->dims[1] = c1;
		a->dims[2] = t->h;
		a->dims[3] = t->w;
		a->dims[4] = c2;
		a->n_elems = c1 * t->h * t->w * c2;
		a->size = a->n_elems * layout_elem_bytes(prec);
		a->size_with_stride = (uint32_t)bytes;
		a->w_stride = t->w;
		a->h_stride = (uint32_t)(bytes / ((size_t)c1 * t->w * c2 * layout_elem_bytes(prec)));
		a->pass_through = 1;
		return;
	}
	a->fmt = edge_fmt(io);
	a->n_dims = io->rank;
	for (uint32_t d = 0; d < io->rank; d++)
		a->dims[d] = io->dims[d];
	a->n_elems = (uint32_t)rkb_io_elems(io);
	a->size = a->n_elems * layout_elem_bytes(rkb_tensor_prec(t));
	a->size_with_stride = a->size;
}

static int query_attr(const struct rknn_ctx *c, bool output, bool native, void *info,
		      uint32_t size)
{
	const struct rkb_model *m = rkb_ctx_model(c->rkb);
	rknn_tensor_attr *a = info;
	uint32_t n = output ? m->n_outputs : m->n_inputs;

	if (size < sizeof(*a))
		return RKNN_ERR_PARAM_INVALID;
	if (a->index >= n) {
		hal_err("rknn_query: %s index %u of %u", output ? "output" : "input", a->index, n);
		return output ? RKNN_ERR_OUTPUT_INVALID : RKNN_ERR_INPUT_INVALID;
	}
	fill_attr(m, output ? &m->outputs[a->index] : &m->inputs[a->index], a->index, native, a);
	return RKNN_SUCC;
}

/* NPU time of the last run that ended, from the runtime's counters. */
static int64_t last_run_us(const struct rkb_run_stats *st)
{
	return (int64_t)(st->hw_ticks * 1000000u / hal_counter_freq());
}

/* The run counters describe the frame in flight while it runs, part of
 * it: PERF_RUN and PERF_DETAIL are refused until it has been waited for
 * (rknn_wait, or rknn_inputs_set / rknn_run, which wait too), never a
 * partial frame. */
static bool perf_in_flight(const struct rknn_ctx *c)
{
	if (!c->frame_pending)
		return false;
	hal_err("rknn_query: PERF_RUN / PERF_DETAIL: frame %llu is in flight; rknn_wait first "
		"(the counters of a frame are read once it has ended)",
		(unsigned long long)c->frame_id);
	return true;
}

/* The last run, op by op: with RKNN_FLAG_COLLECT_PERF_MASK every op is a
 * stage of its own (a kick, or a CPU op), timed on its own. */
static int perf_detail(struct rknn_ctx *c, const struct rkb_run_stats *st, rknn_perf_detail *p)
{
	const struct rkb_model *m = rkb_ctx_model(c->rkb);
	uint32_t n = rkb_ctx_stages(c->rkb, NULL, 0);
	struct rkb_stage_info *si = calloc(n ? n : 1, sizeof(*si));
	size_t cap = RKNN_PERF_LINE_BYTES * (n + 1u), len;
	char *text = malloc(cap);

	if (!si || !text) {
		free(si);
		free(text);
		return RKNN_ERR_MALLOC_FAIL;
	}
	rkb_ctx_stages(c->rkb, si, n);
	len = (size_t)snprintf(text, cap, "ops %u, NPU tasks %u, kicks %u, NPU time %lld us, "
			       "command stream %u bytes\n", m->n_ops, st->tasks, st->kicks,
			       (long long)last_run_us(st), st->regcmd_bytes);
	for (uint32_t i = 0; i < n && len < cap; i++) {
		const struct rkb_op *op = &m->ops[si[i].first_op];

		len += (size_t)snprintf(text + len, cap - len, "op %3u %-24.24s %-8.8s %s %3u tasks "
					"%8lld us\n", si[i].first_op, rkb_model_str(m, op->name),
					rkb_op_kind(m, op), si[i].cpu ? "CPU" : "NPU", si[i].tasks,
					(long long)(si[i].ticks * 1000000u / hal_counter_freq()));
	}
	free(si);
	free(c->perf);
	c->perf = text;
	p->perf_data = c->perf;
	p->data_len = (uint64_t)strlen(c->perf);
	return RKNN_SUCC;
}

static int query_on(struct rknn_ctx *c, rknn_query_cmd cmd, void *info, uint32_t size)
{
	const struct rkb_model *m;
	struct rkb_run_stats st;

	if (!info)
		return RKNN_ERR_PARAM_INVALID;
	m = rkb_ctx_model(c->rkb);
	rkb_ctx_stats(c->rkb, &st);
	switch (cmd) {
	case RKNN_QUERY_IN_OUT_NUM: {
		rknn_input_output_num *n = info;

		if (size < sizeof(*n))
			return RKNN_ERR_PARAM_INVALID;
		n->n_input = m->n_inputs;
		n->n_output = m->n_outputs;
		return RKNN_SUCC;
	}
	/* The attributes are those of the shape set in use, so the CURRENT_
	 * queries give the same. */
	case RKNN_QUERY_INPUT_ATTR:
	case RKNN_QUERY_CURRENT_INPUT_ATTR:
		return query_attr(c, false, false, info, size);
	case RKNN_QUERY_OUTPUT_ATTR:
	case RKNN_QUERY_CURRENT_OUTPUT_ATTR:
		return query_attr(c, true, false, info, size);
	case RKNN_QUERY_NATIVE_INPUT_ATTR:
	case RKNN_QUERY_CURRENT_NATIVE_INPUT_ATTR:
		return query_attr(c, false, true, info, size);
	case RKNN_QUERY_NATIVE_OUTPUT_ATTR:
	case RKNN_QUERY_CURRENT_NATIVE_OUTPUT_ATTR:
		return query_attr(c, true, true, info, size);
	case RKNN_QUERY_SDK_VERSION: {
		rknn_sdk_version *v = info;

		if (size < sizeof(*v))
			return RKNN_ERR_PARAM_INVALID;
		snprintf(v->api_version, sizeof(v->api_version), "%s", RKNN_API_VERSION);
		snprintf(v->drv_version, sizeof(v->drv_version), "%s", RKNN_DRV_VERSION);
		return RKNN_SUCC;
	}
	case RKNN_QUERY_MEM_SIZE: {
		rknn_mem_size *s = info;

		if (size < sizeof(*s))
			return RKNN_ERR_PARAM_INVALID;
		memset(s, 0, sizeof(*s));
		s->total_weight_size = m->const_bytes;
		s->total_internal_size = m->max_arena_bytes;	/* any shape set */
		s->total_dma_allocated_size = st.dma_bytes;
		return RKNN_SUCC;
	}
	case RKNN_QUERY_CUSTOM_STRING: {
		rknn_custom_string *s = info;

		if (size < sizeof(*s))
			return RKNN_ERR_PARAM_INVALID;
		snprintf(s->string, sizeof(s->string), "%s", m->user ? m->user : "");
		return RKNN_SUCC;
	}
	case RKNN_QUERY_PERF_RUN: {
		rknn_perf_run *p = info;

		if (size < sizeof(*p))
			return RKNN_ERR_PARAM_INVALID;
		if (perf_in_flight(c))
			return RKNN_ERR_DEVICE_UNAVAILABLE;
		p->run_duration = last_run_us(&st);
		return RKNN_SUCC;
	}
	case RKNN_QUERY_PERF_DETAIL: {
		rknn_perf_detail *p = info;

		if (size < sizeof(*p))
			return RKNN_ERR_PARAM_INVALID;
		if (!(c->flags & RKNN_FLAG_COLLECT_PERF_MASK)) {
			hal_err("rknn_query: PERF_DETAIL needs RKNN_FLAG_COLLECT_PERF_MASK at init");
			return RKNN_ERR_PARAM_INVALID;
		}
		if (perf_in_flight(c))
			return RKNN_ERR_DEVICE_UNAVAILABLE;
		return perf_detail(c, &st, p);
	}
	case RKNN_QUERY_INPUT_DYNAMIC_RANGE: {
		rknn_input_range *r = info;
		const struct rkb_io *io;

		if (size < sizeof(*r) || r->index >= m->n_inputs)
			return RKNN_ERR_PARAM_INVALID;
		/* The container's shape sets (a static model has one). */
		io = &m->inputs[r->index];
		memset(r->dyn_range, 0, sizeof(r->dyn_range));
		r->shape_number = m->n_shapes;
		r->fmt = edge_fmt(io);
		snprintf(r->name, sizeof(r->name), "%s", rkb_model_str(m, io->name));
		r->n_dims = io->rank;
		for (uint32_t k = 0; k < m->n_shapes; k++)
			for (uint32_t d = 0; d < io->rank; d++)
				r->dyn_range[k][d] = m->shapes[k].inputs[r->index].dims[d];
		return RKNN_SUCC;
	}
	default:
		hal_err("rknn_query: command %d is not supported", cmd);
		return RKNN_ERR_PARAM_INVALID;
	}
}

int rknn_query(rknn_context context, rknn_query_cmd cmd, void *info, uint32_t size)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_query", &c);

	if (rc)
		return rc;
	rc = query_on(c, cmd, info, size);
	rknn_ctx_leave(context);
	return rc;
}

/* ---- inputs, run, outputs ---- */

static int set_input(struct rknn_ctx *c, const rknn_input *in)
{
	const struct rkb_model *m = rkb_ctx_model(c->rkb);
	const struct rkb_io *io;
	const struct rkb_tensor *t;
	struct rkb_io_fmt fmt = { 0 };
	size_t n;

	if (in->index >= m->n_inputs || !in->buf) {
		hal_err("rknn_inputs_set: input %u of %u, or no buffer", in->index, m->n_inputs);
		return RKNN_ERR_INPUT_INVALID;
	}
	io = &m->inputs[in->index];
	t = &m->tensors[io->tensor];
	n = rkb_io_elems(io);
	if (in->pass_through) {
		size_t bytes = layout_nc1hwc2_bytes(rkb_tensor_prec(t), t->h, t->w, t->c_mem);

		if (in->size != bytes) {
			hal_err("rknn_inputs_set: pass-through input %u: %u bytes, the native "
				"tensor has %zu", in->index, in->size, bytes);
			return RKNN_ERR_INPUT_INVALID;
		}
		memcpy(rkb_tensor_data(c->rkb, io->tensor), in->buf, bytes);
		return RKNN_SUCC;
	}
	if (in->fmt != RKNN_TENSOR_NCHW && in->fmt != RKNN_TENSOR_NHWC) {
		hal_err("rknn_inputs_set: input %u: format %d (NCHW or NHWC; NC1HWC2 with "
			"pass_through)", in->index, in->fmt);
		return RKNN_ERR_INPUT_INVALID;
	}
	/* A channels-last edge takes NHWC data only: its NCHW form would need
	 * a transpose the runtime does not do. */
	if (io->layout == RKB_LAYOUT_NHWC && in->fmt == RKNN_TENSOR_NCHW && io->rank == 4) {
		hal_err("rknn_inputs_set: input %u is NHWC; NCHW data is not converted",
			in->index);
		return RKNN_ERR_INPUT_INVALID;
	}
	fmt.nhwc = in->fmt == RKNN_TENSOR_NHWC && io->rank == 4;
	switch (in->type) {
	case RKNN_TENSOR_FLOAT32:
		fmt.kind = RKB_IO_FLOAT;
		return in->size == n * sizeof(float) &&
		       !rkb_input_set(c->rkb, in->index, in->buf, in->size, &fmt) ?
		       RKNN_SUCC : RKNN_ERR_INPUT_INVALID;
	case RKNN_TENSOR_FLOAT16:
		if (in->size != n * sizeof(uint16_t))
			return RKNN_ERR_INPUT_INVALID;
		for (size_t i = 0; i < n; i++) {
			uint16_t h;

			memcpy(&h, (const uint8_t *)in->buf + i * sizeof(h), sizeof(h));
			c->staging[i] = layout_f16_to_f32(h);
		}
		fmt.kind = RKB_IO_FLOAT;
		return rkb_input_set(c->rkb, in->index, c->staging, n * sizeof(float), &fmt) ?
		       RKNN_ERR_INPUT_INVALID : RKNN_SUCC;
	case RKNN_TENSOR_INT8:
	case RKNN_TENSOR_UINT8:
		if (t->dtype == RKB_DT_FP16) {
			/* an fp16 model takes the values as they are */
			if (in->size != n)
				return RKNN_ERR_INPUT_INVALID;
			for (size_t i = 0; i < n; i++)
				c->staging[i] = in->type == RKNN_TENSOR_INT8 ?
						(float)((const int8_t *)in->buf)[i] :
						(float)((const uint8_t *)in->buf)[i];
			fmt.kind = RKB_IO_FLOAT;
			return rkb_input_set(c->rkb, in->index, c->staging, n * sizeof(float),
					     &fmt) ? RKNN_ERR_INPUT_INVALID : RKNN_SUCC;
		}
		fmt.kind = in->type == RKNN_TENSOR_INT8 ? RKB_IO_INT8 : RKB_IO_UINT8;
		return in->size == n &&
		       !rkb_input_set(c->rkb, in->index, in->buf, in->size, &fmt) ?
		       RKNN_SUCC : RKNN_ERR_INPUT_INVALID;
	default:
		hal_err("rknn_inputs_set: input %u: type %d (float32, float16, int8, uint8)",
			in->index, in->type);
		return RKNN_ERR_INPUT_INVALID;
	}
}

/* Async: wait for the frame in flight and keep its outputs (and status). */
void rknn_finish_frame(struct rknn_ctx *c)
{
	const struct rkb_model *m;

	if (!c->frame_pending)
		return;
	c->frame_pending = false;
	c->kept_status = rkb_run_wait(c->rkb);	/* RKB_OK at once if it has ended */
	m = rkb_ctx_model(c->rkb);
	for (uint32_t i = 0; i < m->n_outputs; i++)
		memcpy(c->kept[i], rkb_tensor_data(c->rkb, m->outputs[i].tensor),
		       rkb_output_native_bytes(c->rkb, i));
	c->kept_valid = true;
	c->kept_frame = c->frame_id;
}

static int inputs_set_on(struct rknn_ctx *c, uint32_t n_inputs, rknn_input inputs[])
{
	if (!inputs || !n_inputs)
		return RKNN_ERR_PARAM_INVALID;
	rknn_finish_frame(c);	/* the arena is the NPU's until the frame ends */
	for (uint32_t i = 0; i < n_inputs; i++) {
		int rc = set_input(c, &inputs[i]);

		if (rc) {
			hal_err("rknn_inputs_set: input %u (size %u, type %d, fmt %d) refused",
				inputs[i].index, inputs[i].size, inputs[i].type, inputs[i].fmt);
			return rc;
		}
	}
	return RKNN_SUCC;
}

int rknn_inputs_set(rknn_context context, uint32_t n_inputs, rknn_input inputs[])
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_inputs_set", &c);

	if (rc)
		return rc;
	rc = inputs_set_on(c, n_inputs, inputs);
	rknn_ctx_leave(context);
	return rc;
}

static int run_on(struct rknn_ctx *c, rknn_run_extend *extend)
{
	int rc;

	rc = rknn_ctx_check_mem(c, "rknn_run");
	if (rc)
		return rc;

	if (c->flags & RKNN_FLAG_ASYNC_MASK) {
		/* The frame starts and rknn_run returns: rknn_outputs_get gives
		 * the frame before while this one runs. */
		rknn_finish_frame(c);
		if ((c->flags & RKNN_FLAG_MEM_ALLOC_OUTSIDE) && !c->internal) {
			hal_err("rknn_run: RKNN_FLAG_MEM_ALLOC_OUTSIDE: rknn_set_internal_mem "
				"first");
			return RKNN_ERR_PARAM_INVALID;
		}
		rc = rkb_run_start(c->rkb);
		if (!rc) {
			c->frame_id++;
			c->frame_pending = true;
		}
		if (extend)
			extend->frame_id = c->frame_id;
		return rknn_status(rc);
	}
	/* A blocking run completes before returning; rknn_wait then has
	 * nothing left to wait for. */
	if ((c->flags & RKNN_FLAG_MEM_ALLOC_OUTSIDE) && !c->internal) {
		hal_err("rknn_run: RKNN_FLAG_MEM_ALLOC_OUTSIDE: rknn_set_internal_mem first");
		return RKNN_ERR_PARAM_INVALID;
	}
	rc = rkb_run(c->rkb);
	c->frame_id++;
	if (extend)
		extend->frame_id = c->frame_id;
	return rknn_status(rc);
}

int rknn_run(rknn_context context, rknn_run_extend *extend)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_run", &c);

	if (rc)
		return rc;
	rc = run_on(c, extend);
	rknn_ctx_leave(context);
	return rc;
}

static int wait_on(struct rknn_ctx *c, rknn_run_extend *extend)
{
	if (c->flags & RKNN_FLAG_ASYNC_MASK && c->frame_pending) {
		rknn_finish_frame(c);
		if (extend)
			extend->frame_id = c->kept_frame;
		return rknn_status(c->kept_status);
	}
	if (extend)
		extend->frame_id = c->frame_id;
	return RKNN_SUCC;
}

int rknn_wait(rknn_context context, rknn_run_extend *extend)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_wait", &c);

	if (rc)
		return rc;
	rc = wait_on(c, extend);
	rknn_ctx_leave(context);
	return rc;
}

static int outputs_get_on(struct rknn_ctx *c, uint32_t n_outputs, rknn_output outputs[],
			  rknn_output_extend *extend)
{
	const struct rkb_model *m;

	m = rkb_ctx_model(c->rkb);
	if (!outputs || !n_outputs || n_outputs > m->n_outputs)
		return RKNN_ERR_PARAM_INVALID;
	/* Async: the kept frame (the one before the frame in flight), never a
	 * wait; before any frame has ended the outputs are zeros, frame_id 0. */
	if (c->flags & RKNN_FLAG_ASYNC_MASK && c->kept_valid && c->kept_status)
		return rknn_status(c->kept_status);
	for (uint32_t i = 0; i < n_outputs; i++) {
		rknn_output *o = &outputs[i];
		const struct rkb_io *io;
		struct rkb_io_fmt fmt = { 0 };
		size_t bytes, dst_bytes;
		bool half;
		void *dst;

		if (o->index >= m->n_outputs)
			return RKNN_ERR_OUTPUT_INVALID;
		io = &m->outputs[o->index];
		half = !o->want_float && io_type(m, io) == RKNN_TENSOR_FLOAT16;
		fmt.kind = o->want_float || half ? RKB_IO_FLOAT :
			   io_type(m, io) == RKNN_TENSOR_INT32 ? RKB_IO_INT32 :
			   io->kind == RKB_IO_UINT8 ? RKB_IO_UINT8 : RKB_IO_INT8;
		/* float32 and int32 elements are 4 bytes, float16 two, int8 and uint8 one */
		bytes = rkb_io_elems(io) * (half ? sizeof(uint16_t) :
					    fmt.kind == RKB_IO_FLOAT || fmt.kind == RKB_IO_INT32 ?
					    sizeof(float) : 1);
		if (o->is_prealloc) {
			if (!o->buf || o->size < bytes) {
				hal_err("rknn_outputs_get: output %u: buffer of %u bytes, %zu needed",
					o->index, o->size, bytes);
				return RKNN_ERR_OUTPUT_INVALID;
			}
		} else {
			if (!c->out_bufs[o->index])
				c->out_bufs[o->index] = malloc(rkb_io_elems(io) * sizeof(float));
			if (!c->out_bufs[o->index])
				return RKNN_ERR_MALLOC_FAIL;
			o->buf = c->out_bufs[o->index];
			o->size = (uint32_t)bytes;
		}
		/* half outputs: float32 in the staging buffer first */
		dst = half ? (void *)c->staging : o->buf;
		dst_bytes = half ? rkb_io_elems(io) * sizeof(float) : bytes;
		if (c->flags & RKNN_FLAG_ASYNC_MASK && !c->kept_valid)
			memset(dst, 0, dst_bytes);
		else if (c->flags & RKNN_FLAG_ASYNC_MASK ?
			 rkb_output_convert(c->rkb, o->index, c->kept[o->index], dst, dst_bytes,
					    &fmt) :
			 rkb_output_get(c->rkb, o->index, dst, dst_bytes, &fmt))
			return RKNN_ERR_OUTPUT_INVALID;
		for (size_t k = 0; half && k < rkb_io_elems(io); k++) {
			uint16_t h = layout_f32_to_f16(c->staging[k]);

			memcpy((uint8_t *)o->buf + k * sizeof(h), &h, sizeof(h));
		}
	}
	if (extend)
		extend->frame_id = c->flags & RKNN_FLAG_ASYNC_MASK ? c->kept_frame : c->frame_id;
	return RKNN_SUCC;
}

int rknn_outputs_get(rknn_context context, uint32_t n_outputs, rknn_output outputs[],
		     rknn_output_extend *extend)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_outputs_get", &c);

	if (rc)
		return rc;
	rc = outputs_get_on(c, n_outputs, outputs, extend);
	rknn_ctx_leave(context);
	return rc;
}

static int outputs_release_on(struct rknn_ctx *c, uint32_t n_outputs, rknn_output outputs[])
{
	if (!outputs && n_outputs)
		return RKNN_ERR_PARAM_INVALID;
	/* The buffers the context lent stay allocated for the next get and
	 * are freed with the context; the caller's pointers are dropped. */
	for (uint32_t i = 0; i < n_outputs; i++)
		if (!outputs[i].is_prealloc)
			outputs[i].buf = NULL;
	return RKNN_SUCC;
}

int rknn_outputs_release(rknn_context context, uint32_t n_outputs, rknn_output outputs[])
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_outputs_release", &c);

	if (rc)
		return rc;
	rc = outputs_release_on(c, n_outputs, outputs);
	rknn_ctx_leave(context);
	return rc;
}

/* Masks of several cores spread the model over them (model_run.h). */
static int set_core_mask_on(struct rknn_ctx *c, rknn_core_mask core_mask)
{
	uint32_t all = (1u << NPU_CORE_COUNT) - 1u, mask;
	char err[160];

	if (core_mask == RKNN_NPU_CORE_AUTO)
		mask = 1u;
	else if (core_mask == RKNN_NPU_CORE_ALL)
		mask = all;
	else if (core_mask & ~all)
		mask = 0;
	else
		mask = (uint32_t)core_mask;
	if (!mask) {
		hal_err("rknn_set_core_mask: 0x%x: not a set of the NPU's %u cores", core_mask,
			NPU_CORE_COUNT);
		return RKNN_ERR_PARAM_INVALID;
	}
	if (rkb_ctx_set_cores(c->rkb, mask, err, sizeof(err))) {
		hal_err("rknn_set_core_mask: 0x%x: %s", core_mask, err);
		return RKNN_ERR_DEVICE_UNAVAILABLE;
	}
	return RKNN_SUCC;
}

int rknn_set_core_mask(rknn_context context, rknn_core_mask core_mask)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, "rknn_set_core_mask", &c);

	if (rc)
		return rc;
	rc = set_core_mask_on(c, core_mask);
	rknn_ctx_leave(context);
	return rc;
}

/* ---- not supported: a clear error, never a silent no-op ---- */

static int unsupported(rknn_context context, const char *what)
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(context, what, &c);

	if (rc)
		return rc;
	rknn_ctx_leave(context);
	hal_err("rknn: %s is not supported by rkbare", what);
	return RKNN_ERR_PARAM_INVALID;
}

int rknn_set_batch_core_num(rknn_context context, int core_num)
{
	(void)core_num;
	return unsupported(context, "rknn_set_batch_core_num (batch 1 only)");
}

/* attr's dims, in the edge's own order (an NHWC attr for an NCHW edge
 * and the other way round are permuted), equal io's. */
static bool attr_shape_is(const rknn_tensor_attr *attr, const struct rkb_io *io)
{
	rknn_tensor_format fmt = edge_fmt(io);
	uint32_t d[RKNN_MAX_DIMS];

	if (attr->n_dims != io->rank || io->rank > RKNN_MAX_DIMS)
		return false;
	memcpy(d, attr->dims, sizeof(d));
	if (io->rank == 4 && fmt == RKNN_TENSOR_NCHW && attr->fmt == RKNN_TENSOR_NHWC) {
		d[1] = attr->dims[3];
		d[2] = attr->dims[1];
		d[3] = attr->dims[2];
	} else if (io->rank == 4 && fmt == RKNN_TENSOR_NHWC && attr->fmt == RKNN_TENSOR_NCHW) {
		d[1] = attr->dims[2];
		d[2] = attr->dims[3];
		d[3] = attr->dims[1];
	}
	for (uint32_t k = 0; k < io->rank; k++)
		if (d[k] != io->dims[k])
			return false;
	return true;
}

/*
 * Dynamic shapes: the shape set (INPUT_DYNAMIC_RANGE) whose input
 * dimensions attr[] give, one attr per input in index order. The program
 * for it is lowered here, not at the next run; memory bound with
 * rknn_set_io_mem is released (its size was the old shape's: bind again),
 * and outputs rknn_outputs_get lent are freed.
 */
static int set_input_shapes_on(struct rknn_ctx *c, uint32_t n_inputs, rknn_tensor_attr attr[])
{
	const struct rkb_model *m;
	uint32_t set;
	char err[160];
	int rc;

	m = rkb_ctx_model(c->rkb);
	if (!attr || n_inputs != m->n_inputs) {
		hal_err("rknn_set_input_shapes: %u attrs for a model of %u inputs", n_inputs,
			m->n_inputs);
		return RKNN_ERR_PARAM_INVALID;
	}
	for (set = 0; set < m->n_shapes; set++) {
		bool all = true;

		for (uint32_t i = 0; all && i < n_inputs; i++)
			all = attr_shape_is(&attr[i], &m->shapes[set].inputs[i]);
		if (all)
			break;
	}
	if (set == m->n_shapes) {
		hal_err("rknn_set_input_shapes: the dimensions are none of the model's %u shape "
			"sets (the INPUT_DYNAMIC_RANGE query lists them)", m->n_shapes);
		return RKNN_ERR_INPUT_INVALID;
	}
	rknn_finish_frame(c);	/* the program changes: no frame may be in flight */
	rc = rkb_ctx_set_shape(c->rkb, set, err, sizeof(err));
	if (rc) {
		hal_err("rknn_set_input_shapes: shape set %u: %s", set, err);
		return rknn_status(rc);
	}
	for (uint32_t i = 0; i < c->n_edges; i++)
		rknn_release_mem(&c->bound[i]);
	for (uint32_t i = 0; i < m->n_outputs; i++) {
		free(c->out_bufs[i]);
		c->out_bufs[i] = NULL;
	}
	c->kept_valid = false;	/* the frame before had the old shapes */
	return RKNN_SUCC;
}

int rknn_set_input_shapes(rknn_context ctx, uint32_t n_inputs, rknn_tensor_attr attr[])
{
	struct rknn_ctx *c;
	int rc = rknn_ctx_enter(ctx, "rknn_set_input_shapes", &c);

	if (rc)
		return rc;
	rc = set_input_shapes_on(c, n_inputs, attr);
	rknn_ctx_leave(ctx);
	return rc;
}
