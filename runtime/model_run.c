/* SPDX-License-Identifier: MIT */
/*
 * Compile once, run many (model_run.h). On one core the whole model is one
 * chained program: each op's tasks follow the previous op's in the PC
 * chain, so an op starts only when the one before it has written its
 * output, and one kick runs the graph.
 *
 * On several cores each op is cut into independent tasks (kernel groups,
 * row bands: lower_tile.c) and the tasks into one range per core
 * (rc_program_split). Cores do not wait for each other, so an op that
 * spreads is a stage of its own, kicked once its predecessor has ended;
 * ops that do not spread (pools, adds, one-task layers) chain on the first
 * core as on a single core, one stage for a run of them. The outputs are
 * the single-core ones bit for bit: every task computes the same sums.
 *
 * A CPU op (cpu_ops.h) is a stage of its own between kicks: the kick before
 * it has ended (its output invalidated by the driver), the one after it
 * starts once it returns. With rkb_ctx_set_per_op every op is a stage, for
 * per-op times.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "hal.h"
#include "compiler/layout.h"
#include "runtime/dma_verify.h"
#include "runtime/model_ctx.h"
#include "runtime/op_kinds.h"

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

static void op_addrs(const struct rkb_ctx *c, const struct rkb_op *op, struct rkb_op_addrs *a)
{
	uint32_t k = c->consts.phys;

	a->in[0] = rkb_tensor_phys(c, op->in[0]);
	a->in[1] = op->in[1] == RKB_NONE ? 0 : rkb_tensor_phys(c, op->in[1]);
	a->out = rkb_tensor_phys(c, op->out);
	a->weights = op->weights.bytes ? k + op->weights.offset : 0;
	a->bias = op->bias.bytes ? k + op->bias.offset : 0;
	a->mult = op->mult.bytes ? k + op->mult.offset : 0;
	a->scratch = op->scratch_bytes ? c->arena.phys + op->scratch_offset : 0;
}

static unsigned int core_count(uint32_t mask)
{
	return (unsigned int)__builtin_popcount(mask);
}

/* Lower op i (or count its tasks when p is NULL), cut for `cores` cores,
 * by its type's row (op_kinds.h); a CPU op has no tasks: a stage of its
 * own (build_stages). */
static int lower_op(const struct rkb_ctx *c, uint32_t i, unsigned int cores,
		    struct rc_program *p, size_t *count)
{
	const struct rkb_op *op = &c->m.ops[i];
	const struct rkb_op_kind *k = rkb_op_kind_of(op->type);
	struct rkb_op_addrs a;

	if (!k)
		return RKB_E_OP;	/* the loader refuses it: never here */
	if (!k->lower) {
		if (count)
			*count = 0;
		return 0;
	}
	op_addrs(c, op, &a);
	return k->lower(&c->m, op, &a, cores, p, count);
}

/* Does op i run on the CPU (a stage of its own)? */
static bool on_cpu(const struct rkb_model *m, uint32_t i)
{
	const struct rkb_op_kind *k = rkb_op_kind_of(m->ops[i].type);

	return k && k->engine == RKB_ENGINE_CPU;
}

/* Submit flags and cache maintenance shared by every stage. The arena holds
 * inputs and outputs: cleaned before the kick (the inputs written by the
 * CPU), invalidated after (the outputs). The constants were cleaned once at
 * create. */
static void stage_init(struct rkb_ctx *c, struct rkb_stage *st)
{
	memset(&st->sub, 0, sizeof(st->sub));
	st->sub.flags = NPU_JOB_PC | NPU_JOB_BLOCK | NPU_JOB_PINGPONG;
	st->sub.tasks = c->tasks;
	st->sub.task_count = (uint32_t)c->p.task_count;
	st->sub.outputs = c->io_bufs;
	st->sub.output_count = c->n_io_bufs;
}

/* Link the ranges as chains of their own and give them to the cores of
 * mask in order, one each (BSP slot rule, drivers/npu/npu.h: core n takes
 * slot n with one or two cores, slot n + 2 with three). */
