// SPDX-License-Identifier: MIT
/*
 * Program Controller: PC registers, regcmd fetch and decode, task chaining,
 * completion and interrupt status (HARDWARE.md §2, §3).
 *
 * A kick (OPERATION_ENABLE 0 -> 1 with BASE_ADDRESS.pc_sel = 0) runs the
 * whole chain synchronously: every later register read sees the finished
 * job, unless a fault holds the completion back.
 */
#include <string.h>

#include "sim/sim_internal.h"

#define PC_REG(c, r)	((c)->regs[0][NPU_PC_##r / 4u])

/* Deliberately not "FIRE": what the bad_version fault makes VERSION read. */
#define SIM_BAD_VERSION	0x00000000u

bool sim_fault_applies(const struct sim_core *c, uint32_t fault)
{
	const struct sim_soc *soc = c->soc;

	return (soc->faults & fault) &&
	       (soc->fault_core == SIM_ALL_CORES || soc->fault_core == (int)c->index);
}

/* Consume a one-shot fault if it applies to this core. */
static bool take_fault(struct sim_core *c, uint32_t fault)
{
	if (!sim_fault_applies(c, fault))
		return false;
	c->soc->faults &= ~fault;
	return true;
}

/* Status-pair bits of the blocks a task ran, for the group they ran in
 * (HARDWARE.md §2.2: _0/_1 = register group the block executed). */
static uint32_t task_events(const struct sim_core *c, uint32_t enable_mask)
{
	bool swap = sim_fault_applies(c, SIM_FAULT_HALF_STATUS);
	uint32_t ev = 0;
	unsigned g;

	if (enable_mask & NPU_EN_CNA) {
		g = c->pp[NPU_BLOCK_CNA].executer ^ swap;
		ev |= (NPU_INT_CNA_FEATURE_0 | NPU_INT_CNA_WEIGHT_0 | NPU_INT_CNA_CSC_0) << g;
	}
	if (enable_mask & NPU_EN_CORE) {
		g = c->pp[NPU_BLOCK_CORE].executer ^ swap;
		ev |= NPU_INT_CORE_0 << g;
	}
	if (enable_mask & NPU_EN_DPU) {
		g = c->pp[NPU_BLOCK_DPU].executer ^ swap;
		ev |= NPU_INT_DPU_0 << g;
	}
	if (enable_mask & NPU_EN_PPU) {
		g = c->pp[NPU_BLOCK_PPU].executer ^ swap;
		ev |= NPU_INT_PPU_0 << g;
	}
	return ev;
}

/* Run one task's blocks; returns its events or an error bit. */
static uint32_t run_blocks(struct sim_core *c, uint32_t enable_mask, bool write_ok)
{
	enum sim_exec_result r;
	uint32_t ev;

	if (!enable_mask || (enable_mask & ~NPU_EN_VALID)) {
		sim_error(c->soc, "core %u: block-enable mask 0x%x is empty or names "
			  "reserved bits (valid 0x%x)", c->index, enable_mask, NPU_EN_VALID);
		return NPU_INT_DMA_READ_ERROR;
	}
	r = sim_exec_task(c, enable_mask, write_ok);
	if (r == SIM_EXEC_STALL)
		return 0;	/* c->stalled: the kick ends without completing */
	if (r == SIM_EXEC_READ_ERROR)
		return NPU_INT_DMA_READ_ERROR;
	if (r == SIM_EXEC_WRITE_ERROR || !write_ok)
		return NPU_INT_DMA_WRITE_ERROR;
	ev = task_events(c, enable_mask);
	sim_pp_task_done(c, enable_mask);
	c->task_counter = (c->task_counter + 1u) & NPU_FMASK_(PC, TASK_STATUS, TASK_COUNTER);
	return ev;
}

/* Apply one register-write entry of a stream. */
static int apply_entry(struct sim_core *c, unsigned i, uint16_t target,
		       uint32_t value, uint16_t offset)
{
	int block = npu_block_of_target(target);
	uint16_t in_block = offset & 0x0FFFu;

	if (block < 0) {
		sim_error(c->soc, "core %u: regcmd entry %u: unknown target 0x%04x",
			  c->index, i, target);
		return -1;
	}
	if (npu_block_of_offset(offset) != block) {
		sim_error(c->soc, "core %u: regcmd entry %u: offset 0x%04x is outside "
			  "block %s named by target 0x%04x", c->index, i, offset,
			  npu_block_table[block].name, target);
		return -1;
	}
	if (block == NPU_BLOCK_PC) {
		/* Only the chaining registers of the tail (HARDWARE.md §3.3). */
		if (offset != NPU_PC_BASE_ADDRESS && offset != NPU_PC_REGISTER_AMOUNTS) {
			sim_error(c->soc, "core %u: regcmd entry %u: PC register 0x%04x "
				  "cannot be written from a stream", c->index, i, offset);
			return -1;
		}
		c->regs[0][offset / 4u] = value;
		return 0;
	}
	if (in_block == NPU_CNA_S_POINTER - NPU_CNA_BLOCK_OFFSET)
		sim_pointer_write(c, block, value);
	else if (in_block != NPU_CNA_S_STATUS - NPU_CNA_BLOCK_OFFSET &&
		 in_block != NPU_CNA_OPERATION_ENABLE - NPU_CNA_BLOCK_OFFSET)
		sim_reg_store(c, offset, value);
	return 0;
}

