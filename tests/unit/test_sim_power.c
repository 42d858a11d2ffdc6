// SPDX-License-Identifier: MIT
/*
 * PMU/CRU model (sim/power.c) against the published sequences: every
 * address, bit and expected status below is taken from
 * docs/HARDWARE.md §B.2-B.3 and HARDWARE.md §7
 * (mainline pm-domains.c, clk-rk3588.c, rst-rk3588.c; TF-A pmu.h), written
 * out here independently of the model's own tables.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "sim/sim.h"
#include "sim/sim_power.h"

/* HARDWARE.md §B.2 */
#define PMU			0xFD8D8000ull
#define BUS_IDLE_SFTCON0	(PMU + 0x10C)
#define BUS_IDLE_ACK0		(PMU + 0x118)
#define BUS_IDLE_ST0		(PMU + 0x120)
#define PWR_GATE_SFTCON0	(PMU + 0x14C)
#define PWR_GATE_ST0		(PMU + 0x180)
#define MEMPWR_GATE_SFTCON0	(PMU + 0x1A0)
#define PWR_CHAIN1_ST0		(PMU + 0x1F0)
#define PWR_MEM_ST0		(PMU + 0x1F8)
#define BISR_STATUS4		(PMU + 0x290)

/* HARDWARE.md §B.3, §3.3 (absolute addresses as published) */
#define CLKSEL_CON73		0xFD7C0424ull
#define CLKGATE_CON27		0xFD7C086Cull
#define CLKGATE_CON28		0xFD7C0870ull
#define CLKGATE_CON29		0xFD7C0874ull
#define CLKGATE_CON30		0xFD7C0878ull
#define SOFTRST_CON27		0xFD7C0A6Cull
#define SOFTRST_CON28		0xFD7C0A70ull
#define SOFTRST_CON30		0xFD7C0A78ull

/* Hi-word writes (HARDWARE.md §B.3). */
#define SET(b)			((1u << ((b) + 16)) | (1u << (b)))
#define CLR(b)			(1u << ((b) + 16))

/* Domain bits (HARDWARE.md §7.4): pwr bit, mem/chain bit, repair bit, idle bit. */
struct dom { unsigned pwr, mem, repair, idle; };
static const struct dom NPUTOP = { 3, 11, 2, 1 };
static const struct dom NPU1 = { 4, 12, 3, 2 };
static const struct dom NPU2 = { 5, 13, 4, 3 };

/* Linux polls ≤ 10 ms; the model must settle within a handful of reads. */
#define MAX_POLL_READS		16

/* When set, rd()/wr() go through the whole model's windows instead of
 * the power model alone (test_soc_refuses_unpowered_core). */
static struct sim_soc *via_soc;

static uint32_t rd(struct sim_power *pw, uint64_t addr)
{
	uint32_t v = 0xDEADBEEF;

	if (via_soc)
		assert_int_equal(sim_soc_read32(via_soc, addr, &v), 0);
	else
		assert_int_equal(sim_power_read32(pw, addr, &v), 0);
	return v;
}

static void wr(struct sim_power *pw, uint64_t addr, uint32_t v)
{
	if (via_soc)
		assert_int_equal(sim_soc_write32(via_soc, addr, v), 0);
	else
		assert_int_equal(sim_power_write32(pw, addr, v), 0);
}

/* Reads needed until (reg & mask) == want, or -1. */
static int poll(struct sim_power *pw, uint64_t addr, uint32_t mask, uint32_t want)
{
	for (int i = 1; i <= MAX_POLL_READS; i++)
		if ((rd(pw, addr) & mask) == want)
			return i;
	return -1;
}

static void ungate_roots(struct sim_power *pw)
{
	/* HARDWARE.md §7.3: CON29 bits 0, 1, 4 (and 13, the NPU GRF). */
	wr(pw, CLKGATE_CON29, CLR(0) | CLR(1) | CLR(4) | CLR(13));
}

static void power_npu(struct sim_power *pw)
{
	wr(pw, PWR_GATE_SFTCON0, CLR(1));
	assert_true(poll(pw, PWR_GATE_ST0, 1u << 1, 0) > 0);
}

