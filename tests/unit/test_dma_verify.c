// SPDX-License-Identifier: MIT
/*
 * The DMA verifier (runtime/dma_verify.h) on hostile streams, written with
 * the test-local encoder of test_sim_util.h (from HARDWARE.md, not from the
 * runtime's builder):
 *   - a convolution with bias, given buffers of exactly the bytes its
 *     layout needs (computed here from HARDWARE.md §5), passes; each buffer
 *     16 bytes short is refused, naming the register;
 *   - a destination inside the image's text, a chain pointer outside the
 *     stream, strides whose extent wraps 32-bit arithmetic to a few bytes,
 *     and a surface stride that makes surfaces overlap backwards are refused;
 *   - an M = 1 matmul with the vendor's signed surface stride (-3 atoms)
 *     passes with its dense buffers; pooling and element-wise reads and
 *     writes are checked; a register a task leaves unwritten keeps the
 *     previous task's value;
 *   - a chained task one fetch unit (16 bytes) past the stream buffer is
 *     refused, and dv_check_job refuses a task whose qwords start before,
 *     off the qword grid of, or past the stream, or end one qword past it.
 */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "runtime/dma_verify.h"

#include "test_sim_util.h"

#define IN_PA	0x10000000u
#define WT_PA	0x11000000u
#define OUT_PA	0x12000000u
#define BIAS_PA	0x13000000u
#define RC_PA	0x14000000u
#define TEXT_PA	0x00280000u	/* where an image's text would be */
#define SHORT	16u		/* bytes taken off a buffer */

enum { B_IN, B_WT, B_OUT, B_BIAS, B_RC, B_COUNT };

struct job {
	struct t_rc rc;
	struct dv_range own[B_COUNT];
	char err[256];
};

/* 9x7 input, 32 channels (2 int8 surfaces), 3x3 kernels, 40 outputs
 * (int32 out, two kernel groups of 32), bias. */
static struct t_conv conv_case(void)
{
	struct t_conv t = { 0 };

	t.prec = NPU_PREC_INT8;
	t.h = 9; t.w = 7; t.c = 32; t.oc = 40;
	t.kh = t.kw = 3; t.sy = t.sx = 1; t.pt = t.pl = 1;
	t.oh = 9; t.ow = 7;
	t.in_pa = IN_PA; t.wt_pa = WT_PA; t.out_pa = OUT_PA; t.bias_pa = BIAS_PA;
	t.in_row = 16u * t.w;
	t.in_surf = t.in_row * t.h;
	t.out_prec = NPU_PREC_INT32;
	t.out_surf = t.ow * t.oh * 16u;
	return t;
}

static int verify(struct job *j)
{
	struct dv_state s;

	dv_state_reset(&s);
	return dv_check_task(&s, j->rc.q, j->rc.n, 0, j->own, B_COUNT, j->err, sizeof(j->err));
}

/* The conv task and buffers of exactly the bytes HARDWARE.md §5 gives. */
static void conv_job(struct job *j, const struct t_conv *t)
{
	unsigned kernels = t_kernels(t), och = t_out_channels(t);
	/* int32 output: 4 channels an atom, kernel groups of 32 (8 surfaces) */
	uint64_t out_bytes = (uint64_t)(och / 4u) * t->out_surf;

	memset(j, 0, sizeof(*j));
	t_rc_tail(&j->rc, 0, 0, t_conv_body(&j->rc, t));
	j->own[B_IN] = (struct dv_range){ IN_PA, (t->c + 15u) / 16u * t->in_surf, "in" };
	j->own[B_WT] = (struct dv_range){ WT_PA, (uint64_t)t->kh * t->kw * t->c * kernels, "wt" };
	j->own[B_OUT] = (struct dv_range){ OUT_PA, out_bytes, "out" };
	j->own[B_BIAS] = (struct dv_range){ BIAS_PA, och * 4u, "bias" };
	j->own[B_RC] = (struct dv_range){ RC_PA, j->rc.n * 8u, "stream" };
}

static void expect_refused(struct job *j, const char *reg, const char *addr)
{
	assert_int_equal(verify(j), -EFAULT);
	if (!strstr(j->err, reg) || (addr && !strstr(j->err, addr)))
		fail_msg("refused, but the message does not name %s %s: %s", reg,
			 addr ? addr : "", j->err);
}

