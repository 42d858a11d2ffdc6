/* SPDX-License-Identifier: MIT */
/*
 * Regcmd encoder: entries, task tail, padding, chaining and errors, checked
 * against the entry values published in HARDWARE.md §2.4 and §3.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include "compiler/regcmd.h"

#define CAP 1024
#define TASKS 8

static uint64_t entries[CAP];
static struct rc_task tasks[TASKS];

static void emit_body(struct rc_program *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		RC_WRITE(p, DPU, OFFSET_PEND, (uint32_t)i);
}

/* §3.2: CNA target 0x0201, value in bits 47:16, full in-core offset 0x1040. */
static void test_entry_encoding(void **state)
{
	struct rc_program p;

	rc_program_init(&p, entries, CAP, tasks, TASKS);
	rc_task_begin(&p);
	RC_WRITE(&p, CNA, CBUF_CON0, 0xA2);
	RC_WRITE(&p, DPU, S_POINTER, 0xE);
	RC_WRITE(&p, PPU_RDMA, DATA_FORMAT, 2);
	assert_int_equal(p.err, 0);
	assert_int_equal(p.len, 3);
	assert_true(entries[0] == 0x0201000000A21040ull);
	assert_true(entries[1] == 0x10010000000E4004ull);
	assert_true(entries[2] == 0x8001000000027030ull);
}

/* §3.3: tail = PC_BASE_ADDRESS, PC_REGISTER_AMOUNTS, marker, op-enable last.
 * MTX matmul: body 104, enable 0x0D (§4.8 A). */
static void test_single_task_tail(void **state)
{
	struct rc_program p;
	struct npu_task desc;

	rc_program_init(&p, entries, CAP, tasks, TASKS);
	rc_task_begin(&p);
	emit_body(&p, 104);
	rc_task_end(&p, NPU_EN_CNA | NPU_EN_CORE | NPU_EN_DPU, NPU_INT_DPU);
	assert_int_equal(rc_program_link(&p, 0x10000000), 0);
	assert_int_equal(p.len, 108);
	assert_true(entries[104] == 0x0101000000000010ull);
	assert_true(entries[105] == 0x0101000000000014ull);
	assert_true(entries[106] == 0x0041000000000000ull);
	assert_true(entries[107] == 0x00810000000D0008ull);

	assert_int_equal(rc_program_tasks(&p, 0x10000000, 0, 1, &desc), 0);
	assert_int_equal(desc.regcfg_amount, 104);	/* §4.8 A descriptor */
	assert_int_equal(desc.int_mask, 0x300);
	assert_int_equal(desc.enable_mask, 0xD);
	assert_int_equal(desc.int_clear, 0x1FFFF);
	assert_true(desc.regcmd_addr == 0x10000000);
	/* BSP formula (§2.4): body 104 → REGISTER_AMOUNTS 53. */
	assert_int_equal(rc_register_amount(desc.regcfg_amount + 4), 53);
}

/* §3.6: body + tail must be even; the pad goes before the tail. */
static void test_odd_body_padded(void **state)
{
	struct rc_program p;

	rc_program_init(&p, entries, CAP, tasks, TASKS);
	rc_task_begin(&p);
	emit_body(&p, 3);
	rc_task_end(&p, NPU_EN_PPU | NPU_EN_PPU_RDMA, NPU_INT_PPU);
	assert_int_equal(p.err, 0);
	assert_int_equal(tasks[0].body, 4);
	assert_int_equal(p.len, 8);
	assert_true(entries[3] == 0);
	assert_true(entries[6] == 0x0041000000000000ull);
	assert_true(entries[7] == 0x0081000000600008ull);	/* §3.4: PPU-only 0x60 */
}

/* §2.4 / §3.5: chained tasks. Next body 108 → amount 55 (vendor captures),
 * next body 104 → 53; tasks 64-byte aligned; the last tail ends with 0 / 0. */
