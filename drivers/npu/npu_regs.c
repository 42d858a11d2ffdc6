/* SPDX-License-Identifier: MIT */
/* Run-time register tables generated from npu_regs.def. */
#include "rkbare/npu_regs.h"

const struct npu_block_desc npu_block_table[NPU_BLOCK_COUNT] = {
#define NPU_BLOCK(b, off, tgt) [NPU_BLOCK_##b] = { #b, (off), (tgt) },
#define NPU_REG(b, r, off)
#define NPU_FIELD(b, r, f, hi, lo)
#include "rkbare/npu_regs.def"
#undef NPU_BLOCK
#undef NPU_REG
#undef NPU_FIELD
};

const struct npu_reg_desc npu_reg_table[] = {
#define NPU_BLOCK(b, off, tgt)
#define NPU_REG(b, r, off) { #r, NPU_BLOCK_##b, (off) },
#define NPU_FIELD(b, r, f, hi, lo)
#include "rkbare/npu_regs.def"
#undef NPU_BLOCK
#undef NPU_REG
#undef NPU_FIELD
};
const size_t npu_reg_count = sizeof(npu_reg_table) / sizeof(npu_reg_table[0]);

const struct npu_field_desc npu_field_table[] = {
#define NPU_BLOCK(b, off, tgt)
#define NPU_REG(b, r, off)
#define NPU_FIELD(b, r, f, hi, lo) { #f, NPU_##b##_##r, (hi), (lo) },
#include "rkbare/npu_regs.def"
#undef NPU_BLOCK
#undef NPU_REG
#undef NPU_FIELD
};
const size_t npu_field_count = sizeof(npu_field_table) / sizeof(npu_field_table[0]);

const struct npu_reg_desc *npu_reg_lookup(uint16_t offset)
{
	for (size_t i = 0; i < npu_reg_count; i++)
		if (npu_reg_table[i].offset == offset)
			return &npu_reg_table[i];
	return NULL;
}

int npu_block_of_offset(uint16_t offset)
{
	for (int b = 0; b < NPU_BLOCK_COUNT; b++)
		if ((offset & 0xF000u) == npu_block_table[b].offset)
			return b;
	return -1;
}

int npu_block_of_target(uint16_t target)
{
	for (int b = 0; b < NPU_BLOCK_COUNT; b++)
		if (npu_block_table[b].target && npu_block_table[b].target == target)
			return b;
	return -1;
}
