/* SPDX-License-Identifier: MIT */
/* NPU device: binding to a board table, identification, error strings,
 * the device's bookkeeping under its lock. */
#include <string.h>

#include "drivers/npu/npu_internal.h"

/* Both LNX (rocket_core.c) and the BSP report VERSION + (VERSION_NUM & 0xFFFF). */
#define NPU_VERSION_NUM_MASK	0xFFFFu

int npu_init(struct npu_dev *dev, const struct npu_board *board)
{
	unsigned int i;

	if (!dev || !board) {
		hal_err("npu: init: no device or board table");
		return NPU_ERR_INVAL;
	}
	if (board->domain_count > NPU_MAX_DOMAINS ||
	    board->root_gate_count > NPU_MAX_ROOT_GATES ||
	    board->clk_sel_count > NPU_MAX_CLK_SELS) {
		hal_err("npu: init: board '%s' table counts exceed the driver's limits",
			board->name);
		return NPU_ERR_INVAL;
	}
	for (i = 0; i < board->domain_count; i++) {
		uint8_t parent = board->domains[i].parent;

		/* Parents first: the power-on loop walks the table in order. */
		if (parent != NPU_BIT_NONE && parent >= i) {
			hal_err("npu: init: board '%s' domain %s listed before its parent",
				board->name, board->domains[i].name);
			return NPU_ERR_INVAL;
		}
	}
	for (i = 0; i < NPU_CORE_COUNT; i++) {
		if (!board->cores[i].base || board->cores[i].domain >= board->domain_count) {
			hal_err("npu: init: board '%s' core %u has no base or domain",
				board->name, i);
			return NPU_ERR_INVAL;
		}
	}
	memset(dev, 0, sizeof(*dev));
	hal_lock_init(&dev->lock);
	dev->board = board;
	return NPU_OK;
}

int npu_core_probe(struct npu_dev *dev, unsigned int core)
{
	const struct npu_core_desc *c = &dev->board->cores[core];
	uint32_t version = npu_core_read(dev, core, NPU_PC_VERSION);
	uint32_t num = npu_core_read(dev, core, NPU_PC_VERSION_NUM);

	if (version != NPU_PC_VERSION_RK3588) {
		/* INTERRUPT_MASK reads "all enabled" after a reset (HARDWARE.md §7.2):
		 * zero there too means the core is not answering at all. */
		if (!npu_core_read(dev, core, NPU_PC_INTERRUPT_MASK)) {
			hal_err("npu: core %u reset release: PC VERSION and INTERRUPT_MASK read 0 after releasing CRU SOFTRST 0x%03x bits %u/%u: core still in reset",
				core, c->srst_a.reg, c->srst_a.bit, c->srst_h.bit);
			return NPU_ERR_RESET;
		}
		hal_err("npu: core %u probe: PC VERSION reads 0x%08x, expected 0x%08x (\"FIRE\")",
			core, version, NPU_PC_VERSION_RK3588);
		return NPU_ERR_VERSION;
	}
	/* VERSION_NUM = 0 comes from one board study only: note, do not refuse. */
	if (num != NPU_PC_VERSION_NUM_RK3588)
		hal_warn("npu: core %u: PC VERSION_NUM 0x%08x (0x%08x seen on RK3588 boards)",
			 core, num, NPU_PC_VERSION_NUM_RK3588);
	hal_lock(&dev->lock);	/* cores recovering at once all write it */
	dev->version = version + (num & NPU_VERSION_NUM_MASK);
	hal_unlock(&dev->lock);
	return NPU_OK;
}

const char *npu_strerror(int err)
{
	switch (err) {
	case NPU_OK:			return "success";
	case NPU_ERR_INVAL:		return "invalid argument or job description";
	case NPU_ERR_NOT_POWERED:	return "NPU core not powered on";
	case NPU_ERR_PD_ON:		return "power domain did not turn on";
	case NPU_ERR_PD_MEM_CHAIN:	return "power domain memory chain did not come up";
	case NPU_ERR_PD_MEM_OFF:	return "power domain memory did not turn off";
	case NPU_ERR_PD_MEM_ON:		return "power domain memory did not turn on";
	case NPU_ERR_PD_IDLE_ACK:	return "bus idle request not acknowledged";
	case NPU_ERR_PD_IDLE_ST:	return "bus idle state did not change";
	case NPU_ERR_PD_OFF:		return "power domain did not turn off";
	case NPU_ERR_RESET:		return "NPU core reset did not release";
	case NPU_ERR_VERSION:		return "unexpected NPU version";
	case NPU_ERR_STALE:		return "stale interrupt status would not clear";
	case NPU_ERR_TIMEOUT:		return "NPU job timed out (core reset)";
	case NPU_ERR_DMA_READ:		return "NPU DMA read error";
	case NPU_ERR_DMA_WRITE:		return "NPU DMA write error";
	case NPU_ERR_BUSY:		return "NPU core busy with another job";
	default:			return "unknown NPU error";
	}
}

uint32_t npu_powered_mask(struct npu_dev *dev)
{
	uint32_t mask;

	hal_lock(&dev->lock);
	mask = dev->powered_mask;
	hal_unlock(&dev->lock);
	return mask;
}

void npu_mark_core(struct npu_dev *dev, unsigned int core, bool powered)
{
	hal_lock(&dev->lock);
	if (powered) {
		dev->powered_mask |= 1u << core;
		dev->lost_mask &= ~(1u << core);
	} else {
		dev->powered_mask &= ~(1u << core);
		dev->lost_mask |= 1u << core;
	}
	hal_unlock(&dev->lock);
}