static int stage_add(struct rkb_ctx *c, const struct npu_subcore_task *ranges,
		     unsigned int n, uint32_t mask)
{
	struct rkb_stage *st = &c->stages[c->n_stages++];
	unsigned int core = 0;

	stage_init(c, st);
	st->cpu_op = RKB_NONE;
	for (unsigned int r = 0; r < n; r++, core++) {
		while (!(mask & (1u << core)))
			core++;
		if (rc_program_link_range(&c->p, c->prog.phys, ranges[r].task_start,
					  ranges[r].task_number) ||
		    rc_program_tasks(&c->p, c->prog.phys, ranges[r].task_start,
				     ranges[r].task_number, c->tasks + ranges[r].task_start))
			return RKB_E_OP;
		st->sub.core_mask |= 1u << core;
		st->sub.subcore_task[core + (n == NPU_CORE_COUNT ? 2u : 0u)] = ranges[r];
		st->sub.task_number += ranges[r].task_number;
	}
	return RKB_OK;
}

/* The open run of serial ops: its first task and first op. */
struct serial_run {
	size_t task;		/* SIZE_MAX: none open */
	uint32_t op;
};

/* The stage just added runs ops [first, first + n). */
static void stage_ops(struct rkb_ctx *c, uint32_t first, uint32_t n)
{
	c->stages[c->n_stages - 1].first_op = first;
	c->stages[c->n_stages - 1].n_ops = n;
}

/* Close the open run of serial ops, which ends at task `end`, op `end_op`,
 * as a one-core stage. */
static int close_serial(struct rkb_ctx *c, struct serial_run *run, size_t end, uint32_t end_op,
			uint32_t mask)
{
	struct npu_subcore_task tasks = { (uint32_t)run->task, (uint32_t)(end - run->task) };
	int rc;

	if (run->task == SIZE_MAX)
		return RKB_OK;
	run->task = SIZE_MAX;
	rc = stage_add(c, &tasks, 1, mask);
	if (!rc)
		stage_ops(c, run->op, end_op - run->op);
	return rc;
}

/* Group the lowered ops into stages (header comment); op_first[i] is op
 * i's first task, op_first[n_ops] the task count. A CPU op is a stage of
 * its own between kicks. */
static int build_stages(struct rkb_ctx *c, const size_t *op_first, uint32_t mask)
{
	struct npu_subcore_task ranges[NPU_CORE_COUNT];
	struct serial_run serial = { SIZE_MAX, 0 };
	int rc = RKB_OK;

	for (uint32_t i = 0; i < c->m.n_ops && !rc; i++) {
		size_t first = op_first[i], count = op_first[i + 1] - first;
		int n;

		if (on_cpu(&c->m, i)) {
			rc = close_serial(c, &serial, first, i, mask);
			c->stages[c->n_stages++].cpu_op = i;
			stage_ops(c, i, 1);
			continue;
		}
		n = rc_program_split(&c->p, first, count, core_count(mask), ranges);
		if (n < 1)
			return RKB_E_OP;
		if (n == 1 && !c->per_op) {
			if (serial.task == SIZE_MAX)
				serial = (struct serial_run){ first, i };
			continue;
		}
		rc = close_serial(c, &serial, first, i, mask);
		if (!rc)
			rc = stage_add(c, ranges, (unsigned int)n, mask);
		if (!rc)
			stage_ops(c, i, 1);
	}
	if (!rc)
		rc = close_serial(c, &serial, c->p.task_count, c->m.n_ops, mask);
	return rc;
}

static void free_program(struct rkb_ctx *c)
{
	dma_pool_release(c->pool, &c->prog);
	free(c->rc_tasks);
	free(c->tasks);
	free(c->stages);
	c->rc_tasks = NULL;
	c->tasks = NULL;
	c->stages = NULL;
	c->n_stages = 0;
}

/* Lower every op into the program for the cores of mask and group its
 * tasks into stages (build_stages). */