/*
 * Fetch and decode one task: (amount + 1) * 2 qwords at addr (HARDWARE.md §2.4),
 * register writes, then the op-enable entry, normally after the marker
 * (HARDWARE.md §3.3); entries fetched after op_en are ignored. Returns the task's events
 * or an error bit.
 */
static uint32_t run_task(struct sim_core *c, uint32_t addr, uint32_t amount, bool write_ok)
{
	size_t qwords = ((size_t)amount + 1u) * 2u;
	const uint8_t *p = c->soc->bus.map(c->soc->bus.ctx, addr, qwords * 8u);
	bool marker = false;
	long op_en_at = -1;
	uint32_t enable = 0;

	if (!p) {
		sim_error(c->soc, "core %u: regcmd fetch of %zu qwords at 0x%08x runs "
			  "outside RAM", c->index, qwords, addr);
		return NPU_INT_DMA_READ_ERROR;
	}
	for (size_t i = 0; i < qwords; i++) {
		uint64_t e;
		uint16_t target, offset;

		memcpy(&e, p + i * 8u, sizeof(e));
		/* The fetch window may run past op_en: the vendor's chained
		 * amounts (ceil(next body / 2) + 1, allbilly/rk3588
		 * experimental/pcchain.md) fetch into the next segment, and those
		 * chains run on boards. What follows op_en is not executed (A7). */
		if (op_en_at >= 0)
			break;
		target = npu_rc_target(e);
		offset = npu_rc_offset(e);
		if (marker && target != NPU_RC_TARGET_OP_EN) {
			sim_error(c->soc, "core %u: regcmd entry %zu: the 0x0041 marker is "
				  "not followed by the op_en entry", c->index, i);
			return NPU_INT_DMA_READ_ERROR;
		}
		if (!e)
			continue;
		if (target == NPU_RC_TARGET_MARKER) {
			marker = true;
			continue;
		}
		/* No block-select bit (TRM RKNN_pc_register_amounts: bits 56-63
		 * pick the block): addressed to no block. The board-run int8 and
		 * int16 GEMMs (allbilly/rk3588 experimental/gemm_int8.py) end a
		 * chain with 0x0001000000000000 in the next-address slot. */
		if (target == NPU_RC_TARGET_WRITE)
			continue;
		/* The TRM asks for the 0x0041 marker before op_en, but a bare
		 * op_en ends a task on silicon too: a board-run mainline Rocket
		 * stream has none (allbilly/rk3588
		 * experimental/kernel_6_18/elementwise.py, problem.md step 14; A7). */
		if (target == NPU_RC_TARGET_OP_EN) {
			if (offset != NPU_RC_OP_EN_OFFSET) {
				sim_error(c->soc, "core %u: regcmd entry %zu: op_en entry with "
					  "offset 0x%04x (must be 0x%04x)", c->index, i, offset,
					  NPU_RC_OP_EN_OFFSET);
				return NPU_INT_DMA_READ_ERROR;
			}
			enable = npu_rc_value(e);
			op_en_at = (long)i;
			continue;
		}
		if (apply_entry(c, (unsigned)i, target, npu_rc_value(e), offset))
			return NPU_INT_DMA_READ_ERROR;
	}
	if (op_en_at < 0) {
		sim_error(c->soc, "core %u: task at 0x%08x (%zu qwords) has no op_en entry "
			  "(missing tail)", c->index, addr, qwords);
		return NPU_INT_DMA_READ_ERROR;
	}
	return run_blocks(c, enable, write_ok);
}

/* Make a job's events visible, or hold them back as a fault says. */
static void complete_job(struct sim_core *c, uint32_t events)
{
	if (take_fault(c, SIM_FAULT_LATE)) {
		c->late.active = true;
		c->late.raw = events;
		return;
	}
	if (sim_fault_applies(c, SIM_FAULT_POLL) && c->soc->poll_reads) {
		c->held.active = true;
		c->held.raw = events;
		c->poll_remaining = c->soc->poll_reads;
		return;
	}
	c->raw_status |= events;
}