/* HARDWARE.md §7.4, the whole sequence, for a domain with memory status and an idle bit. */
static void power_domain(struct sim_power *pw, const struct dom *d)
{
	bool mem_was_on = !(rd(pw, PWR_MEM_ST0) & (1u << d->mem));

	wr(pw, PWR_GATE_SFTCON0, CLR(d->pwr));
	if (mem_was_on) {
		assert_true(poll(pw, PWR_CHAIN1_ST0, 1u << d->mem, 1u << d->mem) > 0);
		wr(pw, MEMPWR_GATE_SFTCON0, SET(d->pwr));
		assert_true(poll(pw, PWR_MEM_ST0, 1u << d->mem, 1u << d->mem) > 0);
		wr(pw, MEMPWR_GATE_SFTCON0, CLR(d->pwr));
		assert_true(poll(pw, PWR_MEM_ST0, 1u << d->mem, 0) > 0);
	}
	assert_true(poll(pw, BISR_STATUS4, 1u << d->repair, 1u << d->repair) > 0);
	wr(pw, BUS_IDLE_SFTCON0, CLR(d->idle));
	assert_true(poll(pw, BUS_IDLE_ACK0, 1u << d->idle, 0) > 0);
	assert_true(poll(pw, BUS_IDLE_ST0, 1u << d->idle, 0) > 0);
}

/* Power-down the way Linux does it (HARDWARE.md §7.4). */
static void power_down_domain(struct sim_power *pw, const struct dom *d)
{
	wr(pw, BUS_IDLE_SFTCON0, SET(d->idle));
	assert_true(poll(pw, BUS_IDLE_ACK0, 1u << d->idle, 1u << d->idle) > 0);
	assert_true(poll(pw, BUS_IDLE_ST0, 1u << d->idle, 1u << d->idle) > 0);
	wr(pw, PWR_GATE_SFTCON0, SET(d->pwr));
	assert_true(poll(pw, PWR_GATE_ST0, 1u << d->pwr, 1u << d->pwr) > 0);
}

static void ungate_and_pulse_cores(struct sim_power *pw)
{
	/* HARDWARE.md §7.3: CON30 bits 6, 8; CON27 / CON28 bits 0, 2. */
	wr(pw, CLKGATE_CON30, CLR(6) | CLR(8));
	wr(pw, CLKGATE_CON27, CLR(0) | CLR(2));
	wr(pw, CLKGATE_CON28, CLR(0) | CLR(2));
	/* Step 5: assert A and H, then release them together (HARDWARE.md §7.2). */
	wr(pw, SOFTRST_CON30, SET(6) | SET(8));
	wr(pw, SOFTRST_CON27, SET(0) | SET(2));
	wr(pw, SOFTRST_CON28, SET(0) | SET(2));
	wr(pw, SOFTRST_CON30, CLR(6) | CLR(8));
	wr(pw, SOFTRST_CON27, CLR(0) | CLR(2));
	wr(pw, SOFTRST_CON28, CLR(0) | CLR(2));
}

static void bring_up_all(struct sim_power *pw)
{
	ungate_roots(pw);
	power_npu(pw);
	power_domain(pw, &NPUTOP);
	power_domain(pw, &NPU2);	/* TF-A's order: NPU2 before NPU1 */
	power_domain(pw, &NPU1);
	ungate_and_pulse_cores(pw);
}

static void test_cold_state_reads_off(void **state)
{
	struct sim_power *pw = sim_power_create(false);

	(void)state;
	assert_non_null(pw);
	/* 1 = off for all four domains (PWR_GATE_ST0 bits 1, 3, 4, 5). */
	assert_int_equal(rd(pw, PWR_GATE_ST0) & 0x3A, 0x3A);
	assert_int_equal(rd(pw, BISR_STATUS4) & 0x1C, 0);
	assert_int_equal(rd(pw, BUS_IDLE_ST0) & 0xE, 0xE);
	for (unsigned c = 0; c < 3; c++)
		assert_false(sim_power_core_accessible(pw, c));
	assert_string_equal(sim_power_why_inaccessible(pw, 0),
			    "core 0: PD_NPU off (PWR_GATE_ST0 bit 1)");
	assert_string_equal(sim_power_why_inaccessible(pw, 2),
			    "core 2: PD_NPU off (PWR_GATE_ST0 bit 1)");
	sim_power_destroy(pw);
}