static int build_program(struct rkb_ctx *c, uint32_t mask)
{
	const struct rkb_model *m = &c->m;
	unsigned int cores = core_count(mask);
	size_t n = 0, cap, *op_first;
	int rc = 0;

	op_first = calloc(m->n_ops + 1u, sizeof(*op_first));
	if (!op_first)
		return RKB_E_NOMEM;
	/* One core: the count the loader verified. Several: the ops cut finer.
	 * The program: each op's tasks at its type's entries per task. */
	cap = 0;
	for (uint32_t i = 0; i < m->n_ops && !rc; i++) {
		const struct rkb_op_kind *k = rkb_op_kind_of(m->ops[i].type);
		size_t tasks = 0;

		rc = lower_op(c, i, cores, NULL, &tasks);
		n += tasks;
		cap += tasks ? rc_program_size(tasks, k->task_entries) : 0;
	}
	if (!rc && cores <= 1 && n != m->plan.tasks)
		rc = RKB_E_OP;
	/* a model of CPU ops only has no tasks: buffers of one keep it simple */
	if (!cap)
		cap = rc_program_size(1, CONV_TASK_MAX_ENTRIES);
	c->rc_tasks = calloc(n ? n : 1, sizeof(*c->rc_tasks));
	c->tasks = calloc(n ? n : 1, sizeof(*c->tasks));
	/* at most: every op a stage, and a serial run between each two */
	c->stages = calloc(2u * m->n_ops + 1u, sizeof(*c->stages));
	if (rc || !c->rc_tasks || !c->tasks || !c->stages ||
	    dma_pool_alloc(c->pool, cap * sizeof(uint64_t), RC_TASK_ALIGN_BYTES, &c->prog)) {
		free(op_first);
		return rc ? RKB_E_OP : RKB_E_NOMEM;
	}
	rc_program_init(&c->p, c->prog.cpu, cap, c->rc_tasks, n);
	for (uint32_t i = 0; i < m->n_ops && !rc; i++) {
		op_first[i] = c->p.task_count;
		rc = lower_op(c, i, cores, &c->p, NULL);
	}
	op_first[m->n_ops] = c->p.task_count;
	c->n_io_bufs = 0;
	c->io_bufs[c->n_io_bufs++] = (struct npu_buf){ c->arena.cpu, c->arena.size };
	for (uint32_t i = 0; i < m->n_inputs + m->n_outputs; i++)
		if (c->binds[i].cpu)
			c->io_bufs[c->n_io_bufs++] = (struct npu_buf){ c->binds[i].cpu,
								       c->binds[i].size };
	c->core_mask = mask;
	if (rc || c->p.err || c->p.task_count != n)
		rc = RKB_E_OP;
	else
		rc = build_stages(c, op_first, mask);
	free(op_first);
	if (rc)
		return rc;
	c->stats.regcmd_bytes = (uint32_t)(c->p.len * sizeof(uint64_t));
	c->stats.dma_bytes = (uint32_t)(c->arena.size + c->consts.size + c->prog.size);
	return RKB_OK;
}

/* Every address of every task inside the context's own buffers
 * (runtime/dma_verify.h): checked once, the stream never changes. */
static int verify_program(const struct rkb_ctx *c, char *err, size_t err_len)
{
	struct dv_range *owned = calloc(3u + c->m.n_inputs + c->m.n_outputs, sizeof(*owned));
	unsigned int n = 0;
	char why[192];
	int bad;

	if (!owned)
		return rkb_ctx_fail(err, err_len, RKB_E_NOMEM, "out of memory");
	owned[n++] = (struct dv_range){ c->arena.phys, c->arena.size, "arena" };
	owned[n++] = (struct dv_range){ c->consts.phys, c->consts.size, "constants" };
	owned[n++] = (struct dv_range){ c->prog.phys, c->prog.size, "command stream" };
	for (uint32_t i = 0; i < c->m.n_inputs + c->m.n_outputs; i++)
		if (c->binds[i].cpu)
			owned[n++] = (struct dv_range){ c->binds[i].phys, c->binds[i].size,
							i < c->m.n_inputs ? "bound input" :
							"bound output" };
	bad = dv_check_job(c->tasks, (uint32_t)c->p.task_count, c->prog.cpu, c->prog.phys,
			   c->p.len, owned, n, why, sizeof(why));
	free(owned);
	if (!bad)
		return RKB_OK;
	if (err_len)
		snprintf(err, err_len, "DMA verifier: %s", why);
	return RKB_E_DMA;
}

