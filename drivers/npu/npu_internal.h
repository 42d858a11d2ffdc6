/* SPDX-License-Identifier: MIT */
/* Shared between the NPU driver's files; not part of the public API. */
#ifndef RKBARE_NPU_INTERNAL_H
#define RKBARE_NPU_INTERNAL_H

#include "hal.h"
#include "drivers/npu/npu.h"

#define NPU_ALL_CORES		((1u << NPU_CORE_COUNT) - 1u)

static inline uint32_t npu_core_read(const struct npu_dev *dev, unsigned int core,
				     uint32_t offset)
{
	return hal_read32(dev->board->cores[core].base + offset);
}

static inline void npu_core_write(const struct npu_dev *dev, unsigned int core,
				  uint32_t offset, uint32_t value)
{
	hal_write32(dev->board->cores[core].base + offset, value);
}

/*
 * The one way CRU and PMU control registers are written: Rockchip
 * "hi-word mask" convention, bit k + 16 enables the write of bit k
 * (HARDWARE.md §B.3). mask and value are in the low 16 bits.
 */
void npu_hiword_write(uintptr_t reg, uint16_t mask, uint16_t value);

/* Assert the core's A and H soft resets, hold, release together, and check
 * the reset bits read back released (npu_power.c). */
int npu_core_reset(struct npu_dev *dev, unsigned int core);

/* Read VERSION / VERSION_NUM and refuse a core that is not an RK3588 NPU
 * (npu.c). */
int npu_core_probe(struct npu_dev *dev, unsigned int core);

/* A core up (powered, not lost) or lost (a failed reset left it down),
 * under the device's lock (npu.c). */
void npu_mark_core(struct npu_dev *dev, unsigned int core, bool powered);

/* Clear the core's interrupt status until it reads clean (npu_job.c). */
int npu_core_clear_status(struct npu_dev *dev, unsigned int core);

#endif /* RKBARE_NPU_INTERNAL_H */
