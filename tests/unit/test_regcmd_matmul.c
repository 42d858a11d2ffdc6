/* SPDX-License-Identifier: MIT */
/*
 * "The matmul regcmd for the shapes whose register values are published in
 * the sources is identical word for word." Expected values are typed from
 * docs/HARDWARE.md: the §4.8 A table (MTX matmul, mtx512/rk3588-npu
 * src/npu_matmul.c, given as formulas of M, K, N and instantiated here per
 * shape) and the vendor fp16 GEMM tile §4.8 C (allbilly/rk3588 captures).
 * Departures are named in the test with the reason.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/lower_matmul.h"
#include "compiler/regcmd.h"

#define CAP 4096
#define TASKS 16
#define A_ADDR 0x10000000u
#define B_ADDR 0x20000000u
#define C_ADDR 0x30000000u

static uint64_t entries[CAP];
static struct rc_task tasks[TASKS];

struct expect {
	uint16_t offset;
	uint32_t value;
	const char *what;
};

/* The register file one task leaves: last write per offset, write counts. */
struct task_regs {
	uint32_t value[0x8000 / 4];
	uint8_t writes[0x8000 / 4];
	size_t body;
};

static void collect(const struct rc_program *p, size_t task, struct task_regs *r)
{
	const struct rc_task *t = &p->tasks[task];

	memset(r, 0, sizeof(*r));
	r->body = t->body;
	for (size_t i = t->start; i < t->start + t->body; i++) {
		uint16_t off = npu_rc_offset(p->q[i]);

		if (!p->q[i])
			continue;
		assert_true(off < 0x8000);
		r->value[off / 4] = npu_rc_value(p->q[i]);
		r->writes[off / 4]++;
	}
}

static void check(const struct task_regs *r, const struct expect *e, size_t n, const char *shape)
{
	for (size_t i = 0; i < n; i++) {
		if (r->writes[e[i].offset / 4] != 1 || r->value[e[i].offset / 4] != e[i].value)
			fail_msg("%s: %s (0x%04x) = 0x%08x written %u time(s), published 0x%08x",
				 shape, e[i].what, e[i].offset, r->value[e[i].offset / 4],
				 r->writes[e[i].offset / 4], e[i].value);
	}
}

static void build(struct rc_program *p, enum lower_mm_type type, unsigned int m, unsigned int k,
		  unsigned int n)
{
	struct lower_matmul_op op = {
		.type = type, .m = m, .k = k, .n = n,
		.a_addr = A_ADDR, .b_addr = B_ADDR, .c_addr = C_ADDR,
	};

	rc_program_init(p, entries, CAP, tasks, TASKS);
	assert_int_equal(lower_matmul(p, &op), 0);
	assert_int_equal(rc_program_link(p, 0x40000000), 0);
}

/* §4.8 A, instantiated for one shape; bytes = 1 (int8) or 2 (fp16). */
/*
 * CNA DMA_CON2.SURF_STRIDE, a signed 28-bit field. MTX: line stride
 * (4) × (M / 4 − 1), plus one when negative (src/npu_matmul.c), so
 * 0x0ffffffd for M = 1, 2 and 3 — the stride of line + surface = 1 atom is
 * the dense surface of M = 1 only. The vendor's captured streams write
 * W × (H − 4) for every short input (0x0ffffffd for 1×1 and 3×3,
 * 0x0ffffffc for 2×2: allbilly/rk3588 experimental/rknn/), which gives the
 * dense surface for every H; we follow the captures, so M = 2 and 3 depart
 * from MTX's value, by name.
 */
static uint32_t mtx_surf_stride(unsigned int m)
{
	const uint32_t field = 0x0fffffffu;

	if (m >= 4)
		return 4 * (m / 4 - 1);
	if (m == 1)
		return 0x0ffffffdu;		/* MTX and the captures agree */
	return (uint32_t)((int32_t)m - 4) & field;	/* captures: W (H - 4), W = 1 */
}

