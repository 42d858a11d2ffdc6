// SPDX-License-Identifier: MIT
/*
 * Model of the PMU power domains and the CRU clock gates / soft resets that
 * gate the three NPU cores.
 *
 * Facts: docs/HARDWARE.md §B.2-B.3 and HARDWARE.md §7,
 * read from mainline drivers/pmdomain/rockchip/pm-domains.c (RK3588 domain
 * table), drivers/clk/rockchip/clk-rk3588.c and rst-rk3588.c, and TF-A
 * plat/rockchip/rk3588/drivers/pmu/pmu.h. Deliberately not derived from our
 * driver: the model is what checks it.
 *
 * Behaviour chosen where the sources say nothing (the one place these are
 * written down; sim/ASSUMPTIONS.md points here):
 *  - Status bits (PWR_GATE_ST, PWR_CHAIN1_ST, PWR_MEM_ST, BISR_STATUS4,
 *    BUS_IDLE_ACK/ST) follow a request after PMU_SETTLE_READS reads of the
 *    PMU window, so a driver that does not poll sees stale status.
 *  - A power-on request for a domain whose parent does not yet read "on" is
 *    dropped (the request bit reads back 0, the domain stays off) and
 *    recorded as a diagnostic. Powering a parent off takes its children off.
 *  - Memory left on while its domain was off must be reset (memory off, then
 *    on) after power-up before BISR_STATUS4 reports the domain on: this is
 *    the situation Linux's mem-reset path handles.
 *  - The NoC idle handshake progresses only while the domain is on and the
 *    NPU root clocks (HCLK_NPU_ROOT, CLK_NPU_DSU0, PCLK_NPU_ROOT) run.
 *  - A core is reachable when its domain chain is on and repaired, its own
 *    domain's bus is not idle, the root clocks and its ACLK/HCLK run and its
 *    A/H resets are released (the BIU resets are not checked).
 *  - Losing power counts as a reset of the cores in that domain.
 *  - Cold state (powered_at_reset false): domains off with their bus idle
 *    and memory off, every gate of CLKGATE_CON27..30 set, the cores' A/H
 *    resets asserted.
 *  - The CRU keeps what is written below CRU_STORED_END (hi-word masked);
 *    the rest of its window reads 0. Unaligned accesses are not ours (-1).
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sim/sim_power.h"

/* Windows (HARDWARE.md §B.1, §2, §3; TF-A rk3588_def.h). */
#define PMU_BASE		0xFD8D8000ull
#define PMU_SIZE		0x400u
#define CRU_BASE		0xFD7C0000ull
#define CRU_SIZE		0x5C000u

/* PMU registers, offsets from PMU_BASE, index 0 of each bank (HARDWARE.md §7.4). */
#define PMU_BUS_IDLE_SFTCON0	0x10Cu
#define PMU_BUS_IDLE_ACK0	0x118u
#define PMU_BUS_IDLE_ST0	0x120u
#define PMU_PWR_GATE_SFTCON0	0x14Cu
#define PMU_PWR_GATE_ST0	0x180u
#define PMU_MEMPWR_GATE_SFTCON0	0x1A0u
#define PMU_PWR_CHAIN1_ST0	0x1F0u
#define PMU_PWR_MEM_ST0		0x1F8u
#define PMU_BISR_STATUS0	0x280u
#define PMU_BISR_STATUS4	0x290u

/* Read-only status banks, [first, last] word offsets (index i = 0.. of each
 * bank as far as HARDWARE.md §7.4 places them): writes there change nothing. */
static const struct { uint16_t first, last; } pmu_status_banks[] = {
	{ PMU_BUS_IDLE_ACK0, PMU_BUS_IDLE_ST0 + 4u },	/* BUS_IDLE_ACK(0..1), _ST(0..1) */
	{ PMU_PWR_GATE_ST0, PMU_PWR_GATE_ST0 + 4u },	/* PWR_GATE_ST(0..1) */
	{ PMU_PWR_CHAIN1_ST0, PMU_PWR_MEM_ST0 + 4u },	/* PWR_CHAIN1_ST(0..1), PWR_MEM_ST(0..1) */
	{ PMU_BISR_STATUS0, PMU_BISR_STATUS4 + 12u },	/* BISR_STATUS(0..7) */
};

