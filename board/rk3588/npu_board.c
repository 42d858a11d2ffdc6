/* SPDX-License-Identifier: MIT */
/*
 * RK3588 NPU integration: register windows, PMU power domains, CRU clock
 * gates, selectors and soft resets of the three NPU cores. The qemu-virt
 * board links the same table: its NPU model emulates these registers.
 *
 * Sources (facts restated in docs/HARDWARE.md §B.1-B.3):
 *   torvalds/linux drivers/pmdomain/rockchip/pm-domains.c   (PMU offsets, bits)
 *   torvalds/linux drivers/clk/rockchip/clk-rk3588.c        (gates, selectors)
 *   torvalds/linux drivers/clk/rockchip/rst-rk3588.c        (reset bits)
 *   torvalds/linux arch/arm64/boot/dts/rockchip/rk3588-base.dtsi (bases, IRQs)
 *   ARM-software/arm-trusted-firmware plat/rockchip/rk3588/drivers/scmi/rk3588_clk.c
 *                                                           (NPU clock path)
 */
#include "drivers/npu/npu.h"

#define RK3588_CRU_BASE		0xFD7C0000u
#define RK3588_PMU2_BASE	0xFD8D8000u
#define RK3588_NPU0_BASE	0xFDAB0000u

#define CRU_CLKSEL_CON(n)	(0x300u + 4u * (n))
#define CRU_CLKGATE_CON(n)	(0x800u + 4u * (n))
#define CRU_SOFTRST_CON(n)	(0xA00u + 4u * (n))

/* Power-domain indices in the table below (power-on order). */
enum { PD_NPU, PD_NPUTOP, PD_NPU1, PD_NPU2 };

/* GPLL (1188 MHz) / (5 + 1) = 198 MHz: the highest GPLL rate <= 200 MHz,
 * what TF-A programs for a 200 MHz SCMI request; no vdd_npu change needed. */
#define NPU_DSU0_SRC_GPLL	0u
#define NPU_DSU0_DIV_198MHZ	5u
#define HCLK_NPU_ROOT_200MHZ	0u
#define PCLK_NPU_ROOT_100MHZ	0u
#define NPU_CLK_PATH_PLL	0u	/* CLKSEL_CON74 bit 0: 0 = PLL, 1 = PVTPLL */

const struct npu_board rk3588_npu_board = {
	.name = "rk3588",
	.cru_base = RK3588_CRU_BASE,
	.pmu_base = RK3588_PMU2_BASE,
	.pmu = {
		.pwr_con = 0x14C,
		.pwr_status = 0x180,
		.bus_idle_req = 0x10C,
		.bus_idle_ack = 0x118,
		.bus_idle_st = 0x120,
		.mem_pwr = 0x1A0,
		.chain_status = 0x1F0,
		.mem_status = 0x1F8,
		.repair_status = 0x290,
	},
	.domains = {
		[PD_NPU] = {
			.name = "PD_NPU", .parent = NPU_BIT_NONE, .pwr_bit = 1,
			.repair_bit = NPU_BIT_NONE, .mem_bit = NPU_BIT_NONE,
			.idle_bit = NPU_BIT_NONE,
		},
		[PD_NPUTOP] = {
			.name = "PD_NPUTOP", .parent = PD_NPU, .pwr_bit = 3,
			.repair_bit = 2, .mem_bit = 11, .idle_bit = 1,
		},
		[PD_NPU1] = {
			.name = "PD_NPU1", .parent = PD_NPUTOP, .pwr_bit = 4,
			.repair_bit = 3, .mem_bit = 12, .idle_bit = 2,
		},
		[PD_NPU2] = {
			.name = "PD_NPU2", .parent = PD_NPUTOP, .pwr_bit = 5,
			.repair_bit = 4, .mem_bit = 13, .idle_bit = 3,
		},
	},
	.domain_count = 4,
	.root_gates = {
		{ CRU_CLKGATE_CON(29), 0 },	/* HCLK_NPU_ROOT */
		{ CRU_CLKGATE_CON(29), 1 },	/* CLK_NPU_DSU0 (NPU core clock) */
		{ CRU_CLKGATE_CON(29), 4 },	/* PCLK_NPU_ROOT */
		{ CRU_CLKGATE_CON(29), 13 },	/* PCLK_NPU_GRF */
		{ CRU_CLKGATE_CON(30), 1 },	/* HCLK_NPU_CM0_ROOT (PD_NPUTOP clock) */
	},
	.root_gate_count = 5,
	.clk_sels = {
		{ CRU_CLKSEL_CON(73), 7, 3, NPU_DSU0_SRC_GPLL, "clk_npu_dsu0 source" },
		{ CRU_CLKSEL_CON(73), 2, 5, NPU_DSU0_DIV_198MHZ, "clk_npu_dsu0 divider" },
		{ CRU_CLKSEL_CON(73), 0, 2, HCLK_NPU_ROOT_200MHZ, "hclk_npu_root source" },
		{ CRU_CLKSEL_CON(74), 0, 1, NPU_CLK_PATH_PLL, "npu clock path" },
		{ CRU_CLKSEL_CON(74), 1, 2, PCLK_NPU_ROOT_100MHZ, "pclk_npu_root source" },
	},
	.clk_sel_count = 5,
	.cores = {
		{
			.base = RK3588_NPU0_BASE,
			.domain = PD_NPUTOP,
			.aclk_gate = { CRU_CLKGATE_CON(30), 6 },
			.hclk_gate = { CRU_CLKGATE_CON(30), 8 },
			.srst_a = { CRU_SOFTRST_CON(30), 6 },
			.srst_h = { CRU_SOFTRST_CON(30), 8 },
			.irq = 110,
		},
		{
			.base = RK3588_NPU0_BASE + NPU_CORE_STRIDE,
			.domain = PD_NPU1,
			.aclk_gate = { CRU_CLKGATE_CON(27), 0 },
			.hclk_gate = { CRU_CLKGATE_CON(27), 2 },
			.srst_a = { CRU_SOFTRST_CON(27), 0 },
			.srst_h = { CRU_SOFTRST_CON(27), 2 },
			.irq = 111,
		},
		{
			.base = RK3588_NPU0_BASE + 2 * NPU_CORE_STRIDE,
			.domain = PD_NPU2,
			.aclk_gate = { CRU_CLKGATE_CON(28), 0 },
			.hclk_gate = { CRU_CLKGATE_CON(28), 2 },
			.srst_a = { CRU_SOFTRST_CON(28), 0 },
			.srst_h = { CRU_SOFTRST_CON(28), 2 },
			.irq = 112,
		},
	},
};