static void test_exact_buffers(void **state)
{
	static const struct { unsigned buf; const char *reg; } cases[] = {
		{ B_IN, "CNA FEATURE_DATA_ADDR" },
		{ B_WT, "CNA DCOMP_ADDR0" },
		{ B_OUT, "DPU DST_BASE_ADDR" },
		{ B_BIAS, "DPU_RDMA BS_BASE_ADDR" },
	};
	struct t_conv t = conv_case();
	struct job j;

	(void)state;
	conv_job(&j, &t);
	if (verify(&j))
		fail_msg("exact buffers refused: %s", j.err);
	for (unsigned i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		conv_job(&j, &t);
		j.own[cases[i].buf].size -= SHORT;
		expect_refused(&j, cases[i].reg, NULL);
	}
}

static void test_destination_in_text(void **state)
{
	struct t_conv t = conv_case();
	struct job j;

	(void)state;
	t.out_pa = TEXT_PA;
	conv_job(&j, &t);
	expect_refused(&j, "DPU DST_BASE_ADDR", "0x00280000");
}

static void test_chain_outside(void **state)
{
	struct t_conv t = conv_case();
	struct job j;

	(void)state;
	conv_job(&j, &t);
	j.rc.n = 0;
	t_rc_tail(&j.rc, 0xDEAD0000u, 40, t_conv_body(&j.rc, &t));
	j.own[B_RC].size = j.rc.n * 8u;
	expect_refused(&j, "PC BASE_ADDRESS (next task)", "0xdead0000");
	/* chaining to a second task inside the stream buffer is fine */
	j.rc.n = 0;
	t_rc_tail(&j.rc, RC_PA + 0x400u, 40, t_conv_body(&j.rc, &t));
	j.own[B_RC].size = 0x400u + 41u * 16u;
	if (verify(&j))
		fail_msg("chain inside the stream refused: %s", j.err);
	/* the chained task's 41 fetch units of 16 bytes: one short is refused */
	j.own[B_RC].size -= 16u;
	expect_refused(&j, "PC BASE_ADDRESS (next task)", NULL);
}

/* Qwords ahead of the task in the stream (16-byte aligned). */
#define LEAD_QWORDS	2u

static int verify_job(struct job *j, uint64_t task_addr, size_t stream_qwords)
{
	static uint64_t stream[LEAD_QWORDS + T_RC_MAX];
	struct npu_task task = { 0 };

	memset(stream, 0, sizeof(stream));
	memcpy(stream + LEAD_QWORDS, j->rc.q, j->rc.n * sizeof(uint64_t));
	task.regcmd_addr = task_addr;
	task.regcfg_amount = j->rc.n - NPU_RC_TAIL_QWORDS;
	j->err[0] = 0;
	return dv_check_job(&task, 1, stream, RC_PA, stream_qwords, j->own, B_COUNT, j->err,
			    sizeof(j->err));
}

static void expect_job_refused(struct job *j, uint64_t task_addr, size_t stream_qwords,
			       const char *what)
{
	assert_int_equal(verify_job(j, task_addr, stream_qwords), -EFAULT);
	if (!strstr(j->err, what))
		fail_msg("task at 0x%llx, stream of %zu qwords: refused, but not for %s: %s",
			 (unsigned long long)task_addr, stream_qwords, what, j->err);
}

/* dv_check_job: where the driver will fetch each task from. */
static void test_job_task_bounds(void **state)
{
	struct t_conv t = conv_case();
	uint64_t at = RC_PA + LEAD_QWORDS * 8u;
	size_t exact;
	struct job j;

	(void)state;
	conv_job(&j, &t);
	exact = LEAD_QWORDS + j.rc.n;
	j.own[B_RC].size = exact * 8u;
	if (verify_job(&j, at, exact))
		fail_msg("a task filling the stream exactly refused: %s", j.err);
	expect_job_refused(&j, at, exact - 1u, "outside the command stream");
	expect_job_refused(&j, RC_PA - 16u, exact, "outside the command stream");
	expect_job_refused(&j, at + 4u, exact, "outside the command stream");
	expect_job_refused(&j, RC_PA + (exact + 2u) * 8u, exact, "outside the command stream");
	/* inside the stream the caller names, but not inside a buffer it owns */
	j.own[B_RC].size = exact * 8u - 16u;
	expect_job_refused(&j, at, exact, "PC BASE_ADDRESS (task fetch)");
	/* the task's own checks run: its output buffer 16 bytes short */
	j.own[B_RC].size = exact * 8u;
	j.own[B_OUT].size -= SHORT;
	expect_job_refused(&j, at, exact, "task 0: DPU DST_BASE_ADDR");
}

