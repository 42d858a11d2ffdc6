/* SPDX-License-Identifier: MIT */
/*
 * NPU clocks, PMU power domains and core resets.
 *
 * Sequences from HARDWARE.md §B.2 (merge of Linux
 * drivers/pmdomain/rockchip/pm-domains.c rockchip_pd_power and TF-A
 * plat/rockchip/rk3588 pmu_set_power_domain) and docs/HARDWARE.md §7.1-7.4, §8; the board table
 * gives every register offset and bit.
 */
#include "drivers/npu/npu_internal.h"

/* Linux polls each power-domain step for up to 10 ms. */
#define PD_POLL_US		10000u
/* Memory-repair settle time after the power chain comes up (Linux: 20 µs). */
#define PD_MEM_SETTLE_US	20u
/* Reset hold and settle time: ≥ 10 µs (BSP, LNX); the TRM asks for
 * 32 cycles of the slowest clock, far less at 24 MHz or above. */
#define RESET_HOLD_US		10u
#define RESET_READBACK_US	100u

void npu_hiword_write(uintptr_t reg, uint16_t mask, uint16_t value)
{
	hal_write32(reg, ((uint32_t)mask << 16) | (value & mask));
}

static uintptr_t cru_reg(const struct npu_dev *dev, uint16_t offset)
{
	return dev->board->cru_base + offset;
}

static uintptr_t pmu_reg(const struct npu_dev *dev, uint16_t offset)
{
	return dev->board->pmu_base + offset;
}

/* CRU gate bit: 1 = clock gated. */
static void clk_gate(const struct npu_dev *dev, struct npu_hw_bit g, bool gated)
{
	npu_hiword_write(cru_reg(dev, g.reg), 1u << g.bit, gated ? 1u << g.bit : 0);
}

static void root_clocks_enable(const struct npu_dev *dev)
{
	const struct npu_board *b = dev->board;
	unsigned int i;

	for (i = 0; i < b->root_gate_count; i++)
		clk_gate(dev, b->root_gates[i], false);
	for (i = 0; i < b->clk_sel_count; i++) {
		const struct npu_hw_field *f = &b->clk_sels[i];
		uint16_t mask = (uint16_t)(((1u << f->width) - 1u) << f->shift);

		npu_hiword_write(cru_reg(dev, f->reg), mask,
				 (uint16_t)(f->value << f->shift));
		hal_dbg("npu: %s = %u", f->name, f->value);
	}
}

static void root_clocks_disable(const struct npu_dev *dev)
{
	const struct npu_board *b = dev->board;
	unsigned int i = b->root_gate_count;

	while (i--)
		clk_gate(dev, b->root_gates[i], true);
}

/* ---- power domains ---- */

static bool pd_is_on(const struct npu_dev *dev, const struct npu_domain *d)
{
	const struct npu_pmu_layout *p = &dev->board->pmu;

	if (d->repair_bit != NPU_BIT_NONE)
		return hal_read32(pmu_reg(dev, p->repair_status)) & (1u << d->repair_bit);
	return !(hal_read32(pmu_reg(dev, p->pwr_status)) & (1u << d->pwr_bit));
}

/* Poll one PMU status bit; on timeout name the domain, register and step. */
static int pd_poll(const struct npu_dev *dev, const struct npu_domain *d,
		   uint16_t reg, uint8_t bit, bool want, const char *reg_name,
		   const char *step, int err)
{
	uint32_t last;

	if (!hal_poll32(pmu_reg(dev, reg), 1u << bit, want ? 1u << bit : 0,
			PD_POLL_US, &last))
		return NPU_OK;
	hal_err("npu: %s %s: PMU %s (0x%03x) bit %u stayed %u (reads 0x%08x)",
		d->name, step, reg_name, reg, bit, !want, last);
	return err;
}

static int pd_poll_on(const struct npu_dev *dev, const struct npu_domain *d, bool on)
{
	const struct npu_pmu_layout *p = &dev->board->pmu;
	int err = on ? NPU_ERR_PD_ON : NPU_ERR_PD_OFF;
	const char *step = on ? "power-on" : "power-off";

	if (d->repair_bit != NPU_BIT_NONE)
		return pd_poll(dev, d, p->repair_status, d->repair_bit, on,
			       "BISR_STATUS", step, err);
	return pd_poll(dev, d, p->pwr_status, d->pwr_bit, !on,
		       "PWR_GATE_ST", step, err);
}

/* Cycle the domain's memory off and on after power-up (needed when the
 * memory was left on while the domain was off). */
