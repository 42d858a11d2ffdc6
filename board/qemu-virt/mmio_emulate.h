/* SPDX-License-Identifier: MIT */
/*
 * One register access of the NPU, PMU or CRU, emulated by the NPU model
 * (sim/) from a data-abort handler: the entry point a kernel calls when it
 * runs rkbare's driver under QEMU, where those windows are not backed
 * (docs/PORTING.md, "The NPU model under QEMU"). Our own qemu-virt trap
 * (mmio_trap.c) is its first user.
 */
#ifndef RKBARE_QEMU_MMIO_EMULATE_H
#define RKBARE_QEMU_MMIO_EMULATE_H

#include <stdbool.h>
#include <stdint.h>

#include "sim/sim.h"

/*
 * The access at `addr` (the FAR of the abort) made by instruction `insn`
 * (the word at ELR), a store when `write` (ESR WnR), with the general
 * registers x[0..30] of the interrupted context: a load's result goes into
 * its register. Returns 0 when emulated (the caller then steps ELR past the
 * instruction), -1 when the instruction is not a 32-bit LDR/STR without
 * writeback, disagrees with `write`, or the model has no register there.
 */
int mmio_emulate(struct sim_soc *soc, uint64_t addr, uint32_t insn, bool write, uint64_t x[31]);

#endif /* RKBARE_QEMU_MMIO_EMULATE_H */