/* line stride 2^26 atoms-of-4: 16 rows apart are 2^32 bytes, which 32-bit
 * arithmetic would wrap to nothing. */
static void test_extent_wraps_32_bits(void **state)
{
	struct t_conv t = conv_case();
	struct job j;

	(void)state;
	t.c = 16;
	t.h = 17;
	t.oh = 17;
	t.in_row = 1ull << 28;
	t.in_surf = t.in_row * t.h;
	conv_job(&j, &t);
	j.own[B_IN].size = 1u << 20;
	expect_refused(&j, "CNA FEATURE_DATA_ADDR", "0x10000000");
}

static void test_negative_surface(void **state)
{
	struct t_conv t = conv_case();
	struct job j;

	(void)state;
	conv_job(&j, &t);
	/* line + surface <= 0 with two surfaces: reads before the buffer */
	for (unsigned i = 0; i < j.rc.n; i++)
		if (npu_rc_offset(j.rc.q[i]) == NPU_CNA_DMA_CON2)
			j.rc.q[i] = npu_rc_entry(NPU_CNA_TARGET, 0x0FFFF000u, NPU_CNA_DMA_CON2);
	expect_refused(&j, "CNA DMA_CON1/DMA_CON2", NULL);
}

/* M = 1 matmul, K = 64: one row, four int8 surfaces, the vendor's
 * SURF_STRIDE of -3 atoms (line 4 + surface -3 = one atom a surface). */
static void test_signed_stride_matmul(void **state)
{
	struct t_conv t = { 0 };
	struct job j;

	(void)state;
	t.prec = NPU_PREC_INT8;
	t.h = 1; t.w = 1; t.c = 64; t.oc = 32;
	t.kh = t.kw = 1; t.sy = t.sx = 1;
	t.oh = 1; t.ow = 1;
	t.in_pa = IN_PA; t.wt_pa = WT_PA; t.out_pa = OUT_PA;
	t.in_row = 16u;
	t.in_surf = 16u;		/* dense: one atom a surface */
	t.out_prec = NPU_PREC_INT32;
	t.out_surf = 16u;
	conv_job(&j, &t);
	j.own[B_IN].size = 64u;		/* K bytes, not 4 rows of them */
	j.own[B_BIAS].size = 0;
	if (verify(&j))
		fail_msg("dense M = 1 buffers refused: %s", j.err);
	j.own[B_IN].size = 48u;
	expect_refused(&j, "CNA FEATURE_DATA_ADDR", NULL);
}

/* Standalone int8 max pool 8x8x32 -> 4x4x32 (PPU_RDMA in, PPU out). */
static void pool_task(struct t_rc *rc, uint32_t src, uint32_t dst)
{
	T_PRDMA(rc, CUBE_IN_WIDTH, 7);
	T_PRDMA(rc, CUBE_IN_HEIGHT, 7);
	T_PRDMA(rc, CUBE_IN_CHANNEL, 31);
	T_PRDMA(rc, SRC_BASE_ADDR, src);
	T_PRDMA(rc, SRC_LINE_STRIDE, 8u * 16u);
	T_PRDMA(rc, SRC_SURF_STRIDE, 64u * 16u);
	T_PRDMA(rc, DATA_FORMAT, NPU_PPU_RDMA_IN_8BIT);
	T_PPU(rc, DATA_CUBE_OUT_WIDTH, 3);
	T_PPU(rc, DATA_CUBE_OUT_HEIGHT, 3);
	T_PPU(rc, DATA_CUBE_OUT_CHANNEL, 31);
	T_PPU(rc, DST_BASE_ADDR, dst);
	T_PPU(rc, DST_SURF_STRIDE, 16u * 16u);
	T_PPU(rc, DATA_FORMAT, NPU_PREC_INT8);
}