static void test_powered_at_reset(void **state)
{
	struct sim_power *pw = sim_power_create(true);

	(void)state;
	for (unsigned c = 0; c < 3; c++)
		assert_true(sim_power_core_accessible(pw, c));
	assert_int_equal(rd(pw, PWR_GATE_ST0) & 0x3A, 0);
	assert_int_equal(rd(pw, BISR_STATUS4) & 0x1C, 0x1C);
	assert_int_equal(rd(pw, PWR_MEM_ST0) & 0x3800, 0);
	assert_int_equal(rd(pw, BUS_IDLE_ACK0) & 0xE, 0);
	assert_int_equal(rd(pw, BUS_IDLE_ST0) & 0xE, 0);
	assert_false(sim_power_take_reset(pw, 0));
	sim_power_destroy(pw);
}

/* Every step of HARDWARE.md §7.3-7.4 gives the documented status bits. */
static void test_full_bring_up_sequence(void **state)
{
	struct sim_power *pw = sim_power_create(false);

	(void)state;
	ungate_roots(pw);
	assert_int_equal(rd(pw, CLKGATE_CON29) & 0x2013, 0);

	/* PD_NPU: status is not instantaneous, then reads on. */
	wr(pw, PWR_GATE_SFTCON0, CLR(1));
	assert_int_equal(rd(pw, PWR_GATE_ST0) & 0x2, 0x2);
	assert_true(poll(pw, PWR_GATE_ST0, 0x2, 0) > 0);
	assert_string_equal(sim_power_why_inaccessible(pw, 0),
			    "core 0: PD_NPUTOP off (PWR_GATE_ST0 bit 3)");

	/* PD_NPUTOP from cold: memory was off, so no memory reset needed. */
	assert_int_equal(rd(pw, PWR_MEM_ST0) & (1u << 11), 1u << 11);
	wr(pw, PWR_GATE_SFTCON0, CLR(3));
	assert_true(poll(pw, BISR_STATUS4, 1u << 2, 1u << 2) > 0);
	assert_int_equal(rd(pw, PWR_GATE_ST0) & (1u << 3), 0);
	assert_int_equal(rd(pw, PWR_CHAIN1_ST0) & (1u << 11), 1u << 11);
	assert_int_equal(rd(pw, PWR_MEM_ST0) & (1u << 11), 0);
	/* Powered but the NoC is still idle-requested. */
	assert_int_equal(rd(pw, BUS_IDLE_ST0) & (1u << 1), 1u << 1);
	assert_string_equal(sim_power_why_inaccessible(pw, 0),
			    "core 0: PD_NPUTOP bus idle (BUS_IDLE_ST0 bit 1)");
	wr(pw, BUS_IDLE_SFTCON0, CLR(1));
	assert_true(poll(pw, BUS_IDLE_ACK0, 1u << 1, 0) > 0);
	assert_true(poll(pw, BUS_IDLE_ST0, 1u << 1, 0) > 0);
	assert_string_equal(sim_power_why_inaccessible(pw, 0),
			    "core 0: ACLK_NPU0 gated (CLKGATE_CON30 bit 6)");

	wr(pw, CLKGATE_CON30, CLR(6));
	assert_string_equal(sim_power_why_inaccessible(pw, 0),
			    "core 0: HCLK_NPU0 gated (CLKGATE_CON30 bit 8)");
	wr(pw, CLKGATE_CON30, CLR(8));
	assert_string_equal(sim_power_why_inaccessible(pw, 0),
			    "core 0: SRST_A_RKNN0 asserted (SOFTRST_CON30 bit 6)");
	wr(pw, SOFTRST_CON30, CLR(6));
	assert_string_equal(sim_power_why_inaccessible(pw, 0),
			    "core 0: SRST_H_RKNN0 asserted (SOFTRST_CON30 bit 8)");
	wr(pw, SOFTRST_CON30, CLR(8));
	assert_true(sim_power_core_accessible(pw, 0));
	assert_string_equal(sim_power_why_inaccessible(pw, 0), "");

	/* Cores 1 and 2 still wait for their own domains. */
	assert_string_equal(sim_power_why_inaccessible(pw, 1),
			    "core 1: PD_NPU1 off (PWR_GATE_ST0 bit 4)");
	assert_string_equal(sim_power_why_inaccessible(pw, 2),
			    "core 2: PD_NPU2 off (PWR_GATE_ST0 bit 5)");
	power_domain(pw, &NPU2);
	power_domain(pw, &NPU1);
	assert_int_equal(rd(pw, PWR_GATE_ST0) & 0x3A, 0);
	assert_int_equal(rd(pw, BISR_STATUS4) & 0x1C, 0x1C);
	assert_string_equal(sim_power_why_inaccessible(pw, 1),
			    "core 1: ACLK_NPU1 gated (CLKGATE_CON27 bit 0)");
	ungate_and_pulse_cores(pw);
	for (unsigned c = 0; c < 3; c++)
		assert_true(sim_power_core_accessible(pw, c));
	assert_string_equal(sim_power_last_diag(pw), "");
	sim_power_destroy(pw);
}