static bool pmu_is_status(uint32_t off)
{
	for (size_t i = 0; i < sizeof(pmu_status_banks) / sizeof(pmu_status_banks[0]); i++)
		if (off >= pmu_status_banks[i].first && off <= pmu_status_banks[i].last)
			return true;
	return false;
}

/* Reads of the PMU window after which a requested change shows in status. */
#define PMU_SETTLE_READS	2u

/* CRU registers (HARDWARE.md §B.3): PLL_CON, MODE_CON0 and CLKSEL_CON (selectors, only
 * stored) lie below the gates. Offsets ≥ CRU_STORED_END read 0, ignore writes. */
#define CRU_CLKGATE_CON(n)	(0x800u + 4u * (n))
#define CRU_SOFTRST_CON(n)	(0xA00u + 4u * (n))
#define CRU_STORED_END		0xC00u

/* Rockchip hi-word write mask: bits 31:16 enable writes to bits 15:0. */
#define HIWORD_ENABLE(v)	((v) >> 16)
#define HIWORD_LOW		0xFFFFu

static uint32_t hiword_apply(uint32_t old, uint32_t wr)
{
	uint32_t en = HIWORD_ENABLE(wr);

	return (old & ~en) | (wr & en & HIWORD_LOW);
}

/* Power domains (HARDWARE.md §7.4; DT ids NPU 8, NPUTOP 9, NPU1 10, NPU2 11). */
enum pd {
	PD_NPU,
	PD_NPUTOP,
	PD_NPU1,
	PD_NPU2,
	PD_COUNT
};

#define PD_NONE		-1

struct pd_desc {
	const char *name;
	int parent;
	uint8_t pwr_bit;	/* PWR_GATE_SFTCON0/ST0, MEMPWR_GATE_SFTCON0 */
	bool has_mem;		/* the fields below are valid */
	uint8_t mem_bit;	/* PWR_MEM_ST0, PWR_CHAIN1_ST0 */
	uint8_t repair_bit;	/* BISR_STATUS4 */
	uint8_t idle_bit;	/* BUS_IDLE_SFTCON0/ACK0/ST0 */
};

static const struct pd_desc pd_table[PD_COUNT] = {
	[PD_NPU] = { .name = "PD_NPU", .parent = PD_NONE, .pwr_bit = 1 },
	[PD_NPUTOP] = { .name = "PD_NPUTOP", .parent = PD_NPU, .pwr_bit = 3, .has_mem = true,
			.mem_bit = 11, .repair_bit = 2, .idle_bit = 1 },
	[PD_NPU1] = { .name = "PD_NPU1", .parent = PD_NPUTOP, .pwr_bit = 4, .has_mem = true,
		      .mem_bit = 12, .repair_bit = 3, .idle_bit = 2 },
	[PD_NPU2] = { .name = "PD_NPU2", .parent = PD_NPUTOP, .pwr_bit = 5, .has_mem = true,
		      .mem_bit = 13, .repair_bit = 4, .idle_bit = 3 },
};

/* Clocks and resets (HARDWARE.md §7.1, §7.3). */
struct cru_bit {
	const char *name;
	uint8_t con;
	uint8_t bit;
};

/* Shared roots every core and the idle handshake need. */
static const struct cru_bit root_clocks[] = {
	{ "HCLK_NPU_ROOT", 29, 0 },
	{ "CLK_NPU_DSU0", 29, 1 },
	{ "PCLK_NPU_ROOT", 29, 4 },
};

#define NPU_CORES	3u

struct core_desc {
	enum pd domain;		/* its own domain; chain via parents */
	struct cru_bit aclk, hclk;
	struct cru_bit srst_a, srst_h;
};

static const struct core_desc core_table[NPU_CORES] = {
	{ PD_NPUTOP, { "ACLK_NPU0", 30, 6 }, { "HCLK_NPU0", 30, 8 },
	  { "SRST_A_RKNN0", 30, 6 }, { "SRST_H_RKNN0", 30, 8 } },
	{ PD_NPU1, { "ACLK_NPU1", 27, 0 }, { "HCLK_NPU1", 27, 2 },
	  { "SRST_A_RKNN1", 27, 0 }, { "SRST_H_RKNN1", 27, 2 } },
	{ PD_NPU2, { "ACLK_NPU2", 28, 0 }, { "HCLK_NPU2", 28, 2 },
	  { "SRST_A_RKNN2", 28, 0 }, { "SRST_H_RKNN2", 28, 2 } },
};

