/* SPDX-License-Identifier: MIT */
/*
 * aarch64-only additions to the porting interface, used by boot/: the boot
 * code decides where the DMA region lies once the RAM size is known.
 */
#ifndef RKBARE_HAL_AARCH64_H
#define RKBARE_HAL_AARCH64_H

#include <stddef.h>

/* Region handed out by hal_dma_region(); size 0 = none. */
void hal_aarch64_set_dma_region(void *base, size_t size);

#endif /* RKBARE_HAL_AARCH64_H */