static int pd_mem_reset(const struct npu_dev *dev, const struct npu_domain *d)
{
	const struct npu_pmu_layout *p = &dev->board->pmu;
	uint16_t bit = (uint16_t)(1u << d->pwr_bit);
	int err;

	err = pd_poll(dev, d, p->chain_status, d->mem_bit, true,
		      "PWR_CHAIN1_ST", "memory repair", NPU_ERR_PD_MEM_CHAIN);
	if (err)
		return err;
	hal_delay_us(PD_MEM_SETTLE_US);
	npu_hiword_write(pmu_reg(dev, p->mem_pwr), bit, bit);
	hal_mb();
	err = pd_poll(dev, d, p->mem_status, d->mem_bit, true,
		      "PWR_MEM_ST", "memory off", NPU_ERR_PD_MEM_OFF);
	if (err)
		return err;
	npu_hiword_write(pmu_reg(dev, p->mem_pwr), bit, 0);
	hal_mb();
	return pd_poll(dev, d, p->mem_status, d->mem_bit, false,
		       "PWR_MEM_ST", "memory on", NPU_ERR_PD_MEM_ON);
}

/* Request (idle = true) or release the domain's NoC idle state. */
static int pd_bus_idle(const struct npu_dev *dev, const struct npu_domain *d, bool idle)
{
	const struct npu_pmu_layout *p = &dev->board->pmu;
	const char *step = idle ? "bus idle request" : "bus idle release";
	uint16_t bit;
	int err;

	if (d->idle_bit == NPU_BIT_NONE)
		return NPU_OK;
	bit = (uint16_t)(1u << d->idle_bit);
	npu_hiword_write(pmu_reg(dev, p->bus_idle_req), bit, idle ? bit : 0);
	hal_mb();
	err = pd_poll(dev, d, p->bus_idle_ack, d->idle_bit, idle,
		      "BUS_IDLE_ACK", step, NPU_ERR_PD_IDLE_ACK);
	if (err)
		return err;
	return pd_poll(dev, d, p->bus_idle_st, d->idle_bit, idle,
		       "BUS_IDLE_ST", step, NPU_ERR_PD_IDLE_ST);
}

static int pd_power_on(const struct npu_dev *dev, const struct npu_domain *d)
{
	const struct npu_pmu_layout *p = &dev->board->pmu;
	bool mem_was_on;
	int err;

	if (pd_is_on(dev, d)) {
		hal_dbg("npu: %s already on", d->name);
		/* A domain left on may still have its bus parked idle. */
		if (d->idle_bit != NPU_BIT_NONE &&
		    (hal_read32(pmu_reg(dev, p->bus_idle_st)) & (1u << d->idle_bit)))
			return pd_bus_idle(dev, d, false);
		return NPU_OK;
	}

	mem_was_on = d->mem_bit != NPU_BIT_NONE &&
		     !(hal_read32(pmu_reg(dev, p->mem_status)) & (1u << d->mem_bit));

	npu_hiword_write(pmu_reg(dev, p->pwr_con), (uint16_t)(1u << d->pwr_bit), 0);
	hal_mb();
	if (mem_was_on) {
		err = pd_mem_reset(dev, d);
		if (err)
			return err;
	}
	err = pd_poll_on(dev, d, true);
	if (err)
		return err;
	err = pd_bus_idle(dev, d, false);
	if (err)
		return err;
	hal_dbg("npu: %s on", d->name);
	return NPU_OK;
}

static int pd_power_off(const struct npu_dev *dev, const struct npu_domain *d)
{
	const struct npu_pmu_layout *p = &dev->board->pmu;
	uint16_t bit = (uint16_t)(1u << d->pwr_bit);
	int err;

	if (!pd_is_on(dev, d))
		return NPU_OK;
	err = pd_bus_idle(dev, d, true);
	if (err)
		return err;
	npu_hiword_write(pmu_reg(dev, p->pwr_con), bit, bit);
	hal_mb();
	err = pd_poll_on(dev, d, false);
	if (!err)
		hal_dbg("npu: %s off", d->name);
	return err;
}

/* Domains needed by the cores in core_mask, parents included. */
static uint32_t domains_needed(const struct npu_board *b, uint32_t core_mask)
{
	uint32_t need = 0;
	unsigned int c;

	for (c = 0; c < NPU_CORE_COUNT; c++) {
		unsigned int d;

		if (!(core_mask & (1u << c)))
			continue;
		for (d = b->cores[c].domain; d != NPU_BIT_NONE; d = b->domains[d].parent)
			need |= 1u << d;
	}
	return need;
}

/* ---- cores ---- */

static void core_reset_lines(const struct npu_dev *dev, unsigned int core, bool assert)
{
	const struct npu_core_desc *c = &dev->board->cores[core];
	uint16_t a = (uint16_t)(1u << c->srst_a.bit);
	uint16_t h = (uint16_t)(1u << c->srst_h.bit);

	/* The TRM asks for A and H to change together: one write when they
	 * share a register (they do on RK3588). */
	if (c->srst_a.reg == c->srst_h.reg) {
		npu_hiword_write(cru_reg(dev, c->srst_a.reg), a | h, assert ? a | h : 0);
	} else {
		npu_hiword_write(cru_reg(dev, c->srst_a.reg), a, assert ? a : 0);
		npu_hiword_write(cru_reg(dev, c->srst_h.reg), h, assert ? h : 0);
	}
	hal_mb();
}