/* CLKGATE_CON27..30 hold every NPU gate; cold state gates them all. */
#define CRU_NPU_GATE_FIRST	27u
#define CRU_NPU_GATE_LAST	30u

/* What the status registers show for one domain. */
struct pd_state {
	bool on;		/* PWR_GATE_ST bit clear, chain up */
	bool mem_on;		/* PWR_MEM_ST bit clear */
	bool repaired;		/* BISR_STATUS4 bit set */
	bool idle_ack;
	bool idle;
};

#define WHY_LEN		96

struct sim_power {
	uint32_t pmu[PMU_SIZE / 4];		/* control registers, low halves */
	uint32_t cru[CRU_STORED_END / 4];

	bool want_on[PD_COUNT];		/* accepted power-on request */
	bool mem_dirty[PD_COUNT];	/* powered up with memory left on */
	struct pd_state shown[PD_COUNT];
	unsigned settle[PD_COUNT];	/* reads until shown catches up */

	bool accessible[NPU_CORES];
	bool reset_pulse[NPU_CORES];	/* reset completed, not yet taken */
	bool in_reset[NPU_CORES];	/* A or H asserted last time we looked */
	bool hold[NPU_CORES];
	char why[NPU_CORES][WHY_LEN];
	char diag[128];
};

static bool pmu_bit(const struct sim_power *pw, uint32_t off, unsigned bit)
{
	return pw->pmu[off / 4] & (1u << bit);
}

static bool cru_bit_set(const struct sim_power *pw, const struct cru_bit *b)
{
	return pw->cru[CRU_CLKGATE_CON(0) / 4 + b->con] & (1u << b->bit);
}

static bool srst_asserted(const struct sim_power *pw, const struct cru_bit *b)
{
	return pw->cru[CRU_SOFTRST_CON(0) / 4 + b->con] & (1u << b->bit);
}

static bool root_clocks_run(const struct sim_power *pw)
{
	for (size_t i = 0; i < sizeof(root_clocks) / sizeof(root_clocks[0]); i++)
		if (cru_bit_set(pw, &root_clocks[i]))
			return false;
	return true;
}

static bool core_in_reset(const struct sim_power *pw, unsigned core)
{
	const struct core_desc *c = &core_table[core];

	return pw->hold[core] || srst_asserted(pw, &c->srst_a) ||
	       srst_asserted(pw, &c->srst_h);
}

/* Which cores lose their state when domain d loses power. */
static bool core_depends_on(unsigned core, enum pd d)
{
	for (int p = core_table[core].domain; p != PD_NONE; p = pd_table[p].parent)
		if (p == (int)d)
			return true;
	return false;
}

/* Recompute what each core's register interface sees, naming the first
 * thing that keeps it unreachable. */
