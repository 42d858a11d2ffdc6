// SPDX-License-Identifier: MIT
/*
 * Per-core register file: two register groups ("ping-pong") for each of
 * CNA, CORE, DPU, DPU_RDMA, PPU and PPU_RDMA, selected by each block's
 * S_POINTER (HARDWARE.md §2.9, XML S_POINTER fields), one copy for PC,
 * DDMA and GLOBAL.
 *
 * Reading of the S_POINTER bits (ASSUMPTIONS.md A1):
 *  - pointer_pp_mode = 1 (TRM: "pointer ping-pong by pointer"): pointer
 *    and executer toggle in step from a common start, so register writes
 *    land in the group the next task executes; modelled as the pointer
 *    following the executer, which keeps the 0xE every producer writes
 *    correct whether written once by MMIO or again inside every chained
 *    task.
 *  - pointer_pp_mode = 0: writes land in `pointer`; pointer_pp_en toggles
 *    it after each op_en.
 *  - executer_pp_en toggles the executing group after each task.
 */
#include <string.h>

#include "sim/sim_internal.h"

#define S_POINTER_CTRL_BITS	NPU_S_POINTER_PP(CNA)
/* Bits 29:28: drivers OR in 0x10000000 * core (HARDWARE.md §2.5); meaning
 * unknown, kept so they read back. */
#define S_POINTER_CORE_BITS	0x30000000u

bool sim_block_is_pingpong(int block)
{
	switch (block) {
	case NPU_BLOCK_CNA:
	case NPU_BLOCK_CORE:
	case NPU_BLOCK_DPU:
	case NPU_BLOCK_DPU_RDMA:
	case NPU_BLOCK_PPU:
	case NPU_BLOCK_PPU_RDMA:
		return true;
	default:
		return false;
	}
}

unsigned sim_write_group(const struct sim_core *c, int block)
{
	const struct sim_pp *pp = &c->pp[block];

	if (!sim_block_is_pingpong(block))
		return 0;
	if (NPU_FG(CNA, S_POINTER, POINTER_PP_MODE, pp->ctrl))
		return pp->executer;
	return pp->pointer;
}

void sim_reg_store(struct sim_core *c, uint16_t offset, uint32_t value)
{
	int block = npu_block_of_offset(offset);

	c->regs[block >= 0 ? sim_write_group(c, block) : 0][offset / 4u] = value;
	/* The LUT access registers also move data into the table memory. */
	if (offset == NPU_DPU_LUT_ACCESS_CFG)
		sim_lut_access_cfg(&c->lut, value);
	else if (offset == NPU_DPU_LUT_ACCESS_DATA)
		sim_lut_access_data(&c->lut, value);
}

void sim_pointer_write(struct sim_core *c, int block, uint32_t value)
{
	struct sim_pp *pp = &c->pp[block];

	pp->ctrl = value & (S_POINTER_CTRL_BITS | S_POINTER_CORE_BITS);
	pp->pointer = (uint8_t)NPU_FG(CNA, S_POINTER, POINTER, value);
	if (NPU_FG(CNA, S_POINTER, POINTER_PP_CLEAR, value))
		pp->pointer = 0;
	if (NPU_FG(CNA, S_POINTER, EXECUTER_PP_CLEAR, value))
		pp->executer = 0;
}

uint32_t sim_pointer_read(const struct sim_core *c, int block)
{
	const struct sim_pp *pp = &c->pp[block];

	return pp->ctrl | NPU_FV(CNA, S_POINTER, POINTER, sim_write_group(c, block)) |
	       NPU_FV(CNA, S_POINTER, EXECUTER, pp->executer);
}

/* Blocks named by the enable mask (HARDWARE.md §3.4), in mask-bit order. */
static const struct {
	uint32_t en;
	int block;
} enable_blocks[] = {
	{ NPU_EN_CNA, NPU_BLOCK_CNA },
	{ NPU_EN_CORE, NPU_BLOCK_CORE },
	{ NPU_EN_DPU, NPU_BLOCK_DPU },
	{ NPU_EN_DPU_RDMA, NPU_BLOCK_DPU_RDMA },
	{ NPU_EN_PPU, NPU_BLOCK_PPU },
	{ NPU_EN_PPU_RDMA, NPU_BLOCK_PPU_RDMA },
};

void sim_pp_task_done(struct sim_core *c, uint32_t enable_mask)
{
	for (size_t i = 0; i < sizeof(enable_blocks) / sizeof(enable_blocks[0]); i++) {
		struct sim_pp *pp = &c->pp[enable_blocks[i].block];

		if (!(enable_mask & enable_blocks[i].en))
			continue;
		if (NPU_FG(CNA, S_POINTER, EXECUTER_PP_EN, pp->ctrl))
			pp->executer ^= 1u;
		if (NPU_FG(CNA, S_POINTER, POINTER_PP_EN, pp->ctrl) &&
		    !NPU_FG(CNA, S_POINTER, POINTER_PP_MODE, pp->ctrl))
			pp->pointer ^= 1u;
	}
}

void sim_core_reset(struct sim_core *c)
{
	memset(c->regs, 0, sizeof(c->regs));
	memset(c->pp, 0, sizeof(c->pp));
	/* Table contents after a reset are unknown: every entry counts as
	 * unwritten until uploaded again. */
	memset(&c->lut, 0, sizeof(c->lut));
	c->regs[0][NPU_PC_INTERRUPT_MASK / 4u] = SIM_INT_MASK_RESET;
	c->raw_status = 0;
	c->task_counter = 0;
	c->poll_remaining = 0;
	c->held.active = false;
	/* A completion held back by the "late" fault lands after the reset:
	 * the first status read after the driver's recovery sees it. */
	if (c->late.active) {
		c->raw_status = c->late.raw;
		c->late.active = false;
	}
}
