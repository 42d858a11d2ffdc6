/* SPDX-License-Identifier: MIT */
/*
 * Names and tables generated from npu_regs.def, plus the constants of the
 * regcmd format and of the PC interrupt word; the fields' named values are
 * in npu_values.h, included at the end.
 *
 *   NPU_<BLOCK>_<REG>                    in-core register offset
 *   NPU_FV(BLOCK, REG, FIELD, v)         v placed in the field (masked)
 *   NPU_FG(BLOCK, REG, FIELD, regval)    the field extracted from a value
 *   NPU_FFITS(BLOCK, REG, FIELD, v)      v fits the field unmasked
 */
#ifndef RKBARE_NPU_REGS_H
#define RKBARE_NPU_REGS_H

#include <stddef.h>
#include <stdint.h>

enum npu_block {
#define NPU_BLOCK(b, off, tgt) NPU_BLOCK_##b,
#define NPU_REG(b, r, off)
#define NPU_FIELD(b, r, f, hi, lo)
#include "npu_regs.def"
#undef NPU_BLOCK
#undef NPU_REG
#undef NPU_FIELD
	NPU_BLOCK_COUNT
};

enum npu_reg_offset {
#define NPU_BLOCK(b, off, tgt) NPU_##b##_BLOCK_OFFSET = (off), NPU_##b##_TARGET = (tgt),
#define NPU_REG(b, r, off) NPU_##b##_##r = (off),
#define NPU_FIELD(b, r, f, hi, lo) \
	NPU_##b##_##r##__##f##_SHIFT = (lo), NPU_##b##_##r##__##f##_WIDTH = (hi) - (lo) + 1,
#include "npu_regs.def"
#undef NPU_BLOCK
#undef NPU_REG
#undef NPU_FIELD
};

