/* SPDX-License-Identifier: MIT */
/* What the host commands that run model containers share (cmd_infer.c,
 * cmd_info.c): reading a container, and the NPU model brought up through
 * the host HAL with the unchanged driver. */
#ifndef RKBARE_TOOLS_MODEL_HOST_H
#define RKBARE_TOOLS_MODEL_HOST_H

#include <stddef.h>

#include "drivers/npu/npu.h"
#include "runtime/dma_pool.h"

struct sim_soc;

struct model_host {
	struct sim_soc *soc;
	struct npu_dev dev;
	struct dma_pool pool;
};

/* The whole file in a malloc'd buffer (4-byte aligned, as the loader
 * needs); 0, or -1 with a message on stderr prefixed by who. */
int model_host_read(const char *who, const char *path, void **blob, size_t *size);
/* Sim attached, driver up, the cores of core_mask powered, DMA pool ready. */
int model_host_open(const char *who, struct model_host *h, uint32_t core_mask);
void model_host_close(struct model_host *h);

#endif /* RKBARE_TOOLS_MODEL_HOST_H */