/* Bits 31:16 enable bits 15:0; without them nothing changes (HARDWARE.md §B.3). */
static void test_hiword_masked_writes(void **state)
{
	struct sim_power *pw = sim_power_create(false);

	(void)state;
	/* Value bits without their enables: no change. */
	wr(pw, CLKGATE_CON29, 0x0000);
	assert_int_equal(rd(pw, CLKGATE_CON29) & 0x13, 0x13);
	wr(pw, PWR_GATE_SFTCON0, 0x0000);
	assert_true(poll(pw, PWR_GATE_ST0, 0x2, 0) < 0);

	/* Only enabled bits change; reads return the low half only. */
	wr(pw, CLKSEL_CON73, 0xFFFF0000u | (5u << 2) | 0);
	assert_int_equal(rd(pw, CLKSEL_CON73), 5u << 2);
	wr(pw, CLKSEL_CON73, (0x3u << 16) | 0x3u);
	assert_int_equal(rd(pw, CLKSEL_CON73), (5u << 2) | 0x3u);
	wr(pw, CLKSEL_CON73, 0x0000FFFFu);
	assert_int_equal(rd(pw, CLKSEL_CON73), (5u << 2) | 0x3u);

	/* Status registers are read-only. */
	wr(pw, PWR_GATE_ST0, 0xFFFF0000u);
	assert_int_equal(rd(pw, PWR_GATE_ST0) & 0x3A, 0x3A);
	sim_power_destroy(pw);
}

/* Parent before child; refusal reasons name the register and bit. */
static void test_child_before_parent_refused(void **state)
{
	struct sim_power *pw = sim_power_create(false);

	(void)state;
	ungate_roots(pw);
	wr(pw, PWR_GATE_SFTCON0, CLR(4));	/* NPU1 before NPU / NPUTOP */
	assert_true(poll(pw, PWR_GATE_ST0, 1u << 4, 0) < 0);
	assert_non_null(strstr(sim_power_last_diag(pw), "PD_NPU1"));

	power_npu(pw);
	power_domain(pw, &NPUTOP);
	/* The dropped request does not come back on its own. */
	assert_true(poll(pw, PWR_GATE_ST0, 1u << 4, 0) < 0);
	assert_string_equal(sim_power_why_inaccessible(pw, 1),
			    "core 1: PD_NPU1 off (PWR_GATE_ST0 bit 4)");
	power_domain(pw, &NPU1);
	assert_string_equal(sim_power_why_inaccessible(pw, 1),
			    "core 1: ACLK_NPU1 gated (CLKGATE_CON27 bit 0)");

	/* Taking the parent down takes the children with it. */
	wr(pw, PWR_GATE_SFTCON0, SET(3));
	assert_true(poll(pw, PWR_GATE_ST0, (1u << 3) | (1u << 4),
			 (1u << 3) | (1u << 4)) > 0);
	assert_string_not_equal(sim_power_last_diag(pw), "");
	sim_power_destroy(pw);
}

/* With the root clocks gated the NoC idle handshake does not complete. */
static void test_idle_handshake_needs_root_clocks(void **state)
{
	struct sim_power *pw = sim_power_create(false);

	(void)state;
	power_npu(pw);
	wr(pw, PWR_GATE_SFTCON0, CLR(3));
	assert_true(poll(pw, BISR_STATUS4, 1u << 2, 1u << 2) > 0);
	wr(pw, BUS_IDLE_SFTCON0, CLR(1));
	assert_true(poll(pw, BUS_IDLE_ACK0, 1u << 1, 0) < 0);
	ungate_roots(pw);
	assert_true(poll(pw, BUS_IDLE_ACK0, 1u << 1, 0) > 0);
	assert_true(poll(pw, BUS_IDLE_ST0, 1u << 1, 0) > 0);
	sim_power_destroy(pw);
}