static void check_table_a(enum lower_mm_type type, unsigned int m, unsigned int k, unsigned int n)
{
	static struct task_regs r;
	struct rc_program p;
	struct npu_task desc;
	char shape[64];
	int fp16 = type != LOWER_MM_INT8_INT32;
	unsigned int bytes = fp16 ? 2 : 1;
	unsigned int data_bank = (m * k * bytes + 32767) / 32768;
	/* size_e per output precision; od_bypass is bit 1 */
	unsigned int size_e = type == LOWER_MM_INT8_INT32 ? 7 : type == LOWER_MM_FP16_FP32 ? 3 : 1;
	/* SURFACE_ADD M×8 int32, M×4 fp32, M×2 fp16, at bit 4 */
	unsigned int surf_mul = type == LOWER_MM_INT8_INT32 ? 8 : type == LOWER_MM_FP16_FP32 ? 4 : 2;
	/* DATA_FORMAT per type (§4.8 A) */
	uint32_t data_format = type == LOWER_MM_INT8_INT32 ? 0x80000000u :
			       type == LOWER_MM_FP16_FP32 ? 0xA8000002u : 0x48000002u;
	const struct expect e[] = {
		{ 0x4004, 0xE, "DPU S_POINTER" },
		{ 0x100C, fp16 ? 0x120u : 0u, "CONV_CON1" },
		{ 0x1010, (m + 1) << 4, "CONV_CON2 grains M+1" },
		{ 0x1014, 0x9, "CONV_CON3" },
		{ 0x1020, (1u << 16) | m, "DATA_SIZE0" },
		{ 0x1024, ((k - 1) << 16) | k, "DATA_SIZE1" },
		{ 0x1028, 1, "DATA_SIZE2" },
		{ 0x102C, m, "DATA_SIZE3" },
		{ 0x1030, k * n * bytes, "WEIGHT_SIZE0" },
		{ 0x1034, k * bytes, "WEIGHT_SIZE1" },
		{ 0x1038, (1u << 24) | (1u << 16) | n, "WEIGHT_SIZE2" },
		{ 0x1040, ((12 - data_bank) << 4) | data_bank, "CBUF_CON0" },
		{ 0x1044, (k * bytes + 63) / 64, "CBUF_CON1" },
		{ 0x104C, 0xB, "CVT_CON0" },
		{ 0x1050, 0x10000, "CVT_CON1" },
		{ 0x1054, 0x10000, "CVT_CON2" },
		{ 0x1058, 0x10000, "CVT_CON3" },
		{ 0x105C, 0x10000, "CVT_CON4" },
		{ 0x1078, 0x000F000F, "DMA_CON0" },
		{ 0x107C, 4, "DMA_CON1" },
		{ 0x1080, mtx_surf_stride(m), "DMA_CON2" },
		{ 0x1084, (1u << 16) | m, "FC_DATA_SIZE0" },
		{ 0x1088, k, "FC_DATA_SIZE1" },
		{ 0x1110, B_ADDR, "DCOMP_ADDR0" },
		{ 0x1070, A_ADDR, "FEATURE_DATA_ADDR" },
		{ 0x1184, 0, "PAD_CON1" },
		{ 0x1180, 0, "CVT_CON5" },
		{ 0x301C, 0, "CLIP_TRUNCATE" },
		{ 0x3030, 0, "CORE 0x3030" },
		{ 0x3010, fp16 ? 0x201u : 0u, "MISC_CFG" },
		{ 0x3014, (m - 1) << 16, "DATAOUT_SIZE_0" },
		{ 0x3018, n - 1, "DATAOUT_SIZE_1" },
		{ 0x400C, 0x1E4, "DPU FEATURE_MODE_CFG" },
		{ 0x4010, data_format, "DPU DATA_FORMAT" },
		{ 0x4020, C_ADDR, "DST_BASE" },
		{ 0x4024, m * 16, "DST_SURF_STRIDE" },
		{ 0x4030, 0, "DATA_CUBE_WIDTH" },
		{ 0x4034, m - 1, "DATA_CUBE_HEIGHT" },
		{ 0x403C, ((n - 1) << 16) | (n - 1), "DATA_CUBE_CHANNEL" },
		{ 0x4040, 0x53, "BS_CFG" },
		{ 0x4060, 0x53, "BN_CFG" },
		{ 0x4070, 0x383, "EW_CFG" },
		{ 0x4050, (size_e << 8) | (size_e << 5) | (size_e << 2) | 2, "BS_OW_CFG" },
		{ 0x4058, n - 1, "WDMA_SIZE_0" },
		{ 0x405C, (m - 1) << 16, "WDMA_SIZE_1" },
		{ 0x4078, 1, "EW_CVT_SCALE" },
		{ 0x4084, type == LOWER_MM_FP16_FP16 ? 0x10001u : 1u, "OUT_CVT_SCALE" },
		{ 0x4088, 0, "OUT_CVT_SHIFT" },
		{ 0x40C0, (m * surf_mul) << 4, "SURFACE_ADD" },
	};

	snprintf(shape, sizeof(shape), "type %d M %u K %u N %u", type, m, k, n);
	build(&p, type, m, k, n);
	assert_int_equal(p.task_count, 1);	/* single task */
	collect(&p, 0, &r);
	check(&r, e, sizeof(e) / sizeof(e[0]), shape);
	/* first entry is the DPU S_POINTER */
	assert_true(entries[0] == 0x10010000000E4004ull);
	/* tail (§3.3) */
	assert_true(entries[104] == 0x0101000000000010ull);
	assert_true(entries[105] == 0x0101000000000014ull);
	assert_true(entries[106] == 0x0041000000000000ull);
	assert_true(entries[107] == 0x00810000000D0008ull);
	/* task descriptor (§4.8 A) */
	assert_int_equal(rc_program_tasks(&p, 0x40000000, 0, 1, &desc), 0);
	assert_int_equal(desc.int_mask, 0x300);
	assert_int_equal(desc.int_clear, 0x1FFFF);
	assert_int_equal(desc.enable_mask, 0xD);
	assert_int_equal(desc.regcfg_amount, 104);
}