int npu_core_reset(struct npu_dev *dev, unsigned int core)
{
	const struct npu_core_desc *c = &dev->board->cores[core];
	const struct npu_hw_bit lines[] = { c->srst_a, c->srst_h };
	unsigned int i;

	core_reset_lines(dev, core, true);
	hal_delay_us(RESET_HOLD_US);
	core_reset_lines(dev, core, false);
	hal_delay_us(RESET_HOLD_US);

	for (i = 0; i < 2; i++) {
		uint32_t last;

		if (hal_poll32(cru_reg(dev, lines[i].reg), 1u << lines[i].bit, 0,
			       RESET_READBACK_US, &last)) {
			hal_err("npu: core %u reset release: CRU SOFTRST (0x%03x) bit %u still asserted (reads 0x%08x)",
				core, lines[i].reg, lines[i].bit, last);
			return NPU_ERR_RESET;
		}
	}
	return NPU_OK;
}

static int core_bring_up(struct npu_dev *dev, unsigned int core)
{
	const struct npu_core_desc *c = &dev->board->cores[core];
	int err;

	clk_gate(dev, c->aclk_gate, false);
	clk_gate(dev, c->hclk_gate, false);
	hal_mb();
	err = npu_core_reset(dev, core);
	if (err)
		return err;
	err = npu_core_probe(dev, core);
	if (err)
		return err;
	return npu_core_clear_status(dev, core);
}

int npu_core_restart(struct npu_dev *dev, unsigned int core)
{
	bool lost;
	int err;

	if (!dev || !dev->board || core >= NPU_CORE_COUNT)
		return NPU_ERR_INVAL;
	hal_lock(&dev->lock);
	lost = dev->lost_mask & (1u << core);
	hal_unlock(&dev->lock);
	if (!lost)
		return NPU_ERR_INVAL;
	err = core_bring_up(dev, core);
	if (err)
		return err;
	npu_mark_core(dev, core, true);
	hal_info("npu: core %u back after a failed reset", core);
	return NPU_OK;
}

static void core_clocks_off(const struct npu_dev *dev, unsigned int core)
{
	const struct npu_core_desc *c = &dev->board->cores[core];

	clk_gate(dev, c->aclk_gate, true);
	clk_gate(dev, c->hclk_gate, true);
}

int npu_power_on(struct npu_dev *dev, uint32_t core_mask)
{
	const struct npu_board *b;
	uint32_t need;
	unsigned int i;
	int err;

	if (!dev || !dev->board) {
		hal_err("npu: power on: device not initialised");
		return NPU_ERR_INVAL;
	}
	if (!core_mask || (core_mask & ~NPU_ALL_CORES)) {
		hal_err("npu: power on: core mask 0x%x is not a non-empty subset of 0x%x",
			core_mask, NPU_ALL_CORES);
		return NPU_ERR_INVAL;
	}
	b = dev->board;
	need = domains_needed(b, core_mask);

	root_clocks_enable(dev);
	hal_mb();

	/* The table lists parents before children. */
	for (i = 0; i < b->domain_count; i++) {
		if (!(need & (1u << i)))
			continue;
		err = pd_power_on(dev, &b->domains[i]);
		if (err)
			return err;
	}

	for (i = 0; i < NPU_CORE_COUNT; i++) {
		if (!(core_mask & (1u << i)))
			continue;
		err = core_bring_up(dev, i);
		if (err)
			return err;
		npu_mark_core(dev, i, true);
	}
	hal_info("npu: cores 0x%x up (version 0x%08x)", npu_powered_mask(dev), dev->version);
	return NPU_OK;
}

/*
 * Powers the whole NPU down, children first, then gates the core and root
 * clocks. Domains another agent left on are switched off too: on bare metal
 * the image owns the NPU.
 */
int npu_power_off(struct npu_dev *dev)
{
	const struct npu_board *b;
	unsigned int i;
	int err;

	if (!dev || !dev->board)
		return NPU_ERR_INVAL;
	b = dev->board;
	hal_lock(&dev->lock);
	dev->powered_mask = 0;
	dev->lost_mask = 0;
	hal_unlock(&dev->lock);

	i = b->domain_count;
	while (i--) {
		err = pd_power_off(dev, &b->domains[i]);
		if (err)
			return err;
	}
	for (i = 0; i < NPU_CORE_COUNT; i++)
		core_clocks_off(dev, i);
	root_clocks_disable(dev);
	hal_mb();
	return NPU_OK;
}
