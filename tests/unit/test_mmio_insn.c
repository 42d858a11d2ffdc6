/* SPDX-License-Identifier: MIT */
/*
 * The qemu-virt trap's instruction decoder against the GNU assembler: each
 * case is assembly text, encoded at test time by aarch64-linux-gnu-as, and
 * the expected result is read off the text (load/store, Rt, or refused),
 * not derived from the decoder's constants.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "board/qemu-virt/mmio_emulate.h"
#include "board/qemu-virt/mmio_insn.h"
#include "drivers/npu/npu.h"

#define REFUSED		(-1)
#define LOAD		0
#define STORE		1

static const struct {
	const char *text;
	int kind;		/* LOAD, STORE or REFUSED */
	unsigned int rt;
} cases[] = {
	/* What hal_read32/hal_write32 emit, and the other accepted forms. */
	{ "ldr w0, [x1]", LOAD, 0 },
	{ "ldr w19, [x0, #4]", LOAD, 19 },
	{ "ldr w30, [sp, #16380]", LOAD, 30 },
	{ "str w5, [x2]", STORE, 5 },
	{ "str wzr, [x3, #0x28]", STORE, 31 },
	{ "ldr wzr, [x3]", LOAD, 31 },
	{ "ldur w7, [x8, #-4]", LOAD, 7 },
	{ "ldur w7, [x8, #255]", LOAD, 7 },
	{ "stur w9, [x10, #-256]", STORE, 9 },
	{ "ldr w11, [x12, x13]", LOAD, 11 },
	{ "ldr w11, [x12, x13, lsl #2]", LOAD, 11 },
	{ "str w14, [x15, w16, uxtw]", STORE, 14 },
	{ "str w14, [x15, w16, sxtw #2]", STORE, 14 },
	/* Other sizes, sign extension, SIMD, pairs, writeback, others. */
	{ "ldr x0, [x1]", REFUSED, 0 },
	{ "str x0, [x1, #8]", REFUSED, 0 },
	{ "ldrb w0, [x1]", REFUSED, 0 },
	{ "ldrh w0, [x1]", REFUSED, 0 },
	{ "strh w0, [x1]", REFUSED, 0 },
	{ "ldrsw x0, [x1]", REFUSED, 0 },
	{ "ldursw x0, [x1, #-4]", REFUSED, 0 },
	{ "ldr s0, [x1]", REFUSED, 0 },
	{ "str s0, [x1]", REFUSED, 0 },
	{ "ldp w0, w1, [x2]", REFUSED, 0 },
	{ "stp w0, w1, [x2]", REFUSED, 0 },
	{ "ldr w0, [x1], #4", REFUSED, 0 },
	{ "ldr w0, [x1, #4]!", REFUSED, 0 },
	{ "str w0, [x1], #-4", REFUSED, 0 },
	{ "str w0, [x1, #4]!", REFUSED, 0 },
	{ "ldtr w0, [x1]", REFUSED, 0 },
	{ "sttr w0, [x1]", REFUSED, 0 },
	{ "ldxr w0, [x1]", REFUSED, 0 },
	{ "ldar w0, [x1]", REFUSED, 0 },
	{ "stlr w0, [x1]", REFUSED, 0 },
	{ "ldadd w0, w1, [x2]", REFUSED, 0 },
	{ "swp w0, w1, [x2]", REFUSED, 0 },
	{ "ldr w0, 0x100", REFUSED, 0 },
	{ "prfm pldl1keep, [x1]", REFUSED, 0 },
	{ "add w0, w1, w2", REFUSED, 0 },
	{ "nop", REFUSED, 0 },
};

#define CASE_COUNT	(sizeof(cases) / sizeof(cases[0]))

static uint32_t words[CASE_COUNT];