#define NPU_FMASK_(b, r, f) \
	((uint32_t)((1ull << NPU_##b##_##r##__##f##_WIDTH) - 1u))
#define NPU_FV(b, r, f, v) \
	((uint32_t)(((uint32_t)(v) & NPU_FMASK_(b, r, f)) << NPU_##b##_##r##__##f##_SHIFT))
#define NPU_FG(b, r, f, regval) \
	(((uint32_t)(regval) >> NPU_##b##_##r##__##f##_SHIFT) & NPU_FMASK_(b, r, f))
#define NPU_FFITS(b, r, f, v) ((uint64_t)(v) <= (uint64_t)NPU_FMASK_(b, r, f))

/* Run-time description, for the disassembler and the model's diagnostics. */
struct npu_block_desc {
	const char *name;
	uint16_t offset;	/* in-core offset of the block (address bits 15:12) */
	uint16_t target;	/* regcmd target, 0 = not reachable from a stream */
};

struct npu_reg_desc {
	const char *name;
	enum npu_block block;
	uint16_t offset;
};

struct npu_field_desc {
	const char *name;
	uint16_t reg_offset;
	uint8_t hi, lo;
};

extern const struct npu_block_desc npu_block_table[NPU_BLOCK_COUNT];
extern const struct npu_reg_desc npu_reg_table[];
extern const size_t npu_reg_count;
extern const struct npu_field_desc npu_field_table[];
extern const size_t npu_field_count;

/* Lookups; NULL / -1 when unknown. */
const struct npu_reg_desc *npu_reg_lookup(uint16_t offset);
int npu_block_of_offset(uint16_t offset);	/* by address bits 15:12 */
int npu_block_of_target(uint16_t target);

/* ---- regcmd entry format (HARDWARE.md §3.1-3.3; TRM, Mesa rkt_regcmd.c) ---- */

#define NPU_RC_TARGET_SHIFT	48
#define NPU_RC_VALUE_SHIFT	16
#define NPU_RC_OFFSET_MASK	0xFFFFu
/* Bit 48: set by every known producer on register writes (meaning UNSURE). */
#define NPU_RC_TARGET_WRITE	0x0001u
/* Marker the TRM requires right before the op-enable entry. */
#define NPU_RC_TARGET_MARKER	0x0041u
/* Op-enable entry: value = block-enable mask, register field = 0x0008. */
#define NPU_RC_TARGET_OP_EN	0x0081u
#define NPU_RC_OP_EN_OFFSET	0x0008u
/* Qwords in the mandatory task tail: next base, next amounts, marker, op_en. */
#define NPU_RC_TAIL_QWORDS	4u

static inline uint64_t npu_rc_entry(uint16_t target, uint32_t value, uint16_t offset)
{
	return ((uint64_t)target << NPU_RC_TARGET_SHIFT) |
	       ((uint64_t)value << NPU_RC_VALUE_SHIFT) | offset;
}

static inline uint16_t npu_rc_target(uint64_t e) { return (uint16_t)(e >> NPU_RC_TARGET_SHIFT); }
static inline uint32_t npu_rc_value(uint64_t e) { return (uint32_t)(e >> NPU_RC_VALUE_SHIFT); }
static inline uint16_t npu_rc_offset(uint64_t e) { return (uint16_t)(e & NPU_RC_OFFSET_MASK); }

/* ---- block-enable mask (value of the op-enable entry; HARDWARE.md §3.4) ---- */
#define NPU_EN_CNA		(1u << 0)
#define NPU_EN_CORE		(1u << 2)
#define NPU_EN_DPU		(1u << 3)
#define NPU_EN_DPU_RDMA		(1u << 4)
#define NPU_EN_PPU		(1u << 5)
#define NPU_EN_PPU_RDMA		(1u << 6)
#define NPU_EN_VALID		0x7Du

/* ---- PC interrupt word (MASK/CLEAR/STATUS/RAW_STATUS; HARDWARE.md §2.2) ---- */
#define NPU_INT_CNA_FEATURE_0	(1u << 0)
#define NPU_INT_CNA_FEATURE_1	(1u << 1)
#define NPU_INT_CNA_WEIGHT_0	(1u << 2)
#define NPU_INT_CNA_WEIGHT_1	(1u << 3)
#define NPU_INT_CNA_CSC_0	(1u << 4)
#define NPU_INT_CNA_CSC_1	(1u << 5)
#define NPU_INT_CORE_0		(1u << 6)
#define NPU_INT_CORE_1		(1u << 7)
#define NPU_INT_DPU_0		(1u << 8)
#define NPU_INT_DPU_1		(1u << 9)
#define NPU_INT_PPU_0		(1u << 10)
#define NPU_INT_PPU_1		(1u << 11)
#define NPU_INT_DMA_READ_ERROR	(1u << 12)
#define NPU_INT_DMA_WRITE_ERROR	(1u << 13)
#define NPU_INT_PAIRS_MASK	0xFFFu
#define NPU_INT_DPU		(NPU_INT_DPU_0 | NPU_INT_DPU_1)
#define NPU_INT_PPU		(NPU_INT_PPU_0 | NPU_INT_PPU_1)
/* BSP RKNPU_INT_CLEAR, LNX and STARRY all write this. */
#define NPU_INT_CLEAR_ALL	0x1FFFFu

/* ---- identification (HARDWARE.md §1.3) ---- */
#define NPU_PC_VERSION_RK3588	0x46495245u	/* "FIRE" */
#define NPU_PC_VERSION_NUM_RK3588 0u

/* ---- hardware limits ---- */
#define NPU_CBUF_BANKS		12u
#define NPU_CBUF_BANK_BYTES	(32u * 1024u)
#define NPU_ATOM_BYTES		16u
#define NPU_CORE_STRIDE		0x10000u
#define NPU_CORE_COUNT		3u
/* BSP RK3588 config: pc_task_number_bits = 12 → max_submit_number 4095. */
#define NPU_MAX_TASKS_PER_KICK	4095u

/* The named values of the fields (precision codes, modes, ALU codes...). */
#include "npu_values.h"

#endif /* RKBARE_NPU_REGS_H */
