// SPDX-License-Identifier: MIT
/*
 * The model's top level: physical address decoding to the three NPU cores
 * and to the PMU/CRU model, the power gate in front of every core, fault
 * injection and diagnostics.
 *
 * Windows (HARDWARE.md §1.1): cores at 0xFDAB0000 + n * 0x10000, 64 KiB
 * each; PMU 0xFD8D8000 and CRU 0xFD7C0000 belong to sim/power.c.
 */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_internal.h"

void sim_error(struct sim_soc *soc, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(soc->err, sizeof(soc->err), fmt, ap);
	va_end(ap);
}

struct sim_soc *sim_soc_create(const struct sim_bus *bus, const struct sim_config *cfg)
{
	struct sim_soc *soc;

	if (!bus || !bus->map || !cfg)
		return NULL;
	soc = calloc(1, sizeof(*soc));
	if (!soc)
		return NULL;
	soc->power = sim_power_create(cfg->powered_at_reset);
	if (!soc->power) {
		free(soc);
		return NULL;
	}
	soc->bus = *bus;
	soc->fault_core = SIM_ALL_CORES;
	for (unsigned n = 0; n < NPU_CORE_COUNT; n++) {
		soc->core[n].index = n;
		soc->core[n].soc = soc;
		sim_core_reset(&soc->core[n]);
	}
	return soc;
}

void sim_soc_destroy(struct sim_soc *soc)
{
	if (!soc)
		return;
	for (unsigned n = 0; n < NPU_CORE_COUNT; n++)
		sim_scratch_release(&soc->core[n]);
	sim_power_destroy(soc->power);
	free(soc);
}

/*
 * The core behind an NPU address, after applying a pending CRU reset; NULL
 * (and a diagnostic) if the core cannot answer. On silicon such an access
 * stalls the bus; the model answers 0 / drops the write instead.
 */
static struct sim_core *core_for_access(struct sim_soc *soc, unsigned n,
					uint16_t offset, bool write)
{
	struct sim_core *c = &soc->core[n];

	if (sim_power_take_reset(soc->power, n))
		sim_core_reset(c);
	if (!sim_power_core_accessible(soc->power, n)) {
		sim_error(soc, "core %u %s at +0x%04x while not accessible (%s): "
			  "on silicon this access hangs the bus", n,
			  write ? "write" : "read", offset,
			  sim_power_why_inaccessible(soc->power, n));
		return NULL;
	}
	return c;
}

static bool npu_window(uint64_t phys, unsigned *core, uint16_t *offset)
{
	if (phys < SIM_NPU_BASE || phys >= SIM_NPU_BASE + NPU_CORE_COUNT * SIM_NPU_WINDOW)
		return false;
	*core = (unsigned)((phys - SIM_NPU_BASE) / SIM_NPU_WINDOW);
	*offset = (uint16_t)((phys - SIM_NPU_BASE) % SIM_NPU_WINDOW);
	return true;
}

static uint32_t core_read(struct sim_core *c, uint16_t offset)
{
	int block = npu_block_of_offset(offset);

	if (block == NPU_BLOCK_PC)
		return sim_pc_read(c, offset);
	if (block >= 0 && sim_block_is_pingpong(block)) {
		uint16_t in_block = offset & 0x0FFFu;

		if (in_block == NPU_CNA_S_STATUS - NPU_CNA_BLOCK_OFFSET)
			return 0;	/* both groups idle: jobs run at the kick */
		if (in_block == NPU_CNA_S_POINTER - NPU_CNA_BLOCK_OFFSET)
			return sim_pointer_read(c, block);
		if (in_block == NPU_CNA_OPERATION_ENABLE - NPU_CNA_BLOCK_OFFSET)
			return 0;	/* op_en clears itself when the block is done */
		if (offset == NPU_DPU_LUT_ACCESS_DATA)
			return sim_lut_read_data(&c->lut);
		return c->regs[sim_write_group(c, block)][offset / 4u];
	}
	if (offset == NPU_DDMA_CFG_STATUS)
		return NPU_FV(DDMA, CFG_STATUS, IDLE, 1);
	return c->regs[0][offset / 4u];
}

static void core_write(struct sim_core *c, uint16_t offset, uint32_t value)
{
	int block = npu_block_of_offset(offset);

	if (block == NPU_BLOCK_PC) {
		sim_pc_write(c, offset, value);
		return;
	}
	if (block >= 0 && sim_block_is_pingpong(block)) {
		uint16_t in_block = offset & 0x0FFFu;

		if (in_block == NPU_CNA_S_STATUS - NPU_CNA_BLOCK_OFFSET)
			return;
		if (in_block == NPU_CNA_S_POINTER - NPU_CNA_BLOCK_OFFSET) {
			sim_pointer_write(c, block, value);
			return;
		}
		if (in_block == NPU_CNA_OPERATION_ENABLE - NPU_CNA_BLOCK_OFFSET)
			return;	/* per-block start: see ASSUMPTIONS.md A5 */
	}
	if (offset == NPU_GLOBAL_OPERATION_ENABLE) {
		sim_pc_global_enable(c, value);
		return;
	}
	sim_reg_store(c, offset, value);
}