/* Assemble every case with the cross assembler, one word each. */
static int assemble(void **state)
{
	char dir[] = "/tmp/test_mmio_insn_XXXXXX";
	char path[128], cmd[512];
	FILE *f;
	size_t i;

	if (!mkdtemp(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/t.s", dir);
	f = fopen(path, "w");
	if (!f)
		return -1;
	fprintf(f, "\t.arch armv8.2-a+lse\n\t.text\n");
	for (i = 0; i < CASE_COUNT; i++)
		fprintf(f, "\t%s\n", cases[i].text);
	fclose(f);
	snprintf(cmd, sizeof(cmd),
		 "cd %s && aarch64-linux-gnu-as t.s -o t.o && "
		 "aarch64-linux-gnu-objcopy -O binary -j .text t.o t.bin", dir);
	if (system(cmd) != 0)
		return -1;
	snprintf(path, sizeof(path), "%s/t.bin", dir);
	f = fopen(path, "rb");
	if (!f)
		return -1;
	/* The image is little-endian, as is the host. */
	i = fread(words, sizeof(words[0]), CASE_COUNT, f);
	fclose(f);
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd) != 0)
		return -1;
	return i == CASE_COUNT ? 0 : -1;
}

static void test_against_assembler(void **state)
{
	size_t i;

	for (i = 0; i < CASE_COUNT; i++) {
		struct mmio_insn mi = { .store = false, .rt = 99 };
		int ret = mmio_insn_decode(words[i], &mi);

		if (cases[i].kind == REFUSED) {
			if (ret != -1)
				fail_msg("'%s' (0x%08x) accepted", cases[i].text, words[i]);
			continue;
		}
		if (ret != 0)
			fail_msg("'%s' (0x%08x) refused", cases[i].text, words[i]);
		if (mi.store != (cases[i].kind == STORE) || mi.rt != cases[i].rt)
			fail_msg("'%s' (0x%08x): store %d rt %u", cases[i].text, words[i],
				 mi.store, mi.rt);
	}
}

/* The two encodings published in HARDWARE.md §B.5. */
static void test_published_encodings(void **state)
{
	struct mmio_insn mi;

	assert_int_equal(mmio_insn_decode(0xb9000000u | (3u << 5) | 7u, &mi), 0);
	assert_true(mi.store);
	assert_int_equal(mi.rt, 7);
	assert_int_equal(mmio_insn_decode(0xb9400000u | (1u << 10) | (2u << 5) | 19u, &mi), 0);
	assert_false(mi.store);
	assert_int_equal(mi.rt, 19);
}

static uint8_t *no_ram(void *ctx, uint64_t phys, size_t len)
{
	(void)ctx;
	(void)phys;
	(void)len;
	return NULL;
}

/*
 * The entry a foreign kernel's abort handler calls (mmio_emulate): a load
 * of PC VERSION gets the RK3588 value zero-extended into X1, a store goes
 * into the model and loads back; other instructions, a direction the ESR
 * contradicts and addresses outside the model are refused.
 */
static void test_emulate(void **state)
{
	const struct sim_bus bus = { .map = no_ram };
	const struct sim_config cfg = { .powered_at_reset = true };
	struct sim_soc *soc = sim_soc_create(&bus, &cfg);
	uint64_t x[31] = { 0 };
	uintptr_t pc = rk3588_npu_board.cores[0].base;	/* the PC block is at +0 */

	(void)state;
	assert_non_null(soc);
	x[0] = pc + NPU_PC_VERSION;
	x[1] = 0xdeadbeefcafef00dull;
	assert_int_equal(mmio_emulate(soc, x[0], 0xb9400001u, false, x), 0);	/* ldr w1, [x0] */
	assert_int_equal(x[1], NPU_PC_VERSION_RK3588);

	x[0] = pc + NPU_PC_BASE_ADDRESS;
	x[2] = 0xffffffff12345670ull;
	assert_int_equal(mmio_emulate(soc, x[0], 0xb9000002u, true, x), 0);	/* str w2, [x0] */
	assert_int_equal(mmio_emulate(soc, x[0], 0xb9400003u, false, x), 0);	/* ldr w3, [x0] */
	assert_int_equal(x[3], 0x12345670u);

	assert_int_equal(mmio_emulate(soc, x[0], 0x39400001u, false, x), -1);	/* ldrb */
	assert_int_equal(mmio_emulate(soc, x[0], 0xb9400001u, true, x), -1);	/* WnR says store */
	assert_int_equal(mmio_emulate(soc, 0x1000, 0xb9400001u, false, x), -1);
	assert_int_equal(mmio_emulate(soc, x[0] + 2, 0xb9400001u, false, x), -1);	/* unaligned */
	sim_soc_destroy(soc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_against_assembler),
		cmocka_unit_test(test_published_encodings),
		cmocka_unit_test(test_emulate),
	};

	return cmocka_run_group_tests(tests, assemble, NULL);
}