/* Lower the program again for mask (with the bindings as they are now). */
int rkb_ctx_rebuild(struct rkb_ctx *c, uint32_t mask, char *err, size_t err_len)
{
	int rc;

	free_program(c);
	c->core_mask = mask;
	if (!rkb_ctx_has_buffers(c))
		return RKB_OK;	/* built when the arena and constants come (*_OUTSIDE) */
	rc = build_program(c, mask);
	if (rc)
		return rkb_ctx_fail(err, err_len, rc, rc == RKB_E_NOMEM ? "DMA pool: no room for the "
			    "command stream" : "the lowering failed on a verified op");
	rc = verify_program(c, err, err_len);
	if (rc)
		free_program(c);
	return rc;
}

/* After a failed rebuild: the program as it was (it fitted before); should
 * even that fail, runs are refused with RKB_E_NOMEM. */
void rkb_ctx_restore(struct rkb_ctx *c, uint32_t mask)
{
	if (rkb_ctx_rebuild(c, mask, NULL, 0))
		free_program(c);
}

int rkb_ctx_set_cores(struct rkb_ctx *c, uint32_t core_mask, char *err, size_t err_len)
{
	uint32_t old;
	int rc;

	if (!c || !core_mask || core_mask >> NPU_CORE_COUNT ||
	    (core_mask & ~npu_powered_mask(c->dev)))
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "core mask names a core the NPU lacks or "
			    "has not powered");
	if (c->running)
		return rkb_ctx_fail(err, err_len, RKB_E_BUSY, "a run is in flight");
	if (core_mask == c->core_mask)
		return RKB_OK;
	if (core_count(core_mask) == 1 && core_count(c->core_mask) == 1 && c->n_stages) {
		/* the same chains on another core */
		unsigned int from = (unsigned int)__builtin_ctz(c->core_mask);
		unsigned int to = (unsigned int)__builtin_ctz(core_mask);

		for (uint32_t i = 0; i < c->n_stages; i++) {
			struct npu_submit *sub = &c->stages[i].sub;

			if (c->stages[i].cpu_op != RKB_NONE)
				continue;
			sub->subcore_task[to] = sub->subcore_task[from];
			sub->subcore_task[from] = (struct npu_subcore_task){ 0, 0 };
			sub->core_mask = core_mask;
		}
		c->core_mask = core_mask;
		return RKB_OK;
	}
	/* A new cut of the ops: lowered again, as at create. */
	old = c->core_mask;
	rc = rkb_ctx_rebuild(c, core_mask, err, err_len);
	if (rc)
		rkb_ctx_restore(c, old);
	return rc;
}

int rkb_ctx_set_core(struct rkb_ctx *c, unsigned int core)
{
	if (!c || core >= NPU_CORE_COUNT)
		return RKB_E_ARG;
	return rkb_ctx_set_cores(c, 1u << core, NULL, 0);
}

/* Tensor t of the model as a CPU op sees it, where it is now (arena or a
 * bound buffer); the checker lets CPU ops read and write int8 and fp16. */
static struct rkb_cpu_tensor cpu_tensor(struct rkb_ctx *c, uint32_t t)
{
	const struct rkb_tensor *x = &c->m.tensors[t];

	return (struct rkb_cpu_tensor){
		rkb_tensor_data(c, t), x->c, x->h, x->w, x->scale, x->zp,
		x->dtype == RKB_DT_FP16 ? RKB_CPU_FP16 : RKB_CPU_INT8,
	};
}

/* What CPU op i sees: its tensors and its parameters (in the container,
 * which outlives us). */
static void cpu_call(struct rkb_ctx *c, uint32_t i, struct rkb_cpu_call *call)
{
	const struct rkb_op *op = &c->m.ops[i];

	call->node = rkb_model_str(&c->m, op->name);
	call->in = cpu_tensor(c, op->in[0]);
	call->out = cpu_tensor(c, op->out);
	call->in2 = (struct rkb_cpu_tensor){ 0 };
	if (op->in[1] != RKB_NONE)
		call->in2 = cpu_tensor(c, op->in[1]);
	call->params = op->weights.bytes ? c->m.constants + op->weights.offset : NULL;
	call->params_bytes = op->weights.bytes;
}

/* Each CPU op's implementation (cpu_ops.h), asked once whether it takes
 * the op's tensors and parameters. */
