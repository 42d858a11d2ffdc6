/* SPDX-License-Identifier: MIT */
/*
 * Host glue: an NPU model whose DMA sees the host HAL's physical memory and
 * which answers the host HAL's MMIO. Host builds only.
 */
#ifndef RKBARE_SIM_HOST_H
#define RKBARE_SIM_HOST_H

#include "sim/sim.h"

/* Create a model and route hal_read32/hal_write32 to it. NULL on failure.
 * One model can be attached at a time. */
struct sim_soc *sim_host_attach(const struct sim_config *cfg);
/* Unroute MMIO and destroy the model. */
void sim_host_detach(struct sim_soc *soc);

#endif /* RKBARE_SIM_HOST_H */