static void update_access(struct sim_power *pw)
{
	for (unsigned core = 0; core < NPU_CORES; core++) {
		const struct core_desc *c = &core_table[core];
		char *why = pw->why[core];
		enum pd chain[3] = { PD_NONE, PD_NONE, PD_NONE };
		unsigned n = 0;

		for (int p = c->domain; p != PD_NONE; p = pd_table[p].parent)
			chain[n++] = (enum pd)p;

		why[0] = '\0';
		/* Check from the root of the chain down. */
		while (n-- > 0 && !why[0]) {
			const struct pd_desc *d = &pd_table[chain[n]];
			const struct pd_state *s = &pw->shown[chain[n]];

			if (!s->on)
				snprintf(why, WHY_LEN, "core %u: %s off (PWR_GATE_ST0 bit %u)",
					 core, d->name, d->pwr_bit);
			else if (d->has_mem && !s->mem_on)
				snprintf(why, WHY_LEN, "core %u: %s memory off (PWR_MEM_ST0 bit %u)",
					 core, d->name, d->mem_bit);
			else if (d->has_mem && !s->repaired)
				snprintf(why, WHY_LEN,
					 "core %u: %s memory not repaired (BISR_STATUS4 bit %u)",
					 core, d->name, d->repair_bit);
		}
		if (!why[0] && pw->shown[c->domain].idle)
			snprintf(why, WHY_LEN, "core %u: %s bus idle (BUS_IDLE_ST0 bit %u)",
				 core, pd_table[c->domain].name, pd_table[c->domain].idle_bit);
		for (size_t i = 0; !why[0] && i < sizeof(root_clocks) / sizeof(root_clocks[0]); i++)
			if (cru_bit_set(pw, &root_clocks[i]))
				snprintf(why, WHY_LEN, "core %u: %s gated (CLKGATE_CON%u bit %u)",
					 core, root_clocks[i].name, root_clocks[i].con,
					 root_clocks[i].bit);
		if (!why[0] && cru_bit_set(pw, &c->aclk))
			snprintf(why, WHY_LEN, "core %u: %s gated (CLKGATE_CON%u bit %u)",
				 core, c->aclk.name, c->aclk.con, c->aclk.bit);
		if (!why[0] && cru_bit_set(pw, &c->hclk))
			snprintf(why, WHY_LEN, "core %u: %s gated (CLKGATE_CON%u bit %u)",
				 core, c->hclk.name, c->hclk.con, c->hclk.bit);
		if (!why[0] && pw->hold[core])
			snprintf(why, WHY_LEN, "core %u: held in reset (fault reset_stuck)", core);
		if (!why[0] && srst_asserted(pw, &c->srst_a))
			snprintf(why, WHY_LEN, "core %u: %s asserted (SOFTRST_CON%u bit %u)",
				 core, c->srst_a.name, c->srst_a.con, c->srst_a.bit);
		if (!why[0] && srst_asserted(pw, &c->srst_h))
			snprintf(why, WHY_LEN, "core %u: %s asserted (SOFTRST_CON%u bit %u)",
				 core, c->srst_h.name, c->srst_h.con, c->srst_h.bit);

		pw->accessible[core] = !why[0];
	}
}

/* A core's reset is "pulsed" when it leaves reset (A and H released, no
 * hold) after having been in it. */
static void track_resets(struct sim_power *pw)
{
	for (unsigned core = 0; core < NPU_CORES; core++) {
		bool now = core_in_reset(pw, core);

		if (pw->in_reset[core] && !now)
			pw->reset_pulse[core] = true;
		pw->in_reset[core] = now;
	}
}

/* The state domain d is heading to, given the current requests. */
static struct pd_state pd_target(const struct sim_power *pw, enum pd d)
{
	const struct pd_desc *desc = &pd_table[d];
	const struct pd_state *cur = &pw->shown[d];
	struct pd_state t = *cur;

	t.on = pw->want_on[d];
	if (desc->has_mem) {
		if (pmu_bit(pw, PMU_MEMPWR_GATE_SFTCON0, desc->pwr_bit))
			t.mem_on = false;
		else if (t.on)
			t.mem_on = true;
		/* else: memory keeps its state while the domain is off */
		t.repaired = t.on && t.mem_on && !pw->mem_dirty[d];

		if (cur->on && t.on && root_clocks_run(pw)) {
			bool req = pmu_bit(pw, PMU_BUS_IDLE_SFTCON0, desc->idle_bit);

			t.idle_ack = req;
			t.idle = req;
		}
		if (!t.on)
			t.idle = true;	/* an unpowered bus is idle */
	} else {
		t.mem_on = t.on;
		t.repaired = t.on;
	}
	return t;
}

static bool pd_state_eq(const struct pd_state *a, const struct pd_state *b)
{
	return a->on == b->on && a->mem_on == b->mem_on && a->repaired == b->repaired &&
	       a->idle_ack == b->idle_ack && a->idle == b->idle;
}

static void pd_apply(struct sim_power *pw, enum pd d, const struct pd_state *t)
{
	bool lost = pw->shown[d].on && !t->on;

	pw->shown[d] = *t;
	/* The memory reset (off while the domain is on) repairs it. */
	if (t->on && !t->mem_on)
		pw->mem_dirty[d] = false;
	if (lost)
		for (unsigned core = 0; core < NPU_CORES; core++)
			if (core_depends_on(core, d))
				pw->reset_pulse[core] = true;
}