static void test_table_a_int8(void **state)
{
	for (unsigned int m = 1; m <= 3; m++) {
		check_table_a(LOWER_MM_INT8_INT32, m, 32, 32);
		check_table_a(LOWER_MM_INT8_INT32, m, 256, 256);
	}
	check_table_a(LOWER_MM_INT8_INT32, 4, 32, 32);
	check_table_a(LOWER_MM_INT8_INT32, 64, 64, 64);
	check_table_a(LOWER_MM_INT8_INT32, 256, 512, 96);
}

static void test_table_a_fp16_fp32(void **state)
{
	for (unsigned int m = 1; m <= 3; m++)
		check_table_a(LOWER_MM_FP16_FP32, m, 64, 32);
	check_table_a(LOWER_MM_FP16_FP32, 4, 32, 16);
	check_table_a(LOWER_MM_FP16_FP32, 128, 256, 48);
}

static void test_table_a_fp16_fp16(void **state)
{
	for (unsigned int m = 1; m <= 3; m++)
		check_table_a(LOWER_MM_FP16_FP16, m, 32, 16);
	check_table_a(LOWER_MM_FP16_FP16, 8, 64, 32);
	check_table_a(LOWER_MM_FP16_FP16, 100, 96, 64);
}

/*
 * §4.8 C: vendor fp16 GEMM tile M 365, K = N = 448.
 * Identical: CBUF_CON0, DATA_SIZE0, DATA_SIZE1, WEIGHT_SIZE1, CBUF_CON1.
 * Departures, checked as such so a change is noticed:
 *  - CONV_CON1: vendor 0x20000120 sets group_line_off (bit 29), whose
 *    meaning no source documents; we write MTX's 0x120.
 *  - CONV_CON2 grains: vendor 74, we write M + 1 = 366 (MTX);
 *    the right value is an open question (HARDWARE.md §9.6).
 *  - WEIGHT_SIZE0 / WEIGHT_SIZE2: the vendor programs all 448 kernels
 *    (0x62000 bytes, 12.25 banks) with 2 weight banks, i.e. it streams
 *    weights, which is UNSURE; we keep every task's weights
 *    inside its banks, so N is split into 64-kernel tasks (57344 bytes).
 *  - task count: vendor 2 chained tasks; we emit 7 (one per 64 kernels).
 */