/* HARDWARE.md §7.4: memory left on across a power-down must be reset before
 * the repair status reports the domain on. */
static void test_memory_repair_path(void **state)
{
	struct sim_power *pw = sim_power_create(false);
	const struct dom *d = &NPU1;

	(void)state;
	bring_up_all(pw);
	power_down_domain(pw, d);
	/* Memory status still says "on" while the domain is off. */
	assert_int_equal(rd(pw, PWR_MEM_ST0) & (1u << d->mem), 0);
	assert_int_equal(rd(pw, BISR_STATUS4) & (1u << d->repair), 0);

	/* Power on without the memory reset: never reports on. */
	wr(pw, PWR_GATE_SFTCON0, CLR(d->pwr));
	assert_true(poll(pw, PWR_CHAIN1_ST0, 1u << d->mem, 1u << d->mem) > 0);
	assert_true(poll(pw, BISR_STATUS4, 1u << d->repair, 1u << d->repair) < 0);
	assert_string_equal(sim_power_why_inaccessible(pw, 1),
			    "core 1: PD_NPU1 memory not repaired (BISR_STATUS4 bit 3)");

	/* The memory reset: off (MEM_ST = 1), then on (MEM_ST = 0). */
	wr(pw, MEMPWR_GATE_SFTCON0, SET(d->pwr));
	assert_true(poll(pw, PWR_MEM_ST0, 1u << d->mem, 1u << d->mem) > 0);
	wr(pw, MEMPWR_GATE_SFTCON0, CLR(d->pwr));
	assert_true(poll(pw, PWR_MEM_ST0, 1u << d->mem, 0) > 0);
	assert_true(poll(pw, BISR_STATUS4, 1u << d->repair, 1u << d->repair) > 0);

	/* The whole Linux sequence works again from here (idle release). */
	wr(pw, BUS_IDLE_SFTCON0, CLR(d->idle));
	assert_true(poll(pw, BUS_IDLE_ST0, 1u << d->idle, 0) > 0);
	assert_true(sim_power_core_accessible(pw, 1));
	sim_power_destroy(pw);
}

static void test_power_off_without_idle_diagnosed(void **state)
{
	struct sim_power *pw = sim_power_create(true);

	(void)state;
	wr(pw, PWR_GATE_SFTCON0, SET(NPU2.pwr));
	assert_non_null(strstr(sim_power_last_diag(pw), "PD_NPU2"));
	assert_true(poll(pw, PWR_GATE_ST0, 1u << NPU2.pwr, 1u << NPU2.pwr) > 0);
	assert_false(sim_power_core_accessible(pw, 2));
	assert_true(sim_power_core_accessible(pw, 1));
	sim_power_destroy(pw);
}

/* take_reset: once per completed assert → deassert pulse of A or H. */
static void test_reset_pulse_detection(void **state)
{
	struct sim_power *pw = sim_power_create(false);

	(void)state;
	bring_up_all(pw);
	for (unsigned c = 0; c < 3; c++) {
		assert_true(sim_power_take_reset(pw, c));
		assert_false(sim_power_take_reset(pw, c));
	}

	/* Asserted only: not yet a pulse, and the core is unreachable. */
	wr(pw, SOFTRST_CON27, SET(2));
	assert_false(sim_power_take_reset(pw, 1));
	assert_false(sim_power_core_accessible(pw, 1));
	assert_string_equal(sim_power_why_inaccessible(pw, 1),
			    "core 1: SRST_H_RKNN1 asserted (SOFTRST_CON27 bit 2)");
	wr(pw, SOFTRST_CON27, CLR(2));
	assert_true(sim_power_take_reset(pw, 1));
	assert_false(sim_power_take_reset(pw, 1));
	assert_false(sim_power_take_reset(pw, 0));
	assert_false(sim_power_take_reset(pw, 2));

	/* A write that changes nothing is no pulse. */
	wr(pw, SOFTRST_CON30, CLR(6) | CLR(8));
	assert_false(sim_power_take_reset(pw, 0));

	/* Losing power loses the core's state too. */
	power_down_domain(pw, &NPU2);
	assert_true(sim_power_take_reset(pw, 2));
	assert_false(sim_power_take_reset(pw, 1));
	sim_power_destroy(pw);
}