static void test_pool(void **state)
{
	struct job j;

	(void)state;
	memset(&j, 0, sizeof(j));
	pool_task(&j.rc, IN_PA, OUT_PA);
	t_rc_tail(&j.rc, 0, 0, NPU_EN_PPU | NPU_EN_PPU_RDMA);
	j.own[B_IN] = (struct dv_range){ IN_PA, 2u * 64u * 16u, "in" };
	j.own[B_OUT] = (struct dv_range){ OUT_PA, 2u * 16u * 16u, "out" };
	j.own[B_RC] = (struct dv_range){ RC_PA, j.rc.n * 8u, "stream" };
	if (verify(&j))
		fail_msg("pool refused: %s", j.err);
	j.own[B_OUT].size -= SHORT;
	expect_refused(&j, "PPU DST_BASE_ADDR", NULL);
	j.own[B_OUT].size += SHORT;
	j.own[B_IN].size -= SHORT;
	expect_refused(&j, "PPU_RDMA SRC_BASE_ADDR", NULL);
}

/* Element-wise add of two 4x4x16 int8 cubes (MRDMA + ERDMA per pixel). */
static void test_eltwise(void **state)
{
	struct job j;
	struct dv_state s;

	(void)state;
	memset(&j, 0, sizeof(j));
	T_DPU(&j.rc, FEATURE_MODE_CFG, NPU_FV(DPU, FEATURE_MODE_CFG, OUTPUT_MODE, 2) |
				       NPU_FV(DPU, FEATURE_MODE_CFG, FLYING_MODE, 1));
	T_DPU(&j.rc, DATA_FORMAT, 0);
	T_DPU(&j.rc, DST_BASE_ADDR, OUT_PA);
	T_DPU(&j.rc, DST_SURF_STRIDE, 16u * 16u);
	T_DPU(&j.rc, DATA_CUBE_WIDTH, 3);
	T_DPU(&j.rc, DATA_CUBE_HEIGHT, 3);
	T_DPU(&j.rc, DATA_CUBE_CHANNEL, 15);
	T_RDMA(&j.rc, SRC_BASE_ADDR, IN_PA);
	T_RDMA(&j.rc, FEATURE_MODE_CFG, 0);
	T_RDMA(&j.rc, ERDMA_CFG, NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_MODE, 1) |
				 NPU_FV(DPU_RDMA, ERDMA_CFG, ERDMA_DATA_SIZE, 1));
	T_RDMA(&j.rc, EW_BASE_ADDR, TEXT_PA);
	T_RDMA(&j.rc, EW_SURF_STRIDE, 16u * 16u);
	t_rc_tail(&j.rc, 0, 0, NPU_EN_DPU | NPU_EN_DPU_RDMA);
	j.own[B_IN] = (struct dv_range){ IN_PA, 16u * 16u, "a" };
	j.own[B_OUT] = (struct dv_range){ OUT_PA, 16u * 16u, "out" };
	j.own[B_RC] = (struct dv_range){ RC_PA, j.rc.n * 8u, "stream" };
	expect_refused(&j, "DPU_RDMA EW_BASE_ADDR", "0x00280000");
	/* the operand in a buffer of its own: accepted */
	j.own[B_WT] = (struct dv_range){ TEXT_PA, 16u * 16u, "b" };
	if (verify(&j))
		fail_msg("element-wise refused: %s", j.err);
	/* a second task that writes only the op-enable keeps every address */
	dv_state_reset(&s);
	assert_int_equal(dv_check_task(&s, j.rc.q, j.rc.n, 0, j.own, B_COUNT, j.err,
				       sizeof(j.err)), 0);
	j.own[B_OUT].addr += 16u;
	j.rc.n = 0;
	t_rc_tail(&j.rc, 0, 0, NPU_EN_DPU | NPU_EN_DPU_RDMA);
	assert_int_equal(dv_check_task(&s, j.rc.q, j.rc.n, 1, j.own, B_COUNT, j.err,
				       sizeof(j.err)), -EFAULT);
	assert_non_null(strstr(j.err, "task 1: DPU DST_BASE_ADDR"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact_buffers),
		cmocka_unit_test(test_destination_in_text),
		cmocka_unit_test(test_chain_outside),
		cmocka_unit_test(test_job_task_bounds),
		cmocka_unit_test(test_extent_wraps_32_bits),
		cmocka_unit_test(test_negative_surface),
		cmocka_unit_test(test_signed_stride_matmul),
		cmocka_unit_test(test_pool),
		cmocka_unit_test(test_eltwise),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