static int resolve_cpu_ops(struct rkb_ctx *c, char *err, size_t err_len)
{
	char why[160];

	c->cpu_impl = calloc(c->m.n_ops, sizeof(*c->cpu_impl));
	if (!c->cpu_impl)
		return rkb_ctx_fail(err, err_len, RKB_E_NOMEM, "out of memory");
	for (uint32_t i = 0; i < c->m.n_ops; i++) {
		const struct rkb_op *op = &c->m.ops[i];
		const char *type = rkb_model_str(&c->m, op->cpu_type);
		struct rkb_cpu_call call;

		if (!on_cpu(&c->m, i))
			continue;
		c->cpu_impl[i] = rkb_cpu_op_find(type);
		cpu_call(c, i, &call);
		call.in.data = call.in2.data = call.out.data = NULL;	/* shapes only */
		why[0] = '\0';
		if (!c->cpu_impl[i] ||
		    (c->cpu_impl[i]->check && c->cpu_impl[i]->check(&call, why, sizeof(why)))) {
			if (err_len)
				snprintf(err, err_len, "op[%u] '%s': CPU op '%s': %s", i, call.node,
					 type, c->cpu_impl[i] ? why : "no implementation "
					 "registered (rkb_cpu_op_register)");
			return RKB_E_OP;
		}
	}
	return RKB_OK;
}

int rkb_ctx_set_shape(struct rkb_ctx *c, uint32_t set, char *err, size_t err_len)
{
	size_t n_edges, bind_bytes;
	const struct rkb_cpu_op **impl;
	struct rkb_binding *saved;
	uint32_t old;
	int rc;

	if (!c)
		return RKB_E_ARG;
	if (set >= c->m.n_shapes) {
		if (err_len)
			snprintf(err, err_len, "shape set %u: the model has %u", set,
				 c->m.n_shapes);
		return RKB_E_ARG;
	}
	if (c->running)
		return rkb_ctx_fail(err, err_len, RKB_E_BUSY, "a run is in flight");
	if (set == c->m.shape)
		return RKB_OK;
	n_edges = c->m.n_inputs + c->m.n_outputs;
	bind_bytes = n_edges * sizeof(*c->binds);
	saved = malloc(bind_bytes);
	if (!saved)
		return rkb_ctx_fail(err, err_len, RKB_E_NOMEM, "out of memory");
	memcpy(saved, c->binds, bind_bytes);
	/* the edges change size: bindings to the caller's memory end here */
	memset(c->binds, 0, bind_bytes);
	old = c->m.shape;
	impl = c->cpu_impl;
	c->cpu_impl = NULL;
	rkb_model_select_shape(&c->m, set);
	rc = resolve_cpu_ops(c, err, err_len);
	if (!rc)
		rc = rkb_ctx_rebuild(c, c->core_mask, err, err_len);
	if (rc) {
		free(c->cpu_impl);
		c->cpu_impl = impl;
		rkb_model_select_shape(&c->m, old);
		memcpy(c->binds, saved, bind_bytes);
		rkb_ctx_restore(c, c->core_mask);
	} else {
		free(impl);
		if (c->arena.cpu)
			rkb_ctx_clear_arena(c);	/* zero channel lanes, as at create */
	}
	free(saved);
	return rc;
}

/* Bytes of the largest edge tensor of any shape set, as NCHW elements of
 * its type (the staging buffer). */
static size_t max_edge_bytes(const struct rkb_model *m)
{
	size_t n = 0;

	for (uint32_t k = 0; k < m->n_shapes; k++) {
		const struct rkb_shape *sh = &m->shapes[k];

		for (uint32_t i = 0; i < m->n_inputs + m->n_outputs; i++) {
			const struct rkb_io *io = i < m->n_inputs ? &sh->inputs[i] :
						  &sh->outputs[i - m->n_inputs];
			size_t b = rkb_io_elems(io) *
				   layout_elem_bytes(rkb_tensor_prec(&sh->tensors[io->tensor]));

			n = b > n ? b : n;
		}
	}
	return n;
}

