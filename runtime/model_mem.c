// SPDX-License-Identifier: MIT
/*
 * Where a context's memory lives (model_run.h): edge tensors in the arena
 * or in the caller's buffers (zero copy), the arena and the constants from
 * the DMA pool or from the caller. Each move lowers the program again.
 */
#include <stdio.h>
#include <string.h>

#include "hal.h"
#include "compiler/layout.h"
#include "runtime/model_ctx.h"

int rkb_ctx_fail(char *err, size_t err_len, int status, const char *msg)
{
	if (err_len)
		snprintf(err, err_len, "%s", msg);
	return status;
}

const struct rkb_binding *rkb_ctx_bound(const struct rkb_ctx *c, uint32_t tensor)
{
	for (uint32_t i = 0; i < c->m.n_inputs + c->m.n_outputs; i++) {
		const struct rkb_io *io = i < c->m.n_inputs ? &c->m.inputs[i] :
					  &c->m.outputs[i - c->m.n_inputs];

		if (io->tensor == tensor && c->binds[i].cpu)
			return &c->binds[i];
	}
	return NULL;
}

void *rkb_tensor_data(struct rkb_ctx *c, uint32_t tensor)
{
	const struct rkb_binding *b;

	if (!c || tensor >= c->m.n_tensors)
		return NULL;
	b = rkb_ctx_bound(c, tensor);
	if (b)
		return b->cpu;
	if (!c->arena.cpu)
		return NULL;	/* RKB_CTX_ARENA_OUTSIDE before rkb_ctx_set_arena */
	return (uint8_t *)c->arena.cpu + c->m.tensors[tensor].arena_offset;
}

uint32_t rkb_tensor_phys(const struct rkb_ctx *c, uint32_t tensor)
{
	const struct rkb_binding *b = rkb_ctx_bound(c, tensor);

	return b ? b->phys : c->arena.phys + c->m.tensors[tensor].arena_offset;
}

/* A caller's buffer the NPU may use for `need` bytes: big enough, aligned,
 * and ending below 4 GiB (NPU addresses are 32 bits, HARDWARE.md §3.6). */
static bool buffer_fits(uint32_t phys, size_t size, size_t need, uint32_t align)
{
	return size >= need && !(phys % align) && (uint64_t)phys + size <= NPU_ADDR_SPACE;
}

int rkb_ctx_bind(struct rkb_ctx *c, bool output, uint32_t index, void *cpu, uint32_t phys,
		 size_t size, char *err, size_t err_len)
{
	struct rkb_binding *b, old;
	const struct rkb_io *io;
	const struct rkb_tensor *t;
	size_t need;
	int rc;

	if (!c)
		return RKB_E_ARG;
	if (index >= (output ? c->m.n_outputs : c->m.n_inputs))
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "no such input or output");
	if (c->running)
		return rkb_ctx_fail(err, err_len, RKB_E_BUSY, "a run is in flight");
	io = output ? &c->m.outputs[index] : &c->m.inputs[index];
	b = &c->binds[(output ? c->m.n_inputs : 0) + index];
	t = &c->m.tensors[io->tensor];
	need = layout_nc1hwc2_bytes(rkb_tensor_prec(t), t->h, t->w, t->c_mem);
	if (cpu && !buffer_fits(phys, size, need, RKB_ARENA_ALIGN))
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "the buffer must hold the tensor's native "
			    "bytes, start 64-byte aligned and end below 4 GiB");
	if (cpu && rkb_ctx_bound(c, io->tensor) && rkb_ctx_bound(c, io->tensor) != b)
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "the tensor is bound as the other edge");
	old = *b;
	*b = cpu ? (struct rkb_binding){ cpu, phys, size } : (struct rkb_binding){ 0 };
	rc = rkb_ctx_rebuild(c, c->core_mask, err, err_len);
	if (rc) {
		*b = old;
		rkb_ctx_restore(c, c->core_mask);
	}
	return rc;
}

/* Channel groups a producer leaves unwritten are read by wider consumers
 * against zero-point weights: the arena starts at zero. */
void rkb_ctx_clear_arena(struct rkb_ctx *c)
{
	memset(c->arena.cpu, 0, c->m.max_arena_bytes);
}

void rkb_ctx_fill_constants(struct rkb_ctx *c)
{
	if (!c->m.const_bytes)
		return;
	memcpy(c->consts.cpu, c->m.constants, c->m.const_bytes);
	hal_dcache_clean(c->consts.cpu, c->m.const_bytes);
}

/*
 * Move the arena (which != 0) or the constants into the caller's buffer:
 * filled, the program lowered again, the pool's buffer freed; on failure
 * everything as before.
 */
static int move_buffer(struct rkb_ctx *c, bool arena, void *cpu, uint32_t phys, size_t size,
		       char *err, size_t err_len)
{
	struct dma_buf *b = arena ? &c->arena : &c->consts, old = *b;
	bool *own = arena ? &c->arena_own : &c->consts_own, old_own = *own;
	size_t need = arena ? c->m.max_arena_bytes : c->m.const_bytes;
	uint32_t align = arena ? RKB_ARENA_ALIGN : RKB_CONST_ALIGN;
	int rc;

	if (!cpu)
		return rkb_ctx_fail(err, err_len, RKB_E_ARG, "no buffer");
	if (c->running)
		return rkb_ctx_fail(err, err_len, RKB_E_BUSY, "a run is in flight");
	if (!buffer_fits(phys, size, need, align)) {
		if (err_len)
			snprintf(err, err_len, "the %s buffer must hold %zu bytes, start %u-byte "
				 "aligned and end below 4 GiB", arena ? "arena" : "constants",
				 need, align);
		return RKB_E_ARG;
	}
	*b = (struct dma_buf){ cpu, phys, size };
	*own = false;
	if (arena)
		rkb_ctx_clear_arena(c);
	else
		rkb_ctx_fill_constants(c);
	rc = rkb_ctx_rebuild(c, c->core_mask, err, err_len);
	if (rc) {
		*b = old;
		*own = old_own;
		rkb_ctx_restore(c, c->core_mask);	/* nothing to build without an arena */
		return rc;
	}
	if (old_own)
		dma_pool_release(c->pool, &old);
	return RKB_OK;
}

int rkb_ctx_set_arena(struct rkb_ctx *c, void *cpu, uint32_t phys, size_t size, char *err,
		      size_t err_len)
{
	if (!c)
		return RKB_E_ARG;
	return move_buffer(c, true, cpu, phys, size, err, err_len);
}

int rkb_ctx_set_constants(struct rkb_ctx *c, void *cpu, uint32_t phys, size_t size, char *err,
			  size_t err_len)
{
	if (!c)
		return RKB_E_ARG;
	return move_buffer(c, false, cpu, phys, size, err, err_len);
}

int rkb_ctx_take_constants(struct rkb_ctx *c, struct dma_buf *out)
{
	if (!c || !out || !c->consts.cpu || !c->consts_own)
		return RKB_E_ARG;
	*out = c->consts;
	c->consts_own = false;
	return RKB_OK;
}
