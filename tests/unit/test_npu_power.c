/* SPDX-License-Identifier: MIT */
/*
 * NPU bring-up and power-down through the model of the PMU/CRU and NPU.
 * Expected register states are the published ones (HARDWARE.md §B.2-B.3,
 * HARDWARE.md §1.3), written out here independently of the board table.
 */
#include "test_npu_common.h"

/* HARDWARE.md §B.2-2.2 */
#define PMU			0xFD8D8000ull
#define PWR_GATE_SFTCON0	(PMU + 0x14C)
#define PWR_GATE_ST0		(PMU + 0x180)
#define BUS_IDLE_SFTCON0	(PMU + 0x10C)
#define BUS_IDLE_ST0		(PMU + 0x120)
#define PWR_MEM_ST0		(PMU + 0x1F8)
#define BISR_STATUS4		(PMU + 0x290)
#define PD_NPU_PWR_BIT		1u
#define REPAIR_BIT(core)	(2u + (core))	/* NPUTOP 2, NPU1 3, NPU2 4 */
#define IDLE_BIT(core)		(1u + (core))	/* NPUTOP 1, NPU1 2, NPU2 3 */

/* HARDWARE.md §B.3-3.3 (absolute addresses as published) */
#define CLKSEL_CON73		0xFD7C0424ull
#define CLKSEL_CON74		0xFD7C0428ull
#define CLKGATE_CON27		0xFD7C086Cull
#define CLKGATE_CON28		0xFD7C0870ull
#define CLKGATE_CON29		0xFD7C0874ull
#define CLKGATE_CON30		0xFD7C0878ull

/* HARDWARE.md §1.1, §1.3 */
#define NPU_CORE_BASE(c)	(0xFDAB0000ull + 0x10000ull * (c))
#define FIRE			0x46495245u

static struct npu_dev dev;

static int setup_off(void **state)
{
	(void)state;
	t_model_create(false);
	assert_int_equal(npu_init(&dev, &rk3588_npu_board), NPU_OK);
	return 0;
}

static int setup_on(void **state)
{
	(void)state;
	t_model_create(true);
	assert_int_equal(npu_init(&dev, &rk3588_npu_board), NPU_OK);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	t_model_destroy();
	return 0;
}

static void assert_core_up(unsigned int core)
{
	assert_false(t_peek(PWR_GATE_ST0) & (1u << PD_NPU_PWR_BIT));
	assert_true(t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(0)));
	assert_true(t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(core)));
	assert_false(t_peek(BUS_IDLE_ST0) & (1u << IDLE_BIT(core)));
	assert_int_equal(t_peek(NPU_CORE_BASE(core)), FIRE);
}

static void bring_up_all_from_off(void **state)
{
	unsigned int c;
	uint32_t sel73;

	(void)state;
	assert_int_equal(npu_power_on(&dev, 0x7), NPU_OK);
	for (c = 0; c < 3; c++)
		assert_core_up(c);
	assert_int_equal(dev.powered_mask, 0x7);
	assert_int_equal(dev.version, FIRE);

	/* Root clocks HCLK_NPU_ROOT, CLK_NPU_DSU0, PCLK_NPU_ROOT ungated
	 * (CON29 bits 0, 1, 4); core A/H clocks ungated. */
	assert_int_equal(t_peek(CLKGATE_CON29) & 0x13u, 0);
	assert_int_equal(t_peek(CLKGATE_CON30) & ((1u << 6) | (1u << 8)), 0);
	assert_int_equal(t_peek(CLKGATE_CON27) & 0x5u, 0);
	assert_int_equal(t_peek(CLKGATE_CON28) & 0x5u, 0);
	/* NPU clock ≤ 200 MHz from GPLL (1188 MHz): source 0, divider ≥ 5;
	 * PLL path (CLKSEL_CON74 bit 0 clear). */
	sel73 = t_peek(CLKSEL_CON73);
	assert_int_equal((sel73 >> 7) & 0x7u, 0);
	assert_true(1188u / (((sel73 >> 2) & 0x1Fu) + 1u) <= 200u);
	assert_int_equal(t_peek(CLKSEL_CON74) & 1u, 0);
}

static void bring_up_core0_only(void **state)
{
	(void)state;
	assert_int_equal(npu_power_on(&dev, 0x1), NPU_OK);
	assert_core_up(0);
	/* NPU1 / NPU2 untouched: still off. */
	assert_false(t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(1)));
	assert_false(t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(2)));
	assert_int_equal(dev.powered_mask, 0x1);
}

static void bring_up_child_first(void **state)
{
	(void)state;
	/* Core 2 alone still needs PD_NPU and PD_NPUTOP first. */
	assert_int_equal(npu_power_on(&dev, 0x4), NPU_OK);
	assert_core_up(2);
	assert_false(t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(1)));
}