int rkb_ctx_create(struct npu_dev *dev, struct dma_pool *pool, const void *blob,
		   size_t size, uint32_t core_mask, uint32_t flags, struct rkb_ctx **out,
		   char *err, size_t err_len)
{
	struct rkb_ctx *c;
	int rc;

	if (!out)
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "out: NULL");
	*out = NULL;
	if (!dev || !pool)
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "device or DMA pool: NULL");
	if (!core_mask)
		core_mask = 1u;		/* core 0 */
	if (core_mask >> NPU_CORE_COUNT)
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "core mask names a core the NPU lacks");
	if (core_mask & ~npu_powered_mask(dev))
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "a core of the mask is not powered");
	c = calloc(1, sizeof(*c));
	if (!c)
		return rkb_ctx_fail(err, err_len, RKB_E_NOMEM, "out of memory");
	c->dev = dev;
	c->pool = pool;
	rc = rkb_model_load(blob, size, &c->m, err, err_len);
	if (rc) {
		free(c);
		return rc;
	}
	c->staging_bytes = max_edge_bytes(&c->m);
	c->staging = malloc(c->staging_bytes);
	c->binds = calloc(c->m.n_inputs + c->m.n_outputs, sizeof(*c->binds));
	c->io_bufs = calloc(1u + c->m.n_inputs + c->m.n_outputs, sizeof(*c->io_bufs));
	c->arena_own = !(flags & RKB_CTX_ARENA_OUTSIDE);
	c->consts_own = !(flags & RKB_CTX_CONSTANTS_OUTSIDE);
	c->core_mask = core_mask;
	if (!c->staging || !c->binds || !c->io_bufs ||
	    (c->arena_own &&
	     dma_pool_alloc(pool, c->m.max_arena_bytes, RKB_ARENA_ALIGN, &c->arena)) ||
	    (c->consts_own && c->m.const_bytes &&
	     dma_pool_alloc(pool, c->m.const_bytes, RKB_CONST_ALIGN, &c->consts))) {
		rc = rkb_ctx_fail(err, err_len, RKB_E_NOMEM, "DMA pool: no room for the arena and "
			  "constants");
		goto err;
	}
	rc = resolve_cpu_ops(c, err, err_len);
	if (rc)
		goto err;
	if (c->consts_own)
		rkb_ctx_fill_constants(c);
	if (c->arena_own)
		rkb_ctx_clear_arena(c);
	if (!rkb_ctx_has_buffers(c)) {
		*out = c;	/* the program waits for rkb_ctx_set_arena / _set_constants */
		return RKB_OK;
	}
	rc = build_program(c, core_mask);
	if (rc) {
		rkb_ctx_fail(err, err_len, rc, rc == RKB_E_NOMEM ? "DMA pool: no room for the command "
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
	free_program(c);
	if (c->consts_own)
		dma_pool_release(c->pool, &c->consts);
	if (c->arena_own)
		dma_pool_release(c->pool, &c->arena);
	free(c->staging);
	free(c->binds);
	free(c->io_bufs);
	free(c->cpu_impl);
	rkb_model_unload(&c->m);
	free(c);
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
	if (err == NPU_ERR_BUSY)
		return RKB_E_BUSY;	/* another context kept the cores */
	return err ? RKB_E_NPU : RKB_OK;
}

/* Add what a finished stage did to the run's figures. */
static void stage_stats(struct rkb_ctx *c, const struct npu_submit *sub)
{
	c->stats.tasks += sub->task_counter;
	for (unsigned int i = 0; i < NPU_CORE_COUNT; i++)
		c->stats.kicks += sub->core[i].kicks;
	c->stats.hw_ticks += sub->hw_ticks;
}

static int stage_wait(struct rkb_ctx *c, struct rkb_stage *st)
{
	int err;

	do
		err = npu_submit_poll(c->dev, &c->job);
	while (err == NPU_PENDING);
	stage_stats(c, &st->sub);
	st->ticks = st->sub.hw_ticks;
	return err;
}

/* Run CPU op i. The lanes past the real channels of its output hold the
 * zero point (fp16: 0), as an NPU producer leaves them (a padded channel
 * group). */
static int run_cpu(struct rkb_ctx *c, struct rkb_stage *st)
{
	uint32_t i = st->cpu_op;
	const struct rkb_tensor *t = &c->m.tensors[c->m.ops[i].out];
	uint64_t t0 = hal_counter();
	struct rkb_cpu_call call;
	int failed;

	cpu_call(c, i, &call);
	failed = c->cpu_impl[i]->run(&call);
	st->ticks = hal_counter() - t0;
	if (failed)
		return RKB_E_CPU_OP;
	for (unsigned int ch = t->c; ch < t->c_mem; ch++)
		for (unsigned int y = 0; y < t->h; y++)
			for (unsigned int x = 0; x < t->w; x++)
				rkb_cpu_set(&call.out, ch, y, x, 0.0f);
	return RKB_OK;
}

/* Run stage i to its end: a kick polled to completion, or a CPU op. */
static int stage_run(struct rkb_ctx *c, uint32_t i)
{
	struct rkb_stage *st = &c->stages[i];
	int err;

	if (st->cpu_op != RKB_NONE)
		return run_cpu(c, st);
	err = npu_submit_start_wait(c->dev, &st->sub, &c->job);
	if (!err)
		err = stage_wait(c, st);
	return npu_status(err);
}

/* After stage i has run to its end: the debugging tap, if any. */
static void stage_done(struct rkb_ctx *c, uint32_t i)
{
	if (c->tap)
		c->tap(c->tap_user, c, c->stages[i].first_op, c->stages[i].n_ops);
}

void rkb_ctx_set_tap(struct rkb_ctx *c, rkb_stage_tap tap, void *user)
{
	if (!c)
		return;
	c->tap = tap;
	c->tap_user = user;
}

/* Every stage but the last runs to its end here (the next one reads its
 * output); the last is left running if it is a kick. */
int rkb_run_start(struct rkb_ctx *c)
{
	const struct rkb_stage *last;
	int rc = RKB_OK;

	if (!c)
		return RKB_E_ARG;
	if (c->running)
		return RKB_E_BUSY;
	if (!rkb_ctx_has_buffers(c))
		return RKB_E_ARG;	/* *_OUTSIDE: no arena or constants given yet */
	if (!c->n_stages)
		return RKB_E_NOMEM;	/* a rebuild failed twice */
	c->stats.tasks = c->stats.kicks = 0;
	c->stats.hw_ticks = 0;
	for (uint32_t i = 0; i + 1 < c->n_stages && !rc; i++) {
		rc = stage_run(c, i);
		if (!rc)
			stage_done(c, i);
	}
	last = &c->stages[c->n_stages - 1];
	if (!rc && last->cpu_op != RKB_NONE) {
		rc = run_cpu(c, &c->stages[c->n_stages - 1]);
		if (!rc)
			stage_done(c, c->n_stages - 1);
	}
	if (rc || last->cpu_op != RKB_NONE)
		return rc;
	rc = npu_status(npu_submit_start_wait(c->dev, &c->stages[c->n_stages - 1].sub,
					      &c->job));
	c->running = !rc;
	return rc;
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
	err = stage_wait(c, &c->stages[c->n_stages - 1]);
	c->running = false;
	if (!err)
		stage_done(c, c->n_stages - 1);
	return npu_status(err);
}

uint32_t rkb_ctx_stages(const struct rkb_ctx *c, struct rkb_stage_info *out, uint32_t max)
{
	uint32_t n = c->n_stages < max ? c->n_stages : max;

	for (uint32_t i = 0; i < n; i++) {
		const struct rkb_stage *st = &c->stages[i];

		out[i] = (struct rkb_stage_info){
			.first_op = st->first_op, .n_ops = st->n_ops,
			.cpu = st->cpu_op != RKB_NONE,
			.tasks = st->cpu_op != RKB_NONE ? 0 : st->sub.task_number,
			.ticks = st->ticks,
		};
	}
	return c->n_stages;
}

int rkb_ctx_set_per_op(struct rkb_ctx *c, bool on, char *err, size_t err_len)
{
	bool old;
	int rc;

	if (!c)
		return RKB_E_ARG;
	if (c->running)
		return rkb_ctx_fail(err, err_len, RKB_E_BUSY, "a run is in flight");
	if (c->per_op == on)
		return RKB_OK;
	old = c->per_op;
	c->per_op = on;
	rc = rkb_ctx_rebuild(c, c->core_mask, err, err_len);
	if (rc) {
		c->per_op = old;
		rkb_ctx_restore(c, c->core_mask);
	}
	return rc;
}

void rkb_ctx_stats(const struct rkb_ctx *c, struct rkb_run_stats *st)
{
	*st = c->stats;
}