/* One PMU read: status moves one step towards the requests. A change of
 * the target restarts the countdown. */
static void pmu_settle_step(struct sim_power *pw)
{
	bool changed = false;

	for (int d = 0; d < PD_COUNT; d++) {
		struct pd_state t = pd_target(pw, d);

		if (pd_state_eq(&t, &pw->shown[d])) {
			pw->settle[d] = 0;
			continue;
		}
		if (pw->settle[d] == 0)
			pw->settle[d] = PMU_SETTLE_READS;
		if (--pw->settle[d] == 0) {
			pd_apply(pw, d, &t);
			changed = true;
		}
	}
	if (changed)
		update_access(pw);
}

static void __attribute__((format(printf, 2, 3)))
set_diag(struct sim_power *pw, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(pw->diag, sizeof(pw->diag), fmt, ap);
	va_end(ap);
}

static void pd_power_off(struct sim_power *pw, enum pd d)
{
	pw->want_on[d] = false;
	if (pd_table[d].has_mem && !pw->shown[d].idle && pw->shown[d].on)
		set_diag(pw, "%s powered off with its bus not idle", pd_table[d].name);
	for (int c = 0; c < PD_COUNT; c++) {
		if (pd_table[c].parent != (int)d || !pw->want_on[c])
			continue;
		set_diag(pw, "%s powered off while its child %s is on",
			 pd_table[d].name, pd_table[c].name);
		pd_power_off(pw, c);
	}
}

static void pd_power_on(struct sim_power *pw, enum pd d)
{
	int parent = pd_table[d].parent;

	if (pw->want_on[d])
		return;
	if (parent != PD_NONE && (!pw->want_on[parent] || !pw->shown[parent].on)) {
		set_diag(pw, "%s power-on ignored: parent %s is off",
			 pd_table[d].name, pd_table[parent].name);
		return;
	}
	/* Memory left on while the domain was off needs a reset (HARDWARE.md §7.4). */
	if (pd_table[d].has_mem && !pw->shown[d].on && pw->shown[d].mem_on)
		pw->mem_dirty[d] = true;
	pw->want_on[d] = true;
}

static void pmu_write(struct sim_power *pw, uint32_t off, uint32_t value)
{
	uint32_t en = HIWORD_ENABLE(value);

	if (pmu_is_status(off))
		return;
	pw->pmu[off / 4] = hiword_apply(pw->pmu[off / 4], value);

	if (off == PMU_PWR_GATE_SFTCON0) {
		/* Bit = 1 powers the domain off, 0 powers it on (HARDWARE.md §7.4). */
		for (int d = 0; d < PD_COUNT; d++) {
			uint32_t bit = 1u << pd_table[d].pwr_bit;

			if (!(en & bit))
				continue;
			if (value & bit)
				pd_power_off(pw, d);
			else
				pd_power_on(pw, d);
		}
	}
}

static uint32_t pmu_read(struct sim_power *pw, uint32_t off)
{
	uint32_t v = 0;

	pmu_settle_step(pw);
	if (!pmu_is_status(off))
		return pw->pmu[off / 4];

	for (int d = 0; d < PD_COUNT; d++) {
		const struct pd_desc *desc = &pd_table[d];
		const struct pd_state *s = &pw->shown[d];

		switch (off) {
		case PMU_PWR_GATE_ST0:
			v |= (uint32_t)!s->on << desc->pwr_bit;
			break;
		case PMU_PWR_CHAIN1_ST0:
			if (desc->has_mem)
				v |= (uint32_t)s->on << desc->mem_bit;
			break;
		case PMU_PWR_MEM_ST0:
			if (desc->has_mem)
				v |= (uint32_t)!s->mem_on << desc->mem_bit;
			break;
		case PMU_BISR_STATUS4:
			if (desc->has_mem)
				v |= (uint32_t)s->repaired << desc->repair_bit;
			break;
		case PMU_BUS_IDLE_ACK0:
			if (desc->has_mem)
				v |= (uint32_t)s->idle_ack << desc->idle_bit;
			break;
		case PMU_BUS_IDLE_ST0:
			if (desc->has_mem)
				v |= (uint32_t)s->idle << desc->idle_bit;
			break;
		default:
			break;
		}
	}
	return v;
}