static void test_table_c_vendor_gemm(void **state)
{
	static struct task_regs r;
	struct rc_program p;
	const struct expect same[] = {
		{ 0x1040, 0x2A, "CBUF_CON0" },
		{ 0x1020, (1u << 16) | 365, "DATA_SIZE0" },
		{ 0x1024, (447u << 16) | 448, "DATA_SIZE1" },
		{ 0x1034, 0x380, "WEIGHT_SIZE1" },
		{ 0x1044, 14, "CBUF_CON1" },
	};
	const struct expect departures[] = {
		{ 0x100C, 0x120, "CONV_CON1: vendor 0x20000120" },
		{ 0x1010, 366u << 4, "CONV_CON2: vendor grains 74" },
		{ 0x1030, 64u * 896, "WEIGHT_SIZE0: vendor 0x62000" },
		{ 0x1038, (1u << 24) | (1u << 16) | 64, "WEIGHT_SIZE2: vendor 0x010101C0" },
	};

	build(&p, LOWER_MM_FP16_FP16, 365, 448, 448);
	assert_int_equal(p.task_count, 7);
	for (size_t t = 0; t < p.task_count; t++) {
		collect(&p, t, &r);
		check(&r, same, sizeof(same) / sizeof(same[0]), "vendor GEMM");
		check(&r, departures, sizeof(departures) / sizeof(departures[0]), "vendor GEMM");
		/* each task: next 64 kernels, weights and output planes advance */
		assert_int_equal(r.value[0x1110 / 4], B_ADDR + t * 64 * 896);
		assert_int_equal(r.value[0x4020 / 4], C_ADDR + t * (64 / 8) * 365 * 16);
		assert_int_equal(r.value[0x1040 / 4] & (1u << 13), 0);
	}
}

static void test_constraints(void **state)
{
	struct lower_matmul_shape s;
	struct lower_matmul_op op = {
		.type = LOWER_MM_INT8_INT32, .m = 4, .k = 48, .n = 32,
		.a_addr = A_ADDR, .b_addr = B_ADDR, .c_addr = C_ADDR,
	};

	assert_int_equal(lower_matmul_check(&op, &s), -EINVAL);	/* K % 32 */
	op.k = 32;
	op.n = 16;
	assert_int_equal(lower_matmul_check(&op, &s), -EINVAL);	/* int8 N % 32 */
	op.type = LOWER_MM_FP16_FP32;
	assert_int_equal(lower_matmul_check(&op, &s), 0);		/* fp16 N % 16 */
	op.m = 0;
	assert_int_equal(lower_matmul_check(&op, &s), -EINVAL);
	op.m = 4;
	op.c_addr = C_ADDR + 8;
	assert_int_equal(lower_matmul_check(&op, &s), -EINVAL);
	op.c_addr = C_ADDR;
	op.type = 7;
	assert_int_equal(lower_matmul_check(&op, &s), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_a_int8),
		cmocka_unit_test(test_table_a_fp16_fp32),
		cmocka_unit_test(test_table_a_fp16_fp16),
		cmocka_unit_test(test_table_c_vendor_gemm),
		cmocka_unit_test(test_constraints),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
