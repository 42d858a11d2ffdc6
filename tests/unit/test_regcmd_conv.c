/* SPDX-License-Identifier: MIT */
/*
 * The int8 convolution regcmd against the published Mesa register set
 * (docs/HARDWARE.md §4.8 D: Mesa rkt_regcmd.c, rkt_coefs.c), with the
 * per-register meanings of §4.2-4.5 and the requantisation rule of §6.3.
 * Expected values are typed from those published values; where the
 * builder departs, the test checks our value and says why.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/lower_conv.h"
#include "compiler/regcmd.h"

#define CAP 2048

static uint64_t entries[CAP];
static struct rc_task tasks[8];
static uint32_t reg[0x8000 / 4];
static unsigned int writes[0x8000 / 4];

/* Record the register writes of the first task's body. */
static void record_first_task(void)
{
	memset(writes, 0, sizeof(writes));
	for (size_t i = 0; i < tasks[0].body; i++) {
		uint16_t off = npu_rc_offset(entries[i]);

		if (!entries[i])
			continue;
		reg[off / 4] = npu_rc_value(entries[i]);
		writes[off / 4]++;
	}
}

static void build(const struct lower_conv_op *op)
{
	struct rc_program p;

	rc_program_init(&p, entries, CAP, tasks, 8);
	assert_int_equal(lower_conv(&p, op), 0);
	assert_int_equal(p.task_count, 1);
	record_first_task();
}

static void expect(uint16_t off, uint32_t want, const char *what)
{
	if (writes[off / 4] != 1 || reg[off / 4] != want)
		fail_msg("%s (0x%04x) = 0x%08x written %u time(s), published 0x%08x", what, off,
			 reg[off / 4], writes[off / 4], want);
}

/* uint8 conv 8×8×32 → 32, 3×3, SAME, input zp 100, weight zp 120, output zp 90. */
static void test_mesa_set_d_direct(void **state)
{
	float w_scale = 0.004f;
	struct lower_conv_op op = {
		.in_h = 8, .in_w = 8, .in_c = 32, .out_c = 32, .kh = 3, .kw = 3,
		.stride_y = 1, .stride_x = 1, .same_padding = true, .is_unsigned = true,
		.in_scale = 0.05f, .in_zp = 100, .w_scale = &w_scale, .w_scale_count = 1,
		.w_zp = 120, .out_scale = 0.1f, .out_zp = 90,
		.in_addr = 0x10000000, .weight_addr = 0x20000000, .bias_addr = 0x28000000,
		.out_addr = 0x30000000,
	};
	float conv_scale = 0.05f * 0.004f / 0.1f;
	uint32_t bits, e;

	(void)state;
	build(&op);
	expect(0x100C, 0, "CONV_CON1 0");
	expect(0x1014, (1u << 3) | 1u, "CONV_CON3 strides");
	expect(0x104C, 0xB, "CVT_CON0 0xB");
	expect(0x1050, 0x10000, "CVT_CON1 scale 1");
	expect(0x1184, (uint32_t)(100 - 0x80), "PAD_CON1 izp - 0x80");
	expect(0x3010, 1, "MISC_CFG qd_en");
	expect(0x400C, 0x1E4, "DPU FEATURE_MODE_CFG 0x1E4");
	expect(0x4010, 0, "DATA_FORMAT 0");
	expect(0x4040, 0x20150, "BS_CFG 0x20150");
	expect(0x4050, 0x124, "BS_OW_CFG 0x124");
	expect(0x4054, 0x80 - 120, "BS_OW_OP 0x80 - wzp");
	expect(0x4060, 0x53, "BN_CFG bypass");
	expect(0x4070, 0x383, "EW_CFG bypass");
	expect(0x4078, 1, "EW_CVT_SCALE 1");
	expect(0x4080, (uint32_t)(90 - 0x80), "OUT_CVT_OFFSET ozp - 0x80");
	expect(0x40C0, (8u * 8u * 2u) << 4, "SURFACE_ADD out_W·out_H·2");
	expect(0x501C, 0x2, "BRDMA_CFG 0x2");
	expect(0x5020, 0x28000000, "BS_BASE = bias");
	expect(0x5034, 1, "ERDMA_CFG 1");
	expect(0x5044, 0x7810, "DPU_RDMA FEATURE_MODE_CFG 0x7810");
	expect(0x5068, 0x01010101, "WEIGHT 0x01010101");
	assert_true(entries[tasks[0].body + 3] == 0x00810000001D0008ull);	/* enable 0x1D (601) */

	/* §6.3: OUT_CVT_SHIFT = 141 − E. */
	memcpy(&bits, &conv_scale, 4);
	e = (bits >> 23) & 0xFF;
	expect(0x4088, 141 - e, "OUT_CVT_SHIFT 141 - E (6.3)");
	/*
	 * Departure: OUT_CVT_SCALE. Mesa takes float bits [23:9], adds 1 and
	 * forces bit 14 (2^14 + top 14 mantissa bits + 1); the "+1" is an open
	 * question (HARDWARE.md §9.9). We round 1.m × 2^14 to nearest, which
	 * differs from Mesa's value by at most one unit.
	 */
	{
		uint32_t mesa = 0x4000u + ((bits >> 9) & 0x3FFFu) + 1u;
		uint32_t ours = reg[0x4084 / 4] & 0xFFFFu;

		assert_true(ours == mesa || ours + 1 == mesa);
		assert_int_equal(ours, (0x800000u + (bits & 0x7FFFFFu) + 0x100u) >> 9);
	}
	/*
	 * Departures with reasons:
	 *  - CONV_CON2 grains: Mesa 51 + stride; we write the
	 *    slice height + 1 (MTX M + 1, vendor 15 for 14 rows).
	 *  - WEIGHT_SIZE2.kernels: Mesa ALIGN(OC, 2) with a dense last group;
	 *    we pad to whole 32-kernel groups (no partial-group layout to rely
	 *    on, HARDWARE.md §9.11): 32 here either way.
	 */
	expect(0x1010, (8u + 1u) << 4, "CONV_CON2 grains rows + 1 (departure)");
	expect(0x1038, (3u << 24) | (3u << 16) | 32u, "WEIGHT_SIZE2 (kernels 32)");
}

