// SPDX-License-Identifier: MIT
/*
 * Task execution: the blocks a task enables, in data-flow order.
 *
 *   CNA + CORE (exec_conv.c)  input/weight DMA, convolution → accumulators
 *   DPU (exec_dpu.c)          BS / BN / EW stages, OUT_CVT, write DMA,
 *                             optionally feeding the PPU on the fly
 *   PPU (exec_ppu.c)          pooling from the DPU or from PPU_RDMA
 *
 * Register meanings: HARDWARE.md §4-6. Every combination the model
 * does not understand is refused with a diagnostic (the PC then reports a
 * DMA read error) rather than guessed; readings of UNSURE facts are listed
 * in sim/ASSUMPTIONS.md.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/exec.h"
#include "sim/fp16.h"

uint32_t sim_exec_reg(const struct sim_core *c, int block, uint16_t offset)
{
	unsigned g = sim_block_is_pingpong(block) ? c->pp[block].executer : 0;

	return c->regs[g][offset / 4u];
}

int sim_dma_range(struct sim_core *c, uint64_t addr, uint64_t len, bool write,
		  const char *what, uint8_t **out)
{
	*out = NULL;
	if (len == 0)
		len = 1;
	/* TRM RKNN_pc_task_dma_base_addr: the feature, weight, DPU and PPU DMAs
	 * add it to every address they are given; the regcmd fetch does not
	 * (UNSURE A4: every driver writes 0; board probe A4-dma-base). */
	addr += c->regs[0][NPU_PC_TASK_DMA_BASE_ADDR / 4u] &
		NPU_FV(PC, TASK_DMA_BASE_ADDR, DMA_BASE_ADDR, ~0u);
	/* NPU address fields are 32 bits (HARDWARE.md §3.6). */
	if (addr + len > (1ull << 32) ||
	    !(*out = c->soc->bus.map(c->soc->bus.ctx, addr, (size_t)len))) {
		sim_error(c->soc, "core %u: %s %s of %llu bytes at 0x%08llx is outside RAM",
			  c->index, what, write ? "write" : "read",
			  (unsigned long long)len, (unsigned long long)addr);
		return write ? SIM_EXEC_WRITE_ERROR : SIM_EXEC_READ_ERROR;
	}
	return SIM_EXEC_OK;
}

void *sim_scratch(struct sim_core *c, enum sim_scratch_slot slot, size_t bytes)
{
	struct sim_scratch *s = &c->scratch[slot];

	if (!bytes)
		bytes = 1;
	if (bytes > s->cap) {
		/* no realloc: the old contents are never needed */
		free(s->p);
		s->p = malloc(bytes);
		s->cap = s->p ? bytes : 0;
	}
	return s->p;
}

void sim_scratch_release(struct sim_core *c)
{
	for (unsigned i = 0; i < SIM_SCR_COUNT; i++) {
		free(c->scratch[i].p);
		c->scratch[i].p = NULL;
		c->scratch[i].cap = 0;
	}
}

int sim_cube_alloc(struct sim_core *c, struct sim_cube *cube, enum sim_scratch_slot slot,
		   unsigned ch, unsigned h, unsigned w, bool is_float)
{
	size_t n = (size_t)ch * h * w;
	size_t bytes = n * (is_float ? sizeof(*cube->f) : sizeof(*cube->i));
	void *p = sim_scratch(c, slot, bytes);

	cube->c = ch;
	cube->h = h;
	cube->w = w;
	cube->is_float = is_float;
	cube->i = is_float ? NULL : p;
	cube->f = is_float ? p : NULL;
	if (!p) {
		sim_error(c->soc, "core %u: out of memory for a %ux%ux%u cube",
			  c->index, ch, h, w);
		return SIM_EXEC_READ_ERROR;
	}
	return SIM_EXEC_OK;
}

bool sim_charge(struct sim_core *c, uint64_t work)
{
	uint64_t budget = c->soc->work_budget;

	if (budget && (work > budget || c->work_used > budget - work)) {
		c->stalled = true;
		sim_error(c->soc, "core %u: work budget of %llu multiply-accumulates per kick "
			  "exhausted (%llu used, the next task needs %llu)", c->index,
			  (unsigned long long)budget, (unsigned long long)c->work_used,
			  (unsigned long long)work);
		return true;
	}
	c->work_used += work;
	return false;
}

enum sim_exec_result sim_exec_task(struct sim_core *c, uint32_t en, bool write_output)
{
	struct sim_cube acc = { 0 }, dpu_out = { 0 };
	bool to_ppu = false;
	int r = SIM_EXEC_OK;

	/* The convolution pipe runs as a whole: CNA feeds CORE feeds DPU. */
	if (en & (NPU_EN_CNA | NPU_EN_CORE)) {
		if ((en & (NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU)) !=
		    (NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU))
			return sim_refuse(c, "enable mask 0x%x: CNA and CORE run only "
					  "together with the DPU (CNA+CORE+DPU)", en);
		r = sim_exec_conv(c, &acc);
		if (r)
			return r;
	}
	if (en & NPU_EN_DPU) {
		r = sim_exec_dpu(c, en, (en & NPU_EN_CORE) ? &acc : NULL, write_output,
				 &dpu_out, &to_ppu);
		if (r)
			return r;
	} else if (en & NPU_EN_DPU_RDMA) {
		return sim_refuse(c, "enable mask 0x%x: DPU_RDMA without the DPU", en);
	}
	if (en & NPU_EN_PPU) {
		r = sim_exec_ppu(c, en, to_ppu ? &dpu_out : NULL, write_output);
	} else if (to_ppu) {
		r = sim_refuse(c, "DPU output_mode sends data to the PPU, which is not enabled");
	} else if (en & NPU_EN_PPU_RDMA) {
		r = sim_refuse(c, "enable mask 0x%x: PPU_RDMA without the PPU", en);
	}
	return r;
}

int sim_refuse(struct sim_core *c, const char *fmt, ...)
{
	char msg[SIM_ERR_LEN];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	sim_error(c->soc, "core %u: refused: %s", c->index, msg);
	return SIM_EXEC_READ_ERROR;
}

unsigned sim_prec_bytes(int prec)
{
	switch (prec) {
	case NPU_PREC_INT8:
		return 1;
	case NPU_PREC_INT16:
	case NPU_PREC_FP16:
		return 2;
	case NPU_PREC_INT32:
	case NPU_PREC_FP32:
		return 4;
	default:
		return 0;	/* bf16, int4, tf32: no data path in the model */
	}
}

float sim_load_float(const uint8_t *p, int prec)
{
	uint16_t h;
	float f;

	if (prec == NPU_PREC_FP16) {
		memcpy(&h, p, sizeof(h));
		return sim_f16_to_f32(h);
	}
	memcpy(&f, p, sizeof(f));
	return f;
}

void sim_store_float(uint8_t *p, int prec, float v)
{
	uint16_t h;

	if (prec == NPU_PREC_FP16) {
		h = sim_f32_to_f16(v);
		memcpy(p, &h, sizeof(h));
	} else {
		memcpy(p, &v, sizeof(v));
	}
}