static void test_hold_reset_fault(void **state)
{
	struct sim_power *pw = sim_power_create(true);

	(void)state;
	sim_power_hold_reset(pw, 1, true);
	assert_false(sim_power_core_accessible(pw, 1));
	assert_true(sim_power_core_accessible(pw, 0));
	assert_non_null(strstr(sim_power_why_inaccessible(pw, 1), "reset"));
	/* Pulsing the CRU lines does not help. */
	wr(pw, SOFTRST_CON27, SET(0) | SET(2));
	wr(pw, SOFTRST_CON27, CLR(0) | CLR(2));
	assert_false(sim_power_core_accessible(pw, 1));
	assert_false(sim_power_take_reset(pw, 1));
	sim_power_hold_reset(pw, 1, false);
	assert_true(sim_power_core_accessible(pw, 1));
	assert_true(sim_power_take_reset(pw, 1));
	sim_power_destroy(pw);
}

/* Windows: PMU 0x400, CRU 0x5C000; unmodelled registers inside read
 * without faulting, anything outside is not ours. */
static void test_windows(void **state)
{
	struct sim_power *pw = sim_power_create(false);
	uint32_t v;

	(void)state;
	assert_int_equal(sim_power_read32(pw, PMU + 0x3FC, &v), 0);
	assert_int_equal(sim_power_read32(pw, PMU + 0x400, &v), -1);
	assert_int_equal(sim_power_read32(pw, PMU - 4, &v), -1);
	assert_int_equal(sim_power_read32(pw, 0xFD7C0000ull + 0x5BFFC, &v), 0);
	assert_int_equal(sim_power_write32(pw, 0xFD7C0000ull + 0x5BFFC, 0xFFFFFFFF), 0);
	assert_int_equal(sim_power_read32(pw, 0xFD7C0000ull + 0x5C000, &v), -1);
	assert_int_equal(sim_power_write32(pw, 0xFD7C0000ull + 0x5C000, 0), -1);
	assert_int_equal(sim_power_read32(pw, 0xFDAB0000ull, &v), -1);
	/* An unmodelled PMU control register keeps what was written. */
	wr(pw, PMU + 0x128, 0xFFFFFFFFu);	/* BIU_AUTO_CON0 (TF-A boot write) */
	assert_int_equal(rd(pw, PMU + 0x128), 0xFFFF);
	assert_false(sim_power_core_accessible(pw, 3));
	sim_power_destroy(pw);
}

static uint8_t *no_ram(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	(void)phys;
	(void)len;
	return NULL;
}

/* Through the whole model: an NPU register read while the core is gated
 * is refused with the power model's reason; after bring-up the PC answers
 * with the RK3588 VERSION (HARDWARE.md §1.3). */
static void test_soc_refuses_unpowered_core(void **state)
{
	const struct sim_bus bus = { .map = no_ram };
	const struct sim_config cfg = { .powered_at_reset = false };
	struct sim_soc *soc = sim_soc_create(&bus, &cfg);
	uint32_t v = 0xDEADBEEF;

	(void)state;
	assert_non_null(soc);
	assert_int_equal(sim_soc_read32(soc, 0xFDAC0000ull, &v), 0);
	assert_non_null(strstr(sim_soc_last_error(soc),
			       "core 1: PD_NPU off (PWR_GATE_ST0 bit 1)"));

	/* The same bring-up, through the SoC's PMU and CRU windows. */
	via_soc = soc;
	bring_up_all(NULL);
	via_soc = NULL;
	for (unsigned c = 0; c < 3; c++) {
		assert_int_equal(sim_soc_read32(soc, 0xFDAB0000ull + 0x10000ull * c, &v), 0);
		assert_int_equal(v, 0x46495245);	/* "FIRE" */
	}
	sim_soc_destroy(soc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cold_state_reads_off),
		cmocka_unit_test(test_powered_at_reset),
		cmocka_unit_test(test_full_bring_up_sequence),
		cmocka_unit_test(test_hiword_masked_writes),
		cmocka_unit_test(test_child_before_parent_refused),
		cmocka_unit_test(test_idle_handshake_needs_root_clocks),
		cmocka_unit_test(test_memory_repair_path),
		cmocka_unit_test(test_power_off_without_idle_diagnosed),
		cmocka_unit_test(test_reset_pulse_detection),
		cmocka_unit_test(test_hold_reset_fault),
		cmocka_unit_test(test_windows),
		cmocka_unit_test(test_soc_refuses_unpowered_core),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