struct sim_power *sim_power_create(bool powered_at_reset)
{
	struct sim_power *pw = calloc(1, sizeof(*pw));

	if (!pw)
		return NULL;

	for (int d = 0; d < PD_COUNT; d++) {
		const struct pd_desc *desc = &pd_table[d];
		struct pd_state *s = &pw->shown[d];

		pw->want_on[d] = powered_at_reset;
		s->on = s->mem_on = s->repaired = powered_at_reset;
		/* Off means powered down the way Linux does it: idle requested. */
		s->idle_ack = s->idle = !powered_at_reset && desc->has_mem;
		if (!powered_at_reset) {
			pw->pmu[PMU_PWR_GATE_SFTCON0 / 4] |= 1u << desc->pwr_bit;
			if (desc->has_mem)
				pw->pmu[PMU_BUS_IDLE_SFTCON0 / 4] |= 1u << desc->idle_bit;
		}
	}

	if (!powered_at_reset) {
		for (unsigned n = CRU_NPU_GATE_FIRST; n <= CRU_NPU_GATE_LAST; n++)
			pw->cru[CRU_CLKGATE_CON(n) / 4] = HIWORD_LOW;
		for (unsigned core = 0; core < NPU_CORES; core++) {
			const struct core_desc *c = &core_table[core];

			pw->cru[CRU_SOFTRST_CON(c->srst_a.con) / 4] |= 1u << c->srst_a.bit;
			pw->cru[CRU_SOFTRST_CON(c->srst_h.con) / 4] |= 1u << c->srst_h.bit;
		}
	}
	track_resets(pw);
	update_access(pw);
	return pw;
}

void sim_power_destroy(struct sim_power *pw)
{
	free(pw);
}

int sim_power_read32(struct sim_power *pw, uint64_t phys, uint32_t *value)
{
	if (phys & 3)
		return -1;
	if (phys >= PMU_BASE && phys < PMU_BASE + PMU_SIZE) {
		*value = pmu_read(pw, (uint32_t)(phys - PMU_BASE));
		return 0;
	}
	if (phys >= CRU_BASE && phys < CRU_BASE + CRU_SIZE) {
		uint32_t off = (uint32_t)(phys - CRU_BASE);

		*value = off < CRU_STORED_END ? pw->cru[off / 4] : 0;
		return 0;
	}
	return -1;
}

int sim_power_write32(struct sim_power *pw, uint64_t phys, uint32_t value)
{
	if (phys & 3)
		return -1;
	if (phys >= PMU_BASE && phys < PMU_BASE + PMU_SIZE) {
		pmu_write(pw, (uint32_t)(phys - PMU_BASE), value);
	} else if (phys >= CRU_BASE && phys < CRU_BASE + CRU_SIZE) {
		uint32_t off = (uint32_t)(phys - CRU_BASE);

		if (off < CRU_STORED_END)
			pw->cru[off / 4] = hiword_apply(pw->cru[off / 4], value);
		track_resets(pw);
	} else {
		return -1;
	}
	update_access(pw);
	return 0;
}

bool sim_power_core_accessible(const struct sim_power *pw, unsigned core)
{
	return core < NPU_CORES && pw->accessible[core];
}

bool sim_power_take_reset(struct sim_power *pw, unsigned core)
{
	bool pulsed;

	if (core >= NPU_CORES)
		return false;
	pulsed = pw->reset_pulse[core];
	pw->reset_pulse[core] = false;
	return pulsed;
}

void sim_power_hold_reset(struct sim_power *pw, unsigned core, bool hold)
{
	if (core >= NPU_CORES)
		return;
	pw->hold[core] = hold;
	track_resets(pw);
	update_access(pw);
}

const char *sim_power_why_inaccessible(const struct sim_power *pw, unsigned core)
{
	if (core >= NPU_CORES)
		return "no such NPU core";
	return pw->why[core];
}

const char *sim_power_last_diag(const struct sim_power *pw)
{
	return pw->diag;
}