static void test_chain(void **state)
{
	struct rc_program p;
	struct npu_task desc[3];
	const uint32_t base = 0x20000000;

	rc_program_init(&p, entries, CAP, tasks, TASKS);
	for (int t = 0; t < 3; t++) {
		rc_task_begin(&p);
		emit_body(&p, t == 2 ? 104 : 108);
		rc_task_end(&p, 0x1D, NPU_INT_DPU);
	}
	assert_int_equal(rc_program_link(&p, base), 0);
	assert_int_equal(tasks[0].start, 0);
	assert_int_equal(tasks[1].start, 112);	/* 112 × 8 bytes = 14 × 64 */
	assert_int_equal(tasks[2].start, 224);
	for (int t = 0; t < 3; t++)
		assert_int_equal(tasks[t].start % 8, 0);

	/* task 0 → task 1 at base + 896, amount 55 */
	assert_true(entries[108] == (0x0101000000000010ull | ((uint64_t)(base + 896) << 16)));
	assert_true(entries[109] == (0x0101000000000014ull | (55ull << 16)));
	/* task 1 → task 2 (body 104) amount 53 */
	assert_true(entries[112 + 108] == (0x0101000000000010ull | ((uint64_t)(base + 1792) << 16)));
	assert_true(entries[112 + 109] == (0x0101000000000014ull | (53ull << 16)));
	/* last: 0 / 0, then marker and op-enable */
	assert_true(entries[224 + 104] == 0x0101000000000010ull);
	assert_true(entries[224 + 105] == 0x0101000000000014ull);
	assert_true(entries[224 + 107] == 0x00810000001D0008ull);

	assert_int_equal(rc_program_tasks(&p, base, 0, 3, desc), 0);
	assert_int_equal(desc[0].int_mask, 0x300);
	assert_int_equal(desc[2].int_mask, 0x300);
	assert_true(desc[1].regcmd_addr == base + 896);
	assert_int_equal(desc[2].regcfg_amount, 104);
}

/* Two independent chains in one buffer (one per core). */
static void test_chain_ranges(void **state)
{
	struct rc_program p;

	rc_program_init(&p, entries, CAP, tasks, TASKS);
	for (int t = 0; t < 4; t++) {
		rc_task_begin(&p);
		emit_body(&p, 10);
		rc_task_end(&p, 0xD, NPU_INT_DPU);
	}
	assert_int_equal(rc_program_link_range(&p, 0x1000, 0, 2), 0);
	assert_int_equal(rc_program_link_range(&p, 0x1000, 2, 2), 0);
	/* task 1 ends its chain, task 0 points at task 1 */
	assert_true(npu_rc_value(entries[tasks[1].start + tasks[1].body]) == 0);
	assert_true(npu_rc_value(entries[tasks[0].start + 10]) == 0x1000 + tasks[1].start * 8);
	assert_true(npu_rc_value(entries[tasks[0].start + 11]) == 6);	/* ceil(14/2) - 1 */
	assert_true(npu_rc_value(entries[tasks[2].start + 10]) == 0x1000 + tasks[3].start * 8);
	assert_int_equal(rc_program_link_range(&p, 0x1000, 3, 2), -EINVAL);
	assert_int_equal(rc_program_link_range(&p, 0x1008, 0, 2), -EINVAL);
}

static void test_overflow_is_sticky(void **state)
{
	struct rc_program p;

	rc_program_init(&p, entries, 6, tasks, TASKS);
	rc_task_begin(&p);
	emit_body(&p, 4);
	rc_task_end(&p, 0xD, NPU_INT_DPU);
	assert_int_equal(p.err, -ENOSPC);
	assert_int_equal(p.len, 6);
	assert_int_equal(p.task_count, 0);
	RC_WRITE(&p, DPU, OFFSET_PEND, 1);
	assert_int_equal(p.len, 6);
	assert_int_equal(rc_program_link(&p, 0), -ENOSPC);
}