int sim_soc_read32(struct sim_soc *soc, uint64_t phys, uint32_t *value)
{
	unsigned n;
	uint16_t offset;

	*value = 0;
	if (phys & 3u) {
		sim_error(soc, "unaligned 32-bit read at 0x%llx", (unsigned long long)phys);
		return -1;
	}
	if (npu_window(phys, &n, &offset)) {
		struct sim_core *c = core_for_access(soc, n, offset, false);

		if (c)
			*value = core_read(c, offset);
		return 0;
	}
	return sim_power_read32(soc->power, phys, value);
}

int sim_soc_write32(struct sim_soc *soc, uint64_t phys, uint32_t value)
{
	unsigned n;
	uint16_t offset;

	if (phys & 3u) {
		sim_error(soc, "unaligned 32-bit write at 0x%llx", (unsigned long long)phys);
		return -1;
	}
	if (npu_window(phys, &n, &offset)) {
		struct sim_core *c = core_for_access(soc, n, offset, true);

		if (c)
			core_write(c, offset, value);
		return 0;
	}
	return sim_power_write32(soc->power, phys, value);
}

/* ---- fault injection (spec in sim.h) ---- */

static int parse_uint(const char *s, size_t len, unsigned *out)
{
	unsigned v = 0;

	if (len == 0 || len > 9)
		return -EINVAL;
	for (size_t i = 0; i < len; i++) {
		if (s[i] < '0' || s[i] > '9')
			return -EINVAL;
		v = v * 10u + (unsigned)(s[i] - '0');
	}
	*out = v;
	return 0;
}

static bool word_is(const char *w, size_t len, const char *name)
{
	return strlen(name) == len && memcmp(w, name, len) == 0;
}

static int apply_fault_word(struct sim_soc *soc, const char *w, size_t len,
			    uint32_t *faults, int *core, int *stuck_core, unsigned *poll)
{
	static const struct { const char *name; uint32_t flag; } flags[] = {
		{ "hang", SIM_FAULT_HANG },
		{ "dma_read", SIM_FAULT_DMA_READ },
		{ "dma_write", SIM_FAULT_DMA_WRITE },
		{ "half_status", SIM_FAULT_HALF_STATUS },
		{ "bad_version", SIM_FAULT_BAD_VERSION },
		{ "late", SIM_FAULT_LATE },
	};
	const char *eq = memchr(w, '=', len);
	unsigned v;

	if (!eq) {
		for (size_t i = 0; i < sizeof(flags) / sizeof(flags[0]); i++) {
			if (word_is(w, len, flags[i].name)) {
				*faults |= flags[i].flag;
				return 0;
			}
		}
		sim_error(soc, "unknown fault '%.*s'", (int)len, w);
		return -EINVAL;
	}
	if (parse_uint(eq + 1, len - (size_t)(eq + 1 - w), &v)) {
		sim_error(soc, "fault '%.*s': value is not a number", (int)len, w);
		return -EINVAL;
	}
	if (word_is(w, (size_t)(eq - w), "poll")) {
		*faults |= SIM_FAULT_POLL;
		*poll = v;
		return 0;
	}
	if (word_is(w, (size_t)(eq - w), "reset_stuck") ||
	    word_is(w, (size_t)(eq - w), "core")) {
		if (v >= NPU_CORE_COUNT) {
			sim_error(soc, "fault '%.*s': core must be 0..%u", (int)len, w,
				  NPU_CORE_COUNT - 1);
			return -EINVAL;
		}
		if (w[0] == 'c')
			*core = (int)v;
		else
			*stuck_core = (int)v;
		return 0;
	}
	sim_error(soc, "unknown fault '%.*s'", (int)len, w);
	return -EINVAL;
}

void sim_soc_set_work_budget(struct sim_soc *soc, uint64_t macs_per_kick)
{
	soc->work_budget = macs_per_kick;
}

int sim_soc_set_fault(struct sim_soc *soc, const char *spec)
{
	uint32_t faults = 0;
	int core = SIM_ALL_CORES, stuck_core = -1;
	unsigned poll = 0;
	const char *p = spec ? spec : "";

	/* Parse everything first: a bad spec changes nothing. */
	while (*p) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		int ret;

		if (len) {
			ret = apply_fault_word(soc, p, len, &faults, &core, &stuck_core, &poll);
			if (ret)
				return ret;
		}
		p += len + (end ? 1 : 0);
	}
	if (stuck_core >= 0 && core != SIM_ALL_CORES && core != stuck_core) {
		sim_error(soc, "fault 'reset_stuck=%d' with 'core=%d': reset_stuck names its own "
			  "core, core= restricts the others to another one", stuck_core, core);
		return -EINVAL;
	}
	soc->faults = faults;
	soc->fault_core = core;
	soc->poll_reads = poll;
	for (unsigned n = 0; n < NPU_CORE_COUNT; n++)
		sim_power_hold_reset(soc->power, n, (int)n == stuck_core);
	return 0;
}

const char *sim_soc_last_error(const struct sim_soc *soc)
{
	return soc->err;
}