/* Depthwise: CONV_CON1 3, BS_OW_CFG 0x36C, SURFACE_ADD ·4, RDMA conv mode 3. */
static void test_mesa_set_d_depthwise(void **state)
{
	float w_scale = 0.01f;
	struct lower_conv_op op = {
		.in_h = 10, .in_w = 10, .in_c = 64, .out_c = 64, .kh = 3, .kw = 3,
		.stride_y = 1, .stride_x = 1, .same_padding = true, .depthwise = true,
		.is_unsigned = true, .in_scale = 0.05f, .in_zp = 128, .w_scale = &w_scale,
		.w_scale_count = 1, .w_zp = 130, .out_scale = 0.2f, .out_zp = 128,
		.in_addr = 0x10000000, .weight_addr = 0x20000000, .bias_addr = 0x28000000,
		.out_addr = 0x30000000,
	};

	(void)state;
	build(&op);
	expect(0x100C, 3, "CONV_CON1 depthwise 3");
	expect(0x3010, 3, "MISC_CFG qd_en + dw_en");
	expect(0x400C, 0x1FC, "DPU FEATURE_MODE_CFG depthwise 0x1FC (4.4)");
	expect(0x4050, 0x36C, "BS_OW_CFG depthwise 0x36C");
	expect(0x40C0, (10u * 10u * 4u) << 4, "SURFACE_ADD ·4");
	expect(0x5044, 0x7810 | (3u << 1), "DPU_RDMA FEATURE_MODE_CFG + conv_mode 3 (4.5)");
	expect(0x1184, 0, "PAD_CON1 izp - 0x80");
	expect(0x4080, 0, "OUT_CVT_OFFSET ozp - 0x80");
	/* Depthwise: one kernel (HARDWARE.md §4.2 WEIGHT_SIZE2, Mesa). */
	expect(0x1038, (3u << 24) | (3u << 16) | 1u, "WEIGHT_SIZE2 kernels 1 (4.2)");
}

/* Signed, symmetric weights: no CPEND term (qd_en 0, od_bypass). */
static void test_symmetric_weights_skip_cpend(void **state)
{
	float w_scale = 0.01f;
	struct lower_conv_op op = {
		.in_h = 8, .in_w = 8, .in_c = 16, .out_c = 8, .kh = 1, .kw = 1,
		.stride_y = 1, .stride_x = 1, .in_scale = 0.05f, .in_zp = -3,
		.w_scale = &w_scale, .w_scale_count = 1, .out_scale = 0.2f, .out_zp = 4,
		.in_addr = 0x10000000, .weight_addr = 0x20000000, .bias_addr = 0x28000000,
		.out_addr = 0x30000000,
	};

	(void)state;
	build(&op);
	expect(0x3010, 0, "MISC_CFG (no qd_en)");
	expect(0x4050, 0x126, "BS_OW_CFG od_bypass");
	expect(0x1184, (uint32_t)-3, "PAD_CON1 = input zero point");
	expect(0x4080, 4, "OUT_CVT_OFFSET = output zero point");
	expect(0x1024, (15u << 16) | 32u, "DATA_SIZE1 real 15, channel 32");
}