static void bring_up_already_on(void **state)
{
	(void)state;
	for (unsigned int c = 0; c < 3; c++)
		assert_core_up(c);
	t_watch_addr = PWR_GATE_SFTCON0;
	assert_int_equal(npu_power_on(&dev, 0x7), NPU_OK);
	for (unsigned int c = 0; c < 3; c++)
		assert_core_up(c);
	/* Domains found on are left alone: no power request at all. */
	assert_int_equal(t_watch_writes, 0);
	assert_int_equal(dev.powered_mask, 0x7);
}

/* Hi-word writes (HARDWARE.md §B.3). */
#define HW_SET(b)		((1u << ((b) + 16)) | (1u << (b)))

/* PD_NPU1 switched off by someone else with its memory left on: power-up
 * must go through the memory reset (HARDWARE.md §B.2 step 6). */
static void bring_up_memory_left_on(void **state)
{
	int i;

	(void)state;
	t_poke(BUS_IDLE_SFTCON0, HW_SET(IDLE_BIT(1)));
	for (i = 0; i < 16 && !(t_peek(BUS_IDLE_ST0) & (1u << IDLE_BIT(1))); i++)
		;
	t_poke(PWR_GATE_SFTCON0, HW_SET(4));	/* PD_NPU1 pwr bit */
	for (i = 0; i < 16 && (t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(1))); i++)
		;
	assert_false(t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(1)));
	assert_false(t_peek(PWR_MEM_ST0) & (1u << 12));	/* memory still on */

	assert_int_equal(npu_power_on(&dev, 0x2), NPU_OK);
	assert_core_up(1);
}

static void power_off_then_on_again(void **state)
{
	(void)state;
	assert_int_equal(npu_power_on(&dev, 0x7), NPU_OK);
	assert_int_equal(npu_power_off(&dev), NPU_OK);
	assert_true(t_peek(PWR_GATE_ST0) & (1u << PD_NPU_PWR_BIT));
	for (unsigned int c = 0; c < 3; c++)
		assert_false(t_peek(BISR_STATUS4) & (1u << REPAIR_BIT(c)));
	assert_true((t_peek(CLKGATE_CON29) & 0x13u) == 0x13u);
	assert_int_equal(dev.powered_mask, 0);

	assert_int_equal(npu_power_on(&dev, 0x7), NPU_OK);
	for (unsigned int c = 0; c < 3; c++)
		assert_core_up(c);
}

static void wrong_version_refused(void **state)
{
	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "bad_version"), 0);
	assert_int_equal(npu_power_on(&dev, 0x1), NPU_ERR_VERSION);
	assert_int_equal(dev.powered_mask, 0);
}

static void core_stuck_in_reset(void **state)
{
	int err;

	(void)state;
	assert_int_equal(sim_soc_set_fault(t_soc, "reset_stuck=1"), 0);
	err = npu_power_on(&dev, 0x3);
	/* Core 1 never leaves reset: a reset error, not a version error;
	 * core 0 came up first. */
	assert_int_equal(err, NPU_ERR_RESET);
	assert_int_equal(dev.powered_mask, 0x1);
}

static void bad_arguments(void **state)
{
	struct npu_dev other;
	struct npu_board broken = rk3588_npu_board;

	(void)state;
	assert_int_equal(npu_power_on(&dev, 0), NPU_ERR_INVAL);
	assert_int_equal(npu_power_on(&dev, 0x8), NPU_ERR_INVAL);
	assert_int_equal(npu_init(&other, NULL), NPU_ERR_INVAL);
	/* A child listed before its parent. */
	broken.domains[0].parent = 1;
	assert_int_equal(npu_init(&other, &broken), NPU_ERR_INVAL);
	assert_int_equal(t_mmio.reads + t_mmio.writes, 0);
}

static void strerror_distinct(void **state)
{
	(void)state;
	for (int a = NPU_ERR_DMA_WRITE; a <= NPU_OK; a++)
		for (int b = a + 1; b <= NPU_OK; b++)
			assert_string_not_equal(npu_strerror(a), npu_strerror(b));
	assert_string_equal(npu_strerror(-1000), "unknown NPU error");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(bring_up_all_from_off, setup_off, teardown),
		cmocka_unit_test_setup_teardown(bring_up_core0_only, setup_off, teardown),
		cmocka_unit_test_setup_teardown(bring_up_child_first, setup_off, teardown),
		cmocka_unit_test_setup_teardown(bring_up_already_on, setup_on, teardown),
		cmocka_unit_test_setup_teardown(bring_up_memory_left_on, setup_on, teardown),
		cmocka_unit_test_setup_teardown(power_off_then_on_again, setup_off, teardown),
		cmocka_unit_test_setup_teardown(wrong_version_refused, setup_off, teardown),
		cmocka_unit_test_setup_teardown(core_stuck_in_reset, setup_off, teardown),
		cmocka_unit_test_setup_teardown(bad_arguments, setup_off, teardown),
		cmocka_unit_test(strerror_distinct),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
