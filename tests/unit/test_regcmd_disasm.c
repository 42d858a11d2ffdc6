/* SPDX-License-Identifier: MIT */
/*
 * Disassembler and text form. Expected decodings are the facts' own
 * readings of published entries (HARDWARE.md §3.2-3.4, §4.2-4.4).
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "compiler/disasm.h"

static void expect(uint64_t e, int flagged, const char *text)
{
	char buf[512];

	assert_int_equal(rc_disasm_entry(e, buf, sizeof(buf)), flagged);
	assert_string_equal(buf, text);
}

static void test_known_entries(void **state)
{
	/* §4.2: vendor CBUF_CON0 0xA2 = 2 data banks + 10 weight banks */
	expect(0x0201000000A21040ull, 0,
	       "CNA.CBUF_CON0 weight_reuse=0 data_reuse=0 fc_data_bank=0 weight_bank=0xa data_bank=2");
	/* §4.4: BS_CFG bypass 0x53 */
	expect(0x1001000000534040ull, 0,
	       "DPU.BS_CFG bs_alu_algo=0 bs_alu_src=0 bs_relux_en=0 bs_relu_bypass=1 "
	       "bs_mul_prelu=0 bs_mul_bypass=1 bs_alu_bypass=1 bs_bypass=1");
	/* §3.4: TRM example op-enable 0x7F (bit 1 reserved → flagged) */
	expect(0x00810000007F0008ull, 1,
	       "op_enable mask=0x7f cna core dpu dpu_rdma ppu ppu_rdma ?undefined_bits=0x2");
	expect(0x00810000001D0008ull, 0, "op_enable mask=0x1d cna core dpu dpu_rdma");
	expect(0x0041000000000000ull, 0, "marker");
	expect(0, 0, "nop");
	/* register without fields */
	expect(0x0801000000003030ull, 0, "CORE.RESERVED_3030 value=0");
}

static void test_flagged_entries(void **state)
{
	/* §3.2: 0x0401 is not used on RK3588 */
	expect(0x0401000000052004ull, 1, "?target=0x0401 offset=0x2004 value=0x5");
	/* offset of another block through the DPU target */
	expect(0x1001000000011040ull, 1, "DPU.?0x1040 value=0x1 ?offset of CNA.CBUF_CON0");
	/* unknown CNA offset */
	expect(0x0201000000071234ull, 1, "CNA.?0x1234 value=0x7");
	/* bits outside every field of PAD_CON0 ([7:4], [3:0]) */
	expect(0x0201000001111068ull, 1, "CNA.PAD_CON0 pad_left=1 pad_top=1 ?bits=0x100");
}

static void test_parse_text(void **state)
{
	uint64_t out[8];
	size_t n;
	unsigned int bad;
	const char *good = "# header\n0x0201000000A21040\n\n  00810000000d0008  # op\r\n0041000000000000";

	assert_int_equal(rc_parse_text(good, out, 8, &n, &bad), 0);
	assert_int_equal(n, 3);
	assert_true(out[0] == 0x0201000000A21040ull);
	assert_true(out[1] == 0x00810000000D0008ull);
	assert_true(out[2] == 0x0041000000000000ull);

	assert_int_equal(rc_parse_text("0041000000000000\n123\n", out, 8, &n, &bad), -EINVAL);
	assert_int_equal(bad, 2);
	assert_int_equal(rc_parse_text("00410000000000000\n", out, 8, &n, &bad), -EINVAL);
	assert_int_equal(rc_parse_text("0x\n", out, 8, &n, &bad), -EINVAL);
	assert_int_equal(rc_parse_text("0041000000000000 junk\n", out, 8, &n, &bad), -EINVAL);
	assert_int_equal(rc_parse_text("0041000000000000\n0041000000000000\n", out, 1, &n, &bad),
			 -ENOSPC);
}

static void test_truncation(void **state)
{
	char buf[8];

	rc_disasm_entry(0x0201000000A21040ull, buf, sizeof(buf));
	assert_int_equal(strlen(buf), 7);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_known_entries),
		cmocka_unit_test(test_flagged_entries),
		cmocka_unit_test(test_parse_text),
		cmocka_unit_test(test_truncation),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