/*
 * §4.8 B: vendor fp16 convolution C 160 → 320, 3×3,
 * 14×14 → 12×12, first task. Departures, checked as such:
 *  - DATA_SIZE1.channel_real: vendor 31, we write C − 1 = 159 (Mesa, MTX);
 *    the vendor rule is an open question (HARDWARE.md §9.5).
 *  - The vendor programs all 320 kernels (0xE1000 weight bytes) with 10
 *    weight banks, i.e. it streams weights (UNSURE); we keep each
 *    task's weights inside its 10 banks: 112 kernels per task, so
 *    WEIGHT_SIZE0/2, DATAOUT_SIZE_1, DATA_CUBE_CHANNEL and WDMA_SIZE_0 of
 *    the first task describe 112 kernels, and there are three tasks.
 */
static void test_vendor_set_b_fp16(void **state)
{
	struct lower_conv_op op = {
		.prec = NPU_PREC_FP16, .in_h = 14, .in_w = 14, .in_c = 160, .out_c = 320,
		.kh = 3, .kw = 3, .stride_y = 1, .stride_x = 1,
		.in_addr = 0x10000000, .weight_addr = 0x20000000, .out_addr = 0x30000000,
	};
	struct rc_program p;
	size_t count;

	(void)state;
	assert_int_equal(lower_conv_task_count(&op, &count), 0);
	assert_int_equal(count, 3);
	rc_program_init(&p, entries, CAP, tasks, 8);
	assert_int_equal(lower_conv(&p, &op), 0);
	record_first_task();
	expect(0x100C, 0x120, "CONV_CON1");
	expect(0x1010, 0xF0, "CONV_CON2 grains 15");
	expect(0x1014, 0x9, "CONV_CON3");
	expect(0x1020, 0x000E000E, "DATA_SIZE0");
	expect(0x1028, 0xC, "DATA_SIZE2");
	expect(0x102C, 0x90, "DATA_SIZE3");
	expect(0x1034, 0xB40, "WEIGHT_SIZE1");
	expect(0x1040, 0xA2, "CBUF_CON0");
	expect(0x1044, 0x46, "CBUF_CON1");
	expect(0x104C, 0xB, "CVT_CON0");
	expect(0x1050, 0x10000, "CVT_CON1");
	expect(0x1078, 0x000F000F, "DMA_CON0");
	expect(0x107C, 0x38, "DMA_CON1");
	expect(0x1080, 0x8C, "DMA_CON2");
	expect(0x1084, 0x000E000E, "FC_DATA_SIZE0");
	expect(0x1088, 0xA0, "FC_DATA_SIZE1");
	expect(0x3010, 0x200, "MISC_CFG");
	expect(0x3014, 0x000B000B, "DATAOUT_SIZE_0");
	expect(0x400C, 0x1E4, "DPU FEATURE_MODE_CFG");
	expect(0x4010, 0x48000002, "DATA_FORMAT");
	expect(0x4024, 0x900, "DST_SURF_STRIDE");
	expect(0x4030, 0xB, "DATA_CUBE_WIDTH");
	expect(0x4034, 0xB, "DATA_CUBE_HEIGHT");
	expect(0x4040, 0x53, "BS_CFG");
	expect(0x4050, 0x126, "BS_OW_CFG");
	expect(0x405C, 0x000B000B, "WDMA_SIZE_1");
	expect(0x4060, 0x53, "BN_CFG");
	expect(0x4070, 0x383, "EW_CFG");
	expect(0x4078, 1, "EW_CVT_SCALE");
	expect(0x4084, 0x10001, "OUT_CVT_SCALE");
	expect(0x40C0, 0x1200, "SURFACE_ADD");
	/* departures */
	expect(0x1024, (159u << 16) | 160u, "DATA_SIZE1: vendor 0x001F00A0");
	expect(0x1030, 112u * 2880u, "WEIGHT_SIZE0: vendor 0xE1000");
	expect(0x1038, 0x03030000u | 112u, "WEIGHT_SIZE2: vendor 0x03030140");
	expect(0x3018, 111, "DATAOUT_SIZE_1: vendor 0x13F");
	expect(0x403C, (111u << 16) | 111u, "DATA_CUBE_CHANNEL: vendor 0x013F013F");
	expect(0x4058, 111, "WDMA_SIZE_0: vendor 0x13F");
	assert_true(entries[tasks[0].body + 3] == 0x00810000000D0008ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_mesa_set_d_direct),
		cmocka_unit_test(test_mesa_set_d_depthwise),
		cmocka_unit_test(test_symmetric_weights_skip_cpend),
		cmocka_unit_test(test_vendor_set_b_fp16),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
