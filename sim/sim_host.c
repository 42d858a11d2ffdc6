// SPDX-License-Identifier: MIT
/*
 * Host glue for the NPU model: DMA goes to the host HAL's 4 GiB physical
 * space (hal_host_phys_base() + phys), MMIO from hal_read32/hal_write32
 * goes to the model. RAM is the whole 32-bit space below the MMIO range
 * 0xF0000000-0xFFFFFFFF, which is not RAM: a DMA there is a bus error.
 */
#include <stdio.h>
#include <stdlib.h>

#include "hal.h"
#include "sim/sim_host.h"

#define SIM_HOST_RAM_END	0xF0000000ull

static uint8_t *host_map(void *ctx, uint64_t phys, size_t len)
{
	if (phys >= SIM_HOST_RAM_END || len > SIM_HOST_RAM_END - phys)
		return NULL;
	return hal_host_phys_base() + phys;
}

/* An address no model answers: on hardware an external abort. */
static void bus_error(struct sim_soc *soc, const char *what, uint64_t phys)
{
	fprintf(stderr, "sim_host: bus error: %s of 0x%llx (%s)\n", what,
		(unsigned long long)phys, sim_soc_last_error(soc));
	abort();
}

static uint32_t host_read32(void *ctx, uint64_t phys)
{
	uint32_t v;

	if (sim_soc_read32(ctx, phys, &v))
		bus_error(ctx, "read", phys);
	return v;
}

static void host_write32(void *ctx, uint64_t phys, uint32_t value)
{
	if (sim_soc_write32(ctx, phys, value))
		bus_error(ctx, "write", phys);
}

static struct hal_host_mmio_ops host_ops = {
	.read32 = host_read32,
	.write32 = host_write32,
};

struct sim_soc *sim_host_attach(const struct sim_config *cfg)
{
	struct sim_bus bus = { .map = host_map, .ctx = NULL };
	struct sim_soc *soc;

	if (host_ops.ctx)
		return NULL;	/* one model at a time */
	soc = sim_soc_create(&bus, cfg);
	if (!soc)
		return NULL;
	host_ops.ctx = soc;
	hal_host_set_mmio(&host_ops);
	return soc;
}

void sim_host_detach(struct sim_soc *soc)
{
	if (!soc)
		return;
	if (host_ops.ctx == soc) {
		hal_host_set_mmio(NULL);
		host_ops.ctx = NULL;
	}
	sim_soc_destroy(soc);
}