static void test_bad_writes(void **state)
{
	struct rc_program p;

	/* offset of another block */
	rc_program_init(&p, entries, CAP, tasks, TASKS);
	rc_task_begin(&p);
	rc_emit(&p, NPU_BLOCK_CNA, NPU_DPU_BS_CFG, 0);
	assert_int_equal(p.err, -EINVAL);
	/* DDMA has no regcmd target (§3.1) */
	rc_program_init(&p, entries, CAP, tasks, TASKS);
	rc_task_begin(&p);
	rc_emit(&p, NPU_BLOCK_DDMA, NPU_DDMA_CFG_OUTSTANDING, 0);
	assert_int_equal(p.err, -EINVAL);
	/* outside a task */
	rc_program_init(&p, entries, CAP, tasks, TASKS);
	RC_WRITE(&p, DPU, OFFSET_PEND, 1);
	assert_int_equal(p.err, -EINVAL);
	/* undefined enable bit 1 (§3.4 reserved) */
	rc_program_init(&p, entries, CAP, tasks, TASKS);
	rc_task_begin(&p);
	rc_task_end(&p, 0x2, NPU_INT_DPU);
	assert_int_equal(p.err, -EINVAL);
	/* too many tasks */
	rc_program_init(&p, entries, CAP, tasks, 1);
	rc_task_begin(&p);
	rc_task_end(&p, 0xD, NPU_INT_DPU);
	rc_task_begin(&p);
	assert_int_equal(p.err, -ENOSPC);
}

/* Per-core ranges: contiguous, balanced, never cut before a task that reads
 * its predecessor's output; a range starting on a CBUF-reusing task has its
 * reuse bits cleared (CBUF_CON0 [13] weight_reuse, [12] data_reuse, §4.2). */
static void test_split(void **state)
{
	struct rc_program p;
	struct npu_subcore_task r[5];
	/* tasks 1-3 read their predecessor's partial sums */
	const bool dep[8] = { false, true, true, true, false, false, true, false };
	int n;

	rc_program_init(&p, entries, CAP, tasks, TASKS);
	for (int t = 0; t < 8; t++) {
		rc_task_begin(&p);
		if (dep[t])
			rc_task_after_previous(&p);
		if (t == 7) {
			rc_task_reuses_cbuf(&p);
			RC_WRITE(&p, CNA, CBUF_CON0, 0x30B1);	/* both reuse bits, 11 + 1 banks */
		}
		emit_body(&p, 4);
		rc_task_end(&p, 0xD, NPU_INT_DPU);
	}
	n = rc_program_split(&p, 0, 8, 3, r);
	assert_int_equal(n, 3);
	/* 8 / 3 → cut at 2, moved past the dependent run to 4; then 4 + 4/2 = 6
	 * is dependent → 7; the last range takes the rest */
	assert_int_equal(r[0].task_start, 0);
	assert_int_equal(r[0].task_number, 4);
	assert_int_equal(r[1].task_start, 4);
	assert_int_equal(r[1].task_number, 3);
	assert_int_equal(r[2].task_start, 7);
	assert_int_equal(r[2].task_number, 1);
	assert_true(entries[tasks[7].start] == 0x0201000000B11040ull);	/* reuse dropped */
	n = rc_program_split(&p, 0, 4, 3, r);		/* one dependent run: one range */
	assert_int_equal(n, 1);
	assert_int_equal(r[0].task_number, 4);
	assert_int_equal(rc_program_split(&p, 1, 3, 2, r), -EINVAL);	/* starts dependent */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_entry_encoding),
		cmocka_unit_test(test_single_task_tail),
		cmocka_unit_test(test_odd_body_padded),
		cmocka_unit_test(test_chain),
		cmocka_unit_test(test_chain_ranges),
		cmocka_unit_test(test_overflow_is_sticky),
		cmocka_unit_test(test_bad_writes),
		cmocka_unit_test(test_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
