/* SPDX-License-Identifier: MIT */
/*
 * 32-bit LDR/STR decoding (Arm ARM, "Loads and Stores" encoding index):
 * size [31:30] = 0b10, V [26] = 0, opc [23:22] = 00 store / 01 load
 * zero-extending, Rt [4:0] in every form:
 *   unsigned immediate offset   [29:24] = 111001
 *   unscaled immediate (LDUR)   [29:24] = 111000, [21] = 0, [11:10] = 00
 *   register offset             [29:24] = 111000, [21] = 1, [11:10] = 10
 * The same [29:24] = 111000 space holds the post-/pre-index (writeback)
 * and unprivileged forms ([11:10] = 01/11/10 with [21] = 0), which are
 * not accepted.
 */
#include "board/qemu-virt/mmio_insn.h"

#define INSN_UIMM_MASK		0xffc00000u
#define INSN_STR_UIMM		0xb9000000u
#define INSN_LDR_UIMM		0xb9400000u
#define INSN_REG_MASK		0xffe00c00u
#define INSN_STUR		0xb8000000u
#define INSN_LDUR		0xb8400000u
#define INSN_STR_REG		0xb8200800u
#define INSN_LDR_REG		0xb8600800u
#define INSN_RT_MASK		0x1fu

int mmio_insn_decode(uint32_t insn, struct mmio_insn *out)
{
	uint32_t uimm = insn & INSN_UIMM_MASK;
	uint32_t other = insn & INSN_REG_MASK;

	if (uimm == INSN_STR_UIMM || other == INSN_STUR || other == INSN_STR_REG)
		out->store = true;
	else if (uimm == INSN_LDR_UIMM || other == INSN_LDUR || other == INSN_LDR_REG)
		out->store = false;
	else
		return -1;
	out->rt = insn & INSN_RT_MASK;
	return 0;
}
