/* SPDX-License-Identifier: MIT */
/* The identity map: RAM Normal write-back, MMIO Device-nGnRnE + XN. */
#ifndef RKBARE_BOOT_MMU_H
#define RKBARE_BOOT_MMU_H

#include "boot/memmap.h"

/*
 * Build the tables (RAM ranges of the layout, the board's MMIO ranges,
 * everything else unmapped) and turn on the MMU and both caches. Runs
 * with the MMU off; ranges are rounded inwards to 2 MiB blocks and clipped
 * to the 4 GiB the tables cover.
 */
void mmu_enable(const struct boot_layout *layout);

#endif /* RKBARE_BOOT_MMU_H */
