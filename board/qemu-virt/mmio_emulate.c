// SPDX-License-Identifier: MIT
#include "board/qemu-virt/mmio_emulate.h"

#include "board/qemu-virt/mmio_insn.h"
#include "hal.h"

int mmio_emulate(struct sim_soc *soc, uint64_t addr, uint32_t insn, bool write, uint64_t x[31])
{
	struct mmio_insn mi;
	uint32_t value = 0;
	int ret;

	if (mmio_insn_decode(insn, &mi)) {
		hal_err("mmio trap: instruction 0x%08x is not a 32-bit LDR/STR without writeback",
			insn);
		return -1;
	}
	if (mi.store != write || addr % sizeof(uint32_t))
		return -1;
	if (mi.store) {
		if (mi.rt != MMIO_INSN_REG_ZERO)
			value = (uint32_t)x[mi.rt];
		ret = sim_soc_write32(soc, addr, value);
	} else {
		ret = sim_soc_read32(soc, addr, &value);
		if (!ret && mi.rt != MMIO_INSN_REG_ZERO)
			x[mi.rt] = value;	/* a W write zero-extends into X */
	}
	if (ret) {
		hal_err("mmio trap: the model has no register at 0x%llx (%s)",
			(unsigned long long)addr, sim_soc_last_error(soc));
		return -1;
	}
	return 0;
}