static void pc_kick(struct sim_core *c)
{
	uint32_t task_con = PC_REG(c, TASK_CON);
	uint32_t tasks = NPU_FG(PC, TASK_CON, TASK_NUMBER, task_con);
	uint32_t addr = PC_REG(c, BASE_ADDRESS) & ~0xFu;
	uint32_t amount = NPU_FG(PC, REGISTER_AMOUNTS, PC_DATA_AMOUNT,
				 PC_REG(c, REGISTER_AMOUNTS));
	uint32_t events = 0;
	bool write_ok;

	if (NPU_FG(PC, TASK_CON, TASK_COUNT_CLEAR, task_con))
		c->task_counter = 0;
	if (take_fault(c, SIM_FAULT_HANG))
		return;		/* nothing runs, nothing completes */
	if (take_fault(c, SIM_FAULT_DMA_READ)) {
		complete_job(c, NPU_INT_DMA_READ_ERROR);
		return;
	}
	write_ok = !take_fault(c, SIM_FAULT_DMA_WRITE);
	if (!tasks) {
		sim_error(c->soc, "core %u: kick with TASK_CON.task_number = 0", c->index);
		complete_job(c, NPU_INT_DMA_READ_ERROR);
		return;
	}
	c->work_used = 0;
	c->stalled = false;
	for (uint32_t t = 0; t < tasks; t++) {
		uint32_t ev = run_task(c, addr, amount, write_ok);

		if (c->stalled)
			return;		/* out of work budget: like a hang, nothing completes */
		events |= ev;
		if (ev & (NPU_INT_DMA_READ_ERROR | NPU_INT_DMA_WRITE_ERROR))
			break;
		/* The tail rewrote BASE_ADDRESS / REGISTER_AMOUNTS (HARDWARE.md §3.5);
		 * amount 0 ends the chain. */
		addr = PC_REG(c, BASE_ADDRESS) & ~0xFu;
		amount = NPU_FG(PC, REGISTER_AMOUNTS, PC_DATA_AMOUNT,
				PC_REG(c, REGISTER_AMOUNTS));
		if (!amount)
			break;
	}
	complete_job(c, events);
}

void sim_pc_global_enable(struct sim_core *c, uint32_t enable_mask)
{
	bool write_ok;

	c->regs[0][NPU_GLOBAL_OPERATION_ENABLE / 4u] = enable_mask;
	if (!enable_mask)
		return;
	if (take_fault(c, SIM_FAULT_HANG))
		return;
	if (take_fault(c, SIM_FAULT_DMA_READ)) {
		complete_job(c, NPU_INT_DMA_READ_ERROR);
		return;
	}
	write_ok = !take_fault(c, SIM_FAULT_DMA_WRITE);
	c->work_used = 0;
	c->stalled = false;
	{
		uint32_t ev = run_blocks(c, enable_mask, write_ok);

		if (c->stalled)
			return;
		complete_job(c, ev);
	}
	c->regs[0][NPU_GLOBAL_OPERATION_ENABLE / 4u] = 0;
}

/* Status as seen by a read; counts reads for the poll=N fault. */
static uint32_t raw_status_read(struct sim_core *c)
{
	if (c->held.active) {
		if (c->poll_remaining) {
			c->poll_remaining--;
		} else {
			c->raw_status |= c->held.raw;
			c->held.active = false;
		}
	}
	return c->raw_status;
}

uint32_t sim_pc_read(struct sim_core *c, uint16_t offset)
{
	switch (offset) {
	case NPU_PC_VERSION:
		if (sim_fault_applies(c, SIM_FAULT_BAD_VERSION))
			return SIM_BAD_VERSION;
		return NPU_PC_VERSION_RK3588;
	case NPU_PC_VERSION_NUM:
		return NPU_PC_VERSION_NUM_RK3588;
	case NPU_PC_INTERRUPT_STATUS:
		return raw_status_read(c) & PC_REG(c, INTERRUPT_MASK);
	case NPU_PC_INTERRUPT_RAW_STATUS:
		return raw_status_read(c);
	case NPU_PC_INTERRUPT_CLEAR:
		return 0;
	case NPU_PC_TASK_STATUS:
		return NPU_FV(PC, TASK_STATUS, TASK_COUNTER, c->task_counter);
	default:
		return c->regs[0][offset / 4u];
	}
}

void sim_pc_write(struct sim_core *c, uint16_t offset, uint32_t value)
{
	uint32_t old;

	switch (offset) {
	case NPU_PC_VERSION:
	case NPU_PC_VERSION_NUM:
	case NPU_PC_INTERRUPT_STATUS:
	case NPU_PC_INTERRUPT_RAW_STATUS:
	case NPU_PC_TASK_STATUS:
		return;		/* read-only */
	case NPU_PC_INTERRUPT_CLEAR:
		c->raw_status &= ~value;
		return;
	case NPU_PC_OPERATION_ENABLE:
		old = PC_REG(c, OPERATION_ENABLE);
		PC_REG(c, OPERATION_ENABLE) = value;
		if (!NPU_FG(PC, OPERATION_ENABLE, OP_EN, value) ||
		    NPU_FG(PC, OPERATION_ENABLE, OP_EN, old))
			return;
		if (NPU_FG(PC, BASE_ADDRESS, PC_SEL, PC_REG(c, BASE_ADDRESS))) {
			sim_error(c->soc, "core %u: PC op_en with BASE_ADDRESS.pc_sel = 1 "
				  "(slave mode): nothing is fetched", c->index);
			return;
		}
		pc_kick(c);
		return;
	default:
		c->regs[0][offset / 4u] = value;
		return;
	}
}
